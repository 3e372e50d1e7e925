/*
 * view-preview.c - o on an invoice or a payment pane: the invoice or the
 * receipt on the screen exactly as it prints, before it is printed. The
 * text is the core's one layout (print_text: 80 columns where the window
 * is as wide, else the 42 of a receipt printer, so a figure is never cut),
 * drawn line for line from the window's first column; the arrows and
 * PgUp/PgDn scroll, P opens the print form (form-print.c) set to the width
 * shown. print_text passes stored text through text_sanitize, and every
 * line is drawn through draw_text (the display sanitiser, tw.c widths).
 * It is rebuilt when the database changes (a payment made at another desk
 * shows).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "err.h"
#include "i18n.h"
#include "print.h"
#include "strbuf.h"
#include "theme.h"
#include "views.h"
#include "xalloc.h"

struct previewv {
	int doc; /* enum print_doc */
	int64_t id;
	int width;   /* the layout shown: PRINT_WIDE, or PRINT_NARROW in a narrower window */
	char **line; /* the laid-out lines, without their '\n' */
	int n, top, h;
};

static void lines_free(struct previewv *pv)
{
	int i;

	for (i = 0; i < pv->n; i++)
		free(pv->line[i]);
	free(pv->line);
	pv->line = NULL;
	pv->n = 0;
}

static void add(struct previewv *pv, const char *s, size_t len)
{
	pv->line = xrealloc(pv->line, (size_t)(pv->n + 1) * sizeof *pv->line);
	pv->line[pv->n] = xmalloc(len + 1);
	memcpy(pv->line[pv->n], s, len);
	pv->line[pv->n][len] = '\0';
	pv->n++;
}

static void build(struct previewv *pv)
{
	struct strbuf sb = {0};
	const char *s, *nl;
	size_t len;
	char msg[400];

	lines_free(pv);
	if (print_text(ui_db(), (enum print_doc)pv->doc, pv->id, pv->width, &sb) != 0) {
		snprintf(msg, sizeof msg, _("! It cannot be laid out: %s"), err_msg());
		add(pv, msg, strlen(msg));
		goto out;
	}
	for (s = sb_cstr(&sb); s && *s; s = nl ? nl + 1 : s + len) {
		nl = strchr(s, '\n');
		len = nl ? (size_t)(nl - s) : strlen(s);
		add(pv, s, len);
	}
out:
	sb_free(&sb);
	if (pv->top > pv->n - 1)
		pv->top = pv->n > 0 ? pv->n - 1 : 0;
}

static void preview_free(struct view *v)
{
	struct previewv *pv = v->priv;

	lines_free(pv);
	free(pv);
}

/* The 80-column page where it fits whole, else the receipt printer's 42
 * columns: a figure is never cut off at the window's edge. */
static void preview_resize(struct view *v, int h, int w)
{
	struct previewv *pv = v->priv;
	int width = w >= PRINT_WIDE ? PRINT_WIDE : PRINT_NARROW;

	pv->h = h;
	if (width != pv->width || !pv->line) {
		pv->width = width;
		build(pv);
	}
}

static void preview_draw(struct view *v, WINDOW *w)
{
	struct previewv *pv = v->priv;
	int y, rows = getmaxy(w), cols = getmaxx(w);

	werase(w);
	for (y = 0; y < rows && pv->top + y < pv->n; y++)
		draw_text(w, y, 0, cols, pv->line[pv->top + y], theme_attr(R_NORMAL), AL_LEFT);
}

static void preview_reload(struct view *v)
{
	build(v->priv);
}

static struct ui_next preview_action(struct view *v, const struct ui_event *e)
{
	struct previewv *pv = v->priv;
	int page = pv->h > 1 ? pv->h - 1 : 1, last = pv->n - pv->h > 0 ? pv->n - pv->h : 0;

	switch (e->action) {
	case ACT_UP:
		pv->top--;
		break;
	case ACT_DOWN:
		pv->top++;
		break;
	case ACT_PAGE_UP:
		pv->top -= page;
		break;
	case ACT_PAGE_DOWN:
		pv->top += page;
		break;
	case ACT_TOP:
		pv->top = 0;
		break;
	case ACT_BOTTOM:
		pv->top = last;
		break;
	case ACT_PRINT:
		return ui_next(UI_PUSH, form_print_width(pv->doc, pv->id, pv->width));
	case ACT_OPEN:
	case ACT_PREVIEW:
		return ui_next(UI_HANDLED, NULL);
	default:
		return ui_next(UI_UNHANDLED, NULL);
	}
	if (pv->top > last)
		pv->top = last;
	if (pv->top < 0)
		pv->top = 0;
	return ui_next(UI_REDRAW, NULL);
}

static void preview_title(struct view *v, char *buf, size_t n)
{
	struct previewv *pv = v->priv;

	/* TRANSLATORS: the breadcrumb of a preview: the columns of its layout */
	snprintf(buf, n, _("Preview (%d columns)"), pv->width);
}

static const char *preview_help(struct view *v)
{
	(void)v;
	return _("The invoice or the receipt as it prints: the same text P writes to a file, "
	         "80 columns wide where the window is that wide, else the 42 columns of a "
	         "receipt printer. The arrows and PgUp/PgDn scroll; P opens the print form "
	         "(text of 80 or 42 columns, or PDF, and the file) set to the width shown.");
}

static const enum action preview_keys[] = {ACT_UP,  ACT_DOWN,   ACT_PAGE_UP, ACT_PAGE_DOWN,
                                           ACT_TOP, ACT_BOTTOM, ACT_PRINT,   ACT_NONE};
static const enum action preview_hints[] = {ACT_PRINT, ACT_NONE};

static int preview_target(struct view *v, const char **kind, int64_t *id)
{
	struct previewv *pv = v->priv;

	*kind = pv->doc == PRINT_INVOICE ? "invoice" : "payment";
	*id = pv->id;
	return pv->id > 0;
}

static const struct view_ops preview_ops = {
    .name = "preview",
    .ctx = CTX_PANE,
    .keys = preview_keys,
    .hints = preview_hints,
    .free = preview_free,
    .resize = preview_resize,
    .draw = preview_draw,
    .action = preview_action,
    .reload = preview_reload,
    .title = preview_title,
    .help = preview_help,
    .target = preview_target,
};

struct view *view_preview_new(int doc, int64_t id)
{
	struct previewv *pv = xcalloc(1, sizeof *pv);

	pv->doc = doc;
	pv->id = id;
	pv->width = PRINT_WIDE; /* the first resize, which pushing it does, lays it out */
	return view_new(&preview_ops, pv);
}
