/*
 * task.h - the background task queue (table task) and its runner.
 *
 * A task is a small piece of background work named by a kind and a key
 * ("calendar", "42": rebuild visit 42's calendar row). Tasks are enqueued by
 * the schema's triggers in the same transaction as the change that makes
 * them necessary, so a committed change always has its task; at most one task
 * per kind and key is pending at a time.
 *
 * Life of a task:
 *   pending --claim--> running --ok--> succeeded
 *                         |--error--> failed (retried at next_run_at, after
 *                         |           backoff_base * 2^(attempts-1) seconds,
 *                         |           at most backoff_max) --claim--> running
 *                         `--error on the last allowed attempt--> dead
 *   running past its claim expiry (the runner crashed) is claimable again;
 *   if it had used its last attempt it becomes dead instead.
 *   dead --tasks retry--> pending (attempts start again from zero).
 *
 * Rules that make "no task runs twice at the same time" hold:
 *  - only the holder of the "runner" lease claims and finishes tasks, and it
 *    checks its lease epoch in the same transaction (control_fence);
 *  - a claim is an UPDATE ... RETURNING in a BEGIN IMMEDIATE transaction that
 *    sets a random claim token and an expiry; only the same token can finish
 *    the task, so a runner whose claim expired and was taken over cannot mark
 *    it or keep its effects;
 *  - a task is not claimed while another task of the same kind and key is
 *    running under a live claim.
 * A handler runs inside the write transaction that marks its task finished
 * (its effects commit with the mark, or not at all), so it must not wait on
 * anything outside the database. Tasks use the real clock, not FRONTDESK_NOW.
 *
 * Callers: the command line (`frontdesk tasks ...`), `frontdesk serve` and the
 * screen (task_run_loop in the process that holds the runner lease).
 */
#ifndef FD_TASK_H
#define FD_TASK_H

#include <signal.h>
#include <stdint.h>

struct db;
struct control_hold;

/* A task's states, each stored as the word task_state_word gives (the
 * schema's CHECK on task.status lists the same). The runner's statements
 * make its moves: claimed (pending, failed -> running), finished (running
 * -> succeeded, failed, dead), retried by a person (failed, dead ->
 * pending). */
enum task_state {
	TASK_PENDING,
	TASK_RUNNING,
	TASK_SUCCEEDED,
	TASK_FAILED,
	TASK_DEAD,
	TASK_STATES /* no state of ours: a word task_state_of does not know */
};

/* task_state_of - the state a stored word names (TASK_STATES: none, or
 * NULL); task_state_word - its stored word ("" for TASK_STATES). */
enum task_state task_state_of(const char *word);
const char *task_state_word(enum task_state s);

struct task {
	int64_t id;
	char kind[41];
	char *key;
	char status[12]; /* a word of enum task_state: task_state_of */
	int64_t attempts;
	int64_t next_run_at;
	char *last_error;         /* NULL when none */
	char *claimed_by;         /* "host:pid", NULL if never claimed */
	int64_t claim_expires_at; /* 0 unless running */
	int64_t created_at, updated_at, started_at, finished_at; /* 0 when not yet */
};

/* How the runner behaves. task_opts_default fills it from the config keys
 * tasks_max_attempts (5), tasks_backoff_seconds (2), tasks_backoff_max (3600),
 * tasks_claim_seconds (60), tasks_lease_seconds (10), tasks_keep_days (7);
 * each also read under its older name jobs_... when the new one is unset. */
struct task_opts {
	int max_attempts; /* attempts before a task is dead (>= 1) */
	int backoff_base; /* seconds before the first retry; doubles each time */
	int backoff_max;  /* the longest wait between retries */
	int claim_ttl;    /* seconds a claim lasts before the task is runnable again */
	int lease_ttl;    /* seconds the runner lease lasts without a renewal */
	int batch;        /* tasks claimed (and finished) per transaction */
	int poll_ms;      /* how often an idle runner looks for new commits */
	int keep_days;    /* succeeded tasks are deleted after this many days */
	/* where the runner says what it does (lease taken, lost, task dead...);
	 * NULL: nowhere. msg is translated. */
	void (*say)(const char *msg, void *arg);
	void *say_arg;
	/* told when this runner takes the lease (held = 1) and when it stands
	 * by or loses it (held = 0), with say_arg; NULL: not told. A caller that
	 * needs to know whether it runs the tasks asks this, never the messages. */
	void (*lease)(int held, void *arg);
	/* 1: this runner also runs the scheduled retention pass
	 * (retention_auto_hour, retention.h); only `serve` sets it */
	int retention;
};

void task_opts_default(struct task_opts *o);

/* task_enqueue - add a pending task kind/key unless one is pending already,
 * inside the caller's write transaction (or as its own statement). */
int task_enqueue(struct db *db, const char *kind, const char *key);

/* At most this many bulk tasks (LIFECYCLE_TASK_KIND: what a retention
 * rebuild, a migration or an import queues by the thousand) in one batch:
 * a batch is one write transaction, so a desk's commit, and a calendar
 * task queued meanwhile, wait for at most this many of them. */
#define TASK_BULK_BATCH 16

/* task_run_batch - with the runner lease held in *lease (NULL only for a
 * caller that knows it is the only runner, such as a unit test), claim up to
 * o->batch due tasks, the desk's kinds first and then at most
 * TASK_BULK_BATCH bulk ones (one transaction), run their handlers and mark each one
 * (a second transaction, fenced by the lease and the claim token). *ran gets
 * the number claimed. FD_ECONFLICT when the lease was lost (nothing of this
 * batch is then kept; the tasks become runnable when their claims expire). A
 * failing handler is not an error here: its task is marked failed or dead. */
int task_run_batch(struct db *db, const struct control_hold *lease, const struct task_opts *o,
                   int *ran);

/* task_run_loop - be the task runner until *stop becomes non-zero (a signal
 * handler may set it) or, with for_seconds > 0, that much time has passed.
 * Takes the "runner" lease, waiting as a standby while another live process
 * holds it (and taking over when it expires or its process is gone), renews
 * it every lease_ttl/3 seconds, runs due tasks, and between batches sleeps
 * poll_ms at a time until PRAGMA data_version says something was committed
 * (or a second has passed, for retries that become due). With once, it runs
 * until no task is due and returns; FD_ECONFLICT (naming the holder) if the
 * lease is held by another live process. Releases the lease on return. The
 * connection must be this thread's own. */
int task_run_loop(struct db *db, volatile sig_atomic_t *stop, const struct task_opts *o,
                  double for_seconds, int once);

/* What a reader learns from task_catch_up. */
struct task_backlog {
	int64_t waiting;  /* tasks of the kind still pending or failed afterwards */
	int runner_alive; /* a live process other than this one holds the runner lease */
};

/* task_catch_up - bring the tasks of kind up to date before a reader shows
 * what they build, so that a read right after a write shows the write even
 * when no runner is running (the offline, single-user case). When tasks of
 * kind are waiting: if no live process holds the runner lease and db is
 * writable, take the lease and run every due task (of every kind, as
 * `tasks run --once` does), then release it; if a live runner holds it,
 * wait for it up to wait_ms (0: do not wait). *out says what is still
 * waiting afterwards (a failed task waiting for its retry, a read-only
 * database). Errors while catching up are not the reader's: they leave the
 * tasks waiting, and only a failure to count them is returned. */
int task_catch_up(struct db *db, const char *kind, int wait_ms, struct task_backlog *out);

/* task_get - fill *out with task id (free with task_free); FD_ENOTFOUND. */
int task_get(struct db *db, int64_t id, struct task *out);

/* task_list - tasks with the given status (NULL: all) and kind (NULL: all),
 * newest first, at most limit (<= 0: 100). */
int task_list(struct db *db, const char *status, const char *kind, int limit,
              int (*cb)(const struct task *j, void *arg), void *arg);

/* task_retry - make a dead or failed task pending again now, with its
 * attempts reset. FD_ECONFLICT for a task in another state, or when a task of
 * the same kind and key is already pending (the reason names it). */
int task_retry(struct db *db, int64_t id);

/* task_count - the number of tasks of kind (NULL: all) in status. */
int task_count(struct db *db, const char *kind, const char *status, int64_t *n);

/* task_purge - delete succeeded tasks finished before `before` (real time);
 * *n (may be NULL) gets how many. Dead and failed tasks are kept. */
int task_purge(struct db *db, int64_t before, int64_t *n);

void task_free(struct task *j);

#endif
