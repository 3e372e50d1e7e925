/*
 * view-estimate.c - an estimate sent for signature: its number, job,
 * customer, total, the PDF's hash, the sign flow (provider, envelope,
 * state, why the last out-of-order callback was ignored), and once signed
 * the stored document with its hash and the provider's evidence: each
 * signer with the times and IP address the provider reports, the timestamp
 * token and the certificate id. Read through the core (esign_get,
 * esign_evidence_read) each time the database changes. Opened with Enter
 * on a job's signature line in the visit pane.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "esign.h"
#include "fmt.h"
#include "i18n.h"
#include "pane.h"
#include "views.h"
#include "xalloc.h"

struct estimatev {
	int64_t id;
	struct pane p;
};

static void field(struct estimatev *ev, const char *label, const char *value)
{
	pane_field(&ev->p, 0, 0, R_NORMAL, 0, label, value);
}

static void build(struct estimatev *ev)
{
	struct estimate e;
	struct esign_evidence evd;
	char m[FMT_MONEY], t[32], job[64];
	size_t i;

	pane_clear(&ev->p);
	if (esign_get(ui_db(), ev->id, &e) != 0) {
		pane_text(&ev->p, 0, 0, R_ERROR, _("! Estimate %lld no longer exists."),
		          (long long)ev->id);
		return;
	}
	pane_text(&ev->p, K_ESTIMATE, e.id, R_HEADER, _("Estimate %1$s: %2$s"), e.number, e.state);
	snprintf(job, sizeof job, "%lld", (long long)e.job_id);
	field(ev, _("Job"), job);
	field(ev, _("Customer"), e.customer_name);
	field(ev, _("Total"), fmt_money_cur(e.total, e.currency, m));
	field(ev, _("Made"), fmt_datetime(e.created_at, t));
	field(ev, _("PDF SHA-256"), e.pdf_sha256);
	pane_blank(&ev->p);
	field(ev, _("Provider"), e.provider);
	field(ev, _("Envelope"), e.envelope_id);
	field(ev, _("Sent"), e.outbox_status);
	if (e.ignored_reason)
		pane_field(&ev->p, 0, 0, R_DIM, 0, _("Last ignored"), e.ignored_reason);
	if (*e.document_sha256) {
		pane_blank(&ev->p);
		field(ev, _("Signed document"), e.document_path);
		field(ev, _("Document SHA-256"), e.document_sha256);
	}
	if (e.evidence && esign_evidence_read(e.evidence, &evd) == 0) {
		pane_blank(&ev->p);
		pane_text(&ev->p, 0, 0, R_HEADER, "%s", _("Evidence"));
		for (i = 0; i < evd.n; i++) {
			char v[32], s[32];

			pane_text(&ev->p, 0, 0, R_NORMAL, _("Signer: %1$s <%2$s> from %3$s"),
			          evd.signers[i].name, evd.signers[i].email,
			          *evd.signers[i].ip ? evd.signers[i].ip : "-");
			pane_text(
			    &ev->p, 0, 0, R_NORMAL, _("  viewed %1$s, signed %2$s"),
			    evd.signers[i].viewed_at ? fmt_datetime(evd.signers[i].viewed_at, v)
			                             : "-",
			    evd.signers[i].signed_at ? fmt_datetime(evd.signers[i].signed_at, s)
			                             : "-");
		}
		field(ev, _("Certificate"), evd.certificate_id);
		field(ev, _("Timestamp token"), evd.timestamp_token);
		esign_evidence_free(&evd);
	}
	esign_estimate_free(&e);
	pane_select_first(&ev->p, K_ESTIMATE);
}

static void estimate_free(struct view *v)
{
	struct estimatev *ev = v->priv;

	pane_free(&ev->p);
	free(ev);
}

static void estimate_resize(struct view *v, int h, int w)
{
	(void)v;
	(void)h;
	(void)w;
}

static void estimate_draw(struct view *v, WINDOW *w)
{
	struct estimatev *ev = v->priv;

	pane_draw(&ev->p, w, 0);
}

static void estimate_reload(struct view *v)
{
	build(v->priv);
}

static struct ui_next estimate_action(struct view *v, const struct ui_event *e)
{
	struct estimatev *ev = v->priv;

	return pane_action(&ev->p, e);
}

static void estimate_title(struct view *v, char *buf, size_t n)
{
	struct estimatev *ev = v->priv;

	snprintf(buf, n, _("Estimate %lld"), (long long)ev->id);
}

static const char *estimate_help(struct view *v)
{
	(void)v;
	return _("An estimate sent for the customer's signature through an e-sign provider: "
	         "where its sign flow stands and, once signed, the stored document and the "
	         "provider's evidence.");
}

static const enum action estimate_keys[] = {ACT_UP,  ACT_DOWN,   ACT_PAGE_UP, ACT_PAGE_DOWN,
                                            ACT_TOP, ACT_BOTTOM, ACT_NONE};
static const enum action estimate_hints[] = {ACT_NONE};

static const struct view_ops estimate_ops = {
    .name = "estimate",
    .ctx = CTX_PANE,
    .keys = estimate_keys,
    .hints = estimate_hints,
    .free = estimate_free,
    .resize = estimate_resize,
    .draw = estimate_draw,
    .action = estimate_action,
    .reload = estimate_reload,
    .title = estimate_title,
    .help = estimate_help,
};

struct view *view_estimate_new(int64_t estimate_id)
{
	struct estimatev *ev = xcalloc(1, sizeof *ev);

	ev->id = estimate_id;
	ev->p.cur = -1;
	build(ev);
	return view_new(&estimate_ops, ev);
}
