/*
 * layout.c - screen geometry (see layout.h). Integer arithmetic only; every
 * rectangle it returns lies inside the size it was given.
 */
#include <config.h>

#include <string.h>

#include "layout.h"

static struct rect mk(int y, int x, int h, int w)
{
	struct rect r = {y, x, h < 0 ? 0 : h, w < 0 ? 0 : w};

	return r;
}

void layout_compute(int rows, int cols, struct layout *l)
{
	memset(l, 0, sizeof *l);
	if (rows < 0)
		rows = 0;
	if (cols < 0)
		cols = 0;
	if (rows < LAYOUT_MIN_ROWS || cols < LAYOUT_MIN_COLS) {
		l->too_small = 1;
		l->body = mk(0, 0, rows, cols);
		return;
	}
	l->title = mk(0, 0, 1, cols);
	l->body = mk(1, 0, rows - 4, cols);
	l->msg = mk(rows - 3, 0, 1, cols);
	l->status = mk(rows - 2, 0, 1, cols);
	l->hint = mk(rows - 1, 0, 1, cols);
}

/* Split inner width (w less n+1 borders) over n columns, the remainder
 * going one each to the first columns. */
static void split_cols(int x0, int w, int n, int *x, int *cw)
{
	int inner = w - (n + 1), base, extra, i, pos = x0 + 1;

	if (inner < 0)
		inner = 0;
	base = inner / n;
	extra = inner % n;
	for (i = 0; i < n; i++) {
		cw[i] = base + (i < extra ? 1 : 0);
		x[i] = pos;
		pos += cw[i] + 1;
	}
}

int layout_month(int h, int w, int weeks, struct month_geom *g)
{
	int i, row_h;

	memset(g, 0, sizeof *g);
	if (weeks < 4)
		weeks = 4;
	if (weeks > 6)
		weeks = 6;
	g->weeks = weeks;
	/* title, weekday names, top border, legend: 4 lines */
	row_h = (h - 4) / weeks - 1;
	if (row_h < 1 || w < 7 * 2 + 8)
		return -1;
	g->row_h = row_h;
	split_cols(0, w, 7, g->col_x, g->col_w);
	for (i = 0; i < weeks; i++)
		g->row_y[i] = 3 + i * (row_h + 1);
	g->legend_y = h - 1;
	return 0;
}

int layout_week(int h, int w, int h0, int h1, struct week_geom *g)
{
	static const int slots[] = {15, 30, 60, 120, 180, 240};
	int avail, i, x0;

	memset(g, 0, sizeof *g);
	if (h0 < 0)
		h0 = 0;
	if (h1 > 24)
		h1 = 24;
	if (h1 <= h0)
		h1 = h0 + 1;
	avail = h - 3; /* title, day headers, legend */
	if (avail < 1 || w < 6 + 7 * 3 + 8)
		return -1;
	g->time_w = 5;
	g->first_row = 2;
	g->legend_y = h - 1;
	for (i = 0; i < (int)(sizeof slots / sizeof slots[0]); i++) {
		g->slot_min = slots[i];
		if ((h1 - h0) * 60 / slots[i] + ((h1 - h0) * 60 % slots[i] != 0) <= avail)
			break;
	}
	g->nrows = ((h1 - h0) * 60 + g->slot_min - 1) / g->slot_min;
	if (g->nrows > avail) {
		g->nrows = avail; /* even the coarsest slot is too fine: cut the evening */
		h1 = h0 + (avail * g->slot_min) / 60;
		if (h1 <= h0)
			h1 = h0 + 1;
	}
	g->h0 = h0;
	g->h1 = h1;
	x0 = g->time_w;
	split_cols(x0, w - x0, 7, g->col_x, g->col_w);
	return 0;
}

int layout_week_row(const struct week_geom *g, int minute)
{
	int m = minute - g->h0 * 60;

	if (m < 0)
		return -1 - (-m - 1) / g->slot_min;
	return m / g->slot_min;
}

int layout_lanes(const int64_t *start, const int64_t *end, int n, int *lane, int *lanes)
{
	int i = 0, most = 0;

	while (i < n) {
		/* one group: visits that overlap, directly or through each other */
		int64_t group_end = end[i], lane_end[64];
		int j = i, used = 0, k;

		while (j < n && (j == i || start[j] < group_end)) {
			int l;

			if (end[j] > group_end)
				group_end = end[j];
			for (l = 0; l < used; l++)
				if (lane_end[l] <= start[j])
					break;
			if (l == used) {
				if (used < 64)
					used++;
				else
					l = used - 1; /* absurdly many: pile up in the last lane */
			}
			lane_end[l] = end[j];
			lane[j] = l;
			j++;
		}
		for (k = i; k < j; k++)
			lanes[k] = used;
		if (used > most)
			most = used;
		i = j;
	}
	return most;
}

void layout_columns(int width, int n, const int *min, const int *flex, int *x, int *w)
{
	int i, left = width, total_flex = 0, pos = 0, given = 0, last_flex = -1;

	for (i = 0; i < n; i++) {
		int need = min[i] + (i ? 1 : 0);

		if (need <= left) {
			w[i] = min[i];
			left -= need;
		} else {
			w[i] = 0;
		}
		total_flex += flex[i];
		if (flex[i] && w[i])
			last_flex = i;
	}
	if (left > 0) {
		if (total_flex == 0) {
			for (i = n - 1; i >= 0 && !w[i]; i--)
				;
			if (i >= 0)
				w[i] += left;
		} else {
			for (i = 0; i < n; i++)
				if (flex[i] && w[i]) {
					int add = left * flex[i] / total_flex;

					w[i] += add;
					given += add;
				}
			if (last_flex >= 0)
				w[last_flex] += left - given;
		}
	}
	for (i = 0; i < n; i++) {
		x[i] = pos;
		if (w[i])
			pos += w[i] + 1;
	}
}

int layout_hints(int n, const int *width, const int *rank, int gap, int cols, int *shown)
{
	int used = 0, r, i, maxrank = 0;

	for (i = 0; i < n; i++) {
		shown[i] = 0;
		if (rank[i] > maxrank)
			maxrank = rank[i];
	}
	for (r = 0; r <= maxrank; r++)
		for (i = 0; i < n; i++) {
			int add;

			if (rank[i] != r || width[i] <= 0)
				continue;
			add = width[i] + (used > 0 ? gap : 0);
			if (used + add <= cols) {
				shown[i] = 1;
				used += add;
			}
		}
	return used;
}
