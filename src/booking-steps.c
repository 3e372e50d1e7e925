/*
 * booking-steps.c - the booking channel as a type of the integration
 * pipeline (see booking-steps.h): no events list, nothing to ask; the
 * stored requests decided, the outbox (answers, availability pushes)
 * delivered, each by booking-chan.c.
 */
#include <config.h>

#include "booking-chan.h"
#include "booking-steps.h"
#include "pipe-provider.h"
#include "pipe.h"

static int booking_step_open(struct db *db, const char *code, const char *secrets,
                             volatile sig_atomic_t *stop, struct pipe_conn *c)
{
	(void)secrets;
	(void)stop;
	return booking_chan_conn_open(db, code, c);
}

/* The booking type's ingest: booking_chan_ingest, its requests always
 * signed in a header. */
static int booking_step_ingest(struct db *db, const char *code, const char *secrets,
                               const char *header, const void *raw, size_t len,
                               struct inbox_ingest_result *r)
{
	return header ? booking_chan_ingest(db, code, secrets, header, raw, len, r)
	              : pipe_no_header(code);
}

/* The booking type's steps (booking-chan.c): no events list, nothing to
 * ask; the stored requests decided, the outbox (answers, availability
 * pushes) delivered. */
static int booking_step_process(struct db *db, struct pipe_conn *c,
                                const struct control_hold *lease, volatile sig_atomic_t *stop,
                                struct pipe_step_result *r)
{
	struct bchan_round br;
	int rc;

	(void)lease;
	(void)stop;
	rc = booking_chan_process(db, c->p.code, 0, &br);
	r->dead = br.failed;
	return rc;
}

static int booking_step_deliver(struct db *db, struct pipe_conn *c,
                                const struct control_hold *lease, volatile sig_atomic_t *stop,
                                struct pipe_step_result *r)
{
	return booking_chan_deliver(db, c->p.code, lease, stop, &r->sent);
}

const struct pipe_type booking_steps = {
    BOOKING_CHAN_TYPE,
    booking_step_open,
    booking_step_ingest,
    NULL,
    NULL,
    NULL,
    booking_step_process,
    booking_step_deliver,
    booking_chan_command_fits,
    booking_chan_adapter_known,
    NULL,
    NULL,
};
