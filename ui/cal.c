/*
 * cal.c - calendar dates and the visible range (see cal.h).
 *
 * Dates are midnights in shop time (the clock module sets TZ), moved with
 * clock_add_days so that DST days come out right. The range is loaded with
 * ONE call to projection_range and indexed per day in two passes (count,
 * then fill), so a month of thousands of visits costs one query and a few
 * arrays. Texts are copied into one buffer (no allocation per visit), and
 * only for the visits a view can show: a month cell shows a few visits of a
 * day, so the others are counted and keep their payment status, not their
 * names. With few names a day (a month), the range is read brief
 * (projection_range_brief): the others' names, prices and minutes are not
 * even read from the database.
 */
#include <config.h>

#include <langinfo.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cal.h"
#include "clock.h"
#include "xalloc.h"

struct loader {
	struct cal_data *d;
	int per_day;
	int *started; /* per day: visits seen so far (display order) */
	int brief;    /* read with projection_range_brief */
	int need;     /* brief: what want_row said of the row cb gets next */
	int first;    /* the last row's first day (rows come by start time) */
};

/* Up to this many visits a day by name, the range is read brief: a month
 * cell names a handful of its day's hundreds of visits, and looking those
 * up costs less than stepping every column of every visit. */
#define CAL_BRIEF_MAX 16

#define NO_TEXT ((size_t)-1)

/* The first day whose range can hold a visit starting at t, for t not
 * before the start of the one that gave f. */
static int first_day(const struct cal_data *d, int f, int64_t t)
{
	while (f + 1 < d->ndays && d->day_start[f + 1] <= t)
		f++;
	return f;
}

static size_t put_text(struct loader *l, const char *s)
{
	struct cal_data *d = l->d;
	size_t n = strlen(s ? s : "") + 1, off = d->text_len;

	if (d->text_len + n > d->text_cap) {
		while (d->text_len + n > d->text_cap)
			d->text_cap = d->text_cap ? 2 * d->text_cap : 16384;
		d->text = xrealloc(d->text, d->text_cap);
	}
	memcpy(d->text + off, s ? s : "", n);
	d->text_len += n;
	return off;
}

/* Whether row r (the next by start time) needs its texts: rows come by
 * start time, the order of each day's list, so a visit's text is kept while
 * one of its days has shown fewer than per_day. Counts r; once per row. */
static int need_text(struct loader *l, const struct cal_row *r)
{
	struct cal_data *d = l->d;
	int i, need = l->per_day <= 0;

	l->first = first_day(d, l->first, r->start_at);
	for (i = l->first; i < d->ndays && d->day_start[i] < r->end_at; i++)
		if (d->day_start[i + 1] > r->start_at && l->started[i]++ < l->per_day)
			need = 1;
	return need;
}

static int want_row(const struct cal_row *r, void *arg)
{
	struct loader *l = arg;

	return l->need = need_text(l, r);
}

static int add_row(const struct cal_row *r, void *arg)
{
	struct loader *l = arg;
	struct cal_data *d = l->d;
	struct cal_row *c;
	int need = l->brief ? l->need : need_text(l, r);

	if (d->nrows == d->rows_cap) {
		d->rows_cap = d->rows_cap ? 2 * d->rows_cap : 256;
		d->rows = xrealloc(d->rows, (size_t)d->rows_cap * sizeof *d->rows);
		d->offs = xrealloc(d->offs, (size_t)d->rows_cap * 2 * sizeof *d->offs);
	}
	c = &d->rows[d->nrows];
	*c = *r;
	c->customers = c->services = NULL;
	d->offs[2 * d->nrows] = need ? put_text(l, r->customers) : NO_TEXT;
	d->offs[2 * d->nrows + 1] = need ? put_text(l, r->services) : NO_TEXT;
	d->nrows++;
	return 0;
}

/* Forget the rows but keep the buffers: the next range is about as big. */
static void clear(struct cal_data *d)
{
	d->text_len = 0;
	d->nrows = 0;
}

int cal_load(struct db *db, int64_t from, int ndays, int per_day, struct cal_data *d)
{
	static char empty[] = "";
	struct loader l = {d, per_day, NULL, per_day > 0 && per_day <= CAL_BRIEF_MAX, 0, 0};
	int i, k, f, rc, *fill;

	clear(d);
	if (ndays < 1)
		ndays = 1;
	if (ndays > CAL_MAX_DAYS)
		ndays = CAL_MAX_DAYS;
	d->from = from;
	d->ndays = ndays;
	for (i = 0; i <= ndays; i++)
		d->day_start[i] = clock_add_days(from, i);
	memset(d->day_off, 0, sizeof d->day_off);
	l.started = xcalloc((size_t)ndays + 1, sizeof *l.started);
	rc = l.brief ? projection_range_brief(db, from, d->day_start[ndays], want_row, add_row, &l)
	             : projection_range(db, from, d->day_start[ndays], add_row, &l);
	free(l.started);
	if (rc) {
		clear(d);
		return rc;
	}
	/* the text is in place: point into it */
	for (k = 0; k < d->nrows; k++) {
		d->rows[k].customers = d->offs[2 * k] == NO_TEXT ? empty : d->text + d->offs[2 * k];
		d->rows[k].services =
		    d->offs[2 * k + 1] == NO_TEXT ? empty : d->text + d->offs[2 * k + 1];
	}
	/* count, then fill: day_off is the running start of each day */
	for (k = 0, f = 0; k < d->nrows; k++) {
		const struct cal_row *r = &d->rows[k];

		f = first_day(d, f, r->start_at);
		for (i = f; i < ndays && d->day_start[i] < r->end_at; i++)
			if (d->day_start[i + 1] > r->start_at)
				d->day_off[i + 1]++;
	}
	for (i = 0; i < ndays; i++)
		d->day_off[i + 1] += d->day_off[i];
	if (d->day_off[ndays] + 1 > d->idx_cap) {
		d->idx_cap = d->day_off[ndays] + 1;
		d->idx = xrealloc(d->idx, (size_t)d->idx_cap * sizeof *d->idx);
	}
	fill = xmalloc(((size_t)ndays + 1) * sizeof *fill);
	memcpy(fill, d->day_off, ((size_t)ndays + 1) * sizeof *fill);
	for (k = 0, f = 0; k < d->nrows; k++) {
		const struct cal_row *r = &d->rows[k];

		f = first_day(d, f, r->start_at);
		for (i = f; i < ndays && d->day_start[i] < r->end_at; i++)
			if (d->day_start[i + 1] > r->start_at)
				d->idx[fill[i]++] = k;
	}
	free(fill);
	return 0;
}

int cal_day_count(const struct cal_data *d, int day)
{
	if (day < 0 || day >= d->ndays || !d->idx || d->nrows == 0)
		return 0;
	return d->day_off[day + 1] - d->day_off[day];
}

const struct cal_row *cal_day_row(const struct cal_data *d, int day, int k)
{
	if (k < 0 || k >= cal_day_count(d, day))
		return NULL;
	return &d->rows[d->idx[d->day_off[day] + k]];
}

int cal_find_day(const struct cal_data *d, int64_t t)
{
	int i;

	for (i = 0; i < d->ndays; i++)
		if (d->day_start[i] == t)
			return i;
	return -1;
}

void cal_data_free(struct cal_data *d)
{
	free(d->rows);
	free(d->idx);
	free(d->text);
	free(d->offs);
	memset(d, 0, sizeof *d);
}

static struct tm local(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	memset(&tm, 0, sizeof tm);
	localtime_r(&tt, &tm);
	return tm;
}

int cal_wday(int64_t t)
{
	return local(t).tm_wday;
}

int cal_minute(int64_t t)
{
	struct tm tm = local(t);

	return tm.tm_hour * 60 + tm.tm_min;
}

int64_t cal_week_start(int64_t day, int first_wday)
{
	int back = (cal_wday(day) - first_wday + 7) % 7;

	return clock_add_days(clock_day_start(day), -back);
}

int64_t cal_month_start(int64_t t)
{
	struct tm tm = local(clock_day_start(t));

	return clock_add_days(clock_day_start(t), 1 - tm.tm_mday);
}

static int days_in_month(int year, int mon)
{
	static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	return mon == 1 && leap ? 29 : dm[mon];
}

int64_t cal_add_months(int64_t day, int n)
{
	struct tm tm = local(clock_day_start(day));
	int y = tm.tm_year + 1900, m = tm.tm_mon + n, dd = tm.tm_mday, dim;
	int64_t first = cal_month_start(day), target;

	while (m < 0) {
		m += 12;
		y--;
	}
	y += m / 12;
	m %= 12;
	dim = days_in_month(y, m);
	if (dd > dim)
		dd = dim;
	/* walk from the first of this month to the first of the target one */
	target = first;
	if (n > 0)
		for (int i = 0; i < n; i++)
			target = clock_add_days(target, days_in_month(local(target).tm_year + 1900,
			                                              local(target).tm_mon));
	else
		for (int i = 0; i < -n; i++) {
			struct tm p = local(clock_add_days(target, -1));

			target = clock_add_days(target, -days_in_month(p.tm_year + 1900, p.tm_mon));
		}
	return clock_add_days(target, dd - 1);
}

int cal_month_weeks(int64_t month_start, int first_wday)
{
	struct tm tm = local(month_start);
	int lead = (cal_wday(month_start) - first_wday + 7) % 7;
	int dim = days_in_month(tm.tm_year + 1900, tm.tm_mon);

	return (lead + dim + 6) / 7;
}

int cal_parse_weekday(const char *s)
{
	static const char *const names[] = {"sunday",   "monday", "tuesday", "wednesday",
	                                    "thursday", "friday", "saturday"};
	int i;

	if (!s || !*s)
		return -1;
	if (s[0] >= '0' && s[0] <= '6' && s[1] == '\0')
		return s[0] - '0';
	for (i = 0; i < 7; i++)
		if (!strcasecmp(s, names[i]) || (strlen(s) == 3 && !strncasecmp(s, names[i], 3)))
			return i;
	return -1;
}

int cal_locale_first_weekday(void)
{
#ifdef __GLIBC__
	/* glibc: week_1stday is a date stored in the pointer's bits (19971130,
	 * a Sunday, or 19971201, a Monday); first_weekday counts from it,
	 * 1-based */
	unsigned int day1 = (unsigned int)(uintptr_t)nl_langinfo(_NL_TIME_WEEK_1STDAY);
	int fw = (unsigned char)nl_langinfo(_NL_TIME_FIRST_WEEKDAY)[0];
	int base = day1 == 19971201 ? 1 : 0;

	if (fw < 1 || fw > 7)
		return 0;
	return (base + fw - 1) % 7;
#else
	return 0;
#endif
}
