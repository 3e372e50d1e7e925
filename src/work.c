/*
 * work.c - jobs, visits, the links between them and line items (see work.h).
 *
 * Invariants: every write checks what it can of its input (text, ranges,
 * kinds, amounts) before its transaction starts, and what needs the database
 * (existence, status, duplicates, the job's line items) inside that
 * transaction before its first write; a refusal rolls back, so a refused
 * request changes nothing. Status changes are checked here against
 * status_transition so that the refusal can say what is allowed; the
 * schema's triggers refuse illegal ones as well and write the status flow
 * with the reason handed over through db_set_reason(). Line item amounts are
 * computed here (money_line_amount) and stored with the item.
 *
 * Reading follows one shape: a SELECT ..._SELECT statement, each_row() to
 * step it, and one <type>_row() adapter per type that fills the struct and
 * either hands it to a *_get caller or passes it to a list callback.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clock.h"
#include "config.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "money.h"
#include "strbuf.h"
#include "text.h"
#include "work.h"
#include "xalloc.h"

#define TITLE_MAX 200
#define NOTE_MAX 2000
#define TEXT_MAX 400 /* location, description, status reason */
#define MINUTES_MAX 100000
#define QTY_MAX ((int64_t)1000000000) /* thousandths: a million units */

/* ---------------------------------------------------------------- helpers */


/* Copy a text column into a fixed buffer (statuses, kinds, currencies). */

/* Bind text; NULL binds NULL ("unchanged" in the edit statements). */
static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

/* Bind text, or NULL for NULL and "" (an optional field left empty). */
static void bind_opt(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		bind_text(st, i, s);
	else
		sqlite3_bind_null(st, i);
}

/* Prepare sql and bind ?1 = a and ?2 = b as far as the statement has them;
 * the caller binds any further parameters. */
static int prep(struct db *db, const char *sql, sqlite3_stmt **st, int64_t a, int64_t b)
{
	int rc = db_prepare(db, sql, st), n;

	if (rc)
		return rc;
	n = sqlite3_bind_parameter_count(*st);
	if (n >= 1)
		sqlite3_bind_int64(*st, 1, a);
	if (n >= 2)
		sqlite3_bind_int64(*st, 2, b);
	return 0;
}

/* Step st to its end, calling row(st, ctx) for every row until one returns
 * non-zero, which is then returned; st is always finalized. *n (may be NULL)
 * gets the number of rows seen. A SQLite error becomes db_fail(db, what). */
static int each_row(struct db *db, sqlite3_stmt *st, int (*row)(sqlite3_stmt *st, void *ctx),
		    void *ctx, const char *what, int64_t *n)
{
	int64_t count = 0;
	int rc = 0, step;

	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		count++;
		if ((rc = row(st, ctx)))
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, what);
	sqlite3_finalize(st);
	if (n)
		*n = count;
	return rc;
}

/* The first column of the first row of sql (?1 = a, ?2 = b) in *out, or
 * *found = 0 when there is no row. */
static int query_int(struct db *db, const char *sql, int64_t a, int64_t b, int64_t *out,
		     int *found)
{
	sqlite3_stmt *st;
	int rc = prep(db, sql, &st, a, b), step;

	if (rc)
		return rc;
	*found = 0;
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		*found = 1;
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("database error"));
	}
	sqlite3_finalize(st);
	return rc;
}

static const char *opt_or_null(const char *s)
{
	return s && *s ? s : NULL;
}

/* ---------------------------------------------------------------- statuses */

/* One status machine: the legal changes are rows of status_transition. */
struct machine {
	const char *entity;     /* status_transition.entity */
	const char *read_sql;   /* ?1 = id -> status */
	const char *update_sql; /* ?1 = status, ?2 = now, ?3 = id */
	const char *const *states;
};

static const char *const job_states[] = { "open", "in_progress", "done", "cancelled", NULL };
static const char *const appt_states[] = { "scheduled", "confirmed", "in_progress",
					   "done",      "cancelled", "no_show",     NULL };

static const struct machine job_machine = {
	"job",
	"SELECT status FROM service_order WHERE id = ?1",
	"UPDATE service_order SET status = ?1, updated_at = ?2 WHERE id = ?3",
	job_states,
};

static const struct machine appt_machine = {
	"appointment",
	"SELECT status FROM appointment WHERE id = ?1",
	"UPDATE appointment SET status = ?1, updated_at = ?2 WHERE id = ?3",
	appt_states,
};

static int not_found(const struct machine *m, int64_t id)
{
	return err_set(FD_ENOTFOUND, m == &job_machine ? _("there is no job %lld")
						       : _("there is no visit %lld"),
		       (long long)id);
}

/* FD_EINVAL unless status is one of m's statuses. */
static int check_status_name(const struct machine *m, const char *status)
{
	struct strbuf all = { 0 };
	int i;

	for (i = 0; status && m->states[i]; i++)
		if (!strcmp(status, m->states[i]))
			return 0;
	for (i = 0; m->states[i]; i++)
		sb_printf(&all, "%s%s", i ? ", " : "", m->states[i]);
	if (m == &job_machine)
		err_set(FD_EINVAL, _("'%.40s' is not a job status: use one of %s"),
			status ? status : "", sb_cstr(&all));
	else
		err_set(FD_EINVAL, _("'%.40s' is not a visit status: use one of %s"),
			status ? status : "", sb_cstr(&all));
	sb_free(&all);
	return FD_EINVAL;
}

/* The current status of record id of machine m (FD_ENOTFOUND if none). */
static int read_status(struct db *db, const struct machine *m, int64_t id, char out[16])
{
	sqlite3_stmt *st;
	int rc = prep(db, m->read_sql, &st, id, 0), step;

	if (rc)
		return rc;
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		dbrow_copy(st, 0, out, 16);
	else if (step == SQLITE_DONE)
		rc = not_found(m, id);
	else
		rc = db_fail(db, _("cannot read the status"));
	sqlite3_finalize(st);
	return rc;
}

struct allowed {
	const char *to;
	int found;
	struct strbuf list; /* every status reachable from the current one */
};

static int allowed_row(sqlite3_stmt *st, void *p)
{
	struct allowed *a = p;
	const char *s = (const char *)sqlite3_column_text(st, 0);

	if (!strcmp(s, a->to))
		a->found = 1;
	sb_printf(&a->list, "%s%s", a->list.len ? ", " : "", s);
	return 0;
}

/* FD_ECONFLICT, saying what is allowed, unless m may go from `from` to `to`. */
static int check_transition(struct db *db, const struct machine *m, int64_t id, const char *from,
			    const char *to)
{
	struct allowed a = { to, 0, { 0 } };
	sqlite3_stmt *st;
	int job = m == &job_machine, rc;

	if (!strcmp(from, to))
		return err_set(FD_ECONFLICT, job ? _("job %lld is already %s")
						 : _("visit %lld is already %s"),
			       (long long)id, to);
	rc = db_prepare(db,
			"SELECT to_status FROM status_transition"
			" WHERE entity = ?1 AND from_status = ?2 ORDER BY to_status",
			&st);
	if (rc)
		return rc;
	bind_text(st, 1, m->entity);
	bind_text(st, 2, from);
	rc = each_row(db, st, allowed_row, &a, _("cannot read the status rules"), NULL);
	if (!rc && !a.found && a.list.len == 0)
		rc = err_set(FD_ECONFLICT,
			     job ? _("job %lld is %s, which is final: its status cannot change")
				 : _("visit %lld is %s, which is final: its status cannot change"),
			     (long long)id, from);
	else if (!rc && !a.found)
		rc = err_set(FD_ECONFLICT,
			     job ? _("job %lld cannot go from %s to %s; from %s it can go to: %s")
				 : _("visit %lld cannot go from %s to %s; "
				     "from %s it can go to: %s"),
			     (long long)id, from, to, from, sb_cstr(&a.list));
	sb_free(&a.list);
	return rc;
}

struct status_ctx {
	const struct machine *m;
	int64_t id;
	const char *status, *reason;
};

static int status_tx(struct db *db, void *arg)
{
	struct status_ctx *s = arg;
	char from[16];
	sqlite3_stmt *st;
	int rc;

	if ((rc = read_status(db, s->m, s->id, from)) ||
	    (rc = check_transition(db, s->m, s->id, from, s->status)))
		return rc;
	if ((rc = db_prepare(db, s->m->update_sql, &st)))
		return rc;
	bind_text(st, 1, s->status);
	sqlite3_bind_int64(st, 2, clock_now());
	sqlite3_bind_int64(st, 3, s->id);
	/* the status flow trigger reads the reason through fd_reason() */
	db_set_reason(db, s->reason);
	rc = db_run(db, st, _("cannot change the status"));
	db_set_reason(db, NULL);
	return rc;
}

static int set_status(struct db *db, const struct machine *m, int64_t id, const char *status,
		      const char *reason)
{
	struct status_ctx s = { m, id, status, opt_or_null(reason) };
	int rc;

	if ((rc = check_status_name(m, status)))
		return rc;
	if (reason && (rc = text_check(reason, _("the reason"), TEXT_MAX, 1)))
		return rc;
	return db_write(db, status_tx, &s);
}

/* ---------------------------------------------------------------- jobs */

#define JOB_SELECT                                                                         \
	"SELECT j.id, j.customer_id, c.name, j.title, j.status, j.currency, j.note,"       \
	" j.created_at, j.updated_at"                                                      \
	" FROM service_order j JOIN customer c ON c.id = j.customer_id"

struct job_iter {
	int (*cb)(const struct job *j, void *arg);
	void *arg;
	struct job *out; /* job_get: the row is handed over here */
};

static int job_row(sqlite3_stmt *st, void *p)
{
	struct job_iter *it = p;
	struct job j;
	int rc;

	memset(&j, 0, sizeof j);
	j.id = sqlite3_column_int64(st, 0);
	j.customer_id = sqlite3_column_int64(st, 1);
	j.customer_name = dbrow_dup(st, 2);
	j.title = dbrow_dup(st, 3);
	dbrow_copy(st, 4, j.status, sizeof j.status);
	dbrow_copy(st, 5, j.currency, sizeof j.currency);
	j.note = dbrow_dup(st, 6);
	j.created_at = sqlite3_column_int64(st, 7);
	j.updated_at = sqlite3_column_int64(st, 8);
	if (it->out) {
		*it->out = j;
		return 0;
	}
	rc = it->cb(&j, it->arg);
	job_free(&j);
	return rc;
}

void job_free(struct job *j)
{
	free(j->customer_name);
	free(j->title);
	free(j->note);
	memset(j, 0, sizeof *j);
}

int job_get(struct db *db, int64_t id, struct job *out)
{
	struct job_iter it = { NULL, NULL, out };
	sqlite3_stmt *st;
	int64_t n = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = prep(db, JOB_SELECT " WHERE j.id = ?1", &st, id, 0)) ||
	    (rc = each_row(db, st, job_row, &it, _("cannot read the job"), &n)))
		return rc;
	return n ? 0 : not_found(&job_machine, id);
}

int job_list(struct db *db, int64_t customer_id, int (*cb)(const struct job *j, void *arg),
	     void *arg)
{
	struct job_iter it = { cb, arg, NULL };
	sqlite3_stmt *st;
	int rc;

	rc = prep(db,
		  customer_id ? JOB_SELECT " WHERE j.customer_id = ?1"
					   " ORDER BY j.created_at DESC, j.id DESC"
			      : JOB_SELECT " ORDER BY j.created_at DESC, j.id DESC",
		  &st, customer_id, 0);
	return rc ? rc : each_row(db, st, job_row, &it, _("cannot list jobs"), NULL);
}

/* Check in; *cur gets the currency to store (NULL when it does not change). */
static int check_job_input(const struct job_input *in, int adding, const struct currency **cur)
{
	const char *code = in->currency;
	int rc;

	*cur = NULL;
	if (adding && in->customer_id <= 0)
		return err_set(FD_EINVAL, _("the job needs a customer"));
	if (!adding && in->customer_id)
		return err_set(FD_EINVAL, _("the customer of a job cannot change; "
					    "cancel it and add a job for the other customer"));
	if ((adding || in->title) && (rc = text_check(in->title, _("the title"), TITLE_MAX, 0)))
		return rc;
	if (in->note && (rc = text_check(in->note, _("the note"), NOTE_MAX, 1)))
		return rc;
	if (adding && !code)
		code = config_get("currency", "USD");
	if (code && !(*cur = currency_find(code)))
		return err_set(FD_EINVAL,
			       _("unknown currency '%.12s': "
				 "use an ISO 4217 code such as USD or EUR"),
			       code);
	return 0;
}

struct job_ctx {
	int64_t id;
	const struct job_input *in;
	const struct currency *cur;
};

static int job_add_tx(struct db *db, void *arg)
{
	struct job_ctx *a = arg;
	sqlite3_stmt *st;
	int64_t now = clock_now(), dummy;
	int found, rc;

	if ((rc = query_int(db, "SELECT id FROM customer WHERE id = ?1", a->in->customer_id, 0,
			    &dummy, &found)))
		return rc;
	if (!found)
		return err_set(FD_ENOTFOUND, _("there is no customer %lld"),
			       (long long)a->in->customer_id);
	rc = db_prepare(db,
			"INSERT INTO service_order (customer_id, title, currency, note, created_at,"
			" updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
			&st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, a->in->customer_id);
	bind_text(st, 2, a->in->title);
	bind_text(st, 3, a->cur->code);
	bind_opt(st, 4, a->in->note);
	sqlite3_bind_int64(st, 5, now);
	if ((rc = db_run(db, st, _("cannot add the job"))))
		return rc;
	a->id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

int job_add(struct db *db, const struct job_input *in, int64_t *id_out)
{
	struct job_ctx a = { 0, in, NULL };
	int rc;

	if ((rc = check_job_input(in, 1, &a.cur)) || (rc = db_write(db, job_add_tx, &a)))
		return rc;
	*id_out = a.id;
	return 0;
}

static int job_edit_tx(struct db *db, void *arg)
{
	struct job_ctx *e = arg;
	struct job j;
	sqlite3_stmt *st;
	int64_t items = 0;
	int found, rc;

	if ((rc = job_get(db, e->id, &j)))
		return rc;
	if (e->cur && strcmp(e->cur->code, j.currency) &&
	    !(rc = query_int(db, "SELECT count(*) FROM line_item WHERE service_order_id = ?1",
			     e->id, 0, &items, &found)) &&
	    items > 0)
		rc = err_set(FD_ECONFLICT,
			     _("job %lld has %lld line item(s), "
			       "so its currency (%s) cannot change"),
			     (long long)e->id, (long long)items, j.currency);
	job_free(&j);
	if (rc)
		return rc;
	/* ?N IS NULL keeps the old value; a note of '' clears it */
	rc = db_prepare(db,
			"UPDATE service_order SET title = coalesce(?1, title),"
			" currency = coalesce(?2, currency),"
			" note = CASE WHEN ?3 IS NULL THEN note ELSE nullif(?3, '') END,"
			" updated_at = ?4 WHERE id = ?5",
			&st);
	if (rc)
		return rc;
	bind_text(st, 1, e->in->title);
	bind_text(st, 2, e->cur ? e->cur->code : NULL);
	bind_text(st, 3, e->in->note);
	sqlite3_bind_int64(st, 4, clock_now());
	sqlite3_bind_int64(st, 5, e->id);
	return db_run(db, st, _("cannot change the job"));
}

int job_edit(struct db *db, int64_t id, const struct job_input *in)
{
	struct job_ctx e = { id, in, NULL };
	int rc;

	if ((rc = check_job_input(in, 0, &e.cur)))
		return rc;
	if (!in->title && !in->currency && !in->note)
		return err_set(FD_EINVAL, _("nothing to change: give at least one field"));
	return db_write(db, job_edit_tx, &e);
}

int job_set_status(struct db *db, int64_t id, const char *status, const char *reason)
{
	return set_status(db, &job_machine, id, status, reason);
}

/* ---------------------------------------------------------------- visits */

/* A visit with the summary of the jobs it works on, in the order they were
 * linked: the first customer's name and "+N" for N more customers, the job
 * titles, the estimated minutes. */
#define APPT_SELECT                                                                        \
	"SELECT a.id, a.start_at, a.end_at, a.location, a.status, a.note, a.created_at,"   \
	" a.updated_at,"                                                                   \
	" coalesce((SELECT c.name FROM appointment_work w"                                 \
	"   JOIN service_order j ON j.id = w.service_order_id"                             \
	"   JOIN customer c ON c.id = j.customer_id"                                       \
	"   WHERE w.appointment_id = a.id ORDER BY w.id LIMIT 1)"                          \
	"  || (SELECT CASE WHEN count(DISTINCT j.customer_id) > 1"                         \
	"       THEN ' +' || (count(DISTINCT j.customer_id) - 1) ELSE '' END"              \
	"     FROM appointment_work w JOIN service_order j ON j.id = w.service_order_id"   \
	"     WHERE w.appointment_id = a.id), ''),"                                        \
	" coalesce((SELECT group_concat(title, ', ') FROM (SELECT j.title"                 \
	"   FROM appointment_work w JOIN service_order j ON j.id = w.service_order_id"     \
	"   WHERE w.appointment_id = a.id ORDER BY w.id)), ''),"                           \
	" (SELECT coalesce(sum(est_minutes), 0) FROM appointment_work"                     \
	"   WHERE appointment_id = a.id)"                                                  \
	" FROM appointment a"

struct appt_iter {
	int (*cb)(const struct appt *a, void *arg);
	void *arg;
	struct appt *out; /* appt_get: the row is handed over here */
};

static int appt_row(sqlite3_stmt *st, void *p)
{
	struct appt_iter *it = p;
	struct appt a;
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
	appt_free(&a);
	return rc;
}

void appt_free(struct appt *a)
{
	free(a->location);
	free(a->note);
	free(a->customers);
	free(a->services);
	memset(a, 0, sizeof *a);
}

int appt_get(struct db *db, int64_t id, struct appt *out)
{
	struct appt_iter it = { NULL, NULL, out };
	sqlite3_stmt *st;
	int64_t n = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = prep(db, APPT_SELECT " WHERE a.id = ?1", &st, id, 0)) ||
	    (rc = each_row(db, st, appt_row, &it, _("cannot read the visit"), &n)))
		return rc;
	return n ? 0 : not_found(&appt_machine, id);
}

int appt_list_range(struct db *db, int64_t from, int64_t to,
		    int (*cb)(const struct appt *a, void *arg), void *arg)
{
	struct appt_iter it = { cb, arg, NULL };
	sqlite3_stmt *st;
	int rc;

	if (from >= to)
		return err_set(FD_EINVAL, _("the end of the range must come after its start"));
	/* no visit is longer than APPT_MAX_SECONDS, so the index on start_at
	 * bounds the scan on both sides */
	rc = prep(db,
		  APPT_SELECT " WHERE a.start_at < ?2 AND a.end_at > ?1 AND a.start_at >= ?3"
			      " ORDER BY a.start_at, a.id",
		  &st, from, to);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 3, from > INT64_MIN + APPT_MAX_SECONDS ? from - APPT_MAX_SECONDS
								      : INT64_MIN);
	return each_row(db, st, appt_row, &it, _("cannot list visits"), NULL);
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
	if (end - start > APPT_MAX_SECONDS)
		return err_set(FD_EINVAL,
			       _("a visit lasts at most 7 days (%s to %s is longer); "
				 "book longer work as several visits of one job"),
			       s, e);
	return 0;
}

static int check_appt_input(const struct appt_input *in, int adding)
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

struct appt_ctx {
	int64_t id;
	const struct appt_input *in;
};

static int appt_add_tx(struct db *db, void *arg)
{
	struct appt_ctx *a = arg;
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare(db,
			"INSERT INTO appointment (start_at, end_at, location, note, created_at,"
			" updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
			&st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, a->in->start_at);
	sqlite3_bind_int64(st, 2, a->in->end_at);
	bind_opt(st, 3, a->in->location);
	bind_opt(st, 4, a->in->note);
	sqlite3_bind_int64(st, 5, clock_now());
	if ((rc = db_run(db, st, _("cannot add the visit"))))
		return rc;
	a->id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

int appt_add(struct db *db, const struct appt_input *in, int64_t *id_out)
{
	struct appt_ctx a = { 0, in };
	int rc;

	if ((rc = check_appt_input(in, 1)) || (rc = db_write(db, appt_add_tx, &a)))
		return rc;
	*id_out = a.id;
	return 0;
}

static int appt_edit_tx(struct db *db, void *arg)
{
	struct appt_ctx *e = arg;
	struct appt old;
	sqlite3_stmt *st;
	int rc;

	if ((rc = appt_get(db, e->id, &old)))
		return rc;
	rc = check_times(e->in->start_at ? e->in->start_at : old.start_at,
			 e->in->end_at ? e->in->end_at : old.end_at);
	appt_free(&old);
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
	sqlite3_bind_int64(st, 1, e->in->start_at);
	sqlite3_bind_int64(st, 2, e->in->end_at);
	bind_text(st, 3, e->in->location);
	bind_text(st, 4, e->in->note);
	sqlite3_bind_int64(st, 5, clock_now());
	sqlite3_bind_int64(st, 6, e->id);
	return db_run(db, st, _("cannot change the visit"));
}

int appt_edit(struct db *db, int64_t id, const struct appt_input *in)
{
	struct appt_ctx e = { id, in };
	int rc;

	if ((rc = check_appt_input(in, 0)))
		return rc;
	if (!in->start_at && !in->end_at && !in->location && !in->note)
		return err_set(FD_EINVAL, _("nothing to change: give at least one field"));
	return db_write(db, appt_edit_tx, &e);
}

int appt_set_status(struct db *db, int64_t id, const char *status, const char *reason)
{
	return set_status(db, &appt_machine, id, status, reason);
}

/* ---------------------------------------------------------------- links */

#define LINK_SELECT                                                                        \
	"SELECT w.id, w.appointment_id, w.service_order_id, w.est_minutes, j.title, c.name," \
	" j.customer_id, a.start_at, a.end_at, a.status"                                   \
	" FROM appointment_work w JOIN service_order j ON j.id = w.service_order_id"       \
	" JOIN customer c ON c.id = j.customer_id"                                         \
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
	struct link_iter it = { cb, arg };
	sqlite3_stmt *st;
	int rc;

	if (appt_id <= 0 && job_id <= 0)
		return err_set(FD_EINVAL, _("name a visit or a job"));
	rc = prep(db,
		  appt_id > 0 ? LINK_SELECT " WHERE w.appointment_id = ?1 ORDER BY w.id"
			      : LINK_SELECT " WHERE w.service_order_id = ?2"
					    " ORDER BY a.start_at, w.id",
		  &st, appt_id, job_id);
	return rc ? rc : each_row(db, st, link_row, &it, _("cannot list links"), NULL);
}

enum link_op { LINK_ADD, LINK_EDIT, LINK_REMOVE };

struct link_ctx {
	enum link_op op;
	int64_t appt_id, job_id, minutes;
	int64_t id; /* the link's, once known */
};

static int is_over(const char *appt_status)
{
	return !strcmp(appt_status, "done") || !strcmp(appt_status, "cancelled") ||
	       !strcmp(appt_status, "no_show");
}

/* Everything a link change needs checked, in the order a person would fix
 * it: both records exist, the link does (or does not) exist, states allow. */
static int link_check(struct db *db, struct link_ctx *l)
{
	char appt_status[16], job_status[16];
	int found, rc;

	if ((rc = read_status(db, &appt_machine, l->appt_id, appt_status)) ||
	    (rc = read_status(db, &job_machine, l->job_id, job_status)) ||
	    (rc = query_int(db,
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
	if (is_over(appt_status))
		return err_set(FD_ECONFLICT,
			       _("visit %lld is %s: the jobs it worked on can no longer change"),
			       (long long)l->appt_id, appt_status);
	if (l->op != LINK_REMOVE && !strcmp(job_status, "cancelled"))
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
	struct link_ctx *l = arg;
	sqlite3_stmt *st;
	int rc;

	if ((rc = link_check(db, l)) || (rc = prep(db, sql[l->op], &st, l->appt_id, l->job_id)))
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
	struct link_ctx l = { op, appt_id, job_id, minutes, 0 };
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

/* ---------------------------------------------------------------- items */

#define ITEM_SELECT                                                                        \
	"SELECT i.id, i.service_order_id, i.kind, i.description, i.qty_milli, i.unit_price," \
	" i.amount, j.currency, i.created_at, i.updated_at"                                \
	" FROM line_item i JOIN service_order j ON j.id = i.service_order_id"

static const char *const item_kinds[] = { "SERVICE", "FEE", "DISCOUNT", "TAX", "CREDIT", NULL };

struct item_iter {
	int (*cb)(const struct line_item *li, void *arg);
	void *arg;
	struct line_item *out; /* item_get: the row is handed over here */
};

static int item_row(sqlite3_stmt *st, void *p)
{
	struct item_iter *it = p;
	struct line_item li;
	int rc;

	memset(&li, 0, sizeof li);
	li.id = sqlite3_column_int64(st, 0);
	li.job_id = sqlite3_column_int64(st, 1);
	dbrow_copy(st, 2, li.kind, sizeof li.kind);
	li.description = dbrow_dup(st, 3);
	li.qty_milli = sqlite3_column_int64(st, 4);
	li.unit_price = sqlite3_column_int64(st, 5);
	li.amount = sqlite3_column_int64(st, 6);
	dbrow_copy(st, 7, li.currency, sizeof li.currency);
	li.created_at = sqlite3_column_int64(st, 8);
	li.updated_at = sqlite3_column_int64(st, 9);
	if (it->out) {
		*it->out = li;
		return 0;
	}
	rc = it->cb(&li, it->arg);
	item_free(&li);
	return rc;
}

void item_free(struct line_item *li)
{
	free(li->description);
	memset(li, 0, sizeof *li);
}

int item_get(struct db *db, int64_t id, struct line_item *out)
{
	struct item_iter it = { NULL, NULL, out };
	sqlite3_stmt *st;
	int64_t n = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = prep(db, ITEM_SELECT " WHERE i.id = ?1", &st, id, 0)) ||
	    (rc = each_row(db, st, item_row, &it, _("cannot read the line item"), &n)))
		return rc;
	return n ? 0 : err_set(FD_ENOTFOUND, _("there is no line item %lld"), (long long)id);
}

int item_list(struct db *db, int64_t job_id, int (*cb)(const struct line_item *li, void *arg),
	      void *arg)
{
	struct item_iter it = { cb, arg, NULL };
	sqlite3_stmt *st;
	int rc = prep(db, ITEM_SELECT " WHERE i.service_order_id = ?1 ORDER BY i.id", &st, job_id,
		      0);

	return rc ? rc : each_row(db, st, item_row, &it, _("cannot list line items"), NULL);
}

/* The canonical spelling of kind (any case), or NULL. */
static const char *find_kind(const char *kind)
{
	int i;

	for (i = 0; kind && item_kinds[i]; i++)
		if (!strcasecmp(kind, item_kinds[i]))
			return item_kinds[i];
	return NULL;
}

/* The signed amount of a line: money_line_amount, negated for a DISCOUNT or
 * a CREDIT (a positive int64_t always negates). */
static int line_amount(const char *kind, int64_t qty_milli, int64_t unit_price, int64_t *out)
{
	if (money_line_amount(qty_milli, unit_price, out))
		return err_set(FD_EINVAL, _("the amount of this line is too large: "
					    "lower the quantity or the unit price"));
	if (!strcmp(kind, "DISCOUNT") || !strcmp(kind, "CREDIT"))
		*out = -*out;
	return 0;
}

/* Check in; *kind gets the canonical kind (NULL when unchanged). For an edit
 * a negative quantity or price means unchanged. */
static int check_item_input(const struct item_input *in, int adding, const char **kind)
{
	int rc;

	*kind = NULL;
	if (adding && in->job_id <= 0)
		return err_set(FD_EINVAL, _("the line item needs a job"));
	if ((adding || in->kind) && !(*kind = find_kind(in->kind)))
		return err_set(FD_EINVAL,
			       _("'%.20s' is not a kind of line item: use SERVICE, FEE, DISCOUNT, "
				 "TAX or CREDIT"),
			       in->kind ? in->kind : "");
	if ((adding || in->description) &&
	    (rc = text_check(in->description, _("the description"), TEXT_MAX, 0)))
		return rc;
	if ((adding || in->qty_milli >= 0) && in->qty_milli <= 0)
		return err_set(FD_EINVAL, _("the quantity must be greater than zero"));
	if (in->qty_milli > QTY_MAX)
		return err_set(FD_EINVAL, _("the quantity is too large (at most 1000000)"));
	if (adding && in->unit_price < 0)
		return err_set(FD_EINVAL, _("the unit price must not be negative; "
					    "use a DISCOUNT or CREDIT line to take money off"));
	return 0;
}

struct item_ctx {
	int64_t id;
	const struct item_input *in;
	const char *kind;
	int64_t amount;
};

static int item_add_tx(struct db *db, void *arg)
{
	struct item_ctx *a = arg;
	char status[16];
	sqlite3_stmt *st;
	int rc;

	if ((rc = read_status(db, &job_machine, a->in->job_id, status))) /* the job exists */
		return rc;
	rc = db_prepare(db,
			"INSERT INTO line_item (service_order_id, kind, description, qty_milli,"
			" unit_price, amount, created_at, updated_at)"
			" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
			&st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, a->in->job_id);
	bind_text(st, 2, a->kind);
	bind_text(st, 3, a->in->description);
	sqlite3_bind_int64(st, 4, a->in->qty_milli);
	sqlite3_bind_int64(st, 5, a->in->unit_price);
	sqlite3_bind_int64(st, 6, a->amount);
	sqlite3_bind_int64(st, 7, clock_now());
	if ((rc = db_run(db, st, _("cannot add the line item"))))
		return rc;
	a->id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

int item_add(struct db *db, const struct item_input *in, int64_t *id_out)
{
	struct item_ctx a = { 0, in, NULL, 0 };
	int rc;

	if ((rc = check_item_input(in, 1, &a.kind)) ||
	    (rc = line_amount(a.kind, in->qty_milli, in->unit_price, &a.amount)) ||
	    (rc = db_write(db, item_add_tx, &a)))
		return rc;
	*id_out = a.id;
	return 0;
}

static int item_edit_tx(struct db *db, void *arg)
{
	struct item_ctx *e = arg;
	struct line_item li;
	sqlite3_stmt *st;
	int rc;

	if ((rc = item_get(db, e->id, &li)))
		return rc;
	if (e->kind)
		snprintf(li.kind, sizeof li.kind, "%s", e->kind);
	if (e->in->qty_milli >= 0)
		li.qty_milli = e->in->qty_milli;
	if (e->in->unit_price >= 0)
		li.unit_price = e->in->unit_price;
	if ((rc = line_amount(li.kind, li.qty_milli, li.unit_price, &li.amount)))
		goto out;
	rc = db_prepare(db,
			"UPDATE line_item SET kind = ?1,"
			" description = coalesce(?2, description), qty_milli = ?3,"
			" unit_price = ?4, amount = ?5, updated_at = ?6 WHERE id = ?7",
			&st);
	if (rc)
		goto out;
	bind_text(st, 1, li.kind);
	bind_text(st, 2, e->in->description);
	sqlite3_bind_int64(st, 3, li.qty_milli);
	sqlite3_bind_int64(st, 4, li.unit_price);
	sqlite3_bind_int64(st, 5, li.amount);
	sqlite3_bind_int64(st, 6, clock_now());
	sqlite3_bind_int64(st, 7, e->id);
	rc = db_run(db, st, _("cannot change the line item"));
out:
	item_free(&li);
	return rc;
}

int item_edit(struct db *db, int64_t id, const struct item_input *in)
{
	struct item_ctx e = { id, in, NULL, 0 };
	int rc;

	if ((rc = check_item_input(in, 0, &e.kind)))
		return rc;
	if (!in->kind && !in->description && in->qty_milli < 0 && in->unit_price < 0)
		return err_set(FD_EINVAL, _("nothing to change: give at least one field"));
	return db_write(db, item_edit_tx, &e);
}

static int item_delete_tx(struct db *db, void *arg)
{
	int64_t id = *(int64_t *)arg;
	struct line_item li;
	sqlite3_stmt *st;
	int rc;

	if ((rc = item_get(db, id, &li)))
		return rc;
	item_free(&li);
	if ((rc = prep(db, "DELETE FROM line_item WHERE id = ?1", &st, id, 0)))
		return rc;
	return db_run(db, st, _("cannot delete the line item"));
}

int item_delete(struct db *db, int64_t id)
{
	return db_write(db, item_delete_tx, &id);
}
