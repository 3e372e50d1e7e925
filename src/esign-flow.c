/*
 * esign-flow.c - the e-sign flows as the channel worker moves them: its
 * steps (send, query, process the stored callbacks, fetch and keep the
 * final document) and the check of the flows (see esign.h; the estimates
 * and callbacks are esign.c, what both use esign-int.h). The invariants
 * of esign.c hold here.
 *
 * Permissions: none asked here: it carries out what esign_send and
 * esign_cancel decided (they ask job.edit) and what the provider sent.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "clock.h"
#include "control.h"
#include "crypto-dyn.h"
#include "customer.h"
#include "db.h"
#include "dbrow.h"
#include "docnum.h"
#include "err.h"
#include "esign-int.h"
#include "esign.h"
#include "fsmode.h"
#include "i18n.h"
#include "inbox.h"
#include "item.h"
#include "job.h"
#include "money.h"
#include "outbox.h"
#include "pipe-log.h"
#include "pipe-provider.h"
#include "pipe-secret.h"
#include "print.h"
#include "retention-mod.h"
#include "settings.h"
#include "stopflag.h"
#include "strbuf.h"
#include "xalloc.h"

/* ---------------------------------------------------------------- worker steps */

/* The due rows of a step, read before any call is made. */
struct ids {
	int64_t *v;
	size_t n;
};

static int read_ids(struct db *db, sqlite3_stmt *st, struct ids *out)
{
	int step;

	out->v = NULL;
	out->n = 0;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
		out->v[out->n++] = sqlite3_column_int64(st, 0);
	}
	if (step != SQLITE_DONE)
		return db_fail(db, _("cannot read what is due"));
	return 0;
}

/* --- deliver */

struct cmd {
	int64_t id;
	char type[61];
	char number[48];
	char key[256];
	char status[12];
	int64_t retries;
	char envelope_id[256]; /* envelope.cancel */
};

static int cmd_get(struct db *db, int64_t id, struct cmd *c)
{
	sqlite3_stmt *st;
	cJSON *p;
	int rc;

	memset(c, 0, sizeof *c);
	rc = db_prepare_cached(db,
	                       "SELECT event_type, business_key, idempotency_key, status,"
	                       " retry_count, payload FROM outbox_event WHERE id = ?1",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		c->id = id;
		dbrow_copy(st, 0, c->type, sizeof c->type);
		dbrow_copy(st, 1, c->number, sizeof c->number);
		dbrow_copy(st, 2, c->key, sizeof c->key);
		dbrow_copy(st, 3, c->status, sizeof c->status);
		c->retries = sqlite3_column_int64(st, 4);
		p = cJSON_Parse((const char *)sqlite3_column_text(st, 5));
		chan_json_str(cJSON_GetObjectItemCaseSensitive(p, "envelope_id"), "envelope_id", 1,
		              c->envelope_id, sizeof c->envelope_id);
		cJSON_Delete(p);
	} else {
		rc = err_set(FD_ENOTFOUND, _("the command is gone"));
	}
	db_release(db, st);
	return rc;
}

/* What to write after a command's call. */
struct cmd_done {
	const struct control_hold *lease;
	int64_t id;
	enum outbox_state state; /* sending, succeeded, failed, dead */
	const char *error;
	int64_t retry_in;                 /* seconds, failed */
	const char *number;               /* the flow's (ESIGN_FLOW_NUMBER) */
	const struct esign_envelope *env; /* envelope.create succeeded */
};

static int set_state(struct db *db, int64_t flow, const char *from, enum esign_state to, int64_t at,
                     const char *why);

static int cmd_done_tx(struct db *db, void *arg)
{
	struct cmd_done *d = arg;
	sqlite3_stmt *st;
	int64_t now = clock_now();
	int rc;

	if ((rc = control_fence(db, d->lease)) != 0)
		return rc;
	if (d->state == OUTBOX_SENDING)
		rc = outbox_claim(db, d->id, 0, NULL);
	else
		rc = outbox_record(db, d->id, d->state, d->error, d->retry_in, 0, NULL);
	if (rc)
		return rc;
	if (d->env) {
		struct esign_subject e;

		if ((rc = esign_subject_get(db, d->number, &e)) != 0)
			return rc;
		rc = db_prepare_cached(db,
		                       "UPDATE esign_flow SET envelope_id = ?2, updated_at = ?3"
		                       " WHERE id = ?1",
		                       &st);
		if (!rc) {
			sqlite3_bind_int64(st, 1, e.flow_id);
			sqlite3_bind_text(st, 2, d->env->id, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(st, 3, now);
			rc = db_run_cached(db, st, _("cannot save the envelope id"));
		}
		enum esign_state cur;

		if (!rc && esign_state_parse(e.state, &cur) == 0 &&
		    esign_may_move(cur, d->env->state))
			rc = set_state(db, e.flow_id, e.state, d->env->state, d->env->updated,
			               "the provider's answer");
		/* cancelled while the envelope was being made: withdraw it */
		if (!rc && esign_state_of(e.state) == ESIGN_CANCELLED)
			rc = esign_enqueue(db, "envelope.cancel", e.number, e.provider, d->env->id);
		esign_subject_free(&e);
	}
	return rc;
}

static int deliver_one(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                       int64_t id, struct esign_round *r)
{
	struct cmd cm;
	struct cmd_done d = {lease, id, OUTBOX_SENDING, NULL, 0, NULL, NULL};
	struct esign_envelope env = {0};
	struct chan_status st = {0};
	struct esign_subject e = {0};
	unsigned char *pdf = NULL;
	size_t len = 0;
	char hash[65];
	int rc, code;

	if ((rc = cmd_get(db, id, &cm)) != 0)
		return rc;
	/* sending first: a crash after this leaves an unknown outcome, which
	 * the same idempotency key resolves */
	if (outbox_state_of(cm.status) != OUTBOX_SENDING &&
	    (rc = db_write(db, cmd_done_tx, &d)) != 0)
		return rc;
	if (!strcmp(cm.type, "envelope.cancel")) {
		code = c->eops->cancel(c->ectx, cm.envelope_id, cm.key, &st);
	} else {
		if ((rc = esign_subject_get(db, cm.number, &e)) != 0)
			return rc;
		d.number = e.number;
		if (esign_state_of(e.state) == ESIGN_CANCELLED && !*e.envelope_id) {
			d.state = OUTBOX_DEAD;
			d.error = _("the estimate was cancelled before it was sent");
			rc = db_write(db, cmd_done_tx, &d);
			goto out;
		}
		rc = e.pdf_path ? fsmode_read_file(e.pdf_path, 64u << 20, &pdf, &len)
		                : err_set(FD_ENOTFOUND, "%s",
		                          _("the document was removed with the customer's data"));
		if (!rc)
			rc = crypto_sha256_hex(pdf, len, hash);
		if (rc || strcmp(hash, e.pdf_sha256)) {
			d.state = OUTBOX_DEAD;
			d.error = rc ? err_msg() : _("the document no longer matches its hash");
			rc = db_write(db, cmd_done_tx, &d);
			goto out;
		}
		{
			struct esign_send_req in = {0};
			struct customer cu = {0};

			customer_get(db, e.customer_id, &cu);
			in.reference = e.number;
			in.title = e.title;
			in.signer_name = e.signer_name;
			in.signer_email = cu.email ? cu.email : "";
			in.pdf = pdf;
			in.pdf_len = len;
			in.pdf_sha256 = e.pdf_sha256;
			in.idem_key = cm.key;
			code = c->eops->send(c->ectx, &in, &env, &st);
			customer_free(&cu);
		}
		if (code == CHAN_OK)
			d.env = &env;
	}
	switch (code) {
	case CHAN_OK:
		d.state = OUTBOX_SUCCEEDED;
		r->sent++;
		break;
	case CHAN_RETRY: {
		/* the pipeline's rule (outbox.h): on the backoff until the
		 * give-up horizon, never on a count of attempts */
		int64_t since = 0;

		if ((rc = pipe_rule_since(db, "outbox_event", id, "pending", &since)) != 0)
			goto out;
		d.state = pipe_rule_retry_plan(since, clock_now(), cm.retries + 1, st.retry_after,
		                               code, &d.retry_in)
		              ? OUTBOX_DEAD
		              : OUTBOX_FAILED;
		d.error = st.reason;
		break;
	}
	case CHAN_UNKNOWN:
		/* stays sending: the next round asks again with the same key */
		goto out;
	default:
		d.state = OUTBOX_DEAD;
		d.error = st.reason;
		break;
	}
	rc = db_write(db, cmd_done_tx, &d);
out:
	esign_envelope_free(&env);
	esign_subject_free(&e);
	free(pdf);
	return rc;
}

/* outbox_due's callback: the ids of the commands due. */
static int due_cb(const struct outbox_due_cmd *c, void *arg)
{
	struct ids *ids = arg;

	ids->v = xrealloc(ids->v, (ids->n + 1) * sizeof *ids->v);
	ids->v[ids->n++] = c->id;
	return 0;
}

int esign_deliver(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                  volatile sig_atomic_t *stop, struct esign_round *r)
{
	struct ids ids;
	size_t i;
	int rc;

	ids.v = NULL;
	ids.n = 0;
	rc = outbox_due(db, ESIGN_TYPE, c->p.code, due_cb, &ids);
	for (i = 0; !rc && i < ids.n && !stop_requested(stop); i++)
		rc = deliver_one(db, c, lease, ids.v[i], r);
	free(ids.v);
	return rc;
}

/* --- process */

/* INSIDE a transaction: flow from `from` to `to` (legal: the caller asked
 * may_move), at provider time at, why as the status flow's reason. */
static int set_state(struct db *db, int64_t flow, const char *from, enum esign_state to, int64_t at,
                     const char *why)
{
	sqlite3_stmt *st;
	int rc;

	db_set_reason(db, why);
	rc = db_prepare_cached(db,
	                       "UPDATE esign_flow SET status = ?2, status_at = ?3, updated_at = ?4"
	                       " WHERE id = ?1 AND status = ?5",
	                       &st);
	if (!rc) {
		sqlite3_bind_int64(st, 1, flow);
		sqlite3_bind_text(st, 2, esign_state_name(to), -1, SQLITE_STATIC);
		if (at)
			sqlite3_bind_int64(st, 3, at);
		else
			sqlite3_bind_null(st, 3);
		sqlite3_bind_int64(st, 4, clock_now());
		sqlite3_bind_text(st, 5, from, -1, SQLITE_TRANSIENT);
		rc = db_run_cached(db, st, _("cannot move the sign flow"));
	}
	db_set_reason(db, NULL);
	return rc;
}

struct apply_ctx {
	const struct control_hold *lease;
	int64_t ev_id;
	int64_t attempts;
	const char *code;
	struct esign_callback cb;
	int readable;
	char why[300];
	const char *outcome; /* processed, ignored, failed, dead */
};

static int apply_tx(struct db *db, void *arg)
{
	struct apply_ctx *a = arg;
	sqlite3_stmt *st;
	int64_t flow = 0;
	char from[16] = "", number[48] = "", what[80];
	enum esign_state cur;
	int rc;

	if ((rc = control_fence(db, a->lease)) != 0)
		return rc;
	if (!a->readable) {
		a->outcome = "dead";
		return inbox_mark_dead(db, a->ev_id, a->why, NULL, NULL);
	}
	rc = db_prepare_cached(db,
	                       "SELECT f.id, f.status, " ESIGN_FLOW_NUMBER ESIGN_FLOW_FROM
	                       " WHERE f.provider_code = ?1 AND f.envelope_id = ?2",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, a->code, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, a->cb.envelope_id, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW) {
		flow = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, from, sizeof from);
		dbrow_copy(st, 2, number, sizeof number);
	}
	db_release(db, st);
	if (!flow) {
		/* the answer that names the envelope may not be recorded yet */
		snprintf(a->why, sizeof a->why, _("no sign flow has the envelope %s (yet)"),
		         a->cb.envelope_id);
		/* tried on the backoff, given up only past the horizon */
		return inbox_mark_failed(db, a->ev_id, a->attempts, a->why, 0, 0, NULL, &a->outcome,
		                         NULL);
	}
	if ((rc = esign_state_parse(from, &cur)) != 0)
		return rc;
	esign_subject_name(number, what, sizeof what);
	if (cur == a->cb.state) {
		snprintf(a->why, sizeof a->why, _("a repeat: %s is %s already"), what, from);
		a->outcome = "processed";
		return inbox_mark_processed(db, a->ev_id, a->why, NULL);
	}
	if (!esign_may_move(cur, a->cb.state)) {
		snprintf(a->why, sizeof a->why,
		         _("%1$s is %2$s: a '%3$s' callback never moves it back"), what, from,
		         esign_state_name(a->cb.state));
		rc = db_prepare_cached(db,
		                       "UPDATE esign_flow SET ignored_reason = ?2, updated_at = ?3"
		                       " WHERE id = ?1",
		                       &st);
		if (rc)
			return rc;
		sqlite3_bind_int64(st, 1, flow);
		sqlite3_bind_text(st, 2, a->why, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 3, clock_now());
		if ((rc = db_run_cached(db, st, _("cannot save the sign flow"))) != 0)
			return rc;
		a->outcome = "ignored";
		return inbox_mark_ignored(db, a->ev_id, a->why, NULL);
	}
	if ((rc = set_state(db, flow, from, a->cb.state, a->cb.created, a->cb.type)) != 0)
		return rc;
	a->outcome = "processed";
	return inbox_mark_processed(db, a->ev_id, NULL, NULL);
}

/* Read a stored event: a callback by the adapter, a state found by a query
 * in frontdesk's shape ({"id", "envelope_id", "state", "at"}). */
static int read_stored(const struct esign_ops *ops, const struct inbox_event *ev,
                       struct esign_callback *cb)
{
	cJSON *j;
	char state[16];
	int64_t t = 0;
	int rc = 0;

	if (!ev->event_type || strncmp(ev->event_type, FOUND_PREFIX, strlen(FOUND_PREFIX)))
		return ops->read_callback(ev->payload, ev->len, cb);
	memset(cb, 0, sizeof *cb);
	j = cJSON_ParseWithLength((const char *)ev->payload, ev->len);
	if (chan_json_str(cJSON_GetObjectItemCaseSensitive(j, "id"), "id", 0, cb->id,
	                  sizeof cb->id) ||
	    chan_json_str(cJSON_GetObjectItemCaseSensitive(j, "envelope_id"), "envelope_id", 0,
	                  cb->envelope_id, sizeof cb->envelope_id) ||
	    chan_json_str(cJSON_GetObjectItemCaseSensitive(j, "state"), "state", 0, state,
	                  sizeof state) ||
	    esign_state_parse(state, &cb->state))
		rc = err_set(FD_EINVAL, _("the state found cannot be read"));
	if (!rc && chan_json_int(cJSON_GetObjectItemCaseSensitive(j, "at"), "at", &t) == 0)
		cb->created = t;
	snprintf(cb->type, sizeof cb->type, "%s", ev->event_type);
	cJSON_Delete(j);
	return rc;
}

int esign_process(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                  volatile sig_atomic_t *stop, int all, struct esign_round *r)
{
	sqlite3_stmt *st;
	struct ids ids;
	size_t i;
	int rc;

	rc = db_prepare_cached(db,
	                       "SELECT id FROM inbound_callback WHERE integration_type = 'esign'"
	                       " AND source_system = ?1 AND status IN ('received', 'failed')"
	                       " AND (?2 OR coalesce(next_attempt_at, 0) <= ?3)"
	                       " ORDER BY coalesce(channel_created_at, 0), id",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, c->p.code, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, all);
	sqlite3_bind_int64(st, 3, clock_real());
	rc = read_ids(db, st, &ids);
	db_release(db, st);
	for (i = 0; !rc && i < ids.n && !stop_requested(stop); i++) {
		struct inbox_event ev;
		struct apply_ctx a;

		memset(&a, 0, sizeof a);
		if ((rc = inbox_get(db, ids.v[i], &ev)) != 0)
			break;
		a.lease = lease;
		a.ev_id = ev.id;
		a.attempts = ev.attempts;
		a.code = c->p.code;
		a.readable = read_stored(c->eops, &ev, &a.cb) == 0;
		if (!a.readable)
			snprintf(a.why, sizeof a.why, "%s", err_msg());
		inbox_event_free(&ev);
		if ((rc = db_write(db, apply_tx, &a)) != 0)
			break;
		if (!strcmp(a.outcome, "processed"))
			r->processed++;
		else if (!strcmp(a.outcome, "ignored"))
			r->ignored++;
		else
			r->failed++;
	}
	free(ids.v);
	return rc;
}

/* --- query */

struct found_ctx {
	const struct control_hold *lease;
	const char *code;
	const struct esign_envelope *env;
};

static int found_tx(struct db *db, void *arg)
{
	struct found_ctx *f = arg;
	struct inbox_new ev = {0};
	cJSON *j = cJSON_CreateObject();
	char ext[300], type[64], *raw;
	int64_t id;
	int rc, fresh;

	if ((rc = control_fence(db, f->lease)) != 0) {
		cJSON_Delete(j);
		return rc;
	}
	snprintf(ext, sizeof ext, "query:%s:%s", f->env->id, esign_state_name(f->env->state));
	snprintf(type, sizeof type, FOUND_PREFIX "%s", esign_state_name(f->env->state));
	cJSON_AddStringToObject(j, "id", ext);
	cJSON_AddStringToObject(j, "envelope_id", f->env->id);
	cJSON_AddStringToObject(j, "state", esign_state_name(f->env->state));
	cJSON_AddStringToObject(j, "provider_status", f->env->status);
	if (f->env->updated)
		chan_json_add_int(j, "at", f->env->updated);
	raw = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	ev.source = f->code;
	ev.external_id = ext;
	ev.via = "query";
	ev.event_type = type;
	ev.object_id = f->env->id;
	ev.payload = raw;
	ev.len = strlen(raw);
	ev.channel_created_at = f->env->updated;
	ev.status = "received";
	ev.type = ESIGN_TYPE;
	rc = inbox_insert(db, &ev, &id, &fresh);
	cJSON_free(raw);
	return rc;
}

/* Stamp when flow was last asked about (real time). */
struct stamp_ctx {
	const struct control_hold *lease;
	int64_t flow;
};

static int stamp_tx(struct db *db, void *arg)
{
	struct stamp_ctx *s = arg;
	sqlite3_stmt *st;
	int rc;

	if ((rc = control_fence(db, s->lease)) != 0)
		return rc;
	rc = db_prepare_cached(db,
	                       "INSERT INTO esign_flow_query (flow_id, queried_at) VALUES (?1, ?2)"
	                       " ON CONFLICT (flow_id) DO UPDATE SET queried_at = ?2",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, s->flow);
	sqlite3_bind_int64(st, 2, clock_real());
	return db_run_cached(db, st, _("cannot save when the flow was asked about"));
}

int esign_query(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                volatile sig_atomic_t *stop, int all, struct esign_round *r)
{
	long every = config_get_int("esign_query_seconds", ESIGN_QUERY_EVERY);
	sqlite3_stmt *st;
	struct ids ids;
	size_t i;
	int rc;

	rc = db_prepare_cached(db,
	                       "SELECT f.id FROM esign_flow f LEFT JOIN esign_flow_query q"
	                       " ON q.flow_id = f.id WHERE f.provider_code = ?1"
	                       " AND f.status IN ('sent', 'viewed') AND f.envelope_id IS NOT NULL"
	                       " AND (?2 OR coalesce(q.queried_at, 0) <= ?3) ORDER BY f.id",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, c->p.code, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, all);
	sqlite3_bind_int64(st, 3, clock_real() - (every < 1 ? 1 : every));
	rc = read_ids(db, st, &ids);
	db_release(db, st);
	for (i = 0; !rc && i < ids.n && !stop_requested(stop); i++) {
		struct esign_envelope env;
		struct chan_status cs;
		struct found_ctx f = {lease, c->p.code, &env};
		struct stamp_ctx sc = {lease, ids.v[i]};
		char envid[256] = "";

		rc = db_prepare_cached(db, "SELECT envelope_id FROM esign_flow WHERE id = ?1", &st);
		if (rc)
			break;
		sqlite3_bind_int64(st, 1, ids.v[i]);
		if (sqlite3_step(st) == SQLITE_ROW)
			dbrow_copy(st, 0, envid, sizeof envid);
		db_release(db, st);
		/* asked about now, whatever the answer: the next time is in `every` */
		if ((rc = db_write(db, stamp_tx, &sc)) != 0)
			break;
		if (c->eops->query(c->ectx, envid, &env, &cs) == CHAN_OK) {
			r->queried++;
			rc = db_write(db, found_tx, &f);
		}
		esign_envelope_free(&env);
	}
	free(ids.v);
	return rc;
}

/* --- download */

struct doc_ctx {
	const struct control_hold *lease;
	int64_t flow;
	const char *path, *hash, *evidence;
	int64_t size;
	int recorded;
};

static int doc_tx(struct db *db, void *arg)
{
	struct doc_ctx *d = arg;
	sqlite3_stmt *st;
	int64_t now = clock_now();
	int rc;

	if ((rc = control_fence(db, d->lease)) != 0)
		return rc;
	rc = db_prepare_cached(
	    db,
	    "UPDATE esign_flow SET document_path = ?2, document_sha256 = ?3,"
	    " document_size = ?4, evidence = ?5, document_at = ?6, updated_at = ?6"
	    " WHERE id = ?1 AND status = 'signed' AND document_sha256 IS NULL",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, d->flow);
	sqlite3_bind_text(st, 2, d->path, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, d->hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, d->size);
	if (d->evidence)
		sqlite3_bind_text(st, 5, d->evidence, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 5);
	sqlite3_bind_int64(st, 6, now);
	if ((rc = db_run_cached(db, st, _("cannot record the final document"))) != 0)
		return rc;
	d->recorded = sqlite3_changes(db_sqlite(db)) == 1;
	return 0;
}

static int download_one(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                        int64_t flow, struct esign_round *r)
{
	sqlite3_stmt *st;
	struct esign_envelope env = {0};
	struct chan_status cs;
	unsigned char *body = NULL;
	size_t len = 0;
	char envid[256] = "", number[48] = "", name[80], hash[65], *dir = NULL;
	struct doc_ctx d = {lease, flow, name, hash, NULL, 0, 0};
	int rc;

	rc = db_prepare_cached(
	    db, "SELECT f.envelope_id, " ESIGN_FLOW_NUMBER ESIGN_FLOW_FROM " WHERE f.id = ?1", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, flow);
	if (sqlite3_step(st) == SQLITE_ROW) {
		dbrow_copy(st, 0, envid, sizeof envid);
		dbrow_copy(st, 1, number, sizeof number);
	}
	db_release(db, st);
	if (!*envid)
		return 0;
	/* the evidence, then the bytes; a failure is tried again next round */
	if (c->eops->query(c->ectx, envid, &env, &cs) != CHAN_OK)
		goto out;
	if (env.state != ESIGN_SIGNED)
		goto out;
	if (c->eops->download(c->ectx, envid, &body, &len, &cs) != CHAN_OK)
		goto out;
	if ((rc = crypto_sha256_hex(body, len, hash)) != 0)
		goto out;
	if (*env.document_sha256 && strcmp(env.document_sha256, hash)) {
		/* not what the provider announced: not kept, asked again */
		goto out;
	}
	snprintf(name, sizeof name, "%s-signed.pdf", number);
	dir = esign_folder(db);
	if ((rc = fsmode_write_whole(dir, name, body, len)) != 0)
		goto out;
	d.size = (int64_t)len;
	d.evidence = env.evidence;
	if ((rc = db_write(db, doc_tx, &d)) != 0)
		goto out;
	if (d.recorded)
		r->documents++;
out:
	esign_envelope_free(&env);
	free(body);
	free(dir);
	return rc;
}

int esign_download(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                   volatile sig_atomic_t *stop, struct esign_round *r)
{
	sqlite3_stmt *st;
	struct ids ids;
	size_t i;
	int rc;

	rc = db_prepare_cached(db,
	                       "SELECT id FROM esign_flow WHERE status = 'signed'"
	                       " AND document_sha256 IS NULL AND provider_code = ?1 ORDER BY id",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, c->p.code, -1, SQLITE_TRANSIENT);
	rc = read_ids(db, st, &ids);
	db_release(db, st);
	for (i = 0; !rc && i < ids.n && !stop_requested(stop); i++)
		rc = download_one(db, c, lease, ids.v[i], r);
	free(ids.v);
	return rc;
}

/* ---------------------------------------------------------------- checking */

int esign_check_documents(struct db *db,
                          void (*report)(const char *code, const char *detail, void *arg),
                          void *arg)
{
	sqlite3_stmt *st;
	char *dir = esign_folder(db);
	int rc, step, n = 0;

	rc = db_prepare(db,
	                "SELECT " ESIGN_FLOW_NUMBER
	                ", f.document_path, f.document_sha256" ESIGN_FLOW_FROM
	                " WHERE f.document_sha256 IS NOT NULL"
	                " AND f.document_path IS NOT NULL ORDER BY f.id",
	                &st);
	if (rc) {
		free(dir);
		return rc;
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *num = (const char *)sqlite3_column_text(st, 0);
		const char *rel = (const char *)sqlite3_column_text(st, 1);
		const char *want = (const char *)sqlite3_column_text(st, 2);
		struct strbuf path = {0}, detail = {0};
		char what[80];
		int r;

		esign_subject_name(num, what, sizeof what);
		sb_printf(&path, "%s/%s", dir, rel);
		r = fsmode_file_matches(sb_cstr(&path), want, 64u << 20);
		if (r == FD_ENOTFOUND) {
			sb_printf(&detail, _("the signed document of %s is missing: %s"), what,
			          sb_cstr(&path));
			report("esign-document-missing", sb_cstr(&detail), arg);
			n++;
		} else if (r) {
			sb_printf(&detail,
			          _("the signed document of %s does not match its SHA-256: %s"),
			          what, sb_cstr(&path));
			report("esign-document-changed", sb_cstr(&detail), arg);
			n++;
		}
		sb_free(&path);
		sb_free(&detail);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the sign flows"));
	sqlite3_finalize(st);
	free(dir);
	return rc ? rc : n;
}
