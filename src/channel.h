/*
 * channel.h - the payment channel interface: one small table of operations
 * that every adapter (Stripe-compatible, later Alipay / WeChat Pay style)
 * fills, the result codes that say what the caller should do next, and the
 * helpers every adapter shares for reading channel JSON.
 *
 * An adapter never touches the database: it talks to the channel and turns
 * answers into the plain structs below. Storing, processing and deciding are
 * the caller's (inbox.c, the poller, the outbox). An order-query-only
 * channel leaves poll_events NULL; its events come from querying pending
 * orders.
 *
 * Every operation returns one of enum chan_code and fills a struct
 * chan_status (the HTTP status, the channel's request id, how long to wait,
 * a short reason that never carries a secret). The code alone says whether
 * to retry:
 *   CHAN_OK        done; the out-parameters are filled
 *   CHAN_RETRY     nothing happened or it is safe to repeat (connection
 *                  refused, 5xx, 409, 429, a truncated or unreadable answer):
 *                  retry after the backoff, at least retry_after seconds
 *   CHAN_UNKNOWN   a request that changes something may have reached the
 *                  channel but its answer was lost (timeout after sending):
 *                  resolve by querying before doing anything else to it
 *   CHAN_NOTFOUND  the channel does not know the object
 *   CHAN_REFUSED   the channel refused the request for good (4xx other than
 *                  the above, including an idempotency_error): never retry
 *                  it as it is; a person must look
 *   CHAN_BADDATA   the answer was complete but says something we refuse to
 *                  believe (an amount that is not an exact integer within
 *                  +/-2^53, a currency that is not 3 letters): not retried
 *                  blindly, reported
 *
 * Callers: inbox.c, the poller, the outbox worker, tests.
 */
#ifndef FD_CHANNEL_H
#define FD_CHANNEL_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

enum chan_code {
	CHAN_OK = 0,
	CHAN_RETRY,
	CHAN_UNKNOWN,
	CHAN_NOTFOUND,
	CHAN_REFUSED,
	CHAN_BADDATA,
};

struct chan_status {
	int http;            /* HTTP status, 0 when no answer arrived */
	int retry_after;     /* seconds the channel asked us to wait, -1 when it did not */
	int should_retry;    /* Stripe-Should-Retry: 1 true, 0 false, -1 absent */
	char request_id[80]; /* the channel's request id, "" when none */
	char reason[300];    /* short, translated, never a secret */
};

/* The summary of one event; the raw bytes travel beside it. */
struct chan_event {
	char id[256];         /* evt_... */
	char type[101];       /* payment_intent.succeeded ... */
	int64_t created;      /* channel time */
	char object_id[256];  /* data.object.id ("" when none) */
	char object_type[41]; /* data.object.object ("" when none) */
	const char *raw;      /* the event's bytes exactly as received (not owned) */
	size_t raw_len;
};

/* One page of events. */
struct chan_page {
	struct chan_event *ev; /* n events, owned; raw points into body */
	size_t n;
	int has_more;
	char *body; /* the page as received, owned */
};

/* The truth about an order (a payment intent) as the channel tells it. */
struct chan_order {
	char id[256];       /* the channel's id (pi_...) */
	char status[40];    /* the channel's own word */
	char order_no[65];  /* metadata.order_no, "" when absent */
	int64_t invoice_id; /* metadata.invoice_id, 0 when absent */
	int64_t amount;     /* minor units */
	int64_t amount_received;
	char currency[4]; /* upper case */
	int64_t created;
};

/* A refund as the channel tells it. */
struct chan_refund {
	char id[256];
	char payment_intent[256];
	char status[40];
	int64_t amount;
	char currency[4];
	int64_t created;
};

/* One line of a day's settlement (a balance transaction). */
struct chan_settle_line {
	char id[256];
	char type[40];
	char source[256];
	int64_t amount, fee, net;
	char currency[4];
	int64_t created, available_on;
};

/* What creating a payment asks for. */
struct chan_create {
	const char *order_no; /* ours, put in metadata */
	int64_t invoice_id;   /* put in metadata; 0: none */
	int64_t amount;       /* minor units, > 0 */
	const char *currency; /* 3 letters */
	const char *description;
	const char *idem_key; /* sent as Idempotency-Key; required */
};

struct chan_ctx; /* an adapter's private state */

struct chan_ops {
	const char *code; /* "stripe" */
	/* events created in [from, to] (channel time), newest first, after the
	 * object id `after` ("" for the first page); at most limit */
	int (*poll_events)(struct chan_ctx *c, int64_t from, int64_t to, const char *after,
	                   int limit, struct chan_page *out, struct chan_status *st);
	int (*query_order)(struct chan_ctx *c, const char *id, struct chan_order *out,
	                   struct chan_status *st);
	int (*create_payment)(struct chan_ctx *c, const struct chan_create *in,
	                      struct chan_order *out, struct chan_status *st);
	int (*refund)(struct chan_ctx *c, const char *payment_id, int64_t amount,
	              const char *idem_key, struct chan_refund *out, struct chan_status *st);
	int (*query_refund)(struct chan_ctx *c, const char *id, struct chan_refund *out,
	                    struct chan_status *st);
	/* balance transactions created in [from, to); *out (caller frees) gets *n */
	int (*settlement)(struct chan_ctx *c, int64_t from, int64_t to,
	                  struct chan_settle_line **out, size_t *n, struct chan_status *st);
	/* 0 when header signs payload with the signing secret, else FD_EINVAL */
	int (*verify)(struct chan_ctx *c, const char *header, const void *payload, size_t len,
	              int64_t now);
	void (*close)(struct chan_ctx *c);
};

/* chan_json_int - read item as an integer: 0 and *out set when it is a
 * number that is integral and strictly within +/-2^53; FD_EINVAL (with a reason
 * naming what) for anything else, including a missing item, a string, or
 * 1e300. Never reads cJSON's clamped valueint. */
int chan_json_int(const cJSON *item, const char *what, int64_t *out);

/* chan_json_add_int - add v to obj under key as an exact JSON integer,
 * written from its decimal digits, never through a double (cJSON keeps
 * numbers as doubles). */
void chan_json_add_int(cJSON *obj, const char *key, int64_t v);

/* chan_json_str - copy the string item (at most n-1 bytes; longer is
 * FD_EINVAL) into buf; a missing or null item gives "" when optional, else
 * FD_EINVAL. */
int chan_json_str(const cJSON *item, const char *what, int optional, char *buf, size_t n);

/* chan_event_read - fill *ev (except raw) from a parsed Stripe-shaped event
 * object: id and type required; created, when present, an exact integer
 * (0 when absent; a poller needs it and checks); data.object's
 * id and object when present. FD_EINVAL with a reason otherwise. */
int chan_event_read(const cJSON *obj, struct chan_event *ev);

/* chan_page_free - free what a page owns and zero it. */
void chan_page_free(struct chan_page *p);

/* chan_code_name - "ok", "retry", "unknown", "not found", "refused", "bad data". */
const char *chan_code_name(int code);

#endif
