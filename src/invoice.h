/*
 * invoice.h - invoices and credit notes: issuing them from line items,
 * reading them, voiding them.
 *
 * An invoice bills line items of one or more jobs of ONE customer, in one
 * currency: whole items or part of their quantity. Each invoice line is a
 * snapshot (description, quantity, unit price, amount) that later changes to
 * a line item never alter; a line item is never invoiced beyond its quantity
 * over all invoices that are not void. Numbers are gap-free per year
 * (INV-2026-000123); the due date is the issue date plus the terms
 * (`invoice_terms_days`, default 30) unless given.
 *
 * Figures, in minor units of the invoice's currency:
 *   total    the sum of its lines (fixed once issued)
 *   credited what its credit notes took off
 *   paid     the sum of the live allocations of payments to it
 *   balance  total - credited - paid (negative only when overpaid)
 * Status: issued (nothing paid), partially_paid, paid, overpaid (only with
 * allow_overpay), void. They are maintained by the schema's triggers in the
 * transaction that posts whatever changes them (see 0003-billing.sql).
 *
 * A credit note (kind "credit_note", number CN-2026-000004) corrects one
 * issued invoice: its negative total moves into that invoice's `credited`
 * at once, and it owes nothing itself. It takes off at most the invoice's
 * balance: to correct a paid invoice, reverse the allocation first (the
 * money goes back to the payment as the customer's credit), issue the
 * credit note, then allocate again or refund. Credit notes are final.
 *
 * Every write validates its input, then runs in one BEGIN IMMEDIATE
 * transaction (idempotent with a key, see idem.h). Errors: FD_EINVAL (bad
 * input or a broken rule), FD_ENOTFOUND, FD_ECONFLICT (the state does not
 * allow it), FD_EBUSY/FD_EDB, each with a reason in err_msg().
 *
 * Callers: the command line (cli-money.c), the screen, payment.c, reports.
 */
#ifndef FD_INVOICE_H
#define FD_INVOICE_H

#include <stddef.h>
#include <stdint.h>

#include "idem.h"
#include "money.h"

struct db;

/* The largest amount of one document or payment (minor units): the money
 * limit of money.h. The schema checks it too. */
#define MONEY_DOC_MAX MONEY_MAX

/* An open invoice is an invoice (not a credit note) that still takes
 * payments: issued or partially paid (its balance is then above zero). The
 * one definition: SQL uses INVOICE_OPEN_SQL(alias prefix, e.g. "i." or ""),
 * C uses invoice_is_open. Receivables (report.c) also count overpaid
 * invoices, whose balance is negative: that is another question. */
#define INVOICE_OPEN_SQL(p)                                                                        \
	"(" p "kind = 'invoice' AND " p "status IN ('issued', 'partially_paid'))"

/* An invoice's (or credit note's) states, each stored as the word
 * invoice_state_word gives. The schema's triggers derive them from the
 * figures; its legal moves are invoice_states' (invoice.c), which the rows
 * of status_transition for 'invoice' mirror (states_agree). */
enum invoice_state {
	INVOICE_DRAFT,
	INVOICE_ISSUED,
	INVOICE_PARTIALLY_PAID,
	INVOICE_PAID,
	INVOICE_OVERPAID,
	INVOICE_VOID,
	INVOICE_STATES /* no state of ours: a word invoice_state_of does not know */
};

struct states;
/* invoice_states - an invoice's words and moves (states.h), for
 * states_agree. */
extern const struct states invoice_states;

/* invoice_state_of - the state a stored word names (INVOICE_STATES: none,
 * or NULL); invoice_state_word - its stored word ("" for INVOICE_STATES). */
enum invoice_state invoice_state_of(const char *word);
const char *invoice_state_word(enum invoice_state s);

struct invoice {
	int64_t id;
	char kind[16];   /* "invoice" or "credit_note" */
	char number[32]; /* "" while draft */
	int64_t customer_id;
	char *customer_name;
	char currency[4];
	int64_t credits_id; /* credit note: the invoice it corrects; else 0 */
	int64_t issued_at, due_at;
	int64_t total, credited, paid, balance;
	char status[16]; /* a word of enum invoice_state: invoice_state_of */
	int allow_overpay;
	char *note; /* NULL when none */
	int64_t created_at, updated_at;
};

struct invoice_line {
	int64_t id;
	int64_t invoice_id;
	int64_t line_item_id; /* 0 on credit note lines */
	int64_t job_id;       /* the line item's job, 0 when none */
	char kind[12];        /* SERVICE, FEE, DISCOUNT, TAX, CREDIT */
	char *description;
	int64_t qty_milli, unit_price;
	int64_t amount; /* negative for DISCOUNT and CREDIT */
};

/* One line item to bill: all that is not yet invoiced (qty_milli 0), or
 * qty_milli thousandths of it. */
struct invoice_pick {
	int64_t item_id;
	int64_t qty_milli;
};

/* invoice_parse_items - read a list of line items to bill, as typed after
 * `invoice issue --items`: ITEM or ITEM=QTY separated by ',' (no blanks),
 * where ITEM is a line item id and QTY a quantity with '.' as the decimal
 * point whatever the locale (qty_parse: 1.5, never 1,5). Because ',' also
 * separates the items, an item billed whole never follows an ITEM=QTY:
 * "4=1,2" may mean 1.2 of item 4, so it is refused (write 4=1.2, or put the
 * items billed whole first: 2,4=1). *picks (caller frees) gets *n entries.
 * FD_EINVAL with the reason; *picks is then NULL. */
int invoice_parse_items(const char *text, struct invoice_pick **picks, size_t *n);

struct invoice_input {
	int64_t customer_id; /* 0: the customer of the jobs and items */
	const int64_t *jobs; /* bill what is left of every line item of these */
	size_t n_jobs;
	const struct invoice_pick *items;
	size_t n_items;
	int allow_overpay; /* payments may exceed the total (status overpaid) */
	long terms_days;   /* < 0: the config key invoice_terms_days, else 30 */
	int64_t due_at;    /* 0: issue time plus the terms */
	const char *note;  /* NULL: none */
};

/* invoice_issue - issue an invoice (status issued, or paid when its total is
 * zero). res->id is the invoice id. With idem_key, the same request again
 * returns the same invoice (res->replayed) and writes nothing. Refused when
 * the jobs/items belong to several customers or currencies, a job is
 * cancelled, an item is already fully invoiced or named twice, the total
 * would be negative or too large, or there is nothing to bill. */
int invoice_issue(struct db *db, const struct invoice_input *in, const char *idem_key,
                  struct idem_result *res);

/* invoice_credit - issue a credit note of amount (> 0, at most the
 * invoice's balance) against invoice id, with reason as its line's
 * description. res->id is the credit note's id. */
int invoice_credit(struct db *db, int64_t id, int64_t amount, const char *reason,
                   const char *idem_key, struct idem_result *res);

/* invoice_void - void invoice id (an invoice, not a credit note) while
 * nothing is allocated to it and no credit note corrects it; its line items
 * can be billed again. reason (required) goes to the status flow.
 * FD_ECONFLICT when it is void already or has allocations or credits. */
int invoice_void(struct db *db, int64_t id, const char *reason);

/* invoice_get - fill *out (free with invoice_free); FD_ENOTFOUND. */
int invoice_get(struct db *db, int64_t id, struct invoice *out);

/* invoice_find - the id of the invoice named by text: its number
 * ("INV-2026-000001", any case) or its id ("12"). FD_ENOTFOUND. */
int invoice_find(struct db *db, const char *text, int64_t *id);

/* invoice_lines - call cb for each line of invoice id, in order; stops at
 * and returns the first non-zero value of cb. */
int invoice_lines(struct db *db, int64_t id, int (*cb)(const struct invoice_line *l, void *arg),
                  void *arg);

struct invoice_filter {
	int64_t customer_id; /* 0: all customers */
	const char *status;  /* NULL: any; or one status; "open": balance owed */
	const char *kind;    /* NULL: both; "invoice" or "credit_note" */
};

/* invoice_is_void - 1 if inv was voided. */
int invoice_is_void(const struct invoice *inv);

/* invoice_takes_nothing - 1 for a draft or a void invoice: neither a
 * payment nor a credit note goes to it. */
int invoice_takes_nothing(enum invoice_state s);

/* invoice_is_open - 1 if inv is an open invoice (see INVOICE_OPEN_SQL). */
int invoice_is_open(const struct invoice *inv);

/* invoice_owed - what the document asks to be paid, to show to a person:
 * its balance, but nothing for a void invoice (its stored balance stays
 * total - credited - paid, the record of what it billed; a void invoice is
 * owed by nobody, as receivables count it). The panes and the printed
 * invoice show this, not the balance column. */
int64_t invoice_owed(const struct invoice *inv);

/* invoice_list - call cb for each matching document, oldest first; the
 * status "open" means open invoices (INVOICE_OPEN_SQL), whatever kind asks. */
int invoice_list(struct db *db, const struct invoice_filter *f,
                 int (*cb)(const struct invoice *inv, void *arg), void *arg);

/* invoice_status_valid - 1 if s names an invoice status (or "open"). */
int invoice_status_valid(const char *s);

void invoice_free(struct invoice *inv);
void invoice_line_free(struct invoice_line *l);

/* invoice_of_job - call cb with the id of every issued invoice (not
 * draft; void ones included, credit notes not) that bills at least one line
 * item of job job_id, oldest first. */
int invoice_of_job(struct db *db, int64_t job_id, int (*cb)(int64_t invoice_id, void *arg),
                   void *arg);

/* What is left to bill of a job: what `invoice issue --jobs` would bill
 * now (the quantity of each line item that invoices that are not void do
 * not bill yet, at its unit price). */
struct invoice_unbilled {
	int64_t items; /* line items with something left to bill */
	int64_t total; /* their amounts, signed (DISCOUNT and CREDIT take off) */
	char currency[4];
};

/* invoice_job_unbilled - fill *out with what is left to bill of job job_id
 * (a cancelled job's too: it is never billed, the caller says so).
 * FD_ENOTFOUND when there is no such job, FD_EINVAL when the sum overflows,
 * FD_EDB. */
int invoice_job_unbilled(struct db *db, int64_t job_id, struct invoice_unbilled *out);

/* invoice_search - call cb with the id of each invoice or credit note
 * whose number contains text (case-insensitive; at least 2 characters),
 * newest first, at most limit (<= 0: 50). */
int invoice_search(struct db *db, const char *text, int limit,
                   int (*cb)(int64_t invoice_id, void *arg), void *arg);

#endif
