-- 0026-recurring.sql
-- frontdesk-migration: destructive=0
--
-- Work that repeats (src/recurring.c owns every table here): a recurring
-- job is a rule in iCalendar's RRULE form (RFC 5545, read and expanded by
-- libical, never by hand) with what each visit it makes holds: the
-- customer, a title, the time of day and length in the shop's zone, the
-- place, the line items with their agreed prices, and the resources.
--
-- The rule's dates are the shop's local dates (DTSTART is the date
-- first_day, a DATE value): the expansion gives days, and each day's visit
-- starts at start_minute of that local day, so a visit at 09:00 stays at
-- 09:00 across a change of daylight saving time.
--
-- Visits are made ahead, up to a horizon, by the task 'recurring' (key: the
-- rule's id), which the triggers below queue whenever a rule is added or
-- changed; recurring.c queues it again as the horizon moves. One
-- occurrence is one row of recurring_occurrence, keyed by (rule, day): the
-- day the rule gives, which is the event's RECURRENCE-ID in an iCalendar
-- export. The row and its visit are written in one transaction, so making
-- the visits twice, or after a crash, makes no visit twice. A made visit is
-- an ordinary visit; the desk may move or cancel it like any other, and the
-- occurrence keeps pointing at it (the export then writes the exception).
--
-- An occurrence's states:
--   made     its visit was booked on the day the rule gives;
--   moved    a resource was off or taken that day and the rule says 'move':
--            its visit was booked on a later day (before the next occurrence);
--   skipped  a resource was off or taken and the rule says 'skip' (or no later
--            day was free): no visit, reason says why;
--   dropped  the rule was stopped or changed from a date on: its visit (not
--            started) was cancelled.
--
-- Billing 'visit' books each visit on a job of its own with the rule's line
-- items (an invoice per visit, as a booking does). Billing 'month' links
-- the visits of one calendar month to one job (recurring_month) and adds a
-- visit's line items to it when the visit is done (billed_at), so the
-- month's invoice bills the visits done.
--
-- A rule is changed "from a date on" by splitting it: the old rule gets
-- last_day (the day before) and a new rule (split_from) takes over. A rule's
-- line items and resources never change (a new rule has its own).
--
-- Not destructive: new tables and triggers; nothing existing changes.

CREATE TABLE recurring_rule (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customer(id),
  title TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  -- the RRULE's value, as libical writes it ("FREQ=WEEKLY;INTERVAL=2;BYDAY=TU")
  rrule TEXT NOT NULL CHECK (length(rrule) BETWEEN 6 AND 400 AND rrule GLOB 'FREQ=*'),
  first_day TEXT NOT NULL
    CHECK (first_day GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]' AND date(first_day) = first_day),
  -- no occurrence after this day (a stop, a split); NULL: as the RRULE says
  last_day TEXT CHECK (last_day IS NULL OR (last_day GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]'
                                             AND date(last_day) = last_day)),
  start_minute INTEGER NOT NULL CHECK (start_minute BETWEEN 0 AND 1439),
  length_minutes INTEGER NOT NULL CHECK (length_minutes BETWEEN 1 AND 10080),
  location TEXT CHECK (location IS NULL OR length(location) <= 400),
  note TEXT CHECK (note IS NULL OR length(note) <= 2000),
  currency TEXT NOT NULL CHECK (length(currency) = 3 AND currency = upper(currency)),
  billing TEXT NOT NULL CHECK (billing IN ('visit', 'month')),
  when_off TEXT NOT NULL CHECK (when_off IN ('skip', 'move')),
  status TEXT NOT NULL CHECK (status IN ('active', 'stopped')),
  split_from INTEGER REFERENCES recurring_rule(id),
  -- occurrences are made up to and including this day ('': none yet)
  made_to TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX recurring_rule_by_customer ON recurring_rule(customer_id);
CREATE INDEX recurring_rule_active ON recurring_rule(made_to) WHERE status = 'active';

CREATE TABLE recurring_line (
  rule_id INTEGER NOT NULL REFERENCES recurring_rule(id),
  pos INTEGER NOT NULL CHECK (pos BETWEEN 0 AND 19),
  service_id INTEGER REFERENCES service(id),
  kind TEXT NOT NULL CHECK (kind IN ('SERVICE', 'FEE', 'DISCOUNT', 'TAX', 'CREDIT')),
  description TEXT NOT NULL CHECK (length(description) BETWEEN 1 AND 400),
  qty_milli INTEGER NOT NULL CHECK (typeof(qty_milli) = 'integer' AND qty_milli > 0),
  unit_price INTEGER NOT NULL CHECK (typeof(unit_price) = 'integer' AND unit_price >= 0),
  PRIMARY KEY (rule_id, pos)
) WITHOUT ROWID;

CREATE TABLE recurring_resource (
  rule_id INTEGER NOT NULL REFERENCES recurring_rule(id),
  resource_id INTEGER NOT NULL REFERENCES resource(id),
  PRIMARY KEY (rule_id, resource_id)
) WITHOUT ROWID;

CREATE TRIGGER recurring_line_no_update BEFORE UPDATE ON recurring_line
BEGIN
  SELECT RAISE(ABORT, 'a recurring job''s line items never change: change the rule from a date on');
END;
CREATE TRIGGER recurring_line_no_delete BEFORE DELETE ON recurring_line
BEGIN
  SELECT RAISE(ABORT, 'a recurring job''s line items are never deleted');
END;
CREATE TRIGGER recurring_resource_no_update BEFORE UPDATE ON recurring_resource
BEGIN
  SELECT RAISE(ABORT, 'a recurring job''s resources never change: change the rule from a date on');
END;
CREATE TRIGGER recurring_resource_no_delete BEFORE DELETE ON recurring_resource
BEGIN
  SELECT RAISE(ABORT, 'a recurring job''s resources are never deleted');
END;

CREATE TABLE recurring_occurrence (
  rule_id INTEGER NOT NULL REFERENCES recurring_rule(id),
  day TEXT NOT NULL
    CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]' AND date(day) = day),
  state TEXT NOT NULL CHECK (state IN ('made', 'moved', 'skipped', 'dropped')),
  appointment_id INTEGER UNIQUE REFERENCES appointment(id),
  reason TEXT CHECK (reason IS NULL OR length(reason) <= 400),
  -- billing 'month': when the visit's line items were added to the month's job
  billed_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (rule_id, day),
  CHECK ((state IN ('made', 'moved')) = (appointment_id IS NOT NULL) OR state = 'dropped')
);
CREATE TRIGGER recurring_occurrence_no_delete BEFORE DELETE ON recurring_occurrence
BEGIN
  SELECT RAISE(ABORT, 'an occurrence of a recurring job is never deleted');
END;
CREATE TRIGGER recurring_occurrence_keeps_visit BEFORE UPDATE OF appointment_id ON recurring_occurrence
WHEN OLD.appointment_id IS NOT NULL AND NEW.appointment_id IS NOT OLD.appointment_id
BEGIN
  SELECT RAISE(ABORT, 'an occurrence never changes its visit');
END;

-- billing 'month': the job of each calendar month ('YYYY-MM', shop time)
CREATE TABLE recurring_month (
  rule_id INTEGER NOT NULL REFERENCES recurring_rule(id),
  month TEXT NOT NULL CHECK (month GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]'),
  job_id INTEGER NOT NULL UNIQUE REFERENCES service_order(id),
  PRIMARY KEY (rule_id, month)
) WITHOUT ROWID;

CREATE TRIGGER recurring_rule_task_ins AFTER INSERT ON recurring_rule
WHEN NEW.status = 'active'
BEGIN
  INSERT INTO task (kind, key) VALUES ('recurring', NEW.id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER recurring_rule_task_upd AFTER UPDATE OF rrule, first_day, last_day, start_minute,
  length_minutes, location, note, when_off, status ON recurring_rule
WHEN NEW.status = 'active'
BEGIN
  INSERT INTO task (kind, key) VALUES ('recurring', NEW.id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER recurring_rule_no_delete BEFORE DELETE ON recurring_rule
BEGIN
  SELECT RAISE(ABORT, 'a recurring job is stopped, never deleted');
END;

CREATE TABLE recurring_rule_his (
  his_id INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  customer_id INTEGER,
  title TEXT,
  rrule TEXT,
  first_day TEXT,
  last_day TEXT,
  start_minute INTEGER,
  length_minutes INTEGER,
  location TEXT,
  note TEXT,
  billing TEXT,
  when_off TEXT,
  status TEXT,
  split_from INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX recurring_rule_his_by_id ON recurring_rule_his(id);
CREATE TRIGGER recurring_rule_his_ins AFTER INSERT ON recurring_rule
BEGIN
  INSERT INTO recurring_rule_his (id, customer_id, title, rrule, first_day, last_day, start_minute,
    length_minutes, location, note, billing, when_off, status, split_from, operator_id,
    operate_type, operate_at)
  VALUES (NEW.id, NEW.customer_id, NEW.title, NEW.rrule, NEW.first_day, NEW.last_day,
    NEW.start_minute, NEW.length_minutes, NEW.location, NEW.note, NEW.billing, NEW.when_off,
    NEW.status, NEW.split_from, fd_operator(), 1, fd_now());
END;
-- made_to alone is the task's progress, not a change anyone made
CREATE TRIGGER recurring_rule_his_upd AFTER UPDATE OF customer_id, title, rrule, first_day,
  last_day, start_minute, length_minutes, location, note, billing, when_off, status,
  split_from ON recurring_rule
BEGIN
  INSERT INTO recurring_rule_his (id, customer_id, title, rrule, first_day, last_day, start_minute,
    length_minutes, location, note, billing, when_off, status, split_from, operator_id,
    operate_type, operate_at)
  VALUES (NEW.id, NEW.customer_id, NEW.title, NEW.rrule, NEW.first_day, NEW.last_day,
    NEW.start_minute, NEW.length_minutes, NEW.location, NEW.note, NEW.billing, NEW.when_off,
    NEW.status, NEW.split_from, fd_operator(), 3, fd_now());
END;
-- a purge (retention) blanks the personal text (title, location, note) of a
-- purged customer's rules, here too; nothing else ever changes
CREATE TRIGGER recurring_rule_his_no_update BEFORE UPDATE ON recurring_rule_his
WHEN NOT EXISTS (SELECT 1 FROM retention_purging) OR NEW.his_id IS NOT OLD.his_id OR NEW.id IS NOT OLD.id
  OR NEW.customer_id IS NOT OLD.customer_id OR NEW.rrule IS NOT OLD.rrule
  OR NEW.first_day IS NOT OLD.first_day OR NEW.last_day IS NOT OLD.last_day
  OR NEW.start_minute IS NOT OLD.start_minute OR NEW.length_minutes IS NOT OLD.length_minutes
  OR NEW.billing IS NOT OLD.billing OR NEW.when_off IS NOT OLD.when_off OR NEW.status IS NOT OLD.status
  OR NEW.split_from IS NOT OLD.split_from OR NEW.operator_id IS NOT OLD.operator_id
  OR NEW.operate_type IS NOT OLD.operate_type OR NEW.operate_at IS NOT OLD.operate_at
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER recurring_rule_his_no_delete BEFORE DELETE ON recurring_rule_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;

CREATE TABLE recurring_occurrence_his (
  his_id INTEGER PRIMARY KEY,
  rule_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  state TEXT,
  appointment_id INTEGER,
  reason TEXT,
  billed_at INTEGER,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX recurring_occurrence_his_by_rule ON recurring_occurrence_his(rule_id, day);
CREATE TRIGGER recurring_occurrence_his_ins AFTER INSERT ON recurring_occurrence
BEGIN
  INSERT INTO recurring_occurrence_his (rule_id, day, state, appointment_id, reason, billed_at,
    operator_id, operate_type, operate_at)
  VALUES (NEW.rule_id, NEW.day, NEW.state, NEW.appointment_id, NEW.reason, NEW.billed_at,
    fd_operator(), 1, fd_now());
END;
CREATE TRIGGER recurring_occurrence_his_upd AFTER UPDATE ON recurring_occurrence
BEGIN
  INSERT INTO recurring_occurrence_his (rule_id, day, state, appointment_id, reason, billed_at,
    operator_id, operate_type, operate_at)
  VALUES (NEW.rule_id, NEW.day, NEW.state, NEW.appointment_id, NEW.reason, NEW.billed_at,
    fd_operator(), 3, fd_now());
END;
CREATE TRIGGER recurring_occurrence_his_no_update BEFORE UPDATE ON recurring_occurrence_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER recurring_occurrence_his_no_delete BEFORE DELETE ON recurring_occurrence_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;
