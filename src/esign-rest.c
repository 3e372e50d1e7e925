/*
 * esign-rest.c - the generic REST e-sign adapter ("rest"; README.md, "Signed
 * estimates"): the provider's words turned into esign.h's.
 *
 *   POST /v1/envelopes            JSON {reference, title, signer {name, email},
 *                                 document {name, content_base64, sha256}},
 *                                 Idempotency-Key header; answers an envelope
 *   GET  /v1/envelopes/ID         the envelope {id, status, updated_at,
 *                                 document_sha256, evidence}
 *   GET  /v1/envelopes/ID/document  the final document's bytes
 *   POST /v1/envelopes/ID/void    withdraw it (with its command's
 *                                 Idempotency-Key too)
 * Statuses: sent, delivered|viewed, completed, declined, expired, voided.
 * Auth: HTTP Basic with the API key. Callbacks: JSON {id, type, created,
 * envelope {id, status}} with the header "X-Esign-Signature: sha256=<hex>",
 * HMAC-SHA256 of the raw body keyed with the signing secret, compared in
 * constant time.
 *
 * Invariants: ids put into URL paths hold only [A-Za-z0-9_-]; an answer
 * that does not parse is CHAN_RETRY (a GET) or CHAN_UNKNOWN (a POST).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "clock.h"
#include "crypto-dyn.h"
#include "err.h"
#include "esign.h"
#include "i18n.h"
#include "pipe-http.h"
#include "pipe-sig.h"
#include "strbuf.h"
#include "xalloc.h"

/* The largest final document taken (bytes). */
#define REST_DOC_MAX (32u << 20)

struct esign_ctx {
	struct pipe_http http;
	char *code, *base_url, *api_key; /* copies: the caller's may move */
};

static int rest_open(const struct esign_cfg *cfg, struct esign_ctx **out)
{
	struct esign_ctx *c;
	int rc;

	*out = NULL;
	if ((rc = pipe_http_url_ok(cfg->base_url)) != 0)
		return rc;
	if (!cfg->api_key || !*cfg->api_key)
		return err_set(FD_EINVAL,
		               _("the e-sign provider needs an API key in the secrets file"));
	c = xcalloc(1, sizeof *c);
	c->code = xstrdup(cfg->code);
	c->base_url = xstrdup(cfg->base_url);
	c->api_key = xstrdup(cfg->api_key);
	pipe_http_setup(&c->http, c->code, c->base_url, cfg->connect_timeout_ms,
	                cfg->total_timeout_ms, cfg->low_speed_secs, cfg->log, cfg->stop);
	c->http.api_key = c->api_key;
	*out = c;
	return 0;
}

static void rest_close(struct esign_ctx *c)
{
	if (!c)
		return;
	pipe_http_release(&c->http);
	memset(c->api_key, 0, strlen(c->api_key));
	free(c->api_key);
	free(c->base_url);
	free(c->code);
	free(c);
}

static int id_ok(const char *id)
{
	size_t n = strlen(id);

	if (n == 0 || n > 200)
		return 0;
	return strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

/* The provider's status word as the core's state; -1 when unknown. */
static int state_of(const char *s)
{
	static const struct {
		const char *word;
		enum esign_state st;
	} map[] = {
	    {"sent", ESIGN_SENT},         {"created", ESIGN_SENT},     {"delivered", ESIGN_VIEWED},
	    {"viewed", ESIGN_VIEWED},     {"completed", ESIGN_SIGNED}, {"signed", ESIGN_SIGNED},
	    {"declined", ESIGN_DECLINED}, {"expired", ESIGN_EXPIRED},  {"voided", ESIGN_CANCELLED}};
	size_t i;

	for (i = 0; s && i < sizeof map / sizeof *map; i++)
		if (!strcmp(map[i].word, s))
			return (int)map[i].st;
	return -1;
}

static void reason(struct chan_status *st, const char *msg)
{
	snprintf(st->reason, sizeof st->reason, "%s", msg);
}

/* Read an envelope object; CHAN_BADDATA with the reason in st. */
static int read_envelope(const cJSON *o, struct esign_envelope *e, struct chan_status *st)
{
	const cJSON *ev;
	int64_t t = 0;
	int s;

	memset(e, 0, sizeof *e);
	if (chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "id"), "id", 0, e->id,
	                  sizeof e->id) ||
	    !id_ok(e->id) ||
	    chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "status"), "status", 0, e->status,
	                  sizeof e->status)) {
		reason(st, _("the envelope has no readable id or status"));
		return CHAN_BADDATA;
	}
	if ((s = state_of(e->status)) < 0) {
		snprintf(st->reason, sizeof st->reason, _("unknown envelope status '%s'"),
		         e->status);
		return CHAN_BADDATA;
	}
	e->state = (enum esign_state)s;
	if (cJSON_GetObjectItemCaseSensitive(o, "updated_at") &&
	    chan_json_int(cJSON_GetObjectItemCaseSensitive(o, "updated_at"), "updated_at", &t) == 0)
		e->updated = t;
	if (chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "document_sha256"), "document_sha256",
	                  1, e->document_sha256, sizeof e->document_sha256))
		e->document_sha256[0] = '\0';
	ev = cJSON_GetObjectItemCaseSensitive(o, "evidence");
	if (cJSON_IsObject(ev))
		e->evidence = cJSON_PrintUnformatted(ev);
	return CHAN_OK;
}

static int call_envelope(struct esign_ctx *c, const char *kw, const char *method, const char *path,
                         const char *body, const char *idem, struct esign_envelope *out,
                         struct chan_status *st)
{
	struct pipe_http_resp r;
	cJSON *j;
	int code;

	memset(out, 0, sizeof *out);
	c->http.content_type = body ? "application/json" : NULL;
	code = pipe_http_call(&c->http, kw, method, path, NULL, body, idem, &r, st);
	c->http.content_type = NULL;
	if (code == CHAN_OK) {
		j = r.body ? cJSON_ParseWithLength(r.body, r.len) : NULL;
		if (!cJSON_IsObject(j)) {
			reason(st, _("the e-sign provider's answer cannot be read"));
			code = !strcmp(method, "POST") ? CHAN_UNKNOWN : CHAN_RETRY;
		} else {
			code = read_envelope(j, out, st);
		}
		cJSON_Delete(j);
	}
	pipe_http_resp_free(&r);
	return code;
}

/* Base64 (RFC 4648, padded) of n bytes, a new string. */
static char *base64(const unsigned char *p, size_t n)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = xmalloc((n + 2) / 3 * 4 + 1), *o = out;
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		*o++ = tab[p[i] >> 2];
		*o++ = tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
		*o++ = tab[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)];
		*o++ = tab[p[i + 2] & 63];
	}
	if (i < n) {
		*o++ = tab[p[i] >> 2];
		if (i + 1 < n) {
			*o++ = tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
			*o++ = tab[(p[i + 1] & 15) << 2];
		} else {
			*o++ = tab[(p[i] & 3) << 4];
			*o++ = '=';
		}
		*o++ = '=';
	}
	*o = '\0';
	return out;
}

static int rest_send(struct esign_ctx *c, const struct esign_send_req *in,
                     struct esign_envelope *out, struct chan_status *st)
{
	cJSON *j = cJSON_CreateObject(), *s, *d;
	char *b64 = base64(in->pdf, in->pdf_len), *body, name[64];
	int code;

	cJSON_AddStringToObject(j, "reference", in->reference);
	cJSON_AddStringToObject(j, "title", in->title);
	s = cJSON_AddObjectToObject(j, "signer");
	cJSON_AddStringToObject(s, "name", in->signer_name);
	cJSON_AddStringToObject(s, "email", in->signer_email ? in->signer_email : "");
	d = cJSON_AddObjectToObject(j, "document");
	snprintf(name, sizeof name, "%s.pdf", in->reference);
	cJSON_AddStringToObject(d, "name", name);
	cJSON_AddStringToObject(d, "sha256", in->pdf_sha256);
	cJSON_AddStringToObject(d, "content_base64", b64);
	free(b64);
	body = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	c->http.quiet_bodies = 1; /* the document does not go to the request log */
	code = call_envelope(c, "create_envelope", "POST", "/v1/envelopes", body, in->idem_key, out,
	                     st);
	c->http.quiet_bodies = 0;
	cJSON_free(body);
	return code;
}

static int rest_query(struct esign_ctx *c, const char *id, struct esign_envelope *out,
                      struct chan_status *st)
{
	char path[300];

	memset(st, 0, sizeof *st);
	if (!id_ok(id)) {
		memset(out, 0, sizeof *out);
		reason(st, _("the envelope id holds characters frontdesk does not send"));
		return CHAN_REFUSED;
	}
	snprintf(path, sizeof path, "/v1/envelopes/%s", id);
	return call_envelope(c, "get_envelope", "GET", path, NULL, NULL, out, st);
}

static int rest_download(struct esign_ctx *c, const char *id, unsigned char **body, size_t *len,
                         struct chan_status *st)
{
	struct pipe_http_resp r;
	char path[300];
	int code;

	*body = NULL;
	*len = 0;
	memset(st, 0, sizeof *st);
	if (!id_ok(id)) {
		reason(st, _("the envelope id holds characters frontdesk does not send"));
		return CHAN_REFUSED;
	}
	snprintf(path, sizeof path, "/v1/envelopes/%s/document", id);
	c->http.quiet_bodies = 1;
	c->http.max_response = REST_DOC_MAX;
	code = pipe_http_call(&c->http, "get_document", "GET", path, NULL, NULL, NULL, &r, st);
	c->http.quiet_bodies = 0;
	c->http.max_response = 0;
	if (code == CHAN_OK && (!r.body || r.len == 0)) {
		reason(st, _("the final document is empty"));
		code = CHAN_RETRY;
	}
	if (code == CHAN_OK) {
		*body = (unsigned char *)r.body;
		*len = r.len;
		r.body = NULL;
	}
	pipe_http_resp_free(&r);
	return code;
}

static int rest_cancel(struct esign_ctx *c, const char *id, const char *idem,
                       struct chan_status *st)
{
	struct esign_envelope e;
	char path[300];
	int code;

	memset(st, 0, sizeof *st);
	if (!id_ok(id)) {
		reason(st, _("the envelope id holds characters frontdesk does not send"));
		return CHAN_REFUSED;
	}
	snprintf(path, sizeof path, "/v1/envelopes/%s/void", id);
	code = call_envelope(c, "void_envelope", "POST", path, "{}", idem, &e, st);
	cJSON_free(e.evidence); /* what esign_envelope_free frees: this file stands below esign.c */
	return code;
}

static int rest_verify(const char *secret, const char *header, const void *raw, size_t len)
{
	char want[65];

	if (!header || strncmp(header, "sha256=", 7) || strlen(header + 7) != 64)
		return err_set(FD_EINVAL, _("the callback carries no sha256=<hex> signature"));
	if (!secret || !*secret)
		return err_set(FD_EINVAL, _("no signing secret for the e-sign provider"));
	if (chan_hmac_sha256_hex(secret, raw, len, NULL, 0, want) != 0)
		return err_set(FD_EINVAL, _("cannot compute the signature"));
	if (crypto_load() != 0 || CRYPTO_memcmp(header + 7, want, 64) != 0)
		return err_set(FD_EINVAL, _("the callback's signature does not match"));
	return 0;
}

static int rest_read_callback(const void *raw, size_t len, struct esign_callback *out)
{
	cJSON *j = cJSON_ParseWithLength(raw, len);
	const cJSON *env;
	char status[40];
	int64_t t = 0;
	int s, rc = 0;

	memset(out, 0, sizeof *out);
	env = cJSON_GetObjectItemCaseSensitive(j, "envelope");
	if (!cJSON_IsObject(j) ||
	    chan_json_str(cJSON_GetObjectItemCaseSensitive(j, "id"), "id", 0, out->id,
	                  sizeof out->id) ||
	    chan_json_str(cJSON_GetObjectItemCaseSensitive(j, "type"), "type", 0, out->type,
	                  sizeof out->type) ||
	    !cJSON_IsObject(env) ||
	    chan_json_str(cJSON_GetObjectItemCaseSensitive(env, "id"), "envelope id", 0,
	                  out->envelope_id, sizeof out->envelope_id) ||
	    chan_json_str(cJSON_GetObjectItemCaseSensitive(env, "status"), "envelope status", 0,
	                  status, sizeof status)) {
		rc = err_set(FD_EINVAL, _("the callback is not an envelope event"));
		goto out;
	}
	if ((s = state_of(status)) < 0) {
		rc = err_set(FD_EINVAL, _("the callback names an unknown envelope status '%s'"),
		             status);
		goto out;
	}
	out->state = (enum esign_state)s;
	/* the provider's time: Unix seconds, or an RFC 3339 date-time */
	{
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(j, "created");

		if (cJSON_IsString(c) ? clock_parse_rfc3339(c->valuestring, &t) == 0
		                      : chan_json_int(c, "created", &t) == 0)
			out->created = t;
	}
out:
	cJSON_Delete(j);
	return rc;
}

const struct esign_ops esign_rest_ops = {
    .name = "rest",
    .open = rest_open,
    .send = rest_send,
    .query = rest_query,
    .download = rest_download,
    .cancel = rest_cancel,
    .verify = rest_verify,
    .read_callback = rest_read_callback,
    .secret_name = "signing_secret",
    .close = rest_close,
};
