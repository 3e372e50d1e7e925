/*
 * fsmode.c - modes of new files and folders (see fsmode.h).
 *
 * Invariant: nothing is made wider than its folder allows: the group gets
 * at most the folder's group bits, others never get anything.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "fsmode.h"
#include "i18n.h"
#include "xalloc.h"

/* The folder's mode when it is setgid, else 0. */
static mode_t shared_bits(const char *dir)
{
	struct stat sb;

	if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode) || !(sb.st_mode & S_ISGID))
		return 0;
	return sb.st_mode;
}

mode_t fsmode_file(const char *dir)
{
	mode_t m = shared_bits(dir);

	return 0600 | (m & (S_IRGRP | S_IWGRP));
}

mode_t fsmode_dir(const char *dir)
{
	mode_t m = shared_bits(dir);

	return m ? (S_ISGID | 0700 | (m & S_IRWXG)) : 0700;
}

char *fsmode_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	dir = xmalloc((size_t)(slash - path) + 1);
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	return dir;
}

int fsmode_create(const char *path)
{
	char *dir = fsmode_parent(path);
	mode_t mode = fsmode_file(dir);
	int fd, saved;

	free(dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	if (fchmod(fd, mode) != 0) { /* the umask may have narrowed it */
		saved = errno;
		close(fd);
		unlink(path);
		errno = saved;
		return -1;
	}
	return fd;
}

int fsmode_mkdirs(const char *path)
{
	char *dir = xstrdup(path), *s, *parent;
	int rc = 0;
	mode_t mode;

	for (s = dir + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		parent = fsmode_parent(dir);
		mode = fsmode_dir(parent);
		free(parent);
		if (mkdir(dir, mode) == 0) {
			chmod(dir, mode); /* past the umask; setgid kept */
		} else if (errno != EEXIST) {
			rc = err_set(FD_EIO, _("cannot create the folder %s: %s"), dir,
			             strerror(errno));
			break;
		}
		*s = '/';
	}
	free(dir);
	return rc;
}
