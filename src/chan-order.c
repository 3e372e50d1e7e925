/*
 * chan-order.c - the card payment order, pay_order (see chan-order.h).
 *
 * Invariants: every UPDATE of pay_order's status is in this file, in
 * write_row, reached only through chan_order_move after the move was
 * checked against `moves` (pay_order_states); the changeable fields are
 * written from the struct the caller read in the same transaction; the
 * other columns are never written after the INSERT. What is refundable and chargeable is
 * computed here only (one SQL statement each, so that it is the same
 * inside a transaction and out).
 *
 * Permissions: none asked here: its writes run inside outbox_charge (which
 * asks payment.take) or the pipeline's steps.
 */
#include <config.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chan-order.h"
#include "channel.h"
#include "clock.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "invoice.h"
#include "retention-mod.h"
#include "states.h"
#include "words.h"

/* The stored word of each state, once. */
static const char *const state_words[PAY_ORDER_STATES] = {
    [PAY_ORDER_CREATED] = "created",   [PAY_ORDER_PAYING] = "paying",
    [PAY_ORDER_PAID] = "paid",         [PAY_ORDER_REFUNDING] = "refunding",
    [PAY_ORDER_REFUNDED] = "refunded", [PAY_ORDER_CLOSED] = "closed",
    [PAY_ORDER_FAILED] = "failed",
};

/* The moves an order may make: the schema's status_transition rows for
 * pay_order, which the trigger that refuses any other keeps (states_agree
 * checks the two are the same). */
static const struct state_move moves[] = {
    {PAY_ORDER_CREATED, PAY_ORDER_PAYING}, {PAY_ORDER_CREATED, PAY_ORDER_PAID},
    {PAY_ORDER_CREATED, PAY_ORDER_CLOSED}, {PAY_ORDER_CREATED, PAY_ORDER_FAILED},
    {PAY_ORDER_PAYING, PAY_ORDER_PAID},    {PAY_ORDER_PAYING, PAY_ORDER_CLOSED},
    {PAY_ORDER_PAYING, PAY_ORDER_FAILED},  {PAY_ORDER_PAID, PAY_ORDER_REFUNDING},
    {PAY_ORDER_PAID, PAY_ORDER_REFUNDED},  {PAY_ORDER_REFUNDING, PAY_ORDER_REFUNDED},
    {PAY_ORDER_REFUNDING, PAY_ORDER_PAID}, {-1, -1},
};

const struct states pay_order_states = {"pay_order", state_words, PAY_ORDER_STATES, moves};

enum pay_order_state pay_order_state_of(const char *s)
{
	return (enum pay_order_state)states_of(&pay_order_states, s);
}

const char *pay_order_state_word(enum pay_order_state s)
{
	return states_word(&pay_order_states, (int)s);
}

int chan_order_is_open(const char *s)
{
	enum pay_order_state st = pay_order_state_of(s);

	return st == PAY_ORDER_CREATED || st == PAY_ORDER_PAYING;
}

int chan_order_is_paid(const char *s)
{
	enum pay_order_state st = pay_order_state_of(s);

	return st == PAY_ORDER_PAID || st == PAY_ORDER_REFUNDING || st == PAY_ORDER_REFUNDED;
}

int chan_order_is_final(const char *s)
{
	enum pay_order_state st = pay_order_state_of(s);

	return st == PAY_ORDER_CLOSED || st == PAY_ORDER_FAILED;
}

int chan_order_can_move(const char *from, const char *to)
{
	return states_may_move(&pay_order_states, (int)pay_order_state_of(from),
	                       (int)pay_order_state_of(to));
}

/* ---------------------------------------------------------------- reads */

#define ORDER_COLS                                                                                 \
	"id, order_no, provider_code, coalesce(channel_order_id, ''), customer_id,"                \
	" coalesce(invoice_id, 0), coalesce(payment_id, 0), currency, amount, refunded_amount,"    \
	" status, query_count, coalesce(next_query_at, 0), coalesce(last_error, ''), created_at,"  \
	" updated_at"

/* Fill *o from the current row of st (ORDER_COLS). */
static void fill(sqlite3_stmt *st, struct pay_order *o)
{
	memset(o, 0, sizeof *o);
	o->id = sqlite3_column_int64(st, 0);
	dbrow_copy(st, 1, o->order_no, sizeof o->order_no);
	dbrow_copy(st, 2, o->provider, sizeof o->provider);
	dbrow_copy(st, 3, o->channel_id, sizeof o->channel_id);
	o->customer_id = sqlite3_column_int64(st, 4);
	o->invoice_id = sqlite3_column_int64(st, 5);
	o->payment_id = sqlite3_column_int64(st, 6);
	dbrow_copy(st, 7, o->currency, sizeof o->currency);
	o->amount = sqlite3_column_int64(st, 8);
	o->refunded = sqlite3_column_int64(st, 9);
	dbrow_copy(st, 10, o->status, sizeof o->status);
	o->query_count = sqlite3_column_int64(st, 11);
	o->next_query_at = sqlite3_column_int64(st, 12);
	dbrow_copy(st, 13, o->last_error, sizeof o->last_error);
	o->created_at = sqlite3_column_int64(st, 14);
	o->updated_at = sqlite3_column_int64(st, 15);
}

/* The start of every read of one order; each caller appends its WHERE as
 * a string literal, so that each query is its own literal (the statement
 * cache knows a statement by the address of its SQL). */
#define ORDER_WHERE "SELECT " ORDER_COLS " FROM pay_order WHERE "

/* The one order that sql (ORDER_WHERE "column = ?1 [AND column = ?2]", a
 * literal) finds: ?1 is text t1 when not NULL, else the integer i1; ?2 is
 * t2 when not NULL. 0 and *out, FD_ENOTFOUND with nf as the reason, or a
 * database error. */
static int read_where(struct db *db, const char *sql, const char *t1, int64_t i1, const char *t2,
                      struct pay_order *out, const char *nf)
{
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	if ((rc = db_prepare_cached(db, sql, &st)) != 0)
		return rc;
	if (t1)
		sqlite3_bind_text(st, 1, t1, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_int64(st, 1, i1);
	if (t2)
		sqlite3_bind_text(st, 2, t2, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		fill(st, out);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, "%s", nf);
	else
		rc = db_fail(db, _("cannot read the card payment order"));
	db_release(db, st);
	return rc;
}

int chan_order_get(struct db *db, const char *order_no, struct pay_order *out)
{
	char nf[200];

	snprintf(nf, sizeof nf, _("no card payment order %s"), order_no);
	return read_where(db, ORDER_WHERE "order_no = ?1", order_no, 0, NULL, out, nf);
}

int chan_order_get_id(struct db *db, int64_t id, struct pay_order *out)
{
	char nf[200];

	snprintf(nf, sizeof nf, _("there is no card payment order %lld"), (long long)id);
	return read_where(db, ORDER_WHERE "id = ?1", NULL, id, NULL, out, nf);
}

int chan_order_by_channel(struct db *db, const char *provider, const char *channel_id,
                          struct pay_order *out)
{
	char nf[400];

	snprintf(nf, sizeof nf, _("no card payment order of ours has the channel id %s at %s"),
	         channel_id, provider);
	return read_where(db, ORDER_WHERE "provider_code = ?2 AND channel_order_id = ?1",
	                  channel_id, 0, provider, out, nf);
}

int chan_order_of_payment(struct db *db, int64_t payment_id, struct pay_order *out)
{
	char nf[200];

	snprintf(nf, sizeof nf, _("payment %lld did not come from the payment channel"),
	         (long long)payment_id);
	return read_where(db, ORDER_WHERE "payment_id = ?1", NULL, payment_id, NULL, out, nf);
}

/* Call cb with each order the bound statement st reads (stopping at the
 * first non-zero return, which is returned), then finalize st. */
static int each_order(struct db *db, sqlite3_stmt *st,
                      int (*cb)(const struct pay_order *o, void *arg), void *arg)
{
	struct pay_order o;
	int rc = 0, step;

	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		fill(st, &o);
		if ((rc = cb(&o, arg)) != 0)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the card payment orders"));
	sqlite3_finalize(st);
	return rc;
}

int chan_order_list(struct db *db, int64_t invoice_id,
                    int (*cb)(const struct pay_order *o, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare(db, ORDER_WHERE "invoice_id = ?1 ORDER BY id", &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, invoice_id);
	return each_order(db, st, cb, arg);
}

int chan_order_attempt_failed(struct db *db, const char *provider,
                              int (*cb)(const struct pay_order *o, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc;

	/* the unfinished orders' partial index first, as chan_order_to_query */
	rc = db_prepare(db,
	                ORDER_WHERE "(status = 'created' OR status = 'paying' OR status = "
	                            "'refunding') AND status <> 'refunding' AND provider_code = ?1"
	                            " AND coalesce(last_error, '') <> '' ORDER BY id LIMIT 100",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, provider, -1, SQLITE_TRANSIENT);
	return each_order(db, st, cb, arg);
}

int chan_order_to_query(struct db *db, const char *provider, int64_t until, int64_t after,
                        struct pay_order *out, size_t max, size_t *n)
{
	sqlite3_stmt *st;
	int rc, step = SQLITE_DONE;

	*n = 0;
	/* the partial index of the unfinished orders, named: left to itself
	 * the planner walked pay_order_channel_id, every order of the
	 * provider ever made (serve asks this on every poll) */
	rc = db_prepare(db,
	                "SELECT " ORDER_COLS " FROM pay_order INDEXED BY pay_order_to_query"
	                " WHERE (status = 'created' OR status = 'paying' OR status = 'refunding')"
	                " AND status <> 'refunding' AND channel_order_id IS NOT NULL"
	                " AND provider_code = ?1 AND coalesce(next_query_at, 0) <= ?2 AND id > ?3"
	                " ORDER BY id LIMIT ?4",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, provider, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, until);
	sqlite3_bind_int64(st, 3, after);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)max);
	while (*n < max && (step = sqlite3_step(st)) == SQLITE_ROW)
		fill(st, &out[(*n)++]);
	if (*n < max && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the card payment orders"));
	sqlite3_finalize(st);
	return rc;
}

int chan_order_may_charge(const struct invoice *inv)
{
	/* an open invoice (invoice.h: issued or partially paid) owing money */
	if (invoice_is_open(inv) && inv->balance > 0)
		return 0;
	return err_set(FD_ECONFLICT, _("%1$s is %2$s: there is nothing to charge"), inv->number,
	               words_label(inv->status));
}

int chan_order_may_refund(const struct pay_order *po)
{
	enum pay_order_state st = pay_order_state_of(po->status);

	if ((st == PAY_ORDER_PAID || st == PAY_ORDER_REFUNDING) && *po->channel_id)
		return 0;
	return err_set(FD_ECONFLICT,
	               _("card payment order %1$s is %2$s: only a paid order can be refunded"),
	               po->order_no, words_label(po->status));
}

int chan_order_chargeable(struct db *db, int64_t invoice_id, int64_t *left)
{
	sqlite3_stmt *st;
	int rc, step;

	*left = 0;
	rc = db_prepare_cached(db,
	                       "SELECT balance, (SELECT coalesce(sum(amount), 0) FROM pay_order"
	                       " WHERE invoice_id = ?1 AND status IN ('created', 'paying'))"
	                       " FROM invoice WHERE id = ?1",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, invoice_id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		int64_t owed = sqlite3_column_int64(st, 0), open = sqlite3_column_int64(st, 1);

		*left = owed > open ? owed - open : 0;
	} else if (step == SQLITE_DONE) {
		rc = err_set(FD_ENOTFOUND, _("there is no invoice %lld"), (long long)invoice_id);
	} else {
		rc = db_fail(db, _("cannot read the invoice balance"));
	}
	db_release(db, st);
	return rc;
}

int chan_order_refundable(struct db *db, const char *order_no, int64_t *left, int64_t *asked)
{
	sqlite3_stmt *st;
	int64_t a = 0, amount = 0;
	int rc, step;

	if (left)
		*left = 0;
	if (asked)
		*asked = 0;
	/* the refunded amount is what the channel confirmed, never more than
	 * was asked; a refund command given up asks for nothing, and neither
	 * does one whose refund the channel reported failed (0007). Whether a
	 * failed refund was ours is looked up here, not only taken from the
	 * flag stored when the failure came: the answer naming it may have been
	 * recorded after that (a lost answer resolved by asking again) */
	rc =
	    db_prepare_cached(db,
	                      "SELECT max(o.refunded_amount, (SELECT coalesce(sum("
	                      "json_extract(payload, '$.amount')), 0) FROM outbox_event"
	                      " WHERE event_type = 'refund.create' AND status <> 'dead'"
	                      " AND json_extract(payload, '$.order_no') = ?1)"
	                      " - (SELECT coalesce(sum(f.amount), 0) FROM pay_order_refund_failed f"
	                      " WHERE f.order_id = o.id AND (f.asked_by_us = 1"
	                      " OR EXISTS (SELECT 1 FROM inbound_callback WHERE source_system ="
	                      " o.provider_code AND external_id = 'answer:' || f.channel_refund_id)"
	                      " OR EXISTS (SELECT 1 FROM outbox_event WHERE idempotency_key ="
	                      " f.channel_refund_id)))), o.amount"
	                      " FROM pay_order o WHERE o.order_no = ?1",
	                      &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, order_no, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		a = sqlite3_column_int64(st, 0);
		amount = sqlite3_column_int64(st, 1);
	} else if (step == SQLITE_DONE) {
		rc = err_set(FD_ENOTFOUND, _("no card payment order %s"), order_no);
	} else {
		rc = db_fail(db, _("cannot read the card payment order"));
	}
	db_release(db, st);
	if (rc)
		return rc;
	if (asked)
		*asked = a;
	if (left)
		*left = amount > a ? amount - a : 0;
	return 0;
}

/* ---------------------------------------------------------------- writes */

int chan_order_number(struct db *db, char order_no[65])
{
	int64_t next = 0;
	char rnd[17];
	int rc;

	if ((rc = db_one_int(db, "SELECT coalesce(max(id), 0) + 1 FROM pay_order", &next)) != 0)
		return rc;
	if ((rc = chan_random_hex(rnd)) != 0)
		return rc;
	snprintf(order_no, 65, "PO-%06lld-%.8s", (long long)next, rnd);
	return 0;
}

int chan_order_create(struct db *db, const struct chan_order_new *in, int64_t *id)
{
	sqlite3_stmt *st;
	int64_t now = clock_now();
	int rc;

	rc = db_prepare(db,
	                "INSERT INTO pay_order (order_no, provider_code, customer_id, invoice_id,"
	                " currency, amount, status, created_at, updated_at)"
	                " VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'created', ?7, ?7)",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, in->order_no, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, in->provider, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, in->customer_id);
	if (in->invoice_id)
		sqlite3_bind_int64(st, 4, in->invoice_id);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_text(st, 5, in->currency, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, in->amount);
	sqlite3_bind_int64(st, 7, now);
	if ((rc = db_run(db, st, _("cannot write the card payment order"))) != 0)
		return rc;
	if (id)
		*id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

/* Write o's changeable fields and status `to` where the stored status is
 * still o->status. */
static int write_row(struct db *db, const struct pay_order *o, const char *to, const char *why)
{
	sqlite3_stmt *st;
	int rc;

	rc =
	    db_prepare_cached(db,
	                      "UPDATE pay_order SET channel_order_id = ?2, payment_id = ?3,"
	                      " refunded_amount = ?4, status = ?5, last_error = ?6, updated_at = ?7"
	                      " WHERE id = ?1 AND status = ?8",
	                      &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, o->id);
	if (*o->channel_id)
		sqlite3_bind_text(st, 2, o->channel_id, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 2);
	if (o->payment_id)
		sqlite3_bind_int64(st, 3, o->payment_id);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_int64(st, 4, o->refunded);
	sqlite3_bind_text(st, 5, to, -1, SQLITE_TRANSIENT);
	if (*o->last_error)
		sqlite3_bind_text(st, 6, o->last_error, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 6);
	sqlite3_bind_int64(st, 7, clock_now());
	sqlite3_bind_text(st, 8, o->status, -1, SQLITE_TRANSIENT);
	db_set_reason(db, why);
	rc = db_run_cached(db, st, _("cannot record the card payment order"));
	db_set_reason(db, NULL);
	if (!rc && sqlite3_changes(db_sqlite(db)) != 1)
		rc = err_set(FD_ECONFLICT, _("card payment order %s changed meanwhile"),
		             o->order_no);
	return rc;
}

int chan_order_move(struct db *db, struct pay_order *o, const char *to, const char *why)
{
	int rc;

	if (!chan_order_can_move(o->status, to))
		return err_set(FD_ECONFLICT, _("card payment order %s cannot go from %s to %s"),
		               o->order_no, o->status, to);
	if ((rc = write_row(db, o, to, why)) != 0)
		return rc;
	snprintf(o->status, sizeof o->status, "%s", to);
	return 0;
}

int chan_order_save(struct db *db, const struct pay_order *o, const char *why)
{
	return write_row(db, o, o->status, why);
}

int chan_order_note_query(struct db *db, int64_t id, int asked, int64_t next)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(db,
	                       "UPDATE pay_order SET query_count = query_count + ?2,"
	                       " next_query_at = ?3 WHERE id = ?1",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, asked ? 1 : 0);
	sqlite3_bind_int64(st, 3, next);
	return db_run_cached(db, st, _("cannot record the order's query"));
}

int chan_order_refund_failed(struct db *db, const struct pay_order *o, const char *refund_id,
                             int64_t amount, int failed, const char *reason, int *fresh)
{
	sqlite3_stmt *st;
	int rc;

	*fresh = 0;
	rc = db_prepare_cached(db,
	                       "INSERT OR IGNORE INTO pay_order_refund_failed (order_id,"
	                       " channel_refund_id, amount, status, asked_by_us, reason,"
	                       " operator_id, created_at) VALUES (?1, ?2, ?3, ?4, EXISTS (SELECT 1"
	                       " FROM inbound_callback WHERE source_system = ?5"
	                       " AND external_id = 'answer:' || ?2), ?6, fd_operator(), ?7)",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, o->id);
	sqlite3_bind_text(st, 2, refund_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, amount);
	sqlite3_bind_text(st, 4, failed ? "failed" : "canceled", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, o->provider, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, reason, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 7, clock_now());
	if ((rc = db_run_cached(db, st, _("cannot record the failed refund"))) != 0)
		return rc;
	*fresh = sqlite3_changes(db_sqlite(db)) == 1;
	return 0;
}

/* ---------------------------------------------------------------- the payment page */

int chan_order_page_ok(const char *url)
{
	size_t i, n = url ? strlen(url) : 0;

	if (n > CHAN_ORDER_PAGE_MAX)
		return err_set(FD_EINVAL, _("the payment page address is longer than %d bytes"),
		               CHAN_ORDER_PAGE_MAX);
	if (!((n > 8 && !strncmp(url, "https://", 8)) || (n > 9 && !strncmp(url, "weixin://", 9))))
		return err_set(
		    FD_EINVAL,
		    _("the payment page address is not an https:// or weixin:// address"));
	for (i = 0; i < n; i++)
		if ((unsigned char)url[i] <= ' ' || (unsigned char)url[i] >= 0x7f)
			return err_set(FD_EINVAL, _("the payment page address holds a space, a "
			                            "control character or a non-ASCII byte"));
	return 0;
}

int chan_order_page(struct db *db, int64_t id, char *buf, size_t n)
{
	sqlite3_stmt *st;
	int rc, step;

	if (n)
		buf[0] = '\0';
	if ((rc = db_prepare_cached(
	         db, "SELECT coalesce(page_url, '') FROM pay_order WHERE id = ?1", &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		dbrow_copy(st, 0, buf, n);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, _("there is no card payment order %lld"), (long long)id);
	else
		rc = db_fail(db, _("cannot read the card payment order"));
	db_release(db, st);
	return rc;
}

int chan_order_set_page(struct db *db, int64_t id, const char *url)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = chan_order_page_ok(url)) != 0)
		return rc;
	rc = db_prepare_cached(db,
	                       "UPDATE pay_order SET page_url = ?2 WHERE id = ?1"
	                       " AND (page_url IS NULL OR page_url = ?2)",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, url, -1, SQLITE_TRANSIENT);
	if ((rc = db_run_cached(db, st, _("cannot record the payment page"))) != 0)
		return rc;
	if (sqlite3_changes(db_sqlite(db)) != 1)
		return err_set(FD_ECONFLICT,
		               _("card payment order %lld already has another payment page"),
		               (long long)id);
	return 0;
}

/* ---------------------------------------------------------------- retention */

int chan_order_retention_blocker(struct db *db, int64_t customer_id, char *why, size_t n)
{
	char no[80];
	int rc;

	rc = retention_first(
	    db,
	    "SELECT order_no || ' (' || status || ')' FROM pay_order"
	    " WHERE customer_id = ?1 AND status IN ('created', 'paying', 'refunding')"
	    " ORDER BY id LIMIT 1",
	    customer_id, no, sizeof no);
	if (rc == 1) {
		snprintf(why, n, _("channel order %s is still open"), no);
		return 1;
	}
	if (rc < 0)
		return rc;
	rc = retention_first(
	    db,
	    "SELECT e.id || ' (' || e.status || ')' FROM pay_order o"
	    " JOIN inbound_callback e ON e.object_id IN (o.channel_order_id, o.order_no)"
	    " WHERE o.customer_id = ?1"
	    " AND e.status IN ('received', 'parked', 'failed', 'dead')"
	    " ORDER BY e.id LIMIT 1",
	    customer_id, no, sizeof no);
	if (rc == 1)
		snprintf(why, n, _("inbound channel event %s of the customer is not processed yet"),
		         no);
	return rc;
}

int chan_order_retention_purge(struct db *db, struct retention_purge_ctx *c)
{
	static const struct retention_stmt v[] = {
	    {"UPDATE pay_order SET last_error = NULL WHERE customer_id = ?1 AND last_error IS NOT "
	     "NULL",
	     N_("cannot clear the channel orders")},
	    {"UPDATE pay_order_his SET last_error = NULL WHERE customer_id = ?1"
	     " AND last_error IS NOT NULL",
	     N_("cannot clear the channel orders' history")},
	    {"UPDATE status_flow SET reason = NULL WHERE entity = 'pay_order' AND reason IS NOT "
	     "NULL"
	     " AND entity_id IN (SELECT id FROM pay_order WHERE customer_id = ?1)",
	     N_("cannot clear the channel orders' status reasons")},
	    /* the channel's own line of a reconciliation difference */
	    {"UPDATE reconciliation_diff SET line_data = NULL, detail = NULL"
	     " WHERE payment_id IN (SELECT id FROM payment WHERE customer_id = ?1)"
	     " AND (line_data IS NOT NULL OR detail IS NOT NULL)",
	     N_("cannot clear the reconciliation lines")},
	};
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare(
	    db, "SELECT order_no, channel_order_id FROM pay_order WHERE customer_id = ?1", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, c->customer_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			c->needle(c, (const char *)sqlite3_column_text(st, 0));
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			c->needle(c, (const char *)sqlite3_column_text(st, 1));
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list the customer's channel orders"));
	sqlite3_finalize(st);
	return rc ? rc : retention_exec_all(db, v, sizeof v / sizeof v[0], c->customer_id);
}
