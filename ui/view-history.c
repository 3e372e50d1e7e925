/*
 * view-history.c - a record's timeline (H on any record): the same events
 * as `frontdesk history`, read by the core (history_read), oldest first,
 * each with the fields it changed below it. Nothing is selectable: the
 * arrows and PgUp/PgDn scroll. The lines are rebuilt when the database
 * changes (a change made at another desk appears) and when the width
 * changes (long values are wrapped, never cut off); text from the database
 * passes the display sanitiser through draw_text and payload_lines.
 *
 * Also here: pane_history_target, the target op of the lists (the selected
 * line's record, else the list's own), and pane_line_history, the h key of
 * the record panes: there H is the pane's own record (an invoice, a
 * payment, a visit, a job, a customer) and h the selected line's (an
 * allocation, a line item, a job of the visit).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "draw.h"
#include "err.h"
#include "fmt.h"
#include "history.h"
#include "i18n.h"
#include "pane.h"
#include "payload.h"
#include "pipe-log.h"
#include "views.h"
#include "xalloc.h"

struct historyv {
	char kind[16];
	int64_t id;
	int w;
	struct pane p;
};

static int add_line(const char *line, void *arg)
{
	struct historyv *hv = arg;

	pane_text(&hv->p, 0, 0, R_NORMAL, "%s", line);
	return 0;
}

/* One line of text, made harmless and wrapped to the width. */
static void line(struct historyv *hv, const char *s)
{
	payload_lines(s, strlen(s), hv->w - 2, 1, add_line, hv);
}

static int add_event(const struct history_event *e, void *arg)
{
	struct historyv *hv = arg;
	char when[32], *s;
	size_t i, n;

	fmt_datetime(e->at, when);
	if (!strcmp(e->what, "status"))
		pane_text(&hv->p, 0, 0, R_HEADER, _("%1$s  status %2$s -> %3$s"), when,
		          e->from_status ? e->from_status : "-", e->to_status);
	else if (!strcmp(e->what, "request"))
		pane_text(&hv->p, 0, 0, R_DIM, _("%1$s  request to %2$s"), when, e->operator);
	else
		pane_text(&hv->p, 0, 0, R_HEADER, "%s  %s%s%s", when, e->part, *e->part ? ": " : "",
		          !strcmp(e->what, "created")   ? _("created")
		          : !strcmp(e->what, "deleted") ? _("deleted")
		                                        : _("changed"));
	if (*e->operator&& strcmp(e->what, "request")) {
		char who[200];

		if (*e->operator_name)
			snprintf(who, sizeof who, "%s (%s)", e->operator_name, e->operator);
		else
			snprintf(who, sizeof who, "%s", e->operator);
		n = strlen(who) + 16;
		s = xmalloc(n);
		snprintf(s, n, _("    by %s"), who);
		line(hv, s);
		free(s);
	}
	if (e->reason)
		line(hv, e->reason);
	if (e->request)
		line(hv, e->request);
	for (i = 0; i < e->nchanges; i++) {
		const struct history_change *c = &e->changes[i];

		n = strlen(c->field) + strlen(c->new_value) +
		    (c->old_value ? strlen(c->old_value) : 0) + 16;
		s = xmalloc(n);
		if (c->old_value)
			snprintf(s, n, "    %s: %s -> %s", c->field, c->old_value, c->new_value);
		else
			snprintf(s, n, "    %s: %s", c->field, c->new_value);
		line(hv, s);
		free(s);
	}
	return 0;
}

static void build(struct historyv *hv)
{
	char *log = pipe_log_default_path(db_path(ui_db())), ref[24];
	int rc;

	pane_clear(&hv->p);
	snprintf(ref, sizeof ref, "%lld", (long long)hv->id);
	rc = history_read(ui_db(), hv->kind, ref, log, add_event, hv);
	free(log);
	if (rc) {
		pane_text(&hv->p, 0, 0, R_ERROR, _("! The history cannot be read: %s"), err_msg());
	} else if (hv->p.n == 0) {
		pane_text(&hv->p, 0, 0, R_DIM, "%s", _("Nothing is recorded for it."));
	}
	hv->p.cur = -1; /* nothing to select: the keys scroll */
}

static void history_free(struct view *v)
{
	struct historyv *hv = v->priv;

	pane_free(&hv->p);
	free(hv);
}

static void history_resize(struct view *v, int h, int w)
{
	struct historyv *hv = v->priv;

	(void)h;
	if (w != hv->w) {
		hv->w = w;
		build(hv);
	}
}

static void history_draw(struct view *v, WINDOW *w)
{
	struct historyv *hv = v->priv;

	pane_draw(&hv->p, w, 0);
}

static void history_reload(struct view *v)
{
	build(v->priv);
}

static struct ui_next history_action(struct view *v, const struct ui_event *e)
{
	struct historyv *hv = v->priv;
	struct ui_next n = pane_action(&hv->p, e);

	if (n.kind != UI_UNHANDLED)
		return n;
	if (e->action == ACT_HISTORY || e->action == ACT_OPEN)
		return ui_next(UI_HANDLED, NULL);
	return ui_next(UI_UNHANDLED, NULL);
}

static void history_title(struct view *v, char *buf, size_t n)
{
	struct historyv *hv = v->priv;

	/* TRANSLATORS: the breadcrumb of a record's history: its kind and id */
	snprintf(buf, n, _("History of %1$s %2$lld"), hv->kind, (long long)hv->id);
}

static const char *history_help(struct view *v)
{
	(void)v;
	return _("Everything recorded about this record, oldest first: when it was created and "
	         "by whom, every change with only the fields that changed (old -> new), every "
	         "status move with its reason and, for card payments, the calls to the payment "
	         "channel. The same as 'frontdesk history' on the command line. The arrows and "
	         "PgUp/PgDn scroll.");
}

static const enum action history_keys[] = {ACT_UP,  ACT_DOWN,   ACT_PAGE_UP, ACT_PAGE_DOWN,
                                           ACT_TOP, ACT_BOTTOM, ACT_NONE};

static const struct view_ops history_ops = {
    .name = "history",
    .ctx = CTX_PANE,
    .keys = history_keys,
    .hints = NULL,
    .free = history_free,
    .resize = history_resize,
    .draw = history_draw,
    .action = history_action,
    .reload = history_reload,
    .title = history_title,
    .help = history_help,
};

struct view *view_history_new(const char *kind, int64_t id)
{
	struct historyv *hv = xcalloc(1, sizeof *hv);

	snprintf(hv->kind, sizeof hv->kind, "%s", kind);
	hv->id = id;
	hv->p.cur = -1; /* built by the first resize, which pushing it does */
	return view_new(&history_ops, hv);
}

int pane_history_target(const struct pane *p, const char *own_kind, int64_t own_id,
                        const char **kind, int64_t *id)
{
	static const struct {
		int kind;
		const char *word;
	} words[] = {{K_VISIT, "visit"},     {K_JOB, "job"},          {K_ITEM, "item"},
	             {K_INVOICE, "invoice"}, {K_ALLOC, "allocation"}, {K_PAYMENT, "payment"},
	             {K_REFUND, "refund"},   {K_CUSTOMER, "customer"}};
	int k;
	int64_t sel;
	size_t i;

	pane_target(p, &k, &sel);
	for (i = 0; i < sizeof words / sizeof *words; i++)
		if (k == words[i].kind && sel > 0) {
			*kind = words[i].word;
			*id = sel;
			return 1;
		}
	if (!own_kind || own_id <= 0)
		return 0;
	*kind = own_kind;
	*id = own_id;
	return 1;
}

struct ui_next pane_line_history(const struct pane *p)
{
	const char *kind = NULL;
	int64_t id = 0;

	if (!pane_history_target(p, NULL, 0, &kind, &id)) {
		ui_msg(MSG_INFO, _("Select a line first: h shows the history of its record."));
		return ui_next(UI_REDRAW, NULL);
	}
	return ui_next(UI_PUSH, view_history_new(kind, id));
}
