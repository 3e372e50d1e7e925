/*
 * export-ical.c - writing the visits as iCalendar with libical (see
 * export-ical.h).
 *
 * Invariant: everything in the file is printed by libical; this file only
 * decides which components and properties there are and puts libical's
 * text for the calendar's head, each event and the calendar's END line one
 * after the other.
 *
 * Permissions: an export asks reports before it reads.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "err.h"
#include "export-ical.h"
#include "export.h"
#include "i18n.h"
#include "ical-dyn.h"
#include "migrate.h"
#include "recurring.h"
#include "strbuf.h"
#include "visit.h"
#include "xalloc.h"

struct ical_ctx {
	struct db *db;
	int64_t *rules; /* the recurring jobs met among the visits, in order */
	size_t nrules, cap;
	FILE *out;
	icaltimezone *zone; /* the shop's zone, or libical's UTC */
	const char *tzid;   /* its IANA name, the TZID we write; NULL for UTC */
	int64_t db_born;    /* migrate_created_at: names this database in UIDs */
	int64_t n;
	int failed; /* libical could not print an event */
};

static struct icaltimetype at(int64_t t, icaltimezone *zone)
{
	struct icaltimetype v = icaltime_from_timet_with_zone((time_t)t, 0, zone);

	/* libical 3.0 converts to the zone but marks the result UTC */
	v.zone = zone;
	return v;
}

static struct icaltimetype utc(int64_t t)
{
	return at(t, icaltimezone_get_utc_timezone());
}

/* t as the shop's wall-clock time, printed without a zone (the TZID
 * parameter names it: zoned), or in UTC when the zone has no name. */
static struct icaltimetype wall(int64_t t, const struct ical_ctx *x)
{
	struct icaltimetype v = at(t, x->zone);

	if (x->tzid)
		v.zone = NULL;
	return v;
}

/* The TZID parameter is the zone's IANA name ("America/New_York"), not
 * libical's own "/freeassociation.sourceforge.net/America/New_York": other
 * programs (calcurse, which sets TZ to it, and most calendar services) look
 * zones up by that name. */
static icalproperty *zoned(icalproperty *p, const struct ical_ctx *x)
{
	if (p && x->tzid)
		icalproperty_add_parameter(p, icalparameter_new_tzid(x->tzid));
	return p;
}

static void add(icalcomponent *c, icalproperty *p)
{
	if (p)
		icalcomponent_add_property(c, p);
}

static void summary(const struct visit *a, struct strbuf *sb)
{
	int has_c = a->customers && *a->customers, has_s = a->services && *a->services;

	if (has_c)
		sb_puts(sb, a->customers);
	if (has_c && has_s)
		sb_puts(sb, ": ");
	if (has_s)
		sb_puts(sb, a->services);
	if (!has_c && !has_s)
		sb_printf(sb, _("Visit %lld"), (long long)a->id);
}

static icalproperty_status status_of(const char *s)
{
	if (!strcmp(s, "cancelled"))
		return ICAL_STATUS_CANCELLED;
	if (!strcmp(s, "scheduled"))
		return ICAL_STATUS_TENTATIVE;
	return ICAL_STATUS_CONFIRMED;
}

/* The VEVENT of visit a (NULL when libical fails). */
static icalcomponent *visit_event(const struct visit *a, const struct ical_ctx *x)
{
	icalcomponent *ev = icalcomponent_new(ICAL_VEVENT_COMPONENT);
	struct strbuf sb = {NULL, 0, 0};
	icalproperty *p;
	char uid[96];

	if (!ev)
		return NULL;
	snprintf(uid, sizeof uid, "visit-%lld@frontdesk-%lld", (long long)a->id,
	         (long long)x->db_born);
	add(ev, icalproperty_new_uid(uid));
	add(ev, icalproperty_new_dtstamp(utc(a->updated_at)));
	add(ev, icalproperty_new_created(utc(a->created_at)));
	add(ev, icalproperty_new_lastmodified(utc(a->updated_at)));
	add(ev, zoned(icalproperty_new_dtstart(wall(a->start_at, x)), x));
	add(ev, zoned(icalproperty_new_dtend(wall(a->end_at, x)), x));
	summary(a, &sb);
	add(ev, icalproperty_new_summary(sb_cstr(&sb)));
	sb_free(&sb);
	if (a->location && *a->location)
		add(ev, icalproperty_new_location(a->location));
	if (a->note && *a->note)
		add(ev, icalproperty_new_description(a->note));
	add(ev, icalproperty_new_status(status_of(a->status)));
	if ((p = icalproperty_new_x(a->status)) != NULL) {
		icalproperty_set_x_name(p, "X-FRONTDESK-STATUS");
		icalcomponent_add_property(ev, p);
	}
	return ev;
}

/* Print ev and free it. */
static int emit(icalcomponent *ev, struct ical_ctx *x)
{
	char *text;

	if (!ev) {
		x->failed = 1;
		return FD_EIO;
	}
	text = icalcomponent_as_ical_string_r(ev);
	icalcomponent_free(ev);
	if (!text) {
		x->failed = 1;
		return FD_EIO;
	}
	fputs(text, x->out);
	free(text);
	return ferror(x->out) ? FD_EIO : 0;
}

static int event_cb(const struct visit *a, void *arg)
{
	struct ical_ctx *x = arg;
	char day[RECURRING_DAY_SIZE];
	int64_t rule;
	size_t i;
	int rc;

	if ((rc = recurring_of_visit(x->db, a->id, &rule, day)))
		return rc;
	x->n++;
	if (!rule)
		return emit(visit_event(a, x), x);
	/* a recurring job's visit: written with its rule, once, at the end */
	for (i = 0; i < x->nrules; i++)
		if (x->rules[i] == rule)
			return 0;
	if (x->nrules == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 16;
		x->rules = xrealloc(x->rules, x->cap * sizeof *x->rules);
	}
	x->rules[x->nrules++] = rule;
	return 0;
}

/* --------------------------------------------------- recurring jobs */

struct rule_occs {
	struct recurring_occ *o;
	size_t n, cap;
};

static int occ_keep(const struct recurring_occ *o, void *arg)
{
	struct rule_occs *ro = arg;

	if (ro->n == ro->cap) {
		ro->cap = ro->cap ? 2 * ro->cap : 32;
		ro->o = xrealloc(ro->o, ro->cap * sizeof *ro->o);
	}
	ro->o[ro->n] = *o;
	ro->o[ro->n].reason = NULL;
	ro->n++;
	return 0;
}

/* Off the calendar: no visit (skipped, dropped) or a visit that will not
 * happen. */
static int occ_off(const struct recurring_occ *o)
{
	return !o->appt_id || visit_is_off(o->appt_status);
}

/* A visit of the rule that is not where the rule puts it: moved by hand,
 * or to another day by the rule's 'move'. */
static int occ_moved(const struct recurring_occ *o)
{
	return !occ_off(o) && (o->by_hand || !strcmp(o->state, "moved"));
}

/* The rule's own event: its first day's time, the RRULE (UNTIL as the
 * instant of the last day's visit, in UTC), and an EXDATE per day off the
 * calendar or moved (exception_event). rep is one of its visits, for the summary and place. */
static icalcomponent *rule_event(const struct recurring *r, const struct rule_occs *ro,
                                 const struct visit *rep, struct ical_ctx *x)
{
	icalcomponent *ev = icalcomponent_new(ICAL_VEVENT_COMPONENT);
	struct icalrecurrencetype rr;
	struct strbuf sb = {NULL, 0, 0};
	char text[RECURRING_RULE_MAX + 1], until[RECURRING_DAY_SIZE], uid[96], when[32];
	int64_t start, t;
	icalproperty *p;
	size_t i;

	if (!ev)
		return NULL;
	if (recurring_rule_bounded(r, text, sizeof text, until)) {
		icalcomponent_free(ev);
		return NULL;
	}
	rr = icalrecurrencetype_from_string(text);
	snprintf(when, sizeof when, "%s %02d:%02d", r->first_day, r->start_minute / 60,
	         r->start_minute % 60);
	if (clock_parse_local(when, &start)) {
		icalcomponent_free(ev);
		return NULL;
	}
	if (*until) {
		snprintf(when, sizeof when, "%s %02d:%02d", until, r->start_minute / 60,
		         r->start_minute % 60);
		if (clock_parse_local(when, &t) == 0)
			rr.until = utc(t);
	}
	snprintf(uid, sizeof uid, "recurring-%lld@frontdesk-%lld", (long long)r->id,
	         (long long)x->db_born);
	add(ev, icalproperty_new_uid(uid));
	add(ev, icalproperty_new_dtstamp(utc(r->updated_at)));
	add(ev, icalproperty_new_created(utc(r->created_at)));
	add(ev, icalproperty_new_lastmodified(utc(r->updated_at)));
	add(ev, zoned(icalproperty_new_dtstart(wall(start, x)), x));
	add(ev, zoned(icalproperty_new_dtend(wall(start + (int64_t)r->length_minutes * 60, x)), x));
	add(ev, icalproperty_new_rrule(rr));
	/* an exception's day too: calendar programs that do not read
	 * RECURRENCE-ID (calcurse) would show its visit twice */
	for (i = 0; i < ro->n; i++)
		if (occ_off(&ro->o[i]) || occ_moved(&ro->o[i]))
			add(ev, zoned(icalproperty_new_exdate(wall(ro->o[i].rule_start, x)), x));
	summary(rep, &sb);
	add(ev, icalproperty_new_summary(sb_cstr(&sb)));
	sb_free(&sb);
	if (rep->location && *rep->location)
		add(ev, icalproperty_new_location(rep->location));
	if (r->note && *r->note)
		add(ev, icalproperty_new_description(r->note));
	add(ev, icalproperty_new_status(ICAL_STATUS_CONFIRMED));
	if ((p = icalproperty_new_x(r->status)) != NULL) {
		icalproperty_set_x_name(p, "X-FRONTDESK-RECURRING");
		icalcomponent_add_property(ev, p);
	}
	return ev;
}

/* A visit that is not where its rule puts it (moved by hand, or to another
 * day by the rule's 'move'): the rule's event for that one day
 * (RECURRENCE-ID, the day's rule instant) with the visit's times. */
static icalcomponent *exception_event(const struct recurring *r, const struct recurring_occ *o,
                                      const struct visit *v, struct ical_ctx *x)
{
	icalcomponent *ev = visit_event(v, x);
	icalproperty *p;
	char uid[96];

	if (!ev)
		return NULL;
	if ((p = icalcomponent_get_first_property(ev, ICAL_UID_PROPERTY)) != NULL) {
		icalcomponent_remove_property(ev, p);
		icalproperty_free(p);
	}
	snprintf(uid, sizeof uid, "recurring-%lld@frontdesk-%lld", (long long)r->id,
	         (long long)x->db_born);
	add(ev, icalproperty_new_uid(uid));
	add(ev, zoned(icalproperty_new_recurrenceid(wall(o->rule_start, x)), x));
	return ev;
}

static int write_rule(int64_t id, struct ical_ctx *x)
{
	struct rule_occs ro = {NULL, 0, 0};
	struct recurring r;
	struct visit rep, v;
	size_t i;
	int rc, have_rep = 0;

	if ((rc = recurring_get(x->db, id, &r)))
		return rc;
	if ((rc = recurring_occurrences(x->db, id, occ_keep, &ro)))
		goto out;
	for (i = 0; i < ro.n && !have_rep; i++)
		if (ro.o[i].appt_id && (rc = visit_get(x->db, ro.o[i].appt_id, &rep)) == 0)
			have_rep = 1;
	if (!have_rep)
		goto out; /* cannot happen: the rule was met through one of its visits */
	if ((rc = emit(rule_event(&r, &ro, &rep, x), x)))
		goto out;
	for (i = 0; !rc && i < ro.n; i++) {
		struct recurring_occ *o = &ro.o[i];

		if (!occ_moved(o))
			continue;
		if ((rc = visit_get(x->db, o->appt_id, &v)))
			break;
		rc = emit(exception_event(&r, o, &v, x), x);
		visit_free(&v);
	}
out:
	if (have_rep)
		visit_free(&rep);
	free(ro.o);
	recurring_free(&r);
	return rc;
}

/* Write each observance of vtz whose RRULE ends (has an UNTIL) as the list
 * of its transitions instead: RDATE lines, one per occurrence. The same
 * transitions, in a form every reader takes: RFC 5545 wants such an UNTIL
 * in UTC while the observance's DTSTART is local time, and python's
 * icalendar (with dateutil) refuses that mix. A rule without an end, which
 * the zone follows today, stays an RRULE. At most a few hundred lines. */
static void rules_to_dates(icalcomponent *vtz)
{
	icalcomponent *o;

	for (o = icalcomponent_get_first_component(vtz, ICAL_ANY_COMPONENT); o;
	     o = icalcomponent_get_next_component(vtz, ICAL_ANY_COMPONENT)) {
		icalproperty *rr = icalcomponent_get_first_property(o, ICAL_RRULE_PROPERTY);
		icalproperty *ds = icalcomponent_get_first_property(o, ICAL_DTSTART_PROPERTY);
		struct icalrecurrencetype rule;
		struct icaltimetype start, t;
		icalrecur_iterator *it;
		int n = 0;

		if (!rr || !ds)
			continue;
		rule = icalproperty_get_rrule(rr);
		if (icaltime_is_null_time(rule.until) || rule.count != 0)
			continue;
		start = icalproperty_get_dtstart(ds);
		if (!(it = icalrecur_iterator_new(rule, start)))
			continue;
		while (n < 1000 && !icaltime_is_null_time(t = icalrecur_iterator_next(it))) {
			struct icaldatetimeperiodtype d;

			memset(&d, 0, sizeof d);
			d.time = t;
			d.period = icalperiodtype_null_period();
			/* DTSTART itself is the first transition */
			if (icaltime_compare(t, start) != 0)
				add(o, icalproperty_new_rdate(d));
			n++;
		}
		icalrecur_iterator_free(it);
		icalcomponent_remove_property(o, rr);
		icalproperty_free(rr);
	}
}

/* The calendar without its events: its properties and the zone's
 * VTIMEZONE, cut to the rules in force from `from` on (libical's zone data
 * goes back to the 19th century; readers such as python's icalendar choke
 * on its oldest rules, and nobody needs them), with its ending rules as
 * dates. NULL when libical fails. */
static icalcomponent *calendar(icaltimezone *zone, const char *zone_name, int64_t from)
{
	icalcomponent *cal = icalcomponent_new(ICAL_VCALENDAR_COMPONENT);
	icalproperty *p;

	if (!cal)
		return NULL;
	add(cal, icalproperty_new_version("2.0"));
	add(cal, icalproperty_new_prodid("-//frontdesk//frontdesk " PACKAGE_VERSION "//EN"));
	add(cal, icalproperty_new_calscale("GREGORIAN"));
	if (zone != icaltimezone_get_utc_timezone()) {
		icalcomponent *tz = icaltimezone_get_component(zone);

		if (!tz || !(tz = icalcomponent_new_clone(tz))) {
			icalcomponent_free(cal);
			return NULL;
		}
		icaltimezone_truncate_vtimezone(tz, utc(from), icaltime_null_time(), 0);
		rules_to_dates(tz);
		if ((p = icalcomponent_get_first_property(tz, ICAL_TZID_PROPERTY)) != NULL)
			icalproperty_set_tzid(p, zone_name);
		/* the zone's IANA name, which several calendar programs read */
		if ((p = icalproperty_new_x(zone_name)) != NULL) {
			icalproperty_set_x_name(p, "X-WR-TIMEZONE");
			icalcomponent_add_property(cal, p);
		}
		icalcomponent_add_component(cal, tz);
	}
	return cal;
}

int export_ical(struct db *db, const struct export_range *r, FILE *out, int64_t *n_out)
{
	struct ical_ctx x = {db, NULL, 0, 0, out, NULL, NULL, 0, 0, 0};
	size_t i;
	icalcomponent *cal = NULL;
	char zname[128], *text = NULL, *end;
	const char *zn;
	int rc;

	if (n_out)
		*n_out = 0;
	/* a read: asked before it starts, outside any transaction */
	if ((rc = control_require(db, PERM_REPORTS, 0, "export the visits as iCalendar")))
		return rc;
	if ((rc = ical_load(_("writing an iCalendar file"))) != 0)
		return rc;
	if ((rc = db_exec(db, "BEGIN")) != 0)
		return rc;
	if ((rc = migrate_created_at(db, &x.db_born)) != 0)
		goto out;
	zn = clock_zone_name(zname, sizeof zname);
	x.zone = zn ? icaltimezone_get_builtin_timezone(zn) : NULL;
	if (!x.zone)
		x.zone = icaltimezone_get_utc_timezone();
	if (x.zone != icaltimezone_get_utc_timezone())
		x.tzid = zn;
	/* the first visit that can overlap the range starts VISIT_MAX_SECONDS
	 * before it; none starts before 1970 (clock_parse_local) */
	cal = calendar(x.zone, zn, r->from > VISIT_MAX_SECONDS ? r->from - VISIT_MAX_SECONDS : 0);
	text = cal ? icalcomponent_as_ical_string_r(cal) : NULL;
	end = text ? strstr(text, "END:VCALENDAR") : NULL;
	if (!end) {
		rc = err_set(FD_EIO, _("cannot make the calendar file: %s"),
		             icalerror_strerror(icalerrno));
		goto out;
	}
	fwrite(text, 1, (size_t)(end - text), out);
	rc = visit_list_range(db, r->from, r->to, event_cb, &x);
	for (i = 0; !rc && i < x.nrules; i++)
		rc = write_rule(x.rules[i], &x);
	if (x.failed)
		rc = err_set(FD_EIO, _("cannot make the calendar file: %s"),
		             icalerror_strerror(icalerrno));
	if (rc)
		goto out;
	fputs(end, out);
	if (fflush(out) != 0 || ferror(out))
		rc = err_set(FD_EIO, _("cannot write the calendar"));
	if (n_out)
		*n_out = x.n;
out:
	free(x.rules);
	free(text);
	if (cal)
		icalcomponent_free(cal);
	icaltimezone_free_builtin_timezones();
	db_rollback(db);
	return rc;
}
