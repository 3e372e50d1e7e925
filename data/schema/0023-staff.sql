-- 0023-staff.sql
-- frontdesk-migration: destructive=0
--
-- Staff and what each may do (src/staff.c). Who runs frontdesk is the Unix
-- login of the process's real user id (fd_operator()); the staff register
-- says who may open the books, with which role, whether still active, and
-- which technician of the board they are (their own visits).
-- Permissions are named (permission); each role holds some by default
-- (role_permission), and a person may be granted one more (staff_grant).
-- A permission with a limit (a refund amount in minor units, a discount
-- in percent, how many days back a payment may be dated) holds it up to
-- that limit; NULL is no limit. Limits are data: a shop changes them with
-- `frontdesk staff limit` and `frontdesk staff grant`.
--
-- A manager approves what a person may not do alone (approval): from the
-- manager's own session, or on the spot with the manager's PIN (staff_pin:
-- a crypt(3) yescrypt hash, never the PIN; every try is in staff_pin_try).
--
-- The one who brings a database to this version becomes its owner: the
-- first `init` of a new database, or whoever migrates an existing one (on a
-- shop server, the service account in the install steps). Nothing existing
-- changes: not destructive.

CREATE TABLE permission (
  name TEXT PRIMARY KEY,
  limit_kind TEXT CHECK (limit_kind IS NULL OR limit_kind IN ('money', 'percent', 'days'))
) WITHOUT ROWID;
INSERT INTO permission (name, limit_kind) VALUES
  ('board.view', NULL), ('visit.work', NULL), ('records.view', NULL),
  ('customer.edit', NULL), ('booking', NULL), ('job.edit', NULL),
  ('invoice.issue', NULL), ('payment.take', NULL), ('payment.backdate', 'days'),
  ('discount', 'percent'), ('refund', 'money'), ('void', NULL), ('credit.note', NULL),
  ('catalogue', NULL), ('recon.decide', NULL), ('retention', NULL), ('day.close', NULL),
  ('reports', NULL), ('operations', NULL), ('staff', NULL), ('providers', NULL),
  ('backup', NULL), ('migrate', NULL);

CREATE TABLE role_permission (
  role TEXT NOT NULL CHECK (role IN ('technician', 'desk', 'manager', 'owner')),
  permission TEXT NOT NULL REFERENCES permission(name),
  limit_value INTEGER CHECK (limit_value IS NULL OR (typeof(limit_value) = 'integer'
                             AND limit_value BETWEEN 0 AND 100000000000000)),
  PRIMARY KEY (role, permission)
) WITHOUT ROWID;
INSERT INTO role_permission (role, permission, limit_value) VALUES
  ('technician', 'board.view', NULL), ('technician', 'visit.work', NULL),
  ('desk', 'board.view', NULL), ('desk', 'visit.work', NULL), ('desk', 'records.view', NULL),
  ('desk', 'customer.edit', NULL), ('desk', 'booking', NULL), ('desk', 'job.edit', NULL),
  ('desk', 'invoice.issue', NULL), ('desk', 'payment.take', NULL),
  ('desk', 'payment.backdate', 3), ('desk', 'discount', 10);
INSERT INTO role_permission (role, permission, limit_value)
  SELECT 'manager', name, NULL FROM permission
  WHERE name NOT IN ('staff', 'providers', 'backup', 'migrate');
INSERT INTO role_permission (role, permission, limit_value)
  SELECT 'owner', name, NULL FROM permission;
CREATE TRIGGER role_permission_owner_keeps BEFORE DELETE ON role_permission
WHEN OLD.role = 'owner'
BEGIN
  SELECT RAISE(ABORT, 'the owner keeps every permission');
END;
CREATE TRIGGER role_permission_owner_unlimited BEFORE UPDATE ON role_permission
WHEN OLD.role = 'owner' AND NEW.limit_value IS NOT NULL
BEGIN
  SELECT RAISE(ABORT, 'the owner keeps every permission');
END;

CREATE TABLE staff (
  login TEXT PRIMARY KEY CHECK (length(login) BETWEEN 1 AND 32
                                AND login NOT GLOB '*[^!-~]*'
                                AND substr(login, 1, 1) <> '-'),
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  role TEXT NOT NULL CHECK (role IN ('technician', 'desk', 'manager', 'owner')),
  active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
  -- the technician this person is on the board (their own visits are the
  -- visits that reserve it); NULL: none
  resource_id INTEGER REFERENCES resource(id),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE UNIQUE INDEX staff_by_resource ON staff(resource_id) WHERE resource_id IS NOT NULL;
CREATE TRIGGER staff_resource_ins BEFORE INSERT ON staff
WHEN NEW.resource_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM resource WHERE id = NEW.resource_id AND kind = 'technician')
BEGIN
  SELECT RAISE(ABORT, 'a person is linked to a resource of kind technician');
END;
CREATE TRIGGER staff_resource_upd BEFORE UPDATE OF resource_id ON staff
WHEN NEW.resource_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM resource WHERE id = NEW.resource_id AND kind = 'technician')
BEGIN
  SELECT RAISE(ABORT, 'a person is linked to a resource of kind technician');
END;
CREATE TRIGGER staff_no_delete BEFORE DELETE ON staff
BEGIN
  SELECT RAISE(ABORT, 'staff are deactivated, never deleted: history names them');
END;
-- the register always has an active owner
CREATE TRIGGER staff_keeps_owner AFTER UPDATE ON staff
WHEN OLD.role = 'owner' AND OLD.active = 1 AND (NEW.role <> 'owner' OR NEW.active = 0)
  AND NOT EXISTS (SELECT 1 FROM staff WHERE role = 'owner' AND active = 1)
BEGIN
  SELECT RAISE(ABORT, 'the register must keep an active owner');
END;

CREATE TABLE staff_his (
  his_id INTEGER PRIMARY KEY,
  login TEXT NOT NULL,
  name TEXT NOT NULL,
  role TEXT NOT NULL,
  active INTEGER NOT NULL,
  resource_id INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX staff_his_by_login ON staff_his(login);
CREATE TRIGGER staff_his_ins AFTER INSERT ON staff
BEGIN
  INSERT INTO staff_his (login, name, role, active, resource_id, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.login, NEW.name, NEW.role, NEW.active, NEW.resource_id, NEW.created_at, NEW.updated_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER staff_his_upd AFTER UPDATE ON staff
BEGIN
  INSERT INTO staff_his (login, name, role, active, resource_id, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.login, NEW.name, NEW.role, NEW.active, NEW.resource_id, NEW.created_at, NEW.updated_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER staff_his_no_update BEFORE UPDATE ON staff_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER staff_his_no_delete BEFORE DELETE ON staff_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

-- one more permission for one person (a senior desk who may refund up to
-- 50.00); a grant is withdrawn by deleting it, and its history stays
CREATE TABLE staff_grant (
  login TEXT NOT NULL REFERENCES staff(login),
  permission TEXT NOT NULL REFERENCES permission(name),
  limit_value INTEGER CHECK (limit_value IS NULL OR (typeof(limit_value) = 'integer'
                             AND limit_value BETWEEN 0 AND 100000000000000)),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (login, permission)
) WITHOUT ROWID;
CREATE TABLE staff_grant_his (
  his_id INTEGER PRIMARY KEY,
  login TEXT NOT NULL,
  permission TEXT NOT NULL,
  limit_value INTEGER,
  created_at INTEGER NOT NULL,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX staff_grant_his_by_login ON staff_grant_his(login);
CREATE TRIGGER staff_grant_his_ins AFTER INSERT ON staff_grant
BEGIN
  INSERT INTO staff_grant_his (login, permission, limit_value, created_at, operator_id, operate_type, operate_at)
  VALUES (NEW.login, NEW.permission, NEW.limit_value, NEW.created_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER staff_grant_his_upd AFTER UPDATE ON staff_grant
BEGIN
  INSERT INTO staff_grant_his (login, permission, limit_value, created_at, operator_id, operate_type, operate_at)
  VALUES (NEW.login, NEW.permission, NEW.limit_value, NEW.created_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER staff_grant_his_del AFTER DELETE ON staff_grant
BEGIN
  INSERT INTO staff_grant_his (login, permission, limit_value, created_at, operator_id, operate_type, operate_at)
  VALUES (OLD.login, OLD.permission, OLD.limit_value, OLD.created_at, fd_operator(), 2, fd_now());
END;
CREATE TRIGGER staff_grant_his_no_update BEFORE UPDATE ON staff_grant_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER staff_grant_his_no_delete BEFORE DELETE ON staff_grant_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

-- a change of a role's limits is kept as well
CREATE TABLE role_permission_his (
  his_id INTEGER PRIMARY KEY,
  role TEXT NOT NULL,
  permission TEXT NOT NULL,
  limit_value INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE TRIGGER role_permission_his_ins AFTER INSERT ON role_permission
BEGIN
  INSERT INTO role_permission_his (role, permission, limit_value, operator_id, operate_type, operate_at)
  VALUES (NEW.role, NEW.permission, NEW.limit_value, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER role_permission_his_upd AFTER UPDATE ON role_permission
BEGIN
  INSERT INTO role_permission_his (role, permission, limit_value, operator_id, operate_type, operate_at)
  VALUES (NEW.role, NEW.permission, NEW.limit_value, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER role_permission_his_del AFTER DELETE ON role_permission
BEGIN
  INSERT INTO role_permission_his (role, permission, limit_value, operator_id, operate_type, operate_at)
  VALUES (OLD.role, OLD.permission, OLD.limit_value, fd_operator(), 2, fd_now());
END;
CREATE TRIGGER role_permission_his_no_update BEFORE UPDATE ON role_permission_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER role_permission_his_no_delete BEFORE DELETE ON role_permission_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

-- A manager's approval PIN: only a crypt(3) hash ("$y$..." yescrypt). Wrong
-- tries are counted; after a few the PIN is locked for a while that grows.
CREATE TABLE staff_pin (
  login TEXT PRIMARY KEY REFERENCES staff(login),
  hash TEXT NOT NULL CHECK (length(hash) BETWEEN 20 AND 200 AND substr(hash, 1, 1) = '$'),
  set_at INTEGER NOT NULL,
  failures INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
  locked_until INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
-- every try of a PIN, right or wrong, with who typed it (never the PIN)
CREATE TABLE staff_pin_try (
  id INTEGER PRIMARY KEY,
  login TEXT NOT NULL,
  tried_by TEXT NOT NULL,
  ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
  at INTEGER NOT NULL
);
CREATE INDEX staff_pin_try_by_login ON staff_pin_try(login, at);
CREATE TRIGGER staff_pin_try_no_update BEFORE UPDATE ON staff_pin_try
BEGIN
  SELECT RAISE(ABORT, 'PIN tries are never changed');
END;
CREATE TRIGGER staff_pin_try_no_delete BEFORE DELETE ON staff_pin_try
BEGIN
  SELECT RAISE(ABORT, 'PIN tries are never deleted');
END;

-- A request for what its requester may not do alone: a permission up to an
-- amount (NULL: a permission without a limit) on a subject (the action and
-- its record, as the core words it: "refund of payment 12"). A manager
-- decides it (never its requester); an approved request is used once, by
-- its requester, for that subject up to that amount. An approval with a
-- PIN is written already used, with how = 'pin'.
CREATE TABLE approval (
  id INTEGER PRIMARY KEY,
  permission TEXT NOT NULL REFERENCES permission(name),
  amount INTEGER,
  subject TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 200),
  requested_by TEXT NOT NULL REFERENCES staff(login),
  requested_at INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'waiting'
    CHECK (status IN ('waiting', 'approved', 'refused', 'used', 'withdrawn')),
  decided_by TEXT REFERENCES staff(login),
  decided_at INTEGER,
  how TEXT CHECK (how IS NULL OR how IN ('session', 'pin')),
  used_at INTEGER,
  CHECK (decided_by IS NULL OR decided_by <> requested_by),
  CHECK ((status = 'waiting') = (decided_by IS NULL)
         OR status = 'withdrawn')
);
CREATE INDEX approval_waiting ON approval(requested_at) WHERE status = 'waiting';
CREATE INDEX approval_by_requester ON approval(requested_by, status);
INSERT INTO status_transition (entity, from_status, to_status) VALUES
  ('approval', 'waiting', 'approved'), ('approval', 'waiting', 'refused'),
  ('approval', 'waiting', 'withdrawn'), ('approval', 'approved', 'used'),
  ('approval', 'approved', 'withdrawn');
CREATE TRIGGER approval_status_legal BEFORE UPDATE OF status ON approval
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'approval' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal approval status change');
END;
CREATE TRIGGER approval_fixed BEFORE UPDATE OF permission, amount, subject, requested_by,
  requested_at ON approval
BEGIN
  SELECT RAISE(ABORT, 'an approval request is never changed, only decided');
END;
CREATE TRIGGER approval_no_delete BEFORE DELETE ON approval
BEGIN
  SELECT RAISE(ABORT, 'approvals are never deleted');
END;
CREATE TRIGGER approval_status_flow_ins AFTER INSERT ON approval
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('approval', NEW.id, NULL, NEW.status, fd_reason(), fd_operator(), fd_now());
END;
CREATE TRIGGER approval_status_flow_upd AFTER UPDATE OF status ON approval
WHEN OLD.status <> NEW.status
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('approval', NEW.id, OLD.status, NEW.status, fd_reason(), fd_operator(), fd_now());
END;

-- whoever brings the database here is its owner
INSERT INTO staff (login, name, role, active, created_at, updated_at)
  VALUES (fd_operator(), fd_operator(), 'owner', 1, fd_now(), fd_now());
