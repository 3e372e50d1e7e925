/*
 * chan-stripe.h - the Stripe-compatible channel adapter (see channel.h).
 *
 * Speaks the Stripe API pinned to one version (CHAN_STRIPE_VERSION): the
 * events list with a created window and starting_after paging, payment
 * intents, refunds, balance transactions; form-encoded bodies; the API key
 * as HTTP Basic user; Idempotency-Key on every POST. Events keep their raw
 * bytes: each event's span of the page exactly as received.
 *
 * Callers: the poller and the outbox worker (through struct chan_ops), tests.
 */
#ifndef FD_CHAN_STRIPE_H
#define FD_CHAN_STRIPE_H

#include <signal.h>

#include "channel.h"

struct pipe_log;

#define CHAN_STRIPE_VERSION "2026-10-28.endive"

struct chan_stripe_cfg {
	const char *base_url;                      /* https://api.stripe.com, or the test fake */
	const char *api_key;                       /* from the secrets file */
	const char *signing_secret;                /* from the secrets file; NULL: verify refuses */
	long connect_timeout_ms, total_timeout_ms; /* 0: defaults */
	long low_speed_secs;                       /* 0: default */
	struct pipe_log *log;                      /* NULL: no request log */
	volatile sig_atomic_t *stop;               /* NULL: never stopped */
	int checkout; /* 1: a card order is a Checkout Session (a page to pay on) */
};

/* The adapter's operations. */
extern const struct chan_ops chan_stripe_ops;

/* chan_stripe_open - a context for chan_stripe_ops (release with
 * ops->close). The strings are copied. FD_EINVAL for a URL that is neither
 * https:// nor http://127.0.0.1, or a missing API key. */
int chan_stripe_open(const struct chan_stripe_cfg *cfg, struct chan_ctx **out);

/* chan_json_spans - find the byte spans of the elements of the top-level
 * "data" array of the JSON object in body (len bytes): *starts and *lens
 * (caller frees both) get *n entries. -1 if body is not such an object. */
int chan_json_spans(const char *body, size_t len, size_t **starts, size_t **lens, size_t *n);

/* chan_event_read - fill *ev (except raw) from a parsed Stripe-shaped event
 * object: id and type required; created, when present, an exact integer
 * (0 when absent; a poller needs it and checks); data.object's
 * id and object when present. FD_EINVAL with a reason otherwise. */
int chan_event_read(const cJSON *obj, struct chan_event *ev);

#endif
