/*
 * visit.c - visits (when and where only) and the links that say which jobs a
 * visit works on, with estimated minutes (see visit.h).
 *
 * Invariants (the whole work domain): every write checks what it can of its
 * input before its transaction starts, and what needs the database inside
 * that transaction before its first write; a refusal rolls back, so a
 * refused request changes nothing. Shared helpers: work-int.h.
 *
 * Permissions: adding, editing, moving a visit and its links ask booking;
 * its status asks visit.work to start or finish it, booking for any other
 * move; first in the transaction.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "announce.h"
#include "capacity.h"
#include "clock.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "job.h"
#include "money.h"
#include "retention-mod.h"
#include "settings.h"
#include "states.h"
#include "strbuf.h"
#include "text.h"
#include "visit.h"
#include "work-int.h"
#include "xalloc.h"

/* ---------------------------------------------------------------- visits */

const struct machine wk_visit_machine = {
    &visit_states,
    "SELECT status FROM appointment WHERE id = ?1",
    "UPDATE appointment SET status = ?1, updated_at = ?2 WHERE id = ?3",
    0,
};

/* A visit with the summary of the jobs it works on, in the order they were
 * linked: the first customer's name and "+N" for N more customers, the job
 * titles, the estimated minutes. */
#define VISIT_SELECT                                                                               \
	"SELECT a.id, a.start_at, a.end_at, a.location, a.status, a.note, a.created_at,"           \
	" a.updated_at,"                                                                           \
	" coalesce((SELECT c.name FROM appointment_work w"                                         \
	"   JOIN service_order j ON j.id = w.service_order_id"                                     \
	"   JOIN customer c ON c.id = j.customer_id"                                               \
	"   WHERE w.appointment_id = a.id ORDER BY w.id LIMIT 1)"                                  \
	"  || (SELECT CASE WHEN count(DISTINCT j.customer_id) > 1"                                 \
	"       THEN ' +' || (count(DISTINCT j.customer_id) - 1) ELSE '' END"                      \
	"     FROM appointment_work w JOIN service_order j ON j.id = w.service_order_id"           \
	"     WHERE w.appointment_id = a.id), ''),"                                                \
	" coalesce((SELECT group_concat(title, ', ') FROM (SELECT j.title"                         \
	"   FROM appointment_work w JOIN service_order j ON j.id = w.service_order_id"             \
	"   WHERE w.appointment_id = a.id ORDER BY w.id)), ''),"                                   \
	" (SELECT coalesce(sum(est_minutes), 0) FROM appointment_work"                             \
	"   WHERE appointment_id = a.id)"                                                          \
	" FROM appointment a"

struct visit_iter {
	int (*cb)(const struct visit *a, void *arg);
	void *arg;
	struct visit *out; /* visit_get: the row is handed over here */
};

static int visit_row(sqlite3_stmt *st, void *p)
{
	struct visit_iter *it = p;
	struct visit a;
	int rc;

	memset(&a, 0, sizeof a);
	a.id = sqlite3_column_int64(st, 0);
	a.start_at = sqlite3_column_int64(st, 1);
	a.end_at = sqlite3_column_int64(st, 2);
	a.location = dbrow_dup(st, 3);
	dbrow_copy(st, 4, a.status, sizeof a.status);
	a.note = dbrow_dup(st, 5);
	a.created_at = sqlite3_column_int64(st, 6);
	a.updated_at = sqlite3_column_int64(st, 7);
	a.customers = dbrow_dup(st, 8);
	a.services = dbrow_dup(st, 9);
	a.est_minutes = sqlite3_column_int64(st, 10);
	if (it->out) {
		*it->out = a;
		return 0;
	}
	rc = it->cb(&a, it->arg);
	visit_free(&a);
	return rc;
}

void visit_free(struct visit *a)
{
	free(a->location);
	free(a->note);
	free(a->customers);
	free(a->services);
	memset(a, 0, sizeof *a);
}

int visit_get(struct db *db, int64_t id, struct visit *out)
{
	struct visit_iter it = {NULL, NULL, out};
	sqlite3_stmt *st;
	int64_t n = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = wk_prep(db, VISIT_SELECT " WHERE a.id = ?1", &st, id, 0)) ||
	    (rc = wk_each_row(db, st, visit_row, &it, _("cannot read the visit"), &n)))
		return rc;
	return n ? 0 : wk_not_found(&wk_visit_machine, id);
}

int visit_list_range(struct db *db, int64_t from, int64_t to,
                     int (*cb)(const struct visit *a, void *arg), void *arg)
{
	struct visit_iter it = {cb, arg, NULL};
	sqlite3_stmt *st;
	int rc;

	if (from >= to)
		return err_set(FD_EINVAL, _("the end of the range must come after its start"));
	/* no visit is longer than VISIT_MAX_SECONDS, so the index on start_at
	 * bounds the scan on both sides */
	rc = wk_prep(db,
	             VISIT_SELECT " WHERE a.start_at < ?2 AND a.end_at > ?1 AND a.start_at >= ?3"
	                          " ORDER BY a.start_at, a.id",
	             &st, from, to);
	if (rc)
		return rc;
	sqlite3_bind_int64(
	    st, 3, from > INT64_MIN + VISIT_MAX_SECONDS ? from - VISIT_MAX_SECONDS : INT64_MIN);
	return wk_each_row(db, st, visit_row, &it, _("cannot list visits"), NULL);
}

int visit_list_customer(struct db *db, int64_t customer_id,
                        int (*cb)(const struct visit *a, void *arg), void *arg)
{
	struct visit_iter it = {cb, arg, NULL};
	sqlite3_stmt *st;
	int rc;

	/* the customer's jobs (service_order_by_customer), their links
	 * (appointment_work_by_job), the visits by id */
	rc = wk_prep(db,
	             VISIT_SELECT " WHERE a.id IN (SELECT w.appointment_id FROM appointment_work w"
	                          " JOIN service_order j ON j.id = w.service_order_id"
	                          " WHERE j.customer_id = ?1)"
	                          " ORDER BY a.start_at DESC, a.id DESC",
	             &st, customer_id, 0);
	if (rc)
		return rc;
	return wk_each_row(db, st, visit_row, &it, _("cannot list visits"), NULL);
}

/* FD_EINVAL unless a visit may run from start to end. */
static int check_times(int64_t start, int64_t end)
{
	char s[32], e[32];

	if (start <= 0 || end <= 0)
		return err_set(FD_EINVAL, _("the visit needs a start and an end time"));
	clock_format_local(start, "%Y-%m-%d %H:%M", s, sizeof s);
	clock_format_local(end, "%Y-%m-%d %H:%M", e, sizeof e);
	if (end <= start)
		return err_set(FD_EINVAL,
		               _("the visit must end after it starts (%s is not after %s)"), e, s);
	if (end - start > VISIT_MAX_SECONDS)
		return err_set(FD_EINVAL,
		               _("a visit lasts at most 7 days (%s to %s is longer); "
		                 "book longer work as several visits of one job"),
		               s, e);
	return 0;
}

static int check_visit_input(const struct visit_input *in, int adding)
{
	int rc;

	if (adding && (rc = check_times(in->start_at, in->end_at)))
		return rc;
	if (in->start_at < 0 || in->end_at < 0)
		return err_set(FD_EINVAL, _("the visit needs a start and an end time"));
	if (in->location && (rc = text_check(in->location, _("the location"), TEXT_MAX, 1)))
		return rc;
	if (in->note && (rc = text_check(in->note, _("the note"), NOTE_MAX, 1)))
		return rc;
	return 0;
}

struct visit_ctx {
	int64_t id;
	const struct visit_input *in;
	int moving; /* visit_move: refused for a finished visit */
};

static int visit_add_tx(struct db *db, void *arg)
{
	struct visit_ctx *a = arg;
	sqlite3_stmt *st;
	int rc;

	if ((rc = control_require(db, PERM_BOOKING, 0, "add a visit")))
		return rc;
	rc = db_prepare(db,
	                "INSERT INTO appointment (start_at, end_at, location, note, created_at,"
	                " updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, a->in->start_at);
	sqlite3_bind_int64(st, 2, a->in->end_at);
	wk_bind_opt(st, 3, a->in->location);
	wk_bind_opt(st, 4, a->in->note);
	sqlite3_bind_int64(st, 5, clock_now());
	if ((rc = db_run(db, st, _("cannot add the visit"))))
		return rc;
	a->id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

int visit_add(struct db *db, const struct visit_input *in, int64_t *id_out)
{
	struct visit_ctx a = {0, in, 0};
	int rc;

	if ((rc = check_visit_input(in, 1)) || (rc = db_write(db, visit_add_tx, &a)))
		return rc;
	*id_out = a.id;
	return 0;
}

static int visit_edit_tx(struct db *db, void *arg)
{
	struct visit_ctx *e = arg;
	struct visit old;
	sqlite3_stmt *st;
	int64_t start, end, old_start;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "%s visit %lld", e->moving ? "move" : "edit",
	         (long long)e->id);
	if ((rc = control_require(db, PERM_BOOKING, 0, subject)))
		return rc;
	if ((rc = visit_get(db, e->id, &old)))
		return rc;
	old_start = old.start_at;
	start = e->in->start_at ? e->in->start_at : old.start_at;
	/* a new start alone keeps the length: the end moves with it */
	end = e->in->end_at                                  ? e->in->end_at
	      : e->in->start_at && old.end_at > old.start_at ? start + (old.end_at - old.start_at)
	                                                     : old.end_at;
	if (e->moving && visit_is_over(visit_state_of(old.status)))
		rc = err_set(FD_ECONFLICT,
		             _("visit %lld is %s: a finished visit is not moved (its times can "
		               "still be corrected with edit)"),
		             (long long)e->id, old.status);
	else
		rc = check_times(start, end);
	visit_free(&old);
	if (rc)
		return rc;
	/* 0 / NULL keeps the old value; '' clears location or note */
	rc = db_prepare(db,
	                "UPDATE appointment SET"
	                " start_at = CASE WHEN ?1 = 0 THEN start_at ELSE ?1 END,"
	                " end_at = CASE WHEN ?2 = 0 THEN end_at ELSE ?2 END,"
	                " location = CASE WHEN ?3 IS NULL THEN location ELSE nullif(?3, '') END,"
	                " note = CASE WHEN ?4 IS NULL THEN note ELSE nullif(?4, '') END,"
	                " updated_at = ?5 WHERE id = ?6",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, start);
	sqlite3_bind_int64(st, 2, end);
	wk_bind_text(st, 3, e->in->location);
	wk_bind_text(st, 4, e->in->note);
	sqlite3_bind_int64(st, 5, clock_now());
	sqlite3_bind_int64(st, 6, e->id);
	if ((rc = db_run(db, st, _("cannot change the visit"))))
		return rc;
	/* the resources it holds move with it, or the change is refused */
	if ((rc = capacity_follow(db, e->id)))
		return rc;
	/* whoever follows visits (the booking channels: the days' free slots) */
	return announce(db, &(struct announcement){ANNOUNCE_VISIT_CHANGED, e->id, old_start});
}

int visit_edit(struct db *db, int64_t id, const struct visit_input *in)
{
	struct visit_ctx e = {id, in, 0};
	int rc;

	if ((rc = check_visit_input(in, 0)))
		return rc;
	if (!in->start_at && !in->end_at && !in->location && !in->note)
		return err_set(FD_EINVAL, _("nothing to change: give at least one field"));
	return db_write(db, visit_edit_tx, &e);
}

int visit_move(struct db *db, int64_t id, int64_t start_at)
{
	struct visit_input in = {0};
	struct visit_ctx e = {id, &in, 1};

	if (start_at <= 0)
		return err_set(FD_EINVAL, "%s", _("the visit needs a start time"));
	in.start_at = start_at;
	return db_write(db, visit_edit_tx, &e);
}

/* The number a length starts with, after spaces and an optional '+': 0
 * with *v (at most 100000) and *end after its digits, FD_EINVAL (not
 * said: the caller says it) when there is none or it is too large. */
static int length_lead(const char *text, long long *v, char **end)
{
	const char *p = text ? text : "";

	while (*p == ' ')
		p++;
	if (*p == '+')
		p++;
	if (*p < '0' || *p > '9')
		return FD_EINVAL;
	errno = 0;
	*v = strtoll(p, end, 10);
	return errno || *v > 100000 ? FD_EINVAL : 0;
}

/* The minutes after "H:": exactly two digits, 00 to 59; *end after them.
 * FD_EINVAL (not said) otherwise. */
static int length_after_colon(const char *p, long long *m, char **end)
{
	if (p[0] < '0' || p[0] > '5' || p[1] < '0' || p[1] > '9')
		return FD_EINVAL;
	*m = (p[0] - '0') * 10 + (p[1] - '0');
	*end = (char *)p + 2;
	return 0;
}

/* The minutes after "Hh": none, or up to 59 with an optional 'm'; *end
 * after them. FD_EINVAL (not said) above 59. */
static int length_after_hours(const char *p, long long *m, char **end)
{
	if (*p < '0' || *p > '9') {
		*end = (char *)p;
		return 0;
	}
	*m = strtoll(p, end, 10);
	if (*m > 59)
		return FD_EINVAL;
	if (**end == 'm' || **end == 'M')
		(*end)++;
	return 0;
}

/* Past the unit of a number of minutes: "m", "M", "min" or none. */
static char *length_minutes_unit(char *end)
{
	if (*end == 'm' || *end == 'M')
		return end + 1;
	if (!strncmp(end, "min", 3))
		return end + 3;
	return end;
}

/* Minutes (and hours) of a length: "1:30", "90", "90m", "2h", "1h30m". */
int visit_parse_length(const char *text, int64_t *seconds)
{
	long long h = 0, m = 0, v;
	char *end;

	if (length_lead(text, &v, &end))
		goto bad;
	if (*end == ':') {
		h = v;
		if (length_after_colon(end + 1, &m, &end))
			goto bad;
	} else if (*end == 'h' || *end == 'H') {
		h = v;
		if (length_after_hours(end + 1, &m, &end))
			goto bad;
	} else {
		m = v;
		end = length_minutes_unit(end);
	}
	while (*end == ' ')
		end++;
	if (*end)
		goto bad;
	v = h * 3600 + m * 60;
	if (v < 60 || v > VISIT_MAX_SECONDS)
		return err_set(FD_EINVAL,
		               _("a visit lasts from 1 minute to 7 days ('%.40s' is outside)"),
		               text);
	*seconds = v;
	return 0;
bad:
	return err_set(FD_EINVAL,
	               _("'%.40s' is not a length: write hours and minutes (1:30) or minutes "
	                 "(+90m)"),
	               text ? text : "");
}

/* The time of day "H:MM" or "HH:MM" on date, shop time. */
static int day_time(const char *date, const char *hhmm, int64_t *out)
{
	char buf[40];
	size_t n = hhmm ? strlen(hhmm) : 0;

	if (n == 4 && hhmm[1] == ':')
		snprintf(buf, sizeof buf, "%.10s 0%s", date, hhmm);
	else if (n == 5 && hhmm[2] == ':')
		snprintf(buf, sizeof buf, "%.10s %s", date, hhmm);
	else
		return err_set(FD_EINVAL, _("'%.40s' is not a time of day: write HH:MM"),
		               hhmm ? hhmm : "");
	if (strlen(date) != 10 || clock_parse_local(buf, out))
		return err_set(FD_EINVAL, _("'%.40s' is not a time of day: write HH:MM"), hhmm);
	return 0;
}

int visit_when_times(const struct visit_when *w, int64_t *start, int64_t *end, int *bad)
{
	int64_t s, e, len;
	int dummy;

	if (!bad)
		bad = &dummy;
	*bad = VISIT_WHEN_DATE;
	if (!w->date || strlen(w->date) != 10 || clock_parse_local(w->date, &s))
		return err_set(FD_EINVAL, _("'%.40s' is not a date: write YYYY-MM-DD"),
		               w->date ? w->date : "");
	*bad = VISIT_WHEN_START;
	if (day_time(w->date, w->start, &s))
		return FD_EINVAL;
	if (w->end && *w->end) {
		*bad = VISIT_WHEN_END;
		if (day_time(w->date, w->end, &e))
			return FD_EINVAL;
		if (e <= s) {
			if (!w->overnight)
				return err_set(
				    FD_EINVAL,
				    _("the end %s is not after the start %s: mark the visit as "
				      "running overnight, or give its length"),
				    w->end, w->start);
			e = clock_add_days(e, 1);
		}
	} else {
		*bad = VISIT_WHEN_LENGTH;
		if (visit_parse_length(w->length, &len))
			return FD_EINVAL;
		e = s + len;
	}
	if (check_times(s, e))
		return FD_EINVAL;
	*bad = 0;
	*start = s;
	*end = e;
	return 0;
}

struct visit_status_ctx {
	int64_t id;
	const char *status, *reason;
};

static int visit_status_tx(struct db *db, void *arg)
{
	struct visit_status_ctx *x = arg;
	enum visit_state to = visit_state_of(x->status);
	char subject[80];
	int rc = 0;

	/* the work itself (start, finish) is a technician's, on their own
	 * visits (who may book: on every one); any other move (confirm,
	 * cancel, no-show) is the booking's */
	snprintf(subject, sizeof subject, "set visit %lld to %.16s", (long long)x->id, x->status);
	rc = to == VISIT_IN_PROGRESS || to == VISIT_DONE
	         ? control_require_own_visit(db, x->id, subject)
	         : control_require(db, PERM_BOOKING, 0, subject);
	if (rc)
		return rc;
	/* whoever may keep a visit from starting is asked first (e-sign, when
	 * esign_require_authorised is on: no work starts on a job nobody
	 * signed for) */
	if (visit_state_of(x->status) == VISIT_IN_PROGRESS)
		rc = announce(db, &(struct announcement){ANNOUNCE_VISIT_STARTING, x->id, 0});
	if (!rc)
		rc = wk_set_status(db, &wk_visit_machine, x->id, x->status, x->reason);

	/* a cancelled or no-show visit frees its resources, a visit done is
	 * over: whoever follows visits is told (the booking channels: the day's
	 * free slots, and the request that made the visit) */
	if (!rc && visit_is_over(visit_state_of(x->status)))
		rc = announce(db, &(struct announcement){ANNOUNCE_VISIT_CHANGED, x->id, 0});
	return rc;
}

const char *visit_close_status(int no_show)
{
	return visit_state_word(no_show ? VISIT_NO_SHOW : VISIT_CANCELLED);
}

int visit_set_status(struct db *db, int64_t id, const char *status, const char *reason)
{
	struct visit_status_ctx x = {id, status, reason};

	if (!status)
		return wk_set_status(db, &wk_visit_machine, id, status, reason);
	return db_write(db, visit_status_tx, &x);
}

/* ---------------------------------------------------------------- links */

#define LINK_SELECT                                                                                \
	"SELECT w.id, w.appointment_id, w.service_order_id, w.est_minutes, j.title, c.name,"       \
	" j.customer_id, a.start_at, a.end_at, a.status"                                           \
	" FROM appointment_work w JOIN service_order j ON j.id = w.service_order_id"               \
	" JOIN customer c ON c.id = j.customer_id"                                                 \
	" JOIN appointment a ON a.id = w.appointment_id"

struct link_iter {
	int (*cb)(const struct link *l, void *arg);
	void *arg;
};

static int link_row(sqlite3_stmt *st, void *p)
{
	struct link_iter *it = p;
	struct link l;
	int rc;

	memset(&l, 0, sizeof l);
	l.id = sqlite3_column_int64(st, 0);
	l.appt_id = sqlite3_column_int64(st, 1);
	l.job_id = sqlite3_column_int64(st, 2);
	l.est_minutes = sqlite3_column_int64(st, 3);
	l.job_title = dbrow_dup(st, 4);
	l.customer_name = dbrow_dup(st, 5);
	l.customer_id = sqlite3_column_int64(st, 6);
	l.start_at = sqlite3_column_int64(st, 7);
	l.end_at = sqlite3_column_int64(st, 8);
	dbrow_copy(st, 9, l.appt_status, sizeof l.appt_status);
	rc = it->cb(&l, it->arg);
	link_free(&l);
	return rc;
}

void link_free(struct link *l)
{
	free(l->job_title);
	free(l->customer_name);
	memset(l, 0, sizeof *l);
}

int link_list(struct db *db, int64_t appt_id, int64_t job_id,
              int (*cb)(const struct link *l, void *arg), void *arg)
{
	struct link_iter it = {cb, arg};
	sqlite3_stmt *st;
	int rc;

	if (appt_id <= 0 && job_id <= 0)
		return err_set(FD_EINVAL, _("name a visit or a job"));
	rc = wk_prep(db,
	             appt_id > 0 ? LINK_SELECT " WHERE w.appointment_id = ?1 ORDER BY w.id"
	                         : LINK_SELECT " WHERE w.service_order_id = ?2"
	                                       " ORDER BY a.start_at, w.id",
	             &st, appt_id, job_id);
	return rc ? rc : wk_each_row(db, st, link_row, &it, _("cannot list links"), NULL);
}

enum link_op { LINK_ADD, LINK_EDIT, LINK_REMOVE };

struct link_ctx {
	enum link_op op;
	int64_t appt_id, job_id, minutes;
	int64_t id; /* the link's, once known */
};

/* Everything a link change needs checked, in the order a person would fix
 * it: both records exist, the link does (or does not) exist, states allow. */
static int link_check(struct db *db, struct link_ctx *l)
{
	char appt_status[16], job_status[16];
	int found, rc;

	if ((rc = wk_read_status(db, &wk_visit_machine, l->appt_id, appt_status)) ||
	    (rc = wk_read_status(db, &wk_job_machine, l->job_id, job_status)) ||
	    (rc = wk_query_int(db,
	                       "SELECT id FROM appointment_work"
	                       " WHERE appointment_id = ?1 AND service_order_id = ?2",
	                       l->appt_id, l->job_id, &l->id, &found)))
		return rc;
	if (l->op == LINK_ADD && found)
		return err_set(FD_ECONFLICT,
		               _("visit %lld already works on job %lld; "
		                 "change its minutes with 'link edit'"),
		               (long long)l->appt_id, (long long)l->job_id);
	if (l->op != LINK_ADD && !found)
		return err_set(FD_ENOTFOUND, _("visit %lld does not work on job %lld"),
		               (long long)l->appt_id, (long long)l->job_id);
	if (visit_is_over(visit_state_of(appt_status)))
		return err_set(FD_ECONFLICT,
		               _("visit %lld is %s: the jobs it worked on can no longer change"),
		               (long long)l->appt_id, appt_status);
	if (l->op != LINK_REMOVE && job_state_of(job_status) == JOB_CANCELLED)
		return err_set(FD_ECONFLICT, _("job %lld is cancelled: no visit can work on it"),
		               (long long)l->job_id);
	return 0;
}

static int link_tx(struct db *db, void *arg)
{
	static const char *const sql[] = {
	    [LINK_ADD] = "INSERT INTO appointment_work (appointment_id, service_order_id,"
	                 " est_minutes, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)",
	    [LINK_EDIT] = "UPDATE appointment_work SET est_minutes = ?3, updated_at = ?4"
	                  " WHERE appointment_id = ?1 AND service_order_id = ?2",
	    [LINK_REMOVE] = "DELETE FROM appointment_work"
	                    " WHERE appointment_id = ?1 AND service_order_id = ?2",
	};
	static const char *const what[] = {
	    [LINK_ADD] = "link", [LINK_EDIT] = "change the link of", [LINK_REMOVE] = "unlink"};
	struct link_ctx *l = arg;
	sqlite3_stmt *st;
	char subject[96];
	int rc;

	snprintf(subject, sizeof subject, "%s visit %lld and job %lld", what[l->op],
	         (long long)l->appt_id, (long long)l->job_id);
	if ((rc = control_require(db, PERM_BOOKING, 0, subject)))
		return rc;
	if ((rc = link_check(db, l)) || (rc = wk_prep(db, sql[l->op], &st, l->appt_id, l->job_id)))
		return rc;
	if (l->op != LINK_REMOVE) {
		sqlite3_bind_int64(st, 3, l->minutes);
		sqlite3_bind_int64(st, 4, clock_now());
	}
	if ((rc = db_run(db, st, _("cannot change the link"))))
		return rc;
	if (l->op == LINK_ADD)
		l->id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

static int link_write(struct db *db, enum link_op op, int64_t appt_id, int64_t job_id,
                      int64_t minutes, int64_t *id_out)
{
	struct link_ctx l = {op, appt_id, job_id, minutes, 0};
	int rc;

	if (op != LINK_REMOVE && (minutes < 0 || minutes > MINUTES_MAX))
		return err_set(FD_EINVAL, _("the estimated minutes must be between 0 and %d"),
		               MINUTES_MAX);
	if ((rc = db_write(db, link_tx, &l)))
		return rc;
	if (id_out)
		*id_out = l.id;
	return 0;
}

int link_add(struct db *db, int64_t appt_id, int64_t job_id, int64_t est_minutes, int64_t *id_out)
{
	return link_write(db, LINK_ADD, appt_id, job_id, est_minutes, id_out);
}

int link_edit(struct db *db, int64_t appt_id, int64_t job_id, int64_t est_minutes)
{
	return link_write(db, LINK_EDIT, appt_id, job_id, est_minutes, NULL);
}

int link_remove(struct db *db, int64_t appt_id, int64_t job_id)
{
	return link_write(db, LINK_REMOVE, appt_id, job_id, 0, NULL);
}

/* ---------------------------------------------------------------- retention */

/* The visits that work on the customer's jobs only: a visit shared with
 * another customer's job keeps its place and note. */
#define OWN_VISITS                                                                                 \
	"SELECT w.appointment_id FROM appointment_work w"                                          \
	" JOIN service_order s ON s.id = w.service_order_id WHERE s.customer_id = ?1"              \
	" AND NOT EXISTS (SELECT 1 FROM appointment_work w2"                                       \
	"  JOIN service_order s2 ON s2.id = w2.service_order_id"                                   \
	"  WHERE w2.appointment_id = w.appointment_id AND s2.customer_id IS NOT ?1)"

int visit_retention_blocker(struct db *db, int64_t customer_id, char *why, size_t n)
{
	char id[32];
	int rc;

	rc = retention_first(db,
	                     "SELECT a.id FROM service_order s"
	                     " JOIN appointment_work w ON w.service_order_id = s.id"
	                     " JOIN appointment a ON a.id = w.appointment_id"
	                     " WHERE s.customer_id = ?1"
	                     " AND " RETENTION_VISIT_OPEN " ORDER BY a.start_at LIMIT 1",
	                     customer_id, id, sizeof id);
	if (rc == 1)
		snprintf(why, n, _("visit %s is still open (scheduled, confirmed or in progress)"),
		         id);
	return rc;
}

int visit_retention_purge(struct db *db, struct retention_purge_ctx *c)
{
	static const struct retention_stmt v[] = {
	    {"UPDATE appointment SET location = NULL, note = NULL WHERE id IN (" OWN_VISITS ")"
	     " AND (location IS NOT NULL OR note IS NOT NULL)",
	     N_("cannot clear the visits")},
	    {"UPDATE appointment_his SET location = NULL, note = NULL WHERE id IN (" OWN_VISITS ")"
	     " AND (location IS NOT NULL OR note IS NOT NULL)",
	     N_("cannot clear the visits' history")},
	    {"UPDATE status_flow SET reason = NULL WHERE entity = 'appointment'"
	     " AND reason IS NOT NULL AND entity_id IN (" OWN_VISITS ")",
	     N_("cannot clear the visits' status reasons")},
	};

	return retention_exec_all(db, v, sizeof v / sizeof v[0], c->customer_id);
}
