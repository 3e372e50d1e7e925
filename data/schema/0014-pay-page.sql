-- 0014-pay-page.sql
-- frontdesk-migration: destructive=0
--
-- The channel's payment page of a card payment order: the address the
-- customer opens (scans as a QR code at the desk) to pay it, as the channel
-- answered the command that created the order (a Stripe Checkout Session's
-- url, a WeChat Pay style Native code_url). NULL until the channel answers,
-- and for a channel that gives none (a bare payment intent). Set once, never
-- changed nor cleared afterwards (a trigger); at most 2048 bytes; only an
-- https:// or weixin:// address is kept (what a phone's camera opens), so
-- no other scheme (javascript:, file:, a bare path) ever reaches a QR code.
ALTER TABLE pay_order ADD COLUMN page_url TEXT
  CHECK (page_url IS NULL OR (length(CAST(page_url AS BLOB)) BETWEEN 9 AND 2048
    AND (substr(page_url, 1, 8) = 'https://' OR substr(page_url, 1, 9) = 'weixin://')));
CREATE TRIGGER pay_order_page_url_once BEFORE UPDATE OF page_url ON pay_order
WHEN OLD.page_url IS NOT NULL AND OLD.page_url IS NOT NEW.page_url
BEGIN
  SELECT RAISE(ABORT, 'the payment page of a channel order is never changed once known');
END;
