/*
 * money.c - parsing, formatting and checked arithmetic of minor units.
 *
 * Invariant: no function here uses floating point. Parsing accumulates into
 * uint64_t with an explicit overflow check, then applies the sign, so that
 * INT64_MIN (whose magnitude has no positive int64_t) parses and formats.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "err.h"
#include "i18n.h"
#include "money.h"

static const struct currency currencies[] = {
    {"USD", 2}, {"EUR", 2}, {"GBP", 2}, {"CNY", 2}, {"JPY", 0}, {"TWD", 2}, {"HKD", 2}, {"CAD", 2},
    {"AUD", 2}, {"CHF", 2}, {"KRW", 0}, {"SGD", 2}, {"NZD", 2}, {"KWD", 3}, {"BHD", 3},
};

const struct currency *currency_find(const char *code)
{
	size_t i;

	if (!code)
		return NULL;
	for (i = 0; i < sizeof currencies / sizeof currencies[0]; i++)
		if (strcasecmp(code, currencies[i].code) == 0)
			return &currencies[i];
	return NULL;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Append one decimal digit to *acc; 0 on success, -1 on overflow. */
static int acc_digit(uint64_t *acc, int d)
{
	if (*acc > (UINT64_MAX - (uint64_t)d) / 10)
		return -1;
	*acc = *acc * 10 + (uint64_t)d;
	return 0;
}

/*
 * Read the integer part starting at *pp: digits, optionally grouped by ','
 * in threes (the first group one to three digits). On return *pp points at
 * the first character after it.
 */
static int parse_int_part(const char **pp, uint64_t *acc)
{
	const char *p = *pp;
	int grouped = 0, first_len = 0;

	while (is_digit(*p)) {
		if (acc_digit(acc, *p - '0'))
			return err_set(FD_EINVAL, _("the amount is too large"));
		p++;
		first_len++;
	}
	if (first_len == 0)
		return err_set(FD_EINVAL, _("a digit must come first"));
	while (*p == ',') {
		int n = 0;

		if (!grouped && first_len > 3)
			return err_set(FD_EINVAL, _("misplaced ',' grouping separator"));
		grouped = 1;
		p++;
		while (is_digit(*p)) {
			if (acc_digit(acc, *p - '0'))
				return err_set(FD_EINVAL, _("the amount is too large"));
			p++;
			n++;
		}
		if (n != 3)
			return err_set(FD_EINVAL, _("misplaced ',' grouping separator"));
	}
	*pp = p;
	return 0;
}

/* The sign (*neg) and the first character of the amount at text; *pp
 * after the sign. */
static int parse_sign(const char *text, const char **pp, int *neg)
{
	const char *p = text;

	if (*p == '-') {
		*neg = 1;
		p++;
	}
	if (*neg && (*p == '-' || *p == '+'))
		return err_set(FD_EINVAL, _("the amount has more than one sign"));
	if (!is_digit(*p)) {
		if (*p == ' ' || *p == '\t' || (p == text && *p == '\0'))
			return err_set(FD_EINVAL, _("the amount must not contain blanks"));
		return err_set(FD_EINVAL, _("the amount must start with a digit or '-'"));
	}
	*pp = p;
	return 0;
}

/* The decimal part at *pp (after the point), at most cur's exponent
 * digits, into *acc; *frac says how many. */
static int parse_frac_part(const char **pp, const struct currency *cur, uint64_t *acc, int *frac)
{
	const char *p = *pp;

	if (cur->exponent == 0)
		return err_set(FD_EINVAL, _("%s amounts have no decimal part"), cur->code);
	while (is_digit(*p)) {
		if (++*frac > cur->exponent)
			return err_set(FD_EINVAL, _("%s amounts have at most %d decimals"),
			               cur->code, cur->exponent);
		if (acc_digit(acc, *p - '0'))
			return err_set(FD_EINVAL, _("the amount is too large"));
		p++;
	}
	if (*frac == 0)
		return err_set(FD_EINVAL, _("a digit must follow the decimal point"));
	*pp = p;
	return 0;
}

/* Nothing may follow the amount: say what does. */
static int parse_end(const char *p)
{
	if (*p == '\0')
		return 0;
	if (*p == ' ' || *p == '\t')
		return err_set(FD_EINVAL, _("the amount must not contain blanks"));
	if (*p == 'e' || *p == 'E')
		return err_set(FD_EINVAL, _("exponents are not allowed in amounts"));
	return err_set(FD_EINVAL, _("unexpected text after the amount"));
}

/* acc in minor units (frac decimals read of cur's exponent), signed, into
 * *out when it fits. */
static int parse_result(uint64_t acc, int frac, int neg, const struct currency *cur, int64_t *out)
{
	for (; frac < cur->exponent; frac++)
		if (acc_digit(&acc, 0))
			return err_set(FD_EINVAL, _("the amount is too large"));
	if (neg) {
		if (acc > (uint64_t)INT64_MAX + 1)
			return err_set(FD_EINVAL, _("the amount is too large"));
		*out = acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc;
	} else {
		if (acc > (uint64_t)INT64_MAX)
			return err_set(FD_EINVAL, _("the amount is too large"));
		*out = (int64_t)acc;
	}
	return 0;
}

int money_parse(const char *text, const struct currency *cur, int64_t *out)
{
	const char *p = text;
	uint64_t acc = 0;
	int neg = 0, frac = 0, rc;

	if (!cur)
		return err_set(FD_EINVAL, _("unknown currency"));
	if (!text || !*text)
		return err_set(FD_EINVAL, _("the amount is empty"));
	if ((rc = parse_sign(text, &p, &neg)))
		return rc;
	if ((rc = parse_int_part(&p, &acc)))
		return rc;
	if (*p == '.') {
		p++;
		if ((rc = parse_frac_part(&p, cur, &acc, &frac)))
			return rc;
	}
	if ((rc = parse_end(p)))
		return rc;
	return parse_result(acc, frac, neg, cur, out);
}

int money_format(int64_t v, const struct currency *cur, int grouping, char *buf, size_t n)
{
	char digits[24], tmp[MONEY_BUFSZ];
	uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	int nd = 0, exp = cur ? cur->exponent : 2, i, t = 0;

	do {
		digits[nd++] = (char)('0' + mag % 10);
		mag /= 10;
	} while (mag);
	while (nd <= exp)
		digits[nd++] = '0';
	/* digits[] is least significant first */
	if (v < 0)
		tmp[t++] = '-';
	for (i = nd - 1; i >= exp; i--) {
		tmp[t++] = digits[i];
		if (grouping && i > exp && (i - exp) % 3 == 0)
			tmp[t++] = ',';
	}
	if (exp > 0) {
		tmp[t++] = '.';
		for (i = exp - 1; i >= 0; i--)
			tmp[t++] = digits[i];
	}
	tmp[t] = '\0';
	if ((size_t)t + 1 > n)
		return err_set(FD_EINVAL, _("buffer too small for the amount"));
	memcpy(buf, tmp, (size_t)t + 1);
	return 0;
}

int money_add(int64_t a, int64_t b, int64_t *out)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return err_set(FD_EINVAL, _("amount out of range"));
	*out = r;
	return 0;
}

int money_sub(int64_t a, int64_t b, int64_t *out)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return err_set(FD_EINVAL, _("amount out of range"));
	*out = r;
	return 0;
}

int money_mul(int64_t a, int64_t b, int64_t *out)
{
	int64_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return err_set(FD_EINVAL, _("amount out of range"));
	*out = r;
	return 0;
}

int money_within_limit(int64_t v)
{
	return v >= -MONEY_MAX && v <= MONEY_MAX;
}

int money_line_amount(int64_t qty_milli, int64_t unit_price, int64_t *out)
{
	__int128 prod = (__int128)qty_milli * unit_price;
	__int128 q = prod / 1000, r = prod % 1000;

	/* half away from zero: |remainder| >= 500 moves one unit outwards */
	if (r >= 500)
		q++;
	else if (r <= -500)
		q--;
	if (q > INT64_MAX || q < INT64_MIN)
		return err_set(FD_EINVAL, _("amount out of range"));
	*out = (int64_t)q;
	return 0;
}

int qty_parse(const char *text, int64_t *out_milli)
{
	static const struct currency milli = {"", 3};
	int64_t v;
	int rc;

	if (text && strchr(text, ','))
		return err_set(FD_EINVAL, _("write the quantity without ',' separators"));
	rc = money_parse(text, &milli, &v);
	if (rc)
		return err_set(rc,
		               _("the quantity '%.40s' is not a number with at most 3 decimals "
		                 "(like 2 or 1.5)"),
		               text ? text : "");
	if (v <= 0)
		return err_set(FD_EINVAL, _("the quantity must be greater than zero"));
	if (v > 1000000 * (int64_t)1000)
		return err_set(FD_EINVAL, _("the quantity is too large (at most 1000000)"));
	*out_milli = v;
	return 0;
}

void qty_format(int64_t milli, char *buf, size_t n)
{
	int64_t whole = milli / 1000, frac = milli % 1000;

	if (frac < 0)
		frac = -frac;
	if (frac == 0)
		snprintf(buf, n, "%lld", (long long)whole);
	else if (frac % 100 == 0)
		snprintf(buf, n, "%lld.%lld", (long long)whole, (long long)(frac / 100));
	else if (frac % 10 == 0)
		snprintf(buf, n, "%lld.%02lld", (long long)whole, (long long)(frac / 10));
	else
		snprintf(buf, n, "%lld.%03lld", (long long)whole, (long long)frac);
}

const char *money_text(int64_t v, const char *code, int grouping, char buf[MONEY_BUFSZ])
{
	const struct currency *c = currency_find(code ? code : "");

	if (!c || money_format(v, c, grouping, buf, MONEY_BUFSZ) != 0)
		snprintf(buf, MONEY_BUFSZ, "?");
	return buf;
}
