/*
 * cli-esign.c - `frontdesk estimate ...`: signed work authorisations
 * (send a job's estimate for signature, list, show, cancel; relay a
 * provider's callback; one round of the e-sign steps; the e-sign
 * providers of the registry). Parses, calls esign.h, prints.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chan-poll.h"
#include "cli-util.h"
#include "cli.h"
#include "control.h"
#include "err.h"
#include "esign.h"
#include "i18n.h"
#include "inbox.h"
#include "money.h"
#include "pipe-provider.h"
#include "xalloc.h"

static cJSON *estimate_json(const struct estimate *e)
{
	cJSON *o = cJSON_CreateObject(), *ev;

	cli_json_int(o, "id", e->id);
	cli_json_str(o, "number", e->number);
	cli_json_int(o, "job_id", e->job_id);
	cli_json_int(o, "customer_id", e->customer_id);
	cli_json_str(o, "customer", e->customer_name);
	cli_json_str(o, "currency", e->currency);
	cli_json_int(o, "subtotal", e->subtotal);
	cli_json_int(o, "tax", e->tax);
	cli_json_int(o, "total", e->total);
	cli_json_str(o, "pdf", e->pdf_path);
	cli_json_str(o, "pdf_sha256", e->pdf_sha256);
	cli_json_int(o, "pdf_size", e->pdf_size);
	cli_json_time(o, "created_at", e->created_at);
	cli_json_str(o, "provider", e->provider);
	cli_json_str(o, "envelope_id", *e->envelope_id ? e->envelope_id : NULL);
	cli_json_str(o, "state", e->state);
	cli_json_str(o, "send_command", *e->outbox_status ? e->outbox_status : NULL);
	cli_json_str(o, "ignored_reason", e->ignored_reason);
	cli_json_str(o, "document", *e->document_path ? e->document_path : NULL);
	cli_json_str(o, "document_sha256", *e->document_sha256 ? e->document_sha256 : NULL);
	if (*e->document_sha256)
		cli_json_int(o, "document_size", e->document_size);
	ev = e->evidence ? cJSON_Parse(e->evidence) : NULL;
	if (ev)
		cJSON_AddItemToObject(o, "evidence", ev);
	else
		cJSON_AddNullToObject(o, "evidence");
	return o;
}

static int cmd_send(struct cli *c, const struct cli_args *a)
{
	struct estimate e;
	int64_t id;
	int rc;

	if ((rc = esign_send(c->db, a->id, cli_arg_get(a, "provider"), &id)) != 0)
		return cli_refused(rc);
	if ((rc = esign_get(c->db, id, &e)) != 0)
		return cli_refused(rc);
	if (c->json)
		cli_print_json(estimate_json(&e));
	else
		printf(_("Estimate %1$s sent for signature through %2$s; the channel worker "
		         "delivers it.\n"),
		       e.number, e.provider);
	esign_estimate_free(&e);
	return CLI_OK;
}

static int list_cb(const struct estimate *e, void *arg)
{
	struct cli *c = arg;
	char m[MONEY_BUFSZ];

	if (c->json) {
		cli_list_add(c, estimate_json(e));
		return 0;
	}
	printf("%-16s job %-6lld %-10s %14s  %s\n", e->number, (long long)e->job_id, e->state,
	       money_text(e->total, e->currency, 1, m), e->provider);
	return 0;
}

static int cmd_list(struct cli *c, const struct cli_args *a)
{
	if (c->json)
		cli_list_begin(c, "estimates");
	return cli_list_end(c, esign_list(c->db, cli_arg_id(a, "job"), list_cb, c));
}

static int find_pos(struct cli *c, const struct cli_args *a, int64_t *id)
{
	int rc = esign_find(c->db, a->pos[0], id);

	return rc ? cli_refused(rc) : 0;
}

static int cmd_show(struct cli *c, const struct cli_args *a)
{
	struct estimate e;
	char m[MONEY_BUFSZ], buf[64];
	int64_t id;
	int rc;

	if ((rc = find_pos(c, a, &id)) != 0)
		return rc;
	if ((rc = esign_get(c->db, id, &e)) != 0)
		return cli_refused(rc);
	if (c->json) {
		cli_print_json(estimate_json(&e));
		esign_estimate_free(&e);
		return CLI_OK;
	}
	cli_field(_("Estimate"), e.number);
	snprintf(buf, sizeof buf, "%lld", (long long)e.job_id);
	cli_field(_("Job"), buf);
	cli_field(_("Customer"), e.customer_name);
	cli_field(_("Total"), money_text(e.total, e.currency, 1, m));
	cli_field(_("PDF SHA-256"), e.pdf_sha256);
	cli_field(_("Provider"), e.provider);
	cli_field(_("Envelope"), *e.envelope_id ? e.envelope_id : "-");
	cli_field(_("State"), e.state);
	if (e.ignored_reason)
		cli_field(_("Last ignored"), e.ignored_reason);
	if (*e.document_sha256) {
		cli_field(_("Signed document"), e.document_path);
		cli_field(_("Document SHA-256"), e.document_sha256);
	}
	if (e.evidence)
		cli_field(_("Evidence"), e.evidence);
	esign_estimate_free(&e);
	return CLI_OK;
}

static int cmd_cancel(struct cli *c, const struct cli_args *a)
{
	int64_t id;
	int rc;

	if ((rc = find_pos(c, a, &id)) != 0)
		return rc;
	if ((rc = esign_cancel(c->db, id, cli_arg_get(a, "reason"))) != 0)
		return cli_refused(rc);
	if (c->json) {
		struct estimate e;

		if ((rc = esign_get(c->db, id, &e)) != 0)
			return cli_refused(rc);
		cli_print_json(estimate_json(&e));
		esign_estimate_free(&e);
	} else {
		printf(_("Estimate %s cancelled.\n"), a->pos[0]);
	}
	return CLI_OK;
}

/* The old spelling of `frontdesk inbox ingest --type esign`. */
static int cmd_callback(struct cli *c, const struct cli_args *a)
{
	return cli_pipeline_ingest(c, a, ESIGN_TYPE, cli_arg_get(a, "provider"));
}

/* One round of every step for one provider under the channel lease. */
static int run_one(struct cli *c, const char *code, const char *secrets, int all,
                   struct esign_round *r)
{
	struct pipe_conn ch;
	struct control_hold lease;
	int rc;

	if ((rc = esign_conn_open(c->db, code, secrets, NULL, &ch)) != 0)
		return rc;
	if ((rc = control_acquire(c->db, CONTROL_CHANNEL, CONTROL_LEASE, 60, &lease)) != 0) {
		pipe_conn_close(&ch);
		return rc;
	}
	rc = esign_deliver(c->db, &ch, &lease, NULL, r);
	if (!rc && all)
		rc = esign_query(c->db, &ch, &lease, NULL, all, r);
	if (!rc)
		rc = esign_process(c->db, &ch, &lease, NULL, all, r);
	if (!rc)
		rc = esign_download(c->db, &ch, &lease, NULL, r);
	control_release(c->db, &lease);
	pipe_conn_close(&ch);
	return rc;
}

static int once_check(struct cli *c, const struct cli_args *a)
{
	(void)c;
	if (!cli_arg_flag(a, "once"))
		return cli_usage(a->cmd, _("only --once is supported here; the worker runs in the "
		                           "desk or in 'frontdesk serve'"));
	return 0;
}

static int cmd_run(struct cli *c, const struct cli_args *a)
{
	struct esign_round r = {0};
	int rc = run_one(c, cli_arg_get(a, "provider"), cli_arg_get(a, "secrets"),
	                 cli_arg_flag(a, "all"), &r);

	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "sent", r.sent);
		cli_json_int(o, "queried", r.queried);
		cli_json_int(o, "processed", r.processed);
		cli_json_int(o, "ignored", r.ignored);
		cli_json_int(o, "failed", r.failed);
		cli_json_int(o, "documents", r.documents);
		cli_print_json(o);
	} else {
		printf(_("%1$d sent, %2$lld callback(s) applied, %3$lld ignored, %4$lld not yet, "
		         "%5$lld signed document(s) stored.\n"),
		       r.sent, (long long)r.processed, (long long)r.ignored, (long long)r.failed,
		       (long long)r.documents);
	}
	return CLI_OK;
}

static int cmd_provider_set(struct cli *c, const struct cli_args *a)
{
	int rc = cli_provider_set_type(c, a, ESIGN_TYPE);

	if (rc == CLI_OK && !c->json)
		printf(_("E-sign provider %s saved.\n"), a->pos[0]);
	return rc;
}

static int cmd_providers(struct cli *c, const struct cli_args *a)
{
	(void)a;
	return cli_providers_type(c, ESIGN_TYPE);
}

#define PROVIDER_OPT                                                                               \
	{                                                                                          \
		"provider", CLI_VALUE,                                                             \
		    N_("the e-sign provider (default: the registry's primary)"), NULL, NULL        \
	}
#define SECRETS_OPT                                                                                \
	{                                                                                          \
		"secrets", CLI_VALUE, N_("the secrets file (default: the config folder's)"), NULL, \
		    NULL                                                                           \
	}

const struct cli_entry cli_estimate_cmds[] = {
    {"send", NULL, "JOB [--provider CODE]", NULL,
     N_("make a job's estimate (PDF) and send it for the customer's signature"),
     .opts = {PROVIDER_OPT}, .min_pos = 1, .max_pos = 1, .id = N_("the job"),
     .missing = N_("name the job"), .db = CLI_DB_OPEN, .run = cmd_send},
    {"list", NULL, "[--job JOB]", NULL, N_("list the estimates and where their signature stands"),
     .opts = {{"job", CLI_ID, N_("only this job's"), N_("the job"), NULL}}, .db = CLI_DB_OPEN,
     .run = cmd_list},
    {"show", NULL, "EST", NULL,
     N_("show an estimate, its sign flow, its signed document and the evidence"), .min_pos = 1,
     .max_pos = 1, .missing = N_("name the estimate (EST-... or its id)"), .db = CLI_DB_OPEN,
     .run = cmd_show},
    {"cancel", NULL, "EST --reason TEXT", NULL,
     N_("withdraw an estimate still waiting for its signature"),
     .opts = {{"reason", CLI_VALUE, N_("why (kept in the flow's history)"), NULL,
               N_("--reason is required")}},
     .min_pos = 1, .max_pos = 1, .missing = N_("name the estimate (EST-... or its id)"),
     .db = CLI_DB_OPEN, .run = cmd_cancel},
    {"callback", NULL, "--provider CODE --signature HEADER < BODY",
     "--provider CODE --signature HEADER [--secrets FILE] < BODY",
     N_("store a callback the e-sign provider sent (relayed by a web hook); the same as "
        "'inbox ingest --type esign'"),
     .opts = {{"provider", CLI_VALUE, N_("the e-sign provider that sent it"), NULL,
               N_("--provider is required")},
              {"signature", CLI_VALUE, N_("its X-Esign-Signature header"), NULL,
               N_("--signature is required")},
              SECRETS_OPT},
     .db = CLI_DB_OPEN, .run = cmd_callback},
    {"run", NULL, "--once [--all] [--provider CODE]",
     "--once [--all] [--provider CODE] [--secrets FILE]",
     N_("one round of the e-sign steps: send, apply callbacks, download signed documents"),
     .opts = {{"once", CLI_FLAG, N_("do what is due now and stop"), NULL, NULL},
              {"all", CLI_FLAG,
               N_("also apply the callbacks that wait for their next try, and ask about every open "
                  "flow (a command waiting for its backoff is never sent sooner)"),
               NULL, NULL},
              PROVIDER_OPT,
              SECRETS_OPT},
     .db = CLI_DB_OPEN, .check = once_check, .run = cmd_run},
    {"provider-set", NULL, "CODE [--url URL] [--role R] [--enable|--disable]",
     "CODE [--url URL] [--role primary|backup] [--adapter rest] [--enable|--disable]",
     N_("add or change an e-sign provider"),
     .opts = {{"url", CLI_VALUE, N_("the provider's base URL (https://, or http://127.0.0.1)"),
               NULL, NULL},
              {"role", CLI_VALUE, N_("primary or backup"), NULL, NULL},
              {"adapter", CLI_VALUE, N_("how to speak to it: rest (default)"), NULL, NULL},
              {"enable", CLI_FLAG, N_("use this provider"), NULL, NULL},
              {"disable", CLI_FLAG, N_("stop using this provider"), NULL, NULL}},
     .min_pos = 1, .max_pos = 1, .missing = N_("name the provider code"), .db = CLI_DB_OPEN,
     .run = cmd_provider_set},
    {"providers", NULL, "", NULL, N_("list the e-sign providers"), .db = CLI_DB_OPEN,
     .run = cmd_providers},
    {NULL},
};
