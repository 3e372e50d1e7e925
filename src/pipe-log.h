/*
 * pipe-log.h - the request log of calls to payment channels, kept in its OWN
 * SQLite file so that logging never slows or locks the desk's database.
 *
 * One row per call: when (our clock and the channel's Date), provider,
 * level, keyword (what the call was for), host and process, method, the URL
 * with any user info and secret-looking query values removed, HTTP status,
 * latency, the channel's request id, and an excerpt of the request and
 * response bodies with secrets and personal data masked (pipe_log_mask).
 * Old rows are pruned by age. The file is created with mode 0600 (shared
 * with the group in a setgid folder, fsmode.h) in WAL mode with
 * synchronous=NORMAL: a lost last line after a power cut is acceptable for
 * a log, a slow desk is not.
 *
 * Callers: the channel adapters (through pipe-http), the poller, tests.
 */
#ifndef FD_PIPE_LOG_H
#define FD_PIPE_LOG_H

#include <stddef.h>
#include <stdint.h>

struct pipe_log;

/* The longest body excerpt kept (bytes, after masking). */
#define PIPE_LOG_EXCERPT 2000

struct pipe_log_entry {
	const char *provider; /* "stripe" */
	const char *level;    /* "info", "warn", "error" */
	const char *keyword;  /* "poll", "query_order", "create_payment", ... */
	const char *method;   /* "GET", "POST" */
	const char *url;      /* as called; cleaned before it is stored */
	int status;           /* HTTP status, 0 when no answer */
	int64_t latency_ms;
	const char *request_id; /* the channel's, NULL when none */
	const char *req_body;   /* NULL when none; masked before it is stored */
	size_t req_len;
	const char *resp_body; /* NULL when none; masked before it is stored */
	size_t resp_len;
	int64_t channel_time; /* the channel's Date header, 0 when none */
	const char *error;    /* our reason when the call failed, else NULL */
};

/* pipe_log_path_beside - the log's name beside the database at db_path:
 * "<db_path without .db>-requests.db" (also how a backup names the log's
 * copy beside it). A new string the caller frees. */
char *pipe_log_path_beside(const char *db_path);

/* pipe_log_default_path - where the log goes for the database at db_path:
 * the config key `request_log`, else pipe_log_path_beside(db_path).
 * A new string the caller frees. */
char *pipe_log_default_path(const char *db_path);

/* pipe_log_open - open (creating it, mode 0600) the log at path. FD_EIO or
 * FD_EDB with a reason. */
int pipe_log_open(const char *path, struct pipe_log **out);

/* pipe_log_add - append one entry (its own short transaction). A failure to
 * log is reported to the caller but must never stop a payment. */
int pipe_log_add(struct pipe_log *l, const struct pipe_log_entry *e);

/* pipe_log_prune - delete entries logged before `before` (real time); *n
 * (may be NULL) gets how many. */
int pipe_log_prune(struct pipe_log *l, int64_t before, int64_t *n);

/* pipe_log_mask - a new NUL-terminated string (caller frees): the first
 * bytes of the len bytes at s, at most max bytes cut on a UTF-8 boundary,
 * with the values of secret or personal fields ("email", "name", "phone",
 * "address", "client_secret", "card", "cvc", "number", ... in JSON or form
 * encoding), API keys and signing secrets (sk_..., rk_..., whsec_...) and
 * runs of 13 to 19 digits replaced by "***". */
char *pipe_log_mask(const char *s, size_t len, size_t max);

/* pipe_log_clean_url - a new string: url without user info and with the
 * values of secret-looking query parameters replaced by "***". */
char *pipe_log_clean_url(const char *url);

/* One entry read back from the log (strings valid during the callback). */
struct pipe_log_row {
	int64_t id;
	int64_t logged_at; /* real time */
	const char *provider, *level, *keyword, *method, *url;
	int status;
	int64_t latency_ms;
	const char *request_id; /* NULL when none */
	const char *error;      /* NULL when none */
};

/* pipe_log_find - the entries of the log at path whose URL, request id or
 * body excerpts contain one of the n needles (each at least 4 bytes;
 * shorter ones are skipped), oldest first for each three needles (an entry
 * that names needles of two such groups is passed twice), at most limit
 * (<= 0: 500) per group, passed to cb
 * (a non-zero return stops and is returned). Opens the file read-only: a log
 * that does not exist yet has no entries (0, nothing called). For tracing a
 * record's history; the log is pruned by age, so this scan is bounded. */
int pipe_log_find(const char *path, const char *const *needles, size_t n, int limit,
                  int (*cb)(const struct pipe_log_row *r, void *arg), void *arg);

/* pipe_log_close - close the log (NULL is fine). */
void pipe_log_close(struct pipe_log *l);

#endif
