/*
 * fsmode.h - the modes of the files and folders frontdesk creates.
 *
 * A private install keeps everything to its owner: folders 0700, files
 * 0600. A shared install (the shop's staff accounts in one group, see
 * README.md) marks the database folder setgid: the kernel then gives every
 * file made in it the folder's group, and frontdesk gives that group the
 * folder's own group permissions (a folder 2770 makes files 0660 and
 * sub-folders 2770; 2750 makes files 0640). SQLite gives the -wal, -shm and
 * -journal files the mode of their database, so following the rule for the
 * database file covers them too. The mode is set with fchmod after the file
 * is made, so the creator's umask does not narrow it.
 *
 * Callers: db.c (the database and its folders), pipe-log.c (the request
 * log), backup.c (backups and replaced files), esign (signed documents),
 * condition.c (condition reports' media).
 */
#ifndef FD_FSMODE_H
#define FD_FSMODE_H

#include <stddef.h>
#include <sys/types.h>

/* fsmode_file - the mode a new file in dir gets: 0600, or with dir setgid
 * 0600 plus dir's group read and write bits. */
mode_t fsmode_file(const char *dir);

/* fsmode_dir - the mode a new folder in dir gets: 0700, or with dir setgid
 * 02700 plus dir's group bits. */
mode_t fsmode_dir(const char *dir);

/* fsmode_parent - a new string (caller frees): the folder that holds path
 * ("." for a bare name). */
char *fsmode_parent(const char *path);

/* fsmode_create - create path (O_EXCL: it must not exist) with the mode
 * its folder calls for and return the open descriptor (O_RDWR|O_CLOEXEC),
 * or -1 with errno set (EEXIST when it exists). */
int fsmode_create(const char *path);

/* fsmode_mkdirs - create every missing folder above path (path itself is a
 * file name), each with the mode its parent calls for. FD_EIO with a reason
 * on failure. */
int fsmode_mkdirs(const char *path);

/* fsmode_read_file - read path whole (at most max bytes) into *out (caller
 * frees; never NULL on success), *len its size. FD_ENOTFOUND when it is
 * missing, FD_EIO when it cannot be read or is larger than max. */
int fsmode_read_file(const char *path, size_t max, unsigned char **out, size_t *len);

/* fsmode_write_whole - write n bytes at p as dir/name whole or not at all:
 * dir/.name.part (any left by a process that was killed is replaced),
 * fsync, rename, fsync of the folder; dir and the folders above it are made
 * as needed. 0, or FD_EIO with a reason. */
int fsmode_write_whole(const char *dir, const char *name, const void *p, size_t n);

/* fsmode_file_matches - 0 when the file at path (at most max bytes) has
 * the SHA-256 sha256 (lower-case hex), FD_ENOTFOUND when it is missing, 1
 * when it differs or cannot be read. Leaves no reason in err_msg(). */
int fsmode_file_matches(const char *path, const char *sha256, size_t max);

#endif
