/*
 * work.h - jobs, visits, the link between them, and line items.
 *
 * A job (table service_order) is work for one customer in one currency; it
 * may need several visits. A visit (table appointment) is when and where
 * only, never money. A link (table appointment_work) says that a visit works
 * on a job, with the minutes it is expected to take there; a visit can serve
 * several jobs of several customers. Line items belong to the job, never to
 * a visit, so a job done over two visits is billed once.
 *
 * Every write validates all input first and then runs in one write
 * transaction (db_write); a refused request changes nothing. Status changes
 * follow the legal transitions stored in status_transition and are recorded
 * in status_flow (with the reason given here) by the schema's triggers.
 * History rows (<table>_his) are written by triggers too.
 *
 * Conventions of every function below: 0 on success, else a negative FD_E*
 * code with a translated reason in err_msg(): FD_EINVAL for unacceptable
 * input, FD_ENOTFOUND when a named record does not exist, FD_ECONFLICT when
 * the record's state does not allow the request, FD_EBUSY/FD_EDB from the
 * database. Text fields pass text_check() (valid UTF-8, no control or escape
 * characters, bounded length). A struct filled by a *_get function belongs to
 * the caller, who releases it with the matching *_free; a struct passed to a
 * list callback is valid during the call only. A list stops at the first
 * non-zero value its callback returns and returns that value.
 *
 * Callers: the command line (cli-work.c), the screen, the demo, invoicing
 * (reads jobs and line items) and the calendar projection (reads visits).
 */
#ifndef FD_WORK_H
#define FD_WORK_H

#include <stdint.h>

struct db;

/* ---------------------------------------------------------------- jobs */

/* A visit lasts at most this long (the schema checks it too); longer work
 * is several visits. It also bounds the scan of visit_list_range. */
#define VISIT_MAX_SECONDS (7 * 24 * 3600)

struct job {
	int64_t id;
	int64_t customer_id;
	char *customer_name; /* filled by job_get/job_list */
	char *title;
	char status[16]; /* open, in_progress, done, cancelled */
	char currency[4];
	char *note; /* NULL when none */
	int64_t created_at, updated_at;
};

/* For job_add every field but note is required (currency NULL: the config
 * key `currency`, else USD). For job_edit, NULL/0 means unchanged and only
 * title, note and (while the job has no line items) currency can change;
 * "" clears the note. Limits: title 1..200 bytes, note 2000, currency a code
 * currency_find() knows (stored upper case). */
struct job_input {
	int64_t customer_id;
	const char *title;
	const char *currency;
	const char *note;
};

/* job_add - create an open job for an existing customer (FD_ENOTFOUND
 * otherwise); *id_out gets its id. */
int job_add(struct db *db, const struct job_input *in, int64_t *id_out);
/* job_get - fill *out with job id (free with job_free); FD_ENOTFOUND. */
int job_get(struct db *db, int64_t id, struct job *out);
/* job_edit - change the given fields; FD_ECONFLICT for a currency change
 * once the job has line items, FD_EINVAL when nothing is given. */
int job_edit(struct db *db, int64_t id, const struct job_input *in);
/* job_set_status - move to status if the transition is legal (FD_ECONFLICT
 * otherwise, naming the statuses allowed from the current one; also when the
 * job has that status already); reason (may be NULL, at most 400 bytes)
 * goes to the status flow. An unknown status name is FD_EINVAL. Legal:
 * open -> in_progress | done | cancelled, in_progress -> open | done |
 * cancelled, done -> in_progress. cancelled is final. */
int job_set_status(struct db *db, int64_t id, const char *status, const char *reason);
/* job_list - jobs of customer_id (0: all), newest first. */
int job_list(struct db *db, int64_t customer_id, int (*cb)(const struct job *j, void *arg),
             void *arg);
void job_free(struct job *j);

/* ---------------------------------------------------------------- visits */

struct visit {
	int64_t id;
	int64_t start_at, end_at; /* UTC seconds; end > start */
	char *location;           /* NULL when none */
	char status[16];          /* scheduled, confirmed, in_progress, done, cancelled, no_show */
	char *note;
	int64_t created_at, updated_at;
	/* filled by visit_get and visit_list_range: */
	char *customers;     /* "Lee", or "Lee +2" for three customers; "" if no job */
	char *services;      /* job titles joined with ", " */
	int64_t est_minutes; /* sum over the visit's links */
};

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

/* ---------------------------------------------------------------- items */

struct line_item {
	int64_t id;
	int64_t job_id;
	char kind[12]; /* SERVICE, FEE, DISCOUNT, TAX, CREDIT */
	char *description;
	int64_t qty_milli;  /* thousandths: 1.5 h = 1500 */
	int64_t unit_price; /* minor units, >= 0 */
	int64_t amount;     /* money_line_amount(qty, price), negative for DISCOUNT and CREDIT;
	                       stored in line_item.amount */
	char currency[4];   /* the job's */
	int64_t created_at, updated_at;
};

/* For item_add job_id, kind, description, qty_milli > 0 and unit_price >= 0
 * are required. For item_edit NULL / negative means unchanged (job_id is
 * ignored: an item never moves to another job). kind is one of SERVICE, FEE,
 * DISCOUNT, TAX, CREDIT (any case); description 1..400 bytes; qty_milli at
 * most 1000000000 (a million units); unit_price is in the job's currency and
 * never negative: DISCOUNT and CREDIT lines make the amount negative. */
struct item_input {
	int64_t job_id;
	const char *kind;
	const char *description;
	int64_t qty_milli;
	int64_t unit_price;
};

/* item_add - add a line to job in->job_id (FD_ENOTFOUND if none), whatever
 * its status (a cancelled job may still carry a fee). FD_EINVAL when the
 * amount, or the sum of the job's items with it, is beyond the money limit
 * (MONEY_MAX in money.h, either sign). */
int item_add(struct db *db, const struct item_input *in, int64_t *id_out);
/* item_get - fill *out (free with item_free); FD_ENOTFOUND. */
int item_get(struct db *db, int64_t id, struct line_item *out);
/* item_edit - change the given fields; the amount is recomputed: what
 * invoices that are not void bill of the item (their snapshots) plus what is
 * left to bill at the unit price. A new unit price applies only to what is
 * left to bill; FD_ECONFLICT when nothing is left (the item is fully
 * invoiced: correct it with a credit note or a new item), or when the
 * quantity would drop below what is invoiced. The job and kind of an
 * invoiced item are fixed (schema triggers). Limits as item_add. */
int item_edit(struct db *db, int64_t id, const struct item_input *in);
/* item_settle - inside a write transaction, after invoice invoice_id was
 * issued or voided: give every line item it bills the amount it costs now
 * (see item_edit). Called by invoicing. */
int item_settle(struct db *db, int64_t invoice_id);
/* item_delete - remove a line item (kept in line_item_his). Invoicing will
 * refuse this for an invoiced item. */
int item_delete(struct db *db, int64_t id);
/* item_list - the line items of job_id in the order they were added. */
int item_list(struct db *db, int64_t job_id, int (*cb)(const struct line_item *li, void *arg),
              void *arg);
void item_free(struct line_item *li);

#endif
