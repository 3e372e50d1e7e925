/*
 * chan-steps.c - the payment channel as a type of the integration
 * pipeline (see chan-steps.h): its ingest, the poller (chan-poll.c), the
 * processing and active queries (chan-process.c), the outbox delivery
 * (outbox.c), each through the provider's payment adapter (struct
 * chan_ops, chan-adapters.c), and the scheduled reconciliation (recon.c).
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "chan-adapters.h"
#include "chan-poll.h"
#include "chan-process.h"
#include "chan-steps.h"
#include "channel.h"
#include "control.h"
#include "err.h"
#include "inbox.h"
#include "outbox.h"
#include "pipe-provider.h"
#include "pipe-secret.h"
#include "pipe.h"
#include "recon.h"

/* The payment type's ingest: the provider's adapter (its row's, or the
 * adapter of that name) verifies with CODE_<its secret name>. */
static int pay_ingest(struct db *db, const char *code, const char *secrets, const char *header,
                      const void *raw, size_t len, struct inbox_ingest_result *r)
{
	const struct chan_ops *ops;
	struct pipe_secrets *sec = NULL;
	const char *secret;
	char key[64];
	int rc;

	memset(r, 0, sizeof *r);
	if ((rc = chan_adapter_of(db, code, &ops)) != 0)
		return rc;
	if (!header && ops->needs_header)
		return pipe_no_header(code);
	if ((rc = pipe_secret_load(secrets, &sec)) != 0)
		return rc;
	snprintf(key, sizeof key, "%s_%s", code, ops->secret_name);
	if ((rc = pipe_secret_need(sec, key, &secret)) == 0)
		rc = inbox_ingest(db, ops, code, header, raw, len, secret, r);
	pipe_secret_free(sec);
	r->answer = ops->answer;
	return rc;
}

static int pay_can_poll(const struct pipe_conn *c)
{
	return c->ops->poll_events != NULL;
}

static int pay_poll(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                    struct pipe_step_result *r)
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

/* The due active queries (query) or the due stored events, with the
 * provider's default options (chan-process.c). */
static int pay_round(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                     volatile sig_atomic_t *stop, int query, struct pipe_step_result *r)
{
	struct chan_process_opts o;
	struct chan_process_result pr;
	int rc;

	chan_process_opts_default(&o, c->p.code);
	memset(&pr, 0, sizeof pr);
	rc = (query ? chan_query_due : chan_process_due)(db, c->ops, c->ctx, &o, lease, stop, 0,
	                                                 &pr);
	r->found = pr.queried;
	r->dead = pr.dead;
	return rc;
}

static int pay_query(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                     volatile sig_atomic_t *stop, struct pipe_step_result *r)
{
	return pay_round(db, c, lease, stop, 1, r);
}

static int pay_process(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                       volatile sig_atomic_t *stop, struct pipe_step_result *r)
{
	return pay_round(db, c, lease, stop, 0, r);
}

static int pay_deliver(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                       volatile sig_atomic_t *stop, struct pipe_step_result *r)
{
	struct outbox_result res;
	int rc = outbox_deliver(db, c->ops, c->ctx, c->p.code, lease, stop, &res);

	r->sent = res.attempts;
	r->dead = res.dead;
	return rc;
}

/* When the poller may call provider again: the end of its offline wait
 * (the channel state), 0 when it is not offline. */
static int64_t pay_poll_after(struct db *db, const char *code)
{
	struct chan_state s;
	int64_t t = 0;

	if (chan_state_get(db, code, &s) == 0 && chan_run_state_of(s.state) == CHAN_RUN_OFFLINE)
		t = s.offline_until;
	chan_state_free(&s);
	return t;
}

/* The scheduled reconciliation of yesterday (recon_auto_hour), when the
 * adapter has settlement data and the day is due. */
static int pay_settle(struct db *db, struct pipe_conn *c, struct pipe_step_result *r)
{
	struct recon_result rr;
	int rc;

	r->done = 0;
	if (!c->ops || !c->ops->settlement || recon_auto_day(db, c->p.code, r->day) != 1)
		return 0;
	/* the shop scheduled it (recon_auto_hour): no person asks (control.h) */
	control_acting_enter();
	rc = recon_fetch_run(db, c, r->day, &rr);
	control_acting_leave();
	if (!rc) {
		r->done = 1;
		r->open = rr.open;
	}
	return rc;
}

const struct pipe_type chan_steps = {
    CHAN_TYPE_PAYMENT, chan_adapter_connect, pay_ingest,  pay_can_poll,        pay_poll,
    pay_query,         pay_process,          pay_deliver, outbox_payment_fits, chan_adapter_known,
    pay_poll_after,    pay_settle,
};
