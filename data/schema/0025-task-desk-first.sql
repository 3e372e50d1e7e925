-- 0025-task-desk-first.sql
-- frontdesk-migration: destructive=0
--
-- The desk first. The runner claimed due tasks first in, first out, so a
-- calendar row changed by a desk action waited behind every lifecycle task
-- queued before it: fifty thousand of them (what a retention rebuild, a
-- migration or a bulk import of customers leaves) kept a payment's calendar
-- cell stale for tens of seconds. The runner now claims in the order of
-- this index: the kinds a person waits for before the bulk kinds (today
-- 'lifecycle'), each by when it is due. task.c's claim repeats the
-- expression and the WHERE word for word so that the planner walks this
-- index and stops at the batch, whatever the queue's length.
--
-- Not destructive: one index; no row changes.

CREATE INDEX task_due_desk_first ON task((kind = 'lifecycle'), next_run_at, id)
  WHERE status IN ('pending', 'failed');
