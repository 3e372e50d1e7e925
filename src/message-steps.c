/*
 * message-steps.c - e-mail as a type of the integration pipeline (see
 * message-steps.h): nothing to poll, nothing stored to apply; the outbox's
 * messages delivered by message.c.
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

static int email_deliver(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                         volatile sig_atomic_t *stop, struct pipe_step_result *r)
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

const struct pipe_type email_steps = {
    MESSAGE_EMAIL,        email_open,          NULL, NULL, NULL, NULL, NULL, email_deliver,
    message_command_fits, email_adapter_known, NULL, NULL,
};
