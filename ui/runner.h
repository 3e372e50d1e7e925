/*
 * runner.h - the task runner in a background thread of the screen.
 *
 * The calendar projection is rebuilt by the task runner. When the screen
 * starts, it runs task_run_loop in a thread with its OWN database
 * connection: the loop takes the runner lease when nobody holds it (and
 * otherwise stands by, taking over if the holder goes away), so projection
 * rows get rebuilt whether or not `frontdesk serve` runs. The thread never
 * calls curses and posts nothing to the screen: the screen notices its
 * commits through PRAGMA data_version like any other session's. It reports
 * its state through runner_state() under a mutex.
 * Callers: screen.c.
 */
#ifndef FD_RUNNER_H
#define FD_RUNNER_H

#include <stddef.h>

/* runner_start - start the thread on the database file path. 0, or a
 * negative FD_E* code (no thread then). */
int runner_start(const char *path);

/* runner_stop - ask the thread to stop, release its lease and join it
 * (within about a second). Safe when it was not started. */
void runner_stop(void);

/* runner_state - a short translated word for the status line: "off",
 * "here" (this screen holds the lease), "standby" (another process does). */
void runner_state(char *buf, size_t n);

#endif
