-- 0021-schema-repair.sql
-- frontdesk-migration: destructive=0
--
-- Brings the earlier forms of migration 0020 to its form of today. 0020
-- (retention) was edited on main after it landed instead of being followed
-- by a new migration (data/schema/EARLIER-FORMS lists each form by its
-- checksum, the commit that made it and its fixture); a database made by
-- such a build records the earlier checksum, which migrate.c accepts as a
-- known earlier form, and this migration repairs what that form lacks:
--  - at 1131b25, retention_process had the stricter CHECK
--    ((customer_id IS NULL) = (state = 'purged'));
--  - at 1131b25 and 66a0c94, the three per-customer indexes were missing.
-- Every statement is written so that it does the same on every form: on
-- today's form it changes nothing but the table's storage, so a new database
-- and a repaired one end with the same schema, byte for byte.
--
-- retention_process is rebuilt (SQLite cannot change a CHECK in place):
-- its rows are copied aside, the table dropped (with its indexes and its own
-- triggers), created again as 0020 creates it today, the rows put back with
-- the same ids, then its indexes and triggers made again, text for text as in
-- 0020. The rows of retention_mark, retention_activity, retention_file and
-- retention_certificate keep referring to the same deletion ids: foreign keys
-- are deferred to the commit for the rebuild (the drop counts the children it
-- orphans, putting the rows back uncounts them). Triggers of other tables
-- that read retention_process name it by name and are untouched. Its history
-- is status_flow, which is not touched. Nothing is lost: not destructive.

PRAGMA defer_foreign_keys = ON;

-- 0020 at 1131b25 and 66a0c94 lacked these (IF NOT EXISTS is not kept in
-- sqlite_schema, so the text stored is 0020's)
CREATE INDEX IF NOT EXISTS pay_order_by_customer ON pay_order(customer_id, created_at)
  WHERE customer_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS estimate_by_customer ON estimate(customer_id);
CREATE INDEX IF NOT EXISTS inbound_callback_open_by_object ON inbound_callback(object_id)
  WHERE status IN ('received', 'parked', 'failed', 'dead');

-- retention_process as 0020 makes it today
CREATE TABLE retention_process_0021 AS SELECT * FROM retention_process;
DROP TABLE retention_process;
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
INSERT INTO retention_process SELECT * FROM retention_process_0021 ORDER BY id;
DROP TABLE retention_process_0021;
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
