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

#include <libical/ical.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "dynlib.h"
#include "err.h"
#include "export-ical.h"
#include "export.h"
#include "i18n.h"
#include "migrate.h"
#include "strbuf.h"
#include "visit.h"

/* libical is loaded the first time a calendar is written (dynlib.h): every
 * other command and the screen start without it and the ICU data it maps.
 * Each function used is a pointer of the type the header declares; the
 * names below then call through them. */
#define ICAL_FUNCS(X)                                                                              \
	X(icalcomponent_add_component)                                                             \
	X(icalcomponent_add_property)                                                              \
	X(icalcomponent_as_ical_string_r)                                                          \
	X(icalcomponent_free)                                                                      \
	X(icalcomponent_get_first_component)                                                       \
	X(icalcomponent_get_first_property)                                                        \
	X(icalcomponent_get_next_component)                                                        \
	X(icalcomponent_new)                                                                       \
	X(icalcomponent_new_clone)                                                                 \
	X(icalcomponent_remove_property)                                                           \
	X(icalerrno_return)                                                                        \
	X(icalerror_strerror)                                                                      \
	X(icalparameter_new_tzid)                                                                  \
	X(icalperiodtype_null_period)                                                              \
	X(icalproperty_add_parameter)                                                              \
	X(icalproperty_free)                                                                       \
	X(icalproperty_get_dtstart)                                                                \
	X(icalproperty_get_rrule)                                                                  \
	X(icalproperty_new_calscale)                                                               \
	X(icalproperty_new_created)                                                                \
	X(icalproperty_new_description)                                                            \
	X(icalproperty_new_dtend)                                                                  \
	X(icalproperty_new_dtstamp)                                                                \
	X(icalproperty_new_dtstart)                                                                \
	X(icalproperty_new_lastmodified)                                                           \
	X(icalproperty_new_location)                                                               \
	X(icalproperty_new_prodid)                                                                 \
	X(icalproperty_new_rdate)                                                                  \
	X(icalproperty_new_status)                                                                 \
	X(icalproperty_new_summary)                                                                \
	X(icalproperty_new_uid)                                                                    \
	X(icalproperty_new_version)                                                                \
	X(icalproperty_new_x)                                                                      \
	X(icalproperty_set_tzid)                                                                   \
	X(icalproperty_set_x_name)                                                                 \
	X(icalrecur_iterator_free)                                                                 \
	X(icalrecur_iterator_new)                                                                  \
	X(icalrecur_iterator_next)                                                                 \
	X(icaltime_compare)                                                                        \
	X(icaltime_from_timet_with_zone)                                                           \
	X(icaltime_is_null_time)                                                                   \
	X(icaltime_null_time)                                                                      \
	X(icaltimezone_free_builtin_timezones)                                                     \
	X(icaltimezone_get_builtin_timezone)                                                       \
	X(icaltimezone_get_component)                                                              \
	X(icaltimezone_get_utc_timezone)                                                           \
	X(icaltimezone_truncate_vtimezone)
#define ICAL_SLOT(f) __typeof__(f) *p_##f;
#define ICAL_NAME(f) #f,
static struct {
	ICAL_FUNCS(ICAL_SLOT)
} ical;
static const char *const ical_names[] = {ICAL_FUNCS(ICAL_NAME) NULL};
static void *ical_ptrs[sizeof ical_names / sizeof *ical_names];
static struct dynlib ical_lib = {"libical.so.3", ical_names, ical_ptrs, 0, ""};

/* 0 once libical's functions are there (the first call copies them). */
static int ical_load(void)
{
	static int copied;
	size_t i = 0;
	int rc;

	if ((rc = dynlib_load(&ical_lib, _("writing an iCalendar file"))) != 0)
		return rc;
	if (!copied) { /* export_ical runs on the command line's one thread */
#define ICAL_SET(f) memcpy(&ical.p_##f, &ical_ptrs[i++], sizeof ical.p_##f);
		ICAL_FUNCS(ICAL_SET)
#undef ICAL_SET
		copied = 1;
	}
	return 0;
}

#define icalcomponent_add_component         (*ical.p_icalcomponent_add_component)
#define icalcomponent_add_property          (*ical.p_icalcomponent_add_property)
#define icalcomponent_as_ical_string_r      (*ical.p_icalcomponent_as_ical_string_r)
#define icalcomponent_free                  (*ical.p_icalcomponent_free)
#define icalcomponent_get_first_component   (*ical.p_icalcomponent_get_first_component)
#define icalcomponent_get_first_property    (*ical.p_icalcomponent_get_first_property)
#define icalcomponent_get_next_component    (*ical.p_icalcomponent_get_next_component)
#define icalcomponent_new                   (*ical.p_icalcomponent_new)
#define icalcomponent_new_clone             (*ical.p_icalcomponent_new_clone)
#define icalcomponent_remove_property       (*ical.p_icalcomponent_remove_property)
#define icalerrno_return                    (*ical.p_icalerrno_return)
#define icalerror_strerror                  (*ical.p_icalerror_strerror)
#define icalparameter_new_tzid              (*ical.p_icalparameter_new_tzid)
#define icalperiodtype_null_period          (*ical.p_icalperiodtype_null_period)
#define icalproperty_add_parameter          (*ical.p_icalproperty_add_parameter)
#define icalproperty_free                   (*ical.p_icalproperty_free)
#define icalproperty_get_dtstart            (*ical.p_icalproperty_get_dtstart)
#define icalproperty_get_rrule              (*ical.p_icalproperty_get_rrule)
#define icalproperty_new_calscale           (*ical.p_icalproperty_new_calscale)
#define icalproperty_new_created            (*ical.p_icalproperty_new_created)
#define icalproperty_new_description        (*ical.p_icalproperty_new_description)
#define icalproperty_new_dtend              (*ical.p_icalproperty_new_dtend)
#define icalproperty_new_dtstamp            (*ical.p_icalproperty_new_dtstamp)
#define icalproperty_new_dtstart            (*ical.p_icalproperty_new_dtstart)
#define icalproperty_new_lastmodified       (*ical.p_icalproperty_new_lastmodified)
#define icalproperty_new_location           (*ical.p_icalproperty_new_location)
#define icalproperty_new_prodid             (*ical.p_icalproperty_new_prodid)
#define icalproperty_new_rdate              (*ical.p_icalproperty_new_rdate)
#define icalproperty_new_status             (*ical.p_icalproperty_new_status)
#define icalproperty_new_summary            (*ical.p_icalproperty_new_summary)
#define icalproperty_new_uid                (*ical.p_icalproperty_new_uid)
#define icalproperty_new_version            (*ical.p_icalproperty_new_version)
#define icalproperty_new_x                  (*ical.p_icalproperty_new_x)
#define icalproperty_set_tzid               (*ical.p_icalproperty_set_tzid)
#define icalproperty_set_x_name             (*ical.p_icalproperty_set_x_name)
#define icalrecur_iterator_free             (*ical.p_icalrecur_iterator_free)
#define icalrecur_iterator_new              (*ical.p_icalrecur_iterator_new)
#define icalrecur_iterator_next             (*ical.p_icalrecur_iterator_next)
#define icaltime_compare                    (*ical.p_icaltime_compare)
#define icaltime_from_timet_with_zone       (*ical.p_icaltime_from_timet_with_zone)
#define icaltime_is_null_time               (*ical.p_icaltime_is_null_time)
#define icaltime_null_time                  (*ical.p_icaltime_null_time)
#define icaltimezone_free_builtin_timezones (*ical.p_icaltimezone_free_builtin_timezones)
#define icaltimezone_get_builtin_timezone   (*ical.p_icaltimezone_get_builtin_timezone)
#define icaltimezone_get_component          (*ical.p_icaltimezone_get_component)
#define icaltimezone_get_utc_timezone       (*ical.p_icaltimezone_get_utc_timezone)
#define icaltimezone_truncate_vtimezone     (*ical.p_icaltimezone_truncate_vtimezone)

struct ical_ctx {
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

static int event_cb(const struct visit *a, void *arg)
{
	struct ical_ctx *x = arg;
	icalcomponent *ev = icalcomponent_new(ICAL_VEVENT_COMPONENT);
	struct strbuf sb = {NULL, 0, 0};
	icalproperty *p;
	char uid[96], *text;

	if (!ev) {
		x->failed = 1;
		return FD_EIO;
	}
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
	text = icalcomponent_as_ical_string_r(ev);
	icalcomponent_free(ev);
	if (!text) {
		x->failed = 1;
		return FD_EIO;
	}
	fputs(text, x->out);
	free(text);
	x->n++;
	return ferror(x->out) ? FD_EIO : 0;
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
	struct ical_ctx x = {out, NULL, NULL, 0, 0, 0};
	icalcomponent *cal = NULL;
	char zname[128], *text = NULL, *end;
	const char *zn;
	int rc;

	if (n_out)
		*n_out = 0;
	/* a read: asked before it starts, outside any transaction */
	if ((rc = control_require(db, PERM_REPORTS, 0, "export the visits as iCalendar")))
		return rc;
	if ((rc = ical_load()) != 0)
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
	free(text);
	if (cal)
		icalcomponent_free(cal);
	icaltimezone_free_builtin_timezones();
	db_rollback(db);
	return rc;
}
