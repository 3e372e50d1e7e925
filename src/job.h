/*
 * job.h - jobs (table service_order), owned by job.c.
 *
 * A job is work for one customer in one currency; it may need several
 * visits (visit.h). Line items belong to the job, never to a visit
 * (item.h), so a job done over two visits is billed once.
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
 * Callers: the command line (cli-work.c), the screen, the demo, bookings,
 * invoicing (reads jobs).
 */
#ifndef FD_JOB_H
#define FD_JOB_H

#include <stdint.h>

struct db;

/* ---------------------------------------------------------------- jobs */

struct job {
	int64_t id;
	int64_t customer_id;
	char *customer_name; /* filled by job_get/job_list */
	char *title;
	char status[16]; /* open, in_progress, done, cancelled: job_state_of */
	char currency[4];
	char *note; /* NULL when none */
	int64_t created_at, updated_at;
};

/* A job's states, each stored as the word job_state_word gives; its legal
 * moves are job_states' (job.c), which the schema's status_transition rows
 * mirror (states_agree checks that both say the same). */
enum job_state {
	JOB_OPEN,
	JOB_IN_PROGRESS,
	JOB_DONE,
	JOB_CANCELLED,
	JOB_STATES /* no state of ours: a word job_state_of does not know */
};

struct states;
/* job_states - a job's words and moves (states.h), for states_agree. */
extern const struct states job_states;

/* job_state_of - the state a stored word names (JOB_STATES: none, or NULL);
 * job_state_word - its stored word ("" for JOB_STATES). */
enum job_state job_state_of(const char *word);
const char *job_state_word(enum job_state s);

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

#endif
