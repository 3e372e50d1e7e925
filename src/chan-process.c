/*
 * chan-process.c - processing stored channel events into payments, refunds
 * and order states, and the active queries of orders still paying (see
 * chan-process.h for the rules).
 *
 * One batch: read up to o->batch due events; ask the channel about each
 * (one query per payment intent per batch, whatever the number of events
 * about it); then ONE write transaction, fenced by the lease, in which each
 * event is applied and marked under its own savepoint, so that an event
 * whose application fails is marked failed without undoing the others, and
 * an event is never marked without what it applied or applied without
 * being marked.
 */
#include <config.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "chan-poll.h"
#include "chan-process.h"
#include "clock.h"
#include "config.h"
#include "control.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "inbox.h"
#include "invoice.h"
#include "outbox.h"
#include "payment.h"
#include "stopflag.h"
#include "xalloc.h"

void chan_process_opts_default(struct chan_process_opts *o, const char *provider)
{
	long v;

	memset(o, 0, sizeof *o);
	o->provider = provider;
	v = config_get_int("channel_park_seconds", 86400);
	o->park_seconds = v < 60 ? 60 : v > 30 * 86400 ? 30 * 86400 : (int)v;
	v = config_get_int("channel_query_after_seconds", 120);
	o->query_after = v < 1 ? 1 : v > 86400 ? 86400 : (int)v;
	v = config_get_int("channel_process_batch", 100);
	o->batch = v < 1 ? 1 : v > 500 ? 500 : (int)v;
}

/* ---------------------------------------------------------------- reading */

enum { K_OTHER, K_INTENT, K_REFUND };

/* What the channel said about one payment intent (cached per batch). */
struct intent {
	char id[256];
	int code;
	int retry_after;
	char reason[300];
	struct chan_order o;
};

/* One due event and what the channel said about its object. */
struct pev {
	int64_t id;
	char type[101];
	char object_id[256];
	char status[12];
	int64_t attempts;
	int64_t parked_until;
	int kind;
	int code; /* CHAN_OK, or the code of the call that failed */
	int retry_after;
	char reason[300];
	struct chan_refund rf; /* K_REFUND: the refund */
	int ix;                /* the intent in the cache, -1 when none */
	int settled;           /* K_INTENT: its order was paid (or closed) already: not asked */
};

struct batch {
	const struct chan_process_opts *o;
	const struct control_hold *lease;
	struct pev *ev;
	size_t n;
	struct intent *in;
	size_t nin;
	struct chan_process_result add; /* what the transaction did, counted on commit */
};

static int load_due(struct db *db, const struct chan_process_opts *o, int all, int64_t after,
                    struct batch *b)
{
	sqlite3_stmt *st;
	int rc, step;

	/* by status and id (inbound_callback_by_status): only the events
	 * still waiting are read, however many were processed; the unary +
	 * keeps SQLite from reading every event of the source instead */
	rc = db_prepare(db,
	                "SELECT id, coalesce(event_type, ''), coalesce(object_id, ''), status,"
	                " attempts, coalesce(parked_until, 0) FROM inbound_callback"
	                " WHERE (status = 'received' OR status = 'failed' OR status = 'parked')"
	                " AND next_attempt_at <= ?2 AND +source_system = ?1 AND id > ?3"
	                " ORDER BY id LIMIT ?4",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, o->provider, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, all ? INT64_MAX : (int64_t)time(NULL));
	sqlite3_bind_int64(st, 3, after);
	sqlite3_bind_int(st, 4, o->batch);
	b->n = 0;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct pev *e = &b->ev[b->n++];

		memset(e, 0, sizeof *e);
		e->id = sqlite3_column_int64(st, 0);
		snprintf(e->type, sizeof e->type, "%s", (const char *)sqlite3_column_text(st, 1));
		snprintf(e->object_id, sizeof e->object_id, "%s",
		         (const char *)sqlite3_column_text(st, 2));
		snprintf(e->status, sizeof e->status, "%s",
		         (const char *)sqlite3_column_text(st, 3));
		e->attempts = sqlite3_column_int64(st, 4);
		e->parked_until = sqlite3_column_int64(st, 5);
		e->ix = -1;
		if (!strncmp(e->type, "payment_intent.", 15))
			e->kind = K_INTENT;
		else if (!strncmp(e->type, "refund.", 7) || !strncmp(e->type, "charge.refund.", 14))
			e->kind = K_REFUND;
		else
			e->kind = K_OTHER;
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the inbound events"));
	sqlite3_finalize(st);
	return rc;
}

/* The cached answer about intent id, asking the channel the first time. */
static int intent_of(struct batch *b, const struct chan_ops *ops, struct chan_ctx *ctx,
                     const char *id)
{
	struct chan_status cs;
	struct intent *it;
	size_t i;

	for (i = 0; i < b->nin; i++)
		if (!strcmp(b->in[i].id, id))
			return (int)i;
	it = &b->in[b->nin];
	memset(it, 0, sizeof *it);
	memset(&cs, 0, sizeof cs);
	snprintf(it->id, sizeof it->id, "%s", id);
	it->code = ops->query_order(ctx, id, &it->o, &cs);
	it->retry_after = cs.retry_after;
	snprintf(it->reason, sizeof it->reason, "%s", cs.reason);
	b->add.calls++;
	return (int)b->nin++;
}

/* Ask the channel about every event of the batch (no transaction open). */
/* 1 when the order of intent id is past the point where the intent's state
 * can change anything: paid (or refunding, refunded) or closed. Succeeded
 * and canceled are final at the channel, so asking again is pointless; a
 * refund has events of its own. Read outside the write transaction: an
 * order only moves forward, and apply_one reads it again. */
static int settled(struct db *db, const char *provider, const char *id)
{
	sqlite3_stmt *st;
	int yes = 0;

	if (db_prepare_cached(db,
	                      "SELECT 1 FROM pay_order WHERE provider_code = ?2"
	                      " AND channel_order_id = ?1 AND status IN"
	                      " ('paid', 'refunding', 'refunded', 'closed')",
	                      &st))
		return 0;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, provider, -1, SQLITE_TRANSIENT);
	yes = sqlite3_step(st) == SQLITE_ROW;
	db_release(db, st);
	return yes;
}

static void ask(struct db *db, struct batch *b, const struct chan_ops *ops, struct chan_ctx *ctx,
                volatile sig_atomic_t *stop)
{
	struct chan_status cs;
	size_t i;

	for (i = 0; i < b->n; i++) {
		struct pev *e = &b->ev[i];

		if (stop_requested(stop)) {
			b->n = i; /* the rest stays due, untouched */
			return;
		}
		e->code = CHAN_OK;
		if (e->kind == K_OTHER || !*e->object_id)
			continue;
		if (e->kind == K_REFUND) {
			memset(&cs, 0, sizeof cs);
			e->code = ops->query_refund(ctx, e->object_id, &e->rf, &cs);
			b->add.calls++;
			e->retry_after = cs.retry_after;
			snprintf(e->reason, sizeof e->reason, "%s", cs.reason);
			if (e->code != CHAN_OK)
				continue;
			if (!*e->rf.payment_intent) {
				e->code = CHAN_BADDATA;
				snprintf(e->reason, sizeof e->reason, "%s",
				         _("the refund names no payment intent"));
				continue;
			}
			e->ix = intent_of(b, ops, ctx, e->rf.payment_intent);
		} else if (settled(db, b->o->provider, e->object_id)) {
			e->settled = 1;
			continue;
		} else {
			e->ix = intent_of(b, ops, ctx, e->object_id);
		}
		if (b->in[e->ix].code != CHAN_OK) {
			e->code = b->in[e->ix].code;
			e->retry_after = b->in[e->ix].retry_after;
			snprintf(e->reason, sizeof e->reason, "%s", b->in[e->ix].reason);
		}
	}
}

/* ---------------------------------------------------------------- orders */

struct order {
	int64_t id;
	char order_no[65];
	char provider[41];
	char channel_id[256];
	int64_t customer_id, invoice_id, payment_id;
	char currency[4];
	int64_t amount, refunded;
	char status[12];
	char *last_error; /* set when it changes; not owned */
};

/* The order whose channel id (col "channel", at provider) or order number
 * (col "order") is v. */
static int order_by(struct db *db, const char *provider, const char *col, const char *v,
                    struct order *po, int *found)
{
	sqlite3_stmt *st;
	int rc, step;

	*found = 0;
	rc = db_prepare_cached(db,
	                       !strcmp(col, "channel")
	                           ? "SELECT id, order_no, provider_code,"
	                             " coalesce(channel_order_id, ''), customer_id,"
	                             " coalesce(invoice_id, 0), coalesce(payment_id, 0), currency,"
	                             " amount, refunded_amount, status FROM pay_order"
	                             " WHERE provider_code = ?2 AND channel_order_id = ?1"
	                           : "SELECT id, order_no, provider_code,"
	                             " coalesce(channel_order_id, ''), customer_id,"
	                             " coalesce(invoice_id, 0), coalesce(payment_id, 0), currency,"
	                             " amount, refunded_amount, status FROM pay_order"
	                             " WHERE order_no = ?1",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, v, -1, SQLITE_TRANSIENT);
	if (!strcmp(col, "channel"))
		sqlite3_bind_text(st, 2, provider, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		memset(po, 0, sizeof *po);
		po->id = sqlite3_column_int64(st, 0);
		snprintf(po->order_no, sizeof po->order_no, "%s", sqlite3_column_text(st, 1));
		snprintf(po->provider, sizeof po->provider, "%s", sqlite3_column_text(st, 2));
		snprintf(po->channel_id, sizeof po->channel_id, "%s", sqlite3_column_text(st, 3));
		po->customer_id = sqlite3_column_int64(st, 4);
		po->invoice_id = sqlite3_column_int64(st, 5);
		po->payment_id = sqlite3_column_int64(st, 6);
		snprintf(po->currency, sizeof po->currency, "%s", sqlite3_column_text(st, 7));
		po->amount = sqlite3_column_int64(st, 8);
		po->refunded = sqlite3_column_int64(st, 9);
		snprintf(po->status, sizeof po->status, "%s", sqlite3_column_text(st, 10));
		*found = 1;
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the card payment order"));
	}
	db_release(db, st);
	return rc;
}

/* Write the order's changeable fields back (the schema checks the move). */
static int order_save(struct db *db, const struct order *po, const char *why)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(db,
	                       "UPDATE pay_order SET channel_order_id = ?2, payment_id = ?3,"
	                       " refunded_amount = ?4, status = ?5,"
	                       " last_error = coalesce(?6, last_error), updated_at = ?7"
	                       " WHERE id = ?1",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, po->id);
	if (*po->channel_id)
		sqlite3_bind_text(st, 2, po->channel_id, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 2);
	if (po->payment_id)
		sqlite3_bind_int64(st, 3, po->payment_id);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_int64(st, 4, po->refunded);
	sqlite3_bind_text(st, 5, po->status, -1, SQLITE_TRANSIENT);
	if (po->last_error)
		sqlite3_bind_text(st, 6, po->last_error, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 6);
	sqlite3_bind_int64(st, 7, clock_now());
	db_set_reason(db, why);
	rc = db_run_cached(db, st, _("cannot record the card payment order"));
	db_set_reason(db, NULL);
	return rc;
}

/* ---------------------------------------------------------------- applying */

/* How an event is to be marked. */
struct mark {
	const char *status; /* processed, ignored, parked, failed, dead */
	char error[600];
	int64_t wait;         /* failed / parked: seconds to the next attempt */
	int64_t parked_until; /* parked */
	int payments, refunds;
	const char *dead_kind; /* when it dies: "refused" (say_dead, a core refusal), else
	                          "transient" */
};

static int say_dead(struct mark *m, struct order *po, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The channel disagrees with our order: dead, and the order keeps why. */
static int say_dead(struct mark *m, struct order *po, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->error, sizeof m->error, fmt, ap);
	va_end(ap);
	m->status = "dead";
	m->dead_kind = "refused";
	if (po) {
		po->last_error = m->error;
		return 1; /* the order is to be saved */
	}
	return 0;
}

static int rank(const char *status)
{
	static const char *const order[] = {"created", "paying", "paid", "refunding", "refunded"};
	size_t i;

	for (i = 0; i < sizeof order / sizeof *order; i++)
		if (!strcmp(status, order[i]))
			return (int)i;
	return 99; /* closed, failed: final */
}

/* The invoice's open balance that a payment of currency may settle. */
static int invoice_open(struct db *db, int64_t invoice_id, int64_t customer_id,
                        const char *currency, int64_t *owed)
{
	sqlite3_stmt *st;
	int rc;

	*owed = 0;
	if (!invoice_id)
		return 0;
	rc = db_prepare_cached(db,
	                       "SELECT balance FROM invoice WHERE id = ?1 AND customer_id = ?2"
	                       " AND currency = ?3 AND " INVOICE_OPEN_SQL(""),
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, invoice_id);
	sqlite3_bind_int64(st, 2, customer_id);
	sqlite3_bind_text(st, 3, currency, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		*owed = sqlite3_column_int64(st, 0);
	db_release(db, st);
	return 0;
}

/* Apply the intent's state to the order. *changed says whether it did
 * anything; a disagreement makes m dead. */
static int apply_intent(struct db *db, const struct pev *e, const struct chan_order *ci,
                        struct order *po, struct mark *m, int *changed)
{
	char why[400];
	int rc, save = 0;

	*changed = 0;
	snprintf(why, sizeof why, _("channel: %s %s"), e->type, ci->id);
	if (!*po->channel_id) {
		snprintf(po->channel_id, sizeof po->channel_id, "%s", ci->id);
		save = 1;
	}
	if (!strcmp(ci->status, "succeeded") && rank(po->status) == 99) {
		if (say_dead(m, po,
		             _("the channel says intent %s succeeded, but order %s is %s: not "
		               "posted, a person must look"),
		             ci->id, po->order_no, po->status))
			return order_save(db, po, why);
		return 0;
	} else if (!strcmp(ci->status, "succeeded")) {
		if (!po->payment_id) {
			struct payment_input in = {0};
			struct alloc_input al = {po->invoice_id, 0};
			char note[120];

			if (ci->amount_received != po->amount) {
				if (say_dead(m, po,
				             _("the channel says intent %s received %lld, but order %s is "
				               "for %lld (minor units): not posted, a person must look"),
				             ci->id, (long long)ci->amount_received, po->order_no,
				             (long long)po->amount))
					return order_save(db, po, why);
				return 0;
			}
			if ((rc = invoice_open(db, po->invoice_id, po->customer_id, po->currency,
			                       &al.amount)) != 0)
				return rc;
			if (al.amount > po->amount)
				al.amount = po->amount;
			snprintf(note, sizeof note, _("card payment order %s"), po->order_no);
			in.customer_id = po->customer_id;
			in.currency = po->currency;
			in.amount = po->amount;
			in.method = "card";
			in.reference = ci->id;
			in.channel_ref = 1;
			in.note = note;
			rc = payment_record_in(db, &in, &al, al.amount > 0 ? 1 : 0, &po->payment_id);
			if (rc)
				return rc;
			m->payments++;
			snprintf(po->status, sizeof po->status, "paid");
			save = *changed = 1;
		}
	} else if (rank(po->status) >= rank("paid") && rank(po->status) < 99) {
		/* a paid order's intent never leaves succeeded */
		if (say_dead(m, po,
		             _("the channel now says intent %s is %s, but order %s was paid: "
		               "nothing changed, a person must look"),
		             ci->id, ci->status, po->order_no))
			return order_save(db, po, why);
		return 0;
	} else if (!strcmp(ci->status, "canceled")) {
		if (!strcmp(po->status, "created") || !strcmp(po->status, "paying")) {
			snprintf(po->status, sizeof po->status, "closed");
			save = *changed = 1;
		}
	} else if (!strcmp(po->status, "created")) {
		snprintf(po->status, sizeof po->status, "paying");
		save = *changed = 1;
	}
	if (!strcmp(e->type, "payment_intent.payment_failed") && !strcmp(ci->status,
	                                                                  "requires_payment_method")) {
		/* declined: the customer may still pay this intent; keep it open */
		snprintf(m->error, sizeof m->error,
		         _("the card was declined; order %s stays open for another try"),
		         po->order_no);
		po->last_error = m->error;
		save = *changed = 1;
	}
	return save ? order_save(db, po, why) : 0;
}

struct live {
	int64_t id, invoice_id, amount;
};

struct lives {
	struct live *v;
	size_t n, cap;
};

static int collect_live(const struct allocation *a, void *arg)
{
	struct lives *l = arg;

	if (a->reverses_id || a->reversed_by)
		return 0;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n].id = a->id;
	l->v[l->n].invoice_id = a->invoice_id;
	l->v[l->n].amount = a->amount;
	l->n++;
	return 0;
}

/* Free `need` of payment pay_id by reversing its newest live allocations;
 * what a reversal frees beyond the need is allocated again to the same
 * invoice. Explicit rows both ways, so the invoice's history shows it. */
static int free_allocated(struct db *db, int64_t pay_id, int64_t need, const char *reason)
{
	struct lives l = {0};
	size_t j;
	int rc;

	if ((rc = alloc_list(db, pay_id, 0, collect_live, &l)) != 0)
		goto out;
	for (j = l.n; j-- > 0 && need > 0;) {
		int64_t back = l.v[j].amount < need ? l.v[j].amount : need;

		if ((rc = alloc_reverse_in(db, l.v[j].id, reason, NULL)) != 0)
			goto out;
		need -= back;
		if (l.v[j].amount > back) {
			struct alloc_input again = {l.v[j].invoice_id, l.v[j].amount - back};

			if ((rc = alloc_post_in(db, pay_id, &again, 1)) != 0)
				goto out;
		}
	}
	if (need > 0)
		rc = err_set(FD_ECONFLICT, _("payment %lld cannot free enough to refund"),
		             (long long)pay_id);
out:
	free(l.v);
	return rc;
}

/* The channel says refund rf failed (or was canceled): nothing is posted,
 * but the failure is kept once (pay_order_refund_failed), so that its amount
 * is no longer counted as asked for and can be asked again; an order being
 * refunded with nothing refunded and nothing else asked for goes back to
 * paid. A repeated event changes nothing. */
static int refund_failed(struct db *db, const struct pev *e, struct order *po, struct mark *m,
                         int *changed)
{
	const struct chan_refund *rf = &e->rf;
	sqlite3_stmt *st;
	char why[400];
	int64_t asked;
	int rc;

	snprintf(m->error, sizeof m->error, _("refund %s %s at the channel: nothing to post"),
	         rf->id, rf->status);
	if (rf->amount <= 0)
		return 0;
	rc = db_prepare_cached(db,
	                       "INSERT OR IGNORE INTO pay_order_refund_failed (order_id,"
	                       " channel_refund_id, amount, status, asked_by_us, reason,"
	                       " operator_id, created_at) VALUES (?1, ?2, ?3, ?4, EXISTS (SELECT 1"
	                       " FROM inbound_callback WHERE source_system = ?5"
	                       " AND external_id = 'answer:' || ?2), ?6, fd_operator(), ?7)",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, po->id);
	sqlite3_bind_text(st, 2, rf->id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, rf->amount);
	sqlite3_bind_text(st, 4, !strcmp(rf->status, "failed") ? "failed" : "canceled", -1,
	                  SQLITE_STATIC);
	sqlite3_bind_text(st, 5, po->provider, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, e->type, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 7, clock_now());
	if ((rc = db_run_cached(db, st, _("cannot record the failed refund"))) != 0)
		return rc;
	if (sqlite3_changes(db_sqlite(db)) == 0)
		return 0; /* known already */
	*changed = 1;
	snprintf(m->error, sizeof m->error,
	         _("refund %s %s at the channel: nothing posted; its amount can be asked again"),
	         rf->id, rf->status);
	if (strcmp(po->status, "refunding") || po->refunded > 0)
		return 0;
	if ((rc = outbox_refund_asked(db, po->order_no, &asked)) != 0)
		return rc;
	if (asked > 0)
		return 0; /* another refund is still on its way */
	snprintf(po->status, sizeof po->status, "paid");
	snprintf(why, sizeof why, _("channel: refund %s %s"), rf->id, rf->status);
	return order_save(db, po, why);
}

static int apply_refund(struct db *db, const struct pev *e, struct order *po, struct mark *m,
                        int *changed)
{
	const struct chan_refund *rf = &e->rf;
	struct refund_input in = {0};
	struct payment p;
	sqlite3_stmt *st;
	char why[400], reason[400];
	int rc, seen;

	*changed = 0;
	if (strcmp(rf->status, "succeeded") != 0) {
		if (!strcmp(rf->status, "failed") || !strcmp(rf->status, "canceled"))
			return refund_failed(db, e, po, m, changed);
		/* pending or requires_action: ask again later */
		m->status = "failed";
		snprintf(m->error, sizeof m->error,
		         _("refund %s is %s at the channel; asked again later"), rf->id, rf->status);
		return 0;
	}
	if (!po->payment_id) {
		say_dead(m, NULL,
		         _("refund %s succeeded at the channel, but order %s has no payment: "
		           "a person must look"),
		         rf->id, po->order_no);
		return 0;
	}
	rc = db_prepare_cached(db,
	                       "SELECT 1 FROM refund WHERE payment_id = ?1 AND reference = ?2"
	                       " AND status <> 'failed'",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, po->payment_id);
	sqlite3_bind_text(st, 2, rf->id, -1, SQLITE_TRANSIENT);
	seen = sqlite3_step(st) == SQLITE_ROW;
	db_release(db, st);
	if (seen)
		return 0;
	snprintf(why, sizeof why, _("channel: %s %s"), e->type, rf->id);
	if (strcasecmp(rf->currency, po->currency) || rf->amount <= 0 ||
	    rf->amount > po->amount - po->refunded) {
		if (say_dead(m, po,
		             _("refund %s of %lld %s does not fit order %s (%lld %s, %lld refunded): "
		               "not posted, a person must look"),
		             rf->id, (long long)rf->amount, rf->currency, po->order_no,
		             (long long)po->amount, po->currency, (long long)po->refunded))
			return order_save(db, po, why);
		return 0;
	}
	snprintf(reason, sizeof reason, _("refunded at the channel (%s)"), rf->id);
	if ((rc = payment_get(db, po->payment_id, &p)) != 0)
		return rc;
	if (p.unallocated < rf->amount)
		rc = free_allocated(db, p.id, rf->amount - p.unallocated, reason);
	payment_free(&p);
	if (rc)
		return rc;
	in.payment_id = po->payment_id;
	in.amount = rf->amount;
	in.method = "card";
	in.reference = rf->id;
	in.channel_ref = 1;
	in.reason = reason;
	if ((rc = refund_post_in(db, &in, NULL)) != 0)
		return rc;
	m->refunds++;
	po->refunded += rf->amount;
	snprintf(po->status, sizeof po->status, "%s",
	         po->refunded == po->amount ? "refunded" : "refunding");
	*changed = 1;
	return order_save(db, po, why);
}

/* Decide and apply one event; m says how to mark it. A non-zero return is
 * a failure of the database or a refusal of the core: the caller undoes
 * this event's writes and marks it failed. */
static int apply_one(struct db *db, struct batch *b, const struct pev *e, struct mark *m)
{
	const struct chan_order *ci;
	struct order po;
	char buf[600];
	int rc, found, c1 = 0, c2 = 0;
	int64_t now = (int64_t)time(NULL);

	m->status = "processed";
	if (e->kind == K_OTHER) {
		m->status = "ignored";
		snprintf(m->error, sizeof m->error, _("frontdesk does not act on %s events"),
		         *e->type ? e->type : "?");
		return 0;
	}
	if (!*e->object_id) {
		say_dead(m, NULL, _("the event names no object"));
		return 0;
	}
	if (e->code != CHAN_OK) {
		snprintf(buf, sizeof buf, _("the channel could not tell (%s): %s"),
		         chan_code_name(e->code), e->reason);
		if (e->code == CHAN_REFUSED || e->code == CHAN_BADDATA) {
			say_dead(m, NULL, "%s", buf);
			return 0;
		}
		m->status = "failed";
		m->wait = chan_backoff(e->attempts + 1, e->retry_after, e->code);
		snprintf(m->error, sizeof m->error, "%s", buf);
		return 0;
	}
	if (e->settled) {
		if ((rc = order_by(db, b->o->provider, "channel", e->object_id, &po, &found)) != 0)
			return rc;
		if (!found || rank(po.status) < rank("paid"))
			return err_set(FD_ECONFLICT, _("the order of intent %s changed meanwhile"),
			               e->object_id);
		m->status = "ignored";
		snprintf(m->error, sizeof m->error,
		         _("nothing to change: order %s is already %s, and the intent's state is "
		           "final (not asked again)"),
		         po.order_no, po.status);
		return 0;
	}
	ci = &b->in[e->ix].o;
	if ((rc = order_by(db, b->o->provider, "channel", ci->id, &po, &found)) != 0)
		return rc;
	if (!found && *ci->order_no && (rc = order_by(db, b->o->provider, "order", ci->order_no, &po, &found)))
		return rc;
	if (!found) {
		int64_t until = !strcmp(e->status, "parked") && e->parked_until
		                    ? e->parked_until
		                    : now + b->o->park_seconds;

		if (now >= until) {
			say_dead(m, NULL,
			         _("no card payment order of ours for intent %s (order number '%s') "
			           "after waiting: a person must look"),
			         ci->id, ci->order_no);
			return 0;
		}
		m->status = "parked";
		m->parked_until = until;
		m->wait = chan_backoff(e->attempts + 1, -1, CHAN_RETRY);
		snprintf(m->error, sizeof m->error,
		         _("no card payment order of ours for intent %s (order number '%s') yet"),
		         ci->id, ci->order_no);
		return 0;
	}
	snprintf(buf, sizeof buf, _("channel: %s %s"), e->type, ci->id);
	if (strcmp(po.provider, b->o->provider) || (*po.channel_id && strcmp(po.channel_id, ci->id)) ||
	    (*ci->order_no && strcmp(ci->order_no, po.order_no))) {
		/* a foreign event: it never writes on our order */
		say_dead(m, NULL,
		         _("intent %s (order number '%s') does not belong to order %s (%s %s): "
		           "not posted, a person must look"),
		         ci->id, ci->order_no, po.order_no, po.provider,
		         *po.channel_id ? po.channel_id : "-");
		return 0;
	}
	if (strcasecmp(ci->currency, po.currency) || ci->amount != po.amount ||
	    (ci->invoice_id && ci->invoice_id != po.invoice_id)) {
		if (say_dead(m, &po,
		             _("the channel says intent %s is %lld %s for invoice %lld; order %s is "
		               "%lld %s for invoice %lld: not posted, a person must look"),
		             ci->id, (long long)ci->amount, ci->currency, (long long)ci->invoice_id,
		             po.order_no, (long long)po.amount, po.currency,
		             (long long)po.invoice_id))
			return order_save(db, &po, buf);
		return 0;
	}
	if ((rc = apply_intent(db, e, ci, &po, m, &c1)) != 0)
		return rc;
	if (!strcmp(m->status, "dead"))
		return 0;
	if (e->kind == K_REFUND) {
		if (strcmp(e->rf.payment_intent, ci->id)) /* cannot happen: asked by it */
			return err_set(FD_EIO, _("the refund's intent changed"));
		if ((rc = apply_refund(db, e, &po, m, &c2)) != 0)
			return rc;
		if (strcmp(m->status, "processed"))
			return 0;
	}
	if (!c1 && !c2) {
		m->status = "ignored";
		if (!*m->error)
			snprintf(m->error, sizeof m->error,
			         _("nothing to change: order %s is already %s (a repeated or stale "
			           "event)"),
			         po.order_no, po.status);
	}
	return 0;
}

static int mark_event(struct db *db, const struct pev *e, const struct mark *m, int *lost)
{
	sqlite3_stmt *st;
	int64_t now = (int64_t)time(NULL);
	int attempts_after = (int)(e->attempts + 1);
	const char *status = m->status;
	int rc;

	if (!strcmp(status, "failed") && attempts_after >= CHAN_EVENT_MAX_ATTEMPTS)
		status = "dead";
	rc = db_prepare_cached(db,
	                       "UPDATE inbound_callback SET status = ?2, attempts = attempts + 1,"
	                       " next_attempt_at = ?3, parked_until = ?4, last_error = ?5,"
	                       " processed_at = ?6, updated_at = ?7, dead_kind = ?8"
	                       " WHERE id = ?1 AND (status = 'received' OR status = 'failed'"
	                       " OR status = 'parked')",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, e->id);
	sqlite3_bind_text(st, 2, status, -1, SQLITE_STATIC);
	if (!strcmp(status, "failed") || !strcmp(status, "parked"))
		sqlite3_bind_int64(st, 3, now + (m->wait > 0 ? m->wait : 1));
	else
		sqlite3_bind_null(st, 3);
	if (!strcmp(status, "parked"))
		sqlite3_bind_int64(st, 4, m->parked_until);
	else
		sqlite3_bind_null(st, 4);
	if (*m->error)
		sqlite3_bind_text(st, 5, m->error, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 5);
	if (!strcmp(status, "processed") || !strcmp(status, "ignored"))
		sqlite3_bind_int64(st, 6, clock_now());
	else
		sqlite3_bind_null(st, 6);
	sqlite3_bind_int64(st, 7, clock_now());
	if (!strcmp(status, "dead"))
		sqlite3_bind_text(st, 8, m->dead_kind ? m->dead_kind : "transient", -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 8);
	rc = db_run_cached(db, st, _("cannot mark the inbound event"));
	*lost = !rc && sqlite3_changes(db_sqlite(db)) != 1;
	return rc;
}

static void count(struct chan_process_result *r, const char *status)
{
	if (!strcmp(status, "processed"))
		r->processed++;
	else if (!strcmp(status, "ignored"))
		r->ignored++;
	else if (!strcmp(status, "parked"))
		r->parked++;
	else if (!strcmp(status, "failed"))
		r->failed++;
	else
		r->dead++;
}

static int apply_tx(struct db *db, void *arg)
{
	struct batch *b = arg;
	struct chan_process_result add = b->add;
	size_t i;
	int rc, lost;

	if (b->lease && (rc = control_fence(db, b->lease)) != 0)
		return rc;
	for (i = 0; i < b->n; i++) {
		const struct pev *e = &b->ev[i];
		struct mark m;

		memset(&m, 0, sizeof m);
		if ((rc = db_exec(db, "SAVEPOINT event")) != 0)
			return rc;
		if ((rc = apply_one(db, b, e, &m)) != 0) {
			char why[600];
			/* the core refused what the channel said (not a passing fault):
			 * tried again, but if it dies it is a refusal */
			const char *kind = rc == FD_EINVAL ? "refused" : NULL;

			snprintf(why, sizeof why, "%s", err_msg());
			/* SQLite answers an I/O error (and a full disk on the page
			 * cache's spill) by rolling back the whole transaction, or
			 * leaves it unable to write: the batch is lost, every event
			 * stays untouched, and the error is the one that did it */
			if (sqlite3_get_autocommit(db_sqlite(db)) ||
			    db_exec(db, "ROLLBACK TO event") != 0)
				return err_set(rc, "%s", why);
			memset(&m, 0, sizeof m);
			m.dead_kind = kind;
			m.status = "failed";
			m.wait = chan_backoff(e->attempts + 1, -1, CHAN_RETRY);
			snprintf(m.error, sizeof m.error, _("cannot apply it: %s"), why);
		}
		if ((rc = mark_event(db, e, &m, &lost)) != 0)
			return rc;
		if (lost) {
			/* a person retried or ignored it meanwhile: keep none of it */
			if ((rc = db_exec(db, "ROLLBACK TO event")) != 0)
				return rc;
		} else {
			count(&add, m.status && !strcmp(m.status, "failed") &&
			                    e->attempts + 1 >= CHAN_EVENT_MAX_ATTEMPTS
			                ? "dead"
			                : m.status);
			add.payments += m.payments;
			add.refunds += m.refunds;
		}
		if ((rc = db_exec(db, "RELEASE event")) != 0)
			return rc;
	}
	b->add = add;
	return 0;
}

static void result_add(struct chan_process_result *r, const struct chan_process_result *a)
{
	r->processed += a->processed;
	r->ignored += a->ignored;
	r->parked += a->parked;
	r->failed += a->failed;
	r->dead += a->dead;
	r->payments += a->payments;
	r->refunds += a->refunds;
	r->calls += a->calls;
	r->queried += a->queried;
}

int chan_process_due(struct db *db, const struct chan_ops *ops, struct chan_ctx *ctx,
                     const struct chan_process_opts *o, const struct control_hold *lease,
                     volatile sig_atomic_t *stop, int all, struct chan_process_result *r)
{
	struct batch b;
	int64_t after = 0;
	int rc = 0;

	memset(&b, 0, sizeof b);
	b.o = o;
	b.lease = lease;
	b.ev = xcalloc((size_t)o->batch, sizeof *b.ev);
	b.in = xcalloc((size_t)o->batch, sizeof *b.in);
	while (!stop_requested(stop)) {
		if ((rc = load_due(db, o, all, after, &b)) != 0 || b.n == 0)
			break;
		after = b.ev[b.n - 1].id;
		memset(&b.add, 0, sizeof b.add);
		b.nin = 0;
		ask(db, &b, ops, ctx, stop);
		if (b.n == 0)
			break;
		if ((rc = db_write(db, apply_tx, &b)) != 0)
			break;
		result_add(r, &b.add);
	}
	free(b.ev);
	free(b.in);
	return rc;
}

/* ---------------------------------------------------------------- queries */

struct qorder {
	int64_t id;
	char channel_id[256];
	int64_t query_count;
	int64_t next_query_at; /* 0: never scheduled */
};

struct qmark {
	const struct control_hold *lease;
	const struct chan_process_opts *o;
	const struct qorder *q;
	int asked;                  /* 1: the channel was asked */
	const struct chan_order *ci; /* a final state to store, or NULL */
	int64_t next;
};

/* A final state found by asking, stored as an event of its own. */
static int store_found(struct db *db, const struct chan_process_opts *o,
                       const struct chan_order *ci)
{
	cJSON *obj = cJSON_CreateObject(), *md;
	char ext[320], type[80];

	snprintf(ext, sizeof ext, "query:%s:%s", ci->id, ci->status);
	snprintf(type, sizeof type, "payment_intent.%s", ci->status);
	cJSON_AddStringToObject(obj, "id", ci->id);
	cJSON_AddStringToObject(obj, "object", "payment_intent");
	cJSON_AddStringToObject(obj, "status", ci->status);
	chan_json_add_int(obj, "amount", ci->amount);
	chan_json_add_int(obj, "amount_received", ci->amount_received);
	cJSON_AddStringToObject(obj, "currency", ci->currency);
	md = cJSON_AddObjectToObject(obj, "metadata");
	cJSON_AddStringToObject(md, "order_no", ci->order_no);
	return inbox_insert_found(db, o->provider, ext, type, "query", obj);
}

static int qmark_tx(struct db *db, void *arg)
{
	struct qmark *m = arg;
	sqlite3_stmt *st;
	int rc;

	if (m->lease && (rc = control_fence(db, m->lease)) != 0)
		return rc;
	if (m->ci && (rc = store_found(db, m->o, m->ci)) != 0)
		return rc;
	rc = db_prepare_cached(db,
	                       "UPDATE pay_order SET query_count = query_count + ?2,"
	                       " next_query_at = ?3 WHERE id = ?1",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, m->q->id);
	sqlite3_bind_int(st, 2, m->asked);
	sqlite3_bind_int64(st, 3, m->next);
	return db_run_cached(db, st, _("cannot record the order's query"));
}

static int load_to_query(struct db *db, const struct chan_process_opts *o, int all, int64_t after,
                         struct qorder *q, size_t max, size_t *n)
{
	sqlite3_stmt *st;
	int rc, step;

	/* the first condition is the partial index's own, so that index (the
	 * unfinished orders only) is what is read */
	rc = db_prepare(db,
	                "SELECT id, channel_order_id, query_count, coalesce(next_query_at, 0)"
	                " FROM pay_order"
	                " WHERE (status = 'created' OR status = 'paying' OR status = 'refunding')"
	                " AND status <> 'refunding' AND channel_order_id IS NOT NULL"
	                " AND provider_code = ?1 AND coalesce(next_query_at, 0) <= ?2 AND id > ?3"
	                " ORDER BY id LIMIT ?4",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, o->provider, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, all ? INT64_MAX : (int64_t)time(NULL));
	sqlite3_bind_int64(st, 3, after);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)max);
	*n = 0;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct qorder *x = &q[(*n)++];

		x->id = sqlite3_column_int64(st, 0);
		snprintf(x->channel_id, sizeof x->channel_id, "%s", sqlite3_column_text(st, 1));
		x->query_count = sqlite3_column_int64(st, 2);
		x->next_query_at = sqlite3_column_int64(st, 3);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the card payment orders"));
	sqlite3_finalize(st);
	return rc;
}

int chan_query_due(struct db *db, const struct chan_ops *ops, struct chan_ctx *ctx,
                   const struct chan_process_opts *o, const struct control_hold *lease,
                   volatile sig_atomic_t *stop, int all, struct chan_process_result *r)
{
	enum { MAXQ = 50 };
	struct qorder q[MAXQ];
	int64_t after = 0;
	size_t n, i;
	int rc = 0;

	while (!stop_requested(stop)) {
		if ((rc = load_to_query(db, o, all, after, q, MAXQ, &n)) != 0 || n == 0)
			break;
		for (i = 0; i < n && !stop_requested(stop); i++) {
			struct qmark m = {lease, o, &q[i], 0, NULL, 0};
			struct chan_order ci;
			struct chan_status cs;
			int64_t now = (int64_t)time(NULL), d;
			int code, sh;

			after = q[i].id;
			if (!q[i].next_query_at && !all) {
				/* first seen: asked only if it is still paying later */
				m.next = now + o->query_after;
			} else {
				memset(&cs, 0, sizeof cs);
				code = ops->query_order(ctx, q[i].channel_id, &ci, &cs);
				r->calls++;
				r->queried++;
				m.asked = 1;
				sh = q[i].query_count < 5 ? (int)q[i].query_count : 5;
				d = (int64_t)o->query_after << sh;
				if (d > 3600)
					d = 3600;
				if (code != CHAN_OK) {
					int64_t b = chan_backoff(q[i].query_count + 1, cs.retry_after, code);

					d = b > d ? b : d;
				} else if (!strcmp(ci.status, "succeeded") ||
				           !strcmp(ci.status, "canceled")) {
					m.ci = &ci;
				}
				m.next = now + d;
			}
			if ((rc = db_write(db, qmark_tx, &m)) != 0)
				return rc;
		}
		if (n < MAXQ)
			break;
	}
	return rc;
}
