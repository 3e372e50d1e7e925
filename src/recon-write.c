/*
 * recon-write.c - writing what a reconciliation run found: the batch, its differences
 * and their resolutions, the day's lock and its result, and a payout ticked
 * off by a person (see recon.h; the
 * run is recon.c, what they share recon-int.h).
 *
 * Permissions: a run or import asks recon.decide before its first
 * transaction (control_ask); ticking a payout off asks it in its own. The
 * scheduled run acts for the shop (chan-steps.c).
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
#include "states.h"
#include "xalloc.h"

/* ------------------------------------------------------------- states */

/* The stored words of a batch's and of a difference's states, once, and
 * their moves (the schema's status_transition rows mirror them). */
static const char *const batch_words[RECON_BATCH_STATES] = {"running", "done", "failed"};
static const struct state_move batch_moves[] = {
    {RECON_BATCH_RUNNING, RECON_BATCH_DONE}, {RECON_BATCH_RUNNING, RECON_BATCH_FAILED}, {-1, -1}};
const struct states recon_batch_states = {"reconciliation_batch", batch_words, RECON_BATCH_STATES,
                                          batch_moves};

static const char *const diff_words[RECON_DIFF_STATES] = {"open", "resolved"};
static const struct state_move diff_moves[] = {{RECON_DIFF_OPEN, RECON_DIFF_RESOLVED}, {-1, -1}};
const struct states recon_diff_states = {"reconciliation_diff", diff_words, RECON_DIFF_STATES,
                                         diff_moves};

enum recon_batch_state recon_batch_state_of(const char *word)
{
	return (enum recon_batch_state)states_of(&recon_batch_states, word);
}

enum recon_diff_state recon_diff_state_of(const char *word)
{
	return (enum recon_diff_state)states_of(&recon_diff_states, word);
}

/* ------------------------------------------------------------ writing */

int recon_resolution_write(struct db *db, int64_t diff_id, const char *action, const char *note,
                           int64_t payment_id, int64_t refund_id, int64_t batch_id)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(db,
	                       "INSERT INTO reconciliation_resolution (diff_id, action, note,"
	                       " payment_id, refund_id, batch_id, operator_id, at)"
	                       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, diff_id);
	sqlite3_bind_text(st, 2, action, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, note, -1, SQLITE_TRANSIENT);
	if (payment_id)
		sqlite3_bind_int64(st, 4, payment_id);
	if (refund_id)
		sqlite3_bind_int64(st, 5, refund_id);
	if (batch_id)
		sqlite3_bind_int64(st, 6, batch_id);
	sqlite3_bind_text(st, 7, db_operator(), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, clock_now());
	if ((rc = db_run_cached(db, st, _("recording the resolution"))) != 0)
		return rc;
	db_set_reason(db, note);
	rc = db_prepare_cached(db,
	                       "UPDATE reconciliation_diff SET state = 'resolved', updated_at = ?2"
	                       " WHERE id = ?1 AND state = 'open'",
	                       &st);
	if (rc)
		goto out;
	sqlite3_bind_int64(st, 1, diff_id);
	sqlite3_bind_int64(st, 2, clock_now());
	rc = db_run_cached(db, st, _("resolving the difference"));
	if (!rc && sqlite3_changes(db_sqlite(db)) != 1)
		rc = err_set(FD_ECONFLICT, _("difference %lld is resolved already"),
		             (long long)diff_id);
out:
	db_set_reason(db, NULL);
	return rc;
}

static int write_diff(struct run *r, const struct ndiff *d)
{
	sqlite3_stmt *st;
	char *json = d->line ? recon_line_json(d->line) : NULL;
	int rc, fresh;
	int64_t now = clock_now();

	rc = db_prepare_cached(r->db,
	                       "SELECT 1 FROM reconciliation_diff WHERE provider_code = ?1"
	                       " AND kind = ?2 AND natural_key = ?3",
	                       &st);
	if (rc)
		goto out;
	sqlite3_bind_text(st, 1, r->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, d->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, d->key, -1, SQLITE_STATIC);
	fresh = sqlite3_step(st) != SQLITE_ROW;
	db_release(r->db, st);
	rc = db_prepare_cached(
	    r->db,
	    "INSERT INTO reconciliation_diff (provider_code, kind, natural_key, business_day,"
	    " first_batch_id, last_seen_batch_id, payment_id, refund_id, line_id, line_data,"
	    " local_amount, local_currency, channel_amount, channel_currency, detail, state,"
	    " created_at, updated_at)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, 'open',"
	    " ?15, ?15)"
	    " ON CONFLICT (provider_code, kind, natural_key) DO UPDATE SET"
	    " last_seen_batch_id = excluded.last_seen_batch_id,"
	    " payment_id = coalesce(excluded.payment_id, payment_id),"
	    " refund_id = coalesce(excluded.refund_id, refund_id),"
	    " line_id = coalesce(excluded.line_id, line_id),"
	    " line_data = coalesce(excluded.line_data, line_data),"
	    " local_amount = excluded.local_amount, local_currency = excluded.local_currency,"
	    " channel_amount = excluded.channel_amount,"
	    " channel_currency = excluded.channel_currency, detail = excluded.detail,"
	    " updated_at = excluded.updated_at",
	    &st);
	if (rc)
		goto out;
	sqlite3_bind_text(st, 1, r->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, d->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, d->key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, r->day, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, r->batch);
	if (d->payment_id)
		sqlite3_bind_int64(st, 6, d->payment_id);
	if (d->refund_id)
		sqlite3_bind_int64(st, 7, d->refund_id);
	if (d->line) {
		sqlite3_bind_text(st, 8, d->line->id, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 9, json, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 12,
		                   d->line->kind == CHAN_SETTLE_REFUND ? -d->line->amount
		                                                       : d->line->amount);
		sqlite3_bind_text(st, 13, d->line->currency, -1, SQLITE_STATIC);
	}
	if (d->has_local) {
		sqlite3_bind_int64(st, 10, d->local_amount);
		sqlite3_bind_text(st, 11, d->local_currency, -1, SQLITE_STATIC);
	}
	sqlite3_bind_text(st, 14, d->detail, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 15, now);
	if ((rc = db_run_cached(r->db, st, _("recording a difference"))) != 0)
		goto out;
	if (fresh)
		r->res->diffs_new++;
	else
		r->res->diffs_seen++;
out:
	free(json);
	return rc;
}

static int write_fee(struct run *r, const struct chan_settle_line *l, const struct litem *it)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(
	    r->db,
	    "INSERT INTO reconciliation_fee (provider_code, line_id, payment_id,"
	    " refund_id, currency, gross, fee, net, batch_id)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
	    " ON CONFLICT (provider_code, line_id) DO UPDATE SET"
	    " payment_id = excluded.payment_id, refund_id = excluded.refund_id,"
	    " currency = excluded.currency, gross = excluded.gross,"
	    " fee = excluded.fee, net = excluded.net, batch_id = excluded.batch_id",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, r->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, l->id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, it->payment_id);
	if (it->refund)
		sqlite3_bind_int64(st, 4, it->id);
	sqlite3_bind_text(st, 5, l->currency, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, l->amount);
	sqlite3_bind_int64(st, 7, l->fee);
	sqlite3_bind_int64(st, 8, l->net);
	sqlite3_bind_int64(st, 9, r->batch);
	return db_run_cached(r->db, st, _("recording a fee"));
}

static int write_payout(struct run *r, const struct payout_sum *p)
{
	const struct chan_settle_line *l = p->line;
	sqlite3_stmt *st;
	char arrival[16] = "";
	int64_t now = clock_now();
	int rc;

	if (l->available_on)
		clock_format_local(l->available_on, "%Y-%m-%d", arrival, sizeof arrival);
	rc =
	    db_prepare_cached(r->db,
	                      "INSERT INTO reconciliation_payout (provider_code, payout_id, amount,"
	                      " currency, lines, lines_sum, matches, arrival_date, batch_id,"
	                      " created_at, updated_at)"
	                      " VALUES (?1, ?2, ?3, upper(?4), ?5, ?6, ?7, ?8, ?9, ?10, ?10)"
	                      " ON CONFLICT (provider_code, payout_id) DO UPDATE SET"
	                      " amount = excluded.amount, currency = excluded.currency,"
	                      " lines = excluded.lines, lines_sum = excluded.lines_sum,"
	                      " matches = excluded.matches, arrival_date = excluded.arrival_date,"
	                      " batch_id = excluded.batch_id, updated_at = excluded.updated_at",
	                      &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, r->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, *l->payout_id ? l->payout_id : l->source, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, -l->amount);
	sqlite3_bind_text(st, 4, l->currency, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, p->lines);
	sqlite3_bind_int64(st, 6, p->sum);
	sqlite3_bind_int(st, 7, p->sum == -l->amount);
	if (*arrival)
		sqlite3_bind_text(st, 8, arrival, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 9, r->batch);
	sqlite3_bind_int64(st, 10, now);
	if ((rc = db_run_cached(r->db, st, _("recording a payout"))) != 0)
		return rc;
	r->res->payouts++;
	if (p->sum != -l->amount)
		r->res->payouts_off++;
	return 0;
}

/* Per-currency totals of the day's lines and our day's items. */
static int write_totals(struct run *r)
{
	struct recon_total t[16];
	size_t nt = 0, i, k;
	sqlite3_stmt *st;
	int rc;

	for (i = 0; i < r->n + r->nit; i++) {
		const char *cur;
		int line = i < r->n;

		if (line) {
			const struct chan_settle_line *l = &r->lines[i];

			if (l->created < r->from || l->created >= r->to)
				continue;
			cur = l->currency;
		} else {
			if (!r->it[i - r->n].in_day)
				continue;
			cur = r->it[i - r->n].currency;
		}
		for (k = 0; k < nt; k++)
			if (!strcasecmp(t[k].currency, cur))
				break;
		if (k == nt) {
			if (nt == sizeof t / sizeof t[0])
				continue; /* more currencies in one day than anyone has */
			memset(&t[nt], 0, sizeof t[nt]);
			snprintf(t[nt].currency, sizeof t[nt].currency, "%s", cur);
			nt++;
		}
		if (line) {
			t[k].lines++;
			t[k].gross += r->lines[i].amount;
			t[k].fee += r->lines[i].fee;
		} else {
			const struct litem *it = &r->it[i - r->n];

			if (recon_item_counts(it))
				t[k].local += it->refund ? -it->amount : it->amount;
		}
	}
	for (k = 0; k < nt; k++) {
		rc = db_prepare_cached(
		    r->db,
		    "INSERT INTO reconciliation_total (batch_id, currency, lines,"
		    " gross, fee, net, local) VALUES (?1, upper(?2), ?3, ?4, ?5, ?6,"
		    " ?7)",
		    &st);
		if (rc)
			return rc;
		sqlite3_bind_int64(st, 1, r->batch);
		sqlite3_bind_text(st, 2, t[k].currency, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, t[k].lines);
		sqlite3_bind_int64(st, 4, t[k].gross);
		sqlite3_bind_int64(st, 5, t[k].fee);
		sqlite3_bind_int64(st, 6, t[k].gross - t[k].fee);
		sqlite3_bind_int64(st, 7, t[k].local);
		if ((rc = db_run_cached(r->db, st, _("recording the totals"))) != 0)
			return rc;
	}
	return 0;
}

/* Open differences of the day this batch did not find again: gone. */
static int close_gone(struct run *r)
{
	sqlite3_stmt *st;
	int64_t *ids = NULL;
	size_t n = 0, cap = 0, i;
	char note[300];
	int rc, step;

	rc = db_prepare_cached(r->db,
	                       "SELECT id FROM reconciliation_diff WHERE provider_code = ?1"
	                       " AND business_day = ?2 AND state = 'open'"
	                       " AND last_seen_batch_id <> ?3",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, r->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, r->day, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, r->batch);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			ids = xrealloc(ids, cap * sizeof *ids);
		}
		ids[n++] = sqlite3_column_int64(st, 0);
	}
	db_release(r->db, st);
	if (step != SQLITE_DONE) {
		free(ids);
		return db_fail(r->db, _("reading the day's open differences"));
	}
	snprintf(note, sizeof note, _("not found again by reconciliation batch %lld"),
	         (long long)r->batch);
	for (i = 0, rc = 0; i < n && !rc; i++)
		rc = recon_resolution_write(r->db, ids[i], "gone", note, 0, 0, r->batch);
	r->res->diffs_gone = (int64_t)n;
	free(ids);
	return rc;
}

int recon_count_open(struct db *db, const char *provider, const char *day, int64_t *n)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(db,
	                       "SELECT count(*) FROM reconciliation_diff WHERE business_day = ?2"
	                       " AND state = 'open' AND (?1 IS NULL OR provider_code = ?1)",
	                       &st);
	if (rc)
		return rc;
	if (provider)
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, day, -1, SQLITE_STATIC);
	*n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	db_release(db, st);
	return 0;
}

static int write_tx(struct db *db, void *arg)
{
	struct run *r = arg;
	sqlite3_stmt *st;
	size_t i;
	int rc;

	if (r->hold && (rc = control_fence(db, r->hold)) != 0)
		return rc;
	for (i = 0; i < r->nd; i++)
		if ((rc = write_diff(r, &r->d[i])) != 0)
			return rc;
	for (i = 0; i < r->nfee; i++)
		if ((rc = write_fee(r, &r->lines[r->fee_line[i]], &r->it[r->fee_item[i]])) != 0)
			return rc;
	for (i = 0; i < r->npo; i++)
		if ((rc = write_payout(r, &r->po[i])) != 0)
			return rc;
	if ((rc = write_totals(r)) != 0 || (rc = close_gone(r)) != 0)
		return rc;
	if ((rc = recon_count_open(db, r->provider, r->day, &r->res->open)) != 0)
		return rc;
	rc = db_prepare_cached(db,
	                       "UPDATE reconciliation_batch SET status = 'done', lines = ?2,"
	                       " local_items = ?3, matched = ?4, diffs_new = ?5, diffs_seen = ?6,"
	                       " diffs_gone = ?7, open_diffs = ?8, finished_at = ?9 WHERE id = ?1",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, r->batch);
	sqlite3_bind_int64(st, 2, r->res->lines);
	sqlite3_bind_int64(st, 3, r->res->local);
	sqlite3_bind_int64(st, 4, r->res->matched);
	sqlite3_bind_int64(st, 5, r->res->diffs_new);
	sqlite3_bind_int64(st, 6, r->res->diffs_seen);
	sqlite3_bind_int64(st, 7, r->res->diffs_gone);
	sqlite3_bind_int64(st, 8, r->res->open);
	sqlite3_bind_int64(st, 9, clock_now());
	return db_run_cached(db, st, _("ending the reconciliation batch"));
}

static int batch_begin_tx(struct db *db, void *arg)
{
	struct run *r = arg;
	sqlite3_stmt *st;
	int rc;

	if (r->hold && (rc = control_fence(db, r->hold)) != 0)
		return rc;
	/* we hold the day's lock: a batch of the day still running is one
	 * whose run ended without finishing (killed, a power cut) */
	db_set_reason(db, _("interrupted: the run that made it ended without finishing"));
	rc = db_prepare_cached(db,
	                       "UPDATE reconciliation_batch SET status = 'failed', error = ?3,"
	                       " finished_at = ?4 WHERE provider_code = ?1 AND business_day = ?2"
	                       " AND status = 'running'",
	                       &st);
	if (!rc) {
		sqlite3_bind_text(st, 1, r->provider, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, r->day, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3,
		                  _("interrupted: the run that made it ended without finishing"),
		                  -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, clock_now());
		rc = db_run_cached(db, st, _("closing an interrupted batch"));
	}
	db_set_reason(db, NULL);
	if (rc)
		return rc;
	rc = db_prepare_cached(db,
	                       "INSERT INTO reconciliation_batch (provider_code, business_day,"
	                       " window_from, window_to, source, file_sha256, fetch_from, fetch_to,"
	                       " status, operator_id, started_at)"
	                       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'running', ?9, ?10)",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, r->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, r->day, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, r->from);
	sqlite3_bind_int64(st, 4, r->to);
	sqlite3_bind_text(st, 5, r->src->file ? "file" : "fetch", -1, SQLITE_STATIC);
	if (r->src->file) {
		sqlite3_bind_text(st, 6, r->src->sha256, -1, SQLITE_STATIC);
	} else {
		sqlite3_bind_int64(st, 7, r->src->fetch_from);
		sqlite3_bind_int64(st, 8, r->src->fetch_to);
	}
	sqlite3_bind_text(st, 9, db_operator(), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 10, clock_now());
	if ((rc = db_run_cached(db, st, _("starting the reconciliation batch"))) != 0)
		return rc;
	r->batch = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

struct failed {
	int64_t batch;
	const char *why;
};

static int batch_fail_tx(struct db *db, void *arg)
{
	struct failed *f = arg;
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(db,
	                       "UPDATE reconciliation_batch SET status = 'failed', error = ?2,"
	                       " finished_at = ?3 WHERE id = ?1 AND status = 'running'",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, f->batch);
	sqlite3_bind_text(st, 2, f->why, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, clock_now());
	return db_run_cached(db, st, _("marking the batch failed"));
}

/* Start a running batch of provider's day from src under hold: *batch. */
static int batch_open(struct db *db, const char *provider, const char *day,
                      const struct recon_source *src, struct control_hold *hold, int64_t *batch)
{
	struct run r;
	int rc;

	memset(&r, 0, sizeof r);
	r.db = db;
	r.provider = provider;
	r.day = day;
	r.src = src;
	r.hold = hold;
	if ((rc = recon_day_window(day, &r.from, &r.to)) != 0)
		return rc;
	if ((rc = db_write(db, batch_begin_tx, &r)) != 0)
		return rc;
	*batch = r.batch;
	return 0;
}

/* Mark batch failed with the reason in err_msg(), keeping rc and it. */
static int batch_failed(struct db *db, int64_t batch, int rc)
{
	char why[1001];
	struct failed f = {batch, why};

	snprintf(why, sizeof why, "%s", err_msg());
	db_write(db, batch_fail_tx, &f);
	return err_set(rc, "%s", why);
}

/* The run itself, with the day's lock held (hold), into batch (0: a new
 * one, made once the lines are found acceptable). */
static int run_locked(struct db *db, const char *provider, const char *day,
                      const struct chan_settle_line *lines, size_t n,
                      const struct recon_source *src, struct control_hold *hold,
                      struct payout_sum *po, size_t npo, int64_t batch, struct recon_result *res)
{
	struct run r;
	int rc;
	size_t i;

	memset(res, 0, sizeof *res);
	memset(&r, 0, sizeof r);
	r.db = db;
	r.provider = provider;
	r.day = day;
	r.lines = lines;
	r.n = n;
	r.src = src;
	r.res = res;
	r.hold = hold;
	r.po = po;
	r.npo = npo;
	r.tol = recon_tolerance();
	if ((rc = recon_day_window(day, &r.from, &r.to)) != 0)
		return rc;
	rc = 0;
	if (src->file && (!src->sha256 || strlen(src->sha256) != 64))
		rc = err_set(FD_EINVAL, _("a settlement file's batch needs the file's sha256"));
	for (i = 0; !rc && i < n; i++)
		if (!lines[i].id[0] || strlen(lines[i].currency) != 3)
			rc = err_set(FD_EINVAL,
			             _("settlement line %zu has no id or no currency: refused"),
			             i + 1);
	if (rc)
		return batch ? batch_failed(db, batch, rc) : rc;
	if (!batch && (rc = batch_open(db, provider, day, src, hold, &batch)) != 0)
		return rc;
	r.batch = res->batch_id = batch;
	rc = recon_match(&r);
	if (!rc && hold)
		rc = control_renew(db, hold);
	if (!rc)
		rc = db_write(db, write_tx, &r);
	if (rc)
		batch_failed(db, r.batch, rc);
	recon_sidx_free(&r.by_order);
	recon_sidx_free(&r.by_no);
	recon_sidx_free(&r.by_refund);
	free(r.it);
	free(r.d);
	free(r.fee_line);
	free(r.fee_item);
	return rc;
}

static int lock_day(struct db *db, const char *provider, const char *day, struct control_hold *h)
{
	char name[65];
	int64_t from, to;
	int rc;

	if ((rc = recon_day_window(day, &from, &to)) != 0 ||
	    (rc = recon_lock_name(provider, day, name)) != 0)
		return rc;
	rc = control_acquire(db, name, CONTROL_LOCK, RECON_LOCK_TTL, h);
	if (rc == FD_ECONFLICT) {
		char why[600];

		snprintf(why, sizeof why, "%s", err_msg());
		return err_set(FD_ECONFLICT,
		               _("day %1$s of %2$s is being reconciled by someone else: %3$s"), day,
		               provider, why);
	}
	return rc;
}

int recon_run(struct db *db, const char *provider, const char *day,
              const struct chan_settle_line *lines, size_t n, const struct recon_source *src,
              struct recon_result *res)
{
	struct control_hold h;
	struct payout_sum *po = NULL;
	size_t npo = 0, i, k;
	int64_t from, to;
	char subject[96];
	int rc;

	memset(res, 0, sizeof *res);
	if ((rc = recon_day_window(day, &from, &to)) != 0)
		return rc;
	snprintf(subject, sizeof subject, "reconcile %.40s on %.10s", provider ? provider : "",
	         day);
	if ((rc = control_ask(db, PERM_RECON, 0, subject)) != 0)
		return rc;
	/* a file's payouts: the lines of the file that name them */
	for (i = 0; i < n; i++) {
		const struct chan_settle_line *l = &lines[i];

		if (l->kind != CHAN_SETTLE_PAYOUT || l->created < from || l->created >= to)
			continue;
		po = xrealloc(po, (npo + 1) * sizeof *po);
		po[npo].line = l;
		po[npo].lines = po[npo].sum = 0;
		for (k = 0; k < n; k++)
			if (k != i && lines[k].kind != CHAN_SETTLE_PAYOUT &&
			    !strcmp(lines[k].payout_id, *l->payout_id ? l->payout_id : l->source)) {
				po[npo].lines++;
				po[npo].sum += lines[k].net;
			}
		npo++;
	}
	if ((rc = lock_day(db, provider, day, &h)) == 0) {
		rc = run_locked(db, provider, day, lines, n, src, &h, po, npo, 0, res);
		control_release(db, &h);
	}
	free(po);
	return rc;
}

/* Ask the channel for the lines of each payout of the day's lines. */
static int fetch_payouts(struct pipe_conn *conn, const struct chan_settle_line *lines, size_t n,
                         int64_t from, int64_t to, struct payout_sum **po, size_t *npo)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		const struct chan_settle_line *l = &lines[i];
		struct chan_settle_line *pl = NULL;
		struct chan_status st;
		struct payout_sum *p;
		size_t pn = 0;
		int code;

		if (l->kind != CHAN_SETTLE_PAYOUT || l->created < from || l->created >= to)
			continue;
		*po = xrealloc(*po, (*npo + 1) * sizeof **po);
		p = &(*po)[(*npo)++];
		p->line = l;
		p->lines = p->sum = 0;
		if (!conn->ops->payout_lines)
			continue; /* recorded as not adding up: a person looks */
		memset(&st, 0, sizeof st);
		code = conn->ops->payout_lines(conn->ctx, *l->payout_id ? l->payout_id : l->source,
		                               &pl, &pn, &st);
		if (code != CHAN_OK)
			return err_set(
			    FD_EIO, _("the lines of payout %1$s could not be read (%2$s): %3$s"),
			    l->payout_id, chan_code_name(code), st.reason[0] ? st.reason : "-");
		for (k = 0; k < pn; k++)
			if (pl[k].kind != CHAN_SETTLE_PAYOUT) {
				p->lines++;
				p->sum += pl[k].net;
			}
		free(pl);
	}
	return 0;
}

int recon_fetch_run(struct db *db, struct pipe_conn *conn, const char *day,
                    struct recon_result *res)
{
	struct recon_source src = {0};
	struct chan_settle_line *lines = NULL;
	struct chan_status st;
	struct control_hold h;
	struct payout_sum *po = NULL;
	int64_t from, to, batch = 0;
	size_t n = 0, npo = 0;
	char subject[96];
	int rc, code;

	memset(res, 0, sizeof *res);
	snprintf(subject, sizeof subject, "reconcile %.40s on %.10s", conn->p.code, day);
	if ((rc = control_ask(db, PERM_RECON, 0, subject)) != 0)
		return rc;
	if (!conn->ops->settlement)
		return err_set(FD_EINVAL,
		               _("the channel %s gives no settlement data: import its "
		                 "settlement file instead (frontdesk recon import)"),
		               conn->p.code);
	if ((rc = recon_day_window(day, &from, &to)) != 0)
		return rc;
	if ((rc = lock_day(db, conn->p.code, day, &h)) != 0)
		return rc;
	src.fetch_from = from - recon_tolerance();
	src.fetch_to = to + recon_tolerance();
	/* the batch exists from before the fetch: a failed fetch is a failed
	 * batch that says why */
	if ((rc = batch_open(db, conn->p.code, day, &src, &h, &batch)) != 0)
		goto out;
	res->batch_id = batch;
	memset(&st, 0, sizeof st);
	code = conn->ops->settlement(conn->ctx, src.fetch_from, src.fetch_to, &lines, &n, &st);
	if (code != CHAN_OK) {
		rc = err_set(FD_EIO,
		             _("the channel's settlement data could not be read (%1$s): %2$s"),
		             chan_code_name(code), st.reason[0] ? st.reason : "-");
		batch_failed(db, batch, rc);
	} else if ((rc = fetch_payouts(conn, lines, n, from, to, &po, &npo)) != 0) {
		batch_failed(db, batch, rc);
	} else {
		rc = run_locked(db, conn->p.code, day, lines, n, &src, &h, po, npo, batch, res);
	}
out:
	free(po);
	free(lines);
	control_release(db, &h);
	return rc;
}

int recon_import(struct db *db, const char *provider, const char *day, const struct settle_file *f,
                 struct recon_result *res)
{
	struct recon_source src = {0};
	char first[16];

	memset(res, 0, sizeof *res);
	if (!provider)
		provider = f->adapter;
	if (!day) {
		if (!f->n)
			return err_set(
			    FD_EINVAL,
			    _("the settlement file has no lines: name the day with --date"));
		clock_format_local(f->first_created, "%Y-%m-%d", first, sizeof first);
		day = first;
	}
	src.file = 1;
	src.sha256 = f->sha256;
	return recon_run(db, provider, day, f->lines, f->n, &src, res);
}

/* A payout ticked off by a person (recon_payout_tick): its lines add up to
 * its amount, and it is ticked off once. */
static int tick_tx(struct db *db, void *arg)
{
	const char *id = arg;
	sqlite3_stmt *st;
	char subject[96];
	int rc, found = 0, matches = 0, ticked = 0;

	snprintf(subject, sizeof subject, "tick off payout %.64s", id);
	if ((rc = control_require(db, PERM_RECON, 0, subject)) != 0)
		return rc;
	rc = db_prepare_cached(db,
	                       "SELECT matches, ticked_at IS NOT NULL FROM reconciliation_payout"
	                       " WHERE payout_id = ?1",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		found = 1;
		matches = sqlite3_column_int(st, 0);
		ticked = sqlite3_column_int(st, 1);
	}
	db_release(db, st);
	if (!found)
		return err_set(FD_ENOTFOUND, _("no payout %s: run the reconciliation of its day"),
		               id);
	if (ticked)
		return err_set(FD_ECONFLICT, _("payout %s is ticked off already"), id);
	if (!matches)
		return err_set(
		    FD_EINVAL,
		    _("the lines of payout %s do not add up to its amount: not ticked off"), id);
	rc = db_prepare_cached(db,
	                       "UPDATE reconciliation_payout SET ticked_at = ?2, ticked_by = ?3,"
	                       " updated_at = ?2 WHERE payout_id = ?1 AND ticked_at IS NULL",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, clock_now());
	sqlite3_bind_text(st, 3, db_operator(), -1, SQLITE_STATIC);
	return db_run_cached(db, st, _("ticking the payout off"));
}

int recon_payout_tick(struct db *db, const char *payout_id)
{
	return db_write(db, tick_tx, (void *)payout_id);
}
