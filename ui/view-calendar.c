/*
 * view-calendar.c - the calendar: month, week and day views of the
 * projection, at the bottom of the view stack.
 *
 * State: the mode, the cursor day (a midnight in shop time) and the
 * selected visit (by appointment id, so that a live refresh keeps the
 * cursor on the same visit). What is drawn comes from a cal_data holding
 * exactly the visible range, read with ONE projection_range query when the
 * range changes or the database did. Every visit shows its payment status
 * by an ASCII symbol AND a colour (theme.h), or its own mark when it is
 * cancelled or a no-show (visit_mark; such visits are not counted); the
 * legend is always on screen. In the week, overlapping visits stand side
 * by side while each block keeps its start, mark and first letters; a day
 * more crowded than that is listed (week_list), what has no room counted
 * as "+N" and listed on the message line when the cursor reaches it. An
 * amount is drawn whole or not at all. The last mode is remembered in the
 * state file.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cal.h"
#include "clock.h"
#include "draw.h"
#include "err.h"
#include "fmt.h"
#include "form.h"
#include "i18n.h"
#include "layout.h"
#include "log.h"
#include "money.h"
#include "recon.h"
#include "report.h"
#include "settings.h"
#include "state.h"
#include "strbuf.h"
#include "text.h"
#include "theme.h"
#include "tw.h"
#include "view.h"
#include "views.h"
#include "visit.h"
#include "xalloc.h"

enum { M_MONTH, M_WEEK, M_DAY };
static const char *const mode_names[] = {"month", "week", "day"};

#define MAX_BLOCKS 512

struct block {
	int64_t id;
	int day;
	int y0, y1, x0, x1; /* inclusive y, exclusive x */
};

/* A range read ahead while the screen waits for a key. */
struct ahead {
	struct cal_data data;
	int64_t from;
	int ndays, per_day;
	int valid;
};

#define CAL_TK_DAYS 42 /* the most days a view shows (six weeks) */

struct calv {
	int mode;
	int back_mode; /* mode to return to on back, -1: none */
	int64_t day;   /* cursor: midnight */
	int64_t sel;   /* selected visit in week/day mode, 0: none */
	int64_t want;  /* a visit just booked or moved: selected once it is read */
	/* the day view's totals line, read once per day and database change */
	int64_t tot_day;
	int tot_read; /* tot_text is tot_day's (read, or why it could not be) */
	char tot_text[512];
	/* each shown day's takings (week and month), read when idle */
	int64_t tk_from;
	int tk_ndays, tk_valid;
	int64_t tk_net[CAL_TK_DAYS];
	char tk_cur[CAL_TK_DAYS][4];
	int tk_mixed[CAL_TK_DAYS];
	/* each shown day's open reconciliation differences (week and month),
	 * read when idle like the takings: the day gets RECON_MARK */
	int64_t ro_from;
	int ro_ndays, ro_valid, ro_any;
	int64_t ro_open[CAL_TK_DAYS];
	struct cal_data data;
	struct ahead ahead[2]; /* the neighbours of the visible range */
	int prefetch;          /* config screen_prefetch: read them ahead */
	int loaded, load_failed;
	int64_t loaded_from;
	int loaded_days;
	int loaded_per_day;
	int h, w;
	int day_top;
	/* geometry of the last draw, for mouse clicks */
	struct month_geom mg;
	struct week_geom wg;
	int day_first_y;
	struct block blocks[MAX_BLOCKS];
	int nblocks;
	/* the week's visits hidden behind a "+N": the selected one whose list
	 * the message line shows, and whether it is still hidden */
	int64_t hid_msg;
	int hid_seen;
};

/* ---------------------------------------------------------------- range and data */

static int legend_lines(int width);

/* The range a mode shows around day, and how many visits per day need their
 * texts: a month cell shows at most its lines' worth of visits (the
 * geometry draw_month lays out; a body's height when it does not fit), the
 * week at most 256, the day all of them. */
static void key_of(const struct calv *c, int64_t day, int64_t *from, int *ndays, int *per_day)
{
	int fw = ui_first_weekday();

	switch (c->mode) {
	case M_MONTH: {
		int64_t m = cal_month_start(day);
		struct month_geom g;

		*from = cal_week_start(m, fw);
		*ndays = 7 * cal_month_weeks(m, fw);
		*per_day =
		    layout_month(c->h - (legend_lines(c->w) - 1), c->w, *ndays / 7, &g) == 0 &&
		            g.row_h > 1
		        ? g.row_h - 1
		    : c->h > 1 ? c->h
		               : 1;
		return;
	}
	case M_WEEK:
		*from = cal_week_start(day, fw);
		*ndays = 7;
		break;
	default:
		*from = clock_day_start(day);
		*ndays = 1;
		break;
	}
	*per_day = c->mode == M_WEEK ? 256 : 0;
}

static double ms_since(double t0)
{
	return (clock_mono() - t0) * 1e3;
}

static void load(struct calv *c, int force)
{
	int64_t from;
	int ndays, rc, per_day, i;
	double t0;

	key_of(c, c->day, &from, &ndays, &per_day);
	if (force)
		c->ahead[0].valid = c->ahead[1].valid = 0;
	else if (c->loaded && from == c->loaded_from && ndays == c->loaded_days &&
	         per_day == c->loaded_per_day)
		return;
	for (i = 0; i < 2 && !force; i++) {
		struct ahead *a = &c->ahead[i];
		struct cal_data tmp;

		if (!a->valid || a->from != from || a->ndays != ndays || a->per_day != per_day)
			continue;
		/* read ahead: swap it in; what was shown is now a neighbour */
		tmp = c->data;
		c->data = a->data;
		a->data = tmp;
		a->from = c->loaded_from;
		a->ndays = c->loaded_days;
		a->per_day = c->loaded_per_day;
		a->valid = c->loaded && !c->load_failed;
		c->loaded_from = from;
		c->loaded_days = ndays;
		c->loaded_per_day = per_day;
		c->load_failed = 0;
		log_debug("calendar: %d days, %d visits, read ahead", ndays, c->data.nrows);
		return;
	}
	t0 = clock_mono();
	rc = cal_load(ui_db(), from, ndays, per_day, &c->data);
	log_debug("calendar: %d days, %d visits read in %.2f ms", ndays, c->data.nrows,
	          ms_since(t0));
	c->loaded = 1;
	c->loaded_from = from;
	c->loaded_days = ndays;
	c->loaded_per_day = per_day;
	c->load_failed = rc != 0;
	if (rc)
		ui_msg(MSG_ERROR, _("Cannot read the calendar: %s"), err_msg());
}

/* The day one step before (dir -1) or after (+1) the cursor's range. */
static int64_t neighbour(const struct calv *c, int dir)
{
	if (c->mode == M_MONTH)
		return cal_add_months(c->day, dir);
	return clock_add_days(c->day, dir * (c->mode == M_WEEK ? 7 : 1));
}

/* While waiting for a key: read the next, then the previous range, one per
 * call, with the same one range query, so that moving is instant. */
/* report_takings' rows into the shown days' figures. */
struct tk_fill {
	struct calv *c;
	char days[CAL_TK_DAYS][11];
};

static int tk_row(const struct takings_row *r, void *arg)
{
	struct tk_fill *f = arg;
	struct calv *c = f->c;
	int i;

	for (i = 0; i < c->tk_ndays; i++) {
		if (strcmp(f->days[i], r->day))
			continue;
		if (!c->tk_cur[i][0])
			snprintf(c->tk_cur[i], sizeof c->tk_cur[i], "%s", r->currency);
		if (strcmp(c->tk_cur[i], r->currency))
			c->tk_mixed[i] = 1;
		else if (money_add(c->tk_net[i], r->net, &c->tk_net[i]))
			c->tk_mixed[i] = 1;
	}
	return 0;
}

/* The takings of the days the week or month shows, in one query (the same
 * figures as `frontdesk report takings`); 1 when they were read now. Done
 * when idle, after the frame: a month move does not wait for it. */
static int read_takings(struct calv *c)
{
	struct tk_fill f;
	int i;

	if (c->mode == M_DAY || !c->loaded || c->load_failed || c->data.ndays > CAL_TK_DAYS ||
	    (c->tk_valid && c->tk_from == c->data.from && c->tk_ndays == c->data.ndays))
		return 0;
	memset(c->tk_net, 0, sizeof c->tk_net);
	memset(c->tk_cur, 0, sizeof c->tk_cur);
	memset(c->tk_mixed, 0, sizeof c->tk_mixed);
	c->tk_from = c->data.from;
	c->tk_ndays = c->data.ndays;
	f.c = c;
	for (i = 0; i < c->tk_ndays; i++)
		clock_format_local(c->data.day_start[i], "%Y-%m-%d", f.days[i], sizeof f.days[i]);
	c->tk_valid = report_takings(ui_db(), c->data.day_start[0], c->data.day_start[c->tk_ndays],
	                             tk_row, &f) == 0;
	ui_redraw_soon();
	return 1;
}

/* Day i's takings as text ("" when none, unknown or in several currencies). */
static const char *tk_text(const struct calv *c, int i, char buf[FMT_MONEY])
{
	if (!c->tk_valid || c->tk_from != c->data.from || i >= c->tk_ndays || c->tk_mixed[i] ||
	    !c->tk_cur[i][0])
		return "";
	return fmt_money(c->tk_net[i], c->tk_cur[i], buf);
}

/* recon_days_open's days into the shown days' counts. */
struct ro_fill {
	struct calv *c;
	char days[CAL_TK_DAYS][11];
};

static int ro_day(const char *day, int64_t open, void *arg)
{
	struct ro_fill *f = arg;
	int i;

	for (i = 0; i < f->c->ro_ndays; i++)
		if (!strcmp(f->days[i], day)) {
			f->c->ro_open[i] = open;
			f->c->ro_any = 1;
		}
	return 0;
}

/* The days the week or month shows that have open reconciliation
 * differences (recon_days_open, one query); 1 when they were read now.
 * When idle, after the frame, never in the draw path. */
static int read_books_open(struct calv *c)
{
	struct ro_fill f;
	int i;

	if (c->mode == M_DAY || !c->loaded || c->load_failed || c->data.ndays > CAL_TK_DAYS ||
	    (c->ro_valid && c->ro_from == c->data.from && c->ro_ndays == c->data.ndays))
		return 0;
	memset(c->ro_open, 0, sizeof c->ro_open);
	c->ro_any = 0;
	c->ro_from = c->data.from;
	c->ro_ndays = c->data.ndays;
	f.c = c;
	for (i = 0; i < c->ro_ndays; i++)
		clock_format_local(c->data.day_start[i], "%Y-%m-%d", f.days[i], sizeof f.days[i]);
	c->ro_valid =
	    recon_days_open(ui_db(), NULL, f.days[0], f.days[c->ro_ndays - 1], ro_day, &f) == 0;
	ui_redraw_soon();
	return 1;
}

/* 1 when day i of the range shown has open reconciliation differences. */
static int books_open(const struct calv *c, int i)
{
	return c->ro_valid && c->ro_from == c->data.from && i < c->ro_ndays && c->ro_open[i] > 0;
}

/* The mark of a day with open reconciliation differences: after the
 * date in the month, on the left border of the day's heading in the week;
 * the title says what it means while a day in sight has it. */
#define RECON_MARK "$"

static void books_title(const struct calv *c, char *buf, size_t n)
{
	size_t len = strlen(buf);

	if (c->ro_valid && c->ro_from == c->data.from && c->ro_any && len + 1 < n)
		snprintf(buf + len, n - len, "   " RECON_MARK " %s",
		         _("open reconciliation differences"));
}

static int read_day_totals(struct calv *c);

static int cal_idle(struct view *v)
{
	struct calv *c = v->priv;
	int64_t from[2];
	int ndays[2], per_day[2], i, k;
	double t0;

	if (read_takings(c) || read_books_open(c) || read_day_totals(c))
		return 1;
	if (!c->prefetch || !c->loaded || c->load_failed)
		return 0;
	for (i = 0; i < 2; i++)
		key_of(c, neighbour(c, i ? -1 : 1), &from[i], &ndays[i], &per_day[i]);
	for (i = 0; i < 2; i++) {
		int have = 0, spare = -1;

		for (k = 0; k < 2; k++) {
			struct ahead *a = &c->ahead[k];
			int is_i = a->valid && a->from == from[i] && a->ndays == ndays[i] &&
			           a->per_day == per_day[i];
			int is_other = a->valid && a->from == from[1 - i] &&
			               a->ndays == ndays[1 - i] && a->per_day == per_day[1 - i];

			if (is_i)
				have = 1;
			else if (!is_other && spare < 0)
				spare = k;
		}
		if (have || spare < 0)
			continue;
		t0 = clock_mono();
		c->ahead[spare].valid =
		    cal_load(ui_db(), from[i], ndays[i], per_day[i], &c->ahead[spare].data) == 0;
		c->ahead[spare].from = from[i];
		c->ahead[spare].ndays = ndays[i];
		c->ahead[spare].per_day = per_day[i];
		log_debug("calendar: read ahead %d days in %.2f ms", ndays[i], ms_since(t0));
		return 1;
	}
	return 0;
}

static int cursor_index(const struct calv *c)
{
	return cal_find_day(&c->data, c->day);
}

/* Keep sel on a visit of the cursor day (the same one when it is there). */
static void fix_selection(struct calv *c)
{
	int d = cursor_index(c), n = cal_day_count(&c->data, d), k;

	for (k = 0; k < n && c->want; k++)
		if (cal_day_row(&c->data, d, k)->appointment_id == c->want) {
			c->sel = c->want;
			c->want = 0;
			return;
		}

	for (k = 0; k < n; k++)
		if (cal_day_row(&c->data, d, k)->appointment_id == c->sel)
			return;
	c->sel = n > 0 ? cal_day_row(&c->data, d, 0)->appointment_id : 0;
}

static int sel_index(const struct calv *c)
{
	int d = cursor_index(c), n = cal_day_count(&c->data, d), k;

	for (k = 0; k < n; k++)
		if (cal_day_row(&c->data, d, k)->appointment_id == c->sel)
			return k;
	return -1;
}

/* Move the cursor to day, choosing the visit nearest in time of day to the
 * one selected before. */
static void go_day(struct calv *c, int64_t day)
{
	int old_min = -1, d, n, k, best = -1, bestd = 1 << 30;
	const struct cal_row *r;

	if (c->sel && (k = sel_index(c)) >= 0)
		old_min = cal_minute(cal_day_row(&c->data, cursor_index(c), k)->start_at);
	c->day = clock_day_start(day);
	load(c, 0);
	d = cursor_index(c);
	n = cal_day_count(&c->data, d);
	for (k = 0; k < n && old_min >= 0; k++) {
		r = cal_day_row(&c->data, d, k);
		if (abs(cal_minute(r->start_at) - old_min) < bestd) {
			bestd = abs(cal_minute(r->start_at) - old_min);
			best = k;
		}
	}
	c->sel = best >= 0 ? cal_day_row(&c->data, d, best)->appointment_id : 0;
	fix_selection(c);
}

static void set_mode(struct calv *c, int mode, int remember)
{
	c->mode = mode;
	load(c, 0);
	fix_selection(c);
	if (remember)
		state_set("view", mode_names[mode]);
}

/* ---------------------------------------------------------------- shared pieces */

static int inactive(const struct cal_row *r)
{
	return visit_is_off(r->status);
}

/* The mark a visit shows: its own for a cancelled or no-show visit (the
 * core's visit_state_of says which), else its payment status's. */
static const struct pay_mark *visit_mark(const struct cal_row *r)
{
	const struct pay_mark *off = theme_off(r->status);

	return off ? off : theme_pay(r->pay_status);
}

/* The visits of day i that count (not cancelled, not no-show). */
static int day_counted(const struct calv *c, int i)
{
	int n = cal_day_count(&c->data, i), k, counted = 0;

	for (k = 0; k < n; k++)
		counted += !inactive(cal_day_row(&c->data, i, k));
	return counted;
}

static void price_text(const struct cal_row *r, char *buf, size_t n)
{
	const struct currency *cur = currency_find(r->currency);
	char m[MONEY_BUFSZ];

	if (!r->has_total)
		snprintf(buf, n, "%s", _("mixed currencies"));
	else if (!cur)
		snprintf(buf, n, "%s", "");
	else if (money_format(r->total, cur, 1, m, sizeof m) == 0)
		snprintf(buf, n, "%s %s", m, cur->code);
	else
		snprintf(buf, n, "?");
}

static const char *who(const struct cal_row *r)
{
	return r->customers[0] ? r->customers : _("(no job yet)");
}

/* One item of the legend: a mark and its word. */
struct legend_item {
	const char *sym;
	const char *word; /* translated */
	attr_t attr;
};

/* The legend's items: every payment mark, the marks of visits that will
 * not happen (with what they mean for the counts), today's. */
static int legend_items(struct legend_item *it, int max, char *off_word, size_t off_n)
{
	int n, i, k = 0, noff;
	const struct pay_mark *m = theme_pay_marks(&n);
	const struct pay_mark *off = theme_off_marks(&noff);

	for (i = 0; i < n && k < max; i++, k++) {
		it[k].sym = m[i].sym;
		it[k].word = _(m[i].word);
		it[k].attr = theme_attr(m[i].role) | A_BOLD;
	}
	if (k + 3 > max || noff != 2)
		return k;
	it[k].sym = off[0].sym;
	it[k].word = _(off[0].word);
	it[k++].attr = A_BOLD;
	/* TRANSLATORS: the legend's last visit mark: no-shows and cancelled
	 * visits are left out of the day's count. */
	snprintf(off_word, off_n, _("%s (not counted)"), _(off[1].word));
	it[k].sym = off[1].sym;
	it[k].word = off_word;
	it[k++].attr = A_BOLD;
	it[k].sym = "*";
	it[k].word = _("today");
	it[k++].attr = A_NORMAL;
	return k;
}

/* How the legend is laid out at width: the number of lines (1, or 2 when
 * even its compact form does not fit on one), whether it has its heading
 * and the blanks between items: whole with the heading and two blanks,
 * else one blank, else without the heading, else on two lines. */
static int legend_form(int width, int *heading, int *gap)
{
	struct legend_item it[16];
	char off[128];
	int n = legend_items(it, 16, off, sizeof off), i, items = 1, head;

	for (i = 0; i < n; i++)
		items += tw_width(it[i].sym) + 1 + tw_width(it[i].word);
	head = tw_width(_("Payment:")) + 1;
	*heading = 1;
	*gap = 2;
	if (head + items + 2 * n <= width)
		return 1;
	*gap = 1;
	if (head + items + n <= width)
		return 1;
	*heading = 0;
	if (items + n <= width)
		return 1;
	*heading = 1;
	return 2;
}

static int legend_lines(int width)
{
	int heading, gap;

	return legend_form(width, &heading, &gap);
}

/* The legend: every mark with its word, in its colour, from line y, laid
 * out as legend_form says. An item is never cut: it goes to the next
 * line. */
static void draw_legend(WINDOW *w, int y, int width, int lines)
{
	struct legend_item it[16];
	char off[128], buf[160];
	int n = legend_items(it, 16, off, sizeof off), i, x = 1, heading, gap, line = 0;

	legend_form(width, &heading, &gap);
	if (heading)
		x +=
		    draw_text(w, y, x, width - x, _("Payment:"), theme_attr(R_HEADER), AL_LEFT) + 1;
	for (i = 0; i < n; i++) {
		int iw = tw_width(it[i].sym) + 1 + tw_width(it[i].word);

		if (x + iw > width && line + 1 < lines && x > 1) {
			line++;
			x = 1;
		}
		x += draw_text(w, y + line, x, width - x, it[i].sym, it[i].attr, AL_LEFT);
		snprintf(buf, sizeof buf, " %s", it[i].word);
		x += draw_text(w, y + line, x, width - x, buf, A_NORMAL, AL_LEFT) + gap;
	}
}

/* "09:00 ! Name" into width columns at (y, x), the symbol in its role. */
static void draw_visit_line(WINDOW *w, int y, int x, int width, const struct cal_row *r,
                            int64_t day_start, attr_t base)
{
	const struct pay_mark *pm = visit_mark(r);
	char t[16];
	int used;

	if (width <= 0)
		return;
	clock_format_local(r->start_at < day_start ? day_start : r->start_at, "%H:%M", t, sizeof t);
	if (inactive(r) && base == A_NORMAL)
		base = theme_attr(R_DIM);
	draw_fill(w, y, x, width, base);
	if (width < 8) {
		draw_text(w, y, x, width, pm->sym, theme_attr(pm->role) | base, AL_LEFT);
		return;
	}
	used = draw_text(w, y, x, width, t, base, AL_LEFT);
	draw_text(w, y, x + used + 1, 1, pm->sym,
	          (base & A_REVERSE) ? base : (theme_attr(pm->role) | A_BOLD), AL_LEFT);
	draw_text(w, y, x + used + 3, width - used - 3, who(r), base, AL_LEFT);
}

/* ---------------------------------------------------------------- month */

/* The month's title, its weekday headers and the grid's borders. */
static void month_frame(struct calv *c, WINDOW *w, const struct month_geom *g, int weeks,
                        int64_t mstart)
{
	char buf[128];
	int r, col;

	clock_format_local(mstart, "%B %Y", buf, sizeof buf);
	books_title(c, buf, sizeof buf);
	draw_text(w, 0, 0, c->w, buf, theme_attr(R_HEADER), AL_CENTER);
	for (col = 0; col < 7; col++) {
		clock_format_local(c->data.day_start[col], "%a", buf, sizeof buf);
		draw_text(w, 1, g->col_x[col], g->col_w[col], buf, theme_attr(R_HEADER), AL_CENTER);
	}
	/* borders */
	draw_hline(w, 2, 0, c->w);
	for (r = 0; r < weeks; r++) {
		draw_hline(w, g->row_y[r] + g->row_h, 0, c->w);
		for (col = 0; col < 7; col++)
			draw_vline(w, g->row_y[r], g->col_x[col] - 1, g->row_h);
		draw_vline(w, g->row_y[r], g->col_x[6] + g->col_w[6], g->row_h);
	}
	for (r = 0; r <= weeks; r++) {
		int y = r == 0 ? 2 : g->row_y[r - 1] + g->row_h;

		for (col = 0; col < 7; col++)
			draw_cross(w, y, g->col_x[col] - 1);
		draw_cross(w, y, g->col_x[6] + g->col_w[6]);
	}
}

/* One line for the n visits of day i: their symbols, in order, in cw
 * columns at (y, x). */
static void month_symbols(struct calv *c, WINDOW *w, int i, int n, int y, int x, int cw)
{
	int sx = x, k;

	for (k = 0; k < n && sx < x + cw; k++) {
		const struct pay_mark *pm = visit_mark(cal_day_row(&c->data, i, k));

		if (k < n - 1 && sx == x + cw - 1) {
			draw_text(w, y, sx, 1, "+", A_NORMAL, AL_LEFT);
			break;
		}
		draw_text(w, y, sx++, 1, pm->sym, theme_attr(pm->role) | A_BOLD, AL_LEFT);
	}
}

/* Day i's cell of the month (mstart .. mnext); today's, and the cursor's
 * (cur). */
static void month_cell(struct calv *c, WINDOW *w, const struct month_geom *g, int i, int64_t mstart,
                       int64_t mnext, int64_t today, int cur)
{
	int64_t day = c->data.day_start[i];
	int x = g->col_x[i % 7], cw = g->col_w[i % 7], y = g->row_y[i / 7];
	int n = cal_day_count(&c->data, i), k, lines = g->row_h - 1, shown, counted;
	int in_month = day >= mstart && day < mnext;
	attr_t da = i == cur       ? theme_attr(R_SELECT)
	            : day == today ? theme_attr(R_TODAY)
	            : !in_month    ? theme_attr(R_DIM)
	                           : A_NORMAL;
	char num[16], count[32];

	clock_format_local(day, "%d", num, sizeof num);
	if (num[0] == '0')
		memmove(num, num + 1, strlen(num));
	if (day == today)
		strcat(num, "*");
	if (books_open(c, i))
		strcat(num, RECON_MARK);
	draw_fill(w, y, x, cw, i == cur ? da : A_NORMAL);
	draw_text(w, y, x, cw, num, da, AL_LEFT);
	count[0] = '\0';
	counted = day_counted(c, i); /* cancelled and no-show visits are not counted */
	if (counted > 0) {
		snprintf(count, sizeof count, "(%d)", counted);
		draw_text(w, y, x + tw_width(num) + 1, cw - tw_width(num) - 1, count,
		          i == cur ? da : (in_month ? A_NORMAL : theme_attr(R_DIM)), AL_RIGHT);
	}
	{
		/* the day's takings between the date and the count, where
		 * they fit whole */
		char m[FMT_MONEY];
		const char *t = tk_text(c, i, m);
		int tw = tw_width(t),
		    room = cw - tw_width(num) - 1 - tw_width(count) - (count[0] ? 1 : 0);

		if (*t && tw <= room)
			draw_text(w, y, x + tw_width(num) + 1, tw, t,
			          i == cur ? da : theme_attr(R_PAID), AL_LEFT);
	}
	if (lines == 1 && n > 1) {
		month_symbols(c, w, i, n, y + 1, x, cw);
		return;
	}
	shown = n <= lines ? n : lines - 1;
	for (k = 0; k < shown; k++)
		draw_visit_line(w, y + 1 + k, x, cw, cal_day_row(&c->data, i, k), day,
		                in_month ? A_NORMAL : theme_attr(R_DIM));
	if (n > lines && lines > 0) {
		snprintf(count, sizeof count, _("+%d more"), n - shown);
		draw_text(w, y + lines, x, cw, count, A_NORMAL, AL_LEFT);
	}
}

static void draw_month(struct calv *c, WINDOW *w)
{
	struct month_geom *g = &c->mg;
	int64_t mstart = cal_month_start(c->day), today = clock_day_start(clock_now());
	int64_t mnext = cal_month_start(cal_add_months(mstart, 1)); /* ends the month */
	int weeks = c->data.ndays / 7, i, cur = cursor_index(c);

	if (layout_month(c->h - (legend_lines(c->w) - 1), c->w, weeks, g)) {
		draw_center_message(w, _("The window is too small for the month; press w or d."),
		                    A_BOLD);
		return;
	}
	month_frame(c, w, g, weeks, mstart);
	/* cells */
	for (i = 0; i < c->data.ndays; i++)
		month_cell(c, w, g, i, mstart, mnext, today, cur);
	draw_legend(w, g->legend_y, c->w, legend_lines(c->w));
}

/* ---------------------------------------------------------------- week */

static void week_hours(const struct calv *c, int *h0, int *h1)
{
	int k, lo = 8 * 60, hi = 18 * 60;

	for (k = 0; k < c->data.nrows; k++) {
		const struct cal_row *r = &c->data.rows[k];
		int s = r->start_at <= c->data.from ? 0 : cal_minute(r->start_at);
		int e =
		    r->end_at >= c->data.day_start[c->data.ndays] ? 24 * 60 : cal_minute(r->end_at);

		if (clock_day_start(r->start_at) != clock_day_start(r->end_at - 1))
			s = 0, e = 24 * 60; /* crosses midnight: show the whole day */
		if (s < lo)
			lo = s;
		if (e == 0)
			e = 24 * 60;
		if (e > hi)
			hi = e;
	}
	*h0 = lo / 60;
	*h1 = (hi + 59) / 60;
}

/* Day's heading in at most cw columns: "Thu 12-03", shortened to
 * "Thu 03", "12-03", "03" as the column narrows; today's always ends with
 * the today mark "*", which is never cut. */
static void week_day_label(int64_t day, int today, int cw, char *buf, size_t n)
{
	static const char *const forms[] = {"%a %m-%d", "%a %d", "%m-%d", "%d"};
	size_t i, l;

	for (i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		clock_format_local(day, forms[i], buf, n);
		l = strlen(buf);
		if (today && l + 1 < n)
			snprintf(buf + l, n - l, "*");
		if (tw_width(buf) <= cw)
			return;
	}
}

/* The week's title and its days' headers, with their borders. */
static void week_head(struct calv *c, WINDOW *w, const struct week_geom *g, int64_t today, int cur)
{
	char buf[128], when[64];
	int d;

	clock_format_local(c->data.from, "%Y-%m-%d", when, sizeof when);
	snprintf(buf, sizeof buf, _("Week of %s"), when);
	books_title(c, buf, sizeof buf);
	draw_text(w, 0, 0, c->w, buf, theme_attr(R_HEADER), AL_CENTER);
	for (d = 0; d < 7; d++) {
		int64_t day = c->data.day_start[d];
		attr_t a = d == cur       ? theme_attr(R_SELECT)
		           : day == today ? theme_attr(R_TODAY)
		                          : theme_attr(R_HEADER);

		week_day_label(day, day == today, g->col_w[d], buf, sizeof buf);
		draw_text(w, 1, g->col_x[d], g->col_w[d], buf, a, AL_CENTER | AL_PAD);
		draw_vline(w, 1, g->col_x[d] - 1, g->nrows + 1);
		if (books_open(c, d))
			/* on the border: the date is never cut for it */
			draw_text(w, 1, g->col_x[d] - 1, 1, RECON_MARK,
			          theme_attr(R_UNPAID) | A_BOLD, AL_LEFT);
	}
	draw_vline(w, 1, g->col_x[6] + g->col_w[6], g->nrows + 1);
}

/* The times down the left of the grid. */
static void week_times(WINDOW *w, const struct week_geom *g)
{
	char buf[16];
	int row;

	for (row = 0; row < g->nrows; row++) {
		int m = g->h0 * 60 + row * g->slot_min;

		if (m % 60 == 0 || g->slot_min < 60) {
			snprintf(buf, sizeof buf, "%02d:%02d", m / 60, m % 60);
			draw_text(w, g->first_row + row, 0, g->time_w, buf,
			          m % 60 ? theme_attr(R_DIM) : A_NORMAL, AL_LEFT);
		}
	}
}

/* Where a visit's block stands on the grid (rows y0..y1 of the grid,
 * columns x0..x0+width). */
struct week_block {
	int y0, y1, x0, width;
};

/* The block of a visit from s to e (within day .. next) in lane of lanes
 * of day d's column. */
static void week_block_place(const struct week_geom *g, int d, int64_t s, int64_t e, int64_t day,
                             int64_t next, int lane, int lanes, struct week_block *b)
{
	int sm = s == day ? 0 : cal_minute(s), em = e == next ? 24 * 60 : cal_minute(e), lw;

	b->y0 = layout_week_row(g, sm);
	b->y1 = layout_week_row(g, em > sm ? em - 1 : sm);
	if (b->y0 < 0)
		b->y0 = 0;
	if (b->y1 >= g->nrows)
		b->y1 = g->nrows - 1;
	if (b->y1 < b->y0)
		b->y1 = b->y0;
	lw = g->col_w[d] / lanes;
	if (lw < 1)
		lw = 1;
	b->x0 = g->col_x[d] + lane * lw;
	b->width = lane == lanes - 1 ? g->col_x[d] + g->col_w[d] - b->x0 : lw - 1;
	if (b->width < 1)
		b->width = 1;
}

/* Remember block b of visit r on day d, for the mouse. */
static void week_block_keep(struct calv *c, const struct week_geom *g, const struct cal_row *r,
                            int d, const struct week_block *b)
{
	struct block *k;

	if (c->nblocks >= MAX_BLOCKS)
		return;
	k = &c->blocks[c->nblocks++];
	k->id = r->appointment_id;
	k->day = d;
	k->y0 = g->first_row + b->y0;
	k->y1 = g->first_row + b->y1;
	k->x0 = b->x0;
	k->x1 = b->x0 + b->width;
}

/* The narrowest block that still shows its visit's start, mark and the
 * first letters of its name ("10:00!Ad."); a day whose overlapping visits
 * would get narrower blocks is listed instead (week_list). */
#define WEEK_BLOCK_MIN 9
/* The narrowest chip of a listed visit: its mark and two letters and the
 * "." of the cut ("!Ad."). */
#define WEEK_CHIP_MIN 4

/* s (from data) abbreviated into at most cols columns, sanitised first so
 * that what is measured is what is drawn; the caller frees it. */
static char *abbrev(const char *s, int cols)
{
	char *safe = text_sanitize(s), *out;
	size_t n = strlen(safe) + 8;

	out = xmalloc(n);
	tw_abbrev(safe, cols < 0 ? 0 : cols, out, n);
	free(safe);
	return out;
}

/* "10:00 ! Name" into width columns at (y, x) ("10:00!Na." below 12
 * columns: the start, the mark and the first letters come first); the
 * mark in its role. */
static void week_visit_line(WINDOW *w, int y, int x, int width, const struct cal_row *r,
                            int64_t day_start, attr_t base)
{
	const struct pay_mark *pm = visit_mark(r);
	attr_t ma = (base & A_REVERSE) ? base : (theme_attr(pm->role) | A_BOLD);
	int gap = width >= 12 ? 1 : 0, xx;
	char t[16], *name;

	if (width <= 0)
		return;
	draw_fill(w, y, x, width, base);
	if (width < 6) {
		draw_text(w, y, x, width, pm->sym, ma, AL_LEFT);
		return;
	}
	clock_format_local(r->start_at < day_start ? day_start : r->start_at, "%H:%M", t, sizeof t);
	xx = x + draw_text(w, y, x, width, t, base, AL_LEFT) + gap;
	xx += draw_text(w, y, xx, x + width - xx, pm->sym, ma, AL_LEFT) + gap;
	name = abbrev(who(r), x + width - xx);
	draw_text(w, y, xx, x + width - xx, name, base, AL_LEFT);
	free(name);
}

/* Visit r's block b: time and name, services, payment status, price (the
 * amount whole, or only the visit's mark where it does not fit). */
static void week_block_draw(WINDOW *w, const struct week_geom *g, const struct cal_row *r,
                            int64_t day, const struct week_block *b, attr_t base)
{
	const struct pay_mark *pm = visit_mark(r);
	attr_t ma = (base & A_REVERSE) ? base : theme_attr(pm->role);
	char price[64], buf[128];
	int y;

	price_text(r, price, sizeof price);
	for (y = b->y0; y <= b->y1; y++) {
		int line = y - b->y0, yy = g->first_row + y, x0 = b->x0, width = b->width;

		draw_fill(w, yy, x0, width, base);
		if (line == 0) {
			week_visit_line(w, yy, x0, width, r, day, base);
		} else if (line == 1) {
			draw_text(w, yy, x0 + 2, width - 2, r->services, base, AL_LEFT);
		} else if (line == 2) {
			snprintf(buf, sizeof buf, "%s %s", pm->sym, _(pm->word));
			draw_text(w, yy, x0 + 2, width - 2, buf, ma, AL_LEFT);
		} else if (line == 3) {
			if (tw_width(price) <= width - 2)
				draw_text(w, yy, x0 + 2, width - 2, price, base, AL_LEFT);
			else
				draw_text(w, yy, x0 + 2, width - 2, pm->sym, ma, AL_LEFT);
		}
		if (width >= 2)
			draw_text(w, yy, x0, 1, line == 0 ? "" : ":", base, AL_LEFT);
	}
}

/* The attribute of visit r of day d: selected, off (cancelled, no-show)
 * or plain. */
static attr_t week_attr(const struct calv *c, const struct cal_row *r, int d, int cur)
{
	return r->appointment_id == c->sel && d == cur ? theme_attr(R_SELECT)
	       : inactive(r)                           ? theme_attr(R_DIM)
	                                               : A_NORMAL;
}

/* Visits k0..k1-1 of day d are not drawn, counted by a "+N" at (y, x):
 * keep it for the mouse (it selects the first of them); when the cursor is
 * on one of them, list them all on the message line (once, not at every
 * redraw). 1 when the cursor is on one. */
static int week_hidden(struct calv *c, const struct week_geom *g, int d, int cur, int k0, int k1,
                       int y, int x, int width)
{
	struct strbuf sb = {0};
	char one[256] = "";
	int k, on = 0;

	if (c->nblocks < MAX_BLOCKS && k1 > k0) {
		struct block *b = &c->blocks[c->nblocks++];

		b->id = cal_day_row(&c->data, d, k0)->appointment_id;
		b->day = d;
		b->y0 = b->y1 = g->first_row + y;
		b->x0 = x;
		b->x1 = x + width;
	}
	for (k = k0; k < k1 && d == cur; k++)
		if (cal_day_row(&c->data, d, k)->appointment_id == c->sel)
			on = 1;
	if (!on)
		return 0;
	c->hid_seen = 1;
	if (c->hid_msg == c->sel)
		return 1;
	/* the selected one first and whole: the line may be narrow */
	for (k = k0; k < k1; k++) {
		const struct cal_row *r = cal_day_row(&c->data, d, k);
		char t[16];

		clock_format_local(r->start_at < c->data.day_start[d] ? c->data.day_start[d]
		                                                      : r->start_at,
		                   "%H:%M", t, sizeof t);
		if (r->appointment_id == c->sel)
			snprintf(one, sizeof one, "%s %s %s", t, visit_mark(r)->sym, who(r));
		else
			sb_printf(&sb, "%s%s %s %s", sb.len ? ", " : "", t, visit_mark(r)->sym,
			          who(r));
	}
	if (sb.len)
		/* TRANSLATORS: a visit of a crowded day that the week has no room
		 * for (a "+N" on the screen), then the others hidden with it */
		ui_msg(MSG_INFO, _("%1$s (not shown in the week; with it: %2$s)"), one,
		       sb_cstr(&sb));
	else
		ui_msg(MSG_INFO, _("%s (not shown in the week)"), one);
	c->hid_msg = c->sel;
	sb_free(&sb);
	return 1;
}

/* One line of a listed day at grid row line: from "HH:MM" (pre 5
 * columns, or none when the time column beside it reads the same) the
 * chips of visits k .. k+chips-1, then "+plus" when plus > 0 (the visits
 * after them up to k+chips+plus are hidden). */
static void week_list_line(struct calv *c, WINDOW *w, const struct week_geom *g, int d, int cur,
                           int line, int pre, int k, int chips, int plus)
{
	int64_t day = c->data.day_start[d];
	int x0 = g->col_x[d], width = g->col_w[d], yy = g->first_row + line, x = x0 + pre, q;
	int avail = width - pre, nw;
	char t[16], pl[16];

	snprintf(pl, sizeof pl, "+%d", plus);
	if (plus > 0)
		avail -= (int)strlen(pl) + (chips > 0);
	nw = chips > 0 ? (avail - (chips - 1)) / chips - 1 : 0;
	draw_fill(w, yy, x0, width, A_NORMAL);
	if (pre) {
		const struct cal_row *r = cal_day_row(&c->data, d, k);

		clock_format_local(r->start_at < day ? day : r->start_at, "%H:%M", t, sizeof t);
		draw_text(w, yy, x0, pre, t, A_NORMAL, AL_LEFT);
	}
	for (q = 0; q < chips; q++, k++) {
		const struct cal_row *r = cal_day_row(&c->data, d, k);
		const struct pay_mark *pm = visit_mark(r);
		attr_t base = week_attr(c, r, d, cur);
		char *name = abbrev(who(r), nw);
		int cw = 1 + tw_width(name);
		struct week_block b = {line, line, x, cw};

		draw_text(w, yy, x, 1, pm->sym,
		          (base & A_REVERSE) ? base : (theme_attr(pm->role) | A_BOLD), AL_LEFT);
		draw_text(w, yy, x + 1, cw - 1, name, base, AL_LEFT);
		week_block_keep(c, g, r, d, &b);
		free(name);
		x += cw + 1;
	}
	if (plus > 0) {
		int on = week_hidden(c, g, d, cur, k, k + plus, line, x, (int)strlen(pl));

		draw_text(w, yy, x, x0 + width - x, pl, on ? theme_attr(R_SELECT) : A_BOLD,
		          AL_LEFT);
	}
}

/* A crowded day, as a list: the visits that start at the same time share
 * the lines from their start's row down to the next start's row, side by
 * side as chips ("!Ada !Bo."): each visit's mark and the first letters of
 * its name, a cut marked by "."; a line starts with the start time unless
 * the time column beside it reads the same. What does not fit is counted
 * by "+N" at the end of its last line (week_hidden). */
static void week_list(struct calv *c, WINDOW *w, const struct week_geom *g, int d, int cur, int n,
                      const int64_t *s)
{
	int64_t day = c->data.day_start[d];
	int i = 0, next_free = 0, width = g->col_w[d];

	while (i < n) {
		int j = i, m = s[i] == day ? 0 : cal_minute(s[i]), row, line, last, k = i;

		while (j < n && s[j] == s[i])
			j++;
		row = layout_week_row(g, m);
		if (row < 0)
			row = 0;
		line = row > next_free ? row : next_free;
		if (line >= g->nrows || (j < n && line >= g->nrows - 1)) {
			/* no line left (the last is kept for this when more visits
			 * follow): the rest of the day is counted on the last one */
			char pl[16];
			int pw = snprintf(pl, sizeof pl, "+%d", n - i);
			int x = g->col_x[d] + width - pw, yy = g->first_row + g->nrows - 1, on;

			if (x < g->col_x[d]) /* never over the column's border */
				x = g->col_x[d];
			on = week_hidden(c, g, d, cur, i, n, g->nrows - 1, x, pw);
			if (x > g->col_x[d])
				draw_text(w, yy, x - 1, 1, " ", A_NORMAL, AL_LEFT);
			draw_text(w, yy, x, g->col_x[d] + width - x, pl,
			          on ? theme_attr(R_SELECT) : A_BOLD, AL_LEFT);
			return;
		}
		last = g->nrows - 1;
		if (j < n) {
			int nr = layout_week_row(g, cal_minute(s[j]));

			last = g->nrows - 2; /* the last line counts what follows */
			if (nr - 1 < last)
				last = nr - 1 > line ? nr - 1 : line;
		}
		for (; line <= last && k < j; line++) {
			int lines_left = last - line + 1, left = j - k;
			int label = g->h0 * 60 + line * g->slot_min;
			int pre = line == row && label == m ? 0 : 5;
			int avail = width - pre, fit = (avail + 1) / (WEEK_CHIP_MIN + 1);
			int chips = (left + lines_left - 1) / lines_left, plus = 0;

			if (chips > fit)
				chips = fit;
			if (line == last && left > chips) {
				/* the chips that fit beside "+N" */
				for (chips = fit; chips > 0; chips--) {
					char pl[16];
					int pw = snprintf(pl, sizeof pl, "+%d", left - chips);

					if (chips * (WEEK_CHIP_MIN + 1) + pw <= avail)
						break;
				}
				plus = left - chips;
			}
			week_list_line(c, w, g, d, cur, line, pre, k, chips, plus);
			k += chips + plus;
		}
		next_free = line;
		i = j;
	}
}

/* Day d's visits, side by side where they overlap; listed (week_list)
 * when a block would be too narrow for its start and name. */
static void week_day(struct calv *c, WINDOW *w, const struct week_geom *g, int d, int cur)
{
	int n = cal_day_count(&c->data, d), k, lane[256], lanes[256];
	int64_t s[256], e[256];
	int64_t day = c->data.day_start[d], next = c->data.day_start[d + 1];
	struct week_block b;

	if (n > 256)
		n = 256;
	for (k = 0; k < n; k++) {
		const struct cal_row *r = cal_day_row(&c->data, d, k);

		s[k] = r->start_at < day ? day : r->start_at;
		e[k] = r->end_at > next ? next : r->end_at;
	}
	layout_lanes(s, e, n, lane, lanes);
	for (k = 0; k < n; k++) {
		week_block_place(g, d, s[k], e[k], day, next, lane[k], lanes[k], &b);
		if (b.width < WEEK_BLOCK_MIN && lanes[k] > 1) {
			week_list(c, w, g, d, cur, n, s);
			return;
		}
	}
	for (k = 0; k < n; k++) {
		const struct cal_row *r = cal_day_row(&c->data, d, k);

		week_block_place(g, d, s[k], e[k], day, next, lane[k], lanes[k], &b);
		week_block_keep(c, g, r, d, &b);
		week_block_draw(w, g, r, day, &b, week_attr(c, r, d, cur));
	}
}

static void draw_week(struct calv *c, WINDOW *w)
{
	struct week_geom *g = &c->wg;
	int64_t today = clock_day_start(clock_now());
	int h0, h1, d, cur = cursor_index(c);

	c->nblocks = 0;
	c->hid_seen = 0;
	week_hours(c, &h0, &h1);
	/* rows less for the grid: each day's takings above the legend */
	if (layout_week(c->h - legend_lines(c->w), c->w, h0, h1, g)) {
		draw_center_message(w, _("The window is too small for the week; press d."), A_BOLD);
		return;
	}
	week_head(c, w, g, today, cur);
	week_times(w, g);
	for (d = 0; d < 7; d++)
		week_day(c, w, g, d, cur);
	if (!c->hid_seen)
		c->hid_msg = 0;
	if (c->tk_valid && c->tk_from == c->data.from) {
		char m[FMT_MONEY];
		/* the label gets the width it needs, the first day what is left */
		int lw =
		    draw_text(w, g->legend_y, 0, c->w, _("Taken"), theme_attr(R_HEADER), AL_LEFT);

		for (d = 0; d < 7; d++) {
			const char *t = tk_text(c, d, m);
			int x = g->col_x[d], cw = g->col_w[d];

			if (x <= lw) {
				cw -= lw + 1 - x;
				x = lw + 1;
			}
			/* an amount whole, or a mark that one is there */
			draw_text(w, g->legend_y, x, cw, tw_width(t) <= cw ? t : "...",
			          theme_attr(R_HEADER), AL_RIGHT);
		}
	}
	draw_legend(w, g->legend_y + 1, c->w, legend_lines(c->w));
}

/* ---------------------------------------------------------------- day */

static const struct {
	int min, flex, align;
} day_cols[] = {{11, 0, AL_LEFT}, {14, 0, AL_LEFT},  {11, 0, AL_LEFT}, {12, 2, AL_LEFT},
                {12, 3, AL_LEFT}, {14, 0, AL_RIGHT}, {5, 0, AL_RIGHT}};
#define DAY_COL_VISIT 2 /* the visit's status: given up first when narrow */
#define DAY_NARROW    100
#define NDAYCOLS      7

/* Money by currency, for the totals line: a few currencies, and how many
 * more there were (said on the line, never left out silently); a sum too
 * large for int64 is said too. */
struct sums {
	char cur[4][4];
	int64_t v[4];
	int n;
	int more;
	int over;
};

static void sums_add(struct sums *s, const char *cur, int64_t v)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->cur[i], cur)) {
			if (money_add(s->v[i], v, &s->v[i]))
				s->over = 1;
			return;
		}
	if (s->n < 4) {
		snprintf(s->cur[s->n], sizeof s->cur[0], "%s", cur);
		s->v[s->n++] = v;
	} else {
		s->more++;
	}
}

/* The sums as text; none is a zero in currency zero_cur, written as every
 * other amount of the line ("0.00 USD", never a bare "0"). */
static void sums_text(const struct sums *s, const char *zero_cur, struct strbuf *sb)
{
	char m[FMT_MONEY];
	int i;

	if (s->n == 0)
		sb_puts(sb, fmt_money_cur(0, zero_cur, m));
	for (i = 0; i < s->n; i++)
		sb_printf(sb, "%s%s", i ? " + " : "", fmt_money_cur(s->v[i], s->cur[i], m));
	if (s->more)
		sb_printf(sb,
		          ngettext(" + %d more currency", " + %d more currencies",
		                   (unsigned long)s->more),
		          s->more);
	if (s->over)
		sb_printf(sb, " %s", _("(a sum too large to add up: see T)"));
}

static int add_invoiced(const char *cur, int64_t count, int64_t total, void *arg)
{
	(void)count;
	sums_add(arg, cur, total);
	return 0;
}

/* The day's takings: their sums, and by method twice, without and with
 * the currency: the line names the currency of each method's figure when
 * the day took more than one (cash 3.00 and cash 3 of two currencies must
 * not read as one currency). */
struct taken {
	struct sums all;
	struct strbuf methods, methods_cur;
	char first[4];
	int mixed;
};

static int add_taken(const struct takings_row *r, void *arg)
{
	struct taken *t = arg;
	char m[FMT_MONEY];

	sums_add(&t->all, r->currency, r->net);
	if (!t->first[0])
		snprintf(t->first, sizeof t->first, "%s", r->currency);
	else if (strcmp(t->first, r->currency))
		t->mixed = 1;
	sb_printf(&t->methods, "%s%s %s", t->methods.len ? ", " : "", fmt_status(r->method),
	          fmt_money(r->net, r->currency, m));
	sb_printf(&t->methods_cur, "%s%s %s", t->methods_cur.len ? ", " : "", fmt_status(r->method),
	          fmt_money_cur(r->net, r->currency, m));
	return 0;
}

/* "Booked ...  Invoiced ...  Taken ...", then "Taken by method: cash ...,
 * check ..." on a second line (after a newline): the visits
 * that start on the day (their prices as the calendar shows them), the
 * invoices issued that day and the money taken that day by method (net of
 * refunds), the same figures as `frontdesk report takings`. Read when idle,
 * after the frame (like the week's and month's takings), once per day and
 * database change; 1 when read now. */
static int read_day_totals(struct calv *c)
{
	struct sums booked = {0}, invoiced = {0};
	struct taken taken;
	struct strbuf sb = {0};
	int64_t next = clock_add_days(c->day, 1);
	const char *zero_cur;
	int k, d, n, ok;

	if (c->mode != M_DAY || !c->loaded || c->load_failed ||
	    (c->tot_read && c->tot_day == c->day))
		return 0;
	d = cursor_index(c);
	n = cal_day_count(&c->data, d);
	memset(&taken, 0, sizeof taken);
	for (k = 0; k < n; k++) {
		const struct cal_row *r = cal_day_row(&c->data, d, k);

		if (r->start_at >= c->day && !inactive(r) && r->has_total && *r->currency)
			sums_add(&booked, r->currency, r->total);
	}
	ok = report_invoiced(ui_db(), c->day, next, add_invoiced, &invoiced) == 0 &&
	     report_takings(ui_db(), c->day, next, add_taken, &taken) == 0;
	/* a line with no amount at all says 0 in the shop's currency */
	zero_cur = booked.n      ? booked.cur[0]
	           : invoiced.n  ? invoiced.cur[0]
	           : taken.all.n ? taken.all.cur[0]
	                         : config_get("currency", "USD");
	sb_puts(&sb, _("Booked "));
	sums_text(&booked, zero_cur, &sb);
	sb_puts(&sb, _("  Invoiced "));
	sums_text(&invoiced, zero_cur, &sb);
	sb_puts(&sb, _("  Taken "));
	sums_text(&taken.all, zero_cur, &sb);
	if (taken.methods.len)
		sb_printf(&sb, "\n%s %s", _("Taken by method:"),
		          sb_cstr(taken.mixed ? &taken.methods_cur : &taken.methods));
	if (!ok)
		sb_printf(&sb, "  %s", _("(the money figures could not be read)"));
	snprintf(c->tot_text, sizeof c->tot_text, "%s", sb_cstr(&sb));
	sb_free(&sb);
	sb_free(&taken.methods);
	sb_free(&taken.methods_cur);
	c->tot_day = c->day;
	c->tot_read = 1;
	ui_redraw_soon();
	return 1;
}

static void draw_day(struct calv *c, WINDOW *w)
{
	int d = cursor_index(c), n = cal_day_count(&c->data, d), k, i, y, rows, ll;
	int min[NDAYCOLS], flex[NDAYCOLS], x[NDAYCOLS], cw[NDAYCOLS], sel = sel_index(c);
	const char *head[NDAYCOLS] = {_("Time"),     _("Payment"), _("Visit"), _("Customers"),
	                              _("Services"), _("Price"),   _("Min")};
	char buf[256], when[128];

	clock_format_local(c->day, "%A %Y-%m-%d", when, sizeof when);
	if (c->day == clock_day_start(clock_now())) {
		size_t l = strlen(when);

		snprintf(when + l, sizeof when - l, " (%s)", _("today"));
	}
	i = day_counted(c, d); /* cancelled and no-show visits are not counted */
	snprintf(buf, sizeof buf,
	         ngettext("%1$s - %2$d visit", "%1$s - %2$d visits", (unsigned long)i), when, i);
	draw_text(w, 0, 0, c->w, buf, theme_attr(R_HEADER), AL_CENTER);
	for (i = 0; i < NDAYCOLS; i++) {
		min[i] = day_cols[i].min;
		flex[i] = day_cols[i].flex;
	}
	if (c->w < DAY_NARROW) /* keep the price: the visit's status goes first */
		min[DAY_COL_VISIT] = flex[DAY_COL_VISIT] = 0;
	layout_columns(c->w - 2, NDAYCOLS, min, flex, x, cw);
	for (i = 0; i < NDAYCOLS; i++)
		draw_text(w, 1, 2 + x[i], cw[i], head[i], theme_attr(R_HEADER) | A_UNDERLINE,
		          day_cols[i].align);
	c->day_first_y = 2;
	ll = legend_lines(c->w) - 1; /* a legend on two lines moves the totals up */
	rows = c->h - 5 - ll;
	if (c->tot_read && c->tot_day == c->day) {
		const char *t = c->tot_text, *nl = strchr(t, '\n');
		char *first = xstrndup(t, nl ? (size_t)(nl - t) : strlen(t));

		draw_text(w, c->h - 3 - ll, 2, c->w - 4, first, theme_attr(R_HEADER), AL_LEFT);
		if (nl)
			draw_text(w, c->h - 2 - ll, 2, c->w - 4, nl + 1, theme_attr(R_HEADER),
			          AL_LEFT);
		free(first);
	}
	if (n == 0) {
		draw_text(w, 3, 2, c->w - 4, _("No visits on this day. Press a to book one."),
		          A_NORMAL, AL_LEFT);
		draw_legend(w, c->h - legend_lines(c->w), c->w, legend_lines(c->w));
		return;
	}
	if (sel >= 0) {
		if (sel < c->day_top)
			c->day_top = sel;
		if (sel >= c->day_top + rows)
			c->day_top = sel - rows + 1;
	}
	if (c->day_top > n - rows)
		c->day_top = n - rows;
	if (c->day_top < 0)
		c->day_top = 0;
	for (k = c->day_top, y = 2; k < n && y < 2 + rows; k++, y++) {
		const struct cal_row *r = cal_day_row(&c->data, d, k);
		const struct pay_mark *pm = visit_mark(r);
		attr_t base = k == sel      ? theme_attr(R_SELECT)
		              : inactive(r) ? theme_attr(R_DIM)
		                            : A_NORMAL;
		char from[16], to[16];

		draw_fill(w, y, 0, c->w, base);
		if (k == sel)
			draw_text(w, y, 0, 1, ">", base, AL_LEFT);
		clock_format_local(r->start_at < c->day ? c->day : r->start_at, "%H:%M", from,
		                   sizeof from);
		clock_format_local(r->end_at, "%H:%M", to, sizeof to);
		snprintf(buf, sizeof buf, "%s-%s", from, to);
		draw_text(w, y, 2 + x[0], cw[0], buf, base, AL_LEFT);
		snprintf(buf, sizeof buf, "%s %s", pm->sym, _(pm->word));
		draw_text(w, y, 2 + x[1], cw[1], buf,
		          k == sel ? base | A_BOLD : theme_attr(pm->role), AL_LEFT);
		draw_text(w, y, 2 + x[2], cw[2], fmt_status(r->status), base, AL_LEFT);
		draw_text(w, y, 2 + x[3], cw[3], who(r), base, AL_LEFT);
		draw_text(w, y, 2 + x[4], cw[4], r->services, base, AL_LEFT);
		price_text(r, buf, sizeof buf);
		draw_text(w, y, 2 + x[5], cw[5], buf, base, AL_RIGHT);
		snprintf(buf, sizeof buf, "%lld", (long long)r->est_minutes);
		draw_text(w, y, 2 + x[6], cw[6], buf, base, AL_RIGHT);
	}
	draw_legend(w, c->h - legend_lines(c->w), c->w, legend_lines(c->w));
}

/* ---------------------------------------------------------------- view ops */

static void cal_draw(struct view *v, WINDOW *w)
{
	struct calv *c = v->priv;

	load(c, 0);
	fix_selection(c);
	if (c->load_failed) {
		draw_center_message(w, _("The calendar could not be read; see the message below."),
		                    theme_attr(R_ERROR));
		return;
	}
	if (c->mode == M_MONTH)
		draw_month(c, w);
	else if (c->mode == M_WEEK)
		draw_week(c, w);
	else
		draw_day(c, w);
}

static void cal_reload(struct view *v)
{
	struct calv *c = v->priv;

	c->tot_read = 0;
	c->tk_valid = 0;
	c->ro_valid = 0;
	load(c, 1);
	fix_selection(c);
}

static void cal_resize(struct view *v, int h, int w)
{
	struct calv *c = v->priv;

	c->h = h;
	c->w = w;
}

static void cal_free(struct view *v)
{
	struct calv *c = v->priv;

	cal_data_free(&c->data);
	cal_data_free(&c->ahead[0].data);
	cal_data_free(&c->ahead[1].data);
	free(c);
}

static void cal_title(struct view *v, char *buf, size_t n)
{
	struct calv *c = v->priv;
	static const char *const t[] = {N_("Month"), N_("Week"), N_("Day")};

	snprintf(buf, n, "%s (%s)", _("Calendar"), _(t[c->mode]));
}

static const char *cal_help(struct view *v)
{
	(void)v;
	return _(
	    "Each visit shows its payment status as a symbol (the legend is on the last lines) "
	    "and a colour where the terminal has one; / is a cancelled visit, # a no-show "
	    "(neither counted). A week day too crowded is listed, +N counting visits with no "
	    "room: the cursor on one lists them below. Enter opens the day (month) or the visit "
	    "(week, day).");
}

/* go to date: a quiet one-field form */
struct goto_state {
	struct view *cal;
};

static int goto_check(struct form *f)
{
	int64_t t;

	if (clock_parse_local(form_value(f, 0), &t)) {
		form_error(f, 0, "%s", err_msg());
		return 1;
	}
	return 0;
}

static int goto_post(struct form *f)
{
	struct goto_state *g = f->arg;
	struct calv *c = g->cal->priv;
	int64_t t;

	if (clock_parse_local(form_value(f, 0), &t))
		return FD_EINVAL;
	go_day(c, t);
	return 0;
}

static void goto_free(struct form *f)
{
	free(f->arg);
}

static const struct form_spec goto_spec = {
    .name = "goto",
    .check = goto_check,
    .post = goto_post,
    .free = goto_free,
    .quiet = 1,
    .help = N_("Type a date as YYYY-MM-DD and press Enter."),
};

static struct view *goto_form(struct view *cal)
{
	struct goto_state *g = xcalloc(1, sizeof *g);
	struct calv *c = cal->priv;
	struct form *f;
	char d[32];

	g->cal = cal;
	f = form_new(&goto_spec, g, _("Go to a date"));
	clock_format_local(c->day, "%Y-%m-%d", d, sizeof d);
	form_add(f, F_TEXT, 0, _("Date (YYYY-MM-DD)"), d);
	f->fields[0].width = 12;
	return form_view(f);
}

static void move_visit(struct calv *c, int dir)
{
	int d = cursor_index(c), n = cal_day_count(&c->data, d), k = sel_index(c);

	if (n == 0)
		return;
	k += dir;
	if (k < 0)
		k = 0;
	if (k >= n)
		k = n - 1;
	c->sel = cal_day_row(&c->data, d, k)->appointment_id;
}

/* A visit was booked or moved: the cursor goes to its day and, once the
 * calendar has read it, onto it. */
static void landed(int64_t appt_id, int64_t start_at, void *arg)
{
	struct calv *c = arg;

	c->day = clock_day_start(start_at);
	c->want = appt_id;
	c->sel = appt_id;
	load(c, 1);
	fix_selection(c);
}

static struct ui_next open_selected(struct calv *c)
{
	if (c->mode == M_MONTH) {
		c->back_mode = M_MONTH;
		set_mode(c, M_DAY, 0);
		return ui_next(UI_REDRAW, NULL);
	}
	if (!c->sel) {
		ui_msg(MSG_INFO, _("No visit is selected on this day."));
		return ui_next(UI_REDRAW, NULL);
	}
	return ui_next(UI_PUSH, view_visit_new(c->sel));
}

static struct ui_next mouse(struct calv *c, const struct ui_event *ev)
{
	int i;

	if (c->mode == M_MONTH) {
		struct month_geom *g = &c->mg;

		for (i = 0; i < c->data.ndays; i++) {
			int x = g->col_x[i % 7], y = g->row_y[i / 7];

			if (ev->x >= x && ev->x < x + g->col_w[i % 7] && ev->y >= y &&
			    ev->y < y + g->row_h) {
				if (c->data.day_start[i] == c->day)
					return open_selected(c);
				go_day(c, c->data.day_start[i]);
				return ui_next(UI_REDRAW, NULL);
			}
		}
	} else if (c->mode == M_WEEK) {
		for (i = 0; i < c->nblocks; i++) {
			struct block *b = &c->blocks[i];

			if (ev->y >= b->y0 && ev->y <= b->y1 && ev->x >= b->x0 && ev->x < b->x1) {
				if (b->id == c->sel && c->data.day_start[b->day] == c->day)
					return open_selected(c);
				c->day = c->data.day_start[b->day];
				c->sel = b->id;
				return ui_next(UI_REDRAW, NULL);
			}
		}
		for (i = 0; i < 7; i++)
			if (ev->x >= c->wg.col_x[i] && ev->x < c->wg.col_x[i] + c->wg.col_w[i]) {
				go_day(c, c->data.day_start[i]);
				return ui_next(UI_REDRAW, NULL);
			}
	} else {
		int d = cursor_index(c), k = c->day_top + ev->y - c->day_first_y;

		if (k >= 0 && k < cal_day_count(&c->data, d)) {
			int64_t id = cal_day_row(&c->data, d, k)->appointment_id;

			if (id == c->sel)
				return open_selected(c);
			c->sel = id;
			return ui_next(UI_REDRAW, NULL);
		}
	}
	return ui_next(UI_HANDLED, NULL);
}

static struct ui_next cal_action(struct view *v, const struct ui_event *ev)
{
	struct calv *c = v->priv;

	load(c, 0);
	switch (ev->action) {
	case ACT_CAL_LEFT:
		go_day(c, clock_add_days(c->day, -1));
		break;
	case ACT_CAL_RIGHT:
		go_day(c, clock_add_days(c->day, 1));
		break;
	case ACT_CAL_UP:
		if (c->mode == M_MONTH)
			go_day(c, clock_add_days(c->day, -7));
		else
			move_visit(c, -1);
		break;
	case ACT_CAL_DOWN:
		if (c->mode == M_MONTH)
			go_day(c, clock_add_days(c->day, 7));
		else
			move_visit(c, 1);
		break;
	case ACT_CAL_NEXT_WEEK:
	case ACT_CAL_PREV_WEEK:
		go_day(c, clock_add_days(c->day, ev->action == ACT_CAL_NEXT_WEEK ? 7 : -7));
		break;
	case ACT_CAL_NEXT_MONTH:
	case ACT_CAL_PREV_MONTH:
		go_day(c, cal_add_months(c->day, ev->action == ACT_CAL_NEXT_MONTH ? 1 : -1));
		break;
	case ACT_CAL_TODAY:
		go_day(c, clock_now());
		break;
	case ACT_CAL_GOTO:
		return ui_next(UI_PUSH, goto_form(v));
	case ACT_CAL_MONTH:
	case ACT_CAL_WEEK:
	case ACT_CAL_DAY:
		c->back_mode = -1;
		set_mode(c,
		         ev->action == ACT_CAL_MONTH  ? M_MONTH
		         : ev->action == ACT_CAL_WEEK ? M_WEEK
		                                      : M_DAY,
		         1);
		break;
	case ACT_CAL_OPEN:
		return open_selected(c);
	case ACT_CAL_NEW_VISIT:
		return ui_next(UI_PUSH, form_book_new(c->day, landed, c));
	case ACT_CAL_DISPATCH:
		return ui_next(UI_PUSH, view_dispatch_new(c->day));
	case ACT_VISIT_MOVE:
	case ACT_VISIT_CANCEL:
	case ACT_VISIT_NO_SHOW:
		if (!c->sel || c->mode == M_MONTH) {
			ui_msg(MSG_INFO, _("Select a visit first (week or day view)."));
			break;
		}
		if (ev->action == ACT_VISIT_MOVE)
			return ui_next(UI_PUSH, form_visit_move(c->sel, landed, c));
		return ui_next(UI_PUSH, form_visit_close(c->sel, ev->action == ACT_VISIT_NO_SHOW));
	case ACT_BACK:
		if (c->back_mode >= 0) {
			set_mode(c, c->back_mode, 0);
			c->back_mode = -1;
			break;
		}
		return ui_next(UI_UNHANDLED, NULL);
	case ACT_MOUSE:
		return mouse(c, ev);
	default:
		return ui_next(UI_UNHANDLED, NULL);
	}
	return ui_next(UI_REDRAW, NULL);
}

static const enum action cal_keys[] = {
    ACT_CAL_LEFT,      ACT_CAL_RIGHT,      ACT_CAL_UP,         ACT_CAL_DOWN,     ACT_CAL_NEXT_WEEK,
    ACT_CAL_PREV_WEEK, ACT_CAL_NEXT_MONTH, ACT_CAL_PREV_MONTH, ACT_CAL_TODAY,    ACT_CAL_GOTO,
    ACT_CAL_MONTH,     ACT_CAL_WEEK,       ACT_CAL_DAY,        ACT_CAL_OPEN,     ACT_CAL_NEW_VISIT,
    ACT_VISIT_MOVE,    ACT_VISIT_CANCEL,   ACT_VISIT_NO_SHOW,  ACT_CAL_DISPATCH, ACT_NONE};
static const enum action cal_hints[] = {ACT_CAL_OPEN,      ACT_CAL_MONTH, ACT_CAL_WEEK,
                                        ACT_CAL_DAY,       ACT_CAL_TODAY, ACT_CAL_GOTO,
                                        ACT_CAL_NEW_VISIT, ACT_NONE};

static int cal_target(struct view *v, const char **kind, int64_t *id)
{
	struct calv *c = v->priv;

	if (!c->sel)
		return 0;
	*kind = "visit";
	*id = c->sel;
	return 1;
}

static const struct view_ops cal_ops = {
    .name = "calendar",
    .ctx = CTX_CAL,
    .keys = cal_keys,
    .hints = cal_hints,
    .free = cal_free,
    .resize = cal_resize,
    .draw = cal_draw,
    .action = cal_action,
    .reload = cal_reload,
    .title = cal_title,
    .help = cal_help,
    .idle = cal_idle,
    .target = cal_target,
};

struct view *view_calendar_new(void)
{
	struct calv *c = xcalloc(1, sizeof *c);
	const char *m = state_get("view", "week");
	int i;

	c->back_mode = -1;
	c->mode = M_WEEK;
	c->prefetch = strcmp(config_get("screen_prefetch", "yes"), "no") != 0;
	for (i = 0; i < 3; i++)
		if (!strcmp(m, mode_names[i]))
			c->mode = i;
	c->day = clock_day_start(clock_now());
	return view_new(&cal_ops, c);
}
