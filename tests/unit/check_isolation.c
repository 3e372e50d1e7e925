/*
 * check_isolation.c - unit tests of issue 18's isolation: long work never
 * makes a desk wait and never leaves the -wal large (db.c's busy handler,
 * db_yield and db_checkpoint; projection_rebuild_all's batches; the job
 * runner's pause between batches; journal_export's checkpoint).
 *
 * Nothing here is timed: a desk that waited too long shows as a payment
 * refused with FD_EBUSY under its (short) busy timeout, a -wal left large as
 * its size in bytes.
 */
#include <config.h>

#include <check.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backup.h"
#include "db.h"
#include "err.h"
#include "fixture.h"
#include "journal.h"
#include "payment.h"
#include "projection.h"
#include "task.h"

#define VISITS    3000
#define WAL_LIMIT 4194304 /* db.c's journal_size_limit */

static struct fx F;
static struct db *db;

static void setup(void)
{
	fx_open(&F, "iso");
	db = F.db;
}

static void teardown(void)
{
	fx_close(&F);
	db = NULL;
}

static void exec(struct db *d, const char *sql)
{
	ck_assert_msg(db_exec(d, sql) == 0, "%s: %s", sql, err_msg());
}

/* A customer and VISITS visits, every third one working on a priced job, in
 * one transaction; their calendar rows built. Returns the customer. */
static int64_t many_visits(void)
{
	int64_t done = 0;

	exec(db, "BEGIN IMMEDIATE");
	exec(db, "INSERT INTO customer (name, created_at, updated_at) VALUES ('Ada Lee', 0, 0)");
	exec(db, "INSERT INTO service_order (customer_id, title, currency, created_at, "
	         "updated_at) VALUES (1, 'Wash', 'USD', 0, 0)");
	exec(db, "INSERT INTO line_item (service_order_id, kind, description, qty_milli, "
	         "unit_price, amount, created_at, updated_at) "
	         "VALUES (1, 'SERVICE', 'Wash', 1000, 5000, 5000, 0, 0)");
	exec(db, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) "
	         "INSERT INTO appointment (start_at, end_at, created_at, updated_at) "
	         "SELECT 1796000000 + i * 3600, 1796000000 + i * 3600 + 1800, 0, 0 FROM n");
	exec(db, "INSERT INTO appointment_work (appointment_id, service_order_id, est_minutes, "
	         "created_at, updated_at) SELECT id, 1, 30, 0, 0 FROM appointment "
	         "WHERE id % 3 = 0");
	exec(db, "COMMIT");
	ck_assert_int_eq(projection_rebuild_all(db, 0, NULL, NULL, &done), 0);
	ck_assert_int_eq(done, VISITS);
	return 1;
}

static void stale_all(struct db *d)
{
	exec(d, "UPDATE appointment_calendar_view SET projection_version = 2");
}

static char wait_line(int fd)
{
	char ch = 0, first = 0;
	int n = 0;

	while (read(fd, &ch, 1) == 1) {
		if (!n++)
			first = ch;
		if (ch == '\n')
			break;
	}
	return first;
}

static void say_running(int64_t done, int64_t total, void *arg)
{
	int *fd = arg;

	(void)done;
	(void)total;
	if (*fd >= 0) {
		if (write(*fd, "R\n", 2) != 2)
			_exit(4);
		close(*fd);
		*fd = -1;
	}
}

/*
 * A desk records payments while another process rebuilds the whole calendar
 * again and again, every row to write: each payment gets in (none refused
 * busy) under a busy timeout far shorter than the rebuild. Before batches
 * yielded and a waiting desk looked at the lock every millisecond, the
 * rebuild took the lock again within microseconds of each commit while the
 * desk slept in SQLite's busy handler, and the desk waited for the whole
 * rebuild (bench/ISOLATION-RESULTS.md: seconds on a million visits).
 */
START_TEST(test_desk_pays_while_rebuild_runs)
{
	struct payment_input in = {0};
	struct idem_result res;
	int fds[2], status, i, refused = 0;
	int64_t cust = many_visits(), n = -1;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		struct db *w;
		int fd = fds[1], k;

		close(fds[0]);
		if (db_open(F.path, 0, &w))
			_exit(2);
		for (k = 0; k < 1000; k++) {
			if (db_exec(w,
			            "UPDATE appointment_calendar_view SET projection_version = 2"))
				_exit(3);
			if (projection_rebuild_all(w, 0, say_running, &fd, NULL))
				_exit(3);
		}
		_exit(0);
	}
	close(fds[1]);
	ck_assert_int_eq(wait_line(fds[0]), 'R');
	close(fds[0]);
	/* a quarter of a second is far less than what the rebuilds take, far
	 * more than one of their batches */
	db_set_busy_timeout(db, 250);
	in.customer_id = cust;
	in.currency = "USD";
	in.amount = 100;
	in.method = "cash";
	for (i = 0; i < 30; i++) {
		int rc = payment_record(db, &in, NULL, 0, 0, NULL, &res);

		if (rc == 0)
			idem_result_free(&res);
		else if (refused++ == 0)
			fprintf(stderr, "payment %d refused: %s\n", i, err_msg());
	}
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status), "the rebuilds ended before the payments (%d)", status);
	ck_assert_int_eq(refused, 0);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM payment"), 30);
	/* killed in the middle of a batch: a new run leaves it right */
	db_set_busy_timeout(db, 5000);
	ck_assert_int_eq(projection_rebuild_all(db, 0, NULL, NULL, NULL), 0);
	ck_assert_int_eq(projection_check(db, NULL, NULL, &n), 0);
	ck_assert_int_eq(n, 0);
}
END_TEST

/* The payments of test_desk_pays_* : n of 1.00 for cust under a busy
 * timeout of 250 ms; returns how many were refused. */
static int pay_many(int64_t cust, int n)
{
	struct payment_input in = {0};
	struct idem_result res;
	int i, refused = 0;

	db_set_busy_timeout(db, 250);
	in.customer_id = cust;
	in.currency = "USD";
	in.amount = 100;
	in.method = "cash";
	for (i = 0; i < n; i++) {
		if (payment_record(db, &in, NULL, 0, 0, NULL, &res) == 0)
			idem_result_free(&res);
		else if (refused++ == 0)
			fprintf(stderr, "payment %d refused: %s\n", i, err_msg());
	}
	db_set_busy_timeout(db, 5000);
	return refused;
}

/*
 * The same while the task runner works through a backlog: every visit moved
 * (3000 calendar tasks queued), run in batches of 64 until none is due, again
 * and again. Before, the runner went from one batch to the next at once.
 */
START_TEST(test_desk_pays_while_runner_drains_a_backlog)
{
	int fds[2], status;
	int64_t cust = many_visits();
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		volatile sig_atomic_t stop = 0;
		struct task_opts o;
		struct db *w;
		int k;

		close(fds[0]);
		task_opts_default(&o);
		if (db_open(F.path, 0, &w))
			_exit(2);
		for (k = 0; k < 1000; k++) {
			if (db_exec(w, "UPDATE appointment SET end_at = end_at + 60"))
				_exit(3);
			if (k == 0 && write(fds[1], "R\n", 2) != 2)
				_exit(4);
			task_run_loop(w, &stop, &o, 0, 1);
		}
		_exit(0);
	}
	close(fds[1]);
	ck_assert_int_eq(wait_line(fds[0]), 'R');
	close(fds[0]);
	ck_assert_int_eq(pay_many(cust, 30), 0);
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status), "the runs ended before the payments (%d)", status);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM payment"), 30);
}
END_TEST

struct stop_at {
	int64_t at; /* stop once this many visits are done */
	int fd;     /* where to say how many were */
};

static void stop_after(int64_t done, int64_t total, void *arg)
{
	struct stop_at *s = arg;

	(void)total;
	if (done >= s->at) {
		/* between two batches: the one before is committed (batches may
		 * be smaller than asked: they shrink when slow) */
		if (write(s->fd, &done, sizeof done) != (ssize_t)sizeof done)
			_exit(4);
		_exit(0);
	}
}

static const char rows_sql[] =
    "SELECT appointment_id, start_at, end_at, customers, services, total_price, currency, "
    "est_minutes, payment_status, status, projection_version FROM appointment_calendar_view";

/*
 * A full rebuild stopped between two batches (its process gone, its lock
 * left behind) and run again gives the same calendar as one rebuild from
 * nothing: the batches are whole, and a new run recomputes every row.
 */
START_TEST(test_rebuild_stopped_between_batches_then_resumed)
{
	static const int64_t stops[] = {100, 700, 2900};
	int64_t n = -1, done = 0;
	char sql[512];
	size_t k;

	many_visits();
	for (k = 0; k < sizeof stops / sizeof stops[0]; k++) {
		struct stop_at sa = {stops[k], -1};
		int64_t at = 0;
		pid_t pid;
		int status, fds[2];

		/* the price changes (calendar tasks queued) and every row is stale */
		exec(db, "UPDATE line_item SET unit_price = unit_price + 1, amount = amount + 1");
		stale_all(db);
		ck_assert_int_eq(pipe(fds), 0);
		pid = fork();
		ck_assert(pid >= 0);
		if (pid == 0) {
			struct db *w;

			close(fds[0]);
			sa.fd = fds[1];
			if (db_open(F.path, 0, &w))
				_exit(2);
			projection_rebuild_all(w, 100, stop_after, &sa, NULL);
			_exit(3); /* it should have stopped before the end */
		}
		close(fds[1]);
		ck_assert_int_eq(read(fds[0], &at, sizeof at), (ssize_t)sizeof at);
		close(fds[0]);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		ck_assert(at >= stops[k] && at < VISITS);
		/* the batches before the stop are written, the rest still stale */
		ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM appointment_calendar_view "
		                            "WHERE projection_version = 1"),
		                 at);
		ck_assert_int_eq(projection_check(db, NULL, NULL, &n), 0);
		ck_assert_int_eq(n, VISITS - at);
		/* run again */
		ck_assert_int_eq(projection_rebuild_all(db, 100, NULL, NULL, &done), 0);
		ck_assert_int_eq(done, VISITS);
		ck_assert_int_eq(projection_check(db, NULL, NULL, &n), 0);
		ck_assert_int_eq(n, 0);
		ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM task WHERE kind = 'calendar' "
		                            "AND status = 'pending'"),
		                 0);
		/* the same rows as a rebuild from nothing */
		exec(db, "DROP TABLE IF EXISTS temp.resumed");
		snprintf(sql, sizeof sql, "CREATE TEMP TABLE resumed AS %s", rows_sql);
		exec(db, sql);
		exec(db, "DELETE FROM appointment_calendar_view");
		ck_assert_int_eq(projection_rebuild_all(db, 0, NULL, NULL, &done), 0);
		snprintf(sql, sizeof sql,
		         "SELECT (SELECT count(*) FROM (%1$s EXCEPT SELECT * FROM resumed)) + "
		         "(SELECT count(*) FROM (SELECT * FROM resumed EXCEPT %1$s))",
		         rows_sql);
		ck_assert_int_eq(fx_one(db, sql), 0);
		ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM resumed"), VISITS);
	}
}
END_TEST

static off_t wal_size(void)
{
	char p[160];
	struct stat sb;

	snprintf(p, sizeof p, "%s-wal", F.path);
	return stat(p, &sb) == 0 ? sb.st_size : 0;
}

/* What another connection commits while an export holds its snapshot. */
struct during {
	struct db *w;
	int done;
};

static ssize_t during_write(void *cookie, const char *buf, size_t size)
{
	struct during *d = cookie;

	(void)buf;
	if (!d->done++) {
		/* some 12 MiB, and the export's snapshot keeps them in the -wal */
		exec(d->w, "INSERT INTO scratch SELECT randomblob(1000) FROM "
		           "(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
		           "WHERE i < 12000) SELECT i FROM n)");
	}
	return (ssize_t)size;
}

/* SQLite's check of a file run on every connection the process opens */
static int integrity_runs;

static int count_integrity(unsigned type, void *ctx, void *p, void *x)
{
	const char *sql = type == SQLITE_TRACE_STMT ? sqlite3_sql(p) : NULL;

	(void)ctx;
	(void)x;
	/* the table-valued pragma_integrity_check runs this one inside */
	if (sql && !strncmp(sql, "PRAGMA integrity_check", 22))
		integrity_runs++;
	return 0;
}

static int trace_integrity(sqlite3 *h, char **msg, const void *api)
{
	(void)msg;
	(void)api;
	sqlite3_trace_v2(h, SQLITE_TRACE_STMT, count_integrity, NULL);
	return SQLITE_OK;
}

/* A backup checks its copy whole (SQLite's check among every check of
 * `frontdesk check`) once: on a large file that check is most of the
 * backup's time, and a second run of it finds nothing the first did not. */
START_TEST(test_backup_checks_its_copy_once)
{
	struct backup_result res;
	char dest[200];

	many_visits();
	snprintf(dest, sizeof dest, "%s/copy.db", F.dir);
	integrity_runs = 0;
	ck_assert_int_eq(sqlite3_auto_extension((void (*)(void))trace_integrity), SQLITE_OK);
	ck_assert_msg(backup_take(db, dest, 0, NULL, &res) == 0, "%s", err_msg());
	sqlite3_cancel_auto_extension((void (*)(void))trace_integrity);
	backup_result_free(&res);
	ck_assert_int_eq(integrity_runs, 1);
}
END_TEST

/* Calls of sync_file_range made by the code under test: this definition
 * comes before the C library's, which it then calls. */
static int range_flushes;

int sync_file_range(int fd, off64_t off, off64_t n, unsigned int flags)
{
	int (*real)(int, off64_t, off64_t, unsigned int);

	range_flushes++;
	*(void **)&real = dlsym(RTLD_NEXT, "sync_file_range");
	return real ? real(fd, off, n, flags) : 0;
}

/* A backup writes its copy to the disk as it goes, a few MiB at a time:
 * left to the final fsync, a copy of 2 GB went to the disk at once and a
 * desk's commit waited 1.4 s behind it (bench/isolation.sh). */
START_TEST(test_backup_flushes_its_copy_as_it_goes)
{
	struct backup_result res;
	char dest[200];

	/* about 12 MiB: three flushes' worth */
	exec(db, "CREATE TABLE bulk (b BLOB)");
	exec(db, "INSERT INTO bulk SELECT randomblob(1000) FROM (WITH RECURSIVE n(i) AS "
	         "(SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000) SELECT i FROM n)");
	snprintf(dest, sizeof dest, "%s/copy.db", F.dir);
	range_flushes = 0;
	ck_assert_msg(backup_take(db, dest, 0, NULL, &res) == 0, "%s", err_msg());
	backup_result_free(&res);
	ck_assert_int_ge(range_flushes, 2);
}
END_TEST

/*
 * An export holds one snapshot for as long as it writes (the journal must
 * balance), so what a desk commits meanwhile stays in the -wal, which grows.
 * Once it has ended, the export checkpoints, and the next commit finds the
 * -wal copied back and cuts it to its usual size (journal_size_limit).
 * Before, the -wal stayed at its largest for good.
 */
START_TEST(test_wal_cut_back_after_export)
{
	cookie_io_functions_t io = {.write = during_write};
	struct during d = {NULL, 0};
	FILE *out;

	ck_assert_int_eq(db_open(F.path, 0, &d.w), 0);
	exec(d.w, "CREATE TABLE scratch (b BLOB)");
	out = fopencookie(&d, "w", io);
	ck_assert(out != NULL);
	ck_assert_int_eq(journal_export(db, out), 0);
	fclose(out);
	ck_assert_int_eq(d.done, 1);
	ck_assert_msg(wal_size() > 2 * WAL_LIMIT, "the -wal did not grow: %lld",
	              (long long)wal_size());
	exec(d.w, "INSERT INTO scratch VALUES (1)");
	ck_assert_msg(wal_size() <= WAL_LIMIT, "the -wal is still %lld bytes",
	              (long long)wal_size());
	db_close(d.w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("isolation");
	TCase *tc = tcase_create("isolation");
	SRunner *sr;
	int failed;

	fx_env();
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_desk_pays_while_rebuild_runs);
	tcase_add_test(tc, test_desk_pays_while_runner_drains_a_backlog);
	tcase_add_test(tc, test_rebuild_stopped_between_batches_then_resumed);
	tcase_add_test(tc, test_wal_cut_back_after_export);
	tcase_add_test(tc, test_backup_checks_its_copy_once);
	tcase_add_test(tc, test_backup_flushes_its_copy_as_it_goes);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
