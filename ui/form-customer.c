/*
 * form-customer.c - the form that adds a customer and the one that edits
 * one: name, phone, email, address, note.
 *
 * Each field is checked with the core's own rules (customer_check, one
 * field at a time) so that the reason stands beside the field it is about;
 * the post calls customer_add or customer_edit, which check everything
 * again. An edit sends only the fields that changed ("" clears an optional
 * one). After adding, either the caller's callback gets the new id and the
 * form closes (a booking form that needed a customer), or the new
 * customer's pane replaces the form.
 *
 * Callers: view-customers.c (a, e), view-customer.c (e), and any form that
 * needs a new customer (form_customer_new with a callback).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "customer.h"
#include "err.h"
#include "form.h"
#include "i18n.h"
#include "views.h"
#include "xalloc.h"

enum { C_NAME = 1, C_PHONE, C_EMAIL, C_ADDRESS, C_NOTE };

struct custst {
	int64_t id;          /* 0: a new customer */
	struct customer old; /* edit: as it was when the form opened */
	form_customer_done_fn done;
	void *done_arg;
};

static const int field_ids[] = {C_NAME, C_PHONE, C_EMAIL, C_ADDRESS, C_NOTE};

/* The input with only field id set to text. */
static void set_field(struct customer_input *in, int id, const char *text)
{
	switch (id) {
	case C_NAME:
		in->name = text;
		break;
	case C_PHONE:
		in->phone = text;
		break;
	case C_EMAIL:
		in->email = text;
		break;
	case C_ADDRESS:
		in->address = text;
		break;
	default:
		in->note = text;
		break;
	}
}

static const char *old_value(const struct customer *c, int id)
{
	const char *v;

	switch (id) {
	case C_NAME:
		v = c->name;
		break;
	case C_PHONE:
		v = c->phone;
		break;
	case C_EMAIL:
		v = c->email;
		break;
	case C_ADDRESS:
		v = c->address;
		break;
	default:
		v = c->note;
		break;
	}
	return v ? v : "";
}

static int cust_check(struct form *f)
{
	int errors = 0;
	size_t i;

	for (i = 0; i < sizeof field_ids / sizeof field_ids[0]; i++) {
		struct customer_input in = {0};
		int k = form_find(f, field_ids[i]);

		set_field(&in, field_ids[i], form_value(f, k));
		err_clear();
		if (customer_check(&in, 0)) {
			form_error(f, k, "%s", err_msg());
			errors++;
		}
	}
	return errors;
}

static int cust_post(struct form *f)
{
	struct custst *cs = f->arg;
	struct customer_input in = {0};
	const char *name = form_value(f, form_find(f, C_NAME));
	size_t i;
	int rc, changed = 0;

	if (cs->id == 0) {
		int64_t id;

		for (i = 0; i < sizeof field_ids / sizeof field_ids[0]; i++) {
			const char *v = form_value(f, form_find(f, field_ids[i]));

			set_field(&in, field_ids[i], *v ? v : NULL);
		}
		in.name = name;
		if ((rc = customer_add(ui_db(), &in, &id)))
			return rc;
		f->posted_id = id;
		form_receipt(f, _("Customer %1$lld added: %2$s."), (long long)id, name);
		return 0;
	}
	for (i = 0; i < sizeof field_ids / sizeof field_ids[0]; i++) {
		const char *v = form_value(f, form_find(f, field_ids[i]));

		if (strcmp(v, old_value(&cs->old, field_ids[i]))) {
			set_field(&in, field_ids[i], v);
			changed++;
		}
	}
	if (!changed) {
		form_receipt(f, "%s", _("Nothing was changed."));
		return 0;
	}
	if ((rc = customer_edit(ui_db(), cs->id, &in)))
		return rc;
	f->posted_id = cs->id;
	form_receipt(f, _("Customer %1$lld changed: %2$s."), (long long)cs->id, name);
	return 0;
}

/* After adding: the caller's callback, else the new customer's pane. */
static struct view *cust_next(struct form *f)
{
	struct custst *cs = f->arg;

	if (cs->id || !f->posted_id)
		return NULL; /* an edit shows its receipt */
	if (cs->done) {
		/* back to the form that asked for the customer, which goes on */
		cs->done(f->posted_id, cs->done_arg);
		f->close_on_post = 1;
		return NULL;
	}
	return view_customer_new(f->posted_id);
}

static void cust_free(struct form *f)
{
	struct custst *cs = f->arg;

	customer_free(&cs->old);
	free(cs);
}

static const struct form_spec cust_spec = {
    .name = "customer",
    .check = cust_check,
    .post = cust_post,
    .next = cust_next,
    .free = cust_free,
    .help = N_("Only the name is required. A phone number holds digits, blanks and + - ( ) .; "
               "an e-mail address looks like name@example.com. Leaving a field empty in an "
               "edit clears it."),
};

static struct view *cust_form(struct custst *cs, const char *title, const char *name,
                              const char *phone)
{
	struct form *f = form_new(&cust_spec, cs, title);
	const struct customer *c = &cs->old;

	form_add(f, F_TEXT, C_NAME, _("Name"), cs->id ? c->name : name);
	form_add(f, F_TEXT, C_PHONE, _("Phone"), cs->id ? c->phone : phone);
	form_add(f, F_TEXT, C_EMAIL, _("Email"), c->email);
	form_add(f, F_TEXT, C_ADDRESS, _("Address"), c->address);
	form_add(f, F_TEXT, C_NOTE, _("Note"), c->note);
	f->fields[form_find(f, C_ADDRESS)].width = 40;
	f->fields[form_find(f, C_NOTE)].width = 40;
	return form_view(f);
}

struct view *form_customer_new(const char *hint, form_customer_done_fn done, void *arg)
{
	struct custst *cs;
	const char *name = NULL, *phone = NULL, *s;
	int digits = 0, other = 0;

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	cs = xcalloc(1, sizeof *cs);
	cs->done = done;
	cs->done_arg = arg;
	/* what was typed to look for the customer: a phone number or a name */
	for (s = hint ? hint : ""; *s; s++) {
		if (*s >= '0' && *s <= '9')
			digits++;
		else if (!strchr(" +-().", *s))
			other++;
	}
	if (digits >= 3 && !other)
		phone = hint;
	else if (hint && *hint)
		name = hint;
	return cust_form(cs, _("New customer"), name, phone);
}

struct view *form_customer_edit(int64_t customer_id)
{
	struct custst *cs;
	char title[300];

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	cs = xcalloc(1, sizeof *cs);
	if (customer_get(ui_db(), customer_id, &cs->old) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read customer %1$lld: %2$s"), (long long)customer_id,
		       err_msg());
		customer_free(&cs->old);
		free(cs);
		return NULL;
	}
	cs->id = customer_id;
	snprintf(title, sizeof title, _("Edit customer %1$lld (%2$s)"), (long long)customer_id,
	         cs->old.name);
	return cust_form(cs, title, NULL, NULL);
}
