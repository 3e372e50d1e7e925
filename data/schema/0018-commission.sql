-- 0018-commission.sql
-- frontdesk-migration: destructive=0
--
-- Who did the work, and their commission (src/commission.c). A line item
-- can carry a commission for a technician: either a fixed amount
-- (commission_fixed, minor units of the job's currency) or a percentage of
-- the line's amount in basis points (commission_bp, 1000 = 10%), never
-- both; its estimated minutes; and the technician it is credited to
-- (tech_id, a resource of kind technician; NULL: the technician reserved
-- for the job's visit, see commission.h). New columns only, NULL on every
-- existing row: no existing row changes. The history triggers of
-- line_item are recreated to copy the new columns into line_item_his.

ALTER TABLE line_item ADD COLUMN commission_fixed INTEGER
  CHECK (commission_fixed IS NULL OR (typeof(commission_fixed) = 'integer'
         AND commission_fixed BETWEEN 0 AND 100000000000000));
ALTER TABLE line_item ADD COLUMN commission_bp INTEGER
  CHECK (commission_bp IS NULL OR (typeof(commission_bp) = 'integer'
         AND commission_bp BETWEEN 0 AND 10000 AND commission_fixed IS NULL));
ALTER TABLE line_item ADD COLUMN est_minutes INTEGER
  CHECK (est_minutes IS NULL OR est_minutes BETWEEN 0 AND 100000);
ALTER TABLE line_item ADD COLUMN tech_id INTEGER REFERENCES resource(id);

CREATE TRIGGER line_item_tech_ins BEFORE INSERT ON line_item
WHEN NEW.tech_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM resource WHERE id = NEW.tech_id AND kind = 'technician')
BEGIN
  SELECT RAISE(ABORT, 'a commission is credited to a resource of kind technician');
END;
CREATE TRIGGER line_item_tech_upd BEFORE UPDATE OF tech_id ON line_item
WHEN NEW.tech_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM resource WHERE id = NEW.tech_id AND kind = 'technician')
BEGIN
  SELECT RAISE(ABORT, 'a commission is credited to a resource of kind technician');
END;

ALTER TABLE line_item_his ADD COLUMN commission_fixed INTEGER;
ALTER TABLE line_item_his ADD COLUMN commission_bp INTEGER;
ALTER TABLE line_item_his ADD COLUMN est_minutes INTEGER;
ALTER TABLE line_item_his ADD COLUMN tech_id INTEGER;

DROP TRIGGER line_item_his_ins;
DROP TRIGGER line_item_his_upd;
DROP TRIGGER line_item_his_del;
CREATE TRIGGER line_item_his_ins AFTER INSERT ON line_item
BEGIN
  INSERT INTO line_item_his (id, service_order_id, kind, description, qty_milli, unit_price, amount, created_at, updated_at, commission_fixed, commission_bp, est_minutes, tech_id, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.service_order_id, NEW.kind, NEW.description, NEW.qty_milli, NEW.unit_price, NEW.amount, NEW.created_at, NEW.updated_at, NEW.commission_fixed, NEW.commission_bp, NEW.est_minutes, NEW.tech_id, fd_operator(), 1, fd_now());
END;
CREATE TRIGGER line_item_his_upd AFTER UPDATE ON line_item
BEGIN
  INSERT INTO line_item_his (id, service_order_id, kind, description, qty_milli, unit_price, amount, created_at, updated_at, commission_fixed, commission_bp, est_minutes, tech_id, operator_id, operate_type, operate_at)
  VALUES (NEW.id, NEW.service_order_id, NEW.kind, NEW.description, NEW.qty_milli, NEW.unit_price, NEW.amount, NEW.created_at, NEW.updated_at, NEW.commission_fixed, NEW.commission_bp, NEW.est_minutes, NEW.tech_id, fd_operator(), 3, fd_now());
END;
CREATE TRIGGER line_item_his_del AFTER DELETE ON line_item
BEGIN
  INSERT INTO line_item_his (id, service_order_id, kind, description, qty_milli, unit_price, amount, created_at, updated_at, commission_fixed, commission_bp, est_minutes, tech_id, operator_id, operate_type, operate_at)
  VALUES (OLD.id, OLD.service_order_id, OLD.kind, OLD.description, OLD.qty_milli, OLD.unit_price, OLD.amount, OLD.created_at, OLD.updated_at, OLD.commission_fixed, OLD.commission_bp, OLD.est_minutes, OLD.tech_id, fd_operator(), 2, fd_now());
END;
