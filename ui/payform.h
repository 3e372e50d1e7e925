/*
 * payform.h - the model of the "record a payment" form, without curses:
 * the customer's open invoices in the payment's currency, the oldest-first
 * proposal of allocations, and posting the payment with its allocations in
 * ONE core call (payment_record) under the form's idempotency key.
 *
 * Kept apart from the drawing so that the unit tests (tests/unit/check_ui.c) can
 * post the same form twice and see one payment. Callers: form-payment.c.
 */
#ifndef FD_PAYFORM_H
#define FD_PAYFORM_H

#include <stddef.h>
#include <stdint.h>

#include "idem.h"
#include "payment.h"

struct db;

struct payform_inv {
	int64_t id;
	char number[32];
	int64_t due_at;
	int64_t balance;   /* what is still owed, > 0 */
	int allow_overpay; /* issued with overpayment allowed: may take more */
};

struct payform {
	int64_t customer_id;
	char currency[4];
	char *customer_name;
	struct payform_inv *inv; /* open invoices, oldest due first */
	int ninv;
	int64_t *alloc;   /* amount to allocate to inv[i] (0: none) */
	int64_t credit;   /* the customer's credit in the currency when loaded */
	int use_credit;   /* spend the credit first (payment_settle) */
	int64_t first[8]; /* invoices the money goes to first (payform_prefer) */
	int nfirst;
};

/* payform_load - read customer_id's name, credit and open invoices in currency
 * (NULL: config `currency`, else USD) into *pf. FD_ENOTFOUND for an unknown
 * customer; the core's codes otherwise. */
int payform_load(struct db *db, int64_t customer_id, const char *currency, struct payform *pf);

/* payform_prefer - the form was opened at an invoice or a visit: the open
 * invoices among ids[0..n) (at most 8) come first, in that order, in inv[]
 * and in the proposal; the others follow, oldest due first. Call it right
 * after payform_load. */
void payform_prefer(struct payform *pf, const int64_t *ids, int n);

/* payform_propose - set alloc[] to the core's proposal for amount
 * (alloc_propose_first: the preferred invoices first, then oldest due
 * first); what it leaves over is the customer's credit. */
int payform_propose(struct db *db, struct payform *pf, int64_t amount);

/* payform_allocated - the sum of alloc[]; FD_EINVAL via *ok = 0 on overflow. */
int64_t payform_allocated(const struct payform *pf, int *ok);

/* payform_post - record the payment in (customer and currency are pf's)
 * with the non-zero alloc[] as its allocations, in one transaction, with
 * idempotency key key: the same key again returns the first result with
 * res->replayed = 1 and writes nothing. With use_credit the allocations are
 * paid from the customer's credit first and the rest from the payment
 * (payment_settle); in->amount 0 then means no new payment. */
int payform_post(struct db *db, const struct payform *pf, struct payment_input *in, const char *key,
                 struct idem_result *res);

/* payform_fits - 1 if amount may be allocated to inv[i] (the core's rule,
 * alloc_fits_invoice: at most the balance unless the invoice allows
 * overpayment). */
int payform_fits(const struct payform *pf, int i, int64_t amount);

void payform_free(struct payform *pf);

#endif
