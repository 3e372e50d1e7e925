-- 0002-work.sql
-- frontdesk-migration: destructive=0
--
-- The work: jobs (service_order), visits (appointment: when and where only,
-- never money), which jobs a visit works on (appointment_work, many to many
-- with estimated minutes) and the billable line items of a job. Amounts are
-- integer minor units; quantities are integer thousandths (1.5 h = 1500).
--
-- The C code (src/work.c) checks every rule first so that it can say clearly
-- what is wrong; the constraints and triggers here are the backstop that holds
-- whoever writes: legal status changes only, no link to a cancelled job or a
-- finished visit, no currency change under line items.

CREATE TABLE service_order (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customer(id),
  title TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  status TEXT NOT NULL DEFAULT 'open'
    CHECK (status IN ('open', 'in_progress', 'done', 'cancelled')),
  currency TEXT NOT NULL CHECK (length(currency) = 3 AND currency = upper(currency)),
  note TEXT CHECK (note IS NULL OR length(note) <= 2000),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX service_order_by_customer ON service_order(customer_id);

CREATE TABLE appointment (
  id INTEGER PRIMARY KEY,
  start_at INTEGER NOT NULL,
  end_at INTEGER NOT NULL,
  location TEXT CHECK (location IS NULL OR length(location) <= 400),
  status TEXT NOT NULL DEFAULT 'scheduled'
    CHECK (status IN ('scheduled', 'confirmed', 'in_progress', 'done', 'cancelled', 'no_show')),
  note TEXT CHECK (note IS NULL OR length(note) <= 2000),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  CHECK (end_at > start_at),
  -- at most 7 days (APPT_MAX_SECONDS in work.h), so that a range query can
  -- bound its scan by start_at
  CHECK (end_at - start_at <= 604800)
);
CREATE INDEX appointment_by_start ON appointment(start_at);

CREATE TABLE appointment_work (
  id INTEGER PRIMARY KEY,
  appointment_id INTEGER NOT NULL REFERENCES appointment(id),
  service_order_id INTEGER NOT NULL REFERENCES service_order(id),
  est_minutes INTEGER NOT NULL CHECK (est_minutes BETWEEN 0 AND 100000),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (appointment_id, service_order_id)
);
CREATE INDEX appointment_work_by_job ON appointment_work(service_order_id);

CREATE TABLE line_item (
  id INTEGER PRIMARY KEY,
  service_order_id INTEGER NOT NULL REFERENCES service_order(id),
  kind TEXT NOT NULL CHECK (kind IN ('SERVICE', 'FEE', 'DISCOUNT', 'TAX', 'CREDIT')),
  description TEXT NOT NULL CHECK (length(description) BETWEEN 1 AND 400),
  qty_milli INTEGER NOT NULL CHECK (qty_milli > 0 AND qty_milli <= 1000000000),
  unit_price INTEGER NOT NULL CHECK (unit_price >= 0),
  -- money_line_amount(qty_milli, unit_price), negated for DISCOUNT and CREDIT;
  -- computed by work.c with 128-bit arithmetic (SQLite's would overflow)
  amount INTEGER NOT NULL
    CHECK (CASE WHEN kind IN ('DISCOUNT', 'CREDIT') THEN amount <= 0 ELSE amount >= 0 END),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX line_item_by_job ON line_item(service_order_id);

-- Line item amounts are in the job's currency: it is fixed once there are any.
CREATE TRIGGER service_order_currency_fixed BEFORE UPDATE OF currency ON service_order
WHEN OLD.currency <> NEW.currency
  AND EXISTS (SELECT 1 FROM line_item WHERE service_order_id = OLD.id)
BEGIN
  SELECT RAISE(ABORT, 'the currency of a job with line items cannot change');
END;

-- A link is made (or pointed) only to a job that is not cancelled and a
-- visit that is not over (done, cancelled, no-show). Existing links stay as
-- they are when the job or the visit ends.
CREATE TRIGGER appointment_work_open_ins BEFORE INSERT ON appointment_work
WHEN (SELECT status FROM service_order WHERE id = NEW.service_order_id) = 'cancelled'
  OR (SELECT status FROM appointment WHERE id = NEW.appointment_id)
     IN ('done', 'cancelled', 'no_show')
BEGIN
  SELECT RAISE(ABORT, 'a link needs a job that is not cancelled and a visit that is not over');
END;
CREATE TRIGGER appointment_work_open_upd
BEFORE UPDATE OF appointment_id, service_order_id ON appointment_work
WHEN (SELECT status FROM service_order WHERE id = NEW.service_order_id) = 'cancelled'
  OR (SELECT status FROM appointment WHERE id = NEW.appointment_id)
     IN ('done', 'cancelled', 'no_show')
BEGIN
  SELECT RAISE(ABORT, 'a link needs a job that is not cancelled and a visit that is not over');
END;

INSERT INTO status_transition (entity, from_status, to_status) VALUES
  ('job', 'open', 'in_progress'), ('job', 'open', 'done'), ('job', 'open', 'cancelled'),
  ('job', 'in_progress', 'open'), ('job', 'in_progress', 'done'),
  ('job', 'in_progress', 'cancelled'), ('job', 'done', 'in_progress'),
  ('appointment', 'scheduled', 'confirmed'), ('appointment', 'scheduled', 'in_progress'),
  ('appointment', 'scheduled', 'cancelled'), ('appointment', 'scheduled', 'no_show'),
  ('appointment', 'confirmed', 'scheduled'), ('appointment', 'confirmed', 'in_progress'),
  ('appointment', 'confirmed', 'cancelled'), ('appointment', 'confirmed', 'no_show'),
  ('appointment', 'in_progress', 'done');

CREATE TRIGGER service_order_status_legal BEFORE UPDATE OF status ON service_order
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'job' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal job status change');
END;
CREATE TRIGGER service_order_status_flow_ins AFTER INSERT ON service_order
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('job', NEW.id, NULL, NEW.status, fd_reason(), fd_operator(), fd_now());
END;
CREATE TRIGGER service_order_status_flow_upd AFTER UPDATE OF status ON service_order
WHEN OLD.status <> NEW.status
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('job', NEW.id, OLD.status, NEW.status, fd_reason(), fd_operator(), fd_now());
END;

CREATE TRIGGER appointment_status_legal BEFORE UPDATE OF status ON appointment
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'appointment' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal appointment status change');
END;
CREATE TRIGGER appointment_status_flow_ins AFTER INSERT ON appointment
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('appointment', NEW.id, NULL, NEW.status, fd_reason(), fd_operator(), fd_now());
END;
CREATE TRIGGER appointment_status_flow_upd AFTER UPDATE OF status ON appointment
WHEN OLD.status <> NEW.status
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('appointment', NEW.id, OLD.status, NEW.status, fd_reason(), fd_operator(), fd_now());
END;

CREATE TABLE service_order_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  customer_id INTEGER,
  title TEXT,
  status TEXT,
  currency TEXT,
  note TEXT,
  created_at INTEGER,
  updated_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX service_order_his_by_id ON service_order_his(id);
CREATE TRIGGER service_order_his_ins AFTER INSERT ON service_order
BEGIN
  INSERT INTO service_order_his (id, customer_id, title, status, currency, note, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.customer_id, NEW.title, NEW.status, NEW.currency, NEW.note, NEW.created_at, NEW.updated_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER service_order_his_upd AFTER UPDATE ON service_order
BEGIN
  INSERT INTO service_order_his (id, customer_id, title, status, currency, note, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.customer_id, NEW.title, NEW.status, NEW.currency, NEW.note, NEW.created_at, NEW.updated_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER service_order_his_del AFTER DELETE ON service_order
BEGIN
  INSERT INTO service_order_his (id, customer_id, title, status, currency, note, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (OLD.id, OLD.customer_id, OLD.title, OLD.status, OLD.currency, OLD.note, OLD.created_at, OLD.updated_at, fd_operator(), 2, fd_now());
END;
CREATE TRIGGER service_order_his_no_update BEFORE UPDATE ON service_order_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER service_order_his_no_delete BEFORE DELETE ON service_order_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE appointment_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  start_at INTEGER,
  end_at INTEGER,
  location TEXT,
  status TEXT,
  note TEXT,
  created_at INTEGER,
  updated_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX appointment_his_by_id ON appointment_his(id);
CREATE TRIGGER appointment_his_ins AFTER INSERT ON appointment
BEGIN
  INSERT INTO appointment_his (id, start_at, end_at, location, status, note, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.start_at, NEW.end_at, NEW.location, NEW.status, NEW.note, NEW.created_at, NEW.updated_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER appointment_his_upd AFTER UPDATE ON appointment
BEGIN
  INSERT INTO appointment_his (id, start_at, end_at, location, status, note, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.start_at, NEW.end_at, NEW.location, NEW.status, NEW.note, NEW.created_at, NEW.updated_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER appointment_his_del AFTER DELETE ON appointment
BEGIN
  INSERT INTO appointment_his (id, start_at, end_at, location, status, note, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (OLD.id, OLD.start_at, OLD.end_at, OLD.location, OLD.status, OLD.note, OLD.created_at, OLD.updated_at, fd_operator(), 2, fd_now());
END;
CREATE TRIGGER appointment_his_no_update BEFORE UPDATE ON appointment_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER appointment_his_no_delete BEFORE DELETE ON appointment_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE appointment_work_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  appointment_id INTEGER,
  service_order_id INTEGER,
  est_minutes INTEGER,
  created_at INTEGER,
  updated_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX appointment_work_his_by_id ON appointment_work_his(id);
CREATE TRIGGER appointment_work_his_ins AFTER INSERT ON appointment_work
BEGIN
  INSERT INTO appointment_work_his (id, appointment_id, service_order_id, est_minutes, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.appointment_id, NEW.service_order_id, NEW.est_minutes, NEW.created_at, NEW.updated_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER appointment_work_his_upd AFTER UPDATE ON appointment_work
BEGIN
  INSERT INTO appointment_work_his (id, appointment_id, service_order_id, est_minutes, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.appointment_id, NEW.service_order_id, NEW.est_minutes, NEW.created_at, NEW.updated_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER appointment_work_his_del AFTER DELETE ON appointment_work
BEGIN
  INSERT INTO appointment_work_his (id, appointment_id, service_order_id, est_minutes, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (OLD.id, OLD.appointment_id, OLD.service_order_id, OLD.est_minutes, OLD.created_at, OLD.updated_at, fd_operator(), 2, fd_now());
END;
CREATE TRIGGER appointment_work_his_no_update BEFORE UPDATE ON appointment_work_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER appointment_work_his_no_delete BEFORE DELETE ON appointment_work_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE line_item_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  service_order_id INTEGER,
  kind TEXT,
  description TEXT,
  qty_milli INTEGER,
  unit_price INTEGER,
  amount INTEGER,
  created_at INTEGER,
  updated_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX line_item_his_by_id ON line_item_his(id);
CREATE TRIGGER line_item_his_ins AFTER INSERT ON line_item
BEGIN
  INSERT INTO line_item_his (id, service_order_id, kind, description, qty_milli, unit_price, amount, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.service_order_id, NEW.kind, NEW.description, NEW.qty_milli, NEW.unit_price, NEW.amount, NEW.created_at, NEW.updated_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER line_item_his_upd AFTER UPDATE ON line_item
BEGIN
  INSERT INTO line_item_his (id, service_order_id, kind, description, qty_milli, unit_price, amount, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.service_order_id, NEW.kind, NEW.description, NEW.qty_milli, NEW.unit_price, NEW.amount, NEW.created_at, NEW.updated_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER line_item_his_del AFTER DELETE ON line_item
BEGIN
  INSERT INTO line_item_his (id, service_order_id, kind, description, qty_milli, unit_price, amount, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (OLD.id, OLD.service_order_id, OLD.kind, OLD.description, OLD.qty_milli, OLD.unit_price, OLD.amount, OLD.created_at, OLD.updated_at, fd_operator(), 2, fd_now());
END;
CREATE TRIGGER line_item_his_no_update BEFORE UPDATE ON line_item_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER line_item_his_no_delete BEFORE DELETE ON line_item_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;
