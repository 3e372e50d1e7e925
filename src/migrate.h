/*
 * migrate.h - the schema's numbered migrations and applying them.
 *
 * The migrations are the files data/schema/NNNN-name.sql, embedded into the
 * program at build time (schema-data.c is generated from them), so that an
 * installed binary needs no data files. Each applied migration is recorded in
 * schema_migration with its SHA-256, the time and its `destructive` flag (a
 * "-- frontdesk-migration: destructive=1" line in the file).
 */
#ifndef FD_MIGRATE_H
#define FD_MIGRATE_H

#include <stdint.h>

struct db;

struct migration {
	int version;
	const char *name;
	const char *sql;
	const char *sum; /* SHA-256 of sql in hex, computed when the program was
	                    built (data/embed-sql.sh), so that opening a database
	                    does not hash every migration; check_core checks it */
};

extern const struct migration fd_migrations[];
extern const int fd_n_migrations;

/* An earlier form of a landed migration (data/schema/EARLIER-FORMS): a
 * database made by a build that had it records this checksum; it is accepted
 * and the repair migration brings it to today's schema. */
struct earlier_form {
	int version;
	const char *sum;    /* SHA-256 of that form, in hex */
	const char *commit; /* the commit that made that form */
	int repaired_by;    /* the migration that repairs it */
};

extern const struct earlier_form fd_earlier_forms[];
extern const int fd_n_earlier_forms;

/* migrate_latest - the highest version this program knows. */
int migrate_latest(void);

/* migrate_check_and_apply - verify the recorded migrations (refusing a
 * database newer than this program before anything else, or one whose
 * applied migration's checksum is neither ours nor a known earlier form of
 * it) and apply every pending migration up to target
 * (-1: all; 0: apply nothing, only verify) in ONE write transaction, so that
 * a failure leaves the database as it was. Destructive migrations are applied
 * only with allow_destructive (see migrate_to). MIGRATE_REFUSE_PENDING as
 * target verifies and refuses a database that needs migrating (read-only). */
#define MIGRATE_REFUSE_PENDING (-2)
int migrate_check_and_apply(struct db *db, int target);

/* migrate_to - as above with an explicit target and destructive permission
 * (the `frontdesk migrate` command). */
int migrate_to(struct db *db, int target, int allow_destructive);

/* migrate_current - the highest applied version (0 for an empty database). */
int migrate_current(struct db *db, int *out);

/* migrate_created_at - when the database was made: the time (UTC seconds)
 * its first migration was applied. It never changes afterwards (a restored
 * backup keeps it), so exports use it to tell one shop's database from
 * another's. FD_ENOTFOUND when no migration is recorded. */
int migrate_created_at(struct db *db, int64_t *out);

/* migrate_sha256_hex - the checksum we record for sql (65 bytes out). */
void migrate_sha256_hex(const char *sql, char out[65]);

#endif
