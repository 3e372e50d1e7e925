/*
 * work-int.h - what the modules of the work domain share (private to
 * work-common.c, job.c, visit.c and item.c): input limits, the statement
 * helpers, and the runner of the status machines of jobs and visits, whose
 * legal changes are rows of status_transition. Not for other modules: they
 * use job.h, visit.h and item.h.
 */
#ifndef FD_WORK_INT_H
#define FD_WORK_INT_H

#include <sqlite3.h>
#include <stdint.h>

struct db;
struct states;

#define TITLE_MAX   200
#define NOTE_MAX    2000
#define TEXT_MAX    400 /* location, description, status reason */
#define MINUTES_MAX 100000
#define QTY_MAX     ((int64_t)1000000000) /* thousandths: a million units */

/* One status machine: a record's states and its legal moves (states.h,
 * each the owner's: job_states in job.c, visit_states in visit.c, which the
 * rows of status_transition mirror), with the statements that read and
 * make a move; work-common.c runs any of them. */
struct machine {
	const struct states *states; /* words and moves; ->entity names the record */
	const char *read_sql;        /* ?1 = id -> status */
	const char *update_sql;      /* ?1 = status, ?2 = now, ?3 = id */
	int job;                     /* 1: the refusals speak of a job, 0: of a visit */
};

extern const struct machine wk_job_machine, wk_visit_machine;

/* wk_bind_text - bind s (NULL binds NULL: "unchanged" in the edits). */
void wk_bind_text(sqlite3_stmt *st, int i, const char *s);
/* wk_bind_opt - bind s, or NULL when s is NULL or empty. */
void wk_bind_opt(sqlite3_stmt *st, int i, const char *s);
/* wk_prep - prepare sql and bind a to ?1 and b to ?2 where used. */
int wk_prep(struct db *db, const char *sql, sqlite3_stmt **st, int64_t a, int64_t b);
/* wk_each_row - step st (finalizing it), calling row on each row until it
 * returns non-zero; *n (may be NULL) gets the rows seen; what names a
 * database failure. */
int wk_each_row(struct db *db, sqlite3_stmt *st, int (*row)(sqlite3_stmt *st, void *ctx), void *ctx,
                const char *what, int64_t *n);
/* wk_query_int - the first column of the first row of sql (?1 = a, ?2 =
 * b) in *out, or *found = 0 when there is no row. */
int wk_query_int(struct db *db, const char *sql, int64_t a, int64_t b, int64_t *out, int *found);
/* wk_opt_or_null - s, or NULL when it is NULL or empty. */
const char *wk_opt_or_null(const char *s);
/* wk_not_found - FD_ENOTFOUND naming the job or visit id of machine m. */
int wk_not_found(const struct machine *m, int64_t id);
/* wk_read_status - the current status of record id of machine m in out
 * (FD_ENOTFOUND if none). */
int wk_read_status(struct db *db, const struct machine *m, int64_t id, char out[16]);
/* wk_set_status - move record id of machine m to status in one write
 * transaction, checked against status_transition, reason to the flow. */
int wk_set_status(struct db *db, const struct machine *m, int64_t id, const char *status,
                  const char *reason);

#endif
