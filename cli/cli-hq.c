/*
 * cli-hq.c - `frontdesk hq ...`: the chain's head office (hq.h). At the
 * head office: init (its PostgreSQL schema) and status (each shop's last
 * batch and lag); at a shop: join (report to a head office) and sync (one
 * round of sending, as the worker does).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-util.h"
#include "control.h"
#include "err.h"
#include "hq.h"
#include "i18n.h"
#include "pipe-provider.h"

static int cmd_init(struct cli *c, const struct cli_args *a)
{
	int applied = 0, version = 0, rc;

	if ((rc = hq_init(cli_arg_get(a, "pg"), &applied, &version)) != 0)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "applied", applied);
		cli_json_int(o, "version", version);
		cli_print_json(o);
	} else if (applied)
		printf(
		    _("The head office's schema is at version %1$d (%2$d migration(s) applied).\n"),
		    version, applied);
	else
		printf(_("The head office's schema is at version %d already.\n"), version);
	return CLI_OK;
}

static int cmd_join(struct cli *c, const struct cli_args *a)
{
	const char *code = cli_arg_get(a, "provider");
	int rc;

	if (!code)
		code = "hq";
	if ((rc = hq_join(c->db, code, cli_arg_get(a, "pg"), cli_arg_get(a, "shop"),
	                  cli_arg_get(a, "name"), cli_arg_get(a, "secrets"))) != 0)
		return cli_refused(rc);
	if (!c->json) {
		fputs(_("This shop reports to the head office as "), stdout);
		cli_puts_safe(cli_arg_get(a, "shop"));
		fputs(_(": its changes are sent by 'frontdesk serve' (or 'frontdesk hq sync "
		        "--once').\n"),
		      stdout);
	} else {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "shop", cli_arg_get(a, "shop"));
		cli_json_str(o, "provider", code);
		cli_print_json(o);
	}
	return CLI_OK;
}

static int cmd_sync(struct cli *c, const struct cli_args *a)
{
	struct hq_sent s = {0};
	struct control_hold lease;
	struct pipe_conn ch;
	int rc;

	if (!cli_arg_flag(a, "once"))
		return cli_usage(a->cmd, "%s",
		                 _("only --once is supported here; the worker runs in the desk or "
		                   "in 'frontdesk serve'"));
	if ((rc = control_acquire(c->db, CONTROL_CHANNEL, CONTROL_LEASE, 60, &lease)) != 0)
		return cli_refused(rc);
	if ((rc = hq_conn_open(c->db, cli_arg_get(a, "provider"), cli_arg_get(a, "secrets"), NULL,
	                       &ch)) == 0) {
		/* rounds until nothing more goes: a round queues a bounded number
		 * of batches, so a long backlog takes several */
		int before;

		do {
			before = s.sent;
			rc = hq_deliver(c->db, &ch, &lease, NULL, &s);
		} while (!rc && s.sent > before && !s.failed && !s.dead);
		pipe_conn_close(&ch);
	}
	control_release(c->db, &lease);
	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "sent", s.sent);
		cli_json_int(o, "rows", s.rows);
		cli_json_int(o, "failed", s.failed);
		cli_json_int(o, "dead", s.dead);
		cli_print_json(o);
	} else
		printf(
		    _("%1$d batch(es) sent (%2$lld change(s)), %3$d to try again, %4$d refused by "
		      "the head office.\n"),
		    s.sent, (long long)s.rows, s.failed, s.dead);
	return s.dead ? CLI_REFUSED : CLI_OK;
}

static int status_cb(const struct hq_shop_status *s, void *arg)
{
	struct cli *c = arg;

	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "shop", s->code);
		cli_json_str(o, "name", s->name);
		cli_json_str(o, "last_batch_at", *s->last_batch_at ? s->last_batch_at : NULL);
		if (s->lag_seconds >= 0)
			cli_json_int(o, "lag_seconds", s->lag_seconds);
		cli_json_int(o, "records", s->records);
		cli_json_int(o, "batches", s->batches);
		cli_json_int(o, "waiting", s->waiting);
		cli_json_int(o, "failed", s->failed);
		cli_list_add(c, o);
		return 0;
	}
	cli_puts_safe(s->code);
	if (*s->name) {
		fputs(" (", stdout);
		cli_puts_safe(s->name);
		fputs(")", stdout);
	}
	if (*s->last_batch_at)
		printf(
		    _(": last batch %1$s (%2$lld s ago), %3$lld record(s) from %4$lld batch(es); "
		      "%5$lld waiting at the shop, %6$lld failing\n"),
		    s->last_batch_at, (long long)s->lag_seconds, (long long)s->records,
		    (long long)s->batches, (long long)s->waiting, (long long)s->failed);
	else
		fputs(_(": joined, nothing received yet\n"), stdout);
	return 0;
}

static int cmd_status(struct cli *c, const struct cli_args *a)
{
	cli_list_begin(c, "shops");
	return cli_list_end(c, hq_status(cli_arg_get(a, "pg"), status_cb, c));
}

#define PG_OPT                                                                                     \
	{                                                                                          \
		"pg", CLI_VALUE, N_("the head office's PostgreSQL address (postgresql://...)"),    \
		    NULL, N_("--pg URL is required")                                               \
	}

const struct cli_entry cli_hq_cmds[] = {
    {"init", NULL, "--pg URL", NULL,
     N_("create the head office's schema in PostgreSQL, or bring it up to date"), .opts = {PG_OPT},
     .run = cmd_init},
    {"join", NULL, "--pg URL --shop CODE [--name N] [--provider CODE] [--secrets FILE]", NULL,
     N_("this shop reports to the head office at URL as CODE"),
     .opts = {PG_OPT,
              {"shop", CLI_VALUE, N_("the shop's code at the head office"), NULL,
               N_("--shop CODE is required")},
              {"name", CLI_VALUE, N_("the shop's name at the head office"), NULL, NULL},
              {"provider", CLI_VALUE,
               N_("the head office's provider code here (default hq; its password is "
                  "CODE_password in the secrets file)"),
               NULL, NULL},
              {"secrets", CLI_VALUE, N_("the secrets file (default: the config folder's)"), NULL,
               NULL}},
     .db = CLI_DB_OPEN, .run = cmd_join},
    {"sync", NULL, "--once [--provider CODE] [--secrets FILE]", NULL,
     N_("send the changes waiting for the head office (serve does it)"),
     .opts = {{"once", CLI_FLAG, N_("do what is due now and stop"), NULL, NULL},
              {"provider", CLI_VALUE, N_("this provider only"), NULL, NULL},
              {"secrets", CLI_VALUE, N_("the secrets file (default: the config folder's)"), NULL,
               NULL}},
     .db = CLI_DB_OPEN, .run = cmd_sync},
    {"status", NULL, "--pg URL", NULL,
     N_("at the head office: each shop's last batch, its lag, what waits at the shop"),
     .opts = {PG_OPT}, .run = cmd_status},
    {NULL},
};
