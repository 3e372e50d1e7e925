-- 0009-pipeline-type.sql
-- frontdesk-migration: destructive=0
--
-- The pipeline's rows say which integration type they serve, like the
-- provider registry (0008): inbound_callback.integration_type and
-- outbox_event.integration_type are 'payment', 'booking' or 'esign'
-- (every row stored before this migration is a payment channel's:
-- 'payment'). The writer sets it from its provider's registry type; the
-- worker hands each row only to the processing of its type, so a booking
-- or e-sign adapter reads its own rows and never a payment's. Like the
-- rest of a stored event or command, the type never changes. The outbox's
-- history rows keep it too.
--
-- ALTER TABLE ADD COLUMN keeps every row and id; nothing is lost: not
-- destructive.

ALTER TABLE inbound_callback ADD COLUMN integration_type TEXT NOT NULL DEFAULT 'payment'
  CHECK (integration_type IN ('payment', 'booking', 'esign'));
ALTER TABLE outbox_event ADD COLUMN integration_type TEXT NOT NULL DEFAULT 'payment'
  CHECK (integration_type IN ('payment', 'booking', 'esign'));

CREATE TRIGGER inbound_callback_type_fixed BEFORE UPDATE OF integration_type ON inbound_callback
WHEN OLD.integration_type IS NOT NEW.integration_type
BEGIN
  SELECT RAISE(ABORT, 'a stored inbound event is never changed');
END;
CREATE TRIGGER outbox_event_type_fixed BEFORE UPDATE OF integration_type ON outbox_event
WHEN OLD.integration_type IS NOT NEW.integration_type
BEGIN
  SELECT RAISE(ABORT, 'an outbox command is never changed');
END;

ALTER TABLE outbox_event_his ADD COLUMN integration_type TEXT;
DROP TRIGGER outbox_event_his_ins;
DROP TRIGGER outbox_event_his_upd;
CREATE TRIGGER outbox_event_his_ins AFTER INSERT ON outbox_event
BEGIN
  INSERT INTO outbox_event_his (id, event_type, business_key, provider_code, idempotency_key,
    payload, status, retry_count, next_retry_at, last_error, created_at, updated_at, sent_at,
    integration_type, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.event_type, NEW.business_key, NEW.provider_code, NEW.idempotency_key,
    NEW.payload, NEW.status, NEW.retry_count, NEW.next_retry_at, NEW.last_error,
    NEW.created_at, NEW.updated_at, NEW.sent_at, NEW.integration_type, fd_operator(), 1,
    fd_now());
END;
CREATE TRIGGER outbox_event_his_upd AFTER UPDATE ON outbox_event
BEGIN
  INSERT INTO outbox_event_his (id, event_type, business_key, provider_code, idempotency_key,
    payload, status, retry_count, next_retry_at, last_error, created_at, updated_at, sent_at,
    integration_type, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.event_type, NEW.business_key, NEW.provider_code, NEW.idempotency_key,
    NEW.payload, NEW.status, NEW.retry_count, NEW.next_retry_at, NEW.last_error,
    NEW.created_at, NEW.updated_at, NEW.sent_at, NEW.integration_type, fd_operator(), 3,
    fd_now());
END;
