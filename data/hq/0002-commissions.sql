-- 0002-commissions.sql - two more tables of a shop at the head office.
--
-- The report of commissions (`hq report commissions`) needs each shop's
-- technicians (resource) and who was reserved for a visit
-- (appointment_resource), which the shops send from their migration 0031
-- on. hq_record's CHECK of the tables a record may belong to (0001) is
-- widened to the fourteen; no row changes.
--
-- Frozen once landed: a change is a new migration (data/hq/MANIFEST).

ALTER TABLE hq_record DROP CONSTRAINT hq_record_tbl_check;
ALTER TABLE hq_record ADD CONSTRAINT hq_record_tbl_check CHECK (tbl IN ('customer',
  'service_order', 'appointment', 'appointment_work', 'line_item', 'invoice', 'invoice_line',
  'payment', 'payment_allocation', 'refund', 'pay_order', 'reconciliation_diff', 'resource',
  'appointment_resource'));
