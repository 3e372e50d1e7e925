/*
 * settle-file.c - reading settlement files (see settle-file.h): Stripe's
 * balance-transaction CSV export and the WeChat Pay style trade bill.
 *
 * The bytes are first made UTF-8 text: kept as they are when they are
 * valid UTF-8 (with or without a byte order mark), else decoded from GBK
 * with iconv (glibc). The text must end with a line break (a file cut
 * short is refused, naming its last line) and hold no NUL. Then csv.h
 * reads it record by record (quoted fields, CRLF, the byte order mark):
 * the first record is a header whose column names say which format it is
 * and where each field is; every further record is one line, or, in a
 * bill, the summary section, which must add up to the rows read.
 *
 * Invariants: nothing is returned unless the whole file was read; amounts
 * go from decimal text to minor units through money_parse (never a
 * double), checked against the money limit, and net = amount - fee holds
 * for every line; sizes are bounded (SETTLE_FILE_MAX bytes, SETTLE_LINES_MAX
 * lines, each field within its buffer), so that a damaged file cannot
 * make us allocate without end; no two lines share an id.
 *
 * Callers: recon.c (`frontdesk recon import`), chan-wechat.c (the daily
 * bill of its settlement fetch), tests.
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clock.h"
#include "crypto-dyn.h"
#include "csv.h"
#include "err.h"
#include "i18n.h"
#include "money.h"
#include "settle-file.h"
#include "xalloc.h"

#define CHINA_OFFSET (8 * 3600) /* a bill's times are China time, UTC+8 */

void settle_file_free(struct settle_file *f)
{
	if (!f)
		return;
	free(f->lines);
	memset(f, 0, sizeof *f);
}

/* ---------------------------------------------------------------- bytes */

/* n when the n bytes at s are valid UTF-8 (no overlong form, no surrogate,
 * nothing past U+10FFFF), else the offset of the first sequence that is
 * not. */
static size_t utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned c = s[i];
		size_t k, len;
		unsigned cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			len = 2;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4;
			cp = c & 0x07;
		} else
			return i;
		if (n - i < len)
			return i;
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return i;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
			return i;
		i += len;
	}
	return n;
}

/* The line (1-based) that byte off of the n bytes at s is on. */
static long line_at(const char *s, size_t n, size_t off)
{
	long line = 1;
	size_t i;

	for (i = 0; i < off && i < n; i++)
		if (s[i] == '\n')
			line++;
	return line;
}

/* The file's bytes as UTF-8 text: *text (caller frees, NUL-terminated)
 * gets *tlen bytes. FD_EINVAL for bytes that are neither UTF-8 nor GBK,
 * naming the line where the later of the two readings fails (a UTF-8 file
 * with one bad byte fails early as GBK, and a GBK file early as UTF-8). */
static int decode(const char *data, size_t len, char **text, size_t *tlen)
{
	iconv_t cd;
	char *in = (char *)data, *buf, *o;
	size_t inleft = len, cap = 3 * len + 16, oleft = cap, bad;

	*text = NULL;
	*tlen = 0;
	bad = utf8_valid((const unsigned char *)data, len);
	if (bad == len) {
		*text = xmalloc(len + 1);
		memcpy(*text, data, len);
		(*text)[len] = '\0';
		*tlen = len;
		return 0;
	}
	cd = iconv_open("UTF-8", "GBK");
	if (cd == (iconv_t)-1)
		return err_set(FD_EIO, _("cannot start the GBK decoder (iconv): %s"),
		               strerror(errno));
	/* a GBK character (1 or 2 bytes) is at most 3 bytes of UTF-8 */
	buf = o = xmalloc(cap + 1);
	if (iconv(cd, &in, &inleft, &o, &oleft) == (size_t)-1) {
		size_t at = (size_t)(in - data);
		long line = line_at(data, len, at > bad ? at : bad);

		iconv_close(cd);
		free(buf);
		return err_set(FD_EINVAL, _("line %ld: the file is neither UTF-8 nor GBK text"),
		               line);
	}
	iconv_close(cd);
	*o = '\0';
	*text = buf;
	*tlen = (size_t)(o - buf);
	return 0;
}

/* ---------------------------------------------------------------- fields */

/* A column: the names it goes by (matched case-insensitively, NULL-ended),
 * whether a file must have it. */
struct col {
	const char *names[6];
	int required;
};

/* s without the blanks around it, in buf of n bytes. */
static const char *trimmed(const char *s, char *buf, size_t n)
{
	size_t len;

	while (*s == ' ' || *s == '\t')
		s++;
	snprintf(buf, n, "%s", s);
	len = strlen(buf);
	while (len && (buf[len - 1] == ' ' || buf[len - 1] == '\t'))
		buf[--len] = '\0';
	return buf;
}

/* Find each of the ncol columns in the header hdr (n fields): idx[i] is
 * its field, or -1. FD_EINVAL naming the first required column missing. */
static int find_cols(char **hdr, size_t n, const struct col *cols, int ncol, int *idx, long line)
{
	char buf[256];
	size_t f;
	int i, k;

	for (i = 0; i < ncol; i++) {
		idx[i] = -1;
		for (f = 0; f < n && idx[i] < 0; f++) {
			const char *h = trimmed(hdr[f], buf, sizeof buf);

			for (k = 0; cols[i].names[k]; k++)
				if (!strcasecmp(h, cols[i].names[k])) {
					idx[i] = (int)f;
					break;
				}
		}
		if (idx[i] < 0 && cols[i].required)
			return err_set(FD_EINVAL,
			               _("line %1$ld: the header has no column \"%2$s\""), line,
			               cols[i].names[0]);
	}
	return 0;
}

/* The field of column i in the record (n fields), "" when the file has no
 * such column. */
static const char *field(char **rec, const int *idx, int i)
{
	return idx[i] >= 0 ? rec[idx[i]] : "";
}

/* Copy s into buf of n bytes; FD_EINVAL when it does not fit. */
static int copy(const char *s, char *buf, size_t n, long line, const char *what)
{
	if (strlen(s) >= n)
		return err_set(FD_EINVAL, _("line %1$ld: the %2$s is longer than %3$zu bytes"),
		               line, what, n - 1);
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

/* An amount in cur's major units as written in the file, in minor units. */
static int amount(const char *s, const struct currency *cur, long line, const char *what,
                  int64_t *out)
{
	char why[256];

	if (money_parse(s, cur, out) != 0) {
		snprintf(why, sizeof why, "%s", err_msg());
		return err_set(FD_EINVAL,
		               _("line %1$ld: the %2$s \"%3$.40s\" is not an amount: %4$s"), line,
		               what, s, why);
	}
	if (!money_within_limit(*out))
		return err_set(FD_EINVAL,
		               _("line %1$ld: the %2$s \"%3$.40s\" is past the money limit"), line,
		               what, s);
	return 0;
}

/* n digits at s as a number; -1 when they are not all digits. */
static int digits(const char *s, int n)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* "YYYY-MM-DD HH:MM[:SS]" (or a 'T' between), a time offset seconds east
 * of UTC, as Unix seconds. */
static int read_time(const char *s, long offset, long line, const char *what, int64_t *out)
{
	size_t n = strlen(s);
	int y, mo, d, h, mi, sec = 0;

	if ((n != 16 && n != 19) || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') ||
	    s[13] != ':' || (n == 19 && s[16] != ':'))
		goto bad;
	y = digits(s, 4);
	mo = digits(s + 5, 2);
	d = digits(s + 8, 2);
	h = digits(s + 11, 2);
	mi = digits(s + 14, 2);
	if (n == 19)
		sec = digits(s + 17, 2);
	if (y < 1970 || clock_utc_of(y, mo, d, h, mi, sec, out) != 0)
		goto bad;
	*out -= offset;
	return 0;
bad:
	return err_set(FD_EINVAL,
	               _("line %1$ld: the %2$s \"%3$.40s\" is not a time YYYY-MM-DD HH:MM:SS"),
	               line, what, s);
}

/* A new line (zeroed, numbered) at the end of out->lines. */
static int add_line(struct settle_file *out, size_t *cap, long line, struct chan_settle_line **l)
{
	if (out->n >= SETTLE_LINES_MAX)
		return err_set(FD_EINVAL, _("line %1$ld: the file has more than %2$d lines"), line,
		               SETTLE_LINES_MAX);
	if (out->n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		if (*cap > SETTLE_LINES_MAX)
			*cap = SETTLE_LINES_MAX;
		out->lines = xrealloc(out->lines, *cap * sizeof *out->lines);
	}
	*l = &out->lines[out->n++];
	memset(*l, 0, sizeof **l);
	(*l)->line_no = (int)line;
	return 0;
}

/* ---------------------------------------------------------------- Stripe */

enum {
	S_ID,
	S_TYPE,
	S_SOURCE,
	S_AMOUNT,
	S_FEE,
	S_NET,
	S_CURRENCY,
	S_CREATED,
	S_AVAILABLE,
	S_STATUS,
	S_PI,
	S_REFUND,
	S_PAYOUT,
	S_ORDER_NO,
	S_NCOLS
};

/* The dashboard's "Balance transactions" export and the itemized balance
 * change report name the same columns differently. Our order number is in
 * the payment's metadata under order_no (chan-stripe.c). */
static const struct col stripe_cols[S_NCOLS] = {
    [S_ID] = {{"id", "balance_transaction_id"}, 1},
    [S_TYPE] = {{"type", "reporting_category"}, 1},
    [S_SOURCE] = {{"source", "source_id"}, 0},
    [S_AMOUNT] = {{"amount", "gross"}, 1},
    [S_FEE] = {{"fee"}, 1},
    [S_NET] = {{"net"}, 1},
    [S_CURRENCY] = {{"currency"}, 1},
    [S_CREATED] = {{"created (utc)", "created_utc", "created"}, 1},
    [S_AVAILABLE] = {{"available on (utc)", "available_on_utc", "available_on"}, 0},
    [S_STATUS] = {{"status"}, 0},
    [S_PI] = {{"payment_intent_id", "payment_intent"}, 0},
    [S_REFUND] = {{"refund_id"}, 0},
    [S_PAYOUT] = {{"payout_id", "automatic_payout_id"}, 0},
    [S_ORDER_NO] = {{"payment_metadata[order_no]", "metadata[order_no]", "order_no (metadata)"}, 0},
};

/* A type or reporting category in the core's words. */
static enum chan_settle_kind stripe_kind(const char *t)
{
	if (!strcasecmp(t, "charge") || !strcasecmp(t, "payment"))
		return CHAN_SETTLE_CHARGE;
	if (!strcasecmp(t, "refund") || !strcasecmp(t, "payment_refund"))
		return CHAN_SETTLE_REFUND;
	if (!strcasecmp(t, "payout"))
		return CHAN_SETTLE_PAYOUT;
	if (!strcasecmp(t, "fee") || !strcasecmp(t, "stripe_fee"))
		return CHAN_SETTLE_FEE;
	if (!strcasecmp(t, "adjustment") || !strcasecmp(t, "dispute"))
		return CHAN_SETTLE_ADJUSTMENT;
	return CHAN_SETTLE_OTHER;
}

static int stripe_line(char **rec, const int *idx, long line, struct chan_settle_line *l)
{
	const struct currency *cur;
	const char *cid = field(rec, idx, S_CURRENCY);
	int64_t net;
	int rc;

	if (!*field(rec, idx, S_ID))
		return err_set(FD_EINVAL, _("line %ld: the id is empty"), line);
	if (!*field(rec, idx, S_TYPE))
		return err_set(FD_EINVAL, _("line %ld: the type is empty"), line);
	if ((rc = copy(field(rec, idx, S_ID), l->id, sizeof l->id, line, "id")) ||
	    (rc = copy(field(rec, idx, S_TYPE), l->type, sizeof l->type, line, "type")) ||
	    (rc = copy(field(rec, idx, S_STATUS), l->status, sizeof l->status, line, "status")) ||
	    (rc = copy(field(rec, idx, S_SOURCE), l->source, sizeof l->source, line, "source")) ||
	    (rc = copy(field(rec, idx, S_PI), l->order_id, sizeof l->order_id, line,
	               "payment_intent_id")) ||
	    (rc = copy(field(rec, idx, S_ORDER_NO), l->order_no, sizeof l->order_no, line,
	               "order_no")) ||
	    (rc = copy(field(rec, idx, S_REFUND), l->refund_id, sizeof l->refund_id, line,
	               "refund_id")) ||
	    (rc = copy(field(rec, idx, S_PAYOUT), l->payout_id, sizeof l->payout_id, line,
	               "payout_id")))
		return rc;
	l->kind = stripe_kind(l->type);
	/* a refund's or a payout's own line names itself as its source */
	if (l->kind == CHAN_SETTLE_REFUND && !*l->refund_id && !strncmp(l->source, "re_", 3))
		snprintf(l->refund_id, sizeof l->refund_id, "%s", l->source);
	if (l->kind == CHAN_SETTLE_PAYOUT && !*l->payout_id)
		snprintf(l->payout_id, sizeof l->payout_id, "%s", l->source);
	cur = currency_find(cid);
	if (!cur)
		return err_set(FD_EINVAL,
		               _("line %1$ld: the currency \"%2$.10s\" is not one we know"), line,
		               cid);
	snprintf(l->currency, sizeof l->currency, "%s", cur->code);
	if ((rc = amount(field(rec, idx, S_AMOUNT), cur, line, "amount", &l->amount)) ||
	    (rc = amount(field(rec, idx, S_FEE), cur, line, "fee", &l->fee)) ||
	    (rc = amount(field(rec, idx, S_NET), cur, line, "net", &l->net)))
		return rc;
	if (money_sub(l->amount, l->fee, &net) != 0 || net != l->net)
		return err_set(FD_EINVAL,
		               _("line %1$ld: the net %2$.40s is not the amount %3$.40s less the "
		                 "fee %4$.40s"),
		               line, field(rec, idx, S_NET), field(rec, idx, S_AMOUNT),
		               field(rec, idx, S_FEE));
	if ((rc = read_time(field(rec, idx, S_CREATED), 0, line, "created time", &l->created)))
		return rc;
	if (*field(rec, idx, S_AVAILABLE) &&
	    (rc = read_time(field(rec, idx, S_AVAILABLE), 0, line, "available on time",
	                    &l->available_on)))
		return rc;
	return 0;
}

static int read_stripe(struct csv_reader *r, const int *idx, size_t ncols, struct settle_file *out)
{
	struct chan_settle_line *l;
	size_t cap = 0;
	long line = 0;
	int rc;

	while ((rc = csv_next(r, &line)) == 1) {
		if (r->n != ncols)
			return err_set(
			    FD_EINVAL,
			    _("line %1$ld has %2$zu fields, the header %3$zu (cut short?)"), line,
			    r->n, ncols);
		if ((rc = add_line(out, &cap, line, &l)) ||
		    (rc = stripe_line(r->field, idx, line, l)))
			return rc;
	}
	return rc;
}

/* ---------------------------------------------------------------- WeChat bill */

enum {
	W_TIME,
	W_TXID,
	W_OUT_TRADE_NO,
	W_TRADE_TYPE,
	W_STATE,
	W_CURRENCY,
	W_SETTLE,
	W_COUPON,
	W_WX_REFUND_NO,
	W_OUT_REFUND_NO,
	W_REFUND,
	W_REFUND_COUPON,
	W_REFUND_STATUS,
	W_FEE,
	W_TOTAL,
	W_REFUND_ASKED,
	W_NCOLS
};

static const struct col bill_cols[W_NCOLS] = {
    [W_TIME] = {{"交易时间"}, 1},
    [W_TXID] = {{"微信订单号"}, 1},
    [W_OUT_TRADE_NO] = {{"商户订单号"}, 1},
    [W_TRADE_TYPE] = {{"交易类型"}, 0},
    [W_STATE] = {{"交易状态"}, 1},
    [W_CURRENCY] = {{"货币种类"}, 0},
    [W_SETTLE] = {{"应结订单金额"}, 1},
    [W_COUPON] = {{"代金券金额"}, 0},
    [W_WX_REFUND_NO] = {{"微信退款单号"}, 1},
    [W_OUT_REFUND_NO] = {{"商户退款单号"}, 1},
    [W_REFUND] = {{"退款金额"}, 1},
    [W_REFUND_COUPON] = {{"充值券退款金额"}, 0},
    [W_REFUND_STATUS] = {{"退款状态"}, 0},
    [W_FEE] = {{"手续费"}, 1},
    [W_TOTAL] = {{"订单金额"}, 0},
    [W_REFUND_ASKED] = {{"申请退款金额"}, 0},
};

/* The summary: its count, then each total and the row column it adds up. */
enum { T_COUNT, T_SETTLE, T_REFUND, T_REFUND_COUPON, T_FEE, T_TOTAL, T_REFUND_ASKED, T_NCOLS };

static const struct col sum_cols[T_NCOLS] = {
    [T_COUNT] = {{"总交易单数"}, 1},
    [T_SETTLE] = {{"应结订单总金额"}, 1},
    [T_REFUND] = {{"退款总金额"}, 1},
    [T_REFUND_COUPON] = {{"充值券退款总金额"}, 0},
    [T_FEE] = {{"手续费总金额"}, 1},
    [T_TOTAL] = {{"订单总金额"}, 0},
    [T_REFUND_ASKED] = {{"申请退款总金额"}, 0},
};

static const int sum_of[T_NCOLS] = {
    [T_COUNT] = -1,
    [T_SETTLE] = W_SETTLE,
    [T_REFUND] = W_REFUND,
    [T_REFUND_COUPON] = W_REFUND_COUPON,
    [T_FEE] = W_FEE,
    [T_TOTAL] = W_TOTAL,
    [T_REFUND_ASKED] = W_REFUND_ASKED,
};

/* Strip the backquote every field of a bill's row starts with. */
static int unquote_row(struct csv_reader *r, long line)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (r->field[i][0] != '`')
			return err_set(
			    FD_EINVAL,
			    _("line %1$ld: field %2$zu of the bill does not start with a "
			      "backquote"),
			    line, i + 1);
		memmove(r->field[i], r->field[i] + 1, strlen(r->field[i]));
	}
	return 0;
}

/* The amount columns of a bill's row in currency cur into v[] (0 for a
 * column the bill has not); sums[] adds them up. */
static int bill_amounts(char **rec, const int *idx, long line, const struct currency *cur,
                        int64_t *sums, int64_t *v)
{
	static const int money_cols[] = {W_SETTLE, W_COUPON, W_REFUND,      W_REFUND_COUPON,
	                                 W_FEE,    W_TOTAL,  W_REFUND_ASKED};
	size_t k;
	int rc, i;

	for (k = 0; k < sizeof money_cols / sizeof money_cols[0]; k++) {
		i = money_cols[k];
		if (idx[i] < 0)
			continue;
		if ((rc = amount(rec[idx[i]], cur, line, bill_cols[i].names[0], &v[i])))
			return rc;
		if (money_add(sums[i], v[i], &sums[i]) != 0)
			return err_set(FD_EINVAL, _("line %ld: the bill's totals are out of range"),
			               line);
	}
	return 0;
}

/* A refund row (state REFUND) of the bill into l. */
static int bill_refund(char **rec, const int *idx, long line, const char *state, const int64_t *v,
                       struct chan_settle_line *l)
{
	const char *wx = field(rec, idx, W_WX_REFUND_NO), *ours = field(rec, idx, W_OUT_REFUND_NO);
	int rc;

	if (!*wx)
		return err_set(FD_EINVAL, _("line %1$ld: the refund row has no %2$s"), line,
		               "微信退款单号");
	/* the adapter's id of a refund is ours (out_refund_no) */
	if ((rc = copy(wx, l->id, sizeof l->id, line, "微信退款单号")) ||
	    (rc = copy(wx, l->source, sizeof l->source, line, "微信退款单号")) ||
	    (rc = copy(*ours ? ours : wx, l->refund_id, sizeof l->refund_id, line,
	               "商户退款单号")) ||
	    (rc = copy(*field(rec, idx, W_REFUND_STATUS) ? field(rec, idx, W_REFUND_STATUS) : state,
	               l->status, sizeof l->status, line, "退款状态")))
		return rc;
	l->kind = CHAN_SETTLE_REFUND;
	l->amount = -v[W_REFUND];
	l->fee = v[W_FEE];
	return 0;
}

/* A row of the bill that is no refund into l: a charge (SUCCESS) or no
 * money moved. */
static int bill_charge(char **rec, const int *idx, long line, const char *state, const int64_t *v,
                       struct chan_settle_line *l)
{
	int rc;

	if ((rc = copy(field(rec, idx, W_TXID), l->id, sizeof l->id, line, "微信订单号")) ||
	    (rc = copy(field(rec, idx, W_TXID), l->source, sizeof l->source, line, "微信订单号")) ||
	    (rc = copy(state, l->status, sizeof l->status, line, "交易状态")))
		return rc;
	if (!strcmp(state, "SUCCESS")) {
		l->kind = CHAN_SETTLE_CHARGE;
		l->amount = v[W_SETTLE];
		l->fee = v[W_FEE];
	} else
		l->kind = CHAN_SETTLE_OTHER; /* REVOKED and the like: no money moved */
	return 0;
}

/* One row of the bill into l; sums[] adds up its amount columns. */
static int bill_line(char **rec, const int *idx, long line, const struct currency **bill_cur,
                     int64_t *sums, struct chan_settle_line *l)
{
	const struct currency *cur;
	const char *state = field(rec, idx, W_STATE), *cid = field(rec, idx, W_CURRENCY);
	int64_t v[W_NCOLS];
	int rc;

	cur = currency_find(*cid ? cid : "CNY");
	if (!cur)
		return err_set(FD_EINVAL,
		               _("line %1$ld: the currency \"%2$.10s\" is not one we know"), line,
		               cid);
	if (!*bill_cur)
		*bill_cur = cur;
	snprintf(l->currency, sizeof l->currency, "%s", cur->code);
	memset(v, 0, sizeof v);
	if ((rc = bill_amounts(rec, idx, line, cur, sums, v)))
		return rc;
	if ((rc =
	         read_time(field(rec, idx, W_TIME), CHINA_OFFSET, line, "交易时间", &l->created)) ||
	    (rc = copy(state, l->type, sizeof l->type, line, "交易状态")) ||
	    (rc = copy(field(rec, idx, W_OUT_TRADE_NO), l->order_no, sizeof l->order_no, line,
	               "商户订单号")) ||
	    (rc = copy(field(rec, idx, W_OUT_TRADE_NO), l->order_id, sizeof l->order_id, line,
	               "商户订单号")))
		return rc;
	if (!*field(rec, idx, W_TXID))
		return err_set(FD_EINVAL, _("line %1$ld: the bill's row has no %2$s"), line,
		               "微信订单号");
	if (!strcmp(state, "REFUND"))
		rc = bill_refund(rec, idx, line, state, v, l);
	else
		rc = bill_charge(rec, idx, line, state, v, l);
	if (rc)
		return rc;
	if (money_sub(l->amount, l->fee, &l->net) != 0)
		return err_set(FD_EINVAL, _("line %ld: the amount less the fee is out of range"),
		               line);
	return 0;
}

/* Check the summary row (fields unquoted) against the rows read. */
static int bill_summary(char **rec, const int *idx, long line, const struct currency *cur,
                        size_t rows, const int64_t *sums)
{
	char want[MONEY_BUFSZ], have[MONEY_BUFSZ];
	int64_t v;
	int i, rc;

	if (!*rec[idx[T_COUNT]] || strlen(rec[idx[T_COUNT]]) > 9 ||
	    digits(rec[idx[T_COUNT]], (int)strlen(rec[idx[T_COUNT]])) < 0)
		return err_set(FD_EINVAL,
		               _("line %1$ld: the bill's %2$s \"%3$.20s\" is not a count"), line,
		               sum_cols[T_COUNT].names[0], rec[idx[T_COUNT]]);
	v = digits(rec[idx[T_COUNT]], (int)strlen(rec[idx[T_COUNT]]));
	if ((size_t)v != rows)
		return err_set(FD_EINVAL,
		               _("line %1$ld: the bill's summary says %2$lld rows, the file "
		                 "has %3$zu"),
		               line, (long long)v, rows);
	for (i = T_SETTLE; i < T_NCOLS; i++) {
		if (idx[i] < 0)
			continue;
		if ((rc = amount(rec[idx[i]], cur, line, sum_cols[i].names[0], &v)))
			return rc;
		if (v != sums[sum_of[i]]) {
			money_format(v, cur, 0, want, sizeof want);
			money_format(sums[sum_of[i]], cur, 0, have, sizeof have);
			return err_set(
			    FD_EINVAL,
			    _("line %1$ld: the bill's summary says %2$s is %3$s, the rows "
			      "add up to %4$s"),
			    line, sum_cols[i].names[0], want, have);
		}
	}
	return 0;
}

static int read_bill(struct csv_reader *r, const int *idx, size_t ncols, struct settle_file *out)
{
	const struct currency *cur = NULL;
	struct chan_settle_line *l;
	int64_t sums[W_NCOLS] = {0};
	int sidx[T_NCOLS];
	size_t cap = 0, sum_n = 0;
	long line = 0, sum_line = 0;
	int rc, state = 0; /* 0 rows, 1 summary header read, 2 summary row read */

	while ((rc = csv_next(r, &line)) == 1) {
		if (state == 2)
			return err_set(FD_EINVAL, _("line %ld: text after the bill's summary"),
			               line);
		if (state == 0 && r->n && !strcmp(r->field[0], sum_cols[T_COUNT].names[0])) {
			if ((rc = find_cols(r->field, r->n, sum_cols, T_NCOLS, sidx, line)))
				return rc;
			sum_n = r->n;
			sum_line = line;
			state = 1;
			continue;
		}
		if ((rc = unquote_row(r, line)))
			return rc;
		if (state == 1) {
			if (r->n != sum_n)
				return err_set(
				    FD_EINVAL,
				    _("line %1$ld has %2$zu fields, the summary's header "
				      "%3$zu (cut short?)"),
				    line, r->n, sum_n);
			if ((rc = bill_summary(r->field, sidx, line,
			                       cur ? cur : currency_find("CNY"), out->n, sums)))
				return rc;
			state = 2;
			continue;
		}
		if (r->n != ncols)
			return err_set(
			    FD_EINVAL,
			    _("line %1$ld has %2$zu fields, the header %3$zu (cut short?)"), line,
			    r->n, ncols);
		if ((rc = add_line(out, &cap, line, &l)) ||
		    (rc = bill_line(r->field, idx, line, &cur, sums, l)))
			return rc;
	}
	if (rc < 0)
		return rc;
	if (state == 0)
		return err_set(FD_EINVAL,
		               _("line %ld: the bill ends without its summary (cut short?)"),
		               line + 1);
	if (state == 1)
		return err_set(
		    FD_EINVAL,
		    _("line %ld: the bill's summary has a header and no row (cut short?)"),
		    sum_line);
	return 0;
}

/* ---------------------------------------------------------------- the file */

static int by_id(const void *a, const void *b)
{
	const struct chan_settle_line *x = *(struct chan_settle_line *const *)a,
	                              *y = *(struct chan_settle_line *const *)b;
	int c = strcmp(x->id, y->id);

	return c ? c : x->line_no - y->line_no;
}

/* No two lines share an id; first_created and last_created. */
static int finish(struct settle_file *out)
{
	struct chan_settle_line **v;
	size_t i;
	int rc = 0;

	for (i = 0; i < out->n; i++) {
		if (i == 0 || out->lines[i].created < out->first_created)
			out->first_created = out->lines[i].created;
		if (i == 0 || out->lines[i].created > out->last_created)
			out->last_created = out->lines[i].created;
	}
	if (out->n < 2)
		return 0;
	v = xmalloc(out->n * sizeof *v);
	for (i = 0; i < out->n; i++)
		v[i] = &out->lines[i];
	qsort(v, out->n, sizeof *v, by_id);
	for (i = 1; i < out->n && !rc; i++)
		if (!strcmp(v[i - 1]->id, v[i]->id))
			rc = err_set(FD_EINVAL,
			             _("line %1$d: the id %2$.60s is already on line %3$d"),
			             v[i]->line_no, v[i]->id, v[i - 1]->line_no);
	free(v);
	return rc;
}

/* The decoded text holds no NUL byte and ends with a whole line. */
static int text_check(const char *text, size_t tlen)
{
	size_t i;

	for (i = 0; i < tlen; i++)
		if (text[i] == '\0')
			return err_set(FD_EINVAL, _("line %ld: the file holds a NUL byte"),
			               line_at(text, tlen, i));
	if (tlen == 0 || text[tlen - 1] != '\n')
		return err_set(FD_EINVAL,
		               _("line %ld: the file ends in the middle of a line (cut short?)"),
		               line_at(text, tlen, tlen));
	return 0;
}

/* out->format from the header row of r (line), refused when want is the
 * trade bill and it is not one. */
static int read_format(struct csv_reader *r, long line, enum settle_format want, int *idx,
                       struct settle_file *out)
{
	if (!find_cols(r->field, r->n, bill_cols, 1, idx, line) && idx[0] >= 0)
		out->format = SETTLE_FORMAT_WECHAT_BILL;
	else if (!find_cols(r->field, r->n, stripe_cols, 1, idx, line) && idx[0] >= 0)
		out->format = SETTLE_FORMAT_STRIPE_CSV;
	if (want == SETTLE_FORMAT_WECHAT_BILL && out->format != want)
		return err_set(FD_EINVAL,
		               _("line %1$ld: this is not a trade bill: its header has no "
		                 "%2$s column"),
		               line, bill_cols[W_TIME].names[0]);
	return 0;
}

/* The rows after the header (line) in out->format. */
static int read_body(struct csv_reader *r, long line, int *idx, struct settle_file *out)
{
	int rc;

	if (out->format == SETTLE_FORMAT_WECHAT_BILL) {
		snprintf(out->adapter, sizeof out->adapter, "wechat");
		if (!(rc = find_cols(r->field, r->n, bill_cols, W_NCOLS, idx, line)))
			rc = read_bill(r, idx, r->n, out);
		return rc;
	}
	if (out->format == SETTLE_FORMAT_STRIPE_CSV) {
		snprintf(out->adapter, sizeof out->adapter, "stripe");
		if (!(rc = find_cols(r->field, r->n, stripe_cols, S_NCOLS, idx, line)))
			rc = read_stripe(r, idx, r->n, out);
		return rc;
	}
	return err_set(FD_EINVAL,
	               _("line %1$ld: this is neither a Stripe balance-transaction "
	                 "CSV (no id column) nor a trade bill (no %2$s column)"),
	               line, bill_cols[W_TIME].names[0]);
}

static int read_any(const void *data, size_t len, enum settle_format want, struct settle_file *out)
{
	struct csv_reader r;
	FILE *f = NULL;
	char *text = NULL;
	size_t tlen = 0;
	long line = 0;
	int idx[(int)S_NCOLS > (int)W_NCOLS ? (int)S_NCOLS : (int)W_NCOLS];
	int rc, opened = 0;

	memset(out, 0, sizeof *out);
	if (!data || len == 0)
		return err_set(FD_EINVAL, _("the settlement file is empty"));
	if (len > SETTLE_FILE_MAX)
		return err_set(FD_EINVAL, _("the settlement file is larger than %d bytes"),
		               SETTLE_FILE_MAX);
	if ((rc = decode(data, len, &text, &tlen)) != 0)
		goto out;
	if ((rc = text_check(text, tlen)) != 0)
		goto out;
	f = fmemopen(text, tlen, "r");
	if (!f) {
		rc = err_set(FD_EIO, _("cannot read the settlement file: %s"), strerror(errno));
		goto out;
	}
	csv_open(&r, f);
	opened = 1;
	rc = csv_next(&r, &line);
	if (rc == 0)
		rc = err_set(FD_EINVAL, _("the settlement file is empty"));
	if (rc < 0)
		goto out;
	if ((rc = read_format(&r, line, want, idx, out)) != 0)
		goto out;
	rc = read_body(&r, line, idx, out);
	if (!rc)
		rc = finish(out);
	if (!rc)
		rc = crypto_sha256_hex(data, len, out->sha256);
out:
	if (opened)
		csv_close(&r);
	if (f)
		fclose(f);
	free(text);
	if (rc) {
		settle_file_free(out);
		return rc < 0 ? rc : FD_EINVAL;
	}
	return 0;
}

int settle_file_read(const void *data, size_t len, struct settle_file *out)
{
	return read_any(data, len, SETTLE_FORMAT_UNKNOWN, out);
}

int settle_wechat_bill_read(const void *data, size_t len, struct settle_file *out)
{
	return read_any(data, len, SETTLE_FORMAT_WECHAT_BILL, out);
}
