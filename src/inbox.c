/*
 * inbox.c - inbound channel events, stored raw (see inbox.h).
 *
 * Invariants: a payload is stored byte for byte as a BLOB (never re-encoded
 * or re-printed); the signature is checked before anything about the
 * payload is believed; a rejected payload is keyed by its digest, so the id
 * it claims stays free for the genuine event; every write is one
 * BEGIN IMMEDIATE transaction (or runs inside the caller's).
 *
 * Permissions: storing and marking events asks nothing (the pipeline's own
 * steps); a person's inbox_retry and inbox_ignore ask operations.
 */
#include <config.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "channel.h"
#include "clock.h"
#include "control.h"
#include "crypto-dyn.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "inbox.h"
#include "outbox.h"
#include "retention-mod.h"
#include "states.h"
#include "text.h"
#include "xalloc.h"

/* The stored word of each state, once. */
static const char *const state_words[INBOX_STATES] = {
    [INBOX_RECEIVED] = "received", [INBOX_PROCESSED] = "processed", [INBOX_IGNORED] = "ignored",
    [INBOX_PARKED] = "parked",     [INBOX_FAILED] = "failed",       [INBOX_DEAD] = "dead",
    [INBOX_REJECTED] = "rejected",
};

/* The moves of an event: the schema's status_transition rows for
 * inbound_callback (states_agree checks the two are the same). */
static const struct state_move moves[] = {
    {INBOX_RECEIVED, INBOX_PROCESSED},
    {INBOX_RECEIVED, INBOX_IGNORED},
    {INBOX_RECEIVED, INBOX_PARKED},
    {INBOX_RECEIVED, INBOX_FAILED},
    {INBOX_RECEIVED, INBOX_DEAD},
    {INBOX_PARKED, INBOX_PROCESSED},
    {INBOX_PARKED, INBOX_IGNORED},
    {INBOX_PARKED, INBOX_FAILED},
    {INBOX_PARKED, INBOX_DEAD},
    {INBOX_PARKED, INBOX_RECEIVED},
    {INBOX_FAILED, INBOX_PROCESSED},
    {INBOX_FAILED, INBOX_IGNORED},
    {INBOX_FAILED, INBOX_PARKED},
    {INBOX_FAILED, INBOX_DEAD},
    {INBOX_FAILED, INBOX_RECEIVED},
    {INBOX_DEAD, INBOX_RECEIVED},
    {INBOX_DEAD, INBOX_IGNORED},
    {INBOX_DEAD, INBOX_PROCESSED},
    {-1, -1},
};

const struct states inbox_states = {"inbound_callback", state_words, INBOX_STATES, moves};

enum inbox_state inbox_state_of(const char *word)
{
	return (enum inbox_state)states_of(&inbox_states, word);
}

const char *inbox_state_word(enum inbox_state s)
{
	return states_word(&inbox_states, (int)s);
}

static void bind_opt(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

int inbox_insert(struct db *db, const struct inbox_new *ev, int64_t *id, int *fresh)
{
	sqlite3_stmt *st;
	int64_t now = clock_now();
	int rc;

	*id = 0;
	*fresh = 0;
	if (ev->len > INBOX_PAYLOAD_MAX)
		return err_set(FD_EINVAL, _("the payload is larger than %d bytes"),
		               INBOX_PAYLOAD_MAX);
	rc = db_prepare_cached(
	    db,
	    "INSERT OR IGNORE INTO inbound_callback (source_system, external_id, via, event_type,"
	    " object_id, payload, channel_created_at, received_at, status, attempts,"
	    " next_attempt_at, last_error, updated_at, integration_type)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 0, ?10, ?11, ?8, coalesce(?12,"
	    " (SELECT integration_type FROM integration_provider WHERE provider_code = ?1"
	    "  ORDER BY integration_type = 'payment' DESC LIMIT 1), 'payment'))",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, ev->source, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, ev->external_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, ev->via, -1, SQLITE_TRANSIENT);
	bind_opt(st, 4, ev->event_type);
	bind_opt(st, 5, ev->object_id);
	/* a zero-length blob must still be a blob, not NULL */
	sqlite3_bind_blob64(st, 6, ev->len ? ev->payload : "", ev->len, SQLITE_TRANSIENT);
	if (ev->channel_created_at)
		sqlite3_bind_int64(st, 7, ev->channel_created_at);
	else
		sqlite3_bind_null(st, 7);
	sqlite3_bind_int64(st, 8, now);
	sqlite3_bind_text(st, 9, ev->status, -1, SQLITE_TRANSIENT);
	if (inbox_state_of(ev->status) == INBOX_RECEIVED)
		sqlite3_bind_int64(st, 10, clock_real());
	else
		sqlite3_bind_null(st, 10);
	bind_opt(st, 11, ev->error);
	bind_opt(st, 12, ev->type);
	if ((rc = db_run_moved(db, st, _("cannot store the inbound event"), fresh)) != 0)
		return rc;
	if (*fresh) {
		*id = sqlite3_last_insert_rowid(db_sqlite(db));
		return 0;
	}
	rc = db_prepare_cached(db,
	                       "SELECT id FROM inbound_callback"
	                       " WHERE source_system = ?1 AND external_id = ?2",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, ev->source, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, ev->external_id, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, _("cannot find the stored inbound event"));
	db_release(db, st);
	return rc;
}

/* The key of a payload that is not to be believed: its digest. */
int inbox_insert_found(struct db *db, const char *source, const char *external_id,
                       const char *event_type, const char *note, cJSON *object)
{
	struct inbox_new ev = {0};
	cJSON *j = cJSON_CreateObject(), *oid = cJSON_GetObjectItemCaseSensitive(object, "id");
	char *raw;
	int64_t id;
	int rc, fresh;

	ev.object_id = cJSON_IsString(oid) ? oid->valuestring : NULL;
	cJSON_AddStringToObject(j, "id", external_id);
	cJSON_AddStringToObject(j, "object", "event");
	cJSON_AddStringToObject(j, "type", event_type);
	cJSON_AddStringToObject(j, "via", note);
	cJSON_AddItemToObject(cJSON_AddObjectToObject(j, "data"), "object", object);
	raw = cJSON_PrintUnformatted(j);
	if (!raw) {
		cJSON_Delete(j);
		return err_set(FD_EIO, _("cannot write down the state found"));
	}
	ev.source = source;
	ev.external_id = external_id;
	ev.via = "query";
	ev.event_type = event_type;
	ev.payload = raw;
	ev.len = strlen(raw);
	ev.status = "received";
	rc = inbox_insert(db, &ev, &id, &fresh);
	cJSON_free(raw);
	cJSON_Delete(j); /* after the insert: ev.object_id points into it */
	return rc;
}

void inbox_refused_key(const char *prefix, const char *header, const void *payload, size_t len,
                       char *out, size_t n)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t off;

	if (!header)
		header = "";
	if (ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) &&
	    EVP_DigestUpdate(ctx, header, strlen(header)) && EVP_DigestUpdate(ctx, "\n", 1) &&
	    (!len || EVP_DigestUpdate(ctx, payload, len)))
		EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	off = (size_t)snprintf(out, n, "%s:", prefix);
	for (i = 0; i < mdlen && off + 2 < n; i++, off += 2)
		snprintf(out + off, n - off, "%02x", md[i]);
}

struct ingest_ctx {
	const struct inbox_new *ev;
	int64_t id;
	int fresh;
};

static int ingest_tx(struct db *db, void *arg)
{
	struct ingest_ctx *c = arg;

	return inbox_insert(db, c->ev, &c->id, &c->fresh);
}

int inbox_insert_write(struct db *db, const struct inbox_new *ev, int64_t *id, int *fresh)
{
	struct ingest_ctx c = {ev, 0, 0};
	int rc = db_write(db, ingest_tx, &c);

	if (rc == 0) {
		*id = c.id;
		*fresh = c.fresh;
	}
	return rc;
}

/* ---------------------------------------------------------------- sanity */

/* A strict reader of one JSON value (RFC 8259) that only says yes or no:
 * what cJSON forgives (bytes after the value, bad UTF-8 inside strings) is
 * refused here, and so is the escape \u0000: a NUL cuts every C string, so
 * an id or a word holding one would be read as another. */
struct jscan {
	const unsigned char *s;
	size_t n, i;
	int depth;
};

static void js_ws(struct jscan *j)
{
	while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' ||
	                       j->s[j->i] == '\r'))
		j->i++;
}

static int js_hex4(struct jscan *j, unsigned *v)
{
	size_t k;

	*v = 0;
	if (j->n - j->i < 4)
		return -1;
	for (k = 0; k < 4; k++) {
		unsigned char c = j->s[j->i++];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

static int js_string(struct jscan *j)
{
	unsigned cp, lo;
	size_t k;

	j->i++; /* the opening quote */
	while (j->i < j->n) {
		unsigned char c = j->s[j->i];

		if (c == '"') {
			j->i++;
			return 0;
		}
		if (c < 0x20)
			return -1;
		if (c != '\\') {
			if (!(k = utf8_decode(j->s + j->i, j->n - j->i, &cp)))
				return -1;
			j->i += k;
			continue;
		}
		if (++j->i >= j->n)
			return -1;
		c = j->s[j->i++];
		if (c != 'u') {
			if (!strchr("\"\\/bfnrt", c) || !c)
				return -1;
			continue;
		}
		if (js_hex4(j, &cp) || cp == 0)
			return -1;
		if (cp >= 0xDC00 && cp <= 0xDFFF)
			return -1; /* a low surrogate alone */
		if (cp >= 0xD800 && cp <= 0xDBFF) {
			if (j->n - j->i < 2 || j->s[j->i] != '\\' || j->s[j->i + 1] != 'u')
				return -1;
			j->i += 2;
			if (js_hex4(j, &lo) || lo < 0xDC00 || lo > 0xDFFF)
				return -1;
		}
	}
	return -1;
}

static int js_value(struct jscan *j);

static int js_number(struct jscan *j)
{
	size_t d;

	if (j->s[j->i] == '-')
		j->i++;
	if (j->i < j->n && j->s[j->i] == '0')
		j->i++;
	else {
		for (d = 0; j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9'; d++)
			j->i++;
		if (!d)
			return -1;
	}
	if (j->i < j->n && j->s[j->i] == '.') {
		j->i++;
		for (d = 0; j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9'; d++)
			j->i++;
		if (!d)
			return -1;
	}
	if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
		j->i++;
		if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-'))
			j->i++;
		for (d = 0; j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9'; d++)
			j->i++;
		if (!d)
			return -1;
	}
	return 0;
}

static int js_word(struct jscan *j, const char *w)
{
	size_t k = strlen(w);

	if (j->n - j->i < k || memcmp(j->s + j->i, w, k))
		return -1;
	j->i += k;
	return 0;
}

/* the members of an object (close '}') or the items of an array (']') */
static int js_list(struct jscan *j, unsigned char close)
{
	j->i++;
	if (++j->depth > 200)
		return -1;
	js_ws(j);
	if (j->i < j->n && j->s[j->i] == close) {
		j->i++;
		j->depth--;
		return 0;
	}
	for (;;) {
		js_ws(j);
		if (close == '}') {
			if (j->i >= j->n || j->s[j->i] != '"' || js_string(j))
				return -1;
			js_ws(j);
			if (j->i >= j->n || j->s[j->i++] != ':')
				return -1;
		}
		if (js_value(j))
			return -1;
		js_ws(j);
		if (j->i >= j->n)
			return -1;
		if (j->s[j->i] == close) {
			j->i++;
			j->depth--;
			return 0;
		}
		if (j->s[j->i++] != ',')
			return -1;
	}
}

static int js_value(struct jscan *j)
{
	js_ws(j);
	if (j->i >= j->n)
		return -1;
	switch (j->s[j->i]) {
	case '{':
		return js_list(j, '}');
	case '[':
		return js_list(j, ']');
	case '"':
		return js_string(j);
	case 't':
		return js_word(j, "true");
	case 'f':
		return js_word(j, "false");
	case 'n':
		return js_word(j, "null");
	default:
		return js_number(j);
	}
}

/* 0 when the len bytes at s are one JSON value and nothing else. */
static int json_strict(const void *s, size_t len)
{
	struct jscan j = {s, len, 0, 0};

	if (js_value(&j))
		return -1;
	js_ws(&j);
	return j.i == j.n ? 0 : -1;
}

/* 0 when the len bytes at s are UTF-8 (with no NUL). */
static int utf8_all(const unsigned char *s, size_t len)
{
	size_t i = 0, k;
	unsigned cp;

	while (i < len) {
		if (!s[i] || !(k = utf8_decode(s + i, len - i, &cp)))
			return -1;
		i += k;
	}
	return 0;
}

/* 0 when s (NULL: none) holds no control byte; else FD_EINVAL naming what. */
static int word_clean(const char *s, const char *what)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return err_set(FD_EINVAL, _("the event's %s holds a control character"),
			               what);
	return 0;
}

/* Whether the bytes of an authentic, readable event are sane enough to
 * store as an event: UTF-8 text, one JSON value (for a JSON channel) with
 * no \u0000, and an id, type and object id with no control byte (an id is
 * never cut or changed to fit). FD_EINVAL with a reason. */
static int event_sane(const void *payload, size_t len, int json, const char *id, const char *type,
                      const char *object_id)
{
	int rc;

	if (utf8_all(payload, len))
		return err_set(FD_EINVAL, _("the payload is not UTF-8 text"));
	if (json && json_strict(payload, len))
		return err_set(FD_EINVAL, _("the payload is not one JSON value (or it holds a NUL "
		                            "character, \\u0000)"));
	if ((rc = word_clean(id, _("id"))) != 0 || (rc = word_clean(type, _("type"))) != 0 ||
	    (rc = word_clean(object_id, _("object id"))) != 0)
		return rc;
	return 0;
}

static int relayed_sane(const struct inbox_relayed *x)
{
	return event_sane(x->payload, x->len, x->json, x->external_id, x->event_type, x->object_id);
}

int inbox_insert_sane(struct db *db, const struct inbox_new *ev, int json, int64_t *id, int *fresh,
                      int *dead)
{
	struct inbox_new d;
	char key[256], why[300];
	int rc;

	*dead = 0;
	if (event_sane(ev->payload, ev->len, json, ev->external_id, ev->event_type,
	               ev->object_id) == 0)
		return inbox_insert(db, ev, id, fresh);
	/* as a relayed payload that cannot be read: never under its id */
	snprintf(why, sizeof why, "%s", err_msg());
	if ((rc = crypto_load()) != 0)
		return rc;
	inbox_refused_key("invalid", NULL, ev->payload, ev->len, key, sizeof key);
	memset(&d, 0, sizeof d);
	d.source = ev->source;
	d.type = ev->type;
	d.via = ev->via;
	d.payload = ev->payload;
	d.len = ev->len;
	d.external_id = key;
	d.status = "dead";
	d.error = why;
	*dead = 1;
	return inbox_insert(db, &d, id, fresh);
}

int inbox_relay_begin(size_t len)
{
	int rc;

	if ((rc = crypto_load()) != 0)
		return rc;
	if (len > INBOX_PAYLOAD_MAX)
		return err_set(FD_EINVAL, _("the payload is larger than %d bytes"),
		               INBOX_PAYLOAD_MAX);
	return 0;
}

int inbox_store_relayed(struct db *db, const struct inbox_relayed *x, struct inbox_ingest_result *r)
{
	struct inbox_new ev = {0};
	int rc, readable = x->readable;

	ev.source = x->source;
	ev.type = x->type;
	ev.via = "forward";
	ev.payload = x->payload;
	ev.len = x->len;
	/* signed is not enough: bytes that are not what an event is are
	 * stored dead, like any authentic payload that cannot be read */
	if (x->verified && readable && relayed_sane(x) != 0)
		readable = 0;
	if (x->verified && readable) {
		snprintf(r->external_id, sizeof r->external_id, "%s", x->external_id);
		ev.event_type = x->event_type;
		ev.object_id = x->object_id;
		ev.channel_created_at = x->created;
		ev.status = "received";
		r->accepted = 1;
	} else {
		/* never under the id the bytes claim: they are not believed */
		snprintf(r->reason, sizeof r->reason, "%s", err_msg());
		inbox_refused_key(x->verified ? "invalid" : "rejected", x->header, x->payload,
		                  x->len, r->external_id, sizeof r->external_id);
		ev.status = x->verified ? "dead" : "rejected";
		ev.error = r->reason;
	}
	ev.external_id = r->external_id;
	if ((rc = inbox_insert_write(db, &ev, &r->id, &r->fresh)) != 0)
		r->accepted = 0;
	return rc;
}

int inbox_ingest(struct db *db, const struct chan_ops *ops, const char *source, const char *header,
                 const void *payload, size_t len, const char *secret, struct inbox_ingest_result *r)
{
	struct inbox_relayed x = {0};
	struct chan_event ce;
	int rc;

	memset(r, 0, sizeof *r);
	if ((rc = inbox_source_valid(source)) != 0 || (rc = inbox_relay_begin(len)) != 0)
		return rc;
	if (!ops->read_event || !ops->verify)
		return err_set(FD_EINVAL, _("the %s channel does not take relayed events"),
		               ops->code);
	if (!header)
		header = "";
	x.source = source;
	x.header = header;
	x.payload = payload;
	x.len = len;
	x.json = !ops->xml_events;
	/* the signature first: nothing in the bytes is believed before it */
	x.verified = ops->verify(secret, header, payload, len, clock_now()) == 0;
	if (x.verified && (x.readable = ops->read_event(secret, payload, len, &ce) == 0)) {
		x.external_id = ce.id;
		x.event_type = ce.type;
		x.object_id = ce.object_id;
		x.created = ce.created;
	}
	return inbox_store_relayed(db, &x, r);
}

#define EVENT_COLS                                                                                 \
	"id, source_system, external_id, via, event_type, object_id, payload,"                     \
	" coalesce(channel_created_at, 0), received_at, status, attempts,"                         \
	" coalesce(next_attempt_at, 0), coalesce(parked_until, 0), last_error,"                    \
	" coalesce(processed_at, 0), updated_at, integration_type"

static void fill(sqlite3_stmt *st, struct inbox_event *e)
{
	const void *blob;

	memset(e, 0, sizeof *e);
	e->id = sqlite3_column_int64(st, 0);
	e->source = dbrow_dup(st, 1);
	e->external_id = dbrow_dup(st, 2);
	snprintf(e->via, sizeof e->via, "%s", (const char *)sqlite3_column_text(st, 3));
	e->event_type = dbrow_dup(st, 4);
	e->object_id = dbrow_dup(st, 5);
	blob = sqlite3_column_blob(st, 6);
	e->len = (size_t)sqlite3_column_bytes(st, 6);
	e->payload = xmalloc(e->len + 1);
	if (e->len)
		memcpy(e->payload, blob, e->len);
	e->payload[e->len] = '\0';
	e->channel_created_at = sqlite3_column_int64(st, 7);
	e->received_at = sqlite3_column_int64(st, 8);
	snprintf(e->status, sizeof e->status, "%s", (const char *)sqlite3_column_text(st, 9));
	e->attempts = sqlite3_column_int64(st, 10);
	e->next_attempt_at = sqlite3_column_int64(st, 11);
	e->parked_until = sqlite3_column_int64(st, 12);
	e->last_error = dbrow_dup(st, 13);
	e->processed_at = sqlite3_column_int64(st, 14);
	e->updated_at = sqlite3_column_int64(st, 15);
	snprintf(e->type, sizeof e->type, "%s", (const char *)sqlite3_column_text(st, 16));
}

int inbox_get(struct db *db, int64_t id, struct inbox_event *out)
{
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	rc = db_prepare(db, "SELECT " EVENT_COLS " FROM inbound_callback WHERE id = ?", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		fill(st, out);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, _("there is no inbound event %lld"), (long long)id);
	else
		rc = db_fail(db, _("cannot read the inbound event"));
	sqlite3_finalize(st);
	return rc;
}

int inbox_list(struct db *db, const char *status, const char *type, const char *source, int limit,
               int (*cb)(const struct inbox_event *e, void *arg), void *arg)
{
	sqlite3_stmt *st;
	struct inbox_event e;
	int rc, step;

	/* with a status (the screen's dead letters), the (status, id) index:
	 * the events of that status alone, newest first; a walk of the table
	 * from its newest event read every processed one before the first
	 * dead one */
	rc = db_prepare(
	    db,
	    status ? "SELECT " EVENT_COLS " FROM inbound_callback"
	             " INDEXED BY inbound_callback_by_status WHERE status = ?1"
	             " AND (?2 IS NULL OR source_system = ?2)"
	             " AND (?4 IS NULL OR integration_type = ?4) ORDER BY id DESC LIMIT ?3"
	           : "SELECT " EVENT_COLS " FROM inbound_callback"
	             " WHERE (?2 IS NULL OR source_system = ?2)"
	             " AND (?4 IS NULL OR integration_type = ?4) ORDER BY id DESC LIMIT ?3",
	    &st);
	if (rc)
		return rc;
	bind_opt(st, 1, status);
	bind_opt(st, 2, source);
	sqlite3_bind_int(st, 3, limit > 0 ? limit : 100);
	bind_opt(st, 4, type);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		fill(st, &e);
		rc = cb(&e, arg);
		inbox_event_free(&e);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list the inbound events"));
	sqlite3_finalize(st);
	return rc;
}

/* A rejected event (bad signature) is never processed, retried or ignored. */
static int rejected(int64_t id)
{
	return err_set(FD_ECONFLICT,
	               _("inbound event %lld was rejected (bad signature) and is never processed"),
	               (long long)id);
}

int inbox_may_retry(int64_t id, const char *status)
{
	switch (inbox_state_of(status)) {
	case INBOX_REJECTED:
		return rejected(id);
	case INBOX_DEAD:
	case INBOX_FAILED:
	case INBOX_PARKED:
		return 0;
	default:
		return err_set(
		    FD_ECONFLICT,
		    _("inbound event %lld is %s: only dead, failed or parked events can be "
		      "retried"),
		    (long long)id, status);
	}
}

int inbox_may_ignore(int64_t id, const char *status)
{
	switch (inbox_state_of(status)) {
	case INBOX_REJECTED:
		return rejected(id);
	case INBOX_PROCESSED:
	case INBOX_IGNORED:
		return err_set(FD_ECONFLICT,
		               _("inbound event %lld is %s already and cannot be ignored"),
		               (long long)id, status);
	default:
		return 0;
	}
}

struct change_ctx {
	int64_t id;
	const char *reason; /* NULL: retry */
};

static int change_tx(struct db *db, void *arg)
{
	struct change_ctx *c = arg;
	sqlite3_stmt *st;
	char status[12] = "", subject[64];
	int rc, step;

	snprintf(subject, sizeof subject, "%s inbound event %lld", c->reason ? "ignore" : "retry",
	         (long long)c->id);
	if ((rc = control_require(db, PERM_OPERATIONS, 0, subject)) != 0)
		return rc;
	rc = db_prepare(db, "SELECT status FROM inbound_callback WHERE id = ?", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, c->id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		snprintf(status, sizeof status, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (step == SQLITE_DONE)
		return err_set(FD_ENOTFOUND, _("there is no inbound event %lld"), (long long)c->id);
	if (step != SQLITE_ROW)
		return db_fail(db, _("cannot read the inbound event"));
	if (!c->reason) {
		if ((rc = inbox_may_retry(c->id, status)) != 0)
			return rc;
		rc = db_prepare(db,
		                "UPDATE inbound_callback SET status = 'received', attempts = 0, "
		                "dead_kind = NULL,"
		                " next_attempt_at = ?2, parked_until = NULL, updated_at = ?3"
		                " WHERE id = ?1",
		                &st);
		if (rc)
			return rc;
		sqlite3_bind_int64(st, 1, c->id);
		sqlite3_bind_int64(st, 2, clock_real());
		sqlite3_bind_int64(st, 3, clock_now());
		db_set_reason(db, _("retried by a person"));
	} else {
		if ((rc = inbox_may_ignore(c->id, status)) != 0)
			return rc;
		rc = db_prepare(db,
		                "UPDATE inbound_callback SET status = 'ignored', last_error = ?2,"
		                " next_attempt_at = NULL, parked_until = NULL, updated_at = ?3"
		                " WHERE id = ?1",
		                &st);
		if (rc)
			return rc;
		sqlite3_bind_int64(st, 1, c->id);
		sqlite3_bind_text(st, 2, c->reason, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 3, clock_now());
		db_set_reason(db, c->reason);
	}
	rc = db_run(db, st, _("cannot change the inbound event"));
	db_set_reason(db, NULL);
	return rc;
}

int inbox_retry(struct db *db, int64_t id)
{
	struct change_ctx c = {id, NULL};

	return db_write(db, change_tx, &c);
}

int inbox_ignore(struct db *db, int64_t id, const char *reason)
{
	struct change_ctx c = {id, reason};
	int rc;

	if (!reason || !*reason)
		return err_set(FD_EINVAL, _("say why the event is ignored (--reason)"));
	if ((rc = text_check(reason, _("the reason"), 500, 0)) != 0)
		return rc;
	return db_write(db, change_tx, &c);
}

int inbox_count(struct db *db, const char *source, const char *status, int64_t *n)
{
	sqlite3_stmt *st;
	int rc;

	*n = 0;
	rc = db_prepare(db,
	                "SELECT count(*) FROM inbound_callback"
	                " WHERE status = ?1 AND (?2 IS NULL OR source_system = ?2)",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, status, -1, SQLITE_TRANSIENT);
	bind_opt(st, 2, source);
	if (sqlite3_step(st) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, _("cannot count the inbound events"));
	sqlite3_finalize(st);
	return rc;
}

void inbox_event_free(struct inbox_event *e)
{
	free(e->source);
	free(e->external_id);
	free(e->event_type);
	free(e->object_id);
	free(e->payload);
	free(e->last_error);
	memset(e, 0, sizeof *e);
}

/* ---------------------------------------------------------------- retention */

int inbox_retention_scrub(struct db *db, const char *deletion_id, const char *const *needles,
                          size_t n, int64_t *rows)
{
	char stub[96];

	retention_stub(deletion_id, stub, sizeof stub);
	return retention_exec_needles(db,
	                              "UPDATE inbound_callback SET payload = ?1, last_error = NULL"
	                              " WHERE (object_id = ?2 OR external_id = ?2"
	                              " OR instr(payload, ?2) > 0) AND payload IS NOT ?1",
	                              stub, 1, needles, n, rows,
	                              _("cannot clear the stored inbound events"));
}

/* The one move of a stored event out of processing: status with its times
 * (a next attempt wait seconds from now on the real clock for failed and
 * parked; processed_at for processed and ignored), guarded by the states
 * an event may leave by being processed. */
static int mark(struct db *db, int64_t id, enum inbox_state to, const char *why, int64_t wait,
                int64_t parked_until, const char *dead_kind, int *moved)
{
	sqlite3_stmt *st;
	int later = to == INBOX_FAILED || to == INBOX_PARKED;
	int done = to == INBOX_PROCESSED || to == INBOX_IGNORED;
	int rc;

	rc = db_prepare_cached(db,
	                       "UPDATE inbound_callback SET status = ?2, attempts = attempts + 1,"
	                       " next_attempt_at = ?3, parked_until = ?4, last_error = ?5,"
	                       " processed_at = ?6, updated_at = ?7, dead_kind = ?8"
	                       " WHERE id = ?1 AND (status = 'received' OR status = 'failed'"
	                       " OR status = 'parked')",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, inbox_state_word(to), -1, SQLITE_STATIC);
	if (later)
		sqlite3_bind_int64(st, 3, clock_real() + (wait > 0 ? wait : 1));
	else
		sqlite3_bind_null(st, 3);
	if (to == INBOX_PARKED)
		sqlite3_bind_int64(st, 4, parked_until);
	else
		sqlite3_bind_null(st, 4);
	bind_opt(st, 5, why);
	if (done)
		sqlite3_bind_int64(st, 6, clock_now());
	else
		sqlite3_bind_null(st, 6);
	sqlite3_bind_int64(st, 7, clock_now());
	bind_opt(st, 8, to == INBOX_DEAD ? dead_kind : NULL);
	return db_run_moved(db, st, _("cannot mark the inbound event"), moved);
}

int inbox_mark_processed(struct db *db, int64_t id, const char *why, int *moved)
{
	return mark(db, id, INBOX_PROCESSED, why, 0, 0, NULL, moved);
}

int inbox_mark_ignored(struct db *db, int64_t id, const char *why, int *moved)
{
	return mark(db, id, INBOX_IGNORED, why, 0, 0, NULL, moved);
}

int inbox_mark_parked(struct db *db, int64_t id, const char *why, int64_t wait,
                      int64_t parked_until, int *moved)
{
	return mark(db, id, INBOX_PARKED, why, wait, parked_until, NULL, moved);
}

int inbox_mark_dead(struct db *db, int64_t id, const char *why, const char *dead_kind, int *moved)
{
	return mark(db, id, INBOX_DEAD, why, 0, 0, dead_kind, moved);
}

int inbox_mark_failed(struct db *db, int64_t id, int64_t attempts, const char *why, int64_t wait,
                      int keep, const char *dead_kind, const char **final, int *moved)
{
	int64_t since = 0, plan = 0;
	char given[600];
	int rc;

	if ((rc = pipe_rule_since(db, "inbound_callback", id, "received", &since)) != 0)
		return rc;
	if (pipe_rule_retry_plan(since, clock_now(), attempts + 1, -1, CHAN_RETRY, &plan) &&
	    !keep) {
		snprintf(given, sizeof given,
		         _("given up after %1$lld attempt(s) over the give-up "
		           "horizon (pipeline_give_up_seconds): %2$s"),
		         (long long)attempts + 1, why ? why : "");
		if (final)
			*final = inbox_state_word(INBOX_DEAD);
		return mark(db, id, INBOX_DEAD, given, 0, 0, dead_kind ? dead_kind : "transient",
		            moved);
	}
	if (final)
		*final = inbox_state_word(INBOX_FAILED);
	return mark(db, id, INBOX_FAILED, why, wait > 0 ? wait : plan, 0, NULL, moved);
}

int inbox_mark(struct db *db, int64_t id, const struct inbox_verdict *v, const char **final,
               int *moved)
{
	const char *status = inbox_state_word(v->state);
	int rc;

	switch (v->state) {
	case INBOX_FAILED: /* failed, or dead past the give-up horizon */
		rc = inbox_mark_failed(db, id, v->attempts, v->why, v->wait, v->keep, v->dead_kind,
		                       &status, moved);
		break;
	case INBOX_PARKED:
		rc = inbox_mark_parked(db, id, v->why, v->wait, v->parked_until, moved);
		break;
	case INBOX_PROCESSED:
		rc = inbox_mark_processed(db, id, v->why, moved);
		break;
	case INBOX_IGNORED:
		rc = inbox_mark_ignored(db, id, v->why, moved);
		break;
	default:
		rc = inbox_mark_dead(db, id, v->why, v->dead_kind, moved);
		status = inbox_state_word(INBOX_DEAD);
		break;
	}
	if (final)
		*final = status;
	return rc;
}

int inbox_mark_claimed(struct db *db, int64_t id, const char *why, int *moved)
{
	sqlite3_stmt *st;
	int rc;

	rc =
	    db_prepare_cached(db,
	                      "UPDATE inbound_callback SET status = 'processed', processed_at = ?2,"
	                      " next_attempt_at = NULL, updated_at = ?2, last_error = ?3"
	                      " WHERE id = ?1 AND status IN ('parked', 'dead')",
	                      &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, clock_now());
	bind_opt(st, 3, why);
	return db_run_moved(db, st, _("marking the event claimed"), moved);
}
