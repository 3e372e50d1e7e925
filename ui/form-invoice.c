/*
 * form-invoice.c - issue an invoice for what is not yet billed of a job
 * (and, if typed, of more jobs of the same customer), with terms, a note
 * and whether overpayment is allowed. One idempotency key per form.
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
#include "job.h"
#include "text.h"
#include "views.h"
#include "xalloc.h"

enum { I_JOBS = 1, I_TERMS, I_NOTE, I_OVERPAY };

static const char *const yesno[] = {"no", "yes"};
static const char *const yesno_labels[] = {N_("no"), N_("yes")};

struct invst {
	int64_t jobs[32];
	size_t njobs;
	long terms;
};

static int parse_jobs(const char *s, struct invst *is)
{
	char buf[256], *save = NULL, *tok;

	is->njobs = 0;
	snprintf(buf, sizeof buf, "%s", s);
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		char *end;
		long long v = strtoll(tok, &end, 10);

		if (*end || v <= 0 || is->njobs == 32)
			return -1;
		is->jobs[is->njobs++] = v;
	}
	return is->njobs ? 0 : -1;
}

static int inv_check(struct form *f)
{
	struct invst *is = f->arg;
	int errors = 0, k = form_find(f, I_JOBS);
	const char *t;
	char *end;

	if (parse_jobs(form_value(f, k), is)) {
		form_error(f, k, "%s", _("job numbers separated by commas, such as 12 or 12,13"));
		errors++;
	}
	k = form_find(f, I_TERMS);
	t = form_value(f, k);
	is->terms = -1;
	if (*t) {
		is->terms = strtol(t, &end, 10);
		if (*end || is->terms < 0 || is->terms > 3650) {
			form_error(f, k, "%s", _("a number of days (0 to 3650), or empty"));
			errors++;
		}
	}
	k = form_find(f, I_NOTE);
	if (text_check(form_value(f, k), _("the note"), 2000, 1)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	}
	return errors;
}

static int inv_post(struct form *f)
{
	struct invst *is = f->arg;
	struct invoice_input in = {0};
	struct idem_result res = {0};
	struct invoice inv;
	const char *note = form_value(f, form_find(f, I_NOTE));
	char m[FMT_MONEY], d[32];
	int rc;

	in.jobs = is->jobs;
	in.n_jobs = is->njobs;
	in.terms_days = is->terms;
	in.note = *note ? note : NULL;
	in.allow_overpay = !strcmp(form_value(f, form_find(f, I_OVERPAY)), "yes");
	rc = invoice_issue(ui_db(), &in, form_key(f), &res);
	if (rc)
		return rc;
	f->posted_id = res.id;
	if (invoice_get(ui_db(), res.id, &inv) == 0) {
		form_receipt(f, _("Invoice %1$s issued to %2$s: %3$s, due %4$s."), inv.number,
		             inv.customer_name, fmt_money_cur(inv.total, inv.currency, m),
		             fmt_date(inv.due_at, d));
		invoice_free(&inv);
	} else {
		form_receipt(f, _("Invoice %lld issued."), (long long)res.id);
	}
	idem_result_free(&res);
	return 0;
}

static void inv_free(struct form *f)
{
	free(f->arg);
}

static const struct form_spec inv_spec = {
    .name = "issue-invoice",
    .check = inv_check,
    .post = inv_post,
    .free = inv_free,
    .help = N_("The invoice bills every line item of these jobs that is not billed yet. "
               "Its lines are snapshots: later changes to the jobs do not alter it."),
};

struct view *form_invoice_new(int64_t job_id)
{
	struct form *f;
	struct job j;
	char title[300], jobs[32];

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	if (job_get(ui_db(), job_id, &j) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read job %1$lld: %2$s"), (long long)job_id, err_msg());
		return NULL;
	}
	snprintf(title, sizeof title, _("Issue an invoice to %s"), j.customer_name);
	job_free(&j);
	f = form_new(&inv_spec, xcalloc(1, sizeof(struct invst)), title);
	snprintf(jobs, sizeof jobs, "%lld", (long long)job_id);
	form_add(f, F_TEXT, I_JOBS, _("Jobs to bill"), jobs);
	form_add(f, F_TEXT, I_TERMS, _("Days until due (empty: default)"), NULL);
	form_add(f, F_TEXT, I_NOTE, _("Note on the invoice"), NULL);
	form_add_choice(f, I_OVERPAY, _("Allow overpayment"), yesno, yesno_labels, 2, "no");
	return form_view(f);
}
