-- 0022-task.sql
-- frontdesk-migration: destructive=0
--
-- Background work is a task everywhere. The queue table of 0004 was called
-- job, the word the desk uses for a service order (`frontdesk job`), while
-- its commands were `frontdesk tasks`; it is renamed task, and its indexes
-- with it. ALTER TABLE ... RENAME rewrites the text of every trigger that
-- enqueues into the table (0004's cal_* triggers, 0020's and 0021's
-- lifecycle triggers), which keep their names; the rows keep their ids,
-- states, attempts and claims, so a task pending or running when the
-- database is migrated runs as before. Nothing is lost: not destructive.

ALTER TABLE job RENAME TO task;

DROP INDEX job_pending_once;
DROP INDEX job_due;
DROP INDEX job_claims;
DROP INDEX job_running_by_key;
DROP INDEX job_by_status;
DROP INDEX job_finished;
CREATE UNIQUE INDEX task_pending_once ON task(kind, key) WHERE status = 'pending';
CREATE INDEX task_due ON task(next_run_at) WHERE status IN ('pending', 'failed');
CREATE INDEX task_claims ON task(claim_expires_at) WHERE status = 'running';
CREATE INDEX task_running_by_key ON task(kind, key) WHERE status = 'running';
CREATE INDEX task_by_status ON task(status, id);
CREATE INDEX task_finished ON task(finished_at) WHERE status = 'succeeded';
