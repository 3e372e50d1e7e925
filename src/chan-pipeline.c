/*
 * chan-pipeline.c - the steps of each integration type for the channel
 * worker (see chan-pipeline.h). The payment type's steps are the poller
 * (chan-poll.c), the processing and active queries (chan-process.c) and
 * the outbox delivery (outbox.c), each through the provider's payment
 * adapter (struct chan_ops).
 */
#include <config.h>

#include <string.h>

#include "booking-chan.h"
#include "chan-pipeline.h"
#include "chan-poll.h"
#include "chan-process.h"
#include "chan-provider.h"
#include "esign.h"
#include "outbox.h"

static int pay_can_poll(const struct chan_conn *c)
{
	return c->ops->poll_events != NULL;
}

static int pay_poll(struct db *db, struct chan_conn *c, const struct control_hold *lease,
                    struct chan_step_result *r)
{
	struct chan_poll_opts po;
	struct chan_poll_result pr;
	int rc;

	chan_poll_opts_default(&po, c->p.code);
	rc = chan_poll_once(db, c->ops, c->ctx, &po, lease, &pr);
	r->stored = pr.stored;
	r->wait = pr.wait;
	return rc;
}

static int pay_query(struct db *db, struct chan_conn *c, const struct control_hold *lease,
                     volatile sig_atomic_t *stop, struct chan_step_result *r)
{
	struct chan_process_opts o;
	struct chan_process_result pr;
	int rc;

	chan_process_opts_default(&o, c->p.code);
	memset(&pr, 0, sizeof pr);
	rc = chan_query_due(db, c->ops, c->ctx, &o, lease, stop, 0, &pr);
	r->found = pr.queried;
	return rc;
}

static int pay_process(struct db *db, struct chan_conn *c, const struct control_hold *lease,
                       volatile sig_atomic_t *stop, struct chan_step_result *r)
{
	struct chan_process_opts o;
	struct chan_process_result pr;
	int rc;

	chan_process_opts_default(&o, c->p.code);
	memset(&pr, 0, sizeof pr);
	rc = chan_process_due(db, c->ops, c->ctx, &o, lease, stop, 0, &pr);
	r->dead = pr.dead;
	return rc;
}

static int pay_deliver(struct db *db, struct chan_conn *c, const struct control_hold *lease,
                       volatile sig_atomic_t *stop, struct chan_step_result *r)
{
	struct outbox_result res;
	int rc = outbox_deliver(db, c->ops, c->ctx, c->p.code, lease, stop, &res);

	r->sent = res.attempts;
	r->dead = res.dead;
	return rc;
}

/* The e-sign type's steps (esign.c): no events list; the open flows are
 * queried, the stored callbacks applied (and the final documents of signed
 * flows downloaded after them), the outbox delivered. */
static int esign_step_query(struct db *db, struct chan_conn *c, const struct control_hold *lease,
                            volatile sig_atomic_t *stop, struct chan_step_result *r)
{
	struct esign_round er = {0};
	int rc = esign_query(db, c, lease, stop, 0, &er);

	r->found = er.queried;
	return rc;
}

static int esign_step_process(struct db *db, struct chan_conn *c, const struct control_hold *lease,
                              volatile sig_atomic_t *stop, struct chan_step_result *r)
{
	struct esign_round er = {0};
	int rc = esign_process(db, c, lease, stop, 0, &er);

	if (!rc)
		rc = esign_download(db, c, lease, stop, &er);
	r->dead = er.failed;
	return rc;
}

static int esign_step_deliver(struct db *db, struct chan_conn *c, const struct control_hold *lease,
                              volatile sig_atomic_t *stop, struct chan_step_result *r)
{
	struct esign_round er = {0};
	int rc = esign_deliver(db, c, lease, stop, &er);

	r->sent = er.sent;
	return rc;
}

/* The booking type's steps (booking-chan.c): no events list, nothing to
 * ask; the stored requests decided, the outbox (answers, availability
 * pushes) delivered. */
static int booking_step_process(struct db *db, struct chan_conn *c,
                                const struct control_hold *lease, volatile sig_atomic_t *stop,
                                struct chan_step_result *r)
{
	struct bchan_round br;
	int rc;

	(void)lease;
	(void)stop;
	rc = booking_chan_process(db, c->p.code, 0, &br);
	r->dead = br.failed;
	return rc;
}

static int booking_step_deliver(struct db *db, struct chan_conn *c,
                                const struct control_hold *lease, volatile sig_atomic_t *stop,
                                struct chan_step_result *r)
{
	return booking_chan_deliver(db, c->p.code, lease, stop, &r->sent);
}

static const struct chan_pipeline pipelines[] = {
    {CHAN_TYPE_PAYMENT, pay_can_poll, pay_poll, pay_query, pay_process, pay_deliver},
    {ESIGN_TYPE, NULL, NULL, esign_step_query, esign_step_process, esign_step_deliver},
    {BOOKING_CHAN_TYPE, NULL, NULL, NULL, booking_step_process, booking_step_deliver},
};

const struct chan_pipeline *chan_pipeline_find(const char *type)
{
	size_t i;

	for (i = 0; type && i < sizeof pipelines / sizeof *pipelines; i++)
		if (!strcmp(pipelines[i].type, type))
			return &pipelines[i];
	return NULL;
}
