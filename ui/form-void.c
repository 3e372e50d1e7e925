/*
 * form-void.c - correct an issued invoice from its pane: void it (while
 * nothing is paid on it and no credit note corrects it: its line items can
 * be billed again) or issue a credit note against it (an amount, at most
 * its balance). Both ask for a reason and then `y`; the rules are the
 * core's (invoice_void, invoice_credit), which the form only asks. The
 * credit note is posted under the form's idempotency key.
 *
 * Callers: view-invoice.c (V, w).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fmt.h"
#include "form.h"
#include "i18n.h"
#include "invoice.h"
#include "money.h"
#include "text.h"
#include "views.h"
#include "xalloc.h"

enum { X_AMOUNT = 1, X_REASON };

struct fixst {
	struct invoice inv;
	int credit; /* 1: a credit note; 0: void */
	int64_t amount;
};

static int fix_check(struct form *f)
{
	struct fixst *xs = f->arg;
	int k = form_find(f, X_REASON), errors = 0;
	const char *r = form_value(f, k);

	if (!*r) {
		form_error(f, k, "%s", _("required: say why"));
		errors++;
	} else if (text_check(r, _("the reason"), 400, 0)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	}
	if (xs->credit) {
		k = form_find(f, X_AMOUNT);
		if (money_parse(form_value(f, k), currency_find(xs->inv.currency), &xs->amount)) {
			form_error(f, k, "%s", err_msg());
			errors++;
		} else if (xs->amount <= 0) {
			form_error(f, k, "%s", _("must be more than zero"));
			errors++;
		}
	}
	return errors;
}

static void fix_confirm(struct form *f, char *buf, size_t n)
{
	struct fixst *xs = f->arg;
	char m[FMT_MONEY];

	if (xs->credit)
		snprintf(buf, n, _("Issue a credit note of %1$s against %2$s?"),
		         fmt_money_cur(xs->amount, xs->inv.currency, m), xs->inv.number);
	else
		snprintf(buf, n, _("Void %1$s (%2$s)? Its line items can then be billed again."),
		         xs->inv.number, fmt_money_cur(xs->inv.total, xs->inv.currency, m));
}

static int fix_post(struct form *f)
{
	struct fixst *xs = f->arg;
	const char *reason = form_value(f, form_find(f, X_REASON));
	struct idem_result res = {0};
	struct invoice cn;
	char m[FMT_MONEY];
	int rc;

	if (!xs->credit) {
		if ((rc = invoice_void(ui_db(), xs->inv.id, reason)))
			return rc;
		f->posted_id = xs->inv.id;
		form_receipt(f, _("%s is void."), xs->inv.number);
		return 0;
	}
	if ((rc = invoice_credit(ui_db(), xs->inv.id, xs->amount, reason, form_key(f), &res)))
		return rc;
	f->posted_id = res.id;
	if (invoice_get(ui_db(), res.id, &cn) == 0) {
		form_receipt(f, _("Credit note %1$s issued against %2$s: %3$s."), cn.number,
		             xs->inv.number, fmt_money_cur(xs->amount, xs->inv.currency, m));
		invoice_free(&cn);
	}
	if (res.replayed)
		form_receipt(f, "%s",
		             _("This form had already posted it; nothing was posted again."));
	idem_result_free(&res);
	return 0;
}

static void fix_free(struct form *f)
{
	struct fixst *xs = f->arg;

	invoice_free(&xs->inv);
	free(xs);
}

static const struct form_spec fix_spec = {
    .name = "invoice-fix",
    .check = fix_check,
    .post = fix_post,
    .confirm = fix_confirm,
    .free = fix_free,
    .help = N_("An issued invoice is never edited. Void it while nothing is paid on it and no "
               "credit note corrects it (its line items can then be billed again); otherwise "
               "issue a credit note for what the customer should not pay (at most the "
               "balance). Both keep the reason, and ask for y."),
};

static struct view *fix_form(int64_t invoice_id, int credit)
{
	struct fixst *xs;
	struct form *f;
	char title[200], m[FMT_MONEY], info[300];
	int k;

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	xs = xcalloc(1, sizeof *xs);
	xs->credit = credit;
	if (invoice_get(ui_db(), invoice_id, &xs->inv) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read invoice %1$lld: %2$s"), (long long)invoice_id,
		       err_msg());
		free(xs);
		return NULL;
	}
	snprintf(title, sizeof title, credit ? _("Credit note against %s") : _("Void %s"),
	         xs->inv.number);
	f = form_new(&fix_spec, xs, title);
	{
		char t[FMT_MONEY], p[FMT_MONEY], b[FMT_MONEY];

		snprintf(info, sizeof info, _("total %1$s, paid %2$s, balance %3$s"),
		         fmt_money(xs->inv.total, xs->inv.currency, t),
		         fmt_money(xs->inv.paid, xs->inv.currency, p),
		         fmt_money_cur(xs->inv.balance, xs->inv.currency, b));
	}
	form_add(f, F_INFO, 0, xs->inv.number, info);
	if (credit) {
		k = form_add(f, F_TEXT, X_AMOUNT, _("Amount"),
		             fmt_money(xs->inv.balance, xs->inv.currency, m));
		f->fields[k].width = 16;
	}
	k = form_add(f, F_TEXT, X_REASON, _("Reason"), NULL);
	f->fields[k].width = 40;
	return form_view(f);
}

struct view *form_invoice_void(int64_t invoice_id)
{
	return fix_form(invoice_id, 0);
}

struct view *form_invoice_credit(int64_t invoice_id)
{
	return fix_form(invoice_id, 1);
}
