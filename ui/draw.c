/*
 * draw.c - sanitised, width-fitted text and borders (see draw.h).
 */
#include <config.h>

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "text.h"
#include "theme.h"
#include "tw.h"
#include "xalloc.h"

int draw_text(WINDOW *w, int y, int x, int width, const char *s, attr_t attr, int al)
{
	char stack[1024], *buf = stack, *safe;
	size_t need;
	int used, rows, cols, lead = 0;

	getmaxyx(w, rows, cols);
	if (width <= 0 || y < 0 || y >= rows || x < 0 || x >= cols)
		return 0;
	if (x + width > cols)
		width = cols - x;
	safe = text_sanitize(s ? s : "");
	need = strlen(safe) + (size_t)width + 8;
	if (need > sizeof stack)
		buf = xmalloc(need);
	used = tw_fit(safe, width, 0, buf, need);
	if ((al & 3) == AL_RIGHT)
		lead = width - used;
	else if ((al & 3) == AL_CENTER)
		lead = (width - used) / 2;
	if ((al & AL_PAD) || lead)
		draw_fill(w, y, x, (al & AL_PAD) ? width : lead, attr);
	wattr_set(w, attr, (short)PAIR_NUMBER(attr), NULL);
	mvwaddstr(w, y, x + lead, buf);
	wattr_set(w, A_NORMAL, 0, NULL);
	if (buf != stack)
		free(buf);
	free(safe);
	return (al & AL_PAD) ? width : lead + used;
}

void draw_fill(WINDOW *w, int y, int x, int width, attr_t attr)
{
	int rows, cols, i;

	getmaxyx(w, rows, cols);
	if (y < 0 || y >= rows || x < 0)
		return;
	if (x + width > cols)
		width = cols - x;
	wattr_set(w, attr, (short)PAIR_NUMBER(attr), NULL);
	for (i = 0; i < width; i++)
		mvwaddch(w, y, x + i, ' ');
	wattr_set(w, A_NORMAL, 0, NULL);
}

void draw_hline(WINDOW *w, int y, int x, int n)
{
	if (n > 0)
		mvwhline(w, y, x, theme_ascii_borders() ? '-' : ACS_HLINE, n);
}

void draw_vline(WINDOW *w, int y, int x, int n)
{
	if (n > 0)
		mvwvline(w, y, x, theme_ascii_borders() ? '|' : ACS_VLINE, n);
}

void draw_cross(WINDOW *w, int y, int x)
{
	mvwaddch(w, y, x, theme_ascii_borders() ? '+' : ACS_PLUS);
}

void draw_center_message(WINDOW *w, const char *text, attr_t attr)
{
	int rows, cols;

	getmaxyx(w, rows, cols);
	werase(w);
	draw_text(w, rows / 2, 0, cols, text, attr, AL_CENTER);
}

void draw_question(WINDOW *w, const char *q)
{
	size_t start[DRAW_QUESTION_LINES], len[DRAW_QUESTION_LINES];
	char *line;
	int rows, cols, n, i;

	getmaxyx(w, rows, cols);
	if (!q || !*q || cols < 4)
		return;
	n = tw_wrap(q, cols - 2, start, len, DRAW_QUESTION_LINES);
	if (n > DRAW_QUESTION_LINES)
		n = DRAW_QUESTION_LINES;
	if (n > rows)
		n = rows;
	line = xmalloc(strlen(q) + 1);
	for (i = 0; i < n; i++) {
		memcpy(line, q + start[i], len[i]);
		line[len[i]] = '\0';
		draw_text(w, rows - n + i, 1, cols - 2, line, theme_attr(R_ERROR) | A_REVERSE,
		          AL_LEFT | AL_PAD);
	}
	free(line);
}
