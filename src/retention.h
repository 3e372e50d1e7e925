/*
 * retention.h - customer data retention: the process manager that proposes
 * former customers for deletion, prepares, soft-deletes, cancels and purges
 * them (migration 0020; the read model is lifecycle.h).
 *
 * One deletion (a retention_process row) has a deletion id (32 hex digits,
 * random) and a generation: the customer's deletions are numbered 1, 2, ...
 * and a cancellation raises the generation of the deletion it cancels, so
 * every command names (deletion id, generation) and one of an older
 * generation is ignored: a late purge never deletes a restored customer.
 *
 * States: preparing -> soft_deleted -> purging -> purged, or preparing ->
 * rejected (a module found a blocker) and preparing / soft_deleted ->
 * cancelled (new activity, a restore by a person, a blocker found again).
 *
 *  - Prepare: each module (work: visits, jobs and line items; billing;
 *    channel orders and their stored payloads; contact log; booking
 *    requests; estimates and signed documents; the customer record)
 *    re-checks its own blockers inside its own write transaction and marks
 *    its data pending deletion (retention_mark). A blocker rejects the
 *    deletion as a whole: the marks already written are restored in the
 *    same transaction.
 *  - Soft delete: once every module has confirmed, the customer leaves
 *    lists and search (customer_search) until delete_after, which is the
 *    configured retention period (retention_soft_days, default 30) later.
 *  - Cancel (retention_cancel, the one path back): every module's mark is
 *    restored in one transaction, the generation goes up. New activity (a
 *    visit, a job, a payment, an invoice, a channel order or event, a
 *    contact: the triggers of 0020 write retention_activity in the
 *    activity's own transaction) cancels at the next lifecycle task, run or
 *    purge, whichever comes first.
 *  - Purge: only after delete_after, never while a backup or restore runs
 *    (their control-table locks), with every blocker checked again in the
 *    purge's own transaction. Personal text is removed in current tables,
 *    history, status-flow reasons, stored raw channel payloads, outbox
 *    payloads, the request log (its own file) and the contact log;
 *    amounts, ids and times stay, so `check` and the reports give the same
 *    totals. The purge runs with PRAGMA secure_delete on, then removes the
 *    signed documents and estimate PDFs, VACUUMs (retention_vacuum, default
 *    on) and truncates the WAL of both files. A deletion certificate is
 *    kept: deletion id, sha256 of "<deletion id>:customer:<id>", when, which
 *    modules confirmed.
 *
 * Every step is its own transaction and is written so that it can be run
 * again: after a crash, retention_run resumes each deletion where it
 * stopped (preparing: the modules still to prepare; purging: the files and
 * the vacuum), so a customer ends fully active, fully soft-deleted or fully
 * purged.
 *
 * Callers: cli-retention.c, the screen's retention view, the worker
 * (serve: retention_auto_hour), the tests.
 */
#ifndef FD_RETENTION_H
#define FD_RETENTION_H

#include <stddef.h>
#include <stdint.h>

struct db;
struct states;

#define RETENTION_ID_LEN 32

/* The states of a deletion (above), each stored as the word
 * retention_state_word gives (the column retention_process.state). Its
 * moves are the rows of status_transition for retention_process. */
enum retention_state {
	RETENTION_PREPARING,
	RETENTION_SOFT_DELETED,
	RETENTION_PURGING,
	RETENTION_PURGED,
	RETENTION_CANCELLED,
	RETENTION_REJECTED,
	RETENTION_STATES /* no state of ours: a word retention_state_of does not know */
};

/* retention_process's states, words and moves (states.h), for
 * states_agree. */
extern const struct states retention_states;

/* retention_state_of - the state a stored word names (RETENTION_STATES:
 * none); retention_state_word - its stored word ("" for RETENTION_STATES). */
enum retention_state retention_state_of(const char *word);
const char *retention_state_word(enum retention_state s);

/* One deletion as stored. */
struct retention_proc {
	char deletion_id[RETENTION_ID_LEN + 1];
	int64_t customer_id; /* 0 once purged */
	int64_t generation;
	char state[16]; /* preparing, soft_deleted, purging, purged, cancelled, rejected */
	char *reason;   /* why it was rejected or cancelled; NULL when none */
	char *customer; /* the customer's name while it exists, else NULL */
	char *modules;  /* the modules that confirmed, comma-separated ("" none) */
	int64_t proposed_at, soft_deleted_at, delete_after, finished_at; /* 0 when not */
	int64_t updated_at;
};

/* What retention_run did or, with dry_run, would do, one call per step. */
struct retention_event {
	const char *action; /* "propose", "soft-delete", "reject", "cancel", "purge",
	                       "wait" (soft-deleted, not due), "resume", "skip" */
	int64_t customer_id;
	const char *customer;    /* name, NULL once purged */
	const char *deletion_id; /* "" for a dry-run proposal */
	int64_t generation;
	int64_t when;       /* delete_after for soft-delete and wait, else 0 */
	const char *reason; /* translated, NULL when none */
};

struct task_backlog;

struct retention_run_opts {
	int dry_run; /* list what would happen with the reasons; write nothing */
	int propose; /* look for new candidates (1) or only move deletions on (0) */
	int purge;   /* purge the deletions that are due (1) */
	int limit;   /* most new proposals in one run; 0: no limit */
	/* how to bring the lifecycle rows up to date first (task_catch_up, for
	 * a person's run); NULL: not at all (the runner itself, the screen) */
	int (*catch_up)(struct db *db, const char *kind, int wait_ms, struct task_backlog *out);
	int (*cb)(const struct retention_event *e, void *arg); /* may be NULL */
	void *arg;
};

/* retention_months / retention_soft_days - the configured inactivity period
 * in calendar months (retention_months, default 36, 1..1200) and the
 * soft-delete period in days (retention_soft_days, default 30, 0..3650). */
int retention_months(void);
int retention_soft_days(void);

/* retention_cutoff - the first instant that still counts as recent for a
 * run at now: local midnight (shop time zone) of the day `months` calendar
 * months before now's day, the day clamped to the month's length (31 May -
 * 3 months = 28 or 29 February). A customer is inactive when the last
 * activity is < the cutoff (half-open). */
int64_t retention_cutoff(int64_t now, int months);

/* retention_run - one pass: resume interrupted deletions, cancel those with
 * new activity, purge those due, then propose, prepare and soft-delete the
 * candidates (lifecycle_candidates). With o->catch_up, brings the lifecycle
 * rows up to date first (the tasks still queued). Takes the "retention-run" lock: FD_ECONFLICT
 * naming its holder when another run is under way. cb (opts) hears every step. */
int retention_run(struct db *db, const struct retention_run_opts *o);

/* retention_auto - the scheduled pass of `serve`: once a day, from the
 * hour retention_auto_hour (0..23, shop time; unset or -1: never), a
 * retention_run that proposes and purges. *steps = how many steps it took
 * (0 when it was not due). FD_ECONFLICT when another run holds the lock. */
int retention_auto(struct db *db, int64_t *steps);

/* retention_propose - propose customer_id now (a person's request): the same
 * checks as a run's candidates (inactive, nothing open, not held): FD_EINVAL
 * with the reason when one fails. *id_out (RETENTION_ID_LEN + 1 bytes) gets
 * the deletion id; the customer is soft-deleted when every module prepared. */
int retention_propose(struct db *db, int64_t customer_id, char *id_out);

/* retention_purge - purge deletion_id of generation now (the command the
 * worker and a person give). *ignored = 1 with *why (translated, static)
 * when the command is stale or early and nothing changed: another
 * generation, a deletion that is not soft-deleted, before delete_after, a
 * backup or restore running. A blocker found again cancels the deletion
 * (also *ignored = 1 with the reason). */
int retention_purge(struct db *db, const char *deletion_id, int64_t generation, int *ignored,
                    const char **why);

/* retention_cancel - restore every module of the live deletion of
 * customer_id in one transaction and raise its generation; reason is kept.
 * FD_ENOTFOUND when the customer has no deletion under way. */
int retention_cancel(struct db *db, int64_t customer_id, const char *reason);

/* retention_hold / retention_release - put a legal hold on customer_id
 * (reason 1..200 bytes, shown wherever deletion is refused) or lift it. A
 * hold cancels a deletion under way. FD_ENOTFOUND, FD_EINVAL, FD_ECONFLICT
 * (already held / not held; a purged customer). */
int retention_hold(struct db *db, int64_t customer_id, const char *reason);
int retention_release(struct db *db, int64_t customer_id);

/* retention_hold_get - the hold of customer_id: 1 with *reason (malloc'd)
 * when held, 0 when not. */
int retention_hold_get(struct db *db, int64_t customer_id, char **reason);

/* retention_list - the deletions in state (NULL: every state; "live":
 * preparing, soft_deleted and purging), newest first. */
int retention_list(struct db *db, const char *state,
                   int (*cb)(const struct retention_proc *p, void *arg), void *arg);

/* retention_get - the deletion deletion_id; FD_ENOTFOUND. */
int retention_get(struct db *db, const char *deletion_id, struct retention_proc *out);

/* A purge's certificate. */
struct retention_cert {
	char deletion_id[RETENTION_ID_LEN + 1];
	char customer_hash[65];
	int64_t generation, proposed_at, purged_at;
	char *modules;
	char *operator_id;
	/* the copies media providers hosted that the purge asked them to
	 * delete, and how many of them are deleted now */
	int64_t hosted, hosted_deleted;
};

/* retention_certs - every certificate, newest first. */
int retention_certs(struct db *db, int (*cb)(const struct retention_cert *c, void *arg), void *arg);

/* The task handler of lifecycle tasks (task.c): cancels the customer's
 * deletion when it has new activity, then rebuilds the lifecycle row. */
int retention_lifecycle_task(struct db *db, const char *key);

void retention_proc_free(struct retention_proc *p);

/* retention_proc_may_restore - 1 when deletion p can still be undone (it is
 * preparing or soft-deleted; a purge under way cannot be). */
int retention_proc_may_restore(const struct retention_proc *p);

/* retention_proc_awaits_purge - 1 when p is soft-deleted, waiting for its
 * purge date. */
int retention_proc_awaits_purge(const struct retention_proc *p);
void retention_cert_free(struct retention_cert *c);

#endif
