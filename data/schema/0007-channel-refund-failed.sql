-- 0007-channel-refund-failed.sql
-- frontdesk-migration: destructive=0
--
-- A refund asked of the payment channel can fail there (the card was
-- closed, the channel gave up). Until now the order then stayed
-- 'refunding' for good and the failed refund still counted as asked for,
-- so that amount could never be refunded again. Now:
--  - pay_order_refund_failed keeps each refund the channel reported failed
--    or canceled, once (UNIQUE per order and channel refund id), with
--    whether we asked for it (an outbox command of ours got it as its
--    answer); its rows are never changed or deleted, and they are their own
--    history (who and when are columns);
--  - what counts as asked for on an order no longer includes the failed
--    refunds that we asked for (src/outbox.c, outbox_refund_asked);
--  - a refunding order with nothing refunded and nothing still asked for
--    goes back to 'paid' (the new status_transition row below);
--  - an inbound event that died says why (dead_kind): 'transient' when the
--    channel or the database kept failing until the attempts ran out,
--    'refused' when what the channel said was refused (it disagrees with
--    our order, names nothing of ours, or the core refused to post it).
--    `frontdesk check` reports a refused one until a person decides: money
--    that moved at the channel and not in our books is never silent.

CREATE TABLE pay_order_refund_failed (
  id INTEGER PRIMARY KEY,
  order_id INTEGER NOT NULL REFERENCES pay_order(id),
  channel_refund_id TEXT NOT NULL CHECK (length(channel_refund_id) BETWEEN 1 AND 255),
  amount INTEGER NOT NULL CHECK (amount > 0 AND amount <= 100000000000000),
  status TEXT NOT NULL CHECK (status = 'failed' OR status = 'canceled'),
  asked_by_us INTEGER NOT NULL CHECK (asked_by_us IN (0, 1)),
  reason TEXT CHECK (reason IS NULL OR length(reason) <= 1000),
  operator_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (order_id, channel_refund_id)
);
CREATE TRIGGER pay_order_refund_failed_no_update BEFORE UPDATE ON pay_order_refund_failed
BEGIN
  SELECT RAISE(ABORT, 'a failed channel refund is never changed');
END;
CREATE TRIGGER pay_order_refund_failed_no_delete BEFORE DELETE ON pay_order_refund_failed
BEGIN
  SELECT RAISE(ABORT, 'a failed channel refund is never deleted');
END;

INSERT INTO status_transition (entity, from_status, to_status) VALUES
  ('pay_order', 'refunding', 'paid');

ALTER TABLE inbound_callback ADD COLUMN dead_kind TEXT
  CHECK (dead_kind IS NULL OR dead_kind = 'transient' OR dead_kind = 'refused');
