/*
 * pipe-provider.c - the provider registry and opening adapters (see
 * pipe-provider.h).
 *
 * Invariants: secrets are read from the secrets file at open time and live
 * only in the adapter's memory; nothing here stores or prints them.
 *
 * Permissions: changing a provider asks providers, first in the transaction.
 */
#include <config.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "err.h"
#include "esign.h"
#include "i18n.h"
#include "inbox.h"
#include "pipe-http.h"
#include "pipe-log.h"
#include "pipe-provider.h"
#include "pipe-secret.h"
#include "settings.h"
#include "xalloc.h"

struct set_ctx {
	const char *type;
	const char *code;
	const struct pipe_provider_change *ch;
};

static int set_tx(struct db *db, void *arg)
{
	struct set_ctx *s = arg;
	const struct pipe_provider_change *ch = s->ch;
	sqlite3_stmt *st;
	int64_t now = clock_now();
	int rc, exists;
	char *settings = NULL, subject[96];

	snprintf(subject, sizeof subject, "change the %.16s provider %.40s", s->type, s->code);
	if ((rc = control_require(db, PERM_PROVIDERS, 0, subject)) != 0)
		return rc;
	rc = db_prepare(db,
	                "SELECT settings FROM integration_provider WHERE integration_type = ?2"
	                " AND provider_code = ?1",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, s->code, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, s->type, -1, SQLITE_TRANSIENT);
	exists = sqlite3_step(st) == SQLITE_ROW;
	if (ch->adapter || ch->card_page || ch->sign_type || ch->shop) {
		/* the adapter, the card page and the sign type are keys of the
		 * settings; the others are kept */
		cJSON *set = exists ? cJSON_Parse((const char *)sqlite3_column_text(st, 0)) : NULL;

		if (!cJSON_IsObject(set)) {
			cJSON_Delete(set);
			set = cJSON_CreateObject();
		}
		if (ch->adapter) {
			cJSON_DeleteItemFromObjectCaseSensitive(set, "adapter");
			cJSON_AddStringToObject(set, "adapter", ch->adapter);
		}
		if (ch->card_page) {
			cJSON_DeleteItemFromObjectCaseSensitive(set, "card_page");
			cJSON_AddStringToObject(set, "card_page", ch->card_page);
		}
		if (ch->sign_type) {
			cJSON_DeleteItemFromObjectCaseSensitive(set, "sign_type");
			cJSON_AddStringToObject(set, "sign_type", ch->sign_type);
		}
		if (ch->shop) {
			cJSON_DeleteItemFromObjectCaseSensitive(set, "shop");
			cJSON_AddStringToObject(set, "shop", ch->shop);
		}
		settings = cJSON_PrintUnformatted(set);
		cJSON_Delete(set);
	}
	sqlite3_finalize(st);
	if (!exists && !ch->base_url) {
		rc = err_set(FD_EINVAL, _("a new provider needs --url"));
		goto out;
	}
	if (exists)
		rc = db_prepare(
		    db,
		    "UPDATE integration_provider SET base_url = coalesce(?2, base_url),"
		    " role = coalesce(?3, role),"
		    " enabled = CASE WHEN ?4 < 0 THEN enabled ELSE ?4 END, updated_at = ?5,"
		    " rollout_percent = CASE WHEN ?6 < 0 THEN rollout_percent ELSE ?6 END,"
		    " settings = coalesce(?7, settings)"
		    " WHERE integration_type = ?8 AND provider_code = ?1",
		    &st);
	else
		rc = db_prepare(
		    db,
		    "INSERT INTO integration_provider (integration_type, provider_code, role,"
		    " base_url, enabled, created_at, updated_at, rollout_percent, settings)"
		    " VALUES (?8, ?1, coalesce(?3, 'primary'), ?2,"
		    " CASE WHEN ?4 < 0 THEN 1 ELSE ?4 END, ?5, ?5, CASE WHEN ?6 < 0 THEN 100 ELSE "
		    "?6 END,"
		    " coalesce(?7, '{}'))",
		    &st);
	if (rc)
		goto out;
	sqlite3_bind_text(st, 1, s->code, -1, SQLITE_TRANSIENT);
	if (ch->base_url)
		sqlite3_bind_text(st, 2, ch->base_url, -1, SQLITE_TRANSIENT);
	if (ch->role)
		sqlite3_bind_text(st, 3, ch->role, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 4, ch->enabled);
	sqlite3_bind_int64(st, 5, now);
	sqlite3_bind_int(st, 6, ch->rollout);
	if (settings)
		sqlite3_bind_text(st, 7, settings, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 8, s->type, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE) {
		int ext = sqlite3_extended_errcode(db_sqlite(db));

		sqlite3_finalize(st);
		if (ext == SQLITE_CONSTRAINT_UNIQUE)
			rc =
			    err_set(FD_EINVAL, _("another enabled provider is the primary: make it "
			                         "a backup (or disable it) first"));
		else
			rc = db_fail(db, _("cannot save the provider"));
		goto out;
	}
	sqlite3_finalize(st);
out:
	cJSON_free(settings);
	return rc;
}

int pipe_provider_change_type(struct db *db, const char *type, const char *code,
                              const struct pipe_provider_change *ch,
                              int (*adapter_known)(const char *name))
{
	struct set_ctx s = {type, code, ch};
	int rc;

	if ((rc = inbox_source_valid(code)) != 0)
		return rc;
	/* a mail server is reached by SMTP, every other provider by HTTPS */
	if (ch->base_url && (rc = ch->url_ok              ? ch->url_ok(ch->base_url)
	                          : strcmp(type, "email") ? pipe_http_url_ok(ch->base_url)
	                                                  : pipe_mail_url_ok(ch->base_url)) != 0)
		return rc;
	if (ch->base_url && strlen(ch->base_url) > 400)
		return err_set(FD_EINVAL, _("the URL is longer than 400 characters"));
	if (ch->role && strcmp(ch->role, "primary") && strcmp(ch->role, "backup"))
		return err_set(FD_EINVAL, _("the role is primary or backup"));
	if (ch->rollout < -1 || ch->rollout > 100)
		return err_set(FD_EINVAL,
		               _("the rollout is a percentage: a whole number from 0 to 100"));
	if (!adapter_known)
		return err_set(FD_EINVAL, _("frontdesk has no providers of type '%s' yet"), type);
	if (ch->adapter && !adapter_known(ch->adapter))
		return err_set(FD_EINVAL, _("there is no channel adapter '%s'"), ch->adapter);
	if (ch->card_page && strcmp(ch->card_page, "checkout") && strcmp(ch->card_page, "intent"))
		return err_set(FD_EINVAL, _("the card page is checkout or intent"));
	if (ch->sign_type && strcmp(ch->sign_type, "HMAC-SHA256") && strcmp(ch->sign_type, "MD5"))
		return err_set(FD_EINVAL, _("the sign type is HMAC-SHA256 or MD5"));
	return db_write(db, set_tx, &s);
}

#define PROVIDER_COLS                                                                              \
	"id, provider_code, role, base_url, settings, enabled, updated_at, integration_type,"      \
	" rollout_percent"

static void fill(sqlite3_stmt *st, struct pipe_provider *p)
{
	memset(p, 0, sizeof *p);
	p->id = sqlite3_column_int64(st, 0);
	snprintf(p->code, sizeof p->code, "%s", (const char *)sqlite3_column_text(st, 1));
	snprintf(p->role, sizeof p->role, "%s", (const char *)sqlite3_column_text(st, 2));
	p->base_url = xstrdup((const char *)sqlite3_column_text(st, 3));
	p->settings = xstrdup((const char *)sqlite3_column_text(st, 4));
	p->enabled = sqlite3_column_int(st, 5);
	p->updated_at = sqlite3_column_int64(st, 6);
	snprintf(p->type, sizeof p->type, "%s", (const char *)sqlite3_column_text(st, 7));
	p->rollout = sqlite3_column_int(st, 8);
}

int pipe_provider_get(struct db *db, const char *code, struct pipe_provider *out)
{
	return pipe_provider_get_type(db, CHAN_TYPE_PAYMENT, code, out);
}

int pipe_provider_get_type(struct db *db, const char *type, const char *code,
                           struct pipe_provider *out)
{
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	/* no code: the enabled primary, else the first enabled backup */
	rc = db_prepare(db,
	                "SELECT " PROVIDER_COLS " FROM integration_provider"
	                " WHERE integration_type = ?2 AND (?1 IS NULL AND enabled = 1"
	                " OR provider_code = ?1) ORDER BY role = 'primary' DESC, provider_code"
	                " LIMIT 1",
	                &st);
	if (rc)
		return rc;
	if (code)
		sqlite3_bind_text(st, 1, code, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, type, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		fill(st, out);
	else if (step == SQLITE_DONE && strcmp(type, CHAN_TYPE_PAYMENT))
		rc = code ? err_set(FD_ENOTFOUND, _("there is no %s provider '%s'"), type, code)
		          : err_set(FD_ENOTFOUND, _("no %s provider is enabled"), type);
	else if (step == SQLITE_DONE)
		rc = code ? err_set(FD_ENOTFOUND,
		                    _("there is no payment provider '%s' (add it with "
		                      "'frontdesk channel provider set %s --url URL')"),
		                    code, code)
		          : err_set(FD_ENOTFOUND,
		                    _("no payment provider is set up (add one with "
		                      "'frontdesk channel provider set CODE --url URL')"));
	else
		rc = db_fail(db, _("cannot read the providers"));
	sqlite3_finalize(st);
	return rc;
}

/* A stable bucket 0..99 of an order number (FNV-1a, 32 bits): the same
 * number always lands in the same bucket, on every machine. */
static unsigned bucket_of(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h % 100;
}

int pipe_provider_route(struct db *db, const char *order_no, char code[41])
{
	return pipe_provider_route_type(db, CHAN_TYPE_PAYMENT, order_no, code);
}

int pipe_provider_pick(struct db *db, const char *type, const char *named, const char *kind,
                       const char *ref, char code[41])
{
	struct pipe_provider p;
	int rc;

	if (!named)
		return pipe_provider_route_type(db, type, ref, code);
	if ((rc = pipe_provider_get_type(db, type, named, &p)))
		return rc;
	snprintf(code, 41, "%s", p.code);
	rc = p.enabled
	         ? 0
	         : err_set(FD_EINVAL, _("the %1$s provider '%2$s' is disabled"), kind, p.code);
	pipe_provider_free(&p);
	return rc;
}

int pipe_provider_route_type(struct db *db, const char *type, const char *order_no, char code[41])
{
	sqlite3_stmt *st;
	char primary[41] = "", backup[41] = "";
	int rc, step, rollout = 0;

	code[0] = '\0';
	rc = db_prepare_cached(
	    db,
	    "SELECT provider_code, role, rollout_percent FROM integration_provider"
	    " WHERE integration_type = ?1 AND enabled = 1"
	    " ORDER BY role = 'primary' DESC, provider_code",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, type, -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);

		if (!strcmp((const char *)sqlite3_column_text(st, 1), "primary")) {
			snprintf(primary, sizeof primary, "%s", c);
			rollout = sqlite3_column_int(st, 2);
		} else if (!*backup) {
			snprintf(backup, sizeof backup, "%s", c);
		}
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the providers"));
	db_release(db, st);
	if (rc)
		return rc;
	if (*primary && (!*backup || bucket_of(order_no) < (unsigned)rollout))
		snprintf(code, 41, "%s", primary);
	else if (*backup)
		snprintf(code, 41, "%s", backup);
	else if (strcmp(type, CHAN_TYPE_PAYMENT))
		return err_set(FD_EINVAL, _("no %s provider is enabled"), type);
	else
		return err_set(
		    FD_EINVAL,
		    _("no payment provider is enabled: enable one with 'frontdesk channel "
		      "provider-set CODE --enable'"));
	return 0;
}

int64_t pipe_provider_failing_limit(void)
{
	long v = config_get_int("channel_failing_report_seconds", PIPE_FAILING_REPORT_DEFAULT);

	return v < 0 ? 0 : (int64_t)v;
}

int pipe_provider_failing_each(struct db *db, int64_t now,
                               int (*cb)(const char *code, int64_t since, void *arg), void *arg)
{
	/* a few rows of two small tables: cheap enough for every tick */
	static const char sql[] =
	    "SELECT p.provider_code, s.failing_since FROM integration_provider p"
	    " JOIN channel_state s ON s.provider_code = p.provider_code"
	    " WHERE p.integration_type = '" CHAN_TYPE_PAYMENT "' AND p.enabled = 1"
	    " AND s.failing_since IS NOT NULL AND s.failing_since <= ?1"
	    " ORDER BY p.role = 'primary' DESC, p.provider_code";
	sqlite3_stmt *st;
	int rc, step, n = 0;

	rc = db_prepare_cached(db, sql, &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, now - pipe_provider_failing_limit());
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		n++;
		if (cb && (rc = cb((const char *)sqlite3_column_text(st, 0),
		                   sqlite3_column_int64(st, 1), arg)) != 0)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the channel state"));
	db_release(db, st);
	return rc ? rc : n;
}

int pipe_provider_failing(struct db *db, const char *code, int64_t now, int64_t *since,
                          int *reported)
{
	sqlite3_stmt *st;
	int64_t limit = pipe_provider_failing_limit();
	int rc;

	*since = 0;
	*reported = 0;
	rc = db_prepare_cached(db,
	                       "SELECT coalesce(failing_since, 0) FROM channel_state"
	                       " WHERE provider_code = ?1",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, code, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		*since = sqlite3_column_int64(st, 0);
	db_release(db, st);
	*reported = *since > 0 && now - *since >= limit;
	return 0;
}

int pipe_provider_list(struct db *db, int (*cb)(const struct pipe_provider *p, void *arg),
                       void *arg)
{
	return pipe_provider_list_type(db, CHAN_TYPE_PAYMENT, cb, arg);
}

int pipe_provider_list_type(struct db *db, const char *type,
                            int (*cb)(const struct pipe_provider *p, void *arg), void *arg)
{
	sqlite3_stmt *st;
	struct pipe_provider p;
	int rc, step;

	rc = db_prepare(db,
	                "SELECT " PROVIDER_COLS " FROM integration_provider"
	                " WHERE integration_type = ?1"
	                " ORDER BY enabled DESC, role = 'primary' DESC, provider_code",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, type, -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		fill(st, &p);
		rc = cb(&p, arg);
		pipe_provider_free(&p);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list the providers"));
	sqlite3_finalize(st);
	return rc;
}

void pipe_provider_free(struct pipe_provider *p)
{
	free(p->base_url);
	free(p->settings);
	p->base_url = p->settings = NULL;
}

int pipe_conn_begin(struct db *db, const char *type, const char *code, const char *secrets,
                    const char *kind, struct pipe_conn *c, struct pipe_secrets **sec,
                    const char **api_key)
{
	char *logpath, key[64];
	int rc;

	memset(c, 0, sizeof *c);
	*sec = NULL;
	*api_key = NULL;
	if ((rc = pipe_provider_get_type(db, type, code, &c->p)) != 0)
		return rc;
	if (!c->p.enabled) {
		rc = err_set(FD_EINVAL, _("the %1$s provider '%2$s' is disabled"), kind, c->p.code);
		goto out;
	}
	logpath = pipe_log_default_path(db_path(db));
	rc = pipe_log_open(logpath, &c->log);
	free(logpath);
	if (rc || (rc = pipe_secret_load(secrets, sec)) != 0)
		goto out;
	snprintf(key, sizeof key, "%s_api_key", c->p.code);
	rc = pipe_secret_need(*sec, key, api_key);
out:
	if (rc) {
		pipe_secret_free(*sec);
		*sec = NULL;
		*api_key = NULL;
		pipe_conn_close(c);
	}
	return rc;
}

void pipe_conn_close(struct pipe_conn *c)
{
	if (c->ctx)
		c->ops->close(c->ctx);
	if (c->ectx)
		c->eops->close(c->ectx);
	if (c->mctx && c->mfree)
		c->mfree(c->mctx);
	pipe_log_close(c->log);
	pipe_provider_free(&c->p);
	memset(c, 0, sizeof *c);
}
