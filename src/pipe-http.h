/*
 * pipe-http.h - one HTTP call to a payment channel, on libcurl, done the
 * careful way, and its classification into the codes of channel.h.
 *
 * Every call: HTTPS only, except plain HTTP to 127.0.0.1 (the test fake);
 * TLS peer and host verification always on (never turned off by any
 * setting); the proxy environment (https_proxy, no_proxy...) honoured as
 * libcurl does; no redirects followed; connect and total timeouts, a
 * low-speed limit (a stalled body fails instead of hanging), a cap on the
 * response size; the API key sent as HTTP Basic user (never in the URL);
 * a pinned API version header; an Idempotency-Key on POSTs; an optional
 * stop flag that aborts a call within ~100 ms. Each call is written to the
 * request log (pipe-log.h) when one is given. One libcurl handle is kept
 * per struct pipe_http and reset before each call, so consecutive calls
 * reuse the connection (no new TCP and TLS handshake per call); a struct
 * pipe_http belongs to one thread.
 *
 * Classification (see channel.h): a connection that never got through, a
 * 409, 429 or 5xx, or a body cut short on a GET is CHAN_RETRY; a POST whose
 * answer was lost after it may have been sent is CHAN_UNKNOWN; 404 is
 * CHAN_NOTFOUND; other 4xx are CHAN_REFUSED; a Stripe-Should-Retry header
 * decides over the status when present; Retry-After (seconds) is kept.
 *
 * Callers: the channel adapters (chan-stripe.c, chan-wechat.c).
 */
#ifndef FD_PIPE_HTTP_H
#define FD_PIPE_HTTP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "channel.h"

struct pipe_log;
struct strbuf;

struct pipe_http {
	const char *provider;        /* for the log */
	const char *base_url;        /* "https://api.stripe.com" */
	const char *api_key;         /* sent as Basic user (or Bearer); NULL: no auth */
	int bearer;                  /* 1: api_key goes as "Authorization: Bearer" */
	const char *version_header;  /* e.g. "Stripe-Version: 2026-10-28.endive"; NULL: none */
	long connect_timeout_ms;     /* default 5000 */
	long total_timeout_ms;       /* default 30000 */
	long low_speed_bytes;        /* abort below this many bytes/s ... (default 10) */
	long low_speed_secs;         /* ... for this long (default 10) */
	size_t max_response;         /* default 4 MiB */
	struct pipe_log *log;        /* NULL: no request log */
	volatile sig_atomic_t *stop; /* non-zero aborts the call; NULL: never */
	const char *content_type;    /* a POST body's Content-Type; NULL: a form */
	int quiet_bodies;            /* 1: the request log keeps no bodies (documents) */
	void *conn;                  /* the libcurl handle kept between calls (its connection is
	                              * reused); NULL at first, freed by pipe_http_release */
};

/* A response as received. */
struct pipe_http_resp {
	int status; /* 0 when no answer */
	char *body; /* NUL-terminated, owned; NULL when none */
	size_t len;
	int64_t date; /* the Date header, 0 when none */
};

/* pipe_http_setup - fill *h for the adapter called provider at base_url
 * (not copied: they must outlive h) with its timeouts (0: defaults), log
 * and stop flag; no API key and no version header (set them after). */
void pipe_http_setup(struct pipe_http *h, const char *provider, const char *base_url,
                     long connect_timeout_ms, long total_timeout_ms, long low_speed_secs,
                     struct pipe_log *log, volatile sig_atomic_t *stop);

/* pipe_http_url_ok - 0 if url may be called: https://..., or
 * http://127.0.0.1[:port]/...; FD_EINVAL with a reason otherwise. */
int pipe_http_url_ok(const char *url);

/* pipe_http_form - append "key=value" to a form body (with '&' between),
 * both percent-encoded except for unreserved characters and brackets in
 * the key. */
void pipe_http_form(struct strbuf *sb, const char *key, const char *value);

/* pipe_http_escape - append s percent-encoded except for unreserved
 * characters (a segment of a path, or a query's value). */
void pipe_http_escape(struct strbuf *sb, const char *s);

/* pipe_http_call - method ("GET" or "POST") path (starting with '/') with
 * query (already encoded, may be NULL) and, for POST, form body and
 * idem_key. Fills *resp (free with pipe_http_resp_free) and *st, and
 * returns a chan_code. keyword names the call in the log. */
int pipe_http_call(struct pipe_http *h, const char *keyword, const char *method, const char *path,
                   const char *query, const char *form, const char *idem_key,
                   struct pipe_http_resp *resp, struct chan_status *st);

/* One request of pipe_http_send. */
struct pipe_http_req {
	const char *method; /* "GET", "POST", "DELETE" */
	const char *path;   /* starting with '/' */
	const char *query;  /* already encoded; NULL: none */
	const void *body;   /* a POST's body (len bytes, any bytes); NULL: empty */
	size_t len;
	const char *idem_key;       /* a POST's Idempotency-Key; NULL: none */
	const char *const *headers; /* more lines "Name: value", NULL-terminated; NULL: none */
};

/* pipe_http_send - pipe_http_call with a body of any bytes and more
 * headers; a DELETE is classified as a GET is (repeating it is safe). The
 * request log keeps the body unless h->quiet_bodies. */
int pipe_http_send(struct pipe_http *h, const char *keyword, const struct pipe_http_req *q,
                   struct pipe_http_resp *resp, struct chan_status *st);

void pipe_http_resp_free(struct pipe_http_resp *r);

/* pipe_http_release - free the handle kept between calls (and close its
 * connection); h may be called again afterwards. */
void pipe_http_release(struct pipe_http *h);

/* ---------------------------------------------------------------- e-mail */

/* One e-mail, sent by SMTP on libcurl with the same care: smtps:// (TLS)
 * or smtp:// with STARTTLS required (plain only to 127.0.0.1, the test
 * fake); the peer always verified (ca_file adds a CA, it never turns the
 * check off); timeouts; the login through libcurl's options, never in the
 * URL or the log. The text is text/plain UTF-8 (quoted-printable), with
 * one attachment (base64) when given; the subject and the sender's name
 * are RFC 2047 words when they are not plain ASCII. */
struct pipe_mail {
	const char *provider; /* for the log */
	const char *url;      /* smtps://host:465, smtp://host:587 */
	const char *username; /* NULL: no login */
	const char *password;
	const char *ca_file;   /* NULL: the system's CAs */
	const char *from_name; /* NULL: none */
	const char *from_addr;
	const char *to;
	const char *subject;
	const char *date;       /* RFC 5322 */
	const char *message_id; /* "<...>" */
	const char *text;
	const void *attachment; /* NULL: none */
	size_t attachment_len;
	const char *attachment_name;
	const char *attachment_type;
	long connect_timeout_ms, total_timeout_ms; /* 0: 5 s, 60 s */
	struct pipe_log *log;                      /* NULL: no request log */
	volatile sig_atomic_t *stop;               /* non-zero aborts the call */
};

/* pipe_mail_url_ok - 0 if url names a mail server frontdesk may use,
 * else FD_EINVAL with the reason. */
int pipe_mail_url_ok(const char *url);

/* pipe_mail_header_word - text as a header value: itself when plain
 * printable ASCII, else RFC 2047 encoded words (UTF-8, base64, at most 75
 * characters each, folded), appended to out. FD_EIO when libcrypto cannot
 * be loaded. */
int pipe_mail_header_word(const char *text, struct strbuf *out);

/* pipe_mail_send - send m; a chan_code (CHAN_OK: the server took it with
 * 250; CHAN_RETRY: nothing got through or the server said 4xx;
 * CHAN_REFUSED: 5xx or the login refused; CHAN_UNKNOWN: the answer was
 * lost after the data may have been taken) with *st's reason and the last
 * SMTP code in st->http. Written to the request log when m->log. */
int pipe_mail_send(const struct pipe_mail *m, struct chan_status *st);

#endif
