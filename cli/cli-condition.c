/*
 * cli-condition.c - `frontdesk condition add|list|show|print|finalize`, `condition media
 * add|list|show|upload|run`, `condition hotspot add|edit|list` and
 * `condition provider-set|providers`: condition reports of a visit, their
 * media and hotspots (see condition.h), the media's hosts at a media
 * provider (media.h). Every rule is the core's; this file reads the
 * options, calls it and prints.
 *
 * Coordinates are typed as the core reads them (x,y on a photo, yaw,pitch
 * on a panorama, x,y,z on a 3D capture, '.' the decimal point) and printed
 * with '.' whatever the locale (JSON numbers). Times are shown in shop
 * time; JSON carries UTC.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-money.h"
#include "cli-util.h"
#include "clock.h"
#include "condition-print.h"
#include "condition.h"
#include "control.h"
#include "err.h"
#include "esign.h"
#include "i18n.h"
#include "media.h"
#include "pipe-provider.h"
#include "xalloc.h"

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
	if (r->document_sha256[0]) {
		cJSON *d = cJSON_AddObjectToObject(o, "document");

		cli_json_str(d, "path", r->document_path);
		cli_json_str(d, "sha256", r->document_sha256);
		cli_json_int(d, "size", r->document_size);
	}
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
	struct esign_report_sign sig;
	struct show s = {c, NULL};
	cJSON *o = NULL;
	char when[32];
	int rc;

	if ((rc = condition_get(c->db, a->id, &r)))
		return cli_refused(rc);
	if ((rc = esign_report_state(c->db, r.id, &sig))) {
		condition_free(&r);
		return cli_refused(rc);
	}
	if (c->json) {
		o = report_json(&r);
		if (sig.flow_id) {
			cJSON *g = cJSON_AddObjectToObject(o, "signature");

			cli_json_int(g, "flow_id", sig.flow_id);
			cli_json_str(g, "state", sig.state);
			cli_json_str(g, "provider", sig.provider);
			cli_json_str(g, "document_path", sig.document_path);
			cli_json_str(g, "document_sha256",
			             sig.document_sha256[0] ? sig.document_sha256 : NULL);
		}
		s.arr = cJSON_AddArrayToObject(o, "media");
	} else {
		clock_format_local(r.visit_start, "%Y-%m-%d %H:%M", when, sizeof when);
		printf(_("Condition report %1$lld (%2$s the work), %3$s\n"), (long long)r.id,
		       r.stage, r.status);
		cli_field(_("Visit"), when);
		cli_field(_("Customer"), r.customer_name);
		cli_field(_("Note"), r.note);
		if (r.document_sha256[0]) {
			cli_field(_("Document"), r.document_path
			                             ? r.document_path
			                             : _("(removed with the customer's data)"));
			cli_field(_("SHA-256"), r.document_sha256);
		}
		if (sig.flow_id) {
			cli_field(_("Signature"), sig.state);
			if (sig.document_sha256[0]) {
				cli_field(_("Signed document"),
				          sig.document_path
				              ? sig.document_path
				              : _("(removed with the customer's data)"));
				cli_field(_("Its SHA-256"), sig.document_sha256);
			}
		}
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
	esign_report_sign_free(&sig);
	if (rc) {
		cJSON_Delete(o);
		return cli_refused(rc);
	}
	if (o)
		cli_print_json(o);
	return CLI_OK;
}

/* The report to hand over: text (80 or 42 columns), or a PDF with each
 * photo and panorama and the hotspots drawn on them. */
static int cmd_print(struct cli *c, const struct cli_args *a)
{
	const char *fmt = cli_arg_get(a, "format"), *width = cli_arg_get(a, "width");
	const char *out = cli_arg_get(a, "output");
	int pdf = fmt && !strcmp(fmt, "pdf");
	char name[48];
	int rc = condition_print_write(c->db, a->id, pdf ? PRINT_PDF : PRINT_TEXT,
	                               width ? atoi(width) : PRINT_WIDE, out);

	if (rc)
		return cli_refused(rc);
	snprintf(name, sizeof name, _("Condition report %lld"), (long long)a->id);
	return mcli_print_done(c, name, pdf, out);
}

/* The report made final with its printed PDF (the core's rules). */
static int cmd_finalize(struct cli *c, const struct cli_args *a)
{
	struct condition_report r;
	char *path = NULL;
	int rc;

	if ((rc = condition_finalize(c->db, a->id, &path)) ||
	    (rc = condition_get(c->db, a->id, &r))) {
		free(path);
		return cli_refused(rc);
	}
	if (c->json) {
		cli_print_json(report_json(&r));
	} else {
		printf(_("Condition report %lld is final; nothing of it changes any more.\n"),
		       (long long)r.id);
		cli_field(_("Document"), path);
		cli_field(_("SHA-256"), r.document_sha256);
	}
	condition_free(&r);
	free(path);
	return CLI_OK;
}

/* The customer asked to sign the report's document (the core's rules). */
static int cmd_sign(struct cli *c, const struct cli_args *a)
{
	int64_t flow = 0;
	int rc = esign_send_report(c->db, a->id, cli_arg_get(a, "provider"), &flow);

	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "report_id", a->id);
		cli_json_int(o, "flow_id", flow);
		cli_json_str(o, "state", "sent");
		cli_print_json(o);
	} else {
		printf(_("Condition report %lld is sent to the customer for signature (sign flow "
		         "%lld); the e-sign worker delivers it.\n"),
		       (long long)a->id, (long long)flow);
	}
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

static cJSON *host_json(const struct media_host *h)
{
	cJSON *o = cJSON_CreateObject(), *f = h->frame ? cJSON_Parse(h->frame) : NULL;

	cli_json_int(o, "id", h->id);
	cli_json_int(o, "media_id", h->media_id);
	cli_json_str(o, "provider", h->provider);
	cli_json_str(o, "provider_ref", h->ref);
	cli_json_str(o, "status", h->status);
	cli_json_str(o, "viewer_url", h->viewer_url);
	if (f)
		cJSON_AddItemToObject(o, "frame", f);
	else
		cJSON_AddNullToObject(o, "frame");
	cli_json_str(o, "error", h->error);
	cli_json_time(o, "created_at", h->created_at);
	cli_json_time(o, "updated_at", h->updated_at);
	return o;
}

static int host_cb(const struct media_host *h, void *arg)
{
	cJSON *a = arg;

	if (a) {
		cJSON_AddItemToArray(a, host_json(h));
		return 0;
	}
	printf("  %s  %-10s ", h->provider, h->status);
	cli_puts_safe(h->viewer_url ? h->viewer_url : h->ref ? h->ref : "");
	if (h->error) {
		fputs("  ", stdout);
		cli_puts_safe(h->error);
	}
	putchar('\n');
	return 0;
}

static int cmd_media_show(struct cli *c, const struct cli_args *a)
{
	struct condition_media m;
	cJSON *o = NULL, *hosts = NULL;
	int rc;

	if ((rc = condition_media_get(c->db, a->id, &m)))
		return cli_refused(rc);
	if (c->json) {
		o = media_json(&m);
		hosts = cJSON_AddArrayToObject(o, "hosts");
	} else {
		print_media_line(&m);
		if (m.file_name) {
			printf("  %s ", _("File:"));
			cli_puts_safe(m.file_name);
			putchar('\n');
		}
	}
	condition_media_free(&m);
	if ((rc = media_host_list(c->db, a->id, host_cb, hosts))) {
		cJSON_Delete(o);
		return cli_refused(rc);
	}
	if (o)
		cli_print_json(o);
	return CLI_OK;
}

static int cmd_media_upload(struct cli *c, const struct cli_args *a)
{
	int64_t host;
	int rc;

	if ((rc = media_upload(c->db, a->id, cli_arg_get(a, "provider"), &host)))
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "media_id", a->id);
		cli_json_int(o, "host_id", host);
		cli_print_json(o);
	} else {
		printf(_("Medium %1$lld goes to the media provider (host %2$lld); the worker sends "
		         "it.\n"),
		       (long long)a->id, (long long)host);
	}
	return CLI_OK;
}

/* A medium's copy made whole again from a provider that hosts it. */
static int cmd_media_fetch(struct cli *c, const struct cli_args *a)
{
	char from[41];
	int rc;

	if ((rc = media_fetch(c->db, a->id, cli_arg_get(a, "secrets"), from)))
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "media_id", a->id);
		cli_json_str(o, "provider", from);
		cli_print_json(o);
	} else {
		printf(_("Medium %1$lld's copy is whole again, from the media provider '%2$s'.\n"),
		       (long long)a->id, from);
	}
	return CLI_OK;
}

/* The codes of the enabled media providers, for a round of all of them. */
struct codes {
	char (*v)[41];
	size_t n;
};

static int code_cb(const struct pipe_provider *p, void *arg)
{
	struct codes *c = arg;

	if (!p->enabled)
		return 0;
	c->v = xrealloc(c->v, (c->n + 1) * sizeof *c->v);
	snprintf(c->v[c->n++], 41, "%s", p->code);
	return 0;
}

static int cmd_media_run(struct cli *c, const struct cli_args *a)
{
	struct media_round r = {0};
	struct control_hold lease;
	struct codes codes = {NULL, 0};
	const char *one = cli_arg_get(a, "provider");
	struct pipe_conn ch;
	size_t i;
	int rc;

	if (!cli_arg_flag(a, "once"))
		return cli_usage(a->cmd, _("only --once is supported here; the worker runs in the "
		                           "desk or in 'frontdesk serve'"));
	if (!one && (rc = pipe_provider_list_type(c->db, MEDIA_TYPE, code_cb, &codes)))
		return cli_refused(rc);
	if (!one && !codes.n)
		return cli_refused(err_set(FD_ENOTFOUND, "%s",
		                           _("no media provider is enabled: frontdesk condition "
		                             "provider-set CODE --url URL")));
	if ((rc = control_acquire(c->db, CONTROL_CHANNEL, CONTROL_LEASE, 60, &lease)) != 0) {
		free(codes.v);
		return cli_refused(rc);
	}
	/* every enabled provider (a move's old one deletes what the new holds) */
	for (i = 0; !rc && i < (one ? 1 : codes.n); i++) {
		if ((rc = media_conn_open(c->db, one ? one : codes.v[i], cli_arg_get(a, "secrets"),
		                          NULL, &ch)))
			break;
		rc = media_deliver(c->db, &ch, &lease, NULL, &r);
		if (!rc)
			rc = media_query(c->db, &ch, &lease, NULL, cli_arg_flag(a, "all"), &r);
		pipe_conn_close(&ch);
	}
	control_release(c->db, &lease);
	free(codes.v);
	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "sent", r.sent);
		cli_json_int(o, "failed", r.failed);
		cli_json_int(o, "dead", r.dead);
		cli_json_int(o, "queried", r.queried);
		cli_json_int(o, "settled", r.moved);
		cli_print_json(o);
	} else {
		printf(_("%1$d sent, %2$d to try again, %3$d given up; %4$lld asked about, %5$lld "
		         "ready or failed.\n"),
		       r.sent, r.failed, r.dead, (long long)r.queried, (long long)r.moved);
	}
	return CLI_OK;
}

static int cmd_media_move(struct cli *c, const struct cli_args *a)
{
	int64_t n = 0;
	int rc = media_move(c->db, cli_arg_get(a, "to"), &n);

	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "sent", n);
		cli_print_json(o);
	} else {
		printf(
		    _("%1$lld medium(s) go to %2$s; each one's marks follow it into the new frame "
		      "once it is ready there, and the old copies are deleted. Keep the old "
		      "provider enabled until then.\n"),
		    (long long)n, cli_arg_get(a, "to"));
	}
	return CLI_OK;
}

static int cmd_provider_set(struct cli *c, const struct cli_args *a)
{
	int rc = cli_provider_set_type(c, a, MEDIA_TYPE);

	if (rc == CLI_OK && !c->json)
		printf(_("Media provider %s saved.\n"), a->pos[0]);
	return rc;
}

static int cmd_providers(struct cli *c, const struct cli_args *a)
{
	(void)a;
	return cli_providers_type(c, MEDIA_TYPE);
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
    {"show", NULL, "MEDIUM", NULL,
     N_("a medium and where it is hosted (the provider's id, state, viewer URL)"), .min_pos = 1,
     .max_pos = 1, .id = N_("the medium"), .db = CLI_DB_OPEN, .run = cmd_media_show},
    {"upload", NULL, "MEDIUM [--provider CODE]", NULL,
     N_("send a medium to the media provider (one added before a provider was set, or "
        "refused by one)"),
     .opts = {{"provider", CLI_VALUE, N_("the media provider (default: the registry's primary)"),
               NULL, NULL}},
     .min_pos = 1, .max_pos = 1, .id = N_("the medium"), .db = CLI_DB_OPEN,
     .run = cmd_media_upload},
    {"fetch", NULL, "MEDIUM [--secrets FILE]", NULL,
     N_("make a medium's missing or changed copy whole again: its original is downloaded from "
        "a provider that hosts it and checked against its SHA-256"),
     .opts = {{"secrets", CLI_VALUE, N_("the secrets file (default: the config folder's)"), NULL,
               NULL}},
     .min_pos = 1, .max_pos = 1, .id = N_("the medium"), .db = CLI_DB_OPEN, .run = cmd_media_fetch},
    {"move", NULL, "--to CODE", NULL,
     N_("move the media to another media provider (each re-hosted, its marks following "
        "into the new frame)"),
     .opts = {{"to", CLI_VALUE, N_("the media provider the media move to"), NULL,
               N_("--to is required")}},
     .db = CLI_DB_OPEN, .run = cmd_media_move},
    {"run", NULL, "--once [--all] [--provider CODE]",
     "--once [--all] [--provider CODE] [--secrets FILE]",
     N_("one round of the media steps of every enabled media provider: send the uploads and "
        "deletions due, ask about media still processing"),
     .opts = {{"once", CLI_FLAG, N_("do what is due now and stop"), NULL, NULL},
              {"all", CLI_FLAG,
               N_("ask about every medium still processing, not only those due (an upload "
                  "waiting for its backoff is never sent sooner)"),
               NULL, NULL},
              {"provider", CLI_VALUE, N_("only this media provider"), NULL, NULL},
              {"secrets", CLI_VALUE, N_("the secrets file (default: the config folder's)"), NULL,
               NULL}},
     .db = CLI_DB_OPEN, .run = cmd_media_run},
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
    {"print", NULL, "ID [--format text|pdf] [--width 80|42] [--output FILE]", NULL,
     N_("print a condition report to hand over: text, or an A4 PDF with each photo and panorama "
        "and its numbered marks"),
     .opts = {MCLI_PRINT_OPTS}, .min_pos = 1, .max_pos = 1, .id = N_("the condition report"),
     .check = mcli_print_check, .db = CLI_DB_OPEN, .run = cmd_print},
    {"finalize", NULL, "ID", NULL,
     N_("make a condition report final: its PDF is printed beside the database and kept with "
        "its SHA-256; nothing of the report changes any more"),
     .min_pos = 1, .max_pos = 1, .id = N_("the condition report"), .db = CLI_DB_OPEN,
     .run = cmd_finalize},
    {"sign", NULL, "ID [--provider CODE]", NULL,
     N_("send a final report taken before the work to the customer for signature, through "
        "the e-sign provider"),
     .opts = {{"provider", CLI_VALUE, N_("the e-sign provider (default: the registry's route)"),
               NULL, NULL}},
     .min_pos = 1, .max_pos = 1, .id = N_("the condition report"), .db = CLI_DB_OPEN,
     .run = cmd_sign},
    {"media", NULL, NULL, NULL,
     N_("a report's photos, panoramas and 3D captures: add, list, show, upload, move, run"),
     .sub = media_cmds},
    {"hotspot", NULL, NULL, NULL, N_("the marks on a report's media: add, edit, list"),
     .sub = hotspot_cmds},
    {"provider-set", NULL, "CODE [--url URL] [--role R] [--enable|--disable]",
     "CODE [--url URL] [--role primary|backup] [--adapter media-rest] [--enable|--disable]",
     N_("add or change a media provider (it hosts the media: photos, panoramas, 3D captures)"),
     .opts = {{"url", CLI_VALUE, N_("the provider's base URL (https://, or http://127.0.0.1)"),
               NULL, NULL},
              {"role", CLI_VALUE, N_("primary or backup"), NULL, NULL},
              {"adapter", CLI_VALUE, N_("how to speak to it: media-rest (default)"), NULL, NULL},
              {"enable", CLI_FLAG, N_("use this provider"), NULL, NULL},
              {"disable", CLI_FLAG, N_("stop using this provider"), NULL, NULL}},
     .min_pos = 1, .max_pos = 1, .missing = N_("name the provider code"), .db = CLI_DB_OPEN,
     .run = cmd_provider_set},
    {"providers", NULL, "", NULL, N_("list the media providers"), .db = CLI_DB_OPEN,
     .run = cmd_providers},
    {NULL},
};
