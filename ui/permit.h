/*
 * permit.h - which permission each action of the screen asks for, so that
 * the key bar and the help leave out what the person at the screen may not
 * do, and a key pressed anyway says so instead of opening a form. The rule
 * itself is the core's (staff.h): the screen only asks staff_may, and the
 * core's own check refuses whatever the screen lets through. An action a
 * manager may approve on the spot (a refund, a void, a credit note) stays
 * offered to a person without its permission: the core's refusal then
 * names who may approve it.
 *
 * Callers: screen.c (the hint bar, the dispatch), view-help.c.
 */
#ifndef FD_UI_PERMIT_H
#define FD_UI_PERMIT_H

#include <stddef.h>

#include "action.h"
#include "staff.h"

struct db;

/* permit_of - the permission action a asks for; PERM_N: none. */
enum perm permit_of(enum action a);

/* permit_offered - 1 when the screen offers a to the person running it
 * (they hold its permission, or a manager may approve it), else 0. The
 * answer is kept until permit_forget. With db NULL (the head office's
 * screen): the keys about the screen and its three reports only. */
int permit_offered(struct db *db, enum action a);

/* permit_forget - forget the answers kept: another session committed (a
 * role or grant may have changed). */
void permit_forget(void);

/* permit_refusal - the sentence for a key of an action not offered, into
 * buf: who may not, which permission, who holds it. */
const char *permit_refusal(struct db *db, enum action a, char *buf, size_t n);

#endif
