/*
 * fuzz-sanitize.c - the display sanitiser (text_sanitize) on any bytes.
 *
 * Invariants: the output is valid UTF-8 with no C0 control (ESC included),
 * no DEL, no C1 control and no bidirectional control; text that text_check
 * accepts comes out unchanged.
 */
#include <config.h>

#include "fuzz.h"
#include "text.h"

static int harmless(unsigned int c)
{
	return !(c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F) ||
	         (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E ||
	         c == 0x200F || c == 0x061C || c == 0xFEFF);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_cstr(data, size), *out = text_sanitize(in);
	const unsigned char *p = (const unsigned char *)out;
	size_t len = strlen(out), off = 0, n;
	unsigned int cp;

	while (off < len) {
		n = utf8_decode(p + off, len - off, &cp);
		FUZZ_CHECK(n > 0);
		FUZZ_CHECK(harmless(cp));
		off += n;
	}
	FUZZ_CHECK(!strchr(out, '\033'));
	if (text_check(in, "text", (size_t)-1, 1) == 0)
		FUZZ_CHECK(strcmp(in, out) == 0);
	free(out);
	free(in);
	return 0;
}
