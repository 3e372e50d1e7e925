/*
 * drawer.c - cash drawers and the test of a closed day (see drawer.h).
 *
 * Every write here runs in one BEGIN IMMEDIATE transaction (db_write) and
 * asks its permission first; the hooks (*_in) run inside the money's own
 * transaction. The schema's triggers (migration 0024) hold the same rules
 * whatever program writes.
 */
#include <config.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "drawer.h"
#include "err.h"
#include "i18n.h"
#include "money.h"
#include "settings.h"
#include "staff.h"
#include "strbuf.h"
#include "text.h"
#include "xalloc.h"

static char g_desk[DRAWER_DESK_MAX + 1];

int drawer_desk_valid(const char *s)
{
	size_t n;

	if (!s)
		return 0;
	n = strlen(s);
	if (n < 1 || n > DRAWER_DESK_MAX)
		return 0;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return 0;
	return 1;
}

int drawer_desk_check(const char *s)
{
	if (drawer_desk_valid(s))
		return 0;
	return err_set(FD_EINVAL,
	               _("a desk's name is 1 to %d letters, digits or signs, without blanks"),
	               DRAWER_DESK_MAX);
}

int drawer_set_desk(const char *desk)
{
	if (!desk || !*desk) {
		g_desk[0] = '\0';
		return 0;
	}
	if (drawer_desk_check(desk))
		return FD_EINVAL;
	snprintf(g_desk, sizeof g_desk, "%s", desk);
	return 0;
}

const char *drawer_desk(void)
{
	return g_desk[0] ? g_desk : NULL;
}

/* ------------------------------------------------------------ amounts */

struct denom {
	int64_t value, count;
};

static int denom_cmp(const void *a, const void *b)
{
	const struct denom *x = a, *y = b;

	return x->value < y->value ? 1 : x->value > y->value ? -1 : 0;
}

#define DENOM_MAX 64

/* One "VALUExCOUNT" of a list, [s, e). */
static int denom_read(const char *s, const char *e, const struct currency *cur, struct denom *d)
{
	const char *x = memchr(s, 'x', (size_t)(e - s));
	char value[64];
	int64_t count = 0;
	const char *p;

	if (!x || x == s || x + 1 == e || (size_t)(x - s) >= sizeof value)
		return err_set(FD_EINVAL,
		               _("'%.*s' is not a denomination and its count: write 20x5 for five "
		                 "notes of 20"),
		               (int)(e - s > 40 ? 40 : e - s), s);
	memcpy(value, s, (size_t)(x - s));
	value[x - s] = '\0';
	if (money_parse(value, cur, &d->value) != 0 || d->value <= 0)
		return err_set(FD_EINVAL, _("'%s' is not a denomination in %s"), value, cur->code);
	for (p = x + 1; p < e; p++) {
		if (*p < '0' || *p > '9' || count > 1000000)
			return err_set(
			    FD_EINVAL,
			    _("the count of %s must be a whole number from 0 to 1000000"), value);
		count = count * 10 + (*p - '0');
	}
	if (count > 1000000)
		return err_set(FD_EINVAL,
		               _("the count of %s must be a whole number from 0 to 1000000"),
		               value);
	d->count = count;
	return 0;
}

int drawer_amount_read(const char *text, const char *code, int64_t *total, char **detail)
{
	const struct currency *cur = currency_find(code ? code : "");
	struct denom d[DENOM_MAX];
	struct strbuf sb = {0};
	const char *s, *e;
	int64_t sum = 0, v;
	size_t n = 0, i, k;
	int rc;

	*detail = NULL;
	if (!cur)
		return err_set(FD_EINVAL, _("unknown currency '%.10s'"), code ? code : "");
	if (!text || !*text)
		return err_set(FD_EINVAL,
		               _("the amount is missing: a total (150.00) or denominations "
		                 "(20x5,10x3)"));
	if (!strchr(text, 'x')) {
		if (money_parse(text, cur, total) != 0)
			return err_set(FD_EINVAL, _("bad amount '%.40s': %s"), text, err_msg());
		if (*total < 0)
			return err_set(FD_EINVAL, _("a drawer's amount cannot be negative"));
		return 0;
	}
	for (s = text;; s = e + 1) {
		e = strchr(s, ',');
		if (!e)
			e = s + strlen(s);
		if (n == DENOM_MAX)
			return err_set(FD_EINVAL, _("at most %d denominations"), DENOM_MAX);
		if ((rc = denom_read(s, e, cur, &d[n])) != 0)
			return rc;
		/* the same denomination twice adds up */
		for (k = 0; k < n && d[k].value != d[n].value; k++)
			;
		if (k < n)
			d[k].count += d[n].count;
		else
			n++;
		if (!*e)
			break;
	}
	qsort(d, n, sizeof d[0], denom_cmp);
	for (i = 0; i < n; i++) {
		if (money_mul(d[i].value, d[i].count, &v) || money_add(sum, v, &sum) ||
		    !money_within_limit(sum))
			return err_set(FD_EINVAL, _("the amount is too large"));
		sb_printf(&sb, "%s%lldx%lld", i ? "," : "", (long long)d[i].value,
		          (long long)d[i].count);
	}
	*total = sum;
	*detail = sb_steal(&sb);
	return 0;
}

/* ------------------------------------------------------------ reading */

int64_t drawer_expected(const struct drawer *d)
{
	return d->float_amount + d->taken + d->refunded + d->voided + d->paid_out;
}

int drawer_figures_shown(const struct drawer *d)
{
	return d->closed;
}

void drawer_free(struct drawer *d)
{
	if (!d)
		return;
	free(d->float_detail);
	free(d->count_detail);
	free(d->reason);
	memset(d, 0, sizeof *d);
}

/* clang-format off */
/* the sum of one kind of movement of drawer d */
#define MOVES(kind) \
	" (SELECT coalesce(sum(m.amount), 0) FROM drawer_movement m WHERE m.drawer_id = d.id" \
	"  AND m.kind = '" kind "'),"
#define DRAWER_COLS \
	"SELECT d.id, d.desk, d.currency, d.float_amount, d.float_detail, d.opened_by," \
	" d.opened_at," MOVES("payment") MOVES("void") MOVES("payout") \
	" (SELECT count(*) FROM drawer_movement m WHERE m.drawer_id = d.id)," \
	" c.drawer_id IS NOT NULL, c.counted, c.expected, c.difference, c.count_detail," \
	" c.reason, c.closed_by, c.closed_at," MOVES("refund") \
	" 0 FROM drawer d LEFT JOIN drawer_close c ON c.drawer_id = d.id "
/* clang-format on */

static void fill(sqlite3_stmt *st, struct drawer *d)
{
	memset(d, 0, sizeof *d);
	d->id = sqlite3_column_int64(st, 0);
	dbrow_copy(st, 1, d->desk, sizeof d->desk);
	dbrow_copy(st, 2, d->currency, sizeof d->currency);
	d->float_amount = sqlite3_column_int64(st, 3);
	d->float_detail = dbrow_dup(st, 4);
	dbrow_copy(st, 5, d->opened_by, sizeof d->opened_by);
	d->opened_at = sqlite3_column_int64(st, 6);
	d->taken = sqlite3_column_int64(st, 7);
	d->voided = sqlite3_column_int64(st, 8);
	d->paid_out = sqlite3_column_int64(st, 9);
	d->moves = sqlite3_column_int64(st, 10);
	d->closed = sqlite3_column_int(st, 11);
	d->counted = sqlite3_column_int64(st, 12);
	d->expected = sqlite3_column_int64(st, 13);
	d->difference = sqlite3_column_int64(st, 14);
	d->count_detail = dbrow_dup(st, 15);
	d->reason = dbrow_dup(st, 16);
	dbrow_copy(st, 17, d->closed_by, sizeof d->closed_by);
	d->closed_at = sqlite3_column_int64(st, 18);
	d->refunded = sqlite3_column_int64(st, 19);
}

int drawer_get(struct db *db, int64_t id, struct drawer *out)
{
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	if ((rc = db_prepare_cached(db, DRAWER_COLS "WHERE d.id = ?", &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		fill(st, out);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, _("there is no drawer session %lld"), (long long)id);
	else
		rc = db_fail(db, _("cannot read the drawer"));
	db_release(db, st);
	return rc;
}

int drawer_list(struct db *db, int64_t from, int64_t to, int open_only,
                int (*cb)(const struct drawer *d, void *arg), void *arg)
{
	sqlite3_stmt *st;
	struct drawer d;
	int rc, step;

	/* the open ones (the status line's, on every change) by drawer_open
	 * alone: one statement for both walked every drawer ever opened */
	static const char open_sql[] = DRAWER_COLS "WHERE ?3 = 1 AND d.id IN (SELECT drawer_id "
	                                           "FROM drawer_open) ORDER BY d.opened_at, d.id";
	static const char range_sql[] =
	    DRAWER_COLS "WHERE ?3 = 0 AND d.opened_at >= ?1 AND (?2 = 0 OR d.opened_at < ?2)"
	                " ORDER BY d.opened_at, d.id";

	rc = db_prepare_cached(db, open_only ? open_sql : range_sql, &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	sqlite3_bind_int(st, 3, open_only ? 1 : 0);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		fill(st, &d);
		rc = cb(&d, arg);
		drawer_free(&d);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the drawers"));
	db_release(db, st);
	return rc;
}

int drawer_moves(struct db *db, int64_t id, int (*cb)(const struct drawer_move *m, void *arg),
                 void *arg)
{
	sqlite3_stmt *st;
	struct drawer_move m;
	int rc, step;

	rc = db_prepare_cached(
	    db,
	    "SELECT m.id, m.drawer_id, m.kind, m.payment_id, m.refund_id, m.amount, m.reason,"
	    " m.by_login, m.at, c.name FROM drawer_movement m"
	    " LEFT JOIN refund r ON r.id = m.refund_id"
	    " LEFT JOIN payment p ON p.id = coalesce(m.payment_id, r.payment_id)"
	    " LEFT JOIN customer c ON c.id = p.customer_id"
	    " WHERE m.drawer_id = ? ORDER BY m.id",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&m, 0, sizeof m);
		m.id = sqlite3_column_int64(st, 0);
		m.drawer_id = sqlite3_column_int64(st, 1);
		dbrow_copy(st, 2, m.kind, sizeof m.kind);
		m.payment_id = sqlite3_column_int64(st, 3);
		m.refund_id = sqlite3_column_int64(st, 4);
		m.amount = sqlite3_column_int64(st, 5);
		m.reason = dbrow_dup(st, 6);
		dbrow_copy(st, 7, m.by, sizeof m.by);
		m.at = sqlite3_column_int64(st, 8);
		m.customer = dbrow_dup(st, 9);
		rc = cb(&m, arg);
		free(m.reason);
		free(m.customer);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the drawer's movements"));
	db_release(db, st);
	return rc;
}

/* ------------------------------------------------------------ which drawer */

/* The open session of desk, 0 when none. */
static int open_of_desk(struct db *db, const char *desk, int64_t *id)
{
	sqlite3_stmt *st;
	int rc, step;

	*id = 0;
	rc = db_prepare_cached(db, "SELECT drawer_id FROM drawer_open WHERE desk = ?", &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, desk, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	else if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the drawers"));
	db_release(db, st);
	return rc;
}

/* The open session cash of this process goes to (drawer.h): *id, 0 when
 * none; FD_ECONFLICT when several are open and none is picked. */
static int pick(struct db *db, const char *desk, int64_t *id)
{
	struct strbuf names = {0};
	const char *me = db_operator();
	sqlite3_stmt *st;
	int64_t mine = 0, only = 0, n_mine = 0, n = 0;
	int rc, step;

	*id = 0;
	if (!desk)
		desk = drawer_desk();
	if (desk)
		return open_of_desk(db, desk, id);
	rc = db_prepare_cached(
	    db, "SELECT drawer_id, desk, opened_by FROM drawer_open ORDER BY desk", &st);
	if (rc)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *who = (const char *)sqlite3_column_text(st, 2);

		n++;
		only = sqlite3_column_int64(st, 0);
		if (who && !strcmp(who, me)) {
			n_mine++;
			mine = only;
		}
		sb_printf(&names, "%s%s", n > 1 ? ", " : "",
		          (const char *)sqlite3_column_text(st, 1));
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the drawers"));
	db_release(db, st);
	if (!rc) {
		if (n_mine == 1)
			*id = mine;
		else if (n == 1)
			*id = only;
		else if (n > 1)
			rc = err_set(FD_ECONFLICT,
			             _("the drawers of %s are open: say at which desk the cash is "
			               "(--desk NAME or FRONTDESK_DESK)"),
			             sb_cstr(&names));
	}
	sb_free(&names);
	return rc;
}

int drawer_current(struct db *db, const char *desk, struct drawer *out)
{
	int64_t id;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = pick(db, desk, &id)) != 0)
		return rc;
	if (!id)
		return err_set(FD_ENOTFOUND, desk || drawer_desk()
		                                 ? _("no drawer is open at this desk")
		                                 : _("no drawer is open"));
	return drawer_get(db, id, out);
}

/* ------------------------------------------------------------ closed days */

static int day_state_at(struct db *db, int64_t t, int *closed, char day[11])
{
	sqlite3_stmt *st;
	int rc, step;

	*closed = 0;
	day[0] = '\0';
	/* the newest row starting at or before t is its day's last when t lies
	 * before its end (0024-drawer.sql) */
	rc = db_prepare_cached(db,
	                       "SELECT day, kind, ends_at > ?1 FROM day_close WHERE starts_at <= ?1"
	                       " ORDER BY starts_at DESC, id DESC LIMIT 1",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, t);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		if (sqlite3_column_int(st, 2)) {
			dbrow_copy(st, 0, day, 11);
			*closed = !strcmp((const char *)sqlite3_column_text(st, 1), "close");
		}
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the closed days"));
	}
	db_release(db, st);
	return rc;
}

int day_is_closed(struct db *db, int64_t t, int *closed)
{
	char day[11];

	return day_state_at(db, t, closed, day);
}

int day_refuse_in(struct db *db, int64_t t, const char *what)
{
	char day[11];
	int closed, rc;

	if ((rc = day_state_at(db, t, &closed, day)) != 0)
		return rc;
	if (!closed)
		return 0;
	return err_set(FD_ECONFLICT,
	               _("the day %s is closed: %s (a manager may reopen it: frontdesk day reopen "
	                 "%s --reason WHY)"),
	               day, what, day);
}

/* ------------------------------------------------------------ movements */

static int move_insert(struct db *db, int64_t drawer_id, const char *kind, int64_t payment_id,
                       int64_t refund_id, int64_t amount, const char *reason, int64_t *move_id)
{
	sqlite3_stmt *st;
	int rc;

	rc =
	    db_prepare_cached(db,
	                      "INSERT INTO drawer_movement (drawer_id, kind, payment_id, refund_id,"
	                      " amount, reason, by_login, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
	                      &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, drawer_id);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	if (payment_id)
		sqlite3_bind_int64(st, 3, payment_id);
	else
		sqlite3_bind_null(st, 3);
	if (refund_id)
		sqlite3_bind_int64(st, 4, refund_id);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_int64(st, 5, amount);
	if (reason)
		sqlite3_bind_text(st, 6, reason, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 6);
	sqlite3_bind_text(st, 7, db_operator(), -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 8, clock_now());
	rc = db_run_cached(db, st, _("cannot write the drawer's movement"));
	if (!rc && move_id)
		*move_id = sqlite3_last_insert_rowid(db_sqlite(db));
	return rc;
}

/* The drawer of currency cur that cash goes to now: *id, 0 when none. */
static int cash_drawer(struct db *db, const char *cur, int64_t *id)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = pick(db, NULL, id)) != 0 || !*id)
		return rc;
	/* its currency alone (drawer_get would sum every movement of it) */
	if ((rc = db_prepare_cached(db, "SELECT currency = ? FROM drawer WHERE id = ?", &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, cur, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, *id);
	step = sqlite3_step(st);
	if (step != SQLITE_ROW)
		rc = db_fail(db, _("cannot read the drawer"));
	else if (!sqlite3_column_int(st, 0))
		*id = 0;
	db_release(db, st);
	return rc;
}

int drawer_take_in(struct db *db, int64_t pay_id)
{
	sqlite3_stmt *st;
	char method[16] = "", cur[4] = "";
	int64_t amount = 0, id;
	int rc, step;

	rc =
	    db_prepare_cached(db, "SELECT method, currency, amount FROM payment WHERE id = ?", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, pay_id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		dbrow_copy(st, 0, method, sizeof method);
		dbrow_copy(st, 1, cur, sizeof cur);
		amount = sqlite3_column_int64(st, 2);
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the payment"));
	}
	db_release(db, st);
	if (rc || strcmp(method, "cash") != 0)
		return rc;
	if ((rc = cash_drawer(db, cur, &id)) != 0 || !id)
		return rc;
	return move_insert(db, id, "payment", pay_id, 0, amount, NULL, NULL);
}

int drawer_refund_in(struct db *db, int64_t refund_id)
{
	sqlite3_stmt *st;
	char method[16] = "", cur[4] = "", status[12] = "";
	int64_t amount = 0, id;
	int rc, step;

	rc = db_prepare_cached(db,
	                       "SELECT r.method, p.currency, r.amount, r.status FROM refund r"
	                       " JOIN payment p ON p.id = r.payment_id WHERE r.id = ?",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, refund_id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		dbrow_copy(st, 0, method, sizeof method);
		dbrow_copy(st, 1, cur, sizeof cur);
		amount = sqlite3_column_int64(st, 2);
		dbrow_copy(st, 3, status, sizeof status);
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the refund"));
	}
	db_release(db, st);
	if (rc || strcmp(method, "cash") != 0 || strcmp(status, "succeeded") != 0)
		return rc;
	if ((rc = cash_drawer(db, cur, &id)) != 0 || !id)
		return rc;
	return move_insert(db, id, "refund", 0, refund_id, -amount, NULL, NULL);
}

int drawer_void_in(struct db *db, int64_t pay_id)
{
	sqlite3_stmt *st;
	int64_t drawer_id = 0, amount = 0;
	int counted = 0, rc, step;

	rc = db_prepare_cached(
	    db,
	    "SELECT m.drawer_id, m.amount, NOT EXISTS (SELECT 1 FROM drawer_open o"
	    " WHERE o.drawer_id = m.drawer_id) FROM drawer_movement m"
	    " WHERE m.payment_id = ? AND m.kind = 'payment'",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, pay_id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		drawer_id = sqlite3_column_int64(st, 0);
		amount = sqlite3_column_int64(st, 1);
		counted = sqlite3_column_int(st, 2);
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the drawers"));
	}
	db_release(db, st);
	if (rc || !drawer_id)
		return rc;
	if (counted)
		return err_set(FD_ECONFLICT,
		               _("payment %lld is in drawer session %lld, which was counted and "
		                 "closed: it cannot be voided any more (refund it instead)"),
		               (long long)pay_id, (long long)drawer_id);
	return move_insert(db, drawer_id, "void", pay_id, 0, -amount, NULL, NULL);
}

/* ------------------------------------------------------------ open, pay out, close */

struct open_ctx {
	const char *desk, *currency, *detail;
	int64_t amount, id;
};

static int open_tx(struct db *db, void *arg)
{
	struct open_ctx *o = arg;
	sqlite3_stmt *st;
	char subject[80];
	int64_t now = clock_now(), id;
	int rc;

	snprintf(subject, sizeof subject, "open the drawer of desk %s", o->desk);
	if ((rc = control_require(db, PERM_PAYMENT_TAKE, 0, subject)) != 0)
		return rc;
	if ((rc = day_refuse_in(db, now, _("no drawer is opened in it"))) != 0)
		return rc;
	if ((rc = open_of_desk(db, o->desk, &id)) != 0)
		return rc;
	if (id)
		return err_set(FD_ECONFLICT,
		               _("the drawer of desk %s is already open (session %lld): count and "
		                 "close it first"),
		               o->desk, (long long)id);
	rc = db_prepare_cached(db,
	                       "INSERT INTO drawer (desk, currency, float_amount, float_detail,"
	                       " opened_by, opened_at) VALUES (?, ?, ?, ?, ?, ?)",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, o->desk, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, o->currency, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, o->amount);
	if (o->detail)
		sqlite3_bind_text(st, 4, o->detail, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_text(st, 5, db_operator(), -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, now);
	if ((rc = db_run_cached(db, st, _("cannot open the drawer"))) != 0)
		return rc;
	o->id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

int drawer_open(struct db *db, const char *desk, const char *currency, const char *float_text,
                int64_t *id)
{
	const struct currency *cur;
	struct open_ctx o = {0};
	char *detail = NULL;
	int rc;

	if (id)
		*id = 0;
	if (!desk)
		desk = drawer_desk();
	if (!desk)
		return err_set(FD_EINVAL, _("name the desk whose drawer this is (--desk NAME or "
		                            "FRONTDESK_DESK)"));
	if (drawer_desk_check(desk))
		return FD_EINVAL;
	cur = currency_find(currency ? currency : config_get("currency", "USD"));
	if (!cur)
		return err_set(FD_EINVAL, _("unknown currency '%.10s'"),
		               currency ? currency : config_get("currency", "USD"));
	if ((rc = drawer_amount_read(float_text, cur->code, &o.amount, &detail)) != 0)
		return rc;
	o.desk = desk;
	o.currency = cur->code;
	o.detail = detail;
	rc = db_write(db, open_tx, &o);
	free(detail);
	if (!rc && id)
		*id = o.id;
	return rc;
}

struct payout_ctx {
	const char *desk, *reason;
	int64_t amount, move_id;
};

static int payout_tx(struct db *db, void *arg)
{
	struct payout_ctx *p = arg;
	struct drawer d;
	char a[MONEY_BUFSZ], subject[64];
	int64_t id;
	int rc;

	snprintf(subject, sizeof subject, "pay out of a drawer");
	if ((rc = control_require(db, PERM_PAYMENT_TAKE, 0, subject)) != 0)
		return rc;
	if ((rc = day_refuse_in(db, clock_now(), _("nothing is paid out in it"))) != 0)
		return rc;
	if ((rc = pick(db, p->desk, &id)) != 0)
		return rc;
	if (!id)
		return err_set(FD_ECONFLICT, _("no drawer is open at this desk: open one first "
		                               "(frontdesk drawer open)"));
	if ((rc = drawer_get(db, id, &d)) != 0)
		return rc;
	if (p->amount > drawer_expected(&d))
		rc = err_set(FD_EINVAL,
		             _("the drawer should hold only %s %s: it cannot pay out more"),
		             money_text(drawer_expected(&d), d.currency, 0, a), d.currency);
	drawer_free(&d);
	if (!rc)
		rc = move_insert(db, id, "payout", 0, 0, -p->amount, p->reason, &p->move_id);
	return rc;
}

int drawer_payout(struct db *db, const char *desk, int64_t amount, const char *reason,
                  int64_t *move_id)
{
	struct payout_ctx p = {desk, reason, amount, 0};
	int rc;

	if (move_id)
		*move_id = 0;
	if (amount <= 0)
		return err_set(FD_EINVAL, _("the amount paid out must be greater than zero"));
	if (amount > MONEY_MAX)
		return err_set(FD_EINVAL, _("the amount is too large"));
	if (!reason || !*reason)
		return err_set(FD_EINVAL, _("a paid-out needs a reason (what the cash was for)"));
	if ((rc = text_check(reason, _("the reason"), 400, 0)) != 0)
		return rc;
	if (desk && drawer_desk_check(desk))
		return FD_EINVAL;
	rc = db_write(db, payout_tx, &p);
	if (!rc && move_id)
		*move_id = p.move_id;
	return rc;
}

struct close_ctx {
	const char *desk, *count_text, *reason;
	int64_t id;
};

static int close_tx(struct db *db, void *arg)
{
	struct close_ctx *c = arg;
	struct drawer d;
	sqlite3_stmt *st;
	char *detail = NULL;
	char subject[64];
	int64_t counted, expected;
	int rc;

	snprintf(subject, sizeof subject, "count and close a drawer");
	if ((rc = control_require(db, PERM_PAYMENT_TAKE, 0, subject)) != 0)
		return rc;
	if (!c->id) {
		if ((rc = pick(db, c->desk, &c->id)) != 0)
			return rc;
		if (!c->id)
			return err_set(FD_ENOTFOUND, _("no drawer is open at this desk"));
	}
	if ((rc = drawer_get(db, c->id, &d)) != 0)
		return rc;
	if (d.closed) {
		rc = err_set(FD_ECONFLICT, _("drawer session %lld was already counted and closed"),
		             (long long)d.id);
		goto out;
	}
	if ((rc = drawer_amount_read(c->count_text, d.currency, &counted, &detail)) != 0)
		goto out;
	expected = drawer_expected(&d);
	if (counted != expected && !c->reason) {
		/* blind: say that it differs, never by how much, before it is written */
		rc = err_set(FD_EINVAL,
		             _("the count differs from what the books expect: count again, "
		               "or give the reason for the difference (--reason)"));
		goto out;
	}
	rc = db_prepare_cached(
	    db,
	    "INSERT INTO drawer_close (drawer_id, counted, count_detail, expected,"
	    " difference, reason, closed_by, closed_at)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
	    &st);
	if (rc)
		goto out;
	sqlite3_bind_int64(st, 1, d.id);
	sqlite3_bind_int64(st, 2, counted);
	if (detail)
		sqlite3_bind_text(st, 3, detail, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_int64(st, 4, expected);
	sqlite3_bind_int64(st, 5, counted - expected);
	if (c->reason)
		sqlite3_bind_text(st, 6, c->reason, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 6);
	sqlite3_bind_text(st, 7, db_operator(), -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 8, clock_now());
	rc = db_run_cached(db, st, _("cannot close the drawer"));
out:
	free(detail);
	drawer_free(&d);
	return rc;
}

int drawer_close(struct db *db, const char *desk, int64_t id, const char *count_text,
                 const char *reason, struct drawer *out)
{
	struct close_ctx c = {desk, count_text, reason && *reason ? reason : NULL, id};
	int rc;

	memset(out, 0, sizeof *out);
	if (c.reason && (rc = text_check(c.reason, _("the reason"), 400, 0)) != 0)
		return rc;
	if (desk && drawer_desk_check(desk))
		return FD_EINVAL;
	if ((rc = db_write(db, close_tx, &c)) != 0)
		return rc;
	return drawer_get(db, c.id, out);
}
