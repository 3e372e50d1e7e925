/*
 * cli-customer.c - `frontdesk customer add|list|show|edit|delete`.
 */
#include <config.h>

#include <stdio.h>

#include "cli-util.h"
#include "customer.h"
#include "err.h"
#include "i18n.h"

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

#define FIELD_OPTS(in)                                                                             \
	{"name", &(in).name, NULL, N_("the customer's name")},                                     \
	    {"phone", &(in).phone, NULL, N_("phone number")},                                      \
	    {"email", &(in).email, NULL, N_("e-mail address")},                                    \
	    {"address", &(in).address, NULL, N_("address (where visits happen by default)")},      \
	    {"note", &(in).note, NULL, N_("a note for staff")},                                    \
	{                                                                                          \
		NULL, NULL, NULL, NULL                                                             \
	}

static int show_one(struct cli *c, int64_t id)
{
	struct customer cu;
	int rc = customer_get(cli_db(c), id, &cu);

	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cli_print_json(to_json(&cu));
	} else {
		printf("%s: %lld\n", _("Customer"), (long long)cu.id);
		cli_field(_("Name"), cu.name);
		cli_field(_("Phone"), cu.phone);
		cli_field(_("E-mail"), cu.email);
		cli_field(_("Address"), cu.address);
		cli_field(_("Note"), cu.note);
	}
	customer_free(&cu);
	return CLI_OK;
}

static int cmd_add(struct cli *c, int argc, char **argv)
{
	struct customer_input in = {0};
	struct cli_opt opts[] = {FIELD_OPTS(in)};
	char *pos[1];
	int npos, rc;
	int64_t id;

	rc = cli_parse(c, "customer add",
	               "--name NAME [--phone P] [--email E] [--address A] [--note N]", opts, argc,
	               argv, pos, 0, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (!in.name)
		return cli_usage("customer add", _("--name is required"));
	if (!cli_db(c))
		return CLI_REFUSED;
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

static int cmd_list(struct cli *c, int argc, char **argv)
{
	const char *search = NULL;
	struct cli_opt opts[] = {
	    {"search", &search, NULL, N_("only names or phone numbers containing this text")},
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[1];
	int npos, rc;

	rc = cli_parse(c, "customer list", "[--search TEXT]", opts, argc, argv, pos, 0, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (!cli_db(c))
		return CLI_REFUSED;
	cli_list_begin(c, "customers");
	rc = customer_list(c->db, search, list_cb, c);
	return cli_list_end(c, rc);
}

static int cmd_show(struct cli *c, int argc, char **argv)
{
	int rc;
	int64_t id;

	if (!cli_begin_id(c, "customer show", "ID", NULL, _("the customer id"), argc, argv, &id,
	                  &rc))
		return rc;
	return show_one(c, id);
}

static int cmd_edit(struct cli *c, int argc, char **argv)
{
	struct customer_input in = {0};
	struct cli_opt opts[] = {FIELD_OPTS(in)};
	char *pos[1];
	int npos, rc;
	int64_t id;

	rc = cli_parse(c, "customer edit",
	               "ID [--name N] [--phone P] [--email E] [--address A] [--note N]", opts, argc,
	               argv, pos, 1, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if ((rc = cli_parse_id("customer edit", _("the customer id"), npos ? pos[0] : NULL, &id)))
		return rc;
	if (!cli_db(c))
		return CLI_REFUSED;
	if ((rc = customer_edit(c->db, id, &in)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Customer %lld changed.\n"), (long long)id);
		return CLI_OK;
	}
	return show_one(c, id);
}

static int cmd_delete(struct cli *c, int argc, char **argv)
{
	int rc;
	int64_t id;

	if (!cli_begin_id(c, "customer delete", "ID", NULL, _("the customer id"), argc, argv, &id,
	                  &rc))
		return rc;
	if ((rc = customer_delete(c->db, id)))
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "deleted", id);
		cli_print_json(o);
	} else {
		printf(_("Customer %lld deleted (kept in the history).\n"), (long long)id);
	}
	return CLI_OK;
}

static const struct cli_cmd cmds[] = {
    {"add", cmd_add, "--name NAME [...]", N_("add a customer")},
    {"list", cmd_list, "[--search TEXT]", N_("list customers by name")},
    {"show", cmd_show, "ID", N_("show one customer")},
    {"edit", cmd_edit, "ID [--name N ...]", N_("change fields (\"\" clears one)")},
    {"delete", cmd_delete, "ID", N_("delete a customer who has no jobs")},
    {NULL, NULL, NULL, NULL},
};

int cli_customer(struct cli *c, int argc, char **argv)
{
	return cli_dispatch(c, "customer", cmds, argc, argv);
}
