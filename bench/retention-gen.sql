-- retention-gen.sql - the data of bench/retention.sh, written by the
-- sqlite3 shell into a database that `frontdesk init` made (triggers off:
-- the shell has no fd_operator(), so no history rows are written).
--
-- 50,000 customers, each with one job of 20 visits (1,000,000 visits, all
-- done), 60 days apart, the last one on 2023-06-01 + (id % 1280) days
-- (EST, UTC-5), and one payment of 20.00 received at the last visit. With
-- the default 36 months at 2026-12-01 the cutoff is 2023-12-01: the
-- customers whose last visit is before it (183 of every 1280 days, about
-- 14%) are the candidates.
INSERT INTO customer (id, name, phone, email, note, created_at, updated_at)
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 50000)
SELECT i, 'Customer ' || i, '555' || printf('%07d', i), 'c' || i || '@example.com',
       'likes the blue wax, parks at the back', 1420088400, 1420088400 FROM c;
INSERT INTO service_order (id, customer_id, title, status, currency, created_at, updated_at)
SELECT id, id, 'Detailing plan', 'open', 'USD', 1420088400, 1420088400 FROM customer;
CREATE TEMP TABLE v AS
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999999)
SELECT i + 1 AS id, i / 20 + 1 AS cust, i % 20 AS k FROM n;
INSERT INTO appointment (id, start_at, end_at, status, created_at, updated_at)
SELECT id, 1685635200 + (cust % 1280) * 86400 - k * 60 * 86400,
       1685635200 + (cust % 1280) * 86400 - k * 60 * 86400 + 3600, 'done', 0, 0 FROM v;
INSERT INTO appointment_work (id, appointment_id, service_order_id, est_minutes, created_at,
  updated_at)
SELECT id, id, cust, 60, 0, 0 FROM v;
DROP TABLE v;
INSERT INTO payment (id, customer_id, method, received_at, currency, amount, allocated, refunded,
  status, created_at, updated_at)
SELECT id, id, 'cash', 1685635200 + (id % 1280) * 86400, 'USD', 2000, 0, 2000, 'refunded', 0, 0
FROM customer;
ANALYZE;
