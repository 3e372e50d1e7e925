/*
 * job.c - jobs: work for one customer (see job.h).
 *
 * Invariants (the whole work domain): every write checks what it can of its
 * input before its transaction starts, and what needs the database inside
 * that transaction before its first write; a refusal rolls back, so a
 * refused request changes nothing. Shared helpers: work-int.h.
 *
 * Permissions: adding, editing a job and moving its status ask job.edit,
 * first in the transaction (the status in work-common.c).
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
#include "job.h"
#include "money.h"
#include "retention-mod.h"
#include "settings.h"
#include "states.h"
#include "strbuf.h"
#include "text.h"
#include "work-int.h"
#include "xalloc.h"

/* ---------------------------------------------------------------- jobs */

/* The stored word of each state, once. */
static const char *const job_words[JOB_STATES] = {
    [JOB_OPEN] = "open",
    [JOB_IN_PROGRESS] = "in_progress",
    [JOB_DONE] = "done",
    [JOB_CANCELLED] = "cancelled",
};

/* Every legal move (status_transition's rows for 'job'); the moves from one
 * state are in the alphabetical order of the word they go to, the order a
 * refusal lists them in. */
static const struct state_move job_moves[] = {
    {JOB_OPEN, JOB_CANCELLED},   {JOB_OPEN, JOB_DONE},
    {JOB_OPEN, JOB_IN_PROGRESS}, {JOB_IN_PROGRESS, JOB_CANCELLED},
    {JOB_IN_PROGRESS, JOB_DONE}, {JOB_IN_PROGRESS, JOB_OPEN},
    {JOB_DONE, JOB_IN_PROGRESS}, {-1, -1},
};

const struct states job_states = {"job", job_words, JOB_STATES, job_moves};

enum job_state job_state_of(const char *word)
{
	return (enum job_state)states_of(&job_states, word);
}

const char *job_state_word(enum job_state s)
{
	return states_word(&job_states, (int)s);
}

const struct machine wk_job_machine = {
    &job_states,
    "SELECT status FROM service_order WHERE id = ?1",
    "UPDATE service_order SET status = ?1, updated_at = ?2 WHERE id = ?3",
    1,
};

#define JOB_SELECT                                                                                 \
	"SELECT j.id, j.customer_id, c.name, j.title, j.status, j.currency, j.note,"               \
	" j.created_at, j.updated_at"                                                              \
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
	struct job_iter it = {NULL, NULL, out};
	sqlite3_stmt *st;
	int64_t n = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = wk_prep(db, JOB_SELECT " WHERE j.id = ?1", &st, id, 0)) ||
	    (rc = wk_each_row(db, st, job_row, &it, _("cannot read the job"), &n)))
		return rc;
	return n ? 0 : wk_not_found(&wk_job_machine, id);
}

int job_list(struct db *db, int64_t customer_id, int (*cb)(const struct job *j, void *arg),
             void *arg)
{
	struct job_iter it = {cb, arg, NULL};
	sqlite3_stmt *st;
	int rc;

	rc = wk_prep(db,
	             customer_id ? JOB_SELECT " WHERE j.customer_id = ?1"
	                                      " ORDER BY j.created_at DESC, j.id DESC"
	                         : JOB_SELECT " ORDER BY j.created_at DESC, j.id DESC",
	             &st, customer_id, 0);
	return rc ? rc : wk_each_row(db, st, job_row, &it, _("cannot list jobs"), NULL);
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
	char subject[64];
	int found, rc;

	snprintf(subject, sizeof subject, "add a job for customer %lld",
	         (long long)a->in->customer_id);
	if ((rc = control_require(db, PERM_JOB_EDIT, 0, subject)))
		return rc;
	if ((rc = wk_query_int(db, "SELECT id FROM customer WHERE id = ?1", a->in->customer_id, 0,
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
	wk_bind_text(st, 2, a->in->title);
	wk_bind_text(st, 3, a->cur->code);
	wk_bind_opt(st, 4, a->in->note);
	sqlite3_bind_int64(st, 5, now);
	if ((rc = db_run(db, st, _("cannot add the job"))))
		return rc;
	a->id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

int job_add(struct db *db, const struct job_input *in, int64_t *id_out)
{
	struct job_ctx a = {0, in, NULL};
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
	char subject[64];
	int found, rc;

	snprintf(subject, sizeof subject, "edit job %lld", (long long)e->id);
	if ((rc = control_require(db, PERM_JOB_EDIT, 0, subject)))
		return rc;
	if ((rc = job_get(db, e->id, &j)))
		return rc;
	if (e->cur && strcmp(e->cur->code, j.currency) &&
	    !(rc = wk_query_int(db, "SELECT count(*) FROM line_item WHERE service_order_id = ?1",
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
	wk_bind_text(st, 1, e->in->title);
	wk_bind_text(st, 2, e->cur ? e->cur->code : NULL);
	wk_bind_text(st, 3, e->in->note);
	sqlite3_bind_int64(st, 4, clock_now());
	sqlite3_bind_int64(st, 5, e->id);
	return db_run(db, st, _("cannot change the job"));
}

int job_edit(struct db *db, int64_t id, const struct job_input *in)
{
	struct job_ctx e = {id, in, NULL};
	int rc;

	if ((rc = check_job_input(in, 0, &e.cur)))
		return rc;
	if (!in->title && !in->currency && !in->note)
		return err_set(FD_EINVAL, _("nothing to change: give at least one field"));
	return db_write(db, job_edit_tx, &e);
}

int job_set_status(struct db *db, int64_t id, const char *status, const char *reason)
{
	return wk_set_status(db, &wk_job_machine, id, status, reason);
}

/* ---------------------------------------------------------------- retention */

int job_retention_purge(struct db *db, struct retention_purge_ctx *c)
{
	static const struct retention_stmt v[] = {
	    {"UPDATE service_order SET title = '" RETENTION_REMOVED "', note = NULL"
	     " WHERE customer_id = ?1 AND (title IS NOT '" RETENTION_REMOVED
	     "' OR note IS NOT NULL)",
	     N_("cannot clear the jobs")},
	    {"UPDATE service_order_his SET title = '" RETENTION_REMOVED "', note = NULL"
	     " WHERE customer_id = ?1 AND (title IS NOT '" RETENTION_REMOVED
	     "' OR note IS NOT NULL)",
	     N_("cannot clear the jobs' history")},
	    {"UPDATE status_flow SET reason = NULL WHERE entity = 'job' AND reason IS NOT NULL"
	     " AND entity_id IN (SELECT id FROM service_order WHERE customer_id = ?1)",
	     N_("cannot clear the jobs' status reasons")},
	};

	return retention_exec_all(db, v, sizeof v / sizeof v[0], c->customer_id);
}
