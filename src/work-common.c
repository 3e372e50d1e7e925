/*
 * work-common.c - the statement helpers and the runner of the status
 * machines of jobs and visits (see work-int.h; each machine is its owner's:
 * job.c, visit.c). Status changes are checked here against the owner's
 * moves (states.h), which the rows of status_transition mirror, so that the
 * refusal can say what is allowed; the schema's triggers refuse
 * illegal ones as well and write the status flow with the reason handed over
 * through db_set_reason().
 *
 * Invariants (the whole work domain): every write checks what it can of its
 * input before its transaction starts, and what needs the database inside
 * that transaction before its first write; a refusal rolls back, so a
 * refused request changes nothing. Shared helpers: work-int.h.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "money.h"
#include "settings.h"
#include "states.h"
#include "strbuf.h"
#include "text.h"
#include "work-int.h"
#include "xalloc.h"

/* ---------------------------------------------------------------- helpers */

/* Bind text; NULL binds NULL ("unchanged" in the edit statements). */
void wk_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

/* Bind text, or NULL for NULL and "" (an optional field left empty). */
void wk_bind_opt(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		wk_bind_text(st, i, s);
	else
		sqlite3_bind_null(st, i);
}

/* Prepare sql and bind ?1 = a and ?2 = b as far as the statement has them;
 * the caller binds any further parameters. */
int wk_prep(struct db *db, const char *sql, sqlite3_stmt **st, int64_t a, int64_t b)
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
int wk_each_row(struct db *db, sqlite3_stmt *st, int (*row)(sqlite3_stmt *st, void *ctx), void *ctx,
                const char *what, int64_t *n)
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
int wk_query_int(struct db *db, const char *sql, int64_t a, int64_t b, int64_t *out, int *found)
{
	sqlite3_stmt *st;
	int rc = wk_prep(db, sql, &st, a, b), step;

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

const char *wk_opt_or_null(const char *s)
{
	return s && *s ? s : NULL;
}

/* ---------------------------------------------------------------- statuses */

int wk_not_found(const struct machine *m, int64_t id)
{
	return err_set(FD_ENOTFOUND,
	               m->job ? _("there is no job %lld") : _("there is no visit %lld"),
	               (long long)id);
}

/* FD_EINVAL unless status is one of m's statuses. */
static int check_status_name(const struct machine *m, const char *status)
{
	struct strbuf all = {0};
	size_t i;

	if ((size_t)states_of(m->states, status) < m->states->n)
		return 0;
	for (i = 0; i < m->states->n; i++)
		sb_printf(&all, "%s%s", i ? ", " : "", states_word(m->states, (int)i));
	if (m->job)
		err_set(FD_EINVAL, _("'%.40s' is not a job status: use one of %s"),
		        status ? status : "", sb_cstr(&all));
	else
		err_set(FD_EINVAL, _("'%.40s' is not a visit status: use one of %s"),
		        status ? status : "", sb_cstr(&all));
	sb_free(&all);
	return FD_EINVAL;
}

/* The current status of record id of machine m (FD_ENOTFOUND if none). */
int wk_read_status(struct db *db, const struct machine *m, int64_t id, char out[16])
{
	sqlite3_stmt *st;
	int rc = wk_prep(db, m->read_sql, &st, id, 0), step;

	if (rc)
		return rc;
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		dbrow_copy(st, 0, out, 16);
	else if (step == SQLITE_DONE)
		rc = wk_not_found(m, id);
	else
		rc = db_fail(db, _("cannot read the status"));
	sqlite3_finalize(st);
	return rc;
}

/* FD_ECONFLICT, saying what is allowed, unless m may go from `from` to `to`
 * (to is one of m's states). */
static int check_transition(const struct machine *m, int64_t id, const char *from, const char *to)
{
	struct strbuf list = {0}; /* every status reachable from the current one */
	int f = states_of(m->states, from), t = states_of(m->states, to), job = m->job, rc = 0;

	if (f == t)
		return err_set(FD_ECONFLICT,
		               job ? _("job %lld is already %s") : _("visit %lld is already %s"),
		               (long long)id, to);
	if (states_may_move(m->states, f, t))
		return 0;
	if (!states_next(m->states, f, &list))
		rc = err_set(FD_ECONFLICT,
		             job ? _("job %lld is %s, which is final: its status cannot change")
		                 : _("visit %lld is %s, which is final: its status cannot change"),
		             (long long)id, from);
	else
		rc = err_set(FD_ECONFLICT,
		             job ? _("job %lld cannot go from %s to %s; from %s it can go to: %s")
		                 : _("visit %lld cannot go from %s to %s; "
		                     "from %s it can go to: %s"),
		             (long long)id, from, to, from, sb_cstr(&list));
	sb_free(&list);
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
	char from[16], subject[80];
	sqlite3_stmt *st;
	int rc;

	/* a visit's caller (visit.c) asked before it told anyone */
	if (s->m->job) {
		snprintf(subject, sizeof subject, "set job %lld to %.16s", (long long)s->id,
		         s->status);
		if ((rc = control_require(db, PERM_JOB_EDIT, 0, subject)))
			return rc;
	}
	if ((rc = wk_read_status(db, s->m, s->id, from)) ||
	    (rc = check_transition(s->m, s->id, from, s->status)))
		return rc;
	if ((rc = db_prepare(db, s->m->update_sql, &st)))
		return rc;
	wk_bind_text(st, 1, s->status);
	sqlite3_bind_int64(st, 2, clock_now());
	sqlite3_bind_int64(st, 3, s->id);
	/* the status flow trigger reads the reason through fd_reason() */
	db_set_reason(db, s->reason);
	rc = db_run(db, st, _("cannot change the status"));
	db_set_reason(db, NULL);
	return rc;
}

int wk_set_status(struct db *db, const struct machine *m, int64_t id, const char *status,
                  const char *reason)
{
	struct status_ctx s = {m, id, status, wk_opt_or_null(reason)};
	int rc;

	if ((rc = check_status_name(m, status)))
		return rc;
	if (reason && (rc = text_check(reason, _("the reason"), TEXT_MAX, 1)))
		return rc;
	return db_write(db, status_tx, &s);
}
