-- availability-gen.sql - the data of bench/availability.sh, written by the
-- sqlite3 shell into a database that `frontdesk init` made (triggers off:
-- the shell has no fd_operator(), so no history rows are written).
--
-- 40 resources (30 technicians, 10 vans) working 08:00-17:00 every day;
-- from 2022-01-01 (EST, UTC-5: DST is ignored, the benchmark week is in
-- winter), each resource has 7 one-hour visits a day in the hours 8..15
-- (one of those hours left free, a different one from day to day and
-- resource to resource; 16:00-17:00 always free): 280 visits a day, so
-- 1,000,000 visits cover 3,572 days (to late 2031). The number of visits
-- is read from the temporary table bench_size (availability.sh makes it). Every 50th visit is
-- cancelled (it holds nothing). Each visit holds its resource.
INSERT INTO resource (id, name, kind, active, created_at, updated_at)
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 40)
SELECT i, CASE WHEN i <= 30 THEN 'Tech ' || i ELSE 'Van ' || (i - 30) END,
       CASE WHEN i <= 30 THEN 'technician' ELSE 'van' END, 1, 0, 0 FROM r;
INSERT INTO resource_hours (resource_id, weekday, start_min, end_min, created_at)
SELECT r.id, w.value, 480, 1020, 0 FROM resource r, json_each('[0,1,2,3,4,5,6]') w;
CREATE TEMP TABLE v AS
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n
                        WHERE i < (SELECT visits FROM bench_size) - 1)
SELECT i + 1 AS id, i / 280 AS day, (i % 280) / 7 AS res, i % 7 AS k,
       ((i / 280) * 7 + (i % 280) / 7) % 8 AS skip FROM n;
INSERT INTO appointment (id, start_at, end_at, status, created_at, updated_at)
SELECT id, 1641013200 + day * 86400 + (8 + k + (k >= skip)) * 3600,
       1641013200 + day * 86400 + (9 + k + (k >= skip)) * 3600,
       CASE WHEN id % 50 = 0 THEN 'cancelled' ELSE 'scheduled' END, 0, 0 FROM v;
INSERT INTO appointment_resource (id, appointment_id, resource_id, start_at, end_at,
  created_at, updated_at)
SELECT v.id, v.id, v.res + 1, a.start_at, a.end_at, 0, 0 FROM v JOIN appointment a ON a.id = v.id;
DROP TABLE v;
ANALYZE;
