/*
 * dayclose.c - the day's figures, its close and its reopen (see dayclose.h).
 */
#include <config.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "control.h"
#include "dayclose.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "money.h"
#include "recon.h"
#include "report.h"
#include "staff.h"
#include "strbuf.h"
#include "text.h"
#include "xalloc.h"

/* ------------------------------------------------------------ figures */

/* room for one more element after n (the day's lists are short) */
static void *grow(void *p, size_t n, size_t size)
{
	return xrealloc(p, (n + 1) * size);
}

static int take_row(const struct takings_row *r, void *arg)
{
	struct day_figures *f = arg;
	struct day_method *m;

	f->methods = grow(f->methods, f->nmethods, sizeof *f->methods);
	m = &f->methods[f->nmethods++];
	memset(m, 0, sizeof *m);
	snprintf(m->method, sizeof m->method, "%s", r->method);
	snprintf(m->currency, sizeof m->currency, "%s", r->currency);
	m->count = r->count;
	m->received = r->received;
	m->refunded = r->refunded;
	m->net = r->net;
	return 0;
}

static int drawer_row(const struct drawer *d, void *arg)
{
	struct day_figures *f = arg;
	struct drawer *c;

	f->drawers = grow(f->drawers, f->ndrawers, sizeof *f->drawers);
	c = &f->drawers[f->ndrawers++];
	*c = *d;
	c->float_detail = d->float_detail ? xstrdup(d->float_detail) : NULL;
	c->count_detail = d->count_detail ? xstrdup(d->count_detail) : NULL;
	c->reason = d->reason ? xstrdup(d->reason) : NULL;
	return 0;
}

static int read_voids(struct db *db, struct day_figures *f)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare_cached(
	    db,
	    "SELECT s.entity, s.entity_id, coalesce(i.number, ''),"
	    " coalesce(p.currency, i.currency), coalesce(p.amount, i.total), s.reason"
	    " FROM status_flow s"
	    " LEFT JOIN payment p ON s.entity = 'payment' AND p.id = s.entity_id"
	    " LEFT JOIN invoice i ON s.entity = 'invoice' AND i.id = s.entity_id"
	    " WHERE s.to_status = 'void' AND s.at >= ? AND s.at < ?"
	    " AND (s.entity = 'payment' OR s.entity = 'invoice') ORDER BY s.at, s.id",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, f->from);
	sqlite3_bind_int64(st, 2, f->to);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct day_void *v;

		f->voids = grow(f->voids, f->nvoids, sizeof *f->voids);
		v = &f->voids[f->nvoids++];
		memset(v, 0, sizeof *v);
		dbrow_copy(st, 0, v->kind, sizeof v->kind);
		v->id = sqlite3_column_int64(st, 1);
		dbrow_copy(st, 2, v->number, sizeof v->number);
		dbrow_copy(st, 3, v->currency, sizeof v->currency);
		v->amount = sqlite3_column_int64(st, 4);
		v->reason = dbrow_dup(st, 5);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the voids of the day"));
	db_release(db, st);
	return rc;
}

static int read_credits(struct db *db, struct day_figures *f)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare_cached(
	    db,
	    "SELECT i.id, i.number, t.number, i.currency, i.total FROM invoice i"
	    " JOIN invoice t ON t.id = i.credits_id"
	    " WHERE i.kind = 'credit_note' AND i.issued_at >= ? AND i.issued_at < ?"
	    " AND i.status <> 'draft' ORDER BY i.issued_at, i.id",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, f->from);
	sqlite3_bind_int64(st, 2, f->to);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct day_credit *c;

		f->credits = grow(f->credits, f->ncredits, sizeof *f->credits);
		c = &f->credits[f->ncredits++];
		memset(c, 0, sizeof *c);
		c->id = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, c->number, sizeof c->number);
		dbrow_copy(st, 2, c->credits, sizeof c->credits);
		dbrow_copy(st, 3, c->currency, sizeof c->currency);
		c->total = sqlite3_column_int64(st, 4);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the credit notes of the day"));
	db_release(db, st);
	return rc;
}

static int read_checks(struct db *db, struct day_figures *f)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare_cached(
	    db,
	    "SELECT p.id, c.name, p.reference, p.currency, p.amount FROM payment p"
	    " JOIN customer c ON c.id = p.customer_id"
	    " WHERE p.received_at >= ? AND p.received_at < ? AND p.method = 'check'"
	    " AND p.status <> 'void' ORDER BY p.received_at, p.id",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, f->from);
	sqlite3_bind_int64(st, 2, f->to);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct day_check *c;

		f->checks = grow(f->checks, f->nchecks, sizeof *f->checks);
		c = &f->checks[f->nchecks++];
		memset(c, 0, sizeof *c);
		c->payment_id = sqlite3_column_int64(st, 0);
		c->customer = dbrow_dup(st, 1);
		c->reference = dbrow_dup(st, 2);
		dbrow_copy(st, 3, c->currency, sizeof c->currency);
		c->amount = sqlite3_column_int64(st, 4);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the checks of the day"));
	db_release(db, st);
	return rc;
}

static int read_loose(struct db *db, struct day_figures *f)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare_cached(db,
	                       "SELECT count(*) FROM payment p WHERE p.received_at >= ?"
	                       " AND p.received_at < ? AND p.method = 'cash' AND p.status <> 'void'"
	                       " AND NOT EXISTS (SELECT 1 FROM drawer_movement m"
	                       " WHERE m.payment_id = p.id AND m.kind = 'payment')",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, f->from);
	sqlite3_bind_int64(st, 2, f->to);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		f->loose_cash_count = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, _("cannot read the cash of the day"));
	db_release(db, st);
	return rc;
}

static int read_state(struct db *db, struct day_figures *f)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare_cached(
	    db, "SELECT kind, by_login, at FROM day_close WHERE day = ? ORDER BY id", &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, f->day, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (!strcmp((const char *)sqlite3_column_text(st, 0), "close")) {
			f->closes++;
			f->closed = 1;
			f->closed_at = sqlite3_column_int64(st, 2);
			dbrow_copy(st, 1, f->closed_by, sizeof f->closed_by);
		} else {
			f->reopens++;
			f->closed = 0;
		}
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the day's closes"));
	db_release(db, st);
	return rc;
}

static int count_batch(const struct recon_batch *b, void *arg)
{
	(void)b;
	*(int *)arg = 1;
	return 0;
}

static int figures_read(struct db *db, struct day_figures *f)
{
	int rc;

	if ((rc = report_takings(db, f->from, f->to, take_row, f)) != 0)
		return rc;
	if ((rc = read_voids(db, f)) || (rc = read_credits(db, f)) || (rc = read_checks(db, f)) ||
	    (rc = read_loose(db, f)))
		return rc;
	if ((rc = drawer_list(db, f->from, f->to, 0, drawer_row, f)) != 0)
		return rc;
	if ((rc = recon_day_balanced(db, NULL, f->day, &f->recon_balanced, &f->recon_open)) != 0)
		return rc;
	if ((rc = recon_batch_list(db, NULL, f->day, 1, count_batch, &f->recon)) != 0)
		return rc;
	return read_state(db, f);
}

int day_figures_get(struct db *db, const char *day, struct day_figures *out)
{
	int own, rc;

	memset(out, 0, sizeof *out);
	if ((rc = recon_day_window(day, &out->from, &out->to)) != 0)
		return rc;
	snprintf(out->day, sizeof out->day, "%s", day);
	own = sqlite3_get_autocommit(db_sqlite(db));
	if (own && (rc = db_exec(db, "BEGIN")) != 0)
		return rc;
	rc = figures_read(db, out);
	if (own)
		db_exec(db, rc ? "ROLLBACK" : "COMMIT");
	if (rc)
		day_figures_free(out);
	return rc;
}

void day_figures_free(struct day_figures *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nvoids; i++)
		free(f->voids[i].reason);
	for (i = 0; i < f->ndrawers; i++)
		drawer_free(&f->drawers[i]);
	for (i = 0; i < f->nchecks; i++) {
		free(f->checks[i].customer);
		free(f->checks[i].reference);
	}
	free(f->methods);
	free(f->voids);
	free(f->credits);
	free(f->drawers);
	free(f->checks);
	memset(f, 0, sizeof *f);
}

/* ------------------------------------------------------------ JSON and changes */

static void jint(cJSON *o, const char *k, int64_t v)
{
	cJSON_AddNumberToObject(o, k, (double)v);
}

char *day_figures_json(const struct day_figures *f)
{
	cJSON *doc = cJSON_CreateObject(), *a, *o;
	char *text;
	size_t i;

	cJSON_AddStringToObject(doc, "day", f->day);
	a = cJSON_AddArrayToObject(doc, "takings");
	for (i = 0; i < f->nmethods; i++) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "method", f->methods[i].method);
		cJSON_AddStringToObject(o, "currency", f->methods[i].currency);
		jint(o, "count", f->methods[i].count);
		jint(o, "received", f->methods[i].received);
		jint(o, "refunded", f->methods[i].refunded);
		jint(o, "net", f->methods[i].net);
		cJSON_AddItemToArray(a, o);
	}
	a = cJSON_AddArrayToObject(doc, "voids");
	for (i = 0; i < f->nvoids; i++) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "kind", f->voids[i].kind);
		jint(o, "id", f->voids[i].id);
		cJSON_AddStringToObject(o, "number", f->voids[i].number);
		cJSON_AddStringToObject(o, "currency", f->voids[i].currency);
		jint(o, "amount", f->voids[i].amount);
		cJSON_AddItemToArray(a, o);
	}
	a = cJSON_AddArrayToObject(doc, "credit_notes");
	for (i = 0; i < f->ncredits; i++) {
		o = cJSON_CreateObject();
		jint(o, "id", f->credits[i].id);
		cJSON_AddStringToObject(o, "number", f->credits[i].number);
		cJSON_AddStringToObject(o, "credits", f->credits[i].credits);
		cJSON_AddStringToObject(o, "currency", f->credits[i].currency);
		jint(o, "total", f->credits[i].total);
		cJSON_AddItemToArray(a, o);
	}
	a = cJSON_AddArrayToObject(doc, "drawers");
	for (i = 0; i < f->ndrawers; i++) {
		const struct drawer *d = &f->drawers[i];

		o = cJSON_CreateObject();
		jint(o, "id", d->id);
		cJSON_AddStringToObject(o, "desk", d->desk);
		cJSON_AddStringToObject(o, "currency", d->currency);
		jint(o, "float", d->float_amount);
		jint(o, "taken", d->taken);
		jint(o, "refunded", d->refunded);
		jint(o, "voided", d->voided);
		jint(o, "paid_out", d->paid_out);
		jint(o, "expected", drawer_expected(d));
		if (d->closed) {
			jint(o, "counted", d->counted);
			jint(o, "difference", d->difference);
		}
		cJSON_AddItemToArray(a, o);
	}
	a = cJSON_AddArrayToObject(doc, "checks");
	for (i = 0; i < f->nchecks; i++) {
		o = cJSON_CreateObject();
		jint(o, "payment_id", f->checks[i].payment_id);
		cJSON_AddStringToObject(o, "currency", f->checks[i].currency);
		jint(o, "amount", f->checks[i].amount);
		cJSON_AddItemToArray(a, o);
	}
	jint(doc, "cash_in_no_drawer", f->loose_cash_count);
	text = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	return text ? text : xstrdup("{}");
}

/* One figure of a flattened close: what, value. */
struct flat {
	char **what, **value;
	size_t n, cap;
};

static void flat_add(struct flat *f, const char *what, const char *value)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 32;
		f->what = xrealloc(f->what, f->cap * sizeof *f->what);
		f->value = xrealloc(f->value, f->cap * sizeof *f->value);
	}
	f->what[f->n] = xstrdup(what);
	f->value[f->n++] = xstrdup(value);
}

static void flat_free(struct flat *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		free(f->what[i]);
		free(f->value[i]);
	}
	free(f->what);
	free(f->value);
}

static int64_t num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static void flat_money(struct flat *f, const char *what, const cJSON *o, const char *k,
                       const char *cur)
{
	char m[MONEY_BUFSZ], v[MONEY_BUFSZ + 8];

	if (!cJSON_GetObjectItemCaseSensitive(o, k))
		return;
	snprintf(v, sizeof v, "%s %s", money_text(num(o, k), cur, 0, m), cur);
	flat_add(f, what, v);
}

static void flatten(const char *json, struct flat *f)
{
	cJSON *doc = json ? cJSON_Parse(json) : NULL;
	const cJSON *o;
	char what[160], v[32];
	static const char *const tk[] = {"received", "refunded", "net"};
	static const char *const dk[] = {"float",    "taken",    "refunded", "voided",
	                                 "paid_out", "expected", "counted",  "difference"};
	size_t i;

	if (!doc)
		return;
	cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "takings"))
	{
		snprintf(what, sizeof what, "takings %s %s count", str(o, "method"),
		         str(o, "currency"));
		snprintf(v, sizeof v, "%lld", (long long)num(o, "count"));
		flat_add(f, what, v);
		for (i = 0; i < sizeof tk / sizeof tk[0]; i++) {
			snprintf(what, sizeof what, "takings %s %s %s", str(o, "method"),
			         str(o, "currency"), tk[i]);
			flat_money(f, what, o, tk[i], str(o, "currency"));
		}
	}
	cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "voids"))
	{
		if (!strcmp(str(o, "kind"), "invoice"))
			snprintf(what, sizeof what, "void invoice %s", str(o, "number"));
		else
			snprintf(what, sizeof what, "void payment %lld", (long long)num(o, "id"));
		flat_money(f, what, o, "amount", str(o, "currency"));
	}
	cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "credit_notes"))
	{
		snprintf(what, sizeof what, "credit note %s", str(o, "number"));
		flat_money(f, what, o, "total", str(o, "currency"));
	}
	cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "drawers"))
	{
		for (i = 0; i < sizeof dk / sizeof dk[0]; i++) {
			snprintf(what, sizeof what, "drawer %lld (%s) %s", (long long)num(o, "id"),
			         str(o, "desk"), dk[i]);
			flat_money(f, what, o, dk[i], str(o, "currency"));
		}
	}
	cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "checks"))
	{
		snprintf(what, sizeof what, "check of payment %lld",
		         (long long)num(o, "payment_id"));
		flat_money(f, what, o, "amount", str(o, "currency"));
	}
	snprintf(v, sizeof v, "%lld", (long long)num(doc, "cash_in_no_drawer"));
	flat_add(f, "cash payments in no drawer", v);
	cJSON_Delete(doc);
}

static const char *flat_find(const struct flat *f, const char *what)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->what[i], what))
			return f->value[i];
	return NULL;
}

int day_changes(const char *before, const char *after,
                int (*cb)(const char *what, const char *before, const char *after, void *arg),
                void *arg)
{
	struct flat b = {0}, a = {0};
	const char *other;
	size_t i;
	int rc = 0;

	flatten(before, &b);
	flatten(after, &a);
	for (i = 0; i < b.n && !rc; i++) {
		other = flat_find(&a, b.what[i]);
		if (!other || strcmp(other, b.value[i]))
			rc = cb(b.what[i], b.value[i], other ? other : "", arg);
	}
	for (i = 0; i < a.n && !rc; i++)
		if (!flat_find(&b, a.what[i]))
			rc = cb(a.what[i], "", a.value[i], arg);
	flat_free(&b);
	flat_free(&a);
	return rc;
}

/* ------------------------------------------------------------ close, reopen */

struct close_ctx {
	const char *day;
	int64_t from, to;
	char *figures;  /* the new close's */
	char *previous; /* the last close's, when any */
	const char *reason;
};

/* The last row of day: *kind ("" when none), *figures (a close's). */
static int last_row(struct db *db, const char *day, char kind[8], char **figures)
{
	sqlite3_stmt *st;
	int rc, step;

	kind[0] = '\0';
	if (figures)
		*figures = NULL;
	rc = db_prepare_cached(db,
	                       "SELECT kind, (SELECT figures FROM day_close WHERE day = ?1"
	                       " AND kind = 'close' ORDER BY id DESC LIMIT 1)"
	                       " FROM day_close WHERE day = ?1 ORDER BY id DESC LIMIT 1",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, day, -1, SQLITE_STATIC);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		dbrow_copy(st, 0, kind, 8);
		if (figures)
			*figures = dbrow_dup(st, 1);
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the day's closes"));
	}
	db_release(db, st);
	return rc;
}

static int open_drawers_before(struct db *db, int64_t to, struct strbuf *names)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare_cached(db,
	                       "SELECT o.desk, o.drawer_id FROM drawer_open o JOIN drawer d"
	                       " ON d.id = o.drawer_id WHERE d.opened_at < ? ORDER BY o.desk",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, to);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		sb_printf(names, "%s%s (session %lld)", names->len ? ", " : "",
		          (const char *)sqlite3_column_text(st, 0),
		          (long long)sqlite3_column_int64(st, 1));
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the drawers"));
	db_release(db, st);
	return rc;
}

static int insert_row(struct db *db, struct close_ctx *c, const char *kind)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(
	    db,
	    "INSERT INTO day_close (day, kind, starts_at, ends_at, by_login, reason,"
	    " figures, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, c->day, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, c->from);
	sqlite3_bind_int64(st, 4, c->to);
	sqlite3_bind_text(st, 5, db_operator(), -1, SQLITE_TRANSIENT);
	if (c->reason)
		sqlite3_bind_text(st, 6, c->reason, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 6);
	if (c->figures)
		sqlite3_bind_text(st, 7, c->figures, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 7);
	sqlite3_bind_int64(st, 8, clock_now());
	return db_run_cached(db, st, _("cannot write the day's close"));
}

static int close_tx(struct db *db, void *arg)
{
	struct close_ctx *c = arg;
	struct day_figures f;
	struct strbuf names = {0};
	char kind[8], subject[48];
	int rc;

	snprintf(subject, sizeof subject, "close the day %s", c->day);
	if ((rc = control_require(db, PERM_DAY_CLOSE, 0, subject)) != 0)
		return rc;
	free(c->previous);
	c->previous = NULL;
	if ((rc = last_row(db, c->day, kind, &c->previous)) != 0)
		return rc;
	if (!strcmp(kind, "close"))
		return err_set(FD_ECONFLICT, _("the day %s is already closed"), c->day);
	if ((rc = open_drawers_before(db, c->to, &names)) != 0)
		goto out;
	if (names.len) {
		rc = err_set(FD_ECONFLICT,
		             _("the drawers of %s are still open: count and close them first "
		               "(frontdesk drawer close)"),
		             sb_cstr(&names));
		goto out;
	}
	if ((rc = day_figures_get(db, c->day, &f)) != 0)
		goto out;
	free(c->figures);
	c->figures = day_figures_json(&f);
	day_figures_free(&f);
	rc = insert_row(db, c, "close");
out:
	sb_free(&names);
	return rc;
}

int day_close(struct db *db, const char *day, char **previous)
{
	struct close_ctx c = {day, 0, 0, NULL, NULL, NULL};
	int rc;

	if (previous)
		*previous = NULL;
	if ((rc = recon_day_window(day, &c.from, &c.to)) != 0)
		return rc;
	if (c.from > clock_now())
		return err_set(FD_EINVAL,
		               _("the day %s has not begun: a day is closed once it has"), day);
	rc = db_write(db, close_tx, &c);
	free(c.figures);
	if (!rc && previous)
		*previous = c.previous;
	else
		free(c.previous);
	return rc;
}

static int reopen_tx(struct db *db, void *arg)
{
	struct close_ctx *c = arg;
	char kind[8], subject[48];
	int rc;

	snprintf(subject, sizeof subject, "reopen the day %s", c->day);
	if ((rc = control_require(db, PERM_DAY_CLOSE, 0, subject)) != 0)
		return rc;
	if ((rc = last_row(db, c->day, kind, NULL)) != 0)
		return rc;
	if (strcmp(kind, "close") != 0)
		return err_set(FD_ECONFLICT, _("the day %s is not closed"), c->day);
	return insert_row(db, c, "reopen");
}

int day_reopen(struct db *db, const char *day, const char *reason)
{
	struct close_ctx c = {day, 0, 0, NULL, NULL, reason};
	int rc;

	if ((rc = recon_day_window(day, &c.from, &c.to)) != 0)
		return rc;
	if (!reason || !*reason)
		return err_set(FD_EINVAL, _("reopening a day needs a reason"));
	if ((rc = text_check(reason, _("the reason"), 400, 0)) != 0)
		return rc;
	return db_write(db, reopen_tx, &c);
}

int day_events(struct db *db, const char *day, int (*cb)(const struct day_event *e, void *arg),
               void *arg)
{
	sqlite3_stmt *st;
	struct day_event e;
	int rc, step;

	rc = db_prepare_cached(db,
	                       "SELECT id, day, kind, by_login, reason, figures, at FROM day_close"
	                       " WHERE ?1 IS NULL OR day = ?1 ORDER BY day DESC, id",
	                       &st);
	if (rc)
		return rc;
	if (day)
		sqlite3_bind_text(st, 1, day, -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&e, 0, sizeof e);
		e.id = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, e.day, sizeof e.day);
		dbrow_copy(st, 2, e.kind, sizeof e.kind);
		dbrow_copy(st, 3, e.by, sizeof e.by);
		e.reason = dbrow_dup(st, 4);
		e.figures = dbrow_dup(st, 5);
		e.at = sqlite3_column_int64(st, 6);
		rc = cb(&e, arg);
		free(e.reason);
		free(e.figures);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the day's closes"));
	db_release(db, st);
	return rc;
}
