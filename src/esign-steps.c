/*
 * esign-steps.c - e-sign as a type of the integration pipeline (see
 * esign-steps.h): no events list; the open flows are queried, the stored
 * callbacks applied (and the final documents of signed flows downloaded
 * after them), the outbox delivered, each by esign.c and esign-flow.c.
 */
#include <config.h>

#include "esign-steps.h"
#include "esign.h"
#include "pipe-provider.h"
#include "pipe.h"

/* The e-sign type's ingest: esign_ingest, its callbacks always signed in a
 * header. */
static int esign_step_ingest(struct db *db, const char *code, const char *secrets,
                             const char *header, const void *raw, size_t len,
                             struct inbox_ingest_result *r)
{
	return header ? esign_ingest(db, code, secrets, header, raw, len, r) : pipe_no_header(code);
}

/* The e-sign type's steps (esign.c): no events list; the open flows are
 * queried, the stored callbacks applied (and the final documents of signed
 * flows downloaded after them), the outbox delivered. */
static int esign_step_query(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                            volatile sig_atomic_t *stop, struct pipe_step_result *r)
{
	struct esign_round er = {0};
	int rc = esign_query(db, c, lease, stop, 0, &er);

	r->found = er.queried;
	return rc;
}

static int esign_step_process(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                              volatile sig_atomic_t *stop, struct pipe_step_result *r)
{
	struct esign_round er = {0};
	int rc = esign_process(db, c, lease, stop, 0, &er);

	if (!rc)
		rc = esign_download(db, c, lease, stop, &er);
	r->dead = er.failed;
	return rc;
}

static int esign_step_deliver(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                              volatile sig_atomic_t *stop, struct pipe_step_result *r)
{
	struct esign_round er = {0};
	int rc = esign_deliver(db, c, lease, stop, &er);

	r->sent = er.sent;
	return rc;
}

const struct pipe_type esign_steps = {
    ESIGN_TYPE,
    esign_conn_open,
    esign_step_ingest,
    NULL,
    NULL,
    esign_step_query,
    esign_step_process,
    esign_step_deliver,
    esign_command_fits,
    esign_adapter_known,
    NULL,
    NULL,
};
