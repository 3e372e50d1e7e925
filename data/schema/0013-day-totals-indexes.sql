-- 0013-day-totals-indexes.sql
-- frontdesk-migration: destructive=0
--
-- The day view's totals and the takings read a day's invoices by when they
-- were issued and a day's refunds by when they were made (report_invoiced,
-- report_takings in src/report.c): without these indexes each of those reads
-- scanned every invoice or refund ever made. New indexes only: no row
-- changes.
CREATE INDEX invoice_by_issued ON invoice(issued_at) WHERE kind = 'invoice';
CREATE INDEX refund_by_refunded ON refund(refunded_at);
