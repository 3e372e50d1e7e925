-- 0010-history-indexes.sql
-- frontdesk-migration: destructive=0
--
-- `frontdesk history visit N` reads the history of the visit's links to
-- jobs, including links removed since: appointment_work_his rows found by
-- their appointment_id. The history tables are indexed by record id only,
-- so that read scanned every link's history (70 ms on a database of
-- 1,000,000 visits; bench/history.sh). This index makes a visit's timeline
-- cost what the visit has. An index only: no row changes.

CREATE INDEX appointment_work_his_by_appt ON appointment_work_his(appointment_id);
