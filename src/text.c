/*
 * text.c - input validation and output sanitising of text (see text.h).
 *
 * The UTF-8 decoder is strict: it refuses overlong forms, surrogates and
 * code points past U+10FFFF, so that what we store is what we show.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "err.h"
#include "i18n.h"
#include "text.h"
#include "xalloc.h"

size_t utf8_decode(const unsigned char *s, size_t n, unsigned int *cp)
{
	unsigned int c;
	size_t len, i;

	if (n == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	} else if ((s[0] & 0xE0) == 0xC0) {
		len = 2;
		c = s[0] & 0x1F;
	} else if ((s[0] & 0xF0) == 0xE0) {
		len = 3;
		c = s[0] & 0x0F;
	} else if ((s[0] & 0xF8) == 0xF0) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return len;
}

/* Characters that must never reach a terminal or be stored in a field. */
static int is_dangerous(unsigned int c)
{
	return c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) ||
	       (c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F || c == 0x061C ||
	       c == 0xFEFF;
}

/* 1 if the digits d[0..n) pass the Luhn check. */
static int luhn_ok(const char *d, int n)
{
	int sum = 0, i, v;

	for (i = 0; i < n; i++) {
		v = d[n - 1 - i] - '0';
		if (i % 2) {
			v *= 2;
			if (v > 9)
				v -= 9;
		}
		sum += v;
	}
	return sum % 10 == 0;
}

/* A run is digits with single blanks or dashes between groups of them
 * ("4111 1111 1111 1111", "1042 4111-1111-1111-1111"). It holds a card
 * number when the whole run is 13 to 19 digits that pass the Luhn check, or
 * when a part of it that is shaped like a typed card does: one group of 13
 * to 19 digits, or consecutive groups of 4-4-4-4, 4-4-4-4-3 or 4-6-5 digits
 * (a card typed next to another number). Other windows of a run are not
 * tried: "INV-2026-000001 555-0142" would pass one in ten times. */
static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The digits of ngroups groups from run[g] (at most 19, else 0) into d. */
static int gather(const char *run, size_t len, size_t g, int ngroups, char d[20], int *lens)
{
	int n = 0, seen = 0, cur = 0;
	size_t k;

	for (k = g; k <= len && seen < ngroups; k++) {
		if (k < len && is_digit(run[k])) {
			if (n == 19)
				return 0;
			d[n++] = run[k];
			cur++;
		} else {
			if (lens)
				lens[seen] = cur;
			seen++;
			cur = 0;
		}
	}
	return seen == ngroups ? n : 0;
}

static int run_has_card(const char *run, size_t len)
{
	static const int shapes[][6] = {{4, 4, 4, 4, 0}, {4, 4, 4, 4, 3, 0}, {4, 6, 5, 0}};
	char d[20];
	int all = 0, groups = 1, lens[6], n, i, m;
	size_t g, k;

	for (k = 0; k < len; k++) {
		all += is_digit(run[k]);
		groups += !is_digit(run[k]);
	}
	if (all >= 13 && all <= 19 && gather(run, len, 0, groups, d, NULL) == all &&
	    luhn_ok(d, all))
		return 1;
	for (g = 0; g < len; g++) {
		if (!is_digit(run[g]) || (g > 0 && is_digit(run[g - 1])))
			continue; /* not the first digit of a group */
		n = gather(run, len, g, 1, d, NULL);
		if (n >= 13 && luhn_ok(d, n))
			return 1;
		for (i = 0; i < (int)(sizeof shapes / sizeof *shapes); i++) {
			for (m = 0; shapes[i][m]; m++)
				;
			n = gather(run, len, g, m, d, lens);
			if (n >= 13 && !memcmp(lens, shapes[i], (size_t)m * sizeof *lens) &&
			    luhn_ok(d, n))
				return 1;
		}
	}
	return 0;
}

int text_has_card_number(const char *s)
{
	const char *p = s ? s : "", *run;

	while (*p) {
		if (!is_digit(*p)) {
			p++;
			continue;
		}
		run = p;
		while (is_digit(*p) || ((*p == ' ' || *p == '-') && is_digit(p[1])))
			p++;
		if (run_has_card(run, (size_t)(p - run)))
			return 1;
	}
	return 0;
}

static int check_text(const char *s, const char *field, size_t maxbytes, int empty_ok)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len, off = 0;
	unsigned int cp;

	if (!s)
		return err_set(FD_EINVAL, _("%s is missing"), field);
	len = strlen(s);
	if (len == 0 && !empty_ok)
		return err_set(FD_EINVAL, _("%s must not be empty"), field);
	if (len > maxbytes)
		return err_set(FD_EINVAL, _("%s is too long (%zu bytes; at most %zu)"), field, len,
		               maxbytes);
	while (off < len) {
		size_t n = utf8_decode(p + off, len - off, &cp);

		if (n == 0)
			return err_set(FD_EINVAL, _("%s is not valid UTF-8 text (byte %zu)"), field,
			               off + 1);
		if (is_dangerous(cp))
			return err_set(FD_EINVAL,
			               _("%s contains a control character or escape sequence "
			                 "(U+%04X at byte %zu)"),
			               field, cp, off + 1);
		off += n;
	}
	if (len > 0 && (s[0] == ' ' || s[len - 1] == ' '))
		return err_set(FD_EINVAL, _("%s must not begin or end with a blank"), field);
	return 0;
}

int text_check_id(const char *s, const char *field, size_t maxbytes, int empty_ok)
{
	return check_text(s, field, maxbytes, empty_ok);
}

int text_check(const char *s, const char *field, size_t maxbytes, int empty_ok)
{
	int rc;

	if ((rc = check_text(s, field, maxbytes, empty_ok)) != 0)
		return rc;
	if (text_has_card_number(s))
		return err_set(FD_EINVAL,
		               _("%s looks like it holds a card number (13 to 19 digits that pass "
		                 "the card check); card numbers are never stored: write at most "
		                 "the last four digits"),
		               field);
	return 0;
}

char *text_sanitize(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = strlen((const char *)p), off = 0, o = 0;
	char *out = xmalloc(len * 10 + 1); /* each byte grows to at most "<U+XXXX>" */
	unsigned int cp;

	while (off < len) {
		size_t n = utf8_decode(p + off, len - off, &cp);

		if (n == 0) {
			o += (size_t)sprintf(out + o, "<%02X>", p[off]);
			off++;
			continue;
		}
		if (cp < 0x20)
			o += (size_t)sprintf(out + o, "^%c", (char)(cp + '@'));
		else if (cp == 0x7F)
			o += (size_t)sprintf(out + o, "^?");
		else if (is_dangerous(cp))
			o += (size_t)sprintf(out + o, "<U+%04X>", cp);
		else {
			memcpy(out + o, p + off, n);
			o += n;
		}
		off += n;
	}
	out[o] = '\0';
	return out;
}
