/*
 * desk.c - read queries for the desk screen (see desk.h). Each is one
 * statement with bound parameters; LIKE patterns escape the person's % and _.
 * The status line's channel reads run every second: they are cached
 * statements that touch only indexed rows (the one enabled primary, a
 * primary-key lookup, index ranges over the counted statuses), except the
 * outbox's dead count, which desk.h tells the screen to read less often.
 * The dead-letter view's outbox reads (desk_outbox_list / _get) run when a
 * person opens or refreshes that view. The card payment orders are
 * not read here: their owner is chan-order.h, which the screen calls.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chan-poll.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "desk.h"
#include "err.h"
#include "i18n.h"
#include "xalloc.h"

int desk_readonly(struct db *db)
{
	return sqlite3_db_readonly(db_sqlite(db), "main") == 1;
}

int desk_channel_read(struct db *db, struct desk_channel *out)
{
	/* the unique partial index integration_provider_one_primary */
	static const char provider_sql[] =
	    "SELECT provider_code FROM integration_provider WHERE integration_type = 'payment' "
	    "AND role = 'primary' AND enabled = 1";
	static const char state_sql[] =
	    "SELECT state, coalesce(offline_until, 0), coalesce(last_success_at, 0) "
	    "FROM channel_state WHERE provider_code = ?1";
	/* index ranges of inbound_callback_by_status(status, id) */
	static const char counts_sql[] =
	    "SELECT (SELECT count(*) FROM inbound_callback WHERE status IN "
	    "('received', 'failed', 'parked')), "
	    "(SELECT count(*) FROM inbound_callback WHERE status = 'dead')";
	struct control_info ci;
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	snprintf(out->state, sizeof out->state, "off");
	if ((rc = db_prepare_cached(db, counts_sql, &st)))
		return rc;
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		out->inbox_pending = sqlite3_column_int64(st, 0);
		out->inbox_dead = sqlite3_column_int64(st, 1);
	} else {
		rc = db_fail(db, _("cannot count the inbound events"));
	}
	db_release(db, st);
	if (rc || (rc = db_prepare_cached(db, provider_sql, &st)))
		return rc;
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		const char *code = (const char *)sqlite3_column_text(st, 0);

		out->configured = 1;
		snprintf(out->provider, sizeof out->provider, "%s", code ? code : "");
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the payment providers"));
	}
	db_release(db, st);
	if (rc || !out->configured)
		return rc;
	if ((rc = db_prepare_cached(db, state_sql, &st)))
		return rc;
	sqlite3_bind_text(st, 1, out->provider, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(st, 0);

		snprintf(out->state, sizeof out->state, "%s", s ? s : "off");
		out->offline_until = sqlite3_column_int64(st, 1);
		out->last_success_at = sqlite3_column_int64(st, 2);
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the channel state"));
	}
	db_release(db, st);
	if (rc)
		return rc;
	rc = control_get(db, CONTROL_CHANNEL, &ci);
	if (rc == 0) {
		out->worker = ci.state == CONTROL_HELD;
		control_info_free(&ci);
	} else if (rc == FD_ENOTFOUND) {
		rc = 0; /* nobody ever took the lease */
	}
	return rc;
}

int desk_outbox_dead(struct db *db, int64_t *n)
{
	static const char sql[] = "SELECT count(*) FROM outbox_event WHERE status = 'dead'";
	sqlite3_stmt *st;
	int rc;

	*n = 0;
	if ((rc = db_prepare_cached(db, sql, &st)))
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, _("cannot count the dead outbox commands"));
	db_release(db, st);
	return rc;
}

#define OUTBOX_COLS                                                                                \
	"id, event_type, business_key, provider_code, status, last_error, payload, retry_count, "  \
	"created_at, updated_at, coalesce(sent_at, 0)"

/* Fill *o from the current row of st (OUTBOX_COLS). */
static void outbox_row(sqlite3_stmt *st, struct desk_outbox *o)
{
	memset(o, 0, sizeof *o);
	o->id = sqlite3_column_int64(st, 0);
	o->event_type = dbrow_dup(st, 1);
	o->business_key = dbrow_dup(st, 2);
	o->provider_code = dbrow_dup(st, 3);
	o->status = dbrow_dup(st, 4);
	o->last_error = dbrow_dup(st, 5);
	o->payload = dbrow_dup(st, 6);
	o->retry_count = sqlite3_column_int64(st, 7);
	o->created_at = sqlite3_column_int64(st, 8);
	o->updated_at = sqlite3_column_int64(st, 9);
	o->sent_at = sqlite3_column_int64(st, 10);
}

void desk_outbox_free(struct desk_outbox *o)
{
	free(o->event_type);
	free(o->business_key);
	free(o->provider_code);
	free(o->status);
	free(o->last_error);
	free(o->payload);
	memset(o, 0, sizeof *o);
}

int desk_outbox_list(struct db *db, const char *status, int limit,
                     int (*cb)(const struct desk_outbox *o, void *arg), void *arg)
{
	static const char sql[] = "SELECT " OUTBOX_COLS " FROM outbox_event WHERE status = ?1 "
	                          "ORDER BY id DESC LIMIT ?2";
	struct desk_outbox o;
	sqlite3_stmt *st;
	int rc = 0, step;

	if ((rc = db_prepare(db, sql, &st)))
		return rc;
	sqlite3_bind_text(st, 1, status, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, limit > 0 ? limit : 100);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		outbox_row(st, &o);
		rc = cb(&o, arg);
		desk_outbox_free(&o);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the outbox commands"));
	sqlite3_finalize(st);
	return rc;
}

int desk_outbox_get(struct db *db, int64_t id, struct desk_outbox *out)
{
	static const char sql[] = "SELECT " OUTBOX_COLS " FROM outbox_event WHERE id = ?1";
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	if ((rc = db_prepare(db, sql, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		outbox_row(st, out);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, _("there is no outbox command %lld"), (long long)id);
	else
		rc = db_fail(db, _("cannot read the outbox commands"));
	sqlite3_finalize(st);
	return rc;
}
