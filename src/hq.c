/*
 * hq.c - the chain's head office (see hq.h): its PostgreSQL schema and
 * status, a shop joining it, and the shop's changes queued and sent to it
 * through the pipeline.
 *
 * PostgreSQL is spoken through libpq (pq-dyn.h: loaded when first needed).
 * Nothing here builds SQL from values: every value is a parameter of
 * PQexecParams, and the only names put into SQL text are the table names
 * of hq_tables, which are ours.
 */
#include <config.h>

#include <cjson/cJSON.h>
#include <ctype.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pq-dyn.h"

#include "channel.h"
#include "clock.h"
#include "commission.h"
#include "control.h"
#include "db.h"
#include "err.h"
#include "hq.h"
#include "i18n.h"
#include "migrate.h"
#include "outbox.h"
#include "pipe-provider.h"
#include "pipe-rule.h"
#include "pipe-secret.h"
#include "pipe.h"
#include "retention-mod.h"
#include "stopflag.h"
#include "strbuf.h"
#include "xalloc.h"

extern const struct migration fd_hq_migrations[];
extern const int fd_n_hq_migrations;

const char *const hq_tables[] = {
    "customer",  "service_order",       "appointment", "appointment_work",    "line_item",
    "invoice",   "invoice_line",        "payment",     "payment_allocation",  "refund",
    "pay_order", "reconciliation_diff", "resource",    "appointment_resource"};
const size_t hq_ntables = sizeof hq_tables / sizeof *hq_tables;

struct hq_pg {
	PGconn *conn;
};

/* The integer in row i, column k of a result (0 when it is not one). */
static int64_t pg_num(const PGresult *r, int i, int k)
{
	return strtoll(PQgetvalue(r, i, k), NULL, 10);
}

/* ------------------------------------------------------------ addresses */

/* s as one line of at most n-1 bytes: control characters as blanks. */
static void one_line(const char *s, char *out, size_t n)
{
	size_t i = 0;

	for (; s && *s && i + 1 < n; s++)
		out[i++] = (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s;
	while (i && out[i - 1] == ' ')
		i--;
	out[i] = '\0';
}

/* 1 when host names this machine: a socket folder, loopback, no host. */
static int host_local(const char *h)
{
	return !h || !*h || *h == '/' || *h == '@' || !strcmp(h, "localhost") ||
	       !strcmp(h, "127.0.0.1") || !strcmp(h, "::1");
}

/* Read url: *remote 1 when a host is not local, *sslmode set when the
 * address names one. 0, FD_EINVAL, or FD_EIO (libpq missing). */
static int url_read(const char *url, int *remote, int *sslmode)
{
	PQconninfoOption *opts, *o;
	char *why = NULL, msg[300];
	int rc = 0;

	*remote = *sslmode = 0;
	if (!url || !*url || strlen(url) > 400)
		return err_set(FD_EINVAL, "%s",
		               _("the head office's address is a PostgreSQL address of 1 to 400 "
		                 "characters (postgresql://host/database)"));
	if ((rc = pq_load(_("the head office"))) != 0)
		return rc;
	if (!(opts = PQconninfoParse(url, &why))) {
		one_line(why ? why : "", msg, sizeof msg);
		if (why)
			PQfreemem(why);
		return err_set(FD_EINVAL, _("not a PostgreSQL address: %s"), msg);
	}
	for (o = opts; o->keyword; o++) {
		if (!o->val)
			continue;
		if (!strcmp(o->keyword, "password") && *o->val)
			rc = err_set(FD_EINVAL, "%s",
			             _("the address holds a password: put it in the secrets file "
			               "(CODE_password) or in ~/.pgpass, never in the address"));
		else if (!strcmp(o->keyword, "sslmode"))
			*sslmode = strcmp(o->val, "verify-full") ? 2 : 1;
		else if (!strcmp(o->keyword, "host") || !strcmp(o->keyword, "hostaddr")) {
			char h[256];
			const char *p = o->val;

			while (*p) { /* a list of hosts: each one */
				size_t k = strcspn(p, ",");

				snprintf(h, sizeof h, "%.*s",
				         (int)(k < sizeof h ? k : sizeof h - 1), p);
				if (!host_local(h))
					*remote = 1;
				p += k;
				p += *p == ',';
			}
		}
	}
	PQconninfoFree(opts);
	if (!rc && *remote && *sslmode == 2)
		rc = err_set(FD_EINVAL, "%s",
		             _("the head office is on another machine: its server is verified "
		               "(sslmode=verify-full, the default); a weaker sslmode is refused"));
	return rc;
}

int hq_url_ok(const char *url)
{
	int remote, sslmode;

	return url_read(url, &remote, &sslmode);
}

/* ------------------------------------------------------------ the server */

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message; /* a NOTICE never reaches the terminal */
}

int hq_pg_open(const char *url, const char *password, struct hq_pg **out)
{
	const char *keys[6], *vals[6];
	int remote, sslmode, n = 0, rc;
	char msg[300];
	PGconn *conn;

	*out = NULL;
	if ((rc = url_read(url, &remote, &sslmode)) != 0)
		return rc;
	keys[n] = "dbname", vals[n++] = url; /* read as the whole address */
	keys[n] = "connect_timeout", vals[n++] = "10";
	keys[n] = "application_name", vals[n++] = "frontdesk";
	if (remote && !sslmode)
		keys[n] = "sslmode", vals[n++] = "verify-full";
	if (password && *password)
		keys[n] = "password", vals[n++] = password;
	keys[n] = NULL, vals[n] = NULL;
	conn = PQconnectdbParams(keys, vals, 1);
	if (!conn)
		return err_set(FD_EIO, "%s", _("cannot reach the head office: out of memory"));
	if (PQstatus(conn) != CONNECTION_OK) {
		one_line(PQerrorMessage(conn), msg, sizeof msg);
		PQfinish(conn);
		return err_set(FD_EIO, _("cannot reach the head office: %s"), msg);
	}
	PQsetNoticeProcessor(conn, quiet, NULL);
	*out = xcalloc(1, sizeof **out);
	(*out)->conn = conn;
	return 0;
}

void hq_pg_close(struct hq_pg *h)
{
	if (!h)
		return;
	PQfinish(h->conn);
	free(h);
}

/* 1 when the failure of r may pass: the connection lost or refused, the
 * server shutting down, out of resources, a serialization failure. */
static int transient(struct hq_pg *h, PGresult *r)
{
	const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

	if (PQstatus(h->conn) != CONNECTION_OK || !state)
		return 1;
	return !strncmp(state, "08", 2) || !strncmp(state, "57", 2) || !strncmp(state, "53", 2) ||
	       !strncmp(state, "40", 2);
}

/* 0 when r is a success; else the reason in err_msg: FD_EIO when it may
 * pass (transient), FD_EINVAL when the head office refuses. r is kept. */
static int pg_result(struct hq_pg *h, PGresult *r, const char *what)
{
	ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
	char msg[400];

	if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
		return 0;
	one_line(r ? PQresultErrorMessage(r) : PQerrorMessage(h->conn), msg, sizeof msg);
	return err_set(transient(h, r) ? FD_EIO : FD_EINVAL, "%s: %s", what, msg);
}

/* Run sql (no parameters, no rows wanted). */
static int pg_do(struct hq_pg *h, const char *sql, const char *what)
{
	PGresult *r = PQexec(h->conn, sql);
	int rc = pg_result(h, r, what);

	PQclear(r);
	return rc;
}

/* ---------------------------------------------------------------- init */

/* The schema's migrations, each once, in one transaction that holds the
 * head office's migration lock. */
static int migrate(struct hq_pg *h, int *applied, int *version)
{
	const char *what = _("cannot bring the head office's schema up to date");
	PGresult *r;
	int rc, i, n, have = 0;

	*applied = 0;
	if ((rc = pg_do(h,
	                "BEGIN; SELECT pg_advisory_xact_lock(727100001);"
	                " CREATE TABLE IF NOT EXISTS hq_migration (version int PRIMARY KEY,"
	                " name text NOT NULL, sha256 text NOT NULL,"
	                " applied_at timestamptz NOT NULL DEFAULT now())",
	                what)) != 0)
		goto fail;
	r = PQexec(h->conn, "SELECT version, sha256 FROM hq_migration ORDER BY version");
	if ((rc = pg_result(h, r, what)) != 0) {
		PQclear(r);
		goto fail;
	}
	n = PQntuples(r);
	for (i = 0; i < n && !rc; i++) {
		int v = atoi(PQgetvalue(r, i, 0));

		if (v < 1 || v > fd_n_hq_migrations)
			rc = err_set(
			    FD_EINVAL,
			    _("the head office's schema is at version %1$d, newer than this "
			      "frontdesk's %2$d: use a newer frontdesk"),
			    v, fd_n_hq_migrations);
		else if (strcmp(PQgetvalue(r, i, 1), fd_hq_migrations[v - 1].sum))
			rc = err_set(
			    FD_EINVAL,
			    _("the head office's migration %d is not the one this frontdesk "
			      "has (a landed migration is never changed)"),
			    v);
		else if (v > have)
			have = v;
	}
	PQclear(r);
	if (rc)
		goto fail;
	for (i = have; i < fd_n_hq_migrations; i++) {
		const struct migration *m = &fd_hq_migrations[i];
		char ver[16];
		const char *p[3] = {ver, m->name, m->sum};

		if ((rc = pg_do(h, m->sql, what)) != 0)
			goto fail;
		snprintf(ver, sizeof ver, "%d", m->version);
		r = PQexecParams(
		    h->conn, "INSERT INTO hq_migration (version, name, sha256) VALUES ($1, $2, $3)",
		    3, NULL, p, NULL, NULL, 0);
		rc = pg_result(h, r, what);
		PQclear(r);
		if (rc)
			goto fail;
		(*applied)++;
	}
	if ((rc = pg_do(h, "COMMIT", what)) != 0)
		goto fail;
	*version = fd_n_hq_migrations;
	return 0;
fail : {
	PGresult *rb = PQexec(h->conn, "ROLLBACK");

	PQclear(rb);
}
	*applied = 0;
	return rc;
}

int hq_init(const char *url, int *applied, int *version)
{
	struct hq_pg *h;
	int rc;

	*applied = *version = 0;
	if ((rc = hq_pg_open(url, NULL, &h)) != 0)
		return rc;
	rc = migrate(h, applied, version);
	hq_pg_close(h);
	return rc;
}

/* 0 when the head office's schema is the one this program knows, or newer. */
static int schema_current(struct hq_pg *h)
{
	PGresult *r = PQexec(h->conn, "SELECT coalesce(max(version), 0) FROM hq_migration");
	int rc = 0, v;

	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		rc = transient(h, r)
		         ? pg_result(h, r, _("cannot read the head office"))
		         : err_set(FD_EINVAL, "%s",
		                   _("that database is not a head office yet: frontdesk "
		                     "hq init --pg URL"));
		PQclear(r);
		return rc;
	}
	v = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	/* a newer head office serves an older shop: migrations only add */
	if (v < fd_n_hq_migrations)
		return err_set(FD_EINVAL,
		               _("the head office's schema is at version %1$d and this frontdesk's "
		                 "at %2$d: run frontdesk hq init --pg URL with the newer one"),
		               v, fd_n_hq_migrations);
	return 0;
}

/* ---------------------------------------------------------------- join */

static int shop_code_ok(const char *s)
{
	size_t i, n = s ? strlen(s) : 0;

	if (n < 1 || n > 20 || !isalnum((unsigned char)s[0]))
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return 0;
	return 1;
}

/* The password of hq provider code from the secrets file (NULL: none). */
static char *password_of(const char *code, const char *secrets, int *rc)
{
	struct pipe_secrets *sec = NULL;
	char key[64];
	const char *v;
	char *pw = NULL;

	char *path = secrets ? xstrdup(secrets) : pipe_secret_path();
	int there = path && access(path, F_OK) == 0;

	free(path);
	*rc = 0;
	if (there) { /* no file: no password (libpq may still find one) */
		if ((*rc = pipe_secret_load(secrets, &sec)) != 0)
			return NULL;
		snprintf(key, sizeof key, "%s_password", code);
		if ((v = pipe_secret_get(sec, key)) != NULL)
			pw = xstrdup(v);
		pipe_secret_free(sec);
	}
	return pw;
}

int hq_join(struct db *db, const char *code, const char *url, const char *shop, const char *name,
            const char *secrets)
{
	struct pipe_provider_change ch = {0};
	const char *p[2] = {shop, name ? name : ""};
	struct hq_pg *h;
	char *pw;
	PGresult *r;
	int rc;

	if (!shop_code_ok(shop))
		return err_set(FD_EINVAL, "%s",
		               _("the shop's code is 1 to 20 letters, digits, '-' or '_', starting "
		                 "with a letter or digit"));
	if (name && strlen(name) > 200)
		return err_set(FD_EINVAL, "%s", _("the shop's name is at most 200 characters"));
	if ((rc = inbox_source_valid(code)) != 0 || (rc = hq_url_ok(url)) != 0)
		return rc;
	pw = password_of(code, secrets, &rc);
	if (rc)
		return rc;
	rc = hq_pg_open(url, pw, &h);
	free(pw);
	if (rc)
		return rc;
	if ((rc = schema_current(h)) == 0) {
		r = PQexecParams(h->conn,
		                 "INSERT INTO hq_shop (code, name) VALUES ($1, $2)"
		                 " ON CONFLICT (code) DO UPDATE SET name = excluded.name"
		                 " WHERE excluded.name <> ''",
		                 2, NULL, p, NULL, NULL, 0);
		rc = pg_result(h, r, _("the head office refused the shop"));
		PQclear(r);
	}
	hq_pg_close(h);
	if (rc)
		return rc;
	ch.base_url = url;
	ch.enabled = 1;
	ch.rollout = -1;
	ch.adapter = "postgresql";
	ch.shop = shop;
	ch.url_ok = hq_url_ok;
	return pipe_change_provider(db, HQ_TYPE, code, &ch);
}

/* -------------------------------------------------------- the shop's queue */

struct queue_ctx {
	const char *provider;
	const char *shop;
	int64_t batches;
};

/* Table t's cursor and epoch (0, 0 when it has no hq_sync row yet). */
static int sync_row(struct db *db, const char *t, int64_t *queued_to, int64_t *epoch)
{
	sqlite3_stmt *st;
	int rc;

	*queued_to = *epoch = 0;
	if ((rc = db_prepare(db, "SELECT queued_to, epoch FROM hq_sync WHERE tbl = ?1", &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*queued_to = sqlite3_column_int64(st, 0);
		*epoch = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return 0;
}

/* Table t's newest history row (0 when none). t is one of hq_tables, the
 * only names put into SQL text here. */
static int his_max(struct db *db, const char *t, int64_t *m)
{
	char sql[96];

	snprintf(sql, sizeof sql, "SELECT coalesce(max(his_id), 0) FROM %s_his", t);
	return db_one_int(db, sql, m);
}

int hq_mark(struct db *db, int64_t *mark)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < hq_ntables && !rc; i++)
		rc = his_max(db, hq_tables[i], &mark[i]);
	return rc;
}

int hq_reached(struct db *db, const int64_t *mark)
{
	int64_t queued, epoch;
	size_t i;
	int rc;

	for (i = 0; i < hq_ntables; i++) {
		if ((rc = sync_row(db, hq_tables[i], &queued, &epoch)) != 0)
			return rc;
		if (queued < mark[i])
			return 0;
	}
	return 1;
}

/* Queue table t's history rows after its cursor, HQ_BATCH_ROWS at a time. */
static int queue_table(struct db *db, const char *t, struct queue_ctx *q)
{
	char sql[256], key[64], idem[128], rnd[17], *payload;
	int64_t from = 0, to, rows, epoch = 0;
	sqlite3_stmt *st;
	cJSON *o;
	int rc;

	if ((rc = sync_row(db, t, &from, &epoch)) != 0)
		return rc;
	snprintf(sql, sizeof sql,
	         "SELECT max(his_id), count(*) FROM (SELECT his_id FROM %s_his"
	         " WHERE his_id > ?1 ORDER BY his_id LIMIT %d)",
	         t, HQ_BATCH_ROWS);
	for (;;) {
		if ((rc = db_prepare(db, sql, &st)) != 0)
			return rc;
		sqlite3_bind_int64(st, 1, from);
		if (sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_finalize(st);
			return db_fail(db, _("cannot read the history to send"));
		}
		rows = sqlite3_column_int64(st, 1);
		to = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		if (!rows)
			return 0;
		if ((rc = chan_random_hex(rnd)) != 0)
			return rc;
		snprintf(key, sizeof key, "HQ-%s-%lld-%012lld", t, (long long)epoch, (long long)to);
		snprintf(idem, sizeof idem, "hq-%s-%s-%lld-%s", q->shop, t, (long long)to, rnd);
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "table", t);
		cJSON_AddNumberToObject(o, "from", (double)(from + 1));
		cJSON_AddNumberToObject(o, "to", (double)to);
		cJSON_AddNumberToObject(o, "rows", (double)rows);
		cJSON_AddNumberToObject(o, "epoch", (double)epoch);
		payload = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
		{
			struct outbox_new c = {.type = HQ_TYPE,
			                       .event_type = "hq.apply",
			                       .business_key = key,
			                       .provider = q->provider,
			                       .idem_key = idem,
			                       .payload = payload};

			rc = outbox_enqueue(db, &c, NULL);
		}
		cJSON_free(payload);
		if (rc)
			return rc;
		if ((rc = db_prepare(
		         db,
		         "INSERT INTO hq_sync (tbl, queued_to, updated_at) VALUES (?1, ?2, ?3)"
		         " ON CONFLICT (tbl) DO UPDATE SET queued_to = excluded.queued_to,"
		         " updated_at = excluded.updated_at",
		         &st)) != 0)
			return rc;
		sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, to);
		sqlite3_bind_int64(st, 3, clock_now());
		if ((rc = db_run(db, st, _("cannot move the head office's cursor"))) != 0)
			return rc;
		q->batches++;
		from = to;
		if (q->batches >= HQ_QUEUE_MAX)
			return 0; /* the rest in the next round: the desk waits for no long write */
	}
}

static int queue_tx(struct db *db, void *arg)
{
	struct queue_ctx *q = arg;
	size_t i;
	int rc = 0;

	q->batches = 0;
	for (i = 0; i < hq_ntables && !rc && q->batches < HQ_QUEUE_MAX; i++)
		rc = queue_table(db, hq_tables[i], q);
	return rc;
}

/* 1 when a table has history rows not yet queued (a read: the round
 * writes only when there is something to queue), 0, or FD_E*. */
static int anything_new(struct db *db)
{
	char sql[200];
	sqlite3_stmt *st;
	size_t i;
	int rc, found = 0;

	for (i = 0; i < hq_ntables && !found; i++) {
		snprintf(sql, sizeof sql,
		         "SELECT EXISTS (SELECT 1 FROM %s_his WHERE his_id > coalesce((SELECT"
		         " queued_to FROM hq_sync WHERE tbl = ?1), 0))",
		         hq_tables[i]);
		if ((rc = db_prepare(db, sql, &st)) != 0)
			return rc;
		sqlite3_bind_text(st, 1, hq_tables[i], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_finalize(st);
			return db_fail(db, _("cannot read the history to send"));
		}
		found = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	return found;
}

/* The enabled hq provider's code and the shop's code there. 1 found, 0 none. */
static int provider_cb(const struct pipe_provider *p, void *arg)
{
	struct pipe_provider *out = arg;

	if (!p->enabled || out->code[0])
		return 0;
	snprintf(out->code, sizeof out->code, "%s", p->code);
	out->settings = xstrdup(p->settings ? p->settings : "{}");
	return 0;
}

/* The shop's code in settings (JSON), copied to out[21]; 0 or FD_EINVAL. */
static int shop_of(const char *settings, char out[21])
{
	cJSON *s = cJSON_Parse(settings ? settings : "");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(s, "shop");
	int ok = cJSON_IsString(v) && shop_code_ok(v->valuestring);

	if (ok)
		snprintf(out, 21, "%s", v->valuestring);
	cJSON_Delete(s);
	return ok ? 0
	          : err_set(FD_EINVAL, "%s",
	                    _("the head office's provider names no shop: frontdesk hq join"));
}

int hq_queue(struct db *db, int64_t *batches)
{
	struct pipe_provider p;
	struct queue_ctx q = {NULL, NULL, 0};
	char shop[21];
	int rc;

	*batches = 0;
	memset(&p, 0, sizeof p);
	if ((rc = pipe_provider_list_type(db, HQ_TYPE, provider_cb, &p)) < 0)
		return rc;
	if (!p.code[0])
		return 0;
	if ((rc = shop_of(p.settings, shop)) == 0 && (rc = anything_new(db)) == 1) {
		q.provider = p.code;
		q.shop = shop;
		rc = db_write(db, queue_tx, &q);
		*batches = q.batches;
	}
	free(p.settings);
	return rc < 0 ? rc : 0;
}

/* ----------------------------------------------- the shop's own figures */

/* Add to o, under key, one object per currency of the rows of sql
 * (currency, then the integer columns named in cols). */
static int figures_by_currency(struct db *db, cJSON *o, const char *key, const char *sql,
                               const char *const *cols, int ncols)
{
	cJSON *by = cJSON_AddObjectToObject(o, key), *one;
	sqlite3_stmt *st;
	char num[32];
	int rc, step, i;

	if ((rc = db_prepare(db, sql, &st)) != 0)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		one = cJSON_AddObjectToObject(by, (const char *)sqlite3_column_text(st, 0));
		for (i = 0; one && i < ncols; i++) {
			snprintf(num, sizeof num, "%lld",
			         (long long)sqlite3_column_int64(st, i + 1));
			cJSON_AddItemToObject(one, cols[i], cJSON_CreateRaw(num));
		}
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the shop's figures"));
	sqlite3_finalize(st);
	return rc;
}

/* The shop's figures now, as JSON text (caller frees with cJSON_free):
 * its time zone, each table's newest history row (the moment the figures
 * are of: their sum), its customers, and per currency its invoices'
 * count, total and balance and its payments' count, amount, allocated and
 * refunded. Read in one transaction, so that the figures are of the moment
 * the cursors say; `hq check` computes the same at the head office. */
static int shop_figures(struct db *db, char **out)
{
	static const char *const inv_cols[] = {"count", "total", "balance"};
	static const char *const pay_cols[] = {"count", "amount", "allocated", "refunded"};
	cJSON *o = cJSON_CreateObject(), *cur = cJSON_AddObjectToObject(o, "cursors");
	char num[32], zone[128];
	int64_t moment = 0, v;
	size_t i;
	int rc;

	*out = NULL;
	cJSON_AddStringToObject(o, "timezone", clock_zone_name(zone, sizeof zone) ? zone : "UTC");
	if ((rc = db_exec(db, "BEGIN")) != 0) {
		cJSON_Delete(o);
		return rc;
	}
	for (i = 0; i < hq_ntables && !rc; i++) {
		int64_t queued, epoch;

		if ((rc = sync_row(db, hq_tables[i], &queued, &epoch)) == 0 &&
		    (rc = his_max(db, hq_tables[i], &v)) == 0) {
			v += epoch * HQ_EPOCH_UNIT; /* the version the head office counts in */
			snprintf(num, sizeof num, "%lld", (long long)v);
			cJSON_AddItemToObject(cur, hq_tables[i], cJSON_CreateRaw(num));
			moment += v;
		}
	}
	if (!rc && (rc = db_one_int(db, "SELECT count(*) FROM customer", &v)) == 0) {
		snprintf(num, sizeof num, "%lld", (long long)v);
		cJSON_AddItemToObject(o, "customers", cJSON_CreateRaw(num));
	}
	if (!rc)
		rc = figures_by_currency(db, o, "invoices",
		                         "SELECT currency, count(*), sum(total), sum(balance)"
		                         " FROM invoice WHERE status <> 'draft' GROUP BY currency",
		                         inv_cols, 3);
	if (!rc)
		rc = figures_by_currency(db, o, "payments",
		                         "SELECT currency, count(*), sum(amount), sum(allocated),"
		                         " sum(refunded) FROM payment WHERE status <> 'void'"
		                         " GROUP BY currency",
		                         pay_cols, 4);
	db_rollback(db);
	snprintf(num, sizeof num, "%lld", (long long)moment);
	cJSON_AddItemToObject(o, "moment", cJSON_CreateRaw(num));
	if (!rc)
		*out = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return rc;
}

/* -------------------------------------------------------- the delivery */

struct hq_ctx {
	char shop[21];
	char *url, *password;
	struct hq_pg *pg; /* connected on the first batch sent, kept */
	int down;         /* the head office failed this round */
	char *figures;    /* the shop's figures, read once a round (shop_figures) */
	int resumed;      /* resume ran on this connection */
};

static void hq_ctx_free(void *p)
{
	struct hq_ctx *x = p;

	if (!x)
		return;
	hq_pg_close(x->pg);
	cJSON_free(x->figures);
	free(x->url);
	if (x->password)
		memset(x->password, 0, strlen(x->password));
	free(x->password);
	free(x);
}

int hq_conn_open(struct db *db, const char *code, const char *secrets, volatile sig_atomic_t *stop,
                 struct pipe_conn *c)
{
	struct hq_ctx *x;
	int rc;

	(void)stop;
	memset(c, 0, sizeof *c);
	if ((rc = pipe_provider_get_type(db, HQ_TYPE, code, &c->p)) != 0)
		return rc;
	x = xcalloc(1, sizeof *x);
	c->mctx = x;
	c->mfree = hq_ctx_free;
	if ((rc = shop_of(c->p.settings, x->shop)) != 0)
		goto fail;
	x->url = xstrdup(c->p.base_url);
	x->password = password_of(c->p.code, secrets, &rc);
	if (rc)
		goto fail;
	return 0;
fail:
	pipe_conn_close(c);
	return rc;
}

/* The history rows his_id from..to of table t as a JSON array of objects
 * (integers written exactly), appended to *out. */
static int rows_json(struct db *db, const char *t, int64_t from, int64_t to, int64_t epoch,
                     char **out)
{
	char sql[160], num[32];
	sqlite3_stmt *st;
	cJSON *a = cJSON_CreateArray(), *o;
	int rc, step, i, n;

	snprintf(sql, sizeof sql,
	         "SELECT * FROM %s_his WHERE his_id BETWEEN ?1 AND ?2 ORDER BY his_id", t);
	if ((rc = db_prepare(db, sql, &st)) != 0) {
		cJSON_Delete(a);
		return rc;
	}
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	n = sqlite3_column_count(st);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		o = cJSON_CreateObject();
		for (i = 0; i < n; i++) {
			const char *name = sqlite3_column_name(st, i);

			switch (sqlite3_column_type(st, i)) {
			case SQLITE_INTEGER:
				/* his_id is the version: the epoch's above it */
				snprintf(
				    num, sizeof num, "%lld",
				    (long long)(sqlite3_column_int64(st, i) +
				                (!strcmp(name, "his_id") ? epoch * HQ_EPOCH_UNIT
				                                         : 0)));
				cJSON_AddItemToObject(o, name, cJSON_CreateRaw(num));
				break;
			case SQLITE_FLOAT:
				snprintf(num, sizeof num, "%.17g", sqlite3_column_double(st, i));
				cJSON_AddItemToObject(o, name, cJSON_CreateRaw(num));
				break;
			case SQLITE_TEXT:
				cJSON_AddStringToObject(o, name,
				                        (const char *)sqlite3_column_text(st, i));
				break;
			default:
				cJSON_AddNullToObject(o, name);
			}
		}
		cJSON_AddItemToArray(a, o);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the history to send"));
	sqlite3_finalize(st);
	if (!rc)
		*out = cJSON_PrintUnformatted(a);
	cJSON_Delete(a);
	return rc;
}

/* How many of this shop's hq batches wait and fail now, batch self aside. */
static void backlog(struct db *db, const char *provider, int64_t self, int64_t *waiting,
                    int64_t *failed)
{
	sqlite3_stmt *st;

	*waiting = *failed = 0;
	if (db_prepare(
	        db,
	        "SELECT count(*), count(*) FILTER (WHERE status = 'failed') FROM outbox_event"
	        " INDEXED BY outbox_event_to_send" /* the open commands alone */
	        " WHERE (status = 'pending' OR status = 'sending' OR status = 'failed')"
	        " AND integration_type = 'hq' AND provider_code = ?1 AND id <> ?2",
	        &st) != 0) {
		err_clear();
		return;
	}
	sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, self);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*waiting = sqlite3_column_int64(st, 0);
		*failed = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
}

struct record_ctx {
	const struct control_hold *lease;
	int64_t id;
	int claim;
	enum outbox_state to;
	const char *error;
	int64_t wait;
};

static int record_tx(struct db *db, void *arg)
{
	struct record_ctx *x = arg;
	int rc;

	if ((rc = control_fence(db, x->lease)) != 0)
		return rc;
	if (x->claim)
		return outbox_claim(db, x->id, 0, NULL);
	return outbox_record(db, x->id, x->to, x->error, x->wait, 0, NULL);
}

/* What resume decided for one table. */
struct resume_tbl {
	int64_t queued_to, epoch;
	int changed;
};

struct resume_ctx {
	struct resume_tbl t[16];
};

static int resume_tx(struct db *db, void *arg)
{
	struct resume_ctx *r = arg;
	sqlite3_stmt *st;
	size_t i;
	int rc;

	for (i = 0; i < hq_ntables; i++) {
		if (!r->t[i].changed)
			continue;
		if ((rc = db_prepare(db,
		                     "INSERT INTO hq_sync (tbl, queued_to, epoch, updated_at)"
		                     " VALUES (?1, ?2, ?3, ?4) ON CONFLICT (tbl) DO UPDATE SET"
		                     " queued_to = excluded.queued_to, epoch = excluded.epoch,"
		                     " updated_at = excluded.updated_at",
		                     &st)) != 0)
			return rc;
		sqlite3_bind_text(st, 1, hq_tables[i], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, r->t[i].queued_to);
		sqlite3_bind_int64(st, 3, r->t[i].epoch);
		sqlite3_bind_int64(st, 4, clock_now());
		if ((rc = db_run(db, st, _("cannot move the head office's cursor"))) != 0)
			return rc;
	}
	return 0;
}

/* 1 when the head office's record of version v of table t (his row hh
 * here, under epoch) is what this shop's history row hh says, 0 when it
 * is another change (the shop was restored from a backup and numbered new
 * changes as the lost ones were), or FD_E*. A version the head office no
 * longer holds as a record's newest counts as the same. */
static int same_change(struct db *db, struct hq_ctx *x, const char *t, int64_t hh, int64_t v)
{
	char *row = NULL, vs[24];
	const char *p[4];
	PGresult *r;
	int rc;

	if ((rc = rows_json(db, t, hh, hh, v / HQ_EPOCH_UNIT, &row)) != 0)
		return rc;
	snprintf(vs, sizeof vs, "%lld", (long long)v);
	p[0] = x->shop, p[1] = t, p[2] = vs, p[3] = row;
	r = PQexecParams(x->pg->conn,
	                 "SELECT data = ($4::jsonb -> 0) - 'his_id' FROM hq_record"
	                 " WHERE shop = $1 AND tbl = $2 AND version = $3::bigint",
	                 4, NULL, p, NULL, NULL, 0);
	if ((rc = pg_result(x->pg, r, _("the head office"))) == 0)
		rc = PQntuples(r) == 0 || !strcmp(PQgetvalue(r, 0, 0), "t");
	PQclear(r);
	cJSON_free(row);
	return rc;
}

/* Where the head office says this shop stands, table by table (its
 * newest version applied, hv = epoch * HQ_EPOCH_UNIT + his_id):
 *  - nothing there: nothing to do;
 *  - a change this shop has, the same: queue from there on (a shop
 *    restored from a backup resends nothing the head office has);
 *  - a change this shop does not have, or another one under the same
 *    number (the shop was restored from a backup and lost changes it had
 *    sent): a new epoch, and the table is sent again whole, so that the
 *    shop's records win over the lost ones (`hq check` then shows what
 *    the head office holds that the shop lost). */
static int resume(struct db *db, struct hq_ctx *x)
{
	struct resume_ctx rc_ = {0};
	const char *p[1] = {x->shop};
	PGresult *r;
	size_t i;
	int rc, k, n, any = 0;

	r = PQexecParams(x->pg->conn, "SELECT tbl, version FROM hq_cursor WHERE shop = $1", 1, NULL,
	                 p, NULL, NULL, 0);
	if ((rc = pg_result(x->pg, r, _("the head office"))) != 0) {
		PQclear(r);
		return rc;
	}
	n = PQntuples(r);
	for (i = 0; i < hq_ntables && !rc; i++) {
		struct resume_tbl *t = &rc_.t[i];
		int64_t hv = 0, m = 0, he, hh;

		for (k = 0; k < n; k++)
			if (!strcmp(PQgetvalue(r, k, 0), hq_tables[i]))
				hv = pg_num(r, k, 1);
		if (hv <= 0)
			continue;
		if ((rc = sync_row(db, hq_tables[i], &t->queued_to, &t->epoch)) != 0 ||
		    (rc = his_max(db, hq_tables[i], &m)) != 0)
			break;
		he = hv / HQ_EPOCH_UNIT;
		hh = hv % HQ_EPOCH_UNIT;
		if (he < t->epoch)
			continue;
		if (he > t->epoch || hh > m ||
		    (rc = same_change(db, x, hq_tables[i], hh, hv)) == 0) {
			if (he + 1 > HQ_EPOCH_MAX) {
				rc = err_set(
				    FD_EINVAL, "%s",
				    _("the head office's versions of this shop are exhausted"));
				break;
			}
			t->epoch = he + 1;
			t->queued_to = 0;
			t->changed = any = 1;
		} else if (rc == 1) {
			rc = 0;
			if (hh > t->queued_to) {
				t->queued_to = hh;
				t->changed = any = 1;
			}
		}
	}
	PQclear(r);
	if (!rc && any)
		rc = db_write(db, resume_tx, &rc_);
	return rc;
}

/* Send batch command id: its rows read now, applied at the head office. */
static int send_one(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                    int64_t id, const char *key, struct hq_sent *r)
{
	struct hq_ctx *x = c->mctx;
	struct record_ctx rec = {lease, id, 0, OUTBOX_SUCCEEDED, NULL, 0};
	char shop_time[24], waiting_s[24], failed_s[24], why[500];
	const char *t = NULL;
	int64_t from = 0, to = 0, epoch = 0, waiting, failed;
	struct outbox_cmd o;
	char *rows = NULL;
	cJSON *p = NULL;
	PGresult *res;
	size_t i;
	int rc;

	if ((rc = outbox_cmd_get(db, id, &o)) != 0)
		return rc;
	p = cJSON_Parse(o.payload ? o.payload : "");
	if (cJSON_IsObject(p)) {
		const cJSON *tv = cJSON_GetObjectItemCaseSensitive(p, "table");

		for (i = 0; cJSON_IsString(tv) && i < hq_ntables; i++)
			if (!strcmp(tv->valuestring, hq_tables[i]))
				t = hq_tables[i];
		from = (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, "from"));
		to = (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, "to"));
		epoch = (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p, "epoch"));
	}
	cJSON_Delete(p);
	if (!t || from < 1 || to < from || epoch < 0 || epoch > HQ_EPOCH_MAX) {
		rec.to = OUTBOX_DEAD;
		rec.error = _("the command names no batch of history");
		rc = db_write(db, record_tx, &rec);
		r->dead++;
		goto out;
	}
	if (strcmp(o.status, "sending")) { /* sending first: a crash leaves it to send again */
		rec.claim = 1;
		if ((rc = db_write(db, record_tx, &rec)) != 0)
			goto out;
		rec.claim = 0;
	}
	if ((rc = rows_json(db, t, from, to, epoch, &rows)) != 0)
		goto out;
	backlog(db, c->p.code, id, &waiting, &failed);
	snprintf(shop_time, sizeof shop_time, "%lld", (long long)clock_now());
	snprintf(waiting_s, sizeof waiting_s, "%lld", (long long)waiting);
	snprintf(failed_s, sizeof failed_s, "%lld", (long long)failed);
	if (!x->pg && (rc = hq_pg_open(x->url, x->password, &x->pg)) == 0 &&
	    (rc = schema_current(x->pg)) != 0 && rc != FD_EIO) {
		/* a head office whose schema is older than this frontdesk's (it
		 * would refuse the newer tables): the batch waits on the backoff
		 * until someone runs hq init there, never given up */
		snprintf(why, sizeof why, "%s", err_msg());
		rc = err_set(FD_EIO, "%s", why);
	}
	if (!rc && !x->resumed) {
		/* once a connection: where the head office says this shop stands */
		if ((rc = resume(db, x)) == 0)
			x->resumed = 1;
	}
	if (rc)
		res = NULL;
	else {
		const char *v[8] = {x->shop,    t,         key,       rows,
		                    x->figures, shop_time, waiting_s, failed_s};

		res = PQexecParams(x->pg->conn,
		                   "SELECT hq_apply($1, $2, $3, $4::jsonb, $5::jsonb, $6::bigint,"
		                   " $7::int, $8::int)",
		                   8, NULL, v, NULL, NULL, 0);
		rc = pg_result(x->pg, res, _("the head office"));
	}
	if (!rc) {
		r->sent++;
		r->rows += to - from + 1;
		rec.to = OUTBOX_SUCCEEDED;
	} else if (rc == FD_EIO) {
		/* not reached, or no answer: sent again on the backoff, however
		 * long (the batch is applied once by its key); never given up */
		snprintf(why, sizeof why, "%s", err_msg());
		err_clear();
		rec.to = OUTBOX_FAILED;
		rec.error = why;
		pipe_rule_retry_plan(0, clock_now(), o.retry_count + 1, 0, CHAN_RETRY, &rec.wait);
		r->failed++;
		hq_pg_close(x->pg); /* connect again on the next try */
		x->pg = NULL;
		x->down = 1; /* the round's other batches wait for the next one */
	} else {
		snprintf(why, sizeof why, "%s", err_msg());
		err_clear();
		rec.to = OUTBOX_DEAD;
		rec.error = why;
		r->dead++;
	}
	if (res)
		PQclear(res);
	rc = db_write(db, record_tx, &rec);
out:
	cJSON_free(rows);
	outbox_cmd_free(&o);
	return rc;
}

struct due_list {
	int64_t *v;
	char **key;
	size_t n;
};

static int due_cb(const struct outbox_due_cmd *c, void *arg)
{
	struct due_list *d = arg;

	d->v = xrealloc(d->v, (d->n + 1) * sizeof *d->v);
	d->key = xrealloc(d->key, (d->n + 1) * sizeof *d->key);
	d->key[d->n] = xstrdup(c->idem_key ? c->idem_key : "");
	d->v[d->n++] = c->id;
	return 0;
}

/* ------------------------------------------------- purges confirmed */

struct purge_ctx {
	const char *deletion_id, *shop;
};

static int purge_tx(struct db *db, void *arg)
{
	struct purge_ctx *p = arg;
	sqlite3_stmt *st;
	int rc;

	if ((rc =
	         db_prepare(db,
	                    "INSERT INTO hq_purge (deletion_id, shop, confirmed_at) VALUES (?1, ?2,"
	                    " ?3) ON CONFLICT DO NOTHING",
	                    &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, p->deletion_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, p->shop, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, clock_now());
	return db_run(db, st, _("cannot record the head office's confirmation"));
}

/* The customer a certificate is of: the purged customer whose reference
 * hash is the certificate's. 0 when none. */
static int64_t cert_customer(struct db *db, const char *deletion_id, const char *hash)
{
	sqlite3_stmt *st;
	int64_t found = 0;
	char h[65];

	if (db_prepare(db, "SELECT customer_id FROM retention_purged ORDER BY purged_at DESC",
	               &st)) {
		err_clear();
		return 0;
	}
	while (!found && sqlite3_step(st) == SQLITE_ROW)
		if (retention_hash(deletion_id, sqlite3_column_int64(st, 0), h) == 0 &&
		    !strcmp(h, hash))
			found = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return found;
}

/* Each purge the head office has not confirmed yet, now that no batch is
 * still to go (the purged versions of every table are there): confirmed
 * when the head office's record of the customer is blank, or gone. */
static int confirm_purges(struct db *db, struct hq_ctx *x)
{
	sqlite3_stmt *st;
	int rc = 0;

	if ((rc = db_prepare(db,
	                     "SELECT c.deletion_id, c.customer_hash FROM retention_certificate c"
	                     " WHERE NOT EXISTS (SELECT 1 FROM hq_purge p"
	                     " WHERE p.deletion_id = c.deletion_id)",
	                     &st)) != 0)
		return rc;
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		const char *del = (const char *)sqlite3_column_text(st, 0);
		int64_t cid = cert_customer(db, del, (const char *)sqlite3_column_text(st, 1));
		char ids[24];
		const char *p[2] = {x->shop, ids};
		struct purge_ctx pc = {del, x->shop};
		PGresult *r;

		if (!cid)
			continue;
		snprintf(ids, sizeof ids, "%lld", (long long)cid);
		r = PQexecParams(
		    x->pg->conn,
		    "SELECT count(*) FROM hq_record WHERE shop = $1 AND tbl = 'customer'"
		    " AND id = $2::bigint AND data->>'name' <> '" RETENTION_REMOVED "'",
		    2, NULL, p, NULL, NULL, 0);
		if ((rc = pg_result(x->pg, r, _("the head office"))) == 0 &&
		    !strcmp(PQgetvalue(r, 0, 0), "0"))
			rc = db_write(db, purge_tx, &pc);
		PQclear(r);
	}
	sqlite3_finalize(st);
	if (rc == FD_EIO)
		err_clear(), rc = 0; /* asked again on the next round */
	return rc;
}

/* Whether the head office confirmed it forgot the customer of deletion
 * deletion_id: 1 with the shop's code there and when (desk clock), 0 when
 * not (yet), or FD_E* (hq_cert_part). */
static int hq_purge_confirmed(struct db *db, const char *deletion_id, char shop[21], int64_t *at)
{
	sqlite3_stmt *st;
	int rc, found = 0;

	*at = 0;
	shop[0] = '\0';
	if ((rc = db_prepare(db, "SELECT shop, confirmed_at FROM hq_purge WHERE deletion_id = ?1",
	                     &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, deletion_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(shop, 21, "%s", (const char *)sqlite3_column_text(st, 0));
		*at = sqlite3_column_int64(st, 1);
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

int hq_cert_part(struct db *db, const char *deletion_id, char shop[21], int64_t *at)
{
	int rc = hq_purge_confirmed(db, deletion_id, shop, at);

	if (rc < 0)
		return rc;
	if (rc == 1)
		return HQ_CERT_CONFIRMED;
	if ((rc = hq_joined(db)) < 0)
		return rc;
	return rc ? HQ_CERT_WAITING : HQ_CERT_NONE;
}

int hq_joined(struct db *db)
{
	struct pipe_provider p;
	int rc;

	memset(&p, 0, sizeof p);
	if ((rc = pipe_provider_list_type(db, HQ_TYPE, provider_cb, &p)) < 0)
		return rc;
	free(p.settings);
	return p.code[0] != '\0';
}

int hq_deliver(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
               volatile sig_atomic_t *stop, struct hq_sent *r)
{
	struct due_list d = {NULL, NULL, 0};
	struct hq_ctx *x = c->mctx;
	int64_t queued;
	size_t i;
	int rc;

	if ((rc = hq_queue(db, &queued)) != 0)
		return rc;
	rc = outbox_due(db, HQ_TYPE, c->p.code, due_cb, &d);
	x->down = 0;
	if (!rc && d.n) { /* the figures each batch of the round carries */
		cJSON_free(x->figures);
		x->figures = NULL;
		rc = shop_figures(db, &x->figures);
	}
	control_acting_enter();
	for (i = 0; !rc && i < d.n && !stop_requested(stop) && !x->down; i++)
		rc = send_one(db, c, lease, d.v[i], d.key[i], r);
	control_acting_leave();
	for (i = 0; i < d.n; i++)
		free(d.key[i]);
	free(d.key);
	free(d.v);
	if (!rc && !x->down && x->pg) { /* everything sent: the purges it holds */
		int64_t waiting, failed;

		backlog(db, c->p.code, 0, &waiting, &failed);
		if (!waiting && (rc = anything_new(db)) == 0)
			rc = confirm_purges(db, x);
		rc = rc < 0 ? rc : 0;
	}
	return rc;
}

/* ---------------------------------------------------------------- check */

int hq_check(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
             void *arg)
{
	/* an outbox row is stamped with the real clock */
	int64_t horizon = pipe_rule_give_up_seconds(), now = clock_real();
	char detail[500], when[32];
	sqlite3_stmt *st;
	int rc, step, found = 0;

	if ((rc = db_prepare(db,
	                     "SELECT count(*), min(created_at) FROM outbox_event"
	                     " INDEXED BY outbox_event_to_send" /* the open commands alone */
	                     " WHERE (status = 'pending' OR status = 'sending' OR"
	                     " status = 'failed') AND integration_type = 'hq' AND created_at <= ?1",
	                     &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, now - horizon);
	if ((step = sqlite3_step(st)) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) {
		clock_format_local(sqlite3_column_int64(st, 1), "%Y-%m-%d %H:%M", when,
		                   sizeof when);
		snprintf(detail, sizeof detail,
		         _("%1$lld batch(es) of changes have waited to reach the head office since "
		           "%2$s: it cannot be reached, or no worker runs (frontdesk hq status; "
		           "frontdesk serve)"),
		         (long long)sqlite3_column_int64(st, 0), when);
		report("hq-behind", detail, arg);
		found++;
	} else if (step != SQLITE_ROW)
		rc = db_fail(db, _("cannot read the head office's batches"));
	sqlite3_finalize(st);
	return rc ? rc : found;
}

/* ------------------------------------------------------------ status */

int hq_status(const char *url, int (*cb)(const struct hq_shop_status *s, void *arg), void *arg)
{
	struct hq_pg *h;
	PGresult *r;
	int rc, i, n;

	if ((rc = hq_pg_open(url, NULL, &h)) != 0)
		return rc;
	if ((rc = schema_current(h)) != 0)
		goto out;
	r = PQexec(h->conn,
	           "SELECT s.code, s.name, coalesce(to_char(s.last_batch_at AT TIME ZONE 'UTC',"
	           " 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), ''),"
	           " coalesce(extract(epoch FROM now() - s.last_batch_at)::bigint, -1),"
	           " (SELECT count(*) FROM hq_record WHERE shop = s.code),"
	           " (SELECT count(*) FROM hq_batch WHERE shop = s.code),"
	           " coalesce(s.waiting, 0), coalesce(s.failed, 0)"
	           " FROM hq_shop s ORDER BY s.code");
	if ((rc = pg_result(h, r, _("cannot read the head office"))) == 0) {
		n = PQntuples(r);
		for (i = 0; i < n && !rc; i++) {
			struct hq_shop_status s;

			s.code = PQgetvalue(r, i, 0);
			s.name = PQgetvalue(r, i, 1);
			s.last_batch_at = PQgetvalue(r, i, 2);
			s.lag_seconds = pg_num(r, i, 3);
			s.records = pg_num(r, i, 4);
			s.batches = pg_num(r, i, 5);
			s.waiting = pg_num(r, i, 6);
			s.failed = pg_num(r, i, 7);
			rc = cb(&s, arg);
		}
	}
	PQclear(r);
out:
	hq_pg_close(h);
	return rc;
}

/* ------------------------------------------------------------ hq check */

/* The head office's figures of shop, in the shape of shop_figures. */
static const char hq_figures_sql[] =
    "SELECT jsonb_build_object("
    " 'customers', (SELECT count(*) FROM hq_record WHERE shop = $1 AND tbl = 'customer'),"
    " 'invoices', coalesce((SELECT jsonb_object_agg(currency, jsonb_build_object('count', n,"
    "  'total', t, 'balance', b)) FROM (SELECT currency, count(*) AS n, sum(total) AS t,"
    "  sum(balance) AS b FROM hq_invoice WHERE shop = $1 AND status <> 'draft'"
    "  GROUP BY currency) x), '{}'::jsonb),"
    " 'payments', coalesce((SELECT jsonb_object_agg(currency, jsonb_build_object('count', n,"
    "  'amount', a, 'allocated', al, 'refunded', r)) FROM (SELECT currency, count(*) AS n,"
    "  sum(amount) AS a, sum(allocated) AS al, sum(refunded) AS r FROM hq_payment"
    "  WHERE shop = $1 AND status <> 'void' GROUP BY currency) y), '{}'::jsonb),"
    " 'cursors', coalesce((SELECT jsonb_object_agg(tbl, version) FROM hq_cursor"
    "  WHERE shop = $1), '{}'::jsonb))::text";

/* The shop's newest figures it sent, as text (PQgetvalue's), or NULL. */
static const char hq_last_figures_sql[] =
    "SELECT totals::text FROM hq_batch WHERE shop = $1 AND totals IS NOT NULL"
    " ORDER BY (totals->>'moment')::bigint DESC, applied_at DESC LIMIT 1";

static double num_at(const cJSON *o, const char *a, const char *b, const char *c)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);

	if (b)
		v = cJSON_GetObjectItemCaseSensitive(v, b);
	if (c)
		v = cJSON_GetObjectItemCaseSensitive(v, c);
	return cJSON_IsNumber(v) ? cJSON_GetNumberValue(v) : 0;
}

/* Append to d one difference of figure what (a, b, c: its path) between
 * the shop's and the head office's. Returns 1 when they differ. */
static int differ(struct strbuf *d, const cJSON *shop, const cJSON *hq, const char *a,
                  const char *b, const char *c)
{
	double x = num_at(shop, a, b, c), y = num_at(hq, a, b, c);

	if (x == y)
		return 0;
	if (d->len)
		sb_puts(d, "; ");
	sb_printf(d, _("%1$s%2$s%3$s%4$s%5$s: the shop %6$.0f, the head office %7$.0f"), a,
	          b ? " " : "", b ? b : "", c ? " " : "", c ? c : "", x, y);
	return 1;
}

/* Every currency and figure of group (invoices, payments) on either side. */
static int differ_group(struct strbuf *d, const cJSON *shop, const cJSON *hq, const char *group)
{
	const cJSON *sides[2] = {cJSON_GetObjectItemCaseSensitive(shop, group),
	                         cJSON_GetObjectItemCaseSensitive(hq, group)};
	const cJSON *cur, *f;
	int n = 0, i;

	for (i = 0; i < 2; i++)
		cJSON_ArrayForEach(cur, sides[i]) cJSON_ArrayForEach(f, cur)
		{
			/* a currency on both sides is compared once, from the shop's */
			if (i == 1 && cJSON_GetObjectItemCaseSensitive(sides[0], cur->string))
				continue;
			n += differ(d, shop, hq, group, cur->string, f->string);
		}
	return n;
}

int hq_check_shops(const char *url, const char *only,
                   int (*cb)(const struct hq_check_row *r, void *arg), void *arg)
{
	struct hq_pg *h;
	PGresult *shops, *r;
	int rc, i, n, found = 0;

	if ((rc = hq_pg_open(url, NULL, &h)) != 0)
		return rc;
	if ((rc = schema_current(h)) != 0)
		goto out;
	shops = PQexec(h->conn, "SELECT code FROM hq_shop ORDER BY code");
	if ((rc = pg_result(h, shops, _("cannot read the head office"))) != 0) {
		PQclear(shops);
		goto out;
	}
	n = PQntuples(shops);
	for (i = 0; i < n && !rc; i++) {
		const char *code = PQgetvalue(shops, i, 0);
		const char *p[1] = {code};
		struct hq_check_row row = {code, HQ_CHECK_AGREES, ""};
		struct strbuf d = {0};
		cJSON *mine = NULL, *theirs = NULL;
		const cJSON *t;

		if (only && strcmp(only, code))
			continue;
		found++;
		r = PQexecParams(h->conn, hq_last_figures_sql, 1, NULL, p, NULL, NULL, 0);
		if ((rc = pg_result(h, r, _("cannot read the head office"))) == 0 && PQntuples(r))
			mine = cJSON_Parse(PQgetvalue(r, 0, 0));
		PQclear(r);
		if (!rc) {
			r = PQexecParams(h->conn, hq_figures_sql, 1, NULL, p, NULL, NULL, 0);
			if ((rc = pg_result(h, r, _("cannot read the head office"))) == 0)
				theirs = cJSON_Parse(PQgetvalue(r, 0, 0));
			PQclear(r);
		}
		if (rc) {
			cJSON_Delete(mine);
			break;
		}
		if (!mine) {
			row.state = HQ_CHECK_NOTHING;
		} else {
			/* the figures are of the moment each table's cursor says */
			cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(mine, "cursors"))
			{
				double at_shop = cJSON_GetNumberValue(t);
				double at_hq = num_at(theirs, "cursors", t->string, NULL);

				if (at_hq > at_shop) {
					row.state = HQ_CHECK_DIFFERS;
					if (d.len)
						sb_puts(&d, "; ");
					sb_printf(
					    &d,
					    _("%1$s: the head office has changes up to %2$.0f, "
					      "the shop up to %3$.0f (restored from a backup?)"),
					    t->string, at_hq, at_shop);
				} else if (at_hq < at_shop && row.state == HQ_CHECK_AGREES) {
					row.state = HQ_CHECK_BEHIND;
					sb_printf(
					    &d,
					    _("%1$s: the head office has changes up to %2$.0f of "
					      "%3$.0f"),
					    t->string, at_hq, at_shop);
				}
			}
			if (row.state == HQ_CHECK_AGREES &&
			    differ(&d, mine, theirs, "customers", NULL, NULL) +
			            differ_group(&d, mine, theirs, "invoices") +
			            differ_group(&d, mine, theirs, "payments") >
			        0)
				row.state = HQ_CHECK_DIFFERS;
		}
		row.detail = sb_cstr(&d);
		rc = cb(&row, arg);
		sb_free(&d);
		cJSON_Delete(mine);
		cJSON_Delete(theirs);
	}
	PQclear(shops);
	if (!rc && only && !found)
		rc = err_set(FD_ENOTFOUND, _("no shop %s has joined the head office"), only);
out:
	hq_pg_close(h);
	return rc;
}

/* ------------------------------------------------------------ reports */

/* The shops a report covers: "" for all, or a comma-separated list. */
#define HQ_SHOPS_CTE                                                                               \
	"s AS (SELECT code, timezone AS tz FROM hq_shop"                                           \
	" WHERE $1 = '' OR code = ANY (string_to_array($1, ',')))"

static const char hq_aging_sql[] =
    "WITH " HQ_SHOPS_CTE
    ", lim AS (SELECT code, tz, CASE WHEN $2 = '' THEN date_trunc('day', now() AT TIME ZONE"
    " tz) ELSE ($2::date)::timestamp END AS d"
    " FROM s), l AS (SELECT code,"
    " extract(epoch FROM d AT TIME ZONE tz)::bigint AS l0,"
    " extract(epoch FROM (d - interval '30 days') AT TIME ZONE tz)::bigint AS l30,"
    " extract(epoch FROM (d - interval '60 days') AT TIME ZONE tz)::bigint AS l60,"
    " extract(epoch FROM (d - interval '90 days') AT TIME ZONE tz)::bigint AS l90 FROM lim),"
    " inv AS (SELECT i.shop, i.customer_id, i.currency,"
    "  sum(i.balance) FILTER (WHERE coalesce(i.due_at, 0) >= l.l0) AS b0,"
    "  sum(i.balance) FILTER (WHERE coalesce(i.due_at, 0) < l.l0"
    "   AND coalesce(i.due_at, 0) >= l.l30) AS b1,"
    "  sum(i.balance) FILTER (WHERE coalesce(i.due_at, 0) < l.l30"
    "   AND coalesce(i.due_at, 0) >= l.l60) AS b2,"
    "  sum(i.balance) FILTER (WHERE coalesce(i.due_at, 0) < l.l60"
    "   AND coalesce(i.due_at, 0) >= l.l90) AS b3,"
    "  sum(i.balance) FILTER (WHERE coalesce(i.due_at, 0) < l.l90) AS b4"
    "  FROM hq_invoice i JOIN l ON l.code = i.shop"
    "  WHERE i.status IN ('issued', 'partially_paid', 'overpaid')"
    "  GROUP BY i.shop, i.customer_id, i.currency),"
    " cr AS (SELECT p.shop, p.customer_id, p.currency,"
    "  sum(p.amount - p.allocated - p.refunded) AS credit"
    "  FROM hq_payment p JOIN l ON l.code = p.shop"
    "  WHERE p.status IN ('unallocated', 'partially_allocated')"
    "  GROUP BY p.shop, p.customer_id, p.currency),"
    " r AS (SELECT coalesce(inv.shop, cr.shop) AS shop,"
    "  coalesce(inv.customer_id, cr.customer_id) AS customer_id,"
    "  coalesce(inv.currency, cr.currency) AS currency,"
    "  coalesce(b0, 0) AS b0, coalesce(b1, 0) AS b1, coalesce(b2, 0) AS b2,"
    "  coalesce(b3, 0) AS b3, coalesce(b4, 0) AS b4, coalesce(credit, 0) AS credit"
    "  FROM inv FULL JOIN cr ON cr.shop = inv.shop AND cr.customer_id = inv.customer_id"
    "  AND cr.currency = inv.currency)"
    " SELECT r.shop, r.customer_id, coalesce(c.name, ''), r.currency, r.b0, r.b1, r.b2, r.b3,"
    " r.b4, r.credit FROM r LEFT JOIN hq_customer c ON c.shop = r.shop AND c.id = r.customer_id"
    " WHERE r.b0 + r.b1 + r.b2 + r.b3 + r.b4 <> 0 OR r.credit <> 0"
    " ORDER BY r.shop, lower(coalesce(c.name, '')), r.customer_id, r.currency";

/* Run the report query sql with params p; the result in *out (PQclear
 * it). */
static int report_query(struct hq_pg *h, const char *sql, int np, const char *const *p,
                        PGresult **out)
{
	int rc;

	*out = PQexecParams(h->conn, sql, np, NULL, p, NULL, NULL, 0);
	if ((rc = pg_result(h, *out, _("cannot compute the report"))) != 0) {
		PQclear(*out);
		*out = NULL;
	}
	return rc;
}

/* Open the head office at url and check that every shop of shops (a
 * comma-separated list; NULL or "": all) has joined it. */
static int report_open(const char *url, const char *shops, struct hq_pg **h)
{
	char code[64];
	const char *p = shops ? shops : "";
	int rc;

	if ((rc = hq_pg_open(url, NULL, h)) != 0)
		return rc;
	if ((rc = schema_current(*h)) != 0)
		goto fail;
	while (*p) {
		size_t k = strcspn(p, ",");
		const char *v[1] = {code};
		PGresult *r;

		snprintf(code, sizeof code, "%.*s", (int)(k < sizeof code ? k : sizeof code - 1),
		         p);
		if (!shop_code_ok(code)) {
			rc = err_set(FD_EINVAL, _("'%s' is not a shop's code"), code);
			goto fail;
		}
		r = PQexecParams((*h)->conn, "SELECT 1 FROM hq_shop WHERE code = $1", 1, NULL, v,
		                 NULL, NULL, 0);
		rc = pg_result(*h, r, _("cannot read the head office"));
		if (!rc && PQntuples(r) == 0)
			rc =
			    err_set(FD_ENOTFOUND, _("no shop %s has joined the head office"), code);
		PQclear(r);
		if (rc)
			goto fail;
		p += k;
		p += *p == ',';
	}
	return 0;
fail:
	hq_pg_close(*h);
	*h = NULL;
	return rc;
}

static int date_ok(const char *d)
{
	int y, mo, da;
	char end;

	return d && strlen(d) == 10 && sscanf(d, "%4d-%2d-%2d%c", &y, &mo, &da, &end) == 3 &&
	       y >= 1970 && y <= 9999 && mo >= 1 && mo <= 12 && da >= 1 && da <= 31;
}

/* 0 when from..to are dates, from not after to. */
static int period_ok(const char *from, const char *to)
{
	if (!date_ok(from) || !date_ok(to))
		return err_set(FD_EINVAL, "%s", _("the days are dates: YYYY-MM-DD"));
	if (strcmp(from, to) > 0)
		return err_set(FD_EINVAL, "%s", _("--from must not be after --to"));
	return 0;
}

int hq_report_aging(const char *url, const char *shops, const char *on,
                    int (*cb)(const struct hq_aging_row *r, void *arg), void *arg)
{
	const char *p[2] = {shops ? shops : "", on ? on : ""};
	struct hq_pg *h;
	PGresult *r;
	int rc, i, n, k;

	if (on && !date_ok(on))
		return err_set(FD_EINVAL, "%s", _("the days are dates: YYYY-MM-DD"));
	if ((rc = report_open(url, shops, &h)) != 0)
		return rc;
	if ((rc = report_query(h, hq_aging_sql, 2, p, &r)) == 0) {
		n = PQntuples(r);
		for (i = 0; i < n && !rc; i++) {
			struct hq_aging_row row;

			memset(&row, 0, sizeof row);
			row.shop = PQgetvalue(r, i, 0);
			row.customer_id = pg_num(r, i, 1);
			row.customer_name = PQgetvalue(r, i, 2);
			snprintf(row.currency, sizeof row.currency, "%s", PQgetvalue(r, i, 3));
			for (k = 0; k < 5; k++) {
				row.bucket[k] = pg_num(r, i, 4 + k);
				row.owed += row.bucket[k];
			}
			row.credit = pg_num(r, i, 9);
			rc = cb(&row, arg);
		}
		PQclear(r);
	}
	hq_pg_close(h);
	return rc;
}

int hq_reports_ready(const char *url)
{
	struct hq_pg *h;
	int rc = report_open(url, NULL, &h);

	if (rc == 0)
		hq_pg_close(h);
	return rc;
}

static const char hq_takings_sql[] =
    "WITH " HQ_SHOPS_CTE ", b AS (SELECT code, tz, ($2::date)::timestamp AT TIME ZONE tz AS t0,"
    " (($3::date) + 1)::timestamp AT TIME ZONE tz AS t1 FROM s),"
    " m AS (SELECT to_char(to_timestamp(p.received_at) AT TIME ZONE b.tz, 'YYYY-MM-DD') AS day,"
    "  p.method, p.currency, 1 AS n, p.amount AS received, 0 AS refunded"
    "  FROM hq_payment p JOIN b ON b.code = p.shop WHERE p.status <> 'void'"
    "  AND p.received_at >= extract(epoch FROM b.t0) AND p.received_at < extract(epoch FROM b.t1)"
    " UNION ALL"
    " SELECT to_char(to_timestamp((f.data->>'refunded_at')::bigint) AT TIME ZONE b.tz,"
    "  'YYYY-MM-DD'), f.data->>'method', p.currency, 0, 0, (f.data->>'amount')::bigint"
    "  FROM hq_record f JOIN b ON b.code = f.shop"
    "  JOIN hq_payment p ON p.shop = f.shop AND p.id = (f.data->>'payment_id')::bigint"
    "  WHERE f.tbl = 'refund' AND f.data->>'status' = 'succeeded'"
    "  AND (f.data->>'refunded_at')::bigint >= extract(epoch FROM b.t0)"
    "  AND (f.data->>'refunded_at')::bigint < extract(epoch FROM b.t1))"
    " SELECT day, method, currency, sum(n), sum(received), sum(refunded) FROM m"
    " GROUP BY day, method, currency ORDER BY day, method, currency";

int hq_report_takings(const char *url, const char *shops, const char *from, const char *to,
                      int (*cb)(const struct hq_takings_row *r, void *arg), void *arg)
{
	const char *p[3] = {shops ? shops : "", from, to};
	struct hq_pg *h;
	PGresult *r;
	int rc, i, n;

	if ((rc = period_ok(from, to)) != 0 || (rc = report_open(url, shops, &h)) != 0)
		return rc;
	if ((rc = report_query(h, hq_takings_sql, 3, p, &r)) == 0) {
		n = PQntuples(r);
		for (i = 0; i < n && !rc; i++) {
			struct hq_takings_row row;

			memset(&row, 0, sizeof row);
			snprintf(row.day, sizeof row.day, "%s", PQgetvalue(r, i, 0));
			snprintf(row.method, sizeof row.method, "%s", PQgetvalue(r, i, 1));
			snprintf(row.currency, sizeof row.currency, "%s", PQgetvalue(r, i, 2));
			row.count = pg_num(r, i, 3);
			row.received = pg_num(r, i, 4);
			row.refunded = pg_num(r, i, 5);
			row.net = row.received - row.refunded;
			rc = cb(&row, arg);
		}
		PQclear(r);
	}
	hq_pg_close(h);
	return rc;
}

/* ------------------------------------------------------ customer find */

static const char hq_find_sql[] =
    "WITH c AS (SELECT shop, id, name, phone, email FROM hq_customer"
    " WHERE name ILIKE $1 ESCAPE '\\' OR phone ILIKE $1 ESCAPE '\\'"
    " OR email ILIKE $1 ESCAPE '\\'),"
    " o AS (SELECT i.shop, i.customer_id, i.currency, sum(i.balance) AS owed FROM hq_invoice i"
    "  JOIN c ON c.shop = i.shop AND c.id = i.customer_id"
    "  WHERE i.status IN ('issued', 'partially_paid', 'overpaid')"
    "  GROUP BY i.shop, i.customer_id, i.currency)"
    " SELECT c.shop, c.id, c.name, coalesce(c.phone, ''), coalesce(c.email, ''),"
    " coalesce((SELECT string_agg(o.currency || ' ' || o.owed, ',' ORDER BY o.currency) FROM o"
    "  WHERE o.shop = c.shop AND o.customer_id = c.id AND o.owed <> 0), '')"
    " FROM c ORDER BY lower(c.name), c.shop, c.id LIMIT 200";

int hq_customer_find(const char *url, const char *text,
                     int (*cb)(const struct hq_customer_row *r, void *arg), void *arg)
{
	struct strbuf pat = {0};
	const char *p[1];
	struct hq_pg *h;
	PGresult *r;
	int rc, i, n;

	if (!text || !*text || strlen(text) > 200)
		return err_set(
		    FD_EINVAL, "%s",
		    _("give 1 to 200 characters of a name, phone number or e-mail address"));
	if ((rc = report_open(url, NULL, &h)) != 0)
		return rc;
	/* the text as it is, anywhere: its %, _ and \ are not patterns */
	sb_puts(&pat, "%");
	for (; *text; text++) {
		if (*text == '%' || *text == '_' || *text == '\\')
			sb_add(&pat, "\\", 1);
		sb_add(&pat, text, 1);
	}
	sb_puts(&pat, "%");
	p[0] = sb_cstr(&pat);
	r = PQexecParams(h->conn, hq_find_sql, 1, NULL, p, NULL, NULL, 0);
	if ((rc = pg_result(h, r, _("cannot search the head office's customers"))) == 0) {
		n = PQntuples(r);
		for (i = 0; i < n && !rc; i++) {
			struct hq_customer_row row;

			row.shop = PQgetvalue(r, i, 0);
			row.id = pg_num(r, i, 1);
			row.name = PQgetvalue(r, i, 2);
			row.phone = PQgetvalue(r, i, 3);
			row.email = PQgetvalue(r, i, 4);
			row.owed = PQgetvalue(r, i, 5);
			rc = cb(&row, arg);
		}
	}
	PQclear(r);
	sb_free(&pat);
	hq_pg_close(h);
	return rc;
}

/* ------------------------------------------------------------ statement */

/* report_statement's statement (report.c), over the head office's records
 * of shop $1: customer $2, currency $3; SQLite's order (NULL first). */
static const char hq_statement_sql[] =
    "SELECT at, kind, id, ref, target, amount, allocated FROM ("
    " SELECT (data->>'issued_at')::bigint AS at, 1 AS sort, data->>'kind' AS kind, id,"
    "  data->>'number' AS ref, NULL::text AS target, (data->>'total')::bigint AS amount,"
    "  0::bigint AS allocated FROM hq_record WHERE shop = $1 AND tbl = 'invoice'"
    "  AND (data->>'customer_id')::bigint = $2::bigint AND data->>'currency' = $3"
    "  AND data->>'status' NOT IN ('draft', 'void')"
    " UNION ALL"
    " SELECT (data->>'received_at')::bigint, 2, 'payment', id,"
    "  (data->>'method') || coalesce(' ' || (data->>'reference'), ''), NULL,"
    "  -(data->>'amount')::bigint, 0 FROM hq_record WHERE shop = $1 AND tbl = 'payment'"
    "  AND (data->>'customer_id')::bigint = $2::bigint AND data->>'currency' = $3"
    "  AND data->>'status' <> 'void'"
    " UNION ALL"
    " SELECT (a.data->>'created_at')::bigint, 3, 'allocation', a.id,"
    "  'payment ' || (a.data->>'payment_id'), i.data->>'number', 0,"
    "  CASE WHEN a.data->>'reverses_id' IS NULL THEN (a.data->>'amount')::bigint"
    "  ELSE -(a.data->>'amount')::bigint END"
    "  FROM hq_record a JOIN hq_record p ON p.shop = a.shop AND p.tbl = 'payment'"
    "  AND p.id = (a.data->>'payment_id')::bigint"
    "  JOIN hq_record i ON i.shop = a.shop AND i.tbl = 'invoice'"
    "  AND i.id = (a.data->>'invoice_id')::bigint"
    "  WHERE a.shop = $1 AND a.tbl = 'payment_allocation'"
    "  AND (p.data->>'customer_id')::bigint = $2::bigint AND p.data->>'currency' = $3"
    " UNION ALL"
    " SELECT (r.data->>'refunded_at')::bigint, 4, 'refund', r.id,"
    "  (r.data->>'method') || coalesce(' ' || (r.data->>'reference'), ''),"
    "  'payment ' || (r.data->>'payment_id'), (r.data->>'amount')::bigint, 0"
    "  FROM hq_record r JOIN hq_record p ON p.shop = r.shop AND p.tbl = 'payment'"
    "  AND p.id = (r.data->>'payment_id')::bigint"
    "  WHERE r.shop = $1 AND r.tbl = 'refund' AND (p.data->>'customer_id')::bigint = $2::bigint"
    "  AND p.data->>'currency' = $3 AND r.data->>'status' <> 'failed') x"
    " ORDER BY at NULLS FIRST, sort, id";

static const char hq_statement_figures_sql[] =
    "SELECT (SELECT coalesce(sum(balance), 0) FROM hq_invoice WHERE shop = $1"
    "  AND customer_id = $2::bigint AND currency = $3 AND kind = 'invoice'"
    "  AND status NOT IN ('draft', 'void')),"
    " (SELECT coalesce(sum(amount - allocated - refunded), 0) FROM hq_payment"
    "  WHERE shop = $1 AND customer_id = $2::bigint AND currency = $3 AND status <> 'void'),"
    " (SELECT name FROM hq_customer WHERE shop = $1 AND id = $2::bigint)";

int hq_report_statement(const char *url, const char *shop, int64_t customer_id,
                        const char *currency,
                        int (*cb)(const struct hq_statement_line *l, void *arg), void *arg,
                        struct hq_statement_totals *t)
{
	char ids[24];
	const char *p[3] = {shop, ids, currency};
	struct hq_pg *h;
	PGresult *r;
	int rc, i, n;

	memset(t, 0, sizeof *t);
	if (!currency || strlen(currency) != 3)
		return err_set(FD_EINVAL, "%s", _("the currency is its three-letter code"));
	snprintf(ids, sizeof ids, "%lld", (long long)customer_id);
	if ((rc = report_open(url, shop, &h)) != 0)
		return rc;
	/* one transaction: the lines and the totals agree */
	if ((rc = pg_do(h, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
	                _("cannot compute the report"))) != 0)
		goto out;
	r = PQexecParams(h->conn, hq_statement_figures_sql, 3, NULL, p, NULL, NULL, 0);
	if ((rc = pg_result(h, r, _("cannot compute the report"))) == 0) {
		if (PQgetisnull(r, 0, 2))
			rc = err_set(FD_ENOTFOUND, _("shop %1$s sent no customer %2$lld"), shop,
			             (long long)customer_id);
		else {
			t->open = pg_num(r, 0, 0);
			t->credit = pg_num(r, 0, 1);
			snprintf(t->customer_name, sizeof t->customer_name, "%s",
			         PQgetvalue(r, 0, 2));
		}
	}
	PQclear(r);
	if (!rc && (rc = report_query(h, hq_statement_sql, 3, p, &r)) == 0) {
		n = PQntuples(r);
		for (i = 0; i < n && !rc; i++) {
			struct hq_statement_line l;

			memset(&l, 0, sizeof l);
			l.at = pg_num(r, i, 0);
			l.kind = PQgetvalue(r, i, 1);
			l.id = pg_num(r, i, 2);
			l.ref = PQgetisnull(r, i, 3) ? NULL : PQgetvalue(r, i, 3);
			l.target = PQgetisnull(r, i, 4) ? NULL : PQgetvalue(r, i, 4);
			l.amount = pg_num(r, i, 5);
			l.allocated = pg_num(r, i, 6);
			if (!strcmp(l.kind, "invoice"))
				t->invoiced += l.amount;
			else if (!strcmp(l.kind, "credit_note"))
				t->credited -= l.amount;
			else if (!strcmp(l.kind, "payment"))
				t->received -= l.amount;
			else if (!strcmp(l.kind, "refund"))
				t->refunded += l.amount;
			t->balance += l.amount;
			l.balance = t->balance;
			rc = cb ? cb(&l, arg) : 0;
		}
		PQclear(r);
	}
	PQclear(PQexec(h->conn, "ROLLBACK")); /* read only: nothing to keep */
out:
	hq_pg_close(h);
	return rc;
}

/* ------------------------------------------------------ commissions */

/* A shop's live records of one table as (shop, id, data): a record whose
 * newest change is its deletion (operate_type 2) is gone at the shop. */
#define HQ_LIVE(name, tbl)                                                                         \
	name " AS (SELECT r.shop, r.id, r.data FROM hq_record r JOIN b ON b.code = r.shop"         \
	     " WHERE r.tbl = '" tbl "' AND r.data->>'operate_type' <> '2')"

/* Each shop's period: [t0, t1) from the first day's start to the day
 * after the last, in the shop's time zone; the shops in code order. */
#define HQ_PERIOD_CTE                                                                                                                                               \
	"WITH " HQ_SHOPS_CTE ", b AS (SELECT code,"                                                                                                                 \
	" extract(epoch FROM ($2::date)::timestamp AT TIME ZONE tz)::bigint AS t0,"                                                                                 \
	" extract(epoch FROM (($3::date) + 1)::timestamp AT TIME ZONE tz)::bigint AS t1 FROM "                                                                      \
	"s)," HQ_LIVE("li", "line_item") ", " HQ_LIVE("so", "service_order") ", " HQ_LIVE("ap", "appointment") ", " HQ_LIVE("aw", "appointment_work") ", " HQ_LIVE( \
	    "inv",                                                                                                                                                  \
	    "invoice") ", " HQ_LIVE("il",                                                                                                                           \
	                            "invoice_line") ", " HQ_LIVE("res",                                                                                             \
	                                                         "resource") ", " HQ_LIVE("ar",                                                                     \
	                                                                                  "appoin"                                                                  \
	                                                                                  "tment_"                                                                  \
	                                                                                  "resour"                                                                  \
	                                                                                  "ce") ", " HQ_LIVE("pa",                                                  \
	                                                                                                     "payment_allocation") ", " HQ_LIVE("rf",               \
	                                                                                                                                        "refund")

/* commission.c's LINES_SQL over what the shops sent: each commissioned
 * line with its technician, first live visit, first issued invoice and
 * the time it counts, before the period's end. */
static const char hq_comm_lines_sql[] = HQ_PERIOD_CTE
    ", l AS (SELECT li.shop, li.id, li.data->>'description' AS description,"
    "  (li.data->>'amount')::bigint AS amount,"
    "  (li.data->>'commission_fixed')::bigint AS fixed, (li.data->>'commission_bp')::bigint AS bp,"
    "  so.data->>'currency' AS currency,"
    "  (SELECT a.id FROM aw JOIN ap a ON a.shop = aw.shop"
    "   AND a.id = (aw.data->>'appointment_id')::bigint"
    "   WHERE aw.shop = li.shop"
    "   AND (aw.data->>'service_order_id')::bigint = (li.data->>'service_order_id')::bigint"
    "   AND a.data->>'status' <> 'cancelled' AND a.data->>'status' <> 'no_show'"
    "   ORDER BY (a.data->>'start_at')::bigint, a.id LIMIT 1) AS visit_id,"
    "  (SELECT i.id FROM il JOIN inv i ON i.shop = il.shop"
    "   AND i.id = (il.data->>'invoice_id')::bigint"
    "   WHERE il.shop = li.shop AND (il.data->>'line_item_id')::bigint = li.id"
    "   AND i.data->>'kind' = 'invoice' AND i.data->>'status' <> 'void'"
    "   AND i.data->>'status' <> 'draft'"
    "   ORDER BY (i.data->>'issued_at')::bigint, i.id LIMIT 1) AS invoice_id,"
    "  (li.data->>'tech_id')::bigint AS tech_id"
    "  FROM li JOIN so ON so.shop = li.shop AND so.id = (li.data->>'service_order_id')::bigint"
    "  WHERE li.data->>'commission_fixed' IS NOT NULL OR li.data->>'commission_bp' IS NOT NULL),"
    " x AS (SELECT l.*, b.t0, b.t1,"
    "  CASE WHEN l.invoice_id IS NOT NULL THEN (i.data->>'issued_at')::bigint"
    "  ELSE (a.data->>'start_at')::bigint END AS at, (i.data->>'total')::bigint AS total,"
    "  coalesce(l.tech_id, (SELECT (ar.data->>'resource_id')::bigint FROM ar"
    "   JOIN res r ON r.shop = ar.shop AND r.id = (ar.data->>'resource_id')::bigint"
    "   WHERE ar.shop = l.shop AND (ar.data->>'appointment_id')::bigint = l.visit_id"
    "   AND r.data->>'kind' = 'technician' ORDER BY ar.id LIMIT 1)) AS tech"
    "  FROM l JOIN b ON b.code = l.shop"
    "  LEFT JOIN inv i ON i.shop = l.shop AND i.id = l.invoice_id"
    "  LEFT JOIN ap a ON a.shop = l.shop AND a.id = l.visit_id)"
    " SELECT x.shop, x.id, x.description, x.amount, coalesce(x.fixed, -1), coalesce(x.bp, -1),"
    "  x.currency, coalesce(x.visit_id, 0), coalesce(x.invoice_id, 0), t.id, t.data->>'name',"
    "  x.at, coalesce(x.total, 0), x.t0"
    " FROM x JOIN res t ON t.shop = x.shop AND t.id = x.tech"
    " WHERE x.at < x.t1 ORDER BY x.shop COLLATE \"C\"";

/* commission.c's credit notes and refunds of an invoice before the
 * period's end, for every invoice of the shops, in the order
 * commission_line asks (by shop and invoice first). */
static const char hq_comm_events_sql[] = HQ_PERIOD_CTE
    ", al AS (SELECT pa.shop, (pa.data->>'payment_id')::bigint AS payment_id,"
    "  (pa.data->>'invoice_id')::bigint AS invoice_id, sum((pa.data->>'amount')::bigint) AS part"
    "  FROM pa WHERE pa.data->>'reverses_id' IS NULL GROUP BY 1, 2, 3),"
    " alall AS (SELECT shop, payment_id, sum(part) AS alls FROM al GROUP BY 1, 2)"
    " SELECT * FROM (SELECT i.shop, (i.data->>'credits_id')::bigint AS inv, 0 AS refund, i.id,"
    "  (i.data->>'issued_at')::bigint AS at, -(i.data->>'total')::bigint AS amount, 0 AS part,"
    "  1 AS alls"
    "  FROM inv i JOIN b ON b.code = i.shop"
    "  WHERE i.data->>'kind' = 'credit_note' AND i.data->>'credits_id' IS NOT NULL"
    "  AND i.data->>'status' <> 'void' AND i.data->>'status' <> 'draft'"
    "  AND (i.data->>'issued_at')::bigint < b.t1"
    " UNION ALL"
    " SELECT r.shop, al.invoice_id, 1, r.id, (r.data->>'refunded_at')::bigint,"
    "  (r.data->>'amount')::bigint, al.part, alall.alls"
    "  FROM rf r JOIN b ON b.code = r.shop"
    "  JOIN al ON al.shop = r.shop AND al.payment_id = (r.data->>'payment_id')::bigint"
    "  JOIN alall ON alall.shop = al.shop AND alall.payment_id = al.payment_id"
    "  WHERE r.data->>'status' = 'succeeded' AND (r.data->>'refunded_at')::bigint < b.t1) e"
    " ORDER BY e.shop COLLATE \"C\", e.inv, e.at, e.refund, e.id";

struct comm_wrap {
	const char *shop;
	int (*row_cb)(const char *shop, const struct commission_row *r, void *arg);
	int (*total_cb)(const char *shop, const struct commission_total *t, void *arg);
	void *arg;
};

static int comm_row_w(const struct commission_row *r, void *arg)
{
	struct comm_wrap *w = arg;

	return w->row_cb ? w->row_cb(w->shop, r, w->arg) : 0;
}

static int comm_total_w(const struct commission_total *t, void *arg)
{
	struct comm_wrap *w = arg;

	return w->total_cb ? w->total_cb(w->shop, t, w->arg) : 0;
}

/* The events of shop's invoice inv: the first index of ev at or after
 * (shop, inv) in [0, n) (ev is ordered by shop, then invoice). */
static int ev_first(const PGresult *ev, int n, const char *shop, int64_t inv)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2, c = strcmp(PQgetvalue(ev, mid, 0), shop);

		if (c < 0 || (c == 0 && pg_num(ev, mid, 1) < inv))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int hq_report_commissions(
    const char *url, const char *shops, const char *from, const char *to,
    int (*row_cb)(const char *shop, const struct commission_row *r, void *arg),
    int (*total_cb)(const char *shop, const struct commission_total *t, void *arg), void *arg)
{
	const char *p[3] = {shops ? shops : "", from, to};
	struct commission_line *lines = NULL;
	struct commission_event *evs = NULL;
	struct hq_pg *h;
	PGresult *lr = NULL, *er = NULL;
	int rc, i, j, n, ne;

	if ((rc = period_ok(from, to)) != 0 || (rc = report_open(url, shops, &h)) != 0)
		return rc;
	/* one transaction: the lines and their invoices' events agree */
	if ((rc = pg_do(h, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
	                _("cannot compute the report"))) != 0)
		goto out;
	if ((rc = report_query(h, hq_comm_lines_sql, 3, p, &lr)) != 0 ||
	    (rc = report_query(h, hq_comm_events_sql, 3, p, &er)) != 0)
		goto out;
	n = PQntuples(lr);
	ne = PQntuples(er);
	lines = xcalloc((size_t)n + 1, sizeof *lines);
	evs = xcalloc((size_t)ne + 1, sizeof *evs);
	for (j = 0; j < ne; j++) {
		evs[j].refund = atoi(PQgetvalue(er, j, 2));
		evs[j].id = pg_num(er, j, 3);
		evs[j].at = pg_num(er, j, 4);
		evs[j].amount = pg_num(er, j, 5);
		evs[j].part = pg_num(er, j, 6);
		evs[j].all = pg_num(er, j, 7);
	}
	for (i = 0; i < n; i++) {
		struct commission_line *l = &lines[i];

		l->item_id = pg_num(lr, i, 1);
		l->description = PQgetvalue(lr, i, 2);
		l->line_amount = pg_num(lr, i, 3);
		l->fixed = pg_num(lr, i, 4);
		l->bp = pg_num(lr, i, 5);
		l->currency = PQgetvalue(lr, i, 6);
		l->visit_id = pg_num(lr, i, 7);
		l->invoice_id = pg_num(lr, i, 8);
		l->tech_id = pg_num(lr, i, 9);
		l->tech_name = PQgetvalue(lr, i, 10);
		l->at = pg_num(lr, i, 11);
		l->invoice_total = pg_num(lr, i, 12);
		if (l->invoice_id) {
			const char *shop = PQgetvalue(lr, i, 0);
			int k = ev_first(er, ne, shop, l->invoice_id), e = k;

			while (e < ne && !strcmp(PQgetvalue(er, e, 0), shop) &&
			       pg_num(er, e, 1) == l->invoice_id)
				e++;
			l->ev = evs + k;
			l->nev = (size_t)(e - k);
		}
	}
	/* shop by shop (the lines are in shop order), each as the shop's own */
	for (i = 0; i < n && !rc; i = j) {
		struct comm_wrap w = {PQgetvalue(lr, i, 0), row_cb, total_cb, arg};

		for (j = i; j < n && !strcmp(PQgetvalue(lr, j, 0), w.shop); j++)
			;
		rc = commission_compute(lines + i, (size_t)(j - i), pg_num(lr, i, 13), comm_row_w,
		                        comm_total_w, &w);
	}
out:
	free(lines);
	free(evs);
	PQclear(lr);
	PQclear(er);
	PQclear(PQexec(h->conn, "ROLLBACK")); /* read only: nothing to keep */
	hq_pg_close(h);
	return rc;
}
