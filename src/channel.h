/*
 * channel.h - the payment channel interface: one small table of operations
 * that every adapter (Stripe-compatible, later Alipay / WeChat Pay style)
 * fills, the result codes that say what the caller should do next, and the
 * helpers every adapter shares for reading channel JSON.
 *
 * An adapter never touches the database: it talks to the channel and turns
 * answers into the plain structs below, translating the channel's words
 * into the core's states (enum chan_order_state, chan_refund_state,
 * chan_event_kind): nothing outside an adapter decides on a channel's own
 * vocabulary, which is kept as text for messages only. Storing, processing and deciding are
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

/* The integration type of the payment channels (the registry's
 * integration_type, the type of their inbound events and outbox commands). */
#define CHAN_TYPE_PAYMENT "payment"

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

/* The core's own words for what the channel says. An adapter maps its
 * channel's vocabulary to these; the generic code (processing, the outbox,
 * the inbox, the poller) decides on these only. */

/* Where an order (a payment at the channel) stands. */
enum chan_order_state {
	CHAN_ORDER_PENDING = 0, /* waiting for the customer to pay (a fresh order) */
	CHAN_ORDER_PROCESSING,  /* the customer is paying; not settled yet */
	CHAN_ORDER_DECLINED,    /* an attempt failed; the same order may still be paid */
	CHAN_ORDER_SUCCEEDED,   /* paid (final at the channel) */
	CHAN_ORDER_CANCELED,    /* will never be paid (final at the channel) */
};

/* Where a refund stands. */
enum chan_refund_state {
	CHAN_REFUND_PENDING = 0, /* asked, not settled */
	CHAN_REFUND_SUCCEEDED,   /* the money went back */
	CHAN_REFUND_FAILED,      /* the channel gave up */
	CHAN_REFUND_CANCELED,    /* withdrawn */
};

/* What an event is about. */
enum chan_event_kind {
	CHAN_EVENT_OTHER = 0, /* nothing frontdesk acts on */
	CHAN_EVENT_ORDER,     /* an order (its object id is the channel's order id) */
	CHAN_EVENT_REFUND,    /* a refund (its object id is the channel's refund id) */
};

/* The summary of one event; the raw bytes travel beside it. */
struct chan_event {
	char id[256];   /* the channel's event id */
	char type[101]; /* the channel's own word for it (kept, shown) */
	enum chan_event_kind kind;
	int declined;         /* 1: it says a payment attempt was declined */
	int64_t created;      /* channel time */
	char object_id[256];  /* the order's or refund's channel id ("" when none) */
	char object_type[41]; /* the channel's word for the object ("" when none) */
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

/* The truth about an order as the channel tells it. */
struct chan_order {
	char id[256];                /* the channel's id for it */
	enum chan_order_state state; /* what it means */
	char status[40];             /* the channel's own word, for messages only */
	char order_no[65];           /* our order number as the channel keeps it, "" when absent */
	int64_t invoice_id;          /* our invoice as the channel keeps it, 0 when absent */
	int64_t amount;              /* minor units */
	int amount_unknown;          /* 1: the channel did not say amount nor currency (an
	                              * order not paid, in a channel that names the amount
	                              * of paid orders only) */
	int64_t amount_received;
	char currency[4]; /* upper case */
	int64_t created;
	char page_url[2049]; /* the page the customer pays on (shown as a QR code), "" if none */
};

/* A refund as the channel tells it. */
struct chan_refund {
	char id[256];                 /* the channel's id for the refund */
	char order_id[256];           /* the channel's id of the order it refunds */
	enum chan_refund_state state; /* what it means */
	char status[40];              /* the channel's own word, for messages only */
	int64_t amount;
	char currency[4];
	int64_t created;
};

/* What a settlement line is, in the core's words (the adapter maps its
 * channel's type or reporting category to one of these). */
enum chan_settle_kind {
	CHAN_SETTLE_OTHER = 0, /* nothing reconciliation matches (kept, shown) */
	CHAN_SETTLE_CHARGE,    /* money received for an order */
	CHAN_SETTLE_REFUND,    /* money sent back for an order (amount < 0) */
	CHAN_SETTLE_FEE,       /* a fee not tied to one order */
	CHAN_SETTLE_PAYOUT,    /* money paid out to the shop's bank (amount < 0) */
	CHAN_SETTLE_ADJUSTMENT /* a dispute, a correction */
};

/* One line of a day's settlement (a Stripe balance transaction, a row of
 * a WeChat Pay style bill), from the adapter or a settlement file. Amounts
 * are minor units, signed as the channel's balance sees them (a refund or
 * a payout is negative); net = amount - fee. Ids the channel does not give
 * are "". */
struct chan_settle_line {
	char id[256];               /* the line's own id (unique per channel) */
	char type[40];              /* the channel's word (type / reporting category) */
	enum chan_settle_kind kind; /* what it means */
	char status[40];            /* the channel's word for the line's state, "" when none */
	char source[256];           /* the channel's id of the object (charge, refund, payout) */
	char order_id[256];  /* the channel's id of the order (payment intent, transaction id) */
	char order_no[65];   /* our order number as the channel keeps it (metadata, out_trade_no) */
	char refund_id[256]; /* refunds: the channel's refund id */
	char payout_id[256]; /* the payout that carries the line to the bank, "" when none */
	int64_t amount, fee, net;
	char currency[4];              /* upper case */
	int64_t created, available_on; /* channel time (Unix seconds), 0 when not given */
	int line_no;                   /* a settlement file's line number, 0 when fetched */
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
	const char *code; /* the adapter's name: "stripe", "wechat" */
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
	/* the balance transactions payout payout_id carries to the bank (not
	 * its own line); *out (caller frees) gets *n; NULL when the channel
	 * cannot list them */
	int (*payout_lines)(struct chan_ctx *c, const char *payout_id,
	                    struct chan_settle_line **out, size_t *n, struct chan_status *st);
	/* The operations below need no context: the inbox calls them on bytes
	 * relayed to us, with the secret from the secrets file. */
	/* what a stored event of this channel is about, from its type (the
	 * channel's word); *declined (never NULL) 1 when the type says a
	 * payment attempt was declined */
	enum chan_event_kind (*event_kind)(const char *type, int *declined);
	/* read one event's bytes as relayed to us, after verify accepted them
	 * with secret (a channel may encrypt part of what it sends with it):
	 * fill *ev (raw pointing at raw); FD_EINVAL with a reason when they
	 * are not an event */
	int (*read_event)(const char *secret, const void *raw, size_t len, struct chan_event *ev);
	/* 0 when header (may be "") and the bytes carry a valid signature made
	 * with secret at time now, else FD_EINVAL with a reason */
	int (*verify)(const char *secret, const char *header, const void *raw, size_t len,
	              int64_t now);
	const char *secret_name; /* the secret verify needs: CODE_<secret_name> */
	int xml_events;          /* 1: relayed events are XML (read by expat), else JSON */
	int needs_header;        /* 1: the signature travels in a header */
	const char *answer; /* what the sender of an accepted event is answered ("": nothing) */
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

/* chan_page_free - free what a page owns and zero it. */
void chan_page_free(struct chan_page *p);

/* States that frontdesk learned by asking the channel (an order query, the
 * answer to a refund command) are stored as inbound events of their own in
 * a shape of frontdesk's, the same whatever the adapter: type
 * CHAN_FOUND_ORDER or CHAN_FOUND_REFUND followed by the state's name, and
 * as data.object what chan_found_order / chan_found_refund make:
 *   {"id": channel id, "object": "order" | "refund", "state": state name,
 *    "channel_status": the channel's word, "amount", "currency",
 *    "order_no" (orders) | "order_id" (refunds)}. */
#define CHAN_FOUND_ORDER  "frontdesk.order."
#define CHAN_FOUND_REFUND "frontdesk.refund."

/* chan_order_state_name - "pending", "processing", "declined", "succeeded",
 * "canceled" (untranslated identifiers). */
const char *chan_order_state_name(enum chan_order_state s);

/* chan_refund_state_name - "pending", "succeeded", "failed", "canceled". */
const char *chan_refund_state_name(enum chan_refund_state s);

/* chan_found_order, chan_found_refund - the data.object of a found state
 * (see above); the caller owns the result. */
cJSON *chan_found_order(const struct chan_order *o);
cJSON *chan_found_refund(const struct chan_refund *r);

/* chan_event_kind_of - what a stored event of type `type` is about: our
 * own found states by their prefix, any other type as the adapter ops says
 * (ops->event_kind; CHAN_EVENT_OTHER when it has none). *declined as
 * event_kind's. */
enum chan_event_kind chan_event_kind_of(const struct chan_ops *ops, const char *type,
                                        int *declined);

/* chan_random_hex - 16 random hex digits (64 bits from getrandom) and a
 * NUL in out: for idempotency keys, order numbers and nonces. FD_EIO when
 * no random bytes can be read. */
int chan_random_hex(char out[17]);

/* chan_code_name - "ok", "retry", "unknown", "not found", "refused", "bad data". */
const char *chan_code_name(int code);

#endif
