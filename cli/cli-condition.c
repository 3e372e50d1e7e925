/*
 * cli-condition.c - `frontdesk condition add|list|show`, `condition media
 * add|list` and `condition hotspot add|edit|list`: condition reports of a
 * visit, their media and hotspots (see condition.h). Every rule is the
 * core's; this file reads the options, calls it and prints.
 *
 * Coordinates are typed as the core reads them (x,y on a photo, yaw,pitch
 * on a panorama, x,y,z on a 3D capture, '.' the decimal point) and printed
 * with '.' whatever the locale (JSON numbers). Times are shown in shop
 * time; JSON carries UTC.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "cli-util.h"
#include "clock.h"
#include "condition.h"
#include "err.h"
#include "i18n.h"

/* ---------------------------------------------------------------- JSON */

static cJSON *report_json(const struct condition_report *r)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", r->id);
	cli_json_int(o, "visit_id", r->appointment_id);
	cli_json_time(o, "visit_start", r->visit_start);
	cli_json_int(o, "customer_id", r->customer_id);
	cli_json_str(o, "customer", r->customer_name);
	cli_json_str(o, "stage", r->stage);
	cli_json_str(o, "status", r->status);
	cli_json_str(o, "note", r->note);
	cli_json_int(o, "media", r->media);
	cli_json_int(o, "hotspots", r->hotspots);
	cli_json_time(o, "created_at", r->created_at);
	cli_json_time(o, "updated_at", r->updated_at);
	return o;
}

static cJSON *media_json(const struct condition_media *m)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", m->id);
	cli_json_int(o, "report_id", m->report_id);
	cli_json_str(o, "kind", m->kind);
	cli_json_str(o, "caption", m->caption);
	cli_json_str(o, "file_name", m->file_name);
	cli_json_str(o, "content_type", m->content_type);
	cli_json_str(o, "local_path", m->local_path);
	cli_json_str(o, "sha256", m->sha256);
	cli_json_int(o, "size", m->size);
	cli_json_int(o, "hotspots", m->hotspots);
	cli_json_time(o, "created_at", m->created_at);
	return o;
}

static void link_json(cJSON *o, const char *key, int64_t id)
{
	if (id)
		cli_json_int(o, key, id);
	else
		cJSON_AddNullToObject(o, key);
}

/* The names of a hotspot's coordinates in its system (NULL-ended). */
static const char *const *coord_names(const struct condition_hotspot *h)
{
	static const char *const names[3][4] = {
	    {"x", "y", NULL}, {"yaw", "pitch", NULL}, {"x", "y", "z", NULL}};

	return names[!strcmp(h->system, "image") ? 0 : !strcmp(h->system, "equirect") ? 1 : 2];
}

static cJSON *hotspot_json(const struct condition_hotspot *h)
{
	const char *const *names = coord_names(h);
	cJSON *o = cJSON_CreateObject(), *at = cJSON_CreateObject();
	int i;

	cli_json_int(o, "id", h->id);
	cli_json_int(o, "report_id", h->report_id);
	cli_json_int(o, "media_id", h->media_id);
	cli_json_int(o, "number", h->number);
	cli_json_str(o, "kind", h->kind);
	cli_json_str(o, "text", h->label);
	cli_json_str(o, "system", h->system);
	for (i = 0; names[i]; i++)
		cJSON_AddNumberToObject(at, names[i], h->c[i]);
	cJSON_AddItemToObject(o, "at", at);
	link_json(o, "line_item_id", h->line_item_id);
	link_json(o, "resource_id", h->resource_id);
	link_json(o, "earlier_id", h->earlier_id);
	cli_json_time(o, "created_at", h->created_at);
	cli_json_time(o, "updated_at", h->updated_at);
	return o;
}

/* ---------------------------------------------------------------- text */

/* "x,y" as the core reads it, '.' the decimal point whatever the locale
 * (cJSON's numbers). */
static void format_at(const struct condition_hotspot *h, char *buf, size_t n)
{
	const char *const *names = coord_names(h);
	size_t len = 0;
	int i;

	buf[0] = 0;
	for (i = 0; names[i] && len < n; i++) {
		cJSON *v = cJSON_CreateNumber(h->c[i]);
		char *s = cJSON_PrintUnformatted(v);

		if (s)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "," : "", s);
		cJSON_free(s);
		cJSON_Delete(v);
	}
}

static void print_report_line(const struct condition_report *r)
{
	char when[32];

	clock_format_local(r->visit_start, "%Y-%m-%d %H:%M", when, sizeof when);
	printf("%6lld  ", (long long)r->id);
	printf(_("visit %1$lld %2$s  %3$-6s %4$-5s  %5$lld media, %6$lld hotspots  "),
	       (long long)r->appointment_id, when, r->stage, r->status, (long long)r->media,
	       (long long)r->hotspots);
	cli_puts_safe(r->customer_name ? r->customer_name : "");
	putchar('\n');
}

static void print_media_line(const struct condition_media *m)
{
	printf("  M%-5lld %-8s %10lld  %.12s  ", (long long)m->id, m->kind, (long long)m->size,
	       m->sha256);
	cli_puts_safe(m->caption ? m->caption : m->file_name ? m->file_name : "");
	putchar('\n');
}

static void print_hotspot_line(const struct condition_hotspot *h)
{
	char at[96];

	format_at(h, at, sizeof at);
	printf("  #%-3d %-7s M%-5lld %-24s ", h->number, h->kind, (long long)h->media_id, at);
	cli_puts_safe(h->label);
	if (h->line_item_id)
		printf(_("  [item %lld]"), (long long)h->line_item_id);
	if (h->resource_id)
		printf(_("  [resource %lld]"), (long long)h->resource_id);
	if (h->earlier_id)
		printf(_("  [seen before: hotspot %lld]"), (long long)h->earlier_id);
	printf("  (id %lld)\n", (long long)h->id);
}

/* ---------------------------------------------------------------- reports */

static int cmd_add(struct cli *c, const struct cli_args *a)
{
	const char *stage = cli_arg_get(a, "stage");
	struct condition_report r;
	int64_t id;
	int rc;

	if ((rc = condition_add(c->db, cli_arg_id(a, "visit"), stage ? stage : "before",
	                        cli_arg_get(a, "note"), &id)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Condition report %lld added.\n"), (long long)id);
		return CLI_OK;
	}
	if ((rc = condition_get(c->db, id, &r)))
		return cli_refused(rc);
	cli_print_json(report_json(&r));
	condition_free(&r);
	return CLI_OK;
}

static int list_cb(const struct condition_report *r, void *arg)
{
	struct cli *c = arg;

	if (c->json)
		cli_list_add(c, report_json(r));
	else
		print_report_line(r);
	return 0;
}

static int cmd_list(struct cli *c, const struct cli_args *a)
{
	cli_list_begin(c, "reports");
	return cli_list_end(c, condition_list(c->db, cli_arg_id(a, "visit"),
	                                      cli_arg_id(a, "customer"), list_cb, c));
}

struct show {
	struct cli *c;
	cJSON *arr;
};

static int show_media_cb(const struct condition_media *m, void *arg)
{
	struct show *s = arg;

	if (s->arr)
		cJSON_AddItemToArray(s->arr, media_json(m));
	else
		print_media_line(m);
	return 0;
}

static int show_hotspot_cb(const struct condition_hotspot *h, void *arg)
{
	struct show *s = arg;

	if (s->arr)
		cJSON_AddItemToArray(s->arr, hotspot_json(h));
	else
		print_hotspot_line(h);
	return 0;
}

static int cmd_show(struct cli *c, const struct cli_args *a)
{
	struct condition_report r;
	struct show s = {c, NULL};
	cJSON *o = NULL;
	char when[32];
	int rc;

	if ((rc = condition_get(c->db, a->id, &r)))
		return cli_refused(rc);
	if (c->json) {
		o = report_json(&r);
		s.arr = cJSON_AddArrayToObject(o, "media");
	} else {
		clock_format_local(r.visit_start, "%Y-%m-%d %H:%M", when, sizeof when);
		printf(_("Condition report %1$lld (%2$s the work), %3$s\n"), (long long)r.id,
		       r.stage, r.status);
		cli_field(_("Visit"), when);
		cli_field(_("Customer"), r.customer_name);
		cli_field(_("Note"), r.note);
		printf(_("Media:\n"));
	}
	rc = condition_media_list(c->db, r.id, show_media_cb, &s);
	if (!rc) {
		if (o)
			s.arr = cJSON_AddArrayToObject(o, "hotspots");
		else
			printf(_("Hotspots:\n"));
		rc = condition_hotspot_list(c->db, r.id, show_hotspot_cb, &s);
	}
	condition_free(&r);
	if (rc) {
		cJSON_Delete(o);
		return cli_refused(rc);
	}
	if (o)
		cli_print_json(o);
	return CLI_OK;
}

/* ---------------------------------------------------------------- media */

static int cmd_media_add(struct cli *c, const struct cli_args *a)
{
	struct condition_media m;
	int64_t id;
	int rc;

	if ((rc = condition_media_add(c->db, a->id, a->pos[1], cli_arg_get(a, "kind"),
	                              cli_arg_get(a, "caption"), &id)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Medium %1$lld added to condition report %2$lld.\n"), (long long)id,
		       (long long)a->id);
		return CLI_OK;
	}
	if ((rc = condition_media_get(c->db, id, &m)))
		return cli_refused(rc);
	cli_print_json(media_json(&m));
	condition_media_free(&m);
	return CLI_OK;
}

static int media_list_cb(const struct condition_media *m, void *arg)
{
	struct cli *c = arg;

	if (c->json)
		cli_list_add(c, media_json(m));
	else
		print_media_line(m);
	return 0;
}

static int cmd_media_list(struct cli *c, const struct cli_args *a)
{
	cli_list_begin(c, "media");
	return cli_list_end(c, condition_media_list(c->db, a->id, media_list_cb, c));
}

/* ---------------------------------------------------------------- hotspots */

/* Check the link options before the database opens: an id or "none". */
static int check_links(struct cli *c, const struct cli_args *a)
{
	static const char *const names[] = {"item", "resource", "earlier"};
	size_t i;
	int64_t id;

	(void)c;
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		const char *v = cli_arg_get(a, names[i]);

		if (v && strcmp(v, "none") && cli_parse_id(a->cmd, names[i], v, &id) != CLI_OK)
			return CLI_USAGE;
	}
	return CLI_OK;
}

/* The id a link option carries (after check_links): -1 when absent
 * (kept), 0 for "none". */
static int64_t link_id(const struct cli_args *a, const char *name)
{
	const char *v = cli_arg_get(a, name);
	int64_t id = 0;

	if (!v)
		return -1;
	if (!strcmp(v, "none"))
		return 0;
	cli_parse_id(a->cmd, name, v, &id);
	return id;
}

static void hotspot_input(const struct cli_args *a, struct condition_hotspot_input *in)
{
	memset(in, 0, sizeof *in);
	in->kind = cli_arg_get(a, "kind");
	in->label = cli_arg_get(a, "text");
	in->at = cli_arg_get(a, "at");
	in->line_item_id = link_id(a, "item");
	in->resource_id = link_id(a, "resource");
	in->earlier_id = link_id(a, "earlier");
}

static int print_hotspot(struct cli *c, int64_t id)
{
	struct condition_hotspot h;
	int rc;

	if ((rc = condition_hotspot_get(c->db, id, &h)))
		return cli_refused(rc);
	cli_print_json(hotspot_json(&h));
	condition_hotspot_free(&h);
	return CLI_OK;
}

static int cmd_hotspot_add(struct cli *c, const struct cli_args *a)
{
	struct condition_hotspot_input in;
	int64_t id;
	int number, rc;

	hotspot_input(a, &in);
	in.media_id = cli_arg_id(a, "media");
	if (in.line_item_id < 0)
		in.line_item_id = 0;
	if (in.resource_id < 0)
		in.resource_id = 0;
	if (in.earlier_id < 0)
		in.earlier_id = 0;
	if ((rc = condition_hotspot_add(c->db, &in, &id, &number)))
		return cli_refused(rc);
	if (c->json)
		return print_hotspot(c, id);
	printf(_("Hotspot %1$d added (id %2$lld).\n"), number, (long long)id);
	return CLI_OK;
}

static int cmd_hotspot_edit(struct cli *c, const struct cli_args *a)
{
	struct condition_hotspot_input in;
	int rc;

	hotspot_input(a, &in);
	if ((rc = condition_hotspot_edit(c->db, a->id, &in)))
		return cli_refused(rc);
	if (c->json)
		return print_hotspot(c, a->id);
	printf(_("Hotspot %lld changed.\n"), (long long)a->id);
	return CLI_OK;
}

static int hotspot_list_cb(const struct condition_hotspot *h, void *arg)
{
	struct cli *c = arg;

	if (c->json)
		cli_list_add(c, hotspot_json(h));
	else
		print_hotspot_line(h);
	return 0;
}

static int cmd_hotspot_list(struct cli *c, const struct cli_args *a)
{
	cli_list_begin(c, "hotspots");
	return cli_list_end(c, condition_hotspot_list(c->db, a->id, hotspot_list_cb, c));
}

/* ---------------------------------------------------------------- table */

#define KIND_OPT                                                                                   \
	{                                                                                          \
		"kind", CLI_VALUE, N_("damage, note, meter, device or action"), NULL, NULL         \
	}
#define TEXT_OPT                                                                                   \
	{                                                                                          \
		"text", CLI_VALUE, N_("what the mark is, in a line"), NULL, NULL                   \
	}
#define AT_OPT                                                                                     \
	{                                                                                          \
		"at", CLI_VALUE,                                                                   \
		    N_("where: x,y on a photo (0..1 from the top-left corner), yaw,pitch on a "    \
		       "panorama (degrees), x,y,z on a 3D capture"),                               \
		    NULL, NULL                                                                     \
	}
#define LINK_OPTS                                                                                  \
	{"item", CLI_VALUE,                                                                        \
	 N_("a line item of the visit's jobs (the repair of this mark), or none"), NULL, NULL},    \
	    {"resource", CLI_VALUE, N_("a resource (the device or bay it concerns), or none"),     \
	     NULL, NULL},                                                                          \
	{                                                                                          \
		"earlier", CLI_VALUE,                                                              \
		    N_("the same mark's hotspot on an earlier report of the customer, or none"),   \
		    NULL, NULL                                                                     \
	}

static const struct cli_entry media_cmds[] = {
    {"add", NULL, "REPORT FILE [...]", "REPORT FILE [--kind photo|panorama|model] [--caption C]",
     N_("add a photo, a panorama or a 3D capture to a condition report (a copy is kept)"),
     .opts = {{"kind", CLI_VALUE, N_("photo (the default), panorama or model"), NULL, NULL},
              {"caption", CLI_VALUE, N_("a line about what it shows"), NULL, NULL}},
     .min_pos = 2, .max_pos = 2, .nonempty = 1,
     .missing = N_("name the condition report and the file"), .id = N_("the condition report"),
     .db = CLI_DB_OPEN, .run = cmd_media_add},
    {"list", NULL, "REPORT", NULL, N_("a condition report's media"), .min_pos = 1, .max_pos = 1,
     .id = N_("the condition report"), .db = CLI_DB_OPEN, .run = cmd_media_list},
    {NULL},
};

static const struct cli_entry hotspot_cmds[] = {
    {"add", NULL, "--media ID --kind K --text T --at X,Y [...]",
     "--media ID --kind K --text T --at X,Y [--item ID] [--resource ID] [--earlier ID]",
     N_("mark a place on a medium: numbered in its report"),
     .opts = {{"media", CLI_ID_NEEDED, N_("the medium it lies on"), N_("--media"),
               N_("--media, --kind, --text and --at are required")},
              {"kind", CLI_VALUE, N_("damage, note, meter, device or action"), NULL,
               N_("--media, --kind, --text and --at are required")},
              {"text", CLI_VALUE, N_("what the mark is, in a line"), NULL,
               N_("--media, --kind, --text and --at are required")},
              {"at", CLI_VALUE,
               N_("where: x,y on a photo (0..1 from the top-left corner), yaw,pitch on a "
                  "panorama (degrees), x,y,z on a 3D capture"),
               NULL, N_("--media, --kind, --text and --at are required")},
              LINK_OPTS},
     .check = check_links, .db = CLI_DB_OPEN, .run = cmd_hotspot_add},
    {"edit", NULL, "ID [...]", "ID [--kind K] [--text T] [--at X,Y] [--item ID|none] [...]",
     N_("change a hotspot (it stays on its medium, with its number)"),
     .opts = {KIND_OPT, TEXT_OPT, AT_OPT, LINK_OPTS}, .min_pos = 1, .max_pos = 1,
     .id = N_("the hotspot"), .check = check_links, .db = CLI_DB_OPEN, .run = cmd_hotspot_edit},
    {"list", NULL, "REPORT", NULL, N_("a condition report's hotspots, by number"), .min_pos = 1,
     .max_pos = 1, .id = N_("the condition report"), .db = CLI_DB_OPEN, .run = cmd_hotspot_list},
    {NULL},
};

const struct cli_entry cli_condition_cmds[] = {
    {"add", NULL, "--visit ID [...]", "--visit ID [--stage before|after] [--note N]",
     N_("record a visit's condition report, before the work (the default) or after it"),
     .opts = {{"visit", CLI_ID_NEEDED, N_("the visit"), N_("--visit"), NULL},
              {"stage", CLI_VALUE, N_("before (the default) or after the work"), NULL, NULL},
              {"note", CLI_VALUE, N_("a note on the whole (the meter reading, the weather)"), NULL,
               NULL}},
     .db = CLI_DB_OPEN, .run = cmd_add},
    {"list", NULL, "[--visit ID | --customer ID]", NULL,
     N_("condition reports, newest visit first"),
     .opts = {{"visit", CLI_ID, N_("only this visit's"), N_("--visit"), NULL},
              {"customer", CLI_ID, N_("only this customer's"), N_("--customer"), NULL}},
     .db = CLI_DB_OPEN, .run = cmd_list},
    {"show", NULL, "ID", NULL, N_("a condition report with its media and hotspots"), .min_pos = 1,
     .max_pos = 1, .id = N_("the condition report"), .db = CLI_DB_OPEN, .run = cmd_show},
    {"media", NULL, NULL, NULL, N_("a report's photos, panoramas and 3D captures: add, list"),
     .sub = media_cmds},
    {"hotspot", NULL, NULL, NULL, N_("the marks on a report's media: add, edit, list"),
     .sub = hotspot_cmds},
    {NULL},
};
