/*
 * view-commission.c - the commissions of a pay period (W): each
 * technician's rows as `frontdesk report commissions` gives them (the
 * lines, and the negative rows of credit notes and refunds in the period
 * they were made), then the technician's visits, lines, amounts and
 * commission, read through the same core function (commission_report).
 * The period is a calendar month, this one first; [ and ] move a month.
 * Enter on a row opens its invoice, or its visit when not invoiced.
 *
 * On the head office's screen (ui_hq) it reads each shop's commissions
 * through hq.h, under a heading per shop; rows open nothing there.
 *
 * Callers: screen.c (the global key W).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "commission.h"
#include "draw.h"
#include "err.h"
#include "fmt.h"
#include "hq.h"
#include "i18n.h"
#include "pane.h"
#include "views.h"
#include "xalloc.h"

#define COMM_ROWS_MAX 2000 /* rows shown; the command line has them all */

struct commv {
	struct pane p;
	int64_t from; /* the first day of the month shown (local midnight) */
	int64_t rows;
	char shop[21]; /* the head office's: the shop of the rows */
};

static const struct pane_col comm_cols[] = {
    {12, 2, AL_LEFT},  /* technician */
    {10, 0, AL_LEFT},  /* day */
    {6, 0, AL_LEFT},   /* kind */
    {16, 3, AL_LEFT},  /* description */
    {12, 1, AL_RIGHT}, /* amount */
    {12, 1, AL_RIGHT}, /* commission */
};

/* The first day of the month of t. */
static int64_t month_start(int64_t t)
{
	char d[8];
	int64_t day = clock_day_start(t);

	for (;;) {
		clock_format_local(day, "%d", d, sizeof d);
		if (!strcmp(d, "01"))
			return day;
		day = clock_day_start(clock_add_days(day, -1));
	}
}

/* The first day of the month after the one starting at from. */
static int64_t month_next(int64_t from)
{
	return month_start(clock_add_days(from, 32));
}

static const char *kind_label(const char *kind)
{
	if (!strcmp(kind, "credit"))
		return _("credit");
	if (!strcmp(kind, "refund"))
		return _("refund");
	return _("line");
}

static int comm_row(const struct commission_row *r, void *arg)
{
	struct commv *cv = arg;
	char day[32], a[FMT_MONEY], c[FMT_MONEY];
	const char *cells[6];

	if (cv->rows++ >= COMM_ROWS_MAX)
		return 0;
	cells[0] = r->tech_name;
	cells[1] = fmt_date(r->at, day);
	cells[2] = kind_label(r->kind);
	cells[3] = r->description ? r->description : "";
	cells[4] = !strcmp(r->kind, "line") ? fmt_money(r->line_amount, r->currency, a) : "";
	cells[5] = fmt_money(r->commission, r->currency, c);
	if (ui_hq()) /* the invoice and the visit are at the shop */
		pane_row(&cv->p, 0, 0, r->commission < 0 ? R_PARTIAL : R_NORMAL, 6, comm_cols,
		         cells);
	else if (r->invoice_id)
		pane_row(&cv->p, K_INVOICE, r->invoice_id, r->commission < 0 ? R_PARTIAL : R_NORMAL,
		         6, comm_cols, cells);
	else
		pane_row(&cv->p, r->visit_id ? K_VISIT : 0, r->visit_id,
		         r->commission < 0 ? R_PARTIAL : R_NORMAL, 6, comm_cols, cells);
	return 0;
}

static int comm_total(const struct commission_total *t, void *arg)
{
	struct commv *cv = arg;
	char a[FMT_MONEY], c[FMT_MONEY];

	pane_text(&cv->p, 0, 0, R_HEADER,
	          _("  Total %1$s: %2$lld visits, %3$lld lines, amount %4$s, commission %5$s"),
	          t->tech_name, (long long)t->visits, (long long)t->lines,
	          fmt_money_cur(t->line_amount, t->currency, a),
	          fmt_money_cur(t->commission, t->currency, c));
	pane_blank(&cv->p);
	return 0;
}

/* The head office's rows and totals: a heading when the shop changes. */
static void hq_shop(struct commv *cv, const char *shop)
{
	if (!strcmp(cv->shop, shop))
		return;
	snprintf(cv->shop, sizeof cv->shop, "%s", shop);
	pane_text(&cv->p, 0, 0, R_HEADER, _("Shop %s"), shop);
}

static int hq_comm_row(const char *shop, const struct commission_row *r, void *arg)
{
	hq_shop(arg, shop);
	return comm_row(r, arg);
}

static int hq_comm_total(const char *shop, const struct commission_total *t, void *arg)
{
	hq_shop(arg, shop);
	return comm_total(t, arg);
}

/* The rows of from..to (to excluded): the shop's, or each shop's. */
static int read_comm(struct commv *cv, int64_t to)
{
	char f[32], t[32];

	if (!ui_hq())
		return commission_report(ui_db(), cv->from, to, comm_row, comm_total, cv);
	cv->shop[0] = '\0';
	return hq_report_commissions(ui_hq(), NULL, fmt_date(cv->from, f),
	                             fmt_date(clock_add_days(to, -1), t), hq_comm_row,
	                             hq_comm_total, cv);
}

static void build(struct commv *cv)
{
	const char *head[6] = {_("Technician"),  _("Day"),    _("Kind"),
	                       _("Description"), _("Amount"), _("Commission")};
	int64_t to = month_next(cv->from);
	char f[32], t[32];
	int kind, old = cv->p.cur;
	int64_t id;

	pane_target(&cv->p, &kind, &id);
	pane_clear(&cv->p);
	cv->rows = 0;
	if (ui_hq())
		pane_text(&cv->p, 0, 0, R_HEADER,
		          _("Commissions of every shop from %1$s to %2$s (as frontdesk hq report "
		            "commissions; [ and ] move a month)"),
		          fmt_date(cv->from, f), fmt_date(clock_add_days(to, -1), t));
	else
		pane_text(&cv->p, 0, 0, R_HEADER,
		          _("Commissions from %1$s to %2$s (as frontdesk report commissions; [ and "
		            "] move a month)"),
		          fmt_date(cv->from, f), fmt_date(clock_add_days(to, -1), t));
	pane_row(&cv->p, 0, 0, R_HEADER, 6, comm_cols, head);
	if (read_comm(cv, to) != 0) {
		if (ui_hq())
			pane_text(&cv->p, 0, 0, R_ERROR, _("! The commissions cannot be read: %s"),
			          err_msg());
		else
			pane_text(&cv->p, 0, 0, R_ERROR, _("! The commissions cannot be read."));
	} else if (cv->rows == 0)
		pane_text(&cv->p, 0, 0, R_DIM, "  %s", _("No commission in this period."));
	else if (cv->rows > COMM_ROWS_MAX)
		pane_text(&cv->p, 0, 0, R_DIM,
		          _("  The first %d rows; frontdesk report commissions lists all."),
		          COMM_ROWS_MAX);
	pane_restore(&cv->p, kind, id, old < 0 ? 0 : old);
}

static void comm_free(struct view *v)
{
	struct commv *cv = v->priv;

	pane_free(&cv->p);
	free(cv);
}

static void comm_resize(struct view *v, int h, int w)
{
	(void)v;
	(void)h;
	(void)w;
}

static void comm_draw(struct view *v, WINDOW *w)
{
	struct commv *cv = v->priv;

	pane_draw(&cv->p, w, 0);
}

static void comm_reload(struct view *v)
{
	build(v->priv);
}

static struct ui_next comm_action(struct view *v, const struct ui_event *ev)
{
	struct commv *cv = v->priv;
	int kind;
	int64_t id;
	struct ui_next n;

	if (ev->action == ACT_COMM_PREV || ev->action == ACT_COMM_NEXT) {
		cv->from = ev->action == ACT_COMM_NEXT ? month_next(cv->from)
		                                       : month_start(clock_add_days(cv->from, -1));
		cv->p.cur = -1;
		build(cv);
		cv->p.top = 0;
		return ui_next(UI_REDRAW, NULL); /* now, not at the next change of the books */
	}
	n = pane_action(&cv->p, ev);
	if (n.kind != UI_UNHANDLED)
		return n;
	pane_target(&cv->p, &kind, &id);
	if (ev->action == ACT_OPEN && ui_hq()) {
		ui_msg(MSG_INFO, "%s",
		       _("The head office's rows open nothing: each record is at its shop."));
		return ui_next(UI_HANDLED, NULL);
	}
	if (ev->action == ACT_OPEN) {
		if (kind == K_INVOICE)
			return ui_next(UI_PUSH, view_invoice_new(id));
		if (kind == K_VISIT)
			return ui_next(UI_PUSH, view_visit_new(id));
		return ui_next(UI_HANDLED, NULL);
	}
	return ui_next(UI_UNHANDLED, NULL);
}

static void comm_title(struct view *v, char *buf, size_t n)
{
	(void)v;
	snprintf(buf, n, "%s", _("Commissions"));
}

static const char *comm_help(struct view *v)
{
	(void)v;
	if (ui_hq())
		return _("Each shop's technicians, their lines and commissions for a month, this "
		         "one first ([ and ] move a month): the figures of frontdesk hq report "
		         "commissions, each shop's own under its heading. Read-only; Ctrl-L reads "
		         "the head office again.");
	return _("Each technician's lines and commissions for a month, this one first ([ and ] "
	         "move a month): the figures of frontdesk report commissions, with the negative "
	         "rows of credit notes and refunds made in the month, and each technician's "
	         "total. Enter opens a row's invoice, or its visit when not invoiced.");
}

static const enum action comm_keys[] = {ACT_UP,        ACT_DOWN,   ACT_PAGE_UP, ACT_PAGE_DOWN,
                                        ACT_TOP,       ACT_BOTTOM, ACT_OPEN,    ACT_COMM_PREV,
                                        ACT_COMM_NEXT, ACT_NONE};
static const enum action comm_hints[] = {ACT_OPEN, ACT_COMM_PREV, ACT_COMM_NEXT, ACT_NONE};

static const struct view_ops comm_ops = {
    .name = "commissions",
    .ctx = CTX_COMM | CTX_PANE,
    .keys = comm_keys,
    .hints = comm_hints,
    .free = comm_free,
    .resize = comm_resize,
    .draw = comm_draw,
    .action = comm_action,
    .reload = comm_reload,
    .title = comm_title,
    .help = comm_help,
};

struct view *view_commissions_new(void)
{
	struct commv *cv = xcalloc(1, sizeof *cv);

	cv->from = month_start(clock_now());
	cv->p.cur = -1;
	build(cv);
	cv->p.top = 0; /* the headings stay in sight */
	return view_new(&comm_ops, cv);
}
