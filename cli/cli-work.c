/*
 * cli-work.c - `frontdesk job|appt|link|item ...`: jobs, visits, which jobs
 * a visit works on, and the line items of a job (see work.h).
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

#include "cli-util.h"
#include "clock.h"
#include "err.h"
#include "i18n.h"
#include "money.h"
#include "strbuf.h"
#include "work.h"
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

/* A whole number of minutes; bad usage when it is not a number. */
static int parse_minutes(const char *cmd, const char *text, int64_t *out)
{
	char *end;
	long long v;

	if (!text || !*text)
		return cli_usage(cmd, _("--minutes needs a number"));
	v = strtoll(text, &end, 10);
	if (*end || text[0] == ' ' || text[0] == '+')
		return cli_usage(cmd, _("--minutes must be a whole number, not '%.40s'"), text);
	*out = v;
	return 0;
}

/* An optional id option: 0 when absent. */
static int opt_id(const char *cmd, const char *what, const char *text, int64_t *id)
{
	*id = 0;
	return text ? cli_parse_id(cmd, what, text, id) : 0;
}

static int job_show_one(struct cli *c, int64_t id);
static int appt_show_one(struct cli *c, int64_t id);

/* `job|appt status ID STATUS [--reason R]`, or with status given, `job|appt
 * cancel ID [--reason R]`. */
static int status_cmd(struct cli *c, const char *cmd, int job, const char *status, int argc,
                      char **argv)
{
	const char *reason = NULL;
	struct cli_opt opts[] = {
	    {"reason", &reason, NULL, N_("why (kept in the status history)")},
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[2];
	int npos, rc;
	int64_t id;

	rc = cli_parse(c, cmd, status ? "ID [--reason R]" : "ID STATUS [--reason R]", opts, argc,
	               argv, pos, status ? 1 : 2, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if ((rc = cli_parse_id(cmd, job ? _("the job id") : _("the visit id"), npos ? pos[0] : NULL,
	                       &id)))
		return rc;
	if (!status && npos < 2)
		return cli_usage(cmd, _("the new status is missing"));
	if (!status)
		status = pos[1];
	if (!cli_db(c))
		return CLI_REFUSED;
	rc = job ? job_set_status(c->db, id, status, reason)
	         : appt_set_status(c->db, id, status, reason);
	if (rc)
		return cli_refused(rc);
	if (c->json)
		return job ? job_show_one(c, id) : appt_show_one(c, id);
	printf(job ? _("Job %lld is now %s.\n") : _("Visit %lld is now %s.\n"), (long long)id,
	       status);
	return CLI_OK;
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

static cJSON *appt_json(const struct appt *a)
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

static void appt_line(const struct appt *a)
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

static int link_of_appt_row(const struct link *l, void *arg)
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

#define JOB_OPTS(in, currency)                                                                     \
	{"title", &(in).title, NULL, N_("what is to be done")},                                    \
	    {"currency", &(currency), NULL, N_("ISO 4217 code, e.g. USD (default: config)")},      \
	{                                                                                          \
		"note", &(in).note, NULL, N_("a note for staff")                                   \
	}

static int job_show_one(struct cli *c, int64_t id)
{
	struct rows visits = {c, NULL, 0, 0}, items = {c, NULL, 0, 0};
	struct strbuf sb = {0};
	char total[MONEY_BUFSZ];
	cJSON *o = NULL;
	struct job j;
	int rc = job_get(cli_db(c), id, &j);

	if (rc)
		return cli_refused(rc);
	if (c->json) {
		o = job_json(&j);
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

static int job_add_cmd(struct cli *c, int argc, char **argv)
{
	struct job_input in = {0};
	const char *customer = NULL;
	struct cli_opt opts[] = {
	    {"customer", &customer, NULL, N_("the customer's id")},
	    JOB_OPTS(in, in.currency),
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[1];
	int npos, rc;
	int64_t id;

	rc = cli_parse(c, "job add", "--customer ID --title T [--currency C] [--note N]", opts,
	               argc, argv, pos, 0, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (!customer)
		return cli_usage("job add", _("--customer is required"));
	if (!in.title)
		return cli_usage("job add", _("--title is required"));
	if ((rc = cli_parse_id("job add", _("the customer id"), customer, &in.customer_id)))
		return rc;
	if (!cli_db(c))
		return CLI_REFUSED;
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

static int job_list_cmd(struct cli *c, int argc, char **argv)
{
	const char *customer = NULL;
	struct cli_opt opts[] = {
	    {"customer", &customer, NULL, N_("only the jobs of this customer")},
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[1];
	int npos, rc;
	int64_t cid;

	rc = cli_parse(c, "job list", "[--customer ID]", opts, argc, argv, pos, 0, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if ((rc = opt_id("job list", _("the customer id"), customer, &cid)))
		return rc;
	if (!cli_db(c))
		return CLI_REFUSED;
	cli_list_begin(c, "jobs");
	return cli_list_end(c, job_list(c->db, cid, job_list_row, c));
}

static int job_show_cmd(struct cli *c, int argc, char **argv)
{
	int rc;
	int64_t id;

	if (!cli_begin_id(c, "job show", "ID", NULL, _("the job id"), argc, argv, &id, &rc))
		return rc;
	return job_show_one(c, id);
}

static int job_edit_cmd(struct cli *c, int argc, char **argv)
{
	struct job_input in = {0};
	struct cli_opt opts[] = {
	    JOB_OPTS(in, in.currency),
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[1];
	int npos, rc;
	int64_t id;

	rc = cli_parse(c, "job edit", "ID [--title T] [--currency C] [--note N]", opts, argc, argv,
	               pos, 1, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if ((rc = cli_parse_id("job edit", _("the job id"), npos ? pos[0] : NULL, &id)))
		return rc;
	if (!cli_db(c))
		return CLI_REFUSED;
	if ((rc = job_edit(c->db, id, &in)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Job %lld changed.\n"), (long long)id);
		return CLI_OK;
	}
	return job_show_one(c, id);
}

static int job_status_cmd(struct cli *c, int argc, char **argv)
{
	return status_cmd(c, "job status", 1, NULL, argc, argv);
}

static int job_cancel_cmd(struct cli *c, int argc, char **argv)
{
	return status_cmd(c, "job cancel", 1, "cancelled", argc, argv);
}

static const struct cli_cmd job_cmds[] = {
    {"add", job_add_cmd, "--customer ID --title T [...]", N_("add a job for a customer")},
    {"list", job_list_cmd, "[--customer ID]", N_("list jobs, newest first")},
    {"show", job_show_cmd, "ID", N_("show a job with its visits and line items")},
    {"edit", job_edit_cmd, "ID [--title T ...]", N_("change title, note or currency")},
    {"status", job_status_cmd, "ID STATUS [--reason R]",
     N_("open, in_progress, done or cancelled")},
    {"cancel", job_cancel_cmd, "ID [--reason R]", N_("cancel a job")},
    {NULL, NULL, NULL, NULL},
};

int cli_job(struct cli *c, int argc, char **argv)
{
	return cli_dispatch(c, "job", job_cmds, argc, argv);
}

/* ---------------------------------------------------------------- appt */

struct appt_args {
	const char *start, *end;
	struct appt_input in;
};

#define APPT_OPTS(a)                                                                               \
	{"start", &(a).start, NULL, N_("start, shop time: \"YYYY-MM-DD HH:MM\"")},                 \
	    {"end", &(a).end, NULL, N_("end, shop time: \"YYYY-MM-DD HH:MM\"")},                   \
	    {"location", &(a).in.location, NULL, N_("where the visit happens")},                   \
	    {"note", &(a).in.note, NULL, N_("a note for staff")},                                  \
	{                                                                                          \
		NULL, NULL, NULL, NULL                                                             \
	}

/* The typed times into a->in (left 0 when not given). */
static int appt_times(struct appt_args *a)
{
	int rc;

	if (a->start && (rc = parse_time(a->start, &a->in.start_at)))
		return rc;
	if (a->end && (rc = parse_time(a->end, &a->in.end_at)))
		return rc;
	return 0;
}

static int appt_show_one(struct cli *c, int64_t id)
{
	struct rows links = {c, NULL, 0, 0};
	char span[64];
	cJSON *o = NULL;
	struct appt a;
	int rc = appt_get(cli_db(c), id, &a);

	if (rc)
		return cli_refused(rc);
	if (c->json) {
		o = appt_json(&a);
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
		printf("%s:\n", _("Jobs"));
	}
	rc = link_list(c->db, id, 0, link_of_appt_row, &links);
	if (rc)
		cJSON_Delete(o);
	else if (c->json)
		cli_print_json(o);
	appt_free(&a);
	return rc ? cli_refused(rc) : CLI_OK;
}

static int appt_add_cmd(struct cli *c, int argc, char **argv)
{
	struct appt_args a = {0};
	struct cli_opt opts[] = {APPT_OPTS(a)};
	char *pos[1];
	int npos, rc;
	int64_t id;

	rc = cli_parse(c, "visit add", "--start TIME --end TIME [--location L] [--note N]", opts,
	               argc, argv, pos, 0, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (!a.start || !a.end)
		return cli_usage("visit add", _("--start and --end are required"));
	if ((rc = appt_times(&a)))
		return rc;
	if (!cli_db(c))
		return CLI_REFUSED;
	if ((rc = appt_add(c->db, &a.in, &id)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Visit %lld added.\n"), (long long)id);
		return CLI_OK;
	}
	return appt_show_one(c, id);
}

static int appt_list_row(const struct appt *a, void *arg)
{
	struct cli *c = arg;

	if (c->json)
		cli_list_add(c, appt_json(a));
	else
		appt_line(a);
	return 0;
}

static int appt_list_cmd(struct cli *c, int argc, char **argv)
{
	const char *from_text = NULL, *days_text = NULL;
	struct cli_opt opts[] = {
	    {"from", &from_text, NULL, N_("first day, YYYY-MM-DD (default: today)")},
	    {"days", &days_text, NULL, N_("how many days (1 to 366, default 1)")},
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[1], *end;
	int npos, rc;
	long days = 1;
	int64_t from;

	rc =
	    cli_parse(c, "visit list", "[--from DATE] [--days N]", opts, argc, argv, pos, 0, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (days_text) {
		days = strtol(days_text, &end, 10);
		if (!*days_text || *end || days < 1 || days > 366)
			return cli_usage("visit list", _("--days must be a number from 1 to 366"));
	}
	if (!from_text)
		from = clock_day_start(clock_now());
	else if ((rc = parse_time(from_text, &from)))
		return rc;
	if (!cli_db(c))
		return CLI_REFUSED;
	cli_list_begin(c, "appointments");
	return cli_list_end(
	    c, appt_list_range(c->db, from, clock_add_days(from, (int)days), appt_list_row, c));
}

static int appt_show_cmd(struct cli *c, int argc, char **argv)
{
	int rc;
	int64_t id;

	if (!cli_begin_id(c, "visit show", "ID", NULL, _("the visit id"), argc, argv, &id, &rc))
		return rc;
	return appt_show_one(c, id);
}

static int appt_edit_cmd(struct cli *c, int argc, char **argv)
{
	struct appt_args a = {0};
	struct cli_opt opts[] = {APPT_OPTS(a)};
	char *pos[1];
	int npos, rc;
	int64_t id;

	rc = cli_parse(c, "visit edit", "ID [--start T] [--end T] [--location L] [--note N]", opts,
	               argc, argv, pos, 1, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if ((rc = cli_parse_id("visit edit", _("the visit id"), npos ? pos[0] : NULL, &id)))
		return rc;
	if ((rc = appt_times(&a)))
		return rc;
	if (!cli_db(c))
		return CLI_REFUSED;
	if ((rc = appt_edit(c->db, id, &a.in)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Visit %lld changed.\n"), (long long)id);
		return CLI_OK;
	}
	return appt_show_one(c, id);
}

static int appt_status_cmd(struct cli *c, int argc, char **argv)
{
	return status_cmd(c, "visit status", 0, NULL, argc, argv);
}

static int appt_cancel_cmd(struct cli *c, int argc, char **argv)
{
	return status_cmd(c, "visit cancel", 0, "cancelled", argc, argv);
}

static const struct cli_cmd appt_cmds[] = {
    {"add", appt_add_cmd, "--start T --end T [...]", N_("add a visit (when and where)")},
    {"list", appt_list_cmd, "[--from DATE] [--days N]",
     N_("list the visits overlapping some days")},
    {"show", appt_show_cmd, "ID", N_("show a visit and the jobs it works on")},
    {"edit", appt_edit_cmd, "ID [--start T ...]", N_("change times, location or note")},
    {"status", appt_status_cmd, "ID STATUS [--reason R]",
     N_("scheduled, confirmed, in_progress, done, cancelled or no_show")},
    {"cancel", appt_cancel_cmd, "ID [--reason R]", N_("cancel a visit")},
    {NULL, NULL, NULL, NULL},
};

int cli_appt(struct cli *c, int argc, char **argv)
{
	return cli_dispatch(c, "visit", appt_cmds, argc, argv);
}

/* ---------------------------------------------------------------- link */

struct link_args {
	const char *appt, *job, *minutes;
	int64_t appt_id, job_id, est_minutes;
};

/* Parse the options of a link command; need_minutes says --minutes is
 * required (edit), allowed (add: default 0) or refused (remove: -1). */
static int link_parse(struct cli *c, const char *cmd, const char *synopsis, int need_minutes,
                      struct link_args *l, int argc, char **argv)
{
	struct cli_opt opts[] = {
	    {"appt", &l->appt, NULL, N_("the visit's id")},
	    {"job", &l->job, NULL, N_("the job's id")},
	    {"minutes", &l->minutes, NULL, N_("estimated minutes for the job")},
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[1];
	int npos, rc;

	if (need_minutes < 0)
		opts[2].name = NULL;
	rc = cli_parse(c, cmd, synopsis, opts, argc, argv, pos, 0, &npos);
	if (rc)
		return rc < 0 ? -1 : rc;
	if ((rc = cli_parse_id(cmd, _("--appt"), l->appt, &l->appt_id)) ||
	    (rc = cli_parse_id(cmd, _("--job"), l->job, &l->job_id)))
		return rc;
	if (need_minutes > 0 && !l->minutes)
		return cli_usage(cmd, _("--minutes is required"));
	if (l->minutes && (rc = parse_minutes(cmd, l->minutes, &l->est_minutes)))
		return rc;
	return cli_db(c) ? 0 : CLI_REFUSED;
}

/* What a link command prints when it is done: JSON the visit, else msg. */
static int link_done(struct cli *c, int64_t appt_id, const char *msg)
{
	if (c->json)
		return appt_show_one(c, appt_id);
	fputs(msg, stdout);
	return CLI_OK;
}

static int link_add_cmd(struct cli *c, int argc, char **argv)
{
	struct link_args l = {0};
	int rc = link_parse(c, "link add", "--appt ID --job ID [--minutes N]", 0, &l, argc, argv);
	int64_t id;

	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if ((rc = link_add(c->db, l.appt_id, l.job_id, l.est_minutes, &id)))
		return cli_refused(rc);
	return link_done(c, l.appt_id, _("Link added.\n"));
}

static int link_edit_cmd(struct cli *c, int argc, char **argv)
{
	struct link_args l = {0};
	int rc = link_parse(c, "link edit", "--appt ID --job ID --minutes N", 1, &l, argc, argv);

	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if ((rc = link_edit(c->db, l.appt_id, l.job_id, l.est_minutes)))
		return cli_refused(rc);
	return link_done(c, l.appt_id, _("Link changed.\n"));
}

static int link_remove_cmd(struct cli *c, int argc, char **argv)
{
	struct link_args l = {0};
	int rc = link_parse(c, "link remove", "--appt ID --job ID", -1, &l, argc, argv);

	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if ((rc = link_remove(c->db, l.appt_id, l.job_id)))
		return cli_refused(rc);
	return link_done(c, l.appt_id, _("Link removed (kept in the history).\n"));
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

static int link_list_cmd(struct cli *c, int argc, char **argv)
{
	const char *appt = NULL, *job = NULL;
	struct cli_opt opts[] = {
	    {"appt", &appt, NULL, N_("the jobs this visit works on")},
	    {"job", &job, NULL, N_("the visits that work on this job")},
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[1];
	int npos, rc;
	int64_t appt_id, job_id;

	rc = cli_parse(c, "link list", "--appt ID | --job ID", opts, argc, argv, pos, 0, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if ((rc = opt_id("link list", _("--appt"), appt, &appt_id)) ||
	    (rc = opt_id("link list", _("--job"), job, &job_id)))
		return rc;
	if (!appt_id == !job_id)
		return cli_usage("link list", _("give either --appt or --job"));
	if (!cli_db(c))
		return CLI_REFUSED;
	cli_list_begin(c, "links");
	return cli_list_end(c, link_list(c->db, appt_id, job_id, link_list_row, c));
}

static const struct cli_cmd link_cmds[] = {
    {"add", link_add_cmd, "--appt ID --job ID [--minutes N]",
     N_("a visit works on a job (estimated minutes)")},
    {"edit", link_edit_cmd, "--appt ID --job ID --minutes N", N_("change the estimated minutes")},
    {"remove", link_remove_cmd, "--appt ID --job ID", N_("the visit no longer works on the job")},
    {"list", link_list_cmd, "--appt ID | --job ID",
     N_("the jobs of a visit, or the visits of a job")},
    {NULL, NULL, NULL, NULL},
};

int cli_link(struct cli *c, int argc, char **argv)
{
	return cli_dispatch(c, "link", link_cmds, argc, argv);
}

/* ---------------------------------------------------------------- item */

struct item_args {
	const char *job, *qty, *price;
	struct item_input in;
};

#define ITEM_OPTS(a)                                                                               \
	{"kind", &(a).in.kind, NULL, N_("SERVICE, FEE, DISCOUNT, TAX or CREDIT")},                 \
	    {"description", &(a).in.description, NULL, N_("what is billed")},                      \
	    {"qty", &(a).qty, NULL, N_("quantity, up to 3 decimals (e.g. 1.5)")},                  \
	{                                                                                          \
		"price", &(a).price, NULL, N_("unit price in the job's currency (e.g. 45.00)")     \
	}

/* The typed quantity and price (price in currency code) into a->in; -1
 * (unchanged) when not given. */
static int item_numbers(struct item_args *a, const char *code)
{
	int rc;

	a->in.qty_milli = a->in.unit_price = -1;
	if (a->qty && (rc = qty_parse(a->qty, &a->in.qty_milli)))
		return cli_refused(rc);
	if (a->price && (rc = parse_amount("--price", a->price, code, &a->in.unit_price)))
		return rc;
	return 0;
}

static int item_show_one(struct cli *c, int64_t id)
{
	struct line_item li;
	char qty[32], price[MONEY_BUFSZ], amount[MONEY_BUFSZ];
	int rc = item_get(cli_db(c), id, &li);

	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cli_print_json(item_json(&li));
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
	}
	item_free(&li);
	return CLI_OK;
}

static int item_add_cmd(struct cli *c, int argc, char **argv)
{
	struct item_args a = {0};
	struct cli_opt opts[] = {
	    {"job", &a.job, NULL, N_("the job's id")},
	    ITEM_OPTS(a),
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[1];
	struct job j;
	int npos, rc;
	int64_t id;

	rc = cli_parse(c, "item add",
	               "--job ID --description D --price P [--qty Q] [--kind SERVICE]", opts, argc,
	               argv, pos, 0, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (!a.in.description || !a.price)
		return cli_usage("item add", _("--description and --price are required"));
	if ((rc = cli_parse_id("item add", _("--job"), a.job, &a.in.job_id)))
		return rc;
	if (!cli_db(c))
		return CLI_REFUSED;
	if ((rc = job_get(c->db, a.in.job_id, &j)))
		return cli_refused(rc);
	rc = item_numbers(&a, j.currency);
	job_free(&j);
	if (rc)
		return rc;
	if (a.in.qty_milli < 0)
		a.in.qty_milli = 1000;
	if (!a.in.kind)
		a.in.kind = "SERVICE";
	if ((rc = item_add(c->db, &a.in, &id)))
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

static int item_list_cmd(struct cli *c, int argc, char **argv)
{
	const char *job = NULL;
	struct cli_opt opts[] = {
	    {"job", &job, NULL, N_("the job's id")},
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[1];
	int npos, rc;
	int64_t job_id;
	struct job j;

	rc = cli_parse(c, "item list", "--job ID", opts, argc, argv, pos, 0, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if ((rc = cli_parse_id("item list", _("--job"), job, &job_id)))
		return rc;
	if (!cli_db(c))
		return CLI_REFUSED;
	if ((rc = job_get(c->db, job_id, &j))) /* an unknown job is not an empty list */
		return cli_refused(rc);
	job_free(&j);
	cli_list_begin(c, "items");
	return cli_list_end(c, item_list(c->db, job_id, item_list_row, c));
}

static int item_show_cmd(struct cli *c, int argc, char **argv)
{
	int rc;
	int64_t id;

	if (!cli_begin_id(c, "item show", "ID", NULL, _("the line item id"), argc, argv, &id, &rc))
		return rc;
	return item_show_one(c, id);
}

static int item_edit_cmd(struct cli *c, int argc, char **argv)
{
	struct item_args a = {0};
	struct cli_opt opts[] = {
	    ITEM_OPTS(a),
	    {NULL, NULL, NULL, NULL},
	};
	struct line_item li;
	char *pos[1];
	int npos, rc;
	int64_t id;

	rc = cli_parse(c, "item edit", "ID [--kind K] [--description D] [--qty Q] [--price P]",
	               opts, argc, argv, pos, 1, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if ((rc = cli_parse_id("item edit", _("the line item id"), npos ? pos[0] : NULL, &id)))
		return rc;
	if (!cli_db(c))
		return CLI_REFUSED;
	if ((rc = item_get(c->db, id, &li)))
		return cli_refused(rc);
	rc = item_numbers(&a, li.currency);
	item_free(&li);
	if (rc)
		return rc;
	if ((rc = item_edit(c->db, id, &a.in)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Line item %lld changed.\n"), (long long)id);
		return CLI_OK;
	}
	return item_show_one(c, id);
}

static int item_delete_cmd(struct cli *c, int argc, char **argv)
{
	int rc;
	int64_t id;

	if (!cli_begin_id(c, "item delete", "ID", NULL, _("the line item id"), argc, argv, &id,
	                  &rc))
		return rc;
	if ((rc = item_delete(c->db, id)))
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "deleted", id);
		cli_print_json(o);
	} else {
		printf(_("Line item %lld deleted (kept in the history).\n"), (long long)id);
	}
	return CLI_OK;
}

static const struct cli_cmd item_cmds[] = {
    {"add", item_add_cmd, "--job ID --description D --price P [...]",
     N_("add a line item to a job")},
    {"list", item_list_cmd, "--job ID", N_("list the line items of a job")},
    {"show", item_show_cmd, "ID", N_("show one line item")},
    {"edit", item_edit_cmd, "ID [--qty Q ...]",
     N_("change a line item (a new price: what is left to bill)")},
    {"delete", item_delete_cmd, "ID", N_("delete a line item that is not invoiced")},
    {NULL, NULL, NULL, NULL},
};

int cli_item(struct cli *c, int argc, char **argv)
{
	return cli_dispatch(c, "item", item_cmds, argc, argv);
}
