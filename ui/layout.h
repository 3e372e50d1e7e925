/*
 * layout.h - where everything goes on the screen, computed from its size.
 *
 * Pure functions of numbers (no curses, no database), so that every size
 * can be unit-tested (tests/unit/check_ui.c): the frame (title line, body,
 * message line, status line, key-hint line), the month grid, the week
 * grid, overlapping visits side by side in lanes, and table columns.
 * Callers: screen.c (the frame), view-calendar.c, pane.c.
 */
#ifndef FD_LAYOUT_H
#define FD_LAYOUT_H

#include <stdint.h>

#define LAYOUT_MIN_ROWS 24
#define LAYOUT_MIN_COLS 80

struct rect {
	int y, x, h, w;
};

struct layout {
	int too_small; /* below 80x24: only the "enlarge the window" message */
	struct rect title, body, msg, status, hint;
};

/* layout_compute - the frame of a rows x cols terminal: title (breadcrumb)
 * on the first line, then the body, then the message, status and key-hint
 * lines. Below LAYOUT_MIN_ROWS x LAYOUT_MIN_COLS too_small is set and only
 * body (the whole screen) is meaningful. Negative sizes count as 0. */
void layout_compute(int rows, int cols, struct layout *l);

/* The month grid inside a body of h x w: line 0 the month's name, line 1
 * the weekday names, line 2 the top border, then per week row_h lines of
 * cell and one border line, the legend on the last line. */
struct month_geom {
	int weeks;
	int row_h;              /* lines inside a cell (>= 1) */
	int col_x[7], col_w[7]; /* inner x and width of each day column */
	int row_y[6];           /* first inner line of each week */
	int legend_y;
};

/* layout_month - fill *g for weeks (4..6) week rows; -1 if the body is too
 * small for one line per cell (the caller shows fewer weeks or a note). */
int layout_month(int h, int w, int weeks, struct month_geom *g);

/* The week grid: line 0 the title, line 1 the day headers, then nrows time
 * slots of slot_min minutes from hour h0, the legend on the last line. */
struct week_geom {
	int time_w;             /* width of the time column on the left */
	int col_x[7], col_w[7]; /* inner x and width of each day column */
	int first_row, nrows;   /* lines of the time slots */
	int slot_min;           /* minutes per line: 15, 30, 60, 120, 180 or 240 */
	int h0, h1;             /* the hours shown: [h0, h1) */
	int legend_y;
};

/* layout_week - fill *g to show hours [h0, h1) (0 <= h0 < h1 <= 24) with the
 * finest slot that fits; when even 4-hour slots do not fit, the range is
 * cut at its end. -1 if there is no room for one slot. */
int layout_week(int h, int w, int h0, int h1, struct week_geom *g);

/* layout_week_row - the grid line (0-based from first_row, may be outside
 * 0..nrows-1) on which minute m of the day falls. */
int layout_week_row(const struct week_geom *g, int minute);

/* layout_lanes - put n visits (sorted by start) into lanes so that
 * overlapping ones sit side by side: lane[i] is visit i's lane and
 * lanes[i] the number of lanes of its group of overlapping visits (a visit
 * that overlaps nothing has 1). Returns the largest number of lanes. */
int layout_lanes(const int64_t *start, const int64_t *end, int n, int *lane, int *lanes);

/* layout_columns - split width into n columns separated by one blank: each
 * column i gets at least min[i] (while there is room) and the width left
 * over is shared by flex[i] weights (all zero: the last column takes it).
 * x[i] and w[i] receive the positions; columns that do not fit get w 0. */
void layout_columns(int width, int n, const int *min, const int *flex, int *x, int *w);

/* layout_hints - which of n key hints fit on a line of cols columns. Hint
 * i takes width[i] columns and is followed by gap blanks when another hint
 * follows it; rank[i] says how much it matters (0 most: the way out, back
 * and quit). Hints are taken most important first (in order within a rank)
 * while they fit, then shown in their own order: shown[i] is 1 for each one
 * kept. Returns the columns the kept hints take. */
int layout_hints(int n, const int *width, const int *rank, int gap, int cols, int *shown);

#endif
