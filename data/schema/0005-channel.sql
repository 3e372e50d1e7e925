-- 0005-channel.sql
-- frontdesk-migration: destructive=0
--
-- The payment channel: which providers exist (integration_provider), every
-- event received from a channel stored raw before anything is done with it
-- (inbound_callback), our own channel orders with a one-way state machine
-- (pay_order), outbound commands waiting to leave (outbox_event), and the
-- poller's cursor and state per provider (channel_state).
--
-- Rules the database itself keeps:
--  - an inbound event is unique per (source_system, external_id); its raw
--    bytes, source, id and times are never changed once stored; an event
--    whose signature failed is stored as 'rejected' under a key derived from
--    its bytes (never under the event id it claims, so that a forged copy
--    cannot shadow the real event) and never leaves that state;
--  - pay_order moves only along status_transition ('pay_order' rows):
--    created -> paying -> paid -> refunding -> refunded, and closed or
--    failed from created or paying; its refunded amount never decreases and
--    never exceeds its amount; the channel ids are unique per provider;
--  - outbox_event is unique per (event_type, business_key) and per
--    idempotency key; its payload never changes; its status moves
--    pending -> sending -> succeeded, or sending -> failed -> sending ...,
--    and failed/sending -> dead; dead -> pending only when a person retries;
--  - every status change of the three is a status_flow row; pay_order,
--    outbox_event and integration_provider keep *_his history rows.
--
-- The request log lives in a separate file (src/chan-log.c), not here.

CREATE TABLE integration_provider (
  id INTEGER PRIMARY KEY,
  integration_type TEXT NOT NULL CHECK (integration_type = 'payment'),
  provider_code TEXT NOT NULL CHECK (length(provider_code) BETWEEN 1 AND 40),
  role TEXT NOT NULL CHECK (role = 'primary' OR role = 'backup'),
  base_url TEXT NOT NULL CHECK (length(base_url) BETWEEN 8 AND 400),
  settings TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings)),
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (integration_type, provider_code)
);
-- at most one enabled primary per integration type
CREATE UNIQUE INDEX integration_provider_one_primary
  ON integration_provider(integration_type) WHERE role = 'primary' AND enabled = 1;

CREATE TABLE integration_provider_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  integration_type TEXT NOT NULL,
  provider_code TEXT NOT NULL,
  role TEXT NOT NULL,
  base_url TEXT NOT NULL,
  settings TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX integration_provider_his_by_id ON integration_provider_his(id);
CREATE TRIGGER integration_provider_his_ins AFTER INSERT ON integration_provider
BEGIN
  INSERT INTO integration_provider_his (id, integration_type, provider_code, role, base_url,
    settings, enabled, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.integration_type, NEW.provider_code, NEW.role, NEW.base_url,
    NEW.settings, NEW.enabled, NEW.created_at, NEW.updated_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER integration_provider_his_upd AFTER UPDATE ON integration_provider
BEGIN
  INSERT INTO integration_provider_his (id, integration_type, provider_code, role, base_url,
    settings, enabled, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.integration_type, NEW.provider_code, NEW.role, NEW.base_url,
    NEW.settings, NEW.enabled, NEW.created_at, NEW.updated_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER integration_provider_his_del AFTER DELETE ON integration_provider
BEGIN
  INSERT INTO integration_provider_his (id, integration_type, provider_code, role, base_url,
    settings, enabled, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (OLD.id, OLD.integration_type, OLD.provider_code, OLD.role, OLD.base_url,
    OLD.settings, OLD.enabled, OLD.created_at, OLD.updated_at, fd_operator(), 2, fd_now());
END;
CREATE TRIGGER integration_provider_his_no_update BEFORE UPDATE ON integration_provider_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER integration_provider_his_no_delete BEFORE DELETE ON integration_provider_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

-- Every event from a channel, raw. status:
--   received  stored, waiting to be processed (next_attempt_at says when)
--   processed applied (or found already applied) in the same transaction
--   ignored   kept but deliberately not applied (stale, not relevant); reason in last_error
--   parked    about an order we do not know yet; retried until parked_until, then dead
--   failed    the last attempt failed; retried at next_attempt_at
--   dead      gave up (10 attempts, or a mismatch a person must look at)
--   rejected  its signature did not verify; never processed
CREATE TABLE inbound_callback (
  id INTEGER PRIMARY KEY,
  source_system TEXT NOT NULL CHECK (length(source_system) BETWEEN 1 AND 40),
  external_id TEXT NOT NULL CHECK (length(external_id) BETWEEN 1 AND 255),
  via TEXT NOT NULL CHECK (via = 'poll' OR via = 'forward' OR via = 'query'),
  event_type TEXT CHECK (event_type IS NULL OR length(event_type) <= 100),
  object_id TEXT CHECK (object_id IS NULL OR length(object_id) <= 255),
  payload BLOB NOT NULL CHECK (length(payload) <= 1048576),
  channel_created_at INTEGER,        -- the event's own "created" (channel clock)
  received_at INTEGER NOT NULL,      -- when we stored it (our clock)
  status TEXT NOT NULL CHECK (status = 'received' OR status = 'processed'
    OR status = 'ignored' OR status = 'parked' OR status = 'failed' OR status = 'dead'
    OR status = 'rejected'),
  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at INTEGER,           -- real time; NULL when nothing is due
  parked_until INTEGER,              -- real time; a parked event dies after this
  last_error TEXT CHECK (last_error IS NULL OR length(last_error) <= 1000),
  processed_at INTEGER,
  updated_at INTEGER NOT NULL,
  UNIQUE (source_system, external_id)
);
CREATE INDEX inbound_callback_due ON inbound_callback(next_attempt_at)
  WHERE status = 'received' OR status = 'failed' OR status = 'parked';
CREATE INDEX inbound_callback_by_object ON inbound_callback(source_system, object_id);
CREATE INDEX inbound_callback_by_status ON inbound_callback(status, id);

CREATE TRIGGER inbound_callback_raw_fixed
BEFORE UPDATE OF source_system, external_id, via, payload, channel_created_at, received_at,
  event_type, object_id ON inbound_callback
WHEN OLD.source_system IS NOT NEW.source_system OR OLD.external_id IS NOT NEW.external_id
  OR OLD.via IS NOT NEW.via OR OLD.payload IS NOT NEW.payload
  OR OLD.channel_created_at IS NOT NEW.channel_created_at
  OR OLD.received_at IS NOT NEW.received_at OR OLD.event_type IS NOT NEW.event_type
  OR OLD.object_id IS NOT NEW.object_id
BEGIN
  SELECT RAISE(ABORT, 'a stored inbound event is never changed');
END;
CREATE TRIGGER inbound_callback_no_delete BEFORE DELETE ON inbound_callback
BEGIN
  SELECT RAISE(ABORT, 'stored inbound events are never deleted');
END;
CREATE TRIGGER inbound_callback_status_legal BEFORE UPDATE OF status ON inbound_callback
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'inbound_callback' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal inbound event status change');
END;
CREATE TRIGGER inbound_callback_status_flow_ins AFTER INSERT ON inbound_callback
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('inbound_callback', NEW.id, NULL, NEW.status, NEW.last_error, fd_operator(), fd_now());
END;
CREATE TRIGGER inbound_callback_status_flow_upd AFTER UPDATE OF status ON inbound_callback
WHEN OLD.status <> NEW.status
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('inbound_callback', NEW.id, OLD.status, NEW.status,
    coalesce(fd_reason(), NEW.last_error), fd_operator(), fd_now());
END;

-- Our orders at a channel. order_no is ours (also in the channel's metadata);
-- channel_order_id is the channel's (a payment intent id), unique per provider.
CREATE TABLE pay_order (
  id INTEGER PRIMARY KEY,
  order_no TEXT NOT NULL UNIQUE CHECK (length(order_no) BETWEEN 1 AND 64),
  provider_code TEXT NOT NULL CHECK (length(provider_code) BETWEEN 1 AND 40),
  channel_order_id TEXT CHECK (channel_order_id IS NULL OR length(channel_order_id) <= 255),
  customer_id INTEGER NOT NULL REFERENCES customer(id),
  invoice_id INTEGER REFERENCES invoice(id),
  payment_id INTEGER REFERENCES payment(id),
  currency TEXT NOT NULL CHECK (length(currency) = 3),
  amount INTEGER NOT NULL CHECK (amount > 0 AND amount <= 100000000000000),
  refunded_amount INTEGER NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0
    AND refunded_amount <= amount),
  status TEXT NOT NULL CHECK (status = 'created' OR status = 'paying' OR status = 'paid'
    OR status = 'refunding' OR status = 'refunded' OR status = 'closed'
    OR status = 'failed'),
  query_count INTEGER NOT NULL DEFAULT 0 CHECK (query_count >= 0),
  next_query_at INTEGER,             -- real time of the next active query; NULL: none
  last_error TEXT CHECK (last_error IS NULL OR length(last_error) <= 1000),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX pay_order_channel_id ON pay_order(provider_code, channel_order_id)
  WHERE channel_order_id IS NOT NULL;
CREATE INDEX pay_order_to_query ON pay_order(next_query_at)
  WHERE status = 'created' OR status = 'paying' OR status = 'refunding';

CREATE TRIGGER pay_order_fixed BEFORE UPDATE OF order_no, provider_code, customer_id,
  invoice_id, currency, amount, created_at ON pay_order
WHEN OLD.order_no IS NOT NEW.order_no OR OLD.provider_code IS NOT NEW.provider_code
  OR OLD.customer_id IS NOT NEW.customer_id OR OLD.invoice_id IS NOT NEW.invoice_id
  OR OLD.currency IS NOT NEW.currency OR OLD.amount IS NOT NEW.amount
  OR OLD.created_at IS NOT NEW.created_at
BEGIN
  SELECT RAISE(ABORT, 'what a channel order is for never changes');
END;
CREATE TRIGGER pay_order_channel_id_once BEFORE UPDATE OF channel_order_id ON pay_order
WHEN OLD.channel_order_id IS NOT NULL AND OLD.channel_order_id IS NOT NEW.channel_order_id
BEGIN
  SELECT RAISE(ABORT, 'a channel order id is never changed once known');
END;
CREATE TRIGGER pay_order_payment_once BEFORE UPDATE OF payment_id ON pay_order
WHEN OLD.payment_id IS NOT NULL AND OLD.payment_id IS NOT NEW.payment_id
BEGIN
  SELECT RAISE(ABORT, 'the payment of a channel order is never changed once posted');
END;
CREATE TRIGGER pay_order_refund_grows BEFORE UPDATE OF refunded_amount ON pay_order
WHEN NEW.refunded_amount < OLD.refunded_amount
BEGIN
  SELECT RAISE(ABORT, 'the refunded amount of a channel order never decreases');
END;
CREATE TRIGGER pay_order_no_delete BEFORE DELETE ON pay_order
BEGIN
  SELECT RAISE(ABORT, 'channel orders are never deleted');
END;
CREATE TRIGGER pay_order_status_legal BEFORE UPDATE OF status ON pay_order
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'pay_order' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal channel order status change');
END;
CREATE TRIGGER pay_order_status_flow_ins AFTER INSERT ON pay_order
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('pay_order', NEW.id, NULL, NEW.status, fd_reason(), fd_operator(), fd_now());
END;
CREATE TRIGGER pay_order_status_flow_upd AFTER UPDATE OF status ON pay_order
WHEN OLD.status <> NEW.status
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('pay_order', NEW.id, OLD.status, NEW.status, fd_reason(), fd_operator(), fd_now());
END;

CREATE TABLE pay_order_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  order_no TEXT NOT NULL,
  provider_code TEXT NOT NULL,
  channel_order_id TEXT,
  customer_id INTEGER NOT NULL,
  invoice_id INTEGER,
  payment_id INTEGER,
  currency TEXT NOT NULL,
  amount INTEGER NOT NULL,
  refunded_amount INTEGER NOT NULL,
  status TEXT NOT NULL,
  query_count INTEGER NOT NULL,
  next_query_at INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX pay_order_his_by_id ON pay_order_his(id);
CREATE TRIGGER pay_order_his_ins AFTER INSERT ON pay_order
BEGIN
  INSERT INTO pay_order_his (id, order_no, provider_code, channel_order_id, customer_id,
    invoice_id, payment_id, currency, amount, refunded_amount, status, query_count,
    next_query_at, last_error, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.order_no, NEW.provider_code, NEW.channel_order_id, NEW.customer_id,
    NEW.invoice_id, NEW.payment_id, NEW.currency, NEW.amount, NEW.refunded_amount, NEW.status,
    NEW.query_count, NEW.next_query_at, NEW.last_error, NEW.created_at, NEW.updated_at,
    fd_operator(), 1, fd_now());
END;
CREATE TRIGGER pay_order_his_upd AFTER UPDATE ON pay_order
BEGIN
  INSERT INTO pay_order_his (id, order_no, provider_code, channel_order_id, customer_id,
    invoice_id, payment_id, currency, amount, refunded_amount, status, query_count,
    next_query_at, last_error, created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.order_no, NEW.provider_code, NEW.channel_order_id, NEW.customer_id,
    NEW.invoice_id, NEW.payment_id, NEW.currency, NEW.amount, NEW.refunded_amount, NEW.status,
    NEW.query_count, NEW.next_query_at, NEW.last_error, NEW.created_at, NEW.updated_at,
    fd_operator(), 3, fd_now());
END;
CREATE TRIGGER pay_order_his_no_update BEFORE UPDATE ON pay_order_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER pay_order_his_no_delete BEFORE DELETE ON pay_order_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

-- Commands waiting to leave for a channel. idempotency_key is sent with the
-- request and never changes, so a resend after a crash has one effect.
CREATE TABLE outbox_event (
  id INTEGER PRIMARY KEY,
  event_type TEXT NOT NULL CHECK (length(event_type) BETWEEN 1 AND 60),
  business_key TEXT NOT NULL CHECK (length(business_key) BETWEEN 1 AND 200),
  provider_code TEXT NOT NULL CHECK (length(provider_code) BETWEEN 1 AND 40),
  idempotency_key TEXT NOT NULL UNIQUE CHECK (length(idempotency_key) BETWEEN 1 AND 255),
  payload TEXT NOT NULL CHECK (json_valid(payload)),
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status = 'pending' OR status = 'sending'
    OR status = 'succeeded' OR status = 'failed' OR status = 'dead'),
  retry_count INTEGER NOT NULL DEFAULT 0 CHECK (retry_count >= 0),
  next_retry_at INTEGER,             -- real time
  last_error TEXT CHECK (last_error IS NULL OR length(last_error) <= 1000),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  sent_at INTEGER,
  UNIQUE (event_type, business_key)
);
-- the rows still to send, and only those
CREATE INDEX outbox_event_to_send ON outbox_event(next_retry_at)
  WHERE status = 'pending' OR status = 'sending' OR status = 'failed';

CREATE TRIGGER outbox_event_fixed BEFORE UPDATE OF event_type, business_key, provider_code,
  idempotency_key, payload, created_at ON outbox_event
WHEN OLD.event_type IS NOT NEW.event_type OR OLD.business_key IS NOT NEW.business_key
  OR OLD.provider_code IS NOT NEW.provider_code
  OR OLD.idempotency_key IS NOT NEW.idempotency_key OR OLD.payload IS NOT NEW.payload
  OR OLD.created_at IS NOT NEW.created_at
BEGIN
  SELECT RAISE(ABORT, 'an outbox command is never changed');
END;
CREATE TRIGGER outbox_event_no_delete BEFORE DELETE ON outbox_event
BEGIN
  SELECT RAISE(ABORT, 'outbox commands are never deleted');
END;
CREATE TRIGGER outbox_event_status_legal BEFORE UPDATE OF status ON outbox_event
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'outbox_event' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal outbox command status change');
END;
CREATE TRIGGER outbox_event_status_flow_ins AFTER INSERT ON outbox_event
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('outbox_event', NEW.id, NULL, NEW.status, fd_reason(), fd_operator(), fd_now());
END;
CREATE TRIGGER outbox_event_status_flow_upd AFTER UPDATE OF status ON outbox_event
WHEN OLD.status <> NEW.status
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('outbox_event', NEW.id, OLD.status, NEW.status,
    coalesce(fd_reason(), NEW.last_error), fd_operator(), fd_now());
END;

CREATE TABLE outbox_event_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  event_type TEXT NOT NULL,
  business_key TEXT NOT NULL,
  provider_code TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL,
  retry_count INTEGER NOT NULL,
  next_retry_at INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  sent_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX outbox_event_his_by_id ON outbox_event_his(id);
CREATE TRIGGER outbox_event_his_ins AFTER INSERT ON outbox_event
BEGIN
  INSERT INTO outbox_event_his (id, event_type, business_key, provider_code, idempotency_key,
    payload, status, retry_count, next_retry_at, last_error, created_at, updated_at, sent_at,
    operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.event_type, NEW.business_key, NEW.provider_code, NEW.idempotency_key,
    NEW.payload, NEW.status, NEW.retry_count, NEW.next_retry_at, NEW.last_error,
    NEW.created_at, NEW.updated_at, NEW.sent_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER outbox_event_his_upd AFTER UPDATE ON outbox_event
BEGIN
  INSERT INTO outbox_event_his (id, event_type, business_key, provider_code, idempotency_key,
    payload, status, retry_count, next_retry_at, last_error, created_at, updated_at, sent_at,
    operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.event_type, NEW.business_key, NEW.provider_code, NEW.idempotency_key,
    NEW.payload, NEW.status, NEW.retry_count, NEW.next_retry_at, NEW.last_error,
    NEW.created_at, NEW.updated_at, NEW.sent_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER outbox_event_his_no_update BEFORE UPDATE ON outbox_event_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER outbox_event_his_no_delete BEFORE DELETE ON outbox_event_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

-- The poller's cursor and visible state, one row per provider. high_water
-- is the newest channel "created" fully covered by committed events; it only
-- moves in the transaction that stores the events it covers.
CREATE TABLE channel_state (
  provider_code TEXT PRIMARY KEY CHECK (length(provider_code) BETWEEN 1 AND 40),
  high_water INTEGER NOT NULL DEFAULT 0 CHECK (high_water >= 0),
  state TEXT NOT NULL DEFAULT 'off' CHECK (state = 'off' OR state = 'idle'
    OR state = 'polling' OR state = 'offline'),
  failures INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
  offline_until INTEGER,             -- real time of the next try while offline
  last_poll_at INTEGER,              -- real time
  last_success_at INTEGER,           -- real time
  last_error TEXT CHECK (last_error IS NULL OR length(last_error) <= 1000),
  events_stored INTEGER NOT NULL DEFAULT 0 CHECK (events_stored >= 0),
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER channel_state_mark_grows BEFORE UPDATE OF high_water ON channel_state
WHEN NEW.high_water < OLD.high_water
BEGIN
  SELECT RAISE(ABORT, 'the channel high-water mark never moves back');
END;

INSERT INTO status_transition (entity, from_status, to_status) VALUES
  ('pay_order', 'created', 'paying'), ('pay_order', 'created', 'paid'),
  ('pay_order', 'created', 'closed'), ('pay_order', 'created', 'failed'),
  ('pay_order', 'paying', 'paid'), ('pay_order', 'paying', 'closed'),
  ('pay_order', 'paying', 'failed'),
  ('pay_order', 'paid', 'refunding'), ('pay_order', 'paid', 'refunded'),
  ('pay_order', 'refunding', 'refunded'),
  ('inbound_callback', 'received', 'processed'), ('inbound_callback', 'received', 'ignored'),
  ('inbound_callback', 'received', 'parked'), ('inbound_callback', 'received', 'failed'),
  ('inbound_callback', 'received', 'dead'),
  ('inbound_callback', 'parked', 'processed'), ('inbound_callback', 'parked', 'ignored'),
  ('inbound_callback', 'parked', 'failed'), ('inbound_callback', 'parked', 'dead'),
  ('inbound_callback', 'failed', 'processed'), ('inbound_callback', 'failed', 'ignored'),
  ('inbound_callback', 'failed', 'parked'), ('inbound_callback', 'failed', 'dead'),
  ('inbound_callback', 'dead', 'received'), ('inbound_callback', 'dead', 'ignored'),
  ('inbound_callback', 'parked', 'received'), ('inbound_callback', 'failed', 'received'),
  ('outbox_event', 'pending', 'sending'), ('outbox_event', 'sending', 'succeeded'),
  ('outbox_event', 'sending', 'failed'), ('outbox_event', 'sending', 'dead'),
  ('outbox_event', 'failed', 'sending'), ('outbox_event', 'failed', 'dead'),
  ('outbox_event', 'dead', 'pending');
