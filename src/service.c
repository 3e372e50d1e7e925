/*
 * service.c - the service catalogue (see service.h): adding, reading,
 * editing, retiring and listing services, and adding one to a job as a
 * line item.
 *
 * Invariants: input is checked completely before the write transaction
 * starts, and what needs the database (the service exists and is active,
 * no other active service has the name) inside it before the first write,
 * so a refused request changes nothing. The schema backs the rules up: a
 * unique index on active names, retired is final, no DELETE.
 *
 * A line item made from a service is a copy (item_add): the catalogue
 * never changes it afterwards.
 *
 * Permissions: the catalogue's changes ask catalogue; service_to_job adds
 * a line item, which asks job.edit (item.c).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "item.h"
#include "job.h"
#include "money.h"
#include "service.h"
#include "settings.h"
#include "strbuf.h"
#include "text.h"

const char *const service_kinds[SERVICE_NKINDS] = {"SERVICE", "FEE", "DISCOUNT", "TAX", "CREDIT"};
const char *const service_kind_labels[SERVICE_NKINDS] = {N_("service"), N_("fee"), N_("discount"),
                                                         N_("tax"), N_("credit")};

/* The canonical spelling of kind (any case), or NULL. */
static const char *find_kind(const char *kind)
{
	int i;

	for (i = 0; kind && i < SERVICE_NKINDS; i++)
		if (!strcasecmp(kind, service_kinds[i]))
			return service_kinds[i];
	return NULL;
}

struct svc_ctx {
	int64_t id;
	const struct service_input *in;
	const char *kind;           /* canonical, NULL when unchanged */
	const struct currency *cur; /* service_add only */
};

/* FD_EINVAL when price (in currency code) is beyond the money limit. */
static int check_price(int64_t price, const char *code)
{
	char m[MONEY_BUFSZ];

	if (price <= MONEY_MAX)
		return 0;
	return err_set(FD_EINVAL,
	               _("the price is beyond the largest amount of money (%s %s): lower it"),
	               money_text(MONEY_MAX, code, 1, m), code);
}

/* The currency named code, or FD_EINVAL. */
static int find_currency(const char *code, const struct currency **out)
{
	if ((*out = currency_find(code)))
		return 0;
	return err_set(FD_EINVAL, _("unknown currency '%.12s': use an ISO code such as USD"),
	               code ? code : "");
}

/* FD_EINVAL for a negative price (given: not SERVICE_KEEP). */
static int check_sign(int64_t price)
{
	if (price != SERVICE_KEEP && price < 0)
		return err_set(FD_EINVAL,
		               _("the price must not be negative; use the kind DISCOUNT or "
		                 "CREDIT to take money off"));
	return 0;
}

/* FD_EINVAL for minutes (given: not SERVICE_KEEP) out of range. */
static int check_minutes(int64_t minutes)
{
	if (minutes != SERVICE_KEEP && (minutes < 0 || minutes > SERVICE_MINUTES_MAX))
		return err_set(FD_EINVAL, _("the minutes must be between 0 and %d"),
		               SERVICE_MINUTES_MAX);
	return 0;
}

/* The name (given) and the kind (given; canonical into *kind). */
static int check_name_kind(const struct service_input *in, const char **kind)
{
	int rc;

	if (in->name && (rc = text_check(in->name, _("the service name"), 200, 0)))
		return rc;
	if (in->kind && !(*kind = find_kind(in->kind)))
		return err_set(FD_EINVAL,
		               _("'%.20s' is not a kind of line item: use SERVICE, FEE, DISCOUNT, "
		                 "TAX or CREDIT"),
		               in->kind);
	return 0;
}

/* Check in; fills c->kind and (adding) c->cur. */
static int check_input(const struct service_input *in, int adding, struct svc_ctx *c)
{
	int rc;

	if (adding && !in->name)
		return text_check(in->name, _("the service name"), 200, 0);
	if ((rc = check_name_kind(in, &c->kind)))
		return rc;
	if (adding && !in->kind)
		c->kind = service_kinds[0];
	if (adding) {
		if ((rc = find_currency(in->currency ? in->currency : service_default_currency(),
		                        &c->cur)))
			return rc;
	} else if (in->currency) {
		return err_set(FD_EINVAL,
		               _("the currency of a service cannot change: retire it and "
		                 "add it again in the other currency"));
	}
	if (adding && in->price == SERVICE_KEEP)
		return err_set(FD_EINVAL, _("the service needs a price"));
	if ((rc = check_sign(in->price)))
		return rc;
	if (adding && (rc = check_price(in->price, c->cur->code)))
		return rc;
	return check_minutes(in->minutes);
}

int service_check(const struct service_input *in)
{
	const struct currency *cur = NULL;
	const char *kind = NULL;
	int rc;

	if ((rc = check_name_kind(in, &kind)))
		return rc;
	if (in->currency && (rc = find_currency(in->currency, &cur)))
		return rc;
	if ((rc = check_sign(in->price)))
		return rc;
	if (cur && in->price != SERVICE_KEEP && (rc = check_price(in->price, cur->code)))
		return rc;
	return check_minutes(in->minutes);
}

const char *service_default_currency(void)
{
	return config_get("currency", "USD");
}

int service_read_price(const char *text, const char *code, int64_t *out)
{
	const struct currency *cur;
	int rc;

	if ((rc = find_currency(code, &cur)))
		return rc;
	return money_parse(text, cur, out);
}

int service_read_minutes(const char *text, int64_t *out)
{
	const char *p;
	int64_t v = 0;

	for (p = text; *p >= '0' && *p <= '9' && v <= SERVICE_MINUTES_MAX; p++)
		v = v * 10 + (*p - '0');
	if (!*text || *p) {
		if (*p >= '0' && *p <= '9')
			return check_minutes(v); /* too many: say the limit */
		return err_set(FD_EINVAL, "%s",
		               _("a whole number of minutes is needed (0 or more)"));
	}
	*out = v;
	return 0;
}

#define SERVICE_COLS "id, name, kind, price, currency, minutes, active, created_at, updated_at"

static void fill(sqlite3_stmt *st, struct service *s)
{
	memset(s, 0, sizeof *s);
	s->id = sqlite3_column_int64(st, 0);
	s->name = dbrow_dup(st, 1);
	dbrow_copy(st, 2, s->kind, sizeof s->kind);
	s->price = sqlite3_column_int64(st, 3);
	dbrow_copy(st, 4, s->currency, sizeof s->currency);
	s->minutes = sqlite3_column_int64(st, 5);
	s->active = sqlite3_column_int(st, 6) != 0;
	s->created_at = sqlite3_column_int64(st, 7);
	s->updated_at = sqlite3_column_int64(st, 8);
}

static void get_row(sqlite3_stmt *st, void *out)
{
	fill(st, out);
}

int service_get(struct db *db, int64_t id, struct service *out)
{
	int rc, found;

	memset(out, 0, sizeof *out);
	rc = dbrow_get(db, "SELECT " SERVICE_COLS " FROM service WHERE id = ?", id, get_row, out,
	               _("cannot read the service"), &found);
	if (!rc && !found)
		rc = err_set(FD_ENOTFOUND, _("there is no service %lld"), (long long)id);
	return rc;
}

void service_free(struct service *s)
{
	free(s->name);
	memset(s, 0, sizeof *s);
}

/* Inside the transaction: FD_ECONFLICT when an active service other than
 * id (0: none) is called name. */
static int check_name_free(struct db *db, const char *name, int64_t id)
{
	sqlite3_stmt *st;
	int64_t other = 0;
	char *other_name = NULL;
	int rc, step;

	rc = db_prepare(db,
	                "SELECT id, name FROM service WHERE active = 1 AND name = ?1 COLLATE NOCASE"
	                " AND id <> ?2",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		other = sqlite3_column_int64(st, 0);
		other_name = dbrow_dup(st, 1);
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the service catalogue"));
	}
	sqlite3_finalize(st);
	if (!rc && other)
		rc = err_set(FD_ECONFLICT,
		             _("there is an active service named '%.60s' already (service %lld): "
		               "choose another name, or retire that service first"),
		             other_name ? other_name : "", (long long)other);
	free(other_name);
	return rc;
}

static int add_tx(struct db *db, void *arg)
{
	struct svc_ctx *a = arg;
	sqlite3_stmt *st;
	int64_t now = clock_now();
	int rc;

	if ((rc = control_require(db, PERM_CATALOGUE, 0, "add a service")))
		return rc;
	if ((rc = check_name_free(db, a->in->name, 0)))
		return rc;
	rc = db_prepare(db,
	                "INSERT INTO service (name, kind, price, currency, minutes, active,"
	                " created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?6)",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, a->in->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, a->kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, a->in->price);
	sqlite3_bind_text(st, 4, a->cur->code, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, a->in->minutes == SERVICE_KEEP ? 0 : a->in->minutes);
	sqlite3_bind_int64(st, 6, now);
	if ((rc = db_run(db, st, _("cannot add the service"))))
		return rc;
	a->id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

int service_add(struct db *db, const struct service_input *in, int64_t *id_out)
{
	struct svc_ctx a = {0, in, NULL, NULL};
	int rc;

	if ((rc = check_input(in, 1, &a)) || (rc = db_write(db, add_tx, &a)))
		return rc;
	*id_out = a.id;
	return 0;
}

/* Inside the transaction: service id exists and is active; unless price is
 * SERVICE_KEEP also that price is within the money limit in the service's
 * currency. */
static int must_be_active(struct db *db, int64_t id, int64_t price)
{
	struct service s;
	int rc = service_get(db, id, &s);

	if (!rc && !s.active)
		rc = err_set(FD_ECONFLICT, _("service %lld is retired: add a new service instead"),
		             (long long)id);
	if (!rc && price != SERVICE_KEEP)
		rc = check_price(price, s.currency);
	service_free(&s);
	return rc;
}

/* Bind v, or NULL for SERVICE_KEEP (the column keeps its value). */
static void bind_keep(sqlite3_stmt *st, int i, int64_t v)
{
	if (v == SERVICE_KEEP)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

static int edit_tx(struct db *db, void *arg)
{
	struct svc_ctx *e = arg;
	sqlite3_stmt *st;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "edit service %lld", (long long)e->id);
	if ((rc = control_require(db, PERM_CATALOGUE, 0, subject)))
		return rc;
	if ((rc = must_be_active(db, e->id, e->in->price)) ||
	    (e->in->name && (rc = check_name_free(db, e->in->name, e->id))))
		return rc;
	rc = db_prepare(db,
	                "UPDATE service SET name = coalesce(?1, name), kind = coalesce(?2, kind),"
	                " price = coalesce(?3, price), minutes = coalesce(?4, minutes),"
	                " updated_at = ?5 WHERE id = ?6",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, e->in->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, e->kind, -1, SQLITE_STATIC);
	bind_keep(st, 3, e->in->price);
	bind_keep(st, 4, e->in->minutes);
	sqlite3_bind_int64(st, 5, clock_now());
	sqlite3_bind_int64(st, 6, e->id);
	return db_run(db, st, _("cannot change the service"));
}

int service_edit(struct db *db, int64_t id, const struct service_input *in)
{
	struct svc_ctx e = {id, in, NULL, NULL};
	int rc;

	if ((rc = check_input(in, 0, &e)))
		return rc;
	if (!in->name && !in->kind && in->price == SERVICE_KEEP && in->minutes == SERVICE_KEEP)
		return err_set(FD_EINVAL, _("nothing to change: give at least one field"));
	return db_write(db, edit_tx, &e);
}

static int retire_tx(struct db *db, void *arg)
{
	int64_t id = *(int64_t *)arg;
	sqlite3_stmt *st;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "retire service %lld", (long long)id);
	if ((rc = control_require(db, PERM_CATALOGUE, 0, subject)))
		return rc;
	if ((rc = must_be_active(db, id, -1)))
		return rc;
	rc = db_prepare(db, "UPDATE service SET active = 0, updated_at = ?1 WHERE id = ?2", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, clock_now());
	sqlite3_bind_int64(st, 2, id);
	return db_run(db, st, _("cannot retire the service"));
}

int service_retire(struct db *db, int64_t id)
{
	return db_write(db, retire_tx, &id);
}

int service_list(struct db *db, int all, int (*cb)(const struct service *s, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare(db,
	                "SELECT " SERVICE_COLS " FROM service WHERE ?1 OR active = 1"
	                " ORDER BY name COLLATE NOCASE, active DESC, id",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int(st, 1, all != 0);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct service s;

		fill(st, &s);
		rc = cb(&s, arg);
		service_free(&s);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list the services"));
	sqlite3_finalize(st);
	return rc;
}

int service_to_job(struct db *db, int64_t id, int64_t job_id, int64_t qty_milli, int64_t *item_id)
{
	struct item_input in = {0};
	struct service s;
	struct job j;
	int rc;

	memset(&j, 0, sizeof j);
	if ((rc = service_get(db, id, &s)))
		return rc;
	if (!s.active) {
		rc = err_set(FD_ECONFLICT,
		             _("service %lld is retired and no longer offered: choose another one"),
		             (long long)id);
		goto out;
	}
	if ((rc = job_get(db, job_id, &j)))
		goto out;
	if (strcmp(j.currency, s.currency)) {
		rc = err_set(FD_ECONFLICT,
		             _("service %lld is priced in %s and job %lld is in %s: add the line "
		               "with its price in %s instead (frontdesk item add)"),
		             (long long)id, s.currency, (long long)job_id, j.currency, j.currency);
		goto out;
	}
	/* a copy: the description and price are the line item's from now on */
	in.job_id = job_id;
	in.kind = s.kind;
	in.description = s.name;
	in.qty_milli = qty_milli;
	in.unit_price = s.price;
	rc = item_add(db, &in, item_id);
out:
	job_free(&j);
	service_free(&s);
	return rc;
}

/* The ids of the active services whose name matches pattern (LIKE, any
 * ASCII case; ?1) in ids (up to 3), their names in names; *n gets the
 * count (up to 3). */
static int find_like(struct db *db, const char *pattern, int64_t ids[3], struct strbuf *names,
                     int *n)
{
	sqlite3_stmt *st;
	int rc, step;

	*n = 0;
	if ((rc = db_prepare_cached(db,
	                            "SELECT id, name FROM service WHERE active = 1"
	                            " AND name LIKE ?1 ESCAPE '\\' ORDER BY name LIMIT 3",
	                            &st)))
		return rc;
	sqlite3_bind_text(st, 1, pattern, -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		ids[*n] = sqlite3_column_int64(st, 0);
		sb_printf(names, "%s%s", (*n)++ ? ", " : "",
		          (const char *)sqlite3_column_text(st, 1));
	}
	rc = step == SQLITE_DONE ? 0 : db_fail(db, _("cannot find the service"));
	sqlite3_reset(st);
	return rc;
}

int service_find(struct db *db, const char *text, int64_t *id_out)
{
	struct strbuf pat = {0}, names = {0};
	int64_t ids[3];
	const char *p;
	char *end;
	long long v;
	int rc, n = 0, pass;

	if (!text || !*text)
		return err_set(FD_EINVAL, "%s", _("name a service (its name or number)"));
	v = strtoll(text, &end, 10);
	if (!*end && v > 0) {
		struct service s;

		if ((rc = service_get(db, v, &s)))
			return rc;
		rc = s.active ? 0
		              : err_set(FD_ECONFLICT,
		                        _("service %lld is retired and no longer offered: choose "
		                          "another one"),
		                        v);
		service_free(&s);
		if (!rc)
			*id_out = v;
		return rc;
	}
	/* the name exactly, then as a prefix, then anywhere in it */
	for (pass = 0, rc = 0; pass < 3 && !rc; pass++) {
		sb_free(&pat);
		sb_free(&names);
		if (pass == 2)
			sb_add(&pat, "%", 1);
		for (p = text; *p; p++) {
			if (*p == '%' || *p == '_' || *p == '\\')
				sb_add(&pat, "\\", 1);
			sb_add(&pat, p, 1);
		}
		if (pass > 0)
			sb_add(&pat, "%", 1);
		if ((rc = find_like(db, sb_cstr(&pat), ids, &names, &n)) || n == 0)
			continue;
		if (n == 1)
			*id_out = ids[0];
		else
			rc = err_set(FD_ECONFLICT,
			             _("'%.40s' names several services (%s%s): type more of "
			               "the name, or its number"),
			             text, sb_cstr(&names), n > 2 ? ", ..." : "");
		break;
	}
	if (!rc && n == 0)
		rc = err_set(FD_ENOTFOUND, _("no service offered is called '%.40s'"), text);
	sb_free(&pat);
	sb_free(&names);
	return rc;
}
