/*
 * screen.h - the desk screen (ncurses). The only part of frontdesk that
 * includes curses.h; it reads the core's public functions, never SQL.
 */
#ifndef FD_SCREEN_H
#define FD_SCREEN_H

struct db;

/* screen_run - draw the desk on the terminal until the user quits; returns
 * the process exit status. The terminal is restored on every way out.
 * With db NULL, the head office's screen: the chain's reports read from
 * the PostgreSQL database at hq_url (hq.h), read-only. */
int screen_run(struct db *db, const char *hq_url);

#endif
