/*
 * money.h - amounts of money as int64_t minor units, with their currency.
 *
 * No float or double ever holds an amount. An amount is a count of the
 * currency's minor unit (cents for USD, yen for JPY); the exponent of the
 * currency says how many of its digits follow the decimal point when shown.
 * Parsing and formatting never look at the locale: the decimal point is '.'
 * and the group separator ',' whatever LC_NUMERIC says.
 *
 * Quantities on line items are integers in thousandths (1.5 hours is 1500),
 * so "2" is stored as 2000. The amount of a line is
 *
 *     amount = quantity_milli * unit_price / 1000
 *
 * computed exactly in 128 bits and rounded half away from zero to the
 * currency's minor unit (0.5 cent becomes 1 cent, -0.5 cent becomes -1 cent),
 * the rule most invoices use. The result must fit in int64_t.
 */
#ifndef FD_MONEY_H
#define FD_MONEY_H

#include <stddef.h>
#include <stdint.h>

/* MONEY_MAX - the money limit: the largest amount (minor units; for USD
 * 1,000,000,000,000.00) of a line item (quantity x unit price), of the sum
 * of a job's line items, of an invoice or credit note, and of a payment. Any
 * sum of a few of them stays far from int64_t's limit. The schema checks it
 * for invoices and payments too. */
#define MONEY_MAX INT64_C(100000000000000)

struct currency {
	const char *code; /* ISO 4217, upper case */
	int exponent;     /* digits after the decimal point: USD 2, JPY 0 */
};

/* currency_find - the currency with ISO code (case-insensitive), or NULL. */
const struct currency *currency_find(const char *code);

/* money_parse - read text such as "1,234.50" or "-12" as minor units of cur.
 * Accepts an optional leading '-', digits optionally grouped by ',' in
 * threes, and at most cur->exponent digits after '.'. Refuses everything
 * else (exponents, NaN, blanks, doubled signs, too many decimals, values
 * outside int64_t) with FD_EINVAL and a reason in err_msg(). */
int money_parse(const char *text, const struct currency *cur, int64_t *out);

/* money_format - write v as text in buf (always NUL-terminated).
 * grouping != 0 puts ',' between groups of three digits. Returns 0, or
 * FD_EINVAL if buf is too small (MONEY_BUFSZ is always enough). */
#define MONEY_BUFSZ 40
int money_format(int64_t v, const struct currency *cur, int grouping, char *buf, size_t n);

/* money_text - v in the currency named code, for people: money_format into
 * buf (MONEY_BUFSZ bytes), with grouping as there; "?" when code names no
 * currency. The one formatter both front ends use. Returns buf. */
const char *money_text(int64_t v, const char *code, int grouping, char buf[MONEY_BUFSZ]);

/* Checked arithmetic: 0 and *out set, or FD_EINVAL ("amount out of range")
 * with *out untouched. */
int money_add(int64_t a, int64_t b, int64_t *out);
int money_sub(int64_t a, int64_t b, int64_t *out);
int money_mul(int64_t a, int64_t b, int64_t *out);

/* money_within_limit - 1 if -MONEY_MAX <= v <= MONEY_MAX, else 0. */
int money_within_limit(int64_t v);

/* money_line_amount - quantity (thousandths) x unit price with the rounding
 * rule above. FD_EINVAL if the result does not fit. */
int money_line_amount(int64_t qty_milli, int64_t unit_price, int64_t *out);

/* qty_parse - read a quantity such as "2" or "1.5" (at most 3 decimals,
 * strictly positive, at most 1,000,000) as thousandths. */
int qty_parse(const char *text, int64_t *out_milli);

/* qty_format - write a quantity in thousandths without trailing zeros. */
void qty_format(int64_t milli, char *buf, size_t n);

#endif
