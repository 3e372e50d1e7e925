/*
 * idem.c - idempotency records (see idem.h).
 *
 * Invariant: a 'success' record and the money rows it answers for are
 * committed together or not at all (idem_run keeps them in one transaction),
 * so a replay can never point at rows that do not exist, and a crash between
 * the two cannot happen. The stored response is a small JSON document
 * {"id": N, "ids": [...]} that only this file reads and writes.
 *
 * Permissions: none asked here; the function whose body idem_run runs asks
 * its own, first in that body.
 */
#include <config.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "crypto-dyn.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "idem.h"
#include "text.h"
#include "words.h"
#include "xalloc.h"

/* The stored word of each state, once. */
static const char *const idem_words[IDEM_STATES] = {
    [IDEM_PROCESSING] = "processing",
    [IDEM_SUCCESS] = "success",
    [IDEM_FAILED] = "failed",
};

enum idem_state idem_state_of(const char *word)
{
	return (enum idem_state)words_index(idem_words, IDEM_STATES, word);
}

const char *idem_state_word(enum idem_state s)
{
	return s < IDEM_STATES ? idem_words[s] : "";
}

void idem_result_add(struct idem_result *r, int64_t id)
{
	r->ids = xrealloc(r->ids, (r->n + 1) * sizeof *r->ids);
	r->ids[r->n++] = id;
}

void idem_result_free(struct idem_result *r)
{
	free(r->ids);
	memset(r, 0, sizeof *r);
}

int idem_hash(const char *canonical, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;
	int rc;

	out[0] = '\0';
	if ((rc = crypto_load()) != 0)
		return rc;
	if (!EVP_Digest(canonical, strlen(canonical), md, &n, EVP_sha256(), NULL) || n != 32)
		return err_set(FD_EIO, "%s", _("the request could not be hashed"));
	for (i = 0; i < n && i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[2 * i] = '\0';
	return 0;
}

int idem_check_key(const char *key)
{
	if (!key || !*key)
		return err_set(FD_EINVAL, _("the idempotency key is empty"));
	return text_check_id(key, _("the idempotency key"), 200, 0);
}

static char holder[160];

/* Fill holder, once per process (pthread_once, as db_operator). */
static void find_holder(void)
{
	char host[64];

	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "localhost");
	host[sizeof host - 1] = '\0';
	snprintf(holder, sizeof holder, "%s@%s:%ld", db_operator(), host, (long)getpid());
}

const char *idem_holder(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, find_holder);
	return holder;
}

static char *encode(const struct idem_result *r)
{
	cJSON *o = cJSON_CreateObject(), *a;
	char *s, *out;
	size_t i;

	cJSON_AddNumberToObject(o, "id", (double)r->id);
	a = cJSON_AddArrayToObject(o, "ids");
	for (i = 0; i < r->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)r->ids[i]));
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!s)
		return NULL;
	out = xstrdup(s);
	cJSON_free(s);
	return out;
}

/* ids are rowids well below 2^53, so a JSON number holds them exactly */
static int decode(const char *json, struct idem_result *r)
{
	cJSON *o = cJSON_Parse(json), *id, *ids, *it;
	int rc = 0;

	memset(r, 0, sizeof *r);
	id = cJSON_GetObjectItem(o, "id");
	ids = cJSON_GetObjectItem(o, "ids");
	if (!o || !cJSON_IsNumber(id) || !cJSON_IsArray(ids)) {
		rc = err_set(FD_EDB, _("the stored idempotency response is damaged"));
		goto out;
	}
	r->id = (int64_t)id->valuedouble;
	cJSON_ArrayForEach(it, ids)
	{
		if (!cJSON_IsNumber(it)) {
			idem_result_free(r);
			rc = err_set(FD_EDB, _("the stored idempotency response is damaged"));
			goto out;
		}
		idem_result_add(r, (int64_t)it->valuedouble);
	}
out:
	cJSON_Delete(o);
	return rc;
}

int idem_enter(struct db *db, const char *key, const char *scene, const char *hash, char **response)
{
	sqlite3_stmt *st;
	int rc, step;
	const char *r_scene, *r_hash, *r_status, *r_holder;
	enum idem_state state;
	int64_t hold_until;

	*response = NULL;
	rc = db_prepare_cached(db,
	                       "SELECT scene, request_hash, status, response, holder, hold_until"
	                       " FROM idempotency_record WHERE key = ?",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_DONE) {
		rc = IDEM_NEW;
		goto out;
	}
	if (step != SQLITE_ROW) {
		rc = db_fail(db, _("cannot read the idempotency record"));
		goto out;
	}
	r_scene = (const char *)sqlite3_column_text(st, 0);
	r_hash = (const char *)sqlite3_column_text(st, 1);
	r_status = (const char *)sqlite3_column_text(st, 2);
	state = idem_state_of(r_status);
	r_holder = (const char *)sqlite3_column_text(st, 4);
	hold_until = sqlite3_column_int64(st, 5);
	if (!r_scene || !r_hash || !r_status || strcmp(r_scene, scene) || strcmp(r_hash, hash)) {
		rc = err_set(FD_ECONFLICT,
		             _("the idempotency key '%.60s' was already used for a different "
		               "request (%.40s); use a new key for a new request"),
		             key, r_scene ? r_scene : "?");
	} else if (state == IDEM_SUCCESS) {
		*response = dbrow_dup(st, 3);
		rc = *response ? IDEM_REPLAY
		               : err_set(FD_EDB, _("the stored idempotency response is missing"));
	} else if (state == IDEM_PROCESSING && r_holder && strcmp(r_holder, idem_holder()) != 0 &&
	           hold_until > clock_real()) {
		rc = err_set(FD_EINPROGRESS,
		             _("the request with idempotency key '%.60s' is still in progress "
		               "(held by %.80s for %lld more second(s)); try again in a moment"),
		             key, r_holder, (long long)(hold_until - clock_real()));
	} else {
		rc = IDEM_NEW; /* failed, expired, or ours: may be (re)tried */
	}
out:
	db_release(db, st);
	return rc;
}

int idem_finish(struct db *db, const char *key, const char *scene, const char *hash,
                const char *response)
{
	sqlite3_stmt *st;
	int64_t now = clock_now();
	int rc;

	rc = db_prepare_cached(
	    db,
	    "INSERT INTO idempotency_record (key, scene, request_hash, status, response,"
	    " holder, hold_until, created_at, updated_at)"
	    " VALUES (?1, ?2, ?3, 'success', ?4, ?5, NULL, ?6, ?6)"
	    " ON CONFLICT (key) DO UPDATE SET status = 'success',"
	    " response = excluded.response, holder = excluded.holder, hold_until = NULL,"
	    " updated_at = excluded.updated_at",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, scene, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, response, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, idem_holder(), -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, now);
	return db_run_cached(db, st, _("cannot store the idempotency record"));
}

int idem_run(struct db *db, const char *key, const char *scene, const char *canonical,
             int (*fn)(struct db *db, void *arg, struct idem_result *res), void *arg,
             struct idem_result *res)
{
	char hash[65], *stored = NULL, *resp = NULL;
	int rc;

	memset(res, 0, sizeof *res);
	if (key && (rc = idem_check_key(key)) != 0)
		return rc;
	/* without a key the request is never compared */
	if (key && (rc = idem_hash(canonical, hash)) != 0)
		return rc;
	if ((rc = db_begin_write(db)) != 0)
		return rc;
	if (key) {
		rc = idem_enter(db, key, scene, hash, &stored);
		if (rc == IDEM_REPLAY) {
			db_rollback(db);
			rc = decode(stored, res);
			free(stored);
			if (rc == 0)
				res->replayed = 1;
			return rc;
		}
		if (rc)
			goto fail;
	}
	if ((rc = fn(db, arg, res)) != 0)
		goto fail;
	if (key) {
		resp = encode(res);
		if (!resp) {
			rc = err_set(FD_EDB, _("cannot encode the idempotency response"));
			goto fail;
		}
		rc = idem_finish(db, key, scene, hash, resp);
		free(resp);
		if (rc)
			goto fail;
	}
	if ((rc = db_commit(db)) != 0)
		goto fail_committed;
	return 0;
fail:
	db_rollback(db);
fail_committed:
	idem_result_free(res);
	return rc;
}

struct begin_ctx {
	const char *key, *scene, *hash;
	int hold_secs;
	char *response;
};

static int begin_tx(struct db *db, void *arg)
{
	struct begin_ctx *b = arg;
	sqlite3_stmt *st;
	int64_t now = clock_now();
	int rc;

	rc = idem_enter(db, b->key, b->scene, b->hash, &b->response);
	if (rc)
		return rc; /* replay (nothing to write) or refusal */
	rc = db_prepare(
	    db,
	    "INSERT INTO idempotency_record (key, scene, request_hash, status, response,"
	    " holder, hold_until, created_at, updated_at)"
	    " VALUES (?1, ?2, ?3, 'processing', NULL, ?4, ?5, ?6, ?6)"
	    " ON CONFLICT (key) DO UPDATE SET status = 'processing', holder = excluded.holder,"
	    " hold_until = excluded.hold_until, updated_at = excluded.updated_at",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, b->key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, b->scene, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, b->hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, idem_holder(), -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 5, clock_real() + b->hold_secs);
	sqlite3_bind_int64(st, 6, now);
	return db_run(db, st, _("cannot hold the idempotency key"));
}

int idem_begin(struct db *db, const char *key, const char *scene, const char *hash, int hold_secs,
               char **response)
{
	struct begin_ctx b = {key, scene, hash, hold_secs > 0 ? hold_secs : 1, NULL};
	int rc;

	*response = NULL;
	if ((rc = idem_check_key(key)) != 0)
		return rc;
	rc = db_write(db, begin_tx, &b);
	if (rc == IDEM_REPLAY)
		*response = b.response;
	else
		free(b.response);
	return rc;
}

static int fail_tx(struct db *db, void *arg)
{
	const char *key = arg;
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare(db,
	                "UPDATE idempotency_record SET status = 'failed', hold_until = NULL,"
	                " updated_at = ?1 WHERE key = ?2 AND status = 'processing' AND holder = ?3",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, clock_now());
	sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, idem_holder(), -1, SQLITE_TRANSIENT);
	if ((rc = db_run(db, st, _("cannot mark the idempotency key failed"))) != 0)
		return rc;
	if (sqlite3_changes(db_sqlite(db)) != 1)
		return err_set(FD_ECONFLICT,
		               _("the idempotency key '%.60s' is not held by this process"), key);
	return 0;
}

int idem_fail(struct db *db, const char *key)
{
	return db_write(db, fail_tx, (void *)key);
}
