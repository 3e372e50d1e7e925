/*
 * fsmode.c - modes of new files and folders (see fsmode.h).
 *
 * Invariant: nothing is made wider than its folder allows: the group gets
 * at most the folder's group bits, others never get anything.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crypto-dyn.h"
#include "err.h"
#include "fsmode.h"
#include "i18n.h"
#include "strbuf.h"
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

/* Read the whole file path (at most max bytes). FD_ENOTFOUND when it is
 * missing, FD_EIO when it cannot be read. */
int fsmode_read_file(const char *path, size_t max, unsigned char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct strbuf sb = {0};
	char buf[65536];
	size_t n;

	*out = NULL;
	*len = 0;
	if (!f)
		return errno == ENOENT
		           ? err_set(FD_ENOTFOUND, _("%s is missing"), path)
		           : err_set(FD_EIO, _("cannot read %s: %s"), path, strerror(errno));
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		sb_add(&sb, buf, n);
		if (sb.len > max) {
			fclose(f);
			sb_free(&sb);
			return err_set(FD_EIO, _("%s is larger than frontdesk takes"), path);
		}
	}
	if (ferror(f)) {
		fclose(f);
		sb_free(&sb);
		return err_set(FD_EIO, _("cannot read %s: %s"), path, strerror(errno));
	}
	fclose(f);
	*len = sb.len;
	*out = (unsigned char *)sb_steal(&sb);
	if (!*out)
		*out = (unsigned char *)xstrdup("");
	return 0;
}

/* Write n bytes to dir/name whole or not at all: dir/.name.part (any left
 * by a worker that was killed is replaced), fsync, rename, fsync dir. */
int fsmode_write_whole(const char *dir, const char *name, const void *p, size_t n)
{
	struct strbuf tmp = {0}, fin = {0};
	const char *b = p;
	size_t off = 0;
	int fd, dfd, rc = 0;

	sb_printf(&tmp, "%s/.%s.part", dir, name);
	sb_printf(&fin, "%s/%s", dir, name);
	if ((rc = fsmode_mkdirs(sb_cstr(&fin))) != 0)
		goto out;
	unlink(sb_cstr(&tmp));
	if ((fd = fsmode_create(sb_cstr(&tmp))) < 0) {
		rc = err_set(FD_EIO, _("cannot create %s: %s"), sb_cstr(&tmp), strerror(errno));
		goto out;
	}
	while (off < n) {
		ssize_t w = write(fd, b + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = err_set(FD_EIO, _("cannot write %s: %s"), sb_cstr(&tmp),
			             strerror(errno));
			break;
		}
		off += (size_t)w;
	}
	if (!rc && fsync(fd) != 0)
		rc = err_set(FD_EIO, _("cannot write %s: %s"), sb_cstr(&tmp), strerror(errno));
	close(fd);
	if (!rc && rename(sb_cstr(&tmp), sb_cstr(&fin)) != 0)
		rc = err_set(FD_EIO, _("cannot write %s: %s"), sb_cstr(&fin), strerror(errno));
	if (rc) {
		unlink(sb_cstr(&tmp));
		goto out;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(dfd);
		close(dfd);
	}
out:
	sb_free(&tmp);
	sb_free(&fin);
	return rc;
}

int fsmode_file_matches(const char *path, const char *sha256, size_t max)
{
	unsigned char *b = NULL;
	size_t len = 0;
	char got[65] = "";
	int rc = fsmode_read_file(path, max, &b, &len);

	if (rc != FD_ENOTFOUND)
		rc = !rc && !crypto_sha256_hex(b, len, got) && !strcmp(got, sha256) ? 0 : 1;
	free(b);
	err_clear();
	return rc;
}
