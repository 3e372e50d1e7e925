-- 0024-drawer.sql
-- frontdesk-migration: destructive=0
--
-- Closing the day (src/drawer.c): cash drawers counted against what the
-- books expect, and closed days that stay closed.
--
-- A drawer session (drawer) is opened at a desk with a float by a named
-- person; while it is open, the cash that desk takes (a cash payment), gives
-- back (a cash refund) or pays out (a paid-out: a cash expense with a reason,
-- which never touches an invoice) is a row of drawer_movement, written in the
-- same transaction as the money it follows. A cash payment voided while its
-- drawer is open takes its amount out again (kind 'void'). The session is
-- closed by its count (drawer_close, one row, written once): what was
-- counted, what was expected (the float plus the movements), and the
-- difference (over when positive, short when negative) with the counter's
-- reason. Nothing here is ever updated or deleted (but drawer_open, the
-- list of the sessions open now, which its triggers keep).
--
-- A shop day (day_close) is closed by a 'close' row and opened again by a
-- 'reopen' row (with a reason); the last row of a day says whether it is
-- closed. Each row keeps the day's UTC window [starts_at, ends_at) as the
-- shop's zone made it, so the triggers below can test a time against it (the
-- newest row starting at or before the time, one seek of day_close_by_start,
-- is its day's last row when the time lies before its end), and
-- a close keeps the day's figures at that moment (JSON, drawer.c) so that a
-- second close shows what changed. Into a closed day nothing is posted: no
-- payment received then, no refund, no void of a payment received then or
-- made then, no credit note, no drawer opened or moved. The channel's card
-- money is the channel's (reconciled against its settlement data, not a
-- drawer), so card payments and refunds are not refused here: a card payment
-- the provider confirms after the close must never be lost.
--
-- Not destructive: new tables and triggers; nothing existing changes.

CREATE TABLE drawer (
  id INTEGER PRIMARY KEY,
  desk TEXT NOT NULL CHECK (length(desk) BETWEEN 1 AND 32 AND desk NOT GLOB '*[^!-~]*'),
  currency TEXT NOT NULL CHECK (length(currency) = 3 AND currency = upper(currency)),
  float_amount INTEGER NOT NULL CHECK (typeof(float_amount) = 'integer' AND float_amount >= 0
                                       AND float_amount <= 100000000000000),
  -- the float by denomination, "2000x5,500x10" (minor units x count); NULL:
  -- given as a total
  float_detail TEXT CHECK (float_detail IS NULL OR length(float_detail) BETWEEN 1 AND 1000),
  opened_by TEXT NOT NULL CHECK (length(opened_by) BETWEEN 1 AND 32),
  opened_at INTEGER NOT NULL
);
CREATE INDEX drawer_by_desk ON drawer(desk, id);
CREATE INDEX drawer_by_opened ON drawer(opened_at);

-- The sessions open now, one row each: made when a session opens and taken
-- away by its count, both by the triggers below and by nothing else. The
-- desk reads it on every cash payment, so that what it reads does not grow
-- with the years of sessions behind it; a desk has one open session.
CREATE TABLE drawer_open (
  drawer_id INTEGER PRIMARY KEY REFERENCES drawer(id),
  desk TEXT NOT NULL UNIQUE,
  opened_by TEXT NOT NULL
);

CREATE TABLE drawer_close (
  drawer_id INTEGER PRIMARY KEY REFERENCES drawer(id),
  counted INTEGER NOT NULL CHECK (typeof(counted) = 'integer' AND counted >= 0
                                  AND counted <= 100000000000000),
  count_detail TEXT CHECK (count_detail IS NULL OR length(count_detail) BETWEEN 1 AND 1000),
  expected INTEGER NOT NULL CHECK (typeof(expected) = 'integer'),
  difference INTEGER NOT NULL CHECK (difference = counted - expected),
  reason TEXT CHECK (reason IS NULL OR length(reason) BETWEEN 1 AND 400),
  closed_by TEXT NOT NULL CHECK (length(closed_by) BETWEEN 1 AND 32),
  closed_at INTEGER NOT NULL,
  -- over or short is written down with why
  CHECK (difference = 0 OR reason IS NOT NULL)
);
CREATE INDEX drawer_close_by_closed ON drawer_close(closed_at);

CREATE TABLE drawer_movement (
  id INTEGER PRIMARY KEY,
  drawer_id INTEGER NOT NULL REFERENCES drawer(id),
  kind TEXT NOT NULL CHECK (kind = 'payment' OR kind = 'refund' OR kind = 'void' OR kind = 'payout'),
  payment_id INTEGER REFERENCES payment(id),
  refund_id INTEGER REFERENCES refund(id),
  -- signed: cash in is positive, cash out negative
  amount INTEGER NOT NULL CHECK (typeof(amount) = 'integer' AND amount <> 0
                                 AND abs(amount) <= 100000000000000),
  reason TEXT CHECK (reason IS NULL OR length(reason) BETWEEN 1 AND 400),
  by_login TEXT NOT NULL CHECK (length(by_login) BETWEEN 1 AND 32),
  at INTEGER NOT NULL,
  CHECK (CASE kind
    WHEN 'payment' THEN payment_id IS NOT NULL AND refund_id IS NULL AND amount > 0
    WHEN 'void' THEN payment_id IS NOT NULL AND refund_id IS NULL AND amount < 0
    WHEN 'refund' THEN refund_id IS NOT NULL AND payment_id IS NULL AND amount < 0
    ELSE payment_id IS NULL AND refund_id IS NULL AND amount < 0 AND reason IS NOT NULL END)
);
CREATE INDEX drawer_movement_by_drawer ON drawer_movement(drawer_id);
CREATE INDEX drawer_movement_by_at ON drawer_movement(at);
-- a payment enters one drawer once and leaves it (void) once; a refund once
CREATE UNIQUE INDEX drawer_movement_payment ON drawer_movement(payment_id, kind)
  WHERE payment_id IS NOT NULL;
CREATE UNIQUE INDEX drawer_movement_refund ON drawer_movement(refund_id)
  WHERE refund_id IS NOT NULL;

CREATE TABLE day_close (
  id INTEGER PRIMARY KEY,
  day TEXT NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'),
  kind TEXT NOT NULL CHECK (kind = 'close' OR kind = 'reopen'),
  starts_at INTEGER NOT NULL,
  ends_at INTEGER NOT NULL,
  by_login TEXT NOT NULL CHECK (length(by_login) BETWEEN 1 AND 32),
  reason TEXT CHECK (reason IS NULL OR length(reason) BETWEEN 1 AND 400),
  figures TEXT CHECK (figures IS NULL OR json_valid(figures)),
  at INTEGER NOT NULL,
  CHECK (ends_at > starts_at),
  CHECK (kind = 'close' OR (reason IS NOT NULL AND figures IS NULL))
);
CREATE INDEX day_close_by_day ON day_close(day, id);
CREATE INDEX day_close_by_start ON day_close(starts_at, id);

-- the day's figures (dayclose.c) read the voids and credit notes of a day
-- through these small indexes, never the whole history
CREATE INDEX status_flow_void_at ON status_flow(at) WHERE to_status = 'void';
CREATE INDEX invoice_credit_note_issued ON invoice(issued_at) WHERE kind = 'credit_note';

-- ------------------------------------------------------------ immutability

CREATE TRIGGER drawer_no_update BEFORE UPDATE ON drawer
BEGIN
  SELECT RAISE(ABORT, 'a drawer session is never edited: close it with its count');
END;
CREATE TRIGGER drawer_no_delete BEFORE DELETE ON drawer
BEGIN
  SELECT RAISE(ABORT, 'a drawer session is never deleted');
END;
CREATE TRIGGER drawer_close_no_update BEFORE UPDATE ON drawer_close
BEGIN
  SELECT RAISE(ABORT, 'a drawer''s count is never edited');
END;
CREATE TRIGGER drawer_close_no_delete BEFORE DELETE ON drawer_close
BEGIN
  SELECT RAISE(ABORT, 'a drawer''s count is never deleted');
END;
CREATE TRIGGER drawer_movement_no_update BEFORE UPDATE ON drawer_movement
BEGIN
  SELECT RAISE(ABORT, 'a drawer''s movement is never edited');
END;
CREATE TRIGGER drawer_movement_no_delete BEFORE DELETE ON drawer_movement
BEGIN
  SELECT RAISE(ABORT, 'a drawer''s movement is never deleted');
END;
CREATE TRIGGER day_close_no_update BEFORE UPDATE ON day_close
BEGIN
  SELECT RAISE(ABORT, 'a day''s close is never edited: reopen the day');
END;
CREATE TRIGGER day_close_no_delete BEFORE DELETE ON day_close
BEGIN
  SELECT RAISE(ABORT, 'a day''s close is never deleted: reopen the day');
END;

-- ------------------------------------------------------------ drawers

-- one open session per desk; a session opened outside a closed day
CREATE TRIGGER drawer_open_rules BEFORE INSERT ON drawer
BEGIN
  SELECT RAISE(ABORT, 'this desk''s drawer is already open')
  WHERE EXISTS (SELECT 1 FROM drawer_open o WHERE o.desk = NEW.desk);
  SELECT RAISE(ABORT, 'the day is closed')
  WHERE (SELECT kind = 'close' AND ends_at > NEW.opened_at FROM day_close WHERE starts_at <= NEW.opened_at
       ORDER BY starts_at DESC, id DESC LIMIT 1);
END;

CREATE TRIGGER drawer_open_add AFTER INSERT ON drawer
BEGIN
  INSERT INTO drawer_open (drawer_id, desk, opened_by) VALUES (NEW.id, NEW.desk, NEW.opened_by);
END;
CREATE TRIGGER drawer_open_remove AFTER INSERT ON drawer_close
BEGIN
  DELETE FROM drawer_open WHERE drawer_id = NEW.drawer_id;
END;
CREATE TRIGGER drawer_open_ins_guard BEFORE INSERT ON drawer_open
WHEN NOT EXISTS (SELECT 1 FROM drawer d WHERE d.id = NEW.drawer_id AND d.desk = NEW.desk
                 AND d.opened_by = NEW.opened_by)
  OR EXISTS (SELECT 1 FROM drawer_close c WHERE c.drawer_id = NEW.drawer_id)
BEGIN
  SELECT RAISE(ABORT, 'a drawer is open from its opening to its count');
END;
CREATE TRIGGER drawer_open_no_update BEFORE UPDATE ON drawer_open
BEGIN
  SELECT RAISE(ABORT, 'a drawer is open from its opening to its count');
END;
CREATE TRIGGER drawer_open_del_guard BEFORE DELETE ON drawer_open
WHEN NOT EXISTS (SELECT 1 FROM drawer_close c WHERE c.drawer_id = OLD.drawer_id)
BEGIN
  SELECT RAISE(ABORT, 'a drawer is open from its opening to its count');
END;

CREATE TRIGGER drawer_close_rules BEFORE INSERT ON drawer_close
BEGIN
  SELECT RAISE(ABORT, 'the drawer was already counted')
  WHERE NOT EXISTS (SELECT 1 FROM drawer_open o WHERE o.drawer_id = NEW.drawer_id);
  SELECT RAISE(ABORT, 'a drawer''s expected cash is its float plus its movements')
  WHERE NEW.expected IS NOT (SELECT d.float_amount + coalesce(
      (SELECT sum(m.amount) FROM drawer_movement m WHERE m.drawer_id = d.id), 0)
    FROM drawer d WHERE d.id = NEW.drawer_id);
END;

CREATE TRIGGER drawer_movement_rules BEFORE INSERT ON drawer_movement
BEGIN
  SELECT RAISE(ABORT, 'the drawer is closed')
  WHERE NOT EXISTS (SELECT 1 FROM drawer_open o WHERE o.drawer_id = NEW.drawer_id);
  SELECT RAISE(ABORT, 'a drawer holds cash of its own currency only')
  WHERE (NEW.payment_id IS NOT NULL AND NOT EXISTS (
           SELECT 1 FROM payment p JOIN drawer d ON d.id = NEW.drawer_id
           WHERE p.id = NEW.payment_id AND p.method = 'cash' AND p.currency = d.currency
             AND p.amount = abs(NEW.amount)))
     OR (NEW.refund_id IS NOT NULL AND NOT EXISTS (
           SELECT 1 FROM refund r JOIN payment p ON p.id = r.payment_id
           JOIN drawer d ON d.id = NEW.drawer_id
           WHERE r.id = NEW.refund_id AND r.method = 'cash' AND p.currency = d.currency
             AND r.amount = -NEW.amount));
  SELECT RAISE(ABORT, 'the day is closed')
  WHERE (SELECT kind = 'close' AND ends_at > NEW.at FROM day_close WHERE starts_at <= NEW.at
       ORDER BY starts_at DESC, id DESC LIMIT 1);
END;

-- ------------------------------------------------------------ closed days

-- a day's rows alternate: close, reopen, close, ...
CREATE TRIGGER day_close_alternates BEFORE INSERT ON day_close
BEGIN
  SELECT RAISE(ABORT, 'the day is already closed')
  WHERE NEW.kind = 'close' AND (SELECT kind FROM day_close WHERE day = NEW.day
                                ORDER BY id DESC LIMIT 1) IS 'close';
  SELECT RAISE(ABORT, 'the day is not closed')
  WHERE NEW.kind = 'reopen' AND (SELECT kind FROM day_close WHERE day = NEW.day
                                 ORDER BY id DESC LIMIT 1) IS NOT 'close';
END;

CREATE TRIGGER payment_into_closed_day BEFORE INSERT ON payment
WHEN NEW.method <> 'card'
  AND (SELECT kind = 'close' AND ends_at > NEW.received_at FROM day_close WHERE starts_at <= NEW.received_at
       ORDER BY starts_at DESC, id DESC LIMIT 1)
BEGIN
  SELECT RAISE(ABORT, 'the day is closed: a payment is not dated into it');
END;

CREATE TRIGGER refund_into_closed_day BEFORE INSERT ON refund
WHEN NEW.method <> 'card'
  AND (SELECT kind = 'close' AND ends_at > NEW.refunded_at FROM day_close WHERE starts_at <= NEW.refunded_at
       ORDER BY starts_at DESC, id DESC LIMIT 1)
BEGIN
  SELECT RAISE(ABORT, 'the day is closed: no refund is posted into it');
END;

CREATE TRIGGER payment_void_closed_day BEFORE UPDATE OF status ON payment
WHEN NEW.status = 'void' AND OLD.status <> 'void' AND OLD.method <> 'card'
  AND ((SELECT kind = 'close' AND ends_at > OLD.received_at FROM day_close WHERE starts_at <= OLD.received_at
       ORDER BY starts_at DESC, id DESC LIMIT 1)
    OR (SELECT kind = 'close' AND ends_at > NEW.updated_at FROM day_close WHERE starts_at <= NEW.updated_at
       ORDER BY starts_at DESC, id DESC LIMIT 1))
BEGIN
  SELECT RAISE(ABORT, 'the day is closed: the payment is not voided into it');
END;

CREATE TRIGGER payment_void_counted_drawer BEFORE UPDATE OF status ON payment
WHEN NEW.status = 'void' AND OLD.status <> 'void' AND EXISTS (
  SELECT 1 FROM drawer_movement m JOIN drawer_close c ON c.drawer_id = m.drawer_id
  WHERE m.payment_id = OLD.id AND m.kind = 'payment')
BEGIN
  SELECT RAISE(ABORT, 'the payment''s drawer was counted: it is not voided');
END;

CREATE TRIGGER invoice_void_closed_day BEFORE UPDATE OF status ON invoice
WHEN NEW.status = 'void' AND OLD.status <> 'void'
  AND (SELECT kind = 'close' AND ends_at > NEW.updated_at FROM day_close WHERE starts_at <= NEW.updated_at
       ORDER BY starts_at DESC, id DESC LIMIT 1)
BEGIN
  SELECT RAISE(ABORT, 'the day is closed: no invoice is voided in it');
END;

CREATE TRIGGER credit_note_closed_day BEFORE UPDATE OF status ON invoice
WHEN NEW.kind = 'credit_note' AND OLD.status = 'draft' AND NEW.status = 'issued'
  AND (SELECT kind = 'close' AND ends_at > NEW.issued_at FROM day_close WHERE starts_at <= NEW.issued_at
       ORDER BY starts_at DESC, id DESC LIMIT 1)
BEGIN
  SELECT RAISE(ABORT, 'the day is closed: no credit note is issued into it');
END;
