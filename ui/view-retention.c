/*
 * view-retention.c - customer data retention in the screen (L): three
 * sections switched with Tab (or 1, 2, 3). The soft-deleted customers
 * (retention_list "live": each deletion under way with its state, the
 * first 8 hex digits of its deletion id, its generation and the day it is
 * purged); the proposals, what a retention run would do now with the
 * core's reasons (retention_run as a dry run: nothing is written); the
 * deletion certificates of the purges (retention_certs). Enter on a
 * soft-deleted customer shows its deletion whole (reason, the modules that
 * confirmed, the proposed, soft-deleted and purge dates, a hold), on a
 * certificate the certificate whole, on a proposal the customer's pane.
 *
 * r restores the selected soft-deleted customer (retention_cancel, after
 * y), h puts a legal hold on the selected customer with a reason (a
 * one-line form, retention_hold), u releases a hold (retention_release,
 * after y). While a question is shown the view swaps to ops that listen
 * to CTX_FORM, as the service catalogue does, so that y (form-confirm)
 * answers it and any other key takes it back. Every rule is the core's
 * (retention.h): a refusal is its err_msg() on the message line and
 * changes nothing.
 *
 * Customer names are data: every cell goes through draw_text (the
 * sanitiser and the text-width module).
 *
 * Callers: screen.c (the global key L), views of this file.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "customer.h"
#include "draw.h"
#include "err.h"
#include "fmt.h"
#include "form.h"
#include "hq.h"
#include "i18n.h"
#include "pane.h"
#include "retention.h"
#include "text.h"
#include "views.h"
#include "xalloc.h"

#define RET_ROWS_MAX   500 /* rows shown per section; frontdesk retention list has them all */
#define RET_REASON_MAX 200 /* the longest hold reason the core keeps */

enum { RT_LIST, RT_DELETION, RT_CERT };
enum { SEC_SOFT, SEC_PROPOSALS, SEC_CERTS, SEC_N };
enum { ASK_NONE, ASK_RESTORE, ASK_RELEASE };

/* What a selectable line stands for beyond its pane id. */
struct ret_ref {
	int kind; /* K_CUSTOMER (id: the customer) or K_INFO (id: a certificate) */
	int64_t id;
	int64_t customer_id;
	char deletion_id[RETENTION_ID_LEN + 1]; /* "" when none */
	char *name;                             /* the customer's name, NULL when unknown */
};

struct retv {
	int mode;
	int section;                            /* RT_LIST */
	char deletion_id[RETENTION_ID_LEN + 1]; /* RT_DELETION, RT_CERT */
	struct pane p;
	struct ret_ref *refs;
	int nrefs, caprefs;
	int rows;
	int ask;              /* ASK_* while a question is shown */
	int64_t ask_customer; /* the customer it is about */
	char question[600];
};

static const struct view_ops ret_ops, ask_ops;

/* ---------------------------------------------------------------- words */

static const char *action_word(const char *action)
{
	if (!strcmp(action, "propose"))
		return _("propose");
	if (!strcmp(action, "soft-delete"))
		return _("soft-delete");
	if (!strcmp(action, "reject"))
		return _("reject");
	if (!strcmp(action, "cancel"))
		return _("cancel");
	if (!strcmp(action, "purge"))
		return _("purge");
	if (!strcmp(action, "wait"))
		return _("waiting");
	if (!strcmp(action, "resume"))
		return _("resume");
	if (!strcmp(action, "skip"))
		return _("skip");
	if (!strcmp(action, "note"))
		return _("note");
	return action;
}

static const char *section_name(int s)
{
	if (s == SEC_SOFT)
		return _("Soft-deleted");
	if (s == SEC_PROPOSALS)
		return _("Proposals");
	return _("Certificates");
}

/* ---------------------------------------------------------------- references */

static void refs_clear(struct retv *rv)
{
	int i;

	for (i = 0; i < rv->nrefs; i++)
		free(rv->refs[i].name);
	rv->nrefs = 0;
}

static void ref_add(struct retv *rv, int kind, int64_t id, int64_t customer_id,
                    const char *deletion_id, const char *name)
{
	struct ret_ref *r;

	if (rv->nrefs == rv->caprefs) {
		rv->caprefs = rv->caprefs ? rv->caprefs * 2 : 32;
		rv->refs = xrealloc(rv->refs, (size_t)rv->caprefs * sizeof *rv->refs);
	}
	r = &rv->refs[rv->nrefs++];
	r->kind = kind;
	r->id = id;
	r->customer_id = customer_id;
	snprintf(r->deletion_id, sizeof r->deletion_id, "%s", deletion_id ? deletion_id : "");
	r->name = name ? xstrdup(name) : NULL;
}

/* The reference of the selected line, or NULL. */
static const struct ret_ref *selected(const struct retv *rv)
{
	int kind, i;
	int64_t id;

	pane_target(&rv->p, &kind, &id);
	if (!kind)
		return NULL;
	for (i = 0; i < rv->nrefs; i++)
		if (rv->refs[i].kind == kind && rv->refs[i].id == id)
			return &rv->refs[i];
	return NULL;
}

/* ---------------------------------------------------------------- the sections */

/* The first n hex digits of a deletion id. */
static const char *short_id(const char *id, int n, char *buf, size_t size)
{
	snprintf(buf, size, "%.*s", n, id);
	return buf;
}

static const struct pane_col soft_cols[] = {
    {16, 3, AL_LEFT}, /* customer */
    {12, 0, AL_LEFT}, /* state */
    {8, 0, AL_LEFT},  /* deletion */
    {4, 0, AL_RIGHT}, /* generation */
    {10, 0, AL_LEFT}, /* purge on */
};

static int soft_row(const struct retention_proc *p, void *arg)
{
	struct retv *rv = arg;
	char del[16], gen[24], day[32];
	const char *cells[5];

	if (rv->rows++ >= RET_ROWS_MAX)
		return 0;
	snprintf(gen, sizeof gen, "%lld", (long long)p->generation);
	cells[0] = p->customer ? p->customer : "-";
	cells[1] = fmt_status(p->state);
	cells[2] = short_id(p->deletion_id, 8, del, sizeof del);
	cells[3] = gen;
	cells[4] = p->delete_after ? fmt_date(p->delete_after, day) : "-";
	if (p->customer_id) {
		pane_row(&rv->p, K_CUSTOMER, p->customer_id, R_NORMAL, 5, soft_cols, cells);
		ref_add(rv, K_CUSTOMER, p->customer_id, p->customer_id, p->deletion_id,
		        p->customer);
	} else {
		pane_row(&rv->p, 0, 0, R_DIM, 5, soft_cols, cells);
	}
	return 0;
}

static void build_soft(struct retv *rv)
{
	const char *head[5] = {_("Customer"), _("State"), _("Deletion"), _("Gen"), _("Purge on")};

	pane_text(&rv->p, 0, 0, R_DIM, "%s",
	          _("Out of lists and search until the purge; r restores, h holds, Enter shows "
	            "one."));
	pane_row(&rv->p, 0, 0, R_HEADER, 5, soft_cols, head);
	if (retention_list(ui_db(), "live", soft_row, rv) != 0)
		pane_text(&rv->p, 0, 0, R_ERROR, _("! The deletions cannot be read: %s"),
		          err_msg());
	else if (rv->rows == 0)
		pane_text(&rv->p, 0, 0, R_DIM, "  %s", _("No customer is soft-deleted."));
	else if (rv->rows > RET_ROWS_MAX)
		pane_text(&rv->p, 0, 0, R_DIM,
		          _("  The first %d rows; frontdesk retention list has them all."),
		          RET_ROWS_MAX);
}

static const struct pane_col prop_cols[] = {
    {11, 0, AL_LEFT}, /* action */
    {14, 1, AL_LEFT}, /* customer */
    {10, 0, AL_LEFT}, /* purge on */
    {20, 3, AL_LEFT}, /* reason */
};

static int prop_event(const struct retention_event *e, void *arg)
{
	struct retv *rv = arg;
	char day[32];
	const char *cells[4];

	if (rv->rows++ >= RET_ROWS_MAX)
		return 0;
	cells[0] = action_word(e->action);
	cells[1] = e->customer ? e->customer : "-";
	cells[2] = e->when ? fmt_date(e->when, day) : "";
	cells[3] = e->reason ? e->reason : "";
	if (e->customer_id) {
		pane_row(&rv->p, K_CUSTOMER, e->customer_id,
		         !strcmp(e->action, "skip") || !strcmp(e->action, "wait") ? R_DIM
		                                                                  : R_NORMAL,
		         4, prop_cols, cells);
		ref_add(rv, K_CUSTOMER, e->customer_id, e->customer_id, e->deletion_id,
		        e->customer);
	} else {
		pane_row(&rv->p, 0, 0, R_DIM, 4, prop_cols, cells);
	}
	return 0;
}

static void build_proposals(struct retv *rv)
{
	const char *head[4] = {_("Action"), _("Customer"), _("Purge on"), _("Reason")};
	struct retention_run_opts o = {0};

	pane_text(&rv->p, 0, 0, R_DIM, "%s",
	          _("What a retention run would do now, with the reasons; nothing is written."));
	pane_text(&rv->p, 0, 0, R_DIM,
	          _("Proposed: inactive %1$d months, nothing open. Purged %2$d days later."),
	          retention_months(), retention_soft_days());
	pane_row(&rv->p, 0, 0, R_HEADER, 4, prop_cols, head);
	o.dry_run = 1;
	o.propose = 1;
	o.purge = 1;
	o.limit = RET_ROWS_MAX;
	/* never wait for the lifecycle tasks here: this runs on every reload of
	 * the screen's thread, and the desk's runner (or serve) keeps the rows
	 * current; the view reloads when they change (o.catch_up stays NULL) */
	o.cb = prop_event;
	o.arg = rv;
	err_clear();
	if (retention_run(ui_db(), &o) != 0)
		pane_text(&rv->p, 0, 0, R_ERROR, _("! What a run would do cannot be read: %s"),
		          err_msg());
	else if (rv->rows == 0)
		pane_text(&rv->p, 0, 0, R_DIM, "  %s", _("Nothing to do: no customer is due."));
	else if (rv->rows > RET_ROWS_MAX)
		pane_text(&rv->p, 0, 0, R_DIM,
		          _("  The first %d rows; frontdesk retention run --dry-run has them all."),
		          RET_ROWS_MAX);
}

static const struct pane_col cert_cols[] = {
    {8, 0, AL_LEFT},  /* deletion */
    {16, 0, AL_LEFT}, /* customer hash */
    {16, 0, AL_LEFT}, /* purged at */
    {10, 1, AL_LEFT}, /* modules */
};

static int cert_row(const struct retention_cert *c, void *arg)
{
	struct retv *rv = arg;
	char del[16], hash[24], when[32];
	const char *cells[4];

	if (rv->rows++ >= RET_ROWS_MAX)
		return 0;
	cells[0] = short_id(c->deletion_id, 8, del, sizeof del);
	cells[1] = short_id(c->customer_hash, 16, hash, sizeof hash);
	cells[2] = fmt_datetime(c->purged_at, when);
	cells[3] = c->modules ? c->modules : "";
	pane_row(&rv->p, K_INFO, rv->rows, R_NORMAL, 4, cert_cols, cells);
	ref_add(rv, K_INFO, rv->rows, 0, c->deletion_id, NULL);
	return 0;
}

static void build_certs(struct retv *rv)
{
	const char *head[4] = {_("Deletion"), _("Customer hash"), _("Purged at"), _("Modules")};

	pane_text(&rv->p, 0, 0, R_DIM, "%s",
	          _("What is kept of a purge: no name, only a hash. Enter shows one whole."));
	pane_row(&rv->p, 0, 0, R_HEADER, 4, cert_cols, head);
	if (retention_certs(ui_db(), cert_row, rv) != 0)
		pane_text(&rv->p, 0, 0, R_ERROR, _("! The certificates cannot be read: %s"),
		          err_msg());
	else if (rv->rows == 0)
		pane_text(&rv->p, 0, 0, R_DIM, "  %s", _("No customer was purged yet."));
	else if (rv->rows > RET_ROWS_MAX)
		pane_text(&rv->p, 0, 0, R_DIM,
		          _("  The first %d rows; frontdesk retention certs has them all."),
		          RET_ROWS_MAX);
}

/* The line naming the sections, the one shown in brackets (not only by
 * its colour). */
static void section_line(struct retv *rv)
{
	char line[400];
	size_t len = 0;
	int s;

	line[0] = '\0';
	for (s = 0; s < SEC_N && len < sizeof line; s++) {
		snprintf(line + len, sizeof line - len,
		         s == rv->section ? "%s[%d %s]" : "%s %d %s ", s ? "  " : "", s + 1,
		         section_name(s));
		len = strlen(line);
	}
	pane_text(&rv->p, 0, 0, R_HEADER, "%s", line);
}

static void build_list(struct retv *rv)
{
	section_line(rv);
	rv->rows = 0;
	if (rv->section == SEC_SOFT)
		build_soft(rv);
	else if (rv->section == SEC_PROPOSALS)
		build_proposals(rv);
	else
		build_certs(rv);
}

/* ---------------------------------------------------------------- one deletion */

/* "Modules confirmed:" and the list, a few modules to a line (the list
 * grows with the modules; a line cut short would hide the last ones). */
static void modules_lines(struct retv *rv, const char *modules)
{
	const char *p = modules, *q;
	char line[96];
	size_t len = 0;
	int first = 1, n = 0;

	if (!modules || !*modules) {
		pane_text(&rv->p, 0, 0, R_NORMAL, _("  Modules confirmed: %s"), _("none yet"));
		return;
	}
	line[0] = '\0';
	while (*p) {
		q = p + strcspn(p, ",");
		if (len + (size_t)(q - p) + 2 < sizeof line) {
			len += (size_t)snprintf(line + len, sizeof line - len, "%s%.*s",
			                        n ? "," : "", (int)(q - p), p);
			n++;
		}
		p = *q ? q + 1 : q;
		if (n == 5 || !*p) {
			if (first)
				pane_text(&rv->p, 0, 0, R_NORMAL, _("  Modules confirmed: %s"),
				          line);
			else
				pane_text(&rv->p, 0, 0, R_NORMAL, "                     %s", line);
			first = 0;
			n = 0;
			len = 0;
			line[0] = '\0';
		}
	}
}

static void build_deletion(struct retv *rv)
{
	struct retention_proc p;
	char a[32], b[32], c[32], d[32];
	char *hold = NULL;

	if (retention_get(ui_db(), rv->deletion_id, &p) != 0) {
		pane_text(&rv->p, 0, 0, R_ERROR, _("! Deletion %1$s cannot be read: %2$s"),
		          rv->deletion_id, err_msg());
		return;
	}
	pane_text(&rv->p, 0, 0, R_HEADER, _("Deletion %1$s of %2$s: %3$s"), p.deletion_id,
	          p.customer ? p.customer : _("a purged customer"), fmt_status(p.state));
	if (p.customer_id) {
		pane_text(&rv->p, K_CUSTOMER, p.customer_id, R_NORMAL, _("  Customer %1$lld: %2$s"),
		          (long long)p.customer_id, p.customer ? p.customer : "-");
		ref_add(rv, K_CUSTOMER, p.customer_id, p.customer_id, p.deletion_id, p.customer);
	}
	pane_text(&rv->p, 0, 0, R_NORMAL, _("  Generation %lld"), (long long)p.generation);
	pane_text(&rv->p, 0, 0, R_NORMAL, _("  Reason: %s"), p.reason ? p.reason : "-");
	modules_lines(rv, p.modules);
	pane_blank(&rv->p);
	pane_text(&rv->p, 0, 0, R_NORMAL, _("  Proposed:     %s"), fmt_datetime(p.proposed_at, a));
	pane_text(&rv->p, 0, 0, R_NORMAL, _("  Soft-deleted: %s"),
	          fmt_datetime(p.soft_deleted_at, b));
	pane_text(&rv->p, 0, 0, retention_proc_awaits_purge(&p) ? R_UNPAID : R_NORMAL,
	          _("  Purge on:     %s"), fmt_date(p.delete_after, c));
	if (p.finished_at)
		pane_text(&rv->p, 0, 0, R_NORMAL, _("  Finished:     %s"),
		          fmt_datetime(p.finished_at, d));
	if (p.customer_id && retention_hold_get(ui_db(), p.customer_id, &hold) == 1) {
		pane_blank(&rv->p);
		pane_text(&rv->p, 0, 0, R_ERROR, _("  On hold: %s"), hold ? hold : "");
	}
	free(hold);
	pane_blank(&rv->p);
	if (retention_proc_may_restore(&p))
		pane_text(&rv->p, 0, 0, R_DIM, "%s",
		          _("r restores the customer, h puts a hold on them (which restores them "
		            "too)."));
	retention_proc_free(&p);
}

/* ---------------------------------------------------------------- one certificate */

struct cert_find {
	struct retv *rv;
	int found;
};

/* The head office's part in the certificate (hq.h): a participant once it
 * confirmed it forgot the customer too; nothing when the shop reports to
 * none. */
static void head_office(struct retv *rv, const char *deletion_id)
{
	char shop[21], when[32];
	int64_t at = 0;
	int part = hq_cert_part(ui_db(), deletion_id, shop, &at);

	if (part == HQ_CERT_CONFIRMED)
		pane_text(&rv->p, 0, 0, R_NORMAL, _("  Head office: shop %1$s, confirmed %2$s"),
		          shop, fmt_datetime(at, when));
	else if (part == HQ_CERT_WAITING)
		pane_text(&rv->p, 0, 0, R_PARTIAL, "  %s",
		          _("Head office: has not confirmed yet (it is asked on each round of the "
		            "worker)"));
	else if (part < 0)
		pane_text(&rv->p, 0, 0, R_ERROR, _("! The head office's part cannot be read: %s"),
		          err_msg());
}

static int cert_whole(const struct retention_cert *c, void *arg)
{
	struct cert_find *cf = arg;
	struct retv *rv = cf->rv;
	char a[32], b[32];

	if (strcmp(c->deletion_id, rv->deletion_id))
		return 0;
	cf->found = 1;
	pane_text(&rv->p, 0, 0, R_HEADER, _("Deletion certificate %s"), c->deletion_id);
	pane_text(&rv->p, 0, 0, R_NORMAL, "  %s", _("Customer hash (sha256):"));
	pane_text(&rv->p, 0, 0, R_NORMAL, "    %s", c->customer_hash); /* 64 columns */
	pane_text(&rv->p, 0, 0, R_NORMAL, _("  Generation %lld"), (long long)c->generation);
	pane_text(&rv->p, 0, 0, R_NORMAL, _("  Proposed:  %s"), fmt_datetime(c->proposed_at, a));
	pane_text(&rv->p, 0, 0, R_NORMAL, _("  Purged at: %s"), fmt_datetime(c->purged_at, b));
	pane_text(&rv->p, 0, 0, R_NORMAL, _("  Modules:   %s"), c->modules ? c->modules : "");
	pane_text(&rv->p, 0, 0, R_NORMAL, _("  By:        %s"),
	          c->operator_id ? c->operator_id : "-");
	head_office(rv, c->deletion_id);
	pane_blank(&rv->p);
	pane_text(&rv->p, 0, 0, R_DIM, "%s",
	          _("The hash is sha256 of \"<deletion id>:customer:<customer number>\"."));
	return 1;
}

static void build_cert(struct retv *rv)
{
	struct cert_find cf = {rv, 0};

	if (retention_certs(ui_db(), cert_whole, &cf) < 0)
		pane_text(&rv->p, 0, 0, R_ERROR, _("! The certificates cannot be read: %s"),
		          err_msg());
	else if (!cf.found)
		pane_text(&rv->p, 0, 0, R_ERROR, _("! There is no certificate %s."),
		          rv->deletion_id);
}

/* ---------------------------------------------------------------- the view */

static void build(struct retv *rv)
{
	int kind, old = rv->p.cur;
	int64_t id;

	pane_target(&rv->p, &kind, &id);
	pane_clear(&rv->p);
	refs_clear(rv);
	if (rv->mode == RT_LIST)
		build_list(rv);
	else if (rv->mode == RT_DELETION)
		build_deletion(rv);
	else
		build_cert(rv);
	pane_restore(&rv->p, kind, id, old < 0 ? 0 : old);
}

static void ret_free(struct view *v)
{
	struct retv *rv = v->priv;

	pane_free(&rv->p);
	refs_clear(rv);
	free(rv->refs);
	free(rv);
}

static void ret_resize(struct view *v, int h, int w)
{
	(void)v;
	(void)h;
	(void)w;
}

static void ret_draw(struct view *v, WINDOW *w)
{
	struct retv *rv = v->priv;

	pane_draw(&rv->p, w, 0);
	if (rv->ask) /* over the last lines while it is asked */
		draw_question(w, rv->question);
}

static void ret_reload(struct view *v)
{
	build(v->priv);
}

static struct view *ret_view(int mode, int section, const char *deletion_id);

static void show_section(struct retv *rv, int section)
{
	rv->section = section;
	rv->p.cur = -1;
	build(rv);
	pane_select_first(&rv->p, section == SEC_CERTS ? K_INFO : K_CUSTOMER);
	rv->p.top = 0;
}

/* ---------------------------------------------------------------- hold: a one-line form */

struct holdst {
	int64_t customer_id;
	char name[300];
};

static int hold_check(struct form *f)
{
	const char *r = form_value(f, 1);

	if (!*r) {
		form_error(f, 1, "%s", _("required: say why the customer's data must be kept"));
		return 1;
	}
	if (text_check(r, _("the reason"), RET_REASON_MAX, 0)) {
		form_error(f, 1, "%s", err_msg());
		return 1;
	}
	return 0;
}

static int hold_post(struct form *f)
{
	struct holdst *hs = f->arg;
	int rc = retention_hold(ui_db(), hs->customer_id, form_value(f, 1));

	if (rc)
		return rc;
	f->posted_id = hs->customer_id;
	form_receipt(f, _("Customer %1$lld (%2$s) is on hold: %3$s"), (long long)hs->customer_id,
	             hs->name, form_value(f, 1));
	form_receipt(f, "%s",
	             _("Their data is not deleted while the hold lasts; u in the retention view "
	               "releases it."));
	return 0;
}

static void hold_free(struct form *f)
{
	free(f->arg);
}

static const struct form_spec hold_spec = {
    .name = "retention-hold",
    .check = hold_check,
    .post = hold_post,
    .free = hold_free,
    .help = N_("A legal hold keeps a customer's data: no retention run proposes them and a "
               "deletion under way is cancelled. The reason is kept with the hold and shown "
               "wherever deletion is refused."),
};

static struct view *hold_form(int64_t customer_id, const char *name)
{
	struct holdst *hs;
	struct form *f;
	char title[200];
	int k;

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	hs = xcalloc(1, sizeof *hs);
	hs->customer_id = customer_id;
	snprintf(hs->name, sizeof hs->name, "%s", name ? name : "-");
	snprintf(title, sizeof title, _("Hold customer %lld"), (long long)customer_id);
	f = form_new(&hold_spec, hs, title);
	form_add(f, F_INFO, 0, _("Customer:"), hs->name);
	k = form_add(f, F_TEXT, 1, _("Reason"), NULL); /* may move f->fields */
	f->fields[k].width = 50;
	return form_view(f);
}

/* ---------------------------------------------------------------- questions */

static struct ui_next ask(struct view *v, struct retv *rv, int what, const struct ret_ref *r)
{
	char yes[32], del[16];
	int key = keymap_first_key(ACT_FORM_CONFIRM);
	const char *name = r->name ? r->name : "-";

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return ui_next(UI_REDRAW, NULL);
	}
	keyc_name(key >= 0 ? key : 'y', yes, sizeof yes);
	if (what == ASK_RESTORE)
		snprintf(rv->question, sizeof rv->question,
		         _("Restore customer %1$lld (%2$s) from deletion %3$s? %4$s restores them; "
		           "any other key keeps them soft-deleted."),
		         (long long)r->customer_id, name,
		         short_id(r->deletion_id, 8, del, sizeof del), yes);
	else
		snprintf(
		    rv->question, sizeof rv->question,
		    _("Release the hold on customer %1$lld (%2$s)? %3$s releases it; any other "
		      "key keeps it."),
		    (long long)r->customer_id, name, yes);
	rv->ask = what;
	rv->ask_customer = r->customer_id;
	v->ops = &ask_ops;
	return ui_next(UI_REDRAW, NULL);
}

static struct ui_next ask_action(struct view *v, const struct ui_event *ev)
{
	struct retv *rv = v->priv;
	int what = rv->ask;
	int64_t id = rv->ask_customer;

	rv->ask = ASK_NONE;
	v->ops = &ret_ops;
	if (ev->action != ACT_FORM_CONFIRM) {
		ui_msg(MSG_INFO,
		       what == ASK_RESTORE ? _("Customer %lld was not restored.")
		                           : _("The hold on customer %lld stays."),
		       (long long)id);
		return ui_next(UI_REDRAW, NULL);
	}
	err_clear();
	if (what == ASK_RESTORE) {
		if (retention_cancel(ui_db(), id, _("restored at the desk")) != 0) {
			ui_msg(MSG_ERROR, _("Customer %1$lld was not restored: %2$s"),
			       (long long)id, err_msg());
			return ui_next(UI_REDRAW, NULL);
		}
		ui_msg(MSG_OK, _("Customer %lld is restored: back in lists and search."),
		       (long long)id);
	} else {
		if (retention_release(ui_db(), id) != 0) {
			ui_msg(MSG_ERROR, _("The hold on customer %1$lld was not released: %2$s"),
			       (long long)id, err_msg());
			return ui_next(UI_REDRAW, NULL);
		}
		ui_msg(MSG_OK, _("The hold on customer %lld is released."), (long long)id);
	}
	ui_invalidate_all(); /* this view too: the redraw rebuilds it, once */
	return ui_next(UI_REDRAW, NULL);
}

/* ---------------------------------------------------------------- actions */

static struct ui_next ret_action(struct view *v, const struct ui_event *ev)
{
	struct retv *rv = v->priv;
	const struct ret_ref *r;
	struct ui_next n = pane_action(&rv->p, ev);

	if (n.kind != UI_UNHANDLED)
		return n;
	r = selected(rv);
	switch (ev->action) {
	case ACT_RET_SECTION:
	case ACT_RET_SOFT:
	case ACT_RET_PROPOSALS:
	case ACT_RET_CERTS:
		if (rv->mode != RT_LIST)
			return ui_next(UI_HANDLED, NULL);
		show_section(rv, ev->action == ACT_RET_SECTION     ? (rv->section + 1) % SEC_N
		                 : ev->action == ACT_RET_SOFT      ? SEC_SOFT
		                 : ev->action == ACT_RET_PROPOSALS ? SEC_PROPOSALS
		                                                   : SEC_CERTS);
		return ui_next(UI_REDRAW, NULL);
	case ACT_OPEN:
		if (!r)
			return ui_next(UI_HANDLED, NULL);
		if (rv->mode == RT_LIST && rv->section == SEC_SOFT)
			return ui_next(UI_PUSH, ret_view(RT_DELETION, 0, r->deletion_id));
		if (rv->mode == RT_LIST && rv->section == SEC_CERTS)
			return ui_next(UI_PUSH, ret_view(RT_CERT, 0, r->deletion_id));
		if (r->kind == K_CUSTOMER)
			return ui_next(UI_PUSH, view_customer_new(r->customer_id));
		return ui_next(UI_HANDLED, NULL);
	case ACT_RET_RESTORE:
		if (!r || r->kind != K_CUSTOMER || !r->deletion_id[0] ||
		    (rv->mode == RT_LIST && rv->section != SEC_SOFT)) {
			ui_msg(MSG_INFO, "%s",
			       _("Select a soft-deleted customer first (1 lists them): r restores "
			         "them."));
			return ui_next(UI_REDRAW, NULL);
		}
		return ask(v, rv, ASK_RESTORE, r);
	case ACT_RET_HOLD:
	case ACT_RET_RELEASE:
		if (!r || r->kind != K_CUSTOMER) {
			ui_msg(
			    MSG_INFO, "%s",
			    ev->action == ACT_RET_HOLD
			        ? _("Select a customer first (a soft-deleted one or a proposal): h "
			            "puts a hold on them.")
			        : _("Select a customer first (a held one shows among the "
			            "proposals): u releases the hold."));
			return ui_next(UI_REDRAW, NULL);
		}
		if (ev->action == ACT_RET_HOLD)
			return ui_next(UI_PUSH, hold_form(r->customer_id, r->name));
		return ask(v, rv, ASK_RELEASE, r);
	default:
		return ui_next(UI_UNHANDLED, NULL);
	}
}

static void ret_title(struct view *v, char *buf, size_t n)
{
	struct retv *rv = v->priv;
	char del[16];

	if (rv->mode == RT_LIST)
		snprintf(buf, n, "%s", _("Retention"));
	else if (rv->mode == RT_DELETION)
		snprintf(buf, n, _("Deletion %s"), short_id(rv->deletion_id, 8, del, sizeof del));
	else
		snprintf(buf, n, _("Certificate %s"),
		         short_id(rv->deletion_id, 8, del, sizeof del));
}

static const char *ret_help(struct view *v)
{
	(void)v;
	return _("Customer data retention, as frontdesk retention list, run --dry-run and certs: "
	         "Tab (or 1, 2, 3) switches between the soft-deleted customers with the day each "
	         "is purged, what a retention run would do now with the reasons (nothing is "
	         "written), and the deletion certificates of the purges. Enter on a soft-deleted "
	         "customer shows the deletion whole. r restores the selected soft-deleted "
	         "customer (then y); h puts a legal hold on the selected customer with a reason, "
	         "which also cancels a deletion under way; u releases a hold (then y). The core "
	         "decides: a refusal is shown on the message line and changes nothing.");
}

static int ret_target(struct view *v, const char **kind, int64_t *id)
{
	const struct ret_ref *r = selected(v->priv);

	if (!r || r->kind != K_CUSTOMER)
		return 0;
	*kind = "customer";
	*id = r->customer_id;
	return 1;
}

static const enum action ret_keys[] = {
    ACT_UP,        ACT_DOWN,        ACT_PAGE_UP,     ACT_PAGE_DOWN,   ACT_TOP,
    ACT_BOTTOM,    ACT_OPEN,        ACT_RET_SECTION, ACT_RET_SOFT,    ACT_RET_PROPOSALS,
    ACT_RET_CERTS, ACT_RET_RESTORE, ACT_RET_HOLD,    ACT_RET_RELEASE, ACT_NONE};
static const enum action ret_hints[] = {ACT_RET_SECTION, ACT_OPEN,        ACT_RET_RESTORE,
                                        ACT_RET_HOLD,    ACT_RET_RELEASE, ACT_NONE};
static const enum action ask_keys[] = {ACT_FORM_CONFIRM, ACT_NONE};
static const enum action ask_hints[] = {ACT_FORM_CANCEL, ACT_NONE};

static const struct view_ops ret_ops = {
    .name = "retention",
    .ctx = CTX_RET | CTX_PANE,
    .keys = ret_keys,
    .hints = ret_hints,
    .free = ret_free,
    .resize = ret_resize,
    .draw = ret_draw,
    .action = ret_action,
    .reload = ret_reload,
    .title = ret_title,
    .help = ret_help,
    .target = ret_target,
};

/* while a question is shown: y answers it, any other key takes it back
 * (printable keys reach the view as typed text) */
static const struct view_ops ask_ops = {
    .name = "retention-ask",
    .ctx = CTX_FORM,
    .keys = ask_keys,
    .hints = ask_hints,
    .free = ret_free,
    .resize = ret_resize,
    .draw = ret_draw,
    .action = ask_action,
    .reload = ret_reload,
    .title = ret_title,
    .help = ret_help,
    .target = ret_target,
};

static struct view *ret_view(int mode, int section, const char *deletion_id)
{
	struct retv *rv = xcalloc(1, sizeof *rv);

	rv->mode = mode;
	rv->section = section;
	snprintf(rv->deletion_id, sizeof rv->deletion_id, "%s", deletion_id ? deletion_id : "");
	rv->p.cur = -1;
	build(rv);
	pane_select_first(&rv->p, 0);
	rv->p.top = 0; /* the headings stay in sight */
	return view_new(&ret_ops, rv);
}

struct view *view_retention_new(void)
{
	return ret_view(RT_LIST, SEC_SOFT, NULL);
}
