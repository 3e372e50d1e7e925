/*
 * media-steps.c - the media of condition reports as a type of the
 * integration pipeline (see media-steps.h): nothing to poll and no
 * callbacks; the outbox delivered (uploads, deletions) and the media still
 * processing asked about, each by media.c.
 */
#include <config.h>

#include "media-steps.h"
#include "media.h"
#include "pipe.h"

static int media_step_query(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                            volatile sig_atomic_t *stop, struct pipe_step_result *r)
{
	struct media_round mr = {0};
	int rc = media_query(db, c, lease, stop, 0, &mr);

	r->found = mr.queried;
	return rc;
}

static int media_step_deliver(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                              volatile sig_atomic_t *stop, struct pipe_step_result *r)
{
	struct media_round mr = {0};
	int rc = media_deliver(db, c, lease, stop, &mr);

	r->sent = mr.sent;
	r->dead = mr.dead;
	return rc;
}

const struct pipe_type media_steps = {
    MEDIA_TYPE,
    media_conn_open,
    NULL,
    NULL,
    NULL,
    media_step_query,
    NULL,
    media_step_deliver,
    media_command_fits,
    media_adapter_known,
    NULL,
    NULL,
};
