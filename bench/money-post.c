/*
 * money-post.c - the posting rate of payments with two allocations each,
 * through the core API, for bench/money-run.sh.
 *
 *   money-post DB single N         N payments, each payment_record() in its own
 *                                  transaction (a desk taking one payment)
 *   money-post DB batch N SIZE     N payments through payment_record_batch(),
 *                                  SIZE payments per transaction
 *   money-post DB key N            as single, each with an idempotency key
 *
 * Every payment pays two open invoices of one customer in full: the pairs
 * that `money-gen --pool` issued (note "bench pool"), taken in order. The
 * database is used as it is (WAL, synchronous=FULL, every trigger); the
 * caller gives it a fresh copy for each run. Prints one line of JSON: the
 * payments, the seconds, the payments per second and the CPU time per
 * payment. Reading the pool is not timed. MONEY_POST_SQL, when set, is run on
 * the connection first (to try a pragma). Not a test.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "db.h"
#include "err.h"
#include "idem.h"
#include "payment.h"

struct pair {
	int64_t customer;
	struct alloc_input a[2];
};

static void die(const char *what)
{
	fprintf(stderr, "money-post: %s: %s\n", what, err_msg());
	exit(1);
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds (user + system) of this process: less noisy than the wall
 * clock on a shared machine. */
static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* The first n pairs of open pool invoices of one customer. */
static struct pair *read_pool(struct db *db, long n)
{
	struct pair *p = calloc((size_t)n, sizeof *p);
	sqlite3_stmt *st;
	int64_t prev_cust = 0, prev_id = 0, prev_bal = 0;
	long k = 0;

	if (!p)
		die("memory");
	if (db_prepare(db,
	               "SELECT id, customer_id, balance FROM invoice WHERE note = 'bench pool'"
	               " AND status = 'issued' ORDER BY id",
	               &st))
		die("pool");
	while (k < n && sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), cust = sqlite3_column_int64(st, 1);
		int64_t bal = sqlite3_column_int64(st, 2);

		if (prev_id && cust == prev_cust) {
			p[k].customer = cust;
			p[k].a[0].invoice_id = prev_id;
			p[k].a[0].amount = prev_bal;
			p[k].a[1].invoice_id = id;
			p[k].a[1].amount = bal;
			k++;
			prev_id = 0;
			continue;
		}
		prev_id = id;
		prev_cust = cust;
		prev_bal = bal;
	}
	sqlite3_finalize(st);
	if (k < n) {
		fprintf(stderr, "money-post: the pool has %ld pairs of open invoices, %ld asked\n",
		        k, n);
		exit(1);
	}
	return p;
}

/* MONEY_POST_PROFILE=1: time spent in each SQL statement (with the triggers
 * it fires), from sqlite3_trace_v2, printed to stderr at the end. */
#define PROF_MAX 64
static struct {
	const char *sql; /* sqlite3_sql() of a cached statement: stable */
	long count;
	double ms;
} prof[PROF_MAX];
static int nprof;

static int on_profile(unsigned type, void *ctx, void *p, void *x)
{
	const char *sql = sqlite3_sql(p);
	int i;

	for (i = 0; i < nprof; i++)
		if (!strcmp(prof[i].sql, sql))
			break;
	if (i == nprof) {
		if (nprof == PROF_MAX)
			return 0;
		prof[nprof++].sql = strdup(sql);
	}
	prof[i].count++;
	prof[i].ms += *(sqlite3_int64 *)x / 1e6;
	return 0;
}

static void print_profile(const char *path, long n)
{
	char wal[4096];
	struct stat sb;
	int i;

	snprintf(wal, sizeof wal, "%s-wal", path);
	if (stat(wal, &sb) == 0)
		fprintf(stderr, "WAL now %lld bytes: %.1f pages of 4 KiB per payment\n",
		        (long long)sb.st_size, sb.st_size / 4120.0 / n);

	for (i = 0; i < nprof; i++)
		fprintf(stderr, "%9.1f us/payment %7ld x  %.110s\n", prof[i].ms * 1000 / n,
		        prof[i].count, prof[i].sql);
}

static void input(const struct pair *p, struct payment_input *in)
{
	memset(in, 0, sizeof *in);
	in->customer_id = p->customer;
	in->currency = "USD";
	in->amount = p->a[0].amount + p->a[1].amount;
	in->method = "card";
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "";
	long n = argc > 3 ? atol(argv[3]) : 0, size = argc > 4 ? atol(argv[4]) : 1000, i, j;
	struct payment_batch_item *items;
	struct idem_result res;
	struct payment_input in;
	struct pair *p;
	struct db *db;
	double t0, t1, c0, c1;
	const char *extra = getenv("MONEY_POST_SQL");
	char key[64];

	if (argc < 4 || n < 1 || size < 1 ||
	    (strcmp(mode, "single") && strcmp(mode, "batch") && strcmp(mode, "key"))) {
		fprintf(stderr, "usage: money-post DB single|key N | money-post DB batch N SIZE\n");
		return 2;
	}
	if (db_open(argv[1], 0, &db))
		die(argv[1]);
	if (extra && *extra && db_exec(db, extra))
		die(extra);
	p = read_pool(db, n);
	if (getenv("MONEY_POST_PROFILE"))
		sqlite3_trace_v2(db_sqlite(db), SQLITE_TRACE_PROFILE, on_profile, NULL);
	items = calloc((size_t)size, sizeof *items);
	if (!items)
		die("memory");
	t0 = seconds();
	c0 = cpu_seconds();
	if (strcmp(mode, "batch") != 0) {
		for (i = 0; i < n; i++) {
			input(&p[i], &in);
			snprintf(key, sizeof key, "bench-%ld-%ld", (long)t0, i);
			if (payment_record(db, &in, p[i].a, 2, 0, !strcmp(mode, "key") ? key : NULL,
			                   &res))
				die("payment_record");
			idem_result_free(&res);
		}
	} else {
		for (i = 0; i < n; i += size) {
			long m = n - i < size ? n - i : size;

			for (j = 0; j < m; j++) {
				input(&p[i + j], &items[j].in);
				items[j].allocs = p[i + j].a;
				items[j].n = 2;
				items[j].auto_alloc = 0;
			}
			if (payment_record_batch(db, items, (size_t)m, NULL, &res, NULL))
				die("payment_record_batch");
			if (res.n != (size_t)m)
				die("batch answered the wrong number of payments");
			idem_result_free(&res);
		}
	}
	t1 = seconds();
	c1 = cpu_seconds();
	printf("{\"mode\": \"%s\", \"payments\": %ld, \"batch\": %ld, \"seconds\": %.4f,"
	       " \"per_second\": %.1f, \"cpu_seconds\": %.4f, \"cpu_us_per_payment\": %.1f}\n",
	       mode, n, strcmp(mode, "batch") ? 1 : size, t1 - t0, n / (t1 - t0), c1 - c0,
	       (c1 - c0) * 1e6 / n);
	if (getenv("MONEY_POST_PROFILE"))
		print_profile(argv[1], n);
	free(items);
	free(p);
	db_close(db);
	return 0;
}
