/*
 * report.c - receivables aging, takings and customer statements (see
 * report.h).
 *
 * Invariant: each report is one SQL statement (one consistent snapshot) over
 * the maintained figures and the posted rows, using the partial indexes of
 * 0003-billing.sql for open invoices and unallocated payments, so that the
 * aging of a large history is one indexed pass. Days are shop days: bucket
 * limits are midnights computed with clock_add_days (DST-safe).
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "report.h"

static void col_copy(sqlite3_stmt *st, int i, char *buf, size_t n)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	snprintf(buf, n, "%s", s ? (const char *)s : "");
}

int report_aging(struct db *db, int64_t on, int (*cb)(const struct aging_row *r, void *arg),
                 void *arg)
{
	int64_t day = clock_day_start(on);
	sqlite3_stmt *st;
	int rc, step, i;

	rc = db_prepare(
	    db,
	    "WITH b AS (SELECT customer_id, currency,"
	    "  sum(CASE WHEN due_at >= ?1 THEN balance ELSE 0 END) AS b0,"
	    "  sum(CASE WHEN due_at < ?1 AND due_at >= ?2 THEN balance ELSE 0 END) AS b1,"
	    "  sum(CASE WHEN due_at < ?2 AND due_at >= ?3 THEN balance ELSE 0 END) AS b2,"
	    "  sum(CASE WHEN due_at < ?3 AND due_at >= ?4 THEN balance ELSE 0 END) AS b3,"
	    "  sum(CASE WHEN due_at < ?4 THEN balance ELSE 0 END) AS b4"
	    /* word for word the WHERE of the index invoice_open_aging, which
	     * holds every column used here: the report reads only that index */
	    "  FROM invoice WHERE status = 'issued' OR status = 'partially_paid'"
	    "   OR status = 'overpaid'"
	    "  GROUP BY customer_id, currency),"
	    " c AS (SELECT customer_id, currency, sum(amount - allocated - refunded) AS cr"
	    "  FROM payment WHERE status IN ('unallocated', 'partially_allocated')"
	    "  GROUP BY customer_id, currency),"
	    " k AS (SELECT customer_id, currency FROM b UNION SELECT customer_id, currency"
	    "  FROM c)"
	    " SELECT k.customer_id, cu.name, k.currency, coalesce(b.b0, 0), coalesce(b.b1, 0),"
	    "  coalesce(b.b2, 0), coalesce(b.b3, 0), coalesce(b.b4, 0), coalesce(c.cr, 0)"
	    " FROM k JOIN customer cu ON cu.id = k.customer_id"
	    " LEFT JOIN b ON b.customer_id = k.customer_id AND b.currency = k.currency"
	    " LEFT JOIN c ON c.customer_id = k.customer_id AND c.currency = k.currency"
	    " ORDER BY cu.name COLLATE NOCASE, k.customer_id, k.currency",
	    &st);
	if (rc)
		return rc;
	/* due on `on`'s day or later: current; the day before: 1 day past due */
	sqlite3_bind_int64(st, 1, day);
	sqlite3_bind_int64(st, 2, clock_add_days(day, -30));
	sqlite3_bind_int64(st, 3, clock_add_days(day, -60));
	sqlite3_bind_int64(st, 4, clock_add_days(day, -90));
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct aging_row r;

		memset(&r, 0, sizeof r);
		r.customer_id = sqlite3_column_int64(st, 0);
		r.customer_name = (const char *)sqlite3_column_text(st, 1);
		col_copy(st, 2, r.currency, sizeof r.currency);
		for (i = 0; i < AGING_BUCKETS; i++) {
			r.bucket[i] = sqlite3_column_int64(st, 3 + i);
			r.owed += r.bucket[i];
		}
		r.credit = sqlite3_column_int64(st, 8);
		if (r.owed == 0 && r.credit == 0)
			continue;
		if ((rc = cb(&r, arg)) != 0)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot compute the aging report"));
	sqlite3_finalize(st);
	return rc;
}

int report_takings(struct db *db, int64_t from, int64_t to,
                   int (*cb)(const struct takings_row *r, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare(
	    db,
	    "SELECT day, method, currency, sum(n), sum(received), sum(refunded) FROM ("
	    " SELECT date(received_at, 'unixepoch', 'localtime') AS day, method, currency,"
	    "  1 AS n, amount AS received, 0 AS refunded FROM payment"
	    "  WHERE status <> 'void' AND received_at >= ?1 AND received_at < ?2"
	    " UNION ALL"
	    " SELECT date(r.refunded_at, 'unixepoch', 'localtime'), r.method, p.currency,"
	    "  0, 0, r.amount FROM refund r JOIN payment p ON p.id = r.payment_id"
	    "  WHERE r.status = 'succeeded' AND r.refunded_at >= ?1 AND r.refunded_at < ?2)"
	    " GROUP BY day, method, currency ORDER BY day, method, currency",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct takings_row r;

		memset(&r, 0, sizeof r);
		col_copy(st, 0, r.day, sizeof r.day);
		col_copy(st, 1, r.method, sizeof r.method);
		col_copy(st, 2, r.currency, sizeof r.currency);
		r.count = sqlite3_column_int64(st, 3);
		r.received = sqlite3_column_int64(st, 4);
		r.refunded = sqlite3_column_int64(st, 5);
		if ((rc = cb(&r, arg)) != 0)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot compute the takings"));
	sqlite3_finalize(st);
	return rc;
}

/* The events of one customer in one currency; `sort` orders events of the
 * same second: documents, then payments, their allocations, refunds. */
static const char statement_sql[] =
    "SELECT at, kind, id, ref, target, amount, allocated FROM ("
    " SELECT issued_at AS at, 1 AS sort, kind, id, number AS ref, NULL AS target,"
    "  total AS amount, 0 AS allocated FROM invoice"
    "  WHERE customer_id = ?1 AND currency = ?2 AND status NOT IN ('draft', 'void')"
    " UNION ALL"
    " SELECT received_at, 2, 'payment', id, method || coalesce(' ' || reference, ''), NULL,"
    "  -amount, 0 FROM payment WHERE customer_id = ?1 AND currency = ?2 AND status <> 'void'"
    " UNION ALL"
    " SELECT a.created_at, 3, 'allocation', a.id, 'payment ' || a.payment_id, i.number, 0,"
    "  CASE WHEN a.reverses_id IS NULL THEN a.amount ELSE -a.amount END"
    "  FROM payment_allocation a JOIN payment p ON p.id = a.payment_id"
    "  JOIN invoice i ON i.id = a.invoice_id WHERE p.customer_id = ?1 AND p.currency = ?2"
    " UNION ALL"
    " SELECT r.refunded_at, 4, 'refund', r.id, r.method || coalesce(' ' || r.reference, ''),"
    "  'payment ' || r.payment_id, r.amount, 0 FROM refund r JOIN payment p"
    "  ON p.id = r.payment_id WHERE p.customer_id = ?1 AND p.currency = ?2"
    "  AND r.status <> 'failed')"
    " ORDER BY at, sort, id";

static int statement_figures(struct db *db, int64_t customer_id, const char *currency,
                             struct statement_totals *t)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare(
	    db,
	    "SELECT (SELECT coalesce(sum(balance), 0) FROM invoice WHERE customer_id = ?1"
	    "  AND currency = ?2 AND kind = 'invoice' AND status NOT IN ('draft', 'void')),"
	    " (SELECT coalesce(sum(amount - allocated - refunded), 0) FROM payment"
	    "  WHERE customer_id = ?1 AND currency = ?2 AND status <> 'void')",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, customer_id);
	sqlite3_bind_text(st, 2, currency, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW) {
		t->open = sqlite3_column_int64(st, 0);
		t->credit = sqlite3_column_int64(st, 1);
	} else {
		rc = db_fail(db, _("cannot compute the statement"));
	}
	sqlite3_finalize(st);
	return rc;
}

int report_statement(struct db *db, int64_t customer_id, const char *currency,
                     int (*cb)(const struct statement_line *l, void *arg), void *arg,
                     struct statement_totals *totals)
{
	struct statement_totals t;
	sqlite3_stmt *st;
	int rc, step;
	int64_t n = 0;

	memset(&t, 0, sizeof t);
	/* one read transaction: the lines and the totals agree */
	if ((rc = db_exec(db, "BEGIN")) != 0)
		return rc;
	rc = db_prepare(db, "SELECT count(*) FROM customer WHERE id = ?", &st);
	if (rc)
		goto out;
	sqlite3_bind_int64(st, 1, customer_id);
	n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (!n) {
		rc = err_set(FD_ENOTFOUND, _("there is no customer %lld"), (long long)customer_id);
		goto out;
	}
	if ((rc = db_prepare(db, statement_sql, &st)) != 0)
		goto out;
	sqlite3_bind_int64(st, 1, customer_id);
	sqlite3_bind_text(st, 2, currency, -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct statement_line l;

		memset(&l, 0, sizeof l);
		l.at = sqlite3_column_int64(st, 0);
		l.kind = (const char *)sqlite3_column_text(st, 1);
		l.id = sqlite3_column_int64(st, 2);
		l.ref = (const char *)sqlite3_column_text(st, 3);
		l.target = (const char *)sqlite3_column_text(st, 4);
		l.amount = sqlite3_column_int64(st, 5);
		l.allocated = sqlite3_column_int64(st, 6);
		if (!strcmp(l.kind, "invoice"))
			t.invoiced += l.amount;
		else if (!strcmp(l.kind, "credit_note"))
			t.credited -= l.amount;
		else if (!strcmp(l.kind, "payment"))
			t.received -= l.amount;
		else if (!strcmp(l.kind, "refund"))
			t.refunded += l.amount;
		t.balance += l.amount;
		l.balance = t.balance;
		if (cb && (rc = cb(&l, arg)) != 0)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot compute the statement"));
	sqlite3_finalize(st);
	if (!rc)
		rc = statement_figures(db, customer_id, currency, &t);
	if (!rc && totals)
		*totals = t;
out:
	db_rollback(db);
	return rc;
}
