/*
 * form-work.c - the forms for work records: book and edit a visit, add a
 * job to a visit and edit a job, add and edit a line item.
 *
 * Each form checks every field before anything is written, then calls the
 * core (visit_add/visit_edit/visit_set_status, job_add + link_add,
 * job_edit/job_set_status, item_add/item_edit). An edit sends only the
 * fields that changed. Where one form needs two core calls (a job and its
 * link to the visit; an edit and a status change), each is its own
 * transaction and the receipt says what was done if the second refuses.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "customer.h"
#include "err.h"
#include "fmt.h"
#include "form.h"
#include "i18n.h"
#include "item.h"
#include "job.h"
#include "money.h"
#include "recurring.h"
#include "settings.h"
#include "text.h"
#include "views.h"
#include "visit.h"
#include "xalloc.h"

static int refuse_readonly(void)
{
	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return 1;
	}
	return 0;
}

static int check_text(struct form *f, int id, const char *what, size_t max, int empty_ok)
{
	int k = form_find(f, id);

	if (text_check(form_value(f, k), what, max, empty_ok)) {
		form_error(f, k, "%s", err_msg());
		return 1;
	}
	return 0;
}

/* ---------------------------------------------------------------- visits */

enum { V_DATE = 1, V_START, V_END, V_OVERNIGHT, V_LOCATION, V_NOTE, V_STATUS, V_REASON, V_SCOPE };

/* A visit a recurring job made: what a change of it changes. */
static const char *const scope_choices[] = {"this", "following", "all"};
static const char *const scope_labels[] = {N_("this visit only"), N_("this and the following"),
                                           N_("all future visits")};

static const char *const vstatus[] = {"scheduled", "confirmed", "in_progress",
                                      "done",      "cancelled", "no_show"};
static const char *const vstatus_labels[] = {N_("scheduled"), N_("confirmed"), N_("in progress"),
                                             N_("done"),      N_("cancelled"), N_("no-show")};
static const char *const yes_no[] = {"no", "yes"};
static const char *const yes_no_labels[] = {N_("no"), N_("yes")};

struct visitst {
	int64_t id;
	struct visit old;
	int64_t start, end;
	int times_changed, end_changed;
	int no_show;            /* form_visit_close: a no-show, else a cancellation */
	form_book_done_fn done; /* form_visit_move: told the new start */
	void *done_arg;
};

static int field_edited(struct form *f, int id)
{
	int k = form_find(f, id);

	return k >= 0 && f->fields[k].edited;
}

/* The times typed, by the core's rule (visit_when_times): a new date or
 * start alone keeps the length (the end is not sent, visit_edit moves it); a
 * new end is used as typed, on the next day only when marked overnight. */
static int times(struct form *f, struct visitst *vs)
{
	static const int when_field[] = {0, V_DATE, V_START, V_END, V_START};
	struct visit_when w = {0};
	int bad = 0;

	vs->times_changed = field_edited(f, V_DATE) || field_edited(f, V_START);
	vs->end_changed = field_edited(f, V_END) || field_edited(f, V_OVERNIGHT);
	w.date = form_value(f, form_find(f, V_DATE));
	w.start = form_value(f, form_find(f, V_START));
	if (vs->end_changed) {
		w.end = form_value(f, form_find(f, V_END));
		w.overnight = !strcmp(form_value(f, form_find(f, V_OVERNIGHT)), "yes");
		if (!*w.end) {
			form_error(f, form_find(f, V_END), "%s", _("a time HH:MM"));
			return 1;
		}
	} else {
		w.length = "1"; /* only the start is read; the length is kept */
	}
	if (visit_when_times(&w, &vs->start, &vs->end, &bad)) {
		form_error(f, form_find(f, when_field[bad >= 1 && bad <= 4 ? bad : 2]), "%s",
		           err_msg());
		return 1;
	}
	return 0;
}

static int visit_form_check(struct form *f)
{
	struct visitst *vs = f->arg;

	return times(f, vs) + check_text(f, V_LOCATION, _("the place"), 400, 1) +
	       check_text(f, V_NOTE, _("the note"), 2000, 1);
}

static int visit_post(struct form *f)
{
	struct visitst *vs = f->arg;
	struct visit_input in = {0};
	const char *loc = form_value(f, form_find(f, V_LOCATION));
	const char *note = form_value(f, form_find(f, V_NOTE));
	const char *scope;
	int rc;

	if (vs->times_changed && vs->start != vs->old.start_at)
		in.start_at = vs->start;
	if (vs->end_changed && vs->end != vs->old.end_at) {
		in.start_at = vs->start;
		in.end_at = vs->end;
	}
	if (strcmp(loc, vs->old.location ? vs->old.location : ""))
		in.location = loc;
	if (strcmp(note, vs->old.note ? vs->old.note : ""))
		in.note = note;
	rc = 0;
	scope = form_find(f, V_SCOPE) >= 0 ? form_value(f, form_find(f, V_SCOPE)) : "this";
	if ((in.start_at || in.end_at || in.location || in.note) && strcmp(scope, "this")) {
		int64_t new_id = 0, dropped = 0;

		if ((rc = recurring_change_visit(ui_db(), vs->id, !strcmp(scope, "all"), &in,
		                                 &new_id, &dropped)))
			return rc;
		form_receipt(
		    f,
		    _("Recurring job %1$lld carries the change on from now (%2$lld visit(s) "
		      "cancelled)."),
		    (long long)new_id, (long long)dropped);
	} else if (in.start_at || in.end_at || in.location || in.note) {
		if ((rc = visit_edit(ui_db(), vs->id, &in)))
			return rc;
		form_receipt(f, _("Visit %lld changed."), (long long)vs->id);
	}
	if (strcmp(form_value(f, form_find(f, V_STATUS)), vs->old.status)) {
		const char *st = form_value(f, form_find(f, V_STATUS));

		if ((rc = visit_set_status(ui_db(), vs->id, st, NULL))) {
			if (!f->receipt.len)
				return rc; /* nothing was written: the form stays open */
			form_receipt(f, _("! The status was not changed: %s"), err_msg());
			return 0;
		}
		form_receipt(f, _("Visit %1$lld is now %2$s."), (long long)vs->id, fmt_status(st));
	}
	if (!f->receipt.len)
		form_receipt(f, "%s", _("Nothing was changed."));
	return 0;
}

static void visit_form_free(struct form *f)
{
	struct visitst *vs = f->arg;

	visit_free(&vs->old);
	free(vs);
}

static const struct form_spec visit_spec = {
    .name = "visit",
    .check = visit_form_check,
    .post = visit_post,
    .free = visit_form_free,
    .help = N_("A visit is when and where only. A new date or start keeps the visit's length; "
               "change the end to change it. An end at or before the start needs 'Runs "
               "overnight' (it is then on the next day). The jobs it works on are added from "
               "the visit's pane (n)."),
};

/* The visit appt_id read into a new state; NULL (with a message) if not. */
static struct visitst *visit_state(int64_t appt_id)
{
	struct visitst *vs;

	if (refuse_readonly())
		return NULL;
	vs = xcalloc(1, sizeof *vs);
	if (visit_get(ui_db(), appt_id, &vs->old) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read visit %1$lld: %2$s"), (long long)appt_id,
		       err_msg());
		free(vs);
		return NULL;
	}
	vs->id = appt_id;
	return vs;
}

static int runs_overnight(const struct visit *a)
{
	char sd[32], ed[32];

	return strcmp(fmt_date(a->start_at, sd), fmt_date(a->end_at, ed)) != 0;
}

/* For a visit a recurring job made: its rule, and with scope the choice of
 * what a change changes (this visit, the following, all). */
static void add_repeats(struct form *f, int64_t appt_id, int scope)
{
	char day[RECURRING_DAY_SIZE], line[RECURRING_RULE_MAX + 80];
	struct recurring r;
	int64_t rule = 0;

	if (recurring_of_visit(ui_db(), appt_id, &rule, day) || !rule ||
	    recurring_get(ui_db(), rule, &r)) {
		err_clear();
		return;
	}
	snprintf(line, sizeof line, _("%1$s (recurring job %2$lld, the visit of %3$s)"), r.rrule,
	         (long long)rule, day);
	form_add(f, F_INFO, 0, _("Repeats"), line);
	if (scope)
		form_add_choice(f, V_SCOPE, _("Change"), scope_choices, scope_labels, 3, "this");
	recurring_free(&r);
}

struct view *form_visit_edit(int64_t appt_id)
{
	struct visitst *vs = visit_state(appt_id);
	struct form *f;
	char d[32], t[16], title[100];

	if (!vs)
		return NULL;
	snprintf(title, sizeof title, _("Edit visit %lld"), (long long)appt_id);
	f = form_new(&visit_spec, vs, title);
	form_add(f, F_TEXT, V_DATE, _("Date (YYYY-MM-DD)"), fmt_date(vs->old.start_at, d));
	clock_format_local(vs->old.start_at, "%H:%M", t, sizeof t);
	form_add(f, F_TEXT, V_START, _("Starts (HH:MM)"), t);
	clock_format_local(vs->old.end_at, "%H:%M", t, sizeof t);
	form_add(f, F_TEXT, V_END, _("Ends (HH:MM)"), t);
	form_add_choice(f, V_OVERNIGHT, _("Runs overnight"), yes_no, yes_no_labels, 2,
	                runs_overnight(&vs->old) ? "yes" : "no");
	form_add(f, F_TEXT, V_LOCATION, _("Place"), vs->old.location);
	form_add(f, F_TEXT, V_NOTE, _("Note"), vs->old.note);
	form_add_choice(f, V_STATUS, _("Status"), vstatus, vstatus_labels, 6, vs->old.status);
	add_repeats(f, appt_id, 1);
	return form_view(f);
}

/* Move: a day and a start; the length is kept by the core (visit_move). */
static int move_check(struct form *f)
{
	struct visitst *vs = f->arg;
	struct visit_when w = {0};
	int bad = 0;

	w.date = form_value(f, form_find(f, V_DATE));
	w.start = form_value(f, form_find(f, V_START));
	w.length = "1";
	if (visit_when_times(&w, &vs->start, &vs->end, &bad)) {
		form_error(f, form_find(f, bad == VISIT_WHEN_DATE ? V_DATE : V_START), "%s",
		           err_msg());
		return 1;
	}
	return 0;
}

static int move_post(struct form *f)
{
	struct visitst *vs = f->arg;
	struct visit a;
	char span[80], s[32], e[32];
	int rc;

	if ((rc = visit_move(ui_db(), vs->id, vs->start)))
		return rc;
	f->posted_id = vs->id;
	if (visit_get(ui_db(), vs->id, &a) == 0) {
		snprintf(span, sizeof span, "%s - %s", fmt_datetime(a.start_at, s),
		         fmt_datetime(a.end_at, e));
		form_receipt(f, _("Visit %1$lld moved to %2$s."), (long long)vs->id, span);
		visit_free(&a);
	}
	return 0;
}

static struct view *move_next(struct form *f)
{
	struct visitst *vs = f->arg;

	if (vs->done && f->posted_id)
		vs->done(vs->id, vs->start, vs->done_arg);
	return NULL;
}

static const struct form_spec move_spec = {
    .name = "visit-move",
    .check = move_check,
    .post = move_post,
    .next = move_next,
    .free = visit_form_free,
    .help = N_("Type the new day and start; the visit keeps its length and everything it "
               "works on."),
};

struct view *form_visit_move(int64_t appt_id, form_book_done_fn done, void *arg)
{
	struct visitst *vs = visit_state(appt_id);
	struct form *f;
	char d[32], t[16], title[160], s[32], e[32];

	if (!vs)
		return NULL;
	vs->done = done;
	vs->done_arg = arg;
	snprintf(title, sizeof title, _("Move visit %lld"), (long long)appt_id);
	f = form_new(&move_spec, vs, title);
	snprintf(title, sizeof title, _("%1$s - %2$s (%3$lld min)"),
	         fmt_datetime(vs->old.start_at, s), fmt_datetime(vs->old.end_at, e),
	         (long long)((vs->old.end_at - vs->old.start_at) / 60));
	form_add(f, F_INFO, 0, _("Now"), title);
	form_add(f, F_TEXT, V_DATE, _("New date (YYYY-MM-DD)"), fmt_date(vs->old.start_at, d));
	clock_format_local(vs->old.start_at, "%H:%M", t, sizeof t);
	form_add(f, F_TEXT, V_START, _("New start (HH:MM)"), t);
	/* a move is this visit's alone: the rule keeps it as an exception */
	add_repeats(f, appt_id, 0);
	return form_view(f);
}

/* Cancel or no-show: a reason, then y. */
static int close_check(struct form *f)
{
	return check_text(f, V_REASON, _("the reason"), 400, 1);
}

static void close_confirm(struct form *f, char *buf, size_t n)
{
	struct visitst *vs = f->arg;

	char when[32];
	const char *who = vs->old.customers && *vs->old.customers ? vs->old.customers : "-";

	/* the question names whom and what, as the form does: the form's
	 * lines are hidden by nothing, but the question is read alone */
	snprintf(buf, n,
	         vs->no_show ? _("Mark visit %1$lld (%2$s, %3$s) a no-show? This is final.")
	                     : _("Cancel visit %1$lld (%2$s, %3$s)? This is final."),
	         (long long)vs->id, who, fmt_datetime(vs->old.start_at, when));
}

static int close_post(struct form *f)
{
	struct visitst *vs = f->arg;
	const char *reason = form_value(f, form_find(f, V_REASON));
	int rc;

	const char *status = visit_close_status(vs->no_show);

	if ((rc = visit_set_status(ui_db(), vs->id, status, *reason ? reason : NULL)))
		return rc;
	f->posted_id = vs->id;
	form_receipt(f, _("Visit %1$lld is now %2$s."), (long long)vs->id, fmt_status(status));
	return 0;
}

static const struct form_spec close_spec = {
    .name = "visit-close",
    .check = close_check,
    .post = close_post,
    .confirm = close_confirm,
    .free = visit_form_free,
    .help = N_("The reason is kept in the visit's history. A cancelled or no-show visit is "
               "final: book a new one if the customer calls again."),
};

struct view *form_visit_close(int64_t appt_id, int no_show)
{
	struct visitst *vs = visit_state(appt_id);
	struct form *f;
	char title[160], s[32];
	int k;

	if (!vs)
		return NULL;
	vs->no_show = no_show != 0;
	snprintf(title, sizeof title,
	         vs->no_show ? _("No-show: visit %1$lld, %2$s") : _("Cancel visit %1$lld, %2$s"),
	         (long long)appt_id, fmt_datetime(vs->old.start_at, s));
	f = form_new(&close_spec, vs, title);
	/* whom and what is cancelled, before the reason is asked */
	form_add(f, F_INFO, 0, _("Customer"),
	         vs->old.customers && *vs->old.customers ? vs->old.customers : "-");
	form_add(f, F_INFO, 0, _("Services"),
	         vs->old.services && *vs->old.services ? vs->old.services : "-");
	k = form_add(f, F_TEXT, V_REASON, _("Reason"), NULL);
	f->fields[k].width = 40;
	return form_view(f);
}

/* ---------------------------------------------------------------- jobs */

enum { J_CUSTOMER = 1, J_TITLE, J_CURRENCY, J_MINUTES, J_NOTE, J_STATUS };

static const char *const jstatus[] = {"open", "in_progress", "done", "cancelled"};
static const char *const jstatus_labels[] = {N_("open"), N_("in progress"), N_("done"),
                                             N_("cancelled")};

struct jobst {
	int64_t appt_id; /* new job: the visit that works on it */
	int64_t id;      /* edit: the job */
	struct job old;
	int64_t customer_id, minutes;
};

/* The customer named by text, by the core's one rule (customer_find): a
 * number, a name or a phone number's digits; the name beside the field. */
static int resolve_customer(struct form *f, int k, int64_t *id)
{
	char name[256];

	if (customer_find(ui_db(), form_value(f, k), id, name, sizeof name)) {
		form_error(f, k, "%s", err_msg());
		return 1;
	}
	form_note(f, k, name);
	return 0;
}

static void job_changed(struct form *f, int i)
{
	if (i >= 0 && f->fields[i].id == J_CUSTOMER) {
		const char *t = form_value(f, i);
		char name[256];
		int64_t id;
		int rc;

		form_note(f, i, NULL);
		if (strlen(t) >= 2) {
			rc = customer_find(ui_db(), t, &id, name, sizeof name);
			if (rc == 0)
				form_note(f, i, name);
			else if (rc == FD_ECONFLICT)
				form_note(f, i, _("several match"));
		}
	}
}

static int job_check(struct form *f)
{
	struct jobst *js = f->arg;
	int errors = 0, k;

	if (js->id == 0) {
		char *end;

		errors += resolve_customer(f, form_find(f, J_CUSTOMER), &js->customer_id);
		k = form_find(f, J_CURRENCY);
		if (!currency_find(form_value(f, k))) {
			form_error(f, k, "%s", _("an ISO 4217 code such as USD"));
			errors++;
		}
		k = form_find(f, J_MINUTES);
		js->minutes = strtoll(form_value(f, k), &end, 10);
		if (*end || js->minutes < 0 || js->minutes > 100000 || !*form_value(f, k)) {
			form_error(f, k, "%s", _("minutes, 0 to 100000"));
			errors++;
		}
	}
	k = form_find(f, J_TITLE);
	if (!*form_value(f, k)) {
		form_error(f, k, "%s", _("required"));
		errors++;
	} else {
		errors += check_text(f, J_TITLE, _("the title"), 200, 0);
	}
	errors += check_text(f, J_NOTE, _("the note"), 2000, 1);
	return errors;
}

static int job_post(struct form *f)
{
	struct jobst *js = f->arg;
	struct job_input in = {0};
	const char *title = form_value(f, form_find(f, J_TITLE));
	const char *note = form_value(f, form_find(f, J_NOTE));
	int64_t id;
	int rc;

	if (js->id == 0) {
		in.customer_id = js->customer_id;
		in.title = title;
		in.currency = form_value(f, form_find(f, J_CURRENCY));
		in.note = *note ? note : NULL;
		if ((rc = job_add(ui_db(), &in, &id)))
			return rc;
		f->posted_id = id;
		form_receipt(f, _("Job %1$lld added: %2$s."), (long long)id, title);
		if ((rc = link_add(ui_db(), js->appt_id, id, js->minutes, NULL)))
			form_receipt(f, _("! It could not be put on visit %1$lld: %2$s"),
			             (long long)js->appt_id, err_msg());
		else
			form_receipt(f, _("Visit %1$lld works on it (%2$lld min)."),
			             (long long)js->appt_id, (long long)js->minutes);
		return 0;
	}
	if (strcmp(title, js->old.title))
		in.title = title;
	if (strcmp(note, js->old.note ? js->old.note : ""))
		in.note = note;
	if (in.title || in.note) {
		if ((rc = job_edit(ui_db(), js->id, &in)))
			return rc;
		form_receipt(f, _("Job %lld changed."), (long long)js->id);
	}
	if (strcmp(form_value(f, form_find(f, J_STATUS)), js->old.status)) {
		const char *st = form_value(f, form_find(f, J_STATUS));

		if ((rc = job_set_status(ui_db(), js->id, st, NULL))) {
			if (!f->receipt.len)
				return rc;
			form_receipt(f, _("! The status was not changed: %s"), err_msg());
			return 0;
		}
		form_receipt(f, _("Job %1$lld is now %2$s."), (long long)js->id, fmt_status(st));
	}
	if (!f->receipt.len)
		form_receipt(f, "%s", _("Nothing was changed."));
	return 0;
}

static void job_free_form(struct form *f)
{
	struct jobst *js = f->arg;

	if (js->id)
		job_free(&js->old);
	free(js);
}

static const struct form_spec job_spec = {
    .name = "job",
    .check = job_check,
    .post = job_post,
    .changed = job_changed,
    .free = job_free_form,
    .help = N_("A job is work for one customer in one currency; its line items are billed "
               "once, however many visits it takes."),
};

struct view *form_job_new(int64_t appt_id)
{
	struct jobst *js;
	struct form *f;
	char title[100];

	if (refuse_readonly())
		return NULL;
	js = xcalloc(1, sizeof *js);
	js->appt_id = appt_id;
	snprintf(title, sizeof title, _("New job on visit %lld"), (long long)appt_id);
	f = form_new(&job_spec, js, title);
	form_add(f, F_TEXT, J_CUSTOMER, _("Customer (name, phone or number)"), NULL);
	form_add(f, F_TEXT, J_TITLE, _("Title"), NULL);
	form_add(f, F_TEXT, J_CURRENCY, _("Currency"), config_get("currency", "USD"));
	form_add(f, F_TEXT, J_MINUTES, _("Minutes on this visit"), "60");
	form_add(f, F_TEXT, J_NOTE, _("Note"), NULL);
	return form_view(f);
}

struct view *form_job_edit(int64_t job_id)
{
	struct jobst *js;
	struct form *f;
	char title[300];

	if (refuse_readonly())
		return NULL;
	js = xcalloc(1, sizeof *js);
	if (job_get(ui_db(), job_id, &js->old) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read job %1$lld: %2$s"), (long long)job_id, err_msg());
		free(js);
		return NULL;
	}
	js->id = job_id;
	snprintf(title, sizeof title, _("Edit job %1$lld (%2$s)"), (long long)job_id,
	         js->old.customer_name);
	f = form_new(&job_spec, js, title);
	form_add(f, F_TEXT, J_TITLE, _("Title"), js->old.title);
	form_add(f, F_TEXT, J_NOTE, _("Note"), js->old.note);
	form_add_choice(f, J_STATUS, _("Status"), jstatus, jstatus_labels, 4, js->old.status);
	return form_view(f);
}

/* ---------------------------------------------------------------- line items */

enum { L_KIND = 1, L_DESC, L_QTY, L_PRICE };

static const char *const kinds[] = {"SERVICE", "FEE", "DISCOUNT", "TAX", "CREDIT"};
static const char *const kind_labels[] = {N_("service"), N_("fee"), N_("discount"), N_("tax"),
                                          N_("credit")};

struct itemst {
	int64_t job_id;
	int64_t id; /* edit */
	struct line_item old;
	char currency[4];
	int64_t qty, price;
};

static int item_check(struct form *f)
{
	struct itemst *is = f->arg;
	const struct currency *cur = currency_find(is->currency);
	int errors = 0, k;

	k = form_find(f, L_DESC);
	if (!*form_value(f, k)) {
		form_error(f, k, "%s", _("required"));
		errors++;
	} else {
		errors += check_text(f, L_DESC, _("the description"), 400, 0);
	}
	k = form_find(f, L_QTY);
	if (qty_parse(form_value(f, k), &is->qty)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	}
	k = form_find(f, L_PRICE);
	if (!cur || money_parse(form_value(f, k), cur, &is->price)) {
		form_error(f, k, "%s", err_msg());
		errors++;
	} else if (is->price < 0) {
		form_error(f, k, "%s", _("never negative: choose the kind discount or credit"));
		errors++;
	}
	return errors;
}

static int item_post(struct form *f)
{
	struct itemst *is = f->arg;
	struct item_input in = {0};
	struct line_item li;
	char m[FMT_MONEY];
	int64_t id = is->id;
	int rc;

	in.job_id = is->job_id;
	in.kind = form_value(f, form_find(f, L_KIND));
	in.description = form_value(f, form_find(f, L_DESC));
	in.qty_milli = is->qty;
	in.unit_price = is->price;
	rc = is->id ? item_edit(ui_db(), is->id, &in) : item_add(ui_db(), &in, &id);
	if (rc)
		return rc;
	f->posted_id = id;
	if (item_get(ui_db(), id, &li) == 0) {
		form_receipt(f,
		             is->id ? _("Line item %1$lld changed: %2$s, %3$s.")
		                    : _("Line item %1$lld added: %2$s, %3$s."),
		             (long long)id, li.description,
		             fmt_money_cur(li.amount, li.currency, m));
		item_free(&li);
	}
	return 0;
}

static void item_free_form(struct form *f)
{
	struct itemst *is = f->arg;

	if (is->id)
		item_free(&is->old);
	free(is);
}

static const struct form_spec item_spec = {
    .name = "line-item",
    .check = item_check,
    .post = item_post,
    .free = item_free_form,
    .help = N_("Quantity may have up to 3 decimals (1.5 hours). The unit price is never "
               "negative: a discount or a credit makes the amount negative by its kind."),
};

static struct view *item_form(struct itemst *is, const char *title)
{
	struct form *f = form_new(&item_spec, is, title);
	char q[32], m[FMT_MONEY];

	form_add_choice(f, L_KIND, _("Kind"), kinds, kind_labels, 5,
	                is->id ? is->old.kind : "SERVICE");
	form_add(f, F_TEXT, L_DESC, _("Description"), is->id ? is->old.description : NULL);
	if (is->id)
		qty_format(is->old.qty_milli, q, sizeof q);
	form_add(f, F_TEXT, L_QTY, _("Quantity"), is->id ? q : "1");
	form_add(f, F_TEXT, L_PRICE, _("Unit price"),
	         is->id ? fmt_money(is->old.unit_price, is->currency, m) : NULL);
	return form_view(f);
}

struct view *form_item_new(int64_t job_id)
{
	struct itemst *is;
	struct job j;
	char title[300];

	if (refuse_readonly())
		return NULL;
	if (job_get(ui_db(), job_id, &j) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read job %1$lld: %2$s"), (long long)job_id, err_msg());
		return NULL;
	}
	is = xcalloc(1, sizeof *is);
	is->job_id = job_id;
	snprintf(is->currency, sizeof is->currency, "%s", j.currency);
	snprintf(title, sizeof title, _("New line item on job %1$lld (%2$s, %3$s)"),
	         (long long)job_id, j.title, j.currency);
	job_free(&j);
	return item_form(is, title);
}

struct view *form_item_edit(int64_t item_id)
{
	struct itemst *is;
	char title[200];

	if (refuse_readonly())
		return NULL;
	is = xcalloc(1, sizeof *is);
	if (item_get(ui_db(), item_id, &is->old) != 0) {
		ui_msg(MSG_ERROR, _("Cannot read line item %1$lld: %2$s"), (long long)item_id,
		       err_msg());
		free(is);
		return NULL;
	}
	is->id = item_id;
	is->job_id = is->old.job_id;
	snprintf(is->currency, sizeof is->currency, "%s", is->old.currency);
	snprintf(title, sizeof title, _("Edit line item %1$lld (%2$s)"), (long long)item_id,
	         is->old.currency);
	return item_form(is, title);
}
