-- 0019-booking-channel.sql
-- frontdesk-migration: destructive=0
--
-- Online booking channels (src/booking-chan.c):
--  - booking_request: one per (provider, the channel's request id): the
--    slot asked for (UTC), the service and resource as the channel named
--    them, the customer as the channel gave them, the visit it created, and
--    the state, which moves one way only along status_transition
--    ('booking_request' rows):
--      received -> confirmed | rejected | cancelled;
--      confirmed -> cancelled | done | no_show;
--    every change is a status_flow row; reason says why it was rejected or
--    cancelled. A cancellation that arrives before its request makes the
--    row cancelled with no visit: the request arriving later books nothing;
--  - availability_push: the free slots of one resource and day sent to a
--    provider, with a version per (provider, resource, day) that only grows
--    (a trigger refuses a smaller or equal one) and the outbox command that
--    carries it.
-- Nothing existing is changed: not destructive.

CREATE TABLE booking_request (
  id INTEGER PRIMARY KEY,
  provider_code TEXT NOT NULL CHECK (length(provider_code) BETWEEN 1 AND 40),
  request_id TEXT NOT NULL CHECK (length(request_id) BETWEEN 1 AND 255),
  start_at INTEGER,
  end_at INTEGER CHECK (end_at IS NULL OR end_at > start_at),
  service TEXT CHECK (service IS NULL OR length(service) <= 200),
  resource TEXT CHECK (resource IS NULL OR length(resource) <= 200),
  customer_name TEXT CHECK (customer_name IS NULL OR length(customer_name) <= 200),
  customer_phone TEXT CHECK (customer_phone IS NULL OR length(customer_phone) <= 60),
  customer_email TEXT CHECK (customer_email IS NULL OR length(customer_email) <= 200),
  appointment_id INTEGER REFERENCES appointment(id),
  status TEXT NOT NULL CHECK (status IN ('received', 'confirmed', 'rejected', 'cancelled',
    'done', 'no_show')),
  reason TEXT CHECK (reason IS NULL OR length(reason) <= 1000),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (provider_code, request_id)
);
CREATE INDEX booking_request_by_visit ON booking_request(appointment_id)
  WHERE appointment_id IS NOT NULL;
CREATE TRIGGER booking_request_fixed BEFORE UPDATE OF provider_code, request_id, created_at
  ON booking_request
WHEN OLD.provider_code IS NOT NEW.provider_code OR OLD.request_id IS NOT NEW.request_id
  OR OLD.created_at IS NOT NEW.created_at
BEGIN
  SELECT RAISE(ABORT, 'a booking request keeps its provider and id');
END;
CREATE TRIGGER booking_request_visit_once BEFORE UPDATE OF appointment_id ON booking_request
WHEN OLD.appointment_id IS NOT NULL AND OLD.appointment_id IS NOT NEW.appointment_id
BEGIN
  SELECT RAISE(ABORT, 'a booking request keeps the visit it created');
END;
CREATE TRIGGER booking_request_no_delete BEFORE DELETE ON booking_request
BEGIN
  SELECT RAISE(ABORT, 'booking requests are never deleted');
END;
CREATE TRIGGER booking_request_status_legal BEFORE UPDATE OF status ON booking_request
WHEN OLD.status <> NEW.status AND NOT EXISTS (
  SELECT 1 FROM status_transition
  WHERE entity = 'booking_request' AND from_status = OLD.status AND to_status = NEW.status)
BEGIN
  SELECT RAISE(ABORT, 'illegal booking request status change');
END;
CREATE TRIGGER booking_request_status_flow_ins AFTER INSERT ON booking_request
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('booking_request', NEW.id, NULL, NEW.status, fd_reason(), fd_operator(), fd_now());
END;
CREATE TRIGGER booking_request_status_flow_upd AFTER UPDATE OF status ON booking_request
WHEN OLD.status <> NEW.status
BEGIN
  INSERT INTO status_flow (entity, entity_id, from_status, to_status, reason, operator_id, at)
  VALUES ('booking_request', NEW.id, OLD.status, NEW.status, fd_reason(), fd_operator(), fd_now());
END;

INSERT INTO status_transition (entity, from_status, to_status) VALUES
  ('booking_request', 'received', 'confirmed'), ('booking_request', 'received', 'rejected'),
  ('booking_request', 'received', 'cancelled'),
  ('booking_request', 'confirmed', 'cancelled'), ('booking_request', 'confirmed', 'done'),
  ('booking_request', 'confirmed', 'no_show');

CREATE TABLE availability_push (
  id INTEGER PRIMARY KEY,
  provider_code TEXT NOT NULL CHECK (length(provider_code) BETWEEN 1 AND 40),
  resource_id INTEGER NOT NULL REFERENCES resource(id),
  day TEXT NOT NULL CHECK (length(day) = 10),
  version INTEGER NOT NULL CHECK (version >= 1),
  outbox_id INTEGER REFERENCES outbox_event(id),
  created_at INTEGER NOT NULL,
  UNIQUE (provider_code, resource_id, day, version)
);
CREATE TRIGGER availability_push_grows BEFORE INSERT ON availability_push
WHEN NEW.version <= coalesce((SELECT max(version) FROM availability_push
  WHERE provider_code = NEW.provider_code AND resource_id = NEW.resource_id
  AND day = NEW.day), 0)
BEGIN
  SELECT RAISE(ABORT, 'an availability version only grows');
END;
CREATE TRIGGER availability_push_fixed BEFORE UPDATE ON availability_push
WHEN OLD.outbox_id IS NOT NULL OR NEW.provider_code IS NOT OLD.provider_code
  OR NEW.resource_id IS NOT OLD.resource_id OR NEW.day IS NOT OLD.day
  OR NEW.version IS NOT OLD.version
BEGIN
  SELECT RAISE(ABORT, 'an availability push is never changed');
END;
CREATE TRIGGER availability_push_no_delete BEFORE DELETE ON availability_push
BEGIN
  SELECT RAISE(ABORT, 'availability pushes are never deleted');
END;
