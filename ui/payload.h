/*
 * payload.h - raw bytes from outside made fit for the screen: harmless and
 * wrapped to a width.
 *
 * A payload (an inbound event's body, an error text) is bytes: it may hold
 * NUL, invalid UTF-8, control characters, escape sequences, C1 controls and
 * bidirectional overrides. payload_lines turns it into lines of printable
 * text only, each at most `cols` columns wide as the text-width module
 * measures it, so that what reaches the terminal can neither move the
 * cursor nor change the terminal's state, and a long line is never cut off.
 * Pure code: no curses, unit-tested in tests/unit/check_ui.c. Callers: the
 * dead-letter detail view.
 */
#ifndef FD_PAYLOAD_H
#define FD_PAYLOAD_H

#include <stddef.h>

/* The fewest columns payload_lines wraps to (an escape is never split). */
#define PAYLOAD_MIN_COLS 12

/* payload_lines - call cb with each screen line of the len bytes at p
 * (p may be NULL when len is 0), wrapped at cols columns (at least
 * PAYLOAD_MIN_COLS). Rules: "\n" (and "\r\n") ends a line; a tab becomes
 * blanks up to the next multiple of 8 columns; any other control character
 * is shown as "^X" (DEL as "^?"); a byte that is not valid UTF-8 as "\xNN";
 * C1 controls and bidirectional overrides as "<U+XXXX>" (the core's
 * text_sanitize decides which). A line is wrapped between characters,
 * never inside one or inside an escape; with words non-zero (prose such as
 * an error) it is wrapped after the last blank of the line instead, when
 * there is one before the word that does not fit. No payload at all gives one empty
 * line. The line passed to cb is valid during the call only. Returns 0, or
 * the first non-zero value cb returned (which stops it). */
int payload_lines(const void *p, size_t len, int cols, int words,
                  int (*cb)(const char *line, void *arg), void *arg);

#endif
