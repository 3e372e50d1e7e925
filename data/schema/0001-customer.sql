-- 0001-customer.sql
-- frontdesk-migration: destructive=0
--
-- Customers and the machinery every later table uses: history tables filled
-- by triggers (operator from fd_operator(), time from fd_now(), both
-- registered by the program on every connection) and status flows.

CREATE TABLE customer (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  phone TEXT CHECK (phone IS NULL OR length(phone) <= 40),
  email TEXT CHECK (email IS NULL OR length(email) <= 200),
  address TEXT CHECK (address IS NULL OR length(address) <= 400),
  note TEXT CHECK (note IS NULL OR length(note) <= 2000),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX customer_by_name ON customer(name COLLATE NOCASE);
CREATE INDEX customer_by_phone ON customer(phone);

CREATE TABLE customer_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  name TEXT NOT NULL,
  phone TEXT,
  email TEXT,
  address TEXT,
  note TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX customer_his_by_id ON customer_his(id);
CREATE TRIGGER customer_his_ins AFTER INSERT ON customer
BEGIN
  INSERT INTO customer_his (id, name, phone, email, address, note, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.name, NEW.phone, NEW.email, NEW.address, NEW.note, NEW.created_at, NEW.updated_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER customer_his_upd AFTER UPDATE ON customer
BEGIN
  INSERT INTO customer_his (id, name, phone, email, address, note, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.name, NEW.phone, NEW.email, NEW.address, NEW.note, NEW.created_at, NEW.updated_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER customer_his_del AFTER DELETE ON customer
BEGIN
  INSERT INTO customer_his (id, name, phone, email, address, note, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (OLD.id, OLD.name, OLD.phone, OLD.email, OLD.address, OLD.note, OLD.created_at, OLD.updated_at, fd_operator(), 2, fd_now());
END;
CREATE TRIGGER customer_his_no_update BEFORE UPDATE ON customer_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER customer_his_no_delete BEFORE DELETE ON customer_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

-- Legal status changes, one row each; a trigger on every table with a
-- status refuses any change that is not listed here.
CREATE TABLE status_transition (
  entity TEXT NOT NULL,
  from_status TEXT NOT NULL,
  to_status TEXT NOT NULL,
  PRIMARY KEY (entity, from_status, to_status)
) WITHOUT ROWID;

-- Every status a row takes, who set it, when and why.
CREATE TABLE status_flow (
  id INTEGER PRIMARY KEY,
  entity TEXT NOT NULL,
  entity_id INTEGER NOT NULL,
  from_status TEXT,
  to_status TEXT NOT NULL,
  reason TEXT,
  operator_id TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX status_flow_by_entity ON status_flow(entity, entity_id);
CREATE TRIGGER status_flow_no_update BEFORE UPDATE ON status_flow
BEGIN
  SELECT RAISE(ABORT, 'status flow rows are never changed');
END;
CREATE TRIGGER status_flow_no_delete BEFORE DELETE ON status_flow
BEGIN
  SELECT RAISE(ABORT, 'status flow rows are never deleted');
END;
