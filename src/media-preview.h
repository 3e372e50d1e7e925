/*
 * media-preview.h - a rough preview of a condition report's photo or
 * panorama for a terminal: the medium's kept copy decoded, scaled to fit a
 * box of cells, two pixels a cell (the upper and the lower half of a
 * character cell, as the screen draws them with "\u2580": the upper colour
 * in front, the lower behind), and each hotspot of the medium placed at
 * its cell with its number.
 *
 * The copy is read once and its bytes checked against the medium's
 * SHA-256 before they are decoded: a copy that is missing, changed or
 * purged is refused, never shown. PNG is decoded by cairo, JPEG by libjpeg
 * (at 1/2, 1/4 or 1/8 of its size when that still fills the box), both
 * loaded when first used (dynlib.h); a picture larger than
 * MEDIA_PREVIEW_MAX_SIDE pixels a side (or, decoded, more than 40 million
 * pixels: a PNG is decoded whole) is refused before any pixel is
 * allocated, and a corrupt or truncated file is an error, never an exit.
 *
 * Scaling keeps the aspect ratio (a cell's two pixels are about square): a
 * picture of W x H pixels in a box of cols x rows cells is k = min(cols / W,
 * 2 rows / H), round(W k) x round(H k) pixels (at least 1 each), each the
 * mean of the source pixels it covers. A hotspot on a photo (x, y in 0..1)
 * lies in pixel column floor(x pw), pixel row floor(y ph), so at cell
 * (that column, that row / 2); on a panorama its yaw and pitch are placed
 * as condition-print.c places them on the printed page (the viewer's yaw 0
 * looks at column yaw_origin of the medium's frame, media_frame_now). 3D
 * captures have no preview.
 *
 * Callers: the screen (ui/view-visit.c), tests/unit/check_media_preview.c.
 */
#ifndef FD_MEDIA_PREVIEW_H
#define FD_MEDIA_PREVIEW_H

#include <stdint.h>

struct db;

#define MEDIA_PREVIEW_MAX_SIDE  20000 /* pixels a side of a picture we decode */
#define MEDIA_PREVIEW_MAX_CELLS 400   /* cols and rows a preview may ask for */

/* The eight basic colours, numbered as curses numbers them (COLOR_BLACK
 * 0 ... COLOR_WHITE 7), so that the screen passes them on as they are. */
enum media_color {
	MEDIA_BLACK,
	MEDIA_RED,
	MEDIA_GREEN,
	MEDIA_YELLOW,
	MEDIA_BLUE,
	MEDIA_MAGENTA,
	MEDIA_CYAN,
	MEDIA_WHITE
};

/* One cell: its upper and lower pixel. */
struct media_cell {
	unsigned char up[3], low[3]; /* RGB, 0..255 */
	unsigned char up_color;      /* the nearest basic colour (enum media_color) */
	unsigned char low_color;
	unsigned char has_low; /* 0 on the last row of a picture of an odd pixel height */
};

/* A hotspot on the preview. */
struct media_preview_spot {
	int number; /* its number in the report */
	int col, row;
};

struct media_preview {
	int cols, rows;                  /* cells: cols x rows, row by row in cell */
	int width, height;               /* the picture's own size in pixels */
	struct media_cell *cell;         /* cols * rows (owned) */
	struct media_preview_spot *spot; /* by number (owned) */
	int nspots;
};

/* media_preview - medium media_id as a preview of at most cols x rows
 * cells (each 1..MEDIA_PREVIEW_MAX_CELLS) into *out (media_preview_free it;
 * zeroed on an error). FD_EINVAL when cols or rows is out of range or the
 * medium is a 3D capture; FD_ENOTFOUND when there is no such medium;
 * FD_ECONFLICT when its copy was removed by a purge, is missing or has
 * changed (frontdesk check says more); FD_EINVAL when the picture cannot
 * be decoded or is larger than MEDIA_PREVIEW_MAX_SIDE a side; FD_EIO when
 * the decoder's library cannot be loaded. Every error has its reason in
 * err_msg(). Asks records.view, as reading a report does. */
int media_preview(struct db *db, int64_t media_id, int cols, int rows, struct media_preview *out);

/* media_preview_free - free what a preview owns and zero it. */
void media_preview_free(struct media_preview *p);

/* media_preview_nearest - the basic colour (enum media_color) nearest to
 * r, g, b (squared distance to a terminal's usual shades). */
int media_preview_nearest(int r, int g, int b);

#endif
