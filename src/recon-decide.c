/*
 * recon-decide.c - a person's decisions on the differences of a reconciliation, and
 * the parked events claimed in it (see recon.h).
 *
 * Permissions: every decision asks recon.decide, first in its transaction;
 * the payments and refunds it records ask nothing more.
 */
#include <config.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chan-order.h"
#include "clock.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "idem.h"
#include "inbox.h"
#include "invoice.h"
#include "money.h"
#include "payment.h"
#include "pipe-provider.h"
#include "recon-int.h"
#include "recon.h"
#include "settings.h"
#include "settle-file.h"
#include "xalloc.h"
/* ------------------------------------------------------------ decisions */

static int note_check(const char *note)
{
	const char *s = note;

	while (s && (*s == ' ' || *s == '\t'))
		s++;
	if (!s || !*s)
		return err_set(FD_EINVAL, _("a decision needs a note saying why (--note)"));
	if (strlen(note) > 1000)
		return err_set(FD_EINVAL, _("the note is too long (at most 1000 bytes)"));
	return 0;
}

/* The open difference id, read inside the transaction. */
static int diff_open(struct db *db, int64_t id, struct recon_diff *d)
{
	int rc = recon_diff_get(db, id, d);

	if (!rc && !recon_diff_is_open(d)) {
		recon_diff_free(d);
		return err_set(FD_ECONFLICT, _("difference %1$lld is resolved already (%2$s)"),
		               (long long)id, d->action);
	}
	return rc;
}

struct accept {
	int64_t id;
	const char *note;
};

/* A person's decision on a difference or a parked event: recon.decide,
 * asked once; the payments and refunds it records (payment_record_in,
 * refund_post_in) ask nothing more. */
static int require_recon(struct db *db, const char *what, int64_t id)
{
	char subject[96];

	snprintf(subject, sizeof subject, "%s %lld", what, (long long)id);
	return control_require(db, PERM_RECON, 0, subject);
}

static int accept_tx(struct db *db, void *arg)
{
	struct accept *a = arg;
	struct recon_diff d;
	int rc;

	if ((rc = require_recon(db, "accept difference", a->id)) != 0)
		return rc;
	if ((rc = diff_open(db, a->id, &d)) != 0)
		return rc;
	recon_diff_free(&d);
	return recon_resolution_write(db, a->id, "accept", a->note, 0, 0, 0);
}

int recon_accept(struct db *db, int64_t id, const char *note)
{
	struct accept a = {id, note};
	int rc;

	if ((rc = note_check(note)) != 0)
		return rc;
	return db_write(db, accept_tx, &a);
}

/* Read "INVOICE[:AMOUNT]" texts into allocations in currency cur; an
 * amount left out is what the invoice owes, at most what is left of
 * amount. *customer gets the first invoice's customer when it is 0. */
static int allocs_read(struct db *db, const struct recon_pay *p, const char *cur, int64_t amount,
                       int64_t *customer, struct alloc_input **out)
{
	size_t i;
	int64_t left = amount;
	int rc = 0;

	*out = p->n ? xcalloc(p->n, sizeof **out) : NULL;
	for (i = 0; i < p->n && !rc; i++) {
		const char *t = p->invoices[i], *colon = strrchr(t, ':');
		char inv[64];
		struct invoice iv;

		snprintf(inv, sizeof inv, "%.*s", colon ? (int)(colon - t) : (int)strlen(t), t);
		if ((rc = invoice_find(db, inv, &(*out)[i].invoice_id)) != 0)
			break;
		if ((rc = invoice_get(db, (*out)[i].invoice_id, &iv)) != 0)
			break;
		if (!*customer)
			*customer = iv.customer_id;
		if (colon) {
			char buf[128];

			snprintf(buf, sizeof buf, "%s=%s", inv, colon + 1);
			rc = alloc_read(db, buf, cur, &(*out)[i]);
		} else {
			(*out)[i].amount = iv.balance < left ? iv.balance : left;
			if ((*out)[i].amount <= 0)
				rc = err_set(
				    FD_EINVAL,
				    _("invoice %1$s owes nothing, or nothing is left of the "
				      "payment for it: give an amount (%2$s:AMOUNT)"),
				    inv, inv);
		}
		invoice_free(&iv);
		if (!rc)
			left -= (*out)[i].amount;
	}
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

/* What a payment recorded from the channel's data is. */
struct chanpay {
	const char *provider;
	const char *channel_ref; /* the channel's order id (else the line's source) */
	const char *line_id;     /* NULL for a claimed event */
	const char *order_no;    /* ours as the channel keeps it, "" */
	int64_t amount;
	const char *currency;
	int64_t received_at;
	int64_t diff_id, event_id;
	const struct recon_pay *p;
	int64_t payment_id; /* out */
	int replayed;       /* out */
};

/* Is c recorded already (a reconciliation_payment row for its channel
 * reference or line)? Then c->payment_id and c->replayed = 1. */
static int chanpay_known(struct db *db, struct chanpay *c)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(
	    db,
	    "SELECT payment_id FROM reconciliation_payment WHERE provider_code = ?1"
	    " AND (channel_ref = ?2 OR line_id = ?3)",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, c->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, c->channel_ref, -1, SQLITE_STATIC);
	if (c->line_id)
		sqlite3_bind_text(st, 3, c->line_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		c->payment_id = sqlite3_column_int64(st, 0);
		c->replayed = 1;
	}
	db_release(db, st);
	return 0;
}

/* Our card payment order for c, if any, into *po (*have_po = 1): already
 * paid by the worker (c->replayed), or refused when its amount or currency
 * differ; *customer (when 0) gets its customer. */
static int chanpay_order(struct db *db, struct chanpay *c, struct pay_order *po, int *have_po,
                         int64_t *customer)
{
	*have_po = chan_order_by_channel(db, c->provider, c->channel_ref, po) == 0 ||
	           (*c->order_no && chan_order_get(db, c->order_no, po) == 0 &&
	            !strcmp(po->provider, c->provider));
	if (!*have_po)
		return 0;
	if (po->payment_id) {
		/* the worker posted it meanwhile */
		c->payment_id = po->payment_id;
		c->replayed = 1;
		return 0;
	}
	if (po->amount != c->amount || strcasecmp(po->currency, c->currency)) {
		char a[MONEY_BUFSZ], b[MONEY_BUFSZ];

		return err_set(
		    FD_EINVAL,
		    _("the channel shows %1$s %2$s for our card payment order %3$s, which "
		      "is for %4$s %5$s: not recorded; accept the difference with a note "
		      "and settle it by hand"),
		    money_text(c->amount, c->currency, 0, a), c->currency, po->order_no,
		    money_text(po->amount, po->currency, 0, b), po->currency);
	}
	if (!*customer)
		*customer = po->customer_id;
	return 0;
}

/* With no invoice named, the order's invoice: what it owes, at most the
 * payment, when that is more than 0. */
static void chanpay_order_invoice(struct db *db, const struct chanpay *c, int64_t invoice_id,
                                  struct alloc_input **al, size_t *nal)
{
	struct invoice iv;
	struct alloc_input one;

	if (invoice_get(db, invoice_id, &iv) != 0)
		return;
	one.invoice_id = invoice_id;
	one.amount = iv.balance < c->amount ? iv.balance : c->amount;
	invoice_free(&iv);
	if (one.amount > 0) {
		*al = xcalloc(1, sizeof **al);
		(*al)[0] = one;
		*nal = 1;
	}
}

/* The allocations of c's payment (*al, *nal; the caller frees *al): the
 * invoices named, else the order's (po, may be NULL); refused when whose
 * payment it is stays unknown. */
static int chanpay_allocs(struct db *db, const struct chanpay *c, const struct pay_order *po,
                          int64_t *customer, struct alloc_input **al, size_t *nal)
{
	int rc;

	if ((rc = allocs_read(db, c->p, c->currency, c->amount, customer, al)) != 0)
		return rc;
	*nal = c->p->n;
	if (!*nal && po && po->invoice_id)
		chanpay_order_invoice(db, c, po->invoice_id, al, nal);
	if (!*customer) {
		free(*al);
		*al = NULL;
		return err_set(FD_EINVAL,
		               _("say whose payment it is: --customer C or --invoice INV"));
	}
	return 0;
}

/* Record c's payment of customer, allocated as al says. */
static int chanpay_record(struct db *db, struct chanpay *c, int64_t customer,
                          const struct alloc_input *al, size_t nal)
{
	struct payment_input in = {0};
	char note[300];

	snprintf(note, sizeof note, _("recorded from the channel's data (%1$s %2$s)"), c->provider,
	         c->line_id ? c->line_id : c->channel_ref);
	in.customer_id = customer;
	in.currency = c->currency;
	in.amount = c->amount;
	in.method = "card";
	in.reference = strlen(c->channel_ref) <= 100 ? c->channel_ref : NULL;
	in.received_at = c->received_at > clock_now() ? 0 : c->received_at;
	in.note = note;
	in.channel_ref = 1;
	return payment_record_in(db, &in, al, nal, &c->payment_id);
}

/* Our open card payment order po is paid by c's payment. */
static int chanpay_order_paid(struct db *db, const struct chanpay *c, struct pay_order *po)
{
	char why[300];

	snprintf(why, sizeof why, _("reconciliation: recorded from the channel's data"));
	if (!*po->channel_id)
		snprintf(po->channel_id, sizeof po->channel_id, "%s", c->channel_ref);
	po->payment_id = c->payment_id;
	return chan_order_move(db, po, "paid", why);
}

/* The reconciliation_payment row that ties c's channel data to its payment. */
static int chanpay_link(struct db *db, const struct chanpay *c)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(db,
	                       "INSERT INTO reconciliation_payment (provider_code, channel_ref,"
	                       " line_id, payment_id, diff_id, event_id, operator_id, created_at)"
	                       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, c->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, c->channel_ref, -1, SQLITE_STATIC);
	if (c->line_id)
		sqlite3_bind_text(st, 3, c->line_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, c->payment_id);
	if (c->diff_id)
		sqlite3_bind_int64(st, 5, c->diff_id);
	if (c->event_id)
		sqlite3_bind_int64(st, 6, c->event_id);
	sqlite3_bind_text(st, 7, db_operator(), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, clock_now());
	return db_run_cached(db, st, _("recording the payment's channel data"));
}

/* INSIDE the caller's transaction: record the payment of c once (see
 * recon.h), or find it recorded already (c->replayed). */
static int chanpay_in(struct db *db, struct chanpay *c)
{
	struct pay_order po;
	int have_po = 0, rc;
	struct alloc_input *al = NULL;
	size_t nal = 0;
	int64_t customer = c->p->customer_id;
	char key[300], canon[600], hash[65], *stored = NULL;

	c->replayed = 0;
	if ((rc = chanpay_known(db, c)) != 0 || c->replayed)
		return rc;
	if ((rc = chanpay_order(db, c, &po, &have_po, &customer)) != 0 || c->replayed)
		return rc;
	if (c->amount <= 0)
		return err_set(FD_EINVAL,
		               _("the channel's line is not money received (%lld): "
		                 "nothing to record"),
		               (long long)c->amount);
	if ((rc = chanpay_allocs(db, c, have_po ? &po : NULL, &customer, &al, &nal)) != 0)
		return rc;
	snprintf(key, sizeof key, "recon:pay:%s:%s", c->provider, c->channel_ref);
	snprintf(canon, sizeof canon, "customer=%lld\namount=%lld\ncurrency=%s\nref=%s\n",
	         (long long)customer, (long long)c->amount, c->currency, c->channel_ref);
	if ((rc = idem_hash(canon, hash)) != 0)
		goto out;
	rc = idem_enter(db, key, "recon pay", hash, &stored);
	if (rc == IDEM_REPLAY) {
		c->payment_id = stored ? strtoll(stored, NULL, 10) : 0;
		c->replayed = 1;
		rc = c->payment_id ? 0 : err_set(FD_EDB, _("the recorded payment cannot be read"));
		goto out;
	}
	if (rc)
		goto out;
	if ((rc = chanpay_record(db, c, customer, al, nal)) != 0)
		goto out;
	if (have_po && chan_order_is_open(po.status) && (rc = chanpay_order_paid(db, c, &po)) != 0)
		goto out;
	if ((rc = chanpay_link(db, c)) != 0)
		goto out;
	snprintf(canon, sizeof canon, "%lld", (long long)c->payment_id);
	rc = idem_finish(db, key, "recon pay", hash, canon);
out:
	free(stored);
	free(al);
	return rc;
}

struct record {
	int64_t id;
	const struct recon_pay *p;
	int64_t payment_id;
	int replayed;
};

static int record_tx(struct db *db, void *arg)
{
	struct record *x = arg;
	struct recon_diff d;
	struct chan_settle_line l;
	struct chanpay c = {0};
	int rc;

	if ((rc = require_recon(db, "record as a payment difference", x->id)) != 0)
		return rc;
	if ((rc = diff_open(db, x->id, &d)) != 0)
		return rc;
	if (strcmp(d.kind, "channel_only")) {
		rc = err_set(
		    FD_EINVAL,
		    _("difference %1$lld is %2$s: only a channel_only charge is recorded as a "
		      "payment (use --accept or --correct)"),
		    (long long)x->id, d.kind);
		goto out;
	}
	if ((rc = recon_line_parse(d.line_data, &l)) != 0)
		goto out;
	if (l.kind != CHAN_SETTLE_CHARGE) {
		rc = err_set(
		    FD_EINVAL,
		    _("difference %1$lld is a channel %2$s, not money received: use --accept"),
		    (long long)x->id, recon_kind_name(l.kind));
		goto out;
	}
	c.provider = d.provider;
	c.channel_ref = *l.order_id ? l.order_id : *l.source ? l.source : l.id;
	c.line_id = l.id;
	c.order_no = l.order_no;
	c.amount = l.amount;
	c.currency = l.currency;
	c.received_at = l.created;
	c.diff_id = x->id;
	c.p = x->p;
	if ((rc = chanpay_in(db, &c)) != 0)
		goto out;
	x->payment_id = c.payment_id;
	x->replayed = c.replayed;
	rc = recon_resolution_write(db, x->id, "record_payment", x->p->note, c.payment_id, 0, 0);
out:
	recon_diff_free(&d);
	return rc;
}

int recon_record(struct db *db, int64_t id, const struct recon_pay *p, int64_t *payment_id,
                 int *replayed)
{
	struct record x = {id, p, 0, 0};
	int rc;

	if ((rc = note_check(p->note)) != 0)
		return rc;
	rc = db_write(db, record_tx, &x);
	if (rc == FD_ECONFLICT) {
		/* resolved already: by this same recording (a second resolve)? */
		struct recon_diff d;

		if (recon_diff_get(db, id, &d) == 0) {
			if (!strcmp(d.action, "record_payment")) {
				x.payment_id = d.res_payment_id;
				x.replayed = 1;
				rc = 0;
			}
			recon_diff_free(&d);
		}
	}
	if (payment_id)
		*payment_id = x.payment_id;
	if (replayed)
		*replayed = x.replayed;
	return rc;
}

int recon_record_guess(struct db *db, int64_t id, struct recon_guess *out)
{
	struct recon_diff d;
	struct chan_settle_line l;
	struct pay_order po;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = recon_diff_get(db, id, &d)) != 0)
		return rc;
	if (strcmp(d.kind, "channel_only")) {
		rc = err_set(FD_EINVAL,
		             _("difference %1$lld is %2$s: only a channel_only charge is recorded "
		               "as a payment"),
		             (long long)id, d.kind);
		goto out;
	}
	if ((rc = recon_line_parse(d.line_data, &l)) != 0)
		goto out;
	if (l.kind != CHAN_SETTLE_CHARGE) {
		rc =
		    err_set(FD_EINVAL, _("difference %1$lld is a channel %2$s, not money received"),
		            (long long)id, recon_kind_name(l.kind));
		goto out;
	}
	out->amount = l.amount;
	snprintf(out->currency, sizeof out->currency, "%s", l.currency);
	if ((*l.order_id && chan_order_by_channel(db, d.provider, l.order_id, &po) == 0) ||
	    (*l.order_no && chan_order_get(db, l.order_no, &po) == 0 &&
	     !strcmp(po.provider, d.provider))) {
		struct invoice iv;

		snprintf(out->order_no, sizeof out->order_no, "%s", po.order_no);
		out->customer_id = po.customer_id;
		out->paid = po.payment_id != 0;
		if (po.invoice_id && invoice_get(db, po.invoice_id, &iv) == 0) {
			out->invoice_id = po.invoice_id;
			snprintf(out->invoice, sizeof out->invoice, "%s", iv.number);
			invoice_free(&iv);
		}
	}
out:
	recon_diff_free(&d);
	return rc;
}

struct correct {
	int64_t id;
	const struct recon_pay *p;
	int64_t payment_id, refund_id;
};

/* Refund amount of payment pay_id as a correcting entry (the channel's
 * refund id as reference when known). */
static int correct_refund(struct db *db, int64_t pay_id, int64_t amount, const char *ref,
                          const char *note, int64_t *refund_id)
{
	struct refund_input in = {0};
	char reason[400];
	int rc;

	snprintf(reason, sizeof reason, _("reconciliation: %s"), note);
	if ((rc = refund_make_room_in(db, pay_id, amount, reason)) != 0)
		return rc;
	in.payment_id = pay_id;
	in.amount = amount;
	in.method = "card";
	in.reference = ref && *ref && strlen(ref) <= 100 ? ref : NULL;
	in.reason = reason;
	in.channel_ref = 1;
	return refund_post_in(db, &in, refund_id);
}

/* A refund the desk did not know (line l of difference d): record it, and
 * our card payment order follows. */
static int correct_unknown_refund(struct db *db, struct correct *x, const struct recon_diff *d,
                                  const struct chan_settle_line *l)
{
	struct pay_order po;
	int rc;

	if ((rc = correct_refund(db, d->payment_id, -l->amount, l->refund_id, x->p->note,
	                         &x->refund_id)) != 0)
		return rc;
	if (chan_order_of_payment(db, d->payment_id, &po) == 0 && chan_order_is_paid(po.status) &&
	    po.refunded - l->amount <= po.amount) {
		po.refunded -= l->amount;
		rc = chan_order_move(db, &po, po.refunded == po.amount ? "refunded" : "refunding",
		                     _("reconciliation: a refund the channel made"));
		if (rc == FD_ECONFLICT && pay_order_state_of(po.status) == PAY_ORDER_REFUNDING)
			rc = chan_order_save(db, &po, NULL);
	}
	return rc;
}

/* The channel got delta more than payment pay: record it as a payment of
 * the same customer and currency, allocated as x->p says. */
static int correct_more(struct db *db, struct correct *x, const struct payment *pay, int64_t delta)
{
	struct payment_input in = {0};
	struct alloc_input *al = NULL;
	int64_t customer = pay->customer_id;
	int rc;

	rc = allocs_read(db, x->p, pay->currency, delta, &customer, &al);
	if (!rc) {
		in.customer_id = pay->customer_id;
		in.currency = pay->currency;
		in.amount = delta;
		in.method = "card";
		in.note = x->p->note;
		rc = payment_record_in(db, &in, al, x->p->n, &x->payment_id);
	}
	free(al);
	return rc;
}

/* The channel and the desk differ in amount: refund what the desk has too
 * much, or record what it has too little. */
static int correct_amount(struct db *db, struct correct *x, const struct recon_diff *d)
{
	int64_t delta = d->channel_amount - d->local_amount;
	struct payment pay;
	int rc;

	if ((rc = payment_get(db, d->payment_id, &pay)) != 0)
		return rc;
	if (delta < 0)
		rc = correct_refund(db, d->payment_id, -delta, NULL, x->p->note, &x->refund_id);
	else
		rc = correct_more(db, x, &pay, delta);
	payment_free(&pay);
	return rc;
}

/* A payment the channel does not have: refund what is left of it. */
static int correct_local_only(struct db *db, struct correct *x, const struct recon_diff *d)
{
	struct payment pay;
	int rc;

	if ((rc = payment_get(db, d->payment_id, &pay)) != 0)
		return rc;
	rc = correct_refund(db, d->payment_id, pay.amount - pay.refunded, NULL, x->p->note,
	                    &x->refund_id);
	payment_free(&pay);
	return rc;
}

static int correct_tx(struct db *db, void *arg)
{
	struct correct *x = arg;
	struct recon_diff d;
	struct chan_settle_line l;
	int rc, have_line;

	if ((rc = require_recon(db, "correct difference", x->id)) != 0)
		return rc;
	if ((rc = diff_open(db, x->id, &d)) != 0)
		return rc;
	have_line = d.line_data && recon_line_parse(d.line_data, &l) == 0;
	if (!strcmp(d.kind, "status_mismatch") && have_line && l.kind == CHAN_SETTLE_REFUND &&
	    !d.refund_id && d.payment_id)
		rc = correct_unknown_refund(db, x, &d, &l);
	else if (!strcmp(d.kind, "amount_mismatch") && !d.refund_id && d.has_local && d.has_channel)
		rc = correct_amount(db, x, &d);
	else if (!strcmp(d.kind, "local_only") && !d.refund_id && d.payment_id)
		rc = correct_local_only(db, x, &d);
	else
		rc =
		    err_set(FD_EINVAL,
		            _("no correcting entry fits difference %1$lld (%2$s): accept it with a "
		              "note (--accept), or record a channel charge (--record)"),
		            (long long)x->id, d.kind);
	if (rc)
		goto out;
	rc = recon_resolution_write(db, x->id, "correcting_entry", x->p->note, x->payment_id,
	                            x->refund_id, 0);
out:
	recon_diff_free(&d);
	return rc;
}

int recon_correct(struct db *db, int64_t id, const struct recon_pay *p, int64_t *payment_id,
                  int64_t *refund_id)
{
	struct correct x = {id, p, 0, 0};
	int rc;

	if ((rc = note_check(p->note)) != 0)
		return rc;
	rc = db_write(db, correct_tx, &x);
	if (payment_id)
		*payment_id = x.payment_id;
	if (refund_id)
		*refund_id = x.refund_id;
	return rc;
}

/* ------------------------------------------------------------ parked events */

int recon_parked_list(struct db *db, const char *provider,
                      int (*cb)(const struct recon_parked *e, void *arg), void *arg)
{
	sqlite3_stmt *st;
	struct recon_parked e;
	int rc, step;

	rc = db_prepare(
	    db,
	    "SELECT id, source_system, external_id, coalesce(event_type, ''),"
	    " coalesce(object_id, ''), status, coalesce(channel_created_at, 0),"
	    " received_at, payload, coalesce(last_error, '') FROM inbound_callback"
	    " WHERE (status = 'parked' OR (status = 'dead' AND parked_until IS NOT NULL))"
	    " AND integration_type = 'payment' AND (?1 IS NULL OR source_system = ?1) ORDER BY id",
	    &st);
	if (rc)
		return rc;
	if (provider)
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&e, 0, sizeof e);
		e.id = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, e.source, sizeof e.source);
		dbrow_copy(st, 2, e.external_id, sizeof e.external_id);
		dbrow_copy(st, 3, e.event_type, sizeof e.event_type);
		dbrow_copy(st, 4, e.object_id, sizeof e.object_id);
		dbrow_copy(st, 5, e.status, sizeof e.status);
		e.channel_created_at = sqlite3_column_int64(st, 6);
		e.received_at = sqlite3_column_int64(st, 7);
		e.payload = sqlite3_column_blob(st, 8);
		e.len = (size_t)sqlite3_column_bytes(st, 8);
		dbrow_copy(st, 9, e.last_error, sizeof e.last_error);
		rc = cb(&e, arg);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("reading the parked events"));
	sqlite3_finalize(st);
	return rc;
}

struct claim {
	int64_t event_id;
	const struct inbox_event *ev;
	const struct chan_order *o;
	const struct recon_pay *p;
	int64_t payment_id;
	int replayed;
};

static int claim_tx(struct db *db, void *arg)
{
	struct claim *x = arg;
	struct chanpay c = {0};
	char why[400];
	int rc;

	if ((rc = require_recon(db, "claim parked event", x->event_id)) != 0)
		return rc;
	c.provider = x->ev->source;
	c.channel_ref = x->o->id;
	c.order_no = x->o->order_no;
	c.amount = x->o->amount_received;
	c.currency = x->o->currency;
	c.received_at = x->o->created;
	c.event_id = x->event_id;
	c.p = x->p;
	if ((rc = chanpay_in(db, &c)) != 0)
		return rc;
	x->payment_id = c.payment_id;
	x->replayed = c.replayed;
	snprintf(why, sizeof why, _("claimed for customer %1$lld: payment %2$lld (%3$s)"),
	         (long long)x->p->customer_id, (long long)c.payment_id, x->p->note);
	db_set_reason(db, why);
	rc = inbox_mark_claimed(db, x->event_id, why, NULL);
	db_set_reason(db, NULL);
	return rc;
}

/* The payment a processed event was claimed as, 0 when it was not. */
static int64_t claimed_payment(struct db *db, int64_t event_id)
{
	sqlite3_stmt *st;
	int64_t id = 0;

	if (db_prepare_cached(
	        db, "SELECT payment_id FROM reconciliation_payment WHERE event_id = ?1", &st))
		return 0;
	sqlite3_bind_int64(st, 1, event_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	db_release(db, st);
	return id;
}

int recon_claim(struct db *db, struct pipe_conn *conn, int64_t event_id, const struct recon_pay *p,
                int64_t *payment_id, int *replayed)
{
	struct inbox_event ev;
	struct chan_order o;
	struct chan_status st;
	struct claim x = {0};
	enum inbox_state evs;
	int rc, code;

	*payment_id = 0;
	*replayed = 0;
	if ((rc = note_check(p->note)) != 0)
		return rc;
	if (p->customer_id <= 0)
		return err_set(FD_EINVAL, _("say whose payment it is: --customer C"));
	if ((rc = inbox_get(db, event_id, &ev)) != 0)
		return rc;
	evs = inbox_state_of(ev.status);
	if (evs == INBOX_PROCESSED && (*payment_id = claimed_payment(db, event_id))) {
		*replayed = 1;
		goto out;
	}
	if (evs != INBOX_PARKED && evs != INBOX_DEAD) {
		rc = err_set(FD_ECONFLICT, _("event %1$lld is %2$s, not parked: nothing to claim"),
		             (long long)event_id, ev.status);
		goto out;
	}
	if (strcmp(ev.source, conn->p.code)) {
		rc = err_set(FD_EINVAL, _("event %1$lld is of %2$s, not of %3$s"),
		             (long long)event_id, ev.source, conn->p.code);
		goto out;
	}
	if (!ev.object_id || !*ev.object_id) {
		rc = err_set(FD_EINVAL, _("event %lld names no order of the channel"),
		             (long long)event_id);
		goto out;
	}
	memset(&st, 0, sizeof st);
	code = conn->ops->query_order(conn->ctx, ev.object_id, &o, &st);
	if (code != CHAN_OK) {
		rc = err_set(code == CHAN_NOTFOUND ? FD_ENOTFOUND : FD_EIO,
		             _("the channel could not say what order %1$s is (%2$s): %3$s"),
		             ev.object_id, chan_code_name(code), st.reason[0] ? st.reason : "-");
		goto out;
	}
	if (o.state != CHAN_ORDER_SUCCEEDED || o.amount_received <= 0) {
		rc = err_set(FD_EINVAL,
		             _("the channel says order %1$s is %2$s: no money to record for it"),
		             o.id, o.status);
		goto out;
	}
	x.event_id = event_id;
	x.ev = &ev;
	x.o = &o;
	x.p = p;
	rc = db_write(db, claim_tx, &x);
	*payment_id = x.payment_id;
	*replayed = x.replayed;
out:
	inbox_event_free(&ev);
	return rc;
}

int recon_auto_day(struct db *db, const char *provider, char day[11])
{
	long hour = config_get_int("recon_auto_hour", -1);
	int64_t now = clock_now(), today = clock_day_start(now);
	sqlite3_stmt *st;
	char buf[11];
	int done = 0;

	if (hour < 0 || hour > 23 || now < today + hour * 3600)
		return 0;
	clock_format_local(clock_add_days(today, -1), "%Y-%m-%d", buf, sizeof buf);
	if (db_prepare_cached(db,
	                      "SELECT 1 FROM reconciliation_batch WHERE provider_code = ?1"
	                      " AND business_day = ?2 AND status = 'done'",
	                      &st))
		return 0;
	sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, buf, -1, SQLITE_STATIC);
	done = sqlite3_step(st) == SQLITE_ROW;
	db_release(db, st);
	if (done)
		return 0;
	snprintf(day, 11, "%s", buf);
	return 1;
}
