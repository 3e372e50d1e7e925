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
 */
#ifndef FD_WORK_H
#define FD_WORK_H

#include <stdint.h>

struct db;

/* ---------------------------------------------------------------- jobs */

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
 * title, note and (while the job has no line items) currency can change. */
struct job_input {
	int64_t customer_id;
	const char *title;
	const char *currency;
	const char *note;
};

int job_add(struct db *db, const struct job_input *in, int64_t *id_out);
int job_get(struct db *db, int64_t id, struct job *out);
int job_edit(struct db *db, int64_t id, const struct job_input *in);
/* job_set_status - move to status if the transition is legal (FD_ECONFLICT
 * otherwise); reason (may be NULL) goes to the status flow. */
int job_set_status(struct db *db, int64_t id, const char *status, const char *reason);
/* job_list - jobs of customer_id (0: all), newest first. */
int job_list(struct db *db, int64_t customer_id, int (*cb)(const struct job *j, void *arg),
	     void *arg);
void job_free(struct job *j);

/* ---------------------------------------------------------------- visits */

struct appt {
	int64_t id;
	int64_t start_at, end_at; /* UTC seconds; end > start */
	char *location;           /* NULL when none */
	char status[16]; /* scheduled, confirmed, in_progress, done, cancelled, no_show */
	char *note;
	int64_t created_at, updated_at;
	/* filled by appt_get and appt_list_range: */
	char *customers; /* "Lee", or "Lee +2" for three customers; "" if no job */
	char *services;  /* job titles joined with ", " */
	int64_t est_minutes; /* sum over the visit's links */
};

/* For appt_add start_at and end_at are required. For appt_edit, 0 / NULL
 * means unchanged; "" clears location or note. */
struct appt_input {
	int64_t start_at, end_at;
	const char *location;
	const char *note;
};

int appt_add(struct db *db, const struct appt_input *in, int64_t *id_out);
int appt_get(struct db *db, int64_t id, struct appt *out);
int appt_edit(struct db *db, int64_t id, const struct appt_input *in);
int appt_set_status(struct db *db, int64_t id, const char *status, const char *reason);
/* appt_list_range - every visit that overlaps [from, to) (a visit that
 * crosses midnight belongs to both days), by start time. */
int appt_list_range(struct db *db, int64_t from, int64_t to,
		    int (*cb)(const struct appt *a, void *arg), void *arg);
void appt_free(struct appt *a);

/* ---------------------------------------------------------------- links */

struct link {
	int64_t id;
	int64_t appt_id, job_id;
	int64_t est_minutes;
	char *job_title;     /* filled by link_list */
	char *customer_name; /* filled by link_list */
	int64_t customer_id;
};

/* link_add - visit appt_id works on job job_id for est_minutes (0..100000).
 * Refused for a cancelled job or a visit that is done/cancelled/no-show, and
 * when the link exists already. */
int link_add(struct db *db, int64_t appt_id, int64_t job_id, int64_t est_minutes, int64_t *id_out);
int link_edit(struct db *db, int64_t appt_id, int64_t job_id, int64_t est_minutes);
int link_remove(struct db *db, int64_t appt_id, int64_t job_id);
/* link_list - links of visit appt_id (or, with appt_id 0, of job job_id). */
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
	int64_t amount; /* money_line_amount(qty, price), negative for DISCOUNT and CREDIT */
	char currency[4]; /* the job's */
	int64_t created_at, updated_at;
};

/* For item_add job_id, kind, description, qty_milli > 0 and unit_price >= 0
 * are required. For item_edit NULL / negative means unchanged. */
struct item_input {
	int64_t job_id;
	const char *kind;
	const char *description;
	int64_t qty_milli;
	int64_t unit_price;
};

int item_add(struct db *db, const struct item_input *in, int64_t *id_out);
int item_get(struct db *db, int64_t id, struct line_item *out);
int item_edit(struct db *db, int64_t id, const struct item_input *in);
int item_delete(struct db *db, int64_t id);
int item_list(struct db *db, int64_t job_id, int (*cb)(const struct line_item *li, void *arg),
	      void *arg);
void item_free(struct line_item *li);

#endif
