/*
 * gen.c - write a large frontdesk database (and the same visits as a
 * calcurse appointment file) for the benchmarks in bench/run.sh.
 *
 *   gen DB CALCURSE_DIR [APPOINTMENTS [YEARS]]
 *
 * APPOINTMENTS visits (default 1,000,000) spread evenly over YEARS years
 * (default 8, at most 56: invoices from 1970 on) ending on 2026-12-31, one
 * customer for every 20
 * visits (at least 50,000), one job per visit on
 * most visits, jobs that span several visits (15%), visits that serve two
 * jobs of two customers (8%), one to three line items per job, and, for 60%
 * of the jobs, an issued invoice of all their items, most of them paid
 * (85% in full, 5% in part). Past visits are done, 2% cancelled.
 *
 * Everything goes through the real schema (its CHECKs and triggers: history,
 * status flows, money figures and the calendar tasks) in ONE transaction with
 * synchronous=OFF and a rollback journal, which is what makes it fast; the
 * file is switched back to WAL at the end. Not a test: a fixture generator.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "db.h"
#include "err.h"
#include "money.h"

#define RECENT 64

/* the years an invoice may be issued in: an invoice number's counter is of
 * a year from 1970 on (the schema's CHECK), so the visits begin in 1970 at
 * the earliest: at most 56 years ending on 2026-12-31 */
#define FIRST_YEAR 1970
#define YEARS_KEPT 64
#define MAX_YEARS  56

static long n_customers = 50000; /* one for every 20 visits, at least 50,000 */

static unsigned long long rng = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void die(const char *what)
{
	fprintf(stderr, "gen: %s: %s\n", what, err_msg());
	exit(1);
}

static sqlite3_stmt *prep(struct db *db, const char *sql)
{
	sqlite3_stmt *st;

	if (db_prepare(db, sql, &st))
		die(sql);
	return st;
}

static int64_t step_id(struct db *db, sqlite3_stmt *st)
{
	if (sqlite3_step(st) != SQLITE_DONE) {
		db_fail(db, "insert");
		die(sqlite3_sql(st));
	}
	sqlite3_reset(st);
	return sqlite3_last_insert_rowid(db_sqlite(db));
}

static const char *const titles[] = {"Full detail", "Wash and wax",    "Interior clean",
                                     "Window tint", "Ceramic coat",    "Headlight restore",
                                     "Engine bay",  "Paint correction"};

struct jobinfo {
	int64_t customer;
	int64_t total; /* sum of its line item amounts */
};

int main(int argc, char **argv)
{
	long n = argc > 3 ? atol(argv[3]) : 1000000;
	int years = argc > 4 ? atoi(argv[4]) : 8;
	struct db *db;
	sqlite3_stmt *s_cust, *s_job, *s_appt, *s_link, *s_item, *s_status, *s_inv, *s_lines,
	    *s_issue, *s_pay, *s_alloc, *s_counter;
	struct jobinfo *jobs;
	int64_t first_day, recent[RECENT], njobs = 0, i, nrecent = 0, now_t, seq = 0;
	int64_t days, year_seq[YEARS_KEPT] = {0}; /* [year - FIRST_YEAR] */
	char path[1024];
	FILE *cal;
	time_t t0 = time(NULL);

	if (argc < 3 || n < 1 || years < 1 || years > MAX_YEARS) {
		fprintf(stderr, "usage: gen DB CALCURSE_DIR [APPOINTMENTS [YEARS (1 to %d)]]\n",
		        MAX_YEARS);
		return 2;
	}
	if (n / 20 > n_customers)
		n_customers = n / 20;
	setenv("FRONTDESK_NOW", "2026-12-01T09:00", 1);
	clock_set_zone(NULL);
	snprintf(path, sizeof path, "%s/apts", argv[2]);
	cal = fopen(path, "w");
	if (!cal) {
		perror(path);
		return 1;
	}
	if (db_open(argv[1], DB_OPEN_CREATE, &db))
		die(argv[1]);
	if (db_exec(db, "PRAGMA journal_mode=DELETE; PRAGMA synchronous=OFF; "
	                "PRAGMA cache_size=-1000000; PRAGMA temp_store=MEMORY"))
		die("pragmas");
	clock_parse_local("2026-12-31", &first_day);
	first_day = clock_add_days(first_day, -365 * years);
	days = 365 * years;
	now_t = clock_now();
	jobs = calloc((size_t)n * 2 + 2, sizeof *jobs);

	if (db_begin_write(db))
		die("begin");
	s_cust = prep(db, "INSERT INTO customer (name, phone, created_at, updated_at) "
	                  "VALUES (?, ?, 0, 0)");
	s_job = prep(db, "INSERT INTO service_order (customer_id, title, currency, created_at, "
	                 "updated_at) VALUES (?, ?, 'USD', ?, ?)");
	s_appt = prep(db, "INSERT INTO appointment (start_at, end_at, location, created_at, "
	                  "updated_at) VALUES (?, ?, ?, ?, ?)");
	s_link = prep(db, "INSERT INTO appointment_work (appointment_id, service_order_id, "
	                  "est_minutes, created_at, updated_at) VALUES (?, ?, ?, 0, 0)");
	s_item =
	    prep(db, "INSERT INTO line_item (service_order_id, kind, description, qty_milli, "
	             "unit_price, amount, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, 0)");
	s_status = prep(db, "UPDATE appointment SET status = ? WHERE id = ?");
	for (i = 1; i <= n_customers; i++) {
		char name[48], phone[24];

		snprintf(name, sizeof name, "Customer %lld", (long long)i);
		snprintf(phone, sizeof phone, "555-%04lld", (long long)(i % 10000));
		sqlite3_bind_text(s_cust, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s_cust, 2, phone, -1, SQLITE_TRANSIENT);
		step_id(db, s_cust);
	}
	for (i = 0; i < n; i++) {
		int64_t day = clock_add_days(first_day, (int)(i * days / n));
		int64_t start, end, appt, job, dur;
		int k, njob = 0;
		char a[32], b[32];
		int64_t linked[2];

		if (rnd(200) == 0) {
			start = day + 22 * 3600; /* a night job that crosses midnight */
			dur = 4 * 3600;
		} else {
			start = day + (7 + rnd(11)) * 3600 + rnd(4) * 900;
			dur = (2 + rnd(15)) * 900;
		}
		end = start + dur;
		sqlite3_bind_int64(s_appt, 1, start);
		sqlite3_bind_int64(s_appt, 2, end);
		sqlite3_bind_text(s_appt, 3, "On site", -1, SQLITE_STATIC);
		sqlite3_bind_int64(s_appt, 4, start - 86400 * 7);
		sqlite3_bind_int64(s_appt, 5, start - 86400 * 7);
		appt = step_id(db, s_appt);
		/* which jobs it works on */
		if (nrecent && rnd(100) < 15) {
			linked[njob++] = recent[rnd((unsigned)nrecent)];
		} else {
			int items = 1 + rnd(3);

			sqlite3_bind_int64(s_job, 1, 1 + rnd((unsigned)n_customers));
			sqlite3_bind_text(s_job, 2, titles[rnd(8)], -1, SQLITE_STATIC);
			sqlite3_bind_int64(s_job, 3, start - 86400 * 7);
			sqlite3_bind_int64(s_job, 4, start - 86400 * 7);
			job = step_id(db, s_job);
			jobs[job].customer = 0;
			for (k = 0; k < items; k++) {
				static const char *const kinds[] = {"SERVICE", "FEE", "DISCOUNT"};
				const char *kind = k == 0 ? "SERVICE" : kinds[rnd(3)];
				int64_t qty = 1000 * (1 + rnd(3)), price, amount;

				price = k == 0 ? 5000 + rnd(40000) : 500 + rnd(2000);
				money_line_amount(qty, price, &amount);
				if (!strcmp(kind, "DISCOUNT")) {
					qty = 1000;
					amount = -(price / 4);
					price = price / 4;
				}
				sqlite3_bind_int64(s_item, 1, job);
				sqlite3_bind_text(s_item, 2, kind, -1, SQLITE_STATIC);
				sqlite3_bind_text(s_item, 3, kind, -1, SQLITE_STATIC);
				sqlite3_bind_int64(s_item, 4, qty);
				sqlite3_bind_int64(s_item, 5, price);
				sqlite3_bind_int64(s_item, 6, amount);
				step_id(db, s_item);
				jobs[job].total += amount;
			}
			linked[njob++] = job;
			recent[nrecent < RECENT ? nrecent++ : rnd(RECENT)] = job;
			njobs = job;
		}
		if (rnd(100) < 8) {
			sqlite3_bind_int64(s_job, 1, 1 + rnd((unsigned)n_customers));
			sqlite3_bind_text(s_job, 2, titles[rnd(8)], -1, SQLITE_STATIC);
			sqlite3_bind_int64(s_job, 3, start - 86400 * 7);
			sqlite3_bind_int64(s_job, 4, start - 86400 * 7);
			job = step_id(db, s_job);
			money_line_amount(1000, 2000 + rnd(10000), &jobs[job].total);
			sqlite3_bind_int64(s_item, 1, job);
			sqlite3_bind_text(s_item, 2, "SERVICE", -1, SQLITE_STATIC);
			sqlite3_bind_text(s_item, 3, "Extra", -1, SQLITE_STATIC);
			sqlite3_bind_int64(s_item, 4, 1000);
			sqlite3_bind_int64(s_item, 5, jobs[job].total);
			sqlite3_bind_int64(s_item, 6, jobs[job].total);
			step_id(db, s_item);
			linked[njob++] = job;
			njobs = job;
		}
		for (k = 0; k < njob; k++) {
			sqlite3_bind_int64(s_link, 1, appt);
			sqlite3_bind_int64(s_link, 2, linked[k]);
			sqlite3_bind_int64(s_link, 3, dur / 60 / njob);
			step_id(db, s_link);
		}
		if (end < now_t) { /* the past: done, or now and then cancelled */
			static const char *const done[] = {"in_progress", "done"};

			for (k = rnd(50) == 0 ? -1 : 0; k < 2; k++) {
				sqlite3_bind_text(s_status, 1, k < 0 ? "cancelled" : done[k], -1,
				                  SQLITE_STATIC);
				sqlite3_bind_int64(s_status, 2, appt);
				step_id(db, s_status);
				if (k < 0)
					break;
			}
		}
		clock_format_local(start, "%m/%d/%Y @ %H:%M", a, sizeof a);
		clock_format_local(end, "%m/%d/%Y @ %H:%M", b, sizeof b);
		fprintf(cal, "%s -> %s |%s: visit %lld\n", a, b, titles[rnd(8)], (long long)appt);
		if (i % 100000 == 0)
			fprintf(stderr, "gen: %lld visits (%lds)\n", (long long)i,
			        (long)(time(NULL) - t0));
	}
	fclose(cal);
	fprintf(stderr, "gen: %ld visits written (%lds)\n", n, (long)(time(NULL) - t0));

	/* invoices for 60% of the jobs, most of them paid */
	s_inv = prep(db, "INSERT INTO invoice (customer_id, currency, created_at, updated_at) "
	                 "SELECT customer_id, 'USD', ?2, ?2 FROM service_order WHERE id = ?1");
	s_lines = prep(db, "INSERT INTO invoice_line (invoice_id, line_item_id, kind, description, "
	                   "qty_milli, unit_price, amount, created_at) SELECT ?1, id, kind, "
	                   "description, qty_milli, unit_price, amount, ?3 FROM line_item "
	                   "WHERE service_order_id = ?2");
	s_issue =
	    prep(db, "UPDATE invoice SET number = ?2, series = 'INV', year = ?3, seq = ?4, "
	             "issued_at = ?5, due_at = ?5 + 30 * 86400, total = ?6, balance = ?6, "
	             "status = CASE WHEN ?6 = 0 THEN 'paid' ELSE 'issued' END, updated_at = ?5 "
	             "WHERE id = ?1");
	s_pay =
	    prep(db, "INSERT INTO payment (customer_id, method, received_at, currency, amount, "
	             "created_at, updated_at) SELECT customer_id, 'card', ?2, 'USD', ?3, ?2, ?2 "
	             "FROM service_order WHERE id = ?1");
	s_alloc = prep(db, "INSERT INTO payment_allocation (payment_id, invoice_id, amount, "
	                   "created_at) VALUES (?, ?, ?, ?)");
	for (i = 1; i <= njobs; i++) {
		int64_t inv, pay, issued = first_day + (i * days / (njobs + 1)) * 86400 + 86400;
		int64_t amount, year;
		struct tm tm;
		time_t tt;
		char num[48]; /* INV-%lld-%06lld: room for any two 64-bit numbers */

		if (rnd(10) >= 6 || jobs[i].total <= 0 || issued > now_t)
			continue;
		tt = (time_t)issued;
		localtime_r(&tt, &tm);
		year = tm.tm_year + 1900;
		if (year < FIRST_YEAR || year >= FIRST_YEAR + YEARS_KEPT) {
			fprintf(stderr, "gen: an invoice of %lld, outside %d..%d\n",
			        (long long)year, FIRST_YEAR, FIRST_YEAR + YEARS_KEPT - 1);
			return 1;
		}
		seq = ++year_seq[year - FIRST_YEAR];
		snprintf(num, sizeof num, "INV-%lld-%06lld", (long long)year, (long long)seq);
		sqlite3_bind_int64(s_inv, 1, i);
		sqlite3_bind_int64(s_inv, 2, issued);
		inv = step_id(db, s_inv);
		sqlite3_bind_int64(s_lines, 1, inv);
		sqlite3_bind_int64(s_lines, 2, i);
		sqlite3_bind_int64(s_lines, 3, issued);
		step_id(db, s_lines);
		sqlite3_bind_int64(s_issue, 1, inv);
		sqlite3_bind_text(s_issue, 2, num, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s_issue, 3, year);
		sqlite3_bind_int64(s_issue, 4, seq);
		sqlite3_bind_int64(s_issue, 5, issued);
		sqlite3_bind_int64(s_issue, 6, jobs[i].total);
		step_id(db, s_issue);
		if (rnd(100) >= 90)
			continue;
		amount = rnd(100) < 94 ? jobs[i].total : jobs[i].total / 2;
		if (amount <= 0)
			continue;
		sqlite3_bind_int64(s_pay, 1, i);
		sqlite3_bind_int64(s_pay, 2, issued + 3 * 86400);
		sqlite3_bind_int64(s_pay, 3, amount);
		pay = step_id(db, s_pay);
		sqlite3_bind_int64(s_alloc, 1, pay);
		sqlite3_bind_int64(s_alloc, 2, inv);
		sqlite3_bind_int64(s_alloc, 3, amount);
		sqlite3_bind_int64(s_alloc, 4, issued + 3 * 86400);
		step_id(db, s_alloc);
	}
	/* the number counters, so that the next invoice issued gets the next number */
	s_counter =
	    prep(db, "INSERT INTO document_counter (series, year, last) VALUES ('INV', ?, ?)");
	for (i = 0; i < YEARS_KEPT; i++) {
		if (!year_seq[i])
			continue;
		sqlite3_bind_int64(s_counter, 1, FIRST_YEAR + i);
		sqlite3_bind_int64(s_counter, 2, year_seq[i]);
		step_id(db, s_counter);
	}
	sqlite3_finalize(s_cust);
	sqlite3_finalize(s_job);
	sqlite3_finalize(s_appt);
	sqlite3_finalize(s_link);
	sqlite3_finalize(s_item);
	sqlite3_finalize(s_status);
	sqlite3_finalize(s_inv);
	sqlite3_finalize(s_lines);
	sqlite3_finalize(s_issue);
	sqlite3_finalize(s_pay);
	sqlite3_finalize(s_alloc);
	sqlite3_finalize(s_counter);
	fprintf(stderr, "gen: invoices and payments written (%lds)\n", (long)(time(NULL) - t0));
	if (db_commit(db))
		die("commit");
	if (db_exec(db, "PRAGMA journal_mode=WAL; ANALYZE"))
		die("wal");
	fprintf(stderr, "gen: %ld visits, %lld jobs in %lds\n", n, (long long)njobs,
	        (long)(time(NULL) - t0));
	free(jobs);
	db_close(db);
	return 0;
}
