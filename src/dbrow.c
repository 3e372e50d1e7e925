/*
 * dbrow.c - row and column helpers (see dbrow.h). Callers: the owning
 * modules of the records (customer, invoice, payment, work, ...).
 */
#include <config.h>

#include <stdio.h>

#include "db.h"
#include "dbrow.h"
#include "xalloc.h"

char *dbrow_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? xstrdup((const char *)s) : NULL;
}

void dbrow_copy(sqlite3_stmt *st, int i, char *buf, size_t n)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	snprintf(buf, n, "%s", s ? (const char *)s : "");
}

int dbrow_get(struct db *db, const char *sql, int64_t id, void (*fill)(sqlite3_stmt *st, void *out),
              void *out, const char *fail_msg, int *found)
{
	sqlite3_stmt *st;
	int rc, step;

	*found = 0;
	if ((rc = db_prepare_cached(db, sql, &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		fill(st, out);
		*found = 1;
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, fail_msg);
	}
	db_release(db, st);
	return rc;
}
