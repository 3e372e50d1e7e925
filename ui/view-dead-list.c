/*
 * view-dead-list.c - the payment channel's dead letters: the inbound events
 * given up (status 'dead'), newest first, with when they came, their
 * source, type and last error; and below them the outbox commands given up.
 * Enter opens one with all its fields and its raw payload (view-dead-detail.c);
 * r retries the selected inbound event, i ignores it with a reason
 * (form-ignore.c); r on an outbox command sends it again with its
 * idempotency key (outbox_retry). Opened with the global dead-letters key (D).
 *
 * Everything shown comes from outside (the channel wrote it): it is drawn
 * through draw_text, which sanitises it and fits it by display width. The
 * cursor stays on the same record across live refreshes; after a retry or
 * an ignore the record leaves the list and the cursor goes to its
 * neighbour.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "err.h"
#include "fmt.h"
#include "i18n.h"
#include "inbox.h"
#include "outbox.h"
#include "pane.h"
#include "pipe.h"
#include "views.h"
#include "xalloc.h"

/* The most of each kind listed (the newest); the heading says how many
 * there are in all. */
#define DEAD_LIMIT 200

/* Kinds of the selectable lines (beyond pane.h's). */
enum { K_DEAD_IN = 100, K_DEAD_OUT };

struct deadv {
	struct pane p;
};

static const struct pane_col in_cols[] = {
    {6, 0, AL_LEFT},  /* id */
    {16, 0, AL_LEFT}, /* received */
    {8, 0, AL_LEFT},  /* source */
    {20, 1, AL_LEFT}, /* event type */
    {14, 2, AL_LEFT}, /* last error */
};

static const struct pane_col out_cols[] = {
    {6, 0, AL_LEFT},  /* id */
    {16, 0, AL_LEFT}, /* given up */
    {16, 0, AL_LEFT}, /* command */
    {16, 1, AL_LEFT}, /* order or refund */
    {14, 2, AL_LEFT}, /* last error */
};

static int add_in(const struct inbox_event *e, void *arg)
{
	struct deadv *dv = arg;
	char id[24], when[32];
	const char *cells[5];

	snprintf(id, sizeof id, "%lld", (long long)e->id);
	cells[0] = id;
	cells[1] = fmt_datetime(e->received_at, when);
	cells[2] = e->source;
	cells[3] = e->event_type ? e->event_type : "-";
	cells[4] = e->last_error ? e->last_error : "-";
	pane_row(&dv->p, K_DEAD_IN, e->id, R_NORMAL, 5, in_cols, cells);
	return 0;
}

static int add_out(const struct outbox_cmd *o, void *arg)
{
	struct deadv *dv = arg;
	char id[24], when[32];
	const char *cells[5];

	snprintf(id, sizeof id, "%lld", (long long)o->id);
	cells[0] = id;
	cells[1] = fmt_datetime(o->updated_at, when);
	cells[2] = o->event_type;
	cells[3] = o->business_key;
	cells[4] = o->last_error ? o->last_error : "-";
	pane_row(&dv->p, K_DEAD_OUT, o->id, R_NORMAL, 5, out_cols, cells);
	return 0;
}

/* A section's heading, with "the newest N of M" when not all are listed. */
static void heading(struct deadv *dv, const char *title, int64_t total)
{
	if (total > DEAD_LIMIT)
		pane_text(&dv->p, 0, 0, R_HEADER, _("%1$s: %2$lld (the newest %3$d are listed)"),
		          title, (long long)total, DEAD_LIMIT);
	else
		pane_text(&dv->p, 0, 0, R_HEADER, "%s: %lld", title, (long long)total);
}

static void build(struct deadv *dv)
{
	const char *in_head[5] = {_("Id"), _("Time received"), _("Source"), _("Type"),
	                          _("Last error")};
	const char *out_head[5] = {_("Id"), _("Given up"), _("Command"), _("Order or refund"),
	                           _("Last error")};
	int64_t n_in = 0, n_out = 0, id;
	int kind, old = dv->p.cur, before, rc;

	pane_target(&dv->p, &kind, &id);
	pane_clear(&dv->p);
	rc = inbox_count(ui_db(), NULL, "dead", &n_in);
	if (rc == 0)
		rc = outbox_dead_count(ui_db(), &n_out);
	if (rc) {
		pane_text(&dv->p, 0, 0, R_ERROR, _("! The dead letters cannot be read: %s"),
		          err_msg());
		return;
	}
	heading(dv, _("Inbound events given up"), n_in);
	pane_row(&dv->p, 0, 0, R_DIM, 5, in_cols, in_head);
	before = dv->p.n;
	if (inbox_list(ui_db(), "dead", NULL, NULL, DEAD_LIMIT, add_in, dv) != 0)
		pane_text(&dv->p, 0, 0, R_ERROR, _("! The inbound events cannot be read: %s"),
		          err_msg());
	else if (dv->p.n == before)
		pane_text(&dv->p, 0, 0, R_DIM, "  %s", _("None."));
	pane_blank(&dv->p);
	heading(dv, _("Outbox commands given up"), n_out);
	pane_row(&dv->p, 0, 0, R_DIM, 5, out_cols, out_head);
	before = dv->p.n;
	if (outbox_cmd_list(ui_db(), "dead", NULL, NULL, DEAD_LIMIT, add_out, dv) != 0)
		pane_text(&dv->p, 0, 0, R_ERROR, _("! The outbox commands cannot be read: %s"),
		          err_msg());
	else if (dv->p.n == before)
		pane_text(&dv->p, 0, 0, R_DIM, "  %s", _("None."));
	pane_restore(&dv->p, kind, id, old < 0 ? 0 : old);
}

int dead_retry(int64_t inbox_id)
{
	int rc;

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return FD_EINVAL;
	}
	err_clear();
	rc = inbox_retry(ui_db(), inbox_id);
	if (rc) {
		ui_msg(MSG_ERROR, _("Not retried: %s"), err_msg());
		return rc;
	}
	ui_invalidate_all();
	ui_msg(MSG_OK, _("Inbound event %lld is due again: the channel worker processes it anew."),
	       (long long)inbox_id);
	return 0;
}

/* Revive outbox command id (outbox_retry) and say what happened. */
static int dead_cmd_retry(int64_t id)
{
	int rc;

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return FD_EINVAL;
	}
	err_clear();
	rc = pipe_retry(ui_db(), id);
	if (rc) {
		ui_msg(MSG_ERROR, _("Not retried: %s"), err_msg());
		return rc;
	}
	ui_invalidate_all();
	ui_msg(MSG_OK,
	       _("Outbox command %lld is due again with the same idempotency key: the channel "
	         "worker sends it."),
	       (long long)id);
	return 0;
}

static void dead_free(struct view *v)
{
	struct deadv *dv = v->priv;

	pane_free(&dv->p);
	free(dv);
}

static void dead_resize(struct view *v, int h, int w)
{
	(void)v;
	(void)h;
	(void)w;
}

static void dead_draw(struct view *v, WINDOW *w)
{
	struct deadv *dv = v->priv;

	pane_draw(&dv->p, w, 0);
}

static void dead_reload(struct view *v)
{
	build(v->priv);
}

static struct ui_next dead_action(struct view *v, const struct ui_event *ev)
{
	struct deadv *dv = v->priv;
	struct ui_next n = pane_action(&dv->p, ev);
	int kind;
	int64_t id;

	if (n.kind != UI_UNHANDLED)
		return n;
	pane_target(&dv->p, &kind, &id);
	switch (ev->action) {
	case ACT_OPEN:
		if (kind == K_DEAD_IN)
			return ui_next(UI_PUSH, view_event_new(id));
		if (kind == K_DEAD_OUT)
			return ui_next(UI_PUSH, view_command_new(id));
		return ui_next(UI_HANDLED, NULL);
	case ACT_DEAD_RETRY:
	case ACT_DEAD_IGNORE:
		if (kind == K_DEAD_OUT && ev->action == ACT_DEAD_RETRY) {
			if (dead_cmd_retry(id) == 0)
				build(dv);
			return ui_next(UI_REDRAW, NULL);
		}
		if (kind != K_DEAD_IN) {
			ui_msg(MSG_INFO,
			       kind == K_DEAD_OUT
			           ? _("An outbox command cannot be ignored: retry it (r), or see "
			               "frontdesk check.")
			           : _("Select an inbound event first."));
			return ui_next(UI_REDRAW, NULL);
		}
		if (ev->action == ACT_DEAD_IGNORE)
			return ui_next(UI_PUSH, form_ignore_new(id));
		if (dead_retry(id) == 0)
			build(dv);
		return ui_next(UI_REDRAW, NULL);
	case ACT_DEAD_LETTERS:
		return ui_next(UI_HANDLED, NULL); /* this is it */
	default:
		return ui_next(UI_UNHANDLED, NULL);
	}
}

static void dead_title(struct view *v, char *buf, size_t n)
{
	(void)v;
	snprintf(buf, n, "%s", _("Dead letters"));
}

static const char *dead_help(struct view *v)
{
	(void)v;
	return _("What the payment channel gave up and a person must look at: inbound events "
	         "that could not be applied (a mismatch with our order, failures past the "
	         "give-up horizon, an unknown order for too long) and outbox commands the "
	         "channel refused or that failed past the horizon. Retrying an inbound event "
	         "makes it due again with its attempts reset; ignoring it means it is never "
	         "applied, and the reason is kept in its status history. Retrying an outbox "
	         "command sends it again with its idempotency key, so the channel acts once.");
}

static const enum action dead_keys[] = {ACT_UP,          ACT_DOWN,   ACT_PAGE_UP, ACT_PAGE_DOWN,
                                        ACT_TOP,         ACT_BOTTOM, ACT_OPEN,    ACT_DEAD_RETRY,
                                        ACT_DEAD_IGNORE, ACT_NONE};
static const enum action dead_hints[] = {ACT_OPEN, ACT_DEAD_RETRY, ACT_DEAD_IGNORE, ACT_NONE};

static const struct view_ops dead_ops = {
    .name = "dead-letters",
    .ctx = CTX_PANE | CTX_DEAD,
    .keys = dead_keys,
    .hints = dead_hints,
    .free = dead_free,
    .resize = dead_resize,
    .draw = dead_draw,
    .action = dead_action,
    .reload = dead_reload,
    .title = dead_title,
    .help = dead_help,
};

struct view *view_dead_new(void)
{
	struct deadv *dv = xcalloc(1, sizeof *dv);

	dv->p.cur = -1;
	build(dv);
	pane_select_first(&dv->p, 0);
	return view_new(&dead_ops, dv);
}
