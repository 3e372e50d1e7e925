/*
 * fuzz-sig.c - the Stripe-Signature header parser and verifier
 * (pipe_sig_verify).
 *
 * Input: line 1 the clock ("now", decimal; 1700000010 when unreadable),
 * (0 to 2^62), line 2 the header, line 3 the signing secret, the rest the payload
 * exactly as received. Invariant: whenever the header's timestamp could be
 * read, verification passes exactly when one of the header's
 * comma-separated items is "v1=" followed by the right MAC and the
 * timestamp is at most PIPE_SIG_TOLERANCE seconds old.
 */
#include <config.h>

#include "fuzz.h"
#include "pipe-sig.h"

/* The next line of *p (up to '\n' or the end) as a new string. */
static char *next_line(const char **p, const char *end)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	const char *stop = nl ? nl : end;
	char *s = fuzz_cstr((const uint8_t *)*p, (size_t)(stop - *p));

	*p = nl ? nl + 1 : end;
	return s;
}

/* 1 when one comma-separated item of header is exactly "v1=<mac>". */
static int has_item(const char *header, const char *mac)
{
	char want[70];
	const char *p = header, *e;
	size_t n;

	snprintf(want, sizeof want, "v1=%s", mac);
	n = strlen(want);
	for (;;) {
		e = strchr(p, ',');
		if ((size_t)((e ? e : p + strlen(p)) - p) == n && memcmp(p, want, n) == 0)
			return 1;
		if (!e)
			return 0;
		p = e + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	char *nows = next_line(&p, end), *header = next_line(&p, end);
	char *secret = next_line(&p, end), *stop, mac[65];
	long long now = strtoll(nows, &stop, 10);
	int64_t t = -1;
	int rc;

	/* a real clock is never negative nor near the end of int64_t */
	if (stop == nows || *stop || now < 0 || now > ((long long)1 << 62))
		now = 1700000010;
	rc = pipe_sig_verify(header, p, (size_t)(end - p), secret, now, PIPE_SIG_TOLERANCE, &t);
	if (t >= 0 && *secret) {
		FUZZ_CHECK(pipe_sig_hmac_hex(secret, t, p, (size_t)(end - p), mac) == 0);
		FUZZ_CHECK((rc == 0) == (has_item(header, mac) && now - t <= PIPE_SIG_TOLERANCE));
	} else {
		FUZZ_CHECK(rc != 0);
	}
	free(nows);
	free(header);
	free(secret);
	return 0;
}
