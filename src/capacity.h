/*
 * capacity.h - the shop's capacity: its resources (technicians, vans,
 * bays), when each one works, the days that differ, and which resources a
 * visit holds for its time (tables resource, resource_hours,
 * resource_exception, appointment_resource; migration 0016). This module
 * owns all four.
 *
 * Times: reservations are stored in UTC seconds as the half-open interval
 * [start, end) of their visit (a visit ending at 10:00 and one starting at
 * 10:00 do not overlap). Working hours are minutes of the shop's local day
 * (clock.h's zone) per weekday (0 Sunday .. 6 Saturday), up to
 * CAPACITY_MAX_SPANS spans a day; an exception replaces one local date's
 * hours (closed, or one span of other hours) and says why.
 *
 * The rule: a visit holds a resource only when the resource is active, the
 * visit lies inside one of its working spans of the visit's start day (its
 * hours that day, less exceptions), and no other live visit (not cancelled,
 * not no-show) holds it for any part of that time. capacity_reserve checks
 * every resource asked for and reserves them all, or none, in ONE write
 * transaction (BEGIN IMMEDIATE, db_write): two desks, or a desk and an
 * online booking, can never both take the last slot. The schema's triggers
 * refuse an overlapping reservation whoever writes. A cancelled or no-show
 * visit keeps its rows on record but holds nothing.
 *
 * Conventions as in job.h: 0, or a negative FD_E* code with a translated
 * reason in err_msg() (FD_EINVAL bad input, FD_ENOTFOUND, FD_ECONFLICT the
 * state does not allow it: a slot taken, outside hours, a retired
 * resource); a refused request changes nothing; history rows (*_his) are
 * written by triggers.
 *
 * Callers: booking.c (booking_add's resources), visit.c (a visit's times
 * change: capacity_follow), the command line (cli-capacity.c, `frontdesk
 * book --resource`), the checks (checkdb.c has capacity's invariants).
 */
#ifndef FD_CAPACITY_H
#define FD_CAPACITY_H

#include <stddef.h>
#include <stdint.h>

struct db;

#define CAPACITY_MAX_RESOURCES 8 /* resources one visit holds */
#define CAPACITY_MAX_SPANS     4 /* working spans of one resource on one weekday */
#define CAPACITY_NAME_MAX      100

struct resource {
	int64_t id;
	char *name;
	char kind[12]; /* technician, van, bay */
	int active;    /* 1: can be booked; 0: retired (kept on record) */
	char *note;    /* NULL when none */
	int64_t created_at, updated_at;
};

/* For capacity_resource_add name and kind are required. For
 * capacity_resource_change NULL / active < 0 means unchanged; "" clears the
 * note. name 1..100 bytes, unique ignoring case; kind technician, van or
 * bay; note 400 bytes. A resource that holds reservations of visits still
 * to come can be retired: those visits keep it (and `frontdesk check`
 * stays clean); no new ones can. */
struct resource_input {
	const char *name;
	const char *kind;
	const char *note;
	int active;
};

/* A span of a local day in minutes, end exclusive: 480..720 is 08:00-12:00. */
struct cap_span {
	int start_min, end_min;
};

int capacity_resource_add(struct db *db, const struct resource_input *in, int64_t *id_out);
int capacity_resource_change(struct db *db, int64_t id, const struct resource_input *in);
/* capacity_resource_get - fill *out (free with capacity_resource_free). */
int capacity_resource_get(struct db *db, int64_t id, struct resource *out);
/* capacity_resource_list - the resources by kind and name; all: also the
 * retired ones. */
int capacity_resource_list(struct db *db, int all, int (*cb)(const struct resource *r, void *arg),
                           void *arg);
void capacity_resource_free(struct resource *r);

/* capacity_resource_find - the resource text names: its number, or its
 * name (ignoring case). FD_ENOTFOUND naming text. */
int capacity_resource_find(struct db *db, const char *text, int64_t *id);

/* capacity_resource_parse - the resources of a list "Ann, Van 1" (',' or
 * ';' between names, the whole text tried first): ids gets up to
 * CAPACITY_MAX_RESOURCES, *n their count; a resource named twice is
 * refused. "" or NULL gives none. */
int capacity_resource_parse(struct db *db, const char *text, int64_t ids[CAPACITY_MAX_RESOURCES],
                            size_t *n);

/* capacity_parse_spans - "08:00-12:00,13:00-17:00" (up to
 * CAPACITY_MAX_SPANS spans, in order, not overlapping; "24:00" is
 * midnight at the end) or "off" (no span) into spans, *n their count.
 * FD_EINVAL with the reason. */
int capacity_parse_spans(const char *text, struct cap_span spans[CAPACITY_MAX_SPANS], size_t *n);

/* capacity_parse_weekdays - "mon", "mon-fri", "sat,sun", "all", "0".."6"
 * (0 Sunday) or English names of three letters or more into a bit mask
 * (bit 0 Sunday). FD_EINVAL with the reason. */
int capacity_parse_weekdays(const char *text, unsigned *mask);

/* capacity_hours_set - resource id works spans[0..n) on every weekday of
 * mask from now on (n 0: not at all those days), replacing what those
 * weekdays had. */
int capacity_hours_set(struct db *db, int64_t id, unsigned mask, const struct cap_span *spans,
                       size_t n);
/* capacity_hours_list - its working spans by weekday and start. */
int capacity_hours_list(struct db *db, int64_t id,
                        int (*cb)(int weekday, const struct cap_span *s, void *arg), void *arg);

/* capacity_off - on local date day ("YYYY-MM-DD"), resource id is closed
 * (span NULL) or works *span instead of its hours; reason (may be NULL, 400
 * bytes) says why. Replaces that date's exception. Refused (FD_ECONFLICT,
 * naming the visit) when a live visit holds the resource that day outside
 * the new hours: move it first. capacity_off_clear removes the date's
 * exception (FD_ENOTFOUND when there is none). */
int capacity_off(struct db *db, int64_t id, const char *day, const struct cap_span *span,
                 const char *reason);
int capacity_off_clear(struct db *db, int64_t id, const char *day);
/* capacity_off_list - the exceptions of resource id (0: all) from local
 * date from on (NULL: all), by date; span NULL for a closed day. */
int capacity_off_list(struct db *db, int64_t id, const char *from,
                      int (*cb)(int64_t resource_id, const char *day, const struct cap_span *span,
                                const char *reason, void *arg),
                      void *arg);

/* The shop's closed days (table shop_holiday): on one, no resource works
 * unless it has a day of its own then (capacity_off); a recurring job skips
 * or moves its visit. capacity_holiday_set - close the shop on day (local
 * YYYY-MM-DD; reason may be NULL), or change the reason; FD_ECONFLICT
 * naming the first live visit that holds a resource that day without that
 * resource's own day (move it, cancel it, or give the resource its hours
 * first). capacity_holiday_clear - open it again (FD_ENOTFOUND when it was
 * not closed). Both need the booking permission. */
int capacity_holiday_set(struct db *db, const char *day, const char *reason);
int capacity_holiday_clear(struct db *db, const char *day);
/* capacity_holiday_list - the closed days from local date from on (NULL:
 * all), by date. */
int capacity_holiday_list(struct db *db, const char *from,
                          int (*cb)(const char *day, const char *reason, void *arg), void *arg);
/* capacity_closed - 1 when the shop is closed on day, with its reason in
 * why (n bytes, "" when none); 0 when open; or an FD_E* code. */
int capacity_closed(struct db *db, const char *day, char *why, size_t n);

/* capacity_reserve - visit appt holds resources[0..n) for its interval:
 * every one active, working then and free, or none is reserved. In one
 * write transaction (a savepoint inside an open one, booking_add's).
 * FD_ECONFLICT naming the resource and why: "Van 1 is taken from 10:00 to
 * 11:00 by visit 12", outside its hours (and what they are), off that day
 * (the reason), retired, or the visit already holds it or is over;
 * FD_ENOTFOUND for an unknown visit or resource; FD_EINVAL for more than
 * CAPACITY_MAX_RESOURCES or one named twice. */
int capacity_reserve(struct db *db, int64_t appt, const int64_t *resources, size_t n);

/* capacity_follow - inside the write transaction that changed visit
 * appt's times (visit_edit, visit_move; visit.c), after its UPDATE: its
 * reservations take the new interval, or FD_ECONFLICT with the reason (a
 * resource taken then, or not working then) and the caller's transaction
 * rolls back. A visit that is cancelled or no-show follows unchecked. */
int capacity_follow(struct db *db, int64_t appt);

/* capacity_visit_resources - the resources visit appt holds, in the order
 * reserved. */
int capacity_visit_resources(struct db *db, int64_t appt,
                             int (*cb)(const struct resource *r, void *arg), void *arg);

/* capacity_reassign - visit appt gives up resource from and holds resource
 * to instead, for the same interval, in one write transaction: to must be
 * active, working then and free (the reasons as capacity_reserve's);
 * FD_ECONFLICT when the visit does not hold from, holds to already or can
 * no longer hold resources (cancelled, no-show, done); FD_ENOTFOUND for an
 * unknown visit or resource. Refused: nothing changes. The dispatch board
 * (ui/view-dispatch.c) moves a visit between columns with it. */
int capacity_reassign(struct db *db, int64_t appt, int64_t from, int64_t to);

/* One reservation held by a live visit. */
struct cap_hold {
	int64_t resource_id, appointment_id;
	int64_t start_at, end_at; /* UTC, [start, end) */
};

/* capacity_holds - the reservations of live visits (not cancelled, not
 * no-show) overlapping [from, to) (to - from at most 62 days), by
 * resource then start: what the dispatch board shows in its cells. */
int capacity_holds(struct db *db, int64_t from, int64_t to,
                   int (*cb)(const struct cap_hold *h, void *arg), void *arg);

/* One free slot of availability. */
struct cap_slot {
	int64_t resource_id;
	const char *name; /* the resource's; valid during the call */
	const char *kind;
	int64_t start_at, end_at; /* UTC, [start, end) */
};

/* capacity_slot_minutes - the grid free slots start on: the config key
 * `slot_minutes` (1..240), else 15. */
int capacity_slot_minutes(void);

/* capacity_available - the free slots of minutes (1..VISIT_MAX_SECONDS/60)
 * on days local days from day from (UTC of a local midnight; days 1..62):
 * for every active resource (or only resources[0..n) with n > 0, active or
 * not), every start on the grid of grid minutes from local midnight such
 * that [start, start + minutes) lies in one of its working spans of that
 * day (less exceptions) and no live visit holds it then. Slots come by
 * day, then resource (kind, name), then time. One read transaction, with
 * one query each for the resources, their hours, their exceptions and
 * their reservations over the whole range (never one per slot or day). */
int capacity_available(struct db *db, int64_t from, int days, int minutes, int grid,
                       const int64_t *resources, size_t n,
                       int (*cb)(const struct cap_slot *s, void *arg), void *arg);

#endif
