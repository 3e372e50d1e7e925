/*
 * check_drawer.c - cash drawers and closed days (drawer.h, dayclose.h):
 * the float and count as totals or denominations; cash landing in the
 * right desk's drawer (and nowhere when the desk cannot be told); refunds,
 * voids and paid-outs; the blind count with over and short; a closed day
 * refusing every posting into it (in the core and, for a program that
 * writes SQL itself, in the schema) while the channel's card money still
 * lands; the reopen and the changes a second close shows; who may do what.
 *
 * The clock is frozen at 2026-12-01 09:00 in New York (fixture.h); a test
 * moves it with FRONTDESK_NOW. Each test runs in its own forked child.
 */
#include <config.h>

#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "customer.h"
#include "dayclose.h"
#include "db.h"
#include "drawer.h"
#include "err.h"
#include "fixture.h"
#include "idem.h"
#include "invoice.h"
#include "payment.h"
#include "report.h"
#include "staff.h"

static struct fx F;
static int64_t cust;
static char owner[33];

static void setup(void)
{
	struct customer_input ci = {0};

	fx_env();
	fx_open(&F, "drawer");
	snprintf(owner, sizeof owner, "%s", db_operator());
	ci.name = "Ada Lovelace";
	ck_assert_msg(customer_add(F.db, &ci, &cust) == 0, "%s", err_msg());
	ck_assert_msg(staff_add(F.db, "dana", "Dana Desk", STAFF_DESK) == 0, "%s", err_msg());
	ck_assert_msg(staff_add(F.db, "deb", "Deb Desk", STAFF_DESK) == 0, "%s", err_msg());
	ck_assert_msg(staff_add(F.db, "mona", "Mona Manager", STAFF_MANAGER) == 0, "%s", err_msg());
	drawer_set_desk(NULL);
}

static void teardown(void)
{
	fx_close(&F);
}

/* pay - a payment of cents by method received at (0: now); its id, or 0
 * with *rc set when refused. */
static int64_t pay_rc(const char *method, int64_t cents, int64_t at, int *rc)
{
	struct payment_input in = {0};
	struct idem_result res;
	int64_t id = 0;

	in.customer_id = cust;
	in.amount = cents;
	in.method = method;
	in.received_at = at;
	*rc = payment_record(F.db, &in, NULL, 0, 0, NULL, &res);
	if (!*rc)
		id = res.id;
	idem_result_free(&res);
	return id;
}

static int64_t pay(const char *method, int64_t cents)
{
	int rc;
	int64_t id = pay_rc(method, cents, 0, &rc);

	ck_assert_msg(rc == 0, "%s", err_msg());
	return id;
}

static int64_t open_drawer(const char *desk, const char *flt)
{
	int64_t id = 0;

	ck_assert_msg(drawer_open(F.db, desk, NULL, flt, &id) == 0, "%s", err_msg());
	return id;
}

static int64_t moves_of(int64_t drawer)
{
	char sql[96];

	snprintf(sql, sizeof sql, "SELECT count(*) FROM drawer_movement WHERE drawer_id = %lld",
	         (long long)drawer);
	return fx_one(F.db, sql);
}

static int64_t drawer_of_payment(int64_t pay_id)
{
	char sql[128];

	snprintf(sql, sizeof sql,
	         "SELECT coalesce(max(drawer_id), 0) FROM drawer_movement WHERE payment_id = %lld"
	         " AND kind = 'payment'",
	         (long long)pay_id);
	return fx_one(F.db, sql);
}

START_TEST(test_amounts)
{
	int64_t t;
	char *d;

	ck_assert_int_eq(drawer_amount_read("150.00", "USD", &t, &d), 0);
	ck_assert_int_eq(t, 15000);
	ck_assert_ptr_null(d);
	ck_assert_int_eq(drawer_amount_read("0", "USD", &t, &d), 0);
	ck_assert_int_eq(t, 0);
	/* denominations: summed, merged, largest first */
	ck_assert_msg(drawer_amount_read("1x5,20x4,0.25x8,1x3", "USD", &t, &d) == 0, "%s",
	              err_msg());
	ck_assert_int_eq(t, 5 * 100 + 4 * 2000 + 8 * 25 + 3 * 100);
	ck_assert_str_eq(d, "2000x4,100x8,25x8");
	free(d);
	ck_assert_int_eq(drawer_amount_read("20x0", "USD", &t, &d), 0);
	ck_assert_int_eq(t, 0);
	free(d);
	/* refused, with a reason */
	static const char *const bad[] = {"",      "-5",        "1.234",    "20x",    "x5",
	                                  "20x-1", "20x5,",     "abc",      "20 x 5", "0x5",
	                                  " 10",   "20x5,,1x1", "1x1000001"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		d = NULL;
		ck_assert_msg(drawer_amount_read(bad[i], "USD", &t, &d) == FD_EINVAL, "'%s' taken",
		              bad[i]);
		ck_assert_ptr_null(d);
		ck_assert(strlen(err_msg()) > 0);
	}
	ck_assert_int_eq(drawer_amount_read("5", "XXQ", &t, &d), FD_EINVAL);
}
END_TEST

START_TEST(test_desk_names)
{
	ck_assert(drawer_desk_valid("front"));
	ck_assert(drawer_desk_valid("desk-2"));
	ck_assert(!drawer_desk_valid(""));
	ck_assert(!drawer_desk_valid("two words"));
	ck_assert(!drawer_desk_valid("tab\there"));
	ck_assert(!drawer_desk_valid("0123456789012345678901234567890123"));
	ck_assert(!drawer_desk_valid("caf\xc3\xa9"));
	ck_assert_int_eq(drawer_set_desk("bad desk"), FD_EINVAL);
	ck_assert_ptr_null(drawer_desk());
	ck_assert_int_eq(drawer_set_desk("front"), 0);
	ck_assert_str_eq(drawer_desk(), "front");
	ck_assert_int_eq(drawer_set_desk(""), 0);
	ck_assert_ptr_null(drawer_desk());
}
END_TEST

START_TEST(test_open_rules)
{
	int64_t id;

	/* a desk must be named */
	ck_assert_int_eq(drawer_open(F.db, NULL, NULL, "100", &id), FD_EINVAL);
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM drawer"), 0);
	open_drawer("front", "100");
	/* one open session per desk */
	ck_assert_int_eq(drawer_open(F.db, "front", NULL, "5", &id), FD_ECONFLICT);
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM drawer"), 1);
	/* a second desk may open its own */
	open_drawer("back", "20x2");
	ck_assert_int_eq(fx_one(F.db, "SELECT sum(float_amount) FROM drawer"), 10000 + 4000);
	/* the schema holds it too */
	ck_assert(
	    sqlite3_exec(db_sqlite(F.db),
	                 "INSERT INTO drawer (desk, currency, float_amount, opened_by, opened_at)"
	                 " VALUES ('front', 'USD', 0, 'x', 1)",
	                 NULL, NULL, NULL) != SQLITE_OK);
	/* the list of open sessions is the triggers' alone */
	ck_assert(sqlite3_exec(db_sqlite(F.db), "DELETE FROM drawer_open", NULL, NULL, NULL) !=
	          SQLITE_OK);
	ck_assert(sqlite3_exec(db_sqlite(F.db), "UPDATE drawer_open SET desk = 'x'", NULL, NULL,
	                       NULL) != SQLITE_OK);
	ck_assert(sqlite3_exec(
	              db_sqlite(F.db),
	              "INSERT INTO drawer_open (drawer_id, desk, opened_by) VALUES (9, 'y', 'z')",
	              NULL, NULL, NULL) != SQLITE_OK);
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM drawer_open"), 2);
	ck_assert_int_eq(drawer_open(F.db, "front", "EUR", "5", &id), FD_ECONFLICT);
	ck_assert_int_eq(drawer_open(F.db, "cellar", "XXQ", "5", &id), FD_EINVAL);
}
END_TEST

START_TEST(test_cash_lands_in_the_desk_drawer)
{
	int64_t front, back, p, moves;
	int rc;

	/* no drawer open: cash is taken as before, in no drawer */
	p = pay("cash", 500);
	ck_assert_int_eq(drawer_of_payment(p), 0);
	front = open_drawer("front", "0");
	/* one drawer open and no desk named: that one */
	p = pay("cash", 700);
	ck_assert_int_eq(drawer_of_payment(p), front);
	back = open_drawer("back", "0");
	/* two open, the owner opened both, no desk named: refused, nothing written */
	moves = fx_one(F.db, "SELECT count(*) FROM drawer_movement");
	ck_assert_int_eq(pay_rc("cash", 900, 0, &rc), 0);
	ck_assert_int_eq(rc, FD_ECONFLICT);
	ck_assert_msg(strstr(err_msg(), "back") && strstr(err_msg(), "front"), "%s", err_msg());
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM payment WHERE amount = 900"), 0);
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM drawer_movement"), moves);
	/* a named desk decides */
	drawer_set_desk("back");
	p = pay("cash", 900);
	ck_assert_int_eq(drawer_of_payment(p), back);
	/* card and check money is not the drawer's */
	p = pay("card", 1100);
	ck_assert_int_eq(drawer_of_payment(p), 0);
	p = pay("check", 1300);
	ck_assert_int_eq(drawer_of_payment(p), 0);
	/* a desk whose drawer is not open: in no drawer */
	drawer_set_desk("cellar");
	p = pay("cash", 1500);
	ck_assert_int_eq(drawer_of_payment(p), 0);
	drawer_set_desk(NULL);
	ck_assert_int_eq(fx_one(F.db, "SELECT sum(amount) FROM drawer_movement"), 700 + 900);
}
END_TEST

/* With several drawers open and no desk named, the drawer its person
 * opened takes the cash. */
START_TEST(test_the_opener_drawer)
{
	int64_t front, back, p;

	db_operator_pretend("dana");
	front = open_drawer("front", "0");
	db_operator_pretend("deb");
	back = open_drawer("back", "0");
	p = pay("cash", 250);
	ck_assert_int_eq(drawer_of_payment(p), back);
	db_operator_pretend("dana");
	p = pay("cash", 350);
	ck_assert_int_eq(drawer_of_payment(p), front);
	/* mona opened none of them: she must name the desk */
	db_operator_pretend("mona");
	{
		int rc;

		ck_assert_int_eq(pay_rc("cash", 450, 0, &rc), 0);
		ck_assert_int_eq(rc, FD_ECONFLICT);
	}
}
END_TEST

START_TEST(test_refund_void_payout_and_blind_count)
{
	struct refund_input ri = {0};
	struct idem_result res;
	struct drawer d;
	int64_t id, p1, p2, p3, move;

	id = open_drawer("front", "20x5");
	p1 = pay("cash", 3000);
	p2 = pay("cash", 1200);
	p3 = pay("cash", 800);
	/* a cash refund leaves the drawer */
	ri.payment_id = p1;
	ri.amount = 500;
	ri.reason = "broken mug";
	ck_assert_msg(refund_post(F.db, &ri, NULL, &res) == 0, "%s", err_msg());
	idem_result_free(&res);
	/* a void takes the payment out again */
	ck_assert_msg(payment_void(F.db, p2, "typed twice") == 0, "%s", err_msg());
	/* paid-outs: a reason, and never more than the drawer should hold */
	ck_assert_int_eq(drawer_payout(F.db, "front", 100, "", &move), FD_EINVAL);
	ck_assert_int_eq(drawer_payout(F.db, "front", 0, "milk", &move), FD_EINVAL);
	ck_assert_int_eq(drawer_payout(F.db, "front", 10000 + 3000 + 800 - 500 + 1, "safe", &move),
	                 FD_EINVAL);
	ck_assert_int_eq(drawer_payout(F.db, "back", 100, "milk", &move), FD_ECONFLICT);
	ck_assert_msg(drawer_payout(F.db, "front", 350, "milk", &move) == 0, "%s", err_msg());
	ck_assert_int_eq(moves_of(id), 6);

	/* the blind count: a wrong count without a reason is refused, and the
	 * refusal does not say what was expected */
	ck_assert_int_eq(drawer_close(F.db, "front", 0, "100.00", NULL, &d), FD_EINVAL);
	ck_assert_msg(!strstr(err_msg(), "129.50") && !strstr(err_msg(), "12950"), "%s", err_msg());
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM drawer_close"), 0);
	/* short by 1.50 with a reason */
	ck_assert_msg(drawer_close(F.db, "front", 0, "20x6,5x1,1x3", "coins dropped", &d) == 0,
	              "%s", err_msg());
	ck_assert(d.closed);
	ck_assert_int_eq(d.taken, 3000 + 1200 + 800);
	ck_assert_int_eq(d.refunded, -500);
	ck_assert_int_eq(d.voided, -1200);
	ck_assert_int_eq(d.paid_out, -350);
	ck_assert_int_eq(d.expected, 10000 + 3000 + 800 - 500 - 350);
	ck_assert_int_eq(d.expected, drawer_expected(&d));
	ck_assert_int_eq(d.counted, 12000 + 500 + 300);
	ck_assert_int_eq(d.difference, d.counted - d.expected);
	ck_assert_int_lt(d.difference, 0);
	ck_assert_str_eq(d.count_detail, "2000x6,500x1,100x3");
	ck_assert_str_eq(d.reason, "coins dropped");
	ck_assert_str_eq(d.closed_by, owner);
	drawer_free(&d);
	/* counted once; nothing more goes in or out */
	ck_assert_int_eq(drawer_close(F.db, NULL, id, "0", "x", &d), FD_ECONFLICT);
	ck_assert_int_eq(drawer_payout(F.db, "front", 1, "milk", &move), FD_ECONFLICT);
	/* a payment of a counted drawer is not voided */
	ck_assert_int_eq(payment_void(F.db, p3, "oops"), FD_ECONFLICT);
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM payment WHERE status = 'void'"), 1);
	/* and the schema says so whatever program writes */
	ck_assert(sqlite3_exec(db_sqlite(F.db), "UPDATE drawer_close SET counted = 0", NULL, NULL,
	                       NULL) != SQLITE_OK);
	ck_assert(sqlite3_exec(db_sqlite(F.db), "DELETE FROM drawer_movement", NULL, NULL, NULL) !=
	          SQLITE_OK);
	ck_assert(
	    sqlite3_exec(db_sqlite(F.db),
	                 "INSERT INTO drawer_movement (drawer_id, kind, amount, reason, by_login,"
	                 " at) VALUES (1, 'payout', -1, 'x', 'x', 1)",
	                 NULL, NULL, NULL) != SQLITE_OK);
}
END_TEST

START_TEST(test_exact_and_over)
{
	struct drawer d;

	open_drawer("front", "50");
	pay("cash", 1000);
	ck_assert_msg(drawer_close(F.db, "front", 0, "60", NULL, &d) == 0, "%s", err_msg());
	ck_assert_int_eq(d.difference, 0);
	ck_assert_ptr_null(d.reason);
	drawer_free(&d);
	open_drawer("front", "50");
	ck_assert_msg(drawer_close(F.db, "front", 0, "52.25", "found in the till", &d) == 0, "%s",
	              err_msg());
	ck_assert_int_eq(d.difference, 225);
	drawer_free(&d);
	/* the schema refuses an over without a reason and a wrong expected */
	ck_assert(
	    sqlite3_exec(db_sqlite(F.db),
	                 "INSERT INTO drawer (desk, currency, float_amount, opened_by, opened_at)"
	                 " VALUES ('x', 'USD', 100, 'x', 1);"
	                 "INSERT INTO drawer_close (drawer_id, counted, expected, difference,"
	                 " closed_by, closed_at) VALUES (last_insert_rowid(), 101, 100, 1, 'x', 2)",
	                 NULL, NULL, NULL) != SQLITE_OK);
	ck_assert(sqlite3_exec(db_sqlite(F.db),
	                       "INSERT INTO drawer_close (drawer_id, counted, expected, difference,"
	                       " closed_by, closed_at) VALUES (3, 90, 90, 0, 'x', 2)",
	                       NULL, NULL, NULL) != SQLITE_OK);
}
END_TEST

/* A close of a day the test can post into: 2026-11-30 (yesterday). */
static void close_day(const char *day)
{
	char *prev = NULL;

	ck_assert_msg(day_close(F.db, day, &prev) == 0, "%s", err_msg());
	free(prev);
}

/* as the channel posts a card payment it confirmed: inside its own
 * transaction */
static int channel_pay(struct db *db, void *arg)
{
	int64_t id;

	return payment_record_in(db, arg, NULL, 0, &id);
}

START_TEST(test_closed_day_refuses)
{
	struct payment_input in = {0};
	struct refund_input ri = {0};
	struct idem_result res;
	int64_t yesterday = fx_local("2026-11-30 15:00"), p_old, p_today, inv, id;
	int rc;

	p_old = pay_rc("cash", 400, yesterday, &rc);
	ck_assert_int_eq(rc, 0);
	inv = fx_invoice(F.db, cust, 5000, 30);
	/* a drawer opened yesterday and still open keeps the day open */
	setenv("FRONTDESK_NOW", "2026-11-30T08:00", 1);
	id = open_drawer("front", "0");
	setenv("FRONTDESK_NOW", "2026-12-01T09:00", 1);
	ck_assert_int_eq(day_close(F.db, "2026-11-30", NULL), FD_ECONFLICT);
	ck_assert_msg(strstr(err_msg(), "front"), "%s", err_msg());
	{
		struct drawer d;

		ck_assert_msg(drawer_close(F.db, NULL, id, "0", NULL, &d) == 0, "%s", err_msg());
		drawer_free(&d);
	}
	close_day("2026-11-30");
	ck_assert_int_eq(day_close(F.db, "2026-11-30", NULL), FD_ECONFLICT);

	/* a payment dated into it: refused, nothing written */
	ck_assert_int_eq(pay_rc("cash", 600, yesterday, &rc), 0);
	ck_assert_int_eq(rc, FD_ECONFLICT);
	ck_assert_msg(strstr(err_msg(), "2026-11-30") && strstr(err_msg(), "reopen"), "%s",
	              err_msg());
	ck_assert_int_eq(pay_rc("check", 600, fx_local("2026-11-30 00:00"), &rc), 0);
	ck_assert_int_eq(rc, FD_ECONFLICT);
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM payment WHERE amount = 600"), 0);
	/* the channel's card money still lands */
	in.customer_id = cust;
	in.amount = 650;
	in.method = "card";
	in.reference = "ch_late_1";
	in.received_at = yesterday;
	in.channel_ref = 1;
	ck_assert_msg(db_write(F.db, channel_pay, &in) == 0, "%s", err_msg());
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM payment WHERE amount = 650"), 1);
	/* a payment received in it is not voided */
	ck_assert_int_eq(payment_void(F.db, p_old, "oops"), FD_ECONFLICT);
	/* the days around it are open */
	ck_assert_int_eq(pay_rc("cash", 700, fx_local("2026-11-29 23:59"), &rc) > 0, 1);
	p_today = pay("cash", 800);
	/* and the schema refuses what the core would */
	{
		char sql[256];

		snprintf(sql, sizeof sql,
		         "INSERT INTO payment (customer_id, method, received_at, currency, amount,"
		         " created_at, updated_at) VALUES (%lld, 'cash', %lld, 'USD', 5, 1, 1)",
		         (long long)cust, (long long)yesterday);
		ck_assert(sqlite3_exec(db_sqlite(F.db), sql, NULL, NULL, NULL) != SQLITE_OK);
	}

	/* today closed too: no refund, void or credit note into it */
	close_day("2026-12-01");
	ri.payment_id = p_today;
	ri.amount = 100;
	ri.reason = "sorry";
	ck_assert_int_eq(refund_post(F.db, &ri, NULL, &res), FD_ECONFLICT);
	ck_assert_int_eq(invoice_void(F.db, inv, "wrong"), FD_ECONFLICT);
	ck_assert_int_eq(invoice_credit(F.db, inv, 100, "goodwill", NULL, &res), FD_ECONFLICT);
	ck_assert_int_eq(drawer_open(F.db, "front", NULL, "0", &id), FD_ECONFLICT);
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM refund"), 0);
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM invoice WHERE kind = 'credit_note'"),
	                 0);
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM invoice WHERE status = 'void'"), 0);
	/* the close is never edited */
	ck_assert(sqlite3_exec(db_sqlite(F.db), "DELETE FROM day_close", NULL, NULL, NULL) !=
	          SQLITE_OK);
	ck_assert(sqlite3_exec(db_sqlite(F.db), "UPDATE day_close SET kind = 'reopen'", NULL, NULL,
	                       NULL) != SQLITE_OK);
}
END_TEST

struct change_seen {
	int n;
	int cash_received; /* the change of "takings cash USD received" was seen */
	char before[64], after[64];
};

static int change_cb(const char *what, const char *before, const char *after, void *arg)
{
	struct change_seen *s = arg;

	s->n++;
	if (!strcmp(what, "takings cash USD received")) {
		s->cash_received = 1;
		snprintf(s->before, sizeof s->before, "%s", before);
		snprintf(s->after, sizeof s->after, "%s", after);
	}
	return 0;
}

static int takings_cash(const struct takings_row *r, void *arg)
{
	if (!strcmp(r->method, "cash"))
		*(int64_t *)arg += r->received;
	return 0;
}

START_TEST(test_reopen_and_what_changed)
{
	struct change_seen seen = {0};
	int64_t yesterday = fx_local("2026-11-30 15:00"), from, to, before = 0, after = 0;
	char *prev = NULL, *now_json, want[64];
	struct day_figures f;
	int rc;

	pay_rc("cash", 400, yesterday, &rc);
	close_day("2026-11-30");
	/* a reopen needs a reason and a closed day */
	ck_assert_int_eq(day_reopen(F.db, "2026-11-30", ""), FD_EINVAL);
	ck_assert_int_eq(day_reopen(F.db, "2026-11-29", "x"), FD_ECONFLICT);
	ck_assert_int_eq(day_reopen(F.db, "2026-13-01", "x"), FD_EINVAL);
	ck_assert_msg(day_reopen(F.db, "2026-11-30", "a late cash payment") == 0, "%s", err_msg());
	ck_assert_int_eq(day_reopen(F.db, "2026-11-30", "again"), FD_ECONFLICT);
	pay_rc("cash", 250, yesterday, &rc);
	ck_assert_msg(rc == 0, "%s", err_msg());
	ck_assert_msg(day_close(F.db, "2026-11-30", &prev) == 0, "%s", err_msg());
	ck_assert_ptr_nonnull(prev);
	ck_assert_msg(day_figures_get(F.db, "2026-11-30", &f) == 0, "%s", err_msg());
	ck_assert(f.closed);
	ck_assert_int_eq(f.closes, 2);
	ck_assert_int_eq(f.reopens, 1);
	now_json = day_figures_json(&f);
	day_figures_free(&f);
	ck_assert_int_eq(day_changes(prev, now_json, change_cb, &seen), 0);
	ck_assert(seen.cash_received);
	/* the values are the takings report's, before and after */
	ck_assert_int_eq(clock_parse_local("2026-11-30", &from), 0);
	to = clock_add_days(from, 1);
	ck_assert_int_eq(report_takings(F.db, from, to, takings_cash, &after), 0);
	before = after - 250;
	snprintf(want, sizeof want, "%lld.%02lld USD", (long long)(before / 100),
	         (long long)(before % 100));
	ck_assert_str_eq(seen.before, want);
	snprintf(want, sizeof want, "%lld.%02lld USD", (long long)(after / 100),
	         (long long)(after % 100));
	ck_assert_str_eq(seen.after, want);
	/* the same figures compare equal */
	memset(&seen, 0, sizeof seen);
	ck_assert_int_eq(day_changes(now_json, now_json, change_cb, &seen), 0);
	ck_assert_int_eq(seen.n, 0);
	free(prev);
	free(now_json);
}
END_TEST

static int count_drawer(const struct drawer *d, void *arg)
{
	(void)d;
	++*(int *)arg;
	return 0;
}

/* drawer_list of the open drawers: how many (into *n), in how many steps. */
static int64_t open_list_steps(int *n)
{
	*n = 0;
	fx_steps_begin(F.db);
	ck_assert_int_eq(drawer_list(F.db, 0, 0, 1, count_drawer, n), 0);
	return fx_steps_end(F.db, NULL);
}

/* The status line's open drawers are read from drawer_open alone, never
 * walking every drawer opened and closed before (issue 33). */
START_TEST(test_open_drawers_skip_closed)
{
	int64_t steps0, steps1;
	int n;

	ck_assert_int_eq(sqlite3_exec(db_sqlite(F.db),
	                              "INSERT INTO drawer (desk, currency, float_amount, opened_by,"
	                              " opened_at) VALUES ('front', 'USD', 0, 'dana', 1)",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	steps0 = open_list_steps(&n);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(
	    sqlite3_exec(
	        db_sqlite(F.db),
	        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)"
	        " INSERT INTO drawer (desk, currency, float_amount, opened_by, opened_at)"
	        " SELECT 'd' || i, 'USD', 0, 'dana', 2 FROM n;"
	        "INSERT INTO drawer_close (drawer_id, counted, expected, difference,"
	        " closed_by, closed_at) SELECT id, 0, 0, 0, 'dana', 3 FROM drawer"
	        " WHERE desk <> 'front'",
	        NULL, NULL, NULL),
	    SQLITE_OK);
	steps1 = open_list_steps(&n);
	ck_assert_int_eq(n, 1);
	ck_assert_msg(steps1 - steps0 < 100, "steps: %lld, then %lld with 3,000 drawers closed",
	              (long long)steps0, (long long)steps1);
}
END_TEST

START_TEST(test_day_rules)
{
	/* not a day, or one that has not begun */
	ck_assert_int_eq(day_close(F.db, "2026-11-31", NULL), FD_EINVAL);
	ck_assert_int_eq(day_close(F.db, "yesterday", NULL), FD_EINVAL);
	ck_assert_int_eq(day_close(F.db, "", NULL), FD_EINVAL);
	ck_assert_int_eq(day_close(F.db, "2026-12-02", NULL), FD_EINVAL);
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM day_close"), 0);
	/* a desk person may not close or reopen a day; a manager may */
	db_operator_pretend("dana");
	ck_assert_int_eq(day_close(F.db, "2026-11-30", NULL), FD_EPERM);
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM day_close"), 0);
	/* the desk counts its own drawer */
	{
		struct drawer d;

		open_drawer("front", "10");
		ck_assert_msg(drawer_close(F.db, "front", 0, "10", NULL, &d) == 0, "%s", err_msg());
		drawer_free(&d);
	}
	db_operator_pretend("mona");
	close_day("2026-11-30");
	db_operator_pretend("dana");
	ck_assert_int_eq(day_reopen(F.db, "2026-11-30", "late"), FD_EPERM);
	db_operator_pretend("mona");
	ck_assert_msg(day_reopen(F.db, "2026-11-30", "late") == 0, "%s", err_msg());
}
END_TEST

static int count_takings(const struct takings_row *r, void *arg)
{
	int64_t *n = arg;

	n[0]++;
	n[1] += r->received;
	n[2] += r->refunded;
	return 0;
}

START_TEST(test_figures)
{
	struct day_figures f;
	int64_t from, n[3] = {0, 0, 0}, rec = 0, refd = 0, chk;
	struct payment_input in = {0};
	struct idem_result res;
	size_t i;

	open_drawer("front", "0");
	pay("cash", 1500);
	pay("card", 2500);
	in.customer_id = cust;
	in.amount = 3300;
	in.method = "check";
	in.reference = "1001";
	ck_assert_msg(payment_record(F.db, &in, NULL, 0, 0, NULL, &res) == 0, "%s", err_msg());
	chk = res.id;
	idem_result_free(&res);
	drawer_set_desk("back"); /* not open: this cash is in no drawer */
	pay("cash", 100);
	drawer_set_desk(NULL);
	ck_assert_msg(day_figures_get(F.db, "2026-12-01", &f) == 0, "%s", err_msg());
	ck_assert_int_eq(clock_parse_local("2026-12-01", &from), 0);
	ck_assert_int_eq(report_takings(F.db, from, clock_add_days(from, 1), count_takings, n), 0);
	ck_assert_int_eq((int64_t)f.nmethods, n[0]);
	for (i = 0; i < f.nmethods; i++) {
		rec += f.methods[i].received;
		refd += f.methods[i].refunded;
	}
	ck_assert_int_eq(rec, n[1]);
	ck_assert_int_eq(refd, n[2]);
	ck_assert_int_eq((int64_t)f.nchecks, 1);
	ck_assert_int_eq(f.checks[0].payment_id, chk);
	ck_assert_str_eq(f.checks[0].reference, "1001");
	ck_assert_str_eq(f.checks[0].customer, "Ada Lovelace");
	ck_assert_int_eq((int64_t)f.ndrawers, 1);
	ck_assert_int_eq(f.drawers[0].taken, 1500);
	ck_assert_int_eq(f.loose_cash_count, 1);
	ck_assert_int_eq(f.recon, 0);
	ck_assert(!f.closed);
	day_figures_free(&f);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("drawer");
	TCase *tc = tcase_create("drawer");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_amounts);
	tcase_add_test(tc, test_desk_names);
	tcase_add_test(tc, test_open_rules);
	tcase_add_test(tc, test_cash_lands_in_the_desk_drawer);
	tcase_add_test(tc, test_the_opener_drawer);
	tcase_add_test(tc, test_refund_void_payout_and_blind_count);
	tcase_add_test(tc, test_exact_and_over);
	tcase_add_test(tc, test_closed_day_refuses);
	tcase_add_test(tc, test_reopen_and_what_changed);
	tcase_add_test(tc, test_day_rules);
	tcase_add_test(tc, test_open_drawers_skip_closed);
	tcase_add_test(tc, test_figures);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
