/*
 * report.c - receivables aging, takings and customer statements (see
 * report.h).
 *
 * Invariant: each report reads one consistent snapshot (one SQL statement,
 * or one read transaction) of the maintained figures and the posted rows.
 * The aging reads only the covering partial indexes of 0003-billing.sql for
 * open invoices and unallocated payments, two streams in (customer,
 * currency) order that are merged here, with the customers' names read in
 * id order, and sorted by name at the end: one pass over each index and no
 * lookup per row, so that it stays fast on a million invoices
 * (bench/MONEY-RESULTS.md). The customers' names are read by id only for
 * the rows found (stepping through the customer table where the rows are
 * close together, seeking where they are far apart), so that the cost grows
 * with what is open, not with every customer ever entered
 * (bench/AGING-RESULTS.md). Days are shop days: bucket limits are midnights
 * computed with clock_add_days (DST-safe).
 *
 * Permissions: the reports ask reports before they read (a customer's own
 * balance, report_customer_aging, asks records.view).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "money.h"
#include "report.h"
#include "xalloc.h"

/* One row of the aging report while it is being put together. */
struct aging_acc {
	int64_t customer_id;
	char *name;
	char *key; /* name with ASCII letters folded to lower case: NOCASE's order by strcmp */
	char currency[4];
	int64_t bucket[AGING_BUCKETS];
	int64_t credit;
};

/* By customer name (SQLite's NOCASE: ASCII letters folded), then id, then
 * currency: the order the report has always had. */
static int aging_order(const void *pa, const void *pb)
{
	const struct aging_acc *a = pa, *b = pb;
	/* sqlite3_stricmp's order: it compares the bytes folded the same way */
	int c = strcmp(a->key, b->key);

	if (c)
		return c;
	if (a->customer_id != b->customer_id)
		return a->customer_id < b->customer_id ? -1 : 1;
	return strcmp(a->currency, b->currency);
}

/* One of the two ordered streams (open invoices, payments with credit):
 * its statement and its current row, read once per step (each column
 * call costs a lock and a check in SQLite). */
struct stream {
	sqlite3_stmt *st;
	int step;         /* the last sqlite3_step result */
	int64_t id;       /* customer_id */
	char currency[4]; /* truncated as snprintf's "%s" would */
	int64_t v[2];     /* the next columns: due_at, balance; or the credit */
	int nv;           /* how many of v the statement has */
};

static void stream_next(struct stream *s)
{
	const unsigned char *cur;
	size_t i = 0;
	int k;

	s->step = sqlite3_step(s->st);
	if (s->step != SQLITE_ROW)
		return;
	s->id = sqlite3_column_int64(s->st, 0);
	cur = sqlite3_column_text(s->st, 1);
	for (; cur && cur[i] && i < sizeof s->currency - 1; i++)
		s->currency[i] = (char)cur[i];
	s->currency[i] = '\0';
	for (k = 0; k < s->nv; k++)
		s->v[k] = sqlite3_column_int64(s->st, 2 + k);
}

/* Compare the (customer, currency) key of the stream's row with acc's. */
static int key_cmp(const struct stream *s, const struct aging_acc *acc)
{
	if (s->id != acc->customer_id)
		return s->id < acc->customer_id ? -1 : 1;
	return strcmp(s->currency, acc->currency);
}

/* Take the (customer, currency) key of the stream's row into acc. */
static void key_take(const struct stream *s, struct aging_acc *acc)
{
	acc->customer_id = s->id;
	memcpy(acc->currency, s->currency, sizeof acc->currency);
}

/* A row of the customer table this far ahead (in ids) is sought afresh
 * rather than stepped to: a seek costs about as much as stepping over a few
 * dozen rows. */
#define NAME_SEEK_GAP 48

/* Position ns (SELECT id, name FROM customer WHERE id >= ?1 ORDER BY id) on
 * customer id, stepping or seeking; *step is ns's last sqlite3_step result.
 * Returns 1 when ns's row is customer id, 0 when there is none (or a step
 * failed: *step says which). */
static int name_find(sqlite3_stmt *ns, int *step, int64_t id)
{
	if (*step == SQLITE_ROW && sqlite3_column_int64(ns, 0) < id &&
	    id - sqlite3_column_int64(ns, 0) > NAME_SEEK_GAP)
		*step = SQLITE_DONE; /* far ahead: seek */
	if (*step != SQLITE_ROW || sqlite3_column_int64(ns, 0) > id) {
		sqlite3_reset(ns);
		sqlite3_bind_int64(ns, 1, id);
		*step = sqlite3_step(ns);
	}
	while (*step == SQLITE_ROW && sqlite3_column_int64(ns, 0) < id)
		*step = sqlite3_step(ns);
	return *step == SQLITE_ROW && sqlite3_column_int64(ns, 0) == id;
}

/* A copy of name and, in the same allocation, its key for aging_order. */
static void name_take(struct aging_acc *acc, const unsigned char *name)
{
	size_t len = strlen(name ? (const char *)name : ""), i;

	acc->name = xmalloc(2 * len + 2);
	memcpy(acc->name, name ? (const char *)name : "", len + 1);
	acc->key = acc->name + len + 1;
	for (i = 0; i <= len; i++) {
		unsigned char ch = (unsigned char)acc->name[i];

		acc->key[i] = (char)(ch >= 'A' && ch <= 'Z' ? ch + ('a' - 'A') : ch);
	}
}

/* One computation of the aging report: its statements, where they stand
 * and the rows gathered so far. */
struct aging_scan {
	struct stream b;                  /* the open invoices */
	struct stream c;                  /* the payments with credit */
	sqlite3_stmt *ns;                 /* SELECT id, name FROM customer ... */
	int nstep;                        /* ns's last sqlite3_step result */
	int64_t limit[AGING_BUCKETS - 1]; /* limit[i]: the earliest due date of bucket i */
	int64_t orphan;                   /* a customer with money and no customer row */
	int64_t overflow;                 /* a customer whose amounts are too large to add */
	struct aging_acc *rows;
	size_t n, cap;
};

/* Prepare the scan's three statements (bound to customer_id unless 0). */
static int aging_prepare(struct db *db, int64_t customer_id, struct aging_scan *sc)
{
	int rc;

	/* The open invoices and the payments with credit, each read from its
	 * covering index (invoice_open_aging, payment_with_credit) in
	 * (customer, currency) order, so that neither needs a sort or a row
	 * lookup; the WHERE of the invoices is that of the index word for
	 * word. Summing is done here: cheaper than SQL aggregates. */
	rc = db_prepare(db,
	                customer_id ? "SELECT customer_id, currency, due_at, balance FROM invoice"
	                              " WHERE (status = 'issued' OR status = 'partially_paid'"
	                              "  OR status = 'overpaid') AND customer_id = ?1"
	                              " ORDER BY customer_id, currency"
	                            : "SELECT customer_id, currency, due_at, balance FROM invoice"
	                              " WHERE status = 'issued' OR status = 'partially_paid'"
	                              "  OR status = 'overpaid'"
	                              " ORDER BY customer_id, currency",
	                &sc->b.st);
	if (!rc)
		rc = db_prepare(db,
		                customer_id
		                    ? "SELECT customer_id, currency, amount - allocated - refunded"
		                      " FROM payment WHERE status IN ('unallocated',"
		                      " 'partially_allocated') AND customer_id = ?1"
		                      " ORDER BY customer_id, currency"
		                    : "SELECT customer_id, currency, amount - allocated - refunded"
		                      " FROM payment WHERE status IN ('unallocated',"
		                      " 'partially_allocated')"
		                      " ORDER BY customer_id, currency",
		                &sc->c.st);
	if (!rc)
		rc = db_prepare(db, "SELECT id, name FROM customer WHERE id >= ?1 ORDER BY id",
		                &sc->ns);
	if (rc)
		return rc;
	if (customer_id) {
		sqlite3_bind_int64(sc->b.st, 1, customer_id);
		sqlite3_bind_int64(sc->c.st, 1, customer_id);
	}
	sc->b.nv = 2;
	sc->c.nv = 1;
	return 0;
}

/* The bucket of an invoice due at due. */
static int aging_bucket(const int64_t *limit, int64_t due)
{
	int i;

	for (i = 0; i < AGING_BUCKETS - 1 && due < limit[i]; i++)
		;
	return i;
}

/* Sum into key the rows of both streams that have the smaller (customer,
 * currency) key, stepping past them; *owed gets the invoices' balances.
 * Sets sc->overflow when a sum is too large. */
static void aging_sum_key(struct aging_scan *sc, struct aging_acc *key, int64_t *owed)
{
	struct stream *b = &sc->b, *c = &sc->c;
	int i;

	key_take(b->step == SQLITE_ROW ? b : c, key);
	if (b->step == SQLITE_ROW && c->step == SQLITE_ROW && key_cmp(c, key) < 0)
		key_take(c, key);
	for (; b->step == SQLITE_ROW && key_cmp(b, key) == 0; stream_next(b)) {
		i = aging_bucket(sc->limit, b->v[0]);
		if (money_add(key->bucket[i], b->v[1], &key->bucket[i]) ||
		    money_add(*owed, b->v[1], owed))
			sc->overflow = key->customer_id;
	}
	for (; c->step == SQLITE_ROW && key_cmp(c, key) == 0; stream_next(c))
		if (money_add(key->credit, c->v[0], &key->credit))
			sc->overflow = key->customer_id;
}

/* Merge the two ordered streams into sc->rows, one row per (customer,
 * currency) that owes or has credit, named from the customers (by id);
 * stops at an overflow, an orphan or a failed step. */
static void aging_collect(struct aging_scan *sc)
{
	stream_next(&sc->b);
	stream_next(&sc->c);
	sc->nstep = SQLITE_DONE; /* nothing read yet: the first name_find seeks */
	while (sc->b.step == SQLITE_ROW || sc->c.step == SQLITE_ROW) {
		struct aging_acc key = {0};
		int64_t owed = 0;

		aging_sum_key(sc, &key, &owed);
		if (sc->overflow)
			break;
		if (owed == 0 && key.credit == 0) /* owes nothing, has no credit */
			continue;
		if (!name_find(sc->ns, &sc->nstep, key.customer_id)) {
			if (sc->nstep == SQLITE_ROW || sc->nstep == SQLITE_DONE)
				sc->orphan =
				    key.customer_id; /* the foreign keys make it impossible */
			break;
		}
		name_take(&key, sqlite3_column_text(sc->ns, 1));
		if (sc->n == sc->cap) {
			sc->cap = sc->cap ? 2 * sc->cap : 256;
			sc->rows = xrealloc(sc->rows, sc->cap * sizeof *sc->rows);
		}
		sc->rows[sc->n++] = key;
	}
}

static int step_ended_well(int step)
{
	return step == SQLITE_ROW || step == SQLITE_DONE;
}

/* 0 when the scan went through, else why not. */
static int aging_outcome(struct db *db, const struct aging_scan *sc)
{
	if (!step_ended_well(sc->b.step) || !step_ended_well(sc->c.step) ||
	    !step_ended_well(sc->nstep))
		return db_fail(db, _("cannot compute the aging report"));
	if (sc->overflow)
		return err_set(FD_EINVAL, _("the amounts of customer %lld are too large to add up"),
		               (long long)sc->overflow);
	if (sc->orphan)
		return err_set(FD_EDB,
		               _("the aging report found money of customer %lld, who does "
		                 "not exist; run frontdesk check"),
		               (long long)sc->orphan);
	return 0;
}

/* Sort the rows into the report's order and hand each to cb, until one
 * returns non-zero. */
static int aging_emit(struct aging_scan *sc, int (*cb)(const struct aging_row *r, void *arg),
                      void *arg)
{
	size_t k;
	int rc = 0, i;

	if (sc->n)
		qsort(sc->rows, sc->n, sizeof *sc->rows, aging_order);
	for (k = 0; k < sc->n && !rc; k++) {
		const struct aging_acc *r = &sc->rows[k];
		struct aging_row out;

		memset(&out, 0, sizeof out);
		out.customer_id = r->customer_id;
		out.customer_name = r->name;
		memcpy(out.currency, r->currency, sizeof out.currency);
		for (i = 0; i < AGING_BUCKETS; i++) {
			out.bucket[i] = r->bucket[i];
			out.owed += r->bucket[i];
		}
		out.credit = r->credit;
		rc = cb(&out, arg);
	}
	return rc;
}

/* The aging of every customer (customer_id 0) or of one: the same rows
 * and sums either way, only the WHERE differs (for one customer the
 * indexes are searched by customer_id instead of read whole). */
static int aging(struct db *db, int64_t on, int64_t customer_id,
                 int (*cb)(const struct aging_row *r, void *arg), void *arg)
{
	int64_t day = clock_day_start(on);
	struct aging_scan sc = {0};
	size_t k;
	int rc;

	/* due on `on`'s day or later: current; the day before: 1 day past due;
	 * limit[i] is the earliest due date of bucket i */
	sc.limit[AGING_CURRENT] = day;
	sc.limit[AGING_1_30] = clock_add_days(day, -30);
	sc.limit[AGING_31_60] = clock_add_days(day, -60);
	sc.limit[AGING_61_90] = clock_add_days(day, -90);
	/* one read transaction: one snapshot for the three statements */
	if ((rc = db_exec(db, "BEGIN")) != 0)
		return rc;
	if ((rc = aging_prepare(db, customer_id, &sc)) != 0)
		goto out;
	aging_collect(&sc);
	if ((rc = aging_outcome(db, &sc)) != 0)
		goto out;
	rc = aging_emit(&sc, cb, arg);
out:
	for (k = 0; k < sc.n; k++)
		free(sc.rows[k].name);
	free(sc.rows);
	sqlite3_finalize(sc.b.st);
	sqlite3_finalize(sc.c.st);
	sqlite3_finalize(sc.ns);
	db_rollback(db);
	return rc;
}

int report_aging(struct db *db, int64_t on, int (*cb)(const struct aging_row *r, void *arg),
                 void *arg)
{
	int rc = control_require(db, PERM_REPORTS, 0, "report of what is owed");

	return rc ? rc : aging(db, on, 0, cb, arg);
}

int report_customer_aging(struct db *db, int64_t customer_id, int64_t on,
                          int (*cb)(const struct aging_row *r, void *arg), void *arg)
{
	int rc;

	if (customer_id <= 0)
		return err_set(FD_EINVAL, _("there is no customer %lld"), (long long)customer_id);
	/* one customer's balance, on the customer's own screens: a record */
	if ((rc = control_require(db, PERM_RECORDS_VIEW, 0, "what a customer owes")))
		return rc;
	return aging(db, on, customer_id, cb, arg);
}

int report_takings(struct db *db, int64_t from, int64_t to,
                   int (*cb)(const struct takings_row *r, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = control_require(db, PERM_REPORTS, 0, "report of takings")))
		return rc;
	rc = db_prepare(
	    db,
	    "SELECT day, method, currency, sum(n), sum(received), sum(refunded), sum(fee) FROM ("
	    " SELECT date(received_at, 'unixepoch', 'localtime') AS day, method, currency,"
	    "  1 AS n, amount AS received, 0 AS refunded, 0 AS fee FROM payment"
	    "  WHERE status <> 'void' AND received_at >= ?1 AND received_at < ?2"
	    " UNION ALL"
	    " SELECT date(r.refunded_at, 'unixepoch', 'localtime'), r.method, p.currency,"
	    "  0, 0, r.amount, 0 FROM refund r JOIN payment p ON p.id = r.payment_id"
	    "  WHERE r.status = 'succeeded' AND r.refunded_at >= ?1 AND r.refunded_at < ?2"
	    /* the channel's fees reconciliation recorded: a charge's on its
	     * payment's row, a refund's on the refund's (both read through
	     * the day's index, then the fee's by payment) */
	    " UNION ALL"
	    " SELECT date(p.received_at, 'unixepoch', 'localtime'), p.method, p.currency,"
	    "  0, 0, 0, f.fee FROM payment p JOIN reconciliation_fee f ON f.payment_id = p.id"
	    "  WHERE f.refund_id IS NULL AND p.status <> 'void'"
	    "  AND p.received_at >= ?1 AND p.received_at < ?2"
	    " UNION ALL"
	    " SELECT date(r.refunded_at, 'unixepoch', 'localtime'), r.method, p.currency,"
	    "  0, 0, 0, f.fee FROM refund r JOIN payment p ON p.id = r.payment_id"
	    "  JOIN reconciliation_fee f ON f.payment_id = r.payment_id AND f.refund_id = r.id"
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
		dbrow_copy(st, 0, r.day, sizeof r.day);
		dbrow_copy(st, 1, r.method, sizeof r.method);
		dbrow_copy(st, 2, r.currency, sizeof r.currency);
		r.count = sqlite3_column_int64(st, 3);
		r.received = sqlite3_column_int64(st, 4);
		r.refunded = sqlite3_column_int64(st, 5);
		r.fees = sqlite3_column_int64(st, 6);
		if (money_sub(r.received, r.refunded, &r.net) ||
		    money_sub(r.net, r.fees, &r.net_after_fees)) {
			rc = err_set(FD_EINVAL, _("the takings of %s overflow"), r.day);
			break;
		}
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
	if ((rc = control_require(db, PERM_REPORTS, 0, "statement of a customer")) != 0)
		return rc;
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

int report_currencies(struct db *db, int64_t id, char cur[][4], int max, int *n)
{
	sqlite3_stmt *st;
	int rc, step;

	*n = 0;
	rc = db_prepare(db,
	                "SELECT currency FROM invoice WHERE customer_id = ?1 UNION"
	                " SELECT currency FROM payment WHERE customer_id = ?1 ORDER BY 1",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW && *n < max) {
		const unsigned char *s = sqlite3_column_text(st, 0);

		snprintf(cur[(*n)++], 4, "%s", s ? (const char *)s : "");
	}
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the customer's currencies"));
	sqlite3_finalize(st);
	return rc;
}

int report_invoiced(struct db *db, int64_t from, int64_t to,
                    int (*cb)(const char *currency, int64_t count, int64_t total, void *arg),
                    void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = control_require(db, PERM_REPORTS, 0, "report of what was invoiced")))
		return rc;
	if ((rc = db_prepare_cached(db,
	                            "SELECT currency, count(*), sum(total) FROM invoice"
	                            " WHERE kind = 'invoice' AND status NOT IN ('draft', 'void')"
	                            " AND issued_at >= ?1 AND issued_at < ?2"
	                            " GROUP BY currency ORDER BY currency",
	                            &st)))
		return rc;
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		char cur[4];

		dbrow_copy(st, 0, cur, sizeof cur);
		if ((rc = cb(cur, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2), arg)))
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot sum what was invoiced"));
	db_release(db, st);
	return rc;
}
