/*
 * check_money.c - unit tests of money.c: parsing, formatting, checked
 * arithmetic and the line amount rounding rule, at the edges.
 */
#include <config.h>

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "message-text.h"
#include "money.h"

static const struct currency *usd, *jpy, *kwd;

static void setup(void)
{
	usd = currency_find("USD");
	jpy = currency_find("jpy");
	kwd = currency_find("KWD");
}

static int64_t parse_ok(const char *s, const struct currency *c)
{
	int64_t v = 12345;

	ck_assert_msg(money_parse(s, c, &v) == 0, "'%s' should parse: %s", s, err_msg());
	return v;
}

static void parse_bad(const char *s, const struct currency *c, const char *why)
{
	int64_t v = 777;

	ck_assert_msg(money_parse(s, c, &v) == FD_EINVAL, "'%s' should be refused",
	              s ? s : "(null)");
	ck_assert_int_eq(v, 777);
	ck_assert_msg(strstr(err_msg(), why) != NULL, "'%s': reason '%s' lacks '%s'",
	              s ? s : "(null)", err_msg(), why);
}

START_TEST(test_currencies)
{
	const char *codes[] = {"USD", "EUR", "GBP", "CNY", "JPY", "TWD", "HKD"};
	const int exps[] = {2, 2, 2, 2, 0, 2, 2};
	size_t i;

	for (i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		const struct currency *c = currency_find(codes[i]);

		ck_assert_ptr_nonnull(c);
		ck_assert_int_eq(c->exponent, exps[i]);
	}
	ck_assert_ptr_null(currency_find("XYZ"));
	ck_assert_ptr_null(currency_find(""));
	ck_assert_ptr_null(currency_find(NULL));
}
END_TEST

START_TEST(test_parse_good)
{
	ck_assert_int_eq(parse_ok("0", usd), 0);
	ck_assert_int_eq(parse_ok("12", usd), 1200);
	ck_assert_int_eq(parse_ok("12.3", usd), 1230);
	ck_assert_int_eq(parse_ok("12.34", usd), 1234);
	ck_assert_int_eq(parse_ok("-12.34", usd), -1234);
	ck_assert_int_eq(parse_ok("1,234.50", usd), 123450);
	ck_assert_int_eq(parse_ok("12,345,678", usd), 1234567800);
	ck_assert_int_eq(parse_ok("-0.00", usd), 0);
	ck_assert_int_eq(parse_ok("1500", jpy), 1500);
	ck_assert_int_eq(parse_ok("1,500", jpy), 1500);
	ck_assert_int_eq(parse_ok("1.234", kwd), 1234);
	ck_assert_int_eq(parse_ok("007", usd), 700);
}
END_TEST

START_TEST(test_parse_limits)
{
	/* INT64_MAX minor units = 92233720368547758.07 USD */
	ck_assert(parse_ok("92233720368547758.07", usd) == INT64_MAX);
	ck_assert(parse_ok("-92233720368547758.08", usd) == INT64_MIN);
	ck_assert(parse_ok("9223372036854775807", jpy) == INT64_MAX);
	ck_assert(parse_ok("-9223372036854775808", jpy) == INT64_MIN);
	parse_bad("92233720368547758.08", usd, "too large");
	parse_bad("-92233720368547758.09", usd, "too large");
	parse_bad("9223372036854775808", jpy, "too large");
	parse_bad("99999999999999999999999999", usd, "too large");
}
END_TEST

START_TEST(test_parse_bad)
{
	parse_bad("1e3", usd, "exponent");
	parse_bad("12.345", usd, "at most 2 decimals");
	parse_bad("1.5", jpy, "no decimal part");
	parse_bad("", usd, "empty");
	parse_bad(NULL, usd, "empty");
	parse_bad(" ", usd, "blank");
	parse_bad(" 12", usd, "blank");
	parse_bad("12 ", usd, "blank");
	parse_bad("1 000", usd, "blank");
	parse_bad("--1", usd, "more than one sign");
	parse_bad("-+1", usd, "more than one sign");
	parse_bad("+1", usd, "must start");
	parse_bad("NaN", usd, "must start");
	parse_bad("inf", usd, "must start");
	parse_bad("12abc", usd, "unexpected text");
	parse_bad("12.", usd, "digit must follow");
	parse_bad(".5", usd, "must start");
	parse_bad("$12", usd, "must start");
	parse_bad("0x10", usd, "unexpected text");
	parse_bad("12.3.4", usd, "unexpected text");
	parse_bad("12,34", usd, "grouping");
	parse_bad("1,2345", usd, "grouping");
	parse_bad("1234,567", usd, "grouping");
	parse_bad("1,", usd, "grouping");
	parse_bad("1,,234", usd, "grouping");
	parse_bad("12.34,5", usd, "unexpected text");
	parse_bad("1", NULL, "unknown currency");
}
END_TEST

static void fmt_is(int64_t v, const struct currency *c, int grouping, const char *want)
{
	char buf[MONEY_BUFSZ];

	ck_assert_int_eq(money_format(v, c, grouping, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, want);
}

START_TEST(test_format)
{
	fmt_is(0, usd, 1, "0.00");
	fmt_is(5, usd, 1, "0.05");
	fmt_is(-5, usd, 1, "-0.05");
	fmt_is(123450, usd, 1, "1,234.50");
	fmt_is(123450, usd, 0, "1234.50");
	fmt_is(100000, usd, 1, "1,000.00");
	fmt_is(99999, usd, 1, "999.99");
	fmt_is(1500, jpy, 1, "1,500");
	fmt_is(-1234567, jpy, 1, "-1,234,567");
	fmt_is(INT64_MAX, usd, 1, "92,233,720,368,547,758.07");
	fmt_is(INT64_MIN, usd, 1, "-92,233,720,368,547,758.08");
	fmt_is(INT64_MIN, jpy, 0, "-9223372036854775808");
}
END_TEST

/* A message's amount for its reader: the sign the CLDR gives the currency
 * in that language, before the grouped digits; the code after them for a
 * currency with no sign here. */
static void amount_is(const char *lang, int64_t v, const char *code, const char *want)
{
	char buf[64];

	message_text_amount(lang, v, code, buf, sizeof buf);
	ck_assert_str_eq(buf, want);
}

START_TEST(test_message_amount)
{
	amount_is("en", 123450, "USD", "$1,234.50");
	amount_is("zh_CN", 123450, "USD", "US$1,234.50");
	amount_is("zh_TW", 123450, "USD", "US$1,234.50");
	amount_is("zh_CN", 8000, "CNY", "¥80.00");
	amount_is("en", 8000, "CNY", "CN¥80.00");
	amount_is("zh_TW", 120000, "TWD", "$1,200.00");
	amount_is("en", 120000, "TWD", "NT$1,200.00");
	amount_is("zh_TW", 1500, "JPY", "¥1,500");
	amount_is("zh_CN", 1500, "JPY", "JP¥1,500");
	amount_is("en", -500, "EUR", "-€5.00");
	amount_is("en", 123450, "CHF", "1,234.50 CHF");
	amount_is("fr", 123450, "GBP", "£1,234.50"); /* no templates in French: English */
}
END_TEST

START_TEST(test_format_small_buffer)
{
	char buf[4];

	ck_assert_int_eq(money_format(123450, usd, 1, buf, sizeof buf), FD_EINVAL);
}
END_TEST

START_TEST(test_round_trip)
{
	const int64_t vals[] = {
	    0,         1,          -1,        99,        100,           101,
	    123456789, -987654321, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1};
	size_t i;
	int g;

	for (i = 0; i < sizeof vals / sizeof vals[0]; i++)
		for (g = 0; g < 2; g++) {
			char buf[MONEY_BUFSZ];
			int64_t back;

			ck_assert_int_eq(money_format(vals[i], usd, g, buf, sizeof buf), 0);
			ck_assert_int_eq(money_parse(buf, usd, &back), 0);
			ck_assert(back == vals[i]);
		}
}
END_TEST

START_TEST(test_checked_arith)
{
	int64_t r = 42;

	ck_assert_int_eq(money_add(1, 2, &r), 0);
	ck_assert_int_eq(r, 3);
	ck_assert_int_eq(money_add(INT64_MAX, 1, &r), FD_EINVAL);
	ck_assert_int_eq(r, 3);
	ck_assert_int_eq(money_add(INT64_MIN, -1, &r), FD_EINVAL);
	ck_assert_int_eq(money_sub(INT64_MIN, 1, &r), FD_EINVAL);
	ck_assert_int_eq(money_sub(0, INT64_MIN, &r), FD_EINVAL);
	ck_assert_int_eq(money_sub(10, 20, &r), 0);
	ck_assert_int_eq(r, -10);
	ck_assert_int_eq(money_mul(INT64_MAX / 2 + 1, 2, &r), FD_EINVAL);
	ck_assert_int_eq(money_mul(-1, INT64_MIN, &r), FD_EINVAL);
	ck_assert_int_eq(money_mul(3, -7, &r), 0);
	ck_assert_int_eq(r, -21);
}
END_TEST

START_TEST(test_line_amount_rounding)
{
	int64_t r;

	/* 2 x 12.50 = 25.00 */
	ck_assert_int_eq(money_line_amount(2000, 1250, &r), 0);
	ck_assert_int_eq(r, 2500);
	/* 1.5 x 0.03 = 0.045 -> 0.05 (half away from zero) */
	ck_assert_int_eq(money_line_amount(1500, 3, &r), 0);
	ck_assert_int_eq(r, 5);
	/* 0.001 x 4.99 = 0.00499 -> 0.00 */
	ck_assert_int_eq(money_line_amount(1, 499, &r), 0);
	ck_assert_int_eq(r, 0);
	/* 0.001 x 5.00 = 0.005 -> 0.01 */
	ck_assert_int_eq(money_line_amount(1, 500, &r), 0);
	ck_assert_int_eq(r, 1);
	/* negative price (a credit) rounds away from zero too */
	ck_assert_int_eq(money_line_amount(1500, -3, &r), 0);
	ck_assert_int_eq(r, -5);
	/* huge quantity x huge price overflows int64 and is refused */
	ck_assert_int_eq(money_line_amount(1000000000, INT64_MAX, &r), FD_EINVAL);
	/* exact at the top: 1 x INT64_MAX */
	ck_assert_int_eq(money_line_amount(1000, INT64_MAX, &r), 0);
	ck_assert(r == INT64_MAX);
}
END_TEST

START_TEST(test_qty)
{
	int64_t q;
	char buf[32];

	ck_assert_int_eq(qty_parse("2", &q), 0);
	ck_assert_int_eq(q, 2000);
	ck_assert_int_eq(qty_parse("1.5", &q), 0);
	ck_assert_int_eq(q, 1500);
	ck_assert_int_eq(qty_parse("0.125", &q), 0);
	ck_assert_int_eq(q, 125);
	ck_assert_int_eq(qty_parse("0", &q), FD_EINVAL);
	ck_assert_int_eq(qty_parse("-1", &q), FD_EINVAL);
	ck_assert_int_eq(qty_parse("1.0001", &q), FD_EINVAL);
	ck_assert_int_eq(qty_parse("1,000", &q), FD_EINVAL);
	ck_assert_int_eq(qty_parse("1000001", &q), FD_EINVAL);
	qty_format(1500, buf, sizeof buf);
	ck_assert_str_eq(buf, "1.5");
	qty_format(2000, buf, sizeof buf);
	ck_assert_str_eq(buf, "2");
	qty_format(125, buf, sizeof buf);
	ck_assert_str_eq(buf, "0.125");
	qty_format(1250, buf, sizeof buf);
	ck_assert_str_eq(buf, "1.25");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("money");
	TCase *tc = tcase_create("money");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_currencies);
	tcase_add_test(tc, test_parse_good);
	tcase_add_test(tc, test_parse_limits);
	tcase_add_test(tc, test_parse_bad);
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_format_small_buffer);
	tcase_add_test(tc, test_message_amount);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_checked_arith);
	tcase_add_test(tc, test_line_amount_rounding);
	tcase_add_test(tc, test_qty);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
