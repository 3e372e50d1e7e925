/*
 * staff.c - the staff register, permissions and approvals (see staff.h).
 *
 * Invariants: the person is db_operator() (the real user id's login); a
 * permission is held by role (role_permission) or grant (staff_grant), the
 * larger limit winning; every write here checks PERM_STAFF (or, for a PIN,
 * nothing but the person) inside its own transaction; a PIN is kept only
 * as a crypt(3) hash and compared in constant time; an approval is used
 * once, by its requester, for the subject and up to the amount it names.
 * The state of an approval given on a connection (a PIN checked, an
 * approval named, the last refusal) lives on that connection only.
 */
#include <config.h>

#include <crypt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "log.h"
#include "staff.h"
#include "strbuf.h"
#include "xalloc.h"

static const struct {
	const char *word;
	enum perm_limit limit;
	const char *help;
} perms[PERM_N] = {
    [PERM_BOARD_VIEW] = {"board.view", PERM_UNLIMITED_KIND,
                         N_("see the day's board, the calendar and visits")},
    [PERM_VISIT_WORK] = {"visit.work", PERM_UNLIMITED_KIND,
                         N_("start and finish visits, add notes and contacts")},
    [PERM_RECORDS_VIEW] = {"records.view", PERM_UNLIMITED_KIND,
                           N_("see customers, jobs, invoices, payments and history")},
    [PERM_CUSTOMER_EDIT] = {"customer.edit", PERM_UNLIMITED_KIND,
                            N_("add, edit and delete customers")},
    [PERM_BOOKING] = {"booking", PERM_UNLIMITED_KIND,
                      N_("book, move and cancel visits; booking requests; days off")},
    [PERM_JOB_EDIT] = {"job.edit", PERM_UNLIMITED_KIND, N_("jobs, their line items and estimates")},
    [PERM_INVOICE_ISSUE] = {"invoice.issue", PERM_UNLIMITED_KIND, N_("issue invoices")},
    [PERM_PAYMENT_TAKE] = {"payment.take", PERM_UNLIMITED_KIND,
                           N_("take payments, allocate them, charge cards")},
    [PERM_PAYMENT_BACKDATE] = {"payment.backdate", PERM_LIMIT_DAYS,
                               N_("date a payment back (limit: days)")},
    [PERM_DISCOUNT] = {"discount", PERM_LIMIT_PERCENT,
                       N_("discount and credit lines on a job (limit: percent of its charges)")},
    [PERM_REFUND] = {"refund", PERM_LIMIT_MONEY, N_("refund payments (limit: an amount)")},
    [PERM_VOID] = {"void", PERM_UNLIMITED_KIND,
                   N_("void invoices and payments, reverse allocations")},
    [PERM_CREDIT_NOTE] = {"credit.note", PERM_UNLIMITED_KIND, N_("issue credit notes")},
    [PERM_CATALOGUE] = {"catalogue", PERM_UNLIMITED_KIND,
                        N_("the catalogue of services, commissions, resources")},
    [PERM_RECON] = {"recon.decide", PERM_UNLIMITED_KIND,
                    N_("run reconciliations and decide their differences")},
    [PERM_RETENTION] = {"retention", PERM_UNLIMITED_KIND,
                        N_("retention holds, proposals and purges")},
    [PERM_DAY_CLOSE] = {"day.close", PERM_UNLIMITED_KIND, N_("close the day")},
    [PERM_REPORTS] = {"reports", PERM_UNLIMITED_KIND, N_("reports, and exports of personal data")},
    [PERM_OPERATIONS] = {"operations", PERM_UNLIMITED_KIND,
                         N_("the inbox, outbox, tasks, leases and rebuilds")},
    [PERM_STAFF] = {"staff", PERM_UNLIMITED_KIND, N_("the staff register and permissions")},
    [PERM_PROVIDERS] = {"providers", PERM_UNLIMITED_KIND, N_("providers and their settings")},
    [PERM_BACKUP] = {"backup", PERM_UNLIMITED_KIND, N_("backups and restores")},
    [PERM_MIGRATE] = {"migrate", PERM_UNLIMITED_KIND, N_("schema migrations and demo data")},
};

static const char *const roles[STAFF_NROLES] = {"technician", "desk", "manager", "owner"};

const char *perm_word(enum perm p)
{
	return (unsigned)p < PERM_N ? perms[p].word : "";
}

enum perm perm_of(const char *word)
{
	int p;

	for (p = 0; word && p < PERM_N; p++)
		if (!strcmp(word, perms[p].word))
			return (enum perm)p;
	return PERM_N;
}

enum perm_limit perm_limit_kind(enum perm p)
{
	return (unsigned)p < PERM_N ? perms[p].limit : PERM_UNLIMITED_KIND;
}

const char *perm_help(enum perm p)
{
	return (unsigned)p < PERM_N ? _(perms[p].help) : "";
}

const char *staff_role_word(enum staff_role r)
{
	return (unsigned)r < STAFF_NROLES ? roles[r] : "";
}

enum staff_role staff_role_of(const char *word)
{
	int r;

	for (r = 0; word && r < STAFF_NROLES; r++)
		if (!strcmp(word, roles[r]))
			return (enum staff_role)r;
	return STAFF_NROLES;
}

/* ------------------------------------------------ the connection's state */

/* How long a PIN checked at the terminal stays good for the action it was
 * asked for. */
#define PIN_GOOD_SECONDS 120

struct staff_ctx {
	char pin_approver[33]; /* "" when none */
	int64_t pin_at;
	char pin_subject[201]; /* the refused action it was brought for; "": the next */
	int64_t approval_id;   /* 0 when none */
	int refused;           /* the last staff_require refused: */
	enum perm r_perm;
	int64_t r_amount;
	char r_subject[201];
};

static struct staff_ctx *ctx_of(struct db *db)
{
	void **slot = db_staff_ctx(db);

	if (!*slot)
		*slot = xcalloc(1, sizeof(struct staff_ctx));
	return *slot;
}

void staff_use_approval(struct db *db, int64_t id)
{
	ctx_of(db)->approval_id = id;
}

void staff_approval_clear(struct db *db)
{
	struct staff_ctx *c = ctx_of(db);

	c->pin_approver[0] = '\0';
	c->approval_id = 0;
}

/* ----------------------------------------------------------- holding */

const char *perm_limit_text(enum perm p, int64_t v, char *buf, size_t n)
{
	if (v < 0) {
		snprintf(buf, n, "%s", _("no limit"));
		return buf;
	}
	switch (perm_limit_kind(p)) {
	case PERM_LIMIT_MONEY:
		snprintf(buf, n, "%lld.%02lld", (long long)(v / 100), (long long)(v % 100));
		break;
	case PERM_LIMIT_PERCENT:
		snprintf(buf, n, "%lld%%", (long long)v);
		break;
	case PERM_LIMIT_DAYS:
		snprintf(buf, n, ngettext("%lld day", "%lld days", (unsigned long)v), (long long)v);
		break;
	default:
		snprintf(buf, n, "%lld", (long long)v);
	}
	return buf;
}

static const char *const sql_limit =
    "SELECT max(CASE WHEN limit_value IS NULL THEN -1 ELSE 0 END), max(limit_value) FROM ("
    " SELECT r.limit_value FROM staff s JOIN role_permission r ON r.role = s.role"
    "  WHERE s.login = ?1 AND s.active = 1 AND r.permission = ?2"
    " UNION ALL SELECT g.limit_value FROM staff s JOIN staff_grant g ON g.login = s.login"
    "  WHERE s.login = ?1 AND s.active = 1 AND g.permission = ?2)";

int staff_limit_of(struct db *db, const char *login, enum perm p, int64_t *limit)
{
	sqlite3_stmt *st;
	int rc;

	*limit = -1;
	if ((rc = db_prepare_cached(db, sql_limit, &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, login, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, perm_word(p), -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		rc = db_fail(db, _("cannot read the staff register"));
		db_release(db, st);
		return rc;
	}
	if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
		rc = FD_ENOTFOUND;
	} else {
		rc = 0;
		if (sqlite3_column_int64(st, 0) == 0)
			*limit = sqlite3_column_int64(st, 1);
	}
	db_release(db, st);
	return rc;
}

/* 1 when login holds p up to amount, 0 when not, or an FD_E* code. */
static int holds(struct db *db, const char *login, enum perm p, int64_t amount)
{
	int64_t lim;
	int rc = staff_limit_of(db, login, p, &lim);

	if (rc == FD_ENOTFOUND)
		return 0;
	if (rc)
		return rc;
	return perm_limit_kind(p) == PERM_UNLIMITED_KIND || lim < 0 || amount <= lim;
}

int staff_may(struct db *db, enum perm p, int64_t amount)
{
	return holds(db, db_operator(), p, amount) == 1;
}

/* Who holds p up to amount (active; managers first), as "Name (login)"
 * joined by ", " into sb; "nobody" when nobody. */
static void holders(struct db *db, enum perm p, int64_t amount, struct strbuf *sb)
{
	static const char *const sql =
	    "SELECT s.login, s.name FROM staff s WHERE s.active = 1 AND ("
	    " EXISTS (SELECT 1 FROM role_permission r WHERE r.role = s.role AND r.permission = ?1"
	    "   AND (r.limit_value IS NULL OR r.limit_value >= ?2))"
	    " OR EXISTS (SELECT 1 FROM staff_grant g WHERE g.login = s.login AND g.permission = ?1"
	    "   AND (g.limit_value IS NULL OR g.limit_value >= ?2)))"
	    " ORDER BY CASE s.role WHEN 'manager' THEN 0 WHEN 'owner' THEN 1 ELSE 2 END, s.name"
	    " LIMIT 5";
	sqlite3_stmt *st;
	int n = 0;

	if (db_prepare_cached(db, sql, &st) == 0) {
		sqlite3_bind_text(st, 1, perm_word(p), -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, amount);
		while (sqlite3_step(st) == SQLITE_ROW) {
			sb_printf(sb, "%s%s (%s)", n++ ? ", " : "",
			          (const char *)sqlite3_column_text(st, 1),
			          (const char *)sqlite3_column_text(st, 0));
		}
		db_release(db, st);
	}
	if (!n)
		sb_puts(sb, _("nobody"));
}

/* FD_EPERM: me may not do subject; names p, the limit and the holders. */
static int refuse(struct db *db, enum perm p, int64_t amount, const char *subject)
{
	struct staff_ctx *c = ctx_of(db);
	struct strbuf who = {0};
	char lim[48], mine[48], up[80] = "";
	int64_t my;
	int rc;

	c->refused = 1;
	c->r_perm = p;
	c->r_amount = perm_limit_kind(p) == PERM_UNLIMITED_KIND ? -1 : amount;
	snprintf(c->r_subject, sizeof c->r_subject, "%s", subject);
	holders(db, p, perm_limit_kind(p) == PERM_UNLIMITED_KIND ? 0 : amount, &who);
	if (perm_limit_kind(p) != PERM_UNLIMITED_KIND) {
		perm_limit_text(p, amount, lim, sizeof lim);
		if (staff_limit_of(db, db_operator(), p, &my) == 0 && my >= 0)
			snprintf(up, sizeof up, _(" up to %s (yours goes up to %s)"), lim,
			         perm_limit_text(p, my, mine, sizeof mine));
		else
			snprintf(up, sizeof up, _(" up to %s"), lim);
	}
	rc = err_set(FD_EPERM,
	             _("%s may not do this (%s): it needs the permission \"%s\"%s, which %s "
	               "hold; a manager may approve it (frontdesk approve, or their PIN)"),
	             db_operator(), subject, perm_word(p), up, sb_cstr(&who));
	sb_free(&who);
	return rc;
}

/* Write an approval of p on subject by approver for me, used now. */
static int write_pin_approval(struct db *db, enum perm p, int64_t amount, const char *subject,
                              const char *approver)
{
	static const char *const sql =
	    "INSERT INTO approval (permission, amount, subject, requested_by, requested_at, status,"
	    " decided_by, decided_at, how, used_at) VALUES (?1, ?2, ?3, ?4, ?5, 'used', ?6, ?5,"
	    " 'pin', ?5)";
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare_cached(db, sql, &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, perm_word(p), -1, SQLITE_STATIC);
	if (perm_limit_kind(p) == PERM_UNLIMITED_KIND)
		sqlite3_bind_null(st, 2);
	else
		sqlite3_bind_int64(st, 2, amount);
	sqlite3_bind_text(st, 3, subject, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, db_operator(), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, clock_now());
	sqlite3_bind_text(st, 6, approver, -1, SQLITE_STATIC);
	return db_run_cached(db, st, _("cannot record the approval"));
}

/* Use approval id for p on subject up to amount: 0, or FD_EPERM saying why
 * it does not cover it. */
static int use_approval(struct db *db, int64_t id, enum perm p, int64_t amount, const char *subject)
{
	static const char *const sql = "UPDATE approval SET status = 'used', used_at = ?5 WHERE id "
	                               "= ?1 AND status = 'approved'"
	                               " AND requested_by = ?2 AND permission = ?3 AND subject = ?4"
	                               " AND (amount IS NULL OR amount >= ?6)";
	sqlite3_stmt *st;
	int rc, moved = 0;

	if ((rc = db_prepare_cached(db, sql, &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, db_operator(), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, perm_word(p), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, subject, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, clock_now());
	sqlite3_bind_int64(st, 6, perm_limit_kind(p) == PERM_UNLIMITED_KIND ? 0 : amount);
	if ((rc = db_run_moved(db, st, _("cannot use the approval"), &moved)) != 0)
		return rc;
	if (!moved)
		return err_set(FD_EPERM,
		               _("approval %lld does not cover this (%s): it must be approved, "
		                 "requested by you, for the permission \"%s\" on this same action "
		                 "and amount, and not used yet (frontdesk approve show %lld)"),
		               (long long)id, subject, perm_word(p), (long long)id);
	return 0;
}

int staff_require(struct db *db, enum perm p, int64_t amount, const char *subject)
{
	struct staff_ctx *c = ctx_of(db);
	char subj[201];
	int rc;

	snprintf(subj, sizeof subj, "%s", subject && *subject ? subject : perm_word(p));
	c->refused = 0;
	if ((rc = holds(db, db_operator(), p, amount)) < 0)
		return rc;
	if (rc == 1)
		return 0;
	if (c->approval_id) {
		int64_t id = c->approval_id;

		c->approval_id = 0;
		return use_approval(db, id, p, amount, subj);
	}
	if (c->pin_approver[0] && clock_now() - c->pin_at <= PIN_GOOD_SECONDS &&
	    (!c->pin_subject[0] || !strcmp(c->pin_subject, subj))) {
		char approver[33];

		snprintf(approver, sizeof approver, "%s", c->pin_approver);
		c->pin_approver[0] = '\0';
		if ((rc = holds(db, approver, p, amount)) < 0)
			return rc;
		if (rc == 1)
			return write_pin_approval(db, p, amount, subj, approver);
		return err_set(FD_EPERM,
		               _("%s may not approve this (%s): it needs the permission \"%s\" "
		                 "beyond what they hold"),
		               approver, subj, perm_word(p));
	}
	return refuse(db, p, amount, subj);
}

int staff_require_own_visit(struct db *db, int64_t appt, const char *subject)
{
	static const char *const sql =
	    "SELECT coalesce(s.resource_id, 0), EXISTS (SELECT 1 FROM appointment_resource r"
	    " WHERE r.appointment_id = ?2 AND r.resource_id = s.resource_id)"
	    " FROM staff s WHERE s.login = ?1";
	sqlite3_stmt *st;
	int64_t res = 0;
	int rc, mine = 0;

	if ((rc = staff_require(db, PERM_VISIT_WORK, 0, subject)) != 0)
		return rc;
	if ((rc = holds(db, db_operator(), PERM_BOOKING, 0)) != 0)
		return rc < 0 ? rc : 0; /* who may book works on every visit */
	if ((rc = db_prepare_cached(db, sql, &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, db_operator(), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, appt);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		res = sqlite3_column_int64(st, 0);
		mine = sqlite3_column_int(st, 1);
		rc = 0;
	} else {
		rc = rc == SQLITE_DONE ? 0 : db_fail(db, _("cannot read the staff register"));
	}
	db_release(db, st);
	if (rc)
		return rc;
	if (!res)
		return err_set(FD_EPERM,
		               _("%s may work only on their own visits, and is linked to no "
		                 "technician of the board: the owner links them (frontdesk staff "
		                 "edit %s --resource ID)"),
		               db_operator(), db_operator());
	if (!mine)
		return err_set(FD_EPERM,
		               _("visit %lld is not one of %s's (it does not reserve their "
		                 "technician resource %lld); someone who may book can do it"),
		               (long long)appt, db_operator(), (long long)res);
	return 0;
}

/* ------------------------------------------------------------ admission */

int staff_admit(struct db *db)
{
	static const char *const sql = "SELECT active FROM staff WHERE login = ?1";
	struct strbuf who = {0};
	sqlite3_stmt *st;
	int rc, found = 0, active = 0;

	if ((rc = db_prepare_cached(db, sql, &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, db_operator(), -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		found = 1;
		active = sqlite3_column_int(st, 0);
	} else if (rc != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the staff register"));
		db_release(db, st);
		return rc;
	}
	db_release(db, st);
	if (found && active)
		return 0;
	holders(db, PERM_STAFF, 0, &who);
	rc = err_set(FD_EPERM,
	             found ? _("%s is no longer active in the staff register of %s; %s can "
	                       "change that (frontdesk staff edit)")
	                   : _("%s is not in the staff register of %s; %s can add you "
	                       "(frontdesk staff add)"),
	             db_operator(), db_path(db), sb_cstr(&who));
	sb_free(&who);
	return rc;
}

/* ---------------------------------------------------------- approvals */

static const char *const approval_words[APPROVAL_STATES] = {"waiting", "approved", "refused",
                                                            "used", "withdrawn"};
static const struct state_move approval_moves[] = {
    {APPROVAL_WAITING, APPROVAL_APPROVED},   {APPROVAL_WAITING, APPROVAL_REFUSED},
    {APPROVAL_WAITING, APPROVAL_WITHDRAWN},  {APPROVAL_APPROVED, APPROVAL_USED},
    {APPROVAL_APPROVED, APPROVAL_WITHDRAWN}, {-1, -1}};
const struct states approval_states = {"approval", approval_words, APPROVAL_STATES, approval_moves};

int approval_file(struct db *db, int64_t *id)
{
	static const char *const find =
	    "SELECT id FROM approval WHERE status = 'waiting' AND requested_by = ?1"
	    " AND permission = ?2 AND subject = ?3 AND amount IS ?4";
	static const char *const ins =
	    "INSERT INTO approval (permission, amount, subject, requested_by, requested_at)"
	    " VALUES (?2, ?4, ?3, ?1, ?5)";
	struct staff_ctx *c = ctx_of(db);
	sqlite3_stmt *st;
	int rc, i;

	*id = 0;
	if (!c->refused)
		return err_set(FD_ENOTFOUND, _("nothing was refused on this session to ask about"));
	if ((rc = db_begin_write(db)) != 0)
		return rc;
	for (i = 0; i < 2 && !*id; i++) {
		if ((rc = db_prepare_cached(db, i ? ins : find, &st)) != 0)
			break;
		sqlite3_bind_text(st, 1, db_operator(), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, perm_word(c->r_perm), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, c->r_subject, -1, SQLITE_STATIC);
		if (c->r_amount < 0)
			sqlite3_bind_null(st, 4);
		else
			sqlite3_bind_int64(st, 4, c->r_amount);
		sqlite3_bind_int64(st, 5, clock_now());
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			*id = sqlite3_column_int64(st, 0);
		else if (rc == SQLITE_DONE && i)
			*id = sqlite3_last_insert_rowid(db_sqlite(db));
		rc = (rc == SQLITE_ROW || rc == SQLITE_DONE)
		         ? 0
		         : db_fail(db, _("cannot file the request"));
		db_release(db, st);
		if (rc)
			break;
	}
	if (rc) {
		db_rollback(db);
		return rc;
	}
	if ((rc = db_commit(db)) == 0)
		c->refused = 0;
	return rc;
}

static void fill_approval(sqlite3_stmt *st, void *out)
{
	struct approval *a = out;

	memset(a, 0, sizeof *a);
	a->id = sqlite3_column_int64(st, 0);
	a->perm = perm_of((const char *)sqlite3_column_text(st, 1));
	a->amount = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
	dbrow_copy(st, 3, a->subject, sizeof a->subject);
	dbrow_copy(st, 4, a->requested_by, sizeof a->requested_by);
	dbrow_copy(st, 5, a->decided_by, sizeof a->decided_by);
	dbrow_copy(st, 6, a->status, sizeof a->status);
	dbrow_copy(st, 7, a->how, sizeof a->how);
	a->requested_at = sqlite3_column_int64(st, 8);
	a->decided_at = sqlite3_column_int64(st, 9);
	a->used_at = sqlite3_column_int64(st, 10);
}

#define APPROVAL_COLS                                                                              \
	"id, permission, amount, subject, requested_by, decided_by, status, how, requested_at,"    \
	" coalesce(decided_at, 0), coalesce(used_at, 0)"

int approval_get(struct db *db, int64_t id, struct approval *out)
{
	int rc, found = 0;

	rc = dbrow_get(db, "SELECT " APPROVAL_COLS " FROM approval WHERE id = ?1", id,
	               fill_approval, out, _("cannot read the approval"), &found);
	if (!rc && !found)
		return err_set(FD_ENOTFOUND, _("approval %lld does not exist"), (long long)id);
	return rc;
}

struct decide_arg {
	int64_t id;
	int approve;
	int withdraw;
};

static int decide_tx(struct db *db, void *arg)
{
	static const char *const sql =
	    "UPDATE approval SET status = ?2, decided_by = CASE WHEN ?4 THEN decided_by ELSE ?3 "
	    "END,"
	    " decided_at = CASE WHEN ?4 THEN decided_at ELSE ?5 END,"
	    " how = CASE WHEN ?4 THEN how ELSE 'session' END WHERE id = ?1";
	struct decide_arg *d = arg;
	struct approval a;
	sqlite3_stmt *st;
	int rc;

	if ((rc = approval_get(db, d->id, &a)) != 0)
		return rc;
	if (d->withdraw) {
		if (strcmp(a.requested_by, db_operator()))
			return err_set(FD_EPERM,
			               _("approval %lld was asked by %s: only they withdraw it"),
			               (long long)a.id, a.requested_by);
		if (!states_may_move(&approval_states, states_of(&approval_states, a.status),
		                     APPROVAL_WITHDRAWN))
			return err_set(FD_ECONFLICT, _("approval %lld is %s: nothing to withdraw"),
			               (long long)a.id, a.status);
	} else {
		if (!strcmp(a.requested_by, db_operator()))
			return err_set(
			    FD_EPERM,
			    _("approval %lld is your own request: someone else decides it"),
			    (long long)a.id);
		if (!states_may_move(&approval_states, states_of(&approval_states, a.status),
		                     d->approve ? APPROVAL_APPROVED : APPROVAL_REFUSED))
			return err_set(FD_ECONFLICT, _("approval %lld is %s, not waiting"),
			               (long long)a.id, a.status);
		rc = holds(db, db_operator(), a.perm, a.amount < 0 ? 0 : a.amount);
		if (rc < 0)
			return rc;
		if (!rc) {
			char lim[48] = "";

			if (a.amount >= 0)
				perm_limit_text(a.perm, a.amount, lim, sizeof lim);
			return err_set(FD_EPERM,
			               _("%s may not decide approval %lld: it needs the permission "
			                 "\"%s\"%s%s"),
			               db_operator(), (long long)a.id, perm_word(a.perm),
			               a.amount >= 0 ? _(" up to ") : "", lim);
		}
	}
	if ((rc = db_prepare_cached(db, sql, &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, d->id);
	sqlite3_bind_text(st, 2,
	                  d->withdraw  ? "withdrawn"
	                  : d->approve ? "approved"
	                               : "refused",
	                  -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, db_operator(), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, d->withdraw);
	sqlite3_bind_int64(st, 5, clock_now());
	return db_run_cached(db, st, _("cannot decide the approval"));
}

int approval_decide(struct db *db, int64_t id, int approve)
{
	struct decide_arg d = {id, approve, 0};

	return db_write(db, decide_tx, &d);
}

int approval_withdraw(struct db *db, int64_t id)
{
	struct decide_arg d = {id, 0, 1};

	return db_write(db, decide_tx, &d);
}

int approval_list(struct db *db, int all, int limit, int (*cb)(const struct approval *a, void *arg),
                  void *arg)
{
	/* the requests waiting (the screen's approvals) by their partial
	 * index: a walk of the table from its newest request read every one
	 * decided since the oldest still waiting */
	static const char *const every =
	    "SELECT " APPROVAL_COLS " FROM approval WHERE ?1 ORDER BY id DESC LIMIT ?2";
	static const char *const waiting =
	    "SELECT " APPROVAL_COLS " FROM approval INDEXED BY approval_waiting"
	    " WHERE status = 'waiting' AND NOT ?1 ORDER BY id DESC LIMIT ?2";
	struct approval a;
	sqlite3_stmt *st;
	int rc, stop = 0;

	if ((rc = db_prepare_cached(db, all ? every : waiting, &st)) != 0)
		return rc;
	sqlite3_bind_int(st, 1, all);
	sqlite3_bind_int(st, 2, limit > 0 ? limit : 1000);
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		fill_approval(st, &a);
		stop = cb(&a, arg);
	}
	rc = (stop || rc == SQLITE_DONE) ? 0 : db_fail(db, _("cannot list approvals"));
	db_release(db, st);
	return rc;
}

int approval_waiting_count(struct db *db, int64_t *n)
{
	return db_one_int(db, "SELECT count(*) FROM approval WHERE status = 'waiting'", n);
}

/* ---------------------------------------------------------------- PINs */

/* After this many wrong tries in a row a PIN is locked, first for
 * LOCK_FIRST seconds, then twice as long at each further wrong try (at
 * most LOCK_MAX); each wrong try also costs WRONG_DELAY_US. */
#define PIN_FREE_TRIES 3
#define LOCK_FIRST     30
#define LOCK_MAX       3600
#define WRONG_DELAY_US 1000000

static int pin_text_ok(const char *pin)
{
	size_t i, n = pin ? strlen(pin) : 0;

	if (n < 4 || n > 12)
		return 0;
	for (i = 0; i < n; i++)
		if (pin[i] < '0' || pin[i] > '9')
			return 0;
	return 1;
}

/* 1 when pin hashes to hash (constant-time compare), 0 when not. */
static int pin_matches(const char *pin, const char *hash)
{
	struct crypt_data *cd = xcalloc(1, sizeof *cd);
	const char *h = crypt_r(pin, hash, cd);
	size_t i, n = strlen(hash);
	unsigned char diff = 0;

	if (!h || h[0] == '*' || strlen(h) != n) {
		free(cd);
		return 0;
	}
	for (i = 0; i < n; i++)
		diff |= (unsigned char)(h[i] ^ hash[i]);
	explicit_bzero(cd, sizeof *cd);
	free(cd);
	return diff == 0;
}

struct pin_arg {
	const char *login, *pin;
	char *hash; /* staff_pin_set: the new hash */
	int ok;     /* staff_pin_approve: the outcome */
};

static int pin_set_tx(struct db *db, void *arg)
{
	static const char *const sql =
	    "INSERT INTO staff_pin (login, hash, set_at) VALUES (?1, ?2, ?3)"
	    " ON CONFLICT (login) DO UPDATE SET hash = ?2, set_at = ?3, failures = 0,"
	    " locked_until = 0";
	struct pin_arg *p = arg;
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare_cached(db, sql, &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, db_operator(), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, p->hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, clock_now());
	return db_run_cached(db, st, _("cannot set the PIN"));
}

int staff_pin_set(struct db *db, const char *pin)
{
	char salt[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data *cd;
	struct pin_arg p = {0};
	const char *h;
	int rc;

	if (!pin_text_ok(pin))
		return err_set(FD_EINVAL, _("a PIN is 4 to 12 digits"));
	if (!crypt_gensalt_rn("$y$", 0, NULL, 0, salt, sizeof salt))
		return err_set(FD_EIO, _("cannot make a salt for the PIN's hash"));
	cd = xcalloc(1, sizeof *cd);
	h = crypt_r(pin, salt, cd);
	if (!h || h[0] == '*') {
		free(cd);
		return err_set(FD_EIO, _("cannot hash the PIN (yescrypt)"));
	}
	p.hash = xstrdup(h);
	explicit_bzero(cd, sizeof *cd);
	free(cd);
	rc = db_write(db, pin_set_tx, &p);
	free(p.hash);
	return rc;
}

/* The PIN row of login: its hash into hash (NULL: none), failures and
 * locked_until. */
static int read_pin(struct db *db, const char *login, char **hash, int64_t *failures,
                    int64_t *locked)
{
	static const char *const sql =
	    "SELECT p.hash, p.failures, p.locked_until FROM staff_pin p JOIN staff s"
	    " ON s.login = p.login WHERE p.login = ?1 AND s.active = 1";
	sqlite3_stmt *st;
	int rc;

	*hash = NULL;
	*failures = *locked = 0;
	if ((rc = db_prepare_cached(db, sql, &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, login, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*hash = dbrow_dup(st, 0);
		*failures = sqlite3_column_int64(st, 1);
		*locked = sqlite3_column_int64(st, 2);
		rc = 0;
	} else {
		rc = rc == SQLITE_DONE ? 0 : db_fail(db, _("cannot read the staff register"));
	}
	db_release(db, st);
	return rc;
}

static int pin_try_tx(struct db *db, void *arg)
{
	static const char *const log_sql =
	    "INSERT INTO staff_pin_try (login, tried_by, ok, at) VALUES (?1, ?2, ?3, ?4)";
	static const char *const upd_sql =
	    "UPDATE staff_pin SET failures = CASE WHEN ?2 THEN 0 ELSE failures + 1 END,"
	    " locked_until = CASE WHEN ?2 OR failures + 1 < ?3 THEN locked_until"
	    " ELSE ?4 + min(?5, ?6 << min(failures + 1 - ?3, 20)) END WHERE login = ?1";
	struct pin_arg *p = arg;
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare_cached(db, log_sql, &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, p->login, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, db_operator(), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, p->ok);
	sqlite3_bind_int64(st, 4, clock_now());
	if ((rc = db_run_cached(db, st, _("cannot log the PIN's try"))) != 0)
		return rc;
	if ((rc = db_prepare_cached(db, upd_sql, &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, p->login, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, p->ok);
	sqlite3_bind_int(st, 3, PIN_FREE_TRIES);
	sqlite3_bind_int64(st, 4, clock_now());
	sqlite3_bind_int(st, 5, LOCK_MAX);
	sqlite3_bind_int(st, 6, LOCK_FIRST);
	return db_run_cached(db, st, _("cannot count the PIN's try"));
}

int staff_pin_approve(struct db *db, const char *approver, const char *pin)
{
	struct staff_ctx *c = ctx_of(db);
	struct pin_arg p = {approver, pin, NULL, 0};
	int64_t failures, locked;
	char *hash = NULL;
	int rc;

	c->pin_approver[0] = '\0';
	if (!approver || !*approver || strlen(approver) >= sizeof c->pin_approver)
		return err_set(FD_EINVAL, _("say whose PIN it is"));
	if (!strcmp(approver, db_operator()))
		return err_set(FD_EPERM, _("nobody approves their own action: another person's PIN "
		                           "is needed"));
	if ((rc = read_pin(db, approver, &hash, &failures, &locked)) != 0)
		return rc;
	if (!hash)
		return err_set(FD_EPERM,
		               _("%s has no approval PIN (or is not active): they set one with "
		                 "frontdesk staff pin"),
		               approver);
	if (locked > clock_now()) {
		free(hash);
		log_debug("staff: PIN of %s tried by %s while locked", approver, db_operator());
		return err_set(
		    FD_EPERM,
		    _("the PIN of %s is locked after %lld wrong tries: try again in %lld "
		      "s, or ask %s to approve from their own session"),
		    approver, (long long)failures, (long long)(locked - clock_now()), approver);
	}
	p.ok = pin_text_ok(pin) && pin_matches(pin, hash);
	free(hash);
	if ((rc = db_write(db, pin_try_tx, &p)) != 0)
		return rc;
	if (!p.ok) {
		log_debug("staff: a wrong PIN of %s tried by %s", approver, db_operator());
		usleep(WRONG_DELAY_US);
		return err_set(FD_EPERM, _("wrong PIN for %s (the try is logged)"), approver);
	}
	snprintf(c->pin_approver, sizeof c->pin_approver, "%s", approver);
	c->pin_at = clock_now();
	/* brought after a refusal: for that action only */
	snprintf(c->pin_subject, sizeof c->pin_subject, "%s", c->refused ? c->r_subject : "");
	return 0;
}

/* ---------------------------------------------------------- the register */

static void fill_staff(sqlite3_stmt *st, struct staff *s)
{
	memset(s, 0, sizeof *s);
	dbrow_copy(st, 0, s->login, sizeof s->login);
	dbrow_copy(st, 1, s->name, sizeof s->name);
	s->role = staff_role_of((const char *)sqlite3_column_text(st, 2));
	s->active = sqlite3_column_int(st, 3);
	s->has_pin = sqlite3_column_int(st, 4);
	s->created_at = sqlite3_column_int64(st, 5);
	s->updated_at = sqlite3_column_int64(st, 6);
	s->resource_id = sqlite3_column_int64(st, 7);
}

#define STAFF_COLS                                                                                 \
	"s.login, s.name, s.role, s.active,"                                                       \
	" EXISTS (SELECT 1 FROM staff_pin p WHERE p.login = s.login), s.created_at, s.updated_at," \
	" coalesce(s.resource_id, 0)"

int staff_get(struct db *db, const char *login, struct staff *out)
{
	static const char *const sql = "SELECT " STAFF_COLS " FROM staff s WHERE s.login = ?1";
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare_cached(db, sql, &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, login, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		fill_staff(st, out);
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = err_set(FD_ENOTFOUND, _("%s is not in the staff register"), login);
	} else {
		rc = db_fail(db, _("cannot read the staff register"));
	}
	db_release(db, st);
	return rc;
}

int staff_me(struct db *db, struct staff *out)
{
	return staff_get(db, db_operator(), out);
}

int staff_list(struct db *db, int (*cb)(const struct staff *s, void *arg), void *arg)
{
	static const char *const sql = "SELECT " STAFF_COLS " FROM staff s"
	                               " ORDER BY s.active DESC, s.name COLLATE NOCASE, s.login";
	struct staff s;
	sqlite3_stmt *st;
	int rc, stop = 0;

	if ((rc = db_prepare_cached(db, sql, &st)) != 0)
		return rc;
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		fill_staff(st, &s);
		stop = cb(&s, arg);
	}
	rc = (stop || rc == SQLITE_DONE) ? 0 : db_fail(db, _("cannot read the staff register"));
	db_release(db, st);
	return rc;
}

const char *staff_name(struct db *db, const char *login, char *buf, size_t n)
{
	struct staff s;
	char keep[512];

	snprintf(keep, sizeof keep, "%s", err_msg());
	if (login && staff_get(db, login, &s) == 0)
		snprintf(buf, n, "%s", s.name);
	else
		snprintf(buf, n, "%s", login ? login : "");
	if (keep[0])
		err_set(0, "%s", keep);
	else
		err_clear();
	return buf;
}

/* A login as Unix writes them: 1..32 printable ASCII characters, no
 * space, not starting with '-'. */
static int login_ok(const char *login)
{
	size_t i, n = login ? strlen(login) : 0;

	if (n < 1 || n > 32 || login[0] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (login[i] <= ' ' || login[i] > '~' || login[i] == ':' || login[i] == '/')
			return 0;
	return 1;
}

static int name_ok(const char *name)
{
	size_t i, n = name ? strlen(name) : 0;

	if (n < 1 || n > 100)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)name[i] < ' ' || name[i] == 0x7f)
			return 0;
	return 1;
}

struct reg_arg {
	const char *login, *name;
	enum staff_role role;
	int active;
	enum perm perm;
	int64_t limit;
	int hold;
	int add;
};

static int add_tx(struct db *db, void *arg)
{
	static const char *const sql =
	    "INSERT INTO staff (login, name, role, active, created_at, updated_at)"
	    " VALUES (?1, ?2, ?3, 1, ?4, ?4) ON CONFLICT (login) DO NOTHING";
	struct reg_arg *r = arg;
	sqlite3_stmt *st;
	int rc, moved = 0;
	char subj[80];

	snprintf(subj, sizeof subj, "add %s to the staff", r->login);
	if ((rc = staff_require(db, PERM_STAFF, 0, subj)) != 0)
		return rc;
	if ((rc = db_prepare_cached(db, sql, &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, r->login, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, r->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, staff_role_word(r->role), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, clock_now());
	if ((rc = db_run_moved(db, st, _("cannot add to the staff register"), &moved)) != 0)
		return rc;
	if (!moved)
		return err_set(FD_ECONFLICT, _("%s is already in the staff register"), r->login);
	return 0;
}

int staff_add(struct db *db, const char *login, const char *name, enum staff_role role)
{
	struct reg_arg r = {login, name, role, 1, PERM_N, -1, 0, 1};

	if (!login_ok(login))
		return err_set(FD_EINVAL,
		               _("a login is 1 to 32 printable characters without spaces, "
		                 "':' or '/', not starting with '-'"));
	if (!name_ok(name))
		return err_set(FD_EINVAL,
		               _("a name is 1 to 100 characters without control characters"));
	if ((unsigned)role >= STAFF_NROLES)
		return err_set(FD_EINVAL, _("a role is technician, desk, manager or owner"));
	return db_write(db, add_tx, &r);
}

/* The start of an owner's change of login's row: the permission staff
 * (subject), login in the register, sql prepared with login bound as ?1. */
static int register_begin(struct db *db, const char *subject, const char *login, const char *sql,
                          sqlite3_stmt **st)
{
	struct staff s;
	int rc;

	if ((rc = staff_require(db, PERM_STAFF, 0, subject)) != 0)
		return rc;
	if ((rc = staff_get(db, login, &s)) != 0)
		return rc;
	if ((rc = db_prepare_cached(db, sql, st)) != 0)
		return rc;
	sqlite3_bind_text(*st, 1, login, -1, SQLITE_STATIC);
	return 0;
}

static int edit_tx(struct db *db, void *arg)
{
	static const char *const sql =
	    "UPDATE staff SET name = coalesce(?2, name), role = coalesce(?3, role),"
	    " active = CASE WHEN ?4 < 0 THEN active ELSE ?4 END, updated_at = ?5 WHERE login = ?1";
	struct reg_arg *r = arg;
	sqlite3_stmt *st;
	char subj[80];
	int rc;

	snprintf(subj, sizeof subj, "change %s in the staff", r->login);
	if ((rc = register_begin(db, subj, r->login, sql, &st)) != 0)
		return rc;
	if (r->name)
		sqlite3_bind_text(st, 2, r->name, -1, SQLITE_STATIC);
	if (r->role < STAFF_NROLES)
		sqlite3_bind_text(st, 3, staff_role_word(r->role), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, r->active);
	sqlite3_bind_int64(st, 5, clock_now());
	rc = db_run_cached(db, st, _("cannot change the staff register"));
	if (rc == FD_EINVAL && strstr(err_msg(), "active owner"))
		return err_set(FD_ECONFLICT,
		               _("%s is the register's last active owner: make someone else owner "
		                 "first"),
		               r->login);
	return rc;
}

int staff_edit(struct db *db, const char *login, const char *name, enum staff_role role, int active)
{
	struct reg_arg r = {login, name, role, active, PERM_N, -1, 0, 0};

	if (name && !name_ok(name))
		return err_set(FD_EINVAL,
		               _("a name is 1 to 100 characters without control characters"));
	if (active > 1 || active < -1 || (unsigned)role > STAFF_NROLES)
		return err_set(FD_EINVAL, _("nothing to change"));
	if (!name && role == STAFF_NROLES && active < 0)
		return err_set(FD_EINVAL, _("nothing to change: give --name, --role or --active"));
	return db_write(db, edit_tx, &r);
}

static int link_tx(struct db *db, void *arg)
{
	static const char *const sql =
	    "UPDATE staff SET resource_id = nullif(?2, 0), updated_at = ?3 WHERE login = ?1";
	struct reg_arg *r = arg;
	sqlite3_stmt *st;
	char subj[80];
	int rc;

	snprintf(subj, sizeof subj, "change %s in the staff", r->login);
	if ((rc = register_begin(db, subj, r->login, sql, &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 2, r->limit);
	sqlite3_bind_int64(st, 3, clock_now());
	rc = db_run_cached(db, st, _("cannot link the technician"));
	if (rc == FD_EINVAL && strstr(err_msg(), "UNIQUE"))
		return err_set(FD_ECONFLICT,
		               _("resource %lld is already linked to another person of the staff"),
		               (long long)r->limit);
	if (rc == FD_EINVAL && strstr(err_msg(), "kind technician"))
		return err_set(FD_EINVAL, _("resource %lld is not a technician"),
		               (long long)r->limit);
	return rc;
}

int staff_link_resource(struct db *db, const char *login, int64_t resource_id)
{
	struct reg_arg r = {login, NULL, STAFF_NROLES, -1, PERM_N, resource_id, 0, 0};

	if (resource_id < 0)
		return err_set(FD_EINVAL, _("a resource id is a positive number"));
	return db_write(db, link_tx, &r);
}

static int limit_ok(enum perm p, int64_t limit)
{
	if ((unsigned)p >= PERM_N)
		return err_set(FD_EINVAL, _("no such permission"));
	if (limit >= 0 && perm_limit_kind(p) == PERM_UNLIMITED_KIND)
		return err_set(FD_EINVAL, _("the permission \"%s\" has no limit"), perm_word(p));
	if (limit > 100000000000000LL || limit < -1)
		return err_set(FD_EINVAL, _("that limit is out of range"));
	if (perm_limit_kind(p) == PERM_LIMIT_PERCENT && limit > 100)
		return err_set(FD_EINVAL, _("a percentage is at most 100"));
	return 0;
}

static int grant_tx(struct db *db, void *arg)
{
	static const char *const ins =
	    "INSERT INTO staff_grant (login, permission, limit_value, created_at)"
	    " VALUES (?1, ?2, ?3, ?4) ON CONFLICT (login, permission) DO UPDATE SET"
	    " limit_value = ?3, created_at = ?4";
	static const char *const del =
	    "DELETE FROM staff_grant WHERE login = ?1 AND permission = ?2";
	struct reg_arg *r = arg;
	sqlite3_stmt *st;
	char subj[100];
	int rc, moved = 0;

	snprintf(subj, sizeof subj, "grant %s to %s", perm_word(r->perm), r->login);
	if ((rc = register_begin(db, subj, r->login, r->hold ? ins : del, &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 2, perm_word(r->perm), -1, SQLITE_STATIC);
	if (r->hold) {
		if (r->limit >= 0)
			sqlite3_bind_int64(st, 3, r->limit);
		sqlite3_bind_int64(st, 4, clock_now());
	}
	if ((rc = db_run_moved(db, st, _("cannot change the grant"), &moved)) != 0)
		return rc;
	if (!moved)
		return err_set(FD_ENOTFOUND, _("%s has no grant of \"%s\""), r->login,
		               perm_word(r->perm));
	return 0;
}

int staff_grant(struct db *db, const char *login, enum perm p, int64_t limit)
{
	struct reg_arg r = {login, NULL, STAFF_NROLES, -1, p, limit, 1, 0};
	int rc = limit_ok(p, limit);

	return rc ? rc : db_write(db, grant_tx, &r);
}

int staff_revoke(struct db *db, const char *login, enum perm p)
{
	struct reg_arg r = {login, NULL, STAFF_NROLES, -1, p, -1, 0, 0};
	int rc = limit_ok(p, -1);

	return rc ? rc : db_write(db, grant_tx, &r);
}

static int role_tx(struct db *db, void *arg)
{
	static const char *const ins =
	    "INSERT INTO role_permission (role, permission, limit_value) VALUES (?1, ?2, ?3)"
	    " ON CONFLICT (role, permission) DO UPDATE SET limit_value = ?3";
	static const char *const del =
	    "DELETE FROM role_permission WHERE role = ?1 AND permission = ?2";
	struct reg_arg *r = arg;
	sqlite3_stmt *st;
	char subj[100];
	int rc;

	snprintf(subj, sizeof subj, "change what %s may do", staff_role_word(r->role));
	if ((rc = staff_require(db, PERM_STAFF, 0, subj)) != 0)
		return rc;
	if (r->role == STAFF_OWNER)
		return err_set(FD_EINVAL, _("the owner keeps every permission, without limit"));
	if ((rc = db_prepare_cached(db, r->hold ? ins : del, &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, staff_role_word(r->role), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, perm_word(r->perm), -1, SQLITE_STATIC);
	if (r->hold && r->limit >= 0)
		sqlite3_bind_int64(st, 3, r->limit);
	return db_run_cached(db, st, _("cannot change the role"));
}

int staff_role_set(struct db *db, enum staff_role role, enum perm p, int hold, int64_t limit)
{
	struct reg_arg r = {NULL, NULL, role, -1, p, limit, hold, 0};
	int rc = limit_ok(p, hold ? limit : -1);

	if (rc)
		return rc;
	if ((unsigned)role >= STAFF_NROLES)
		return err_set(FD_EINVAL, _("a role is technician, desk, manager or owner"));
	return db_write(db, role_tx, &r);
}

static int perm_rows(struct db *db, const char *sql, const char *who,
                     int (*cb)(enum perm p, int64_t limit, int granted, void *arg), void *arg)
{
	int64_t lim[PERM_N];
	int have[PERM_N] = {0}, granted[PERM_N] = {0};
	sqlite3_stmt *st;
	int rc, p, stop = 0;

	if ((rc = db_prepare_cached(db, sql, &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, who, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		p = perm_of((const char *)sqlite3_column_text(st, 0));
		if (p == PERM_N)
			continue;
		have[p] = 1;
		lim[p] = sqlite3_column_int64(st, 1);
		granted[p] = sqlite3_column_int(st, 2);
	}
	rc = rc == SQLITE_DONE ? 0 : db_fail(db, _("cannot read the permissions"));
	db_release(db, st);
	for (p = 0; !rc && !stop && p < PERM_N; p++)
		if (have[p])
			stop = cb((enum perm)p, lim[p], granted[p], arg);
	return rc;
}

int staff_perm_each(struct db *db, const char *login,
                    int (*cb)(enum perm p, int64_t limit, int granted, void *arg), void *arg)
{
	static const char *const sql =
	    "SELECT permission, CASE WHEN min(coalesce(limit_value, -1)) < 0 THEN -1"
	    " ELSE max(limit_value) END, max(granted) FROM ("
	    " SELECT r.permission, r.limit_value, 0 AS granted FROM staff s"
	    "  JOIN role_permission r ON r.role = s.role WHERE s.login = ?1"
	    " UNION ALL SELECT g.permission, g.limit_value, 1 FROM staff_grant g WHERE g.login = "
	    "?1)"
	    " GROUP BY permission";

	return perm_rows(db, sql, login, cb, arg);
}

int staff_role_each(struct db *db, enum staff_role r,
                    int (*cb)(enum perm p, int64_t limit, int granted, void *arg), void *arg)
{
	static const char *const sql = "SELECT permission, coalesce(limit_value, -1), 0"
	                               " FROM role_permission WHERE role = ?1";

	return perm_rows(db, sql, staff_role_word(r), cb, arg);
}
