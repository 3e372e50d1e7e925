/*
 * cli-capacity.c - `frontdesk resource add|list|show|change|hours|off` (the
 * technicians, vans and bays, when they work, their days off) and
 * `frontdesk availability` (the free slots), over capacity.h. A resource
 * is named by its number or its name.
 *
 * Times are typed and shown in shop time; JSON carries UTC ISO 8601 and,
 * for working hours, minutes of the local day.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capacity.h"
#include "cli-util.h"
#include "clock.h"
#include "err.h"
#include "i18n.h"
#include "service.h"
#include "strbuf.h"

static const char *const wday_names[7] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};

/* The resource pos[0] names, or a refusal. */
static int named(struct cli *c, const struct cli_args *a, int64_t *id)
{
	int rc = capacity_resource_find(c->db, a->pos[0], id);

	return rc ? cli_refused(rc) : 0;
}

struct hours_json {
	cJSON *arr;
	struct strbuf *text;
	int last_wday;
};

static int hours_cb(int weekday, const struct cap_span *s, void *arg)
{
	struct hours_json *h = arg;

	if (h->arr) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "weekday", weekday);
		cli_json_int(o, "start_min", s->start_min);
		cli_json_int(o, "end_min", s->end_min);
		cJSON_AddItemToArray(h->arr, o);
	}
	if (h->text) {
		if (weekday != h->last_wday)
			sb_printf(h->text, "%s%s ", h->text->len ? "; " : "", wday_names[weekday]);
		else
			sb_puts(h->text, ",");
		sb_printf(h->text, "%02d:%02d-%02d:%02d", s->start_min / 60, s->start_min % 60,
		          s->end_min / 60, s->end_min % 60);
		h->last_wday = weekday;
	}
	return 0;
}

static cJSON *to_json(struct cli *c, const struct resource *r)
{
	cJSON *o = cJSON_CreateObject();
	struct hours_json h = {cJSON_CreateArray(), NULL, -1};

	cli_json_int(o, "id", r->id);
	cli_json_str(o, "name", r->name);
	cli_json_str(o, "kind", r->kind);
	cJSON_AddBoolToObject(o, "active", r->active);
	cli_json_str(o, "note", r->note);
	capacity_hours_list(c->db, r->id, hours_cb, &h);
	cJSON_AddItemToObject(o, "hours", h.arr);
	return o;
}

static int off_print(int64_t resource_id, const char *day, const struct cap_span *span,
                     const char *reason, void *arg)
{
	cJSON *arr = arg;

	(void)resource_id;
	if (arr) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "date", day);
		cJSON_AddBoolToObject(o, "closed", span == NULL);
		if (span) {
			cli_json_int(o, "start_min", span->start_min);
			cli_json_int(o, "end_min", span->end_min);
		}
		cli_json_str(o, "reason", reason);
		cJSON_AddItemToArray(arr, o);
		return 0;
	}
	if (span)
		printf("  %s  %02d:%02d-%02d:%02d", day, span->start_min / 60, span->start_min % 60,
		       span->end_min / 60, span->end_min % 60);
	else
		printf("  %s  %s", day, _("closed"));
	if (reason) {
		printf("  ");
		cli_puts_safe(reason);
	}
	putchar('\n');
	return 0;
}

static int show_one(struct cli *c, int64_t id)
{
	struct hours_json h = {NULL, NULL, -1};
	struct strbuf text = {0};
	struct resource r;
	char today[16];
	int rc = capacity_resource_get(c->db, id, &r);

	if (rc)
		return cli_refused(rc);
	clock_format_local(clock_now(), "%Y-%m-%d", today, sizeof today);
	if (c->json) {
		cJSON *o = to_json(c, &r), *off = cJSON_CreateArray();

		capacity_off_list(c->db, id, today, off_print, off);
		cJSON_AddItemToObject(o, "days_off", off);
		cli_print_json(o);
	} else {
		h.text = &text;
		capacity_hours_list(c->db, id, hours_cb, &h);
		printf("%s: %lld\n", _("Resource"), (long long)r.id);
		cli_field(_("Name"), r.name);
		cli_field(_("Kind"), r.kind);
		cli_field(_("Status"), r.active ? _("active") : _("retired"));
		cli_field(_("Hours"), text.len ? sb_cstr(&text) : _("none set"));
		if (r.note)
			cli_field(_("Note"), r.note);
		printf("%s:\n", _("Days off and other hours from today"));
		capacity_off_list(c->db, id, today, off_print, NULL);
	}
	sb_free(&text);
	capacity_resource_free(&r);
	return CLI_OK;
}

static int cmd_add(struct cli *c, const struct cli_args *a)
{
	struct resource_input in = {0};
	int64_t id;
	int rc;

	in.name = cli_arg_get(a, "name");
	in.kind = cli_arg_get(a, "kind");
	in.note = cli_arg_get(a, "note");
	if ((rc = capacity_resource_add(c->db, &in, &id)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Resource %lld added (set its hours with 'frontdesk resource hours').\n"),
		       (long long)id);
		return CLI_OK;
	}
	return show_one(c, id);
}

static int list_cb(const struct resource *r, void *arg)
{
	struct cli *c = arg;
	struct hours_json h = {NULL, NULL, -1};
	struct strbuf text = {0};

	if (c->json) {
		cli_list_add(c, to_json(c, r));
		return 0;
	}
	h.text = &text;
	capacity_hours_list(c->db, r->id, hours_cb, &h);
	printf("%6lld  ", (long long)r->id);
	cli_puts_safe(r->name);
	printf("  %s  %s", r->kind, text.len ? sb_cstr(&text) : _("no hours set"));
	if (!r->active)
		printf("  (%s)", _("retired"));
	putchar('\n');
	sb_free(&text);
	return 0;
}

static int cmd_list(struct cli *c, const struct cli_args *a)
{
	cli_list_begin(c, "resources");
	return cli_list_end(c, capacity_resource_list(c->db, cli_arg_flag(a, "all"), list_cb, c));
}

static int cmd_show(struct cli *c, const struct cli_args *a)
{
	int64_t id;
	int rc;

	if ((rc = named(c, a, &id)))
		return rc;
	return show_one(c, id);
}

static int change_check(struct cli *c, const struct cli_args *a)
{
	(void)c;
	if (cli_arg_flag(a, "retire") && cli_arg_flag(a, "activate"))
		return cli_usage(a->cmd, _("--retire and --activate exclude each other"));
	return 0;
}

static int cmd_change(struct cli *c, const struct cli_args *a)
{
	struct resource_input in = {0};
	int64_t id;
	int rc;

	if ((rc = named(c, a, &id)))
		return rc;
	in.name = cli_arg_get(a, "name");
	in.kind = cli_arg_get(a, "kind");
	in.note = cli_arg_get(a, "note");
	in.active = cli_arg_flag(a, "retire") ? 0 : cli_arg_flag(a, "activate") ? 1 : -1;
	if ((rc = capacity_resource_change(c->db, id, &in)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Resource %lld changed.\n"), (long long)id);
		return CLI_OK;
	}
	return show_one(c, id);
}

static int cmd_hours(struct cli *c, const struct cli_args *a)
{
	struct cap_span spans[CAPACITY_MAX_SPANS];
	unsigned mask;
	size_t n;
	int64_t id;
	int rc;

	if ((rc = named(c, a, &id)))
		return rc;
	if ((rc = capacity_parse_weekdays(cli_arg_get(a, "days"), &mask)) ||
	    (rc = capacity_parse_spans(cli_arg_get(a, "spans"), spans, &n)) ||
	    (rc = capacity_hours_set(c->db, id, mask, spans, n)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Working hours of resource %lld set.\n"), (long long)id);
		return CLI_OK;
	}
	return show_one(c, id);
}

static int off_check(struct cli *c, const struct cli_args *a)
{
	(void)c;
	if (cli_arg_flag(a, "clear") && (cli_arg_get(a, "hours") || cli_arg_get(a, "reason")))
		return cli_usage(a->cmd, _("--clear takes neither --hours nor --reason"));
	return 0;
}

static int cmd_off(struct cli *c, const struct cli_args *a)
{
	struct cap_span spans[CAPACITY_MAX_SPANS];
	const char *hours = cli_arg_get(a, "hours");
	size_t n = 0;
	int64_t id;
	int rc;

	if ((rc = named(c, a, &id)))
		return rc;
	if (cli_arg_flag(a, "clear")) {
		rc = capacity_off_clear(c->db, id, cli_arg_get(a, "date"));
	} else {
		if (hours && (rc = capacity_parse_spans(hours, spans, &n)))
			return cli_refused(rc);
		if (hours && n > 1)
			return cli_refused(err_set(FD_EINVAL, "%s",
			                           _("a day's other hours are one span, such as "
			                             "10:00-14:00")));
		rc = capacity_off(c->db, id, cli_arg_get(a, "date"), n ? &spans[0] : NULL,
		                  cli_arg_get(a, "reason"));
	}
	if (rc)
		return cli_refused(rc);
	if (!c->json) {
		printf(cli_arg_flag(a, "clear")
		           ? _("Resource %1$lld works its usual hours on %2$s.\n")
		       : n ? _("Resource %1$lld has other hours on %2$s.\n")
		           : _("Resource %1$lld is off on %2$s.\n"),
		       (long long)id, cli_arg_get(a, "date"));
		return CLI_OK;
	}
	return show_one(c, id);
}

#define ONE_RESOURCE                                                                               \
	.min_pos = 1, .max_pos = 1, .nonempty = 1,                                                 \
	.missing = N_("name the resource (its number or name)"), .db = CLI_DB_OPEN

const struct cli_entry cli_resource_cmds[] = {
    {"add", NULL, "--name N --kind K", "--name NAME --kind technician|van|bay [--note N]",
     N_("add a technician, van or bay"),
     .opts = {{"name", CLI_VALUE, N_("its name, unique (e.g. Ann, Van 2)"), NULL,
               N_("--name and --kind are required")},
              {"kind", CLI_VALUE, N_("technician, van or bay"), NULL,
               N_("--name and --kind are required")},
              {"note", CLI_VALUE, N_("a note for staff"), NULL, NULL}},
     .db = CLI_DB_OPEN, .run = cmd_add},
    {"list", NULL, "[--all]", NULL, N_("list the resources and their weekly hours"),
     .opts = {{"all", CLI_FLAG, N_("the retired ones too"), NULL, NULL}}, .db = CLI_DB_OPEN,
     .run = cmd_list},
    {"show", NULL, "R", NULL, N_("show a resource, its hours and its coming days off"),
     ONE_RESOURCE, .run = cmd_show},
    {"change", NULL, "R [--name N ...]",
     "R [--name N] [--kind K] [--note N] [--retire | --activate]",
     N_("rename, change the kind or note, retire or bring back a resource"),
     .opts = {{"name", CLI_VALUE, N_("the new name"), NULL, NULL},
              {"kind", CLI_VALUE, N_("technician, van or bay"), NULL, NULL},
              {"note", CLI_VALUE, N_("a note for staff (\"\" clears it)"), NULL, NULL},
              {"retire", CLI_FLAG, N_("no new bookings (booked visits keep it)"), NULL, NULL},
              {"activate", CLI_FLAG, N_("bookable again"), NULL, NULL}},
     ONE_RESOURCE, .check = change_check, .run = cmd_change},
    {"hours", NULL, "R --days D --spans S",
     "R --days mon-fri|sat,sun|weekdays|all --spans 08:00-12:00,13:00-17:00|off",
     N_("set the weekly working hours of some weekdays (shop time)"),
     .opts = {{"days", CLI_VALUE, N_("the weekdays: mon, mon-fri, sat,sun, weekdays or all"), NULL,
               N_("--days and --spans are required")},
              {"spans", CLI_VALUE,
               N_("the working spans of each of those days, or off (not working)"), NULL,
               N_("--days and --spans are required")}},
     ONE_RESOURCE, .run = cmd_hours},
    {"off", NULL, "R --date D [...]",
     "R --date YYYY-MM-DD [--hours HH:MM-HH:MM] [--reason R] | --clear",
     N_("a day off, or other hours on one day (a holiday, a half day)"),
     .opts = {{"date", CLI_VALUE, N_("the day, YYYY-MM-DD (shop time)"), NULL,
               N_("--date is required")},
              {"hours", CLI_VALUE, N_("works these hours that day instead of being off"), NULL,
               NULL},
              {"reason", CLI_VALUE, N_("why (shown when a booking is refused)"), NULL, NULL},
              {"clear", CLI_FLAG, N_("remove that day's exception: the usual hours again"), NULL,
               NULL}},
     ONE_RESOURCE, .check = off_check, .run = cmd_off},
    {NULL},
};

/* ---------------------------------------------------------------- availability */

struct av_out {
	struct cli *c;
	int64_t day;      /* the day of the line being printed */
	int64_t resource; /* its resource */
	long count;
};

static int slot_cb(const struct cap_slot *s, void *arg)
{
	struct av_out *o = arg;
	char t[32];

	o->count++;
	if (o->c->json) {
		cJSON *j = cJSON_CreateObject();

		cli_json_int(j, "resource_id", s->resource_id);
		cli_json_str(j, "resource", s->name);
		cli_json_str(j, "kind", s->kind);
		cli_json_time(j, "start", s->start_at);
		cli_json_time(j, "end", s->end_at);
		clock_format_local(s->start_at, "%Y-%m-%d %H:%M", t, sizeof t);
		cli_json_str(j, "start_local", t);
		cli_list_add(o->c, j);
		return 0;
	}
	/* one line per day and resource: its free starts */
	if (clock_day_start(s->start_at) != o->day || s->resource_id != o->resource) {
		if (o->day)
			putchar('\n');
		o->day = clock_day_start(s->start_at);
		o->resource = s->resource_id;
		clock_format_local(s->start_at, "%Y-%m-%d %a", t, sizeof t);
		printf("%s  ", t);
		cli_puts_safe(s->name);
		printf(" (%s):", s->kind);
	}
	clock_format_local(s->start_at, "%H:%M", t, sizeof t);
	printf(" %s", t);
	return 0;
}

static int av_days(const struct cli_args *a, int64_t *from, long *days)
{
	const char *f = cli_arg_get(a, "from"), *d = cli_arg_get(a, "days");
	char *end;
	int rc;

	*days = 1;
	if (d) {
		*days = strtol(d, &end, 10);
		if (!*d || *end || *days < 1 || *days > 62)
			return cli_usage(a->cmd, _("--days must be a number from 1 to 62"));
	}
	if (!f) {
		*from = clock_day_start(clock_now());
		return 0;
	}
	if ((rc = clock_parse_local(f, from)))
		return cli_refused(rc);
	return 0;
}

static int av_minutes(const struct cli_args *a, long *minutes)
{
	const char *m = cli_arg_get(a, "minutes");
	char *end;

	*minutes = 0;
	if (!m)
		return 0;
	*minutes = strtol(m, &end, 10);
	if (!*m || *end || *minutes < 1 || *minutes > 10080)
		return cli_usage(a->cmd, _("--minutes must be a number from 1 to 10080"));
	return 0;
}

static int av_check(struct cli *c, const struct cli_args *a)
{
	int64_t from;
	long days, minutes;
	int rc;

	(void)c;
	if ((rc = av_days(a, &from, &days)) || (rc = av_minutes(a, &minutes)))
		return rc;
	if (cli_arg_get(a, "service") && cli_arg_get(a, "minutes"))
		return cli_usage(a->cmd, _("give --service or --minutes, not both"));
	return 0;
}

static int cmd_availability(struct cli *c, const struct cli_args *a)
{
	int64_t ids[CAPACITY_MAX_RESOURCES], from;
	struct av_out o = {c, 0, 0, 0};
	long days, minutes;
	size_t n = 0;
	int rc;

	if ((rc = av_days(a, &from, &days)) || (rc = av_minutes(a, &minutes)))
		return rc;
	if (cli_arg_get(a, "service")) {
		struct service s;
		int64_t sid;

		if ((rc = service_find(c->db, cli_arg_get(a, "service"), &sid)) ||
		    (rc = service_get(c->db, sid, &s)))
			return cli_refused(rc);
		minutes = s.minutes;
		service_free(&s);
	}
	if (minutes <= 0)
		minutes = 60; /* a service without default minutes, or none named */
	if ((rc = capacity_resource_parse(c->db, cli_arg_get(a, "resource"), ids, &n)))
		return cli_refused(rc);
	if (c->json)
		cli_list_begin(c, "slots");
	rc = capacity_available(c->db, from, (int)days, (int)minutes, capacity_slot_minutes(), ids,
	                        n, slot_cb, &o);
	if (c->json)
		return cli_list_end(c, rc);
	if (o.day)
		putchar('\n');
	if (rc)
		return cli_refused(rc);
	if (!o.count)
		printf(_("No free slot of %ld minutes.\n"), minutes);
	return CLI_OK;
}

const struct cli_entry cli_availability_entry = {
    "availability",
    NULL,
    "[--from D] [--days N] [--service S] ...",
    "[--from YYYY-MM-DD] [--days N] [--service S | --minutes M] [--resource R[,R...]]",
    N_("the free slots of each resource for a service's length"),
    .opts = {{"from", CLI_VALUE, N_("first day, YYYY-MM-DD (default: today)"), NULL, NULL},
             {"days", CLI_VALUE, N_("how many days (1 to 62, default 1)"), NULL, NULL},
             {"service", CLI_VALUE,
              N_("the service to fit: its minutes in the catalogue (default 60 minutes)"), NULL,
              NULL},
             {"minutes", CLI_VALUE, N_("the length to fit instead of a service's"), NULL, NULL},
             {"resource", CLI_VALUE,
              N_("only these resources (names or numbers, separated by ',')"), NULL, NULL}},
    .db = CLI_DB_OPEN,
    .check = av_check,
    .run = cmd_availability};

/* ------------------------------------------------------------ holiday */

static int holiday_check(struct cli *c, const struct cli_args *a)
{
	(void)c;
	if (!strcmp(a->entry->name, "list") && cli_arg_get(a, "from") &&
	    strlen(cli_arg_get(a, "from")) != 10)
		return cli_usage(a->cmd, _("--from is a date as YYYY-MM-DD"));
	return 0;
}

static int cmd_holiday_add(struct cli *c, const struct cli_args *a)
{
	int rc;

	if ((rc = capacity_holiday_set(c->db, a->pos[0], cli_arg_get(a, "reason"))))
		return cli_refused(rc);
	if (!c->json)
		printf(_("The shop is closed on %s.\n"), a->pos[0]);
	else {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "day", a->pos[0]);
		cli_json_str(o, "reason", cli_arg_get(a, "reason"));
		cli_print_json(o);
	}
	return CLI_OK;
}

static int cmd_holiday_remove(struct cli *c, const struct cli_args *a)
{
	int rc;

	if ((rc = capacity_holiday_clear(c->db, a->pos[0])))
		return cli_refused(rc);
	if (!c->json)
		printf(_("The shop is open again on %s.\n"), a->pos[0]);
	else {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "day", a->pos[0]);
		cli_print_json(o);
	}
	return CLI_OK;
}

static int holiday_cb(const char *day, const char *reason, void *arg)
{
	struct cli *c = arg;

	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "day", day);
		cli_json_str(o, "reason", reason);
		cli_list_add(c, o);
		return 0;
	}
	printf("%s  ", day);
	cli_puts_safe(reason ? reason : "-");
	putchar('\n');
	return 0;
}

static int cmd_holiday_list(struct cli *c, const struct cli_args *a)
{
	cli_list_begin(c, "holidays");
	return cli_list_end(c, capacity_holiday_list(c->db, cli_arg_get(a, "from"), holiday_cb, c));
}

const struct cli_entry cli_holiday_cmds[] = {
    {"add", NULL, "DATE [--reason R]", NULL,
     N_("close the shop on a day: no resource works then (unless given that day's hours), "
        "recurring jobs skip or move their visit"),
     .opts = {{"reason", CLI_VALUE, N_("why (a public holiday, a stocktake)"), NULL, NULL}},
     .min_pos = 1, .max_pos = 1, .missing = N_("the day is missing (YYYY-MM-DD)"),
     .db = CLI_DB_OPEN, .run = cmd_holiday_add},
    {"list", NULL, "[--from DATE]", NULL, N_("the shop's closed days"),
     .opts = {{"from", CLI_VALUE, N_("from this day on (YYYY-MM-DD)"), NULL, NULL}},
     .db = CLI_DB_OPEN, .check = holiday_check, .run = cmd_holiday_list},
    {"remove", NULL, "DATE", NULL, N_("open the shop again on a day"), .min_pos = 1, .max_pos = 1,
     .missing = N_("the day is missing (YYYY-MM-DD)"), .db = CLI_DB_OPEN,
     .run = cmd_holiday_remove},
    {NULL},
};
