/*
 * cli-contact.c - `frontdesk contact add|list`: the contact log of a
 * customer (see contact.h). Rows are only ever added; a correction is a new
 * row (--corrects ID).
 *
 * Times are typed and shown in shop time ("YYYY-MM-DD HH:MM"); JSON carries
 * UTC. A time that cannot be read is a refusal (exit 1).
 */
#include <config.h>

#include <stdio.h>

#include "cli-util.h"
#include "clock.h"
#include "contact.h"
#include "err.h"
#include "i18n.h"

static cJSON *to_json(const struct contact *ct)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", ct->id);
	cli_json_int(o, "customer_id", ct->customer_id);
	cli_json_time(o, "at", ct->at);
	cli_json_str(o, "channel", ct->channel);
	cli_json_str(o, "direction", ct->direction);
	cli_json_str(o, "summary", ct->summary);
	cli_json_str(o, "operator", ct->operator_id);
	if (ct->corrects_id)
		cli_json_int(o, "corrects_id", ct->corrects_id);
	else
		cJSON_AddNullToObject(o, "corrects_id");
	if (ct->corrected_by)
		cli_json_int(o, "corrected_by", ct->corrected_by);
	else
		cJSON_AddNullToObject(o, "corrected_by");
	cli_json_time(o, "created_at", ct->created_at);
	return o;
}

static int cmd_add(struct cli *c, const struct cli_args *a)
{
	struct contact_input in = {0};
	const char *at = cli_arg_get(a, "at");
	struct contact ct;
	int64_t id;
	int rc;

	in.customer_id = cli_arg_id(a, "customer");
	in.channel = cli_arg_get(a, "channel");
	in.direction = cli_arg_get(a, "direction");
	in.summary = cli_arg_get(a, "summary");
	in.corrects_id = cli_arg_id(a, "corrects");
	if (at && (rc = clock_parse_local(at, &in.at)))
		return cli_refused(rc);
	if ((rc = contact_add(c->db, &in, &id)))
		return cli_refused(rc);
	if (!c->json) {
		printf(_("Contact %lld logged.\n"), (long long)id);
		return CLI_OK;
	}
	if ((rc = contact_get(c->db, id, &ct)))
		return cli_refused(rc);
	cli_print_json(to_json(&ct));
	contact_free(&ct);
	return CLI_OK;
}

static int list_cb(const struct contact *ct, void *arg)
{
	struct cli *c = arg;
	char when[32];

	if (c->json) {
		cli_list_add(c, to_json(ct));
		return 0;
	}
	clock_format_local(ct->at, "%Y-%m-%d %H:%M", when, sizeof when);
	printf("%6lld  %s  %-7s %-3s  ", (long long)ct->id, when, ct->channel, ct->direction);
	cli_puts_safe(ct->summary);
	if (ct->corrects_id) {
		fputs("  ", stdout);
		printf(_("[corrects %lld]"), (long long)ct->corrects_id);
	}
	if (ct->corrected_by) {
		fputs("  ", stdout);
		printf(_("[corrected by %lld]"), (long long)ct->corrected_by);
	}
	fputs("  ", stdout);
	cli_puts_safe(ct->operator_id);
	putchar('\n');
	return 0;
}

static int cmd_list(struct cli *c, const struct cli_args *a)
{
	cli_list_begin(c, "contacts");
	return cli_list_end(c, contact_list(c->db, cli_arg_id(a, "customer"), list_cb, c));
}

#define CUSTOMER_OPT                                                                               \
	{                                                                                          \
		"customer", CLI_ID_NEEDED, N_("the customer's id"), N_("--customer"), NULL         \
	}

const struct cli_entry cli_contact_cmds[] = {
    {"add", NULL, "--customer ID --channel CH --direction in|out --summary S [...]",
     "--customer ID --channel CH --direction in|out --summary S [--at TIME] [--corrects ID]",
     N_("log a call, message or visit at the counter"),
     .opts = {CUSTOMER_OPT,
              {"channel", CLI_VALUE, N_("phone, sms, email, counter or other"), NULL,
               N_("--channel, --direction and --summary are required")},
              {"direction", CLI_VALUE, N_("in (the customer reached us) or out (we reached them)"),
               NULL, N_("--channel, --direction and --summary are required")},
              {"summary", CLI_VALUE, N_("what was said, in a line"), NULL,
               N_("--channel, --direction and --summary are required")},
              {"at", CLI_VALUE, N_("when it happened (YYYY-MM-DD HH:MM; default: now)"), NULL,
               NULL},
              {"corrects", CLI_ID, N_("the id of an older contact this one corrects"),
               N_("--corrects"), NULL}},
     .db = CLI_DB_OPEN, .run = cmd_add},
    {"list", NULL, "--customer ID", NULL, N_("a customer's contact log, newest first"),
     .opts = {CUSTOMER_OPT}, .db = CLI_DB_OPEN, .run = cmd_list},
    {NULL},
};
