/*
 * view-search.c - `/`: a one-field prompt, then the list of what matched:
 * customers whose name, address or phone number contains the text (a
 * phone number also by its digits: customer_search), and invoices
 * whose number contains it. Enter on a result opens the customer or the
 * invoice. The result list replaces the prompt on the stack, so back
 * returns to where the search started.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "customer.h"
#include "draw.h"
#include "err.h"
#include "fmt.h"
#include "form.h"
#include "i18n.h"
#include "invoice.h"
#include "pane.h"
#include "views.h"
#include "xalloc.h"

#define MAX_RESULTS 200

struct resultsv {
	char *text;
	struct pane p;
	int n;
};

static const struct pane_col cust_cols[] = {
    {10, 0, AL_LEFT}, {20, 2, AL_LEFT}, {14, 0, AL_LEFT}, {10, 1, AL_LEFT}};
static const struct pane_col inv_cols[] = {
    {10, 0, AL_LEFT}, {16, 0, AL_LEFT}, {20, 1, AL_LEFT}, {16, 0, AL_LEFT}, {16, 0, AL_RIGHT}};

static int add_customer(const struct customer *c, void *arg)
{
	struct resultsv *r = arg;
	const char *cells[4] = {_("customer"), c->name, c->phone ? c->phone : "",
	                        c->address ? c->address : ""};

	if (r->n >= MAX_RESULTS)
		return 1;
	pane_row(&r->p, K_CUSTOMER, c->id, R_NORMAL, 4, cust_cols, cells);
	r->n++;
	return 0;
}

static int add_invoice(int64_t id, void *arg)
{
	struct resultsv *r = arg;
	struct invoice inv;
	char b[FMT_MONEY], lb[64];
	const char *cells[5];

	if (r->n >= MAX_RESULTS)
		return 1;
	if (invoice_get(ui_db(), id, &inv) != 0)
		return 0;
	snprintf(lb, sizeof lb, "%s %s", _("balance"), fmt_money(inv.balance, inv.currency, b));
	cells[0] = _("invoice");
	cells[1] = inv.number;
	cells[2] = inv.customer_name;
	cells[3] = fmt_status(inv.status);
	cells[4] = lb;
	pane_row(&r->p, K_INVOICE, inv.id, R_NORMAL, 5, inv_cols, cells);
	pane_cell_role(&r->p, 3, theme_invoice_role(inv.status));
	invoice_free(&inv);
	r->n++;
	return 0;
}

static void build(struct resultsv *r)
{
	int kind, old = r->p.cur;
	int64_t id;

	pane_target(&r->p, &kind, &id);
	pane_clear(&r->p);
	r->n = 0;
	pane_text(&r->p, 0, 0, R_HEADER, _("Search results for \"%s\""), r->text);
	customer_list(ui_db(), r->text, add_customer, r);
	if (strlen(r->text) >= 2)
		invoice_search(ui_db(), r->text, 50, add_invoice, r);
	if (r->n == 0)
		pane_text(&r->p, 0, 0, R_NORMAL, "%s",
		          _("Nothing matched. Search looks in customer names, phone numbers and "
		            "invoice numbers."));
	pane_restore(&r->p, kind, id, old < 0 ? 0 : old);
}

static void results_free(struct view *v)
{
	struct resultsv *r = v->priv;

	pane_free(&r->p);
	free(r->text);
	free(r);
}

static void results_resize(struct view *v, int h, int w)
{
	(void)v;
	(void)h;
	(void)w;
}

static void results_draw(struct view *v, WINDOW *w)
{
	struct resultsv *r = v->priv;

	pane_draw(&r->p, w, 0);
}

static void results_reload(struct view *v)
{
	build(v->priv);
}

static struct ui_next results_action(struct view *v, const struct ui_event *ev)
{
	struct resultsv *r = v->priv;
	int kind;
	int64_t id;
	struct ui_next n = pane_action(&r->p, ev);

	if (n.kind != UI_UNHANDLED)
		return n;
	if (ev->action != ACT_OPEN)
		return ui_next(UI_UNHANDLED, NULL);
	pane_target(&r->p, &kind, &id);
	if (kind == K_CUSTOMER)
		return ui_next(UI_PUSH, view_customer_new(id));
	if (kind == K_INVOICE)
		return ui_next(UI_PUSH, view_invoice_new(id));
	return ui_next(UI_HANDLED, NULL);
}

static void results_title(struct view *v, char *buf, size_t n)
{
	struct resultsv *r = v->priv;

	snprintf(buf, n, _("Search \"%s\""), r->text);
}

static const enum action results_keys[] = {ACT_UP,  ACT_DOWN,   ACT_PAGE_UP, ACT_PAGE_DOWN,
                                           ACT_TOP, ACT_BOTTOM, ACT_OPEN,    ACT_NONE};
static const enum action results_hints[] = {ACT_OPEN, ACT_NONE};

static int results_target(struct view *v, const char **kind, int64_t *id)
{
	struct resultsv *x = v->priv;

	return pane_history_target(&x->p, NULL, 0, kind, id);
}

static const struct view_ops results_ops = {
    .name = "search-results",
    .ctx = CTX_PANE,
    .keys = results_keys,
    .hints = results_hints,
    .free = results_free,
    .resize = results_resize,
    .draw = results_draw,
    .action = results_action,
    .reload = results_reload,
    .title = results_title,
    .help = NULL,
    .target = results_target,
};

/* ---------------------------------------------------------------- the prompt */

static int search_check(struct form *f)
{
	const char *t = form_value(f, 0);

	if (!*t) {
		form_error(f, 0, "%s",
		           _("type part of a name, a phone number or an invoice number"));
		return 1;
	}
	return 0;
}

static int search_post(struct form *f)
{
	(void)f;
	return 0; /* reads only: the results view does the work */
}

static struct view *search_next(struct form *f)
{
	struct resultsv *r = xcalloc(1, sizeof *r);

	r->text = xstrdup(form_value(f, 0));
	r->p.cur = -1;
	build(r);
	pane_select_first(&r->p, 0);
	return view_new(&results_ops, r);
}

static const struct form_spec search_spec = {
    .name = "search",
    .check = search_check,
    .post = search_post,
    .next = search_next,
    .quiet = 1,
    .help = N_("Type part of a customer's name, a phone number or an invoice number "
               "(such as 000012) and press Enter."),
};

struct view *view_search_new(void)
{
	struct form *f = form_new(&search_spec, NULL, _("Search"));

	form_add(f, F_TEXT, 0, _("Name, phone or invoice number"), NULL);
	return form_view(f);
}
