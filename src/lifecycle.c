/*
 * lifecycle.c - the customer lifecycle projection (see lifecycle.h).
 *
 * Invariants: a row is a pure function of the records at the moment of the
 * write transaction that computes it (lifecycle_rebuild_in_tx reads and
 * writes inside it), and is written only when it differs from the stored
 * one. The state, deletion id, generation and purge date are copied from
 * retention_process, the authoritative record of deletions; "purged" from
 * retention_purged, which names no deletion.
 *
 * Permissions: computing a row asks nothing; lifecycle_rebuild_all asks
 * operations.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "lifecycle.h"
#include "migrate.h"
#include "retention-mod.h"
#include "settings.h"
#include "states.h"
#include "strbuf.h"
#include "xalloc.h"

/* The stored word of each state of a row, once (the schema names no moves
 * for customer_lifecycle: a row is computed, never moved). */
static const char *const state_words[LIFECYCLE_STATES] = {
    [LIFECYCLE_ACTIVE] = "active",
    [LIFECYCLE_PREPARING] = "preparing",
    [LIFECYCLE_SOFT_DELETED] = "soft_deleted",
    [LIFECYCLE_PURGING] = "purging",
    [LIFECYCLE_PURGED] = "purged",
};
static const struct state_move no_moves[] = {{-1, -1}};
static const struct states lifecycle_states = {"customer_lifecycle", state_words, LIFECYCLE_STATES,
                                               no_moves};

enum lifecycle_state lifecycle_state_of(const char *word)
{
	return (enum lifecycle_state)states_of(&lifecycle_states, word);
}

const char *lifecycle_state_word(enum lifecycle_state s)
{
	return states_word(&lifecycle_states, (int)s);
}

enum { ACT_VISITS = 1, ACT_PAYMENTS = 2, ACT_CONTACTS = 4, ACT_ORDERS = 8 };

/* The kinds of activity retention_activity lists; unknown words are ignored
 * and an empty or unusable list means the default. */
static int activity_kinds(void)
{
	const char *v = config_get("retention_activity", "visits,payments");
	static const struct {
		const char *word;
		int bit;
	} words[] = {{"visits", ACT_VISITS},
	             {"payments", ACT_PAYMENTS},
	             {"contacts", ACT_CONTACTS},
	             {"orders", ACT_ORDERS}};
	int bits = 0;
	size_t i;

	while (v && *v) {
		size_t n = strcspn(v, ", ");

		for (i = 0; i < sizeof words / sizeof words[0]; i++)
			if (strlen(words[i].word) == n && !strncmp(words[i].word, v, n))
				bits |= words[i].bit;
		v += n;
		v += strspn(v, ", ");
	}
	return bits ? bits : ACT_VISITS | ACT_PAYMENTS;
}

#define COMPUTE_SQL                                                                                \
	"SELECT c.created_at,"                                                                     \
	" (SELECT max(a.start_at) FROM service_order s"                                            \
	"   JOIN appointment_work w ON w.service_order_id = s.id"                                  \
	"   JOIN appointment a ON a.id = w.appointment_id"                                         \
	"   WHERE s.customer_id = c.id AND a.status <> 'cancelled'),"                              \
	" (SELECT max(received_at) FROM payment WHERE customer_id = c.id AND status <> 'void'),"   \
	" (SELECT max(r.refunded_at) FROM payment y JOIN refund r ON r.payment_id = y.id"          \
	"   WHERE y.customer_id = c.id AND r.status <> 'failed'),"                                 \
	" (SELECT max(at) FROM contact_log WHERE customer_id = c.id),"                             \
	" (SELECT max(created_at) FROM pay_order WHERE customer_id = c.id),"                       \
	" (SELECT count(DISTINCT a.id) FROM service_order s"                                       \
	"   JOIN appointment_work w ON w.service_order_id = s.id"                                  \
	"   JOIN appointment a ON a.id = w.appointment_id"                                         \
	"   WHERE s.customer_id = c.id AND " RETENTION_VISIT_OPEN "),"                             \
	" (SELECT count(*) FROM invoice WHERE customer_id = c.id AND " RETENTION_INVOICE_OWING     \
	"),"                                                                                       \
	" (SELECT count(*) FROM payment WHERE customer_id = c.id AND " RETENTION_PAYMENT_CREDIT    \
	")"                                                                                        \
	"  + (SELECT count(*) FROM invoice WHERE customer_id = c.id"                               \
	"   AND " RETENTION_INVOICE_OVERPAID "),"                                                  \
	" EXISTS (SELECT 1 FROM retention_hold WHERE customer_id = c.id),"                         \
	" EXISTS (SELECT 1 FROM retention_purged WHERE customer_id = c.id),"                       \
	" p.state, p.deletion_id, p.generation, p.delete_after,"                                   \
	" (SELECT max(generation) FROM retention_process WHERE customer_id = c.id),"               \
	" (SELECT max(at) FROM retention_activity WHERE customer_id = c.id)"                       \
	" FROM customer c LEFT JOIN retention_process p ON p.customer_id = c.id"                   \
	"  AND p.state IN ('preparing', 'soft_deleted', 'purging')"                                \
	" WHERE c.id = ?1"

int lifecycle_compute(struct db *db, int64_t customer_id, struct lifecycle_row *out)
{
	sqlite3_stmt *st;
	int rc, step, kinds = activity_kinds();
	int64_t last;

	memset(out, 0, sizeof *out);
	if ((rc = db_prepare_cached(db, COMPUTE_SQL, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, customer_id);
	step = sqlite3_step(st);
	if (step != SQLITE_ROW) {
		rc = step == SQLITE_DONE
		         ? err_set(FD_ENOTFOUND, _("there is no customer %lld"),
		                   (long long)customer_id)
		         : db_fail(db, _("cannot compute the customer's lifecycle"));
		db_release(db, st);
		return rc;
	}
	out->customer_id = customer_id;
	last = sqlite3_column_int64(st, 0);
#define LATER(col, bit)                                                                            \
	if ((kinds & (bit)) && sqlite3_column_type(st, col) != SQLITE_NULL &&                      \
	    sqlite3_column_int64(st, col) > last)                                                  \
	last = sqlite3_column_int64(st, col)
	LATER(1, ACT_VISITS);
	LATER(2, ACT_PAYMENTS);
	LATER(3, ACT_PAYMENTS);
	LATER(4, ACT_CONTACTS);
	LATER(5, ACT_ORDERS);
	/* what was recorded against a deletion under way (and so cancelled
	 * it) is activity whatever the kinds: a contact that brought a
	 * customer back must not have them proposed again the next day */
	LATER(16, ACT_VISITS | ACT_PAYMENTS | ACT_CONTACTS | ACT_ORDERS);
#undef LATER
	out->last_activity_at = last;
	out->open_appointments = sqlite3_column_int64(st, 6);
	out->owing_invoices = sqlite3_column_int64(st, 7);
	out->open_credits = sqlite3_column_int64(st, 8);
	out->held = sqlite3_column_int(st, 9);
	if (sqlite3_column_int(st, 10)) {
		snprintf(out->state, sizeof out->state, "%s",
		         lifecycle_state_word(LIFECYCLE_PURGED));
	} else if (sqlite3_column_type(st, 11) != SQLITE_NULL) {
		dbrow_copy(st, 11, out->state, sizeof out->state);
		dbrow_copy(st, 12, out->deletion_id, sizeof out->deletion_id);
		out->generation = sqlite3_column_int64(st, 13);
		if (lifecycle_state_of(out->state) == LIFECYCLE_SOFT_DELETED)
			out->delete_after = sqlite3_column_int64(st, 14);
	} else {
		snprintf(out->state, sizeof out->state, "%s",
		         lifecycle_state_word(LIFECYCLE_ACTIVE));
		out->generation = sqlite3_column_int64(st, 15);
	}
	db_release(db, st);
	out->version = LIFECYCLE_VERSION;
	out->schema_version = migrate_latest();
	out->built_at = clock_now();
	return 0;
}

#define ROW_COLS                                                                                   \
	"customer_id, last_activity_at, open_appointments, owing_invoices, open_credits, held,"    \
	" state, deletion_id, generation, delete_after, projection_version, schema_version,"       \
	" built_at"

static void fill(sqlite3_stmt *st, struct lifecycle_row *r)
{
	memset(r, 0, sizeof *r);
	r->customer_id = sqlite3_column_int64(st, 0);
	r->last_activity_at = sqlite3_column_int64(st, 1);
	r->open_appointments = sqlite3_column_int64(st, 2);
	r->owing_invoices = sqlite3_column_int64(st, 3);
	r->open_credits = sqlite3_column_int64(st, 4);
	r->held = sqlite3_column_int(st, 5);
	dbrow_copy(st, 6, r->state, sizeof r->state);
	dbrow_copy(st, 7, r->deletion_id, sizeof r->deletion_id);
	r->generation = sqlite3_column_int64(st, 8);
	r->delete_after = sqlite3_column_int64(st, 9);
	r->version = sqlite3_column_int(st, 10);
	r->schema_version = sqlite3_column_int(st, 11);
	r->built_at = sqlite3_column_int64(st, 12);
}

int lifecycle_get(struct db *db, int64_t customer_id, struct lifecycle_row *out)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare_cached(db,
	                            "SELECT " ROW_COLS " FROM customer_lifecycle"
	                            " WHERE customer_id = ?1",
	                            &st)))
		return rc;
	sqlite3_bind_int64(st, 1, customer_id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		fill(st, out);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, _("customer %lld has no lifecycle row yet"),
		             (long long)customer_id);
	else
		rc = db_fail(db, _("cannot read the customer's lifecycle"));
	db_release(db, st);
	return rc;
}

/* How many of the columns a rebuild compares (everything but built_at)
 * differ; their names, comma-separated, into buf when n > 0. */
static int differs(const struct lifecycle_row *a, const struct lifecycle_row *b, char *buf,
                   size_t n)
{
	size_t len = 0;
	int k = 0;

	if (n)
		buf[0] = '\0';
#define D(cond, name)                                                                              \
	if ((cond) && ++k && len < n)                                                              \
	len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "," : "", name)
	D(a->last_activity_at != b->last_activity_at, "last_activity_at");
	D(a->open_appointments != b->open_appointments, "open_appointments");
	D(a->owing_invoices != b->owing_invoices, "owing_invoices");
	D(a->open_credits != b->open_credits, "open_credits");
	D(a->held != b->held, "held");
	D(strcmp(a->state, b->state), "state");
	D(strcmp(a->deletion_id, b->deletion_id), "deletion_id");
	D(a->generation != b->generation, "generation");
	D(a->delete_after != b->delete_after, "delete_after");
	/* the schema version only says which schema built the row: a migration
	 * that does not touch the lifecycle's inputs leaves its rows current
	 * (one that does bumps LIFECYCLE_VERSION or queues the rebuild) */
	D(a->version != b->version, "version");
#undef D
	return k;
}

static int same(const struct lifecycle_row *a, const struct lifecycle_row *b)
{
	return differs(a, b, NULL, 0) == 0;
}

int lifecycle_rebuild_in_tx(struct db *db, int64_t customer_id, int *changed)
{
	struct lifecycle_row want, have;
	sqlite3_stmt *st;
	int rc;

	if (changed)
		*changed = 0;
	rc = lifecycle_compute(db, customer_id, &want);
	if (rc == FD_ENOTFOUND) {
		err_clear();
		if ((rc = db_prepare_cached(
		         db, "DELETE FROM customer_lifecycle WHERE customer_id = ?1", &st)))
			return rc;
		sqlite3_bind_int64(st, 1, customer_id);
		rc = db_run_cached(db, st, _("cannot remove the customer's lifecycle row"));
		if (!rc && changed)
			*changed = sqlite3_changes(db_sqlite(db)) > 0;
		return rc;
	}
	if (rc)
		return rc;
	rc = lifecycle_get(db, customer_id, &have);
	if (rc == 0 && same(&want, &have))
		return 0;
	if (rc && rc != FD_ENOTFOUND)
		return rc;
	err_clear();
	if ((rc = db_prepare_cached(
	         db,
	         "INSERT INTO customer_lifecycle (" ROW_COLS ") VALUES"
	         " (?1, ?2, ?3, ?4, ?5, ?6, ?7, nullif(?8, ''), ?9, nullif(?10, 0),"
	         " ?11, ?12, ?13)"
	         " ON CONFLICT (customer_id) DO UPDATE SET"
	         " last_activity_at = excluded.last_activity_at,"
	         " open_appointments = excluded.open_appointments,"
	         " owing_invoices = excluded.owing_invoices,"
	         " open_credits = excluded.open_credits, held = excluded.held,"
	         " state = excluded.state, deletion_id = excluded.deletion_id,"
	         " generation = excluded.generation,"
	         " delete_after = excluded.delete_after,"
	         " projection_version = excluded.projection_version,"
	         " schema_version = excluded.schema_version,"
	         " built_at = excluded.built_at",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, want.customer_id);
	sqlite3_bind_int64(st, 2, want.last_activity_at);
	sqlite3_bind_int64(st, 3, want.open_appointments);
	sqlite3_bind_int64(st, 4, want.owing_invoices);
	sqlite3_bind_int64(st, 5, want.open_credits);
	sqlite3_bind_int(st, 6, want.held);
	sqlite3_bind_text(st, 7, want.state, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 8, want.deletion_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 9, want.generation);
	sqlite3_bind_int64(st, 10, want.delete_after);
	sqlite3_bind_int(st, 11, want.version);
	sqlite3_bind_int(st, 12, want.schema_version);
	sqlite3_bind_int64(st, 13, want.built_at);
	rc = db_run_cached(db, st, _("cannot store the customer's lifecycle row"));
	if (!rc && changed)
		*changed = 1;
	return rc;
}

#define REBUILD_BATCH 500

struct batch {
	int64_t after;
	int64_t n;
	int more;
};

static int rebuild_batch(struct db *db, void *arg)
{
	struct batch *b = arg;
	sqlite3_stmt *st;
	int64_t ids[REBUILD_BATCH];
	int rc, step, n = 0, i, changed;

	if ((rc =
	         db_prepare(db, "SELECT id FROM customer WHERE id > ?1 ORDER BY id LIMIT ?2", &st)))
		return rc;
	sqlite3_bind_int64(st, 1, b->after);
	sqlite3_bind_int(st, 2, REBUILD_BATCH);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		ids[n++] = sqlite3_column_int64(st, 0);
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list customers"));
	sqlite3_finalize(st);
	for (i = 0; !rc && i < n; i++) {
		rc = lifecycle_rebuild_in_tx(db, ids[i], &changed);
		b->n += changed;
	}
	if (!rc && n > 0)
		b->after = ids[n - 1];
	b->more = n == REBUILD_BATCH;
	return rc;
}

int lifecycle_rebuild_all(struct db *db, int64_t *n_out)
{
	struct batch b = {0, 0, 1};
	int rc = control_ask(db, PERM_OPERATIONS, 0, "rebuild every customer's lifecycle");

	while (!rc && b.more)
		rc = db_write(db, rebuild_batch, &b);
	/* rows of customers that no longer exist */
	if (!rc)
		rc = db_exec(db, "DELETE FROM customer_lifecycle"
		                 " WHERE customer_id NOT IN (SELECT id FROM customer)");
	if (n_out)
		*n_out = b.n;
	return rc;
}

static const char candidates_sql[] =
    "SELECT " ROW_COLS " FROM customer_lifecycle"
    " WHERE state = 'active' AND last_activity_at < ?1 AND (held = 0 OR ?3)"
    " AND open_appointments = 0 AND owing_invoices = 0 AND open_credits = 0"
    " ORDER BY last_activity_at, customer_id LIMIT ?2";

const char *lifecycle_candidates_sql(void)
{
	return candidates_sql;
}

int lifecycle_candidates(struct db *db, int64_t cutoff, int limit, int with_held,
                         int (*cb)(const struct lifecycle_row *r, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare(db, candidates_sql, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, cutoff);
	sqlite3_bind_int(st, 2, limit > 0 ? limit : -1);
	sqlite3_bind_int(st, 3, with_held ? 1 : 0);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct lifecycle_row r;

		fill(st, &r);
		if ((rc = cb(&r, arg)))
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot find the customers to propose"));
	sqlite3_finalize(st);
	return rc;
}

/* ids_sql NULL: every customer (lifecycle_check). */
int lifecycle_check_in(struct db *db, const char *ids_sql,
                       void (*report)(const char *code, const char *detail, void *arg), void *arg)
{
	struct strbuf sql = {0};
	sqlite3_stmt *st = NULL;
	int rc, step = SQLITE_DONE, found = 0;

	if ((rc = db_exec(db, "BEGIN")))
		return rc;
	/* is a task for the customer waiting? Each status by its own index
	 * (the partial indexes of pending and running tasks by key; the few
	 * failed ones read once): "status IN (...)" would read the whole task
	 * history once a customer, as many times as there are customers */
	sb_printf(&sql,
	          "SELECT c.id, EXISTS (SELECT 1 FROM task INDEXED BY task_pending_once"
	          " WHERE kind = 'lifecycle'"
	          " AND key = CAST(c.id AS TEXT) AND status = 'pending')"
	          " OR EXISTS (SELECT 1 FROM task INDEXED BY task_running_by_key"
	          " WHERE kind = 'lifecycle'"
	          " AND key = CAST(c.id AS TEXT) AND status = 'running')"
	          " OR CAST(c.id AS TEXT) IN (SELECT key FROM task INDEXED BY task_by_status"
	          " WHERE status = 'failed' AND kind = 'lifecycle')"
	          " FROM customer c%s%s%s ORDER BY c.id",
	          ids_sql ? " WHERE c.id IN (" : "", ids_sql ? ids_sql : "", ids_sql ? ")" : "");
	rc = db_prepare(db, sb_cstr(&sql), &st);
	sb_free(&sql);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		int queued = sqlite3_column_int(st, 1);
		struct lifecycle_row want, have;
		char detail[300], cols[200];

		if (queued)
			continue; /* catching up: its task will rebuild it */
		if ((rc = lifecycle_compute(db, id, &want)))
			break;
		rc = lifecycle_get(db, id, &have);
		if (rc == FD_ENOTFOUND) {
			err_clear();
			rc = 0;
			snprintf(detail, sizeof detail,
			         "customer %lld has no lifecycle row and no task to build it",
			         (long long)id);
			report("lifecycle-stale", detail, arg);
			found++;
			continue;
		}
		if (rc)
			break;
		if (differs(&want, &have, cols, sizeof cols)) {
			snprintf(detail, sizeof detail,
			         "the lifecycle row of customer %lld differs from its records (%s);"
			         " run: frontdesk retention rebuild",
			         (long long)id, cols);
			report("lifecycle-stale", detail, arg);
			found++;
		}
	}
	if (!rc && step != SQLITE_DONE && step != SQLITE_ROW)
		rc = db_fail(db, _("cannot check the lifecycle projection"));
	sqlite3_finalize(st);
	db_rollback(db);
	return rc ? rc : found;
}

int lifecycle_check(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
                    void *arg)
{
	return lifecycle_check_in(db, NULL, report, arg);
}
