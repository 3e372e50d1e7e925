/*
 * cli-work.c - `frontdesk job|appt|link|item ...`: jobs, visits, which jobs
 * a visit works on, and the line items of a job (see job.h, visit.h, item.h).
 *
 * Times are typed and shown in shop time ("YYYY-MM-DD HH:MM"); JSON carries
 * UTC. Amounts are typed and shown in the job's currency; JSON carries minor
 * units. A value that cannot be read (date, amount, quantity) is a refusal
 * (exit 1) like any other bad input; a missing or malformed id is bad usage
 * (exit 2).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "booking.h"
#include "capacity.h"
#include "cli-util.h"
#include "clock.h"
#include "commission.h"
#include "err.h"
#include "esign.h"
#include "i18n.h"
#include "item.h"
#include "job.h"
#include "money.h"
#include "strbuf.h"
#include "visit.h"
#include "xalloc.h"

/* ---------------------------------------------------------------- shared */

#define TIME_FMT "%Y-%m-%d %H:%M"

/* "2026-12-01 09:00-11:00", or with the end's date when it is another day. */
static void fmt_span(int64_t start, int64_t end, char *buf, size_t n)
{
	char s[32], e[32], sd[16], ed[16];

	clock_format_local(start, TIME_FMT, s, sizeof s);
	clock_format_local(start, "%Y-%m-%d", sd, sizeof sd);
	clock_format_local(end, "%Y-%m-%d", ed, sizeof ed);
	clock_format_local(end, strcmp(sd, ed) ? TIME_FMT : "%H:%M", e, sizeof e);
	snprintf(buf, n, "%s-%s", s, e);
}

static const char *fmt_money(int64_t v, const char *code, char buf[MONEY_BUFSZ])
{
	return money_text(v, code, 0, buf);
}

/* A time typed in shop time; a refusal (exit 1) when it is not one. */
static int parse_time(const char *text, int64_t *out)
{
	int rc = clock_parse_local(text, out);

	return rc ? cli_refused(rc) : 0;
}

/* An amount of the currency code; a refusal that names the option. */
static int parse_amount(const char *opt, const char *text, const char *code, int64_t *out)
{
	int rc = money_parse(text, currency_find(code), out);
	char *why;

	if (!rc)
		return 0;
	why = xstrdup(err_msg());
	err_set(rc, _("bad %s '%.40s': %s"), opt, text, why);
	free(why);
	return cli_refused(rc);
}

static int job_show_one(struct cli *c, int64_t id);
static int visit_show_one(struct cli *c, int64_t id);

/* `job|appt status ID STATUS [--reason R]`, or with status given, `job|appt
 * cancel ID [--reason R]`. */
static int status_cmd(struct cli *c, const struct cli_args *a, int job, const char *status)
{
	const char *reason = cli_arg_get(a, "reason");
	int rc;

	if (!status)
		status = a->pos[1];
	rc = job ? job_set_status(c->db, a->id, status, reason)
	         : visit_set_status(c->db, a->id, status, reason);
	if (rc)
		return cli_refused(rc);
	if (c->json)
		return job ? job_show_one(c, a->id) : visit_show_one(c, a->id);
	printf(job ? _("Job %lld is now %s.\n") : _("Visit %lld is now %s.\n"), (long long)a->id,
	       status);
	return CLI_OK;
}

#define REASON_OPT                                                                                 \
	{                                                                                          \
		"reason", CLI_VALUE, N_("why (kept in the status history)"), NULL, NULL            \
	}

/* ---------------------------------------------------------------- JSON */

static cJSON *job_json(const struct job *j)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", j->id);
	cli_json_int(o, "customer_id", j->customer_id);
	cli_json_str(o, "customer_name", j->customer_name);
	cli_json_str(o, "title", j->title);
	cli_json_str(o, "status", j->status);
	cli_json_str(o, "currency", j->currency);
	cli_json_str(o, "note", j->note);
	cli_json_time(o, "created_at", j->created_at);
	cli_json_time(o, "updated_at", j->updated_at);
	return o;
}

static cJSON *visit_json(const struct visit *a)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", a->id);
	cli_json_time(o, "start_at", a->start_at);
	cli_json_time(o, "end_at", a->end_at);
	cli_json_str(o, "location", a->location);
	cli_json_str(o, "status", a->status);
	cli_json_str(o, "note", a->note);
	cli_json_str(o, "customers", a->customers);
	cli_json_str(o, "services", a->services);
	cli_json_int(o, "est_minutes", a->est_minutes);
	cli_json_time(o, "created_at", a->created_at);
	cli_json_time(o, "updated_at", a->updated_at);
	return o;
}

static cJSON *link_json(const struct link *l)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", l->id);
	cli_json_int(o, "appt_id", l->appt_id);
	cli_json_int(o, "job_id", l->job_id);
	cli_json_int(o, "est_minutes", l->est_minutes);
	cli_json_str(o, "job_title", l->job_title);
	cli_json_int(o, "customer_id", l->customer_id);
	cli_json_str(o, "customer_name", l->customer_name);
	cli_json_time(o, "start_at", l->start_at);
	cli_json_time(o, "end_at", l->end_at);
	cli_json_str(o, "appt_status", l->appt_status);
	return o;
}

static cJSON *item_json(const struct line_item *li)
{
	cJSON *o = cJSON_CreateObject();
	char qty[32];

	qty_format(li->qty_milli, qty, sizeof qty);
	cli_json_int(o, "id", li->id);
	cli_json_int(o, "job_id", li->job_id);
	cli_json_str(o, "kind", li->kind);
	cli_json_str(o, "description", li->description);
	cli_json_str(o, "qty", qty);
	cli_json_int(o, "qty_milli", li->qty_milli);
	cli_json_int(o, "unit_price", li->unit_price);
	cli_json_int(o, "amount", li->amount);
	cli_json_str(o, "currency", li->currency);
	cli_json_time(o, "created_at", li->created_at);
	cli_json_time(o, "updated_at", li->updated_at);
	return o;
}

/* ---------------------------------------------------------------- text rows */

static void visit_line(const struct visit *a)
{
	char span[64];

	fmt_span(a->start_at, a->end_at, span, sizeof span);
	printf("%6lld  %s  %-11s  ", (long long)a->id, span, a->status);
	if (*a->customers) {
		cli_puts_safe(a->customers);
		fputs(" (", stdout);
		cli_puts_safe(a->services);
		putchar(')');
	} else {
		fputs(_("(no job yet)"), stdout);
	}
	if (a->location) {
		fputs("  @ ", stdout);
		cli_puts_safe(a->location);
	}
	putchar('\n');
}

static void item_line(const struct line_item *li)
{
	char qty[32], price[MONEY_BUFSZ], amount[MONEY_BUFSZ];

	qty_format(li->qty_milli, qty, sizeof qty);
	printf("%6lld  %-8s  ", (long long)li->id, li->kind);
	cli_puts_safe(li->description);
	printf("  %s x %s = %s %s\n", qty, fmt_money(li->unit_price, li->currency, price),
	       fmt_money(li->amount, li->currency, amount), li->currency);
}

/* Collects nested rows of a show: JSON into arr, or text lines. */
struct rows {
	struct cli *c;
	cJSON *arr;
	int64_t total;
	int overflow;
};

static int link_of_visit_row(const struct link *l, void *arg)
{
	struct rows *r = arg;

	if (r->c->json) {
		cJSON_AddItemToArray(r->arr, link_json(l));
		return 0;
	}
	printf(_("  job %lld  %lld min  "), (long long)l->job_id, (long long)l->est_minutes);
	cli_puts_safe(l->job_title);
	fputs(" - ", stdout);
	cli_puts_safe(l->customer_name);
	putchar('\n');
	return 0;
}

static int link_of_job_row(const struct link *l, void *arg)
{
	struct rows *r = arg;
	char span[64];

	if (r->c->json) {
		cJSON_AddItemToArray(r->arr, link_json(l));
		return 0;
	}
	fmt_span(l->start_at, l->end_at, span, sizeof span);
	printf(_("  visit %lld  %s  %s  %lld min\n"), (long long)l->appt_id, span, l->appt_status,
	       (long long)l->est_minutes);
	return 0;
}

static int item_of_job_row(const struct line_item *li, void *arg)
{
	struct rows *r = arg;

	if (money_add(r->total, li->amount, &r->total))
		r->overflow = 1;
	if (r->c->json)
		cJSON_AddItemToArray(r->arr, item_json(li));
	else
		item_line(li);
	return 0;
}

/* ---------------------------------------------------------------- job */

#define JOB_OPTS                                                                                   \
	{"title", CLI_VALUE, N_("what is to be done"), NULL, NULL},                                \
	    {"currency", CLI_VALUE, N_("ISO 4217 code, e.g. USD (default: config)"), NULL, NULL},  \
	{                                                                                          \
		"note", CLI_VALUE, N_("a note for staff"), NULL, NULL                              \
	}

static int job_show_one(struct cli *c, int64_t id)
{
	struct rows visits = {c, NULL, 0, 0}, items = {c, NULL, 0, 0};
	struct strbuf sb = {0};
	char total[MONEY_BUFSZ];
	cJSON *o = NULL;
	struct job j;
	char sig[16] = "";
	int rc = job_get(cli_db(c), id, &j);

	if (rc)
		return cli_refused(rc);
	/* where the signed authorisation stands ("authorised"; none: nothing shown) */
	if ((rc = esign_job_state(c->db, id, sig, NULL)) != 0) {
		job_free(&j);
		return cli_refused(rc);
	}
	if (c->json) {
		o = job_json(&j);
		if (*sig)
			cli_json_str(o, "signature", sig);
		visits.arr = cJSON_AddArrayToObject(o, "visits");
		items.arr = cJSON_AddArrayToObject(o, "items");
	} else {
		printf("%s: %lld\n", _("Job"), (long long)j.id);
		sb_printf(&sb, "%s (%lld)", j.customer_name, (long long)j.customer_id);
		cli_field(_("Customer"), sb_cstr(&sb));
		cli_field(_("Title"), j.title);
		cli_field(_("Status"), j.status);
		cli_field(_("Currency"), j.currency);
		cli_field(_("Note"), j.note);
		if (*sig)
			cli_field(_("Signature"), sig);
		printf("%s:\n", _("Visits"));
	}
	rc = link_list(c->db, 0, id, link_of_job_row, &visits);
	if (!rc && !c->json)
		printf("%s:\n", _("Line items"));
	if (!rc)
		rc = item_list(c->db, id, item_of_job_row, &items);
	if (rc) {
		cJSON_Delete(o);
	} else if (c->json) {
		if (items.overflow)
			cJSON_AddNullToObject(o, "total");
		else
			cli_json_int(o, "total", items.total);
		cli_print_json(o);
	} else if (items.overflow) {
		printf("%s: %s\n", _("Total"), _("too large to show"));
	} else {
		printf("%s: %s %s\n", _("Total"), fmt_money(items.total, j.currency, total),
		       j.currency);
	}
	sb_free(&sb);
	job_free(&j);
	return rc ? cli_refused(rc) : CLI_OK;
}

static int job_add_cmd(struct cli *c, const struct cli_args *a)
{
	struct job_input in = {0};
	int rc;
	int64_t id;

	in.customer_id = cli_arg_id(a, "customer");
	in.title = cli_arg_get(a, "title");
	in.currency = cli_arg_get(a, "currency");
	in.note = cli_arg_get(a, "note");
	if ((rc = job_add(c->db, &in, &id)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Job %lld added.\n"), (long long)id);
		return CLI_OK;
	}
	return job_show_one(c, id);
}

static int job_list_row(const struct job *j, void *arg)
{
	struct cli *c = arg;

	if (c->json) {
		cli_list_add(c, job_json(j));
		return 0;
	}
	printf("%6lld  %-11s  %s  ", (long long)j->id, j->status, j->currency);
	cli_puts_safe(j->customer_name);
	fputs(": ", stdout);
	cli_puts_safe(j->title);
	putchar('\n');
	return 0;
}

static int job_list_cmd(struct cli *c, const struct cli_args *a)
{
	cli_list_begin(c, "jobs");
	return cli_list_end(c, job_list(c->db, cli_arg_id(a, "customer"), job_list_row, c));
}

static int job_show_cmd(struct cli *c, const struct cli_args *a)
{
	return job_show_one(c, a->id);
}

static int job_edit_cmd(struct cli *c, const struct cli_args *a)
{
	struct job_input in = {0};
	int rc;

	in.title = cli_arg_get(a, "title");
	in.currency = cli_arg_get(a, "currency");
	in.note = cli_arg_get(a, "note");
	if ((rc = job_edit(c->db, a->id, &in)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Job %lld changed.\n"), (long long)a->id);
		return CLI_OK;
	}
	return job_show_one(c, a->id);
}

static int job_status_cmd(struct cli *c, const struct cli_args *a)
{
	return status_cmd(c, a, 1, NULL);
}

static int job_cancel_cmd(struct cli *c, const struct cli_args *a)
{
	return status_cmd(c, a, 1, "cancelled");
}

#define ID_CMD(what) .max_pos = 1, .id = what, .db = CLI_DB_OPEN

const struct cli_entry cli_job_cmds[] = {
    {"add", NULL, "--customer ID --title T [...]",
     "--customer ID --title T [--currency C] [--note N]", N_("add a job for a customer"),
     .opts = {{"customer", CLI_ID, N_("the customer's id"), N_("the customer id"),
               N_("--customer is required")},
              {"title", CLI_VALUE, N_("what is to be done"), NULL, N_("--title is required")},
              {"currency", CLI_VALUE, N_("ISO 4217 code, e.g. USD (default: config)"), NULL, NULL},
              {"note", CLI_VALUE, N_("a note for staff"), NULL, NULL}},
     .db = CLI_DB_OPEN, .run = job_add_cmd},
    {"list", NULL, "[--customer ID]", NULL, N_("list jobs, newest first"),
     .opts = {{"customer", CLI_ID, N_("only the jobs of this customer"), N_("the customer id"),
               NULL}},
     .db = CLI_DB_OPEN, .run = job_list_cmd},
    {"show", NULL, "ID", NULL, N_("show a job with its visits and line items"),
     ID_CMD(N_("the job id")), .run = job_show_cmd},
    {"edit", NULL, "ID [--title T ...]", "ID [--title T] [--currency C] [--note N]",
     N_("change title, note or currency"), .opts = {JOB_OPTS}, ID_CMD(N_("the job id")),
     .run = job_edit_cmd},
    {"status", NULL, "ID STATUS [--reason R]", NULL, N_("open, in_progress, done or cancelled"),
     .opts = {REASON_OPT}, .min_pos = 2, .missing = N_("the new status is missing"), .max_pos = 2,
     .id = N_("the job id"), .db = CLI_DB_OPEN, .run = job_status_cmd},
    {"cancel", NULL, "ID [--reason R]", NULL, N_("cancel a job"), .opts = {REASON_OPT},
     ID_CMD(N_("the job id")), .run = job_cancel_cmd},
    {NULL},
};

/* ---------------------------------------------------------------- appt */

#define VISIT_OPTS                                                                                 \
	{"start", CLI_VALUE, N_("start, shop time: \"YYYY-MM-DD HH:MM\""), NULL, NULL},            \
	    {"end", CLI_VALUE,                                                                     \
	     N_("end, shop time: \"YYYY-MM-DD HH:MM\", or HH:MM on the start's day"), NULL, NULL}, \
	    {"length", CLI_VALUE, N_("the length instead of an end: 1:30 or +90m"), NULL, NULL},   \
	    {"overnight", CLI_FLAG,                                                                \
	     N_("an --end HH:MM at or before the start is on the next day"), NULL, NULL},          \
	    {"location", CLI_VALUE, N_("where the visit happens"), NULL, NULL},                    \
	{                                                                                          \
		"note", CLI_VALUE, N_("a note for staff"), NULL, NULL                              \
	}

/* The times the options give into in (left 0 when not given): --start and
 * --end as full times, or --end HH:MM / --length against the start (given,
 * else old_start; 0: none known yet, only the text is checked). The rules
 * are the core's (visit_when_times, visit_parse_length). */
static int visit_times_opts(const struct cli_args *a, int64_t old_start, struct visit_input *in)
{
	const char *start = cli_arg_get(a, "start"), *end = cli_arg_get(a, "end");
	const char *length = cli_arg_get(a, "length");
	int64_t base, len, dummy;
	char date[16], hm[8];
	struct visit_when w = {0};
	int rc;

	if (end && length)
		return cli_usage(a->cmd, _("give --end or --length, not both"));
	if (cli_arg_flag(a, "overnight") && !(end && strlen(end) <= 5))
		return cli_usage(a->cmd, _("--overnight goes with an --end HH:MM"));
	if (start && (rc = parse_time(start, &in->start_at)))
		return rc;
	base = in->start_at ? in->start_at : old_start;
	if (length) {
		if ((rc = visit_parse_length(length, &len)))
			return cli_refused(rc);
		if (base)
			in->end_at = base + len;
		return 0;
	}
	if (!end)
		return 0;
	if (strlen(end) > 5)
		return parse_time(end, &in->end_at);
	if (!base) {
		/* checked before the database opens: the time only */
		w.date = "2000-01-01";
		w.start = "00:00";
		w.end = end;
		w.overnight = 1;
		return (rc = visit_when_times(&w, &dummy, &dummy, NULL)) ? cli_refused(rc) : 0;
	}
	clock_format_local(base, "%Y-%m-%d", date, sizeof date);
	clock_format_local(base, "%H:%M", hm, sizeof hm);
	w.date = date;
	w.start = hm;
	w.end = end;
	w.overnight = cli_arg_flag(a, "overnight");
	if ((rc = visit_when_times(&w, &dummy, &in->end_at, NULL)))
		return cli_refused(rc);
	return 0;
}

/* The visit the options give into in (times left 0 when not given). */
static int visit_input(const struct cli_args *a, int64_t old_start, struct visit_input *in)
{
	in->location = cli_arg_get(a, "location");
	in->note = cli_arg_get(a, "note");
	return visit_times_opts(a, old_start, in);
}

/* The resources a visit holds: names joined with ", " or a JSON array. */
struct held {
	struct strbuf names;
	cJSON *arr;
};

static int held_row(const struct resource *r, void *arg)
{
	struct held *h = arg;

	if (h->arr) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "id", r->id);
		cli_json_str(o, "name", r->name);
		cli_json_str(o, "kind", r->kind);
		cJSON_AddItemToArray(h->arr, o);
	}
	sb_printf(&h->names, "%s%s", h->names.len ? ", " : "", r->name);
	return 0;
}

static int visit_show_one(struct cli *c, int64_t id)
{
	struct held held = {{0}, NULL};
	struct rows links = {c, NULL, 0, 0};
	char span[64];
	cJSON *o = NULL;
	struct visit a;
	int rc = visit_get(cli_db(c), id, &a);

	if (rc)
		return cli_refused(rc);
	if (c->json) {
		o = visit_json(&a);
		held.arr = cJSON_AddArrayToObject(o, "resources");
		if ((rc = capacity_visit_resources(c->db, id, held_row, &held))) {
			cJSON_Delete(o);
			visit_free(&a);
			sb_free(&held.names);
			return cli_refused(rc);
		}
		links.arr = cJSON_AddArrayToObject(o, "links");
	} else {
		fmt_span(a.start_at, a.end_at, span, sizeof span);
		printf("%s: %lld\n", _("Visit"), (long long)a.id);
		cli_field(_("When"), span);
		cli_field(_("Status"), a.status);
		cli_field(_("Location"), a.location);
		cli_field(_("Customers"), *a.customers ? a.customers : NULL);
		cli_field(_("Services"), *a.services ? a.services : NULL);
		printf("%s: %lld\n", _("Estimated minutes"), (long long)a.est_minutes);
		cli_field(_("Note"), a.note);
		if (capacity_visit_resources(c->db, id, held_row, &held) == 0 && held.names.len)
			cli_field(_("Resources"), sb_cstr(&held.names));
		printf("%s:\n", _("Jobs"));
	}
	sb_free(&held.names);
	rc = link_list(c->db, id, 0, link_of_visit_row, &links);
	if (rc)
		cJSON_Delete(o);
	else if (c->json)
		cli_print_json(o);
	visit_free(&a);
	return rc ? cli_refused(rc) : CLI_OK;
}

/* visit add and edit: the times must be ones (before the database opens). */
static int visit_check(struct cli *c, const struct cli_args *a)
{
	struct visit_input in = {0};

	(void)c;
	return visit_input(a, 0, &in);
}

static int visit_add_check(struct cli *c, const struct cli_args *a)
{
	if (!cli_arg_get(a, "start") || (!cli_arg_get(a, "end") && !cli_arg_get(a, "length")))
		return cli_usage(a->cmd, _("--start and --end (or --length) are required"));
	return visit_check(c, a);
}

static int visit_add_cmd(struct cli *c, const struct cli_args *a)
{
	struct visit_input in = {0};
	int rc;
	int64_t id;

	if ((rc = visit_input(a, 0, &in)))
		return rc;
	if ((rc = visit_add(c->db, &in, &id)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Visit %lld added.\n"), (long long)id);
		return CLI_OK;
	}
	return visit_show_one(c, id);
}

static int visit_list_row(const struct visit *a, void *arg)
{
	struct cli *c = arg;

	if (c->json)
		cli_list_add(c, visit_json(a));
	else
		visit_line(a);
	return 0;
}

/* The days visit list shows: from (a day's start) and how many. */
static int list_days(const struct cli_args *a, int64_t *from, long *days)
{
	const char *from_text = cli_arg_get(a, "from"), *days_text = cli_arg_get(a, "days");
	char *end;

	*days = 1;
	if (days_text) {
		*days = strtol(days_text, &end, 10);
		if (!*days_text || *end || *days < 1 || *days > 366)
			return cli_usage(a->cmd, _("--days must be a number from 1 to 366"));
	}
	if (!from_text) {
		*from = clock_day_start(clock_now());
		return 0;
	}
	return parse_time(from_text, from);
}

static int visit_list_check(struct cli *c, const struct cli_args *a)
{
	int64_t from;
	long days;

	(void)c;
	return list_days(a, &from, &days);
}

static int visit_list_cmd(struct cli *c, const struct cli_args *a)
{
	int64_t from;
	long days;
	int rc;

	if ((rc = list_days(a, &from, &days)))
		return rc;
	cli_list_begin(c, "appointments");
	return cli_list_end(
	    c, visit_list_range(c->db, from, clock_add_days(from, (int)days), visit_list_row, c));
}

static int visit_show_cmd(struct cli *c, const struct cli_args *a)
{
	return visit_show_one(c, a->id);
}

static int visit_edit_cmd(struct cli *c, const struct cli_args *a)
{
	struct visit_input in = {0};
	int64_t old_start = 0;
	int rc;

	if (!cli_arg_get(a, "start") &&
	    (cli_arg_get(a, "length") ||
	     (cli_arg_get(a, "end") && strlen(cli_arg_get(a, "end")) <= 5))) {
		struct visit old;

		/* a length or an end HH:MM counts from the visit's start */
		if ((rc = visit_get(c->db, a->id, &old)))
			return cli_refused(rc);
		old_start = old.start_at;
		visit_free(&old);
	}
	if ((rc = visit_input(a, old_start, &in)))
		return rc;
	if ((rc = visit_edit(c->db, a->id, &in)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Visit %lld changed.\n"), (long long)a->id);
		return CLI_OK;
	}
	return visit_show_one(c, a->id);
}

static int visit_status_cmd(struct cli *c, const struct cli_args *a)
{
	return status_cmd(c, a, 0, NULL);
}

static int visit_cancel_cmd(struct cli *c, const struct cli_args *a)
{
	return status_cmd(c, a, 0, "cancelled");
}

static int visit_no_show_cmd(struct cli *c, const struct cli_args *a)
{
	return status_cmd(c, a, 0, "no_show");
}

static int visit_move_check(struct cli *c, const struct cli_args *a)
{
	int64_t t;

	(void)c;
	return parse_time(cli_arg_get(a, "to"), &t);
}

static int visit_move_cmd(struct cli *c, const struct cli_args *a)
{
	int64_t t;
	int rc;

	if ((rc = parse_time(cli_arg_get(a, "to"), &t)))
		return rc;
	if ((rc = visit_move(c->db, a->id, t)))
		return cli_refused(rc);
	if (!c->json) {
		struct visit v;
		char span[64];

		if (visit_get(c->db, a->id, &v) == 0) {
			fmt_span(v.start_at, v.end_at, span, sizeof span);
			printf(_("Visit %1$lld moved to %2$s.\n"), (long long)a->id, span);
			visit_free(&v);
		}
		return CLI_OK;
	}
	return visit_show_one(c, a->id);
}

const struct cli_entry cli_visit_cmds[] = {
    {"add", NULL, "--start T --end T [...]",
     "--start TIME (--end TIME | --length L) [--overnight] [--location L] [--note N]",
     N_("add a visit (when and where)"), .opts = {VISIT_OPTS}, .db = CLI_DB_OPEN,
     .check = visit_add_check, .run = visit_add_cmd},
    {"list", NULL, "[--from DATE] [--days N]", NULL, N_("list the visits overlapping some days"),
     .opts = {{"from", CLI_VALUE, N_("first day, YYYY-MM-DD (default: today)"), NULL, NULL},
              {"days", CLI_VALUE, N_("how many days (1 to 366, default 1)"), NULL, NULL}},
     .db = CLI_DB_OPEN, .check = visit_list_check, .run = visit_list_cmd},
    {"show", NULL, "ID", NULL, N_("show a visit and the jobs it works on"),
     ID_CMD(N_("the visit id")), .run = visit_show_cmd},
    {"edit", NULL, "ID [--start T ...]",
     "ID [--start T] [--end T | --length L] [--overnight] [--location L] [--note N]",
     N_("change times (a new start keeps the length), location or note"), .opts = {VISIT_OPTS},
     ID_CMD(N_("the visit id")), .check = visit_check, .run = visit_edit_cmd},
    {"move", NULL, "ID --to T", NULL,
     N_("move a visit to another day and time, keeping its length"),
     .opts = {{"to", CLI_VALUE, N_("the new start, shop time: \"YYYY-MM-DD HH:MM\""), NULL,
               N_("--to is required")}},
     ID_CMD(N_("the visit id")), .check = visit_move_check, .run = visit_move_cmd},
    {"status", NULL, "ID STATUS [--reason R]", NULL,
     N_("scheduled, confirmed, in_progress, done, cancelled or no_show"), .opts = {REASON_OPT},
     .min_pos = 2, .missing = N_("the new status is missing"), .max_pos = 2,
     .id = N_("the visit id"), .db = CLI_DB_OPEN, .run = visit_status_cmd},
    {"cancel", NULL, "ID [--reason R]", NULL, N_("cancel a visit"), .opts = {REASON_OPT},
     ID_CMD(N_("the visit id")), .run = visit_cancel_cmd},
    {"no-show", NULL, "ID [--reason R]", NULL, N_("the customer did not come (no-show)"),
     .opts = {REASON_OPT}, ID_CMD(N_("the visit id")), .run = visit_no_show_cmd},
    {NULL},
};

/* ---------------------------------------------------------------- book */

/* The booking the options give; refusals printed. */
static int book_input(struct cli *c, const struct cli_args *a, struct booking_input *in,
                      int64_t *cust, int64_t *svc, int64_t *res)
{
	struct visit_input ai = {0};
	int64_t minutes = 0;
	int rc;

	if ((rc = visit_times_opts(a, 0, &ai)))
		return rc;
	in->start_at = ai.start_at;
	in->end_at = ai.end_at;
	in->location = cli_arg_get(a, "location");
	in->note = cli_arg_get(a, "note");
	in->title = cli_arg_get(a, "title");
	in->use_open_job = cli_arg_flag(a, "open-job");
	in->customers = cust;
	in->services = svc;
	if ((rc =
	         booking_customers(c->db, cli_arg_get(a, "customer"), cust, &in->ncustomers, NULL)))
		return cli_refused(rc);
	if ((rc = booking_services(c->db, cli_arg_get(a, "services"), svc, &in->nservices, NULL,
	                           &minutes)))
		return cli_refused(rc);
	if ((rc = capacity_resource_parse(c->db, cli_arg_get(a, "resource"), res, &in->nresources)))
		return cli_refused(rc);
	in->resources = res;
	if (!in->end_at) {
		/* neither --end nor --length: as long as the services take */
		if (minutes <= 0)
			return cli_usage(a->cmd, _("--end or --length is required (the services "
			                           "chosen have no default minutes)"));
		in->end_at = in->start_at + minutes * 60;
	}
	return 0;
}

static int book_check(struct cli *c, const struct cli_args *a)
{
	struct visit_input in = {0};

	(void)c;
	return visit_times_opts(a, 0, &in);
}

static int book_cmd(struct cli *c, const struct cli_args *a)
{
	int64_t cust[BOOKING_MAX_CUSTOMERS], svc[BOOKING_MAX_SERVICES];
	int64_t resources[CAPACITY_MAX_RESOURCES];
	struct booking_input in = {0};
	struct booking_result res;
	size_t i;
	int rc;

	if ((rc = book_input(c, a, &in, cust, svc, resources)))
		return rc;
	if ((rc = booking_add(c->db, &in, &res)))
		return cli_refused(rc);
	if (c->json)
		return visit_show_one(c, res.appt_id);
	printf(_("Visit %lld booked.\n"), (long long)res.appt_id);
	for (i = 0; i < res.njobs; i++)
		printf(res.job_new[i] ? _("  new job %lld\n") : _("  open job %lld\n"),
		       (long long)res.job_ids[i]);
	printf(_("  %zu line items added\n"), res.nitems);
	return CLI_OK;
}

const struct cli_entry cli_book_entry = {
    "book",
    NULL,
    "--customer C --start T ...",
    "--customer C[;C...] --start TIME [--end TIME | --length L] [--overnight] "
    "[--services S[,S...]] [--resource R[,R...]] [--open-job] [--title T] [--location L] "
    "[--note N]",
    N_("book a visit with its jobs and services in one step"),
    .opts = {{"customer", CLI_VALUE,
              N_("who: a name, phone or number; several separated by ';' (one visit, a job each)"),
              NULL, N_("--customer is required")},
             {"start", CLI_VALUE, N_("start, shop time: \"YYYY-MM-DD HH:MM\""), NULL,
              N_("--start is required")},
             {"end", CLI_VALUE,
              N_("end, shop time: \"YYYY-MM-DD HH:MM\", or HH:MM on the start's day"), NULL, NULL},
             {"length", CLI_VALUE, N_("the length instead of an end: 1:30 or +90m"), NULL, NULL},
             {"overnight", CLI_FLAG, N_("an --end HH:MM at or before the start is on the next day"),
              NULL, NULL},
             {"services", CLI_VALUE,
              N_("catalogue services by name or number, separated by ',' (a line item each)"), NULL,
              NULL},
             {"open-job", CLI_FLAG, N_("add to the customer's open job instead of a new one"), NULL,
              NULL},
             {"title", CLI_VALUE, N_("the new job's title (default: the services' names)"), NULL,
              NULL},
             {"location", CLI_VALUE, N_("where (default: the first customer's address)"), NULL,
              NULL},
             {"note", CLI_VALUE, N_("a note for staff"), NULL, NULL},
             {"resource", CLI_VALUE,
              N_("the technicians, vans or bays it needs, separated by ',': all of them free "
                 "and working then, or nothing is booked"),
              NULL, NULL}},
    .db = CLI_DB_OPEN,
    .check = book_check,
    .run = book_cmd};

/* ---------------------------------------------------------------- link */

/* The estimated minutes of a link command into *minutes (0 when not given):
 * a whole number, else bad usage. */
static int link_minutes(const struct cli_args *a, int64_t *minutes)
{
	const char *text = cli_arg_get(a, "minutes");
	char *end;
	long long v;

	*minutes = 0;
	if (!text)
		return 0;
	if (!*text)
		return cli_usage(a->cmd, _("--minutes needs a number"));
	v = strtoll(text, &end, 10);
	if (*end || text[0] == ' ' || text[0] == '+')
		return cli_usage(a->cmd, _("--minutes must be a whole number, not '%.40s'"), text);
	*minutes = v;
	return 0;
}

/* What a link command prints when it is done: JSON the visit, else msg. */
static int link_done(struct cli *c, int64_t appt_id, const char *msg)
{
	if (c->json)
		return visit_show_one(c, appt_id);
	fputs(msg, stdout);
	return CLI_OK;
}

static int link_add_check(struct cli *c, const struct cli_args *a)
{
	int64_t minutes;

	(void)c;
	return link_minutes(a, &minutes);
}

static int link_edit_check(struct cli *c, const struct cli_args *a)
{
	int64_t minutes;

	(void)c;
	if (!cli_arg_get(a, "minutes"))
		return cli_usage(a->cmd, _("--minutes is required"));
	return link_minutes(a, &minutes);
}

static int link_add_cmd(struct cli *c, const struct cli_args *a)
{
	int64_t appt_id = cli_arg_id(a, "appt"), minutes, id;
	int rc;

	if ((rc = link_minutes(a, &minutes)))
		return rc;
	if ((rc = link_add(c->db, appt_id, cli_arg_id(a, "job"), minutes, &id)))
		return cli_refused(rc);
	return link_done(c, appt_id, _("Link added.\n"));
}

static int link_edit_cmd(struct cli *c, const struct cli_args *a)
{
	int64_t appt_id = cli_arg_id(a, "appt"), minutes;
	int rc;

	if ((rc = link_minutes(a, &minutes)))
		return rc;
	if ((rc = link_edit(c->db, appt_id, cli_arg_id(a, "job"), minutes)))
		return cli_refused(rc);
	return link_done(c, appt_id, _("Link changed.\n"));
}

static int link_remove_cmd(struct cli *c, const struct cli_args *a)
{
	int64_t appt_id = cli_arg_id(a, "appt");
	int rc;

	if ((rc = link_remove(c->db, appt_id, cli_arg_id(a, "job"))))
		return cli_refused(rc);
	return link_done(c, appt_id, _("Link removed (kept in the history).\n"));
}

static int link_list_row(const struct link *l, void *arg)
{
	struct cli *c = arg;
	char span[64];

	if (c->json) {
		cli_list_add(c, link_json(l));
		return 0;
	}
	fmt_span(l->start_at, l->end_at, span, sizeof span);
	printf(_("visit %lld  %s  job %lld  %lld min  "), (long long)l->appt_id, span,
	       (long long)l->job_id, (long long)l->est_minutes);
	cli_puts_safe(l->customer_name);
	fputs(": ", stdout);
	cli_puts_safe(l->job_title);
	putchar('\n');
	return 0;
}

static int link_list_check(struct cli *c, const struct cli_args *a)
{
	(void)c;
	if (!cli_arg_id(a, "appt") == !cli_arg_id(a, "job"))
		return cli_usage(a->cmd, _("give either --appt or --job"));
	return 0;
}

static int link_list_cmd(struct cli *c, const struct cli_args *a)
{
	cli_list_begin(c, "links");
	return cli_list_end(
	    c, link_list(c->db, cli_arg_id(a, "appt"), cli_arg_id(a, "job"), link_list_row, c));
}

#define LINK_OPTS                                                                                  \
	{"appt", CLI_ID_NEEDED, N_("the visit's id"), N_("--appt"), NULL},                         \
	{                                                                                          \
		"job", CLI_ID_NEEDED, N_("the job's id"), N_("--job"), NULL                        \
	}
#define MINUTES_OPT                                                                                \
	{                                                                                          \
		"minutes", CLI_VALUE, N_("estimated minutes for the job"), NULL, NULL              \
	}

const struct cli_entry cli_link_cmds[] = {
    {"add", NULL, "--appt ID --job ID [--minutes N]", NULL,
     N_("a visit works on a job (estimated minutes)"), .opts = {LINK_OPTS, MINUTES_OPT},
     .db = CLI_DB_OPEN, .check = link_add_check, .run = link_add_cmd},
    {"edit", NULL, "--appt ID --job ID --minutes N", NULL, N_("change the estimated minutes"),
     .opts = {LINK_OPTS, MINUTES_OPT}, .db = CLI_DB_OPEN, .check = link_edit_check,
     .run = link_edit_cmd},
    {"remove", NULL, "--appt ID --job ID", NULL, N_("the visit no longer works on the job"),
     .opts = {LINK_OPTS}, .db = CLI_DB_OPEN, .run = link_remove_cmd},
    {"list", NULL, "--appt ID | --job ID", NULL, N_("the jobs of a visit, or the visits of a job"),
     .opts = {{"appt", CLI_ID, N_("the jobs this visit works on"), N_("--appt"), NULL},
              {"job", CLI_ID, N_("the visits that work on this job"), N_("--job"), NULL}},
     .db = CLI_DB_OPEN, .check = link_list_check, .run = link_list_cmd},
    {NULL},
};

/* ---------------------------------------------------------------- item */

#define ITEM_OPTS(req)                                                                             \
	{"kind", CLI_VALUE, N_("SERVICE, FEE, DISCOUNT, TAX or CREDIT"), NULL, NULL},              \
	    {"description", CLI_VALUE, N_("what is billed"), NULL, req},                           \
	    {"qty", CLI_VALUE, N_("quantity, up to 3 decimals (e.g. 1.5)"), NULL, NULL},           \
	{                                                                                          \
		"price", CLI_VALUE, N_("unit price in the job's currency (e.g. 45.00)"), NULL, req \
	}
#define COMM_OPTS                                                                                  \
	{"commission", CLI_VALUE,                                                                  \
	 N_("the technician's commission: an amount (12.50) or a percentage of the line (10%)"),   \
	 NULL, NULL},                                                                              \
	    {"tech", CLI_VALUE,                                                                    \
	     N_("technician credited (default: the one reserved for the job's visit)"), NULL,      \
	     NULL},                                                                                \
	{                                                                                          \
		"est-minutes", CLI_VALUE, N_("estimated minutes of work"), NULL, NULL              \
	}

/* The commission options into *in (-1 / 0: unchanged); 0 or a refusal. */
static int comm_input(struct cli *c, const struct cli_args *a, const char *code,
                      struct commission_input *in)
{
	const char *comm = cli_arg_get(a, "commission"), *tech = cli_arg_get(a, "tech");
	const char *est = cli_arg_get(a, "est-minutes");
	int rc;

	in->fixed = in->bp = in->est_minutes = -1;
	in->tech_id = 0;
	if (comm && (rc = commission_parse(comm, code, &in->fixed, &in->bp)))
		return cli_refused(rc);
	if (tech && (rc = capacity_resource_find(c->db, tech, &in->tech_id)))
		return cli_refused(rc);
	if (est) {
		char *end;
		long long v = strtoll(est, &end, 10);

		if (!*est || *end || v < 0 || v > 100000) {
			err_set(FD_EINVAL,
			        _("bad --est-minutes '%.40s': a whole number from 0 to 100000"),
			        est);
			return cli_refused(FD_EINVAL);
		}
		in->est_minutes = v;
	}
	return 0;
}

/* The line item the options give into in, quantity and price (in currency
 * code) -1 (unchanged) when not given. */
static int item_input(const struct cli_args *a, const char *code, struct item_input *in)
{
	const char *qty = cli_arg_get(a, "qty"), *price = cli_arg_get(a, "price");
	int rc;

	in->kind = cli_arg_get(a, "kind");
	in->description = cli_arg_get(a, "description");
	in->qty_milli = in->unit_price = -1;
	if (qty && (rc = qty_parse(qty, &in->qty_milli)))
		return cli_refused(rc);
	if (price && (rc = parse_amount("--price", price, code, &in->unit_price)))
		return rc;
	return 0;
}

static int item_show_one(struct cli *c, int64_t id)
{
	struct line_item li;
	char qty[32], price[MONEY_BUFSZ], amount[MONEY_BUFSZ];
	int rc = item_get(cli_db(c), id, &li);

	struct commission_info ci;

	if (!rc && (rc = commission_get(cli_db(c), id, &ci)))
		item_free(&li);
	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = item_json(&li);

		if (ci.fixed >= 0)
			cli_json_int(o, "commission_fixed", ci.fixed);
		if (ci.bp >= 0)
			cli_json_int(o, "commission_bp", ci.bp);
		if (ci.fixed >= 0 || ci.bp >= 0)
			cli_json_int(o, "commission", ci.amount);
		if (ci.est_minutes >= 0)
			cli_json_int(o, "est_minutes", ci.est_minutes);
		if (ci.tech_id) {
			cli_json_int(o, "tech_id", ci.tech_id);
			cli_json_str(o, "technician", ci.tech_name);
		}
		cli_print_json(o);
	} else {
		qty_format(li.qty_milli, qty, sizeof qty);
		printf("%s: %lld\n", _("Line item"), (long long)li.id);
		printf("%s: %lld\n", _("Job"), (long long)li.job_id);
		cli_field(_("Kind"), li.kind);
		cli_field(_("Description"), li.description);
		cli_field(_("Quantity"), qty);
		printf("%s: %s %s\n", _("Unit price"), fmt_money(li.unit_price, li.currency, price),
		       li.currency);
		printf("%s: %s %s\n", _("Amount"), fmt_money(li.amount, li.currency, amount),
		       li.currency);
		if (ci.fixed >= 0 || ci.bp >= 0) {
			printf("%s: %s %s", _("Commission"),
			       fmt_money(ci.amount, li.currency, amount), li.currency);
			if (ci.bp >= 0)
				printf(" (%lld.%02lld%%)", (long long)(ci.bp / 100),
				       (long long)(ci.bp % 100));
			putchar('\n');
		}
		if (ci.tech_id) {
			printf("%s: ", _("Technician"));
			cli_puts_safe(ci.tech_name);
			fputs(ci.tech_default ? _(" (the visit's)\n") : "\n", stdout);
		}
		if (ci.est_minutes >= 0)
			printf("%s: %lld\n", _("Estimated minutes"), (long long)ci.est_minutes);
	}
	item_free(&li);
	return CLI_OK;
}

static int item_add_cmd(struct cli *c, const struct cli_args *a)
{
	struct item_input in = {0};
	struct commission_input ci;
	struct job j;
	char cur[4];
	int rc;
	int64_t id;

	if ((rc = job_get(c->db, cli_arg_id(a, "job"), &j)))
		return cli_refused(rc);
	rc = item_input(a, j.currency, &in);
	snprintf(cur, sizeof cur, "%s", j.currency);
	job_free(&j);
	if (rc)
		return rc;
	in.job_id = cli_arg_id(a, "job");
	if (in.qty_milli < 0)
		in.qty_milli = 1000;
	if (!in.kind)
		in.kind = "SERVICE";
	if ((rc = comm_input(c, a, cur, &ci)))
		return rc;
	if ((rc = commission_item_add(c->db, &in, &ci, &id)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Line item %lld added.\n"), (long long)id);
		return CLI_OK;
	}
	return item_show_one(c, id);
}

static int item_list_row(const struct line_item *li, void *arg)
{
	struct cli *c = arg;

	if (c->json)
		cli_list_add(c, item_json(li));
	else
		item_line(li);
	return 0;
}

static int item_list_cmd(struct cli *c, const struct cli_args *a)
{
	int64_t job_id = cli_arg_id(a, "job");
	struct job j;
	int rc;

	if ((rc = job_get(c->db, job_id, &j))) /* an unknown job is not an empty list */
		return cli_refused(rc);
	job_free(&j);
	cli_list_begin(c, "items");
	return cli_list_end(c, item_list(c->db, job_id, item_list_row, c));
}

static int item_show_cmd(struct cli *c, const struct cli_args *a)
{
	return item_show_one(c, a->id);
}

static int item_edit_cmd(struct cli *c, const struct cli_args *a)
{
	struct item_input in = {0};
	struct commission_input ci;
	struct line_item li;
	int rc, item_given;

	if ((rc = item_get(c->db, a->id, &li)))
		return cli_refused(rc);
	rc = item_input(a, li.currency, &in);
	if (!rc)
		rc = comm_input(c, a, li.currency, &ci);
	item_free(&li);
	if (rc)
		return rc;
	item_given = in.kind || in.description || in.qty_milli >= 0 || in.unit_price >= 0;
	if (!item_given && ci.fixed < 0 && ci.bp < 0 && !ci.tech_id && ci.est_minutes < 0) {
		err_set(FD_EINVAL, _("nothing to change: give at least one field"));
		return cli_refused(FD_EINVAL);
	}
	if ((rc = commission_item_edit(c->db, a->id, item_given ? &in : NULL, &ci)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Line item %lld changed.\n"), (long long)a->id);
		return CLI_OK;
	}
	return item_show_one(c, a->id);
}

static int item_delete_cmd(struct cli *c, const struct cli_args *a)
{
	int rc;

	if ((rc = item_delete(c->db, a->id)))
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "deleted", a->id);
		cli_print_json(o);
	} else {
		printf(_("Line item %lld deleted (kept in the history).\n"), (long long)a->id);
	}
	return CLI_OK;
}

#define JOB_ID_OPT                                                                                 \
	{                                                                                          \
		"job", CLI_ID_NEEDED, N_("the job's id"), N_("--job"), NULL                        \
	}

const struct cli_entry cli_item_cmds[] = {
    {"add", NULL, "--job ID --description D --price P [...]",
     "--job ID --description D --price P [--qty Q] [--kind SERVICE] [--commission 12.50|10%]"
     " [--tech NAME] [--est-minutes N]",
     N_("add a line item to a job"),
     .opts = {JOB_ID_OPT, ITEM_OPTS(N_("--description and --price are required")), COMM_OPTS},
     .db = CLI_DB_OPEN, .run = item_add_cmd},
    {"list", NULL, "--job ID", NULL, N_("list the line items of a job"), .opts = {JOB_ID_OPT},
     .db = CLI_DB_OPEN, .run = item_list_cmd},
    {"show", NULL, "ID", NULL, N_("show one line item"), ID_CMD(N_("the line item id")),
     .run = item_show_cmd},
    {"edit", NULL, "ID [--qty Q ...]",
     "ID [--kind K] [--description D] [--qty Q] [--price P] [--commission 12.50|10%]"
     " [--tech NAME] [--est-minutes N]",
     N_("change a line item (a new price: what is left to bill)"),
     .opts = {ITEM_OPTS(NULL), COMM_OPTS}, ID_CMD(N_("the line item id")), .run = item_edit_cmd},
    {"delete", NULL, "ID", NULL, N_("delete a line item that is not invoiced"),
     ID_CMD(N_("the line item id")), .run = item_delete_cmd},
    {NULL},
};
