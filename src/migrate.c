/*
 * migrate.c - verifying and applying the embedded schema migrations.
 *
 * Invariants: migrations are applied in version order inside one
 * BEGIN IMMEDIATE transaction that re-reads schema_migration after taking the
 * write lock, so two processes opening a new database at once apply each
 * migration exactly once; a failure rolls everything back.
 */
#include <config.h>

#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "crypto-dyn.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "migrate.h"
#include "staff.h"

#define MAX_MIGRATIONS 256

static const char create_table_sql[] =
    "CREATE TABLE IF NOT EXISTS schema_migration ("
    " version INTEGER PRIMARY KEY,"
    " name TEXT NOT NULL,"
    " checksum TEXT NOT NULL,"
    " applied_at INTEGER NOT NULL,"
    " destructive INTEGER NOT NULL CHECK (destructive IN (0, 1)))";

void migrate_sha256_hex(const char *sql, char out[65])
{
	crypto_sha256_hex(sql, strlen(sql), out); /* "" on failure: matches no checksum */
}

int migrate_latest(void)
{
	return fd_n_migrations ? fd_migrations[fd_n_migrations - 1].version : 0;
}

static int is_destructive(const struct migration *m)
{
	return strstr(m->sql, "-- frontdesk-migration: destructive=1") != NULL;
}

/* A migration that edits the text of existing CREATE statements in
 * sqlite_schema (SQLite's documented way to relax a CHECK constraint that
 * every stored row already satisfies, lang_altertable.html, "making other
 * kinds of table schema changes": no row is rewritten, however large the
 * table). */
static int is_schema_edit(const struct migration *m)
{
	return strstr(m->sql, "-- frontdesk-migration: schema-edit=1") != NULL;
}

/* Run m's SQL with writable_schema on, then bump the schema version so that
 * every connection (this one too) reads the edited schema again, and read
 * it at once: an edit that does not parse fails here and the migration's
 * transaction rolls back. */
static int apply_schema_edit(struct db *db, const struct migration *m)
{
	sqlite3 *h = db_sqlite(db);
	int64_t v = 0, n = 0;
	char sql[64];
	int rc, ok;

	if ((rc = db_one_int(db, "PRAGMA schema_version", &v)) != 0 ||
	    (rc = db_exec(db, "PRAGMA writable_schema = ON")) != 0)
		return rc;
	ok = sqlite3_exec(h, m->sql, NULL, NULL, NULL) == SQLITE_OK;
	if (!ok)
		rc = db_fail(db, m->name);
	snprintf(sql, sizeof sql, "PRAGMA schema_version = %lld", (long long)v + 1);
	if (!rc)
		rc = db_exec(db, sql);
	db_exec(db, "PRAGMA writable_schema = OFF");
	if (!rc)
		rc = db_one_int(db, "SELECT count(*) FROM sqlite_schema", &n);
	return rc;
}

static const struct migration *find(int version)
{
	int i;

	for (i = 0; i < fd_n_migrations; i++)
		if (fd_migrations[i].version == version)
			return &fd_migrations[i];
	return NULL;
}

static int table_exists(struct db *db, int *exists)
{
	int64_t n = 0;
	int rc = db_one_int(db,
	                    "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND "
	                    "name = 'schema_migration'",
	                    &n);

	*exists = n > 0;
	return rc;
}

/* The repair migration of an earlier form of version v with checksum sum,
 * or 0 when sum is no known earlier form of v. */
static int earlier_form(int v, const char *sum)
{
	int i;

	for (i = 0; i < fd_n_earlier_forms; i++)
		if (fd_earlier_forms[i].version == v && !strcmp(fd_earlier_forms[i].sum, sum))
			return fd_earlier_forms[i].repaired_by;
	return 0;
}

/* Refuse a database made by a newer frontdesk before anything else: its
 * older rows may hold forms this program has never seen, and "altered" would
 * send the shop to a backup that does not help. */
static int refuse_newer(struct db *db)
{
	int64_t newest = 0;
	int rc = db_one_int(db, "SELECT coalesce(max(version), 0) FROM schema_migration", &newest);

	if (rc)
		return rc;
	if (newest > migrate_latest())
		return err_set(
		    FD_ESCHEMA,
		    _("the database %s was made by a newer frontdesk (schema %d; this "
		      "one knows schema %d): open it with that frontdesk or a newer one"),
		    db_path(db), (int)newest, migrate_latest());
	return 0;
}

/*
 * Read the applied versions into applied[] (a flag per version) and verify
 * each against the embedded migrations: its checksum is ours, or a known
 * earlier form of it (data/schema/EARLIER-FORMS), which its repair migration
 * brings to today's schema. Sets *max_applied.
 */
static int verify(struct db *db, unsigned char applied[MAX_MIGRATIONS], int *max_applied)
{
	sqlite3_stmt *st = NULL;
	int rc, step;

	memset(applied, 0, MAX_MIGRATIONS);
	*max_applied = 0;
	rc = refuse_newer(db);
	if (rc)
		return rc;
	rc = db_prepare(db, "SELECT version, name, checksum FROM schema_migration ORDER BY version",
	                &st);
	if (rc)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int v = sqlite3_column_int(st, 0);
		const char *sum = (const char *)sqlite3_column_text(st, 2);
		const struct migration *m = find(v);
		const char *want;

		if (v < 1 || v >= MAX_MIGRATIONS || !m) {
			rc = err_set(FD_ESCHEMA, _("the database records unknown migration %d"), v);
			goto out;
		}
		want = m->sum;
		if (!sum || (strcmp(sum, want) != 0 && !earlier_form(v, sum))) {
			rc = err_set(
			    FD_ESCHEMA,
			    _("migration %d (%s) applied to %s has checksum %.16s..., which "
			      "is neither this frontdesk's (%.16s...) nor a known earlier "
			      "form of it: the schema was changed outside frontdesk; restore "
			      "a backup"),
			    v, m->name, db_path(db), sum ? sum : "(none)", want);
			goto out;
		}
		applied[v] = 1;
		if (v > *max_applied)
			*max_applied = v;
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read schema_migration"));
out:
	sqlite3_finalize(st);
	return rc;
}

int migrate_current(struct db *db, int *out)
{
	unsigned char applied[MAX_MIGRATIONS];
	int exists, rc;

	*out = 0;
	rc = table_exists(db, &exists);
	if (rc || !exists)
		return rc;
	return verify(db, applied, out);
}

int migrate_created_at(struct db *db, int64_t *out)
{
	sqlite3_stmt *st;
	int rc, step;

	rc =
	    db_prepare(db, "SELECT applied_at FROM schema_migration ORDER BY version LIMIT 1", &st);
	if (rc)
		return rc;
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, _("the database records no migration"));
	else
		rc = db_fail(db, _("cannot read schema_migration"));
	sqlite3_finalize(st);
	return rc;
}

static int apply_one(struct db *db, const struct migration *m)
{
	sqlite3_stmt *st;
	const char *sum = m->sum;
	int rc;

	if (is_schema_edit(m)) {
		if ((rc = apply_schema_edit(db, m)) != 0)
			return rc;
	} else if (sqlite3_exec(db_sqlite(db), m->sql, NULL, NULL, NULL) != SQLITE_OK) {
		return db_fail(db, m->name);
	}
	rc = db_prepare(db,
	                "INSERT INTO schema_migration (version, name, checksum, applied_at, "
	                "destructive) VALUES (?, ?, ?, ?, ?)",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int(st, 1, m->version);
	sqlite3_bind_text(st, 2, m->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, sum, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, clock_now());
	sqlite3_bind_int(st, 5, is_destructive(m));
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = db_fail(db, _("cannot record the migration"));
	sqlite3_finalize(st);
	return rc;
}

/* *exists = 1 when the database has a staff register (migration 0023). */
static int has_register(struct db *db, int *exists)
{
	int64_t n = 0;
	int rc = db_one_int(
	    db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'staff'", &n);

	*exists = n > 0;
	return rc;
}

int migrate_to(struct db *db, int target, int allow_destructive)
{
	unsigned char applied[MAX_MIGRATIONS];
	int exists, max_applied, rc, i, pending = 0;
	char sql[64];

	if (target < 0 || target > migrate_latest())
		target = migrate_latest();
	rc = table_exists(db, &exists);
	if (rc)
		return rc;
	if (exists) {
		rc = verify(db, applied, &max_applied);
		if (rc)
			return rc;
		for (i = 0; i < fd_n_migrations; i++)
			if (fd_migrations[i].version <= target &&
			    !applied[fd_migrations[i].version])
				pending++;
		if (!pending)
			return 0;
	}
	if (target == 0)
		return 0;
	rc = db_begin_write(db);
	if (rc)
		return rc;
	/* re-read under the write lock: another process may have migrated */
	if ((rc = db_exec(db, create_table_sql)) != 0 ||
	    (rc = verify(db, applied, &max_applied)) != 0)
		goto fail;
	/* from 0023 on, migrating is the owner's (staff.h) */
	if ((rc = has_register(db, &exists)) != 0)
		goto fail;
	if (exists) {
		snprintf(sql, sizeof sql, "migrate the schema to version %d", target);
		if ((rc = staff_require(db, PERM_MIGRATE, 0, sql)) != 0)
			goto fail;
	}
	for (i = 0; i < fd_n_migrations; i++) {
		const struct migration *m = &fd_migrations[i];

		if (m->version > target || applied[m->version])
			continue;
		if (is_destructive(m) && !allow_destructive) {
			rc = err_set(FD_ESCHEMA,
			             _("migration %d (%s) changes existing data: back up %s, then "
			               "run 'frontdesk migrate --allow-destructive'"),
			             m->version, m->name, db_path(db));
			goto fail;
		}
		if ((rc = apply_one(db, m)) != 0)
			goto fail;
		if (m->version > max_applied)
			max_applied = m->version;
	}
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", max_applied);
	if ((rc = db_exec(db, sql)) != 0)
		goto fail;
	return db_commit(db);
fail:
	db_rollback(db);
	return rc;
}

int migrate_check_and_apply(struct db *db, int target)
{
	unsigned char applied[MAX_MIGRATIONS];
	int exists, max_applied, rc, i;

	if (target != 0 && target != MIGRATE_REFUSE_PENDING)
		return migrate_to(db, target, 0);
	/* verify only: read-only connections and the migrate command */
	rc = table_exists(db, &exists);
	if (rc)
		return rc;
	if (!exists)
		return 0;
	rc = verify(db, applied, &max_applied);
	if (rc)
		return rc;
	for (i = 0; i < fd_n_migrations; i++)
		if (!applied[fd_migrations[i].version] && target == MIGRATE_REFUSE_PENDING)
			return err_set(FD_ESCHEMA,
			               _("the database %s needs schema migration %d: open it once "
			                 "without --read-only"),
			               db_path(db), fd_migrations[i].version);
	return 0;
}

int db_open(const char *path, int flags, struct db **out)
{
	struct db *db;
	int rc, created, readonly, known = 0;

	*out = NULL;
	if ((rc = db_connect(path, flags, &db, &created, &readonly)) != 0)
		return rc;
	rc = migrate_check_and_apply(db, readonly                       ? MIGRATE_REFUSE_PENDING
	                                 : (flags & DB_OPEN_NO_MIGRATE) ? 0
	                                                                : -1);
	if (!rc && (rc = has_register(db, &known)) == 0 && known)
		rc = staff_admit(db);
	if (rc) {
		db_discard(db, created);
		return rc;
	}
	*out = db;
	return 0;
}
