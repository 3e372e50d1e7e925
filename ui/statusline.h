/*
 * statusline.h - what the desk screen's status line shows: the database,
 * the operator, the channel worker's state and last success, inbound events
 * and dead letters, background tasks, the runner, the last backup and the
 * books (the last balanced day and the open reconciliation differences,
 * once reconciliation has ever run) and this desk's cash drawer (drawer.h,
 * whether it is open, never what it should hold). It reads them with the core's cheap,
 * indexed reads (chan-poll.h, outbox.h, task.h, backup.h, recon.h) and
 * composes them to the width with statusline-fit.h. Only the main thread calls
 * it. Caller: screen.c.
 */
#ifndef FD_STATUSLINE_H
#define FD_STATUSLINE_H

#include <curses.h>
#include <stdint.h>

struct db;

/* statusline_update - read every piece again (the outbox's dead count only
 * after statusline_db_changed); 1 when the line changed, else 0. */
int statusline_update(struct db *db);

/* statusline_db_changed - the database changed: read the outbox's dead
 * count at the next update too. */
void statusline_db_changed(void);

/* statusline_dead_letters - inbound and outbox dead letters at the last
 * update (the key hints offer their view when there are any). */
int64_t statusline_dead_letters(void);

/* statusline_draw - the line fitted to cols columns, into w. */
void statusline_draw(WINDOW *w, int cols);

#endif
