/*
 * form-contact.c - `l` on the customer pane: log a call, message or visit
 * at the counter with the customer (the contact log, contact.h): the
 * channel and the direction (choices), a one-line summary and when it
 * happened (empty: now).
 *
 * The fields are checked by the core's own rules (contact_check, and
 * clock_parse_local for the time) so that the reason stands beside the
 * field it is about; the post calls contact_add only, which checks
 * everything again. Rows of the log are only ever added: this form never
 * changes one. contact_add takes no idempotency key; the form posts at
 * most once (after a post it only shows its receipt), and a refused post
 * wrote nothing.
 *
 * Callers: view-customer.c (l).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "contact.h"
#include "customer.h"
#include "err.h"
#include "fmt.h"
#include "form.h"
#include "i18n.h"
#include "views.h"
#include "xalloc.h"

enum { T_CHANNEL = 1, T_DIRECTION, T_SUMMARY, T_AT };

struct contactst {
	int64_t customer_id;
	char *name; /* the customer's, for the receipt */
};

/* The input the fields say; *at_ok is 0 when the time cannot be read
 * (its reason set beside the field). */
static void read_input(struct form *f, struct contact_input *in, int *at_ok)
{
	struct contactst *cs = f->arg;
	const char *at = form_value(f, form_find(f, T_AT));

	memset(in, 0, sizeof *in);
	in->customer_id = cs->customer_id;
	in->channel = form_value(f, form_find(f, T_CHANNEL));
	in->direction = form_value(f, form_find(f, T_DIRECTION));
	in->summary = form_value(f, form_find(f, T_SUMMARY));
	*at_ok = 1;
	if (*at) {
		err_clear();
		if (clock_parse_local(at, &in->at)) {
			form_error(f, form_find(f, T_AT), "%s", err_msg());
			*at_ok = 0;
		}
	}
}

static int contact_form_check(struct form *f)
{
	struct contact_input in;
	int64_t at;
	int at_ok, errors = 0;

	read_input(f, &in, &at_ok);
	if (!at_ok)
		errors++;
	/* the summary alone first (the time as now), then the time: the
	 * channel and direction are choices of the core's own words */
	at = in.at;
	in.at = 0;
	err_clear();
	if (contact_check(&in)) {
		form_error(f, form_find(f, T_SUMMARY), "%s", err_msg());
		errors++;
	} else if (at_ok && at) {
		in.at = at;
		err_clear();
		if (contact_check(&in)) {
			form_error(f, form_find(f, T_AT), "%s", err_msg());
			errors++;
		}
	}
	return errors;
}

static int contact_form_post(struct form *f)
{
	struct contactst *cs = f->arg;
	struct contact_input in;
	struct contact ct;
	char when[32];
	int64_t id;
	int at_ok, rc;

	read_input(f, &in, &at_ok);
	if (!at_ok)
		return err_set(FD_EINVAL, "%s", _("the time cannot be read"));
	if ((rc = contact_add(ui_db(), &in, &id)))
		return rc;
	f->posted_id = id;
	form_receipt(f, _("Contact %1$lld logged for %2$s."), (long long)id, cs->name);
	if (contact_get(ui_db(), id, &ct) == 0) {
		form_receipt(f, "%s  %s  %s  %s", fmt_datetime(ct.at, when),
		             contact_label(ct.channel), contact_label(ct.direction), ct.summary);
		contact_free(&ct);
	}
	return 0;
}

static void contact_form_free(struct form *f)
{
	struct contactst *cs = f->arg;

	free(cs->name);
	free(cs);
}

static const struct form_spec contact_spec = {
    .name = "contact",
    .check = contact_form_check,
    .post = contact_form_post,
    .free = contact_form_free,
    .help = N_("Logs a call, a message or a visit at the counter in the customer's contact "
               "log: how (Left/Right or Space change the channel and the direction: in, the "
               "customer reached us; out, we reached them), what was said in a line (no card "
               "numbers), and when (YYYY-MM-DD HH:MM; empty: now; never in the future). A "
               "logged contact is never changed: a correction is a new entry."),
};

struct view *form_contact_new(int64_t customer_id)
{
	struct contactst *cs;
	struct customer c;
	struct form *f;
	char title[300];
	int k;

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	if (customer_get(ui_db(), customer_id, &c) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read customer %1$lld: %2$s"), (long long)customer_id,
		       err_msg());
		customer_free(&c);
		return NULL;
	}
	cs = xcalloc(1, sizeof *cs);
	cs->customer_id = customer_id;
	cs->name = xstrdup(c.name);
	customer_free(&c);
	snprintf(title, sizeof title, _("Log a contact with %s"), cs->name);
	f = form_new(&contact_spec, cs, title);
	form_add_choice(f, T_CHANNEL, _("Channel"), contact_channels, contact_channel_labels,
	                CONTACT_NCHANNELS, NULL);
	form_add_choice(f, T_DIRECTION, _("Direction"), contact_directions,
	                contact_direction_labels, CONTACT_NDIRECTIONS, NULL);
	k = form_add(f, F_TEXT, T_SUMMARY, _("Summary"), NULL);
	f->fields[k].width = 50;
	k = form_add(f, F_TEXT, T_AT, _("When"), NULL);
	f->fields[k].width = 18;
	form_note(f, k, _("empty: now"));
	return form_view(f);
}
