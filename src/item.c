/*
 * item.c - the line items of a job; amounts are computed here
 * (money_line_amount) and stored with the item (see item.h).
 *
 * The amount of an item is what it costs: what invoices that are not void
 * bill of it (their lines' snapshots) plus what is left to bill at its unit
 * price (item_settle keeps it so, also when an invoice is issued or voided).
 * A price change reprices only what is left to bill, so an item that is
 * fully invoiced keeps its price. Every amount, and the sum of a job's
 * items, stays within the money limit (MONEY_MAX).
 *
 * Invariants (the whole work domain): every write checks what it can of its
 * input before its transaction starts, and what needs the database inside
 * that transaction before its first write; a refusal rolls back, so a
 * refused request changes nothing. Shared helpers: work-int.h.
 *
 * Permissions: every change needs job.edit; a DISCOUNT or CREDIT line
 * added or changed also needs discount up to what the job's discount and
 * credit lines come to after the change, in whole percent (rounded up) of
 * its SERVICE, FEE and TAX lines (100 when it has none). Deleting a line
 * needs job.edit only. item_settle is part of invoicing and checks nothing.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "item.h"
#include "job.h"
#include "money.h"
#include "retention-mod.h"
#include "settings.h"
#include "strbuf.h"
#include "text.h"
#include "work-int.h"
#include "xalloc.h"

/* ---------------------------------------------------------------- items */

#define ITEM_SELECT                                                                                \
	"SELECT i.id, i.service_order_id, i.kind, i.description, i.qty_milli, i.unit_price,"       \
	" i.amount, j.currency, i.created_at, i.updated_at"                                        \
	" FROM line_item i JOIN service_order j ON j.id = i.service_order_id"

static const char *const item_kinds[] = {"SERVICE", "FEE", "DISCOUNT", "TAX", "CREDIT", NULL};

struct item_iter {
	int (*cb)(const struct line_item *li, void *arg);
	void *arg;
	struct line_item *out; /* item_get: the row is handed over here */
};

static int item_row(sqlite3_stmt *st, void *p)
{
	struct item_iter *it = p;
	struct line_item li;
	int rc;

	memset(&li, 0, sizeof li);
	li.id = sqlite3_column_int64(st, 0);
	li.job_id = sqlite3_column_int64(st, 1);
	dbrow_copy(st, 2, li.kind, sizeof li.kind);
	li.description = dbrow_dup(st, 3);
	li.qty_milli = sqlite3_column_int64(st, 4);
	li.unit_price = sqlite3_column_int64(st, 5);
	li.amount = sqlite3_column_int64(st, 6);
	dbrow_copy(st, 7, li.currency, sizeof li.currency);
	li.created_at = sqlite3_column_int64(st, 8);
	li.updated_at = sqlite3_column_int64(st, 9);
	if (it->out) {
		*it->out = li;
		return 0;
	}
	rc = it->cb(&li, it->arg);
	item_free(&li);
	return rc;
}

void item_free(struct line_item *li)
{
	free(li->description);
	memset(li, 0, sizeof *li);
}

int item_get(struct db *db, int64_t id, struct line_item *out)
{
	struct item_iter it = {NULL, NULL, out};
	sqlite3_stmt *st;
	int64_t n = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = wk_prep(db, ITEM_SELECT " WHERE i.id = ?1", &st, id, 0)) ||
	    (rc = wk_each_row(db, st, item_row, &it, _("cannot read the line item"), &n)))
		return rc;
	return n ? 0 : err_set(FD_ENOTFOUND, _("there is no line item %lld"), (long long)id);
}

int item_list(struct db *db, int64_t job_id, int (*cb)(const struct line_item *li, void *arg),
              void *arg)
{
	struct item_iter it = {cb, arg, NULL};
	sqlite3_stmt *st;
	int rc =
	    wk_prep(db, ITEM_SELECT " WHERE i.service_order_id = ?1 ORDER BY i.id", &st, job_id, 0);

	return rc ? rc : wk_each_row(db, st, item_row, &it, _("cannot list line items"), NULL);
}

/* The canonical spelling of kind (any case), or NULL. */
static const char *find_kind(const char *kind)
{
	int i;

	for (i = 0; kind && item_kinds[i]; i++)
		if (!strcasecmp(kind, item_kinds[i]))
			return item_kinds[i];
	return NULL;
}

/* The signed amount of a line: money_line_amount, negated for a DISCOUNT or
 * a CREDIT (a positive int64_t always negates). */
static int line_amount(const char *kind, int64_t qty_milli, int64_t unit_price, int64_t *out)
{
	if (money_line_amount(qty_milli, unit_price, out))
		return err_set(FD_EINVAL, _("the amount of this line is too large: "
		                            "lower the quantity or the unit price"));
	if (!strcmp(kind, "DISCOUNT") || !strcmp(kind, "CREDIT"))
		*out = -*out;
	return 0;
}

/* Check in; *kind gets the canonical kind (NULL when unchanged). For an edit
 * a negative quantity or price means unchanged. */
static int check_item_input(const struct item_input *in, int adding, const char **kind)
{
	int rc;

	*kind = NULL;
	if (adding && in->job_id <= 0)
		return err_set(FD_EINVAL, _("the line item needs a job"));
	if ((adding || in->kind) && !(*kind = find_kind(in->kind)))
		return err_set(FD_EINVAL,
		               _("'%.20s' is not a kind of line item: use SERVICE, FEE, DISCOUNT, "
		                 "TAX or CREDIT"),
		               in->kind ? in->kind : "");
	if ((adding || in->description) &&
	    (rc = text_check(in->description, _("the description"), TEXT_MAX, 0)))
		return rc;
	if ((adding || in->qty_milli >= 0) && in->qty_milli <= 0)
		return err_set(FD_EINVAL, _("the quantity must be greater than zero"));
	if (in->qty_milli > QTY_MAX)
		return err_set(FD_EINVAL, _("the quantity is too large (at most 1000000)"));
	if (adding && in->unit_price < 0)
		return err_set(FD_EINVAL, _("the unit price must not be negative; "
		                            "use a DISCOUNT or CREDIT line to take money off"));
	return 0;
}

struct item_ctx {
	int64_t id;
	const struct item_input *in;
	const char *kind;
	int64_t amount;
};

/* What invoices that are not void bill of item id: *qty thousandths for
 * *amount (their lines' amounts, signed). */
static int billed_of(struct db *db, int64_t id, int64_t *qty, int64_t *amount)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = wk_prep(db,
	             "SELECT coalesce(sum(il.qty_milli), 0), coalesce(sum(il.amount), 0)"
	             " FROM invoice_line il JOIN invoice i ON i.id = il.invoice_id"
	             " WHERE il.line_item_id = ?1 AND i.status NOT IN ('void', 'draft')",
	             &st, id, 0);
	if (rc)
		return rc;
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		*qty = sqlite3_column_int64(st, 0);
		*amount = sqlite3_column_int64(st, 1);
	} else {
		rc = db_fail(db, _("cannot read what is invoiced of the line item"));
	}
	sqlite3_finalize(st);
	return rc;
}

/* *out = the amount of an item of kind, qty_milli and unit_price of which
 * billed_qty is invoiced for billed_amount: billed_amount plus the rest at
 * unit_price. */
static int item_amount(const char *kind, int64_t qty_milli, int64_t unit_price, int64_t billed_qty,
                       int64_t billed_amount, int64_t *out)
{
	int64_t rest;
	int rc;

	if ((rc = line_amount(kind, qty_milli - billed_qty, unit_price, &rest)))
		return rc;
	if (money_add(billed_amount, rest, out))
		return err_set(FD_EINVAL, _("the amount of this line is too large: "
		                            "lower the quantity or the unit price"));
	return 0;
}

/* The money limit, inside the write transaction: amount (of item id, 0 for
 * a new one) and the sum of job_id's items with it. */
static int check_limits(struct db *db, int64_t job_id, int64_t id, int64_t amount)
{
	char a[MONEY_BUFSZ], m[MONEY_BUFSZ];
	struct job j;
	int64_t others = 0, total;
	int rc, found;

	if ((rc = job_get(db, job_id, &j)))
		return rc;
	money_text(MONEY_MAX, j.currency, 1, m);
	if (!money_within_limit(amount)) {
		rc = err_set(FD_EINVAL,
		             _("the amount of this line item would be %s %s, beyond the largest "
		               "amount of money (%s %s): lower the quantity or the unit price"),
		             money_text(amount, j.currency, 1, a), j.currency, m, j.currency);
		goto out;
	}
	rc = wk_query_int(db,
	                  "SELECT coalesce(sum(amount), 0) FROM line_item"
	                  " WHERE service_order_id = ?1 AND id <> ?2",
	                  job_id, id, &others, &found);
	if (rc)
		goto out;
	if (money_add(others, amount, &total) || !money_within_limit(total))
		rc = err_set(FD_EINVAL,
		             _("the line items of job %lld would add up to more than the largest "
		               "amount of money (%s %s): lower the amounts or bill the rest on "
		               "another job"),
		             (long long)job_id, m, j.currency);
out:
	job_free(&j);
	return rc;
}

/* 1 when a line of kind takes money off (DISCOUNT, CREDIT). */
static int kind_takes_off(const char *kind)
{
	return !strcmp(kind, "DISCOUNT") || !strcmp(kind, "CREDIT");
}

/* part in whole percent of whole > 0, rounded up. */
static int64_t percent_up(int64_t part, int64_t whole)
{
	int64_t q = part / whole, r = part % whole;

	if (q >= INT64_MAX / 100 - 1)
		return INT64_MAX / 100;
	if (whole > INT64_MAX / 100) { /* r * 100 would overflow: a cent less exact */
		whole /= 100;
		r /= 100;
	}
	return q * 100 + (r * 100 + whole - 1) / whole;
}

/* The discount permission for a DISCOUNT or CREDIT line of job_id (id, 0
 * for a new one) that will amount to amount (negative): what the job's
 * lines take off after the change, in percent of its charges (see the top
 * of this file). 0 for a line of another kind. */
static int require_discount(struct db *db, int64_t job_id, int64_t id, const char *kind,
                            int64_t amount, const char *subject)
{
	sqlite3_stmt *st;
	int64_t charges = 0, off = 0, pct;
	int rc;

	if (!kind_takes_off(kind))
		return 0;
	rc = wk_prep(db,
	             "SELECT coalesce(sum(CASE WHEN kind IN ('SERVICE', 'FEE', 'TAX') THEN amount"
	             " END), 0), coalesce(sum(CASE WHEN kind IN ('DISCOUNT', 'CREDIT') THEN -amount"
	             " END), 0) FROM line_item WHERE service_order_id = ?1 AND id <> ?2",
	             &st, job_id, id);
	if (rc)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW) {
		charges = sqlite3_column_int64(st, 0);
		off = sqlite3_column_int64(st, 1);
	} else {
		rc = db_fail(db, _("cannot read the line items of the job"));
	}
	sqlite3_finalize(st);
	if (rc)
		return rc;
	if (money_add(off, -amount, &off))
		off = INT64_MAX;
	pct = charges > 0 ? percent_up(off, charges) : 100;
	return control_require(db, PERM_DISCOUNT, pct, subject);
}

static int item_add_tx(struct db *db, void *arg)
{
	struct item_ctx *a = arg;
	char status[16], subject[80];
	sqlite3_stmt *st;
	int rc;

	snprintf(subject, sizeof subject, "add a %s line to job %lld", a->kind,
	         (long long)a->in->job_id);
	if ((rc = control_require(db, PERM_JOB_EDIT, 0, subject)))
		return rc;
	if ((rc = wk_read_status(db, &wk_job_machine, a->in->job_id, status)) || /* it exists */
	    (rc = check_limits(db, a->in->job_id, 0, a->amount)) ||
	    (rc = require_discount(db, a->in->job_id, 0, a->kind, a->amount, subject)))
		return rc;
	rc = db_prepare(db,
	                "INSERT INTO line_item (service_order_id, kind, description, qty_milli,"
	                " unit_price, amount, created_at, updated_at)"
	                " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, a->in->job_id);
	wk_bind_text(st, 2, a->kind);
	wk_bind_text(st, 3, a->in->description);
	sqlite3_bind_int64(st, 4, a->in->qty_milli);
	sqlite3_bind_int64(st, 5, a->in->unit_price);
	sqlite3_bind_int64(st, 6, a->amount);
	sqlite3_bind_int64(st, 7, clock_now());
	if ((rc = db_run(db, st, _("cannot add the line item"))))
		return rc;
	a->id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

int item_add(struct db *db, const struct item_input *in, int64_t *id_out)
{
	struct item_ctx a = {0, in, NULL, 0};
	int rc;

	if ((rc = check_item_input(in, 1, &a.kind)) ||
	    (rc = line_amount(a.kind, in->qty_milli, in->unit_price, &a.amount)) ||
	    (rc = db_write(db, item_add_tx, &a)))
		return rc;
	*id_out = a.id;
	return 0;
}

static int item_edit_tx(struct db *db, void *arg)
{
	struct item_ctx *e = arg;
	struct line_item li;
	sqlite3_stmt *st;
	int64_t billed_qty = 0, billed_amount = 0;
	char q[32], subject[64];
	int rc;

	snprintf(subject, sizeof subject, "change line item %lld", (long long)e->id);
	if ((rc = control_require(db, PERM_JOB_EDIT, 0, subject)))
		return rc;
	if ((rc = item_get(db, e->id, &li)))
		return rc;
	if ((rc = billed_of(db, e->id, &billed_qty, &billed_amount)))
		goto out;
	if (e->kind)
		snprintf(li.kind, sizeof li.kind, "%s", e->kind);
	if (e->in->qty_milli >= 0)
		li.qty_milli = e->in->qty_milli;
	if (li.qty_milli < billed_qty) {
		qty_format(billed_qty, q, sizeof q);
		rc = err_set(FD_ECONFLICT,
		             _("%s of line item %lld is invoiced already: its quantity cannot drop "
		               "below that (correct the invoice with a credit note)"),
		             q, (long long)e->id);
		goto out;
	}
	if (e->in->unit_price >= 0 && e->in->unit_price != li.unit_price) {
		/* a new price applies to what is left to bill; none is left */
		if (billed_qty > 0 && li.qty_milli == billed_qty) {
			rc =
			    err_set(FD_ECONFLICT,
			            _("line item %lld is fully invoiced, so its price is fixed: to "
			              "correct what was billed, issue a credit note (frontdesk "
			              "invoice credit), or add a new line item for more work"),
			            (long long)e->id);
			goto out;
		}
		li.unit_price = e->in->unit_price;
	}
	if ((rc = item_amount(li.kind, li.qty_milli, li.unit_price, billed_qty, billed_amount,
	                      &li.amount)) ||
	    (rc = check_limits(db, li.job_id, e->id, li.amount)) ||
	    (rc = require_discount(db, li.job_id, e->id, li.kind, li.amount, subject)))
		goto out;
	rc = db_prepare(db,
	                "UPDATE line_item SET kind = ?1,"
	                " description = coalesce(?2, description), qty_milli = ?3,"
	                " unit_price = ?4, amount = ?5, updated_at = ?6 WHERE id = ?7",
	                &st);
	if (rc)
		goto out;
	wk_bind_text(st, 1, li.kind);
	wk_bind_text(st, 2, e->in->description);
	sqlite3_bind_int64(st, 3, li.qty_milli);
	sqlite3_bind_int64(st, 4, li.unit_price);
	sqlite3_bind_int64(st, 5, li.amount);
	sqlite3_bind_int64(st, 6, clock_now());
	sqlite3_bind_int64(st, 7, e->id);
	rc = db_run(db, st, _("cannot change the line item"));
out:
	item_free(&li);
	return rc;
}

int item_edit(struct db *db, int64_t id, const struct item_input *in)
{
	struct item_ctx e = {id, in, NULL, 0};
	int rc;

	if ((rc = check_item_input(in, 0, &e.kind)))
		return rc;
	if (!in->kind && !in->description && in->qty_milli < 0 && in->unit_price < 0)
		return err_set(FD_EINVAL, _("nothing to change: give at least one field"));
	return db_write(db, item_edit_tx, &e);
}

/* Give item id the amount it costs now (see the top of this file). */
static int settle_one(struct db *db, int64_t id)
{
	struct line_item li;
	sqlite3_stmt *st;
	int64_t billed_qty = 0, billed_amount = 0, amount;
	int rc;

	if ((rc = item_get(db, id, &li)))
		return rc;
	if ((rc = billed_of(db, id, &billed_qty, &billed_amount)) ||
	    (rc = item_amount(li.kind, li.qty_milli, li.unit_price, billed_qty, billed_amount,
	                      &amount)))
		goto out;
	if (amount == li.amount)
		goto out;
	rc = wk_prep(db, "UPDATE line_item SET amount = ?1 WHERE id = ?2", &st, amount, id);
	if (rc)
		goto out;
	rc = db_run(db, st, _("cannot change the line item"));
out:
	item_free(&li);
	return rc;
}

int item_settle(struct db *db, int64_t invoice_id)
{
	sqlite3_stmt *st;
	int64_t *ids = NULL;
	size_t n = 0, i;
	int rc, step;

	rc = wk_prep(db,
	             "SELECT DISTINCT line_item_id FROM invoice_line"
	             " WHERE invoice_id = ?1 AND line_item_id IS NOT NULL ORDER BY line_item_id",
	             &st, invoice_id, 0);
	if (rc)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		ids = xrealloc(ids, (n + 1) * sizeof *ids);
		ids[n++] = sqlite3_column_int64(st, 0);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the lines of the invoice"));
	sqlite3_finalize(st);
	for (i = 0; !rc && i < n; i++)
		rc = settle_one(db, ids[i]);
	free(ids);
	return rc;
}

static int item_delete_tx(struct db *db, void *arg)
{
	int64_t id = *(int64_t *)arg;
	struct line_item li;
	sqlite3_stmt *st;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "delete line item %lld", (long long)id);
	if ((rc = control_require(db, PERM_JOB_EDIT, 0, subject)))
		return rc;
	if ((rc = item_get(db, id, &li)))
		return rc;
	item_free(&li);
	if ((rc = wk_prep(db, "DELETE FROM line_item WHERE id = ?1", &st, id, 0)))
		return rc;
	return db_run(db, st, _("cannot delete the line item"));
}

int item_delete(struct db *db, int64_t id)
{
	return db_write(db, item_delete_tx, &id);
}

/* ---------------------------------------------------------------- retention */

/* Free text in line items: the description goes, quantity and prices stay. */
int item_retention_purge(struct db *db, struct retention_purge_ctx *c)
{
	static const struct retention_stmt v[] = {
	    {"UPDATE line_item SET description = '" RETENTION_REMOVED "' WHERE service_order_id IN"
	     " (SELECT id FROM service_order WHERE customer_id = ?1)"
	     " AND description IS NOT '" RETENTION_REMOVED "'",
	     N_("cannot clear the line items")},
	    {"UPDATE line_item_his SET description = '" RETENTION_REMOVED
	     "' WHERE service_order_id IN"
	     " (SELECT id FROM service_order WHERE customer_id = ?1)"
	     " AND description IS NOT '" RETENTION_REMOVED "'",
	     N_("cannot clear the line items' history")},
	};

	return retention_exec_all(db, v, sizeof v / sizeof v[0], c->customer_id);
}
