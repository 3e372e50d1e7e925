/*
 * cli-chan.c - `frontdesk inbox ...` (inbound channel events) and
 * `frontdesk channel ...` (the payment channel worker, its outbox) and
 * `frontdesk serve` (the headless shop server: task runner and channel worker).
 *
 * Secrets are read only from the secrets file (pipe-secret.h): no option
 * takes a secret, and no message prints one.
 */
#include <config.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backup.h"
#include "chan-adapters.h"
#include "chan-order.h"
#include "chan-poll.h"
#include "chan-process.h"
#include "cli-util.h"
#include "clock.h"
#include "control.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "inbox.h"
#include "invoice.h"
#include "money.h"
#include "outbox.h"
#include "pipe-provider.h"
#include "pipe-secret.h"
#include "pipe-worker.h"
#include "pipe.h"
#include "stopflag.h"
#include "task.h"
#include "text.h"
#include "xalloc.h"

/* ---------------------------------------------------------------- inbox */

/* 1 when the n bytes at s are valid UTF-8 without NUL bytes. */
static int utf8_ok(const unsigned char *s, size_t n)
{
	size_t i = 0, k;
	unsigned int cp;

	while (i < n) {
		if (!s[i])
			return 0;
		k = utf8_decode(s + i, n - i, &cp);
		if (!k)
			return 0;
		i += k;
	}
	return 1;
}

static cJSON *event_json(const struct inbox_event *e, int with_payload)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", e->id);
	cli_json_str(o, "source", e->source);
	cli_json_str(o, "integration_type", e->type);
	cli_json_str(o, "external_id", e->external_id);
	cli_json_str(o, "via", e->via);
	cli_json_str(o, "event_type", e->event_type);
	cli_json_str(o, "object_id", e->object_id);
	cli_json_str(o, "status", e->status);
	cli_json_int(o, "attempts", e->attempts);
	cli_json_time_opt(o, "channel_created_at", e->channel_created_at);
	cli_json_time(o, "received_at", e->received_at);
	cli_json_time_opt(o, "next_attempt_at", e->next_attempt_at);
	cli_json_time_opt(o, "parked_until", e->parked_until);
	cli_json_time_opt(o, "processed_at", e->processed_at);
	cli_json_str(o, "last_error", e->last_error);
	cli_json_int(o, "payload_bytes", (int64_t)e->len);
	if (with_payload) {
		if (utf8_ok(e->payload, e->len))
			cli_json_str(o, "payload", (const char *)e->payload);
		else
			cJSON_AddNullToObject(o, "payload");
	}
	return o;
}

/* All of stdin, at most INBOX_PAYLOAD_MAX bytes, byte for byte. */
static int cli_read_stdin(unsigned char **out, size_t *len)
{
	size_t cap = 65536, n = 0, got;
	unsigned char *buf = xmalloc(cap);

	for (;;) {
		if (n == cap) {
			if (cap > INBOX_PAYLOAD_MAX) {
				free(buf);
				return err_set(FD_EINVAL, _("the payload is larger than %d bytes"),
				               INBOX_PAYLOAD_MAX);
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		got = fread(buf + n, 1, cap - n, stdin);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(stdin)) {
		free(buf);
		return err_set(FD_EIO, _("cannot read the payload from standard input"));
	}
	if (n > INBOX_PAYLOAD_MAX) {
		free(buf);
		return err_set(FD_EINVAL, _("the payload is larger than %d bytes"),
		               INBOX_PAYLOAD_MAX);
	}
	*out = buf;
	*len = n;
	return 0;
}

/* The provider code `inbox ingest` names: --provider, or --source (its
 * old spelling); NULL when neither. */
static const char *ingest_code(const struct cli_args *a)
{
	const char *p = cli_arg_get(a, "provider");

	return p ? p : cli_arg_get(a, "source");
}

static int ingest_check(struct cli *c, const struct cli_args *a)
{
	const char *p = cli_arg_get(a, "provider"), *s = cli_arg_get(a, "source");

	(void)c;
	if (!p && !s)
		return cli_usage(a->cmd, _("--provider is required"));
	if (p && s && strcmp(p, s))
		return cli_usage(a->cmd,
		                 _("--provider and --source name the same thing: give one"));
	return 0;
}

int cli_pipeline_ingest(struct cli *c, const struct cli_args *a, const char *type, const char *code)
{
	struct inbox_ingest_result r;
	unsigned char *payload = NULL;
	size_t len = 0;
	int rc;

	if ((rc = cli_read_stdin(&payload, &len)) != 0)
		return cli_refused(rc);
	rc = pipe_ingest(c->db, type, code, cli_arg_get(a, "secrets"), cli_arg_get(a, "signature"),
	                 payload, len, &r);
	free(payload);
	if (rc)
		return cli_refused(rc);
	if (!r.accepted) {
		fprintf(stderr,
		        _("frontdesk: payload not accepted: %s (kept as inbound event %lld, %s)\n"),
		        r.reason, (long long)r.id, r.fresh ? _("new") : _("seen before"));
		return CLI_REFUSED;
	}
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "id", r.id);
		cli_json_str(o, "external_id", r.external_id);
		cJSON_AddBoolToObject(o, "duplicate", !r.fresh);
		if (*r.answer)
			cli_json_str(o, "answer", r.answer);
		cli_print_json(o);
		return CLI_OK;
	}
	/* a provider that waits for an answer: stdout carries it alone, for
	 * the web hook in front to relay; what was stored goes to stderr */
	if (*r.answer)
		fputs(r.answer, stdout);
	fprintf(*r.answer ? stderr : stdout,
	        r.fresh ? _("Event %s stored as inbound event %lld.\n")
	                : _("Event %s was stored before (inbound event %lld); nothing changed.\n"),
	        r.external_id, (long long)r.id);
	return CLI_OK;
}

static int cmd_ingest(struct cli *c, const struct cli_args *a)
{
	return cli_pipeline_ingest(c, a, cli_arg_get(a, "type"), ingest_code(a));
}

static void format_time(int64_t t, char *buf, size_t n)
{
	if (!t)
		snprintf(buf, n, "-");
	else
		clock_format_local(t, "%Y-%m-%d %H:%M:%S", buf, n);
}

/* A row of `inbox list` or `outbox list`: id, status, when, then what the
 * caller prints, then the last error; the bytes from outside defused. */
static void row_begin(int64_t id, const char *status, int64_t at)
{
	char when[32];

	format_time(at, when, sizeof when);
	printf("%6lld  %-9s  %s  ", (long long)id, status, when);
}

static void row_end(const char *last_error)
{
	if (last_error) {
		fputs("  ", stdout);
		cli_puts_safe(last_error);
	}
	putchar('\n');
}

/* --limit of a list: 100 when not given, at most 100000. */
static int list_limit(const struct cli_args *a)
{
	int64_t limit = cli_arg_flag(a, "limit") ? cli_arg_id(a, "limit") : 100;

	return (int)(limit > 100000 ? 100000 : limit);
}

static int list_cb(const struct inbox_event *e, void *arg)
{
	struct cli *c = arg;

	if (c->json) {
		cJSON_AddItemToArray(cJSON_GetObjectItem(c->out, "events"), event_json(e, 0));
		return 0;
	}
	row_begin(e->id, e->status, e->received_at);
	cli_puts_safe(e->source);
	putchar(' ');
	cli_puts_safe(e->external_id);
	if (e->event_type) {
		putchar(' ');
		cli_puts_safe(e->event_type);
	}
	row_end(e->last_error);
	return 0;
}

static int cmd_list(struct cli *c, const struct cli_args *a)
{
	cli_list_begin(c, "events");
	return cli_list_end(c, inbox_list(c->db, cli_arg_get(a, "status"), cli_arg_get(a, "type"),
	                                  ingest_code(a), list_limit(a), list_cb, c));
}

static void time_field(const char *label, int64_t t)
{
	char buf[32];

	if (!t) {
		cli_field(label, NULL);
		return;
	}
	format_time(t, buf, sizeof buf);
	cli_field(label, buf);
}

static int show_event(struct cli *c, int64_t id)
{
	struct inbox_event e;
	char num[32];
	int rc;

	if ((rc = inbox_get(c->db, id, &e)))
		return cli_refused(rc);
	if (c->json) {
		cli_print_json(event_json(&e, 1));
	} else {
		printf("%s: %lld\n", _("Inbound event"), (long long)e.id);
		cli_field(_("Source"), e.source);
		cli_field(_("External id"), e.external_id);
		cli_field(_("Via"), e.via);
		cli_field(_("Type"), e.event_type);
		cli_field(_("Object"), e.object_id);
		cli_field(_("Status"), e.status);
		snprintf(num, sizeof num, "%lld", (long long)e.attempts);
		cli_field(_("Attempts"), num);
		time_field(_("Channel time"), e.channel_created_at);
		time_field(_("Received"), e.received_at);
		time_field(_("Next attempt"), e.next_attempt_at);
		time_field(_("Parked until"), e.parked_until);
		time_field(_("Processed"), e.processed_at);
		cli_field(_("Last error"), e.last_error);
		snprintf(num, sizeof num, "%zu", e.len);
		cli_field(_("Payload bytes"), num);
		printf("%s:\n", _("Payload"));
		/* shown defused: the bytes came from outside */
		cli_puts_safe((const char *)e.payload);
		putchar('\n');
	}
	inbox_event_free(&e);
	return CLI_OK;
}

static int cmd_show(struct cli *c, const struct cli_args *a)
{
	return show_event(c, a->id);
}

static int cmd_retry(struct cli *c, const struct cli_args *a)
{
	int rc;

	if ((rc = inbox_retry(c->db, a->id)))
		return cli_refused(rc);
	if (!c->json)
		printf(_("Inbound event %lld will be processed again.\n"), (long long)a->id);
	else
		show_event(c, a->id);
	return CLI_OK;
}

static int cmd_ignore(struct cli *c, const struct cli_args *a)
{
	int rc;

	if ((rc = inbox_ignore(c->db, a->id, cli_arg_get(a, "reason"))))
		return cli_refused(rc);
	if (!c->json)
		printf(_("Inbound event %lld is ignored.\n"), (long long)a->id);
	else
		show_event(c, a->id);
	return CLI_OK;
}

#define SECRETS_OPT                                                                                \
	{                                                                                          \
		"secrets", CLI_VALUE, N_("the secrets file (default: see the manual)"), NULL, NULL \
	}
#define PROVIDER_OPT                                                                               \
	{                                                                                          \
		"provider", CLI_VALUE, N_("the provider (default: the primary)"), NULL, NULL       \
	}
#define KEY_OPT                                                                                    \
	{                                                                                          \
		"idempotency-key", CLI_VALUE, N_("do this request at most once"), NULL, NULL       \
	}

static int cmd_outbox_retry(struct cli *c, const struct cli_args *a)
{
	struct outbox_cmd o;
	int rc;

	if ((rc = pipe_retry(c->db, a->id)))
		return cli_refused(rc);
	if ((rc = outbox_cmd_get(c->db, a->id, &o)))
		return cli_refused(rc);
	if (c->json) {
		cJSON *j = cJSON_CreateObject();

		cli_json_int(j, "id", o.id);
		cli_json_str(j, "status", o.status);
		cli_json_str(j, "event_type", o.event_type);
		cli_json_str(j, "business_key", o.business_key);
		cli_print_json(j);
	} else {
		printf(_("Outbox command %1$lld (%2$s %3$s) is due again with the same idempotency "
		         "key: the channel worker sends it.\n"),
		       (long long)o.id, o.event_type, o.business_key);
	}
	outbox_cmd_free(&o);
	return CLI_OK;
}

static cJSON *outbox_json(const struct outbox_cmd *o, int with_payload)
{
	cJSON *j = cJSON_CreateObject();

	cli_json_int(j, "id", o->id);
	cli_json_str(j, "integration_type", o->type);
	cli_json_str(j, "provider", o->provider_code);
	cli_json_str(j, "event_type", o->event_type);
	cli_json_str(j, "business_key", o->business_key);
	cli_json_str(j, "status", o->status);
	cli_json_int(j, "retry_count", o->retry_count);
	cli_json_time(j, "created_at", o->created_at);
	cli_json_time_opt(j, "sent_at", o->sent_at);
	cli_json_time_opt(j, "next_retry_at", o->next_retry_at);
	cli_json_str(j, "last_error", o->last_error);
	if (with_payload)
		cli_json_str(j, "payload", o->payload);
	return j;
}

static int outbox_list_cb(const struct outbox_cmd *o, void *arg)
{
	struct cli *c = arg;

	if (c->json) {
		cJSON_AddItemToArray(cJSON_GetObjectItem(c->out, "commands"), outbox_json(o, 0));
		return 0;
	}
	row_begin(o->id, o->status, o->created_at);
	printf("%-7s ", o->type);
	cli_puts_safe(o->provider_code);
	putchar(' ');
	cli_puts_safe(o->event_type);
	putchar(' ');
	cli_puts_safe(o->business_key);
	row_end(o->last_error);
	return 0;
}

static int cmd_outbox_list(struct cli *c, const struct cli_args *a)
{
	cli_list_begin(c, "commands");
	return cli_list_end(c, outbox_cmd_list(c->db, cli_arg_get(a, "status"),
	                                       cli_arg_get(a, "type"), cli_arg_get(a, "provider"),
	                                       list_limit(a), outbox_list_cb, c));
}

static int cmd_outbox_show(struct cli *c, const struct cli_args *a)
{
	struct outbox_cmd o;
	char num[32];
	int rc;

	if ((rc = outbox_cmd_get(c->db, a->id, &o)))
		return cli_refused(rc);
	if (c->json) {
		cli_print_json(outbox_json(&o, 1));
	} else {
		printf("%s: %lld\n", _("Outbox command"), (long long)o.id);
		cli_field(_("Integration type"), o.type);
		cli_field(_("Provider"), o.provider_code);
		cli_field(_("Command"), o.event_type);
		cli_field(_("For"), o.business_key);
		cli_field(_("Status"), o.status);
		snprintf(num, sizeof num, "%lld", (long long)o.retry_count);
		cli_field(_("Attempts"), num);
		time_field(_("Queued"), o.created_at);
		time_field(_("Last sent"), o.sent_at);
		time_field(_("Next try"), o.next_retry_at);
		cli_field(_("Last error"), o.last_error);
		printf("%s:\n", _("Payload"));
		cli_puts_safe(o.payload ? o.payload : "");
		putchar('\n');
	}
	outbox_cmd_free(&o);
	return CLI_OK;
}

const struct cli_entry cli_outbox_cmds[] = {
    {"list", NULL, "[--status S] [--type T] [--provider CODE]",
     "[--status S] [--type T] [--provider CODE] [--limit N]",
     N_("list outbound commands of every type, newest first"),
     .opts = {{"status", CLI_VALUE,
               N_("only commands in this state: pending, sending, succeeded, failed, dead"), NULL,
               NULL},
              {"type", CLI_VALUE,
               N_("only commands of this integration type: payment, esign, booking"), NULL, NULL},
              {"provider", CLI_VALUE, N_("only commands for this provider"), NULL, NULL},
              {"limit", CLI_ID, N_("at most this many, newest first (default 100)"), NULL, NULL}},
     .db = CLI_DB_OPEN, .run = cmd_outbox_list},
    {"show", NULL, "ID", NULL,
     N_("show one outbound command: its attempts, last error, next try and payload"), .max_pos = 1,
     .id = N_("the outbox command id"), .db = CLI_DB_OPEN, .run = cmd_outbox_show},
    {"retry", NULL, "ID", NULL,
     N_("send a dead or failed outbound command again, with the same idempotency key"),
     .max_pos = 1, .id = N_("the outbox command id"), .db = CLI_DB_OPEN, .run = cmd_outbox_retry},
    {NULL},
};

const struct cli_entry cli_inbox_cmds[] = {
    {"ingest", NULL, "--provider CODE [--signature HEADER] < PAYLOAD",
     "--provider CODE [--type T] [--signature HEADER] [--secrets FILE] < PAYLOAD",
     N_("store a signed payload relayed by a web hook, for a provider of any type (verified "
        "first)"),
     .opts = {{"provider", CLI_VALUE,
               N_("the provider that signed the payload (e.g. stripe; a booking channel, an "
                  "e-sign provider)"),
               NULL, NULL},
              {"source", CLI_VALUE, N_("the same as --provider (its old spelling)"), NULL, NULL},
              {"type", CLI_VALUE,
               N_("the provider's integration type (payment, esign, booking): only needed when "
                  "its code is registered under several"),
               NULL, NULL},
              {"signature", CLI_VALUE,
               N_("the signature header that came with it (Stripe-Signature, "
                  "X-Booking-Signature, X-Esign-Signature; a channel that signs inside the "
                  "payload has none)"),
               NULL, NULL},
              {"secrets", CLI_VALUE,
               N_("the secrets file holding the provider's signing key (default: see the "
                  "manual)"),
               NULL, NULL}},
     .db = CLI_DB_OPEN, .check = ingest_check, .run = cmd_ingest},
    {"list", NULL, "[--status S] [--type T] [--provider CODE]",
     "[--status S] [--type T] [--provider CODE] [--limit N]",
     N_("list inbound events of every type, newest first"),
     .opts = {{"status", CLI_VALUE,
               N_("only events in this state: received, processed, ignored, parked, failed, "
                  "dead, rejected"),
               NULL, NULL},
              {"type", CLI_VALUE,
               N_("only events of this integration type: payment, esign, booking"), NULL, NULL},
              {"provider", CLI_VALUE, N_("only events from this provider"), NULL, NULL},
              {"source", CLI_VALUE, N_("the same as --provider (its old spelling)"), NULL, NULL},
              {"limit", CLI_ID, N_("at most this many, newest first (default 100)"), NULL, NULL}},
     .db = CLI_DB_OPEN, .run = cmd_list},
    {"show", NULL, "ID", NULL, N_("show one inbound event with its raw payload and error"),
     .max_pos = 1, .id = N_("the event id"), .db = CLI_DB_OPEN, .run = cmd_show},
    {"retry", NULL, "ID", NULL, N_("process a dead, failed or parked event again"), .max_pos = 1,
     .id = N_("the event id"), .db = CLI_DB_OPEN, .run = cmd_retry},
    {"ignore", NULL, "ID --reason R", NULL, N_("decide an event is not to be applied"),
     .opts = {{"reason", CLI_VALUE, N_("why the event is not to be applied (required)"), NULL,
               N_("--reason is required")}},
     .max_pos = 1, .id = N_("the event id"), .db = CLI_DB_OPEN, .run = cmd_ignore},
    {NULL},
};

/* ---------------------------------------------------------------- channel */

/* Whether provider code has been failing for long (pipe_provider_failing). */
static void provider_failing(struct db *db, const char *code, int64_t *since, int *reported)
{
	if (pipe_provider_failing(db, code, clock_real(), since, reported) != 0) {
		*since = 0;
		*reported = 0;
	}
}

static cJSON *provider_json(struct db *db, const struct pipe_provider *p)
{
	cJSON *o = cJSON_CreateObject();
	int64_t since;
	int reported;

	provider_failing(db, p->code, &since, &reported);
	cli_json_str(o, "code", p->code);
	cli_json_str(o, "type", p->type);
	cli_json_str(o, "role", p->role);
	cli_json_int(o, "rollout_percent", p->rollout);
	cli_json_str(o, "base_url", p->base_url);
	cJSON_AddBoolToObject(o, "enabled", p->enabled);
	cli_json_str(o, "settings", p->settings);
	cli_json_time_opt(o, "failing_since", since);
	cJSON_AddBoolToObject(o, "failing", reported);
	return o;
}

/* A rollout percentage: a whole number 0..100, else FD_EINVAL. */
static int parse_rollout(const char *s, int *out)
{
	char *end;
	long v;

	v = strtol(s, &end, 10);
	if (!*s || *end || v < 0 || v > 100)
		return err_set(
		    FD_EINVAL,
		    _("--rollout is a percentage: a whole number from 0 to 100, not '%s'"), s);
	*out = (int)v;
	return 0;
}

/* What provider-set can check before the database opens; the rollout
 * into ch->rollout. */
static int provider_change(const struct cli_args *a, struct pipe_provider_change *ch)
{
	const char *rollout = cli_arg_get(a, "rollout");
	int rc;

	if (cli_arg_flag(a, "enable") && cli_arg_flag(a, "disable"))
		return cli_usage(a->cmd, _("--enable and --disable exclude each other"));
	if (rollout && (rc = parse_rollout(rollout, &ch->rollout)) != 0)
		return cli_refused(rc);
	return 0;
}

static int provider_set_check(struct cli *c, const struct cli_args *a)
{
	struct pipe_provider_change ch = {NULL, NULL, NULL, -1, -1, NULL, NULL, NULL, NULL};

	(void)c;
	return provider_change(a, &ch);
}

static int cmd_provider_set(struct cli *c, const struct cli_args *a)
{
	int en = cli_arg_flag(a, "enable"), dis = cli_arg_flag(a, "disable"), rc;
	struct pipe_provider_change ch = {NULL, NULL, NULL, -1, -1, NULL, NULL, NULL, NULL};
	char *const *pos = a->pos;

	if ((rc = provider_change(a, &ch)) != 0)
		return rc;
	ch.base_url = cli_arg_get(a, "url");
	ch.role = cli_arg_get(a, "role");
	ch.adapter = cli_arg_get(a, "adapter");
	ch.card_page = cli_arg_get(a, "card-page");
	ch.sign_type = cli_arg_get(a, "sign-type");
	ch.enabled = en ? 1 : dis ? 0 : -1;
	rc = chan_adapter_change(c->db, pos[0], &ch);
	if (rc)
		return cli_refused(rc);
	if (!c->json)
		printf(_("Provider %s saved.\n"), pos[0]);
	else {
		struct pipe_provider p;

		if ((rc = pipe_provider_get(c->db, pos[0], &p)))
			return cli_refused(rc);
		cli_print_json(provider_json(c->db, &p));
		pipe_provider_free(&p);
	}
	return CLI_OK;
}

static int provider_cb(const struct pipe_provider *p, void *arg)
{
	struct cli *c = arg;
	int64_t since;
	int reported;

	if (c->json) {
		cJSON_AddItemToArray(cJSON_GetObjectItem(c->out, "providers"),
		                     provider_json(c->db, p));
		return 0;
	}
	provider_failing(c->db, p->code, &since, &reported);
	printf("%-12s %-8s %3d%% %-9s ", p->code, p->role, p->rollout,
	       p->enabled ? _("enabled") : _("disabled"));
	cli_puts_safe(p->base_url);
	if (reported)
		printf("  %s", _("FAILING"));
	putchar('\n');
	return 0;
}

static int cmd_provider_list(struct cli *c, const struct cli_args *a)
{
	int rc;

	(void)a;
	cli_list_begin(c, "providers");
	rc = pipe_provider_list(c->db, provider_cb, c);
	return cli_list_end(c, rc);
}

/* ------------------------------------------ the other integration types */

int cli_provider_set_type(struct cli *c, const struct cli_args *a, const char *type)
{
	struct pipe_provider_change ch = {NULL, NULL, NULL, -1, -1, NULL, NULL, NULL, NULL};
	int rc;

	if (cli_arg_flag(a, "enable") && cli_arg_flag(a, "disable"))
		return cli_usage(a->cmd, _("--enable and --disable exclude each other"));
	ch.base_url = cli_arg_get(a, "url");
	ch.role = cli_arg_get(a, "role");
	ch.adapter = cli_arg_get(a, "adapter");
	ch.enabled = cli_arg_flag(a, "enable") ? 1 : cli_arg_flag(a, "disable") ? 0 : -1;
	if ((rc = pipe_change_provider(c->db, type, a->pos[0], &ch)) != 0)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "provider", a->pos[0]);
		cli_print_json(o);
	}
	return CLI_OK;
}

static int typed_provider_cb(const struct pipe_provider *p, void *arg)
{
	struct cli *c = arg;

	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "code", p->code);
		cli_json_str(o, "role", p->role);
		cli_json_str(o, "base_url", p->base_url);
		cJSON_AddBoolToObject(o, "enabled", p->enabled);
		cli_list_add(c, o);
		return 0;
	}
	printf("%-12s %-8s %-9s %s\n", p->code, p->role, p->enabled ? _("enabled") : _("disabled"),
	       p->base_url);
	return 0;
}

int cli_providers_type(struct cli *c, const char *type)
{
	if (c->json)
		cli_list_begin(c, "providers");
	return cli_list_end(c, pipe_provider_list_type(c->db, type, typed_provider_cb, c));
}

/* What a one-shot channel command holds: the opened channel and its lease
 * (only the holder talks to the channel). */
struct session {
	struct pipe_conn ch;
	struct control_hold lease;
	int held;
};

static int session_open(struct cli *c, const char *code, const char *secrets, struct session *s)
{
	int rc;

	memset(s, 0, sizeof *s);
	rc = chan_adapter_connect(c->db, code, secrets, NULL, &s->ch);
	if (!rc)
		rc = control_acquire(c->db, CONTROL_CHANNEL, CONTROL_LEASE, 60, &s->lease);
	s->held = !rc;
	return rc;
}

static void session_close(struct cli *c, struct session *s)
{
	if (s->held)
		control_release(c->db, &s->lease);
	pipe_conn_close(&s->ch);
}

/* The one-shot channel commands: --once is the only way here. */
static int once_check(struct cli *c, const struct cli_args *a)
{
	(void)c;
	if (!cli_arg_flag(a, "once"))
		return cli_usage(a->cmd, _("only --once is supported here; the worker runs in the "
		                           "desk or in 'frontdesk serve'"));
	return 0;
}

static int deliver_check(struct cli *c, const struct cli_args *a)
{
	(void)c;
	if (!cli_arg_flag(a, "once"))
		return cli_usage(a->cmd, _("only --once is supported here; the worker runs in "
		                           "'frontdesk serve'"));
	return 0;
}

static int cmd_poll(struct cli *c, const struct cli_args *a)
{
	const char *code = cli_arg_get(a, "provider"), *secrets = cli_arg_get(a, "secrets");
	struct chan_poll_opts o;
	struct chan_poll_result r;
	struct session s;
	int rc;

	if ((rc = session_open(c, code, secrets, &s)))
		goto out;
	chan_poll_opts_default(&o, s.ch.p.code);
	rc = chan_poll_once(c->db, s.ch.ops, s.ch.ctx, &o, &s.lease, &r);
	if (rc)
		goto out;
	if (c->json) {
		cJSON *j = cJSON_CreateObject();

		cli_json_str(j, "provider", s.ch.p.code);
		cli_json_int(j, "pages", r.pages);
		cli_json_int(j, "events_seen", r.seen);
		cli_json_int(j, "events_stored", r.stored);
		cli_json_time(j, "from", r.from);
		cli_json_time(j, "to", r.to);
		cli_print_json(j);
	} else {
		printf(_("Polled %s: %d page(s), %lld event(s) seen, %lld new.\n"), s.ch.p.code,
		       r.pages, (long long)r.seen, (long long)r.stored);
	}
out:
	session_close(c, &s);
	return rc ? cli_refused(rc) : CLI_OK;
}

/* The outbox statuses outbox_count_by_status counts, in its order. */
static const char *const outbox_names[4] = {"pending", "sending", "failed", "dead"};

/* Each open order whose last attempt failed, into the array arg. */
static int attempt_cb(const struct pay_order *o, void *arg)
{
	cJSON *x = cJSON_CreateObject();

	cli_json_str(x, "order_no", o->order_no);
	cli_json_str(x, "status", o->status);
	cli_json_str(x, "last_error", o->last_error);
	cJSON_AddItemToArray(arg, x);
	return 0;
}

static void status_print(struct cli *c, const struct chan_state *s, const int64_t counts[7],
                         const int64_t ob[4], int64_t since, int reported, cJSON *failed)
{
	const cJSON *x;

	static const char *const names[7] = {"received", "processed", "ignored", "parked",
	                                     "failed",   "dead",      "rejected"};
	int i;

	if (c->json) {
		cJSON *o = cJSON_CreateObject(), *n = cJSON_CreateObject();

		cli_json_str(o, "provider", s->provider);
		cli_json_str(o, "state", s->state);
		cli_json_time_opt(o, "offline_until", s->offline_until);
		cli_json_time_opt(o, "last_poll_at", s->last_poll_at);
		cli_json_time_opt(o, "last_success_at", s->last_success_at);
		cli_json_time_opt(o, "high_water", s->high_water);
		cli_json_int(o, "failures", s->failures);
		cli_json_str(o, "last_error", s->last_error);
		cli_json_int(o, "events_stored", s->events_stored);
		cli_json_time_opt(o, "failing_since", since);
		cJSON_AddBoolToObject(o, "failing", reported);
		for (i = 0; i < 7; i++)
			cli_json_int(n, names[i], counts[i]);
		cJSON_AddItemToObject(o, "inbox", n);
		n = cJSON_CreateObject();
		for (i = 0; i < 4; i++)
			cli_json_int(n, outbox_names[i], ob[i]);
		cJSON_AddItemToObject(o, "outbox", n);
		cJSON_AddItemReferenceToObject(o, "attempt_failed", failed);
		cli_print_json(o);
		return;
	}
	printf("%s: %s\n", _("Channel"), s->provider);
	cli_field(_("State"), s->state);
	time_field(_("Offline until"), s->offline_until);
	time_field(_("Last poll"), s->last_poll_at);
	time_field(_("Last success"), s->last_success_at);
	time_field(_("Read up to"), s->high_water);
	cli_field(_("Last error"), s->last_error);
	time_field(_("Failing since"), since);
	if (reported)
		printf("%s\n", _("Warning: the channel has been failing for longer than "
		                 "channel_failing_report_seconds; a person must look"));
	printf("%s:", _("Inbox"));
	for (i = 0; i < 7; i++)
		printf(" %s %lld", names[i], (long long)counts[i]);
	printf("\n%s:", _("Outbox"));
	for (i = 0; i < 4; i++)
		printf(" %s %lld", outbox_names[i], (long long)ob[i]);
	putchar('\n');
	cJSON_ArrayForEach(x, failed)
	{
		/* the card page's words (view-paypage.c); the reason is data */
		char *why = text_sanitize(cJSON_GetObjectItem(x, "last_error")->valuestring);

		printf(_("Order %1$s is %2$s: the last attempt failed (%3$s).\n"),
		       cJSON_GetObjectItem(x, "order_no")->valuestring,
		       cJSON_GetObjectItem(x, "status")->valuestring, why);
		free(why);
	}
}

static int cmd_status(struct cli *c, const struct cli_args *a)
{
	static const char *const names[7] = {"received", "processed", "ignored", "parked",
	                                     "failed",   "dead",      "rejected"};
	struct pipe_provider p;
	struct chan_state s;
	int64_t counts[7], ob[4], since = 0;
	int rc, i, reported = 0;
	cJSON *failed;

	if ((rc = pipe_provider_get(c->db, cli_arg_get(a, "provider"), &p)))
		return cli_refused(rc);
	failed = cJSON_CreateArray();
	rc = chan_state_get(c->db, p.code, &s);
	for (i = 0; !rc && i < 7; i++)
		rc = inbox_count(c->db, p.code, names[i], &counts[i]);
	if (!rc)
		rc = outbox_count_by_status(c->db, p.code, ob);
	if (!rc)
		rc = pipe_provider_failing(c->db, p.code, clock_real(), &since, &reported);
	if (!rc)
		rc = chan_order_attempt_failed(c->db, p.code, attempt_cb, failed);
	if (!rc)
		status_print(c, &s, counts, ob, since, reported, failed);
	cJSON_Delete(failed);
	chan_state_free(&s);
	pipe_provider_free(&p);
	return rc ? cli_refused(rc) : CLI_OK;
}

/* ---------------------------------------------------------------- outbox */

static int cmd_charge(struct cli *c, const struct cli_args *a)
{
	const char *inv_s = cli_arg_get(a, "invoice"), *amount_s = cli_arg_get(a, "amount");
	struct invoice inv;
	char order_no[65];
	int64_t id, amount, ob;
	int rc;

	if ((rc = invoice_find(c->db, inv_s, &id)) || (rc = invoice_get(c->db, id, &inv)))
		return cli_refused(rc);
	rc = money_parse(amount_s, currency_find(inv.currency), &amount);
	invoice_free(&inv);
	if (rc)
		return cli_refused(rc);
	if ((rc = outbox_charge(c->db, cli_arg_get(a, "provider"), id, amount,
	                        cli_arg_get(a, "idempotency-key"), order_no, &ob)))
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "order_no", order_no);
		cli_json_int(o, "outbox_id", ob);
		cli_json_int(o, "invoice_id", id);
		cli_json_int(o, "amount", amount);
		cli_print_json(o);
	} else {
		printf(_("Card payment order %s created; the channel worker sends it.\n"),
		       order_no);
	}
	return CLI_OK;
}

static int cmd_refund(struct cli *c, const struct cli_args *a)
{
	const char *amount_s = cli_arg_get(a, "amount");
	char *const *pos = a->pos;
	struct pay_order po;
	int64_t amount = 0, ob;
	int rc;

	if (amount_s) {
		if ((rc = chan_order_get(c->db, pos[0], &po)) != 0)
			return cli_refused(rc);
		if ((rc = money_parse(amount_s, currency_find(po.currency), &amount)))
			return cli_refused(rc);
		if (amount <= 0)
			return cli_refused(err_set(FD_EINVAL, _("the amount must be positive")));
	}
	if ((rc = outbox_refund(c->db, pos[0], amount, cli_arg_get(a, "idempotency-key"), &ob)))
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "order_no", pos[0]);
		cli_json_int(o, "outbox_id", ob);
		cli_print_json(o);
	} else {
		printf(_("Refund of %s asked for; the channel worker sends it.\n"), pos[0]);
	}
	return CLI_OK;
}

static int cmd_deliver(struct cli *c, const struct cli_args *a)
{
	const char *code = cli_arg_get(a, "provider"), *secrets = cli_arg_get(a, "secrets");
	struct outbox_result r;
	struct session s;
	int rc;

	/* --all is accepted for the scripts that pass it: every due command
	 * is sent either way, and none before its backoff has passed */
	if ((rc = session_open(c, code, secrets, &s)))
		goto out;
	rc = outbox_deliver(c->db, s.ch.ops, s.ch.ctx, s.ch.p.code, &s.lease, NULL, &r);
	if (rc)
		goto out;
	if (c->json) {
		cJSON *j = cJSON_CreateObject();

		cli_json_int(j, "attempts", r.attempts);
		cli_json_int(j, "sent", r.succeeded);
		cli_json_int(j, "failed", r.failed);
		cli_json_int(j, "unknown", r.unknown);
		cli_json_int(j, "dead", r.dead);
		cli_json_time_opt(j, "next_try", r.next_try);
		cli_print_json(j);
	} else {
		char when[40];

		printf(_("%1$d command(s) sent, %2$d failed, %3$d without an answer, %4$d dead.\n"),
		       r.succeeded, r.failed, r.unknown, r.dead);
		if (r.next_try) {
			clock_format_local(r.next_try, "%Y-%m-%d %H:%M:%S", when, sizeof when);
			printf(_("The next try is at %s.\n"), when);
		}
		if (r.dead)
			printf("%s\n",
			       _("A dead command is not sent again until a person retries it "
			         "(frontdesk outbox retry ID): see frontdesk check."));
	}
out:
	session_close(c, &s);
	return rc ? cli_refused(rc) : CLI_OK;
}

static void process_print(struct cli *c, const struct chan_process_result *r)
{
	if (c->json) {
		cJSON *j = cJSON_CreateObject();

		cli_json_int(j, "processed", r->processed);
		cli_json_int(j, "ignored", r->ignored);
		cli_json_int(j, "parked", r->parked);
		cli_json_int(j, "failed", r->failed);
		cli_json_int(j, "dead", r->dead);
		cli_json_int(j, "waiting", r->waiting);
		cli_json_int(j, "payments", r->payments);
		cli_json_int(j, "refunds", r->refunds);
		cli_json_int(j, "orders_queried", r->queried);
		cli_json_int(j, "calls", r->calls);
		cli_print_json(j);
		return;
	}
	if (r->queried)
		printf(_("%lld order(s) queried.\n"), (long long)r->queried);
	printf(_("Events: %lld processed, %lld ignored, %lld parked, %lld failed, %lld dead; "
	         "%lld payment(s) and %lld refund(s) posted.\n"),
	       (long long)r->processed, (long long)r->ignored, (long long)r->parked,
	       (long long)r->failed, (long long)r->dead, (long long)r->payments,
	       (long long)r->refunds);
	if (r->waiting)
		printf(_("%lld of the failed wait for a refund the channel has not settled yet "
		         "(asked again on the backoff).\n"),
		       (long long)r->waiting);
}

/* channel process / channel query: one pass of the worker's processing. */
static int process_cmd(struct cli *c, const struct cli_args *a, int query)
{
	const char *code = cli_arg_get(a, "provider"), *secrets = cli_arg_get(a, "secrets");
	int all = cli_arg_flag(a, "all"), rc;
	struct chan_process_opts o;
	struct chan_process_result r = {0};
	struct session s;

	if ((rc = session_open(c, code, secrets, &s)))
		goto out;
	chan_process_opts_default(&o, s.ch.p.code);
	if (query)
		rc = chan_query_due(c->db, s.ch.ops, s.ch.ctx, &o, &s.lease, NULL, all, &r);
	/* what a query found is applied at once */
	if (!rc)
		rc = chan_process_due(c->db, s.ch.ops, s.ch.ctx, &o, &s.lease, NULL,
		                      query ? 0 : all, &r);
	if (!rc)
		process_print(c, &r);
out:
	session_close(c, &s);
	return rc ? cli_refused(rc) : CLI_OK;
}

static int cmd_process(struct cli *c, const struct cli_args *a)
{
	return process_cmd(c, a, 0);
}

static int cmd_query(struct cli *c, const struct cli_args *a)
{
	return process_cmd(c, a, 1);
}

/* ---------------------------------------------------------------- serve */

static volatile sig_atomic_t serve_stop;

static void on_serve_stop(int sig)
{
	(void)sig;
	stop_set(&serve_stop, 1); /* only the flag: the loops look at it */
}

static void say_to(const char *who, const char *msg)
{
	fprintf(stderr, "frontdesk[%ld]: %s: %s\n", (long)getpid(), who, msg);
	fflush(stderr);
}

static void say_channel(const char *msg, void *arg)
{
	(void)arg;
	say_to("channel", msg);
}

static void say_tasks(const char *msg, void *arg)
{
	(void)arg;
	say_to("tasks", msg);
}

static void say_backup(const char *msg, void *arg)
{
	(void)arg;
	say_to("backup", msg);
}

static int cmd_serve(struct cli *c, const struct cli_args *a)
{
	const char *code = cli_arg_get(a, "provider");
	int no_channel = cli_arg_flag(a, "no-channel"), quiet = cli_arg_flag(a, "quiet"), rc, wrc;
	struct pipe_worker_opts wo;
	struct pipe_worker *w = NULL;
	struct backup_nightly_opts bo;
	struct backup_nightly *bw = NULL;
	struct task_opts jo;
	struct sigaction sa, old_int, old_term;
	int64_t for_seconds = cli_arg_id(a, "for"), v;

	pipe_worker_opts_default(&wo);
	task_opts_default(&jo);
	if (cli_arg_flag(a, "poll-seconds")) {
		v = cli_arg_id(a, "poll-seconds");
		wo.poll_seconds = v > 86400 ? 86400 : (int)v;
	}
	if (cli_arg_flag(a, "lease-seconds")) {
		v = cli_arg_id(a, "lease-seconds");
		wo.lease_ttl = jo.lease_ttl = v > 3600 ? 3600 : (int)v;
	}
	wo.provider = code;
	wo.secrets = cli_arg_get(a, "secrets");
	if (!quiet) {
		wo.say = say_channel;
		jo.say = say_tasks;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_serve_stop; /* no SA_RESTART: a sleep ends at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	stop_set(&serve_stop, 0);
	if (!no_channel) {
		rc = pipe_worker_start(db_path(c->db), &wo, &w);
		if (rc == FD_ENOTFOUND && !code) {
			if (!quiet)
				say_channel(_("no payment provider is set up: running tasks only"),
				            NULL);
			rc = 0;
		} else if (rc) {
			sigaction(SIGINT, &old_int, NULL);
			sigaction(SIGTERM, &old_term, NULL);
			return cli_refused(rc);
		}
	}
	backup_nightly_opts_default(&bo);
	if (bo.dir) {
		/* the nightly backup (backup_dir): said on stderr even with --quiet,
		 * so that the journal shows every backup */
		bo.say = say_backup;
		if ((rc = backup_nightly_start(db_path(c->db), &bo, &bw)) != 0) {
			pipe_worker_stop(w);
			sigaction(SIGINT, &old_int, NULL);
			sigaction(SIGTERM, &old_term, NULL);
			return cli_refused(rc);
		}
	}
	jo.retention = 1; /* the scheduled retention pass (retention_auto_hour) */
	rc = task_run_loop(c->db, &serve_stop, &jo, (double)for_seconds, 0);
	backup_nightly_stop(bw);
	wrc = pipe_worker_stop(w);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (!rc)
		rc = wrc;
	return rc ? cli_refused(rc) : CLI_OK;
}

#define ONCE_OPTS(once, all)                                                                       \
	{"once", CLI_FLAG, once, NULL, NULL}, {"all", CLI_FLAG, all, NULL, NULL}, PROVIDER_OPT,    \
	    SECRETS_OPT

const struct cli_entry cli_channel_cmds[] = {
    {"status", NULL, "[--provider CODE]", NULL,
     N_("the poller's state: idle, polling, offline until when, last success"),
     .opts = {PROVIDER_OPT}, .db = CLI_DB_OPEN, .run = cmd_status},
    {"poll", NULL, "--once [--provider CODE]", "--once [--provider CODE] [--secrets FILE]",
     N_("read new events from the channel into the inbox once"),
     .opts = {{"once", CLI_FLAG, N_("read the events once and stop"), NULL, NULL},
              {"provider", CLI_VALUE, N_("the provider to poll (default: the primary)"), NULL,
               NULL},
              SECRETS_OPT},
     .db = CLI_DB_OPEN, .check = once_check, .run = cmd_poll},
    {"provider-set", NULL,
     "CODE [--url URL] [--role R] [--rollout P] [--adapter A] [--card-page P] "
     "[--enable|--disable]",
     "CODE [--url URL] [--role primary|backup] [--rollout PERCENT] [--adapter NAME] "
     "[--card-page checkout|intent] [--sign-type HMAC-SHA256|MD5] [--enable|--disable]",
     N_("add or change a payment provider"),
     .opts = {{"url", CLI_VALUE,
               N_("the channel's base URL (https://, or http://127.0.0.1 in tests)"), NULL, NULL},
              {"role", CLI_VALUE, N_("primary or backup"), NULL, NULL},
              {"rollout", CLI_VALUE,
               N_("the primary's share of new orders, 0 to 100 (the rest go to the first "
                  "backup)"),
               NULL, NULL},
              {"adapter", CLI_VALUE, N_("how to speak to it: stripe (default)"), NULL, NULL},
              {"card-page", CLI_VALUE,
               N_("stripe: checkout (a Checkout Session page, shown at the desk as a QR "
                  "code) or intent (a bare payment intent, the default)"),
               NULL, NULL},
              {"sign-type", CLI_VALUE,
               N_("wechat: how the merchant account signs, HMAC-SHA256 (the default) or MD5"), NULL,
               NULL},
              {"enable", CLI_FLAG, N_("use this provider"), NULL, NULL},
              {"disable", CLI_FLAG, N_("stop using this provider"), NULL, NULL}},
     .min_pos = 1, .max_pos = 1, .missing = N_("name the provider code (e.g. stripe)"),
     .db = CLI_DB_OPEN, .check = provider_set_check, .run = cmd_provider_set},
    {"providers", NULL, "", NULL, N_("list the payment providers"), .db = CLI_DB_OPEN,
     .run = cmd_provider_list},
    {"charge", NULL, "--invoice INV --amount A",
     "--invoice INV --amount A [--provider CODE] [--idempotency-key K]",
     N_("ask the channel for a card payment towards an invoice (sent by the worker)"),
     .opts = {{"invoice", CLI_VALUE, N_("the invoice to pay (its number or id)"), NULL,
               N_("--invoice is required")},
              {"amount", CLI_VALUE, N_("how much to charge, in the invoice's currency"), NULL,
               N_("--amount is required")},
              PROVIDER_OPT,
              KEY_OPT},
     .db = CLI_DB_OPEN, .run = cmd_charge},
    {"refund", NULL, "ORDER [--amount A]", "ORDER [--amount A] [--idempotency-key K]",
     N_("ask the channel to refund (part of) a paid card payment order"),
     .opts = {{"amount", CLI_VALUE, N_("how much to refund (default: all that is left)"), NULL,
               NULL},
              KEY_OPT},
     .min_pos = 1, .max_pos = 1, .missing = N_("name the card payment order (PO-...)"),
     .db = CLI_DB_OPEN, .run = cmd_refund},
    {"deliver", NULL, "--once", "--once [--all] [--provider CODE] [--secrets FILE]",
     N_("send the due outbox commands once"),
     .opts = {ONCE_OPTS(N_("send what is due now and stop"),
                        N_("every command that is due (the default; a command waiting for "
                           "its backoff is never sent sooner)"))},
     .db = CLI_DB_OPEN, .check = deliver_check, .run = cmd_deliver},
    {"process", NULL, "--once [--all]", "--once [--all] [--provider CODE] [--secrets FILE]",
     N_("apply the due inbound events once (asking the channel about each)"),
     .opts = {ONCE_OPTS(N_("do what is due now and stop"), N_("also what waits for its next try"))},
     .db = CLI_DB_OPEN, .check = once_check, .run = cmd_process},
    {"query", NULL, "--once [--all]", "--once [--all] [--provider CODE] [--secrets FILE]",
     N_("ask the channel about card payment orders still paying, and apply what it says"),
     .opts = {ONCE_OPTS(N_("do what is due now and stop"), N_("also what waits for its next try"))},
     .db = CLI_DB_OPEN, .check = once_check, .run = cmd_query},
    {NULL},
};

const struct cli_entry cli_serve_entry = {
    "serve",
    NULL,
    "[--for SECONDS] [--poll-seconds N] [--lease-seconds N] [--provider CODE] [--secrets FILE] "
    "[--no-channel] [--quiet]",
    NULL,
    N_("run the task runner and the payment channel worker headless"),
    .opts = {{"for", CLI_ID, N_("stop after this many seconds (default: until SIGTERM)"), NULL,
              NULL},
             {"poll-seconds", CLI_ID,
              N_("seconds between polls of the channel (default: channel_poll_seconds)"), NULL,
              NULL},
             {"lease-seconds", CLI_ID,
              N_("how long the leases last without renewal (default: channel_lease_seconds, "
                 "tasks_lease_seconds)"),
              NULL, NULL},
             {"provider", CLI_VALUE,
              N_("serve this provider only (default: every enabled provider)"), NULL, NULL},
             SECRETS_OPT,
             {"no-channel", CLI_FLAG, N_("run the task runner only"), NULL, NULL},
             {"quiet", CLI_FLAG, N_("say nothing on stderr but errors"), NULL, NULL}},
    .db = CLI_DB_OPEN,
    .run = cmd_serve};
