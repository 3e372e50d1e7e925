/*
 * history.h - a record's timeline: what the history tables, the status
 * flows and the request log say about it, for a person who asks "who changed
 * this price?" or "why is this invoice unpaid?".
 *
 * Every table of records keeps a history table (X_his, written by triggers:
 * one row per insert, update and delete, with the operator and the time);
 * every status change is a status_flow row (from, to, reason, operator); the
 * calls to a payment channel are in the request log, a file of its own. The
 * timeline of record KIND ID merges them, oldest first:
 *  - "created": the first history row, with the fields it was created with;
 *  - "changed": a later history row, with only the fields that differ from
 *    the row before it (old -> new); a row that changed only the status is
 *    left to its status flow entry, which says why;
 *  - "deleted": the row was deleted;
 *  - "status": a status flow row (from -> to, with its reason);
 *  - "request": for card orders and inbound events, each request-log entry
 *    that names the record's ids (our order number, the channel's ids).
 * A visit's timeline also holds the history of its links to jobs ("link N").
 * A contact (the contact log is only ever added to) has its one "created".
 * Amounts are shown in the record's currency, times in shop time.
 *
 * Cost: each part is read by an index on the record's id (X_his_by_id,
 * status_flow_by_entity, and for a visit's links appointment_work_his_by_appt
 * of migration 0010), so a timeline costs what the record has, not what
 * the database holds; the request log is scanned (it is pruned by age).
 *
 * Callers: `frontdesk history`, the tests, bench/history.sh.
 */
#ifndef FD_HISTORY_H
#define FD_HISTORY_H

#include <stddef.h>
#include <stdint.h>

struct db;

/* One field that changed: old is NULL on creation; either may be "-" for
 * an empty value. */
struct history_change {
	const char *field;
	const char *old_value;
	const char *new_value;
};

struct history_event {
	int64_t at;                /* our clock (UTC seconds); real time for "request" */
	const char *operator;      /* who (a login of the staff register), "" when not known */
	const char *operator_name; /* their name in the register; "" when not known or the
	                              same as the login */
	const char *what;          /* "created", "changed", "deleted", "status", "request" */
	const char *part;          /* "" for the record itself, "link 4" for a visit's link */
	const struct history_change *changes;
	size_t nchanges;
	const char *from_status, *to_status; /* "status": from may be NULL */
	const char *reason;                  /* "status": NULL when none */
	const char *request;                 /* "request": "POST /v1/... 200 (keyword, 12 ms)" */
};

/* history_kind_check - 0 when kind is a kind word of history_read
 * (customer, job, visit or appt, item, invoice, payment, allocation,
 * refund, card-order, inbound or event, service, contact, estimate,
 * approval), else FD_EINVAL
 * with a message that lists them. */
int history_kind_check(const char *kind);

/* history_read - the timeline of record `ref` of kind `kind` (a kind word;
 * "appt" and "event" are accepted too), oldest first, to cb (a non-zero
 * return stops and is returned). ref is the record's id; an invoice may be
 * named by its number and a card order by its order number. log_path is
 * the request log (NULL: not read). FD_EINVAL for an unknown kind or a bad
 * ref, FD_ENOTFOUND when no such record ever existed (a deleted one still
 * has its history). One read transaction. */
int history_read(struct db *db, const char *kind, const char *ref, const char *log_path,
                 int (*cb)(const struct history_event *e, void *arg), void *arg);

#endif
