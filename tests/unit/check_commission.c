/*
 * check_commission.c - unit tests of commission.c: the rounding of a
 * percentage commission (half away from zero, as money_line_amount), the
 * credit rule (commission x taken / total, capped at the total; a credit
 * note and a refund of the same money not counted twice), parsing, the
 * schema's one-of-two CHECK and technician trigger, and a credit note
 * reducing the commission in its own period, never in the earlier one.
 */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capacity.h"
#include "clock.h"
#include "commission.h"
#include "customer.h"
#include "db.h"
#include "err.h"
#include "fixture.h"
#include "idem.h"
#include "invoice.h"

static struct fx F;
static struct db *db;

static void setup(void)
{
	fx_open(&F, "commission");
	db = F.db;
}

static void teardown(void)
{
	fx_close(&F);
	db = NULL;
}

START_TEST(test_rounding)
{
	int64_t v;

	ck_assert_int_eq(commission_amount(10004, -1, 1250, &v), 0); /* 1250.5 */
	ck_assert_int_eq(v, 1251);
	ck_assert_int_eq(commission_amount(10003, -1, 1250, &v), 0); /* 1250.375 */
	ck_assert_int_eq(v, 1250);
	ck_assert_int_eq(commission_amount(-10004, -1, 1250, &v), 0); /* a discount line */
	ck_assert_int_eq(v, -1251);
	ck_assert_int_eq(commission_amount(12345, 500, -1, &v), 0); /* fixed wins */
	ck_assert_int_eq(v, 500);
	ck_assert_int_eq(commission_amount(12345, -1, -1, &v), 0);
	ck_assert_int_eq(v, 0);
	/* the largest line at 100% does not overflow */
	ck_assert_int_eq(commission_amount(INT64_C(100000000000000), -1, 10000, &v), 0);
	ck_assert_int_eq(v, INT64_C(100000000000000));
}
END_TEST

START_TEST(test_credit_rule)
{
	int64_t v;

	ck_assert_int_eq(commission_taken(2000, 7501, 30004, &v), 0); /* 500.07 */
	ck_assert_int_eq(v, 500);
	ck_assert_int_eq(commission_taken(1251, 7501, 30004, &v), 0); /* 312.75 */
	ck_assert_int_eq(v, 313);
	ck_assert_int_eq(commission_taken(1000, 1, 2, &v), 0); /* half */
	ck_assert_int_eq(v, 500);
	ck_assert_int_eq(commission_taken(1000, 50000, 20000, &v), 0); /* capped */
	ck_assert_int_eq(v, 1000);
	ck_assert_int_eq(commission_taken(1000, 0, 20000, &v), 0);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(commission_taken(1000, 10, 0, &v), 0); /* an empty invoice */
	ck_assert_int_eq(v, 0);
}
END_TEST

START_TEST(test_parse)
{
	int64_t f, bp;

	ck_assert_int_eq(commission_parse("12.50", "USD", &f, &bp), 0);
	ck_assert_int_eq(f, 1250);
	ck_assert_int_eq(bp, -1);
	ck_assert_int_eq(commission_parse("12.5%", "USD", &f, &bp), 0);
	ck_assert_int_eq(f, -1);
	ck_assert_int_eq(bp, 1250);
	ck_assert_int_eq(commission_parse("100%", "USD", &f, &bp), 0);
	ck_assert_int_eq(bp, 10000);
	ck_assert_int_eq(commission_parse("100.01%", "USD", &f, &bp), FD_EINVAL);
	ck_assert_int_eq(commission_parse("1.125%", "USD", &f, &bp), FD_EINVAL);
	ck_assert_int_eq(commission_parse("-1%", "USD", &f, &bp), FD_EINVAL);
	ck_assert_int_eq(commission_parse("%", "USD", &f, &bp), FD_EINVAL);
	ck_assert_int_eq(commission_parse("-5", "USD", &f, &bp), FD_EINVAL);
	ck_assert_int_eq(commission_parse("1.5", "JPY", &f, &bp), FD_EINVAL);
	ck_assert_int_eq(commission_parse("", "USD", &f, &bp), FD_EINVAL);
}
END_TEST

struct sum {
	int64_t commission, line_amount;
	int credits;
};

static int sum_row(const struct commission_row *r, void *arg)
{
	struct sum *s = arg;

	s->commission += r->commission;
	s->line_amount += r->line_amount;
	s->credits += !strcmp(r->kind, "credit");
	return 0;
}

static struct sum report(const char *from, const char *to)
{
	struct sum s = {0, 0, 0};
	int64_t f, t;

	ck_assert_int_eq(clock_parse_local(from, &f), 0);
	ck_assert_int_eq(clock_parse_local(to, &t), 0);
	ck_assert_int_eq(commission_report(db, f, t, sum_row, NULL, &s), 0);
	return s;
}

START_TEST(test_credit_in_its_period)
{
	struct customer_input ci = {.name = "Lee", .address = "1 Main St"};
	struct resource_input ri = {.name = "Sam", .kind = "technician", .active = 1};
	struct resource_input vi = {.name = "Van", .kind = "van", .active = 1};
	struct commission_input in = {-1, 1000, 0, -1};
	struct idem_result res = {0};
	struct sum nov, dec;
	int64_t cust, sam, van, inv, item;

	ck_assert_int_eq(customer_add(db, &ci, &cust), 0);
	ck_assert_int_eq(capacity_resource_add(db, &ri, &sam), 0);
	ck_assert_int_eq(capacity_resource_add(db, &vi, &van), 0);
	setenv("FRONTDESK_NOW", "2026-11-10T09:00", 1);
	inv = fx_invoice(db, cust, 30000, 30);
	item = fx_one(db, "SELECT max(id) FROM line_item");
	in.tech_id = van;
	ck_assert_int_eq(commission_set(db, item, &in), FD_EINVAL); /* not a technician */
	ck_assert_int_eq(
	    fx_one(db, "SELECT count(*) FROM line_item WHERE commission_bp IS NOT NULL"), 0);
	in.tech_id = sam;
	ck_assert_int_eq(commission_set(db, item, &in), 0);
	/* the schema refuses both kinds at once, whoever writes */
	ck_assert_int_ne(db_exec(db, "UPDATE line_item SET commission_fixed = 5"), 0);

	nov = report("2026-11-01", "2026-12-01");
	ck_assert_int_eq(nov.commission, 3000);
	ck_assert_int_eq(nov.line_amount, 30000);

	setenv("FRONTDESK_NOW", "2026-12-03T09:00", 1);
	ck_assert_int_eq(invoice_credit(db, inv, 10001, "goodwill", NULL, &res), 0);
	idem_result_free(&res);
	setenv("FRONTDESK_NOW", "2026-12-01T09:00", 1);

	ck_assert_int_eq(report("2026-11-01", "2026-12-01").commission, 3000); /* unchanged */
	dec = report("2026-12-01", "2027-01-01");
	ck_assert_int_eq(dec.credits, 1);
	ck_assert_int_eq(dec.line_amount, 0);
	ck_assert_int_eq(dec.commission, -1000); /* 3000 x 100.01 / 300.00 = 1000.1 */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("commission");
	TCase *tc = tcase_create("commission");
	SRunner *sr;
	int failed;

	fx_env();
	clock_set_zone(NULL);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_rounding);
	tcase_add_test(tc, test_credit_rule);
	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_credit_in_its_period);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
