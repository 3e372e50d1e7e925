/*
 * outbox.c - outbox rows written with desk actions, and their delivery (see
 * outbox.h).
 *
 * Invariants: a row's payload and idempotency key never change (also a
 * schema trigger); a row is marked "sending" in a committed transaction
 * before its request leaves, and its answer is recorded in another, both
 * fenced by the channel lease, with no transaction open while a request is
 * in flight; a row left "sending" is resent with the same key before any
 * later row of its order; success is recorded only for an answer that
 * matches the row.
 *
 * Permissions: outbox_charge asks payment.take, outbox_refund refund up to
 * its amount, outbox_retry operations; enqueueing, claiming, delivering and
 * recording answers ask nothing (the pipeline carries out what was asked).
 */
#include <config.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "chan-order.h"
#include "chan-poll.h"
#include "clock.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "idem.h"
#include "inbox.h"
#include "invoice.h"
#include "outbox.h"
#include "pipe-provider.h"
#include "retention-mod.h"
#include "settings.h"
#include "states.h"
#include "stopflag.h"
#include "xalloc.h"

/* The stored word of each state, once. */
static const char *const state_words[OUTBOX_STATES] = {
    [OUTBOX_PENDING] = "pending", [OUTBOX_SENDING] = "sending", [OUTBOX_SUCCEEDED] = "succeeded",
    [OUTBOX_FAILED] = "failed",   [OUTBOX_DEAD] = "dead",
};

/* The moves of a command: the schema's status_transition rows for
 * outbox_event (states_agree checks the two are the same). */
static const struct state_move moves[] = {
    {OUTBOX_PENDING, OUTBOX_SENDING}, {OUTBOX_SENDING, OUTBOX_SUCCEEDED},
    {OUTBOX_SENDING, OUTBOX_FAILED},  {OUTBOX_SENDING, OUTBOX_DEAD},
    {OUTBOX_FAILED, OUTBOX_SENDING},  {OUTBOX_FAILED, OUTBOX_DEAD},
    {OUTBOX_DEAD, OUTBOX_PENDING},    {-1, -1},
};

const struct states outbox_states = {"outbox_event", state_words, OUTBOX_STATES, moves};

enum outbox_state outbox_state_of(const char *word)
{
	return (enum outbox_state)states_of(&outbox_states, word);
}

const char *outbox_state_word(enum outbox_state s)
{
	return states_word(&outbox_states, (int)s);
}

/* ---------------------------------------------------------------- rows */

int outbox_enqueue(struct db *db, const struct outbox_new *c, int64_t *id)
{
	sqlite3_stmt *st;
	int64_t now = clock_real();
	int rc, stored;

	if (id)
		*id = 0;
	rc = db_prepare_cached(db,
	                       "INSERT INTO outbox_event (event_type, business_key, provider_code,"
	                       " idempotency_key, payload, status, next_retry_at, created_at,"
	                       " updated_at, integration_type)"
	                       " VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?7, ?7, ?8)"
	                       " ON CONFLICT (idempotency_key) DO NOTHING",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, c->event_type, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, c->business_key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, c->provider, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, c->idem_key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, c->payload, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, now);
	sqlite3_bind_int64(st, 7, c->at ? c->at : now);
	sqlite3_bind_text(st, 8, c->type, -1, SQLITE_TRANSIENT);
	if ((rc = db_run_moved(db, st, _("cannot write the outbox command"), &stored)) != 0)
		return rc;
	if (!stored)
		return c->once
		           ? 0
		           : err_set(FD_ECONFLICT, _("an outbox command with the key %s exists"),
		                     c->idem_key);
	if (id)
		*id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

int outbox_due(struct db *db, const char *type, const char *provider,
               int (*cb)(const struct outbox_due_cmd *c, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare_cached(
	    db,
	    "SELECT id, event_type, status, idempotency_key, payload, retry_count"
	    " FROM outbox_event INDEXED BY outbox_event_to_send"
	    " WHERE (status = 'pending' OR status = 'sending' OR status = 'failed')"
	    " AND integration_type = ?1"
	    " AND provider_code = ?2 AND (status IN ('pending', 'sending') OR"
	    " (status = 'failed' AND next_retry_at <= ?3))"
	    " ORDER BY id",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, type, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, provider, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, clock_real());
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct outbox_due_cmd c;

		c.id = sqlite3_column_int64(st, 0);
		c.event_type = (const char *)sqlite3_column_text(st, 1);
		c.status = (const char *)sqlite3_column_text(st, 2);
		c.idem_key = (const char *)sqlite3_column_text(st, 3);
		c.payload = (const char *)sqlite3_column_text(st, 4);
		c.retries = sqlite3_column_int64(st, 5);
		if ((rc = cb(&c, arg)) != 0)
			break;
	}
	db_release(db, st);
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the commands due"));
	return rc;
}

int outbox_claim(struct db *db, int64_t id, int count, int *moved)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(db,
	                       "UPDATE outbox_event SET status = 'sending',"
	                       " retry_count = retry_count + ?3,"
	                       " last_error = CASE WHEN ?3 THEN last_error ELSE NULL END,"
	                       " sent_at = CASE WHEN ?3 THEN ?2 ELSE sent_at END,"
	                       " next_retry_at = CASE WHEN ?3 THEN ?2 ELSE next_retry_at END,"
	                       " updated_at = ?2 WHERE id = ?1"
	                       " AND status IN ('pending', 'sending', 'failed')",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, clock_real());
	sqlite3_bind_int(st, 3, count != 0);
	return db_run_moved(db, st, _("cannot mark the outbox command as sending"), moved);
}

int outbox_record(struct db *db, int64_t id, enum outbox_state to, const char *error, int64_t wait,
                  int counted, int *moved)
{
	sqlite3_stmt *st;
	int64_t now = clock_real();
	int rc;

	rc = db_prepare_cached(
	    db,
	    "UPDATE outbox_event SET status = ?2, last_error = ?3,"
	    " retry_count = retry_count + (NOT ?6 AND ?2 IN ('failed', 'dead')),"
	    " next_retry_at = CASE WHEN ?2 IN ('failed', 'sending') THEN ?4"
	    " WHEN ?6 THEN NULL ELSE next_retry_at END,"
	    " sent_at = CASE WHEN NOT ?6 AND ?2 = 'succeeded' THEN ?5 ELSE sent_at END,"
	    " updated_at = ?5 WHERE id = ?1 AND status = 'sending'",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, outbox_state_word(to), -1, SQLITE_STATIC);
	if (error)
		sqlite3_bind_text(st, 3, error, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_int64(st, 4, now + wait);
	sqlite3_bind_int64(st, 5, now);
	sqlite3_bind_int(st, 6, counted != 0);
	return db_run_moved(db, st, _("cannot record the outbox answer"), moved);
}

static int insert_row(struct db *db, const char *type, const char *bkey, const char *provider,
                      const char *payload, int64_t *id)
{
	/* the commands written here are a payment provider's (the registry's
	 * payment providers route them: pipe_provider_route, _get) */
	struct outbox_new c = {CHAN_TYPE_PAYMENT, type, bkey, provider, NULL, payload, 0, 0};
	char rnd[17], key[120];
	int rc;

	if ((rc = chan_random_hex(rnd)) != 0)
		return rc;
	snprintf(key, sizeof key, "fd_%s_%s", bkey, rnd);
	c.idem_key = key;
	return outbox_enqueue(db, &c, id);
}

/* ---------------------------------------------------------------- charge */

struct charge_ctx {
	const char *provider; /* named by the caller; NULL: routed per order */
	char routed[41];      /* the provider that serves the order */
	const struct invoice *inv;
	int64_t amount;
	char order_no[65];
	int64_t order_id;
	int64_t outbox_id;
};

static int charge_tx(struct db *db, void *arg)
{
	struct charge_ctx *c = arg;
	struct chan_order_new in = {c->order_no, c->routed,        c->inv->customer_id,
	                            c->inv->id,  c->inv->currency, c->amount};
	int64_t left = 0;
	char *payload, subject[64];
	cJSON *p;
	int rc;

	snprintf(subject, sizeof subject, "charge invoice %lld by card", (long long)c->inv->id);
	if ((rc = control_require(db, PERM_PAYMENT_TAKE, 0, subject)) != 0)
		return rc;
	/* the invoice is read again inside the transaction: no one paid it since */
	if ((rc = chan_order_chargeable(db, c->inv->id, &left)) != 0)
		return rc;
	if (c->amount > left)
		return err_set(
		    FD_EINVAL,
		    _("the invoice owes %lld (minor units) after the card orders already "
		      "open for it; ask for at most that"),
		    (long long)left);
	if ((rc = chan_order_number(db, c->order_no)) != 0)
		return rc;
	if (c->provider)
		snprintf(c->routed, sizeof c->routed, "%s", c->provider);
	else if ((rc = pipe_provider_route(db, c->order_no, c->routed)) != 0)
		return rc;
	if ((rc = chan_order_create(db, &in, &c->order_id)) != 0)
		return rc;
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "order_no", c->order_no);
	chan_json_add_int(p, "invoice_id", c->inv->id);
	cJSON_AddStringToObject(p, "invoice_number", c->inv->number);
	chan_json_add_int(p, "amount", c->amount);
	cJSON_AddStringToObject(p, "currency", c->inv->currency);
	payload = cJSON_PrintUnformatted(p);
	cJSON_Delete(p);
	rc = insert_row(db, "payment.create", c->order_no, c->routed, payload, &c->outbox_id);
	free(payload);
	return rc;
}

/* The response an idempotency key keeps: the order (id) and its command. */
static int charge_idem_tx(struct db *db, void *arg, struct idem_result *res)
{
	struct charge_ctx *c = arg;
	int rc = charge_tx(db, c);

	if (!rc) {
		res->id = c->order_id;
		idem_result_add(res, c->outbox_id);
	}
	return rc;
}

/* A replayed charge: the order number of the order the first call wrote. */
static int charge_replayed(struct db *db, const struct idem_result *res, struct charge_ctx *c)
{
	struct pay_order po;
	int rc = chan_order_get_id(db, res->id, &po);

	if (rc == FD_ENOTFOUND)
		rc = err_set(FD_ENOTFOUND, _("the card payment order of that request is gone"));
	if (!rc)
		snprintf(c->order_no, sizeof c->order_no, "%s", po.order_no);
	c->outbox_id = res->n ? res->ids[0] : 0;
	return rc;
}

int outbox_charge(struct db *db, const char *provider, int64_t invoice_id, int64_t amount,
                  const char *idem_key, char order_no[65], int64_t *outbox_id)
{
	struct pipe_provider p;
	struct invoice inv;
	struct charge_ctx c = {0};
	struct idem_result res = {0};
	char canon[200];
	int rc;

	if (amount <= 0 || amount > 100000000000000LL)
		return err_set(FD_EINVAL, _("the amount must be positive"));
	if ((rc = pipe_provider_get(db, provider, &p)) != 0)
		return rc;
	if (!p.enabled) {
		pipe_provider_free(&p);
		return err_set(FD_EINVAL, _("the payment provider '%s' is disabled"), p.code);
	}
	if ((rc = invoice_get(db, invoice_id, &inv)) != 0) {
		pipe_provider_free(&p);
		return rc;
	}
	if ((rc = chan_order_may_charge(&inv)) != 0)
		goto out;
	if (amount > inv.balance) {
		rc = err_set(FD_EINVAL,
		             _("invoice %s owes %lld (minor units); ask for at most that"),
		             inv.number, (long long)inv.balance);
		goto out;
	}
	/* named: that one; else each order goes where the registry's rollout
	 * says (the idempotency key still names the provider that serves) */
	c.provider = provider ? p.code : NULL;
	c.inv = &inv;
	c.amount = amount;
	snprintf(canon, sizeof canon, "provider=%s\ninvoice=%lld\namount=%lld\n", p.code,
	         (long long)invoice_id, (long long)amount);
	rc = idem_run(db, idem_key, "channel charge", canon, charge_idem_tx, &c, &res);
	if (!rc && res.replayed)
		rc = charge_replayed(db, &res, &c);
	idem_result_free(&res);
	if (!rc) {
		snprintf(order_no, 65, "%s", c.order_no);
		if (outbox_id)
			*outbox_id = c.outbox_id;
	}
out:
	invoice_free(&inv);
	pipe_provider_free(&p);
	return rc;
}

/* ---------------------------------------------------------------- refund */

struct refund_ctx {
	const char *order_no;
	int64_t amount;
	int64_t outbox_id;
};

/* How many refund commands order order_no has had (given up or not). */
static int refund_commands(struct db *db, const char *order_no, int64_t *n)
{
	sqlite3_stmt *st;
	int rc;

	*n = 0;
	rc = db_prepare(db,
	                "SELECT count(*) FROM outbox_event WHERE event_type = 'refund.create'"
	                " AND json_extract(payload, '$.order_no') = ?1",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, order_no, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, _("cannot read the outbox"));
	sqlite3_finalize(st);
	return rc;
}

static int refund_tx(struct db *db, void *arg)
{
	struct refund_ctx *r = arg;
	struct pay_order po;
	char bkey[120], *payload;
	int64_t left, n;
	int rc;
	cJSON *p;

	if ((rc = chan_order_get(db, r->order_no, &po)) != 0)
		return rc;
	if ((rc = refund_commands(db, r->order_no, &n)) != 0)
		return rc;
	if ((rc = chan_order_may_refund(&po)) != 0)
		return rc;
	if ((rc = chan_order_refundable(db, r->order_no, &left, NULL)) != 0)
		return rc;
	if (r->amount == 0)
		r->amount = left;
	if (r->amount <= 0 || r->amount > left)
		return err_set(FD_EINVAL,
		               _("order %s has %lld (minor units) left to refund after the refunds "
		                 "already asked for"),
		               r->order_no, (long long)left);
	snprintf(bkey, sizeof bkey, "refund of card order %.64s", r->order_no);
	if ((rc = control_require(db, PERM_REFUND, r->amount, bkey)) != 0)
		return rc;
	snprintf(bkey, sizeof bkey, "%s-r%lld", r->order_no, (long long)n + 1);
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "order_no", r->order_no);
	chan_json_add_int(p, "amount", r->amount);
	payload = cJSON_PrintUnformatted(p);
	cJSON_Delete(p);
	rc = insert_row(db, "refund.create", bkey, po.provider, payload, &r->outbox_id);
	free(payload);
	return rc;
}

static int refund_idem_tx(struct db *db, void *arg, struct idem_result *res)
{
	struct refund_ctx *r = arg;
	int rc = refund_tx(db, r);

	if (!rc)
		res->id = r->outbox_id;
	return rc;
}

int outbox_refund(struct db *db, const char *order_no, int64_t amount, const char *idem_key,
                  int64_t *outbox_id)
{
	struct refund_ctx r = {order_no, amount, 0};
	struct idem_result res = {0};
	char canon[200];
	int rc;

	if (!order_no || !*order_no || strlen(order_no) > 64)
		return err_set(FD_EINVAL, _("name the card payment order (PO-...)"));
	if (amount < 0)
		return err_set(FD_EINVAL, _("the amount must be positive"));
	snprintf(canon, sizeof canon, "order=%s\namount=%lld\n", order_no, (long long)amount);
	rc = idem_run(db, idem_key, "channel refund", canon, refund_idem_tx, &r, &res);
	if (!rc && outbox_id)
		*outbox_id = res.id;
	idem_result_free(&res);
	return rc;
}

/* ---------------------------------------------------------------- delivery */

struct row {
	int64_t id;
	char type[61];
	char key[256];
	char order_no[65];
	int64_t amount;
	int64_t invoice_id;
	char invoice_number[32];
	char currency[4];
	int64_t retries;
	char channel_id[256]; /* the order's channel id ("" when none) */
};

/* The next due row of provider: the oldest unfinished row of its order. */
/* The next row of provider due at the real clock, after id `after` (each
 * row is sent at most once per outbox_deliver). Both walks are of the
 * partial index of the commands still to send: by id (the rowid) they
 * read every command sent since, on every round of serve. */
static int next_row(struct db *db, const char *provider, int64_t after, struct row *r, int *found)
{
	sqlite3_stmt *st;
	const unsigned char *s;
	int rc, step;

	*found = 0;
	rc = db_prepare(
	    db,
	    "SELECT o.id, o.event_type, o.idempotency_key, json_extract(o.payload, '$.order_no'),"
	    " json_extract(o.payload, '$.amount'), coalesce(json_extract(o.payload, "
	    "'$.invoice_id'), 0),"
	    " coalesce(json_extract(o.payload, '$.invoice_number'), ''),"
	    " coalesce(json_extract(o.payload, '$.currency'), ''), o.retry_count"
	    " FROM outbox_event o INDEXED BY outbox_event_to_send"
	    " WHERE (o.status = 'pending' OR o.status = 'sending' OR o.status = 'failed')"
	    " AND o.provider_code = ?1 AND o.integration_type = '" CHAN_TYPE_PAYMENT "'"
	    " AND coalesce(o.next_retry_at, 0) <= ?2 AND o.id > ?3"
	    " AND NOT EXISTS (SELECT 1 FROM outbox_event e INDEXED BY outbox_event_to_send"
	    "   WHERE (e.status = 'pending' OR e.status = 'sending' OR e.status = 'failed')"
	    "   AND e.id < o.id"
	    "   AND json_extract(e.payload, '$.order_no') = json_extract(o.payload, '$.order_no'))"
	    " ORDER BY o.id LIMIT 1",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, provider, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, clock_real());
	sqlite3_bind_int64(st, 3, after);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		memset(r, 0, sizeof *r);
		r->id = sqlite3_column_int64(st, 0);
		snprintf(r->type, sizeof r->type, "%s", (const char *)sqlite3_column_text(st, 1));
		snprintf(r->key, sizeof r->key, "%s", (const char *)sqlite3_column_text(st, 2));
		s = sqlite3_column_text(st, 3);
		snprintf(r->order_no, sizeof r->order_no, "%s", s ? (const char *)s : "");
		r->amount = sqlite3_column_int64(st, 4);
		r->invoice_id = sqlite3_column_int64(st, 5);
		snprintf(r->invoice_number, sizeof r->invoice_number, "%s",
		         (const char *)sqlite3_column_text(st, 6));
		snprintf(r->currency, sizeof r->currency, "%s",
		         (const char *)sqlite3_column_text(st, 7));
		r->retries = sqlite3_column_int64(st, 8);
		*found = 1;
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the outbox"));
	}
	sqlite3_finalize(st);
	if (!rc && *found && *r->order_no) {
		struct pay_order po;

		/* the order's channel id, "" while it has none (or no order) */
		rc = chan_order_get(db, r->order_no, &po);
		if (rc == 0)
			snprintf(r->channel_id, sizeof r->channel_id, "%s", po.channel_id);
		else if (rc == FD_ENOTFOUND)
			rc = 0;
	}
	return rc;
}

struct mark_ctx {
	const struct control_hold *lease;
	const struct row *r;
	int phase;                        /* 0: about to send; 1: record the answer */
	int code;                         /* the chan_code of the answer */
	enum outbox_state state;          /* succeeded, failed, sending, dead */
	const char *error;                /* last_error, NULL: none */
	int64_t wait;                     /* seconds to next_retry_at */
	int64_t at;                       /* the real time the answer was recorded */
	const char *channel_id;           /* payment.create ok: the intent id */
	const char *page_url;             /* payment.create ok: the payment page ("": none) */
	int refund_ok;                    /* refund.create ok: the order becomes refunding */
	const struct chan_refund *refund; /* refund.create ok: the channel's refund */
	const char *provider;             /* the provider code */
	int order_failed;                 /* payment.create refused: the order fails */
};

static int keep_refund(struct db *db, const char *provider, const struct row *r,
                       const struct chan_refund *ref)
{
	char ext[300], note[80], type[80];

	snprintf(ext, sizeof ext, "answer:%s", ref->id);
	snprintf(note, sizeof note, "the answer to outbox command %lld", (long long)r->id);
	snprintf(type, sizeof type, "%s%s", CHAN_FOUND_REFUND, chan_refund_state_name(ref->state));
	return inbox_insert_found(db, provider, ext, type, note, chan_found_refund(ref));
}

/* Phase 0: the row becomes "sending", one more attempt, before its
 * request leaves. */
static int mark_sending(struct db *db, const struct mark_ctx *m)
{
	int moved, rc;

	if ((rc = outbox_claim(db, m->r->id, 1, &moved)) != 0)
		return rc;
	if (!moved)
		return err_set(FD_ECONFLICT, _("the outbox command changed meanwhile"));
	return 0;
}

/* payment.create ok: order po takes the intent id and the payment page; a
 * created order becomes paying, another is saved. */
static int order_paying(struct db *db, const struct mark_ctx *m, struct pay_order *po)
{
	int rc;

	snprintf(po->channel_id, sizeof po->channel_id, "%s", m->channel_id);
	/* the payment page the customer scans at the desk, kept once; an
	 * address we refuse to show is not kept, and the order says why */
	if (m->page_url && *m->page_url) {
		rc = chan_order_set_page(db, po->id, m->page_url);
		if (rc == FD_EINVAL || rc == FD_ECONFLICT)
			snprintf(po->last_error, sizeof po->last_error,
			         _("the channel's payment page was not kept: %s"), err_msg());
		else if (rc)
			return rc;
	}
	return pay_order_state_of(po->status) == PAY_ORDER_CREATED
	           ? chan_order_move(db, po, pay_order_state_word(PAY_ORDER_PAYING), NULL)
	           : chan_order_save(db, po, NULL);
}

/* What the answer does to the row's order: paying (payment.create ok),
 * refunding (refund.create ok, a paid order) or failed (payment.create
 * refused, an open order); else the order is saved as it is. */
static int mark_order(struct db *db, const struct mark_ctx *m)
{
	struct pay_order po;
	int rc;

	if ((rc = chan_order_get(db, m->r->order_no, &po)) != 0)
		return rc;
	if (m->channel_id)
		return order_paying(db, m, &po);
	if (m->refund_ok)
		return pay_order_state_of(po.status) == PAY_ORDER_PAID
		           ? chan_order_move(db, &po, pay_order_state_word(PAY_ORDER_REFUNDING),
		                             NULL)
		           : chan_order_save(db, &po, NULL);
	snprintf(po.last_error, sizeof po.last_error, "%s", m->error ? m->error : "");
	return chan_order_is_open(po.status) ? chan_order_move(db, &po, "failed", NULL)
	                                     : chan_order_save(db, &po, NULL);
}

static int mark_tx(struct db *db, void *arg)
{
	struct mark_ctx *m = arg;
	int64_t now = clock_real();
	int moved, rc;

	if (m->lease && (rc = control_fence(db, m->lease)) != 0)
		return rc;
	if (m->phase == 0)
		return mark_sending(db, m);
	m->at = now;
	if ((rc = outbox_record(db, m->r->id, m->state, m->error, m->wait, 1, &moved)) != 0)
		return rc;
	if (!moved)
		return err_set(FD_ECONFLICT, _("the outbox command changed meanwhile"));
	if (!m->channel_id && !m->refund_ok && !m->order_failed)
		return 0;
	/* the answer names the refund: keep it as an inbox event, so that the
	 * refund is asked about and posted even if every event the channel
	 * sends about it is lost */
	if (m->refund_ok && m->refund && (rc = keep_refund(db, m->provider, m->r, m->refund)) != 0)
		return rc;
	return mark_order(db, m);
}

/* One row's request and what came back, as deliver_one works on them. */
struct answer {
	struct chan_status cs;  /* the call's status (zeroed before it) */
	struct chan_order ord;  /* payment.create: the channel's payment */
	struct chan_refund ref; /* refund.create: the channel's refund */
	char why[600];          /* the error recorded with the answer */
	int is_pay;             /* the row is a payment.create */
};

/* Send row r through ops as its type says; the chan_code of the answer. A
 * row that cannot be sent (unknown type, a refund with no channel id) is
 * refused without a call. */
static int send_row(const struct chan_ops *ops, struct chan_ctx *ctx, const struct row *r,
                    struct answer *a)
{
	memset(&a->cs, 0, sizeof a->cs);
	if (a->is_pay) {
		struct chan_create in = {r->order_no, r->invoice_id, r->amount,
		                         r->currency, NULL,          r->key};
		char desc[64];

		snprintf(desc, sizeof desc, "Invoice %s", r->invoice_number);
		in.description = desc;
		return ops->create_payment(ctx, &in, &a->ord, &a->cs);
	}
	if (!strcmp(r->type, "refund.create") && *r->channel_id)
		return ops->refund(ctx, r->channel_id, r->amount, r->key, &a->ref, &a->cs);
	snprintf(a->cs.reason, sizeof a->cs.reason, "%s",
	         _("the command cannot be sent (unknown type or no channel id)"));
	return CHAN_REFUSED;
}

/* An ok answer about another payment or refund than row r's is not
 * recorded: CHAN_BADDATA, and why says so. Else code as it was. */
static int answer_checked(const struct row *r, struct answer *a, int code)
{
	if (code == CHAN_OK && a->is_pay &&
	    (a->ord.amount != r->amount || strcasecmp(a->ord.currency, r->currency) ||
	     strcmp(a->ord.order_no, r->order_no))) {
		snprintf(a->why, sizeof a->why,
		         _("the channel answered with another payment (%lld %s for order %s): not "
		           "recorded, a person must look"),
		         (long long)a->ord.amount, a->ord.currency, a->ord.order_no);
		return CHAN_BADDATA;
	}
	if (code == CHAN_OK && !a->is_pay &&
	    (a->ref.amount != r->amount || strcmp(a->ref.order_id, r->channel_id))) {
		snprintf(a->why, sizeof a->why,
		         _("the channel answered with another refund (%lld for %s): not recorded, "
		           "a person must look"),
		         (long long)a->ref.amount, a->ref.order_id);
		return CHAN_BADDATA;
	}
	return code;
}

/* A failure that may pass (nothing reached the channel, a 5xx, no
 * answer): tried again on the backoff until the horizon (since: when the
 * row became pending). Unknown stays "sending": the next send, with the
 * same key, is the query that resolves it. */
static void plan_retry(const struct row *r, struct answer *a, int64_t since, struct mark_ctx *m)
{
	char tmp[600];
	int give_up = pipe_rule_retry_plan(since, clock_now(), r->retries + 1, a->cs.retry_after,
	                                   m->code, &m->wait);

	if (m->code == CHAN_UNKNOWN) {
		snprintf(tmp, sizeof tmp, _("outcome unknown, to be asked again: %s"), a->why);
		snprintf(a->why, sizeof a->why, "%s", tmp);
	}
	if (give_up) {
		m->state = OUTBOX_DEAD;
		snprintf(tmp, sizeof tmp,
		         _("given up after %1$lld attempt(s) over the give-up horizon "
		           "(pipeline_give_up_seconds): %2$s"),
		         (long long)r->retries + 1, a->why);
		snprintf(a->why, sizeof a->why, "%s", tmp);
	} else {
		m->state = m->code == CHAN_UNKNOWN ? OUTBOX_SENDING : OUTBOX_FAILED;
	}
}

/* What answer a (of code m->code) makes of row r: m's state, and what its
 * order takes. */
static void plan_answer(const struct row *r, struct answer *a, int64_t since, struct mark_ctx *m)
{
	switch (m->code) {
	case CHAN_OK:
		m->state = OUTBOX_SUCCEEDED;
		m->error = NULL;
		if (a->is_pay) {
			m->channel_id = a->ord.id;
			m->page_url = a->ord.page_url;
		} else {
			m->refund_ok = 1;
			m->refund = &a->ref;
		}
		break;
	case CHAN_RETRY:
	case CHAN_UNKNOWN:
		plan_retry(r, a, since, m);
		break;
	default:
		m->state = OUTBOX_DEAD;
		m->order_failed = a->is_pay && m->code != CHAN_BADDATA;
		break;
	}
}

/* Count the row recorded as m in res; one that waits moves res's next try
 * earlier when it is due before it. */
static void count_row(const struct mark_ctx *m, struct outbox_result *res)
{
	int64_t at;

	res->attempts++;
	if (m->state == OUTBOX_SUCCEEDED) {
		res->succeeded++;
		return;
	}
	if (m->state == OUTBOX_DEAD) {
		res->dead++;
		return;
	}
	at = m->at + m->wait;
	if (m->state == OUTBOX_SENDING)
		res->unknown++;
	else
		res->failed++;
	if (!res->next_try || at < res->next_try)
		res->next_try = at;
}

/* Send one row and record what came back; *res counts it. */
static int deliver_one(struct db *db, const struct chan_ops *ops, struct chan_ctx *ctx,
                       const char *provider, const struct control_hold *lease, const struct row *r,
                       struct outbox_result *res)
{
	struct mark_ctx m = {0};
	struct answer a;
	int64_t since = 0;
	int rc;

	a.is_pay = !strcmp(r->type, "payment.create");
	m.lease = lease;
	m.r = r;
	m.provider = provider;
	if ((rc = pipe_rule_since(db, "outbox_event", r->id, "pending", &since)) != 0)
		return rc;
	if ((rc = db_write(db, mark_tx, &m)) != 0)
		return rc;
	m.code = send_row(ops, ctx, r, &a);
	snprintf(a.why, sizeof a.why, "%s", a.cs.reason);
	m.phase = 1;
	m.error = a.why;
	m.code = answer_checked(r, &a, m.code);
	plan_answer(r, &a, since, &m);
	if ((rc = db_write(db, mark_tx, &m)) != 0)
		return rc;
	count_row(&m, res);
	return 0;
}

int outbox_deliver(struct db *db, const struct chan_ops *ops, struct chan_ctx *ctx,
                   const char *provider, const struct control_hold *lease,
                   volatile sig_atomic_t *stop, struct outbox_result *res)
{
	struct row r;
	int64_t after = 0;
	int rc, found;

	memset(res, 0, sizeof *res);
	while (!stop_requested(stop)) {
		if ((rc = next_row(db, provider, after, &r, &found)) != 0 || !found)
			return rc;
		after = r.id;
		if ((rc = deliver_one(db, ops, ctx, provider, lease, &r, res)) != 0)
			return rc;
	}
	return 0;
}

/* ---------------------------------------------------------------- revival */

int outbox_payment_fits(struct db *db, const struct outbox_cmd *o)
{
	cJSON *p = cJSON_Parse(o->payload);
	const cJSON *on = cJSON_GetObjectItemCaseSensitive(p, "order_no");
	const cJSON *am = cJSON_GetObjectItemCaseSensitive(p, "amount");
	struct pay_order po;
	int64_t left = 0;
	int rc = 0;

	if (strcmp(o->event_type, "payment.create") && strcmp(o->event_type, "refund.create"))
		goto out; /* no other payment command waits on an order */
	if (!cJSON_IsString(on) || !cJSON_IsNumber(am)) {
		rc = err_set(FD_ECONFLICT, _("outbox command %lld names no order"),
		             (long long)o->id);
		goto out;
	}
	if ((rc = chan_order_get(db, on->valuestring, &po)) != 0)
		goto out;
	if (!strcmp(o->event_type, "payment.create")) {
		if (pay_order_state_of(po.status) != PAY_ORDER_CREATED)
			rc = err_set(
			    FD_ECONFLICT,
			    _("card payment order %s is %s: its payment command is not sent "
			      "again"),
			    po.order_no, po.status);
		goto out;
	}
	if ((rc = chan_order_may_refund(&po)) != 0)
		goto out;
	if (outbox_state_of(o->status) == OUTBOX_DEAD) {
		if ((rc = chan_order_refundable(db, po.order_no, &left, NULL)) != 0)
			goto out;
		if ((int64_t)am->valuedouble > left)
			rc = err_set(
			    FD_ECONFLICT,
			    _("order %s has %lld (minor units) left to refund, less than this "
			      "refund of %lld: it is not sent again"),
			    po.order_no, (long long)left, (long long)am->valuedouble);
	}
out:
	cJSON_Delete(p);
	return rc;
}

struct retry_ctx {
	int64_t id;
	int (*fits)(struct db *db, const struct outbox_cmd *o);
};

static int retry_tx(struct db *db, void *arg)
{
	const struct retry_ctx *x = arg;
	struct outbox_cmd o;
	sqlite3_stmt *st;
	char subject[64];
	int rc, dead, moved;

	snprintf(subject, sizeof subject, "retry outbox command %lld", (long long)x->id);
	if ((rc = control_require(db, PERM_OPERATIONS, 0, subject)) != 0)
		return rc;
	if ((rc = outbox_cmd_get(db, x->id, &o)) != 0)
		return rc;
	dead = outbox_state_of(o.status) == OUTBOX_DEAD;
	if (!dead && outbox_state_of(o.status) != OUTBOX_FAILED) {
		rc = err_set(FD_ECONFLICT,
		             _("outbox command %lld is %s: only a dead or failed command can be "
		               "retried"),
		             (long long)o.id, o.status);
		goto out;
	}
	if (x->fits && (rc = x->fits(db, &o)) != 0)
		goto out;
	/* dead: pending again (a new horizon starts with this status flow
	 * row, pipe_rule_since); failed: due now. The key is never changed. */
	rc = db_prepare_cached(db,
	                       dead ? "UPDATE outbox_event SET status = 'pending', retry_count = 0,"
	                              " next_retry_at = ?2, updated_at = ?2 WHERE id = ?1"
	                              " AND status = 'dead'"
	                            : "UPDATE outbox_event SET next_retry_at = ?2, updated_at = ?2"
	                              " WHERE id = ?1 AND status = 'failed'",
	                       &st);
	if (rc)
		goto out;
	sqlite3_bind_int64(st, 1, o.id);
	sqlite3_bind_int64(st, 2, clock_real());
	db_set_reason(db, _("retried by a person"));
	rc = db_run_moved(db, st, _("cannot retry the outbox command"), &moved);
	db_set_reason(db, NULL);
	if (!rc && !moved)
		rc = err_set(FD_ECONFLICT, _("the outbox command changed meanwhile"));
out:
	outbox_cmd_free(&o);
	return rc;
}

int outbox_retry(struct db *db, int64_t id, int (*fits)(struct db *db, const struct outbox_cmd *o))
{
	struct retry_ctx x = {id, fits};

	return db_write(db, retry_tx, &x);
}

int outbox_count_by_status(struct db *db, const char *provider, int64_t n[4])
{
	static const enum outbox_state counted[4] = {OUTBOX_PENDING, OUTBOX_SENDING, OUTBOX_FAILED,
	                                             OUTBOX_DEAD};
	sqlite3_stmt *st;
	int rc, i;

	for (i = 0; i < 4; i++) {
		/* each status by its partial index, never the commands sent */
		rc = db_prepare(
		    db,
		    counted[i] == OUTBOX_DEAD
		        ? "SELECT count(*) FROM outbox_event INDEXED BY outbox_event_dead"
		          " WHERE status = 'dead' AND provider_code = ?1 AND status = ?2"
		        : "SELECT count(*) FROM outbox_event INDEXED BY outbox_event_to_send"
		          " WHERE (status = 'pending' OR status = 'sending'"
		          " OR status = 'failed') AND provider_code = ?1 AND status = ?2",
		    &st);
		if (rc)
			return rc;
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, outbox_state_word(counted[i]), -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_ROW) {
			rc = db_fail(db, _("cannot count the outbox commands"));
			sqlite3_finalize(st);
			return rc;
		}
		n[i] = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	return 0;
}

/* ---------------------------------------------------------------- dead-letter reads */

int outbox_dead_count(struct db *db, int64_t *n)
{
	static const char sql[] = "SELECT count(*) FROM outbox_event WHERE status = 'dead'";
	sqlite3_stmt *st;
	int rc;

	*n = 0;
	if ((rc = db_prepare_cached(db, sql, &st)))
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, _("cannot count the dead outbox commands"));
	db_release(db, st);
	return rc;
}

#define OUTBOX_COLS                                                                                \
	"id, event_type, business_key, provider_code, status, last_error, payload, retry_count, "  \
	"created_at, updated_at, coalesce(sent_at, 0), integration_type, next_retry_at"

/* Fill *o from the current row of st (OUTBOX_COLS). */
static void outbox_row(sqlite3_stmt *st, struct outbox_cmd *o)
{
	memset(o, 0, sizeof *o);
	o->id = sqlite3_column_int64(st, 0);
	o->event_type = dbrow_dup(st, 1);
	o->business_key = dbrow_dup(st, 2);
	o->provider_code = dbrow_dup(st, 3);
	o->status = dbrow_dup(st, 4);
	o->last_error = dbrow_dup(st, 5);
	o->payload = dbrow_dup(st, 6);
	o->retry_count = sqlite3_column_int64(st, 7);
	o->created_at = sqlite3_column_int64(st, 8);
	o->updated_at = sqlite3_column_int64(st, 9);
	o->sent_at = sqlite3_column_int64(st, 10);
	o->type = dbrow_dup(st, 11);
	o->next_retry_at = sqlite3_column_int64(st, 12);
}

void outbox_cmd_free(struct outbox_cmd *o)
{
	free(o->event_type);
	free(o->business_key);
	free(o->provider_code);
	free(o->status);
	free(o->last_error);
	free(o->payload);
	free(o->type);
	memset(o, 0, sizeof *o);
}

int outbox_cmd_list(struct db *db, const char *status, const char *type, const char *provider,
                    int limit, int (*cb)(const struct outbox_cmd *o, void *arg), void *arg)
{
	/* a status still open (the screen's dead letters) is read by its
	 * partial index, so that the commands sent are never walked past;
	 * any other (sent, or none) from the newest command back */
#define LIST_WHERE                                                                                 \
	" AND (?3 IS NULL OR integration_type = ?3) AND (?4 IS NULL OR provider_code = ?4)"        \
	" ORDER BY id DESC LIMIT ?2"
	static const char dead[] =
	    "SELECT " OUTBOX_COLS " FROM outbox_event INDEXED BY"
	    " outbox_event_dead WHERE status = ?1 AND status = 'dead'" LIST_WHERE;
	static const char to_send[] =
	    "SELECT " OUTBOX_COLS " FROM outbox_event INDEXED BY outbox_event_to_send"
	    " WHERE (status = 'pending' OR status = 'sending' OR status = 'failed')"
	    " AND status = ?1" LIST_WHERE;
	static const char any[] =
	    "SELECT " OUTBOX_COLS " FROM outbox_event WHERE (?1 IS NULL OR status = ?1)" LIST_WHERE;
#undef LIST_WHERE
	const char *sql = any;
	struct outbox_cmd o;
	sqlite3_stmt *st;
	int rc = 0, step;

	if (status && !strcmp(status, "dead"))
		sql = dead;
	else if (status && (!strcmp(status, "pending") || !strcmp(status, "sending") ||
	                    !strcmp(status, "failed")))
		sql = to_send;
	if ((rc = db_prepare(db, sql, &st)))
		return rc;
	if (status)
		sqlite3_bind_text(st, 1, status, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, limit > 0 ? limit : 100);
	if (type)
		sqlite3_bind_text(st, 3, type, -1, SQLITE_TRANSIENT);
	if (provider)
		sqlite3_bind_text(st, 4, provider, -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		outbox_row(st, &o);
		rc = cb(&o, arg);
		outbox_cmd_free(&o);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the outbox commands"));
	sqlite3_finalize(st);
	return rc;
}

int outbox_cmd_get(struct db *db, int64_t id, struct outbox_cmd *out)
{
	static const char sql[] = "SELECT " OUTBOX_COLS " FROM outbox_event WHERE id = ?1";
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	if ((rc = db_prepare(db, sql, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		outbox_row(st, out);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, _("there is no outbox command %lld"), (long long)id);
	else
		rc = db_fail(db, _("cannot read the outbox commands"));
	sqlite3_finalize(st);
	return rc;
}

/* ---------------------------------------------------------------- retention */

int outbox_retention_scrub(struct db *db, const char *deletion_id, const char *const *needles,
                           size_t n, int64_t *rows)
{
	sqlite3_stmt *st;
	char stub[96];
	int rc;

	retention_stub(deletion_id, stub, sizeof stub);
	if ((rc = retention_exec_needles(db,
	                                 "UPDATE outbox_event SET payload = ?1, last_error = NULL"
	                                 " WHERE (business_key = ?2 OR instr(payload, ?2) > 0)"
	                                 " AND payload IS NOT ?1",
	                                 stub, 0, needles, n, rows,
	                                 _("cannot clear the outbox commands"))))
		return rc;
	/* and every history row of those commands */
	if ((rc = db_prepare(
	         db,
	         "UPDATE outbox_event_his SET payload = (SELECT payload FROM outbox_event o"
	         " WHERE o.id = outbox_event_his.id), last_error = NULL"
	         " WHERE id IN (SELECT id FROM outbox_event WHERE payload = ?1)"
	         " AND payload IS NOT ?1",
	         &st)))
		return rc;
	sqlite3_bind_text(st, 1, stub, -1, SQLITE_TRANSIENT);
	return db_run(db, st, _("cannot clear the outbox commands' history"));
}
