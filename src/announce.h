/*
 * announce.h - a record's owner says what changed, without knowing who
 * listens (or may refuse).
 *
 * The owner of visits (visit.c) and of bookings (booking.c) call announce()
 * inside the write transaction of the change. Each listener (today the
 * booking channels, booking-chan.c) does its part inside that same
 * transaction, so the change and what follows from it commit together or
 * not at all, and a listener's refusal undoes the change. An owner thus
 * stands below the integrations that follow it: it calls no integration,
 * and no circle of calls joins them.
 *
 * Listeners are added once per process, before the first change, by
 * core_wire() (wire.h). announce() refuses every announcement while the core
 * is not wired, so a program that forgot to wire it cannot lose what the
 * listeners owe (a booking channel's availability) silently.
 *
 * Callers: visit.c, booking.c, condition.c (announce); wire.c
 * (announce_listen).
 */
#ifndef FD_ANNOUNCE_H
#define FD_ANNOUNCE_H

#include <stdint.h>

struct db;

enum announce_kind {
	/* a visit moved (when: its start before the move), or was freed
	 * (cancelled, no-show) or done in place (when: 0) */
	ANNOUNCE_VISIT_CHANGED,
	/* the free slots of a resource's day changed (id: the resource; when:
	 * a moment of that day) */
	ANNOUNCE_DAY_CHANGED,
	/* a visit is about to start (id: the visit; when: 0), before its move
	 * to in_progress is written: a listener's refusal keeps it from
	 * starting (e-sign: its job's estimate is not signed yet) */
	ANNOUNCE_VISIT_STARTING,
	/* a visit was booked (id: the visit; when: 0) through booking_add, at
	 * the desk or by a booking channel; a recurring job's visits are not
	 * announced (their rule was) */
	ANNOUNCE_VISIT_BOOKED,
	/* a medium was added to a condition report (id: the medium; when: 0)
	 * through condition_media_add */
	ANNOUNCE_MEDIUM_ADDED,
	ANNOUNCE_KINDS
};

struct announcement {
	enum announce_kind kind;
	int64_t id;
	int64_t when;
};

/* A listener: 0, or an FD_E* code (with err_set) that undoes the change. */
typedef int (*announce_fn)(struct db *db, const struct announcement *a);

/* announce_listen - add fn to the listeners of kind (once: adding it again
 * changes nothing). At most 8 per kind: FD_EINVAL beyond. */
int announce_listen(enum announce_kind kind, announce_fn fn);

/* announce_ready - ready 1: every listener is added, announce() may run;
 * 0: announce() refuses again (as in a program that was never wired). */
void announce_ready(int ready);

/* announce - tell every listener of a->kind, in the order they were added,
 * inside the caller's write transaction; the first refusal is returned and
 * the rest are not told. FD_EINVAL when the core is not wired. */
int announce(struct db *db, const struct announcement *a);

#endif
