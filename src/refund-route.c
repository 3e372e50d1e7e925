/*
 * refund-route.c - how a payment is refunded (see refund-route.h).
 *
 * A payment posted from a channel order (pay_order.payment_id) can only be
 * given back by the channel: a refund posted at the desk for it would record
 * money returned that the customer never got back. So the decision is made
 * here, once, and the command line and the screen both call it. Called by
 * cli-money.c (frontdesk refund) and ui/form-refund.c.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "chan-order.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "idem.h"
#include "outbox.h"
#include "payment.h"
#include "refund-route.h"

int refund_route_of(struct db *db, int64_t payment_id, enum refund_route *route,
                    struct pay_order *order)
{
	struct pay_order o;
	int rc = chan_order_of_payment(db, payment_id, order ? order : &o);

	*route = rc == 0 ? REFUND_THROUGH_CHANNEL : REFUND_AT_DESK;
	return rc == FD_ENOTFOUND ? 0 : rc;
}

int refund_request(struct db *db, const struct refund_input *in, const char *idem_key,
                   struct refund_outcome *out)
{
	struct idem_result res = {0};
	struct pay_order o;
	enum refund_route route;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = refund_route_of(db, in->payment_id, &route, &o)) != 0)
		return rc;
	out->route = route;
	if (route == REFUND_THROUGH_CHANNEL)
		snprintf(out->order_no, sizeof out->order_no, "%s", o.order_no);
	if (route == REFUND_THROUGH_CHANNEL) {
		if ((in->method && strcmp(in->method, "card")) || (in->reference && *in->reference))
			return err_set(
			    FD_EINVAL,
			    _("payment %lld was taken through the payment channel (card order "
			      "%s): its refund goes back through the channel, which chooses "
			      "how; leave out the method and the reference"),
			    (long long)in->payment_id, out->order_no);
		if (in->amount <= 0)
			return err_set(FD_EINVAL,
			               _("the amount of a refund must be greater than zero"));
		return outbox_refund(db, out->order_no, in->amount, idem_key, &out->id);
	}
	if ((rc = refund_post(db, in, idem_key, &res)) != 0)
		return rc;
	out->id = res.id;
	out->replayed = res.replayed;
	idem_result_free(&res);
	return 0;
}
