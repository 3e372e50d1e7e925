/*
 * view-paypage.c - the payment page of a card order, for the customer to
 * scan at the desk: the page the channel answered (a Stripe Checkout
 * Session's url, a WeChat Pay style Native code_url) drawn as a QR code
 * (qr.h) with the address beside or below it, the order's amount, invoice
 * and customer, and where the order stands, in words.
 *
 * It opens after the card form posted (form-charge.c's next) and says
 * "Asking the channel for the payment page..." until the channel worker
 * has sent the order and kept the channel's answer; it follows the order
 * as the worker moves it (created -> paying -> paid / failed / closed) by
 * reloading when the database changed (the screen notices data_version on
 * its tick and marks the views stale). The code is shown only while the
 * order can still be paid. A code is never cut: when it does not fit the
 * window, or the terminal cannot show the half blocks (a locale that is
 * not UTF-8), the address is shown as text with a note that a larger
 * window (or a UTF-8 terminal) shows the code. Esc, q or Enter closes the
 * page; the order goes on regardless, and Enter on the order in the invoice
 * pane opens its page again.
 *
 * Callers: form-charge.c, view-invoice.c.
 */
#include <config.h>

#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chan-order.h"
#include "draw.h"
#include "err.h"
#include "fmt.h"
#include "i18n.h"
#include "invoice.h"
#include "qr.h"
#include "theme.h"
#include "tw.h"
#include "view.h"
#include "views.h"
#include "xalloc.h"

/* The text beside the code needs at least this many columns. */
#define SIDE_MIN 24

struct paypage {
	char order_no[65];
	struct pay_order po;
	char url[CHAN_ORDER_PAGE_MAX + 1];
	char invoice[32];
	char *customer;
	char error[400]; /* why the order could not be read, "" when it could */
	struct qr_art art;
	int art_ok; /* art is the code of url */
	char art_of[CHAN_ORDER_PAGE_MAX + 1];
	int h, w;
};

static int utf8_terminal(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

static void pp_read(struct paypage *pp)
{
	pp->error[0] = '\0';
	if (chan_order_get(ui_db(), pp->order_no, &pp->po) != 0 ||
	    chan_order_page(ui_db(), pp->po.id, pp->url, sizeof pp->url) != 0) {
		snprintf(pp->error, sizeof pp->error, _("Cannot read card order %1$s: %2$s"),
		         pp->order_no, err_msg());
		return;
	}
	if (*pp->url && (!pp->art_ok || strcmp(pp->art_of, pp->url))) {
		qr_free(&pp->art);
		pp->art_ok = qr_draw(pp->url, QR_QUIET, theme_color(), &pp->art) == 0;
		snprintf(pp->art_of, sizeof pp->art_of, "%s", pp->url);
	}
}

/* Where the order stands, in words, and the role to show it with. */
static enum role pp_state(const struct paypage *pp, char *buf, size_t n)
{
	const struct pay_order *o = &pp->po;
	enum pay_order_state st = pay_order_state_of(o->status);

	if (st == PAY_ORDER_CREATED && !*o->channel_id) {
		snprintf(buf, n, "%s", _("Asking the channel for the payment page..."));
		return R_DIM;
	}
	if (chan_order_is_paid(o->status)) {
		snprintf(buf, n, _("Paid: payment %lld is posted to the invoice."),
		         (long long)o->payment_id);
		return R_SUCCESS;
	}
	if (st == PAY_ORDER_FAILED) {
		snprintf(buf, n, _("Failed: the channel refused the order (%s). Nothing was paid."),
		         *o->last_error ? o->last_error : "-");
		return R_ERROR;
	}
	if (st == PAY_ORDER_CLOSED) {
		snprintf(buf, n, "%s",
		         _("Closed: the payment page expired, was withdrawn or its payment "
		           "failed. Nothing was paid."));
		return R_ERROR;
	}
	if (!*pp->url) {
		snprintf(buf, n, "%s",
		         _("The channel gave no payment page for this order: the customer pays it "
		           "through the channel's own way."));
		return R_NORMAL;
	}
	if (*o->last_error) {
		snprintf(buf, n,
		         _("Paying: the last attempt failed (%s). The customer may try again."),
		         o->last_error);
		return R_ERROR;
	}
	snprintf(buf, n, "%s", _("Paying: waiting for the customer to pay on the page."));
	return R_NORMAL;
}

/* The lines of text shown beside (or below) the code (at most 200, each
 * owned: tl_free). */
struct tlines {
	char *s[200];
	enum role r[200];
	int n;
};

static void tl_add(struct tlines *t, enum role r, const char *s)
{
	if (t->n < 200) {
		t->s[t->n] = xstrdup(s);
		t->r[t->n++] = r;
	}
}

/* Add s wrapped to width columns. */
static void tl_wrap(struct tlines *t, enum role r, const char *s, int width)
{
	size_t st[64], ln[64];
	int k = tw_wrap(s, width > 8 ? width : 8, st, ln, 64), i;
	char buf[1200];

	for (i = 0; i < k && i < 64; i++) {
		snprintf(buf, sizeof buf, "%.*s", (int)ln[i], s + st[i]);
		tl_add(t, r, buf);
	}
}

/* The address cut in pieces of width columns (it is printable ASCII:
 * chan_order_page_ok), so that it can be selected and copied as it is. */
static void tl_url(struct tlines *t, const char *url, int width)
{
	size_t n = strlen(url), i, w = width > 8 ? (size_t)width : 8;
	char buf[CHAN_ORDER_PAGE_MAX + 1];

	for (i = 0; i < n; i += w) {
		snprintf(buf, sizeof buf, "%.*s", (int)(n - i < w ? n - i : w), url + i);
		tl_add(t, R_NORMAL, buf);
	}
}

static void tl_free(struct tlines *t)
{
	int i;

	for (i = 0; i < t->n; i++)
		free(t->s[i]);
	t->n = 0;
}

/* Build the text column: width columns; show_code says whether the code
 * is drawn (else the note says why it is not). */
static void pp_text(const struct paypage *pp, struct tlines *t, int width, int show_code,
                    int payable)
{
	char buf[1200], m[FMT_MONEY];
	enum role r;

	snprintf(buf, sizeof buf, _("Card order %s"), pp->po.order_no);
	tl_wrap(t, R_HEADER, buf, width);
	snprintf(buf, sizeof buf, _("%1$s for %2$s (%3$s)"),
	         fmt_money_cur(pp->po.amount, pp->po.currency, m), pp->invoice, pp->customer);
	tl_wrap(t, R_NORMAL, buf, width);
	tl_add(t, R_NORMAL, "");
	r = pp_state(pp, buf, sizeof buf);
	tl_wrap(t, r, buf, width);
	if (!payable)
		goto end;
	tl_add(t, R_NORMAL, "");
	if (show_code) {
		tl_wrap(t, R_NORMAL, _("Scan the code with the phone's camera, or open:"), width);
	} else if (!utf8_terminal()) {
		tl_wrap(t, R_NORMAL,
		        _("This terminal cannot show the QR code (its locale is not UTF-8): the "
		          "customer opens this address:"),
		        width);
	} else {
		snprintf(buf, sizeof buf,
		         pp->art_ok ? _("A larger window (%1$d x %2$d at least) shows the QR code; "
		                        "the customer may open this address:")
		                    : _("This address cannot be made into a QR code; the customer "
		                        "opens it:"),
		         pp->art.cols + 2 + SIDE_MIN, pp->art.rows + 1);
		tl_wrap(t, R_NORMAL, buf, width);
	}
	tl_url(t, pp->url, width);
end:
	tl_add(t, R_NORMAL, "");
	tl_wrap(t, R_DIM, _("Esc closes this page; the order goes on."), width);
}

static void pp_draw(struct view *v, WINDOW *w)
{
	struct paypage *pp = v->priv;
	struct tlines t = {0};
	int h, wd, i, y0 = 0, x0 = 0, payable, code = 0, side = 0;

	getmaxyx(w, h, wd);
	werase(w);
	if (*pp->error) {
		draw_text(w, 0, 0, wd, pp->error, theme_attr(R_ERROR), AL_LEFT);
		return;
	}
	payable = *pp->url && chan_order_is_open(pp->po.status);
	if (payable && pp->art_ok && utf8_terminal()) {
		if (pp->art.rows <= h && pp->art.cols + 2 + SIDE_MIN <= wd)
			code = side = 1;
		else if (pp->art.rows + 6 <= h && pp->art.cols <= wd)
			code = 1;
	}
	if (code) {
		attr_t a = theme_attr(R_QR);

		for (i = 0; i < pp->art.rows; i++) {
			wattr_set(w, a, (short)PAIR_NUMBER(a), NULL);
			mvwaddstr(w, i, 0, pp->art.line[i]);
			wattr_set(w, A_NORMAL, 0, NULL);
		}
		if (side)
			x0 = pp->art.cols + 2;
		else
			y0 = pp->art.rows + 1;
	}
	pp_text(pp, &t, wd - x0, code, payable);
	for (i = 0; i < t.n && y0 + i < h; i++)
		draw_text(w, y0 + i, x0, wd - x0, t.s[i], theme_attr(t.r[i]), AL_LEFT);
	tl_free(&t);
}

static void pp_resize(struct view *v, int h, int w)
{
	struct paypage *pp = v->priv;

	pp->h = h;
	pp->w = w;
}

static void pp_reload(struct view *v)
{
	pp_read(v->priv);
}

static struct ui_next pp_action(struct view *v, const struct ui_event *ev)
{
	(void)v;
	if (ev->action == ACT_OPEN)
		return ui_next(UI_POP, NULL);
	return ui_next(UI_UNHANDLED, NULL);
}

static void pp_title(struct view *v, char *buf, size_t n)
{
	struct paypage *pp = v->priv;

	snprintf(buf, n, _("Payment page %s"), pp->order_no);
}

static const char *pp_help(struct view *v)
{
	(void)v;
	return _("The payment page of a card order as a QR code for the customer's phone, with "
	         "its address, following the order live: asking the channel, paying, paid, "
	         "failed or closed (expired). Esc or Enter closes it; the order goes on, and the "
	         "invoice shows the payment when the channel reports it.");
}

static void pp_free(struct view *v)
{
	struct paypage *pp = v->priv;

	qr_free(&pp->art);
	free(pp->customer);
	free(pp);
}

static const enum action pp_keys[] = {ACT_OPEN, ACT_NONE};

static const struct view_ops pp_ops = {
    .name = "paypage",
    .ctx = CTX_PANE,
    .keys = pp_keys,
    .hints = NULL,
    .free = pp_free,
    .resize = pp_resize,
    .draw = pp_draw,
    .action = pp_action,
    .reload = pp_reload,
    .title = pp_title,
    .help = pp_help,
};

struct view *view_paypage_new(const char *order_no)
{
	struct paypage *pp = xcalloc(1, sizeof *pp);
	struct invoice inv;

	snprintf(pp->order_no, sizeof pp->order_no, "%s", order_no);
	pp_read(pp);
	if (!*pp->error && pp->po.invoice_id &&
	    invoice_get(ui_db(), pp->po.invoice_id, &inv) == 0) {
		snprintf(pp->invoice, sizeof pp->invoice, "%s", inv.number);
		pp->customer = xstrdup(inv.customer_name ? inv.customer_name : "");
		invoice_free(&inv);
	}
	if (!pp->customer)
		pp->customer = xstrdup("");
	return view_new(&pp_ops, pp);
}

struct view *view_paypage_of(int64_t order_id)
{
	struct pay_order o;

	if (chan_order_get_id(ui_db(), order_id, &o) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read card order %1$lld: %2$s"), (long long)order_id,
		       err_msg());
		return NULL;
	}
	return view_paypage_new(o.order_no);
}
