/*
 * cli-customer.c - `frontdesk customer add|list|show|edit|delete`.
 */
#include <config.h>

#include <stdio.h>

#include "cli-util.h"
#include "customer.h"
#include "err.h"
#include "i18n.h"
#include "message.h"

static cJSON *to_json(const struct customer *cu)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", cu->id);
	cli_json_str(o, "name", cu->name);
	cli_json_str(o, "phone", cu->phone);
	cli_json_str(o, "email", cu->email);
	cli_json_str(o, "address", cu->address);
	cli_json_str(o, "note", cu->note);
	cli_json_time(o, "created_at", cu->created_at);
	cli_json_time(o, "updated_at", cu->updated_at);
	return o;
}

#define FIELD_OPTS(name_required)                                                                  \
	{"name", CLI_VALUE, N_("the customer's name"), NULL, name_required},                       \
	    {"phone", CLI_VALUE, N_("phone number"), NULL, NULL},                                  \
	    {"email", CLI_VALUE, N_("e-mail address"), NULL, NULL},                                \
	    {"address", CLI_VALUE, N_("address (where visits happen by default)"), NULL, NULL},    \
	{                                                                                          \
		"note", CLI_VALUE, N_("a note for staff"), NULL, NULL                              \
	}

/* The customer fields the options of add and edit give. */
static void field_input(const struct cli_args *a, struct customer_input *in)
{
	in->name = cli_arg_get(a, "name");
	in->phone = cli_arg_get(a, "phone");
	in->email = cli_arg_get(a, "email");
	in->address = cli_arg_get(a, "address");
	in->note = cli_arg_get(a, "note");
}

/* What a message provider refused of the customer's addresses (message.h):
 * shown on the customer, so the desk asks for a new one. */
static void failed_addresses(struct cli *c, int64_t id, cJSON *o)
{
	static const char *const chans[2] = {MESSAGE_EMAIL, MESSAGE_SMS};
	char addr[330], why[400], line[760];
	size_t i;

	for (i = 0; i < 2; i++) {
		if (message_failed_address(cli_db(c), id, chans[i], addr, sizeof addr, why,
		                           sizeof why) ||
		    !*addr)
			continue;
		if (o) {
			cli_json_str(o, i ? "sms_failed" : "email_failed", addr);
			continue;
		}
		snprintf(line, sizeof line, "%s (%s)", addr, why);
		cli_field(i ? _("Text message failed") : _("E-mail failed"), line);
	}
}

static int show_one(struct cli *c, int64_t id)
{
	struct customer cu;
	int rc = customer_get(cli_db(c), id, &cu);

	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = to_json(&cu);

		failed_addresses(c, id, o);
		cli_print_json(o);
	} else {
		printf("%s: %lld\n", _("Customer"), (long long)cu.id);
		cli_field(_("Name"), cu.name);
		cli_field(_("Phone"), cu.phone);
		cli_field(_("E-mail"), cu.email);
		cli_field(_("Address"), cu.address);
		cli_field(_("Note"), cu.note);
		failed_addresses(c, id, NULL);
	}
	customer_free(&cu);
	return CLI_OK;
}

static int cmd_add(struct cli *c, const struct cli_args *a)
{
	struct customer_input in = {0};
	int rc;
	int64_t id;

	field_input(a, &in);
	if ((rc = customer_add(c->db, &in, &id)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Customer %lld added.\n"), (long long)id);
		return CLI_OK;
	}
	return show_one(c, id);
}

static int list_cb(const struct customer *cu, void *arg)
{
	struct cli *c = arg;

	if (c->json) {
		cli_list_add(c, to_json(cu));
		return 0;
	}
	printf("%6lld  ", (long long)cu->id);
	cli_puts_safe(cu->name);
	if (cu->phone) {
		fputs("  ", stdout);
		cli_puts_safe(cu->phone);
	}
	putchar('\n');
	return 0;
}

static int cmd_list(struct cli *c, const struct cli_args *a)
{
	cli_list_begin(c, "customers");
	return cli_list_end(c, customer_list(c->db, cli_arg_get(a, "search"), list_cb, c));
}

static int cmd_show(struct cli *c, const struct cli_args *a)
{
	return show_one(c, a->id);
}

static int cmd_edit(struct cli *c, const struct cli_args *a)
{
	struct customer_input in = {0};
	int rc;

	field_input(a, &in);
	if ((rc = customer_edit(c->db, a->id, &in)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Customer %lld changed.\n"), (long long)a->id);
		return CLI_OK;
	}
	return show_one(c, a->id);
}

static int cmd_delete(struct cli *c, const struct cli_args *a)
{
	int rc;

	if ((rc = customer_delete(c->db, a->id)))
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "deleted", a->id);
		cli_print_json(o);
	} else {
		printf(_("Customer %lld deleted (kept in the history).\n"), (long long)a->id);
	}
	return CLI_OK;
}

#define ID_CMD(what) .max_pos = 1, .id = what, .db = CLI_DB_OPEN

const struct cli_entry cli_customer_cmds[] = {
    {"add", NULL, "--name NAME [...]",
     "--name NAME [--phone P] [--email E] [--address A] [--note N]", N_("add a customer"),
     .opts = {FIELD_OPTS(N_("--name is required"))}, .db = CLI_DB_OPEN, .run = cmd_add},
    {"list", NULL, "[--search TEXT]", NULL, N_("list customers by name"),
     .opts = {{"search", CLI_VALUE,
               N_("only customers whose name, address or phone number contains this text (a "
                  "phone number by its digits: 5550142 finds 555-0142)"),
               NULL, NULL}},
     .db = CLI_DB_OPEN, .run = cmd_list},
    {"show", NULL, "ID", NULL, N_("show one customer"), ID_CMD(N_("the customer id")),
     .run = cmd_show},
    {"edit", NULL, "ID [--name N ...]",
     "ID [--name N] [--phone P] [--email E] [--address A] [--note N]",
     N_("change fields (\"\" clears one)"), .opts = {FIELD_OPTS(NULL)},
     ID_CMD(N_("the customer id")), .run = cmd_edit},
    {"delete", NULL, "ID", NULL, N_("delete a customer who has no jobs"),
     ID_CMD(N_("the customer id")), .run = cmd_delete},
    {NULL},
};
