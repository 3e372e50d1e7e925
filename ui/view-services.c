/*
 * view-services.c - `S`: the service catalogue. One row per service, by
 * name: its name, kind, default price (in its currency) and default
 * minutes. The retired services are hidden; `t` shows them too, each
 * marked "retired" (in words, not only dimmed).
 *
 * Its context is CTX_SVCS | CTX_PANE: `a` adds a service and `e` (or
 * Enter) edits the selected one in a form (form-service.c); `R` retires
 * the selected one after asking: while the question is shown the view
 * swaps to ops that listen to CTX_FORM, so that `y` (form-confirm) answers
 * it and any other key keeps the service. Nothing here writes but that
 * one service_retire call; every rule is the core's (service.h), and a
 * refusal is shown on the message line.
 *
 * Callers: screen.c (the global action `services`).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "err.h"
#include "fmt.h"
#include "i18n.h"
#include "layout.h"
#include "pane.h"
#include "service.h"
#include "theme.h"
#include "views.h"
#include "xalloc.h"

#define LIST_Y 2 /* the first row of the list in the body */

struct svcsv {
	struct pane p;
	int all; /* the retired services are shown too */
	int shown, retired;
	int64_t posted; /* the service a form added or changed: selected on reload */
	int64_t asking; /* the service the retire question is about, 0: none */
	char question[400];
};

static const struct view_ops list_ops, ask_ops;

static const struct pane_col cols[] = {
    {20, 3, AL_LEFT}, {10, 0, AL_LEFT}, {18, 1, AL_RIGHT}, {8, 0, AL_RIGHT}, {8, 1, AL_LEFT}};

static int add_row(const struct service *s, void *arg)
{
	struct svcsv *sv = arg;
	char price[FMT_MONEY], minutes[32];
	const char *cells[5];

	snprintf(minutes, sizeof minutes, "%lld", (long long)s->minutes);
	cells[0] = s->name;
	cells[1] = fmt_status(s->kind);
	cells[2] = fmt_money_cur(s->price, s->currency, price);
	cells[3] = minutes;
	cells[4] = s->active ? "" : _("retired");
	pane_row(&sv->p, K_SERVICE, s->id, s->active ? R_NORMAL : R_DIM, 5, cols, cells);
	sv->shown++;
	if (!s->active)
		sv->retired++;
	return 0;
}

/* Read the list again; the cursor stays on the same service (or goes to
 * the one a form just posted). */
static void build(struct svcsv *sv)
{
	int kind, old = sv->p.cur;
	int64_t id;

	pane_target(&sv->p, &kind, &id);
	if (sv->posted) {
		kind = K_SERVICE;
		id = sv->posted;
		sv->posted = 0;
	}
	pane_clear(&sv->p);
	sv->shown = sv->retired = 0;
	if (service_list(ui_db(), sv->all, add_row, sv) != 0)
		pane_text(&sv->p, 0, 0, R_ERROR, _("! Cannot read the service catalogue: %s"),
		          err_msg());
	else if (sv->shown == 0)
		pane_text(&sv->p, 0, 0, R_DIM, "%s",
		          _("The catalogue is empty. Press a to add a service."));
	pane_restore(&sv->p, kind, id, old < 0 ? 0 : old);
}

static void svcs_free(struct view *v)
{
	struct svcsv *sv = v->priv;

	pane_free(&sv->p);
	free(sv);
}

static void svcs_resize(struct view *v, int h, int w)
{
	(void)v;
	(void)h;
	(void)w;
}

static void svcs_draw(struct view *v, WINDOW *w)
{
	struct svcsv *sv = v->priv;
	int ncols, i, min[5], flex[5], xs[5], ws[5];
	const char *heads[5];
	char status[200];

	ncols = getmaxx(w);
	werase(w);
	if (sv->all)
		snprintf(status, sizeof status,
		         ngettext("%1$d service, %2$d of them retired. t hides the retired ones.",
		                  "%1$d services, %2$d of them retired. t hides the retired ones.",
		                  (unsigned long)sv->shown),
		         sv->shown, sv->retired);
	else
		snprintf(status, sizeof status,
		         ngettext("%d service offered. t shows the retired ones too.",
		                  "%d services offered. t shows the retired ones too.",
		                  (unsigned long)sv->shown),
		         sv->shown);
	draw_text(w, 0, 2, ncols - 4, status, theme_attr(R_DIM), AL_LEFT);
	heads[0] = _("Name");
	heads[1] = _("Kind");
	heads[2] = _("Price");
	heads[3] = _("Minutes");
	heads[4] = _("Status");
	for (i = 0; i < 5; i++) {
		min[i] = cols[i].min;
		flex[i] = cols[i].flex;
	}
	layout_columns(ncols - 2, 5, min, flex, xs, ws);
	for (i = 0; i < 5; i++)
		if (ws[i] > 0)
			draw_text(w, 1, 2 + xs[i], ws[i], heads[i], theme_attr(R_HEADER),
			          cols[i].align);
	pane_draw(&sv->p, w, LIST_Y);
	if (sv->asking) /* over the last lines of the list while it is asked */
		draw_question(w, sv->question);
}

static void svcs_reload(struct view *v)
{
	build(v->priv);
}

/* The selected service's id, or 0. */
static int64_t selected(struct svcsv *sv)
{
	int kind;
	int64_t id;

	pane_target(&sv->p, &kind, &id);
	return kind == K_SERVICE ? id : 0;
}

/* Ask whether to retire the selected service. */
static struct ui_next ask_retire(struct view *v, struct svcsv *sv)
{
	struct service s;
	char yes[32];
	int64_t id = selected(sv);
	int key = keymap_first_key(ACT_FORM_CONFIRM);

	if (!id) {
		ui_msg(MSG_INFO, "%s", _("Select a service first: R retires it."));
		return ui_next(UI_REDRAW, NULL);
	}
	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return ui_next(UI_REDRAW, NULL);
	}
	if (service_get(ui_db(), id, &s) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read service %1$lld: %2$s"), (long long)id, err_msg());
		return ui_next(UI_REDRAW, NULL);
	}
	keyc_name(key >= 0 ? key : 'y', yes, sizeof yes);
	snprintf(sv->question, sizeof sv->question,
	         _("Retire service %1$lld (%2$s)? %3$s retires it; any other key keeps it."),
	         (long long)id, s.name, yes);
	service_free(&s);
	sv->asking = id;
	v->ops = &ask_ops;
	return ui_next(UI_REDRAW, NULL);
}

static struct ui_next ask_action(struct view *v, const struct ui_event *ev)
{
	struct svcsv *sv = v->priv;
	int64_t id = sv->asking;

	sv->asking = 0;
	v->ops = &list_ops;
	if (ev->action != ACT_FORM_CONFIRM) {
		ui_msg(MSG_INFO, _("Service %lld was not retired."), (long long)id);
		return ui_next(UI_REDRAW, NULL);
	}
	err_clear();
	if (service_retire(ui_db(), id) != 0) {
		ui_msg(MSG_ERROR, _("Service %1$lld was not retired: %2$s"), (long long)id,
		       err_msg());
		return ui_next(UI_REDRAW, NULL);
	}
	ui_msg(MSG_OK, _("Service %lld retired: it is no longer offered."), (long long)id);
	ui_invalidate_all();
	build(sv);
	return ui_next(UI_REDRAW, NULL);
}

static struct ui_next list_action(struct view *v, const struct ui_event *ev)
{
	struct svcsv *sv = v->priv;
	struct ui_next n;
	int64_t id;

	if (ev->action == ACT_MOUSE) {
		struct ui_event m = *ev;

		if (ev->y < LIST_Y)
			return ui_next(UI_HANDLED, NULL);
		m.y -= LIST_Y;
		return pane_action(&sv->p, &m);
	}
	n = pane_action(&sv->p, ev);
	if (n.kind != UI_UNHANDLED)
		return n;
	switch (ev->action) {
	case ACT_SVC_NEW:
		return ui_next(UI_PUSH, form_service_new(0, &sv->posted));
	case ACT_OPEN:
	case ACT_SVC_EDIT:
		if (!(id = selected(sv))) {
			ui_msg(MSG_INFO, "%s", _("Select a service first: e edits it."));
			return ui_next(UI_REDRAW, NULL);
		}
		return ui_next(UI_PUSH, form_service_new(id, &sv->posted));
	case ACT_SVC_RETIRE:
		return ask_retire(v, sv);
	case ACT_SVC_ALL:
		sv->all = !sv->all;
		build(sv);
		return ui_next(UI_REDRAW, NULL);
	default:
		return ui_next(UI_UNHANDLED, NULL);
	}
}

static void svcs_title(struct view *v, char *buf, size_t n)
{
	(void)v;
	snprintf(buf, n, "%s", _("Services"));
}

static const char *svcs_help(struct view *v)
{
	(void)v;
	return _("The service catalogue: what the shop offers, by name, with the kind of line "
	         "item each makes, its default price and minutes. a adds a service, e or Enter "
	         "edits the selected one, R retires it (after y: it is no longer offered, and "
	         "stays on record), t shows or hides the retired ones. Changing the catalogue "
	         "never changes line items or invoices made earlier.");
}

static int svcs_target(struct view *v, const char **kind, int64_t *id)
{
	struct svcsv *sv = v->priv;

	if (!(*id = selected(sv)))
		return 0;
	*kind = "service";
	return 1;
}

static const enum action list_keys[] = {ACT_UP,       ACT_DOWN,       ACT_PAGE_UP, ACT_PAGE_DOWN,
                                        ACT_TOP,      ACT_BOTTOM,     ACT_OPEN,    ACT_SVC_NEW,
                                        ACT_SVC_EDIT, ACT_SVC_RETIRE, ACT_SVC_ALL, ACT_NONE};
static const enum action list_hints[] = {ACT_SVC_NEW, ACT_SVC_EDIT, ACT_SVC_RETIRE, ACT_SVC_ALL,
                                         ACT_NONE};
static const enum action ask_keys[] = {ACT_FORM_CONFIRM, ACT_NONE};
static const enum action ask_hints[] = {ACT_FORM_CONFIRM, ACT_FORM_CANCEL, ACT_NONE};

static const struct view_ops list_ops = {
    .name = "services",
    .ctx = CTX_SVCS | CTX_PANE,
    .keys = list_keys,
    .hints = list_hints,
    .free = svcs_free,
    .resize = svcs_resize,
    .draw = svcs_draw,
    .action = list_action,
    .reload = svcs_reload,
    .title = svcs_title,
    .help = svcs_help,
    .target = svcs_target,
};

/* while the retire question is shown: y answers it, any other key keeps
 * the service (printable keys reach the view as typed text) */
static const struct view_ops ask_ops = {
    .name = "services-retire",
    .ctx = CTX_FORM,
    .keys = ask_keys,
    .hints = ask_hints,
    .free = svcs_free,
    .resize = svcs_resize,
    .draw = svcs_draw,
    .action = ask_action,
    .reload = svcs_reload,
    .title = svcs_title,
    .help = svcs_help,
    .target = svcs_target,
};

struct view *view_services_new(void)
{
	struct svcsv *sv = xcalloc(1, sizeof *sv);

	sv->p.cur = -1;
	build(sv);
	pane_select_first(&sv->p, K_SERVICE);
	return view_new(&list_ops, sv);
}
