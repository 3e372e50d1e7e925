/*
 * pane.c - scrolling lists of lines (see pane.h). Text is stored as it came
 * from the core; draw_text sanitises and fits it when it is drawn.
 */
#include <config.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "i18n.h"
#include "layout.h"
#include "pane.h"
#include "xalloc.h"

static struct pane_line *grow(struct pane *p)
{
	struct pane_line *l;

	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 32;
		p->lines = xrealloc(p->lines, (size_t)p->cap * sizeof *p->lines);
	}
	l = &p->lines[p->n++];
	memset(l, 0, sizeof *l);
	return l;
}

void pane_clear(struct pane *p)
{
	int i, k;

	for (i = 0; i < p->n; i++)
		for (k = 0; k < p->lines[i].ncells; k++)
			free(p->lines[i].cells[k]);
	p->n = 0;
}

void pane_free(struct pane *p)
{
	pane_clear(p);
	free(p->lines);
	p->lines = NULL;
	p->cap = 0;
}

void pane_text(struct pane *p, int kind, int64_t id, enum role role, const char *fmt, ...)
{
	struct pane_line *l = grow(p);
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = xmalloc((size_t)(n < 0 ? 0 : n) + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	l->ncells = 1;
	l->cells[0] = s;
	l->role = role;
	l->kind = kind;
	l->id = id;
}

void pane_field(struct pane *p, int kind, int64_t id, enum role role, int indent, const char *label,
                const char *value)
{
	const char *v = value && *value ? value : "-";
	/* TRANSLATORS: a field of a pane, "Label: value"; keep both %s in
	   this order and use your language's colon. */
	int n = snprintf(NULL, 0, _("%s: %s"), label, v);
	char *s = xmalloc((size_t)(n < 0 ? 0 : n) + 1);

	snprintf(s, (size_t)(n < 0 ? 0 : n) + 1, _("%s: %s"), label, v);
	pane_text(p, kind, id, role, "%*s%s", indent < 0 ? 0 : indent, "", s);
	free(s);
}

void pane_row(struct pane *p, int kind, int64_t id, enum role role, int n,
              const struct pane_col *cols, const char *const *texts)
{
	struct pane_line *l = grow(p);
	int i;

	if (n > PANE_MAX_CELLS)
		n = PANE_MAX_CELLS;
	l->ncells = n;
	for (i = 0; i < n; i++)
		l->cells[i] = xstrdup(texts[i] ? texts[i] : "");
	l->cols = cols;
	l->role = role;
	l->kind = kind;
	l->id = id;
}

void pane_cell_role(struct pane *p, int i, enum role role)
{
	if (p->n > 0 && i >= 0 && i < PANE_MAX_CELLS)
		p->lines[p->n - 1].roles[i] = role;
}

void pane_drawn(struct pane *p,
                void (*draw)(WINDOW *w, int y, int x, int width, const void *arg, int n),
                const void *arg, int n)
{
	struct pane_line *l = grow(p);

	l->draw = draw;
	l->arg = arg;
	l->n = n;
	l->role = R_NORMAL;
}

void pane_blank(struct pane *p)
{
	pane_text(p, 0, 0, R_NORMAL, "%s", "");
}

void pane_target(const struct pane *p, int *kind, int64_t *id)
{
	*kind = 0;
	*id = 0;
	if (p->cur >= 0 && p->cur < p->n) {
		*kind = p->lines[p->cur].kind;
		*id = p->lines[p->cur].id;
	}
}

/* keep_visible - scroll so that the selected line shows. Before the pane is
 * first drawn its height is not known: nothing scrolls then (as if one line
 * high, a pane opened on a selection below its top, like the customer's
 * first visit, hid what it owes and its credit even where they fit);
 * pane_draw calls it again with the height. */
static void keep_visible(struct pane *p)
{
	int h = p->h;

	if (h <= 0)
		return;

	if (p->cur >= 0) {
		if (p->cur < p->top)
			p->top = p->cur;
		if (p->cur >= p->top + h)
			p->top = p->cur - h + 1;
		/* show the heading above the first selectable line of a section */
		if (p->cur > 0 && p->cur - 1 < p->top && p->lines[p->cur - 1].kind == 0 &&
		    p->cur - p->top + 1 < h)
			p->top = p->cur - 1;
	}
	if (p->top > p->n - h)
		p->top = p->n - h;
	if (p->top < 0)
		p->top = 0;
}

void pane_restore(struct pane *p, int kind, int64_t id, int old_index)
{
	int i, best = -1, bestd = 1 << 30;

	p->cur = -1;
	if (kind)
		for (i = 0; i < p->n; i++)
			if (p->lines[i].kind == kind && p->lines[i].id == id) {
				p->cur = i;
				keep_visible(p);
				return;
			}
	for (i = 0; i < p->n; i++)
		if (p->lines[i].kind) {
			int d = abs(i - old_index);

			if (d < bestd) {
				bestd = d;
				best = i;
			}
		}
	p->cur = best;
	keep_visible(p);
}

void pane_select_first(struct pane *p, int kind)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (p->lines[i].kind && (kind == 0 || p->lines[i].kind == kind)) {
			p->cur = i;
			keep_visible(p);
			return;
		}
}

static int step(struct pane *p, int from, int dir)
{
	int i;

	for (i = from + dir; i >= 0 && i < p->n; i += dir)
		if (p->lines[i].kind)
			return i;
	return -1;
}

struct ui_next pane_action(struct pane *p, const struct ui_event *ev)
{
	int h = p->h > 1 ? p->h - 1 : 1, i, k;

	switch (ev->action) {
	case ACT_UP:
	case ACT_DOWN:
		k = p->cur < 0 ? -1 : step(p, p->cur, ev->action == ACT_UP ? -1 : 1);
		if (k >= 0)
			p->cur = k;
		else if (ev->action == ACT_UP)
			p->top = p->top > 0 ? p->top - 1 : 0; /* scroll headings into view */
		else if (p->top + p->h < p->n)
			p->top++;
		if (k >= 0)
			keep_visible(p);
		return ui_next(UI_REDRAW, NULL);
	case ACT_PAGE_UP:
	case ACT_PAGE_DOWN:
		for (i = 0; i < h; i++) {
			k = p->cur < 0 ? -1 : step(p, p->cur, ev->action == ACT_PAGE_UP ? -1 : 1);
			if (k < 0)
				break;
			p->cur = k;
		}
		p->top += ev->action == ACT_PAGE_UP ? -h : h;
		keep_visible(p);
		return ui_next(UI_REDRAW, NULL);
	case ACT_TOP:
	case ACT_BOTTOM:
		k = step(p, ev->action == ACT_TOP ? -1 : p->n, ev->action == ACT_TOP ? 1 : -1);
		if (k >= 0)
			p->cur = k;
		p->top = ev->action == ACT_TOP ? 0 : p->n;
		keep_visible(p);
		return ui_next(UI_REDRAW, NULL);
	case ACT_MOUSE:
		i = p->top + ev->y;
		if (i >= 0 && i < p->n && p->lines[i].kind) {
			p->cur = i;
			return ui_next(UI_REDRAW, NULL);
		}
		return ui_next(UI_HANDLED, NULL);
	default:
		return ui_next(UI_UNHANDLED, NULL);
	}
}

void pane_draw(struct pane *p, WINDOW *w, int y0)
{
	int rows, cols, y;

	getmaxyx(w, rows, cols);
	p->h = rows - y0;
	p->w = cols;
	keep_visible(p);
	for (y = 0; y < p->h && p->top + y < p->n; y++) {
		struct pane_line *l = &p->lines[p->top + y];
		int sel = p->top + y == p->cur;
		attr_t base = theme_attr(sel ? R_SELECT : l->role);

		if (sel)
			draw_fill(w, y0 + y, 0, cols, base);
		if (l->draw) {
			if (cols > 2)
				l->draw(w, y0 + y, 2, cols - 2, l->arg, l->n);
			continue;
		}
		if (!l->cols) {
			draw_text(w, y0 + y, 2, cols - 2, l->cells[0], base, AL_LEFT);
			if (sel)
				draw_text(w, y0 + y, 0, 1, ">", base, AL_LEFT);
			continue;
		}
		{
			int min[PANE_MAX_CELLS], flex[PANE_MAX_CELLS], x[PANE_MAX_CELLS],
			    cw[PANE_MAX_CELLS], i, need = -1;

			for (i = 0; i < l->ncells; i++) {
				min[i] = abs(l->cols[i].min);
				flex[i] = l->cols[i].flex;
				need += min[i] + 1;
			}
			/* too narrow for all: the PANE_DROP columns give way first,
			 * not the last ones (a visit's invoice keeps its balance) */
			for (i = 0; need > cols - 2 && i < l->ncells; i++)
				if (l->cols[i].min < 0) {
					need -= min[i] + 1;
					min[i] = flex[i] = 0;
				}
			layout_columns(cols - 2, l->ncells, min, flex, x, cw);
			if (sel)
				draw_text(w, y0 + y, 0, 1, ">", base, AL_LEFT);
			for (i = 0; i < l->ncells; i++) {
				attr_t a = base;

				if (l->roles[i] != R_NORMAL)
					a = theme_attr(l->roles[i]) | (sel ? A_REVERSE : 0);
				if (cw[i] > 0)
					draw_text(w, y0 + y, 2 + x[i], cw[i], l->cells[i], a,
					          l->cols[i].align);
			}
		}
	}
}
