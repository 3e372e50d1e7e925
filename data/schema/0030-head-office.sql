-- 0030-head-office.sql
-- frontdesk-migration: destructive=0
--
-- A shop that reports to the chain's head office (src/hq.c owns the table
-- here). The changes it sends are the rows of the history tables of its
-- authoritative records (customer, service_order, appointment,
-- appointment_work, line_item, invoice, invoice_line, payment,
-- payment_allocation, refund, pay_order, reconciliation_diff): each row is
-- a record's state after one change, its his_id the record's version.
--
-- hq_sync: per table, the last history row already queued for the head
-- office (outbox commands of integration type 'hq', business key
-- HQ-<table>-<epoch>-<last his_id>). The cursor moves in the transaction that
-- queues the batch, so a crash queues nothing twice and skips nothing; a
-- history row is read again when its batch is sent. No history of its own:
-- the outbox rows and their status moves are the trace.
--
-- epoch: a record's version at the head office is epoch * 2^40 + his_id.
-- A shop restored from a backup numbers its new history rows again from
-- where the backup stood, as the lost ones were: when the head office
-- holds a version this shop no longer has, the epoch goes up by one and
-- the table is sent again whole, so that the shop's records win.
--
-- hq_purge: the head office's confirmation that it has forgotten a purged
-- customer: a deletion certificate (0020) names the head office as a
-- participant once this row is there, and not before. Written once, when
-- the head office holds the purged versions and no batch is still to go.
--
-- Not destructive: new tables.

CREATE TABLE hq_sync (
  tbl TEXT PRIMARY KEY CHECK (tbl IN ('customer', 'service_order', 'appointment',
    'appointment_work', 'line_item', 'invoice', 'invoice_line', 'payment',
    'payment_allocation', 'refund', 'pay_order', 'reconciliation_diff')),
  queued_to INTEGER NOT NULL CHECK (typeof(queued_to) = 'integer' AND queued_to >= 0),
  epoch INTEGER NOT NULL DEFAULT 0 CHECK (typeof(epoch) = 'integer' AND epoch BETWEEN 0 AND 8000000),
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE hq_purge (
  deletion_id TEXT PRIMARY KEY REFERENCES retention_certificate(deletion_id),
  shop TEXT NOT NULL CHECK (length(shop) BETWEEN 1 AND 20),
  confirmed_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER hq_purge_no_update BEFORE UPDATE ON hq_purge
BEGIN
  SELECT RAISE(ABORT, 'a confirmation of the head office is never changed');
END;
CREATE TRIGGER hq_purge_no_delete BEFORE DELETE ON hq_purge
BEGIN
  SELECT RAISE(ABORT, 'a confirmation of the head office is never deleted');
END;
