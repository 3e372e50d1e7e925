/*
 * booking-chan.c - online booking channels (see booking-chan.h): requests
 * stored raw through the inbound table, decided one transaction each with
 * the capacity rule of capacity.c (through booking_add), and the
 * availability pushes written to the outbox.
 *
 * Permissions: none is asked here. Requests are decided by the capacity
 * rule (booking_chan_process acts for the shop, control.h); a person's
 * changes of the visits it made ask their own (visit.c, booking.c).
 *
 * The generic REST channel's event (README "Online booking channels"):
 *   {"id": "evt_1", "type": "booking.requested" | "booking.changed" |
 *    "booking.cancelled", "created": <unix>,
 *    "request": {"id": "R1", "start": <unix>, "end": <unix>,
 *                "service": "Oil change", "resource": "Van 1",
 *                "customer": {"name": "...", "phone": "...", "email": "..."}}}
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "announce.h"
#include "booking-chan.h"
#include "booking.h"
#include "capacity.h"
#include "clock.h"
#include "control.h"
#include "crypto-dyn.h"
#include "customer.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "inbox.h"
#include "outbox.h"
#include "pipe-http.h"
#include "pipe-log.h"
#include "pipe-provider.h"
#include "pipe-secret.h"
#include "pipe-sig.h"
#include "retention-mod.h"
#include "service.h"
#include "states.h"
#include "visit.h"
#include "xalloc.h"

/* The stored word of each state of a request, once. */
static const char *const request_words[BOOKING_REQUEST_STATES] = {
    [BOOKING_REQUEST_RECEIVED] = "received", [BOOKING_REQUEST_CONFIRMED] = "confirmed",
    [BOOKING_REQUEST_REJECTED] = "rejected", [BOOKING_REQUEST_CANCELLED] = "cancelled",
    [BOOKING_REQUEST_DONE] = "done",         [BOOKING_REQUEST_NO_SHOW] = "no_show",
};

/* The moves of a request: the schema's status_transition rows for
 * booking_request (states_agree checks the two are the same). */
static const struct state_move request_moves[] = {
    {BOOKING_REQUEST_RECEIVED, BOOKING_REQUEST_CONFIRMED},
    {BOOKING_REQUEST_RECEIVED, BOOKING_REQUEST_REJECTED},
    {BOOKING_REQUEST_RECEIVED, BOOKING_REQUEST_CANCELLED},
    {BOOKING_REQUEST_CONFIRMED, BOOKING_REQUEST_CANCELLED},
    {BOOKING_REQUEST_CONFIRMED, BOOKING_REQUEST_DONE},
    {BOOKING_REQUEST_CONFIRMED, BOOKING_REQUEST_NO_SHOW},
    {-1, -1},
};

const struct states booking_request_states = {"booking_request", request_words,
                                              BOOKING_REQUEST_STATES, request_moves};

enum booking_request_state booking_request_state_of(const char *word)
{
	return (enum booking_request_state)states_of(&booking_request_states, word);
}

const char *booking_request_state_word(enum booking_request_state s)
{
	return states_word(&booking_request_states, (int)s);
}

/* ---------------------------------------------------------------- reading */

/* The event as read. */
struct bevent {
	char id[256], type[101], request_id[256];
	int64_t created, start_at, end_at;
	char service[201], resource[201];
	char name[201], phone[61], email[201];
};

static void copy_str(const cJSON *o, const char *key, char *buf, size_t n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	*buf = '\0';
	if (cJSON_IsString(v) && v->valuestring)
		snprintf(buf, n, "%s", v->valuestring);
}

static int64_t get_int(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
}

static int read_event(const void *raw, size_t len, struct bevent *e)
{
	cJSON *root = cJSON_ParseWithLength(raw, len);
	const cJSON *req, *cust;
	int rc = 0;

	memset(e, 0, sizeof *e);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return err_set(FD_EINVAL, _("the booking event is not a JSON object"));
	}
	copy_str(root, "id", e->id, sizeof e->id);
	copy_str(root, "type", e->type, sizeof e->type);
	e->created = get_int(root, "created");
	req = cJSON_GetObjectItemCaseSensitive(root, "request");
	if (cJSON_IsObject(req)) {
		copy_str(req, "id", e->request_id, sizeof e->request_id);
		e->start_at = get_int(req, "start");
		e->end_at = get_int(req, "end");
		copy_str(req, "service", e->service, sizeof e->service);
		copy_str(req, "resource", e->resource, sizeof e->resource);
		cust = cJSON_GetObjectItemCaseSensitive(req, "customer");
		if (cJSON_IsObject(cust)) {
			copy_str(cust, "name", e->name, sizeof e->name);
			copy_str(cust, "phone", e->phone, sizeof e->phone);
			copy_str(cust, "email", e->email, sizeof e->email);
		}
	}
	if (!*e->id)
		rc = err_set(FD_EINVAL, _("the booking event has no id"));
	else if (strcmp(e->type, "booking.requested") && strcmp(e->type, "booking.changed") &&
	         strcmp(e->type, "booking.cancelled"))
		rc =
		    err_set(FD_EINVAL,
		            _("the booking event's type '%s' is not one frontdesk knows"), e->type);
	else if (!*e->request_id)
		rc = err_set(FD_EINVAL, _("the booking event names no request id"));
	else if (strcmp(e->type, "booking.cancelled") &&
	         (e->start_at <= 0 || e->end_at <= e->start_at))
		rc = err_set(FD_EINVAL, _("the booking event's slot has no start or ends before it "
		                          "starts"));
	cJSON_Delete(root);
	return rc;
}

int booking_chan_read(const void *raw, size_t len, char id[256], char type[101],
                      char request_id[256])
{
	struct bevent e;
	int rc = read_event(raw, len, &e);

	if (rc)
		return rc;
	snprintf(id, 256, "%s", e.id);
	snprintf(type, 101, "%s", e.type);
	snprintf(request_id, 256, "%s", e.request_id);
	return 0;
}

/* ---------------------------------------------------------------- ingest */

int booking_chan_ingest(struct db *db, const char *code, const char *secrets_path,
                        const char *header, const void *raw, size_t len,
                        struct inbox_ingest_result *r)
{
	struct pipe_provider p;
	struct pipe_secrets *sec = NULL;
	const char *secret = NULL;
	struct inbox_relayed x = {0};
	char key[64], id[256], type[101], rid[256];
	int rc;

	memset(r, 0, sizeof *r);
	if ((rc = inbox_relay_begin(len)) != 0)
		return rc;
	if ((rc = pipe_provider_get_type(db, BOOKING_CHAN_TYPE, code, &p)) != 0)
		return rc;
	pipe_provider_free(&p);
	if ((rc = pipe_secret_load(secrets_path, &sec)) != 0)
		return rc;
	snprintf(key, sizeof key, "%s_signing_secret", code);
	if ((rc = pipe_secret_need(sec, key, &secret)) != 0)
		goto out;
	x.source = code;
	x.type = BOOKING_CHAN_TYPE;
	x.header = header;
	x.payload = raw;
	x.len = len;
	x.json = 1; /* its events are JSON */
	x.verified = pipe_sig_verify(header ? header : "", raw, len, secret, clock_real(),
	                             PIPE_SIG_TOLERANCE, NULL) == 0;
	if (x.verified && (x.readable = booking_chan_read(raw, len, id, type, rid) == 0)) {
		x.external_id = id;
		x.event_type = type;
		x.object_id = rid;
	}
	rc = inbox_store_relayed(db, &x, r);
out:
	pipe_secret_free(sec);
	return rc;
}

/* ---------------------------------------------------------------- pushes */

struct slots_ctx {
	cJSON *arr;
};

static int slot_cb(const struct cap_slot *s, void *arg)
{
	struct slots_ctx *x = arg;
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "start", (double)s->start_at);
	cJSON_AddNumberToObject(o, "end", (double)s->end_at);
	cJSON_AddItemToArray(x->arr, o);
	return 0;
}

struct push_ctx {
	int64_t resource, day_start, n;
};

int booking_chan_command_fits(struct db *db, const struct outbox_cmd *o)
{
	sqlite3_stmt *st;
	int64_t newer = 0;
	int rc;

	if (strcmp(o->event_type, "availability.push"))
		return 0;
	if ((rc = db_prepare_cached(db,
	                            "SELECT coalesce(max(q.version), 0) FROM availability_push p"
	                            " JOIN availability_push q ON q.provider_code = p.provider_code"
	                            " AND q.resource_id = p.resource_id AND q.day = p.day"
	                            " AND q.version > p.version"
	                            " JOIN outbox_event e ON e.id = q.outbox_id"
	                            " AND e.status = 'succeeded' WHERE p.outbox_id = ?1",
	                            &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, o->id);
	if (sqlite3_step(st) == SQLITE_ROW)
		newer = sqlite3_column_int64(st, 0);
	db_release(db, st);
	if (!newer)
		return 0;
	return err_set(FD_ECONFLICT,
	               _("a later push of that day (version %lld) reached the channel: this one "
	                 "is not sent again"),
	               (long long)newer);
}

static int push_one(struct db *db, const char *code, struct push_ctx *x, const char *payload_slots,
                    const char *day)
{
	sqlite3_stmt *st;
	int64_t version = 0, outbox, now = clock_now();
	char bkey[120], key[200];
	struct resource res;
	cJSON *o;
	char *payload;
	int rc;

	if ((rc = db_prepare_cached(db,
	                            "SELECT coalesce(max(version), 0) + 1 FROM availability_push"
	                            " WHERE provider_code = ?1 AND resource_id = ?2 AND day = ?3",
	                            &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, code, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, x->resource);
	sqlite3_bind_text(st, 3, day, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int64(st, 0);
	db_release(db, st);
	if (version < 1)
		return db_fail(db, _("cannot read the availability version"));
	snprintf(bkey, sizeof bkey, "%lld:%s:%lld", (long long)x->resource, day,
	         (long long)version);
	snprintf(key, sizeof key, "fd_avail_%s_%s", code, bkey);
	/* the resource by its name, the word the channel's requests use */
	if ((rc = capacity_resource_get(db, x->resource, &res)) != 0)
		return rc;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "resource", res.name);
	cJSON_AddStringToObject(o, "day", day);
	cJSON_AddNumberToObject(o, "version", (double)version);
	payload = cJSON_AddItemToObject(o, "free", cJSON_Parse(payload_slots))
	              ? cJSON_PrintUnformatted(o)
	              : NULL;
	cJSON_Delete(o);
	capacity_resource_free(&res);
	if (!payload)
		return err_set(FD_EINVAL, _("cannot write the availability push"));
	{
		struct outbox_new c = {
		    BOOKING_CHAN_TYPE, "availability.push", bkey, code, key, payload, 0, 0};

		rc = outbox_enqueue(db, &c, &outbox);
	}
	free(payload);
	if (rc)
		return rc;
	if ((rc = db_prepare_cached(
	         db,
	         "INSERT INTO availability_push (provider_code, resource_id, day,"
	         " version, outbox_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	         &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, code, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, x->resource);
	sqlite3_bind_text(st, 3, day, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, version);
	sqlite3_bind_int64(st, 5, outbox);
	sqlite3_bind_int64(st, 6, now);
	if ((rc = db_run_cached(db, st, _("cannot record the availability push"))) != 0)
		return rc;
	x->n++;
	return 0;
}

static int push_tx(struct db *db, void *arg)
{
	struct push_ctx *x = arg;
	struct slots_ctx sl = {NULL};
	sqlite3_stmt *st;
	char day[16], *slots = NULL;
	char **codes = NULL;
	size_t ncodes = 0, i;
	int rc, step;

	if ((rc = db_prepare_cached(db,
	                            "SELECT provider_code FROM integration_provider"
	                            " WHERE integration_type = 'booking' AND enabled = 1"
	                            " ORDER BY provider_code",
	                            &st)) != 0)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		codes = xrealloc(codes, (ncodes + 1) * sizeof *codes);
		codes[ncodes++] = dbrow_dup(st, 0);
	}
	db_release(db, st);
	rc = step == SQLITE_DONE ? 0 : db_fail(db, _("cannot read the booking providers"));
	/* no booking channel: nothing to tell, and no availability to compute */
	if (!rc && ncodes) {
		clock_format_local(x->day_start, "%Y-%m-%d", day, sizeof day);
		sl.arr = cJSON_CreateArray();
		rc = capacity_available(db, x->day_start, 1, capacity_slot_minutes(),
		                        capacity_slot_minutes(), &x->resource, 1, slot_cb, &sl);
		if (!rc)
			slots = cJSON_PrintUnformatted(sl.arr);
		cJSON_Delete(sl.arr);
	}
	for (i = 0; i < ncodes; i++) {
		if (!rc)
			rc = push_one(db, codes[i], x, slots, day);
		free(codes[i]);
	}
	free(codes);
	free(slots);
	return rc;
}

struct visit_push {
	int64_t appt, old_start;
};

static int answer_cmd(struct db *db, const char *code, const char *rid, int64_t req,
                      const char *status, const char *reason, const char *tag);

/* A visit done or marked no-show: the confirmed requests that made it move
 * to done or no_show (one way: only from confirmed), each channel told
 * through the outbox. Any other status of the visit leaves them alone. */
static int request_follow(struct db *db, int64_t appt, const char *vstatus)
{
	sqlite3_stmt *st;
	const char *to;
	char tag[40];
	int rc = 0, step = SQLITE_DONE;

	switch (visit_state_of(vstatus)) {
	case VISIT_DONE:
		to = booking_request_state_word(BOOKING_REQUEST_DONE);
		break;
	case VISIT_NO_SHOW:
		to = booking_request_state_word(BOOKING_REQUEST_NO_SHOW);
		break;
	default:
		return 0;
	}
	snprintf(tag, sizeof tag, "visit%lld", (long long)appt);
	if ((rc = db_prepare(db,
	                     "UPDATE booking_request SET status = ?2, updated_at = ?3"
	                     " WHERE appointment_id = ?1 AND status = 'confirmed'"
	                     " RETURNING id, provider_code, request_id",
	                     &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, appt);
	sqlite3_bind_text(st, 2, to, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, clock_now());
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		char code[48], rid[256];

		dbrow_copy(st, 1, code, sizeof code);
		dbrow_copy(st, 2, rid, sizeof rid);
		rc = answer_cmd(db, code, rid, sqlite3_column_int64(st, 0), to, NULL, tag);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot save the booking request"));
	sqlite3_finalize(st);
	return rc;
}

static int visit_push_tx(struct db *db, void *arg)
{
	struct visit_push *v = arg;
	sqlite3_stmt *st;
	int64_t res[32], start = 0;
	char vstatus[16] = "";
	size_t n = 0, i;
	int rc, step;

	if ((rc = db_prepare_cached(db, "SELECT status FROM appointment WHERE id = ?1", &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, v->appt);
	if ((step = sqlite3_step(st)) == SQLITE_ROW)
		dbrow_copy(st, 0, vstatus, sizeof vstatus);
	db_release(db, st);
	if (step != SQLITE_DONE && step != SQLITE_ROW)
		return db_fail(db, _("cannot read the visit"));
	if ((rc = request_follow(db, v->appt, vstatus)) != 0)
		return rc;
	/* a visit done keeps its reservations: no day changed */
	if (visit_state_of(vstatus) == VISIT_DONE && !v->old_start)
		return 0;
	if ((rc = db_prepare_cached(db,
	                            "SELECT r.resource_id, a.start_at FROM appointment_resource r"
	                            " JOIN appointment a ON a.id = r.appointment_id"
	                            " WHERE r.appointment_id = ?1 ORDER BY r.id",
	                            &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, v->appt);
	while ((step = sqlite3_step(st)) == SQLITE_ROW && n < sizeof res / sizeof *res) {
		res[n++] = sqlite3_column_int64(st, 0);
		start = sqlite3_column_int64(st, 1);
	}
	db_release(db, st);
	if (step != SQLITE_DONE && step != SQLITE_ROW)
		return db_fail(db, _("cannot read the reservations"));
	for (i = 0; i < n; i++) {
		struct push_ctx x = {res[i], clock_day_start(start), 0};

		if ((rc = push_tx(db, &x)) != 0)
			return rc;
		if (v->old_start && clock_day_start(v->old_start) != x.day_start) {
			x.day_start = clock_day_start(v->old_start);
			if ((rc = push_tx(db, &x)) != 0)
				return rc;
		}
	}
	return 0;
}

int booking_chan_adapter_known(const char *name)
{
	return name && !strcmp(name, "rest");
}

int booking_chan_on_visit(struct db *db, const struct announcement *a)
{
	struct visit_push v = {a->id, a->when};

	return db_write(db, visit_push_tx, &v);
}

int booking_chan_on_day(struct db *db, const struct announcement *a)
{
	return booking_chan_push(db, a->id, a->when, NULL);
}

int booking_chan_push(struct db *db, int64_t resource, int64_t day_start, int64_t *n)
{
	struct push_ctx x = {resource, clock_day_start(day_start), 0};
	int rc = db_write(db, push_tx, &x);

	if (n)
		*n = rc ? 0 : x.n;
	return rc;
}

/* ---------------------------------------------------------------- deciding */

struct decide_ctx {
	int64_t ev_id;
	const char *code;
	struct bevent e;
	const char *outcome; /* confirmed, rejected, cancelled, changed, ignored, failed */
	char why[300];
	int claimed;
	int64_t last_push; /* the newest availability_push before the decision */
	int64_t pushes;
};

/* Mark event id status (processed, ignored, failed, dead) with error
 * (NULL: none) through the inbox: a failed request is asked again a minute
 * later, for as long as it fails (a booking channel waits for our answer). */
static int mark_event(struct db *db, int64_t id, enum inbox_state state, const char *error)
{
	struct inbox_verdict v = {state, error, 0, 60, 1, 0, NULL};

	return inbox_mark(db, id, &v, NULL, NULL);
}

/* The request row of (code, request id): *id 0 when none. */
static int request_of(struct db *db, const char *code, const char *rid, int64_t *id,
                      char status[12], int64_t *appt)
{
	sqlite3_stmt *st;
	int rc, step;

	*id = 0;
	*appt = 0;
	*status = '\0';
	if ((rc = db_prepare_cached(db,
	                            "SELECT id, status, coalesce(appointment_id, 0) FROM"
	                            " booking_request WHERE provider_code = ?1 AND request_id = ?2",
	                            &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, code, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, rid, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, status, 12);
		*appt = sqlite3_column_int64(st, 2);
	}
	db_release(db, st);
	return step == SQLITE_ROW || step == SQLITE_DONE
	           ? 0
	           : db_fail(db, _("cannot read the request"));
}

static void bind_opt(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static int request_insert(struct db *db, struct decide_ctx *d, enum booking_request_state status,
                          int64_t *id)
{
	sqlite3_stmt *st;
	int64_t now = clock_now();
	int rc;

	if ((rc = db_prepare_cached(
	         db,
	         "INSERT INTO booking_request (provider_code, request_id, start_at,"
	         " end_at, service, resource, customer_name, customer_phone,"
	         " customer_email, status, reason, created_at, updated_at)"
	         " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12)",
	         &st)) != 0)
		return rc;
	sqlite3_bind_text(st, 1, d->code, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, d->e.request_id, -1, SQLITE_TRANSIENT);
	if (d->e.start_at > 0 && d->e.end_at > d->e.start_at) {
		sqlite3_bind_int64(st, 3, d->e.start_at);
		sqlite3_bind_int64(st, 4, d->e.end_at);
	} else {
		sqlite3_bind_null(st, 3);
		sqlite3_bind_null(st, 4);
	}
	bind_opt(st, 5, d->e.service);
	bind_opt(st, 6, d->e.resource);
	bind_opt(st, 7, d->e.name);
	bind_opt(st, 8, d->e.phone);
	bind_opt(st, 9, d->e.email);
	sqlite3_bind_text(st, 10, booking_request_state_word(status), -1, SQLITE_STATIC);
	bind_opt(st, 11, *d->why ? d->why : NULL);
	sqlite3_bind_int64(st, 12, now);
	if ((rc = db_run_cached(db, st, _("cannot record the booking request"))) != 0)
		return rc;
	*id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

static int request_update(struct db *db, int64_t id, enum booking_request_state status,
                          int64_t appt, const char *reason, int64_t start_at, int64_t end_at)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare_cached(
	         db,
	         "UPDATE booking_request SET status = ?2,"
	         " appointment_id = coalesce(appointment_id, ?3),"
	         " reason = coalesce(?4, reason),"
	         " start_at = coalesce(?5, start_at), end_at = coalesce(?6, end_at),"
	         " updated_at = ?7 WHERE id = ?1",
	         &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, booking_request_state_word(status), -1, SQLITE_STATIC);
	if (appt)
		sqlite3_bind_int64(st, 3, appt);
	else
		sqlite3_bind_null(st, 3);
	bind_opt(st, 4, reason);
	if (start_at > 0) {
		sqlite3_bind_int64(st, 5, start_at);
		sqlite3_bind_int64(st, 6, end_at);
	} else {
		sqlite3_bind_null(st, 5);
		sqlite3_bind_null(st, 6);
	}
	sqlite3_bind_int64(st, 7, clock_now());
	return db_run_cached(db, st, _("cannot save the booking request"));
}

/* The savepoint of a reservation: the customer (found or added) and the
 * booking, both or neither. */
struct book_ctx {
	struct decide_ctx *d;
	int64_t service, resource, appt;
};

static int book_tx(struct db *db, void *arg)
{
	struct book_ctx *b = arg;
	struct bevent *e = &b->d->e;
	struct booking_input in = {0};
	struct booking_result out;
	int64_t cust = 0;
	int rc = FD_ENOTFOUND;

	if (*e->phone || *e->email)
		rc = customer_find_contact(db, e->phone, e->email, &cust);
	/* a former customer whose data waits for its purge: this booking is
	 * their new activity, which restores them (retention.h) */
	if (rc)
		rc = customer_find_soft_deleted(db, e->phone, e->email, &cust);
	if (rc) {
		struct customer_input ci = {0};

		if (!*e->name)
			return err_set(FD_EINVAL, _("the request gives no customer name"));
		ci.name = e->name;
		ci.phone = *e->phone ? e->phone : NULL;
		ci.email = *e->email ? e->email : NULL;
		if ((rc = customer_add(db, &ci, &cust)) != 0)
			return rc;
	}
	in.start_at = e->start_at;
	in.end_at = e->end_at;
	in.customers = &cust;
	in.ncustomers = 1;
	in.services = &b->service;
	in.nservices = 1;
	in.use_open_job = 1;
	in.resources = &b->resource;
	in.nresources = 1;
	in.note = e->request_id;
	if ((rc = booking_add(db, &in, &out)) != 0)
		return rc;
	b->appt = out.appt_id;
	return 0;
}

/* The booking.confirm command telling provider code that request rid (row
 * req) is now status (reason: why; NULL: none); tag (the inbound event's
 * id, or the visit's change) keeps each answer's key its own. */
static int answer_cmd(struct db *db, const char *code, const char *rid, int64_t req,
                      const char *status, const char *reason, const char *tag)
{
	char bkey[300], key[400];
	cJSON *o = cJSON_CreateObject();
	char *payload;
	int rc;

	cJSON_AddStringToObject(o, "request_id", rid);
	cJSON_AddStringToObject(o, "status", status);
	if (reason)
		cJSON_AddStringToObject(o, "reason", reason);
	payload = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	snprintf(bkey, sizeof bkey, "%lld:%s:%s", (long long)req, status, tag);
	snprintf(key, sizeof key, "fd_bconf_%s_%s", code, bkey);
	{
		struct outbox_new c = {
		    BOOKING_CHAN_TYPE, "booking.confirm", bkey, code, key, payload, 0, 0};

		rc = outbox_enqueue(db, &c, NULL);
	}
	free(payload);
	return rc;
}

static int confirm_cmd(struct db *db, struct decide_ctx *d, int64_t req, const char *status,
                       const char *reason)
{
	return answer_cmd(db, d->code, d->e.request_id, req, status, reason, d->e.id);
}

static int decide_request(struct db *db, struct decide_ctx *d)
{
	struct book_ctx b = {d, 0, 0, 0};
	char status[12];
	int64_t req, appt;
	int rc;

	if ((rc = request_of(db, d->code, d->e.request_id, &req, status, &appt)) != 0)
		return rc;
	if (req && booking_request_state_of(status) == BOOKING_REQUEST_CANCELLED && !appt) {
		/* its cancellation came first: the cancellation stands */
		snprintf(d->why, sizeof d->why,
		         _("request %s was cancelled before it arrived; nothing booked"),
		         d->e.request_id);
		d->outcome = "rejected";
		return confirm_cmd(db, d, req, "rejected", d->why);
	}
	if (req) {
		snprintf(d->why, sizeof d->why, _("request %s was decided before (%s)"),
		         d->e.request_id, status);
		d->outcome = "ignored";
		return 0;
	}
	if ((rc = request_insert(db, d, BOOKING_REQUEST_RECEIVED, &req)) != 0)
		return rc;
	rc = 0;
	if (!*d->e.service)
		rc = err_set(FD_EINVAL, _("the request names no service"));
	else if (service_find(db, d->e.service, &b.service) != 0)
		rc = err_set(FD_EINVAL, _("unknown service '%s'"), d->e.service);
	else if (!*d->e.resource)
		rc = err_set(FD_EINVAL, _("the request names no resource"));
	else if (capacity_resource_find(db, d->e.resource, &b.resource) != 0)
		rc = err_set(FD_EINVAL, _("unknown resource '%s'"), d->e.resource);
	else
		rc = db_write(db, book_tx, &b);
	if (rc == FD_EDB || rc == FD_EBUSY || rc == FD_EIO)
		return rc;
	if (rc) {
		snprintf(d->why, sizeof d->why, "%s", err_msg());
		d->outcome = "rejected";
		if ((rc = request_update(db, req, BOOKING_REQUEST_REJECTED, 0, d->why, 0, 0)) != 0)
			return rc;
		return confirm_cmd(db, d, req, "rejected", d->why);
	}
	/* booking_add wrote the day's availability push itself */
	d->outcome = "confirmed";
	if ((rc = request_update(db, req, BOOKING_REQUEST_CONFIRMED, b.appt, NULL, 0, 0)) != 0)
		return rc;
	return confirm_cmd(db, d, req, "confirmed", NULL);
}

static int decide_change(struct db *db, struct decide_ctx *d)
{
	char status[12];
	int64_t req, appt;
	int rc;

	if ((rc = request_of(db, d->code, d->e.request_id, &req, status, &appt)) != 0)
		return rc;
	if (!req) {
		/* the change came before its request: try again later */
		snprintf(d->why, sizeof d->why, _("request %s is not known yet"), d->e.request_id);
		d->outcome = "failed";
		return 0;
	}
	if (booking_request_state_of(status) != BOOKING_REQUEST_CONFIRMED || !appt) {
		snprintf(d->why, sizeof d->why, _("request %s is %s: a new time changes nothing"),
		         d->e.request_id, status);
		d->outcome = "ignored";
		return 0;
	}
	rc = visit_move(db, appt, d->e.start_at);
	if (rc == FD_EDB || rc == FD_EBUSY || rc == FD_EIO)
		return rc;
	if (rc) {
		snprintf(d->why, sizeof d->why, _("the new time was refused: %s"), err_msg());
		d->outcome = "rejected";
		if ((rc = request_update(db, req, BOOKING_REQUEST_CONFIRMED, 0, d->why, 0, 0)) != 0)
			return rc;
		return confirm_cmd(db, d, req, "change_rejected", d->why);
	}
	d->outcome = "changed";
	if ((rc = request_update(db, req, BOOKING_REQUEST_CONFIRMED, 0, NULL, d->e.start_at,
	                         d->e.start_at + (d->e.end_at - d->e.start_at))) != 0)
		return rc;
	return confirm_cmd(db, d, req, "changed", NULL);
}

static int decide_cancel(struct db *db, struct decide_ctx *d)
{
	char status[12];
	int64_t req, appt;
	enum booking_request_state st;
	int rc;

	if ((rc = request_of(db, d->code, d->e.request_id, &req, status, &appt)) != 0)
		return rc;
	snprintf(d->why, sizeof d->why, _("cancelled through the booking channel"));
	if (!req) {
		snprintf(d->why, sizeof d->why,
		         _("cancelled through the booking channel before its request arrived"));
		d->outcome = "cancelled";
		return request_insert(db, d, BOOKING_REQUEST_CANCELLED, &req);
	}
	st = booking_request_state_of(status);
	if (st != BOOKING_REQUEST_RECEIVED && st != BOOKING_REQUEST_CONFIRMED) {
		snprintf(d->why, sizeof d->why, _("request %s is %s already"), d->e.request_id,
		         status);
		d->outcome = "ignored";
		return 0;
	}
	/* visit.c pushes the freed day */
	if (appt && (rc = visit_set_status(db, appt, "cancelled", d->why)) != 0)
		return rc;
	d->outcome = "cancelled";
	return request_update(db, req, BOOKING_REQUEST_CANCELLED, 0, d->why, 0, 0);
}

static int decide_tx(struct db *db, void *arg)
{
	struct decide_ctx *d = arg;
	sqlite3_stmt *st;
	unsigned char *raw = NULL;
	size_t len = 0;
	int rc;

	/* inside the write transaction: a second process that decided the
	 * event first has changed its status, and this one skips it */
	if ((rc = db_prepare_cached(db,
	                            "SELECT payload FROM inbound_callback WHERE id = ?1"
	                            " AND status IN ('received', 'failed')",
	                            &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, d->ev_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		len = (size_t)sqlite3_column_bytes(st, 0);
		raw = xmalloc(len + 1);
		memcpy(raw, sqlite3_column_blob(st, 0), len);
	}
	db_release(db, st);
	if (!raw)
		return 0;
	d->claimed = 1;
	if ((rc = db_prepare_cached(db, "SELECT coalesce(max(id), 0) FROM availability_push",
	                            &st)) != 0)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW)
		d->last_push = sqlite3_column_int64(st, 0);
	db_release(db, st);
	rc = read_event(raw, len, &d->e);
	free(raw);
	if (rc) {
		snprintf(d->why, sizeof d->why, "%s", err_msg());
		d->outcome = "failed";
		return mark_event(db, d->ev_id, INBOX_DEAD, d->why);
	}
	if (!strcmp(d->e.type, "booking.requested"))
		rc = decide_request(db, d);
	else if (!strcmp(d->e.type, "booking.changed"))
		rc = decide_change(db, d);
	else
		rc = decide_cancel(db, d);
	if (rc)
		return rc;
	if (!strcmp(d->outcome, "failed"))
		return mark_event(db, d->ev_id, INBOX_FAILED, d->why);
	if ((rc = mark_event(db, d->ev_id,
	                     strcmp(d->outcome, "ignored") ? INBOX_PROCESSED : INBOX_IGNORED,
	                     *d->why ? d->why : NULL)) != 0)
		return rc;
	/* the pushes the decision made (booking.c and visit.c wrote them) */
	if ((rc = db_prepare_cached(db, "SELECT count(*) FROM availability_push WHERE id > ?1",
	                            &st)) != 0)
		return rc;
	sqlite3_bind_int64(st, 1, d->last_push);
	if (sqlite3_step(st) == SQLITE_ROW)
		d->pushes = sqlite3_column_int64(st, 0);
	db_release(db, st);
	return 0;
}

int booking_chan_process(struct db *db, const char *code, int all, struct bchan_round *r)
{
	sqlite3_stmt *st;
	int64_t *ids = NULL;
	char(*codes)[41] = NULL;
	size_t n = 0, i;
	int rc, step;

	memset(r, 0, sizeof *r);
	if ((rc = db_prepare_cached(db,
	                            "SELECT id, source_system FROM inbound_callback"
	                            " WHERE integration_type = 'booking' AND (status = 'received'"
	                            " OR (status = 'failed' AND (?1 OR next_attempt_at <= ?2)))"
	                            " AND (?3 IS NULL OR source_system = ?3) ORDER BY id",
	                            &st)) != 0)
		return rc;
	sqlite3_bind_int(st, 1, all != 0);
	sqlite3_bind_int64(st, 2, clock_real());
	bind_opt(st, 3, code);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		ids = xrealloc(ids, (n + 1) * sizeof *ids);
		codes = xrealloc(codes, (n + 1) * sizeof *codes);
		ids[n] = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, codes[n], sizeof codes[n]);
		n++;
	}
	db_release(db, st);
	rc = step == SQLITE_DONE ? 0 : db_fail(db, _("cannot read the booking requests due"));
	for (i = 0; !rc && i < n; i++) {
		struct decide_ctx d;

		memset(&d, 0, sizeof d);
		d.ev_id = ids[i];
		d.code = codes[i];
		d.outcome = "ignored";
		/* the capacity rule decides, not a person: the booking, customer
		 * and visit changes it makes act for the shop (control.h) */
		control_acting_enter();
		rc = db_write(db, decide_tx, &d);
		control_acting_leave();
		if (rc != 0)
			break;
		if (!d.claimed)
			continue;
		if (!strcmp(d.outcome, "confirmed"))
			r->confirmed++;
		else if (!strcmp(d.outcome, "rejected"))
			r->rejected++;
		else if (!strcmp(d.outcome, "cancelled"))
			r->cancelled++;
		else if (!strcmp(d.outcome, "changed"))
			r->changed++;
		else if (!strcmp(d.outcome, "failed"))
			r->failed++;
		else
			r->ignored++;
		r->pushes += d.pushes;
	}
	free(ids);
	free(codes);
	return rc;
}

/* ---------------------------------------------------------------- reading back */

#define REQ_COLS                                                                                   \
	"id, provider_code, request_id, coalesce(start_at, 0), coalesce(end_at, 0), service,"      \
	" resource, customer_name, customer_phone, customer_email, coalesce(appointment_id, 0),"   \
	" status, reason, created_at, updated_at"

static void fill(sqlite3_stmt *st, struct booking_request *b)
{
	memset(b, 0, sizeof *b);
	b->id = sqlite3_column_int64(st, 0);
	dbrow_copy(st, 1, b->provider, sizeof b->provider);
	dbrow_copy(st, 2, b->request_id, sizeof b->request_id);
	b->start_at = sqlite3_column_int64(st, 3);
	b->end_at = sqlite3_column_int64(st, 4);
	b->service = dbrow_dup(st, 5);
	b->resource = dbrow_dup(st, 6);
	b->customer_name = dbrow_dup(st, 7);
	b->customer_phone = dbrow_dup(st, 8);
	b->customer_email = dbrow_dup(st, 9);
	b->appt_id = sqlite3_column_int64(st, 10);
	dbrow_copy(st, 11, b->status, sizeof b->status);
	b->reason = dbrow_dup(st, 12);
	b->created_at = sqlite3_column_int64(st, 13);
	b->updated_at = sqlite3_column_int64(st, 14);
}

void booking_chan_free(struct booking_request *b)
{
	free(b->service);
	free(b->resource);
	free(b->customer_name);
	free(b->customer_phone);
	free(b->customer_email);
	free(b->reason);
	memset(b, 0, sizeof *b);
}

int booking_chan_list(struct db *db, const char *status,
                      int (*cb)(const struct booking_request *b, void *arg), void *arg)
{
	sqlite3_stmt *st;
	struct booking_request b;
	int rc, step;

	if ((rc = db_prepare_cached(db,
	                            "SELECT " REQ_COLS " FROM booking_request"
	                            " WHERE ?1 IS NULL OR status = ?1 ORDER BY id DESC",
	                            &st)) != 0)
		return rc;
	bind_opt(st, 1, status);
	rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		fill(st, &b);
		rc = cb(&b, arg);
		booking_chan_free(&b);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the booking requests"));
	db_release(db, st);
	return rc;
}

int booking_chan_find(struct db *db, const char *provider, const char *text,
                      struct booking_request *out)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare_cached(db,
	                            "SELECT " REQ_COLS " FROM booking_request"
	                            " WHERE (?1 IS NULL OR provider_code = ?1) AND (request_id = ?2"
	                            " OR CAST(id AS TEXT) = ?2) ORDER BY request_id = ?2 DESC, id"
	                            " LIMIT 1",
	                            &st)) != 0)
		return rc;
	bind_opt(st, 1, provider);
	sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		fill(st, out);
	db_release(db, st);
	if (step == SQLITE_ROW)
		return 0;
	if (step != SQLITE_DONE)
		return db_fail(db, _("cannot read the booking request"));
	return err_set(FD_ENOTFOUND, _("no booking request '%s'"), text);
}

/* ---------------------------------------------------------------- delivery */

/* The generic REST channel (README "Online booking channels"): a push is
 * POST /v1/availability, an answer POST /v1/bookings/answer, each a JSON
 * body with its Idempotency-Key; any 2xx is delivered (a push the channel
 * ignores as older than one it has seen answers 200 with "ignored"). */

struct bcmd {
	int64_t id, retries;
	char type[61], key[256];
	char status[12];
	char *payload;
};

struct bmark {
	const struct control_hold *lease;
	int64_t id;
	enum outbox_state state; /* sending, succeeded, failed, dead */
	const char *error;
	int64_t retry_in;
};

/* Claim command m->id (sending) or record its outcome, fenced. */
static int bmark_tx(struct db *db, void *arg)
{
	struct bmark *m = arg;
	int rc;

	if (m->lease && (rc = control_fence(db, m->lease)) != 0)
		return rc;
	if (m->state == OUTBOX_SENDING)
		return outbox_claim(db, m->id, 0, NULL);
	return outbox_record(db, m->id, m->state, m->error, m->retry_in, 0, NULL);
}

struct bdue {
	struct bcmd *v;
	size_t n;
};

static int bdue_cb(const struct outbox_due_cmd *c, void *arg)
{
	struct bdue *d = arg;
	struct bcmd *b;

	d->v = xrealloc(d->v, (d->n + 1) * sizeof *d->v);
	b = &d->v[d->n++];
	b->id = c->id;
	snprintf(b->type, sizeof b->type, "%s", c->event_type);
	snprintf(b->key, sizeof b->key, "%s", c->idem_key);
	snprintf(b->status, sizeof b->status, "%s", c->status);
	b->payload = c->payload ? xstrdup(c->payload) : NULL;
	b->retries = c->retries;
	return 0;
}

int booking_chan_deliver(struct db *db, const char *code, const struct control_hold *lease,
                         volatile sig_atomic_t *stop, int *sent)
{
	struct pipe_provider p;
	struct pipe_http h;
	struct pipe_log *log = NULL;
	struct bdue due = {NULL, 0};
	struct bcmd *cmds;
	size_t n, i;
	char *logpath;
	int rc;

	*sent = 0;
	if ((rc = pipe_provider_get_type(db, BOOKING_CHAN_TYPE, code, &p)) != 0)
		return rc;
	rc = outbox_due(db, BOOKING_CHAN_TYPE, p.code, bdue_cb, &due);
	cmds = due.v;
	n = due.n;
	logpath = pipe_log_default_path(db_path(db));
	if (!rc && n && logpath && pipe_log_open(logpath, &log) != 0)
		log = NULL;
	free(logpath);
	pipe_http_setup(&h, p.code, p.base_url, 0, 0, 0, log, stop);
	h.content_type = "application/json";
	for (i = 0; !rc && i < n && !(stop && *stop); i++) {
		struct pipe_http_resp resp = {0};
		struct chan_status cs;
		struct bmark m = {lease, cmds[i].id, OUTBOX_SENDING, NULL, 0};
		int push = !strcmp(cmds[i].type, "availability.push");
		int code_;

		/* sending before the call: a worker that dies during it leaves
		 * the row sending, sent again (same key) by the next round */
		if (outbox_state_of(cmds[i].status) != OUTBOX_SENDING &&
		    (rc = db_write(db, bmark_tx, &m)) != 0)
			break;
		m.state = OUTBOX_SUCCEEDED;
		code_ = pipe_http_call(&h, cmds[i].type, "POST",
		                       push ? "/v1/availability" : "/v1/bookings/answer", NULL,
		                       cmds[i].payload, cmds[i].key, &resp, &cs);

		if (code_ == CHAN_OK) {
			(*sent)++;
		} else if (code_ == CHAN_REFUSED) {
			m.state = OUTBOX_DEAD;
			m.error = cs.reason;
		} else {
			/* the pipeline's rule (outbox.h): on the backoff until
			 * the give-up horizon, never on a count of tries */
			int64_t since = 0;

			if ((rc = pipe_rule_since(db, "outbox_event", cmds[i].id, "pending",
			                          &since)) != 0) {
				pipe_http_resp_free(&resp);
				break;
			}
			m.state = pipe_rule_retry_plan(since, clock_now(), cmds[i].retries + 1,
			                               cs.retry_after, code_, &m.retry_in)
			              ? OUTBOX_DEAD
			              : OUTBOX_FAILED;
			m.error = cs.reason;
		}
		pipe_http_resp_free(&resp);
		rc = db_write(db, bmark_tx, &m);
	}
	for (i = 0; i < n; i++)
		free(cmds[i].payload);
	free(cmds);
	pipe_http_release(&h);
	pipe_log_close(log);
	pipe_provider_free(&p);
	return rc;
}

int booking_chan_conn_open(struct db *db, const char *code, struct pipe_conn *c)
{
	char *logpath;
	int rc;

	memset(c, 0, sizeof *c);
	if ((rc = pipe_provider_get_type(db, BOOKING_CHAN_TYPE, code, &c->p)) != 0)
		return rc;
	logpath = pipe_log_default_path(db_path(db));
	rc = logpath ? pipe_log_open(logpath, &c->log)
	             : err_set(FD_EIO, _("cannot name the request log"));
	free(logpath);
	if (rc)
		pipe_conn_close(c);
	return rc;
}

/* ---------------------------------------------------------------- retention */

#define CUSTOMER_REQUESTS                                                                          \
	"SELECT r.id FROM booking_request r JOIN appointment_work w"                               \
	" ON w.appointment_id = r.appointment_id JOIN service_order s ON s.id = "                  \
	"w.service_order_id"                                                                       \
	" WHERE s.customer_id = ?1"

/* A booking request names the person who booked: name, phone, email. */
int booking_chan_retention_purge(struct db *db, struct retention_purge_ctx *c)
{
	static const struct retention_stmt v[] = {
	    {"UPDATE booking_request SET customer_name = NULL, customer_phone = NULL,"
	     " customer_email = NULL, reason = NULL WHERE id IN (" CUSTOMER_REQUESTS ")",
	     N_("cannot clear the booking requests")},
	    {"UPDATE status_flow SET reason = NULL WHERE entity = 'booking_request'"
	     " AND reason IS NOT NULL AND entity_id IN (" CUSTOMER_REQUESTS ")",
	     N_("cannot clear the booking requests' status reasons")},
	};
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare(
	    db, "SELECT request_id FROM booking_request WHERE id IN (" CUSTOMER_REQUESTS ")", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, c->customer_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		c->needle(c, (const char *)sqlite3_column_text(st, 0));
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list the customer's booking requests"));
	sqlite3_finalize(st);
	return rc ? rc : retention_exec_all(db, v, sizeof v / sizeof v[0], c->customer_id);
}
