/*
 * check_catalogue.c - unit tests of service.c and contact.c, the core API
 * the screen uses: the catalogue's rules (names, kinds, prices, retiring),
 * billing a service on a job and the snapshot rule (a catalogue change
 * never touches a line item or an issued invoice), the contact log's order
 * and corrections, and that every refused request changes nothing.
 */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "contact.h"
#include "customer.h"
#include "db.h"
#include "demo.h"
#include "err.h"
#include "fixture.h"
#include "idem.h"
#include "invoice.h"
#include "item.h"
#include "job.h"
#include "money.h"
#include "service.h"

static struct fx F;
static struct db *db;

static void setup(void)
{
	fx_open(&F, "catalogue");
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

static int64_t add_customer(const char *name)
{
	struct customer_input in = {name, NULL, NULL, NULL, NULL};
	int64_t id;

	ck_assert_msg(customer_add(db, &in, &id) == 0, "%s", err_msg());
	return id;
}

static int64_t add_service(const char *name, const char *kind, int64_t price)
{
	struct service_input in = {name, kind, NULL, price, 30};
	int64_t id;

	ck_assert_msg(service_add(db, &in, &id) == 0, "%s", err_msg());
	return id;
}

/* A service_list callback: appends "name," (or "name(retired),"). */
static int names_cb(const struct service *s, void *arg)
{
	char *buf = arg;

	strcat(buf, s->name);
	if (!s->active)
		strcat(buf, "(retired)");
	strcat(buf, ",");
	return 0;
}

START_TEST(test_service_add_edit_retire_list)
{
	char names[256] = "";
	struct service s;
	struct service_input ed = {NULL, NULL, NULL, SERVICE_KEEP, SERVICE_KEEP};
	int64_t wash = add_service("Wash", NULL, 4500), travel = add_service("travel", "fee", 2550);

	ck_assert_int_eq(service_get(db, travel, &s), 0);
	ck_assert_str_eq(s.kind, "FEE");
	ck_assert_str_eq(s.currency, "USD");
	ck_assert_int_eq(s.price, 2550);
	ck_assert_int_eq(s.minutes, 30);
	ck_assert_int_eq(s.active, 1);
	service_free(&s);
	ck_assert_int_eq(service_get(db, wash, &s), 0);
	ck_assert_str_eq(s.kind, "SERVICE"); /* the default kind */
	service_free(&s);

	ed.price = 5000;
	ck_assert_int_eq(service_edit(db, wash, &ed), 0);
	ck_assert_int_eq(count("SELECT price FROM service WHERE id = 1"), 5000);
	ck_assert_int_eq(count("SELECT count(*) FROM service_his WHERE id = 1"), 2);

	ck_assert_int_eq(service_retire(db, travel), 0);
	ck_assert_int_eq(service_list(db, 0, names_cb, names), 0);
	ck_assert_str_eq(names, "Wash,");
	names[0] = '\0';
	ck_assert_int_eq(service_list(db, 1, names_cb, names), 0);
	ck_assert_str_eq(names, "travel(retired),Wash,");
	ck_assert_int_eq(service_retire(db, travel), FD_ECONFLICT);
	ck_assert_int_eq(service_edit(db, travel, &ed), FD_ECONFLICT);
	/* the name of a retired service is free again */
	add_service("Travel", "FEE", 3000);
	ck_assert_int_eq(service_get(db, 99, &s), FD_ENOTFOUND);
}
END_TEST

START_TEST(test_service_refusals_change_nothing)
{
	struct service_input in = {"Wash", NULL, NULL, 100, 0};
	struct service_input ed = {NULL, NULL, NULL, SERVICE_KEEP, SERVICE_KEEP};
	int64_t id, rows, his;

	add_service("Wash", NULL, 100);
	add_service("Polish", NULL, 100);
	rows = count("SELECT count(*) FROM service");
	his = count("SELECT count(*) FROM service_his");

	in.name = "WASH";
	ck_assert_int_eq(service_add(db, &in, &id), FD_ECONFLICT);
	ck_assert_ptr_nonnull(strstr(err_msg(), "service 1"));
	in.name = "";
	ck_assert_int_eq(service_add(db, &in, &id), FD_EINVAL);
	in.name = "Odd";
	in.kind = "WIDGET";
	ck_assert_int_eq(service_add(db, &in, &id), FD_EINVAL);
	in.kind = NULL;
	in.price = -1;
	ck_assert_int_eq(service_add(db, &in, &id), FD_EINVAL);
	in.price = MONEY_MAX + 1;
	ck_assert_int_eq(service_add(db, &in, &id), FD_EINVAL);
	in.price = SERVICE_KEEP;
	ck_assert_int_eq(service_add(db, &in, &id), FD_EINVAL); /* no price */
	in.price = 1;
	in.minutes = -1;
	ck_assert_int_eq(service_add(db, &in, &id), FD_EINVAL);
	in.minutes = SERVICE_MINUTES_MAX + 1;
	ck_assert_int_eq(service_add(db, &in, &id), FD_EINVAL);
	in.minutes = 0;
	in.currency = "XYZ";
	ck_assert_int_eq(service_add(db, &in, &id), FD_EINVAL);
	in.currency = NULL;
	in.name = "Card 4111111111111111";
	ck_assert_int_eq(service_add(db, &in, &id), FD_EINVAL);

	ck_assert_int_eq(service_edit(db, 1, &ed), FD_EINVAL); /* nothing given */
	ed.name = "polish";
	ck_assert_int_eq(service_edit(db, 1, &ed), FD_ECONFLICT);
	ed.name = NULL;
	ed.price = MONEY_MAX + 1;
	ck_assert_int_eq(service_edit(db, 1, &ed), FD_EINVAL);
	ed.price = -1;
	ck_assert_int_eq(service_edit(db, 1, &ed), FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "negative"));
	ed.price = SERVICE_KEEP;
	ed.minutes = -5;
	ck_assert_int_eq(service_edit(db, 1, &ed), FD_EINVAL);
	ed.minutes = SERVICE_KEEP;
	ed.currency = "EUR";
	ck_assert_int_eq(service_edit(db, 1, &ed), FD_EINVAL);

	ck_assert_int_eq(count("SELECT count(*) FROM service"), rows);
	ck_assert_int_eq(count("SELECT count(*) FROM service_his"), his);
	ck_assert_int_eq(count("SELECT price FROM service WHERE id = 1"), 100);
	/* at the limit is fine */
	in.name = "Everything";
	in.price = MONEY_MAX;
	ck_assert_int_eq(service_add(db, &in, &id), 0);
}
END_TEST

START_TEST(test_service_to_job_is_a_snapshot)
{
	int64_t cust = add_customer("Ada"), wash = add_service("Wash", NULL, 4500),
	        loyal = add_service("Loyalty", "DISCOUNT", 500), job, yen_job, item, item2, item3;
	struct job_input ji = {cust, "Detail", "USD", NULL};
	struct job_input jy = {cust, "Tokyo", "JPY", NULL};
	struct service_input ed = {"Wash deluxe", "FEE", NULL, 9900, SERVICE_KEEP};
	struct invoice_input in = {0};
	struct idem_result res = {0};
	struct line_item li;
	int64_t lines_sum, total;

	ck_assert_int_eq(job_add(db, &ji, &job), 0);
	ck_assert_int_eq(job_add(db, &jy, &yen_job), 0);
	ck_assert_msg(service_to_job(db, wash, job, 2000, &item) == 0, "%s", err_msg());
	ck_assert_int_eq(service_to_job(db, loyal, job, 1000, &item2), 0);
	ck_assert_int_eq(item_get(db, item, &li), 0);
	ck_assert_str_eq(li.description, "Wash");
	ck_assert_str_eq(li.kind, "SERVICE");
	ck_assert_int_eq(li.unit_price, 4500);
	ck_assert_int_eq(li.amount, 9000);
	item_free(&li);
	ck_assert_int_eq(count("SELECT amount FROM line_item WHERE id = 2"), -500);

	in.jobs = &job;
	in.n_jobs = 1;
	in.terms_days = 30;
	ck_assert_msg(invoice_issue(db, &in, NULL, &res) == 0, "%s", err_msg());
	idem_result_free(&res);
	lines_sum = count("SELECT sum(amount) FROM invoice_line");
	total = count("SELECT total FROM invoice");
	ck_assert_int_eq(total, 8500);

	/* the catalogue changes; what was billed does not */
	ck_assert_int_eq(service_edit(db, wash, &ed), 0);
	ck_assert_int_eq(service_retire(db, loyal), 0);
	ck_assert_int_eq(item_get(db, item, &li), 0);
	ck_assert_str_eq(li.description, "Wash");
	ck_assert_str_eq(li.kind, "SERVICE");
	ck_assert_int_eq(li.unit_price, 4500);
	ck_assert_int_eq(li.amount, 9000);
	item_free(&li);
	ck_assert_int_eq(count("SELECT amount FROM line_item WHERE id = 2"), -500);
	ck_assert_int_eq(count("SELECT sum(amount) FROM invoice_line"), lines_sum);
	ck_assert_int_eq(count("SELECT count(*) FROM invoice_line WHERE description = 'Wash'"), 1);
	ck_assert_int_eq(count("SELECT total FROM invoice"), total);

	/* billed again, the new line has the new name, kind and price */
	ck_assert_int_eq(service_to_job(db, wash, job, 1000, &item3), 0);
	ck_assert_int_eq(item_get(db, item3, &li), 0);
	ck_assert_str_eq(li.description, "Wash deluxe");
	ck_assert_str_eq(li.kind, "FEE");
	ck_assert_int_eq(li.unit_price, 9900);
	item_free(&li);

	/* refusals: retired, other currency, no job, no service, bad quantity */
	ck_assert_int_eq(service_to_job(db, loyal, job, 1000, &item3), FD_ECONFLICT);
	ck_assert_int_eq(service_to_job(db, wash, yen_job, 1000, &item3), FD_ECONFLICT);
	ck_assert_int_eq(service_to_job(db, wash, 99, 1000, &item3), FD_ENOTFOUND);
	ck_assert_int_eq(service_to_job(db, 99, job, 1000, &item3), FD_ENOTFOUND);
	ck_assert_int_eq(service_to_job(db, wash, job, 0, &item3), FD_EINVAL);
	ck_assert_int_eq(count("SELECT count(*) FROM line_item"), 3);
}
END_TEST

/* A contact_list callback: appends "id," and checks the order. */
struct order {
	char ids[128];
	int64_t last_at;
};

static int order_cb(const struct contact *ct, void *arg)
{
	struct order *o = arg;
	char buf[32];

	ck_assert_msg(o->last_at == 0 || ct->at <= o->last_at, "not newest first");
	o->last_at = ct->at;
	snprintf(buf, sizeof buf, "%lld%s,", (long long)ct->id, ct->corrected_by ? "*" : "");
	strcat(o->ids, buf);
	return 0;
}

START_TEST(test_contact_log)
{
	int64_t ada = add_customer("Ada"), bo = add_customer("Bo"), id, n;
	struct contact_input in = {ada, 0, "Phone", "IN", "Asked for a quote", 0};
	struct order o = {"", 0};
	struct contact ct;

	ck_assert_msg(contact_add(db, &in, &id) == 0, "%s", err_msg());
	ck_assert_int_eq(contact_get(db, id, &ct), 0);
	ck_assert_str_eq(ct.channel, "phone");
	ck_assert_str_eq(ct.direction, "in");
	ck_assert_int_eq(ct.at, clock_now());
	ck_assert_str_eq(ct.operator_id, db_operator());
	ck_assert_int_eq(ct.corrects_id, 0);
	contact_free(&ct);
	in.at = clock_now() - 86400; /* yesterday: listed after today's */
	in.channel = "counter";
	ck_assert_int_eq(contact_add(db, &in, &id), 0);
	in.at = 0;
	in.corrects_id = 1;
	in.summary = "Asked for a quote for two cars";
	ck_assert_int_eq(contact_add(db, &in, &id), 0);
	ck_assert_int_eq(contact_list(db, ada, order_cb, &o), 0);
	ck_assert_str_eq(o.ids, "3,1*,2,");
	ck_assert_int_eq(contact_count(db, ada, &n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(contact_count(db, bo, &n), 0);
	ck_assert_int_eq(n, 0);

	/* refusals change nothing */
	in.customer_id = bo; /* correcting Ada's row */
	ck_assert_int_eq(contact_add(db, &in, &id), FD_EINVAL);
	in.customer_id = ada;
	in.corrects_id = 99;
	ck_assert_int_eq(contact_add(db, &in, &id), FD_ENOTFOUND);
	in.corrects_id = 0;
	in.customer_id = 99;
	ck_assert_int_eq(contact_add(db, &in, &id), FD_ENOTFOUND);
	in.customer_id = ada;
	in.channel = "fax";
	ck_assert_int_eq(contact_add(db, &in, &id), FD_EINVAL);
	in.channel = "sms";
	in.direction = "up";
	ck_assert_int_eq(contact_add(db, &in, &id), FD_EINVAL);
	in.direction = "out";
	in.summary = "card 4111 1111 1111 1111";
	ck_assert_int_eq(contact_add(db, &in, &id), FD_EINVAL);
	in.summary = "";
	ck_assert_int_eq(contact_add(db, &in, &id), FD_EINVAL);
	in.summary = "later";
	in.at = clock_now() + 3600;
	ck_assert_int_eq(contact_add(db, &in, &id), FD_EINVAL);
	ck_assert_int_eq(count("SELECT count(*) FROM contact_log"), 3);
	ck_assert_int_eq(contact_list(db, 99, order_cb, &o), FD_ENOTFOUND);

	/* a customer with a log stays; one without goes */
	ck_assert_int_eq(customer_delete(db, ada), FD_ECONFLICT);
	ck_assert_int_eq(customer_delete(db, bo), 0);

	/* the schema: rows are never changed or deleted */
	ck_assert_int_ne(db_exec(db, "UPDATE contact_log SET summary = 'x'"), 0);
	ck_assert_int_ne(db_exec(db, "DELETE FROM contact_log"), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM contact_log WHERE summary = 'x'"), 0);
	ck_assert_int_eq(count("SELECT count(*) FROM contact_log"), 3);
}
END_TEST

/* The demo books from a catalogue (issue 29: "book from the catalogue"
 * could not be tried on it): its services are offered with prices and
 * minutes, every line item of its jobs is one of them at its price, and a
 * visit of one job with one service lasts as long as that service. */
START_TEST(test_demo_books_from_its_catalogue)
{
	int64_t made = 0;

	ck_assert_msg(demo_create(db, clock_now(), &made) == 0, "%s", err_msg());
	ck_assert_int_gt(made, 50);
	ck_assert_int_eq(count("SELECT count(*) FROM service WHERE active = 1"), 7);
	ck_assert_int_eq(count("SELECT count(*) FROM service WHERE price <= 0"), 0);
	ck_assert_int_eq(
	    count("SELECT count(*) FROM service WHERE kind = 'SERVICE' AND minutes <= 0"), 0);
	ck_assert_int_gt(count("SELECT count(*) FROM line_item"), 50);
	ck_assert_int_eq(count("SELECT count(*) FROM line_item l LEFT JOIN service s ON s.name = "
	                       "l.description AND s.kind = l.kind WHERE s.id IS NULL OR s.price <> "
	                       "l.unit_price"),
	                 0);
	ck_assert_int_eq(
	    count(
	        "SELECT count(*) FROM appointment a JOIN appointment_work w ON w.appointment_id = "
	        "a.id JOIN line_item l ON l.service_order_id = w.service_order_id JOIN service s "
	        "ON s.name = l.description AND s.kind = 'SERVICE' WHERE (a.end_at - a.start_at) / "
	        "60 <> s.minutes AND a.id NOT IN (SELECT appointment_id FROM appointment_work "
	        "GROUP BY appointment_id HAVING count(*) > 1) AND w.service_order_id NOT IN "
	        "(SELECT service_order_id FROM appointment_work GROUP BY service_order_id HAVING "
	        "count(*) > 1)"),
	    0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("catalogue");
	TCase *tc = tcase_create("catalogue");
	SRunner *sr;
	int failed;

	fx_env();
	clock_set_zone(NULL);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_service_add_edit_retire_list);
	tcase_add_test(tc, test_service_refusals_change_nothing);
	tcase_add_test(tc, test_service_to_job_is_a_snapshot);
	tcase_add_test(tc, test_contact_log);
	tcase_add_test(tc, test_demo_books_from_its_catalogue);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
