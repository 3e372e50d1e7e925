/*
 * state.h - what the screen remembers between runs (the last calendar
 * view), in a small "key = value" file: $XDG_STATE_HOME/frontdesk/screen,
 * else ~/.local/state/frontdesk/screen. It is a convenience: a missing or
 * unreadable file means defaults, and a failed write is ignored.
 * Callers: screen.c, view-calendar.c. Main thread only.
 */
#ifndef FD_STATE_H
#define FD_STATE_H

/* state_get - the remembered value of key, or def. */
const char *state_get(const char *key, const char *def);

/* state_set - remember key = value (written at once, atomically). */
void state_set(const char *key, const char *value);

/* state_free - forget what was read. */
void state_free(void);

#endif
