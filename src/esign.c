/*
 * esign.c - estimates sent for signature, the e-sign callbacks, the files
 * of final documents and the purge of a customer's (see esign.h); the
 * worker's steps that move the sign flows are esign-flow.c, what both use
 * esign-int.h.
 *
 * Invariants: a flow's state only moves forward along status_transition
 * (the schema refuses the rest; apply_state decides before it asks); every
 * worker write checks the channel lease epoch in its own transaction
 * (control_fence); no transaction is open across a call to the provider;
 * a final document's file exists under its name only whole (temporary
 * file, fsync, rename, folder fsync) and is recorded only after that; the
 * outbox rows written here are integration_type 'esign' and only the esign
 * steps send them.
 *
 * Permissions: esign_send and esign_cancel ask job.edit; taking in and
 * carrying out the provider's answers asks nothing (esign-flow.c).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "clock.h"
#include "control.h"
#include "crypto-dyn.h"
#include "customer.h"
#include "db.h"
#include "dbrow.h"
#include "docnum.h"
#include "err.h"
#include "esign-int.h"
#include "esign.h"
#include "fsmode.h"
#include "i18n.h"
#include "inbox.h"
#include "item.h"
#include "job.h"
#include "money.h"
#include "outbox.h"
#include "pipe-log.h"
#include "pipe-provider.h"
#include "pipe-secret.h"
#include "print.h"
#include "retention-mod.h"
#include "settings.h"
#include "states.h"
#include "stopflag.h"
#include "strbuf.h"
#include "xalloc.h"

/* The stored word of each state, once. */
static const char *const state_words[ESIGN_STATES] = {
    [ESIGN_SENT] = "sent",         [ESIGN_VIEWED] = "viewed",   [ESIGN_SIGNED] = "signed",
    [ESIGN_DECLINED] = "declined", [ESIGN_EXPIRED] = "expired", [ESIGN_CANCELLED] = "cancelled",
};

/* The moves of a flow: the schema's status_transition rows for esign_flow
 * (states_agree checks the two are the same). Only forward: sent and
 * viewed are open, the rest final. */
static const struct state_move moves[] = {
    {ESIGN_SENT, ESIGN_VIEWED},      {ESIGN_SENT, ESIGN_SIGNED},
    {ESIGN_SENT, ESIGN_DECLINED},    {ESIGN_SENT, ESIGN_EXPIRED},
    {ESIGN_SENT, ESIGN_CANCELLED},   {ESIGN_VIEWED, ESIGN_SIGNED},
    {ESIGN_VIEWED, ESIGN_DECLINED},  {ESIGN_VIEWED, ESIGN_EXPIRED},
    {ESIGN_VIEWED, ESIGN_CANCELLED}, {-1, -1},
};

const struct states esign_states = {"esign_flow", state_words, ESIGN_STATES, moves};

const char *esign_state_name(enum esign_state s)
{
	const char *w = states_word(&esign_states, (int)s);

	return *w ? w : "?";
}

enum esign_state esign_state_of(const char *word)
{
	return (enum esign_state)states_of(&esign_states, word);
}

int esign_is_open(enum esign_state s)
{
	return s == ESIGN_SENT || s == ESIGN_VIEWED;
}

int esign_state_parse(const char *name, enum esign_state *s)
{
	enum esign_state st = esign_state_of(name);

	if (st == ESIGN_STATES)
		return err_set(FD_EINVAL, _("unknown sign flow state '%s'"), name ? name : "");
	*s = st;
	return 0;
}

int esign_may_move(enum esign_state a, enum esign_state b)
{
	return states_may_move(&esign_states, (int)a, (int)b);
}

void esign_envelope_free(struct esign_envelope *e)
{
	cJSON_free(e->evidence);
	e->evidence = NULL;
}

/* The adapter name of a provider's settings ("rest" when none). */
const struct esign_ops *esign_adapter_of(const struct pipe_provider *p)
{
	cJSON *set = cJSON_Parse(p->settings ? p->settings : "{}");
	cJSON *a = cJSON_GetObjectItemCaseSensitive(set, "adapter");
	const struct esign_ops *ops =
	    esign_adapter_find(cJSON_IsString(a) ? a->valuestring : "rest");

	cJSON_Delete(set);
	return ops;
}

int esign_conn_open(struct db *db, const char *code, const char *secrets_path,
                    volatile sig_atomic_t *stop, struct pipe_conn *c)
{
	struct pipe_secrets *sec = NULL;
	struct esign_cfg cfg = {0};
	const struct esign_ops *ops;
	int rc;

	if ((rc = pipe_conn_begin(db, ESIGN_TYPE, code, secrets_path, C_("provider", "e-sign"), c,
	                          &sec, &cfg.api_key)))
		return rc;
	if (!(ops = esign_adapter_of(&c->p))) {
		rc = err_set(FD_EINVAL, _("the provider '%s' names an unknown adapter"), c->p.code);
		goto out;
	}
	cfg.code = c->p.code;
	cfg.base_url = c->p.base_url;
	cfg.log = c->log;
	cfg.stop = stop;
	cfg.connect_timeout_ms = config_get_int("channel_connect_timeout_ms", 5000);
	cfg.total_timeout_ms = config_get_int("channel_timeout_ms", 30000);
	cfg.low_speed_secs = config_get_int("channel_low_speed_seconds", 10);
	if ((rc = ops->open(&cfg, &c->ectx)) != 0)
		goto out;
	c->eops = ops;
out:
	pipe_secret_free(sec);
	if (rc)
		pipe_conn_close(c);
	return rc;
}

/* ---------------------------------------------------------------- files */

char *esign_folder(struct db *db)
{
	char *dir = fsmode_parent(db_path(db));
	struct strbuf sb = {0};

	sb_printf(&sb, "%s/esign", dir);
	free(dir);
	return sb_steal(&sb);
}

int esign_file_sha256(const char *path, char out[65])
{
	unsigned char *b = NULL;
	size_t len = 0;
	int rc = fsmode_read_file(path, 64u << 20, &b, &len);

	if (!rc)
		rc = crypto_sha256_hex(b, len, out);
	free(b);
	return rc;
}

int esign_report_number(const char *number, long long *report, long long *flow)
{
	char tail;

	return sscanf(number, "CR-%lld-F%lld%c", report, flow, &tail) == 2 && *report > 0 &&
	       *flow > 0;
}

void esign_report_number_make(int64_t report, int64_t flow, char out[48])
{
	snprintf(out, 48, "CR-%lld-F%lld", (long long)report, (long long)flow);
}

void esign_subject_name(const char *number, char *out, size_t n)
{
	long long report, flow;

	if (esign_report_number(number, &report, &flow))
		snprintf(out, n, _("condition report %lld"), report);
	else
		snprintf(out, n, _("estimate %s"), number);
}

/* ---------------------------------------------------------------- estimates */

#define EST_COLS                                                                                   \
	"e.id, e.number, e.service_order_id, e.customer_id, c.name, j.title, e.currency,"          \
	" e.subtotal, e.tax, e.total, e.terms, e.lines, e.pdf_path, e.pdf_sha256, e.pdf_size,"     \
	" e.created_at, f.id, f.provider_code, coalesce(f.envelope_id, ''), f.status,"             \
	" coalesce(f.status_at, 0), f.ignored_reason, coalesce(f.document_path, ''),"              \
	" coalesce(f.document_sha256, ''), coalesce(f.document_size, 0),"                          \
	" coalesce(f.document_at, 0), f.evidence,"                                                 \
	" coalesce((SELECT o.status FROM outbox_event o WHERE o.event_type = 'envelope.create'"    \
	"  AND o.business_key = e.number), '')"
#define EST_FROM                                                                                   \
	" FROM estimate e JOIN esign_flow f ON f.estimate_id = e.id"                               \
	" JOIN customer c ON c.id = e.customer_id JOIN service_order j ON j.id = "                 \
	"e.service_order_id"

static void est_fill(sqlite3_stmt *st, struct estimate *e)
{
	memset(e, 0, sizeof *e);
	e->id = sqlite3_column_int64(st, 0);
	dbrow_copy(st, 1, e->number, sizeof e->number);
	e->job_id = sqlite3_column_int64(st, 2);
	e->customer_id = sqlite3_column_int64(st, 3);
	e->customer_name = dbrow_dup(st, 4);
	e->job_title = dbrow_dup(st, 5);
	dbrow_copy(st, 6, e->currency, sizeof e->currency);
	e->subtotal = sqlite3_column_int64(st, 7);
	e->tax = sqlite3_column_int64(st, 8);
	e->total = sqlite3_column_int64(st, 9);
	e->terms = dbrow_dup(st, 10);
	e->lines = dbrow_dup(st, 11);
	dbrow_copy(st, 12, e->pdf_path, sizeof e->pdf_path);
	dbrow_copy(st, 13, e->pdf_sha256, sizeof e->pdf_sha256);
	e->pdf_size = sqlite3_column_int64(st, 14);
	e->created_at = sqlite3_column_int64(st, 15);
	e->flow_id = sqlite3_column_int64(st, 16);
	dbrow_copy(st, 17, e->provider, sizeof e->provider);
	dbrow_copy(st, 18, e->envelope_id, sizeof e->envelope_id);
	dbrow_copy(st, 19, e->state, sizeof e->state);
	e->state_at = sqlite3_column_int64(st, 20);
	e->ignored_reason = dbrow_dup(st, 21);
	dbrow_copy(st, 22, e->document_path, sizeof e->document_path);
	dbrow_copy(st, 23, e->document_sha256, sizeof e->document_sha256);
	e->document_size = sqlite3_column_int64(st, 24);
	e->document_at = sqlite3_column_int64(st, 25);
	e->evidence = dbrow_dup(st, 26);
	dbrow_copy(st, 27, e->outbox_status, sizeof e->outbox_status);
}

void esign_estimate_free(struct estimate *e)
{
	free(e->customer_name);
	free(e->job_title);
	free(e->terms);
	free(e->lines);
	free(e->ignored_reason);
	free(e->evidence);
	memset(e, 0, sizeof *e);
}

int esign_get(struct db *db, int64_t id, struct estimate *out)
{
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	if ((rc = db_prepare(db, "SELECT " EST_COLS EST_FROM " WHERE e.id = ?1", &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		est_fill(st, out);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, _("there is no estimate %lld"), (long long)id);
	else
		rc = db_fail(db, _("cannot read the estimate"));
	sqlite3_finalize(st);
	return rc;
}

int esign_find(struct db *db, const char *text, int64_t *id)
{
	sqlite3_stmt *st;
	char *end;
	long long v;
	int rc;

	*id = 0;
	if (!text || !*text)
		return err_set(FD_EINVAL, _("name the estimate (EST-... or its id)"));
	errno = 0;
	v = strtoll(text, &end, 10);
	rc = db_prepare(db, "SELECT id FROM estimate WHERE number = ?1 OR id = ?2", &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, (!*end && !errno && v > 0) ? v : -1);
	if (sqlite3_step(st) == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	else
		rc = err_set(FD_ENOTFOUND, _("there is no estimate '%s'"), text);
	sqlite3_finalize(st);
	return rc;
}

int esign_list(struct db *db, int64_t job_id, int (*cb)(const struct estimate *e, void *arg),
               void *arg)
{
	sqlite3_stmt *st;
	struct estimate e;
	int rc, step;

	rc = db_prepare(db,
	                "SELECT " EST_COLS EST_FROM
	                " WHERE ?1 = 0 OR e.service_order_id = ?1 ORDER BY e.id DESC",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, job_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		est_fill(st, &e);
		rc = cb(&e, arg);
		esign_estimate_free(&e);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list the estimates"));
	sqlite3_finalize(st);
	return rc;
}

int esign_job_state(struct db *db, int64_t job_id, char state[16], int64_t *estimate)
{
	sqlite3_stmt *st;
	int rc;

	state[0] = '\0';
	if (estimate)
		*estimate = 0;
	/* the signed estimate first, else the newest */
	rc = db_prepare_cached(db,
	                       "SELECT e.id, CASE WHEN f.status = 'signed' THEN 'authorised'"
	                       " ELSE f.status END FROM estimate e JOIN esign_flow f"
	                       " ON f.estimate_id = e.id WHERE e.service_order_id = ?1"
	                       " ORDER BY f.status = 'signed' DESC, e.id DESC LIMIT 1",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, job_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (estimate)
			*estimate = sqlite3_column_int64(st, 0);
		snprintf(state, 16, "%s", (const char *)sqlite3_column_text(st, 1));
	}
	db_release(db, st);
	return 0;
}

int esign_visit_may_start(struct db *db, int64_t appt_id)
{
	sqlite3_stmt *st;
	int64_t job = 0;
	int rc;

	if (config_get_int("esign_require_authorised", 0) != 1)
		return 0;
	rc = db_prepare_cached(
	    db,
	    "SELECT w.service_order_id FROM appointment_work w WHERE w.appointment_id = ?1"
	    " AND NOT EXISTS (SELECT 1 FROM estimate e JOIN esign_flow f ON f.estimate_id = e.id"
	    "  WHERE e.service_order_id = w.service_order_id AND f.status = 'signed')"
	    " ORDER BY w.service_order_id LIMIT 1",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, appt_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		job = sqlite3_column_int64(st, 0);
	db_release(db, st);
	if (job)
		return err_set(
		    FD_ECONFLICT,
		    _("job %lld is not authorised: its estimate is not signed yet "
		      "(esign_require_authorised is on; send it with 'frontdesk estimate "
		      "send %lld')"),
		    (long long)job, (long long)job);
	return 0;
}

/* What esign_send builds before its transaction writes it. */
struct send_ctx {
	int64_t job_id;
	const char *provider;
	int64_t id;
};

struct est_lines {
	struct print_est_line *v;
	char **desc;
	size_t n;
	cJSON *json;
	int64_t subtotal, tax;
	int overflow;
};

static int collect_item(const struct line_item *li, void *arg)
{
	struct est_lines *L = arg;
	cJSON *o = cJSON_CreateObject();
	int64_t *sum = !strcmp(li->kind, "TAX") ? &L->tax : &L->subtotal;

	L->v = xrealloc(L->v, (L->n + 1) * sizeof *L->v);
	L->desc = xrealloc(L->desc, (L->n + 1) * sizeof *L->desc);
	L->desc[L->n] = xstrdup(li->description);
	L->v[L->n].description = L->desc[L->n];
	L->v[L->n].qty_milli = li->qty_milli;
	L->v[L->n].unit_price = li->unit_price;
	L->v[L->n].amount = li->amount;
	L->n++;
	if (money_add(*sum, li->amount, sum))
		L->overflow = 1;
	cJSON_AddStringToObject(o, "kind", li->kind);
	cJSON_AddStringToObject(o, "description", li->description);
	chan_json_add_int(o, "qty_milli", li->qty_milli);
	chan_json_add_int(o, "unit_price", li->unit_price);
	chan_json_add_int(o, "amount", li->amount);
	cJSON_AddItemToArray(L->json, o);
	return 0;
}

static void lines_free(struct est_lines *L)
{
	size_t i;

	for (i = 0; i < L->n; i++)
		free(L->desc[i]);
	free(L->desc);
	free(L->v);
	cJSON_Delete(L->json);
}

/* What send_tx gathers, step by step, inside its transaction. */
struct send_work {
	struct job j;       /* the job the estimate is for */
	struct est_lines L; /* its line items, totals and their JSON */
	struct docnum dn;   /* the estimate's number */
	const char *terms;  /* esign_terms, borrowed from the configuration */
	int64_t now, total; /* the time of the estimate; subtotal + tax */
	char code[41];      /* the provider the flow goes through */
	char hash[65];      /* the PDF's SHA-256, hex */
	char *pdf_path;     /* the PDF beside the database, owned */
	size_t pdf_len;     /* its size in bytes */
	int made;           /* the PDF was written: it goes if the transaction fails */
};

/* send_check_job - refuse a cancelled job, or one whose estimate already
 * waits for its signature or is signed. */
static int send_check_job(struct db *db, const struct send_ctx *s, const struct job *j)
{
	sqlite3_stmt *st;
	int64_t busy = 0;
	int rc;

	if (job_state_of(j->status) == JOB_CANCELLED)
		return err_set(FD_ECONFLICT, _("job %lld is cancelled"), (long long)s->job_id);
	rc = db_prepare_cached(db,
	                       "SELECT count(*) FROM estimate e JOIN esign_flow f"
	                       " ON f.estimate_id = e.id WHERE e.service_order_id = ?1"
	                       " AND f.status IN ('sent', 'viewed', 'signed')",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, s->job_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		busy = sqlite3_column_int64(st, 0);
	db_release(db, st);
	if (busy)
		return err_set(FD_ECONFLICT,
		               _("job %lld already has an estimate waiting for its signature or "
		                 "signed (cancel it first with 'frontdesk estimate cancel')"),
		               (long long)s->job_id);
	return 0;
}

/* send_collect_lines - read the job's line items into w->L and check the
 * estimate they make: some lines, a positive total that fits, terms that
 * fit. */
static int send_collect_lines(struct db *db, const struct send_ctx *s, struct send_work *w)
{
	int rc;

	w->L.json = cJSON_CreateArray();
	if ((rc = item_list(db, s->job_id, collect_item, &w->L)) != 0)
		return rc;
	if (w->L.n == 0)
		return err_set(FD_EINVAL, _("job %lld has no line items to put on an estimate"),
		               (long long)s->job_id);
	if (w->L.overflow || money_add(w->L.subtotal, w->L.tax, &w->total))
		return err_set(FD_EINVAL, _("the estimate's total is too large"));
	if (w->total <= 0)
		return err_set(FD_EINVAL,
		               _("the estimate's total is not positive: nothing to authorise"));
	if (strlen(w->terms) > 4000)
		return err_set(FD_EINVAL, _("esign_terms is longer than 4000 bytes"));
	return 0;
}

/* send_write_pdf - print the estimate's PDF beside the database, then read
 * it back for its size and hash. Sets w->made once the file exists. */
static int send_write_pdf(struct db *db, struct send_work *w)
{
	struct print_estimate pe = {0};
	struct strbuf sb = {0};
	unsigned char *pdf = NULL;
	char *dir = NULL;
	int rc;

	pe.number = w->dn.number;
	pe.customer = w->j.customer_name;
	pe.job = w->j.title;
	pe.currency = w->j.currency;
	pe.terms = w->terms;
	pe.made_at = w->now;
	pe.subtotal = w->L.subtotal;
	pe.tax = w->L.tax;
	pe.total = w->total;
	pe.lines = w->L.v;
	pe.n = w->L.n;
	dir = esign_folder(db);
	sb_printf(&sb, "%s/%s.pdf", dir, w->dn.number);
	w->pdf_path = sb_steal(&sb);
	if ((rc = fsmode_mkdirs(w->pdf_path)) != 0)
		goto out;
	if ((rc = print_estimate_pdf(&pe, w->pdf_path)) != 0)
		goto out;
	w->made = 1;
	if ((rc = fsmode_read_file(w->pdf_path, 64u << 20, &pdf, &w->pdf_len)) != 0)
		goto out;
	rc = crypto_sha256_hex(pdf, w->pdf_len, w->hash);
out:
	free(pdf);
	free(dir);
	return rc;
}

/* send_save_estimate - insert the estimate row; its id into s->id. */
static int send_save_estimate(struct db *db, struct send_ctx *s, const struct send_work *w)
{
	sqlite3_stmt *st;
	char *lines = cJSON_PrintUnformatted(w->L.json);
	char rel[64];
	int rc;

	rc = db_prepare_cached(
	    db,
	    "INSERT INTO estimate (number, year, seq, service_order_id, customer_id, currency,"
	    " subtotal, tax, total, lines, terms, pdf_path, pdf_sha256, pdf_size, created_at)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
	    &st);
	if (rc)
		goto out;
	sqlite3_bind_text(st, 1, w->dn.number, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, w->dn.year);
	sqlite3_bind_int64(st, 3, w->dn.seq);
	sqlite3_bind_int64(st, 4, s->job_id);
	sqlite3_bind_int64(st, 5, w->j.customer_id);
	sqlite3_bind_text(st, 6, w->j.currency, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 7, w->L.subtotal);
	sqlite3_bind_int64(st, 8, w->L.tax);
	sqlite3_bind_int64(st, 9, w->total);
	sqlite3_bind_text(st, 10, lines, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 11, w->terms, -1, SQLITE_TRANSIENT);
	snprintf(rel, sizeof rel, "%s.pdf", w->dn.number);
	sqlite3_bind_text(st, 12, rel, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 13, w->hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 14, (int64_t)w->pdf_len);
	sqlite3_bind_int64(st, 15, w->now);
	if ((rc = db_run_cached(db, st, _("cannot save the estimate"))) != 0)
		goto out;
	s->id = sqlite3_last_insert_rowid(db_sqlite(db));
out:
	cJSON_free(lines);
	return rc;
}

/* send_save_flow - insert the estimate's sign flow, state 'sent'. */
static int send_save_flow(struct db *db, const struct send_ctx *s, const struct send_work *w)
{
	sqlite3_stmt *st;
	int rc;

	db_set_reason(db, "sent for signature");
	rc = db_prepare_cached(db,
	                       "INSERT INTO esign_flow (estimate_id, provider_code, status,"
	                       " created_at, updated_at) VALUES (?1, ?2, 'sent', ?3, ?3)",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, s->id);
	sqlite3_bind_text(st, 2, w->code, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, w->now);
	rc = db_run_cached(db, st, _("cannot save the sign flow"));
	db_set_reason(db, NULL);
	return rc;
}

/* send_enqueue_create - queue the provider's envelope.create command under
 * a fresh idempotency key. */
static int send_enqueue_create(struct db *db, const struct send_ctx *s, const struct send_work *w)
{
	struct outbox_new c = {
	    ESIGN_TYPE, "envelope.create", w->dn.number, w->code, NULL, NULL, w->now, 0};
	char key[17], ik[40], *payload;
	cJSON *p;
	int rc;

	if ((rc = chan_random_hex(key)) != 0)
		return rc;
	p = cJSON_CreateObject();
	chan_json_add_int(p, "estimate_id", s->id);
	cJSON_AddStringToObject(p, "number", w->dn.number);
	cJSON_AddStringToObject(p, "pdf_sha256", w->hash);
	payload = cJSON_PrintUnformatted(p);
	cJSON_Delete(p);
	snprintf(ik, sizeof ik, "esign-%s", key);
	c.payload = payload;
	c.idem_key = ik;
	rc = outbox_enqueue(db, &c, NULL);
	cJSON_free(payload);
	return rc;
}

static int send_tx(struct db *db, void *arg)
{
	struct send_ctx *s = arg;
	struct send_work w = {0};
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "send an estimate of job %lld for signing",
	         (long long)s->job_id);
	if ((rc = control_require(db, PERM_JOB_EDIT, 0, subject)) != 0)
		return rc;
	w.now = clock_now();
	w.terms = config_get("esign_terms", "");
	if ((rc = job_get(db, s->job_id, &w.j)) != 0)
		return rc;
	if ((rc = send_check_job(db, s, &w.j)) != 0)
		goto out;
	if ((rc = send_collect_lines(db, s, &w)) != 0)
		goto out;
	if (s->provider && (rc = pipe_provider_pick(db, ESIGN_TYPE, s->provider,
	                                            C_("provider", "e-sign"), NULL, w.code)) != 0)
		goto out;
	if ((rc = docnum_take(db, "EST", w.now, &w.dn)) != 0)
		goto out;
	if (!s->provider &&
	    (rc = pipe_provider_route_type(db, ESIGN_TYPE, w.dn.number, w.code)) != 0)
		goto out;
	if ((rc = send_write_pdf(db, &w)) != 0)
		goto out;
	if ((rc = send_save_estimate(db, s, &w)) != 0)
		goto out;
	if ((rc = send_save_flow(db, s, &w)) != 0)
		goto out;
	rc = send_enqueue_create(db, s, &w);
out:
	if (rc && w.made)
		unlink(w.pdf_path); /* the number went back with the rollback */
	free(w.pdf_path);
	lines_free(&w.L);
	job_free(&w.j);
	return rc;
}

int esign_send(struct db *db, int64_t job_id, const char *provider, int64_t *id)
{
	struct send_ctx s = {job_id, provider, 0};
	int rc;

	*id = 0;
	if (job_id <= 0)
		return err_set(FD_EINVAL, _("name the job by its id"));
	if ((rc = db_write(db, send_tx, &s)) == 0)
		*id = s.id;
	return rc;
}

/* INSIDE a transaction: a command for flow's provider. */
int esign_enqueue(struct db *db, const char *type, const char *number, const char *code,
                  const char *envelope_id)
{
	cJSON *p = cJSON_CreateObject();
	char key[17], ik[40], *payload;
	int64_t now = clock_now();
	int rc;

	if ((rc = chan_random_hex(key)) != 0) {
		cJSON_Delete(p);
		return rc;
	}
	snprintf(ik, sizeof ik, "esign-%s", key);
	cJSON_AddStringToObject(p, "number", number);
	cJSON_AddStringToObject(p, "envelope_id", envelope_id);
	payload = cJSON_PrintUnformatted(p);
	cJSON_Delete(p);
	{
		struct outbox_new c = {ESIGN_TYPE, type, number, code, ik, payload, now, 1};

		rc = outbox_enqueue(db, &c, NULL);
	}
	cJSON_free(payload);
	return rc;
}

struct cancel_ctx {
	int64_t id;
	const char *reason;
};

static int cancel_tx(struct db *db, void *arg)
{
	struct cancel_ctx *c = arg;
	struct estimate e;
	sqlite3_stmt *st;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "cancel estimate %lld", (long long)c->id);
	if ((rc = control_require(db, PERM_JOB_EDIT, 0, subject)) != 0)
		return rc;
	if ((rc = esign_get(db, c->id, &e)) != 0)
		return rc;
	if (!esign_is_open(esign_state_of(e.state))) {
		rc = err_set(FD_ECONFLICT,
		             _("estimate %s is %s: only one waiting for its signature "
		               "can be cancelled"),
		             e.number, e.state);
		goto out;
	}
	db_set_reason(db, c->reason);
	rc = db_prepare_cached(db,
	                       "UPDATE esign_flow SET status = 'cancelled', updated_at = ?2"
	                       " WHERE id = ?1",
	                       &st);
	if (!rc) {
		sqlite3_bind_int64(st, 1, e.flow_id);
		sqlite3_bind_int64(st, 2, clock_now());
		rc = db_run_cached(db, st, _("cannot cancel the sign flow"));
	}
	db_set_reason(db, NULL);
	if (!rc && *e.envelope_id)
		rc = esign_enqueue(db, "envelope.cancel", e.number, e.provider, e.envelope_id);
out:
	esign_estimate_free(&e);
	return rc;
}

int esign_cancel(struct db *db, int64_t id, const char *reason)
{
	struct cancel_ctx c = {id, reason};

	if (!reason || !*reason)
		return err_set(FD_EINVAL, _("say why the estimate is cancelled (--reason)"));
	if (strlen(reason) > 500)
		return err_set(FD_EINVAL, _("the reason is longer than 500 bytes"));
	return db_write(db, cancel_tx, &c);
}

static char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return xstrdup(cJSON_IsString(v) ? v->valuestring : "");
}

static int64_t time_of(const cJSON *o, const char *key)
{
	int64_t t = 0;

	if (chan_json_int(cJSON_GetObjectItemCaseSensitive(o, key), key, &t) != 0)
		t = 0;
	return t;
}

int esign_evidence_read(const char *json, struct esign_evidence *out)
{
	cJSON *j = json ? cJSON_Parse(json) : NULL;
	const cJSON *sg, *s;

	memset(out, 0, sizeof *out);
	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return err_set(FD_EINVAL, _("the stored evidence cannot be read"));
	}
	sg = cJSON_GetObjectItemCaseSensitive(j, "signers");
	if (!cJSON_IsArray(sg))
		sg = NULL;
	cJSON_ArrayForEach(s, sg)
	{
		struct esign_signer *x;

		if (!cJSON_IsObject(s))
			continue;
		out->signers = xrealloc(out->signers, (out->n + 1) * sizeof *out->signers);
		x = &out->signers[out->n++];
		x->name = str_of(s, "name");
		x->email = str_of(s, "email");
		x->ip = str_of(s, "ip");
		x->viewed_at = time_of(s, "viewed_at");
		x->signed_at = time_of(s, "signed_at");
	}
	out->timestamp_token = str_of(j, "timestamp_token");
	out->certificate_id = str_of(j, "certificate_id");
	cJSON_Delete(j);
	return 0;
}

void esign_evidence_free(struct esign_evidence *ev)
{
	size_t i;

	for (i = 0; i < ev->n; i++) {
		free(ev->signers[i].name);
		free(ev->signers[i].email);
		free(ev->signers[i].ip);
	}
	free(ev->signers);
	free(ev->timestamp_token);
	free(ev->certificate_id);
	memset(ev, 0, sizeof *ev);
}

/* ---------------------------------------------------------------- callbacks */

int esign_command_fits(struct db *db, const struct outbox_cmd *o)
{
	int create = !strcmp(o->event_type, "envelope.create");
	sqlite3_stmt *st;
	char state[16] = "", what[80];
	int rc;

	if (!create && strcmp(o->event_type, "envelope.cancel"))
		return 0;
	if ((rc = db_prepare_cached(
	         db, "SELECT f.status" ESIGN_FLOW_FROM " WHERE " ESIGN_FLOW_NUMBER " = ?1", &st)) !=
	    0)
		return rc;
	sqlite3_bind_text(st, 1, o->business_key, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(state, sizeof state, "%s", (const char *)sqlite3_column_text(st, 0));
	db_release(db, st);
	if (create ? esign_is_open(esign_state_of(state))
	           : esign_state_of(state) == ESIGN_CANCELLED)
		return 0;
	esign_subject_name(o->business_key, what, sizeof what);
	return err_set(FD_ECONFLICT,
	               create ? _("%s is %s: its envelope is not sent again")
	                      : _("%s is %s: its withdrawal is not sent again"),
	               what, *state ? state : _("unknown"));
}

int esign_ingest(struct db *db, const char *code, const char *secrets_path, const char *header,
                 const void *raw, size_t len, struct inbox_ingest_result *r)
{
	struct pipe_provider p;
	struct pipe_secrets *sec = NULL;
	const struct esign_ops *ops;
	const char *secret = NULL;
	struct inbox_relayed x = {0};
	struct esign_callback cb;
	char key[64];
	int rc;

	memset(r, 0, sizeof *r);
	if ((rc = inbox_relay_begin(len)) != 0)
		return rc;
	if ((rc = pipe_provider_get_type(db, ESIGN_TYPE, code, &p)) != 0)
		return rc;
	ops = esign_adapter_of(&p);
	pipe_provider_free(&p);
	if (!ops)
		return err_set(FD_EINVAL, _("the provider '%s' names an unknown adapter"), code);
	if ((rc = pipe_secret_load(secrets_path, &sec)) != 0)
		return rc;
	snprintf(key, sizeof key, "%s_%s", code, ops->secret_name);
	if ((rc = pipe_secret_need(sec, key, &secret)) != 0)
		goto out;
	x.source = code;
	x.type = ESIGN_TYPE;
	x.header = header;
	x.payload = raw;
	x.len = len;
	x.json = 1; /* its callbacks are JSON */
	x.verified = ops->verify(secret, header, raw, len) == 0;
	if (x.verified && (x.readable = ops->read_callback(raw, len, &cb) == 0)) {
		x.external_id = cb.id;
		x.event_type = cb.type;
		x.object_id = cb.envelope_id;
		x.created = cb.created;
	}
	rc = inbox_store_relayed(db, &x, r);
out:
	pipe_secret_free(sec);
	return rc;
}

/* ---------------------------------------------------------------- retention */

/* The flows of customer ?1: their estimates', and their condition
 * reports' (the visit's jobs are the customer's: condition_add's rule). */
#define CUSTOMER_FLOWS                                                                             \
	"SELECT f.id FROM esign_flow f LEFT JOIN estimate e ON e.id = f.estimate_id"               \
	" WHERE e.customer_id = ?1 OR f.report_id IN (SELECT r.id FROM condition_report r"         \
	"  JOIN appointment_work w ON w.appointment_id = r.appointment_id"                         \
	"  JOIN service_order s ON s.id = w.service_order_id WHERE s.customer_id = ?1)"

int esign_retention_blocker(struct db *db, int64_t customer_id, char *why, size_t n)
{
	char num[64], what[80];
	int rc;

	rc = retention_first(db,
	                     "SELECT " ESIGN_FLOW_NUMBER ESIGN_FLOW_FROM
	                     " WHERE f.id IN (" CUSTOMER_FLOWS
	                     ") AND f.status IN ('sent', 'viewed') ORDER BY f.id LIMIT 1",
	                     customer_id, num, sizeof num);
	if (rc == 1) {
		esign_subject_name(num, what, sizeof what);
		snprintf(why, n, _("%s is out for signature"), what);
	}
	return rc;
}

/* The signed documents and envelope ids of the customer's condition
 * reports' flows: files to remove, words no file may keep. */
static int report_flows_purge(struct db *db, struct retention_purge_ctx *c)
{
	sqlite3_stmt *st;
	int rc, step, i;

	rc = db_prepare(
	    db,
	    "SELECT envelope_id, document_path FROM esign_flow WHERE report_id IS NOT NULL"
	    " AND id IN (" CUSTOMER_FLOWS ")",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, c->customer_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		for (i = 0; i <= 1; i++)
			if (sqlite3_column_type(st, i) != SQLITE_NULL)
				(i == 0 ? c->needle
				        : c->file)(c, (const char *)sqlite3_column_text(st, i));
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the sign flows"));
	sqlite3_finalize(st);
	return rc;
}

/* The estimate's lines and terms, its PDF, the signed document and the
 * evidence (signers' names, addresses, IPs) go; numbers, totals and hashes
 * stay. */
int esign_retention_purge(struct db *db, struct retention_purge_ctx *c)
{
	static const struct retention_stmt v[] = {
	    {"UPDATE estimate SET lines = '[]', terms = '' WHERE customer_id = ?1"
	     " AND (lines IS NOT '[]' OR terms IS NOT '')",
	     N_("cannot clear the estimates")},
	    {"UPDATE esign_flow SET evidence = NULL, document_path = NULL, ignored_reason = NULL"
	     " WHERE id IN (" CUSTOMER_FLOWS ")"
	     " AND (evidence IS NOT NULL OR document_path IS NOT NULL OR ignored_reason IS NOT "
	     "NULL)",
	     N_("cannot clear the sign flows")},
	    {"UPDATE esign_flow_his SET evidence = NULL, document_path = NULL, ignored_reason = "
	     "NULL"
	     " WHERE id IN (" CUSTOMER_FLOWS ")"
	     " AND (evidence IS NOT NULL OR document_path IS NOT NULL OR ignored_reason IS NOT "
	     "NULL)",
	     N_("cannot clear the sign flows' history")},
	    {"UPDATE status_flow SET reason = NULL WHERE entity = 'esign_flow' AND reason IS NOT "
	     "NULL AND entity_id IN (" CUSTOMER_FLOWS ")",
	     N_("cannot clear the sign flows' status reasons")},
	};
	sqlite3_stmt *st;
	int rc, step;

	rc =
	    db_prepare(db,
	               "SELECT e.number, e.pdf_path, f.envelope_id, f.document_path FROM estimate e"
	               " LEFT JOIN esign_flow f ON f.estimate_id = e.id WHERE e.customer_id = ?1",
	               &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, c->customer_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int i;

		c->needle(c, (const char *)sqlite3_column_text(st, 0));
		c->file(c, (const char *)sqlite3_column_text(st, 1));
		for (i = 2; i <= 3; i++)
			if (sqlite3_column_type(st, i) != SQLITE_NULL)
				(i == 2 ? c->needle
				        : c->file)(c, (const char *)sqlite3_column_text(st, i));
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list the customer's estimates"));
	sqlite3_finalize(st);
	if (!rc)
		rc = report_flows_purge(db, c);
	return rc ? rc : retention_exec_all(db, v, sizeof v / sizeof v[0], c->customer_id);
}
