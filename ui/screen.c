/*
 * screen.c - the minimal desk screen: the coming week's visits, day by day.
 *
 * It reads visits through the core (appt_list_range) and never writes SQL.
 * Every text placed on screen is sanitised (text_sanitize) and fitted by
 * column width (tw_fit). The screen re-reads the week when another session
 * commits (PRAGMA data_version, checked on each one-second input timeout),
 * re-lays out on KEY_RESIZE, and asks for 80x24 at least.
 */
#include <config.h>

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "db.h"
#include "i18n.h"
#include "screen.h"
#include "strbuf.h"
#include "text.h"
#include "tw.h"
#include "work.h"
#include "xalloc.h"

#define MIN_COLS 80
#define MIN_ROWS 24

struct line {
	char *text;
	int header; /* a day heading, drawn in bold */
};

struct week {
	struct line *lines;
	int n, cap;
	int64_t from;
};

static void week_add(struct week *w, char *text, int header)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->lines = xrealloc(w->lines, (size_t)w->cap * sizeof *w->lines);
	}
	w->lines[w->n].text = text;
	w->lines[w->n].header = header;
	w->n++;
}

static void week_clear(struct week *w)
{
	int i;

	for (i = 0; i < w->n; i++)
		free(w->lines[i].text);
	w->n = 0;
}

struct day_ctx {
	struct week *w;
	int64_t day_start;
	int count;
};

static int add_visit(const struct appt *a, void *arg)
{
	struct day_ctx *d = arg;
	struct strbuf sb = { 0 };
	char from[16], to[16];
	char *who = text_sanitize(a->customers && *a->customers ? a->customers : _("(no job yet)"));
	char *what = text_sanitize(a->services ? a->services : "");
	char *where = text_sanitize(a->location ? a->location : "");

	clock_format_local(a->start_at < d->day_start ? d->day_start : a->start_at, "%H:%M", from,
			   sizeof from);
	clock_format_local(a->end_at, "%H:%M", to, sizeof to);
	sb_printf(&sb, "  %s-%s  %s | %s | %s | %s", from, to, who, what, where, a->status);
	week_add(d->w, sb_steal(&sb), 0);
	d->count++;
	free(who);
	free(what);
	free(where);
	return 0;
}

static int week_load(struct db *db, struct week *w)
{
	int i, rc = 0;

	week_clear(w);
	for (i = 0; i < 7 && rc == 0; i++) {
		int64_t start = clock_add_days(w->from, i), end = clock_add_days(w->from, i + 1);
		struct day_ctx d = { w, start, 0 };
		char day[64];

		clock_format_local(start, "%a %Y-%m-%d", day, sizeof day);
		week_add(w, xstrdup(day), 1);
		rc = appt_list_range(db, start, end, add_visit, &d);
		if (rc == 0 && d.count == 0)
			week_add(w, xstrdup(_("  no visits")), 0);
	}
	return rc;
}

static void put_fitted(int y, int x, const char *s, int cols)
{
	char buf[2048];

	tw_fit(s, cols, 1, buf, sizeof buf);
	mvaddstr(y, x, buf);
}

static void draw(struct db *db, struct week *w, int top, const char *msg)
{
	int rows, cols, i, y;
	char title[512], range[64];

	getmaxyx(stdscr, rows, cols);
	erase();
	if (rows < MIN_ROWS || cols < MIN_COLS) {
		put_fitted(0, 0, _("Please enlarge the window to at least 80x24."), cols);
		refresh();
		return;
	}
	clock_format_local(w->from, "%Y-%m-%d", range, sizeof range);
	{
		char *path = text_sanitize(db_path(db));

		snprintf(title, sizeof title, _("frontdesk - visits of the week from %s - %s"), range,
			 path);
		free(path);
	}
	attron(A_REVERSE);
	put_fitted(0, 0, title, cols);
	attroff(A_REVERSE);
	for (i = top, y = 1; i < w->n && y < rows - 2; i++, y++) {
		if (w->lines[i].header)
			attron(A_BOLD);
		put_fitted(y, 0, w->lines[i].text, cols);
		if (w->lines[i].header)
			attroff(A_BOLD);
	}
	put_fitted(rows - 2, 0, msg ? msg : "", cols);
	attron(A_REVERSE);
	put_fitted(rows - 1, 0, _("q quit   Up/Down scroll   n/p next/previous week   t this week"),
		   cols);
	attroff(A_REVERSE);
	refresh();
}

int screen_run(struct db *db)
{
	struct week w = { 0 };
	int top = 0, ch, running = 1;
	int64_t seen;
	const char *msg = NULL;

	w.from = clock_day_start(clock_now());
	if (week_load(db, &w) != 0)
		msg = _("could not read the visits");
	seen = db_data_version(db);
	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	timeout(1000);
	while (running) {
		draw(db, &w, top, msg);
		ch = getch();
		switch (ch) {
		case 'q':
		case 'Q':
			running = 0;
			break;
		case KEY_DOWN:
		case 'j':
			if (top + 1 < w.n)
				top++;
			break;
		case KEY_UP:
		case 'k':
			if (top > 0)
				top--;
			break;
		case 'n':
		case 'p':
		case 't':
			w.from = ch == 't' ? clock_day_start(clock_now())
					   : clock_add_days(w.from, ch == 'n' ? 7 : -7);
			top = 0;
			week_load(db, &w);
			break;
		case ERR: {
			/* input timeout: has another session committed? */
			int64_t v = db_data_version(db);

			if (v != seen) {
				seen = v;
				week_load(db, &w);
			}
			break;
		}
		default:
			break;
		}
	}
	endwin();
	week_clear(&w);
	free(w.lines);
	return 0;
}
