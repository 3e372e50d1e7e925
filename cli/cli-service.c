/*
 * cli-service.c - `frontdesk service add|list|show|edit|retire|bill`:
 * the service catalogue (see service.h).
 *
 * Prices are typed and shown in the service's currency ("45.00"); JSON
 * carries minor units. A value that cannot be read (price, minutes,
 * quantity) is a refusal (exit 1) like any other bad input; a missing or
 * malformed id is bad usage (exit 2).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "cli-util.h"
#include "err.h"
#include "i18n.h"
#include "money.h"
#include "service.h"
#include "xalloc.h"

static cJSON *to_json(const struct service *s)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", s->id);
	cli_json_str(o, "name", s->name);
	cli_json_str(o, "kind", s->kind);
	cli_json_int(o, "price", s->price);
	cli_json_str(o, "currency", s->currency);
	cli_json_int(o, "minutes", s->minutes);
	cJSON_AddBoolToObject(o, "active", s->active);
	cli_json_time(o, "created_at", s->created_at);
	cli_json_time(o, "updated_at", s->updated_at);
	return o;
}

/* --price in currency code into *out (SERVICE_KEEP when not given); a refusal that
 * names the option when it cannot be read (service_read_price). */
static int read_price(const struct cli_args *a, const char *code, int64_t *out)
{
	const char *text = cli_arg_get(a, "price");
	char *why;
	int rc;

	*out = SERVICE_KEEP;
	if (!text)
		return 0;
	if (!currency_find(code)) /* the reason alone: it is not about --price */
		return cli_refused(service_read_price(text, code, out));
	if (!(rc = service_read_price(text, code, out)))
		return 0;
	why = xstrdup(err_msg());
	err_set(rc, _("bad %s '%.40s': %s"), "--price", text, why);
	free(why);
	return cli_refused(rc);
}

/* --minutes into *out (SERVICE_KEEP when not given); a refusal unless a whole
 * number (service_read_minutes). */
static int read_minutes(const struct cli_args *a, int64_t *out)
{
	const char *text = cli_arg_get(a, "minutes");
	char *why;
	int rc;

	*out = SERVICE_KEEP;
	if (!text || !(rc = service_read_minutes(text, out)))
		return 0;
	why = xstrdup(err_msg());
	err_set(rc, _("bad %s '%.40s': %s"), "--minutes", text, why);
	free(why);
	return cli_refused(rc);
}

static int show_one(struct cli *c, int64_t id)
{
	char price[MONEY_BUFSZ];
	struct service s;
	int rc = service_get(cli_db(c), id, &s);

	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cli_print_json(to_json(&s));
	} else {
		printf("%s: %lld\n", _("Service"), (long long)s.id);
		cli_field(_("Name"), s.name);
		cli_field(_("Kind"), s.kind);
		printf("%s: %s %s\n", _("Price"), money_text(s.price, s.currency, 0, price),
		       s.currency);
		printf("%s: %lld\n", _("Minutes"), (long long)s.minutes);
		cli_field(_("Status"), s.active ? _("offered") : _("retired"));
	}
	service_free(&s);
	return CLI_OK;
}

static int cmd_add(struct cli *c, const struct cli_args *a)
{
	struct service_input in = {0};
	const char *code = cli_arg_get(a, "currency");
	int64_t id;
	int rc;

	in.name = cli_arg_get(a, "name");
	in.kind = cli_arg_get(a, "kind");
	in.currency = code;
	if (!code)
		code = service_default_currency();
	if ((rc = read_price(a, code, &in.price)) || (rc = read_minutes(a, &in.minutes)))
		return rc;
	if ((rc = service_add(c->db, &in, &id)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Service %lld added.\n"), (long long)id);
		return CLI_OK;
	}
	return show_one(c, id);
}

static int list_cb(const struct service *s, void *arg)
{
	struct cli *c = arg;
	char price[MONEY_BUFSZ];

	if (c->json) {
		cli_list_add(c, to_json(s));
		return 0;
	}
	printf("%6lld  ", (long long)s->id);
	cli_puts_safe(s->name);
	printf("  %s  %s %s  %lld min", s->kind, money_text(s->price, s->currency, 0, price),
	       s->currency, (long long)s->minutes);
	if (!s->active)
		printf("  (%s)", _("retired"));
	putchar('\n');
	return 0;
}

static int cmd_list(struct cli *c, const struct cli_args *a)
{
	cli_list_begin(c, "services");
	return cli_list_end(c, service_list(c->db, cli_arg_flag(a, "all"), list_cb, c));
}

static int cmd_show(struct cli *c, const struct cli_args *a)
{
	return show_one(c, a->id);
}

static int cmd_edit(struct cli *c, const struct cli_args *a)
{
	struct service_input in = {0};
	struct service s;
	int rc;

	/* the price is typed in the service's currency */
	if ((rc = service_get(c->db, a->id, &s)))
		return cli_refused(rc);
	in.name = cli_arg_get(a, "name");
	in.kind = cli_arg_get(a, "kind");
	rc = read_price(a, s.currency, &in.price);
	service_free(&s);
	if (rc || (rc = read_minutes(a, &in.minutes)))
		return rc;
	if ((rc = service_edit(c->db, a->id, &in)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Service %lld changed.\n"), (long long)a->id);
		return CLI_OK;
	}
	return show_one(c, a->id);
}

static int cmd_retire(struct cli *c, const struct cli_args *a)
{
	int rc;

	if ((rc = service_retire(c->db, a->id)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Service %lld retired: it is no longer offered.\n"), (long long)a->id);
		return CLI_OK;
	}
	return show_one(c, a->id);
}

static int cmd_to_job(struct cli *c, const struct cli_args *a)
{
	const char *qty = cli_arg_get(a, "qty");
	cJSON *o;
	int64_t qty_milli = 1000, item;
	int rc;

	if (qty && (rc = qty_parse(qty, &qty_milli)))
		return cli_refused(rc);
	if ((rc = service_to_job(c->db, a->id, cli_arg_id(a, "job"), qty_milli, &item)))
		return cli_refused(rc);
	if (c->json) {
		o = cJSON_CreateObject();
		cli_json_int(o, "service_id", a->id);
		cli_json_int(o, "job_id", cli_arg_id(a, "job"));
		cli_json_int(o, "item_id", item);
		cli_print_json(o);
	} else {
		printf(_("Line item %lld added to job %lld from service %lld.\n"), (long long)item,
		       (long long)cli_arg_id(a, "job"), (long long)a->id);
	}
	return CLI_OK;
}

#define FIELD_OPTS(req)                                                                            \
	{"name", CLI_VALUE, N_("the service's name, as invoices will show it"), NULL, req},        \
	    {"kind", CLI_VALUE, N_("SERVICE (the default), FEE, DISCOUNT, TAX or CREDIT"), NULL,   \
	     NULL},                                                                                \
	    {"price", CLI_VALUE, N_("default price (e.g. 45.00)"), NULL, req},                     \
	{                                                                                          \
		"minutes", CLI_VALUE, N_("how long it takes, in minutes"), NULL, NULL              \
	}

#define ID_CMD .max_pos = 1, .id = N_("the service id"), .db = CLI_DB_OPEN

const struct cli_entry cli_service_cmds[] = {
    {"add", NULL, "--name NAME --price P [...]",
     "--name NAME --price P [--kind K] [--minutes M] [--currency C]",
     N_("add a service to the catalogue"),
     .opts = {FIELD_OPTS(N_("--name and --price are required")),
              {"currency", CLI_VALUE, N_("currency of the price (default: the currency setting)"),
               NULL, NULL}},
     .db = CLI_DB_OPEN, .run = cmd_add},
    {"list", NULL, "[--all]", NULL, N_("list the services offered, by name"),
     .opts = {{"all", CLI_FLAG, N_("the retired services too"), NULL, NULL}}, .db = CLI_DB_OPEN,
     .run = cmd_list},
    {"show", NULL, "ID", NULL, N_("show one service"), ID_CMD, .run = cmd_show},
    {"edit", NULL, "ID [--price P ...]", "ID [--name N] [--kind K] [--price P] [--minutes M]",
     N_("change a service (existing line items and invoices keep theirs)"),
     .opts = {FIELD_OPTS(NULL)}, ID_CMD, .run = cmd_edit},
    {"retire", NULL, "ID", NULL, N_("stop offering a service (it stays on record)"), ID_CMD,
     .run = cmd_retire},
    {"bill", NULL, "ID --job JOB [--qty Q]", NULL,
     N_("bill a service on a job: a line item with its name and price"),
     .opts = {{"job", CLI_ID_NEEDED, N_("the job to bill it on"), N_("--job"), NULL},
              {"qty", CLI_VALUE, N_("quantity, up to 3 decimals (default 1)"), NULL, NULL}},
     ID_CMD, .run = cmd_to_job},
    {NULL},
};
