/*
 * view-recon.c - reconciliation in the screen: the batches (newest first,
 * with their figures per currency and whether their day is balanced), the
 * parked payment events that matched no order of ours and the payouts
 * (view_recon_new); a batch's differences (Enter on a batch); one
 * difference whole, with its resolution, the local payment and the
 * invoices to drill down to and the raw channel line as stored (Enter on
 * a difference). The figures and every rule are the core's (recon.h): the
 * view reads them with the same functions as `frontdesk recon list|show`
 * and its forms (form-recon.c) ask the core to decide: a accepts, p
 * records the payment the channel shows (or claims a parked event), f
 * posts a correcting entry.
 *
 * The channel line is bytes from outside: it is shown through
 * payload_lines, which makes control characters and escapes harmless and
 * wraps it to the width; everything else goes through draw_text, which
 * sanitises it too.
 *
 * Callers: screen.c (the global key B), views of this file.
 */
#include <config.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "err.h"
#include "fmt.h"
#include "i18n.h"
#include "pane.h"
#include "payload.h"
#include "payment.h"
#include "recon.h"
#include "views.h"
#include "xalloc.h"

#define RECON_BATCHES_MAX 200 /* shown; frontdesk recon list has them all */

enum { RV_LIST, RV_BATCH, RV_DIFF };

struct reconv {
	int mode;
	int64_t id; /* RV_BATCH: the batch, RV_DIFF: the difference */
	int w;      /* the body's width, for wrapping the channel line */
	struct pane p;
	int rows;
};

/* The words of the kinds of difference, short enough for their column. */
static const char *recon_kind_word(const char *kind)
{
	if (!strcmp(kind, "local_only"))
		return _("ours only");
	if (!strcmp(kind, "channel_only"))
		return _("channel only");
	if (!strcmp(kind, "amount_mismatch"))
		return _("amount");
	if (!strcmp(kind, "status_mismatch"))
		return _("status");
	if (!strcmp(kind, "currency_mismatch"))
		return _("currency");
	return kind;
}

/* The state of a difference in a word: open, or how it was resolved. */
static const char *diff_state_word(const struct recon_diff *d)
{
	if (recon_diff_is_open(d))
		return _("open");
	if (!strcmp(d->action, "accept"))
		return _("accepted");
	if (!strcmp(d->action, "record_payment"))
		return _("recorded");
	if (!strcmp(d->action, "correcting_entry"))
		return _("corrected");
	if (!strcmp(d->action, "gone"))
		return _("gone");
	return d->action;
}

/* ---------------------------------------------------------------- the list */

static const struct pane_col batch_cols[] = {
    {5, 0, AL_RIGHT}, /* batch */
    {10, 0, AL_LEFT}, /* day */
    {8, 1, AL_LEFT},  /* provider */
    {5, 0, AL_LEFT},  /* source */
    {7, 0, AL_LEFT},  /* status */
    {6, 0, AL_RIGHT}, /* lines */
    {7, 0, AL_RIGHT}, /* matched */
    {14, 1, AL_LEFT}, /* balanced / open */
};

static const struct pane_col total_cols[] = {
    {7, 0, AL_RIGHT},  /* currency */
    {6, 0, AL_RIGHT},  /* lines */
    {13, 1, AL_RIGHT}, /* gross */
    {12, 1, AL_RIGHT}, /* fee */
    {13, 1, AL_RIGHT}, /* net */
    {13, 1, AL_RIGHT}, /* ours */
};

static int total_row(const struct recon_total *t, void *arg)
{
	struct reconv *rv = arg;
	char n[24], g[FMT_MONEY], f[FMT_MONEY], e[FMT_MONEY], l[FMT_MONEY];
	const char *cells[6];

	snprintf(n, sizeof n, "%lld", (long long)t->lines);
	cells[0] = t->currency;
	cells[1] = n;
	cells[2] = fmt_money(t->gross, t->currency, g);
	cells[3] = fmt_money(t->fee, t->currency, f);
	cells[4] = fmt_money(t->net, t->currency, e);
	cells[5] = fmt_money(t->local, t->currency, l);
	pane_row(&rv->p, 0, 0, R_DIM, 6, total_cols, cells);
	return 0;
}

static int batch_row(const struct recon_batch *b, void *arg)
{
	struct reconv *rv = arg;
	char id[24], lines[24], matched[24], state[64];
	const char *cells[8];
	enum role role = R_NORMAL;

	snprintf(id, sizeof id, "%lld", (long long)b->id);
	snprintf(lines, sizeof lines, "%lld", (long long)b->lines);
	snprintf(matched, sizeof matched, "%lld", (long long)b->matched);
	if (!recon_batch_is_done(b)) {
		snprintf(state, sizeof state, "%s", fmt_status(b->status));
		role = R_ERROR;
	} else if (b->open_now > 0) {
		snprintf(state, sizeof state, _("%lld open"), (long long)b->open_now);
		role = R_UNPAID;
	} else {
		snprintf(state, sizeof state, "%s", _("balanced"));
	}
	cells[0] = id;
	cells[1] = b->day;
	cells[2] = b->provider;
	cells[3] = !strcmp(b->source, "file") ? _("file") : _("fetch");
	cells[4] = fmt_status(b->status);
	cells[5] = lines;
	cells[6] = matched;
	cells[7] = state;
	pane_row(&rv->p, K_RECON_BATCH, b->id, R_NORMAL, 8, batch_cols, cells);
	pane_cell_role(&rv->p, 7, role);
	recon_batch_totals(ui_db(), b->id, total_row, rv);
	rv->rows++;
	return rv->rows >= RECON_BATCHES_MAX;
}

static const struct pane_col parked_cols[] = {
    {6, 0, AL_RIGHT}, /* event */
    {16, 0, AL_LEFT}, /* received */
    {8, 0, AL_LEFT},  /* provider */
    {24, 2, AL_LEFT}, /* type */
    {14, 1, AL_LEFT}, /* object */
};

static int parked_row(const struct recon_parked *e, void *arg)
{
	struct reconv *rv = arg;
	char id[24], when[32];
	const char *cells[5];

	snprintf(id, sizeof id, "%lld", (long long)e->id);
	cells[0] = id;
	cells[1] = fmt_datetime(e->received_at, when);
	cells[2] = e->source;
	cells[3] = e->event_type;
	cells[4] = e->object_id;
	pane_row(&rv->p, K_RECON_EVENT, e->id, recon_parked_is_parked(e) ? R_NORMAL : R_DIM, 5,
	         parked_cols, cells);
	rv->rows++;
	return 0;
}

static const struct pane_col payout_cols[] = {
    {14, 1, AL_LEFT},  /* payout */
    {10, 0, AL_LEFT},  /* arrives */
    {13, 0, AL_RIGHT}, /* amount */
    {13, 0, AL_RIGHT}, /* lines' sum */
    {12, 1, AL_LEFT},  /* adds up, ticked */
};

static int payout_row(const struct recon_payout *p, void *arg)
{
	struct reconv *rv = arg;
	char a[FMT_MONEY], s[FMT_MONEY], state[64];
	const char *cells[5];

	snprintf(state, sizeof state, "%s%s", p->matches ? _("adds up") : _("does not add up"),
	         p->ticked_at ? _(", ticked") : "");
	cells[0] = p->payout_id;
	cells[1] = p->arrival;
	cells[2] = fmt_money_cur(p->amount, p->currency, a);
	cells[3] = fmt_money_cur(p->lines_sum, p->currency, s);
	cells[4] = state;
	pane_row(&rv->p, 0, 0, p->matches ? R_NORMAL : R_ERROR, 5, payout_cols, cells);
	rv->rows++;
	return 0;
}

static void build_list(struct reconv *rv)
{
	const char *bhead[8] = {_("Batch"),  _("Day"),   _("Channel"), _("From"),
	                        _("Status"), _("Lines"), _("Matched"), _("Books")};
	const char *thead[6] = {"", _("Lines"), _("Gross"), _("Fee"), _("Net"), _("Ours")};
	const char *phead[5] = {_("Event"), _("Received"), _("Channel"), _("Type"), _("Object")};
	const char *ohead[5] = {_("Payout"), _("Arrives"), _("Amount"), _("Its lines"), ""};
	struct recon_state st;

	if (recon_day_state(ui_db(), NULL, &st) == 0) {
		if (st.last_balanced[0])
			pane_text(&rv->p, 0, 0, st.open ? R_UNPAID : R_PAID,
			          _("Books: last balanced day %1$s; open differences: %2$lld, days "
			            "with them: %3$lld"),
			          st.last_balanced, (long long)st.open, (long long)st.open_days);
		else
			pane_text(&rv->p, 0, 0, st.open ? R_UNPAID : R_NORMAL,
			          _("Books: no day balanced yet; open differences: %1$lld, days "
			            "with them: %2$lld"),
			          (long long)st.open, (long long)st.open_days);
	}
	pane_text(&rv->p, 0, 0, R_HEADER, "%s",
	          _("Reconciliation batches, newest first (Enter lists a batch's differences)"));
	pane_row(&rv->p, 0, 0, R_HEADER, 8, batch_cols, bhead);
	pane_row(&rv->p, 0, 0, R_DIM, 6, total_cols, thead);
	rv->rows = 0;
	if (recon_batch_list(ui_db(), NULL, NULL, RECON_BATCHES_MAX, batch_row, rv) < 0)
		pane_text(&rv->p, 0, 0, R_ERROR, _("! The batches cannot be read: %s"), err_msg());
	else if (rv->rows == 0)
		pane_text(&rv->p, 0, 0, R_DIM, "  %s",
		          _("No day was reconciled yet: frontdesk recon run --date D."));
	pane_blank(&rv->p);
	pane_text(&rv->p, 0, 0, R_HEADER, "%s",
	          _("Parked payment events, of no order of ours (p claims one)"));
	pane_row(&rv->p, 0, 0, R_HEADER, 5, parked_cols, phead);
	rv->rows = 0;
	if (recon_parked_list(ui_db(), NULL, parked_row, rv) < 0)
		pane_text(&rv->p, 0, 0, R_ERROR, _("! The parked events cannot be read: %s"),
		          err_msg());
	else if (rv->rows == 0)
		pane_text(&rv->p, 0, 0, R_DIM, "  %s", _("None."));
	pane_blank(&rv->p);
	pane_text(&rv->p, 0, 0, R_HEADER, "%s", _("Payouts to the bank, newest first"));
	pane_row(&rv->p, 0, 0, R_HEADER, 5, payout_cols, ohead);
	rv->rows = 0;
	if (recon_payout_list(ui_db(), NULL, 0, payout_row, rv) < 0)
		pane_text(&rv->p, 0, 0, R_ERROR, _("! The payouts cannot be read: %s"), err_msg());
	else if (rv->rows == 0)
		pane_text(&rv->p, 0, 0, R_DIM, "  %s", _("None."));
}

/* ---------------------------------------------------------------- a batch */

static const struct pane_col diff_cols[] = {
    {4, 0, AL_RIGHT},  /* id */
    {12, 0, AL_LEFT},  /* kind */
    {13, 0, AL_RIGHT}, /* ours */
    {13, 0, AL_RIGHT}, /* channel */
    {8, 0, AL_LEFT},   /* local payment / refund */
    {10, 2, AL_LEFT},  /* channel line */
    {9, 1, AL_LEFT},   /* state / resolution */
};

static int diff_row(const struct recon_diff *d, void *arg)
{
	struct reconv *rv = arg;
	char id[24], a[FMT_MONEY], b[FMT_MONEY], local[32];
	const char *cells[7];
	int open = recon_diff_is_open(d);

	snprintf(id, sizeof id, "%lld", (long long)d->id);
	if (d->refund_id)
		snprintf(local, sizeof local, _("ref %lld"), (long long)d->refund_id);
	else if (d->payment_id)
		snprintf(local, sizeof local, _("pay %lld"), (long long)d->payment_id);
	else
		local[0] = '\0';
	cells[0] = id;
	cells[1] = recon_kind_word(d->kind);
	cells[2] = d->has_local ? fmt_money_cur(d->local_amount, d->local_currency, a) : "-";
	cells[3] = d->has_channel ? fmt_money_cur(d->channel_amount, d->channel_currency, b) : "-";
	cells[4] = local;
	cells[5] = d->line_id;
	cells[6] = diff_state_word(d);
	pane_row(&rv->p, K_RECON_DIFF, d->id, open ? R_NORMAL : R_DIM, 7, diff_cols, cells);
	if (open)
		pane_cell_role(&rv->p, 6, R_UNPAID);
	rv->rows++;
	return 0;
}

static void build_batch(struct reconv *rv)
{
	const char *head[7] = {_("#"),     _("Kind"),         _("Ours"), _("Channel"),
	                       _("Local"), _("Channel line"), _("State")};
	struct recon_batch b;
	char s[32], f[32];

	if (recon_batch_get(ui_db(), rv->id, &b) != 0) {
		pane_text(&rv->p, 0, 0, R_ERROR, _("! Batch %1$lld cannot be read: %2$s"),
		          (long long)rv->id, err_msg());
		return;
	}
	pane_text(&rv->p, 0, 0, R_HEADER, _("Batch %1$lld: %2$s, day %3$s, %4$s"), (long long)b.id,
	          b.provider, b.day, fmt_status(b.status));
	pane_text(&rv->p, 0, 0, R_NORMAL,
	          _("  %1$lld channel lines, %2$lld of ours, %3$lld matched; %4$lld new, %5$lld "
	            "seen again, %6$lld gone"),
	          (long long)b.lines, (long long)b.local, (long long)b.matched,
	          (long long)b.diffs_new, (long long)b.diffs_seen, (long long)b.diffs_gone);
	pane_text(&rv->p, 0, 0, R_DIM, _("  run by %1$s at %2$s, ended %3$s"), b.operator_id,
	          fmt_datetime(b.started_at, s),
	          b.finished_at ? fmt_datetime(b.finished_at, f) : "-");
	if (b.error[0])
		pane_text(&rv->p, 0, 0, R_ERROR, "  ! %s", b.error);
	if (b.open_now > 0)
		pane_text(&rv->p, 0, 0, R_UNPAID, _("  Day %1$s is not balanced: %2$lld open."),
		          b.day, (long long)b.open_now);
	else if (recon_batch_is_done(&b))
		pane_text(&rv->p, 0, 0, R_PAID, _("  Day %s is balanced."), b.day);
	pane_blank(&rv->p);
	pane_text(&rv->p, 0, 0, R_HEADER, "%s",
	          _("Its differences (Enter shows one; a accepts, p records, f corrects)"));
	pane_row(&rv->p, 0, 0, R_HEADER, 7, diff_cols, head);
	rv->rows = 0;
	if (recon_diff_list(ui_db(), rv->id, NULL, NULL, NULL, diff_row, rv) < 0)
		pane_text(&rv->p, 0, 0, R_ERROR, _("! The differences cannot be read: %s"),
		          err_msg());
	else if (rv->rows == 0)
		pane_text(&rv->p, 0, 0, R_DIM, "  %s", _("None: everything matched."));
}

/* ---------------------------------------------------------------- a difference */

static int add_line(const char *line, void *arg)
{
	struct reconv *rv = arg;

	pane_text(&rv->p, 0, 0, R_NORMAL, "  %s", line);
	return 0;
}

static int add_prose(const char *line, void *arg)
{
	struct reconv *rv = arg;

	pane_text(&rv->p, 0, 0, R_NORMAL, "%s", line);
	return 0;
}

/* "Label value" wrapped at blanks to the width (prose: a detail naming
 * both amounts, a note), so that nothing in it is cut off. */
static void prose(struct reconv *rv, const char *label, const char *value)
{
	size_t n = strlen(label) + strlen(value) + 2;
	char *s = xmalloc(n);

	snprintf(s, n, "%s %s", label, value);
	payload_lines(s, strlen(s), rv->w > 4 ? rv->w - 2 : PAYLOAD_MIN_COLS, 1, add_prose, rv);
	free(s);
}

/* The invoices payment_id is allocated to, each opening its invoice. */
static int alloc_line(const struct allocation *a, void *arg)
{
	struct reconv *rv = arg;
	char m[FMT_MONEY];

	if (a->reverses_id || a->reversed_by)
		return 0;
	pane_text(&rv->p, K_INVOICE, a->invoice_id, R_NORMAL, _("  Invoice %1$s: %2$s allocated"),
	          a->invoice_number, fmt_money_cur(a->amount, a->currency, m));
	return 0;
}

static void payment_lines(struct reconv *rv, const char *label, int64_t payment_id)
{
	struct payment p;
	char m[FMT_MONEY], when[32];

	if (payment_get(ui_db(), payment_id, &p) != 0) {
		pane_text(&rv->p, 0, 0, R_ERROR, "%s %lld: %s", label, (long long)payment_id,
		          err_msg());
		return;
	}
	pane_text(&rv->p, K_PAYMENT, p.id, R_NORMAL,
	          _("%1$s %2$lld: %3$s from %4$s, %5$s, %6$s (%7$s)"), label, (long long)p.id,
	          fmt_money_cur(p.amount, p.currency, m), p.customer_name, fmt_status(p.method),
	          fmt_datetime(p.received_at, when), fmt_status(p.status));
	payment_free(&p);
	alloc_list(ui_db(), payment_id, 0, alloc_line, rv);
}

static void build_diff(struct reconv *rv)
{
	struct recon_diff d;
	struct recon_guess g;
	char a[FMT_MONEY], b[FMT_MONEY], when[32];

	if (recon_diff_get(ui_db(), rv->id, &d) != 0) {
		pane_text(&rv->p, 0, 0, R_ERROR, _("! Difference %1$lld cannot be read: %2$s"),
		          (long long)rv->id, err_msg());
		return;
	}
	pane_text(&rv->p, 0, 0, R_HEADER, _("Difference %1$lld: %2$s (%3$s), %4$s"),
	          (long long)d.id, recon_kind_word(d.kind), d.kind, diff_state_word(&d));
	pane_text(&rv->p, 0, 0, R_NORMAL,
	          _("Channel %1$s, day %2$s; found by batch %3$lld, last seen by %4$lld"),
	          d.provider, d.day, (long long)d.first_batch, (long long)d.last_seen_batch);
	pane_text(&rv->p, 0, 0, R_NORMAL, _("Ours:    %s"),
	          d.has_local ? fmt_money_cur(d.local_amount, d.local_currency, a) : "-");
	pane_text(&rv->p, 0, 0, R_NORMAL, _("Channel: %s"),
	          d.has_channel ? fmt_money_cur(d.channel_amount, d.channel_currency, b) : "-");
	if (d.detail[0])
		prose(rv, _("Detail: "), d.detail);
	if (d.refund_id)
		pane_text(&rv->p, 0, 0, R_NORMAL, _("Our refund %lld"), (long long)d.refund_id);
	if (d.payment_id)
		payment_lines(rv, _("Our payment"), d.payment_id);
	if (recon_diff_is_open(&d) && recon_record_guess(ui_db(), d.id, &g) == 0) {
		if (g.order_no[0])
			pane_text(&rv->p, 0, 0, R_NORMAL, _("The line names our card order %s"),
			          g.order_no);
		if (g.invoice_id)
			pane_text(&rv->p, K_INVOICE, g.invoice_id, R_NORMAL, _("  Its invoice %s"),
			          g.invoice);
	}
	pane_blank(&rv->p);
	if (recon_diff_is_open(&d)) {
		pane_text(&rv->p, 0, 0, R_UNPAID, "%s",
		          !strcmp(d.kind, "channel_only")
		              ? _("Open: p records the payment, a accepts it with a note")
		              : _("Open: a accepts it with a note, f posts a correcting entry"));
	} else {
		pane_text(&rv->p, 0, 0, R_HEADER, _("Resolution: %s"), diff_state_word(&d));
		prose(rv, _("  Note:"), d.note);
		pane_text(&rv->p, 0, 0, R_NORMAL, _("  By %1$s at %2$s"), d.res_operator,
		          fmt_datetime(d.res_at, when));
		if (d.res_payment_id)
			payment_lines(rv, _("  Recorded payment"), d.res_payment_id);
		if (d.res_refund_id)
			pane_text(&rv->p, 0, 0, R_NORMAL, _("  Recorded refund %lld"),
			          (long long)d.res_refund_id);
	}
	pane_blank(&rv->p);
	if (d.line_data) {
		cJSON *j = cJSON_Parse(d.line_data);
		char *pretty = j ? cJSON_Print(j) : NULL;
		const char *text = pretty ? pretty : d.line_data;

		pane_text(&rv->p, 0, 0, R_HEADER,
		          _("Channel line %s as stored (control characters made harmless)"),
		          d.line_id);
		payload_lines(text, strlen(text), rv->w > 4 ? rv->w - 4 : PAYLOAD_MIN_COLS, 0,
		              add_line, rv);
		free(pretty);
		cJSON_Delete(j);
	} else {
		pane_text(&rv->p, 0, 0, R_DIM, "%s",
		          _("No channel line: the channel shows nothing."));
	}
	recon_diff_free(&d);
}

/* ---------------------------------------------------------------- the view */

static void build(struct reconv *rv)
{
	int kind, old = rv->p.cur;
	int64_t id;

	pane_target(&rv->p, &kind, &id);
	pane_clear(&rv->p);
	if (rv->mode == RV_LIST)
		build_list(rv);
	else if (rv->mode == RV_BATCH)
		build_batch(rv);
	else
		build_diff(rv);
	pane_restore(&rv->p, kind, id, old < 0 ? 0 : old);
}

static void recon_free(struct view *v)
{
	struct reconv *rv = v->priv;

	pane_free(&rv->p);
	free(rv);
}

static void recon_resize(struct view *v, int h, int w)
{
	struct reconv *rv = v->priv;

	(void)h;
	if (w != rv->w) {
		rv->w = w;
		if (rv->mode == RV_DIFF)
			build(rv);
	}
}

static void recon_draw(struct view *v, WINDOW *w)
{
	struct reconv *rv = v->priv;

	pane_draw(&rv->p, w, 0);
}

static void recon_reload(struct view *v)
{
	build(v->priv);
}

static struct view *recon_view(int mode, int64_t id);

/* The difference the action is about: the selected one, or this one. */
static int64_t diff_target(struct reconv *rv, int kind, int64_t id)
{
	if (rv->mode == RV_DIFF)
		return rv->id;
	return kind == K_RECON_DIFF ? id : 0;
}

static struct ui_next recon_action(struct view *v, const struct ui_event *ev)
{
	struct reconv *rv = v->priv;
	int kind;
	int64_t id, diff;
	struct ui_next n = pane_action(&rv->p, ev);

	if (n.kind != UI_UNHANDLED)
		return n;
	pane_target(&rv->p, &kind, &id);
	diff = diff_target(rv, kind, id);
	switch (ev->action) {
	case ACT_OPEN:
		if (kind == K_RECON_BATCH)
			return ui_next(UI_PUSH, recon_view(RV_BATCH, id));
		if (kind == K_RECON_DIFF)
			return ui_next(UI_PUSH, recon_view(RV_DIFF, id));
		if (kind == K_RECON_EVENT)
			return ui_next(UI_PUSH, view_event_new(id));
		if (kind == K_PAYMENT)
			return ui_next(UI_PUSH, view_payment_new(id));
		if (kind == K_INVOICE)
			return ui_next(UI_PUSH, view_invoice_new(id));
		return ui_next(UI_HANDLED, NULL);
	case ACT_RECON_ACCEPT:
	case ACT_RECON_CORRECT:
		if (!diff) {
			ui_msg(MSG_INFO, "%s",
			       _("Select a difference first (Enter on a batch lists them)."));
			return ui_next(UI_HANDLED, NULL);
		}
		return ui_next(UI_PUSH, form_recon_resolve(diff, ev->action == ACT_RECON_ACCEPT
		                                                     ? RECON_FORM_ACCEPT
		                                                     : RECON_FORM_CORRECT));
	case ACT_RECON_RECORD:
		if (rv->mode == RV_LIST && kind == K_RECON_EVENT)
			return ui_next(UI_PUSH, form_recon_claim(id));
		if (!diff) {
			ui_msg(MSG_INFO, "%s",
			       _("Select a channel-only difference or a parked event first."));
			return ui_next(UI_HANDLED, NULL);
		}
		return ui_next(UI_PUSH, form_recon_resolve(diff, RECON_FORM_RECORD));
	default:
		return ui_next(UI_UNHANDLED, NULL);
	}
}

static void recon_title(struct view *v, char *buf, size_t n)
{
	struct reconv *rv = v->priv;

	if (rv->mode == RV_LIST)
		snprintf(buf, n, "%s", _("Reconciliation"));
	else if (rv->mode == RV_BATCH)
		snprintf(buf, n, _("Batch %lld"), (long long)rv->id);
	else
		snprintf(buf, n, _("Difference %lld"), (long long)rv->id);
}

static const char *recon_help(struct view *v)
{
	(void)v;
	return _("Reconciliation against the payment channel's settlement data, as frontdesk "
	         "recon list, show and resolve: the batches newest first with their figures per "
	         "currency, the parked payment events that match no order of ours and the "
	         "payouts. Enter on a batch lists its differences; Enter on a difference shows it "
	         "whole, with its local payment, its invoices and the raw channel line. Each "
	         "difference needs a person's decision with a note: a accepts it as it is, p "
	         "records the payment a channel-only charge shows (or claims a parked event for a "
	         "customer and invoices), f posts a correcting entry. The core decides; a refusal "
	         "is shown in the form and changes nothing.");
}

static int recon_target(struct view *v, const char **kind, int64_t *id)
{
	struct reconv *rv = v->priv;
	int k;
	int64_t i;

	pane_target(&rv->p, &k, &i);
	if (k == K_PAYMENT) {
		*kind = "payment";
		*id = i;
		return 1;
	}
	if (k == K_INVOICE) {
		*kind = "invoice";
		*id = i;
		return 1;
	}
	return 0;
}

static const enum action recon_keys[] = {
    ACT_UP,   ACT_DOWN,         ACT_PAGE_UP,      ACT_PAGE_DOWN,     ACT_TOP, ACT_BOTTOM,
    ACT_OPEN, ACT_RECON_ACCEPT, ACT_RECON_RECORD, ACT_RECON_CORRECT, ACT_NONE};
static const enum action recon_hints[] = {ACT_OPEN, ACT_RECON_ACCEPT, ACT_RECON_RECORD,
                                          ACT_RECON_CORRECT, ACT_NONE};

static const struct view_ops recon_ops = {
    .name = "recon",
    .ctx = CTX_RECON | CTX_PANE,
    .keys = recon_keys,
    .hints = recon_hints,
    .free = recon_free,
    .resize = recon_resize,
    .draw = recon_draw,
    .action = recon_action,
    .reload = recon_reload,
    .title = recon_title,
    .help = recon_help,
    .target = recon_target,
};

static struct view *recon_view(int mode, int64_t id)
{
	struct reconv *rv = xcalloc(1, sizeof *rv);

	rv->mode = mode;
	rv->id = id;
	rv->w = 80;
	rv->p.cur = -1;
	build(rv);
	pane_select_first(&rv->p, mode == RV_LIST    ? K_RECON_BATCH
	                          : mode == RV_BATCH ? K_RECON_DIFF
	                                             : 0);
	rv->p.top = 0; /* the headings stay in sight */
	return view_new(&recon_ops, rv);
}

struct view *view_recon_new(void)
{
	return recon_view(RV_LIST, 0);
}
