/*
 * check_faults.c - failing disks: every write, sync and truncation that
 * two money operations make is failed in turn, and nothing half-written
 * may remain.
 *
 * The operations: (a) a desk payment allocated across two invoices
 * (payment_record, with an idempotency key), (b) a channel batch of six
 * stored inbound events, four of them payments, in two transactions
 * (chan_process_due with an in-process fake adapter), (c) the task runner
 * rebuilding five calendar rows in two batches (task_run_batch). A sweep runs the
 * operation on a fresh copy of a prepared database through faultvfs
 * (tests/unit/faultvfs.h) with the Nth counted call failing, for N = 1, 2, ...
 * until the operation succeeds with no fault left to inject. At each N:
 *  - the call fails with a message that names the failure (a full disk
 *    says "the disk is full", an I/O error says so);
 *  - the files as a crash at that moment leaves them (the database and its
 *    -wal copied while the failed connection is still open), opened on a
 *    fresh connection without the shim, hold the operation whole or not at
 *    all, and check_all finds nothing;
 *  - the failed connection stays usable: the same request again (the same
 *    idempotency key; for the channel, the same events) succeeds, and the
 *    database then holds it exactly once, with check_all clean.
 * Each sweep runs in several modes: an I/O error or a full disk, failing
 * once or from N on (a disk that stays broken), with SQLite's page cache
 * as configured (the faults land on the commit) or tiny (pages spill to
 * the -wal in mid-transaction, so the faults land inside statements).
 * FD_STRESS widens the default modes to all eight per operation. The short
 * default (make check, twice in CI, once under the sanitizers) takes every
 * other N in the tiny-cache modes, odd in one and even in the other, and
 * reads the retry's result on the connection that made it; FD_STRESS takes
 * every N and reopens the file for a check_all after the retry too. A
 * sanitized build's short default takes two of the four modes (one of each
 * kind and cache), every fourth N in both (the odd N between them), the
 * channel batch's every eighth (about 230 faults, 0.9 s each there).
 */
#include <config.h>

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chan-adapters.h"
#include "chan-process.h"
#include "checkdb.h"
#include "db.h"
#include "err.h"
#include "faultvfs.h"
#include "fixture.h"
#include "idem.h"
#include "inbox.h"
#include "outbox.h"
#include "payment.h"
#include "pipe-provider.h"
#include "task.h"

static struct fx F;
static char tmpl[160], work[160], crash[160];

/* ------------------------------------------------------------ files */

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t got;
	int in = open(from, O_RDONLY), out;

	if (in < 0) { /* no -wal: nothing to copy */
		unlink(to);
		return;
	}
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(out, 0);
	while ((got = read(in, buf, sizeof buf)) > 0)
		ck_assert_int_eq(write(out, buf, (size_t)got), got);
	ck_assert_int_eq(got, 0);
	close(in);
	close(out);
}

static void side(char *out, size_t n, const char *path, const char *suffix)
{
	snprintf(out, n, "%s%s", path, suffix);
}

/* Copy the database path and its -wal to dest (no -shm: what a crash, or
 * a power cut, leaves for the next process to recover from). */
static void copy_db(const char *path, const char *dest)
{
	char a[200], b[200];

	copy_file(path, dest);
	side(a, sizeof a, path, "-wal");
	side(b, sizeof b, dest, "-wal");
	copy_file(a, b);
	side(b, sizeof b, dest, "-shm");
	unlink(b);
}

/* copy_db while a connection of this process has path open: in a child,
 * since closing any descriptor of a file drops every POSIX lock this
 * process holds on it (the open connection's among them). */
static void copy_db_aside(const char *path, const char *dest)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		copy_db(path, dest);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the copy failed");
}

/* ------------------------------------------------------------ helpers */

static void exec_ok(struct db *db, const char *sql)
{
	ck_assert_msg(db_exec(db, sql) == 0, "%s: %s", sql, err_msg());
}

static void report_print(const char *code, const char *detail, void *arg)
{
	int *n = arg;

	(*n)++;
	fprintf(stderr, "# check: %s: %s\n", code, detail);
}

static void assert_clean(struct db *db, const char *when)
{
	int n = 0, rc = check_all(db, report_print, &n);

	ck_assert_msg(rc == 0, "%s: check_all found %d problem(s) (rc %d: %s)", when, n, rc,
	              err_msg());
}

static int64_t one(struct db *db, const char *sql)
{
	return fx_one(db, sql);
}

/* ------------------------------------------------------------ the sweep */

struct scenario {
	const char *name;
	void (*make)(struct db *db);  /* fill the template database */
	int (*run)(struct db *db);    /* the operation; 0 or an FD_E* code */
	void (*whole)(struct db *db); /* the operation is there whole or not at all */
	void (*done)(struct db *db);  /* the operation is there, exactly once */
	/* NULL, or: how many parts of the operation a fault that did not fail
	 * it was recorded against (a channel event marked failed, to retry);
	 * with revive, made due again before the retry */
	int64_t (*absorbed)(struct db *db);
	void (*revive)(struct db *db);
	/* the sanitized short default's step (0: every fourth N) */
	long san_step;
};

struct mode {
	enum fv_kind kind;
	int sticky;
	int tiny_cache;
};

static const char *mode_name(const struct mode *m)
{
	static char buf[80];

	snprintf(buf, sizeof buf, "%s, %s, %s cache",
	         m->kind == FV_FULL ? "disk full" : "I/O error", m->sticky ? "from N on" : "once",
	         m->tiny_cache ? "tiny" : "normal");
	return buf;
}

static void make_template(const struct scenario *sc)
{
	struct db *db;

	fx_env();
	fx_tmp(&F, "faults");
	snprintf(tmpl, sizeof tmpl, "%s/template.db", F.dir);
	snprintf(work, sizeof work, "%s/work.db", F.dir);
	snprintf(crash, sizeof crash, "%s/crash.db", F.dir);
	ck_assert_msg(db_open(tmpl, DB_OPEN_CREATE, &db) == 0, "%s", err_msg());
	exec_ok(db, "INSERT INTO customer (name, created_at, updated_at) VALUES ('Ada Lee', 0, 0)");
	sc->make(db);
	assert_clean(db, "the template");
	db_close(db); /* the last connection: everything is in the main file */
}

static int stress; /* FD_STRESS: the long mode */

/* One N of a sweep: 1 when a fault was injected (go on with N + 1), 0 when
 * the operation succeeded with none left to inject. */
static int one_fault(const struct scenario *sc, const struct mode *m, long n)
{
	struct db *a, *c;
	long failed;
	int rc, absorbed = 0;

	copy_db(tmpl, work);
	fv_install(1);
	rc = db_open(work, 0, &a);
	fv_install(0); /* a keeps the shim; every later connection is plain */
	ck_assert_msg(rc == 0, "%s", err_msg());
	if (m->tiny_cache)
		exec_ok(a, "PRAGMA cache_size = 10");
	err_clear();
	fv_arm(n, m->kind, m->sticky);
	rc = sc->run(a);
	fv_disarm();
	failed = fv_failed();
	if (!failed) {
		ck_assert_msg(rc == 0, "%s (%s), N=%ld: no fault, yet: %s", sc->name, mode_name(m),
		              n, err_msg());
	} else if (rc == 0 && sc->absorbed) {
		/* the fault ended one statement of one part, which the operation
		 * recorded as that part's failure, and went on */
		ck_assert_msg(sc->absorbed(a) > 0,
		              "%s (%s): call %ld of %ld failed, yet the operation succeeded and "
		              "recorded no failure",
		              sc->name, mode_name(m), n, fv_calls());
		absorbed = 1;
	} else {
		ck_assert_msg(rc != 0,
		              "%s (%s): call %ld of %ld failed, yet the operation succeeded",
		              sc->name, mode_name(m), n, fv_calls());
		ck_assert_msg(*err_msg(), "%s (%s), N=%ld: an error without a message", sc->name,
		              mode_name(m), n);
		if (m->kind == FV_FULL)
			ck_assert_msg(strstr(err_msg(), "the disk is full"),
			              "%s (%s), N=%ld: a full disk is not named: %s", sc->name,
			              mode_name(m), n, err_msg());
		else
			ck_assert_msg(strstr(err_msg(), "I/O error"),
			              "%s (%s), N=%ld: the I/O error is not named: %s", sc->name,
			              mode_name(m), n, err_msg());
	}
	/* what a crash now would leave, recovered by the next process */
	copy_db_aside(work, crash);
	ck_assert_msg(db_open(crash, 0, &c) == 0, "%s", err_msg());
	sc->whole(c);
	assert_clean(c, "after a crash");
	db_close(c);
	/* the failed connection stays usable: the request again is done once
	 * (read on that connection; FD_STRESS also reads it on a fresh one and
	 * runs check_all on it) */
	if (absorbed && sc->revive)
		sc->revive(a);
	ck_assert_msg(sc->run(a) == 0, "%s (%s), N=%ld: the retry failed: %s", sc->name,
	              mode_name(m), n, err_msg());
	if (!stress) {
		sc->done(a);
		db_close(a);
		return failed > 0;
	}
	db_close(a);
	ck_assert_msg(db_open(work, 0, &c) == 0, "%s", err_msg());
	sc->done(c);
	assert_clean(c, "after the retry");
	db_close(c);
	return failed > 0;
}

static void sweep(const struct scenario *sc)
{
	static const struct mode modes[] = {
	    {FV_IOERR, 0, 0}, {FV_FULL, 1, 0}, {FV_IOERR, 1, 1}, {FV_FULL, 0, 1},
	    {FV_IOERR, 1, 0}, {FV_FULL, 0, 0}, {FV_IOERR, 0, 1}, {FV_FULL, 1, 1},
	};
	size_t i, nm = stress ? 8 : 4;
	long n, step;

	make_template(sc);
	for (i = 0; i < nm; i++) {
#if defined(__SANITIZE_ADDRESS__)
		/* a sanitized build runs every step about ten times slower: its
		 * short default takes one mode of each kind and cache (an I/O error
		 * once with the normal cache, a full disk once with a tiny one);
		 * the plain build's run of the same tests takes all four */
		if (!stress && i != 0 && i != 3)
			continue;
#endif
		/* the short default takes every other N with a tiny cache (the two
		 * tiny modes take the odd and the even ones): they fault two to
		 * three times as often, inside statements */
		step = !stress && modes[i].tiny_cache ? 2 : 1;
#if defined(__SANITIZE_ADDRESS__)
		/* and, sanitized, every fourth N in its two modes (the channel
		 * batch, whose N run to hundreds, every eighth): the normal cache
		 * from 1, the tiny one from half a step on, so that between them
		 * they take every other one of those N */
		if (!stress)
			step = sc->san_step ? sc->san_step : 4;
#endif
		n = step == 2 && modes[i].sticky       ? 2
		    : step >= 4 && modes[i].tiny_cache ? 1 + step / 2
		                                       : 1;
		for (; n < 5000 && one_fault(sc, &modes[i], n); n += step)
			;
		ck_assert_msg(n < 5000, "%s (%s): never succeeded", sc->name, mode_name(&modes[i]));
		printf("# %s (%s): %ld faults%s, each left it whole or not at all\n", sc->name,
		       mode_name(&modes[i]), (n - 1) / step,
		       step == 2   ? " (every other N)"
		       : step == 4 ? " (every fourth N)"
		       : step == 8 ? " (every eighth N)"
		                   : "");
	}
	fx_tmp_done(&F);
}

/* ------------------------------------------------------------ (a) payment */

static void pay_make(struct db *db)
{
	fx_invoice(db, 1, 10000, 30);
	fx_invoice(db, 1, 20000, 30);
}

static int pay_run(struct db *db)
{
	struct payment_input in = {0};
	struct alloc_input al[2] = {{1, 10000}, {2, 20000}};
	struct idem_result res;
	int rc;

	in.customer_id = 1;
	in.currency = "USD";
	in.amount = 30000;
	in.method = "check";
	in.reference = "FAULT-1042";
	rc = payment_record(db, &in, al, 2, 0, "fault-key-1", &res);
	idem_result_free(&res);
	return rc;
}

static void pay_whole(struct db *db)
{
	int64_t n = one(db, "SELECT count(*) FROM payment WHERE reference = 'FAULT-1042'");

	ck_assert_msg(n == 0 || n == 1, "%lld payments", (long long)n);
	if (n == 0) {
		ck_assert_int_eq(one(db, "SELECT count(*) FROM payment_allocation"), 0);
		ck_assert_int_eq(one(db, "SELECT count(*) FROM idempotency_record"), 0);
		ck_assert_int_eq(one(db, "SELECT count(*) FROM invoice WHERE paid = 0 AND"
		                         " status = 'issued'"),
		                 2);
		return;
	}
	ck_assert_int_eq(one(db, "SELECT count(*) FROM payment WHERE amount = 30000 AND"
	                         " allocated = 30000 AND status = 'allocated'"),
	                 1);
	ck_assert_int_eq(one(db, "SELECT count(*) || ':' || sum(amount) = '2:30000'"
	                         " FROM payment_allocation WHERE reverses_id IS NULL"),
	                 1);
	ck_assert_int_eq(one(db, "SELECT count(*) FROM invoice WHERE balance = 0 AND"
	                         " status = 'paid'"),
	                 2);
	ck_assert_int_eq(one(db, "SELECT count(*) FROM idempotency_record"), 1);
}

static void pay_done(struct db *db)
{
	ck_assert_int_eq(one(db, "SELECT count(*) FROM payment"), 1);
	pay_whole(db);
}

static const struct scenario pay_scenario = {
    "payment_record across two invoices", pay_make, pay_run, pay_whole, pay_done, NULL, NULL, 0};

/* ------------------------------------------------------------ (b) channel batch */

#define ORDERS 4
static char order_no[ORDERS][65];

/* The fake channel: intent pi_fault_I is order I's, and it succeeded. */
static int fake_query_order(struct chan_ctx *c, const char *id, struct chan_order *out,
                            struct chan_status *st)
{
	int i;

	(void)c;
	memset(out, 0, sizeof *out);
	if (sscanf(id, "pi_fault_%d", &i) != 1 || i < 0 || i >= ORDERS) {
		snprintf(st->reason, sizeof st->reason, "no such intent");
		return CHAN_NOTFOUND;
	}
	snprintf(out->id, sizeof out->id, "%s", id);
	snprintf(out->status, sizeof out->status, "succeeded");
	out->state = CHAN_ORDER_SUCCEEDED;
	snprintf(out->order_no, sizeof out->order_no, "%s", order_no[i]);
	snprintf(out->currency, sizeof out->currency, "USD");
	out->invoice_id = 1;
	out->amount = out->amount_received = 10000 + 100 * i;
	return CHAN_OK;
}

static int fake_query_refund(struct chan_ctx *c, const char *id, struct chan_refund *out,
                             struct chan_status *st)
{
	(void)c;
	(void)id;
	(void)out;
	snprintf(st->reason, sizeof st->reason, "no refunds here");
	return CHAN_NOTFOUND;
}

/* The fake channel's words: its intents' events are about orders. */
static enum chan_event_kind fake_event_kind(const char *type, int *declined)
{
	*declined = 0;
	return !strncmp(type, "payment_intent.", 15) ? CHAN_EVENT_ORDER : CHAN_EVENT_OTHER;
}

static const struct chan_ops fake_ops = {.code = "fake",
                                         .query_order = fake_query_order,
                                         .query_refund = fake_query_refund,
                                         .event_kind = fake_event_kind};

struct evt {
	const char *id, *type, *object;
};

/* Four payments, a payout frontdesk does not act on, and a repeat. */
static const struct evt events[] = {
    {"evt_f0", "payment_intent.succeeded", "pi_fault_0"},
    {"evt_f1", "payment_intent.succeeded", "pi_fault_1"},
    {"evt_f2", "payment_intent.succeeded", "pi_fault_2"},
    {"evt_f3", "payment_intent.succeeded", "pi_fault_3"},
    {"evt_f4", "payout.paid", "po_fault"},
    {"evt_f5", "payment_intent.succeeded", "pi_fault_0"},
};
#define EVENTS (sizeof events / sizeof events[0])

static int store_events(struct db *db, void *arg)
{
	size_t i;
	int rc;

	(void)arg;
	for (i = 0; i < EVENTS; i++) {
		struct inbox_new ev = {0};
		int64_t id;
		int fresh;

		ev.source = "fake";
		ev.external_id = events[i].id;
		ev.via = "poll";
		ev.event_type = events[i].type;
		ev.object_id = events[i].object;
		ev.payload = "{}";
		ev.len = 2;
		ev.status = "received";
		if ((rc = inbox_insert(db, &ev, &id, &fresh)) != 0)
			return rc;
	}
	return 0;
}

static void batch_make(struct db *db)
{
	int i;

	fx_invoice(db, 1, 100000, 30);
	ck_assert_msg(chan_adapter_set(db, "fake", "http://127.0.0.1:9", NULL, -1) == 0, "%s",
	              err_msg());
	for (i = 0; i < ORDERS; i++)
		ck_assert_msg(
		    outbox_charge(db, "fake", 1, 10000 + 100 * i, NULL, order_no[i], NULL) == 0,
		    "%s", err_msg());
	ck_assert_msg(db_write(db, store_events, NULL) == 0, "%s", err_msg());
}

static int batch_run(struct db *db)
{
	struct chan_process_opts o;
	struct chan_process_result r = {0};

	chan_process_opts_default(&o, "fake");
	o.batch = 4; /* two transactions: four events, then two */
	return chan_process_due(db, &fake_ops, NULL, &o, NULL, NULL, 1, &r);
}

/* Each event is untouched, failed once (a fault recorded against it, to
 * retry), or done (processed or ignored); each order is paid, with one
 * payment, exactly when an event of its intent was processed: the
 * intent's second event (evt_f5) pays it when a fault failed the first. */
static void batch_whole(struct db *db)
{
	char sql[600];
	size_t i, j;
	int64_t paid = 0;

	ck_assert_int_eq(one(db, "SELECT count(*) FROM inbound_callback"), EVENTS);
	ck_assert_int_eq(one(db, "SELECT count(*) FROM inbound_callback WHERE NOT ("
	                         "(status = 'received' AND attempts = 0 AND processed_at IS NULL)"
	                         " OR (status = 'failed' AND attempts = 1 AND processed_at IS NULL)"
	                         " OR (status IN ('processed', 'ignored') AND attempts = 1"
	                         " AND processed_at IS NOT NULL))"),
	                 0);
	for (i = 0; i < ORDERS; i++) {
		int64_t done = 0;

		for (j = 0; j < EVENTS; j++) {
			if (strcmp(events[j].object, events[i].object))
				continue;
			snprintf(sql, sizeof sql,
			         "SELECT count(*) FROM inbound_callback WHERE external_id = '%s'"
			         " AND status = 'processed'",
			         events[j].id);
			done |= one(db, sql);
		}
		snprintf(sql, sizeof sql,
		         "SELECT count(*) FROM pay_order o JOIN payment p ON p.id = o.payment_id"
		         " WHERE o.order_no = '%s' AND o.status = 'paid' AND p.reference = '%s'"
		         " AND p.amount = o.amount AND p.allocated = o.amount",
		         order_no[i], events[i].object);
		ck_assert_msg(one(db, sql) == done, "intent %s is %s, its order is %s",
		              events[i].object, done ? "processed" : "untouched",
		              done ? "not paid" : "paid");
		snprintf(sql, sizeof sql, "SELECT count(*) FROM payment WHERE reference = '%s'",
		         events[i].object);
		ck_assert_int_eq(one(db, sql), done);
		paid += done;
	}
	ck_assert_int_eq(one(db, "SELECT count(*) FROM payment"), paid);
	ck_assert_int_eq(one(db, "SELECT count(*) FROM pay_order WHERE status <> 'paid'"),
	                 ORDERS - paid);
}

static void batch_done(struct db *db)
{
	batch_whole(db);
	ck_assert_int_eq(one(db, "SELECT count(*) FROM inbound_callback WHERE status IN"
	                         " ('processed', 'ignored')"),
	                 EVENTS);
	ck_assert_int_eq(one(db, "SELECT count(*) FROM payment"), ORDERS);
}

/* A fault inside one event's work (a statement journal gone to a file)
 * ends that statement only: the event is marked failed with the fault's
 * words, to be tried again on the backoff, and the batch goes on. */
static int64_t batch_absorbed(struct db *db)
{
	return one(db, "SELECT count(*) FROM inbound_callback WHERE status = 'failed'"
	               " AND attempts = 1 AND (last_error LIKE '%the disk is full%'"
	               " OR last_error LIKE '%I/O error%')");
}

/* What a person does with such an event: retry it now (inbox retry). */
static void batch_revive(struct db *db)
{
	sqlite3_stmt *st;

	ck_assert_int_eq(
	    sqlite3_prepare_v2(db_sqlite(db),
	                       "SELECT id FROM inbound_callback WHERE status = 'failed'", -1, &st,
	                       NULL),
	    SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		ck_assert_msg(inbox_retry(db, id) == 0, "inbox retry %lld: %s", (long long)id,
		              err_msg());
	}
	sqlite3_finalize(st);
}

static const struct scenario batch_scenario = {"a channel batch of six events",
                                               batch_make,
                                               batch_run,
                                               batch_whole,
                                               batch_done,
                                               batch_absorbed,
                                               batch_revive,
                                               8};

/* ------------------------------------------------------------ (c) task runner */

#define VISITS 5

/* Five visits of one invoiced job: the schema queues a calendar task each. */
static void runner_make(struct db *db)
{
	char sql[300];
	int i;

	fx_invoice(db, 1, 50000, 30);
	for (i = 0; i < VISITS; i++) {
		snprintf(sql, sizeof sql,
		         "INSERT INTO appointment (start_at, end_at, created_at, updated_at) VALUES"
		         " (%d, %d, 0, 0); INSERT INTO appointment_work (appointment_id,"
		         " service_order_id, est_minutes, created_at, updated_at) VALUES"
		         " (last_insert_rowid(), 1, 60, 0, 0)",
		         1796212800 + 86400 * i, 1796216400 + 86400 * i);
		exec_ok(db, sql);
	}
	ck_assert_int_eq(
	    one(db, "SELECT count(*) FROM task WHERE status = 'pending' AND kind = 'calendar'"),
	    VISITS);
}

static int runner_run(struct db *db)
{
	struct task_opts o;
	int rc, ran;

	task_opts_default(&o);
	o.batch = 3; /* claim and finish three, then two */
	do
		rc = task_run_batch(db, NULL, &o, &ran);
	while (!rc && ran > 0);
	return rc;
}

/* A task is done with its calendar row, or still to do (pending, or claimed
 * by the runner whose batch failed, until its claim expires); never failed
 * or dead because the disk failed. check_all allows a stale row only while
 * its task waits. */
static void runner_whole(struct db *db)
{
	ck_assert_int_eq(one(db, "SELECT count(*) FROM task WHERE status IN ('failed', 'dead')"),
	                 0);
	/* (the calendar tasks': the lifecycle task of the invoice's customer
	 * has a key that is no visit's) */
	ck_assert_int_eq(one(db, "SELECT count(*) FROM task j WHERE status = 'succeeded' AND"
	                         " kind = 'calendar' AND NOT"
	                         " EXISTS (SELECT 1 FROM appointment_calendar_view v WHERE"
	                         " v.appointment_id = CAST(j.key AS INTEGER))"),
	                 0);
}

static void runner_done(struct db *db)
{
	runner_whole(db);
	ck_assert_int_eq(one(db, "SELECT count(*) FROM task WHERE status = 'pending'"), 0);
}

static const struct scenario runner_scenario = {"the task runner rebuilding five calendar rows",
                                                runner_make,
                                                runner_run,
                                                runner_whole,
                                                runner_done,
                                                NULL,
                                                NULL,
                                                0};

/* ------------------------------------------------------------ tests */

/* The shim is really in the way: with nothing armed everything works and
 * the calls are counted; failing the first write fails the payment. */
START_TEST(test_shim_in_the_way)
{
	struct db *a;
	const struct mode once = {FV_IOERR, 0, 0};

	make_template(&pay_scenario);
	copy_db(tmpl, work);
	fv_install(1);
	ck_assert_msg(db_open(work, 0, &a) == 0, "%s", err_msg());
	fv_install(0);
	fv_arm(1000000, FV_IOERR, 0);
	ck_assert_msg(pay_run(a) == 0, "%s", err_msg());
	fv_disarm();
	ck_assert_int_gt(fv_calls(), 2); /* the -wal's frames and its sync at least */
	ck_assert_int_eq(fv_failed(), 0);
	db_close(a);
	ck_assert_int_eq(one_fault(&pay_scenario, &once, 1), 1);
	fx_tmp_done(&F);
}
END_TEST

/* A payment's statement journal stays in memory (src/db.c's limit): the
 * desk used to create, write and delete a temporary file for every one.
 * The same payment with SQLite's default limit of 64 KiB (set after a
 * shutdown of the library, in this test's own process) writes one, so the
 * payment is large enough to tell the two apart. */
static long journal_files(void)
{
	struct db *a;
	long n;

	copy_db(tmpl, work);
	fv_install(1);
	ck_assert_msg(db_open(work, 0, &a) == 0, "%s", err_msg());
	fv_install(0);
	fv_arm(1000000, FV_IOERR, 0);
	ck_assert_msg(pay_run(a) == 0, "%s", err_msg());
	fv_disarm();
	n = fv_subjournals();
	db_close(a);
	unlink(work);
	return n;
}

START_TEST(test_statement_journal_in_memory)
{
	make_template(&pay_scenario);
	ck_assert_int_eq(journal_files(), 0);
	ck_assert_int_eq(sqlite3_shutdown(), SQLITE_OK);
	ck_assert_int_eq(sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, 64 << 10), SQLITE_OK);
	ck_assert_int_gt(journal_files(), 0);
	fx_tmp_done(&F);
}
END_TEST

/* A statement whose journal outgrows the limit goes on in a file and
 * succeeds: 10 MB of rows changed by one UPDATE inside a transaction
 * (SQLite 3.40 failed that with SQLITE_FULL, a full disk that was not,
 * whenever the limit was above 128 KiB; src/db.c). */
START_TEST(test_statement_journal_spills)
{
	struct db *a;

	fx_tmp(&F, "spill");
	snprintf(work, sizeof work, "%s/work.db", F.dir);
	ck_assert_msg(db_open(work, DB_OPEN_CREATE, &a) == 0, "%s", err_msg());
	exec_ok(a, "CREATE TEMP TABLE big (id INTEGER PRIMARY KEY, x TEXT UNIQUE)");
	exec_ok(a, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000)"
	           " INSERT INTO big SELECT i, printf('%0500d', i) FROM c");
	exec_ok(a, "CREATE TABLE main.big (id INTEGER PRIMARY KEY, x TEXT UNIQUE)");
	exec_ok(a, "INSERT INTO main.big SELECT * FROM temp.big");
	exec_ok(a, "BEGIN");
	exec_ok(a, "INSERT INTO main.big (x) VALUES ('first')");
	exec_ok(a, "UPDATE main.big SET x = x || 'a'");
	exec_ok(a, "UPDATE temp.big SET x = x || 'a'");
	exec_ok(a, "COMMIT");
	ck_assert_int_eq(fx_one(a, "SELECT count(*) FROM main.big WHERE x LIKE '%a'"), 20001);
	db_close(a);
	fx_tmp_done(&F);
}
END_TEST

START_TEST(test_payment_faults)
{
	sweep(&pay_scenario);
}
END_TEST

START_TEST(test_channel_batch_faults)
{
	sweep(&batch_scenario);
}
END_TEST

START_TEST(test_task_runner_faults)
{
	sweep(&runner_scenario);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("faults");
	TCase *tc = tcase_create("faults");
	SRunner *sr;
	int failed;

	/* about 25 s in all here, about 4 minutes in a sanitizer build */
	stress = getenv("FD_STRESS") != NULL;
	tcase_set_timeout(tc, stress ? 900 : 300);
	tcase_add_test(tc, test_shim_in_the_way);
	tcase_add_test(tc, test_statement_journal_in_memory);
	tcase_add_test(tc, test_statement_journal_spills);
	tcase_add_test(tc, test_payment_faults);
	tcase_add_test(tc, test_channel_batch_faults);
	tcase_add_test(tc, test_task_runner_faults);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
