/*
 * form-refund.c - refund (part of) a payment. The amount defaults to what
 * is unallocated (a refund never takes allocated money: reverse
 * allocations first); a reason is required; the person confirms with `y`.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fmt.h"
#include "form.h"
#include "i18n.h"
#include "money.h"
#include "payment.h"
#include "text.h"
#include "views.h"
#include "xalloc.h"

enum { R_AMOUNT = 1, R_METHOD, R_REFERENCE, R_REASON };

static const char *const methods[] = {"cash", "check", "card", "bank_transfer", "other"};
static const char *const method_labels[] = {N_("cash"), N_("check"), N_("card"),
                                            N_("bank transfer"), N_("other")};

struct refst {
	struct payment p;
	int64_t amount; /* parsed by check */
};

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
	struct idem_result res = {0};
	const char *ref = form_value(f, form_find(f, R_REFERENCE));
	char m[FMT_MONEY];
	int rc;

	in.payment_id = rs->p.id;
	in.amount = rs->amount;
	in.method = form_value(f, form_find(f, R_METHOD));
	in.reference = *ref ? ref : NULL;
	in.reason = form_value(f, form_find(f, R_REASON));
	rc = refund_post(ui_db(), &in, form_key(f), &res);
	if (rc)
		return rc;
	f->posted_id = res.id;
	form_receipt(f, _("Refund R%1$lld posted: %2$s of payment %3$lld given back to %4$s."),
	             (long long)res.id, fmt_money_cur(rs->amount, rs->p.currency, m),
	             (long long)rs->p.id, rs->p.customer_name);
	idem_result_free(&res);
	return 0;
}

static void ref_free(struct form *f)
{
	struct refst *rs = f->arg;

	payment_free(&rs->p);
	free(rs);
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

struct view *form_refund_new(int64_t payment_id)
{
	struct refst *rs;
	struct form *f;
	char title[200], m[FMT_MONEY], info[200];
	int k;

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
	snprintf(title, sizeof title, _("Refund from payment %1$lld (%2$s)"), (long long)payment_id,
	         rs->p.customer_name);
	f = form_new(&ref_spec, rs, title);
	snprintf(info, sizeof info, "%s", fmt_money_cur(rs->p.unallocated, rs->p.currency, m));
	form_add(f, F_INFO, 0, _("Unallocated:"), info);
	k = form_add(f, F_TEXT, R_AMOUNT, _("Amount to give back"),
	             rs->p.unallocated > 0 ? fmt_money(rs->p.unallocated, rs->p.currency, m) : "");
	f->fields[k].width = 16;
	form_add_choice(f, R_METHOD, _("Method"), methods, method_labels, 5, rs->p.method);
	form_add(f, F_TEXT, R_REFERENCE, _("Reference"), NULL);
	form_add(f, F_TEXT, R_REASON, _("Reason"), NULL);
	return form_view(f);
}
