-- 0004-projection.sql
-- frontdesk-migration: destructive=0
--
-- The calendar projection (a read model), the work-order queue that keeps it
-- fresh, and the control table of leases and locks.
--
-- appointment_calendar_view holds one precomputed row per visit so that the
-- calendar reads one table with one indexed range query (src/projection.c).
-- It is rebuilt from the authoritative records, never incremented, and never
-- used to compute money owed. Rows are clustered by start time (WITHOUT ROWID,
-- PRIMARY KEY (start_at, appointment_id)); a visit lasts at most 7 days (the
-- same CHECK as on appointment), and the index on end_at - start_at gives the
-- longest stored visit in one step, which bounds how far before the range a
-- visit that overlaps it can start.
--
-- It needs the billing tables of 0003 (a visit's payment status).
--
-- job is the work-order queue (src/jobq.c). Every change that can alter a
-- calendar row enqueues a 'calendar' job for each touched visit IN THE SAME
-- TRANSACTION, through the triggers below; a pending job for the same kind and
-- key is never duplicated (partial unique index + ON CONFLICT DO NOTHING, which
-- holds whatever conflict clause the statement that fired the trigger uses).
-- The queue and the leases run on the real clock (strftime('%s', 'now') here,
-- time() in C), never on FRONTDESK_NOW: a lease must expire in real time.
--
-- control holds named leases and locks (src/control.c): who holds each, since
-- when, until when, and an epoch bumped on every acquisition, which the
-- holder's writes check in their own transaction (fencing).

CREATE TABLE appointment_calendar_view (
  start_at INTEGER NOT NULL,
  appointment_id INTEGER NOT NULL,
  end_at INTEGER NOT NULL,
  customers TEXT NOT NULL,            -- "Lee", "Lee +2"; '' for a visit with no job
  services TEXT NOT NULL,             -- job titles joined with ", " (bounded)
  total_price INTEGER,                -- minor units; NULL when the jobs mix currencies
  currency TEXT CHECK (currency IS NULL OR length(currency) = 3),
  est_minutes INTEGER NOT NULL CHECK (est_minutes >= 0),
  -- (a CHECK with "IN (list)" of more than two values builds a temporary
  -- b-tree for every row written in SQLite 3.40; a chain of = does not)
  payment_status TEXT NOT NULL CHECK (payment_status = 'unpaid'
    OR payment_status = 'partially_paid' OR payment_status = 'paid'
    OR payment_status = 'overpaid' OR payment_status = 'refunded'
    OR payment_status = 'void' OR payment_status = 'nothing_to_charge'),
  status TEXT NOT NULL,               -- the visit's status
  projection_version INTEGER NOT NULL CHECK (projection_version > 0),
  built_at INTEGER NOT NULL,          -- real time of the rebuild that wrote the row
  PRIMARY KEY (start_at, appointment_id),
  CHECK (end_at > start_at AND end_at - start_at <= 604800)
) WITHOUT ROWID;
CREATE UNIQUE INDEX appointment_calendar_view_by_id ON appointment_calendar_view(appointment_id);
CREATE INDEX appointment_calendar_view_by_length
  ON appointment_calendar_view(end_at - start_at);

-- What a rebuild reads most, kept in indexes so that it never visits the
-- tables for them: a job's line item amounts (its price) and which invoices
-- bill a line item, with the billed amount (its payment status). Both extend
-- indexes of 0002/0003 with the columns the projection needs.
CREATE INDEX cal_line_item_amounts ON line_item(service_order_id, amount);
CREATE INDEX cal_invoice_line_by_item ON invoice_line(line_item_id, invoice_id, amount)
  WHERE line_item_id IS NOT NULL;

CREATE TABLE job (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (length(kind) BETWEEN 1 AND 40),
  key TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 200),
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status = 'pending' OR status = 'running'
    OR status = 'succeeded' OR status = 'failed' OR status = 'dead'),
  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_run_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s', 'now') AS INTEGER)),
  last_error TEXT,
  claimed_by TEXT,                    -- "host:pid" of the runner that claimed it last
  claim_token INTEGER,                -- random per claim: only that claim may finish it
  claim_expires_at INTEGER,           -- a running job past this is runnable again
  created_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s', 'now') AS INTEGER)),
  updated_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s', 'now') AS INTEGER)),
  started_at INTEGER,
  finished_at INTEGER,
  CHECK (status <> 'running'
         OR (claimed_by IS NOT NULL AND claim_token IS NOT NULL AND claim_expires_at IS NOT NULL))
);
CREATE UNIQUE INDEX job_pending_once ON job(kind, key) WHERE status = 'pending';
CREATE INDEX job_due ON job(next_run_at) WHERE status IN ('pending', 'failed');
CREATE INDEX job_claims ON job(claim_expires_at) WHERE status = 'running';
CREATE INDEX job_running_by_key ON job(kind, key) WHERE status = 'running';
CREATE INDEX job_by_status ON job(status, id);
CREATE INDEX job_finished ON job(finished_at) WHERE status = 'succeeded';

CREATE TABLE control (
  name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
  kind TEXT NOT NULL CHECK (kind IN ('lease', 'lock')),
  owner_host TEXT,                    -- NULL while nobody holds it
  owner_pid INTEGER,
  owner_token INTEGER,                -- random per acquisition
  operator_id TEXT,                   -- the person running the holder
  acquired_at INTEGER,
  heartbeat_at INTEGER,
  expires_at INTEGER,
  epoch INTEGER NOT NULL DEFAULT 0 CHECK (epoch >= 0),
  CHECK ((owner_host IS NULL) = (expires_at IS NULL)
         AND (owner_host IS NULL) = (owner_token IS NULL))
) WITHOUT ROWID;

-- ---------------------------------------------------------------- enqueueing
-- A visit's row depends on: the visit (times, status), its links, each linked
-- job (title, status, currency, customer), the job's line items, the
-- customer's name, through the spreading rule the other visits of the same
-- jobs (their minutes, start times and statuses), and the invoices, payments
-- and refunds of the jobs (the payment status). Each trigger enqueues every
-- visit whose row may change.

CREATE TRIGGER cal_appointment_ins AFTER INSERT ON appointment
BEGIN
  INSERT INTO job (kind, key) VALUES ('calendar', NEW.id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER cal_appointment_upd AFTER UPDATE OF id, start_at, end_at, status ON appointment
WHEN OLD.id IS NOT NEW.id OR OLD.start_at IS NOT NEW.start_at OR OLD.end_at IS NOT NEW.end_at
  OR OLD.status IS NOT NEW.status
BEGIN
  INSERT INTO job (kind, key) VALUES ('calendar', OLD.id) ON CONFLICT DO NOTHING;
  INSERT INTO job (kind, key) VALUES ('calendar', NEW.id) ON CONFLICT DO NOTHING;
  INSERT INTO job (kind, key)
    SELECT 'calendar', o.appointment_id
    FROM appointment_work w JOIN appointment_work o ON o.service_order_id = w.service_order_id
    WHERE w.appointment_id = NEW.id
  ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER cal_appointment_del AFTER DELETE ON appointment
BEGIN
  INSERT INTO job (kind, key) VALUES ('calendar', OLD.id) ON CONFLICT DO NOTHING;
END;

CREATE TRIGGER cal_work_ins AFTER INSERT ON appointment_work
BEGIN
  INSERT INTO job (kind, key)
    SELECT 'calendar', appointment_id FROM appointment_work
    WHERE service_order_id = NEW.service_order_id
  ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER cal_work_upd AFTER UPDATE ON appointment_work
WHEN OLD.appointment_id IS NOT NEW.appointment_id
  OR OLD.service_order_id IS NOT NEW.service_order_id
  OR OLD.est_minutes IS NOT NEW.est_minutes
BEGIN
  INSERT INTO job (kind, key) VALUES ('calendar', OLD.appointment_id) ON CONFLICT DO NOTHING;
  INSERT INTO job (kind, key)
    SELECT 'calendar', appointment_id FROM appointment_work
    WHERE service_order_id IN (OLD.service_order_id, NEW.service_order_id)
  ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER cal_work_del AFTER DELETE ON appointment_work
BEGIN
  INSERT INTO job (kind, key) VALUES ('calendar', OLD.appointment_id) ON CONFLICT DO NOTHING;
  INSERT INTO job (kind, key)
    SELECT 'calendar', appointment_id FROM appointment_work
    WHERE service_order_id = OLD.service_order_id
  ON CONFLICT DO NOTHING;
END;

CREATE TRIGGER cal_service_order_upd
AFTER UPDATE OF title, status, currency, customer_id ON service_order
WHEN OLD.title IS NOT NEW.title OR OLD.status IS NOT NEW.status
  OR OLD.currency IS NOT NEW.currency OR OLD.customer_id IS NOT NEW.customer_id
BEGIN
  INSERT INTO job (kind, key)
    SELECT 'calendar', appointment_id FROM appointment_work WHERE service_order_id = NEW.id
  ON CONFLICT DO NOTHING;
END;

CREATE TRIGGER cal_line_item_ins AFTER INSERT ON line_item
BEGIN
  INSERT INTO job (kind, key)
    SELECT 'calendar', appointment_id FROM appointment_work
    WHERE service_order_id = NEW.service_order_id
  ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER cal_line_item_upd AFTER UPDATE ON line_item
WHEN OLD.service_order_id IS NOT NEW.service_order_id OR OLD.amount IS NOT NEW.amount
  OR OLD.kind IS NOT NEW.kind
BEGIN
  INSERT INTO job (kind, key)
    SELECT 'calendar', appointment_id FROM appointment_work
    WHERE service_order_id IN (OLD.service_order_id, NEW.service_order_id)
  ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER cal_line_item_del AFTER DELETE ON line_item
BEGIN
  INSERT INTO job (kind, key)
    SELECT 'calendar', appointment_id FROM appointment_work
    WHERE service_order_id = OLD.service_order_id
  ON CONFLICT DO NOTHING;
END;

CREATE TRIGGER cal_customer_upd AFTER UPDATE OF name ON customer
WHEN OLD.name IS NOT NEW.name
BEGIN
  INSERT INTO job (kind, key)
    SELECT 'calendar', w.appointment_id
    FROM service_order s JOIN appointment_work w ON w.service_order_id = s.id
    WHERE s.customer_id = NEW.id
  ON CONFLICT DO NOTHING;
END;

-- Billing (0003): a visit's payment status follows the issued invoices that
-- bill its jobs' line items, their payments and refunds. Every figure of an
-- invoice (status, total, credited, paid) is maintained by 0003's triggers on
-- invoice itself, so issuing, voiding, allocating, reversing and crediting
-- all pass through cal_invoice_upd; allocations and refunds also decide the
-- "refunded" status, hence their own triggers.
CREATE TRIGGER cal_invoice_upd AFTER UPDATE OF status, total, credited, paid ON invoice
WHEN OLD.status IS NOT NEW.status OR OLD.total IS NOT NEW.total
  OR OLD.credited IS NOT NEW.credited OR OLD.paid IS NOT NEW.paid
BEGIN
  INSERT INTO job (kind, key)
    SELECT 'calendar', w.appointment_id
    FROM invoice_line il JOIN line_item li ON li.id = il.line_item_id
    JOIN appointment_work w ON w.service_order_id = li.service_order_id
    WHERE il.invoice_id = NEW.id
  ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER cal_invoice_line_ins AFTER INSERT ON invoice_line
WHEN NEW.line_item_id IS NOT NULL
BEGIN
  INSERT INTO job (kind, key)
    SELECT 'calendar', w.appointment_id
    FROM line_item li JOIN appointment_work w ON w.service_order_id = li.service_order_id
    WHERE li.id = NEW.line_item_id
  ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER cal_payment_allocation_ins AFTER INSERT ON payment_allocation
BEGIN
  INSERT INTO job (kind, key)
    SELECT 'calendar', w.appointment_id
    FROM invoice_line il JOIN line_item li ON li.id = il.line_item_id
    JOIN appointment_work w ON w.service_order_id = li.service_order_id
    WHERE il.invoice_id = NEW.invoice_id
  ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER cal_refund_ins AFTER INSERT ON refund
BEGIN
  INSERT INTO job (kind, key)
    SELECT 'calendar', w.appointment_id
    FROM payment_allocation a JOIN invoice_line il ON il.invoice_id = a.invoice_id
    JOIN line_item li ON li.id = il.line_item_id
    JOIN appointment_work w ON w.service_order_id = li.service_order_id
    WHERE a.payment_id = NEW.payment_id
  ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER cal_refund_upd AFTER UPDATE OF status ON refund
WHEN OLD.status IS NOT NEW.status
BEGIN
  INSERT INTO job (kind, key)
    SELECT 'calendar', w.appointment_id
    FROM payment_allocation a JOIN invoice_line il ON il.invoice_id = a.invoice_id
    JOIN line_item li ON li.id = il.line_item_id
    JOIN appointment_work w ON w.service_order_id = li.service_order_id
    WHERE a.payment_id = NEW.payment_id
  ON CONFLICT DO NOTHING;
END;

-- A database that already holds visits gets their rows built by the runner.
INSERT INTO job (kind, key) SELECT 'calendar', id FROM appointment WHERE 1
ON CONFLICT DO NOTHING;
