/*
 * cal.h - the calendar's data: dates in shop time and the visible range of
 * the projection, grouped by day.
 *
 * Every redraw of the calendar reads only its visible range (a day, a
 * week, or the weeks of a month) with the projection's one indexed range
 * query (projection_range); rows are copied into a cal_data so that the
 * views can draw and move without touching the database. No curses here:
 * the date arithmetic is unit-tested in tests/unit/check_ui.c.
 */
#ifndef FD_CAL_H
#define FD_CAL_H

#include <stdint.h>

#include "projection.h"

struct db;

#define CAL_MAX_DAYS 42

struct cal_data {
	int64_t from; /* midnight of the first day */
	int ndays;
	int64_t day_start[CAL_MAX_DAYS + 1]; /* midnights; [ndays] ends the range */
	struct cal_row *rows;                /* by start time, then id */
	int nrows;
	int *idx; /* per day, indices into rows (a visit crossing midnight is in both) */
	int day_off[CAL_MAX_DAYS + 1]; /* day d's indices are idx[day_off[d] .. day_off[d+1]) */
	char *text;                    /* the rows' customers and services point into it */
	size_t text_len;
	/* buffers kept from one load to the next */
	int rows_cap, idx_cap;
	size_t text_cap;
	size_t *offs; /* while loading: each row's texts' offsets in text */
};

/* cal_load - read the ndays (1..CAL_MAX_DAYS) days from midnight from into
 * *d (replacing what it held). Every visit is there with its times and
 * payment status; its customers and services only while it is among the
 * first per_day visits of one of its days (per_day <= 0: always), else "".
 * With per_day 1..16 its price, currency and minutes too only then (else
 * 0 and ""): few names a day, the range is read brief.
 * 0, or the core's error code (*d is then empty). */
int cal_load(struct db *db, int64_t from, int ndays, int per_day, struct cal_data *d);

/* cal_day_count / cal_day_row - the visits of day i (0-based) and its k-th. */
int cal_day_count(const struct cal_data *d, int day);
const struct cal_row *cal_day_row(const struct cal_data *d, int day, int k);

/* cal_find - the day index of midnight t in d, or -1. */
int cal_find_day(const struct cal_data *d, int64_t t);

void cal_data_free(struct cal_data *d);

/* cal_wday - the weekday of t in shop time, 0 = Sunday. */
int cal_wday(int64_t t);

/* cal_minute - minutes since midnight of t's day, in shop time. */
int cal_minute(int64_t t);

/* cal_week_start - the midnight starting the week (first_wday 0..6) that
 * contains day. */
int64_t cal_week_start(int64_t day, int first_wday);

/* cal_month_start - the midnight of the 1st of t's month. */
int64_t cal_month_start(int64_t t);

/* cal_add_months - the same day n months later, clamped to the month's
 * last day (Jan 31 + 1 month = Feb 28/29); a midnight stays a midnight. */
int64_t cal_add_months(int64_t day, int n);

/* cal_month_weeks - how many week rows the month starting at month_start
 * spans when weeks start on first_wday (4..6). */
int cal_month_weeks(int64_t month_start, int first_wday);

/* cal_parse_weekday - "sunday".."saturday" (or "sun".."sat", or "0".."6",
 * any case) as 0..6; -1 otherwise. */
int cal_parse_weekday(const char *s);

/* cal_locale_first_weekday - the first day of the week of LC_TIME,
 * 0 = Sunday (glibc's _NL_TIME_FIRST_WEEKDAY; Sunday elsewhere). */
int cal_locale_first_weekday(void);

#endif
