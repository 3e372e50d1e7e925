/*
 * booking.c - a visit, its jobs, their line items and links in one write
 * transaction (see booking.h). Each record goes through its owner's
 * function; this module only puts them in order.
 *
 * Permissions: a booking asks booking once; its parts (visit, resources,
 * jobs, items, links) are that one action and ask nothing more (control.h).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "announce.h"
#include "booking.h"
#include "capacity.h"
#include "control.h"
#include "customer.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "item.h"
#include "job.h"
#include "money.h"
#include "service.h"
#include "strbuf.h"
#include "visit.h"

struct book_ctx {
	const struct booking_input *in;
	struct booking_result *out;
	char currency[4]; /* the services' currency, "" with no service */
	struct strbuf title;
};

struct open_job {
	const char *currency; /* "" for any */
	int64_t id;
};

/* job_list gives the newest first: the first open one in the currency. */
static int first_open(const struct job *j, void *arg)
{
	struct open_job *o = arg;

	switch (job_state_of(j->status)) {
	case JOB_OPEN:
	case JOB_IN_PROGRESS:
		break;
	case JOB_DONE:
	case JOB_CANCELLED:
	case JOB_STATES:
		return 0;
	}
	if (*o->currency && strcmp(j->currency, o->currency))
		return 0;
	o->id = j->id;
	return 1;
}

/* title += name, kept within the job title's 200 bytes on a character
 * boundary. */
static void title_add(struct strbuf *t, const char *name)
{
	size_t room, n = strlen(name);

	if (t->len && t->len + 2 < 200)
		sb_add(t, ", ", 2);
	if (t->len >= 200)
		return;
	room = 200 - t->len;
	if (n > room) {
		n = room;
		while (n > 0 && ((unsigned char)name[n] & 0xC0) == 0x80)
			n--;
	}
	sb_add(t, name, n);
}

/* The services: active, one currency; their names make the default title. */
static int read_services(struct db *db, struct book_ctx *b)
{
	size_t i;
	int rc;

	for (i = 0; i < b->in->nservices; i++) {
		struct service s;

		if ((rc = service_get(db, b->in->services[i], &s)))
			return rc;
		if (!s.active)
			rc = err_set(FD_ECONFLICT,
			             _("service %lld (%s) is retired and no longer offered: choose "
			               "another one"),
			             (long long)s.id, s.name);
		else if (*b->currency && strcmp(b->currency, s.currency))
			rc = err_set(
			    FD_ECONFLICT,
			    _("the services are priced in %s and %s: one visit's services are "
			      "billed in one currency (book the others on their own job)"),
			    b->currency, s.currency);
		if (!rc) {
			memcpy(b->currency, s.currency, sizeof b->currency);
			title_add(&b->title, s.name);
		}
		service_free(&s);
		if (rc)
			return rc;
	}
	return 0;
}

static int book_parts(struct db *db, struct book_ctx *b)
{
	const struct booking_input *in = b->in;
	struct booking_result *out = b->out;
	struct visit_input ai = {0};
	struct customer first;
	int64_t minutes, share, id;
	size_t i, k;
	int rc;

	if ((rc = read_services(db, b)))
		return rc;
	if ((rc = customer_get(db, in->customers[0], &first)))
		return rc;
	ai.start_at = in->start_at;
	ai.end_at = in->end_at;
	ai.location = in->location ? in->location : first.address;
	ai.note = in->note && *in->note ? in->note : NULL;
	rc = visit_add(db, &ai, &out->appt_id);
	customer_free(&first);
	if (rc)
		return rc;
	/* the slot first: a taken one refuses the booking before anything else */
	if (in->nresources &&
	    (rc = capacity_reserve(db, out->appt_id, in->resources, in->nresources)))
		return rc;
	minutes = (in->end_at - in->start_at) / 60;
	share = minutes / (int64_t)in->ncustomers;
	for (i = 0; i < in->ncustomers; i++) {
		struct open_job o = {b->currency, 0};
		struct job_input ji = {0};

		if (in->job_id && in->ncustomers == 1)
			o.id = in->job_id;
		else if (in->use_open_job &&
		         (rc = job_list(db, in->customers[i], first_open, &o)) < 0)
			return rc;
		if (o.id) {
			out->job_ids[i] = o.id;
		} else {
			ji.customer_id = in->customers[i];
			ji.title = in->title && *in->title ? in->title
			           : b->title.len          ? sb_cstr(&b->title)
			                                   : _("Visit");
			ji.currency = *b->currency ? b->currency : in->currency;
			if ((rc = job_add(db, &ji, &out->job_ids[i])))
				return rc;
			out->job_new[i] = 1;
		}
		out->njobs = i + 1;
		for (k = 0; k < in->nservices; k++) {
			if ((rc = service_to_job(db, in->services[k], out->job_ids[i], 1000, &id)))
				return rc;
			out->nitems++;
		}
		for (k = 0; k < in->nlines; k++) {
			struct item_input li = in->lines[k];

			li.job_id = out->job_ids[i];
			if ((rc = item_add(db, &li, &id)))
				return rc;
			out->nitems++;
		}
		if ((rc = link_add(db, out->appt_id, out->job_ids[i],
		                   share + (i == 0 ? minutes - share * (int64_t)in->ncustomers : 0),
		                   NULL)))
			return rc;
	}
	/* booked: for whoever follows that (the messages' confirmations) */
	if (!in->unannounced &&
	    (rc = announce(db, &(struct announcement){ANNOUNCE_VISIT_BOOKED, out->appt_id, 0})))
		return rc;
	/* the day's free slots changed for whoever follows them (the booking
	 * channels; nothing when there is none) */
	for (i = 0; i < in->nresources; i++)
		if ((rc = announce(db, &(struct announcement){ANNOUNCE_DAY_CHANGED,
		                                              in->resources[i], in->start_at})))
			return rc;
	return 0;
}

/* A booking asks booking once; its parts (the visit, the resources, the
 * jobs, their items and links) are that one action (control.h). */
static int book_tx(struct db *db, void *arg)
{
	struct book_ctx *b = arg;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "book a visit for customer %lld",
	         (long long)b->in->customers[0]);
	if ((rc = control_require(db, PERM_BOOKING, 0, subject)))
		return rc;
	control_acting_enter();
	rc = book_parts(db, b);
	control_acting_leave();
	return rc;
}

int booking_add(struct db *db, const struct booking_input *in, struct booking_result *out)
{
	struct book_ctx b;
	size_t i, k;
	int rc;

	memset(out, 0, sizeof *out);
	if (in->ncustomers < 1)
		return err_set(FD_EINVAL, "%s", _("a booking is for at least one customer"));
	if (in->ncustomers > BOOKING_MAX_CUSTOMERS)
		return err_set(FD_EINVAL, _("one visit is for at most %d customers"),
		               BOOKING_MAX_CUSTOMERS);
	if (in->nservices > BOOKING_MAX_SERVICES || in->nlines > BOOKING_MAX_SERVICES)
		return err_set(FD_EINVAL, _("one booking takes at most %d services"),
		               BOOKING_MAX_SERVICES);
	if (in->job_id && in->ncustomers != 1)
		return err_set(FD_EINVAL, "%s",
		               _("a visit booked on a given job is for one customer"));
	for (i = 0; i < in->ncustomers; i++)
		for (k = 0; k < i; k++)
			if (in->customers[i] == in->customers[k])
				return err_set(FD_EINVAL, _("customer %lld is named twice"),
				               (long long)in->customers[i]);
	memset(&b, 0, sizeof b);
	b.in = in;
	b.out = out;
	rc = db_write(db, book_tx, &b);
	sb_free(&b.title);
	if (rc)
		memset(out, 0, sizeof *out);
	return rc;
}

/* Split text at the characters of seps into trimmed parts; each part goes
 * to fn. Empty parts are skipped. */
static int each_part(const char *text, const char *seps, int (*fn)(const char *part, void *arg),
                     void *arg)
{
	char part[256];
	const char *p = text, *q;
	size_t len;
	int rc;

	while (*p) {
		q = p + strcspn(p, seps);
		while (p < q && (*p == ' ' || *p == '\t'))
			p++;
		len = (size_t)(q - p);
		while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len >= sizeof part)
			return err_set(FD_EINVAL, _("'%.40s...' is too long for a name"), p);
		if (len > 0) {
			memcpy(part, p, len);
			part[len] = '\0';
			if ((rc = fn(part, arg)))
				return rc;
		}
		p = *q ? q + 1 : q;
	}
	return 0;
}

struct cust_parts {
	struct db *db;
	int64_t *ids;
	size_t *n;
	struct strbuf *names;
};

static int add_customer(const char *part, void *arg)
{
	struct cust_parts *c = arg;
	char name[256];
	int64_t id;
	size_t k;
	int rc;

	if (*c->n >= BOOKING_MAX_CUSTOMERS)
		return err_set(FD_EINVAL, _("one visit is for at most %d customers"),
		               BOOKING_MAX_CUSTOMERS);
	if ((rc = customer_find(c->db, part, &id, name, sizeof name)))
		return rc;
	for (k = 0; k < *c->n; k++)
		if (c->ids[k] == id)
			return err_set(FD_EINVAL, _("%s is named twice"), name);
	c->ids[(*c->n)++] = id;
	if (c->names)
		sb_printf(c->names, "%s%s", *c->n > 1 ? ", " : "", name);
	return 0;
}

int booking_customers(struct db *db, const char *text, int64_t ids[BOOKING_MAX_CUSTOMERS],
                      size_t *n, struct strbuf *names)
{
	struct cust_parts c = {db, ids, n, names};
	int rc;

	*n = 0;
	while (text && (*text == ' ' || *text == '\t'))
		text++;
	if (!text || !*text)
		return err_set(FD_EINVAL, "%s",
		               _("name a customer: a name, a phone number or a customer number"));
	/* the whole text first: "Smith; Ann" may be one customer's name */
	rc = add_customer(text, &c);
	if (rc != FD_ENOTFOUND || !strchr(text, ';'))
		return rc;
	*n = 0;
	return each_part(text, ";", add_customer, &c);
}

struct svc_parts {
	struct db *db;
	int64_t *ids;
	size_t *n;
	struct strbuf *info;
	int64_t minutes;
};

static int add_service(const char *part, void *arg)
{
	struct svc_parts *c = arg;
	struct service s;
	char m[MONEY_BUFSZ];
	int64_t id;
	int rc;

	if (*c->n >= BOOKING_MAX_SERVICES)
		return err_set(FD_EINVAL, _("one booking takes at most %d services"),
		               BOOKING_MAX_SERVICES);
	if ((rc = service_find(c->db, part, &id)) || (rc = service_get(c->db, id, &s)))
		return rc;
	c->ids[(*c->n)++] = id;
	c->minutes += s.minutes;
	if (c->info)
		sb_printf(c->info, "%s%s %s", *c->n > 1 ? ", " : "", s.name,
		          money_text(s.price, s.currency, 0, m));
	service_free(&s);
	return 0;
}

int booking_services(struct db *db, const char *text, int64_t ids[BOOKING_MAX_SERVICES], size_t *n,
                     struct strbuf *info, int64_t *minutes)
{
	struct svc_parts c = {db, ids, n, info, 0};
	int rc;

	*n = 0;
	if (!text)
		return 0;
	while (*text == ' ' || *text == '\t')
		text++;
	if (!*text)
		return 0;
	/* the whole text first: a service's name may hold a comma */
	rc = add_service(text, &c);
	if (rc == FD_ENOTFOUND && strpbrk(text, ";,")) {
		*n = 0;
		c.minutes = 0;
		if (info)
			sb_free(info);
		rc = each_part(text, ";,", add_service, &c);
	}
	if (minutes)
		*minutes = c.minutes;
	return rc;
}
