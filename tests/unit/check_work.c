/*
 * check_work.c - unit tests of work.c: jobs, visits, links and line items,
 * their status machines and history, the visits of a date range, and that
 * every refused request leaves the whole database exactly as it was.
 */
#include <config.h>

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "customer.h"
#include "db.h"
#include "err.h"
#include "fixture.h"
#include "item.h"
#include "job.h"
#include "money.h"
#include "states.h"
#include "strbuf.h"
#include "visit.h"

static struct fx F;
static struct db *db;
#define tmpdir F.dir
#define dbpath F.path

static void setup(void)
{
	fx_open(&F, "work");
	db = F.db;
}

static void teardown(void)
{
	fx_close(&F);
	db = NULL;
}

/* ---------------------------------------------------------------- helpers */

static int64_t count(const char *sql)
{
	return fx_one(db, sql);
}

/* Every row of every table as text: equal snapshots mean nothing changed. */
static char *snapshot(void)
{
	struct strbuf sb = {0}, q = {0};
	sqlite3_stmt *tables, *rows;
	int i;

	ck_assert_int_eq(db_prepare(db,
	                            "SELECT name FROM sqlite_schema WHERE type = 'table'"
	                            " ORDER BY name",
	                            &tables),
	                 0);
	while (sqlite3_step(tables) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(tables, 0);

		q.len = 0;
		sb_printf(&q, "SELECT * FROM \"%s\"", name);
		sb_printf(&sb, "[%s]\n", name);
		ck_assert_int_eq(db_prepare(db, sb_cstr(&q), &rows), 0);
		while (sqlite3_step(rows) == SQLITE_ROW) {
			for (i = 0; i < sqlite3_column_count(rows); i++) {
				const unsigned char *v = sqlite3_column_text(rows, i);

				sb_printf(&sb, "%s|", v ? (const char *)v : "NULL");
			}
			sb_puts(&sb, "\n");
		}
		sqlite3_finalize(rows);
	}
	sqlite3_finalize(tables);
	sb_free(&q);
	return sb_steal(&sb);
}

/* Assert that the refused call rc returned want and changed nothing since
 * the snapshot before; frees before. */
#define REFUSED(call, want, before)                                                                \
	do {                                                                                       \
		int rc_ = (call);                                                                  \
		char *after_ = snapshot();                                                         \
		ck_assert_msg(rc_ == (want), "%s: got %d (%s), want %d", #call, rc_, err_msg(),    \
		              (want));                                                             \
		ck_assert(*err_msg() != '\0');                                                     \
		ck_assert_str_eq(after_, (before));                                                \
		free(after_);                                                                      \
	} while (0)

static int64_t add_customer(const char *name)
{
	struct customer_input in = {.name = name, .address = "1 Main St"};
	int64_t id = 0;

	ck_assert_int_eq(customer_add(db, &in, &id), 0);
	return id;
}

static int64_t add_job(int64_t customer, const char *title, const char *currency)
{
	struct job_input in = {customer, title, currency, NULL};
	int64_t id = 0;

	ck_assert_int_eq(job_add(db, &in, &id), 0);
	return id;
}

static int64_t add_appt(const char *start, const char *end, const char *location)
{
	struct visit_input in = {fx_local(start), fx_local(end), location, NULL};
	int64_t id = 0;

	ck_assert_int_eq(visit_add(db, &in, &id), 0);
	return id;
}

static int64_t add_item(int64_t job, const char *kind, int64_t qty, int64_t price)
{
	struct item_input in = {job, kind, "Work", qty, price};
	int64_t id = 0;

	ck_assert_int_eq(item_add(db, &in, &id), 0);
	return id;
}

/* "from>to:reason" of every status flow row of one record, in order. */
static char *flows(const char *entity, int64_t id)
{
	struct strbuf sb = {0};
	sqlite3_stmt *st;

	ck_assert_int_eq(db_prepare(db,
	                            "SELECT coalesce(from_status, '-'), to_status,"
	                            " coalesce(reason, '-'), operator_id, at FROM status_flow"
	                            " WHERE entity = ?1 AND entity_id = ?2 ORDER BY id",
	                            &st),
	                 0);
	sqlite3_bind_text(st, 1, entity, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		ck_assert_str_eq((const char *)sqlite3_column_text(st, 3), db_operator());
		ck_assert_int_eq(sqlite3_column_int64(st, 4), clock_now());
		sb_printf(&sb, "%s%s>%s:%s", sb.len ? " " : "", sqlite3_column_text(st, 0),
		          sqlite3_column_text(st, 1), sqlite3_column_text(st, 2));
	}
	sqlite3_finalize(st);
	return sb_steal(&sb);
}

static void check_flows(const char *entity, int64_t id, const char *want)
{
	char *got = flows(entity, id);

	ck_assert_str_eq(got ? got : "", want);
	free(got);
}

/* Operation types of the history rows of one record, e.g. "1,3,2". */
static void check_history(const char *table, int64_t id, const char *want)
{
	struct strbuf q = {0};
	sqlite3_stmt *st;
	int rc;

	sb_printf(&q,
	          "SELECT group_concat(operate_type) FROM (SELECT operate_type FROM %s_his"
	          " WHERE id = ?1 AND operator_id = ?2 AND operate_at = ?3 ORDER BY his_id)",
	          table);
	ck_assert_int_eq(db_prepare(db, sb_cstr(&q), &st), 0);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, db_operator(), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, clock_now());
	rc = sqlite3_step(st);
	ck_assert_int_eq(rc, SQLITE_ROW);
	ck_assert_str_eq(sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "",
	                 want);
	sqlite3_finalize(st);
	sb_free(&q);
}

static char *big_string(void)
{
	char *s = malloc(1024 * 1024 + 1);

	ck_assert_ptr_nonnull(s);
	memset(s, 'a', 1024 * 1024);
	s[1024 * 1024] = '\0';
	return s;
}

/* ---------------------------------------------------------------- jobs */

static int collect_job(const struct job *j, void *arg)
{
	struct strbuf *sb = arg;

	sb_printf(sb, "%s%lld:%s:%s", sb->len ? " " : "", (long long)j->id, j->customer_name,
	          j->title);
	return 0;
}

START_TEST(test_job_add_get_edit_list)
{
	int64_t ada = add_customer("Ada Lee"), bo = add_customer("Bo Chen"), a, b;
	struct job_input ch = {0};
	struct strbuf sb = {0};
	struct job j;

	a = add_job(ada, "Full detail", NULL);
	b = add_job(bo, "Wash", "eur");
	add_job(ada, "Wax", "JPY");
	ck_assert_int_eq(job_get(db, b, &j), 0);
	ck_assert_int_eq(j.customer_id, bo);
	ck_assert_str_eq(j.customer_name, "Bo Chen");
	ck_assert_str_eq(j.title, "Wash");
	ck_assert_str_eq(j.status, "open");
	ck_assert_str_eq(j.currency, "EUR"); /* any case in, upper case stored */
	ck_assert_ptr_null(j.note);
	ck_assert_int_eq(j.created_at, clock_now());
	job_free(&j);
	ck_assert_int_eq(job_get(db, a, &j), 0);
	ck_assert_str_eq(j.currency, "USD"); /* no currency, no config: USD */
	job_free(&j);

	ch.note = "Gate code 1234";
	ch.title = "Full detail, interior";
	ck_assert_int_eq(job_edit(db, a, &ch), 0);
	ck_assert_int_eq(job_get(db, a, &j), 0);
	ck_assert_str_eq(j.title, "Full detail, interior");
	ck_assert_str_eq(j.note, "Gate code 1234");
	job_free(&j);
	ch.title = NULL;
	ch.note = ""; /* clears */
	ck_assert_int_eq(job_edit(db, a, &ch), 0);
	ck_assert_int_eq(job_get(db, a, &j), 0);
	ck_assert_ptr_null(j.note);
	ck_assert_str_eq(j.title, "Full detail, interior");
	job_free(&j);

	/* same time stamps: newest first falls back to the id */
	ck_assert_int_eq(job_list(db, 0, collect_job, &sb), 0);
	ck_assert_str_eq(sb_cstr(&sb),
	                 "3:Ada Lee:Wax 2:Bo Chen:Wash 1:Ada Lee:Full detail, interior");
	sb_free(&sb);
	ck_assert_int_eq(job_list(db, ada, collect_job, &sb), 0);
	ck_assert_str_eq(sb_cstr(&sb), "3:Ada Lee:Wax 1:Ada Lee:Full detail, interior");
	sb_free(&sb);

	check_history("service_order", a, "1,3,3");
	check_flows("job", a, "->open:-");
	ck_assert_int_eq(job_get(db, 99, &j), FD_ENOTFOUND);
}
END_TEST

START_TEST(test_job_refusals_change_nothing)
{
	int64_t ada = add_customer("Ada Lee"), job = add_job(ada, "Wash", "USD"), id;
	char *before = snapshot(), *big = big_string();
	struct job_input in = {ada, "Wash", "USD", NULL};
	struct job_input ch = {0};

	in.customer_id = 99;
	REFUSED(job_add(db, &in, &id), FD_ENOTFOUND, before);
	ck_assert(strstr(err_msg(), "no customer 99") != NULL);
	in.customer_id = 0;
	REFUSED(job_add(db, &in, &id), FD_EINVAL, before);
	in.customer_id = ada;
	in.title = "bad \xff title";
	REFUSED(job_add(db, &in, &id), FD_EINVAL, before);
	ck_assert(strstr(err_msg(), "UTF-8") != NULL);
	in.title = "red \x1b[31m title";
	REFUSED(job_add(db, &in, &id), FD_EINVAL, before);
	ck_assert(strstr(err_msg(), "control character") != NULL);
	in.title = "tab\there";
	REFUSED(job_add(db, &in, &id), FD_EINVAL, before);
	in.title = "bidi \xe2\x80\xae";
	REFUSED(job_add(db, &in, &id), FD_EINVAL, before);
	in.title = big;
	REFUSED(job_add(db, &in, &id), FD_EINVAL, before);
	ck_assert(strstr(err_msg(), "too long") != NULL);
	in.title = "";
	REFUSED(job_add(db, &in, &id), FD_EINVAL, before);
	in.title = NULL;
	REFUSED(job_add(db, &in, &id), FD_EINVAL, before);
	in.title = "Wash";
	in.currency = "XYZ";
	REFUSED(job_add(db, &in, &id), FD_EINVAL, before);
	ck_assert(strstr(err_msg(), "unknown currency") != NULL);
	in.currency = "US";
	REFUSED(job_add(db, &in, &id), FD_EINVAL, before);
	in.currency = "USD";
	in.note = big;
	REFUSED(job_add(db, &in, &id), FD_EINVAL, before);

	REFUSED(job_edit(db, job, &ch), FD_EINVAL, before); /* nothing given */
	ck_assert(strstr(err_msg(), "nothing to change") != NULL);
	ch.title = "new\nline";
	REFUSED(job_edit(db, job, &ch), FD_EINVAL, before);
	ch.title = "Fine";
	REFUSED(job_edit(db, 99, &ch), FD_ENOTFOUND, before);
	ch.customer_id = ada; /* a job never changes customer */
	REFUSED(job_edit(db, job, &ch), FD_EINVAL, before);
	ch.customer_id = 0;
	ch.title = NULL;
	ch.currency = "ABC";
	REFUSED(job_edit(db, job, &ch), FD_EINVAL, before);
	free(big);
	free(before);
}
END_TEST

START_TEST(test_job_status_machine)
{
	int64_t cu = add_customer("Ada Lee"), job = add_job(cu, "Wash", NULL);
	char *before;
	struct job j;

	ck_assert_int_eq(job_set_status(db, job, "in_progress", "started at 9"), 0);
	ck_assert_int_eq(job_set_status(db, job, "done", NULL), 0);
	ck_assert_int_eq(job_set_status(db, job, "in_progress", "missed a spot"), 0);
	ck_assert_int_eq(job_set_status(db, job, "open", ""), 0); /* "" is no reason */
	check_flows("job", job,
	            "->open:- open>in_progress:started at 9 in_progress>done:- "
	            "done>in_progress:missed a spot in_progress>open:-");
	check_history("service_order", job, "1,3,3,3,3");

	/* illegal, unknown and repeated statuses are refused and change nothing */
	ck_assert_int_eq(job_set_status(db, job, "done", NULL), 0);
	before = snapshot();
	REFUSED(job_set_status(db, job, "cancelled", "too late"), FD_ECONFLICT, before);
	ck_assert_str_eq(err_msg(),
	                 "job 1 cannot go from done to cancelled; from done it can go to: "
	                 "in_progress");
	REFUSED(job_set_status(db, job, "open", NULL), FD_ECONFLICT, before);
	REFUSED(job_set_status(db, job, "done", NULL), FD_ECONFLICT, before);
	ck_assert(strstr(err_msg(), "already done") != NULL);
	REFUSED(job_set_status(db, job, "finished", NULL), FD_EINVAL, before);
	ck_assert(strstr(err_msg(), "open, in_progress, done, cancelled") != NULL);
	REFUSED(job_set_status(db, job, NULL, NULL), FD_EINVAL, before);
	REFUSED(job_set_status(db, job, "in_progress", "bad\x1b reason"), FD_EINVAL, before);
	REFUSED(job_set_status(db, 42, "in_progress", NULL), FD_ENOTFOUND, before);
	free(before);

	/* cancelled is final */
	ck_assert_int_eq(job_set_status(db, job, "in_progress", NULL), 0);
	ck_assert_int_eq(job_set_status(db, job, "cancelled", "customer moved"), 0);
	before = snapshot();
	REFUSED(job_set_status(db, job, "open", NULL), FD_ECONFLICT, before);
	ck_assert(strstr(err_msg(), "final") != NULL);
	free(before);
	ck_assert_int_eq(job_get(db, job, &j), 0);
	ck_assert_str_eq(j.status, "cancelled");
	job_free(&j);
	/* the reason of the last change is not handed on to the next one */
	check_flows("job", add_job(cu, "Next", NULL), "->open:-");
}
END_TEST

/* ---------------------------------------------------------------- visits */

START_TEST(test_appt_add_edit_status)
{
	int64_t a = add_appt("2026-12-01 09:00", "2026-12-01 11:30", "1 Main St");
	struct visit_input ch = {0};
	struct visit v;
	char *before;

	ck_assert_int_eq(visit_get(db, a, &v), 0);
	ck_assert_int_eq(v.start_at, fx_local("2026-12-01 09:00"));
	ck_assert_int_eq(v.end_at - v.start_at, 150 * 60);
	ck_assert_str_eq(v.location, "1 Main St");
	ck_assert_str_eq(v.status, "scheduled");
	ck_assert_str_eq(v.customers, ""); /* no job yet */
	ck_assert_str_eq(v.services, "");
	ck_assert_int_eq(v.est_minutes, 0);
	visit_free(&v);

	ch.end_at = fx_local("2026-12-01 12:00");
	ch.location = "";
	ch.note = "Side door";
	ck_assert_int_eq(visit_edit(db, a, &ch), 0);
	ck_assert_int_eq(visit_get(db, a, &v), 0);
	ck_assert_int_eq(v.start_at, fx_local("2026-12-01 09:00")); /* unchanged */
	ck_assert_int_eq(v.end_at, fx_local("2026-12-01 12:00"));
	ck_assert_ptr_null(v.location);
	ck_assert_str_eq(v.note, "Side door");
	visit_free(&v);

	ck_assert_int_eq(visit_set_status(db, a, "confirmed", "called"), 0);
	ck_assert_int_eq(visit_set_status(db, a, "in_progress", NULL), 0);
	ck_assert_int_eq(visit_set_status(db, a, "done", NULL), 0);
	check_flows("appointment", a,
	            "->scheduled:- scheduled>confirmed:called confirmed>in_progress:- "
	            "in_progress>done:-");
	check_history("appointment", a, "1,3,3,3,3");

	before = snapshot();
	REFUSED(visit_set_status(db, a, "scheduled", NULL), FD_ECONFLICT, before);
	ck_assert_str_eq(err_msg(), "visit 1 is done, which is final: its status cannot change");
	free(before);

	a = add_appt("2026-12-02 09:00", "2026-12-02 10:00", NULL);
	before = snapshot();
	REFUSED(visit_set_status(db, a, "done", NULL), FD_ECONFLICT, before);
	ck_assert(strstr(err_msg(), "from scheduled it can go to: cancelled, confirmed, "
	                            "in_progress, no_show") != NULL);
	REFUSED(visit_set_status(db, a, "no-show", NULL), FD_EINVAL, before);
	free(before);
	ck_assert_int_eq(visit_set_status(db, a, "no_show", "nobody home"), 0);
	ck_assert_int_eq(visit_set_status(db, a, "cancelled", NULL), FD_ECONFLICT);
}
END_TEST

START_TEST(test_appt_refusals_change_nothing)
{
	int64_t a = add_appt("2026-12-01 09:00", "2026-12-01 10:00", NULL), id;
	struct visit_input in = {fx_local("2026-12-01 10:00"), fx_local("2026-12-01 09:00"), NULL,
	                         NULL};
	struct visit_input ch = {0};
	char *before = snapshot(), *big = big_string();

	REFUSED(visit_add(db, &in, &id), FD_EINVAL, before); /* end before start */
	ck_assert_str_eq(err_msg(), "the visit must end after it starts "
	                            "(2026-12-01 09:00 is not after 2026-12-01 10:00)");
	in.end_at = in.start_at; /* no length */
	REFUSED(visit_add(db, &in, &id), FD_EINVAL, before);
	in.end_at = in.start_at + VISIT_MAX_SECONDS + 1;
	REFUSED(visit_add(db, &in, &id), FD_EINVAL, before);
	ck_assert(strstr(err_msg(), "7 days") != NULL);
	in.end_at = in.start_at + 3600;
	in.start_at = 0;
	REFUSED(visit_add(db, &in, &id), FD_EINVAL, before);
	in.start_at = in.end_at - 3600;
	in.location = "line\nbreak";
	REFUSED(visit_add(db, &in, &id), FD_EINVAL, before);
	in.location = "\xc0\xaf"; /* overlong '/' */
	REFUSED(visit_add(db, &in, &id), FD_EINVAL, before);
	in.location = big;
	REFUSED(visit_add(db, &in, &id), FD_EINVAL, before);
	in.location = NULL;
	in.note = big;
	REFUSED(visit_add(db, &in, &id), FD_EINVAL, before);

	REFUSED(visit_edit(db, a, &ch), FD_EINVAL, before);
	ch.end_at = fx_local("2026-12-01 08:00"); /* before the kept start */
	REFUSED(visit_edit(db, a, &ch), FD_EINVAL, before);
	ch.start_at = fx_local("2026-12-01 10:00");
	ch.end_at = ch.start_at; /* a new start and end, not after it */
	REFUSED(visit_edit(db, a, &ch), FD_EINVAL, before);
	REFUSED(visit_edit(db, 99, &ch), FD_ENOTFOUND, before);
	ck_assert_str_eq(err_msg(), "there is no visit 99");
	free(big);
	free(before);
}
END_TEST

struct ids {
	int64_t id[16];
	int n;
};

static int collect_appt(const struct visit *a, void *arg)
{
	struct ids *ids = arg;

	ck_assert_int_lt(ids->n, 16);
	ids->id[ids->n++] = a->id;
	return 0;
}

static int stop_at_first(const struct visit *a, void *arg) /* returns 7 */
{
	(*(int *)arg)++;
	return 7;
}

START_TEST(test_range_overlap)
{
	int64_t day1 = fx_local("2026-12-01"), day2 = fx_local("2026-12-02"),
	        day3 = fx_local("2026-12-03");
	int64_t late = add_appt("2026-12-01 22:00", "2026-12-02 02:00", NULL);
	int64_t morning = add_appt("2026-12-02 08:00", "2026-12-02 09:00", NULL);
	int64_t early = add_appt("2026-12-01 07:00", "2026-12-01 08:00", NULL);
	int64_t till_midnight = add_appt("2026-12-01 23:00", "2026-12-02 00:00", NULL);
	int64_t from_midnight = add_appt("2026-12-03 00:00", "2026-12-03 01:00", NULL);
	int64_t long_one = add_appt("2026-11-26 08:00", "2026-12-02 18:00", NULL);
	struct ids ids = {{0}, 0};
	int calls = 0;

	/* day 1: by start time; the visit crossing midnight is there */
	ck_assert_int_eq(visit_list_range(db, day1, day2, collect_appt, &ids), 0);
	ck_assert_int_eq(ids.n, 4);
	ck_assert_int_eq(ids.id[0], long_one);
	ck_assert_int_eq(ids.id[1], early);
	ck_assert_int_eq(ids.id[2], late);
	ck_assert_int_eq(ids.id[3], till_midnight);
	/* day 2: the same visit again; one that ends at midnight is not */
	ids.n = 0;
	ck_assert_int_eq(visit_list_range(db, day2, day3, collect_appt, &ids), 0);
	ck_assert_int_eq(ids.n, 3);
	ck_assert_int_eq(ids.id[0], long_one); /* started six days before */
	ck_assert_int_eq(ids.id[1], late);
	ck_assert_int_eq(ids.id[2], morning);
	/* [from, to): a visit starting at `to` is not in */
	ids.n = 0;
	ck_assert_int_eq(visit_list_range(db, day2 + 3600, day3, collect_appt, &ids), 0);
	ck_assert_int_eq(ids.n, 3);
	ids.n = 0;
	ck_assert_int_eq(visit_list_range(db, day3, clock_add_days(day3, 1), collect_appt, &ids),
	                 0);
	ck_assert_int_eq(ids.n, 1);
	ck_assert_int_eq(ids.id[0], from_midnight);
	/* the callback's value stops the list */
	ck_assert_int_eq(visit_list_range(db, day1, day3, stop_at_first, &calls), 7);
	ck_assert_int_eq(calls, 1);
	ck_assert_int_eq(visit_list_range(db, day2, day1, collect_appt, &ids), FD_EINVAL);
	ck_assert_int_eq(visit_list_range(db, day2, day2, collect_appt, &ids), FD_EINVAL);
}
END_TEST

/* ---------------------------------------------------------------- links */

static int collect_link(const struct link *l, void *arg)
{
	struct strbuf *sb = arg;

	sb_printf(sb, "%s%lld/%lld:%lld:%s:%s:%s", sb->len ? " " : "", (long long)l->appt_id,
	          (long long)l->job_id, (long long)l->est_minutes, l->customer_name, l->job_title,
	          l->appt_status);
	return 0;
}

/* Must-show 1: a job rained off and finished the next day is one job with
 * one line item and two visits, without any made-up zero-price line. */
START_TEST(test_one_job_two_visits)
{
	int64_t job = add_job(add_customer("Ada Lee"), "Full detail", "USD");
	int64_t v1 = add_appt("2026-12-01 09:00", "2026-12-01 13:00", "1 Main St");
	int64_t v2 = add_appt("2026-12-02 09:00", "2026-12-02 11:00", "1 Main St"), id = 0;
	struct strbuf sb = {0};
	struct visit a;

	ck_assert_int_eq(link_add(db, v1, job, 240, &id), 0);
	ck_assert_int_gt(id, 0);
	add_item(job, "SERVICE", 1000, 25000);
	ck_assert_int_eq(job_set_status(db, job, "in_progress", NULL), 0);
	ck_assert_int_eq(visit_set_status(db, v1, "in_progress", NULL), 0);
	ck_assert_int_eq(visit_set_status(db, v1, "done", "rained off at 11"), 0);
	ck_assert_int_eq(link_add(db, v2, job, 120, &id), 0);
	ck_assert_int_eq(visit_set_status(db, v2, "in_progress", NULL), 0);
	ck_assert_int_eq(visit_set_status(db, v2, "done", NULL), 0);
	ck_assert_int_eq(job_set_status(db, job, "done", NULL), 0);

	ck_assert_int_eq(count("SELECT count(*) FROM service_order"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM line_item"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM line_item WHERE unit_price = 0"), 0);
	ck_assert_int_eq(count("SELECT sum(amount) FROM line_item"), 25000);
	ck_assert_int_eq(count("SELECT count(*) FROM appointment_work WHERE service_order_id = 1"),
	                 2);
	ck_assert_int_eq(link_list(db, 0, job, collect_link, &sb), 0);
	ck_assert_str_eq(sb_cstr(&sb), "1/1:240:Ada Lee:Full detail:done "
	                               "2/1:120:Ada Lee:Full detail:done");
	sb_free(&sb);
	ck_assert_int_eq(visit_get(db, v2, &a), 0);
	ck_assert_str_eq(a.customers, "Ada Lee");
	ck_assert_str_eq(a.services, "Full detail");
	visit_free(&a);
	check_flows("appointment", v1,
	            "->scheduled:- scheduled>in_progress:- in_progress>done:rained off at 11");
}
END_TEST

/* Must-show 2: one visit at one address serves three customers' jobs. */
START_TEST(test_one_visit_three_customers)
{
	int64_t ada = add_customer("Ada Lee"), bo = add_customer("Bo Chen"),
	        cy = add_customer("Cy Diaz");
	int64_t j1 = add_job(ada, "Wash", NULL), j2 = add_job(bo, "Wax", NULL),
	        j3 = add_job(cy, "Interior", NULL), j4 = add_job(ada, "Tyres", NULL);
	int64_t v = add_appt("2026-12-01 09:00", "2026-12-01 12:00", "Oak Court 5"), id;
	struct ids ids = {{0}, 0};
	struct strbuf sb = {0};
	struct visit a;

	ck_assert_int_eq(link_add(db, v, j1, 45, &id), 0);
	ck_assert_int_eq(link_add(db, v, j2, 60, &id), 0);
	ck_assert_int_eq(visit_get(db, v, &a), 0);
	ck_assert_str_eq(a.customers, "Ada Lee +1");
	visit_free(&a);
	ck_assert_int_eq(link_add(db, v, j3, 30, &id), 0);
	ck_assert_int_eq(link_add(db, v, j4, 15, &id), 0); /* Ada again: still three people */
	ck_assert_int_eq(visit_get(db, v, &a), 0);
	ck_assert_str_eq(a.customers, "Ada Lee +2");
	ck_assert_str_eq(a.services, "Wash, Wax, Interior, Tyres");
	ck_assert_int_eq(a.est_minutes, 150);
	ck_assert_str_eq(a.location, "Oak Court 5");
	visit_free(&a);
	ck_assert_int_eq(visit_list_range(db, fx_local("2026-12-01"), fx_local("2026-12-02"),
	                                  collect_appt, &ids),
	                 0);
	ck_assert_int_eq(ids.n, 1);
	ck_assert_int_eq(count("SELECT count(*) FROM appointment"), 1);
	ck_assert_int_eq(link_list(db, v, 0, collect_link, &sb), 0);
	ck_assert_str_eq(sb_cstr(&sb), "1/1:45:Ada Lee:Wash:scheduled 1/2:60:Bo Chen:Wax:scheduled "
	                               "1/3:30:Cy Diaz:Interior:scheduled "
	                               "1/4:15:Ada Lee:Tyres:scheduled");
	sb_free(&sb);
}
END_TEST

START_TEST(test_link_rules_and_history)
{
	int64_t cu = add_customer("Ada Lee");
	int64_t job = add_job(cu, "Wash", NULL), gone = add_job(cu, "Wax", NULL);
	int64_t open = add_appt("2026-12-01 09:00", "2026-12-01 10:00", NULL);
	int64_t done = add_appt("2026-12-02 09:00", "2026-12-02 10:00", NULL);
	int64_t cancelled = add_appt("2026-12-03 09:00", "2026-12-03 10:00", NULL);
	int64_t no_show = add_appt("2026-12-04 09:00", "2026-12-04 10:00", NULL), id, lid;
	char *before;
	struct visit a;

	ck_assert_int_eq(link_add(db, done, job, 30, &id), 0);
	ck_assert_int_eq(link_add(db, open, gone, 30, &id), 0);
	ck_assert_int_eq(visit_set_status(db, done, "in_progress", NULL), 0);
	ck_assert_int_eq(visit_set_status(db, done, "done", NULL), 0);
	ck_assert_int_eq(visit_set_status(db, cancelled, "cancelled", NULL), 0);
	ck_assert_int_eq(visit_set_status(db, no_show, "no_show", NULL), 0);
	ck_assert_int_eq(job_set_status(db, gone, "cancelled", NULL), 0);

	before = snapshot();
	REFUSED(link_add(db, open, gone, 10, &id), FD_ECONFLICT, before);
	ck_assert_str_eq(err_msg(), "visit 1 already works on job 2; "
	                            "change its minutes with 'link edit'");
	REFUSED(link_add(db, no_show, gone, 10, &id), FD_ECONFLICT, before);
	REFUSED(link_edit(db, open, gone, 10), FD_ECONFLICT, before);
	ck_assert_str_eq(err_msg(), "job 2 is cancelled: no visit can work on it");
	REFUSED(link_add(db, done, gone, 10, &id), FD_ECONFLICT, before);
	REFUSED(link_add(db, cancelled, job, 10, &id), FD_ECONFLICT, before);
	ck_assert_str_eq(err_msg(),
	                 "visit 3 is cancelled: the jobs it worked on can no longer change");
	REFUSED(link_add(db, no_show, job, 10, &id), FD_ECONFLICT, before);
	REFUSED(link_edit(db, done, job, 10), FD_ECONFLICT, before);
	REFUSED(link_remove(db, done, job), FD_ECONFLICT, before);
	REFUSED(link_add(db, 99, job, 10, &id), FD_ENOTFOUND, before);
	REFUSED(link_add(db, open, 99, 10, &id), FD_ENOTFOUND, before);
	ck_assert_str_eq(err_msg(), "there is no job 99");
	REFUSED(link_add(db, open, job, -1, &id), FD_EINVAL, before);
	REFUSED(link_add(db, open, job, 100001, &id), FD_EINVAL, before);
	REFUSED(link_edit(db, open, job, 10), FD_ENOTFOUND, before);
	REFUSED(link_remove(db, open, job), FD_ENOTFOUND, before);
	free(before);

	/* add, edit, remove: history 1, 3, 2 */
	ck_assert_int_eq(link_add(db, open, job, 0, &lid), 0);
	ck_assert_int_eq(link_edit(db, open, job, 90), 0);
	ck_assert_int_eq(visit_get(db, open, &a), 0);
	ck_assert_int_eq(a.est_minutes, 90 + 30);
	visit_free(&a);
	ck_assert_int_eq(link_remove(db, open, job), 0);
	check_history("appointment_work", lid, "1,3,2");
	/* a cancelled job may leave a visit that is not over */
	ck_assert_int_eq(link_remove(db, open, gone), 0);
	ck_assert_int_eq(visit_get(db, open, &a), 0);
	ck_assert_str_eq(a.customers, "");
	ck_assert_int_eq(a.est_minutes, 0);
	visit_free(&a);
	ck_assert_int_eq(link_list(db, 0, 0, NULL, NULL), FD_EINVAL);
}
END_TEST

/* ---------------------------------------------------------------- items */

START_TEST(test_item_amounts)
{
	int64_t job = add_job(add_customer("Ada Lee"), "Detail", "USD"), id;
	struct item_input ch = {0, NULL, NULL, -1, -1};
	struct line_item li;

	id = add_item(job, "service", 1500, 4500); /* 1.5 h at 45.00 */
	ck_assert_int_eq(item_get(db, id, &li), 0);
	ck_assert_str_eq(li.kind, "SERVICE");
	ck_assert_int_eq(li.amount, 6750);
	ck_assert_str_eq(li.currency, "USD");
	ck_assert_str_eq(li.description, "Work");
	item_free(&li);
	/* half a cent rounds away from zero, for negative lines too */
	id = add_item(job, "FEE", 500, 1);
	ck_assert_int_eq(item_get(db, id, &li), 0);
	ck_assert_int_eq(li.amount, 1);
	item_free(&li);
	id = add_item(job, "DISCOUNT", 500, 1);
	ck_assert_int_eq(item_get(db, id, &li), 0);
	ck_assert_int_eq(li.amount, -1);
	item_free(&li);
	id = add_item(job, "CREDIT", 2000, 1000);
	ck_assert_int_eq(item_get(db, id, &li), 0);
	ck_assert_int_eq(li.amount, -2000);
	item_free(&li);
	id = add_item(job, "TAX", 1000, 540);
	ck_assert_int_eq(item_get(db, id, &li), 0);
	ck_assert_int_eq(li.amount, 540);
	item_free(&li);
	ck_assert_int_eq(count("SELECT sum(amount) FROM line_item"), 6750 + 1 - 1 - 2000 + 540);

	/* editing recomputes; a TAX line turned CREDIT becomes negative */
	ch.kind = "credit";
	ch.qty_milli = 3000;
	ck_assert_int_eq(item_edit(db, id, &ch), 0);
	ck_assert_int_eq(item_get(db, id, &li), 0);
	ck_assert_str_eq(li.kind, "CREDIT");
	ck_assert_int_eq(li.qty_milli, 3000);
	ck_assert_int_eq(li.unit_price, 540);
	ck_assert_int_eq(li.amount, -1620);
	item_free(&li);
	ch.kind = NULL;
	ch.qty_milli = -1;
	ch.unit_price = 0; /* free is allowed */
	ch.description = "Goodwill";
	ck_assert_int_eq(item_edit(db, id, &ch), 0);
	ck_assert_int_eq(item_get(db, id, &li), 0);
	ck_assert_int_eq(li.amount, 0);
	ck_assert_str_eq(li.description, "Goodwill");
	item_free(&li);
	ck_assert_int_eq(item_delete(db, id), 0);
	ck_assert_int_eq(item_get(db, id, &li), FD_ENOTFOUND);
	check_history("line_item", id, "1,3,3,2");
	ck_assert_int_eq(count("SELECT amount FROM line_item_his ORDER BY his_id DESC LIMIT 1"), 0);

	/* an amount that does not fit in int64_t is refused, and so is one
	 * beyond the money limit */
	{
		struct item_input big = {job, "SERVICE", "Huge", 1000000000, INT64_MAX};
		char *before = snapshot();

		REFUSED(item_add(db, &big, &id), FD_EINVAL, before);
		ck_assert(strstr(err_msg(), "too large") != NULL);
		big.qty_milli = 1000;
		big.unit_price = INT64_MAX;
		REFUSED(item_add(db, &big, &id), FD_EINVAL, before);
		ck_assert(strstr(err_msg(), "largest amount") != NULL);
		big.unit_price = MONEY_MAX + 1;
		REFUSED(item_add(db, &big, &id), FD_EINVAL, before);
		REFUSED(item_add(db, &big, &id), FD_EINVAL,
		        before); /* with the job's other items */
		free(before);
		big.job_id = add_job(add_customer("Bo Chan"), "Fleet", "USD");
		before = snapshot();
		big.unit_price = MONEY_MAX; /* fits exactly */
		ck_assert_int_eq(item_add(db, &big, &id), 0);
		free(before);
		before = snapshot();
		ch.description = NULL;
		ch.unit_price = -1;
		ch.qty_milli = 1001;
		REFUSED(item_edit(db, id, &ch), FD_EINVAL, before);
		free(before);
	}
}
END_TEST

START_TEST(test_item_refusals_and_currency_lock)
{
	int64_t cu = add_customer("Ada Lee"), job = add_job(cu, "Detail", "USD"), id;
	int64_t other = add_job(cu, "Wax", "USD");
	struct item_input in = {job, "SERVICE", "Wash", 1000, 2500};
	struct item_input ch = {0, NULL, NULL, -1, -1};
	struct job_input cur = {0, NULL, "EUR", NULL};
	char *before, *big = big_string();
	struct job j;

	/* before any line item the currency may change */
	ck_assert_int_eq(job_edit(db, job, &cur), 0);
	ck_assert_int_eq(job_get(db, job, &j), 0);
	ck_assert_str_eq(j.currency, "EUR");
	job_free(&j);
	id = add_item(job, "SERVICE", 1000, 2500);
	cur.currency = "USD";
	before = snapshot();
	REFUSED(job_edit(db, job, &cur), FD_ECONFLICT, before);
	ck_assert_str_eq(err_msg(),
	                 "job 1 has 1 line item(s), so its currency (EUR) cannot change");
	cur.currency = "eur"; /* the same currency is no change */
	cur.title = "Detail, again";
	ck_assert_int_eq(job_edit(db, job, &cur), 0);
	free(before);

	before = snapshot();
	in.qty_milli = 0;
	REFUSED(item_add(db, &in, &id), FD_EINVAL, before);
	in.qty_milli = -1000;
	REFUSED(item_add(db, &in, &id), FD_EINVAL, before);
	in.qty_milli = 1000000001;
	REFUSED(item_add(db, &in, &id), FD_EINVAL, before);
	in.qty_milli = 1000;
	in.unit_price = -1;
	REFUSED(item_add(db, &in, &id), FD_EINVAL, before);
	ck_assert(strstr(err_msg(), "DISCOUNT or CREDIT") != NULL);
	in.unit_price = 2500;
	in.kind = "REFUND";
	REFUSED(item_add(db, &in, &id), FD_EINVAL, before);
	in.kind = NULL;
	REFUSED(item_add(db, &in, &id), FD_EINVAL, before);
	in.kind = "FEE";
	in.description = "esc \x1b]0;owned\x07";
	REFUSED(item_add(db, &in, &id), FD_EINVAL, before);
	in.description = "\xe6\x9d"; /* cut in the middle of a character */
	REFUSED(item_add(db, &in, &id), FD_EINVAL, before);
	in.description = big;
	REFUSED(item_add(db, &in, &id), FD_EINVAL, before);
	in.description = "";
	REFUSED(item_add(db, &in, &id), FD_EINVAL, before);
	in.description = "Fee";
	in.job_id = 99;
	REFUSED(item_add(db, &in, &id), FD_ENOTFOUND, before);
	in.job_id = 0;
	REFUSED(item_add(db, &in, &id), FD_EINVAL, before);

	REFUSED(item_edit(db, id, &ch), FD_EINVAL, before); /* nothing given */
	ch.qty_milli = 0;
	REFUSED(item_edit(db, id, &ch), FD_EINVAL, before);
	ch.qty_milli = -1;
	ch.kind = "bogus";
	REFUSED(item_edit(db, id, &ch), FD_EINVAL, before);
	ch.kind = "FEE";
	REFUSED(item_edit(db, 99, &ch), FD_ENOTFOUND, before);
	REFUSED(item_delete(db, 99), FD_ENOTFOUND, before);
	ck_assert_str_eq(err_msg(), "there is no line item 99");
	free(before);

	/* job_id of an edit is ignored: an item never moves */
	ch.job_id = other;
	ck_assert_int_eq(item_edit(db, id, &ch), 0);
	ck_assert_int_eq(count("SELECT service_order_id FROM line_item WHERE id = 1"), job);
	free(big);
}
END_TEST

/* The schema refuses what the C code refuses, whoever writes. */
START_TEST(test_schema_backstops)
{
	int64_t cu = add_customer("Ada Lee"), job = add_job(cu, "Wash", "USD");
	int64_t gone = add_job(cu, "Wax", "USD");
	int64_t v = add_appt("2026-12-01 09:00", "2026-12-01 10:00", NULL);
	int64_t open = add_appt("2026-12-02 09:00", "2026-12-02 10:00", NULL), id;
	char *before;

	add_item(job, "SERVICE", 1000, 100);
	ck_assert_int_eq(link_add(db, open, job, 10, &id), 0);
	ck_assert_int_eq(visit_set_status(db, v, "cancelled", NULL), 0);
	ck_assert_int_eq(job_set_status(db, gone, "cancelled", NULL), 0);
	before = snapshot();
	ck_assert_int_ne(db_exec(db, "UPDATE service_order SET status = 'open' WHERE id = 2"), 0);
	ck_assert(strstr(err_msg(), "illegal job status change") != NULL);
	ck_assert_int_ne(db_exec(db, "UPDATE service_order SET currency = 'EUR'"), 0);
	ck_assert(strstr(err_msg(), "currency") != NULL);
	ck_assert_int_ne(db_exec(db, "INSERT INTO appointment_work (appointment_id,"
	                             " service_order_id, est_minutes, created_at, updated_at)"
	                             " VALUES (1, 1, 0, 0, 0)"),
	                 0);
	ck_assert_int_ne(db_exec(db, "UPDATE appointment_work SET appointment_id = 1"), 0);
	ck_assert(strstr(err_msg(), "a link needs") != NULL);
	ck_assert_int_ne(db_exec(db, "UPDATE appointment_work SET service_order_id = 2"), 0);
	ck_assert_int_ne(db_exec(db, "UPDATE line_item SET amount = -100"), 0);
	ck_assert_int_ne(db_exec(db, "UPDATE appointment SET end_at = start_at + 604801"), 0);
	ck_assert_int_ne(db_exec(db, "UPDATE appointment SET status = 'scheduled'"), 0);
	ck_assert(strstr(err_msg(), "illegal appointment status change") != NULL);
	ck_assert_int_ne(db_exec(db, "DELETE FROM line_item_his"), 0);
	{
		char *after = snapshot();

		ck_assert_str_eq(after, before);
		free(after);
	}
	free(before);
	/* links already made stay as they are when their visit ends */
	ck_assert_int_eq(visit_set_status(db, open, "cancelled", NULL), 0);
	ck_assert_int_eq(db_exec(db, "UPDATE appointment_work SET est_minutes = 5"), 0);
}
END_TEST

/* The moves of jobs and visits are a table in their owners (job.c,
 * visit.c), mirrored by the rows of status_transition that the triggers
 * enforce: both say the same, and a table that lacks any one move, or has
 * one more, is caught naming it. */
START_TEST(test_moves_agree_with_the_schema)
{
	static const struct state_move none = {-1, -1};

	ck_assert_uint_eq(fx_states_hold(db, &job_states), 7);
	ck_assert_uint_eq(fx_states_hold(db, &visit_states), 9);
	ck_assert_int_eq(fx_states_changed(db, &job_states, 6, none), FD_ECONFLICT);
	ck_assert_str_eq(err_msg(), "the moves of job differ: the schema allows done -> "
	                            "in_progress, the code does not");
	ck_assert_int_eq(fx_states_changed(db, &visit_states, SIZE_MAX,
	                                   (struct state_move){VISIT_DONE, VISIT_SCHEDULED}),
	                 FD_ECONFLICT);
	ck_assert_str_eq(err_msg(), "the moves of appointment differ: the code allows done -> "
	                            "scheduled, the schema does not");
}
END_TEST

/* Each state's word is read in one place: every word round-trips, a word of
 * no state (or NULL) is JOB_STATES / VISIT_STATES. */
START_TEST(test_state_words)
{
	int s;

	for (s = 0; s < JOB_STATES; s++) {
		ck_assert_int_ne(*job_state_word((enum job_state)s), '\0');
		ck_assert_int_eq(job_state_of(job_state_word((enum job_state)s)), s);
	}
	for (s = 0; s < VISIT_STATES; s++) {
		ck_assert_int_ne(*visit_state_word((enum visit_state)s), '\0');
		ck_assert_int_eq(visit_state_of(visit_state_word((enum visit_state)s)), s);
	}
	ck_assert_int_eq(job_state_of("no_show"), JOB_STATES);
	ck_assert_int_eq(job_state_of(NULL), JOB_STATES);
	ck_assert_int_eq(visit_state_of("open"), VISIT_STATES);
	ck_assert_str_eq(job_state_word(JOB_STATES), "");
	ck_assert_str_eq(visit_state_word(VISIT_STATES), "");
	ck_assert_str_eq(visit_close_status(1), "no_show");
	ck_assert_str_eq(visit_close_status(0), "cancelled");
	ck_assert_int_eq(visit_is_off("no_show"), 1);
	ck_assert_int_eq(visit_is_off("done"), 0);
	ck_assert_int_eq(visit_is_over(VISIT_DONE), 1);
	ck_assert_int_eq(visit_is_over(VISIT_CONFIRMED), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("work");
	TCase *tc = tcase_create("work");
	SRunner *sr;
	int failed;

	setenv("TZ", "America/New_York", 1);
	setenv("FRONTDESK_NOW", "2026-12-01T09:00", 1);
	unsetenv("FRONTDESK_CONFIG");
	clock_set_zone(NULL);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_job_add_get_edit_list);
	tcase_add_test(tc, test_job_refusals_change_nothing);
	tcase_add_test(tc, test_job_status_machine);
	tcase_add_test(tc, test_appt_add_edit_status);
	tcase_add_test(tc, test_appt_refusals_change_nothing);
	tcase_add_test(tc, test_range_overlap);
	tcase_add_test(tc, test_one_job_two_visits);
	tcase_add_test(tc, test_one_visit_three_customers);
	tcase_add_test(tc, test_link_rules_and_history);
	tcase_add_test(tc, test_item_amounts);
	tcase_add_test(tc, test_item_refusals_and_currency_lock);
	tcase_add_test(tc, test_schema_backstops);
	tcase_add_test(tc, test_moves_agree_with_the_schema);
	tcase_add_test(tc, test_state_words);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
