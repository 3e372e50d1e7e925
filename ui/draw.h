/*
 * draw.h - putting text and lines into a curses window, safely.
 *
 * Every string placed on screen goes through draw_text*(): it is passed
 * through the display sanitiser (text_sanitize: control characters, escape
 * sequences, C1 controls and bidirectional overrides become visible,
 * harmless text) and fitted to its columns by the text-width module (cut at
 * a character boundary with "..."). Nothing else in ui/ calls waddstr.
 * Main thread only.
 */
#ifndef FD_DRAW_H
#define FD_DRAW_H

#include <curses.h>

/* Alignment of draw_text. */
enum { AL_LEFT = 0, AL_RIGHT = 1, AL_CENTER = 2, AL_PAD = 4 /* blank the rest */ };

/* draw_text - s at (y, x) within width columns, aligned by al (AL_PAD: the
 * unused columns are blanked with attr too). Returns the columns written
 * (width when padded). */
int draw_text(WINDOW *w, int y, int x, int width, const char *s, attr_t attr, int al);

/* draw_fill - blank width columns at (y, x) with attr. */
void draw_fill(WINDOW *w, int y, int x, int width, attr_t attr);

/* Borders in ASCII (| - +) or the terminal's line drawing (theme.h). */
void draw_hline(WINDOW *w, int y, int x, int n);
void draw_vline(WINDOW *w, int y, int x, int n);
void draw_cross(WINDOW *w, int y, int x);

/* draw_question - the question q (a y/other-key confirmation) over the
 * last lines of w, in the error colour reversed, wrapped over at most
 * DRAW_QUESTION_LINES lines so that its keys show. */
#define DRAW_QUESTION_LINES 3
void draw_question(WINDOW *w, const char *q);

/* draw_center_message - clear w and show text centred (the "enlarge the
 * window" message, empty lists). */
void draw_center_message(WINDOW *w, const char *text, attr_t attr);

#endif
