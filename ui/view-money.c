/*
 * view-money.c - the money at a glance: receivables aging (A) and takings
 * (T), the same figures as `frontdesk report aging` and `frontdesk report
 * takings`, read through the same core functions. Enter on an aging row
 * opens the customer's pane (their invoices, each opening the invoice);
 * the takings view adds up each day's methods (a "Day total" row per
 * currency below the day's rows) and lists the payments of its days below
 * the totals, Enter opening a payment (and from there its invoices).
 *
 * On the head office's screen (ui_hq) the same views read the chain's
 * figures through hq.h: the aging shop by shop (a heading per shop), the
 * takings of all shops summed; rows open nothing there, and the takings
 * list no payments (each is at its shop).
 *
 * Callers: screen.c (the global keys A and T).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "draw.h"
#include "err.h"
#include "fmt.h"
#include "hq.h"
#include "i18n.h"
#include "money.h"
#include "pane.h"
#include "payment.h"
#include "report.h"
#include "views.h"
#include "xalloc.h"

#define AGING_ROWS_MAX 2000 /* rows shown; the command line has them all */
#define TAKINGS_DAYS   7    /* today and the six days before */

struct moneyv {
	int takings; /* 0: aging */
	struct pane p;
	int64_t rows, shown;
	struct {
		char cur[4];
		int64_t v[AGING_BUCKETS + 2];
	} tot[8];
	int ntot;
	/* takings: the day being listed and its sums across methods, per
	 * currency (shown below its rows as the day's total) */
	char day[11];
	struct {
		char cur[4];
		int64_t count, received, refunded, net;
		int over; /* a sum overflowed: shown as "?" */
	} dt[8];
	int ndt;
	/* the head office's aging: the shop of the rows, and whether its
	 * heading still waits for the shop's first row shown */
	char shop[21];
	int shop_pending;
};

/* every column fits at 80 (77 columns): at 95 "over 90" and "owed", the
 * figures that matter most, did not and were left out */
static const struct pane_col aging_cols[] = {
    {12, 3, AL_LEFT},  /* customer */
    {3, 0, AL_LEFT},   /* currency */
    {9, 1, AL_RIGHT},  /* current */
    {9, 1, AL_RIGHT},  /* 1-30 */
    {9, 1, AL_RIGHT},  /* 31-60 */
    {9, 1, AL_RIGHT},  /* 61-90 */
    {9, 1, AL_RIGHT},  /* over 90 */
    {10, 1, AL_RIGHT}, /* owed */
};

static int aging_row(const struct aging_row *r, void *arg)
{
	struct moneyv *mv = arg;
	char m[AGING_BUCKETS + 1][FMT_MONEY];
	const char *cells[8];
	int i, t;

	for (t = 0; t < mv->ntot && strcmp(mv->tot[t].cur, r->currency); t++)
		;
	if (t == mv->ntot && t < 8) {
		memset(&mv->tot[t], 0, sizeof mv->tot[t]);
		snprintf(mv->tot[t].cur, sizeof mv->tot[t].cur, "%s", r->currency);
		mv->ntot++;
	}
	if (t < 8) {
		for (i = 0; i < AGING_BUCKETS; i++)
			money_add(mv->tot[t].v[i], r->bucket[i], &mv->tot[t].v[i]);
		money_add(mv->tot[t].v[AGING_BUCKETS], r->owed, &mv->tot[t].v[AGING_BUCKETS]);
		money_add(mv->tot[t].v[AGING_BUCKETS + 1], r->credit,
		          &mv->tot[t].v[AGING_BUCKETS + 1]);
	}
	mv->rows++;
	if (mv->shown >= AGING_ROWS_MAX || r->owed <= 0)
		return 0; /* credit only: counted in the totals */
	if (mv->shop_pending) {
		pane_text(&mv->p, 0, 0, R_HEADER, _("Shop %s"), mv->shop);
		mv->shop_pending = 0;
	}
	cells[0] = r->customer_name;
	cells[1] = r->currency;
	for (i = 0; i < AGING_BUCKETS; i++)
		cells[2 + i] = r->bucket[i] ? fmt_money(r->bucket[i], r->currency, m[i]) : "";
	cells[2 + AGING_BUCKETS] = fmt_money(r->owed, r->currency, m[AGING_BUCKETS]);
	/* at the head office a customer is at their shop: nothing to open */
	pane_row(&mv->p, ui_hq() ? 0 : K_CUSTOMER, r->customer_id,
	         r->bucket[AGING_OVER_90] || r->bucket[AGING_61_90] ? R_UNPAID : R_NORMAL, 8,
	         aging_cols, cells);
	mv->shown++;
	return 0;
}

/* A row of the head office's aging: the shop's heading before its first
 * row shown, then the row as a shop's. */
static int hq_aging_row(const struct hq_aging_row *h, void *arg)
{
	struct moneyv *mv = arg;
	struct aging_row r;

	if (strcmp(mv->shop, h->shop)) {
		snprintf(mv->shop, sizeof mv->shop, "%s", h->shop);
		mv->shop_pending = 1;
	}
	memset(&r, 0, sizeof r);
	r.customer_id = h->customer_id;
	r.customer_name = h->customer_name;
	memcpy(r.currency, h->currency, sizeof r.currency);
	memcpy(r.bucket, h->bucket, sizeof r.bucket);
	r.owed = h->owed;
	r.credit = h->credit;
	return aging_row(&r, mv);
}

/* The aging's rows on today's date: the shop's, or the chain's. */
static int read_aging(struct moneyv *mv)
{
	char on[32];

	if (!ui_hq())
		return report_aging(ui_db(), clock_now(), aging_row, mv);
	fmt_date(clock_now(), on);
	mv->shop[0] = '\0';
	mv->shop_pending = 0;
	return hq_report_aging(ui_hq(), NULL, on, hq_aging_row, mv);
}

static void build_aging(struct moneyv *mv)
{
	const char *head[8] = {_("Customer"), "",         _("Current"), _("1-30"),
	                       _("31-60"),    _("61-90"), _("Over 90"), _("Owed")};
	char d[32], m[AGING_BUCKETS + 2][FMT_MONEY];
	int t, i;

	mv->rows = mv->shown = 0;
	mv->ntot = 0;
	if (ui_hq())
		pane_text(&mv->p, 0, 0, R_HEADER,
		          _("Receivables of every shop on %s by days past due (as frontdesk hq "
		            "report aging)"),
		          fmt_date(clock_now(), d));
	else
		pane_text(&mv->p, 0, 0, R_HEADER,
		          _("Receivables on %s by days past due (as frontdesk report aging)"),
		          fmt_date(clock_now(), d));
	pane_row(&mv->p, 0, 0, R_HEADER, 8, aging_cols, head);
	if (read_aging(mv) != 0) {
		if (ui_hq())
			pane_text(&mv->p, 0, 0, R_ERROR, _("! The aging report cannot be read: %s"),
			          err_msg());
		else
			pane_text(&mv->p, 0, 0, R_ERROR, _("! The aging report cannot be read."));
		return;
	}
	if (mv->shown == 0)
		pane_text(&mv->p, 0, 0, R_DIM, "  %s", _("Nobody owes anything."));
	if (mv->shown >= AGING_ROWS_MAX)
		pane_text(&mv->p, 0, 0, R_DIM,
		          _("  The first %d customers who owe; frontdesk report aging lists all."),
		          AGING_ROWS_MAX);
	pane_blank(&mv->p);
	for (t = 0; t < mv->ntot; t++) {
		const char *cells[8];
		char label[64];

		snprintf(label, sizeof label, _("Total %s"), mv->tot[t].cur);
		cells[0] = label;
		cells[1] = mv->tot[t].cur;
		for (i = 0; i < AGING_BUCKETS + 1; i++)
			cells[2 + i] = fmt_money(mv->tot[t].v[i], mv->tot[t].cur, m[i]);
		pane_row(&mv->p, 0, 0, R_HEADER, 8, aging_cols, cells);
		pane_text(&mv->p, 0, 0, R_PARTIAL, _("  Credit held for customers: %s"),
		          fmt_money_cur(mv->tot[t].v[AGING_BUCKETS + 1], mv->tot[t].cur,
		                        m[AGING_BUCKETS + 1]));
	}
}

static const struct pane_col takings_cols[] = {
    {10, 0, AL_LEFT},  /* day */
    {14, 1, AL_LEFT},  /* method */
    {3, 0, AL_LEFT},   /* currency */
    {6, 0, AL_RIGHT},  /* count */
    {13, 1, AL_RIGHT}, /* received */
    {13, 1, AL_RIGHT}, /* refunded */
    {13, 1, AL_RIGHT}, /* net */
};

/* The rows of the day's totals across methods, one per currency, then
 * forget them. */
static void day_total(struct moneyv *mv)
{
	char n[24], a[FMT_MONEY], b[FMT_MONEY], c[FMT_MONEY];
	const char *cells[7];
	int i;

	for (i = 0; i < mv->ndt; i++) {
		snprintf(n, sizeof n, "%lld", (long long)mv->dt[i].count);
		cells[0] = "";
		/* TRANSLATORS: the takings view's row that adds up a day's methods */
		cells[1] = _("Day total");
		cells[2] = mv->dt[i].cur;
		cells[3] = n;
		cells[4] = mv->dt[i].over ? "?" : fmt_money(mv->dt[i].received, mv->dt[i].cur, a);
		cells[5] = mv->dt[i].over ? "?" : fmt_money(mv->dt[i].refunded, mv->dt[i].cur, b);
		cells[6] = mv->dt[i].over ? "?" : fmt_money(mv->dt[i].net, mv->dt[i].cur, c);
		pane_row(&mv->p, 0, 0, R_HEADER, 7, takings_cols, cells);
	}
	mv->ndt = 0;
	mv->day[0] = '\0';
}

/* Add row r to its day's total in its currency. */
static void day_add(struct moneyv *mv, const struct takings_row *r)
{
	int i;

	if (strcmp(mv->day, r->day))
		day_total(mv);
	snprintf(mv->day, sizeof mv->day, "%s", r->day);
	for (i = 0; i < mv->ndt && strcmp(mv->dt[i].cur, r->currency); i++)
		;
	if (i == mv->ndt) {
		if (mv->ndt == (int)(sizeof mv->dt / sizeof mv->dt[0]))
			return; /* more currencies in a day than shown: their rows say it */
		memset(&mv->dt[i], 0, sizeof mv->dt[i]);
		snprintf(mv->dt[i].cur, sizeof mv->dt[i].cur, "%s", r->currency);
		mv->ndt++;
	}
	mv->dt[i].count += r->count;
	if (money_add(mv->dt[i].received, r->received, &mv->dt[i].received) ||
	    money_add(mv->dt[i].refunded, r->refunded, &mv->dt[i].refunded) ||
	    money_add(mv->dt[i].net, r->net, &mv->dt[i].net))
		mv->dt[i].over = 1;
}

static int takings_row(const struct takings_row *r, void *arg)
{
	struct moneyv *mv = arg;
	char n[24], a[FMT_MONEY], b[FMT_MONEY], c[FMT_MONEY];
	const char *cells[7];

	day_add(mv, r);
	snprintf(n, sizeof n, "%lld", (long long)r->count);
	cells[0] = r->day;
	cells[1] = fmt_status(r->method);
	cells[2] = r->currency;
	cells[3] = n;
	cells[4] = fmt_money(r->received, r->currency, a);
	cells[5] = fmt_money(r->refunded, r->currency, b);
	cells[6] = fmt_money(r->net, r->currency, c);
	pane_row(&mv->p, 0, 0, R_NORMAL, 7, takings_cols, cells);
	mv->rows++;
	return 0;
}

/* A row of the head office's takings (the shops' summed) as a shop's. */
static int hq_takings_row(const struct hq_takings_row *h, void *arg)
{
	struct takings_row r;

	memset(&r, 0, sizeof r);
	memcpy(r.day, h->day, sizeof r.day);
	memcpy(r.method, h->method, sizeof r.method);
	memcpy(r.currency, h->currency, sizeof r.currency);
	r.count = h->count;
	r.received = h->received;
	r.refunded = h->refunded;
	r.net = h->net;
	return takings_row(&r, arg);
}

/* The takings' rows from..to (to excluded): the shop's, or the chain's. */
static int read_takings(struct moneyv *mv, int64_t from, int64_t to)
{
	char f[32], t[32];

	if (!ui_hq())
		return report_takings(ui_db(), from, to, takings_row, mv);
	return hq_report_takings(ui_hq(), NULL, fmt_date(from, f),
	                         fmt_date(clock_add_days(to, -1), t), hq_takings_row, mv);
}

static const struct pane_col pay_cols[] = {
    {16, 0, AL_LEFT},  /* when */
    {18, 2, AL_LEFT},  /* customer */
    {14, 1, AL_LEFT},  /* method */
    {14, 0, AL_RIGHT}, /* amount */
    {14, 1, AL_LEFT},  /* status */
};

static int payment_row(const struct payment *p, void *arg)
{
	struct moneyv *mv = arg;
	char when[32], a[FMT_MONEY];
	const char *cells[5];

	cells[0] = fmt_datetime(p->received_at, when);
	cells[1] = p->customer_name;
	cells[2] = fmt_status(p->method);
	cells[3] = fmt_money_cur(p->amount, p->currency, a);
	cells[4] = fmt_status(p->status);
	pane_row(&mv->p, K_PAYMENT, p->id, payment_is_void(p) ? R_DIM : R_NORMAL, 5, pay_cols,
	         cells);
	mv->shown++;
	return mv->shown >= AGING_ROWS_MAX;
}

static void build_takings(struct moneyv *mv)
{
	/* TRANSLATORS: "Received" here heads the column of the amounts
	   received; the payments' "Received" below is their time */
	const char *head[7] = {_("Day"),      _("Method"), "", _("Count"), C_("amount", "Received"),
	                       _("Refunded"), _("Net")};
	const char *phead[5] = {_("Received"), _("Customer"), _("Method"), _("Amount"),
	                        _("Status")};
	int64_t to = clock_add_days(clock_day_start(clock_now()), 1);
	int64_t from = clock_add_days(to, -TAKINGS_DAYS);
	char f[32], t[32];

	mv->rows = mv->shown = 0;
	mv->ndt = 0;
	mv->day[0] = '\0';
	if (ui_hq())
		pane_text(&mv->p, 0, 0, R_HEADER,
		          _("Takings of every shop from %1$s to %2$s, by day and method (as "
		            "frontdesk hq report takings)"),
		          fmt_date(from, f), fmt_date(clock_add_days(to, -1), t));
	else
		pane_text(&mv->p, 0, 0, R_HEADER,
		          _("Takings from %1$s to %2$s, by day and method (as frontdesk report "
		            "takings)"),
		          fmt_date(from, f), fmt_date(clock_add_days(to, -1), t));
	pane_row(&mv->p, 0, 0, R_HEADER, 7, takings_cols, head);
	if (read_takings(mv, from, to) != 0) {
		if (ui_hq())
			pane_text(&mv->p, 0, 0, R_ERROR, _("! The takings cannot be read: %s"),
			          err_msg());
		else
			pane_text(&mv->p, 0, 0, R_ERROR, _("! The takings cannot be read."));
	} else
		day_total(mv); /* the last day's */
	if (mv->rows == 0)
		pane_text(&mv->p, 0, 0, R_DIM, "  %s", _("Nothing was taken on these days."));
	if (ui_hq())
		return; /* each payment is at its shop */
	pane_blank(&mv->p);
	pane_text(&mv->p, 0, 0, R_HEADER, "%s", _("The payments of these days (Enter opens one)"));
	pane_row(&mv->p, 0, 0, R_HEADER, 5, pay_cols, phead);
	payment_list_received(ui_db(), from, to, payment_row, mv);
	if (mv->shown == 0)
		pane_text(&mv->p, 0, 0, R_DIM, "  %s", _("None."));
}

static void build(struct moneyv *mv)
{
	int kind, old = mv->p.cur;
	int64_t id;

	pane_target(&mv->p, &kind, &id);
	pane_clear(&mv->p);
	if (mv->takings)
		build_takings(mv);
	else
		build_aging(mv);
	pane_restore(&mv->p, kind, id, old < 0 ? 0 : old);
}

static void money_free(struct view *v)
{
	struct moneyv *mv = v->priv;

	pane_free(&mv->p);
	free(mv);
}

static void money_resize(struct view *v, int h, int w)
{
	(void)v;
	(void)h;
	(void)w;
}

static void money_draw(struct view *v, WINDOW *w)
{
	struct moneyv *mv = v->priv;

	pane_draw(&mv->p, w, 0);
}

static void money_reload(struct view *v)
{
	build(v->priv);
}

static struct ui_next money_action(struct view *v, const struct ui_event *ev)
{
	struct moneyv *mv = v->priv;
	int kind;
	int64_t id;
	struct ui_next n = pane_action(&mv->p, ev);

	if (n.kind != UI_UNHANDLED)
		return n;
	pane_target(&mv->p, &kind, &id);
	if (ev->action == ACT_OPEN && ui_hq()) {
		ui_msg(MSG_INFO, "%s",
		       _("The head office's rows open nothing: each record is at its shop."));
		return ui_next(UI_HANDLED, NULL);
	}
	if (ev->action == ACT_OPEN) {
		if (kind == K_CUSTOMER)
			return ui_next(UI_PUSH, view_customer_new(id));
		if (kind == K_PAYMENT)
			return ui_next(UI_PUSH, view_payment_new(id));
		return ui_next(UI_HANDLED, NULL);
	}
	return ui_next(UI_UNHANDLED, NULL);
}

static void money_title(struct view *v, char *buf, size_t n)
{
	struct moneyv *mv = v->priv;

	snprintf(buf, n, "%s", mv->takings ? _("Takings") : _("Receivables aging"));
}

/* The help of the head office's views. */
static const char *hq_help(int takings)
{
	return takings ? _("What every shop took today and on the six days before, by day and "
	                   "method, net of refunds: the figures of frontdesk hq report takings, "
	                   "the shops' own summed; below each day's methods, its total across "
	                   "them. Read-only; Ctrl-L reads the head office again.")
	               : _("What each customer of each shop owes by days past due on today's "
	                   "date (each shop's own figures, under its heading), with the totals "
	                   "per currency over all shops and the credit held: the figures of "
	                   "frontdesk hq report aging. Read-only; Ctrl-L reads the head office "
	                   "again.");
}

static const char *money_help(struct view *v)
{
	struct moneyv *mv = v->priv;

	if (ui_hq())
		return hq_help(mv->takings);
	return mv->takings
	           ? _("What was taken today and on the six days before, by day and method, net "
	               "of refunds: the figures of frontdesk report takings; below each day's "
	               "methods, its total across them (Day total). Below, every payment of those "
	               "days; Enter opens one.")
	           : _("What each customer owes by days past due on today's date, with the totals "
	               "per currency and the credit held: the figures of frontdesk report aging. "
	               "Enter on a customer opens their pane, where Enter on an invoice opens it.");
}

static const enum action money_keys[] = {ACT_UP,  ACT_DOWN,   ACT_PAGE_UP, ACT_PAGE_DOWN,
                                         ACT_TOP, ACT_BOTTOM, ACT_OPEN,    ACT_NONE};
static const enum action money_hints[] = {ACT_OPEN, ACT_NONE};

static const struct view_ops money_ops = {
    .name = "money",
    .ctx = CTX_PANE,
    .keys = money_keys,
    .hints = money_hints,
    .free = money_free,
    .resize = money_resize,
    .draw = money_draw,
    .action = money_action,
    .reload = money_reload,
    .title = money_title,
    .help = money_help,
};

static struct view *money_view(int takings)
{
	struct moneyv *mv = xcalloc(1, sizeof *mv);

	mv->takings = takings;
	mv->p.cur = -1;
	build(mv);
	pane_select_first(&mv->p, takings ? K_PAYMENT : K_CUSTOMER);
	mv->p.top = 0; /* the headings stay in sight */
	return view_new(&money_ops, mv);
}

struct view *view_aging_new(void)
{
	return money_view(0);
}

struct view *view_takings_new(void)
{
	return money_view(1);
}
