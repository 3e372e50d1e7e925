/*
 * pipe.c - the steps of each integration type for the channel
 * worker (see pipe.h). The payment type's steps are the poller
 * (chan-poll.c), the processing and active queries (chan-process.c) and
 * the outbox delivery (outbox.c), each through the provider's payment
 * adapter (struct chan_ops).
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "booking-chan.h"
#include "chan-poll.h"
#include "chan-process.h"
#include "err.h"
#include "esign.h"
#include "i18n.h"
#include "inbox.h"
#include "outbox.h"
#include "pipe-provider.h"
#include "pipe-secret.h"
#include "pipe.h"

/* The header a relayed payload of provider code came without: refused
 * before anything is stored. */
static int no_header(const char *code)
{
	return err_set(FD_EINVAL,
	               _("provider %s signs what it sends in a header, and no signature "
	                 "came with this payload: nothing was stored"),
	               code);
}

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
	if ((rc = pipe_provider_adapter(db, code, &ops)) != 0)
		return rc;
	if (!header && ops->needs_header)
		return no_header(code);
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

/* The e-sign type's ingest: esign_ingest, its callbacks always signed in a
 * header. */
static int esign_step_ingest(struct db *db, const char *code, const char *secrets,
                             const char *header, const void *raw, size_t len,
                             struct inbox_ingest_result *r)
{
	return header ? esign_ingest(db, code, secrets, header, raw, len, r) : no_header(code);
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
	              : no_header(code);
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

/* Every type, in the order the worker serves them (and a code registered
 * under several is looked for). */
static const struct pipe_type pipelines[] = {
    {CHAN_TYPE_PAYMENT, pipe_conn_open, pay_ingest, pay_can_poll, pay_poll, pay_query, pay_process,
     pay_deliver, outbox_payment_fits, pipe_adapter_known},
    {ESIGN_TYPE, esign_conn_open, esign_step_ingest, NULL, NULL, esign_step_query,
     esign_step_process, esign_step_deliver, esign_command_fits, esign_adapter_known},
    {BOOKING_CHAN_TYPE, booking_step_open, booking_step_ingest, NULL, NULL, NULL,
     booking_step_process, booking_step_deliver, booking_chan_command_fits,
     booking_chan_adapter_known},
};
#define N_PIPELINES (sizeof pipelines / sizeof *pipelines)

const struct pipe_type *pipe_at(size_t i)
{
	return i < N_PIPELINES ? &pipelines[i] : NULL;
}

int pipe_resolve(struct db *db, const char *type, const char *code, const struct pipe_type **pl)
{
	struct pipe_provider p;
	char found[64] = "";
	size_t i, n = 0;
	int rc;

	*pl = NULL;
	if (type) {
		if (!(*pl = pipe_find(type)))
			return err_set(
			    FD_EINVAL,
			    _("there is no integration type '%s' (payment, esign, booking)"), type);
		return 0;
	}
	if (!code) { /* the primary payment provider (pipe_conn_open) */
		*pl = &pipelines[0];
		return 0;
	}
	for (i = 0; i < N_PIPELINES; i++) {
		rc = pipe_provider_get_type(db, pipelines[i].type, code, &p);
		if (rc == FD_ENOTFOUND)
			continue;
		if (rc)
			return rc;
		pipe_provider_free(&p);
		if (!n++)
			*pl = &pipelines[i];
		snprintf(found + strlen(found), sizeof found - strlen(found), "%s%s",
		         n > 1 ? ", " : "", pipelines[i].type);
	}
	if (n > 1) {
		*pl = NULL;
		return err_set(FD_ECONFLICT,
		               _("provider %s is registered under several types (%s): say which "
		                 "with --type"),
		               code, found);
	}
	if (!n)
		*pl = &pipelines[0]; /* a payment adapter's name (pipe_provider_adapter) */
	return 0;
}

int pipe_open(struct db *db, const char *type, const char *code, const char *secrets,
              volatile sig_atomic_t *stop, struct pipe_conn *c, const struct pipe_type **pl)
{
	int rc = pipe_resolve(db, type, code, pl);

	memset(c, 0, sizeof *c);
	return rc ? rc : (*pl)->open(db, code, secrets, stop, c);
}

int pipe_retry(struct db *db, int64_t id)
{
	const struct pipe_type *pl;
	struct outbox_cmd o;
	int rc;

	if ((rc = outbox_cmd_get(db, id, &o)) != 0)
		return rc;
	pl = pipe_find(o.type);
	outbox_cmd_free(&o);
	return outbox_retry(db, id, pl ? pl->command_fits : NULL);
}

int pipe_ingest(struct db *db, const char *type, const char *code, const char *secrets,
                const char *header, const void *raw, size_t len, struct inbox_ingest_result *r)
{
	const struct pipe_type *pl;
	int rc;

	memset(r, 0, sizeof *r);
	r->answer = "";
	if ((rc = inbox_source_valid(code)) != 0 || (rc = pipe_resolve(db, type, code, &pl)))
		return rc;
	rc = pl->ingest(db, code, secrets, header, raw, len, r);
	if (!r->answer)
		r->answer = "";
	return rc;
}

int pipe_change_provider(struct db *db, const char *type, const char *code,
                         const struct pipe_provider_change *ch)
{
	const struct pipe_type *pl = pipe_find(type);

	return pipe_provider_change_type(db, type, code, ch, pl ? pl->adapter_known : NULL);
}

const struct pipe_type *pipe_find(const char *type)
{
	size_t i;

	for (i = 0; type && i < N_PIPELINES; i++)
		if (!strcmp(pipelines[i].type, type))
			return &pipelines[i];
	return NULL;
}
