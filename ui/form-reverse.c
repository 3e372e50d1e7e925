/*
 * form-reverse.c - reverse one allocation: a reason is required, the
 * person confirms with `y`, and the core posts a reversal row (the posted
 * allocation itself is never edited) under the form's idempotency key.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fmt.h"
#include "form.h"
#include "i18n.h"
#include "payment.h"
#include "text.h"
#include "views.h"
#include "xalloc.h"

struct revst {
	struct allocation a;
};

static int rev_check(struct form *f)
{
	const char *r = form_value(f, 1);

	if (!*r) {
		form_error(f, 1, "%s", _("required: say why it is undone"));
		return 1;
	}
	if (text_check(r, _("the reason"), 400, 0)) {
		form_error(f, 1, "%s", err_msg());
		return 1;
	}
	return 0;
}

static void rev_confirm(struct form *f, char *buf, size_t n)
{
	struct revst *rs = f->arg;
	char m[FMT_MONEY];

	snprintf(buf, n, _("Reverse allocation #%1$lld: %2$s of payment %3$lld to %4$s?"),
	         (long long)rs->a.id, fmt_money_cur(rs->a.amount, rs->a.currency, m),
	         (long long)rs->a.payment_id, rs->a.invoice_number);
}

static int rev_post(struct form *f)
{
	struct revst *rs = f->arg;
	struct idem_result res = {0};
	char m[FMT_MONEY];
	int rc = alloc_reverse(ui_db(), rs->a.id, form_value(f, 1), form_key(f), &res);

	if (rc)
		return rc;
	f->posted_id = res.id;
	form_receipt(f,
	             _("Allocation #%1$lld reversed (reversal #%2$lld): %3$s is back on payment "
	               "%4$lld as the customer's credit, and %5$s owes it again."),
	             (long long)rs->a.id, (long long)res.id,
	             fmt_money_cur(rs->a.amount, rs->a.currency, m), (long long)rs->a.payment_id,
	             rs->a.invoice_number);
	idem_result_free(&res);
	return 0;
}

static void rev_free(struct form *f)
{
	struct revst *rs = f->arg;

	alloc_free(&rs->a);
	free(rs);
}

static const struct form_spec rev_spec = {
    .name = "reverse-allocation",
    .check = rev_check,
    .post = rev_post,
    .confirm = rev_confirm,
    .free = rev_free,
    .help = N_("A posted allocation is never changed: reversing it posts a reversal row. "
               "The money goes back to the payment as the customer's credit."),
};

struct view *form_reverse_new(int64_t alloc_id)
{
	struct revst *rs;
	struct form *f;
	char title[200], m[FMT_MONEY], info[300];

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	rs = xcalloc(1, sizeof *rs);
	if (alloc_get(ui_db(), alloc_id, &rs->a) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read allocation %1$lld: %2$s"), (long long)alloc_id,
		       err_msg());
		free(rs);
		return NULL;
	}
	if (rs->a.reverses_id || rs->a.reversed_by) {
		ui_msg(MSG_ERROR,
		       rs->a.reverses_id ? _("#%lld is itself a reversal.")
		                         : _("#%lld is already reversed."),
		       (long long)alloc_id);
		alloc_free(&rs->a);
		free(rs);
		return NULL;
	}
	snprintf(title, sizeof title, _("Reverse allocation #%lld"), (long long)alloc_id);
	f = form_new(&rev_spec, rs, title);
	snprintf(info, sizeof info, _("%1$s of payment %2$lld to %3$s"),
	         fmt_money_cur(rs->a.amount, rs->a.currency, m), (long long)rs->a.payment_id,
	         rs->a.invoice_number);
	form_add(f, F_INFO, 0, _("Allocation:"), info);
	form_add(f, F_TEXT, 1, _("Reason"), NULL);
	return form_view(f);
}
