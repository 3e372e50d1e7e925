/*
 * form-recon.c - a person's decision on a reconciliation difference, and
 * the claim of a parked payment event, from the reconciliation view: accept
 * the difference as it is (a note), record the payment a channel_only
 * charge shows (whose it is and the invoices, proposed from the channel
 * order the core finds, recon_record_guess, else asked; a note), post a
 * correcting entry (a note; invoices for a payment it records), or claim a
 * parked event for a customer and invoices. Each asks `y` first; the rules
 * are the core's (recon_accept, recon_record, recon_correct, recon_claim),
 * which the form only asks: a refusal is the form's error and changes
 * nothing. Recording and claiming are exactly once in the core (its own
 * idempotency keys), so a second Enter or a retry records nothing more.
 *
 * Claiming asks the channel for the order's truth (recon_claim): the form
 * opens the channel of the event's provider for that one call, while the
 * screen waits.
 *
 * Callers: view-recon.c (a, p, f).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chan-adapters.h"
#include "customer.h"
#include "err.h"
#include "fmt.h"
#include "form.h"
#include "i18n.h"
#include "pipe-provider.h"
#include "recon.h"
#include "text.h"
#include "views.h"
#include "xalloc.h"

enum { R_CUSTOMER = 1, R_INVOICES, R_NOTE };

#define INVOICES_MAX 64

struct reconst {
	int how;      /* RECON_FORM_* */
	int64_t id;   /* the difference, or (claim) the parked event */
	int64_t cust; /* checked: the customer typed, 0 for none */
	char what[400];
	char provider[41]; /* claim: the event's channel */
};

static int parse_id(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!*s) {
		*out = 0;
		return 0;
	}
	v = strtoll(s, &end, 10);
	if (*end || v <= 0)
		return -1;
	*out = v;
	return 0;
}

/* The customer field's note: whose number it is. */
static void customer_changed(struct form *f, int i)
{
	struct reconst *rs = f->arg;
	struct customer c;
	int64_t id;

	if (f->fields[i].id != R_CUSTOMER)
		return;
	form_error(f, i, NULL);
	if (parse_id(form_value(f, i), &id) != 0) {
		form_error(f, i, "%s", _("a customer number, or empty"));
		return;
	}
	if (!id) {
		form_note(f, i,
		          rs->how == RECON_FORM_CLAIM ? _("required: whose payment it is")
		                                      : _("empty: the first invoice's customer"));
		return;
	}
	if (customer_get(ui_db(), id, &c) != 0) {
		form_error(f, i, _("no customer %lld"), (long long)id);
		return;
	}
	form_note(f, i, c.name);
	customer_free(&c);
}

static int rec_check(struct form *f)
{
	struct reconst *rs = f->arg;
	int k = form_find(f, R_NOTE), errors = 0;
	const char *note = form_value(f, k);

	if (!*note) {
		form_error(f, k, "%s", _("required: say why"));
		errors++;
	} else if (text_check(note, _("the note"), 1000, 0)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	}
	if ((k = form_find(f, R_CUSTOMER)) >= 0) {
		customer_changed(f, k);
		if (f->fields[k].error)
			errors++;
		else
			parse_id(form_value(f, k), &rs->cust);
		if (!f->fields[k].error && rs->how == RECON_FORM_CLAIM && !rs->cust) {
			form_error(f, k, "%s", _("required: whose payment it is"));
			errors++;
		}
	}
	if ((k = form_find(f, R_INVOICES)) >= 0 &&
	    text_check(form_value(f, k), _("the invoices"), 1000, 1)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	}
	return errors;
}

static void rec_confirm(struct form *f, char *buf, size_t n)
{
	struct reconst *rs = f->arg;

	switch (rs->how) {
	case RECON_FORM_ACCEPT:
		snprintf(buf, n, _("Accept %s as it is? The decision is kept for good."), rs->what);
		break;
	case RECON_FORM_RECORD:
		snprintf(buf, n, _("Record the payment of %s? It is allocated as the form says."),
		         rs->what);
		break;
	case RECON_FORM_CORRECT:
		snprintf(buf, n, _("Post a correcting entry for %s?"), rs->what);
		break;
	default:
		snprintf(buf, n, _("Record the payment of %s for customer %lld?"), rs->what,
		         (long long)rs->cust);
		break;
	}
}

/* The invoices field "INV[:AMOUNT], INV2" split in place into texts. */
static size_t split_invoices(char *s, char **out, size_t max)
{
	size_t n = 0;
	char *save = NULL, *t;

	for (t = strtok_r(s, ", ", &save); t && n < max; t = strtok_r(NULL, ", ", &save))
		out[n++] = t;
	return n;
}

static int rec_post(struct form *f)
{
	struct reconst *rs = f->arg;
	struct recon_pay p = {0};
	int k = form_find(f, R_INVOICES);
	char *inv = xstrdup(k >= 0 ? form_value(f, k) : "");
	char *texts[INVOICES_MAX];
	int64_t pay = 0, ref = 0;
	int rc, replayed = 0;

	p.customer_id = rs->cust;
	p.note = form_value(f, form_find(f, R_NOTE));
	p.n = split_invoices(inv, texts, INVOICES_MAX);
	p.invoices = (const char *const *)texts;
	switch (rs->how) {
	case RECON_FORM_ACCEPT:
		rc = recon_accept(ui_db(), rs->id, p.note);
		break;
	case RECON_FORM_RECORD:
		rc = recon_record(ui_db(), rs->id, &p, &pay, &replayed);
		break;
	case RECON_FORM_CORRECT:
		rc = recon_correct(ui_db(), rs->id, &p, &pay, &ref);
		break;
	default: {
		struct pipe_conn ch;

		memset(&ch, 0, sizeof ch);
		rc = chan_adapter_connect(ui_db(), rs->provider, NULL, NULL, &ch);
		if (!rc)
			rc = recon_claim(ui_db(), &ch, rs->id, &p, &pay, &replayed);
		pipe_conn_close(&ch);
		break;
	}
	}
	free(inv);
	if (rc)
		return rc;
	f->posted_id = pay ? pay : ref ? ref : rs->id;
	if (rs->how == RECON_FORM_CLAIM)
		form_receipt(f, _("Event %1$lld claimed: payment %2$lld."), (long long)rs->id,
		             (long long)pay);
	else if (pay)
		form_receipt(f, _("Difference %1$lld resolved: payment %2$lld recorded."),
		             (long long)rs->id, (long long)pay);
	else if (ref)
		form_receipt(f, _("Difference %1$lld resolved: refund %2$lld recorded."),
		             (long long)rs->id, (long long)ref);
	else
		form_receipt(f, _("Difference %lld accepted."), (long long)rs->id);
	if (replayed)
		form_receipt(f, "%s",
		             _("It had been recorded already: nothing was recorded again."));
	return 0;
}

static void rec_free(struct form *f)
{
	free(f->arg);
}

static const struct form_spec rec_spec = {
    .name = "recon-resolve",
    .check = rec_check,
    .post = rec_post,
    .changed = customer_changed,
    .confirm = rec_confirm,
    .free = rec_free,
    .help = N_("A reconciliation difference is resolved by a person, with a note, for good. "
               "Accept it when it is right as it is; record the payment a channel-only charge "
               "shows (whose it is: a customer number, or the first invoice's customer; the "
               "invoices as INV or INV:AMOUNT, separated by commas); or post a correcting "
               "entry (a refund the desk did not know, the difference of a partial amount). "
               "A parked event is claimed the same way, for a customer. Each asks y first; "
               "the payment is recorded once, whatever is pressed again."),
};

static struct form *open_form(struct reconst *rs, const char *title, const char *info)
{
	struct form *f = form_new(&rec_spec, rs, title);

	form_add(f, F_INFO, 0, _("Channel"), info);
	return f;
}

struct view *form_recon_resolve(int64_t diff_id, int how)
{
	struct reconst *rs;
	struct recon_diff d;
	struct recon_guess g;
	struct form *f;
	char title[200], info[400], a[FMT_MONEY], b[FMT_MONEY], cust[24];
	int k;

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	if (recon_diff_get(ui_db(), diff_id, &d) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read difference %1$lld: %2$s"), (long long)diff_id,
		       err_msg());
		return NULL;
	}
	if (!recon_diff_is_open(&d)) {
		ui_msg(MSG_ERROR, _("Difference %1$lld is resolved already (%2$s)."),
		       (long long)diff_id, d.action);
		recon_diff_free(&d);
		return NULL;
	}
	memset(&g, 0, sizeof g);
	if (how == RECON_FORM_RECORD && recon_record_guess(ui_db(), diff_id, &g) != 0) {
		/* the core's reason: only a channel charge is recorded */
		ui_msg(MSG_ERROR, "%s", err_msg());
		recon_diff_free(&d);
		return NULL;
	}
	rs = xcalloc(1, sizeof *rs);
	rs->how = how;
	rs->id = diff_id;
	snprintf(rs->what, sizeof rs->what, _("difference %1$lld (%2$s, %3$s)"), (long long)d.id,
	         d.kind,
	         d.has_channel ? fmt_money_cur(d.channel_amount, d.channel_currency, a)
	         : d.has_local ? fmt_money_cur(d.local_amount, d.local_currency, a)
	                       : "-");
	snprintf(title, sizeof title,
	         how == RECON_FORM_ACCEPT   ? _("Accept difference %lld")
	         : how == RECON_FORM_RECORD ? _("Record the payment of difference %lld")
	                                    : _("Correcting entry for difference %lld"),
	         (long long)d.id);
	snprintf(info, sizeof info, _("%1$s: ours %2$s, the channel's %3$s; line %4$s"), d.kind,
	         d.has_local ? fmt_money_cur(d.local_amount, d.local_currency, a) : "-",
	         d.has_channel ? fmt_money_cur(d.channel_amount, d.channel_currency, b) : "-",
	         d.line_id[0] ? d.line_id : "-");
	f = open_form(rs, title, info);
	if (how == RECON_FORM_RECORD) {
		if (g.order_no[0])
			form_add(f, F_INFO, 0, _("Order"), g.order_no);
		snprintf(cust, sizeof cust, "%lld", (long long)g.customer_id);
		k = form_add(f, F_TEXT, R_CUSTOMER, _("Customer"), g.customer_id ? cust : NULL);
		f->fields[k].width = 10;
		customer_changed(f, k);
	}
	if (how != RECON_FORM_ACCEPT) {
		k = form_add(f, F_TEXT, R_INVOICES, _("Invoices"), g.invoice[0] ? g.invoice : NULL);
		f->fields[k].width = 40;
		form_note(f, k,
		          how == RECON_FORM_RECORD
		              ? _("INV or INV:AMOUNT, comma separated")
		              : _("for a payment it records: INV or INV:AMOUNT"));
	}
	k = form_add(f, F_TEXT, R_NOTE, _("Note"), NULL);
	f->fields[k].width = 40;
	f->cur = how == RECON_FORM_RECORD && !g.customer_id ? form_find(f, R_CUSTOMER) : k;
	recon_diff_free(&d);
	return form_view(f);
}

struct parked_find {
	int64_t id;
	int found;
	char source[41], type[101], object[256];
};

static int parked_find(const struct recon_parked *e, void *arg)
{
	struct parked_find *pf = arg;

	if (e->id != pf->id)
		return 0;
	pf->found = 1;
	snprintf(pf->source, sizeof pf->source, "%s", e->source);
	snprintf(pf->type, sizeof pf->type, "%s", e->event_type);
	snprintf(pf->object, sizeof pf->object, "%s", e->object_id);
	return 1;
}

struct view *form_recon_claim(int64_t event_id)
{
	struct parked_find pf = {event_id, 0, "", "", ""};
	struct reconst *rs;
	struct form *f;
	char title[200], info[400];
	int k;

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	recon_parked_list(ui_db(), NULL, parked_find, &pf);
	if (!pf.found) {
		ui_msg(MSG_ERROR, _("Event %lld is not a parked payment event."),
		       (long long)event_id);
		return NULL;
	}
	rs = xcalloc(1, sizeof *rs);
	rs->how = RECON_FORM_CLAIM;
	rs->id = event_id;
	snprintf(rs->provider, sizeof rs->provider, "%s", pf.source);
	snprintf(rs->what, sizeof rs->what, _("event %1$lld (%2$s %3$s)"), (long long)event_id,
	         pf.type, pf.object);
	snprintf(title, sizeof title, _("Claim parked event %lld"), (long long)event_id);
	snprintf(info, sizeof info, "%s %s %s", pf.source, pf.type, pf.object);
	f = open_form(rs, title, info);
	k = form_add(f, F_TEXT, R_CUSTOMER, _("Customer"), NULL);
	f->fields[k].width = 10;
	customer_changed(f, k);
	k = form_add(f, F_TEXT, R_INVOICES, _("Invoices"), NULL);
	f->fields[k].width = 40;
	form_note(f, k, _("INV or INV:AMOUNT, comma separated"));
	k = form_add(f, F_TEXT, R_NOTE, _("Note"), NULL);
	f->fields[k].width = 40;
	f->cur = form_find(f, R_CUSTOMER);
	return form_view(f);
}
