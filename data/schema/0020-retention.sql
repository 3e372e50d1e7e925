-- 0020-retention.sql
-- frontdesk-migration: destructive=0
--
-- Customer data retention (src/retention.c, src/lifecycle.c):
--  - customer_lifecycle: the read model, one row per customer, rebuilt by
--    'lifecycle' jobs that the triggers below enqueue (recompute, never
--    increment), like the calendar projection;
--  - retention_process: one deletion of one customer, with its deletion id
--    and generation; its state moves one way (status_transition) and every
--    change is a status_flow row. It keeps the customer id only until the
--    purge has finished; then the customer id is NULL;
--  - retention_mark: what each module (appointments, billing, channel,
--    contacts, ...) confirmed for a deletion: pending deletion, restored or
--    purged, each written by the module in its own transaction;
--  - retention_activity: new activity of a customer whose deletion is under
--    way, written by triggers in the same transaction as the activity; the
--    process manager cancels the deletion when it finds one;
--  - retention_hold: legal holds (a dispute): a held customer is never
--    proposed, prepared or purged;
--  - retention_purged: which customer rows are anonymous (no deletion id);
--  - retention_file: files a purge must remove (signed documents, estimate
--    PDFs), by path only;
--  - retention_certificate: what is kept of a purge: the deletion id, a hash
--    of the customer reference, when, and the modules that confirmed.
--  - retention_purging: holds a row only inside a purge's own transaction
--    (inserted first, deleted before the commit, so no other connection
--    ever sees one; `frontdesk check` reports one that was committed).
-- The history, posted-money and raw-payload guards of earlier migrations are
-- re-created so that, while that row exists, the personal text columns
-- alone may be overwritten; every amount, id and time stays as fixed as
-- before. The activity triggers below take the time from SQLite, not from
-- the program, so that a tool other than frontdesk still writes rows.

CREATE TABLE retention_purging (
  deletion_id TEXT PRIMARY KEY
) WITHOUT ROWID;

CREATE TABLE customer_lifecycle (
  customer_id INTEGER PRIMARY KEY REFERENCES customer(id),
  last_activity_at INTEGER NOT NULL,        -- UTC seconds; see README "Retention"
  open_appointments INTEGER NOT NULL CHECK (open_appointments >= 0),
  owing_invoices INTEGER NOT NULL CHECK (owing_invoices >= 0),
  open_credits INTEGER NOT NULL CHECK (open_credits >= 0),
  held INTEGER NOT NULL CHECK (held IN (0, 1)),
  state TEXT NOT NULL CHECK (state IN ('active', 'preparing', 'soft_deleted', 'purging', 'purged')),
  deletion_id TEXT,                         -- the live deletion, NULL when none
  generation INTEGER NOT NULL DEFAULT 0 CHECK (generation >= 0),
  delete_after INTEGER,                     -- when a soft-deleted customer may be purged
  projection_version INTEGER NOT NULL,
  schema_version INTEGER NOT NULL,
  built_at INTEGER NOT NULL
);
CREATE INDEX customer_lifecycle_candidates ON customer_lifecycle(state, last_activity_at);

CREATE TABLE retention_process (
  id INTEGER PRIMARY KEY,
  deletion_id TEXT NOT NULL UNIQUE CHECK (length(deletion_id) = 32),
  customer_id INTEGER REFERENCES customer(id),   -- NULL once purged (only the certificate's hash is kept)
  generation INTEGER NOT NULL CHECK (generation >= 1),
  state TEXT NOT NULL CHECK (state IN ('preparing', 'soft_deleted', 'purging', 'purged',
                                        'cancelled', 'rejected')),
  reason TEXT CHECK (reason IS NULL OR length(reason) <= 400),
  proposed_at INTEGER NOT NULL,
  soft_deleted_at INTEGER,
  delete_after INTEGER,
  finished_at INTEGER,
  operator_id TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  -- purged: no customer id; an older cancelled or rejected deletion loses it
  -- (and its reason) when the customer is purged
  CHECK (customer_id IS NOT NULL OR state IN ('purged', 'cancelled', 'rejected')),
  CHECK (state <> 'purged' OR customer_id IS NULL)
);
CREATE UNIQUE INDEX retention_process_live ON retention_process(customer_id)
  WHERE state IN ('preparing', 'soft_deleted', 'purging');
CREATE INDEX retention_process_by_state ON retention_process(state, delete_after);
CREATE TRIGGER retention_process_fixed BEFORE UPDATE OF deletion_id, proposed_at ON retention_process
WHEN OLD.deletion_id IS NOT NEW.deletion_id OR OLD.proposed_at IS NOT NEW.proposed_at
BEGIN
  SELECT RAISE(ABORT, 'a deletion keeps its id');
END;
CREATE TRIGGER retention_process_generation_grows BEFORE UPDATE OF generation ON retention_process
WHEN NEW.generation < OLD.generation
BEGIN
  SELECT RAISE(ABORT, 'the generation of a deletion never decreases');
END;
CREATE TRIGGER retention_process_no_delete BEFORE DELETE ON retention_process
BEGIN
  SELECT RAISE(ABORT, 'deletions are never deleted');
END;
CREATE TRIGGER retention_process_status_legal BEFORE UPDATE OF state ON retention_process
WHEN OLD.state <> NEW.state AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'retention_process' AND from_status = OLD.state AND to_status = NEW.state)
BEGIN
  SELECT RAISE(ABORT, 'illegal deletion state change');
END;
CREATE TRIGGER retention_process_status_flow_ins AFTER INSERT ON retention_process
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('retention_process', NEW.id, NULL, NEW.state, fd_reason(), fd_operator(), fd_now());
END;
CREATE TRIGGER retention_process_status_flow_upd AFTER UPDATE OF state ON retention_process
WHEN OLD.state <> NEW.state
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('retention_process', NEW.id, OLD.state, NEW.state, fd_reason(), fd_operator(), fd_now());
END;
INSERT INTO status_transition (entity, from_status, to_status) VALUES
  ('retention_process', 'preparing', 'soft_deleted'),
  ('retention_process', 'preparing', 'rejected'),
  ('retention_process', 'preparing', 'cancelled'),
  ('retention_process', 'soft_deleted', 'cancelled'),
  ('retention_process', 'soft_deleted', 'purging'),
  ('retention_process', 'purging', 'purged');

CREATE TABLE retention_mark (
  deletion_id TEXT NOT NULL REFERENCES retention_process(deletion_id),
  module TEXT NOT NULL CHECK (length(module) BETWEEN 1 AND 20),
  generation INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'restored', 'purged')),
  at INTEGER NOT NULL,
  PRIMARY KEY (deletion_id, module)
) WITHOUT ROWID;
CREATE TRIGGER retention_mark_no_delete BEFORE DELETE ON retention_mark
BEGIN
  SELECT RAISE(ABORT, 'deletion marks are never deleted');
END;

CREATE TABLE retention_activity (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL,
  deletion_id TEXT NOT NULL,
  what TEXT NOT NULL,            -- visit, job, payment, invoice, channel order, contact
  at INTEGER NOT NULL
);
CREATE INDEX retention_activity_by_deletion ON retention_activity(deletion_id);

CREATE TABLE retention_hold (
  customer_id INTEGER PRIMARY KEY REFERENCES customer(id),
  reason TEXT NOT NULL CHECK (length(reason) BETWEEN 1 AND 200),
  operator_id TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE TABLE retention_hold_his (
  his_id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL,
  reason TEXT,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX retention_hold_his_by_customer ON retention_hold_his(customer_id);
CREATE TRIGGER retention_hold_his_ins AFTER INSERT ON retention_hold
BEGIN
  INSERT INTO retention_hold_his (customer_id, reason, operator_id, operate_type, operate_at)
  VALUES (NEW.customer_id, NEW.reason, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER retention_hold_his_upd AFTER UPDATE ON retention_hold
BEGIN
  INSERT INTO retention_hold_his (customer_id, reason, operator_id, operate_type, operate_at)
  VALUES (NEW.customer_id, NEW.reason, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER retention_hold_his_del AFTER DELETE ON retention_hold
BEGIN
  INSERT INTO retention_hold_his (customer_id, reason, operator_id, operate_type, operate_at)
  VALUES (OLD.customer_id, OLD.reason, fd_operator(), 2, fd_now());
END;
CREATE TRIGGER retention_hold_his_no_update BEFORE UPDATE ON retention_hold_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id OR NEW.customer_id IS NOT OLD.customer_id
  OR NEW.operate_type IS NOT OLD.operate_type OR NEW.operate_at IS NOT OLD.operate_at
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER retention_hold_his_no_delete BEFORE DELETE ON retention_hold_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE retention_purged (
  customer_id INTEGER PRIMARY KEY REFERENCES customer(id),
  purged_at INTEGER NOT NULL
);
CREATE TRIGGER retention_purged_no_delete BEFORE DELETE ON retention_purged
BEGIN
  SELECT RAISE(ABORT, 'a purge is irreversible');
END;

CREATE TABLE retention_file (
  deletion_id TEXT NOT NULL REFERENCES retention_process(deletion_id),
  path TEXT NOT NULL CHECK (length(path) BETWEEN 1 AND 400),
  removed_at INTEGER,
  PRIMARY KEY (deletion_id, path)
) WITHOUT ROWID;

CREATE TABLE retention_certificate (
  deletion_id TEXT PRIMARY KEY REFERENCES retention_process(deletion_id),
  customer_hash TEXT NOT NULL CHECK (length(customer_hash) = 64),
  generation INTEGER NOT NULL,
  proposed_at INTEGER NOT NULL,
  purged_at INTEGER NOT NULL,
  modules TEXT NOT NULL,          -- the modules that confirmed, comma-separated
  operator_id TEXT NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER retention_certificate_no_update BEFORE UPDATE ON retention_certificate
BEGIN
  SELECT RAISE(ABORT, 'a deletion certificate is never changed');
END;
CREATE TRIGGER retention_certificate_no_delete BEFORE DELETE ON retention_certificate
BEGIN
  SELECT RAISE(ABORT, 'a deletion certificate is never deleted');
END;

-- ------------------------------------------------- the lifecycle's inputs
-- Each trigger enqueues the lifecycle job of every customer whose row may
-- change and, when that customer has a deletion under way, writes the
-- activity that cancels it.
CREATE TRIGGER lc_customer_ins AFTER INSERT ON customer
BEGIN
  INSERT INTO job (kind, key) VALUES ('lifecycle', NEW.id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER lc_service_order_ins AFTER INSERT ON service_order
BEGIN
  INSERT INTO job (kind, key) VALUES ('lifecycle', NEW.customer_id) ON CONFLICT DO NOTHING;
  INSERT INTO retention_activity (customer_id, deletion_id, what, at)
    SELECT customer_id, deletion_id, 'job', CAST(strftime('%s', 'now') AS INTEGER) FROM retention_process
    WHERE customer_id = NEW.customer_id AND state IN ('preparing', 'soft_deleted');
END;
CREATE TRIGGER lc_service_order_upd AFTER UPDATE OF customer_id, status ON service_order
WHEN OLD.customer_id IS NOT NEW.customer_id OR OLD.status IS NOT NEW.status
BEGIN
  INSERT INTO job (kind, key) VALUES ('lifecycle', OLD.customer_id) ON CONFLICT DO NOTHING;
  INSERT INTO job (kind, key) VALUES ('lifecycle', NEW.customer_id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER lc_work_ins AFTER INSERT ON appointment_work
BEGIN
  INSERT INTO job (kind, key)
    SELECT 'lifecycle', customer_id FROM service_order WHERE id = NEW.service_order_id
  ON CONFLICT DO NOTHING;
  INSERT INTO retention_activity (customer_id, deletion_id, what, at)
    SELECT p.customer_id, p.deletion_id, 'visit', CAST(strftime('%s', 'now') AS INTEGER)
    FROM service_order s JOIN retention_process p ON p.customer_id = s.customer_id
    WHERE s.id = NEW.service_order_id AND p.state IN ('preparing', 'soft_deleted');
END;
CREATE TRIGGER lc_work_del AFTER DELETE ON appointment_work
BEGIN
  INSERT INTO job (kind, key)
    SELECT 'lifecycle', customer_id FROM service_order WHERE id = OLD.service_order_id
  ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER lc_appointment_upd AFTER UPDATE OF start_at, end_at, status ON appointment
WHEN OLD.start_at IS NOT NEW.start_at OR OLD.end_at IS NOT NEW.end_at
  OR OLD.status IS NOT NEW.status
BEGIN
  INSERT INTO job (kind, key)
    SELECT 'lifecycle', s.customer_id
    FROM appointment_work w JOIN service_order s ON s.id = w.service_order_id
    WHERE w.appointment_id = NEW.id
  ON CONFLICT DO NOTHING;
  INSERT INTO retention_activity (customer_id, deletion_id, what, at)
    SELECT DISTINCT p.customer_id, p.deletion_id, 'visit', CAST(strftime('%s', 'now') AS INTEGER)
    FROM appointment_work w JOIN service_order s ON s.id = w.service_order_id
    JOIN retention_process p ON p.customer_id = s.customer_id
    WHERE w.appointment_id = NEW.id AND p.state IN ('preparing', 'soft_deleted');
END;
CREATE TRIGGER lc_payment_ins AFTER INSERT ON payment
BEGIN
  INSERT INTO job (kind, key) VALUES ('lifecycle', NEW.customer_id) ON CONFLICT DO NOTHING;
  INSERT INTO retention_activity (customer_id, deletion_id, what, at)
    SELECT customer_id, deletion_id, 'payment', CAST(strftime('%s', 'now') AS INTEGER) FROM retention_process
    WHERE customer_id = NEW.customer_id AND state IN ('preparing', 'soft_deleted');
END;
CREATE TRIGGER lc_payment_upd AFTER UPDATE OF status, allocated, refunded ON payment
WHEN OLD.status IS NOT NEW.status OR OLD.allocated IS NOT NEW.allocated
  OR OLD.refunded IS NOT NEW.refunded
BEGIN
  INSERT INTO job (kind, key) VALUES ('lifecycle', NEW.customer_id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER lc_refund_ins AFTER INSERT ON refund
BEGIN
  INSERT INTO retention_activity (customer_id, deletion_id, what, at)
    SELECT p.customer_id, p.deletion_id, 'payment', CAST(strftime('%s', 'now') AS INTEGER)
    FROM payment y JOIN retention_process p ON p.customer_id = y.customer_id
    WHERE y.id = NEW.payment_id AND p.state IN ('preparing', 'soft_deleted');
END;
CREATE TRIGGER lc_invoice_ins AFTER INSERT ON invoice
BEGIN
  INSERT INTO job (kind, key) VALUES ('lifecycle', NEW.customer_id) ON CONFLICT DO NOTHING;
  INSERT INTO retention_activity (customer_id, deletion_id, what, at)
    SELECT customer_id, deletion_id, 'invoice', CAST(strftime('%s', 'now') AS INTEGER) FROM retention_process
    WHERE customer_id = NEW.customer_id AND state IN ('preparing', 'soft_deleted');
END;
CREATE TRIGGER lc_invoice_upd AFTER UPDATE OF status, balance ON invoice
WHEN OLD.status IS NOT NEW.status OR OLD.balance IS NOT NEW.balance
BEGIN
  INSERT INTO job (kind, key) VALUES ('lifecycle', NEW.customer_id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER lc_pay_order_ins AFTER INSERT ON pay_order
WHEN NEW.customer_id IS NOT NULL
BEGIN
  INSERT INTO job (kind, key) VALUES ('lifecycle', NEW.customer_id) ON CONFLICT DO NOTHING;
  INSERT INTO retention_activity (customer_id, deletion_id, what, at)
    SELECT customer_id, deletion_id, 'channel order', CAST(strftime('%s', 'now') AS INTEGER) FROM retention_process
    WHERE customer_id = NEW.customer_id AND state IN ('preparing', 'soft_deleted');
END;
CREATE TRIGGER lc_pay_order_upd AFTER UPDATE OF status, refunded_amount ON pay_order
WHEN NEW.customer_id IS NOT NULL
  AND (OLD.status IS NOT NEW.status OR OLD.refunded_amount IS NOT NEW.refunded_amount)
BEGIN
  INSERT INTO job (kind, key) VALUES ('lifecycle', NEW.customer_id) ON CONFLICT DO NOTHING;
  INSERT INTO retention_activity (customer_id, deletion_id, what, at)
    SELECT customer_id, deletion_id, 'channel order', CAST(strftime('%s', 'now') AS INTEGER) FROM retention_process
    WHERE customer_id = NEW.customer_id AND state IN ('preparing', 'soft_deleted');
END;
CREATE TRIGGER lc_contact_ins AFTER INSERT ON contact_log
BEGIN
  INSERT INTO job (kind, key) VALUES ('lifecycle', NEW.customer_id) ON CONFLICT DO NOTHING;
  INSERT INTO retention_activity (customer_id, deletion_id, what, at)
    SELECT customer_id, deletion_id, 'contact', CAST(strftime('%s', 'now') AS INTEGER) FROM retention_process
    WHERE customer_id = NEW.customer_id AND state IN ('preparing', 'soft_deleted');
END;
CREATE TRIGGER lc_process_ins AFTER INSERT ON retention_process
BEGIN
  INSERT INTO job (kind, key) VALUES ('lifecycle', NEW.customer_id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER lc_process_upd AFTER UPDATE OF state, generation, delete_after ON retention_process
BEGIN
  INSERT INTO job (kind, key)
    SELECT 'lifecycle', coalesce(NEW.customer_id, OLD.customer_id)
    WHERE coalesce(NEW.customer_id, OLD.customer_id) IS NOT NULL
  ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER lc_hold_ins AFTER INSERT ON retention_hold
BEGIN
  INSERT INTO job (kind, key) VALUES ('lifecycle', NEW.customer_id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER lc_hold_del AFTER DELETE ON retention_hold
BEGIN
  INSERT INTO job (kind, key) VALUES ('lifecycle', OLD.customer_id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER lc_purged_ins AFTER INSERT ON retention_purged
BEGIN
  INSERT INTO job (kind, key) VALUES ('lifecycle', NEW.customer_id) ON CONFLICT DO NOTHING;
END;

-- every existing customer gets its row from the job runner
INSERT INTO job (kind, key) SELECT 'lifecycle', id FROM customer WHERE true ON CONFLICT DO NOTHING;

-- ------------------------------------------ guards that a purge may pass
-- History: inside a purge, only the text columns may change.
DROP TRIGGER customer_his_no_update;
CREATE TRIGGER customer_his_no_update BEFORE UPDATE ON customer_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id OR NEW.id IS NOT OLD.id
  OR NEW.created_at IS NOT OLD.created_at OR NEW.updated_at IS NOT OLD.updated_at
  OR NEW.operator_id IS NOT OLD.operator_id OR NEW.operate_type IS NOT OLD.operate_type
  OR NEW.operate_at IS NOT OLD.operate_at
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
DROP TRIGGER service_order_his_no_update;
CREATE TRIGGER service_order_his_no_update BEFORE UPDATE ON service_order_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id OR NEW.id IS NOT OLD.id
  OR NEW.customer_id IS NOT OLD.customer_id OR NEW.status IS NOT OLD.status
  OR NEW.currency IS NOT OLD.currency OR NEW.operate_at IS NOT OLD.operate_at
  OR NEW.operate_type IS NOT OLD.operate_type OR NEW.operator_id IS NOT OLD.operator_id
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
DROP TRIGGER appointment_his_no_update;
CREATE TRIGGER appointment_his_no_update BEFORE UPDATE ON appointment_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id OR NEW.id IS NOT OLD.id
  OR NEW.start_at IS NOT OLD.start_at OR NEW.end_at IS NOT OLD.end_at
  OR NEW.status IS NOT OLD.status OR NEW.operate_at IS NOT OLD.operate_at
  OR NEW.operate_type IS NOT OLD.operate_type OR NEW.operator_id IS NOT OLD.operator_id
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
DROP TRIGGER line_item_his_no_update;
CREATE TRIGGER line_item_his_no_update BEFORE UPDATE ON line_item_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id OR NEW.id IS NOT OLD.id
  OR NEW.service_order_id IS NOT OLD.service_order_id OR NEW.kind IS NOT OLD.kind
  OR NEW.qty_milli IS NOT OLD.qty_milli OR NEW.unit_price IS NOT OLD.unit_price
  OR NEW.amount IS NOT OLD.amount OR NEW.operate_at IS NOT OLD.operate_at
  OR NEW.operate_type IS NOT OLD.operate_type OR NEW.operator_id IS NOT OLD.operator_id
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
DROP TRIGGER invoice_his_no_update;
CREATE TRIGGER invoice_his_no_update BEFORE UPDATE ON invoice_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id OR NEW.id IS NOT OLD.id
  OR NEW.customer_id IS NOT OLD.customer_id OR NEW.total IS NOT OLD.total
  OR NEW.credited IS NOT OLD.credited OR NEW.paid IS NOT OLD.paid
  OR NEW.balance IS NOT OLD.balance OR NEW.status IS NOT OLD.status
  OR NEW.number IS NOT OLD.number OR NEW.operate_at IS NOT OLD.operate_at
  OR NEW.operate_type IS NOT OLD.operate_type OR NEW.operator_id IS NOT OLD.operator_id
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
DROP TRIGGER invoice_line_his_no_update;
CREATE TRIGGER invoice_line_his_no_update BEFORE UPDATE ON invoice_line_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id OR NEW.id IS NOT OLD.id
  OR NEW.invoice_id IS NOT OLD.invoice_id OR NEW.line_item_id IS NOT OLD.line_item_id
  OR NEW.kind IS NOT OLD.kind OR NEW.qty_milli IS NOT OLD.qty_milli
  OR NEW.unit_price IS NOT OLD.unit_price OR NEW.amount IS NOT OLD.amount
  OR NEW.operate_at IS NOT OLD.operate_at OR NEW.operate_type IS NOT OLD.operate_type
  OR NEW.operator_id IS NOT OLD.operator_id
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
DROP TRIGGER payment_his_no_update;
CREATE TRIGGER payment_his_no_update BEFORE UPDATE ON payment_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id OR NEW.id IS NOT OLD.id
  OR NEW.customer_id IS NOT OLD.customer_id OR NEW.method IS NOT OLD.method
  OR NEW.received_at IS NOT OLD.received_at OR NEW.currency IS NOT OLD.currency
  OR NEW.amount IS NOT OLD.amount OR NEW.allocated IS NOT OLD.allocated
  OR NEW.refunded IS NOT OLD.refunded OR NEW.status IS NOT OLD.status
  OR NEW.operate_at IS NOT OLD.operate_at OR NEW.operate_type IS NOT OLD.operate_type
  OR NEW.operator_id IS NOT OLD.operator_id
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
DROP TRIGGER payment_allocation_his_no_update;
CREATE TRIGGER payment_allocation_his_no_update BEFORE UPDATE ON payment_allocation_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id OR NEW.id IS NOT OLD.id
  OR NEW.payment_id IS NOT OLD.payment_id OR NEW.invoice_id IS NOT OLD.invoice_id
  OR NEW.amount IS NOT OLD.amount OR NEW.reverses_id IS NOT OLD.reverses_id
  OR NEW.operate_at IS NOT OLD.operate_at OR NEW.operate_type IS NOT OLD.operate_type
  OR NEW.operator_id IS NOT OLD.operator_id
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
DROP TRIGGER refund_his_no_update;
CREATE TRIGGER refund_his_no_update BEFORE UPDATE ON refund_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id OR NEW.id IS NOT OLD.id
  OR NEW.payment_id IS NOT OLD.payment_id OR NEW.amount IS NOT OLD.amount
  OR NEW.method IS NOT OLD.method OR NEW.status IS NOT OLD.status
  OR NEW.refunded_at IS NOT OLD.refunded_at
  OR NEW.operate_at IS NOT OLD.operate_at OR NEW.operate_type IS NOT OLD.operate_type
  OR NEW.operator_id IS NOT OLD.operator_id
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
DROP TRIGGER pay_order_his_no_update;
CREATE TRIGGER pay_order_his_no_update BEFORE UPDATE ON pay_order_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id OR NEW.id IS NOT OLD.id
  OR NEW.order_no IS NOT OLD.order_no OR NEW.amount IS NOT OLD.amount
  OR NEW.refunded_amount IS NOT OLD.refunded_amount OR NEW.status IS NOT OLD.status
  OR NEW.operate_at IS NOT OLD.operate_at OR NEW.operate_type IS NOT OLD.operate_type
  OR NEW.operator_id IS NOT OLD.operator_id
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
DROP TRIGGER outbox_event_his_no_update;
CREATE TRIGGER outbox_event_his_no_update BEFORE UPDATE ON outbox_event_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id OR NEW.id IS NOT OLD.id
  OR NEW.event_type IS NOT OLD.event_type OR NEW.business_key IS NOT OLD.business_key
  OR NEW.idempotency_key IS NOT OLD.idempotency_key OR NEW.status IS NOT OLD.status
  OR NEW.operate_at IS NOT OLD.operate_at OR NEW.operate_type IS NOT OLD.operate_type
  OR NEW.operator_id IS NOT OLD.operator_id
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
DROP TRIGGER esign_flow_his_no_update;
CREATE TRIGGER esign_flow_his_no_update BEFORE UPDATE ON esign_flow_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id OR NEW.id IS NOT OLD.id
  OR NEW.estimate_id IS NOT OLD.estimate_id OR NEW.status IS NOT OLD.status
  OR NEW.document_sha256 IS NOT OLD.document_sha256
  OR NEW.operate_at IS NOT OLD.operate_at OR NEW.operate_type IS NOT OLD.operate_type
  OR NEW.operator_id IS NOT OLD.operator_id
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
DROP TRIGGER status_flow_no_update;
CREATE TRIGGER status_flow_no_update BEFORE UPDATE ON status_flow
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.id IS NOT OLD.id OR NEW.entity IS NOT OLD.entity
  OR NEW.entity_id IS NOT OLD.entity_id OR NEW.from_status IS NOT OLD.from_status
  OR NEW.to_status IS NOT OLD.to_status OR NEW.operator_id IS NOT OLD.operator_id
  OR NEW.at IS NOT OLD.at
BEGIN
  SELECT RAISE(ABORT, 'status flow rows are never changed');
END;

-- Posted rows: the note, reference and description alone, and only in a purge.
DROP TRIGGER invoice_guard;
CREATE TRIGGER invoice_guard BEFORE UPDATE ON invoice
BEGIN
  SELECT RAISE(ABORT, 'posted money is never edited: issue a credit note or void the invoice')
  WHERE NEW.id IS NOT OLD.id OR NEW.kind IS NOT OLD.kind OR NEW.customer_id IS NOT OLD.customer_id
    OR NEW.currency IS NOT OLD.currency OR NEW.credits_id IS NOT OLD.credits_id
    OR NEW.allow_overpay IS NOT OLD.allow_overpay
    OR (NEW.note IS NOT OLD.note AND NOT EXISTS (SELECT 1 FROM retention_purging))
    OR NEW.created_at IS NOT OLD.created_at
    OR (OLD.status <> 'draft' AND (NEW.number IS NOT OLD.number OR NEW.series IS NOT OLD.series
        OR NEW.year IS NOT OLD.year OR NEW.seq IS NOT OLD.seq
        OR NEW.issued_at IS NOT OLD.issued_at OR NEW.due_at IS NOT OLD.due_at
        OR NEW.total IS NOT OLD.total));
  SELECT RAISE(ABORT, 'invoice total must equal the sum of its lines')
  WHERE NEW.total IS NOT OLD.total AND NEW.total IS NOT
    (SELECT coalesce(sum(amount), 0) FROM invoice_line WHERE invoice_id = NEW.id);
  SELECT RAISE(ABORT, 'invoice paid must equal the sum of its live allocations')
  WHERE NEW.paid IS NOT OLD.paid AND NEW.paid IS NOT
    (SELECT coalesce(sum(CASE WHEN reverses_id IS NULL THEN amount ELSE -amount END), 0)
     FROM payment_allocation WHERE invoice_id = NEW.id);
  SELECT RAISE(ABORT, 'invoice credited must equal the sum of its credit notes')
  WHERE NEW.credited IS NOT OLD.credited AND NEW.credited IS NOT
    (SELECT coalesce(-sum(total), 0) FROM invoice WHERE credits_id = NEW.id);
  SELECT RAISE(ABORT, 'invoice status does not match its figures')
  WHERE NEW.status IS NOT CASE
    WHEN NEW.status = 'draft' THEN 'draft'
    WHEN NEW.status = 'void' AND NEW.kind = 'invoice' AND NEW.paid = 0 AND NEW.credited = 0
      THEN 'void'
    WHEN NEW.kind = 'credit_note' THEN 'issued'
    WHEN NEW.balance < 0 THEN 'overpaid'
    WHEN NEW.balance = 0 THEN 'paid'
    WHEN NEW.paid > 0 THEN 'partially_paid'
    ELSE 'issued' END;
END;
DROP TRIGGER invoice_line_no_update;
CREATE TRIGGER invoice_line_no_update BEFORE UPDATE ON invoice_line
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.id IS NOT OLD.id OR NEW.invoice_id IS NOT OLD.invoice_id
  OR NEW.line_item_id IS NOT OLD.line_item_id OR NEW.kind IS NOT OLD.kind
  OR NEW.qty_milli IS NOT OLD.qty_milli OR NEW.unit_price IS NOT OLD.unit_price
  OR NEW.amount IS NOT OLD.amount OR NEW.created_at IS NOT OLD.created_at
BEGIN
  SELECT RAISE(ABORT, 'posted money is never edited: issue a credit note instead');
END;
DROP TRIGGER payment_guard;
CREATE TRIGGER payment_guard BEFORE UPDATE ON payment
BEGIN
  SELECT RAISE(ABORT, 'posted money is never edited: void or refund the payment instead')
  WHERE NEW.id IS NOT OLD.id OR NEW.customer_id IS NOT OLD.customer_id
    OR NEW.method IS NOT OLD.method
    OR ((NEW.reference IS NOT OLD.reference OR NEW.note IS NOT OLD.note) AND NOT EXISTS (SELECT 1 FROM retention_purging))
    OR NEW.received_at IS NOT OLD.received_at OR NEW.currency IS NOT OLD.currency
    OR NEW.amount IS NOT OLD.amount
    OR NEW.created_at IS NOT OLD.created_at;
  SELECT RAISE(ABORT, 'payment allocated must equal the sum of its live allocations')
  WHERE NEW.allocated IS NOT OLD.allocated AND NEW.allocated IS NOT
    (SELECT coalesce(sum(CASE WHEN reverses_id IS NULL THEN amount ELSE -amount END), 0)
     FROM payment_allocation WHERE payment_id = NEW.id);
  SELECT RAISE(ABORT, 'payment refunded must equal the sum of its refunds that did not fail')
  WHERE NEW.refunded IS NOT OLD.refunded AND NEW.refunded IS NOT
    (SELECT coalesce(sum(amount), 0) FROM refund WHERE payment_id = NEW.id AND status <> 'failed');
  SELECT RAISE(ABORT, 'payment status does not match its figures')
  WHERE NEW.status IS NOT CASE
    WHEN NEW.status = 'void' AND NEW.allocated = 0 AND NEW.refunded = 0 THEN 'void'
    WHEN NEW.refunded = NEW.amount THEN 'refunded'
    WHEN NEW.allocated = 0 THEN 'unallocated'
    WHEN NEW.allocated + NEW.refunded < NEW.amount THEN 'partially_allocated'
    ELSE 'allocated' END;
END;
DROP TRIGGER payment_allocation_no_update;
CREATE TRIGGER payment_allocation_no_update BEFORE UPDATE ON payment_allocation
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.id IS NOT OLD.id OR NEW.payment_id IS NOT OLD.payment_id
  OR NEW.invoice_id IS NOT OLD.invoice_id OR NEW.amount IS NOT OLD.amount
  OR NEW.reverses_id IS NOT OLD.reverses_id OR NEW.created_at IS NOT OLD.created_at
BEGIN
  SELECT RAISE(ABORT, 'posted money is never edited: reverse the allocation instead');
END;
DROP TRIGGER refund_posted_fixed;
CREATE TRIGGER refund_posted_fixed BEFORE UPDATE ON refund
WHEN NEW.id IS NOT OLD.id OR NEW.payment_id IS NOT OLD.payment_id
  OR NEW.amount IS NOT OLD.amount OR NEW.method IS NOT OLD.method
  OR ((NEW.reference IS NOT OLD.reference OR NEW.reason IS NOT OLD.reason) AND NOT EXISTS (SELECT 1 FROM retention_purging))
  OR NEW.refunded_at IS NOT OLD.refunded_at OR NEW.created_at IS NOT OLD.created_at
BEGIN
  SELECT RAISE(ABORT, 'posted money is never edited: only a pending refund''s status changes');
END;
DROP TRIGGER contact_log_no_update;
CREATE TRIGGER contact_log_no_update BEFORE UPDATE ON contact_log
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.id IS NOT OLD.id OR NEW.customer_id IS NOT OLD.customer_id
  OR NEW.at IS NOT OLD.at OR NEW.channel IS NOT OLD.channel
  OR NEW.direction IS NOT OLD.direction OR NEW.operator_id IS NOT OLD.operator_id
  OR NEW.corrects_id IS NOT OLD.corrects_id OR NEW.created_at IS NOT OLD.created_at
BEGIN
  SELECT RAISE(ABORT, 'contact log rows are never changed: add a correction');
END;

-- (the status guards again, after the guards above: SQLite fires the newest
-- trigger first, and an illegal status change is to be named as such)
DROP TRIGGER invoice_status_legal;
CREATE TRIGGER invoice_status_legal BEFORE UPDATE OF status ON invoice
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'invoice' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal invoice status change');
END;
DROP TRIGGER payment_status_legal;
CREATE TRIGGER payment_status_legal BEFORE UPDATE OF status ON payment
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'payment' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal payment status change');
END;
DROP TRIGGER refund_status_legal;
CREATE TRIGGER refund_status_legal BEFORE UPDATE OF status ON refund
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'refund' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal refund status change');
END;

-- Raw payloads: replaced by a stub in a purge, never otherwise.
DROP TRIGGER inbound_callback_raw_fixed;
CREATE TRIGGER inbound_callback_raw_fixed
BEFORE UPDATE OF source_system, external_id, via, payload, channel_created_at, received_at,
  event_type, object_id ON inbound_callback
WHEN OLD.source_system IS NOT NEW.source_system OR OLD.external_id IS NOT NEW.external_id
  OR OLD.via IS NOT NEW.via OR (OLD.payload IS NOT NEW.payload AND NOT EXISTS (SELECT 1 FROM retention_purging))
  OR OLD.channel_created_at IS NOT NEW.channel_created_at
  OR OLD.received_at IS NOT NEW.received_at OR OLD.event_type IS NOT NEW.event_type
  OR OLD.object_id IS NOT NEW.object_id
BEGIN
  SELECT RAISE(ABORT, 'a stored inbound event is never changed');
END;
DROP TRIGGER outbox_event_fixed;
CREATE TRIGGER outbox_event_fixed BEFORE UPDATE OF event_type, business_key, provider_code,
  idempotency_key, payload, created_at ON outbox_event
WHEN OLD.event_type IS NOT NEW.event_type OR OLD.business_key IS NOT NEW.business_key
  OR OLD.provider_code IS NOT NEW.provider_code
  OR OLD.idempotency_key IS NOT NEW.idempotency_key
  OR (OLD.payload IS NOT NEW.payload AND NOT EXISTS (SELECT 1 FROM retention_purging))
  OR OLD.created_at IS NOT NEW.created_at
BEGIN
  SELECT RAISE(ABORT, 'an outbox command is never changed');
END;

-- Estimates and signed documents: text and evidence go, hashes stay.
DROP TRIGGER estimate_fixed;
CREATE TRIGGER estimate_fixed BEFORE UPDATE ON estimate
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.id IS NOT OLD.id OR NEW.number IS NOT OLD.number
  OR NEW.service_order_id IS NOT OLD.service_order_id OR NEW.customer_id IS NOT OLD.customer_id
  OR NEW.currency IS NOT OLD.currency OR NEW.subtotal IS NOT OLD.subtotal
  OR NEW.tax IS NOT OLD.tax OR NEW.total IS NOT OLD.total
  OR NEW.pdf_path IS NOT OLD.pdf_path OR NEW.pdf_sha256 IS NOT OLD.pdf_sha256
  OR NEW.created_at IS NOT OLD.created_at
BEGIN
  SELECT RAISE(ABORT, 'an estimate is never changed');
END;
DROP TRIGGER esign_flow_document_once;
CREATE TRIGGER esign_flow_document_once BEFORE UPDATE OF document_path, document_sha256,
  document_size, evidence ON esign_flow
WHEN OLD.document_sha256 IS NOT NULL AND (OLD.document_sha256 IS NOT NEW.document_sha256
  OR OLD.document_size IS NOT NEW.document_size
  OR ((OLD.document_path IS NOT NEW.document_path OR OLD.evidence IS NOT NEW.evidence)
      AND NOT EXISTS (SELECT 1 FROM retention_purging)))
BEGIN
  SELECT RAISE(ABORT, 'a stored final document and its evidence are never changed');
END;
