/*
 * view-invoice.c - an invoice: its lines (the snapshots taken when it was
 * issued), total, credited, paid, balance and status, and every allocation
 * posted to it (which payment, how much, method, reference, when, reversed
 * or not), and its card payment orders through the payment channel (order
 * number, amount, status, last error). Enter on an allocation opens its
 * payment, on a paid card order its payment, on another card order its
 * payment page (view-paypage.c: the QR code again); x reverses an allocation; p
 * records a payment from the invoice's customer; C asks the channel for a
 * card payment (only when a payment provider is set up); P prints it to a
 * file (form-print.c), o previews it on the screen first (view-preview.c).
 * H shows the invoice's own history; h the selected line's (an allocation,
 * a card order).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chan-order.h"
#include "draw.h"
#include "err.h"
#include "fmt.h"
#include "i18n.h"
#include "invoice.h"
#include "money.h"
#include "pane.h"
#include "payment.h"
#include "print.h"
#include "views.h"
#include "xalloc.h"

struct invoicev {
	int64_t id;
	char number[32];
	int64_t customer_id;
	char currency[4];
	struct pane p;
	int64_t alloc_payment[256][2]; /* allocation id -> payment id */
	int nalloc;
	int64_t order_payment[64][2]; /* card order id -> its payment id (0: none yet) */
	int norder;
};

static const struct pane_col line_cols[] = {
    {9, 0, AL_LEFT},   /* kind */
    {20, 1, AL_LEFT},  /* description */
    {18, 0, AL_RIGHT}, /* qty x price */
    {15, 0, AL_RIGHT}, /* amount */
};

static const struct pane_col sum_cols[] = {
    {9, 0, AL_LEFT},
    {20, 1, AL_LEFT},
    {18, 0, AL_RIGHT}, /* label */
    {15, 0, AL_RIGHT}, /* amount */
};

/* at 80 columns every column fits, the state too: without it a reversed
 * allocation and its reversal read as two live ones */
static const struct pane_col alloc_cols[] = {
    {6, 0, AL_LEFT},   /* #id */
    {16, 0, AL_LEFT},  /* when */
    {11, 0, AL_LEFT},  /* payment */
    {10, 1, AL_LEFT},  /* method, reference */
    {14, 0, AL_RIGHT}, /* amount */
    {16, 1, AL_LEFT},  /* state */
};

static const struct pane_col order_cols[] = {
    {22, 0, AL_LEFT},  /* order number */
    {14, 0, AL_RIGHT}, /* amount */
    {12, 0, AL_LEFT},  /* status */
    {16, 0, AL_LEFT},  /* when */
    {10, 1, AL_LEFT},  /* last error or payment */
};

/* The words of a card order's status (pay_order.status). */
static const char *order_status(const char *s)
{
	static const struct {
		const char *id, *label;
	} words[] = {
	    {"created", N_("created")},     {"paying", N_("paying")},     {"paid", N_("paid")},
	    {"refunding", N_("refunding")}, {"refunded", N_("refunded")}, {"closed", N_("closed")},
	    {"failed", N_("failed")},
	};
	size_t i;

	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		if (!strcmp(words[i].id, s))
			return _(words[i].label);
	return s;
}

static int add_order(const struct pay_order *o, void *arg)
{
	struct invoicev *iv = arg;
	char am[FMT_MONEY], when[32], rest[1100];
	const char *cells[5];
	enum role role = R_NORMAL;

	if (*o->last_error)
		snprintf(rest, sizeof rest, "! %s", o->last_error);
	else if (o->payment_id)
		snprintf(rest, sizeof rest, _("payment %lld"), (long long)o->payment_id);
	else if (chan_order_is_open(o->status))
		snprintf(rest, sizeof rest, "%s", _("waiting for the channel"));
	else
		rest[0] = '\0';
	cells[0] = o->order_no;
	cells[1] = fmt_money(o->amount, o->currency, am);
	cells[2] = order_status(o->status);
	cells[3] = fmt_datetime(o->created_at, when);
	cells[4] = rest;
	if (chan_order_is_final(o->status))
		role = R_DIM;
	pane_row(&iv->p, K_PAYMENT, o->id, role, 5, order_cols, cells);
	if (*o->last_error)
		pane_cell_role(&iv->p, 4, R_ERROR);
	if (iv->norder < 64) {
		iv->order_payment[iv->norder][0] = o->id;
		iv->order_payment[iv->norder][1] = o->payment_id;
		iv->norder++;
	}
	return 0;
}

static int add_line(const struct invoice_line *l, void *arg)
{
	struct invoicev *iv = arg;
	char q[32], pr[FMT_MONEY], am[FMT_MONEY], qp[96];
	const char *cells[4];

	qty_format(l->qty_milli, q, sizeof q);
	snprintf(qp, sizeof qp, "%s x %s", q, fmt_money(l->unit_price, iv->currency, pr));
	cells[0] = fmt_status(l->kind);
	cells[1] = l->description;
	cells[2] = qp;
	cells[3] = fmt_money(l->amount, iv->currency, am);
	pane_row(&iv->p, 0, 0, R_NORMAL, 4, line_cols, cells);
	return 0;
}

static void sum_line(struct invoicev *iv, const char *label, int64_t v, enum role role)
{
	char am[FMT_MONEY];
	const char *cells[4] = {"", "", label, fmt_money(v, iv->currency, am)};

	pane_row(&iv->p, 0, 0, role, 4, sum_cols, cells);
}

static int add_alloc(const struct allocation *a, void *arg)
{
	struct invoicev *iv = arg;
	struct payment p;
	char id[24], when[32], pay[32], how[256], am[FMT_MONEY], state[64];
	const char *cells[6];
	int have = payment_get(ui_db(), a->payment_id, &p) == 0;

	snprintf(id, sizeof id, "#%lld", (long long)a->id);
	snprintf(pay, sizeof pay, _("payment %lld"), (long long)a->payment_id);
	if (have)
		snprintf(how, sizeof how, "%s%s%s", fmt_status(p.method), p.reference ? " " : "",
		         p.reference ? p.reference : "");
	else
		snprintf(how, sizeof how, "?");
	if (a->reverses_id)
		snprintf(state, sizeof state, _("reversal of #%lld"), (long long)a->reverses_id);
	else if (a->reversed_by)
		snprintf(state, sizeof state, _("REVERSED by #%lld"), (long long)a->reversed_by);
	else
		snprintf(state, sizeof state, "%s", _("live"));
	cells[0] = id;
	cells[1] = fmt_datetime(a->created_at, when);
	cells[2] = pay;
	cells[3] = how;
	cells[4] = fmt_money(a->reverses_id ? -a->amount : a->amount, a->currency, am);
	cells[5] = state;
	pane_row(&iv->p, K_ALLOC, a->id, a->reversed_by || a->reverses_id ? R_DIM : R_NORMAL, 6,
	         alloc_cols, cells);
	if (iv->nalloc < 256) {
		iv->alloc_payment[iv->nalloc][0] = a->id;
		iv->alloc_payment[iv->nalloc][1] = a->payment_id;
		iv->nalloc++;
	}
	if (have)
		payment_free(&p);
	return 0;
}

static void build(struct invoicev *iv)
{
	struct invoice inv;
	char d1[32], d2[32];
	int kind, old = iv->p.cur;
	int64_t id;
	size_t before;

	pane_target(&iv->p, &kind, &id);
	pane_clear(&iv->p);
	iv->nalloc = 0;
	iv->norder = 0;
	if (invoice_get(ui_db(), iv->id, &inv) != 0) {
		pane_text(&iv->p, 0, 0, R_ERROR, _("! Invoice %lld cannot be read."),
		          (long long)iv->id);
		return;
	}
	snprintf(iv->number, sizeof iv->number, "%s", inv.number);
	snprintf(iv->currency, sizeof iv->currency, "%s", inv.currency);
	iv->customer_id = inv.customer_id;
	pane_text(&iv->p, 0, 0, R_HEADER, "%s %s - %s",
	          !strcmp(inv.kind, "credit_note") ? _("Credit note") : _("Invoice"), inv.number,
	          inv.customer_name);
	pane_field(&iv->p, 0, 0, theme_invoice_role(inv.status), 0, _("Status"),
	           fmt_status(inv.status));
	pane_text(&iv->p, 0, 0, R_NORMAL, _("Issued %1$s, due %2$s, in %3$s"),
	          fmt_date(inv.issued_at, d1), fmt_date(inv.due_at, d2), inv.currency);
	if (inv.note)
		pane_field(&iv->p, 0, 0, R_NORMAL, 0, _("Note"), inv.note);
	pane_blank(&iv->p);
	pane_text(&iv->p, 0, 0, R_HEADER, "%s", _("Lines"));
	invoice_lines(ui_db(), inv.id, add_line, iv);
	sum_line(iv, _("Total"), inv.total, R_HEADER);
	sum_line(iv, _("Credited"), inv.credited, R_NORMAL);
	sum_line(iv, _("Paid"), inv.paid, R_NORMAL);
	sum_line(iv, _("Balance"), invoice_owed(&inv),
	         invoice_owed(&inv) > 0   ? R_UNPAID
	         : invoice_owed(&inv) < 0 ? R_OVERPAID
	                                  : R_PAID);
	if (invoice_is_void(&inv))
		pane_text(&iv->p, 0, 0, R_DIM, "  %s", _("Void: nothing is owed on it."));
	pane_blank(&iv->p);
	pane_text(&iv->p, 0, 0, R_HEADER, "%s", _("Allocations"));
	before = (size_t)iv->p.n;
	alloc_list(ui_db(), 0, inv.id, add_alloc, iv);
	if ((size_t)iv->p.n == before)
		pane_text(&iv->p, 0, 0, R_DIM, "  %s",
		          _("No payment is allocated to this invoice."));
	before = (size_t)iv->p.n;
	pane_blank(&iv->p);
	pane_text(&iv->p, 0, 0, R_HEADER, "%s", _("Card orders through the channel"));
	if (chan_order_list(ui_db(), inv.id, add_order, iv) != 0)
		pane_text(&iv->p, 0, 0, R_ERROR, _("! The card orders cannot be read: %s"),
		          err_msg());
	else if ((size_t)iv->p.n == before + 2)
		pane_text(&iv->p, 0, 0, R_DIM, "  %s", _("No card order for this invoice."));
	invoice_free(&inv);
	pane_restore(&iv->p, kind, id, old < 0 ? 0 : old);
}

static void invoice_free_view(struct view *v)
{
	struct invoicev *iv = v->priv;

	pane_free(&iv->p);
	free(iv);
}

static void invoice_resize(struct view *v, int h, int w)
{
	(void)v;
	(void)h;
	(void)w;
}

static void invoice_draw(struct view *v, WINDOW *w)
{
	struct invoicev *iv = v->priv;

	pane_draw(&iv->p, w, 0);
}

static void invoice_reload(struct view *v)
{
	build(v->priv);
}

static int64_t payment_of(const struct invoicev *iv, int64_t alloc)
{
	int i;

	for (i = 0; i < iv->nalloc; i++)
		if (iv->alloc_payment[i][0] == alloc)
			return iv->alloc_payment[i][1];
	return 0;
}

static int64_t order_payment_of(const struct invoicev *iv, int64_t order)
{
	int i;

	for (i = 0; i < iv->norder; i++)
		if (iv->order_payment[i][0] == order)
			return iv->order_payment[i][1];
	return 0;
}

static struct ui_next invoice_action(struct view *v, const struct ui_event *ev)
{
	struct invoicev *iv = v->priv;
	int kind;
	int64_t id;
	struct ui_next n = pane_action(&iv->p, ev);

	if (n.kind != UI_UNHANDLED)
		return n;
	pane_target(&iv->p, &kind, &id);
	switch (ev->action) {
	case ACT_OPEN:
		if (kind == K_ALLOC)
			return ui_next(UI_PUSH, view_payment_new(payment_of(iv, id)));
		if (kind == K_PAYMENT) {
			int64_t pay = order_payment_of(iv, id);

			struct view *page;

			if (pay)
				return ui_next(UI_PUSH, view_payment_new(pay));
			/* no payment yet: its payment page, to scan again */
			page = view_paypage_of(id);
			return page ? ui_next(UI_PUSH, page) : ui_next(UI_REDRAW, NULL);
		}
		return ui_next(UI_HANDLED, NULL);
	case ACT_REVERSE_ALLOC:
		if (kind != K_ALLOC) {
			ui_msg(MSG_INFO, _("Select an allocation first."));
			return ui_next(UI_REDRAW, NULL);
		}
		return ui_next(UI_PUSH, form_reverse_new(id));
	case ACT_RECORD_PAYMENT:
		return ui_next(UI_PUSH,
		               form_payment_new_at(iv->customer_id, iv->currency, &iv->id, 1));
	case ACT_VOID_INVOICE:
		return ui_next(UI_PUSH, form_invoice_void(iv->id));
	case ACT_CREDIT_NOTE:
		return ui_next(UI_PUSH, form_invoice_credit(iv->id));
	case ACT_CARD_CHARGE:
		/* NULL (after a message on the message line): no provider, a
		 * read-only screen, nothing owed */
		return ui_next(UI_PUSH, form_charge_new(iv->id));
	case ACT_PRINT:
		return ui_next(UI_PUSH, form_print_new(PRINT_INVOICE, iv->id));
	case ACT_PREVIEW:
		return ui_next(UI_PUSH, view_preview_new(PRINT_INVOICE, iv->id));
	case ACT_LINE_HISTORY:
		/* a card order line carries the order's id: its own history kind */
		if (kind == K_PAYMENT)
			return ui_next(UI_PUSH, view_history_new("card-order", id));
		return pane_line_history(&iv->p);
	default:
		return ui_next(UI_UNHANDLED, NULL);
	}
}

static void invoice_title(struct view *v, char *buf, size_t n)
{
	struct invoicev *iv = v->priv;

	snprintf(buf, n, "%s", iv->number[0] ? iv->number : "?");
}

static const char *invoice_help(struct view *v)
{
	(void)v;
	return _("An invoice as issued: its lines are snapshots that later changes to the jobs "
	         "never alter. Balance = total - credited - paid. Allocations are never edited: "
	         "a reversal undoes one. Enter on an allocation opens its payment. Card orders "
	         "through the payment channel are listed below the allocations; C asks the "
	         "channel for a new one (when a payment provider is set up). V voids the invoice "
	         "while nothing is paid on it; w issues a credit note against it. H shows the "
	         "invoice's history, h the selected allocation's or card order's. o previews the "
	         "invoice on the screen as it prints; P prints it to a file to hand over (text or "
	         "PDF).");
}

static const enum action invoice_keys[] = {
    ACT_UP,           ACT_DOWN,        ACT_PAGE_UP,       ACT_PAGE_DOWN,      ACT_TOP,
    ACT_BOTTOM,       ACT_OPEN,        ACT_REVERSE_ALLOC, ACT_RECORD_PAYMENT, ACT_CARD_CHARGE,
    ACT_VOID_INVOICE, ACT_CREDIT_NOTE, ACT_PREVIEW,       ACT_PRINT,          ACT_LINE_HISTORY,
    ACT_NONE};
static const enum action invoice_hints[] = {ACT_OPEN,        ACT_REVERSE_ALLOC, ACT_RECORD_PAYMENT,
                                            ACT_CARD_CHARGE, ACT_PREVIEW,       ACT_PRINT,
                                            ACT_NONE};

static int invoice_target(struct view *v, const char **kind, int64_t *id)
{
	struct invoicev *x = v->priv;

	/* the invoice's own, whatever line is selected: the first allocation
	 * is selected when the pane opens, and H showed its history (issue 29);
	 * h shows the selected line's */
	*kind = "invoice";
	*id = x->id;
	return x->id > 0;
}

static const struct view_ops invoice_ops = {
    .name = "invoice",
    .ctx = CTX_PANE,
    .keys = invoice_keys,
    .hints = invoice_hints,
    .free = invoice_free_view,
    .resize = invoice_resize,
    .draw = invoice_draw,
    .action = invoice_action,
    .reload = invoice_reload,
    .title = invoice_title,
    .help = invoice_help,
    .target = invoice_target,
};

struct view *view_invoice_new(int64_t invoice_id)
{
	struct invoicev *iv = xcalloc(1, sizeof *iv);

	iv->id = invoice_id;
	iv->p.cur = -1;
	build(iv);
	pane_select_first(&iv->p, K_ALLOC);
	return view_new(&invoice_ops, iv);
}
