/*
 * projection.h - the calendar projection: one precomputed row per visit.
 *
 * appointment_calendar_view is a read model. Its rows are rebuilt from the
 * authoritative records (visits, links, jobs, line items, customers and,
 * once billing exists, invoices and payments); a rebuild recomputes the
 * whole row and never adds to or subtracts from what is stored, so running
 * it twice, or from two processes at once, gives the same row. It may lag a
 * moment behind the records and is never used to compute money owed.
 *
 * What a row says about visit V:
 *  - customers: the name of the customer of V's first linked job (by link
 *    order), followed by " +N" when V serves N more distinct customers
 *    ("Lee", "Lee +2"); "" when V has no job.
 *  - services: the titles of V's jobs in link order, joined with ", "; when
 *    they would pass PROJECTION_SERVICES_MAX bytes the rest is counted
 *    instead (" +3").
 *  - est_minutes: the sum of the estimated minutes of V's links.
 *  - total_price: V's share of the price of each of its jobs, summed.
 *    A job's price is the sum of its line item amounts (DISCOUNT and CREDIT
 *    lines are negative). It is spread over the job's visits that are not
 *    cancelled or no-show, in proportion to each visit's estimated minutes
 *    for that job (equally when they are all zero). Each share is rounded
 *    toward zero in minor units, and the minor units left over go one each
 *    to the earliest visits (by start time, then id) that have a non-zero
 *    weight, so the shares add up exactly to the price. A cancelled or
 *    no-show visit gets no share; a cancelled job adds nothing. When V's jobs
 *    are in different currencies total_price and currency are NULL (shown as
 *    "mixed currencies").
 *  - payment_status: from the issued invoices that bill V's jobs, their
 *    payments and refunds, job by job, then combined for the visit; the
 *    exact rule is written above job_pay() in projection.c.
 *  - status: the visit's status; projection_version: PROJECTION_VERSION of
 *    the code that built it; built_at: the real time it was last written.
 *
 * Callers: the task runner (kind "calendar", see task.c), the command line
 * (agenda, projection rebuild/check/show), the screen's calendar and the
 * whole-database check (projection_check).
 */
#ifndef FD_PROJECTION_H
#define FD_PROJECTION_H

#include <stddef.h>
#include <stdint.h>

struct db;

/* Bump when the rule that computes a row changes: rows built by an older
 * rule are then reported by projection_check and rebuilt by --all. (The
 * rule that a visit whose invoice still owes money is never marked refunded
 * or nothing to charge changed the payment mark of a few rows only, without
 * a bump: projection_check compares every column with a fresh computation,
 * so it lists exactly those rows, and the runner rebuilds them as soon as
 * anything about their visit changes; a bump would have listed every row of
 * every database until a full rebuild.) */
#define PROJECTION_VERSION      1
#define PROJECTION_SERVICES_MAX 200
#define PROJECTION_TASK_KIND    "calendar"

struct cal_row {
	int64_t appointment_id;
	int64_t start_at, end_at; /* UTC seconds */
	char *customers;          /* "Lee", "Lee +2", "" */
	char *services;
	int has_total;    /* 0 when the jobs mix currencies */
	int64_t total;    /* minor units of currency */
	char currency[4]; /* "" when no job has a price, or mixed */
	int64_t est_minutes;
	char pay_status[20]; /* unpaid, partially_paid, paid, overpaid, refunded, void,
	                        nothing_to_charge */
	char status[16];     /* the visit's status */
	int version;         /* projection_version */
	int64_t built_at;
};

/* projection_spread - split amount (minor units, any sign) over n parts in
 * proportion to weights[] (each >= 0; all zero means equal parts), listed
 * earliest visit first. Each share is |amount| * w / W rounded down, with
 * the sign of amount; the units left over go one each to the earliest parts
 * with a non-zero weight. The shares add up exactly to amount. FD_EINVAL for
 * n == 0 or a negative weight. Pure; no database. */
int projection_spread(int64_t amount, const int64_t *weights, size_t n, int64_t *shares);

/* projection_compute - the row visit appt_id should have now, read from the
 * authoritative records (within the caller's transaction, if any). *out is
 * the caller's to free with cal_row_free. FD_ENOTFOUND if the visit does
 * not exist; FD_EINVAL if a sum does not fit in 64 bits. */
int projection_compute(struct db *db, int64_t appt_id, struct cal_row *out);

/* projection_get - the stored row of visit appt_id; FD_ENOTFOUND if none. */
int projection_get(struct db *db, int64_t appt_id, struct cal_row *out);

/* projection_rebuild_in_tx - recompute visit appt_id's row and store it, or
 * delete it when the visit no longer exists. Must run inside the caller's
 * write transaction. The row is written only when it differs from the
 * stored one (so built_at and PRAGMA data_version move only on a real
 * change); *changed (may be NULL) says whether it was. */
int projection_rebuild_in_tx(struct db *db, int64_t appt_id, int *changed);

/* projection_rebuild - the same in its own write transaction. */
int projection_rebuild(struct db *db, int64_t appt_id, int *changed);

/* projection_task - the task runner's handler for kind "calendar": key is the
 * visit id in decimal. Runs inside the runner's write transaction. */
int projection_task(struct db *db, const char *key);

/* Progress of a full rebuild: done of total visits so far. */
typedef void (*projection_progress_fn)(int64_t done, int64_t total, void *arg);

/* projection_rebuild_all - rebuild every row in transactions of at most
 * batch visits (0: the default, 2000), holding the "projection-rebuild" lock
 * for the whole run (FD_ECONFLICT naming who holds it when someone else
 * does). Each batch also removes rows of visits that no longer exist and the
 * pending calendar tasks it made unnecessary. So that a desk never waits long
 * behind it, a batch that took more than about 20 ms makes the next ones
 * smaller (down to 50 visits), and between batches it checkpoints and pauses
 * (db_yield). Every batch is whole: stopped between two (a kill, a crash),
 * the rows written so far are right and a new run finishes the rest.
 * progress (may be NULL) is called after every batch. *n_out (may be NULL)
 * gets the number of visits rebuilt. */
int projection_rebuild_all(struct db *db, int batch, projection_progress_fn progress, void *arg,
                           int64_t *n_out);

/* projection_range - every stored row that overlaps [from, to) (a visit
 * crossing midnight belongs to both days), by start time then id, from ONE
 * indexed range query whose cost depends on the rows near the range, never
 * on the size of the table (see projection.c). FD_EINVAL unless from < to.
 * The row passed to cb is valid during the call (its version and built_at
 * are not read: 0; projection_get has them); a non-zero return of cb stops
 * the listing and is returned. */
int projection_range(struct db *db, int64_t from, int64_t to,
                     int (*cb)(const struct cal_row *r, void *arg), void *arg);

/* projection_range_brief - the same rows as projection_range, for a
 * listing that shows most visits only by their times and status (a month
 * view): the range query reads only appointment_id, start_at, end_at,
 * pay_status and status; want(r, arg) is called with those (customers and
 * services "", the rest 0) and, when it returns non-zero, the row's other
 * fields are read by its primary key (in the same read transaction) before
 * cb sees it. Rows not wanted reach cb with those fields "" or 0 (has_total
 * 1). Each lookup costs about as much as stepping ten rows: want few of
 * them. Errors and cb's return as for projection_range. */
int projection_range_brief(struct db *db, int64_t from, int64_t to,
                           int (*want)(const struct cal_row *r, void *arg),
                           int (*cb)(const struct cal_row *r, void *arg), void *arg);

/* projection_range_sql - the SQL text projection_range runs (?1 = from,
 * ?2 = to), for EXPLAIN QUERY PLAN in the tests. */
const char *projection_range_sql(void);

/* projection_range_brief_sql - the range query of projection_range_brief
 * (rest 0; ?1 = from, ?2 = to) or its lookup of one row (rest 1; ?1 =
 * start_at, ?2 = appointment_id), for EXPLAIN QUERY PLAN. */
const char *projection_range_brief_sql(int rest);

/* One row that differs from a fresh recomputation. */
struct projection_diff {
	int64_t appointment_id;
	const char *problem; /* "missing", "orphan" (no such visit), "differs", "cannot be
	                        computed" (its records do not add up, e.g. beyond 64 bits) */
	const char *fields;  /* for "differs": the columns, comma-separated; for "cannot be
	                        computed": why */
	int queued;          /* a calendar task for this visit is waiting: it is catching up */
};

/* projection_check - compare every stored row with a fresh recomputation,
 * in short read transactions; cb (may be NULL) gets each difference and may
 * stop the walk by returning non-zero. *n_diff gets the number found. The
 * whole-database `frontdesk check` calls this. */
int projection_check(struct db *db, int (*cb)(const struct projection_diff *d, void *arg),
                     void *arg, int64_t *n_diff);

/* projection_check_ids - projection_check for the visits whose ids the
 * query ids_sql (a SELECT of one column, binding nothing) returns, in one
 * read transaction: a visit no longer there is skipped, and calendar rows
 * without a visit are left to projection_check. The visits of a range
 * (`frontdesk check --since`). */
int projection_check_ids(struct db *db, const char *ids_sql,
                         int (*cb)(const struct projection_diff *d, void *arg), void *arg,
                         int64_t *n_diff);

void cal_row_free(struct cal_row *r);

#endif
