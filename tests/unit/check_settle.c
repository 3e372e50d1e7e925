/*
 * check_settle.c - unit tests of settle-file.c: Stripe balance-transaction
 * CSV exports (both sets of column names) and WeChat style trade bills
 * (UTF-8, UTF-8 with a byte order mark, GBK) read exactly; every kind of
 * bad file refused whole, naming the right line.
 *
 * The files are built here from tables; what each line must read as is
 * computed from the same tables by this file's own means (its own decimal
 * reader and timegm), never copied from the reader's output.
 *
 * The "fake" case drives the WeChat style adapter's settlement fetch
 * against tests/chan/fake-wechat.py (started here, steered with curl): a window
 * across two China days, its bills in GBK and in UTF-8 with a BOM, a trade
 * the shop never asked for, a refund, and the channel's refusals.
 */
#include <config.h>

#include <check.h>
#include <iconv.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chan-wechat.h"
#include "err.h"
#include "settle-file.h"
#include "strbuf.h"

/* ---------------------------------------------------------------- helpers */

/* The test's own reading of "1,234.50" in minor units of a currency with
 * exp decimals: digits without the commas, the fraction padded to exp. */
static int64_t minor(const char *s, int exp)
{
	int64_t v = 0;
	int neg = 0, frac = -1;

	if (*s == '-') {
		neg = 1;
		s++;
	}
	for (; *s; s++) {
		if (*s == ',')
			continue;
		if (*s == '.') {
			frac = 0;
			continue;
		}
		v = v * 10 + (*s - '0');
		if (frac >= 0)
			frac++;
	}
	for (frac = frac < 0 ? 0 : frac; frac < exp; frac++)
		v *= 10;
	return neg ? -v : v;
}

/* "YYYY-MM-DD HH:MM[:SS]" at offset seconds east of UTC, by timegm. */
static int64_t utc(const char *s, long offset)
{
	struct tm tm;

	memset(&tm, 0, sizeof tm);
	ck_assert(sscanf(s, "%d-%d-%d %d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
	                 &tm.tm_min, &tm.tm_sec) >= 5);
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) - offset;
}

/* The 1-based line on which the text at off starts. */
static int line_of(const char *text, const char *at)
{
	int line = 1;

	for (; text < at; text++)
		line += *text == '\n';
	return line;
}

/* The file must be refused whole with a reason naming line `line`. */
static void refused(const char *text, size_t len, int line, const char *why)
{
	struct settle_file f;
	char want[40];
	int rc;

	memset(&f, 0x5a, sizeof f);
	rc = settle_file_read(text, len, &f);
	ck_assert_msg(rc == FD_EINVAL, "should be refused (%s), got %d", why, rc);
	ck_assert_ptr_null(f.lines);
	ck_assert_uint_eq(f.n, 0);
	snprintf(want, sizeof want, "line %d", line);
	ck_assert_msg(strstr(err_msg(), want) != NULL, "'%s' does not name %s", err_msg(), want);
	ck_assert_msg(strstr(err_msg(), why) != NULL, "'%s' lacks '%s'", err_msg(), why);
}

/* ---------------------------------------------------------------- Stripe */

struct srow {
	const char *id, *type, *source, *amount, *fee, *net, *currency, *created, *available,
	    *description, *pi, *order_no;
	enum chan_settle_kind kind;
	int exp;
};

static const struct srow srows[] = {
    {"txn_1", "charge", "ch_1", "1,234.50", "36.10", "1,198.40", "usd", "2026-11-30 14:05",
     "2026-12-02 00:00", "Detailing, full\nexterior \"deluxe\"", "pi_1", "FD-000101",
     CHAN_SETTLE_CHARGE, 2},
    {"txn_2", "refund", "re_2", "-0.01", "0.00", "-0.01", "usd", "2026-11-30 15:00:07",
     "2026-11-30 15:00:07", "Refund for FD-000101", "pi_1", "FD-000101", CHAN_SETTLE_REFUND, 2},
    {"txn_3", "payout", "po_3", "-1,000.00", "0", "-1,000.00", "usd", "2026-11-30 23:59:59", "",
     "STRIPE PAYOUT", "", "", CHAN_SETTLE_PAYOUT, 2},
    {"txn_4", "stripe_fee", "", "-2.00", "0.00", "-2.00", "usd", "2026-11-30 00:00", "",
     "Radar fee", "", "", CHAN_SETTLE_FEE, 2},
    {"txn_5", "adjustment", "du_5", "-15.00", "15.00", "-30.00", "usd", "2026-11-30 08:00", "",
     "Chargeback", "", "", CHAN_SETTLE_ADJUSTMENT, 2},
    {"txn_6", "charge", "ch_6", "1,500", "45", "1,455", "JPY", "2026-11-30 09:15:00",
     "2026-12-03 00:00", "Wash", "pi_6", "FD-000106", CHAN_SETTLE_CHARGE, 0},
    {"txn_7", "transfer", "tr_7", "0", "0", "0", "usd", "2026-11-30 10:00", "", "", "", "",
     CHAN_SETTLE_OTHER, 2},
};
#define NSROWS (sizeof srows / sizeof srows[0])

/* The dashboard export: a BOM, CRLF, quoted fields. starts[i] gets where
 * row i begins in the text. */
static char *stripe_export(const char **starts)
{
	struct strbuf sb = {0};
	size_t i;
	const char *p;

	sb_puts(&sb, "\xef\xbb\xbfid,Type,Source,Amount,Fee,Net,Currency,Created (UTC),"
	             "Available On (UTC),Description,payment_intent_id,"
	             "payment_metadata[order_no]\r\n");
	for (i = 0; i < NSROWS; i++) {
		const struct srow *r = &srows[i];

		if (starts)
			starts[i] = (const char *)(uintptr_t)sb.len; /* an offset until the end */
		sb_printf(&sb, "%s,%s,%s,\"%s\",\"%s\",\"%s\",%s,%s,%s,\"", r->id, r->type,
		          r->source, r->amount, r->fee, r->net, r->currency, r->created,
		          r->available);
		for (p = r->description; *p; p++)
			sb_printf(&sb, *p == '"' ? "\"\"" : "%c", *p);
		sb_printf(&sb, "\",%s,%s\r\n", r->pi, r->order_no);
	}
	if (starts)
		for (i = 0; i < NSROWS; i++)
			starts[i] = sb.s + (uintptr_t)starts[i];
	return sb.s;
}

static void check_stripe_lines(const struct settle_file *f, const char *text, const char **starts)
{
	size_t i;

	ck_assert_int_eq(f->format, SETTLE_FORMAT_STRIPE_CSV);
	ck_assert_str_eq(f->adapter, "stripe");
	ck_assert_uint_eq(f->n, NSROWS);
	for (i = 0; i < NSROWS; i++) {
		const struct srow *r = &srows[i];
		const struct chan_settle_line *l = &f->lines[i];
		char cur[4];
		int k;

		for (k = 0; k < 3; k++)
			cur[k] = (char)(r->currency[k] & ~0x20);
		cur[3] = '\0';
		ck_assert_str_eq(l->id, r->id);
		ck_assert_str_eq(l->type, r->type);
		ck_assert_int_eq(l->kind, r->kind);
		ck_assert_str_eq(l->source, r->source);
		ck_assert_int_eq(l->amount, minor(r->amount, r->exp));
		ck_assert_int_eq(l->fee, minor(r->fee, r->exp));
		ck_assert_int_eq(l->net, minor(r->net, r->exp));
		ck_assert_int_eq(l->net, l->amount - l->fee);
		ck_assert_str_eq(l->currency, cur);
		ck_assert_int_eq(l->created, utc(r->created, 0));
		ck_assert_int_eq(l->available_on, *r->available ? utc(r->available, 0) : 0);
		ck_assert_str_eq(l->order_id, r->pi);
		ck_assert_str_eq(l->order_no, r->order_no);
		if (starts)
			ck_assert_int_eq(l->line_no, line_of(text, starts[i]));
		if (r->kind == CHAN_SETTLE_REFUND)
			ck_assert_str_eq(l->refund_id, r->source);
		if (r->kind == CHAN_SETTLE_PAYOUT)
			ck_assert_str_eq(l->payout_id, r->source);
	}
}

START_TEST(test_stripe_export)
{
	const char *starts[NSROWS];
	char *text = stripe_export(starts);
	struct settle_file f;

	ck_assert_msg(settle_file_read(text, strlen(text), &f) == 0, "%s", err_msg());
	check_stripe_lines(&f, text, starts);
	/* the description's line break makes the second row start on line 4 */
	ck_assert_int_eq(f.lines[0].line_no, 2);
	ck_assert_int_eq(f.lines[1].line_no, 4);
	ck_assert_int_eq(f.lines[0].amount, 123450);
	ck_assert_int_eq(f.lines[1].amount, -1);
	ck_assert_int_eq(f.first_created, utc("2026-11-30 00:00", 0));
	ck_assert_int_eq(f.last_created, utc("2026-11-30 23:59:59", 0));
	ck_assert_uint_eq(strlen(f.sha256), 64);
	settle_file_free(&f);
	ck_assert_ptr_null(f.lines);
	free(text);
}
END_TEST

/* The same file as LF and without the BOM reads the same lines, with
 * another hash. */
START_TEST(test_stripe_lf)
{
	char *text = stripe_export(NULL), *lf = malloc(strlen(text) + 1), *o = lf;
	const char *p;
	struct settle_file a, b;

	for (p = text + 3; *p; p++)
		if (!(p[0] == '\r' && p[1] == '\n'))
			*o++ = *p;
	*o = '\0';
	ck_assert_msg(settle_file_read(text, strlen(text), &a) == 0, "%s", err_msg());
	ck_assert_msg(settle_file_read(lf, strlen(lf), &b) == 0, "%s", err_msg());
	check_stripe_lines(&b, lf, NULL);
	ck_assert_str_ne(a.sha256, b.sha256);
	ck_assert_uint_eq(a.n, b.n);
	settle_file_free(&a);
	settle_file_free(&b);
	free(text);
	free(lf);
}
END_TEST

/* The itemized balance change report: other column names, in another
 * order, with columns we do not know. */
START_TEST(test_stripe_itemized)
{
	const char *text =
	    "balance_transaction_id,created_utc,available_on_utc,currency,gross,fee,net,"
	    "reporting_category,source_id,description,customer_facing_amount,payment_intent_id,"
	    "charge_id,refund_id,automatic_payout_id,payment_metadata[order_no]\n"
	    "txn_a,2026-11-30 10:00:00,2026-12-02 00:00:00,eur,49.90,1.70,48.20,charge,ch_a,"
	    "Polish,49.90,pi_a,ch_a,,po_z,FD-000300\n"
	    "txn_b,2026-11-30 11:00:00,2026-12-02 00:00:00,eur,-9.90,0.00,-9.90,refund,re_b,"
	    ",-9.90,pi_a,ch_a,re_b,po_z,FD-000300\n"
	    "txn_c,2026-11-30 12:00:00,2026-12-02 00:00:00,eur,-40.00,0.00,-40.00,dispute,du_c,"
	    ",,pi_a,ch_a,,po_z,FD-000300\n";
	struct settle_file f;

	ck_assert_msg(settle_file_read(text, strlen(text), &f) == 0, "%s", err_msg());
	ck_assert_uint_eq(f.n, 3);
	ck_assert_str_eq(f.lines[0].id, "txn_a");
	ck_assert_int_eq(f.lines[0].kind, CHAN_SETTLE_CHARGE);
	ck_assert_int_eq(f.lines[0].amount, 4990);
	ck_assert_int_eq(f.lines[0].fee, 170);
	ck_assert_int_eq(f.lines[0].net, 4820);
	ck_assert_str_eq(f.lines[0].currency, "EUR");
	ck_assert_str_eq(f.lines[0].order_id, "pi_a");
	ck_assert_str_eq(f.lines[0].order_no, "FD-000300");
	ck_assert_str_eq(f.lines[0].payout_id, "po_z");
	ck_assert_int_eq(f.lines[0].created, utc("2026-11-30 10:00:00", 0));
	ck_assert_int_eq(f.lines[1].kind, CHAN_SETTLE_REFUND);
	ck_assert_str_eq(f.lines[1].refund_id, "re_b");
	ck_assert_int_eq(f.lines[1].amount, -990);
	ck_assert_int_eq(f.lines[2].kind, CHAN_SETTLE_ADJUSTMENT);
	ck_assert_int_eq(f.lines[2].line_no, 4);
	settle_file_free(&f);
}
END_TEST

/* Replace the first occurrence of what in text by with (a new string). */
static char *replace(const char *text, const char *what, const char *with)
{
	const char *at = strstr(text, what);
	struct strbuf sb = {0};

	ck_assert_ptr_nonnull(at);
	sb_add(&sb, text, (size_t)(at - text));
	sb_puts(&sb, with);
	sb_puts(&sb, at + strlen(what));
	return sb.s;
}

START_TEST(test_stripe_refused)
{
	const char *starts[NSROWS];
	char *text = stripe_export(starts), *bad;
	size_t len = strlen(text);
	int last = line_of(text, starts[NSROWS - 1]);

	/* the last line cut short: no line break at the end */
	refused(text, len - 2, last, "cut short");
	refused(text, len - 5, last, "cut short");
	/* cut inside the quoted description, just after its line break */
	refused(text, (size_t)(strchr(starts[0], '\n') + 1 - text), 2, "never closed");
	/* a bad amount on the third row */
	bad = replace(text, "\"-1,000.00\",\"0\"", "\"-1,000.0x\",\"0\"");
	refused(bad, strlen(bad), line_of(text, starts[2]), "amount");
	free(bad);
	/* too many decimals (USD has 2, JPY none) */
	bad = replace(text, "\"36.10\"", "\"36.105\"");
	refused(bad, strlen(bad), 2, "at most 2 decimals");
	free(bad);
	bad = replace(text, "\"45\"", "\"45.5\"");
	refused(bad, strlen(bad), line_of(text, starts[5]), "no decimal part");
	free(bad);
	/* net is not amount - fee */
	bad = replace(text, "\"1,198.40\"", "\"1,198.41\"");
	refused(bad, strlen(bad), 2, "less the fee");
	free(bad);
	/* an amount past the money limit, and one past int64 */
	bad = replace(text, "\"0.00\",\"-0.01\"", "\"0.00\",\"-99999999999999999999.99\"");
	refused(bad, strlen(bad), line_of(text, starts[1]), "too large");
	free(bad);
	/* a required column missing */
	bad = replace(text, "Amount,Fee,", "Amount,Charges,");
	refused(bad, strlen(bad), 1, "\"fee\"");
	free(bad);
	/* a row with a field less */
	bad = replace(text, "txn_7,transfer,tr_7,", "txn_7,transfer,");
	refused(bad, strlen(bad), line_of(text, starts[6]), "fields");
	free(bad);
	/* a currency we do not know, a time that is not one */
	bad = replace(text, ",JPY,", ",XXX,");
	refused(bad, strlen(bad), line_of(text, starts[5]), "currency");
	free(bad);
	bad = replace(text, "2026-11-30 15:00:07,2026", "2026-11-31 15:00:07,2026");
	refused(bad, strlen(bad), line_of(text, starts[1]), "not a time");
	free(bad);
	/* the same balance transaction twice */
	bad = replace(text, "txn_4,", "txn_2,");
	refused(bad, strlen(bad), line_of(text, starts[3]), "already on line");
	free(bad);
	/* not a settlement file at all; empty; a NUL */
	refused("name,phone\nAnn,555\n", 19, 1, "neither");
	ck_assert_int_eq(settle_file_read("", 0, &(struct settle_file){0}), FD_EINVAL);
	refused("id,type\n\0\n", 10, 2, "NUL");
	/* past the size bound: refused before a byte is read */
	ck_assert_int_eq(
	    settle_file_read(text, (size_t)SETTLE_FILE_MAX + 1, &(struct settle_file){0}),
	    FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "larger than"));
	free(text);
}
END_TEST

/* ---------------------------------------------------------------- WeChat bill */

#define BILL_HEADER                                                                                                                      \
	"交易时间,公众账号ID,商户号,特约商户号,设备号,微信订单号,商户订单号,用户标识,交易类型,"     \
	"交易状态,付款银行,货币种类,应结订单金额,代金券金额,微信退款单号,商户退款单号,退款金额,"  \
	"充值券退款金额,退款类型,退款状态,商品名称,商户数据包,手续费,费率,订单金额,申请退款金额," \
	"费率备注"
#define SUM_HEADER                                                                                                           \
	"总交易单数,应结订单总金额,退款总金额,充值券退款总金额,手续费总金额,订单总金额," \
	"申请退款总金额"

struct brow {
	const char *time, *txid, *out_trade_no, *state, *wx_refund, *out_refund, *goods;
	int64_t settle, refund, fee; /* fen */
	enum chan_settle_kind kind;
};

static const struct brow brows[] = {
    {"2026-12-01 09:30:00", "4200000001202612010001", "FD-000201", "SUCCESS", "", "", "洗车, 打蜡",
     12800, 0, 77, CHAN_SETTLE_CHARGE},
    {"2026-12-01 00:00:00", "4200000001202612010002", "FD-000202", "SUCCESS", "", "", "内饰", 1, 0,
     0, CHAN_SETTLE_CHARGE},
    {"2026-12-01 23:59:59", "4200000001202612010001", "FD-000201", "REFUND",
     "50300000012026120100011", "rf-key-1", "洗车, 打蜡", 0, 2800, -17, CHAN_SETTLE_REFUND},
    {"2026-12-01 12:00:00", "4200000001202612010003", "FD-000203", "SUCCESS", "", "", "抛光",
     123450, 0, 741, CHAN_SETTLE_CHARGE},
};
#define NBROWS (sizeof brows / sizeof brows[0])

/* fen as yuan text */
static void yuan(struct strbuf *sb, int64_t v)
{
	sb_printf(sb, "%s%lld.%02lld", v < 0 ? "-" : "", (long long)(v < 0 ? -v : v) / 100,
	          (long long)(v < 0 ? -v : v) % 100);
}

/* The bill in UTF-8; count_delta and fee_delta spoil the summary. */
static char *bill(int count_delta, int64_t fee_delta, const char *eol)
{
	struct strbuf sb = {0};
	int64_t settle = 0, refund = 0, fee = 0;
	size_t i;

	sb_printf(&sb, "%s%s", BILL_HEADER, eol);
	for (i = 0; i < NBROWS; i++) {
		const struct brow *r = &brows[i];
		int refund_row = r->kind == CHAN_SETTLE_REFUND;

		sb_printf(&sb,
		          "`%s,`wx2421b1c4370ec43b,`10000100,`0,`WEB,`%s,`%s,`oUpF8uMuAJO_M2pxb1Q,"
		          "`NATIVE,`%s,`CMC,`CNY,`",
		          r->time, r->txid, r->out_trade_no, r->state);
		yuan(&sb, r->settle);
		sb_printf(&sb, ",`0.00,`%s,`%s,`", refund_row ? r->wx_refund : "0",
		          refund_row ? r->out_refund : "0");
		yuan(&sb, r->refund);
		sb_printf(&sb, ",`0.00,`%s,`%s,\"`%s\",`attach,`", refund_row ? "ORIGINAL" : "",
		          refund_row ? "SUCCESS" : "", r->goods);
		yuan(&sb, r->fee);
		sb_puts(&sb, ",`0.60%,`");
		yuan(&sb, r->settle);
		sb_puts(&sb, ",`");
		yuan(&sb, r->refund);
		sb_printf(&sb, ",`%s", eol);
		settle += r->settle;
		refund += r->refund;
		fee += r->fee;
	}
	sb_printf(&sb, "%s%s`%d,`", SUM_HEADER, eol, (int)NBROWS + count_delta);
	yuan(&sb, settle);
	sb_puts(&sb, ",`");
	yuan(&sb, refund);
	sb_puts(&sb, ",`0.00,`");
	yuan(&sb, fee + fee_delta);
	sb_puts(&sb, ",`");
	yuan(&sb, settle);
	sb_puts(&sb, ",`");
	yuan(&sb, refund);
	sb_puts(&sb, eol);
	return sb.s;
}

/* text in GBK (through iconv), *len its bytes */
static char *to_gbk(const char *text, size_t *len)
{
	iconv_t cd = iconv_open("GBK", "UTF-8");
	size_t inleft = strlen(text), cap = inleft + 1, oleft = cap;
	char *in = (char *)text, *buf = malloc(cap), *o = buf;

	ck_assert(cd != (iconv_t)-1);
	ck_assert(iconv(cd, &in, &inleft, &o, &oleft) != (size_t)-1);
	iconv_close(cd);
	*len = (size_t)(o - buf);
	return buf;
}

static void check_bill(const struct settle_file *f)
{
	size_t i;

	ck_assert_int_eq(f->format, SETTLE_FORMAT_WECHAT_BILL);
	ck_assert_str_eq(f->adapter, "wechat");
	ck_assert_uint_eq(f->n, NBROWS);
	for (i = 0; i < NBROWS; i++) {
		const struct brow *r = &brows[i];
		const struct chan_settle_line *l = &f->lines[i];

		ck_assert_int_eq(l->line_no, (int)i + 2);
		ck_assert_int_eq(l->kind, r->kind);
		ck_assert_str_eq(l->type, r->state);
		ck_assert_str_eq(l->currency, "CNY");
		ck_assert_int_eq(l->created, utc(r->time, 8 * 3600));
		ck_assert_str_eq(l->order_no, r->out_trade_no);
		ck_assert_int_eq(l->fee, r->fee);
		if (r->kind == CHAN_SETTLE_REFUND) {
			ck_assert_str_eq(l->id, r->wx_refund);
			ck_assert_str_eq(l->refund_id, r->out_refund);
			ck_assert_int_eq(l->amount, -r->refund);
		} else {
			ck_assert_str_eq(l->id, r->txid);
			ck_assert_str_eq(l->source, r->txid);
			ck_assert_int_eq(l->amount, r->settle);
			ck_assert_str_eq(l->status, "SUCCESS");
		}
		ck_assert_int_eq(l->net, l->amount - l->fee);
	}
}

START_TEST(test_bill_encodings)
{
	char *text = bill(0, 0, "\r\n"), *gbk, *bom;
	size_t glen, tlen = strlen(text);
	struct settle_file a, b, c;

	gbk = to_gbk(text, &glen);
	ck_assert_uint_ne(glen, tlen); /* really another encoding */
	bom = malloc(tlen + 3);
	memcpy(bom, "\xef\xbb\xbf", 3);
	memcpy(bom + 3, text, tlen);
	ck_assert_msg(settle_file_read(text, tlen, &a) == 0, "%s", err_msg());
	ck_assert_msg(settle_file_read(gbk, glen, &b) == 0, "%s", err_msg());
	ck_assert_msg(settle_wechat_bill_read(bom, tlen + 3, &c) == 0, "%s", err_msg());
	check_bill(&a);
	check_bill(&b);
	check_bill(&c);
	/* China midnight is 16:00 UTC the day before */
	ck_assert_int_eq(a.lines[1].created, utc("2026-11-30 16:00:00", 0));
	ck_assert_int_eq(a.first_created, a.lines[1].created);
	ck_assert_int_eq(a.last_created, a.lines[2].created);
	ck_assert_int_eq(memcmp(a.lines, b.lines, NBROWS * sizeof *a.lines), 0);
	ck_assert_int_eq(memcmp(a.lines, c.lines, NBROWS * sizeof *a.lines), 0);
	ck_assert_str_ne(a.sha256, b.sha256);
	settle_file_free(&a);
	settle_file_free(&b);
	settle_file_free(&c);
	free(text);
	free(gbk);
	free(bom);
}
END_TEST

START_TEST(test_bill_refused)
{
	char *text, *bad;
	size_t glen;
	struct settle_file f;
	int sum_line = (int)NBROWS + 3;

	/* the summary does not add up: a row count, a fee total */
	text = bill(1, 0, "\n");
	refused(text, strlen(text), sum_line, "summary says 5 rows, the file has 4");
	free(text);
	text = bill(0, 1, "\n");
	refused(text, strlen(text), sum_line, "手续费总金额");
	free(text);
	/* also in GBK, the same line named */
	text = bill(-1, 0, "\r\n");
	bad = to_gbk(text, &glen);
	refused(bad, glen, sum_line, "summary says 3 rows");
	free(bad);
	free(text);
	text = bill(0, 0, "\n");
	/* cut short: the summary row, the summary, a row */
	refused(text, strlen(text) - 1, sum_line, "cut short");
	refused(text, (size_t)(strstr(text, "总交易单数") - text), (int)NBROWS + 2, "summary");
	bad = replace(text, ",`0.60%,`123", "\n");
	refused(bad, strlen(bad), 5, "fields");
	free(bad);
	/* a field without its backquote, a bad amount, too many decimals */
	bad = replace(text, "`FD-000202", "FD-000202");
	refused(bad, strlen(bad), 3, "backquote");
	free(bad);
	bad = replace(text, "`0.77", "`0.7.7");
	refused(bad, strlen(bad), 2, "手续费");
	free(bad);
	bad = replace(text, "`0.77", "`0.775");
	refused(bad, strlen(bad), 2, "at most 2 decimals");
	free(bad);
	/* text after the summary; a bill without its 交易时间 column */
	bad = malloc(strlen(text) + 8);
	sprintf(bad, "%s`9,`0\n", text);
	refused(bad, strlen(bad), sum_line + 1, "after the bill's summary");
	free(bad);
	ck_assert_int_eq(settle_wechat_bill_read("id,type\n", 8, &f), FD_EINVAL);
	ck_assert_ptr_null(strstr(err_msg(), "line 2"));
	/* bytes that are neither UTF-8 nor GBK */
	bad = replace(text, "内饰", "\xff\xff");
	refused(bad, strlen(bad), 3, "neither UTF-8 nor GBK");
	free(bad);
	free(text);
}
END_TEST

/* ---------------------------------------------------------------- the adapter's fetch */

#define WX_KEY "made_up_merchant_key_0123456789ab"
#define CN     (8 * 3600)

static pid_t fake_pid;
static char base[64];
static struct chan_ctx *wx;

static void fake_setup(void)
{
	const char *top = getenv("TOP_SRCDIR");
	struct chan_wechat_cfg cfg = {0};
	char script[512], line[64];
	int fds[2], port = 0;
	FILE *f;

	unsetenv("http_proxy");
	unsetenv("HTTP_PROXY");
	unsetenv("all_proxy");
	unsetenv("ALL_PROXY");
	snprintf(script, sizeof script, "%s/tests/chan/fake-wechat.py", top ? top : ".");
	ck_assert_int_eq(pipe(fds), 0);
	fake_pid = fork();
	ck_assert_int_ge(fake_pid, 0);
	if (fake_pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execlp("python3", "python3", script, "--key", WX_KEY, "--max-seconds", "300",
		       (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
	ck_assert_int_eq(sscanf(line, "PORT %d", &port), 1);
	fclose(f);
	snprintf(base, sizeof base, "http://127.0.0.1:%d", port);
	cfg.base_url = base;
	cfg.appid = "wx_made_up_appid";
	cfg.mch_id = "10000100";
	cfg.key = WX_KEY;
	cfg.total_timeout_ms = 15000;
	ck_assert_int_eq(chan_wechat_open(&cfg, &wx), 0);
}

static void fake_teardown(void)
{
	chan_wechat_ops.close(wx);
	wx = NULL;
	kill(fake_pid, SIGTERM);
	waitpid(fake_pid, NULL, 0);
}

/* POST json to the fake's control path what; its answer in buf. */
static void ctl(const char *what, const char *json, char *buf, size_t n)
{
	char cmd[1024];
	FILE *p;
	size_t got;

	snprintf(cmd, sizeof cmd, "curl -s --max-time 10 -d '%s' %s/_control/%s", json, base, what);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	got = fread(buf, 1, n - 1, p);
	buf[got] = '\0';
	ck_assert_int_eq(pclose(p), 0);
}

static void ctlf(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ctlf(const char *what, const char *fmt, ...)
{
	char json[256], buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(json, sizeof json, fmt, ap);
	va_end(ap);
	ctl(what, json, buf, sizeof buf);
}

/* An order created through the adapter. */
static void create(const char *no, int64_t fen)
{
	struct chan_create in = {0};
	struct chan_order o;
	struct chan_status st;

	in.order_no = no;
	in.amount = fen;
	in.currency = "CNY";
	in.description = "wash";
	in.idem_key = no;
	ck_assert_int_eq(chan_wechat_ops.create_payment(wx, &in, &o, &st), CHAN_OK);
}

/* The fetched line whose order number is no and kind is kind. */
static const struct chan_settle_line *find(const struct chan_settle_line *l, size_t n,
                                           const char *no, enum chan_settle_kind kind)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(l[i].order_no, no) && l[i].kind == kind)
			return &l[i];
	return NULL;
}

/* How many bills the fake was asked for. */
static int bills_asked(void)
{
	static char buf[65536];
	const char *p = buf;
	int n = 0;

	ctl("log", "{}", buf, sizeof buf);
	while ((p = strstr(p, "/pay/downloadbill")) != NULL) {
		n++;
		p++;
	}
	return n;
}

static void check_charge(const struct chan_settle_line *l, size_t n, const char *no, int64_t fen,
                         int64_t when)
{
	const struct chan_settle_line *c = find(l, n, no, CHAN_SETTLE_CHARGE);
	int64_t fee = (fen * 6 + 500) / 1000; /* the fake's 0.6%, half up */

	ck_assert_msg(c != NULL, "no charge of %s", no);
	ck_assert_int_eq(c->amount, fen);
	ck_assert_int_eq(c->fee, fee);
	ck_assert_int_eq(c->net, fen - fee);
	ck_assert_int_eq(c->created, when);
	ck_assert_str_eq(c->currency, "CNY");
	ck_assert_str_eq(c->type, "SUCCESS");
	ck_assert_str_eq(c->order_id, no);
	ck_assert_str_ne(c->id, "");
	ck_assert_str_eq(c->source, c->id);
	ck_assert_int_eq(c->line_no, 0);
}

START_TEST(test_wechat_fetch_two_days)
{
	int64_t from = utc("2026-12-01 12:00:00", CN), to = utc("2026-12-02 12:00:00", CN);
	int64_t t1 = utc("2026-12-01 23:30:00", CN), t2 = utc("2026-12-02 00:10:00", CN);
	int64_t t3 = utc("2026-12-02 09:00:00", CN), t4 = utc("2026-12-02 11:59:59", CN);
	struct chan_settle_line *a = NULL, *b = NULL;
	const struct chan_settle_line *r;
	struct chan_refund rf;
	struct chan_status st;
	size_t na = 0, nb = 0;

	create("FD-S1", 10000);
	create("FD-S2", 1);
	create("FD-S3", 2500);
	create("FD-S4", 700); /* never paid: in no bill */
	ctlf("trade/FD-S1", "{\"state\": \"SUCCESS\", \"time\": %lld}", (long long)t1);
	ctlf("trade/FD-S2", "{\"state\": \"SUCCESS\", \"time\": %lld}", (long long)t2);
	/* paid the first day, before the window: in its bill, not in the lines */
	ctlf("trade/FD-S3", "{\"state\": \"SUCCESS\", \"time\": %lld}",
	     (long long)utc("2026-12-01 08:00:00", CN));
	ck_assert_int_eq(chan_wechat_ops.refund(wx, "FD-S1", 1000, "rf-S1", &rf, &st), CHAN_OK);
	ctlf("refund/rf-S1", "{\"status\": \"SUCCESS\", \"time\": %lld}", (long long)t3);
	/* a trade the desk never knew of, and one at the window's end (out) */
	ctlf("foreign_trade", "{\"no\": \"FD-X9\", \"fee\": 5000, \"time\": %lld}", (long long)t4);
	ctlf("foreign_trade", "{\"no\": \"FD-X10\", \"fee\": 300, \"time\": %lld}", (long long)to);
	ctlf("mode", "{\"bill_gbk\": true}");

	ck_assert_int_eq(bills_asked(), 0);
	ck_assert_msg(chan_wechat_ops.settlement(wx, from, to, &a, &na, &st) == CHAN_OK, "%s",
	              st.reason);
	ck_assert_int_eq(bills_asked(), 2); /* one bill a China day */
	ck_assert_uint_eq(na, 4);
	check_charge(a, na, "FD-S1", 10000, t1);
	check_charge(a, na, "FD-S2", 1, t2);
	check_charge(a, na, "FD-X9", 5000, t4);
	r = find(a, na, "FD-S1", CHAN_SETTLE_REFUND);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->amount, -1000);
	ck_assert_int_eq(r->fee, -6);
	ck_assert_int_eq(r->net, -994);
	ck_assert_int_eq(r->created, t3);
	ck_assert_str_eq(r->refund_id, "rf-S1");
	ck_assert_str_eq(r->status, "SUCCESS");
	ck_assert_ptr_null(find(a, na, "FD-S3", CHAN_SETTLE_CHARGE));
	ck_assert_ptr_null(find(a, na, "FD-X10", CHAN_SETTLE_CHARGE));

	/* the same bills in UTF-8 with a BOM read the same */
	ctlf("mode", "{\"bill_gbk\": false, \"bill_bom\": true}");
	ck_assert_int_eq(chan_wechat_ops.settlement(wx, from, to, &b, &nb, &st), CHAN_OK);
	ck_assert_uint_eq(nb, na);
	ck_assert_int_eq(memcmp(a, b, na * sizeof *a), 0);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_wechat_fetch_refusals)
{
	int64_t day = utc("2026-12-05 00:00:00", CN);
	struct chan_settle_line *l = (void *)1;
	struct chan_status st;
	size_t n = 7;

	/* a day without a trade: "No Bill Exist" is an empty day */
	ck_assert_int_eq(chan_wechat_ops.settlement(wx, day, day + 86400, &l, &n, &st), CHAN_OK);
	ck_assert_uint_eq(n, 0);
	free(l);
	ck_assert_int_eq(chan_wechat_ops.settlement(wx, day, day, &l, &n, &st), CHAN_OK);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(chan_wechat_ops.settlement(wx, day, day + 63 * 86400, &l, &n, &st),
	                 CHAN_BADDATA);
	ck_assert_ptr_null(l);
	ctlf("foreign_trade", "{\"no\": \"FD-Y1\", \"fee\": 100, \"time\": %lld}",
	     (long long)day + 3600);
	/* the channel's refusals */
	ctlf("mode", "{\"bill_error\": \"SYSTEMERROR\"}");
	ck_assert_int_eq(chan_wechat_ops.settlement(wx, day, day + 86400, &l, &n, &st), CHAN_RETRY);
	ck_assert_ptr_nonnull(strstr(st.reason, "SYSTEMERROR"));
	ck_assert_ptr_null(l);
	ck_assert_uint_eq(n, 0);
	ctlf("mode", "{\"bill_error\": \"invalid bill_date\"}");
	ck_assert_int_eq(chan_wechat_ops.settlement(wx, day, day + 86400, &l, &n, &st),
	                 CHAN_REFUSED);
	/* a bill whose summary does not add up is not believed */
	ctlf("mode", "{\"bill_error\": \"\", \"bill_bad_summary\": true}");
	ck_assert_int_eq(chan_wechat_ops.settlement(wx, day, day + 86400, &l, &n, &st),
	                 CHAN_BADDATA);
	ck_assert_msg(strstr(st.reason, "summary says 2 rows, the file has 1") != NULL, "%s",
	              st.reason);
	ck_assert_ptr_null(l);
	ctlf("mode", "{\"bill_bad_summary\": false}");
	ck_assert_int_eq(chan_wechat_ops.settlement(wx, day, day + 86400, &l, &n, &st), CHAN_OK);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(l[0].order_no, "FD-Y1");
	free(l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("settle");
	TCase *tc = tcase_create("settle"), *fake = tcase_create("fake");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_stripe_export);
	tcase_add_test(tc, test_stripe_lf);
	tcase_add_test(tc, test_stripe_itemized);
	tcase_add_test(tc, test_stripe_refused);
	tcase_add_test(tc, test_bill_encodings);
	tcase_add_test(tc, test_bill_refused);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(fake, fake_setup, fake_teardown);
	tcase_add_test(fake, test_wechat_fetch_two_days);
	tcase_add_test(fake, test_wechat_fetch_refusals);
	tcase_set_timeout(fake, 60);
	suite_add_tcase(s, fake);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
