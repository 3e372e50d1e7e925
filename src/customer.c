/*
 * customer.c - adding, reading, editing and deleting customers.
 *
 * Invariant: input is checked completely (text_check) before the write
 * transaction starts, so a refused request changes nothing. The search
 * (customer_search) matches names, addresses and phone numbers, a phone
 * number by its digits whatever the punctuation.
 *
 * Permissions: adding, editing and deleting a customer asks customer.edit,
 * first in its transaction (control.h).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clock.h"
#include "control.h"
#include "customer.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "projection.h"
#include "retention-mod.h"
#include "text.h"
#include "xalloc.h"

static int check_phone(const char *p)
{
	const char *s;
	int digits = 0;

	for (s = p; *s; s++) {
		if (*s >= '0' && *s <= '9')
			digits++;
		else if (!strchr(" +-().", *s))
			return err_set(
			    FD_EINVAL,
			    _("the phone number may hold only digits, blanks and + - ( ) ."));
	}
	if (*p && digits < 3)
		return err_set(FD_EINVAL, _("the phone number needs at least 3 digits"));
	/* international numbers have at most 15 digits (E.164); more would be a
	 * card number or a typing slip. The card-number rule of free text is not
	 * applied: it would refuse one real 13-15 digit number in ten. */
	if (digits > 15)
		return err_set(FD_EINVAL, _("the phone number has more than 15 digits"));
	return 0;
}

static int check_input(const struct customer_input *in, int adding)
{
	int rc;

	if (adding || in->name)
		if ((rc = text_check(in->name, _("the name"), 200, 0)))
			return rc;
	if (in->phone && ((rc = text_check_id(in->phone, _("the phone number"), 40, 1)) ||
	                  (rc = check_phone(in->phone))))
		return rc;
	if (in->email) {
		if ((rc = text_check(in->email, _("the e-mail address"), 200, 1)))
			return rc;
		if (*in->email && (!strchr(in->email, '@') || strchr(in->email, ' ')))
			return err_set(FD_EINVAL,
			               _("the e-mail address must look like name@example.com"));
	}
	if (in->address && (rc = text_check(in->address, _("the address"), 400, 1)))
		return rc;
	if (in->note && (rc = text_check(in->note, _("the note"), 2000, 1)))
		return rc;
	return 0;
}

/* Bind text, or NULL for NULL and "" (an optional field left empty). */
static void bind_opt(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

struct add_ctx {
	const struct customer_input *in;
	int64_t id;
};

static int add_tx(struct db *db, void *arg)
{
	struct add_ctx *a = arg;
	sqlite3_stmt *st;
	int64_t now = clock_now();
	int rc;

	if ((rc = control_require(db, PERM_CUSTOMER_EDIT, 0, "add a customer")))
		return rc;
	rc = db_prepare(db,
	                "INSERT INTO customer (name, phone, email, address, note, created_at, "
	                "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, a->in->name, -1, SQLITE_TRANSIENT);
	bind_opt(st, 2, a->in->phone);
	bind_opt(st, 3, a->in->email);
	bind_opt(st, 4, a->in->address);
	bind_opt(st, 5, a->in->note);
	sqlite3_bind_int64(st, 6, now);
	sqlite3_bind_int64(st, 7, now);
	if ((rc = db_run(db, st, _("cannot add the customer"))))
		return rc;
	a->id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

int customer_add(struct db *db, const struct customer_input *in, int64_t *id_out)
{
	struct add_ctx a = {in, 0};
	int rc;

	if ((rc = check_input(in, 1)))
		return rc;
	if ((rc = db_write(db, add_tx, &a)))
		return rc;
	*id_out = a.id;
	return 0;
}

static void fill(sqlite3_stmt *st, struct customer *c)
{
	c->id = sqlite3_column_int64(st, 0);
	c->name = dbrow_dup(st, 1);
	c->phone = dbrow_dup(st, 2);
	c->email = dbrow_dup(st, 3);
	c->address = dbrow_dup(st, 4);
	c->note = dbrow_dup(st, 5);
	c->created_at = sqlite3_column_int64(st, 6);
	c->updated_at = sqlite3_column_int64(st, 7);
}

#define CUSTOMER_COLS "id, name, phone, email, address, note, created_at, updated_at"

static void customer_get_row(sqlite3_stmt *st, void *out)
{
	fill(st, out);
}

int customer_get(struct db *db, int64_t id, struct customer *out)
{
	int rc, found;

	memset(out, 0, sizeof *out);
	rc = dbrow_get(db, "SELECT " CUSTOMER_COLS " FROM customer WHERE id = ?", id,
	               customer_get_row, out, _("cannot read the customer"), &found);
	if (!rc && !found)
		rc = err_set(FD_ENOTFOUND, _("there is no customer %lld"), (long long)id);
	return rc;
}

void customer_free(struct customer *c)
{
	free(c->name);
	free(c->phone);
	free(c->email);
	free(c->address);
	free(c->note);
	memset(c, 0, sizeof *c);
}

/* 0 if customer id exists, FD_ENOTFOUND otherwise. */
static int must_exist(struct db *db, int64_t id)
{
	struct customer c;
	int rc = customer_get(db, id, &c);

	customer_free(&c);
	return rc;
}

struct edit_ctx {
	int64_t id;
	const struct customer_input *in;
};

static int edit_tx(struct db *db, void *arg)
{
	struct edit_ctx *e = arg;
	sqlite3_stmt *st;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "edit customer %lld", (long long)e->id);
	if ((rc = control_require(db, PERM_CUSTOMER_EDIT, 0, subject)))
		return rc;
	if ((rc = must_exist(db, e->id)))
		return rc;
	/* ?N IS NULL keeps the old value; '' (given but empty) clears it */
	rc = db_prepare(db,
	                "UPDATE customer SET"
	                " name = coalesce(?1, name),"
	                " phone = CASE WHEN ?2 IS NULL THEN phone ELSE nullif(?2, '') END,"
	                " email = CASE WHEN ?3 IS NULL THEN email ELSE nullif(?3, '') END,"
	                " address = CASE WHEN ?4 IS NULL THEN address ELSE nullif(?4, '') END,"
	                " note = CASE WHEN ?5 IS NULL THEN note ELSE nullif(?5, '') END,"
	                " updated_at = ?6 WHERE id = ?7",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, e->in->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, e->in->phone, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, e->in->email, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, e->in->address, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, e->in->note, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, clock_now());
	sqlite3_bind_int64(st, 7, e->id);
	return db_run(db, st, _("cannot change the customer"));
}

int customer_edit(struct db *db, int64_t id, const struct customer_input *in)
{
	struct edit_ctx e = {id, in};
	int rc;

	if ((rc = check_input(in, 0)))
		return rc;
	if (!in->name && !in->phone && !in->email && !in->address && !in->note)
		return err_set(FD_EINVAL, _("nothing to change: give at least one field"));
	return db_write(db, edit_tx, &e);
}

static int delete_tx(struct db *db, void *arg)
{
	int64_t id = *(int64_t *)arg, jobs = 0, contacts = 0;
	sqlite3_stmt *st;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "delete customer %lld", (long long)id);
	if ((rc = control_require(db, PERM_CUSTOMER_EDIT, 0, subject)))
		return rc;
	if ((rc = must_exist(db, id)))
		return rc;
	/* what refers to the customer: read here, not asked of the modules
	 * that own it, which stand above this one */
	rc = db_prepare(db,
	                "SELECT (SELECT count(*) FROM service_order WHERE customer_id = ?1),"
	                " (SELECT count(*) FROM contact_log WHERE customer_id = ?1)",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		jobs = sqlite3_column_int64(st, 0);
		contacts = sqlite3_column_int64(st, 1);
	} else {
		rc = db_fail(db, _("cannot read what refers to the customer"));
	}
	sqlite3_finalize(st);
	if (rc)
		return rc;
	if (jobs > 0)
		return err_set(FD_ECONFLICT,
		               _("customer %lld has %lld job(s) and cannot be deleted; "
		                 "cancel the jobs instead"),
		               (long long)id, (long long)jobs);
	if (contacts > 0)
		return err_set(FD_ECONFLICT,
		               _("customer %lld has %lld contact(s) in the contact log, which is "
		                 "never deleted, so the customer cannot be deleted"),
		               (long long)id, (long long)contacts);
	/* a deletion or a hold on record: retention (retention.h) decides */
	if ((rc = retention_first(db,
	                          "SELECT 1 FROM retention_process WHERE customer_id = ?1"
	                          " UNION ALL SELECT 1 FROM retention_hold WHERE customer_id = ?1"
	                          " UNION ALL SELECT 1 FROM retention_purged WHERE customer_id = ?1"
	                          " LIMIT 1",
	                          id, NULL, 0)) != 0)
		return rc < 0
		           ? rc
		           : err_set(FD_ECONFLICT,
		                     _("customer %lld has a data retention record (a deletion or a "
		                       "hold) and cannot be deleted; see frontdesk retention"),
		                     (long long)id);
	/* the lifecycle row is a read model of the customer: it goes with them */
	if ((rc = retention_exec_id(db, "DELETE FROM customer_lifecycle WHERE customer_id = ?1", id,
	                            _("cannot delete the customer"))))
		return rc;
	rc = db_prepare(db, "DELETE FROM customer WHERE id = ?", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	return db_run(db, st, _("cannot delete the customer"));
}

int customer_delete(struct db *db, int64_t id)
{
	return db_write(db, delete_tx, &id);
}

int customer_check(const struct customer_input *in, int adding)
{
	return check_input(in, adding);
}

/* The query as a phone number: its digits into digits (size n) when it
 * holds only what check_phone allows and at least 3 digits; else "". */
static void query_digits(const char *q, char *digits, size_t n)
{
	size_t k = 0;
	const char *s;

	digits[0] = '\0';
	for (s = q; *s; s++) {
		if (*s >= '0' && *s <= '9') {
			if (k + 1 < n)
				digits[k++] = *s;
		} else if (!strchr(" +-().", *s)) {
			digits[0] = '\0'; /* not a phone number */
			return;
		}
	}
	digits[k] = '\0';
	if (k < 3)
		digits[0] = '\0';
}

/*
 * The search reads the customer table once in name order through the index
 * customer_by_name, testing each row (a LIKE-style scan: no index can find
 * a substring), and stops after `limit` matches. Measured on 50,000
 * customers (this machine, `customer list --search`): a query that matches
 * nobody reads every row, about 25 ms; one that matches many stops as soon
 * as it has `limit` rows. The phone digits are computed per row
 * by fd_digits() (db.c); storing them would save little and needs a
 * migration. lower() folds ASCII letters only, as NOCASE does.
 */
static int search_rows(struct db *db, const char *query, int limit,
                       int (*cb)(const struct customer *c, void *arg), void *arg);

int customer_search(struct db *db, const char *query, int limit,
                    int (*cb)(const struct customer *c, void *arg), void *arg)
{
	int rc = control_require(db, PERM_RECORDS_VIEW, 0, "look up customers");

	return rc ? rc : search_rows(db, query, limit, cb, arg);
}

/* customer_search without asking (customer_find, for the writers that
 * asked for their own action) */
static int search_rows(struct db *db, const char *query, int limit,
                       int (*cb)(const struct customer *c, void *arg), void *arg)
{
	sqlite3_stmt *st;
	char digits[64] = "", *q = NULL;
	int rc, step;

	if (query) {
		size_t len;

		while (*query == ' ' || *query == '\t')
			query++;
		q = xstrdup(query);
		len = strlen(q);
		while (len > 0 && (q[len - 1] == ' ' || q[len - 1] == '\t'))
			q[--len] = '\0';
		if (!*q) {
			free(q);
			q = NULL;
		} else {
			query_digits(q, digits, sizeof digits);
		}
	}
	rc = db_prepare(db,
	                "SELECT " CUSTOMER_COLS " FROM customer"
	                " WHERE (?1 IS NULL OR instr(lower(name), lower(?1)) > 0"
	                " OR instr(lower(coalesce(address, '')), lower(?1)) > 0"
	                " OR instr(coalesce(phone, ''), ?1) > 0"
	                " OR (?2 IS NOT NULL AND instr(fd_digits(phone), ?2) > 0))"
	                /* soft-deleted and purged customers leave lists and search */
	                " AND NOT EXISTS (SELECT 1 FROM retention_process p WHERE p.customer_id ="
	                " customer.id AND p.state IN ('soft_deleted', 'purging'))"
	                " AND NOT EXISTS (SELECT 1 FROM retention_purged r"
	                " WHERE r.customer_id = customer.id)"
	                " ORDER BY name COLLATE NOCASE, id LIMIT ?3",
	                &st);
	if (rc) {
		free(q);
		return rc;
	}
	if (q)
		sqlite3_bind_text(st, 1, q, -1, SQLITE_TRANSIENT);
	if (digits[0])
		sqlite3_bind_text(st, 2, digits, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, limit > 0 ? limit : -1);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct customer c;

		fill(st, &c);
		rc = cb(&c, arg);
		customer_free(&c);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list customers"));
	sqlite3_finalize(st);
	free(q);
	return rc;
}

int customer_list(struct db *db, const char *search, int (*cb)(const struct customer *c, void *arg),
                  void *arg)
{
	return customer_search(db, search, 0, cb, arg);
}

struct find_ctx {
	const char *text;
	int n, exact;
	int64_t id, exact_id;
	char name[256], exact_name[256];
};

static int find_row(const struct customer *c, void *arg)
{
	struct find_ctx *f = arg;

	if (f->n++ == 0) {
		f->id = c->id;
		snprintf(f->name, sizeof f->name, "%s", c->name);
	}
	if (strcasecmp(c->name, f->text) == 0 && f->exact++ == 0) {
		f->exact_id = c->id;
		snprintf(f->exact_name, sizeof f->exact_name, "%s", c->name);
	}
	return 0;
}

int customer_find(struct db *db, const char *text, int64_t *id_out, char *name, size_t n)
{
	struct find_ctx f;
	char *end;
	long long v;
	int rc;

	if (!text || !*text)
		return err_set(FD_EINVAL, "%s",
		               _("name a customer: a name, a phone number or a customer number"));
	v = strtoll(text, &end, 10);
	/* a number of up to 6 digits is a customer's number; 7 or more are a
	 * phone number's digits, searched below */
	if (!*end && v > 0 && strlen(text) <= 6) {
		struct customer c;

		if ((rc = customer_get(db, v, &c)))
			return rc;
		*id_out = c.id;
		if (name)
			snprintf(name, n, "%s", c.name);
		customer_free(&c);
		return 0;
	}
	memset(&f, 0, sizeof f);
	f.text = text;
	if ((rc = search_rows(db, text, 200, find_row, &f)) < 0)
		return rc;
	if (f.exact == 1) {
		f.n = 1;
		f.id = f.exact_id;
		memcpy(f.name, f.exact_name, sizeof f.name);
	}
	if (f.n == 0)
		return err_set(FD_ENOTFOUND, _("no customer matches '%.40s'"), text);
	if (f.n >= 200)
		return err_set(
		    FD_ECONFLICT,
		    _("200 or more customers match '%.40s'; type more, or the customer's "
		      "number"),
		    text);
	if (f.n > 1)
		return err_set(
		    FD_ECONFLICT,
		    _("%1$d customers match '%2$.40s'; type more, or the customer's number"), f.n,
		    text);
	*id_out = f.id;
	if (name)
		snprintf(name, n, "%s", f.name);
	return 0;
}

/* ---------------------------------------------------------------- retention */

/* The customer whose phone has the digits of phone or whose e-mail is
 * email, a phone match before an e-mail one (then the lowest id): among the
 * soft-deleted customers (soft 1) or among those lists show (soft 0). */
static int find_by_contact(struct db *db, int soft, const char *phone, const char *email,
                           int64_t *id_out)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare_cached(
	    db,
	    "SELECT c.id FROM customer c WHERE ((?1 IS NOT NULL AND ?1 <> ''"
	    " AND fd_digits(c.phone) <> '' AND fd_digits(c.phone) = fd_digits(?1))"
	    " OR (?2 IS NOT NULL AND ?2 <> '' AND lower(c.email) = lower(?2)))"
	    " AND (SELECT count(*) FROM retention_process p WHERE p.customer_id = c.id"
	    "  AND p.state = 'soft_deleted') = ?3"
	    " AND NOT EXISTS (SELECT 1 FROM retention_process p WHERE p.customer_id = c.id"
	    "  AND p.state = 'purging')"
	    " AND NOT EXISTS (SELECT 1 FROM retention_purged r WHERE r.customer_id = c.id)"
	    " ORDER BY (?1 IS NOT NULL AND ?1 <> '' AND fd_digits(c.phone) = fd_digits(?1)) DESC,"
	    " c.id LIMIT 1",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, phone, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, email, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 3, soft != 0);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		*id_out = sqlite3_column_int64(st, 0);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, "%s", _("no customer has that phone or e-mail"));
	else
		rc = db_fail(db, _("cannot look for the customer"));
	db_release(db, st);
	return rc;
}

int customer_find_contact(struct db *db, const char *phone, const char *email, int64_t *id_out)
{
	return find_by_contact(db, 0, phone, email, id_out);
}

int customer_find_soft_deleted(struct db *db, const char *phone, const char *email, int64_t *id_out)
{
	return find_by_contact(db, 1, phone, email, id_out);
}

/* The customer row and its history keep only the id and times; the
 * calendar rows of their visits are rebuilt in the same transaction so the
 * name does not stay in the projection until a job runs. */
int customer_retention_purge(struct db *db, struct retention_purge_ctx *c)
{
	static const struct retention_stmt v[] = {
	    {"UPDATE customer SET name = '" RETENTION_REMOVED "', phone = NULL, email = NULL,"
	     " address = NULL, note = NULL WHERE id = ?1",
	     N_("cannot clear the customer")},
	    {"UPDATE customer_his SET name = '" RETENTION_REMOVED "', phone = NULL, email = NULL,"
	     " address = NULL, note = NULL WHERE id = ?1",
	     N_("cannot clear the customer's history")},
	};
	sqlite3_stmt *st;
	int rc, step = SQLITE_DONE;

	if ((rc = retention_exec_all(db, v, sizeof v / sizeof v[0], c->customer_id)))
		return rc;
	rc = db_prepare(
	    db,
	    "SELECT DISTINCT w.appointment_id FROM appointment_work w"
	    " JOIN service_order s ON s.id = w.service_order_id WHERE s.customer_id = ?1",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, c->customer_id);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
		rc = projection_rebuild_in_tx(db, sqlite3_column_int64(st, 0), NULL);
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list the customer's visits"));
	sqlite3_finalize(st);
	return rc;
}
