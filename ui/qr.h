/*
 * qr.h - a text (a payment page's address) as a QR code drawn in
 * half-block characters, for a phone's camera to read off the screen.
 *
 * The code is made by libqrencode (8-bit mode, case kept, error correction
 * level L: the smallest code for the text) and drawn with a quiet zone of
 * QR_QUIET modules on every side. Each text row shows two module rows
 * (upper half, lower half) and each column one module, with "\u2580" (upper
 * half), "\u2584" (lower half), "\u2588" (both) and " " (neither) for the
 * modules that are inked. With ink_dark the ink is the dark modules (the
 * screen draws them black on white); without (a monochrome terminal,
 * assumed light on dark) the ink is the light ones, quiet zone included,
 * so the code reads dark on light either way. Nothing here calls curses:
 * the pane (view-paypage.c) places the lines, and the tests turn them back
 * into modules.
 *
 * Callers: view-paypage.c, tests/unit/check_ui.c.
 */
#ifndef FD_QR_H
#define FD_QR_H

#include <stddef.h>

#define QR_QUIET 2 /* modules of quiet zone on each side (zbar reads 2; 4 is the standard) */

/* A drawn code. */
struct qr_art {
	int modules; /* the code's width in modules, quiet zone included */
	int rows;    /* text rows: (modules + 1) / 2 */
	int cols;    /* text columns: modules */
	char **line; /* rows lines of UTF-8, cols cells each (owned) */
};

/* qr_matrix - libqrencode's code of text: *width modules a side, *dots
 * (caller frees) width * width bytes, row by row, 1 for a dark module and
 * 0 for a light one, no quiet zone. FD_EINVAL when text is empty or too
 * long for any QR code. */
int qr_matrix(const char *text, int *width, unsigned char **dots);

/* qr_draw - the code of text drawn with a quiet zone of quiet modules
 * (>= 0) as above, in *out (qr_free it). FD_EINVAL as qr_matrix. */
int qr_draw(const char *text, int quiet, int ink_dark, struct qr_art *out);

/* qr_free - free what a drawn code owns and zero it. */
void qr_free(struct qr_art *a);

#endif
