/*
 * statusline-fit.h - composing the screen's status line so that it fits its
 * width (statusline.c reads the pieces and draws the line).
 *
 * The line is made of pieces joined by " | ": the database file, the
 * operator, the payment channel (its worker's state, with ", " and when it
 * last succeeded), the inbound events (pending, dead letters), the tasks
 * (pending, dead), who runs the task runner and when the last backup was
 * taken. When the whole line is wider than the terminal, the least useful
 * parts go first, in this order: the runner, the operator, the channel's
 * last success, the database, the last backup, the zero counts of the tasks,
 * the zero counts of the events, the tasks altogether.
 * The books (reconciliation) follow the events, their last balanced day
 * given up with the zero counts of the events. The cash drawer follows
 * the books and goes after the tasks.
 * The channel's state and the events are the last to be cut (by the
 * caller's ellipsis). Pure: widths by tw_width, no curses; unit-tested.
 * Callers: screen.c, tests/unit/check_ui.c.
 */
#ifndef FD_STATUSLINE_FIT_H
#define FD_STATUSLINE_FIT_H

#include <stddef.h>

/* Each text is already translated; NULL or "" means absent. Counts come in
 * two forms: full ("events: 0 pending, 2 dead") and short, without the
 * zero counts ("events: 2 dead"; NULL when both are zero). */
struct status_parts {
	const char *db;
	const char *oper;
	const char *channel;
	const char *last_ok;
	const char *events, *events_short;
	const char *tasks, *tasks_short;
	const char *runner;
	const char *backup; /* "last backup 02:00" */
	/* "books: last balanced 2026-11-30, 2 open" and short "books: 2 open" */
	const char *books, *books_short;
	/* this desk's cash drawer: "Drawer front open" (drawer.h) */
	const char *drawer;
};

/* status_compose - write into out (size n) the fullest form of the line
 * that fits in cols columns (see above); when even the shortest does not
 * fit, the shortest (the caller cuts it with an ellipsis). Returns its
 * width in columns. */
int status_compose(const struct status_parts *p, int cols, char *out, size_t n);

#endif
