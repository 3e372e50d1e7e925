/*
 * form-refund.c - refund (part of) a payment. The amount defaults to what
 * is unallocated (a refund never takes allocated money: reverse
 * allocations first); a reason is required; the person confirms with `y`.
 *
 * A card payment that came from the payment channel (the payment of a
 * pay_order) is refunded through the channel instead: the form asks for the
 * amount only (default: what is left after the refunds already asked for),
 * and posting writes a "refund.create" command, no refund row. Which way a
 * payment is refunded is the core's decision (refund_request, the same call
 * `frontdesk refund` makes); the form only shows and asks. The channel worker sends it; the refund
 * row is posted, with the allocations reversed as far as needed, when the channel says the refund
 * succeeded. The call carries the form's idempotency key and, like
 * form-charge.c, the form calls it at most once unless it was refused and
 * wrote nothing.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chan-order.h"
#include "err.h"
#include "fmt.h"
#include "form.h"
#include "i18n.h"
#include "money.h"
#include "payment.h"
#include "refund-route.h"
#include "text.h"
#include "views.h"
#include "words.h"
#include "xalloc.h"

enum { R_AMOUNT = 1, R_METHOD, R_REFERENCE, R_REASON };

struct refst {
	struct payment p;
	int64_t amount;     /* parsed by check */
	struct pay_order o; /* channel: its card order */
	int64_t left;       /* channel: what may still be asked for */
	int64_t asked;      /* channel: what the refunds asked cover */
	int called;         /* channel: refund_request may have written */
};

static int chan_check(struct form *f)
{
	struct refst *rs = f->arg;
	const struct currency *cur = currency_find(rs->p.currency);
	int k = form_find(f, R_AMOUNT);
	char m[FMT_MONEY];

	if (!*form_value(f, k)) {
		form_error(f, k, "%s", _("required"));
		return 1;
	}
	if (!cur || money_parse(form_value(f, k), cur, &rs->amount)) {
		form_error(f, k, "%s", err_msg());
		return 1;
	}
	if (rs->amount <= 0) {
		form_error(f, k, "%s", _("must be more than zero"));
		return 1;
	}
	if (rs->amount > rs->left) {
		form_error(f, k, _("at most %s: what is left after the refunds already asked for"),
		           fmt_money(rs->left, rs->p.currency, m));
		return 1;
	}
	return 0;
}

/* Checked as it is typed: the reason shows beside the field at once. */
static void chan_changed(struct form *f, int i)
{
	if (i >= 0 && f->fields[i].id == R_AMOUNT && *form_value(f, i))
		chan_check(f);
}

static void chan_confirm(struct form *f, char *buf, size_t n)
{
	struct refst *rs = f->arg;
	char m[FMT_MONEY];

	snprintf(buf, n,
	         _("Ask the payment channel to give back %1$s of payment %2$lld (card order %3$s) "
	           "to %4$s?"),
	         fmt_money_cur(rs->amount, rs->p.currency, m), (long long)rs->p.id, rs->o.order_no,
	         rs->p.customer_name);
}

static int chan_post(struct form *f)
{
	struct refst *rs = f->arg;
	struct refund_input in = {0};
	struct refund_outcome out;
	char m[FMT_MONEY];
	int rc;

	if (rs->called)
		return err_set(FD_ECONFLICT,
		               _("this form already asked once: close it and look at the payment's "
		                 "refunds and the dead letters before asking again"));
	in.payment_id = rs->p.id;
	in.amount = rs->amount;
	in.reason = _("refund through the payment channel");
	rc = refund_request(ui_db(), &in, form_key(f), &out);
	if (rc == 0 || (rc != FD_EINVAL && rc != FD_ENOTFOUND && rc != FD_ECONFLICT))
		rs->called = 1;
	if (rc)
		return rc;
	if (out.route != REFUND_THROUGH_CHANNEL) /* the core decides; it cannot change under us */
		return err_set(FD_ECONFLICT, _("payment %lld is no longer a channel payment"),
		               (long long)rs->p.id);
	f->posted_id = out.id;
	form_receipt(f,
	             _("Refund of %1$s asked of the payment channel for card order %2$s; the "
	               "channel worker sends it."),
	             fmt_money_cur(rs->amount, rs->p.currency, m), rs->o.order_no);
	form_receipt(f, "%s",
	             _("The refund is posted to the payment when the channel says it succeeded."));
	return 0;
}

static int ref_check(struct form *f)
{
	struct refst *rs = f->arg;
	const struct currency *cur = currency_find(rs->p.currency);
	int k = form_find(f, R_AMOUNT), errors = 0;
	char m[FMT_MONEY];

	if (!cur || money_parse(form_value(f, k), cur, &rs->amount)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	} else if (rs->amount <= 0) {
		form_error(f, k, "%s", _("must be more than zero"));
		errors++;
	} else if (rs->amount > rs->p.unallocated) {
		form_error(f, k, _("at most the unallocated %s: reverse allocations first"),
		           fmt_money(rs->p.unallocated, rs->p.currency, m));
		errors++;
	}
	k = form_find(f, R_REFERENCE);
	if (text_check(form_value(f, k), _("the reference"), 200, 1)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	}
	k = form_find(f, R_REASON);
	if (!*form_value(f, k)) {
		form_error(f, k, "%s", _("required"));
		errors++;
	} else if (text_check(form_value(f, k), _("the reason"), 400, 0)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	}
	return errors;
}

static void ref_confirm(struct form *f, char *buf, size_t n)
{
	struct refst *rs = f->arg;
	char m[FMT_MONEY];

	snprintf(buf, n, _("Give back %1$s of payment %2$lld to %3$s?"),
	         fmt_money_cur(rs->amount, rs->p.currency, m), (long long)rs->p.id,
	         rs->p.customer_name);
}

static int ref_post(struct form *f)
{
	struct refst *rs = f->arg;
	struct refund_input in = {0};
	struct refund_outcome res;
	const char *ref = form_value(f, form_find(f, R_REFERENCE));
	char m[FMT_MONEY];
	int rc;

	in.payment_id = rs->p.id;
	in.amount = rs->amount;
	in.method = form_value(f, form_find(f, R_METHOD));
	in.reference = *ref ? ref : NULL;
	in.reason = form_value(f, form_find(f, R_REASON));
	rc = refund_request(ui_db(), &in, form_key(f), &res);
	if (rc)
		return rc;
	if (res.route != REFUND_AT_DESK) /* became a channel payment meanwhile: cannot happen */
		return err_set(FD_ECONFLICT, _("payment %lld is refunded through the channel"),
		               (long long)rs->p.id);
	f->posted_id = res.id;
	form_receipt(f, _("Refund R%1$lld posted: %2$s of payment %3$lld given back to %4$s."),
	             (long long)res.id, fmt_money_cur(rs->amount, rs->p.currency, m),
	             (long long)rs->p.id, rs->p.customer_name);
	return 0;
}

static void ref_free_state(struct refst *rs)
{
	payment_free(&rs->p);
	free(rs);
}

static void ref_free(struct form *f)
{
	ref_free_state(f->arg);
}

static const struct form_spec ref_spec = {
    .name = "refund",
    .check = ref_check,
    .post = ref_post,
    .confirm = ref_confirm,
    .free = ref_free,
    .help = N_("A refund gives back money that is not allocated to any invoice. To refund "
               "money allocated to an invoice, reverse that allocation first."),
};

static const struct form_spec chan_spec = {
    .name = "refund-channel",
    .check = chan_check,
    .post = chan_post,
    .changed = chan_changed,
    .confirm = chan_confirm,
    .free = ref_free,
    .help = N_("This card payment came from the payment channel: the refund goes through the "
               "channel. Enter and y write the command that asks for it; the channel worker "
               "sends it, and the refund is posted (the payment's allocations reversed as far "
               "as needed) when the channel says it succeeded."),
};

/* The form of a payment that came from the channel (rs->o is its order). */
static struct view *chan_form(struct refst *rs)
{
	struct form *f;
	char title[200], m[FMT_MONEY], m2[FMT_MONEY], info[300];
	int k;

	if (chan_order_may_refund(&rs->o) != 0) {
		ui_msg(MSG_ERROR, "%s.", err_msg());
		ref_free_state(rs);
		return NULL;
	}
	snprintf(title, sizeof title,
	         _("Refund through the payment channel: payment %1$lld (%2$s)"),
	         (long long)rs->p.id, rs->p.customer_name);
	f = form_new(&chan_spec, rs, title);
	snprintf(info, sizeof info, _("card order %1$s, %2$s"), rs->o.order_no,
	         fmt_money_cur(rs->o.amount, rs->o.currency, m));
	form_add(f, F_INFO, 0, _("Through the channel:"), info);
	snprintf(info, sizeof info, _("%1$s (refunds asked for so far: %2$s)"),
	         fmt_money_cur(rs->left, rs->p.currency, m),
	         fmt_money(rs->asked, rs->p.currency, m2));
	form_add(f, F_INFO, 0, _("Left to refund:"), info);
	k = form_add(f, F_TEXT, R_AMOUNT, _("Amount to give back"),
	             rs->left > 0 ? fmt_money(rs->left, rs->p.currency, m) : "");
	f->fields[k].width = 16;
	if (rs->left <= 0)
		form_error(f, k, "%s", _("all of it is refunded or asked for already"));
	return form_view(f);
}

struct view *form_refund_new(int64_t payment_id)
{
	struct refst *rs;
	struct form *f;
	char title[200], m[FMT_MONEY], info[200];
	enum refund_route route;
	int k, rc;

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	rs = xcalloc(1, sizeof *rs);
	if (payment_get(ui_db(), payment_id, &rs->p) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read payment %1$lld: %2$s"), (long long)payment_id,
		       err_msg());
		free(rs);
		return NULL;
	}
	/* the core says how this payment is refunded; the order is read for
	 * what the form shows */
	rc = refund_route_of(ui_db(), payment_id, &route, &rs->o);
	if (rc == 0 && route == REFUND_THROUGH_CHANNEL &&
	    (rc = chan_order_refundable(ui_db(), rs->o.order_no, &rs->left, &rs->asked)) == 0)
		return chan_form(rs);
	if (rc != 0) {
		ui_msg(MSG_ERROR, _("Cannot read the card order of payment %1$lld: %2$s"),
		       (long long)payment_id, err_msg());
		ref_free_state(rs);
		return NULL;
	}
	snprintf(title, sizeof title, _("Refund from payment %1$lld (%2$s)"), (long long)payment_id,
	         rs->p.customer_name);
	f = form_new(&ref_spec, rs, title);
	snprintf(info, sizeof info, "%s", fmt_money_cur(rs->p.unallocated, rs->p.currency, m));
	form_add(f, F_INFO, 0, _("Unallocated:"), info);
	k = form_add(f, F_TEXT, R_AMOUNT, _("Amount to give back"),
	             rs->p.unallocated > 0 ? fmt_money(rs->p.unallocated, rs->p.currency, m) : "");
	f->fields[k].width = 16;
	form_add_choice(f, R_METHOD, _("Method"), words_methods, words_method_labels,
	                WORDS_NMETHODS, rs->p.method);
	form_add(f, F_TEXT, R_REFERENCE, _("Reference"), NULL);
	form_add(f, F_TEXT, R_REASON, _("Reason"), NULL);
	return form_view(f);
}
