/*
 * capacity.c - resources, their working hours and exceptions, the
 * reservations of visits, and availability (see capacity.h).
 *
 * Invariants: a reservation is written only inside a write transaction
 * (BEGIN IMMEDIATE) that first checked, for every resource asked for, that
 * it is active, working for the whole interval and held by no other live
 * visit; so the check and the write see the same database and no other
 * writer comes between them. The schema's triggers refuse an overlap
 * anyway (0016-capacity.sql). Working hours are minutes of the shop's
 * local day: a span is turned into UTC for one date at a time (the date's
 * wall clock, so DST days get their real length).
 *
 * Permissions: resources and their hours ask catalogue; days off,
 * reservations and reassignments ask booking; capacity_follow runs inside
 * a visit's change, which asked.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "announce.h"
#include "capacity.h"
#include "clock.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "settings.h"
#include "strbuf.h"
#include "text.h"
#include "visit.h"
#include "xalloc.h"

#define NOTE_MAX 400
#define LIVE     " NOT IN ('cancelled', 'no_show')"

static const char *const kinds[] = {"technician", "van", "bay", NULL};

static int is_kind(const char *k)
{
	int i;

	for (i = 0; kinds[i]; i++)
		if (!strcmp(kinds[i], k))
			return 1;
	return 0;
}

/* ---------------------------------------------------------------- local days */

/* The local date ("YYYY-MM-DD") and weekday (0 Sunday) of local midnight day. */
static void day_info(int64_t day, char date[16], int *wday)
{
	time_t tt = (time_t)day;
	struct tm tm;

	localtime_r(&tt, &tm);
	strftime(date, 16, "%Y-%m-%d", &tm);
	*wday = tm.tm_wday;
}

/* UTC of minute m (0..1440) of the local day that starts at day. */
static int64_t day_minute(int64_t day, const char *date, int m)
{
	char buf[32];
	int64_t t;

	if (m <= 0)
		return day;
	if (m >= 1440)
		return clock_add_days(day, 1);
	snprintf(buf, sizeof buf, "%s %02d:%02d", date, m / 60, m % 60);
	if (clock_parse_local(buf, &t))
		return day + (int64_t)m * 60;
	return t;
}

static void fmt_min(int m, char *buf, size_t n)
{
	snprintf(buf, n, "%02d:%02d", m / 60, m % 60);
}

/* "08:00-12:00, 13:00-17:00" */
static void spans_text(const struct cap_span *s, size_t n, struct strbuf *out)
{
	char a[16], b[16];
	size_t i;

	for (i = 0; i < n; i++) {
		fmt_min(s[i].start_min, a, sizeof a);
		fmt_min(s[i].end_min, b, sizeof b);
		sb_printf(out, "%s%s-%s", i ? ", " : "", a, b);
	}
}

/* ---------------------------------------------------------------- parsing */

/* "HH:MM" (00:00..24:00) at *p into minutes; advances *p. */
static int parse_hhmm(const char **p, int *out)
{
	const char *s = *p;
	int h, m;

	while (*s == ' ')
		s++;
	if (s[0] < '0' || s[0] > '9')
		return -1;
	h = s[0] - '0';
	s++;
	if (*s >= '0' && *s <= '9')
		h = h * 10 + (*s++ - '0');
	if (*s != ':' || s[1] < '0' || s[1] > '5' || s[2] < '0' || s[2] > '9')
		return -1;
	m = (s[1] - '0') * 10 + (s[2] - '0');
	s += 3;
	if (h > 24 || (h == 24 && m))
		return -1;
	while (*s == ' ')
		s++;
	*out = h * 60 + m;
	*p = s;
	return 0;
}

int capacity_parse_spans(const char *text, struct cap_span spans[CAPACITY_MAX_SPANS], size_t *n)
{
	const char *p = text ? text : "";
	struct cap_span s;

	*n = 0;
	while (*p == ' ')
		p++;
	if (!strcasecmp(p, "off") || !strcasecmp(p, "closed"))
		return 0;
	for (;;) {
		if (parse_hhmm(&p, &s.start_min) || *p++ != '-' || parse_hhmm(&p, &s.end_min))
			return err_set(FD_EINVAL,
			               _("'%.60s' is not working hours: write spans such as "
			                 "08:00-12:00,13:00-17:00, or off"),
			               text ? text : "");
		if (s.end_min <= s.start_min)
			return err_set(FD_EINVAL, _("in '%.60s' a span ends before it starts"),
			               text);
		if (*n && s.start_min < spans[*n - 1].end_min)
			return err_set(FD_EINVAL,
			               _("in '%.60s' the spans overlap or are not in order"), text);
		if (*n >= CAPACITY_MAX_SPANS)
			return err_set(FD_EINVAL, _("at most %d working spans a day"),
			               CAPACITY_MAX_SPANS);
		spans[(*n)++] = s;
		if (!*p)
			return 0;
		if (*p != ',' && *p != ';')
			return err_set(FD_EINVAL,
			               _("'%.60s' is not working hours: write spans such as "
			                 "08:00-12:00,13:00-17:00, or off"),
			               text);
		p++;
	}
}

static int weekday_of(const char *s, size_t len)
{
	static const char *const names[] = {"sunday",   "monday", "tuesday", "wednesday",
	                                    "thursday", "friday", "saturday"};
	int i;

	if (len == 1 && *s >= '0' && *s <= '6')
		return *s - '0';
	if (len < 3)
		return -1;
	for (i = 0; i < 7; i++)
		if (len <= strlen(names[i]) && !strncasecmp(s, names[i], len))
			return i;
	return -1;
}

int capacity_parse_weekdays(const char *text, unsigned *mask)
{
	const char *p = text ? text : "", *q, *dash;
	int a, b;

	*mask = 0;
	if (!strcasecmp(p, "all") || !strcasecmp(p, "daily")) {
		*mask = 0x7f;
		return 0;
	}
	if (!strcasecmp(p, "weekdays")) {
		*mask = 0x3e;
		return 0;
	}
	while (*p) {
		q = p + strcspn(p, ",");
		dash = memchr(p, '-', (size_t)(q - p));
		a = weekday_of(p, (size_t)((dash ? dash : q) - p));
		b = dash ? weekday_of(dash + 1, (size_t)(q - dash - 1)) : a;
		if (a < 0 || b < 0)
			return err_set(FD_EINVAL,
			               _("'%.40s' is not a weekday: write mon, mon-fri, sat,sun, "
			                 "weekdays or all"),
			               text);
		for (;;) {
			*mask |= 1u << a;
			if (a == b)
				break;
			a = (a + 1) % 7;
		}
		p = *q ? q + 1 : q;
	}
	if (!*mask)
		return err_set(FD_EINVAL, "%s",
		               _("name the weekdays: mon, mon-fri, weekdays or all"));
	return 0;
}

/* ---------------------------------------------------------------- resources */

#define RES_SELECT "SELECT id, name, kind, active, note, created_at, updated_at FROM resource"

static void res_fill(sqlite3_stmt *st, struct resource *r)
{
	memset(r, 0, sizeof *r);
	r->id = sqlite3_column_int64(st, 0);
	r->name = dbrow_dup(st, 1);
	dbrow_copy(st, 2, r->kind, sizeof r->kind);
	r->active = sqlite3_column_int(st, 3);
	r->note = dbrow_dup(st, 4);
	r->created_at = sqlite3_column_int64(st, 5);
	r->updated_at = sqlite3_column_int64(st, 6);
}

void capacity_resource_free(struct resource *r)
{
	free(r->name);
	free(r->note);
	memset(r, 0, sizeof *r);
}

int capacity_resource_get(struct db *db, int64_t id, struct resource *out)
{
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	if ((rc = db_prepare(db, RES_SELECT " WHERE id = ?1", &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		res_fill(st, out);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, _("there is no resource %lld"), (long long)id);
	else
		rc = db_fail(db, _("cannot read the resource"));
	sqlite3_finalize(st);
	return rc;
}

int capacity_resource_list(struct db *db, int all, int (*cb)(const struct resource *r, void *arg),
                           void *arg)
{
	sqlite3_stmt *st;
	struct resource r;
	int rc, step;

	rc = db_prepare(db,
	                RES_SELECT " WHERE ?1 OR active = 1 ORDER BY CASE kind WHEN 'technician'"
	                           " THEN 0 WHEN 'van' THEN 1 ELSE 2 END, name, id",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int(st, 1, all);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		res_fill(st, &r);
		rc = cb(&r, arg);
		capacity_resource_free(&r);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list the resources"));
	sqlite3_finalize(st);
	return rc;
}

static int check_res_input(const struct resource_input *in, int adding)
{
	int rc;

	if ((adding || in->name) &&
	    (rc = text_check(in->name, _("the resource name"), CAPACITY_NAME_MAX, 0)))
		return rc;
	if (adding && !in->kind)
		return err_set(FD_EINVAL, "%s",
		               _("the resource needs a kind: technician, van or bay"));
	if (in->kind && !is_kind(in->kind))
		return err_set(FD_EINVAL,
		               _("'%.20s' is not a kind of resource: use technician, van or bay"),
		               in->kind);
	if (in->note && (rc = text_check(in->note, _("the note"), NOTE_MAX, 1)))
		return rc;
	return 0;
}

struct res_ctx {
	int64_t id;
	const struct resource_input *in;
};

/* FD_ECONFLICT when another resource has name (ignoring case). */
static int name_free(struct db *db, const char *name, int64_t self)
{
	sqlite3_stmt *st;
	int rc, step;

	if (!name)
		return 0;
	if ((rc = db_prepare(db, "SELECT id FROM resource WHERE name = ?1 AND id <> ?2", &st)))
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, self);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		rc = err_set(FD_ECONFLICT,
		             _("there is a resource named %s already (number %lld): choose "
		               "another name"),
		             name, (long long)sqlite3_column_int64(st, 0));
	else if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the resources"));
	sqlite3_finalize(st);
	return rc;
}

static int res_add_tx(struct db *db, void *arg)
{
	struct res_ctx *c = arg;
	sqlite3_stmt *st;
	int rc;

	if ((rc = control_require(db, PERM_CATALOGUE, 0, "add a resource")))
		return rc;
	if ((rc = name_free(db, c->in->name, 0)))
		return rc;
	rc = db_prepare(db,
	                "INSERT INTO resource (name, kind, active, note, created_at, updated_at)"
	                " VALUES (?1, ?2, 1, nullif(?3, ''), ?4, ?4)",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, c->in->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, c->in->kind, -1, SQLITE_TRANSIENT);
	if (c->in->note)
		sqlite3_bind_text(st, 3, c->in->note, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, clock_now());
	if ((rc = db_run(db, st, _("cannot add the resource"))))
		return rc;
	c->id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

int capacity_resource_add(struct db *db, const struct resource_input *in, int64_t *id_out)
{
	struct res_ctx c = {0, in};
	int rc;

	if ((rc = check_res_input(in, 1)) || (rc = db_write(db, res_add_tx, &c)))
		return rc;
	*id_out = c.id;
	return 0;
}

static int res_change_tx(struct db *db, void *arg)
{
	struct res_ctx *c = arg;
	struct resource old;
	sqlite3_stmt *st;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "change resource %lld", (long long)c->id);
	if ((rc = control_require(db, PERM_CATALOGUE, 0, subject)))
		return rc;
	if ((rc = capacity_resource_get(db, c->id, &old)))
		return rc;
	capacity_resource_free(&old);
	if ((rc = name_free(db, c->in->name, c->id)))
		return rc;
	rc = db_prepare(db,
	                "UPDATE resource SET name = coalesce(?1, name), kind = coalesce(?2, kind),"
	                " note = CASE WHEN ?3 IS NULL THEN note ELSE nullif(?3, '') END,"
	                " active = CASE WHEN ?4 < 0 THEN active ELSE ?4 END, updated_at = ?5"
	                " WHERE id = ?6",
	                &st);
	if (rc)
		return rc;
	if (c->in->name)
		sqlite3_bind_text(st, 1, c->in->name, -1, SQLITE_TRANSIENT);
	if (c->in->kind)
		sqlite3_bind_text(st, 2, c->in->kind, -1, SQLITE_TRANSIENT);
	if (c->in->note)
		sqlite3_bind_text(st, 3, c->in->note, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 4, c->in->active < 0 ? -1 : !!c->in->active);
	sqlite3_bind_int64(st, 5, clock_now());
	sqlite3_bind_int64(st, 6, c->id);
	return db_run(db, st, _("cannot change the resource"));
}

int capacity_resource_change(struct db *db, int64_t id, const struct resource_input *in)
{
	struct res_ctx c = {id, in};
	int rc;

	if ((rc = check_res_input(in, 0)))
		return rc;
	if (!in->name && !in->kind && !in->note && in->active < 0)
		return err_set(FD_EINVAL, "%s", _("nothing to change: give at least one field"));
	return db_write(db, res_change_tx, &c);
}

int capacity_resource_find(struct db *db, const char *text, int64_t *id)
{
	sqlite3_stmt *st;
	char *end;
	long long v;
	int rc, step;

	if (!text || !*text)
		return err_set(FD_EINVAL, "%s", _("name a resource (its name or number)"));
	errno = 0;
	v = strtoll(text, &end, 10);
	if (!*end && v > 0 && !errno) {
		struct resource r;

		if ((rc = capacity_resource_get(db, v, &r)))
			return rc;
		capacity_resource_free(&r);
		*id = v;
		return 0;
	}
	if ((rc = db_prepare(db, "SELECT id FROM resource WHERE name = ?1", &st)))
		return rc;
	sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	else if (step == SQLITE_DONE)
		rc = err_set(
		    FD_ENOTFOUND,
		    _("there is no resource named '%.60s' (see 'frontdesk resource list')"), text);
	else
		rc = db_fail(db, _("cannot read the resources"));
	sqlite3_finalize(st);
	return rc;
}

static int add_named(struct db *db, const char *part, int64_t *ids, size_t *n)
{
	int64_t id;
	size_t k;
	int rc;

	if (*n >= CAPACITY_MAX_RESOURCES)
		return err_set(FD_EINVAL, _("one visit holds at most %d resources"),
		               CAPACITY_MAX_RESOURCES);
	if ((rc = capacity_resource_find(db, part, &id)))
		return rc;
	for (k = 0; k < *n; k++)
		if (ids[k] == id)
			return err_set(FD_EINVAL, _("resource '%.60s' is named twice"), part);
	ids[(*n)++] = id;
	return 0;
}

int capacity_resource_parse(struct db *db, const char *text, int64_t ids[CAPACITY_MAX_RESOURCES],
                            size_t *n)
{
	char part[CAPACITY_NAME_MAX + 1];
	const char *p, *q;
	size_t len;
	int rc;

	*n = 0;
	if (!text)
		return 0;
	while (*text == ' ')
		text++;
	if (!*text)
		return 0;
	/* the whole text first: a name may hold a comma */
	rc = add_named(db, text, ids, n);
	if (rc != FD_ENOTFOUND || !strpbrk(text, ",;"))
		return rc;
	*n = 0;
	for (p = text; *p;) {
		q = p + strcspn(p, ",;");
		while (p < q && *p == ' ')
			p++;
		len = (size_t)(q - p);
		while (len && p[len - 1] == ' ')
			len--;
		if (len >= sizeof part)
			return err_set(FD_EINVAL, _("'%.40s...' is too long for a name"), p);
		if (len) {
			memcpy(part, p, len);
			part[len] = '\0';
			if ((rc = add_named(db, part, ids, n)))
				return rc;
		}
		p = *q ? q + 1 : q;
	}
	return 0;
}

/* ---------------------------------------------------------------- hours */

struct hours_ctx {
	int64_t id;
	unsigned mask;
	const struct cap_span *spans;
	size_t n;
};

static int hours_tx(struct db *db, void *arg)
{
	struct hours_ctx *h = arg;
	struct resource r;
	sqlite3_stmt *st;
	char subject[64];
	int rc, wd;
	size_t i;

	snprintf(subject, sizeof subject, "set the hours of resource %lld", (long long)h->id);
	if ((rc = control_require(db, PERM_CATALOGUE, 0, subject)))
		return rc;
	if ((rc = capacity_resource_get(db, h->id, &r)))
		return rc;
	capacity_resource_free(&r);
	for (wd = 0; wd < 7; wd++) {
		if (!(h->mask & (1u << wd)))
			continue;
		if ((rc = db_prepare(
		         db, "DELETE FROM resource_hours WHERE resource_id = ?1 AND weekday = ?2",
		         &st)))
			return rc;
		sqlite3_bind_int64(st, 1, h->id);
		sqlite3_bind_int(st, 2, wd);
		if ((rc = db_run(db, st, _("cannot change the working hours"))))
			return rc;
		for (i = 0; i < h->n; i++) {
			if ((rc = db_prepare(
			         db,
			         "INSERT INTO resource_hours (resource_id, weekday, start_min,"
			         " end_min, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
			         &st)))
				return rc;
			sqlite3_bind_int64(st, 1, h->id);
			sqlite3_bind_int(st, 2, wd);
			sqlite3_bind_int(st, 3, h->spans[i].start_min);
			sqlite3_bind_int(st, 4, h->spans[i].end_min);
			sqlite3_bind_int64(st, 5, clock_now());
			if ((rc = db_run(db, st, _("cannot change the working hours"))))
				return rc;
		}
	}
	return 0;
}

int capacity_hours_set(struct db *db, int64_t id, unsigned mask, const struct cap_span *spans,
                       size_t n)
{
	struct hours_ctx h = {id, mask & 0x7f, spans, n};
	size_t i;

	if (!h.mask)
		return err_set(FD_EINVAL, "%s",
		               _("name the weekdays: mon, mon-fri, weekdays or all"));
	if (n > CAPACITY_MAX_SPANS)
		return err_set(FD_EINVAL, _("at most %d working spans a day"), CAPACITY_MAX_SPANS);
	for (i = 0; i < n; i++)
		if (spans[i].start_min < 0 || spans[i].end_min > 1440 ||
		    spans[i].end_min <= spans[i].start_min ||
		    (i && spans[i].start_min < spans[i - 1].end_min))
			return err_set(FD_EINVAL, "%s",
			               _("the working spans must be within the day, in order and "
			                 "not overlapping"));
	return db_write(db, hours_tx, &h);
}

int capacity_hours_list(struct db *db, int64_t id,
                        int (*cb)(int weekday, const struct cap_span *s, void *arg), void *arg)
{
	struct cap_span s;
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare(db,
	                     "SELECT weekday, start_min, end_min FROM resource_hours"
	                     " WHERE resource_id = ?1 ORDER BY weekday, start_min",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		s.start_min = sqlite3_column_int(st, 1);
		s.end_min = sqlite3_column_int(st, 2);
		if ((rc = cb(sqlite3_column_int(st, 0), &s, arg)))
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the working hours"));
	sqlite3_finalize(st);
	return rc;
}

/* The working spans of resource id on the local day that starts at day
 * (date, wday its date and weekday): the date's exception if any (*why
 * gets its reason, *excepted 1), else the weekday's hours. */
static int day_spans(struct db *db, int64_t id, const char *date, int wday,
                     struct cap_span spans[CAPACITY_MAX_SPANS], size_t *n, struct strbuf *why,
                     int *excepted)
{
	sqlite3_stmt *st;
	int rc, step;

	*n = 0;
	*excepted = 0;
	if ((rc = db_prepare(db,
	                     "SELECT start_min, end_min, reason FROM resource_exception"
	                     " WHERE resource_id = ?1 AND day = ?2",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, date, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		*excepted = 1;
		if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
			spans[0].start_min = sqlite3_column_int(st, 0);
			spans[0].end_min = sqlite3_column_int(st, 1);
			*n = 1;
		}
		if (why && sqlite3_column_type(st, 2) != SQLITE_NULL)
			sb_puts(why, (const char *)sqlite3_column_text(st, 2));
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the working hours"));
	}
	sqlite3_finalize(st);
	if (rc || *excepted)
		return rc;
	/* the shop's closed day: no weekday hours (a resource's own day above
	 * still counts) */
	{
		char reason[NOTE_MAX + 1];

		if ((rc = capacity_closed(db, date, reason, sizeof reason)) < 0)
			return rc;
		if (rc == 1) {
			*excepted = 1;
			if (why && *reason)
				sb_printf(why, _("the shop is closed: %s"), reason);
			else if (why)
				sb_puts(why, _("the shop is closed"));
			return 0;
		}
	}
	if ((rc = db_prepare(db,
	                     "SELECT start_min, end_min FROM resource_hours"
	                     " WHERE resource_id = ?1 AND weekday = ?2 ORDER BY start_min",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, wday);
	while ((step = sqlite3_step(st)) == SQLITE_ROW && *n < CAPACITY_MAX_SPANS) {
		spans[*n].start_min = sqlite3_column_int(st, 0);
		spans[*n].end_min = sqlite3_column_int(st, 1);
		(*n)++;
	}
	if (step != SQLITE_DONE && step != SQLITE_ROW)
		rc = db_fail(db, _("cannot read the working hours"));
	sqlite3_finalize(st);
	return rc;
}

/* 0 when resource r works for all of [s, e): inside one span of the local
 * day that contains s; else FD_ECONFLICT saying what its hours are. */
static int check_hours(struct db *db, const struct resource *r, int64_t s, int64_t e)
{
	struct cap_span spans[CAPACITY_MAX_SPANS];
	struct strbuf why = {0}, txt = {0};
	int64_t day = clock_day_start(s);
	char date[16], from[32], to[32];
	int wday, excepted, rc;
	size_t n, i;

	day_info(day, date, &wday);
	if ((rc = day_spans(db, r->id, date, wday, spans, &n, &why, &excepted)))
		goto out;
	for (i = 0; i < n; i++)
		if (day_minute(day, date, spans[i].start_min) <= s &&
		    e <= day_minute(day, date, spans[i].end_min))
			goto out;
	clock_format_local(s, "%H:%M", from, sizeof from);
	clock_format_local(e, e - day >= 86400 ? "%Y-%m-%d %H:%M" : "%H:%M", to, sizeof to);
	spans_text(spans, n, &txt);
	if (!n && excepted)
		rc = err_set(FD_ECONFLICT,
		             _("%1$s is off on %2$s (%3$s): choose another day or resource"),
		             r->name, date, why.len ? sb_cstr(&why) : _("no reason given"));
	else if (!n)
		rc = err_set(FD_ECONFLICT,
		             _("%1$s does not work on %2$s (no working hours that weekday): choose "
		               "another day or resource"),
		             r->name, date);
	else
		rc = err_set(
		    FD_ECONFLICT,
		    _("%1$s does not work from %2$s to %3$s on %4$s: its hours that day are "
		      "%5$s"),
		    r->name, from, to, date, sb_cstr(&txt));
out:
	sb_free(&why);
	sb_free(&txt);
	return rc;
}

/* 0 when no live visit but appt holds resource r for any part of [s, e);
 * else FD_ECONFLICT naming the visit that does. */
static int check_free(struct db *db, const struct resource *r, int64_t appt, int64_t s, int64_t e)
{
	sqlite3_stmt *st;
	char from[32], to[32];
	int rc, step;

	/* index range scan on (resource_id, start_at): no visit is longer than
	 * VISIT_MAX_SECONDS, so one that overlaps s starts after s - that */
	rc = db_prepare_cached(db,
	                       "SELECT r.appointment_id, r.start_at, r.end_at"
	                       " FROM appointment_resource r JOIN appointment a"
	                       " ON a.id = r.appointment_id"
	                       " WHERE r.resource_id = ?1 AND r.start_at < ?3"
	                       " AND r.start_at >= ?2 - 604800 AND r.end_at > ?2"
	                       " AND r.appointment_id <> ?4 AND a.status" LIVE
	                       " ORDER BY r.start_at LIMIT 1",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, r->id);
	sqlite3_bind_int64(st, 2, s);
	sqlite3_bind_int64(st, 3, e);
	sqlite3_bind_int64(st, 4, appt);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		clock_format_local(sqlite3_column_int64(st, 1), "%Y-%m-%d %H:%M", from,
		                   sizeof from);
		clock_format_local(sqlite3_column_int64(st, 2), "%H:%M", to, sizeof to);
		rc = err_set(FD_ECONFLICT,
		             _("%1$s is taken from %2$s to %3$s by visit %4$lld: choose another "
		               "time or resource"),
		             r->name, from, to, (long long)sqlite3_column_int64(st, 0));
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the reservations"));
	}
	db_release(db, st);
	return rc;
}

/* ---------------------------------------------------------------- exceptions */

struct off_ctx {
	int64_t id;
	const char *day;
	const struct cap_span *span;
	const char *reason;
	int clear;
};

/* FD_ECONFLICT when a live visit holds resource id on local date day
 * outside span (NULL: at all). */
static int off_blocked(struct db *db, const struct resource *r, const char *day,
                       const struct cap_span *span)
{
	int64_t d0, d1, s = 0, e = 0;
	sqlite3_stmt *st;
	int rc, step;

	if (clock_parse_local(day, &d0))
		return FD_EINVAL;
	d1 = clock_add_days(d0, 1);
	if (span) {
		s = day_minute(d0, day, span->start_min);
		e = day_minute(d0, day, span->end_min);
	}
	rc = db_prepare(db,
	                "SELECT r.appointment_id FROM appointment_resource r JOIN appointment a"
	                " ON a.id = r.appointment_id WHERE r.resource_id = ?1 AND r.start_at >= ?2"
	                " AND r.start_at < ?3 AND a.status" LIVE
	                " AND NOT (?4 AND r.start_at >= ?5 AND r.end_at <= ?6)"
	                " ORDER BY r.start_at LIMIT 1",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, r->id);
	sqlite3_bind_int64(st, 2, d0);
	sqlite3_bind_int64(st, 3, d1);
	sqlite3_bind_int(st, 4, span != NULL);
	sqlite3_bind_int64(st, 5, s);
	sqlite3_bind_int64(st, 6, e);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		rc = err_set(FD_ECONFLICT,
		             _("visit %1$lld holds %2$s on %3$s outside those hours: move it or "
		               "cancel it first"),
		             (long long)sqlite3_column_int64(st, 0), r->name, day);
	else if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the reservations"));
	sqlite3_finalize(st);
	return rc;
}

static int off_tx(struct db *db, void *arg)
{
	struct off_ctx *o = arg;
	struct resource r;
	sqlite3_stmt *st;
	char subject[96];
	int rc;

	snprintf(subject, sizeof subject, "%s resource %lld on %.10s",
	         o->clear ? "clear the day off of" : "set a day off of", (long long)o->id, o->day);
	if ((rc = control_require(db, PERM_BOOKING, 0, subject)))
		return rc;
	if ((rc = capacity_resource_get(db, o->id, &r)))
		return rc;
	if (o->clear) {
		capacity_resource_free(&r);
		if ((rc = db_prepare(
		         db, "DELETE FROM resource_exception WHERE resource_id = ?1 AND day = ?2",
		         &st)))
			return rc;
		sqlite3_bind_int64(st, 1, o->id);
		sqlite3_bind_text(st, 2, o->day, -1, SQLITE_TRANSIENT);
		if ((rc = db_run(db, st, _("cannot change the day off"))))
			return rc;
		if (!sqlite3_changes(db_sqlite(db)))
			return err_set(FD_ENOTFOUND, _("resource %1$lld has no exception on %2$s"),
			               (long long)o->id, o->day);
		return 0;
	}
	rc = off_blocked(db, &r, o->day, o->span);
	capacity_resource_free(&r);
	if (rc)
		return rc;
	rc = db_prepare(
	    db,
	    "INSERT INTO resource_exception (resource_id, day, start_min, end_min,"
	    " reason, created_at) VALUES (?1, ?2, ?3, ?4, nullif(?5, ''), ?6)"
	    " ON CONFLICT (resource_id, day) DO UPDATE SET start_min = excluded.start_min,"
	    " end_min = excluded.end_min, reason = excluded.reason,"
	    " created_at = excluded.created_at",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, o->id);
	sqlite3_bind_text(st, 2, o->day, -1, SQLITE_TRANSIENT);
	if (o->span) {
		sqlite3_bind_int(st, 3, o->span->start_min);
		sqlite3_bind_int(st, 4, o->span->end_min);
	}
	if (o->reason)
		sqlite3_bind_text(st, 5, o->reason, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, clock_now());
	return db_run(db, st, _("cannot change the day off"));
}

static int check_day(const char *day)
{
	int64_t t;
	char back[16];

	if (!day || strlen(day) != 10 || clock_parse_local(day, &t))
		return err_set(FD_EINVAL, _("'%.40s' is not a date: write YYYY-MM-DD"),
		               day ? day : "");
	clock_format_local(t, "%Y-%m-%d", back, sizeof back);
	if (strcmp(back, day))
		return err_set(FD_EINVAL, _("'%.40s' is not a date: write YYYY-MM-DD"), day);
	return 0;
}

int capacity_off(struct db *db, int64_t id, const char *day, const struct cap_span *span,
                 const char *reason)
{
	struct off_ctx o = {id, day, span, reason, 0};
	int rc;

	if ((rc = check_day(day)))
		return rc;
	if (span &&
	    (span->start_min < 0 || span->end_min > 1440 || span->end_min <= span->start_min))
		return err_set(FD_EINVAL, "%s", _("the hours of that day must be within the day"));
	if (reason && (rc = text_check(reason, _("the reason"), NOTE_MAX, 1)))
		return rc;
	return db_write(db, off_tx, &o);
}

int capacity_off_clear(struct db *db, int64_t id, const char *day)
{
	struct off_ctx o = {id, day, NULL, NULL, 1};
	int rc;

	if ((rc = check_day(day)))
		return rc;
	return db_write(db, off_tx, &o);
}

int capacity_off_list(struct db *db, int64_t id, const char *from,
                      int (*cb)(int64_t resource_id, const char *day, const struct cap_span *span,
                                const char *reason, void *arg),
                      void *arg)
{
	struct cap_span s;
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare(db,
	                     "SELECT resource_id, day, start_min, end_min, reason"
	                     " FROM resource_exception WHERE (?1 = 0 OR resource_id = ?1)"
	                     " AND day >= coalesce(?2, '') ORDER BY day, resource_id",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	if (from)
		sqlite3_bind_text(st, 2, from, -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int closed = sqlite3_column_type(st, 2) == SQLITE_NULL;

		s.start_min = sqlite3_column_int(st, 2);
		s.end_min = sqlite3_column_int(st, 3);
		if ((rc = cb(sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
		             closed ? NULL : &s, (const char *)sqlite3_column_text(st, 4), arg)))
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the days off"));
	sqlite3_finalize(st);
	return rc;
}

/* ---------------------------------------------------------------- reservations */

struct visit_times {
	int64_t start_at, end_at;
	char status[16];
};

static int read_visit(struct db *db, int64_t appt, struct visit_times *v)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare_cached(
	         db, "SELECT start_at, end_at, status FROM appointment WHERE id = ?1", &st)))
		return rc;
	sqlite3_bind_int64(st, 1, appt);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		v->start_at = sqlite3_column_int64(st, 0);
		v->end_at = sqlite3_column_int64(st, 1);
		dbrow_copy(st, 2, v->status, sizeof v->status);
	} else if (step == SQLITE_DONE) {
		rc = err_set(FD_ENOTFOUND, _("there is no visit %lld"), (long long)appt);
	} else {
		rc = db_fail(db, _("cannot read the visit"));
	}
	db_release(db, st);
	return rc;
}

/* Everything that must hold for visit appt (times v) to hold resource r. */
static int check_one(struct db *db, const struct resource *r, int64_t appt,
                     const struct visit_times *v)
{
	int rc;

	if (!r->active)
		return err_set(
		    FD_ECONFLICT,
		    _("%s is retired and can no longer be booked: choose another resource"),
		    r->name);
	if ((rc = check_hours(db, r, v->start_at, v->end_at)))
		return rc;
	return check_free(db, r, appt, v->start_at, v->end_at);
}

struct reserve_ctx {
	int64_t appt;
	const int64_t *ids;
	size_t n;
};

static int reserve_tx(struct db *db, void *arg)
{
	struct reserve_ctx *c = arg;
	struct visit_times v;
	struct resource r;
	sqlite3_stmt *st;
	int64_t held;
	char subject[64];
	size_t i;
	int rc;

	snprintf(subject, sizeof subject, "reserve resources for visit %lld", (long long)c->appt);
	if ((rc = control_require(db, PERM_BOOKING, 0, subject)))
		return rc;
	if ((rc = read_visit(db, c->appt, &v)))
		return rc;
	if (visit_is_over(visit_state_of(v.status)))
		return err_set(FD_ECONFLICT,
		               _("visit %1$lld is %2$s: it can no longer hold resources"),
		               (long long)c->appt, v.status);
	/* every check first, for every resource; then every write */
	for (i = 0; i < c->n; i++) {
		if ((rc = capacity_resource_get(db, c->ids[i], &r)))
			return rc;
		if ((rc = db_prepare_cached(db,
		                            "SELECT count(*) FROM appointment_resource"
		                            " WHERE appointment_id = ?1 AND resource_id = ?2",
		                            &st)) == 0) {
			sqlite3_bind_int64(st, 1, c->appt);
			sqlite3_bind_int64(st, 2, r.id);
			held = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
			db_release(db, st);
			if (held)
				rc = err_set(FD_ECONFLICT, _("visit %1$lld holds %2$s already"),
				             (long long)c->appt, r.name);
			else
				rc = check_one(db, &r, c->appt, &v);
		}
		capacity_resource_free(&r);
		if (rc)
			return rc;
	}
	for (i = 0; i < c->n; i++) {
		if ((rc =
		         db_prepare_cached(db,
		                           "INSERT INTO appointment_resource (appointment_id,"
		                           " resource_id, start_at, end_at, created_at, updated_at)"
		                           " VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
		                           &st)))
			return rc;
		sqlite3_bind_int64(st, 1, c->appt);
		sqlite3_bind_int64(st, 2, c->ids[i]);
		sqlite3_bind_int64(st, 3, v.start_at);
		sqlite3_bind_int64(st, 4, v.end_at);
		sqlite3_bind_int64(st, 5, clock_now());
		if ((rc = db_run_cached(db, st, _("cannot reserve the resource"))))
			return rc;
	}
	return 0;
}

int capacity_reserve(struct db *db, int64_t appt, const int64_t *resources, size_t n)
{
	struct reserve_ctx c = {appt, resources, n};
	size_t i, k;

	if (n < 1)
		return err_set(FD_EINVAL, "%s", _("name at least one resource"));
	if (n > CAPACITY_MAX_RESOURCES)
		return err_set(FD_EINVAL, _("one visit holds at most %d resources"),
		               CAPACITY_MAX_RESOURCES);
	for (i = 0; i < n; i++)
		for (k = 0; k < i; k++)
			if (resources[i] == resources[k])
				return err_set(FD_EINVAL, _("resource %lld is named twice"),
				               (long long)resources[i]);
	return db_write(db, reserve_tx, &c);
}

int capacity_follow(struct db *db, int64_t appt)
{
	int64_t ids[CAPACITY_MAX_RESOURCES * 4];
	struct visit_times v;
	struct resource r;
	sqlite3_stmt *st;
	size_t n = 0, i;
	int rc, step;

	if ((rc = read_visit(db, appt, &v)))
		return rc;
	if ((rc =
	         db_prepare(db,
	                    "SELECT resource_id FROM appointment_resource WHERE appointment_id = ?1"
	                    " AND (start_at <> ?2 OR end_at <> ?3) ORDER BY id",
	                    &st)))
		return rc;
	sqlite3_bind_int64(st, 1, appt);
	sqlite3_bind_int64(st, 2, v.start_at);
	sqlite3_bind_int64(st, 3, v.end_at);
	while ((step = sqlite3_step(st)) == SQLITE_ROW && n < sizeof ids / sizeof ids[0])
		ids[n++] = sqlite3_column_int64(st, 0);
	if (step != SQLITE_DONE && step != SQLITE_ROW)
		rc = db_fail(db, _("cannot read the reservations"));
	sqlite3_finalize(st);
	if (rc || !n)
		return rc;
	if (!visit_is_off(v.status)) {
		for (i = 0; i < n && !rc; i++) {
			if ((rc = capacity_resource_get(db, ids[i], &r)))
				return rc;
			/* a resource retired since keeps the visit it holds */
			rc = check_hours(db, &r, v.start_at, v.end_at);
			if (!rc)
				rc = check_free(db, &r, appt, v.start_at, v.end_at);
			capacity_resource_free(&r);
		}
		if (rc)
			return rc;
	}
	if ((rc = db_prepare(db,
	                     "UPDATE appointment_resource SET start_at = ?2, end_at = ?3,"
	                     " updated_at = ?4 WHERE appointment_id = ?1",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, appt);
	sqlite3_bind_int64(st, 2, v.start_at);
	sqlite3_bind_int64(st, 3, v.end_at);
	sqlite3_bind_int64(st, 4, clock_now());
	return db_run(db, st, _("cannot move the reservations"));
}

int capacity_visit_resources(struct db *db, int64_t appt,
                             int (*cb)(const struct resource *r, void *arg), void *arg)
{
	sqlite3_stmt *st;
	struct resource r;
	int rc, step;

	if ((rc = db_prepare(db,
	                     "SELECT x.id, x.name, x.kind, x.active, x.note, x.created_at,"
	                     " x.updated_at FROM appointment_resource r JOIN resource x"
	                     " ON x.id = r.resource_id WHERE r.appointment_id = ?1 ORDER BY r.id",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, appt);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		res_fill(st, &r);
		rc = cb(&r, arg);
		capacity_resource_free(&r);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the reservations"));
	sqlite3_finalize(st);
	return rc;
}

struct reassign_ctx {
	int64_t appt, from, to;
};

static int reassign_tx(struct db *db, void *arg)
{
	struct reassign_ctx *c = arg;
	struct visit_times v;
	struct resource from, to;
	sqlite3_stmt *st;
	int64_t held_from = 0, held_to = 0;
	char subject[96];
	int rc, step;

	snprintf(subject, sizeof subject, "move visit %lld from resource %lld to %lld",
	         (long long)c->appt, (long long)c->from, (long long)c->to);
	if ((rc = control_require(db, PERM_BOOKING, 0, subject)))
		return rc;
	if ((rc = read_visit(db, c->appt, &v)))
		return rc;
	if (visit_is_over(visit_state_of(v.status)))
		return err_set(FD_ECONFLICT,
		               _("visit %1$lld is %2$s: it can no longer hold resources"),
		               (long long)c->appt, v.status);
	if ((rc = capacity_resource_get(db, c->from, &from)))
		return rc;
	if ((rc = capacity_resource_get(db, c->to, &to))) {
		capacity_resource_free(&from);
		return rc;
	}
	rc = db_prepare_cached(db,
	                       "SELECT sum(resource_id = ?2), sum(resource_id = ?3)"
	                       " FROM appointment_resource WHERE appointment_id = ?1",
	                       &st);
	if (!rc) {
		sqlite3_bind_int64(st, 1, c->appt);
		sqlite3_bind_int64(st, 2, c->from);
		sqlite3_bind_int64(st, 3, c->to);
		step = sqlite3_step(st);
		if (step == SQLITE_ROW) {
			held_from = sqlite3_column_int64(st, 0);
			held_to = sqlite3_column_int64(st, 1);
		} else {
			rc = db_fail(db, _("cannot read the reservations"));
		}
		db_release(db, st);
	}
	if (!rc && !held_from)
		rc = err_set(FD_ECONFLICT, _("visit %1$lld does not hold %2$s"), (long long)c->appt,
		             from.name);
	else if (!rc && held_to)
		rc = err_set(FD_ECONFLICT, _("visit %1$lld holds %2$s already"), (long long)c->appt,
		             to.name);
	else if (!rc)
		rc = check_one(db, &to, c->appt, &v);
	if (!rc && !(rc = db_prepare_cached(db,
	                                    "UPDATE appointment_resource SET resource_id = ?3,"
	                                    " updated_at = ?4 WHERE appointment_id = ?1"
	                                    " AND resource_id = ?2",
	                                    &st))) {
		sqlite3_bind_int64(st, 1, c->appt);
		sqlite3_bind_int64(st, 2, c->from);
		sqlite3_bind_int64(st, 3, c->to);
		sqlite3_bind_int64(st, 4, clock_now());
		rc = db_run_cached(db, st, _("cannot move the reservation"));
	}
	capacity_resource_free(&from);
	capacity_resource_free(&to);
	return rc;
}

int capacity_reassign(struct db *db, int64_t appt, int64_t from, int64_t to)
{
	struct reassign_ctx c = {appt, from, to};

	if (from == to)
		return err_set(FD_EINVAL, "%s", _("choose another resource than the one it holds"));
	return db_write(db, reassign_tx, &c);
}

int capacity_holds(struct db *db, int64_t from, int64_t to,
                   int (*cb)(const struct cap_hold *h, void *arg), void *arg)
{
	struct cap_hold h;
	sqlite3_stmt *st;
	int rc, step;

	if (to <= from || to - from > 62 * 86400 + 7200)
		return err_set(FD_EINVAL, "%s", _("the range must be 1 to 62 days"));
	if ((rc = db_prepare(db,
	                     "SELECT r.resource_id, r.appointment_id, r.start_at, r.end_at"
	                     " FROM appointment_resource r JOIN appointment a"
	                     " ON a.id = r.appointment_id"
	                     " WHERE r.start_at < ?2 AND r.start_at >= ?1 - 604800"
	                     " AND r.end_at > ?1 AND a.status" LIVE
	                     " ORDER BY r.resource_id, r.start_at, r.id",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		h.resource_id = sqlite3_column_int64(st, 0);
		h.appointment_id = sqlite3_column_int64(st, 1);
		h.start_at = sqlite3_column_int64(st, 2);
		h.end_at = sqlite3_column_int64(st, 3);
		if ((rc = cb(&h, arg)))
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the reservations"));
	sqlite3_finalize(st);
	return rc;
}

/* ---------------------------------------------------------------- availability */

int capacity_slot_minutes(void)
{
	long v = config_get_int("slot_minutes", 15);

	return v >= 1 && v <= 240 ? (int)v : 15;
}

struct av_res {
	int64_t id;
	char *name;
	char kind[12];
	struct cap_span hours[7][CAPACITY_MAX_SPANS];
	size_t nhours[7];
	int64_t *busy; /* pairs start, end by start */
	size_t nbusy, capbusy;
	size_t pos; /* the first pair that may overlap the next slot */
};

struct av_exc {
	int64_t resource_id;
	char day[16];
	int closed;
	struct cap_span span;
};

struct av {
	struct av_res *res;
	size_t nres, capres;
	struct av_exc *exc;
	size_t nexc, capexc;
};

static struct av_res *av_find(struct av *a, int64_t id)
{
	size_t lo = 0, hi = a->nres;

	/* res is in id order only for lookups: see av_load's sort */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (a->res[mid].id == id)
			return &a->res[mid];
		if (a->res[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void av_free(struct av *a)
{
	size_t i;

	for (i = 0; i < a->nres; i++) {
		free(a->res[i].name);
		free(a->res[i].busy);
	}
	free(a->res);
	free(a->exc);
	memset(a, 0, sizeof *a);
}

static int av_load(struct db *db, struct av *a, int64_t from, int64_t to, const char *first_day,
                   const char *last_day, const int64_t *ids, size_t n)
{
	struct strbuf list = {0};
	sqlite3_stmt *st = NULL;
	struct av_res *r;
	size_t i;
	int rc, step;

	/* ",3,7," when resources are named: the filter of every query */
	sb_puts(&list, ",");
	for (i = 0; i < n; i++)
		sb_printf(&list, "%lld,", (long long)ids[i]);
#define RES_FILTER " (?1 = 0 AND x.active = 1 OR instr(?2, ',' || x.id || ',') > 0)"
	/* 1: the resources, by id (for lookups) */
	if ((rc = db_prepare(db,
	                     "SELECT x.id, x.name, x.kind FROM resource x WHERE" RES_FILTER
	                     " ORDER BY x.id",
	                     &st)))
		goto out;
	sqlite3_bind_int(st, 1, (int)n);
	sqlite3_bind_text(st, 2, sb_cstr(&list), -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (a->nres == a->capres) {
			a->capres = a->capres ? a->capres * 2 : 8;
			a->res = xrealloc(a->res, a->capres * sizeof *a->res);
		}
		r = &a->res[a->nres++];
		memset(r, 0, sizeof *r);
		r->id = sqlite3_column_int64(st, 0);
		r->name = dbrow_dup(st, 1);
		dbrow_copy(st, 2, r->kind, sizeof r->kind);
	}
	if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the resources"));
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	/* 2: their weekly hours */
	if ((rc = db_prepare(db,
	                     "SELECT h.resource_id, h.weekday, h.start_min, h.end_min"
	                     " FROM resource x JOIN resource_hours h ON h.resource_id = x.id"
	                     " WHERE" RES_FILTER " ORDER BY h.resource_id, h.weekday, h.start_min",
	                     &st)))
		goto out;
	sqlite3_bind_int(st, 1, (int)n);
	sqlite3_bind_text(st, 2, sb_cstr(&list), -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int wd = sqlite3_column_int(st, 1);

		r = av_find(a, sqlite3_column_int64(st, 0));
		if (!r || wd < 0 || wd > 6 || r->nhours[wd] >= CAPACITY_MAX_SPANS)
			continue;
		r->hours[wd][r->nhours[wd]].start_min = sqlite3_column_int(st, 2);
		r->hours[wd][r->nhours[wd]].end_min = sqlite3_column_int(st, 3);
		r->nhours[wd]++;
	}
	if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the working hours"));
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	/* 3: their exceptions in the range, and the shop's closed days as a
	 * day off of each resource that has no day of its own then */
	if ((rc = db_prepare(db,
	                     "SELECT e.resource_id, e.day, e.start_min, e.end_min"
	                     " FROM resource x JOIN resource_exception e ON e.resource_id = x.id"
	                     " WHERE" RES_FILTER " AND e.day BETWEEN ?3 AND ?4"
	                     " UNION ALL SELECT x.id, s.day, NULL, NULL FROM resource x"
	                     " JOIN shop_holiday s WHERE" RES_FILTER
	                     " AND s.day BETWEEN ?3 AND ?4 AND NOT EXISTS (SELECT 1 FROM"
	                     " resource_exception e WHERE e.resource_id = x.id AND e.day = s.day)",
	                     &st)))
		goto out;
	sqlite3_bind_int(st, 1, (int)n);
	sqlite3_bind_text(st, 2, sb_cstr(&list), -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, first_day, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, last_day, -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct av_exc *e;

		if (a->nexc == a->capexc) {
			a->capexc = a->capexc ? a->capexc * 2 : 8;
			a->exc = xrealloc(a->exc, a->capexc * sizeof *a->exc);
		}
		e = &a->exc[a->nexc++];
		e->resource_id = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, e->day, sizeof e->day);
		e->closed = sqlite3_column_type(st, 2) == SQLITE_NULL;
		e->span.start_min = sqlite3_column_int(st, 2);
		e->span.end_min = sqlite3_column_int(st, 3);
	}
	if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the days off"));
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	/* 4: every live reservation of those resources that overlaps the
	 * range: for each resource an index range scan on (resource_id,
	 * start_at), bounded below by the longest visit (CROSS JOIN keeps the
	 * resources outside: the planner may otherwise walk the whole index) */
	if ((rc = db_prepare(db,
	                     "SELECT r.resource_id, r.start_at, r.end_at FROM resource x"
	                     " CROSS JOIN appointment_resource r ON r.resource_id = x.id"
	                     " AND r.start_at >= ?3 - 604800 AND r.start_at < ?4"
	                     " JOIN appointment a ON a.id = r.appointment_id"
	                     " WHERE" RES_FILTER " AND r.end_at > ?3 AND a.status" LIVE
	                     " ORDER BY x.id, r.start_at",
	                     &st)))
		goto out;
	sqlite3_bind_int(st, 1, (int)n);
	sqlite3_bind_text(st, 2, sb_cstr(&list), -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, from);
	sqlite3_bind_int64(st, 4, to);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		r = av_find(a, sqlite3_column_int64(st, 0));
		if (!r)
			continue;
		if (r->nbusy + 2 > r->capbusy) {
			r->capbusy = r->capbusy ? r->capbusy * 2 : 32;
			r->busy = xrealloc(r->busy, r->capbusy * sizeof *r->busy);
		}
		r->busy[r->nbusy++] = sqlite3_column_int64(st, 1);
		r->busy[r->nbusy++] = sqlite3_column_int64(st, 2);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the reservations"));
#undef RES_FILTER
out:
	sqlite3_finalize(st);
	sb_free(&list);
	return rc;
}

static int kind_rank(const char *k)
{
	return !strcmp(k, "technician") ? 0 : !strcmp(k, "van") ? 1 : 2;
}

static int by_kind_name(const void *x, const void *y)
{
	const struct av_res *const *a = x, *const *b = y;
	int d = kind_rank((*a)->kind) - kind_rank((*b)->kind);

	return d ? d : strcmp((*a)->name, (*b)->name);
}

/* The slots of resource r on local day day (date, wday). */
static int av_day(struct av *a, struct av_res *r, int64_t day, const char *date, int wday,
                  int minutes, int grid, int (*cb)(const struct cap_slot *s, void *arg), void *arg)
{
	const struct cap_span *spans = r->hours[wday];
	size_t n = r->nhours[wday], i;
	struct cap_slot slot = {r->id, r->name, r->kind, 0, 0};
	int rc, m;

	for (i = 0; i < a->nexc; i++)
		if (a->exc[i].resource_id == r->id && !strcmp(a->exc[i].day, date)) {
			spans = &a->exc[i].span;
			n = a->exc[i].closed ? 0 : 1;
			break;
		}
	for (i = 0; i < n; i++) {
		int64_t s0 = day_minute(day, date, spans[i].start_min);
		int64_t s1 = day_minute(day, date, spans[i].end_min);

		/* the first grid minute of the span, from local midnight */
		m = (spans[i].start_min + grid - 1) / grid * grid;
		for (; m + minutes <= spans[i].end_min; m += grid) {
			slot.start_at = s0 + (int64_t)(m - spans[i].start_min) * 60;
			slot.end_at = slot.start_at + (int64_t)minutes * 60;
			if (slot.end_at > s1)
				break;
			/* busy is by start and (live reservations never overlap)
			 * by end too: skip what ended before this slot */
			while (r->pos < r->nbusy && r->busy[r->pos + 1] <= slot.start_at)
				r->pos += 2;
			if (r->pos < r->nbusy && r->busy[r->pos] < slot.end_at)
				continue;
			if ((rc = cb(&slot, arg)))
				return rc;
		}
	}
	return 0;
}

int capacity_available(struct db *db, int64_t from, int days, int minutes, int grid,
                       const int64_t *resources, size_t n,
                       int (*cb)(const struct cap_slot *s, void *arg), void *arg)
{
	struct av a = {0};
	struct av_res **order = NULL;
	char first[16], last[16], date[16];
	int64_t to, day;
	int rc, own, wday, k;
	size_t i;

	if (days < 1 || days > 62)
		return err_set(FD_EINVAL, "%s", _("the number of days must be between 1 and 62"));
	if (minutes < 1 || minutes > VISIT_MAX_SECONDS / 60)
		return err_set(FD_EINVAL, "%s", _("a slot lasts from 1 minute to 7 days"));
	if (grid < 1 || grid > 1440)
		return err_set(FD_EINVAL, "%s", _("the slot grid must be 1 to 1440 minutes"));
	from = clock_day_start(from);
	to = clock_add_days(from, days);
	day_info(from, first, &wday);
	day_info(clock_add_days(from, days - 1), last, &wday);
	/* one snapshot for the four reads */
	own = sqlite3_get_autocommit(db_sqlite(db));
	if (own && (rc = db_exec(db, "BEGIN")))
		return rc;
	rc = av_load(db, &a, from, to, first, last, resources, n);
	if (own)
		db_rollback(db);
	if (rc)
		goto out;
	order = xmalloc((a.nres ? a.nres : 1) * sizeof *order);
	for (i = 0; i < a.nres; i++)
		order[i] = &a.res[i];
	qsort(order, a.nres, sizeof *order, by_kind_name);
	for (k = 0; k < days && !rc; k++) {
		day = clock_add_days(from, k);
		day_info(day, date, &wday);
		for (i = 0; i < a.nres && !rc; i++)
			rc = av_day(&a, order[i], day, date, wday, minutes, grid, cb, arg);
	}
out:
	free(order);
	av_free(&a);
	return rc;
}

/* ---------------------------------------------------------- closed days */

int capacity_closed(struct db *db, const char *day, char *why, size_t n)
{
	sqlite3_stmt *st;
	int rc, step;

	if (why && n)
		*why = '\0';
	if ((rc = db_prepare_cached(
	         db, "SELECT coalesce(reason, '') FROM shop_holiday WHERE day = ?1", &st)))
		return rc;
	sqlite3_bind_text(st, 1, day, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		if (why && n)
			dbrow_copy(st, 0, why, n);
		rc = 1;
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the shop's closed days"));
	}
	db_release(db, st);
	return rc;
}

struct holiday_ctx {
	const char *day, *reason;
	int clear;
};

/* The first live visit that holds a resource on day without that
 * resource's own day then: FD_ECONFLICT naming it. */
static int holiday_blocked(struct db *db, const char *day)
{
	int64_t d0, d1;
	sqlite3_stmt *st;
	int rc, step;

	if (clock_parse_local(day, &d0))
		return FD_EINVAL;
	d1 = clock_add_days(d0, 1);
	if ((rc = db_prepare(db,
	                     "SELECT r.appointment_id, x.name FROM appointment_resource r"
	                     " JOIN appointment a ON a.id = r.appointment_id"
	                     " JOIN resource x ON x.id = r.resource_id"
	                     " WHERE r.start_at >= ?1 AND r.start_at < ?2 AND a.status" LIVE
	                     " AND NOT EXISTS (SELECT 1 FROM resource_exception e"
	                     " WHERE e.resource_id = r.resource_id AND e.day = ?3)"
	                     " ORDER BY r.start_at LIMIT 1",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, d0);
	sqlite3_bind_int64(st, 2, d1);
	sqlite3_bind_text(st, 3, day, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		rc = err_set(
		    FD_ECONFLICT,
		    _("visit %1$lld holds %2$s on %3$s: move it or cancel it first, or give "
		      "%2$s that day's hours (frontdesk resource off --hours)"),
		    (long long)sqlite3_column_int64(st, 0),
		    (const char *)sqlite3_column_text(st, 1), day);
	else if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the reservations"));
	sqlite3_finalize(st);
	return rc;
}

/* Every active resource's free slots of day changed, for whoever follows
 * them (the booking channels). */
static int holiday_announce(struct db *db, const char *day)
{
	int64_t ids[64], d0;
	sqlite3_stmt *st;
	size_t n = 0, i;
	int rc, step;

	if (clock_parse_local(day, &d0))
		return FD_EINVAL;
	if ((rc = db_prepare(db, "SELECT id FROM resource WHERE active = 1 ORDER BY id", &st)))
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		ids[n++] = sqlite3_column_int64(st, 0);
		if (n == sizeof ids / sizeof ids[0]) {
			for (i = 0; !rc && i < n; i++)
				rc = announce(
				    db, &(struct announcement){ANNOUNCE_DAY_CHANGED, ids[i], d0});
			n = 0;
		}
	}
	if (!rc && step != SQLITE_DONE && step != SQLITE_ROW)
		rc = db_fail(db, _("cannot read the resources"));
	sqlite3_finalize(st);
	for (i = 0; !rc && i < n; i++)
		rc = announce(db, &(struct announcement){ANNOUNCE_DAY_CHANGED, ids[i], d0});
	return rc;
}

static int holiday_tx(struct db *db, void *arg)
{
	struct holiday_ctx *h = arg;
	sqlite3_stmt *st;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "%s the shop on %.10s", h->clear ? "open" : "close",
	         h->day);
	if ((rc = control_require(db, PERM_BOOKING, 0, subject)))
		return rc;
	if (h->clear) {
		if ((rc = db_prepare(db, "DELETE FROM shop_holiday WHERE day = ?1", &st)))
			return rc;
		sqlite3_bind_text(st, 1, h->day, -1, SQLITE_TRANSIENT);
		if ((rc = db_run(db, st, _("cannot change the shop's closed days"))))
			return rc;
		if (!sqlite3_changes(db_sqlite(db)))
			return err_set(FD_ENOTFOUND, _("the shop is not closed on %s"), h->day);
		return holiday_announce(db, h->day);
	}
	if ((rc = holiday_blocked(db, h->day)))
		return rc;
	if ((rc = db_prepare(db,
	                     "INSERT INTO shop_holiday (day, reason, created_at) VALUES (?1,"
	                     " nullif(?2, ''), ?3) ON CONFLICT (day) DO UPDATE SET"
	                     " reason = excluded.reason WHERE reason IS NOT excluded.reason",
	                     &st)))
		return rc;
	sqlite3_bind_text(st, 1, h->day, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, h->reason ? h->reason : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, clock_now());
	if ((rc = db_run(db, st, _("cannot change the shop's closed days"))))
		return rc;
	return holiday_announce(db, h->day);
}

int capacity_holiday_set(struct db *db, const char *day, const char *reason)
{
	struct holiday_ctx h = {day, reason, 0};
	int rc;

	if ((rc = check_day(day)) ||
	    (reason && (rc = text_check(reason, _("the reason"), NOTE_MAX, 1))))
		return rc;
	return db_write(db, holiday_tx, &h);
}

int capacity_holiday_clear(struct db *db, const char *day)
{
	struct holiday_ctx h = {day, NULL, 1};
	int rc;

	if ((rc = check_day(day)))
		return rc;
	return db_write(db, holiday_tx, &h);
}

int capacity_holiday_list(struct db *db, const char *from,
                          int (*cb)(const char *day, const char *reason, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare(db,
	                     "SELECT day, reason FROM shop_holiday WHERE day >= coalesce(?1, '')"
	                     " ORDER BY day",
	                     &st)))
		return rc;
	if (from)
		sqlite3_bind_text(st, 1, from, -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		if ((rc = cb((const char *)sqlite3_column_text(st, 0),
		             (const char *)sqlite3_column_text(st, 1), arg)))
			break;
	if (!rc && step != SQLITE_DONE && step != SQLITE_ROW)
		rc = db_fail(db, _("cannot read the shop's closed days"));
	sqlite3_finalize(st);
	return rc;
}
