/*
 * desk.c - read queries for the desk screen (see desk.h). Each is one
 * statement with bound parameters; LIKE patterns escape the person's % and _.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "desk.h"
#include "err.h"
#include "i18n.h"
#include "xalloc.h"

int desk_readonly(struct db *db)
{
	return sqlite3_db_readonly(db_sqlite(db), "main") == 1;
}

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

int desk_job_invoices(struct db *db, int64_t job_id, int (*cb)(int64_t invoice_id, void *arg),
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

int desk_invoice_search(struct db *db, const char *text, int limit,
                        int (*cb)(int64_t invoice_id, void *arg), void *arg)
{
	static const char sql[] = "SELECT id FROM invoice WHERE number LIKE ?1 ESCAPE '\\' "
	                          "ORDER BY id DESC LIMIT ?2";
	sqlite3_stmt *st;
	size_t len = strlen(text), i, o = 0;
	char *pat;
	int rc;

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
