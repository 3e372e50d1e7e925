/*
 * form-service.c - the form that adds a service to the catalogue and the
 * one that edits one: name, kind (a choice), default price, currency (when
 * adding; a service's currency never changes) and default minutes.
 *
 * The price is read as the command line reads --price (service_read_price:
 * money_parse in the service's currency) and the minutes as --minutes
 * (service_read_minutes); each field is then checked on its own by the
 * core's rules (service_check) so that the reason stands beside the field
 * it is about. The post calls service_add or service_edit, which check
 * everything again (a name another active service has is refused there).
 * An edit sends only the fields that changed.
 *
 * Callers: view-services.c (a, e, Enter).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fmt.h"
#include "form.h"
#include "i18n.h"
#include "money.h"
#include "service.h"
#include "views.h"
#include "xalloc.h"

enum { S_NAME = 1, S_KIND, S_PRICE, S_CURRENCY, S_MINUTES };

struct svcst {
	int64_t id;         /* 0: a new service */
	struct service old; /* edit: as it was when the form opened */
	int64_t *posted;    /* gets the service's id once posted (may be NULL) */
};

/* The currency the price is typed in: the field's when adding, else the
 * service's own. */
static const char *currency_of(struct form *f)
{
	struct svcst *ss = f->arg;

	return ss->id ? ss->old.currency : form_value(f, form_find(f, S_CURRENCY));
}

/* The text of field id. */
static const char *value(struct form *f, int id)
{
	return form_value(f, form_find(f, id));
}

/* Read the price (always: an empty price is refused as money_parse
 * refuses it) and the minutes (SERVICE_KEEP when empty) into in; 0, or the
 * core's refusal. */
static int read_numbers(struct form *f, struct service_input *in)
{
	const char *minutes = value(f, S_MINUTES);
	int rc;

	in->minutes = SERVICE_KEEP;
	if ((rc = service_read_price(value(f, S_PRICE), currency_of(f), &in->price)))
		return rc;
	return *minutes ? service_read_minutes(minutes, &in->minutes) : 0;
}

/* An input with no field given. */
static void blank(struct service_input *in)
{
	memset(in, 0, sizeof *in);
	in->price = in->minutes = SERVICE_KEEP;
}

/* Check field id alone (given in in) by the core's rules; 1 when refused
 * (the reason set beside it). */
static int check_one(struct form *f, int id, const struct service_input *in)
{
	err_clear();
	if (service_check(in) == 0)
		return 0;
	form_error(f, form_find(f, id), "%s", err_msg());
	return 1;
}

/* rc is what reading field id returned: 1 with the core's reason beside
 * the field when it refused, else 0. */
static int read_one(struct form *f, int id, int rc)
{
	if (rc == 0)
		return 0;
	form_error(f, form_find(f, id), "%s", err_msg());
	return 1;
}

static int svc_check(struct form *f)
{
	struct svcst *ss = f->arg;
	struct service_input one;
	const char *cur = currency_of(f), *minutes = value(f, S_MINUTES);
	int64_t v = 0;
	int errors = 0;

	blank(&one);
	one.name = value(f, S_NAME);
	errors += check_one(f, S_NAME, &one);
	if (!ss->id) {
		blank(&one);
		one.currency = cur;
		if (check_one(f, S_CURRENCY, &one)) {
			errors++;
			cur = NULL; /* the price cannot be read without it */
		}
	}
	if (cur) {
		err_clear();
		if (read_one(f, S_PRICE, service_read_price(value(f, S_PRICE), cur, &v))) {
			errors++;
		} else {
			blank(&one);
			one.currency = cur;
			one.price = v;
			errors += check_one(f, S_PRICE, &one);
		}
	}
	if (*minutes) {
		err_clear();
		if (read_one(f, S_MINUTES, service_read_minutes(minutes, &v))) {
			errors++;
		} else {
			blank(&one);
			one.minutes = v;
			errors += check_one(f, S_MINUTES, &one);
		}
	}
	return errors;
}

/* "Exterior wash, service, 45.00 USD, 60 min" of service id. */
static void describe(int64_t id, char *buf, size_t n)
{
	struct service s;
	char m[FMT_MONEY];

	if (service_get(ui_db(), id, &s) != 0) {
		snprintf(buf, n, "-");
		return;
	}
	snprintf(buf, n, _("%1$s, %2$s, %3$s, %4$lld min"), s.name, fmt_status(s.kind),
	         fmt_money_cur(s.price, s.currency, m), (long long)s.minutes);
	service_free(&s);
}

static int svc_post(struct form *f)
{
	struct svcst *ss = f->arg;
	struct service_input in = {0};
	const char *name = form_value(f, form_find(f, S_NAME));
	const char *kind = form_value(f, form_find(f, S_KIND));
	char what[400];
	int64_t id;
	int rc;

	if ((rc = read_numbers(f, &in)))
		return rc;
	if (!ss->id) {
		in.name = name;
		in.kind = kind;
		in.currency = currency_of(f);
		if ((rc = service_add(ui_db(), &in, &id)))
			return rc;
		f->posted_id = id;
		describe(id, what, sizeof what);
		form_receipt(f, _("Service %1$lld added: %2$s."), (long long)id, what);
	} else {
		if (strcmp(name, ss->old.name))
			in.name = name;
		if (strcmp(kind, ss->old.kind))
			in.kind = kind;
		if (in.price == ss->old.price)
			in.price = SERVICE_KEEP;
		if (in.minutes == ss->old.minutes)
			in.minutes = SERVICE_KEEP;
		if (!in.name && !in.kind && in.price == SERVICE_KEEP &&
		    in.minutes == SERVICE_KEEP) {
			form_receipt(f, "%s", _("Nothing was changed."));
			return 0;
		}
		if ((rc = service_edit(ui_db(), ss->id, &in)))
			return rc;
		f->posted_id = id = ss->id;
		describe(id, what, sizeof what);
		form_receipt(f, _("Service %1$lld changed: %2$s."), (long long)id, what);
	}
	if (ss->posted)
		*ss->posted = id;
	return 0;
}

static void svc_free(struct form *f)
{
	struct svcst *ss = f->arg;

	service_free(&ss->old);
	free(ss);
}

static const struct form_spec svc_spec = {
    .name = "service",
    .check = svc_check,
    .post = svc_post,
    .free = svc_free,
    .help = N_("A service of the catalogue: its name (unique among the services offered, "
               "as invoices will show it), the kind of line item it makes, its default price "
               "(typed as 45.00 or 1,234.50 in its currency, never negative: the kinds "
               "discount and credit take money off) and how many minutes it takes. The "
               "currency is chosen when the service is added and never changes. Changing a "
               "service never changes line items or invoices made earlier."),
};

struct view *form_service_new(int64_t service_id, int64_t *posted)
{
	struct svcst *ss;
	struct form *f;
	char title[300], price[FMT_MONEY], minutes[32];
	int k;

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	ss = xcalloc(1, sizeof *ss);
	ss->posted = posted;
	if (service_id) {
		if (service_get(ui_db(), service_id, &ss->old) != 0) {
			ui_msg(MSG_ERROR, _("Cannot read service %1$lld: %2$s"),
			       (long long)service_id, err_msg());
			goto fail;
		}
		ss->id = service_id;
		snprintf(title, sizeof title, _("Edit service %1$lld (%2$s)"),
		         (long long)service_id, ss->old.name);
	} else {
		snprintf(title, sizeof title, "%s", _("New service"));
	}
	f = form_new(&svc_spec, ss, title);
	k = form_add(f, F_TEXT, S_NAME, _("Name"), ss->id ? ss->old.name : NULL);
	f->fields[k].width = 40;
	form_add_choice(f, S_KIND, _("Kind"), service_kinds, service_kind_labels, SERVICE_NKINDS,
	                ss->id ? ss->old.kind : service_kinds[0]);
	if (ss->id)
		money_text(ss->old.price, ss->old.currency, 0, price);
	k = form_add(f, F_TEXT, S_PRICE, _("Price"), ss->id ? price : NULL);
	f->fields[k].width = 18;
	if (ss->id) {
		form_add(f, F_INFO, 0, _("Currency"), ss->old.currency);
	} else {
		k = form_add(f, F_TEXT, S_CURRENCY, _("Currency"), service_default_currency());
		f->fields[k].width = 5;
	}
	snprintf(minutes, sizeof minutes, "%lld", (long long)(ss->id ? ss->old.minutes : 0));
	k = form_add(f, F_TEXT, S_MINUTES, _("Minutes"), minutes);
	f->fields[k].width = 8;
	return form_view(f);
fail:
	service_free(&ss->old);
	free(ss);
	return NULL;
}
