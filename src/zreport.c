/*
 * zreport.c - the Z report of a shop day (see zreport.h): day_figures_get's
 * figures laid out with print.c's pieces (print_layout, print_pair, ...),
 * so that it keeps the same invariants as an invoice: every line within
 * the width in display columns, figures whole, stored text sanitised.
 *
 * The takings are a table (method, currency, count, received, refunded,
 * net) when every column fits the width with the method's column at least
 * 8 wide; else (a receipt printer's 42 columns with large figures) each
 * method is a heading with its figures below it, one pair a line. The PDF
 * is the 80-column text, set by print_text_write.
 *
 * Callers: cli-day.c.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "dayclose.h"
#include "err.h"
#include "i18n.h"
#include "money.h"
#include "print.h"
#include "strbuf.h"
#include "text.h"
#include "words.h"
#include "xalloc.h"
#include "zreport.h"

struct zr {
	const struct day_figures *f;
	struct strbuf *out;
	int width;
};

/* Totals of one currency over the day's methods (or checks). */
struct ztotal {
	char currency[4];
	int64_t received, refunded, net;
};

static const char *when_of(int64_t t, char buf[32])
{
	clock_format_local(t, "%Y-%m-%d %H:%M", buf, 32);
	return buf;
}

static const char *money_of(int64_t v, const char *code, char buf[MONEY_BUFSZ])
{
	return money_text(v, code, 1, buf);
}

/* "1,234.50 USD": an amount where a list may hold several currencies. */
static const char *money_cur(int64_t v, const char *code, char buf[MONEY_BUFSZ + 8])
{
	char m[MONEY_BUFSZ];

	snprintf(buf, MONEY_BUFSZ + 8, "%s %s", money_of(v, code, m), code);
	return buf;
}

static void heading(struct zr *z, const char *title)
{
	print_rule(z->out, z->width, '-');
	print_wrapped(z->out, z->width, 0, title);
}

/* A pair of a list, indented by two columns (the indent is not the
 * translation's: a translated label is never padded). */
static void ipair(struct zr *z, const char *label, const char *value)
{
	struct strbuf l = {0};

	sb_printf(&l, "  %s", label);
	print_pair(z->out, z->width, sb_cstr(&l), value);
	sb_free(&l);
}

static void none(struct zr *z)
{
	print_wrapped(z->out, z->width, 2, _("none"));
}

/* The totals entry of currency code in *t (n entries), added when new. */
static struct ztotal *total_of(struct ztotal **t, size_t *n, const char *code)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*t)[i].currency, code))
			return &(*t)[i];
	*t = xrealloc(*t, (*n + 1) * sizeof **t);
	memset(&(*t)[*n], 0, sizeof **t);
	snprintf((*t)[*n].currency, sizeof(*t)[*n].currency, "%s", code);
	return &(*t)[(*n)++];
}

/* a + b, or a when the sum would leave the money limit's neighbourhood
 * (money_add refuses only what int64_t cannot hold) */
static int64_t add(int64_t a, int64_t b)
{
	int64_t s;

	return money_add(a, b, &s) == 0 ? s : a;
}

static void spaces(struct strbuf *out, int n)
{
	while (n-- > 0)
		sb_add(out, " ", 1);
}

/* A cell right-aligned in w columns, after gap blanks. */
static void cell_right(struct strbuf *out, const char *s, int w, int gap)
{
	spaces(out, gap + w - print_columns(s));
	sb_puts(out, s);
}

static int maxw(int a, const char *s)
{
	int w = print_columns(s);

	return w > a ? w : a;
}

/* ---------------------------------------------------------------- sections */

static void put_state(struct zr *z)
{
	const struct day_figures *f = z->f;
	char t[32], n[32];

	print_pair(z->out, z->width, _("Z REPORT"), f->day);
	print_pair(z->out, z->width, _("Status"),
	           f->closed   ? C_("day", "closed")
	           : f->closes ? _("reopened")
	                       : C_("day", "open"));
	if (f->closes) {
		print_pair(z->out, z->width, f->closed ? _("Closed at") : _("Last closed at"),
		           when_of(f->closed_at, t));
		print_pair(z->out, z->width, f->closed ? _("Closed by") : _("Last closed by"),
		           f->closed_by);
		snprintf(n, sizeof n, "%d", f->closes);
		print_pair(z->out, z->width, _("Closes"), n);
		snprintf(n, sizeof n, "%d", f->reopens);
		print_pair(z->out, z->width, _("Reopens"), n);
	}
}

/* The takings as a table, when it fits; 0 when it does not (nothing is
 * written then). */
static int takings_table(struct zr *z, char (*cnt)[24], char (*rec)[MONEY_BUFSZ],
                         char (*ref)[MONEY_BUFSZ], char (*net)[MONEY_BUFSZ], char **label,
                         char **cur)
{
	const struct day_figures *f = z->f;
	const char *hm = _("Method"), *hc = _("Cur."), *hn = _("Count"),
	           *hr = C_("amount", "Received"), *hf = _("Refunded"), *ht = _("Net");
	int mw = print_columns(hm), cw = print_columns(hc), nw = print_columns(hn),
	    rw = print_columns(hr), fw = print_columns(hf), tw = print_columns(ht), room;
	size_t i;

	for (i = 0; i < f->nmethods; i++) {
		mw = maxw(mw, label[i]);
		cw = maxw(cw, cur[i]);
		nw = maxw(nw, cnt[i]);
		rw = maxw(rw, rec[i]);
		fw = maxw(fw, ref[i]);
		tw = maxw(tw, net[i]);
	}
	room = z->width - (cw + 2) - (nw + 2) - (rw + 2) - (fw + 2) - (tw + 2);
	if (room < mw || room < 8)
		return 0;
	sb_puts(z->out, hm);
	spaces(z->out, room - print_columns(hm) + 2);
	sb_puts(z->out, hc);
	spaces(z->out, cw - print_columns(hc));
	cell_right(z->out, hn, nw, 2);
	cell_right(z->out, hr, rw, 2);
	cell_right(z->out, hf, fw, 2);
	cell_right(z->out, ht, tw, 2);
	sb_add(z->out, "\n", 1);
	for (i = 0; i < f->nmethods; i++) {
		sb_puts(z->out, label[i]);
		spaces(z->out, room - print_columns(label[i]) + 2);
		sb_puts(z->out, cur[i]);
		spaces(z->out, cw - print_columns(cur[i]));
		cell_right(z->out, cnt[i], nw, 2);
		cell_right(z->out, rec[i], rw, 2);
		cell_right(z->out, ref[i], fw, 2);
		cell_right(z->out, net[i], tw, 2);
		sb_add(z->out, "\n", 1);
	}
	return 1;
}

static void put_takings(struct zr *z)
{
	const struct day_figures *f = z->f;
	size_t n = f->nmethods, i, nt = 0;
	char(*cnt)[24] = xcalloc(n ? n : 1, sizeof *cnt);
	char(*rec)[MONEY_BUFSZ] = xcalloc(n ? n : 1, sizeof *rec);
	char(*ref)[MONEY_BUFSZ] = xcalloc(n ? n : 1, sizeof *ref);
	char(*net)[MONEY_BUFSZ] = xcalloc(n ? n : 1, sizeof *net);
	char **label = xcalloc(n ? n : 1, sizeof *label), **cur = xcalloc(n ? n : 1, sizeof *cur);
	struct ztotal *tot = NULL;
	char m[MONEY_BUFSZ];

	heading(z, _("Takings by method"));
	for (i = 0; i < n; i++) {
		const struct day_method *dm = &f->methods[i];
		struct ztotal *t = total_of(&tot, &nt, dm->currency);

		label[i] = text_sanitize(words_label(dm->method));
		cur[i] = text_sanitize(dm->currency);
		snprintf(cnt[i], sizeof cnt[i], "%lld", (long long)dm->count);
		money_of(dm->received, dm->currency, rec[i]);
		money_of(dm->refunded, dm->currency, ref[i]);
		money_of(dm->net, dm->currency, net[i]);
		t->received = add(t->received, dm->received);
		t->refunded = add(t->refunded, dm->refunded);
		t->net = add(t->net, dm->net);
	}
	if (n == 0) {
		none(z);
	} else if (!takings_table(z, cnt, rec, ref, net, label, cur)) {
		for (i = 0; i < n; i++) {
			struct strbuf h = {0};

			sb_printf(&h, "%s %s", label[i], cur[i]);
			print_wrapped(z->out, z->width, 0, sb_cstr(&h));
			sb_free(&h);
			ipair(z, _("Payments"), cnt[i]);
			ipair(z, C_("amount", "Received"), rec[i]);
			ipair(z, _("Refunded"), ref[i]);
			ipair(z, _("Net"), net[i]);
		}
	}
	for (i = 0; i < nt; i++) {
		struct strbuf h = {0};

		/* TRANSLATORS: the heading of a Z report's totals in one
		   currency, %s is its ISO code ("USD") */
		sb_printf(&h, _("Total %s"), tot[i].currency);
		print_wrapped(z->out, z->width, 0, sb_cstr(&h));
		sb_free(&h);
		ipair(z, C_("amount", "Received"), money_of(tot[i].received, tot[i].currency, m));
		ipair(z, _("Refunds"), money_of(tot[i].refunded, tot[i].currency, m));
		ipair(z, _("Net"), money_of(tot[i].net, tot[i].currency, m));
	}
	for (i = 0; i < n; i++) {
		free(label[i]);
		free(cur[i]);
	}
	free(label);
	free(cur);
	free(cnt);
	free(rec);
	free(ref);
	free(net);
	free(tot);
}

static void put_voids(struct zr *z)
{
	const struct day_figures *f = z->f;
	char m[MONEY_BUFSZ + 8];
	size_t i;

	heading(z, _("Voided"));
	if (!f->nvoids)
		none(z);
	for (i = 0; i < f->nvoids; i++) {
		const struct day_void *v = &f->voids[i];
		struct strbuf l = {0};

		if (!strcmp(v->kind, "invoice"))
			sb_printf(&l, _("Invoice %s"), v->number);
		else
			sb_printf(&l, _("Payment %lld"), (long long)v->id);
		ipair(z, sb_cstr(&l), money_cur(v->amount, v->currency, m));
		if (v->reason) {
			l.len = 0;
			sb_printf(&l, _("Reason: %s"), v->reason);
			print_wrapped(z->out, z->width, 4, sb_cstr(&l));
		}
		sb_free(&l);
	}
}

static void put_credits(struct zr *z)
{
	const struct day_figures *f = z->f;
	char m[MONEY_BUFSZ + 8];
	size_t i;

	heading(z, _("Credit notes"));
	if (!f->ncredits)
		none(z);
	for (i = 0; i < f->ncredits; i++) {
		const struct day_credit *c = &f->credits[i];
		struct strbuf l = {0};

		sb_printf(&l, _("%1$s, corrects %2$s"), c->number, c->credits);
		ipair(z, sb_cstr(&l), money_cur(c->total, c->currency, m));
		sb_free(&l);
	}
}

static void put_drawer(struct zr *z, const struct drawer *d)
{
	struct strbuf h = {0};
	char m[MONEY_BUFSZ], t[32];

	sb_printf(&h, _("Drawer %1$s, session %2$lld"), d->desk, (long long)d->id);
	print_wrapped(z->out, z->width, 0, sb_cstr(&h));
	sb_free(&h);
	ipair(z, _("Opened by"), d->opened_by);
	ipair(z, _("Opened at"), when_of(d->opened_at, t));
	ipair(z, _("Currency"), d->currency);
	ipair(z, _("Float"), money_of(d->float_amount, d->currency, m));
	if (!drawer_figures_shown(d)) {
		/* the count is blind: no amount of an open drawer */
		snprintf(t, sizeof t, "%lld", (long long)d->moves);
		ipair(z, _("Movements"), t);
		ipair(z, _("Counted"), _("not yet"));
		return;
	}
	ipair(z, _("Cash taken"), money_of(d->taken, d->currency, m));
	ipair(z, _("Refunded"), money_of(d->refunded, d->currency, m));
	ipair(z, _("Voided"), money_of(d->voided, d->currency, m));
	ipair(z, _("Paid out"), money_of(d->paid_out, d->currency, m));
	ipair(z, _("Expected"), money_of(drawer_expected(d), d->currency, m));
	ipair(z, _("Counted"), money_of(d->counted, d->currency, m));
	ipair(z,
	      d->difference > 0   ? _("Over")
	      : d->difference < 0 ? _("Short")
	                          : _("Over/short"),
	      money_of(d->difference, d->currency, m));
	if (d->reason) {
		struct strbuf r = {0};

		sb_printf(&r, _("Reason: %s"), d->reason);
		print_wrapped(z->out, z->width, 4, sb_cstr(&r));
		sb_free(&r);
	}
	ipair(z, _("Counted by"), d->closed_by);
	ipair(z, _("Counted at"), when_of(d->closed_at, t));
}

static void put_drawers(struct zr *z)
{
	const struct day_figures *f = z->f;
	size_t i;

	heading(z, _("Cash drawers"));
	if (!f->ndrawers)
		none(z);
	for (i = 0; i < f->ndrawers; i++)
		put_drawer(z, &f->drawers[i]);
}

static void put_checks(struct zr *z)
{
	const struct day_figures *f = z->f;
	struct ztotal *tot = NULL;
	char m[MONEY_BUFSZ + 8];
	size_t i, nt = 0;

	heading(z, _("Checks to deposit"));
	if (!f->nchecks)
		none(z);
	for (i = 0; i < f->nchecks; i++) {
		const struct day_check *c = &f->checks[i];
		struct ztotal *t = total_of(&tot, &nt, c->currency);
		struct strbuf l = {0};

		if (c->reference)
			/* TRANSLATORS: a check on the Z report: the customer, then the
			   check's number */
			sb_printf(&l, _("%1$s, check %2$s"), c->customer ? c->customer : "",
			          c->reference);
		else
			sb_printf(&l, "%s", c->customer ? c->customer : "");
		ipair(z, sb_cstr(&l), money_cur(c->amount, c->currency, m));
		sb_free(&l);
		t->received = add(t->received, c->amount);
	}
	for (i = 0; i < nt; i++) {
		struct strbuf l = {0};

		/* TRANSLATORS: the total of the checks to deposit in one
		   currency, %s is its ISO code */
		sb_printf(&l, _("Checks total %s"), tot[i].currency);
		print_pair(z->out, z->width, sb_cstr(&l),
		           money_cur(tot[i].received, tot[i].currency, m));
		sb_free(&l);
	}
	free(tot);
}

static void put_rest(struct zr *z)
{
	const struct day_figures *f = z->f;
	char n[48];

	print_rule(z->out, z->width, '-');
	if (f->loose_cash_count) {
		snprintf(n, sizeof n, "%lld", (long long)f->loose_cash_count);
		print_pair(z->out, z->width, _("Cash payments in no drawer"), n);
	}
	if (!f->recon)
		print_pair(z->out, z->width, _("Card reconciliation"), _("not run"));
	else if (f->recon_balanced && !f->recon_open)
		print_pair(z->out, z->width, _("Card reconciliation"), _("balanced"));
	else {
		snprintf(n, sizeof n, _("%lld open difference(s)"), (long long)f->recon_open);
		print_pair(z->out, z->width, _("Card reconciliation"), n);
	}
	print_rule(z->out, z->width, '=');
}

static int lay_out(void *arg)
{
	struct zr *z = arg;

	print_shop(z->out, z->width);
	put_state(z);
	put_takings(z);
	put_voids(z);
	put_credits(z);
	put_drawers(z);
	put_checks(z);
	put_rest(z);
	return 0;
}

int zreport_text(struct db *db, const char *day, int width, struct strbuf *out)
{
	struct day_figures f;
	struct strbuf text = {0};
	struct zr z = {&f, &text, width};
	int rc;

	if (!print_width_valid(width))
		return err_set(FD_EINVAL, _("the width is %d or %d columns"), PRINT_WIDE,
		               PRINT_NARROW);
	memset(&f, 0, sizeof f);
	if ((rc = day_figures_get(db, day, &f)) != 0)
		return rc;
	rc = print_layout(width, lay_out, &z);
	if (rc == 0)
		sb_add(out, sb_cstr(&text), text.len);
	sb_free(&text);
	day_figures_free(&f);
	return rc;
}

int zreport_write(struct db *db, const char *day, enum print_format fmt, int width,
                  const char *path)
{
	struct strbuf text = {0};
	int rc;

	if (fmt == PRINT_PDF && !path)
		return err_set(FD_EINVAL, _("a PDF needs a file to go to"));
	if (fmt == PRINT_PDF)
		width = PRINT_WIDE;
	if ((rc = zreport_text(db, day, width, &text)) == 0)
		rc = print_text_write(sb_cstr(&text), fmt, path);
	sb_free(&text);
	return rc;
}
