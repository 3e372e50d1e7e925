/*
 * export-csv.c - writing the CSV exports (see export-csv.h).
 *
 * Each record kind but visits is one table below: an SQL statement (?1 and
 * ?2 bound to the range) and what each of its columns is, which decides how
 * the cell is written. Visits come from their owner (visit_list_range).
 *
 * Permissions: an export asks reports before it reads.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "control.h"
#include "csv.h"
#include "db.h"
#include "err.h"
#include "export-csv.h"
#include "export.h"
#include "i18n.h"
#include "money.h"
#include "visit.h"

#define TIME_CELL "%Y-%m-%d %H:%M:%S"

enum col_kind {
	COL_INT,   /* an integer (ids, counts); empty when NULL */
	COL_TEXT,  /* text: neutralised against formulas */
	COL_TIME,  /* UTC seconds, written in shop time */
	COL_DATE,  /* UTC seconds, written as the shop day */
	COL_MONEY, /* minor units of the currency in column `cur` */
};

struct col {
	const char *name;
	enum col_kind kind;
	int cur; /* COL_MONEY: index of the currency column */
};

struct table {
	const char *name;
	const char *sql;
	const struct col *cols;
	int ncols;
};

static const struct col customer_cols[] = {
    {"id", COL_INT, 0},          {"name", COL_TEXT, 0},       {"phone", COL_TEXT, 0},
    {"email", COL_TEXT, 0},      {"address", COL_TEXT, 0},    {"note", COL_TEXT, 0},
    {"created_at", COL_TIME, 0}, {"updated_at", COL_TIME, 0},
};

static const struct col invoice_cols[] = {
    {"id", COL_INT, 0},       {"number", COL_TEXT, 0},     {"kind", COL_TEXT, 0},
    {"credits", COL_TEXT, 0}, {"customer_id", COL_INT, 0}, {"customer_name", COL_TEXT, 0},
    {"status", COL_TEXT, 0},  {"currency", COL_TEXT, 0},   {"issued_at", COL_TIME, 0},
    {"due_on", COL_DATE, 0},  {"total", COL_MONEY, 7},     {"credited", COL_MONEY, 7},
    {"paid", COL_MONEY, 7},   {"balance", COL_MONEY, 7},
};

static const struct col payment_cols[] = {
    {"id", COL_INT, 0},          {"received_at", COL_TIME, 0},
    {"customer_id", COL_INT, 0}, {"customer_name", COL_TEXT, 0},
    {"method", COL_TEXT, 0},     {"reference", COL_TEXT, 0},
    {"status", COL_TEXT, 0},     {"currency", COL_TEXT, 0},
    {"amount", COL_MONEY, 7},    {"allocated", COL_MONEY, 7},
    {"refunded", COL_MONEY, 7},  {"note", COL_TEXT, 0},
};

static const struct col allocation_cols[] = {
    {"id", COL_INT, 0},
    {"created_at", COL_TIME, 0},
    {"payment_id", COL_INT, 0},
    {"invoice_id", COL_INT, 0},
    {"invoice_number", COL_TEXT, 0},
    {"customer_id", COL_INT, 0},
    {"customer_name", COL_TEXT, 0},
    {"currency", COL_TEXT, 0},
    {"amount", COL_MONEY, 7},
    {"reverses_id", COL_INT, 0},
    {"reason", COL_TEXT, 0},
};

#define NCOLS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const struct table tables[] = {
    {"customers",
     "SELECT id, name, phone, email, address, note, created_at, updated_at FROM customer"
     " WHERE created_at >= ?1 AND created_at < ?2 ORDER BY created_at, id",
     customer_cols, NCOLS(customer_cols)},
    {"invoices",
     "SELECT i.id, i.number, i.kind, t.number, i.customer_id, c.name, i.status, i.currency,"
     " i.issued_at, i.due_at, i.total, i.credited, i.paid, i.balance"
     " FROM invoice i JOIN customer c ON c.id = i.customer_id"
     " LEFT JOIN invoice t ON t.id = i.credits_id"
     " WHERE i.status <> 'draft' AND i.issued_at >= ?1 AND i.issued_at < ?2"
     " ORDER BY i.issued_at, i.id",
     invoice_cols, NCOLS(invoice_cols)},
    {"payments",
     "SELECT p.id, p.received_at, p.customer_id, c.name, p.method, p.reference, p.status,"
     " p.currency, p.amount, p.allocated, p.refunded, p.note"
     " FROM payment p JOIN customer c ON c.id = p.customer_id"
     " WHERE p.received_at >= ?1 AND p.received_at < ?2 ORDER BY p.received_at, p.id",
     payment_cols, NCOLS(payment_cols)},
    {"allocations",
     "SELECT a.id, a.created_at, a.payment_id, a.invoice_id, i.number, p.customer_id, c.name,"
     " p.currency, CASE WHEN a.reverses_id IS NULL THEN a.amount ELSE -a.amount END,"
     " a.reverses_id, a.reason"
     " FROM payment_allocation a JOIN payment p ON p.id = a.payment_id"
     " JOIN invoice i ON i.id = a.invoice_id JOIN customer c ON c.id = p.customer_id"
     " WHERE a.created_at >= ?1 AND a.created_at < ?2 ORDER BY a.created_at, a.id",
     allocation_cols, NCOLS(allocation_cols)},
};

static const struct col visit_cols[] = {
    {"id", COL_INT, 0},          {"start_at", COL_TIME, 0},   {"end_at", COL_TIME, 0},
    {"status", COL_TEXT, 0},     {"customers", COL_TEXT, 0},  {"services", COL_TEXT, 0},
    {"est_minutes", COL_INT, 0}, {"location", COL_TEXT, 0},   {"note", COL_TEXT, 0},
    {"created_at", COL_TIME, 0}, {"updated_at", COL_TIME, 0},
};

const char export_csv_names[] = "customers, visits, invoices, payments, allocations";

int export_csv_known(const char *name)
{
	size_t i;

	if (!strcmp(name, "visits"))
		return 1;
	for (i = 0; i < sizeof tables / sizeof tables[0]; i++)
		if (!strcmp(name, tables[i].name))
			return 1;
	return 0;
}

static void put_header(FILE *out, const struct col *cols, int n)
{
	int i;

	for (i = 0; i < n; i++)
		csv_put(out, cols[i].name, i == n - 1 ? CSV_LAST : 0);
}

static void put_int(FILE *out, int64_t v, int flags)
{
	char b[24];

	snprintf(b, sizeof b, "%lld", (long long)v);
	csv_put(out, b, flags);
}

static void put_time(FILE *out, int64_t t, const char *fmt, int flags)
{
	char b[40];

	clock_format_local(t, fmt, b, sizeof b);
	csv_put(out, b, flags);
}

/* One row of a table: each column by its kind. */
static int put_row(FILE *out, const struct table *t, sqlite3_stmt *st)
{
	char m[MONEY_BUFSZ];
	int i;

	for (i = 0; i < t->ncols; i++) {
		const struct col *c = &t->cols[i];
		int flags = i == t->ncols - 1 ? CSV_LAST : 0;

		if (sqlite3_column_type(st, i) == SQLITE_NULL) {
			csv_put(out, NULL, flags);
			continue;
		}
		switch (c->kind) {
		case COL_INT:
			put_int(out, sqlite3_column_int64(st, i), flags);
			break;
		case COL_TEXT:
			csv_put(out, (const char *)sqlite3_column_text(st, i), flags | CSV_TEXT);
			break;
		case COL_TIME:
			put_time(out, sqlite3_column_int64(st, i), TIME_CELL, flags);
			break;
		case COL_DATE:
			put_time(out, sqlite3_column_int64(st, i), "%Y-%m-%d", flags);
			break;
		case COL_MONEY: {
			const char *code = (const char *)sqlite3_column_text(st, c->cur);

			if (money_format(sqlite3_column_int64(st, i), currency_find(code), 0, m,
			                 sizeof m) != 0 ||
			    !currency_find(code))
				return err_set(FD_EINVAL, _("%s %lld: unknown currency '%.10s'"),
				               t->name, (long long)sqlite3_column_int64(st, 0),
				               code ? code : "");
			csv_put(out, m, flags);
			break;
		}
		}
	}
	return ferror(out) ? FD_EIO : 0;
}

static int put_table(struct db *db, const struct table *t, const struct export_range *r, FILE *out,
                     int64_t *n)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare(db, t->sql, &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, r->from);
	sqlite3_bind_int64(st, 2, r->to);
	put_header(out, t->cols, t->ncols);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if ((rc = put_row(out, t, st)) != 0)
			break;
		(*n)++;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot export the records"));
	sqlite3_finalize(st);
	return rc;
}

struct csv_visit_ctx {
	FILE *out;
	int64_t n;
};

static int visit_cb(const struct visit *a, void *arg)
{
	struct csv_visit_ctx *v = arg;
	FILE *out = v->out;

	put_int(out, a->id, 0);
	put_time(out, a->start_at, TIME_CELL, 0);
	put_time(out, a->end_at, TIME_CELL, 0);
	csv_put(out, a->status, CSV_TEXT);
	csv_put(out, a->customers, CSV_TEXT);
	csv_put(out, a->services, CSV_TEXT);
	put_int(out, a->est_minutes, 0);
	csv_put(out, a->location, CSV_TEXT);
	csv_put(out, a->note, CSV_TEXT);
	put_time(out, a->created_at, TIME_CELL, 0);
	put_time(out, a->updated_at, TIME_CELL, CSV_LAST);
	v->n++;
	return ferror(out) ? FD_EIO : 0;
}

int export_csv(struct db *db, const char *name, const struct export_range *r, FILE *out,
               int64_t *n_out)
{
	const struct table *t = NULL;
	int64_t n = 0;
	size_t i;
	int rc;

	if (n_out)
		*n_out = 0;
	/* a read: asked before it starts, outside any transaction */
	if ((rc = control_require(db, PERM_REPORTS, 0, "export the records as CSV")))
		return rc;
	for (i = 0; i < sizeof tables / sizeof tables[0]; i++)
		if (!strcmp(name, tables[i].name))
			t = &tables[i];
	if (!t && strcmp(name, "visits"))
		return err_set(FD_EINVAL, _("cannot export '%.40s': the CSV exports are %s"), name,
		               export_csv_names);
	if ((rc = db_exec(db, "BEGIN")) != 0)
		return rc;
	if (t) {
		rc = put_table(db, t, r, out, &n);
	} else {
		struct csv_visit_ctx v = {out, 0};

		put_header(out, visit_cols, NCOLS(visit_cols));
		rc = visit_list_range(db, r->from, r->to, visit_cb, &v);
		n = v.n;
	}
	if (rc == FD_EIO || (!rc && (fflush(out) != 0 || ferror(out))))
		rc = err_set(FD_EIO, _("cannot write the export"));
	if (!rc && n_out)
		*n_out = n;
	db_rollback(db);
	return rc;
}
