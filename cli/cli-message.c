/*
 * cli-message.c - `frontdesk message ...`: messages to customers by e-mail
 * or text message (message.h): send, list, show, retry, a customer's
 * consent and language, the scheduler's round, the delivery round, and the
 * message providers.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "booking.h"
#include "cli-util.h"
#include "clock.h"
#include "control.h"
#include "err.h"
#include "i18n.h"
#include "invoice.h"
#include "message-text.h"
#include "message.h"
#include "pipe-provider.h"
#include "settings.h"

/* The customer pos names (booking_customers' forms: one). */
static int one_customer(struct cli *c, const char *text, int64_t *id)
{
	int64_t ids[BOOKING_MAX_CUSTOMERS];
	size_t n = 0;
	int rc;

	if ((rc = booking_customers(c->db, text, ids, &n, NULL)))
		return cli_refused(rc);
	if (n != 1)
		return cli_usage("message", _("name one customer"));
	*id = ids[0];
	return 0;
}

static cJSON *msg_json(const struct message *m)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", m->id);
	cli_json_int(o, "customer_id", m->customer_id);
	cli_json_str(o, "customer", m->customer_name);
	cli_json_str(o, "channel", m->channel);
	cli_json_str(o, "kind", m->kind);
	if (m->appt_id)
		cli_json_int(o, "visit_id", m->appt_id);
	if (m->invoice_id)
		cli_json_int(o, "invoice_id", m->invoice_id);
	cli_json_str(o, "language", m->language);
	cli_json_str(o, "recipient", m->recipient);
	cli_json_str(o, "subject", m->subject);
	cli_json_str(o, "body", m->body);
	cJSON_AddBoolToObject(o, "attach_invoice", m->attach_invoice);
	cli_json_str(o, "status", m->status);
	cli_json_time(o, "send_after", m->send_after);
	cli_json_str(o, "provider", m->provider_code);
	cli_json_str(o, "provider_ref", m->provider_ref);
	cli_json_str(o, "error", m->error);
	cli_json_time_opt(o, "sent_at", m->sent_at);
	cli_json_time_opt(o, "delivered_at", m->delivered_at);
	cli_json_time(o, "created_at", m->created_at);
	return o;
}

static void msg_line(const struct message *m)
{
	char when[32];

	clock_format_local(m->created_at, "%Y-%m-%d %H:%M", when, sizeof when);
	printf("%6lld  %s  %-12s %-5s %-11s ", (long long)m->id, when, m->kind, m->channel,
	       m->status);
	cli_puts_safe(m->customer_name);
	printf("  ");
	cli_puts_safe(m->recipient);
	if (m->error) {
		printf("  ");
		cli_puts_safe(m->error);
	}
	putchar('\n');
}

static int list_cb(const struct message *m, void *arg)
{
	struct cli *c = arg;

	if (c->json)
		cli_list_add(c, msg_json(m));
	else
		msg_line(m);
	return 0;
}

static int show_one(struct cli *c, int64_t id)
{
	struct message m;
	int rc;

	if ((rc = message_get(c->db, id, &m)))
		return cli_refused(rc);
	if (c->json) {
		cli_print_json(msg_json(&m));
	} else {
		msg_line(&m);
		if (m.subject) {
			printf("%s: ", _("Subject"));
			cli_puts_safe(m.subject);
			putchar('\n');
		}
		putchar('\n');
		cli_puts_safe(m.body);
		putchar('\n');
	}
	message_free(&m);
	return CLI_OK;
}

/* ---------------------------------------------------------------- send */

static int send_check(struct cli *c, const struct cli_args *a)
{
	(void)c;
	if (!cli_arg_id(a, "visit") == !cli_arg_get(a, "invoice"))
		return cli_usage(a->cmd, _("name a visit (--visit) or an invoice (--invoice)"));
	return 0;
}

static int cmd_send(struct cli *c, const struct cli_args *a)
{
	struct message_input in = {0};
	int64_t n = 0, first = 0;
	const char *kind = cli_arg_get(a, "kind");
	char k[16];
	int rc;

	in.appt_id = cli_arg_id(a, "visit");
	if (cli_arg_get(a, "invoice") &&
	    (rc = invoice_find(c->db, cli_arg_get(a, "invoice"), &in.invoice_id)))
		return cli_refused(rc);
	/* on-the-way as typed, on_the_way as stored */
	snprintf(k, sizeof k, "%s", kind ? kind : in.invoice_id ? "invoice" : "reminder");
	for (char *p = k; *p; p++)
		if (*p == '-')
			*p = '_';
	in.kind = k;
	in.channel = cli_arg_get(a, "channel");
	if (cli_arg_get(a, "customer") &&
	    (rc = one_customer(c, cli_arg_get(a, "customer"), &in.customer_id)))
		return rc;
	if ((rc = message_make(c->db, &in, &n, &first)))
		return cli_refused(rc);
	if (c->json)
		return show_one(c, first);
	printf(_("%1$lld message(s) made (the first: %2$lld); they leave with the next round of "
	         "the worker.\n"),
	       (long long)n, (long long)first);
	return CLI_OK;
}

static int cmd_list(struct cli *c, const struct cli_args *a)
{
	int64_t cust = 0;
	int rc;

	if (cli_arg_get(a, "customer") && (rc = one_customer(c, cli_arg_get(a, "customer"), &cust)))
		return rc;
	cli_list_begin(c, "messages");
	return cli_list_end(c, message_list(c->db, cust, cli_arg_id(a, "visit"),
	                                    cli_arg_get(a, "status"), 0, list_cb, c));
}

static int cmd_show(struct cli *c, const struct cli_args *a)
{
	return show_one(c, a->id);
}

static int cmd_retry(struct cli *c, const struct cli_args *a)
{
	int rc;

	if ((rc = message_retry(c->db, a->id)))
		return cli_refused(rc);
	if (c->json)
		return show_one(c, a->id);
	printf(_("Message %lld will be sent again.\n"), (long long)a->id);
	return CLI_OK;
}

/* ------------------------------------------------------------- consent */

static int yes_no(const char *v, int *out)
{
	if (!v)
		return 1;
	if (!strcmp(v, "yes"))
		*out = 1;
	else if (!strcmp(v, "no"))
		*out = 0;
	else
		return -1;
	return 0;
}

static int consent_check(struct cli *c, const struct cli_args *a)
{
	int e = 0, s = 0, re, rs;

	(void)c;
	re = yes_no(cli_arg_get(a, "email"), &e);
	rs = yes_no(cli_arg_get(a, "sms"), &s);
	if (re < 0 || rs < 0)
		return cli_usage(a->cmd, _("--email and --sms are yes or no"));
	if (re > 0 && rs > 0 && !cli_arg_get(a, "language"))
		return cli_usage(a->cmd, _("give --email, --sms or --language"));
	return 0;
}

static int pref_show(struct cli *c, int64_t id)
{
	struct message_pref p;
	char failed[330], why[400];
	int rc;

	if ((rc = message_pref_get(c->db, id, &p)))
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "customer_id", id);
		cli_json_str(o, "language", *p.language ? p.language : NULL);
		cJSON_AddBoolToObject(o, "email", p.email_ok);
		cJSON_AddBoolToObject(o, "sms", p.sms_ok);
		cli_json_str(o, "reason", p.reason);
		cli_json_str(o, "changed_by", p.changed_by);
		cli_json_time_opt(o, "changed_at", p.changed_at);
		if (message_failed_address(c->db, id, MESSAGE_EMAIL, failed, sizeof failed, why,
		                           sizeof why) == 0 &&
		    *failed)
			cli_json_str(o, "email_failed", failed);
		if (message_failed_address(c->db, id, MESSAGE_SMS, failed, sizeof failed, why,
		                           sizeof why) == 0 &&
		    *failed)
			cli_json_str(o, "sms_failed", failed);
		cli_print_json(o);
	} else {
		printf(_("Customer %1$lld: e-mails %2$s, text messages %3$s, language %4$s.\n"),
		       (long long)id, p.email_ok ? _("yes") : _("no"),
		       p.sms_ok ? _("yes") : _("no"), *p.language ? p.language : _("the shop's"));
		if (message_failed_address(c->db, id, MESSAGE_EMAIL, failed, sizeof failed, why,
		                           sizeof why) == 0 &&
		    *failed) {
			printf("%s ", _("E-mail failed:"));
			cli_puts_safe(failed);
			printf(" (");
			cli_puts_safe(why);
			printf(")\n");
		}
		if (message_failed_address(c->db, id, MESSAGE_SMS, failed, sizeof failed, why,
		                           sizeof why) == 0 &&
		    *failed) {
			printf("%s ", _("Text message failed:"));
			cli_puts_safe(failed);
			printf(" (");
			cli_puts_safe(why);
			printf(")\n");
		}
	}
	message_pref_free(&p);
	return CLI_OK;
}

static int cmd_consent(struct cli *c, const struct cli_args *a)
{
	int64_t id;
	int v, rc;

	if ((rc = one_customer(c, a->pos[0], &id)))
		return rc;
	if (yes_no(cli_arg_get(a, "email"), &v) == 0 &&
	    (rc = message_consent_set(c->db, id, MESSAGE_EMAIL, v, cli_arg_get(a, "reason"))))
		return cli_refused(rc);
	if (yes_no(cli_arg_get(a, "sms"), &v) == 0 &&
	    (rc = message_consent_set(c->db, id, MESSAGE_SMS, v, cli_arg_get(a, "reason"))))
		return cli_refused(rc);
	if (cli_arg_get(a, "language") &&
	    (rc = message_language_set(
	         c->db, id,
	         strcmp(cli_arg_get(a, "language"), "shop") ? cli_arg_get(a, "language") : NULL)))
		return cli_refused(rc);
	return pref_show(c, id);
}

/* ------------------------------------------------------- the rounds */

static int cmd_schedule(struct cli *c, const struct cli_args *a)
{
	struct message_round r;
	int rc;

	(void)a;
	rc = message_schedule(c->db, &r);
	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "made", r.made);
		cli_json_int(o, "released", r.released);
		cli_json_int(o, "cancelled", r.cancelled);
		cli_json_int(o, "waiting", r.waiting);
		cli_print_json(o);
	} else {
		printf(_("%1$lld reminder(s) made, %2$lld message(s) handed to the outbox, %3$lld "
		         "cancelled, %4$lld waiting for a provider.\n"),
		       (long long)r.made, (long long)r.released, (long long)r.cancelled,
		       (long long)r.waiting);
	}
	return CLI_OK;
}

static int cmd_run(struct cli *c, const struct cli_args *a)
{
	struct message_sent s = {0};
	struct control_hold lease;
	struct pipe_conn ch;
	const char *types[] = {MESSAGE_EMAIL, MESSAGE_SMS};
	int64_t applied = 0, asked = 0;
	size_t i;
	int rc = 0;

	if (!cli_arg_flag(a, "once"))
		return cli_usage(a->cmd, _("only --once is supported here; the worker runs in the "
		                           "desk or in 'frontdesk serve'"));
	if ((rc = control_acquire(c->db, CONTROL_CHANNEL, CONTROL_LEASE, 60, &lease)) != 0)
		return cli_refused(rc);
	for (i = 0; !rc && i < sizeof types / sizeof *types; i++) {
		if ((rc = message_conn_open(c->db, types[i], cli_arg_get(a, "provider"),
		                            cli_arg_get(a, "secrets"), NULL, &ch)) != 0) {
			/* no provider of that type: nothing to send by it */
			if (rc == FD_ENOTFOUND && !cli_arg_get(a, "provider")) {
				err_clear();
				rc = 0;
			}
			continue;
		}
		rc = message_deliver(c->db, &ch, &lease, NULL, &s);
		if (!rc && !strcmp(types[i], MESSAGE_SMS))
			rc = message_sms_process(c->db, &ch, &lease, NULL, &applied);
		if (!rc && !strcmp(types[i], MESSAGE_SMS))
			rc = message_sms_query(c->db, &ch, &lease, NULL, &asked);
		pipe_conn_close(&ch);
	}
	control_release(c->db, &lease);
	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "sent", s.sent);
		cli_json_int(o, "failed", s.failed);
		cli_json_int(o, "dead", s.dead);
		cli_json_int(o, "held", s.held);
		cli_json_int(o, "receipts", applied);
		cli_json_int(o, "asked", asked);
		cli_print_json(o);
	} else {
		printf(
		    _("%1$d sent, %2$d to try again, %3$d given up, %4$d waiting for the morning; "
		      "%5$lld receipt(s) applied, %6$lld asked about.\n"),
		    s.sent, s.failed, s.dead, s.held, (long long)applied, (long long)asked);
	}
	return CLI_OK;
}

static int provider_check(struct cli *c, const struct cli_args *a)
{
	const char *t = cli_arg_get(a, "type");

	(void)c;
	if (strcmp(t, MESSAGE_EMAIL) && strcmp(t, MESSAGE_SMS))
		return cli_usage(a->cmd, _("--type is email or sms"));
	return 0;
}

static int cmd_provider_set(struct cli *c, const struct cli_args *a)
{
	int rc = cli_provider_set_type(c, a, cli_arg_get(a, "type"));

	if (rc == CLI_OK && !c->json)
		printf(_("Message provider %s saved.\n"), a->pos[0]);
	return rc;
}

static int cmd_providers(struct cli *c, const struct cli_args *a)
{
	const char *t = cli_arg_get(a, "type");

	return cli_providers_type(c, t ? t : MESSAGE_EMAIL);
}

/* ------------------------------------------------ the shop's own words */

struct tmpl_list {
	struct cli *c;
	int n;
};

static void tmpl_cb(const char *path, const char *why, void *arg)
{
	struct tmpl_list *t = arg;

	t->n++;
	if (t->c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "file", path);
		cJSON_AddBoolToObject(o, "used", why == NULL);
		if (why)
			cli_json_str(o, "error", why);
		cli_list_add(t->c, o);
		return;
	}
	if (why) { /* why names the file */
		cli_puts_safe(why);
		fputs(_(" (NOT USED: the built-in template is)"), stdout);
	} else {
		cli_puts_safe(path);
		fputs(_(": used"), stdout);
	}
	putchar('\n');
}

static int cmd_templates(struct cli *c, const struct cli_args *a)
{
	const char *dir = cli_arg_get(a, "dir");
	struct tmpl_list t = {c, 0};
	int bad, written = 0, rc;

	if (!dir)
		dir = config_get("message_template_dir", NULL);
	if (!dir || !*dir)
		return cli_usage(a->cmd, "%s",
		                 _("name the folder of the shop's templates: --dir DIR, or the "
		                   "setting message_template_dir"));
	if (cli_arg_flag(a, "write")) {
		if ((rc = message_text_export(dir, &written)))
			return cli_refused(rc);
		if (!c->json)
			printf(_("%d template file(s) written; the files already there are left as "
			         "they were.\n"),
			       written);
	}
	cli_list_begin(c, "templates");
	bad = message_text_check(dir, tmpl_cb, &t);
	if (!c->json && !t.n)
		printf("%s\n", _("No template files there: the built-in templates are used."));
	if ((rc = cli_list_end(c, 0)))
		return rc;
	if (bad) {
		fprintf(stderr, _("frontdesk %1$s: %2$d template file(s) cannot be used\n"), a->cmd,
		        bad);
		return CLI_REFUSED;
	}
	return CLI_OK;
}

#define ID_CMD .max_pos = 1, .id = N_("the message's id"), .db = CLI_DB_OPEN

const struct cli_entry cli_message_cmds[] = {
    {"send", NULL, "--visit N | --invoice INV [...]",
     "(--visit N [--kind reminder|on-the-way|confirmation] | --invoice INV) [--channel email|sms] "
     "[--customer C]",
     N_("make a message to a visit's customers or an invoice's; it leaves with the worker"),
     .opts = {{"visit", CLI_ID, N_("the visit it is about"), N_("the visit"), NULL},
              {"invoice", CLI_VALUE, N_("the invoice to send (its PDF attached to an e-mail)"),
               NULL, NULL},
              {"kind", CLI_VALUE, N_("reminder (default), on-the-way or confirmation, for a visit"),
               NULL, NULL},
              {"channel", CLI_VALUE,
               N_("email or sms (default: a text for on-the-way, else an e-mail, the other when "
                  "the customer has no such address)"),
               NULL, NULL},
              {"customer", CLI_VALUE, N_("only this one of the visit's customers"), NULL, NULL}},
     .db = CLI_DB_OPEN, .check = send_check, .run = cmd_send},
    {"list", NULL, "[--customer C] [--visit N] [--status S]", NULL,
     N_("list the messages, newest first"),
     .opts = {{"customer", CLI_VALUE, N_("only this customer's"), NULL, NULL},
              {"visit", CLI_ID, N_("only about this visit"), N_("the visit"), NULL},
              {"status", CLI_VALUE,
               N_("waiting, sending, sent, unconfirmed, delivered, failed or cancelled"), NULL,
               NULL}},
     .db = CLI_DB_OPEN, .run = cmd_list},
    {"show", NULL, "ID", NULL, N_("show a message: its words, status and error"), ID_CMD,
     .run = cmd_show},
    {"retry", NULL, "ID", NULL, N_("send a failed message again"), ID_CMD, .run = cmd_retry},
    {"consent", NULL, "CUSTOMER [--email yes|no] [--sms yes|no] [--language L]",
     "CUSTOMER [--email yes|no] [--sms yes|no] [--reason R] [--language en|zh_CN|zh_TW|shop]",
     N_("whether a customer wants e-mails and text messages, and their language"),
     .opts = {{"email", CLI_VALUE, N_("yes or no"), NULL, NULL},
              {"sms", CLI_VALUE, N_("yes or no"), NULL, NULL},
              {"reason", CLI_VALUE, N_("why (kept with who changed it and when)"), NULL, NULL},
              {"language", CLI_VALUE,
               N_("the language of their messages: en, zh_CN, zh_TW, or shop (the shop's)"), NULL,
               NULL}},
     .min_pos = 1, .max_pos = 1, .missing = N_("name the customer"), .db = CLI_DB_OPEN,
     .check = consent_check, .run = cmd_consent},
    {"templates", NULL, "[--dir DIR] [--write]", NULL,
     N_("the shop's own template files: which are used, and why one is not"),
     .opts = {{"dir", CLI_VALUE, N_("the folder (default: the setting message_template_dir)"), NULL,
               NULL},
              {"write", CLI_FLAG,
               N_("first write the built-in templates there, to edit (a file there is kept)"), NULL,
               NULL}},
     .run = cmd_templates},
    {"schedule", NULL, "", NULL,
     N_("one round of the scheduler: reminders whose time came, messages handed to the outbox "
        "(the task runner does it every minute)"),
     .db = CLI_DB_OPEN, .run = cmd_schedule},
    {"run", NULL, "--once [--provider CODE] [--secrets FILE]", NULL,
     N_("one round of delivery: the messages in the outbox sent"),
     .opts = {{"once", CLI_FLAG, N_("do what is due now and stop"), NULL, NULL},
              {"provider", CLI_VALUE, N_("this provider only"), NULL, NULL},
              {"secrets", CLI_VALUE, N_("the secrets file (default: the config folder's)"), NULL,
               NULL}},
     .db = CLI_DB_OPEN, .run = cmd_run},
    {"provider-set", NULL, "CODE --type email|sms [--url URL] [...]",
     "CODE --type email|sms [--url URL] [--role primary|backup] [--adapter smtp|sms-rest] "
     "[--enable|--disable]",
     N_("add or change a message provider: a mail server, or a text-message provider"),
     .opts = {{"type", CLI_VALUE, N_("email or sms"), NULL, N_("--type is required")},
              {"url", CLI_VALUE,
               N_("a mail server: smtps://host:465 or smtp://host:587 (STARTTLS required); a "
                  "text-message provider: https://"),
               NULL, NULL},
              {"role", CLI_VALUE, N_("primary or backup"), NULL, NULL},
              {"adapter", CLI_VALUE,
               N_("how to speak to it: smtp (email) or sms-rest (sms; see the manual)"), NULL,
               NULL},
              {"enable", CLI_FLAG, N_("use this provider"), NULL, NULL},
              {"disable", CLI_FLAG, N_("stop using this provider"), NULL, NULL}},
     .min_pos = 1, .max_pos = 1, .missing = N_("name the provider code"), .db = CLI_DB_OPEN,
     .check = provider_check, .run = cmd_provider_set},
    {"providers", NULL, "[--type email|sms]", NULL, N_("list the message providers of a type"),
     .opts = {{"type", CLI_VALUE, N_("email (default) or sms"), NULL, NULL}}, .db = CLI_DB_OPEN,
     .run = cmd_providers},
    {NULL},
};
