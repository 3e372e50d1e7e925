/*
 * media-art.h - a photo's rough preview (media-preview.h) drawn in the
 * screen, a text row of cells at a time: each cell "\u2580" (upper half
 * block) with the upper pixel's colour in front and the lower one's
 * behind, among the eight basic colours; each hotspot's number over its
 * cell in bold reverse video, moved left to stay inside the picture.
 *
 * Without colour (a monochrome terminal, NO_COLOR, theme = mono, or fewer
 * colour pairs than the 72 it needs) a pixel is ink when it is light and
 * the cell is " ", "\u2584", "\u2580" or "\u2588" (as qr.c draws a code
 * without colour, assumed light on dark), so the shapes still show.
 *
 * The preview is the core's (asked once, when the pane is built): drawing
 * reads it and calls curses, nothing else. Callers: view-visit.c.
 */
#ifndef FD_MEDIA_ART_H
#define FD_MEDIA_ART_H

#include <curses.h>

#include "media-preview.h"

/* media_art_utf8 - 1 when the terminal's locale can show the half blocks. */
int media_art_utf8(void);

/* media_art_row - row n of preview arg (a const struct media_preview *)
 * at (y, x) of w, at most width columns: the signature pane_drawn asks. */
void media_art_row(WINDOW *w, int y, int x, int width, const void *arg, int n);

#endif
