-- 0029-messages.sql
-- frontdesk-migration: destructive=0
--
-- Messages to customers (src/message.c owns every table here): visit
-- reminders, "on our way", booking confirmations and invoices, sent by
-- e-mail or text message through the pipeline (integration types 'email'
-- and 'sms', 0028).
--
-- customer_contact_pref: one row per customer who has a language or a
-- consent of their own (no row: the shop's language, both channels
-- allowed). A consent withdrawn is honoured everywhere: no message of that
-- channel is made for them. Every change is kept in its history with who
-- made it and when, and why.
--
-- message: one row per message, written whole (language, recipient,
-- subject, body) when it is made, so what was sent is what is stored. Its
-- status:
--   waiting      made; sent once send_after has come (a reminder's time)
--   sending      handed to the outbox (integration type = channel,
--                business key MSG-<id>): delivered with the pipeline's
--                backoff, dead letters and give-up horizon; a text message
--                is not sent in the quiet hours, it waits for the morning
--   sent         the provider took it (SMTP's 250, the SMS API's answer)
--   unconfirmed  a text message with no delivery receipt long after it
--                was sent: "sent, not confirmed"
--   delivered    the receipt says so
--   failed       the provider refused it, the pipeline gave up, or the
--                receipt says it failed (error says why)
--   cancelled    never sent: its visit was cancelled first, or consent was
--                withdrawn before it left
-- A person can send a failed message again (failed -> waiting). A visit's
-- reminder and confirmation are made once per channel (message_once), so
-- the scheduler may run any number of times.
--
-- Not destructive: new tables, their history and their status moves.

CREATE TABLE customer_contact_pref (
  customer_id INTEGER PRIMARY KEY REFERENCES customer(id),
  language TEXT CHECK (language IS NULL OR language GLOB '[a-z][a-z]'
                       OR language GLOB '[a-z][a-z]_[A-Z][A-Z]'),
  email_ok INTEGER NOT NULL DEFAULT 1 CHECK (email_ok IN (0, 1)),
  sms_ok INTEGER NOT NULL DEFAULT 1 CHECK (sms_ok IN (0, 1)),
  reason TEXT CHECK (reason IS NULL OR length(reason) <= 400),
  changed_by TEXT NOT NULL CHECK (length(changed_by) BETWEEN 1 AND 64),
  changed_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE customer_contact_pref_his (
  his_id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL,
  language TEXT,
  email_ok INTEGER,
  sms_ok INTEGER,
  reason TEXT,
  changed_by TEXT,
  changed_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX customer_contact_pref_his_by_customer ON customer_contact_pref_his(customer_id);
CREATE TRIGGER customer_contact_pref_his_ins AFTER INSERT ON customer_contact_pref
BEGIN
  INSERT INTO customer_contact_pref_his (customer_id, language, email_ok, sms_ok, reason,
    changed_by, changed_at, operator_id, operate_type, operate_at)
  VALUES (NEW.customer_id, NEW.language, NEW.email_ok, NEW.sms_ok, NEW.reason, NEW.changed_by,
    NEW.changed_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER customer_contact_pref_his_upd AFTER UPDATE ON customer_contact_pref
BEGIN
  INSERT INTO customer_contact_pref_his (customer_id, language, email_ok, sms_ok, reason,
    changed_by, changed_at, operator_id, operate_type, operate_at)
  VALUES (NEW.customer_id, NEW.language, NEW.email_ok, NEW.sms_ok, NEW.reason, NEW.changed_by,
    NEW.changed_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER customer_contact_pref_no_delete BEFORE DELETE ON customer_contact_pref
BEGIN
  SELECT RAISE(ABORT, 'a customer''s consent is changed, never deleted');
END;
-- a purge (retention) blanks the reason; nothing else ever changes
CREATE TRIGGER customer_contact_pref_his_no_update BEFORE UPDATE ON customer_contact_pref_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id
  OR NEW.customer_id IS NOT OLD.customer_id OR NEW.language IS NOT OLD.language
  OR NEW.email_ok IS NOT OLD.email_ok OR NEW.sms_ok IS NOT OLD.sms_ok
  OR NEW.changed_by IS NOT OLD.changed_by OR NEW.changed_at IS NOT OLD.changed_at
  OR NEW.operator_id IS NOT OLD.operator_id OR NEW.operate_type IS NOT OLD.operate_type
  OR NEW.operate_at IS NOT OLD.operate_at
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER customer_contact_pref_his_no_delete BEFORE DELETE ON customer_contact_pref_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE message (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customer(id),
  channel TEXT NOT NULL CHECK (channel IN ('email', 'sms')),
  kind TEXT NOT NULL CHECK (kind IN ('reminder', 'on_the_way', 'confirmation', 'invoice')),
  appointment_id INTEGER REFERENCES appointment(id),
  invoice_id INTEGER REFERENCES invoice(id),
  language TEXT NOT NULL CHECK (length(language) BETWEEN 2 AND 5),
  recipient TEXT NOT NULL CHECK (length(recipient) BETWEEN 1 AND 320),
  subject TEXT CHECK (subject IS NULL OR length(subject) <= 400),
  body TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 20000),
  attach_invoice INTEGER NOT NULL DEFAULT 0 CHECK (attach_invoice IN (0, 1)),
  status TEXT NOT NULL CHECK (status IN ('waiting', 'sending', 'sent', 'unconfirmed',
                                         'delivered', 'failed', 'cancelled')),
  send_after INTEGER NOT NULL,
  provider_code TEXT,
  -- what the provider calls it: an SMS provider's message id, or the
  -- Message-ID we wrote into an e-mail
  provider_ref TEXT CHECK (provider_ref IS NULL OR length(provider_ref) <= 300),
  error TEXT CHECK (error IS NULL OR length(error) <= 400),
  sent_at INTEGER,
  delivered_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  CHECK (kind <> 'invoice' OR invoice_id IS NOT NULL),
  CHECK (kind = 'invoice' OR appointment_id IS NOT NULL)
);
CREATE UNIQUE INDEX message_once ON message(appointment_id, kind, channel)
  WHERE kind IN ('reminder', 'confirmation');
CREATE INDEX message_by_customer ON message(customer_id, id);
CREATE INDEX message_by_visit ON message(appointment_id) WHERE appointment_id IS NOT NULL;
CREATE INDEX message_waiting ON message(send_after) WHERE status = 'waiting';
CREATE INDEX message_open ON message(status, sent_at) WHERE status IN ('sending', 'sent');
CREATE INDEX message_by_ref ON message(provider_code, provider_ref) WHERE provider_ref IS NOT NULL;

CREATE TRIGGER message_no_delete BEFORE DELETE ON message
BEGIN
  SELECT RAISE(ABORT, 'a message is never deleted');
END;
-- what was sent stays what is stored: only a purge (retention) blanks it
CREATE TRIGGER message_text_fixed BEFORE UPDATE OF customer_id, channel, kind, appointment_id,
  invoice_id, language, recipient, subject, body, attach_invoice ON message
WHEN NOT EXISTS (SELECT 1 FROM retention_purging)
  OR NEW.customer_id IS NOT OLD.customer_id OR NEW.channel IS NOT OLD.channel
  OR NEW.kind IS NOT OLD.kind OR NEW.appointment_id IS NOT OLD.appointment_id
  OR NEW.invoice_id IS NOT OLD.invoice_id OR NEW.language IS NOT OLD.language
  OR NEW.attach_invoice IS NOT OLD.attach_invoice
BEGIN
  SELECT RAISE(ABORT, 'a message is sent as it was written');
END;

INSERT INTO status_transition (entity, from_status, to_status) VALUES
  ('message', 'waiting', 'sending'), ('message', 'waiting', 'cancelled'),
  ('message', 'sending', 'sent'), ('message', 'sending', 'failed'),
  ('message', 'sending', 'cancelled'),
  ('message', 'sent', 'delivered'), ('message', 'sent', 'failed'),
  ('message', 'sent', 'unconfirmed'),
  ('message', 'unconfirmed', 'delivered'), ('message', 'unconfirmed', 'failed'),
  ('message', 'failed', 'waiting');

CREATE TRIGGER message_status_legal BEFORE UPDATE OF status ON message
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'message' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal message status change');
END;
CREATE TRIGGER message_status_flow_ins AFTER INSERT ON message
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('message', NEW.id, NULL, NEW.status, fd_reason(), fd_operator(), fd_now());
END;
CREATE TRIGGER message_status_flow_upd AFTER UPDATE OF status ON message
WHEN OLD.status <> NEW.status
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('message', NEW.id, OLD.status, NEW.status, fd_reason(), fd_operator(), fd_now());
END;
