/*
 * cli.h - the command line: `frontdesk [OPTIONS] COMMAND ...`.
 *
 * Exit status: 0 success, 1 a refused request (one line on stderr, nothing
 * changed), 2 bad usage. With no command on a terminal the screen opens
 * through the hook the program passes in (the core never draws).
 */
#ifndef FD_CLI_H
#define FD_CLI_H

struct db;

/* The screen hook: run the interactive screen on db, or (db NULL) on the
 * head office at hq_url, read-only; returns an exit status. */
typedef int (*cli_screen_fn)(struct db *db, const char *hq_url);

/* cli_main - run the command line; returns the process exit status. */
int cli_main(int argc, char **argv, cli_screen_fn screen);

#endif
