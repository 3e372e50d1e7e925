-- 0032-condition.sql
-- frontdesk-migration: destructive=0
--
-- Condition reports (src/condition.c owns every table here): the state of
-- the car, the room or the machine recorded at a visit before the work and,
-- optionally, after it, so that neither the shop nor the customer can be
-- told "you did that" about what was already there.
--
-- condition_report: one per visit and stage ('before', 'after'), with a
--   note. 'open' while media and hotspots are added; 'final' once its
--   printable document is made (the PDF beside the database, condition/;
--   its path, SHA-256 and size set once): a final report never changes
--   again, and that document is what the customer is asked to sign.
-- media_item: a photo, a panorama or a 3D capture of a report. The
--   original file is ours: a copy beside the database (media/, its path
--   relative to that folder), its SHA-256 and size, set once; a caption and
--   the file's own name. Never deleted; a purge blanks its caption and name
--   and removes the copy.
-- media_host: one row per provider that hosts (or hosted) a medium (the
--   integration type 'media', 0028): the provider's id for it (set once), the
--   viewer URL, the coordinate frame the provider's viewer uses (JSON, as the
--   provider says it), and the state along status_transition:
--     uploading -> processing -> ready | failed, uploading -> ready | failed,
--     and -> deleting -> deleted from any of them (a purge, or the old host
--     after a move to another provider).
--   Moving to another provider adds a row; the medium's current host is its
--   newest ready row, else its newest row (condition.c).
-- hotspot: a mark on a medium, ours whoever hosts the medium: a number
--   unique in its report (the numbers drawn on the printed photos), its
--   kind, a short text, and its coordinates in the medium's own system:
--     image     x, y in 0..1 from the photo's top-left corner
--     equirect  yaw in (-180, 180] and pitch in [-90, 90] degrees
--     model     x, y, z in the capture's frame
--   A move to a provider whose frame differs rewrites the coordinates (an
--   update, kept in the history); the hotspot's id, number, links and
--   history stay. Optionally linked to a line item (the repair of that
--   scratch), a resource, and a hotspot of an earlier report (the same
--   scratch seen last time). A hotspot's system is its medium's kind's and
--   its report its medium's (triggers). Never deleted.
-- Every table keeps *_his history rows; a purge (retention) blanks the
-- personal text (note, caption, file name, hotspot text) in the rows and in
-- their history, and nothing else ever changes a history row.
--
-- Not destructive: new tables, their history and their status moves.

CREATE TABLE condition_report (
  id INTEGER PRIMARY KEY,
  appointment_id INTEGER NOT NULL REFERENCES appointment(id),
  stage TEXT NOT NULL CHECK (stage IN ('before', 'after')),
  note TEXT CHECK (note IS NULL OR length(note) <= 2000),
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'final')),
  document_path TEXT CHECK (document_path IS NULL OR length(document_path) BETWEEN 1 AND 400),
  document_sha256 TEXT CHECK (document_sha256 IS NULL OR length(document_sha256) = 64),
  document_size INTEGER CHECK (document_size IS NULL OR document_size > 0),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (appointment_id, stage),
  CHECK (status = 'open' OR document_sha256 IS NOT NULL)
);

CREATE TABLE media_item (
  id INTEGER PRIMARY KEY,
  report_id INTEGER NOT NULL REFERENCES condition_report(id),
  kind TEXT NOT NULL CHECK (kind IN ('photo', 'panorama', 'model')),
  caption TEXT CHECK (caption IS NULL OR length(caption) <= 400),
  file_name TEXT CHECK (file_name IS NULL OR length(file_name) <= 255),
  content_type TEXT NOT NULL CHECK (content_type IN ('image/jpeg', 'image/png',
                                                      'application/octet-stream')),
  local_path TEXT CHECK (local_path IS NULL OR length(local_path) BETWEEN 1 AND 400),
  sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
  size INTEGER NOT NULL CHECK (size > 0),
  width INTEGER CHECK (width IS NULL OR width > 0),   -- pixels, a photo's or a panorama's
  height INTEGER CHECK (height IS NULL OR height > 0),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX media_item_by_report ON media_item(report_id);

CREATE TABLE media_host (
  id INTEGER PRIMARY KEY,
  media_id INTEGER NOT NULL REFERENCES media_item(id),
  provider_code TEXT NOT NULL CHECK (length(provider_code) BETWEEN 1 AND 40),
  provider_ref TEXT CHECK (provider_ref IS NULL OR length(provider_ref) BETWEEN 1 AND 255),
  status TEXT NOT NULL CHECK (status IN ('uploading', 'processing', 'ready', 'failed',
                                         'deleting', 'deleted')),
  viewer_url TEXT CHECK (viewer_url IS NULL OR length(viewer_url) BETWEEN 1 AND 2000),
  frame TEXT CHECK (frame IS NULL OR json_valid(frame)),
  error TEXT CHECK (error IS NULL OR length(error) <= 400),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX media_host_by_media ON media_host(media_id, id);
CREATE UNIQUE INDEX media_host_ref ON media_host(provider_code, provider_ref)
  WHERE provider_ref IS NOT NULL;
-- the hosts still moving (asked about by the worker)
CREATE INDEX media_host_open ON media_host(status, updated_at)
  WHERE status IN ('uploading', 'processing', 'deleting');

CREATE TABLE hotspot (
  id INTEGER PRIMARY KEY,
  report_id INTEGER NOT NULL REFERENCES condition_report(id),
  media_id INTEGER NOT NULL REFERENCES media_item(id),
  number INTEGER NOT NULL CHECK (number BETWEEN 1 AND 9999),
  kind TEXT NOT NULL CHECK (kind IN ('damage', 'note', 'meter', 'device', 'action')),
  label TEXT NOT NULL CHECK (length(label) <= 400),
  system TEXT NOT NULL CHECK (system IN ('image', 'equirect', 'model')),
  x REAL,
  y REAL,
  z REAL,
  yaw REAL,
  pitch REAL,
  line_item_id INTEGER REFERENCES line_item(id),
  resource_id INTEGER REFERENCES resource(id),
  earlier_id INTEGER REFERENCES hotspot(id),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (report_id, number),
  CHECK (system <> 'image' OR (x BETWEEN 0 AND 1 AND y BETWEEN 0 AND 1
                               AND z IS NULL AND yaw IS NULL AND pitch IS NULL)),
  CHECK (system <> 'equirect' OR (yaw > -180 AND yaw <= 180 AND pitch BETWEEN -90 AND 90
                                  AND x IS NULL AND y IS NULL AND z IS NULL)),
  CHECK (system <> 'model' OR (x IS NOT NULL AND y IS NOT NULL AND z IS NOT NULL
                               AND abs(x) <= 1e6 AND abs(y) <= 1e6 AND abs(z) <= 1e6
                               AND yaw IS NULL AND pitch IS NULL)),
  CHECK (earlier_id IS NULL OR earlier_id <> id)
);
CREATE INDEX hotspot_by_media ON hotspot(media_id);
CREATE INDEX hotspot_by_earlier ON hotspot(earlier_id) WHERE earlier_id IS NOT NULL;

-- ---------------------------------------------------------------- rules

CREATE TRIGGER condition_report_fixed BEFORE UPDATE OF appointment_id, stage, created_at
  ON condition_report
WHEN OLD.appointment_id IS NOT NEW.appointment_id OR OLD.stage IS NOT NEW.stage
  OR OLD.created_at IS NOT NEW.created_at
BEGIN
  SELECT RAISE(ABORT, 'a condition report keeps its visit and stage');
END;
-- a final report never changes again; only a purge blanks its note
CREATE TRIGGER condition_report_final BEFORE UPDATE ON condition_report
WHEN OLD.status = 'final' AND (NOT EXISTS (SELECT 1 FROM retention_purging)
  OR NEW.status IS NOT OLD.status OR NEW.document_path IS NOT OLD.document_path
  OR NEW.document_sha256 IS NOT OLD.document_sha256
  OR NEW.document_size IS NOT OLD.document_size)
BEGIN
  SELECT RAISE(ABORT, 'a final condition report is never changed');
END;
CREATE TRIGGER condition_report_no_delete BEFORE DELETE ON condition_report
BEGIN
  SELECT RAISE(ABORT, 'condition reports are never deleted');
END;
INSERT INTO status_transition (entity, from_status, to_status) VALUES
  ('condition_report', 'open', 'final');
CREATE TRIGGER condition_report_status_legal BEFORE UPDATE OF status ON condition_report
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'condition_report' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal condition report status change');
END;
CREATE TRIGGER condition_report_status_flow_ins AFTER INSERT ON condition_report
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('condition_report', NEW.id, NULL, NEW.status, fd_reason(), fd_operator(), fd_now());
END;
CREATE TRIGGER condition_report_status_flow_upd AFTER UPDATE OF status ON condition_report
WHEN OLD.status <> NEW.status
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('condition_report', NEW.id, OLD.status, NEW.status, fd_reason(), fd_operator(),
    fd_now());
END;

-- the original is what it was: its report, kind, type, hash and size never
-- change; its copy's path is set once (a purge removes the copy and blanks
-- the path, the caption and the file name)
CREATE TRIGGER media_item_fixed BEFORE UPDATE ON media_item
WHEN OLD.report_id IS NOT NEW.report_id OR OLD.kind IS NOT NEW.kind
  OR OLD.content_type IS NOT NEW.content_type OR OLD.sha256 IS NOT NEW.sha256
  OR OLD.size IS NOT NEW.size OR OLD.created_at IS NOT NEW.created_at
  OR (OLD.local_path IS NOT NULL AND OLD.local_path IS NOT NEW.local_path
      AND NOT EXISTS (SELECT 1 FROM retention_purging))
BEGIN
  SELECT RAISE(ABORT, 'a medium''s original is never changed');
END;
CREATE TRIGGER media_item_report_open BEFORE INSERT ON media_item
WHEN (SELECT status FROM condition_report WHERE id = NEW.report_id) IS NOT 'open'
BEGIN
  SELECT RAISE(ABORT, 'media are added to an open condition report only');
END;
CREATE TRIGGER media_item_no_delete BEFORE DELETE ON media_item
BEGIN
  SELECT RAISE(ABORT, 'media are never deleted');
END;

CREATE TRIGGER media_host_fixed BEFORE UPDATE ON media_host
WHEN OLD.media_id IS NOT NEW.media_id OR OLD.provider_code IS NOT NEW.provider_code
  OR OLD.created_at IS NOT NEW.created_at
  OR (OLD.provider_ref IS NOT NULL AND OLD.provider_ref IS NOT NEW.provider_ref)
BEGIN
  SELECT RAISE(ABORT, 'a media host keeps its medium, provider and the provider''s id');
END;
CREATE TRIGGER media_host_no_delete BEFORE DELETE ON media_host
BEGIN
  SELECT RAISE(ABORT, 'media hosts are never deleted');
END;
INSERT INTO status_transition (entity, from_status, to_status) VALUES
  ('media_host', 'uploading', 'processing'), ('media_host', 'uploading', 'ready'),
  ('media_host', 'uploading', 'failed'), ('media_host', 'processing', 'ready'),
  ('media_host', 'processing', 'failed'),
  ('media_host', 'uploading', 'deleting'), ('media_host', 'processing', 'deleting'),
  ('media_host', 'ready', 'deleting'), ('media_host', 'failed', 'deleting'),
  ('media_host', 'deleting', 'deleted');
CREATE TRIGGER media_host_status_legal BEFORE UPDATE OF status ON media_host
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'media_host' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal media host status change');
END;
CREATE TRIGGER media_host_status_flow_ins AFTER INSERT ON media_host
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('media_host', NEW.id, NULL, NEW.status, fd_reason(), fd_operator(), fd_now());
END;
CREATE TRIGGER media_host_status_flow_upd AFTER UPDATE OF status ON media_host
WHEN OLD.status <> NEW.status
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('media_host', NEW.id, OLD.status, NEW.status, fd_reason(), fd_operator(), fd_now());
END;

-- a hotspot's report is its medium's, and its system its medium's kind's;
-- an earlier hotspot is one of another report
CREATE TRIGGER hotspot_consistent_ins BEFORE INSERT ON hotspot
WHEN NOT EXISTS (SELECT 1 FROM media_item m WHERE m.id = NEW.media_id
                 AND m.report_id = NEW.report_id
                 AND NEW.system = CASE m.kind WHEN 'photo' THEN 'image'
                                  WHEN 'panorama' THEN 'equirect' ELSE 'model' END)
  OR (NEW.earlier_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM hotspot e
      WHERE e.id = NEW.earlier_id AND e.report_id <> NEW.report_id))
BEGIN
  SELECT RAISE(ABORT, 'a hotspot lies on a medium of its report, in that medium''s system');
END;
CREATE TRIGGER hotspot_consistent_upd BEFORE UPDATE ON hotspot
WHEN NEW.id IS NOT OLD.id OR NEW.report_id IS NOT OLD.report_id
  OR NEW.media_id IS NOT OLD.media_id OR NEW.number IS NOT OLD.number
  OR NEW.system IS NOT OLD.system OR NEW.created_at IS NOT OLD.created_at
  OR (NEW.earlier_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM hotspot e
      WHERE e.id = NEW.earlier_id AND e.report_id <> NEW.report_id))
BEGIN
  SELECT RAISE(ABORT, 'a hotspot keeps its medium, number and system');
END;
CREATE TRIGGER hotspot_report_open_ins BEFORE INSERT ON hotspot
WHEN (SELECT status FROM condition_report WHERE id = NEW.report_id) IS NOT 'open'
BEGIN
  SELECT RAISE(ABORT, 'hotspots are added to an open condition report only');
END;
-- a final report's hotspots change only where a move to another provider
-- rewrites their coordinates (the same place, in the new frame) or a purge
-- blanks their text
CREATE TRIGGER hotspot_report_final_upd BEFORE UPDATE OF kind, label, line_item_id,
  resource_id, earlier_id ON hotspot
WHEN (SELECT status FROM condition_report WHERE id = NEW.report_id) IS NOT 'open'
  AND (NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.kind IS NOT OLD.kind
       OR NEW.line_item_id IS NOT OLD.line_item_id OR NEW.resource_id IS NOT OLD.resource_id
       OR NEW.earlier_id IS NOT OLD.earlier_id)
BEGIN
  SELECT RAISE(ABORT, 'the hotspots of a final condition report are never changed');
END;
CREATE TRIGGER hotspot_no_delete BEFORE DELETE ON hotspot
BEGIN
  SELECT RAISE(ABORT, 'hotspots are never deleted');
END;

-- ---------------------------------------------------------------- history

CREATE TABLE condition_report_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  appointment_id INTEGER,
  stage TEXT,
  note TEXT,
  status TEXT,
  document_path TEXT,
  document_sha256 TEXT,
  document_size INTEGER,
  created_at INTEGER,
  updated_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX condition_report_his_by_id ON condition_report_his(id);
CREATE TRIGGER condition_report_his_ins AFTER INSERT ON condition_report
BEGIN
  INSERT INTO condition_report_his (id, appointment_id, stage, note, status, document_path,
    document_sha256, document_size, created_at, updated_at, operator_id, operate_type,
    operate_at)
  VALUES (NEW.id, NEW.appointment_id, NEW.stage, NEW.note, NEW.status, NEW.document_path,
    NEW.document_sha256, NEW.document_size, NEW.created_at, NEW.updated_at, fd_operator(), 1,
    fd_now());
END;
CREATE TRIGGER condition_report_his_upd AFTER UPDATE ON condition_report
BEGIN
  INSERT INTO condition_report_his (id, appointment_id, stage, note, status, document_path,
    document_sha256, document_size, created_at, updated_at, operator_id, operate_type,
    operate_at)
  VALUES (NEW.id, NEW.appointment_id, NEW.stage, NEW.note, NEW.status, NEW.document_path,
    NEW.document_sha256, NEW.document_size, NEW.created_at, NEW.updated_at, fd_operator(), 3,
    fd_now());
END;
-- a purge (retention) blanks the note; nothing else ever changes
CREATE TRIGGER condition_report_his_no_update BEFORE UPDATE ON condition_report_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id
  OR NEW.id IS NOT OLD.id OR NEW.appointment_id IS NOT OLD.appointment_id
  OR NEW.stage IS NOT OLD.stage OR NEW.status IS NOT OLD.status
  OR NEW.document_path IS NOT OLD.document_path
  OR NEW.document_sha256 IS NOT OLD.document_sha256
  OR NEW.document_size IS NOT OLD.document_size OR NEW.created_at IS NOT OLD.created_at
  OR NEW.updated_at IS NOT OLD.updated_at OR NEW.operator_id IS NOT OLD.operator_id
  OR NEW.operate_type IS NOT OLD.operate_type OR NEW.operate_at IS NOT OLD.operate_at
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER condition_report_his_no_delete BEFORE DELETE ON condition_report_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE media_item_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  report_id INTEGER,
  kind TEXT,
  caption TEXT,
  file_name TEXT,
  content_type TEXT,
  local_path TEXT,
  sha256 TEXT,
  size INTEGER,
  width INTEGER,
  height INTEGER,
  created_at INTEGER,
  updated_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX media_item_his_by_id ON media_item_his(id);
CREATE TRIGGER media_item_his_ins AFTER INSERT ON media_item
BEGIN
  INSERT INTO media_item_his (id, report_id, kind, caption, file_name, content_type,
    local_path, sha256, size, width, height, created_at, updated_at, operator_id,
    operate_type, operate_at)
  VALUES (NEW.id, NEW.report_id, NEW.kind, NEW.caption, NEW.file_name, NEW.content_type,
    NEW.local_path, NEW.sha256, NEW.size, NEW.width, NEW.height, NEW.created_at,
    NEW.updated_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER media_item_his_upd AFTER UPDATE ON media_item
BEGIN
  INSERT INTO media_item_his (id, report_id, kind, caption, file_name, content_type,
    local_path, sha256, size, width, height, created_at, updated_at, operator_id,
    operate_type, operate_at)
  VALUES (NEW.id, NEW.report_id, NEW.kind, NEW.caption, NEW.file_name, NEW.content_type,
    NEW.local_path, NEW.sha256, NEW.size, NEW.width, NEW.height, NEW.created_at,
    NEW.updated_at, fd_operator(), 3, fd_now());
END;
-- a purge (retention) blanks the caption, the file name and the copy's
-- path; nothing else ever changes
CREATE TRIGGER media_item_his_no_update BEFORE UPDATE ON media_item_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id
  OR NEW.id IS NOT OLD.id OR NEW.report_id IS NOT OLD.report_id OR NEW.kind IS NOT OLD.kind
  OR NEW.content_type IS NOT OLD.content_type OR NEW.sha256 IS NOT OLD.sha256
  OR NEW.size IS NOT OLD.size OR NEW.width IS NOT OLD.width OR NEW.height IS NOT OLD.height
  OR NEW.created_at IS NOT OLD.created_at OR NEW.updated_at IS NOT OLD.updated_at
  OR NEW.operator_id IS NOT OLD.operator_id OR NEW.operate_type IS NOT OLD.operate_type
  OR NEW.operate_at IS NOT OLD.operate_at
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER media_item_his_no_delete BEFORE DELETE ON media_item_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE media_host_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  media_id INTEGER,
  provider_code TEXT,
  provider_ref TEXT,
  status TEXT,
  viewer_url TEXT,
  frame TEXT,
  error TEXT,
  created_at INTEGER,
  updated_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX media_host_his_by_id ON media_host_his(id);
CREATE TRIGGER media_host_his_ins AFTER INSERT ON media_host
BEGIN
  INSERT INTO media_host_his (id, media_id, provider_code, provider_ref, status, viewer_url,
    frame, error, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.media_id, NEW.provider_code, NEW.provider_ref, NEW.status,
    NEW.viewer_url, NEW.frame, NEW.error, NEW.created_at, NEW.updated_at, fd_operator(), 1,
    fd_now());
END;
CREATE TRIGGER media_host_his_upd AFTER UPDATE ON media_host
BEGIN
  INSERT INTO media_host_his (id, media_id, provider_code, provider_ref, status, viewer_url,
    frame, error, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.media_id, NEW.provider_code, NEW.provider_ref, NEW.status,
    NEW.viewer_url, NEW.frame, NEW.error, NEW.created_at, NEW.updated_at, fd_operator(), 3,
    fd_now());
END;
CREATE TRIGGER media_host_his_no_update BEFORE UPDATE ON media_host_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER media_host_his_no_delete BEFORE DELETE ON media_host_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE hotspot_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  report_id INTEGER,
  media_id INTEGER,
  number INTEGER,
  kind TEXT,
  label TEXT,
  system TEXT,
  x REAL,
  y REAL,
  z REAL,
  yaw REAL,
  pitch REAL,
  line_item_id INTEGER,
  resource_id INTEGER,
  earlier_id INTEGER,
  created_at INTEGER,
  updated_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX hotspot_his_by_id ON hotspot_his(id);
CREATE TRIGGER hotspot_his_ins AFTER INSERT ON hotspot
BEGIN
  INSERT INTO hotspot_his (id, report_id, media_id, number, kind, label, system, x, y, z, yaw,
    pitch, line_item_id, resource_id, earlier_id, created_at, updated_at, operator_id,
    operate_type, operate_at)
  VALUES (NEW.id, NEW.report_id, NEW.media_id, NEW.number, NEW.kind, NEW.label, NEW.system,
    NEW.x, NEW.y, NEW.z, NEW.yaw, NEW.pitch, NEW.line_item_id, NEW.resource_id,
    NEW.earlier_id, NEW.created_at, NEW.updated_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER hotspot_his_upd AFTER UPDATE ON hotspot
BEGIN
  INSERT INTO hotspot_his (id, report_id, media_id, number, kind, label, system, x, y, z, yaw,
    pitch, line_item_id, resource_id, earlier_id, created_at, updated_at, operator_id,
    operate_type, operate_at)
  VALUES (NEW.id, NEW.report_id, NEW.media_id, NEW.number, NEW.kind, NEW.label, NEW.system,
    NEW.x, NEW.y, NEW.z, NEW.yaw, NEW.pitch, NEW.line_item_id, NEW.resource_id,
    NEW.earlier_id, NEW.created_at, NEW.updated_at, fd_operator(), 3, fd_now());
END;
-- a purge (retention) blanks the text; nothing else ever changes
CREATE TRIGGER hotspot_his_no_update BEFORE UPDATE ON hotspot_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id
  OR NEW.id IS NOT OLD.id OR NEW.report_id IS NOT OLD.report_id
  OR NEW.media_id IS NOT OLD.media_id OR NEW.number IS NOT OLD.number
  OR NEW.kind IS NOT OLD.kind OR NEW.system IS NOT OLD.system OR NEW.x IS NOT OLD.x
  OR NEW.y IS NOT OLD.y OR NEW.z IS NOT OLD.z OR NEW.yaw IS NOT OLD.yaw
  OR NEW.pitch IS NOT OLD.pitch OR NEW.line_item_id IS NOT OLD.line_item_id
  OR NEW.resource_id IS NOT OLD.resource_id OR NEW.earlier_id IS NOT OLD.earlier_id
  OR NEW.created_at IS NOT OLD.created_at OR NEW.updated_at IS NOT OLD.updated_at
  OR NEW.operator_id IS NOT OLD.operator_id OR NEW.operate_type IS NOT OLD.operate_type
  OR NEW.operate_at IS NOT OLD.operate_at
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER hotspot_his_no_delete BEFORE DELETE ON hotspot_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;
