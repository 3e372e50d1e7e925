/*
 * log.h - the debug log: a file, on request only, never the terminal.
 * `--debug-log FILE` or FRONTDESK_DEBUG_LOG=FILE opens it (mode 0600,
 * appended). Secrets and card data are never passed to it.
 */
#ifndef FD_LOG_H
#define FD_LOG_H

/* log_open - start logging to path; 0, or FD_EIO with a reason. */
int log_open(const char *path);

/* log_debug - append one timestamped line (no-op when no log is open). */
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void log_close(void);

#endif
