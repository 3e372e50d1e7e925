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
 *                        |--refused, or failing past the horizon--> dead
 *                        `--no answer (timeout, crash)--> stays sending
 *   dead --a person revives it (outbox_retry)--> pending, the same key
 * A failure that may pass (no connection, DNS, TLS, 5xx, 429, no answer)
 * is retried on the backoff (pipe_rule_backoff: doubling, at most 5 minutes
 * apart, Retry-After honoured), never sooner: a burst of deliveries sends
 * a row once per backoff, whatever is asked. The row is given up on time,
 * not on a count: only a failure at least the give-up horizon
 * (pipeline_give_up_seconds, outbox_retry_plan) after the row was queued or
 * revived makes it dead.
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
 * Callers: cli-chan.c (`frontdesk channel charge|refund|deliver`,
 * `frontdesk outbox retry`), the worker (pipe-worker.c), the screen's
 * dead-letter view (outbox_retry), tests. The retry rule below
 * (pipe_rule_retry_plan) is also the inbound processing's (chan-process.c,
 * inbox_mark_failed) and the booking and e-sign commands' (booking-chan.c,
 * esign.c). Every command of every integration type enters the table
 * through outbox_enqueue and is read due, claimed and answered through
 * outbox_due, outbox_claim and outbox_record: the one place its status
 * moves while it is delivered.
 */
#ifndef FD_OUTBOX_H
#define FD_OUTBOX_H

#include <signal.h>
#include <stdint.h>

#include "channel.h"
#include "pipe-rule.h"

struct db;
struct control_hold;
struct states;
struct outbox_cmd;

/* One outbound command to queue (outbox_enqueue). */
struct outbox_new {
	const char *type;         /* integration type: "payment", "booking", "esign" */
	const char *event_type;   /* "payment.create", "availability.push", ... */
	const char *business_key; /* our order number, request or estimate */
	const char *provider;     /* the provider code it is for */
	const char *idem_key;     /* sent with every try, so the provider acts once */
	const char *payload;      /* the JSON text sent */
	int64_t at;               /* created_at and updated_at; 0: now (clock_real) */
	int once;                 /* 1: a command already queued under idem_key stays and
	                           * nothing is written (*id 0); 0: FD_ECONFLICT */
};

/* outbox_enqueue - INSIDE the caller's write transaction (the desk action
 * that needs the command), queue c as 'pending', due now (next_retry_at on
 * the real clock). *id (may be NULL) gets the new row. The one way a
 * command enters the outbox. */
int outbox_enqueue(struct db *db, const struct outbox_new *c, int64_t *id);

/* One command due to be sent (outbox_due); valid during the callback. */
struct outbox_due_cmd {
	int64_t id;
	const char *event_type;
	const char *status; /* pending, sending (an unknown outcome) or failed */
	const char *idem_key;
	const char *payload;
	int64_t retries; /* retry_count */
};

/* outbox_due - call cb, oldest first, with each command of integration
 * type and provider that is due: pending, left sending, or failed whose
 * next try (real clock) has come. No caller can ask for one still waiting
 * for its backoff: a person revives a command with outbox_retry. Stops at
 * cb's first non-zero, which it returns. */
int outbox_due(struct db *db, const char *type, const char *provider,
               int (*cb)(const struct outbox_due_cmd *c, void *arg), void *arg);

/* outbox_claim - INSIDE the caller's write transaction, command id
 * (pending, failed, or left sending) becomes 'sending' before it is sent, so
 * that a crash during the send leaves an unknown outcome the same
 * idempotency key resolves. count: 1 counts the try here (retry_count + 1,
 * sent_at and next_retry_at now: the payment channel's rows), 0 when
 * outbox_record counts the failures (and the last error is cleared). *moved (may be NULL) 0 when
 * the command was in another state (nothing written). */
int outbox_claim(struct db *db, int64_t id, int count, int *moved);

/* The states of an outbound command, each stored as the word
 * outbox_state_word gives (the column outbox_event.status). Its moves are
 * the rows of status_transition for outbox_event: pending -> sending;
 * sending -> succeeded, failed or dead; failed -> sending or dead; dead ->
 * pending when a person revives it (outbox_retry). */
enum outbox_state {
	OUTBOX_PENDING,
	OUTBOX_SENDING,
	OUTBOX_SUCCEEDED,
	OUTBOX_FAILED,
	OUTBOX_DEAD,
	OUTBOX_STATES /* no state of ours: a word outbox_state_of does not know */
};

/* outbox_event's states, words and moves (states.h), for states_agree. */
extern const struct states outbox_states;

/* outbox_state_of - the state a stored word names (OUTBOX_STATES: none);
 * outbox_state_word - its stored word ("" for OUTBOX_STATES). */
enum outbox_state outbox_state_of(const char *word);
const char *outbox_state_word(enum outbox_state s);

/* outbox_record - INSIDE the caller's write transaction, the outcome of
 * the claimant's send of command id: to OUTBOX_SUCCEEDED, OUTBOX_FAILED
 * (next try wait seconds from now, real clock), OUTBOX_DEAD, or
 * OUTBOX_SENDING (no answer: asked again after wait, same key); error (NULL: none) its last error.
 * counted as given to outbox_claim: 0 counts a failed or dead try here and stamps sent_at on
 * success. Only a command still 'sending' moves (the claimant's; the one guard): *moved (may be
 * NULL) 0 when it was in another state and nothing was written. */
int outbox_record(struct db *db, int64_t id, enum outbox_state to, const char *error, int64_t wait,
                  int counted, int *moved);

/* outbox_charge - ask the channel of provider (NULL: the one the
 * registry's rollout picks for the new order, pipe_provider_route)
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

/* What one outbox_deliver did, row by row. */
struct outbox_result {
	int attempts;     /* rows sent (each once at most) */
	int succeeded;    /* the channel did what the row asks */
	int failed;       /* failed, tried again at their next_retry_at */
	int unknown;      /* no answer: left sending, asked again at their next try */
	int dead;         /* given up (refused, a disagreeing answer, the horizon) */
	int64_t next_try; /* the earliest next try of the failed and unknown (real
	                   * time, clock_real); 0 when none */
};

/* outbox_deliver - send the rows of provider that are due (whose
 * next_retry_at has come: a row waiting for its backoff is never sent
 * sooner, whoever asks) through ops/ctx, one at a time and each at most
 * once per call (see above), until none is due or *stop (may be NULL) is
 * set; *r (zeroed first) says what became of them. Each state change is
 * its own transaction, fenced by lease (NULL only for a caller that knows
 * it is alone). FD_ECONFLICT when the lease was lost (nothing more is
 * written); other FD_E* from the database. Channel failures are not
 * errors: they are the rows' state. */
int outbox_deliver(struct db *db, const struct chan_ops *ops, struct chan_ctx *ctx,
                   const char *provider, const struct control_hold *lease,
                   volatile sig_atomic_t *stop, struct outbox_result *r);

/* outbox_retry - a person revives command id: a dead one becomes pending
 * again with its attempts reset and a new give-up horizon from now; a
 * failed one is made due now. Its payload and idempotency key are kept, so
 * the channel sees the same request (and acts once). fits (may be NULL),
 * in the same transaction, says whether what the command is for still
 * wants it sent (its type's rule, pipe_retry): 0, or FD_ECONFLICT
 * with why. FD_ENOTFOUND for no such command; FD_ECONFLICT when it is in
 * another state or fits refuses (nothing is changed, the message says
 * why). */
int outbox_retry(struct db *db, int64_t id, int (*fits)(struct db *db, const struct outbox_cmd *o));

/* outbox_payment_fits - the payment type's rule for outbox_retry: a
 * refund is revived only while its order is paid or being refunded and its
 * amount still fits what is left to refund (a dead refund asks for
 * nothing, so another may have taken its room); a payment only while its
 * order is still created. */
int outbox_payment_fits(struct db *db, const struct outbox_cmd *o);

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
	char *type;                     /* the integration type: payment, booking, esign */
	int64_t next_retry_at;          /* failed: its next try (real clock); 0 when none */
};

/* outbox_cmd_list - call cb with each outbox command in status (e.g.
 * "dead"; NULL: any) of integration type (NULL: any) for provider (NULL:
 * any), newest first, at most limit (<= 0: 100). The struct passed to cb
 * is valid during the call only. Like outbox_dead_count it reads the outbox
 * table (no index on status): call it when a person asks, not per tick. */
int outbox_cmd_list(struct db *db, const char *status, const char *type, const char *provider,
                    int limit, int (*cb)(const struct outbox_cmd *o, void *arg), void *arg);

/* outbox_cmd_get - fill *out with command id (free with outbox_cmd_free);
 * FD_ENOTFOUND when there is no such command. */
int outbox_cmd_get(struct db *db, int64_t id, struct outbox_cmd *out);

/* outbox_cmd_free - free the strings of o (which may be zeroed). */
void outbox_cmd_free(struct outbox_cmd *o);

#endif
