-- 0015-reconciliation.sql
-- frontdesk-migration: destructive=0
--
-- Daily reconciliation against a payment channel's settlement data
-- (src/recon.c):
--  - reconciliation_batch: one run of one provider's business day (the
--    shop's date, the half-open UTC window [window_from, window_to)), from
--    the channel (fetch: the fetched window, which includes the look-back
--    and look-ahead tolerance) or a file (its sha256); status
--    running -> done | failed (status_transition, status_flow); who ran it;
--    its counts. What a batch is for never changes; batches are never
--    deleted.
--  - reconciliation_total: a batch's figures per currency (the channel's
--    gross, fee and net of the day's lines; our own card money of the day).
--  - reconciliation_diff: a typed difference, UNIQUE per (provider, kind,
--    natural key) so that running a day again never duplicates one: the
--    re-run updates last_seen_batch_id. open -> resolved only, and only
--    together with its reconciliation_resolution row.
--  - reconciliation_resolution: a person's decision on a difference (or the
--    batch's 'gone' when a re-run no longer finds it), with a note: history,
--    never changed or deleted, at most one per difference.
--  - reconciliation_payment: the payments recorded from the channel's data
--    (a channel_only difference, a claimed parked event), once per channel
--    order and per line, so that the next run matches them.
--  - reconciliation_fee: the channel's fee per matched payment or refund
--    (one row per channel line), so takings can be shown gross and net.
--  - reconciliation_payout: the channel's payouts: amount, the sum of their
--    lines, whether they match, arrival date, ticked off against the bank.
--  - a window's card payments are read through payment_by_received and
--    joined to their order by pay_order_by_payment (0006): no new index.
--  - a dead inbound event may be claimed (dead -> processed): a payment the
--    channel took that matched no order of ours dies parked; a person may
--    still claim it.

CREATE TABLE reconciliation_batch (
  id INTEGER PRIMARY KEY,
  provider_code TEXT NOT NULL CHECK (length(provider_code) BETWEEN 1 AND 40),
  business_day TEXT NOT NULL
    CHECK (business_day GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'),
  window_from INTEGER NOT NULL,
  window_to INTEGER NOT NULL CHECK (window_to > window_from),
  source TEXT NOT NULL CHECK (source = 'fetch' OR source = 'file'),
  file_sha256 TEXT CHECK (file_sha256 IS NULL OR (length(file_sha256) = 64
    AND file_sha256 NOT GLOB '*[^0-9a-f]*')),
  fetch_from INTEGER,
  fetch_to INTEGER,
  status TEXT NOT NULL DEFAULT 'running'
    CHECK (status = 'running' OR status = 'done' OR status = 'failed'),
  lines INTEGER NOT NULL DEFAULT 0 CHECK (lines >= 0),
  local_items INTEGER NOT NULL DEFAULT 0 CHECK (local_items >= 0),
  matched INTEGER NOT NULL DEFAULT 0 CHECK (matched >= 0),
  diffs_new INTEGER NOT NULL DEFAULT 0 CHECK (diffs_new >= 0),
  diffs_seen INTEGER NOT NULL DEFAULT 0 CHECK (diffs_seen >= 0),
  diffs_gone INTEGER NOT NULL DEFAULT 0 CHECK (diffs_gone >= 0),
  open_diffs INTEGER NOT NULL DEFAULT 0 CHECK (open_diffs >= 0),
  error TEXT CHECK (error IS NULL OR length(error) <= 1000),
  operator_id TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  CHECK ((source = 'file') = (file_sha256 IS NOT NULL)),
  CHECK (source = 'file' OR (fetch_from IS NOT NULL AND fetch_to > fetch_from))
);
CREATE INDEX reconciliation_batch_by_day
  ON reconciliation_batch(provider_code, business_day, id);
CREATE INDEX reconciliation_batch_by_day_only ON reconciliation_batch(business_day, id);

CREATE TRIGGER reconciliation_batch_fixed BEFORE UPDATE OF provider_code, business_day,
  window_from, window_to, source, file_sha256, fetch_from, fetch_to, operator_id, started_at
  ON reconciliation_batch
WHEN OLD.provider_code IS NOT NEW.provider_code OR OLD.business_day IS NOT NEW.business_day
  OR OLD.window_from IS NOT NEW.window_from OR OLD.window_to IS NOT NEW.window_to
  OR OLD.source IS NOT NEW.source OR OLD.file_sha256 IS NOT NEW.file_sha256
  OR OLD.fetch_from IS NOT NEW.fetch_from OR OLD.fetch_to IS NOT NEW.fetch_to
  OR OLD.operator_id IS NOT NEW.operator_id OR OLD.started_at IS NOT NEW.started_at
BEGIN
  SELECT RAISE(ABORT, 'what a reconciliation batch is for never changes');
END;
CREATE TRIGGER reconciliation_batch_no_delete BEFORE DELETE ON reconciliation_batch
BEGIN
  SELECT RAISE(ABORT, 'reconciliation batches are never deleted');
END;
CREATE TRIGGER reconciliation_batch_status_legal BEFORE UPDATE OF status ON reconciliation_batch
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'reconciliation_batch' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal reconciliation batch status change');
END;
CREATE TRIGGER reconciliation_batch_status_flow_ins AFTER INSERT ON reconciliation_batch
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('reconciliation_batch', NEW.id, NULL, NEW.status, fd_reason(), fd_operator(), fd_now());
END;
CREATE TRIGGER reconciliation_batch_status_flow_upd AFTER UPDATE OF status ON reconciliation_batch
WHEN OLD.status <> NEW.status
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('reconciliation_batch', NEW.id, OLD.status, NEW.status,
    coalesce(fd_reason(), NEW.error), fd_operator(), fd_now());
END;

CREATE TABLE reconciliation_total (
  batch_id INTEGER NOT NULL REFERENCES reconciliation_batch(id),
  currency TEXT NOT NULL CHECK (length(currency) = 3 AND currency = upper(currency)),
  lines INTEGER NOT NULL CHECK (lines >= 0),
  gross INTEGER NOT NULL CHECK (typeof(gross) = 'integer'),
  fee INTEGER NOT NULL CHECK (typeof(fee) = 'integer'),
  net INTEGER NOT NULL CHECK (typeof(net) = 'integer' AND net = gross - fee),
  local INTEGER NOT NULL CHECK (typeof(local) = 'integer'),
  PRIMARY KEY (batch_id, currency)
) WITHOUT ROWID;
CREATE TRIGGER reconciliation_total_no_update BEFORE UPDATE ON reconciliation_total
BEGIN
  SELECT RAISE(ABORT, 'a reconciliation total is never changed');
END;
CREATE TRIGGER reconciliation_total_no_delete BEFORE DELETE ON reconciliation_total
BEGIN
  SELECT RAISE(ABORT, 'a reconciliation total is never deleted');
END;

-- natural_key: 'payment:<id>', 'refund:<id>' for what we recorded,
-- 'line:<channel line id>' for what only the channel has
CREATE TABLE reconciliation_diff (
  id INTEGER PRIMARY KEY,
  provider_code TEXT NOT NULL CHECK (length(provider_code) BETWEEN 1 AND 40),
  kind TEXT NOT NULL CHECK (kind = 'local_only' OR kind = 'channel_only'
    OR kind = 'amount_mismatch' OR kind = 'status_mismatch' OR kind = 'currency_mismatch'),
  natural_key TEXT NOT NULL CHECK (length(natural_key) BETWEEN 3 AND 300),
  business_day TEXT NOT NULL,
  first_batch_id INTEGER NOT NULL REFERENCES reconciliation_batch(id),
  last_seen_batch_id INTEGER NOT NULL REFERENCES reconciliation_batch(id),
  payment_id INTEGER REFERENCES payment(id),
  refund_id INTEGER REFERENCES refund(id),
  line_id TEXT CHECK (line_id IS NULL OR length(line_id) BETWEEN 1 AND 255),
  line_data TEXT CHECK (line_data IS NULL OR json_valid(line_data)),
  local_amount INTEGER CHECK (local_amount IS NULL OR typeof(local_amount) = 'integer'),
  local_currency TEXT CHECK (local_currency IS NULL OR length(local_currency) = 3),
  channel_amount INTEGER CHECK (channel_amount IS NULL OR typeof(channel_amount) = 'integer'),
  channel_currency TEXT CHECK (channel_currency IS NULL OR length(channel_currency) = 3),
  detail TEXT CHECK (detail IS NULL OR length(detail) <= 1000),
  state TEXT NOT NULL DEFAULT 'open' CHECK (state = 'open' OR state = 'resolved'),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  CHECK (payment_id IS NOT NULL OR refund_id IS NOT NULL OR line_id IS NOT NULL),
  UNIQUE (provider_code, kind, natural_key)
);
CREATE INDEX reconciliation_diff_by_day ON reconciliation_diff(provider_code, business_day, state);
CREATE INDEX reconciliation_diff_open ON reconciliation_diff(business_day) WHERE state = 'open';
CREATE INDEX reconciliation_diff_by_batch ON reconciliation_diff(last_seen_batch_id);

CREATE TRIGGER reconciliation_diff_fixed BEFORE UPDATE OF provider_code, kind, natural_key,
  business_day, first_batch_id, created_at ON reconciliation_diff
WHEN OLD.provider_code IS NOT NEW.provider_code OR OLD.kind IS NOT NEW.kind
  OR OLD.natural_key IS NOT NEW.natural_key OR OLD.business_day IS NOT NEW.business_day
  OR OLD.first_batch_id IS NOT NEW.first_batch_id OR OLD.created_at IS NOT NEW.created_at
BEGIN
  SELECT RAISE(ABORT, 'what a reconciliation difference is about never changes');
END;
CREATE TRIGGER reconciliation_diff_no_delete BEFORE DELETE ON reconciliation_diff
BEGIN
  SELECT RAISE(ABORT, 'reconciliation differences are never deleted');
END;
CREATE TRIGGER reconciliation_diff_status_legal BEFORE UPDATE OF state ON reconciliation_diff
WHEN OLD.state <> NEW.state AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'reconciliation_diff' AND from_status = OLD.state AND to_status = NEW.state)
BEGIN
  SELECT RAISE(ABORT, 'illegal reconciliation difference state change');
END;
-- a difference is resolved only with its resolution row, written first
CREATE TRIGGER reconciliation_diff_resolved_with_reason BEFORE UPDATE OF state
  ON reconciliation_diff
WHEN NEW.state = 'resolved' AND OLD.state <> 'resolved' AND NOT EXISTS (
  SELECT 1 FROM reconciliation_resolution WHERE diff_id = NEW.id)
BEGIN
  SELECT RAISE(ABORT, 'a reconciliation difference is resolved only with a resolution');
END;
CREATE TRIGGER reconciliation_diff_status_flow_ins AFTER INSERT ON reconciliation_diff
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('reconciliation_diff', NEW.id, NULL, NEW.state, NEW.detail, fd_operator(), fd_now());
END;
CREATE TRIGGER reconciliation_diff_status_flow_upd AFTER UPDATE OF state ON reconciliation_diff
WHEN OLD.state <> NEW.state
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('reconciliation_diff', NEW.id, OLD.state, NEW.state, fd_reason(), fd_operator(),
    fd_now());
END;

CREATE TABLE reconciliation_diff_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  provider_code TEXT NOT NULL,
  kind TEXT NOT NULL,
  natural_key TEXT NOT NULL,
  business_day TEXT NOT NULL,
  first_batch_id INTEGER NOT NULL,
  last_seen_batch_id INTEGER NOT NULL,
  payment_id INTEGER,
  refund_id INTEGER,
  line_id TEXT,
  local_amount INTEGER,
  local_currency TEXT,
  channel_amount INTEGER,
  channel_currency TEXT,
  state TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX reconciliation_diff_his_by_id ON reconciliation_diff_his(id);
CREATE TRIGGER reconciliation_diff_his_ins AFTER INSERT ON reconciliation_diff
BEGIN
  INSERT INTO reconciliation_diff_his (id, provider_code, kind, natural_key, business_day,
    first_batch_id, last_seen_batch_id, payment_id, refund_id, line_id, local_amount,
    local_currency, channel_amount, channel_currency, state, updated_at, operator_id,
    operate_type, operate_at)
  VALUES (NEW.id, NEW.provider_code, NEW.kind, NEW.natural_key, NEW.business_day,
    NEW.first_batch_id, NEW.last_seen_batch_id, NEW.payment_id, NEW.refund_id, NEW.line_id,
    NEW.local_amount, NEW.local_currency, NEW.channel_amount, NEW.channel_currency, NEW.state,
    NEW.updated_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER reconciliation_diff_his_upd AFTER UPDATE ON reconciliation_diff
BEGIN
  INSERT INTO reconciliation_diff_his (id, provider_code, kind, natural_key, business_day,
    first_batch_id, last_seen_batch_id, payment_id, refund_id, line_id, local_amount,
    local_currency, channel_amount, channel_currency, state, updated_at, operator_id,
    operate_type, operate_at)
  VALUES (NEW.id, NEW.provider_code, NEW.kind, NEW.natural_key, NEW.business_day,
    NEW.first_batch_id, NEW.last_seen_batch_id, NEW.payment_id, NEW.refund_id, NEW.line_id,
    NEW.local_amount, NEW.local_currency, NEW.channel_amount, NEW.channel_currency, NEW.state,
    NEW.updated_at, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER reconciliation_diff_his_no_update BEFORE UPDATE ON reconciliation_diff_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER reconciliation_diff_his_no_delete BEFORE DELETE ON reconciliation_diff_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE reconciliation_resolution (
  id INTEGER PRIMARY KEY,
  diff_id INTEGER NOT NULL UNIQUE REFERENCES reconciliation_diff(id),
  action TEXT NOT NULL CHECK (action = 'accept' OR action = 'record_payment'
    OR action = 'correcting_entry' OR action = 'gone'),
  note TEXT NOT NULL CHECK (length(trim(note)) BETWEEN 1 AND 1000),
  payment_id INTEGER REFERENCES payment(id),
  refund_id INTEGER REFERENCES refund(id),
  batch_id INTEGER REFERENCES reconciliation_batch(id), -- the batch that found it gone
  operator_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  CHECK (action <> 'record_payment' OR payment_id IS NOT NULL),
  CHECK (action <> 'gone' OR batch_id IS NOT NULL)
);
CREATE TRIGGER reconciliation_resolution_no_update BEFORE UPDATE ON reconciliation_resolution
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER reconciliation_resolution_no_delete BEFORE DELETE ON reconciliation_resolution
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

-- channel_ref: the channel's id of the order (payment intent) the payment is
-- for, else the line's source; line_id: the settlement line it came from
CREATE TABLE reconciliation_payment (
  id INTEGER PRIMARY KEY,
  provider_code TEXT NOT NULL CHECK (length(provider_code) BETWEEN 1 AND 40),
  channel_ref TEXT NOT NULL CHECK (length(channel_ref) BETWEEN 1 AND 255),
  line_id TEXT CHECK (line_id IS NULL OR length(line_id) BETWEEN 1 AND 255),
  payment_id INTEGER NOT NULL UNIQUE REFERENCES payment(id),
  diff_id INTEGER REFERENCES reconciliation_diff(id),
  event_id INTEGER REFERENCES inbound_callback(id),
  operator_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  CHECK (diff_id IS NOT NULL OR event_id IS NOT NULL),
  UNIQUE (provider_code, channel_ref)
);
CREATE UNIQUE INDEX reconciliation_payment_by_line ON reconciliation_payment(provider_code, line_id)
  WHERE line_id IS NOT NULL;
CREATE TRIGGER reconciliation_payment_no_update BEFORE UPDATE ON reconciliation_payment
BEGIN
  SELECT RAISE(ABORT, 'a payment recorded from channel data is never changed');
END;
CREATE TRIGGER reconciliation_payment_no_delete BEFORE DELETE ON reconciliation_payment
BEGIN
  SELECT RAISE(ABORT, 'a payment recorded from channel data is never deleted');
END;

CREATE TABLE reconciliation_fee (
  provider_code TEXT NOT NULL,
  line_id TEXT NOT NULL CHECK (length(line_id) BETWEEN 1 AND 255),
  payment_id INTEGER NOT NULL REFERENCES payment(id),
  refund_id INTEGER REFERENCES refund(id),
  currency TEXT NOT NULL CHECK (length(currency) = 3),
  gross INTEGER NOT NULL CHECK (typeof(gross) = 'integer'),
  fee INTEGER NOT NULL CHECK (typeof(fee) = 'integer'),
  net INTEGER NOT NULL CHECK (typeof(net) = 'integer' AND net = gross - fee),
  batch_id INTEGER NOT NULL REFERENCES reconciliation_batch(id),
  PRIMARY KEY (provider_code, line_id)
) WITHOUT ROWID;
CREATE INDEX reconciliation_fee_by_payment ON reconciliation_fee(payment_id);

CREATE TABLE reconciliation_payout (
  id INTEGER PRIMARY KEY,
  provider_code TEXT NOT NULL CHECK (length(provider_code) BETWEEN 1 AND 40),
  payout_id TEXT NOT NULL CHECK (length(payout_id) BETWEEN 1 AND 255),
  amount INTEGER NOT NULL CHECK (typeof(amount) = 'integer'),
  currency TEXT NOT NULL CHECK (length(currency) = 3),
  lines INTEGER NOT NULL CHECK (lines >= 0),
  lines_sum INTEGER NOT NULL CHECK (typeof(lines_sum) = 'integer'),
  matches INTEGER NOT NULL CHECK (matches IN (0, 1)),
  arrival_date TEXT,
  batch_id INTEGER REFERENCES reconciliation_batch(id),
  ticked_at INTEGER,
  ticked_by TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  CHECK ((ticked_at IS NULL) = (ticked_by IS NULL)),
  UNIQUE (provider_code, payout_id)
);
CREATE TRIGGER reconciliation_payout_tick_once BEFORE UPDATE OF ticked_at ON reconciliation_payout
WHEN OLD.ticked_at IS NOT NULL
BEGIN
  SELECT RAISE(ABORT, 'a payout is ticked off once');
END;
CREATE TRIGGER reconciliation_payout_no_delete BEFORE DELETE ON reconciliation_payout
BEGIN
  SELECT RAISE(ABORT, 'payouts are never deleted');
END;

INSERT INTO status_transition (entity, from_status, to_status) VALUES
  ('reconciliation_batch', 'running', 'done'), ('reconciliation_batch', 'running', 'failed'),
  ('reconciliation_diff', 'open', 'resolved'),
  ('inbound_callback', 'dead', 'processed');
