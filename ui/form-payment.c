/*
 * form-payment.c - record a payment and allocate it across the customer's
 * open invoices.
 *
 * The allocation rows start from the core's oldest-first proposal for the
 * amount typed; each row can be edited, and the form shows at all times
 * what is allocated and what is left as the customer's credit. While no
 * allocation row was edited, changing the amount proposes again; F5
 * (form-propose) proposes again at any time. Nothing is written until
 * Enter posts the form, and then the payment and all its allocations are
 * one transaction (payform_post) under the form's idempotency key.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "err.h"
#include "fmt.h"
#include "form.h"
#include "i18n.h"
#include "money.h"
#include "payform.h"
#include "text.h"
#include "views.h"
#include "words.h"
#include "xalloc.h"

enum {
	F_AMOUNT = 1,
	F_METHOD,
	F_REFERENCE,
	F_RECEIVED,
	F_NOTE,
	F_HEAD,
	F_SUMMARY,
	F_USECREDIT,
	F_ALLOC0 = 100
};

static const char *const yes_no[] = {"yes", "no"};
static const char *const yes_no_labels[] = {N_("yes"), N_("no")};

struct payst {
	struct payform pf;
	const struct currency *cur;
	int manual; /* an allocation row was edited since the last proposal */
};

/* The amount typed, or -1 when it is not (yet) an amount. While the
 * credit is used, nothing typed (or 0) is no new money: 0. */
static int64_t amount_of(struct form *f, struct payst *ps)
{
	int64_t v;
	const char *t = form_value(f, form_find(f, F_AMOUNT));

	if (ps->pf.use_credit && (!*t || (money_parse(t, ps->cur, &v) == 0 && v == 0)))
		return 0;
	if (!*t || money_parse(t, ps->cur, &v) || v <= 0)
		return -1;
	return v;
}

/* What may be allocated: the amount, and the credit when it is used. */
static int64_t money_in(struct payst *ps, int64_t amount)
{
	return amount < 0 ? -1 : amount + (ps->pf.use_credit ? ps->pf.credit : 0);
}

static void show_allocs(struct form *f, struct payst *ps)
{
	int i;
	char m[FMT_MONEY];

	for (i = 0; i < ps->pf.ninv; i++) {
		int k = form_find(f, F_ALLOC0 + i);

		form_set(f, k,
		         ps->pf.alloc[i] ? fmt_money(ps->pf.alloc[i], ps->pf.currency, m) : "");
		f->fields[k].edited = 0;
	}
}

/* Read the rows into pf.alloc; errors on the rows. Returns the number of bad rows. */
static int read_allocs(struct form *f, struct payst *ps, int mark)
{
	int i, bad = 0;

	for (i = 0; i < ps->pf.ninv; i++) {
		int k = form_find(f, F_ALLOC0 + i);
		const char *t = form_value(f, k);
		int64_t v = 0;

		if (*t && (money_parse(t, ps->cur, &v) || v < 0)) {
			if (mark)
				form_error(f, k, "%s", _("not an amount"));
			bad++;
			v = 0;
		} else if (v > 0 && !payform_fits(&ps->pf, i, v)) {
			char b[FMT_MONEY];

			if (mark)
				form_error(f, k, _("more than the balance %s"),
				           fmt_money(ps->pf.inv[i].balance, ps->pf.currency, b));
			bad++;
		}
		ps->pf.alloc[i] = v;
	}
	return bad;
}

static void summary(struct form *f, struct payst *ps)
{
	int64_t amount = amount_of(f, ps), sum;
	int ok, k = form_find(f, F_SUMMARY);
	char a[FMT_MONEY], c[FMT_MONEY], buf[256];

	read_allocs(f, ps, 0);
	sum = payform_allocated(&ps->pf, &ok);
	if (!ok) {
		form_set(f, k, _("the allocations are too large"));
		return;
	}
	if (amount >= 0 && ps->pf.use_credit) {
		int64_t from_credit = sum < ps->pf.credit ? sum : ps->pf.credit;
		char n[FMT_MONEY], l[FMT_MONEY];

		if (sum > money_in(ps, amount))
			snprintf(buf, sizeof buf,
			         _("Allocated %1$s: %2$s MORE than the credit and the "
			           "amount"),
			         fmt_money(sum, ps->pf.currency, a),
			         fmt_money(sum - money_in(ps, amount), ps->pf.currency, c));
		else
			snprintf(
			    buf, sizeof buf,
			    _("Allocated %1$s: %2$s from the credit, %3$s from this payment; left "
			      "as credit %4$s"),
			    fmt_money(sum, ps->pf.currency, a),
			    fmt_money(from_credit, ps->pf.currency, c),
			    fmt_money(sum - from_credit, ps->pf.currency, n),
			    fmt_money(money_in(ps, amount) - sum, ps->pf.currency, l));
	} else if (amount < 0) {
		snprintf(buf, sizeof buf, _("Allocated %s; type the amount received"),
		         fmt_money(sum, ps->pf.currency, a));
	} else if (sum > amount) {
		snprintf(buf, sizeof buf, _("Allocated %1$s: %2$s MORE than the amount"),
		         fmt_money(sum, ps->pf.currency, a),
		         fmt_money(sum - amount, ps->pf.currency, c));
	} else {
		snprintf(buf, sizeof buf, _("Allocated %1$s   Left as the customer's credit %2$s"),
		         fmt_money(sum, ps->pf.currency, a),
		         fmt_money(amount - sum, ps->pf.currency, c));
	}
	form_set(f, k, buf);
}

static void pay_changed(struct form *f, int i)
{
	struct payst *ps = f->arg;
	int id = i >= 0 ? f->fields[i].id : -1;

	if (id >= F_ALLOC0)
		ps->manual = 1;
	if (id == F_USECREDIT) {
		int k = form_find(f, F_AMOUNT);

		ps->pf.use_credit = !strcmp(form_value(f, i), "yes");
		form_label(f, k,
		           ps->pf.use_credit ? _("New money received (empty: none)")
		                             : _("Amount received"));
	}
	if (id == -1 || ((id == F_AMOUNT || id == F_USECREDIT) && !ps->manual)) {
		int64_t amount = money_in(ps, amount_of(f, ps));

		if (payform_propose(ui_db(), &ps->pf, amount > 0 ? amount : 0) == 0) {
			show_allocs(f, ps);
			ps->manual = 0;
		} else {
			ui_msg(MSG_ERROR, _("No proposal: %s"), err_msg());
		}
	}
	summary(f, ps);
}

/* The label of invoice row i. */
static void row_label(struct payst *ps, int i, char *buf, size_t n)
{
	char b[FMT_MONEY], d[32];

	snprintf(buf, n, _("%1$s owes %2$s, due %3$s"), ps->pf.inv[i].number,
	         fmt_money(ps->pf.inv[i].balance, ps->pf.currency, b),
	         fmt_date(ps->pf.inv[i].due_at, d));
}

/* The label of field k, the choice to use the customer's credit, with its
 * amount; a shorter one for a narrow screen, where the long one would be
 * cut before the amount. */
static void credit_label(struct form *f, int k, struct payst *ps)
{
	char b[FMT_MONEY], label[200];

	fmt_money_cur(ps->pf.credit, ps->pf.currency, b);
	snprintf(label, sizeof label, _("Use the credit on account (%s) first"), b);
	form_label(f, k, label);
	snprintf(label, sizeof label, _("Use credit (%s) first"), b);
	form_label_short(f, k, label);
}

/* Another desk (or the worker) changed the records while the form is open:
 * the balances and the credit are read again, each row keeps what was typed,
 * and a row whose invoice now owes less than that says so beside it. The
 * rows stay the invoices the form opened with (one paid in full elsewhere
 * now owes 0.00). */
static void pay_reload(struct form *f)
{
	struct payst *ps = f->arg;
	struct payform fresh;
	char label[200];
	int i, j, changed = 0;

	if (payform_load(ui_db(), ps->pf.customer_id, ps->pf.currency, &fresh) != 0)
		return;
	for (i = 0; i < ps->pf.ninv; i++) {
		int64_t now = 0;
		int k = form_find(f, F_ALLOC0 + i);

		for (j = 0; j < fresh.ninv; j++)
			if (fresh.inv[j].id == ps->pf.inv[i].id)
				now = fresh.inv[j].balance;
		if (now == ps->pf.inv[i].balance)
			continue;
		changed = 1;
		ps->pf.inv[i].balance = now;
		row_label(ps, i, label, sizeof label);
		form_label(f, k, label);
		form_note(f, k, _("changed by another desk"));
	}
	if (fresh.credit != ps->pf.credit) {
		changed = 1;
		ps->pf.credit = fresh.credit;
		credit_label(f, form_find(f, F_USECREDIT), ps);
	}
	payform_free(&fresh);
	if (!changed)
		return;
	if (!ps->manual)
		pay_changed(f, -1); /* propose again on the new figures */
	else
		summary(f, ps);
	read_allocs(f, ps, 1); /* a row now above its balance is marked */
	ui_msg(MSG_INFO, "%s",
	       _("Another desk changed this customer's invoices or credit: the figures are read "
	         "again."));
}

static int pay_check(struct form *f)
{
	struct payst *ps = f->arg;
	int errors = 0, k, ok;
	int64_t amount, t, sum;
	const char *s;

	k = form_find(f, F_AMOUNT);
	s = form_value(f, k);
	if (!*s && ps->pf.use_credit) {
		/* the credit alone */
	} else if (!*s) {
		form_error(f, k, "%s", _("required"));
		errors++;
	} else if (money_parse(s, ps->cur, &amount)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	} else if (amount < 0 || (amount == 0 && !ps->pf.use_credit)) {
		form_error(f, k, "%s", _("must be more than zero"));
		errors++;
	}
	k = form_find(f, F_RECEIVED);
	if (clock_parse_local(form_value(f, k), &t)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	}
	k = form_find(f, F_REFERENCE);
	if (text_check(form_value(f, k), _("the reference"), 200, 1)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	}
	k = form_find(f, F_NOTE);
	if (text_check(form_value(f, k), _("the note"), 2000, 1)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	}
	errors += read_allocs(f, ps, 1);
	sum = payform_allocated(&ps->pf, &ok);
	if (!errors && (!ok || sum > money_in(ps, amount_of(f, ps)))) {
		char a[FMT_MONEY];

		form_error(f, form_find(f, F_AMOUNT),
		           ps->pf.use_credit ? _("the allocations (%s) are more than this and the "
		                                 "credit")
		                             : _("the allocations (%s) are more than this"),
		           fmt_money(sum, ps->pf.currency, a));
		errors++;
	} else if (!errors && ps->pf.use_credit && sum == 0 && amount_of(f, ps) == 0) {
		form_error(f, form_find(f, F_AMOUNT), "%s",
		           _("nothing to post: allocate the credit, or type an amount"));
		errors++;
	}
	return errors;
}

static int pay_post(struct form *f)
{
	struct payst *ps = f->arg;
	struct payment_input in = {0};
	struct idem_result res = {0};
	const char *ref = form_value(f, form_find(f, F_REFERENCE));
	const char *note = form_value(f, form_find(f, F_NOTE));
	char m[FMT_MONEY];
	int64_t received, amount = amount_of(f, ps), sum;
	int rc, i, ok;

	if (clock_parse_local(form_value(f, form_find(f, F_RECEIVED)), &received))
		return FD_EINVAL;
	in.amount = amount;
	in.method = form_value(f, form_find(f, F_METHOD));
	in.reference = *ref ? ref : NULL;
	in.note = *note ? note : NULL;
	in.received_at = received;
	read_allocs(f, ps, 0);
	rc = payform_post(ui_db(), &ps->pf, &in, form_key(f), &res);
	if (rc)
		return rc;
	f->posted_id = res.id;
	sum = payform_allocated(&ps->pf, &ok);
	if (ps->pf.use_credit && sum > 0) {
		int64_t from_credit = sum < ps->pf.credit ? sum : ps->pf.credit;

		form_receipt(f, _("%1$s of %2$s's credit allocated."),
		             fmt_money_cur(from_credit, ps->pf.currency, m), ps->pf.customer_name);
	}
	if (res.id)
		form_receipt(f, _("Payment %1$lld recorded: %2$s by %3$s from %4$s."),
		             (long long)res.id, fmt_money_cur(amount, ps->pf.currency, m),
		             fmt_status(in.method), ps->pf.customer_name);
	else
		form_receipt(f, "%s", _("No new payment was needed."));
	for (i = 0; i < ps->pf.ninv; i++)
		if (ps->pf.alloc[i] > 0)
			form_receipt(f, _("  %1$s allocated to %2$s"),
			             fmt_money(ps->pf.alloc[i], ps->pf.currency, m),
			             ps->pf.inv[i].number);
	form_receipt(f, _("  %s left as the customer's credit"),
	             fmt_money(money_in(ps, amount) - sum, ps->pf.currency, m));
	if (res.replayed)
		form_receipt(f, "%s",
		             _("This form had already posted it; nothing was posted again."));
	idem_result_free(&res);
	return 0;
}

static void pay_free(struct form *f)
{
	struct payst *ps = f->arg;

	payform_free(&ps->pf);
	free(ps);
}

static const struct form_spec pay_spec = {
    .name = "payment",
    .check = pay_check,
    .post = pay_post,
    .changed = pay_changed,
    .reload = pay_reload,
    .free = pay_free,
    .has_propose = 1,
    .help = N_("Type the whole amount received (one check is one payment). The open invoices "
               "get the oldest-first proposal; change any row, F5 proposes again. What is "
               "not allocated stays as the customer's credit. When the customer has credit "
               "(money received and not allocated, such as what a reversal freed), the form "
               "offers it first: the proposal spends it before any new money, and with no new "
               "money typed nothing new is recorded. Enter posts everything at once."),
};

struct view *form_payment_new(int64_t customer_id, const char *currency)
{
	return form_payment_new_at(customer_id, currency, NULL, 0);
}

struct view *form_payment_new_at(int64_t customer_id, const char *currency, const int64_t *first,
                                 int nfirst)
{
	struct payst *ps;
	struct form *f;
	char title[256], now[32], label[160], head[200];
	int i, k;

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	ps = xcalloc(1, sizeof *ps);
	if (payform_load(ui_db(), customer_id, currency, &ps->pf) != 0) {
		ui_msg(MSG_ERROR, _("Cannot open the payment form: %s"), err_msg());
		free(ps);
		return NULL;
	}
	payform_prefer(&ps->pf, first, nfirst);
	ps->cur = currency_find(ps->pf.currency);
	if (!ps->cur) {
		ui_msg(MSG_ERROR, _("Unknown currency %s."), ps->pf.currency);
		payform_free(&ps->pf);
		free(ps);
		return NULL;
	}
	snprintf(title, sizeof title, _("Record a payment from %1$s (%2$s)"), ps->pf.customer_name,
	         ps->pf.currency);
	f = form_new(&pay_spec, ps, title);
	if (ps->pf.use_credit) {
		/* money already received comes first: a reversal's money is not
		 * left stranded while the customer pays again */
		credit_label(
		    f, form_add_choice(f, F_USECREDIT, "", yes_no, yes_no_labels, 2, "yes"), ps);
	}
	k = form_add(
	    f, F_TEXT, F_AMOUNT,
	    ps->pf.use_credit ? _("New money received (empty: none)") : _("Amount received"), NULL);
	f->fields[k].width = 16;
	f->cur = k;
	form_add_choice(f, F_METHOD, _("Method"), words_methods, words_method_labels,
	                WORDS_NMETHODS, "cash");
	form_add(f, F_TEXT, F_REFERENCE, _("Reference (check no.)"), NULL);
	clock_format_local(clock_now(), "%Y-%m-%d %H:%M", now, sizeof now);
	k = form_add(f, F_TEXT, F_RECEIVED, _("Received"), now);
	f->fields[k].width = 16;
	form_add(f, F_TEXT, F_NOTE, _("Note"), NULL);
	if (!ps->pf.ninv)
		snprintf(head, sizeof head, "%s",
		         _("No open invoice in this currency: all of it becomes credit."));
	else if (ps->pf.nfirst == 1)
		snprintf(head, sizeof head,
		         _("Allocate to open invoices (%s first, then oldest due):"),
		         ps->pf.inv[0].number);
	else if (ps->pf.nfirst > 1)
		snprintf(head, sizeof head, "%s",
		         _("Allocate to open invoices (this job's first, then oldest due):"));
	else
		snprintf(head, sizeof head, "%s",
		         _("Allocate to open invoices (oldest due first):"));
	form_add(f, F_INFO, F_HEAD, head, NULL);
	for (i = 0; i < ps->pf.ninv; i++) {
		row_label(ps, i, label, sizeof label);
		k = form_add(f, F_TEXT, F_ALLOC0 + i, label, NULL);
		f->fields[k].width = 14;
	}
	form_add(f, F_INFO, F_SUMMARY, "", NULL);
	if (ps->pf.use_credit)
		pay_changed(f, -1); /* the credit's proposal at once */
	else
		summary(f, ps);
	return form_view(f);
}
