/*
 * db.c - opening connections, write transactions and the SQL functions used
 * by the schema's triggers (see db.h).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "db.h"
#include "err.h"
#include "fsmode.h"
#include "i18n.h"
#include "privs.h"
#include "settings.h"
#include "xalloc.h"

#define BUSY_TIMEOUT_MS 5000
#define WRITE_RETRIES   5
#define BUSY_POLL_US    1000      /* how often a waiting connection looks at the lock */
#define WAL_LIMIT       "4194304" /* bytes a -wal is cut back to once checkpointed */
#define YIELD_MS        3         /* room long work leaves between its batches */

#define STMT_CACHE 48 /* statements kept compiled by db_prepare_cached */

struct db {
	sqlite3 *h;
	char *path;
	char *reason; /* for fd_reason(); NULL when no status change is explained */
	int readonly;
	int ro_file;           /* read-only because this user cannot write the file */
	int busy_ms;           /* the busy timeout: how long a lock is waited for */
	int64_t busy_since_us; /* when the current wait began (busy_wait) */
	struct {
		const char *sql; /* the caller's string literal, compared by address */
		sqlite3_stmt *st;
	} cache[STMT_CACHE];
	int ncache;
	void *staff_ctx; /* staff.c's state of this connection (plain memory) */
};

static char operator_name[64];

/* Fill operator_name, once per process (pthread_once: the screen's threads
 * fire triggers that ask for it, and the first two may ask at once): the
 * login of the real user id, never an environment variable (SUDO_USER,
 * LOGNAME) or the terminal's login (getlogin): the staff register admits by
 * this name (staff.h). A user id without a passwd entry is "uid-N". */
static void find_operator(void)
{
	struct passwd pwbuf, *pw = NULL;
	char buf[4096];

	if (operator_name[0])
		return; /* db_operator_pretend (tests) */
	if (getpwuid_r(getuid(), &pwbuf, buf, sizeof buf, &pw) == 0 && pw && pw->pw_name &&
	    *pw->pw_name && strlen(pw->pw_name) < sizeof operator_name)
		snprintf(operator_name, sizeof operator_name, "%s", pw->pw_name);
	else
		snprintf(operator_name, sizeof operator_name, "uid-%ld", (long)getuid());
}

void db_operator_pretend(const char *login)
{
	snprintf(operator_name, sizeof operator_name, "%s", login);
}

void **db_staff_ctx(struct db *db)
{
	return &db->staff_ctx;
}

const char *db_operator(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, find_operator);
	return operator_name;
}

static void fn_operator(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_result_text(ctx, db_operator(), -1, SQLITE_TRANSIENT);
}

static void fn_now(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_result_int64(ctx, clock_now());
}

static void fn_reason(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct db *db = sqlite3_user_data(ctx);

	if (db->reason)
		sqlite3_result_text(ctx, db->reason, -1, SQLITE_TRANSIENT);
	else
		sqlite3_result_null(ctx);
}

/* fd_digits(text) - the ASCII digits of text in order ("(555) 014-2" ->
 * "5550142"); NULL for NULL. Deterministic: the customer search compares a
 * query's digits with a phone number's, whatever punctuation either has. */
static void fn_digits(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *s;
	char buf[64], *out = buf;
	int n, i, k = 0;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	s = sqlite3_value_text(argv[0]);
	n = sqlite3_value_bytes(argv[0]);
	if (!s) {
		sqlite3_result_null(ctx);
		return;
	}
	if (n >= (int)sizeof buf && !(out = sqlite3_malloc(n + 1))) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	for (i = 0; i < n; i++)
		if (s[i] >= '0' && s[i] <= '9')
			out[k++] = (char)s[i];
	sqlite3_result_text(ctx, out, k, SQLITE_TRANSIENT);
	if (out != buf)
		sqlite3_free(out);
}

/*
 * The busy handler: wait for a lock by looking at it every BUSY_POLL_US
 * until busy_ms have passed (0: give up). SQLite's own busy_timeout sleeps
 * longer and longer (up to 100 ms a try), so a desk waiting behind long work
 * that commits in batches and pauses YIELD_MS between them would mostly
 * sleep through the pauses and wait for the whole job; looking every
 * millisecond, it takes the lock in the first pause. A look is one attempt
 * at a lock on the -shm: cheap.
 */
static int busy_wait(void *arg, int count)
{
	struct db *db = arg;
	struct timespec ts = {0, BUSY_POLL_US * 1000L};
	int64_t now = (int64_t)(clock_mono() * 1e6);

	if (count == 0)
		db->busy_since_us = now;
	if (now - db->busy_since_us >= (int64_t)db->busy_ms * 1000)
		return 0;
	nanosleep(&ts, NULL);
	return 1;
}

char *db_default_path(void)
{
	const char *env = getenv("FRONTDESK_DB"), *xdg, *home;
	size_t n;
	char *p;

	if (env && *env)
		return xstrdup(env);
	if (privs_elevated()) {
		/* a setgid frontdesk: the data folder, never the user's home */
		const char *dir = config_data_dir();

		n = strlen(dir) + 16;
		p = xmalloc(n);
		snprintf(p, n, "%s/frontdesk.db", dir);
		return p;
	}
	xdg = getenv("XDG_DATA_HOME");
	if (xdg && *xdg == '/') {
		n = strlen(xdg) + 40;
		p = xmalloc(n);
		snprintf(p, n, "%s/frontdesk/frontdesk.db", xdg);
		return p;
	}
	home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());

		home = pw ? pw->pw_dir : "/";
	}
	n = strlen(home) + 60;
	p = xmalloc(n);
	snprintf(p, n, "%s/.local/share/frontdesk/frontdesk.db", home);
	return p;
}

static int file_problem(const char *path, int ec, int sys_errno, int reading);

/* Create the database file if it does not exist yet: 0600 in a folder
 * 0700, or group-shared when its folder is setgid (fsmode.h). */
static int create_file(const char *path)
{
	int fd, e;

	if (fsmode_mkdirs(path))
		return FD_EIO;
	fd = fsmode_create(path);
	if (fd < 0 && errno != EEXIST) {
		e = errno;
		if (file_problem(path, SQLITE_CANTOPEN, e, 0))
			return FD_EIO;
		return err_set(FD_EIO, _("cannot create the database %s: %s"), path, strerror(e));
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

/* path with suffix ("-wal", "-shm") appended: the files SQLite keeps beside
 * a database. The caller frees it. */
static char *side_path(const char *path, const char *suffix)
{
	size_t n = strlen(path) + strlen(suffix) + 1;
	char *p = xmalloc(n);

	snprintf(p, n, "%s%s", path, suffix);
	return p;
}

/* The folder holding path (a new string): "." for a bare file name. */
static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *d;

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	d = xstrdup(path);
	d[slash - path] = '\0';
	return d;
}

/* access(path, W_OK) with the effective user and group: what open() will
 * be allowed (a setgid frontdesk writes through its group, which the real
 * user is not in). 0 when writable, else -1 with errno set. */
static int may_write(const char *path)
{
	return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS);
}

/* What is at a database path before SQLite is let near it. */
enum file_kind {
	FILE_MISSING, /* nothing there */
	FILE_EMPTY,   /* zero bytes (touch, a failed copy) and no -wal to recover */
	FILE_SQLITE,  /* begins with the SQLite header */
	FILE_OTHER,   /* anything else: text, another format, a device */
	FILE_FOLDER   /* a directory */
};

/* The SQLite file header: the first 16 bytes of every database file. */
static const char sqlite_magic[16] = "SQLite format 3";

#define SQLITE_HEADER 100 /* bytes of the database header at the start of the file */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Whether path has a -wal or a -shm beside it: some connection (maybe one
 * of this process) may have it open. */
static int has_side_files(const char *path)
{
	char *wal = side_path(path, "-wal"), *shm = side_path(path, "-shm");
	struct stat sb;
	int yes = stat(wal, &sb) == 0 || stat(shm, &sb) == 0;

	free(wal);
	free(shm);
	return yes;
}

/*
 * Refuse a database file shorter than its header says (a copy cut short):
 * SQLite rounds a file's length up to whole pages, so a file that lost part
 * of its last page opens, and what is written to it then damages it.
 *
 * head is the first got bytes of the file, size its length. The header's
 * page count (offset 28) is used only when it is valid: SQLite marks it so
 * by writing the change counter (offset 24) again at offset 92. Only called
 * when nothing is beside the file (no -wal, -shm or -journal): no session
 * has it open, so no checkpoint or rollback-mode write can be halfway
 * through writing its pages, and all of the database is in this file.
 * FD_ESCHEMA with the reason set, or 0.
 */
static int check_length(const char *path, const unsigned char *head, ssize_t got, int64_t size)
{
	char *journal;
	uint32_t page, pages;
	int64_t want;
	struct stat jb;
	int hot;

	if (got < SQLITE_HEADER)
		return err_set(FD_ESCHEMA,
		               _("%1$s is cut short: it holds only %2$lld bytes, less than an "
		                 "SQLite database's header; copy it again from the original, "
		                 "restore a backup, or use --db to choose another file; nothing "
		                 "was changed"),
		               path, (long long)size);
	page = (uint32_t)head[16] << 8 | head[17];
	if (page == 1)
		page = 65536;
	pages = be32(head + 28);
	if (pages == 0 || be32(head + 92) != be32(head + 24) || page < 512 || (page & (page - 1)))
		return 0; /* the header does not say: SQLite goes by the file's length */
	want = (int64_t)pages * page;
	if (size >= want)
		return 0;
	journal = side_path(path, "-journal");
	hot = stat(journal, &jb) == 0; /* a rollback journal restores the length */
	free(journal);
	if (hot)
		return 0;
	return err_set(FD_ESCHEMA,
	               _("%1$s is cut short: its header says %2$lld bytes (%3$lu pages of "
	                 "%4$lu bytes) but the file holds only %5$lld, an incomplete copy; "
	                 "copy it again from the original, restore a backup, or use --db to "
	                 "choose another file; nothing was changed"),
	               path, (long long)want, (unsigned long)pages, (unsigned long)page,
	               (long long)size);
}

/* Look at path without changing it (read only, no SQLite): *kind is one of
 * enum file_kind. FD_EIO when it exists but cannot be read; FD_ESCHEMA when
 * it is an SQLite file shorter than its header says (check_length).
 *
 * The header is read only when there is neither a -wal nor a -shm: closing
 * any descriptor of a file drops every POSIX lock this process holds on it,
 * so reading a database another connection of this process has open (the
 * screen's task runner opens a second one) would cancel that connection's
 * locks, and another process could then take itself for the last one and
 * delete the -wal and -shm under it. With them there, SQLite reads the
 * header itself (and says so if it is not a database). */
static int file_kind(const char *path, int *kind)
{
	char head[SQLITE_HEADER], *wal;
	struct stat sb, wb;
	ssize_t got;
	int fd;

	if (stat(path, &sb) != 0) {
		if (errno == ENOENT) {
			*kind = FILE_MISSING;
			return 0;
		}
		return err_set(FD_EIO, _("cannot look at %s: %s"), path, strerror(errno));
	}
	if (!S_ISREG(sb.st_mode)) {
		*kind = S_ISDIR(sb.st_mode) ? FILE_FOLDER : FILE_OTHER;
		return 0;
	}
	if (sb.st_size == 0) {
		/* a new database whose first commit is still only in its -wal is
		 * not empty: SQLite recovers it */
		wal = side_path(path, "-wal");
		*kind = stat(wal, &wb) == 0 && wb.st_size > 0 ? FILE_SQLITE : FILE_EMPTY;
		free(wal);
		return 0;
	}
	if (has_side_files(path)) {
		*kind = FILE_SQLITE;
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return err_set(FD_EIO, _("cannot read %s: %s"), path, strerror(errno));
	got = read(fd, head, sizeof head);
	close(fd);
	if (got < 0)
		return err_set(FD_EIO, _("cannot read %s: %s"), path, strerror(errno));
	*kind =
	    got >= (ssize_t)sizeof sqlite_magic && !memcmp(head, sqlite_magic, sizeof sqlite_magic)
	        ? FILE_SQLITE
	        : FILE_OTHER;
	if (*kind == FILE_SQLITE)
		return check_length(path, (const unsigned char *)head, got, (int64_t)sb.st_size);
	return 0;
}

int db_check_file(const char *path)
{
	int kind;

	return file_kind(path, &kind);
}

/* What an SQLite database holds, read before anything is written to it. */
enum schema_kind {
	SCHEMA_FRONTDESK, /* it has frontdesk's schema_migration table */
	SCHEMA_BLANK,     /* no table, index, view or trigger at all */
	SCHEMA_FOREIGN,   /* another program's database */
	SCHEMA_BY_HEADER  /* probe_schema: the header says frontdesk (to be confirmed) */
};

static int schema_kind(struct db *db, int *kind)
{
	int64_t n = 0;
	int rc = db_one_int(db,
	                    "SELECT CASE WHEN EXISTS (SELECT 1 FROM sqlite_schema WHERE type = "
	                    "'table' AND name = 'schema_migration') THEN 0 WHEN NOT EXISTS "
	                    "(SELECT 1 FROM sqlite_schema) THEN 1 ELSE 2 END",
	                    &n);

	*kind = (int)n;
	return rc;
}

/* The URI that opens the file at path as immutable (SQLite takes no lock
 * and makes no -wal or -shm); a new string. */
static char *immutable_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(path), i, j;
	char *uri = xmalloc(3 * n + 32);

	j = (size_t)sprintf(uri, "file:");
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)path[i];

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || strchr("/-._~", ch)) {
			uri[j++] = (char)ch;
		} else {
			uri[j++] = '%';
			uri[j++] = hex[ch >> 4];
			uri[j++] = hex[ch & 15];
		}
	}
	strcpy(uri + j, "?immutable=1");
	return uri;
}

/* schema_kind of the database at path read as an immutable file: no lock,
 * no -wal or -shm created beside it (a read-only connection to another
 * program's WAL database would leave both behind). Only when there is
 * neither a -wal nor a -shm: then no connection has the database open in
 * WAL mode, here or elsewhere, and all of it is in the main file (an
 * immutable connection closes its file at once: see file_kind). 1 when it could not be read that
 * way (the caller asks its own connection instead). */
static int probe_schema(const char *path, int *kind)
{
	char *uri = NULL;
	struct db probe = {0};
	int rc = 1;

	if (has_side_files(path))
		goto out;
	uri = immutable_uri(path);
	if (sqlite3_open_v2(uri, &probe.h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) ==
	    SQLITE_OK) {
		int64_t app = 0;

		/* frontdesk's application id (set by a migration) is read from the
		 * file's header without parsing its schema, which costs as much
		 * as the rest of a short command; a database without it (an old
		 * one, another program's) has its schema looked at */
		if (db_one_int(&probe, "PRAGMA application_id", &app) == 0 &&
		    app == DB_APPLICATION_ID) {
			/* the caller's own connection confirms it (its schema is
			 * parsed once, there, as it would be anyway) */
			*kind = SCHEMA_BY_HEADER;
			rc = 0;
		} else if (schema_kind(&probe, kind) == 0) {
			rc = 0;
		}
	}
	sqlite3_close(probe.h);
out:
	free(uri);
	return rc;
}

/*
 * Whether a read-only open of path reads it as an immutable file: when no
 * session has it open (nothing beside it: no -wal, -shm or -journal) and
 * SQLite's read-only WAL open would either leave a -wal and -shm behind
 * (ro_file: this user cannot write the database, so it can never take the
 * lock that removes them, and they get the database's read-only mode, so
 * that every later writer takes them for a stale session's files) or
 * cannot make them at all (the folder is read-only). Then no writer is
 * present and all of the database is in the file. Otherwise SQLite's own
 * read-only open shares the -wal and -shm of the sessions there.
 */
static int read_immutable(const char *path, int ro_file)
{
	char *journal = side_path(path, "-journal"), *dir = folder_of(path);
	struct stat sb;
	int yes =
	    !has_side_files(path) && stat(journal, &sb) != 0 && (ro_file || may_write(dir) != 0);

	free(journal);
	free(dir);
	return yes;
}

int db_open_raw_readonly(const char *path, sqlite3 **out)
{
	char *journal = side_path(path, "-journal"), *uri;
	struct stat sb;
	int rc;

	if (!has_side_files(path) && stat(journal, &sb) != 0) {
		uri = immutable_uri(path);
		rc = sqlite3_open_v2(uri, out, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
		free(uri);
	} else {
		rc = sqlite3_open_v2(path, out, SQLITE_OPEN_READONLY, NULL);
	}
	free(journal);
	return rc;
}

/* The refusal of a file that is not (yet) a frontdesk database. */
static int refuse_kind(const char *path, int kind, int is_blank_sqlite)
{
	if (kind == FILE_EMPTY || is_blank_sqlite)
		return err_set(FD_ESCHEMA,
		               kind == FILE_EMPTY
		                   ? _("%1$s is an empty file, not a frontdesk database; use --db "
		                       "to choose another file, or 'frontdesk --db %1$s init' to "
		                       "make it a new database")
		                   : _("%1$s is an SQLite database with nothing in it, not a "
		                       "frontdesk database; use --db to choose another file, or "
		                       "'frontdesk --db %1$s init' to make it a new database"),
		               path);
	if (kind == FILE_FOLDER)
		return err_set(FD_ESCHEMA,
		               _("%s is a folder, not a frontdesk database; use --db to name "
		                 "the database file, or 'frontdesk init' to create a new one at a "
		                 "path that does not exist yet"),
		               path);
	return err_set(FD_ESCHEMA,
	               kind == FILE_SQLITE
	                   ? _("%s is not a frontdesk database (it is an SQLite database of "
	                       "another program); use --db to choose another file, or 'frontdesk "
	                       "init' to create a new one at a path that does not exist yet")
	                   : _("%s is not a frontdesk database (it is not an SQLite database "
	                       "at all); use --db to choose another file, or 'frontdesk init' to "
	                       "create a new one at a path that does not exist yet"),
	               path);
}

int db_exec(struct db *db, const char *sql)
{
	if (sqlite3_exec(db->h, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, _("database error"));
	return 0;
}

int db_prepare(struct db *db, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(db->h, sql, -1, st, NULL) != SQLITE_OK)
		return db_fail(db, _("database error"));
	return 0;
}

/* Explain an SQLite failure that comes from the files rather than the
 * request, in words that say what to do: a full disk (also when not even
 * the -shm could be made), a read-only folder, a -shm that cannot be
 * written (left behind by another user or a crashed session), a read-only
 * database file. reading: the connection is read-only (a read-only folder
 * stops it only when a -wal is there and no -shm can be made or used). 0
 * when it is none of those (or path is NULL). */
static int file_problem(const char *path, int ec, int sys_errno, int reading)
{
	struct statvfs vfs;
	char *dir, *shm;
	int prim = ec & 0xff, rc = 0;

	if (!path || (prim != SQLITE_FULL && prim != SQLITE_IOERR && prim != SQLITE_CANTOPEN &&
	              prim != SQLITE_READONLY))
		return 0;
	dir = folder_of(path);
	shm = side_path(path, "-shm");
	if (prim == SQLITE_FULL || sys_errno == ENOSPC || sys_errno == EDQUOT ||
	    (prim != SQLITE_READONLY && statvfs(dir, &vfs) == 0 &&
	     (vfs.f_bavail == 0 || (vfs.f_files && vfs.f_favail == 0))))
		rc = err_set(FD_EIO,
		             _("the disk is full: %1$s cannot grow in %2$s; free some space on "
		               "that disk, then try again; nothing was changed"),
		             path, dir);
	else if (may_write(dir) != 0 && reading)
		rc = err_set(FD_EIO,
		             _("cannot read %1$s: its folder %2$s is read-only (%3$s) and "
		               "%1$s-wal is there without a %1$s-shm this user can make or use "
		               "(a session has the database open, or one ended without closing "
		               "it); read it again once that session has closed, or as a user "
		               "who may write %2$s; nothing was changed"),
		             path, dir, strerror(errno));
	else if (may_write(dir) != 0)
		rc = err_set(FD_EIO,
		             _("the folder %1$s is read-only (%2$s): frontdesk must be able to "
		               "create %3$s-wal and %3$s-shm there; make the folder writable or "
		               "move the database to one that is; nothing was changed"),
		             dir, strerror(errno), path);
	else if (may_write(path) != 0)
		rc = err_set(FD_EIO,
		             _("the database %1$s is read-only (%2$s): make it writable, or "
		               "use --read-only to look without changing anything"),
		             path, strerror(errno));
	else if (access(shm, F_OK) == 0 && may_write(shm) != 0)
		rc = err_set(FD_EIO,
		             _("%1$s cannot be written (%2$s): it is a stale shared-memory file "
		               "left by another user or a crashed session; if no frontdesk is "
		               "running on %3$s, delete %1$s (or give it to the user running "
		               "frontdesk) and try again; nothing was changed"),
		             shm, strerror(errno), path);
	free(shm);
	free(dir);
	return rc;
}

int db_fail(struct db *db, const char *what)
{
	int ec = sqlite3_extended_errcode(db->h), code;
	const char *msg = sqlite3_errmsg(db->h);

	if ((code = file_problem(db->path, ec, sqlite3_system_errno(db->h), db->readonly)) != 0)
		return code;
	switch (ec & 0xff) {
	case SQLITE_CONSTRAINT:
		code = FD_EINVAL;
		break;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		code = FD_EBUSY;
		msg = _("the database is busy (another session is writing); try again");
		break;
	case SQLITE_READONLY:
		code = FD_EIO;
		break;
	default:
		code = FD_EDB;
	}
	return err_set(code, "%s: %s", what, msg);
}

int db_one_int(struct db *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare(db, sql, &st);
	if (rc)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, _("database error"));
	sqlite3_finalize(st);
	return rc;
}

/* Process-wide SQLite settings, made once before the library starts (see
 * bench/MONEY-RESULTS.md for the measurements):
 * - the statement journal of a write that fires triggers (kept so that a
 *   refused statement undoes only itself) stays in memory up to 120 KiB
 *   instead of 64 KiB: posting a payment (60-90 KiB of journal) used to
 *   create, write and delete a temporary file every time. Never more than
 *   128 KiB: SQLite keeps the journal in one block of the limit's size and,
 *   past the limit, writes it to a file in one call, which the unix VFS of
 *   SQLite 3.40 (Debian 12) cuts to the size modulo 128 KiB, ending in
 *   SQLITE_FULL on a disk with room (tests/unit/check_faults.c). The 4 MiB
 *   set here before made every statement with a larger journal fail as "the
 *   disk is full". Sorts and temporary tables still spill to files as
 *   before.
 * - no memory statistics: frontdesk never reads them, and keeping them takes
 *   a global mutex on every allocation (a tenth of the instructions of
 *   posting a payment).
 * sqlite3_config refuses (harmlessly) once SQLite is already initialized. */
static void configure_sqlite(void)
{
	sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, 120 << 10);
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/* What is at path (*kind), refused unless it can be opened as flags ask;
 * a missing file is created with DB_OPEN_CREATE (*created = 1). */
static int connect_file(const char *path, int flags, int *kind, int *created)
{
	int rc;

	if ((rc = file_kind(path, kind)) != 0)
		return rc;
	if (*kind == FILE_MISSING && (flags & DB_OPEN_CREATE)) {
		rc = create_file(path);
		if (rc)
			return rc;
		*created = 1;
	} else if (*kind == FILE_MISSING) {
		return err_set(FD_ENOTFOUND,
		               _("no database at %s: create one with 'frontdesk init' "
		                 "(or 'frontdesk demo')"),
		               path);
	} else if (*kind == FILE_OTHER || *kind == FILE_FOLDER ||
	           (*kind == FILE_EMPTY && !(flags & DB_OPEN_CREATE))) {
		return refuse_kind(path, *kind, 0);
	}
	return 0;
}

/* Open db->h on path, read-only when db->readonly (immutable when it may
 * be read so). */
static int connect_open(struct db *db, const char *path)
{
	int oflags = db->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE, rc;

	if (db->readonly && read_immutable(path, db->ro_file)) {
		char *uri = immutable_uri(path);

		rc = sqlite3_open_v2(uri, &db->h, oflags | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
		                     NULL);
		free(uri);
	} else {
		rc = sqlite3_open_v2(path, &db->h, oflags | SQLITE_OPEN_NOMUTEX, NULL);
	}
	if (rc == SQLITE_OK)
		return 0;
	if (!db->h || !(rc = file_problem(path, sqlite3_extended_errcode(db->h),
	                                  sqlite3_system_errno(db->h), db->readonly)))
		rc = err_set(FD_EIO, _("cannot open the database %s: %s"), path,
		             db->h ? sqlite3_errmsg(db->h) : "out of memory");
	return rc;
}

/* The connection's busy handler and SQL functions. */
static void connect_functions(struct db *db)
{
	sqlite3_extended_result_codes(db->h, 1);
	db->busy_ms = BUSY_TIMEOUT_MS;
	sqlite3_busy_handler(db->h, busy_wait, db);
	sqlite3_create_function(db->h, "fd_operator", 0, SQLITE_UTF8 | SQLITE_INNOCUOUS, db,
	                        fn_operator, NULL, NULL);
	sqlite3_create_function(db->h, "fd_now", 0, SQLITE_UTF8 | SQLITE_INNOCUOUS, db, fn_now,
	                        NULL, NULL);
	sqlite3_create_function(db->h, "fd_reason", 0, SQLITE_UTF8 | SQLITE_INNOCUOUS, db,
	                        fn_reason, NULL, NULL);
	sqlite3_create_function(db->h, "fd_digits", 1,
	                        SQLITE_UTF8 | SQLITE_INNOCUOUS | SQLITE_DETERMINISTIC, NULL,
	                        fn_digits, NULL, NULL);
}

/* Before anything is written: a frontdesk database has schema_migration;
 * only a creating open (init, demo) takes one with nothing in it. */
static int connect_schema(struct db *db, const char *path, int kind, int flags)
{
	int rc, schema;

	if ((probe_schema(path, &schema) != 0 || schema == SCHEMA_BY_HEADER) &&
	    (rc = schema_kind(db, &schema)) != 0) {
		int prim = sqlite3_errcode(db->h) & 0xff;

		if (prim == SQLITE_CORRUPT || prim == SQLITE_NOTADB)
			rc = err_set(FD_ESCHEMA,
			             _("%1$s is damaged: SQLite cannot read what it holds (%2$s); "
			               "restore a backup, or use --db to choose another file"),
			             path, sqlite3_errmsg(db->h));
		return rc;
	}
	if (schema == SCHEMA_FOREIGN ||
	    (schema == SCHEMA_BLANK && kind == FILE_SQLITE && !(flags & DB_OPEN_CREATE)))
		return refuse_kind(path, FILE_SQLITE, schema == SCHEMA_BLANK);
	return 0;
}

/* The connection's journal and its other settings. */
static int connect_pragmas(struct db *db)
{
	int rc;

	if (!db->readonly) {
		/* journal_mode needs the write lock only when it changes */
		if ((rc = db_exec(db, "PRAGMA journal_mode=WAL")) != 0)
			return rc;
	}
	/* journal_size_limit: a -wal that long work (or a reader holding its
	 * snapshot) let grow is cut back to WAL_LIMIT by the first commit after
	 * a checkpoint copied all of it, instead of staying at its largest */
	return db_exec(db, "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; "
	                   "PRAGMA journal_size_limit=" WAL_LIMIT ";");
}

int db_connect(const char *path, int flags, struct db **out, int *created_out, int *readonly)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct db *db;
	int rc, kind, created = 0;

	*out = NULL;
	*created_out = *readonly = 0;
	if (!path || !*path)
		return err_set(FD_EINVAL, _("no database path given"));
	if ((rc = connect_file(path, flags, &kind, &created)) != 0)
		return rc;
	pthread_once(&once, configure_sqlite);
	db = xcalloc(1, sizeof *db);
	db->path = xstrdup(path);
	db->readonly = (flags & DB_OPEN_READONLY) != 0;
	/* a file this user may not write (its mode or owner; a read-only
	 * disk is the folder's problem, named as such) is opened read-only */
	if (may_write(path) != 0 && (errno == EACCES || errno == EPERM))
		db->readonly = db->ro_file = 1;
	if ((rc = connect_open(db, path)) != 0)
		goto fail;
	connect_functions(db);
	if ((rc = connect_schema(db, path, kind, flags)) != 0)
		goto fail;
	if ((rc = connect_pragmas(db)) != 0)
		goto fail;
	*out = db;
	*created_out = created;
	*readonly = db->readonly;
	return 0;
fail:
	db_discard(db, created);
	return rc;
}

void db_discard(struct db *db, int created)
{
	char *path, *why;
	int kind, schema;

	if (!db)
		return;
	path = xstrdup(db->path);
	db_close(db);
	/* a database this call created and could not finish (a full disk) goes
	 * again, unless another process made it a frontdesk database meanwhile */
	if (created) {
		why = xstrdup(err_msg());
		if (file_kind(path, &kind) == 0 &&
		    (kind == FILE_EMPTY ||
		     (probe_schema(path, &schema) == 0 && schema == SCHEMA_BLANK)))
			unlink(path);
		err_set(FD_EIO, "%s", why); /* the reason stays; the code is the caller's */
		free(why);
	}
	free(path);
}

void db_close(struct db *db)
{
	int i;

	if (!db)
		return;
	for (i = 0; i < db->ncache; i++)
		sqlite3_finalize(db->cache[i].st);
	sqlite3_close(db->h);
	free(db->reason);
	free(db->path);
	free(db->staff_ctx);
	free(db);
}

sqlite3 *db_sqlite(struct db *db)
{
	return db->h;
}

const char *db_path(const struct db *db)
{
	return db->path;
}

int db_begin_write(struct db *db)
{
	int i, rc = SQLITE_BUSY;
	struct timespec ts;

	if (db->ro_file)
		return err_set(FD_EIO,
		               _("the database %s is read-only: this user may not write it (its "
		                 "mode or owner); make it writable for this user, or use "
		                 "--read-only to look without changing anything; nothing was "
		                 "changed"),
		               db->path);
	if (db->readonly)
		return err_set(FD_EIO, _("the database is open read-only"));
	for (i = 0; i <= WRITE_RETRIES; i++) {
		rc = sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			return 0;
		if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
			break;
		/* the busy timeout already waited; back off a little more */
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(10 + (rand() % 40)) * 1000000L * (i + 1);
		nanosleep(&ts, NULL);
	}
	return db_fail(db, _("cannot start a write"));
}

int db_commit(struct db *db)
{
	if (sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		int rc = db_fail(db, _("cannot commit"));

		db_rollback(db);
		return rc;
	}
	return 0;
}

void db_rollback(struct db *db)
{
	if (!sqlite3_get_autocommit(db->h))
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
}

void db_set_reason(struct db *db, const char *reason)
{
	free(db->reason);
	db->reason = reason ? xstrdup(reason) : NULL;
}

int64_t db_data_version(struct db *db)
{
	int64_t v = -1;

	db_one_int(db, "PRAGMA data_version", &v);
	return v;
}

int db_write(struct db *db, int (*fn)(struct db *db, void *arg), void *arg)
{
	int rc;

	if (!sqlite3_get_autocommit(db->h)) {
		/* inside a caller's transaction (a booking makes a visit, jobs,
		 * items and links, each through its owner): a savepoint, so that
		 * a refused part leaves nothing of itself, and the caller's
		 * COMMIT or ROLLBACK decides for the whole */
		if (sqlite3_exec(db->h, "SAVEPOINT fd_part", NULL, NULL, NULL) != SQLITE_OK)
			return db_fail(db, _("cannot start a write"));
		rc = fn(db, arg);
		if (rc)
			sqlite3_exec(db->h, "ROLLBACK TO fd_part", NULL, NULL, NULL);
		if (sqlite3_exec(db->h, "RELEASE fd_part", NULL, NULL, NULL) != SQLITE_OK && !rc)
			rc = db_fail(db, _("cannot commit"));
		return rc;
	}
	if ((rc = db_begin_write(db)))
		return rc;
	rc = fn(db, arg);
	if (rc) {
		db_rollback(db);
		return rc;
	}
	return db_commit(db);
}

int db_run(struct db *db, sqlite3_stmt *st, const char *what)
{
	int rc = 0;

	if (sqlite3_step(st) != SQLITE_DONE)
		rc = db_fail(db, what);
	sqlite3_finalize(st);
	return rc;
}

int db_prepare_cached(struct db *db, const char *sql, sqlite3_stmt **st)
{
	int i;

	for (i = 0; i < db->ncache; i++)
		if (db->cache[i].sql == sql) {
			*st = db->cache[i].st;
			sqlite3_reset(*st);
			sqlite3_clear_bindings(*st);
			return 0;
		}
	if (sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		return db_fail(db, _("database error"));
	if (db->ncache < STMT_CACHE) {
		db->cache[db->ncache].sql = sql;
		db->cache[db->ncache++].st = *st;
	}
	return 0;
}

void db_release(struct db *db, sqlite3_stmt *st)
{
	int i;

	for (i = 0; i < db->ncache; i++)
		if (db->cache[i].st == st) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			return;
		}
	sqlite3_finalize(st); /* the cache was full: it was never kept */
}

int db_run_cached(struct db *db, sqlite3_stmt *st, const char *what)
{
	int rc = 0;

	if (sqlite3_step(st) != SQLITE_DONE)
		rc = db_fail(db, what);
	db_release(db, st);
	return rc;
}

int db_run_moved(struct db *db, sqlite3_stmt *st, const char *what, int *moved)
{
	int rc = db_run_cached(db, st, what);

	if (moved)
		*moved = !rc && sqlite3_changes(db->h) == 1;
	return rc;
}

void db_set_busy_timeout(struct db *db, int ms)
{
	db->busy_ms = ms > 0 ? ms : 0;
}

void db_yield(struct db *db)
{
	struct timespec ts = {0, YIELD_MS * 1000000L};

	(void)db;
	nanosleep(&ts, NULL);
}

int db_checkpoint(struct db *db)
{
	int log = 0, done = 0, rc;

	if (db->readonly || !sqlite3_get_autocommit(db->h))
		return 0;
	rc = sqlite3_wal_checkpoint_v2(db->h, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done);
	if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
		return db_fail(db, _("cannot checkpoint the database"));
	return 0;
}

void db_cache_grow(struct db *db, int kib, int64_t *saved)
{
	int64_t page = 4096;
	char sql[48];

	*saved = -2000;
	if (db_one_int(db, "PRAGMA cache_size", saved) != 0 ||
	    db_one_int(db, "PRAGMA page_size", &page) != 0)
		return;
	if ((*saved < 0 ? -*saved : *saved * page / 1024) >= kib)
		return;
	snprintf(sql, sizeof sql, "PRAGMA cache_size = %d", -kib);
	db_exec(db, sql);
}

void db_cache_restore(struct db *db, int64_t saved)
{
	char sql[48];

	snprintf(sql, sizeof sql, "PRAGMA cache_size = %lld", (long long)saved);
	db_exec(db, sql);
}

int db_readonly(struct db *db)
{
	return sqlite3_db_readonly(db->h, "main") == 1;
}
