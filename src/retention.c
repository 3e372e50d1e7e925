/*
 * retention.c - the process manager of customer deletions (see retention.h
 * for the states and what each step does).
 *
 * Invariants:
 *  - Every step is one write transaction that first loads its deletion and
 *    checks state and generation: a step of an older generation, or one
 *    whose state moved on, changes nothing. A step can therefore be run
 *    again after a crash, and retention_run does exactly that.
 *  - Each module's blockers are asked by their owner (retention-mod.h),
 *    from the authoritative records, inside the step's transaction; the
 *    lifecycle projection only finds candidates.
 *  - Cancellation is one function (cancel_in_tx): every mark of the
 *    deletion is restored and the generation raised in the same
 *    transaction.
 *  - Nothing personal is written here: reasons name records by number and
 *    state; the certificate keeps a hash of the customer reference.
 *
 * Test hook: FRONTDESK_RETENTION_KILL=<step> makes the process SIGKILL
 * itself right after that step ("propose", "prepare:<module>",
 * "soft-delete", "cancel", "purge:log", "purge:commit", "tail:files",
 * "tail:vacuum"), for the crash tests.
 *
 * Permissions: proposals, purges, holds, releases and cancellations ask
 * retention; a run asks once and acts for the shop in its steps; the
 * scheduled pass (retention_auto) and the lifecycle task act for the shop.
 */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "channel.h"
#include "clock.h"
#include "control.h"
#include "crypto-dyn.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "esign.h"
#include "i18n.h"
#include "lifecycle.h"
#include "pipe-log.h"
#include "retention-mod.h"
#include "retention.h"
#include "settings.h"
#include "states.h"
#include "strbuf.h"
#include "task.h"
#include "xalloc.h"

#define WHY_MAX  400
#define RUN_TTL  3600 /* seconds the retention-run lock lasts */
#define LIVE_SQL "('preparing', 'soft_deleted', 'purging')"

/* ---------------------------------------------------------------- states */

/* The stored word of each state of a deletion, once. */
static const char *const state_words[RETENTION_STATES] = {
    [RETENTION_PREPARING] = "preparing", [RETENTION_SOFT_DELETED] = "soft_deleted",
    [RETENTION_PURGING] = "purging",     [RETENTION_PURGED] = "purged",
    [RETENTION_CANCELLED] = "cancelled", [RETENTION_REJECTED] = "rejected",
};

/* The moves of a deletion: the schema's status_transition rows for
 * retention_process (states_agree checks the two are the same). */
static const struct state_move moves[] = {
    {RETENTION_PREPARING, RETENTION_SOFT_DELETED},
    {RETENTION_PREPARING, RETENTION_REJECTED},
    {RETENTION_PREPARING, RETENTION_CANCELLED},
    {RETENTION_SOFT_DELETED, RETENTION_CANCELLED},
    {RETENTION_SOFT_DELETED, RETENTION_PURGING},
    {RETENTION_PURGING, RETENTION_PURGED},
    {-1, -1},
};

const struct states retention_states = {"retention_process", state_words, RETENTION_STATES, moves};

enum retention_state retention_state_of(const char *word)
{
	return (enum retention_state)states_of(&retention_states, word);
}

const char *retention_state_word(enum retention_state s)
{
	return states_word(&retention_states, (int)s);
}

/* The state of p. */
static enum retention_state state_of(const struct retention_proc *p)
{
	return retention_state_of(p->state);
}

/* What a module's mark of a deletion says (retention_mark.state): its data
 * is pending deletion, was restored (the deletion was cancelled), or was
 * purged. The schema names no moves for it. */
enum mark_state { MARK_PENDING, MARK_RESTORED, MARK_PURGED, MARK_STATES };

static const char *const mark_words[MARK_STATES] = {
    [MARK_PENDING] = "pending",
    [MARK_RESTORED] = "restored",
    [MARK_PURGED] = "purged",
};

/* ---------------------------------------------------------------- modules */

typedef int (*blocker_fn)(struct db *db, int64_t customer_id, char *why, size_t n);
typedef int (*purge_fn)(struct db *db, struct retention_purge_ctx *c);

/* The modules in the order they prepare and purge; the customer record
 * goes last. Each names its owner's functions (NULL-terminated). */
static const struct module {
	const char *name;
	blocker_fn blockers[3];
	purge_fn purges[4];
} modules[] = {
    {"work",
     {visit_retention_blocker},
     {visit_retention_purge, job_retention_purge, item_retention_purge}},
    {"billing",
     {invoice_retention_blocker, payment_retention_blocker},
     {invoice_retention_purge, payment_retention_purge, print_retention_purge}},
    {"channel", {chan_order_retention_blocker}, {chan_order_retention_purge}},
    {"contacts", {NULL}, {contact_retention_purge}},
    {"bookings", {NULL}, {booking_chan_retention_purge}},
    {"estimates", {esign_retention_blocker}, {esign_retention_purge}},
    {"recurring", {recurring_retention_blocker}, {recurring_retention_purge}},
    {"messages", {message_retention_blocker}, {message_retention_purge}},
    {"conditions", {NULL}, {media_retention_purge, condition_retention_purge}},
    {"customer", {NULL}, {customer_retention_purge}},
};
#define NMODULES (sizeof modules / sizeof modules[0])

static void kill_point(const char *step)
{
	const char *v = getenv("FRONTDESK_RETENTION_KILL");

	if (v && !strcmp(v, step))
		raise(SIGKILL);
}

int retention_months(void)
{
	long v = config_get_int("retention_months", 36);

	return v < 1 || v > 1200 ? 36 : (int)v;
}

int retention_soft_days(void)
{
	long v = config_get_int("retention_soft_days", 30);

	return v < 0 || v > 3650 ? 30 : (int)v;
}

int64_t retention_cutoff(int64_t now, int months)
{
	time_t t = (time_t)now;
	struct tm tm;
	int y, m, last;

	localtime_r(&t, &tm);
	y = tm.tm_year + 1900;
	m = tm.tm_mon - months % 12;
	y -= months / 12;
	if (m < 0) {
		m += 12;
		y--;
	}
	last = clock_month_days(y, m + 1);
	tm.tm_year = y - 1900;
	tm.tm_mon = m;
	if (tm.tm_mday > last)
		tm.tm_mday = last;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm);
}

static int new_deletion_id(char out[RETENTION_ID_LEN + 1])
{
	char a[17], b[17];
	int rc;

	if ((rc = chan_random_hex(a)) || (rc = chan_random_hex(b)))
		return rc;
	snprintf(out, RETENTION_ID_LEN + 1, "%s%s", a, b);
	return 0;
}

/* ---------------------------------------------------------------- reading */

#define PROC_COLS                                                                                  \
	"p.deletion_id, coalesce(p.customer_id, 0), p.generation, p.state, p.reason,"              \
	" c.name, (SELECT group_concat(module, ',') FROM (SELECT module FROM retention_mark m"     \
	"  WHERE m.deletion_id = p.deletion_id AND m.state IN ('pending', 'purged')"               \
	"  ORDER BY module)),"                                                                     \
	" p.proposed_at, coalesce(p.soft_deleted_at, 0), coalesce(p.delete_after, 0),"             \
	" coalesce(p.finished_at, 0), p.updated_at"                                                \
	" FROM retention_process p LEFT JOIN customer c ON c.id = p.customer_id"

static void fill_proc(sqlite3_stmt *st, struct retention_proc *p)
{
	memset(p, 0, sizeof *p);
	dbrow_copy(st, 0, p->deletion_id, sizeof p->deletion_id);
	p->customer_id = sqlite3_column_int64(st, 1);
	p->generation = sqlite3_column_int64(st, 2);
	dbrow_copy(st, 3, p->state, sizeof p->state);
	p->reason = dbrow_dup(st, 4);
	p->customer = dbrow_dup(st, 5);
	p->modules = dbrow_dup(st, 6);
	if (!p->modules)
		p->modules = xstrdup("");
	p->proposed_at = sqlite3_column_int64(st, 7);
	p->soft_deleted_at = sqlite3_column_int64(st, 8);
	p->delete_after = sqlite3_column_int64(st, 9);
	p->finished_at = sqlite3_column_int64(st, 10);
	p->updated_at = sqlite3_column_int64(st, 11);
}

void retention_proc_free(struct retention_proc *p)
{
	free(p->reason);
	free(p->customer);
	free(p->modules);
	p->reason = p->customer = p->modules = NULL;
}

int retention_get(struct db *db, const char *deletion_id, struct retention_proc *out)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare_cached(db, "SELECT " PROC_COLS " WHERE p.deletion_id = ?1", &st)))
		return rc;
	sqlite3_bind_text(st, 1, deletion_id, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		fill_proc(st, out);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, _("there is no deletion %s"), deletion_id);
	else
		rc = db_fail(db, _("cannot read the deletion"));
	db_release(db, st);
	return rc;
}

/* The live deletion of customer_id: 1 and *out, 0 when none. */
static int live_of(struct db *db, int64_t customer_id, struct retention_proc *out)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare_cached(db,
	                            "SELECT " PROC_COLS " WHERE p.customer_id = ?1"
	                            " AND p.state IN " LIVE_SQL,
	                            &st)))
		return rc;
	sqlite3_bind_int64(st, 1, customer_id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		fill_proc(st, out);
		rc = 1;
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the deletion"));
	}
	db_release(db, st);
	return rc;
}

int retention_list(struct db *db, const char *state,
                   int (*cb)(const struct retention_proc *p, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, step, live = state && !strcmp(state, "live");

	if ((rc = db_prepare(db,
	                     "SELECT " PROC_COLS " WHERE (?1 IS NULL OR p.state = ?1)"
	                     " AND (?2 = 0 OR p.state IN " LIVE_SQL ") ORDER BY p.id DESC",
	                     &st)))
		return rc;
	if (state && !live)
		sqlite3_bind_text(st, 1, state, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, live);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct retention_proc p;

		fill_proc(st, &p);
		rc = cb(&p, arg);
		retention_proc_free(&p);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list the deletions"));
	sqlite3_finalize(st);
	return rc;
}

void retention_cert_free(struct retention_cert *c)
{
	free(c->modules);
	free(c->operator_id);
	c->modules = c->operator_id = NULL;
}

int retention_certs(struct db *db, int (*cb)(const struct retention_cert *c, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc =
	         db_prepare(db,
	                    "SELECT deletion_id, customer_hash, generation, proposed_at, purged_at,"
	                    " modules, operator_id, (SELECT count(*) FROM retention_hosted_copy r"
	                    " WHERE r.deletion_id = c.deletion_id), (SELECT count(*)"
	                    " FROM retention_hosted_copy r JOIN media_host h ON h.id = r.host_id"
	                    " WHERE r.deletion_id = c.deletion_id AND h.status = 'deleted')"
	                    " FROM retention_certificate c ORDER BY purged_at DESC, deletion_id",
	                    &st)))
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct retention_cert c;

		memset(&c, 0, sizeof c);
		dbrow_copy(st, 0, c.deletion_id, sizeof c.deletion_id);
		dbrow_copy(st, 1, c.customer_hash, sizeof c.customer_hash);
		c.generation = sqlite3_column_int64(st, 2);
		c.proposed_at = sqlite3_column_int64(st, 3);
		c.purged_at = sqlite3_column_int64(st, 4);
		c.modules = dbrow_dup(st, 5);
		c.operator_id = dbrow_dup(st, 6);
		c.hosted = sqlite3_column_int64(st, 7);
		c.hosted_deleted = sqlite3_column_int64(st, 8);
		rc = cb(&c, arg);
		retention_cert_free(&c);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list the deletion certificates"));
	sqlite3_finalize(st);
	return rc;
}

#define HOLD_MAX 256 /* a hold's reason (at most 200 bytes) and its NUL */

/* The hold on customer_id: 1 with its reason in buf (may be NULL), 0 when
 * there is none. */
static int hold_reason(struct db *db, int64_t customer_id, char *buf, size_t n)
{
	return retention_first(db, "SELECT reason FROM retention_hold WHERE customer_id = ?1",
	                       customer_id, buf, n);
}

int retention_hold_get(struct db *db, int64_t customer_id, char **reason)
{
	char buf[HOLD_MAX];
	int rc;

	*reason = NULL;
	if ((rc = hold_reason(db, customer_id, buf, sizeof buf)) == 1)
		*reason = xstrdup(buf);
	return rc;
}

/* ---------------------------------------------------------------- checks */

/* Whether a hold keeps customer_id: 1 with why ("held: <reason>"). */
static int held(struct db *db, int64_t customer_id, char *why, size_t n)
{
	char hold[HOLD_MAX];
	int rc = hold_reason(db, customer_id, hold, sizeof hold);

	if (rc == 1)
		snprintf(why, n, _("held: %s"), hold);
	return rc;
}

/* Why customer_id must not be deleted now, from the records: a hold, then
 * each module's blockers. 1 with why, 0 none. */
static int blocked(struct db *db, int64_t customer_id, char *why, size_t n)
{
	size_t i, j;
	int rc = held(db, customer_id, why, n);

	if (rc)
		return rc;
	for (i = 0; !rc && i < NMODULES; i++)
		for (j = 0; !rc && modules[i].blockers[j]; j++)
			rc = modules[i].blockers[j](db, customer_id, why, n);
	return rc;
}

/* Whether customer_id is still inactive: 1 with why when they are not. */
static int recent(struct db *db, int64_t customer_id, int64_t cutoff, char *why, size_t n)
{
	struct lifecycle_row r;
	char when[40];
	int rc;

	if ((rc = lifecycle_compute(db, customer_id, &r)))
		return rc;
	if (r.last_activity_at < cutoff)
		return 0;
	clock_format_local(r.last_activity_at, "%Y-%m-%d", when, sizeof when);
	snprintf(why, n, _("active since the cutoff: last activity on %s"), when);
	return 1;
}

/* The first activity recorded for deletion_id since it began: 1 with why
 * ("new activity: <what>"), which is what cancels the deletion. */
static int new_activity(struct db *db, const char *deletion_id, char *why, size_t n)
{
	sqlite3_stmt *st;
	char what[64];
	int rc, step;

	if ((rc = db_prepare_cached(db,
	                            "SELECT what FROM retention_activity WHERE deletion_id = ?1"
	                            " ORDER BY id LIMIT 1",
	                            &st)))
		return rc;
	sqlite3_bind_text(st, 1, deletion_id, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		dbrow_copy(st, 0, what, sizeof what);
		snprintf(why, n, _("new activity: %s"), what);
		rc = 1;
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the customer's new activity"));
	}
	db_release(db, st);
	return rc;
}

static int lock_held(struct db *db, const char *name)
{
	struct control_info ci;
	int held = 0;

	if (control_get(db, name, &ci) == 0) {
		held = ci.state == CONTROL_HELD;
		control_info_free(&ci);
	}
	err_clear();
	return held;
}

/* ---------------------------------------------------------------- writing */

/* Set the state of deletion_id of generation gen (and more columns by
 * what): the row must still be in from and of gen. */
static int set_state(struct db *db, const struct retention_proc *p, enum retention_state to,
                     int64_t new_gen, const char *reason, int64_t delete_after)
{
	sqlite3_stmt *st;
	int64_t now = clock_now();
	int rc;

	db_set_reason(db, reason);
	rc = db_prepare_cached(
	    db,
	    "UPDATE retention_process SET state = ?3, generation = ?4,"
	    " reason = coalesce(?5, reason),"
	    " soft_deleted_at = CASE WHEN ?3 = 'soft_deleted' THEN ?6 ELSE soft_deleted_at END,"
	    " delete_after = CASE WHEN ?3 = 'soft_deleted' THEN ?7 ELSE delete_after END,"
	    " finished_at = CASE WHEN ?3 IN ('purged', 'cancelled', 'rejected') THEN ?6"
	    "  ELSE finished_at END,"
	    " customer_id = CASE WHEN ?3 = 'purged' THEN NULL ELSE customer_id END,"
	    " updated_at = ?6"
	    " WHERE deletion_id = ?1 AND generation = ?2",
	    &st);
	if (rc)
		goto out;
	sqlite3_bind_text(st, 1, p->deletion_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, p->generation);
	sqlite3_bind_text(st, 3, retention_state_word(to), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, new_gen);
	if (reason)
		sqlite3_bind_text(st, 5, reason, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, now);
	sqlite3_bind_int64(st, 7, delete_after);
	rc = db_run_cached(db, st, _("cannot change the deletion"));
out:
	db_set_reason(db, NULL);
	return rc;
}

/* The one path back: restore every mark of p, raise its generation, end it
 * as to (cancelled or rejected) with reason. Inside the caller's write
 * transaction. */
static int cancel_in_tx(struct db *db, const struct retention_proc *p, enum retention_state to,
                        const char *reason)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare_cached(db,
	                            "UPDATE retention_mark SET state = 'restored', generation = ?2,"
	                            " at = ?3 WHERE deletion_id = ?1 AND state = 'pending'",
	                            &st)))
		return rc;
	sqlite3_bind_text(st, 1, p->deletion_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, p->generation + 1);
	sqlite3_bind_int64(st, 3, clock_now());
	if ((rc = db_run_cached(db, st, _("cannot restore the customer's data"))))
		return rc;
	/* the activity that cancelled it stays: the lifecycle counts it as
	 * the customer's last activity (lifecycle_compute), so the next run
	 * does not propose them again; the purge removes it */
	return set_state(db, p, to, p->generation + 1, reason, 0);
}

static int mark(struct db *db, const struct retention_proc *p, const char *module,
                enum mark_state state)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare_cached(
	         db,
	         "INSERT INTO retention_mark (deletion_id, module, generation, state,"
	         " at) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (deletion_id, module)"
	         " DO UPDATE SET state = excluded.state, at = excluded.at,"
	         " generation = excluded.generation",
	         &st)))
		return rc;
	sqlite3_bind_text(st, 1, p->deletion_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, module, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, p->generation);
	sqlite3_bind_text(st, 4, mark_words[state], -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, clock_now());
	return db_run_cached(db, st, _("cannot mark the customer's data"));
}

static int marked(struct db *db, const char *deletion_id, const char *module)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare_cached(db,
	                            "SELECT 1 FROM retention_mark WHERE deletion_id = ?1"
	                            " AND module = ?2 AND state = 'pending'",
	                            &st)))
		return rc;
	sqlite3_bind_text(st, 1, deletion_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, module, -1, SQLITE_STATIC);
	step = sqlite3_step(st);
	rc = step == SQLITE_ROW    ? 1
	     : step == SQLITE_DONE ? 0
	                           : db_fail(db, _("cannot read the marks"));
	db_release(db, st);
	return rc;
}

/* ---------------------------------------------------------------- events */

struct run {
	const struct retention_run_opts *o;
	int64_t now, cutoff;
	int proposed;
	int rc;
};

static int say(const struct retention_run_opts *o, const char *action, int64_t customer_id,
               const char *customer, const char *deletion_id, int64_t gen, int64_t when,
               const char *reason)
{
	struct retention_event e = {action, customer_id, customer, deletion_id ? deletion_id : "",
	                            gen,    when,        reason};

	return o && o->cb ? o->cb(&e, o->arg) : 0;
}

/* ---------------------------------------------------------------- steps */

/* A step of one deletion: loads it, checks state and generation. */
struct step {
	char deletion_id[RETENTION_ID_LEN + 1];
	int64_t generation;
	enum retention_state want; /* the state the step needs */
	size_t module;             /* prepare: which module */
	int done;                  /* out: 1 when the step did its work */
	char why[WHY_MAX];         /* out: why it did not, or what cancelled */
	struct retention_proc p;
};

static int load_step(struct db *db, struct step *s)
{
	int rc;

	retention_proc_free(&s->p);
	if ((rc = retention_get(db, s->deletion_id, &s->p)))
		return rc;
	if (s->p.generation != s->generation) {
		snprintf(s->why, sizeof s->why,
		         _("ignored: the command is of generation %lld, the deletion is at %lld"),
		         (long long)s->generation, (long long)s->p.generation);
		return 1;
	}
	if (state_of(&s->p) != s->want) {
		snprintf(s->why, sizeof s->why, _("ignored: the deletion is %s"), s->p.state);
		return 1;
	}
	return 0;
}

static int prepare_tx(struct db *db, void *arg)
{
	struct step *s = arg;
	const struct module *m = &modules[s->module];
	size_t j;
	int rc;

	s->done = 0;
	s->why[0] = '\0';
	if ((rc = load_step(db, s)))
		return rc > 0 ? 0 : rc;
	if ((rc = new_activity(db, s->deletion_id, s->why, sizeof s->why)) == 1)
		return cancel_in_tx(db, &s->p, RETENTION_CANCELLED, s->why);
	if (rc < 0)
		return rc;
	if ((rc = held(db, s->p.customer_id, s->why, sizeof s->why)) == 1)
		return cancel_in_tx(db, &s->p, RETENTION_REJECTED, s->why);
	for (j = 0; rc == 0 && m->blockers[j]; j++)
		rc = m->blockers[j](db, s->p.customer_id, s->why, sizeof s->why);
	if (rc == 1)
		return cancel_in_tx(db, &s->p, RETENTION_REJECTED, s->why);
	if (rc < 0)
		return rc;
	if ((rc = mark(db, &s->p, m->name, MARK_PENDING)))
		return rc;
	s->done = 1;
	return 0;
}

static int soft_delete_tx(struct db *db, void *arg)
{
	struct step *s = arg;
	size_t i;
	int rc;

	s->done = 0;
	s->why[0] = '\0';
	if ((rc = load_step(db, s)))
		return rc > 0 ? 0 : rc;
	for (i = 0; i < NMODULES; i++)
		if ((rc = marked(db, s->deletion_id, modules[i].name)) != 1)
			return rc < 0 ? rc : 0; /* not all prepared yet */
	if ((rc = set_state(db, &s->p, RETENTION_SOFT_DELETED, s->generation, NULL,
	                    clock_add_days(clock_now(), retention_soft_days()))))
		return rc;
	s->done = 1;
	return 0;
}

/* Prepare every module still to prepare, then soft-delete: one transaction
 * each. Reports through o. */
static int prepare_all(struct db *db, const struct retention_run_opts *o, const char *deletion_id,
                       int64_t gen)
{
	struct step s;
	size_t i;
	int rc = 0;

	memset(&s, 0, sizeof s);
	snprintf(s.deletion_id, sizeof s.deletion_id, "%s", deletion_id);
	s.generation = gen;
	s.want = RETENTION_PREPARING;
	for (i = 0; i < NMODULES; i++) {
		char point[40];

		s.module = i;
		if ((rc = db_write(db, prepare_tx, &s)))
			goto out;
		if (!s.done) {
			struct retention_proc now;
			enum retention_state st;

			/* rejected or cancelled in this step, or moved on by another */
			if ((rc = retention_get(db, deletion_id, &now)))
				goto out;
			st = state_of(&now);
			if (st == RETENTION_REJECTED || st == RETENTION_CANCELLED)
				rc = say(o, st == RETENTION_REJECTED ? "reject" : "cancel",
				         now.customer_id, now.customer, now.deletion_id,
				         now.generation, 0, now.reason);
			else
				rc = say(o, "skip", now.customer_id, now.customer, now.deletion_id,
				         now.generation, 0, s.why);
			retention_proc_free(&now);
			goto out;
		}
		snprintf(point, sizeof point, "prepare:%s", modules[i].name);
		kill_point(point);
	}
	s.want = RETENTION_PREPARING;
	if ((rc = db_write(db, soft_delete_tx, &s)))
		goto out;
	if (s.done) {
		struct retention_proc now;

		kill_point("soft-delete");
		if (retention_get(db, deletion_id, &now) == 0) {
			rc = say(o, "soft-delete", now.customer_id, now.customer, now.deletion_id,
			         now.generation, now.delete_after, NULL);
			retention_proc_free(&now);
		}
	}
out:
	retention_proc_free(&s.p);
	return rc;
}

struct propose {
	int64_t customer_id;
	int64_t cutoff;
	char deletion_id[RETENTION_ID_LEN + 1];
	int64_t generation;
	char why[WHY_MAX];
};

static int propose_tx(struct db *db, void *arg)
{
	struct propose *p = arg;
	struct retention_proc live;
	sqlite3_stmt *st;
	int64_t gen = 0;
	char subject[64];
	int rc;

	/* a run asked once for all (it acts for the shop: control.h) */
	snprintf(subject, sizeof subject, "propose customer %lld for deletion",
	         (long long)p->customer_id);
	if ((rc = control_require(db, PERM_RETENTION, 0, subject)))
		return rc;
	p->why[0] = '\0';
	p->deletion_id[0] = '\0';
	if ((rc = retention_first(db, "SELECT 1 FROM retention_purged WHERE customer_id = ?1",
	                          p->customer_id, NULL, 0)) == 1) {
		snprintf(p->why, sizeof p->why, "%s", _("the customer was purged already"));
		return 0;
	}
	if (rc < 0)
		return rc;
	if ((rc = live_of(db, p->customer_id, &live)) == 1) {
		snprintf(p->why, sizeof p->why, _("a deletion is under way already (%s)"),
		         live.state);
		retention_proc_free(&live);
		return 0;
	}
	if (rc < 0)
		return rc;
	if ((rc = recent(db, p->customer_id, p->cutoff, p->why, sizeof p->why)) ||
	    (rc = blocked(db, p->customer_id, p->why, sizeof p->why)))
		return rc < 0 ? rc : 0;
	{
		char g[32];

		if ((rc = retention_first(
		         db,
		         "SELECT coalesce(max(generation), 0) FROM retention_process"
		         " WHERE customer_id = ?1",
		         p->customer_id, g, sizeof g)) < 0)
			return rc;
		gen = strtoll(g, NULL, 10) + 1;
	}
	if ((rc = new_deletion_id(p->deletion_id)))
		return rc;
	db_set_reason(db, _("inactive for the retention period, nothing open"));
	rc =
	    db_prepare_cached(db,
	                      "INSERT INTO retention_process (deletion_id, customer_id, generation,"
	                      " state, proposed_at, operator_id, updated_at)"
	                      " VALUES (?1, ?2, ?3, 'preparing', ?4, fd_operator(), ?4)",
	                      &st);
	if (!rc) {
		sqlite3_bind_text(st, 1, p->deletion_id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 2, p->customer_id);
		sqlite3_bind_int64(st, 3, gen);
		sqlite3_bind_int64(st, 4, clock_now());
		rc = db_run_cached(db, st, _("cannot propose the customer for deletion"));
	}
	db_set_reason(db, NULL);
	p->generation = gen;
	return rc;
}

int retention_propose(struct db *db, int64_t customer_id, char *id_out)
{
	struct propose p;
	struct retention_proc now;
	int rc;

	memset(&p, 0, sizeof p);
	p.customer_id = customer_id;
	p.cutoff = retention_cutoff(clock_now(), retention_months());
	if ((rc = db_write(db, propose_tx, &p)))
		return rc;
	if (!p.deletion_id[0])
		return err_set(FD_EINVAL, _("customer %1$lld cannot be proposed: %2$s"),
		               (long long)customer_id, p.why);
	kill_point("propose");
	if ((rc = prepare_all(db, NULL, p.deletion_id, p.generation)))
		return rc;
	if (id_out)
		snprintf(id_out, RETENTION_ID_LEN + 1, "%s", p.deletion_id);
	if ((rc = retention_get(db, p.deletion_id, &now)))
		return rc;
	if (state_of(&now) != RETENTION_SOFT_DELETED)
		rc = err_set(FD_EINVAL, _("customer %1$lld was not soft-deleted: %2$s"),
		             (long long)customer_id, now.reason ? now.reason : now.state);
	retention_proc_free(&now);
	return rc;
}

/* ---------------------------------------------------------------- cancel */

struct cancel {
	int64_t customer_id;
	const char *reason;
	int found;
};

int retention_proc_may_restore(const struct retention_proc *p)
{
	enum retention_state st = state_of(p);

	return st == RETENTION_PREPARING || st == RETENTION_SOFT_DELETED;
}

int retention_proc_awaits_purge(const struct retention_proc *p)
{
	return state_of(p) == RETENTION_SOFT_DELETED;
}

static int cancel_tx(struct db *db, void *arg)
{
	struct cancel *c = arg;
	struct retention_proc p;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "cancel the deletion of customer %lld",
	         (long long)c->customer_id);
	if ((rc = control_require(db, PERM_RETENTION, 0, subject)))
		return rc;
	c->found = 0;
	if ((rc = live_of(db, c->customer_id, &p)) != 1)
		return rc;
	if (!retention_proc_may_restore(&p)) {
		retention_proc_free(&p);
		return err_set(FD_ECONFLICT, "%s",
		               _("the customer is being purged: a purge cannot be undone"));
	}
	c->found = 1;
	rc = cancel_in_tx(db, &p, RETENTION_CANCELLED, c->reason);
	retention_proc_free(&p);
	return rc;
}

int retention_cancel(struct db *db, int64_t customer_id, const char *reason)
{
	struct cancel c = {customer_id, reason && *reason ? reason : _("restored"), 0};
	int rc;

	if ((rc = db_write(db, cancel_tx, &c)))
		return rc;
	if (!c.found)
		return err_set(FD_ENOTFOUND, _("customer %lld has no deletion under way"),
		               (long long)customer_id);
	kill_point("cancel");
	return 0;
}

int retention_lifecycle_task(struct db *db, const char *key)
{
	struct retention_proc p;
	char *end, why[WHY_MAX];
	long long id;
	int rc;

	id = key ? strtoll(key, &end, 10) : 0;
	if (!key || *end || id <= 0)
		return err_set(FD_EINVAL, _("bad lifecycle task key: %s"), key ? key : "(none)");
	if ((rc = live_of(db, id, &p)) == 1) {
		if (state_of(&p) != RETENTION_PURGING &&
		    (rc = new_activity(db, p.deletion_id, why, sizeof why)) == 1)
			rc = cancel_in_tx(db, &p, RETENTION_CANCELLED, why);
		retention_proc_free(&p);
	}
	if (rc < 0)
		return rc;
	return lifecycle_rebuild_in_tx(db, id, NULL);
}

/* ---------------------------------------------------------------- holds */

struct hold {
	int64_t customer_id;
	const char *reason;
};

static int hold_tx(struct db *db, void *arg)
{
	struct hold *h = arg;
	struct retention_proc p;
	char old[HOLD_MAX], subject[64];
	sqlite3_stmt *st;
	int rc;

	snprintf(subject, sizeof subject, "hold customer %lld", (long long)h->customer_id);
	if ((rc = control_require(db, PERM_RETENTION, 0, subject)))
		return rc;
	if ((rc = retention_first(db, "SELECT 1 FROM customer WHERE id = ?1", h->customer_id, NULL,
	                          0)) != 1)
		return rc < 0 ? rc
		              : err_set(FD_ENOTFOUND, _("there is no customer %lld"),
		                        (long long)h->customer_id);
	if ((rc = retention_first(db, "SELECT 1 FROM retention_purged WHERE customer_id = ?1",
	                          h->customer_id, NULL, 0)) == 1)
		return err_set(FD_ECONFLICT, "%s",
		               _("the customer was purged: there is nothing to hold"));
	if ((rc = hold_reason(db, h->customer_id, old, sizeof old)) == 1)
		return err_set(FD_ECONFLICT, _("the customer is held already: %s"), old);
	if (rc < 0)
		return rc;
	if ((rc = live_of(db, h->customer_id, &p)) == 1) {
		if (state_of(&p) == RETENTION_PURGING)
			rc = err_set(FD_ECONFLICT, "%s",
			             _("the customer is being purged: a purge cannot be undone"));
		else
			rc = cancel_in_tx(db, &p,
			                  state_of(&p) == RETENTION_PREPARING ? RETENTION_REJECTED
			                                                      : RETENTION_CANCELLED,
			                  _("held"));
		retention_proc_free(&p);
	}
	if (rc < 0)
		return rc;
	if ((rc = db_prepare_cached(
	         db,
	         "INSERT INTO retention_hold (customer_id, reason, operator_id, at)"
	         " VALUES (?1, ?2, fd_operator(), ?3)",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, h->customer_id);
	sqlite3_bind_text(st, 2, h->reason, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, clock_now());
	return db_run_cached(db, st, _("cannot hold the customer"));
}

int retention_hold(struct db *db, int64_t customer_id, const char *reason)
{
	struct hold h = {customer_id, reason};
	size_t i, n = reason ? strlen(reason) : 0;

	if (n == 0 || n > 200)
		return err_set(
		    FD_EINVAL, "%s",
		    _("give the reason for the hold (1 to 200 bytes), e.g. \"dispute\""));
	for (i = 0; i < n; i++)
		if ((unsigned char)reason[i] < 0x20 || reason[i] == 0x7f)
			return err_set(FD_EINVAL, "%s",
			               _("the reason of a hold is one line of text"));
	return db_write(db, hold_tx, &h);
}

static int release_tx(struct db *db, void *arg)
{
	struct hold *h = arg;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "release the hold of customer %lld",
	         (long long)h->customer_id);
	if ((rc = control_require(db, PERM_RETENTION, 0, subject)))
		return rc;
	if (hold_reason(db, h->customer_id, NULL, 0) != 1)
		return err_set(FD_ECONFLICT, _("customer %lld is not held"),
		               (long long)h->customer_id);
	return retention_exec_id(db, "DELETE FROM retention_hold WHERE customer_id = ?1",
	                         h->customer_id, _("cannot lift the hold"));
}

int retention_release(struct db *db, int64_t customer_id)
{
	struct hold h = {customer_id, NULL};

	return db_write(db, release_tx, &h);
}

/* ---------------------------------------------------------------- purge */

struct collect {
	struct retention_purge_ctx ctx;
	char **needles;
	size_t n, cap;
	char **files;
	size_t nf, capf;
};

static void push(char ***v, size_t *n, size_t *cap, const char *s)
{
	size_t i;

	if (!s || !*s)
		return;
	for (i = 0; i < *n; i++)
		if (!strcmp((*v)[i], s))
			return;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = xstrdup(s);
}

static void add_needle(struct retention_purge_ctx *c, const char *s)
{
	struct collect *k = c->priv;

	push(&k->needles, &k->n, &k->cap, s);
}

static void add_file(struct retention_purge_ctx *c, const char *path)
{
	struct collect *k = c->priv;

	push(&k->files, &k->nf, &k->capf, path);
}

static void collect_free(struct collect *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		free(k->needles[i]);
	for (i = 0; i < k->nf; i++)
		free(k->files[i]);
	free(k->needles);
	free(k->files);
}

struct purge {
	struct step s;
	struct collect k;
	int cancelled;
};

/* The customer's own strings: found in raw payloads and the request log
 * too. Short ones (under 4 bytes) would match too much and are left out. */
static int personal_needles(struct db *db, int64_t customer_id, struct collect *k)
{
	sqlite3_stmt *st;
	int rc, step, i;

	if ((rc = db_prepare(db, "SELECT name, phone, email FROM customer WHERE id = ?1", &st)))
		return rc;
	sqlite3_bind_int64(st, 1, customer_id);
	if ((step = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < 3; i++) {
			const char *v = (const char *)sqlite3_column_text(st, i);

			if (v && strlen(v) >= 4 && strcmp(v, RETENTION_REMOVED))
				add_needle(&k->ctx, v);
		}
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the customer"));
	}
	sqlite3_finalize(st);
	return rc;
}

static int certificate(struct db *db, const struct retention_proc *p, const char *modules_done)
{
	sqlite3_stmt *st;
	char hash[65];
	int rc;

	if ((rc = retention_hash(p->deletion_id, p->customer_id, hash)))
		return rc;
	if ((rc = db_prepare_cached(db,
	                            "INSERT INTO retention_certificate (deletion_id, customer_hash,"
	                            " generation, proposed_at, purged_at, modules, operator_id)"
	                            " VALUES (?1, ?2, ?3, ?4, ?5, ?6, fd_operator())",
	                            &st)))
		return rc;
	sqlite3_bind_text(st, 1, p->deletion_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, p->generation);
	sqlite3_bind_int64(st, 4, p->proposed_at);
	sqlite3_bind_int64(st, 5, clock_now());
	sqlite3_bind_text(st, 6, modules_done, -1, SQLITE_TRANSIENT);
	return db_run_cached(db, st, _("cannot keep the deletion certificate"));
}

/* The purge waits (1 with why, nothing written): it is not due at now, or
 * a backup is being taken. */
static int purge_waits(struct db *db, struct step *s, int64_t now)
{
	if (now < s->p.delete_after) {
		char when[40];

		clock_format_local(s->p.delete_after, "%Y-%m-%d %H:%M", when, sizeof when);
		snprintf(s->why, sizeof s->why, _("ignored: the purge is not due before %s"), when);
		return 1;
	}
	if (lock_held(db, CONTROL_BACKUP)) {
		snprintf(s->why, sizeof s->why, "%s",
		         _("ignored: a backup is being taken; the purge waits for the next run"));
		return 1;
	}
	return 0;
}

/* Why the deletion must be cancelled rather than purged: new activity, a
 * blocker, or a module that did not confirm it. 1 with why, 0 none, or
 * the error. */
static int purge_stopped(struct db *db, struct step *s)
{
	size_t i;
	int rc;

	if ((rc = new_activity(db, s->deletion_id, s->why, sizeof s->why)) == 1 || rc < 0)
		return rc;
	if ((rc = blocked(db, s->p.customer_id, s->why, sizeof s->why)) == 1 || rc < 0)
		return rc;
	for (i = 0; i < NMODULES; i++)
		if ((rc = marked(db, s->deletion_id, modules[i].name)) != 1) {
			if (rc < 0)
				return rc;
			snprintf(s->why, sizeof s->why, _("module %s did not confirm the deletion"),
			         modules[i].name);
			return 1;
		}
	return 0;
}

/* Each module's purges, then its mark purged; done lists the modules. */
static int purge_modules(struct db *db, struct purge *u, struct strbuf *done)
{
	size_t i, j;
	int rc;

	for (i = 0; i < NMODULES; i++) {
		for (j = 0; modules[i].purges[j]; j++)
			if ((rc = modules[i].purges[j](db, &u->k.ctx)))
				return rc;
		if ((rc = mark(db, &u->s.p, modules[i].name, MARK_PURGED)))
			return rc;
		sb_printf(done, "%s%s", i ? "," : "", modules[i].name);
	}
	return 0;
}

/* What the purge clears besides the modules' own records, in this order
 * (?1 = the customer id). */
static const struct retention_stmt purge_clears[] = {
    {"UPDATE retention_hold_his SET reason = NULL"
     " WHERE customer_id = ?1 AND reason IS NOT NULL",
     N_("cannot clear the holds' history")},
    {"DELETE FROM retention_activity WHERE customer_id = ?1",
     N_("cannot clear the customer's activity")},
    /* the customer's earlier deletions, cancelled or rejected, keep no
     * customer id and no reason (a hold's reason may name people) */
    {"UPDATE status_flow SET reason = NULL"
     " WHERE entity = 'retention_process' AND reason IS NOT NULL"
     " AND entity_id IN (SELECT id FROM retention_process"
     " WHERE customer_id = ?1)",
     N_("cannot clear the deletions' reasons")},
    {"UPDATE retention_process SET customer_id = NULL, reason = NULL"
     " WHERE customer_id = ?1 AND state IN ('cancelled', 'rejected')",
     N_("cannot clear the earlier deletions")},
};

/* The inbound and outbound payloads scrubbed of the needles, then the
 * clears of purge_clears. */
static int purge_scrub(struct db *db, struct purge *u)
{
	const char *const *needles = (const char *const *)u->k.needles;
	int64_t rows;
	int rc;

	if ((rc = inbox_retention_scrub(db, u->s.deletion_id, needles, u->k.n, &rows)) ||
	    (rc = outbox_retention_scrub(db, u->s.deletion_id, needles, u->k.n, &rows)))
		return rc;
	return retention_exec_all(db, purge_clears, sizeof purge_clears / sizeof purge_clears[0],
	                          u->s.p.customer_id);
}

/* The files the modules named, listed to be removed after the commit. */
static int purge_list_files(struct db *db, struct purge *u)
{
	sqlite3_stmt *st;
	size_t i;
	int rc;

	for (i = 0; i < u->k.nf; i++) {
		if ((rc = db_prepare_cached(
		         db,
		         "INSERT OR IGNORE INTO retention_file (deletion_id, path)"
		         " VALUES (?1, ?2)",
		         &st)))
			return rc;
		sqlite3_bind_text(st, 1, u->s.deletion_id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, u->k.files[i], -1, SQLITE_TRANSIENT);
		if ((rc = db_run_cached(db, st, _("cannot list the files to remove"))))
			return rc;
	}
	return 0;
}

/* customer_id is purged at now. */
static int purged_mark(struct db *db, int64_t customer_id, int64_t now)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare_cached(db,
	                            "INSERT INTO retention_purged (customer_id, purged_at)"
	                            " VALUES (?1, ?2)",
	                            &st)))
		return rc;
	sqlite3_bind_int64(st, 1, customer_id);
	sqlite3_bind_int64(st, 2, now);
	return db_run_cached(db, st, _("cannot mark the customer purged"));
}

/* The purge's own transaction, begun by retention_purge: checks again,
 * purges every module, scrubs payloads and leaves the state purging. */
static int purge_in_tx(struct db *db, struct purge *u)
{
	struct step *s = &u->s;
	struct strbuf done = {0};
	int rc;
	int64_t now = clock_now();

	if ((rc = load_step(db, s)) || (rc = purge_waits(db, s, now)))
		return rc; /* 1: ignored */
	if ((rc = purge_stopped(db, s)) < 0)
		return rc;
	if (rc == 1) {
		u->cancelled = 1;
		return cancel_in_tx(db, &s->p, RETENTION_CANCELLED, s->why);
	}
	/* the state first: the activity triggers look for a live deletion */
	if ((rc = set_state(db, &s->p, RETENTION_PURGING, s->generation, NULL, 0)))
		return rc;
	u->k.ctx.customer_id = s->p.customer_id;
	u->k.ctx.deletion_id = s->deletion_id;
	u->k.ctx.needle = add_needle;
	u->k.ctx.file = add_file;
	u->k.ctx.priv = &u->k;
	if ((rc = personal_needles(db, s->p.customer_id, &u->k)))
		return rc;
	if ((rc = purge_modules(db, u, &done)) || (rc = purge_scrub(db, u)) ||
	    (rc = purge_list_files(db, u)) || (rc = certificate(db, &s->p, sb_cstr(&done))) ||
	    (rc = purged_mark(db, s->p.customer_id, now)))
		goto out;
	rc = lifecycle_rebuild_in_tx(db, s->p.customer_id, NULL);
out:
	sb_free(&done);
	return rc;
}

/* Copy the whole WAL into the database and truncate it to nothing: the
 * frames of the pages as they were before the purge go. A session reading
 * at that moment keeps them: the purge stays "purging" and the next run
 * tries again. */
static int empty_wal(struct db *db)
{
	int log = 0, done = 0, rc;

	rc =
	    sqlite3_wal_checkpoint_v2(db_sqlite(db), NULL, SQLITE_CHECKPOINT_TRUNCATE, &log, &done);
	if (rc == SQLITE_OK && log == done)
		return 0;
	if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED || rc == SQLITE_OK)
		return err_set(
		    FD_EBUSY, "%s",
		    _("the database's write-ahead log could not be emptied while another "
		      "session reads: the purge finishes at the next retention run"));
	return db_fail(db, _("cannot checkpoint the database"));
}

/* The files of deletion_id (arg) are removed: noted, so a later run does
 * not look for them again. */
static int files_removed_tx(struct db *db, void *arg)
{
	const char *deletion_id = arg;
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare_cached(db,
	                            "UPDATE retention_file SET removed_at = ?2"
	                            " WHERE deletion_id = ?1 AND removed_at IS NULL",
	                            &st)))
		return rc;
	sqlite3_bind_text(st, 1, deletion_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, clock_now());
	return db_run_cached(db, st, _("cannot note the files removed"));
}

/* The purge of deletion_id (arg) is over: purging becomes purged. */
static int purged_tx(struct db *db, void *arg)
{
	struct retention_proc p;
	int rc;

	if ((rc = retention_get(db, arg, &p)))
		return rc;
	if (state_of(&p) == RETENTION_PURGING)
		rc = set_state(db, &p, RETENTION_PURGED, p.generation, NULL, 0);
	retention_proc_free(&p);
	return rc;
}

/* After the purge committed: remove the files, VACUUM, empty the WALs,
 * then the state purged. Run again after a crash until it succeeds. */
static int tail(struct db *db, const char *deletion_id)
{
	struct retention_proc p;
	sqlite3_stmt *st;
	char *dir, *log;
	int rc, step = SQLITE_DONE;

	if ((rc = retention_get(db, deletion_id, &p)))
		return rc;
	if (state_of(&p) != RETENTION_PURGING) {
		retention_proc_free(&p);
		return 0;
	}
	dir = esign_folder(db);
	rc = db_prepare(db,
	                "SELECT path FROM retention_file WHERE deletion_id = ?1"
	                " AND removed_at IS NULL",
	                &st);
	if (!rc) {
		sqlite3_bind_text(st, 1, deletion_id, -1, SQLITE_TRANSIENT);
		while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
			struct strbuf path = {0};

			const char *f = (const char *)sqlite3_column_text(st, 0);

			if (f[0] == '/')
				sb_printf(&path, "%s", f);
			else
				sb_printf(&path, "%s/%s", dir, f);
			if (unlink(sb_cstr(&path)) != 0 && errno != ENOENT)
				rc = err_set(FD_EIO, _("cannot remove %s: %s"), sb_cstr(&path),
				             strerror(errno));
			sb_free(&path);
		}
		if (!rc && step != SQLITE_DONE)
			rc = db_fail(db, _("cannot list the files to remove"));
		sqlite3_finalize(st);
	}
	free(dir);
	if (rc || (rc = db_write(db, files_removed_tx, (void *)deletion_id)))
		goto out;
	kill_point("tail:files");
	/* no deleted text in free pages or in either WAL */
	if (config_get_int("retention_vacuum", 1) && (rc = db_exec(db, "VACUUM")))
		goto out;
	if ((rc = empty_wal(db)))
		goto out;
	log = pipe_log_default_path(db_path(db));
	rc = pipe_log_scrub(log, NULL, 0, 1, NULL);
	free(log);
	if (rc)
		goto out;
	kill_point("tail:vacuum");
	if (!(rc = db_write(db, purged_tx, (void *)deletion_id)))
		rc = empty_wal(db);
out:
	retention_proc_free(&p);
	return rc;
}

/* Insert (on) or delete the purge's row of retention_purging. */
static int purging_mark(struct db *db, const char *deletion_id, int on)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(db,
	                       on ? "INSERT INTO retention_purging (deletion_id) VALUES (?1)"
	                          : "DELETE FROM retention_purging WHERE deletion_id = ?1",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, deletion_id, -1, SQLITE_TRANSIENT);
	return db_run_cached(db, st, _("cannot mark the purge"));
}

int retention_purge(struct db *db, const char *deletion_id, int64_t generation, int *ignored,
                    const char **why)
{
	static _Thread_local char why_buf[WHY_MAX];
	struct purge u;
	char *log = NULL;
	int rc;

	*ignored = 0;
	*why = NULL;
	memset(&u, 0, sizeof u);
	if (!deletion_id || strlen(deletion_id) != RETENTION_ID_LEN)
		return err_set(FD_EINVAL, "%s", _("a deletion id is 32 hex digits"));
	{
		char subject[64];

		snprintf(subject, sizeof subject, "purge deletion %s", deletion_id);
		if ((rc = control_ask(db, PERM_RETENTION, 0, subject)))
			return rc;
	}
	snprintf(u.s.deletion_id, sizeof u.s.deletion_id, "%s", deletion_id);
	u.s.generation = generation;
	u.s.want = RETENTION_SOFT_DELETED;
	/* a deletion already purging only has its tail left */
	{
		struct retention_proc p;

		if ((rc = retention_get(db, deletion_id, &p)))
			return rc;
		if (state_of(&p) == RETENTION_PURGING && p.generation == generation) {
			retention_proc_free(&p);
			return tail(db, deletion_id);
		}
		retention_proc_free(&p);
	}
	if ((rc = db_exec(db, "PRAGMA secure_delete = ON")))
		return rc;
	if ((rc = db_begin_write(db)))
		goto out;
	/* the guards of 0020 let the purge's personal text through while this
	 * row exists: only inside this transaction, never committed */
	rc = purging_mark(db, deletion_id, 1);
	if (!rc)
		rc = purge_in_tx(db, &u);
	if (rc == 0)
		rc = purging_mark(db, deletion_id, 0);
	if (rc == 1) { /* ignored: nothing was written */
		db_rollback(db);
		rc = 0;
		*ignored = 1;
		snprintf(why_buf, sizeof why_buf, "%s", u.s.why);
		*why = why_buf;
		goto out;
	}
	if (rc) {
		db_rollback(db);
		goto out;
	}
	if (!u.cancelled) {
		/* the request log before the commit: the needles go with it */
		log = pipe_log_default_path(db_path(db));
		if ((rc = pipe_log_scrub(log, (const char *const *)u.k.needles, u.k.n, 0, NULL))) {
			db_rollback(db);
			goto out;
		}
		kill_point("purge:log");
	}
	if ((rc = db_commit(db)))
		goto out;
	if (u.cancelled) {
		*ignored = 1;
		snprintf(why_buf, sizeof why_buf, "%s", u.s.why);
		*why = why_buf;
		goto out;
	}
	kill_point("purge:commit");
	rc = tail(db, deletion_id);
out:
	db_exec(db, "PRAGMA secure_delete = OFF");
	free(log);
	collect_free(&u.k);
	retention_proc_free(&u.s.p);
	return rc;
}

/* ---------------------------------------------------------------- run */

/* What a run does with one live deletion. */
static int move_on(struct db *db, struct run *r, const struct retention_proc *p)
{
	const struct retention_run_opts *o = r->o;
	char why[WHY_MAX];
	int rc, ignored;
	const char *reason;

	if (state_of(p) == RETENTION_PURGING) {
		if (o->dry_run)
			return say(o, "resume", p->customer_id, p->customer, p->deletion_id,
			           p->generation, 0, _("the purge's last steps are still to run"));
		if ((rc = tail(db, p->deletion_id)))
			return rc;
		return say(o, "purge", p->customer_id, NULL, p->deletion_id, p->generation, 0,
		           NULL);
	}
	if (state_of(p) == RETENTION_PREPARING) {
		if (o->dry_run)
			return say(o, "resume", p->customer_id, p->customer, p->deletion_id,
			           p->generation, 0, _("the modules still to prepare"));
		return prepare_all(db, o, p->deletion_id, p->generation);
	}
	/* soft_deleted */
	if ((rc = new_activity(db, p->deletion_id, why, sizeof why)) < 0)
		return rc;
	if (rc == 1) {
		if (o->dry_run)
			return say(o, "cancel", p->customer_id, p->customer, p->deletion_id,
			           p->generation, 0, why);
		if ((rc = retention_cancel(db, p->customer_id, why)))
			return rc;
		return say(o, "cancel", p->customer_id, p->customer, p->deletion_id,
		           p->generation + 1, 0, why);
	}
	if (r->now < p->delete_after || !o->purge)
		return say(o, "wait", p->customer_id, p->customer, p->deletion_id, p->generation,
		           p->delete_after, NULL);
	if (o->dry_run) {
		if ((rc = blocked(db, p->customer_id, why, sizeof why)) < 0)
			return rc;
		return say(o, rc ? "cancel" : "purge", p->customer_id, p->customer, p->deletion_id,
		           p->generation, 0, rc ? why : NULL);
	}
	if ((rc = retention_purge(db, p->deletion_id, p->generation, &ignored, &reason)))
		return rc;
	return say(o, ignored ? "skip" : "purge", p->customer_id, ignored ? p->customer : NULL,
	           p->deletion_id, p->generation, 0, reason);
}

struct live_list {
	struct retention_proc *v;
	size_t n, cap;
};

static int collect_live(const struct retention_proc *p, void *arg)
{
	struct live_list *l = arg;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n] = *p;
	l->v[l->n].reason = p->reason ? xstrdup(p->reason) : NULL;
	l->v[l->n].customer = p->customer ? xstrdup(p->customer) : NULL;
	l->v[l->n].modules = xstrdup(p->modules ? p->modules : "");
	l->n++;
	return 0;
}

struct cand_list {
	int64_t *v;
	size_t n, cap;
};

static int collect_cand(const struct lifecycle_row *row, void *arg)
{
	struct cand_list *l = arg;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = row->customer_id;
	return 0;
}

static int name_of(struct db *db, int64_t customer_id, char *buf, size_t n)
{
	buf[0] = '\0';
	return retention_first(db, "SELECT name FROM customer WHERE id = ?1", customer_id, buf, n) <
	               0
	           ? -1
	           : 0;
}

static int propose_one(struct db *db, struct run *r, int64_t customer_id)
{
	const struct retention_run_opts *o = r->o;
	struct propose p;
	char name[256], why[WHY_MAX];
	int rc;

	name_of(db, customer_id, name, sizeof name);
	if (o->dry_run) {
		if ((rc = recent(db, customer_id, r->cutoff, why, sizeof why)) == 0)
			rc = blocked(db, customer_id, why, sizeof why);
		if (rc < 0)
			return rc;
		return say(o, rc ? "reject" : "propose", customer_id, name, "", 0, 0,
		           rc ? why : NULL);
	}
	memset(&p, 0, sizeof p);
	p.customer_id = customer_id;
	p.cutoff = r->cutoff;
	if ((rc = db_write(db, propose_tx, &p)))
		return rc;
	if (!p.deletion_id[0])
		return say(o, "skip", customer_id, name, "", 0, 0, p.why);
	kill_point("propose");
	r->proposed++;
	if ((rc = say(o, "propose", customer_id, name, p.deletion_id, p.generation, 0, NULL)))
		return rc;
	return prepare_all(db, o, p.deletion_id, p.generation);
}

int retention_run(struct db *db, const struct retention_run_opts *o)
{
	struct control_hold lock;
	struct live_list live = {0};
	struct cand_list cand = {0};
	struct task_backlog b;
	struct run r;
	size_t i;
	int rc, locked = 0;

	memset(&r, 0, sizeof r);
	r.o = o;
	r.now = clock_now();
	r.cutoff = retention_cutoff(r.now, retention_months());
	/* a dry run writes nothing and asks nothing; a run asks once, then
	 * acts for the shop in its every step (control.h) */
	if (!o->dry_run) {
		if ((rc = control_ask(db, PERM_RETENTION, 0, "run the retention pass")))
			return rc;
		if ((rc = control_acquire(db, CONTROL_RETENTION, CONTROL_LOCK, RUN_TTL, &lock)))
			return rc;
		locked = 1;
		control_acting_enter();
	}
	/* the projection finds the candidates: bring it up to date (a dry
	 * run too: the read model is not a decision) */
	if (o->catch_up) {
		if ((rc = o->catch_up(db, LIFECYCLE_TASK_KIND, 5000, &b)))
			goto out;
		if (b.waiting > 0 && o->propose) {
			char why[WHY_MAX];

			snprintf(
			    why, sizeof why,
			    _("%lld customer lifecycle row(s) are not up to date yet (a task "
			      "still queued or claimed by a process that stopped): those customers "
			      "are looked at by a later run"),
			    (long long)b.waiting);
			if ((rc = say(o, "note", 0, NULL, "", 0, 0, why)))
				goto out;
		}
	}
	if ((rc = retention_list(db, "live", collect_live, &live)))
		goto out;
	for (i = 0; !rc && i < live.n; i++)
		rc = move_on(db, &r, &live.v[i]);
	if (rc || !o->propose)
		goto out;
	if ((rc = lifecycle_candidates(db, r.cutoff, o->limit, o->dry_run, collect_cand, &cand)))
		goto out;
	for (i = 0; !rc && i < cand.n; i++)
		rc = propose_one(db, &r, cand.v[i]);
out:
	for (i = 0; i < live.n; i++)
		retention_proc_free(&live.v[i]);
	free(live.v);
	free(cand.v);
	if (locked) {
		control_acting_leave();
		control_release(db, &lock);
	}
	return rc;
}

#define CONTROL_RETENTION_LAST "retention-last" /* stamp: the last scheduled pass */

static int count_step(const struct retention_event *e, void *arg)
{
	(void)e;
	(*(int64_t *)arg)++;
	return 0;
}

int retention_auto(struct db *db, int64_t *steps)
{
	long hour = config_get_int("retention_auto_hour", -1);
	int64_t now = clock_now(), today = clock_day_start(now), last = 0;
	struct retention_run_opts o;
	int rc;

	*steps = 0;
	if (hour < 0 || hour > 23 || now < today + hour * 3600)
		return 0;
	if (control_stamp_get(db, CONTROL_RETENTION_LAST, &last) == 0 && last >= today)
		return 0;
	err_clear();
	memset(&o, 0, sizeof o);
	o.propose = o.purge = 1; /* no catch_up: the runner calls this between its tasks */
	o.cb = count_step;
	o.arg = steps;
	if (control_stamp(db, CONTROL_RETENTION_LAST, now))
		return -1;
	/* the shop scheduled it (retention_auto_hour): no person asks */
	control_acting_enter();
	rc = retention_run(db, &o);
	control_acting_leave();
	return rc;
}
