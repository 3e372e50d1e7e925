/*
 * db.h - one SQLite connection, opened the way every part of frontdesk needs.
 *
 * A connection is in WAL mode with synchronous=FULL (a committed cash payment
 * must survive a power cut), foreign keys on and a busy timeout. It has the
 * SQL functions the schema's triggers call: fd_operator() (who is working),
 * fd_now() (the program's clock) and fd_reason() (why a status changes),
 * and fd_digits(text), the digits of a text, for the customer search.
 * One connection per thread; never share one across fork().
 *
 * Every write goes through db_begin_write()/db_commit() (BEGIN IMMEDIATE,
 * retried a bounded number of times when another process holds the lock).
 *
 * Long work (a full calendar rebuild, an export, a backup) must never make a
 * desk wait: it writes in short transactions and calls db_yield() between
 * them, and a waiting connection looks at the lock every millisecond, so a
 * desk's payment gets in at the next pause. A reader that held one snapshot
 * for long (an export, a backup) calls db_checkpoint() once it has ended it,
 * and every connection has a journal_size_limit, so the -wal that grew
 * meanwhile is copied back and cut to its usual size.
 */
#ifndef FD_DB_H
#define FD_DB_H

#include <sqlite3.h>
#include <stdint.h>

struct db;

enum {
	DB_OPEN_CREATE = 1,    /* create the file (0600) and its folder (0700); fsmode.h */
	DB_OPEN_READONLY = 2,  /* never write; refuse an out-of-date schema */
	DB_OPEN_NO_MIGRATE = 4 /* do not apply pending migrations (migrate command) */
};

/* db_default_path - the path to use when none is given: FRONTDESK_DB, else
 * $XDG_DATA_HOME/frontdesk/frontdesk.db, else ~/.local/share/frontdesk/...;
 * in a setgid frontdesk (privs.h) FRONTDESK_DB, else DATADIR/frontdesk.db
 * (config_data_dir), and the caller holds either to the data folder.
 * Returns a new string the caller frees. */
char *db_default_path(void);

/* db_open - open (and with DB_OPEN_CREATE create) the database at path and
 * bring its schema up to date. A frontdesk database is one with a
 * schema_migration table. Only DB_OPEN_CREATE makes one: at a path that does
 * not exist yet, or from a zero-byte file or an SQLite database with nothing
 * in it. Anything else is refused before a byte is written: an empty file
 * (without DB_OPEN_CREATE), a file that is not SQLite, another program's
 * SQLite database, an SQLite file shorter than its header says (a copy cut
 * short) (FD_ESCHEMA; a missing file is FD_ENOTFOUND). On error returns a
 * negative FD_E* code with the reason in err_msg() and *out is NULL. */
int db_open(const char *path, int flags, struct db **out);
/* (db_open is defined in migrate.c, above this module: it is db_connect,
 * then migrate_check_and_apply, then db_discard if that fails.) */

/* db_connect - db_open without the schema's migrations: the file checks,
 * creation, SQLite's settings. *created is 1 when this call made the file,
 * *readonly when it will not write (DB_OPEN_READONLY, or a file this user
 * may not write). Only db_open should call it. */
int db_connect(const char *path, int flags, struct db **out, int *created, int *readonly);

/* db_discard - close db after a failed open; a file the open created
 * (created = 1) and left blank is removed again, unless another process
 * made it a frontdesk database meanwhile. err_msg() is kept. */
void db_discard(struct db *db, int created);

/* db_check_file - look at the file at path as db_open does before SQLite
 * reads it, without SQLite and without changing anything: FD_ESCHEMA (with
 * the reason in err_msg()) when it is an SQLite file shorter than its
 * header says, FD_EIO when it cannot be read, else 0 (whatever else it is:
 * the caller's own checks say whether it is a frontdesk database). For a
 * file read through SQLite directly (a backup to restore). */
int db_check_file(const char *path);

/* db_close - close the connection (NULL is fine). */
void db_close(struct db *db);

/* db_open_raw_readonly - open the SQLite file at path read-only with a raw
 * handle (no frontdesk checks), leaving nothing beside it: as an immutable
 * file when no session has it open (no -wal, -shm or -journal beside it),
 * else through the sessions' -wal and -shm. For reading a file that is not
 * the live database (a backup to restore). sqlite3_open_v2's result; *out
 * is set as by sqlite3_open_v2 (the caller closes it either way). */
int db_open_raw_readonly(const char *path, sqlite3 **out);

/* db_sqlite - the raw handle, for the core's modules only. */
sqlite3 *db_sqlite(struct db *db);

/* db_path - the file this connection is on. */
const char *db_path(const struct db *db);

/* The SQLite application id of a frontdesk database ("FDK1"), set by
 * migration 0013: the open reads it from the file's header to know the file
 * is ours before doing anything that writes. */
#define DB_APPLICATION_ID 1178880817

/* db_begin_write - BEGIN IMMEDIATE, retried with backoff while the database
 * is locked by another writer; FD_EBUSY after the bounded retries. */
int db_begin_write(struct db *db);

/* db_commit - COMMIT; on failure the transaction is rolled back. */
int db_commit(struct db *db);

/* db_rollback - ROLLBACK if a transaction is open; never fails. */
void db_rollback(struct db *db);

/* db_write - run fn(db, arg) inside one write transaction (db_begin_write):
 * commit when fn returns 0, otherwise roll back and return fn's code. This is
 * the shape of every desk action. Called inside a transaction that is
 * already open (one action made of several owners' writes), it runs fn in a
 * savepoint instead: a refused fn leaves nothing, and the open transaction's
 * own commit or rollback decides for everything. */
int db_write(struct db *db, int (*fn)(struct db *db, void *arg), void *arg);

/* db_run - step a prepared statement that returns no rows, then finalize it
 * (always). 0, or a code from db_fail(db, what). */
int db_run(struct db *db, sqlite3_stmt *st, const char *what);

/* db_exec - run SQL with no results; FD_EDB/FD_EINVAL with a reason. */
int db_exec(struct db *db, const char *sql);

/* db_prepare - compile one statement; FD_EDB with a reason on failure. */
int db_prepare(struct db *db, const char *sql, sqlite3_stmt **st);

/* db_fail - turn the connection's last SQLite error into an FD_E* code and a
 * reason that begins with `what`. Constraint and trigger refusals map to
 * FD_EINVAL, locks to FD_EBUSY, the rest to FD_EDB. */
int db_fail(struct db *db, const char *what);

/* db_set_reason - text that fd_reason() returns to triggers until cleared
 * with NULL (the reason recorded in status flows). */
void db_set_reason(struct db *db, const char *reason);

/* db_data_version - PRAGMA data_version: changes when another connection
 * commits. Cheap; for "has anything changed" polling. */
int64_t db_data_version(struct db *db);

/* db_operator - the login name of the person running the program: the
 * login of the process's real user id (under sudo, the user sudo runs as).
 * Never NULL. */
const char *db_operator(void);

/* db_operator_pretend - FOR THE UNIT TESTS ONLY: from now on this process
 * is login (to test what each role may do without Unix accounts). No file
 * of the program calls it (tests/house/pretend.sh). */
void db_operator_pretend(const char *login);

/* db_staff_ctx - the slot where staff.c keeps its state of this connection
 * (plain memory that db_close frees). For staff.c only. */
void **db_staff_ctx(struct db *db);

/* db_one_int - run a query with one integer result (binding nothing). */
int db_one_int(struct db *db, const char *sql, int64_t *out);

/* db_prepare_cached - like db_prepare, for statements run again and again
 * (compiling one that fires triggers costs far more than running it): the
 * statement stays compiled on this connection and is found again by the
 * ADDRESS of sql, which must be a string literal (or live as long as db).
 * Never finalize it: give it back with db_release (or db_run_cached) on every
 * path, so that it holds no read snapshot. db_close finalizes them all. */
int db_prepare_cached(struct db *db, const char *sql, sqlite3_stmt **st);

/* db_release - reset a statement from db_prepare_cached and clear its
 * bindings. */
void db_release(struct db *db, sqlite3_stmt *st);

/* db_run_cached - db_run for a statement from db_prepare_cached: step it
 * (no rows expected), then release it. */
int db_run_cached(struct db *db, sqlite3_stmt *st, const char *what);

/* db_run_moved - db_run_cached for an UPDATE of one row behind a guard:
 * *moved (may be NULL) gets 1 when it changed exactly one row, else 0
 * (the row was not in a state the guard lets move, or the step failed). */
int db_run_moved(struct db *db, sqlite3_stmt *st, const char *what, int *moved);

/* db_set_busy_timeout - how long (ms, 0: not at all) this connection waits
 * for a lock another connection holds before a statement fails with
 * SQLITE_BUSY (db_begin_write then retries a few times). 5000 from
 * db_open; tests make it short. */
void db_set_busy_timeout(struct db *db, int ms);

/* db_yield - long work calls this between two of its transactions, holding
 * none: a pause of a few milliseconds in which a waiting desk takes the
 * write lock (see busy_wait in db.c). */
void db_yield(struct db *db);

/* db_checkpoint - a PASSIVE checkpoint: copy what the -wal holds into the
 * database as far as no reader still needs it, without waiting for any lock
 * and without blocking writers. Long work calls it after its last
 * transaction (outside any transaction; inside one, or read-only, it does
 * nothing), so that the next commit finds the -wal copied, starts it again
 * and cuts it back to its usual size, instead of a desk's commit paying for
 * the copy. 0, or FD_EIO/FD_EDB when the copy failed (not when busy). */
int db_checkpoint(struct db *db);

/* db_cache_grow - give this connection a page cache of at least kib KiB
 * for the length of some long work (a batch dirties or looks up far more
 * pages than a desk's default cache holds, and reads the same index pages
 * again and again); *saved gets the size to give back with
 * db_cache_restore. A cache already that large is left as it is. */
void db_cache_grow(struct db *db, int kib, int64_t *saved);

/* db_cache_restore - give the connection back the page cache size saved
 * by db_cache_grow. */
void db_cache_restore(struct db *db, int64_t saved);

/* db_readonly - 1 when db was opened read-only, else 0. */
int db_readonly(struct db *db);

#endif
