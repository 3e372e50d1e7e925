/*
 * visit.h - visits (table appointment) and their links to jobs (table
 * appointment_work), owned by visit.c.
 *
 * A visit is when and where only, never money. A link says that a visit
 * works on a job (job.h), with the minutes it is expected to take there; a
 * visit can serve several jobs of several customers. A change that others
 * follow (a move, a visit freed or done) is announced (announce.h) inside
 * its transaction.
 *
 * Every write validates its input, then runs in one write transaction; a
 * refused request changes nothing. The conventions of the functions below
 * (return codes, text checks, *_get and *_free, list callbacks) are those
 * written in job.h.
 *
 * Callers: the command line (cli-work.c), the screen, the demo, bookings,
 * capacity, the exports and the calendar projection (reads visits).
 */
#ifndef FD_VISIT_H
#define FD_VISIT_H

#include <stdint.h>

struct db;

/* A visit lasts at most this long (the schema checks it too); longer work
 * is several visits. It also bounds the scan of visit_list_range. */
#define VISIT_MAX_SECONDS (7 * 24 * 3600)

/* ---------------------------------------------------------------- visits */

struct visit {
	int64_t id;
	int64_t start_at, end_at; /* UTC seconds; end > start */
	char *location;           /* NULL when none */
	char status[16];          /* a word of enum visit_state: visit_state_of */
	char *note;
	int64_t created_at, updated_at;
	/* filled by visit_get and visit_list_range: */
	char *customers;     /* "Lee", or "Lee +2" for three customers; "" if no job */
	char *services;      /* job titles joined with ", " */
	int64_t est_minutes; /* sum over the visit's links */
};

/* A visit's states, each stored as the word visit_state_word gives; its
 * legal moves are visit_states' (visit-state.c), which the schema's
 * status_transition rows for 'appointment' mirror (states_agree). */
enum visit_state {
	VISIT_SCHEDULED,
	VISIT_CONFIRMED,
	VISIT_IN_PROGRESS,
	VISIT_DONE,
	VISIT_CANCELLED,
	VISIT_NO_SHOW,
	VISIT_STATES /* no state of ours: a word visit_state_of does not know */
};

struct states;
/* visit_states - a visit's words and moves (states.h), for states_agree. */
extern const struct states visit_states;

/* visit_state_of - the state a stored word names (VISIT_STATES: none, or
 * NULL); visit_state_word - its stored word ("" for VISIT_STATES). */
enum visit_state visit_state_of(const char *word);
const char *visit_state_word(enum visit_state s);

/* visit_is_over - 1 for a finished visit: done, cancelled or no_show (the
 * states no move leaves). */
int visit_is_over(enum visit_state s);

/* For visit_add start_at and end_at are required, with start_at < end_at <=
 * start_at + VISIT_MAX_SECONDS. For visit_edit, 0 / NULL means unchanged; ""
 * clears location or note; the times after the edit must still satisfy the
 * rule. Limits: location 400 bytes, note 2000. */
struct visit_input {
	int64_t start_at, end_at;
	const char *location;
	const char *note;
};

/* visit_add - create a scheduled visit; *id_out gets its id. */
int visit_add(struct db *db, const struct visit_input *in, int64_t *id_out);
/* visit_get - fill *out, with the summary of its links (free with
 * visit_free); FD_ENOTFOUND. */
int visit_get(struct db *db, int64_t id, struct visit *out);
/* visit_edit - change the given fields of visit id, whatever its status (the
 * times of a finished visit can still be corrected). A new start without a
 * new end keeps the visit's length (the end moves with it); a new end alone
 * changes the length. */
int visit_edit(struct db *db, int64_t id, const struct visit_input *in);
/* visit_move - move visit id to start at start_at, keeping its length;
 * refused (FD_ECONFLICT) for a visit that is done, cancelled or no-show. */
int visit_move(struct db *db, int64_t id, int64_t start_at);

/* visit_parse_length - a visit's length as a person types it: "1:30" (hours
 * and minutes), "90" or "90m" (minutes), "2h", "1h30m", each may start with
 * "+". *seconds gets it; FD_EINVAL with the reason unless it is 1 minute to
 * 7 days (VISIT_MAX_SECONDS). */
int visit_parse_length(const char *text, int64_t *seconds);

/* A visit's time as a person types it on one day (the forms, and the
 * command line's time-only --end): the date, the start, and the end or the
 * length. */
struct visit_when {
	const char *date;   /* "YYYY-MM-DD", shop time */
	const char *start;  /* "HH:MM" or "H:MM" */
	const char *end;    /* "HH:MM"; NULL or "": use length */
	const char *length; /* visit_parse_length's forms, when end is not given */
	int overnight;      /* the visit runs past midnight: an end at or before
	                     * the start is on the next day */
};

/* Which part of a struct visit_when visit_when_times refused. */
enum { VISIT_WHEN_DATE = 1, VISIT_WHEN_START, VISIT_WHEN_END, VISIT_WHEN_LENGTH };

/* visit_when_times - *start and *end (UTC seconds) of w. With an end, an end
 * at or before the start is refused unless w->overnight, which puts it on
 * the next day (a same-time end then makes 24 hours); without one, the end
 * is start + length. FD_EINVAL with the reason, *bad (may be NULL) naming
 * the part (VISIT_WHEN_*). */
int visit_when_times(const struct visit_when *w, int64_t *start, int64_t *end, int *bad);
/* visit_set_status - as job_set_status, for visits. Legal: scheduled ->
 * confirmed | in_progress | cancelled | no_show, confirmed -> scheduled |
 * in_progress | cancelled | no_show, in_progress -> done. done, cancelled
 * and no_show are final. */
int visit_set_status(struct db *db, int64_t id, const char *status, const char *reason);

/* visit_close_status - the status a visit ends in without happening: a
 * no-show (no_show = 1) or a cancellation. */
const char *visit_close_status(int no_show);

/* visit_is_off - 1 for a visit that will not happen (cancelled, no-show). */
int visit_is_off(const char *status);
/* visit_list_range - every visit that overlaps [from, to) (a visit that
 * crosses midnight belongs to both days), by start time, whatever its
 * status. FD_EINVAL unless from < to. */
int visit_list_range(struct db *db, int64_t from, int64_t to,
                     int (*cb)(const struct visit *a, void *arg), void *arg);
/* visit_list_customer - every visit that works on a job of customer_id,
 * whatever its status, newest start first. */
int visit_list_customer(struct db *db, int64_t customer_id,
                        int (*cb)(const struct visit *a, void *arg), void *arg);
void visit_free(struct visit *a);

/* ---------------------------------------------------------------- links */

struct link {
	int64_t id;
	int64_t appt_id, job_id;
	int64_t est_minutes;
	char *job_title;     /* filled by link_list */
	char *customer_name; /* filled by link_list */
	int64_t customer_id;
	int64_t start_at, end_at; /* the visit's, filled by link_list */
	char appt_status[16];     /* the visit's, filled by link_list */
};

/* link_add - visit appt_id works on job job_id for est_minutes (0..100000).
 * Refused (FD_ECONFLICT) for a cancelled job or a visit that is done,
 * cancelled or no_show, and when the link exists already; FD_ENOTFOUND
 * when the visit or the job does not exist. *id_out gets the link's id. */
int link_add(struct db *db, int64_t appt_id, int64_t job_id, int64_t est_minutes, int64_t *id_out);
/* link_edit - change the estimated minutes of an existing link (same rules
 * as link_add; FD_ENOTFOUND when there is no such link). */
int link_edit(struct db *db, int64_t appt_id, int64_t job_id, int64_t est_minutes);
/* link_remove - the visit no longer works on the job. Refused
 * (FD_ECONFLICT) once the visit is done, cancelled or no_show: what a
 * finished visit served stays on record. Allowed for a cancelled job. */
int link_remove(struct db *db, int64_t appt_id, int64_t job_id);
/* link_list - links of visit appt_id (or, with appt_id 0, of job job_id),
 * in the order they were made (for a job: by the visits' start times). */
int link_list(struct db *db, int64_t appt_id, int64_t job_id,
              int (*cb)(const struct link *l, void *arg), void *arg);
void link_free(struct link *l);

#endif
