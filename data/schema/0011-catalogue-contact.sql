-- 0011-catalogue-contact.sql
-- frontdesk-migration: destructive=0
--
-- The service catalogue and the contact log. New tables only: no existing
-- row changes.
--
-- service: what the shop offers, with a default kind, price (minor units of
-- its currency, within the money limit MONEY_MAX of src/money.h) and
-- duration. A service is never deleted, only retired: jobs billed from it
-- keep their lines, and a retired service is no longer offered. The name is
-- unique among active services, ignoring the case of ASCII letters. Adding
-- a service to a job copies its name and price into a new line item
-- (src/service.c), so a later price change never touches an existing line
-- item or an issued invoice (whose lines hold their own snapshots). History
-- in service_his, written by triggers like every other *_his table.
--
-- contact_log: calls, messages and visits at the counter with a customer.
-- Rows are only ever added: triggers refuse UPDATE and DELETE, and a
-- correction is a new row whose corrects_id names the older row it
-- corrects (of the same customer). operator_id is who wrote the row.
--
-- Retention: summary is personal data. The purge of data retention (not
-- built yet) must anonymise contact_log rows of a purged customer, which
-- the no-update and no-delete triggers below refuse to anyone: it will need
-- a special path of its own (for instance a later migration that lets those
-- triggers pass while a purge marker of the running deletion is set).

CREATE TABLE service (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  kind TEXT NOT NULL CHECK (kind IN ('SERVICE', 'FEE', 'DISCOUNT', 'TAX', 'CREDIT')),
  price INTEGER NOT NULL CHECK (price BETWEEN 0 AND 100000000000000),
  currency TEXT NOT NULL CHECK (length(currency) = 3 AND currency = upper(currency)),
  minutes INTEGER NOT NULL CHECK (minutes BETWEEN 0 AND 100000),
  active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX service_active_name ON service(name COLLATE NOCASE) WHERE active = 1;

-- Retired is final (add the service again instead), and a service is never
-- deleted.
CREATE TRIGGER service_retired_final BEFORE UPDATE OF active ON service
WHEN OLD.active = 0 AND NEW.active <> 0
BEGIN
  SELECT RAISE(ABORT, 'a retired service stays retired');
END;
CREATE TRIGGER service_no_delete BEFORE DELETE ON service
BEGIN
  SELECT RAISE(ABORT, 'services are retired, never deleted');
END;

CREATE TABLE service_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  name TEXT,
  kind TEXT,
  price INTEGER,
  currency TEXT,
  minutes INTEGER,
  active INTEGER,
  created_at INTEGER,
  updated_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX service_his_by_id ON service_his(id);
CREATE TRIGGER service_his_ins AFTER INSERT ON service
BEGIN
  INSERT INTO service_his (id, name, kind, price, currency, minutes, active, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.name, NEW.kind, NEW.price, NEW.currency, NEW.minutes, NEW.active, NEW.created_at, NEW.updated_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER service_his_upd AFTER UPDATE ON service
BEGIN
  INSERT INTO service_his (id, name, kind, price, currency, minutes, active, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.name, NEW.kind, NEW.price, NEW.currency, NEW.minutes, NEW.active, NEW.created_at, NEW.updated_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER service_his_no_update BEFORE UPDATE ON service_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER service_his_no_delete BEFORE DELETE ON service_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE contact_log (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customer(id),
  at INTEGER NOT NULL,
  channel TEXT NOT NULL CHECK (channel IN ('phone', 'sms', 'email', 'counter', 'other')),
  direction TEXT NOT NULL CHECK (direction IN ('in', 'out')),
  summary TEXT NOT NULL CHECK (length(summary) BETWEEN 1 AND 2000),
  operator_id TEXT NOT NULL,
  corrects_id INTEGER REFERENCES contact_log(id),
  created_at INTEGER NOT NULL
);
-- a customer's log, newest first, is one index range
CREATE INDEX contact_log_by_customer ON contact_log(customer_id, at, id);
CREATE INDEX contact_log_by_corrects ON contact_log(corrects_id) WHERE corrects_id IS NOT NULL;

CREATE TRIGGER contact_log_corrects_same BEFORE INSERT ON contact_log
WHEN NEW.corrects_id IS NOT NULL
  AND (SELECT customer_id FROM contact_log WHERE id = NEW.corrects_id) IS NOT NEW.customer_id
BEGIN
  SELECT RAISE(ABORT, 'a correction refers to an older contact of the same customer');
END;
CREATE TRIGGER contact_log_no_update BEFORE UPDATE ON contact_log
BEGIN
  SELECT RAISE(ABORT, 'contact log rows are never changed: add a correction');
END;
CREATE TRIGGER contact_log_no_delete BEFORE DELETE ON contact_log
BEGIN
  SELECT RAISE(ABORT, 'contact log rows are never deleted: add a correction');
END;
