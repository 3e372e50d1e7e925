/*
 * view-customer.c - a customer: at the top what they owe and their credit
 * (report_customer_aging: the aging report's figures), then contact
 * details, visits (coming, then past), invoices (with their balances),
 * payments and jobs, with the contact log (newest first, read through
 * contact_list) between the contact details and the visits. Enter opens a
 * visit, an invoice or a payment; p records a payment from this customer;
 * e edits the customer; l logs a contact (form-contact.c).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "contact.h"
#include "customer.h"
#include "draw.h"
#include "err.h"
#include "esign.h"
#include "fmt.h"
#include "i18n.h"
#include "invoice.h"
#include "job.h"
#include "message.h"
#include "pane.h"
#include "payment.h"
#include "report.h"
#include "strbuf.h"
#include "views.h"
#include "visit.h"
#include "xalloc.h"

struct customerv {
	int64_t id;
	char *name;
	char currency[4]; /* of the newest job, for a payment */
	struct pane p;
};

static const struct pane_col job_cols[] = {
    {8, 0, AL_LEFT}, {24, 1, AL_LEFT}, {12, 0, AL_LEFT}, {4, 0, AL_LEFT}};
static const struct pane_col inv_cols[] = {{16, 0, AL_LEFT},  {11, 0, AL_LEFT},  {16, 0, AL_LEFT},
                                           {15, 0, AL_RIGHT}, {15, 0, AL_RIGHT}, {1, 1, AL_LEFT}};
static const struct pane_col pay_cols[] = {{12, 0, AL_LEFT},  {17, 0, AL_LEFT},  {14, 0, AL_LEFT},
                                           {15, 0, AL_RIGHT}, {15, 0, AL_RIGHT}, {1, 1, AL_LEFT}};

static const struct pane_col visit_cols[] = {
    {17, 0, AL_LEFT}, {12, 0, AL_LEFT}, {20, 2, AL_LEFT}, {12, 1, AL_LEFT}};

/* The newest entries of the contact log the pane shows. */
#define CONTACTS_SHOWN 5

static const struct pane_col contact_cols[] = {
    {17, 0, AL_LEFT}, {15, 0, AL_LEFT}, {4, 0, AL_LEFT}, {20, 1, AL_LEFT}};

struct contacts_seen {
	struct customerv *cv;
	int n;
};

static int add_contact(const struct contact *ct, void *arg)
{
	struct contacts_seen *cs = arg;
	struct strbuf what = {0};
	char d[32];
	const char *cells[4];

	if (cs->n++ == CONTACTS_SHOWN)
		return 1; /* enough: the rest are older */
	sb_printf(&what, "%s", ct->summary ? ct->summary : "");
	if (ct->corrects_id) {
		sb_printf(&what, "  ");
		sb_printf(&what, _("[corrects %lld]"), (long long)ct->corrects_id);
	}
	if (ct->corrected_by) {
		sb_printf(&what, "  ");
		sb_printf(&what, _("[corrected by %lld]"), (long long)ct->corrected_by);
	}
	cells[0] = fmt_datetime(ct->at, d);
	cells[1] = contact_label(ct->channel);
	cells[2] = contact_label(ct->direction);
	cells[3] = sb_cstr(&what);
	pane_row(&cs->cv->p, 0, 0, R_NORMAL, 4, contact_cols, cells);
	sb_free(&what);
	return 0;
}

/* The heading with the number of logged contacts, then the newest ones. */
static void add_contacts(struct customerv *cv)
{
	struct contacts_seen cs = {cv, 0};
	int64_t n = 0;
	int rc;

	if (contact_count(ui_db(), cv->id, &n) != 0) {
		pane_text(&cv->p, 0, 0, R_ERROR, _("! Cannot read the contact log: %s"), err_msg());
		return;
	}
	pane_text(&cv->p, 0, 0, R_HEADER, _("Contact log (%lld)"), (long long)n);
	if (n == 0) {
		pane_text(&cv->p, 0, 0, R_DIM, "  %s",
		          _("None. Press l to log a call or a message."));
		return;
	}
	rc = contact_list(ui_db(), cv->id, add_contact, &cs);
	if (rc < 0)
		pane_text(&cv->p, 0, 0, R_ERROR, _("! Cannot read the contact log: %s"), err_msg());
	else if (n > CONTACTS_SHOWN) {
		char more[200];

		snprintf(more, sizeof more,
		         _("Older entries: frontdesk contact list --customer %lld lists them all."),
		         (long long)cv->id);
		pane_text(&cv->p, 0, 0, R_DIM, "  %s", more);
	}
}

struct money_top {
	struct strbuf owed, credit;
};

static int add_figures(const struct aging_row *a, void *arg)
{
	struct money_top *m = arg;
	char b[FMT_MONEY];

	if (a->owed)
		sb_printf(&m->owed, "%s%s", m->owed.len ? ", " : "",
		          fmt_money_cur(a->owed, a->currency, b));
	if (a->credit)
		sb_printf(&m->credit, "%s%s", m->credit.len ? ", " : "",
		          fmt_money_cur(a->credit, a->currency, b));
	return 0;
}

/* The visits of the customer, newest first, as visit_list_customer gives
 * them; split into coming and past when listed. */
struct visits {
	struct visit *a;
	int n, cap;
};

static int take_visit(const struct visit *a, void *arg)
{
	struct visits *vs = arg;
	struct visit *c;

	if (vs->n == vs->cap) {
		vs->cap = vs->cap ? 2 * vs->cap : 16;
		vs->a = xrealloc(vs->a, (size_t)vs->cap * sizeof *vs->a);
	}
	c = &vs->a[vs->n++];
	memset(c, 0, sizeof *c);
	c->id = a->id;
	c->start_at = a->start_at;
	c->end_at = a->end_at;
	snprintf(c->status, sizeof c->status, "%s", a->status);
	c->services = xstrdup(a->services ? a->services : "");
	c->location = a->location ? xstrdup(a->location) : NULL;
	return 0;
}

static void cust_visit_row(struct customerv *cv, const struct visit *a)
{
	char d[32];
	const char *cells[4];

	cells[0] = fmt_datetime(a->start_at, d);
	cells[1] = fmt_status(a->status);
	cells[2] = a->services && *a->services ? a->services : "-";
	cells[3] = a->location ? a->location : "";
	pane_row(&cv->p, K_VISIT, a->id, R_NORMAL, 4, visit_cols, cells);
}

static void add_visits(struct customerv *cv)
{
	struct visits vs = {NULL, 0, 0};
	int64_t now = clock_now();
	int i, coming = 0;

	visit_list_customer(ui_db(), cv->id, take_visit, &vs);
	pane_text(&cv->p, 0, 0, R_HEADER, "%s", _("Coming visits"));
	/* newest first: the coming ones are at the start, latest first */
	for (i = vs.n - 1; i >= 0; i--)
		if (vs.a[i].end_at > now) {
			cust_visit_row(cv, &vs.a[i]);
			coming++;
		}
	if (!coming)
		pane_text(&cv->p, 0, 0, R_DIM, "  %s", _("None."));
	pane_blank(&cv->p);
	pane_text(&cv->p, 0, 0, R_HEADER, "%s", _("Past visits"));
	for (i = 0; i < vs.n; i++)
		if (vs.a[i].end_at <= now)
			cust_visit_row(cv, &vs.a[i]);
	if (coming == vs.n)
		pane_text(&cv->p, 0, 0, R_DIM, "  %s", _("None."));
	for (i = 0; i < vs.n; i++)
		visit_free(&vs.a[i]);
	free(vs.a);
}

static int add_job(const struct job *j, void *arg)
{
	struct customerv *cv = arg;
	char id[24];
	const char *cells[4] = {id, j->title, fmt_status(j->status), j->currency};

	snprintf(id, sizeof id, "%s %lld", _("job"), (long long)j->id);
	if (!cv->currency[0])
		snprintf(cv->currency, sizeof cv->currency, "%s", j->currency);
	pane_row(&cv->p, K_JOB, j->id, R_NORMAL, 4, job_cols, cells);
	{
		/* its signed authorisation, once an estimate was sent: Enter opens it */
		char sig[16] = "";
		int64_t est = 0;

		if (esign_job_state(ui_db(), j->id, sig, &est) == 0 && *sig)
			pane_field(&cv->p, K_ESTIMATE, est,
			           strcmp(sig, "authorised") ? R_DIM : R_NORMAL, 9, _("Signature"),
			           fmt_signature(sig));
	}
	return 0;
}

static int add_invoice(const struct invoice *inv, void *arg)
{
	struct customerv *cv = arg;
	char d[32], t[FMT_MONEY], b[FMT_MONEY], lt[64], lb[64];
	const char *cells[6];

	snprintf(lt, sizeof lt, "%s %s", _("total"), fmt_money(inv->total, inv->currency, t));
	snprintf(lb, sizeof lb, "%s %s", _("balance"),
	         fmt_money(invoice_owed(inv), inv->currency, b));
	cells[0] = inv->number;
	cells[1] = fmt_date(inv->issued_at, d);
	cells[2] = fmt_status(inv->status);
	cells[3] = lt;
	cells[4] = lb;
	cells[5] = "";
	pane_row(&cv->p, K_INVOICE, inv->id, R_NORMAL, 6, inv_cols, cells);
	pane_cell_role(&cv->p, 2, theme_invoice_role(inv->status));
	return 0;
}

static int add_payment(const struct payment *p, void *arg)
{
	struct customerv *cv = arg;
	char id[24], d[32], a[FMT_MONEY], u[FMT_MONEY], lu[64];
	const char *cells[6];

	snprintf(id, sizeof id, _("payment %lld"), (long long)p->id);
	snprintf(lu, sizeof lu, "%s %s", _("credit"), fmt_money(p->unallocated, p->currency, u));
	cells[0] = id;
	cells[1] = fmt_datetime(p->received_at, d);
	cells[2] = fmt_status(p->method);
	cells[3] = fmt_money_cur(p->amount, p->currency, a);
	cells[4] = lu;
	cells[5] = "";
	pane_row(&cv->p, K_PAYMENT, p->id, R_NORMAL, 6, pay_cols, cells);
	return 0;
}

/* Whether they want messages, in which language, and an address or number
 * a provider refused (marked, not only coloured: the desk asks for a new
 * one). */
static void add_messaging(struct customerv *cv)
{
	static const char *const chans[2] = {MESSAGE_EMAIL, MESSAGE_SMS};
	struct message_pref p;
	char addr[330], why[400], line[200];
	size_t i;

	if (message_pref_get(ui_db(), cv->id, &p) != 0) {
		err_clear();
		return;
	}
	snprintf(line, sizeof line, _("e-mails %1$s, text messages %2$s, language %3$s"),
	         p.email_ok ? _("yes") : _("no"), p.sms_ok ? _("yes") : _("no"),
	         *p.language ? p.language : _("the shop's"));
	pane_field(&cv->p, 0, 0, R_NORMAL, 0, _("Messages"), line);
	message_pref_free(&p);
	for (i = 0; i < 2; i++)
		if (message_failed_address(ui_db(), cv->id, chans[i], addr, sizeof addr, why,
		                           sizeof why) == 0 &&
		    *addr)
			pane_text(&cv->p, 0, 0, R_ERROR,
			          i ? _("! Text message failed: %1$s (%2$s)")
			            : _("! E-mail failed: %1$s (%2$s)"),
			          addr, why);
}

static void build(struct customerv *cv)
{
	struct customer c;
	struct invoice_filter f = {cv->id, NULL, "invoice"};
	int kind, old = cv->p.cur, before;
	int64_t id;

	pane_target(&cv->p, &kind, &id);
	pane_clear(&cv->p);
	if (customer_get(ui_db(), cv->id, &c) != 0) {
		pane_text(&cv->p, 0, 0, R_ERROR, _("! Customer %lld no longer exists."),
		          (long long)cv->id);
		return;
	}
	free(cv->name);
	cv->name = xstrdup(c.name);
	pane_text(&cv->p, 0, 0, R_HEADER, _("Customer %1$lld: %2$s"), (long long)c.id, c.name);
	{
		struct money_top m = {{0}, {0}};

		if (report_customer_aging(ui_db(), cv->id, clock_now(), add_figures, &m) != 0)
			pane_text(&cv->p, 0, 0, R_ERROR, _("! Cannot read what they owe: %s"),
			          err_msg());
		else {
			pane_text(&cv->p, 0, 0, m.owed.len ? R_ERROR : R_NORMAL, _("Owes: %s"),
			          m.owed.len ? sb_cstr(&m.owed) : _("nothing"));
			pane_text(&cv->p, 0, 0, R_NORMAL, _("Credit: %s"),
			          m.credit.len ? sb_cstr(&m.credit) : _("none"));
		}
		sb_free(&m.owed);
		sb_free(&m.credit);
	}
	pane_blank(&cv->p);
	pane_field(&cv->p, 0, 0, R_NORMAL, 0, _("Phone"), c.phone ? c.phone : "-");
	pane_field(&cv->p, 0, 0, R_NORMAL, 0, _("Email"), c.email ? c.email : "-");
	pane_field(&cv->p, 0, 0, R_NORMAL, 0, _("Address"), c.address ? c.address : "-");
	if (c.note)
		pane_field(&cv->p, 0, 0, R_NORMAL, 0, _("Note"), c.note);
	customer_free(&c);
	add_messaging(cv);
	pane_blank(&cv->p);
	/* the contact log: between the contact details and the visits */
	add_contacts(cv);
	pane_blank(&cv->p);
	add_visits(cv);
	pane_blank(&cv->p);
	pane_text(&cv->p, 0, 0, R_HEADER, "%s", _("Invoices"));
	before = cv->p.n;
	invoice_list(ui_db(), &f, add_invoice, cv);
	if (cv->p.n == before)
		pane_text(&cv->p, 0, 0, R_DIM, "  %s", _("None."));
	pane_blank(&cv->p);
	pane_text(&cv->p, 0, 0, R_HEADER, "%s", _("Payments"));
	before = cv->p.n;
	payment_list(ui_db(), cv->id, add_payment, cv);
	if (cv->p.n == before)
		pane_text(&cv->p, 0, 0, R_DIM, "  %s", _("None."));
	pane_blank(&cv->p);
	pane_text(&cv->p, 0, 0, R_HEADER, "%s", _("Jobs"));
	before = cv->p.n;
	job_list(ui_db(), cv->id, add_job, cv);
	if (cv->p.n == before)
		pane_text(&cv->p, 0, 0, R_DIM, "  %s", _("None."));
	pane_restore(&cv->p, kind, id, old < 0 ? 0 : old);
}

static void customer_free_view(struct view *v)
{
	struct customerv *cv = v->priv;

	pane_free(&cv->p);
	free(cv->name);
	free(cv);
}

static void customer_resize(struct view *v, int h, int w)
{
	(void)v;
	(void)h;
	(void)w;
}

static void customer_draw(struct view *v, WINDOW *w)
{
	struct customerv *cv = v->priv;

	pane_draw(&cv->p, w, 0);
}

static void customer_reload(struct view *v)
{
	build(v->priv);
}

static struct ui_next customer_action(struct view *v, const struct ui_event *ev)
{
	struct customerv *cv = v->priv;
	int kind;
	int64_t id;
	struct ui_next n = pane_action(&cv->p, ev);

	if (n.kind != UI_UNHANDLED)
		return n;
	pane_target(&cv->p, &kind, &id);
	switch (ev->action) {
	case ACT_OPEN:
		if (kind == K_VISIT)
			return ui_next(UI_PUSH, view_visit_new(id));
		if (kind == K_INVOICE)
			return ui_next(UI_PUSH, view_invoice_new(id));
		if (kind == K_PAYMENT)
			return ui_next(UI_PUSH, view_payment_new(id));
		if (kind == K_ESTIMATE)
			return ui_next(UI_PUSH, view_estimate_new(id));
		if (kind == K_JOB)
			return ui_next(UI_PUSH, view_job_new(id, 0));
		return ui_next(UI_HANDLED, NULL);
	case ACT_LINE_HISTORY:
		return pane_line_history(&cv->p);
	case ACT_RECORD_PAYMENT:
		return ui_next(UI_PUSH,
		               form_payment_new(cv->id, cv->currency[0] ? cv->currency : NULL));
	case ACT_EDIT:
		return ui_next(UI_PUSH, form_customer_edit(cv->id));
	case ACT_LOG_CONTACT:
		return ui_next(UI_PUSH, form_contact_new(cv->id));
	default:
		return ui_next(UI_UNHANDLED, NULL);
	}
}

static void customer_title(struct view *v, char *buf, size_t n)
{
	struct customerv *cv = v->priv;

	snprintf(buf, n, "%s", cv->name ? cv->name : "?");
}

static const char *customer_help(struct view *v)
{
	(void)v;
	return _("A customer: what they owe and their credit (as the aging report counts "
	         "them), their contact log (newest first), visits, invoices, payments and jobs. "
	         "Enter opens a visit, an invoice, a payment or a job; e edits the customer's "
	         "name, phone, email, address and note; l logs a call, a message or a visit at "
	         "the counter. H shows the customer's history, h the selected line's.");
}

static const enum action customer_keys[] = {
    ACT_UP,   ACT_DOWN, ACT_PAGE_UP,        ACT_PAGE_DOWN,   ACT_TOP,          ACT_BOTTOM,
    ACT_OPEN, ACT_EDIT, ACT_RECORD_PAYMENT, ACT_LOG_CONTACT, ACT_LINE_HISTORY, ACT_NONE};
static const enum action customer_hints[] = {ACT_OPEN, ACT_EDIT, ACT_RECORD_PAYMENT,
                                             ACT_LOG_CONTACT, ACT_NONE};

static int customer_target(struct view *v, const char **kind, int64_t *id)
{
	struct customerv *x = v->priv;

	/* the customer's own, whatever line is selected (h: the line's) */
	*kind = "customer";
	*id = x->id;
	return x->id > 0;
}

static const struct view_ops customer_ops = {
    .name = "customer",
    .ctx = CTX_PANE,
    .keys = customer_keys,
    .hints = customer_hints,
    .free = customer_free_view,
    .resize = customer_resize,
    .draw = customer_draw,
    .action = customer_action,
    .reload = customer_reload,
    .title = customer_title,
    .help = customer_help,
    .target = customer_target,
};

struct view *view_customer_new(int64_t customer_id)
{
	struct customerv *cv = xcalloc(1, sizeof *cv);

	cv->id = customer_id;
	cv->p.cur = -1;
	build(cv);
	pane_select_first(&cv->p, 0);
	return view_new(&customer_ops, cv);
}
