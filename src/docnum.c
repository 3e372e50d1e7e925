/*
 * docnum.c - document numbers, one counter per series and year.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "db.h"
#include "docnum.h"
#include "i18n.h"

int docnum_take(struct db *db, const char *series, int64_t when, struct docnum *out)
{
	sqlite3_stmt *st;
	char ybuf[16];
	int rc;

	memset(out, 0, sizeof *out);
	clock_format_local(when, "%Y", ybuf, sizeof ybuf);
	out->year = strtol(ybuf, NULL, 10);
	rc = db_prepare_cached(
	    db,
	    "INSERT INTO document_counter (series, year, last) VALUES (?1, ?2, 1)"
	    " ON CONFLICT (series, year) DO UPDATE SET last = last + 1 RETURNING last",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, series, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, out->year);
	if (sqlite3_step(st) == SQLITE_ROW)
		out->seq = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, _("cannot take the next document number"));
	db_release(db, st);
	if (rc)
		return rc;
	snprintf(out->number, sizeof out->number, "%s-%04ld-%06lld", series, out->year,
	         (long long)out->seq);
	return 0;
}
