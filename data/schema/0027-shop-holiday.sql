-- 0027-shop-holiday.sql
-- frontdesk-migration: destructive=0
--
-- The shop's closed days (src/capacity.c): a public holiday, a stocktake,
-- the owner's wedding. On a closed day no resource works (its weekday hours
-- do not apply), unless that resource has a day of its own then
-- (resource_exception: someone who works the holiday), so a booking that
-- holds resources is refused and the free slots are none; a recurring job
-- skips or moves its visit of that day as its rule says, resources or not.
-- A booking without resources is still the desk's choice.
--
-- One row per local date (YYYY-MM-DD); removed by DELETE, kept in the
-- history with who did it and when.
--
-- Not destructive: a new table and its history.

CREATE TABLE shop_holiday (
  day TEXT PRIMARY KEY
    CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]' AND date(day) = day),
  reason TEXT CHECK (reason IS NULL OR length(reason) <= 400),
  created_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE shop_holiday_his (
  his_id INTEGER PRIMARY KEY,
  day TEXT NOT NULL,
  reason TEXT,
  operator_id TEXT NOT NULL,
  operate_type INTEGER NOT NULL CHECK (operate_type IN (1, 2, 3)),
  operate_at INTEGER NOT NULL
);
CREATE INDEX shop_holiday_his_by_day ON shop_holiday_his(day);
CREATE TRIGGER shop_holiday_his_ins AFTER INSERT ON shop_holiday
BEGIN
  INSERT INTO shop_holiday_his (day, reason, operator_id, operate_type, operate_at)
  VALUES (NEW.day, NEW.reason, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER shop_holiday_his_upd AFTER UPDATE ON shop_holiday
BEGIN
  INSERT INTO shop_holiday_his (day, reason, operator_id, operate_type, operate_at)
  VALUES (NEW.day, NEW.reason, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER shop_holiday_his_del AFTER DELETE ON shop_holiday
BEGIN
  INSERT INTO shop_holiday_his (day, reason, operator_id, operate_type, operate_at)
  VALUES (OLD.day, OLD.reason, fd_operator(), 2, fd_now());
END;
CREATE TRIGGER shop_holiday_his_no_update BEFORE UPDATE ON shop_holiday_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never changed');
END;
CREATE TRIGGER shop_holiday_his_no_delete BEFORE DELETE ON shop_holiday_his
BEGIN
  SELECT RAISE(ABORT, 'history rows are never deleted');
END;
