/*
 * invoice.c - issuing, reading and voiding invoices and credit notes (see
 * invoice.h).
 *
 * Invariants: an invoice is inserted as an empty draft, its lines are
 * inserted, and one UPDATE gives it its number, dates and total and moves it
 * to issued, all in one transaction (the schema refuses lines for anything
 * but a draft and checks total = sum of lines). The number comes from the
 * per-year counter row bumped in that same transaction, so numbers have no
 * gaps and never repeat. Every rule is checked here first, inside the write
 * transaction, so that a refusal says what is wrong and changes nothing.
 *
 * Permissions: issuing asks invoice.issue, a credit note credit.note,
 * voiding void; first in the transaction (after the idempotency record,
 * which the refusal rolls back with everything else).
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
#include "docnum.h"
#include "drawer.h"
#include "err.h"
#include "i18n.h"
#include "invoice.h"
#include "item.h"
#include "job.h"
#include "money.h"
#include "retention-mod.h"
#include "settings.h"
#include "states.h"
#include "strbuf.h"
#include "text.h"
#include "xalloc.h"

#define TERMS_MAX_DAYS 3650

/* ------------------------------------------------------------ states */

/* The stored word of each state, once. */
static const char *const invoice_words[INVOICE_STATES] = {
    [INVOICE_DRAFT] = "draft",
    [INVOICE_ISSUED] = "issued",
    [INVOICE_PARTIALLY_PAID] = "partially_paid",
    [INVOICE_PAID] = "paid",
    [INVOICE_OVERPAID] = "overpaid",
    [INVOICE_VOID] = "void",
};

/* Every legal move: status_transition's rows for 'invoice'. */
static const struct state_move invoice_moves[] = {
    {INVOICE_DRAFT, INVOICE_ISSUED},        {INVOICE_DRAFT, INVOICE_PAID},
    {INVOICE_DRAFT, INVOICE_VOID},          {INVOICE_ISSUED, INVOICE_PARTIALLY_PAID},
    {INVOICE_ISSUED, INVOICE_PAID},         {INVOICE_ISSUED, INVOICE_OVERPAID},
    {INVOICE_ISSUED, INVOICE_VOID},         {INVOICE_PARTIALLY_PAID, INVOICE_ISSUED},
    {INVOICE_PARTIALLY_PAID, INVOICE_PAID}, {INVOICE_PARTIALLY_PAID, INVOICE_OVERPAID},
    {INVOICE_PAID, INVOICE_ISSUED},         {INVOICE_PAID, INVOICE_PARTIALLY_PAID},
    {INVOICE_PAID, INVOICE_OVERPAID},       {INVOICE_PAID, INVOICE_VOID},
    {INVOICE_OVERPAID, INVOICE_ISSUED},     {INVOICE_OVERPAID, INVOICE_PARTIALLY_PAID},
    {INVOICE_OVERPAID, INVOICE_PAID},       {-1, -1},
};

const struct states invoice_states = {"invoice", invoice_words, INVOICE_STATES, invoice_moves};

enum invoice_state invoice_state_of(const char *word)
{
	return (enum invoice_state)states_of(&invoice_states, word);
}

const char *invoice_state_word(enum invoice_state s)
{
	return states_word(&invoice_states, (int)s);
}

/* Format v in currency code (unknown codes with two decimals). */
static const char *fmt(int64_t v, const char *code, char buf[MONEY_BUFSZ])
{
	money_format(v, currency_find(code), 1, buf, MONEY_BUFSZ);
	return buf;
}

/* ------------------------------------------------------------ reading */

#define INVOICE_COLS                                                                               \
	"i.id, i.kind, i.number, i.customer_id, c.name, i.currency, i.credits_id, i.issued_at,"    \
	" i.due_at, i.total, i.credited, i.paid, i.balance, i.status, i.allow_overpay, i.note,"    \
	" i.created_at, i.updated_at"
#define INVOICE_FROM " FROM invoice i JOIN customer c ON c.id = i.customer_id"

static void fill(sqlite3_stmt *st, struct invoice *inv)
{
	memset(inv, 0, sizeof *inv);
	inv->id = sqlite3_column_int64(st, 0);
	dbrow_copy(st, 1, inv->kind, sizeof inv->kind);
	dbrow_copy(st, 2, inv->number, sizeof inv->number);
	inv->customer_id = sqlite3_column_int64(st, 3);
	inv->customer_name = dbrow_dup(st, 4);
	dbrow_copy(st, 5, inv->currency, sizeof inv->currency);
	inv->credits_id = sqlite3_column_int64(st, 6);
	inv->issued_at = sqlite3_column_int64(st, 7);
	inv->due_at = sqlite3_column_int64(st, 8);
	inv->total = sqlite3_column_int64(st, 9);
	inv->credited = sqlite3_column_int64(st, 10);
	inv->paid = sqlite3_column_int64(st, 11);
	inv->balance = sqlite3_column_int64(st, 12);
	dbrow_copy(st, 13, inv->status, sizeof inv->status);
	inv->allow_overpay = sqlite3_column_int(st, 14);
	inv->note = dbrow_dup(st, 15);
	inv->created_at = sqlite3_column_int64(st, 16);
	inv->updated_at = sqlite3_column_int64(st, 17);
}

void invoice_free(struct invoice *inv)
{
	free(inv->customer_name);
	free(inv->note);
	memset(inv, 0, sizeof *inv);
}

void invoice_line_free(struct invoice_line *l)
{
	free(l->description);
	memset(l, 0, sizeof *l);
}

static void invoice_get_row(sqlite3_stmt *st, void *out)
{
	fill(st, out);
}

int invoice_get(struct db *db, int64_t id, struct invoice *out)
{
	int rc, found;

	memset(out, 0, sizeof *out);
	rc = dbrow_get(db, "SELECT " INVOICE_COLS INVOICE_FROM " WHERE i.id = ?", id,
	               invoice_get_row, out, _("cannot read the invoice"), &found);
	if (!rc && !found)
		rc = err_set(FD_ENOTFOUND, _("there is no invoice %lld"), (long long)id);
	return rc;
}

int invoice_find(struct db *db, const char *text, int64_t *id)
{
	sqlite3_stmt *st;
	char *end;
	long long v;
	int rc, step;

	if (!text || !*text)
		return err_set(FD_EINVAL, _("no invoice given"));
	v = strtoll(text, &end, 10);
	if (*end == '\0' && v > 0 && text[0] >= '0' && text[0] <= '9') {
		*id = v;
		return 0;
	}
	rc = db_prepare_cached(db, "SELECT id FROM invoice WHERE number = upper(?)", &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, _("there is no invoice numbered '%.40s'"), text);
	else
		rc = db_fail(db, _("cannot read the invoice"));
	db_release(db, st);
	return rc;
}

int invoice_lines(struct db *db, int64_t id, int (*cb)(const struct invoice_line *l, void *arg),
                  void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	rc =
	    db_prepare(db,
	               "SELECT il.id, il.invoice_id, il.line_item_id, li.service_order_id, il.kind,"
	               " il.description, il.qty_milli, il.unit_price, il.amount"
	               " FROM invoice_line il LEFT JOIN line_item li ON li.id = il.line_item_id"
	               " WHERE il.invoice_id = ? ORDER BY il.id",
	               &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct invoice_line l;

		memset(&l, 0, sizeof l);
		l.id = sqlite3_column_int64(st, 0);
		l.invoice_id = sqlite3_column_int64(st, 1);
		l.line_item_id = sqlite3_column_int64(st, 2);
		l.job_id = sqlite3_column_int64(st, 3);
		dbrow_copy(st, 4, l.kind, sizeof l.kind);
		l.description = dbrow_dup(st, 5);
		l.qty_milli = sqlite3_column_int64(st, 6);
		l.unit_price = sqlite3_column_int64(st, 7);
		l.amount = sqlite3_column_int64(st, 8);
		rc = cb(&l, arg);
		invoice_line_free(&l);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the invoice lines"));
	sqlite3_finalize(st);
	return rc;
}

int invoice_status_valid(const char *s)
{
	return invoice_state_of(s) != INVOICE_STATES || (s && !strcmp(s, "open"));
}

int invoice_is_void(const struct invoice *inv)
{
	return invoice_state_of(inv->status) == INVOICE_VOID;
}

int invoice_takes_nothing(enum invoice_state s)
{
	return s == INVOICE_DRAFT || s == INVOICE_VOID;
}

int invoice_is_open(const struct invoice *inv)
{
	enum invoice_state s = invoice_state_of(inv->status);

	return !strcmp(inv->kind, "invoice") &&
	       (s == INVOICE_ISSUED || s == INVOICE_PARTIALLY_PAID);
}

int64_t invoice_owed(const struct invoice *inv)
{
	return invoice_is_void(inv) ? 0 : inv->balance;
}

int invoice_list(struct db *db, const struct invoice_filter *f,
                 int (*cb)(const struct invoice *inv, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	if (control_require(db, PERM_RECORDS_VIEW, 0, "list invoices"))
		return FD_EPERM;

	rc = db_prepare(
	    db,
	    "SELECT " INVOICE_COLS INVOICE_FROM " WHERE (?1 = 0 OR i.customer_id = ?1)"
	    " AND (?2 IS NULL OR i.status = ?2"
	    "      OR (?2 = 'open' AND " INVOICE_OPEN_SQL("i.") "))"
	                                                        " AND (?3 IS NULL OR i.kind = ?3)"
	                                                        " ORDER BY i.issued_at, i.id",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, f ? f->customer_id : 0);
	if (f && f->status)
		sqlite3_bind_text(st, 2, f->status, -1, SQLITE_TRANSIENT);
	if (f && f->kind)
		sqlite3_bind_text(st, 3, f->kind, -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct invoice inv;

		fill(st, &inv);
		rc = cb(&inv, arg);
		invoice_free(&inv);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list invoices"));
	sqlite3_finalize(st);
	return rc;
}

/* ------------------------------------------------------------ issuing */

/* One line about to be written. */
struct draft_line {
	int64_t item_id;
	char kind[12];
	char *description;
	int64_t qty_milli, unit_price, amount;
};

struct issue_ctx {
	const struct invoice_input *in;
	int64_t now, due_at;
	struct draft_line *lines;
	size_t n_lines;
	int64_t customer_id;
	char currency[4];
	int64_t total;
};

static void drafts_free(struct issue_ctx *x)
{
	size_t i;

	for (i = 0; i < x->n_lines; i++)
		free(x->lines[i].description);
	free(x->lines);
	x->lines = NULL;
	x->n_lines = 0;
}

/* What is left to invoice of a line item: its quantity less what invoices
 * that are not void already bill. */
#define REMAINING_SQL                                                                              \
	"li.qty_milli - coalesce((SELECT sum(il.qty_milli) FROM invoice_line il"                   \
	" JOIN invoice iv ON iv.id = il.invoice_id"                                                \
	" WHERE il.line_item_id = li.id AND iv.status <> 'void'), 0)"
#define ITEM_COLS                                                                                  \
	"li.id, li.kind, li.description, li.qty_milli, li.unit_price, so.id, so.customer_id,"      \
	" so.currency, so.status, " REMAINING_SQL

/* *id = the positive id that is all of text (digits only), else -1. */
static int read_id(const char *text, int64_t *id)
{
	uint64_t v = 0;
	const char *p;

	for (p = text; *p >= '0' && *p <= '9'; p++)
		if ((v = v * 10 + (uint64_t)(*p - '0')) > (uint64_t)INT64_MAX)
			return -1;
	if (p == text || *p || v == 0)
		return -1;
	*id = (int64_t)v;
	return 0;
}

int invoice_parse_items(const char *text, struct invoice_pick **picks, size_t *n)
{
	char *copy, *tok, *save = NULL, *eq, *prev_qty = NULL;
	int64_t prev_item = 0;
	int rc = 0;

	*picks = NULL;
	*n = 0;
	if (!text || !*text)
		return err_set(FD_EINVAL, _("--items is empty: give line item ids, such as 7 or "
		                            "7,8=1.5"));
	copy = xstrdup(text);
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		struct invoice_pick p = {0, 0};

		if ((eq = strchr(tok, '=')) != NULL)
			*eq = '\0';
		if (read_id(tok, &p.item_id)) {
			rc = err_set(FD_EINVAL,
			             _("--items: '%.40s' is not a line item id (give ITEM or "
			               "ITEM=QTY separated by ',', such as 7,8=1.5)"),
			             tok);
			break;
		}
		if (!eq && prev_qty) {
			/* "4=1,2": the decimal comma of 1,2 (1.2), or item 2? */
			rc = err_set(
			    FD_EINVAL,
			    _("--items: in '%1$lld=%2$s,%3$s' the ',' may be a decimal "
			      "comma: write %1$lld=%2$s.%3$s ('.' is the decimal point), or "
			      "to bill all of item %3$s as well, put it first: "
			      "%3$s,%1$lld=%2$s"),
			    (long long)prev_item, prev_qty, tok);
			break;
		}
		if (eq && (rc = qty_parse(eq + 1, &p.qty_milli)) != 0)
			break;
		prev_qty = eq ? eq + 1 : NULL;
		prev_item = p.item_id;
		*picks = xrealloc(*picks, (*n + 1) * sizeof **picks);
		(*picks)[(*n)++] = p;
	}
	if (!rc && *n == 0)
		rc = err_set(FD_EINVAL, _("--items is empty: give line item ids, such as 7 or "
		                          "7,8=1.5"));
	free(copy);
	if (rc) {
		free(*picks);
		*picks = NULL;
		*n = 0;
	}
	return rc;
}

/* Make sure every line so far is for one customer and one currency. */
static int same_party(struct issue_ctx *x, int64_t job_id, int64_t customer_id,
                      const char *currency)
{
	if (x->in->customer_id && customer_id != x->in->customer_id)
		return err_set(
		    FD_EINVAL, _("job %lld belongs to customer %lld, not to customer %lld"),
		    (long long)job_id, (long long)customer_id, (long long)x->in->customer_id);
	if (!x->customer_id) {
		x->customer_id = customer_id;
		snprintf(x->currency, sizeof x->currency, "%s", currency);
		return 0;
	}
	if (customer_id != x->customer_id)
		return err_set(
		    FD_EINVAL,
		    _("job %lld is for another customer: one invoice bills one customer"),
		    (long long)job_id);
	if (strcmp(currency, x->currency) != 0)
		return err_set(FD_EINVAL,
		               _("job %lld is billed in %s, the others in %s: one invoice has one "
		                 "currency"),
		               (long long)job_id, currency, x->currency);
	return 0;
}

/* Add a line for qty (thousandths) of the item in the current row of st. */
/* The signed amount of qty (thousandths) at price in kind's line: a
 * discount or credit line counts against the total. FD_EINVAL when it
 * overflows. Used for the lines of an invoice being issued and for what is
 * left to bill of a job, so both add up the same way. */
static int line_signed_amount(const char *kind, int64_t qty, int64_t price, int64_t *amount)
{
	int rc = money_line_amount(qty, price, amount);

	if (rc != 0)
		return rc;
	if (kind && (!strcmp(kind, "DISCOUNT") || !strcmp(kind, "CREDIT")))
		*amount = -*amount;
	return 0;
}

static int add_line(struct issue_ctx *x, sqlite3_stmt *st, int64_t qty)
{
	struct draft_line *l;
	int64_t item_id = sqlite3_column_int64(st, 0), price = sqlite3_column_int64(st, 4);
	const char *kind = (const char *)sqlite3_column_text(st, 1);
	size_t i;
	int rc;

	for (i = 0; i < x->n_lines; i++)
		if (x->lines[i].item_id == item_id)
			return err_set(FD_EINVAL,
			               _("line item %lld is named twice (directly or through its "
			                 "job)"),
			               (long long)item_id);
	x->lines = xrealloc(x->lines, (x->n_lines + 1) * sizeof *x->lines);
	l = &x->lines[x->n_lines++];
	memset(l, 0, sizeof *l);
	l->item_id = item_id;
	snprintf(l->kind, sizeof l->kind, "%s", kind ? kind : "");
	l->description = dbrow_dup(st, 2);
	l->qty_milli = qty;
	l->unit_price = price;
	if ((rc = line_signed_amount(l->kind, qty, price, &l->amount)) != 0)
		return err_set(rc, _("line item %lld: the amount is too large"),
		               (long long)item_id);
	if (money_add(x->total, l->amount, &x->total) != 0)
		return err_set(FD_EINVAL, _("the invoice total is too large"));
	return 0;
}

static int job_not_cancelled(int64_t job_id, const char *status)
{
	if (job_state_of(status) == JOB_CANCELLED)
		return err_set(FD_ECONFLICT, _("job %lld is cancelled and cannot be invoiced"),
		               (long long)job_id);
	return 0;
}

static int collect_job(struct issue_ctx *x, struct db *db, int64_t job_id)
{
	sqlite3_stmt *st;
	int rc, step, before = (int)x->n_lines;
	int64_t customer_id = 0;
	char currency[4] = "", status[16] = "";

	rc = db_prepare_cached(
	    db, "SELECT customer_id, currency, status FROM service_order WHERE id = ?", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, job_id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		customer_id = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, currency, sizeof currency);
		dbrow_copy(st, 2, status, sizeof status);
	} else if (step == SQLITE_DONE) {
		rc = err_set(FD_ENOTFOUND, _("there is no job %lld"), (long long)job_id);
	} else {
		rc = db_fail(db, _("cannot read the job"));
	}
	db_release(db, st);
	if (rc || (rc = job_not_cancelled(job_id, status)) != 0 ||
	    (rc = same_party(x, job_id, customer_id, currency)) != 0)
		return rc;

	rc = db_prepare_cached(db,
	                       "SELECT " ITEM_COLS " FROM line_item li"
	                       " JOIN service_order so ON so.id = li.service_order_id"
	                       " WHERE li.service_order_id = ? ORDER BY li.id",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, job_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t left = sqlite3_column_int64(st, 9);

		if (left > 0 && (rc = add_line(x, st, left)) != 0)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the line items"));
	db_release(db, st);
	if (!rc && (int)x->n_lines == before)
		rc = err_set(FD_ECONFLICT, _("job %lld has nothing left to invoice"),
		             (long long)job_id);
	return rc;
}

static int collect_item(struct issue_ctx *x, struct db *db, const struct invoice_pick *p)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare_cached(
	    db,
	    "SELECT " ITEM_COLS " FROM line_item li"
	    " JOIN service_order so ON so.id = li.service_order_id WHERE li.id = ?",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, p->item_id);
	step = sqlite3_step(st);
	if (step == SQLITE_DONE) {
		rc = err_set(FD_ENOTFOUND, _("there is no line item %lld"), (long long)p->item_id);
	} else if (step != SQLITE_ROW) {
		rc = db_fail(db, _("cannot read the line item"));
	} else {
		int64_t job = sqlite3_column_int64(st, 5), left = sqlite3_column_int64(st, 9);
		const char *cur = (const char *)sqlite3_column_text(st, 7);
		const char *status = (const char *)sqlite3_column_text(st, 8);
		char a[32], b[32];

		if ((rc = job_not_cancelled(job, status)) != 0 ||
		    (rc = same_party(x, job, sqlite3_column_int64(st, 6), cur ? cur : "")) != 0)
			goto out;
		if (left <= 0) {
			rc = err_set(FD_ECONFLICT, _("line item %lld is already fully invoiced"),
			             (long long)p->item_id);
		} else if (p->qty_milli > left) {
			qty_format(p->qty_milli, a, sizeof a);
			qty_format(left, b, sizeof b);
			rc = err_set(FD_EINVAL,
			             _("line item %lld: %s asked, but only %s is left to invoice"),
			             (long long)p->item_id, a, b);
		} else {
			rc = add_line(x, st, p->qty_milli ? p->qty_milli : left);
		}
	}
out:
	db_release(db, st);
	return rc;
}

static int insert_draft(struct db *db, const char *kind, int64_t customer_id, const char *currency,
                        int64_t credits_id, int allow_overpay, const char *note, int64_t now,
                        int64_t *id)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(
	    db,
	    "INSERT INTO invoice (kind, customer_id, currency, credits_id, allow_overpay,"
	    " note, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, customer_id);
	sqlite3_bind_text(st, 3, currency, -1, SQLITE_TRANSIENT);
	if (credits_id)
		sqlite3_bind_int64(st, 4, credits_id);
	sqlite3_bind_int(st, 5, allow_overpay);
	if (note && *note)
		sqlite3_bind_text(st, 6, note, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 7, now);
	sqlite3_bind_int64(st, 8, now);
	if ((rc = db_run_cached(db, st, _("cannot write the invoice"))) != 0)
		return rc;
	*id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

static int insert_line(struct db *db, int64_t invoice_id, const struct draft_line *l, int64_t now)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(
	    db,
	    "INSERT INTO invoice_line (invoice_id, line_item_id, kind, description,"
	    " qty_milli, unit_price, amount, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, invoice_id);
	if (l->item_id)
		sqlite3_bind_int64(st, 2, l->item_id);
	sqlite3_bind_text(st, 3, l->kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, l->description, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 5, l->qty_milli);
	sqlite3_bind_int64(st, 6, l->unit_price);
	sqlite3_bind_int64(st, 7, l->amount);
	sqlite3_bind_int64(st, 8, now);
	return db_run_cached(db, st, _("cannot write the invoice line"));
}

/* Take the next number of series for the year of `when` (shop time) and
 * issue the draft `id` with it: total, dates, status. */
static int finalize(struct db *db, int64_t id, const char *series, int64_t when, int64_t due_at,
                    int64_t total, int64_t balance, enum invoice_state status)
{
	sqlite3_stmt *st;
	struct docnum dn;
	int rc;

	if ((rc = docnum_take(db, series, when, &dn)) != 0)
		return rc;
	rc = db_prepare_cached(
	    db,
	    "UPDATE invoice SET number = ?, series = ?, year = ?, seq = ?, issued_at = ?,"
	    " due_at = ?, total = ?, balance = ?, status = ?, updated_at = ? WHERE id = ?",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, dn.number, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, series, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, dn.year);
	sqlite3_bind_int64(st, 4, dn.seq);
	sqlite3_bind_int64(st, 5, when);
	sqlite3_bind_int64(st, 6, due_at);
	sqlite3_bind_int64(st, 7, total);
	sqlite3_bind_int64(st, 8, balance);
	sqlite3_bind_text(st, 9, invoice_state_word(status), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 10, when);
	sqlite3_bind_int64(st, 11, id);
	return db_run_cached(db, st, _("cannot issue the invoice"));
}

static int issue_tx(struct db *db, void *arg, struct idem_result *res)
{
	struct issue_ctx *x = arg;
	const struct invoice_input *in = x->in;
	char buf[MONEY_BUFSZ], subject[64];
	int64_t id;
	size_t i;
	int rc = 0;

	if (in->n_jobs)
		snprintf(subject, sizeof subject, "issue invoice for job %lld",
		         (long long)in->jobs[0]);
	else if (in->customer_id)
		snprintf(subject, sizeof subject, "issue invoice for customer %lld",
		         (long long)in->customer_id);
	else
		snprintf(subject, sizeof subject, "issue an invoice");
	if ((rc = control_require(db, PERM_INVOICE_ISSUE, 0, subject)))
		return rc;
	drafts_free(x);
	x->customer_id = 0;
	x->total = 0;
	for (i = 0; i < in->n_jobs && !rc; i++)
		rc = collect_job(x, db, in->jobs[i]);
	for (i = 0; i < in->n_items && !rc; i++)
		rc = collect_item(x, db, &in->items[i]);
	if (rc)
		return rc;
	if (x->n_lines == 0)
		return err_set(FD_EINVAL, _("there is nothing to invoice"));
	if (x->total < 0)
		return err_set(FD_EINVAL,
		               _("the invoice total would be negative (%s %s): bill the discounted "
		                 "items together with their discounts"),
		               fmt(x->total, x->currency, buf), x->currency);
	if (x->total > MONEY_DOC_MAX)
		return err_set(FD_EINVAL, _("the invoice total is too large"));
	if ((rc = insert_draft(db, "invoice", x->customer_id, x->currency, 0, in->allow_overpay,
	                       in->note, x->now, &id)) != 0)
		return rc;
	for (i = 0; i < x->n_lines; i++)
		if ((rc = insert_line(db, id, &x->lines[i], x->now)) != 0)
			return rc;
	rc = finalize(db, id, "INV", x->now, x->due_at, x->total, x->total,
	              x->total == 0 ? INVOICE_PAID : INVOICE_ISSUED);
	if (rc || (rc = item_settle(db, id)))
		return rc;
	res->id = id;
	return 0;
}

int invoice_issue(struct db *db, const struct invoice_input *in, const char *idem_key,
                  struct idem_result *res)
{
	struct issue_ctx x;
	struct strbuf canon = {0};
	long terms = in->terms_days;
	size_t i;
	int rc;

	memset(res, 0, sizeof *res);
	if (in->n_jobs == 0 && in->n_items == 0)
		return err_set(FD_EINVAL, _("name the jobs or line items to invoice"));
	for (i = 0; i < in->n_items; i++)
		if (in->items[i].item_id <= 0 || in->items[i].qty_milli < 0)
			return err_set(FD_EINVAL, _("bad line item or quantity"));
	if (in->note && (rc = text_check(in->note, _("the note"), 2000, 1)) != 0)
		return rc;
	if (terms < 0)
		terms = config_get_int("invoice_terms_days", 30);
	if (terms < 0 || terms > TERMS_MAX_DAYS)
		return err_set(FD_EINVAL, _("payment terms must be 0 to %d days"), TERMS_MAX_DAYS);

	memset(&x, 0, sizeof x);
	x.in = in;
	x.now = clock_now();
	x.due_at = in->due_at ? in->due_at : clock_add_days(x.now, (int)terms);
	if (x.due_at < clock_day_start(x.now))
		return err_set(FD_EINVAL, _("the due date is before the issue date"));

	sb_printf(&canon, "customer=%lld\n", (long long)in->customer_id);
	for (i = 0; i < in->n_jobs; i++)
		sb_printf(&canon, "job=%lld\n", (long long)in->jobs[i]);
	for (i = 0; i < in->n_items; i++)
		sb_printf(&canon, "item=%lld:%lld\n", (long long)in->items[i].item_id,
		          (long long)in->items[i].qty_milli);
	sb_printf(&canon, "allow_overpay=%d\nterms=%ld\ndue=%lld\nnote=%s\n", in->allow_overpay,
	          in->terms_days, (long long)in->due_at, in->note ? in->note : "");
	rc = idem_run(db, idem_key, "invoice issue", sb_cstr(&canon), issue_tx, &x, res);
	sb_free(&canon);
	drafts_free(&x);
	return rc;
}

/* ------------------------------------------------------------ credit notes */

struct credit_ctx {
	int64_t id, amount;
	const char *reason;
};

static int credit_tx(struct db *db, void *arg, struct idem_result *res)
{
	struct credit_ctx *c = arg;
	struct invoice inv;
	struct draft_line l;
	char a[MONEY_BUFSZ], b[MONEY_BUFSZ], subject[64];
	int64_t now = clock_now(), cn;
	int rc;

	snprintf(subject, sizeof subject, "credit note for invoice %lld", (long long)c->id);
	if ((rc = control_require(db, PERM_CREDIT_NOTE, 0, subject)))
		return rc;
	if ((rc = invoice_get(db, c->id, &inv)) != 0)
		return rc;
	if (strcmp(inv.kind, "invoice") != 0)
		rc = err_set(FD_EINVAL, _("%s is a credit note; credit the invoice it corrects"),
		             inv.number);
	else if (invoice_takes_nothing(invoice_state_of(inv.status)))
		rc = err_set(FD_ECONFLICT, _("invoice %s is %s and cannot be credited"), inv.number,
		             inv.status);
	else if (c->amount > inv.balance)
		rc = err_set(FD_ECONFLICT,
		             _("invoice %s has %s %s left to pay; a credit note takes off at most "
		               "that (to credit %s, reverse its allocations first)"),
		             inv.number, fmt(inv.balance < 0 ? 0 : inv.balance, inv.currency, a),
		             inv.currency, fmt(c->amount, inv.currency, b));
	if (!rc)
		rc = day_refuse_in(db, now, _("no credit note is issued into it"));
	if (rc)
		goto out;
	if ((rc = insert_draft(db, "credit_note", inv.customer_id, inv.currency, inv.id, 0, NULL,
	                       now, &cn)) != 0)
		goto out;
	memset(&l, 0, sizeof l);
	snprintf(l.kind, sizeof l.kind, "CREDIT");
	l.description = (char *)c->reason;
	l.qty_milli = 1000;
	l.unit_price = c->amount;
	l.amount = -c->amount;
	if ((rc = insert_line(db, cn, &l, now)) != 0)
		goto out;
	if ((rc = finalize(db, cn, "CN", now, now, -c->amount, 0, INVOICE_ISSUED)) != 0)
		goto out;
	res->id = cn;
out:
	invoice_free(&inv);
	return rc;
}

int invoice_credit(struct db *db, int64_t id, int64_t amount, const char *reason,
                   const char *idem_key, struct idem_result *res)
{
	struct credit_ctx c = {id, amount, reason};
	char canon[600];
	int rc;

	memset(res, 0, sizeof *res);
	if (amount <= 0)
		return err_set(FD_EINVAL,
		               _("the amount of a credit note must be greater than zero"));
	if (amount > MONEY_DOC_MAX)
		return err_set(FD_EINVAL, _("the amount is too large"));
	if (!reason || !*reason)
		return err_set(FD_EINVAL, _("a credit note needs a reason"));
	if ((rc = text_check(reason, _("the reason"), 400, 0)) != 0)
		return rc;
	snprintf(canon, sizeof canon, "invoice=%lld\namount=%lld\nreason=%s\n", (long long)id,
	         (long long)amount, reason);
	return idem_run(db, idem_key, "invoice credit", canon, credit_tx, &c, res);
}

/* ------------------------------------------------------------ voiding */

struct void_ctx {
	int64_t id;
	const char *reason;
};

static int void_tx(struct db *db, void *arg)
{
	struct void_ctx *v = arg;
	struct invoice inv;
	sqlite3_stmt *st;
	char a[MONEY_BUFSZ], subject[64];
	int rc;

	snprintf(subject, sizeof subject, "void invoice %lld", (long long)v->id);
	if ((rc = control_require(db, PERM_VOID, 0, subject)))
		return rc;
	if ((rc = invoice_get(db, v->id, &inv)) != 0)
		return rc;
	if (strcmp(inv.kind, "invoice") != 0)
		rc = err_set(FD_EINVAL, _("%s is a credit note; credit notes are final"),
		             inv.number);
	else if (invoice_is_void(&inv))
		rc = err_set(FD_ECONFLICT, _("invoice %s is already void"), inv.number);
	else if (inv.paid != 0)
		rc = err_set(FD_ECONFLICT,
		             _("invoice %s has %s %s allocated from payments; reverse those "
		               "allocations first (frontdesk pay reverse)"),
		             inv.number, fmt(inv.paid, inv.currency, a), inv.currency);
	else if (inv.credited != 0)
		rc = err_set(FD_ECONFLICT,
		             _("invoice %s is corrected by a credit note and cannot be voided"),
		             inv.number);
	invoice_free(&inv);
	if (!rc)
		rc = day_refuse_in(db, clock_now(), _("no invoice is voided in it"));
	if (rc)
		return rc;
	rc = db_prepare(db, "UPDATE invoice SET status = 'void', updated_at = ? WHERE id = ?", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, clock_now());
	sqlite3_bind_int64(st, 2, v->id);
	db_set_reason(db, v->reason);
	rc = db_run(db, st, _("cannot void the invoice"));
	db_set_reason(db, NULL);
	/* what it billed is left to bill again, at the items' prices now */
	return rc ? rc : item_settle(db, v->id);
}

int invoice_void(struct db *db, int64_t id, const char *reason)
{
	struct void_ctx v = {id, reason};
	int rc;

	if (!reason || !*reason)
		return err_set(FD_EINVAL, _("voiding an invoice needs a reason"));
	if ((rc = text_check(reason, _("the reason"), 400, 0)) != 0)
		return rc;
	return db_write(db, void_tx, &v);
}

/* ---------------------------------------------------------------- reads for the screen */

/* Run st (already bound) and call cb with column 0 of each row. */
static int each_id(struct db *db, sqlite3_stmt *st, const char *what,
                   int (*cb)(int64_t id, void *arg), void *arg)
{
	int rc = 0, step;

	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		rc = cb(sqlite3_column_int64(st, 0), arg);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, what);
	sqlite3_finalize(st);
	return rc;
}

int invoice_of_job(struct db *db, int64_t job_id, int (*cb)(int64_t invoice_id, void *arg),
                   void *arg)
{
	static const char sql[] =
	    "SELECT DISTINCT i.id FROM line_item li "
	    "JOIN invoice_line il ON il.line_item_id = li.id "
	    "JOIN invoice i ON i.id = il.invoice_id "
	    "WHERE li.service_order_id = ?1 AND i.kind = 'invoice' AND i.status <> 'draft' "
	    "ORDER BY i.id";
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare(db, sql, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, job_id);
	return each_id(db, st, _("cannot read the invoices of a job"), cb, arg);
}

int invoice_job_unbilled(struct db *db, int64_t job_id, struct invoice_unbilled *out)
{
	sqlite3_stmt *st = NULL;
	int rc, step, found = 0;

	memset(out, 0, sizeof *out);
	/* the job row with its items (LEFT JOIN: a job without items has one
	 * row of NULLs) and what is left of each, as collect_job reads it */
	rc = db_prepare(db,
	                "SELECT so.currency, li.kind, li.unit_price, " REMAINING_SQL
	                " FROM service_order so"
	                " LEFT JOIN line_item li ON li.service_order_id = so.id"
	                " WHERE so.id = ?1 ORDER BY li.id",
	                &st);
	if (rc)
		goto out;
	sqlite3_bind_int64(st, 1, job_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t left = sqlite3_column_int64(st, 3), amount;
		const char *kind = (const char *)sqlite3_column_text(st, 1);

		if (!found)
			dbrow_copy(st, 0, out->currency, sizeof out->currency);
		found = 1;
		if (!kind || left <= 0)
			continue;
		if (line_signed_amount(kind, left, sqlite3_column_int64(st, 2), &amount) != 0 ||
		    money_add(out->total, amount, &out->total) != 0) {
			rc = err_set(FD_EINVAL, _("job %lld: what is left to bill is too large"),
			             (long long)job_id);
			goto out;
		}
		out->items++;
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read what is left to bill of a job"));
	else if (!found)
		rc = err_set(FD_ENOTFOUND, _("there is no job %lld"), (long long)job_id);
out:
	if (st)
		sqlite3_finalize(st);
	return rc;
}

int invoice_search(struct db *db, const char *text, int limit,
                   int (*cb)(int64_t invoice_id, void *arg), void *arg)
{
	static const char sql[] = "SELECT id FROM invoice WHERE number LIKE ?1 ESCAPE '\\' "
	                          "ORDER BY id DESC LIMIT ?2";
	sqlite3_stmt *st;
	size_t len = strlen(text), i, o = 0;
	char *pat;
	int rc;

	if (control_require(db, PERM_RECORDS_VIEW, 0, "look up invoices"))
		return FD_EPERM;
	if (len < 2)
		return err_set(FD_EINVAL, _("type at least 2 characters of an invoice number"));
	pat = xmalloc(2 * len + 3);
	pat[o++] = '%';
	for (i = 0; i < len; i++) {
		if (text[i] == '%' || text[i] == '_' || text[i] == '\\')
			pat[o++] = '\\';
		pat[o++] = text[i];
	}
	pat[o++] = '%';
	pat[o] = '\0';
	rc = db_prepare(db, sql, &st);
	if (rc == 0) {
		sqlite3_bind_text(st, 1, pat, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 2, limit > 0 ? limit : 50);
		rc = each_id(db, st, _("cannot search the invoices"), cb, arg);
	}
	free(pat);
	return rc;
}

/* ---------------------------------------------------------------- retention */

int invoice_retention_blocker(struct db *db, int64_t customer_id, char *why, size_t n)
{
	char num[64];
	int rc;

	rc = retention_first(db,
	                     "SELECT coalesce(number, 'draft ' || id) FROM invoice"
	                     " WHERE customer_id = ?1 AND " RETENTION_INVOICE_OWING
	                     " ORDER BY id LIMIT 1",
	                     customer_id, num, sizeof num);
	if (rc == 1) {
		snprintf(why, n, _("invoice %s has a balance"), num);
		return 1;
	}
	if (rc < 0)
		return rc;
	rc = retention_first(db,
	                     "SELECT coalesce(number, 'draft ' || id) FROM invoice"
	                     " WHERE customer_id = ?1 AND " RETENTION_INVOICE_OVERPAID
	                     " ORDER BY id LIMIT 1",
	                     customer_id, num, sizeof num);
	if (rc == 1)
		snprintf(why, n, _("invoice %s is overpaid: the shop owes the customer money"),
		         num);
	return rc;
}

int invoice_retention_purge(struct db *db, struct retention_purge_ctx *c)
{
	static const struct retention_stmt v[] = {
	    {"UPDATE invoice SET note = NULL WHERE customer_id = ?1 AND note IS NOT NULL",
	     N_("cannot clear the invoices")},
	    {"UPDATE invoice_his SET note = NULL WHERE customer_id = ?1 AND note IS NOT NULL",
	     N_("cannot clear the invoices' history")},
	    {"UPDATE invoice_line SET description = '" RETENTION_REMOVED "'"
	     " WHERE invoice_id IN (SELECT id FROM invoice WHERE customer_id = ?1)"
	     " AND description IS NOT '" RETENTION_REMOVED "'",
	     N_("cannot clear the invoice lines")},
	    {"UPDATE invoice_line_his SET description = '" RETENTION_REMOVED "'"
	     " WHERE invoice_id IN (SELECT id FROM invoice WHERE customer_id = ?1)"
	     " AND description IS NOT '" RETENTION_REMOVED "'",
	     N_("cannot clear the invoice lines' history")},
	    {"UPDATE status_flow SET reason = NULL WHERE entity = 'invoice' AND reason IS NOT NULL"
	     " AND entity_id IN (SELECT id FROM invoice WHERE customer_id = ?1)",
	     N_("cannot clear the invoices' status reasons")},
	};

	return retention_exec_all(db, v, sizeof v / sizeof v[0], c->customer_id);
}
