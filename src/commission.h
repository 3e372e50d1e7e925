/*
 * commission.h - who did the work, and their commission (columns
 * commission_fixed, commission_bp, est_minutes and tech_id of line_item;
 * migration 0018). This module owns those four columns; item.h's item.c
 * owns the rest of the line item.
 *
 * A line's commission is either a fixed amount (minor units of the job's
 * currency) or a percentage of the line's amount in basis points (1000 is
 * 10%), never both. The percentage is rounded like money_line_amount
 * (money.h): computed exactly in 128 bits, half away from zero to the
 * minor unit. It is credited to tech_id, or when that is not set to the
 * technician reserved for the job's first live visit (appointment_resource).
 *
 * Periods (commission_report): a line counts on the day its first issued
 * invoice was issued, or, while not invoiced, on the day of its job's
 * first live visit. Money taken back on that invoice later reduces the
 * commission on the day it is taken back, never in an earlier period: the
 * taken-back amount by a time t is the larger of the invoice's credit
 * notes issued by t and the refunds attributed to it that succeeded by t
 * (a refund of a payment is shared among the invoices the payment was
 * allocated to in proportion to those allocations), at most the invoice's
 * total; the reduction by t is commission x taken / total, rounded as
 * above, and each credit note or refund gives a negative row of the change
 * it makes.
 *
 * Callers: the command line (cli-work.c: item add|edit --commission,
 * cli-commission.c: report commissions), the head office's report (hq.c:
 * commission_compute), the tests.
 */
#ifndef FD_COMMISSION_H
#define FD_COMMISSION_H

#include <stddef.h>
#include <stdint.h>

struct db;

/* What to change on a line; -1 (or 0 for tech_id) leaves a field as it is.
 * Giving fixed clears bp and the other way round. */
struct commission_input {
	int64_t fixed;       /* minor units >= 0, or -1 */
	int64_t bp;          /* 0..10000, or -1 */
	int64_t tech_id;     /* a technician resource, or 0 */
	int64_t est_minutes; /* 0..100000, or -1 */
};

/* commission_parse - "12.50" (an amount of currency code) or "10%" / "12.5%"
 * (at most two decimals, at most 100%) into *fixed or *bp (the other -1). */
int commission_parse(const char *text, const char *code, int64_t *fixed, int64_t *bp);

/* commission_set - change the commission of line item item_id in one write
 * transaction; FD_ENOTFOUND, FD_EINVAL (a resource that is not a
 * technician, a value out of range). Nothing given: nothing written. */
int commission_set(struct db *db, int64_t item_id, const struct commission_input *in);

/* A line's commission as stored, with what it comes to. */
struct commission_info {
	int64_t fixed, bp;   /* -1 when not set */
	int64_t est_minutes; /* -1 when not set */
	int64_t tech_id;     /* credited to: tech_id, else the visit's; 0 none */
	char tech_name[101];
	int tech_default; /* 1: the visit's technician (tech_id not set) */
	int64_t amount;   /* the commission (0 when none) */
};

/* commission_get - the commission of line item item_id; FD_ENOTFOUND. */
int commission_get(struct db *db, int64_t item_id, struct commission_info *out);

/* commission_item_add - item_add (item.h) and commission_set of the new
 * line in one write transaction: both or neither. */
struct item_input;
int commission_item_add(struct db *db, const struct item_input *item,
                        const struct commission_input *in, int64_t *id_out);
/* commission_item_edit - item_edit (when item is not NULL) and
 * commission_set in one write transaction: both or neither. */
int commission_item_edit(struct db *db, int64_t id, const struct item_input *item,
                         const struct commission_input *in);

/* commission_amount - the commission of a line of line_amount: fixed when
 * fixed >= 0, else line_amount x bp / 10000 rounded (see above). */
int commission_amount(int64_t line_amount, int64_t fixed, int64_t bp, int64_t *out);

/* commission_taken - the part of commission that taken (of total) takes
 * back: commission x min(taken, total) / total, rounded; 0 when total <= 0. */
int commission_taken(int64_t commission, int64_t taken, int64_t total, int64_t *out);

/* One row of the report: a line ("line") or a reduction ("credit",
 * "refund"; negative commission). */
struct commission_row {
	int64_t tech_id;
	const char *tech_name;
	const char *kind;
	int64_t at;         /* the time it counts */
	int64_t item_id;    /* the line item */
	int64_t visit_id;   /* its job's first live visit, or 0 */
	int64_t invoice_id; /* its invoice, or 0 */
	int64_t source_id;  /* credit note or refund id, else 0 */
	const char *description;
	const char *currency;
	int64_t line_amount; /* "line": the line's amount, else 0 */
	int64_t commission;
};

/* Per technician and currency, after its rows. */
struct commission_total {
	int64_t tech_id;
	const char *tech_name;
	const char *currency;
	int64_t visits, lines;           /* distinct visits, "line" rows */
	int64_t line_amount, commission; /* commission: less reductions */
};

/* A credit note or a refund of a commissioned line's invoice. */
struct commission_event {
	int refund;     /* 0: a credit note; 1: a refund that succeeded */
	int64_t id, at; /* the credit note (issued_at) or refund (refunded_at) */
	int64_t amount; /* what the credit note takes back (its -total), or the refund's amount */
	int64_t part;   /* a refund: its payment's allocations to this invoice, */
	int64_t all;    /* and to every invoice (reversals left out of both) */
};

/* A commissioned line as the report reads it (see LINES_SQL in
 * commission.c): its technician, first live visit (0: none), first issued
 * invoice (0: none) and the time it counts. */
struct commission_line {
	int64_t item_id, visit_id, invoice_id, tech_id, at;
	const char *tech_name, *description, *currency;
	int64_t line_amount, fixed, bp; /* fixed, bp: -1 when not set */
	int64_t invoice_total;
	/* the invoice's credit notes and refunds before the period's end, by
	 * time, credit notes before refunds at one time, then by id */
	const struct commission_event *ev;
	size_t nev;
};

/* commission_compute - the report of lines (those counting before the
 * period's end) for the period from `from`: the rules above, once, for
 * commission_report and the head office's report of a shop (hq.c). Rows
 * and totals as commission_report gives them. */
int commission_compute(const struct commission_line *lines, size_t n, int64_t from,
                       int (*row_cb)(const struct commission_row *r, void *arg),
                       int (*total_cb)(const struct commission_total *t, void *arg), void *arg);

/* commission_report - rows counting in [from, to) by technician name,
 * currency and time, each technician's total after its rows. Reads only. */
int commission_report(struct db *db, int64_t from, int64_t to,
                      int (*row_cb)(const struct commission_row *r, void *arg),
                      int (*total_cb)(const struct commission_total *t, void *arg), void *arg);

#endif
