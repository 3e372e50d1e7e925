-- 0006-channel-indexes.sql
-- frontdesk-migration: destructive=0
--
-- Indexes for what the desk asks about card payment orders and the outbox:
-- the card orders of an invoice (the invoice pane, and the open orders that
-- `channel charge` counts against what the invoice owes), the order of a
-- payment (the refund form, `frontdesk check`), and the outbox commands
-- given up (the dead letters on the status line and in their view). Each
-- was a scan of its table.

CREATE INDEX pay_order_by_invoice ON pay_order(invoice_id) WHERE invoice_id IS NOT NULL;
CREATE INDEX pay_order_by_payment ON pay_order(payment_id) WHERE payment_id IS NOT NULL;
CREATE INDEX outbox_event_dead ON outbox_event(id) WHERE status = 'dead';
