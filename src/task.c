/*
 * task.c - the background task queue and its runner (see task.h).
 *
 * Invariants: a task is claimed and finished only by the holder of the
 * runner lease, each in a BEGIN IMMEDIATE transaction that first checks the
 * lease (control_fence); a task is finished only by the claim that holds its
 * token; a handler's effects and its task's new state commit together (a
 * savepoint per task undoes the effects of a failing handler, and of one whose
 * claim was lost, before the failure is recorded).
 *
 * Permissions: running tasks asks nothing (the pipeline's own steps, and
 * the runner's purge and retention pass act for the shop: control.h); a
 * person's task_retry and task_purge ask operations.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "lifecycle.h"
#include "log.h"
#include "message.h"
#include "projection.h"
#include "recurring.h"
#include "retention.h"
#include "settings.h"
#include "stopflag.h"
#include "strbuf.h"
#include "task.h"
#include "words.h"
#include "xalloc.h"

/* The kinds of task this program knows. A handler runs inside the write
 * transaction that finishes its task and returns 0 or an FD_E* code with a
 * reason (the task's last_error). */
static const struct {
	const char *kind;
	int (*run)(struct db *db, const char *key);
} handlers[] = {
    {PROJECTION_TASK_KIND, projection_task}, /* clang-format: keep */
    {LIFECYCLE_TASK_KIND, retention_lifecycle_task},
    {RECURRING_TASK_KIND, recurring_task},
};

/* seconds between purges of finished tasks, and between the idle runner's
 * looks at whether the day's retention pass is due */
#define PURGE_EVERY_S     60
#define RETENTION_EVERY_S 60
#define RECURRING_EVERY_S 600
#define MESSAGES_EVERY_S  60
#define IDLE_RECHECK_S    1

/* The config key tasks_NAME, else (a config file written before background
 * work was called tasks) jobs_NAME, else def. */
static int setting(const char *name, int def)
{
	char key[48];
	long v;

	snprintf(key, sizeof key, "jobs_%s", name);
	v = config_get_int(key, def);
	snprintf(key, sizeof key, "tasks_%s", name);
	return (int)config_get_int(key, v);
}

void task_opts_default(struct task_opts *o)
{
	memset(o, 0, sizeof *o);
	o->max_attempts = setting("max_attempts", 5);
	o->backoff_base = setting("backoff_seconds", 2);
	o->backoff_max = setting("backoff_max", 3600);
	o->claim_ttl = setting("claim_seconds", 60);
	o->lease_ttl = setting("lease_seconds", 10);
	o->keep_days = setting("keep_days", 7);
	o->batch = 64;
	o->poll_ms = 50;
	if (o->max_attempts < 1)
		o->max_attempts = 1;
	if (o->backoff_base < 0)
		o->backoff_base = 0;
	if (o->backoff_max < o->backoff_base)
		o->backoff_max = o->backoff_base;
	if (o->claim_ttl < 1)
		o->claim_ttl = 1;
	if (o->lease_ttl < 1)
		o->lease_ttl = 1;
	if (o->keep_days < 0)
		o->keep_days = 0;
}

static void say(const struct task_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(const struct task_opts *o, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	log_debug("task: %s", buf);
	if (o->say)
		o->say(buf, o->say_arg);
}

int task_enqueue(struct db *db, const char *kind, const char *key)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare(db, "INSERT INTO task (kind, key) VALUES (?, ?) ON CONFLICT DO NOTHING",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
	return db_run(db, st, _("cannot add the task"));
}

/* ---------------------------------------------------------------- claiming */

struct claimed {
	int64_t id;
	char kind[41];
	char *key;
	int64_t attempts;
};

struct claim_ctx {
	const struct control_hold *lease;
	const struct task_opts *o;
	int64_t now, token;
	struct claimed *tasks;
	int n;
	char owner[300]; /* "host:pid" */
};

/* "host:pid" of this runner into buf. */
static void owner_name(char *buf, size_t n)
{
	char host[256];

	if (gethostname(host, sizeof host - 1) != 0)
		snprintf(host, sizeof host, "localhost");
	host[sizeof host - 1] = '\0';
	snprintf(buf, n, "%s:%ld", host, (long)getpid());
}

/* Run one claiming UPDATE ... RETURNING and append what it claimed. */
static int claim_some(struct db *db, struct claim_ctx *c, const char *sql, const char *msg,
                      int limit)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare(db, sql, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, c->now);
	sqlite3_bind_int(st, 2, limit);
	sqlite3_bind_text(st, 3, c->owner, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, c->token);
	sqlite3_bind_int64(st, 5, c->now + c->o->claim_ttl);
	if (msg)
		sqlite3_bind_text(st, 6, msg, -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct claimed *j = &c->tasks[c->n++];
		const unsigned char *kind = sqlite3_column_text(st, 1);
		const unsigned char *key = sqlite3_column_text(st, 2);

		j->id = sqlite3_column_int64(st, 0);
		snprintf(j->kind, sizeof j->kind, "%s", kind ? (const char *)kind : "");
		j->key = xstrdup(key ? (const char *)key : "");
		j->attempts = sqlite3_column_int64(st, 3);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot claim tasks"));
	sqlite3_finalize(st);
	return rc;
}

/* The same kind and key must not run under two live claims. */
#define NOT_RUNNING_ELSEWHERE                                                                      \
	" AND NOT EXISTS (SELECT 1 FROM task r WHERE r.status = 'running' AND r.kind = j.kind"     \
	" AND r.key = j.key AND r.claim_expires_at > ?1)"
#define CLAIM_SET                                                                                  \
	"UPDATE task SET status = 'running', attempts = attempts + 1, claimed_by = ?3, "           \
	"claim_token = ?4, claim_expires_at = ?5, started_at = ?1, updated_at = ?1"

/* The due tasks of the desk's kinds (bulk "0") or the bulk kind ("1"),
 * oldest first, claimed (?2 of them at most). */
#define DUE_OF_KIND(bulk)                                                                          \
	" WHERE id IN (SELECT id FROM task j INDEXED BY task_due_desk_first"                       \
	" WHERE (kind = '" LIFECYCLE_TASK_KIND "') = " bulk                                        \
	" AND status IN ('pending', 'failed') AND next_run_at <= ?1" NOT_RUNNING_ELSEWHERE         \
	" ORDER BY next_run_at, id LIMIT ?2) RETURNING id, kind, key, attempts"

static int claim_tx(struct db *db, void *arg)
{
	struct claim_ctx *c = arg;
	sqlite3_stmt *st;
	int rc;

	if (c->lease && (rc = control_fence(db, c->lease)))
		return rc;
	/* a claim that expired on its last allowed attempt: the task is dead */
	rc = db_prepare(db,
	                "UPDATE task SET status = 'dead', last_error = ?3, finished_at = ?1, "
	                "updated_at = ?1, claim_token = NULL, claim_expires_at = NULL "
	                "WHERE status = 'running' AND claim_expires_at <= ?1 AND attempts >= ?2",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, c->now);
	sqlite3_bind_int(st, 2, c->o->max_attempts);
	sqlite3_bind_text(st, 3, _("the runner stopped while running it, on its last attempt"), -1,
	                  SQLITE_TRANSIENT);
	if ((rc = db_run(db, st, _("cannot update the task queue"))))
		return rc;
	/* claims that expired: their runner died or stalled */
	rc = claim_some(
	    db, c,
	    CLAIM_SET ", last_error = ?6 WHERE id IN (SELECT id FROM task j "
	              "WHERE status = 'running' AND claim_expires_at <= ?1" NOT_RUNNING_ELSEWHERE
	              " ORDER BY claim_expires_at LIMIT ?2) RETURNING id, kind, key, attempts",
	    _("the runner stopped while running it (its claim expired)"), c->o->batch - c->n);
	if (rc || c->n >= c->o->batch)
		return rc;
	/* the desk first: the kinds a person waits for before the bulk ones,
	 * each by when it is due, then what room is left for the bulk ones, at
	 * most TASK_BULK_BATCH: both walk index task_due_desk_first (migration
	 * 0025, whose expression this repeats), named so that the planner never
	 * prefers task_by_status and a sort of the whole queue */
	rc = claim_some(db, c, CLAIM_SET DUE_OF_KIND("0"), NULL, c->o->batch - c->n);
	if (rc || c->n >= c->o->batch)
		return rc;
	return claim_some(db, c, CLAIM_SET DUE_OF_KIND("1"), NULL,
	                  c->o->batch - c->n < TASK_BULK_BATCH ? c->o->batch - c->n
	                                                       : TASK_BULK_BATCH);
}

static int64_t backoff(const struct task_opts *o, int64_t attempts)
{
	int64_t d = o->backoff_base;

	while (--attempts > 0 && d < o->backoff_max)
		d *= 2;
	return d < o->backoff_max ? d : o->backoff_max;
}

/* ---------------------------------------------------------------- running */

static int run_handler(struct db *db, const struct claimed *j)
{
	size_t i;

	for (i = 0; i < sizeof handlers / sizeof handlers[0]; i++)
		if (!strcmp(handlers[i].kind, j->kind))
			return handlers[i].run(db, j->key);
	return err_set(FD_EINVAL, _("this frontdesk does not know tasks of kind '%.40s'"), j->kind);
}

/* Mark j finished (err NULL) or failed; 1 in *lost when its claim is gone. */
static int mark(struct db *db, const struct claim_ctx *c, const struct claimed *j, const char *err,
                int *dead, int *lost)
{
	sqlite3_stmt *st;
	int rc;

	*dead = err && j->attempts >= c->o->max_attempts;
	if (!err)
		rc = db_prepare(
		    db,
		    "UPDATE task SET status = 'succeeded', finished_at = ?1, updated_at = ?1, "
		    "last_error = NULL, claim_token = NULL, claim_expires_at = NULL "
		    "WHERE id = ?2 AND status = 'running' AND claim_token = ?3",
		    &st);
	else
		rc = db_prepare(db,
		                "UPDATE task SET status = ?4, next_run_at = ?5, last_error = ?6, "
		                "finished_at = CASE WHEN ?4 = 'dead' THEN ?1 END, updated_at = ?1, "
		                "claim_token = NULL, claim_expires_at = NULL "
		                "WHERE id = ?2 AND status = 'running' AND claim_token = ?3",
		                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, c->now);
	sqlite3_bind_int64(st, 2, j->id);
	sqlite3_bind_int64(st, 3, c->token);
	if (err) {
		sqlite3_bind_text(st, 4, *dead ? "dead" : "failed", -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, c->now + backoff(c->o, j->attempts));
		sqlite3_bind_text(st, 6, err, -1, SQLITE_TRANSIENT);
	}
	if ((rc = db_run(db, st, _("cannot update the task queue"))))
		return rc;
	*lost = sqlite3_changes(db_sqlite(db)) == 0;
	return 0;
}

static int finish_tx(struct db *db, void *arg)
{
	struct claim_ctx *c = arg;
	int i, rc, dead, lost;

	if (c->lease && (rc = control_fence(db, c->lease)))
		return rc;
	for (i = 0; i < c->n; i++) {
		const struct claimed *j = &c->tasks[i];
		char *err = NULL;

		if ((rc = db_exec(db, "SAVEPOINT task")))
			return rc;
		c->now = control_now();
		if ((rc = run_handler(db, j)) != 0) {
			err = xstrdup(err_msg()[0] ? err_msg() : _("failed"));
			/* an I/O error (or a full disk) rolled the whole transaction
			 * back, or left it unable to write: the batch is lost, the
			 * tasks stay claimed, and the error is the one that did it */
			if (sqlite3_get_autocommit(db_sqlite(db)) ||
			    db_exec(db, "ROLLBACK TO task") != 0) {
				rc = err_set(rc, "%s", err);
				goto fail;
			}
		}
		if ((rc = mark(db, c, j, err, &dead, &lost)))
			goto fail;
		if (lost) {
			/* another claim owns it now: keep none of this run */
			if ((rc = db_exec(db, "ROLLBACK TO task")))
				goto fail;
			say(c->o,
			    _("task %lld: its claim expired and another runner has it; "
			      "its result was dropped"),
			    (long long)j->id);
		} else if (dead) {
			say(c->o, _("task %lld (%s %s) is dead after %lld attempts: %s"),
			    (long long)j->id, j->kind, j->key, (long long)j->attempts, err);
		} else if (err) {
			say(c->o, _("task %lld (%s %s) failed (attempt %lld of %d): %s"),
			    (long long)j->id, j->kind, j->key, (long long)j->attempts,
			    c->o->max_attempts, err);
		}
		free(err);
		if ((rc = db_exec(db, "RELEASE task")))
			return rc;
		continue;
	fail:
		free(err);
		return rc;
	}
	return 0;
}

/* A random claim token (> 0): claims of two runners never share one. */
static int64_t new_token(void)
{
	static _Thread_local uint64_t fallback;
	uint64_t v = 0;

	if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		v = ((uint64_t)ts.tv_nsec << 24) ^ (uint64_t)ts.tv_sec ^
		    ((uint64_t)getpid() << 40) ^ ++fallback;
	}
	v &= INT64_MAX;
	return v ? (int64_t)v : 1;
}

int task_run_batch(struct db *db, const struct control_hold *lease, const struct task_opts *o,
                   int *ran)
{
	struct claim_ctx c = {lease, o, control_now(), 0, NULL, 0, ""};
	int rc, i, relaxed;

	*ran = 0;
	owner_name(c.owner, sizeof c.owner);
	c.token = new_token();
	c.tasks = xcalloc((size_t)(o->batch > 0 ? o->batch : 1), sizeof *c.tasks);
	/* The runner writes derived rows only (claims, calendar and lifecycle
	 * rows): a power cut may lose its last commits and nothing with them,
	 * for their tasks run again. So they commit without an fsync each
	 * (synchronous=NORMAL: in WAL mode the order of commits is kept, and
	 * the next desk commit's fsync makes them durable), which keeps its
	 * short batches cheap; every other transaction stays FULL. */
	relaxed =
	    sqlite3_get_autocommit(db_sqlite(db)) && db_exec(db, "PRAGMA synchronous=NORMAL") == 0;
	rc = db_write(db, claim_tx, &c);
	if (rc == 0 && c.n > 0) {
		*ran = c.n;
		rc = db_write(db, finish_tx, &c);
	}
	if (relaxed && db_exec(db, "PRAGMA synchronous=FULL") != 0 && rc == 0)
		rc = FD_EDB;
	for (i = 0; i < c.n; i++)
		free(c.tasks[i].key);
	free(c.tasks);
	return rc;
}

/* ---------------------------------------------------------------- the loop */

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL); /* a signal cuts it short: the caller checks *stop */
}

static void tell_lease(const struct task_opts *o, int held)
{
	if (o->lease)
		o->lease(held, o->say_arg);
}

/* Where task_run_loop stands: the runner lease and the times (clock_mono)
 * of its recurring steps. */
struct run_loop {
	struct control_hold lease;
	double start;          /* when the loop began */
	double for_seconds;    /* how long it runs; <= 0: until stopped */
	double next_renew;     /* the lease's next renewal */
	double next_purge;     /* the next purge of old finished tasks */
	double next_retention; /* the next retention pass */
	double next_recurring; /* the next look at the recurring jobs' horizon */
	double next_messages;  /* the next round of the message scheduler */
	int holding;           /* the lease is held */
	int waiting_said;      /* "standing by" was said since the lease was last held */
};

static int loop_time_left(const struct run_loop *L)
{
	return L->for_seconds <= 0 || clock_mono() - L->start < L->for_seconds;
}

/* Take the runner lease (and say so); its error when another runner has
 * it. */
static int loop_acquire(struct db *db, const struct task_opts *o, struct run_loop *L, double now)
{
	int rc = control_acquire(db, CONTROL_RUNNER, CONTROL_LEASE, o->lease_ttl, &L->lease);

	if (rc)
		return rc;
	L->holding = 1;
	L->waiting_said = 0;
	L->next_renew = now + o->lease_ttl / 3.0;
	say(o, _("running tasks (runner lease epoch %lld)"), (long long)L->lease.epoch);
	tell_lease(o, 1);
	return 0;
}

/* Another runner has the lease: say so once, and wait a little. */
static void loop_stand_by(const struct task_opts *o, struct run_loop *L)
{
	if (!L->waiting_said) {
		say(o, _("standing by: %s"), err_msg());
		tell_lease(o, 0);
	}
	L->waiting_said = 1;
	sleep_ms(o->lease_ttl * 1000 / 4 < 500 ? o->lease_ttl * 1000 / 4 : 500);
}

static void loop_lost(const struct task_opts *o, struct run_loop *L)
{
	say(o, _("lost the runner lease: %s"), err_msg());
	tell_lease(o, 0);
	L->holding = 0;
}

/* The finished tasks older than keep_days go, once in PURGE_EVERY_S. */
static void loop_purge(struct db *db, const struct task_opts *o, struct run_loop *L, double now)
{
	if (now >= L->next_purge && o->keep_days > 0) {
		control_acting_enter();
		task_purge(db, control_now() - (int64_t)o->keep_days * 86400, NULL);
		control_acting_leave();
		L->next_purge = now + PURGE_EVERY_S;
	}
}

/* The daily retention pass; 1 when it did something (its own changes
 * queued lifecycle tasks), else 0. */
static int loop_retention(struct db *db, const struct task_opts *o, struct run_loop *L, double now)
{
	int64_t n = 0;
	int r;

	L->next_retention = now + RETENTION_EVERY_S;
	if ((r = retention_auto(db, &n)) == 0 && n > 0)
		say(o, _("retention: %lld step(s) of the customer deletions done"), (long long)n);
	else if (r < 0 && r != FD_ECONFLICT)
		say(o, _("retention: %s"), err_msg());
	return n > 0;
}

/* The recurring jobs whose visits are made short of the horizon get their
 * task, at the loop's start and then once in RECURRING_EVERY_S (the horizon
 * moves by a day a day). */
static void loop_recurring(struct db *db, const struct task_opts *o, struct run_loop *L, double now)
{
	int64_t n = 0;

	if (now < L->next_recurring)
		return;
	L->next_recurring = now + RECURRING_EVERY_S;
	if (recurring_queue_due(db, &n) < 0)
		say(o, _("recurring jobs: %s"), err_msg());
}

/* The messages' scheduler (reminders whose time came, messages handed to
 * the outbox), once in MESSAGES_EVERY_S. */
static void loop_messages(struct db *db, const struct task_opts *o, struct run_loop *L, double now)
{
	struct message_round r;

	if (now < L->next_messages)
		return;
	L->next_messages = now + MESSAGES_EVERY_S;
	if (message_schedule(db, &r) < 0)
		say(o, _("messages: %s"), err_msg());
}

/* Idle: wait for a commit by another connection (the data version moves
 * from dv), a due retry or the renewal. */
static void loop_idle(struct db *db, volatile sig_atomic_t *stop, const struct task_opts *o,
                      const struct run_loop *L, int64_t dv)
{
	double last_run = clock_mono();

	while (!stop_requested(stop) && clock_mono() - last_run < IDLE_RECHECK_S &&
	       clock_mono() < L->next_renew && loop_time_left(L)) {
		sleep_ms(o->poll_ms);
		if (db_data_version(db) != dv)
			break;
	}
}

int task_run_loop(struct db *db, volatile sig_atomic_t *stop, const struct task_opts *o,
                  double for_seconds, int once)
{
	struct run_loop L = {0};
	int64_t dv = -1;
	int rc = 0, ran;

	L.start = clock_mono();
	L.for_seconds = for_seconds;
	while (!stop_requested(stop) && loop_time_left(&L)) {
		double now = clock_mono();

		if (!L.holding && (rc = loop_acquire(db, o, &L, now)) != 0) {
			if (once)
				return rc;
			loop_stand_by(o, &L);
			continue;
		}
		if (now >= L.next_renew) {
			if ((rc = control_renew(db, &L.lease)) != 0) {
				loop_lost(o, &L);
				continue;
			}
			L.next_renew = now + o->lease_ttl / 3.0;
		}
		loop_purge(db, o, &L, now);
		loop_recurring(db, o, &L, now);
		loop_messages(db, o, &L, now);
		dv = db_data_version(db);
		rc = task_run_batch(db, &L.lease, o, &ran);
		if (rc == FD_ECONFLICT) {
			loop_lost(o, &L);
			continue;
		}
		if (rc && rc != FD_EBUSY) {
			say(o, _("cannot run tasks: %s"), err_msg());
			if (once)
				break;
		}
		if (ran > 0 || rc == FD_EBUSY) {
			db_yield(db); /* a backlog: room for a desk between batches */
			continue;
		}
		rc = 0;
		if (once)
			break;
		/* idle, so the lifecycle rows are up to date: the daily retention pass */
		if (o->retention && now >= L.next_retention && loop_retention(db, o, &L, now))
			continue;
		loop_idle(db, stop, o, &L, dv);
	}
	if (L.holding)
		control_release(db, &L.lease);
	return rc;
}

/* ---------------------------------------------------------------- catching up */

static int backlog_count(struct db *db, const char *kind, int64_t *n)
{
	int64_t pending = 0, failed = 0;
	int rc;

	if ((rc = task_count(db, kind, "pending", &pending)) ||
	    (rc = task_count(db, kind, "failed", &failed)))
		return rc;
	*n = pending + failed;
	return 0;
}

static int runner_held(struct db *db)
{
	struct control_info ci;
	int held = 0;

	if (control_get(db, CONTROL_RUNNER, &ci) == 0) {
		held = ci.state == CONTROL_HELD;
		control_info_free(&ci);
	}
	return held;
}

int task_catch_up(struct db *db, const char *kind, int wait_ms, struct task_backlog *out)
{
	struct task_opts o;
	double until;
	int rc;

	out->waiting = 0;
	out->runner_alive = 0;
	if ((rc = backlog_count(db, kind, &out->waiting)))
		return rc;
	if (out->waiting == 0)
		goto out;
	if (!db_readonly(db) && !runner_held(db)) {
		task_opts_default(&o);
		/* FD_ECONFLICT: a runner took the lease meanwhile; waited for below */
		task_run_loop(db, NULL, &o, 0, 1);
		if ((rc = backlog_count(db, kind, &out->waiting)))
			return rc;
	}
	until = clock_mono() + wait_ms / 1000.0;
	while (out->waiting > 0 && runner_held(db) && clock_mono() < until) {
		sleep_ms(20);
		if ((rc = backlog_count(db, kind, &out->waiting)))
			return rc;
	}
out:
	out->runner_alive = runner_held(db);
	err_clear();
	return 0;
}

/* ---------------------------------------------------------------- inspecting */

#define TASK_COLS                                                                                  \
	"id, kind, key, status, attempts, next_run_at, last_error, claimed_by, "                   \
	"claim_expires_at, created_at, updated_at, started_at, finished_at"

static void fill(sqlite3_stmt *st, struct task *j)
{
	const unsigned char *kind = sqlite3_column_text(st, 1);
	const unsigned char *status = sqlite3_column_text(st, 3);

	memset(j, 0, sizeof *j);
	j->id = sqlite3_column_int64(st, 0);
	snprintf(j->kind, sizeof j->kind, "%s", kind ? (const char *)kind : "");
	j->key = dbrow_dup(st, 2);
	snprintf(j->status, sizeof j->status, "%s", status ? (const char *)status : "");
	j->attempts = sqlite3_column_int64(st, 4);
	j->next_run_at = sqlite3_column_int64(st, 5);
	j->last_error = dbrow_dup(st, 6);
	j->claimed_by = dbrow_dup(st, 7);
	j->claim_expires_at = sqlite3_column_int64(st, 8);
	j->created_at = sqlite3_column_int64(st, 9);
	j->updated_at = sqlite3_column_int64(st, 10);
	j->started_at = sqlite3_column_int64(st, 11);
	j->finished_at = sqlite3_column_int64(st, 12);
}

void task_free(struct task *j)
{
	free(j->key);
	free(j->last_error);
	free(j->claimed_by);
	memset(j, 0, sizeof *j);
}

int task_get(struct db *db, int64_t id, struct task *out)
{
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	if ((rc = db_prepare(db, "SELECT " TASK_COLS " FROM task WHERE id = ?", &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		fill(st, out);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, _("there is no task %lld"), (long long)id);
	else
		rc = db_fail(db, _("cannot read the task"));
	sqlite3_finalize(st);
	return rc;
}

static const char *const task_words[TASK_STATES] = {"pending", "running", "succeeded", "failed",
                                                    "dead"};

enum task_state task_state_of(const char *word)
{
	return (enum task_state)words_index(task_words, TASK_STATES, word);
}

const char *task_state_word(enum task_state s)
{
	return s < TASK_STATES ? task_words[s] : "";
}

static int valid_status(const char *s)
{
	return task_state_of(s) != TASK_STATES;
}

int task_list(struct db *db, const char *status, const char *kind, int limit,
              int (*cb)(const struct task *j, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	if (status && !valid_status(status))
		return err_set(FD_EINVAL,
		               _("'%.40s' is not a task status: use pending, running, succeeded, "
		                 "failed or dead"),
		               status);
	/* with a status, the (status, id) index delivers the newest first */
	rc = db_prepare(db,
	                status ? "SELECT " TASK_COLS " FROM task WHERE status = ?1 AND "
	                         "(?2 IS NULL OR kind = ?2) ORDER BY id DESC LIMIT ?3"
	                       : "SELECT " TASK_COLS " FROM task WHERE (?2 IS NULL OR kind = ?2) "
	                         "ORDER BY id DESC LIMIT ?3",
	                &st);
	if (rc)
		return rc;
	if (status)
		sqlite3_bind_text(st, 1, status, -1, SQLITE_TRANSIENT);
	if (kind)
		sqlite3_bind_text(st, 2, kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 3, limit > 0 ? limit : 100);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct task j;

		fill(st, &j);
		rc = cb(&j, arg);
		task_free(&j);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list tasks"));
	sqlite3_finalize(st);
	return rc;
}

static int retry_tx(struct db *db, void *arg)
{
	int64_t id = *(int64_t *)arg, twin = 0;
	struct task j;
	enum task_state state;
	sqlite3_stmt *st;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "retry task %lld", (long long)id);
	if ((rc = control_require(db, PERM_OPERATIONS, 0, subject)))
		return rc;
	if ((rc = task_get(db, id, &j)))
		return rc;
	state = task_state_of(j.status);
	if (state != TASK_DEAD && state != TASK_FAILED) {
		rc = err_set(FD_ECONFLICT,
		             _("task %lld is %s; only a dead or failed task is retried"),
		             (long long)id, j.status);
		goto out;
	}
	if ((rc = db_prepare(
	         db, "SELECT id FROM task WHERE kind = ? AND key = ? AND status = 'pending'", &st)))
		goto out;
	sqlite3_bind_text(st, 1, j.kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, j.key, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		twin = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (twin) {
		rc = err_set(
		    FD_ECONFLICT,
		    _("task %lld does the same work (%s %s) and is already pending; it will "
		      "run instead"),
		    (long long)twin, j.kind, j.key);
		goto out;
	}
	if ((rc = db_prepare(db,
	                     "UPDATE task SET status = 'pending', attempts = 0, next_run_at = ?1, "
	                     "updated_at = ?1, finished_at = NULL WHERE id = ?2",
	                     &st)))
		goto out;
	sqlite3_bind_int64(st, 1, control_now());
	sqlite3_bind_int64(st, 2, id);
	rc = db_run(db, st, _("cannot retry the task"));
out:
	task_free(&j);
	return rc;
}

int task_retry(struct db *db, int64_t id)
{
	return db_write(db, retry_tx, &id);
}

/* The counts the agenda (task_catch_up) and the screen's status line make
 * on every read. Each names the index it walks, so that its cost is that
 * of the tasks in the status asked for, never of the finished ones: left
 * to itself, the planner scanned the whole table (every succeeded task of
 * the last keep_days) once sqlite_stat1 had been gathered while the queue
 * held pending tasks only (bench/gen.c's ANALYZE, or any ANALYZE of a young
 * database): its statistics then say that one status matches every row.
 * Pending: the partial index of pending tasks by kind (task_pending_once,
 * which holds kind: no table row is read); any other status: the (status,
 * id) index, which reads the rows of that status alone. */
static const char *const count_sql[] = {
    "SELECT count(*) FROM task INDEXED BY task_pending_once WHERE status = 'pending'",
    "SELECT count(*) FROM task INDEXED BY task_pending_once WHERE status = 'pending' "
    "AND kind = ?2",
    "SELECT count(*) FROM task INDEXED BY task_by_status WHERE status = ?1",
    "SELECT count(*) FROM task INDEXED BY task_by_status WHERE status = ?1 AND kind = ?2",
};

int task_count(struct db *db, const char *kind, const char *status, int64_t *n)
{
	sqlite3_stmt *st;
	int rc;

	*n = 0;
	if ((rc = db_prepare(db, count_sql[(strcmp(status, "pending") != 0) * 2 + (kind != NULL)],
	                     &st)))
		return rc;
	sqlite3_bind_text(st, 1, status, -1, SQLITE_TRANSIENT);
	if (kind)
		sqlite3_bind_text(st, 2, kind, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, _("cannot count tasks"));
	sqlite3_finalize(st);
	return rc;
}

static int purge_tx(struct db *db, void *arg)
{
	int64_t *a = arg; /* a[0] before, a[1] deleted */
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare(db,
	                     "DELETE FROM task WHERE id IN (SELECT id FROM task WHERE status = "
	                     "'succeeded' AND finished_at < ? LIMIT 1000)",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, a[0]);
	if ((rc = db_run(db, st, _("cannot purge old tasks"))))
		return rc;
	a[1] = sqlite3_changes(db_sqlite(db));
	return 0;
}

int task_purge(struct db *db, int64_t before, int64_t *n)
{
	int64_t a[2] = {before, 0}, total = 0;
	int rc;

	/* asked once before the first slice (the runner's own purge acts for
	 * the shop: control.h) */
	if ((rc = control_ask(db, PERM_OPERATIONS, 0, "purge old tasks")))
		return rc;
	/* in slices, so that a desk never waits long behind the purge */
	do {
		if ((rc = db_write(db, purge_tx, a)))
			break;
		total += a[1];
		if (a[1] == 1000)
			db_yield(db);
	} while (a[1] == 1000);
	if (n)
		*n = total;
	return rc;
}
