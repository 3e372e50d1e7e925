/*
 * payment.h - payments received, their allocations to invoices, reversals
 * of allocations, refunds.
 *
 * A payment is one real receipt (one check, one card charge, one handful of
 * cash): method, reference, time received, currency, amount > 0, and the
 * customer it came from. It is never split into several payments to match
 * invoices. Allocations say how much of it settles which invoice of the same
 * customer and currency; what is not allocated (nor refunded) is the
 * customer's credit.
 *
 * Rules, checked inside one BEGIN IMMEDIATE transaction (and again by the
 * schema's triggers and CHECKs): amounts > 0; a payment's live allocations
 * never exceed its amount less its refunds; an invoice is never paid past
 * its total unless it allows overpayment (then it shows overpaid);
 * currencies and customers match; void invoices and void payments take
 * nothing. A posted allocation is never edited or deleted: it is undone by a
 * reversal row that points at it, and the figures of the invoice and the
 * payment follow in the same transaction. A refund never exceeds what is
 * unallocated: money that is allocated is first freed by explicit reversals.
 *
 * Payment status: unallocated, partially_allocated, allocated, refunded
 * (the whole amount went back), void (entered in error, nothing allocated or
 * refunded). Refund status: pending (reserved, waiting for a channel),
 * succeeded, failed (the amount is available again). Every change of status
 * is recorded in status_flow.
 *
 * Errors as in invoice.h. Callers: the command line (cli-money.c), the
 * screen, the payment channel, reports, the tests.
 */
#ifndef FD_PAYMENT_H
#define FD_PAYMENT_H

#include <stddef.h>
#include <stdint.h>

#include "idem.h"

struct db;
struct states;

/* A payment's states, each stored as the word payment_state_word gives. The
 * schema's triggers derive them from the figures (void is set by
 * payment_void); the legal moves are payment_states' (payment.c), which the
 * rows of status_transition for 'payment' mirror (states_agree). */
enum payment_state {
	PAYMENT_UNALLOCATED,
	PAYMENT_PARTIALLY_ALLOCATED,
	PAYMENT_ALLOCATED,
	PAYMENT_REFUNDED,
	PAYMENT_VOID,
	PAYMENT_STATES /* no state of ours: a word payment_state_of does not know */
};

/* payment_states - a payment's words and moves (states.h). */
extern const struct states payment_states;

/* payment_state_of - the state a stored word names (PAYMENT_STATES: none,
 * or NULL); payment_state_word - its stored word ("" for PAYMENT_STATES). */
enum payment_state payment_state_of(const char *word);
const char *payment_state_word(enum payment_state s);

/* A refund's states, stored as refund_state_word gives: pending waits for
 * refund_settle, which moves it to succeeded or failed (refund_states,
 * mirrored by status_transition's rows for 'refund'). */
enum refund_state {
	REFUND_PENDING,
	REFUND_SUCCEEDED,
	REFUND_FAILED,
	REFUND_STATES /* no state of ours: a word refund_state_of does not know */
};

/* refund_states - a refund's words and moves (states.h). */
extern const struct states refund_states;

/* refund_state_of - the state a stored word names (REFUND_STATES: none, or
 * NULL); refund_state_word - its stored word ("" for REFUND_STATES). */
enum refund_state refund_state_of(const char *word);
const char *refund_state_word(enum refund_state s);

struct payment {
	int64_t id;
	int64_t customer_id;
	char *customer_name;
	char method[16]; /* cash, check, card, bank_transfer, other */
	char *reference; /* NULL when none */
	int64_t received_at;
	char currency[4];
	int64_t amount;
	int64_t allocated;   /* sum of the live allocations */
	int64_t refunded;    /* sum of the refunds that did not fail */
	int64_t unallocated; /* amount - allocated - refunded: the customer's credit */
	char status[24];     /* a word of enum payment_state: payment_state_of */
	char *note;
	int64_t created_at, updated_at;
};

/* payment_is_void - 1 when p was voided (it holds no money any more). */
int payment_is_void(const struct payment *p);

struct allocation {
	int64_t id;
	int64_t payment_id;
	int64_t invoice_id;
	char invoice_number[32];
	char currency[4];
	int64_t amount;      /* > 0; a reversal counts negatively */
	int64_t reverses_id; /* this row undoes that allocation; 0 for an allocation */
	int64_t reversed_by; /* the reversal of this allocation, 0 while live */
	char *reason;        /* NULL when none */
	int64_t created_at;
};

struct refund {
	int64_t id;
	int64_t payment_id;
	char currency[4];
	int64_t amount;
	char method[16];
	char *reference;
	char status[12]; /* pending, succeeded, failed: refund_state_of */
	char *reason;
	int64_t refunded_at;
};

struct payment_input {
	int64_t customer_id;
	const char *currency;  /* NULL: the config key `currency`, else USD */
	int64_t amount;        /* minor units, 1 .. MONEY_DOC_MAX */
	const char *method;    /* one of the methods above */
	const char *reference; /* NULL: none; never a card number */
	int64_t received_at;   /* 0: now; never after today */
	const char *note;      /* NULL: none */
	int channel_ref;       /* 1: posted by the channel: reference is its own id and
	                          the note (a refund's reason) is our text, not typed:
	                          not checked for card numbers */
};

/* One allocation asked for: amount of the payment to invoice_id. */
struct alloc_input {
	int64_t invoice_id;
	int64_t amount;
};

/* A payment as a person or a file typed it: every text exactly as given
 * (never trimmed). NULL or "" means not given: currency is then the config
 * key `currency` (else USD), received is now. */
struct payment_text {
	const char *customer; /* the customer's id: digits only */
	const char *amount;   /* in the currency (money_parse) */
	const char *method, *currency, *reference, *received, *note;
};

/* payment_read - the one reading of a typed payment, for `pay record` and
 * each row of `pay import`: the customer id (digits only, > 0), the
 * currency (a code currency_find knows), the amount (money_parse: no blanks,
 * at most the currency's decimals) and when it was received
 * (clock_parse_local) into *in, whose texts then point into t (method,
 * reference, note as given; "" as NULL) or at the currency table. FD_EINVAL
 * with the reason ("bad amount ' 12': the amount must not contain blanks").
 * The rules of the payment itself (amount > 0, method, reference, received
 * not after today) are payment_record's. */
int payment_read(const struct payment_text *t, struct payment_input *in);

/* alloc_read - one allocation typed as INVOICE=AMOUNT (the invoice's number
 * or id, the amount in currency code), exactly as given, into *out: how
 * alloc_read_list reads each allocation, for `pay record`, `pay allocate`
 * and `pay import` alike. FD_EINVAL
 * (FD_ENOTFOUND for no such invoice) with the reason. */
int alloc_read(struct db *db, const char *text, const char *code, struct alloc_input *out);

/* alloc_read_list - the allocations typed in one text (a pay record or pay
 * allocate argument, a pay import cell): INVOICE=AMOUNT, or several
 * separated by ';'. The blanks (spaces, tabs) next to a ';' go with it and
 * an empty place beside a ';' is skipped; every other character belongs to an
 * allocation, read by alloc_read exactly as given: a blank at the start or
 * the end of text is refused, wherever the text came from, and so is a
 * text with no allocation at all ("", ";"; an empty pay import cell is
 * the caller's: no allocation asked). Appends to *out (xrealloc'd, the
 * caller frees it) and adds
 * to *n; on an error *n is as it was. FD_EINVAL / FD_ENOTFOUND with the
 * reason (alloc_read's). */
int alloc_read_list(struct db *db, const char *text, const char *code, struct alloc_input **out,
                    size_t *n);

/* alloc_fits_invoice - 1 if an allocation of amount (> 0) may go to an
 * invoice that still owes balance: at most its balance, or any amount when
 * the invoice was issued with overpayment allowed (it then shows as
 * overpaid). The one rule alloc_post applies and the payment form shows. */
int alloc_fits_invoice(int64_t amount, int64_t balance, int allow_overpay);

/* payment_method_valid - 1 if m names a payment method. */
int payment_method_valid(const char *m);

/* payment_record - record one payment and, in the SAME transaction, the
 * allocations asked for (n of them, posted in order) or, with auto_alloc,
 * those of alloc_propose. res->id is the payment, res->ids its allocations.
 * Any refused allocation refuses the whole request. With idem_key the same
 * request again returns the first response (res->replayed) and writes
 * nothing. */
int payment_record(struct db *db, const struct payment_input *in, const struct alloc_input *allocs,
                   size_t n, int auto_alloc, const char *idem_key, struct idem_result *res);

/* At most this many payments in one payment_record_batch. */
#define PAYMENT_BATCH_MAX 100000

/* One payment of a batch: what payment_record takes for one payment. */
struct payment_batch_item {
	struct payment_input in;
	const struct alloc_input *allocs; /* n allocations, posted in order */
	size_t n;
	int auto_alloc; /* instead of allocs: alloc_propose's proposal */
};

/* payment_record_batch - record n payments (1..PAYMENT_BATCH_MAX), each with
 * its allocations, in ONE write transaction, with every check of
 * payment_record (on each payment, in order, on the figures as the payments
 * before it left them). All or nothing: the first refused payment refuses
 * the whole batch, nothing is written, the reason starts with "payment I of
 * N:" and *refused (when not NULL) gets its index I - 1 (n when the refusal
 * is about the batch as a whole). res->ids gets the n payment ids in order
 * and res->id the first (the allocations are not listed: alloc_list finds
 * them). With idem_key the same batch again returns the first response and
 * writes nothing. For imports and bulk postings (`frontdesk pay import`); a
 * desk payment is payment_record, one transaction each. */
int payment_record_batch(struct db *db, const struct payment_batch_item *items, size_t n,
                         const char *idem_key, struct idem_result *res, size_t *refused);

/* alloc_post - allocate more of payment payment_id: the n allocations asked
 * for, or with auto_alloc the proposal for what is unallocated. res->id is
 * the payment, res->ids the new allocations. All or nothing. */
int alloc_post(struct db *db, int64_t payment_id, const struct alloc_input *allocs, size_t n,
               int auto_alloc, const char *idem_key, struct idem_result *res);

/* credit_available - the customer's credit in currency (NULL: the config
 * key `currency`, else USD): what their live payments hold unallocated and
 * unrefunded, in *amount. Reads only. */
int credit_available(struct db *db, int64_t customer_id, const char *currency, int64_t *amount);

/* payment_settle - settle invoices from the customer's credit first, then
 * from a new payment, in ONE transaction: allocs (n, in order) are what each
 * invoice gets in all, in currency; the credit (the unallocated money of the
 * customer's live payments in currency, oldest received first) is spent on
 * them in that order as far as it goes, and the rest is allocated from the
 * new payment in (whose customer and currency must be these; amount at
 * least the rest, the excess is new credit). in may be NULL when the credit
 * covers everything; it is refused (FD_EINVAL, saying how much is missing)
 * otherwise. Every check of alloc_post and payment_record applies. res->id
 * is the new payment (0 when none was needed), res->ids every allocation,
 * the credit's first. With idem_key the same request again returns the
 * first response and writes nothing. The reason credit is offered before a
 * new payment: money a reversal freed must not sit stranded while the desk
 * takes the customer's money a second time. */
int payment_settle(struct db *db, int64_t customer_id, const char *currency,
                   const struct alloc_input *allocs, size_t n, const struct payment_input *in,
                   const char *idem_key, struct idem_result *res);

/* alloc_propose - what an automatic allocation of amount would do: the
 * customer's open invoices in currency, oldest due first, each settled as far
 * as the amount goes. *out (caller frees) gets *n entries; none when nothing
 * is open. Reads only. */
int alloc_propose(struct db *db, int64_t customer_id, const char *currency, int64_t amount,
                  struct alloc_input **out, size_t *n);

/* alloc_propose_first - alloc_propose, but the open invoices among
 * first[0..nfirst) take the money first, in that order, and the others
 * after them, oldest due first: money taken at an invoice or a visit goes
 * to it before an older invoice (ids that are not open are passed over). */
int alloc_propose_first(struct db *db, int64_t customer_id, const char *currency, int64_t amount,
                        const int64_t *first, size_t nfirst, struct alloc_input **out, size_t *n);

/* alloc_reverse - undo allocation alloc_id with a reversal row (reason
 * required); res->id is the reversal. FD_ECONFLICT when it is already
 * reversed, FD_EINVAL when it is itself a reversal. */
int alloc_reverse(struct db *db, int64_t alloc_id, const char *reason, const char *idem_key,
                  struct idem_result *res);

struct refund_input {
	int64_t payment_id;
	int64_t amount;        /* > 0, at most what is unallocated */
	const char *method;    /* NULL: the payment's method */
	const char *reference; /* NULL: none; never a card number */
	const char *reason;    /* required */
	int pending;           /* 1: waits for refund_settle (a channel refund) */
	int channel_ref;       /* 1: reference is the channel's own id (see payment_input) */
};

/* refund_post - give back part or all of a payment; res->id is the refund.
 * Refused beyond the payment less earlier refunds, and beyond what is
 * unallocated (the message names the reversals needed first). */
int refund_post(struct db *db, const struct refund_input *in, const char *idem_key,
                struct idem_result *res);

/* refund_settle - a pending refund succeeded (1) or failed (0); a failed
 * refund's amount is available on the payment again. FD_ECONFLICT unless it
 * is pending. */
int refund_settle(struct db *db, int64_t refund_id, int succeeded, const char *reason);

/* payment_void - mark payment id as entered in error (reason required);
 * only while nothing is allocated or refunded. */
int payment_void(struct db *db, int64_t id, const char *reason);

/* payment_get - fill *out (free with payment_free); FD_ENOTFOUND. */
int payment_get(struct db *db, int64_t id, struct payment *out);

/* payment_list - payments of customer_id (0: all), newest received first. */
int payment_list(struct db *db, int64_t customer_id, int (*cb)(const struct payment *p, void *arg),
                 void *arg);

/* payment_list_received - payments received in [from, to) (UTC seconds),
 * whatever their customer, oldest first (index payment_by_received). */
int payment_list_received(struct db *db, int64_t from, int64_t to,
                          int (*cb)(const struct payment *p, void *arg), void *arg);

/* alloc_get - fill *out (free with alloc_free); FD_ENOTFOUND. */
int alloc_get(struct db *db, int64_t id, struct allocation *out);

/* alloc_list - allocation and reversal rows of payment_id, or (payment_id 0)
 * of invoice_id, in the order they were posted. */
int alloc_list(struct db *db, int64_t payment_id, int64_t invoice_id,
               int (*cb)(const struct allocation *a, void *arg), void *arg);

/* refund_list - refunds of payment_id, in order. */
int refund_list(struct db *db, int64_t payment_id, int (*cb)(const struct refund *r, void *arg),
                void *arg);

/* The same operations INSIDE the caller's write transaction, for a caller
 * that must apply them together with its own writes (the payment channel
 * posts a card payment and marks the event that told it so in one
 * transaction). Every check of the plain function is made; there is no
 * idempotency key: the caller keeps its own guard against a second posting
 * (a channel order's payment_id, a refund's channel reference). On an error
 * the caller rolls back (its transaction or a savepoint). They ask no
 * permission (staff.h): their callers are an action that asked its own (a
 * reconciliation's decision: recon.decide; a settlement from credit) or the
 * pipeline carrying out what the channel confirmed. The plain functions
 * ask: payment.take (and payment.backdate, up to the days a payment is
 * dated back) to record or allocate, void to reverse or void, refund up to
 * the amount to refund or settle a refund. */
int payment_record_in(struct db *db, const struct payment_input *in,
                      const struct alloc_input *allocs, size_t n, int64_t *id);
int alloc_post_in(struct db *db, int64_t payment_id, const struct alloc_input *allocs, size_t n);
int alloc_reverse_in(struct db *db, int64_t alloc_id, const char *reason, int64_t *id);
int refund_post_in(struct db *db, const struct refund_input *in, int64_t *id);
/* refund_make_room_in - make amount of payment pay_id unallocated so that
 * a refund of it can be posted (a refund confirmed by the channel must be
 * posted even where the money was allocated): when less is unallocated,
 * its newest live allocations are reversed, and what a reversal frees beyond
 * the need is allocated again to the same invoice, with reason on each row
 * (the channel's text, naming its refund id: the card-number rule of typed
 * text does not apply to it). FD_ECONFLICT when even that cannot free enough. */
int refund_make_room_in(struct db *db, int64_t pay_id, int64_t amount, const char *reason);

void payment_free(struct payment *p);
void alloc_free(struct allocation *a);
void refund_free(struct refund *r);

#endif
