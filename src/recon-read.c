/*
 * recon-read.c - reading reconciliation: batches and differences, the payouts, the
 * check of the books and the state of a day (see recon.h).
 */
#include <config.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chan-order.h"
#include "clock.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "idem.h"
#include "inbox.h"
#include "invoice.h"
#include "money.h"
#include "payment.h"
#include "pipe-provider.h"
#include "recon-int.h"
#include "recon.h"
#include "settings.h"
#include "settle-file.h"
#include "xalloc.h"
/* ------------------------------------------------------------ reads */

static void batch_row(sqlite3_stmt *st, struct recon_batch *b)
{
	memset(b, 0, sizeof *b);
	b->id = sqlite3_column_int64(st, 0);
	dbrow_copy(st, 1, b->provider, sizeof b->provider);
	dbrow_copy(st, 2, b->day, sizeof b->day);
	b->window_from = sqlite3_column_int64(st, 3);
	b->window_to = sqlite3_column_int64(st, 4);
	dbrow_copy(st, 5, b->source, sizeof b->source);
	dbrow_copy(st, 6, b->sha256, sizeof b->sha256);
	b->fetch_from = sqlite3_column_int64(st, 7);
	b->fetch_to = sqlite3_column_int64(st, 8);
	dbrow_copy(st, 9, b->status, sizeof b->status);
	b->lines = sqlite3_column_int64(st, 10);
	b->local = sqlite3_column_int64(st, 11);
	b->matched = sqlite3_column_int64(st, 12);
	b->diffs_new = sqlite3_column_int64(st, 13);
	b->diffs_seen = sqlite3_column_int64(st, 14);
	b->diffs_gone = sqlite3_column_int64(st, 15);
	b->open_at_end = sqlite3_column_int64(st, 16);
	dbrow_copy(st, 17, b->error, sizeof b->error);
	dbrow_copy(st, 18, b->operator_id, sizeof b->operator_id);
	b->started_at = sqlite3_column_int64(st, 19);
	b->finished_at = sqlite3_column_int64(st, 20);
	b->open_now = sqlite3_column_int64(st, 21);
}

#define BATCH_COLS                                                                                 \
	"b.id, b.provider_code, b.business_day, b.window_from, b.window_to, b.source,"             \
	" b.file_sha256, b.fetch_from, b.fetch_to, b.status, b.lines, b.local_items, b.matched,"   \
	" b.diffs_new, b.diffs_seen, b.diffs_gone, b.open_diffs, b.error, b.operator_id,"          \
	" b.started_at, b.finished_at,"                                                            \
	" (SELECT count(*) FROM reconciliation_diff d WHERE d.business_day = b.business_day"       \
	"  AND d.provider_code = b.provider_code AND d.state = 'open')"

int recon_diff_is_open(const struct recon_diff *d)
{
	return recon_diff_state_of(d->state) == RECON_DIFF_OPEN;
}

int recon_batch_is_done(const struct recon_batch *b)
{
	return recon_batch_state_of(b->status) == RECON_BATCH_DONE;
}

int recon_parked_is_parked(const struct recon_parked *e)
{
	return inbox_state_of(e->status) == INBOX_PARKED;
}

int recon_batch_get(struct db *db, int64_t id, struct recon_batch *out)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(
	    db, "SELECT " BATCH_COLS " FROM reconciliation_batch b WHERE b.id = ?1", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		batch_row(st, out);
		rc = 0;
	} else {
		rc = err_set(FD_ENOTFOUND, _("no reconciliation batch %lld"), (long long)id);
	}
	db_release(db, st);
	return rc;
}

int recon_batch_list(struct db *db, const char *provider, const char *day, int limit,
                     int (*cb)(const struct recon_batch *b, void *arg), void *arg)
{
	sqlite3_stmt *st;
	struct recon_batch b;
	int rc, step;

	rc = db_prepare(db,
	                "SELECT " BATCH_COLS " FROM reconciliation_batch b"
	                " WHERE (?1 IS NULL OR b.provider_code = ?1)"
	                " AND (?2 IS NULL OR b.business_day = ?2) ORDER BY b.id DESC LIMIT ?3",
	                &st);
	if (rc)
		return rc;
	if (provider)
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	if (day)
		sqlite3_bind_text(st, 2, day, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, limit > 0 ? limit : 100);
	rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		batch_row(st, &b);
		rc = cb(&b, arg);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("reading the reconciliation batches"));
	sqlite3_finalize(st);
	return rc;
}

int recon_batch_totals(struct db *db, int64_t id, int (*cb)(const struct recon_total *t, void *arg),
                       void *arg)
{
	sqlite3_stmt *st;
	struct recon_total t;
	int rc, step;

	rc = db_prepare(db,
	                "SELECT currency, lines, gross, fee, net, local FROM reconciliation_total"
	                " WHERE batch_id = ?1 ORDER BY currency",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&t, 0, sizeof t);
		dbrow_copy(st, 0, t.currency, sizeof t.currency);
		t.lines = sqlite3_column_int64(st, 1);
		t.gross = sqlite3_column_int64(st, 2);
		t.fee = sqlite3_column_int64(st, 3);
		t.net = sqlite3_column_int64(st, 4);
		t.local = sqlite3_column_int64(st, 5);
		rc = cb(&t, arg);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("reading the batch's totals"));
	sqlite3_finalize(st);
	return rc;
}

#define DIFF_COLS                                                                                  \
	"d.id, d.provider_code, d.kind, d.natural_key, d.business_day, d.first_batch_id,"          \
	" d.last_seen_batch_id, d.payment_id, d.refund_id, d.line_id, d.line_data,"                \
	" d.local_amount, d.local_currency, d.channel_amount, d.channel_currency, d.detail,"       \
	" d.state, d.created_at, d.updated_at, r.action, r.note, r.payment_id, r.refund_id,"       \
	" r.batch_id, r.operator_id, r.at"

/* Fill d from a DIFF_COLS row; line_data points into the row (copy it). */
static void diff_row(sqlite3_stmt *st, struct recon_diff *d)
{
	memset(d, 0, sizeof *d);
	d->id = sqlite3_column_int64(st, 0);
	dbrow_copy(st, 1, d->provider, sizeof d->provider);
	dbrow_copy(st, 2, d->kind, sizeof d->kind);
	dbrow_copy(st, 3, d->natural_key, sizeof d->natural_key);
	dbrow_copy(st, 4, d->day, sizeof d->day);
	d->first_batch = sqlite3_column_int64(st, 5);
	d->last_seen_batch = sqlite3_column_int64(st, 6);
	d->payment_id = sqlite3_column_int64(st, 7);
	d->refund_id = sqlite3_column_int64(st, 8);
	dbrow_copy(st, 9, d->line_id, sizeof d->line_id);
	d->line_data = (char *)sqlite3_column_text(st, 10);
	d->has_local = sqlite3_column_type(st, 11) != SQLITE_NULL;
	d->local_amount = sqlite3_column_int64(st, 11);
	dbrow_copy(st, 12, d->local_currency, sizeof d->local_currency);
	d->has_channel = sqlite3_column_type(st, 13) != SQLITE_NULL;
	d->channel_amount = sqlite3_column_int64(st, 13);
	dbrow_copy(st, 14, d->channel_currency, sizeof d->channel_currency);
	dbrow_copy(st, 15, d->detail, sizeof d->detail);
	dbrow_copy(st, 16, d->state, sizeof d->state);
	d->created_at = sqlite3_column_int64(st, 17);
	d->updated_at = sqlite3_column_int64(st, 18);
	dbrow_copy(st, 19, d->action, sizeof d->action);
	dbrow_copy(st, 20, d->note, sizeof d->note);
	d->res_payment_id = sqlite3_column_int64(st, 21);
	d->res_refund_id = sqlite3_column_int64(st, 22);
	d->res_batch_id = sqlite3_column_int64(st, 23);
	dbrow_copy(st, 24, d->res_operator, sizeof d->res_operator);
	d->res_at = sqlite3_column_int64(st, 25);
}

int recon_diff_list(struct db *db, int64_t batch_id, const char *provider, const char *day,
                    const char *state, int (*cb)(const struct recon_diff *d, void *arg), void *arg)
{
	sqlite3_stmt *st;
	struct recon_diff d;
	int rc, step;

	rc = db_prepare(db,
	                "SELECT " DIFF_COLS " FROM reconciliation_diff d"
	                " LEFT JOIN reconciliation_resolution r ON r.diff_id = d.id"
	                " WHERE (?1 = 0 OR d.last_seen_batch_id = ?1 OR r.batch_id = ?1)"
	                " AND (?2 IS NULL OR d.provider_code = ?2)"
	                " AND (?3 IS NULL OR d.business_day = ?3) AND (?4 IS NULL OR d.state = ?4)"
	                " ORDER BY d.id",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, batch_id);
	if (provider)
		sqlite3_bind_text(st, 2, provider, -1, SQLITE_STATIC);
	if (day)
		sqlite3_bind_text(st, 3, day, -1, SQLITE_STATIC);
	if (state)
		sqlite3_bind_text(st, 4, state, -1, SQLITE_STATIC);
	rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		diff_row(st, &d);
		rc = cb(&d, arg);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("reading the reconciliation differences"));
	sqlite3_finalize(st);
	return rc;
}

int recon_diff_get(struct db *db, int64_t id, struct recon_diff *out)
{
	sqlite3_stmt *st;
	int rc;

	rc =
	    db_prepare(db,
	               "SELECT " DIFF_COLS " FROM reconciliation_diff d"
	               " LEFT JOIN reconciliation_resolution r ON r.diff_id = d.id WHERE d.id = ?1",
	               &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		diff_row(st, out);
		out->line_data = out->line_data ? xstrdup(out->line_data) : NULL;
		rc = 0;
	} else {
		rc = err_set(FD_ENOTFOUND, _("no reconciliation difference %lld"), (long long)id);
	}
	sqlite3_finalize(st);
	return rc;
}

void recon_diff_free(struct recon_diff *d)
{
	free(d->line_data);
	d->line_data = NULL;
}

/* ------------------------------------------------------------ payouts */

int recon_payout_list(struct db *db, const char *provider, int unticked_only,
                      int (*cb)(const struct recon_payout *p, void *arg), void *arg)
{
	sqlite3_stmt *st;
	struct recon_payout p;
	int rc, step;

	rc =
	    db_prepare(db,
	               "SELECT id, provider_code, payout_id, amount, currency, lines, lines_sum,"
	               " matches, coalesce(arrival_date, ''), coalesce(batch_id, 0),"
	               " coalesce(ticked_at, 0), coalesce(ticked_by, '') FROM reconciliation_payout"
	               " WHERE (?1 IS NULL OR provider_code = ?1) AND (?2 = 0 OR ticked_at IS NULL)"
	               " ORDER BY id DESC",
	               &st);
	if (rc)
		return rc;
	if (provider)
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, unticked_only);
	rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&p, 0, sizeof p);
		p.id = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, p.provider, sizeof p.provider);
		dbrow_copy(st, 2, p.payout_id, sizeof p.payout_id);
		p.amount = sqlite3_column_int64(st, 3);
		dbrow_copy(st, 4, p.currency, sizeof p.currency);
		p.lines = sqlite3_column_int64(st, 5);
		p.lines_sum = sqlite3_column_int64(st, 6);
		p.matches = sqlite3_column_int(st, 7);
		dbrow_copy(st, 8, p.arrival, sizeof p.arrival);
		p.batch_id = sqlite3_column_int64(st, 9);
		p.ticked_at = sqlite3_column_int64(st, 10);
		dbrow_copy(st, 11, p.ticked_by, sizeof p.ticked_by);
		rc = cb(&p, arg);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("reading the payouts"));
	sqlite3_finalize(st);
	return rc;
}

/* ------------------------------------------------------------ check */

int recon_check(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
                void *arg)
{
	sqlite3_stmt *st;
	int rc, step, n = 0;

	rc = db_prepare(db,
	                "SELECT id, provider_code, business_day FROM reconciliation_batch"
	                " WHERE status = 'running' ORDER BY id",
	                &st);
	if (rc)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct control_info ci;
		char name[65], provider[41], day[11], detail[300];
		int64_t id = sqlite3_column_int64(st, 0);

		dbrow_copy(st, 1, provider, sizeof provider);
		dbrow_copy(st, 2, day, sizeof day);
		snprintf(name, sizeof name, "recon.%s.%s", provider, day);
		if (control_get(db, name, &ci) == 0) {
			int held = ci.state == CONTROL_HELD;

			control_info_free(&ci);
			if (held)
				continue; /* a run is working on it now */
		}
		snprintf(detail, sizeof detail,
		         "reconciliation batch %lld of %s (%s) is still running, but its run ended "
		         "without finishing: run the day again (frontdesk recon run --date %s)",
		         (long long)id, day, provider, day);
		report("recon-batch-interrupted", detail, arg);
		n++;
	}
	if (step != SQLITE_DONE)
		n = db_fail(db, _("reading the running batches"));
	sqlite3_finalize(st);
	return n;
}

/* ------------------------------------------------------------ state */

int recon_day_balanced(struct db *db, const char *provider, const char *day, int *balanced,
                       int64_t *open)
{
	sqlite3_stmt *st;
	int rc;

	*balanced = 0;
	if ((rc = recon_count_open(db, provider, day, open)) != 0)
		return rc;
	rc = db_prepare_cached(
	    db,
	    "SELECT count(*), coalesce(min(b.status = 'done'), 0) FROM"
	    " (SELECT max(id) AS id FROM reconciliation_batch WHERE business_day = ?2"
	    "  AND (?1 IS NULL OR provider_code = ?1) GROUP BY provider_code) l"
	    " JOIN reconciliation_batch b ON b.id = l.id",
	    &st);
	if (rc)
		return rc;
	if (provider)
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, day, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		*balanced =
		    sqlite3_column_int64(st, 0) > 0 && sqlite3_column_int(st, 1) && *open == 0;
	db_release(db, st);
	return 0;
}

int recon_day_state(struct db *db, const char *provider, struct recon_state *out)
{
	sqlite3_stmt *st;
	int rc;

	memset(out, 0, sizeof *out);
	/* the open differences by their partial index (the status line reads
	 * this whenever the database changed): a walk of every difference ever
	 * found, resolved or not, was what the planner chose */
	rc = db_prepare_cached(
	    db,
	    "SELECT count(*), count(DISTINCT business_day) FROM reconciliation_diff"
	    " INDEXED BY reconciliation_diff_open"
	    " WHERE state = 'open' AND (?1 IS NULL OR provider_code = ?1)",
	    &st);
	if (rc)
		return rc;
	if (provider)
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		out->open = sqlite3_column_int64(st, 0);
		out->open_days = sqlite3_column_int64(st, 1);
	}
	db_release(db, st);
	/* the last balanced day: the days reconciled, newest first, until one
	 * whose latest batch of every provider is done and which has no open
	 * difference (a grouping of every batch ever run was what this read,
	 * on the status line, whenever the database changed) */
	rc = db_prepare_cached(
	    db,
	    "SELECT x.day FROM (SELECT DISTINCT business_day AS day FROM reconciliation_batch"
	    "  INDEXED BY reconciliation_batch_by_day_only"
	    "  WHERE ?1 IS NULL OR provider_code = ?1 ORDER BY business_day DESC) x"
	    " WHERE NOT EXISTS (SELECT 1 FROM reconciliation_batch b"
	    "  WHERE b.business_day = x.day AND (?1 IS NULL OR b.provider_code = ?1)"
	    "  AND b.status <> 'done' AND b.id = (SELECT max(m.id) FROM reconciliation_batch m"
	    "  WHERE m.provider_code = b.provider_code AND m.business_day = x.day))"
	    " AND NOT EXISTS (SELECT 1 FROM reconciliation_diff d WHERE d.business_day = x.day"
	    "  AND d.state = 'open' AND (?1 IS NULL OR d.provider_code = ?1))"
	    " LIMIT 1",
	    &st);
	if (rc)
		return rc;
	if (provider)
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		dbrow_copy(st, 0, out->last_balanced, sizeof out->last_balanced);
	db_release(db, st);
	return 0;
}

int recon_days_open(struct db *db, const char *provider, const char *from_day, const char *to_day,
                    int (*cb)(const char *day, int64_t open, void *arg), void *arg)
{
	sqlite3_stmt *st;
	char day[11];
	int rc, step;

	rc =
	    db_prepare(db,
	               "SELECT business_day, count(*) FROM reconciliation_diff WHERE state = 'open'"
	               " AND business_day BETWEEN ?2 AND ?3 AND (?1 IS NULL OR provider_code = ?1)"
	               " GROUP BY business_day ORDER BY business_day",
	               &st);
	if (rc)
		return rc;
	if (provider)
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, from_day, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, to_day, -1, SQLITE_STATIC);
	rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		dbrow_copy(st, 0, day, sizeof day);
		rc = cb(day, sqlite3_column_int64(st, 1), arg);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("reading the days with open differences"));
	sqlite3_finalize(st);
	return rc;
}
