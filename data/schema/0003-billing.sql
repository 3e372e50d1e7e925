-- 0003-billing.sql
-- frontdesk-migration: destructive=0
--
-- Money in and out: invoices and credit notes with their lines (snapshots of
-- line items), payments, allocations of payments to invoices (and reversals
-- of allocations), refunds, gap-free document numbers and idempotency
-- records. The C code (invoice.c, payment.c, idem.c) checks every rule first
-- so that it can say clearly what is wrong; the constraints and triggers here
-- are the backstop that holds whatever program writes.
--
-- Posted money is never edited. Rows of invoice_line, payment_allocation and
-- refund (but a refund's status) are never updated or deleted; payments and
-- invoices are never deleted, and of their columns only the MAINTAINED
-- FIGURES change:
--   invoice: credited, paid, balance, status (and total, number, dates while
--            it is a draft inside the transaction that issues it)
--   payment: allocated, refunded, status
-- Those figures are written by the triggers below, in the same statement as
-- the row that changes them (an allocation, a reversal, a refund, a credit
-- note). A BEFORE UPDATE trigger accepts a new figure only when it equals
-- what the posted rows say (paid = sum of the live allocations, and so on),
-- so an UPDATE from anywhere else either changes nothing or is refused.
--
-- Amounts are integer minor units of the document's currency. An allocation
-- row always has amount > 0; a reversal row (reverses_id set) repeats the
-- allocation it undoes and counts NEGATIVELY: the live allocations of an
-- invoice add up to sum(CASE WHEN reverses_id IS NULL THEN amount ELSE
-- -amount END).
--
-- A credit note is an invoice row with kind 'credit_note', a negative total
-- and credits_id naming the invoice it corrects. Issuing it moves its amount
-- into that invoice's `credited` figure at once, so for every invoice
--   balance = total - credited - paid
-- and the credit note itself owes nothing (credited = paid = balance = 0).
--
-- Speed (bench/MONEY-RESULTS.md): SQLite 3.40 builds a temporary b-tree for
-- every evaluation of "x IN (list)" when the list has more than two values,
-- and CHECKs, partial index WHERE clauses and trigger bodies are evaluated
-- for every row written. So such lists are written here as chains of "=",
-- which cost nothing extra; lists of two values are compiled as two
-- comparisons and stay as IN.

-- Gap-free numbers per series (INV, CN) and year: the counter row is bumped
-- in the transaction that issues the document, so a rollback gives the
-- number back and two desks can never take the same one.
CREATE TABLE document_counter (
  series TEXT NOT NULL CHECK (series IN ('INV', 'CN')),
  year INTEGER NOT NULL CHECK (year BETWEEN 1970 AND 9999),
  last INTEGER NOT NULL CHECK (last >= 1),
  PRIMARY KEY (series, year)
) WITHOUT ROWID;
CREATE TRIGGER document_counter_forward BEFORE UPDATE ON document_counter
WHEN NEW.series IS NOT OLD.series OR NEW.year IS NOT OLD.year OR NEW.last IS NOT OLD.last + 1
BEGIN
  SELECT RAISE(ABORT, 'document numbers only move forward by one');
END;
CREATE TRIGGER document_counter_no_delete BEFORE DELETE ON document_counter
BEGIN
  SELECT RAISE(ABORT, 'document number counters are never deleted');
END;

CREATE TABLE invoice (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL DEFAULT 'invoice' CHECK (kind IN ('invoice', 'credit_note')),
  number TEXT UNIQUE,          -- INV-2026-000123 / CN-2026-000004; NULL while draft
  series TEXT CHECK (series IS NULL OR series IN ('INV', 'CN')),
  year INTEGER,
  seq INTEGER CHECK (seq IS NULL OR seq >= 1),
  customer_id INTEGER NOT NULL REFERENCES customer(id),
  currency TEXT NOT NULL CHECK (length(currency) = 3 AND currency = upper(currency)),
  credits_id INTEGER REFERENCES invoice(id), -- credit notes: the invoice corrected
  issued_at INTEGER,
  due_at INTEGER,
  total INTEGER NOT NULL DEFAULT 0,
  credited INTEGER NOT NULL DEFAULT 0,
  paid INTEGER NOT NULL DEFAULT 0,
  balance INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'draft'
    CHECK (status = 'draft' OR status = 'issued' OR status = 'partially_paid' OR status = 'paid'
           OR status = 'overpaid' OR status = 'void'),
  allow_overpay INTEGER NOT NULL DEFAULT 0 CHECK (allow_overpay IN (0, 1)),
  note TEXT CHECK (note IS NULL OR length(note) <= 2000),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (series, year, seq),
  CHECK (typeof(total) = 'integer' AND typeof(credited) = 'integer'
         AND typeof(paid) = 'integer' AND typeof(balance) = 'integer'),
  CHECK (abs(total) <= 100000000000000),
  CHECK (CASE kind
    WHEN 'invoice' THEN credits_id IS NULL AND total >= 0 AND credited >= 0
      AND credited <= total AND paid >= 0 AND balance = total - credited - paid
      AND (allow_overpay = 1 OR balance >= 0)
    ELSE credits_id IS NOT NULL AND total <= 0 AND credited = 0 AND paid = 0
      AND balance = 0 AND allow_overpay = 0 END),
  CHECK (status = 'draft' OR (number IS NOT NULL AND series IS NOT NULL AND year IS NOT NULL
         AND seq IS NOT NULL AND issued_at IS NOT NULL AND due_at IS NOT NULL))
);
CREATE INDEX invoice_by_customer ON invoice(customer_id, issued_at);
CREATE INDEX invoice_by_credits ON invoice(credits_id) WHERE credits_id IS NOT NULL;
-- open invoices: the automatic allocation (per customer, oldest due first),
-- and the receivables aging, which reads only this index: it holds every
-- column the report uses (status too: SQLite 3.40 counts the column of the
-- index's own WHERE as used), in the order of its GROUP BY; report.c repeats
-- the WHERE word for word so that the planner can use it
CREATE INDEX invoice_open_by_customer ON invoice(customer_id, currency, due_at)
  WHERE status IN ('issued', 'partially_paid');
CREATE INDEX invoice_open_aging ON invoice(customer_id, currency, due_at, balance, status)
  WHERE status = 'issued' OR status = 'partially_paid' OR status = 'overpaid';

CREATE TABLE invoice_line (
  id INTEGER PRIMARY KEY,
  invoice_id INTEGER NOT NULL REFERENCES invoice(id),
  line_item_id INTEGER REFERENCES line_item(id), -- NULL on credit note lines
  kind TEXT NOT NULL CHECK (kind = 'SERVICE' OR kind = 'FEE' OR kind = 'DISCOUNT' OR kind = 'TAX'
                            OR kind = 'CREDIT'),
  description TEXT NOT NULL CHECK (length(description) BETWEEN 1 AND 400),
  qty_milli INTEGER NOT NULL CHECK (qty_milli > 0 AND qty_milli <= 1000000000),
  unit_price INTEGER NOT NULL CHECK (typeof(unit_price) = 'integer' AND unit_price >= 0),
  amount INTEGER NOT NULL CHECK (typeof(amount) = 'integer'
    AND CASE WHEN kind IN ('DISCOUNT', 'CREDIT') THEN amount <= 0 ELSE amount >= 0 END),
  created_at INTEGER NOT NULL
);
CREATE INDEX invoice_line_by_invoice ON invoice_line(invoice_id);
CREATE INDEX invoice_line_by_item ON invoice_line(line_item_id) WHERE line_item_id IS NOT NULL;

CREATE TABLE payment (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customer(id),
  method TEXT NOT NULL CHECK (method = 'cash' OR method = 'check' OR method = 'card'
                              OR method = 'bank_transfer' OR method = 'other'),
  reference TEXT CHECK (reference IS NULL OR length(reference) BETWEEN 1 AND 100),
  received_at INTEGER NOT NULL,
  currency TEXT NOT NULL CHECK (length(currency) = 3 AND currency = upper(currency)),
  amount INTEGER NOT NULL
    CHECK (typeof(amount) = 'integer' AND amount > 0 AND amount <= 100000000000000),
  allocated INTEGER NOT NULL DEFAULT 0 CHECK (typeof(allocated) = 'integer' AND allocated >= 0),
  refunded INTEGER NOT NULL DEFAULT 0 CHECK (typeof(refunded) = 'integer' AND refunded >= 0),
  status TEXT NOT NULL DEFAULT 'unallocated'
    CHECK (status = 'unallocated' OR status = 'partially_allocated' OR status = 'allocated'
           OR status = 'refunded' OR status = 'void'),
  note TEXT CHECK (note IS NULL OR length(note) <= 2000),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  -- never over-allocated: what is allocated and refunded fits in the receipt
  CHECK (allocated + refunded <= amount)
);
CREATE INDEX payment_by_customer ON payment(customer_id, received_at);
CREATE INDEX payment_by_received ON payment(received_at);
-- payments with money not yet allocated: the customers' credit, which the
-- aging report reads from this index alone (every column it uses)
CREATE INDEX payment_with_credit
  ON payment(customer_id, currency, amount, allocated, refunded, status)
  WHERE status IN ('unallocated', 'partially_allocated');

CREATE TABLE payment_allocation (
  id INTEGER PRIMARY KEY,
  payment_id INTEGER NOT NULL REFERENCES payment(id),
  invoice_id INTEGER NOT NULL REFERENCES invoice(id),
  amount INTEGER NOT NULL CHECK (typeof(amount) = 'integer' AND amount > 0),
  reverses_id INTEGER REFERENCES payment_allocation(id), -- unique: payment_allocation_reversal
  reason TEXT CHECK (reason IS NULL OR length(reason) <= 400),
  created_at INTEGER NOT NULL
);
CREATE INDEX payment_allocation_by_payment ON payment_allocation(payment_id);
CREATE INDEX payment_allocation_by_invoice ON payment_allocation(invoice_id);
-- an allocation is reversed at most once; only reversal rows are indexed
CREATE UNIQUE INDEX payment_allocation_reversal ON payment_allocation(reverses_id)
  WHERE reverses_id IS NOT NULL;

CREATE TABLE refund (
  id INTEGER PRIMARY KEY,
  payment_id INTEGER NOT NULL REFERENCES payment(id),
  amount INTEGER NOT NULL CHECK (typeof(amount) = 'integer' AND amount > 0),
  method TEXT NOT NULL CHECK (method = 'cash' OR method = 'check' OR method = 'card'
                              OR method = 'bank_transfer' OR method = 'other'),
  reference TEXT CHECK (reference IS NULL OR length(reference) BETWEEN 1 AND 100),
  status TEXT NOT NULL CHECK (status = 'pending' OR status = 'succeeded' OR status = 'failed'),
  reason TEXT NOT NULL CHECK (length(reason) BETWEEN 1 AND 400),
  refunded_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX refund_by_payment ON refund(payment_id);

-- ------------------------------------------------------------ invoices

CREATE TRIGGER invoice_born_draft BEFORE INSERT ON invoice
WHEN NEW.status <> 'draft' OR NEW.total <> 0 OR NEW.credited <> 0 OR NEW.paid <> 0
  OR NEW.balance <> 0 OR NEW.number IS NOT NULL
BEGIN
  SELECT RAISE(ABORT, 'an invoice starts as an empty draft and is issued by its lines');
END;

CREATE TRIGGER invoice_credit_note_target BEFORE INSERT ON invoice
WHEN NEW.kind = 'credit_note' AND NOT EXISTS (
  SELECT 1 FROM invoice t WHERE t.id = NEW.credits_id AND t.kind = 'invoice'
    AND (t.status = 'issued' OR t.status = 'partially_paid' OR t.status = 'paid'
         OR t.status = 'overpaid')
    AND t.customer_id = NEW.customer_id AND t.currency = NEW.currency)
BEGIN
  SELECT RAISE(ABORT, 'a credit note corrects an issued invoice of the same customer and currency');
END;

-- Posted money is never edited: what an issued invoice says stays as issued,
-- and the maintained figures must say what the posted rows say. One trigger,
-- so that the checks run in this order.
CREATE TRIGGER invoice_guard BEFORE UPDATE ON invoice
BEGIN
  SELECT RAISE(ABORT, 'posted money is never edited: issue a credit note or void the invoice')
  WHERE NEW.id IS NOT OLD.id OR NEW.kind IS NOT OLD.kind OR NEW.customer_id IS NOT OLD.customer_id
    OR NEW.currency IS NOT OLD.currency OR NEW.credits_id IS NOT OLD.credits_id
    OR NEW.allow_overpay IS NOT OLD.allow_overpay OR NEW.note IS NOT OLD.note
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

CREATE TRIGGER invoice_status_legal BEFORE UPDATE OF status ON invoice
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'invoice' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal invoice status change');
END;

CREATE TRIGGER invoice_no_delete BEFORE DELETE ON invoice
BEGIN
  SELECT RAISE(ABORT, 'posted money is never deleted: void the invoice instead');
END;

-- Issuing a credit note moves its amount into the corrected invoice.
CREATE TRIGGER invoice_credit_note_apply AFTER UPDATE OF status ON invoice
WHEN NEW.kind = 'credit_note' AND OLD.status = 'draft' AND NEW.status = 'issued'
BEGIN
  UPDATE invoice SET
    credited = credited - NEW.total,
    balance = balance + NEW.total,
    status = CASE WHEN balance + NEW.total < 0 THEN 'overpaid'
                  WHEN balance + NEW.total = 0 THEN 'paid'
                  WHEN paid > 0 THEN 'partially_paid' ELSE 'issued' END,
    updated_at = fd_now()
  WHERE id = NEW.credits_id;
END;

CREATE TRIGGER invoice_status_flow_ins AFTER INSERT ON invoice
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('invoice', NEW.id, NULL, NEW.status, fd_reason(), fd_operator(), fd_now());
END;
CREATE TRIGGER invoice_status_flow_upd AFTER UPDATE OF status ON invoice
WHEN OLD.status <> NEW.status
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('invoice', NEW.id, OLD.status, NEW.status, fd_reason(), fd_operator(), fd_now());
END;

-- Lines are written only into a draft (the transaction that issues it).
CREATE TRIGGER invoice_line_into_draft BEFORE INSERT ON invoice_line
WHEN (SELECT status FROM invoice WHERE id = NEW.invoice_id) IS NOT 'draft'
BEGIN
  SELECT RAISE(ABORT, 'lines are added only while the invoice is being issued');
END;

-- A line item is billed to its own customer, in its job's currency, and never
-- beyond its quantity over all invoices that are not void.
CREATE TRIGGER invoice_line_item_fits BEFORE INSERT ON invoice_line
WHEN NEW.line_item_id IS NOT NULL
BEGIN
  SELECT RAISE(ABORT, 'a line item is billed only to its customer in its job''s currency')
  WHERE NOT EXISTS (
    SELECT 1 FROM line_item li JOIN service_order so ON so.id = li.service_order_id
    JOIN invoice i ON i.id = NEW.invoice_id
    WHERE li.id = NEW.line_item_id AND so.customer_id = i.customer_id
      AND so.currency = i.currency AND i.kind = 'invoice' AND li.kind = NEW.kind);
  SELECT RAISE(ABORT, 'a line item is never invoiced beyond its quantity')
  WHERE NEW.qty_milli + (
    SELECT coalesce(sum(il.qty_milli), 0) FROM invoice_line il
    JOIN invoice i ON i.id = il.invoice_id
    WHERE il.line_item_id = NEW.line_item_id AND i.status <> 'void')
    > (SELECT qty_milli FROM line_item WHERE id = NEW.line_item_id);
END;

CREATE TRIGGER invoice_line_no_update BEFORE UPDATE ON invoice_line
BEGIN
  SELECT RAISE(ABORT, 'posted money is never edited: issue a credit note instead');
END;
CREATE TRIGGER invoice_line_no_delete BEFORE DELETE ON invoice_line
BEGIN
  SELECT RAISE(ABORT, 'posted money is never deleted: issue a credit note instead');
END;

-- The line items themselves (src/work.c) may change while not invoiced; once
-- invoiced, their quantity cannot drop below what is billed, they stay on
-- their job, and they cannot be deleted.
CREATE TRIGGER line_item_invoiced_qty BEFORE UPDATE ON line_item
WHEN EXISTS (SELECT 1 FROM invoice_line WHERE line_item_id = OLD.id)
  AND (NEW.service_order_id IS NOT OLD.service_order_id OR NEW.kind IS NOT OLD.kind
       OR NEW.qty_milli < (SELECT coalesce(sum(il.qty_milli), 0) FROM invoice_line il
                           JOIN invoice i ON i.id = il.invoice_id
                           WHERE il.line_item_id = OLD.id AND i.status <> 'void'))
BEGIN
  SELECT RAISE(ABORT, 'the line item is invoiced: its job and kind are fixed and its quantity cannot drop below what is billed');
END;
CREATE TRIGGER line_item_invoiced_no_delete BEFORE DELETE ON line_item
WHEN EXISTS (SELECT 1 FROM invoice_line WHERE line_item_id = OLD.id)
BEGIN
  SELECT RAISE(ABORT, 'the line item is on an invoice and cannot be deleted');
END;

-- ------------------------------------------------------------ payments

CREATE TRIGGER payment_born_unallocated BEFORE INSERT ON payment
WHEN NEW.allocated <> 0 OR NEW.refunded <> 0 OR NEW.status <> 'unallocated'
BEGIN
  SELECT RAISE(ABORT, 'a payment starts unallocated; allocations and refunds are their own rows');
END;

-- Posted money is never edited; the maintained figures must say what the
-- posted rows say (one trigger, so that the checks run in this order).
CREATE TRIGGER payment_guard BEFORE UPDATE ON payment
BEGIN
  SELECT RAISE(ABORT, 'posted money is never edited: void or refund the payment instead')
  WHERE NEW.id IS NOT OLD.id OR NEW.customer_id IS NOT OLD.customer_id
    OR NEW.method IS NOT OLD.method OR NEW.reference IS NOT OLD.reference
    OR NEW.received_at IS NOT OLD.received_at OR NEW.currency IS NOT OLD.currency
    OR NEW.amount IS NOT OLD.amount OR NEW.note IS NOT OLD.note
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

CREATE TRIGGER payment_status_legal BEFORE UPDATE OF status ON payment
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'payment' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal payment status change');
END;

CREATE TRIGGER payment_no_delete BEFORE DELETE ON payment
BEGIN
  SELECT RAISE(ABORT, 'posted money is never deleted: void or refund the payment instead');
END;

CREATE TRIGGER payment_status_flow_ins AFTER INSERT ON payment
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('payment', NEW.id, NULL, NEW.status, fd_reason(), fd_operator(), fd_now());
END;
CREATE TRIGGER payment_status_flow_upd AFTER UPDATE OF status ON payment
WHEN OLD.status <> NEW.status
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('payment', NEW.id, OLD.status, NEW.status, fd_reason(), fd_operator(), fd_now());
END;

-- ------------------------------------------------------------ allocations

CREATE TRIGGER payment_allocation_rules BEFORE INSERT ON payment_allocation
BEGIN
  SELECT RAISE(ABORT, 'a reversal repeats the payment, invoice and amount of a live allocation')
  WHERE NEW.reverses_id IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM payment_allocation o WHERE o.id = NEW.reverses_id AND o.reverses_id IS NULL
      AND o.payment_id = NEW.payment_id AND o.invoice_id = NEW.invoice_id
      AND o.amount = NEW.amount);
  SELECT RAISE(ABORT, 'an allocation needs a payment that is not void and an issued invoice of the same customer and currency')
  WHERE NEW.reverses_id IS NULL AND NOT EXISTS (
    SELECT 1 FROM payment p JOIN invoice i ON i.id = NEW.invoice_id
    WHERE p.id = NEW.payment_id AND p.status NOT IN ('void', 'refunded')
      AND i.kind = 'invoice' AND (i.status = 'issued' OR i.status = 'partially_paid'
                                  OR i.status = 'paid' OR i.status = 'overpaid')
      AND i.customer_id = p.customer_id AND i.currency = p.currency);
END;

-- The figures follow in the same statement; the CHECKs on payment (never
-- over-allocated) and invoice (never paid past its total unless allowed)
-- refuse the allocation if they would break.
CREATE TRIGGER payment_allocation_apply AFTER INSERT ON payment_allocation
BEGIN
  UPDATE invoice SET
    paid = paid + (CASE WHEN NEW.reverses_id IS NULL THEN NEW.amount ELSE -NEW.amount END),
    balance = balance - (CASE WHEN NEW.reverses_id IS NULL THEN NEW.amount ELSE -NEW.amount END),
    status = CASE
      WHEN balance - (CASE WHEN NEW.reverses_id IS NULL THEN NEW.amount ELSE -NEW.amount END) < 0
        THEN 'overpaid'
      WHEN balance - (CASE WHEN NEW.reverses_id IS NULL THEN NEW.amount ELSE -NEW.amount END) = 0
        THEN 'paid'
      WHEN paid + (CASE WHEN NEW.reverses_id IS NULL THEN NEW.amount ELSE -NEW.amount END) > 0
        THEN 'partially_paid'
      ELSE 'issued' END,
    updated_at = fd_now()
  WHERE id = NEW.invoice_id;
  UPDATE payment SET
    allocated = allocated + (CASE WHEN NEW.reverses_id IS NULL THEN NEW.amount ELSE -NEW.amount END),
    status = CASE
      WHEN refunded = amount THEN 'refunded'
      WHEN allocated + (CASE WHEN NEW.reverses_id IS NULL THEN NEW.amount ELSE -NEW.amount END) = 0
        THEN 'unallocated'
      WHEN allocated + (CASE WHEN NEW.reverses_id IS NULL THEN NEW.amount ELSE -NEW.amount END)
           + refunded < amount THEN 'partially_allocated'
      ELSE 'allocated' END,
    updated_at = fd_now()
  WHERE id = NEW.payment_id;
END;

CREATE TRIGGER payment_allocation_no_update BEFORE UPDATE ON payment_allocation
BEGIN
  SELECT RAISE(ABORT, 'posted money is never edited: reverse the allocation instead');
END;
CREATE TRIGGER payment_allocation_no_delete BEFORE DELETE ON payment_allocation
BEGIN
  SELECT RAISE(ABORT, 'posted money is never deleted: reverse the allocation instead');
END;

-- ------------------------------------------------------------ refunds

CREATE TRIGGER refund_rules BEFORE INSERT ON refund
BEGIN
  SELECT RAISE(ABORT, 'a refund starts pending or succeeded')
  WHERE NEW.status NOT IN ('pending', 'succeeded');
  SELECT RAISE(ABORT, 'a refund needs a payment that is not void')
  WHERE (SELECT status FROM payment WHERE id = NEW.payment_id) IS 'void'
     OR NOT EXISTS (SELECT 1 FROM payment WHERE id = NEW.payment_id);
END;

CREATE TRIGGER refund_apply AFTER INSERT ON refund
BEGIN
  UPDATE payment SET
    refunded = refunded + NEW.amount,
    status = CASE
      WHEN refunded + NEW.amount = amount THEN 'refunded'
      WHEN allocated = 0 THEN 'unallocated'
      WHEN allocated + refunded + NEW.amount < amount THEN 'partially_allocated'
      ELSE 'allocated' END,
    updated_at = fd_now()
  WHERE id = NEW.payment_id;
END;

CREATE TRIGGER refund_posted_fixed BEFORE UPDATE ON refund
WHEN NEW.id IS NOT OLD.id OR NEW.payment_id IS NOT OLD.payment_id
  OR NEW.amount IS NOT OLD.amount OR NEW.method IS NOT OLD.method
  OR NEW.reference IS NOT OLD.reference OR NEW.reason IS NOT OLD.reason
  OR NEW.refunded_at IS NOT OLD.refunded_at OR NEW.created_at IS NOT OLD.created_at
BEGIN
  SELECT RAISE(ABORT, 'posted money is never edited: only a pending refund''s status changes');
END;

CREATE TRIGGER refund_status_legal BEFORE UPDATE OF status ON refund
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'refund' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal refund status change');
END;

-- A refund that failed gives its amount back to the payment.
CREATE TRIGGER refund_failed_apply AFTER UPDATE OF status ON refund
WHEN NEW.status = 'failed' AND OLD.status <> 'failed'
BEGIN
  UPDATE payment SET
    refunded = refunded - NEW.amount,
    status = CASE
      WHEN refunded - NEW.amount = amount THEN 'refunded'
      WHEN allocated = 0 THEN 'unallocated'
      WHEN allocated + refunded - NEW.amount < amount THEN 'partially_allocated'
      ELSE 'allocated' END,
    updated_at = fd_now()
  WHERE id = NEW.payment_id;
END;

CREATE TRIGGER refund_no_delete BEFORE DELETE ON refund
BEGIN
  SELECT RAISE(ABORT, 'posted money is never deleted');
END;

CREATE TRIGGER refund_status_flow_ins AFTER INSERT ON refund
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('refund', NEW.id, NULL, NEW.status, fd_reason(), fd_operator(), fd_now());
END;
CREATE TRIGGER refund_status_flow_upd AFTER UPDATE OF status ON refund
WHEN OLD.status <> NEW.status
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('refund', NEW.id, OLD.status, NEW.status, fd_reason(), fd_operator(), fd_now());
END;

INSERT INTO status_transition (entity, from_status, to_status) VALUES
  ('invoice', 'draft', 'issued'), ('invoice', 'draft', 'paid'), ('invoice', 'draft', 'void'),
  ('invoice', 'issued', 'partially_paid'), ('invoice', 'issued', 'paid'),
  ('invoice', 'issued', 'overpaid'), ('invoice', 'issued', 'void'),
  ('invoice', 'partially_paid', 'issued'), ('invoice', 'partially_paid', 'paid'),
  ('invoice', 'partially_paid', 'overpaid'),
  ('invoice', 'paid', 'issued'), ('invoice', 'paid', 'partially_paid'),
  ('invoice', 'paid', 'overpaid'), ('invoice', 'paid', 'void'),
  ('invoice', 'overpaid', 'issued'), ('invoice', 'overpaid', 'partially_paid'),
  ('invoice', 'overpaid', 'paid'),
  ('payment', 'unallocated', 'partially_allocated'), ('payment', 'unallocated', 'allocated'),
  ('payment', 'unallocated', 'refunded'), ('payment', 'unallocated', 'void'),
  ('payment', 'partially_allocated', 'unallocated'),
  ('payment', 'partially_allocated', 'allocated'),
  ('payment', 'partially_allocated', 'refunded'),
  ('payment', 'allocated', 'unallocated'), ('payment', 'allocated', 'partially_allocated'),
  ('payment', 'allocated', 'refunded'),
  ('payment', 'refunded', 'unallocated'), ('payment', 'refunded', 'partially_allocated'),
  ('payment', 'refunded', 'allocated'),
  ('refund', 'pending', 'succeeded'), ('refund', 'pending', 'failed');

-- ------------------------------------------------------------ idempotency

-- One row per idempotency key. For a desk command the row is written as
-- 'success' in the same transaction as the money rows it answers for; a
-- two-step caller (a payment channel) first holds it as 'processing' until
-- hold_until (real time), then finishes it in the money transaction or marks
-- it 'failed' (which may be retried).
CREATE TABLE idempotency_record (
  key TEXT PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 200),
  scene TEXT NOT NULL CHECK (length(scene) BETWEEN 1 AND 40),
  request_hash TEXT NOT NULL CHECK (length(request_hash) = 64),
  status TEXT NOT NULL CHECK (status = 'processing' OR status = 'success' OR status = 'failed'),
  response TEXT,
  holder TEXT,
  hold_until INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  CHECK (status <> 'success' OR response IS NOT NULL),
  CHECK (status <> 'processing' OR (holder IS NOT NULL AND hold_until IS NOT NULL))
);
CREATE TRIGGER idempotency_success_fixed BEFORE UPDATE ON idempotency_record
WHEN OLD.status = 'success'
BEGIN
  SELECT RAISE(ABORT, 'a successful idempotency record is never changed');
END;

-- ------------------------------------------------------------ history

CREATE TABLE invoice_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  kind TEXT,
  number TEXT,
  series TEXT,
  year INTEGER,
  seq INTEGER,
  customer_id INTEGER,
  currency TEXT,
  credits_id INTEGER,
  issued_at INTEGER,
  due_at INTEGER,
  total INTEGER,
  credited INTEGER,
  paid INTEGER,
  balance INTEGER,
  status TEXT,
  allow_overpay INTEGER,
  note TEXT,
  created_at INTEGER,
  updated_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type = 1 OR operate_type = 2 OR operate_type = 3),
  operate_at INTEGER NOT NULL
);
CREATE INDEX invoice_his_by_id ON invoice_his(id);
CREATE TRIGGER invoice_his_ins AFTER INSERT ON invoice
BEGIN
  INSERT INTO invoice_his (id, kind, number, series, year, seq, customer_id, currency, credits_id, issued_at, due_at, total, credited, paid, balance, status, allow_overpay, note, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.kind, NEW.number, NEW.series, NEW.year, NEW.seq, NEW.customer_id, NEW.currency, NEW.credits_id, NEW.issued_at, NEW.due_at, NEW.total, NEW.credited, NEW.paid, NEW.balance, NEW.status, NEW.allow_overpay, NEW.note, NEW.created_at, NEW.updated_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER invoice_his_upd AFTER UPDATE ON invoice
BEGIN
  INSERT INTO invoice_his (id, kind, number, series, year, seq, customer_id, currency, credits_id, issued_at, due_at, total, credited, paid, balance, status, allow_overpay, note, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.kind, NEW.number, NEW.series, NEW.year, NEW.seq, NEW.customer_id, NEW.currency, NEW.credits_id, NEW.issued_at, NEW.due_at, NEW.total, NEW.credited, NEW.paid, NEW.balance, NEW.status, NEW.allow_overpay, NEW.note, NEW.created_at, NEW.updated_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER invoice_his_no_update BEFORE UPDATE ON invoice_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER invoice_his_no_delete BEFORE DELETE ON invoice_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE invoice_line_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  invoice_id INTEGER,
  line_item_id INTEGER,
  kind TEXT,
  description TEXT,
  qty_milli INTEGER,
  unit_price INTEGER,
  amount INTEGER,
  created_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type = 1 OR operate_type = 2 OR operate_type = 3),
  operate_at INTEGER NOT NULL
);
CREATE INDEX invoice_line_his_by_id ON invoice_line_his(id);
CREATE TRIGGER invoice_line_his_ins AFTER INSERT ON invoice_line
BEGIN
  INSERT INTO invoice_line_his (id, invoice_id, line_item_id, kind, description, qty_milli, unit_price, amount, created_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.invoice_id, NEW.line_item_id, NEW.kind, NEW.description, NEW.qty_milli, NEW.unit_price, NEW.amount, NEW.created_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER invoice_line_his_no_update BEFORE UPDATE ON invoice_line_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER invoice_line_his_no_delete BEFORE DELETE ON invoice_line_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE payment_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  customer_id INTEGER,
  method TEXT,
  reference TEXT,
  received_at INTEGER,
  currency TEXT,
  amount INTEGER,
  allocated INTEGER,
  refunded INTEGER,
  status TEXT,
  note TEXT,
  created_at INTEGER,
  updated_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type = 1 OR operate_type = 2 OR operate_type = 3),
  operate_at INTEGER NOT NULL
);
CREATE INDEX payment_his_by_id ON payment_his(id);
CREATE TRIGGER payment_his_ins AFTER INSERT ON payment
BEGIN
  INSERT INTO payment_his (id, customer_id, method, reference, received_at, currency, amount, allocated, refunded, status, note, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.customer_id, NEW.method, NEW.reference, NEW.received_at, NEW.currency, NEW.amount, NEW.allocated, NEW.refunded, NEW.status, NEW.note, NEW.created_at, NEW.updated_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER payment_his_upd AFTER UPDATE ON payment
BEGIN
  INSERT INTO payment_his (id, customer_id, method, reference, received_at, currency, amount, allocated, refunded, status, note, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.customer_id, NEW.method, NEW.reference, NEW.received_at, NEW.currency, NEW.amount, NEW.allocated, NEW.refunded, NEW.status, NEW.note, NEW.created_at, NEW.updated_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER payment_his_no_update BEFORE UPDATE ON payment_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER payment_his_no_delete BEFORE DELETE ON payment_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE payment_allocation_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  payment_id INTEGER,
  invoice_id INTEGER,
  amount INTEGER,
  reverses_id INTEGER,
  reason TEXT,
  created_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type = 1 OR operate_type = 2 OR operate_type = 3),
  operate_at INTEGER NOT NULL
);
CREATE INDEX payment_allocation_his_by_id ON payment_allocation_his(id);
CREATE TRIGGER payment_allocation_his_ins AFTER INSERT ON payment_allocation
BEGIN
  INSERT INTO payment_allocation_his (id, payment_id, invoice_id, amount, reverses_id, reason, created_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.payment_id, NEW.invoice_id, NEW.amount, NEW.reverses_id, NEW.reason, NEW.created_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER payment_allocation_his_no_update BEFORE UPDATE ON payment_allocation_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER payment_allocation_his_no_delete BEFORE DELETE ON payment_allocation_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE refund_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  payment_id INTEGER,
  amount INTEGER,
  method TEXT,
  reference TEXT,
  status TEXT,
  reason TEXT,
  refunded_at INTEGER,
  created_at INTEGER,
  updated_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type = 1 OR operate_type = 2 OR operate_type = 3),
  operate_at INTEGER NOT NULL
);
CREATE INDEX refund_his_by_id ON refund_his(id);
CREATE TRIGGER refund_his_ins AFTER INSERT ON refund
BEGIN
  INSERT INTO refund_his (id, payment_id, amount, method, reference, status, reason, refunded_at, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.payment_id, NEW.amount, NEW.method, NEW.reference, NEW.status, NEW.reason, NEW.refunded_at, NEW.created_at, NEW.updated_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER refund_his_upd AFTER UPDATE ON refund
BEGIN
  INSERT INTO refund_his (id, payment_id, amount, method, reference, status, reason, refunded_at, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.payment_id, NEW.amount, NEW.method, NEW.reference, NEW.status, NEW.reason, NEW.refunded_at, NEW.created_at, NEW.updated_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER refund_his_no_update BEFORE UPDATE ON refund_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER refund_his_no_delete BEFORE DELETE ON refund_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;
