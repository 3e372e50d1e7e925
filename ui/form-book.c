/*
 * form-book.c - booking in one form: who (one customer, or several at one
 * address), which catalogue services, the day, the start, the length or
 * the end, overnight, a new job or the customer's open one, the place and a
 * note. One Enter books it all through booking_add (one transaction); the
 * calendar's callback then puts its cursor on the new visit.
 *
 * The resources field names the technicians, vans or bays the visit needs
 * (capacity.h); beside it the form proposes the starts of that day at
 * which all of them are free for the length typed (capacity_available),
 * and a taken slot is refused on Enter with the core's reason (which
 * resource, held by which visit), the next free starts after it (that day
 * or the days after) then proposed beside them.
 *
 * A customer name that matches nobody opens the new-customer form on Enter,
 * with the name typed; when it is posted the booking form names the new
 * customer and Enter books. The rules (naming customers and services, the
 * times, the booking itself) are the core's: booking_customers,
 * booking_services, visit_when_times, booking_add. The notes beside the
 * fields show what the core found while typing.
 *
 * Repeats (a pattern, or a rule typed in RRULE form) makes the booking a
 * recurring job instead (recurring_add, one customer): the rule and its
 * first days are shown beside the field while typing.
 *
 * Callers: view-calendar.c (a), view-dispatch.c (Enter on a free cell:
 * form_book_at, with its start and resource).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "booking.h"
#include "capacity.h"
#include "clock.h"
#include "customer.h"
#include "err.h"
#include "fmt.h"
#include "form.h"
#include "i18n.h"
#include "recurring.h"
#include "service.h"
#include "strbuf.h"
#include "text.h"
#include "views.h"
#include "visit.h"
#include "xalloc.h"

enum {
	B_CUSTOMER = 1,
	B_SERVICES,
	B_RESOURCES,
	B_DATE,
	B_START,
	B_LENGTH,
	B_END,
	B_OVERNIGHT,
	B_JOB,
	B_PLACE,
	B_NOTE,
	B_REPEATS,
	B_RULE,
	B_BILLING
};

static const char *const yes_no[] = {"no", "yes"};
static const char *const yes_no_labels[] = {N_("no"), N_("yes")};
static const char *const job_choices[] = {"new", "open"};
static const char *const job_labels[] = {N_("a new job"), N_("their open job")};
/* "no", then the patterns of recurring.h in their order */
static const char *const repeat_choices[] = {"no", "weekly", "fortnightly", "monthly",
                                             "monthly-nth"};
static const char *const repeat_labels[] = {N_("no"), N_("every week"), N_("every two weeks"),
                                            N_("every month, same date"),
                                            N_("every month, same weekday")};
static const char *const billing_choices[] = {"visit", "month"};
static const char *const billing_labels[] = {N_("an invoice per visit"), N_("one invoice a month")};

struct bookst {
	int64_t cust[BOOKING_MAX_CUSTOMERS], svc[BOOKING_MAX_SERVICES];
	int64_t res[CAPACITY_MAX_RESOURCES];
	size_t ncust, nsvc, nres;
	int64_t start, end;
	char address[420]; /* the first customer's, the place by default */
	form_book_done_fn done;
	void *done_arg;
};

/* The customers typed: names them beside the field; 0 or the core's code. */
static int read_customers(struct form *f, int k, int show)
{
	struct bookst *bs = f->arg;
	struct strbuf names = {0};
	int rc;

	bs->address[0] = '\0';
	rc = booking_customers(ui_db(), form_value(f, k), bs->cust, &bs->ncust, &names);
	if (rc == 0) {
		struct customer c;

		form_note(f, k, sb_cstr(&names));
		if (customer_get(ui_db(), bs->cust[0], &c) == 0) {
			snprintf(bs->address, sizeof bs->address, "%s", c.address ? c.address : "");
			customer_free(&c);
		}
	} else if (show) {
		form_note(f, k,
		          rc == FD_ENOTFOUND && !strchr(form_value(f, k), ';')
		              ? _("nobody matches: Enter adds a new customer")
		              : err_msg());
	}
	sb_free(&names);
	return rc;
}

/* The services typed: what they are and cost beside the field; the length
 * follows their minutes while the person has not typed one. */
static int read_services(struct form *f, int k, int show)
{
	struct bookst *bs = f->arg;
	struct strbuf info = {0};
	int64_t minutes = 0;
	int rc;

	rc = booking_services(ui_db(), form_value(f, k), bs->svc, &bs->nsvc, &info, &minutes);
	if (rc == 0) {
		int kl = form_find(f, B_LENGTH);

		form_note(f, k, bs->nsvc ? sb_cstr(&info) : NULL);
		if (!f->fields[kl].edited && minutes > 0) {
			char len[32];

			snprintf(len, sizeof len, "%lld:%02lld", (long long)(minutes / 60),
			         (long long)(minutes % 60));
			form_set(f, kl, len);
		}
	} else if (show) {
		form_note(f, k, err_msg());
	}
	sb_free(&info);
	return rc;
}

/* The most catalogue services offered under the services field. */
#define BOOK_COMPLETIONS 6

/* The catalogue's services whose name holds what is typed after the last
 * comma, gathered for the list under the field. */
struct svc_match {
	const char *part; /* what is being typed (not empty) */
	size_t partlen;
	int exact; /* a service has exactly that name: nothing to offer */
	int n;
	char *names[BOOK_COMPLETIONS], *labels[BOOK_COMPLETIONS];
};

static int match_service(const struct service *s, void *arg)
{
	struct svc_match *m = arg;
	char price[FMT_MONEY], label[400];

	if (!strcasecmp(s->name, m->part))
		m->exact = 1;
	if (m->n == BOOK_COMPLETIONS || !strcasestr(s->name, m->part))
		return 0;
	snprintf(label, sizeof label, _("%1$s  %2$s  %3$lld min"), s->name,
	         fmt_money_cur(s->price, s->currency, price), (long long)s->minutes);
	m->names[m->n] = xstrdup(s->name);
	m->labels[m->n++] = xstrdup(label);
	return 0;
}

/* Offer the services whose names hold the part being typed (after the
 * last comma) under field k, read from the catalogue (service_list); none
 * when that part is empty, a number or a name already whole. */
static void complete_services(struct form *f, int k)
{
	const char *t = form_value(f, k), *c = strrchr(t, ',');
	struct svc_match m = {0};
	struct strbuf pre = {0};
	const char *vals[BOOK_COMPLETIONS];
	int i;

	m.part = c ? c + 1 : t;
	m.part += strspn(m.part, " ");
	m.partlen = strlen(m.part);
	if (!m.partlen || strspn(m.part, "0123456789") == m.partlen) {
		form_complete(f, k, NULL, NULL, 0);
		return;
	}
	err_clear();
	if (service_list(ui_db(), 0, match_service, &m) || m.exact)
		m.n = 0;
	if (c)
		sb_printf(&pre, "%.*s, ", (int)(c - t), t);
	for (i = 0; i < m.n; i++) {
		char *v = xmalloc(pre.len + strlen(m.names[i]) + 1);

		sprintf(v, "%s%s", sb_cstr(&pre), m.names[i]);
		free(m.names[i]);
		m.names[i] = v;
		vals[i] = v;
	}
	form_complete(f, k, vals, (const char *const *)m.labels, m.n);
	for (i = 0; i < m.n; i++) {
		free(m.names[i]);
		free(m.labels[i]);
	}
	sb_free(&pre);
}

/* The times typed (the core's rule); the end shown beside the length. */
static int read_times(struct form *f, int *bad)
{
	struct bookst *bs = f->arg;
	struct visit_when w;

	w.date = form_value(f, form_find(f, B_DATE));
	w.start = form_value(f, form_find(f, B_START));
	w.end = form_value(f, form_find(f, B_END));
	w.length = form_value(f, form_find(f, B_LENGTH));
	w.overnight = !strcmp(form_value(f, form_find(f, B_OVERNIGHT)), "yes");
	return visit_when_times(&w, &bs->start, &bs->end, bad);
}

static void show_times(struct form *f)
{
	struct bookst *bs = f->arg;
	char when[64], e[32];

	if (read_times(f, NULL) == 0) {
		fmt_datetime(bs->end, e);
		snprintf(when, sizeof when, _("ends %s"), e);
		form_note(f, form_find(f, B_LENGTH), when);
	} else {
		form_note(f, form_find(f, B_LENGTH), NULL);
	}
}

/* The resources typed; 0 or the core's code. */
static int read_resources(struct form *f, int k)
{
	struct bookst *bs = f->arg;

	return capacity_resource_parse(ui_db(), form_value(f, k), bs->res, &bs->nres);
}

#define FREE_SHOWN 8 /* starts proposed beside the field */

struct free_starts {
	size_t need; /* resources that must all be free */
	int64_t start[512];
	size_t count[512], n;
};

/* Count each start once per resource free then: a start every named
 * resource has is free for the visit. */
static int free_cb(const struct cap_slot *s, void *arg)
{
	struct free_starts *fs = arg;
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (fs->start[i] == s->start_at) {
			fs->count[i]++;
			return 0;
		}
	if (fs->n < sizeof fs->start / sizeof fs->start[0]) {
		fs->start[fs->n] = s->start_at;
		fs->count[fs->n++] = 1;
	}
	return 0;
}

static int by_time(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Beside the resources: the day's starts at which all of them are free for
 * the length typed, or why none can be named. */
static void show_free(struct form *f)
{
	struct bookst *bs = f->arg;
	int k = form_find(f, B_RESOURCES);
	struct free_starts *fs;
	int64_t day, starts[FREE_SHOWN];
	struct strbuf note = {0};
	size_t i, n = 0;
	char hm[16];

	if (!*form_value(f, k)) {
		form_note(f, k, NULL);
		return;
	}
	if (read_resources(f, k)) {
		form_note(f, k, err_msg());
		return;
	}
	if (read_times(f, NULL) || !bs->nres) {
		form_note(f, k, NULL);
		return;
	}
	fs = xcalloc(1, sizeof *fs);
	fs->need = bs->nres;
	day = clock_day_start(bs->start);
	if (capacity_available(ui_db(), day, 1, (int)((bs->end - bs->start + 59) / 60),
	                       capacity_slot_minutes(), bs->res, bs->nres, free_cb, fs) == 0) {
		for (i = 0; i < fs->n; i++)
			if (fs->count[i] == fs->need && n < FREE_SHOWN)
				starts[n++] = fs->start[i];
		qsort(starts, n, sizeof starts[0], by_time);
		for (i = 0; i < n; i++) {
			clock_format_local(starts[i], "%H:%M", hm, sizeof hm);
			sb_printf(&note, "%s%s", i ? " " : "", hm);
		}
		if (n)
			form_note(f, k, sb_cstr(&note));
		else
			form_note(f, k, _("no free start that day for this length"));
	} else {
		form_note(f, k, err_msg());
	}
	sb_free(&note);
	free(fs);
}

#define NEXT_DAYS 7 /* days looked ahead for the next free starts */

/* After a taken slot is refused: beside the resources, the next starts at
 * which all of them are free for the length, after the one asked for (that
 * day, else the days after it, a week at most), each new day with its
 * date. */
static void show_next(struct form *f)
{
	struct bookst *bs = f->arg;
	int k = form_find(f, B_RESOURCES), d;
	int minutes = (int)((bs->end - bs->start + 59) / 60);
	struct free_starts *fs = xcalloc(1, sizeof *fs);
	int64_t day = clock_day_start(bs->start), starts[FREE_SHOWN], got[512], shown = 0;
	struct strbuf list = {0}, note = {0};
	size_t i, m, n = 0;
	char buf[48];

	for (d = 0; d < NEXT_DAYS && n < FREE_SHOWN; d++, day = clock_add_days(day, 1)) {
		memset(fs, 0, sizeof *fs);
		fs->need = bs->nres;
		if (capacity_available(ui_db(), day, 1, minutes, capacity_slot_minutes(), bs->res,
		                       bs->nres, free_cb, fs)) {
			form_note(f, k, err_msg());
			goto out;
		}
		for (i = m = 0; i < fs->n; i++)
			if (fs->count[i] == fs->need && fs->start[i] > bs->start)
				got[m++] = fs->start[i];
		qsort(got, m, sizeof got[0], by_time);
		for (i = 0; i < m && n < FREE_SHOWN; i++)
			starts[n++] = got[i];
	}
	for (i = 0; i < n; i++) {
		int new_day = clock_day_start(starts[i]) != shown;

		clock_format_local(starts[i], new_day ? "%a %m-%d %H:%M" : "%H:%M", buf,
		                   sizeof buf);
		sb_printf(&list, "%s%s", i ? " " : "", buf);
		shown = clock_day_start(starts[i]);
	}
	if (n)
		sb_printf(&note, _("next free: %s"), sb_cstr(&list));
	else
		sb_printf(&note, _("no free start in the next %d days for this length"), NEXT_DAYS);
	form_note(f, k, sb_cstr(&note));
out:
	sb_free(&list);
	sb_free(&note);
	free(fs);
}

/* The rule the form repeats by (the rule typed, else the pattern chosen,
 * from the date) in rule; 0 with "" when the visit does not repeat, else 0
 * or the core's refusal. */
static int read_rule(struct form *f, char rule[RECURRING_RULE_MAX + 1])
{
	const char *typed = form_value(f, form_find(f, B_RULE));
	const char *pat = form_value(f, form_find(f, B_REPEATS));
	size_t p;

	*rule = '\0';
	if (*typed)
		return recurring_rule_check(typed, rule, RECURRING_RULE_MAX + 1);
	for (p = 1; p < sizeof repeat_choices / sizeof *repeat_choices; p++)
		if (!strcmp(pat, repeat_choices[p]))
			return recurring_rule_named((enum recurring_pattern)(p - 1),
			                            form_value(f, form_find(f, B_DATE)), rule,
			                            RECURRING_RULE_MAX + 1);
	return 0;
}

struct first_days {
	struct strbuf *sb;
	int n;
};

static int first_day_cb(const char *day, void *arg)
{
	struct first_days *fd = arg;

	sb_printf(fd->sb, "%s%s", fd->n ? ", " : "", day);
	return ++fd->n >= 4;
}

/* Beside the repeats: the rule and its first days, or why not. */
static void show_rule(struct form *f)
{
	char rule[RECURRING_RULE_MAX + 1];
	struct strbuf sb = {0};
	struct first_days fd = {&sb, 0};
	int k = form_find(f, B_REPEATS);

	if (read_rule(f, rule)) {
		form_note(f, k, err_msg());
		return;
	}
	if (!*rule) {
		form_note(f, k, NULL);
		return;
	}
	sb_printf(&sb, "%s: ", rule);
	if (recurring_expand(rule, form_value(f, form_find(f, B_DATE)), NULL, NULL, NULL,
	                     first_day_cb, &fd) < 0)
		form_note(f, k, err_msg());
	else
		form_note(f, k, sb_cstr(&sb));
	sb_free(&sb);
}

static void book_changed(struct form *f, int i)
{
	struct bookst *bs = f->arg;
	int id = i >= 0 ? f->fields[i].id : 0;

	if (id == B_CUSTOMER) {
		form_note(f, i, NULL);
		if (strlen(form_value(f, i)) >= 2 || strspn(form_value(f, i), "0123456789"))
			read_customers(f, i, 1);
		if (*bs->address) {
			char note[480];

			snprintf(note, sizeof note, _("empty: %s"), bs->address);
			form_note(f, form_find(f, B_PLACE), note);
		} else {
			form_note(f, form_find(f, B_PLACE), NULL);
		}
	} else if (id == B_SERVICES) {
		read_services(f, i, 1);
		complete_services(f, i);
	}
	show_times(f);
	show_free(f);
	show_rule(f);
}

/* Enter on a name that matches nobody: the new customer's form first. */
static void customer_added(int64_t id, void *arg)
{
	struct form *f = arg;
	char num[24];
	int k = form_find(f, B_CUSTOMER);

	snprintf(num, sizeof num, "%lld", (long long)id);
	form_set(f, k, num);
	book_changed(f, k);
	/* the customer is found: on to the services, unless they are typed */
	k = form_find(f, B_SERVICES);
	if (f->cur == form_find(f, B_CUSTOMER) && !*form_value(f, k)) {
		f->cur = k;
		f->fields[k].fresh = 1;
	}
}

static struct view *book_push(struct form *f)
{
	int k = form_find(f, B_CUSTOMER);
	const char *t = form_value(f, k);

	if (!*t || strchr(t, ';') || read_customers(f, k, 0) != FD_ENOTFOUND)
		return NULL;
	return form_customer_new(t, customer_added, f);
}

static int book_check(struct form *f)
{
	static const int when_field[] = {0, B_DATE, B_START, B_END, B_LENGTH};
	char rule[RECURRING_RULE_MAX + 1];
	int errors = 0, bad = 0, k;

	k = form_find(f, B_CUSTOMER);
	if (read_customers(f, k, 0)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	}
	k = form_find(f, B_SERVICES);
	if (read_services(f, k, 0)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	}
	if (read_times(f, &bad)) {
		k = form_find(f, when_field[bad >= 1 && bad <= 4 ? bad : VISIT_WHEN_START]);
		form_error(f, k, "%s", err_msg());
		errors++;
	}
	k = form_find(f, B_RESOURCES);
	if (read_resources(f, k)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	}
	k = form_find(f, B_PLACE);
	if (text_check(form_value(f, k), _("the place"), 400, 1)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	}
	k = form_find(f, B_NOTE);
	if (text_check(form_value(f, k), _("the note"), 2000, 1)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	}
	if (read_rule(f, rule)) {
		k = form_find(f, *form_value(f, form_find(f, B_RULE)) ? B_RULE : B_REPEATS);
		form_error(f, k, "%s", err_msg());
		errors++;
	} else if (*rule && ((struct bookst *)f->arg)->ncust > 1) {
		form_error(f, form_find(f, B_CUSTOMER), "%s",
		           _("a visit that repeats is for one customer"));
		errors++;
	}
	return errors;
}

struct first_visit {
	int64_t id, start;
};

static int first_visit_cb(const struct recurring_occ *o, void *arg)
{
	struct first_visit *fv = arg;

	if (!o->appt_id)
		return 0;
	fv->id = o->appt_id;
	fv->start = o->start_at;
	return 1;
}

/* A visit that repeats: the recurring job, its visits made at once. */
static int repeat_post(struct form *f, const char *rule)
{
	struct bookst *bs = f->arg;
	struct recurring_input in = {0};
	struct first_visit fv = {0, 0};
	struct recurring r;
	const char *place = form_value(f, form_find(f, B_PLACE));
	char hm[8];
	int64_t id;
	int rc;

	clock_format_local(bs->start, "%H:%M", hm, sizeof hm);
	in.customer_id = bs->cust[0];
	in.rrule = rule;
	in.from = form_value(f, form_find(f, B_DATE));
	in.start_minute = atoi(hm) * 60 + atoi(hm + 3);
	in.length_minutes = (int)((bs->end - bs->start) / 60);
	in.location = *place ? place : NULL;
	in.note = form_value(f, form_find(f, B_NOTE));
	in.services = bs->svc;
	in.nservices = bs->nsvc;
	in.resources = bs->res;
	in.nresources = bs->nres;
	in.billing = form_value(f, form_find(f, B_BILLING));
	if ((rc = recurring_add(ui_db(), &in, &id)))
		return rc;
	if (recurring_occurrences(ui_db(), id, first_visit_cb, &fv) >= 0 && fv.id) {
		f->posted_id = fv.id;
		bs->start = fv.start;
	}
	if (recurring_get(ui_db(), id, &r) == 0) {
		form_receipt(f, _("Recurring job %1$lld added: %2$lld visit(s) made up to %3$s."),
		             (long long)id, (long long)(r.made + r.moved), r.made_to);
		if (r.skipped)
			form_receipt(f,
			             _("! %lld day(s) skipped: a resource is off or taken then."),
			             (long long)r.skipped);
		recurring_free(&r);
	}
	return 0;
}

static int book_post(struct form *f)
{
	struct bookst *bs = f->arg;
	struct booking_input in = {0};
	struct booking_result res;
	const char *place = form_value(f, form_find(f, B_PLACE));
	char when[32];
	char rule[RECURRING_RULE_MAX + 1];
	size_t i;
	int rc;

	if ((rc = read_rule(f, rule)))
		return rc;
	if (*rule)
		return repeat_post(f, rule);
	in.start_at = bs->start;
	in.end_at = bs->end;
	in.location = *place ? place : NULL;
	in.note = form_value(f, form_find(f, B_NOTE));
	in.customers = bs->cust;
	in.ncustomers = bs->ncust;
	in.services = bs->svc;
	in.nservices = bs->nsvc;
	in.use_open_job = !strcmp(form_value(f, form_find(f, B_JOB)), "open");
	in.resources = bs->res;
	in.nresources = bs->nres;
	if ((rc = booking_add(ui_db(), &in, &res))) {
		/* a taken slot: the reason stays on the form, and the next free
		 * starts are proposed beside the resources */
		if (rc == FD_ECONFLICT && bs->nres) {
			char *why = xstrdup(err_msg());

			show_next(f);
			err_set(rc, "%s", why);
			free(why);
		}
		return rc;
	}
	f->posted_id = res.appt_id;
	form_receipt(f, _("Visit %1$lld booked for %2$s."), (long long)res.appt_id,
	             fmt_datetime(bs->start, when));
	for (i = 0; i < res.njobs; i++)
		form_receipt(f,
		             res.job_new[i] ? _("New job %lld, with the services as line items.")
		                            : _("The services were added to open job %lld."),
		             (long long)res.job_ids[i]);
	return 0;
}

static struct view *book_next(struct form *f)
{
	struct bookst *bs = f->arg;

	if (bs->done && f->posted_id)
		bs->done(f->posted_id, bs->start, bs->done_arg);
	return NULL;
}

static void book_free(struct form *f)
{
	free(f->arg);
}

static const struct form_spec book_spec = {
    .name = "book",
    .check = book_check,
    .post = book_post,
    .changed = book_changed,
    .push = book_push,
    .next = book_next,
    .free = book_free,
    .help = N_("Type the customer's name, phone or number (several customers at one address: "
               "separate them with ;); a name that matches nobody opens the new-customer form "
               "on Enter. Services are the catalogue's names or numbers, separated by commas; "
               "each becomes a line item. Resources are the technicians, vans or bays the "
               "visit needs, separated by commas; the free starts of that day are shown beside "
               "them, and a taken slot is refused with the reason. The length (1:30 or +90m) "
               "follows the services' "
               "minutes; an end, if typed, is used instead, and an end at or before the start "
               "needs 'Overnight'. The place is the customer's address unless typed. "
               "Repeats makes a recurring job from this visit on (every week, two weeks, "
               "month) or by a rule typed in iCalendar's RRULE form; its visits are made "
               "ahead, and billed per visit or once a month."),
};

struct view *form_book_new(int64_t day_start, form_book_done_fn done, void *arg)
{
	return form_book_at(day_start, NULL, done, arg);
}

struct view *form_book_at(int64_t start_at, const char *resource, form_book_done_fn done, void *arg)
{
	struct bookst *bs;
	struct form *f;
	char d[32], hm[16] = "09:00";
	int k;

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	bs = xcalloc(1, sizeof *bs);
	bs->done = done;
	bs->done_arg = arg;
	f = form_new(&book_spec, bs, _("Book a visit"));
	form_add(f, F_TEXT, B_CUSTOMER, _("Customer"), NULL);
	form_add(f, F_TEXT, B_SERVICES, _("Services"), NULL);
	if (start_at != clock_day_start(start_at))
		clock_format_local(start_at, "%H:%M", hm, sizeof hm);
	form_add(f, F_TEXT, B_DATE, _("Date"), fmt_date(start_at, d));
	form_add(f, F_TEXT, B_START, _("Starts (HH:MM)"), hm);
	form_add(f, F_TEXT, B_LENGTH, _("Length (1:30)"), "1:00");
	form_add(f, F_TEXT, B_END, _("Or ends (HH:MM)"), NULL);
	form_add_choice(f, B_OVERNIGHT, _("Overnight"), yes_no, yes_no_labels, 2, "no");
	form_add(f, F_TEXT, B_RESOURCES, _("Resources"), resource);
	form_add_choice(f, B_JOB, _("Services go on"), job_choices, job_labels, 2, "new");
	form_add(f, F_TEXT, B_PLACE, _("Place"), NULL);
	form_add(f, F_TEXT, B_NOTE, _("Note"), NULL);
	form_add_choice(f, B_REPEATS, _("Repeats"), repeat_choices, repeat_labels,
	                sizeof repeat_choices / sizeof *repeat_choices, "no");
	form_add(f, F_TEXT, B_RULE, _("Or RRULE"), NULL);
	form_add_choice(f, B_BILLING, _("Billing"), billing_choices, billing_labels, 2, "visit");
	k = form_find(f, B_CUSTOMER);
	f->fields[k].width = 26;
	f->fields[form_find(f, B_SERVICES)].width = 26;
	f->fields[form_find(f, B_RESOURCES)].width = 26;
	f->fields[form_find(f, B_DATE)].width = 12;
	f->fields[form_find(f, B_START)].width = 8;
	f->fields[form_find(f, B_LENGTH)].width = 8;
	f->fields[form_find(f, B_END)].width = 8;
	f->fields[form_find(f, B_PLACE)].width = 40;
	f->fields[form_find(f, B_NOTE)].width = 40;
	f->fields[form_find(f, B_RULE)].width = 40;
	show_times(f);
	if (resource)
		show_free(f);
	return form_view(f);
}
