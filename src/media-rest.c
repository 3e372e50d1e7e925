/*
 * media-rest.c - the generic REST media adapter ("media-rest"; the contract
 * is tests/chan/contract/media-rest-contract.md, README "Condition
 * reports"): the provider's words turned into media.h's.
 *
 *   POST   /v1/media        the file's bytes as the body, Idempotency-Key,
 *                           Content-Type, X-Media-Kind, X-Media-Reference,
 *                           X-Media-Sha256; answers the media object (201,
 *                           or 200 for the same key again)
 *   GET    /v1/media/ID     the media object as it is now
 *   DELETE /v1/media/ID     204, or 404 when it is gone already
 * The media object: {id, status (processing, ready, failed), error, sha256,
 * viewer_url, frame}. Auth: "Authorization: Bearer <api key>".
 *
 * Invariants: an id goes into a URL path percent-encoded; an answer that
 * does not parse is CHAN_RETRY (a GET) or CHAN_UNKNOWN (the upload: it may
 * have been stored, and the same key asks again); the request log keeps no
 * uploaded bytes.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "condition.h"
#include "err.h"
#include "i18n.h"
#include "media.h"
#include "pipe-http.h"
#include "strbuf.h"
#include "xalloc.h"

struct media_ctx {
	struct pipe_http http;
	char *code, *base_url, *api_key; /* copies: the caller's may move */
};

static int rest_open(const struct media_cfg *cfg, struct media_ctx **out)
{
	struct media_ctx *c;
	int rc;

	*out = NULL;
	if ((rc = pipe_http_url_ok(cfg->base_url)) != 0)
		return rc;
	if (!cfg->api_key || !*cfg->api_key)
		return err_set(FD_EINVAL,
		               _("the media provider needs an API key in the secrets file"));
	c = xcalloc(1, sizeof *c);
	c->code = xstrdup(cfg->code);
	c->base_url = xstrdup(cfg->base_url);
	c->api_key = xstrdup(cfg->api_key);
	pipe_http_setup(&c->http, c->code, c->base_url, cfg->connect_timeout_ms,
	                cfg->total_timeout_ms, cfg->low_speed_secs, cfg->log, cfg->stop);
	c->http.api_key = c->api_key;
	c->http.bearer = 1;
	*out = c;
	return 0;
}

static void rest_close(struct media_ctx *c)
{
	if (!c)
		return;
	pipe_http_release(&c->http);
	explicit_bzero(c->api_key, strlen(c->api_key));
	free(c->api_key);
	free(c->base_url);
	free(c->code);
	free(c);
}

static void reason(struct chan_status *st, const char *msg)
{
	snprintf(st->reason, sizeof st->reason, "%s", msg);
}

/* Read a media object; CHAN_BADDATA with the reason in st. */
static int read_obj(const cJSON *o, struct media_obj *m, struct chan_status *st)
{
	const cJSON *v;

	memset(m, 0, sizeof *m);
	if (chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "id"), "id", 0, m->id,
	                  sizeof m->id) ||
	    !*m->id ||
	    chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "status"), "status", 0, m->status,
	                  sizeof m->status)) {
		err_clear();
		reason(st, _("the media provider's answer has no readable id or status"));
		return CHAN_BADDATA;
	}
	if (strcmp(m->status, "processing") && strcmp(m->status, "ready") &&
	    strcmp(m->status, "failed")) {
		snprintf(st->reason, sizeof st->reason, _("unknown media status '%.40s'"),
		         m->status);
		return CHAN_BADDATA;
	}
	if (chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "sha256"), "sha256", 1, m->sha256,
	                  sizeof m->sha256))
		m->sha256[0] = '\0';
	v = cJSON_GetObjectItemCaseSensitive(o, "error");
	if (cJSON_IsString(v))
		snprintf(m->error, sizeof m->error, "%.400s", v->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(o, "viewer_url");
	if (cJSON_IsString(v) && *v->valuestring && strlen(v->valuestring) <= 2000)
		m->viewer_url = xstrdup(v->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(o, "frame");
	if (cJSON_IsObject(v))
		m->frame = cJSON_PrintUnformatted(v);
	err_clear();
	return CHAN_OK;
}

/* The call's answer read as a media object (CHAN_OK), or the call's code. */
static int answer_obj(int code, const struct pipe_http_resp *r, int post, struct media_obj *out,
                      struct chan_status *st)
{
	cJSON *j;

	if (code != CHAN_OK)
		return code;
	j = r->body ? cJSON_ParseWithLength(r->body, r->len) : NULL;
	if (!cJSON_IsObject(j)) {
		reason(st, _("the media provider's answer cannot be read"));
		code = post ? CHAN_UNKNOWN : CHAN_RETRY;
	} else {
		code = read_obj(j, out, st);
	}
	cJSON_Delete(j);
	return code;
}

static int rest_upload(struct media_ctx *c, const struct media_upload_req *in,
                       struct media_obj *out, struct chan_status *st)
{
	struct strbuf kind = {0}, ref = {0}, sha = {0};
	struct pipe_http_resp r;
	const char *hdrs[4];
	struct pipe_http_req q = {"POST", "/v1/media", NULL, in->body, in->len, in->idem_key, hdrs};
	int code;

	memset(out, 0, sizeof *out);
	sb_printf(&kind, "X-Media-Kind: %s", in->kind);
	sb_printf(&ref, "X-Media-Reference: %s", in->reference);
	sb_printf(&sha, "X-Media-Sha256: %s", in->sha256);
	hdrs[0] = sb_cstr(&kind);
	hdrs[1] = sb_cstr(&ref);
	hdrs[2] = sb_cstr(&sha);
	hdrs[3] = NULL;
	c->http.content_type = in->content_type;
	c->http.quiet_bodies = 1; /* a photo of someone's property is no log line */
	code = pipe_http_send(&c->http, "upload_media", &q, &r, st);
	c->http.content_type = NULL;
	c->http.quiet_bodies = 0;
	code = answer_obj(code, &r, 1, out, st);
	pipe_http_resp_free(&r);
	sb_free(&kind);
	sb_free(&ref);
	sb_free(&sha);
	return code;
}

/* "/v1/media/<id, encoded>" */
static void id_path(struct strbuf *p, const char *id)
{
	sb_puts(p, "/v1/media/");
	pipe_http_escape(p, id);
}

static int rest_get(struct media_ctx *c, const char *id, struct media_obj *out,
                    struct chan_status *st)
{
	struct strbuf path = {0};
	struct pipe_http_resp r;
	int code;

	memset(out, 0, sizeof *out);
	id_path(&path, id);
	code =
	    pipe_http_call(&c->http, "get_media", "GET", sb_cstr(&path), NULL, NULL, NULL, &r, st);
	code = answer_obj(code, &r, 0, out, st);
	pipe_http_resp_free(&r);
	sb_free(&path);
	return code;
}

static int rest_remove(struct media_ctx *c, const char *id, struct chan_status *st)
{
	struct strbuf path = {0};
	struct pipe_http_resp r;
	struct pipe_http_req q = {"DELETE", NULL, NULL, NULL, 0, NULL, NULL};
	int code;

	id_path(&path, id);
	q.path = sb_cstr(&path);
	code = pipe_http_send(&c->http, "delete_media", &q, &r, st);
	if (code == CHAN_NOTFOUND) /* deleted before: gone all the same */
		code = CHAN_OK;
	pipe_http_resp_free(&r);
	sb_free(&path);
	return code;
}

static int rest_download(struct media_ctx *c, const char *id, unsigned char **body, size_t *len,
                         struct chan_status *st)
{
	struct strbuf path = {0};
	struct pipe_http_resp r;
	int code;

	*body = NULL;
	*len = 0;
	id_path(&path, id);
	sb_puts(&path, "/original");
	c->http.quiet_bodies = 1; /* the bytes are the customer's: not in the log */
	c->http.max_response = CONDITION_FILE_MAX;
	code = pipe_http_call(&c->http, "get_original", "GET", sb_cstr(&path), NULL, NULL, NULL, &r,
	                      st);
	c->http.quiet_bodies = 0;
	c->http.max_response = 0;
	if (code == CHAN_OK && (!r.body || r.len == 0)) {
		snprintf(st->reason, sizeof st->reason, "%s",
		         _("the provider sent an empty original"));
		code = CHAN_BADDATA;
	}
	if (code == CHAN_OK) {
		*body = (unsigned char *)r.body;
		*len = r.len;
		r.body = NULL;
	}
	pipe_http_resp_free(&r);
	sb_free(&path);
	return code;
}

const struct media_ops media_rest_ops = {
    .name = "media-rest",
    .open = rest_open,
    .upload = rest_upload,
    .get = rest_get,
    .remove = rest_remove,
    .download = rest_download,
    .close = rest_close,
};

static const struct media_ops *const adapters[] = {&media_rest_ops};

const struct media_ops *media_adapter_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof adapters / sizeof *adapters; i++)
		if (!strcmp(adapters[i]->name, name))
			return adapters[i];
	return NULL;
}

int media_adapter_known(const char *name)
{
	return media_adapter_find(name) != NULL;
}
