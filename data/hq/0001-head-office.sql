-- 0001-head-office.sql - the head office's first schema (PostgreSQL 15).
--
-- Each shop sends the committed changes of its authoritative records as
-- the rows of their history tables (<table>_his): a row's state after each
-- change, with the history row's number as the row's version. The head
-- office keeps each record's newest state, whole, as JSON: a record is
-- (shop, table, id), and a version older than the one kept changes nothing,
-- so a batch sent twice, out of order or after a crash changes nothing the
-- second time. The views below read the records as typed rows for the
-- reports. Money stays the shop's: the triggers refuse a change of a
-- posted amount and every delete, as the shop's own schema does.
--
-- Frozen once landed: a change is a new migration (data/hq/MANIFEST).

CREATE TABLE hq_shop (
  code text PRIMARY KEY CHECK (code ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,19}$'),
  name text NOT NULL DEFAULT '' CHECK (length(name) <= 200),
  -- the shop's time zone (IANA name), in which its days are counted
  timezone text NOT NULL DEFAULT 'UTC' CHECK (length(timezone) BETWEEN 1 AND 64),
  joined_at timestamptz NOT NULL DEFAULT now(),
  last_batch_at timestamptz,
  -- the shop's own clock at its last batch (Unix seconds) and what it then
  -- said was still waiting to be sent
  last_shop_time bigint,
  waiting int,
  failed int
);

CREATE TABLE hq_record (
  shop text NOT NULL REFERENCES hq_shop(code),
  tbl text NOT NULL CHECK (tbl IN ('customer', 'service_order', 'appointment',
    'appointment_work', 'line_item', 'invoice', 'invoice_line', 'payment',
    'payment_allocation', 'refund', 'pay_order', 'reconciliation_diff')),
  id bigint NOT NULL,
  version bigint NOT NULL CHECK (version > 0),
  data jsonb NOT NULL CHECK (jsonb_typeof(data) = 'object'),
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (shop, tbl, id)
);

-- The record of a version: how a shop sees that the head office holds a
-- change it no longer has (restored from a backup).
CREATE INDEX hq_record_by_version ON hq_record (shop, tbl, version);

-- Every batch applied, by its idempotency key: applied once.
CREATE TABLE hq_batch (
  shop text NOT NULL REFERENCES hq_shop(code),
  idem_key text NOT NULL CHECK (length(idem_key) BETWEEN 1 AND 200),
  tbl text NOT NULL,
  first_version bigint NOT NULL,
  last_version bigint NOT NULL CHECK (last_version >= first_version),
  rows int NOT NULL CHECK (rows >= 0),
  applied int NOT NULL CHECK (applied >= 0),
  totals jsonb,
  applied_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (shop, idem_key)
);

-- How far each shop's history of each table has come: the newest version
-- applied (a shop restored from a backup asks it, `hq status` shows it).
CREATE TABLE hq_cursor (
  shop text NOT NULL REFERENCES hq_shop(code),
  tbl text NOT NULL,
  version bigint NOT NULL,
  PRIMARY KEY (shop, tbl)
);

-- Posted money is immutable here as at the shop: a payment's, refund's or
-- allocation's amount, currency and parties never change; an invoice's
-- lines never change and, once issued, neither do its number, customer,
-- currency or total. A purge blanks personal text and leaves those alone.
CREATE FUNCTION hq_money_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  keys text[];
  k text;
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'the head office never deletes a shop''s record (% % %)',
      OLD.shop, OLD.tbl, OLD.id;
  END IF;
  IF NEW.shop <> OLD.shop OR NEW.tbl <> OLD.tbl OR NEW.id <> OLD.id THEN
    RAISE EXCEPTION 'a record keeps its shop, table and id';
  END IF;
  keys := CASE OLD.tbl
    WHEN 'payment' THEN ARRAY['customer_id', 'currency', 'amount', 'received_at', 'method']
    WHEN 'refund' THEN ARRAY['payment_id', 'amount']
    WHEN 'payment_allocation' THEN ARRAY['payment_id', 'invoice_id', 'amount']
    WHEN 'invoice_line' THEN ARRAY['invoice_id', 'kind', 'qty_milli', 'unit_price', 'amount']
    WHEN 'invoice' THEN CASE WHEN OLD.data->>'status' = 'draft' THEN ARRAY[]::text[]
      ELSE ARRAY['number', 'kind', 'customer_id', 'currency', 'total', 'credits_id'] END
    ELSE ARRAY[]::text[] END;
  FOREACH k IN ARRAY keys LOOP
    IF (OLD.data->k) IS DISTINCT FROM (NEW.data->k) THEN
      RAISE EXCEPTION 'posted money is not changed: % % of shop % (% % -> %)',
        OLD.tbl, OLD.id, OLD.shop, k, OLD.data->k, NEW.data->k;
    END IF;
  END LOOP;
  RETURN NEW;
END $$;

CREATE TRIGGER hq_record_money BEFORE UPDATE OR DELETE ON hq_record
  FOR EACH ROW EXECUTE FUNCTION hq_money_guard();

-- hq_apply - apply one batch of shop p_shop: p_rows, a JSON array of
-- history rows of table p_tbl (each with his_id, the version, and id).
-- Returns how many records it changed: 0 when the batch (p_key) was applied
-- before. A record's newest version wins; an older one changes nothing.
-- p_totals: the shop's own figures when it sent the batch (kept for `hq
-- check`), with its time zone; p_shop_time its clock, p_waiting and
-- p_failed its batches still to send and failing.
CREATE FUNCTION hq_apply(p_shop text, p_tbl text, p_key text, p_rows jsonb, p_totals jsonb,
                         p_shop_time bigint, p_waiting int, p_failed int)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  n int := 0;
  lo bigint;
  hi bigint;
  cnt int;
BEGIN
  IF jsonb_typeof(p_rows) <> 'array' THEN
    RAISE EXCEPTION 'a batch is a JSON array';
  END IF;
  PERFORM 1 FROM hq_shop WHERE code = p_shop FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'shop % has not joined this head office', p_shop;
  END IF;
  UPDATE hq_shop SET last_batch_at = now(),
    last_shop_time = greatest(coalesce(last_shop_time, 0), p_shop_time),
    waiting = p_waiting, failed = p_failed,
    timezone = CASE WHEN p_totals->>'timezone' IS NULL
                      OR p_totals->>'timezone' = timezone THEN timezone
                    WHEN length(p_totals->>'timezone') BETWEEN 1 AND 64
                      AND p_totals->>'timezone' IN (SELECT name FROM pg_timezone_names)
                    THEN p_totals->>'timezone' ELSE timezone END
    WHERE code = p_shop;
  IF EXISTS (SELECT 1 FROM hq_batch WHERE shop = p_shop AND idem_key = p_key) THEN
    RETURN 0;
  END IF;
  SELECT min((r->>'his_id')::bigint), max((r->>'his_id')::bigint), count(*)
    INTO lo, hi, cnt FROM jsonb_array_elements(p_rows) r;
  WITH newest AS (
    SELECT DISTINCT ON ((r->>'id')::bigint) (r->>'id')::bigint AS id,
           (r->>'his_id')::bigint AS version, r - 'his_id' AS data
      FROM jsonb_array_elements(p_rows) r
     ORDER BY (r->>'id')::bigint, (r->>'his_id')::bigint DESC
  ), put AS (
    INSERT INTO hq_record (shop, tbl, id, version, data)
    SELECT p_shop, p_tbl, id, version, data FROM newest
    ON CONFLICT (shop, tbl, id) DO UPDATE
      SET version = excluded.version, data = excluded.data, received_at = now()
      WHERE hq_record.version < excluded.version
    RETURNING 1
  )
  SELECT count(*) INTO n FROM put;
  INSERT INTO hq_batch (shop, idem_key, tbl, first_version, last_version, rows, applied, totals)
    VALUES (p_shop, p_key, p_tbl, coalesce(lo, 0), coalesce(hi, 0), cnt, n, p_totals);
  IF hi IS NOT NULL THEN
    INSERT INTO hq_cursor (shop, tbl, version) VALUES (p_shop, p_tbl, hi)
      ON CONFLICT (shop, tbl) DO UPDATE SET version = greatest(hq_cursor.version, excluded.version);
  END IF;
  RETURN n;
END $$;

-- The records as typed rows, for the reports.
CREATE VIEW hq_customer AS
  SELECT shop, id, data->>'name' AS name, data->>'phone' AS phone, data->>'email' AS email,
         (data->>'created_at')::bigint AS created_at
    FROM hq_record WHERE tbl = 'customer';

CREATE VIEW hq_invoice AS
  SELECT shop, id, data->>'kind' AS kind, data->>'number' AS number,
         (data->>'customer_id')::bigint AS customer_id, data->>'currency' AS currency,
         (data->>'issued_at')::bigint AS issued_at, (data->>'due_at')::bigint AS due_at,
         (data->>'total')::bigint AS total, (data->>'credited')::bigint AS credited,
         (data->>'paid')::bigint AS paid, (data->>'balance')::bigint AS balance,
         data->>'status' AS status
    FROM hq_record WHERE tbl = 'invoice';

CREATE VIEW hq_payment AS
  SELECT shop, id, (data->>'customer_id')::bigint AS customer_id, data->>'method' AS method,
         (data->>'received_at')::bigint AS received_at, data->>'currency' AS currency,
         (data->>'amount')::bigint AS amount, (data->>'allocated')::bigint AS allocated,
         (data->>'refunded')::bigint AS refunded, data->>'status' AS status
    FROM hq_record WHERE tbl = 'payment';
