/*
 * check_booking.c - unit tests of booking in one step (booking.c) and of the
 * visit time rules the forms and the command line share (visit.c): lengths
 * as people type them, an end at or before the start, a new start keeping
 * the length, moving a visit, and db_write nested in a transaction; the
 * states and moves of an online booking request (booking-chan.c).
 */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "announce.h"
#include "booking-chan.h"
#include "booking.h"
#include "clock.h"
#include "customer.h"
#include "db.h"
#include "err.h"
#include "fixture.h"
#include "service.h"
#include "states.h"
#include "strbuf.h"
#include "visit.h"

static struct fx F;
static struct db *db;

static void setup(void)
{
	fx_open(&F, "booking");
	db = F.db;
}

static void teardown(void)
{
	fx_close(&F);
	db = NULL;
}

static int64_t count(const char *sql)
{
	return fx_one(db, sql);
}

static int64_t customer(const char *name, const char *address)
{
	struct customer_input in = {.name = name, .address = address};
	int64_t id = 0;

	ck_assert_int_eq(customer_add(db, &in, &id), 0);
	return id;
}

static int64_t service(const char *name, int64_t price, int64_t minutes, const char *currency)
{
	struct service_input in = {
	    .name = name, .price = price, .minutes = minutes, .currency = currency};
	int64_t id = 0;

	ck_assert_int_eq(service_add(db, &in, &id), 0);
	return id;
}

/* The number of rows of every table a booking writes. */
static int64_t rows(void)
{
	return count("SELECT (SELECT count(*) FROM appointment) + (SELECT count(*) FROM "
	             "service_order) + (SELECT count(*) FROM line_item) + (SELECT count(*) FROM "
	             "appointment_work)");
}

START_TEST(test_parse_length)
{
	static const struct {
		const char *text;
		int64_t minutes; /* -1: refused */
	} cases[] = {
	    {"1:30", 90},
	    {"+90m", 90},
	    {"90", 90},
	    {"90m", 90},
	    {"2h", 120},
	    {"1h30m", 90},
	    {"1h30", 90},
	    {"+1:05", 65},
	    {"0:01", 1},
	    {"168:00", 7 * 24 * 60},
	    {"0:00", -1},
	    {"0", -1},
	    {"1:60", -1},
	    {"1:5", -1},
	    {"", -1},
	    {"abc", -1},
	    {"-30m", -1},
	    {"1h75", -1},
	    {"168:01", -1},
	    {"90 x", -1},
	    {"99999999999999999999", -1},
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t sec = -1;
		int rc = visit_parse_length(cases[i].text, &sec);

		if (cases[i].minutes < 0) {
			ck_assert_msg(rc == FD_EINVAL, "'%s' accepted as %lld s", cases[i].text,
			              (long long)sec);
			ck_assert(*err_msg());
		} else {
			ck_assert_msg(rc == 0, "'%s' refused: %s", cases[i].text, err_msg());
			ck_assert_int_eq(sec, cases[i].minutes * 60);
		}
	}
}
END_TEST

START_TEST(test_when_times)
{
	struct visit_when w = {"2026-12-02", "10:00", "11:00", NULL, 0};
	int64_t s, e;
	int bad;

	ck_assert_int_eq(visit_when_times(&w, &s, &e, &bad), 0);
	ck_assert_int_eq(s, fx_local("2026-12-02 10:00"));
	ck_assert_int_eq(e, fx_local("2026-12-02 11:00"));
	/* an end at or before the start: refused, naming the end ... */
	w.end = "09:00";
	ck_assert_int_eq(visit_when_times(&w, &s, &e, &bad), FD_EINVAL);
	ck_assert_int_eq(bad, VISIT_WHEN_END);
	ck_assert(strstr(err_msg(), "overnight") != NULL);
	w.end = "10:00";
	ck_assert_int_eq(visit_when_times(&w, &s, &e, &bad), FD_EINVAL);
	/* ... unless the visit runs overnight: then on the next day */
	w.overnight = 1;
	ck_assert_int_eq(visit_when_times(&w, &s, &e, &bad), 0);
	ck_assert_int_eq(e, fx_local("2026-12-03 10:00"));
	w.end = "02:00";
	ck_assert_int_eq(visit_when_times(&w, &s, &e, &bad), 0);
	ck_assert_int_eq(e, fx_local("2026-12-03 02:00"));
	/* an end after the start stays on the day, overnight or not */
	w.end = "11:30";
	ck_assert_int_eq(visit_when_times(&w, &s, &e, &bad), 0);
	ck_assert_int_eq(e, fx_local("2026-12-02 11:30"));
	/* no end: the length */
	w.overnight = 0;
	w.end = "";
	w.length = "+90m";
	ck_assert_int_eq(visit_when_times(&w, &s, &e, &bad), 0);
	ck_assert_int_eq(e - s, 90 * 60);
	w.length = "1:30x";
	ck_assert_int_eq(visit_when_times(&w, &s, &e, &bad), FD_EINVAL);
	ck_assert_int_eq(bad, VISIT_WHEN_LENGTH);
	w.length = "1:30";
	w.start = "25:00";
	ck_assert_int_eq(visit_when_times(&w, &s, &e, &bad), FD_EINVAL);
	ck_assert_int_eq(bad, VISIT_WHEN_START);
	w.start = "9:15"; /* one-digit hour */
	ck_assert_int_eq(visit_when_times(&w, &s, &e, &bad), 0);
	ck_assert_int_eq(s, fx_local("2026-12-02 09:15"));
	w.date = "2026-02-30";
	ck_assert_int_eq(visit_when_times(&w, &s, &e, &bad), FD_EINVAL);
	ck_assert_int_eq(bad, VISIT_WHEN_DATE);
}
END_TEST

/* Today 10:00-11:00 moved to 13:00 is 13:00-14:00, never a 22-hour visit. */
START_TEST(test_new_start_keeps_length)
{
	struct visit_input in = {fx_local("2026-12-01 10:00"), fx_local("2026-12-01 11:00"), NULL,
	                         NULL};
	struct visit_input ch = {0};
	struct visit v;
	int64_t id;

	ck_assert_int_eq(visit_add(db, &in, &id), 0);
	ch.start_at = fx_local("2026-12-01 13:00");
	ck_assert_int_eq(visit_edit(db, id, &ch), 0);
	ck_assert_int_eq(visit_get(db, id, &v), 0);
	ck_assert_int_eq(v.start_at, fx_local("2026-12-01 13:00"));
	ck_assert_int_eq(v.end_at, fx_local("2026-12-01 14:00"));
	visit_free(&v);
	/* a new end with it changes the length */
	ch.start_at = fx_local("2026-12-01 08:00");
	ch.end_at = fx_local("2026-12-01 12:00");
	ck_assert_int_eq(visit_edit(db, id, &ch), 0);
	ck_assert_int_eq(visit_get(db, id, &v), 0);
	ck_assert_int_eq(v.end_at - v.start_at, 4 * 3600);
	visit_free(&v);
	/* a move to another day keeps it too */
	ck_assert_int_eq(visit_move(db, id, fx_local("2026-12-04 15:30")), 0);
	ck_assert_int_eq(visit_get(db, id, &v), 0);
	ck_assert_int_eq(v.start_at, fx_local("2026-12-04 15:30"));
	ck_assert_int_eq(v.end_at, fx_local("2026-12-04 19:30"));
	visit_free(&v);
	/* a finished visit is not moved, and nothing changes */
	ck_assert_int_eq(visit_set_status(db, id, "no_show", "not home"), 0);
	ck_assert_int_eq(visit_move(db, id, fx_local("2026-12-05 09:00")), FD_ECONFLICT);
	ck_assert_int_eq(visit_get(db, id, &v), 0);
	ck_assert_int_eq(v.start_at, fx_local("2026-12-04 15:30"));
	visit_free(&v);
	ck_assert_int_eq(visit_move(db, 999, fx_local("2026-12-05 09:00")), FD_ENOTFOUND);
}
END_TEST

static int add_two_customers(struct db *d, void *arg)
{
	struct customer_input a = {.name = "In Tx"}, b = {.name = ""};
	int64_t id;
	int rc;

	(void)arg;
	if ((rc = customer_add(d, &a, &id)))
		return rc;
	/* a refused nested write leaves nothing of itself ... */
	ck_assert_int_eq(customer_add(d, &b, &id), FD_EINVAL);
	return 0;
}

static int fail_after_write(struct db *d, void *arg)
{
	struct customer_input a = {.name = "Rolled Back"};
	int64_t id;

	(void)arg;
	ck_assert_int_eq(customer_add(d, &a, &id), 0);
	return err_set(FD_ECONFLICT, "%s", "refused after a nested write");
}

START_TEST(test_db_write_nests)
{
	ck_assert_int_eq(db_write(db, add_two_customers, NULL), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM customer WHERE name = 'In Tx'"), 1);
	/* ... and the outer refusal rolls back what the nested ones wrote */
	ck_assert_int_eq(db_write(db, fail_after_write, NULL), FD_ECONFLICT);
	ck_assert_int_eq(count("SELECT count(*) FROM customer WHERE name = 'Rolled Back'"), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM customer"), 1);
}
END_TEST

START_TEST(test_booking_one_customer)
{
	int64_t ann = customer("Ann Lee", "1 Elm St");
	int64_t gut = service("Gutter clean", 8000, 60, "USD");
	int64_t win = service("Window wash", 4000, 30, "USD");
	int64_t cust[] = {ann}, svc[] = {gut, win};
	struct booking_input in = {0};
	struct booking_result res;
	struct service_input ch = {.price = 9900, .minutes = SERVICE_KEEP};
	struct visit v;

	in.start_at = fx_local("2026-12-02 10:00");
	in.end_at = fx_local("2026-12-02 11:30");
	in.customers = cust;
	in.ncustomers = 1;
	in.services = svc;
	in.nservices = 2;
	ck_assert_int_eq(booking_add(db, &in, &res), 0);
	ck_assert_int_eq(res.njobs, 1);
	ck_assert_int_eq(res.job_new[0], 1);
	ck_assert_int_eq(res.nitems, 2);
	ck_assert_int_eq(visit_get(db, res.appt_id, &v), 0);
	ck_assert_str_eq(v.location, "1 Elm St"); /* the customer's address */
	ck_assert_int_eq(v.est_minutes, 90);      /* the visit's length */
	visit_free(&v);
	ck_assert_int_eq(count("SELECT sum(amount) FROM line_item"), 12000);
	ck_assert_int_eq(count("SELECT count(*) FROM service_order WHERE title = "
	                       "'Gutter clean, Window wash' AND status = 'open'"),
	                 1);
	/* a later catalogue price never changes the booked line */
	ck_assert_int_eq(service_edit(db, gut, &ch), 0);
	ck_assert_int_eq(count("SELECT sum(amount) FROM line_item"), 12000);

	/* the next booking adds to the open job when asked */
	in.start_at = fx_local("2026-12-09 10:00");
	in.end_at = fx_local("2026-12-09 11:00");
	in.nservices = 1;
	in.use_open_job = 1;
	in.location = "Back gate";
	{
		struct booking_result r2;

		ck_assert_int_eq(booking_add(db, &in, &r2), 0);
		ck_assert_int_eq(r2.job_ids[0], res.job_ids[0]);
		ck_assert_int_eq(r2.job_new[0], 0);
	}
	ck_assert_int_eq(count("SELECT count(*) FROM service_order"), 1);
	ck_assert_int_eq(count("SELECT count(*) FROM line_item"), 3);
	ck_assert_int_eq(count("SELECT count(*) FROM appointment WHERE location = 'Back gate'"), 1);
}
END_TEST

START_TEST(test_booking_three_customers_one_visit)
{
	int64_t cust[3], svc[1], before;
	struct booking_input in = {0};
	struct booking_result res;

	cust[0] = customer("A One", "Block 4");
	cust[1] = customer("B Two", NULL);
	cust[2] = customer("C Three", NULL);
	svc[0] = service("Inspection", 2500, 20, "USD");
	in.start_at = fx_local("2026-12-03 10:00");
	in.end_at = fx_local("2026-12-03 11:40"); /* 100 minutes: 34 + 33 + 33 */
	in.customers = cust;
	in.ncustomers = 3;
	in.services = svc;
	in.nservices = 1;
	ck_assert_int_eq(booking_add(db, &in, &res), 0);
	ck_assert_int_eq(res.njobs, 3);
	ck_assert_int_eq(count("SELECT count(*) FROM appointment"), 1);
	ck_assert_int_eq(count("SELECT count(DISTINCT j.customer_id) FROM appointment_work w JOIN "
	                       "service_order j ON j.id = w.service_order_id"),
	                 3);
	ck_assert_int_eq(count("SELECT sum(est_minutes) FROM appointment_work"), 100);
	ck_assert_int_eq(count("SELECT max(est_minutes) - min(est_minutes) FROM appointment_work"),
	                 1);
	ck_assert_int_eq(count("SELECT count(*) FROM line_item"), 3);

	/* a refusal by any owner midway leaves nothing: the third customer
	 * does not exist, found only after the visit and two jobs are written */
	before = rows();
	cust[2] = 999;
	ck_assert_int_eq(booking_add(db, &in, &res), FD_ENOTFOUND);
	ck_assert_int_eq(rows(), before);
	ck_assert_int_eq(res.appt_id, 0);
	/* and so does a customer named twice, a retired service, two currencies */
	cust[2] = cust[0];
	ck_assert_int_eq(booking_add(db, &in, &res), FD_EINVAL);
	cust[2] = customer("D Four", NULL);
	ck_assert_int_eq(service_retire(db, svc[0]), 0);
	ck_assert_int_eq(booking_add(db, &in, &res), FD_ECONFLICT);
	{
		int64_t two[] = {service("Euro job", 100, 0, "EUR"),
		                 service("Dollar job", 100, 0, "USD")};

		in.services = two;
		in.nservices = 2;
		ck_assert_int_eq(booking_add(db, &in, &res), FD_ECONFLICT);
		ck_assert(strstr(err_msg(), "one currency") != NULL);
	}
	ck_assert_int_eq(rows(), before);
}
END_TEST

START_TEST(test_booking_names)
{
	int64_t ids[BOOKING_MAX_CUSTOMERS], sv[BOOKING_MAX_SERVICES], minutes;
	int64_t smith = customer("Smith, Ann", NULL), bo = customer("Bo Park", NULL);
	struct strbuf names = {0}, info = {0};
	size_t n;
	int64_t gut = service("Gutter clean", 8000, 60, "USD"),
	        wd = service("Wash, dry", 500, 10, "USD");

	/* a name with a comma is one customer; ';' separates */
	ck_assert_int_eq(booking_customers(db, "Smith, Ann", ids, &n, NULL), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(ids[0], smith);
	ck_assert_int_eq(booking_customers(db, " smith ; bo park ", ids, &n, &names), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(ids[0], smith);
	ck_assert_int_eq(ids[1], bo);
	ck_assert_str_eq(sb_cstr(&names), "Smith, Ann, Bo Park");
	ck_assert_int_eq(booking_customers(db, "nobody", ids, &n, NULL), FD_ENOTFOUND);
	ck_assert_int_eq(booking_customers(db, "bo; Bo Park", ids, &n, NULL), FD_EINVAL);
	ck_assert_int_eq(booking_customers(db, "", ids, &n, NULL), FD_EINVAL);
	/* services: a unique prefix, a number, a name holding a comma */
	ck_assert_int_eq(booking_services(db, "gut, 2", sv, &n, &info, &minutes), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(sv[0], gut);
	ck_assert_int_eq(sv[1], wd);
	ck_assert_int_eq(minutes, 70);
	ck_assert_int_eq(booking_services(db, "Wash, dry", sv, &n, NULL, NULL), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(sv[0], wd);
	ck_assert_int_eq(booking_services(db, "zz", sv, &n, NULL, NULL), FD_ENOTFOUND);
	ck_assert_int_eq(booking_services(db, "", sv, &n, NULL, NULL), 0);
	ck_assert_int_eq(n, 0);
	service("Gutter repair", 100, 0, "USD");
	ck_assert_int_eq(booking_services(db, "gutter", sv, &n, NULL, NULL), FD_ECONFLICT);
	ck_assert_int_eq(booking_services(db, "Gutter clean", sv, &n, NULL, NULL), 0);
	sb_free(&names);
	sb_free(&info);
}
END_TEST

/* A program that never wired the core (core_wire) cannot change a visit
 * that integrations follow: the move and the cancel are refused, saying why,
 * and change nothing; wired, the same move is made. */
START_TEST(test_unwired_core_changes_nothing)
{
	struct visit_input in = {fx_local("2026-12-02 10:00"), fx_local("2026-12-02 11:00"), NULL,
	                         NULL};
	int64_t id = 0;

	ck_assert_int_eq(visit_add(db, &in, &id), 0);
	announce_ready(0);
	ck_assert_int_eq(visit_move(db, id, fx_local("2026-12-03 10:00")), FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "core_wire was not called"));
	ck_assert_int_eq(visit_set_status(db, id, "cancelled", "rain"), FD_EINVAL);
	announce_ready(1);
	ck_assert_int_eq(count("SELECT start_at FROM appointment WHERE status = 'scheduled'"),
	                 in.start_at);
	ck_assert_int_eq(visit_move(db, id, fx_local("2026-12-03 10:00")), 0);
	ck_assert_int_eq(count("SELECT start_at FROM appointment WHERE status = 'scheduled'"),
	                 fx_local("2026-12-03 10:00"));
}
END_TEST

/* A booking request's states (booking-chan.h): every word round-trips, a
 * word of no state maps to BOOKING_REQUEST_STATES, its moves are exactly
 * the schema's rows for booking_request, and states_agree refuses every
 * copy of them with one move left out. */
START_TEST(test_request_states)
{
	const struct states *m = &booking_request_states;
	int s;

	for (s = 0; s < BOOKING_REQUEST_STATES; s++)
		ck_assert_int_eq(booking_request_state_of(
		                     booking_request_state_word((enum booking_request_state)s)),
		                 s);
	ck_assert_int_eq(booking_request_state_of("bogus"), BOOKING_REQUEST_STATES);
	ck_assert_int_eq(booking_request_state_of(NULL), BOOKING_REQUEST_STATES);
	ck_assert_str_eq(booking_request_state_word(BOOKING_REQUEST_STATES), "");
	ck_assert_uint_eq(fx_states_hold(db, m), 6);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("booking");
	TCase *tc = tcase_create("booking");
	SRunner *sr;
	int failed;

	fx_env();
	clock_set_zone(NULL);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_parse_length);
	tcase_add_test(tc, test_when_times);
	tcase_add_test(tc, test_new_start_keeps_length);
	tcase_add_test(tc, test_db_write_nests);
	tcase_add_test(tc, test_booking_one_customer);
	tcase_add_test(tc, test_booking_three_customers_one_visit);
	tcase_add_test(tc, test_booking_names);
	tcase_add_test(tc, test_unwired_core_changes_nothing);
	tcase_add_test(tc, test_request_states);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
