/*
 * control.h - named leases and locks in the control table, with fencing.
 *
 * A lease says which process runs a background role (the task runner, later
 * the payment channel worker); a lock says that one operator runs a long
 * batch (a full projection rebuild, later a reconciliation or a purge). Both
 * are one row of the control table: the holder (host, process id, a random
 * token, the person), when it was acquired, its last heartbeat, when it
 * expires, and an epoch that grows by one at every acquisition.
 *
 * Rules, all checked inside BEGIN IMMEDIATE transactions so that two
 * processes never both believe they hold a name:
 *  - acquire succeeds when the row is free, expired, or held by a process of
 *    this host that no longer exists (kill -9); it bumps the epoch;
 *  - renew extends the expiry only while the epoch and token are still ours;
 *  - a holder's writes call control_fence() in their own transaction: the
 *    write commits only if the epoch and token are unchanged and the lease has
 *    not expired. A holder that was paused (SIGSTOP, a long GC-like stall)
 *    past its expiry and replaced cannot write when it wakes up.
 *
 * Times are the real clock (control_now()), never FRONTDESK_NOW.
 * Callers: the task runner (task.c), the full rebuild (projection.c), the
 * command line (cli-ops.c: `frontdesk lease`), later serve and the screen.
 */
#ifndef FD_CONTROL_H
#define FD_CONTROL_H

#include <stdint.h>

struct db;

enum control_kind { CONTROL_LEASE = 0, CONTROL_LOCK = 1 };

/* What a holder keeps after acquiring: the proof it shows when it writes. */
struct control_hold {
	char name[65];
	int64_t epoch;      /* the epoch this acquisition set */
	int64_t token;      /* random, identifies this acquisition */
	int ttl;            /* seconds the hold lasts after each renewal */
	int64_t expires_at; /* as last written by acquire/renew */
};

/* One row of the control table, for listings and refusals. */
struct control_info {
	char *name;
	char kind[8];     /* "lease" or "lock" */
	char *owner_host; /* NULL when free */
	int64_t owner_pid;
	char *operator_id;
	int64_t acquired_at, heartbeat_at, expires_at; /* 0 when free */
	int64_t epoch;
	int state; /* CONTROL_FREE, CONTROL_HELD, CONTROL_EXPIRED, CONTROL_ORPHANED */
};

enum { CONTROL_FREE = 0, CONTROL_HELD, CONTROL_EXPIRED, CONTROL_ORPHANED };

/* The names used by frontdesk itself. */
#define CONTROL_RUNNER    "runner"             /* lease: the task runner */
#define CONTROL_CHANNEL   "channel"            /* lease: the channel worker */
#define CONTROL_REBUILD   "projection-rebuild" /* lock: projection rebuild --all */
#define CONTROL_BACKUP    "backup"             /* lock: a backup is being taken */
#define CONTROL_RETENTION "retention-run"      /* lock: a retention run */

/* control_now - the real time in UTC seconds (ignores FRONTDESK_NOW). */
int64_t control_now(void);

/* control_acquire - take name (a lease or a lock of ttl >= 1 seconds) for
 * this process in its own write transaction and fill *h (only written, so it
 * need not be initialized; on failure it holds nothing). FD_ECONFLICT when a
 * live holder has it (even another part of this process), with a reason
 * naming the holder (host, process, person), since when and until when;
 * FD_EINVAL for a bad name or ttl; FD_EBUSY/FD_EDB from the database. Keep
 * a hold with control_renew, not by acquiring again. */
int control_acquire(struct db *db, const char *name, enum control_kind kind, int ttl,
                    struct control_hold *h);

/* control_renew - push h's expiry to now + ttl in its own transaction and
 * record a heartbeat. FD_ECONFLICT (with a reason) when the hold was lost:
 * another process acquired the name since (the epoch moved) or it was broken.
 * A hold that expired but that nobody took over is renewed. */
int control_renew(struct db *db, struct control_hold *h);

/* control_release - give name up if h still holds it (own transaction).
 * The epoch is kept, so an old holder stays fenced out. Releasing a hold
 * that was lost is not an error. */
int control_release(struct db *db, struct control_hold *h);

/* control_fence - call INSIDE the caller's write transaction, before the
 * writes it guards: 0 if h still holds its name (same epoch and token, not
 * expired), else FD_ECONFLICT with a reason. Checked in the same
 * transaction as the writes, the answer cannot change before they commit. */
int control_fence(struct db *db, const struct control_hold *h);

/* control_get - fill *out with name's row (free with control_info_free);
 * FD_ENOTFOUND when nobody ever took it. */
int control_get(struct db *db, const char *name, struct control_info *out);

/* control_list - every row, by name; stops at the first non-zero value of
 * cb and returns it. */
int control_list(struct db *db, int (*cb)(const struct control_info *ci, void *arg), void *arg);

/* control_break - an operator frees name whoever holds it (for a holder that
 * is stuck but alive). The epoch grows, so the old holder can no longer
 * write. FD_ENOTFOUND for an unknown name; FD_EPERM without the permission
 * operations. (Acquiring, renewing and releasing a lease, and stamps, are
 * the program's own bookkeeping: not a person's permission.) */
int control_break(struct db *db, const char *name);

void control_info_free(struct control_info *ci);

/* Stamps: a row of the control table that is never held, only records
 * when something last happened (acquired_at = heartbeat_at = that time;
 * the epoch counts the times), so that every session can read it. */
#define CONTROL_BACKUP_LAST "backup-last" /* stamp: the last checked backup */

/* control_stamp - record that name happened at t (UTC seconds, the
 * caller's clock), in its own write transaction. FD_ECONFLICT if name is a
 * lease or lock that someone holds; FD_EINVAL for a bad name. */
int control_stamp(struct db *db, const char *name, int64_t t);

/* control_stamp_get - *t = the time name last happened, 0 when never. */
int control_stamp_get(struct db *db, const char *name, int64_t *t);

/* ------------------------------------------------- acting for the shop */

/* Who may do what (staff.h) is asked of a person, once per action, in the
 * action's own write transaction before it writes: every core writer calls
 * control_require, which is staff_require, except while the thread carries
 * out an action that is already decided, between control_acting_enter and
 * control_acting_leave (they nest):
 *  - a step of the pipeline carrying out what a provider sent or what the
 *    shop's own rules decide (the booking channel deciding a request by the
 *    capacity rule, the scheduled reconciliation and retention pass);
 *  - the parts of an action that was checked as a whole (a booking adds a
 *    visit, its jobs and links: the person needed booking, not each part's
 *    permission), so that an approval given for the action is used once.
 * Then control_require passes without asking.
 *
 * The front ends never act for the shop: this part is hidden from them and
 * its names are poisoned there (layer-frontend.h). */
#ifndef FD_LAYER_FRONTEND_H
#include <stddef.h>

#include "staff.h"
void control_acting_enter(void);
void control_acting_leave(void);
/* control_require - 0 while acting for the shop, else staff_require. */
int control_require(struct db *db, enum perm p, int64_t amount, const char *subject);
/* control_require_own_visit - 0 while acting for the shop, else
 * staff_require_own_visit (a technician works on their own visits). */
int control_require_own_visit(struct db *db, int64_t appt, const char *subject);
/* control_ask - control_require in a write transaction of its own, for long
 * work made of several transactions (a reconciliation, a purge, a full
 * rebuild, a backup, a report): called before the first of them, so that a
 * refusal writes nothing (an approval it uses is written as used). */
int control_ask(struct db *db, enum perm p, int64_t amount, const char *subject);
#endif

#endif
