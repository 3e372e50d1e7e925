/*
 * view-help.c - the `?` screen: every key of the view it was opened from
 * and the keys that work everywhere, generated from the action table with
 * the keys as currently bound (so a keys file shows up here), and the
 * payment-status legend. Paragraphs and the keys' descriptions are wrapped
 * to the width (tw_wrap), never cut: the lines are made again when the
 * width changes. The view it was opened from stays below it on the stack,
 * so of outlives the help.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "draw.h"
#include "i18n.h"
#include "layout.h"
#include "pane.h"
#include "permit.h"
#include "theme.h"
#include "tw.h"
#include "view.h"
#include "views.h"
#include "xalloc.h"

struct helpv {
	struct pane p;
	char title[128];
	struct view *of; /* the view whose keys are shown (below on the stack) */
	int w;           /* the width the lines were made for */
};

static const struct pane_col cols[] = {{16, 0, AL_LEFT}, {30, 1, AL_LEFT}, {20, 0, AL_LEFT}};

/* The lines of text at most max columns wide. */
#define WRAP_MAX 64

/* A paragraph wrapped to the pane's text width (one-cell lines are drawn
 * from column 2). */
static void para(struct helpv *h, enum role role, const char *text)
{
	size_t st[WRAP_MAX], ln[WRAP_MAX];
	int n = tw_wrap(text, h->w - 2 > 8 ? h->w - 2 : 8, st, ln, WRAP_MAX), i;

	for (i = 0; i < n && i < WRAP_MAX; i++)
		pane_text(&h->p, 0, 0, role, "%.*s", (int)ln[i], text + st[i]);
}

static void add_action(struct helpv *h, enum action a)
{
	const struct action_def *d = action_def(a);
	char keys[128];
	const char *cells[3], *help;
	int min[3], flex[3], x[3], cw[3], n, i;
	size_t st[WRAP_MAX], ln[WRAP_MAX];
	char line[512];

	if (!d || !permit_offered(ui_db(), a))
		return; /* what the person may not do is not offered (permit.h) */
	keymap_keys(a, " ", keys, sizeof keys);
	help = _(d->help);
	for (i = 0; i < 3; i++) {
		min[i] = cols[i].min;
		flex[i] = cols[i].flex;
	}
	layout_columns(h->w - 2, 3, min, flex, x, cw);
	n = tw_wrap(help, cw[1] > 8 ? cw[1] : 8, st, ln, WRAP_MAX);
	for (i = 0; i < (n > 0 ? n : 1) && i < WRAP_MAX; i++) {
		snprintf(line, sizeof line, "%.*s", n > 0 ? (int)ln[i] : 0,
		         help + (n > 0 ? st[i] : 0));
		cells[0] = i ? "" : keys[0] ? keys : _("(no key)");
		cells[1] = line;
		cells[2] = i ? "" : d->name;
		/* the first line is the one to select; the rest continue it */
		pane_row(&h->p, i ? 0 : 1, a, R_NORMAL, 3, cols, cells);
		pane_cell_role(&h->p, 2, R_DIM);
	}
}

/* Make every line for the width h->w. */
static void build(struct helpv *h)
{
	struct view *of = h->of;
	const enum action *a;
	const struct pay_mark *m;
	size_t i, n;
	int np, k;
	const struct action_def *t = action_table(&n);

	pane_clear(&h->p);
	if (of->ops->help && of->ops->help(of)) {
		para(h, R_NORMAL, of->ops->help(of));
		pane_blank(&h->p);
	}
	pane_text(&h->p, 0, 0, R_HEADER, "%s", _("Keys of this view"));
	for (a = of->ops->keys; a && *a != ACT_NONE; a++)
		add_action(h, *a);
	if (!(of->ops->ctx & CTX_FORM)) {
		pane_blank(&h->p);
		pane_text(&h->p, 0, 0, R_HEADER, "%s", _("Keys everywhere"));
		for (i = 0; i < n; i++)
			if (t[i].ctx == CTX_GLOBAL)
				add_action(h, t[i].id);
	} else {
		pane_blank(&h->p);
		para(h, R_NORMAL,
		     _("In a form every other key is typed into the field. F1 shows this "
		       "help, Ctrl-L redraws."));
	}
	pane_blank(&h->p);
	pane_text(&h->p, 0, 0, R_HEADER, "%s", _("Payment status symbols"));
	m = theme_pay_marks(&np);
	for (k = 0; k < np; k++) {
		const char *cells[2] = {m[k].sym, _(m[k].word)};

		pane_row(&h->p, 0, 0, R_NORMAL, 2, cols, cells);
		pane_cell_role(&h->p, 0, m[k].role);
	}
	/* the marks a visit shows instead when it will not happen */
	m = theme_off_marks(&np);
	for (k = 0; k < np; k++) {
		const char *cells[2] = {m[k].sym, _(m[k].word)};

		pane_row(&h->p, 0, 0, R_NORMAL, 2, cols, cells);
		pane_cell_role(&h->p, 0, m[k].role);
	}
	pane_blank(&h->p);
	para(h, R_DIM,
	     _("Keys can be changed in the file keys of the config folder, one "
	       "'action-name = key key' line each; the names are in the last column. "
	       "Press q or Esc to close this help."));
}

static void help_free(struct view *v)
{
	struct helpv *h = v->priv;

	pane_free(&h->p);
	free(h);
}

static void help_resize(struct view *v, int hh, int w)
{
	struct helpv *h = v->priv;
	int kind, first = h->w == 0;
	int64_t id;

	if (w == h->w)
		return;
	pane_target(&h->p, &kind, &id);
	h->w = w;
	h->p.h = hh; /* so that selecting keeps the view's paragraph in sight */
	h->p.w = w;
	build(h);
	if (first)
		pane_select_first(&h->p, 0);
	else
		pane_restore(&h->p, kind, id, h->p.cur);
}

static void help_draw(struct view *v, WINDOW *w)
{
	struct helpv *h = v->priv;

	pane_draw(&h->p, w, 0);
}

static struct ui_next help_action(struct view *v, const struct ui_event *ev)
{
	struct helpv *h = v->priv;

	if (ev->action == ACT_OPEN)
		return ui_next(UI_HANDLED, NULL);
	return pane_action(&h->p, ev);
}

static void help_title(struct view *v, char *buf, size_t n)
{
	struct helpv *h = v->priv;

	snprintf(buf, n, "%s", h->title);
}

static const enum action help_keys[] = {ACT_UP, ACT_DOWN, ACT_PAGE_UP, ACT_PAGE_DOWN, ACT_NONE};

static const struct view_ops help_ops = {
    .name = "help",
    .ctx = CTX_PANE,
    .keys = help_keys,
    .hints = NULL,
    .free = help_free,
    .resize = help_resize,
    .draw = help_draw,
    .action = help_action,
    .reload = NULL,
    .title = help_title,
    .help = NULL,
};

struct view *view_help_new(struct view *of)
{
	struct helpv *h = xcalloc(1, sizeof *h);
	char piece[128];

	of->ops->title(of, piece, sizeof piece);
	snprintf(h->title, sizeof h->title, _("Help: %s"), piece);
	h->of = of;
	h->p.cur = -1;
	return view_new(&help_ops, h); /* the lines are made by the first resize */
}
