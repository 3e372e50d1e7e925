/*
 * check_capacity.c - unit tests of capacity.c: the rules a reservation
 * obeys (half-open intervals that touch do not overlap, inside one working
 * span, an exception day, a retired resource), both or neither of two
 * resources, cancelling and no-shows freeing, moving a visit moving its
 * reservations or being refused, the schema's triggers as the last line of
 * defence, the check rules, and availability against slots computed here
 * from the hours and bookings the test made.
 */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "booking.h"
#include "capacity.h"
#include "checkdb.h"
#include "clock.h"
#include "customer.h"
#include "db.h"
#include "err.h"
#include "fixture.h"
#include "visit.h"

static struct fx F;
static struct db *db;
static int64_t ann, van, cust;

static int64_t resource(const char *name, const char *kind, const char *days, const char *spans)
{
	struct resource_input in = {.name = name, .kind = kind, .active = -1};
	struct cap_span s[CAPACITY_MAX_SPANS];
	unsigned mask;
	int64_t id = 0;
	size_t n;

	ck_assert_int_eq(capacity_resource_add(db, &in, &id), 0);
	ck_assert_int_eq(capacity_parse_weekdays(days, &mask), 0);
	ck_assert_int_eq(capacity_parse_spans(spans, s, &n), 0);
	ck_assert_int_eq(capacity_hours_set(db, id, mask, s, n), 0);
	return id;
}

static void setup(void)
{
	struct customer_input ci = {.name = "Lee", .address = "1 Main St"};

	fx_open(&F, "capacity");
	db = F.db;
	/* 2026-12-02 is a Wednesday */
	ann = resource("Ann", "technician", "mon-fri", "08:00-12:00,13:00-17:00");
	van = resource("Van 1", "van", "all", "07:00-19:00");
	ck_assert_int_eq(customer_add(db, &ci, &cust), 0);
}

static void teardown(void)
{
	fx_close(&F);
	db = NULL;
}

/* A visit from a to b (shop time) holding resources r[0..n): its id, or 0
 * when refused (the reason in err_msg()). */
static int64_t book(const char *a, const char *b, const int64_t *r, size_t n)
{
	struct booking_input in = {0};
	struct booking_result res;

	in.start_at = fx_local(a);
	in.end_at = fx_local(b);
	in.customers = &cust;
	in.ncustomers = 1;
	in.resources = r;
	in.nresources = n;
	if (booking_add(db, &in, &res))
		return 0;
	return res.appt_id;
}

static int64_t rows(void)
{
	return fx_one(db, "SELECT (SELECT count(*) FROM appointment) + (SELECT count(*) FROM"
	                  " appointment_resource) + (SELECT count(*) FROM service_order) +"
	                  " (SELECT count(*) FROM appointment_work)");
}

START_TEST(test_parse)
{
	struct cap_span s[CAPACITY_MAX_SPANS];
	unsigned mask;
	size_t n;

	ck_assert_int_eq(capacity_parse_spans("08:00-12:00,13:00-24:00", s, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(s[0].start_min, 480);
	ck_assert_int_eq(s[1].end_min, 1440);
	ck_assert_int_eq(capacity_parse_spans("off", s, &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(capacity_parse_spans("12:00-08:00", s, &n), FD_EINVAL);
	ck_assert_int_eq(capacity_parse_spans("08:00-12:00,11:00-13:00", s, &n), FD_EINVAL);
	ck_assert_int_eq(capacity_parse_spans("8-12", s, &n), FD_EINVAL);
	ck_assert_int_eq(capacity_parse_spans("24:30-25:00", s, &n), FD_EINVAL);
	ck_assert_int_eq(capacity_parse_weekdays("mon-fri", &mask), 0);
	ck_assert_uint_eq(mask, 0x3e);
	ck_assert_int_eq(capacity_parse_weekdays("fri-mon", &mask), 0);
	ck_assert_uint_eq(mask, 0x63);
	ck_assert_int_eq(capacity_parse_weekdays("sat,sun", &mask), 0);
	ck_assert_uint_eq(mask, 0x41);
	ck_assert_int_eq(capacity_parse_weekdays("all", &mask), 0);
	ck_assert_uint_eq(mask, 0x7f);
	ck_assert_int_eq(capacity_parse_weekdays("funday", &mask), FD_EINVAL);
}
END_TEST

/* [9:00, 10:00) is held: 10:00-11:00 and 8:00-9:00 touch it and are
 * free; a minute into it either side is taken, and the reason names the
 * resource and the visit. */
START_TEST(test_half_open_edges)
{
	int64_t a = book("2026-12-02 09:00", "2026-12-02 10:00", &ann, 1);
	char want[64];

	ck_assert_msg(a > 0, "%s", err_msg());
	ck_assert_int_gt(book("2026-12-02 10:00", "2026-12-02 11:00", &ann, 1), 0);
	ck_assert_int_gt(book("2026-12-02 08:00", "2026-12-02 09:00", &ann, 1), 0);
	ck_assert_int_eq(book("2026-12-02 09:59", "2026-12-02 10:30", &ann, 1), 0);
	snprintf(want, sizeof want, "by visit %lld", (long long)a);
	ck_assert_msg(strstr(err_msg(), "Ann") && strstr(err_msg(), want), "%s", err_msg());
	ck_assert_int_eq(book("2026-12-02 08:30", "2026-12-02 09:01", &ann, 1), 0);
	ck_assert_int_eq(book("2026-12-02 09:15", "2026-12-02 09:45", &ann, 1), 0);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM appointment_resource"), 3);
	/* the van is another resource: free then */
	ck_assert_int_gt(book("2026-12-02 09:00", "2026-12-02 10:00", &van, 1), 0);
}
END_TEST

START_TEST(test_outside_hours)
{
	int64_t before = rows();

	/* across the lunch gap between two spans */
	ck_assert_int_eq(book("2026-12-02 11:30", "2026-12-02 12:30", &ann, 1), 0);
	ck_assert_msg(strstr(err_msg(), "08:00-12:00, 13:00-17:00"), "%s", err_msg());
	ck_assert_int_eq(book("2026-12-02 07:59", "2026-12-02 09:00", &ann, 1), 0);
	ck_assert_int_eq(book("2026-12-02 16:01", "2026-12-02 17:01", &ann, 1), 0);
	/* Sunday: no hours at all */
	ck_assert_int_eq(book("2026-12-06 10:00", "2026-12-06 11:00", &ann, 1), 0);
	ck_assert_msg(strstr(err_msg(), "does not work"), "%s", err_msg());
	ck_assert_int_eq(rows(), before);
	/* the very ends of a span */
	ck_assert_int_gt(book("2026-12-02 16:00", "2026-12-02 17:00", &ann, 1), 0);
	ck_assert_int_gt(book("2026-12-02 13:00", "2026-12-02 14:00", &ann, 1), 0);
	ck_assert_int_gt(book("2026-12-02 08:00", "2026-12-02 12:00", &ann, 1), 0);
}
END_TEST

START_TEST(test_exception_day)
{
	struct cap_span other = {600, 840}; /* 10:00-14:00 */
	int64_t v;

	ck_assert_int_eq(capacity_off(db, ann, "2026-12-03", NULL, "dentist"), 0);
	ck_assert_int_eq(book("2026-12-03 09:00", "2026-12-03 10:00", &ann, 1), 0);
	ck_assert_msg(strstr(err_msg(), "off on 2026-12-03") && strstr(err_msg(), "dentist"), "%s",
	              err_msg());
	/* other hours that day: 10-14 replaces 8-12,13-17 */
	ck_assert_int_eq(capacity_off(db, ann, "2026-12-03", &other, "half day"), 0);
	ck_assert_int_eq(book("2026-12-03 09:00", "2026-12-03 10:00", &ann, 1), 0);
	ck_assert_int_gt(book("2026-12-03 12:00", "2026-12-03 13:00", &ann, 1), 0);
	/* closing a day a visit holds is refused, naming it */
	v = book("2026-12-04 09:00", "2026-12-04 10:00", &ann, 1);
	ck_assert_int_gt(v, 0);
	ck_assert_int_eq(capacity_off(db, ann, "2026-12-04", NULL, "flu"), FD_ECONFLICT);
	ck_assert_int_eq(
	    fx_one(db, "SELECT count(*) FROM resource_exception WHERE day = '2026-12-04'"), 0);
	/* back to the usual hours */
	ck_assert_int_eq(capacity_off_clear(db, ann, "2026-12-03"), 0);
	ck_assert_int_gt(book("2026-12-03 08:00", "2026-12-03 09:00", &ann, 1), 0);
	ck_assert_int_eq(capacity_off_clear(db, ann, "2026-12-03"), FD_ENOTFOUND);
	ck_assert_int_eq(capacity_off(db, ann, "2026-02-30", NULL, NULL), FD_EINVAL);
}
END_TEST

/* A visit that needs Ann and the van: the van is taken, so nothing at all
 * is booked (no visit, no job, no reservation of Ann). */
START_TEST(test_both_or_neither)
{
	int64_t both[2] = {ann, van}, before;

	ck_assert_int_gt(book("2026-12-02 09:00", "2026-12-02 10:00", &van, 1), 0);
	before = rows();
	ck_assert_int_eq(book("2026-12-02 09:30", "2026-12-02 10:30", both, 2), 0);
	ck_assert_msg(strstr(err_msg(), "Van 1"), "%s", err_msg());
	ck_assert_int_eq(rows(), before);
	ck_assert_int_eq(
	    fx_one(db, "SELECT count(*) FROM appointment_resource WHERE resource_id = 1"), 0);
	/* later both are free: both reserved */
	ck_assert_int_gt(book("2026-12-02 10:00", "2026-12-02 11:00", both, 2), 0);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM appointment_resource"), 3);
	/* a resource named twice is refused */
	both[1] = ann;
	ck_assert_int_eq(book("2026-12-02 13:00", "2026-12-02 14:00", both, 2), 0);
}
END_TEST

START_TEST(test_cancel_no_show_free)
{
	int64_t a = book("2026-12-02 09:00", "2026-12-02 10:00", &ann, 1), b;

	ck_assert_int_gt(a, 0);
	ck_assert_int_eq(visit_set_status(db, a, "cancelled", NULL), 0);
	b = book("2026-12-02 09:00", "2026-12-02 10:00", &ann, 1);
	ck_assert_msg(b > 0, "%s", err_msg());
	ck_assert_int_eq(visit_set_status(db, b, "no_show", NULL), 0);
	ck_assert_int_gt(book("2026-12-02 09:30", "2026-12-02 10:30", &ann, 1), 0);
	/* the cancelled visits keep their rows on record */
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM appointment_resource"), 3);
}
END_TEST

START_TEST(test_retired)
{
	struct resource_input in = {.active = 0};

	ck_assert_int_gt(book("2026-12-02 09:00", "2026-12-02 10:00", &ann, 1), 0);
	ck_assert_int_eq(capacity_resource_change(db, ann, &in), 0);
	ck_assert_int_eq(book("2026-12-02 13:00", "2026-12-02 14:00", &ann, 1), 0);
	ck_assert_msg(strstr(err_msg(), "retired"), "%s", err_msg());
}
END_TEST

static void count_report(const char *code, const char *detail, void *arg)
{
	int *n = arg;

	(void)detail;
	if (!strncmp(code, "capacity-", 9))
		(*n)++;
}

START_TEST(test_move)
{
	int n;
	int64_t a = book("2026-12-02 09:00", "2026-12-02 10:00", &ann, 1);
	int64_t b = book("2026-12-02 14:00", "2026-12-02 15:00", &ann, 1);

	ck_assert_int_gt(a, 0);
	ck_assert_int_gt(b, 0);
	ck_assert_int_eq(visit_move(db, a, fx_local("2026-12-02 10:30")), 0);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM appointment_resource r JOIN appointment a"
	                            " ON a.id = r.appointment_id WHERE r.start_at = a.start_at"
	                            " AND r.end_at = a.end_at"),
	                 2);
	/* onto b: refused, and a stays where it was */
	ck_assert_int_eq(visit_move(db, a, fx_local("2026-12-02 14:30")), FD_ECONFLICT);
	ck_assert_msg(strstr(err_msg(), "visit"), "%s", err_msg());
	ck_assert_int_eq(fx_one(db, "SELECT start_at FROM appointment WHERE id = 1"),
	                 fx_local("2026-12-02 10:30"));
	/* outside the hours: refused */
	ck_assert_int_eq(visit_move(db, a, fx_local("2026-12-02 18:00")), FD_ECONFLICT);
	/* a longer visit by edit: into b refused */
	{
		struct visit_input in = {.end_at = fx_local("2026-12-02 14:30")};

		ck_assert_int_eq(visit_move(db, a, fx_local("2026-12-02 13:00")), 0);
		ck_assert_int_eq(visit_edit(db, a, &in), FD_ECONFLICT);
	}
	n = 0;
	ck_assert_int_eq(check_run(db, count_report, &n), 0);
}
END_TEST

static int hold_cb(const struct cap_hold *h, void *arg)
{
	char *out = arg;
	char one[64];

	snprintf(one, sizeof one, "%lld:%lld ", (long long)h->resource_id,
	         (long long)h->appointment_id);
	strcat(out, one);
	return 0;
}

/* A visit changes resource: refused with the reason when the other one is
 * taken, off or already held (nothing changes); a free one takes it. The
 * holds of a day are the live reservations overlapping it. */
START_TEST(test_reassign)
{
	int64_t bay = resource("Bay", "bay", "all", "08:00-12:00");
	int64_t a = book("2026-12-02 09:00", "2026-12-02 10:00", &ann, 1);
	int64_t b = book("2026-12-02 09:30", "2026-12-02 10:30", &van, 1);
	int64_t c = book("2026-12-02 13:00", "2026-12-02 14:00", &ann, 1);
	int64_t before;
	char got[256] = "", want[256];
	int n;

	ck_assert_int_gt(a, 0);
	ck_assert_int_gt(b, 0);
	ck_assert_int_gt(c, 0);
	before = rows();
	ck_assert_int_eq(capacity_reassign(db, a, ann, van), FD_ECONFLICT);
	ck_assert_msg(strstr(err_msg(), "Van 1 is taken") && strstr(err_msg(), "visit 2"), "%s",
	              err_msg());
	ck_assert_int_eq(capacity_reassign(db, c, ann, bay), FD_ECONFLICT);
	ck_assert_msg(strstr(err_msg(), "does not work"), "%s", err_msg());
	ck_assert_int_eq(capacity_reassign(db, a, van, bay), FD_ECONFLICT);
	ck_assert_msg(strstr(err_msg(), "does not hold"), "%s", err_msg());
	ck_assert_int_eq(capacity_reassign(db, a, ann, ann), FD_EINVAL);
	ck_assert_int_eq(capacity_reassign(db, a, ann, 99), FD_ENOTFOUND);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM appointment_resource WHERE"
	                            " appointment_id = 1 AND resource_id = 1"),
	                 1);
	ck_assert_int_eq(rows(), before);
	ck_assert_int_eq(capacity_reassign(db, a, ann, bay), 0);
	ck_assert_int_eq(fx_one(db, "SELECT resource_id FROM appointment_resource WHERE"
	                            " appointment_id = 1"),
	                 bay);
	ck_assert_int_eq(rows(), before);
	/* the day's holds: by resource, then start; a cancelled visit none */
	ck_assert_int_eq(visit_set_status(db, c, "cancelled", "test"), 0);
	ck_assert_int_eq(capacity_holds(db, fx_local("2026-12-02 00:00"),
	                                fx_local("2026-12-03 00:00"), hold_cb, got),
	                 0);
	snprintf(want, sizeof want, "%lld:%lld %lld:%lld ", (long long)van, (long long)b,
	         (long long)bay, (long long)a);
	ck_assert_str_eq(got, want);
	got[0] = 0;
	ck_assert_int_eq(capacity_holds(db, fx_local("2026-12-03 00:00"),
	                                fx_local("2026-12-04 00:00"), hold_cb, got),
	                 0);
	ck_assert_str_eq(got, "");
	n = 0;
	ck_assert_int_eq(check_run(db, count_report, &n), 0);
	ck_assert_int_eq(n, 0);
}
END_TEST

/* The triggers refuse an overlap written behind the program's back; with
 * the trigger gone, `frontdesk check` finds it, and a reservation whose
 * interval differs from its visit's. */
START_TEST(test_triggers_and_check)
{
	int64_t a = book("2026-12-02 09:00", "2026-12-02 10:00", &ann, 1);
	int64_t b = book("2026-12-02 10:00", "2026-12-02 11:00", &van, 1);
	char sql[400];
	int n = 0;

	ck_assert_int_gt(a, 0);
	ck_assert_int_gt(b, 0);
	ck_assert_int_eq(check_run(db, count_report, &n), 0);
	/* visit b onto Ann at 9:30: interval differs, and overlaps */
	snprintf(sql, sizeof sql,
	         "INSERT INTO appointment_resource (appointment_id, resource_id, start_at, end_at,"
	         " created_at, updated_at) SELECT %lld, %lld, start_at, end_at, 0, 0 FROM"
	         " appointment WHERE id = %lld",
	         (long long)b, (long long)ann, (long long)b);
	ck_assert_int_eq(db_exec(db, sql), 0); /* 10:00-11:00 touches 9:00-10:00: fine */
	ck_assert_int_eq(
	    db_exec(db, "UPDATE appointment SET start_at = start_at - 1800 WHERE id = 2"), 0);
	snprintf(sql, sizeof sql,
	         "UPDATE appointment_resource SET start_at = start_at - 1800 WHERE appointment_id ="
	         " %lld",
	         (long long)b);
	ck_assert_int_ne(db_exec(db, sql), 0); /* the trigger refuses the overlap */
	n = 0;
	check_run(db, count_report, &n);
	ck_assert_int_eq(n, 2); /* two reservations differ from visit 2's interval */
	ck_assert_int_eq(db_exec(db, "DROP TRIGGER appointment_resource_no_overlap_upd"), 0);
	ck_assert_int_eq(db_exec(db, sql), 0);
	n = 0;
	check_run(db, count_report, &n);
	ck_assert_int_eq(n, 1); /* the overlap */
}
END_TEST

struct slots {
	int64_t start[256];
	int64_t resource[256];
	int n;
};

static int slot_cb(const struct cap_slot *s, void *arg)
{
	struct slots *o = arg;

	ck_assert_int_lt(o->n, 256);
	ck_assert_int_eq(s->end_at - s->start_at, 3600);
	o->start[o->n] = s->start_at;
	o->resource[o->n++] = s->resource_id;
	return 0;
}

/* Ann on Wednesday: 8-12 and 13-17, a visit 9:00-10:00 and one 14:10-15:00;
 * 60-minute slots on a 30-minute grid. Expected, from those rules: every
 * half hour h in the spans with [h, h+60) inside a span and touching no
 * visit. */
START_TEST(test_availability)
{
	static const struct {
		int s, e;
	} spans[] = {{480, 720}, {780, 1020}}, busy[] = {{540, 600}, {850, 900}};
	struct slots got = {0};
	int64_t day = fx_local("2026-12-02"), want[64];
	int nwant = 0, m, k, ok;
	size_t i;

	ck_assert_int_gt(book("2026-12-02 09:00", "2026-12-02 10:00", &ann, 1), 0);
	ck_assert_int_gt(book("2026-12-02 14:10", "2026-12-02 15:00", &ann, 1), 0);
	for (i = 0; i < 2; i++)
		for (m = spans[i].s; m + 60 <= spans[i].e; m += 30) {
			ok = 1;
			for (k = 0; k < 2; k++)
				if (busy[k].s < m + 60 && busy[k].e > m)
					ok = 0;
			if (ok)
				want[nwant++] = day + m * 60;
		}
	ck_assert_int_eq(capacity_available(db, day, 1, 60, 30, &ann, 1, slot_cb, &got), 0);
	ck_assert_int_eq(got.n, nwant);
	for (k = 0; k < nwant; k++)
		ck_assert_int_eq(got.start[k], want[k]);
	/* a cancelled visit frees its slots; the whole week of both resources
	 * in one call: Ann 5 days, the van 7 */
	ck_assert_int_eq(visit_set_status(db, 1, "cancelled", NULL), 0);
	memset(&got, 0, sizeof got);
	ck_assert_int_eq(capacity_available(db, day, 1, 60, 30, &ann, 1, slot_cb, &got), 0);
	ck_assert_int_eq(got.n, nwant + 3); /* 8:30, 9:00, 9:30 */
	{
		struct slots *all = calloc(1, sizeof *all);

		ck_assert_int_eq(capacity_available(db, day, 1, 60, 60, NULL, 0, slot_cb, all), 0);
		/* Ann 8,9,10,11,13, (14 busy: 14:10-15), 15, 16 = 7; van 7..18 = 12 */
		ck_assert_int_eq(all->n, 7 + 12);
		ck_assert_int_eq(all->resource[0], ann); /* technicians first */
		free(all);
	}
	ck_assert_int_eq(capacity_available(db, day, 0, 60, 30, NULL, 0, slot_cb, &got), FD_EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("capacity");
	TCase *tc = tcase_create("capacity");
	SRunner *sr;
	int failed;

	fx_env();
	clock_set_zone(NULL);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_half_open_edges);
	tcase_add_test(tc, test_outside_hours);
	tcase_add_test(tc, test_exception_day);
	tcase_add_test(tc, test_both_or_neither);
	tcase_add_test(tc, test_cancel_no_show_free);
	tcase_add_test(tc, test_retired);
	tcase_add_test(tc, test_move);
	tcase_add_test(tc, test_reassign);
	tcase_add_test(tc, test_triggers_and_check);
	tcase_add_test(tc, test_availability);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
