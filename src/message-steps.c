/*
 * message-steps.c - e-mail and text messages as types of the integration
 * pipeline (see message-steps.h), each step done by message.c: e-mail has
 * nothing to poll and nothing stored to apply, only the outbox to deliver;
 * text messages also have their delivery receipts (relayed, stored,
 * applied) and the messages sent long ago with none (asked about).
 */
#include <config.h>

#include <string.h>

#include "message-steps.h"
#include "message.h"
#include "outbox.h"
#include "pipe-provider.h"
#include "pipe.h"

static int email_open(struct db *db, const char *code, const char *secrets,
                      volatile sig_atomic_t *stop, struct pipe_conn *c)
{
	return message_conn_open(db, MESSAGE_EMAIL, code, secrets, stop, c);
}

static int message_step_deliver(struct db *db, struct pipe_conn *c,
                                const struct control_hold *lease, volatile sig_atomic_t *stop,
                                struct pipe_step_result *r)
{
	struct message_sent s = {0};
	int rc = message_deliver(db, c, lease, stop, &s);

	r->sent = s.sent;
	r->dead = s.dead;
	return rc;
}

/* A mail server is spoken to by SMTP: the one adapter, "smtp". */
static int email_adapter_known(const char *name)
{
	return !strcmp(name, "smtp");
}

/* A revived message command is sent only while its message still is to be
 * sent (message_deliver checks it again, with the consent, before it is). */
static int message_command_fits(struct db *db, const struct outbox_cmd *o)
{
	(void)db;
	return o->business_key && !strncmp(o->business_key, "MSG-", 4);
}

static int sms_open(struct db *db, const char *code, const char *secrets,
                    volatile sig_atomic_t *stop, struct pipe_conn *c)
{
	return message_conn_open(db, MESSAGE_SMS, code, secrets, stop, c);
}

static int sms_ingest(struct db *db, const char *code, const char *secrets, const char *header,
                      const void *raw, size_t len, struct inbox_ingest_result *r)
{
	return header ? message_sms_ingest(db, code, secrets, header, raw, len, r)
	              : pipe_no_header(code);
}

static int sms_process(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                       volatile sig_atomic_t *stop, struct pipe_step_result *r)
{
	int64_t n = 0;
	int rc = message_sms_process(db, c, lease, stop, &n);

	(void)r;
	return rc;
}

static int sms_query(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                     volatile sig_atomic_t *stop, struct pipe_step_result *r)
{
	return message_sms_query(db, c, lease, stop, &r->found);
}

/* A text-message provider speaks the sms-rest contract: one adapter. */
static int sms_adapter_known(const char *name)
{
	return !strcmp(name, "sms-rest");
}

const struct pipe_type sms_steps = {
    MESSAGE_SMS,
    sms_open,
    sms_ingest,
    NULL,
    NULL,
    sms_query,
    sms_process,
    message_step_deliver,
    message_command_fits,
    sms_adapter_known,
    NULL,
    NULL,
};

const struct pipe_type email_steps = {
    MESSAGE_EMAIL,        email_open,          NULL, NULL, NULL, NULL, NULL, message_step_deliver,
    message_command_fits, email_adapter_known, NULL, NULL,
};
