/*
 * view-payment.c - a payment: amount, method, reference, when received,
 * status; ALL its allocations across invoices (live and reversed), its
 * refunds, and what is left unallocated (the customer's credit). Enter on
 * an allocation opens its invoice; x reverses it; r refunds; P prints its
 * receipt to a file (form-print.c).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "fmt.h"
#include "i18n.h"
#include "pane.h"
#include "payment.h"
#include "print.h"
#include "views.h"
#include "xalloc.h"

struct paymentv {
	int64_t id;
	int64_t customer_id;
	char currency[4];
	struct pane p;
	int64_t alloc_invoice[256][2]; /* allocation id -> invoice id */
	int nalloc;
};

static const struct pane_col fig_cols[] = {
    {36, 0, AL_LEFT},  /* label */
    {18, 0, AL_RIGHT}, /* amount */
    {1, 1, AL_LEFT},
};

static const struct pane_col alloc_cols[] = {
    {6, 0, AL_LEFT},   /* #id */
    {16, 0, AL_LEFT},  /* when */
    {16, 0, AL_LEFT},  /* invoice */
    {14, 0, AL_RIGHT}, /* amount */
    {18, 1, AL_LEFT},  /* state */
};

static const struct pane_col refund_cols[] = {
    {6, 0, AL_LEFT}, {16, 0, AL_LEFT}, {14, 0, AL_RIGHT}, {12, 0, AL_LEFT}, {20, 1, AL_LEFT},
};

static void figure(struct paymentv *pv, const char *label, int64_t v, enum role role)
{
	char am[FMT_MONEY];
	const char *cells[3] = {label, fmt_money_cur(v, pv->currency, am), ""};

	pane_row(&pv->p, 0, 0, role, 3, fig_cols, cells);
}

static int add_alloc(const struct allocation *a, void *arg)
{
	struct paymentv *pv = arg;
	char id[24], when[32], am[FMT_MONEY], state[64];
	const char *cells[5];

	snprintf(id, sizeof id, "#%lld", (long long)a->id);
	if (a->reverses_id)
		snprintf(state, sizeof state, _("reversal of #%lld"), (long long)a->reverses_id);
	else if (a->reversed_by)
		snprintf(state, sizeof state, _("REVERSED by #%lld"), (long long)a->reversed_by);
	else
		snprintf(state, sizeof state, "%s", _("live"));
	cells[0] = id;
	cells[1] = fmt_datetime(a->created_at, when);
	cells[2] = a->invoice_number;
	cells[3] = fmt_money(a->reverses_id ? -a->amount : a->amount, a->currency, am);
	cells[4] = state;
	pane_row(&pv->p, K_ALLOC, a->id, a->reversed_by || a->reverses_id ? R_DIM : R_NORMAL, 5,
	         alloc_cols, cells);
	if (pv->nalloc < 256) {
		pv->alloc_invoice[pv->nalloc][0] = a->id;
		pv->alloc_invoice[pv->nalloc][1] = a->invoice_id;
		pv->nalloc++;
	}
	return 0;
}

static int add_refund(const struct refund *r, void *arg)
{
	struct paymentv *pv = arg;
	char id[24], when[32], am[FMT_MONEY];
	const char *cells[5];

	snprintf(id, sizeof id, "R%lld", (long long)r->id);
	cells[0] = id;
	cells[1] = fmt_datetime(r->refunded_at, when);
	cells[2] = fmt_money(r->amount, r->currency, am);
	cells[3] = fmt_status(r->status);
	cells[4] = r->reason ? r->reason : "";
	pane_row(&pv->p, K_REFUND, r->id, R_NORMAL, 5, refund_cols, cells);
	return 0;
}

static void build(struct paymentv *pv)
{
	struct payment p;
	char when[32];
	int kind, old = pv->p.cur, before;
	int64_t id;

	pane_target(&pv->p, &kind, &id);
	pane_clear(&pv->p);
	pv->nalloc = 0;
	if (payment_get(ui_db(), pv->id, &p) != 0) {
		pane_text(&pv->p, 0, 0, R_ERROR, _("! Payment %lld cannot be read."),
		          (long long)pv->id);
		return;
	}
	pv->customer_id = p.customer_id;
	snprintf(pv->currency, sizeof pv->currency, "%s", p.currency);
	pane_text(&pv->p, 0, 0, R_HEADER, _("Payment %1$lld from %2$s"), (long long)p.id,
	          p.customer_name);
	pane_text(&pv->p, 0, 0, R_NORMAL, _("Received %1$s by %2$s%3$s%4$s"),
	          fmt_datetime(p.received_at, when), fmt_status(p.method),
	          p.reference ? _(", reference ") : "", p.reference ? p.reference : "");
	pane_field(&pv->p, 0, 0, R_NORMAL, 0, _("Status"), fmt_status(p.status));
	if (p.note)
		pane_field(&pv->p, 0, 0, R_NORMAL, 0, _("Note"), p.note);
	pane_blank(&pv->p);
	figure(pv, _("Amount received"), p.amount, R_HEADER);
	figure(pv, _("Allocated to invoices"), p.allocated, R_NORMAL);
	figure(pv, _("Refunded"), p.refunded, R_NORMAL);
	figure(pv, _("Unallocated (customer's credit)"), p.unallocated,
	       p.unallocated ? R_PARTIAL : R_NORMAL);
	pane_blank(&pv->p);
	pane_text(&pv->p, 0, 0, R_HEADER, "%s", _("Allocations"));
	before = pv->p.n;
	alloc_list(ui_db(), p.id, 0, add_alloc, pv);
	if (pv->p.n == before)
		pane_text(&pv->p, 0, 0, R_DIM, "  %s", _("Nothing of this payment is allocated."));
	pane_blank(&pv->p);
	pane_text(&pv->p, 0, 0, R_HEADER, "%s", _("Refunds"));
	before = pv->p.n;
	refund_list(ui_db(), p.id, add_refund, pv);
	if (pv->p.n == before)
		pane_text(&pv->p, 0, 0, R_DIM, "  %s", _("None."));
	payment_free(&p);
	pane_restore(&pv->p, kind, id, old < 0 ? 0 : old);
}

static void payment_free_view(struct view *v)
{
	struct paymentv *pv = v->priv;

	pane_free(&pv->p);
	free(pv);
}

static void payment_resize(struct view *v, int h, int w)
{
	(void)v;
	(void)h;
	(void)w;
}

static void payment_draw(struct view *v, WINDOW *w)
{
	struct paymentv *pv = v->priv;

	pane_draw(&pv->p, w, 0);
}

static void payment_reload(struct view *v)
{
	build(v->priv);
}

static int64_t invoice_of(const struct paymentv *pv, int64_t alloc)
{
	int i;

	for (i = 0; i < pv->nalloc; i++)
		if (pv->alloc_invoice[i][0] == alloc)
			return pv->alloc_invoice[i][1];
	return 0;
}

static struct ui_next payment_action(struct view *v, const struct ui_event *ev)
{
	struct paymentv *pv = v->priv;
	int kind;
	int64_t id;
	struct ui_next n = pane_action(&pv->p, ev);

	if (n.kind != UI_UNHANDLED)
		return n;
	pane_target(&pv->p, &kind, &id);
	switch (ev->action) {
	case ACT_OPEN:
		if (kind == K_ALLOC)
			return ui_next(UI_PUSH, view_invoice_new(invoice_of(pv, id)));
		return ui_next(UI_HANDLED, NULL);
	case ACT_REVERSE_ALLOC:
		if (kind != K_ALLOC) {
			ui_msg(MSG_INFO, _("Select an allocation first."));
			return ui_next(UI_REDRAW, NULL);
		}
		return ui_next(UI_PUSH, form_reverse_new(id));
	case ACT_REFUND:
		return ui_next(UI_PUSH, form_refund_new(pv->id));
	case ACT_RECORD_PAYMENT:
		return ui_next(UI_PUSH, form_payment_new(pv->customer_id, pv->currency));
	case ACT_PRINT:
		return ui_next(UI_PUSH, form_print_new(PRINT_RECEIPT, pv->id));
	case ACT_PREVIEW:
		return ui_next(UI_PUSH, view_preview_new(PRINT_RECEIPT, pv->id));
	case ACT_LINE_HISTORY:
		return pane_line_history(&pv->p);
	default:
		return ui_next(UI_UNHANDLED, NULL);
	}
}

static void payment_title(struct view *v, char *buf, size_t n)
{
	struct paymentv *pv = v->priv;

	snprintf(buf, n, _("Payment %lld"), (long long)pv->id);
}

static const char *payment_help(struct view *v)
{
	(void)v;
	return _("One payment as received, with every allocation of it across the customer's "
	         "invoices. What is neither allocated nor refunded is the customer's credit. "
	         "Enter on an allocation opens its invoice. H shows the payment's history, h the "
	         "selected allocation's. o previews its receipt on the screen; P prints it to a "
	         "file (text or PDF).");
}

static const enum action payment_keys[] = {
    ACT_UP,      ACT_DOWN,  ACT_PAGE_UP,       ACT_PAGE_DOWN, ACT_TOP,
    ACT_BOTTOM,  ACT_OPEN,  ACT_REVERSE_ALLOC, ACT_REFUND,    ACT_RECORD_PAYMENT,
    ACT_PREVIEW, ACT_PRINT, ACT_LINE_HISTORY,  ACT_NONE};
static const enum action payment_hints[] = {ACT_OPEN,    ACT_REVERSE_ALLOC, ACT_REFUND,
                                            ACT_PREVIEW, ACT_PRINT,         ACT_NONE};

static int payment_target(struct view *v, const char **kind, int64_t *id)
{
	struct paymentv *x = v->priv;

	/* the payment's own, whatever line is selected (h: the line's) */
	*kind = "payment";
	*id = x->id;
	return x->id > 0;
}

static const struct view_ops payment_ops = {
    .name = "payment",
    .ctx = CTX_PANE,
    .keys = payment_keys,
    .hints = payment_hints,
    .free = payment_free_view,
    .resize = payment_resize,
    .draw = payment_draw,
    .action = payment_action,
    .reload = payment_reload,
    .title = payment_title,
    .help = payment_help,
    .target = payment_target,
};

struct view *view_payment_new(int64_t payment_id)
{
	struct paymentv *pv = xcalloc(1, sizeof *pv);

	pv->id = payment_id;
	pv->p.cur = -1;
	build(pv);
	pane_select_first(&pv->p, K_ALLOC);
	return view_new(&payment_ops, pv);
}
