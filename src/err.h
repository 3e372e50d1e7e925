/*
 * err.h - error codes and the one-line reason that goes with them.
 *
 * Every core function returns 0 on success or one of the negative FD_E*
 * codes below. When it refuses a request it also leaves a human reason,
 * already translated, in a per-thread buffer that the caller reads with
 * err_msg() and shows as a status line or one line on stderr.
 */
#ifndef FD_ERR_H
#define FD_ERR_H

enum {
	FD_OK = 0,
	FD_EINVAL = -1,      /* the request is refused: bad input or a broken rule */
	FD_ENOTFOUND = -2,   /* the thing named does not exist */
	FD_ECONFLICT = -3,   /* the state does not allow it (illegal transition, duplicate) */
	FD_EBUSY = -4,       /* the database stayed locked past our retries */
	FD_EDB = -5,         /* SQLite failed in a way that is not the user's fault */
	FD_EIO = -6,         /* a file or directory could not be used */
	FD_ESCHEMA = -7,     /* the schema is newer, tampered or could not be migrated */
	FD_EINPROGRESS = -8, /* an idempotent request is still being processed */
	FD_EPERM = -9        /* the person running frontdesk may not do this (staff.h) */
};

/* err_set - record the reason for the error being returned (printf-style).
 * Returns code so that callers can write `return err_set(FD_EINVAL, ...)`. */
int err_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* err_msg - the last reason recorded on this thread, or "" if none. */
const char *err_msg(void);

/* err_clear - forget the last reason. */
void err_clear(void);

#endif
