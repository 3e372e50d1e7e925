/*
 * chan-poll.c - the channel poller (see chan-poll.h).
 *
 * Invariants: the high-water mark moves only in the transaction that stores
 * the last page of its window and never backwards (also a schema trigger);
 * every event is stored before anything else happens to it; no transaction
 * spans a network call; with a lease, each write transaction starts with
 * control_fence.
 *
 * Permissions: none asked here: it stores what the channel sent (control.h).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chan-poll.h"
#include "clock.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "inbox.h"
#include "pipe-provider.h"
#include "settings.h"
#include "states.h"
#include "xalloc.h"

/* The stored word of each state of a channel (channel_state.state), once.
 * The schema names no moves for it: the poller sets it. */
static const char *const state_words[CHAN_RUN_OTHER] = {
    [CHAN_RUN_OFF] = "off",
    [CHAN_RUN_IDLE] = "idle",
    [CHAN_RUN_POLLING] = "polling",
    [CHAN_RUN_OFFLINE] = "offline",
};
static const struct state_move no_moves[] = {{-1, -1}};
static const struct states chan_states = {"channel_state", state_words, CHAN_RUN_OTHER, no_moves};

enum chan_run_state chan_run_state_of(const char *word)
{
	return (enum chan_run_state)states_of(&chan_states, word);
}

const char *chan_run_state_word(enum chan_run_state s)
{
	return states_word(&chan_states, (int)s);
}

void chan_poll_opts_default(struct chan_poll_opts *o, const char *provider)
{
	long v;

	memset(o, 0, sizeof *o);
	o->provider = provider;
	v = config_get_int("channel_overlap_seconds", CHAN_POLL_OVERLAP_MIN);
	o->overlap = v < CHAN_POLL_OVERLAP_MIN ? CHAN_POLL_OVERLAP_MIN : v > 86400 ? 86400 : (int)v;
	v = config_get_int("channel_lag_seconds", 0);
	o->lag = v < 0 ? 0 : v > 3600 ? 3600 : (int)v;
	v = config_get_int("channel_page_limit", 100);
	o->page_limit = v < 1 ? 1 : v > 100 ? 100 : (int)v;
}

static int ensure_row(struct db *db, const char *provider)
{
	sqlite3_stmt *st;
	int rc = db_prepare(db,
	                    "INSERT OR IGNORE INTO channel_state (provider_code, updated_at)"
	                    " VALUES (?1, ?2)",
	                    &st);

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, provider, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, clock_real());
	return db_run(db, st, _("cannot record the channel state"));
}

int chan_state_get(struct db *db, const char *provider, struct chan_state *out)
{
	sqlite3_stmt *st;
	int rc, step;
	const unsigned char *s;

	memset(out, 0, sizeof *out);
	snprintf(out->provider, sizeof out->provider, "%s", provider);
	snprintf(out->state, sizeof out->state, "%s", chan_run_state_word(CHAN_RUN_OFF));
	rc = db_prepare(db,
	                "SELECT high_water, state, failures, coalesce(offline_until, 0),"
	                " coalesce(last_poll_at, 0), coalesce(last_success_at, 0), last_error,"
	                " events_stored FROM channel_state WHERE provider_code = ?1",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, provider, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		out->high_water = sqlite3_column_int64(st, 0);
		snprintf(out->state, sizeof out->state, "%s",
		         (const char *)sqlite3_column_text(st, 1));
		out->failures = sqlite3_column_int64(st, 2);
		out->offline_until = sqlite3_column_int64(st, 3);
		out->last_poll_at = sqlite3_column_int64(st, 4);
		out->last_success_at = sqlite3_column_int64(st, 5);
		s = sqlite3_column_text(st, 6);
		out->last_error = s ? xstrdup((const char *)s) : NULL;
		out->events_stored = sqlite3_column_int64(st, 7);
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the channel state"));
	}
	sqlite3_finalize(st);
	return rc;
}

void chan_state_free(struct chan_state *s)
{
	free(s->last_error);
	s->last_error = NULL;
}

/* ---------------------------------------------------------------- writes */

struct page_ctx {
	const struct chan_poll_opts *o;
	const struct control_hold *lease;
	const struct chan_page *pg;
	int last; /* this page ends the window: move hw to `to` */
	int64_t to;
	int64_t stored; /* out */
};

static int page_tx(struct db *db, void *arg)
{
	struct page_ctx *p = arg;
	struct inbox_new ev;
	sqlite3_stmt *st;
	int64_t id;
	size_t i;
	int fresh, rc, dead;

	if (p->lease && (rc = control_fence(db, p->lease)) != 0)
		return rc;
	if ((rc = ensure_row(db, p->o->provider)) != 0)
		return rc;
	for (i = 0; i < p->pg->n; i++) {
		const struct chan_event *e = &p->pg->ev[i];

		memset(&ev, 0, sizeof ev);
		ev.source = p->o->provider;
		ev.external_id = e->id;
		ev.via = "poll";
		ev.event_type = e->type;
		ev.object_id = e->object_id;
		ev.payload = e->raw;
		ev.len = e->raw_len;
		ev.channel_created_at = e->created;
		ev.status = "received";
		/* an events list is JSON: a page is read with cJSON */
		if ((rc = inbox_insert_sane(db, &ev, 1, &id, &fresh, &dead)) != 0)
			return rc;
		p->stored += fresh;
	}
	rc =
	    db_prepare(db,
	               "UPDATE channel_state SET events_stored = events_stored + ?2,"
	               " high_water = CASE WHEN ?3 AND ?4 > high_water THEN ?4 ELSE high_water END,"
	               " state = CASE WHEN ?3 THEN 'idle' ELSE 'polling' END,"
	               " failures = CASE WHEN ?3 THEN 0 ELSE failures END,"
	               " offline_until = CASE WHEN ?3 THEN NULL ELSE offline_until END,"
	               " last_error = CASE WHEN ?3 THEN NULL ELSE last_error END,"
	               " last_success_at = CASE WHEN ?3 THEN ?5 ELSE last_success_at END,"
	               " failing_since = CASE WHEN ?3 THEN NULL ELSE failing_since END,"
	               " last_poll_at = ?5, updated_at = ?5 WHERE provider_code = ?1",
	               &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, p->o->provider, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, p->stored);
	sqlite3_bind_int(st, 3, p->last);
	sqlite3_bind_int64(st, 4, p->to);
	sqlite3_bind_int64(st, 5, clock_real());
	return db_run(db, st, _("cannot record the channel state"));
}

struct fail_ctx {
	const struct chan_poll_opts *o;
	const struct control_hold *lease;
	int code, retry_after;
	const char *reason;
	int64_t wait; /* out */
};

static int fail_tx(struct db *db, void *arg)
{
	struct fail_ctx *f = arg;
	struct chan_state s;
	sqlite3_stmt *st;
	int64_t now = clock_real();
	char why[1000];
	int rc;

	if (f->lease && (rc = control_fence(db, f->lease)) != 0)
		return rc;
	if ((rc = ensure_row(db, f->o->provider)) != 0 ||
	    (rc = chan_state_get(db, f->o->provider, &s)) != 0)
		return rc;
	chan_state_free(&s);
	f->wait = pipe_rule_backoff(s.failures + 1, f->retry_after, f->code);
	snprintf(why, sizeof why, "%s", f->reason);
	rc = db_prepare(db,
	                "UPDATE channel_state SET state = 'offline', failures = failures + 1,"
	                " offline_until = ?2, last_error = ?3, last_poll_at = ?4, updated_at = ?4,"
	                " failing_since = coalesce(failing_since, ?4)"
	                " WHERE provider_code = ?1",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, f->o->provider, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, now + f->wait);
	sqlite3_bind_text(st, 3, why, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, now);
	return db_run(db, st, _("cannot record the channel state"));
}

static int record_failure(struct db *db, const struct chan_poll_opts *o,
                          const struct control_hold *lease, int code, const struct chan_status *cs,
                          struct chan_poll_result *r)
{
	struct fail_ctx f = {o, lease, code, cs->retry_after, cs->reason, 0};
	char why[400];
	int rc;

	snprintf(why, sizeof why, "%s", cs->reason);
	rc = db_write(db, fail_tx, &f);
	if (rc)
		return rc;
	r->code = code;
	r->wait = f.wait;
	return err_set(FD_EIO, _("the channel is offline for %lld s: %s"), (long long)f.wait, why);
}

int chan_poll_once(struct db *db, const struct chan_ops *ops, struct chan_ctx *ctx,
                   const struct chan_poll_opts *o, const struct control_hold *lease,
                   struct chan_poll_result *r)
{
	struct chan_state s;
	struct chan_status cs;
	struct chan_page pg;
	char after[256] = "";
	int64_t now = clock_real(), to, from;
	int code, rc;

	memset(r, 0, sizeof *r);
	if (!ops->poll_events)
		return err_set(FD_EINVAL, _("this channel has no events list to poll"));
	if ((rc = chan_state_get(db, o->provider, &s)) != 0)
		return rc;
	chan_state_free(&s);
	to = now - o->lag;
	if (s.high_water > 0)
		from = s.high_water -
		       (o->overlap < CHAN_POLL_OVERLAP_MIN ? CHAN_POLL_OVERLAP_MIN : o->overlap);
	else
		from = o->first_from ? o->first_from : to - 29 * 86400;
	if (from > to)
		from = to;
	r->from = from;
	r->to = to;
	for (;;) {
		struct page_ctx p = {o, lease, &pg, 0, to, 0};

		code = ops->poll_events(ctx, from, to, after, o->page_limit, &pg, &cs);
		if (code != CHAN_OK)
			return record_failure(db, o, lease, code, &cs, r);
		r->pages++;
		r->seen += (int64_t)pg.n;
		if (pg.has_more && pg.n == 0) {
			chan_page_free(&pg);
			memset(&cs, 0, sizeof cs);
			cs.retry_after = -1;
			snprintf(cs.reason, sizeof cs.reason, "%s",
			         _("the channel said there is more but sent an empty page"));
			return record_failure(db, o, lease, CHAN_RETRY, &cs, r);
		}
		p.last = !pg.has_more || r->pages >= 10000;
		rc = db_write(db, page_tx, &p);
		if (!rc && pg.n)
			snprintf(after, sizeof after, "%s", pg.ev[pg.n - 1].id);
		chan_page_free(&pg);
		if (rc)
			return rc;
		r->stored += p.stored;
		if (p.last)
			break;
	}
	r->code = CHAN_OK;
	return 0;
}

/* ---------------------------------------------------------------- the desk's summary */

/* Keep the code of the first provider failing for long. */
static int first_failing(const char *code, int64_t since, void *arg)
{
	struct chan_summary *s = arg;

	(void)since;
	if (!*s->failing_code)
		snprintf(s->failing_code, sizeof s->failing_code, "%s", code ? code : "");
	return 0;
}

enum chan_run_state chan_summary_state(const struct chan_summary *ch)
{
	if (!ch->configured || !ch->worker)
		return CHAN_RUN_OFF;
	return chan_run_state_of(ch->state);
}

int chan_summary_read(struct db *db, struct chan_summary *out)
{
	/* the unique partial index integration_provider_one_primary */
	static const char provider_sql[] =
	    "SELECT provider_code FROM integration_provider WHERE integration_type = 'payment' "
	    "AND role = 'primary' AND enabled = 1";
	static const char state_sql[] =
	    "SELECT state, coalesce(offline_until, 0), coalesce(last_success_at, 0) "
	    "FROM channel_state WHERE provider_code = ?1";
	/* index ranges of inbound_callback_by_status(status, id) */
	static const char counts_sql[] =
	    "SELECT (SELECT count(*) FROM inbound_callback WHERE status IN "
	    "('received', 'failed')), "
	    "(SELECT count(*) FROM inbound_callback WHERE status = 'dead'), "
	    "(SELECT count(*) FROM inbound_callback WHERE status = 'parked')";
	struct control_info ci;
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	snprintf(out->state, sizeof out->state, "%s", chan_run_state_word(CHAN_RUN_OFF));
	if ((rc = db_prepare_cached(db, counts_sql, &st)))
		return rc;
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		out->inbox_pending = sqlite3_column_int64(st, 0);
		out->inbox_dead = sqlite3_column_int64(st, 1);
		out->inbox_parked = sqlite3_column_int64(st, 2);
	} else {
		rc = db_fail(db, _("cannot count the inbound events"));
	}
	db_release(db, st);
	if (rc || (rc = db_prepare_cached(db, provider_sql, &st)))
		return rc;
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		const char *code = (const char *)sqlite3_column_text(st, 0);

		out->configured = 1;
		snprintf(out->provider, sizeof out->provider, "%s", code ? code : "");
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the payment providers"));
	}
	db_release(db, st);
	if (rc)
		return rc;
	rc = pipe_provider_failing_each(db, clock_real(), first_failing, out);
	if (rc < 0)
		return rc;
	out->failing = rc;
	rc = 0;
	if (!out->configured)
		return 0;
	if ((rc = db_prepare_cached(db, state_sql, &st)))
		return rc;
	sqlite3_bind_text(st, 1, out->provider, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(st, 0);

		snprintf(out->state, sizeof out->state, "%s",
		         s ? s : chan_run_state_word(CHAN_RUN_OFF));
		out->offline_until = sqlite3_column_int64(st, 1);
		out->last_success_at = sqlite3_column_int64(st, 2);
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the channel state"));
	}
	db_release(db, st);
	if (rc)
		return rc;
	rc = control_get(db, CONTROL_CHANNEL, &ci);
	if (rc == 0) {
		out->worker = ci.state == CONTROL_HELD;
		control_info_free(&ci);
	} else if (rc == FD_ENOTFOUND) {
		rc = 0; /* nobody ever took the lease */
	}
	return rc;
}
