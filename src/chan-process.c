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
 *
 * Permissions: none asked here: it carries out what the channel sent (control.h).
 */
#include <config.h>

#include <cjson/cJSON.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "chan-order.h"
#include "chan-poll.h"
#include "chan-process.h"
#include "clock.h"
#include "control.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "inbox.h"
#include "invoice.h"
#include "outbox.h"
#include "payment.h"
#include "settings.h"
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
	enum chan_event_kind kind;
	int code; /* CHAN_OK, or the code of the call that failed */
	int retry_after;
	char reason[300];
	struct chan_refund rf; /* CHAN_EVENT_REFUND: the refund */
	int ix;                /* the intent in the cache, -1 when none */
	int settled;  /* CHAN_EVENT_ORDER: its order was paid (or closed) already: not asked */
	int declined; /* the event says a payment attempt was declined */
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

static int load_due(struct db *db, const struct chan_ops *ops, const struct chan_process_opts *o,
                    int all, int64_t after, struct batch *b)
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
	                " AND +integration_type = '" CHAN_TYPE_PAYMENT "'"
	                " ORDER BY id LIMIT ?4",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, o->provider, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, all ? INT64_MAX : clock_real());
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
		e->kind = chan_event_kind_of(ops, e->type, &e->declined);
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
/* 1 when an order's status is final at the channel for its payment: paid
 * (and after: refunding, refunded) or closed. */
static int paid_or_closed(const char *status)
{
	return chan_order_is_paid(status) || pay_order_state_of(status) == PAY_ORDER_CLOSED;
}

/* 1 when the order of intent id is past the point where the intent's state
 * can change anything: paid (or refunding, refunded) or closed. Succeeded
 * and canceled are final at the channel, so asking again is pointless; a
 * refund has events of its own. Read outside the write transaction: an
 * order only moves forward, and apply_one reads it again. */
static int settled(struct db *db, const char *provider, const char *id)
{
	struct pay_order po;

	if (chan_order_by_channel(db, provider, id, &po) != 0)
		return 0;
	return paid_or_closed(po.status);
}

/* Mark the order events of the batch whose order is settled (no query for
 * them): the database part of asking, in the caller's thread. */
static void ask_settled(struct db *db, struct batch *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		struct pev *e = &b->ev[i];

		e->code = CHAN_OK;
		if (e->kind == CHAN_EVENT_ORDER && *e->object_id && !e->settled &&
		    settled(db, b->o->provider, e->object_id))
			e->settled = 1;
	}
}

/* Ask the channel about every event of the batch that ask_settled left
 * (no transaction open). Only ops and ctx are used, never the database: it
 * may run in a thread of its own while the previous batch is applied. */
static void ask_channel(struct batch *b, const struct chan_ops *ops, struct chan_ctx *ctx,
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
		if (e->kind == CHAN_EVENT_OTHER || !*e->object_id || e->settled)
			continue;
		if (e->kind == CHAN_EVENT_REFUND) {
			memset(&cs, 0, sizeof cs);
			e->code = ops->query_refund(ctx, e->object_id, &e->rf, &cs);
			b->add.calls++;
			e->retry_after = cs.retry_after;
			snprintf(e->reason, sizeof e->reason, "%s", cs.reason);
			if (e->code != CHAN_OK)
				continue;
			if (!*e->rf.order_id) {
				e->code = CHAN_BADDATA;
				snprintf(e->reason, sizeof e->reason, "%s",
				         _("the refund names no payment intent"));
				continue;
			}
			e->ix = intent_of(b, ops, ctx, e->rf.order_id);
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

/* After the previous batch was applied: an order event whose order that
 * batch settled is treated as if it had been found settled before asking
 * (the answer of the channel, asked meanwhile, is not used), so that the
 * outcome is the one of asking after the previous batch. */
static void ask_settled_again(struct db *db, struct batch *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		struct pev *e = &b->ev[i];

		if (e->kind == CHAN_EVENT_ORDER && *e->object_id && !e->settled &&
		    settled(db, b->o->provider, e->object_id)) {
			e->settled = 1;
			e->ix = -1;
			e->code = CHAN_OK;
			e->retry_after = 0;
			e->reason[0] = '\0';
		}
	}
}

/* ---------------------------------------------------------------- applying */

/* How an event is to be marked. */
struct mark {
	enum inbox_state state; /* processed, ignored, parked, failed, dead */
	char error[600];
	int64_t wait;         /* failed / parked: seconds to the next attempt */
	int64_t parked_until; /* parked */
	int payments, refunds;
	int waiting;           /* failed only in that the channel has not settled it yet */
	const char *dead_kind; /* when it dies: "refused" (say_dead, a core refusal), else
	                          "transient" */
};

static int say_dead(struct mark *m, struct pay_order *po, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The channel disagrees with our order: dead, and the order keeps why. */
static int say_dead(struct mark *m, struct pay_order *po, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->error, sizeof m->error, fmt, ap);
	va_end(ap);
	m->state = INBOX_DEAD;
	m->dead_kind = "refused";
	if (po) {
		snprintf(po->last_error, sizeof po->last_error, "%s", m->error);
		return 1; /* the order is to be saved */
	}
	return 0;
}

/* Write po with status `to`: a move when it changes (chan_order_move
 * checks it), else a save. */
static int order_write(struct db *db, struct pay_order *po, const char *to, const char *why)
{
	if (strcmp(po->status, to))
		return chan_order_move(db, po, to, why);
	return chan_order_save(db, po, why);
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
                        struct pay_order *po, struct mark *m, int *changed)
{
	char why[400];
	const char *to = po->status;
	int rc, save = 0;

	*changed = 0;
	snprintf(why, sizeof why, _("channel: %s %s"), e->type, ci->id);
	if (!*po->channel_id) {
		snprintf(po->channel_id, sizeof po->channel_id, "%s", ci->id);
		save = 1;
	}
	if (ci->state == CHAN_ORDER_SUCCEEDED && chan_order_is_final(po->status)) {
		if (say_dead(m, po,
		             _("the channel says intent %s succeeded, but order %s is %s: not "
		               "posted, a person must look"),
		             ci->id, po->order_no, po->status))
			return chan_order_save(db, po, why);
		return 0;
	} else if (ci->state == CHAN_ORDER_SUCCEEDED) {
		if (!po->payment_id) {
			struct payment_input in = {0};
			struct alloc_input al = {po->invoice_id, 0};
			char note[120];

			if (ci->amount_unknown) {
				/* paid, says the channel, but not how much: never guessed */
				if (say_dead(
				        m, po,
				        _("the channel says intent %s is %s but names no amount; "
				          "order %s is for %lld (minor units): not posted, a "
				          "person must look"),
				        ci->id, ci->status, po->order_no, (long long)po->amount))
					return chan_order_save(db, po, why);
				return 0;
			}
			if (ci->amount_received != po->amount) {
				if (say_dead(
				        m, po,
				        _("the channel says intent %s received %lld, but order %s "
				          "is "
				          "for %lld (minor units): not posted, a person must look"),
				        ci->id, (long long)ci->amount_received, po->order_no,
				        (long long)po->amount))
					return chan_order_save(db, po, why);
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
			rc =
			    payment_record_in(db, &in, &al, al.amount > 0 ? 1 : 0, &po->payment_id);
			if (rc)
				return rc;
			m->payments++;
			to = "paid";
			save = *changed = 1;
		}
	} else if (chan_order_is_paid(po->status)) {
		/* a paid order's intent never leaves succeeded */
		if (say_dead(m, po,
		             _("the channel now says intent %s is %s, but order %s was paid: "
		               "nothing changed, a person must look"),
		             ci->id, ci->status, po->order_no))
			return chan_order_save(db, po, why);
		return 0;
	} else if (ci->state == CHAN_ORDER_CANCELED) {
		if (chan_order_is_open(po->status)) {
			to = "closed";
			save = *changed = 1;
		}
	} else if (pay_order_state_of(po->status) == PAY_ORDER_CREATED) {
		to = "paying";
		save = *changed = 1;
	}
	if (ci->state == CHAN_ORDER_DECLINED || (e->declined && ci->state == CHAN_ORDER_PENDING)) {
		/* declined: the customer may still pay this intent; keep it open */
		snprintf(m->error, sizeof m->error,
		         _("the card was declined; order %s stays open for another try"),
		         po->order_no);
		snprintf(po->last_error, sizeof po->last_error, "%s", m->error);
		save = *changed = 1;
	}
	return save ? order_write(db, po, to, why) : 0;
}

/* The channel says refund rf failed (or was canceled): nothing is posted,
 * but the failure is kept once (pay_order_refund_failed), so that its amount
 * is no longer counted as asked for and can be asked again; an order being
 * refunded with nothing refunded and nothing else asked for goes back to
 * paid. A repeated event changes nothing. */
static int refund_failed(struct db *db, const struct pev *e, struct pay_order *po, struct mark *m,
                         int *changed)
{
	const struct chan_refund *rf = &e->rf;
	char why[400];
	int64_t asked;
	int rc, fresh;

	snprintf(m->error, sizeof m->error, _("refund %s %s at the channel: nothing to post"),
	         rf->id, rf->status);
	if (rf->amount <= 0)
		return 0;
	if ((rc = chan_order_refund_failed(db, po, rf->id, rf->amount,
	                                   rf->state == CHAN_REFUND_FAILED, e->type, &fresh)) != 0)
		return rc;
	if (!fresh)
		return 0; /* known already */
	*changed = 1;
	snprintf(m->error, sizeof m->error,
	         _("refund %s %s at the channel: nothing posted; its amount can be asked again"),
	         rf->id, rf->status);
	if (pay_order_state_of(po->status) != PAY_ORDER_REFUNDING || po->refunded > 0)
		return 0;
	if ((rc = chan_order_refundable(db, po->order_no, NULL, &asked)) != 0)
		return rc;
	if (asked > 0)
		return 0; /* another refund is still on its way */
	snprintf(why, sizeof why, _("channel: refund %s %s"), rf->id, rf->status);
	return chan_order_move(db, po, "paid", why);
}

static int apply_refund(struct db *db, const struct pev *e, struct pay_order *po, struct mark *m,
                        int *changed)
{
	const struct chan_refund *rf = &e->rf;
	struct refund_input in = {0};
	sqlite3_stmt *st;
	char why[400], reason[400];
	int rc, seen;

	*changed = 0;
	if (rf->state != CHAN_REFUND_SUCCEEDED) {
		if (rf->state == CHAN_REFUND_FAILED || rf->state == CHAN_REFUND_CANCELED)
			return refund_failed(db, e, po, m, changed);
		/* not settled at the channel (a bank may take days): not a
		 * failure; followed on the backoff until it settles, and shown
		 * to a person past the horizon (mark_event) */
		m->state = INBOX_FAILED;
		m->waiting = 1;
		m->wait = pipe_rule_backoff(e->attempts + 1, -1, CHAN_RETRY);
		snprintf(m->error, sizeof m->error,
		         _("refund %1$s is %2$s at the channel; asked again in %3$lld s"), rf->id,
		         rf->status, (long long)m->wait);
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
		if (say_dead(
		        m, po,
		        _("refund %s of %lld %s does not fit order %s (%lld %s, %lld refunded): "
		          "not posted, a person must look"),
		        rf->id, (long long)rf->amount, rf->currency, po->order_no,
		        (long long)po->amount, po->currency, (long long)po->refunded))
			return chan_order_save(db, po, why);
		return 0;
	}
	snprintf(reason, sizeof reason, _("refunded at the channel (%s)"), rf->id);
	/* which allocations make room for it is the payment module's decision */
	if ((rc = refund_make_room_in(db, po->payment_id, rf->amount, reason)) != 0)
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
	*changed = 1;
	return order_write(db, po, po->refunded == po->amount ? "refunded" : "refunding", why);
}

/* The order whose channel id at provider is channel_id, else (order_no
 * not NULL or "") the one numbered order_no: *found 1 and *po, or 0. */
static int find_order(struct db *db, const char *provider, const char *channel_id,
                      const char *order_no, struct pay_order *po, int *found)
{
	int rc = chan_order_by_channel(db, provider, channel_id, po);

	if (rc == FD_ENOTFOUND && order_no && *order_no)
		rc = chan_order_get(db, order_no, po);
	*found = rc == 0;
	return rc == FD_ENOTFOUND ? 0 : rc;
}

/* An event that cannot be applied as it stands: of a kind frontdesk does
 * not act on, naming no object, or one the channel could not tell about.
 * Returns 1 when it is one (m says how to mark it), else 0. */
static int apply_unusable(const struct pev *e, struct mark *m)
{
	char buf[600];

	if (e->kind == CHAN_EVENT_OTHER) {
		m->state = INBOX_IGNORED;
		snprintf(m->error, sizeof m->error, _("frontdesk does not act on %s events"),
		         *e->type ? e->type : "?");
		return 1;
	}
	if (!*e->object_id) {
		say_dead(m, NULL, _("the event names no object"));
		return 1;
	}
	if (e->code == CHAN_OK)
		return 0;
	snprintf(buf, sizeof buf, _("the channel could not tell (%s): %s"), chan_code_name(e->code),
	         e->reason);
	if (e->code == CHAN_REFUSED || e->code == CHAN_BADDATA) {
		say_dead(m, NULL, "%s", buf);
		return 1;
	}
	m->state = INBOX_FAILED;
	m->wait = pipe_rule_backoff(e->attempts + 1, e->retry_after, e->code);
	snprintf(m->error, sizeof m->error, "%s", buf);
	return 1;
}

/* An event about an intent whose state is final and already applied:
 * nothing to change, unless the order changed meanwhile. */
static int apply_settled(struct db *db, struct batch *b, const struct pev *e, struct mark *m)
{
	struct pay_order po;
	int rc, found;

	if ((rc = find_order(db, b->o->provider, e->object_id, NULL, &po, &found)) != 0)
		return rc;
	if (!found || !paid_or_closed(po.status))
		return err_set(FD_ECONFLICT, _("the order of intent %s changed meanwhile"),
		               e->object_id);
	m->state = INBOX_IGNORED;
	snprintf(m->error, sizeof m->error,
	         _("nothing to change: order %s is already %s, and the intent's state is "
	           "final (not asked again)"),
	         po.order_no, po.status);
	return 0;
}

/* No order of ours for intent ci (yet): park the event until the batch's
 * park time has passed (now, real clock), then give it up. */
static void apply_no_order(const struct batch *b, const struct pev *e, const struct chan_order *ci,
                           int64_t now, struct mark *m)
{
	int64_t until = inbox_state_of(e->status) == INBOX_PARKED && e->parked_until
	                    ? e->parked_until
	                    : now + b->o->park_seconds;

	if (now >= until) {
		say_dead(m, NULL,
		         _("no card payment order of ours for intent %s (order number '%s') "
		           "after waiting: a person must look"),
		         ci->id, ci->order_no);
		return;
	}
	m->state = INBOX_PARKED;
	m->parked_until = until;
	m->wait = pipe_rule_backoff(e->attempts + 1, -1, CHAN_RETRY);
	snprintf(m->error, sizeof m->error,
	         _("no card payment order of ours for intent %s (order number '%s') yet"), ci->id,
	         ci->order_no);
}

/* Is intent ci another provider's, or another order's, than po? Then m
 * says so (dead) and it returns 1: a foreign event never writes on our
 * order. */
static int apply_foreign(const struct batch *b, const struct chan_order *ci,
                         const struct pay_order *po, struct mark *m)
{
	if (!strcmp(po->provider, b->o->provider) &&
	    !(*po->channel_id && strcmp(po->channel_id, ci->id)) &&
	    !(*ci->order_no && strcmp(ci->order_no, po->order_no)))
		return 0;
	say_dead(m, NULL,
	         _("intent %s (order number '%s') does not belong to order %s (%s %s): "
	           "not posted, a person must look"),
	         ci->id, ci->order_no, po->order_no, po->provider,
	         *po->channel_id ? po->channel_id : "-");
	return 1;
}

/* Does intent ci say another amount, currency or invoice than order po?
 * An amount the channel did not say (an order not paid, at a channel that
 * names only a paid order's) is not compared: it posts nothing. */
static int apply_differs(const struct chan_order *ci, const struct pay_order *po)
{
	return (!ci->amount_unknown &&
	        (strcasecmp(ci->currency, po->currency) || ci->amount != po->amount)) ||
	       (ci->invoice_id && ci->invoice_id != po->invoice_id);
}

/* Give up an event whose intent differs from order po (apply_differs),
 * saving the order's error with why when say_dead asks to. */
static int apply_say_differs(struct db *db, const struct chan_order *ci, struct pay_order *po,
                             const char *why, struct mark *m)
{
	int ok;

	if (ci->invoice_id)
		ok = say_dead(m, po,
		              _("the channel says intent %s is %lld %s for invoice %lld; "
		                "order %s is %lld %s for invoice %lld: not posted, a "
		                "person must look"),
		              ci->id, (long long)ci->amount, ci->currency,
		              (long long)ci->invoice_id, po->order_no, (long long)po->amount,
		              po->currency, (long long)po->invoice_id);
	else
		/* the channel names no invoice: say which order */
		ok = say_dead(m, po,
		              _("the channel says intent %s is %lld %s; order %s is %lld %s: "
		                "not posted, a person must look"),
		              ci->id, (long long)ci->amount, ci->currency, po->order_no,
		              (long long)po->amount, po->currency);
	if (ok)
		return chan_order_save(db, po, why);
	return 0;
}

/* Decide and apply one event; m says how to mark it. A non-zero return is
 * a failure of the database or a refusal of the core: the caller undoes
 * this event's writes and marks it failed. */
static int apply_one(struct db *db, struct batch *b, const struct pev *e, struct mark *m)
{
	const struct chan_order *ci;
	struct pay_order po;
	char buf[600];
	int rc, found, c1 = 0, c2 = 0;
	int64_t now = clock_real();

	m->state = INBOX_PROCESSED;
	if (apply_unusable(e, m))
		return 0;
	if (e->settled)
		return apply_settled(db, b, e, m);
	ci = &b->in[e->ix].o;
	if ((rc = find_order(db, b->o->provider, ci->id, ci->order_no, &po, &found)) != 0)
		return rc;
	if (!found) {
		apply_no_order(b, e, ci, now, m);
		return 0;
	}
	snprintf(buf, sizeof buf, _("channel: %s %s"), e->type, ci->id);
	if (apply_foreign(b, ci, &po, m))
		return 0;
	if (apply_differs(ci, &po))
		return apply_say_differs(db, ci, &po, buf, m);
	if ((rc = apply_intent(db, e, ci, &po, m, &c1)) != 0)
		return rc;
	if (m->state == INBOX_DEAD)
		return 0;
	if (e->kind == CHAN_EVENT_REFUND) {
		if (strcmp(e->rf.order_id, ci->id)) /* cannot happen: asked by it */
			return err_set(FD_EIO, _("the refund's intent changed"));
		if ((rc = apply_refund(db, e, &po, m, &c2)) != 0)
			return rc;
		if (m->state != INBOX_PROCESSED)
			return 0;
	}
	if (!c1 && !c2) {
		m->state = INBOX_IGNORED;
		if (!*m->error)
			snprintf(m->error, sizeof m->error,
			         _("nothing to change: order %s is already %s (a repeated or stale "
			           "event)"),
			         po.order_no, po.status);
	}
	return 0;
}

/* Mark event e as m says (inbox_mark_*), in the batch's transaction;
 * *final (may be NULL) gets the status written. A failed event is given up (dead) only
 * when it fails at least the horizon after it was stored or last retried
 * by a person (pipe_rule_retry_plan), never on a count of attempts. An event
 * about a refund that is merely pending at the channel (m->waiting) is never
 * given up: giving up would lose the refund if the channel's later success
 * event never came. It is asked about on the backoff for as long as the
 * channel says pending, and past the horizon `frontdesk check` names it
 * (channel-refund-stuck) for a person to look at. */
static int mark_event(struct db *db, const struct pev *e, struct mark *m, int *lost,
                      const char **final)
{
	struct inbox_verdict v = {m->state,
	                          m->error,
	                          e->attempts,
	                          m->wait,
	                          m->waiting,
	                          m->parked_until,
	                          m->dead_kind ? m->dead_kind : "transient"};
	int moved = 0, rc = inbox_mark(db, e->id, &v, final, &moved);

	*lost = !rc && !moved;
	return rc;
}

static void count(struct chan_process_result *r, const char *status)
{
	switch (inbox_state_of(status)) {
	case INBOX_PROCESSED:
		r->processed++;
		break;
	case INBOX_IGNORED:
		r->ignored++;
		break;
	case INBOX_PARKED:
		r->parked++;
		break;
	case INBOX_FAILED:
		r->failed++;
		break;
	default:
		r->dead++;
		break;
	}
}

/* Run a savepoint statement sql (a string literal: db_prepare_cached finds
 * it by its address), compiled once per connection: two a event, and
 * compiling them cost more than running them. */
static int savepoint_run(struct db *db, const char *sql)
{
	sqlite3_stmt *st;
	int rc = db_prepare_cached(db, sql, &st);

	return rc ? rc : db_run_cached(db, st, _("cannot apply the inbound event"));
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
		const char *final = NULL;
		struct mark m;

		memset(&m, 0, sizeof m);
		if ((rc = savepoint_run(db, "SAVEPOINT event")) != 0)
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
			m.state = INBOX_FAILED;
			m.wait = pipe_rule_backoff(e->attempts + 1, -1, CHAN_RETRY);
			snprintf(m.error, sizeof m.error, _("cannot apply it: %s"), why);
		}
		if ((rc = mark_event(db, e, &m, &lost, &final)) != 0)
			return rc;
		if (lost) {
			/* a person retried or ignored it meanwhile: keep none of it */
			if ((rc = db_exec(db, "ROLLBACK TO event")) != 0)
				return rc;
		} else {
			count(&add, final);
			if (m.waiting && !strcmp(final, "failed"))
				add.waiting++;
			add.payments += m.payments;
			add.refunds += m.refunds;
		}
		if ((rc = savepoint_run(db, "RELEASE event")) != 0)
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
	r->waiting += a->waiting;
	r->payments += a->payments;
	r->refunds += a->refunds;
	r->calls += a->calls;
	r->queried += a->queried;
}

/* The channel's half of a batch, run in a thread of its own. */
struct asker {
	struct batch *b;
	const struct chan_ops *ops;
	struct chan_ctx *ctx;
	volatile sig_atomic_t *stop;
};

static void *asker_main(void *arg)
{
	struct asker *a = arg;

	ask_channel(a->b, a->ops, a->ctx, a->stop);
	return NULL;
}

static void batch_init(struct batch *b, const struct chan_process_opts *o,
                       const struct control_hold *lease)
{
	memset(b, 0, sizeof *b);
	b->o = o;
	b->lease = lease;
	b->ev = xcalloc((size_t)o->batch, sizeof *b->ev);
	b->in = xcalloc((size_t)o->batch, sizeof *b->in);
}

/* Read the due events after `after` into b and settle what the database
 * says; *n_out is b->n (0: none due). */
static int batch_load(struct db *db, const struct chan_ops *ops, const struct chan_process_opts *o,
                      int all, int64_t after, struct batch *b)
{
	int rc = load_due(db, ops, o, all, after, b);

	if (rc || b->n == 0)
		return rc;
	memset(&b->add, 0, sizeof b->add);
	b->nin = 0;
	ask_settled(db, b);
	return 0;
}

/*
 * Batches are pipelined: while batch k is applied (one write transaction,
 * the database only), the channel is asked about batch k+1 in a second
 * thread (the channel only: ops and ctx, which this thread does not use
 * meanwhile; the thread is joined before anything else touches them), so
 * that the channel's answering time and ours overlap instead of adding up.
 * What is asked and decided is what asking after batch k would give: batch
 * k+1 is read before batch k is applied, but its events are not among batch
 * k's (ids after them), and an order that batch k settled is treated as
 * settled (ask_settled_again). When no thread can be started, batch k+1 is
 * asked after batch k, as before.
 */
int chan_process_due(struct db *db, const struct chan_ops *ops, struct chan_ctx *ctx,
                     const struct chan_process_opts *o, const struct control_hold *lease,
                     volatile sig_atomic_t *stop, int all, struct chan_process_result *r)
{
	struct batch bt[2], *cur = &bt[0], *nxt = &bt[1], *t;
	int64_t after = 0;
	int rc = 0;

	batch_init(cur, o, lease);
	batch_init(nxt, o, lease);
	if (stop_requested(stop) || (rc = batch_load(db, ops, o, all, after, cur)) != 0 ||
	    cur->n == 0)
		goto out;
	after = cur->ev[cur->n - 1].id;
	ask_channel(cur, ops, ctx, stop);
	while (cur->n > 0) {
		struct asker a = {nxt, ops, ctx, stop};
		pthread_t th;
		int64_t next_after = after;
		int have = 0, threaded = 0;

		/* the next batch, asked about while this one is applied; a read
		 * that fails here is tried again below, after this batch */
		if (!stop_requested(stop) && batch_load(db, ops, o, all, after, nxt) == 0 &&
		    nxt->n > 0) {
			have = 1;
			next_after = nxt->ev[nxt->n - 1].id; /* before asking may cut it short */
			threaded = pthread_create(&th, NULL, asker_main, &a) == 0;
		}
		rc = db_write(db, apply_tx, cur);
		if (threaded)
			pthread_join(th, NULL);
		if (rc)
			break;
		result_add(r, &cur->add);
		if (!have) {
			if (stop_requested(stop) ||
			    (rc = batch_load(db, ops, o, all, after, nxt)) != 0 || nxt->n == 0)
				break;
			next_after = nxt->ev[nxt->n - 1].id;
		}
		after = next_after;
		if (threaded)
			ask_settled_again(db, nxt);
		else
			ask_channel(nxt, ops, ctx, stop);
		t = cur;
		cur = nxt;
		nxt = t;
	}
out:
	free(bt[0].ev);
	free(bt[0].in);
	free(bt[1].ev);
	free(bt[1].in);
	return rc;
}

/* ---------------------------------------------------------------- queries */

struct qmark {
	const struct control_hold *lease;
	const struct chan_process_opts *o;
	const struct pay_order *q;
	int asked;                   /* 1: the channel was asked */
	const struct chan_order *ci; /* a final state to store, or NULL */
	int64_t next;
};

/* A final state found by asking, stored as an event of its own, in our
 * own shape (channel.h, chan_found_order). */
static int store_found(struct db *db, const struct chan_process_opts *o,
                       const struct chan_order *ci)
{
	char ext[320], type[80];
	const char *state = chan_order_state_name(ci->state);

	snprintf(ext, sizeof ext, "query:%s:%s", ci->id, state);
	snprintf(type, sizeof type, "%s%s", CHAN_FOUND_ORDER, state);
	return inbox_insert_found(db, o->provider, ext, type, "query", chan_found_order(ci));
}

static int qmark_tx(struct db *db, void *arg)
{
	struct qmark *m = arg;
	int rc;

	if (m->lease && (rc = control_fence(db, m->lease)) != 0)
		return rc;
	if (m->ci && (rc = store_found(db, m->o, m->ci)) != 0)
		return rc;
	return chan_order_note_query(db, m->q->id, m->asked, m->next);
}

int chan_query_due(struct db *db, const struct chan_ops *ops, struct chan_ctx *ctx,
                   const struct chan_process_opts *o, const struct control_hold *lease,
                   volatile sig_atomic_t *stop, int all, struct chan_process_result *r)
{
	enum { MAXQ = 50 };
	struct pay_order *q = xcalloc(MAXQ, sizeof *q);
	int64_t after = 0;
	size_t n, i;
	int rc = 0;

	while (!stop_requested(stop)) {
		if ((rc = chan_order_to_query(db, o->provider, all ? INT64_MAX : clock_real(),
		                              after, q, MAXQ, &n)) != 0 ||
		    n == 0)
			break;
		for (i = 0; i < n && !stop_requested(stop); i++) {
			struct qmark m = {lease, o, &q[i], 0, NULL, 0};
			struct chan_order ci;
			struct chan_status cs;
			int64_t now = clock_real(), d;
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
					int64_t b = pipe_rule_backoff(q[i].query_count + 1,
					                              cs.retry_after, code);

					d = b > d ? b : d;
				} else if (ci.state == CHAN_ORDER_SUCCEEDED ||
				           ci.state == CHAN_ORDER_CANCELED ||
				           ci.state == CHAN_ORDER_DECLINED) {
					/* declined too: a failed attempt found only by
					 * asking (WeChat's PAYERROR) is kept on the order,
					 * which stays open (apply_intent) */
					m.ci = &ci;
				}
				m.next = now + d;
			}
			if ((rc = db_write(db, qmark_tx, &m)) != 0)
				goto out;
		}
		if (n < MAXQ)
			break;
	}
out:
	free(q);
	return rc;
}
