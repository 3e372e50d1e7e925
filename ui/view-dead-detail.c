/*
 * view-dead-detail.c - one dead letter in full: an inbound event (every field,
 * its last error and its raw payload) or an outbox command (every field,
 * its last error and the JSON it sends). Opened from the dead-letter list;
 * on an inbound event r retries it and i ignores it with a reason.
 *
 * The payload is bytes from outside: it is shown through payload_lines
 * (control characters, escape sequences, invalid bytes and bidirectional
 * overrides become visible, harmless text) and wrapped to the width, so
 * nothing is cut off; every line then goes through draw_text as usual.
 * Nothing is selectable: the arrows and PgUp/PgDn scroll. The text is
 * rebuilt when the width changes and when the database changes (the
 * status shown follows a retry or an ignore made anywhere); the scroll
 * position is kept.
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
#include "payload.h"
#include "views.h"
#include "xalloc.h"

struct eventv {
	int outbox; /* 0: an inbound event, 1: an outbox command */
	int64_t id;
	int w; /* the body's width, for wrapping */
	struct pane p;
};

/* The translated word of an inbound event's or outbox command's status. */
static const char *status_word(const char *s)
{
	static const struct {
		const char *id, *word;
	} w[] = {
	    {"received", N_("received, waiting to be processed")},
	    {"processed", N_("processed")},
	    {"ignored", N_("ignored")},
	    {"parked", N_("parked (about an order we do not know yet)")},
	    {"dead", N_("dead (given up: a person must look)")},
	    {"rejected", N_("rejected (bad signature)")},
	    {"sending", N_("sending")},
	};
	size_t i;

	for (i = 0; i < sizeof w / sizeof w[0]; i++)
		if (s && !strcmp(s, w[i].id))
			return _(w[i].word);
	return fmt_status(s);
}

static int add_line(const char *line, void *arg)
{
	struct eventv *ev = arg;

	pane_text(&ev->p, 0, 0, R_NORMAL, "%s", line);
	return 0;
}

/* Text from outside (or a label with it), harmless and wrapped: prose
 * (words != 0) at blanks, a payload anywhere. */
static void wrapped(struct eventv *ev, const void *bytes, size_t len, int words)
{
	payload_lines(bytes, len, ev->w - 2, words, add_line, ev);
}

/* "Label: value", wrapped; nothing when value is NULL or empty. */
static void field(struct eventv *ev, const char *label, const char *value)
{
	char *s;
	size_t n;

	if (!value || !*value)
		return;
	/* the locale's "Label: value" (pane_field's form): its colon may be
	   wider than ": " */
	n = (size_t)snprintf(NULL, 0, _("%s: %s"), label, value) + 1;
	s = xmalloc(n);
	snprintf(s, n, _("%s: %s"), label, value);
	wrapped(ev, s, strlen(s), 1);
	free(s);
}

static void time_field(struct eventv *ev, const char *label, int64_t t)
{
	char buf[32];

	if (t > 0)
		field(ev, label, fmt_datetime(t, buf));
}

static void num_field(struct eventv *ev, const char *label, int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%lld", (long long)v);
	field(ev, label, buf);
}

static void last_error(struct eventv *ev, const char *err)
{
	pane_blank(&ev->p);
	pane_text(&ev->p, 0, 0, R_HEADER, "%s", _("Last error"));
	if (err && *err)
		wrapped(ev, err, strlen(err), 1);
	else
		pane_text(&ev->p, 0, 0, R_DIM, "%s", _("None."));
}

static void payload(struct eventv *ev, const void *bytes, size_t len)
{
	pane_blank(&ev->p);
	pane_text(&ev->p, 0, 0, R_HEADER,
	          _("Payload (%zu bytes, shown with control characters made harmless)"), len);
	if (len)
		wrapped(ev, bytes, len, 0);
	else
		pane_text(&ev->p, 0, 0, R_DIM, "%s", _("None."));
}

static void build_inbound(struct eventv *ev)
{
	struct inbox_event e;

	if (inbox_get(ui_db(), ev->id, &e) != 0) {
		pane_text(&ev->p, 0, 0, R_ERROR, _("! Inbound event %1$lld cannot be read: %2$s"),
		          (long long)ev->id, err_msg());
		return;
	}
	pane_text(&ev->p, 0, 0, R_HEADER, _("Inbound event %lld"), (long long)e.id);
	field(ev, _("Status"), status_word(e.status));
	field(ev, _("Source"), e.source);
	field(ev, _("External id"), e.external_id);
	field(ev, _("Via"), e.via);
	field(ev, _("Type"), e.event_type);
	field(ev, _("Object"), e.object_id);
	num_field(ev, _("Attempts"), e.attempts);
	time_field(ev, _("Channel time"), e.channel_created_at);
	time_field(ev, _("Time received"), e.received_at);
	time_field(ev, _("Next attempt"), e.next_attempt_at);
	time_field(ev, _("Parked until"), e.parked_until);
	time_field(ev, _("Processed"), e.processed_at);
	time_field(ev, _("Changed"), e.updated_at);
	last_error(ev, e.last_error);
	payload(ev, e.payload, e.len);
	inbox_event_free(&e);
}

static void build_outbox(struct eventv *ev)
{
	struct outbox_cmd o;

	if (outbox_cmd_get(ui_db(), ev->id, &o) != 0) {
		pane_text(&ev->p, 0, 0, R_ERROR, _("! Outbox command %1$lld cannot be read: %2$s"),
		          (long long)ev->id, err_msg());
		return;
	}
	pane_text(&ev->p, 0, 0, R_HEADER, _("Outbox command %lld"), (long long)o.id);
	field(ev, _("Status"), status_word(o.status));
	field(ev, _("Command"), o.event_type);
	field(ev, _("Order or refund"), o.business_key);
	field(ev, _("Provider"), o.provider_code);
	num_field(ev, _("Attempts"), o.retry_count);
	time_field(ev, _("Created"), o.created_at);
	time_field(ev, _("Sent"), o.sent_at);
	time_field(ev, _("Changed"), o.updated_at);
	last_error(ev, o.last_error);
	payload(ev, o.payload, o.payload ? strlen(o.payload) : 0);
	outbox_cmd_free(&o);
}

static void build(struct eventv *ev)
{
	pane_clear(&ev->p);
	if (ev->outbox)
		build_outbox(ev);
	else
		build_inbound(ev);
	ev->p.cur = -1; /* nothing to select: the keys scroll */
}

static void event_free(struct view *v)
{
	struct eventv *ev = v->priv;

	pane_free(&ev->p);
	free(ev);
}

static void event_resize(struct view *v, int h, int w)
{
	struct eventv *ev = v->priv;

	(void)h;
	if (w != ev->w) {
		ev->w = w;
		build(ev);
	}
}

static void event_draw(struct view *v, WINDOW *w)
{
	struct eventv *ev = v->priv;

	pane_draw(&ev->p, w, 0);
}

static void event_reload(struct view *v)
{
	build(v->priv);
}

static struct ui_next event_action(struct view *v, const struct ui_event *e)
{
	struct eventv *ev = v->priv;
	struct ui_next n = pane_action(&ev->p, e);

	if (n.kind != UI_UNHANDLED)
		return n;
	switch (e->action) {
	case ACT_DEAD_RETRY:
	case ACT_DEAD_IGNORE:
		if (ev->outbox) {
			ui_msg(MSG_INFO, _("Only inbound events can be retried or ignored here."));
			return ui_next(UI_REDRAW, NULL);
		}
		if (e->action == ACT_DEAD_IGNORE)
			return ui_next(UI_PUSH, form_ignore_new(ev->id));
		if (dead_retry(ev->id) == 0)
			build(ev);
		return ui_next(UI_REDRAW, NULL);
	case ACT_OPEN:
	case ACT_DEAD_LETTERS:
		return ui_next(UI_HANDLED, NULL);
	default:
		return ui_next(UI_UNHANDLED, NULL);
	}
}

static void event_title(struct view *v, char *buf, size_t n)
{
	struct eventv *ev = v->priv;

	snprintf(buf, n, ev->outbox ? _("Outbox command %lld") : _("Inbound event %lld"),
	         (long long)ev->id);
}

static const char *event_help(struct view *v)
{
	struct eventv *ev = v->priv;

	if (ev->outbox)
		return _("An outbound command as it was written, with the channel's last answer. "
		         "The arrows and PgUp/PgDn scroll.");
	return _("An inbound event as the channel sent it: every field, the last error and the "
	         "raw payload (control characters, escape sequences and bytes that are not "
	         "UTF-8 are shown as harmless text such as ^[ or \\xFF). The arrows and "
	         "PgUp/PgDn scroll; r retries the event, i ignores it with a reason.");
}

static const enum action event_keys[] = {ACT_UP,         ACT_DOWN,        ACT_PAGE_UP,
                                         ACT_PAGE_DOWN,  ACT_TOP,         ACT_BOTTOM,
                                         ACT_DEAD_RETRY, ACT_DEAD_IGNORE, ACT_NONE};
static const enum action event_hints[] = {ACT_DEAD_RETRY, ACT_DEAD_IGNORE, ACT_NONE};
static const enum action command_keys[] = {ACT_UP,  ACT_DOWN,   ACT_PAGE_UP, ACT_PAGE_DOWN,
                                           ACT_TOP, ACT_BOTTOM, ACT_NONE};

static int event_target(struct view *v, const char **kind, int64_t *id)
{
	struct eventv *x = v->priv;

	return pane_history_target(&x->p, x->outbox ? NULL : "inbound", x->id, kind, id);
}

static const struct view_ops event_ops = {
    .name = "inbound-event",
    .ctx = CTX_PANE | CTX_DEAD,
    .keys = event_keys,
    .hints = event_hints,
    .free = event_free,
    .resize = event_resize,
    .draw = event_draw,
    .action = event_action,
    .reload = event_reload,
    .title = event_title,
    .help = event_help,
    .target = event_target,
};

static const struct view_ops command_ops = {
    .name = "outbox-command",
    .ctx = CTX_PANE | CTX_DEAD,
    .keys = command_keys,
    .hints = NULL,
    .free = event_free,
    .resize = event_resize,
    .draw = event_draw,
    .action = event_action,
    .reload = event_reload,
    .title = event_title,
    .help = event_help,
};

static struct view *open_one(int outbox, int64_t id)
{
	struct eventv *ev = xcalloc(1, sizeof *ev);

	ev->outbox = outbox;
	ev->id = id;
	ev->p.cur = -1; /* built by the first resize, which pushing it does */
	return view_new(outbox ? &command_ops : &event_ops, ev);
}

struct view *view_event_new(int64_t inbox_id)
{
	struct inbox_event e;

	if (inbox_get(ui_db(), inbox_id, &e) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read inbound event %1$lld: %2$s"), (long long)inbox_id,
		       err_msg());
		return NULL;
	}
	inbox_event_free(&e);
	return open_one(0, inbox_id);
}

struct view *view_command_new(int64_t outbox_id)
{
	struct outbox_cmd o;

	if (outbox_cmd_get(ui_db(), outbox_id, &o) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read outbox command %1$lld: %2$s"),
		       (long long)outbox_id, err_msg());
		return NULL;
	}
	outbox_cmd_free(&o);
	return open_one(1, outbox_id);
}
