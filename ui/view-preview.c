/*
 * view-preview.c - o on an invoice or a payment pane: the invoice or the
 * receipt on the screen exactly as it prints, before it is printed. The
 * text is the core's one layout (print_text, 80 columns: what P writes by
 * default), one pane line per printed line; the arrows and PgUp/PgDn
 * scroll, P opens the print form (form-print.c) to write it to a file.
 * print_text passes stored text through text_sanitize, and the pane draws
 * through the display sanitiser and the text-width module as every pane.
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
#include "pane.h"
#include "print.h"
#include "strbuf.h"
#include "views.h"
#include "xalloc.h"

struct previewv {
	int doc; /* enum print_doc */
	int64_t id;
	struct pane p;
};

static void build(struct previewv *pv)
{
	struct strbuf sb = {0};
	const char *s, *nl;
	size_t len;
	int top = pv->p.top;

	pane_clear(&pv->p);
	if (print_text(ui_db(), (enum print_doc)pv->doc, pv->id, PRINT_WIDE, &sb) != 0) {
		pane_text(&pv->p, 0, 0, R_ERROR, _("! It cannot be laid out: %s"), err_msg());
		goto out;
	}
	for (s = sb_cstr(&sb); s && *s; s = nl ? nl + 1 : s + len) {
		nl = strchr(s, '\n');
		len = nl ? (size_t)(nl - s) : strlen(s);
		pane_text(&pv->p, 0, 0, R_NORMAL, "%.*s", (int)len, s);
	}
out:
	sb_free(&sb);
	pv->p.cur = -1; /* nothing to select: the keys scroll */
	pv->p.top = top < pv->p.n ? top : 0;
}

static void preview_free(struct view *v)
{
	struct previewv *pv = v->priv;

	pane_free(&pv->p);
	free(pv);
}

static void preview_resize(struct view *v, int h, int w)
{
	(void)v;
	(void)h;
	(void)w;
}

static void preview_draw(struct view *v, WINDOW *w)
{
	struct previewv *pv = v->priv;

	pane_draw(&pv->p, w, 0);
}

static void preview_reload(struct view *v)
{
	build(v->priv);
}

static struct ui_next preview_action(struct view *v, const struct ui_event *e)
{
	struct previewv *pv = v->priv;
	struct ui_next n = pane_action(&pv->p, e);

	if (n.kind != UI_UNHANDLED)
		return n;
	if (e->action == ACT_PRINT)
		return ui_next(UI_PUSH, form_print_new(pv->doc, pv->id));
	if (e->action == ACT_OPEN || e->action == ACT_PREVIEW)
		return ui_next(UI_HANDLED, NULL);
	return ui_next(UI_UNHANDLED, NULL);
}

static void preview_title(struct view *v, char *buf, size_t n)
{
	struct previewv *pv = v->priv;

	if (pv->doc == PRINT_INVOICE)
		snprintf(buf, n, "%s", _("Preview"));
	else
		/* TRANSLATORS: the breadcrumb of a receipt's preview */
		snprintf(buf, n, _("Receipt preview of payment %lld"), (long long)pv->id);
}

static const char *preview_help(struct view *v)
{
	(void)v;
	return _("The invoice or the receipt as it prints, 80 columns wide: the same text P "
	         "writes to a file. The arrows and PgUp/PgDn scroll; P opens the print form "
	         "(text of 80 or 42 columns, or PDF, and the file).");
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
	pv->p.cur = -1;
	build(pv);
	return view_new(&preview_ops, pv);
}
