/*
 * settle-file.h - reading a settlement file a person downloaded from a
 * channel, into the same lines an adapter's settlement fetch gives
 * (struct chan_settle_line, channel.h): Stripe's balance-transaction CSV
 * export, and the WeChat Pay style channel's daily trade bill (a header
 * line, rows whose fields start with a backquote, amounts in yuan, a
 * summary section at the end; UTF-8, UTF-8 with a BOM, or GBK).
 *
 * A file is read whole or refused whole: on any bad line nothing is
 * returned and the error (err.h) names the line number. Amounts are
 * converted exactly (decimal text to minor units, never through a double).
 *
 * Which column becomes which field is in README.md ("Settlement files").
 * In a bill, order_id and order_no are our order number (out_trade_no) and
 * refund_id our refund key (out_refund_no): the ids the WeChat style
 * adapter knows orders and refunds by; the channel's own transaction and
 * refund numbers are the line's id and source.
 *
 * Callers: reconciliation (recon.c: `frontdesk recon import`), the WeChat
 * style adapter (its downloaded bill), tests.
 */
#ifndef FD_SETTLE_FILE_H
#define FD_SETTLE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "channel.h"

/* The bounds of what is read, so that a damaged file cannot make us
 * allocate without end. */
#define SETTLE_FILE_MAX  (64 * 1024 * 1024) /* bytes of a file */
#define SETTLE_LINES_MAX 100000             /* lines (rows) of a file */

enum settle_format {
	SETTLE_FORMAT_UNKNOWN = 0,
	SETTLE_FORMAT_STRIPE_CSV,  /* Stripe balance-transaction CSV */
	SETTLE_FORMAT_WECHAT_BILL, /* WeChat Pay style trade bill */
};

struct settle_file {
	enum settle_format format;
	char adapter[16];               /* the adapter whose lines these are: "stripe", "wechat" */
	struct chan_settle_line *lines; /* n lines, owned */
	size_t n;
	char sha256[65];                     /* of the file's bytes, lower-case hex */
	int64_t first_created, last_created; /* the lines' range of created times, 0 when n == 0 */
};

/* settle_file_read - recognise the format of the len bytes at data and read
 * every line into *out (zeroed first; free with settle_file_free). FD_EINVAL
 * with a reason naming the line number, and *out empty, for a file that is
 * not one of the formats or has any line that cannot be read exactly. */
int settle_file_read(const void *data, size_t len, struct settle_file *out);

/* settle_wechat_bill_read - the same for bytes known to be a WeChat Pay
 * style trade bill (the adapter's downloaded bill). */
int settle_wechat_bill_read(const void *data, size_t len, struct settle_file *out);

/* settle_file_free - free what *f owns and zero it. */
void settle_file_free(struct settle_file *f);

#endif
