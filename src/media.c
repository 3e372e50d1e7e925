/*
 * media.c - the media of condition reports at a media provider (see
 * media.h): the hosts (media_host), their outbox commands, the worker's
 * steps that move them, and the rule for reviving a command.
 *
 * Invariants: a host and its command are written in one transaction; every
 * worker write checks the channel lease in its own transaction
 * (control_fence); no transaction is open across a call to the provider;
 * a host's status only moves along status_transition (the schema refuses
 * the rest); the provider's id is recorded with the command's success, or
 * not at all; an answer that names another file (another SHA-256) or
 * another host's id is never recorded as success.
 *
 * Permissions: media_upload asks visit.work on the report's visit, as
 * adding the medium did; carrying out the provider's answers asks nothing.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "announce.h"
#include "clock.h"
#include "condition.h"
#include "control.h"
#include "crypto-dyn.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "fsmode.h"
#include "i18n.h"
#include "media-frame.h"
#include "media.h"
#include "outbox.h"
#include "pipe-log.h"
#include "pipe-provider.h"
#include "pipe-rule.h"
#include "pipe-secret.h"
#include "retention-mod.h"
#include "settings.h"
#include "stopflag.h"
#include "strbuf.h"
#include "xalloc.h"

#define UPLOAD "media.upload"
#define DELETE "media.delete"

void media_obj_free(struct media_obj *o)
{
	free(o->viewer_url);
	cJSON_free(o->frame);
	o->viewer_url = NULL;
	o->frame = NULL;
}

void media_host_free(struct media_host *h)
{
	free(h->ref);
	free(h->viewer_url);
	free(h->frame);
	free(h->error);
	memset(h, 0, sizeof *h);
}

const char *media_host_label(const char *status)
{
	/* in a context: other screens use "failed" and "ready" of other things */
	if (!status)
		return "";
	if (!strcmp(status, "uploading"))
		return C_("media host", "uploading");
	if (!strcmp(status, "processing"))
		return C_("media host", "processing");
	if (!strcmp(status, "ready"))
		return C_("media host", "ready");
	if (!strcmp(status, "failed"))
		return C_("media host", "failed");
	if (!strcmp(status, "deleting"))
		return C_("media host", "being deleted");
	if (!strcmp(status, "deleted"))
		return C_("media host", "deleted");
	return status;
}

#define HOST_COLS                                                                                  \
	"id, media_id, provider_code, provider_ref, status, viewer_url, frame, error,"             \
	" created_at, updated_at"

static void host_fill(sqlite3_stmt *st, struct media_host *h)
{
	memset(h, 0, sizeof *h);
	h->id = sqlite3_column_int64(st, 0);
	h->media_id = sqlite3_column_int64(st, 1);
	dbrow_copy(st, 2, h->provider, sizeof h->provider);
	h->ref = dbrow_dup(st, 3);
	dbrow_copy(st, 4, h->status, sizeof h->status);
	h->viewer_url = dbrow_dup(st, 5);
	h->frame = dbrow_dup(st, 6);
	h->error = dbrow_dup(st, 7);
	h->created_at = sqlite3_column_int64(st, 8);
	h->updated_at = sqlite3_column_int64(st, 9);
}

static void host_row(sqlite3_stmt *st, void *out)
{
	host_fill(st, out);
}

static int host_get(struct db *db, int64_t id, struct media_host *h)
{
	int rc, found;

	rc = dbrow_get(db, "SELECT " HOST_COLS " FROM media_host WHERE id = ?1", id, host_row, h,
	               _("cannot read the media hosts"), &found);
	if (!rc && !found)
		rc = err_set(FD_ENOTFOUND, _("there is no media host %lld"), (long long)id);
	return rc;
}

int media_host_list(struct db *db, int64_t media_id,
                    int (*cb)(const struct media_host *h, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	if (control_require(db, PERM_RECORDS_VIEW, 0, "read a medium's hosts"))
		return FD_EPERM;
	if ((rc = db_prepare(
	         db, "SELECT " HOST_COLS " FROM media_host WHERE media_id = ?1 ORDER BY id", &st)))
		return rc;
	sqlite3_bind_int64(st, 1, media_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct media_host h;

		host_fill(st, &h);
		rc = cb(&h, arg);
		media_host_free(&h);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the media hosts"));
	sqlite3_finalize(st);
	return rc;
}

/* ---------------------------------------------------------------- connection */

/* A media provider's adapter (pipe_conn.mctx). */
struct media_conn {
	const struct media_ops *ops;
	struct media_ctx *ctx;
};

static void media_conn_free(void *p)
{
	struct media_conn *m = p;

	if (!m)
		return;
	if (m->ctx)
		m->ops->close(m->ctx);
	free(m);
}

/* The adapter a provider's settings name ("media-rest" when none). */
static const struct media_ops *adapter_of(const struct pipe_provider *p)
{
	cJSON *set = cJSON_Parse(p->settings ? p->settings : "{}");
	cJSON *a = cJSON_GetObjectItemCaseSensitive(set, "adapter");
	const struct media_ops *ops =
	    media_adapter_find(cJSON_IsString(a) ? a->valuestring : "media-rest");

	cJSON_Delete(set);
	return ops;
}

int media_conn_open(struct db *db, const char *code, const char *secrets,
                    volatile sig_atomic_t *stop, struct pipe_conn *c)
{
	struct pipe_secrets *sec = NULL;
	struct media_cfg cfg = {0};
	struct media_conn *mc;
	const struct media_ops *ops;
	int rc;

	if ((rc = pipe_conn_begin(db, MEDIA_TYPE, code, secrets, C_("provider", "media"), c, &sec,
	                          &cfg.api_key)))
		return rc;
	if (!(ops = adapter_of(&c->p))) {
		rc = err_set(FD_EINVAL, _("the provider '%s' names an unknown adapter"), c->p.code);
		goto out;
	}
	cfg.code = c->p.code;
	cfg.base_url = c->p.base_url;
	cfg.log = c->log;
	cfg.stop = stop;
	cfg.connect_timeout_ms = config_get_int("channel_connect_timeout_ms", 5000);
	/* an upload of 64 MiB takes longer than an API call */
	cfg.total_timeout_ms = config_get_int("media_timeout_ms", 300000);
	cfg.low_speed_secs = config_get_int("channel_low_speed_seconds", 10);
	mc = xcalloc(1, sizeof *mc);
	mc->ops = ops;
	c->mctx = mc;
	c->mfree = media_conn_free;
	rc = ops->open(&cfg, &mc->ctx);
out:
	pipe_secret_free(sec);
	if (rc)
		pipe_conn_close(c);
	return rc;
}

/* ---------------------------------------------------------------- scheduling */

/* What a medium is, for its upload. */
struct medium {
	int64_t id, report;
	char kind[12], type[32], sha256[65];
	char *local; /* NULL once purged */
};

static int medium_read(struct db *db, int64_t id, struct medium *m)
{
	sqlite3_stmt *st;
	int rc, found = 0;

	memset(m, 0, sizeof *m);
	if ((rc = db_prepare(db,
	                     "SELECT report_id, kind, content_type, sha256, local_path"
	                     " FROM media_item WHERE id = ?1",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		found = 1;
		m->id = id;
		m->report = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, m->kind, sizeof m->kind);
		dbrow_copy(st, 2, m->type, sizeof m->type);
		dbrow_copy(st, 3, m->sha256, sizeof m->sha256);
		m->local = dbrow_dup(st, 4);
	}
	sqlite3_finalize(st);
	if (!found)
		return err_set(FD_ENOTFOUND, _("there is no medium %lld"), (long long)id);
	return 0;
}

/* The name the provider is given for medium m: "CR-<report>-M<medium>". */
static void reference(const struct medium *m, char out[48])
{
	snprintf(out, 48, "CR-%lld-M%lld", (long long)m->report, (long long)m->id);
}

/* The business key of host's commands: the medium's reference and the
 * host, so that there is one command of a kind per host. */
static void command_key(const struct medium *m, int64_t host, char out[80])
{
	char ref[48];

	reference(m, ref);
	snprintf(out, 80, "%s-H%lld", ref, (long long)host);
}

/* INSIDE a transaction: command event (media.upload, media.delete) for host
 * of medium m at provider code, with a fresh idempotency key. */
static int enqueue(struct db *db, const char *event, const struct medium *m, int64_t host,
                   const char *code)
{
	char key[17], ik[40], bkey[80], *payload;
	cJSON *p;
	int rc;

	if ((rc = chan_random_hex(key)) != 0)
		return rc;
	snprintf(ik, sizeof ik, "media-%s", key);
	command_key(m, host, bkey);
	p = cJSON_CreateObject();
	cJSON_AddNumberToObject(p, "host", (double)host);
	cJSON_AddNumberToObject(p, "media", (double)m->id);
	payload = cJSON_PrintUnformatted(p);
	cJSON_Delete(p);
	{
		struct outbox_new c = {MEDIA_TYPE, event, bkey, code, ik, payload, 0, 0};

		rc = outbox_enqueue(db, &c, NULL);
	}
	cJSON_free(payload);
	return rc;
}

/* INSIDE a transaction: a host of m at provider code (uploading) and its
 * upload command. */
static int schedule(struct db *db, const struct medium *m, const char *code, int64_t *host)
{
	int64_t now = clock_now(), id;
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare(db,
	                     "INSERT INTO media_host (media_id, provider_code, status, created_at,"
	                     " updated_at) VALUES (?1, ?2, 'uploading', ?3, ?3)",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, m->id);
	sqlite3_bind_text(st, 2, code, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, now);
	if ((rc = db_run(db, st, _("cannot record the medium's host"))))
		return rc;
	id = sqlite3_last_insert_rowid(db_sqlite(db));
	if ((rc = enqueue(db, UPLOAD, m, id, code)))
		return rc;
	if (host)
		*host = id;
	return 0;
}

int media_on_added(struct db *db, const struct announcement *a)
{
	struct medium m;
	char code[41], ref[48];
	int rc;

	if (a->kind != ANNOUNCE_MEDIUM_ADDED)
		return 0;
	if ((rc = medium_read(db, a->id, &m)))
		return rc;
	reference(&m, ref);
	if (pipe_provider_route_type(db, MEDIA_TYPE, ref, code)) {
		err_clear(); /* no media provider: the medium is kept here only */
		rc = 0;
	} else {
		rc = schedule(db, &m, code, NULL);
	}
	free(m.local);
	return rc;
}

struct upload_ctx {
	int64_t media;
	const char *provider;
	int64_t host;
};

/* visit.work asked for subject on the visit of medium m's report. */
static int medium_ask(struct db *db, const struct medium *m, const char *subject)
{
	sqlite3_stmt *st;
	int64_t appt = 0;
	int rc;

	if ((rc = db_prepare(db, "SELECT appointment_id FROM condition_report WHERE id = ?1", &st)))
		return rc;
	sqlite3_bind_int64(st, 1, m->report);
	if (sqlite3_step(st) == SQLITE_ROW)
		appt = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return control_require_own_visit(db, appt, subject);
}

static int upload_tx(struct db *db, void *arg)
{
	struct upload_ctx *u = arg;
	struct medium m;
	sqlite3_stmt *st;
	char code[41], ref[48], subject[64], other[16] = "";
	int rc;

	if ((rc = medium_read(db, u->media, &m)))
		return rc;
	reference(&m, ref);
	snprintf(subject, sizeof subject, "upload medium %lld", (long long)u->media);
	if ((rc = medium_ask(db, &m, subject)))
		goto out;
	if (!m.local) {
		rc = err_set(FD_ECONFLICT, _("medium %lld was purged: there is nothing to upload"),
		             (long long)u->media);
		goto out;
	}
	if ((rc = pipe_provider_pick(db, MEDIA_TYPE, u->provider, C_("provider", "media"), ref,
	                             code)))
		goto out;
	if ((rc = db_prepare(db,
	                     "SELECT id FROM media_host WHERE media_id = ?1 AND provider_code = ?2"
	                     " AND status NOT IN ('failed', 'deleting', 'deleted')",
	                     &st)))
		goto out;
	sqlite3_bind_int64(st, 1, m.id);
	sqlite3_bind_text(st, 2, code, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(other, sizeof other, "%lld", (long long)sqlite3_column_int64(st, 0));
	sqlite3_finalize(st);
	if (*other) {
		rc = err_set(FD_ECONFLICT, _("medium %1$lld is hosted by %2$s already (host %3$s)"),
		             (long long)m.id, code, other);
		goto out;
	}
	rc = schedule(db, &m, code, &u->host);
out:
	free(m.local);
	return rc;
}

int media_upload(struct db *db, int64_t media_id, const char *provider, int64_t *host)
{
	struct upload_ctx u = {media_id, provider, 0};
	int rc = db_write(db, upload_tx, &u);

	if (!rc && host)
		*host = u.host;
	return rc;
}

/* The provider and its id of medium id's newest ready host: 0, or
 * FD_ENOTFOUND. */
static int ready_host(struct db *db, int64_t id, char code[41], char **ref)
{
	sqlite3_stmt *st;
	int rc;

	*ref = NULL;
	if ((rc =
	         db_prepare(db,
	                    "SELECT provider_code, provider_ref FROM media_host WHERE media_id = ?1"
	                    " AND status = 'ready' AND provider_ref IS NOT NULL"
	                    " ORDER BY id DESC LIMIT 1",
	                    &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		dbrow_copy(st, 0, code, 41);
		*ref = dbrow_dup(st, 1);
	}
	sqlite3_finalize(st);
	if (!*ref)
		return err_set(FD_ENOTFOUND, _("no media provider holds medium %lld ready"),
		               (long long)id);
	return 0;
}

int media_fetch(struct db *db, int64_t media_id, const char *secrets, char from[41])
{
	const struct media_conn *mc;
	struct pipe_conn c;
	struct chan_status st;
	struct medium m;
	unsigned char *body = NULL;
	size_t len = 0;
	char subject[64], code[41] = "", hash[65], *ref = NULL, *dir = NULL;
	struct strbuf path = {0};
	int rc, got;

	if (from)
		from[0] = 0;
	if ((rc = medium_read(db, media_id, &m)))
		return rc;
	snprintf(subject, sizeof subject, "fetch medium %lld", (long long)media_id);
	if ((rc = medium_ask(db, &m, subject)))
		goto out;
	if (!m.local) {
		rc = err_set(FD_ECONFLICT, _("medium %lld was purged: it never comes back"),
		             (long long)media_id);
		goto out;
	}
	dir = condition_media_folder(db);
	sb_printf(&path, "%s/%s", dir, m.local);
	if (!fsmode_file_matches(sb_cstr(&path), m.sha256, CONDITION_FILE_MAX)) {
		rc = err_set(FD_ECONFLICT, _("the copy of medium %lld is whole: nothing to fetch"),
		             (long long)media_id);
		goto out;
	}
	err_clear();
	if ((rc = ready_host(db, media_id, code, &ref)) ||
	    (rc = media_conn_open(db, code, secrets, NULL, &c)))
		goto out;
	mc = c.mctx;
	memset(&st, 0, sizeof st);
	got = mc->ops->download(mc->ctx, ref, &body, &len, &st);
	pipe_conn_close(&c);
	if (got != CHAN_OK) {
		rc = err_set(FD_EIO, _("the media provider '%1$s' did not give the original: %2$s"),
		             code, st.reason);
		goto out;
	}
	if ((rc = crypto_sha256_hex(body, len, hash)))
		goto out;
	if (strcmp(hash, m.sha256)) {
		rc = err_set(FD_EIO,
		             _("the media provider '%1$s' gave other bytes than medium %2$lld's "
		               "(SHA-256 %3$s): nothing was written"),
		             code, (long long)media_id, hash);
		goto out;
	}
	if ((rc = fsmode_write_whole(dir, m.local, body, len)))
		goto out;
	if (from)
		snprintf(from, 41, "%s", code);
out:
	free(body);
	free(ref);
	free(dir);
	sb_free(&path);
	free(m.local);
	return rc;
}

int media_move(struct db *db, const char *to, int64_t *n)
{
	sqlite3_stmt *st;
	int64_t *ids = NULL;
	size_t k = 0, i;
	char code[41];
	int rc, step;

	*n = 0;
	if ((rc = control_ask(db, PERM_PROVIDERS, 0, "move the media to another provider")))
		return rc;
	if ((rc = pipe_provider_pick(db, MEDIA_TYPE, to, C_("provider", "media"), NULL, code)))
		return rc;
	if ((rc = db_prepare(db,
	                     "SELECT id FROM media_item m WHERE local_path IS NOT NULL"
	                     " AND NOT EXISTS (SELECT 1 FROM media_host h WHERE h.media_id = m.id"
	                     " AND h.provider_code = ?1"
	                     " AND h.status IN ('uploading', 'processing', 'ready')) ORDER BY id",
	                     &st)))
		return rc;
	sqlite3_bind_text(st, 1, to, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		ids = xrealloc(ids, (k + 1) * sizeof *ids);
		ids[k++] = sqlite3_column_int64(st, 0);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the media"));
	sqlite3_finalize(st);
	/* one transaction per medium: the move was asked for as a whole */
	control_acting_enter();
	for (i = 0; !rc && i < k; i++) {
		struct upload_ctx u = {ids[i], to, 0};

		rc = db_write(db, upload_tx, &u);
		if (rc == FD_ECONFLICT) { /* hosted there meanwhile, or purged */
			err_clear();
			rc = 0;
		} else if (!rc) {
			(*n)++;
		}
	}
	control_acting_leave();
	free(ids);
	return rc;
}

int media_command_fits(struct db *db, const struct outbox_cmd *o)
{
	int upload = !strcmp(o->event_type, UPLOAD);
	struct media_host h;
	cJSON *p, *v;
	int64_t id = 0;
	int rc;

	if (!upload && strcmp(o->event_type, DELETE))
		return 0;
	p = cJSON_Parse(o->payload ? o->payload : "");
	v = cJSON_GetObjectItemCaseSensitive(p, "host");
	if (cJSON_IsNumber(v))
		id = (int64_t)v->valuedouble;
	cJSON_Delete(p);
	if ((rc = host_get(db, id, &h)))
		return rc;
	rc = !strcmp(h.status, upload ? "uploading" : "deleting")
	         ? 0
	         : err_set(FD_ECONFLICT,
	                   upload ? _("media host %1$lld is %2$s: its upload is not sent again")
	                          : _("media host %1$lld is %2$s: its deletion is not sent again"),
	                   (long long)h.id, h.status);
	media_host_free(&h);
	return rc;
}

/* ---------------------------------------------------------------- delivery */

/* What a send's answer does, in one fenced transaction. */
struct sent_ctx {
	const struct control_hold *lease;
	int64_t cmd, host;
	int claim;                   /* 1: only the claim before the send */
	int early;                   /* 1: given up before any send (claimed here) */
	int tried;                   /* with claim: an upload is about to be sent */
	enum outbox_state to;        /* the command's */
	const char *error;           /* its last error (NULL: none) */
	int64_t wait;                /* OUTBOX_FAILED: seconds to the next try */
	const char *host_to;         /* the host's status then; NULL: stays */
	const char *host_error;      /* the host's error; NULL: none */
	const struct media_obj *obj; /* the provider's answer (its id, viewer, frame) */
	char why[400];               /* the host's error when the marks cannot follow it */
};

/* The marks' translation from one frame into another. */
struct reframe {
	struct media_frame from, to;
};

static int reframe_cb(double c[3], void *arg)
{
	struct reframe *r = arg;

	return media_frame_translate(&r->from, &r->to, c);
}

/* The frame the marks of medium m are in now: its newest ready host's
 * below host below, else its own (no provider hosts it yet). */
static int frame_now(struct db *db, const struct medium *m, int64_t below, struct media_frame *f)
{
	sqlite3_stmt *st;
	int rc, step;

	media_frame_own(m->kind, f);
	if ((rc = db_prepare(db,
	                     "SELECT frame FROM media_host WHERE media_id = ?1 AND status = 'ready'"
	                     " AND id < ?2 ORDER BY id DESC LIMIT 1",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, m->id);
	sqlite3_bind_int64(st, 2, below);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL &&
	    media_frame_read((const char *)sqlite3_column_text(st, 0), f)) {
		err_clear(); /* recorded as the provider said it: taken as it was then */
		media_frame_own(m->kind, f);
	}
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the media hosts"));
	sqlite3_finalize(st);
	return rc;
}

int media_frame_now(struct db *db, int64_t media_id, struct media_frame *f)
{
	struct medium m;
	int rc;

	if ((rc = medium_read(db, media_id, &m)))
		return rc;
	rc = frame_now(db, &m, INT64_MAX, f);
	free(m.local);
	return rc;
}

/* 1 when medium m has a ready host newer than host. */
static int newer_ready(struct db *db, int64_t media, int64_t host)
{
	sqlite3_stmt *st;
	int found;

	if (db_prepare(
	        db, "SELECT 1 FROM media_host WHERE media_id = ?1 AND status = 'ready' AND id > ?2",
	        &st))
		return 0;
	sqlite3_bind_int64(st, 1, media);
	sqlite3_bind_int64(st, 2, host);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* INSIDE a transaction: host id of medium m at provider code is let go
 * (deleting) and its deletion asked for. */
static int let_go(struct db *db, int64_t id, const struct medium *m, const char *code)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare(
	         db, "UPDATE media_host SET status = 'deleting', updated_at = ?2 WHERE id = ?1",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, clock_now());
	if ((rc = db_run(db, st, _("cannot record the medium's host"))))
		return rc;
	return enqueue(db, DELETE, m, id, code);
}

/* INSIDE a transaction: the hosts of medium m older than host that are
 * ready or failed are let go (a move to another provider is done). */
static int let_go_older(struct db *db, const struct medium *m, int64_t host)
{
	struct older {
		int64_t id;
		char code[41];
	} *v = NULL;
	sqlite3_stmt *st;
	size_t n = 0, i;
	int rc, step;

	if ((rc = db_prepare(
	         db,
	         "SELECT id, provider_code FROM media_host WHERE media_id = ?1 AND id < ?2"
	         " AND status IN ('ready', 'failed') ORDER BY id",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, m->id);
	sqlite3_bind_int64(st, 2, host);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		v = xrealloc(v, (n + 1) * sizeof *v);
		v[n].id = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, v[n].code, sizeof v[n].code);
		n++;
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the media hosts"));
	sqlite3_finalize(st);
	for (i = 0; !rc && i < n; i++)
		rc = let_go(db, v[i].id, m, v[i].code);
	free(v);
	return rc;
}

/* INSIDE a transaction, before host h of medium m is recorded ready: the
 * marks follow it into its frame when it becomes the medium's newest ready
 * host (translated only where the frames differ). *current 1 then, 0 when
 * a newer host is ready already (this one is let go instead). A frame that
 * cannot hold the marks makes the host failed instead (x->host_to). */
static int settle_ready(struct db *db, struct sent_ctx *x, const struct media_host *h,
                        const struct medium *m, int *current)
{
	const char *frame = x->obj && x->obj->frame ? x->obj->frame : h->frame;
	struct reframe r;
	int rc;

	*current = 0;
	if (newer_ready(db, m->id, h->id))
		return 0;
	if ((rc = frame_now(db, m, h->id, &r.from)))
		return rc;
	if (!frame && !strcmp(m->kind, "photo"))
		media_frame_own(m->kind, &r.to); /* a photo's place is the same everywhere */
	else if (!frame)
		rc = err_set(FD_EINVAL, "%s", _("the provider did not say the viewer's frame"));
	else
		rc = media_frame_read(frame, &r.to);
	if (!rc && !media_frame_same(&r.from, &r.to))
		rc = condition_hotspots_reframe(db, m->id, reframe_cb, &r, NULL);
	if (rc == FD_EINVAL) {
		/* the marks cannot follow it there: it is not the medium's host */
		snprintf(x->why, sizeof x->why, "%s", err_msg());
		err_clear();
		x->host_to = "failed";
		x->host_error = x->why;
		return 0;
	}
	*current = !rc;
	return rc;
}

static int host_move(struct db *db, struct sent_ctx *x)
{
	const struct media_obj *o = x->obj;
	struct media_host h;
	struct medium m;
	sqlite3_stmt *st;
	int rc, current = 0, settled;

	memset(&m, 0, sizeof m);
	if ((rc = host_get(db, x->host, &h)))
		return rc;
	if ((rc = medium_read(db, h.media_id, &m)))
		goto out;
	if (strcmp(x->host_to, "deleted") &&
	    (!strcmp(h.status, "deleting") || !strcmp(h.status, "deleted"))) {
		/* a purge came while the upload was answered: only the provider's
		 * id is learnt, which the deletion then removes */
		x->host_to = !strcmp(h.status, "deleting") ? "deleting" : "deleted";
		x->host_error = NULL;
	}
	settled = strcmp(h.status, x->host_to) &&
	          (!strcmp(x->host_to, "ready") || !strcmp(x->host_to, "failed"));
	if (!strcmp(x->host_to, "ready") && strcmp(h.status, "ready") &&
	    (rc = settle_ready(db, x, &h, &m, &current)))
		goto out;
	if ((rc = db_prepare(db,
	                     "UPDATE media_host SET status = ?2, error = ?3,"
	                     " provider_ref = coalesce(provider_ref, ?4),"
	                     " viewer_url = coalesce(?5, viewer_url), frame = coalesce(?6, frame),"
	                     " updated_at = ?7 WHERE id = ?1",
	                     &st)))
		goto out;
	sqlite3_bind_int64(st, 1, x->host);
	sqlite3_bind_text(st, 2, x->host_to, -1, SQLITE_STATIC);
	if (x->host_error)
		sqlite3_bind_text(st, 3, x->host_error, -1, SQLITE_TRANSIENT);
	if (o && *o->id)
		sqlite3_bind_text(st, 4, o->id, -1, SQLITE_STATIC);
	if (o && o->viewer_url)
		sqlite3_bind_text(st, 5, o->viewer_url, -1, SQLITE_STATIC);
	if (o && o->frame)
		sqlite3_bind_text(st, 6, o->frame, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, clock_now());
	if ((rc = db_run(db, st, _("cannot record the medium's host"))))
		goto out;
	if (current) /* the move is done: the older hosts go */
		rc = let_go_older(db, &m, h.id);
	else if (settled && newer_ready(db, m.id, h.id)) /* a host a move left behind */
		rc = let_go(db, h.id, &m, h.provider);
out:
	media_host_free(&h);
	free(m.local);
	return rc;
}

static int sent_tx(struct db *db, void *arg)
{
	struct sent_ctx *x = arg;
	sqlite3_stmt *st;
	int rc;

	if ((rc = control_fence(db, x->lease)) != 0)
		return rc;
	if (x->claim || x->early) {
		if ((rc = outbox_claim(db, x->cmd, 0, NULL)) != 0)
			return rc;
	}
	if (x->claim && x->tried) {
		/* a call is made: the provider may hold what it sends from now on */
		if ((rc = db_prepare(db,
		                     "INSERT OR IGNORE INTO media_upload_try (host_id, first_at)"
		                     " VALUES (?1, ?2)",
		                     &st)))
			return rc;
		sqlite3_bind_int64(st, 1, x->host);
		sqlite3_bind_int64(st, 2, clock_real());
		return db_run(db, st, _("cannot record the medium's host"));
	}
	if (x->claim)
		return 0;
	if ((rc = outbox_record(db, x->cmd, x->to, x->error, x->wait, 0, NULL)) != 0)
		return rc;
	return x->host_to ? host_move(db, x) : 0;
}

/* The host's status after the provider said o->status. */
static const char *host_status_of(const struct media_obj *o)
{
	return !strcmp(o->status, "ready")    ? "ready"
	       : !strcmp(o->status, "failed") ? "failed"
	                                      : "processing";
}

/* 1 when another host of provider code already has the provider's id ref. */
static int ref_taken(struct db *db, const char *code, const char *ref, int64_t host)
{
	sqlite3_stmt *st;
	int taken = 0;

	if (db_prepare(db,
	               "SELECT 1 FROM media_host WHERE provider_code = ?1 AND provider_ref = ?2"
	               " AND id <> ?3",
	               &st))
		return 0;
	sqlite3_bind_text(st, 1, code, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, ref, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, host);
	taken = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return taken;
}

/* The refusals that no retry changes: the file is not taken (400 bad
 * request, 413 too large, 415 a type it does not take, 422 the key used
 * for another file). A 401 or 403 is the shop's key: the command dies, the
 * host waits for a person to send it again. */
static int refused_for_good(int http)
{
	return http == 400 || http == 413 || http == 415 || http == 422;
}

/* Medium m's copy, checked against its hash, into *b (*len bytes): 0, or
 * the reason it cannot be sent. */
static const char *read_copy(struct db *db, const struct medium *m, unsigned char **b, size_t *len)
{
	char *dir = condition_media_folder(db);
	struct strbuf path = {0};
	int rc;

	*b = NULL;
	*len = 0;
	sb_printf(&path, "%s/%s", dir, m->local);
	free(dir);
	rc = fsmode_file_matches(sb_cstr(&path), m->sha256, CONDITION_FILE_MAX);
	if (!rc)
		rc = fsmode_read_file(sb_cstr(&path), CONDITION_FILE_MAX, b, len);
	sb_free(&path);
	if (!rc)
		return NULL;
	err_clear();
	return rc == FD_ENOTFOUND ? _("the medium's copy is missing (frontdesk check)")
	                          : _("the medium's copy has changed (frontdesk check)");
}

/* The deletion of host h, which never learnt the provider's id: CHAN_OK
 * when its upload never left (nothing is there); CHAN_RETRY while the
 * upload's outcome is still to be learnt (its command, sent again with the
 * same key, names the id); CHAN_REFUSED when it was sent and given up
 * before its answer came: the provider may hold a copy nobody can name but
 * by its reference, which a person must ask it to delete (check says so). */
static int unhosted(struct db *db, const struct media_host *h, const struct medium *m,
                    struct chan_status *st)
{
	char ref[48], key[80], status[12] = "";
	sqlite3_stmt *sq;
	int sent = 0, rc;

	memset(st, 0, sizeof *st);
	reference(m, ref);
	command_key(m, h->id, key);
	if ((rc = db_prepare(db,
	                     "SELECT c.status, EXISTS (SELECT 1 FROM media_upload_try t"
	                     " WHERE t.host_id = ?3) FROM outbox_event c"
	                     " WHERE c.event_type = ?1 AND c.business_key = ?2",
	                     &sq))) {
		err_clear();
		snprintf(st->reason, sizeof st->reason, "%s", _("cannot read the media hosts"));
		return CHAN_RETRY;
	}
	sqlite3_bind_text(sq, 1, UPLOAD, -1, SQLITE_STATIC);
	sqlite3_bind_text(sq, 2, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(sq, 3, h->id);
	if (sqlite3_step(sq) == SQLITE_ROW) {
		dbrow_copy(sq, 0, status, sizeof status);
		sent = sqlite3_column_int(sq, 1);
	}
	sqlite3_finalize(sq);
	if (!strcmp(status, "sending") || !strcmp(status, "failed")) {
		snprintf(st->reason, sizeof st->reason, "%s",
		         _("waiting for the upload's answer, which names what to delete"));
		return CHAN_RETRY;
	}
	if (sent) {
		snprintf(st->reason, sizeof st->reason,
		         _("its upload was given up before the provider answered: the provider may "
		           "hold a copy under the reference %s; ask it to delete that"),
		         ref);
		return CHAN_REFUSED;
	}
	return CHAN_OK; /* never sent: nothing is there */
}

static int deliver_one(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                       const struct outbox_due_cmd *cmd, struct media_round *r)
{
	const struct media_conn *mc = c->mctx;
	struct sent_ctx x = {.lease = lease, .cmd = cmd->id, .early = 1, .to = OUTBOX_SENDING};
	struct media_obj obj;
	struct media_host h;
	struct medium m;
	struct chan_status st;
	const char *why = NULL;
	int upload = !strcmp(cmd->event_type, UPLOAD);
	unsigned char *body = NULL;
	size_t len = 0;
	cJSON *p, *v;
	int rc, code;

	memset(&obj, 0, sizeof obj);
	memset(&h, 0, sizeof h);
	memset(&m, 0, sizeof m);
	memset(&st, 0, sizeof st);
	p = cJSON_Parse(cmd->payload ? cmd->payload : "");
	v = cJSON_GetObjectItemCaseSensitive(p, "host");
	x.host = cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
	cJSON_Delete(p);
	if ((!upload && strcmp(cmd->event_type, DELETE)) || host_get(db, x.host, &h) != 0 ||
	    strcmp(h.provider, c->p.code) || medium_read(db, h.media_id, &m) != 0) {
		err_clear();
		x.to = OUTBOX_DEAD;
		x.error = _("the command names no media host of this provider");
		x.host = 0;
		rc = db_write(db, sent_tx, &x);
		goto out;
	}
	/* an upload for a host being deleted is sent again only when it may
	 * have reached the provider (left sending, or failed): its answer names
	 * what the deletion then removes */
	if (upload && strcmp(h.status, "uploading") &&
	    !(!strcmp(h.status, "deleting") && !h.ref && strcmp(cmd->status, "pending"))) {
		x.to = OUTBOX_DEAD;
		x.error = _("the medium is no longer to upload");
		rc = db_write(db, sent_tx, &x);
		goto out;
	}
	if (!upload && strcmp(h.status, "deleting")) {
		x.to = OUTBOX_DEAD;
		x.error = _("the medium is no longer to delete");
		rc = db_write(db, sent_tx, &x);
		goto out;
	}
	if (upload && !m.local) {
		x.to = OUTBOX_DEAD;
		x.error = _("the medium was purged: there is nothing to upload");
		rc = db_write(db, sent_tx, &x);
		goto out;
	}
	if (upload && (why = read_copy(db, &m, &body, &len)) != NULL) {
		x.to = OUTBOX_DEAD;
		x.error = why;
		rc = db_write(db, sent_tx, &x);
		goto out;
	}
	x.early = 0;
	/* sending first: a crash after this leaves an unknown outcome, which
	 * the same idempotency key resolves */
	if (strcmp(cmd->status, "sending") || upload) {
		x.claim = 1;
		x.tried = upload;
		if ((rc = db_write(db, sent_tx, &x)) != 0)
			goto out;
		x.claim = 0;
	}
	if (upload) {
		char ref[48];

		reference(&m, ref);
		{
			struct media_upload_req in = {ref, m.kind,   m.type,       body,
			                              len, m.sha256, cmd->idem_key};

			code = mc->ops->upload(mc->ctx, &in, &obj, &st);
		}
	} else if (!h.ref) {
		code = unhosted(db, &h, &m, &st);
	} else {
		code = mc->ops->remove(mc->ctx, h.ref, &st);
	}
	if (code == CHAN_OK && upload && *obj.sha256 && strcasecmp(obj.sha256, m.sha256)) {
		snprintf(st.reason, sizeof st.reason,
		         _("the provider answered with another file (SHA-256 %.64s)"), obj.sha256);
		code = CHAN_BADDATA;
	} else if (code == CHAN_OK && upload && ref_taken(db, c->p.code, obj.id, h.id)) {
		snprintf(st.reason, sizeof st.reason,
		         _("the provider answered with the id of another medium (%.200s)"), obj.id);
		code = CHAN_BADDATA;
	}
	switch (code) {
	case CHAN_OK:
		x.to = OUTBOX_SUCCEEDED;
		x.obj = &obj;
		if (!upload)
			x.host_to = "deleted";
		else if (!strcmp(h.status, "uploading"))
			x.host_to = host_status_of(&obj);
		else
			x.host_to = h.status; /* deleting: only its id is learnt */
		if (x.host_to && !strcmp(x.host_to, "failed"))
			x.host_error =
			    *obj.error ? obj.error : _("the provider could not process it");
		r->sent++;
		break;
	case CHAN_UNKNOWN:
	case CHAN_RETRY: {
		int64_t since = 0;

		if ((rc = pipe_rule_since(db, "outbox_event", cmd->id, "pending", &since)) != 0)
			goto out;
		x.error = st.reason;
		if (pipe_rule_retry_plan(since, clock_now(), cmd->retries + 1, st.retry_after, code,
		                         &x.wait)) {
			x.to = OUTBOX_DEAD;
			r->dead++;
		} else {
			x.to = OUTBOX_FAILED;
			r->failed++;
		}
		break;
	}
	default:
		x.to = OUTBOX_DEAD;
		x.error = st.reason;
		if (upload && !strcmp(h.status, "uploading") && refused_for_good(st.http)) {
			x.host_to = "failed";
			x.host_error = st.reason;
		}
		r->dead++;
		break;
	}
	rc = db_write(db, sent_tx, &x);
out:
	free(body);
	media_obj_free(&obj);
	media_host_free(&h);
	free(m.local);
	return rc;
}

struct due_list {
	struct outbox_due_cmd *v;
	size_t n;
};

static int due_cb(const struct outbox_due_cmd *c, void *arg)
{
	struct due_list *d = arg;
	struct outbox_due_cmd *o;

	d->v = xrealloc(d->v, (d->n + 1) * sizeof *d->v);
	o = &d->v[d->n++];
	*o = *c;
	o->event_type = xstrdup(c->event_type);
	o->status = xstrdup(c->status);
	o->idem_key = xstrdup(c->idem_key ? c->idem_key : "");
	o->payload = xstrdup(c->payload ? c->payload : "");
	return 0;
}

int media_deliver(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                  volatile sig_atomic_t *stop, struct media_round *r)
{
	struct due_list d = {NULL, 0};
	size_t i;
	int rc;

	rc = outbox_due(db, MEDIA_TYPE, c->p.code, due_cb, &d);
	control_acting_enter();
	for (i = 0; !rc && i < d.n && !stop_requested(stop); i++)
		rc = deliver_one(db, c, lease, &d.v[i], r);
	control_acting_leave();
	for (i = 0; i < d.n; i++) {
		free((char *)d.v[i].event_type);
		free((char *)d.v[i].status);
		free((char *)d.v[i].idem_key);
		free((char *)d.v[i].payload);
	}
	free(d.v);
	return rc;
}

/* ---------------------------------------------------------------- queries */

struct query_ctx {
	const struct control_hold *lease;
	int64_t host;
	const struct media_obj *obj; /* NULL: only the question is recorded */
	const char *to;              /* the host's new status; NULL: stays */
	const char *error;
};

static int query_tx(struct db *db, void *arg)
{
	struct query_ctx *q = arg;
	sqlite3_stmt *st;
	int rc;

	if ((rc = control_fence(db, q->lease)) != 0)
		return rc;
	if ((rc =
	         db_prepare(db,
	                    "INSERT INTO media_host_query (host_id, queried_at) VALUES (?1, ?2)"
	                    " ON CONFLICT (host_id) DO UPDATE SET queried_at = excluded.queried_at",
	                    &st)))
		return rc;
	sqlite3_bind_int64(st, 1, q->host);
	sqlite3_bind_int64(st, 2, clock_real());
	if ((rc = db_run(db, st, _("cannot record the medium's host"))))
		return rc;
	if (!q->to)
		return 0;
	{
		struct sent_ctx x = {.lease = q->lease,
		                     .host = q->host,
		                     .host_to = q->to,
		                     .host_error = q->error,
		                     .obj = q->obj};

		return host_move(db, &x);
	}
}

struct open_hosts {
	int64_t *id;
	char **ref;
	size_t n;
};

int media_query(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                volatile sig_atomic_t *stop, int all, struct media_round *r)
{
	const struct media_conn *mc = c->mctx;
	int64_t every = config_get_int("media_query_seconds", 60);
	struct open_hosts o = {NULL, NULL, 0};
	sqlite3_stmt *st;
	size_t i;
	int rc, step;

	if ((rc =
	         db_prepare(db,
	                    "SELECT h.id, h.provider_ref FROM media_host h"
	                    " LEFT JOIN media_host_query q ON q.host_id = h.id"
	                    " WHERE h.status = 'processing' AND h.provider_code = ?1"
	                    " AND h.provider_ref IS NOT NULL"
	                    " AND (?2 OR q.queried_at IS NULL OR q.queried_at <= ?3) ORDER BY h.id",
	                    &st)))
		return rc;
	sqlite3_bind_text(st, 1, c->p.code, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, all);
	sqlite3_bind_int64(st, 3, clock_real() - (every > 0 ? every : 60));
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		o.id = xrealloc(o.id, (o.n + 1) * sizeof *o.id);
		o.ref = xrealloc(o.ref, (o.n + 1) * sizeof *o.ref);
		o.id[o.n] = sqlite3_column_int64(st, 0);
		o.ref[o.n++] = dbrow_dup(st, 1);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the media hosts"));
	sqlite3_finalize(st);
	control_acting_enter();
	for (i = 0; !rc && i < o.n && !stop_requested(stop); i++) {
		struct query_ctx q = {lease, o.id[i], NULL, NULL, NULL};
		struct chan_status cs;
		struct media_obj obj;
		int code = mc->ops->get(mc->ctx, o.ref[i], &obj, &cs);

		r->queried++;
		if (code == CHAN_OK && strcmp(obj.status, "processing")) {
			q.obj = &obj;
			q.to = host_status_of(&obj);
			if (!strcmp(q.to, "failed"))
				q.error =
				    *obj.error ? obj.error : _("the provider could not process it");
			r->moved++;
		} else if (code == CHAN_NOTFOUND) {
			q.to = "failed";
			q.error = _("the provider does not know the medium any more");
			r->moved++;
		}
		rc = db_write(db, query_tx, &q);
		media_obj_free(&obj);
	}
	control_acting_leave();
	for (i = 0; i < o.n; i++)
		free(o.ref[i]);
	free(o.ref);
	free(o.id);
	return rc;
}

/* ---------------------------------------------------------------- retention */

int media_retention_purge(struct db *db, struct retention_purge_ctx *c)
{
	struct gone {
		int64_t host, media;
		char code[41];
	} *v = NULL;
	sqlite3_stmt *st;
	size_t n = 0, i;
	int rc, step;

	/* every host of the customer's media that may hold a copy */
	if ((rc = db_prepare(db,
	                     "SELECT h.id, h.media_id, h.provider_code FROM media_host h"
	                     " JOIN media_item m ON m.id = h.media_id"
	                     " WHERE h.status IN ('uploading', 'processing', 'ready', 'failed')"
	                     " AND m.report_id IN (SELECT r.id FROM condition_report r"
	                     " JOIN appointment_work w ON w.appointment_id = r.appointment_id"
	                     " JOIN service_order s ON s.id = w.service_order_id"
	                     " WHERE s.customer_id = ?1) ORDER BY h.id",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, c->customer_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		v = xrealloc(v, (n + 1) * sizeof *v);
		v[n].host = sqlite3_column_int64(st, 0);
		v[n].media = sqlite3_column_int64(st, 1);
		dbrow_copy(st, 2, v[n].code, sizeof v[n].code);
		n++;
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the media hosts"));
	sqlite3_finalize(st);
	for (i = 0; !rc && i < n; i++) {
		struct medium m;

		if ((rc = medium_read(db, v[i].media, &m)))
			break;
		rc = let_go(db, v[i].host, &m, v[i].code);
		free(m.local);
		if (rc ||
		    (rc = db_prepare(db,
		                     "INSERT INTO retention_hosted_copy (deletion_id, host_id,"
		                     " provider_code) VALUES (?1, ?2, ?3)",
		                     &st)))
			break;
		sqlite3_bind_text(st, 1, c->deletion_id, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, v[i].host);
		sqlite3_bind_text(st, 3, v[i].code, -1, SQLITE_STATIC);
		rc = db_run(db, st, _("cannot keep the deletion certificate"));
	}
	free(v);
	return rc;
}
