/*
 * contact.c - the contact log (see contact.h): adding a row, reading one,
 * listing a customer's log newest first.
 *
 * Invariants: rows are only inserted here (the schema refuses UPDATE and
 * DELETE to everyone); input is checked completely before the write
 * transaction, and the customer and the corrected row inside it before the
 * insert, so a refused request changes nothing. operator_id is
 * fd_operator(), the person running the program.
 *
 * Permissions: logging a contact asks visit.work, first in its transaction.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "contact.h"
#include "control.h"
#include "customer.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "retention-mod.h"
#include "text.h"
#include "words.h"

const char *const contact_channels[CONTACT_NCHANNELS] = {"phone", "sms", "email", "counter",
                                                         "other"};
const char *const contact_directions[CONTACT_NDIRECTIONS] = {"in", "out"};
const char *const contact_channel_labels[CONTACT_NCHANNELS] = {
    N_("phone"), N_("text message"), N_("e-mail"), N_("at the counter"), N_("other")};
const char *const contact_direction_labels[CONTACT_NDIRECTIONS] = {N_("in"), N_("out")};

const char *contact_label(const char *word)
{
	int i;

	for (i = 0; word && i < CONTACT_NCHANNELS; i++)
		if (!strcmp(word, contact_channels[i]))
			return _(contact_channel_labels[i]);
	for (i = 0; word && i < CONTACT_NDIRECTIONS; i++)
		if (!strcmp(word, contact_directions[i]))
			return _(contact_direction_labels[i]);
	return word ? word : "";
}

/* How far ahead of the clock a contact's time may be (clocks differ). */
#define AHEAD_SECONDS 300

struct add_ctx {
	const struct contact_input *in;
	const char *channel, *direction;
	int64_t at;
	int64_t id;
};

static int check_input(const struct contact_input *in, struct add_ctx *a)
{
	int rc;

	if (in->customer_id <= 0)
		return err_set(FD_EINVAL, _("the contact needs a customer"));
	if (!(a->channel = words_find(contact_channels, CONTACT_NCHANNELS, in->channel)))
		return err_set(FD_EINVAL,
		               _("'%.20s' is not a contact channel: use phone, sms, email, counter "
		                 "or other"),
		               in->channel ? in->channel : "");
	if (!(a->direction = words_find(contact_directions, CONTACT_NDIRECTIONS, in->direction)))
		return err_set(FD_EINVAL,
		               _("'%.20s' is not a direction: use in (the customer reached us) or "
		                 "out (we reached the customer)"),
		               in->direction ? in->direction : "");
	if ((rc = text_check(in->summary, _("the summary"), CONTACT_SUMMARY_MAX, 0)))
		return rc;
	if (in->corrects_id < 0)
		return err_set(FD_EINVAL, _("the corrected contact must be a positive id"));
	a->at = in->at ? in->at : clock_now();
	if (in->at < 0 || a->at > clock_now() + AHEAD_SECONDS)
		return err_set(FD_EINVAL,
		               _("the time of the contact is in the future: the log says "
		                 "what happened; give the time it happened"));
	return 0;
}

int contact_check(const struct contact_input *in)
{
	struct add_ctx a = {in, NULL, NULL, 0, 0};

	return check_input(in, &a);
}

#define CONTACT_COLS                                                                               \
	"c.id, c.customer_id, c.at, c.channel, c.direction, c.summary, c.operator_id,"             \
	" coalesce(c.corrects_id, 0),"                                                             \
	" coalesce((SELECT max(n.id) FROM contact_log n WHERE n.corrects_id = c.id), 0),"          \
	" c.created_at"

static void fill(sqlite3_stmt *st, struct contact *ct)
{
	memset(ct, 0, sizeof *ct);
	ct->id = sqlite3_column_int64(st, 0);
	ct->customer_id = sqlite3_column_int64(st, 1);
	ct->at = sqlite3_column_int64(st, 2);
	dbrow_copy(st, 3, ct->channel, sizeof ct->channel);
	dbrow_copy(st, 4, ct->direction, sizeof ct->direction);
	ct->summary = dbrow_dup(st, 5);
	ct->operator_id = dbrow_dup(st, 6);
	ct->corrects_id = sqlite3_column_int64(st, 7);
	ct->corrected_by = sqlite3_column_int64(st, 8);
	ct->created_at = sqlite3_column_int64(st, 9);
}

static void get_row(sqlite3_stmt *st, void *out)
{
	fill(st, out);
}

int contact_get(struct db *db, int64_t id, struct contact *out)
{
	int rc, found;

	memset(out, 0, sizeof *out);
	rc = dbrow_get(db, "SELECT " CONTACT_COLS " FROM contact_log c WHERE c.id = ?", id, get_row,
	               out, _("cannot read the contact log"), &found);
	if (!rc && !found)
		rc = err_set(FD_ENOTFOUND, _("there is no contact %lld in the log"), (long long)id);
	return rc;
}

void contact_free(struct contact *ct)
{
	free(ct->summary);
	free(ct->operator_id);
	memset(ct, 0, sizeof *ct);
}

/* 0 when customer id exists, else FD_ENOTFOUND (customer_get's reason). */
static int customer_exists(struct db *db, int64_t id)
{
	struct customer cu;
	int rc = customer_get(db, id, &cu);

	customer_free(&cu);
	return rc;
}

static int add_tx(struct db *db, void *arg)
{
	struct add_ctx *a = arg;
	struct contact old;
	sqlite3_stmt *st;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "add a contact for customer %lld",
	         (long long)a->in->customer_id);
	if ((rc = control_require(db, PERM_VISIT_WORK, 0, subject)))
		return rc;
	if ((rc = customer_exists(db, a->in->customer_id)))
		return rc;
	if (a->in->corrects_id) {
		if ((rc = contact_get(db, a->in->corrects_id, &old)))
			return rc;
		if (old.customer_id != a->in->customer_id)
			rc = err_set(FD_EINVAL,
			             _("contact %lld is in the log of customer %lld, not %lld: a "
			               "correction refers to a contact of the same customer"),
			             (long long)old.id, (long long)old.customer_id,
			             (long long)a->in->customer_id);
		contact_free(&old);
		if (rc)
			return rc;
	}
	rc = db_prepare(db,
	                "INSERT INTO contact_log (customer_id, at, channel, direction, summary,"
	                " operator_id, corrects_id, created_at)"
	                " VALUES (?1, ?2, ?3, ?4, ?5, fd_operator(), nullif(?6, 0), ?7)",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, a->in->customer_id);
	sqlite3_bind_int64(st, 2, a->at);
	sqlite3_bind_text(st, 3, a->channel, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, a->direction, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, a->in->summary, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, a->in->corrects_id);
	sqlite3_bind_int64(st, 7, clock_now());
	if ((rc = db_run(db, st, _("cannot add to the contact log"))))
		return rc;
	a->id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

int contact_add(struct db *db, const struct contact_input *in, int64_t *id_out)
{
	struct add_ctx a = {in, NULL, NULL, 0, 0};
	int rc;

	if ((rc = check_input(in, &a)) || (rc = db_write(db, add_tx, &a)))
		return rc;
	*id_out = a.id;
	return 0;
}

int contact_list(struct db *db, int64_t customer_id, int (*cb)(const struct contact *ct, void *arg),
                 void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	if (control_require(db, PERM_RECORDS_VIEW, 0, "read a customer's contact log"))
		return FD_EPERM;

	if ((rc = customer_exists(db, customer_id)))
		return rc;
	rc = db_prepare(db,
	                "SELECT " CONTACT_COLS " FROM contact_log c WHERE c.customer_id = ?1"
	                " ORDER BY c.at DESC, c.id DESC",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, customer_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct contact ct;

		fill(st, &ct);
		rc = cb(&ct, arg);
		contact_free(&ct);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the contact log"));
	sqlite3_finalize(st);
	return rc;
}

int contact_count(struct db *db, int64_t customer_id, int64_t *n)
{
	sqlite3_stmt *st;
	int rc;

	*n = 0;
	rc = db_prepare(db, "SELECT count(*) FROM contact_log WHERE customer_id = ?1", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, customer_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, _("cannot read the contact log"));
	sqlite3_finalize(st);
	return rc;
}

/* ---------------------------------------------------------------- retention */

/* The contact log keeps when, how and who; the summary goes. */
int contact_retention_purge(struct db *db, struct retention_purge_ctx *c)
{
	return retention_exec_id(db,
	                         "UPDATE contact_log SET summary = '" RETENTION_REMOVED "'"
	                         " WHERE customer_id = ?1 AND summary IS NOT '" RETENTION_REMOVED
	                         "'",
	                         c->customer_id, _("cannot clear the contact log"));
}
