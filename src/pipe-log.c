/*
 * pipe-log.c - the request log in its own SQLite file (see pipe-log.h).
 *
 * Invariants: nothing unmasked is ever written (the URL is cleaned and the
 * bodies masked here, not by callers); the log connection is separate from
 * the desk's and uses short transactions, so it never holds the desk's
 * database lock.
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "err.h"
#include "fsmode.h"
#include "i18n.h"
#include "pipe-log.h"
#include "retention-mod.h"
#include "settings.h"
#include "strbuf.h"
#include "xalloc.h"

struct pipe_log {
	sqlite3 *h;
	sqlite3_stmt *ins; /* pipe_log_add's INSERT, prepared on first use */
	char host[128];
};

static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS request_log ("
    " id INTEGER PRIMARY KEY,"
    " logged_at INTEGER NOT NULL," /* real time */
    " channel_time INTEGER,"       /* the channel's Date header */
    " provider TEXT NOT NULL,"
    " level TEXT NOT NULL,"
    " keyword TEXT NOT NULL,"
    " host TEXT NOT NULL,"
    " pid INTEGER NOT NULL,"
    " method TEXT NOT NULL,"
    " url TEXT NOT NULL,"
    " status INTEGER NOT NULL,"
    " latency_ms INTEGER NOT NULL,"
    " request_id TEXT,"
    " request_excerpt TEXT,"
    " response_excerpt TEXT,"
    " error TEXT);"
    "CREATE INDEX IF NOT EXISTS request_log_by_time ON request_log(logged_at);";

char *pipe_log_path_beside(const char *db_path)
{
	size_t n = strlen(db_path);
	char *out;

	if (n > 3 && !strcmp(db_path + n - 3, ".db"))
		n -= 3;
	out = xmalloc(n + sizeof "-requests.db");
	memcpy(out, db_path, n);
	strcpy(out + n, "-requests.db");
	return out;
}

char *pipe_log_default_path(const char *db_path)
{
	const char *v = config_get("request_log", NULL);

	if (v && *v)
		return xstrdup(v);
	return pipe_log_path_beside(db_path);
}

int pipe_log_open(const char *path, struct pipe_log **out)
{
	struct pipe_log *l = xcalloc(1, sizeof *l);
	int fd;

	*out = NULL;
	/* create it private (or group-shared, fsmode.h) before SQLite opens it */
	fd = fsmode_create(path);
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		free(l);
		return err_set(FD_EIO, _("cannot open the request log %s"), path);
	}
	close(fd);
	if (sqlite3_open_v2(path, &l->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	        SQLITE_OK ||
	    sqlite3_busy_timeout(l->h, 2000) != SQLITE_OK ||
	    sqlite3_exec(l->h, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", NULL, NULL,
	                 NULL) != SQLITE_OK ||
	    sqlite3_exec(l->h, schema_sql, NULL, NULL, NULL) != SQLITE_OK) {
		int rc = err_set(FD_EDB, _("cannot use the request log %s: %s"), path,
		                 l->h ? sqlite3_errmsg(l->h) : "?");

		sqlite3_close(l->h);
		free(l);
		return rc;
	}
	if (gethostname(l->host, sizeof l->host - 1) != 0)
		strcpy(l->host, "?");
	*out = l;
	return 0;
}

/* Field names whose values are secret or personal. */
static const char *const masked_keys[] = {
    "email",          "name",        "phone",       "address",
    "line1",          "line2",       "postal_code", "client_secret",
    "card",           "number",      "cvc",         "exp_month",
    "exp_year",       "secret",      "password",    "api_key",
    "receipt_email",  "description", "iban",        "account_number",
    "routing_number", "token",       NULL,
};

static int masked_key(const char *k, size_t n)
{
	size_t i;

	/* called for every quoted string and form key of every call logged:
	 * no key is longer than 14 bytes, and the first byte rules most out */
	if (n == 0 || n > 14)
		return 0;
	for (i = 0; masked_keys[i]; i++)
		if (masked_keys[i][0] == k[0] && strlen(masked_keys[i]) == n &&
		    !memcmp(masked_keys[i], k, n))
			return 1;
	return 0;
}

static int word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Masking one text: s[plain, i) is copied as it is, added in one piece
 * before anything masked (byte by byte, the copy was most of a call's
 * logging), so the output so far is sb plus that run. */
struct mask {
	struct strbuf sb;
	const char *s;
	size_t len, plain;
};

/* Add the run before i, then keep s[from, to) and write the mask. */
static void masked(struct mask *m, size_t i, size_t from, size_t to, const char *mask)
{
	sb_add(&m->sb, m->s + m->plain, i - m->plain);
	sb_add(&m->sb, m->s + from, to - from);
	sb_puts(&m->sb, mask);
}

/* Each masker looks at s[i]: 0 when it does not apply there, else (having
 * written what it keeps and the mask) the index after what it masked. */

/* "key": "value" in JSON */
static size_t mask_json(struct mask *m, size_t i)
{
	const char *s = m->s;
	size_t len = m->len, j, k;

	if (s[i] != '"')
		return 0;
	for (j = i + 1; j < len && s[j] != '"' && s[j] != '\\'; j++)
		;
	if (j == len || s[j] != '"' || !masked_key(s + i + 1, j - i - 1))
		return 0;
	for (k = j + 1; k < len && (s[k] == ' ' || s[k] == ':' || s[k] == '\t'); k++)
		;
	if (k == len || s[k] != '"' || !memchr(s + j + 1, ':', k - j - 1))
		return 0;
	masked(m, i, i, k, "\"***\"");
	for (k++; k < len && s[k] != '"'; k++)
		if (s[k] == '\\')
			k++;
	return k + 1;
}

/* key=value (form) and metadata[key]=value */
static size_t mask_form(struct mask *m, size_t i)
{
	const char *s = m->s;
	size_t len = m->len, j, k;

	if (!word_char(s[i]) || (i > 0 && s[i - 1] != '&' && s[i - 1] != '[' && s[i - 1] != '?'))
		return 0;
	for (j = i; j < len && word_char(s[j]); j++)
		;
	k = j < len && s[j] == ']' ? j + 1 : j;
	if (k == len || s[k] != '=' || !masked_key(s + i, j - i))
		return 0;
	masked(m, i, i, k + 1, "***");
	for (k++; k < len && s[k] != '&'; k++)
		;
	return k;
}

/* API keys and signing secrets: sk_..., rk_..., whsec_... */
static size_t mask_secret(struct mask *m, size_t i)
{
	static const char *const prefixes[] = {"sk_", "rk_", "whsec_"};
	const char *s = m->s;
	size_t len = m->len, p, n, j;

	if (i > 0 && word_char(s[i - 1]))
		return 0;
	for (p = 0; p < sizeof prefixes / sizeof *prefixes; p++) {
		n = strlen(prefixes[p]);
		if (len - i > n && !strncmp(s + i, prefixes[p], n)) {
			masked(m, i, i, i + n, "***");
			for (j = i + n; j < len && word_char(s[j]); j++)
				;
			return j;
		}
	}
	return 0;
}

/* long digit runs (card or account numbers): 13 to 19 digits, with spaces
 * or dashes between them */
static size_t mask_digits(struct mask *m, size_t i)
{
	const char *s = m->s;
	size_t len = m->len, j, k, digits = 0;

	if (!isdigit((unsigned char)s[i]) || (i > 0 && isdigit((unsigned char)s[i - 1])))
		return 0;
	for (j = i; j < len && (isdigit((unsigned char)s[j]) || s[j] == ' ' || s[j] == '-'); j++)
		;
	while (j > i && !isdigit((unsigned char)s[j - 1]))
		j--;
	for (k = i; k < j; k++)
		digits += isdigit((unsigned char)s[k]) ? 1 : 0;
	if (digits < 13 || digits > 19)
		return 0;
	masked(m, i, i, i, "***");
	return j;
}

/* May a masker apply at s[i], where c is s[i] and prev s[i - 1] (0 when i
 * is 0)? The maskers' own first tests, at once: mask_json needs a quote,
 * mask_form a word byte after nothing, '&', '[' or '?', mask_secret an s, r
 * or w after no word byte, mask_digits a digit after no digit. Elsewhere
 * every masker returns 0, so skipping them there changes no byte of the
 * output; most bytes of a body are skipped by this test alone (the
 * maskers' calls were most of a call's logging). */
static int may_mask(unsigned char c, unsigned char prev)
{
	if (c == '"')
		return 1;
	if (!word_char((char)c))
		return 0;
	if (!prev || prev == '&' || prev == '[' || prev == '?')
		return 1;
	if ((c == 's' || c == 'r' || c == 'w') && !word_char((char)prev))
		return 1;
	return isdigit(c) && !isdigit(prev);
}

char *pipe_log_mask(const char *s, size_t len, size_t max)
{
	static size_t (*const maskers[])(struct mask *, size_t) = {mask_json, mask_form,
	                                                           mask_secret, mask_digits};
	struct mask m = {{0}, s, len, 0};
	size_t i = 0, k, next;

	while (i < len && m.sb.len + (i - m.plain) < max) {
		if (!may_mask((unsigned char)s[i], i ? (unsigned char)s[i - 1] : 0)) {
			i++;
			continue;
		}
		if (s[i] == '"') /* not a word byte: the other maskers return 0 */
			next = mask_json(&m, i);
		else
			for (k = 0, next = 0; !next && k < sizeof maskers / sizeof *maskers; k++)
				next = maskers[k](&m, i);
		if (next)
			i = m.plain = next;
		else
			i++;
	}
	sb_add(&m.sb, s + m.plain, i - m.plain);
	/* cut on a UTF-8 boundary */
	if (m.sb.len > max)
		m.sb.len = max;
	while (m.sb.len > 0 && ((unsigned char)m.sb.s[m.sb.len - 1] & 0xC0) == 0x80)
		m.sb.len--;
	if (m.sb.len > 0 && ((unsigned char)m.sb.s[m.sb.len - 1] & 0xC0) == 0xC0)
		m.sb.len--;
	if (!m.sb.s)
		return xstrdup("");
	m.sb.s[m.sb.len] = '\0';
	return sb_steal(&m.sb);
}

char *pipe_log_clean_url(const char *url)
{
	const char *p = strstr(url, "://"), *host, *at, *slash, *q;
	struct strbuf sb = {0};
	char *query, *masked;

	if (!p)
		return xstrdup(url);
	host = p + 3;
	slash = strpbrk(host, "/?#");
	at = memchr(host, '@', slash ? (size_t)(slash - host) : strlen(host));
	sb_add(&sb, url, (size_t)(host - url));
	if (at)
		host = at + 1;
	q = strchr(host, '?');
	if (!q) {
		sb_puts(&sb, host);
		return sb_steal(&sb);
	}
	sb_add(&sb, host, (size_t)(q + 1 - host));
	query = xstrdup(q + 1);
	masked = pipe_log_mask(query, strlen(query), 4096);
	sb_puts(&sb, masked);
	free(masked);
	free(query);
	return sb_steal(&sb);
}

int pipe_log_add(struct pipe_log *l, const struct pipe_log_entry *e)
{
	sqlite3_stmt *st;
	char *url = pipe_log_clean_url(e->url ? e->url : "");
	char *req = e->req_body ? pipe_log_mask(e->req_body, e->req_len, PIPE_LOG_EXCERPT) : NULL;
	char *resp =
	    e->resp_body ? pipe_log_mask(e->resp_body, e->resp_len, PIPE_LOG_EXCERPT) : NULL;
	int rc = 0;

	/* prepared once per log: compiling it cost as much as the rest of a call's logging */
	if (!l->ins && sqlite3_prepare_v2(
	                   l->h,
	                   "INSERT INTO request_log (logged_at, channel_time, provider, level,"
	                   " keyword, host, pid, method, url, status, latency_ms, request_id,"
	                   " request_excerpt, response_excerpt, error)"
	                   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
	                   " ?15)",
	                   -1, &l->ins, NULL) != SQLITE_OK) {
		rc = err_set(FD_EDB, _("cannot write the request log: %s"), sqlite3_errmsg(l->h));
		goto out;
	}
	st = l->ins;
	sqlite3_bind_int64(st, 1, clock_real());
	if (e->channel_time)
		sqlite3_bind_int64(st, 2, e->channel_time);
	sqlite3_bind_text(st, 3, e->provider ? e->provider : "?", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, e->level ? e->level : "info", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, e->keyword ? e->keyword : "call", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, l->host, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, (int64_t)getpid());
	sqlite3_bind_text(st, 8, e->method ? e->method : "GET", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, url, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 10, e->status);
	sqlite3_bind_int64(st, 11, e->latency_ms);
	if (e->request_id && *e->request_id)
		sqlite3_bind_text(st, 12, e->request_id, -1, SQLITE_STATIC);
	if (req)
		sqlite3_bind_text(st, 13, req, -1, SQLITE_STATIC);
	if (resp)
		sqlite3_bind_text(st, 14, resp, -1, SQLITE_STATIC);
	if (e->error)
		sqlite3_bind_text(st, 15, e->error, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = err_set(FD_EDB, _("cannot write the request log: %s"), sqlite3_errmsg(l->h));
	/* the bindings point into url, req and resp, freed below */
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
out:
	free(url);
	free(req);
	free(resp);
	return rc;
}

int pipe_log_prune(struct pipe_log *l, int64_t before, int64_t *n)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;

	if (n)
		*n = 0;
	if (sqlite3_prepare_v2(l->h, "DELETE FROM request_log WHERE logged_at < ?1", -1, &st,
	                       NULL) != SQLITE_OK)
		return err_set(FD_EDB, _("cannot prune the request log: %s"), sqlite3_errmsg(l->h));
	sqlite3_bind_int64(st, 1, before);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = err_set(FD_EDB, _("cannot prune the request log: %s"), sqlite3_errmsg(l->h));
	else if (n)
		*n = sqlite3_changes(l->h);
	sqlite3_finalize(st);
	return rc;
}

void pipe_log_close(struct pipe_log *l)
{
	if (!l)
		return;
	sqlite3_finalize(l->ins);
	sqlite3_close(l->h);
	free(l);
}

/* An entry names needle ?N when its URL, request id or excerpts hold it. */
#define NAMES(N)                                                                                   \
	"(instr(url, ?" N ") OR instr(coalesce(request_id, ''), ?" N ")"                           \
	" OR instr(coalesce(request_excerpt, ''), ?" N ")"                                         \
	" OR instr(coalesce(response_excerpt, ''), ?" N "))"

int pipe_log_find(const char *path, const char *const *needles, size_t n, int limit,
                  int (*cb)(const struct pipe_log_row *r, void *arg), void *arg)
{
	static const char sql[] =
	    "SELECT id, logged_at, provider, level, keyword, method, url, status, latency_ms,"
	    " request_id, error FROM request_log WHERE " NAMES("1") " OR " NAMES("2") " OR " NAMES(
	        "3") " ORDER BY id LIMIT ?4";
	struct pipe_log_row r;
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	size_t i;
	int rc = 0, step, slot = 0;

	if (access(path, F_OK) != 0)
		return 0;
	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_busy_timeout(h, 2000) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = err_set(FD_EDB, _("cannot read the request log %s: %s"), path,
		             h ? sqlite3_errmsg(h) : "?");
		goto out;
	}
	/* three needles per run of the statement, until all were asked */
	for (i = 0; i < n && !rc;) {
		slot = 0;
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		for (; i < n && slot < 3; i++)
			if (needles[i] && strlen(needles[i]) >= 4)
				sqlite3_bind_text(st, ++slot, needles[i], -1, SQLITE_STATIC);
		if (slot == 0)
			break; /* nothing left to look for */
		sqlite3_bind_int(st, 4, limit > 0 ? limit : 500);
		while ((step = sqlite3_step(st)) == SQLITE_ROW) {
			memset(&r, 0, sizeof r);
			r.id = sqlite3_column_int64(st, 0);
			r.logged_at = sqlite3_column_int64(st, 1);
			r.provider = (const char *)sqlite3_column_text(st, 2);
			r.level = (const char *)sqlite3_column_text(st, 3);
			r.keyword = (const char *)sqlite3_column_text(st, 4);
			r.method = (const char *)sqlite3_column_text(st, 5);
			r.url = (const char *)sqlite3_column_text(st, 6);
			r.status = sqlite3_column_int(st, 7);
			r.latency_ms = sqlite3_column_int64(st, 8);
			r.request_id = (const char *)sqlite3_column_text(st, 9);
			r.error = (const char *)sqlite3_column_text(st, 10);
			if ((rc = cb(&r, arg)) != 0)
				break;
		}
		if (!rc && step != SQLITE_DONE)
			rc = err_set(FD_EDB, _("cannot read the request log %s: %s"), path,
			             sqlite3_errmsg(h));
	}
out:
	sqlite3_finalize(st);
	sqlite3_close(h);
	return rc;
}

/* The retention purge's part of the request log (retention-mod.h). */
int pipe_log_scrub(const char *path, const char *const *needles, size_t n, int vacuum,
                   int64_t *rows)
{
	static const char sql[] =
	    "UPDATE request_log SET url = '" RETENTION_REMOVED "', request_id = NULL,"
	    " request_excerpt = NULL, response_excerpt = NULL, error = NULL"
	    " WHERE (" NAMES("1") " OR instr(coalesce(error, ''), ?1))"
	                          " AND url IS NOT '" RETENTION_REMOVED "'";
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	size_t i;
	int rc = 0;

	if (rows)
		*rows = 0;
	if (access(path, F_OK) != 0)
		return 0;
	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    sqlite3_busy_timeout(h, 5000) != SQLITE_OK ||
	    sqlite3_exec(h, "PRAGMA secure_delete = ON; BEGIN IMMEDIATE", NULL, NULL, NULL) !=
	        SQLITE_OK ||
	    sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	for (i = 0; i < n; i++) {
		if (!needles[i] || strlen(needles[i]) < 4)
			continue;
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, needles[i], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto fail;
		if (rows)
			*rows += sqlite3_changes(h);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_exec(h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	if (vacuum && (sqlite3_exec(h,
	                            "PRAGMA wal_checkpoint(TRUNCATE); VACUUM;"
	                            " PRAGMA wal_checkpoint(TRUNCATE)",
	                            NULL, NULL, NULL) != SQLITE_OK))
		goto fail;
	goto out;
fail:
	rc = err_set(FD_EDB, _("cannot clear the request log %s: %s"), path,
	             h ? sqlite3_errmsg(h) : "?");
out:
	sqlite3_finalize(st);
	sqlite3_close(h);
	return rc;
}
