-- 0016-capacity.sql
-- frontdesk-migration: destructive=0
--
-- The shop's capacity (src/capacity.c owns every table here): its
-- resources (a technician, a van, a bay), when each one works (spans of
-- minutes of the shop's local day per weekday, at most a few a day), the
-- days that differ (closed, or other hours, with a reason), and the
-- reservations that say which resources a visit holds for its time.
--
-- A reservation copies its visit's UTC interval [start_at, end_at)
-- (half-open: a visit ending at 10:00 and one starting at 10:00 do not
-- overlap). capacity.c checks every rule first inside BEGIN IMMEDIATE so
-- that it can say which visit holds the slot; the triggers below are the
-- last line of defence for whoever writes: no two reservations of one
-- resource overlap while both visits are live (not cancelled, not no-show),
-- and a reservation is made with its visit's interval.

CREATE TABLE resource (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL COLLATE NOCASE UNIQUE CHECK (length(name) BETWEEN 1 AND 100),
  kind TEXT NOT NULL CHECK (kind IN ('technician', 'van', 'bay')),
  active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
  note TEXT CHECK (note IS NULL OR length(note) <= 400),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

-- weekday 0 is Sunday (strftime's %w); minutes of the local day, end
-- exclusive (1440: until midnight)
CREATE TABLE resource_hours (
  id INTEGER PRIMARY KEY,
  resource_id INTEGER NOT NULL REFERENCES resource(id),
  weekday INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 6),
  start_min INTEGER NOT NULL CHECK (start_min BETWEEN 0 AND 1439),
  end_min INTEGER NOT NULL CHECK (end_min BETWEEN 1 AND 1440),
  created_at INTEGER NOT NULL,
  CHECK (end_min > start_min),
  UNIQUE (resource_id, weekday, start_min)
);

CREATE TRIGGER resource_hours_no_overlap BEFORE INSERT ON resource_hours
WHEN EXISTS (SELECT 1 FROM resource_hours h WHERE h.resource_id = NEW.resource_id
  AND h.weekday = NEW.weekday AND h.start_min < NEW.end_min AND h.end_min > NEW.start_min)
BEGIN
  SELECT RAISE(ABORT, 'two working spans of one resource on one weekday overlap');
END;
CREATE TRIGGER resource_hours_no_update BEFORE UPDATE ON resource_hours
BEGIN
  SELECT RAISE(ABORT, 'working hours are replaced, never changed in place');
END;

-- One row per resource and local date (YYYY-MM-DD): closed all day
-- (start_min and end_min NULL), or working start_min..end_min that day
-- instead of the weekday's hours.
CREATE TABLE resource_exception (
  id INTEGER PRIMARY KEY,
  resource_id INTEGER NOT NULL REFERENCES resource(id),
  day TEXT NOT NULL
    CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]' AND date(day) = day),
  start_min INTEGER,
  end_min INTEGER,
  reason TEXT CHECK (reason IS NULL OR length(reason) <= 400),
  created_at INTEGER NOT NULL,
  CHECK ((start_min IS NULL AND end_min IS NULL)
    OR (start_min BETWEEN 0 AND 1439 AND end_min BETWEEN 1 AND 1440 AND end_min > start_min)),
  UNIQUE (resource_id, day)
);

CREATE TABLE appointment_resource (
  id INTEGER PRIMARY KEY,
  appointment_id INTEGER NOT NULL REFERENCES appointment(id),
  resource_id INTEGER NOT NULL REFERENCES resource(id),
  start_at INTEGER NOT NULL,
  end_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  CHECK (end_at > start_at),
  -- a visit lasts at most 7 days (0002): the overlap search bounds its
  -- index range scan on start_at by it
  CHECK (end_at - start_at <= 604800),
  UNIQUE (appointment_id, resource_id)
);
-- the overlap check and availability: one resource's reservations by time
CREATE INDEX appointment_resource_by_time ON appointment_resource(resource_id, start_at);

CREATE TRIGGER appointment_resource_interval_ins BEFORE INSERT ON appointment_resource
WHEN NOT EXISTS (SELECT 1 FROM appointment a WHERE a.id = NEW.appointment_id
  AND a.start_at = NEW.start_at AND a.end_at = NEW.end_at)
BEGIN
  SELECT RAISE(ABORT, 'a reservation holds its visit''s interval');
END;
CREATE TRIGGER appointment_resource_no_overlap_ins BEFORE INSERT ON appointment_resource
WHEN (SELECT status FROM appointment WHERE id = NEW.appointment_id)
     NOT IN ('cancelled', 'no_show')
  AND EXISTS (SELECT 1 FROM appointment_resource r JOIN appointment a ON a.id = r.appointment_id
    WHERE r.resource_id = NEW.resource_id AND r.appointment_id <> NEW.appointment_id
      AND r.start_at < NEW.end_at AND r.start_at >= NEW.start_at - 604800
      AND r.end_at > NEW.start_at AND a.status NOT IN ('cancelled', 'no_show'))
BEGIN
  SELECT RAISE(ABORT, 'the resource is reserved for another visit at that time');
END;
CREATE TRIGGER appointment_resource_no_overlap_upd
BEFORE UPDATE OF resource_id, start_at, end_at ON appointment_resource
WHEN (SELECT status FROM appointment WHERE id = NEW.appointment_id)
     NOT IN ('cancelled', 'no_show')
  AND EXISTS (SELECT 1 FROM appointment_resource r JOIN appointment a ON a.id = r.appointment_id
    WHERE r.resource_id = NEW.resource_id AND r.appointment_id <> NEW.appointment_id
      AND r.start_at < NEW.end_at AND r.start_at >= NEW.start_at - 604800
      AND r.end_at > NEW.start_at AND a.status NOT IN ('cancelled', 'no_show'))
BEGIN
  SELECT RAISE(ABORT, 'the resource is reserved for another visit at that time');
END;
CREATE TRIGGER appointment_resource_no_move BEFORE UPDATE OF appointment_id ON appointment_resource
BEGIN
  SELECT RAISE(ABORT, 'a reservation never moves to another visit');
END;

CREATE TABLE resource_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  name TEXT,
  kind TEXT,
  active INTEGER,
  note TEXT,
  created_at INTEGER,
  updated_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX resource_his_by_id ON resource_his(id);
CREATE TRIGGER resource_his_ins AFTER INSERT ON resource
BEGIN
  INSERT INTO resource_his (id, name, kind, active, note, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.name, NEW.kind, NEW.active, NEW.note, NEW.created_at, NEW.updated_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER resource_his_upd AFTER UPDATE ON resource
BEGIN
  INSERT INTO resource_his (id, name, kind, active, note, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.name, NEW.kind, NEW.active, NEW.note, NEW.created_at, NEW.updated_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER resource_his_del AFTER DELETE ON resource
BEGIN
  INSERT INTO resource_his (id, name, kind, active, note, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (OLD.id, OLD.name, OLD.kind, OLD.active, OLD.note, OLD.created_at, OLD.updated_at, fd_operator(), 2, fd_now());
END;
CREATE TRIGGER resource_his_no_update BEFORE UPDATE ON resource_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER resource_his_no_delete BEFORE DELETE ON resource_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE resource_hours_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  resource_id INTEGER,
  weekday INTEGER,
  start_min INTEGER,
  end_min INTEGER,
  created_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX resource_hours_his_by_id ON resource_hours_his(id);
CREATE TRIGGER resource_hours_his_ins AFTER INSERT ON resource_hours
BEGIN
  INSERT INTO resource_hours_his (id, resource_id, weekday, start_min, end_min, created_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.resource_id, NEW.weekday, NEW.start_min, NEW.end_min, NEW.created_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER resource_hours_his_upd AFTER UPDATE ON resource_hours
BEGIN
  INSERT INTO resource_hours_his (id, resource_id, weekday, start_min, end_min, created_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.resource_id, NEW.weekday, NEW.start_min, NEW.end_min, NEW.created_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER resource_hours_his_del AFTER DELETE ON resource_hours
BEGIN
  INSERT INTO resource_hours_his (id, resource_id, weekday, start_min, end_min, created_at, operator_id, operate_type, operate_at)
  VALUES (OLD.id, OLD.resource_id, OLD.weekday, OLD.start_min, OLD.end_min, OLD.created_at, fd_operator(), 2, fd_now());
END;
CREATE TRIGGER resource_hours_his_no_update BEFORE UPDATE ON resource_hours_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER resource_hours_his_no_delete BEFORE DELETE ON resource_hours_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE resource_exception_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  resource_id INTEGER,
  day TEXT,
  start_min INTEGER,
  end_min INTEGER,
  reason TEXT,
  created_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX resource_exception_his_by_id ON resource_exception_his(id);
CREATE TRIGGER resource_exception_his_ins AFTER INSERT ON resource_exception
BEGIN
  INSERT INTO resource_exception_his (id, resource_id, day, start_min, end_min, reason, created_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.resource_id, NEW.day, NEW.start_min, NEW.end_min, NEW.reason, NEW.created_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER resource_exception_his_upd AFTER UPDATE ON resource_exception
BEGIN
  INSERT INTO resource_exception_his (id, resource_id, day, start_min, end_min, reason, created_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.resource_id, NEW.day, NEW.start_min, NEW.end_min, NEW.reason, NEW.created_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER resource_exception_his_del AFTER DELETE ON resource_exception
BEGIN
  INSERT INTO resource_exception_his (id, resource_id, day, start_min, end_min, reason, created_at, operator_id, operate_type, operate_at)
  VALUES (OLD.id, OLD.resource_id, OLD.day, OLD.start_min, OLD.end_min, OLD.reason, OLD.created_at, fd_operator(), 2, fd_now());
END;
CREATE TRIGGER resource_exception_his_no_update BEFORE UPDATE ON resource_exception_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER resource_exception_his_no_delete BEFORE DELETE ON resource_exception_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE appointment_resource_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  appointment_id INTEGER,
  resource_id INTEGER,
  start_at INTEGER,
  end_at INTEGER,
  created_at INTEGER,
  updated_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX appointment_resource_his_by_id ON appointment_resource_his(id);
CREATE TRIGGER appointment_resource_his_ins AFTER INSERT ON appointment_resource
BEGIN
  INSERT INTO appointment_resource_his (id, appointment_id, resource_id, start_at, end_at, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.appointment_id, NEW.resource_id, NEW.start_at, NEW.end_at, NEW.created_at, NEW.updated_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER appointment_resource_his_upd AFTER UPDATE ON appointment_resource
BEGIN
  INSERT INTO appointment_resource_his (id, appointment_id, resource_id, start_at, end_at, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.appointment_id, NEW.resource_id, NEW.start_at, NEW.end_at, NEW.created_at, NEW.updated_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER appointment_resource_his_del AFTER DELETE ON appointment_resource
BEGIN
  INSERT INTO appointment_resource_his (id, appointment_id, resource_id, start_at, end_at, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (OLD.id, OLD.appointment_id, OLD.resource_id, OLD.start_at, OLD.end_at, OLD.created_at, OLD.updated_at, fd_operator(), 2, fd_now());
END;
CREATE TRIGGER appointment_resource_his_no_update BEFORE UPDATE ON appointment_resource_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER appointment_resource_his_no_delete BEFORE DELETE ON appointment_resource_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

