/*
 * form-charge.c - a card payment through the payment channel for (part of)
 * an invoice: the amount (default: what the invoice still owes less the card
 * orders already open for it), checked as it is typed, a confirmation with
 * `y`, then outbox_charge() writes the card payment order and the command
 * that asks the channel for it, in one transaction. The channel worker sends
 * the command; the payment is posted when the channel says it succeeded.
 * Once posted, the form gives way to the order's payment page
 * (view-paypage.c): the QR code the customer scans, followed live.
 *
 * Invariant: one form instance creates at most ONE order. The call carries
 * the form's idempotency key (form_key), so the same request again returns
 * the first order and writes nothing; on top of that the form never calls
 * it a second time once a call may have written: after it succeeded (the
 * form then only shows its receipt), and after a failure whose outcome is
 * unknown (the database was busy or failed, perhaps after committing). Only
 * a refusal that wrote nothing (a bad amount, no provider, a void or paid
 * invoice) lets the person correct the form and post again.
 *
 * Callers: view-invoice.c (the card-charge action).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chan-order.h"
#include "chan-poll.h"
#include "err.h"
#include "fmt.h"
#include "form.h"
#include "i18n.h"
#include "invoice.h"
#include "money.h"
#include "outbox.h"
#include "views.h"
#include "xalloc.h"

enum { C_AMOUNT = 1 };

struct chargest {
	int64_t invoice_id;
	char number[32];
	char currency[4];
	char *customer;
	int64_t left;      /* what may be asked for when the form opened */
	int64_t amount;    /* parsed by check */
	int called;        /* outbox_charge may have written: never call it again */
	char order_no[65]; /* the order written, once posted */
};

/* Parse and judge the amount field; 0 when it may be posted. */
static int amount_check(struct form *f, struct chargest *cs)
{
	const struct currency *cur = currency_find(cs->currency);
	int k = form_find(f, C_AMOUNT);
	char m[FMT_MONEY];

	if (!*form_value(f, k)) {
		form_error(f, k, "%s", _("required"));
		return 1;
	}
	if (!cur || money_parse(form_value(f, k), cur, &cs->amount)) {
		form_error(f, k, "%s", err_msg());
		return 1;
	}
	if (cs->amount <= 0) {
		form_error(f, k, "%s", _("must be more than zero"));
		return 1;
	}
	if (cs->amount > cs->left) {
		form_error(f, k, _("at most %s: what the invoice owes less the card orders open"),
		           fmt_money(cs->left, cs->currency, m));
		return 1;
	}
	return 0;
}

static int charge_check(struct form *f)
{
	return amount_check(f, f->arg);
}

/* Checked as it is typed: the reason shows beside the field at once. */
static void charge_changed(struct form *f, int i)
{
	struct chargest *cs = f->arg;

	if (i >= 0 && f->fields[i].id == C_AMOUNT && *form_value(f, i))
		amount_check(f, cs);
}

static void charge_confirm(struct form *f, char *buf, size_t n)
{
	struct chargest *cs = f->arg;
	char m[FMT_MONEY];

	snprintf(buf, n,
	         _("Ask the payment channel for a card payment of %1$s from %2$s for %3$s?"),
	         fmt_money_cur(cs->amount, cs->currency, m), cs->customer, cs->number);
}

static int charge_post(struct form *f)
{
	struct chargest *cs = f->arg;
	char order_no[65] = "", m[FMT_MONEY];
	int64_t outbox_id = 0;
	int rc;

	if (cs->called)
		return err_set(FD_ECONFLICT,
		               _("this form already asked once: close it and look at the invoice's "
		                 "card orders before asking again"));
	rc = outbox_charge(ui_db(), NULL, cs->invoice_id, cs->amount, form_key(f), order_no,
	                   &outbox_id);
	if (rc == 0 || (rc != FD_EINVAL && rc != FD_ENOTFOUND && rc != FD_ECONFLICT))
		cs->called = 1;
	if (rc)
		return rc;
	f->posted_id = outbox_id;
	snprintf(cs->order_no, sizeof cs->order_no, "%s", order_no);
	form_receipt(f, _("card order %1$s created; the channel worker sends it."), order_no);
	form_receipt(f,
	             _("%1$s for %2$s from %3$s. The payment is posted when the channel says "
	               "it succeeded."),
	             fmt_money_cur(cs->amount, cs->currency, m), cs->number, cs->customer);
	return 0;
}

/* After the post: the order's payment page, for the customer to scan. */
static struct view *charge_next(struct form *f)
{
	struct chargest *cs = f->arg;

	return view_paypage_new(cs->order_no);
}

static void charge_free(struct form *f)
{
	struct chargest *cs = f->arg;

	free(cs->customer);
	free(cs);
}

static const struct form_spec charge_spec = {
    .name = "card-charge",
    .check = charge_check,
    .post = charge_post,
    .changed = charge_changed,
    .confirm = charge_confirm,
    .next = charge_next,
    .free = charge_free,
    .help = N_("A card payment through the payment channel: Enter and y write a card payment "
               "order and the command that asks the channel for it. The channel worker sends "
               "it; the payment is posted and allocated to the invoice when the channel says "
               "it succeeded. At most what the invoice owes less the card orders already open "
               "for it can be asked for."),
};

struct view *form_charge_new(int64_t invoice_id)
{
	struct chargest *cs;
	struct chan_summary ch;
	struct invoice inv;
	struct form *f;
	char title[200], m[FMT_MONEY], m2[FMT_MONEY], info[300];
	int k;

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	if (chan_summary_read(ui_db(), &ch) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read the payment providers: %s"), err_msg());
		return NULL;
	}
	if (!ch.configured) {
		ui_msg(MSG_ERROR, _("No payment provider is set up: a card payment through the "
		                    "channel needs one (frontdesk channel provider-set)."));
		return NULL;
	}
	if (invoice_get(ui_db(), invoice_id, &inv) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read invoice %1$lld: %2$s"), (long long)invoice_id,
		       err_msg());
		return NULL;
	}
	if (chan_order_may_charge(&inv) != 0) {
		ui_msg(MSG_ERROR, "%s.", err_msg());
		invoice_free(&inv);
		return NULL;
	}
	cs = xcalloc(1, sizeof *cs);
	cs->invoice_id = invoice_id;
	snprintf(cs->number, sizeof cs->number, "%s", inv.number);
	snprintf(cs->currency, sizeof cs->currency, "%s", inv.currency);
	cs->customer = xstrdup(inv.customer_name ? inv.customer_name : "");
	if (chan_order_chargeable(ui_db(), invoice_id, &cs->left) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read invoice %1$lld: %2$s"), (long long)invoice_id,
		       err_msg());
		invoice_free(&inv);
		free(cs->customer);
		free(cs);
		return NULL;
	}
	snprintf(title, sizeof title, _("Card payment through the channel for %1$s (%2$s)"),
	         cs->number, cs->customer);
	f = form_new(&charge_spec, cs, title);
	snprintf(info, sizeof info, _("%1$s owed; %2$s of it can still be asked for by card"),
	         fmt_money_cur(inv.balance, inv.currency, m),
	         fmt_money(cs->left, inv.currency, m2));
	form_add(f, F_INFO, 0, _("Invoice:"), info);
	snprintf(info, sizeof info, "%s", ch.provider);
	form_add(f, F_INFO, 0, _("Channel:"), info);
	k = form_add(f, F_TEXT, C_AMOUNT, _("Amount"),
	             cs->left > 0 ? fmt_money(cs->left, cs->currency, m) : "");
	f->fields[k].width = 16;
	if (cs->left <= 0)
		form_error(f, k, "%s",
		           _("the card orders already open cover what the invoice owes"));
	invoice_free(&inv);
	return form_view(f);
}
