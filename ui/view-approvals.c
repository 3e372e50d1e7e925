/*
 * view-approvals.c - the requests waiting for a manager's approval (what a
 * desk may not do alone and asked for from here, or with --ask-approval),
 * oldest first: who asked, when, which permission up to what amount, and
 * the action. y approves the selected request, n refuses it; the core
 * decides whether the person at this screen may (they hold the permission
 * up to the amount, and it is not their own request: staff.h). Below, the
 * latest decided ones. Opened with the global approvals key (Y).
 *
 * Names and subjects are drawn through draw_text (sanitised, fitted).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "err.h"
#include "fmt.h"
#include "i18n.h"
#include "pane.h"
#include "staff.h"
#include "views.h"
#include "xalloc.h"

#define DECIDED_SHOWN 20

enum { K_APPROVAL = 100 };

struct apprv {
	struct pane p;
	int waiting; /* listing the waiting ones (else the decided) */
	int n;
};

static const struct pane_col cols[] = {
    {5, 0, AL_LEFT},  /* id */
    {16, 0, AL_LEFT}, /* asked at */
    {18, 1, AL_LEFT}, /* who */
    {12, 0, AL_LEFT}, /* permission */
    {9, 0, AL_RIGHT}, /* amount */
    {20, 2, AL_LEFT}, /* action, or the decision */
};

static int add_row(const struct approval *a, void *arg)
{
	struct apprv *av = arg;
	char id[24], when[32], who[128], amt[32], last[300], by[128];
	const char *cells[6];

	if (av->waiting != !strcmp(a->status, "waiting"))
		return 0;
	if (!av->waiting && av->n >= DECIDED_SHOWN)
		return 1;
	av->n++;
	snprintf(id, sizeof id, "%lld", (long long)a->id);
	staff_name(ui_db(), a->requested_by, who, sizeof who);
	if (a->amount < 0)
		snprintf(amt, sizeof amt, "-");
	else
		perm_limit_text(a->perm, a->amount, amt, sizeof amt);
	if (av->waiting) {
		snprintf(last, sizeof last, "%s", a->subject);
	} else {
		staff_name(ui_db(), a->decided_by, by, sizeof by);
		snprintf(last, sizeof last, _("%1$s: %2$s by %3$s (%4$s)"), a->subject, a->status,
		         by, a->how);
	}
	cells[0] = id;
	cells[1] = fmt_datetime(a->requested_at, when);
	cells[2] = who;
	cells[3] = perm_word(a->perm);
	cells[4] = amt;
	cells[5] = last;
	pane_row(&av->p, av->waiting ? K_APPROVAL : 0, a->id, av->waiting ? R_NORMAL : R_DIM, 6,
	         cols, cells);
	return 0;
}

static void build(struct apprv *av)
{
	const char *head[6] = {_("Id"),         _("Asked at"), _("Asked by"),
	                       _("Permission"), _("Amount"),   _("Action")};
	int kind, old = av->p.cur, before;
	int64_t id;

	pane_target(&av->p, &kind, &id);
	pane_clear(&av->p);
	pane_text(&av->p, 0, 0, R_HEADER, "%s", _("Waiting for a decision"));
	pane_row(&av->p, 0, 0, R_DIM, 6, cols, head);
	before = av->p.n;
	av->waiting = 1;
	av->n = 0;
	if (approval_list(ui_db(), 0, 500, add_row, av) != 0)
		pane_text(&av->p, 0, 0, R_ERROR, _("! The approvals cannot be read: %s"),
		          err_msg());
	else if (av->p.n == before)
		pane_text(&av->p, 0, 0, R_DIM, "  %s", _("None."));
	pane_blank(&av->p);
	pane_text(&av->p, 0, 0, R_HEADER, "%s", _("Decided lately"));
	av->waiting = 0;
	av->n = 0;
	approval_list(ui_db(), 1, 500, add_row, av);
	pane_restore(&av->p, kind, id, old < 0 ? 0 : old);
}

static void appr_free(struct view *v)
{
	struct apprv *av = v->priv;

	pane_free(&av->p);
	free(av);
}

static void appr_resize(struct view *v, int h, int w)
{
	(void)v;
	(void)h;
	(void)w;
}

static void appr_draw(struct view *v, WINDOW *w)
{
	pane_draw(&((struct apprv *)v->priv)->p, w, 0);
}

static void appr_reload(struct view *v)
{
	build(v->priv);
}

static struct ui_next appr_action(struct view *v, const struct ui_event *ev)
{
	struct apprv *av = v->priv;
	struct ui_next n = pane_action(&av->p, ev);
	int kind, rc;
	int64_t id;

	if (n.kind != UI_UNHANDLED)
		return n;
	if (ev->action == ACT_APPROVALS)
		return ui_next(UI_HANDLED, NULL); /* this is it */
	if (ev->action != ACT_APPR_YES && ev->action != ACT_APPR_NO)
		return ui_next(UI_UNHANDLED, NULL);
	pane_target(&av->p, &kind, &id);
	if (kind != K_APPROVAL) {
		ui_msg(MSG_INFO, "%s", _("Select a waiting request first."));
		return ui_next(UI_REDRAW, NULL);
	}
	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return ui_next(UI_REDRAW, NULL);
	}
	err_clear();
	rc = approval_decide(ui_db(), id, ev->action == ACT_APPR_YES);
	if (rc) {
		ui_msg(MSG_ERROR, _("Not decided: %s"), err_msg());
		return ui_next(UI_REDRAW, NULL);
	}
	ui_msg(MSG_OK,
	       ev->action == ACT_APPR_YES
	           ? _("Approval %lld given: its requester posts it with Enter in their form.")
	           : _("Approval %lld refused."),
	       (long long)id);
	ui_invalidate_all();
	build(av);
	return ui_next(UI_REDRAW, NULL);
}

static void appr_title(struct view *v, char *buf, size_t n)
{
	(void)v;
	snprintf(buf, n, "%s", _("Approvals"));
}

static const char *appr_help(struct view *v)
{
	(void)v;
	return _("Requests for what a person may not do alone: a refund above their limit, a "
	         "void, a credit note, a discount beyond their percent. Approve one (y) only if "
	         "you hold its permission up to its amount; nobody approves their own request. "
	         "An approval covers that one action up to that amount, once; the requester "
	         "then posts it.");
}

static const enum action appr_keys[] = {ACT_UP,        ACT_DOWN,    ACT_PAGE_UP,
                                        ACT_PAGE_DOWN, ACT_TOP,     ACT_BOTTOM,
                                        ACT_APPR_YES,  ACT_APPR_NO, ACT_NONE};
static const enum action appr_hints[] = {ACT_APPR_YES, ACT_APPR_NO, ACT_NONE};

static const struct view_ops appr_ops = {
    .name = "approvals",
    .ctx = CTX_PANE | CTX_APPROVE,
    .keys = appr_keys,
    .hints = appr_hints,
    .free = appr_free,
    .resize = appr_resize,
    .draw = appr_draw,
    .action = appr_action,
    .reload = appr_reload,
    .title = appr_title,
    .help = appr_help,
};

struct view *view_approvals_new(void)
{
	struct apprv *av = xcalloc(1, sizeof *av);

	av->p.cur = -1;
	build(av);
	pane_select_first(&av->p, K_APPROVAL);
	return view_new(&appr_ops, av);
}
