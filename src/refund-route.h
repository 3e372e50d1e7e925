/*
 * refund-route.h - one decision for how a payment is refunded: through the
 * payment channel that took it, or at the desk. Both front ends call
 * refund_request; neither decides by itself.
 */
#ifndef FD_REFUND_ROUTE_H
#define FD_REFUND_ROUTE_H

#include <stddef.h>
#include <stdint.h>

struct db;
struct pay_order;
struct refund_input;

enum refund_route {
	REFUND_AT_DESK = 1,     /* a refund row is posted now (refund_post) */
	REFUND_THROUGH_CHANNEL, /* a refund.create command asks the channel (outbox_refund) */
};

/* What refund_request did. */
struct refund_outcome {
	enum refund_route route;
	int64_t id;        /* AT_DESK: the refund; THROUGH_CHANNEL: the outbox command */
	char order_no[65]; /* THROUGH_CHANNEL: the card payment order */
	int replayed;      /* AT_DESK: the idempotency key had done this already */
};

/* refund_route_of - how payment_id is refunded: *route, and for a payment
 * that came from a channel order, that order in *order (may be NULL),
 * asked of the order's owner (chan-order.h). Errors of the database only:
 * whether the payment exists is the refund's own check. */
int refund_route_of(struct db *db, int64_t payment_id, enum refund_route *route,
                    struct pay_order *order);

/* refund_request - refund in->amount of in->payment_id the way the payment
 * must be refunded. A card payment taken through the payment channel goes
 * back through that channel: a refund.create command for its order (posted
 * as a refund row when the channel says it succeeded); in->method and
 * in->reference must then be unset (or "card" for the method), since the
 * channel decides how the money goes back, and the limit is the order's
 * amount less the refunds already asked for. Any other payment is refunded
 * at the desk (refund_post and its rules). idem_key (NULL: none) makes the
 * request happen at most once. Fills *out; FD_EINVAL, FD_ENOTFOUND,
 * FD_ECONFLICT as the route's own function says, nothing written then. */
int refund_request(struct db *db, const struct refund_input *in, const char *idem_key,
                   struct refund_outcome *out);

#endif
