/*
 * esign-report.c - a condition report taken before the work, acknowledged
 * by the customer through the e-sign flow that estimates use (see
 * esign.h): the report's final document (condition finalize) is what is
 * signed. Also the subject of any flow (esign-int.h): what the worker
 * sends, whether the flow is an estimate's or a report's.
 *
 * Invariants: a report is sent only final, taken before the work, with a
 * customer, its document whole (its recorded hash); at most one of its
 * flows waits for the signature or is signed; the flow and its
 * envelope.create command are written in one transaction.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "channel.h"
#include "clock.h"
#include "condition.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "esign-int.h"
#include "esign.h"
#include "fsmode.h"
#include "i18n.h"
#include "outbox.h"
#include "pipe-provider.h"
#include "strbuf.h"
#include "xalloc.h"

void esign_subject_free(struct esign_subject *s)
{
	free(s->pdf_path);
	free(s->title);
	free(s->signer_name);
	memset(s, 0, sizeof *s);
}

static int report_subject(struct db *db, long long report, long long flow,
                          struct esign_subject *out)
{
	struct condition_report r;
	sqlite3_stmt *st;
	int rc, found = 0;

	if ((rc = db_prepare(
	         db,
	         "SELECT status, coalesce(envelope_id, ''), provider_code FROM esign_flow"
	         " WHERE id = ?1 AND report_id = ?2",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, flow);
	sqlite3_bind_int64(st, 2, report);
	if (sqlite3_step(st) == SQLITE_ROW) {
		found = 1;
		dbrow_copy(st, 0, out->state, sizeof out->state);
		dbrow_copy(st, 1, out->envelope_id, sizeof out->envelope_id);
		dbrow_copy(st, 2, out->provider, sizeof out->provider);
	}
	sqlite3_finalize(st);
	if (!found)
		return err_set(FD_ENOTFOUND,
		               _("there is no sign flow %lld of condition report %lld"), flow,
		               report);
	if ((rc = condition_document(db, report, &r, &out->pdf_path)))
		return rc;
	out->flow_id = flow;
	esign_report_number_make(report, flow, out->number);
	snprintf(out->pdf_sha256, sizeof out->pdf_sha256, "%s", r.document_sha256);
	out->customer_id = r.customer_id;
	out->signer_name = r.customer_name ? xstrdup(r.customer_name) : xstrdup("");
	{
		struct strbuf sb = {0};

		sb_printf(&sb, _("Condition report %lld, before the work"), report);
		out->title = sb_steal(&sb);
	}
	condition_free(&r);
	return 0;
}

int esign_subject_get(struct db *db, const char *number, struct esign_subject *out)
{
	long long report, flow;
	struct estimate e;
	int64_t id = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if (esign_report_number(number, &report, &flow)) {
		if ((rc = report_subject(db, report, flow, out)))
			esign_subject_free(out);
		return rc;
	}
	if ((rc = esign_find(db, number, &id)) || (rc = esign_get(db, id, &e)))
		return rc;
	out->flow_id = e.flow_id;
	snprintf(out->number, sizeof out->number, "%s", e.number);
	snprintf(out->state, sizeof out->state, "%s", e.state);
	snprintf(out->envelope_id, sizeof out->envelope_id, "%s", e.envelope_id);
	snprintf(out->provider, sizeof out->provider, "%s", e.provider);
	{
		char *dir = esign_folder(db);
		struct strbuf sb = {0};

		sb_printf(&sb, "%s/%s", dir, e.pdf_path);
		free(dir);
		out->pdf_path = sb_steal(&sb);
	}
	snprintf(out->pdf_sha256, sizeof out->pdf_sha256, "%s", e.pdf_sha256);
	out->title = xstrdup(e.job_title ? e.job_title : "");
	out->signer_name = xstrdup(e.customer_name ? e.customer_name : "");
	out->customer_id = e.customer_id;
	esign_estimate_free(&e);
	return 0;
}

/* ---------------------------------------------------------------- sending */

struct rsend_ctx {
	int64_t report;
	const char *provider;
	int64_t flow;
};

/* The report checked sendable: before the work, final, a customer, its
 * document whole, no flow of it waiting or signed. */
static int rsend_check(struct db *db, const struct rsend_ctx *s, const struct condition_report *r,
                       const char *path)
{
	sqlite3_stmt *st;
	int64_t busy = 0;
	int rc;

	if (strcmp(r->stage, "before"))
		return err_set(FD_EINVAL,
		               _("condition report %lld was taken after the work: the customer "
		                 "acknowledges the report taken before it"),
		               (long long)s->report);
	if (strcmp(r->status, "final"))
		return err_set(FD_ECONFLICT,
		               _("condition report %lld is open: make it final first "
		                 "(frontdesk condition finalize %lld)"),
		               (long long)s->report, (long long)s->report);
	if (!path)
		return err_set(FD_ECONFLICT,
		               _("the document of condition report %lld was removed with the "
		                 "customer's data"),
		               (long long)s->report);
	if (!r->customer_id)
		return err_set(FD_EINVAL, _("condition report %lld has no customer to sign it"),
		               (long long)s->report);
	if ((rc = fsmode_file_matches(path, r->document_sha256, CONDITION_FILE_MAX))) {
		err_clear();
		return err_set(FD_ECONFLICT,
		               _("the document of condition report %lld is missing or changed "
		                 "(frontdesk check)"),
		               (long long)s->report);
	}
	if ((rc = db_prepare(db,
	                     "SELECT count(*) FROM esign_flow WHERE report_id = ?1"
	                     " AND status IN ('sent', 'viewed', 'signed')",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, s->report);
	if (sqlite3_step(st) == SQLITE_ROW)
		busy = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (busy)
		return err_set(FD_ECONFLICT,
		               _("condition report %lld is already waiting for its signature, or "
		                 "signed"),
		               (long long)s->report);
	return 0;
}

static int rsend_tx(struct db *db, void *arg)
{
	struct rsend_ctx *s = arg;
	struct condition_report r;
	sqlite3_stmt *st;
	char subject[80], ref[48], code[41], key[17], ik[40], *path = NULL, *payload = NULL;
	int64_t now = clock_now();
	cJSON *p;
	int rc;

	snprintf(subject, sizeof subject, "send condition report %lld for signing",
	         (long long)s->report);
	if ((rc = control_require(db, PERM_JOB_EDIT, 0, subject)))
		return rc;
	if ((rc = condition_document(db, s->report, &r, &path)))
		return rc;
	if ((rc = rsend_check(db, s, &r, path)))
		goto out;
	snprintf(ref, sizeof ref, "CR-%lld", (long long)s->report);
	if ((rc = pipe_provider_pick(db, ESIGN_TYPE, s->provider, C_("provider", "e-sign"), ref,
	                             code)))
		goto out;
	db_set_reason(db, "sent for signature");
	rc = db_prepare(db,
	                "INSERT INTO esign_flow (report_id, provider_code, status, created_at,"
	                " updated_at) VALUES (?1, ?2, 'sent', ?3, ?3)",
	                &st);
	if (!rc) {
		sqlite3_bind_int64(st, 1, s->report);
		sqlite3_bind_text(st, 2, code, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, now);
		rc = db_run(db, st, _("cannot save the sign flow"));
	}
	db_set_reason(db, NULL);
	if (rc || (rc = chan_random_hex(key)))
		goto out;
	s->flow = sqlite3_last_insert_rowid(db_sqlite(db));
	esign_report_number_make(s->report, s->flow, ref);
	p = cJSON_CreateObject();
	chan_json_add_int(p, "report_id", s->report);
	cJSON_AddStringToObject(p, "number", ref);
	cJSON_AddStringToObject(p, "pdf_sha256", r.document_sha256);
	payload = cJSON_PrintUnformatted(p);
	cJSON_Delete(p);
	snprintf(ik, sizeof ik, "esign-%s", key);
	{
		struct outbox_new c = {ESIGN_TYPE, "envelope.create", ref, code,
		                       ik,         payload,           now, 0};

		rc = outbox_enqueue(db, &c, NULL);
	}
out:
	cJSON_free(payload);
	free(path);
	condition_free(&r);
	return rc;
}

int esign_send_report(struct db *db, int64_t report, const char *provider, int64_t *flow)
{
	struct rsend_ctx s = {report, provider, 0};
	int rc;

	*flow = 0;
	if (report <= 0)
		return err_set(FD_EINVAL, _("name the condition report by its id"));
	if ((rc = db_write(db, rsend_tx, &s)) == 0)
		*flow = s.flow;
	return rc;
}

/* ---------------------------------------------------------------- reading */

int esign_report_state(struct db *db, int64_t report, struct esign_report_sign *out)
{
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	/* a signed flow first, else the newest */
	if ((rc = db_prepare(db,
	                     "SELECT id, status, provider_code, coalesce(document_sha256, ''),"
	                     " document_path FROM esign_flow WHERE report_id = ?1"
	                     " ORDER BY status = 'signed' DESC, id DESC LIMIT 1",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, report);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		out->flow_id = sqlite3_column_int64(st, 0);
		esign_report_number_make(report, out->flow_id, out->number);
		dbrow_copy(st, 1, out->state, sizeof out->state);
		dbrow_copy(st, 2, out->provider, sizeof out->provider);
		dbrow_copy(st, 3, out->document_sha256, sizeof out->document_sha256);
		if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
			char *dir = esign_folder(db);
			struct strbuf sb = {0};

			sb_printf(&sb, "%s/%s", dir, (const char *)sqlite3_column_text(st, 4));
			free(dir);
			out->document_path = sb_steal(&sb);
		}
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the sign flows"));
	}
	sqlite3_finalize(st);
	return rc;
}

void esign_report_sign_free(struct esign_report_sign *s)
{
	free(s->document_path);
	memset(s, 0, sizeof *s);
}
