-- 0034-condition-document.sql
-- frontdesk-migration: destructive=0
--
-- A final condition report's printed document (0032: document_path,
-- document_sha256, document_size, set once when the report is made final)
-- is the customer's personal record: a retention purge removes its file
-- with the customer's media. 0032 let a purge change nothing of a final
-- report's document, so the path of a removed file would have stayed and
-- `frontdesk check` and the backup would have looked for it for ever.
--
-- condition_report_final and condition_report_his_no_update are made again
-- with one difference: while a purge runs (retention_purging), the
-- document's path may become NULL (never another path), in the report and
-- in its history. The hash and the size stay: what was signed or handed
-- over can still be named. Everything else is as 0032 made it.
--
-- Not destructive: two triggers replaced, no row changed.

DROP TRIGGER condition_report_final;
CREATE TRIGGER condition_report_final BEFORE UPDATE ON condition_report
WHEN OLD.status = 'final' AND (NOT EXISTS (SELECT 1 FROM retention_purging)
  OR NEW.status IS NOT OLD.status
  OR (NEW.document_path IS NOT OLD.document_path AND NEW.document_path IS NOT NULL)
  OR NEW.document_sha256 IS NOT OLD.document_sha256
  OR NEW.document_size IS NOT OLD.document_size)
BEGIN
  SELECT RAISE(ABORT, 'a final condition report is never changed');
END;

DROP TRIGGER condition_report_his_no_update;
CREATE TRIGGER condition_report_his_no_update BEFORE UPDATE ON condition_report_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id
  OR NEW.id IS NOT OLD.id OR NEW.appointment_id IS NOT OLD.appointment_id
  OR NEW.stage IS NOT OLD.stage OR NEW.status IS NOT OLD.status
  OR (NEW.document_path IS NOT OLD.document_path AND NEW.document_path IS NOT NULL)
  OR NEW.document_sha256 IS NOT OLD.document_sha256
  OR NEW.document_size IS NOT OLD.document_size OR NEW.created_at IS NOT OLD.created_at
  OR NEW.updated_at IS NOT OLD.updated_at OR NEW.operator_id IS NOT OLD.operator_id
  OR NEW.operate_type IS NOT OLD.operate_type OR NEW.operate_at IS NOT OLD.operate_at
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
