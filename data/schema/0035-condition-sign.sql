-- 0035-condition-sign.sql
-- frontdesk-migration: destructive=0
-- frontdesk-migration: schema-edit=1
--
-- The customer acknowledges a condition report taken before the work
-- (0032) through the e-sign flow that estimates use (0017): the report's
-- final document (0034: printed, hashed, set once) is sent for signature,
-- and the flow's states, callbacks, final signed document and evidence are
-- those of an estimate's flow. A flow now belongs to an estimate or to a
-- condition report, never both, never neither:
--
-- esign_flow.estimate_id loses its NOT NULL (it stays UNIQUE: NULLs do not
--   collide) and esign_flow gains report_id (a condition report; a report
--   may be sent again after a flow declined, expired or was cancelled, so
--   it is indexed, not unique: esign.c allows one open or signed flow).
--   SQLite cannot drop a NOT NULL in place; rebuilding the table would
--   rewrite its nine triggers and two indexes. Its CREATE TABLE text is
--   edited in sqlite_schema instead (as 0028 did for three CHECKs): removing
--   a NOT NULL that every stored row satisfies changes nothing on disk.
--   migrate.c runs this file with writable_schema on and bumps the schema
--   version; a text that does not parse rolls the migration back, and the
--   temporary table's CHECK stops it unless the edit took.
-- esign_flow_one_subject: an insert names exactly one of the two; both
--   stay as inserted (esign_flow_fixed keeps estimate_id already;
--   esign_flow_report_fixed keeps report_id).
-- esign_flow_his gains report_id; its two writers and its guard are made
--   again with the new column (the guard, as 0020 made it, lets a purge
--   change only the personal columns).
--
-- Not destructive: no row changes; every flow so far is an estimate's.

ALTER TABLE esign_flow ADD COLUMN report_id INTEGER REFERENCES condition_report(id);
CREATE INDEX esign_flow_by_report ON esign_flow(report_id) WHERE report_id IS NOT NULL;

CREATE TRIGGER esign_flow_one_subject BEFORE INSERT ON esign_flow
WHEN (NEW.estimate_id IS NULL) = (NEW.report_id IS NULL)
BEGIN
  SELECT RAISE(ABORT, 'a sign flow is an estimate''s or a condition report''s');
END;

CREATE TRIGGER esign_flow_report_fixed BEFORE UPDATE OF report_id ON esign_flow
WHEN OLD.report_id IS NOT NEW.report_id
BEGIN
  SELECT RAISE(ABORT, 'a sign flow keeps its condition report');
END;

ALTER TABLE esign_flow_his ADD COLUMN report_id INTEGER;

DROP TRIGGER esign_flow_his_ins;
CREATE TRIGGER esign_flow_his_ins AFTER INSERT ON esign_flow
BEGIN
  INSERT INTO esign_flow_his (id, estimate_id, report_id, provider_code, envelope_id, status,
    status_at, ignored_reason, document_path, document_sha256, document_size, evidence,
    document_at, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.estimate_id, NEW.report_id, NEW.provider_code, NEW.envelope_id,
    NEW.status, NEW.status_at, NEW.ignored_reason, NEW.document_path, NEW.document_sha256,
    NEW.document_size, NEW.evidence, NEW.document_at, NEW.created_at, NEW.updated_at,
    fd_operator(), 1, fd_now());
END;

DROP TRIGGER esign_flow_his_upd;
CREATE TRIGGER esign_flow_his_upd AFTER UPDATE ON esign_flow
BEGIN
  INSERT INTO esign_flow_his (id, estimate_id, report_id, provider_code, envelope_id, status,
    status_at, ignored_reason, document_path, document_sha256, document_size, evidence,
    document_at, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.estimate_id, NEW.report_id, NEW.provider_code, NEW.envelope_id,
    NEW.status, NEW.status_at, NEW.ignored_reason, NEW.document_path, NEW.document_sha256,
    NEW.document_size, NEW.evidence, NEW.document_at, NEW.created_at, NEW.updated_at,
    fd_operator(), 3, fd_now());
END;

DROP TRIGGER esign_flow_his_no_update;
CREATE TRIGGER esign_flow_his_no_update BEFORE UPDATE ON esign_flow_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id
  OR NEW.id IS NOT OLD.id OR NEW.estimate_id IS NOT OLD.estimate_id
  OR NEW.report_id IS NOT OLD.report_id OR NEW.status IS NOT OLD.status
  OR NEW.document_sha256 IS NOT OLD.document_sha256
  OR NEW.operate_at IS NOT OLD.operate_at OR NEW.operate_type IS NOT OLD.operate_type
  OR NEW.operator_id IS NOT OLD.operator_id
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;

-- last: the text edit is read back only when migrate.c bumps the schema
-- version, so every statement above still sees the table as it was.
UPDATE sqlite_schema
  SET sql = replace(sql, 'estimate_id INTEGER NOT NULL UNIQUE REFERENCES estimate(id)',
    'estimate_id INTEGER UNIQUE REFERENCES estimate(id)')
  WHERE type = 'table' AND name = 'esign_flow';

CREATE TEMP TABLE esign_flow_edited (n INTEGER CHECK (n = 1));
INSERT INTO esign_flow_edited
  SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'esign_flow'
    AND instr(sql, 'estimate_id INTEGER UNIQUE REFERENCES estimate(id)') > 0
    AND instr(sql, 'NOT NULL UNIQUE REFERENCES estimate') = 0;
DROP TABLE esign_flow_edited;
