/*
 * check_recon.c - unit tests of the reconciliation core (src/recon.c)
 * without a channel: a day's window, matching given lines to a card
 * payment of ours (a clean day; an amount mismatch found once and again on
 * a re-run, then gone), a line for a payment we never recorded, lines that
 * are refused whole, the day's lock held by someone else, and the state of
 * the books the screen reads, and what a form proposes to record.
 */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chan-order.h"
#include "channel.h"
#include "clock.h"
#include "control.h"
#include "customer.h"
#include "db.h"
#include "err.h"
#include "fixture.h"
#include "payment.h"
#include "recon.h"
#include "states.h"

static struct fx F;
static struct db *db;
static const char SHA[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
static const struct recon_source SRC = {1, SHA, 0, 0};
#define DAY "2026-12-01"

/* A paid card order of 50.00 USD at the channel with intent pi_1: its
 * payment received now (09:00 of DAY). */
static int order_tx(struct db *d, void *arg)
{
	struct chan_order_new in = {0};
	struct payment_input p = {0};
	struct pay_order po;
	char no[65];
	int64_t id;
	int rc;

	(void)arg;
	if ((rc = chan_order_number(d, no)) != 0)
		return rc;
	in.order_no = no;
	in.provider = "stripe";
	in.customer_id = 1;
	in.currency = "USD";
	in.amount = 5000;
	if ((rc = chan_order_create(d, &in, &id)) != 0 || (rc = chan_order_get_id(d, id, &po)) != 0)
		return rc;
	p.customer_id = 1;
	p.currency = "USD";
	p.amount = 5000;
	p.method = "card";
	p.reference = "pi_1";
	p.channel_ref = 1;
	if ((rc = payment_record_in(d, &p, NULL, 0, &po.payment_id)) != 0)
		return rc;
	snprintf(po.channel_id, sizeof po.channel_id, "pi_1");
	return chan_order_move(d, &po, "paid", "test");
}

static void setup(void)
{
	struct customer_input c = {"Ada Lee", NULL, NULL, NULL, NULL};
	int64_t id;

	fx_open(&F, "recon");
	db = F.db;
	ck_assert_int_eq(customer_add(db, &c, &id), 0);
	ck_assert_msg(db_write(db, order_tx, NULL) == 0, "%s", err_msg());
}

static void teardown(void)
{
	fx_close(&F);
	db = NULL;
}

static struct chan_settle_line charge(const char *id, const char *pi, int64_t amount,
                                      int64_t created)
{
	struct chan_settle_line l;

	memset(&l, 0, sizeof l);
	snprintf(l.id, sizeof l.id, "%s", id);
	snprintf(l.type, sizeof l.type, "charge");
	l.kind = CHAN_SETTLE_CHARGE;
	snprintf(l.order_id, sizeof l.order_id, "%s", pi);
	l.amount = amount;
	l.fee = amount * 3 / 100;
	l.net = l.amount - l.fee;
	snprintf(l.currency, sizeof l.currency, "USD");
	l.created = created;
	return l;
}

/* A batch's and a difference's moves are the schema's (states_agree), and a
 * table that lost a move is refused; each word maps to its state and back. */
START_TEST(test_states_agree)
{
	ck_assert_uint_eq(fx_states_hold(db, &recon_batch_states), 2);
	ck_assert_uint_eq(fx_states_hold(db, &recon_diff_states), 1);
	ck_assert_int_eq(recon_diff_state_of("open"), RECON_DIFF_OPEN);
	ck_assert_int_eq(recon_batch_state_of("done"), RECON_BATCH_DONE);
	ck_assert_int_eq(recon_batch_state_of("open"), RECON_BATCH_STATES);
}
END_TEST

START_TEST(test_day_window)
{
	int64_t from, to;

	ck_assert_int_eq(recon_day_window(DAY, &from, &to), 0);
	ck_assert_int_eq(to - from, 86400);
	ck_assert_int_eq(from, clock_day_start(clock_now()));
	ck_assert_int_eq(recon_day_window("2026-02-30", &from, &to), FD_EINVAL);
	ck_assert_int_eq(recon_day_window("2026-1-01", &from, &to), FD_EINVAL);
	ck_assert_int_eq(recon_day_window("2026-12-01x", &from, &to), FD_EINVAL);
	ck_assert_int_eq(recon_tolerance(), RECON_TOLERANCE_DEFAULT);
}
END_TEST

static int count_day(const char *day, int64_t open, void *arg)
{
	ck_assert_str_eq(day, DAY);
	ck_assert_int_eq(open, 1);
	(*(int *)arg)++;
	return 0;
}

START_TEST(test_clean_then_mismatch)
{
	struct chan_settle_line l = charge("txn_1", "pi_1", 5000, clock_now() + 2);
	struct recon_result r;
	struct recon_state s;
	int balanced, days;
	int64_t open;

	ck_assert_msg(recon_run(db, "stripe", DAY, &l, 1, &SRC, &r) == 0, "%s", err_msg());
	ck_assert_int_eq(r.matched, 1);
	ck_assert_int_eq(r.diffs_new, 0);
	ck_assert_int_eq(recon_day_state(db, NULL, &s), 0);
	ck_assert_str_eq(s.last_balanced, DAY);
	ck_assert_int_eq(fx_one(db, "SELECT fee FROM reconciliation_fee"), 150);

	l.amount = 4900;
	l.net = l.amount - l.fee;
	ck_assert_int_eq(recon_run(db, "stripe", DAY, &l, 1, &SRC, &r), 0);
	ck_assert_int_eq(r.diffs_new, 1);
	ck_assert_int_eq(r.open, 1);
	ck_assert_int_eq(recon_run(db, "stripe", DAY, &l, 1, &SRC, &r), 0);
	ck_assert_int_eq(r.diffs_new, 0);
	ck_assert_int_eq(r.diffs_seen, 1);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM reconciliation_diff"), 1);
	ck_assert_int_eq(fx_one(db, "SELECT local_amount - channel_amount FROM reconciliation_diff"
	                            " WHERE kind = 'amount_mismatch'"),
	                 100);
	ck_assert_int_eq(recon_day_state(db, NULL, &s), 0);
	ck_assert_str_eq(s.last_balanced, "");
	ck_assert_int_eq(s.open, 1);
	ck_assert_int_eq(s.open_days, 1);
	ck_assert_int_eq(recon_day_balanced(db, "stripe", DAY, &balanced, &open), 0);
	ck_assert_int_eq(balanced, 0);
	ck_assert_int_eq(open, 1);
	days = 0;
	ck_assert_int_eq(recon_days_open(db, NULL, "2026-11-01", "2026-12-31", count_day, &days),
	                 0);
	ck_assert_int_eq(days, 1);

	l.amount = 5000;
	l.net = l.amount - l.fee;
	ck_assert_int_eq(recon_run(db, "stripe", DAY, &l, 1, &SRC, &r), 0);
	ck_assert_int_eq(r.diffs_gone, 1);
	ck_assert_int_eq(r.open, 0);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM reconciliation_resolution"
	                            " WHERE action = 'gone'"),
	                 1);
	ck_assert_int_eq(recon_day_balanced(db, NULL, DAY, &balanced, &open), 0);
	ck_assert_int_eq(balanced, 1);
	ck_assert_int_eq(recon_day_balanced(db, NULL, "2026-11-30", &balanced, &open), 0);
	ck_assert_int_eq(balanced, 0); /* never reconciled */
}
END_TEST

START_TEST(test_channel_only_and_local_only)
{
	struct chan_settle_line l = charge("txn_2", "pi_unknown", 1500, clock_now());
	struct recon_result r;
	struct recon_diff d;

	ck_assert_int_eq(recon_run(db, "stripe", DAY, &l, 1, &SRC, &r), 0);
	ck_assert_int_eq(r.diffs_new, 2);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM reconciliation_diff WHERE kind ="
	                            " 'channel_only' AND natural_key = 'line:txn_2'"),
	                 1);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM reconciliation_diff WHERE kind ="
	                            " 'local_only' AND local_amount = 5000"),
	                 1);
	ck_assert_int_eq(recon_diff_get(db,
	                                fx_one(db, "SELECT id FROM reconciliation_diff WHERE"
	                                           " kind = 'channel_only'"),
	                                &d),
	                 0);
	ck_assert_ptr_nonnull(strstr(d.line_data, "\"order_id\":\"pi_unknown\""));
	ck_assert_int_eq(d.channel_amount, 1500);
	recon_diff_free(&d);
	ck_assert_int_eq(recon_accept(db, d.id, "   "), FD_EINVAL);
	ck_assert_int_eq(recon_accept(db, d.id, "walk-in, booked elsewhere"), 0);
	ck_assert_int_eq(recon_accept(db, d.id, "again"), FD_ECONFLICT);
}
END_TEST

/* A card order of 20.00 USD at the channel (intent pi_2) that never got
 * its payment: its success was lost. */
static int lost_order_tx(struct db *d, void *arg)
{
	struct chan_order_new in = {0};
	struct pay_order po;
	char no[65];
	int64_t id;
	int rc;

	if ((rc = chan_order_number(d, no)) != 0)
		return rc;
	in.order_no = no;
	in.provider = "stripe";
	in.customer_id = 1;
	in.currency = "USD";
	in.amount = 2000;
	if ((rc = chan_order_create(d, &in, &id)) != 0 || (rc = chan_order_get_id(d, id, &po)) != 0)
		return rc;
	snprintf((char *)arg, 65, "%s", no);
	snprintf(po.channel_id, sizeof po.channel_id, "pi_2");
	return chan_order_move(d, &po, "paying", "test");
}

START_TEST(test_record_guess)
{
	struct chan_settle_line l[3] = {charge("txn_1", "pi_1", 5000, clock_now()),
	                                charge("txn_2", "pi_unknown", 1500, clock_now()),
	                                charge("txn_4", "pi_2", 2000, clock_now())};
	struct recon_result r;
	struct recon_guess g;
	char no[65];
	int64_t page, lost;

	ck_assert_msg(db_write(db, lost_order_tx, no) == 0, "%s", err_msg());
	ck_assert_msg(recon_run(db, "stripe", DAY, l, 3, &SRC, &r) == 0, "%s", err_msg());
	ck_assert_int_eq(r.diffs_new, 2);
	page = fx_one(db, "SELECT id FROM reconciliation_diff WHERE natural_key = 'line:txn_2'");
	lost = fx_one(db, "SELECT id FROM reconciliation_diff WHERE natural_key = 'line:txn_4'");
	/* a charge taken on the channel's own page: its amount, nobody's */
	ck_assert_msg(recon_record_guess(db, page, &g) == 0, "%s", err_msg());
	ck_assert_int_eq(g.amount, 1500);
	ck_assert_str_eq(g.currency, "USD");
	ck_assert_int_eq(g.customer_id, 0);
	ck_assert_str_eq(g.order_no, "");
	ck_assert_str_eq(g.invoice, "");
	/* the lost order's charge: the order's customer */
	ck_assert_msg(recon_record_guess(db, lost, &g) == 0, "%s", err_msg());
	ck_assert_int_eq(g.amount, 2000);
	ck_assert_int_eq(g.customer_id, 1);
	ck_assert_str_eq(g.order_no, no);
	ck_assert_int_eq(g.paid, 0);
	ck_assert_int_eq(g.invoice_id, 0);
	ck_assert_int_eq(recon_record_guess(db, 9999, &g), FD_ENOTFOUND);
	/* only a channel charge has anything to record */
	l[0].amount = 4900;
	ck_assert_int_eq(recon_run(db, "stripe", DAY, l, 3, &SRC, &r), 0);
	ck_assert_int_eq(recon_record_guess(db,
	                                    fx_one(db, "SELECT id FROM reconciliation_diff"
	                                               " WHERE kind = 'amount_mismatch'"),
	                                    &g),
	                 FD_EINVAL);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM reconciliation_resolution"
	                            " WHERE action <> 'gone'"),
	                 0); /* it only reads */
}
END_TEST

START_TEST(test_refused_whole)
{
	struct chan_settle_line l[2] = {charge("txn_3", "pi_1", 5000, clock_now()),
	                                charge("", "pi_1", 5000, clock_now())};
	struct recon_result r;
	struct control_hold h;

	ck_assert_int_eq(recon_run(db, "stripe", DAY, l, 2, &SRC, &r), FD_EINVAL);
	ck_assert_int_eq(recon_run(db, "stripe", "2026-13-01", l, 1, &SRC, &r), FD_EINVAL);
	ck_assert_int_eq(recon_run(db, "Bad Code", DAY, l, 1, &SRC, &r), FD_EINVAL);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM reconciliation_batch"), 0);
	ck_assert_int_eq(control_acquire(db, "recon.stripe." DAY, CONTROL_LOCK, 60, &h), 0);
	ck_assert_int_eq(recon_run(db, "stripe", DAY, l, 1, &SRC, &r), FD_ECONFLICT);
	ck_assert_ptr_nonnull(strstr(err_msg(), "being reconciled by someone else"));
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM reconciliation_batch"), 0);
	control_release(db, &h);
	ck_assert_int_eq(recon_run(db, "stripe", DAY, l, 1, &SRC, &r), 0);
}
END_TEST

/* recon_day_state's steps; its open count into *open. */
static int64_t day_state_steps(int64_t *open)
{
	struct recon_state st;
	int64_t steps;

	fx_steps_begin(db);
	ck_assert_int_eq(recon_day_state(db, NULL, &st), 0);
	steps = fx_steps_end(db, NULL);
	*open = st.open;
	return steps;
}

/* The status line's "books: N open" (recon_day_state, whenever the
 * database changed) counts the open differences by their partial index,
 * never every difference found and resolved since (issue 33). */
START_TEST(test_open_count_skips_resolved)
{
	int64_t steps0, steps1, open;

	ck_assert_int_eq(
	    sqlite3_exec(
	        db_sqlite(db),
	        "INSERT INTO reconciliation_batch (provider_code, business_day, window_from,"
	        " window_to, source, fetch_from, fetch_to, status, operator_id, started_at)"
	        " VALUES ('stripe', '2026-11-30', 1, 2, 'fetch', 1, 2, 'done', 'x', 1);"
	        "INSERT INTO reconciliation_diff (provider_code, kind, natural_key,"
	        " business_day, first_batch_id, last_seen_batch_id, line_id, created_at,"
	        " updated_at) VALUES ('stripe', 'channel_only', 'line:open', '2026-11-30',"
	        " 1, 1, 'open', 1, 1)",
	        NULL, NULL, NULL),
	    SQLITE_OK);
	steps0 = day_state_steps(&open);
	ck_assert_int_eq(open, 1);
	ck_assert_int_eq(
	    sqlite3_exec(
	        db_sqlite(db),
	        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)"
	        " INSERT INTO reconciliation_diff (provider_code, kind, natural_key,"
	        " business_day, first_batch_id, last_seen_batch_id, line_id, state,"
	        " created_at, updated_at) SELECT 'stripe', 'channel_only', 'line:' || i,"
	        " '2026-11-30', 1, 1, 'l' || i, 'resolved', 1, 1 FROM n",
	        NULL, NULL, NULL),
	    SQLITE_OK);
	steps1 = day_state_steps(&open);
	ck_assert_int_eq(open, 1);
	ck_assert_msg(steps1 - steps0 < 100, "steps: %lld, then %lld with 5,000 resolved",
	              (long long)steps0, (long long)steps1);
}
END_TEST

/* recon_day_state's last balanced day into *day, in how many steps. */
static int64_t balanced_steps(char *day, size_t n)
{
	struct recon_state st;
	int64_t steps;

	fx_steps_begin(db);
	ck_assert_int_eq(recon_day_state(db, NULL, &st), 0);
	steps = fx_steps_end(db, NULL);
	snprintf(day, n, "%s", st.last_balanced);
	return steps;
}

static void add_batch(const char *day, const char *status)
{
	char sql[512];

	snprintf(sql, sizeof sql,
	         "INSERT INTO reconciliation_batch (provider_code, business_day, window_from,"
	         " window_to, source, fetch_from, fetch_to, status, operator_id, started_at)"
	         " VALUES ('stripe', '%s', 1, 2, 'fetch', 1, 2, '%s', 'x', 1)",
	         day, status);
	ck_assert_int_eq(sqlite3_exec(db_sqlite(db), sql, NULL, NULL, NULL), SQLITE_OK);
}

/* The status line's "books: last balanced D" walks the days reconciled
 * from the newest back to the first balanced one, never grouping every
 * batch ever run (issue 33); a day whose latest batch failed, or with an
 * open difference, is not balanced. */
START_TEST(test_last_balanced_reads_the_newest)
{
	int64_t steps0, steps1;
	char day[16];

	add_batch("2026-11-30", "done");
	steps0 = balanced_steps(day, sizeof day);
	ck_assert_str_eq(day, "2026-11-30");
	ck_assert_int_eq(
	    sqlite3_exec(
	        db_sqlite(db),
	        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)"
	        " INSERT INTO reconciliation_batch (provider_code, business_day, window_from,"
	        " window_to, source, fetch_from, fetch_to, status, operator_id, started_at)"
	        " SELECT 'stripe', date('2018-01-01', '+' || i || ' days'), 1, 2, 'fetch',"
	        " 1, 2, 'done', 'x', 1 FROM n",
	        NULL, NULL, NULL),
	    SQLITE_OK);
	steps1 = balanced_steps(day, sizeof day);
	ck_assert_str_eq(day, "2026-11-30");
	ck_assert_msg(steps1 - steps0 < 100, "steps: %lld, then %lld with 3,000 days reconciled",
	              (long long)steps0, (long long)steps1);
	/* a newer day whose latest batch failed is not balanced; run again, it is */
	add_batch("2026-12-01", "done");
	add_batch("2026-12-01", "failed");
	balanced_steps(day, sizeof day);
	ck_assert_str_eq(day, "2026-11-30");
	add_batch("2026-12-01", "done");
	balanced_steps(day, sizeof day);
	ck_assert_str_eq(day, "2026-12-01");
	/* nor is a day with a difference still open */
	ck_assert_int_eq(
	    sqlite3_exec(db_sqlite(db),
	                 "INSERT INTO reconciliation_diff (provider_code, kind, natural_key,"
	                 " business_day, first_batch_id, last_seen_batch_id, line_id, created_at,"
	                 " updated_at) VALUES ('stripe', 'channel_only', 'line:x', '2026-12-01',"
	                 " 1, 1, 'x', 1, 1)",
	                 NULL, NULL, NULL),
	    SQLITE_OK);
	balanced_steps(day, sizeof day);
	ck_assert_str_eq(day, "2026-11-30");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("recon");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	fx_env();
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_day_window);
	tcase_add_test(tc, test_clean_then_mismatch);
	tcase_add_test(tc, test_states_agree);
	tcase_add_test(tc, test_channel_only_and_local_only);
	tcase_add_test(tc, test_refused_whole);
	tcase_add_test(tc, test_record_guess);
	tcase_add_test(tc, test_open_count_skips_resolved);
	tcase_add_test(tc, test_last_balanced_reads_the_newest);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
