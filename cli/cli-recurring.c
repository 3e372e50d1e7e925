/*
 * cli-recurring.c - `frontdesk recurring add|list|show|make|edit|stop|dates`:
 * recurring jobs, over recurring.h. Rules are typed in iCalendar's RRULE
 * form (FREQ=WEEKLY;INTERVAL=2;BYDAY=TU); days and times in shop time;
 * JSON carries days as YYYY-MM-DD and instants as UTC ISO 8601.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "booking.h"
#include "capacity.h"
#include "cli-util.h"
#include "clock.h"
#include "err.h"
#include "i18n.h"
#include "money.h"
#include "recurring.h"
#include "visit.h"

/* "HH:MM" into minutes of the day; -1 when absent; usage error printed
 * (-2) when it cannot be read. */
static int time_opt(const struct cli_args *a, const char *name)
{
	const char *t = cli_arg_get(a, name);
	int h, m, n = 0;

	if (!t)
		return -1;
	if (sscanf(t, "%2d:%2d%n", &h, &m, &n) != 2 || t[n] || h < 0 || h > 23 || m < 0 || m > 59) {
		cli_usage(a->cmd, _("--%1$s is a time of day as HH:MM, not '%2$.20s'"), name, t);
		return -2;
	}
	return h * 60 + m;
}

/* --length into minutes; 0 when absent; -2 (usage printed) when bad. */
static int length_opt(const struct cli_args *a)
{
	const char *t = cli_arg_get(a, "length");
	int64_t s;

	if (!t)
		return 0;
	if (visit_parse_length(t, &s)) {
		cli_usage(a->cmd, "%s", err_msg());
		return -2;
	}
	return (int)(s / 60);
}

static int day_opt(const struct cli_args *a, const char *name)
{
	const char *d = cli_arg_get(a, name);
	int64_t t;

	if (d && (strlen(d) != 10 || clock_parse_local(d, &t)))
		return cli_usage(a->cmd, _("--%1$s is a date as YYYY-MM-DD, not '%2$.20s'"), name,
		                 d);
	return 0;
}

static void hhmm(int minute, char out[8])
{
	snprintf(out, 8, "%02d:%02d", (minute / 60) % 24, minute % 60);
}

/* ---------------------------------------------------------------- show */

static cJSON *rule_json(const struct recurring *r)
{
	cJSON *o = cJSON_CreateObject();
	char t[8];

	hhmm(r->start_minute, t);
	cli_json_int(o, "id", r->id);
	cli_json_int(o, "customer_id", r->customer_id);
	cli_json_str(o, "customer", r->customer_name);
	cli_json_str(o, "title", r->title);
	cli_json_str(o, "rule", r->rrule);
	cli_json_str(o, "first_day", r->first_day);
	cli_json_str(o, "last_day", *r->last_day ? r->last_day : NULL);
	cli_json_str(o, "time", t);
	cli_json_int(o, "length_minutes", r->length_minutes);
	cli_json_str(o, "location", r->location);
	cli_json_str(o, "note", r->note);
	cli_json_str(o, "currency", r->currency);
	cli_json_int(o, "price", r->price);
	cli_json_str(o, "billing", r->billing);
	cli_json_str(o, "when_off", r->when_off);
	cli_json_str(o, "status", r->status);
	cli_json_str(o, "made_to", *r->made_to ? r->made_to : NULL);
	if (r->split_from)
		cli_json_int(o, "split_from", r->split_from);
	cli_json_int(o, "made", r->made);
	cli_json_int(o, "moved", r->moved);
	cli_json_int(o, "skipped", r->skipped);
	cli_json_int(o, "dropped", r->dropped);
	return o;
}

static void rule_line(const struct recurring *r)
{
	char t[8], m[MONEY_BUFSZ];

	hhmm(r->start_minute, t);
	printf("%6lld  ", (long long)r->id);
	cli_puts_safe(r->customer_name);
	printf("  ");
	cli_puts_safe(r->title);
	printf("  %s %s %s %dmin %s", r->rrule, _("at"), t, r->length_minutes,
	       money_text(r->price, r->currency, 0, m));
	if (*r->last_day)
		printf("  %s %s", _("until"), r->last_day);
	if (strcmp(r->status, "active"))
		printf("  (%s)", _("stopped"));
	if (r->skipped || r->moved)
		printf(_("  [%1$lld skipped, %2$lld moved]"), (long long)r->skipped,
		       (long long)r->moved);
	putchar('\n');
}

static int list_cb(const struct recurring *r, void *arg)
{
	struct cli *c = arg;

	if (c->json)
		cli_list_add(c, rule_json(r));
	else
		rule_line(r);
	return 0;
}

static int lines_cb(const struct recurring_line *l, void *arg)
{
	cJSON *o;
	void **p = arg;
	const char *currency = p[1];
	char m[MONEY_BUFSZ];

	if (p[0]) {
		o = cJSON_CreateObject();
		cli_json_str(o, "kind", l->kind);
		cli_json_str(o, "description", l->description);
		cli_json_int(o, "qty_milli", l->qty_milli);
		cli_json_int(o, "unit_price", l->unit_price);
		cJSON_AddItemToArray(p[0], o);
		return 0;
	}
	printf("  %-8s ", l->kind);
	cli_puts_safe(l->description);
	printf("  %s\n", money_text(l->unit_price, currency, 0, m));
	return 0;
}

static int occ_cb(const struct recurring_occ *o, void *arg)
{
	cJSON *arr = arg, *j;
	char when[32];

	if (arr) {
		j = cJSON_CreateObject();
		cli_json_str(j, "day", o->day);
		cli_json_str(j, "state", o->state);
		if (o->appt_id) {
			cli_json_int(j, "visit_id", o->appt_id);
			cli_json_time(j, "start", o->start_at);
			cli_json_time(j, "end", o->end_at);
			cli_json_str(j, "visit_status", o->appt_status);
			cJSON_AddBoolToObject(j, "changed_by_hand", o->by_hand);
		}
		cli_json_str(j, "reason", o->reason);
		cJSON_AddItemToArray(arr, j);
		return 0;
	}
	printf("  %s  %-7s", o->day, o->state);
	if (o->appt_id) {
		clock_format_local(o->start_at, "%Y-%m-%d %H:%M", when, sizeof when);
		printf(_("  visit %1$lld %2$s %3$s"), (long long)o->appt_id, when, o->appt_status);
		if (o->by_hand)
			printf("  (%s)", _("changed by hand"));
	}
	if (o->reason) {
		printf("  ");
		cli_puts_safe(o->reason);
	}
	putchar('\n');
	return 0;
}

static int show_one(struct cli *c, int64_t id)
{
	struct recurring r;
	cJSON *o, *lines, *occs;
	void *p[2];
	int rc;

	if ((rc = recurring_get(c->db, id, &r)))
		return cli_refused(rc);
	p[1] = r.currency;
	if (c->json) {
		o = rule_json(&r);
		lines = cJSON_AddArrayToObject(o, "lines");
		occs = cJSON_AddArrayToObject(o, "occurrences");
		p[0] = lines;
		if ((rc = recurring_lines(c->db, id, lines_cb, p)) ||
		    (rc = recurring_occurrences(c->db, id, occ_cb, occs))) {
			cJSON_Delete(o);
			recurring_free(&r);
			return cli_refused(rc);
		}
		cli_print_json(o);
		recurring_free(&r);
		return CLI_OK;
	}
	rule_line(&r);
	if (r.location) {
		printf("  %s: ", _("location"));
		cli_puts_safe(r.location);
		putchar('\n');
	}
	printf(_("  billing: %1$s; on a day off: %2$s; made up to: %3$s\n"), r.billing, r.when_off,
	       *r.made_to ? r.made_to : "-");
	p[0] = NULL;
	rc = recurring_lines(c->db, id, lines_cb, p);
	if (!rc)
		rc = recurring_occurrences(c->db, id, occ_cb, NULL);
	recurring_free(&r);
	return rc ? cli_refused(rc) : CLI_OK;
}

static int cmd_show(struct cli *c, const struct cli_args *a)
{
	return show_one(c, a->id);
}

static int cmd_list(struct cli *c, const struct cli_args *a)
{
	int64_t cust[BOOKING_MAX_CUSTOMERS];
	size_t n = 0;
	int rc;

	if (cli_arg_get(a, "customer") &&
	    (rc = booking_customers(c->db, cli_arg_get(a, "customer"), cust, &n, NULL)))
		return cli_refused(rc);
	cli_list_begin(c, "recurring");
	return cli_list_end(
	    c, recurring_list(c->db, n ? cust[0] : 0, cli_arg_flag(a, "all"), list_cb, c));
}

/* ---------------------------------------------------------------- add */

static int add_check(struct cli *c, const struct cli_args *a)
{
	(void)c;
	if (time_opt(a, "time") == -2 || length_opt(a) == -2)
		return CLI_USAGE;
	return day_opt(a, "from");
}

static int cmd_add(struct cli *c, const struct cli_args *a)
{
	int64_t cust[BOOKING_MAX_CUSTOMERS], svc[BOOKING_MAX_SERVICES];
	int64_t res[CAPACITY_MAX_RESOURCES], minutes = 0, id;
	struct recurring_input in = {0};
	char today[16];
	size_t n = 0;
	int rc;

	if ((rc = booking_customers(c->db, cli_arg_get(a, "customer"), cust, &n, NULL)))
		return cli_refused(rc);
	if (n != 1)
		return cli_usage(a->cmd, _("a recurring job is for one customer"));
	in.customer_id = cust[0];
	if ((rc = booking_services(c->db, cli_arg_get(a, "services"), svc, &in.nservices, NULL,
	                           &minutes)) ||
	    (rc = capacity_resource_parse(c->db, cli_arg_get(a, "resource"), res, &in.nresources)))
		return cli_refused(rc);
	in.services = svc;
	in.resources = res;
	in.rrule = cli_arg_get(a, "rule");
	clock_format_local(clock_now(), "%Y-%m-%d", today, sizeof today);
	in.from = cli_arg_get(a, "from") ? cli_arg_get(a, "from") : today;
	in.start_minute = time_opt(a, "time");
	in.length_minutes = length_opt(a);
	if (!in.length_minutes) {
		if (minutes <= 0)
			return cli_usage(a->cmd,
			                 _("--length is required (the services chosen have no "
			                   "default minutes)"));
		in.length_minutes = (int)minutes;
	}
	in.title = cli_arg_get(a, "title");
	in.location = cli_arg_get(a, "location");
	in.note = cli_arg_get(a, "note");
	in.billing = cli_arg_get(a, "billing");
	in.when_off = cli_arg_get(a, "when-off");
	if ((rc = recurring_add(c->db, &in, &id)))
		return cli_refused(rc);
	if (c->json)
		return show_one(c, id);
	printf(_("Recurring job %lld added, its visits made up to the horizon "
	         "(see them with 'frontdesk recurring show %lld').\n"),
	       (long long)id, (long long)id);
	return CLI_OK;
}

/* ---------------------------------------------------------------- make */

static int cmd_make(struct cli *c, const struct cli_args *a)
{
	struct recurring_made m;
	cJSON *o;
	int rc;

	if ((rc = day_opt(a, "to")))
		return rc;
	if ((rc = recurring_make(c->db, a->id, cli_arg_get(a, "to"), &m)))
		return cli_refused(rc);
	if (c->json) {
		o = cJSON_CreateObject();
		cli_json_int(o, "id", a->id);
		cli_json_int(o, "made", m.made);
		cli_json_int(o, "moved", m.moved);
		cli_json_int(o, "skipped", m.skipped);
		cli_json_str(o, "made_to", *m.to ? m.to : NULL);
		cli_print_json(o);
		return CLI_OK;
	}
	printf(_("Recurring job %1$lld: %2$lld visit(s) made, %3$lld moved, %4$lld skipped, up to "
	         "%5$s.\n"),
	       (long long)a->id, (long long)m.made, (long long)m.moved, (long long)m.skipped,
	       *m.to ? m.to : "-");
	if (m.moved || m.skipped)
		printf("%s\n", _("See which with 'frontdesk recurring show'."));
	return CLI_OK;
}

/* ---------------------------------------------------------------- edit */

static int edit_check(struct cli *c, const struct cli_args *a)
{
	const char *scope = cli_arg_get(a, "scope");

	(void)c;
	if (time_opt(a, "time") == -2 || length_opt(a) == -2)
		return CLI_USAGE;
	if (strcmp(scope, "this") && strcmp(scope, "following") && strcmp(scope, "all"))
		return cli_usage(a->cmd, _("--scope is this, following or all, not '%.20s'"),
		                 scope);
	if (strcmp(scope, "all") && !cli_arg_get(a, "day"))
		return cli_usage(a->cmd, _("--scope %s needs --day, the visit's day"), scope);
	if (!strcmp(scope, "all") && cli_arg_get(a, "day"))
		return cli_usage(a->cmd,
		                 _("--scope all changes every visit from today: leave out --day"));
	if (!strcmp(scope, "this") && (cli_arg_get(a, "rule") || cli_arg_get(a, "location") ||
	                               cli_arg_get(a, "note") || cli_arg_get(a, "when-off")))
		return cli_usage(a->cmd,
		                 _("--scope this changes one visit's time or length; change "
		                   "its place or note with 'frontdesk visit edit'"));
	return day_opt(a, "day");
}

static int cmd_edit(struct cli *c, const struct cli_args *a)
{
	const char *scope = cli_arg_get(a, "scope");
	struct recurring_change ch = {0};
	int64_t new_id = 0, dropped = 0;
	cJSON *o;
	int rc;

	if (!strcmp(scope, "this")) {
		if ((rc = recurring_change_one(c->db, a->id, cli_arg_get(a, "day"),
		                               time_opt(a, "time"), length_opt(a))))
			return cli_refused(rc);
		if (c->json)
			return show_one(c, a->id);
		printf(_("The visit of %s changed; the rule keeps it as an exception.\n"),
		       cli_arg_get(a, "day"));
		return CLI_OK;
	}
	ch.rrule = cli_arg_get(a, "rule");
	ch.start_minute = time_opt(a, "time");
	ch.length_minutes = length_opt(a);
	ch.location = cli_arg_get(a, "location");
	ch.note = cli_arg_get(a, "note");
	ch.when_off = cli_arg_get(a, "when-off");
	if ((rc = recurring_change(c->db, a->id, cli_arg_get(a, "day"), &ch, &new_id, &dropped)))
		return cli_refused(rc);
	if (c->json) {
		o = cJSON_CreateObject();
		cli_json_int(o, "id", a->id);
		cli_json_int(o, "new_id", new_id);
		cli_json_int(o, "dropped", dropped);
		cli_print_json(o);
		return CLI_OK;
	}
	printf(_("Recurring job %1$lld now ends before the change; recurring job %2$lld carries "
	         "it on (%3$lld visit(s) cancelled).\n"),
	       (long long)a->id, (long long)new_id, (long long)dropped);
	return CLI_OK;
}

/* ---------------------------------------------------------------- stop */

static int cmd_stop(struct cli *c, const struct cli_args *a)
{
	int64_t dropped = 0;
	cJSON *o;
	int rc;

	if ((rc = day_opt(a, "from")))
		return rc;
	if ((rc = recurring_stop(c->db, a->id, cli_arg_get(a, "from"), &dropped)))
		return cli_refused(rc);
	if (c->json) {
		o = cJSON_CreateObject();
		cli_json_int(o, "id", a->id);
		cli_json_int(o, "dropped", dropped);
		cli_print_json(o);
		return CLI_OK;
	}
	printf(_("Recurring job %1$lld stopped (%2$lld visit(s) cancelled).\n"), (long long)a->id,
	       (long long)dropped);
	return CLI_OK;
}

/* --------------------------------------------------------------- dates */

static int dates_cb(const char *day, void *arg)
{
	struct cli *c = arg;

	if (c->json)
		cli_list_add(c, cJSON_CreateString(day));
	else
		printf("%s\n", day);
	return 0;
}

static int dates_check(struct cli *c, const struct cli_args *a)
{
	int rc;

	(void)c;
	if ((rc = day_opt(a, "from")) || (rc = day_opt(a, "to")))
		return rc;
	return 0;
}

static int cmd_dates(struct cli *c, const struct cli_args *a)
{
	char rule[RECURRING_RULE_MAX + 1];
	int rc;

	if ((rc = recurring_rule_check(cli_arg_get(a, "rule"), rule, sizeof rule)))
		return cli_refused(rc);
	cli_list_begin(c, "days");
	rc = recurring_expand(rule, cli_arg_get(a, "from"), NULL, NULL, cli_arg_get(a, "to"),
	                      dates_cb, c);
	return cli_list_end(c, rc);
}

#define ID_CMD .max_pos = 1, .id = N_("the recurring job's id"), .db = CLI_DB_OPEN
#define RULE_HELP                                                                                  \
	N_("the rule in iCalendar's RRULE form: FREQ=WEEKLY;INTERVAL=2;BYDAY=TU, "                 \
	   "FREQ=MONTHLY;BYDAY=1MO, FREQ=MONTHLY;BYMONTHDAY=15;COUNT=12, ...;UNTIL=20271231")
#define RULE_OPT                                                                                   \
	{                                                                                          \
		"rule", CLI_VALUE, RULE_HELP, NULL, NULL                                           \
	}
#define WHEN_OFF_OPT                                                                               \
	{                                                                                          \
		"when-off", CLI_VALUE,                                                             \
		    N_("a resource off or taken on a visit's day: skip (default) or move to the "  \
		       "next free day"),                                                           \
		    NULL, NULL                                                                     \
	}

const struct cli_entry cli_recurring_cmds[] = {
    {"add", NULL, "--customer C --rule R --time HH:MM [...]",
     "--customer C --rule RRULE --time HH:MM [--from DATE] [--length L] [--services S[,S...]] "
     "[--resource R[,R...]] [--title T] [--location L] [--note N] [--billing visit|month] "
     "[--when-off skip|move]",
     N_("add a recurring job: its visits are made ahead, up to the horizon"),
     .opts = {{"customer", CLI_VALUE, N_("who: a name, phone or number"), NULL,
               N_("--customer is required")},
              {"rule", CLI_VALUE, RULE_HELP, NULL, N_("--rule is required")},
              {"time", CLI_VALUE, N_("the visits' time of day, shop time: HH:MM"), NULL,
               N_("--time is required")},
              {"from", CLI_VALUE,
               N_("the first day (YYYY-MM-DD, default today): the rule's first day on or "
                  "after it"),
               NULL, NULL},
              {"length", CLI_VALUE, N_("each visit's length: 1:30 or 90m (default: the services')"),
               NULL, NULL},
              {"services", CLI_VALUE,
               N_("catalogue services, separated by ',': their prices today are the job's"), NULL,
               NULL},
              {"resource", CLI_VALUE, N_("the technicians, vans or bays each visit holds"), NULL,
               NULL},
              {"title", CLI_VALUE, N_("the jobs' title (default: the services' names)"), NULL,
               NULL},
              {"location", CLI_VALUE, N_("where (default: the customer's address)"), NULL, NULL},
              {"note", CLI_VALUE, N_("a note for staff"), NULL, NULL},
              {"billing", CLI_VALUE,
               N_("visit (default: an invoice per visit) or month (one job a month, billed "
                  "for the visits done)"),
               NULL, NULL},
              WHEN_OFF_OPT},
     .db = CLI_DB_OPEN, .check = add_check, .run = cmd_add},
    {"list", NULL, "[--customer C] [--all]", NULL, N_("list the recurring jobs"),
     .opts = {{"customer", CLI_VALUE, N_("only this customer's"), NULL, NULL},
              {"all", CLI_FLAG, N_("stopped ones too"), NULL, NULL}},
     .db = CLI_DB_OPEN, .run = cmd_list},
    {"show", NULL, "ID", NULL, N_("show a recurring job, its line items and its visits"), ID_CMD,
     .run = cmd_show},
    {"make", NULL, "ID [--to DATE]", NULL,
     N_("make the visits now, up to the horizon or a day (the task runner does it too)"),
     .opts = {{"to", CLI_VALUE, N_("the last day to make, YYYY-MM-DD"), NULL, NULL}}, ID_CMD,
     .run = cmd_make},
    {"edit", NULL, "ID --scope this|following|all [...]",
     "ID --scope this|following|all [--day DATE] [--rule RRULE] [--time HH:MM] [--length L] "
     "[--location L] [--note N] [--when-off skip|move]",
     N_("change one visit, this and the following, or all future ones"),
     .opts = {{"scope", CLI_VALUE,
               N_("this (the visit of --day only), following (from --day on) or all (from "
                  "today on)"),
               NULL, N_("--scope is required: this, following or all")},
              {"day", CLI_VALUE, N_("the visit's day, as the rule gives it (YYYY-MM-DD)"), NULL,
               NULL},
              RULE_OPT,
              {"time", CLI_VALUE, N_("the new time of day, HH:MM"), NULL, NULL},
              {"length", CLI_VALUE, N_("the new length: 1:30 or 90m"), NULL, NULL},
              {"location", CLI_VALUE, N_("the new place (\"\" clears it)"), NULL, NULL},
              {"note", CLI_VALUE, N_("the new note (\"\" clears it)"), NULL, NULL},
              WHEN_OFF_OPT},
     ID_CMD, .check = edit_check, .run = cmd_edit},
    {"stop", NULL, "ID [--from DATE]", NULL,
     N_("no visit from a day on (default today); the visits made from then are cancelled"),
     .opts = {{"from", CLI_VALUE, N_("the first day without a visit, YYYY-MM-DD"), NULL, NULL}},
     ID_CMD, .run = cmd_stop},
    {"dates", NULL, "--rule R --from DATE --to DATE", NULL,
     N_("the days a rule gives (libical's expansion), without a database"),
     .opts = {RULE_OPT,
              {"from", CLI_VALUE, N_("the rule's first day (DTSTART), YYYY-MM-DD"), NULL,
               N_("--from is required")},
              {"to", CLI_VALUE, N_("the last day shown, YYYY-MM-DD"), NULL,
               N_("--to is required")}},
     .check = dates_check, .run = cmd_dates},
    {NULL},
};
