/*
 * view-message.c - the last message in full: the message line has one line
 * and cuts a long message (a refusal with its reason, what the channel
 * worker said); M (action message) opens it here, wrapped to the width
 * (tw_wrap) and scrollable, until q or Esc. The text is copied when the
 * pane opens and wrapped again when the width changes. Caller: screen.c.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "i18n.h"
#include "pane.h"
#include "theme.h"
#include "tw.h"
#include "view.h"
#include "views.h"
#include "xalloc.h"

struct msgv {
	struct pane p;
	char *text;
	enum role role;
	int w; /* the width the lines were made for */
};

static void msg_build(struct msgv *m)
{
	size_t st[256], ln[256];
	int n = tw_wrap(m->text, m->w - 2 > 8 ? m->w - 2 : 8, st, ln, 256), i;

	pane_clear(&m->p);
	pane_blank(&m->p);
	for (i = 0; i < n && i < 256; i++)
		pane_text(&m->p, 0, 0, m->role, "%.*s", (int)ln[i], m->text + st[i]);
	pane_blank(&m->p);
	pane_text(&m->p, 0, 0, R_DIM, "%s", _("Press q or Esc to close."));
}

static void msg_free(struct view *v)
{
	struct msgv *m = v->priv;

	pane_free(&m->p);
	free(m->text);
	free(m);
}

static void msg_resize(struct view *v, int h, int w)
{
	struct msgv *m = v->priv;

	(void)h;
	if (w == m->w)
		return;
	m->w = w;
	msg_build(m);
}

static void msg_draw(struct view *v, WINDOW *w)
{
	struct msgv *m = v->priv;

	pane_draw(&m->p, w, 0);
}

static struct ui_next msg_action(struct view *v, const struct ui_event *ev)
{
	struct msgv *m = v->priv;

	if (ev->action == ACT_OPEN)
		return ui_next(UI_HANDLED, NULL);
	return pane_action(&m->p, ev);
}

static void msg_title(struct view *v, char *buf, size_t n)
{
	(void)v;
	snprintf(buf, n, "%s", _("Message"));
}

static const enum action msg_keys[] = {ACT_UP, ACT_DOWN, ACT_PAGE_UP, ACT_PAGE_DOWN, ACT_NONE};

static const struct view_ops msg_ops = {
    .name = "message",
    .ctx = CTX_PANE,
    .keys = msg_keys,
    .hints = NULL,
    .free = msg_free,
    .resize = msg_resize,
    .draw = msg_draw,
    .action = msg_action,
    .reload = NULL,
    .title = msg_title,
    .help = NULL,
};

struct view *view_message_new(const char *text, enum msg_level level)
{
	struct msgv *m = xcalloc(1, sizeof *m);

	m->text = xstrdup(text);
	m->role = level == MSG_ERROR ? R_ERROR : level == MSG_OK ? R_SUCCESS : R_NORMAL;
	m->p.cur = -1;
	return view_new(&msg_ops, m);
}
