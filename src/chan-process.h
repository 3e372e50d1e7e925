/*
 * chan-process.h - applying what the payment channel says: stored inbound
 * events are processed into payments, refunds and order states, and card
 * orders still paying are queried actively.
 *
 * An event is a hint, never the truth. What a stored event is about (an
 * order, a refund, nothing we act on) is the adapter's reading of its type
 * (chan_event_kind_of, channel.h); processing one asks the channel for
 * the current state of its object (the order; for a refund, the refund and
 * then its order) and applies that state, in the core's words
 * (enum chan_order_state, chan_refund_state: the channel's own words never
 * decide anything here), through the
 * same core functions the desk uses (payment.h), in ONE write transaction
 * that also marks the event: a crash before the commit leaves the event due
 * again and nothing applied; after it, both. No transaction is open while a
 * request is in flight. With a lease every write is fenced by its epoch.
 *
 * What a state does to the order (pay_order, one way: created -> paying ->
 * paid -> refunding -> refunded, or closed / failed from created or paying):
 *  - CHAN_ORDER_SUCCEEDED: once per order (guarded by pay_order.payment_id, which the
 *    schema lets be set only once), one card payment with the intent id as
 *    reference, allocated to the order's invoice as far as it still owes
 *    (the rest is the customer's credit); the order becomes paid;
 *  - CHAN_ORDER_CANCELED: an order not paid is closed;
 *  - PENDING, PROCESSING, DECLINED: a created order becomes paying (a
 *    declined card, DECLINED or an event the adapter reads as declined,
 *    leaves it paying with the reason: the customer may still pay);
 *  - a CHAN_REFUND_SUCCEEDED refund: once per refund (guarded by its reference), the
 *    allocations are reversed as far as needed to free the amount (explicit
 *    reversal rows; what was not to be refunded is allocated again), a
 *    refund row is posted, and the order's refunded amount grows: refunding
 *    while part is refunded, refunded when all is. A refund that arrives
 *    before its payment's success applies the payment first, so the end
 *    state is the same in either order. A refund still pending at the
 *    channel is not a failure: the event waits (status failed, counted as
 *    waiting) and is asked again on the backoff until the channel settles
 *    it; past the give-up horizon it is dead, for a person.
 * An event that would change nothing (a repeat, a stale state, a type we do
 * not act on) is marked ignored with the reason; an order is never moved
 * backwards. A channel that disagrees with our order (amount, currency,
 * invoice, another intent for our order number, a paid order said to be
 * canceled) is never posted: the event is dead with the reason and the
 * order keeps it as its last error, for a person.
 *
 * An event about an intent we have no order for is parked and tried again
 * until park_seconds after it was first parked, then dead. A channel that
 * fails (5xx, 429, timeouts, unreadable answers, an object it does not
 * know) makes the event failed, retried with the backoff of chan-poll.h
 * (at most 5 minutes apart), and dead only when it fails at least the
 * give-up horizon (pipeline_give_up_seconds, outbox.h) after it was stored
 * or a person retried it: on time, never on a count that a burst of
 * `--all` runs can use up.
 *
 * Active queries: a card order paying (with a channel id) is first queried
 * query_after seconds after it is seen, then on a doubling schedule (at
 * most an hour apart), query_count and next_query_at kept on the order. A
 * final state found this way (succeeded, canceled) is stored as an inbound
 * event of its own in frontdesk's shape (via 'query', type
 * CHAN_FOUND_ORDER "<state>", external id "query:<order id>:<state>") and
 * processed like any other, so a lost success event delays a payment but
 * never loses it. This is also how an order-query-only channel produces
 * its events.
 *
 * Times of retries and queries are the real clock (clock_real); times
 * written on money rows, and the age of an event against the horizon (its
 * status flow), are clock_now().
 *
 * Callers: the channel worker (pipe-worker.c), `frontdesk channel process`
 * and `frontdesk channel query`, tests.
 */
#ifndef FD_CHAN_PROCESS_H
#define FD_CHAN_PROCESS_H

#include <signal.h>
#include <stdint.h>

#include "channel.h"

struct db;
struct control_hold;

struct chan_process_opts {
	const char *provider; /* provider code */
	int park_seconds;     /* how long an event waits for its order (>= 60) */
	int query_after;      /* seconds before a paying order is first queried (>= 1) */
	int batch;            /* events applied per transaction, 1..500 */
};

/* chan_process_opts_default - provider, and the config keys
 * channel_park_seconds (86400), channel_query_after_seconds (120),
 * channel_process_batch (100). */
void chan_process_opts_default(struct chan_process_opts *o, const char *provider);

/* What one call did. */
struct chan_process_result {
	int64_t processed, ignored, parked, failed, dead; /* events, by the status given */
	int64_t waiting;           /* of the failed: a refund the channel has not settled yet */
	int64_t payments, refunds; /* money rows posted */
	int64_t calls;             /* requests to the channel */
	int64_t queried;           /* orders queried actively */
};

/* chan_process_due - process the due events of o->provider (with all, also
 * those waiting for a retry) in batches until none is due or *stop (may be
 * NULL) is set; r is added to. 0 when done; FD_ECONFLICT when the lease was
 * lost (nothing more written); other FD_E* from the database. Failures of
 * the channel are not errors here: they are the events' state. */
int chan_process_due(struct db *db, const struct chan_ops *ops, struct chan_ctx *ctx,
                     const struct chan_process_opts *o, const struct control_hold *lease,
                     volatile sig_atomic_t *stop, int all, struct chan_process_result *r);

/* chan_query_due - query the channel for each order of o->provider whose
 * active query is due (with all, every order still paying), storing the
 * final states found as events (see above); r is added to. Errors as
 * chan_process_due. Run chan_process_due after it to apply what was found. */
int chan_query_due(struct db *db, const struct chan_ops *ops, struct chan_ctx *ctx,
                   const struct chan_process_opts *o, const struct control_hold *lease,
                   volatile sig_atomic_t *stop, int all, struct chan_process_result *r);

#endif
