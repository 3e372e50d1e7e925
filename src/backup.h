/*
 * backup.h - online backups of the database, restores, and the nightly
 * backup of `frontdesk serve`.
 *
 * A backup is a consistent copy taken while other sessions keep writing:
 * one read transaction on the source (WAL: writers are never blocked by
 * it) copied page by page with SQLite's backup API, in steps, into a
 * temporary file beside the destination. The copy is switched to a rollback
 * journal (a self-contained file, no -wal or -shm needed), then checked:
 * PRAGMA integrity_check, that it is a frontdesk database, and every
 * invariant `frontdesk check` runs (check_run and projection_check). Only
 * then is it renamed to its name. The request log (pipe-log.h), when there
 * is one, is copied the same way beside it (pipe_log_path_beside). So are
 * the final signed documents (esign.h) that the COPY's esign_flow rows name
 * (read from the checked copy, so the set matches it): into the folder
 * DEST.esign, each written under a temporary name, fsync'd, checked against
 * the SHA-256 its row records and renamed; the folder is made under a
 * temporary name too and renamed before the database is. A document that is
 * missing or does not match its hash fails the backup: a backup without its
 * signature evidence would restore into a database that fails `frontdesk
 * check`, and the live one fails it already. The condition reports' media
 * (condition.h) that the copy's media_item rows name go the same way into
 * DEST.media. Files are
 * made with the modes of fsmode.h (0600, or group-shared in a setgid
 * folder). The time of the last checked backup is stamped in the control
 * table (CONTROL_BACKUP_LAST), where every session reads it.
 *
 * A restore refuses while any other session has the database open: it
 * takes SQLite's exclusive lock on the live file (locking_mode=EXCLUSIVE
 * and a write transaction), which fails while another connection, even an
 * idle one in WAL mode, holds its shared lock; the lock is held until the
 * restore has finished, so no session opens the database half restored.
 * The file to restore is checked first (a working copy of it, brought up
 * to this program's schema); the final documents its rows name are copied
 * from FILE.esign into the live esign folder, and its media from
 * FILE.media into the live media folder (each checked against its hash;
 * one already there with that hash is kept, other files are left alone)
 * once the lock is held; the live database is kept as
 * DB.replaced-YYYYmmddTHHMMSS, the copy is written into the live file with
 * the backup API, and the result is checked again.
 *
 * Callers: cli-backup.c (`frontdesk backup`, `frontdesk restore`),
 * cli-chan.c (`frontdesk serve`), the screen's status line, tests.
 */
#ifndef FD_BACKUP_H
#define FD_BACKUP_H

#include <signal.h>
#include <stdint.h>

struct db;

enum { BACKUP_FORCE = 1 /* replace an existing destination */ };

/* What a backup wrote. Strings are owned (backup_result_free). */
struct backup_result {
	char *path;       /* the checked copy of the database */
	char *log_path;   /* the copy of the request log, NULL when there is no log */
	char *esign_path; /* DEST.esign, the signed documents; NULL when there are none */
	char *media_path; /* DEST.media, the condition reports' media; NULL when none */
	int64_t taken_at; /* clock_now() when the snapshot was taken */
};

/* backup_take - back up the database of db (its own connection, with no
 * transaction open) to dest, and its request log and signed documents
 * beside dest, as described above. Refuses (FD_ECONFLICT) when dest, the
 * log's copy or DEST.esign exists, unless flags has BACKUP_FORCE (which
 * replaces them; an existing DEST.esign goes even when the new backup has no
 * documents); FD_EINVAL for a dest that is the database itself or a folder,
 * or a signed document missing or not matching its hash (naming it);
 * FD_EIO when a file cannot be written; FD_ECONFLICT when another backup
 * holds the "backup" lock; FD_EDB when the copy fails its checks. On any
 * refusal or failure nothing is left at dest (an existing file stays as it
 * was) and *res holds nothing. stop (may be NULL) aborts
 * between steps. On success fills *res and stamps CONTROL_BACKUP_LAST. */
int backup_take(struct db *db, const char *dest, int flags, volatile sig_atomic_t *stop,
                struct backup_result *res);

/* backup_result_free - free the strings of *res (never res itself). */
void backup_result_free(struct backup_result *res);

/* backup_restore - replace the database at live by the backup at file (see
 * above). FD_ENOTFOUND when file does not exist; FD_EINVAL when it is not
 * a frontdesk database, is damaged, fails a check, is newer than this
 * program, or is the live file itself, or when a signed document it names
 * is neither in FILE.esign nor already in the live esign folder with its
 * hash; FD_EBUSY when another session has live open; FD_EIO when a file
 * cannot be written. Nothing is changed on any of these (but documents
 * already copied into the live esign folder, which match the backup's
 * hashes). On success *replaced (may be NULL) gets the name the old
 * database was kept under (a new string the caller frees; NULL when there
 * was no database at live). The request log is left alone: it records
 * calls that were really made. FD_EPERM, before anything is done, when the
 * person is not in the register of the live database or does not hold
 * backup there (a live file that does not open as a frontdesk database is
 * not asked: there is nobody to ask). */
int backup_restore(const char *live, const char *file, char **replaced);

/* backup_last - *t = when the last checked backup was taken (clock_now()
 * then), 0 when never. */
int backup_last(struct db *db, int64_t *t);

/* The nightly backup of `frontdesk serve`: config keys backup_dir (none:
 * off), backup_keep (7) and backup_hour (2). */
struct backup_nightly_opts {
	const char *dir; /* where the backups go; created (fsmode.h) if missing */
	int keep;        /* how many nightly backups are kept (>= 1); older ones go */
	int hour;        /* shop hour (0-23) from which the day's backup is due */
	/* where it says what it did (msg translated); NULL: nowhere. Called
	 * from the backup thread. */
	void (*say)(const char *msg, void *arg);
	void *say_arg;
};

/* backup_nightly_opts_default - from the config keys above; dir NULL when
 * backup_dir is not set. */
void backup_nightly_opts_default(struct backup_nightly_opts *o);

/* backup_nightly_name - a new string: the file name (without folder) of
 * the nightly backup taken at t: "frontdesk-YYYYmmddTHHMMSS.db", shop time. */
char *backup_nightly_name(int64_t t);

/* backup_nightly_due - *due = 1 when at now (shop time) the hour is at
 * least o->hour and o->dir holds no nightly backup of that day yet. */
int backup_nightly_due(const struct backup_nightly_opts *o, int64_t now, int *due);

/* backup_nightly_once - if a backup is due (above), take it into o->dir
 * under the "backup" lock (a second server that finds it held does
 * nothing), then delete the oldest nightly backups (and their request
 * logs and signed documents) beyond o->keep. *taken (may be NULL) = 1 when a backup was taken.
 * Errors as backup_take. */
int backup_nightly_once(struct db *db, const struct backup_nightly_opts *o,
                        volatile sig_atomic_t *stop, int *taken);

struct backup_nightly;

/* backup_nightly_start - run backup_nightly_once now and then every minute
 * in a new thread on its own connection to the database at path, until
 * backup_nightly_stop. A failure is said (o->say) and tried again at the
 * next minute. The strings of o are copied. FD_EIO when the thread cannot
 * start, or errors of db_open. */
int backup_nightly_start(const char *path, const struct backup_nightly_opts *o,
                         struct backup_nightly **out);

/* backup_nightly_stop - stop the thread (within about a second; a backup
 * in progress is abandoned and its temporary files removed), join it and
 * free it. NULL is fine. */
void backup_nightly_stop(struct backup_nightly *b);

#endif
