/*
 * commission.c - who did the work, and their commission: the commission
 * columns of line_item and the commissions report (see commission.h for
 * the rules). Called by the command line and the tests.
 *
 * Permissions: a commission asks catalogue; the line item added or changed
 * with it asks its own (item.c); commission_report asks reports.
 */
#include "commission.h"
#include "clock.h"
#include "control.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "item.h"
#include "money.h"
#include "xalloc.h"
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BP_MAX 10000 /* 100% */

/* a * b / d rounded half away from zero (money_line_amount's rule), d > 0 */
static int mul_div(int64_t a, int64_t b, int64_t d, int64_t *out)
{
	__int128 prod = (__int128)a * b;
	__int128 q = prod / d, r = prod % d;

	if (2 * r >= d)
		q++;
	else if (2 * r <= -d)
		q--;
	if (q > INT64_MAX || q < INT64_MIN)
		return err_set(FD_EINVAL, _("amount out of range"));
	*out = (int64_t)q;
	return 0;
}

int commission_amount(int64_t line_amount, int64_t fixed, int64_t bp, int64_t *out)
{
	if (fixed >= 0) {
		*out = fixed;
		return 0;
	}
	if (bp < 0) {
		*out = 0;
		return 0;
	}
	return mul_div(line_amount, bp, BP_MAX, out);
}

int commission_taken(int64_t commission, int64_t taken, int64_t total, int64_t *out)
{
	if (total <= 0 || taken <= 0) {
		*out = 0;
		return 0;
	}
	if (taken > total)
		taken = total;
	return mul_div(commission, taken, total, out);
}

int commission_parse(const char *text, const char *code, int64_t *fixed, int64_t *bp)
{
	static const struct currency pct = {"", 2};
	const struct currency *cur = currency_find(code);
	size_t n = text ? strlen(text) : 0;
	int64_t v;

	*fixed = *bp = -1;
	if (n == 0)
		return err_set(FD_EINVAL, "%s",
		               _("give the commission as an amount (12.50) or a percentage (10%)"));
	if (text[n - 1] == '%') {
		char buf[32];

		if (n >= sizeof buf || n == 1)
			return err_set(FD_EINVAL, _("'%.40s' is not a percentage"), text);
		memcpy(buf, text, n - 1);
		buf[n - 1] = '\0';
		if (strchr(buf, ',') || money_parse(buf, &pct, &v) || v < 0 || v > BP_MAX)
			return err_set(FD_EINVAL,
			               _("'%.40s' is not a percentage from 0%% to 100%% with at "
			                 "most two decimals"),
			               text);
		*bp = v;
		return 0;
	}
	if (!cur)
		return err_set(FD_EINVAL, _("unknown currency '%.10s'"), code ? code : "");
	if (money_parse(text, cur, &v))
		return FD_EINVAL;
	if (v < 0 || !money_within_limit(v))
		return err_set(FD_EINVAL, _("the commission must be from 0 to the money limit"));
	*fixed = v;
	return 0;
}

struct set_arg {
	int64_t id;
	const struct commission_input *in;
};

static int set_fn(struct db *db, void *p)
{
	struct set_arg *a = p;
	const struct commission_input *in = a->in;
	sqlite3_stmt *st;
	int rc, step;

	if (in->fixed < 0 && in->bp < 0 && in->tech_id <= 0 && in->est_minutes < 0)
		return 0; /* nothing to change: no history row */
	if ((rc = db_prepare_cached(db, "SELECT 1 FROM line_item WHERE id = ?1", &st)))
		return rc;
	sqlite3_bind_int64(st, 1, a->id);
	step = sqlite3_step(st);
	db_release(db, st);
	if (step == SQLITE_DONE)
		return err_set(FD_ENOTFOUND, _("there is no line item %lld"), (long long)a->id);
	if (step != SQLITE_ROW)
		return db_fail(db, _("cannot read the line item"));
	if (in->tech_id > 0) {
		if ((rc = db_prepare_cached(db, "SELECT kind FROM resource WHERE id = ?1", &st)))
			return rc;
		sqlite3_bind_int64(st, 1, in->tech_id);
		step = sqlite3_step(st);
		rc = step == SQLITE_ROW &&
		     !strcmp((const char *)sqlite3_column_text(st, 0), "technician");
		db_release(db, st);
		if (!rc)
			return err_set(FD_EINVAL, _("resource %lld is not a technician"),
			               (long long)in->tech_id);
	}
	if (in->fixed >= 0 && !money_within_limit(in->fixed))
		return err_set(FD_EINVAL, _("the commission must be from 0 to the money limit"));
	if (in->bp > BP_MAX)
		return err_set(FD_EINVAL, "%s", _("a percentage is at most 100%"));
	if (in->est_minutes > 100000)
		return err_set(FD_EINVAL, "%s", _("the estimated minutes are at most 100000"));
	if ((rc = db_prepare_cached(
	         db,
	         "UPDATE line_item SET"
	         " commission_fixed = CASE WHEN ?2 >= 0 THEN ?2 WHEN ?3 >= 0 THEN NULL"
	         "   ELSE commission_fixed END,"
	         " commission_bp = CASE WHEN ?3 >= 0 THEN ?3 WHEN ?2 >= 0 THEN NULL"
	         "   ELSE commission_bp END,"
	         " tech_id = CASE WHEN ?4 > 0 THEN ?4 ELSE tech_id END,"
	         " est_minutes = CASE WHEN ?5 >= 0 THEN ?5 ELSE est_minutes END,"
	         " updated_at = ?6 WHERE id = ?1",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, a->id);
	sqlite3_bind_int64(st, 2, in->fixed);
	sqlite3_bind_int64(st, 3, in->fixed >= 0 ? -1 : in->bp);
	sqlite3_bind_int64(st, 4, in->tech_id);
	sqlite3_bind_int64(st, 5, in->est_minutes);
	sqlite3_bind_int64(st, 6, clock_now());
	return db_run_cached(db, st, _("cannot set the commission"));
}

/* The catalogue permission for the commission of item id (0: a new item). */
static int require_catalogue(struct db *db, int64_t id)
{
	char subject[64];

	if (id)
		snprintf(subject, sizeof subject, "set the commission of line item %lld",
		         (long long)id);
	else
		snprintf(subject, sizeof subject, "add a line item with a commission");
	return control_require(db, PERM_CATALOGUE, 0, subject);
}

static int set_tx(struct db *db, void *p)
{
	struct set_arg *a = p;
	int rc = require_catalogue(db, a->id);

	return rc ? rc : set_fn(db, a);
}

int commission_set(struct db *db, int64_t item_id, const struct commission_input *in)
{
	struct set_arg a = {item_id, in};

	return db_write(db, set_tx, &a);
}

int commission_get(struct db *db, int64_t item_id, struct commission_info *out)
{
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	if ((rc = db_prepare_cached(
	         db,
	         "SELECT li.amount, coalesce(li.commission_fixed, -1), coalesce(li.commission_bp, "
	         "-1),"
	         " coalesce(li.est_minutes, -1), li.tech_id IS NULL, t.id, t.name"
	         " FROM line_item li LEFT JOIN resource t ON t.id = coalesce(li.tech_id,"
	         "  (SELECT ar.resource_id FROM appointment_resource ar"
	         "   JOIN resource r ON r.id = ar.resource_id AND r.kind = 'technician'"
	         "   WHERE ar.appointment_id = (SELECT a.id FROM appointment_work w"
	         "    JOIN appointment a ON a.id = w.appointment_id"
	         "    WHERE w.service_order_id = li.service_order_id"
	         "    AND a.status <> 'cancelled' AND a.status <> 'no_show'"
	         "    ORDER BY a.start_at, a.id LIMIT 1)"
	         "   ORDER BY ar.id LIMIT 1))"
	         " WHERE li.id = ?1",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, item_id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		out->fixed = sqlite3_column_int64(st, 1);
		out->bp = sqlite3_column_int64(st, 2);
		out->est_minutes = sqlite3_column_int64(st, 3);
		out->tech_default = sqlite3_column_int(st, 4);
		out->tech_id = sqlite3_column_int64(st, 5);
		if (out->tech_id)
			snprintf(out->tech_name, sizeof out->tech_name, "%s",
			         (const char *)sqlite3_column_text(st, 6));
		rc = commission_amount(sqlite3_column_int64(st, 0), out->fixed, out->bp,
		                       &out->amount);
	} else if (step == SQLITE_DONE) {
		rc = err_set(FD_ENOTFOUND, _("there is no line item %lld"), (long long)item_id);
	} else {
		rc = db_fail(db, _("cannot read the line item"));
	}
	db_release(db, st);
	return rc;
}

struct item_arg {
	int64_t id;
	const struct item_input *item;
	const struct commission_input *in;
};

static int item_add_fn(struct db *db, void *p)
{
	struct item_arg *a = p;
	struct set_arg s = {0, a->in};
	int rc = require_catalogue(db, 0);

	/* the line item itself is a change of its job: item_add asks job.edit */
	if (!rc)
		rc = item_add(db, a->item, &a->id);

	s.id = a->id;
	return rc ? rc : set_fn(db, &s);
}

static int item_edit_fn(struct db *db, void *p)
{
	struct item_arg *a = p;
	struct set_arg s = {a->id, a->in};
	int rc = require_catalogue(db, a->id);

	if (!rc && a->item)
		rc = item_edit(db, a->id, a->item);

	return rc ? rc : set_fn(db, &s);
}

int commission_item_add(struct db *db, const struct item_input *item,
                        const struct commission_input *in, int64_t *id_out)
{
	struct item_arg a = {0, item, in};
	int rc = db_write(db, item_add_fn, &a);

	if (!rc)
		*id_out = a.id;
	return rc;
}

int commission_item_edit(struct db *db, int64_t id, const struct item_input *item,
                         const struct commission_input *in)
{
	struct item_arg a = {id, item, in};

	return db_write(db, item_edit_fn, &a);
}

/* ---------------------------------------------------------------- report */

struct crow {
	struct commission_row r;
	const char *tech_name, *description, *currency; /* the line's, which outlives the row */
};

struct rows {
	struct crow *v;
	size_t n, cap;
};

static struct crow *rows_add(struct rows *rs, const struct commission_line *l, const char *kind)
{
	struct crow *c;

	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 64;
		rs->v = xrealloc(rs->v, rs->cap * sizeof *rs->v);
	}
	c = &rs->v[rs->n++];
	memset(c, 0, sizeof *c);
	c->tech_name = l->tech_name;
	c->description = l->description;
	c->currency = l->currency;
	c->r.tech_id = l->tech_id;
	c->r.kind = kind;
	c->r.at = l->at;
	c->r.item_id = l->item_id;
	c->r.visit_id = l->visit_id;
	c->r.invoice_id = l->invoice_id;
	return c;
}

static int row_cmp(const void *a, const void *b)
{
	const struct crow *x = a, *y = b;
	int c = strcasecmp(x->tech_name, y->tech_name);

	if (c)
		return c;
	if (x->r.tech_id != y->r.tech_id)
		return x->r.tech_id < y->r.tech_id ? -1 : 1;
	if ((c = strcmp(x->currency, y->currency)))
		return c;
	if (x->r.at != y->r.at)
		return x->r.at < y->r.at ? -1 : 1;
	if (x->r.item_id != y->r.item_id)
		return x->r.item_id < y->r.item_id ? -1 : 1;
	return x->r.source_id < y->r.source_id ? -1 : x->r.source_id > y->r.source_id;
}

/* The rows of one line: the line itself when it counts in [from, to), and
 * a reduction for each credit note or refund of its invoice in [from, to)
 * that changes what is taken back. */
static int line_rows(const struct commission_line *l, int64_t from, struct rows *rs)
{
	int64_t commission, credited = 0, refunded = 0, before = 0, after, share;
	size_t i;
	int rc;

	if ((rc = commission_amount(l->line_amount, l->fixed, l->bp, &commission)))
		return rc;
	if (l->at >= from) {
		struct crow *c = rows_add(rs, l, "line");

		c->r.line_amount = l->line_amount;
		c->r.commission = commission;
	}
	for (i = 0; l->invoice_id && i < l->nev; i++) {
		const struct commission_event *e = &l->ev[i];

		if (e->refund) {
			if (e->all <= 0 || (rc = mul_div(e->amount, e->part, e->all, &share)))
				return rc;
			refunded += share;
		} else {
			credited += e->amount;
		}
		if ((rc = commission_taken(commission, credited > refunded ? credited : refunded,
		                           l->invoice_total, &after)))
			return rc;
		if (e->at >= from && after != before) {
			struct crow *c = rows_add(rs, l, e->refund ? "refund" : "credit");

			c->r.at = e->at;
			c->r.source_id = e->id;
			c->r.commission = -(after - before);
		}
		before = after;
	}
	return 0;
}

static int same_group(const struct crow *a, const struct crow *b)
{
	return a->r.tech_id == b->r.tech_id && !strcmp(a->currency, b->currency);
}

int commission_compute(const struct commission_line *lines, size_t n, int64_t from,
                       int (*row_cb)(const struct commission_row *r, void *arg),
                       int (*total_cb)(const struct commission_total *t, void *arg), void *arg)
{
	struct rows rs = {NULL, 0, 0};
	size_t i, j, k;
	int rc = 0;

	for (i = 0; !rc && i < n; i++)
		rc = line_rows(&lines[i], from, &rs);
	if (!rc && rs.n > 1)
		qsort(rs.v, rs.n, sizeof *rs.v, row_cmp);
	for (i = 0; !rc && i < rs.n; i = j) {
		struct commission_total t = {0};

		t.tech_id = rs.v[i].r.tech_id;
		t.tech_name = rs.v[i].tech_name;
		t.currency = rs.v[i].currency;
		for (j = i; !rc && j < rs.n && same_group(&rs.v[i], &rs.v[j]); j++) {
			struct crow *c = &rs.v[j];

			c->r.tech_name = c->tech_name;
			c->r.description = c->description;
			c->r.currency = c->currency;
			if (!strcmp(c->r.kind, "line")) {
				t.lines++;
				if ((rc = money_add(t.line_amount, c->r.line_amount,
				                    &t.line_amount)))
					break;
				/* a visit counts once: rows of one visit need not be adjacent */
				for (k = i; k < j && c->r.visit_id; k++)
					if (!strcmp(rs.v[k].r.kind, "line") &&
					    rs.v[k].r.visit_id == c->r.visit_id)
						break;
				if (c->r.visit_id && k == j)
					t.visits++;
			}
			if (!rc)
				rc = money_add(t.commission, c->r.commission, &t.commission);
			if (!rc && row_cb)
				rc = row_cb(&c->r, arg);
		}
		if (!rc && total_cb)
			rc = total_cb(&t, arg);
	}
	free(rs.v);
	return rc;
}

/* The lines read from the database, with the strings and events they own. */
struct lines {
	struct commission_line *v;
	size_t n, cap;
};

static void lines_free(struct lines *ls)
{
	size_t i;

	for (i = 0; i < ls->n; i++) {
		free((char *)ls->v[i].tech_name);
		free((char *)ls->v[i].description);
		free((char *)ls->v[i].currency);
		free((struct commission_event *)ls->v[i].ev);
	}
	free(ls->v);
}

/* The credit notes and refunds of line l's invoice before `to`, in the
 * order commission_line asks. */
static int read_events(struct db *db, struct commission_line *l, int64_t to)
{
	struct commission_event *ev = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare_cached(
	         db,
	         "SELECT 0, id, issued_at, -total, 0, 1 FROM invoice"
	         " WHERE kind = 'credit_note' AND credits_id = ?1 AND status <> 'void'"
	         " AND status <> 'draft' AND issued_at < ?2"
	         " UNION ALL"
	         " SELECT 1, r.id, r.refunded_at, r.amount,"
	         " (SELECT coalesce(sum(amount), 0) FROM payment_allocation"
	         "  WHERE payment_id = r.payment_id AND invoice_id = ?1 AND reverses_id IS NULL),"
	         " (SELECT coalesce(sum(amount), 0) FROM payment_allocation"
	         "  WHERE payment_id = r.payment_id AND reverses_id IS NULL)"
	         " FROM refund r WHERE r.status = 'succeeded' AND r.refunded_at < ?2"
	         " AND r.payment_id IN (SELECT payment_id FROM payment_allocation"
	         "  WHERE invoice_id = ?1 AND reverses_id IS NULL)"
	         " ORDER BY 3, 1, 2",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, l->invoice_id);
	sqlite3_bind_int64(st, 2, to);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? 2 * cap : 4;
			ev = xrealloc(ev, cap * sizeof *ev);
		}
		ev[n].refund = sqlite3_column_int(st, 0);
		ev[n].id = sqlite3_column_int64(st, 1);
		ev[n].at = sqlite3_column_int64(st, 2);
		ev[n].amount = sqlite3_column_int64(st, 3);
		ev[n].part = sqlite3_column_int64(st, 4);
		ev[n].all = sqlite3_column_int64(st, 5);
		n++;
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the credits of an invoice"));
	db_release(db, st);
	l->ev = ev;
	l->nev = n;
	return rc;
}

/* The commissioned lines, each with its technician, first live visit and
 * first issued invoice. */
static const char LINES_SQL[] =
    "WITH l AS (SELECT li.id, li.description, li.amount, li.commission_fixed, li.commission_bp,"
    "  so.currency,"
    "  (SELECT a.id FROM appointment_work w JOIN appointment a ON a.id = w.appointment_id"
    "   WHERE w.service_order_id = li.service_order_id"
    "   AND a.status <> 'cancelled' AND a.status <> 'no_show'"
    "   ORDER BY a.start_at, a.id LIMIT 1) AS visit_id,"
    "  (SELECT i.id FROM invoice_line il JOIN invoice i ON i.id = il.invoice_id"
    "   WHERE il.line_item_id = li.id AND i.kind = 'invoice' AND i.status <> 'void'"
    "   AND i.status <> 'draft' ORDER BY i.issued_at, i.id LIMIT 1) AS invoice_id,"
    "  li.tech_id"
    " FROM line_item li JOIN service_order so ON so.id = li.service_order_id"
    " WHERE li.commission_fixed IS NOT NULL OR li.commission_bp IS NOT NULL)"
    " SELECT l.id, l.description, l.amount, l.commission_fixed, l.commission_bp, l.currency,"
    "  l.visit_id, l.invoice_id, t.id, t.name,"
    "  CASE WHEN l.invoice_id IS NOT NULL THEN i.issued_at ELSE a.start_at END, i.total"
    " FROM l LEFT JOIN invoice i ON i.id = l.invoice_id"
    " LEFT JOIN appointment a ON a.id = l.visit_id"
    " JOIN resource t ON t.id = coalesce(l.tech_id,"
    "  (SELECT ar.resource_id FROM appointment_resource ar JOIN resource r ON r.id = ar.resource_id"
    "   WHERE ar.appointment_id = l.visit_id AND r.kind = 'technician'"
    "   ORDER BY ar.id LIMIT 1))"
    " WHERE CASE WHEN l.invoice_id IS NOT NULL THEN i.issued_at ELSE a.start_at END < ?1";

static int collect(struct db *db, int64_t to, struct lines *ls)
{
	sqlite3_stmt *st;
	int rc = 0, step;

	if ((rc = db_prepare_cached(db, LINES_SQL, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, to);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct commission_line *l;

		if (ls->n == ls->cap) {
			ls->cap = ls->cap ? 2 * ls->cap : 64;
			ls->v = xrealloc(ls->v, ls->cap * sizeof *ls->v);
		}
		l = &ls->v[ls->n++];
		memset(l, 0, sizeof *l);
		l->item_id = sqlite3_column_int64(st, 0);
		l->description = xstrdup((const char *)sqlite3_column_text(st, 1));
		l->line_amount = sqlite3_column_int64(st, 2);
		l->fixed =
		    sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3);
		l->bp =
		    sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4);
		l->currency = xstrdup((const char *)sqlite3_column_text(st, 5));
		l->visit_id = sqlite3_column_int64(st, 6);
		l->invoice_id = sqlite3_column_int64(st, 7);
		l->tech_id = sqlite3_column_int64(st, 8);
		l->tech_name = xstrdup((const char *)sqlite3_column_text(st, 9));
		l->at = sqlite3_column_int64(st, 10);
		l->invoice_total = sqlite3_column_int64(st, 11);
		if (l->invoice_id && (rc = read_events(db, l, to)))
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the commissions"));
	db_release(db, st);
	return rc;
}

int commission_report(struct db *db, int64_t from, int64_t to,
                      int (*row_cb)(const struct commission_row *r, void *arg),
                      int (*total_cb)(const struct commission_total *t, void *arg), void *arg)
{
	struct lines ls = {NULL, 0, 0};
	int rc;

	/* a read: asked before it starts */
	if ((rc = control_require(db, PERM_REPORTS, 0, "report of commissions")))
		return rc;
	rc = collect(db, to, &ls);
	if (!rc)
		rc = commission_compute(ls.v, ls.n, from, row_cb, total_cb, arg);
	lines_free(&ls);
	return rc;
}
