/*
 * history.c - a record's timeline (see history.h).
 *
 * Each kind is a row of `kinds`: its history queries (the record's own, and
 * for a visit its links'), its status flow entity, and how to find its
 * currency. The history rows are read generically, column by column, so a
 * column added by a later migration shows up without a change here; the
 * columns that say nothing to a person (row ids, bookkeeping times, query
 * counters) are skipped. Events are collected, then sorted by time (stable:
 * within one second, history before status flow before requests, each in
 * its own order), then handed out.
 */
#include <config.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "err.h"
#include "history.h"
#include "i18n.h"
#include "money.h"
#include "pipe-log.h"
#include "staff.h"
#include "strbuf.h"
#include "xalloc.h"

struct kind {
	const char *word, *alias;
	const char *his_sql;  /* ?1 = id: history rows, by his_id */
	const char *part_sql; /* NULL, or ?1 = id: rows of its parts (a visit's links) */
	const char *part_word;
	const char *flow; /* status_flow entity, NULL when none */
	/* ?1 = id: the currency of its amounts, NULL when the rows carry it */
	const char *currency_sql;
	const char *exists_sql; /* ?1 = id: 1 when the record is there now */
};

static const struct kind kinds[] = {
    {"customer", NULL, "SELECT * FROM customer_his WHERE id = ?1 ORDER BY his_id", NULL, NULL, NULL,
     NULL, "SELECT 1 FROM customer WHERE id = ?1"},
    {"job", NULL, "SELECT * FROM service_order_his WHERE id = ?1 ORDER BY his_id", NULL, NULL,
     "job", NULL, "SELECT 1 FROM service_order WHERE id = ?1"},
    {"visit", "appt", "SELECT * FROM appointment_his WHERE id = ?1 ORDER BY his_id",
     "SELECT * FROM appointment_work_his WHERE id IN"
     " (SELECT DISTINCT id FROM appointment_work_his WHERE appointment_id = ?1) ORDER BY his_id",
     "link", "appointment", NULL, "SELECT 1 FROM appointment WHERE id = ?1"},
    {"item", NULL, "SELECT * FROM line_item_his WHERE id = ?1 ORDER BY his_id", NULL, NULL, NULL,
     "SELECT o.currency FROM service_order o WHERE o.id ="
     " (SELECT service_order_id FROM line_item_his WHERE id = ?1 ORDER BY his_id LIMIT 1)",
     "SELECT 1 FROM line_item WHERE id = ?1"},
    {"invoice", NULL, "SELECT * FROM invoice_his WHERE id = ?1 ORDER BY his_id", NULL, NULL,
     "invoice", NULL, "SELECT 1 FROM invoice WHERE id = ?1"},
    {"payment", NULL, "SELECT * FROM payment_his WHERE id = ?1 ORDER BY his_id", NULL, NULL,
     "payment", NULL, "SELECT 1 FROM payment WHERE id = ?1"},
    {"allocation", NULL, "SELECT * FROM payment_allocation_his WHERE id = ?1 ORDER BY his_id", NULL,
     NULL, NULL,
     "SELECT p.currency FROM payment p WHERE p.id ="
     " (SELECT payment_id FROM payment_allocation_his WHERE id = ?1 ORDER BY his_id LIMIT 1)",
     "SELECT 1 FROM payment_allocation WHERE id = ?1"},
    {"refund", NULL, "SELECT * FROM refund_his WHERE id = ?1 ORDER BY his_id", NULL, NULL, "refund",
     "SELECT p.currency FROM payment p WHERE p.id ="
     " (SELECT payment_id FROM refund_his WHERE id = ?1 ORDER BY his_id LIMIT 1)",
     "SELECT 1 FROM refund WHERE id = ?1"},
    {"card-order", NULL, "SELECT * FROM pay_order_his WHERE id = ?1 ORDER BY his_id", NULL, NULL,
     "pay_order", NULL, "SELECT 1 FROM pay_order WHERE id = ?1"},
    {"service", NULL, "SELECT * FROM service_his WHERE id = ?1 ORDER BY his_id", NULL, NULL, NULL,
     NULL, "SELECT 1 FROM service WHERE id = ?1"},
    {"contact", NULL,
     "SELECT 0 AS his_id, id, customer_id, at, channel, direction, summary, corrects_id,"
     " operator_id, 1 AS operate_type, created_at AS operate_at FROM contact_log WHERE id = ?1",
     NULL, NULL, NULL, NULL, "SELECT 1 FROM contact_log WHERE id = ?1"},
    {"inbound", "event",
     "SELECT 0 AS his_id, id, source_system, external_id, via, event_type, object_id,"
     " '' AS operator_id, 1 AS operate_type, received_at AS operate_at"
     " FROM inbound_callback WHERE id = ?1",
     NULL, NULL, "inbound_callback", NULL, "SELECT 1 FROM inbound_callback WHERE id = ?1"},
    /* a manager's approval (staff.c): who asked, for what, who decided how;
     * its status moves name who decided and who used it */
    {"approval", NULL,
     "SELECT 0 AS his_id, id, permission, amount, subject, requested_by, decided_by, how,"
     " requested_by AS operator_id, 1 AS operate_type, requested_at AS operate_at"
     " FROM approval WHERE id = ?1",
     NULL, NULL, "approval", NULL, "SELECT 1 FROM approval WHERE id = ?1"},
    /* a message to a customer (message.c): written once, then its status
     * moves (the flow, with who and why) */
    {"message", NULL,
     "SELECT 0 AS his_id, id, customer_id, channel, kind, appointment_id, invoice_id, language,"
     " recipient, subject, provider_code, provider_ref, error, '' AS operator_id,"
     " 1 AS operate_type, created_at AS operate_at FROM message WHERE id = ?1",
     NULL, NULL, "message", NULL, "SELECT 1 FROM message WHERE id = ?1"},
    /* a recurring job (recurring.c): its rule's changes, its occurrences the parts */
    {"recurring", NULL, "SELECT * FROM recurring_rule_his WHERE id = ?1 ORDER BY his_id",
     "SELECT * FROM recurring_occurrence_his WHERE rule_id = ?1 ORDER BY his_id", "occurrence",
     NULL, NULL, "SELECT 1 FROM recurring_rule WHERE id = ?1"},
    /* an estimate and its sign flow (esign.c): the flow's rows are its parts */
    {"estimate", NULL, "SELECT * FROM estimate_his WHERE id = ?1 ORDER BY his_id",
     "SELECT * FROM esign_flow_his WHERE estimate_id = ?1 ORDER BY his_id", "sign flow", NULL, NULL,
     "SELECT 1 FROM estimate WHERE id = ?1"},
    /* a condition report (condition.c): its media are its parts; a medium's
     * hosts are its parts; a hotspot's edits are its rows */
    {"condition", NULL, "SELECT * FROM condition_report_his WHERE id = ?1 ORDER BY his_id",
     "SELECT * FROM media_item_his WHERE report_id = ?1 ORDER BY his_id", "medium",
     "condition_report", NULL, "SELECT 1 FROM condition_report WHERE id = ?1"},
    {"medium", NULL, "SELECT * FROM media_item_his WHERE id = ?1 ORDER BY his_id",
     "SELECT * FROM media_host_his WHERE media_id = ?1 ORDER BY his_id", "host", NULL, NULL,
     "SELECT 1 FROM media_item WHERE id = ?1"},
    {"hotspot", NULL, "SELECT * FROM hotspot_his WHERE id = ?1 ORDER BY his_id", NULL, NULL, NULL,
     NULL, "SELECT 1 FROM hotspot WHERE id = ?1"},
};

/* Columns that say nothing to a person reading a timeline. */
static int skipped(const char *col, int has_flow)
{
	static const char *const skip[] = {
	    "his_id",        "id",         "operator_id",     "operate_type",
	    "operate_at",    "updated_at", "created_at",      "query_count",
	    "next_query_at", "attempts",   "next_attempt_at", NULL};
	size_t i;

	if (has_flow && !strcmp(col, "status"))
		return 1; /* the status flow says it, with the reason */
	for (i = 0; skip[i]; i++)
		if (!strcmp(col, skip[i]))
			return 1;
	return 0;
}

static int money_column(const char *col)
{
	static const char *const money[] = {
	    "amount",    "unit_price", "price",           "total",    "credited", "paid", "balance",
	    "allocated", "refunded",   "refunded_amount", "subtotal", "tax",      NULL};
	size_t i;

	for (i = 0; money[i]; i++)
		if (!strcmp(col, money[i]))
			return 1;
	return 0;
}

static int time_column(const char *col)
{
	size_t n = strlen(col);

	return n > 3 && !strcmp(col + n - 3, "_at");
}

/* ---------------------------------------------------------------- events */

struct ev {
	struct history_event e;
	int order; /* 0 history, 1 status, 2 request */
	int64_t seq;
	struct history_change *ch;
	char *strings[8]; /* owned: operator, part, from, to, reason, request */
};

struct timeline {
	struct ev *v;
	size_t n, cap;
	const char *currency; /* "" when none known */
	int has_flow;
	size_t flow_from, flow_to; /* t->v[flow_from..flow_to): the status flow rows */
};

/* A history row of the record (at, seq) that set the status from `from`
 * (NULL on creation) to `to`: the first status flow row that says so and is
 * not placed yet is placed right after it, so that changes and status moves
 * made in the same second read in the order they were made. */
static void place_flow(struct timeline *t, const char *from, const char *to, int64_t at,
                       int64_t seq)
{
	size_t i;

	for (i = t->flow_from; i < t->flow_to; i++) {
		struct ev *f = &t->v[i];

		if (f->order != 1 || strcmp(f->e.to_status, to))
			continue;
		if (from && (!f->e.from_status || strcmp(f->e.from_status, from)))
			continue;
		f->order = 0;
		f->e.at = at;
		f->seq = seq * 2 + 1;
		return;
	}
}

static struct ev *ev_new(struct timeline *t, int order, int64_t seq, int64_t at)
{
	struct ev *e;

	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->v = xrealloc(t->v, t->cap * sizeof *t->v);
	}
	e = &t->v[t->n++];
	memset(e, 0, sizeof *e);
	e->order = order;
	e->seq = seq;
	e->e.at = at;
	return e;
}

static const char *ev_keep(struct ev *e, char *s)
{
	size_t i;

	for (i = 0; i < sizeof e->strings / sizeof *e->strings; i++)
		if (!e->strings[i])
			return e->strings[i] = s;
	free(s); /* cannot happen: at most seven strings are kept per event */
	return "";
}

static void timeline_free(struct timeline *t)
{
	size_t i, j;

	for (i = 0; i < t->n; i++) {
		for (j = 0; j < t->v[i].e.nchanges; j++) {
			free((char *)t->v[i].ch[j].field);
			free((char *)t->v[i].ch[j].old_value);
			free((char *)t->v[i].ch[j].new_value);
		}
		free(t->v[i].ch);
		for (j = 0; j < sizeof t->v[i].strings / sizeof *t->v[i].strings; j++)
			free(t->v[i].strings[j]);
	}
	free(t->v);
}

static int ev_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->e.at != y->e.at)
		return x->e.at < y->e.at ? -1 : 1;
	if (x->order != y->order)
		return x->order - y->order;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The text a person reads for column i of st: amounts in the currency,
 * times in shop time, a quantity in units. A new string. */
static char *value_text(sqlite3_stmt *st, int i, const char *col, const char *currency)
{
	char buf[MONEY_BUFSZ + 8];
	const char *cur = currency;

	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return xstrdup("-");
	if (sqlite3_column_type(st, i) == SQLITE_INTEGER) {
		int64_t v = sqlite3_column_int64(st, i);

		if (money_column(col) && cur && *cur &&
		    money_format(v, currency_find(cur), 0, buf, sizeof buf) == 0) {
			size_t n = strlen(buf);

			snprintf(buf + n, sizeof buf - n, " %s", cur);
			return xstrdup(buf);
		}
		if (time_column(col) && v > 0) {
			clock_format_local(v, "%Y-%m-%d %H:%M", buf, sizeof buf);
			return xstrdup(buf);
		}
		if (!strcmp(col, "qty_milli")) {
			snprintf(buf, sizeof buf, "%lld.%03lld", (long long)(v / 1000),
			         (long long)((v < 0 ? -v : v) % 1000));
			return xstrdup(buf);
		}
	}
	return xstrdup((const char *)sqlite3_column_text(st, i));
}

/* The shown name of a column: qty_milli is the quantity. */
static const char *field_name(const char *col)
{
	return !strcmp(col, "qty_milli") ? "qty" : col;
}

#define PART_SEQ ((int64_t)1 << 52)

/* A record's previous history row, by record id, to diff against. */
struct prev {
	int64_t id;
	char **vals; /* one per column, NULL when none yet */
};

/* The columns of a history row that read_his looks at by name. */
enum his_col { HC_OP, HC_TYPE, HC_AT, HC_CUR, HC_ID, HC_ST, HC_N };

static const char *const his_col_names[HC_N] = {[HC_OP] = "operator_id", [HC_TYPE] = "operate_type",
                                                [HC_AT] = "operate_at",  [HC_CUR] = "currency",
                                                [HC_ID] = "id",          [HC_ST] = "status"};

/* col[HC_...] = the index of that column in st, -1 when it has none. */
static void his_find_cols(sqlite3_stmt *st, int ncol, int col[HC_N])
{
	int i, j;

	for (j = 0; j < HC_N; j++)
		col[j] = -1;
	for (i = 0; i < ncol; i++) {
		const char *n = sqlite3_column_name(st, i);

		for (j = 0; j < HC_N; j++)
			if (!strcmp(n, his_col_names[j])) {
				col[j] = i;
				break;
			}
	}
}

/* A record's own history row of type (not a deletion) with a status: when
 * the status moved since *last_status, place the status flow row that
 * moved it; *last_status becomes the row's. */
static void his_follow_status(struct timeline *t, sqlite3_stmt *st, const int col[HC_N], int type,
                              char **last_status)
{
	const char *now_st;

	if (col[HC_ST] < 0 || !t->has_flow || type == 2 ||
	    sqlite3_column_type(st, col[HC_ST]) != SQLITE_TEXT)
		return;
	now_st = (const char *)sqlite3_column_text(st, col[HC_ST]);
	if (!*last_status || strcmp(*last_status, now_st))
		place_flow(t, *last_status, now_st, sqlite3_column_int64(st, col[HC_AT]),
		           sqlite3_column_int64(st, 0));
	free(*last_status);
	*last_status = xstrdup(now_st);
}

/* The previous row of record rid, added (with no values yet) when none. */
static struct prev *his_prev(struct prev **pv, size_t *npv, int64_t rid, int ncol)
{
	struct prev *p = NULL;
	size_t k;

	for (k = 0; k < *npv; k++)
		if ((*pv)[k].id == rid)
			p = &(*pv)[k];
	if (!p) {
		*pv = xrealloc(*pv, (*npv + 1) * sizeof **pv);
		p = &(*pv)[(*npv)++];
		p->id = rid;
		p->vals = xcalloc((size_t)ncol, sizeof *p->vals);
	}
	return p;
}

static void his_prev_free(struct prev *pv, size_t npv, int ncol)
{
	size_t k;
	int i;

	for (k = 0; k < npv; k++) {
		for (i = 0; i < ncol; i++)
			free(pv[k].vals[i]);
		free(pv[k].vals);
	}
	free(pv);
}

/* Is a column's value v (old before, NULL when none) shown as a change in
 * a row of type (1 created, 2 deleted, 3 changed)? */
static int his_shows(int type, const char *old, const char *v)
{
	if (type == 2 || (type == 1 && !strcmp(v, "-")))
		return 0;
	return type == 1 || !old || strcmp(old, v);
}

/* The changes the row of st makes to p's values (*nch of them; p's values
 * become the row's). A new array of ncol entries. */
static struct history_change *his_changes(sqlite3_stmt *st, int ncol, int has_flow, int type,
                                          const char *cur, struct prev *p, size_t *nch)
{
	struct history_change *ch = xcalloc((size_t)ncol, sizeof *ch);
	int i;

	*nch = 0;
	for (i = 0; i < ncol; i++) {
		const char *col = sqlite3_column_name(st, i);
		char *v;

		if (skipped(col, has_flow))
			continue;
		v = value_text(st, i, col, cur);
		if (his_shows(type, p->vals[i], v)) {
			ch[*nch].field = xstrdup(field_name(col));
			ch[*nch].old_value = type == 1 || !p->vals[i] ? NULL : xstrdup(p->vals[i]);
			ch[*nch].new_value = xstrdup(v);
			(*nch)++;
		}
		free(p->vals[i]);
		p->vals[i] = v;
	}
	return ch;
}

/* The event of the row of st (record rid, a part's when part_word), with
 * its changes ch (taken). */
static void his_add_event(struct timeline *t, sqlite3_stmt *st, const int col[HC_N],
                          struct history_change *ch, size_t nch, int type, int64_t rid,
                          const char *part_word)
{
	const char *op;
	struct ev *e;
	char part[48];

	/* a part's rows come after the record's own within one second */
	e = ev_new(t, 0, (part_word ? PART_SEQ : 0) + sqlite3_column_int64(st, 0) * 2,
	           sqlite3_column_int64(st, col[HC_AT]));
	e->ch = ch;
	e->e.changes = ch;
	e->e.nchanges = nch;
	e->e.what = type == 1 ? "created" : type == 2 ? "deleted" : "changed";
	op = col[HC_OP] >= 0 && sqlite3_column_text(st, col[HC_OP])
	         ? (const char *)sqlite3_column_text(st, col[HC_OP])
	         : "";
	e->e.operator= ev_keep(e, xstrdup(op));
	if (part_word) {
		snprintf(part, sizeof part, "%s %lld", part_word, (long long)rid);
		e->e.part = ev_keep(e, xstrdup(part));
	} else {
		e->e.part = "";
	}
}

static int read_his(struct db *db, struct timeline *t, const char *sql, int64_t id,
                    const char *part_word, int64_t *nrows)
{
	sqlite3_stmt *st;
	struct prev *pv = NULL;
	size_t npv = 0;
	int rc, step, ncol, col[HC_N];
	char *last_status = NULL;

	if ((rc = db_prepare(db, sql, &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	ncol = sqlite3_column_count(st);
	his_find_cols(st, ncol, col);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t rid = sqlite3_column_int64(st, col[HC_ID]);
		int type = sqlite3_column_int(st, col[HC_TYPE]);
		const char *cur = t->currency;
		struct history_change *ch;
		struct prev *p;
		size_t nch;

		(*nrows)++;
		if (!part_word)
			his_follow_status(t, st, col, type, &last_status);
		p = his_prev(&pv, &npv, rid, ncol);
		if (col[HC_CUR] >= 0 && sqlite3_column_type(st, col[HC_CUR]) == SQLITE_TEXT)
			cur = (const char *)sqlite3_column_text(st, col[HC_CUR]);
		ch = his_changes(st, ncol, t->has_flow, type, cur, p, &nch);
		if (type == 3 && nch == 0) {
			free(ch); /* only the status (or bookkeeping) changed */
			continue;
		}
		his_add_event(t, st, col, ch, nch, type, rid, part_word);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the history"));
	sqlite3_finalize(st);
	free(last_status);
	his_prev_free(pv, npv, ncol);
	return rc;
}

static int read_flow(struct db *db, struct timeline *t, const char *entity, int64_t id,
                     int64_t *nrows)
{
	static const char sql[] =
	    "SELECT id, from_status, to_status, reason, operator_id, at"
	    " FROM status_flow WHERE entity = ?1 AND entity_id = ?2 ORDER BY id";
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare(db, sql, &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, entity, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct ev *e =
		    ev_new(t, 1, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 5));
		const char *from = (const char *)sqlite3_column_text(st, 1);
		const char *reason = (const char *)sqlite3_column_text(st, 3);

		(*nrows)++;
		e->e.what = "status";
		e->e.part = "";
		e->e.from_status = from ? ev_keep(e, xstrdup(from)) : NULL;
		e->e.to_status = ev_keep(e, xstrdup((const char *)sqlite3_column_text(st, 2)));
		e->e.reason = reason && *reason ? ev_keep(e, xstrdup(reason)) : NULL;
		e->e.operator= ev_keep(e, xstrdup((const char *)sqlite3_column_text(st, 4)));
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the history"));
	sqlite3_finalize(st);
	return rc;
}

static int add_request(const struct pipe_log_row *r, void *arg)
{
	struct timeline *t = arg;
	struct strbuf sb = {0};
	struct ev *e;
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].order == 2 && t->v[i].seq == r->id)
			return 0; /* named by two groups of needles */
	e = ev_new(t, 2, r->id, r->logged_at);

	sb_printf(&sb, "%s %s %d (%s, %lld ms)", r->method ? r->method : "?", r->url ? r->url : "?",
	          r->status, r->keyword ? r->keyword : "?", (long long)r->latency_ms);
	if (r->error && *r->error)
		sb_printf(&sb, ": %s", r->error);
	e->e.what = "request";
	e->e.part = "";
	e->e.operator= ev_keep(e, xstrdup(r->provider ? r->provider : ""));
	e->e.request = ev_keep(e, sb_steal(&sb));
	return 0;
}

/* The ids that name a card order or an inbound event in the request log:
 * our order number, the channel's id of it, and the channel's ids of its
 * refunds (a refund request's body is masked; its later queries name it). */
struct needles {
	char **v;
	size_t n;
};

static int request_needles(struct db *db, const struct kind *k, int64_t id, struct needles *nd)
{
	static const char order_sql[] =
	    "SELECT order_no FROM pay_order WHERE id = ?1"
	    " UNION ALL SELECT channel_order_id FROM pay_order WHERE id = ?1"
	    " UNION ALL SELECT r.reference FROM refund r JOIN pay_order o ON o.payment_id ="
	    " r.payment_id WHERE o.id = ?1 AND r.reference IS NOT NULL";
	static const char inbound_sql[] =
	    "SELECT external_id FROM inbound_callback WHERE id = ?1"
	    " UNION ALL SELECT object_id FROM inbound_callback WHERE id = ?1";
	sqlite3_stmt *st;
	int rc, step;

	if (strcmp(k->word, "card-order") && strcmp(k->word, "inbound"))
		return 0;
	if ((rc = db_prepare(db, !strcmp(k->word, "inbound") ? inbound_sql : order_sql, &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		if (sqlite3_column_type(st, 0) == SQLITE_TEXT) {
			nd->v = xrealloc(nd->v, (nd->n + 1) * sizeof *nd->v);
			nd->v[nd->n++] = xstrdup((const char *)sqlite3_column_text(st, 0));
		}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the history"));
	sqlite3_finalize(st);
	return rc;
}

/* ---------------------------------------------------------------- the record */

static const struct kind *kind_find(const char *word)
{
	size_t i;

	for (i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (!strcmp(word, kinds[i].word) ||
		    (kinds[i].alias && !strcmp(word, kinds[i].alias)))
			return &kinds[i];
	return NULL;
}

/* The id that ref names: a positive decimal id, an invoice number, an
 * order number. */
static int resolve(struct db *db, const struct kind *k, const char *ref, int64_t *id)
{
	static const char inv_sql[] = "SELECT id FROM invoice WHERE number = ?1";
	static const char order_sql[] = "SELECT id FROM pay_order WHERE order_no = ?1";
	sqlite3_stmt *st;
	const char *p;
	int rc, step;

	for (p = ref; *p >= '0' && *p <= '9'; p++)
		;
	if (*ref && !*p && p - ref < 19) {
		*id = strtoll(ref, NULL, 10);
		if (*id > 0)
			return 0;
	}
	if (strcmp(k->word, "invoice") && strcmp(k->word, "card-order"))
		return err_set(FD_EINVAL, _("'%.40s' is not a %s id"), ref, k->word);
	if ((rc = db_prepare(db, !strcmp(k->word, "invoice") ? inv_sql : order_sql, &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, ref, -1, SQLITE_STATIC);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, _("there is no %s %.64s"), k->word, ref);
	else
		rc = db_fail(db, _("cannot read the history"));
	sqlite3_finalize(st);
	return rc;
}

static int one_text(struct db *db, const char *sql, int64_t id, char *out, size_t n)
{
	sqlite3_stmt *st;
	int rc;

	out[0] = '\0';
	if ((rc = db_prepare(db, sql, &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return 0;
}

int history_kind_check(const char *kind)
{
	if (kind_find(kind ? kind : ""))
		return 0;
	return err_set(FD_EINVAL,
	               _("'%.40s' is not a kind of record: customer, job, visit, item, "
	                 "invoice, payment, allocation, refund, card-order, inbound, service, "
	                 "contact, estimate or approval"),
	               kind ? kind : "");
}

/* Each event's operator_name: the staff register's name of its login (a
 * provider's request keeps none). */
static void name_operators(struct db *db, struct timeline *t)
{
	char name[128];
	size_t i;

	for (i = 0; i < t->n; i++) {
		struct ev *e = &t->v[i];

		e->e.operator_name = "";
		if (!*e->e.operator|| !strcmp(e->e.what, "request"))
			continue;
		staff_name(db, e->e.operator, name, sizeof name);
		if (strcmp(name, e->e.operator))
			e->e.operator_name = ev_keep(e, xstrdup(name));
	}
}

int history_read(struct db *db, const char *kind, const char *ref, const char *log_path,
                 int (*cb)(const struct history_event *e, void *arg), void *arg)
{
	const struct kind *k = kind_find(kind ? kind : "");
	struct timeline t = {0};
	char currency[8] = "", there[4];
	struct needles nd = {NULL, 0};
	int64_t id = 0, nrows = 0;
	size_t i;
	int rc;

	if (!k)
		return history_kind_check(kind);
	if ((rc = control_require(db, PERM_RECORDS_VIEW, 0, "read a record's history")) != 0)
		return rc;
	if (!ref || !*ref)
		return err_set(FD_EINVAL, _("which %s? give its id"), k->word);
	if ((rc = db_exec(db, "BEGIN")) != 0)
		return rc;
	if ((rc = resolve(db, k, ref, &id)) != 0)
		goto out;
	t.has_flow = k->flow != NULL;
	if (k->currency_sql && (rc = one_text(db, k->currency_sql, id, currency, sizeof currency)))
		goto out;
	t.currency = currency;
	if (k->flow && (rc = read_flow(db, &t, k->flow, id, &nrows)) != 0)
		goto out;
	t.flow_to = t.n;
	if ((rc = read_his(db, &t, k->his_sql, id, NULL, &nrows)) != 0)
		goto out;
	if (k->part_sql && (rc = read_his(db, &t, k->part_sql, id, k->part_word, &nrows)) != 0)
		goto out;
	if ((rc = one_text(db, k->exists_sql, id, there, sizeof there)) != 0)
		goto out;
	if (nrows == 0 && !there[0]) {
		rc = err_set(FD_ENOTFOUND, _("there is no %s %lld, and there never was"), k->word,
		             (long long)id);
		goto out;
	}
	if ((rc = request_needles(db, k, id, &nd)) != 0)
		goto out;
	if (log_path && nd.n &&
	    (rc = pipe_log_find(log_path, (const char *const *)nd.v, nd.n, 0, add_request, &t)) !=
	        0)
		goto out;
	qsort(t.v, t.n, sizeof *t.v, ev_cmp);
	name_operators(db, &t);
	for (i = 0; i < t.n && !rc; i++)
		rc = cb(&t.v[i].e, arg);
out:
	db_rollback(db);
	for (i = 0; i < nd.n; i++)
		free(nd.v[i]);
	free(nd.v);
	timeline_free(&t);
	return rc;
}
