/*
 * item.h - line items of jobs (table line_item), owned by item.c.
 *
 * A line item is what a job bills (a service, a fee, a tax, a discount or
 * a credit), with its quantity in thousandths and its price in minor
 * units of the job's currency.
 *
 * Every write validates its input, then runs in one write transaction; a
 * refused request changes nothing. The conventions of the functions below
 * (return codes, text checks, *_get and *_free, list callbacks) are those
 * written in job.h.
 *
 * Callers: the command line (cli-work.c), the screen, the demo, bookings,
 * invoicing (bills line items).
 */
#ifndef FD_ITEM_H
#define FD_ITEM_H

#include <stdint.h>

struct db;

/* ---------------------------------------------------------------- items */

struct line_item {
	int64_t id;
	int64_t job_id;
	char kind[12]; /* SERVICE, FEE, DISCOUNT, TAX, CREDIT */
	char *description;
	int64_t qty_milli;  /* thousandths: 1.5 h = 1500 */
	int64_t unit_price; /* minor units, >= 0 */
	int64_t amount;     /* money_line_amount(qty, price), negative for DISCOUNT and CREDIT;
	                       stored in line_item.amount */
	char currency[4];   /* the job's */
	int64_t created_at, updated_at;
};

/* For item_add job_id, kind, description, qty_milli > 0 and unit_price >= 0
 * are required. For item_edit NULL / negative means unchanged (job_id is
 * ignored: an item never moves to another job). kind is one of SERVICE, FEE,
 * DISCOUNT, TAX, CREDIT (any case); description 1..400 bytes; qty_milli at
 * most 1000000000 (a million units); unit_price is in the job's currency and
 * never negative: DISCOUNT and CREDIT lines make the amount negative. */
struct item_input {
	int64_t job_id;
	const char *kind;
	const char *description;
	int64_t qty_milli;
	int64_t unit_price;
};

/* item_add - add a line to job in->job_id (FD_ENOTFOUND if none), whatever
 * its status (a cancelled job may still carry a fee). FD_EINVAL when the
 * amount, or the sum of the job's items with it, is beyond the money limit
 * (MONEY_MAX in money.h, either sign). */
int item_add(struct db *db, const struct item_input *in, int64_t *id_out);
/* item_get - fill *out (free with item_free); FD_ENOTFOUND. */
int item_get(struct db *db, int64_t id, struct line_item *out);
/* item_edit - change the given fields; the amount is recomputed: what
 * invoices that are not void bill of the item (their snapshots) plus what is
 * left to bill at the unit price. A new unit price applies only to what is
 * left to bill; FD_ECONFLICT when nothing is left (the item is fully
 * invoiced: correct it with a credit note or a new item), or when the
 * quantity would drop below what is invoiced. The job and kind of an
 * invoiced item are fixed (schema triggers). Limits as item_add. */
int item_edit(struct db *db, int64_t id, const struct item_input *in);
/* item_settle - inside a write transaction, after invoice invoice_id was
 * issued or voided: give every line item it bills the amount it costs now
 * (see item_edit). Called by invoicing. */
int item_settle(struct db *db, int64_t invoice_id);
/* item_delete - remove a line item (kept in line_item_his). Invoicing will
 * refuse this for an invoiced item. */
int item_delete(struct db *db, int64_t id);
/* item_list - the line items of job_id in the order they were added. */
int item_list(struct db *db, int64_t job_id, int (*cb)(const struct line_item *li, void *arg),
              void *arg);
void item_free(struct line_item *li);

#endif
