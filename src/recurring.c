/*
 * recurring.c - recurring jobs: their rules, the visits they make, and
 * their changes (see recurring.h; the tables: 0026-recurring.sql).
 *
 * Invariants:
 *  - every rule is read, rewritten and expanded by libical (ical-dyn.h);
 *    this file only chooses the bounds of an expansion and stores days;
 *  - one occurrence row per (rule, day), inserted in the same transaction
 *    (savepoint) as its visit, so making twice or after a crash doubles
 *    nothing: a day with a row is never made again;
 *  - a rule's DTSTART (first_day) is always a day the rule gives, so that
 *    its COUNT and its phase (every other week) mean the same to libical,
 *    to the export's readers and to us;
 *  - the visits are booked through booking.h and changed through visit.h,
 *    whose rules (capacity, statuses) apply unchanged.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "announce.h"
#include "booking.h"
#include "capacity.h"
#include "clock.h"
#include "control.h"
#include "customer.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "ical-dyn.h"
#include "item.h"
#include "job.h"
#include "money.h"
#include "recurring.h"
#include "retention-mod.h"
#include "service.h"
#include "settings.h"
#include "strbuf.h"
#include "text.h"
#include "visit.h"
#include "xalloc.h"

/* A rule that never ends is expanded no further than this year. */
#define LAST_YEAR 2200
/* A day a resource is off moves at most this many days later. */
#define MOVE_DAYS 6

static int ical(void)
{
	return ical_load(_("a recurring job's rule"));
}

/* ------------------------------------------------------------ days */

/* "YYYY-MM-DD" into y, m, d; 0, or -1 when it is not a real day. */
static int day_split(const char *s, int *y, int *m, int *d)
{
	char extra;

	if (!s || strlen(s) != 10 || s[4] != '-' || s[7] != '-' ||
	    sscanf(s, "%4d-%2d-%2d%c", y, m, d, &extra) != 3 || *y < 1900 || *y > 9999 || *m < 1 ||
	    *m > 12 || *d < 1 || *d > clock_month_days(*y, *m))
		return -1;
	return 0;
}

static int day_check(const char *s, const char *what)
{
	int y, m, d;

	if (day_split(s, &y, &m, &d))
		return err_set(FD_EINVAL, _("%1$s must be a date as YYYY-MM-DD, not '%2$.20s'"),
		               what, s ? s : "");
	return 0;
}

/* "YYYY-MM-DD" of a day of the years 1900..9999. */
static void day_text(int y, int m, int d, char out[RECURRING_DAY_SIZE])
{
	char buf[48];

	snprintf(buf, sizeof buf, "%04d-%02d-%02d", y, m, d);
	snprintf(out, RECURRING_DAY_SIZE, "%.10s", buf);
}

/* out = day + n days. */
static void day_add(const char *day, int n, char out[RECURRING_DAY_SIZE])
{
	struct tm tm = {0};
	time_t t;
	int y, m, d;

	if (day_split(day, &y, &m, &d)) {
		snprintf(out, RECURRING_DAY_SIZE, "%s", day);
		return;
	}
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d + n;
	tm.tm_hour = 12;
	t = timegm(&tm);
	gmtime_r(&t, &tm);
	day_text(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, out);
}

/* The shop's day of t. */
static void day_of(int64_t t, char out[RECURRING_DAY_SIZE])
{
	clock_format_local(t, "%Y-%m-%d", out, RECURRING_DAY_SIZE);
}

/* The UTC start of minute `minute` of the shop's day `day`. */
static int day_at(const char *day, int minute, int64_t *out)
{
	char text[32];

	snprintf(text, sizeof text, "%s %02d:%02d", day, minute / 60, minute % 60);
	return clock_parse_local(text, out);
}

static long horizon_days(void)
{
	long h = config_get_int("recurring_horizon_days", RECURRING_HORIZON);

	return h < 1 ? 1 : h > 730 ? 730 : h;
}

/* Today plus the horizon, shop time. */
static void horizon_day(char out[RECURRING_DAY_SIZE])
{
	char today[RECURRING_DAY_SIZE];

	day_of(clock_now(), today);
	day_add(today, (int)horizon_days(), out);
}

/* ------------------------------------------------------------ rules */

static struct icaltimetype ical_day(const char *day)
{
	struct icaltimetype t = icaltime_null_time();
	int y = 0, m = 0, d = 0;

	day_split(day, &y, &m, &d);
	t.year = y;
	t.month = m;
	t.day = d;
	t.is_date = 1;
	return t;
}

/* The rule in text, read by libical; FD_EINVAL with the reason. */
static int rule_read(const char *text, struct icalrecurrencetype *r)
{
	int i, rc;

	if ((rc = ical()))
		return rc;
	icalerrno = ICAL_NO_ERROR;
	*r = icalrecurrencetype_from_string(text);
	if (r->freq == ICAL_NO_RECURRENCE)
		return err_set(FD_EINVAL,
		               _("'%1$.60s' is not a rule in iCalendar's RRULE form (%2$s): write "
		                 "for example FREQ=WEEKLY;INTERVAL=2;BYDAY=TU"),
		               text, icalerror_strerror(icalerrno));
	if (r->freq == ICAL_SECONDLY_RECURRENCE || r->freq == ICAL_MINUTELY_RECURRENCE ||
	    r->freq == ICAL_HOURLY_RECURRENCE)
		return err_set(FD_EINVAL, "%s",
		               _("a recurring job repeats by days, weeks, months or years "
		                 "(FREQ=DAILY, WEEKLY, MONTHLY or YEARLY); its time of day is set "
		                 "apart"));
	for (i = 0; i < ICAL_BY_HOUR_SIZE; i++)
		if (r->by_hour[i] != ICAL_RECURRENCE_ARRAY_MAX)
			goto time_parts;
	for (i = 0; i < ICAL_BY_MINUTE_SIZE; i++)
		if (r->by_minute[i] != ICAL_RECURRENCE_ARRAY_MAX)
			goto time_parts;
	for (i = 0; i < ICAL_BY_SECOND_SIZE; i++)
		if (r->by_second[i] != ICAL_RECURRENCE_ARRAY_MAX)
			goto time_parts;
	if (r->count < 0 || r->count > 10000)
		return err_set(FD_EINVAL, "%s", _("a rule's COUNT is 1 to 10000"));
	if (r->interval < 1 || r->interval > 1000)
		return err_set(FD_EINVAL, "%s", _("a rule's INTERVAL is 1 to 1000"));
	if (!icaltime_is_null_time(r->until)) {
		/* DTSTART is a date: UNTIL is one too (RFC 5545, 3.3.10) */
		r->until.hour = r->until.minute = r->until.second = 0;
		r->until.is_date = 1;
		r->until.zone = NULL;
	}
	return 0;
time_parts:
	return err_set(FD_EINVAL, "%s",
	               _("a recurring job's time of day is given apart (--time): its rule has "
	                 "no BYHOUR, BYMINUTE or BYSECOND"));
}

/* The canonical text of r in out (n bytes). */
static int rule_text(struct icalrecurrencetype *r, char *out, size_t n)
{
	char *s = icalrecurrencetype_as_string_r(r);
	int rc = 0;

	if (!s || strlen(s) >= n || strlen(s) < 6)
		rc = err_set(FD_EINVAL, "%s", _("the rule is too long: at most 400 characters"));
	else
		snprintf(out, n, "%s", s);
	free(s);
	return rc;
}

int recurring_rule_check(const char *text, char *out, size_t n)
{
	struct icalrecurrencetype r;
	int rc;

	while (text && (*text == ' ' || *text == '\t'))
		text++;
	if (!text || !*text)
		return err_set(FD_EINVAL, "%s",
		               _("give the rule in iCalendar's RRULE form, for example "
		                 "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU"));
	if (!strncasecmp(text, "RRULE:", 6))
		text += 6;
	if ((rc = text_check(text, _("rule"), RECURRING_RULE_MAX, 0)) || (rc = rule_read(text, &r)))
		return rc;
	return rule_text(&r, out, n);
}

int recurring_expand(const char *rrule, const char *first_day, const char *last_day,
                     const char *from, const char *to, int (*cb)(const char *day, void *arg),
                     void *arg)
{
	struct icalrecurrencetype r;
	icalrecur_iterator *it;
	char day[RECURRING_DAY_SIZE];
	int rc;

	if ((rc = day_check(first_day, _("the first day"))) || (rc = rule_read(rrule, &r)))
		return rc;
	if (!(it = icalrecur_iterator_new(r, ical_day(first_day))))
		return err_set(FD_EINVAL, _("libical cannot expand the rule '%.60s'"), rrule);
	for (;;) {
		struct icaltimetype t = icalrecur_iterator_next(it);

		if (icaltime_is_null_time(t) || t.year > LAST_YEAR)
			break;
		day_text(t.year, t.month, t.day, day);
		if ((last_day && *last_day && strcmp(day, last_day) > 0) ||
		    (to && strcmp(day, to) > 0))
			break;
		if (from && strcmp(day, from) < 0)
			continue;
		if ((rc = cb(day, arg)))
			break;
	}
	icalrecur_iterator_free(it);
	return rc;
}

static int first_cb(const char *day, void *arg)
{
	snprintf(arg, RECURRING_DAY_SIZE, "%s", day);
	return 1;
}

/* The first day rrule gives on or after from, expanded from phase (a day
 * the rule gives: its weeks and months), with no COUNT or UNTIL when
 * open; "" when none. */
static int first_day_from(const char *rrule, const char *phase, const char *from, int open,
                          char out[RECURRING_DAY_SIZE])
{
	struct icalrecurrencetype r;
	char text[RECURRING_RULE_MAX + 1];
	int rc;

	*out = '\0';
	if (open) {
		if ((rc = rule_read(rrule, &r)))
			return rc;
		r.count = 0;
		r.until = icaltime_null_time();
		if ((rc = rule_text(&r, text, sizeof text)))
			return rc;
		rrule = text;
	}
	rc = recurring_expand(rrule, phase, NULL, from, NULL, first_cb, out);
	return rc == 1 ? 0 : rc;
}

static int count_cb(const char *day, void *arg)
{
	(void)day;
	++*(int64_t *)arg;
	return 0;
}

/* --------------------------------------------------------- reading */

#define RULE_COLS                                                                                  \
	"id, customer_id, title, rrule, first_day, coalesce(last_day, ''), made_to, "              \
	"start_minute, "                                                                           \
	"length_minutes, location, note, currency, billing, when_off, status, "                    \
	"coalesce(split_from, 0), created_at, updated_at"

static void rule_fill(sqlite3_stmt *st, struct recurring *r)
{
	memset(r, 0, sizeof *r);
	r->id = sqlite3_column_int64(st, 0);
	r->customer_id = sqlite3_column_int64(st, 1);
	r->title = dbrow_dup(st, 2);
	r->rrule = dbrow_dup(st, 3);
	dbrow_copy(st, 4, r->first_day, sizeof r->first_day);
	dbrow_copy(st, 5, r->last_day, sizeof r->last_day);
	dbrow_copy(st, 6, r->made_to, sizeof r->made_to);
	r->start_minute = sqlite3_column_int(st, 7);
	r->length_minutes = sqlite3_column_int(st, 8);
	r->location = dbrow_dup(st, 9);
	r->note = dbrow_dup(st, 10);
	dbrow_copy(st, 11, r->currency, sizeof r->currency);
	dbrow_copy(st, 12, r->billing, sizeof r->billing);
	dbrow_copy(st, 13, r->when_off, sizeof r->when_off);
	dbrow_copy(st, 14, r->status, sizeof r->status);
	r->split_from = sqlite3_column_int64(st, 15);
	r->created_at = sqlite3_column_int64(st, 16);
	r->updated_at = sqlite3_column_int64(st, 17);
}

/* The counts by state, the customer's name and one visit's price. */
static int rule_more(struct db *db, struct recurring *r)
{
	struct customer c;
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare(db,
	                     "SELECT state, count(*) FROM recurring_occurrence WHERE rule_id = ?"
	                     " GROUP BY state",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, r->id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(st, 0);
		int64_t n = sqlite3_column_int64(st, 1);

		if (!strcmp(s, "made"))
			r->made = n;
		else if (!strcmp(s, "moved"))
			r->moved = n;
		else if (!strcmp(s, "skipped"))
			r->skipped = n;
		else
			r->dropped = n;
	}
	rc = step == SQLITE_DONE ? 0 : db_fail(db, _("cannot read a recurring job"));
	sqlite3_finalize(st);
	if (rc)
		return rc;
	if ((rc = db_prepare(
	         db, "SELECT kind, qty_milli, unit_price FROM recurring_line WHERE rule_id = ?",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, r->id);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(st, 0);
		int64_t amount;

		if ((rc = money_line_amount(sqlite3_column_int64(st, 1),
		                            sqlite3_column_int64(st, 2), &amount)))
			break;
		if (!strcmp(kind, "DISCOUNT") || !strcmp(kind, "CREDIT"))
			amount = -amount;
		rc = money_add(r->price, amount, &r->price);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read a recurring job"));
	sqlite3_finalize(st);
	if (rc)
		return rc;
	if (customer_get(db, r->customer_id, &c) == 0) {
		r->customer_name = xstrdup(c.name);
		customer_free(&c);
	} else {
		r->customer_name = xstrdup("");
		err_clear();
	}
	return 0;
}

static void rule_fill_row(sqlite3_stmt *st, void *out)
{
	rule_fill(st, out);
}

int recurring_get(struct db *db, int64_t id, struct recurring *out)
{
	int rc, found = 0;

	memset(out, 0, sizeof *out);
	if ((rc = dbrow_get(db, "SELECT " RULE_COLS " FROM recurring_rule WHERE id = ?1", id,
	                    rule_fill_row, out, _("cannot read a recurring job"), &found)))
		return rc;
	if (!found)
		return err_set(FD_ENOTFOUND, _("there is no recurring job %lld"), (long long)id);
	if ((rc = rule_more(db, out)))
		recurring_free(out);
	return rc;
}

int recurring_list(struct db *db, int64_t customer_id, int all,
                   int (*cb)(const struct recurring *r, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare(db,
	                     "SELECT " RULE_COLS
	                     " FROM recurring_rule WHERE (?1 = 0 OR customer_id = ?1)"
	                     " AND (?2 OR status = 'active') ORDER BY id",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, customer_id);
	sqlite3_bind_int(st, 2, all != 0);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct recurring r;

		rule_fill(st, &r);
		rc = rule_more(db, &r);
		if (!rc)
			rc = cb(&r, arg);
		recurring_free(&r);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the recurring jobs"));
	sqlite3_finalize(st);
	return rc;
}

void recurring_free(struct recurring *r)
{
	free(r->customer_name);
	free(r->title);
	free(r->rrule);
	free(r->location);
	free(r->note);
	memset(r, 0, sizeof *r);
}

int recurring_lines(struct db *db, int64_t id, int (*cb)(const struct recurring_line *l, void *arg),
                    void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare(db,
	                     "SELECT kind, description, qty_milli, unit_price FROM recurring_line"
	                     " WHERE rule_id = ? ORDER BY pos",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct recurring_line l;

		dbrow_copy(st, 0, l.kind, sizeof l.kind);
		l.description = dbrow_dup(st, 1);
		l.qty_milli = sqlite3_column_int64(st, 2);
		l.unit_price = sqlite3_column_int64(st, 3);
		rc = cb(&l, arg);
		free(l.description);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read a recurring job's line items"));
	sqlite3_finalize(st);
	return rc;
}

/* The rule's start of the visit of occurrence day (the day the visit is on
 * for a moved one). */
static int64_t rule_start_of(const struct recurring *r, const char *day)
{
	int64_t t = 0;

	day_at(day, r->start_minute, &t);
	return t;
}

int recurring_occurrences(struct db *db, int64_t id,
                          int (*cb)(const struct recurring_occ *o, void *arg), void *arg)
{
	struct recurring r;
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = recurring_get(db, id, &r)))
		return rc;
	if ((rc = db_prepare(db,
	                     "SELECT day, state, coalesce(appointment_id, 0), reason"
	                     " FROM recurring_occurrence WHERE rule_id = ? ORDER BY day",
	                     &st))) {
		recurring_free(&r);
		return rc;
	}
	sqlite3_bind_int64(st, 1, id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct recurring_occ o;
		struct visit v;

		memset(&o, 0, sizeof o);
		dbrow_copy(st, 0, o.day, sizeof o.day);
		dbrow_copy(st, 1, o.state, sizeof o.state);
		o.appt_id = sqlite3_column_int64(st, 2);
		o.reason = dbrow_dup(st, 3);
		o.rule_start = rule_start_of(&r, o.day);
		if (o.appt_id && visit_get(db, o.appt_id, &v) == 0) {
			char vday[RECURRING_DAY_SIZE];

			o.start_at = v.start_at;
			o.end_at = v.end_at;
			snprintf(o.appt_status, sizeof o.appt_status, "%s", v.status);
			day_of(v.start_at, vday);
			o.by_hand = !strcmp(o.state, "moved")
			                ? v.start_at != rule_start_of(&r, vday) ||
			                      v.end_at - v.start_at != r.length_minutes * 60
			                : v.start_at != o.rule_start ||
			                      v.end_at - v.start_at != r.length_minutes * 60;
			visit_free(&v);
		}
		rc = cb(&o, arg);
		recurring_occ_free(&o);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read a recurring job's visits"));
	sqlite3_finalize(st);
	recurring_free(&r);
	return rc;
}

void recurring_occ_free(struct recurring_occ *o)
{
	free(o->reason);
	o->reason = NULL;
}

int recurring_rule_bounded(const struct recurring *r, char *out, size_t n, char *until)
{
	struct icalrecurrencetype rr;
	int64_t count = 0;
	int rc;

	*until = '\0';
	if ((rc = rule_read(r->rrule, &rr)))
		return rc;
	if (*r->last_day && rr.count > 0) {
		if ((rc = recurring_expand(r->rrule, r->first_day, r->last_day, NULL, NULL,
		                           count_cb, &count)))
			return rc;
		/* a rule cut before its first day gives none: COUNT=1 would give
		 * one, so such a rule ends the day before it starts instead */
		if (count > 0)
			rr.count = (int)count;
		else {
			rr.count = 0;
			rr.until = ical_day(r->last_day);
		}
	} else if (*r->last_day) {
		struct icaltimetype last = ical_day(r->last_day);

		if (icaltime_is_null_time(rr.until) || icaltime_compare(last, rr.until) < 0)
			rr.until = last;
	}
	if (!icaltime_is_null_time(rr.until))
		day_text(rr.until.year, rr.until.month, rr.until.day, until);
	return rule_text(&rr, out, n);
}

int recurring_of_visit(struct db *db, int64_t appt, int64_t *rule_id, char day[RECURRING_DAY_SIZE])
{
	sqlite3_stmt *st;
	int rc, step;

	*rule_id = 0;
	*day = '\0';
	if ((rc = db_prepare(
	         db, "SELECT rule_id, day FROM recurring_occurrence WHERE appointment_id = ?",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, appt);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		*rule_id = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, day, RECURRING_DAY_SIZE);
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read a recurring job's visits"));
	}
	sqlite3_finalize(st);
	return rc;
}

/* ------------------------------------------------------------ adding */

/* The visits of a rule just added or changed, made at once so that the desk
 * sees them; what fails now is left to its task (queued with the change),
 * which retries on its backoff. */
static void make_now(struct db *db, int64_t id)
{
	if (recurring_make(db, id, NULL, NULL))
		err_clear();
}

struct add_ctx {
	const struct recurring_input *in;
	char rrule[RECURRING_RULE_MAX + 1];
	char first[RECURRING_DAY_SIZE];
	int64_t id;
};

static int add_lines(struct db *db, struct add_ctx *a, char currency[4], struct strbuf *title)
{
	sqlite3_stmt *st;
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < a->in->nservices; i++) {
		struct service s;

		if ((rc = service_get(db, a->in->services[i], &s)))
			return rc;
		if (!s.active)
			rc = err_set(FD_ECONFLICT,
			             _("service %lld (%s) is retired and no longer offered: choose "
			               "another one"),
			             (long long)s.id, s.name);
		else if (*currency && strcmp(currency, s.currency))
			rc = err_set(FD_ECONFLICT,
			             _("the services are priced in %s and %s: one recurring job's "
			               "services are billed in one currency"),
			             currency, s.currency);
		if (!rc) {
			memcpy(currency, s.currency, 4);
			if (title->len < 190)
				sb_printf(title, "%s%s", title->len ? ", " : "", s.name);
			rc = db_prepare(
			    db,
			    "INSERT INTO recurring_line (rule_id, pos, service_id, kind,"
			    " description, qty_milli, unit_price) VALUES (?, ?, ?, ?, ?, 1000, ?)",
			    &st);
		}
		if (!rc) {
			sqlite3_bind_int64(st, 1, a->id);
			sqlite3_bind_int64(st, 2, (int64_t)i);
			sqlite3_bind_int64(st, 3, s.id);
			sqlite3_bind_text(st, 4, s.kind, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(st, 5, s.name, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(st, 6, s.price);
			rc = db_run(db, st, _("cannot store a recurring job's line items"));
		}
		service_free(&s);
	}
	return rc;
}

static int add_resources(struct db *db, int64_t id, const int64_t *res, size_t n)
{
	sqlite3_stmt *st;
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < n; i++) {
		struct resource r;

		if ((rc = capacity_resource_get(db, res[i], &r)))
			return rc;
		if (!r.active)
			rc = err_set(FD_ECONFLICT, _("resource %s is retired"), r.name);
		capacity_resource_free(&r);
		if (!rc && !(rc = db_prepare(db,
		                             "INSERT INTO recurring_resource (rule_id, resource_id)"
		                             " VALUES (?, ?)",
		                             &st))) {
			sqlite3_bind_int64(st, 1, id);
			sqlite3_bind_int64(st, 2, res[i]);
			rc = db_run(db, st, _("cannot store a recurring job's resources"));
		}
	}
	return rc;
}

static int add_tx(struct db *db, void *arg)
{
	struct add_ctx *a = arg;
	const struct recurring_input *in = a->in;
	struct customer c;
	struct strbuf title = {0};
	char currency[4] = "";
	sqlite3_stmt *st;
	int64_t now = clock_now();
	int rc;

	if ((rc = control_require(db, PERM_BOOKING, 0, "add a recurring job")))
		return rc;
	if ((rc = customer_get(db, in->customer_id, &c)))
		return rc;
	customer_free(&c);
	if ((rc =
	         db_prepare(db,
	                    "INSERT INTO recurring_rule (customer_id, title, rrule, first_day,"
	                    " start_minute, length_minutes, location, note, currency, billing,"
	                    " when_off, status, created_at, updated_at) VALUES (?, 'x', ?, ?, ?, ?,"
	                    " ?, ?, 'XXX', ?, ?, 'active', ?, ?) RETURNING id",
	                    &st)))
		return rc;
	sqlite3_bind_int64(st, 1, in->customer_id);
	sqlite3_bind_text(st, 2, a->rrule, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, a->first, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 4, in->start_minute);
	sqlite3_bind_int(st, 5, in->length_minutes);
	if (in->location && *in->location)
		sqlite3_bind_text(st, 6, in->location, -1, SQLITE_TRANSIENT);
	if (in->note && *in->note)
		sqlite3_bind_text(st, 7, in->note, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 8, in->billing ? in->billing : "visit", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 9, in->when_off ? in->when_off : "skip", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 10, now);
	sqlite3_bind_int64(st, 11, now);
	if (sqlite3_step(st) == SQLITE_ROW)
		a->id = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, _("cannot store the recurring job"));
	sqlite3_finalize(st);
	if (rc || (rc = add_lines(db, a, currency, &title)) ||
	    (rc = add_resources(db, a->id, in->resources, in->nresources)))
		goto out;
	if (!*currency)
		snprintf(currency, sizeof currency, "%.3s", config_get("currency", "USD"));
	/* the title and currency are known once the services are read; the
	 * history's first row is the insert's, with a placeholder: this update
	 * is its second, in the same transaction */
	if ((rc = db_prepare(db, "UPDATE recurring_rule SET title = ?, currency = ? WHERE id = ?",
	                     &st)))
		goto out;
	sqlite3_bind_text(st, 1,
	                  in->title && *in->title ? in->title
	                  : title.len             ? sb_cstr(&title)
	                                          : _("Visit"),
	                  -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, currency, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, a->id);
	rc = db_run(db, st, _("cannot store the recurring job"));
out:
	sb_free(&title);
	return rc;
}

static int word_check(const char *w, const char *a, const char *b, const char *what)
{
	if (w && strcmp(w, a) && strcmp(w, b))
		return err_set(FD_EINVAL, _("%1$s is '%2$s' or '%3$s', not '%4$.20s'"), what, a, b,
		               w);
	return 0;
}

int recurring_add(struct db *db, const struct recurring_input *in, int64_t *id_out)
{
	struct add_ctx a;
	int rc;

	memset(&a, 0, sizeof a);
	a.in = in;
	if (in->start_minute < 0 || in->start_minute > 1439)
		return err_set(FD_EINVAL, "%s", _("the time of day is 00:00 to 23:59"));
	if (in->length_minutes < 1 || in->length_minutes > VISIT_MAX_SECONDS / 60)
		return err_set(FD_EINVAL, "%s", _("a visit lasts 1 minute to 7 days"));
	if (in->nservices > RECURRING_MAX_LINES)
		return err_set(FD_EINVAL, _("a recurring job has at most %d services"),
		               RECURRING_MAX_LINES);
	if (in->nresources > CAPACITY_MAX_RESOURCES)
		return err_set(FD_EINVAL, _("a visit holds at most %d resources"),
		               CAPACITY_MAX_RESOURCES);
	if ((rc = word_check(in->billing, "visit", "month", _("billing"))) ||
	    (rc = word_check(in->when_off, "skip", "move", _("what to do on a day off"))) ||
	    (rc = day_check(in->from, _("the first day"))) ||
	    (in->title && (rc = text_check(in->title, _("title"), 200, 1))) ||
	    (in->location && (rc = text_check(in->location, _("location"), 400, 1))) ||
	    (in->note && (rc = text_check(in->note, _("note"), 2000, 1))) ||
	    (rc = recurring_rule_check(in->rrule, a.rrule, sizeof a.rrule)) ||
	    (rc = first_day_from(a.rrule, in->from, in->from, 0, a.first)))
		return rc;
	if (!*a.first)
		return err_set(FD_ECONFLICT, _("the rule %1$s gives no day from %2$s on"), a.rrule,
		               in->from);
	if ((rc = db_write(db, add_tx, &a)))
		return rc;
	*id_out = a.id;
	make_now(db, a.id);
	return 0;
}

/* ------------------------------------------------------------ making */

struct days {
	char (*d)[RECURRING_DAY_SIZE];
	size_t n, cap;
	const char *to;                /* collect up to this day */
	char next[RECURRING_DAY_SIZE]; /* the first day after it, "" if none */
};

static int days_cb(const char *day, void *arg)
{
	struct days *ds = arg;

	if (strcmp(day, ds->to) > 0) {
		snprintf(ds->next, sizeof ds->next, "%s", day);
		return 1;
	}
	if (ds->n == ds->cap) {
		ds->cap = ds->cap ? ds->cap * 2 : 64;
		ds->d = xrealloc(ds->d, ds->cap * sizeof *ds->d);
	}
	snprintf(ds->d[ds->n++], RECURRING_DAY_SIZE, "%s", day);
	return 0;
}

struct make_ctx {
	struct recurring r;
	struct item_input lines[RECURRING_MAX_LINES];
	char *descs[RECURRING_MAX_LINES];
	size_t nlines;
	int64_t res[CAPACITY_MAX_RESOURCES];
	size_t nres;
	const char *to; /* NULL: the horizon */
	struct recurring_made *out;
	/* one booking */
	const char *day;      /* the occurrence's day */
	const char *book_day; /* the day its visit is on */
	const char *state;
	const char *reason;
};

static int line_cb(const struct recurring_line *l, void *arg)
{
	struct make_ctx *m = arg;
	struct item_input *li = &m->lines[m->nlines];

	if (m->nlines >= RECURRING_MAX_LINES)
		return 0;
	m->descs[m->nlines] = xstrdup(l->description);
	li->kind = strcmp(l->kind, "SERVICE") ? (!strcmp(l->kind, "FEE")        ? "FEE"
	                                         : !strcmp(l->kind, "DISCOUNT") ? "DISCOUNT"
	                                         : !strcmp(l->kind, "TAX")      ? "TAX"
	                                                                        : "CREDIT")
	                                      : "SERVICE";
	li->description = m->descs[m->nlines];
	li->qty_milli = l->qty_milli;
	li->unit_price = l->unit_price;
	m->nlines++;
	return 0;
}

static int read_resources(struct db *db, struct make_ctx *m)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare(db,
	                     "SELECT resource_id FROM recurring_resource WHERE rule_id = ?"
	                     " ORDER BY resource_id",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, m->r.id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW && m->nres < CAPACITY_MAX_RESOURCES)
		m->res[m->nres++] = sqlite3_column_int64(st, 0);
	rc = step == SQLITE_DONE || step == SQLITE_ROW
	         ? 0
	         : db_fail(db, _("cannot read a recurring job"));
	sqlite3_finalize(st);
	return rc;
}

/* The job of the month of m->book_day (billing 'month'): found, or made. */
static int month_job(struct db *db, struct make_ctx *m, int64_t *job)
{
	struct job_input ji = {0};
	char month[8], title[240];
	sqlite3_stmt *st;
	int rc, step;

	snprintf(month, sizeof month, "%.7s", m->book_day);
	if ((rc = db_prepare(
	         db, "SELECT job_id FROM recurring_month WHERE rule_id = ? AND month = ?", &st)))
		return rc;
	sqlite3_bind_int64(st, 1, m->r.id);
	sqlite3_bind_text(st, 2, month, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	*job = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	rc = step == SQLITE_ROW || step == SQLITE_DONE
	         ? 0
	         : db_fail(db, _("cannot read a recurring job"));
	sqlite3_finalize(st);
	if (rc || *job)
		return rc;
	/* TRANSLATORS: a monthly job's title: the recurring job's title and
	 * the month (YYYY-MM) */
	snprintf(title, sizeof title, _("%1$.180s, %2$s"), m->r.title, month);
	ji.customer_id = m->r.customer_id;
	ji.title = title;
	ji.currency = m->r.currency;
	if ((rc = job_add(db, &ji, job)) ||
	    (rc = db_prepare(
	         db, "INSERT INTO recurring_month (rule_id, month, job_id) VALUES (?, ?, ?)", &st)))
		return rc;
	sqlite3_bind_int64(st, 1, m->r.id);
	sqlite3_bind_text(st, 2, month, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, *job);
	return db_run(db, st, _("cannot store a recurring job's month"));
}

static int occ_insert(struct db *db, int64_t rule, const char *day, const char *state, int64_t appt,
                      const char *reason)
{
	sqlite3_stmt *st;
	int64_t now = clock_now();
	int rc;

	if ((rc =
	         db_prepare(db,
	                    "INSERT INTO recurring_occurrence (rule_id, day, state, appointment_id,"
	                    " reason, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
	                    &st)))
		return rc;
	sqlite3_bind_int64(st, 1, rule);
	sqlite3_bind_text(st, 2, day, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, state, -1, SQLITE_STATIC);
	if (appt)
		sqlite3_bind_int64(st, 4, appt);
	if (reason)
		sqlite3_bind_text(st, 5, reason, 400 < strlen(reason) ? 400 : -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, now);
	sqlite3_bind_int64(st, 7, now);
	return db_run(db, st, _("cannot store a recurring job's visit"));
}

/* One visit on m->book_day for occurrence m->day, with its occurrence row:
 * a savepoint, so a refusal leaves nothing. */
static int book_one(struct db *db, void *arg)
{
	struct make_ctx *m = arg;
	struct booking_input in = {0};
	struct booking_result res;
	int64_t job = 0;
	int rc;

	char why[420];

	/* the shop's closed day: skipped or moved like a resource's day off,
	 * resources or not */
	if ((rc = capacity_closed(db, m->book_day, why, sizeof why)) < 0)
		return rc;
	if (rc == 1)
		return err_set(FD_ECONFLICT, _("the shop is closed on %1$s (%2$s)"), m->book_day,
		               *why ? why : _("no reason given"));
	if ((rc = day_at(m->book_day, m->r.start_minute, &in.start_at)))
		return rc;
	in.end_at = in.start_at + (int64_t)m->r.length_minutes * 60;
	in.location = m->r.location;
	in.note = m->r.note;
	in.title = m->r.title;
	in.customers = &m->r.customer_id;
	in.ncustomers = 1;
	in.resources = m->res;
	in.nresources = m->nres;
	in.currency = m->r.currency;
	in.unannounced = 1;
	if (!strcmp(m->r.billing, "month")) {
		if ((rc = month_job(db, m, &job)))
			return rc;
		in.job_id = job;
	} else {
		in.lines = m->lines;
		in.nlines = m->nlines;
	}
	if ((rc = booking_add(db, &in, &res)))
		return rc;
	return occ_insert(db, m->r.id, m->day, m->state, res.appt_id, m->reason);
}

/* A refusal that is the day's (a resource off or taken, a job closed),
 * not the database's: the occurrence is skipped or moved, not retried. */
static int refusal_of_day(int rc)
{
	return rc == FD_ECONFLICT || rc == FD_EINVAL || rc == FD_ENOTFOUND || rc == FD_EPERM;
}

static int occ_exists(struct db *db, int64_t rule, const char *day, int *yes)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare(db, "SELECT 1 FROM recurring_occurrence WHERE rule_id = ? AND day = ?",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, rule);
	sqlite3_bind_text(st, 2, day, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	*yes = step == SQLITE_ROW;
	rc = step == SQLITE_ROW || step == SQLITE_DONE
	         ? 0
	         : db_fail(db, _("cannot read a recurring job"));
	sqlite3_finalize(st);
	return rc;
}

/* Make the occurrence of day; next is the rule's next day ("" if none). */
static int make_day(struct db *db, struct make_ctx *m, const char *day, const char *next)
{
	char why[400], later[RECURRING_DAY_SIZE];
	int rc, k, yes;

	if ((rc = occ_exists(db, m->r.id, day, &yes)) || yes)
		return rc;
	m->day = m->book_day = day;
	m->state = "made";
	m->reason = NULL;
	if ((rc = db_write(db, book_one, m)) == 0) {
		m->out->made++;
		return 0;
	}
	if (!refusal_of_day(rc))
		return rc;
	snprintf(why, sizeof why, "%s", err_msg());
	for (k = 1; !strcmp(m->r.when_off, "move") && k <= MOVE_DAYS; k++) {
		day_add(day, k, later);
		if ((*next && strcmp(later, next) >= 0) ||
		    (*m->r.last_day && strcmp(later, m->r.last_day) > 0))
			break;
		m->book_day = later;
		m->state = "moved";
		m->reason = why;
		if ((rc = db_write(db, book_one, m)) == 0) {
			m->out->moved++;
			return 0;
		}
		if (!refusal_of_day(rc))
			return rc;
	}
	m->out->skipped++;
	err_clear();
	return occ_insert(db, m->r.id, day, "skipped", 0, why);
}

static int make_tx(struct db *db, void *arg)
{
	struct make_ctx *m = arg;
	struct days ds = {0};
	char from[RECURRING_DAY_SIZE], to[RECURRING_DAY_SIZE];
	sqlite3_stmt *st;
	size_t i;
	int rc;

	if ((rc = recurring_get(db, m->r.id, &m->r)))
		return rc;
	if (strcmp(m->r.status, "active"))
		return 0;
	if (m->to)
		snprintf(to, sizeof to, "%s", m->to);
	else
		horizon_day(to);
	if (*m->r.last_day && strcmp(to, m->r.last_day) > 0)
		snprintf(to, sizeof to, "%s", m->r.last_day);
	snprintf(m->out->to, sizeof m->out->to, "%s", *m->r.made_to ? m->r.made_to : "");
	if (*m->r.made_to && strcmp(m->r.made_to, to) >= 0)
		return 0;
	if (*m->r.made_to)
		day_add(m->r.made_to, 1, from);
	else
		snprintf(from, sizeof from, "%s", m->r.first_day);
	if ((rc = recurring_lines(db, m->r.id, line_cb, m)) || (rc = read_resources(db, m)))
		return rc;
	ds.to = to;
	rc = recurring_expand(m->r.rrule, m->r.first_day, m->r.last_day, from, NULL, days_cb, &ds);
	if (rc == 1)
		rc = 0;
	control_acting_enter();
	for (i = 0; !rc && i < ds.n; i++)
		rc = make_day(db, m, ds.d[i], i + 1 < ds.n ? ds.d[i + 1] : ds.next);
	control_acting_leave();
	free(ds.d);
	if (rc)
		return rc;
	if ((rc = db_prepare(db, "UPDATE recurring_rule SET made_to = ? WHERE id = ?", &st)))
		return rc;
	sqlite3_bind_text(st, 1, to, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, m->r.id);
	if ((rc = db_run(db, st, _("cannot store a recurring job"))) == 0)
		snprintf(m->out->to, sizeof m->out->to, "%s", to);
	return rc;
}

int recurring_make(struct db *db, int64_t id, const char *to, struct recurring_made *out)
{
	struct recurring_made dummy;
	struct make_ctx *m;
	size_t i;
	int rc;

	if (to && (rc = day_check(to, _("the last day to make"))))
		return rc;
	m = xcalloc(1, sizeof *m);
	m->r.id = id;
	m->to = to;
	m->out = out ? out : &dummy;
	memset(m->out, 0, sizeof *m->out);
	rc = db_write(db, make_tx, m);
	for (i = 0; i < m->nlines; i++)
		free(m->descs[i]);
	recurring_free(&m->r);
	free(m);
	if (rc)
		memset(out ? out : &dummy, 0, sizeof dummy);
	return rc;
}

int recurring_task(struct db *db, const char *key)
{
	char *end;
	long long id = strtoll(key, &end, 10);
	int rc;

	if (*end || id <= 0)
		return err_set(FD_EINVAL, _("a recurring task's key is a rule's id, not '%.20s'"),
		               key);
	rc = recurring_make(db, id, NULL, NULL);
	return rc == FD_ENOTFOUND ? 0 : rc;
}

static int queue_tx(struct db *db, void *arg)
{
	char to[RECURRING_DAY_SIZE];
	sqlite3_stmt *st;
	int rc;

	horizon_day(to);
	if ((rc = db_prepare(db,
	                     "INSERT INTO task (kind, key) SELECT '" RECURRING_TASK_KIND "', id"
	                     " FROM recurring_rule WHERE status = 'active' AND made_to < ?1"
	                     " AND (last_day IS NULL OR made_to < last_day) ON CONFLICT DO NOTHING",
	                     &st)))
		return rc;
	sqlite3_bind_text(st, 1, to, -1, SQLITE_TRANSIENT);
	if ((rc = db_run(db, st, _("cannot queue the recurring jobs"))) == 0)
		*(int64_t *)arg = sqlite3_changes(db_sqlite(db));
	return rc;
}

int recurring_queue_due(struct db *db, int64_t *n)
{
	int64_t k = 0;
	int rc = db_write(db, queue_tx, &k);

	if (n)
		*n = rc ? 0 : k;
	return rc;
}

/* ------------------------------------------------- billing by the month */

struct bill_ctx {
	struct db *db;
	int64_t rule;
	int64_t job; /* the month's job among the visit's links */
};

static int bill_link_cb(const struct link *l, void *arg)
{
	struct bill_ctx *b = arg;
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare(
	         b->db, "SELECT 1 FROM recurring_month WHERE rule_id = ? AND job_id = ?", &st)))
		return rc;
	sqlite3_bind_int64(st, 1, b->rule);
	sqlite3_bind_int64(st, 2, l->job_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		b->job = l->job_id;
	sqlite3_finalize(st);
	return b->job != 0;
}

struct bill_lines {
	struct db *db;
	int64_t job;
};

static int bill_line_cb(const struct recurring_line *l, void *arg)
{
	struct bill_lines *b = arg;
	struct item_input in = {0};
	int64_t id;

	in.job_id = b->job;
	in.kind = l->kind;
	in.description = l->description;
	in.qty_milli = l->qty_milli;
	in.unit_price = l->unit_price;
	return item_add(b->db, &in, &id);
}

int recurring_on_visit(struct db *db, const struct announcement *a)
{
	struct bill_ctx b = {db, 0, 0};
	struct bill_lines bl = {db, 0};
	struct recurring r;
	struct visit v;
	char day[RECURRING_DAY_SIZE];
	sqlite3_stmt *st;
	int rc, done, moved = 0;

	if (a->kind != ANNOUNCE_VISIT_CHANGED || a->when != 0)
		return 0;
	if ((rc = recurring_of_visit(db, a->id, &b.rule, day)) || !b.rule)
		return rc;
	if ((rc = visit_get(db, a->id, &v)))
		return rc;
	done = visit_state_of(v.status) == VISIT_DONE;
	visit_free(&v);
	if (!done)
		return 0;
	if ((rc = recurring_get(db, b.rule, &r)))
		return rc;
	done = !strcmp(r.billing, "month");
	recurring_free(&r);
	if (!done)
		return 0;
	if ((rc = db_prepare_cached(db,
	                            "UPDATE recurring_occurrence SET billed_at = ?, updated_at = ?"
	                            " WHERE rule_id = ? AND day = ? AND billed_at IS NULL",
	                            &st)))
		return rc;
	sqlite3_bind_int64(st, 1, clock_now());
	sqlite3_bind_int64(st, 2, clock_now());
	sqlite3_bind_int64(st, 3, b.rule);
	sqlite3_bind_text(st, 4, day, -1, SQLITE_TRANSIENT);
	if ((rc = db_run_moved(db, st, _("cannot store a recurring job's visit"), &moved)) ||
	    !moved)
		return rc; /* billed already */
	if ((rc = link_list(db, a->id, 0, bill_link_cb, &b)) < 0)
		return rc;
	if (!b.job)
		return 0; /* the desk took the visit off its month's job */
	bl.job = b.job;
	control_acting_enter();
	rc = recurring_lines(db, b.rule, bill_line_cb, &bl);
	control_acting_leave();
	return rc;
}

/* ------------------------------------------------------------ changes */

struct change_ctx {
	int64_t id;
	const char *from; /* NULL: today or the first day */
	const struct recurring_change *c;
	int stop;
	int64_t new_id, dropped;
	struct recurring r;
	char d[RECURRING_DAY_SIZE]; /* the day the change starts */
	char rrule[RECURRING_RULE_MAX + 1];
	char first[RECURRING_DAY_SIZE]; /* the new rule's first day */
};

static int gives_cb(const char *day, void *arg)
{
	return !strcmp(day, (const char *)arg);
}

/* 1 when the new rule gives day. */
static int new_gives(struct change_ctx *x, const char *day)
{
	return recurring_expand(x->rrule, x->first, NULL, day, day, gives_cb, (void *)day) == 1;
}

struct job_ids {
	int64_t ids[BOOKING_MAX_CUSTOMERS];
	size_t n;
};

static int job_ids_cb(const struct link *l, void *arg)
{
	struct job_ids *j = arg;

	if (j->n < BOOKING_MAX_CUSTOMERS)
		j->ids[j->n++] = l->job_id;
	return 0;
}

/* Cancel the visit of a dropped occurrence, and its job when it was the
 * visit's alone (billing 'visit': no other visit works on it) and is still
 * open. */
static int drop_visit(struct db *db, struct change_ctx *x, int64_t appt)
{
	const char *why =
	    x->stop ? _("the recurring job was stopped") : _("the recurring job was changed");
	struct job_ids jobs = {{0}, 0}, others;
	size_t i;
	int rc;

	if ((rc = visit_set_status(db, appt, visit_close_status(0), why)))
		return rc;
	if (strcmp(x->r.billing, "visit"))
		return 0;
	if ((rc = link_list(db, appt, 0, job_ids_cb, &jobs)) < 0)
		return rc;
	for (i = 0; i < jobs.n; i++) {
		struct job j;
		int open;

		others.n = 0;
		if ((rc = link_list(db, 0, jobs.ids[i], job_ids_cb, &others)) < 0 ||
		    (rc = job_get(db, jobs.ids[i], &j)))
			return rc;
		open = job_state_of(j.status) == JOB_OPEN;
		job_free(&j);
		if (open && others.n == 1 &&
		    (rc = job_set_status(db, jobs.ids[i], "cancelled", why)))
			return rc;
	}
	return 0;
}

struct occ_row {
	char day[RECURRING_DAY_SIZE];
	char state[8];
	int64_t appt;
};

/* What to do with one occurrence from the change's day on. */
static int change_occ(struct db *db, struct change_ctx *x, const struct occ_row *o)
{
	struct visit v;
	struct visit_input vi = {0};
	sqlite3_stmt *st;
	int live, by_hand, gives, rc;
	char vday[RECURRING_DAY_SIZE];

	if (!o->appt || strcmp(o->state, "dropped") == 0)
		return 0; /* a skipped day: the new rule tries it again */
	if ((rc = visit_get(db, o->appt, &v)))
		return rc;
	live = visit_state_of(v.status) == VISIT_SCHEDULED ||
	       visit_state_of(v.status) == VISIT_CONFIRMED;
	day_of(v.start_at, vday);
	by_hand = v.start_at != rule_start_of(&x->r, !strcmp(o->state, "moved") ? vday : o->day) ||
	          v.end_at - v.start_at != x->r.length_minutes * 60;
	gives = !x->stop && new_gives(x, o->day);
	if (gives) {
		/* the new rule's: no second visit on that day */
		if ((rc = db_prepare(db,
		                     "UPDATE recurring_occurrence SET rule_id = ?, updated_at = ?"
		                     " WHERE rule_id = ? AND day = ?",
		                     &st)))
			goto out;
		sqlite3_bind_int64(st, 1, x->new_id);
		sqlite3_bind_int64(st, 2, clock_now());
		sqlite3_bind_int64(st, 3, x->r.id);
		sqlite3_bind_text(st, 4, o->day, -1, SQLITE_TRANSIENT);
		if ((rc = db_run(db, st, _("cannot store a recurring job's visit"))) || !live ||
		    by_hand)
			goto out;
		vi.start_at = 0;
		if (x->c->start_minute >= 0 &&
		    (rc = day_at(!strcmp(o->state, "moved") ? vday : o->day, x->c->start_minute,
		                 &vi.start_at)))
			goto out;
		if (!vi.start_at)
			vi.start_at = v.start_at;
		vi.end_at =
		    vi.start_at + (int64_t)(x->c->length_minutes > 0 ? x->c->length_minutes
		                                                     : x->r.length_minutes) *
		                      60;
		vi.location = x->c->location;
		vi.note = x->c->note;
		if (vi.start_at == v.start_at && vi.end_at == v.end_at && !vi.location && !vi.note)
			goto out;
		if ((rc = visit_edit(db, o->appt, &vi)))
			err_set(rc, _("the visit of %1$s cannot follow the change: %2$s"), o->day,
			        err_msg());
		goto out;
	}
	if (!live)
		goto out; /* started, done, or closed by hand: left as it is */
	if ((rc = drop_visit(db, x, o->appt)))
		goto out;
	if ((rc = db_prepare(db,
	                     "UPDATE recurring_occurrence SET state = 'dropped', updated_at = ?"
	                     " WHERE rule_id = ? AND day = ?",
	                     &st)))
		goto out;
	sqlite3_bind_int64(st, 1, clock_now());
	sqlite3_bind_int64(st, 2, x->r.id);
	sqlite3_bind_text(st, 3, o->day, -1, SQLITE_TRANSIENT);
	if ((rc = db_run(db, st, _("cannot store a recurring job's visit"))) == 0)
		x->dropped++;
out:
	visit_free(&v);
	return rc;
}

/* Every occurrence of the old rule from x->d on. */
static int change_occs(struct db *db, struct change_ctx *x)
{
	struct occ_row *rows = NULL;
	size_t n = 0, cap = 0, i;
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare(
	         db,
	         "SELECT day, state, coalesce(appointment_id, 0) FROM recurring_occurrence"
	         " WHERE rule_id = ? AND day >= ? ORDER BY day",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, x->r.id);
	sqlite3_bind_text(st, 2, x->d, -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			rows = xrealloc(rows, cap * sizeof *rows);
		}
		dbrow_copy(st, 0, rows[n].day, sizeof rows[n].day);
		dbrow_copy(st, 1, rows[n].state, sizeof rows[n].state);
		rows[n].appt = sqlite3_column_int64(st, 2);
		n++;
	}
	rc = step == SQLITE_DONE ? 0 : db_fail(db, _("cannot read a recurring job's visits"));
	sqlite3_finalize(st);
	control_acting_enter();
	for (i = 0; !rc && i < n; i++)
		rc = change_occ(db, x, &rows[i]);
	control_acting_leave();
	free(rows);
	return rc;
}

/* The new rule's text: the change's, or the old one with what is left of
 * its COUNT; and its first day, in the old rule's phase. */
static int new_rule(struct change_ctx *x)
{
	struct icalrecurrencetype r;
	char before[RECURRING_DAY_SIZE];
	int64_t used = 0;
	int rc;

	if (x->c->rrule) {
		if ((rc = recurring_rule_check(x->c->rrule, x->rrule, sizeof x->rrule)))
			return rc;
	} else {
		snprintf(x->rrule, sizeof x->rrule, "%s", x->r.rrule);
		if ((rc = rule_read(x->rrule, &r)))
			return rc;
		if (r.count > 0) {
			day_add(x->d, -1, before);
			if ((rc = recurring_expand(x->r.rrule, x->r.first_day, x->r.last_day, NULL,
			                           before, count_cb, &used)))
				return rc;
			if (used >= r.count)
				return err_set(FD_ECONFLICT,
				               _("the rule's %1$d visits all fall before %2$s: "
				                 "nothing follows to change"),
				               r.count, x->d);
			r.count -= (int)used;
			if ((rc = rule_text(&r, x->rrule, sizeof x->rrule)))
				return rc;
		}
	}
	if ((rc = first_day_from(x->rrule, x->r.first_day, x->d, 1, x->first)))
		return rc;
	if (!*x->first || (*x->r.last_day && strcmp(x->first, x->r.last_day) > 0))
		return err_set(FD_ECONFLICT, _("from %1$s on, the rule %2$s gives no day"), x->d,
		               x->rrule);
	return 0;
}

static int set_last_day(struct db *db, struct change_ctx *x, int stop)
{
	char last[RECURRING_DAY_SIZE];
	sqlite3_stmt *st;
	int rc;

	day_add(x->d, -1, last);
	if (*x->r.last_day && strcmp(x->r.last_day, last) < 0)
		snprintf(last, sizeof last, "%s", x->r.last_day);
	if ((rc = db_prepare(db,
	                     "UPDATE recurring_rule SET last_day = ?, status = ?, updated_at = ?"
	                     " WHERE id = ?",
	                     &st)))
		return rc;
	sqlite3_bind_text(st, 1, last, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, stop ? "stopped" : "active", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, clock_now());
	sqlite3_bind_int64(st, 4, x->r.id);
	return db_run(db, st, _("cannot store the recurring job"));
}

static int insert_new(struct db *db, struct change_ctx *x)
{
	const struct recurring_change *c = x->c;
	sqlite3_stmt *st;
	int64_t now = clock_now();
	int rc;

	if ((rc = db_prepare(
	         db,
	         "INSERT INTO recurring_rule (customer_id, title, rrule, first_day, last_day,"
	         " start_minute, length_minutes, location, note, currency, billing, when_off, "
	         "status,"
	         " split_from, created_at, updated_at) SELECT customer_id, title, ?2, ?3, last_day,"
	         " ?4, ?5, CASE WHEN ?6 IS NULL THEN location WHEN ?6 = '' THEN NULL ELSE ?6 END,"
	         " CASE WHEN ?7 IS NULL THEN note WHEN ?7 = '' THEN NULL ELSE ?7 END, currency,"
	         " billing, ?8, 'active', id, ?9, ?9 FROM recurring_rule WHERE id = ?1 RETURNING "
	         "id",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, x->r.id);
	sqlite3_bind_text(st, 2, x->rrule, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, x->first, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 4, c->start_minute >= 0 ? c->start_minute : x->r.start_minute);
	sqlite3_bind_int(st, 5, c->length_minutes > 0 ? c->length_minutes : x->r.length_minutes);
	if (c->location)
		sqlite3_bind_text(st, 6, c->location, -1, SQLITE_TRANSIENT);
	if (c->note)
		sqlite3_bind_text(st, 7, c->note, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 8, c->when_off ? c->when_off : x->r.when_off, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 9, now);
	if (sqlite3_step(st) == SQLITE_ROW)
		x->new_id = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, _("cannot store the recurring job"));
	sqlite3_finalize(st);
	if (rc ||
	    (rc = db_prepare(db,
	                     "INSERT INTO recurring_line (rule_id, pos, service_id, kind,"
	                     " description, qty_milli, unit_price) SELECT ?1, pos, service_id,"
	                     " kind, description, qty_milli, unit_price FROM recurring_line"
	                     " WHERE rule_id = ?2",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, x->new_id);
	sqlite3_bind_int64(st, 2, x->r.id);
	if ((rc = db_run(db, st, _("cannot store a recurring job's line items"))) ||
	    (rc = db_prepare(db,
	                     "INSERT INTO recurring_resource (rule_id, resource_id) SELECT ?1,"
	                     " resource_id FROM recurring_resource WHERE rule_id = ?2",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, x->new_id);
	sqlite3_bind_int64(st, 2, x->r.id);
	return db_run(db, st, _("cannot store a recurring job's resources"));
}

static int change_tx(struct db *db, void *arg)
{
	struct change_ctx *x = arg;
	char today[RECURRING_DAY_SIZE];
	int rc;

	if ((rc = control_require(db, PERM_BOOKING, 0,
	                          x->stop ? "stop a recurring job" : "change a recurring job")) ||
	    (rc = recurring_get(db, x->id, &x->r)))
		return rc;
	if (strcmp(x->r.status, "active"))
		return err_set(FD_ECONFLICT, _("recurring job %lld is stopped"), (long long)x->id);
	day_of(clock_now(), today);
	if (x->from)
		snprintf(x->d, sizeof x->d, "%s", x->from);
	else
		snprintf(x->d, sizeof x->d, "%s",
		         strcmp(today, x->r.first_day) > 0 ? today : x->r.first_day);
	if (x->stop) {
		if (*x->r.last_day && strcmp(x->r.last_day, x->d) < 0)
			return err_set(FD_ECONFLICT, _("recurring job %1$lld already ends on %2$s"),
			               (long long)x->id, x->r.last_day);
		if ((rc = set_last_day(db, x, strcmp(x->d, today) <= 0)))
			return rc;
		return change_occs(db, x);
	}
	if ((rc = new_rule(x)) || (rc = insert_new(db, x)) || (rc = set_last_day(db, x, 0)))
		return rc;
	return change_occs(db, x);
}

static int change_run(struct change_ctx *x, struct db *db, int64_t *dropped)
{
	int rc = db_write(db, change_tx, x);

	recurring_free(&x->r);
	if (dropped)
		*dropped = rc ? 0 : x->dropped;
	return rc;
}

int recurring_change(struct db *db, int64_t id, const char *from, const struct recurring_change *c,
                     int64_t *new_id, int64_t *dropped)
{
	struct change_ctx x;
	int rc;

	memset(&x, 0, sizeof x);
	x.id = id;
	x.from = from;
	x.c = c;
	if (!c->rrule && c->start_minute < 0 && c->length_minutes <= 0 && !c->location &&
	    !c->note && !c->when_off)
		return err_set(FD_EINVAL, "%s",
		               _("nothing to change: give a new rule, time, length, location, note "
		                 "or what to do on a day off"));
	if ((from && (rc = day_check(from, _("the day the change starts")))) ||
	    (c->start_minute > 1439 &&
	     (rc = err_set(FD_EINVAL, "%s", _("the time of day is 00:00 to 23:59")))) ||
	    (c->length_minutes > VISIT_MAX_SECONDS / 60 &&
	     (rc = err_set(FD_EINVAL, "%s", _("a visit lasts 1 minute to 7 days")))) ||
	    (rc = word_check(c->when_off, "skip", "move", _("what to do on a day off"))) ||
	    (c->location && (rc = text_check(c->location, _("location"), 400, 1))) ||
	    (c->note && (rc = text_check(c->note, _("note"), 2000, 1))))
		return rc;
	rc = change_run(&x, db, dropped);
	if (new_id)
		*new_id = rc ? 0 : x.new_id;
	if (!rc)
		make_now(db, x.new_id);
	return rc;
}

int recurring_stop(struct db *db, int64_t id, const char *from, int64_t *dropped)
{
	struct recurring_change none = {NULL, -1, 0, NULL, NULL, NULL};
	struct change_ctx x;
	int rc;

	if (from && (rc = day_check(from, _("the day the stop starts"))))
		return rc;
	memset(&x, 0, sizeof x);
	x.id = id;
	x.from = from;
	x.c = &none;
	x.stop = 1;
	return change_run(&x, db, dropped);
}

int recurring_change_one(struct db *db, int64_t id, const char *day, int start_minute,
                         int length_minutes)
{
	struct visit_input vi = {0};
	struct visit v;
	sqlite3_stmt *st;
	char vday[RECURRING_DAY_SIZE];
	int64_t appt = 0;
	int rc, step;

	if ((rc = day_check(day, _("the visit's day"))))
		return rc;
	if (start_minute < 0 && length_minutes <= 0)
		return err_set(FD_EINVAL, "%s", _("nothing to change: give a new time or length"));
	if (start_minute > 1439)
		return err_set(FD_EINVAL, "%s", _("the time of day is 00:00 to 23:59"));
	if ((rc = db_prepare(db,
	                     "SELECT coalesce(appointment_id, 0) FROM recurring_occurrence"
	                     " WHERE rule_id = ? AND day = ? AND state IN ('made', 'moved')",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, day, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		appt = sqlite3_column_int64(st, 0);
	else if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read a recurring job's visits"));
	sqlite3_finalize(st);
	if (rc)
		return rc;
	if (!appt)
		return err_set(FD_ENOTFOUND, _("recurring job %1$lld has no visit on %2$s"),
		               (long long)id, day);
	if ((rc = visit_get(db, appt, &v)))
		return rc;
	day_of(v.start_at, vday);
	vi.start_at = v.start_at;
	if (start_minute >= 0)
		rc = day_at(vday, start_minute, &vi.start_at);
	vi.end_at = vi.start_at +
	            (length_minutes > 0 ? (int64_t)length_minutes * 60 : v.end_at - v.start_at);
	visit_free(&v);
	return rc ? rc : visit_edit(db, appt, &vi);
}

/* ------------------------------------------------------------ retention */

/* A rule that has days left to make keeps its customer: its future visits
 * are not made yet, so the visits' own blocker cannot see them. */
int recurring_retention_blocker(struct db *db, int64_t customer_id, char *why, size_t n)
{
	char id[32];
	int rc;

	rc = retention_first(
	    db,
	    "SELECT id FROM recurring_rule WHERE customer_id = ?1 AND status = 'active'"
	    " AND (last_day IS NULL OR made_to < last_day) ORDER BY id LIMIT 1",
	    customer_id, id, sizeof id);
	if (rc == 1)
		snprintf(why, n, _("recurring job %s still makes visits (stop it first)"), id);
	return rc;
}

/* The rules' personal text (title, place, note), and their history's. */
int recurring_retention_purge(struct db *db, struct retention_purge_ctx *c)
{
	static const struct retention_stmt v[] = {
	    {"UPDATE recurring_rule SET title = '" RETENTION_REMOVED
	     "', location = NULL, note = NULL"
	     " WHERE customer_id = ?1 AND (title IS NOT '" RETENTION_REMOVED "'"
	     " OR location IS NOT NULL OR note IS NOT NULL)",
	     N_("cannot clear the recurring jobs")},
	    {"UPDATE recurring_rule_his SET title = '" RETENTION_REMOVED "', location = NULL,"
	     " note = NULL WHERE id IN (SELECT id FROM recurring_rule WHERE customer_id = ?1)"
	     " AND (title IS NOT '" RETENTION_REMOVED
	     "' OR location IS NOT NULL OR note IS NOT NULL)",
	     N_("cannot clear the recurring jobs' history")},
	};

	return retention_exec_all(db, v, sizeof v / sizeof v[0], c->customer_id);
}

/* ------------------------------------------------------ for the screen */

int recurring_rule_named(enum recurring_pattern p, const char *day, char *out, size_t n)
{
	static const char *const wd[7] = {"SU", "MO", "TU", "WE", "TH", "FR", "SA"};
	char text[80];
	struct tm tm = {0};
	time_t t;
	int y, m, d, nth, rc;

	if ((rc = day_check(day, _("the first day"))))
		return rc;
	day_split(day, &y, &m, &d);
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	tm.tm_hour = 12;
	t = timegm(&tm);
	gmtime_r(&t, &tm);
	nth = (d - 1) / 7 + 1;
	switch (p) {
	case RECURRING_WEEKLY:
		snprintf(text, sizeof text, "FREQ=WEEKLY;BYDAY=%s", wd[tm.tm_wday]);
		break;
	case RECURRING_FORTNIGHTLY:
		snprintf(text, sizeof text, "FREQ=WEEKLY;INTERVAL=2;BYDAY=%s", wd[tm.tm_wday]);
		break;
	case RECURRING_MONTHLY:
		snprintf(text, sizeof text, "FREQ=MONTHLY;BYMONTHDAY=%d", d);
		break;
	case RECURRING_MONTHLY_NTH:
		snprintf(text, sizeof text, "FREQ=MONTHLY;BYDAY=%d%s", nth > 4 ? -1 : nth,
		         wd[tm.tm_wday]);
		break;
	case RECURRING_PATTERNS:
	default:
		return err_set(FD_EINVAL, "%s", _("no such way of repeating"));
	}
	return recurring_rule_check(text, out, n);
}

int recurring_change_visit(struct db *db, int64_t appt, int all, const struct visit_input *in,
                           int64_t *new_id, int64_t *dropped)
{
	struct recurring_change c = {NULL, -1, 0, in->location, in->note, NULL};
	char day[RECURRING_DAY_SIZE], old_day[RECURRING_DAY_SIZE], new_day[RECURRING_DAY_SIZE];
	char hm[8];
	struct visit v;
	int64_t rule, start;
	int rc;

	if ((rc = recurring_of_visit(db, appt, &rule, day)))
		return rc;
	if (!rule)
		return err_set(FD_ENOTFOUND, _("visit %lld was not made by a recurring job"),
		               (long long)appt);
	if ((rc = visit_get(db, appt, &v)))
		return rc;
	start = in->start_at ? in->start_at : v.start_at;
	day_of(v.start_at, old_day);
	day_of(start, new_day);
	if (strcmp(old_day, new_day)) {
		visit_free(&v);
		return err_set(FD_EINVAL, "%s",
		               _("a new day changes this visit only: the following visits move to "
		                 "other days with a new rule (frontdesk recurring edit --rule)"));
	}
	if (in->start_at) {
		clock_format_local(in->start_at, "%H:%M", hm, sizeof hm);
		c.start_minute = atoi(hm) * 60 + atoi(hm + 3);
	}
	if (in->end_at)
		c.length_minutes = (int)((in->end_at - start) / 60);
	visit_free(&v);
	return recurring_change(db, rule, all ? NULL : day, &c, new_id, dropped);
}

/* ---------------------------------------------------------------- check */

int recurring_check(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
                    void *arg)
{
	char want[RECURRING_DAY_SIZE], grace[RECURRING_DAY_SIZE], detail[400];
	sqlite3_stmt *st;
	int rc, step, found = 0;

	horizon_day(want);
	day_add(want, -1, grace);
	if ((rc = db_prepare(db,
	                     "SELECT id, made_to, coalesce(last_day, '') FROM recurring_rule"
	                     " WHERE status = 'active' AND made_to < ?1"
	                     " AND (last_day IS NULL OR made_to < last_day) ORDER BY id",
	                     &st)))
		return rc;
	sqlite3_bind_text(st, 1, grace, -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *made = (const char *)sqlite3_column_text(st, 1);
		const char *last = (const char *)sqlite3_column_text(st, 2);
		long long id = sqlite3_column_int64(st, 0);

		/* a rule that ends before the horizon is behind only short of its end */
		if (*last && strcmp(last, grace) < 0 && strcmp(made, last) >= 0)
			continue;
		snprintf(
		    detail, sizeof detail,
		    _("recurring job %1$lld has its visits made up to %2$s, short of %3$s: its "
		      "task fails or no runner runs (frontdesk tasks list --kind recurring; "
		      "frontdesk recurring make %1$lld makes them now)"),
		    id, *made ? made : "-", want);
		report("recurring-behind", detail, arg);
		found++;
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the recurring jobs"));
	sqlite3_finalize(st);
	return rc ? rc : found;
}
