/*
 * cell-pay.c - a desk paying invoices and watching their visits' calendar
 * cells, for bench/desk-first.sh: from the commit of a payment allocated to
 * an invoice until the calendar (the appointment_calendar_view row the
 * screen draws) shows the visit's new payment status, with the task runner
 * (`frontdesk serve`) applying the calendar task the commit queued.
 *
 *   cell-pay DB N GAP_MS [TIMEOUT_S]
 *
 * Picks N issued, unpaid invoices that bill one job of a visit that job
 * alone fills and whose calendar row says "unpaid" (the newest first), and
 * pays each in full, GAP_MS milliseconds apart: payment_record (the core
 * function `frontdesk pay record` calls, with one allocation, in one
 * BEGIN IMMEDIATE .. COMMIT with synchronous=FULL), then reads the visit's
 * row every 0.2 ms until its payment_status is no longer "unpaid" (at most
 * TIMEOUT_S seconds, default 120). For every payment, one line on stdout:
 *
 *   COMMIT_US CELL_US
 *
 * COMMIT_US the wall time of payment_record, CELL_US the time from its
 * return until the row showed the payment (-1: not within TIMEOUT_S).
 * Not a test.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "db.h"
#include "err.h"
#include "idem.h"
#include "payment.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000L};

	nanosleep(&ts, NULL);
}

struct target {
	int64_t invoice, customer, visit, balance;
};

/* The invoices to pay: issued and unpaid, billing one job, that job alone
 * on its visit, the visit's calendar row "unpaid"; newest first. */
static int pick(sqlite3 *s, struct target *t, int n)
{
	sqlite3_stmt *st;
	int got = 0;

	if (sqlite3_prepare_v2(
	        s,
	        "SELECT i.id, i.customer_id, v.appointment_id, i.balance"
	        " FROM invoice i"
	        " JOIN invoice_line il ON il.invoice_id = i.id"
	        " JOIN line_item li ON li.id = il.line_item_id"
	        " JOIN appointment_work w ON w.service_order_id = li.service_order_id"
	        " JOIN appointment_calendar_view v ON v.appointment_id = w.appointment_id"
	        " WHERE i.status = 'issued' AND i.paid = 0 AND i.balance > 0"
	        " AND v.payment_status = 'unpaid'"
	        " AND (SELECT count(*) FROM appointment_work w2"
	        "      WHERE w2.appointment_id = w.appointment_id) = 1"
	        " AND (SELECT count(DISTINCT li2.service_order_id) FROM invoice_line il2"
	        "      JOIN line_item li2 ON li2.id = il2.line_item_id"
	        "      WHERE il2.invoice_id = i.id) = 1"
	        " AND (SELECT count(*) FROM appointment_work w3"
	        "      WHERE w3.service_order_id = w.service_order_id) = 1"
	        " GROUP BY i.id ORDER BY i.id DESC LIMIT ?",
	        -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int(st, 1, n);
	while (got < n && sqlite3_step(st) == SQLITE_ROW) {
		t[got].invoice = sqlite3_column_int64(st, 0);
		t[got].customer = sqlite3_column_int64(st, 1);
		t[got].visit = sqlite3_column_int64(st, 2);
		t[got].balance = sqlite3_column_int64(st, 3);
		got++;
	}
	sqlite3_finalize(st);
	return got;
}

int main(int argc, char **argv)
{
	struct payment_input in = {0};
	struct alloc_input al;
	struct idem_result res;
	struct target *t;
	struct db *db;
	sqlite3 *watch;
	sqlite3_stmt *cell;
	int n, got, i;
	long gap;
	double timeout, t0, t1, t2;

	if (argc < 4 || (n = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: cell-pay DB N GAP_MS [TIMEOUT_S]\n");
		return 2;
	}
	gap = atol(argv[3]);
	timeout = (argc > 4 ? atof(argv[4]) : 120.0) * 1e6;
	if (db_open(argv[1], 0, &db)) {
		fprintf(stderr, "cell-pay: %s: %s\n", argv[1], err_msg());
		return 1;
	}
	/* the screen's side: its own connection, reading the projection */
	if (sqlite3_open_v2(argv[1], &watch, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_busy_timeout(watch, 5000) != SQLITE_OK ||
	    sqlite3_prepare_v2(watch,
	                       "SELECT payment_status = 'unpaid' FROM appointment_calendar_view"
	                       " WHERE appointment_id = ?",
	                       -1, &cell, NULL) != SQLITE_OK) {
		fprintf(stderr, "cell-pay: %s: %s\n", argv[1], sqlite3_errmsg(watch));
		return 1;
	}
	t = calloc((size_t)n, sizeof *t);
	if (!t || (got = pick(watch, t, n)) < n) {
		fprintf(stderr, "cell-pay: fewer than %d unpaid invoices of one-job visits\n", n);
		return 1;
	}
	in.currency = "USD";
	in.method = "cash";
	in.note = "desk-first bench";
	for (i = 0; i < got; i++) {
		int unpaid = 1;

		in.customer_id = t[i].customer;
		in.amount = t[i].balance;
		al.invoice_id = t[i].invoice;
		al.amount = t[i].balance;
		t0 = now_us();
		if (payment_record(db, &in, &al, 1, 0, NULL, &res)) {
			fprintf(stderr, "cell-pay: invoice %lld: %s\n", (long long)t[i].invoice,
			        err_msg());
			return 1;
		}
		t1 = now_us();
		idem_result_free(&res);
		do {
			sqlite3_bind_int64(cell, 1, t[i].visit);
			if (sqlite3_step(cell) == SQLITE_ROW)
				unpaid = sqlite3_column_int(cell, 0);
			sqlite3_reset(cell);
			t2 = now_us();
			if (unpaid)
				sleep_us(200);
		} while (unpaid && t2 - t1 < timeout);
		printf("%.0f %.0f\n", t1 - t0, unpaid ? -1.0 : t2 - t1);
		fflush(stdout);
		sleep_us(gap * 1000);
	}
	sqlite3_finalize(cell);
	sqlite3_close(watch);
	db_close(db);
	free(t);
	return 0;
}
