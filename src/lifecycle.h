/*
 * lifecycle.h - the customer lifecycle projection (customer_lifecycle,
 * migration 0020): a read model of one row per customer, rebuilt by
 * 'lifecycle' tasks that triggers enqueue whenever a visit, job, payment,
 * invoice, channel order, contact, hold or deletion of the customer
 * changes. Like the calendar projection it is recomputed from the
 * authoritative records, never incremented, rebuildable (lifecycle_rebuild_all)
 * and checked (lifecycle_check, by `frontdesk check`). It is never used to
 * decide a purge: the process manager (retention.h) re-checks the records.
 *
 * Activity (README "Retention"): a customer's last activity is the latest
 * of the kinds listed in the config key retention_activity (default
 * "visits,payments"; also "contacts" and "orders"): the start of a visit
 * that was not cancelled, the time a payment that is not void was received
 * or a refund was made, a contact-log entry, a channel order created. A
 * customer with none counts from when they were added. Whatever kind it
 * is, activity recorded while a deletion of the customer was under way
 * (retention_activity: what cancelled that deletion) counts too, from when
 * it was recorded, so the next run does not propose them again.
 *
 * Callers: retention.c (the task handler, the candidates), checkdb.c, the
 * command line (retention candidates / lifecycle), the tests.
 */
#ifndef FD_LIFECYCLE_H
#define FD_LIFECYCLE_H

#include <stdint.h>

struct db;

#define LIFECYCLE_VERSION   1
#define LIFECYCLE_TASK_KIND "lifecycle"

/* Where a customer stands (customer_lifecycle.state): active, or the state
 * of their live deletion (retention.h), or purged. Each is stored as the
 * word lifecycle_state_word gives. */
enum lifecycle_state {
	LIFECYCLE_ACTIVE,
	LIFECYCLE_PREPARING,
	LIFECYCLE_SOFT_DELETED,
	LIFECYCLE_PURGING,
	LIFECYCLE_PURGED,
	LIFECYCLE_STATES /* no state of ours: a word lifecycle_state_of does not know */
};

/* lifecycle_state_of - the state a stored word names (LIFECYCLE_STATES:
 * none); lifecycle_state_word - its stored word ("" for LIFECYCLE_STATES). */
enum lifecycle_state lifecycle_state_of(const char *word);
const char *lifecycle_state_word(enum lifecycle_state s);

struct lifecycle_row {
	int64_t customer_id;
	int64_t last_activity_at;  /* UTC seconds */
	int64_t open_appointments; /* scheduled, confirmed or in progress */
	int64_t owing_invoices;    /* issued or partially paid with a balance */
	int64_t open_credits;      /* money the shop holds for them: unallocated
	                              payments, overpaid invoices */
	int held;                  /* a legal hold */
	char state[16];            /* active, preparing, soft_deleted, purging, purged */
	char deletion_id[33];      /* the live deletion, "" when none */
	int64_t generation;        /* of the live deletion, else the last one's (0 none) */
	int64_t delete_after;      /* 0 unless soft-deleted */
	int version, schema_version;
	int64_t built_at;
};

/* lifecycle_compute - what customer_id's row should say now; FD_ENOTFOUND. */
int lifecycle_compute(struct db *db, int64_t customer_id, struct lifecycle_row *out);

/* lifecycle_get - the stored row; FD_ENOTFOUND when there is none (yet). */
int lifecycle_get(struct db *db, int64_t customer_id, struct lifecycle_row *out);

/* lifecycle_rebuild_in_tx - recompute and store customer_id's row inside the
 * caller's write transaction (a customer that no longer exists loses its
 * row). *changed (may be NULL) = 1 when the stored row changed. */
int lifecycle_rebuild_in_tx(struct db *db, int64_t customer_id, int *changed);

/* lifecycle_rebuild_all - every customer's row, in write transactions of a
 * few hundred customers; *n_out (may be NULL) = rows written. */
int lifecycle_rebuild_all(struct db *db, int64_t *n_out);

/* lifecycle_candidates - one indexed query on the projection: the active,
 * not held (held too when with_held, for a dry run to show the hold)
 * customers whose last activity is before cutoff, with no open visit, no
 * owing invoice and no open credit, oldest activity first, at most limit
 * (0: all). cb's non-zero return stops the walk and is returned. */
int lifecycle_candidates(struct db *db, int64_t cutoff, int limit, int with_held,
                         int (*cb)(const struct lifecycle_row *r, void *arg), void *arg);

/* lifecycle_candidates_sql - that query's text, for the tests' plan check. */
const char *lifecycle_candidates_sql(void);

/* lifecycle_check - compare every stored row with lifecycle_compute and
 * report each difference through report (code "lifecycle-stale"); a
 * customer whose lifecycle task is still queued is catching up, not stale.
 * Returns the number reported or a negative FD_E* code. */
int lifecycle_check(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
                    void *arg);

/* lifecycle_check_in - lifecycle_check for the customers whose ids the
 * query ids_sql (a SELECT of one column, binding nothing) returns: the
 * customers of a range (`frontdesk check --since`). */
int lifecycle_check_in(struct db *db, const char *ids_sql,
                       void (*report)(const char *code, const char *detail, void *arg), void *arg);

#endif
