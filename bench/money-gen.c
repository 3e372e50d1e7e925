/*
 * money-gen.c - write a large money history for the money benchmarks
 * (bench/money-run.sh): customers, jobs with a visit and line items, issued
 * invoices, payments allocated across invoices, credit notes, voids,
 * reversals and refunds.
 *
 *   money-gen DB INVOICES [CUSTOMERS]
 *   money-gen --pool DB INVOICES
 *
 * INVOICES invoices (default 100,000) issued evenly over the four years that
 * end today (clock_now(): the real clock, or FRONTDESK_NOW), for CUSTOMERS
 * customers (default INVOICES / 20). Each invoice bills one job (a SERVICE
 * line item, sometimes a FEE, a DISCOUNT or a TAX) that one visit worked on;
 * the visit is done. Then, in the invoice's own time line:
 *   - 0.3% are voided, 1% get a credit note for part of what they owe;
 *   - about 4% are never paid; the rest are paid 0-44 days after issue
 *     (invoices whose payment day has not come yet stay open), and a
 *     customer's invoice is now and then left for the next payment, which
 *     then settles both (one payment, two allocations);
 *   - most payments give exactly what is owed; 5% give half of it, 5% give
 *     a little more (the rest is the customer's credit);
 *   - 0.5% of payments have an allocation reversed, then the money is either
 *     refunded or allocated again; 0.1% of receipts are voided.
 *
 * Everything goes through the real schema, its CHECKs and triggers (history,
 * status flows, the maintained figures, the calendar tasks), with the same
 * statements as invoice.c and payment.c, in ONE transaction with
 * synchronous=OFF and a rollback journal, which is what makes it fast; the
 * file is switched to WAL at the end. No ANALYZE (frontdesk never runs it),
 * so the benchmarks see the query plans a shop's database would. `frontdesk
 * check` must be clean on the result. Not a test: a fixture generator.
 *
 * --pool adds INVOICES more invoices issued today to an existing database,
 * two by two for one customer, all open: the bills that the posting
 * benchmark (money-post.c) pays, two per payment.
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

#define YEARS 4
#define DAY   86400

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

/* xorshift64: the same history on every run */
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void die(const char *what)
{
	fprintf(stderr, "money-gen: %s: %s\n", what, err_msg());
	exit(1);
}

/* The statements, prepared once. */
static struct db *db;
static sqlite3_stmt *s_cust, *s_job, *s_appt, *s_appt_status, *s_link, *s_item, *s_draft, *s_line,
    *s_counter, *s_issue, *s_void, *s_pay, *s_pay_void, *s_alloc, *s_reverse, *s_refund;

static sqlite3_stmt *prep(const char *sql)
{
	sqlite3_stmt *st;

	if (db_prepare(db, sql, &st))
		die(sql);
	return st;
}

/* Step a statement that writes; return the new rowid (or RETURNING's value). */
static int64_t run(sqlite3_stmt *st)
{
	int64_t v;
	int step = sqlite3_step(st);

	if (step == SQLITE_ROW) {
		v = sqlite3_column_int64(st, 0);
		step = sqlite3_step(st);
	} else {
		v = sqlite3_last_insert_rowid(db_sqlite(db));
	}
	if (step != SQLITE_DONE) {
		db_fail(db, "write");
		die(sqlite3_sql(st));
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return v;
}

static void prepare_all(void)
{
	s_cust = prep("INSERT INTO customer (name, phone, created_at, updated_at)"
	              " VALUES (?1, ?2, ?3, ?3)");
	s_job = prep("INSERT INTO service_order (customer_id, title, currency, created_at,"
	             " updated_at) VALUES (?1, ?2, 'USD', ?3, ?3)");
	s_appt = prep("INSERT INTO appointment (start_at, end_at, location, created_at, updated_at)"
	              " VALUES (?1, ?2, 'On site', ?3, ?3)");
	s_appt_status = prep("UPDATE appointment SET status = ?2, updated_at = ?3 WHERE id = ?1");
	s_link = prep("INSERT INTO appointment_work (appointment_id, service_order_id, est_minutes,"
	              " created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)");
	s_item = prep("INSERT INTO line_item (service_order_id, kind, description, qty_milli,"
	              " unit_price, amount, created_at, updated_at)"
	              " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)");
	/* invoice.c: insert_draft, insert_line, finalize */
	s_draft =
	    prep("INSERT INTO invoice (kind, customer_id, currency, credits_id, allow_overpay,"
	         " note, created_at, updated_at) VALUES (?1, ?2, 'USD', ?3, 0, ?5, ?4, ?4)");
	s_line = prep("INSERT INTO invoice_line (invoice_id, line_item_id, kind, description,"
	              " qty_milli, unit_price, amount, created_at)"
	              " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
	s_counter =
	    prep("INSERT INTO document_counter (series, year, last) VALUES (?1, ?2, 1)"
	         " ON CONFLICT (series, year) DO UPDATE SET last = last + 1 RETURNING last");
	s_issue = prep("UPDATE invoice SET number = ?1, series = ?2, year = ?3, seq = ?4,"
	               " issued_at = ?5, due_at = ?6, total = ?7, balance = ?8, status = ?9,"
	               " updated_at = ?5 WHERE id = ?10");
	s_void = prep("UPDATE invoice SET status = 'void', updated_at = ?2 WHERE id = ?1");
	/* payment.c: record_tx, post_one, reverse_tx, refund_tx, pvoid_tx */
	s_pay = prep("INSERT INTO payment (customer_id, method, reference, received_at, currency,"
	             " amount, note, created_at, updated_at)"
	             " VALUES (?1, ?2, ?3, ?4, 'USD', ?5, NULL, ?4, ?4)");
	s_pay_void = prep("UPDATE payment SET status = 'void', updated_at = ?2 WHERE id = ?1");
	s_alloc = prep("INSERT INTO payment_allocation (payment_id, invoice_id, amount, created_at)"
	               " VALUES (?1, ?2, ?3, ?4)");
	s_reverse = prep("INSERT INTO payment_allocation (payment_id, invoice_id, amount,"
	                 " reverses_id, reason, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
	s_refund = prep("INSERT INTO refund (payment_id, amount, method, reference, status, reason,"
	                " refunded_at, created_at, updated_at)"
	                " VALUES (?1, ?2, ?3, NULL, 'succeeded', ?4, ?5, ?5, ?5)");
}

static void finalize_all(void)
{
	sqlite3_stmt *all[] = {s_cust,     s_job,   s_appt,    s_appt_status, s_link, s_item,
	                       s_draft,    s_line,  s_counter, s_issue,       s_void, s_pay,
	                       s_pay_void, s_alloc, s_reverse, s_refund};
	size_t i;

	for (i = 0; i < sizeof all / sizeof all[0]; i++)
		sqlite3_finalize(all[i]);
}

/* Take the next number of series for the year of t and issue draft id. */
static void issue(int64_t id, const char *series, int64_t t, int64_t due, int64_t total,
                  int64_t balance, const char *status)
{
	char ybuf[16], number[32];
	long year;
	int64_t seq;

	clock_format_local(t, "%Y", ybuf, sizeof ybuf);
	year = strtol(ybuf, NULL, 10);
	sqlite3_bind_text(s_counter, 1, series, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s_counter, 2, year);
	seq = run(s_counter);
	snprintf(number, sizeof number, "%s-%04ld-%06lld", series, year, (long long)seq);
	sqlite3_bind_text(s_issue, 1, number, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s_issue, 2, series, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s_issue, 3, year);
	sqlite3_bind_int64(s_issue, 4, seq);
	sqlite3_bind_int64(s_issue, 5, t);
	sqlite3_bind_int64(s_issue, 6, due);
	sqlite3_bind_int64(s_issue, 7, total);
	sqlite3_bind_int64(s_issue, 8, balance);
	sqlite3_bind_text(s_issue, 9, status, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s_issue, 10, id);
	run(s_issue);
}

static void line(int64_t inv, int64_t item, const char *kind, const char *desc, int64_t qty,
                 int64_t price, int64_t amount, int64_t t)
{
	sqlite3_bind_int64(s_line, 1, inv);
	if (item)
		sqlite3_bind_int64(s_line, 2, item);
	sqlite3_bind_text(s_line, 3, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(s_line, 4, desc, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s_line, 5, qty);
	sqlite3_bind_int64(s_line, 6, price);
	sqlite3_bind_int64(s_line, 7, amount);
	sqlite3_bind_int64(s_line, 8, t);
	run(s_line);
}

static const char *const titles[] = {"Full detail", "Wash and wax",    "Interior clean",
                                     "Window tint", "Ceramic coat",    "Headlight restore",
                                     "Engine bay",  "Paint correction"};

/* A job of customer c done on a visit the day before t, its line items, and
 * the invoice of all of them issued at t. Returns the invoice; *total gets
 * its total (always > 0). */
static int64_t job_and_invoice(int64_t c, int64_t t, const char *note, int64_t *total)
{
	struct {
		const char *kind;
		int64_t qty, price, amount, id;
	} it[4];
	int n = 0, k;
	int64_t job, appt, start = t - DAY - (int64_t)rnd(6) * 3600, inv, sum = 0, base;
	const char *title = titles[rnd(8)];

	sqlite3_bind_int64(s_job, 1, c);
	sqlite3_bind_text(s_job, 2, title, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s_job, 3, start - 7 * DAY);
	job = run(s_job);
	sqlite3_bind_int64(s_appt, 1, start);
	sqlite3_bind_int64(s_appt, 2, start + (2 + rnd(6)) * 1800);
	sqlite3_bind_int64(s_appt, 3, start - 7 * DAY);
	appt = run(s_appt);
	sqlite3_bind_int64(s_link, 1, appt);
	sqlite3_bind_int64(s_link, 2, job);
	sqlite3_bind_int64(s_link, 3, 60 + rnd(180));
	sqlite3_bind_int64(s_link, 4, start - 7 * DAY);
	run(s_link);
	sqlite3_bind_int64(s_appt_status, 1, appt);
	sqlite3_bind_text(s_appt_status, 2, "in_progress", -1, SQLITE_STATIC);
	sqlite3_bind_int64(s_appt_status, 3, start);
	run(s_appt_status);
	sqlite3_bind_int64(s_appt_status, 1, appt);
	sqlite3_bind_text(s_appt_status, 2, "done", -1, SQLITE_STATIC);
	sqlite3_bind_int64(s_appt_status, 3, start + 3600);
	run(s_appt_status);

	it[n].kind = "SERVICE";
	it[n].qty = 1000 * (1 + rnd(3));
	it[n].price = 5000 + 100 * rnd(400);
	n++;
	if (rnd(100) < 30) {
		it[n].kind = "FEE";
		it[n].qty = 1000;
		it[n].price = 500 + 50 * rnd(40);
		n++;
	}
	if (rnd(100) < 15) {
		it[n].kind = "DISCOUNT";
		it[n].qty = 1000;
		it[n].price = it[0].price / 4;
		n++;
	}
	for (k = 0; k < n; k++) {
		if (money_line_amount(it[k].qty, it[k].price, &it[k].amount))
			die("line amount");
		if (!strcmp(it[k].kind, "DISCOUNT"))
			it[k].amount = -it[k].amount;
		sum += it[k].amount;
	}
	if (rnd(100) < 20) { /* sales tax, 8% of what is billed */
		base = sum;
		it[n].kind = "TAX";
		it[n].qty = 1000;
		it[n].price = base * 8 / 100;
		it[n].amount = it[n].price;
		sum += it[n].amount;
		n++;
	}
	for (k = 0; k < n; k++) {
		sqlite3_bind_int64(s_item, 1, job);
		sqlite3_bind_text(s_item, 2, it[k].kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(s_item, 3, k == 0 ? title : it[k].kind, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s_item, 4, it[k].qty);
		sqlite3_bind_int64(s_item, 5, it[k].price);
		sqlite3_bind_int64(s_item, 6, it[k].amount);
		sqlite3_bind_int64(s_item, 7, start - 7 * DAY);
		it[k].id = run(s_item);
	}
	sqlite3_bind_text(s_draft, 1, "invoice", -1, SQLITE_STATIC);
	sqlite3_bind_int64(s_draft, 2, c);
	sqlite3_bind_int64(s_draft, 4, t);
	if (note)
		sqlite3_bind_text(s_draft, 5, note, -1, SQLITE_STATIC);
	inv = run(s_draft);
	for (k = 0; k < n; k++)
		line(inv, it[k].id, it[k].kind, k == 0 ? title : it[k].kind, it[k].qty, it[k].price,
		     it[k].amount, t);
	issue(inv, "INV", t, clock_add_days(t, 30), sum, sum, "issued");
	*total = sum;
	return inv;
}

static void credit_note(int64_t c, int64_t inv, int64_t amount, int64_t t)
{
	int64_t cn;

	sqlite3_bind_text(s_draft, 1, "credit_note", -1, SQLITE_STATIC);
	sqlite3_bind_int64(s_draft, 2, c);
	sqlite3_bind_int64(s_draft, 3, inv);
	sqlite3_bind_int64(s_draft, 4, t);
	cn = run(s_draft);
	line(cn, 0, "CREDIT", "Goodwill: spots missed", 1000, amount, -amount, t);
	issue(cn, "CN", t, t, -amount, 0, "issued");
}

static const char *method(void)
{
	static const char *const m[] = {"card",  "card",          "card", "cash",
	                                "check", "bank_transfer", "card", "other"};

	return m[rnd(8)];
}

static int64_t payment(int64_t c, const char *how, int64_t amount, int64_t t)
{
	char ref[32];

	sqlite3_bind_int64(s_pay, 1, c);
	sqlite3_bind_text(s_pay, 2, how, -1, SQLITE_STATIC);
	if (!strcmp(how, "check")) {
		snprintf(ref, sizeof ref, "check %u", 1000 + rnd(9000));
		sqlite3_bind_text(s_pay, 3, ref, -1, SQLITE_TRANSIENT);
	}
	sqlite3_bind_int64(s_pay, 4, t);
	sqlite3_bind_int64(s_pay, 5, amount);
	return run(s_pay);
}

static int64_t alloc(int64_t pay, int64_t inv, int64_t amount, int64_t t)
{
	sqlite3_bind_int64(s_alloc, 1, pay);
	sqlite3_bind_int64(s_alloc, 2, inv);
	sqlite3_bind_int64(s_alloc, 3, amount);
	sqlite3_bind_int64(s_alloc, 4, t);
	return run(s_alloc);
}

struct cust {
	int64_t held;     /* an open invoice left for the next payment (0: none) */
	int64_t held_bal; /* its balance */
};

struct counts {
	long invoices, payments, allocations, credit_notes, voids, reversals, refunds,
	    void_payments;
};

/* Pay invoice inv (balance bal) of customer c, perhaps together with the
 * invoice the customer left open for this payment, at time t. */
static void pay(struct cust *cu, int64_t c, int64_t inv, int64_t bal, int64_t t, struct counts *n)
{
	int64_t invs[2], bals[2], amount = 0, pid, aid = 0, last_inv = 0, give = 0, left;
	const char *how = method();
	int k = 0, i, r = (int)rnd(100), give_back = 0;
	const char *why;

	if (cu->held) {
		invs[k] = cu->held;
		bals[k++] = cu->held_bal;
		cu->held = 0;
	}
	invs[k] = inv;
	bals[k++] = bal;
	for (i = 0; i < k; i++)
		amount += bals[i];
	if (r < 5) /* half of the last invoice is still owed */
		amount -= bals[k - 1] - bals[k - 1] / 2;
	else if (r < 10) /* a little more: the rest is credit */
		amount += 100 * (1 + rnd(20));
	if (amount <= 0)
		return;
	pid = payment(c, how, amount, t);
	n->payments++;
	left = amount;
	for (i = 0; i < k && left > 0; i++) {
		int64_t g = bals[i] < left ? bals[i] : left;

		if (g <= 0)
			continue;
		aid = alloc(pid, invs[i], g, t + 60);
		last_inv = invs[i];
		give = g;
		left -= g;
		n->allocations++;
	}
	if (aid && rnd(1000) < 5) { /* the last allocation was a mistake */
		why = "Allocated to the wrong invoice";
		db_set_reason(db, why);
		sqlite3_bind_int64(s_reverse, 1, pid);
		sqlite3_bind_int64(s_reverse, 2, last_inv);
		sqlite3_bind_int64(s_reverse, 3, give);
		sqlite3_bind_int64(s_reverse, 4, aid);
		sqlite3_bind_text(s_reverse, 5, why, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s_reverse, 6, t + DAY);
		run(s_reverse);
		n->reversals++;
		if (rnd(2)) { /* give the money back */
			left += give;
			give_back = 1;
		} else { /* it was right after all */
			alloc(pid, last_inv, give, t + 2 * DAY);
			n->allocations++;
		}
	}
	if (left > 0 && (give_back || rnd(100) < 10)) { /* the credit goes back */
		why = "Customer asked for the money back";
		db_set_reason(db, why);
		sqlite3_bind_int64(s_refund, 1, pid);
		sqlite3_bind_int64(s_refund, 2, left);
		sqlite3_bind_text(s_refund, 3, how, -1, SQLITE_STATIC);
		sqlite3_bind_text(s_refund, 4, why, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s_refund, 5, t + 2 * DAY);
		run(s_refund);
		n->refunds++;
	}
	db_set_reason(db, NULL);
}

/* --pool: n more invoices issued today, two by two for one customer, left
 * open for bench/money-post.c to pay (they carry the note POOL_NOTE). */
#define POOL_NOTE "bench pool"

static int pool(const char *path, long n)
{
	int64_t ncust = 0, now = clock_now(), c, total, t;
	long i;

	if (db_open(path, 0, &db))
		die(path);
	if (db_exec(db, "PRAGMA synchronous=OFF; PRAGMA cache_size=-2000000;"
	                " PRAGMA temp_store=MEMORY"))
		die("pragmas");
	if (db_one_int(db, "SELECT count(*) FROM customer", &ncust) || ncust < 1)
		die("no customers");
	if (db_begin_write(db))
		die("begin");
	prepare_all();
	for (i = 0; i + 1 < n; i += 2) {
		c = 1 + rnd((unsigned)ncust);
		t = clock_day_start(now) + rnd(8 * 3600);
		if (t > now)
			t = now;
		job_and_invoice(c, t, POOL_NOTE, &total);
		job_and_invoice(c, t, POOL_NOTE, &total);
	}
	finalize_all();
	if (db_commit(db))
		die("commit");
	fprintf(stderr, "money-gen: %ld open invoices added to %s\n", i, path);
	db_close(db);
	return 0;
}

int main(int argc, char **argv)
{
	long ninv = argc > 2 ? atol(argv[2]) : 100000;
	long ncust = argc > 3 ? atol(argv[3]) : ninv / 20;
	struct cust *cu;
	struct counts n = {0};
	int64_t now, first, i, span;
	time_t t0 = time(NULL);

	clock_set_zone(NULL);
	if (argc == 4 && !strcmp(argv[1], "--pool"))
		return pool(argv[2], atol(argv[3]));
	if (argc < 2 || ninv < 1 || ncust < 1) {
		fprintf(stderr, "usage: money-gen DB [INVOICES [CUSTOMERS]]\n"
		                "       money-gen --pool DB INVOICES\n");
		return 2;
	}
	now = clock_now();
	first = clock_add_days(clock_day_start(now), -365 * YEARS);
	span = clock_day_start(now) - first;
	if (db_open(argv[1], DB_OPEN_CREATE, &db))
		die(argv[1]);
	if (db_exec(db, "PRAGMA journal_mode=DELETE; PRAGMA synchronous=OFF;"
	                " PRAGMA cache_size=-2000000; PRAGMA temp_store=MEMORY"))
		die("pragmas");
	if (db_begin_write(db))
		die("begin");
	prepare_all();
	cu = calloc((size_t)ncust + 1, sizeof *cu);
	if (!cu)
		die("memory");
	for (i = 1; i <= ncust; i++) {
		char name[48], phone[24];

		snprintf(name, sizeof name, "Customer %06lld", (long long)i);
		snprintf(phone, sizeof phone, "555-%04lld", (long long)(i % 10000));
		sqlite3_bind_text(s_cust, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s_cust, 2, phone, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s_cust, 3, first - 30 * DAY);
		run(s_cust);
	}
	for (i = 0; i < ninv; i++) {
		int64_t c = 1 + rnd((unsigned)ncust), day, t, inv, total, bal, paid_at;
		int fate = (int)rnd(1000);

		if (i && i % 100000 == 0)
			fprintf(stderr, "money-gen: %lld invoices (%lds)\n", (long long)i,
			        (long)(time(NULL) - t0));
		/* issued on a working day of the span, between 9:00 and 17:00 */
		day = clock_add_days(first, (int)((i * (span / DAY)) / ninv));
		t = day + 9 * 3600 + rnd(8 * 3600);
		inv = job_and_invoice(c, t, NULL, &total);
		bal = total;
		n.invoices++;
		if (fate < 3) { /* entered in error */
			db_set_reason(db, "Billed twice by mistake");
			sqlite3_bind_int64(s_void, 1, inv);
			sqlite3_bind_int64(s_void, 2, t + 3600);
			run(s_void);
			db_set_reason(db, NULL);
			n.voids++;
			continue;
		}
		if (fate < 13) { /* a goodwill credit note */
			int64_t amount = bal / (2 + rnd(8));

			if (amount > 0) {
				credit_note(c, inv, amount, t + DAY);
				bal -= amount;
				n.credit_notes++;
			}
		}
		if (fate >= 960) /* never paid */
			continue;
		paid_at = t + (int64_t)rnd(45) * DAY + rnd(3600);
		if (paid_at > now) /* not yet */
			continue;
		if (!cu[c].held && rnd(100) < 15) { /* paid together with the next one */
			cu[c].held = inv;
			cu[c].held_bal = bal;
			continue;
		}
		pay(&cu[c], c, inv, bal, paid_at, &n);
		if (rnd(1000) < 1) { /* a receipt entered in error */
			int64_t p = payment(c, "cash", 100 * (1 + rnd(100)), paid_at);

			db_set_reason(db, "Entered twice");
			sqlite3_bind_int64(s_pay_void, 1, p);
			sqlite3_bind_int64(s_pay_void, 2, paid_at + 600);
			run(s_pay_void);
			db_set_reason(db, NULL);
			n.void_payments++;
		}
	}
	finalize_all();
	if (db_commit(db))
		die("commit");
	if (db_exec(db, "PRAGMA journal_mode=WAL"))
		die("wal");
	fprintf(stderr,
	        "money-gen: %ld customers, %ld invoices (%ld void, %ld credit notes), %ld payments"
	        " (%ld void), %ld allocations, %ld reversals, %ld refunds in %lds\n",
	        ncust, n.invoices, n.voids, n.credit_notes, n.payments + n.void_payments,
	        n.void_payments, n.allocations, n.reversals, n.refunds, (long)(time(NULL) - t0));
	free(cu);
	db_close(db);
	return 0;
}
