-- 0017-esign.sql
-- frontdesk-migration: destructive=0
--
-- Signed work authorisations through an e-sign provider (src/esign.c):
--  - estimate: a job's line items as a document with a number of its own
--    (series EST in document_counter, like invoices: gap-free per year),
--    the customer, the totals (minor units) and the shop's terms as they
--    were when it was made, the lines as a JSON snapshot, and the SHA-256
--    and size of its PDF (the file beside the database, esign/). Never
--    changed, never deleted;
--  - esign_flow: one per estimate, the signature being asked of the
--    customer: the provider that serves it (remembered for good: switching
--    providers in the registry never moves a flow already under way), the
--    provider's envelope id (set once), and the state, which moves one way
--    only along status_transition ('esign_flow' rows):
--      sent -> viewed -> signed | declined | expired, and cancelled (by the
--      shop) from sent or viewed;
--    every change is a status_flow row. ignored_reason keeps why the last
--    callback that would have moved it back was ignored (a 'viewed' after
--    'signed'). Once signed, the final document is downloaded into the
--    folder beside the database: its path (relative to that folder), SHA-256
--    and size, and the provider's evidence (signers with their times and IP
--    addresses as the provider reports them, the timestamp token, the
--    certificate id) as JSON; each is set once and never changed;
--  - esign_flow_query: when the worker last asked the provider about an open
--    flow (real time), so that each is asked once per esign_query_seconds;
--    operational state like channel_state, without history;
--  - document_counter accepts the series EST (rebuilt: SQLite cannot change
--    a CHECK in place; every row is kept).
-- Both new tables keep *_his history rows. Nothing existing is lost: not
-- destructive.

CREATE TABLE document_counter_0017 (
  series TEXT NOT NULL CHECK (series IN ('INV', 'CN', 'EST')),
  year INTEGER NOT NULL CHECK (year BETWEEN 1970 AND 9999),
  last INTEGER NOT NULL CHECK (last >= 1),
  PRIMARY KEY (series, year)
) WITHOUT ROWID;
INSERT INTO document_counter_0017 (series, year, last)
  SELECT series, year, last FROM document_counter;
DROP TABLE document_counter;
ALTER TABLE document_counter_0017 RENAME TO document_counter;
CREATE TRIGGER document_counter_forward BEFORE UPDATE ON document_counter
WHEN NEW.series IS NOT OLD.series OR NEW.year IS NOT OLD.year OR NEW.last IS NOT OLD.last + 1
BEGIN
  SELECT RAISE(ABORT, 'document numbers only move forward by one');
END;
CREATE TRIGGER document_counter_no_delete BEFORE DELETE ON document_counter
BEGIN
  SELECT RAISE(ABORT, 'document number counters are never deleted');
END;

CREATE TABLE estimate (
  id INTEGER PRIMARY KEY,
  number TEXT NOT NULL UNIQUE CHECK (length(number) BETWEEN 1 AND 40),
  year INTEGER NOT NULL,
  seq INTEGER NOT NULL CHECK (seq >= 1),
  service_order_id INTEGER NOT NULL REFERENCES service_order(id),
  customer_id INTEGER NOT NULL REFERENCES customer(id),
  currency TEXT NOT NULL CHECK (length(currency) = 3 AND currency = upper(currency)),
  subtotal INTEGER NOT NULL,         -- every line but TAX
  tax INTEGER NOT NULL,              -- the TAX lines
  total INTEGER NOT NULL,            -- subtotal + tax
  lines TEXT NOT NULL CHECK (json_valid(lines)),
  terms TEXT NOT NULL CHECK (length(terms) <= 4000),
  pdf_path TEXT NOT NULL CHECK (length(pdf_path) BETWEEN 1 AND 400),
  pdf_sha256 TEXT NOT NULL CHECK (length(pdf_sha256) = 64),
  pdf_size INTEGER NOT NULL CHECK (pdf_size > 0),
  created_at INTEGER NOT NULL,
  UNIQUE (year, seq)
);
CREATE INDEX estimate_by_job ON estimate(service_order_id);
CREATE TRIGGER estimate_fixed BEFORE UPDATE ON estimate
BEGIN
  SELECT RAISE(ABORT, 'an estimate is never changed');
END;
CREATE TRIGGER estimate_no_delete BEFORE DELETE ON estimate
BEGIN
  SELECT RAISE(ABORT, 'estimates are never deleted');
END;

CREATE TABLE esign_flow (
  id INTEGER PRIMARY KEY,
  estimate_id INTEGER NOT NULL UNIQUE REFERENCES estimate(id),
  provider_code TEXT NOT NULL CHECK (length(provider_code) BETWEEN 1 AND 40),
  envelope_id TEXT CHECK (envelope_id IS NULL OR length(envelope_id) BETWEEN 1 AND 255),
  status TEXT NOT NULL CHECK (status IN ('sent', 'viewed', 'signed', 'declined', 'expired',
    'cancelled')),
  status_at INTEGER,                 -- the provider's time of the state, when it says
  ignored_reason TEXT CHECK (ignored_reason IS NULL OR length(ignored_reason) <= 1000),
  document_path TEXT CHECK (document_path IS NULL OR length(document_path) BETWEEN 1 AND 400),
  document_sha256 TEXT CHECK (document_sha256 IS NULL OR length(document_sha256) = 64),
  document_size INTEGER CHECK (document_size IS NULL OR document_size >= 0),
  evidence TEXT CHECK (evidence IS NULL OR json_valid(evidence)),
  document_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX esign_flow_envelope ON esign_flow(provider_code, envelope_id)
  WHERE envelope_id IS NOT NULL;
-- the signed flows whose final document is still to be downloaded
CREATE INDEX esign_flow_document_due ON esign_flow(id)
  WHERE status = 'signed' AND document_sha256 IS NULL;

CREATE TABLE esign_flow_query (
  flow_id INTEGER PRIMARY KEY REFERENCES esign_flow(id),
  queried_at INTEGER NOT NULL
);

CREATE TRIGGER esign_flow_fixed BEFORE UPDATE OF estimate_id, provider_code, created_at
  ON esign_flow
WHEN OLD.estimate_id IS NOT NEW.estimate_id OR OLD.provider_code IS NOT NEW.provider_code
  OR OLD.created_at IS NOT NEW.created_at
BEGIN
  SELECT RAISE(ABORT, 'a sign flow keeps its estimate and provider');
END;
CREATE TRIGGER esign_flow_envelope_once BEFORE UPDATE OF envelope_id ON esign_flow
WHEN OLD.envelope_id IS NOT NULL AND OLD.envelope_id IS NOT NEW.envelope_id
BEGIN
  SELECT RAISE(ABORT, 'an envelope id is never changed once known');
END;
CREATE TRIGGER esign_flow_document_once BEFORE UPDATE OF document_path, document_sha256,
  document_size, evidence ON esign_flow
WHEN OLD.document_sha256 IS NOT NULL AND (OLD.document_path IS NOT NEW.document_path
  OR OLD.document_sha256 IS NOT NEW.document_sha256
  OR OLD.document_size IS NOT NEW.document_size OR OLD.evidence IS NOT NEW.evidence)
BEGIN
  SELECT RAISE(ABORT, 'a stored final document and its evidence are never changed');
END;
CREATE TRIGGER esign_flow_no_delete BEFORE DELETE ON esign_flow
BEGIN
  SELECT RAISE(ABORT, 'sign flows are never deleted');
END;
CREATE TRIGGER esign_flow_status_legal BEFORE UPDATE OF status ON esign_flow
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'esign_flow' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal sign flow status change');
END;
CREATE TRIGGER esign_flow_status_flow_ins AFTER INSERT ON esign_flow
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('esign_flow', NEW.id, NULL, NEW.status, fd_reason(), fd_operator(), fd_now());
END;
CREATE TRIGGER esign_flow_status_flow_upd AFTER UPDATE OF status ON esign_flow
WHEN OLD.status <> NEW.status
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('esign_flow', NEW.id, OLD.status, NEW.status, fd_reason(), fd_operator(), fd_now());
END;

INSERT INTO status_transition (entity, from_status, to_status) VALUES
  ('esign_flow', 'sent', 'viewed'), ('esign_flow', 'sent', 'signed'),
  ('esign_flow', 'sent', 'declined'), ('esign_flow', 'sent', 'expired'),
  ('esign_flow', 'sent', 'cancelled'),
  ('esign_flow', 'viewed', 'signed'), ('esign_flow', 'viewed', 'declined'),
  ('esign_flow', 'viewed', 'expired'), ('esign_flow', 'viewed', 'cancelled');

CREATE TABLE estimate_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  number TEXT,
  service_order_id INTEGER,
  customer_id INTEGER,
  currency TEXT,
  total INTEGER,
  pdf_sha256 TEXT,
  created_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX estimate_his_by_id ON estimate_his(id);
CREATE TRIGGER estimate_his_ins AFTER INSERT ON estimate
BEGIN
  INSERT INTO estimate_his (id, number, service_order_id, customer_id, currency, total,
    pdf_sha256, created_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.number, NEW.service_order_id, NEW.customer_id, NEW.currency, NEW.total,
    NEW.pdf_sha256, NEW.created_at, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER estimate_his_no_update BEFORE UPDATE ON estimate_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER estimate_his_no_delete BEFORE DELETE ON estimate_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE esign_flow_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  estimate_id INTEGER,
  provider_code TEXT,
  envelope_id TEXT,
  status TEXT,
  status_at INTEGER,
  ignored_reason TEXT,
  document_path TEXT,
  document_sha256 TEXT,
  document_size INTEGER,
  evidence TEXT,
  document_at INTEGER,
  created_at INTEGER,
  updated_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX esign_flow_his_by_id ON esign_flow_his(id);
CREATE TRIGGER esign_flow_his_ins AFTER INSERT ON esign_flow
BEGIN
  INSERT INTO esign_flow_his (id, estimate_id, provider_code, envelope_id, status, status_at,
    ignored_reason, document_path, document_sha256, document_size, evidence, document_at,
    created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.estimate_id, NEW.provider_code, NEW.envelope_id, NEW.status,
    NEW.status_at, NEW.ignored_reason, NEW.document_path, NEW.document_sha256,
    NEW.document_size, NEW.evidence, NEW.document_at, NEW.created_at, NEW.updated_at,
    fd_operator(), 1, fd_now());
END;
CREATE TRIGGER esign_flow_his_upd AFTER UPDATE ON esign_flow
BEGIN
  INSERT INTO esign_flow_his (id, estimate_id, provider_code, envelope_id, status, status_at,
    ignored_reason, document_path, document_sha256, document_size, evidence, document_at,
    created_at, updated_at, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.estimate_id, NEW.provider_code, NEW.envelope_id, NEW.status,
    NEW.status_at, NEW.ignored_reason, NEW.document_path, NEW.document_sha256,
    NEW.document_size, NEW.evidence, NEW.document_at, NEW.created_at, NEW.updated_at,
    fd_operator(), 3, fd_now());
END;
CREATE TRIGGER esign_flow_his_no_update BEFORE UPDATE ON esign_flow_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER esign_flow_his_no_delete BEFORE DELETE ON esign_flow_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;
