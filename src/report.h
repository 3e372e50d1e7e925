/*
 * report.h - money reports: receivables aging, takings, customer statements.
 *
 * Reports only read, and only the maintained figures and posted rows of
 * 0003-billing.sql (never the read models). Amounts are minor units of the
 * row's currency; currencies are never added together.
 *
 * Callers: the command line (`frontdesk report ...`), the screen, the tests
 * (and the journal export, which must agree with report_aging to the cent).
 */
#ifndef FD_REPORT_H
#define FD_REPORT_H

#include <stdint.h>

struct db;

/* Aging buckets by days past due, counted on a given day. */
enum { AGING_CURRENT, AGING_1_30, AGING_31_60, AGING_61_90, AGING_OVER_90, AGING_BUCKETS };

struct aging_row {
	int64_t customer_id;
	const char *customer_name;
	char currency[4];
	int64_t bucket[AGING_BUCKETS]; /* balances owed, by days past due */
	int64_t owed;                  /* the sum of the buckets */
	int64_t credit;                /* unallocated payments: the customer's credit */
};

/* report_aging - for every customer and currency with a balance or credit,
 * the current balances of its issued invoices (overpaid ones count
 * negatively) by days past due on the day that contains `on` (shop time): a
 * due date on that day or later is current; one day before is 1-30. The
 * rows come by customer name; cb's value stops the report. */
int report_aging(struct db *db, int64_t on, int (*cb)(const struct aging_row *r, void *arg),
                 void *arg);

/* report_customer_aging - the rows of report_aging for customer_id alone
 * (what they owe and their credit, per currency, by currency): the same
 * figures, read through the same indexes searched by customer. No row for
 * a customer who owes nothing and has no credit. */
int report_customer_aging(struct db *db, int64_t customer_id, int64_t on,
                          int (*cb)(const struct aging_row *r, void *arg), void *arg);

struct takings_row {
	char day[11]; /* YYYY-MM-DD, shop time */
	char method[16];
	char currency[4];
	int64_t count;          /* payments received */
	int64_t received;       /* their amounts (void payments excluded) */
	int64_t refunded;       /* refunds that succeeded, by the refund's day and method */
	int64_t net;            /* received - refunded, computed with money_sub */
	int64_t fees;           /* the channel's fees that reconciliation recorded for them
	                         * (reconciliation_fee: a charge's by its payment's day, a
	                         * refund's by the refund's day); 0 when none */
	int64_t net_after_fees; /* net - fees */
};

/* report_takings - money received and refunded per day and method in
 * [from, to) (UTC seconds), by day, method and currency. FD_EINVAL when a
 * figure overflows (no row is then given past it). */
int report_takings(struct db *db, int64_t from, int64_t to,
                   int (*cb)(const struct takings_row *r, void *arg), void *arg);

/* report_invoiced - what was invoiced in [from, to) (UTC seconds): per
 * currency, the invoices issued then (not void; credit notes not counted),
 * how many and their totals; cb is called once per currency, by code. */
int report_invoiced(struct db *db, int64_t from, int64_t to,
                    int (*cb)(const char *currency, int64_t count, int64_t total, void *arg),
                    void *arg);

struct statement_line {
	int64_t at;
	const char *kind;   /* invoice, credit_note, payment, allocation, refund */
	int64_t id;         /* of that row */
	const char *ref;    /* document number, payment method and reference */
	const char *target; /* allocation: the invoice number; else NULL */
	int64_t amount;     /* its effect on what is owed (0 for an allocation) */
	int64_t allocated;  /* allocation: how much (negative for a reversal) */
	int64_t balance;    /* what the customer owes after this line */
};

struct statement_totals {
	int64_t invoiced; /* invoices issued (not void) */
	int64_t credited; /* credit notes */
	int64_t received; /* payments (not void) */
	int64_t refunded; /* refunds that did not fail */
	int64_t balance;  /* invoiced - credited - received + refunded */
	int64_t open;     /* the sum of the invoices' balances */
	int64_t credit;   /* unallocated payments; balance = open - credit */
};

/* report_statement - every money event of customer_id in currency, in time
 * order, with the running balance; *totals (may be NULL) gets the totals.
 * FD_ENOTFOUND for an unknown customer. */
int report_statement(struct db *db, int64_t customer_id, const char *currency,
                     int (*cb)(const struct statement_line *l, void *arg), void *arg,
                     struct statement_totals *totals);

/* report_currencies - the currencies customer id has invoices or payments
 * in, sorted, at most max, into cur[]; *n gets how many. */
int report_currencies(struct db *db, int64_t id, char cur[][4], int max, int *n);

#endif
