/*
 * export.c - the range and the output file of an export (see export.h).
 *
 * Invariant: the file named by --output is only ever changed by one
 * rename() of a complete, synced temporary file in the same folder. A
 * setgid frontdesk (privs.h) makes, renames and removes these files with
 * the user's own rights: they are the user's, and a folder only its group
 * may write is refused.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "err.h"
#include "export.h"
#include "i18n.h"
#include "privs.h"
#include "xalloc.h"

/* A day alone: "YYYY-MM-DD" with nothing after it. */
static int date_only(const char *s)
{
	return strlen(s) == 10;
}

int export_range_parse(const char *from, const char *to, struct export_range *r)
{
	char a[32], b[32], why[256];
	int rc;

	r->from = INT64_MIN;
	r->to = INT64_MAX;
	if (from) {
		if ((rc = clock_parse_local(from, &r->from)) != 0) {
			snprintf(why, sizeof why, "%s", err_msg());
			return err_set(rc, _("--from: %s"), why);
		}
		if (date_only(from))
			r->from = clock_day_start(r->from);
	}
	if (to) {
		if ((rc = clock_parse_local(to, &r->to)) != 0) {
			snprintf(why, sizeof why, "%s", err_msg());
			return err_set(rc, _("--to: %s"), why);
		}
		if (date_only(to))
			r->to = clock_add_days(clock_day_start(r->to), 1);
	}
	if (r->from >= r->to) {
		clock_format_local(r->from, "%Y-%m-%d %H:%M", a, sizeof a);
		clock_format_local(r->to, "%Y-%m-%d %H:%M", b, sizeof b);
		return err_set(FD_EINVAL,
		               _("the range is empty: --from (%s) must come before the end of --to "
		                 "(%s)"),
		               a, b);
	}
	return 0;
}

/* The user's rights for a file the user asked for (ef->own 0). */
static int as_user(const struct export_file *ef)
{
	return ef->own ? 0 : privs_user_begin();
}

static void as_program(const struct export_file *ef)
{
	if (!ef->own)
		privs_user_end();
}

static int file_open(struct export_file *ef, const char *path, int own)
{
	size_t n;
	int fd;

	memset(ef, 0, sizeof *ef);
	ef->own = own;
	if (!path) {
		ef->f = stdout;
		return 0;
	}
	n = strlen(path) + sizeof ".tmp-XXXXXX";
	ef->tmp = xmalloc(n);
	snprintf(ef->tmp, n, "%s.tmp-XXXXXX", path);
	fd = as_user(ef) == 0 ? mkstemp(ef->tmp) : -2;
	if (fd < 0 || fchmod(fd, 0600) != 0 || !(ef->f = fdopen(fd, "w"))) {
		int e = errno;

		if (fd >= 0) {
			close(fd);
			unlink(ef->tmp);
		}
		if (fd != -2)
			as_program(ef);
		free(ef->tmp);
		ef->tmp = NULL;
		return err_set(FD_EIO, _("cannot write %s: %s"), path, strerror(e));
	}
	as_program(ef);
	ef->path = xstrdup(path);
	return 0;
}

int export_file_open(struct export_file *ef, const char *path)
{
	return file_open(ef, path, 0);
}

int export_file_open_own(struct export_file *ef, const char *path)
{
	return file_open(ef, path, 1);
}

int export_file_finish(struct export_file *ef, int rc)
{
	int e = 0;

	if (!ef->path) {
		if (ef->f && (fflush(ef->f) != 0 || ferror(ef->f)) && !rc)
			rc = err_set(FD_EIO, _("cannot write the export: %s"), strerror(errno));
		memset(ef, 0, sizeof *ef);
		return rc;
	}
	if (!rc && (fflush(ef->f) != 0 || ferror(ef->f) || fsync(fileno(ef->f)) != 0))
		e = errno ? errno : EIO;
	if (fclose(ef->f) != 0 && !e)
		e = errno;
	if (as_user(ef) != 0) {
		e = e ? e : errno; /* the temporary file stays: it is the user's to remove */
	} else {
		if (!rc && !e && rename(ef->tmp, ef->path) != 0)
			e = errno;
		if (rc || e)
			unlink(ef->tmp);
		as_program(ef);
	}
	if (!rc && e)
		rc = err_set(FD_EIO, _("cannot write %s: %s"), ef->path, strerror(e));
	free(ef->path);
	free(ef->tmp);
	memset(ef, 0, sizeof *ef);
	return rc;
}
