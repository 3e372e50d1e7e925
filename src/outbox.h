/*
 * outbox.h - commands for a payment channel written in the same
 * transaction as the desk action that needs them (table outbox_event), and
 * their delivery by the channel worker.
 *
 * A desk action writes its local state and one outbox row together, so a
 * command is never lost nor sent for an action that did not commit:
 *  - outbox_charge: a card payment order for (part of) an invoice: a
 *    pay_order (status created) and a "payment.create" row;
 *  - outbox_refund: a refund of (part of) a paid channel order: a
 *    "refund.create" row.
 * Each row carries an idempotency key made once, at random, when the row is
 * written; every send of the row carries the same key, so however often it
 * is sent the channel acts once.
 *
 * Delivery (outbox_deliver, the worker, fenced by the channel lease):
 *   pending --send--> sending --answer--> succeeded
 *                        |--retryable failure--> failed (later: sending)
 *                        |--refused / 10 attempts--> dead (a person looks)
 *                        `--no answer (timeout, crash)--> stays sending
 * A row left "sending" has an unknown outcome: it may have reached the
 * channel. It is resolved before anything else is done to its order by
 * asking the channel again with the same idempotency key, which returns the
 * first answer (and makes no second effect). Rows of one order go out in
 * order: a refund never leaves before the charge of its order is settled.
 * An answer that disagrees with the row (another amount, currency or order
 * number) is never recorded as success: the row is dead with the reason.
 * A refund's answer names the channel's refund: it is stored, in the same
 * transaction, as an inbox event of its own ("answer:<refund id>") so the
 * processor asks about the refund until it settles, events or not.
 *
 * Callers: cli-chan.c (`frontdesk channel charge|refund|deliver`), the
 * worker (chan-worker.c), tests.
 */
#ifndef FD_OUTBOX_H
#define FD_OUTBOX_H

#include <signal.h>
#include <stdint.h>

#include "channel.h"

struct db;
struct control_hold;

#define OUTBOX_MAX_ATTEMPTS 10

/* outbox_charge - ask the channel of provider (NULL: the one the
 * registry's rollout picks for the new order, chan_provider_route)
 * for a card payment of amount (minor units, > 0) towards invoice_id: in
 * ONE transaction, a pay_order (created; the invoice's customer and
 * currency; a new order number, copied to order_no[65]) and its
 * "payment.create" outbox row (id in *outbox_id, may be NULL). FD_EINVAL
 * when the amount is not positive or exceeds what the invoice still owes
 * less the card orders already open for it (chan_order_chargeable); FD_ENOTFOUND for no such
 * invoice or provider; FD_ECONFLICT when the invoice is void or paid.
 * With idem_key (NULL: none) the same request again returns the first
 * order's number and command and writes nothing; the same key with another
 * request is refused (idem.h). */
int outbox_charge(struct db *db, const char *provider, int64_t invoice_id, int64_t amount,
                  const char *idem_key, char order_no[65], int64_t *outbox_id);

/* outbox_refund - ask for a refund of amount (> 0; 0: all that is left)
 * of the paid channel order order_no: one "refund.create" outbox row.
 * FD_ENOTFOUND for an unknown order; FD_ECONFLICT when it is not paid (or
 * being refunded) or has no channel id yet; FD_EINVAL when the amount
 * exceeds what is left after the refunds already asked for
 * (chan_order_refundable). idem_key as
 * for outbox_charge. */
int outbox_refund(struct db *db, const char *order_no, int64_t amount, const char *idem_key,
                  int64_t *outbox_id);

/* outbox_deliver - send the due rows of provider through ops/ctx, one at a
 * time (see above), until none is due or *stop (may be NULL) is set (with
 * all, rows still waiting for their next retry are due too: an operator
 * who knows the channel is back); *sent
 * gets how many were sent. Each state change is its own transaction,
 * fenced by lease (NULL only for a caller that knows it is alone).
 * FD_ECONFLICT when the lease was lost (nothing more is written); other
 * FD_E* from the database. Channel failures are not errors: they are the
 * rows' state. */
int outbox_deliver(struct db *db, const struct chan_ops *ops, struct chan_ctx *ctx,
                   const char *provider, const struct control_hold *lease,
                   volatile sig_atomic_t *stop, int all, int *sent);

/* outbox_count_by_status - how many outbox commands of provider are
 * pending, sending, failed and dead, in that order, in n[]. */
int outbox_count_by_status(struct db *db, const char *provider, int64_t n[4]);

/* outbox_dead_count - *n = the outbox commands given up (status 'dead').
 * There is no index on the outbox's status for this, so it reads the
 * outbox table: call it when the database changed (db_data_version), not
 * on every tick. */
int outbox_dead_count(struct db *db, int64_t *n);

/* One outbound command (a row of outbox_event), as the dead-letter view
 * shows it. Strings are owned by the struct (outbox_cmd_free). */
struct outbox_cmd {
	int64_t id;
	char *event_type;    /* "payment.create", "refund.create" */
	char *business_key;  /* our order number or refund key */
	char *provider_code; /* the channel it is for */
	char *status;        /* pending, sending, succeeded, failed, dead */
	char *last_error;    /* NULL when none */
	char *payload;       /* the JSON text we send */
	int64_t retry_count;
	int64_t created_at, updated_at; /* our clock */
	int64_t sent_at;                /* 0 when never sent */
};

/* outbox_cmd_list - call cb with each outbox command in status (e.g.
 * "dead"), newest first, at most limit (<= 0: 100). The struct passed to cb
 * is valid during the call only. Like outbox_dead_count it reads the outbox
 * table (no index on status): call it when a person asks, not per tick. */
int outbox_cmd_list(struct db *db, const char *status, int limit,
                    int (*cb)(const struct outbox_cmd *o, void *arg), void *arg);

/* outbox_cmd_get - fill *out with command id (free with outbox_cmd_free);
 * FD_ENOTFOUND when there is no such command. */
int outbox_cmd_get(struct db *db, int64_t id, struct outbox_cmd *out);

/* outbox_cmd_free - free the strings of o (which may be zeroed). */
void outbox_cmd_free(struct outbox_cmd *o);

#endif
