/*
 * pipe-http.c - one careful HTTP call on libcurl (see pipe-http.h).
 *
 * Invariants: CURLOPT_SSL_VERIFYPEER/VERIFYHOST are never touched (libcurl's
 * defaults verify); CURLOPT_PROXY is never set (the environment decides);
 * the API key goes through CURLOPT_USERNAME, never into a URL or a log;
 * the body buffer never grows past max_response.
 */
#include <config.h>

#define CURL_DISABLE_TYPECHECK /* the calls go through pointers (see below) */
#include <curl/curl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "crypto-dyn.h"
#include "dynlib.h"
#include "err.h"
#include "i18n.h"
#include "pipe-http.h"
#include "pipe-log.h"
#include "stopflag.h"
#include "strbuf.h"
#include "xalloc.h"

/* libcurl is loaded the first time a channel is called (dynlib.h): the
 * commands and the screen that never reach a channel start without it and
 * the libraries it brings. Each function used is a pointer of the type
 * the header declares; the names below then call through them. */
#define CURL_FUNCS(X)                                                                              \
	X(curl_global_init)                                                                        \
	X(curl_easy_init)                                                                          \
	X(curl_easy_reset)                                                                         \
	X(curl_easy_setopt)                                                                        \
	X(curl_easy_perform)                                                                       \
	X(curl_easy_getinfo)                                                                       \
	X(curl_easy_strerror)                                                                      \
	X(curl_easy_cleanup)                                                                       \
	X(curl_slist_append)                                                                       \
	X(curl_slist_free_all)                                                                     \
	X(curl_getdate)                                                                            \
	X(curl_mime_init)                                                                          \
	X(curl_mime_addpart)                                                                       \
	X(curl_mime_data)                                                                          \
	X(curl_mime_type)                                                                          \
	X(curl_mime_encoder)                                                                       \
	X(curl_mime_filename)                                                                      \
	X(curl_mime_subparts)                                                                      \
	X(curl_mime_free)
#define CURL_SLOT(f) __typeof__(f) *p_##f;
#define CURL_NAME(f) #f,
static struct {
	CURL_FUNCS(CURL_SLOT)
} curl;
static const char *const curl_names[] = {CURL_FUNCS(CURL_NAME) NULL};
static void *curl_ptrs[sizeof curl_names / sizeof *curl_names];
static struct dynlib curl_lib = {"libcurl.so.4", curl_names, curl_ptrs, 0, ""};

/* curl.h may define these two as type-checking macros (typecheck-gcc.h) */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_global_init    (*curl.p_curl_global_init)
#define curl_easy_init      (*curl.p_curl_easy_init)
#define curl_easy_reset     (*curl.p_curl_easy_reset)
#define curl_easy_setopt    (*curl.p_curl_easy_setopt)
#define curl_easy_perform   (*curl.p_curl_easy_perform)
#define curl_easy_getinfo   (*curl.p_curl_easy_getinfo)
#define curl_easy_strerror  (*curl.p_curl_easy_strerror)
#define curl_easy_cleanup   (*curl.p_curl_easy_cleanup)
#define curl_slist_append   (*curl.p_curl_slist_append)
#define curl_slist_free_all (*curl.p_curl_slist_free_all)
#define curl_getdate        (*curl.p_curl_getdate)
#define curl_mime_init      (*curl.p_curl_mime_init)
#define curl_mime_addpart   (*curl.p_curl_mime_addpart)
#define curl_mime_data      (*curl.p_curl_mime_data)
#define curl_mime_type      (*curl.p_curl_mime_type)
#define curl_mime_encoder   (*curl.p_curl_mime_encoder)
#define curl_mime_filename  (*curl.p_curl_mime_filename)
#define curl_mime_subparts  (*curl.p_curl_mime_subparts)
#define curl_mime_free      (*curl.p_curl_mime_free)

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static int curl_rc;

static void curl_init(void)
{
	size_t i = 0;

	if ((curl_rc = dynlib_load(&curl_lib, _("calling a provider"))) != 0)
		return;
#define CURL_SET(f) memcpy(&curl.p_##f, &curl_ptrs[i++], sizeof curl.p_##f);
	CURL_FUNCS(CURL_SET)
#undef CURL_SET
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

int pipe_http_url_ok(const char *url)
{
	const char *p;

	if (!url)
		return err_set(FD_EINVAL, _("the channel has no base URL"));
	if (!strncmp(url, "https://", 8) && url[8] && url[8] != '/')
		return 0;
	if (!strncmp(url, "http://127.0.0.1", 16)) {
		p = url + 16;
		if (*p == ':')
			for (p++; *p >= '0' && *p <= '9'; p++)
				;
		if (*p == '\0' || *p == '/')
			return 0;
	}
	return err_set(
	    FD_EINVAL,
	    _("the channel URL must start with https:// (plain http only to 127.0.0.1)"));
}

static void encode(struct strbuf *sb, const char *s, int key)
{
	static const char hex[] = "0123456789ABCDEF";
	char buf[4];

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~' ||
		    (key && (c == '[' || c == ']'))) {
			sb_add(sb, s, 1);
		} else {
			buf[0] = '%';
			buf[1] = hex[c >> 4];
			buf[2] = hex[c & 15];
			sb_add(sb, buf, 3);
		}
	}
}

void pipe_http_setup(struct pipe_http *h, const char *provider, const char *base_url,
                     long connect_timeout_ms, long total_timeout_ms, long low_speed_secs,
                     struct pipe_log *log, volatile sig_atomic_t *stop)
{
	memset(h, 0, sizeof *h);
	h->provider = provider;
	h->base_url = base_url;
	h->connect_timeout_ms = connect_timeout_ms;
	h->total_timeout_ms = total_timeout_ms;
	h->low_speed_secs = low_speed_secs;
	h->log = log;
	h->stop = stop;
}

void pipe_http_escape(struct strbuf *sb, const char *s)
{
	encode(sb, s, 0);
}

void pipe_http_form(struct strbuf *sb, const char *key, const char *value)
{
	if (sb->len)
		sb_add(sb, "&", 1);
	encode(sb, key, 1);
	sb_add(sb, "=", 1);
	encode(sb, value, 0);
}

struct call {
	const struct pipe_http *h;
	struct pipe_http_resp *resp;
	struct chan_status *st;
	size_t cap;
	int too_big;
};

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct call *c = arg;
	size_t add = size * n, max = c->h->max_response ? c->h->max_response : 4u << 20;

	if (c->resp->len + add > max) {
		c->too_big = 1;
		return 0;
	}
	if (c->resp->len + add + 1 > c->cap) {
		while (c->resp->len + add + 1 > c->cap)
			c->cap = c->cap ? c->cap * 2 : 8192;
		c->resp->body = xrealloc(c->resp->body, c->cap);
	}
	memcpy(c->resp->body + c->resp->len, p, add);
	c->resp->len += add;
	c->resp->body[c->resp->len] = '\0';
	return add;
}

/* Header lines: Retry-After, Stripe-Should-Retry, Request-Id, Date. */
static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
	struct call *c = arg;
	size_t len = size * n, k;
	char line[512], *v;

	k = len < sizeof line - 1 ? len : sizeof line - 1;
	memcpy(line, p, k);
	line[k] = '\0';
	while (k && (line[k - 1] == '\r' || line[k - 1] == '\n'))
		line[--k] = '\0';
	v = strchr(line, ':');
	if (!v)
		return len;
	*v++ = '\0';
	while (*v == ' ' || *v == '\t')
		v++;
	if (!strcasecmp(line, "Retry-After")) {
		char *end;
		long s = strtol(v, &end, 10);

		if (end != v && *end == '\0' && s >= 0)
			c->st->retry_after = s > 3600 ? 3600 : (int)s;
	} else if (!strcasecmp(line, "Stripe-Should-Retry")) {
		c->st->should_retry = !strcasecmp(v, "true") ? 1 : !strcasecmp(v, "false") ? 0 : -1;
	} else if (!strcasecmp(line, "Request-Id")) {
		snprintf(c->st->request_id, sizeof c->st->request_id, "%s", v);
	} else if (!strcasecmp(line, "Date")) {
		time_t t = curl_getdate(v, NULL);

		if (t > 0)
			c->resp->date = (int64_t)t;
	}
	return len;
}

static int on_progress(void *arg, curl_off_t a, curl_off_t b, curl_off_t c2, curl_off_t d)
{
	struct call *c = arg;

	(void)a, (void)b, (void)c2, (void)d;
	return stop_requested(c->h->stop);
}

/* The channel's error message, if the body is a Stripe error object. */
static void error_message(const struct pipe_http_resp *r, char *buf, size_t n)
{
	cJSON *j = r->body ? cJSON_ParseWithLength(r->body, r->len) : NULL;
	cJSON *e = j ? cJSON_GetObjectItemCaseSensitive(j, "error") : NULL;
	cJSON *m = e ? cJSON_GetObjectItemCaseSensitive(e, "message") : NULL;
	cJSON *t = e ? cJSON_GetObjectItemCaseSensitive(e, "type") : NULL;

	buf[0] = '\0';
	if (cJSON_IsString(e)) /* the REST contracts' {"error": "text"} */
		snprintf(buf, n, "%.200s", e->valuestring);
	else if (cJSON_IsString(m))
		snprintf(buf, n, "%s%s%.200s", cJSON_IsString(t) ? t->valuestring : "",
		         cJSON_IsString(t) ? ": " : "", m->valuestring);
	cJSON_Delete(j);
}

static int classify(const char *method, CURLcode cc, struct call *c)
{
	struct chan_status *st = c->st;
	int post = !strcmp(method, "POST");
	int code = st->http;
	char msg[240];

	if (cc != CURLE_OK) {
		if (c->too_big) {
			snprintf(st->reason, sizeof st->reason, "%s",
			         _("the channel's answer is larger than the size cap"));
			return CHAN_BADDATA;
		}
		snprintf(st->reason, sizeof st->reason, _("no answer from the channel: %s"),
		         curl_easy_strerror(cc));
		switch (cc) {
		case CURLE_COULDNT_RESOLVE_PROXY:
		case CURLE_COULDNT_RESOLVE_HOST:
		case CURLE_COULDNT_CONNECT:
		case CURLE_SSL_CONNECT_ERROR:
		case CURLE_PEER_FAILED_VERIFICATION:
			return CHAN_RETRY; /* nothing reached the channel */
		default:
			/* a GET is safe to repeat; a POST may have been done */
			return post && (code == 0 || (code >= 200 && code < 300)) ? CHAN_UNKNOWN
			                                                          : CHAN_RETRY;
		}
	}
	if (code >= 200 && code < 300)
		return CHAN_OK;
	error_message(c->resp, msg, sizeof msg);
	snprintf(st->reason, sizeof st->reason, _("the channel answered %d%s%s"), code,
	         msg[0] ? ": " : "", msg);
	if (st->should_retry == 1)
		return CHAN_RETRY;
	if (st->should_retry == 0)
		return code == 404 ? CHAN_NOTFOUND : CHAN_REFUSED;
	if (code == 409 || code == 429 || code >= 500)
		return CHAN_RETRY;
	if (code == 404)
		return CHAN_NOTFOUND;
	return CHAN_REFUSED;
}

/* The call's URL: the base without its trailing slashes, path and query. */
static void http_url(struct strbuf *url, const char *base, const char *path, const char *query)
{
	sb_puts(url, base);
	while (url->len && url->s[url->len - 1] == '/')
		url->s[--url->len] = '\0';
	sb_puts(url, path);
	if (query && *query) {
		sb_add(url, "?", 1);
		sb_puts(url, query);
	}
}

/* The options of a call to url: protocol, timeouts, callbacks, user agent
 * and the API key. */
static void http_options(CURL *e, const struct pipe_http *h, struct call *c, const char *url)
{
	char ua[80];

	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR,
	                 strncmp(h->base_url, "https://", 8) ? "http" : "https");
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
	                 h->connect_timeout_ms > 0 ? h->connect_timeout_ms : 5000L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS,
	                 h->total_timeout_ms > 0 ? h->total_timeout_ms : 30000L);
	curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT,
	                 h->low_speed_bytes > 0 ? h->low_speed_bytes : 10L);
	curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME,
	                 h->low_speed_secs > 0 ? h->low_speed_secs : 10L);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, c);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, c);
	curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(e, CURLOPT_XFERINFODATA, c);
	/* the process id tells the test fake which process asked */
	snprintf(ua, sizeof ua, "frontdesk/%s (pid %ld)", PACKAGE_VERSION, (long)getpid());
	curl_easy_setopt(e, CURLOPT_USERAGENT, ua);
	if (h->api_key && h->bearer) {
		curl_easy_setopt(e, CURLOPT_HTTPAUTH, (long)CURLAUTH_BEARER);
		curl_easy_setopt(e, CURLOPT_XOAUTH2_BEARER, h->api_key);
	} else if (h->api_key) {
		curl_easy_setopt(e, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(e, CURLOPT_USERNAME, h->api_key);
		curl_easy_setopt(e, CURLOPT_PASSWORD, "");
	}
}

/* The request's headers (the caller frees them); a POST's body and its
 * content type and idempotency key, another method's name. */
static struct curl_slist *http_headers(CURL *e, const struct pipe_http *h,
                                       const struct pipe_http_req *q)
{
	struct curl_slist *hdrs = NULL;
	struct strbuf line = {0};
	size_t i;

	if (h->version_header)
		hdrs = curl_slist_append(hdrs, h->version_header);
	hdrs = curl_slist_append(hdrs, "Accept: application/json");
	hdrs = curl_slist_append(hdrs, "Expect:");
	for (i = 0; q->headers && q->headers[i]; i++)
		hdrs = curl_slist_append(hdrs, q->headers[i]);
	if (!strcmp(q->method, "POST")) {
		curl_easy_setopt(e, CURLOPT_POST, 1L);
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
		                 (curl_off_t)(q->body ? q->len : 0));
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, q->body ? q->body : "");
		if (h->content_type) {
			sb_printf(&line, "Content-Type: %s", h->content_type);
			hdrs = curl_slist_append(hdrs, sb_cstr(&line));
			sb_free(&line);
		}
		if (q->idem_key) {
			sb_printf(&line, "Idempotency-Key: %s", q->idem_key);
			hdrs = curl_slist_append(hdrs, sb_cstr(&line));
		}
	} else if (strcmp(q->method, "GET")) {
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, q->method);
	}
	sb_free(&line);
	return hdrs;
}

/* Make the call on e; *t0 and *t1 (clock_mono) when it started and ended.
 * Returns the CHAN_ code of its outcome. */
static int http_perform(CURL *e, struct pipe_http *h, struct call *c, const char *url,
                        const struct pipe_http_req *q, double *t0, double *t1)
{
	struct curl_slist *hdrs;
	long status = 0;
	CURLcode cc;
	int code;

	http_options(e, h, c, url);
	hdrs = http_headers(e, h, q);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, hdrs);
	*t0 = clock_mono();
	cc = curl_easy_perform(e);
	*t1 = clock_mono();
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
	c->st->http = (int)status;
	if (cc == CURLE_ABORTED_BY_CALLBACK) {
		snprintf(c->st->reason, sizeof c->st->reason, "%s", _("the call was stopped"));
		code = !strcmp(q->method, "POST") ? CHAN_UNKNOWN : CHAN_RETRY;
	} else {
		code = classify(q->method, cc, c);
	}
	curl_slist_free_all(hdrs);
	return code;
}

/* One line of the request log for the call (made: it reached curl). */
static void http_log(const struct pipe_http *h, const char *keyword, const struct pipe_http_req *q,
                     const char *url, int code, int made, double t0, double t1,
                     const struct pipe_http_resp *resp, const struct chan_status *st)
{
	struct pipe_log_entry le = {h->provider,
	                            code == CHAN_OK      ? "info"
	                            : code == CHAN_RETRY ? "warn"
	                                                 : "error",
	                            keyword,
	                            q->method,
	                            url,
	                            st->http,
	                            (int64_t)((t1 - t0) * 1e3),
	                            st->request_id,
	                            q->body,
	                            q->body ? q->len : 0,
	                            resp->body,
	                            resp->len,
	                            resp->date,
	                            code == CHAN_OK ? NULL : st->reason};

	if (!made)
		le.latency_ms = 0;
	if (h->quiet_bodies) {
		le.req_body = NULL;
		le.req_len = 0;
		le.resp_body = NULL;
		le.resp_len = 0;
	}
	pipe_log_add(h->log, &le); /* a log failure never stops a payment */
}

/* The start of every call: *st cleared; 1 when the call may go on (its
 * address, checked by url_rc, is one frontdesk calls, and libcurl is
 * loaded), else 0 with st->reason saying why. */
static int call_begin(struct chan_status *st, int url_rc)
{
	memset(st, 0, sizeof *st);
	st->retry_after = -1;
	st->should_retry = -1;
	if (url_rc != 0) {
		snprintf(st->reason, sizeof st->reason, "%s", err_msg());
		return 0;
	}
	pthread_once(&curl_once, curl_init);
	if (curl_rc) {
		/* the failure is remembered; asking again sets this thread's message */
		dynlib_load(&curl_lib, _("calling a provider"));
		snprintf(st->reason, sizeof st->reason, "%s", err_msg());
		return 0;
	}
	return 1;
}

int pipe_http_send(struct pipe_http *h, const char *keyword, const struct pipe_http_req *q,
                   struct pipe_http_resp *resp, struct chan_status *st)
{
	struct call c = {h, resp, st, 0, 0};
	struct strbuf url = {0};
	double t0 = 0, t1 = 0;
	CURL *e = NULL;
	int code;

	memset(resp, 0, sizeof *resp);
	if (!call_begin(st, pipe_http_url_ok(h->base_url)))
		return CHAN_REFUSED;
	http_url(&url, h->base_url, q->path, q->query);
	if (h->conn) {
		e = h->conn;
		curl_easy_reset(e); /* the options go, the connection stays */
	} else {
		e = h->conn = curl_easy_init();
	}
	if (!e) {
		snprintf(st->reason, sizeof st->reason, "%s", _("cannot start an HTTP call"));
		code = CHAN_RETRY;
	} else {
		code = http_perform(e, h, &c, sb_cstr(&url), q, &t0, &t1);
	}
	if (h->log)
		http_log(h, keyword, q, sb_cstr(&url), code, e != NULL, t0, t1, resp, st);
	sb_free(&url);
	return code;
}

int pipe_http_call(struct pipe_http *h, const char *keyword, const char *method, const char *path,
                   const char *query, const char *form, const char *idem_key,
                   struct pipe_http_resp *resp, struct chan_status *st)
{
	struct pipe_http_req q = {method,   path, query, form, form ? strlen(form) : 0,
	                          idem_key, NULL};

	return pipe_http_send(h, keyword, &q, resp, st);
}

void pipe_http_release(struct pipe_http *h)
{
	if (h->conn)
		curl_easy_cleanup(h->conn);
	h->conn = NULL;
}

void pipe_http_resp_free(struct pipe_http_resp *r)
{
	free(r->body);
	memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- e-mail */

int pipe_mail_url_ok(const char *url)
{
	if (url && !strncmp(url, "smtps://", 8) && url[8] && url[8] != '/')
		return 0;
	if (url && !strncmp(url, "smtp://", 7) && url[7] && url[7] != '/')
		return 0;
	return err_set(FD_EINVAL, "%s",
	               _("the mail server's URL must start with smtps:// (TLS) or smtp:// "
	                 "(STARTTLS, which is then required; plain only to 127.0.0.1)"));
}

/* 1 for smtp://127.0.0.1[:port][/]: the test fake, spoken to in plain. */
static int mail_loopback(const char *url)
{
	const char *p;

	if (strncmp(url, "smtp://127.0.0.1", 16))
		return 0;
	p = url + 16;
	if (*p == ':')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	return *p == '\0' || !strcmp(p, "/");
}

int pipe_mail_header_word(const char *text, struct strbuf *out)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i, n = strlen(text), start, len;
	unsigned char b64[80];
	int plain = 1, rc;

	for (i = 0; i < n; i++)
		if (s[i] >= 0x80 || s[i] < 0x20 || s[i] == 0x7f ||
		    (s[i] == '=' && i + 1 < n && s[i + 1] == '?'))
			plain = 0;
	if (plain) {
		sb_puts(out, text);
		return 0;
	}
	if ((rc = crypto_load()) != 0)
		return rc;
	/* RFC 2047 encoded words of at most 75 characters: 45 bytes of UTF-8
	 * (60 of base64) each, never cutting a character in two */
	for (start = 0; start < n; start += len) {
		len = n - start < 45 ? n - start : 45;
		while (len > 0 && start + len < n && (s[start + len] & 0xC0) == 0x80)
			len--;
		if (!len)
			len = 1;
		EVP_EncodeBlock(b64, s + start, (int)len);
		sb_printf(out, "%s=?UTF-8?B?%s?=", start ? "\r\n " : "", (const char *)b64);
	}
	return 0;
}

/* The mail's headers, each line "Name: value". */
static int mail_headers(const struct pipe_mail *m, struct curl_slist **hdrs)
{
	struct strbuf line = {0}, word = {0};
	int rc;

	if ((rc = pipe_mail_header_word(m->from_name ? m->from_name : "", &word)) != 0)
		goto out;
	if (m->from_name && *m->from_name)
		sb_printf(&line, "From: %s <%s>", sb_cstr(&word), m->from_addr);
	else
		sb_printf(&line, "From: <%s>", m->from_addr);
	*hdrs = curl_slist_append(*hdrs, sb_cstr(&line));
	sb_free(&line);
	sb_printf(&line, "To: <%s>", m->to);
	*hdrs = curl_slist_append(*hdrs, sb_cstr(&line));
	sb_free(&line);
	sb_free(&word);
	if ((rc = pipe_mail_header_word(m->subject, &word)) != 0)
		goto out;
	sb_printf(&line, "Subject: %s", sb_cstr(&word));
	*hdrs = curl_slist_append(*hdrs, sb_cstr(&line));
	sb_free(&line);
	sb_printf(&line, "Date: %s", m->date);
	*hdrs = curl_slist_append(*hdrs, sb_cstr(&line));
	sb_free(&line);
	sb_printf(&line, "Message-ID: %s", m->message_id);
	*hdrs = curl_slist_append(*hdrs, sb_cstr(&line));
out:
	sb_free(&line);
	sb_free(&word);
	return rc;
}

/* The body: the text alone (text/plain, UTF-8, quoted-printable), or with
 * the attachment (multipart/mixed: the text, then the file in base64). */
static curl_mime *mail_body(CURL *e, const struct pipe_mail *m)
{
	curl_mime *mime = curl_mime_init(e);
	curl_mimepart *part;

	if (!mime)
		return NULL;
	part = curl_mime_addpart(mime);
	curl_mime_data(part, m->text, CURL_ZERO_TERMINATED);
	curl_mime_type(part, "text/plain; charset=UTF-8");
	curl_mime_encoder(part, "quoted-printable");
	if (m->attachment) {
		part = curl_mime_addpart(mime);
		curl_mime_data(part, m->attachment, m->attachment_len);
		curl_mime_type(part, m->attachment_type ? m->attachment_type
		                                        : "application/octet-stream");
		curl_mime_filename(part, m->attachment_name);
		curl_mime_encoder(part, "base64");
	}
	return mime;
}

/* An SMTP outcome in the codes of channel.h: nothing got through (retry),
 * the server refused for now (4xx: retry) or for good (5xx, a login
 * refused: refused), or the answer was lost after the data may have been
 * taken (unknown: sent again under the same Message-ID, which mail
 * programs show once). */
static int mail_classify(CURLcode cc, long code, struct chan_status *st)
{
	st->http = (int)code;
	if (cc == CURLE_OK)
		return CHAN_OK;
	snprintf(st->reason, sizeof st->reason, _("the mail server: %1$s (%2$ld)"),
	         curl_easy_strerror(cc), code);
	switch (cc) {
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_USE_SSL_FAILED:
		return CHAN_RETRY;
	case CURLE_LOGIN_DENIED:
		return CHAN_REFUSED;
	default:
		break;
	}
	if (code >= 400 && code < 500)
		return CHAN_RETRY;
	if (code >= 500)
		return CHAN_REFUSED;
	return cc == CURLE_OPERATION_TIMEDOUT || cc == CURLE_RECV_ERROR || cc == CURLE_SEND_ERROR
	           ? CHAN_UNKNOWN
	           : CHAN_RETRY;
}

int pipe_mail_send(const struct pipe_mail *m, struct chan_status *st)
{
	struct curl_slist *hdrs = NULL, *rcpt = NULL;
	struct call c = {NULL, NULL, st, 0, 0};
	struct pipe_http_resp resp = {0};
	struct pipe_http h;
	struct strbuf logline = {0};
	curl_mime *mime = NULL;
	double t0 = 0, t1 = 0;
	long code = 0;
	CURL *e = NULL;
	CURLcode cc;
	int rc, out;

	if (!call_begin(st, pipe_mail_url_ok(m->url)))
		return CHAN_REFUSED;
	if (!(e = curl_easy_init())) {
		snprintf(st->reason, sizeof st->reason, "%s", _("cannot start a call"));
		return CHAN_RETRY;
	}
	memset(&h, 0, sizeof h);
	h.stop = m->stop;
	c.h = &h;
	c.resp = &resp;
	if ((rc = mail_headers(m, &hdrs)) != 0) {
		snprintf(st->reason, sizeof st->reason, "%s", err_msg());
		out = CHAN_REFUSED;
		goto done;
	}
	curl_easy_setopt(e, CURLOPT_URL, m->url);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
	                 m->connect_timeout_ms > 0 ? m->connect_timeout_ms : 5000L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS,
	                 m->total_timeout_ms > 0 ? m->total_timeout_ms : 60000L);
	/* STARTTLS is required on smtp://, but with the loopback test fake */
	if (!strncmp(m->url, "smtp://", 7) && !mail_loopback(m->url))
		curl_easy_setopt(e, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	if (m->ca_file)
		curl_easy_setopt(e, CURLOPT_CAINFO, m->ca_file);
	if (m->username) {
		curl_easy_setopt(e, CURLOPT_USERNAME, m->username);
		curl_easy_setopt(e, CURLOPT_PASSWORD, m->password ? m->password : "");
	}
	curl_easy_setopt(e, CURLOPT_MAIL_FROM, m->from_addr);
	rcpt = curl_slist_append(NULL, m->to);
	curl_easy_setopt(e, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, hdrs);
	if (!(mime = mail_body(e, m))) {
		snprintf(st->reason, sizeof st->reason, "%s", _("cannot build the message"));
		out = CHAN_RETRY;
		goto done;
	}
	curl_easy_setopt(e, CURLOPT_MIMEPOST, mime);
	curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(e, CURLOPT_XFERINFODATA, &c);
	t0 = clock_mono();
	cc = curl_easy_perform(e);
	t1 = clock_mono();
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
	if (cc == CURLE_ABORTED_BY_CALLBACK) {
		snprintf(st->reason, sizeof st->reason, "%s", _("the call was stopped"));
		out = CHAN_UNKNOWN;
	} else {
		out = mail_classify(cc, code, st);
	}
done:
	if (m->log) {
		/* what was sent, not what it said: the envelope and the subject */
		struct pipe_log_entry le = {0};

		sb_printf(&logline, "MAIL FROM:<%s> RCPT TO:<%s> Message-ID: %s", m->from_addr,
		          m->to, m->message_id);
		le.provider = m->provider;
		le.level = out == CHAN_OK ? "info" : out == CHAN_RETRY ? "warn" : "error";
		le.keyword = "send_mail";
		le.method = "SMTP";
		le.url = m->url;
		le.status = (int)code;
		le.latency_ms = (int64_t)((t1 - t0) * 1e3);
		le.req_body = sb_cstr(&logline);
		le.req_len = logline.len;
		le.error = out == CHAN_OK ? NULL : st->reason;
		pipe_log_add(m->log, &le);
	}
	sb_free(&logline);
	if (mime)
		curl_mime_free(mime);
	curl_slist_free_all(hdrs);
	curl_slist_free_all(rcpt);
	curl_easy_cleanup(e);
	return out;
}
