/*
 * chan-order.h - the card payment order (table pay_order): the one owner of
 * its struct, its reads, its rules and every change of its status.
 *
 * A card payment order is our order at a payment channel for (part of) an
 * invoice. Its status moves one way:
 *   created -> paying -> paid -> refunding -> refunded
 *   created | paying -> closed | failed          (final)
 *   created -> paid, paid -> refunded, refunding -> paid (a failed refund)
 * Every status change goes through chan_order_move, which checks the move
 * against that table before writing; the schema's trigger
 * (pay_order_status_legal, status_transition) stays as a second guard.
 * What an order is for (number, provider, customer, invoice, currency,
 * amount) never changes once created; its channel id and payment are set
 * once; its refunded amount only grows (schema triggers again).
 *
 * What may still be charged on an invoice (chan_order_chargeable) and
 * refunded on an order (chan_order_refundable) are rules of this module:
 * the commands, the forms and the screen ask here rather than keep copies.
 *
 * Reads may run anywhere; the writes (create, move, save, note_query,
 * refund_failed) run INSIDE the caller's write transaction. All return 0 or
 * a negative FD_E* code with a reason in err_msg().
 *
 * Callers: outbox.c (charges, refunds, the answers to commands),
 * chan-process.c (what the channel says), cli-chan.c, ui/ (the invoice
 * pane, the charge and refund forms), tests.
 */
#ifndef FD_CHAN_ORDER_H
#define FD_CHAN_ORDER_H

#include <stddef.h>
#include <stdint.h>

struct db;
struct states;

/* One row of pay_order. Strings are "" when the column is NULL. */
struct pay_order {
	int64_t id;
	char order_no[65];
	char provider[41];    /* the provider code that serves it */
	char channel_id[256]; /* the channel's id for it, "" until known */
	int64_t customer_id;
	int64_t invoice_id; /* 0 when none */
	int64_t payment_id; /* the card payment once paid, else 0 */
	char currency[4];
	int64_t amount;        /* minor units, > 0 */
	int64_t refunded;      /* what the channel confirmed as refunded */
	char status[12];       /* created, paying, paid, refunding, refunded, closed, failed */
	int64_t query_count;   /* active queries made */
	int64_t next_query_at; /* real time of the next active query, 0: none */
	char last_error[1001]; /* why it needs a person, "" when nothing */
	int64_t created_at, updated_at; /* our clock */
};

/* The states of our record of a card payment order (channel.h's enum
 * chan_order_state is what the channel says of it). The stored words are
 * read in one place, pay_order_state_of; a front end switches on these,
 * never on a word. Its moves are the rows of status_transition for
 * pay_order: created -> paying, paid, closed or failed; paying -> paid,
 * closed or failed; paid -> refunding or refunded; refunding -> refunded,
 * or back to paid when a refund failed. */
enum pay_order_state {
	PAY_ORDER_CREATED, /* asked for; the channel has not answered yet */
	PAY_ORDER_PAYING,  /* the channel has it; the customer may pay */
	PAY_ORDER_PAID,
	PAY_ORDER_REFUNDING,
	PAY_ORDER_REFUNDED,
	PAY_ORDER_CLOSED, /* expired, withdrawn, or its payment failed */
	PAY_ORDER_FAILED, /* the channel refused it */
	PAY_ORDER_STATES, /* how many; as a state: a word this frontdesk does not know */
	PAY_ORDER_UNKNOWN = PAY_ORDER_STATES
};

/* pay_order's states, words and moves (states.h), for states_agree. */
extern const struct states pay_order_states;

/* pay_order_state_of - the state a stored status word names
 * (PAY_ORDER_UNKNOWN: none); pay_order_state_word - its stored word (""
 * for PAY_ORDER_UNKNOWN). */
enum pay_order_state pay_order_state_of(const char *status);
const char *pay_order_state_word(enum pay_order_state s);

/* chan_order_is_open - 1 for created and paying (the channel may still
 * take the money), else 0. */
int chan_order_is_open(const char *status);

/* chan_order_is_paid - 1 for paid, refunding and refunded (a payment was
 * posted), else 0. */
int chan_order_is_paid(const char *status);

/* chan_order_is_final - 1 for closed and failed (nothing more happens to
 * it), else 0. */
int chan_order_is_final(const char *status);

/* chan_order_can_move - 1 when an order may move from status `from` to
 * `to` (the table above; from == to is no move and is 0), else 0. */
int chan_order_can_move(const char *from, const char *to);

/* chan_order_get - fill *out with the order numbered order_no.
 * FD_ENOTFOUND (with a reason naming it) when there is none. */
int chan_order_get(struct db *db, const char *order_no, struct pay_order *out);

/* chan_order_get_id - the same for the order with row id id. */
int chan_order_get_id(struct db *db, int64_t id, struct pay_order *out);

/* chan_order_by_channel - the order whose channel id at provider is
 * channel_id. FD_ENOTFOUND when there is none. */
int chan_order_by_channel(struct db *db, const char *provider, const char *channel_id,
                          struct pay_order *out);

/* chan_order_of_payment - the order whose payment is payment_id.
 * FD_ENOTFOUND when the payment did not come from a payment channel. */
int chan_order_of_payment(struct db *db, int64_t payment_id, struct pay_order *out);

/* chan_order_list - call cb with each order of invoice_id, oldest first;
 * the struct is valid during the call only. Stops at cb's first non-zero
 * value and returns it. */
int chan_order_list(struct db *db, int64_t invoice_id,
                    int (*cb)(const struct pay_order *o, void *arg), void *arg);

/* chan_order_attempt_failed - call cb with each order of provider that is
 * still open (created, paying) and says why its last attempt failed (a
 * declined card, a payment error at the channel: last_error), oldest
 * first, at most 100; the struct is valid during the call only. Stops at
 * cb's first non-zero value and returns it. */
int chan_order_attempt_failed(struct db *db, const char *provider,
                              int (*cb)(const struct pay_order *o, void *arg), void *arg);

/* chan_order_to_query - up to max orders of provider that are paying (or
 * created) with a channel id, whose active query is due by `until` (real
 * time), with a row id above after, by id: copied to out[0..*n). */
int chan_order_to_query(struct db *db, const char *provider, int64_t until, int64_t after,
                        struct pay_order *out, size_t max, size_t *n);

struct invoice; /* invoice.h */

/* chan_order_may_charge - 0 when invoice inv may be charged through the
 * channel: an issued invoice (not a credit note, a draft or void) that
 * still owes something; FD_ECONFLICT saying "<number> is <status>: there
 * is nothing to charge" otherwise. The one rule: `channel charge`, the
 * charge form and outbox_charge ask here. */
int chan_order_may_charge(const struct invoice *inv);

/* chan_order_may_refund - 0 when order po may be refunded through the
 * channel: paid or being refunded, with the channel's id for it;
 * FD_ECONFLICT saying why not. The one rule: `channel refund`, the refund
 * form and a refund command revived ask here. */
int chan_order_may_refund(const struct pay_order *po);

/* chan_order_chargeable - *left = what invoice_id still owes less the
 * orders already open for it (created, paying), never below 0: the most a
 * new card order for it may ask. FD_ENOTFOUND for no such invoice. */
int chan_order_chargeable(struct db *db, int64_t invoice_id, int64_t *left);

/* chan_order_refundable - what refunds asked for order_no already cover
 * (*asked, may be NULL) and what may still be asked (*left, may be NULL).
 * Asked is the amounts of its refund commands not given up, less the
 * refunds of ours the channel reported failed (pay_order_refund_failed),
 * and never less than the refunded amount the channel confirmed; left is
 * the order's amount less asked, never below 0. FD_ENOTFOUND for no such
 * order. */
int chan_order_refundable(struct db *db, const char *order_no, int64_t *left, int64_t *asked);

/* What a new order is for. */
struct chan_order_new {
	const char *order_no; /* from chan_order_number */
	const char *provider; /* the provider code that serves it */
	int64_t customer_id;
	int64_t invoice_id;
	const char *currency;
	int64_t amount;
};

/* chan_order_number - INSIDE the caller's write transaction, a new order
 * number "PO-NNNNNN-xxxxxxxx" (NNNNNN the next row id, xxxxxxxx random) in
 * order_no[65]; it stays unused until chan_order_create writes it, in the
 * same transaction. FD_EIO when no random bytes can be read. */
int chan_order_number(struct db *db, char order_no[65]);

/* chan_order_create - INSIDE the caller's write transaction, write a new
 * order (status created) as in says; *id (may be NULL) gets its row id.
 * FD_EINVAL for fields the schema refuses (a number used already). */
int chan_order_create(struct db *db, const struct chan_order_new *in, int64_t *id);

/* chan_order_move - INSIDE the caller's write transaction, move order o to
 * status `to` and write its changeable fields (channel id, payment,
 * refunded amount, last error) with them; why (may be NULL) is the reason
 * the status flow keeps. The move is checked first (chan_order_can_move):
 * FD_ECONFLICT, with nothing written, for a move the table does not allow,
 * and when the stored status is no longer o->status (someone moved it
 * meanwhile). On success o->status is `to`. */
int chan_order_move(struct db *db, struct pay_order *o, const char *to, const char *why);

/* chan_order_save - INSIDE the caller's write transaction, write o's
 * changeable fields (as chan_order_move) keeping its status. FD_ECONFLICT
 * when the stored status is no longer o->status. */
int chan_order_save(struct db *db, const struct pay_order *o, const char *why);

/* chan_order_note_query - INSIDE the caller's write transaction, record an
 * active query of order id: query_count grows by asked (0 or 1), the next
 * one is due at next (real time). */
int chan_order_note_query(struct db *db, int64_t id, int asked, int64_t next);

/* chan_order_refund_failed - INSIDE the caller's write transaction, keep
 * once (per order and channel refund id) that refund refund_id of amount
 * (> 0) of order o failed (failed 1) or was canceled (failed 0) at the
 * channel, with reason; whether we asked for it is whether one of our
 * refund commands got it as its answer (the inbox event "answer:<id>" of
 * o's provider). *fresh is 1 when this call kept it, 0 when it was known.
 * From then on its amount is no longer counted as asked for. */
int chan_order_refund_failed(struct db *db, const struct pay_order *o, const char *refund_id,
                             int64_t amount, int failed, const char *reason, int *fresh);

/* The payment page of an order: the address the customer opens to pay it
 * (a Stripe Checkout Session's url, a WeChat Pay style Native code_url),
 * as the channel answered the command that created the order; the desk
 * shows it as a QR code. Kept in pay_order.page_url: set once, never
 * changed (migration 0014's trigger). */
#define CHAN_ORDER_PAGE_MAX 2048

/* chan_order_page_ok - 0 when url may be kept as a payment page: at most
 * CHAN_ORDER_PAGE_MAX bytes, https:// or weixin://, printable ASCII with
 * no space; else FD_EINVAL with the reason. */
int chan_order_page_ok(const char *url);

/* chan_order_page - the payment page of order id into buf (n bytes), ""
 * while there is none. FD_ENOTFOUND for no such order. */
int chan_order_page(struct db *db, int64_t id, char *buf, size_t n);

/* chan_order_set_page - INSIDE the caller's write transaction, keep url
 * as the payment page of order id. FD_EINVAL (nothing written) for an
 * address chan_order_page_ok refuses; FD_ECONFLICT when the order has
 * another page already (the same one again is no change). */
int chan_order_set_page(struct db *db, int64_t id, const char *url);

#endif
