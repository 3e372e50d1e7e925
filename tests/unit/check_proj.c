/*
 * check_proj.c - unit tests of the calendar projection (projection.c), the
 * work-order queue (task.c) and the control table (control.c): the spreading
 * rule, the triggers that enqueue rebuilds in the same transaction, rebuilds
 * that recompute (twice, or from two processes, give the same row), the
 * range query and its plan, the check, payment statuses from real invoices
 * and payments, retries, backoff, dead jobs, expired claims, and leases with
 * several real processes (kill -9, SIGSTOP past the expiry, fencing).
 *
 * Lease tests use the real clock with one- or two-second leases, so they
 * sleep a few seconds in all. FRONTDESK_LONG_TESTS=1 makes the stress test
 * of many processes run longer.
 */
#include <config.h>

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "err.h"
#include "fixture.h"
#include "invoice.h"
#include "job.h"
#include "lifecycle.h"
#include "migrate.h"
#include "money.h"
#include "payment.h"
#include "projection.h"
#include "strbuf.h"
#include "task.h"
#include "visit.h"

static struct fx F;
static struct db *db;
#define tmpdir F.dir
#define dbpath F.path

static void setup(void)
{
	fx_open(&F, "proj");
	db = F.db;
}

static void teardown(void)
{
	fx_close(&F);
	db = NULL;
}

/* The fixture without the database (a test that opens it its own way). */
static void tmp_only(void)
{
	fx_tmp(&F, "proj");
}

static void tmp_done(void)
{
	fx_tmp_done(&F);
}

/* ---------------------------------------------------------------- helpers */

static int64_t count(const char *sql)
{
	return fx_one(db, sql);
}

/* Run sql binding a, b, c to ?1, ?2, ?3 (as many as it uses). */
static void run3(struct db *d, const char *sql, int64_t a, int64_t b, int64_t c)
{
	sqlite3_stmt *st;
	int n;

	ck_assert_msg(db_prepare(d, sql, &st) == 0, "%s", err_msg());
	n = sqlite3_bind_parameter_count(st);
	if (n >= 1)
		sqlite3_bind_int64(st, 1, a);
	if (n >= 2)
		sqlite3_bind_int64(st, 2, b);
	if (n >= 3)
		sqlite3_bind_int64(st, 3, c);
	ck_assert_msg(db_run(d, st, "test") == 0, "%s: %s", sql, err_msg());
}

static int64_t last_id(void)
{
	return sqlite3_last_insert_rowid(db_sqlite(db));
}

static int64_t add_customer(const char *name)
{
	sqlite3_stmt *st;

	ck_assert_int_eq(db_prepare(db,
	                            "INSERT INTO customer (name, created_at, updated_at) "
	                            "VALUES (?, 0, 0)",
	                            &st),
	                 0);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	ck_assert_int_eq(db_run(db, st, "customer"), 0);
	return last_id();
}

static int64_t add_job(int64_t customer, const char *title, const char *currency)
{
	sqlite3_stmt *st;

	ck_assert_int_eq(db_prepare(db,
	                            "INSERT INTO service_order (customer_id, title, currency, "
	                            "created_at, updated_at) VALUES (?, ?, ?, 0, 0)",
	                            &st),
	                 0);
	sqlite3_bind_int64(st, 1, customer);
	sqlite3_bind_text(st, 2, title, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, currency, -1, SQLITE_STATIC);
	ck_assert_int_eq(db_run(db, st, "job"), 0);
	return last_id();
}

static int64_t at(const char *local)
{
	int64_t t;

	ck_assert_msg(clock_parse_local(local, &t) == 0, "%s", err_msg());
	return t;
}

static int64_t add_appt(const char *start, const char *end)
{
	run3(db,
	     "INSERT INTO appointment (start_at, end_at, created_at, updated_at) "
	     "VALUES (?1, ?2, 0, 0)",
	     at(start), at(end), 0);
	return last_id();
}

static void add_link(int64_t appt, int64_t job, int64_t minutes)
{
	run3(db,
	     "INSERT INTO appointment_work (appointment_id, service_order_id, est_minutes, "
	     "created_at, updated_at) VALUES (?1, ?2, ?3, 0, 0)",
	     appt, job, minutes);
}

static int64_t add_item(int64_t job, const char *kind, int64_t qty_milli, int64_t price)
{
	sqlite3_stmt *st;
	int64_t amount;

	ck_assert_int_eq(money_line_amount(qty_milli, price, &amount), 0);
	if (!strcmp(kind, "DISCOUNT") || !strcmp(kind, "CREDIT"))
		amount = -amount;
	ck_assert_int_eq(db_prepare(db,
	                            "INSERT INTO line_item (service_order_id, kind, description, "
	                            "qty_milli, unit_price, amount, created_at, updated_at) "
	                            "VALUES (?, ?, ?, ?, ?, ?, 0, 0)",
	                            &st),
	                 0);
	sqlite3_bind_int64(st, 1, job);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, qty_milli);
	sqlite3_bind_int64(st, 5, price);
	sqlite3_bind_int64(st, 6, amount);
	ck_assert_int_eq(db_run(db, st, "item"), 0);
	return last_id();
}

static void set_appt_status(int64_t appt, const char *status)
{
	sqlite3_stmt *st;

	ck_assert_int_eq(db_prepare(db, "UPDATE appointment SET status = ? WHERE id = ?", &st), 0);
	sqlite3_bind_text(st, 1, status, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, appt);
	ck_assert_msg(db_run(db, st, "status") == 0, "%s", err_msg());
}

static struct task_opts test_opts(void)
{
	struct task_opts o;

	task_opts_default(&o);
	o.max_attempts = 3;
	o.backoff_base = 10;
	o.backoff_max = 1000;
	return o;
}

/* Run every due task (no lease: this test process is alone). A task is
 * queued at SQLite's clock and claimed at clock_real(); both read the
 * system's precise clock, so a task queued just now is due at once. */
static int drain(void)
{
	struct task_opts o = test_opts();
	int ran, total = 0;

	do {
		ck_assert_msg(task_run_batch(db, NULL, &o, &ran) == 0, "%s", err_msg());
		total += ran;
	} while (ran > 0);
	return total;
}

static int64_t pending_for(int64_t appt)
{
	int64_t n = -1;
	sqlite3_stmt *st;

	ck_assert_int_eq(db_prepare(db,
	                            "SELECT count(*) FROM task WHERE kind = 'calendar' AND "
	                            "key = CAST(? AS TEXT) AND status = 'pending'",
	                            &st),
	                 0);
	sqlite3_bind_int64(st, 1, appt);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static struct cal_row row(int64_t appt)
{
	struct cal_row r;

	ck_assert_msg(projection_get(db, appt, &r) == 0, "visit %lld: %s", (long long)appt,
	              err_msg());
	return r;
}

static int64_t total_of(int64_t appt)
{
	struct cal_row r = row(appt);
	int64_t t = r.total;

	cal_row_free(&r);
	return t;
}

static void pay_is(int64_t appt, const char *want)
{
	struct cal_row r;

	drain();
	r = row(appt);
	ck_assert_msg(!strcmp(r.pay_status, want), "visit %lld: payment status %s, want %s",
	              (long long)appt, r.pay_status, want);
	cal_row_free(&r);
}

/* ---------------------------------------------------------------- spreading */

static int64_t sum(const int64_t *v, size_t n)
{
	int64_t s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += v[i];
	return s;
}

START_TEST(test_spread_examples)
{
	int64_t w3[] = {1, 1, 1}, sh[4];
	int64_t w2[] = {60, 30, 30}, w0[] = {0, 1, 1}, wz[] = {0, 0, 0};
	int64_t big[] = {1, 1, 1}, neg[] = {1, -1};

	ck_assert_int_eq(projection_spread(100, w3, 3, sh), 0);
	ck_assert(sh[0] == 34 && sh[1] == 33 && sh[2] == 33); /* the earliest gets the cent */
	ck_assert_int_eq(projection_spread(-100, w3, 3, sh), 0);
	ck_assert(sh[0] == -34 && sh[1] == -33 && sh[2] == -33);
	ck_assert_int_eq(projection_spread(10001, w2, 3, sh), 0);
	ck_assert(sh[0] == 5001 && sh[1] == 2500 && sh[2] == 2500);
	/* a visit with no minutes gets no share, not even a left-over cent */
	ck_assert_int_eq(projection_spread(101, w0, 3, sh), 0);
	ck_assert(sh[0] == 0 && sh[1] == 51 && sh[2] == 50);
	/* all zero: equal parts */
	ck_assert_int_eq(projection_spread(100, wz, 3, sh), 0);
	ck_assert(sh[0] == 34 && sh[1] == 33 && sh[2] == 33);
	ck_assert_int_eq(projection_spread(0, w3, 3, sh), 0);
	ck_assert(sh[0] == 0 && sh[1] == 0 && sh[2] == 0);
	/* the extremes of int64_t spread exactly, with no overflow */
	ck_assert_int_eq(projection_spread(INT64_MAX, big, 3, sh), 0);
	ck_assert(sh[0] + sh[1] == INT64_MAX - sh[2]);
	ck_assert_int_eq(projection_spread(INT64_MIN, big, 3, sh), 0);
	ck_assert(sh[0] + sh[1] == INT64_MIN - sh[2]);
	ck_assert_int_eq(projection_spread(5, w3, 0, sh), FD_EINVAL);
	ck_assert_int_eq(projection_spread(5, neg, 2, sh), FD_EINVAL);
}
END_TEST

START_TEST(test_spread_always_adds_up)
{
	int64_t w[12], sh[12];
	unsigned seed = 12345;
	int i, k;

	for (i = 0; i < 20000; i++) {
		size_t n = 1 + (size_t)(rand_r(&seed) % 12);
		int64_t amount = (int64_t)(rand_r(&seed) % 2000001) - 1000000;

		if (i % 100 == 0)
			amount *= 1000000007; /* large amounts too */
		for (k = 0; k < (int)n; k++)
			w[k] = rand_r(&seed) % 4 == 0 ? 0 : rand_r(&seed) % 100000;
		ck_assert_int_eq(projection_spread(amount, w, n, sh), 0);
		ck_assert_int_eq(sum(sh, n), amount);
		for (k = 0; k < (int)n; k++) /* every part has the amount's sign */
			ck_assert(amount >= 0 ? sh[k] >= 0 : sh[k] <= 0);
	}
}
END_TEST

/* ---------------------------------------------------------------- triggers */

/* A task's states: each word maps to its state and back, and the schema's
 * CHECK on task.status names every word of the enum. */
START_TEST(test_task_state_words)
{
	sqlite3_stmt *st;
	char quoted[40];
	const char *sql;
	int s;

	ck_assert_int_eq(
	    db_prepare(db, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'task'",
	               &st),
	    0);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	sql = (const char *)sqlite3_column_text(st, 0);
	for (s = 0; s < TASK_STATES; s++) {
		ck_assert_int_eq(task_state_of(task_state_word((enum task_state)s)), s);
		snprintf(quoted, sizeof quoted, "status = '%s'",
		         task_state_word((enum task_state)s));
		ck_assert_msg(strstr(sql, quoted) != NULL, "the schema's task has no %s", quoted);
	}
	sqlite3_finalize(st);
	ck_assert_int_eq(task_state_of("done"), TASK_STATES);
	ck_assert_int_eq(task_state_of(NULL), TASK_STATES);
	ck_assert_str_eq(task_state_word(TASK_STATES), "");
}
END_TEST

START_TEST(test_triggers_enqueue_in_the_same_transaction)
{
	int64_t ada, job, a1, a2, other;

	ada = add_customer("Ada Lee");
	job = add_job(ada, "Full detail", "USD");
	a1 = add_appt("2026-12-02 09:00", "2026-12-02 11:00");
	ck_assert_int_eq(pending_for(a1), 1);
	drain();
	ck_assert_int_eq(pending_for(a1), 0);
	a2 = add_appt("2026-12-03 09:00", "2026-12-03 10:00");
	other = add_appt("2026-12-04 09:00", "2026-12-04 10:00");
	drain();

	/* linking a2 to the job touches every visit of the job */
	add_link(a1, job, 120);
	drain();
	add_link(a2, job, 60);
	ck_assert_int_eq(pending_for(a1), 1);
	ck_assert_int_eq(pending_for(a2), 1);
	ck_assert_int_eq(pending_for(other), 0);
	/* a second change while a rebuild is pending does not duplicate it */
	add_item(job, "SERVICE", 1000, 18000);
	ck_assert_int_eq(pending_for(a1), 1);
	/* not even when the statement that fires the trigger has its own conflict clause */
	run3(db, "UPDATE OR FAIL appointment SET end_at = end_at + 60 WHERE id = ?1", a1, 0, 0);
	run3(db,
	     "UPDATE OR ROLLBACK appointment_work SET est_minutes = 100 WHERE appointment_id = ?1",
	     a1, 0, 0);
	ck_assert_int_eq(pending_for(a1), 1);
	drain();

	/* an item's change reaches all the job's visits, nothing else */
	run3(db,
	     "UPDATE line_item SET unit_price = 20000, amount = 20000 WHERE service_order_id = ?1",
	     job, 0, 0);
	ck_assert_int_eq(pending_for(a1) + pending_for(a2) + pending_for(other), 2);
	drain();
	/* a column the row does not show enqueues nothing */
	run3(db, "UPDATE appointment SET note = 'gate code 1234' WHERE id = ?1", a1, 0, 0);
	ck_assert_int_eq(pending_for(a1), 0);
	/* the customer's new name reaches her visits */
	run3(db, "UPDATE customer SET name = 'Ada Lee-Chen' WHERE id = ?1", ada, 0, 0);
	ck_assert_int_eq(pending_for(a1) + pending_for(a2), 2);
	drain();
	/* a rolled-back change leaves no task behind */
	ck_assert_int_eq(db_begin_write(db), 0);
	run3(db, "UPDATE appointment SET start_at = start_at - 60 WHERE id = ?1", other, 0, 0);
	ck_assert_int_eq(pending_for(other), 1);
	db_rollback(db);
	ck_assert_int_eq(pending_for(other), 0);
	/* a deleted visit's row goes away */
	ck_assert_int_eq(count("SELECT count(*) FROM appointment_calendar_view"), 3);
	run3(db, "DELETE FROM appointment WHERE id = ?1", other, 0, 0);
	ck_assert_int_eq(pending_for(other), 1);
	drain();
	ck_assert_int_eq(count("SELECT count(*) FROM appointment_calendar_view"), 2);
}
END_TEST

/* ---------------------------------------------------------------- rows */

START_TEST(test_row_of_one_visit)
{
	int64_t ada, job, a;
	struct cal_row r;
	int changed = -1;

	ada = add_customer("Ada Lee");
	job = add_job(ada, "Full detail", "USD");
	a = add_appt("2026-12-02 09:00", "2026-12-02 11:00");
	add_link(a, job, 120);
	add_item(job, "SERVICE", 1000, 18000);
	add_item(job, "DISCOUNT", 1000, 2000);
	add_item(job, "TAX", 1000, 1280);
	drain();
	r = row(a);
	ck_assert_str_eq(r.customers, "Ada Lee");
	ck_assert_str_eq(r.services, "Full detail");
	ck_assert_int_eq(r.total, 17280);
	ck_assert_str_eq(r.currency, "USD");
	ck_assert_int_eq(r.est_minutes, 120);
	ck_assert_str_eq(r.pay_status, "unpaid");
	ck_assert_str_eq(r.status, "scheduled");
	ck_assert_int_eq(r.version, PROJECTION_VERSION);
	ck_assert_int_eq(r.start_at, at("2026-12-02 09:00"));
	cal_row_free(&r);

	/* rebuilding again changes nothing, not even built_at */
	run3(db, "UPDATE appointment_calendar_view SET built_at = 7 WHERE appointment_id = ?1", a,
	     0, 0);
	ck_assert_int_eq(projection_rebuild(db, a, &changed), 0);
	ck_assert_int_eq(changed, 0);
	r = row(a);
	ck_assert_int_eq(r.built_at, 7);
	cal_row_free(&r);

	/* a stored row that was tampered with is recomputed, never adjusted */
	run3(db,
	     "UPDATE appointment_calendar_view SET total_price = total_price + 5 "
	     "WHERE appointment_id = ?1",
	     a, 0, 0);
	ck_assert_int_eq(projection_rebuild(db, a, &changed), 0);
	ck_assert_int_eq(changed, 1);
	ck_assert_int_eq(total_of(a), 17280);
	ck_assert_int_eq(projection_rebuild(db, a, &changed), 0);
	ck_assert_int_eq(total_of(a), 17280);

	/* a visit with no job */
	a = add_appt("2026-12-02 13:00", "2026-12-02 14:00");
	drain();
	r = row(a);
	ck_assert_str_eq(r.customers, "");
	ck_assert_str_eq(r.services, "");
	ck_assert_str_eq(r.currency, "");
	ck_assert_int_eq(r.total, 0);
	ck_assert_str_eq(r.pay_status, "nothing_to_charge");
	cal_row_free(&r);
}
END_TEST

START_TEST(test_job_spread_over_visits)
{
	int64_t ada, job, v1, v2, v3;
	struct cal_row r;

	ada = add_customer("Ada Lee");
	job = add_job(ada, "Paint fence", "USD");
	/* ids are not in time order: v2 is the earliest visit */
	v1 = add_appt("2026-12-03 09:00", "2026-12-03 10:00");
	v2 = add_appt("2026-12-01 09:00", "2026-12-01 10:00");
	v3 = add_appt("2026-12-02 09:00", "2026-12-02 10:00");
	add_link(v1, job, 60);
	add_link(v2, job, 30);
	add_link(v3, job, 30);
	add_item(job, "SERVICE", 1000, 10001);
	drain();
	/* 100.01 by 60:30:30 is 50.005, 25.0025, 25.0025: the cent left over goes
	 * to the earliest visit */
	ck_assert_int_eq(total_of(v1), 5000);
	ck_assert_int_eq(total_of(v2), 2501);
	ck_assert_int_eq(total_of(v3), 2500);
	r = row(v1);
	ck_assert_int_eq(r.est_minutes, 60);
	cal_row_free(&r);

	/* moving v1 before v2 moves the cent with it */
	run3(db, "UPDATE appointment SET start_at = ?1, end_at = ?2 WHERE id = ?3",
	     at("2026-11-30 09:00"), at("2026-11-30 10:00"), v1);
	drain();
	ck_assert_int_eq(total_of(v1), 5001);
	ck_assert_int_eq(total_of(v2), 2500);

	/* a cancelled visit gets nothing; the others share the whole price */
	set_appt_status(v2, "cancelled");
	drain();
	ck_assert_int_eq(total_of(v2), 0);
	r = row(v2);
	ck_assert_str_eq(r.currency, "");
	ck_assert_str_eq(r.pay_status, "nothing_to_charge");
	ck_assert_str_eq(r.status, "cancelled");
	cal_row_free(&r);
	/* 10001 by 60:30: 6667.33 and 3333.67; the cent goes to v1, now the earliest */
	ck_assert_int_eq(total_of(v1) + total_of(v3), 10001);
	ck_assert_int_eq(total_of(v1), 6668);

	/* no minutes anywhere: equal parts */
	run3(db,
	     "UPDATE appointment_work SET est_minutes = 0 WHERE service_order_id = ?1 "
	     "AND appointment_id <> ?2",
	     job, v2, 0);
	drain();
	ck_assert_int_eq(total_of(v1), 5001);
	ck_assert_int_eq(total_of(v3), 5000);
	/* a cancelled job adds nothing but still names its customer and title */
	run3(db, "UPDATE service_order SET status = 'cancelled' WHERE id = ?1", job, 0, 0);
	drain();
	r = row(v1);
	ck_assert_int_eq(r.total, 0);
	ck_assert_str_eq(r.customers, "Ada Lee");
	ck_assert_str_eq(r.services, "Paint fence");
	cal_row_free(&r);
}
END_TEST

START_TEST(test_visit_serving_several_jobs)
{
	int64_t ada, bo, cy, j1, j2, j3, j4, v, w;
	struct cal_row r;

	ada = add_customer("Ada Lee");
	bo = add_customer("Bo Chen");
	cy = add_customer("Cy Park");
	j1 = add_job(ada, "Wash", "USD");
	j2 = add_job(ada, "Wax", "USD");
	j3 = add_job(bo, "Tint", "USD");
	v = add_appt("2026-12-02 09:00", "2026-12-02 12:00");
	w = add_appt("2026-12-05 09:00", "2026-12-05 12:00");
	add_link(v, j1, 60);
	add_link(v, j2, 30);
	add_link(v, j3, 90);
	add_link(w, j3, 90); /* Tint is spread over v and w: half each */
	add_item(j1, "SERVICE", 1000, 4000);
	add_item(j2, "SERVICE", 1500, 3000); /* 1.5 x 30.00 */
	add_item(j3, "SERVICE", 1000, 12001);
	drain();
	r = row(v);
	ck_assert_str_eq(r.customers, "Ada Lee +1"); /* two customers */
	ck_assert_str_eq(r.services, "Wash, Wax, Tint");
	ck_assert_int_eq(r.est_minutes, 180);
	/* 40.00 + 45.00 + 60.01 (v is earlier than w, so it takes the odd cent) */
	ck_assert_int_eq(r.total, 4000 + 4500 + 6001);
	cal_row_free(&r);
	ck_assert_int_eq(total_of(w), 6000);

	/* a third customer: "+2" */
	j4 = add_job(cy, "Detail", "USD");
	add_link(v, j4, 0);
	drain();
	r = row(v);
	ck_assert_str_eq(r.customers, "Ada Lee +2");
	cal_row_free(&r);

	/* jobs in two currencies: no single total */
	run3(db, "DELETE FROM appointment_work WHERE appointment_id = ?1 AND service_order_id = ?2",
	     v, j4, 0);
	add_link(v, add_job(cy, "Polish", "EUR"), 10);
	drain();
	r = row(v);
	ck_assert_int_eq(r.has_total, 0);
	ck_assert_str_eq(r.currency, "");
	cal_row_free(&r);
}
END_TEST

START_TEST(test_long_service_list_is_bounded)
{
	int64_t ada = add_customer("Ada Lee"), v, i;
	char title[80];
	struct cal_row r;

	v = add_appt("2026-12-02 09:00", "2026-12-02 12:00");
	for (i = 0; i < 12; i++) {
		snprintf(title, sizeof title, "Job number %02lld with a rather long title",
		         (long long)i);
		add_link(v, add_job(ada, title, "USD"), 10);
	}
	drain();
	r = row(v);
	ck_assert(strlen(r.services) <= PROJECTION_SERVICES_MAX + 8);
	ck_assert(strstr(r.services, "Job number 00") == r.services);
	ck_assert(strstr(r.services, " +") != NULL); /* the rest is counted */
	cal_row_free(&r);
}
END_TEST

/* ---------------------------------------------------------------- range */

struct ids {
	int64_t v[16];
	int n;
};

static int collect(const struct cal_row *r, void *arg)
{
	struct ids *ids = arg;

	if (ids->n < 16)
		ids->v[ids->n++] = r->appointment_id;
	return 0;
}

static int has(const struct ids *ids, int64_t id)
{
	int i;

	for (i = 0; i < ids->n; i++)
		if (ids->v[i] == id)
			return 1;
	return 0;
}

START_TEST(test_range_overlap)
{
	int64_t night, before, after, inside, long_one, d2, d3;
	struct ids ids = {{0}, 0};

	night = add_appt("2026-12-01 22:00", "2026-12-02 02:00");  /* crosses midnight */
	before = add_appt("2026-12-01 20:00", "2026-12-02 00:00"); /* ends at the start */
	after = add_appt("2026-12-03 00:00", "2026-12-03 01:00");  /* starts at the end */
	inside = add_appt("2026-12-02 09:00", "2026-12-02 10:00");
	long_one = add_appt("2026-11-27 08:00", "2026-12-02 08:00"); /* 5 days */
	drain();
	d2 = at("2026-12-02");
	d3 = at("2026-12-03");
	ck_assert_int_eq(projection_range(db, d2, d3, collect, &ids), 0);
	ck_assert_int_eq(ids.n, 3);
	ck_assert(has(&ids, night) && has(&ids, inside) && has(&ids, long_one));
	ck_assert(!has(&ids, before) && !has(&ids, after));
	ck_assert_int_eq(ids.v[0], long_one); /* by start time */
	/* the night visit shows on the day before too */
	ids.n = 0;
	ck_assert_int_eq(projection_range(db, at("2026-12-01"), d2, collect, &ids), 0);
	ck_assert(has(&ids, night) && has(&ids, before) && has(&ids, long_one));
	ck_assert_int_eq(projection_range(db, d3, d2, collect, &ids), FD_EINVAL);
	/* the projection refuses a visit longer than the bound the query relies on */
	ck_assert_int_ne(db_exec(db,
	                         "INSERT INTO appointment_calendar_view (start_at, "
	                         "appointment_id, end_at, customers, services, est_minutes, "
	                         "payment_status, status, projection_version, built_at) "
	                         "VALUES (0, 999, 700000, '', '', 0, 'unpaid', 'scheduled', 1, 0)"),
	                 0);
}
END_TEST

START_TEST(test_range_query_plan)
{
	sqlite3_stmt *st;
	struct strbuf plan = {0};
	char *sql;
	int i;

	/* enough rows that the planner has a real choice */
	for (i = 0; i < 200; i++)
		add_appt("2026-12-02 09:00", "2026-12-02 10:00");
	drain();
	ck_assert_int_eq(db_exec(db, "ANALYZE"), 0);
	sql = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", projection_range_sql());
	ck_assert_int_eq(db_prepare(db, sql, &st), 0);
	while (sqlite3_step(st) == SQLITE_ROW) {
		sb_puts(&plan, (const char *)sqlite3_column_text(st, 3));
		sb_puts(&plan, "\n");
	}
	sqlite3_finalize(st);
	sqlite3_free(sql);
	fprintf(stderr, "# plan of the range query:\n%s", sb_cstr(&plan));
	/* one search of the clustering key; the bound comes from the length index */
	ck_assert_msg(strstr(sb_cstr(&plan), "SEARCH appointment_calendar_view USING PRIMARY KEY "
	                                     "(start_at>? AND start_at<?)") != NULL,
	              "%s", sb_cstr(&plan));
	ck_assert_msg(strstr(sb_cstr(&plan), "USING INDEX appointment_calendar_view_by_length") !=
	                  NULL,
	              "%s", sb_cstr(&plan));
	ck_assert_msg(strstr(sb_cstr(&plan), "SCAN") == NULL, "%s", sb_cstr(&plan));
	ck_assert_msg(strstr(sb_cstr(&plan), "TEMP B-TREE") == NULL, "%s", sb_cstr(&plan));
	sb_free(&plan);
}
END_TEST

/* projection_range_brief: the same rows in the same order as
 * projection_range; a wanted row with every field, another with only its
 * times and statuses. */
struct rows {
	struct cal_row v[8];
	char text[8][2][32];
	int n;
};

static int keep_row(const struct cal_row *r, void *arg)
{
	struct rows *rs = arg;

	if (rs->n < 8) {
		rs->v[rs->n] = *r;
		snprintf(rs->text[rs->n][0], sizeof rs->text[0][0], "%s", r->customers);
		snprintf(rs->text[rs->n][1], sizeof rs->text[0][1], "%s", r->services);
		rs->n++;
	}
	return 0;
}

static int want_odd(const struct cal_row *r, void *arg)
{
	(void)arg;
	ck_assert_str_eq(r->customers, "");
	return r->appointment_id % 2;
}

START_TEST(test_range_brief_same_rows)
{
	struct rows full = {0}, brief = {0};
	int64_t d2 = at("2026-12-02"), d3 = at("2026-12-03");
	char *sql;
	int i;

	/* rows of the projection as a rebuild writes them, with every column set */
	sql =
	    sqlite3_mprintf("INSERT INTO appointment_calendar_view (start_at, appointment_id, "
	                    "end_at, customers, services, total_price, currency, est_minutes, "
	                    "payment_status, status, projection_version, built_at) VALUES "
	                    "(%lld, 901, %lld, 'Lee', 'Wash', 4500, 'USD', 60, 'paid', "
	                    "'scheduled', 1, 0), (%lld, 902, %lld, 'Kim +2', 'Tint, Wax', NULL, "
	                    "NULL, 90, 'unpaid', 'cancelled', 1, 0), (%lld, 903, %lld, 'Ana', "
	                    "'Detail', 120000, 'JPY', 30, 'partially_paid', 'done', 1, 0)",
	                    (long long)(d2 - 3600), (long long)(d2 + 3600), (long long)(d2 + 3600),
	                    (long long)(d2 + 7200), (long long)(d2 + 7200), (long long)(d2 + 9000));
	ck_assert_int_eq(db_exec(db, sql), 0);
	sqlite3_free(sql);
	ck_assert_int_eq(projection_range(db, d2, d3, keep_row, &full), 0);
	ck_assert_int_eq(projection_range_brief(db, d2, d3, want_odd, keep_row, &brief), 0);
	ck_assert_int_eq(full.n, 3);
	ck_assert_int_eq(brief.n, full.n);
	for (i = 0; i < full.n; i++) {
		const struct cal_row *f = &full.v[i], *b = &brief.v[i];

		ck_assert_int_eq(b->appointment_id, f->appointment_id);
		ck_assert_int_eq(b->start_at, f->start_at);
		ck_assert_int_eq(b->end_at, f->end_at);
		ck_assert_str_eq(b->pay_status, f->pay_status);
		ck_assert_str_eq(b->status, f->status);
		if (f->appointment_id % 2) {
			ck_assert_str_eq(brief.text[i][0], full.text[i][0]);
			ck_assert_str_eq(brief.text[i][1], full.text[i][1]);
			ck_assert_int_eq(b->has_total, f->has_total);
			ck_assert_int_eq(b->total, f->total);
			ck_assert_str_eq(b->currency, f->currency);
			ck_assert_int_eq(b->est_minutes, f->est_minutes);
		} else {
			ck_assert_str_eq(brief.text[i][0], "");
			ck_assert_str_eq(brief.text[i][1], "");
			ck_assert_int_eq(b->est_minutes, 0);
		}
	}
	ck_assert_int_eq(full.v[0].appointment_id, 901);
	ck_assert_str_eq(full.text[0][0], "Lee");
	ck_assert_int_eq(projection_range_brief(db, d3, d2, want_odd, keep_row, &brief), FD_EINVAL);
}
END_TEST

START_TEST(test_range_brief_query_plan)
{
	int rest, i;

	for (i = 0; i < 200; i++)
		add_appt("2026-12-02 09:00", "2026-12-02 10:00");
	drain();
	ck_assert_int_eq(db_exec(db, "ANALYZE"), 0);
	for (rest = 0; rest < 2; rest++) {
		sqlite3_stmt *st;
		struct strbuf plan = {0};
		char *sql =
		    sqlite3_mprintf("EXPLAIN QUERY PLAN %s", projection_range_brief_sql(rest));

		ck_assert_int_eq(db_prepare(db, sql, &st), 0);
		while (sqlite3_step(st) == SQLITE_ROW) {
			sb_puts(&plan, (const char *)sqlite3_column_text(st, 3));
			sb_puts(&plan, "\n");
		}
		sqlite3_finalize(st);
		sqlite3_free(sql);
		ck_assert_msg(strstr(sb_cstr(&plan),
		                     rest ? "SEARCH appointment_calendar_view USING PRIMARY KEY "
		                            "(start_at=? AND appointment_id=?)"
		                          : "SEARCH appointment_calendar_view USING PRIMARY KEY "
		                            "(start_at>? AND start_at<?)") != NULL,
		              "%s", sb_cstr(&plan));
		ck_assert_msg(strstr(sb_cstr(&plan), "SCAN") == NULL, "%s", sb_cstr(&plan));
		ck_assert_msg(strstr(sb_cstr(&plan), "TEMP B-TREE") == NULL, "%s", sb_cstr(&plan));
		sb_free(&plan);
	}
}
END_TEST

/* ---------------------------------------------------------------- check */

struct diffs {
	int n;
	char what[8][64];
};

static int diff_cb(const struct projection_diff *d, void *arg)
{
	struct diffs *ds = arg;

	if (ds->n < 8)
		snprintf(ds->what[ds->n++], 64, "%lld:%s:%s%s", (long long)d->appointment_id,
		         d->problem, d->fields, d->queued ? ":queued" : "");
	return 0;
}

START_TEST(test_check_and_rebuild_all)
{
	int64_t ada = add_customer("Ada Lee"), job, a, b, c, x, n = -1, done = 0;
	struct diffs ds = {0};
	char want[64];

	job = add_job(ada, "Wash", "USD");
	a = add_appt("2026-12-02 09:00", "2026-12-02 10:00");
	x = add_appt("2026-12-02 12:00", "2026-12-02 12:30"); /* deleted later */
	b = add_appt("2026-12-02 11:00", "2026-12-02 12:00");
	c = add_appt("2026-12-02 13:00", "2026-12-02 14:00");
	add_link(a, job, 60);
	add_item(job, "SERVICE", 1000, 5000);
	drain();
	ck_assert_int_eq(projection_check(db, diff_cb, &ds, &n), 0);
	ck_assert_int_eq(n, 0);

	/* a tampered figure, a missing row, a row of no visit */
	run3(db, "UPDATE appointment_calendar_view SET total_price = 1 WHERE appointment_id = ?1",
	     a, 0, 0);
	run3(db, "DELETE FROM appointment_calendar_view WHERE appointment_id = ?1", b, 0, 0);
	run3(db,
	     "INSERT INTO appointment_calendar_view (start_at, appointment_id, end_at, "
	     "customers, services, est_minutes, payment_status, status, projection_version, "
	     "built_at) VALUES (100, ?1, 200, '', '', 0, 'unpaid', 'done', 1, 0)",
	     c + 1000, 0, 0);
	/* a change whose update is still queued is reported as catching up */
	run3(db, "UPDATE appointment SET end_at = end_at + 600 WHERE id = ?1", c, 0, 0);
	ck_assert_int_eq(projection_check(db, diff_cb, &ds, &n), 0);
	ck_assert_int_eq(n, 4);
	snprintf(want, sizeof want, "%lld:differs:total_price", (long long)a);
	ck_assert_str_eq(ds.what[0], want);
	snprintf(want, sizeof want, "%lld:missing:", (long long)b);
	ck_assert_str_eq(ds.what[1], want);
	snprintf(want, sizeof want, "%lld:differs:end_at:queued", (long long)c);
	ck_assert_str_eq(ds.what[2], want);
	snprintf(want, sizeof want, "%lld:orphan:", (long long)(c + 1000));
	ck_assert_str_eq(ds.what[3], want);

	/* a visit deleted in the middle of the ids leaves an orphan in the first
	 * batch of two (a, b), not only at the end */
	run3(db, "DELETE FROM appointment WHERE id = ?1", x, 0, 0);
	/* the full rebuild repairs all, and makes the queued updates unnecessary */
	ck_assert_int_eq(projection_rebuild_all(db, 2, NULL, NULL, &done), 0);
	ck_assert_int_eq(done, 3);
	ck_assert_int_eq(count("SELECT count(*) FROM appointment_calendar_view WHERE "
	                       "appointment_id NOT IN (SELECT id FROM appointment)"),
	                 0);
	ck_assert_int_eq(pending_for(c), 0);
	ck_assert_int_eq(projection_check(db, NULL, NULL, &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(count("SELECT count(*) FROM appointment_calendar_view"), 3);
	/* it left the lock free */
	ck_assert_int_eq(count("SELECT count(*) FROM control WHERE name = 'projection-rebuild' AND "
	                       "owner_host IS NULL"),
	                 1);
}
END_TEST

/* ---------------------------------------------------------------- payments */

START_TEST(test_payment_status_follows_billing)
{
	int64_t ada, job, job2, v, v2, item;
	struct invoice_input in = {0};
	struct payment_input pin = {0};
	struct alloc_input al = {0, 0};
	struct refund_input rin = {0};
	struct idem_result res = {0}, pres = {0}, rres = {0};
	int64_t inv;

	ada = add_customer("Ada Lee");
	job = add_job(ada, "Full detail", "USD");
	v = add_appt("2026-12-02 09:00", "2026-12-02 11:00");
	v2 = add_appt("2026-12-09 09:00", "2026-12-09 11:00");
	add_link(v, job, 60);
	add_link(v2, job, 60);
	pay_is(v, "nothing_to_charge"); /* no price yet */
	item = add_item(job, "SERVICE", 1000, 10000);
	pay_is(v, "unpaid"); /* not invoiced */

	/* invoice half the quantity: paying it is not paying the job */
	{
		struct invoice_pick pick = {item, 500};

		in.items = &pick;
		in.n_items = 1;
		ck_assert_msg(invoice_issue(db, &in, NULL, &res) == 0, "%s", err_msg());
	}
	inv = res.id;
	idem_result_free(&res);
	pay_is(v, "unpaid");
	pay_is(v2, "unpaid"); /* both visits of the job */
	pin.customer_id = ada;
	pin.currency = "USD";
	pin.amount = 2000;
	pin.method = "cash";
	al.invoice_id = inv;
	al.amount = 2000;
	ck_assert_msg(payment_record(db, &pin, &al, 1, 0, NULL, &pres) == 0, "%s", err_msg());
	pay_is(v, "partially_paid");
	idem_result_free(&pres);
	al.amount = 3000;
	pin.amount = 3000;
	ck_assert_msg(payment_record(db, &pin, &al, 1, 0, NULL, &pres) == 0, "%s", err_msg());
	pay_is(v, "partially_paid"); /* the invoice is paid, the other half is not billed */

	/* bill the rest and pay it */
	in.items = NULL;
	in.n_items = 0;
	in.jobs = &job;
	in.n_jobs = 1;
	ck_assert_msg(invoice_issue(db, &in, NULL, &res) == 0, "%s", err_msg());
	pay_is(v, "partially_paid");
	al.invoice_id = res.id;
	al.amount = 5000;
	pin.amount = 5000;
	idem_result_free(&res);
	ck_assert_msg(payment_record(db, &pin, &al, 1, 0, NULL, &rres) == 0, "%s", err_msg());
	pay_is(v, "paid");
	pay_is(v2, "paid");

	/* give the last payment back: reverse its allocation, credit, refund */
	ck_assert_msg(alloc_reverse(db, rres.ids[0], "customer complaint", NULL, &res) == 0, "%s",
	              err_msg());
	idem_result_free(&res);
	pay_is(v, "partially_paid");
	rin.payment_id = rres.id;
	rin.amount = 5000;
	rin.reason = "customer complaint";
	ck_assert_msg(refund_post(db, &rin, NULL, &res) == 0, "%s", err_msg());
	idem_result_free(&res);
	idem_result_free(&rres);
	pay_is(v, "partially_paid"); /* the first invoice is still paid */
	idem_result_free(&pres);

	/* a second job on v: invoiced, then voided */
	job2 = add_job(ada, "Wax", "USD");
	add_link(v, job2, 30);
	add_item(job2, "SERVICE", 1000, 4000);
	in.jobs = &job2;
	ck_assert_msg(invoice_issue(db, &in, NULL, &res) == 0, "%s", err_msg());
	pay_is(v, "partially_paid");
	ck_assert_msg(invoice_void(db, res.id, "wrong price") == 0, "%s", err_msg());
	idem_result_free(&res);
	{
		/* the job on its own would now read void */
		int64_t only = add_appt("2026-12-10 09:00", "2026-12-10 10:00");

		run3(db, "DELETE FROM appointment_work WHERE service_order_id = ?1", job2, 0, 0);
		add_link(only, job2, 30);
		pay_is(only, "void");
	}
}
END_TEST

START_TEST(test_payment_status_refunded_and_overpaid)
{
	int64_t ada, job, v;
	struct invoice_input in = {0};
	struct payment_input pin = {0};
	struct alloc_input al = {0, 0};
	struct refund_input rin = {0};
	struct idem_result res = {0}, pres = {0};

	ada = add_customer("Ada Lee");
	job = add_job(ada, "Tint", "USD");
	v = add_appt("2026-12-02 09:00", "2026-12-02 11:00");
	add_link(v, job, 60);
	add_item(job, "SERVICE", 1000, 10000);
	in.jobs = &job;
	in.n_jobs = 1;
	in.allow_overpay = 1;
	ck_assert_msg(invoice_issue(db, &in, NULL, &res) == 0, "%s", err_msg());
	pin.customer_id = ada;
	pin.currency = "USD";
	pin.amount = 12000;
	pin.method = "card";
	al.invoice_id = res.id;
	al.amount = 12000;
	ck_assert_msg(payment_record(db, &pin, &al, 1, 0, NULL, &pres) == 0, "%s", err_msg());
	pay_is(v, "overpaid");
	/* everything goes back: reverse, credit the whole invoice, refund */
	ck_assert_msg(alloc_reverse(db, pres.ids[0], "cancelled order", NULL, &res) == 0, "%s",
	              err_msg());
	idem_result_free(&res);
	ck_assert_msg(invoice_credit(db, al.invoice_id, 10000, "cancelled order", NULL, &res) == 0,
	              "%s", err_msg());
	idem_result_free(&res);
	rin.payment_id = pres.id;
	rin.amount = 12000;
	rin.reason = "cancelled order";
	ck_assert_msg(refund_post(db, &rin, NULL, &res) == 0, "%s", err_msg());
	idem_result_free(&res);
	idem_result_free(&pres);
	pay_is(v, "refunded");
}
END_TEST

/* A visit whose invoice still owes money is never marked refunded or
 * nothing to charge: a refund of a reversed payment leaves the invoice
 * unpaid, and a no-show or cancelled visit (or job) with an unpaid invoice
 * shows it. */
START_TEST(test_payment_mark_never_hides_money_owed)
{
	int64_t ada, job, v, other, job2, v2;
	struct invoice_input in = {0};
	struct payment_input pin = {0};
	struct alloc_input al = {0, 0};
	struct refund_input rin = {0};
	struct idem_result res = {0}, pres = {0};

	ada = add_customer("Ada Lee");
	job = add_job(ada, "Tint", "USD");
	v = add_appt("2026-12-02 09:00", "2026-12-02 11:00");
	add_link(v, job, 60);
	add_item(job, "SERVICE", 1000, 10000);
	in.jobs = &job;
	in.n_jobs = 1;
	ck_assert_msg(invoice_issue(db, &in, NULL, &res) == 0, "%s", err_msg());
	al.invoice_id = res.id;
	idem_result_free(&res);
	pin.customer_id = ada;
	pin.currency = "USD";
	pin.amount = 10000;
	pin.method = "card";
	al.amount = 10000;
	ck_assert_msg(payment_record(db, &pin, &al, 1, 0, NULL, &pres) == 0, "%s", err_msg());
	pay_is(v, "paid");
	/* the payment goes back, the invoice is not credited: it owes again */
	ck_assert_msg(alloc_reverse(db, pres.ids[0], "wrong card", NULL, &res) == 0, "%s",
	              err_msg());
	idem_result_free(&res);
	rin.payment_id = pres.id;
	rin.amount = 10000;
	rin.reason = "wrong card";
	ck_assert_msg(refund_post(db, &rin, NULL, &res) == 0, "%s", err_msg());
	idem_result_free(&res);
	idem_result_free(&pres);
	pay_is(v, "unpaid");

	/* a no-show visit whose job was invoiced and not paid: unpaid */
	ck_assert_int_eq(visit_set_status(db, v, "no_show", "not home"), 0);
	pay_is(v, "unpaid");
	/* a visit of a job with nothing billed shows nothing to charge there */
	other = add_appt("2026-12-03 09:00", "2026-12-03 10:00");
	job2 = add_job(ada, "Wax", "USD");
	add_link(other, job2, 30);
	ck_assert_int_eq(visit_set_status(db, other, "cancelled", NULL), 0);
	add_item(job2, "SERVICE", 1000, 4000);
	pay_is(other, "nothing_to_charge");
	/* a cancelled job with an unpaid invoice still marks its visit */
	v2 = add_appt("2026-12-04 09:00", "2026-12-04 10:00");
	add_link(v2, job2, 30);
	in.jobs = &job2;
	ck_assert_msg(invoice_issue(db, &in, NULL, &res) == 0, "%s", err_msg());
	idem_result_free(&res);
	ck_assert_int_eq(job_set_status(db, job2, "cancelled", "customer moved"), 0);
	pay_is(v2, "unpaid");
	pay_is(other, "unpaid");
}
END_TEST

/* ---------------------------------------------------------------- queue */

START_TEST(test_failures_backoff_dead_and_retry)
{
	struct task_opts o = test_opts();
	struct task j;
	int64_t id, t0;
	int ran;

	ck_assert_int_eq(task_enqueue(db, "no-such-kind", "x"), 0);
	ck_assert_int_eq(task_enqueue(db, "no-such-kind", "x"), 0); /* not duplicated */
	ck_assert_int_eq(count("SELECT count(*) FROM task"), 1);
	id = count("SELECT id FROM task");
	t0 = control_now();
	ck_assert_int_eq(task_run_batch(db, NULL, &o, &ran), 0);
	ck_assert_int_eq(ran, 1);
	ck_assert_int_eq(task_get(db, id, &j), 0);
	ck_assert_str_eq(j.status, "failed");
	ck_assert_int_eq(j.attempts, 1);
	ck_assert(strstr(j.last_error, "no-such-kind") != NULL);
	ck_assert(j.next_run_at >= t0 + 10 && j.next_run_at <= control_now() + 10);
	task_free(&j);
	/* not due yet: nothing runs */
	ck_assert_int_eq(task_run_batch(db, NULL, &o, &ran), 0);
	ck_assert_int_eq(ran, 0);
	/* due: the second failure waits twice as long */
	run3(db, "UPDATE task SET next_run_at = 0 WHERE id = ?1", id, 0, 0);
	t0 = control_now();
	ck_assert_int_eq(task_run_batch(db, NULL, &o, &ran), 0);
	ck_assert_int_eq(task_get(db, id, &j), 0);
	ck_assert_int_eq(j.attempts, 2);
	ck_assert(j.next_run_at >= t0 + 20 && j.next_run_at <= control_now() + 20);
	task_free(&j);
	/* the third failure is the last allowed: dead, and it stays visible */
	run3(db, "UPDATE task SET next_run_at = 0 WHERE id = ?1", id, 0, 0);
	ck_assert_int_eq(task_run_batch(db, NULL, &o, &ran), 0);
	ck_assert_int_eq(task_get(db, id, &j), 0);
	ck_assert_str_eq(j.status, "dead");
	ck_assert_int_eq(j.attempts, 3);
	ck_assert(j.finished_at > 0);
	task_free(&j);
	run3(db, "UPDATE task SET next_run_at = 0 WHERE id = ?1", id, 0, 0);
	ck_assert_int_eq(task_run_batch(db, NULL, &o, &ran), 0);
	ck_assert_int_eq(ran, 0); /* dead tasks are never claimed */
	ck_assert_int_eq(task_purge(db, control_now() + 100, NULL), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM task"), 1); /* nor purged */

	/* a person retries it; a pending twin makes the retry unnecessary */
	ck_assert_int_eq(task_retry(db, id), 0);
	ck_assert_int_eq(task_get(db, id, &j), 0);
	ck_assert_str_eq(j.status, "pending");
	ck_assert_int_eq(j.attempts, 0);
	task_free(&j);
	ck_assert_int_eq(task_retry(db, id), FD_ECONFLICT);
	ck_assert_int_eq(task_retry(db, 999), FD_ENOTFOUND);
	run3(db, "UPDATE task SET status = 'dead' WHERE id = ?1", id, 0, 0);
	ck_assert_int_eq(task_enqueue(db, "no-such-kind", "x"), 0);
	ck_assert_int_eq(task_retry(db, id), FD_ECONFLICT);
	ck_assert(strstr(err_msg(), "already pending") != NULL);
}
END_TEST

/* The desk first (migration 0025): a calendar row queued after a pile of
 * lifecycle tasks is claimed before them, and the claim walks the index
 * that says so, never a sort of the whole queue. */
START_TEST(test_desk_tasks_before_bulk)
{
	struct task_opts o = test_opts();
	sqlite3_stmt *st;
	char key[16], sql[200], *plan = NULL;
	int i, ran;

	for (i = 1; i <= 40; i++) {
		snprintf(key, sizeof key, "%d", 100000 + i);
		ck_assert_int_eq(task_enqueue(db, LIFECYCLE_TASK_KIND, key), 0);
	}
	ck_assert_int_eq(task_enqueue(db, PROJECTION_TASK_KIND, "424242"), 0);
	/* every task is due now (the queue's clock and the runner's may differ) */
	run3(db, "UPDATE task SET next_run_at = 0 WHERE status = 'pending'", 0, 0, 0);
	o.batch = 1;
	ck_assert_int_eq(task_run_batch(db, NULL, &o, &ran), 0);
	ck_assert_int_eq(ran, 1);
	ck_assert_int_eq(
	    count("SELECT count(*) FROM task WHERE kind = 'calendar' AND status = 'pending'"), 0);
	ck_assert_int_eq(
	    count("SELECT count(*) FROM task WHERE kind = 'lifecycle' AND status = 'pending'"), 40);
	/* then the bulk, oldest first */
	ck_assert_int_eq(task_run_batch(db, NULL, &o, &ran), 0);
	ck_assert_int_eq(
	    count("SELECT count(*) FROM task WHERE kind = 'lifecycle' AND key = '100001'"
	          " AND status = 'pending'"),
	    0);
	ck_assert_int_eq(
	    count("SELECT count(*) FROM task WHERE kind = 'lifecycle' AND status = 'pending'"), 39);
	/* a batch with room for them all takes TASK_BULK_BATCH of the bulk kind
	 * (one transaction holds the desk up for no more), the oldest */
	o.batch = 64;
	ck_assert_int_eq(task_run_batch(db, NULL, &o, &ran), 0);
	ck_assert_int_eq(ran, TASK_BULK_BATCH);
	ck_assert_int_eq(
	    count("SELECT count(*) FROM task WHERE kind = 'lifecycle' AND status = 'pending'"),
	    39 - TASK_BULK_BATCH);
	snprintf(sql, sizeof sql,
	         "SELECT count(*) FROM task WHERE kind = 'lifecycle' AND status = 'pending'"
	         " AND CAST(key AS INTEGER) <= %d",
	         100001 + TASK_BULK_BATCH);
	ck_assert_int_eq(count(sql), 0);
	/* the runner's own commits skip the fsync; the connection's next
	 * transaction, a desk's, is FULL again (2) */
	ck_assert_int_eq(count("PRAGMA synchronous"), 2);
	/* the claim's order is the index's: no temporary b-tree for it */
	ck_assert_int_eq(
	    sqlite3_prepare_v2(
	        db_sqlite(db),
	        "EXPLAIN QUERY PLAN SELECT id FROM task j INDEXED BY task_due_desk_first"
	        " WHERE (kind = 'lifecycle') = 1 AND status IN"
	        " ('pending', 'failed') AND next_run_at <= 0 ORDER BY next_run_at, id LIMIT 5",
	        -1, &st, NULL),
	    SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *d = (const char *)sqlite3_column_text(st, 3);
		size_t n = plan ? strlen(plan) : 0;

		plan = realloc(plan, n + strlen(d) + 2);
		snprintf(plan + n, strlen(d) + 2, "%s\n", d);
	}
	sqlite3_finalize(st);
	ck_assert_ptr_nonnull(plan);
	ck_assert_msg(strstr(plan, "task_due_desk_first") && !strstr(plan, "TEMP B-TREE"), "%s",
	              plan);
	free(plan);
}
END_TEST

/* Adds to the task table the rows that insert (an INSERT ... SELECT ...
 * FROM n) makes of the numbers i = 1..count of the CTE n. */
static void add_tasks(int64_t count, const char *insert)
{
	char sql[640];

	snprintf(sql, sizeof sql,
	         "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1) %s",
	         insert);
	run3(db, sql, count, 0, 0);
}

/* What the statements of a read cost, summed by the profile hook: SQLite's
 * virtual machine steps, and those of them that stepped through a full scan
 * of a table (never timed: a count of steps does not depend on the load). */
/* The reads the desk makes on every agenda and every status-line tick: the
 * agenda's catch-up (the calendar tasks still waiting), the status line's
 * pending and dead counts; their steps into *steps, their full-scan steps
 * into *scans. */
static void desk_reads(int64_t *steps, int64_t *scans)
{
	struct task_backlog b;
	int64_t n;

	fx_steps_begin(db);
	ck_assert_int_eq(task_catch_up(db, PROJECTION_TASK_KIND, 0, &b), 0);
	ck_assert_int_eq(b.waiting, 0);
	ck_assert_int_eq(task_count(db, NULL, "pending", &n), 0);
	ck_assert_int_eq(n, 10);
	ck_assert_int_eq(task_count(db, NULL, "dead", &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(task_count(db, LIFECYCLE_TASK_KIND, "failed", &n), 0);
	ck_assert_int_eq(n, 0);
	*steps = fx_steps_end(db, scans);
}

/* The finished tasks a week of work leaves (issue 33: 100,000 of them made
 * `agenda` twice as slow) cost the desk's reads nothing, also when
 * sqlite_stat1 was gathered while the queue held pending tasks only (as
 * bench/gen.c's ANALYZE leaves it), whose statistics made the planner scan
 * the whole table for a count of one status. */
START_TEST(test_desk_reads_skip_finished_tasks)
{
	int64_t steps0, scans0, steps1, scans1;

	/* the young database: a queue of pending tasks, analyzed */
	add_tasks(2000, "INSERT INTO task (kind, key) SELECT CASE WHEN i % 4 THEN 'calendar' "
	                "ELSE 'lifecycle' END, 'young-' || i FROM n");
	ck_assert_int_eq(db_exec(db, "ANALYZE"), 0);
	/* the queue ran: every task succeeded; ten lifecycle tasks wait, one is dead */
	run3(db, "UPDATE task SET status = 'succeeded', attempts = 1, finished_at = updated_at", 0,
	     0, 0);
	add_tasks(10, "INSERT INTO task (kind, key) SELECT 'lifecycle', 'open-' || i FROM n");
	run3(db,
	     "INSERT INTO task (kind, key, status, attempts, finished_at, last_error) "
	     "VALUES ('calendar', 'gone', 'dead', 5, 1, 'x')",
	     0, 0, 0);
	desk_reads(&steps0, &scans0);
	/* ten times the history: 20,000 more finished tasks */
	add_tasks(20000,
	          "INSERT INTO task (kind, key, status, attempts, started_at, finished_at) "
	          "SELECT CASE WHEN i % 4 THEN 'calendar' ELSE 'lifecycle' END, 'old-' || i, "
	          "'succeeded', 1, updated_at, updated_at FROM n, (SELECT 0 AS updated_at)");
	desk_reads(&steps1, &scans1);
	/* (a full scan of the partial index of pending tasks walks the open
	 * queue: it may step, but not grow with the history) */
	ck_assert_msg(scans1 == scans0,
	              "full-scan steps: %lld with 2,000 finished tasks, %lld with 22,000",
	              (long long)scans0, (long long)scans1);
	ck_assert_msg(steps1 - steps0 < 100,
	              "steps: %lld with 2,000 finished tasks, %lld with 22,000", (long long)steps0,
	              (long long)steps1);
}
END_TEST

static void no_report(const char *code, const char *detail, void *arg)
{
	(void)code;
	(void)detail;
	(void)arg;
}

/* The steps of `check`'s two walks that ask the queue about each row:
 * the calendar's (projection_check, which asks of each differing row
 * whether its task is still queued) and the lifecycle rows' (one question
 * per customer). */
static int64_t check_steps(void)
{
	int64_t n;

	fx_steps_begin(db);
	ck_assert_int_eq(projection_check(db, NULL, NULL, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_ge(lifecycle_check(db, no_report, NULL), 0);
	return fx_steps_end(db, NULL);
}

/* Whether a row's task is still queued is asked of the open tasks alone:
 * with sqlite_stat1 gathered on a young queue, the question scanned every
 * finished task, once per differing calendar row and once per customer. */
START_TEST(test_check_questions_skip_finished_tasks)
{
	int64_t steps0, steps1, a;

	add_customer("Ada Lee");
	add_customer("Bo Chan");
	a = add_appt("2026-12-02 09:00", "2026-12-02 10:00");
	drain();
	add_tasks(2000, "INSERT INTO task (kind, key) SELECT CASE WHEN i % 4 THEN 'calendar' "
	                "ELSE 'lifecycle' END, 'young-' || i FROM n");
	ck_assert_int_eq(db_exec(db, "ANALYZE"), 0);
	run3(db,
	     "UPDATE task SET status = 'succeeded', attempts = 1, finished_at = updated_at "
	     "WHERE key LIKE 'young-%'",
	     0, 0, 0);
	/* one calendar row differs: its visit's task is asked about */
	run3(db, "UPDATE appointment_calendar_view SET customers = 'x' WHERE appointment_id = ?1",
	     a, 0, 0);
	steps0 = check_steps();
	add_tasks(20000,
	          "INSERT INTO task (kind, key, status, attempts, finished_at) "
	          "SELECT CASE WHEN i % 4 THEN 'calendar' ELSE 'lifecycle' END, 'old-' || i, "
	          "'succeeded', 1, 0 FROM n");
	steps1 = check_steps();
	ck_assert_msg(steps1 - steps0 < 100,
	              "steps: %lld with 2,000 finished tasks, %lld with 22,000", (long long)steps0,
	              (long long)steps1);
}
END_TEST

/* The steps of a whole rebuild of the calendar with every visit's task
 * queued again (its rows are already right: nothing is written). */
static int64_t rebuild_steps(void)
{
	int64_t n, steps;

	run3(db, "INSERT INTO task (kind, key) SELECT 'calendar', id FROM appointment", 0, 0, 0);
	fx_steps_begin(db);
	ck_assert_int_eq(projection_rebuild_all(db, 0, NULL, NULL, &n), 0);
	steps = fx_steps_end(db, NULL);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(
	    count("SELECT count(*) FROM task WHERE kind = 'calendar' AND status = 'pending'"), 0);
	return steps;
}

/* A rebuild asks each batch whether calendar tasks wait, of the pending
 * calendar tasks alone: the planner answered it by walking every pending
 * task by status, and half a million lifecycle tasks queued before the
 * calendar's (a bulk import, a migration) made each batch take seconds. */
START_TEST(test_rebuild_skips_other_pending_tasks)
{
	int64_t steps0, steps1;

	add_appt("2026-12-02 09:00", "2026-12-02 10:00");
	add_appt("2026-12-02 11:00", "2026-12-02 12:00");
	add_appt("2026-12-03 09:00", "2026-12-03 10:00");
	drain();
	steps0 = rebuild_steps();
	add_tasks(20000, "INSERT INTO task (kind, key) SELECT 'lifecycle', 'bulk-' || i FROM n");
	steps1 = rebuild_steps();
	ck_assert_msg(steps1 - steps0 < 100,
	              "steps: %lld with no other task pending, %lld with 20,000", (long long)steps0,
	              (long long)steps1);
}
END_TEST

START_TEST(test_expired_claim_runs_again)
{
	struct task_opts o = test_opts();
	struct task j;
	int64_t a, b, c, ja, jb, jc;
	int ran;

	a = add_appt("2026-12-02 09:00", "2026-12-02 10:00");
	b = add_appt("2026-12-02 11:00", "2026-12-02 12:00");
	c = add_appt("2026-12-02 13:00", "2026-12-02 14:00");
	ja = count("SELECT min(id) FROM task");
	jb = ja + 1;
	jc = ja + 2;
	(void)a;
	(void)b;
	/* a runner crashed while running ja (attempt 1) and jb (its last attempt) */
	run3(db,
	     "UPDATE task SET status = 'running', attempts = 1, claimed_by = 'ghost:1', "
	     "claim_token = 5, claim_expires_at = ?2 WHERE id = ?1",
	     ja, control_now() - 1, 0);
	run3(db,
	     "UPDATE task SET status = 'running', attempts = 3, claimed_by = 'ghost:1', "
	     "claim_token = 5, claim_expires_at = ?2 WHERE id = ?1",
	     jb, control_now() - 1, 0);
	/* and another runner is still inside jc's claim: jc waits, and so does a new task
	 * for the same visit */
	run3(db,
	     "UPDATE task SET status = 'running', attempts = 1, claimed_by = 'other:2', "
	     "claim_token = 6, claim_expires_at = ?2 WHERE id = ?1",
	     jc, control_now() + 100, 0);
	run3(db, "UPDATE appointment SET end_at = end_at + 60 WHERE id = ?1", c, 0, 0);
	ck_assert_int_eq(pending_for(c), 1);
	ck_assert_int_eq(task_run_batch(db, NULL, &o, &ran), 0);
	ck_assert_int_eq(ran, 1);
	ck_assert_int_eq(task_get(db, ja, &j), 0);
	ck_assert_str_eq(j.status, "succeeded");
	ck_assert_int_eq(j.attempts, 2);
	task_free(&j);
	ck_assert_int_eq(task_get(db, jb, &j), 0);
	ck_assert_str_eq(j.status, "dead");
	ck_assert(strstr(j.last_error, "last attempt") != NULL);
	task_free(&j);
	ck_assert_int_eq(pending_for(c), 1);
	ck_assert_int_eq(task_get(db, jc, &j), 0);
	ck_assert_str_eq(j.status, "running");
	task_free(&j);
	/* once that claim expires, both run */
	run3(db, "UPDATE task SET claim_expires_at = ?2 WHERE id = ?1", jc, control_now() - 1, 0);
	ck_assert_int_eq(drain(), 2);
	ck_assert_int_eq(count("SELECT count(*) FROM task WHERE status = 'succeeded'"), 3);
}
END_TEST

START_TEST(test_stale_runner_is_fenced)
{
	struct task_opts o = test_opts();
	struct control_hold mine = {0}, other = {0};
	int ran;

	add_appt("2026-12-02 09:00", "2026-12-02 10:00");
	ck_assert_int_eq(control_acquire(db, CONTROL_RUNNER, CONTROL_LEASE, 30, &mine), 0);
	ck_assert_int_eq(mine.epoch, 1);
	/* an operator breaks the lease and someone else takes it */
	ck_assert_int_eq(control_break(db, CONTROL_RUNNER), 0);
	ck_assert_int_eq(control_acquire(db, CONTROL_RUNNER, CONTROL_LEASE, 30, &other), 0);
	ck_assert_int_eq(other.epoch, 3);
	ck_assert_int_eq(task_run_batch(db, &mine, &o, &ran), FD_ECONFLICT);
	ck_assert_int_eq(ran, 0);
	ck_assert_int_eq(count("SELECT count(*) FROM task WHERE status = 'pending'"), 1);
	ck_assert_int_eq(control_renew(db, &mine), FD_ECONFLICT);
	/* queued at SQLite's clock, claimed at once at clock_real() (drain) */
	ck_assert_int_eq(task_run_batch(db, &other, &o, &ran), 0);
	ck_assert_int_eq(ran, 1);
	ck_assert_int_eq(count("SELECT count(*) FROM appointment_calendar_view"), 1);
}
END_TEST

/* ---------------------------------------------------------------- processes */

/* Wait for a line on fd (a child's report); returns its first byte. */
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

static void msleep(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0)
		;
}

START_TEST(test_lease_kill9_takeover)
{
	struct control_hold h = {0};
	int fds[2], status;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		struct db *cdb;
		struct control_hold ch = {0};

		if (db_open(dbpath, 0, &cdb) ||
		    control_acquire(cdb, CONTROL_RUNNER, CONTROL_LEASE, 60, &ch))
			_exit(2);
		if (write(fds[1], "A\n", 2) != 2)
			_exit(2);
		for (;;)
			pause();
	}
	close(fds[1]);
	ck_assert_int_eq(wait_line(fds[0]), 'A');
	/* a live holder: refused, and told who and since when */
	ck_assert_int_eq(control_acquire(db, CONTROL_RUNNER, CONTROL_LEASE, 60, &h), FD_ECONFLICT);
	{
		char want[32];

		snprintf(want, sizeof want, "process %ld", (long)pid);
		ck_assert_msg(strstr(err_msg(), want) != NULL, "%s", err_msg());
		ck_assert_msg(strstr(err_msg(), "since") != NULL, "%s", err_msg());
	}
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	/* its process is gone: taken over at once, long before the 60 s expiry */
	ck_assert_msg(control_acquire(db, CONTROL_RUNNER, CONTROL_LEASE, 60, &h) == 0, "%s",
	              err_msg());
	ck_assert_int_eq(h.epoch, 2);
	close(fds[0]);
}
END_TEST

/*
 * A holder writes rows (its epoch) in fenced transactions, one each time the
 * test says "go". It is stopped between two transactions (a process stopped
 * INSIDE a write transaction keeps SQLite's write lock and blocks every
 * writer until it continues: that is why transactions stay short) and kept
 * stopped past its lease; another process takes the lease over and writes.
 * The lease is three seconds: expiry is kept in whole seconds, so a lease of
 * N seconds lasts between N-1 and N, and a one-second lease taken at x.999
 * could lapse before the holder's first write on a slow (sanitized) run.
 * After SIGCONT the old holder's next write must be refused, and no row of
 * the old epoch may follow the new holder's.
 */
START_TEST(test_sigstopped_holder_cannot_write)
{
	struct control_hold h = {0};
	int up[2], down[2], status, i;
	int64_t n_before;
	pid_t pid;

	ck_assert_int_eq(db_exec(db, "CREATE TABLE fenced (id INTEGER PRIMARY KEY, epoch INTEGER, "
	                             "pid INTEGER)"),
	                 0);
	ck_assert_int_eq(pipe(up), 0);
	ck_assert_int_eq(pipe(down), 0);
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		struct db *cdb;
		struct control_hold ch = {0};
		char go;

		close(up[0]);
		close(down[1]);
		if (db_open(dbpath, 0, &cdb) ||
		    control_acquire(cdb, CONTROL_RUNNER, CONTROL_LEASE, 3, &ch))
			_exit(2);
		while (read(down[0], &go, 1) == 1) {
			int rc;

			if (db_begin_write(cdb))
				_exit(2);
			rc = control_fence(cdb, &ch);
			if (rc) {
				db_rollback(cdb);
				_exit(rc == FD_ECONFLICT ? 3 : 2);
			}
			run3(cdb, "INSERT INTO fenced (epoch, pid) VALUES (?1, ?2)", ch.epoch,
			     getpid(), 0);
			if (db_commit(cdb) || control_renew(cdb, &ch))
				_exit(2);
			if (write(up[1], "W\n", 2) != 2)
				_exit(2);
		}
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(write(down[1], "g", 1), 1);
		ck_assert_int_eq(wait_line(up[0]), 'W');
	}
	/* it renewed its lease after each write: nobody can take it */
	ck_assert_int_eq(control_acquire(db, CONTROL_RUNNER, CONTROL_LEASE, 30, &h), FD_ECONFLICT);
	kill(pid, SIGSTOP);
	n_before = count("SELECT count(*) FROM fenced WHERE epoch = 1");
	ck_assert_int_eq(n_before, 3);
	msleep(4300); /* past the three-second lease, whatever the second boundaries */
	ck_assert_msg(control_acquire(db, CONTROL_RUNNER, CONTROL_LEASE, 30, &h) == 0, "%s",
	              err_msg());
	ck_assert_int_eq(h.epoch, 2);
	ck_assert_int_eq(db_begin_write(db), 0);
	ck_assert_int_eq(control_fence(db, &h), 0);
	run3(db, "INSERT INTO fenced (epoch, pid) VALUES (?1, ?2)", h.epoch, getpid(), 0);
	ck_assert_int_eq(db_commit(db), 0);
	kill(pid, SIGCONT);
	ck_assert_int_eq(write(down[1], "g", 1), 1); /* it tries to write again */
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 3); /* its fence refused the write */
	ck_assert_int_eq(count("SELECT count(*) FROM fenced WHERE epoch = 1"), n_before);
	ck_assert_int_eq(count("SELECT count(*) FROM fenced WHERE epoch = 1 AND id > "
	                       "(SELECT max(id) FROM fenced WHERE epoch = 2)"),
	                 0);
	close(up[0]);
	close(down[1]);
}
END_TEST

/*
 * Several processes compete for a one-second lease for a while: each holder
 * writes fenced rows, sometimes stalls past its lease, sometimes releases.
 * In commit order the epochs never go back, and each epoch has one writer:
 * there were never two holders at once.
 */
START_TEST(test_no_two_holders_at_once)
{
	const char *lng = getenv("FRONTDESK_LONG_TESTS");
	int nproc = 4, i, status;
	double secs = lng && *lng == '1' ? 20.0 : 3.0;
	pid_t pids[8];
	sqlite3_stmt *st;
	int64_t last_epoch = 0, rows = 0, last_pid = 0;

	ck_assert_int_eq(db_exec(db, "CREATE TABLE fenced (id INTEGER PRIMARY KEY, epoch INTEGER, "
	                             "pid INTEGER)"),
	                 0);
	for (i = 0; i < nproc; i++) {
		pids[i] = fork();
		ck_assert(pids[i] >= 0);
		if (pids[i] == 0) {
			struct db *cdb;
			struct control_hold ch = {0};
			unsigned seed = (unsigned)getpid();
			time_t end = time(NULL) + (time_t)secs;

			if (db_open(dbpath, 0, &cdb))
				_exit(2);
			while (time(NULL) < end) {
				int k;

				if (control_acquire(cdb, "stress", CONTROL_LEASE, 1, &ch)) {
					msleep(5 + rand_r(&seed) % 20);
					continue;
				}
				for (k = 0; k < 10; k++) {
					if (db_begin_write(cdb))
						break;
					if (control_fence(cdb, &ch)) {
						db_rollback(cdb);
						break;
					}
					run3(cdb, "INSERT INTO fenced (epoch, pid) VALUES (?1, ?2)",
					     ch.epoch, getpid(), 0);
					if (db_commit(cdb))
						break;
					/* now and then stall past the lease */
					msleep(rand_r(&seed) % 40 == 0 ? 2100 : rand_r(&seed) % 10);
				}
				if (rand_r(&seed) % 2)
					control_release(cdb, &ch);
			}
			db_close(cdb);
			_exit(0);
		}
	}
	for (i = 0; i < nproc; i++) {
		ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
		ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	ck_assert_int_eq(db_prepare(db, "SELECT epoch, pid FROM fenced ORDER BY id", &st), 0);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t e = sqlite3_column_int64(st, 0), p = sqlite3_column_int64(st, 1);

		ck_assert_msg(e >= last_epoch, "epoch %lld after %lld", (long long)e,
		              (long long)last_epoch);
		if (e == last_epoch)
			ck_assert_int_eq(p, last_pid); /* one writer per epoch */
		last_epoch = e;
		last_pid = p;
		rows++;
	}
	sqlite3_finalize(st);
	ck_assert(rows > 10);
	ck_assert(last_epoch > 2); /* the lease did change hands */
}
END_TEST

/* Two processes rebuild the same visits at once, while the price changes: the
 * rows end up exactly as a fresh computation says. */
START_TEST(test_concurrent_rebuilds_agree)
{
	int64_t ada = add_customer("Ada Lee"), job, v[4], n = -1;
	pid_t pids[2];
	int i, status;

	job = add_job(ada, "Wash", "USD");
	for (i = 0; i < 4; i++) {
		v[i] = add_appt("2026-12-02 09:00", "2026-12-02 10:00");
		add_link(v[i], job, 10 + i);
	}
	add_item(job, "SERVICE", 1000, 10003);
	for (i = 0; i < 2; i++) {
		pids[i] = fork();
		ck_assert(pids[i] >= 0);
		if (pids[i] == 0) {
			struct db *cdb;
			int k, m;

			if (db_open(dbpath, 0, &cdb))
				_exit(2);
			for (k = 0; k < 40; k++)
				for (m = 0; m < 4; m++)
					if (projection_rebuild(cdb, v[m], NULL))
						_exit(3);
			db_close(cdb);
			_exit(0);
		}
	}
	for (i = 0; i < 10; i++) {
		run3(
		    db,
		    "UPDATE line_item SET unit_price = ?1, amount = ?1 WHERE service_order_id = ?2",
		    10003 + i, job, 0);
		msleep(5);
	}
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
		ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	drain(); /* the queued updates of the last price change */
	ck_assert_int_eq(projection_check(db, NULL, NULL, &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(total_of(v[0]) + total_of(v[1]) + total_of(v[2]) + total_of(v[3]), 10012);
}
END_TEST

/* The rebuild lock: a second operator is told who runs it and since when. */
START_TEST(test_rebuild_all_is_exclusive)
{
	int fds[2], status;
	pid_t pid;
	int64_t done = -1;

	add_appt("2026-12-02 09:00", "2026-12-02 10:00");
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		struct db *cdb;
		struct control_hold ch = {0};

		if (db_open(dbpath, 0, &cdb) ||
		    control_acquire(cdb, CONTROL_REBUILD, CONTROL_LOCK, 60, &ch))
			_exit(2);
		if (write(fds[1], "L\n", 2) != 2)
			_exit(2);
		for (;;)
			pause();
	}
	close(fds[1]);
	ck_assert_int_eq(wait_line(fds[0]), 'L');
	ck_assert_int_eq(projection_rebuild_all(db, 0, NULL, NULL, &done), FD_ECONFLICT);
	ck_assert_msg(strstr(err_msg(), "already running") != NULL, "%s", err_msg());
	ck_assert_msg(strstr(err_msg(), " at ") != NULL, "%s", err_msg());
	ck_assert_int_eq(done, 0);
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(projection_rebuild_all(db, 0, NULL, NULL, &done), 0);
	ck_assert_int_eq(done, 1);
	close(fds[0]);
}
END_TEST

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A task runner in a child process, on its own connection, for 30 seconds;
 * returns once it holds the runner lease. The caller kills it. */
static pid_t runner_child(void)
{
	struct control_info ci;
	pid_t pid = fork();
	int i;

	ck_assert(pid >= 0);
	if (pid == 0) {
		struct db *cdb;
		struct task_opts o;
		volatile sig_atomic_t stop = 0;

		task_opts_default(&o);
		if (db_open(dbpath, 0, &cdb))
			_exit(2);
		_exit(task_run_loop(cdb, &stop, &o, 30, 0) ? 3 : 0);
	}
	for (i = 0; i < 500; i++) {
		if (control_get(db, CONTROL_RUNNER, &ci) == 0) {
			int held = ci.state == CONTROL_HELD;

			control_info_free(&ci);
			if (held)
				return pid;
		}
		msleep(10);
	}
	ck_abort_msg("the runner child never took the lease");
	return pid;
}

/* With a runner alive, a committed change reaches its calendar row without
 * anyone asking, and a reader sees PRAGMA data_version move. How fast is a
 * figure (bench/run.sh: commit to calendar row, against the 1 s target),
 * not an assertion: the deadline here only stops a runner that never
 * comes. */
START_TEST(test_runner_keeps_rows_fresh)
{
	int64_t ada = add_customer("Ada Lee"), job, v, dv;
	double t0, waited = 0;
	pid_t pid;
	int i, status;

	job = add_job(ada, "Wash", "USD");
	v = add_appt("2026-12-02 09:00", "2026-12-02 10:00");
	add_link(v, job, 60);
	drain();
	pid = runner_child();
	for (i = 0; i < 5; i++) {
		dv = db_data_version(db);
		t0 = mono();
		add_item(job, "SERVICE", 1000, 1000); /* one commit */
		while (total_of(v) != 1000 * (i + 1) && mono() - t0 < 20)
			msleep(5);
		waited = mono() - t0;
		ck_assert_int_eq(total_of(v), 1000 * (i + 1));
		ck_assert(db_data_version(db) != dv); /* the runner's commit is visible cheaply */
	}
	fprintf(stderr, "# last change reached its calendar row in %.1f ms\n", waited * 1000);
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
}
END_TEST

static int lease_seen[2];
static void lease_cb(int held, void *arg)
{
	(void)arg;
	lease_seen[held ? 1 : 0]++;
}

/* The task runner tells its caller whether it holds the lease through a
 * return value (the lease callback), not through its translated messages:
 * the screen used to compare those. */
START_TEST(test_runner_tells_lease_by_code)
{
	struct task_opts o;
	volatile sig_atomic_t stop = 0;
	pid_t pid;
	int status;

	task_opts_default(&o);
	o.lease = lease_cb;
	o.poll_ms = 20;
	lease_seen[0] = lease_seen[1] = 0;
	ck_assert_int_eq(task_run_loop(db, &stop, &o, 0.3, 0), 0);
	ck_assert_int_eq(lease_seen[1], 1);
	ck_assert_int_eq(lease_seen[0], 0);
	pid = runner_child();
	lease_seen[0] = lease_seen[1] = 0;
	task_run_loop(db, &stop, &o, 0.3, 0);
	ck_assert_int_eq(lease_seen[1], 0);
	ck_assert_int_eq(lease_seen[0], 1); /* standing by, told once */
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
}
END_TEST

/* A database that already holds visits when 0004 arrives gets a rebuild
 * queued for each of them by the migration itself. */
START_TEST(test_migration_queues_existing_visits)
{
	struct db *d;
	int64_t n = -1;

	ck_assert_int_eq(db_open(dbpath, DB_OPEN_CREATE | DB_OPEN_NO_MIGRATE, &d), 0);
	ck_assert_int_eq(migrate_to(d, 3, 0), 0);
	run3(d,
	     "INSERT INTO appointment (start_at, end_at, created_at, updated_at) "
	     "VALUES (?1, ?1 + 3600, 0, 0)",
	     at("2026-12-02 09:00"), 0, 0);
	run3(d,
	     "INSERT INTO appointment (start_at, end_at, created_at, updated_at) "
	     "VALUES (?1, ?1 + 3600, 0, 0)",
	     at("2026-12-03 09:00"), 0, 0);
	ck_assert_int_eq(migrate_to(d, -1, 0), 0);
	ck_assert_int_eq(db_one_int(d,
	                            "SELECT count(*) FROM task WHERE kind = 'calendar' AND "
	                            "status = 'pending'",
	                            &n),
	                 0);
	ck_assert_int_eq(n, 2);
	db_close(d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("projection");
	TCase *pure = tcase_create("pure"), *rows = tcase_create("rows"),
	      *queue = tcase_create("queue"), *procs = tcase_create("processes"),
	      *mig = tcase_create("migration");
	SRunner *sr;
	int failed;

	setenv("TZ", "America/New_York", 1);
	clock_set_zone(NULL);
	tcase_add_test(pure, test_spread_examples);
	tcase_add_test(pure, test_spread_always_adds_up);
	tcase_add_checked_fixture(rows, setup, teardown);
	tcase_add_test(rows, test_triggers_enqueue_in_the_same_transaction);
	tcase_add_test(rows, test_task_state_words);
	tcase_add_test(rows, test_row_of_one_visit);
	tcase_add_test(rows, test_job_spread_over_visits);
	tcase_add_test(rows, test_visit_serving_several_jobs);
	tcase_add_test(rows, test_long_service_list_is_bounded);
	tcase_add_test(rows, test_range_overlap);
	tcase_add_test(rows, test_range_query_plan);
	tcase_add_test(rows, test_range_brief_same_rows);
	tcase_add_test(rows, test_range_brief_query_plan);
	tcase_add_test(rows, test_check_and_rebuild_all);
	tcase_add_test(rows, test_payment_status_follows_billing);
	tcase_add_test(rows, test_payment_status_refunded_and_overpaid);
	tcase_add_test(rows, test_payment_mark_never_hides_money_owed);
	tcase_set_timeout(rows, 60);
	tcase_add_checked_fixture(queue, setup, teardown);
	tcase_add_test(queue, test_failures_backoff_dead_and_retry);
	tcase_add_test(queue, test_desk_tasks_before_bulk);
	tcase_add_test(queue, test_desk_reads_skip_finished_tasks);
	tcase_add_test(queue, test_check_questions_skip_finished_tasks);
	tcase_add_test(queue, test_rebuild_skips_other_pending_tasks);
	tcase_add_test(queue, test_expired_claim_runs_again);
	tcase_add_test(queue, test_stale_runner_is_fenced);
	tcase_set_timeout(queue, 60);
	tcase_add_checked_fixture(mig, tmp_only, tmp_done);
	tcase_add_test(mig, test_migration_queues_existing_visits);
	tcase_add_checked_fixture(procs, setup, teardown);
	tcase_add_test(procs, test_lease_kill9_takeover);
	tcase_add_test(procs, test_sigstopped_holder_cannot_write);
	tcase_add_test(procs, test_no_two_holders_at_once);
	tcase_add_test(procs, test_concurrent_rebuilds_agree);
	tcase_add_test(procs, test_rebuild_all_is_exclusive);
	tcase_add_test(procs, test_runner_keeps_rows_fresh);
	tcase_add_test(procs, test_runner_tells_lease_by_code);
	tcase_set_timeout(procs, 120);
	suite_add_tcase(s, pure);
	suite_add_tcase(s, rows);
	suite_add_tcase(s, queue);
	suite_add_tcase(s, mig);
	suite_add_tcase(s, procs);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
