/*
 * cli-booking-chan.c - `frontdesk booking-channel ...`: online booking
 * channels (the booking providers of the registry, relaying a request the
 * channel sent, one round of deciding the stored requests, the requests
 * and their outcome). Parses, calls booking-chan.h, prints.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "booking-chan.h"
#include "chan-poll.h"
#include "cli-util.h"
#include "cli.h"
#include "clock.h"
#include "control.h"
#include "err.h"
#include "i18n.h"
#include "inbox.h"
#include "pipe-provider.h"

static cJSON *request_json(const struct booking_request *b)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", b->id);
	cli_json_str(o, "provider", b->provider);
	cli_json_str(o, "request_id", b->request_id);
	if (b->start_at) {
		cli_json_time(o, "start_at", b->start_at);
		cli_json_time(o, "end_at", b->end_at);
	}
	cli_json_str(o, "service", b->service);
	cli_json_str(o, "resource", b->resource);
	cli_json_str(o, "customer_name", b->customer_name);
	cli_json_str(o, "customer_phone", b->customer_phone);
	cli_json_str(o, "customer_email", b->customer_email);
	if (b->appt_id)
		cli_json_int(o, "visit", b->appt_id);
	else
		cJSON_AddNullToObject(o, "visit");
	cli_json_str(o, "status", b->status);
	cli_json_str(o, "reason", b->reason);
	return o;
}

/* The old spelling of `frontdesk inbox ingest --type booking`. */
static int cmd_ingest(struct cli *c, const struct cli_args *a)
{
	return cli_pipeline_ingest(c, a, BOOKING_CHAN_TYPE, cli_arg_get(a, "provider"));
}

static int once_check(struct cli *c, const struct cli_args *a)
{
	(void)c;
	if (!cli_arg_flag(a, "once"))
		return cli_usage(a->cmd, _("only --once is supported here"));
	return 0;
}

static int cmd_process(struct cli *c, const struct cli_args *a)
{
	struct bchan_round r;
	int rc =
	    booking_chan_process(c->db, cli_arg_get(a, "provider"), cli_arg_flag(a, "all"), &r);

	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "confirmed", r.confirmed);
		cli_json_int(o, "rejected", r.rejected);
		cli_json_int(o, "cancelled", r.cancelled);
		cli_json_int(o, "changed", r.changed);
		cli_json_int(o, "ignored", r.ignored);
		cli_json_int(o, "not_yet", r.failed);
		cli_json_int(o, "pushes", r.pushes);
		cli_print_json(o);
	} else {
		printf(_("%1$lld confirmed, %2$lld rejected, %3$lld cancelled, %4$lld moved, "
		         "%5$lld ignored, %6$lld not yet; %7$lld availability push(es) written.\n"),
		       (long long)r.confirmed, (long long)r.rejected, (long long)r.cancelled,
		       (long long)r.changed, (long long)r.ignored, (long long)r.failed,
		       (long long)r.pushes);
	}
	return CLI_OK;
}

static int cmd_deliver(struct cli *c, const struct cli_args *a)
{
	struct control_hold lease;
	int sent = 0, rc;

	if ((rc = control_acquire(c->db, CONTROL_CHANNEL, CONTROL_LEASE, 60, &lease)) != 0)
		return cli_refused(rc);
	/* --all is accepted for scripts: a command waiting for its backoff
	 * is never sent sooner */
	rc = booking_chan_deliver(c->db, cli_arg_get(a, "provider"), &lease, NULL, &sent);
	control_release(c->db, &lease);
	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "sent", sent);
		cli_print_json(o);
	} else {
		printf(_("%d command(s) delivered.\n"), sent);
	}
	return CLI_OK;
}

static int list_cb(const struct booking_request *b, void *arg)
{
	struct cli *c = arg;
	char when[32] = "-";

	if (c->json) {
		cli_list_add(c, request_json(b));
		return 0;
	}
	if (b->start_at)
		clock_format_local(b->start_at, "%Y-%m-%d %H:%M", when, sizeof when);
	printf("%-6lld %-10s %-20s %-10s %-16s %s\n", (long long)b->id, b->provider, b->request_id,
	       b->status, when, b->reason ? b->reason : "");
	return 0;
}

static int cmd_requests(struct cli *c, const struct cli_args *a)
{
	if (c->json)
		cli_list_begin(c, "requests");
	return cli_list_end(c, booking_chan_list(c->db, cli_arg_get(a, "status"), list_cb, c));
}

static int cmd_show(struct cli *c, const struct cli_args *a)
{
	struct booking_request b;
	char buf[64];
	int rc;

	if ((rc = booking_chan_find(c->db, cli_arg_get(a, "provider"), a->pos[0], &b)) != 0)
		return cli_refused(rc);
	if (c->json) {
		cli_print_json(request_json(&b));
		booking_chan_free(&b);
		return CLI_OK;
	}
	cli_field(_("Provider"), b.provider);
	cli_field(_("Request"), b.request_id);
	cli_field(_("State"), b.status);
	if (b.start_at) {
		clock_format_local(b.start_at, "%Y-%m-%d %H:%M", buf, sizeof buf);
		cli_field(_("Start"), buf);
		clock_format_local(b.end_at, "%Y-%m-%d %H:%M", buf, sizeof buf);
		cli_field(_("End"), buf);
	}
	cli_field(_("Service"), b.service ? b.service : "-");
	cli_field(_("Resource"), b.resource ? b.resource : "-");
	cli_field(_("Customer"), b.customer_name ? b.customer_name : "-");
	snprintf(buf, sizeof buf, "%lld", (long long)b.appt_id);
	cli_field(_("Visit"), b.appt_id ? buf : "-");
	if (b.reason)
		cli_field(_("Reason"), b.reason);
	booking_chan_free(&b);
	return CLI_OK;
}

static int cmd_provider_set(struct cli *c, const struct cli_args *a)
{
	int rc = cli_provider_set_type(c, a, BOOKING_CHAN_TYPE);

	if (rc == CLI_OK && !c->json)
		printf(_("Booking channel %s saved.\n"), a->pos[0]);
	return rc;
}

static int cmd_providers(struct cli *c, const struct cli_args *a)
{
	(void)a;
	return cli_providers_type(c, BOOKING_CHAN_TYPE);
}

const struct cli_entry cli_booking_chan_cmds[] = {
    {"provider-set", NULL, "CODE [--url URL] [--role R] [--enable|--disable]",
     "CODE [--url URL] [--role primary|backup] [--adapter rest] [--enable|--disable]",
     N_("add or change an online booking channel"),
     .opts = {{"url", CLI_VALUE, N_("the channel's base URL (https://, or http://127.0.0.1)"), NULL,
               NULL},
              {"role", CLI_VALUE, N_("primary or backup"), NULL, NULL},
              {"adapter", CLI_VALUE, N_("how to speak to it: rest (default)"), NULL, NULL},
              {"enable", CLI_FLAG, N_("use this channel"), NULL, NULL},
              {"disable", CLI_FLAG, N_("stop using this channel"), NULL, NULL}},
     .min_pos = 1, .max_pos = 1, .missing = N_("name the channel's code"), .db = CLI_DB_OPEN,
     .run = cmd_provider_set},
    {"providers", NULL, "", NULL, N_("list the online booking channels"), .db = CLI_DB_OPEN,
     .run = cmd_providers},
    {"ingest", NULL, "--provider CODE --signature HEADER < BODY",
     "--provider CODE --signature HEADER [--secrets FILE] < BODY",
     N_("store a booking request the channel sent (relayed by a web hook); the same as "
        "'inbox ingest --type booking'"),
     .opts = {{"provider", CLI_VALUE, N_("the booking channel that sent it"), NULL,
               N_("--provider is required")},
              {"signature", CLI_VALUE, N_("its X-Booking-Signature header (t=...,v1=...)"), NULL,
               N_("--signature is required")},
              {"secrets", CLI_VALUE, N_("the secrets file (default: the config folder's)"), NULL,
               NULL}},
     .db = CLI_DB_OPEN, .run = cmd_ingest},
    {"process", NULL, "--once [--all]", NULL,
     N_("decide the stored booking requests: confirm (the slot reserved) or reject with the "
        "reason; write the availability pushes"),
     .opts = {{"once", CLI_FLAG, N_("do what is due now and stop"), NULL, NULL},
              {"all", CLI_FLAG, N_("also what waits for its next try"), NULL, NULL},
              {"provider", CLI_VALUE, N_("only this channel's (default: every channel's)"), NULL,
               NULL}},
     .db = CLI_DB_OPEN, .check = once_check, .run = cmd_process},
    {"deliver", NULL, "--once --provider CODE [--all]", NULL,
     N_("send a channel's answers and availability pushes (on the backoff; dead only past "
        "pipeline_give_up_seconds); the channel worker does it too"),
     .opts = {{"once", CLI_FLAG, N_("do what is due now and stop"), NULL, NULL},
              {"all", CLI_FLAG,
               N_("every command that is due (the default; a command waiting for "
                  "its backoff is never sent sooner)"),
               NULL, NULL},
              {"provider", CLI_VALUE, N_("the booking channel"), NULL,
               N_("--provider is required")}},
     .db = CLI_DB_OPEN, .check = once_check, .run = cmd_deliver},
    {"requests", NULL, "[--status S]", NULL,
     N_("list the booking requests and how each was decided"),
     .opts = {{"status", CLI_VALUE,
               N_("only these: received, confirmed, rejected, cancelled, done, no_show"), NULL,
               NULL}},
     .db = CLI_DB_OPEN, .run = cmd_requests},
    {"show", NULL, "REQUEST [--provider CODE]", NULL,
     N_("show a booking request (the channel's id or ours), its visit and its reason"),
     .opts = {{"provider", CLI_VALUE, N_("the channel (when ids repeat across channels)"), NULL,
               NULL}},
     .min_pos = 1, .max_pos = 1, .missing = N_("name the request"), .db = CLI_DB_OPEN,
     .run = cmd_show},
    {NULL},
};
