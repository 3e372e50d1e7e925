-- 0031-head-office-commissions.sql
-- frontdesk-migration: destructive=0
--
-- The head office's report of commissions (`hq report commissions`) needs
-- two more of a shop's tables: resource (the technicians, by name) and
-- appointment_resource (who was reserved for a visit: a line's technician
-- when it names none). The shop sends them as it sends the other twelve,
-- the rows of their history tables; hq_sync, which holds a cursor per
-- table sent, lists the tables it may hold under a CHECK (0030), which
-- this migration widens to the fourteen.
--
-- hq_sync holds one row per table (at most fourteen), so it is rebuilt
-- rather than its schema text edited: created anew with the wider list,
-- its rows copied whole, the old table dropped and the new one renamed.
-- A shop that already reports to a head office sends the two new tables
-- from their first history row on its next round (no row yet: cursor 0).
--
-- Not destructive: every row of hq_sync is kept as it was.

CREATE TABLE hq_sync_new (
  tbl TEXT PRIMARY KEY CHECK (tbl IN ('customer', 'service_order', 'appointment',
    'appointment_work', 'line_item', 'invoice', 'invoice_line', 'payment',
    'payment_allocation', 'refund', 'pay_order', 'reconciliation_diff',
    'resource', 'appointment_resource')),
  queued_to INTEGER NOT NULL CHECK (typeof(queued_to) = 'integer' AND queued_to >= 0),
  epoch INTEGER NOT NULL DEFAULT 0 CHECK (typeof(epoch) = 'integer' AND epoch BETWEEN 0 AND 8000000),
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO hq_sync_new (tbl, queued_to, epoch, updated_at)
  SELECT tbl, queued_to, epoch, updated_at FROM hq_sync;
DROP TABLE hq_sync;
ALTER TABLE hq_sync_new RENAME TO hq_sync;
