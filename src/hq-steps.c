/*
 * hq-steps.c - the head office as a type of the integration pipeline (see
 * hq-steps.h): nothing to poll, nothing stored to apply; the outbox alone,
 * whose batches hq_deliver first queues from the history tables, then
 * sends.
 */
#include <config.h>

#include <string.h>

#include "hq-steps.h"
#include "hq.h"
#include "outbox.h"

static int hq_open(struct db *db, const char *code, const char *secrets,
                   volatile sig_atomic_t *stop, struct pipe_conn *c)
{
	return hq_conn_open(db, code, secrets, stop, c);
}

static int hq_step_deliver(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                           volatile sig_atomic_t *stop, struct pipe_step_result *r)
{
	struct hq_sent s = {0};
	int rc = hq_deliver(db, c, lease, stop, &s);

	r->sent = s.sent;
	r->dead = s.dead;
	return rc;
}

/* A head office is spoken to by libpq: the one adapter, "postgresql". */
static int hq_adapter(const char *name)
{
	return !strcmp(name, "postgresql");
}

/* A batch revived by a person is sent again whole: its rows are read when
 * it is sent, and the head office applies each once by its version. */
static int hq_command_fits(struct db *db, const struct outbox_cmd *o)
{
	(void)db;
	return o->business_key && !strncmp(o->business_key, "HQ-", 3);
}

const struct pipe_type hq_steps = {
    HQ_TYPE,         hq_open,         NULL,       NULL, NULL, NULL, NULL,
    hq_step_deliver, hq_command_fits, hq_adapter, NULL, NULL,
};
