/*
 * probe.c - in-process measurements for bench/run.sh.
 *
 *   probe week DB FROM RUNS       the week query (projection_range over 7
 *                                 days from FROM) RUNS times in one process:
 *                                 median and p99 in ms, rows, and the first
 *                                 (cold) query after opening
 *   probe range DB FROM DAYS RUNS the same over DAYS days (a month view: 35)
 *   probe latency DB RUNS         with a task runner alive on DB, post RUNS
 *                                 payments (each its own transaction, through
 *                                 payment_record) on open invoices, and time
 *                                 from each commit until a visit of the paid
 *                                 job shows the new payment status
 *
 * Times are CLOCK_MONOTONIC. Not a test.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "db.h"
#include "err.h"
#include "payment.h"
#include "projection.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	printf("%s: median %.3f ms, p99 %.3f ms, min %.3f ms, max %.3f ms (%d runs)\n", what,
	       v[n / 2], v[(int)(n * 0.99) < n ? (int)(n * 0.99) : n - 1], v[0], v[n - 1], n);
}

static int count_row(const struct cal_row *r, void *arg)
{
	(void)r;
	(*(long *)arg)++;
	return 0;
}

static int week(const char *path, const char *from_s, int ndays, int runs)
{
	struct db *db;
	int64_t from, to;
	double t0, cold, *v = calloc((size_t)runs, sizeof *v);
	long rows = 0;
	int i;

	t0 = now_ms();
	if (db_open(path, DB_OPEN_READONLY, &db)) {
		fprintf(stderr, "probe: %s\n", err_msg());
		return 1;
	}
	if (clock_parse_local(from_s, &from)) {
		fprintf(stderr, "probe: %s\n", err_msg());
		return 1;
	}
	to = clock_add_days(from, ndays);
	if (projection_range(db, from, to, count_row, &rows))
		return 1;
	cold = now_ms() - t0;
	printf("%s query: %ld visits; open + first query %.3f ms\n", ndays == 7 ? "week" : "range",
	       rows, cold);
	for (i = 0; i < runs; i++) {
		long n = 0;

		t0 = now_ms();
		projection_range(db, from, to, count_row, &n);
		v[i] = now_ms() - t0;
	}
	report(ndays == 7 ? "week query (in process, warm)" : "range query (in process, warm)", v,
	       runs);
	/* the floor: the same statement stepped by SQLite alone, reading the same
	 * columns, with none of frontdesk's code around it */
	{
		sqlite3_stmt *st;
		int c;

		if (db_prepare(db, projection_range_sql(), &st))
			return 1;
		for (i = 0; i < runs; i++) {
			t0 = now_ms();
			sqlite3_bind_int64(st, 1, from);
			sqlite3_bind_int64(st, 2, to);
			while (sqlite3_step(st) == SQLITE_ROW)
				for (c = 0; c < 10; c++) /* the columns of projection_range */
					if (c == 3 || c == 4 || c == 6 || c == 8 || c == 9)
						sqlite3_column_text(st, c);
					else
						sqlite3_column_int64(st, c);
			sqlite3_reset(st);
			v[i] = now_ms() - t0;
		}
		sqlite3_finalize(st);
		report("the same statement stepped by SQLite alone", v, runs);
	}
	db_close(db);
	free(v);
	return 0;
}

static int latency(const char *path, int runs)
{
	struct db *db;
	sqlite3_stmt *st;
	double *v = calloc((size_t)runs, sizeof *v);
	int64_t(*cand)[4] = calloc((size_t)runs, sizeof *cand);
	int k, nc = 0, n = 0;

	if (db_open(path, 0, &db)) {
		fprintf(stderr, "probe: %s\n", err_msg());
		return 1;
	}
	/* open invoices, each with a visit (not cancelled: that one would show
	 * nothing to charge whatever is paid) of a job it bills */
	if (db_prepare(
	        db,
	        "SELECT i.id, i.customer_id, i.balance, min(w.appointment_id) FROM invoice i "
	        "JOIN invoice_line il ON il.invoice_id = i.id "
	        "JOIN line_item li ON li.id = il.line_item_id "
	        "JOIN appointment_work w ON w.service_order_id = li.service_order_id "
	        "JOIN appointment a ON a.id = w.appointment_id "
	        "AND a.status NOT IN ('cancelled', 'no_show') "
	        "WHERE i.status = 'issued' AND i.balance > 1 GROUP BY i.id "
	        "ORDER BY i.id DESC LIMIT ?",
	        &st))
		return 1;
	sqlite3_bind_int(st, 1, runs);
	/* read them all first: a statement still stepping would keep this
	 * connection's read snapshot, and it would never see the runner's commit */
	while (nc < runs && sqlite3_step(st) == SQLITE_ROW) {
		for (k = 0; k < 4; k++)
			cand[nc][k] = sqlite3_column_int64(st, k);
		nc++;
	}
	sqlite3_finalize(st);
	for (k = 0; k < nc; k++) {
		int64_t inv = cand[k][0], cust = cand[k][1], bal = cand[k][2], appt = cand[k][3];
		struct payment_input in = {
		    .customer_id = cust, .currency = "USD", .amount = bal / 2, .method = "cash"};
		struct alloc_input al = {inv, bal / 2};
		struct idem_result res = {0};
		struct cal_row r;
		double t0;

		if (payment_record(db, &in, &al, 1, 0, NULL, &res)) {
			fprintf(stderr, "probe: %s\n", err_msg());
			continue;
		}
		t0 = now_ms(); /* payment_record returned: committed */
		idem_result_free(&res);
		for (;;) {
			int done = 0;

			if (projection_get(db, appt, &r) == 0) {
				done = strcmp(r.pay_status, "partially_paid") == 0 ||
				       strcmp(r.pay_status, "paid") == 0 ||
				       strcmp(r.pay_status, "overpaid") == 0;
				cal_row_free(&r);
			}
			if (done)
				break;
			if (now_ms() - t0 > 10000) {
				fprintf(stderr, "probe: visit %lld not updated after 10 s\n",
				        (long long)appt);
				return 1;
			}
			{
				struct timespec ts = {0, 500000};

				nanosleep(&ts, NULL);
			}
		}
		v[n++] = now_ms() - t0;
	}
	if (n == 0) {
		fprintf(stderr, "probe: no open invoice found\n");
		return 1;
	}
	report("payment commit -> calendar row", v, n);
	db_close(db);
	free(cand);
	free(v);
	return 0;
}

int main(int argc, char **argv)
{
	clock_set_zone(NULL);
	if (argc == 5 && !strcmp(argv[1], "week"))
		return week(argv[2], argv[3], 7, atoi(argv[4]));
	if (argc == 6 && !strcmp(argv[1], "range"))
		return week(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
	if (argc == 4 && !strcmp(argv[1], "latency"))
		return latency(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: probe week DB FROM RUNS | probe latency DB RUNS\n");
	return 2;
}
