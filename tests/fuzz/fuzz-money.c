/*
 * fuzz-money.c - money_parse and qty_parse on any text.
 *
 * Input: the first byte picks the currency (its value modulo the number of
 * codes below, so exponents 0, 2 and 3 are all reached), the rest is the
 * text typed. Invariants: an amount that parses formats (with and without
 * grouping) into text that parses back to the very same amount; a quantity
 * that parses is within (0, 1000000] and survives qty_format and qty_parse.
 */
#include <config.h>

#include "fuzz.h"
#include "money.h"

static const char *const codes[] = {"USD", "JPY", "KWD", "EUR", "KRW", "BHD"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct currency *cur;
	char *text, buf[MONEY_BUFSZ];
	int64_t v, w;
	int grouping;

	if (size == 0)
		return 0;
	cur = currency_find(codes[data[0] % (sizeof codes / sizeof codes[0])]);
	FUZZ_CHECK(cur != NULL);
	text = fuzz_cstr(data + 1, size - 1);
	if (money_parse(text, cur, &v) == 0) {
		for (grouping = 0; grouping <= 1; grouping++) {
			FUZZ_CHECK(money_format(v, cur, grouping, buf, sizeof buf) == 0);
			FUZZ_CHECK(money_parse(buf, cur, &w) == 0);
			FUZZ_CHECK(w == v);
		}
	}
	if (qty_parse(text, &v) == 0) {
		FUZZ_CHECK(v > 0 && v <= (int64_t)1000000 * 1000);
		qty_format(v, buf, sizeof buf);
		FUZZ_CHECK(qty_parse(buf, &w) == 0);
		FUZZ_CHECK(w == v);
	}
	free(text);
	return 0;
}
