/*
 * view-visit.c - a visit: when, where, status, customers; the jobs it
 * works on with their line items, and the invoices that bill each job.
 *
 * Everything is read through the core (visit_get, link_list, job_get,
 * item_list, invoice_of_job, invoice_get, projection_get) each time the
 * pane is built; a rebuild keeps the cursor on the same record. Enter on an
 * invoice opens it, on a job or a line item the job's pane (view-job.c);
 * e edits the visit, a job or an item; n adds a job; a adds a line item; i
 * issues an invoice; p records a payment. H is the visit's history, h the
 * selected line's.
 *
 * A photo of a condition report shows its rough preview (media-preview.h,
 * drawn by media-art.c) with its hotspots' numbers on it, made once when
 * the pane is built, not at each redraw; a photo that cannot be shown says
 * why in one line. A panorama or a 3D capture is seen at the viewer's
 * address of its host.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "condition.h"
#include "draw.h"
#include "err.h"
#include "esign.h"
#include "fmt.h"
#include "i18n.h"
#include "invoice.h"
#include "item.h"
#include "job.h"
#include "media-art.h"
#include "media-preview.h"
#include "media.h"
#include "message.h"
#include "money.h"
#include "pane-rows.h"
#include "pane.h"
#include "projection.h"
#include "recurring.h"
#include "views.h"
#include "visit.h"
#include "xalloc.h"

#define MAX_JOBS     64
#define MAX_REFS     512
#define MAX_PREVIEWS 32 /* photos previewed in one pane (a line says so beyond) */
#define PREVIEW_COLS 40 /* a preview's largest size in cells */
#define PREVIEW_ROWS 12

struct jobref {
	int64_t job_id, customer_id;
	char currency[4];
};

struct itemref {
	int kind;           /* K_ITEM or K_INVOICE */
	int64_t id, job_id; /* -> its job */
};

struct visitv {
	int64_t appt_id;
	struct pane p;
	struct jobref jobs[MAX_JOBS];
	int njobs;
	struct itemref refs[MAX_REFS]; /* items and invoices, with their job */
	int nrefs;
	int gone;
	int hosts;                             /* a medium's hosts shown (show_host) */
	struct media_preview pv[MAX_PREVIEWS]; /* the photos' previews, drawn by the pane */
	int npv;
};

static void previews_free(struct visitv *vv)
{
	int i;

	for (i = 0; i < vv->npv; i++)
		media_preview_free(&vv->pv[i]);
	vv->npv = 0;
}

static void add_ref(struct visitv *vv, int kind, int64_t id, int64_t job)
{
	if (vv->nrefs < MAX_REFS) {
		vv->refs[vv->nrefs].kind = kind;
		vv->refs[vv->nrefs].id = id;
		vv->refs[vv->nrefs].job_id = job;
		vv->nrefs++;
	}
}

struct build {
	struct visitv *vv;
	int64_t job_id;
	const char *currency;
	int count;
};

static int add_item(const struct line_item *li, void *arg)
{
	struct build *b = arg;

	pane_item_row(&b->vv->p, K_ITEM, 4, li);
	add_ref(b->vv, K_ITEM, li->id, b->job_id);
	b->count++;
	return 0;
}

static int add_invoice(int64_t id, void *arg)
{
	struct build *b = arg;

	if (pane_invoice_row(&b->vv->p, K_INVOICE, 4, id) != 0)
		return 0;
	add_ref(b->vv, K_INVOICE, id, b->job_id);
	b->count++;
	return 0;
}

static int add_link(const struct link *l, void *arg)
{
	struct build *b = arg;
	struct visitv *vv = b->vv;
	struct job j;
	struct build sub = {vv, l->job_id, NULL, 0};

	if (job_get(ui_db(), l->job_id, &j) != 0)
		return 0;
	pane_blank(&vv->p);
	pane_text(&vv->p, K_JOB, j.id, R_HEADER,
	          _("Job %1$lld: %2$s - %3$s (%4$s, %5$s, %6$lld min)"), (long long)j.id, j.title,
	          j.customer_name, fmt_status(j.status), j.currency, (long long)l->est_minutes);
	{
		/* the signed authorisation of the job (esign.h), once asked for */
		char sig[16] = "";
		int64_t est = 0;

		/* Enter on it opens the estimate (view-estimate.c) */
		if (esign_job_state(ui_db(), j.id, sig, &est) == 0 && *sig)
			pane_field(&vv->p, K_ESTIMATE, est,
			           strcmp(sig, "authorised") ? R_DIM : R_NORMAL, 5, _("Signature"),
			           fmt_signature(sig));
	}
	if (vv->njobs < MAX_JOBS) {
		vv->jobs[vv->njobs].job_id = j.id;
		vv->jobs[vv->njobs].customer_id = j.customer_id;
		snprintf(vv->jobs[vv->njobs].currency, 4, "%s", j.currency);
		vv->njobs++;
	}
	item_list(ui_db(), j.id, add_item, &sub);
	if (sub.count == 0)
		pane_text(&vv->p, 0, 0, R_DIM, "     %s",
		          _("No line items yet (press a to add one)."));
	sub.count = 0;
	invoice_of_job(ui_db(), j.id, add_invoice, &sub);
	if (sub.count == 0)
		pane_text(&vv->p, 0, 0, R_DIM, "     %s",
		          _("Not invoiced yet (press i to issue an invoice)."));
	job_free(&j);
	return 0;
}

/* A visit a recurring job made: its rule, and whether it keeps to it. */
static void show_repeats(struct visitv *vv, int64_t appt)
{
	char day[RECURRING_DAY_SIZE], line[RECURRING_RULE_MAX + 120];
	struct recurring r;
	int64_t rule = 0;

	if (recurring_of_visit(ui_db(), appt, &rule, day) || !rule ||
	    recurring_get(ui_db(), rule, &r)) {
		err_clear();
		return;
	}
	snprintf(line, sizeof line,
	         _("%1$s at %2$02d:%3$02d (recurring job %4$lld, the visit of %5$s)"), r.rrule,
	         r.start_minute / 60, r.start_minute % 60, (long long)rule, day);
	pane_field(&vv->p, 0, 0, R_NORMAL, 0, _("Repeats"), line);
	recurring_free(&r);
}

/* The visit's condition reports (condition.h): each with its media and
 * the hotspots on them, by number. */
static int show_hotspot(const struct condition_hotspot *h, void *arg)
{
	struct visitv *vv = arg;

	pane_text(&vv->p, 0, 0, R_NORMAL, "     #%d %s: %s", h->number, condition_label(h->kind),
	          h->label);
	return 0;
}

/* Row n of a preview, three columns in (below the medium's line). */
static void draw_preview_row(WINDOW *w, int y, int x, int width, const void *arg, int n)
{
	if (width > 3)
		media_art_row(w, y, x + 3, width - 3, arg, n);
}

/* Where a medium is hosted: each provider that holds it or is getting it,
 * with its state and the viewer's address (the rest is seen there). */
static int show_host(const struct media_host *h, void *arg)
{
	struct visitv *vv = arg;

	if (!strcmp(h->status, "deleted"))
		return 0;
	vv->hosts++;
	pane_text(&vv->p, 0, 0, R_NORMAL, _("     at %1$s: %2$s %3$s"), h->provider,
	          media_host_label(h->status),
	          h->viewer_url ? h->viewer_url
	          : h->error    ? h->error
	                        : "");
	return 0;
}

/* A photo's preview, a pane line per row of cells, indented as the
 * medium's lines; or why there is none. */
static void show_preview(struct visitv *vv, int64_t media_id)
{
	struct media_preview *p;
	int cols = COLS - 9, r;

	if (!media_art_utf8()) {
		pane_text(&vv->p, 0, 0, R_DIM, "     %s",
		          _("(a UTF-8 terminal shows a preview of the photo)"));
		return;
	}
	if (vv->npv == MAX_PREVIEWS) {
		pane_text(&vv->p, 0, 0, R_DIM, "     %s",
		          _("(no preview: too many photos in this visit's pane)"));
		return;
	}
	if (cols > PREVIEW_COLS)
		cols = PREVIEW_COLS;
	if (cols < 1)
		cols = 1;
	p = &vv->pv[vv->npv];
	if (media_preview(ui_db(), media_id, cols, PREVIEW_ROWS, p) != 0) {
		char why[600];

		/* an error's line starts with "!" (theme.h) */
		snprintf(why, sizeof why, _("no preview: %s"), err_msg());
		pane_text(&vv->p, 0, 0, R_ERROR, "     ! %s", why);
		err_clear();
		return;
	}
	vv->npv++;
	for (r = 0; r < p->rows; r++)
		pane_drawn(&vv->p, draw_preview_row, p, r);
}

static int show_medium(const struct condition_media *m, void *arg)
{
	struct visitv *vv = arg;

	pane_text(&vv->p, 0, 0, R_DIM, _("   Medium %1$lld: %2$s %3$s, %4$lld hotspots"),
	          (long long)m->id, condition_label(m->kind),
	          m->caption     ? m->caption
	          : m->file_name ? m->file_name
	                         : "",
	          (long long)m->hotspots);
	vv->hosts = 0;
	media_host_list(ui_db(), m->id, show_host, vv);
	if (!vv->hosts)
		pane_text(&vv->p, 0, 0, R_DIM, "%s", _("     kept here only (no media provider)"));
	if (!strcmp(m->kind, "photo"))
		show_preview(vv, m->id);
	return 0;
}

static int show_report(const struct condition_report *r, void *arg)
{
	struct visitv *vv = arg;

	pane_blank(&vv->p);
	pane_text(&vv->p, 0, 0, R_HEADER,
	          strcmp(r->stage, "after")
	              ? _("Condition report %1$lld before the work (%2$s): %3$lld media, %4$lld "
	                  "hotspots")
	              : _("Condition report %1$lld after the work (%2$s): %3$lld media, %4$lld "
	                  "hotspots"),
	          (long long)r->id, condition_label(r->status), (long long)r->media,
	          (long long)r->hotspots);
	if (r->note)
		pane_field(&vv->p, 0, 0, R_NORMAL, 3, _("Note"), r->note);
	condition_media_list(ui_db(), r->id, show_medium, vv);
	condition_hotspot_list(ui_db(), r->id, show_hotspot, vv);
	err_clear();
	return 0;
}

static void build(struct visitv *vv)
{
	struct visit a;
	struct cal_row r;
	struct build b = {vv, 0, NULL, 0};
	char from[32], to[32];
	int kind, old = vv->p.cur;
	int64_t id;

	pane_target(&vv->p, &kind, &id);
	pane_clear(&vv->p);
	previews_free(vv); /* after the lines that point at them */
	vv->njobs = vv->nrefs = 0;
	if (visit_get(ui_db(), vv->appt_id, &a) != 0) {
		vv->gone = 1;
		pane_text(&vv->p, 0, 0, R_ERROR, _("! Visit %lld no longer exists."),
		          (long long)vv->appt_id);
		return;
	}
	vv->gone = 0;
	fmt_datetime(a.start_at, from);
	{
		char t[32];

		fmt_datetime(a.end_at, t);
		/* the end's date only when it differs from the start's */
		snprintf(to, sizeof to, "%s", strncmp(t, from, 10) == 0 ? t + 11 : t);
	}
	pane_text(&vv->p, K_VISIT, a.id, R_HEADER, _("Visit %1$lld: %2$s-%3$s, %4$s"),
	          (long long)a.id, from, to, fmt_status(a.status));
	pane_field(&vv->p, 0, 0, R_NORMAL, 0, _("Where"), a.location ? a.location : "-");
	pane_field(&vv->p, 0, 0, R_NORMAL, 0, _("Customers"),
	           a.customers && *a.customers ? a.customers : _("(no job yet)"));
	if (a.note)
		pane_field(&vv->p, 0, 0, R_NORMAL, 0, _("Note"), a.note);
	show_repeats(vv, a.id);
	if (projection_get(ui_db(), a.id, &r) == 0) {
		const struct pay_mark *pm = theme_pay(r.pay_status);
		char price[FMT_MONEY];

		pane_text(&vv->p, 0, 0, pm->role, _("Calendar: %1$s %2$s, %3$s for this visit"),
		          pm->sym, _(pm->word),
		          r.has_total ? (r.currency[0] ? fmt_money_cur(r.total, r.currency, price)
		                                       : _("nothing to charge"))
		                      : _("mixed currencies"));
		cal_row_free(&r);
	}
	link_list(ui_db(), a.id, 0, add_link, &b);
	if (vv->njobs == 0) {
		pane_blank(&vv->p);
		pane_text(&vv->p, 0, 0, R_DIM, "%s",
		          _("This visit works on no job yet: press n to add one."));
	}
	condition_list(ui_db(), a.id, 0, show_report, vv);
	err_clear();
	visit_free(&a);
	pane_restore(&vv->p, kind ? kind : K_VISIT, kind ? id : vv->appt_id, old < 0 ? 0 : old);
}

static const struct jobref *job_of_selection(struct visitv *vv)
{
	int kind, i;
	int64_t id, job = 0;

	pane_target(&vv->p, &kind, &id);
	if (kind == K_JOB)
		job = id;
	else if (kind == K_ITEM || kind == K_INVOICE)
		for (i = 0; i < vv->nrefs; i++)
			if (vv->refs[i].kind == kind && vv->refs[i].id == id) {
				job = vv->refs[i].job_id;
				break;
			}
	for (i = 0; i < vv->njobs; i++)
		if (vv->jobs[i].job_id == job)
			return &vv->jobs[i];
	return vv->njobs == 1 ? &vv->jobs[0] : NULL;
}

static void visitv_free(struct view *v)
{
	struct visitv *vv = v->priv;

	pane_free(&vv->p);
	previews_free(vv);
	free(vv);
}

static void visit_resize(struct view *v, int h, int w)
{
	(void)v;
	(void)h;
	(void)w;
}

static void visit_draw(struct view *v, WINDOW *w)
{
	struct visitv *vv = v->priv;

	pane_draw(&vv->p, w, 0);
}

static void visit_reload(struct view *v)
{
	build(v->priv);
}

static struct ui_next visit_action(struct view *v, const struct ui_event *ev)
{
	struct visitv *vv = v->priv;
	const struct jobref *j;
	int kind;
	int64_t id;
	struct ui_next n = pane_action(&vv->p, ev);

	if (n.kind != UI_UNHANDLED)
		return n;
	pane_target(&vv->p, &kind, &id);
	switch (ev->action) {
	case ACT_OPEN:
		if (kind == K_INVOICE)
			return ui_next(UI_PUSH, view_invoice_new(id));
		if (kind == K_ESTIMATE)
			return ui_next(UI_PUSH, view_estimate_new(id));
		/* a job opens its pane; a line item opens its job's pane with
		 * the cursor on it, read-only like every pane (e edits) */
		if (kind == K_JOB)
			return ui_next(UI_PUSH, view_job_new(id, 0));
		if (kind == K_ITEM && (j = job_of_selection(vv)))
			return ui_next(UI_PUSH, view_job_new(j->job_id, id));
		if (kind == K_VISIT)
			return ui_next(UI_PUSH, form_visit_edit(id));
		return ui_next(UI_HANDLED, NULL);
	case ACT_EDIT:
		if (kind == K_VISIT)
			return ui_next(UI_PUSH, form_visit_edit(id));
		if (kind == K_JOB)
			return ui_next(UI_PUSH, form_job_edit(id));
		if (kind == K_ITEM)
			return ui_next(UI_PUSH, form_item_edit(id));
		ui_msg(MSG_INFO, _("Select the visit, a job or a line item to edit."));
		return ui_next(UI_REDRAW, NULL);
	case ACT_LINE_HISTORY:
		return pane_line_history(&vv->p);
	case ACT_NEW_JOB:
		return ui_next(UI_PUSH, form_job_new(vv->appt_id));
	case ACT_VISIT_MOVE:
		return ui_next(UI_PUSH, form_visit_move(vv->appt_id, NULL, NULL));
	case ACT_VISIT_CANCEL:
	case ACT_VISIT_NO_SHOW:
		return ui_next(UI_PUSH,
		               form_visit_close(vv->appt_id, ev->action == ACT_VISIT_NO_SHOW));
	case ACT_SEND_ESTIMATE: {
		struct estimate e;
		int64_t est;

		if (!(j = job_of_selection(vv))) {
			ui_msg(MSG_INFO, _("Select a job first (move to its line)."));
			return ui_next(UI_REDRAW, NULL);
		}
		if (esign_send(ui_db(), j->job_id, NULL, &est) != 0) {
			ui_msg(MSG_ERROR, "%s", err_msg());
		} else if (esign_get(ui_db(), est, &e) == 0) {
			ui_msg(MSG_OK, _("Estimate %1$s sent for signature through %2$s."),
			       e.number, e.provider);
			esign_estimate_free(&e);
		}
		build(vv);
		return ui_next(UI_REDRAW, NULL);
	}
	case ACT_ON_THE_WAY: {
		struct message_input in = {0};
		int64_t made = 0;

		in.kind = "on_the_way";
		in.appt_id = vv->appt_id;
		if (message_make(ui_db(), &in, &made, NULL) != 0)
			ui_msg(MSG_ERROR, "%s", err_msg());
		else
			ui_msg(MSG_OK,
			       _("\"On our way\" made for %lld customer(s): it leaves with the "
			         "worker."),
			       (long long)made);
		return ui_next(UI_REDRAW, NULL);
	}
	case ACT_NEW_ITEM:
	case ACT_ISSUE_INVOICE:
	case ACT_RECORD_PAYMENT:
		j = job_of_selection(vv);
		if (!j) {
			ui_msg(MSG_INFO, _("Select a job first (move to its line)."));
			return ui_next(UI_REDRAW, NULL);
		}
		if (ev->action == ACT_NEW_ITEM)
			return ui_next(UI_PUSH, form_item_new(j->job_id));
		if (ev->action == ACT_ISSUE_INVOICE)
			return ui_next(UI_PUSH, form_invoice_new(j->job_id));
		{
			/* the money taken at this visit goes to this job's invoices
			 * first, then to the customer's oldest due */
			int64_t first[8];
			int i, nf = 0;

			for (i = 0; i < vv->nrefs && nf < 8; i++)
				if (vv->refs[i].kind == K_INVOICE &&
				    vv->refs[i].job_id == j->job_id)
					first[nf++] = vv->refs[i].id;
			return ui_next(UI_PUSH,
			               form_payment_new_at(j->customer_id, j->currency, first, nf));
		}
	default:
		return ui_next(UI_UNHANDLED, NULL);
	}
}

static void visit_title(struct view *v, char *buf, size_t n)
{
	struct visitv *vv = v->priv;

	snprintf(buf, n, _("Visit %lld"), (long long)vv->appt_id);
}

static const char *visit_help(struct view *v)
{
	(void)v;
	return _("A visit and the jobs it works on, each with its line items and the invoices "
	         "that bill it. Enter on an invoice opens it; Enter on a job opens the job (its "
	         "visits, line items, invoices and what is left to bill); Enter on a line item "
	         "opens its job with the cursor on it. e edits the selected visit, job or line "
	         "item. H shows the visit's history, h the selected line's.");
}

static const enum action visit_keys[] = {ACT_UP,
                                         ACT_DOWN,
                                         ACT_PAGE_UP,
                                         ACT_PAGE_DOWN,
                                         ACT_TOP,
                                         ACT_BOTTOM,
                                         ACT_OPEN,
                                         ACT_EDIT,
                                         ACT_NEW_JOB,
                                         ACT_NEW_ITEM,
                                         ACT_VISIT_MOVE,
                                         ACT_VISIT_CANCEL,
                                         ACT_VISIT_NO_SHOW,
                                         ACT_ISSUE_INVOICE,
                                         ACT_RECORD_PAYMENT,
                                         ACT_SEND_ESTIMATE,
                                         ACT_ON_THE_WAY,
                                         ACT_LINE_HISTORY,
                                         ACT_NONE};
static const enum action visit_hints[] = {ACT_OPEN,           ACT_EDIT,       ACT_NEW_JOB,
                                          ACT_NEW_ITEM,       ACT_VISIT_MOVE, ACT_ISSUE_INVOICE,
                                          ACT_RECORD_PAYMENT, ACT_NONE};

static int visit_target(struct view *v, const char **kind, int64_t *id)
{
	struct visitv *x = v->priv;

	/* the visit's own, whatever line is selected (h: the line's) */
	*kind = "visit";
	*id = x->appt_id;
	return x->appt_id > 0;
}

static const struct view_ops visit_ops = {
    .name = "visit",
    .ctx = CTX_PANE,
    .keys = visit_keys,
    .hints = visit_hints,
    .free = visitv_free,
    .resize = visit_resize,
    .draw = visit_draw,
    .action = visit_action,
    .reload = visit_reload,
    .title = visit_title,
    .help = visit_help,
    .target = visit_target,
};

struct view *view_visit_new(int64_t appt_id)
{
	struct visitv *vv = xcalloc(1, sizeof *vv);

	vv->appt_id = appt_id;
	vv->p.cur = -1;
	build(vv);
	return view_new(&visit_ops, vv);
}
