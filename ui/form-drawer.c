/*
 * form-drawer.c - the cash drawer of this desk, one key ($) from anywhere
 * on the desk screen. Every rule is the core's (drawer.h); the forms only
 * ask and show what it answers.
 *
 * When no drawer is open for this process (drawer_current: FD_ENOTFOUND,
 * or FD_ECONFLICT when several desks have theirs open and none is this
 * one's), the key opens the "Open a drawer" form: the desk (pre-filled with
 * drawer_desk(), the --desk option or FRONTDESK_DESK) and the float, a
 * total or denominations (drawer_amount_read's "20x5,10x3"), which
 * drawer_open checks. When one is open, a small menu (a quiet form with
 * one choice) leads to "Pay out" (an amount and a reason: drawer_payout)
 * or "Close (count)".
 *
 * The close is blind: neither the menu nor the close form shows what the
 * drawer should hold (nor the movements it adds up from, only how many
 * there are); the close form asks the count and an optional reason, and
 * only after drawer_close wrote the count does its receipt show what was
 * expected, counted and the difference. When the core refuses the count
 * without a reason (over or short), the form keeps what was typed, shows
 * the core's message (which names no figure) and moves to the reason.
 *
 * Callers: screen.c (the drawer action).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "drawer.h"
#include "err.h"
#include "fmt.h"
#include "form.h"
#include "i18n.h"
#include "money.h"
#include "views.h"
#include "xalloc.h"

enum { D_DESK = 1, D_FLOAT, D_WHAT, D_AMOUNT, D_REASON, D_COUNT };

struct drawst {
	struct drawer d; /* the open session (menu, pay out, close); zero for open */
	int64_t amount;  /* pay out: the amount read by check */
};

static struct drawst *drawst_new(void)
{
	return xcalloc(1, sizeof(struct drawst));
}

static void draw_free(struct form *f)
{
	struct drawst *ds = f->arg;

	drawer_free(&ds->d);
	free(ds);
}

/* A field's text, or NULL when it is empty (the core's "none"). */
static const char *value_or_null(struct form *f, int id)
{
	const char *v = form_value(f, form_find(f, id));

	return *v ? v : NULL;
}

/* The session's opening, as an information line: "by ana, 2026-12-01 09:00". */
static void opened_info(struct form *f, const struct drawer *d)
{
	char when[32], info[160], m[FMT_MONEY];

	snprintf(info, sizeof info, _("by %1$s, %2$s"), d->opened_by,
	         fmt_datetime(d->opened_at, when));
	form_add(f, F_INFO, 0, _("Opened"), info);
	form_add(f, F_INFO, 0, _("Float"), fmt_money_cur(d->float_amount, d->currency, m));
}

/* ---------------------------------------------------------------- open */

static int open_check(struct form *f)
{
	(void)f;
	return 0; /* the desk and the float are the core's to check (drawer_open) */
}

static int open_post(struct form *f)
{
	struct drawer d;
	int64_t id = 0;
	char m[FMT_MONEY];
	int rc;

	rc = drawer_open(ui_db(), value_or_null(f, D_DESK), NULL,
	                 form_value(f, form_find(f, D_FLOAT)), &id);
	if (rc)
		return rc;
	f->posted_id = id;
	if (drawer_get(ui_db(), id, &d) == 0) {
		form_receipt(f, _("Drawer %1$s is open with a float of %2$s."), d.desk,
		             fmt_money_cur(d.float_amount, d.currency, m));
		drawer_free(&d);
	} else {
		form_receipt(f, "%s", _("The drawer is open."));
	}
	return 0;
}

static const struct form_spec open_spec = {
    .name = "drawer-open",
    .check = open_check,
    .post = open_post,
    .free = draw_free,
    .help = N_("Open the cash drawer of a desk with the float it starts with: a total "
               "(150.00) or the count of each denomination (20x5,10x3: five notes of 20 and "
               "three of 10). While it is open, the cash taken and given back at this desk "
               "is counted in it; the same key then pays out or closes it."),
};

static struct view *open_form(const char *why)
{
	struct form *f = form_new(&open_spec, drawst_new(), _("Open a drawer"));
	int k;

	if (why)
		form_add(f, F_INFO, 0, _("Drawers"), why);
	k = form_add(f, F_TEXT, D_DESK, _("Desk"), drawer_desk());
	f->fields[k].width = 20;
	k = form_add(f, F_TEXT, D_FLOAT, _("Float"), NULL);
	f->fields[k].width = 30;
	form_note(f, k, _("a total, or denominations: 20x5,10x3"));
	return form_view(f);
}

/* ---------------------------------------------------------------- pay out */

static int payout_check(struct form *f)
{
	struct drawst *ds = f->arg;
	int k = form_find(f, D_AMOUNT);

	if (money_parse(form_value(f, k), currency_find(ds->d.currency), &ds->amount)) {
		form_error(f, k, "%s", err_msg());
		return 1;
	}
	return 0;
}

static int payout_post(struct form *f)
{
	struct drawst *ds = f->arg;
	const char *reason = form_value(f, form_find(f, D_REASON));
	int64_t move = 0;
	char m[FMT_MONEY];
	int rc;

	if ((rc = drawer_payout(ui_db(), ds->d.desk, ds->amount, reason, &move)))
		return rc;
	f->posted_id = move;
	form_receipt(f, _("Paid out %1$s from drawer %2$s."),
	             fmt_money_cur(ds->amount, ds->d.currency, m), ds->d.desk);
	form_receipt(f, _("Reason: %s"), reason);
	return 0;
}

static const struct form_spec payout_spec = {
    .name = "drawer-payout",
    .check = payout_check,
    .post = payout_post,
    .free = draw_free,
    .help = N_("Pay cash out of the drawer for an expense, with the reason: it is a movement "
               "of the drawer, counted against it at the close, and touches no invoice."),
};

static struct view *payout_form(struct drawst *ds)
{
	struct form *f;
	char title[160];
	int k;

	snprintf(title, sizeof title, _("Pay out of drawer %s"), ds->d.desk);
	f = form_new(&payout_spec, ds, title);
	k = form_add(f, F_TEXT, D_AMOUNT, _("Amount"), NULL);
	f->fields[k].width = 16;
	k = form_add(f, F_TEXT, D_REASON, _("Reason"), NULL);
	f->fields[k].width = 40;
	return form_view(f);
}

/* ---------------------------------------------------------------- close */

static int close_check(struct form *f)
{
	struct drawst *ds = f->arg;
	int k = form_find(f, D_COUNT);
	int64_t total;
	char *detail = NULL;

	/* the core's reading of the count, so that a typing slip is shown
	 * beside the field; whether it needs a reason is told by the close */
	if (drawer_amount_read(form_value(f, k), ds->d.currency, &total, &detail)) {
		form_error(f, k, "%s", err_msg());
		return 1;
	}
	free(detail);
	return 0;
}

static void close_confirm(struct form *f, char *buf, size_t n)
{
	struct drawst *ds = f->arg;

	snprintf(buf, n, _("Close drawer %1$s with the count %2$s? The count is written once."),
	         ds->d.desk, form_value(f, form_find(f, D_COUNT)));
}

static int close_post(struct form *f)
{
	struct drawst *ds = f->arg;
	const char *reason = value_or_null(f, D_REASON);
	struct drawer out;
	char m[FMT_MONEY];
	int rc;

	memset(&out, 0, sizeof out);
	rc = drawer_close(ui_db(), NULL, ds->d.id, form_value(f, form_find(f, D_COUNT)), reason,
	                  &out);
	if (rc) {
		/* the count was read (close_check): a refusal without a reason
		 * is the core asking for one; its message, in full under the
		 * reason, says so without the figure */
		if (rc == FD_EINVAL && !reason) {
			f->cur = form_find(f, D_REASON);
			form_error(f, f->cur, "%s", err_msg());
		}
		return rc;
	}
	f->posted_id = out.id;
	form_receipt(f, _("Drawer %s is closed."), out.desk);
	form_receipt(f, _("Expected: %s"), fmt_money_cur(out.expected, out.currency, m));
	form_receipt(f, _("Counted: %s"), fmt_money_cur(out.counted, out.currency, m));
	if (out.difference < 0)
		form_receipt(f, _("Short: %s"), fmt_money_cur(-out.difference, out.currency, m));
	else if (out.difference > 0)
		form_receipt(f, _("Over: %s"), fmt_money_cur(out.difference, out.currency, m));
	else
		form_receipt(f, "%s", _("The count is exact."));
	if (out.reason)
		form_receipt(f, _("Reason: %s"), out.reason);
	drawer_free(&out);
	return 0;
}

static const struct form_spec close_spec = {
    .name = "drawer-close",
    .check = close_check,
    .post = close_post,
    .confirm = close_confirm,
    .free = draw_free,
    .help = N_("Count the cash in the drawer and type what you counted: a total or the count "
               "of each denomination (20x5,10x3). The count is blind: what the drawer should "
               "hold is shown only after the count is written, with the difference. When the "
               "count is over or short, a reason is needed; the count is written once."),
};

static struct view *close_form(struct drawst *ds)
{
	struct form *f;
	char title[160];
	int k;

	snprintf(title, sizeof title, _("Close drawer %s (count)"), ds->d.desk);
	f = form_new(&close_spec, ds, title);
	opened_info(f, &ds->d);
	k = form_add(f, F_TEXT, D_COUNT, _("Counted"), NULL);
	f->fields[k].width = 30;
	form_note(f, k, _("a total, or denominations: 20x5,10x3"));
	k = form_add(f, F_TEXT, D_REASON, _("Reason"), NULL);
	f->fields[k].width = 40;
	form_note(f, k, _("only when over or short"));
	return form_view(f);
}

/* ---------------------------------------------------------------- the menu */

static const char *const what_values[] = {"payout", "close"};
static const char *const what_labels[] = {N_("Pay out"), N_("Close (count)")};

static int menu_check(struct form *f)
{
	(void)f;
	return 0;
}

static int menu_post(struct form *f)
{
	(void)f;
	return 0; /* nothing is written: the chosen form follows (menu_next) */
}

/* The chosen form, which takes over the session read for the menu. */
static struct view *menu_next(struct form *f)
{
	struct drawst *ds = f->arg, *next = drawst_new();

	next->d = ds->d;
	memset(&ds->d, 0, sizeof ds->d);
	if (!strcmp(form_value(f, form_find(f, D_WHAT)), "close"))
		return close_form(next);
	return payout_form(next);
}

static const struct form_spec menu_spec = {
    .name = "drawer-menu",
    .check = menu_check,
    .post = menu_post,
    .next = menu_next,
    .free = draw_free,
    .quiet = 1,
    .help = N_("This desk's drawer is open: pay cash out of it (an expense, with a reason), or "
               "close it with a blind count. Left and Right choose; Enter goes on."),
};

struct view *form_drawer_new(void)
{
	struct drawst *ds;
	struct form *f;
	char title[160], moves[32];
	int rc;

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	ds = drawst_new();
	err_clear();
	rc = drawer_current(ui_db(), NULL, &ds->d);
	if (rc == FD_ENOTFOUND || rc == FD_ECONFLICT) {
		char why[400];

		snprintf(why, sizeof why, "%s", rc == FD_ECONFLICT ? err_msg() : "");
		free(ds); /* drawer_current filled nothing */
		return open_form(why[0] ? why : NULL);
	}
	if (rc) {
		ui_msg(MSG_ERROR, _("Cannot read this desk's drawer: %s"), err_msg());
		free(ds);
		return NULL;
	}
	snprintf(title, sizeof title, _("Drawer %s"), ds->d.desk);
	f = form_new(&menu_spec, ds, title);
	opened_info(f, &ds->d);
	snprintf(moves, sizeof moves, "%lld", (long long)ds->d.moves);
	form_add(f, F_INFO, 0, _("Movements"), moves);
	form_add_choice(f, D_WHAT, _("Do"), what_values, what_labels, 2, NULL);
	return form_view(f);
}
