/*
 * fuzz-settle.c - the settlement file reader (settle-file.c) on any file.
 *
 * The input is the whole file, read both as any settlement file and as a
 * WeChat style bill. Invariants: a file is read whole or refused whole (a
 * refusal leaves the result empty, with a reason); every line read has a
 * line number within the file, net = amount - fee, amounts within the
 * money limit, an id, an upper-case currency of three letters; the hash
 * is 64 hex digits; first_created <= last_created.
 */
#include <config.h>

#include "err.h"
#include "fuzz.h"
#include "money.h"
#include "settle-file.h"

static void check(const uint8_t *data, size_t size, int rc, const struct settle_file *f)
{
	size_t i, lines = 1;

	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (rc != 0) {
		FUZZ_CHECK(rc < 0);
		FUZZ_CHECK(f->lines == NULL && f->n == 0 && f->format == SETTLE_FORMAT_UNKNOWN);
		FUZZ_CHECK(*err_msg() != '\0');
		return;
	}
	FUZZ_CHECK(f->format == SETTLE_FORMAT_STRIPE_CSV || f->format == SETTLE_FORMAT_WECHAT_BILL);
	FUZZ_CHECK(strlen(f->sha256) == 64);
	FUZZ_CHECK(f->n <= SETTLE_LINES_MAX);
	FUZZ_CHECK(f->first_created <= f->last_created);
	for (i = 0; i < f->n; i++) {
		const struct chan_settle_line *l = &f->lines[i];

		FUZZ_CHECK(l->line_no >= 2 && (size_t)l->line_no <= lines);
		FUZZ_CHECK(l->net == l->amount - l->fee);
		FUZZ_CHECK(money_within_limit(l->amount) && money_within_limit(l->fee));
		FUZZ_CHECK(l->id[0] != '\0');
		FUZZ_CHECK(strlen(l->currency) == 3);
		FUZZ_CHECK(l->created >= f->first_created && l->created <= f->last_created);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct settle_file f;
	int rc;

	rc = settle_file_read(data, size, &f);
	check(data, size, rc, &f);
	settle_file_free(&f);
	rc = settle_wechat_bill_read(data, size, &f);
	check(data, size, rc, &f);
	if (rc == 0)
		FUZZ_CHECK(f.format == SETTLE_FORMAT_WECHAT_BILL);
	settle_file_free(&f);
	return 0;
}
