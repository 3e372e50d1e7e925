/*
 * control.c - leases and locks of the control table (see control.h).
 *
 * Invariants: every acquisition, renewal, release and break is one
 * BEGIN IMMEDIATE transaction that reads the row and writes it, so the
 * decision and the write see the same state; every acquisition increments
 * the epoch; a hold is identified by (name, epoch, token), never by the
 * process id alone (ids are reused). A holder on this host whose process is
 * gone (kill(pid, 0) says ESRCH) is treated as expired, so a lock left by a
 * crashed command does not make the next operator wait for the expiry.
 */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "xalloc.h"

#define MAX_TTL (7 * 86400)

int64_t control_now(void)
{
	return clock_real();
}

/* This host's name into buf (no static buffer: the screen's runner thread
 * and its main thread both take leases). */
static void host_name(char *buf, size_t n)
{
	if (gethostname(buf, n - 1) != 0 || !buf[0])
		snprintf(buf, n, "localhost");
	buf[n - 1] = '\0';
}

static int64_t random_token(void)
{
	uint64_t v = 0;

	if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		v = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40);
	}
	v &= INT64_MAX;
	return v ? (int64_t)v : 1;
}

static int check_name(const char *name)
{
	size_t i, n = name ? strlen(name) : 0;

	if (n < 1 || n > 64)
		return err_set(FD_EINVAL, _("a lease or lock name has 1 to 64 characters"));
	for (i = 0; i < n; i++) {
		char ch = name[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ||
		      ch == '_' || ch == '.'))
			return err_set(
			    FD_EINVAL,
			    _("the name '%.64s' may hold only a-z, 0-9, '-', '_' and '.'"), name);
	}
	return 0;
}

/* 1 if the holder is a process of this host that no longer exists. */
static int holder_gone(const char *host, int64_t pid)
{
	char me[256];

	host_name(me, sizeof me);
	if (!host || strcmp(host, me) != 0 || pid <= 0 || pid > INT32_MAX)
		return 0;
	return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

#define INFO_COLS                                                                                  \
	"name, kind, owner_host, owner_pid, operator_id, acquired_at, heartbeat_at, expires_at, "  \
	"epoch"

static void fill_info(sqlite3_stmt *st, int64_t now, struct control_info *ci)
{
	const unsigned char *kind = sqlite3_column_text(st, 1);

	memset(ci, 0, sizeof *ci);
	ci->name = dbrow_dup(st, 0);
	snprintf(ci->kind, sizeof ci->kind, "%s", kind ? (const char *)kind : "?");
	ci->owner_host = dbrow_dup(st, 2);
	ci->owner_pid = sqlite3_column_int64(st, 3);
	ci->operator_id = dbrow_dup(st, 4);
	ci->acquired_at = sqlite3_column_int64(st, 5);
	ci->heartbeat_at = sqlite3_column_int64(st, 6);
	ci->expires_at = sqlite3_column_int64(st, 7);
	ci->epoch = sqlite3_column_int64(st, 8);
	if (!ci->owner_host)
		ci->state = CONTROL_FREE;
	else if (ci->expires_at <= now)
		ci->state = CONTROL_EXPIRED;
	else if (holder_gone(ci->owner_host, ci->owner_pid))
		ci->state = CONTROL_ORPHANED;
	else
		ci->state = CONTROL_HELD;
}

void control_info_free(struct control_info *ci)
{
	free(ci->name);
	free(ci->owner_host);
	free(ci->operator_id);
	memset(ci, 0, sizeof *ci);
}

int control_get(struct db *db, const char *name, struct control_info *out)
{
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	rc = db_prepare(db, "SELECT " INFO_COLS " FROM control WHERE name = ?", &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		fill_info(st, control_now(), out);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, _("there is no lease or lock named '%.64s'"), name);
	else
		rc = db_fail(db, _("cannot read the control table"));
	sqlite3_finalize(st);
	return rc;
}

/* The refusal when ci (held by someone else) blocks an acquisition. */
static int held_by_other(const struct control_info *ci)
{
	char since[32], until[32];

	clock_format_local(ci->acquired_at, "%Y-%m-%d %H:%M:%S", since, sizeof since);
	clock_format_local(ci->expires_at, "%Y-%m-%d %H:%M:%S", until, sizeof until);
	if (!strcmp(ci->kind, "lock"))
		return err_set(
		    FD_ECONFLICT,
		    _("%1$s is already running: %2$s started it on %3$s (process %4$lld) "
		      "at %5$s; wait until it has finished (its lock expires at %6$s "
		      "unless renewed)"),
		    ci->name, ci->operator_id ? ci->operator_id : "?", ci->owner_host,
		    (long long)ci->owner_pid, since, until);
	return err_set(FD_ECONFLICT,
	               _("the %1$s lease is held by %2$s (process %3$lld, %4$s) since %5$s, until "
	                 "%6$s unless renewed"),
	               ci->name, ci->owner_host, (long long)ci->owner_pid,
	               ci->operator_id ? ci->operator_id : "?", since, until);
}

struct acquire_ctx {
	const char *name;
	enum control_kind kind;
	int ttl;
	struct control_hold *h;
};

static int acquire_tx(struct db *db, void *arg)
{
	struct acquire_ctx *a = arg;
	struct control_info ci;
	sqlite3_stmt *st;
	int64_t now = control_now(), token;
	int rc, step, found = 0;
	char host[256];

	rc = db_prepare(db, "SELECT " INFO_COLS " FROM control WHERE name = ?", &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, a->name, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		fill_info(st, now, &ci);
		found = 1;
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the control table"));
	}
	sqlite3_finalize(st);
	if (rc)
		return rc;
	if (found && ci.state == CONTROL_HELD) {
		/* held and alive, even by another part of this very process */
		rc = held_by_other(&ci);
		control_info_free(&ci);
		return rc;
	}
	if (found)
		control_info_free(&ci);
	token = random_token();
	rc = db_prepare(db,
	                "INSERT INTO control (name, kind, owner_host, owner_pid, owner_token, "
	                "operator_id, acquired_at, heartbeat_at, expires_at, epoch) "
	                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8, 1) "
	                "ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, "
	                "owner_host = excluded.owner_host, owner_pid = excluded.owner_pid, "
	                "owner_token = excluded.owner_token, operator_id = excluded.operator_id, "
	                "acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at, "
	                "expires_at = excluded.expires_at, epoch = control.epoch + 1 "
	                "RETURNING epoch",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, a->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, a->kind == CONTROL_LOCK ? "lock" : "lease", -1, SQLITE_STATIC);
	host_name(host, sizeof host);
	sqlite3_bind_text(st, 3, host, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, (int64_t)getpid());
	sqlite3_bind_int64(st, 5, token);
	sqlite3_bind_text(st, 6, db_operator(), -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 7, now);
	sqlite3_bind_int64(st, 8, now + a->ttl);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(a->h->name, sizeof a->h->name, "%s", a->name);
		a->h->epoch = sqlite3_column_int64(st, 0);
		a->h->token = token;
		a->h->ttl = a->ttl;
		a->h->expires_at = now + a->ttl;
	} else {
		rc = db_fail(db, _("cannot take the lease"));
	}
	sqlite3_finalize(st);
	return rc;
}

int control_acquire(struct db *db, const char *name, enum control_kind kind, int ttl,
                    struct control_hold *h)
{
	struct acquire_ctx a = {name, kind, ttl, h};
	int rc;

	memset(h, 0, sizeof *h); /* written, never read: a refusal leaves a hold of nothing */
	if ((rc = check_name(name)))
		return rc;
	if (ttl < 1 || ttl > MAX_TTL)
		return err_set(FD_EINVAL, _("a lease lasts 1 second to 7 days, not %d seconds"),
		               ttl);
	rc = db_write(db, acquire_tx, &a);
	if (rc)
		memset(h, 0, sizeof *h);
	return rc;
}

static int lost(const struct control_hold *h)
{
	return err_set(FD_ECONFLICT,
	               _("this process no longer holds %s (epoch %lld): another process took it "
	                 "over or an operator broke it"),
	               h->name, (long long)h->epoch);
}

static int renew_tx(struct db *db, void *arg)
{
	struct control_hold *h = arg;
	sqlite3_stmt *st;
	int64_t now = control_now();
	int rc;

	rc = db_prepare(db,
	                "UPDATE control SET heartbeat_at = ?1, expires_at = ?2 "
	                "WHERE name = ?3 AND epoch = ?4 AND owner_token = ?5",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int64(st, 2, now + h->ttl);
	sqlite3_bind_text(st, 3, h->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, h->epoch);
	sqlite3_bind_int64(st, 5, h->token);
	if ((rc = db_run(db, st, _("cannot renew the lease"))))
		return rc;
	if (sqlite3_changes(db_sqlite(db)) != 1)
		return lost(h);
	h->expires_at = now + h->ttl;
	return 0;
}

int control_renew(struct db *db, struct control_hold *h)
{
	if (!h->token)
		return lost(h);
	return db_write(db, renew_tx, h);
}

static int release_tx(struct db *db, void *arg)
{
	struct control_hold *h = arg;
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare(
	    db,
	    "UPDATE control SET owner_host = NULL, owner_pid = NULL, owner_token = NULL, "
	    "operator_id = NULL, expires_at = NULL, heartbeat_at = ?1 "
	    "WHERE name = ?2 AND epoch = ?3 AND owner_token = ?4",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, control_now());
	sqlite3_bind_text(st, 2, h->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, h->epoch);
	sqlite3_bind_int64(st, 4, h->token);
	return db_run(db, st, _("cannot release the lease"));
}

int control_release(struct db *db, struct control_hold *h)
{
	int rc;

	if (!h->token)
		return 0;
	rc = db_write(db, release_tx, h);
	if (rc == 0)
		h->token = 0;
	return rc;
}

int control_fence(struct db *db, const struct control_hold *h)
{
	sqlite3_stmt *st;
	int rc, step;

	if (!h->token)
		return lost(h);
	rc = db_prepare(db,
	                "SELECT 1 FROM control WHERE name = ?1 AND epoch = ?2 AND owner_token = ?3 "
	                "AND expires_at > ?4",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, h->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, h->epoch);
	sqlite3_bind_int64(st, 3, h->token);
	sqlite3_bind_int64(st, 4, control_now());
	step = sqlite3_step(st);
	sqlite3_finalize(st);
	if (step == SQLITE_ROW)
		return 0;
	if (step != SQLITE_DONE)
		return db_fail(db, _("cannot read the control table"));
	return lost(h);
}

int control_list(struct db *db, int (*cb)(const struct control_info *ci, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int64_t now = control_now();
	int rc, step;

	rc = db_prepare(db, "SELECT " INFO_COLS " FROM control ORDER BY name", &st);
	if (rc)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct control_info ci;

		fill_info(st, now, &ci);
		rc = cb(&ci, arg);
		control_info_free(&ci);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the control table"));
	sqlite3_finalize(st);
	return rc;
}

static int break_tx(struct db *db, void *arg)
{
	const char *name = arg;
	sqlite3_stmt *st;
	char subject[96];
	int rc;

	snprintf(subject, sizeof subject, "break the lease %.64s", name);
	if ((rc = control_require(db, PERM_OPERATIONS, 0, subject)))
		return rc;
	rc = db_prepare(
	    db,
	    "UPDATE control SET owner_host = NULL, owner_pid = NULL, owner_token = NULL, "
	    "operator_id = NULL, expires_at = NULL, heartbeat_at = ?1, "
	    "epoch = epoch + 1 WHERE name = ?2",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, control_now());
	sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
	if ((rc = db_run(db, st, _("cannot break the lease"))))
		return rc;
	if (sqlite3_changes(db_sqlite(db)) != 1)
		return err_set(FD_ENOTFOUND, _("there is no lease or lock named '%.64s'"), name);
	return 0;
}

int control_break(struct db *db, const char *name)
{
	int rc;

	if ((rc = check_name(name)))
		return rc;
	return db_write(db, break_tx, (void *)name);
}

struct stamp_ctx {
	const char *name;
	int64_t t;
};

static int stamp_tx(struct db *db, void *arg)
{
	struct stamp_ctx *c = arg;
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare(db,
	                "INSERT INTO control (name, kind, acquired_at, heartbeat_at, epoch) "
	                "VALUES (?1, 'lock', ?2, ?2, 1) ON CONFLICT (name) DO UPDATE SET "
	                "acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at, "
	                "epoch = control.epoch + 1 WHERE control.owner_host IS NULL",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, c->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, c->t);
	if ((rc = db_run(db, st, _("cannot write the control table"))))
		return rc;
	if (sqlite3_changes(db_sqlite(db)) != 1)
		return err_set(FD_ECONFLICT, _("%.64s is held and cannot be stamped"), c->name);
	return 0;
}

int control_stamp(struct db *db, const char *name, int64_t t)
{
	struct stamp_ctx c = {name, t};
	int rc;

	if ((rc = check_name(name)))
		return rc;
	return db_write(db, stamp_tx, &c);
}

int control_stamp_get(struct db *db, const char *name, int64_t *t)
{
	sqlite3_stmt *st;
	int rc, step;

	*t = 0;
	rc = db_prepare(db, "SELECT coalesce(acquired_at, 0) FROM control WHERE name = ?", &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		*t = sqlite3_column_int64(st, 0);
	else if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the control table"));
	sqlite3_finalize(st);
	return rc;
}

/* ------------------------------------------------- acting for the shop */

/* How deep this thread is in steps acting for the shop (control.h). One
 * connection per thread, so the thread is the connection's. */
static _Thread_local int acting;

void control_acting_enter(void)
{
	acting++;
}

void control_acting_leave(void)
{
	if (acting > 0)
		acting--;
}

int control_require(struct db *db, enum perm p, int64_t amount, const char *subject)
{
	return acting ? 0 : staff_require(db, p, amount, subject);
}

int control_require_own_visit(struct db *db, int64_t appt, const char *subject)
{
	return acting ? 0 : staff_require_own_visit(db, appt, subject);
}

struct ask_ctx {
	enum perm p;
	int64_t amount;
	const char *subject;
};

static int ask_tx(struct db *db, void *arg)
{
	struct ask_ctx *a = arg;

	return control_require(db, a->p, a->amount, a->subject);
}

int control_ask(struct db *db, enum perm p, int64_t amount, const char *subject)
{
	struct ask_ctx a = {p, amount, subject};

	if (acting)
		return 0;
	return db_write(db, ask_tx, &a);
}
