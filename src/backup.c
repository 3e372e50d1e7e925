/*
 * backup.c - online backups, restores and the nightly backup (see backup.h).
 *
 * Invariants: a destination name only ever holds a complete, checked copy
 * (everything is written under a temporary name in the same folder,
 * fsync'd, then renamed); a restore changes the live file only while it
 * holds SQLite's exclusive lock on it, and only after the file to restore
 * passed every check; the live database is kept before it is replaced.
 *
 * Permissions: backup_take asks backup before it starts; the nightly
 * backup is the shop's schedule and asks nothing. backup_restore asks
 * backup of the live database it replaces, when there is one that opens.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backup.h"
#include "checkdb.h"
#include "clock.h"
#include "control.h"
#include "db.h"
#include "err.h"
#include "esign.h"
#include "fsmode.h"
#include "i18n.h"
#include "pipe-log.h"
#include "privs.h"
#include "settings.h"
#include "stopflag.h"
#include "xalloc.h"

#define STEP_PAGES     256  /* pages copied per backup step */
#define BUSY_RETRIES   500  /* steps that found a lock, 10 ms apart */
#define FLUSH_STEPS    4    /* steps (1024 pages: 4 MiB of 4 KiB) between flushes of the copy */
#define LOCK_TTL       3600 /* seconds the "backup" lock lasts */
#define RESTORE_WAIT   200  /* ms a restore waits for the live file's lock */
#define NIGHTLY_PREFIX "frontdesk-"

static char *concat(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *s = xmalloc(na + nb + 1);

	memcpy(s, a, na);
	memcpy(s + na, b, nb + 1);
	return s;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Remove the database file path and whatever SQLite kept beside it. */
static void remove_db(const char *path)
{
	static const char *const side[] = {"-wal", "-shm", "-journal"};
	size_t i;
	char *p;

	unlink(path);
	for (i = 0; i < sizeof side / sizeof side[0]; i++) {
		p = concat(path, side[i]);
		unlink(p);
		free(p);
	}
}

/* fsync the file at path (0, or FD_EIO with a reason). */
static int sync_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0 || fsync(fd) != 0)
		rc = err_set(FD_EIO, _("cannot write %s: %s"), path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return rc;
}

/* fsync the folder holding path, so that a rename in it survives. */
static void sync_parent(const char *path)
{
	char *dir = fsmode_parent(path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

/* Open path with SQLite for reading only, without creating anything. */
static int open_raw(const char *path, int flags, sqlite3 **out)
{
	*out = NULL;
	if (sqlite3_open_v2(path, out, flags, NULL) != SQLITE_OK) {
		int rc = err_set(FD_EINVAL, _("cannot open %s: %s"), path,
		                 *out ? sqlite3_errmsg(*out) : "out of memory");

		sqlite3_close(*out);
		*out = NULL;
		return rc;
	}
	sqlite3_extended_result_codes(*out, 1);
	return 0;
}

/* Write the pages of the copy (read-only descriptor fd; -1: nothing) that
 * are still in the kernel's cache to the disk, and wait for them: data
 * only, no journal commit. Done every FLUSH_STEPS steps, it keeps the
 * copy's unwritten pages to what those steps wrote; left to the final
 * fsync, the whole file (2 GB on 1,000,000 visits) went to the disk at
 * once and a desk's commit waited 1.4 s behind it. 4 MiB a flush, waited
 * for: in one trial each (bench/RESULTS-33.md) a desk's p99 during a backup
 * was +10.6 ms, against +25.0 ms with 16 MiB and +14.3 ms with 4 MiB not
 * waited for. A failure here is not one of the backup: the final fsync
 * still decides. */
static void flush_copy(int fd)
{
	if (fd < 0)
		return;
#ifdef SYNC_FILE_RANGE_WRITE
	sync_file_range(fd, 0, 0,
	                SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
	                    SYNC_FILE_RANGE_WAIT_AFTER);
#else
	fdatasync(fd);
#endif
}

/* Copy the main database of src into the new file tmp (made here with the
 * mode of fsmode.h; it must not exist), page by page in steps, all from
 * one read snapshot of src; *taken (may be NULL) = clock_now() when the
 * snapshot began. The copy uses a rollback journal. On failure tmp is
 * removed. */
static int copy_into_new(sqlite3 *src, const char *tmp, volatile sig_atomic_t *stop, int64_t *taken)
{
	sqlite3 *dst = NULL;
	sqlite3_backup *b = NULL;
	int fd, rc = 0, step = SQLITE_OK, busy = 0, in_read = 0, steps = 0;

	fd = fsmode_create(tmp);
	if (fd < 0)
		return err_set(FD_EIO, _("cannot create %s: %s"), tmp, strerror(errno));
	close(fd);
	fd = open(tmp, O_RDONLY | O_CLOEXEC); /* for flush_copy only (-1: none) */
	if (sqlite3_open_v2(tmp, &dst, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		rc = err_set(FD_EIO, _("cannot open %s: %s"), tmp,
		             dst ? sqlite3_errmsg(dst) : "out of memory");
		goto out;
	}
	/* one snapshot for every step: commits made meanwhile are not seen
	 * (and do not restart the copy), and in WAL mode they are not blocked */
	if (sqlite3_exec(src, "BEGIN; SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL) !=
	    SQLITE_OK) {
		rc = err_set(FD_EDB, _("cannot read the database: %s"), sqlite3_errmsg(src));
		goto out;
	}
	in_read = 1;
	if (taken)
		*taken = clock_now();
	b = sqlite3_backup_init(dst, "main", src, "main");
	if (!b) {
		rc = err_set(FD_EDB, _("cannot start the backup: %s"), sqlite3_errmsg(dst));
		goto out;
	}
	while (!stop_requested(stop)) {
		step = sqlite3_backup_step(b, STEP_PAGES);
		if (step == SQLITE_DONE)
			break;
		if (step == SQLITE_OK && ++steps % FLUSH_STEPS == 0)
			flush_copy(fd);
		if ((step & 0xff) == SQLITE_BUSY || (step & 0xff) == SQLITE_LOCKED) {
			if (++busy > BUSY_RETRIES)
				break;
			sleep_ms(10);
		} else if (step != SQLITE_OK) {
			break;
		}
	}
	if (step != SQLITE_DONE) {
		rc = stop_requested(stop)
		         ? err_set(FD_EIO, _("the backup was stopped"))
		         : err_set(FD_EDB, _("the backup failed: %s"), sqlite3_errstr(step));
		goto out;
	}
	if (sqlite3_backup_finish(b) != SQLITE_OK) {
		b = NULL;
		rc = err_set(FD_EDB, _("the backup failed: %s"), sqlite3_errmsg(dst));
		goto out;
	}
	b = NULL;
	/* a self-contained file: no -wal or -shm needed to read it */
	if (sqlite3_exec(dst, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL) != SQLITE_OK)
		rc = err_set(FD_EDB, _("cannot finish %s: %s"), tmp, sqlite3_errmsg(dst));
out:
	if (b)
		sqlite3_backup_finish(b);
	if (in_read)
		sqlite3_exec(src, "ROLLBACK", NULL, NULL, NULL);
	if (dst && sqlite3_close(dst) != SQLITE_OK && !rc)
		rc = err_set(FD_EIO, _("cannot close %s"), tmp);
	if (fd >= 0)
		close(fd);
	if (rc)
		remove_db(tmp);
	else
		rc = sync_file(tmp);
	return rc;
}

/* PRAGMA integrity_check on h: 0, or FD_EINVAL naming the first problem. */
static int integrity(sqlite3 *h, const char *path)
{
	sqlite3_stmt *st = NULL;
	int rc = 0, step;
	const unsigned char *r;

	if (sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK)
		return err_set(FD_EINVAL, _("%s is damaged: %s"), path, sqlite3_errmsg(h));
	step = sqlite3_step(st);
	r = step == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
	if (step != SQLITE_ROW)
		rc = err_set(FD_EINVAL, _("%s is damaged: %s"), path, sqlite3_errmsg(h));
	else if (!r || strcmp((const char *)r, "ok") != 0)
		rc =
		    err_set(FD_EINVAL, _("%s is damaged: %.200s"), path, r ? (const char *)r : "?");
	sqlite3_finalize(st);
	return rc;
}

/* 0 when h holds a frontdesk database (migrations recorded), else FD_EINVAL. */
static int is_frontdesk(sqlite3 *h, const char *path)
{
	sqlite3_stmt *st = NULL;
	int ok = 0;

	if (sqlite3_prepare_v2(h, "SELECT count(*) FROM schema_migration", -1, &st, NULL) ==
	        SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		ok = sqlite3_column_int64(st, 0) > 0;
	sqlite3_finalize(st);
	if (!ok)
		return err_set(FD_EINVAL, _("%s is not a frontdesk database"), path);
	return 0;
}

struct verify_ctx {
	int found;
	int skip_docs; /* the final documents are checked apart (copy_docs) */
	char first[256];
	char damaged[256]; /* SQLite's check of the file found this ("": nothing) */
};

static void verify_report(const char *code, const char *detail, void *arg)
{
	struct verify_ctx *v = arg;

	if (v->skip_docs &&
	    (!strcmp(code, "esign-document-missing") || !strcmp(code, "esign-document-changed") ||
	     !strncmp(code, "condition-media-", 16) || !strncmp(code, "condition-document-", 19)))
		return;
	if (!v->found++)
		snprintf(v->first, sizeof v->first, "%s: %s", code, detail);
	if (!strcmp(code, "integrity") && !v->damaged[0])
		snprintf(v->damaged, sizeof v->damaged, "%s", detail);
}

/* Every check of `frontdesk check` on db (but the final documents and the
 * condition reports' media with skip_docs: a copy's folders are not where
 * they are): 0, or FD_EINVAL naming
 * the first violation and their number. */
static int verify_checks(struct db *db, const char *path, int skip_docs)
{
	struct verify_ctx v = {0, skip_docs, "", ""};
	int rc = check_all(db, verify_report, &v);

	/* the file itself first: the rest (a check that could not read a
	 * page, say) follows from it */
	if (v.damaged[0])
		return err_set(FD_EINVAL, _("%s is damaged: %.200s"), path, v.damaged);
	if (rc < 0)
		return rc;
	if (v.found)
		return err_set(FD_EINVAL,
		               _("%1$s fails %2$d check(s) of 'frontdesk check', first %3$s"), path,
		               v.found, v.first);
	return 0;
}

/* The whole check of a database file: integrity, frontdesk, its checks.
 * open_flags: DB_OPEN_READONLY (a backup just made) or 0 (a working copy
 * that may be brought up to this program's schema). The final documents
 * are checked too, beside path, unless skip_docs. name is the file the
 * refusals name: what path is a copy of (a temporary copy's name means
 * nothing to the user, and what it holds came from there). */
static int verify_file(const char *path, const char *name, int open_flags, int skip_docs)
{
	sqlite3 *h;
	struct db *db;
	int rc;

	if ((rc = open_raw(path, SQLITE_OPEN_READONLY, &h)))
		return rc;
	/* A copy opened read-only (a backup just made) gets SQLite's whole
	 * check once, as the first check of verify_checks (on a connection of
	 * its own, beside the others); here it runs first only for a working
	 * copy that db_open may migrate, and to name the cause when the copy
	 * cannot be read as a frontdesk database. */
	if (!(open_flags & DB_OPEN_READONLY))
		rc = integrity(h, name);
	if (!rc && (rc = is_frontdesk(h, name)) != 0 && (open_flags & DB_OPEN_READONLY))
		integrity(h, name); /* damage, when that is why: it names it */
	if (!rc && (rc = db_open(path, open_flags, &db)) != 0) {
		if (rc != FD_ESCHEMA && (open_flags & DB_OPEN_READONLY))
			integrity(h, name);             /* damage, when that is why: it names it */
		rc = rc == FD_ESCHEMA ? rc : FD_EINVAL; /* with db_open's reason */
	}
	sqlite3_close(h);
	if (rc)
		return rc;
	rc = verify_checks(db, name, skip_docs);
	db_close(db);
	return rc;
}

/* A new name "<base>.tmp-<pid>" for a temporary file. */
static char *tmp_name(const char *base)
{
	char suffix[40];

	snprintf(suffix, sizeof suffix, ".tmp-%ld", (long)getpid());
	return concat(base, suffix);
}

/* 0 when dest may be written (absent, or a file with force), else a refusal. */
static int dest_free(const char *dest, int flags, const char *what)
{
	struct stat sb;

	if (lstat(dest, &sb) != 0)
		return 0;
	if (S_ISDIR(sb.st_mode))
		return err_set(FD_EINVAL, _("%s is a folder; give a file name for the backup"),
		               dest);
	if (!(flags & BACKUP_FORCE))
		return err_set(FD_ECONFLICT,
		               _("%1$s %2$s already exists; nothing was written (--force "
		                 "replaces it)"),
		               what, dest);
	return 0;
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

void backup_result_free(struct backup_result *res)
{
	free(res->path);
	free(res->log_path);
	free(res->esign_path);
	free(res->media_path);
	memset(res, 0, sizeof *res);
}

/* Copy the request log at log into tmp (a plain SQLite file, not a
 * frontdesk database: its integrity is what is checked). */
static int copy_log(const char *log, const char *tmp, volatile sig_atomic_t *stop)
{
	sqlite3 *h = NULL;
	int rc;

	if ((rc = open_raw(log, SQLITE_OPEN_READWRITE, &h)))
		return rc;
	sqlite3_busy_timeout(h, 2000);
	rc = copy_into_new(h, tmp, stop, NULL);
	sqlite3_close(h);
	if (rc)
		return rc;
	if ((rc = open_raw(tmp, SQLITE_OPEN_READONLY, &h)))
		goto fail;
	rc = integrity(h, tmp);
	sqlite3_close(h);
	if (!rc)
		return 0;
fail:
	remove_db(tmp);
	return rc;
}

/* ---------------------------------------------------------------- documents */

/* A kept file a database names: its file name in its folder and the
 * SHA-256 recorded with it. */
struct doc {
	char *name;
	char sha256[65];
};

/* The folders of kept files beside the database, each backed up beside
 * the backup as FILE.<folder>: the signed estimates' final documents
 * (esign/) and the condition reports' media and final documents (media/). */
static const struct docset {
	const char *folder;
	const char *sql; /* name, SHA-256 of every file the database names */
	int media;       /* 0: the signed documents; 1: the media (for messages) */
} docsets[] = {
    {"esign",
     "SELECT document_path, document_sha256 FROM esign_flow"
     " WHERE document_sha256 IS NOT NULL AND document_path IS NOT NULL ORDER BY id",
     0},
    {"media",
     "SELECT local_path, sha256 FROM media_item WHERE local_path IS NOT NULL"
     " UNION ALL SELECT document_path, document_sha256 FROM condition_report"
     " WHERE document_path IS NOT NULL",
     1},
};
#define NDOCSETS (sizeof docsets / sizeof docsets[0])

static void free_docs(struct doc *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(d[i].name);
	free(d);
}

/* The files of set that the database file path names; *out is a new
 * array (free_docs), none when it has no such table. */
static int read_docs(const struct docset *set, const char *path, struct doc **out, size_t *n)
{
	sqlite3 *h;
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc, step;

	*out = NULL;
	*n = 0;
	if ((rc = open_raw(path, SQLITE_OPEN_READONLY, &h)))
		return rc;
	if (sqlite3_prepare_v2(h, set->sql, -1, &st, NULL) != SQLITE_OK) {
		/* a database from before the table has no such files */
		sqlite3_close(h);
		return 0;
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *hash = (const char *)sqlite3_column_text(st, 1);

		/* a bare file name of the folder, never a path out of it */
		if (!name || !*name || *name == '.' || strchr(name, '/')) {
			rc = set->media ? err_set(FD_EINVAL,
			                          _("%1$s names a medium %2$s that is not a file "
			                            "of its media folder"),
			                          path, name ? name : "")
			                : err_set(FD_EINVAL,
			                          _("%1$s names a signed document %2$s that is not "
			                            "a file of its esign folder"),
			                          path, name ? name : "");
			break;
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		(*out)[*n].name = xstrdup(name);
		snprintf((*out)[*n].sha256, sizeof(*out)[*n].sha256, "%s", hash ? hash : "");
		(*n)++;
	}
	if (!rc && step != SQLITE_DONE)
		rc = err_set(FD_EINVAL, _("cannot read the kept files of %1$s: %2$s"), path,
		             sqlite3_errmsg(h));
	sqlite3_finalize(st);
	sqlite3_close(h);
	if (rc) {
		free_docs(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

static char *join(const char *dir, const char *name)
{
	char *p = xmalloc(strlen(dir) + strlen(name) + 2);

	sprintf(p, "%s/%s", dir, name);
	return p;
}

/* Copy the document d from the folder from into the folder to (which
 * exists): to/<name>.tmp-<pid> (fsmode.h), fsync'd, checked against
 * d->sha256, renamed to to/<name>. FD_EINVAL naming it when the file at
 * from is missing or does not match its hash; FD_EIO when it cannot be
 * copied. */
static int copy_doc(const struct docset *set, const char *from, const char *to, const struct doc *d)
{
	char *src = join(from, d->name), *fin = join(to, d->name), *tmp = tmp_name(fin);
	char buf[65536], got[65] = "";
	int in = -1, out = -1, rc = 0;
	ssize_t r;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		rc = errno != ENOENT
		         ? err_set(FD_EIO, _("cannot read %1$s: %2$s"), src, strerror(errno))
		     : set->media
		         ? err_set(FD_EINVAL, _("the condition report's medium %s is missing"), src)
		         : err_set(FD_EINVAL, _("the signed document %s is missing"), src);
		goto out;
	}
	unlink(tmp); /* one left by a copy that was killed */
	out = fsmode_create(tmp);
	if (out < 0) {
		rc = err_set(FD_EIO, _("cannot create %1$s: %2$s"), tmp, strerror(errno));
		goto out;
	}
	while ((r = read(in, buf, sizeof buf)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || write(out, buf, (size_t)r) != r) {
			rc = err_set(FD_EIO, _("cannot copy %1$s to %2$s: %3$s"), src, tmp,
			             strerror(errno));
			goto out;
		}
	}
	if (fsync(out) != 0 || close(out) != 0) {
		out = -1;
		rc = err_set(FD_EIO, _("cannot write %1$s: %2$s"), tmp, strerror(errno));
		goto out;
	}
	out = -1;
	if ((rc = esign_file_sha256(tmp, got)))
		goto out;
	if (strcmp(got, d->sha256)) {
		rc = set->media ? err_set(FD_EINVAL,
		                          _("the condition report's medium %s does not match the "
		                            "SHA-256 recorded for it"),
		                          src)
		                : err_set(FD_EINVAL,
		                          _("the signed document %s does not match the SHA-256 "
		                            "recorded for it"),
		                          src);
		goto out;
	}
	if (rename(tmp, fin) != 0)
		rc = err_set(FD_EIO, _("cannot rename %1$s to %2$s: %3$s"), tmp, fin,
		             strerror(errno));
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (rc)
		unlink(tmp);
	free(src);
	free(fin);
	free(tmp);
	return rc;
}

/* Copy every document of docs from the folder from into the folder to,
 * made here (fsmode.h) when missing. With skip_same, a document whose file
 * in to already matches its hash is left as it is. */
static int copy_docs(const struct docset *set, const struct doc *docs, size_t n, const char *from,
                     const char *to, int skip_same)
{
	char *probe = join(to, "x"), got[65];
	size_t i;
	int rc;

	rc = fsmode_mkdirs(probe);
	free(probe);
	for (i = 0; !rc && i < n; i++) {
		if (skip_same) {
			char *have = join(to, docs[i].name);
			int same =
			    esign_file_sha256(have, got) == 0 && !strcmp(got, docs[i].sha256);

			free(have);
			if (same)
				continue;
		}
		rc = copy_doc(set, from, to, &docs[i]);
	}
	if (!rc) {
		char *last = join(to, ".");

		sync_parent(last);
		free(last);
	}
	return rc;
}

/* Remove the folder dir and the files in it (a documents folder of a
 * backup holds no sub-folders). */
static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *p;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = join(dir, e->d_name);
		unlink(p);
		free(p);
	}
	closedir(d);
	rmdir(dir);
}

/* rename from to to, or say why not (FD_EIO). */
static int rename_or_say(const char *from, const char *to)
{
	if (rename(from, to) != 0)
		return err_set(FD_EIO, _("cannot rename %1$s to %2$s: %3$s"), from, to,
		               strerror(errno));
	return 0;
}

/* The names take works with and what it has made so far, for its clean-up. */
struct take_work {
	char *log, *log_dest; /* the live request log; its backup beside dest */
	char *tmp, *log_tmp;  /* the copies being made (log_tmp NULL until then) */
	struct take_docs {
		char *dest, *tmp; /* the folder's backup beside dest; the one being made */
		char *old;        /* an existing dest, moved aside (BACKUP_FORCE) */
		char *live;       /* the live folder */
		struct doc *docs; /* the files of the set the copy names */
		size_t n;
		int had;       /* dest existed before */
		int moved_old; /* dest is at old until the backup has its name */
		int placed;    /* tmp was renamed to dest */
	} d[NDOCSETS];         /* by docsets[] */
	int have_log;          /* the live request log exists */
};

/* take_check_dest - refuse a dest that is the live database or its log,
 * or one that exists without BACKUP_FORCE. */
static int take_check_dest(struct db *db, const char *dest, int flags, struct take_work *t)
{
	struct stat sb;
	size_t i;
	int rc;

	t->have_log = stat(t->log, &sb) == 0;
	if (same_file(dest, db_path(db)) || (t->have_log && same_file(dest, t->log)) ||
	    (t->have_log && same_file(t->log_dest, t->log)) || same_file(t->log_dest, db_path(db)))
		return err_set(FD_EINVAL,
		               _("%s is the live database or its request log; back up to "
		                 "another file"),
		               dest);
	if ((rc = dest_free(dest, flags, _("the backup"))) == 0 && t->have_log)
		rc = dest_free(t->log_dest, flags, _("the request log's backup"));
	for (i = 0; i < NDOCSETS; i++) {
		t->d[i].had = lstat(t->d[i].dest, &sb) == 0;
		if (rc == 0 && t->d[i].had && !(flags & BACKUP_FORCE))
			rc = err_set(FD_ECONFLICT,
			             _("%1$s %2$s already exists; nothing was written (--force "
			               "replaces it)"),
			             i == 0 ? _("the signed documents' backup")
			                    : _("the condition reports' media backup"),
			             t->d[i].dest);
	}
	return rc;
}

/* take_still_due - with the lock held, *not_due = 1 when the nightly
 * backup is no longer due. */
static int take_still_due(const struct backup_nightly_opts *nightly, int *not_due)
{
	int rc, due = 1;

	if ((rc = backup_nightly_due(nightly, clock_now(), &due)))
		return rc;
	if (!due)
		*not_due = 1;
	return 0;
}

/* take_copy - copy the database into t->tmp and check it, its final
 * documents into t->docs_tmp and the request log into its backup. */
static int take_copy(struct db *db, struct take_work *t, volatile sig_atomic_t *stop,
                     int64_t *taken)
{
	size_t i;
	int rc;

	if ((rc = copy_into_new(db_sqlite(db), t->tmp, stop, taken)))
		return rc;
	/* the copy's snapshot kept the -wal from being copied back: copy it
	 * now, before the checks of the copy (best effort: else the next
	 * commit's checkpoint does it) */
	db_checkpoint(db);
	if ((rc = verify_file(t->tmp, db_path(db), DB_OPEN_READONLY, 1)))
		return rc;
	/* the kept files the copy names (not the live rows: the set must match
	 * the copy), each checked against the hash the copy records */
	for (i = 0; i < NDOCSETS; i++) {
		struct take_docs *d = &t->d[i];

		if ((rc = read_docs(&docsets[i], t->tmp, &d->docs, &d->n)))
			return rc;
		if (!d->n)
			continue;
		remove_tree(d->tmp); /* one left by a backup that was killed */
		if ((rc = copy_docs(&docsets[i], d->docs, d->n, d->live, d->tmp, 0)))
			return rc;
	}
	if (t->have_log) {
		t->log_tmp = tmp_name(t->log_dest);
		if ((rc = copy_log(t->log, t->log_tmp, stop)))
			return rc;
		return rename_or_say(t->log_tmp, t->log_dest);
	}
	return 0;
}

/* take_put_in_place - give the kept files' folders and the database copy
 * their names; on a failure, take back what was put in place. */
static int take_put_in_place(struct take_work *t, const char *dest)
{
	size_t i;
	int rc = 0;

	/* the folder of an existing backup (BACKUP_FORCE) is moved aside until
	 * the new backup has its name, and then removed */
	for (i = 0; i < NDOCSETS; i++) {
		struct take_docs *d = &t->d[i];

		if (d->had) {
			if ((rc = rename_or_say(d->dest, d->old)))
				goto out;
			d->moved_old = 1;
		}
		if (d->n) {
			if ((rc = rename_or_say(d->tmp, d->dest)))
				goto out;
			d->placed = 1;
		}
	}
	if ((rc = rename_or_say(t->tmp, dest)))
		goto out;
	sync_parent(dest);
	for (i = 0; i < NDOCSETS; i++)
		if (t->d[i].moved_old) {
			remove_tree(t->d[i].old);
			t->d[i].moved_old = 0;
		}
out:
	if (rc && t->have_log)
		unlink(t->log_dest);
	for (i = 0; rc && i < NDOCSETS; i++)
		if (t->d[i].placed)
			remove_tree(t->d[i].dest);
	return rc;
}

/* take_work_free - remove what take left half made and free its names. */
static void take_work_free(struct take_work *t)
{
	size_t i;

	remove_db(t->tmp);
	if (t->log_tmp)
		remove_db(t->log_tmp);
	for (i = 0; i < NDOCSETS; i++) {
		struct take_docs *d = &t->d[i];

		if (d->moved_old && rename(d->old, d->dest) != 0)
			remove_tree(d->old);
		remove_tree(d->tmp);
		free_docs(d->docs, d->n);
		free(d->dest);
		free(d->tmp);
		free(d->old);
		free(d->live);
	}
	free(t->log_tmp);
	free(t->tmp);
	free(t->log);
	free(t->log_dest);
}

/* The work of backup_take; nightly (may be NULL): re-check that the backup
 * is still due once the lock is held (*not_due = 1 when it is not). */
static int take(struct db *db, const char *dest, int flags, volatile sig_atomic_t *stop,
                const struct backup_nightly_opts *nightly, int *not_due, struct backup_result *res)
{
	struct control_hold lock;
	struct take_work t = {0};
	char *live_dir = fsmode_parent(db_path(db));
	int rc, locked = 0;
	int64_t taken = 0;
	size_t i;

	t.log = pipe_log_default_path(db_path(db));
	t.log_dest = pipe_log_path_beside(dest);
	t.tmp = tmp_name(dest);
	for (i = 0; i < NDOCSETS; i++) {
		struct take_docs *d = &t.d[i];
		char *ext = concat(".", docsets[i].folder);

		d->dest = concat(dest, ext);
		d->tmp = tmp_name(d->dest);
		d->old = concat(d->tmp, "-old");
		d->live = join(live_dir, docsets[i].folder);
		free(ext);
	}
	free(live_dir);
	memset(res, 0, sizeof *res);
	rc = take_check_dest(db, dest, flags, &t);
	if (rc == 0)
		rc = control_acquire(db, CONTROL_BACKUP, CONTROL_LOCK, LOCK_TTL, &lock);
	if (rc == FD_ECONFLICT && nightly) {
		*not_due = 1; /* another server is taking it, or has just taken it */
		rc = 0;
	}
	if (rc || *not_due)
		goto out;
	locked = 1;
	if (nightly && ((rc = take_still_due(nightly, not_due)) || *not_due))
		goto out;
	if ((rc = take_copy(db, &t, stop, &taken)))
		goto out;
	if ((rc = take_put_in_place(&t, dest)))
		goto out;
	res->path = xstrdup(dest);
	res->log_path = t.have_log ? xstrdup(t.log_dest) : NULL;
	res->esign_path = t.d[0].n ? xstrdup(t.d[0].dest) : NULL;
	res->media_path = t.d[1].n ? xstrdup(t.d[1].dest) : NULL;
	res->taken_at = taken;
	rc = control_stamp(db, CONTROL_BACKUP_LAST, taken);
	if (rc)
		backup_result_free(res); /* the copy is good; the stamp failed: say so */
out:
	if (locked)
		control_release(db, &lock);
	take_work_free(&t);
	return rc;
}

/* A setgid frontdesk (privs.h) writes a backup and reads a backup to
 * restore only where the person running it could themselves: access(2)
 * asks with the real user and group, not the program's group. A file the
 * user named must never be reached with the group's rights (a folder only
 * the group may write, a file only the group may read). */
static int user_may(const char *path, int dir, int mode)
{
	char *where = dir ? fsmode_parent(path) : xstrdup(path);
	int ok = !privs_elevated() || access(where, mode) == 0;

	free(where);
	if (ok)
		return 0;
	return err_set(FD_EINVAL,
	               dir ? _("you cannot write in the folder of %s yourself; frontdesk writes "
	                       "a backup only where its user could")
	                   : _("you cannot read %s yourself; frontdesk restores only a file its "
	                       "user could read"),
	               path);
}

int backup_take(struct db *db, const char *dest, int flags, volatile sig_atomic_t *stop,
                struct backup_result *res)
{
	int not_due = 0, rc;

	memset(res, 0, sizeof *res);
	if (!dest || !*dest)
		return err_set(FD_EINVAL, _("no backup file given"));
	/* a person's backup; the nightly one (backup_nightly_once) is the
	 * shop's own schedule and asks nothing */
	if ((rc = control_ask(db, PERM_BACKUP, 0, "take a backup")))
		return rc;
	if ((rc = user_may(dest, 1, W_OK | X_OK)))
		return rc;
	return take(db, dest, flags, stop, NULL, &not_due, res);
}

int backup_last(struct db *db, int64_t *t)
{
	return control_stamp_get(db, CONTROL_BACKUP_LAST, t);
}

/* ---------------------------------------------------------------- restore */

/* A new name for the replaced database that does not exist yet:
 * "<live>.replaced-YYYYmmddTHHMMSS", with "-2", "-3"... if taken. */
static char *replaced_name(const char *live)
{
	char stamp[32], suffix[64];
	struct stat sb;
	char *name;
	int i;

	clock_format_local(clock_real(), "%Y%m%dT%H%M%S", stamp, sizeof stamp);
	for (i = 1;; i++) {
		if (i == 1)
			snprintf(suffix, sizeof suffix, ".replaced-%s", stamp);
		else
			snprintf(suffix, sizeof suffix, ".replaced-%s-%d", stamp, i);
		name = concat(live, suffix);
		if (lstat(name, &sb) != 0)
			return name;
		free(name);
	}
}

/* Take the exclusive lock on the live database (held until *out is
 * closed). FD_EBUSY when another session has it open. */
static int lock_live(const char *live, sqlite3 **out)
{
	sqlite3 *h;
	int rc;

	if (open_raw(live, SQLITE_OPEN_READWRITE, &h))
		return FD_EIO; /* with open_raw's reason */
	sqlite3_busy_timeout(h, RESTORE_WAIT);
	/* set before the first access: then SQLite keeps the lock on the file
	 * itself, which no other connection (even an idle WAL reader) allows */
	if (sqlite3_exec(h, "PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT", NULL, NULL,
	                 NULL) != SQLITE_OK) {
		int ec = sqlite3_errcode(h) & 0xff;

		rc = ec == SQLITE_BUSY || ec == SQLITE_LOCKED
		         ? err_set(FD_EBUSY,
		                   _("another session has %s open (the desk screen, "
		                     "'frontdesk serve' or a command); close it, then "
		                     "restore"),
		                   live)
		         : err_set(FD_EIO, _("cannot lock %1$s: %2$s"), live, sqlite3_errmsg(h));
		sqlite3_close(h);
		return rc;
	}
	*out = h;
	return 0;
}

/* Write the database file src into the locked live connection dst. */
static int write_into(const char *src, sqlite3 *dst, const char *live)
{
	sqlite3 *h;
	sqlite3_backup *b;
	int rc, step;

	/* read-write, so that closing it removes the -wal and -shm that
	 * checking it with db_open made */
	if ((rc = open_raw(src, SQLITE_OPEN_READWRITE, &h)))
		return rc;
	b = sqlite3_backup_init(dst, "main", h, "main");
	if (!b) {
		rc = err_set(FD_EIO, _("cannot write %1$s: %2$s"), live, sqlite3_errmsg(dst));
		goto out;
	}
	step = sqlite3_backup_step(b, -1);
	if (sqlite3_backup_finish(b) != SQLITE_OK || step != SQLITE_DONE)
		rc = err_set(FD_EIO, _("cannot write %1$s: %2$s"), live, sqlite3_errmsg(dst));
out:
	sqlite3_close(h);
	return rc;
}

/* What backup_restore has made so far, for its clean-up. */
struct restore_work {
	char *work;     /* the checked working copy beside the live file */
	char *old;      /* the copy of the database it replaces */
	char *live_dir; /* the live file's folder */
	struct restore_docs {
		char *from;       /* FILE.<folder> */
		char *live;       /* the live folder */
		struct doc *docs; /* the files of the set the working copy names */
		size_t n;
	} d[NDOCSETS]; /* by docsets[] */
	sqlite3 *lk;   /* the live file, locked (NULL when not) */
	int written;   /* the live file was written */
};

/* restore_check_names - refuse a file that is missing, not a regular file
 * or the live database itself; *live_exists = 1 when live exists. */
static int restore_check_names(const char *live, const char *file, int *live_exists)
{
	struct stat sb;

	if (!file || !*file || stat(file, &sb) != 0)
		return err_set(FD_ENOTFOUND, _("there is no backup at %s"), file ? file : "");
	if (!S_ISREG(sb.st_mode))
		return err_set(FD_EINVAL, _("%s is not a file"), file);
	*live_exists = stat(live, &sb) == 0;
	if (*live_exists && same_file(live, file))
		return err_set(FD_EINVAL, _("%s is the live database itself"), file);
	return 0;
}

/* restore_copy - 1. the file to restore must be readable, whole, a
 * frontdesk database; 2. copy it into *work (NULL on a failure), a working
 * copy beside the live file, brought up to our schema. */
static int restore_copy(const char *live, const char *file, char **work)
{
	sqlite3 *h = NULL;
	int rc;

	if ((rc = db_check_file(file)))
		return rc == FD_ESCHEMA ? FD_EINVAL : rc;
	/* read without making a -wal or -shm beside it (a backup is often in
	 * a read-only folder, or read-only itself) */
	if (db_open_raw_readonly(file, &h) != SQLITE_OK) {
		rc = err_set(FD_EINVAL, _("cannot open %s: %s"), file,
		             h ? sqlite3_errmsg(h) : "out of memory");
		sqlite3_close(h);
		return rc;
	}
	sqlite3_extended_result_codes(h, 1);
	sqlite3_busy_timeout(h, 2000);
	rc = integrity(h, file);
	if (!rc)
		rc = is_frontdesk(h, file);
	if (!rc && (rc = fsmode_mkdirs(live)) == 0) {
		*work = tmp_name(live);
		rc = copy_into_new(h, *work, NULL, NULL);
		if (rc) {
			free(*work);
			*work = NULL;
		}
	}
	sqlite3_close(h);
	return rc;
}

/* restore_docs - the kept files the working copy names, from the folders
 * beside the backup into the live ones (one already there with the right
 * hash is kept). */
static int restore_docs(struct restore_work *r)
{
	size_t i;
	int rc;

	for (i = 0; i < NDOCSETS; i++)
		if (r->d[i].n && (rc = copy_docs(&docsets[i], r->d[i].docs, r->d[i].n, r->d[i].from,
		                                 r->d[i].live, 1)))
			return rc;
	return 0;
}

/* restore_new - nothing to replace (a new machine): the kept files go in
 * place and the checked copy becomes the live file. */
static int restore_new(struct restore_work *r, const char *live)
{
	int rc;

	if ((rc = restore_docs(r)))
		return rc;
	if ((rc = rename_or_say(r->work, live)))
		return rc;
	sync_parent(live);
	return 0;
}

/* restore_over - 3. with the live file locked, put the documents in place,
 * keep a copy of the live database as r->old and write the checked copy
 * into it; 4. check it as any session will open it. */
static int restore_over(struct restore_work *r, const char *live, char **replaced)
{
	int rc;

	/* nobody else may have the live file open, from now to the end */
	if ((rc = lock_live(live, &r->lk)))
		return rc;
	if ((rc = restore_docs(r)))
		return rc;
	r->old = replaced_name(live);
	if ((rc = copy_into_new(r->lk, r->old, NULL, NULL)))
		return rc;
	if ((rc = write_into(r->work, r->lk, live)))
		return rc;
	r->written = 1;
	if ((rc = integrity(r->lk, live)))
		return rc;
	sqlite3_close(r->lk);
	r->lk = NULL;
	sync_parent(r->old);
	/* the restored database, as any session will open it */
	if ((rc = verify_file(live, live, 0, 0)))
		return rc;
	if (replaced) {
		*replaced = r->old;
		r->old = NULL;
	}
	return 0;
}

/* Whoever restores over a live database must hold backup in it: asked on
 * a connection of its own, closed again before the restore locks the
 * file. FD_EPERM when they are not in its register or lack backup. A live
 * file that does not open as a frontdesk database, or whose register
 * cannot be read (damaged: the reason for a restore), has nobody to ask. */
static int restore_may(const char *live)
{
	struct db *db = NULL;
	int rc = db_open(live, DB_OPEN_NO_MIGRATE, &db);

	if (rc == 0) {
		rc = control_ask(db, PERM_BACKUP, 0, "restore a backup");
		db_close(db);
	}
	if (rc && rc != FD_EPERM) {
		err_clear();
		rc = 0;
	}
	return rc;
}

int backup_restore(const char *live, const char *file, char **replaced)
{
	struct restore_work r = {0};
	int rc, live_exists = 0;
	size_t i;

	if (replaced)
		*replaced = NULL;
	if ((rc = restore_check_names(live, file, &live_exists)))
		return rc;
	if (live_exists && (rc = restore_may(live)))
		return rc;
	if ((rc = user_may(file, 0, R_OK)))
		return rc;
	if ((rc = restore_copy(live, file, &r.work)))
		goto out;
	if ((rc = verify_file(r.work, file, 0, 1)))
		goto out;
	/* the kept files it names, from FILE.esign and FILE.media into the
	 * live folders (one already there with the right hash is kept), once no
	 * other session can see them change */
	r.live_dir = fsmode_parent(live);
	for (i = 0; i < NDOCSETS; i++) {
		char *ext = concat(".", docsets[i].folder);

		r.d[i].from = concat(file, ext);
		r.d[i].live = join(r.live_dir, docsets[i].folder);
		free(ext);
		if ((rc = read_docs(&docsets[i], r.work, &r.d[i].docs, &r.d[i].n)))
			goto out;
	}
	rc = live_exists ? restore_over(&r, live, replaced) : restore_new(&r, live);
out:
	if (r.lk)
		sqlite3_close(r.lk);
	if (rc && r.written) {
		char why[768];

		snprintf(why, sizeof why, "%s", err_msg());
		err_set(rc, _("%1$s (the database it replaced is kept as %2$s)"), why, r.old);
	}
	if (rc && r.old && !r.written)
		unlink(r.old); /* the live file was not replaced: it is its own copy */
	if (r.work)
		remove_db(r.work);
	for (i = 0; i < NDOCSETS; i++) {
		free_docs(r.d[i].docs, r.d[i].n);
		free(r.d[i].from);
		free(r.d[i].live);
	}
	free(r.live_dir);
	free(r.work);
	free(r.old);
	return rc;
}

/* ---------------------------------------------------------------- nightly */

void backup_nightly_opts_default(struct backup_nightly_opts *o)
{
	const char *dir = config_get("backup_dir", NULL);
	long keep = config_get_int("backup_keep", 7), hour = config_get_int("backup_hour", 2);

	memset(o, 0, sizeof *o);
	o->dir = dir && *dir ? dir : NULL;
	o->keep = keep < 1 ? 1 : keep > 10000 ? 10000 : (int)keep;
	o->hour = hour < 0 || hour > 23 ? 2 : (int)hour;
}

char *backup_nightly_name(int64_t t)
{
	char name[64];

	clock_format_local(t, NIGHTLY_PREFIX "%Y%m%dT%H%M%S.db", name, sizeof name);
	return xstrdup(name);
}

/* 1 when name is a nightly backup's ("frontdesk-YYYYmmddTHHMMSS.db"). */
static int nightly_file(const char *name)
{
	size_t p = sizeof NIGHTLY_PREFIX - 1, i;

	if (strlen(name) != p + 15 + 3 || strncmp(name, NIGHTLY_PREFIX, p) != 0 ||
	    strcmp(name + p + 15, ".db") != 0)
		return 0;
	for (i = 0; i < 15; i++)
		if (i == 8 ? name[p + i] != 'T' : (name[p + i] < '0' || name[p + i] > '9'))
			return 0;
	return 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The nightly backups in dir, sorted oldest first (names sort by time);
 * *out is a new array of new strings (free_names). A missing folder has
 * none. */
static int list_nightly(const char *dir, char ***out, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return err_set(FD_EIO, _("cannot read the folder %1$s: %2$s"), dir,
		               strerror(errno));
	}
	while ((e = readdir(d)) != NULL) {
		if (!nightly_file(e->d_name))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		(*out)[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(*out, *n, sizeof **out, by_name);
	return 0;
}

static void free_names(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int backup_nightly_due(const struct backup_nightly_opts *o, int64_t now, int *due)
{
	char hour[8], today[64];
	char **names;
	size_t n, i, len;
	int rc;

	*due = 0;
	clock_format_local(now, "%H", hour, sizeof hour);
	if (atoi(hour) < o->hour)
		return 0;
	if ((rc = list_nightly(o->dir, &names, &n)))
		return rc;
	clock_format_local(now, NIGHTLY_PREFIX "%Y%m%dT", today, sizeof today);
	len = strlen(today);
	*due = 1;
	for (i = 0; i < n; i++)
		if (!strncmp(names[i], today, len))
			*due = 0;
	free_names(names, n);
	return 0;
}

/* Delete the oldest nightly backups of dir beyond keep, with their logs,
 * their signed documents and their media. */
static void prune(const struct backup_nightly_opts *o)
{
	char **names, *path, *log, msg[512];
	size_t n, i, k;

	if (list_nightly(o->dir, &names, &n))
		return;
	for (i = 0; i + (size_t)o->keep < n; i++) {
		path = xmalloc(strlen(o->dir) + strlen(names[i]) + 2);
		sprintf(path, "%s/%s", o->dir, names[i]);
		log = pipe_log_path_beside(path);
		if (unlink(path) == 0 && o->say) {
			snprintf(msg, sizeof msg, _("removed the old backup %s"), path);
			o->say(msg, o->say_arg);
		}
		unlink(log);
		for (k = 0; k < NDOCSETS; k++) {
			char *ext = concat(".", docsets[k].folder), *docs = concat(path, ext);

			remove_tree(docs);
			free(docs);
			free(ext);
		}
		free(log);
		free(path);
	}
	free_names(names, n);
}

int backup_nightly_once(struct db *db, const struct backup_nightly_opts *o,
                        volatile sig_atomic_t *stop, int *taken)
{
	struct backup_result res;
	char *name = NULL, *path = NULL, msg[512];
	int rc, due = 0, not_due = 0;

	if (taken)
		*taken = 0;
	if (!o->dir)
		return 0;
	if ((rc = backup_nightly_due(o, clock_now(), &due)) || !due)
		return rc;
	name = backup_nightly_name(clock_now());
	path = xmalloc(strlen(o->dir) + strlen(name) + 2);
	sprintf(path, "%s/%s", o->dir, name);
	if ((rc = fsmode_mkdirs(path)))
		goto out;
	rc = take(db, path, 0, stop, o, &not_due, &res);
	if (rc || not_due)
		goto out;
	if (o->say) {
		snprintf(msg, sizeof msg, _("backup written to %s and checked"), res.path);
		o->say(msg, o->say_arg);
	}
	backup_result_free(&res);
	if (taken)
		*taken = 1;
	prune(o);
out:
	free(name);
	free(path);
	return rc;
}

struct backup_nightly {
	pthread_t th;
	struct db *db;
	struct backup_nightly_opts o;
	char *dir;
	volatile sig_atomic_t stop;
};

static void *nightly_main(void *arg)
{
	struct backup_nightly *b = arg;
	char msg[768];
	int i;

	while (!stop_requested(&b->stop)) {
		if (backup_nightly_once(b->db, &b->o, &b->stop, NULL) != 0 &&
		    !stop_requested(&b->stop) && b->o.say) {
			snprintf(msg, sizeof msg, _("the nightly backup failed: %s"), err_msg());
			b->o.say(msg, b->o.say_arg);
		}
		for (i = 0; i < 300 && !stop_requested(&b->stop);
		     i++) /* a minute, in fifths of a second */
			sleep_ms(200);
	}
	return NULL;
}

int backup_nightly_start(const char *path, const struct backup_nightly_opts *o,
                         struct backup_nightly **out)
{
	struct backup_nightly *b = xcalloc(1, sizeof *b);
	sigset_t all, old;
	int rc, made;

	*out = NULL;
	b->o = *o;
	b->dir = xstrdup(o->dir ? o->dir : ".");
	b->o.dir = b->dir;
	if ((rc = db_open(path, 0, &b->db)) != 0)
		goto fail;
	/* the signals stay with the main thread (serve's handler) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	made = pthread_create(&b->th, NULL, nightly_main, b);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (made != 0) {
		rc = err_set(FD_EIO, _("cannot start the backup thread"));
		goto fail;
	}
	*out = b;
	return 0;
fail:
	db_close(b->db);
	free(b->dir);
	free(b);
	return rc;
}

void backup_nightly_stop(struct backup_nightly *b)
{
	if (!b)
		return;
	stop_set(&b->stop, 1);
	pthread_join(b->th, NULL);
	db_close(b->db);
	free(b->dir);
	free(b);
}
