/*
 * form-ignore.c - a person decides that an inbound event is never to be
 * applied: a reason is required, the person confirms with `y`, and the
 * core marks the event ignored with the reason (kept as its last error and
 * in its status history). Opened with `i` from the dead-letter views.
 *
 * Ignoring is not keyed like the money forms: it changes one status, and
 * the core refuses to ignore an event twice, so Enter pressed again after
 * a post cannot do anything more.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "form.h"
#include "i18n.h"
#include "inbox.h"
#include "text.h"
#include "views.h"
#include "xalloc.h"

/* The longest reason the core keeps (inbox_ignore). */
#define REASON_MAX 500

struct ignst {
	int64_t id;
	char what[300]; /* "payment_intent.succeeded from stripe", for the question */
};

static int ign_check(struct form *f)
{
	const char *r = form_value(f, 1);

	if (!*r) {
		form_error(f, 1, "%s", _("required: say why the event is not to be applied"));
		return 1;
	}
	if (text_check(r, _("the reason"), REASON_MAX, 0)) {
		form_error(f, 1, "%s", err_msg());
		return 1;
	}
	return 0;
}

static void ign_confirm(struct form *f, char *buf, size_t n)
{
	struct ignst *is = f->arg;

	snprintf(buf, n, _("Ignore inbound event %1$lld (%2$s) for good?"), (long long)is->id,
	         is->what);
}

static int ign_post(struct form *f)
{
	struct ignst *is = f->arg;
	int rc = inbox_ignore(ui_db(), is->id, form_value(f, 1));

	if (rc)
		return rc;
	f->posted_id = is->id;
	form_receipt(f, _("Inbound event %1$lld is ignored: %2$s"), (long long)is->id,
	             form_value(f, 1));
	return 0;
}

static void ign_free(struct form *f)
{
	free(f->arg);
}

static const struct form_spec ign_spec = {
    .name = "ignore-event",
    .check = ign_check,
    .post = ign_post,
    .confirm = ign_confirm,
    .free = ign_free,
    .help = N_("An ignored event is never applied and never retried. The reason is kept "
               "with the event and in its status history."),
};

struct view *form_ignore_new(int64_t inbox_id)
{
	struct inbox_event e;
	struct ignst *is;
	struct form *f;
	char title[200], info[400];
	char *safe;
	int k;

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	if (inbox_get(ui_db(), inbox_id, &e) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read inbound event %1$lld: %2$s"), (long long)inbox_id,
		       err_msg());
		return NULL;
	}
	if (inbox_may_ignore(inbox_id, e.status) != 0) {
		ui_msg(MSG_ERROR, "%s.", err_msg());
		inbox_event_free(&e);
		return NULL;
	}
	is = xcalloc(1, sizeof *is);
	is->id = inbox_id;
	/* the question is drawn through draw_text, which sanitises it too */
	snprintf(is->what, sizeof is->what, _("%1$s from %2$s"),
	         e.event_type ? e.event_type : _("an event of unknown type"), e.source);
	safe = text_sanitize(is->what);
	snprintf(is->what, sizeof is->what, "%s", safe);
	free(safe);
	snprintf(title, sizeof title, _("Ignore inbound event %lld"), (long long)inbox_id);
	f = form_new(&ign_spec, is, title);
	snprintf(info, sizeof info, _("%1$s, %2$s: %3$s"), is->what, e.status,
	         e.last_error ? e.last_error : "-");
	form_add(f, F_INFO, 0, _("Event:"), info);
	k = form_add(f, F_TEXT, 1, _("Reason"), NULL); /* may move f->fields */
	f->fields[k].width = 50;
	inbox_event_free(&e);
	return form_view(f);
}
