/*
 * retention-mod.c - the helpers the owning modules' purges and blockers use
 * (retention-mod.h). They stand below both the owners and the process
 * manager (retention.c), so that an owner that purges never calls back into
 * the manager that calls it.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "crypto-dyn.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "retention-mod.h"

int retention_exec_id(struct db *db, const char *sql, int64_t id, const char *what)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare_cached(db, sql, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	return db_run_cached(db, st, what);
}

int retention_exec_all(struct db *db, const struct retention_stmt *v, size_t n, int64_t id)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < n; i++)
		rc = retention_exec_id(db, v[i].sql, id, _(v[i].what));
	return rc;
}

void retention_stub(const char *deletion_id, char *buf, size_t n)
{
	snprintf(buf, n, "{\"removed\":\"retention\",\"deletion_id\":\"%s\"}", deletion_id);
}

int retention_exec_needles(struct db *db, const char *sql, const char *stub, int blob,
                           const char *const *needles, size_t n, int64_t *rows, const char *what)
{
	sqlite3_stmt *st;
	size_t i;
	int rc;

	if (rows)
		*rows = 0;
	if ((rc = db_prepare_cached(db, sql, &st)))
		return rc;
	for (i = 0; !rc && i < n; i++) {
		if (!needles[i] || !*needles[i])
			continue;
		sqlite3_reset(st);
		if (blob)
			sqlite3_bind_blob(st, 1, stub, (int)strlen(stub), SQLITE_TRANSIENT);
		else
			sqlite3_bind_text(st, 1, stub, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, needles[i], -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = db_fail(db, what);
		else if (rows)
			*rows += sqlite3_changes(db_sqlite(db));
	}
	db_release(db, st);
	return rc;
}

int retention_first(struct db *db, const char *sql, int64_t id, char *buf, size_t n)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare_cached(db, sql, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		if (buf)
			dbrow_copy(st, 0, buf, n);
		rc = 1;
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot check what keeps the customer's data"));
	}
	db_release(db, st);
	return rc;
}

int retention_hash(const char *deletion_id, int64_t customer_id, char out[65])
{
	char ref[80];
	int n = snprintf(ref, sizeof ref, "%s:customer:%lld", deletion_id, (long long)customer_id);

	return crypto_sha256_hex(ref, (size_t)n, out);
}
