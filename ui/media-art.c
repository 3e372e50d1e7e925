/*
 * media-art.c - a photo's preview drawn in half blocks (see media-art.h).
 *
 * Colour pairs ART_PAIRS.. are this file's (theme.c uses 1..8): one for
 * each of the 8 x 8 upper and lower colours, then one for each colour over
 * the terminal's own background (the last row of a picture of an odd
 * height). They are made the first time a preview is drawn in colour.
 */
#include <config.h>

#include <langinfo.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "media-art.h"
#include "theme.h"

#define ART_PAIRS  16          /* the first pair of ours */
#define ART_NPAIRS (8 * 8 + 8) /* pairs of ours */
#define ART_LIGHT  128         /* a pixel at least this bright is ink without colour */

int media_art_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

/* 1 when the preview is drawn in colour: the pairs are made once. */
static int art_color(void)
{
	static int state; /* 0 not asked, 1 colour, -1 none */
	short fg, bg;

	if (!theme_color())
		return 0;
	if (state == 0) {
		state = -1;
		if (COLORS >= 8 && COLOR_PAIRS >= ART_PAIRS + ART_NPAIRS) {
			state = 1;
			for (fg = 0; fg < 8; fg++) {
				for (bg = 0; bg < 8; bg++)
					if (init_pair((short)(ART_PAIRS + fg * 8 + bg), fg, bg) !=
					    OK)
						state = -1;
				if (init_pair((short)(ART_PAIRS + 64 + fg), fg, -1) != OK)
					state = -1;
			}
		}
	}
	return state > 0;
}

static int light(const unsigned char p[3])
{
	return (p[0] * 299 + p[1] * 587 + p[2] * 114) / 1000 >= ART_LIGHT;
}

void media_art_row(WINDOW *w, int y, int x, int width, const void *arg, int n)
{
	static const char *const mono[4] = {" ", "\u2584", "\u2580", "\u2588"};
	const struct media_preview *p = arg;
	int color = art_color(), c, i, cols;

	if (!p || n < 0 || n >= p->rows || width <= 0)
		return;
	cols = p->cols < width ? p->cols : width;
	for (c = 0; c < cols; c++) {
		const struct media_cell *m = &p->cell[n * p->cols + c];

		if (color) {
			short pair = (short)(m->has_low ? ART_PAIRS + m->up_color * 8 + m->low_color
			                                : ART_PAIRS + 64 + m->up_color);

			wattr_set(w, A_NORMAL, pair, NULL);
			mvwaddstr(w, y, x + c, "\u2580");
		} else {
			int top = light(m->up), bot = m->has_low && light(m->low);

			wattr_set(w, A_NORMAL, 0, NULL);
			mvwaddstr(w, y, x + c, mono[top * 2 + bot]);
		}
	}
	wattr_set(w, A_BOLD | A_REVERSE, 0, NULL);
	for (i = 0; i < p->nspots; i++) {
		char num[16];
		int len, at;

		if (p->spot[i].row != n)
			continue;
		len = snprintf(num, sizeof num, "%d", p->spot[i].number);
		if (len <= 0 || len > cols)
			continue;
		/* moved left to stay on the picture */
		at = p->spot[i].col + len > cols ? cols - len : p->spot[i].col;
		mvwaddstr(w, y, x + at, num);
	}
	wattr_set(w, A_NORMAL, 0, NULL);
}
