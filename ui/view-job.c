/*
 * view-job.c - a job: its customer, status and currency; the visits that
 * work on it, its line items, the invoices that bill it and what is left
 * to bill (what `frontdesk invoice issue --jobs` would bill now).
 *
 * Everything is read through the core (job_get, link_list, item_list,
 * invoice_of_job, invoice_get, invoice_job_unbilled) each time the pane is
 * built, and its signature (esign_job_state) once an estimate was sent; a
 * rebuild keeps the cursor on the same record. Enter on a visit, an
 * invoice or the estimate opens it, on the customer line the customer; e edits the
 * selected line item, else the job; a adds a line item; i issues an
 * invoice for what is left. H is the job's history, h the selected line's.
 * Opened by Enter on a job or a line item (view-visit.c, view-customer.c).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "err.h"
#include "esign.h"
#include "fmt.h"
#include "i18n.h"
#include "invoice.h"
#include "item.h"
#include "job.h"
#include "money.h"
#include "pane-rows.h"
#include "pane.h"
#include "views.h"
#include "visit.h"
#include "xalloc.h"

struct jobv {
	int64_t id;
	int64_t customer_id;
	char currency[4];
	struct pane p;
	int count; /* lines added by the last list */
};

static const struct pane_col visit_cols[] = {
    {2, 0, AL_LEFT},   /* indent */
    {12, 0, AL_LEFT},  /* visit N */
    {22, 1, AL_LEFT},  /* when */
    {12, 0, AL_LEFT},  /* status */
    {10, 0, AL_RIGHT}, /* minutes */
};

static int add_visit(const struct link *l, void *arg)
{
	struct jobv *jv = arg;
	char id[32], from[32], to[32], when[72], min[32];
	const char *cells[5];

	snprintf(id, sizeof id, _("Visit %lld"), (long long)l->appt_id);
	fmt_datetime(l->start_at, from);
	fmt_datetime(l->end_at, to);
	/* the end's date only when it differs from the start's */
	snprintf(when, sizeof when, "%s-%s", from, strncmp(to, from, 10) == 0 ? to + 11 : to);
	snprintf(min, sizeof min, _("%lld min"), (long long)l->est_minutes);
	cells[0] = "";
	cells[1] = id;
	cells[2] = when;
	cells[3] = fmt_status(l->appt_status);
	cells[4] = min;
	pane_row(&jv->p, K_VISIT, l->appt_id, R_NORMAL, 5, visit_cols, cells);
	jv->count++;
	return 0;
}

static int add_item(const struct line_item *li, void *arg)
{
	struct jobv *jv = arg;

	pane_item_row(&jv->p, K_ITEM, 2, li);
	jv->count++;
	return 0;
}

static int add_invoice(int64_t id, void *arg)
{
	struct jobv *jv = arg;

	if (pane_invoice_row(&jv->p, K_INVOICE, 2, id) != 0)
		return 0;
	jv->count++;
	return 0;
}

/* After a list: its error, or `none` dimmed when it gave no line. */
static void section(struct jobv *jv, int rc, const char *none)
{
	if (rc)
		pane_text(&jv->p, 0, 0, R_ERROR, "  ! %s", err_msg());
	else if (jv->count == 0)
		pane_text(&jv->p, 0, 0, R_DIM, "  %s", none);
}

static void left_to_bill(struct jobv *jv, const struct job *j)
{
	struct invoice_unbilled u;
	char am[FMT_MONEY];

	pane_blank(&jv->p);
	if (invoice_job_unbilled(ui_db(), jv->id, &u) != 0) {
		pane_text(&jv->p, 0, 0, R_ERROR, _("! What is left to bill cannot be read: %s"),
		          err_msg());
		return;
	}
	if (job_state_of(j->status) == JOB_CANCELLED)
		pane_text(&jv->p, 0, 0, R_DIM, "%s",
		          _("Left to bill: nothing (the job is cancelled)."));
	else if (u.items == 0)
		pane_text(&jv->p, 0, 0, R_PAID, "%s", _("Left to bill: nothing."));
	else
		pane_text(&jv->p, 0, 0, R_UNPAID,
		          _("Left to bill: %1$s (line items: %2$lld; i invoices it)"),
		          fmt_money_cur(u.total, u.currency, am), (long long)u.items);
}

static void build(struct jobv *jv)
{
	struct job j;
	int kind, old = jv->p.cur, rc;
	int64_t id;

	pane_target(&jv->p, &kind, &id);
	pane_clear(&jv->p);
	if (job_get(ui_db(), jv->id, &j) != 0) {
		pane_text(&jv->p, 0, 0, R_ERROR, _("! Job %lld cannot be read."),
		          (long long)jv->id);
		return;
	}
	jv->customer_id = j.customer_id;
	snprintf(jv->currency, sizeof jv->currency, "%s", j.currency);
	pane_text(&jv->p, 0, 0, R_HEADER, _("Job %1$lld: %2$s (%3$s, %4$s)"), (long long)j.id,
	          j.title, fmt_status(j.status), j.currency);
	pane_field(&jv->p, K_CUSTOMER, j.customer_id, R_NORMAL, 0, _("Customer"), j.customer_name);
	{
		/* the signed authorisation of the job (esign.h), once asked for;
		 * Enter on it opens the estimate */
		char sig[16] = "";
		int64_t est = 0;

		if (esign_job_state(ui_db(), j.id, sig, &est) == 0 && *sig)
			pane_field(&jv->p, K_ESTIMATE, est,
			           strcmp(sig, "authorised") ? R_DIM : R_NORMAL, 0, _("Signature"),
			           fmt_signature(sig));
	}
	if (j.note)
		pane_field(&jv->p, 0, 0, R_NORMAL, 0, _("Note"), j.note);

	pane_blank(&jv->p);
	pane_text(&jv->p, 0, 0, R_HEADER, "%s", _("Visits"));
	jv->count = 0;
	rc = link_list(ui_db(), 0, jv->id, add_visit, jv);
	section(jv, rc, _("No visit works on this job yet."));

	pane_blank(&jv->p);
	pane_text(&jv->p, 0, 0, R_HEADER, "%s", _("Line items"));
	jv->count = 0;
	rc = item_list(ui_db(), jv->id, add_item, jv);
	section(jv, rc, _("No line items yet (press a to add one)."));

	pane_blank(&jv->p);
	pane_text(&jv->p, 0, 0, R_HEADER, "%s", _("Invoices"));
	jv->count = 0;
	rc = invoice_of_job(ui_db(), jv->id, add_invoice, jv);
	section(jv, rc, _("No invoice bills this job yet."));

	left_to_bill(jv, &j);
	job_free(&j);
	pane_restore(&jv->p, kind, id, old < 0 ? 0 : old);
}

static void jobv_free(struct view *v)
{
	struct jobv *jv = v->priv;

	pane_free(&jv->p);
	free(jv);
}

static void job_resize(struct view *v, int h, int w)
{
	(void)v;
	(void)h;
	(void)w;
}

static void job_draw(struct view *v, WINDOW *w)
{
	struct jobv *jv = v->priv;

	pane_draw(&jv->p, w, 0);
}

static void job_reload(struct view *v)
{
	build(v->priv);
}

static struct ui_next job_action(struct view *v, const struct ui_event *ev)
{
	struct jobv *jv = v->priv;
	int kind;
	int64_t id;
	struct ui_next n = pane_action(&jv->p, ev);

	if (n.kind != UI_UNHANDLED)
		return n;
	pane_target(&jv->p, &kind, &id);
	switch (ev->action) {
	case ACT_OPEN:
		if (kind == K_VISIT)
			return ui_next(UI_PUSH, view_visit_new(id));
		if (kind == K_INVOICE)
			return ui_next(UI_PUSH, view_invoice_new(id));
		if (kind == K_CUSTOMER)
			return ui_next(UI_PUSH, view_customer_new(id));
		if (kind == K_ESTIMATE)
			return ui_next(UI_PUSH, view_estimate_new(id));
		return ui_next(UI_HANDLED, NULL);
	case ACT_EDIT:
		if (kind == K_ITEM)
			return ui_next(UI_PUSH, form_item_edit(id));
		return ui_next(UI_PUSH, form_job_edit(jv->id));
	case ACT_NEW_ITEM:
		return ui_next(UI_PUSH, form_item_new(jv->id));
	case ACT_ISSUE_INVOICE:
		return ui_next(UI_PUSH, form_invoice_new(jv->id));
	case ACT_LINE_HISTORY:
		return pane_line_history(&jv->p);
	default:
		return ui_next(UI_UNHANDLED, NULL);
	}
}

static void job_title(struct view *v, char *buf, size_t n)
{
	struct jobv *jv = v->priv;

	snprintf(buf, n, _("Job %lld"), (long long)jv->id);
}

static const char *job_help(struct view *v)
{
	(void)v;
	return _("A job: the visits that work on it, its line items, the invoices that bill it "
	         "and what is left to bill (what i would invoice now). Enter opens a visit, an "
	         "invoice or the customer; e edits the selected line item, else the job; a adds "
	         "a line item. H shows the job's history, h the selected line's.");
}

static const enum action job_keys[] = {
    ACT_UP,   ACT_DOWN, ACT_PAGE_UP,  ACT_PAGE_DOWN,     ACT_TOP,          ACT_BOTTOM,
    ACT_OPEN, ACT_EDIT, ACT_NEW_ITEM, ACT_ISSUE_INVOICE, ACT_LINE_HISTORY, ACT_NONE};
static const enum action job_hints[] = {ACT_OPEN, ACT_EDIT, ACT_NEW_ITEM, ACT_ISSUE_INVOICE,
                                        ACT_NONE};

/* H: the job's own history, whatever line is selected (h: the line's) */
static int job_target(struct view *v, const char **kind, int64_t *id)
{
	struct jobv *jv = v->priv;

	*kind = "job";
	*id = jv->id;
	return jv->id > 0;
}

static const struct view_ops job_ops = {
    .name = "job",
    .ctx = CTX_PANE,
    .keys = job_keys,
    .hints = job_hints,
    .free = jobv_free,
    .resize = job_resize,
    .draw = job_draw,
    .action = job_action,
    .reload = job_reload,
    .title = job_title,
    .help = job_help,
    .target = job_target,
};

struct view *view_job_new(int64_t job_id, int64_t item_id)
{
	struct jobv *jv = xcalloc(1, sizeof *jv);

	jv->id = job_id;
	jv->p.cur = -1;
	build(jv);
	if (item_id > 0)
		pane_restore(&jv->p, K_ITEM, item_id, 0);
	else
		pane_select_first(&jv->p, 0);
	return view_new(&job_ops, jv);
}
