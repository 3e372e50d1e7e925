/*
 * log.c - the optional debug log file (see log.h). Thread-safe: each line is
 * written with one fprintf under the stdio lock. A setgid frontdesk
 * (privs.h) opens it with the user's own rights: the file is the user's,
 * never the program's group's, and a file only that group may write is
 * refused.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "i18n.h"
#include "log.h"
#include "privs.h"

static FILE *log_file;

int log_open(const char *path)
{
	int fd = privs_open_user(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);

	if (fd < 0)
		return err_set(FD_EIO, _("cannot open the debug log %s: %s"), path,
		               strerror(errno));
	log_close();
	log_file = fdopen(fd, "a");
	if (!log_file) {
		close(fd);
		return err_set(FD_EIO, _("cannot open the debug log %s: %s"), path,
		               strerror(errno));
	}
	setvbuf(log_file, NULL, _IOLBF, 0);
	return 0;
}

void log_debug(const char *fmt, ...)
{
	char line[2048], ts[32];
	struct timespec now;
	struct tm tm;
	va_list ap;

	if (!log_file)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(log_file, "%s.%03ldZ [%ld] %s\n", ts, now.tv_nsec / 1000000L, (long)getpid(), line);
}

void log_close(void)
{
	if (log_file)
		fclose(log_file);
	log_file = NULL;
}
