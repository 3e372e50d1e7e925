/*
 * export.h - what every export shares: the range of time it covers and the
 * file it writes.
 *
 * A range is [from, to) in UTC seconds, read from the --from and --to of
 * the command line in shop time: a day alone means its midnight for --from
 * and the end of that day for --to (the day is included); a date and time
 * is that instant. A missing end leaves the range open on that side.
 *
 * A file is written whole or not at all: the rows go to a new temporary
 * file beside it (mode 0600, made with mkstemp, so it never follows a link
 * or overwrites anything), which replaces the file by rename() only when
 * everything was written and flushed to disk; on any error it is removed
 * and an existing file keeps its old content. Exports hold customer names
 * and addresses, so the file is 0600 whatever the umask. Without a path the
 * rows go to stdout.
 *
 * Callers: the iCalendar and CSV exports (export-ical.c, export-csv.c) and
 * their commands (cli-report.c).
 */
#ifndef FD_EXPORT_H
#define FD_EXPORT_H

#include <stdint.h>
#include <stdio.h>

struct export_range {
	int64_t from; /* INT64_MIN when open */
	int64_t to;   /* exclusive; INT64_MAX when open */
};

/* export_range_parse - the range from the texts of --from and --to (each
 * may be NULL). FD_EINVAL with a reason naming the option for a text that
 * is not a date (clock_parse_local's forms), or when the range is empty
 * (--from after --to). */
int export_range_parse(const char *from, const char *to, struct export_range *r);

struct export_file {
	FILE *f;    /* where to write the rows */
	char *path; /* the file to replace; NULL for stdout */
	char *tmp;  /* the temporary file being written */
	int own;    /* the program's own file (export_file_open_own) */
};

/* export_file_open - start writing to path (NULL: stdout), a file the user
 * asked for: a setgid frontdesk makes it with the user's own rights
 * (privs.h). FD_EIO with a reason when the temporary file cannot be made. */
int export_file_open(struct export_file *ef, const char *path);

/* export_file_open_own - the same for a file of the program's own, in the
 * database's folder (an estimate's PDF): made with the program's rights. */
int export_file_open_own(struct export_file *ef, const char *path);

/* export_file_finish - end the export: when rc is 0, flush, sync and close
 * the temporary file and rename it over path (or flush stdout); otherwise,
 * or when that fails, remove the temporary file. Returns rc, or FD_EIO with
 * a reason when writing failed. ef is released in every case. */
int export_file_finish(struct export_file *ef, int rc);

#endif
