/*
 * recon.c - daily reconciliation against a payment channel's settlement
 * data (see recon.h for the rules): the matching of a day's card payments
 * and refunds to the channel's lines, the differences it records, the
 * decisions on them, parked events claimed, and the state of the books.
 *
 * Matching reads the day's local items with one indexed range query each
 * (payments by payment_by_received, refunds by refund_by_refunded, joined
 * to their order by pay_order_by_payment) and keeps them in hash tables by
 * channel order id, our order number and channel refund id; a line whose
 * object is not among them (it was recorded later than the tolerance) is
 * looked up by the channel's ids through their unique indexes. So the
 * time of a run grows with the lines of the day, not with the history.
 *
 * Callers: cli-recon.c, the screen, tests, bench.
 */
#include <config.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chan-order.h"
#include "chan-provider.h"
#include "clock.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "idem.h"
#include "inbox.h"
#include "invoice.h"
#include "money.h"
#include "payment.h"
#include "recon.h"
#include "settings.h"
#include "settle-file.h"
#include "xalloc.h"

/* How long the day's lock lasts without renewal: a run renews it between
 * its steps, so this only bounds how long a crashed run keeps others out
 * (a run of a dead process of this host is taken over at once). */
#define RECON_LOCK_TTL 900

int recon_tolerance(void)
{
	const char *v = config_get("recon_tolerance_seconds", NULL);
	char *end;
	long t;

	if (!v || !*v)
		return RECON_TOLERANCE_DEFAULT;
	t = strtol(v, &end, 10);
	if (*end || t < 0 || t > 86400)
		return RECON_TOLERANCE_DEFAULT;
	return (int)t;
}

int recon_day_window(const char *day, int64_t *from, int64_t *to)
{
	char back[16];
	int i, rc;

	for (i = 0; day && i < 10; i++)
		if (i == 4 || i == 7 ? day[i] != '-' : (day[i] < '0' || day[i] > '9'))
			break;
	if (!day || i < 10 || day[10])
		return err_set(FD_EINVAL, _("bad date '%s': give the business day as YYYY-MM-DD"),
		               day ? day : "");
	if ((rc = clock_parse_local(day, from)) != 0)
		return err_set(FD_EINVAL, _("bad date '%s': give the business day as YYYY-MM-DD"),
		               day);
	clock_format_local(*from, "%Y-%m-%d", back, sizeof back);
	if (strcmp(back, day))
		return err_set(FD_EINVAL, _("bad date '%s': there is no such day"), day);
	*to = clock_add_days(*from, 1);
	return 0;
}

static int lock_name(const char *provider, const char *day, char name[65])
{
	if (!provider || inbox_source_valid(provider) != 0)
		return err_set(FD_EINVAL, _("bad provider code '%s'"), provider ? provider : "");
	snprintf(name, 65, "recon.%s.%s", provider, day);
	return 0;
}

static const char *settle_kind_name(enum chan_settle_kind k)
{
	switch (k) {
	case CHAN_SETTLE_CHARGE:
		return "charge";
	case CHAN_SETTLE_REFUND:
		return "refund";
	case CHAN_SETTLE_FEE:
		return "fee";
	case CHAN_SETTLE_PAYOUT:
		return "payout";
	case CHAN_SETTLE_ADJUSTMENT:
		return "adjustment";
	default:
		return "other";
	}
}

static enum chan_settle_kind settle_kind_of(const char *s)
{
	static const enum chan_settle_kind all[] = {CHAN_SETTLE_CHARGE, CHAN_SETTLE_REFUND,
	                                            CHAN_SETTLE_FEE, CHAN_SETTLE_PAYOUT,
	                                            CHAN_SETTLE_ADJUSTMENT};
	size_t i;

	for (i = 0; s && i < sizeof all / sizeof all[0]; i++)
		if (!strcmp(s, settle_kind_name(all[i])))
			return all[i];
	return CHAN_SETTLE_OTHER;
}

/* A line as the JSON kept with a difference (caller frees). */
static char *line_json(const struct chan_settle_line *l)
{
	cJSON *o = cJSON_CreateObject();
	char *s;

	cJSON_AddStringToObject(o, "id", l->id);
	cJSON_AddStringToObject(o, "type", l->type);
	cJSON_AddStringToObject(o, "kind", settle_kind_name(l->kind));
	cJSON_AddStringToObject(o, "status", l->status);
	cJSON_AddStringToObject(o, "source", l->source);
	cJSON_AddStringToObject(o, "order_id", l->order_id);
	cJSON_AddStringToObject(o, "order_no", l->order_no);
	cJSON_AddStringToObject(o, "refund_id", l->refund_id);
	cJSON_AddStringToObject(o, "payout_id", l->payout_id);
	chan_json_add_int(o, "amount", l->amount);
	chan_json_add_int(o, "fee", l->fee);
	chan_json_add_int(o, "net", l->net);
	cJSON_AddStringToObject(o, "currency", l->currency);
	chan_json_add_int(o, "created", l->created);
	chan_json_add_int(o, "available_on", l->available_on);
	chan_json_add_int(o, "line_no", l->line_no);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s ? s : xstrdup("{}");
}

/* Read back what line_json wrote. */
static int line_parse(const char *json, struct chan_settle_line *l)
{
	cJSON *o = json ? cJSON_Parse(json) : NULL;
	const cJSON *v;
	int rc = 0;

	memset(l, 0, sizeof *l);
	if (!o)
		return err_set(FD_EINVAL, _("this difference keeps no channel line"));
	if (chan_json_str(cJSON_GetObjectItem(o, "id"), "id", 0, l->id, sizeof l->id) ||
	    chan_json_str(cJSON_GetObjectItem(o, "type"), "type", 1, l->type, sizeof l->type) ||
	    chan_json_str(cJSON_GetObjectItem(o, "status"), "status", 1, l->status,
	                  sizeof l->status) ||
	    chan_json_str(cJSON_GetObjectItem(o, "source"), "source", 1, l->source,
	                  sizeof l->source) ||
	    chan_json_str(cJSON_GetObjectItem(o, "order_id"), "order_id", 1, l->order_id,
	                  sizeof l->order_id) ||
	    chan_json_str(cJSON_GetObjectItem(o, "order_no"), "order_no", 1, l->order_no,
	                  sizeof l->order_no) ||
	    chan_json_str(cJSON_GetObjectItem(o, "refund_id"), "refund_id", 1, l->refund_id,
	                  sizeof l->refund_id) ||
	    chan_json_str(cJSON_GetObjectItem(o, "currency"), "currency", 0, l->currency,
	                  sizeof l->currency) ||
	    chan_json_int(cJSON_GetObjectItem(o, "amount"), "amount", &l->amount) ||
	    chan_json_int(cJSON_GetObjectItem(o, "fee"), "fee", &l->fee) ||
	    chan_json_int(cJSON_GetObjectItem(o, "net"), "net", &l->net) ||
	    chan_json_int(cJSON_GetObjectItem(o, "created"), "created", &l->created))
		rc = FD_EINVAL;
	v = cJSON_GetObjectItem(o, "kind");
	l->kind = settle_kind_of(cJSON_IsString(v) ? v->valuestring : NULL);
	cJSON_Delete(o);
	return rc;
}

/* ------------------------------------------------------------ hash index */

/* An open-addressing index from a string key to an item number. */
struct sidx {
	int *slot; /* item + 1, 0 when empty */
	char **key;
	size_t cap;
};

static uint64_t fnv(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static void sidx_init(struct sidx *x, size_t n)
{
	x->cap = 16;
	while (x->cap < 2 * n + 2)
		x->cap *= 2;
	x->slot = xcalloc(x->cap, sizeof *x->slot);
	x->key = xcalloc(x->cap, sizeof *x->key);
}

static void sidx_free(struct sidx *x)
{
	free(x->slot);
	free(x->key);
	memset(x, 0, sizeof *x);
}

/* Add key (kept by pointer: it must outlive x) -> item; the first wins. */
static void sidx_put(struct sidx *x, char *key, int item)
{
	size_t i;

	if (!*key)
		return;
	for (i = fnv(key) & (x->cap - 1); x->slot[i]; i = (i + 1) & (x->cap - 1))
		if (!strcmp(x->key[i], key))
			return;
	x->slot[i] = item + 1;
	x->key[i] = key;
}

/* The item of key, -1 when none. */
static int sidx_get(const struct sidx *x, const char *key)
{
	size_t i;

	if (!*key)
		return -1;
	for (i = fnv(key) & (x->cap - 1); x->slot[i]; i = (i + 1) & (x->cap - 1))
		if (!strcmp(x->key[i], key))
			return x->slot[i] - 1;
	return -1;
}

/* ------------------------------------------------------------ the run */

/* One of our card payments or refunds. */
struct litem {
	int refund;         /* 0 payment, 1 refund */
	int64_t id;         /* the payment's or refund's id */
	int64_t payment_id; /* the payment (a refund's payment) */
	int64_t amount;     /* > 0 */
	char currency[4];
	char status[24];
	int64_t at;
	char key[256];     /* payment: the channel's order id; refund: its channel refund id */
	char order_no[65]; /* payment: our order number, "" when none */
	int in_day, seen;
};

/* A payout line and what its lines add up to. */
struct payout_sum {
	const struct chan_settle_line *line;
	int64_t lines, sum;
};

/* A difference to write. */
struct ndiff {
	const char *kind;
	char key[300];
	int64_t payment_id, refund_id;
	const struct chan_settle_line *line;
	int has_local;
	int64_t local_amount;
	char local_currency[4];
	char detail[600];
};

struct run {
	struct db *db;
	const char *provider, *day;
	int64_t from, to; /* the day */
	int tol;
	const struct chan_settle_line *lines;
	size_t n;
	const struct recon_source *src;
	int64_t batch;
	struct litem *it;
	size_t nit, capit;
	struct sidx by_order, by_no, by_refund;
	struct ndiff *d;
	size_t nd, capd;
	/* fees of matched lines: line index and local item */
	size_t *fee_line;
	int *fee_item;
	size_t nfee, capfee;
	struct recon_result *res;
	struct control_hold *hold;
	/* the day's payouts and the lines they carry */
	struct payout_sum *po;
	size_t npo;
};

static struct litem *item_new(struct run *r)
{
	if (r->nit == r->capit) {
		r->capit = r->capit ? 2 * r->capit : 256;
		r->it = xrealloc(r->it, r->capit * sizeof *r->it);
	}
	memset(&r->it[r->nit], 0, sizeof r->it[0]);
	return &r->it[r->nit++];
}

static struct ndiff *diff_new(struct run *r, const char *kind)
{
	struct ndiff *d;

	if (r->nd == r->capd) {
		r->capd = r->capd ? 2 * r->capd : 32;
		r->d = xrealloc(r->d, r->capd * sizeof *r->d);
	}
	d = &r->d[r->nd++];
	memset(d, 0, sizeof *d);
	d->kind = kind;
	return d;
}

static void fee_add(struct run *r, size_t line, int item)
{
	if (r->nfee == r->capfee) {
		r->capfee = r->capfee ? 2 * r->capfee : 256;
		r->fee_line = xrealloc(r->fee_line, r->capfee * sizeof *r->fee_line);
		r->fee_item = xrealloc(r->fee_item, r->capfee * sizeof *r->fee_item);
	}
	r->fee_line[r->nfee] = line;
	r->fee_item[r->nfee++] = item;
}

/* Read our card payments and refunds of provider received in [from, to)
 * into r->it: the matching query (one indexed range read each). */
static int read_local(struct run *r, int64_t from, int64_t to)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare_cached(
	    r->db,
	    "SELECT p.id, p.amount, p.currency, p.status, p.received_at,"
	    " coalesce(po.channel_order_id, rp.channel_ref, p.reference, ''),"
	    " coalesce(po.order_no, '')"
	    " FROM payment p LEFT JOIN pay_order po ON po.payment_id = p.id"
	    " LEFT JOIN reconciliation_payment rp ON rp.payment_id = p.id"
	    " WHERE p.received_at >= ?1 AND p.received_at < ?2 AND p.method = 'card'"
	    " AND (po.provider_code = ?3 OR rp.provider_code = ?3)",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	sqlite3_bind_text(st, 3, r->provider, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct litem *it = item_new(r);

		it->id = it->payment_id = sqlite3_column_int64(st, 0);
		it->amount = sqlite3_column_int64(st, 1);
		dbrow_copy(st, 2, it->currency, sizeof it->currency);
		dbrow_copy(st, 3, it->status, sizeof it->status);
		it->at = sqlite3_column_int64(st, 4);
		dbrow_copy(st, 5, it->key, sizeof it->key);
		dbrow_copy(st, 6, it->order_no, sizeof it->order_no);
	}
	db_release(r->db, st);
	if (step != SQLITE_DONE)
		return db_fail(r->db, _("reading the day's card payments"));
	rc = db_prepare_cached(
	    r->db,
	    "SELECT f.id, f.payment_id, f.amount, p.currency, f.status, f.refunded_at,"
	    " coalesce(f.reference, '')"
	    " FROM refund f JOIN payment p ON p.id = f.payment_id"
	    " LEFT JOIN pay_order po ON po.payment_id = p.id"
	    " LEFT JOIN reconciliation_payment rp ON rp.payment_id = p.id"
	    " WHERE f.refunded_at >= ?1 AND f.refunded_at < ?2 AND f.method = 'card'"
	    " AND (po.provider_code = ?3 OR rp.provider_code = ?3)",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	sqlite3_bind_text(st, 3, r->provider, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct litem *it = item_new(r);

		it->refund = 1;
		it->id = sqlite3_column_int64(st, 0);
		it->payment_id = sqlite3_column_int64(st, 1);
		it->amount = sqlite3_column_int64(st, 2);
		dbrow_copy(st, 3, it->currency, sizeof it->currency);
		dbrow_copy(st, 4, it->status, sizeof it->status);
		it->at = sqlite3_column_int64(st, 5);
		dbrow_copy(st, 6, it->key, sizeof it->key);
	}
	db_release(r->db, st);
	if (step != SQLITE_DONE)
		return db_fail(r->db, _("reading the day's card refunds"));
	return 0;
}

/* The local payment of a charge line that is not among the day's items
 * (recorded later than the tolerance): by the channel's order id, our order
 * number, or a payment recorded from the channel's data. Adds it to r->it;
 * the item, or -1. */
static int lookup_payment(struct run *r, const char *order_id, const char *order_no)
{
	sqlite3_stmt *st;
	int rc, item = -1;

	if (!*order_id && !*order_no)
		return -1;
	rc = db_prepare_cached(
	    r->db,
	    "SELECT p.id, p.amount, p.currency, p.status, p.received_at FROM payment p"
	    " WHERE p.id = coalesce("
	    "  (SELECT payment_id FROM pay_order WHERE provider_code = ?1"
	    "   AND channel_order_id = ?2 AND ?2 <> ''),"
	    "  (SELECT payment_id FROM pay_order WHERE order_no = ?3 AND provider_code = ?1"
	    "   AND ?3 <> ''),"
	    "  (SELECT payment_id FROM reconciliation_payment WHERE provider_code = ?1"
	    "   AND channel_ref = ?2 AND ?2 <> ''))",
	    &st);
	if (rc)
		return -1;
	sqlite3_bind_text(st, 1, r->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, order_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, order_no, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		size_t i;

		for (i = 0; i < r->nit; i++)
			if (!r->it[i].refund && r->it[i].id == id)
				break;
		if (i < r->nit) {
			item = (int)i;
		} else {
			struct litem *it = item_new(r);

			it->id = it->payment_id = id;
			it->amount = sqlite3_column_int64(st, 1);
			dbrow_copy(st, 2, it->currency, sizeof it->currency);
			dbrow_copy(st, 3, it->status, sizeof it->status);
			it->at = sqlite3_column_int64(st, 4);
			snprintf(it->key, sizeof it->key, "%s", order_id);
			item = (int)(r->nit - 1);
		}
	}
	db_release(r->db, st);
	return item;
}

/* The local refund with channel refund id refund_id of payment_id, not
 * among the day's items: added to r->it; the item, or -1. */
static int lookup_refund(struct run *r, int64_t payment_id, const char *refund_id)
{
	sqlite3_stmt *st;
	int item = -1;

	if (!*refund_id ||
	    db_prepare_cached(r->db,
	                      "SELECT f.id, f.amount, p.currency, f.status, f.refunded_at"
	                      " FROM refund f JOIN payment p ON p.id = f.payment_id"
	                      " WHERE f.payment_id = ?1 AND f.reference = ?2",
	                      &st))
		return -1;
	sqlite3_bind_int64(st, 1, payment_id);
	sqlite3_bind_text(st, 2, refund_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		struct litem *it = item_new(r);

		it->refund = 1;
		it->id = sqlite3_column_int64(st, 0);
		it->payment_id = payment_id;
		it->amount = sqlite3_column_int64(st, 1);
		dbrow_copy(st, 2, it->currency, sizeof it->currency);
		dbrow_copy(st, 3, it->status, sizeof it->status);
		it->at = sqlite3_column_int64(st, 4);
		snprintf(it->key, sizeof it->key, "%s", refund_id);
		item = (int)(r->nit - 1);
	}
	db_release(r->db, st);
	return item;
}

/* The payment item of a line's order: the day's items first, then the
 * database. -1 when we have none. */
static int payment_of_line(struct run *r, const struct chan_settle_line *l)
{
	int i = sidx_get(&r->by_order, l->order_id);

	if (i < 0)
		i = sidx_get(&r->by_no, l->order_no);
	if (i < 0)
		i = lookup_payment(r, l->order_id, l->order_no);
	return i;
}

static void amount_text(int64_t v, const char *cur, char buf[MONEY_BUFSZ])
{
	money_text(v, cur, 0, buf);
}

/* Compare line l with its local item it: a difference or a match. */
static void compare(struct run *r, size_t li, int ii)
{
	const struct chan_settle_line *l = &r->lines[li];
	struct litem *it = &r->it[ii];
	int64_t chan = it->refund ? -l->amount : l->amount;
	char a[MONEY_BUFSZ], b[MONEY_BUFSZ];
	struct ndiff *d = NULL;

	if (!it->refund && !strcmp(it->status, "void")) {
		d = diff_new(r, "status_mismatch");
		snprintf(d->detail, sizeof d->detail,
		         _("the channel charged (line %1$s), but our payment %2$lld is void"),
		         l->id, (long long)it->id);
	} else if (it->refund && strcmp(it->status, "succeeded")) {
		d = diff_new(r, "status_mismatch");
		snprintf(d->detail, sizeof d->detail,
		         _("the channel refunded (line %1$s), but our refund %2$lld is %3$s"),
		         l->id, (long long)it->id, it->status);
	} else if (strcasecmp(l->currency, it->currency)) {
		d = diff_new(r, "currency_mismatch");
		snprintf(d->detail, sizeof d->detail,
		         _("the channel's line %1$s is in %2$s, our %3$s %4$lld in %5$s"), l->id,
		         l->currency, it->refund ? _("refund") : _("payment"), (long long)it->id,
		         it->currency);
	} else if (chan != it->amount) {
		d = diff_new(r, "amount_mismatch");
		amount_text(chan, l->currency, a);
		amount_text(it->amount, it->currency, b);
		snprintf(
		    d->detail, sizeof d->detail,
		    _("the channel's line %1$s is for %2$s %3$s, our %4$s %5$lld for %6$s %7$s"),
		    l->id, a, l->currency, it->refund ? _("refund") : _("payment"),
		    (long long)it->id, b, it->currency);
	}
	if (!d) {
		r->res->matched++;
		fee_add(r, li, ii);
		return;
	}
	snprintf(d->key, sizeof d->key, "%s:%lld", it->refund ? "refund" : "payment",
	         (long long)it->id);
	d->payment_id = it->payment_id;
	d->refund_id = it->refund ? it->id : 0;
	d->line = l;
	d->has_local = 1;
	d->local_amount = it->amount;
	snprintf(d->local_currency, sizeof d->local_currency, "%s", it->currency);
}

/* Whether our item was matched to a line by another batch (its line was
 * of another day), is a correcting entry a decision posted, or its line is
 * a channel_only difference of another day. */
static int matched_before(struct run *r, const struct litem *it)
{
	sqlite3_stmt *st;
	int found = 0;

	if (db_prepare_cached(r->db,
	                      "SELECT 1 FROM reconciliation_fee WHERE payment_id = ?1"
	                      " AND provider_code = ?3 AND refund_id IS ?2",
	                      &st))
		return 0;
	sqlite3_bind_int64(st, 1, it->payment_id);
	if (it->refund)
		sqlite3_bind_int64(st, 2, it->id);
	sqlite3_bind_text(st, 3, r->provider, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	db_release(r->db, st);
	if (found)
		return 1;
	/* a correcting entry of a decision: no line of its own */
	if (db_prepare_cached(r->db,
	                      "SELECT 1 FROM reconciliation_resolution"
	                      " WHERE action = 'correcting_entry' AND ((?2 = 1 AND refund_id = ?1)"
	                      " OR (?2 = 0 AND refund_id IS NULL AND payment_id = ?1))",
	                      &st))
		return 0;
	sqlite3_bind_int64(st, 1, it->id);
	sqlite3_bind_int(st, 2, it->refund);
	found = sqlite3_step(st) == SQLITE_ROW;
	db_release(r->db, st);
	if (found || it->refund || !*it->key)
		return found;
	/* a payment recorded long after its line: the line's day already has
	 * it as channel_only, which that day's next run closes as gone */
	if (db_prepare_cached(r->db,
	                      "SELECT 1 FROM reconciliation_diff WHERE provider_code = ?1"
	                      " AND kind = 'channel_only' AND business_day <> ?3"
	                      " AND json_extract(line_data, '$.order_id') = ?2",
	                      &st))
		return 0;
	sqlite3_bind_text(st, 1, r->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, it->key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, r->day, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	db_release(r->db, st);
	return found;
}

static int match(struct run *r)
{
	size_t i;
	int rc;

	if ((rc = read_local(r, r->from - r->tol, r->to + r->tol)) != 0)
		return rc;
	sidx_init(&r->by_order, r->nit + r->n);
	sidx_init(&r->by_no, r->nit + r->n);
	sidx_init(&r->by_refund, r->nit + r->n);
	for (i = 0; i < r->nit; i++) {
		struct litem *it = &r->it[i];

		it->in_day = it->at >= r->from && it->at < r->to;
		if (it->refund) {
			sidx_put(&r->by_refund, it->key, (int)i);
		} else {
			sidx_put(&r->by_order, it->key, (int)i);
			sidx_put(&r->by_no, it->order_no, (int)i);
		}
	}
	for (i = 0; i < r->n; i++) {
		const struct chan_settle_line *l = &r->lines[i];
		int in_day = l->created >= r->from && l->created < r->to;
		int ii, pi;

		if (in_day)
			r->res->lines++;
		if (l->kind == CHAN_SETTLE_CHARGE) {
			ii = payment_of_line(r, l);
			if (ii >= 0) {
				r->it[ii].seen = 1;
				if (in_day || r->it[ii].in_day)
					compare(r, i, ii);
			} else if (in_day) {
				struct ndiff *d = diff_new(r, "channel_only");
				char a[MONEY_BUFSZ];

				snprintf(d->key, sizeof d->key, "line:%s", l->id);
				d->line = l;
				amount_text(l->amount, l->currency, a);
				snprintf(d->detail, sizeof d->detail,
				         _("the channel received %1$s %2$s (line %3$s, order %4$s) "
				           "that we "
				           "never recorded"),
				         a, l->currency, l->id, *l->order_id ? l->order_id : "-");
			}
		} else if (l->kind == CHAN_SETTLE_REFUND) {
			ii = sidx_get(&r->by_refund, l->refund_id);
			pi = -1;
			if (ii < 0) {
				pi = payment_of_line(r, l);
				if (pi >= 0)
					ii = lookup_refund(r, r->it[pi].payment_id, l->refund_id);
			}
			if (ii >= 0) {
				r->it[ii].seen = 1;
				if (in_day || r->it[ii].in_day)
					compare(r, i, ii);
			} else if (in_day) {
				struct ndiff *d;
				char a[MONEY_BUFSZ];

				amount_text(-l->amount, l->currency, a);
				if (pi >= 0) {
					d = diff_new(r, "status_mismatch");
					d->payment_id = r->it[pi].payment_id;
					snprintf(d->detail, sizeof d->detail,
					         _("the channel refunded %1$s %2$s of our payment "
					           "%3$lld "
					           "(refund %4$s), which we think paid"),
					         a, l->currency, (long long)d->payment_id,
					         l->refund_id);
				} else {
					d = diff_new(r, "channel_only");
					snprintf(d->detail, sizeof d->detail,
					         _("the channel refunded %1$s %2$s (refund %3$s) "
					           "of a payment "
					           "we do not know"),
					         a, l->currency, l->refund_id);
				}
				snprintf(d->key, sizeof d->key, "line:%s", l->id);
				d->line = l;
			}
		}
	}
	for (i = 0; i < r->nit; i++) {
		struct litem *it = &r->it[i];
		struct ndiff *d;
		char a[MONEY_BUFSZ];

		if (!it->in_day)
			continue;
		r->res->local++;
		if (it->seen || !strcmp(it->status, "void") ||
		    (it->refund && strcmp(it->status, "succeeded")) || matched_before(r, it))
			continue;
		d = diff_new(r, "local_only");
		snprintf(d->key, sizeof d->key, "%s:%lld", it->refund ? "refund" : "payment",
		         (long long)it->id);
		d->payment_id = it->payment_id;
		d->refund_id = it->refund ? it->id : 0;
		d->has_local = 1;
		d->local_amount = it->amount;
		snprintf(d->local_currency, sizeof d->local_currency, "%s", it->currency);
		amount_text(it->amount, it->currency, a);
		snprintf(d->detail, sizeof d->detail,
		         it->refund
		             ? _("we recorded refund %1$lld of %2$s %3$s, which the channel does "
		                 "not show")
		             : _("we recorded card payment %1$lld of %2$s %3$s, which the channel "
		                 "does not show"),
		         (long long)it->id, a, it->currency);
	}
	return 0;
}

/* ------------------------------------------------------------ writing */

static int resolution_write(struct db *db, int64_t diff_id, const char *action, const char *note,
                            int64_t payment_id, int64_t refund_id, int64_t batch_id)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(db,
	                       "INSERT INTO reconciliation_resolution (diff_id, action, note,"
	                       " payment_id, refund_id, batch_id, operator_id, at)"
	                       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, diff_id);
	sqlite3_bind_text(st, 2, action, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, note, -1, SQLITE_TRANSIENT);
	if (payment_id)
		sqlite3_bind_int64(st, 4, payment_id);
	if (refund_id)
		sqlite3_bind_int64(st, 5, refund_id);
	if (batch_id)
		sqlite3_bind_int64(st, 6, batch_id);
	sqlite3_bind_text(st, 7, db_operator(), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, clock_now());
	if ((rc = db_run_cached(db, st, _("recording the resolution"))) != 0)
		return rc;
	db_set_reason(db, note);
	rc = db_prepare_cached(db,
	                       "UPDATE reconciliation_diff SET state = 'resolved', updated_at = ?2"
	                       " WHERE id = ?1 AND state = 'open'",
	                       &st);
	if (rc)
		goto out;
	sqlite3_bind_int64(st, 1, diff_id);
	sqlite3_bind_int64(st, 2, clock_now());
	rc = db_run_cached(db, st, _("resolving the difference"));
	if (!rc && sqlite3_changes(db_sqlite(db)) != 1)
		rc = err_set(FD_ECONFLICT, _("difference %lld is resolved already"),
		             (long long)diff_id);
out:
	db_set_reason(db, NULL);
	return rc;
}

static int write_diff(struct run *r, const struct ndiff *d)
{
	sqlite3_stmt *st;
	char *json = d->line ? line_json(d->line) : NULL;
	int rc, fresh;
	int64_t now = clock_now();

	rc = db_prepare_cached(r->db,
	                       "SELECT 1 FROM reconciliation_diff WHERE provider_code = ?1"
	                       " AND kind = ?2 AND natural_key = ?3",
	                       &st);
	if (rc)
		goto out;
	sqlite3_bind_text(st, 1, r->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, d->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, d->key, -1, SQLITE_STATIC);
	fresh = sqlite3_step(st) != SQLITE_ROW;
	db_release(r->db, st);
	rc = db_prepare_cached(
	    r->db,
	    "INSERT INTO reconciliation_diff (provider_code, kind, natural_key, business_day,"
	    " first_batch_id, last_seen_batch_id, payment_id, refund_id, line_id, line_data,"
	    " local_amount, local_currency, channel_amount, channel_currency, detail, state,"
	    " created_at, updated_at)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, 'open',"
	    " ?15, ?15)"
	    " ON CONFLICT (provider_code, kind, natural_key) DO UPDATE SET"
	    " last_seen_batch_id = excluded.last_seen_batch_id,"
	    " payment_id = coalesce(excluded.payment_id, payment_id),"
	    " refund_id = coalesce(excluded.refund_id, refund_id),"
	    " line_id = coalesce(excluded.line_id, line_id),"
	    " line_data = coalesce(excluded.line_data, line_data),"
	    " local_amount = excluded.local_amount, local_currency = excluded.local_currency,"
	    " channel_amount = excluded.channel_amount,"
	    " channel_currency = excluded.channel_currency, detail = excluded.detail,"
	    " updated_at = excluded.updated_at",
	    &st);
	if (rc)
		goto out;
	sqlite3_bind_text(st, 1, r->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, d->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, d->key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, r->day, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, r->batch);
	if (d->payment_id)
		sqlite3_bind_int64(st, 6, d->payment_id);
	if (d->refund_id)
		sqlite3_bind_int64(st, 7, d->refund_id);
	if (d->line) {
		sqlite3_bind_text(st, 8, d->line->id, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 9, json, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 12,
		                   d->line->kind == CHAN_SETTLE_REFUND ? -d->line->amount
		                                                       : d->line->amount);
		sqlite3_bind_text(st, 13, d->line->currency, -1, SQLITE_STATIC);
	}
	if (d->has_local) {
		sqlite3_bind_int64(st, 10, d->local_amount);
		sqlite3_bind_text(st, 11, d->local_currency, -1, SQLITE_STATIC);
	}
	sqlite3_bind_text(st, 14, d->detail, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 15, now);
	if ((rc = db_run_cached(r->db, st, _("recording a difference"))) != 0)
		goto out;
	if (fresh)
		r->res->diffs_new++;
	else
		r->res->diffs_seen++;
out:
	free(json);
	return rc;
}

static int write_fee(struct run *r, const struct chan_settle_line *l, const struct litem *it)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(
	    r->db,
	    "INSERT INTO reconciliation_fee (provider_code, line_id, payment_id,"
	    " refund_id, currency, gross, fee, net, batch_id)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
	    " ON CONFLICT (provider_code, line_id) DO UPDATE SET"
	    " payment_id = excluded.payment_id, refund_id = excluded.refund_id,"
	    " currency = excluded.currency, gross = excluded.gross,"
	    " fee = excluded.fee, net = excluded.net, batch_id = excluded.batch_id",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, r->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, l->id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, it->payment_id);
	if (it->refund)
		sqlite3_bind_int64(st, 4, it->id);
	sqlite3_bind_text(st, 5, l->currency, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, l->amount);
	sqlite3_bind_int64(st, 7, l->fee);
	sqlite3_bind_int64(st, 8, l->net);
	sqlite3_bind_int64(st, 9, r->batch);
	return db_run_cached(r->db, st, _("recording a fee"));
}

static int write_payout(struct run *r, const struct payout_sum *p)
{
	const struct chan_settle_line *l = p->line;
	sqlite3_stmt *st;
	char arrival[16] = "";
	int64_t now = clock_now();
	int rc;

	if (l->available_on)
		clock_format_local(l->available_on, "%Y-%m-%d", arrival, sizeof arrival);
	rc =
	    db_prepare_cached(r->db,
	                      "INSERT INTO reconciliation_payout (provider_code, payout_id, amount,"
	                      " currency, lines, lines_sum, matches, arrival_date, batch_id,"
	                      " created_at, updated_at)"
	                      " VALUES (?1, ?2, ?3, upper(?4), ?5, ?6, ?7, ?8, ?9, ?10, ?10)"
	                      " ON CONFLICT (provider_code, payout_id) DO UPDATE SET"
	                      " amount = excluded.amount, currency = excluded.currency,"
	                      " lines = excluded.lines, lines_sum = excluded.lines_sum,"
	                      " matches = excluded.matches, arrival_date = excluded.arrival_date,"
	                      " batch_id = excluded.batch_id, updated_at = excluded.updated_at",
	                      &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, r->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, *l->payout_id ? l->payout_id : l->source, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, -l->amount);
	sqlite3_bind_text(st, 4, l->currency, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, p->lines);
	sqlite3_bind_int64(st, 6, p->sum);
	sqlite3_bind_int(st, 7, p->sum == -l->amount);
	if (*arrival)
		sqlite3_bind_text(st, 8, arrival, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 9, r->batch);
	sqlite3_bind_int64(st, 10, now);
	if ((rc = db_run_cached(r->db, st, _("recording a payout"))) != 0)
		return rc;
	r->res->payouts++;
	if (p->sum != -l->amount)
		r->res->payouts_off++;
	return 0;
}

/* Per-currency totals of the day's lines and our day's items. */
static int write_totals(struct run *r)
{
	struct recon_total t[16];
	size_t nt = 0, i, k;
	sqlite3_stmt *st;
	int rc;

	for (i = 0; i < r->n + r->nit; i++) {
		const char *cur;
		int line = i < r->n;

		if (line) {
			const struct chan_settle_line *l = &r->lines[i];

			if (l->created < r->from || l->created >= r->to)
				continue;
			cur = l->currency;
		} else {
			if (!r->it[i - r->n].in_day)
				continue;
			cur = r->it[i - r->n].currency;
		}
		for (k = 0; k < nt; k++)
			if (!strcasecmp(t[k].currency, cur))
				break;
		if (k == nt) {
			if (nt == sizeof t / sizeof t[0])
				continue; /* more currencies in one day than anyone has */
			memset(&t[nt], 0, sizeof t[nt]);
			snprintf(t[nt].currency, sizeof t[nt].currency, "%s", cur);
			nt++;
		}
		if (line) {
			t[k].lines++;
			t[k].gross += r->lines[i].amount;
			t[k].fee += r->lines[i].fee;
		} else {
			const struct litem *it = &r->it[i - r->n];

			if (strcmp(it->status, "void") &&
			    (!it->refund || !strcmp(it->status, "succeeded")))
				t[k].local += it->refund ? -it->amount : it->amount;
		}
	}
	for (k = 0; k < nt; k++) {
		rc = db_prepare_cached(
		    r->db,
		    "INSERT INTO reconciliation_total (batch_id, currency, lines,"
		    " gross, fee, net, local) VALUES (?1, upper(?2), ?3, ?4, ?5, ?6,"
		    " ?7)",
		    &st);
		if (rc)
			return rc;
		sqlite3_bind_int64(st, 1, r->batch);
		sqlite3_bind_text(st, 2, t[k].currency, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, t[k].lines);
		sqlite3_bind_int64(st, 4, t[k].gross);
		sqlite3_bind_int64(st, 5, t[k].fee);
		sqlite3_bind_int64(st, 6, t[k].gross - t[k].fee);
		sqlite3_bind_int64(st, 7, t[k].local);
		if ((rc = db_run_cached(r->db, st, _("recording the totals"))) != 0)
			return rc;
	}
	return 0;
}

/* Open differences of the day this batch did not find again: gone. */
static int close_gone(struct run *r)
{
	sqlite3_stmt *st;
	int64_t *ids = NULL;
	size_t n = 0, cap = 0, i;
	char note[300];
	int rc, step;

	rc = db_prepare_cached(r->db,
	                       "SELECT id FROM reconciliation_diff WHERE provider_code = ?1"
	                       " AND business_day = ?2 AND state = 'open'"
	                       " AND last_seen_batch_id <> ?3",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, r->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, r->day, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, r->batch);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			ids = xrealloc(ids, cap * sizeof *ids);
		}
		ids[n++] = sqlite3_column_int64(st, 0);
	}
	db_release(r->db, st);
	if (step != SQLITE_DONE) {
		free(ids);
		return db_fail(r->db, _("reading the day's open differences"));
	}
	snprintf(note, sizeof note, _("not found again by reconciliation batch %lld"),
	         (long long)r->batch);
	for (i = 0, rc = 0; i < n && !rc; i++)
		rc = resolution_write(r->db, ids[i], "gone", note, 0, 0, r->batch);
	r->res->diffs_gone = (int64_t)n;
	free(ids);
	return rc;
}

static int count_open(struct db *db, const char *provider, const char *day, int64_t *n)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(db,
	                       "SELECT count(*) FROM reconciliation_diff WHERE business_day = ?2"
	                       " AND state = 'open' AND (?1 IS NULL OR provider_code = ?1)",
	                       &st);
	if (rc)
		return rc;
	if (provider)
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, day, -1, SQLITE_STATIC);
	*n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	db_release(db, st);
	return 0;
}

static int write_tx(struct db *db, void *arg)
{
	struct run *r = arg;
	sqlite3_stmt *st;
	size_t i;
	int rc;

	if (r->hold && (rc = control_fence(db, r->hold)) != 0)
		return rc;
	for (i = 0; i < r->nd; i++)
		if ((rc = write_diff(r, &r->d[i])) != 0)
			return rc;
	for (i = 0; i < r->nfee; i++)
		if ((rc = write_fee(r, &r->lines[r->fee_line[i]], &r->it[r->fee_item[i]])) != 0)
			return rc;
	for (i = 0; i < r->npo; i++)
		if ((rc = write_payout(r, &r->po[i])) != 0)
			return rc;
	if ((rc = write_totals(r)) != 0 || (rc = close_gone(r)) != 0)
		return rc;
	if ((rc = count_open(db, r->provider, r->day, &r->res->open)) != 0)
		return rc;
	rc = db_prepare_cached(db,
	                       "UPDATE reconciliation_batch SET status = 'done', lines = ?2,"
	                       " local_items = ?3, matched = ?4, diffs_new = ?5, diffs_seen = ?6,"
	                       " diffs_gone = ?7, open_diffs = ?8, finished_at = ?9 WHERE id = ?1",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, r->batch);
	sqlite3_bind_int64(st, 2, r->res->lines);
	sqlite3_bind_int64(st, 3, r->res->local);
	sqlite3_bind_int64(st, 4, r->res->matched);
	sqlite3_bind_int64(st, 5, r->res->diffs_new);
	sqlite3_bind_int64(st, 6, r->res->diffs_seen);
	sqlite3_bind_int64(st, 7, r->res->diffs_gone);
	sqlite3_bind_int64(st, 8, r->res->open);
	sqlite3_bind_int64(st, 9, clock_now());
	return db_run_cached(db, st, _("ending the reconciliation batch"));
}

static int batch_begin_tx(struct db *db, void *arg)
{
	struct run *r = arg;
	sqlite3_stmt *st;
	int rc;

	if (r->hold && (rc = control_fence(db, r->hold)) != 0)
		return rc;
	/* we hold the day's lock: a batch of the day still running is one
	 * whose run ended without finishing (killed, a power cut) */
	db_set_reason(db, _("interrupted: the run that made it ended without finishing"));
	rc = db_prepare_cached(db,
	                       "UPDATE reconciliation_batch SET status = 'failed', error = ?3,"
	                       " finished_at = ?4 WHERE provider_code = ?1 AND business_day = ?2"
	                       " AND status = 'running'",
	                       &st);
	if (!rc) {
		sqlite3_bind_text(st, 1, r->provider, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, r->day, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3,
		                  _("interrupted: the run that made it ended without finishing"),
		                  -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, clock_now());
		rc = db_run_cached(db, st, _("closing an interrupted batch"));
	}
	db_set_reason(db, NULL);
	if (rc)
		return rc;
	rc = db_prepare_cached(db,
	                       "INSERT INTO reconciliation_batch (provider_code, business_day,"
	                       " window_from, window_to, source, file_sha256, fetch_from, fetch_to,"
	                       " status, operator_id, started_at)"
	                       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'running', ?9, ?10)",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, r->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, r->day, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, r->from);
	sqlite3_bind_int64(st, 4, r->to);
	sqlite3_bind_text(st, 5, r->src->file ? "file" : "fetch", -1, SQLITE_STATIC);
	if (r->src->file) {
		sqlite3_bind_text(st, 6, r->src->sha256, -1, SQLITE_STATIC);
	} else {
		sqlite3_bind_int64(st, 7, r->src->fetch_from);
		sqlite3_bind_int64(st, 8, r->src->fetch_to);
	}
	sqlite3_bind_text(st, 9, db_operator(), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 10, clock_now());
	if ((rc = db_run_cached(db, st, _("starting the reconciliation batch"))) != 0)
		return rc;
	r->batch = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

struct failed {
	int64_t batch;
	const char *why;
};

static int batch_fail_tx(struct db *db, void *arg)
{
	struct failed *f = arg;
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(db,
	                       "UPDATE reconciliation_batch SET status = 'failed', error = ?2,"
	                       " finished_at = ?3 WHERE id = ?1 AND status = 'running'",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, f->batch);
	sqlite3_bind_text(st, 2, f->why, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, clock_now());
	return db_run_cached(db, st, _("marking the batch failed"));
}

/* Start a running batch of provider's day from src under hold: *batch. */
static int batch_open(struct db *db, const char *provider, const char *day,
                      const struct recon_source *src, struct control_hold *hold, int64_t *batch)
{
	struct run r;
	int rc;

	memset(&r, 0, sizeof r);
	r.db = db;
	r.provider = provider;
	r.day = day;
	r.src = src;
	r.hold = hold;
	if ((rc = recon_day_window(day, &r.from, &r.to)) != 0)
		return rc;
	if ((rc = db_write(db, batch_begin_tx, &r)) != 0)
		return rc;
	*batch = r.batch;
	return 0;
}

/* Mark batch failed with the reason in err_msg(), keeping rc and it. */
static int batch_failed(struct db *db, int64_t batch, int rc)
{
	char why[1001];
	struct failed f = {batch, why};

	snprintf(why, sizeof why, "%s", err_msg());
	db_write(db, batch_fail_tx, &f);
	return err_set(rc, "%s", why);
}

/* The run itself, with the day's lock held (hold), into batch (0: a new
 * one, made once the lines are found acceptable). */
static int run_locked(struct db *db, const char *provider, const char *day,
                      const struct chan_settle_line *lines, size_t n,
                      const struct recon_source *src, struct control_hold *hold,
                      struct payout_sum *po, size_t npo, int64_t batch, struct recon_result *res)
{
	struct run r;
	int rc;
	size_t i;

	memset(res, 0, sizeof *res);
	memset(&r, 0, sizeof r);
	r.db = db;
	r.provider = provider;
	r.day = day;
	r.lines = lines;
	r.n = n;
	r.src = src;
	r.res = res;
	r.hold = hold;
	r.po = po;
	r.npo = npo;
	r.tol = recon_tolerance();
	if ((rc = recon_day_window(day, &r.from, &r.to)) != 0)
		return rc;
	rc = 0;
	if (src->file && (!src->sha256 || strlen(src->sha256) != 64))
		rc = err_set(FD_EINVAL, _("a settlement file's batch needs the file's sha256"));
	for (i = 0; !rc && i < n; i++)
		if (!lines[i].id[0] || strlen(lines[i].currency) != 3)
			rc = err_set(FD_EINVAL,
			             _("settlement line %zu has no id or no currency: refused"),
			             i + 1);
	if (rc)
		return batch ? batch_failed(db, batch, rc) : rc;
	if (!batch && (rc = batch_open(db, provider, day, src, hold, &batch)) != 0)
		return rc;
	r.batch = res->batch_id = batch;
	rc = match(&r);
	if (!rc && hold)
		rc = control_renew(db, hold);
	if (!rc)
		rc = db_write(db, write_tx, &r);
	if (rc)
		batch_failed(db, r.batch, rc);
	sidx_free(&r.by_order);
	sidx_free(&r.by_no);
	sidx_free(&r.by_refund);
	free(r.it);
	free(r.d);
	free(r.fee_line);
	free(r.fee_item);
	return rc;
}

static int lock_day(struct db *db, const char *provider, const char *day, struct control_hold *h)
{
	char name[65];
	int64_t from, to;
	int rc;

	if ((rc = recon_day_window(day, &from, &to)) != 0 ||
	    (rc = lock_name(provider, day, name)) != 0)
		return rc;
	rc = control_acquire(db, name, CONTROL_LOCK, RECON_LOCK_TTL, h);
	if (rc == FD_ECONFLICT) {
		char why[600];

		snprintf(why, sizeof why, "%s", err_msg());
		return err_set(FD_ECONFLICT,
		               _("day %1$s of %2$s is being reconciled by someone else: %3$s"), day,
		               provider, why);
	}
	return rc;
}

int recon_run(struct db *db, const char *provider, const char *day,
              const struct chan_settle_line *lines, size_t n, const struct recon_source *src,
              struct recon_result *res)
{
	struct control_hold h;
	struct payout_sum *po = NULL;
	size_t npo = 0, i, k;
	int64_t from, to;
	int rc;

	memset(res, 0, sizeof *res);
	if ((rc = recon_day_window(day, &from, &to)) != 0)
		return rc;
	/* a file's payouts: the lines of the file that name them */
	for (i = 0; i < n; i++) {
		const struct chan_settle_line *l = &lines[i];

		if (l->kind != CHAN_SETTLE_PAYOUT || l->created < from || l->created >= to)
			continue;
		po = xrealloc(po, (npo + 1) * sizeof *po);
		po[npo].line = l;
		po[npo].lines = po[npo].sum = 0;
		for (k = 0; k < n; k++)
			if (k != i && lines[k].kind != CHAN_SETTLE_PAYOUT &&
			    !strcmp(lines[k].payout_id, *l->payout_id ? l->payout_id : l->source)) {
				po[npo].lines++;
				po[npo].sum += lines[k].net;
			}
		npo++;
	}
	if ((rc = lock_day(db, provider, day, &h)) == 0) {
		rc = run_locked(db, provider, day, lines, n, src, &h, po, npo, 0, res);
		control_release(db, &h);
	}
	free(po);
	return rc;
}

/* Ask the channel for the lines of each payout of the day's lines. */
static int fetch_payouts(struct chan_conn *conn, const struct chan_settle_line *lines, size_t n,
                         int64_t from, int64_t to, struct payout_sum **po, size_t *npo)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		const struct chan_settle_line *l = &lines[i];
		struct chan_settle_line *pl = NULL;
		struct chan_status st;
		struct payout_sum *p;
		size_t pn = 0;
		int code;

		if (l->kind != CHAN_SETTLE_PAYOUT || l->created < from || l->created >= to)
			continue;
		*po = xrealloc(*po, (*npo + 1) * sizeof **po);
		p = &(*po)[(*npo)++];
		p->line = l;
		p->lines = p->sum = 0;
		if (!conn->ops->payout_lines)
			continue; /* recorded as not adding up: a person looks */
		memset(&st, 0, sizeof st);
		code = conn->ops->payout_lines(conn->ctx, *l->payout_id ? l->payout_id : l->source,
		                               &pl, &pn, &st);
		if (code != CHAN_OK)
			return err_set(
			    FD_EIO, _("the lines of payout %1$s could not be read (%2$s): %3$s"),
			    l->payout_id, chan_code_name(code), st.reason[0] ? st.reason : "-");
		for (k = 0; k < pn; k++)
			if (pl[k].kind != CHAN_SETTLE_PAYOUT) {
				p->lines++;
				p->sum += pl[k].net;
			}
		free(pl);
	}
	return 0;
}

int recon_fetch_run(struct db *db, struct chan_conn *conn, const char *day,
                    struct recon_result *res)
{
	struct recon_source src = {0};
	struct chan_settle_line *lines = NULL;
	struct chan_status st;
	struct control_hold h;
	struct payout_sum *po = NULL;
	int64_t from, to, batch = 0;
	size_t n = 0, npo = 0;
	int rc, code;

	memset(res, 0, sizeof *res);
	if (!conn->ops->settlement)
		return err_set(FD_EINVAL,
		               _("the channel %s gives no settlement data: import its "
		                 "settlement file instead (frontdesk recon import)"),
		               conn->p.code);
	if ((rc = recon_day_window(day, &from, &to)) != 0)
		return rc;
	if ((rc = lock_day(db, conn->p.code, day, &h)) != 0)
		return rc;
	src.fetch_from = from - recon_tolerance();
	src.fetch_to = to + recon_tolerance();
	/* the batch exists from before the fetch: a failed fetch is a failed
	 * batch that says why */
	if ((rc = batch_open(db, conn->p.code, day, &src, &h, &batch)) != 0)
		goto out;
	res->batch_id = batch;
	memset(&st, 0, sizeof st);
	code = conn->ops->settlement(conn->ctx, src.fetch_from, src.fetch_to, &lines, &n, &st);
	if (code != CHAN_OK) {
		rc = err_set(FD_EIO,
		             _("the channel's settlement data could not be read (%1$s): %2$s"),
		             chan_code_name(code), st.reason[0] ? st.reason : "-");
		batch_failed(db, batch, rc);
	} else if ((rc = fetch_payouts(conn, lines, n, from, to, &po, &npo)) != 0) {
		batch_failed(db, batch, rc);
	} else {
		rc = run_locked(db, conn->p.code, day, lines, n, &src, &h, po, npo, batch, res);
	}
out:
	free(po);
	free(lines);
	control_release(db, &h);
	return rc;
}

int recon_import(struct db *db, const char *provider, const char *day, const struct settle_file *f,
                 struct recon_result *res)
{
	struct recon_source src = {0};
	char first[16];

	memset(res, 0, sizeof *res);
	if (!provider)
		provider = f->adapter;
	if (!day) {
		if (!f->n)
			return err_set(
			    FD_EINVAL,
			    _("the settlement file has no lines: name the day with --date"));
		clock_format_local(f->first_created, "%Y-%m-%d", first, sizeof first);
		day = first;
	}
	src.file = 1;
	src.sha256 = f->sha256;
	return recon_run(db, provider, day, f->lines, f->n, &src, res);
}

/* ------------------------------------------------------------ reads */

static void batch_row(sqlite3_stmt *st, struct recon_batch *b)
{
	memset(b, 0, sizeof *b);
	b->id = sqlite3_column_int64(st, 0);
	dbrow_copy(st, 1, b->provider, sizeof b->provider);
	dbrow_copy(st, 2, b->day, sizeof b->day);
	b->window_from = sqlite3_column_int64(st, 3);
	b->window_to = sqlite3_column_int64(st, 4);
	dbrow_copy(st, 5, b->source, sizeof b->source);
	dbrow_copy(st, 6, b->sha256, sizeof b->sha256);
	b->fetch_from = sqlite3_column_int64(st, 7);
	b->fetch_to = sqlite3_column_int64(st, 8);
	dbrow_copy(st, 9, b->status, sizeof b->status);
	b->lines = sqlite3_column_int64(st, 10);
	b->local = sqlite3_column_int64(st, 11);
	b->matched = sqlite3_column_int64(st, 12);
	b->diffs_new = sqlite3_column_int64(st, 13);
	b->diffs_seen = sqlite3_column_int64(st, 14);
	b->diffs_gone = sqlite3_column_int64(st, 15);
	b->open_at_end = sqlite3_column_int64(st, 16);
	dbrow_copy(st, 17, b->error, sizeof b->error);
	dbrow_copy(st, 18, b->operator_id, sizeof b->operator_id);
	b->started_at = sqlite3_column_int64(st, 19);
	b->finished_at = sqlite3_column_int64(st, 20);
	b->open_now = sqlite3_column_int64(st, 21);
}

#define BATCH_COLS                                                                                 \
	"b.id, b.provider_code, b.business_day, b.window_from, b.window_to, b.source,"             \
	" b.file_sha256, b.fetch_from, b.fetch_to, b.status, b.lines, b.local_items, b.matched,"   \
	" b.diffs_new, b.diffs_seen, b.diffs_gone, b.open_diffs, b.error, b.operator_id,"          \
	" b.started_at, b.finished_at,"                                                            \
	" (SELECT count(*) FROM reconciliation_diff d WHERE d.business_day = b.business_day"       \
	"  AND d.provider_code = b.provider_code AND d.state = 'open')"

int recon_diff_is_open(const struct recon_diff *d)
{
	return !strcmp(d->state, "open");
}

int recon_batch_is_done(const struct recon_batch *b)
{
	return !strcmp(b->status, "done");
}

int recon_parked_is_parked(const struct recon_parked *e)
{
	return !strcmp(e->status, "parked");
}

int recon_batch_get(struct db *db, int64_t id, struct recon_batch *out)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare_cached(
	    db, "SELECT " BATCH_COLS " FROM reconciliation_batch b WHERE b.id = ?1", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		batch_row(st, out);
		rc = 0;
	} else {
		rc = err_set(FD_ENOTFOUND, _("no reconciliation batch %lld"), (long long)id);
	}
	db_release(db, st);
	return rc;
}

int recon_batch_list(struct db *db, const char *provider, const char *day, int limit,
                     int (*cb)(const struct recon_batch *b, void *arg), void *arg)
{
	sqlite3_stmt *st;
	struct recon_batch b;
	int rc, step;

	rc = db_prepare(db,
	                "SELECT " BATCH_COLS " FROM reconciliation_batch b"
	                " WHERE (?1 IS NULL OR b.provider_code = ?1)"
	                " AND (?2 IS NULL OR b.business_day = ?2) ORDER BY b.id DESC LIMIT ?3",
	                &st);
	if (rc)
		return rc;
	if (provider)
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	if (day)
		sqlite3_bind_text(st, 2, day, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, limit > 0 ? limit : 100);
	rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		batch_row(st, &b);
		rc = cb(&b, arg);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("reading the reconciliation batches"));
	sqlite3_finalize(st);
	return rc;
}

int recon_batch_totals(struct db *db, int64_t id, int (*cb)(const struct recon_total *t, void *arg),
                       void *arg)
{
	sqlite3_stmt *st;
	struct recon_total t;
	int rc, step;

	rc = db_prepare(db,
	                "SELECT currency, lines, gross, fee, net, local FROM reconciliation_total"
	                " WHERE batch_id = ?1 ORDER BY currency",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&t, 0, sizeof t);
		dbrow_copy(st, 0, t.currency, sizeof t.currency);
		t.lines = sqlite3_column_int64(st, 1);
		t.gross = sqlite3_column_int64(st, 2);
		t.fee = sqlite3_column_int64(st, 3);
		t.net = sqlite3_column_int64(st, 4);
		t.local = sqlite3_column_int64(st, 5);
		rc = cb(&t, arg);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("reading the batch's totals"));
	sqlite3_finalize(st);
	return rc;
}

#define DIFF_COLS                                                                                  \
	"d.id, d.provider_code, d.kind, d.natural_key, d.business_day, d.first_batch_id,"          \
	" d.last_seen_batch_id, d.payment_id, d.refund_id, d.line_id, d.line_data,"                \
	" d.local_amount, d.local_currency, d.channel_amount, d.channel_currency, d.detail,"       \
	" d.state, d.created_at, d.updated_at, r.action, r.note, r.payment_id, r.refund_id,"       \
	" r.batch_id, r.operator_id, r.at"

/* Fill d from a DIFF_COLS row; line_data points into the row (copy it). */
static void diff_row(sqlite3_stmt *st, struct recon_diff *d)
{
	memset(d, 0, sizeof *d);
	d->id = sqlite3_column_int64(st, 0);
	dbrow_copy(st, 1, d->provider, sizeof d->provider);
	dbrow_copy(st, 2, d->kind, sizeof d->kind);
	dbrow_copy(st, 3, d->natural_key, sizeof d->natural_key);
	dbrow_copy(st, 4, d->day, sizeof d->day);
	d->first_batch = sqlite3_column_int64(st, 5);
	d->last_seen_batch = sqlite3_column_int64(st, 6);
	d->payment_id = sqlite3_column_int64(st, 7);
	d->refund_id = sqlite3_column_int64(st, 8);
	dbrow_copy(st, 9, d->line_id, sizeof d->line_id);
	d->line_data = (char *)sqlite3_column_text(st, 10);
	d->has_local = sqlite3_column_type(st, 11) != SQLITE_NULL;
	d->local_amount = sqlite3_column_int64(st, 11);
	dbrow_copy(st, 12, d->local_currency, sizeof d->local_currency);
	d->has_channel = sqlite3_column_type(st, 13) != SQLITE_NULL;
	d->channel_amount = sqlite3_column_int64(st, 13);
	dbrow_copy(st, 14, d->channel_currency, sizeof d->channel_currency);
	dbrow_copy(st, 15, d->detail, sizeof d->detail);
	dbrow_copy(st, 16, d->state, sizeof d->state);
	d->created_at = sqlite3_column_int64(st, 17);
	d->updated_at = sqlite3_column_int64(st, 18);
	dbrow_copy(st, 19, d->action, sizeof d->action);
	dbrow_copy(st, 20, d->note, sizeof d->note);
	d->res_payment_id = sqlite3_column_int64(st, 21);
	d->res_refund_id = sqlite3_column_int64(st, 22);
	d->res_batch_id = sqlite3_column_int64(st, 23);
	dbrow_copy(st, 24, d->res_operator, sizeof d->res_operator);
	d->res_at = sqlite3_column_int64(st, 25);
}

int recon_diff_list(struct db *db, int64_t batch_id, const char *provider, const char *day,
                    const char *state, int (*cb)(const struct recon_diff *d, void *arg), void *arg)
{
	sqlite3_stmt *st;
	struct recon_diff d;
	int rc, step;

	rc = db_prepare(db,
	                "SELECT " DIFF_COLS " FROM reconciliation_diff d"
	                " LEFT JOIN reconciliation_resolution r ON r.diff_id = d.id"
	                " WHERE (?1 = 0 OR d.last_seen_batch_id = ?1 OR r.batch_id = ?1)"
	                " AND (?2 IS NULL OR d.provider_code = ?2)"
	                " AND (?3 IS NULL OR d.business_day = ?3) AND (?4 IS NULL OR d.state = ?4)"
	                " ORDER BY d.id",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, batch_id);
	if (provider)
		sqlite3_bind_text(st, 2, provider, -1, SQLITE_STATIC);
	if (day)
		sqlite3_bind_text(st, 3, day, -1, SQLITE_STATIC);
	if (state)
		sqlite3_bind_text(st, 4, state, -1, SQLITE_STATIC);
	rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		diff_row(st, &d);
		rc = cb(&d, arg);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("reading the reconciliation differences"));
	sqlite3_finalize(st);
	return rc;
}

int recon_diff_get(struct db *db, int64_t id, struct recon_diff *out)
{
	sqlite3_stmt *st;
	int rc;

	rc =
	    db_prepare(db,
	               "SELECT " DIFF_COLS " FROM reconciliation_diff d"
	               " LEFT JOIN reconciliation_resolution r ON r.diff_id = d.id WHERE d.id = ?1",
	               &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		diff_row(st, out);
		out->line_data = out->line_data ? xstrdup(out->line_data) : NULL;
		rc = 0;
	} else {
		rc = err_set(FD_ENOTFOUND, _("no reconciliation difference %lld"), (long long)id);
	}
	sqlite3_finalize(st);
	return rc;
}

void recon_diff_free(struct recon_diff *d)
{
	free(d->line_data);
	d->line_data = NULL;
}

/* ------------------------------------------------------------ decisions */

static int note_check(const char *note)
{
	const char *s = note;

	while (s && (*s == ' ' || *s == '\t'))
		s++;
	if (!s || !*s)
		return err_set(FD_EINVAL, _("a decision needs a note saying why (--note)"));
	if (strlen(note) > 1000)
		return err_set(FD_EINVAL, _("the note is too long (at most 1000 bytes)"));
	return 0;
}

/* The open difference id, read inside the transaction. */
static int diff_open(struct db *db, int64_t id, struct recon_diff *d)
{
	int rc = recon_diff_get(db, id, d);

	if (!rc && strcmp(d->state, "open")) {
		recon_diff_free(d);
		return err_set(FD_ECONFLICT, _("difference %1$lld is resolved already (%2$s)"),
		               (long long)id, d->action);
	}
	return rc;
}

struct accept {
	int64_t id;
	const char *note;
};

static int accept_tx(struct db *db, void *arg)
{
	struct accept *a = arg;
	struct recon_diff d;
	int rc;

	if ((rc = diff_open(db, a->id, &d)) != 0)
		return rc;
	recon_diff_free(&d);
	return resolution_write(db, a->id, "accept", a->note, 0, 0, 0);
}

int recon_accept(struct db *db, int64_t id, const char *note)
{
	struct accept a = {id, note};
	int rc;

	if ((rc = note_check(note)) != 0)
		return rc;
	return db_write(db, accept_tx, &a);
}

/* Read "INVOICE[:AMOUNT]" texts into allocations in currency cur; an
 * amount left out is what the invoice owes, at most what is left of
 * amount. *customer gets the first invoice's customer when it is 0. */
static int allocs_read(struct db *db, const struct recon_pay *p, const char *cur, int64_t amount,
                       int64_t *customer, struct alloc_input **out)
{
	size_t i;
	int64_t left = amount;
	int rc = 0;

	*out = p->n ? xcalloc(p->n, sizeof **out) : NULL;
	for (i = 0; i < p->n && !rc; i++) {
		const char *t = p->invoices[i], *colon = strrchr(t, ':');
		char inv[64];
		struct invoice iv;

		snprintf(inv, sizeof inv, "%.*s", colon ? (int)(colon - t) : (int)strlen(t), t);
		if ((rc = invoice_find(db, inv, &(*out)[i].invoice_id)) != 0)
			break;
		if ((rc = invoice_get(db, (*out)[i].invoice_id, &iv)) != 0)
			break;
		if (!*customer)
			*customer = iv.customer_id;
		if (colon) {
			char buf[128];

			snprintf(buf, sizeof buf, "%s=%s", inv, colon + 1);
			rc = alloc_read(db, buf, cur, &(*out)[i]);
		} else {
			(*out)[i].amount = iv.balance < left ? iv.balance : left;
			if ((*out)[i].amount <= 0)
				rc = err_set(
				    FD_EINVAL,
				    _("invoice %1$s owes nothing, or nothing is left of the "
				      "payment for it: give an amount (%2$s:AMOUNT)"),
				    inv, inv);
		}
		invoice_free(&iv);
		if (!rc)
			left -= (*out)[i].amount;
	}
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

/* What a payment recorded from the channel's data is. */
struct chanpay {
	const char *provider;
	const char *channel_ref; /* the channel's order id (else the line's source) */
	const char *line_id;     /* NULL for a claimed event */
	const char *order_no;    /* ours as the channel keeps it, "" */
	int64_t amount;
	const char *currency;
	int64_t received_at;
	int64_t diff_id, event_id;
	const struct recon_pay *p;
	int64_t payment_id; /* out */
	int replayed;       /* out */
};

/* INSIDE the caller's transaction: record the payment of c once (see
 * recon.h), or find it recorded already (c->replayed). */
static int chanpay_in(struct db *db, struct chanpay *c)
{
	struct pay_order po;
	int have_po = 0, rc;
	struct payment_input in = {0};
	struct alloc_input *al = NULL, one;
	size_t nal = 0;
	sqlite3_stmt *st;
	int64_t customer = c->p->customer_id;
	char key[300], canon[600], hash[65], note[300], why[300], *stored = NULL;

	c->replayed = 0;
	rc = db_prepare_cached(
	    db,
	    "SELECT payment_id FROM reconciliation_payment WHERE provider_code = ?1"
	    " AND (channel_ref = ?2 OR line_id = ?3)",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, c->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, c->channel_ref, -1, SQLITE_STATIC);
	if (c->line_id)
		sqlite3_bind_text(st, 3, c->line_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		c->payment_id = sqlite3_column_int64(st, 0);
		c->replayed = 1;
	}
	db_release(db, st);
	if (c->replayed)
		return 0;
	if (chan_order_by_channel(db, c->provider, c->channel_ref, &po) == 0 ||
	    (*c->order_no && chan_order_get(db, c->order_no, &po) == 0 &&
	     !strcmp(po.provider, c->provider)))
		have_po = 1;
	if (have_po && po.payment_id) {
		/* the worker posted it meanwhile */
		c->payment_id = po.payment_id;
		c->replayed = 1;
		return 0;
	}
	if (have_po && (po.amount != c->amount || strcasecmp(po.currency, c->currency))) {
		char a[MONEY_BUFSZ], b[MONEY_BUFSZ];

		return err_set(
		    FD_EINVAL,
		    _("the channel shows %1$s %2$s for our card payment order %3$s, which "
		      "is for %4$s %5$s: not recorded; accept the difference with a note "
		      "and settle it by hand"),
		    money_text(c->amount, c->currency, 0, a), c->currency, po.order_no,
		    money_text(po.amount, po.currency, 0, b), po.currency);
	}
	if (have_po && !customer)
		customer = po.customer_id;
	if (c->amount <= 0)
		return err_set(FD_EINVAL,
		               _("the channel's line is not money received (%lld): "
		                 "nothing to record"),
		               (long long)c->amount);
	if ((rc = allocs_read(db, c->p, c->currency, c->amount, &customer, &al)) != 0)
		return rc;
	nal = c->p->n;
	if (!nal && have_po && po.invoice_id) {
		struct invoice iv;

		if (invoice_get(db, po.invoice_id, &iv) == 0) {
			one.invoice_id = po.invoice_id;
			one.amount = iv.balance < c->amount ? iv.balance : c->amount;
			invoice_free(&iv);
			if (one.amount > 0) {
				al = xcalloc(1, sizeof *al);
				al[0] = one;
				nal = 1;
			}
		}
	}
	if (!customer) {
		free(al);
		return err_set(FD_EINVAL,
		               _("say whose payment it is: --customer C or --invoice INV"));
	}
	snprintf(key, sizeof key, "recon:pay:%s:%s", c->provider, c->channel_ref);
	snprintf(canon, sizeof canon, "customer=%lld\namount=%lld\ncurrency=%s\nref=%s\n",
	         (long long)customer, (long long)c->amount, c->currency, c->channel_ref);
	if ((rc = idem_hash(canon, hash)) != 0)
		goto out;
	rc = idem_enter(db, key, "recon pay", hash, &stored);
	if (rc == IDEM_REPLAY) {
		c->payment_id = stored ? strtoll(stored, NULL, 10) : 0;
		c->replayed = 1;
		rc = c->payment_id ? 0 : err_set(FD_EDB, _("the recorded payment cannot be read"));
		goto out;
	}
	if (rc)
		goto out;
	snprintf(note, sizeof note, _("recorded from the channel's data (%1$s %2$s)"), c->provider,
	         c->line_id ? c->line_id : c->channel_ref);
	in.customer_id = customer;
	in.currency = c->currency;
	in.amount = c->amount;
	in.method = "card";
	in.reference = strlen(c->channel_ref) <= 100 ? c->channel_ref : NULL;
	in.received_at = c->received_at > clock_now() ? 0 : c->received_at;
	in.note = note;
	in.channel_ref = 1;
	if ((rc = payment_record_in(db, &in, al, nal, &c->payment_id)) != 0)
		goto out;
	if (have_po && chan_order_is_open(po.status)) {
		snprintf(why, sizeof why, _("reconciliation: recorded from the channel's data"));
		if (!*po.channel_id)
			snprintf(po.channel_id, sizeof po.channel_id, "%s", c->channel_ref);
		po.payment_id = c->payment_id;
		if ((rc = chan_order_move(db, &po, "paid", why)) != 0)
			goto out;
	}
	rc = db_prepare_cached(db,
	                       "INSERT INTO reconciliation_payment (provider_code, channel_ref,"
	                       " line_id, payment_id, diff_id, event_id, operator_id, created_at)"
	                       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	                       &st);
	if (rc)
		goto out;
	sqlite3_bind_text(st, 1, c->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, c->channel_ref, -1, SQLITE_STATIC);
	if (c->line_id)
		sqlite3_bind_text(st, 3, c->line_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, c->payment_id);
	if (c->diff_id)
		sqlite3_bind_int64(st, 5, c->diff_id);
	if (c->event_id)
		sqlite3_bind_int64(st, 6, c->event_id);
	sqlite3_bind_text(st, 7, db_operator(), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, clock_now());
	if ((rc = db_run_cached(db, st, _("recording the payment's channel data"))) != 0)
		goto out;
	snprintf(canon, sizeof canon, "%lld", (long long)c->payment_id);
	rc = idem_finish(db, key, "recon pay", hash, canon);
out:
	free(stored);
	free(al);
	return rc;
}

struct record {
	int64_t id;
	const struct recon_pay *p;
	int64_t payment_id;
	int replayed;
};

static int record_tx(struct db *db, void *arg)
{
	struct record *x = arg;
	struct recon_diff d;
	struct chan_settle_line l;
	struct chanpay c = {0};
	int rc;

	if ((rc = diff_open(db, x->id, &d)) != 0)
		return rc;
	if (strcmp(d.kind, "channel_only")) {
		rc = err_set(
		    FD_EINVAL,
		    _("difference %1$lld is %2$s: only a channel_only charge is recorded as a "
		      "payment (use --accept or --correct)"),
		    (long long)x->id, d.kind);
		goto out;
	}
	if ((rc = line_parse(d.line_data, &l)) != 0)
		goto out;
	if (l.kind != CHAN_SETTLE_CHARGE) {
		rc = err_set(
		    FD_EINVAL,
		    _("difference %1$lld is a channel %2$s, not money received: use --accept"),
		    (long long)x->id, settle_kind_name(l.kind));
		goto out;
	}
	c.provider = d.provider;
	c.channel_ref = *l.order_id ? l.order_id : *l.source ? l.source : l.id;
	c.line_id = l.id;
	c.order_no = l.order_no;
	c.amount = l.amount;
	c.currency = l.currency;
	c.received_at = l.created;
	c.diff_id = x->id;
	c.p = x->p;
	if ((rc = chanpay_in(db, &c)) != 0)
		goto out;
	x->payment_id = c.payment_id;
	x->replayed = c.replayed;
	rc = resolution_write(db, x->id, "record_payment", x->p->note, c.payment_id, 0, 0);
out:
	recon_diff_free(&d);
	return rc;
}

int recon_record(struct db *db, int64_t id, const struct recon_pay *p, int64_t *payment_id,
                 int *replayed)
{
	struct record x = {id, p, 0, 0};
	int rc;

	if ((rc = note_check(p->note)) != 0)
		return rc;
	rc = db_write(db, record_tx, &x);
	if (rc == FD_ECONFLICT) {
		/* resolved already: by this same recording (a second resolve)? */
		struct recon_diff d;

		if (recon_diff_get(db, id, &d) == 0) {
			if (!strcmp(d.action, "record_payment")) {
				x.payment_id = d.res_payment_id;
				x.replayed = 1;
				rc = 0;
			}
			recon_diff_free(&d);
		}
	}
	if (payment_id)
		*payment_id = x.payment_id;
	if (replayed)
		*replayed = x.replayed;
	return rc;
}

int recon_record_guess(struct db *db, int64_t id, struct recon_guess *out)
{
	struct recon_diff d;
	struct chan_settle_line l;
	struct pay_order po;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = recon_diff_get(db, id, &d)) != 0)
		return rc;
	if (strcmp(d.kind, "channel_only")) {
		rc = err_set(FD_EINVAL,
		             _("difference %1$lld is %2$s: only a channel_only charge is recorded "
		               "as a payment"),
		             (long long)id, d.kind);
		goto out;
	}
	if ((rc = line_parse(d.line_data, &l)) != 0)
		goto out;
	if (l.kind != CHAN_SETTLE_CHARGE) {
		rc =
		    err_set(FD_EINVAL, _("difference %1$lld is a channel %2$s, not money received"),
		            (long long)id, settle_kind_name(l.kind));
		goto out;
	}
	out->amount = l.amount;
	snprintf(out->currency, sizeof out->currency, "%s", l.currency);
	if ((*l.order_id && chan_order_by_channel(db, d.provider, l.order_id, &po) == 0) ||
	    (*l.order_no && chan_order_get(db, l.order_no, &po) == 0 &&
	     !strcmp(po.provider, d.provider))) {
		struct invoice iv;

		snprintf(out->order_no, sizeof out->order_no, "%s", po.order_no);
		out->customer_id = po.customer_id;
		out->paid = po.payment_id != 0;
		if (po.invoice_id && invoice_get(db, po.invoice_id, &iv) == 0) {
			out->invoice_id = po.invoice_id;
			snprintf(out->invoice, sizeof out->invoice, "%s", iv.number);
			invoice_free(&iv);
		}
	}
out:
	recon_diff_free(&d);
	return rc;
}

struct correct {
	int64_t id;
	const struct recon_pay *p;
	int64_t payment_id, refund_id;
};

/* Refund amount of payment pay_id as a correcting entry (the channel's
 * refund id as reference when known). */
static int correct_refund(struct db *db, int64_t pay_id, int64_t amount, const char *ref,
                          const char *note, int64_t *refund_id)
{
	struct refund_input in = {0};
	char reason[400];
	int rc;

	snprintf(reason, sizeof reason, _("reconciliation: %s"), note);
	if ((rc = refund_make_room_in(db, pay_id, amount, reason)) != 0)
		return rc;
	in.payment_id = pay_id;
	in.amount = amount;
	in.method = "card";
	in.reference = ref && *ref && strlen(ref) <= 100 ? ref : NULL;
	in.reason = reason;
	in.channel_ref = 1;
	return refund_post_in(db, &in, refund_id);
}

static int correct_tx(struct db *db, void *arg)
{
	struct correct *x = arg;
	struct recon_diff d;
	struct chan_settle_line l;
	struct payment pay;
	int rc, have_line;

	if ((rc = diff_open(db, x->id, &d)) != 0)
		return rc;
	have_line = d.line_data && line_parse(d.line_data, &l) == 0;
	if (!strcmp(d.kind, "status_mismatch") && have_line && l.kind == CHAN_SETTLE_REFUND &&
	    !d.refund_id && d.payment_id) {
		/* a refund the desk did not know: record it, and the order follows */
		struct pay_order po;

		if ((rc = correct_refund(db, d.payment_id, -l.amount, l.refund_id, x->p->note,
		                         &x->refund_id)) != 0)
			goto out;
		if (chan_order_of_payment(db, d.payment_id, &po) == 0 &&
		    chan_order_is_paid(po.status) && po.refunded - l.amount <= po.amount) {
			po.refunded -= l.amount;
			rc = chan_order_move(db, &po,
			                     po.refunded == po.amount ? "refunded" : "refunding",
			                     _("reconciliation: a refund the channel made"));
			if (rc == FD_ECONFLICT && !strcmp(po.status, "refunding"))
				rc = chan_order_save(db, &po, NULL);
			if (rc)
				goto out;
		}
	} else if (!strcmp(d.kind, "amount_mismatch") && !d.refund_id && d.has_local &&
	           d.has_channel) {
		int64_t delta = d.channel_amount - d.local_amount;

		if ((rc = payment_get(db, d.payment_id, &pay)) != 0)
			goto out;
		if (delta < 0) {
			rc = correct_refund(db, d.payment_id, -delta, NULL, x->p->note,
			                    &x->refund_id);
		} else {
			struct payment_input in = {0};
			struct alloc_input *al = NULL;
			int64_t customer = pay.customer_id;

			rc = allocs_read(db, x->p, pay.currency, delta, &customer, &al);
			if (!rc) {
				in.customer_id = pay.customer_id;
				in.currency = pay.currency;
				in.amount = delta;
				in.method = "card";
				in.note = x->p->note;
				rc = payment_record_in(db, &in, al, x->p->n, &x->payment_id);
			}
			free(al);
		}
		payment_free(&pay);
		if (rc)
			goto out;
	} else if (!strcmp(d.kind, "local_only") && !d.refund_id && d.payment_id) {
		if ((rc = payment_get(db, d.payment_id, &pay)) != 0)
			goto out;
		rc = correct_refund(db, d.payment_id, pay.amount - pay.refunded, NULL, x->p->note,
		                    &x->refund_id);
		payment_free(&pay);
		if (rc)
			goto out;
	} else {
		rc =
		    err_set(FD_EINVAL,
		            _("no correcting entry fits difference %1$lld (%2$s): accept it with a "
		              "note (--accept), or record a channel charge (--record)"),
		            (long long)x->id, d.kind);
		goto out;
	}
	rc = resolution_write(db, x->id, "correcting_entry", x->p->note, x->payment_id,
	                      x->refund_id, 0);
out:
	recon_diff_free(&d);
	return rc;
}

int recon_correct(struct db *db, int64_t id, const struct recon_pay *p, int64_t *payment_id,
                  int64_t *refund_id)
{
	struct correct x = {id, p, 0, 0};
	int rc;

	if ((rc = note_check(p->note)) != 0)
		return rc;
	rc = db_write(db, correct_tx, &x);
	if (payment_id)
		*payment_id = x.payment_id;
	if (refund_id)
		*refund_id = x.refund_id;
	return rc;
}

/* ------------------------------------------------------------ parked events */

int recon_parked_list(struct db *db, const char *provider,
                      int (*cb)(const struct recon_parked *e, void *arg), void *arg)
{
	sqlite3_stmt *st;
	struct recon_parked e;
	int rc, step;

	rc = db_prepare(
	    db,
	    "SELECT id, source_system, external_id, coalesce(event_type, ''),"
	    " coalesce(object_id, ''), status, coalesce(channel_created_at, 0),"
	    " received_at, payload, coalesce(last_error, '') FROM inbound_callback"
	    " WHERE (status = 'parked' OR (status = 'dead' AND parked_until IS NOT NULL))"
	    " AND integration_type = 'payment' AND (?1 IS NULL OR source_system = ?1) ORDER BY id",
	    &st);
	if (rc)
		return rc;
	if (provider)
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&e, 0, sizeof e);
		e.id = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, e.source, sizeof e.source);
		dbrow_copy(st, 2, e.external_id, sizeof e.external_id);
		dbrow_copy(st, 3, e.event_type, sizeof e.event_type);
		dbrow_copy(st, 4, e.object_id, sizeof e.object_id);
		dbrow_copy(st, 5, e.status, sizeof e.status);
		e.channel_created_at = sqlite3_column_int64(st, 6);
		e.received_at = sqlite3_column_int64(st, 7);
		e.payload = sqlite3_column_blob(st, 8);
		e.len = (size_t)sqlite3_column_bytes(st, 8);
		dbrow_copy(st, 9, e.last_error, sizeof e.last_error);
		rc = cb(&e, arg);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("reading the parked events"));
	sqlite3_finalize(st);
	return rc;
}

struct claim {
	int64_t event_id;
	const struct inbox_event *ev;
	const struct chan_order *o;
	const struct recon_pay *p;
	int64_t payment_id;
	int replayed;
};

static int claim_tx(struct db *db, void *arg)
{
	struct claim *x = arg;
	struct chanpay c = {0};
	char why[400];
	int rc;

	c.provider = x->ev->source;
	c.channel_ref = x->o->id;
	c.order_no = x->o->order_no;
	c.amount = x->o->amount_received;
	c.currency = x->o->currency;
	c.received_at = x->o->created;
	c.event_id = x->event_id;
	c.p = x->p;
	if ((rc = chanpay_in(db, &c)) != 0)
		return rc;
	x->payment_id = c.payment_id;
	x->replayed = c.replayed;
	snprintf(why, sizeof why, _("claimed for customer %1$lld: payment %2$lld (%3$s)"),
	         (long long)x->p->customer_id, (long long)c.payment_id, x->p->note);
	db_set_reason(db, why);
	rc = inbox_mark_claimed(db, x->event_id, why, NULL);
	db_set_reason(db, NULL);
	return rc;
}

/* The payment a processed event was claimed as, 0 when it was not. */
static int64_t claimed_payment(struct db *db, int64_t event_id)
{
	sqlite3_stmt *st;
	int64_t id = 0;

	if (db_prepare_cached(
	        db, "SELECT payment_id FROM reconciliation_payment WHERE event_id = ?1", &st))
		return 0;
	sqlite3_bind_int64(st, 1, event_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	db_release(db, st);
	return id;
}

int recon_claim(struct db *db, struct chan_conn *conn, int64_t event_id, const struct recon_pay *p,
                int64_t *payment_id, int *replayed)
{
	struct inbox_event ev;
	struct chan_order o;
	struct chan_status st;
	struct claim x = {0};
	int rc, code;

	*payment_id = 0;
	*replayed = 0;
	if ((rc = note_check(p->note)) != 0)
		return rc;
	if (p->customer_id <= 0)
		return err_set(FD_EINVAL, _("say whose payment it is: --customer C"));
	if ((rc = inbox_get(db, event_id, &ev)) != 0)
		return rc;
	if (!strcmp(ev.status, "processed") && (*payment_id = claimed_payment(db, event_id))) {
		*replayed = 1;
		goto out;
	}
	if (strcmp(ev.status, "parked") && strcmp(ev.status, "dead")) {
		rc = err_set(FD_ECONFLICT, _("event %1$lld is %2$s, not parked: nothing to claim"),
		             (long long)event_id, ev.status);
		goto out;
	}
	if (strcmp(ev.source, conn->p.code)) {
		rc = err_set(FD_EINVAL, _("event %1$lld is of %2$s, not of %3$s"),
		             (long long)event_id, ev.source, conn->p.code);
		goto out;
	}
	if (!ev.object_id || !*ev.object_id) {
		rc = err_set(FD_EINVAL, _("event %lld names no order of the channel"),
		             (long long)event_id);
		goto out;
	}
	memset(&st, 0, sizeof st);
	code = conn->ops->query_order(conn->ctx, ev.object_id, &o, &st);
	if (code != CHAN_OK) {
		rc = err_set(code == CHAN_NOTFOUND ? FD_ENOTFOUND : FD_EIO,
		             _("the channel could not say what order %1$s is (%2$s): %3$s"),
		             ev.object_id, chan_code_name(code), st.reason[0] ? st.reason : "-");
		goto out;
	}
	if (o.state != CHAN_ORDER_SUCCEEDED || o.amount_received <= 0) {
		rc = err_set(FD_EINVAL,
		             _("the channel says order %1$s is %2$s: no money to record for it"),
		             o.id, o.status);
		goto out;
	}
	x.event_id = event_id;
	x.ev = &ev;
	x.o = &o;
	x.p = p;
	rc = db_write(db, claim_tx, &x);
	*payment_id = x.payment_id;
	*replayed = x.replayed;
out:
	inbox_event_free(&ev);
	return rc;
}

int recon_auto_day(struct db *db, const char *provider, char day[11])
{
	long hour = config_get_int("recon_auto_hour", -1);
	int64_t now = clock_now(), today = clock_day_start(now);
	sqlite3_stmt *st;
	char buf[11];
	int done = 0;

	if (hour < 0 || hour > 23 || now < today + hour * 3600)
		return 0;
	clock_format_local(clock_add_days(today, -1), "%Y-%m-%d", buf, sizeof buf);
	if (db_prepare_cached(db,
	                      "SELECT 1 FROM reconciliation_batch WHERE provider_code = ?1"
	                      " AND business_day = ?2 AND status = 'done'",
	                      &st))
		return 0;
	sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, buf, -1, SQLITE_STATIC);
	done = sqlite3_step(st) == SQLITE_ROW;
	db_release(db, st);
	if (done)
		return 0;
	snprintf(day, 11, "%s", buf);
	return 1;
}

/* ------------------------------------------------------------ payouts */

int recon_payout_list(struct db *db, const char *provider, int unticked_only,
                      int (*cb)(const struct recon_payout *p, void *arg), void *arg)
{
	sqlite3_stmt *st;
	struct recon_payout p;
	int rc, step;

	rc =
	    db_prepare(db,
	               "SELECT id, provider_code, payout_id, amount, currency, lines, lines_sum,"
	               " matches, coalesce(arrival_date, ''), coalesce(batch_id, 0),"
	               " coalesce(ticked_at, 0), coalesce(ticked_by, '') FROM reconciliation_payout"
	               " WHERE (?1 IS NULL OR provider_code = ?1) AND (?2 = 0 OR ticked_at IS NULL)"
	               " ORDER BY id DESC",
	               &st);
	if (rc)
		return rc;
	if (provider)
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, unticked_only);
	rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&p, 0, sizeof p);
		p.id = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, p.provider, sizeof p.provider);
		dbrow_copy(st, 2, p.payout_id, sizeof p.payout_id);
		p.amount = sqlite3_column_int64(st, 3);
		dbrow_copy(st, 4, p.currency, sizeof p.currency);
		p.lines = sqlite3_column_int64(st, 5);
		p.lines_sum = sqlite3_column_int64(st, 6);
		p.matches = sqlite3_column_int(st, 7);
		dbrow_copy(st, 8, p.arrival, sizeof p.arrival);
		p.batch_id = sqlite3_column_int64(st, 9);
		p.ticked_at = sqlite3_column_int64(st, 10);
		dbrow_copy(st, 11, p.ticked_by, sizeof p.ticked_by);
		rc = cb(&p, arg);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("reading the payouts"));
	sqlite3_finalize(st);
	return rc;
}

static int tick_tx(struct db *db, void *arg)
{
	const char *id = arg;
	sqlite3_stmt *st;
	int rc, found = 0, matches = 0, ticked = 0;

	rc = db_prepare_cached(db,
	                       "SELECT matches, ticked_at IS NOT NULL FROM reconciliation_payout"
	                       " WHERE payout_id = ?1",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		found = 1;
		matches = sqlite3_column_int(st, 0);
		ticked = sqlite3_column_int(st, 1);
	}
	db_release(db, st);
	if (!found)
		return err_set(FD_ENOTFOUND, _("no payout %s: run the reconciliation of its day"),
		               id);
	if (ticked)
		return err_set(FD_ECONFLICT, _("payout %s is ticked off already"), id);
	if (!matches)
		return err_set(
		    FD_EINVAL,
		    _("the lines of payout %s do not add up to its amount: not ticked off"), id);
	rc = db_prepare_cached(db,
	                       "UPDATE reconciliation_payout SET ticked_at = ?2, ticked_by = ?3,"
	                       " updated_at = ?2 WHERE payout_id = ?1 AND ticked_at IS NULL",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, clock_now());
	sqlite3_bind_text(st, 3, db_operator(), -1, SQLITE_STATIC);
	return db_run_cached(db, st, _("ticking the payout off"));
}

int recon_payout_tick(struct db *db, const char *payout_id)
{
	return db_write(db, tick_tx, (void *)payout_id);
}

/* ------------------------------------------------------------ check */

int recon_check(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
                void *arg)
{
	sqlite3_stmt *st;
	int rc, step, n = 0;

	rc = db_prepare(db,
	                "SELECT id, provider_code, business_day FROM reconciliation_batch"
	                " WHERE status = 'running' ORDER BY id",
	                &st);
	if (rc)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct control_info ci;
		char name[65], provider[41], day[11], detail[300];
		int64_t id = sqlite3_column_int64(st, 0);

		dbrow_copy(st, 1, provider, sizeof provider);
		dbrow_copy(st, 2, day, sizeof day);
		snprintf(name, sizeof name, "recon.%s.%s", provider, day);
		if (control_get(db, name, &ci) == 0) {
			int held = ci.state == CONTROL_HELD;

			control_info_free(&ci);
			if (held)
				continue; /* a run is working on it now */
		}
		snprintf(detail, sizeof detail,
		         "reconciliation batch %lld of %s (%s) is still running, but its run ended "
		         "without finishing: run the day again (frontdesk recon run --date %s)",
		         (long long)id, day, provider, day);
		report("recon-batch-interrupted", detail, arg);
		n++;
	}
	if (step != SQLITE_DONE)
		n = db_fail(db, _("reading the running batches"));
	sqlite3_finalize(st);
	return n;
}

/* ------------------------------------------------------------ state */

int recon_day_balanced(struct db *db, const char *provider, const char *day, int *balanced,
                       int64_t *open)
{
	sqlite3_stmt *st;
	int rc;

	*balanced = 0;
	if ((rc = count_open(db, provider, day, open)) != 0)
		return rc;
	rc = db_prepare_cached(
	    db,
	    "SELECT count(*), coalesce(min(b.status = 'done'), 0) FROM"
	    " (SELECT max(id) AS id FROM reconciliation_batch WHERE business_day = ?2"
	    "  AND (?1 IS NULL OR provider_code = ?1) GROUP BY provider_code) l"
	    " JOIN reconciliation_batch b ON b.id = l.id",
	    &st);
	if (rc)
		return rc;
	if (provider)
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, day, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		*balanced =
		    sqlite3_column_int64(st, 0) > 0 && sqlite3_column_int(st, 1) && *open == 0;
	db_release(db, st);
	return 0;
}

int recon_day_state(struct db *db, const char *provider, struct recon_state *out)
{
	sqlite3_stmt *st;
	int rc;

	memset(out, 0, sizeof *out);
	rc = db_prepare_cached(
	    db,
	    "SELECT count(*), count(DISTINCT business_day) FROM reconciliation_diff"
	    " WHERE state = 'open' AND (?1 IS NULL OR provider_code = ?1)",
	    &st);
	if (rc)
		return rc;
	if (provider)
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		out->open = sqlite3_column_int64(st, 0);
		out->open_days = sqlite3_column_int64(st, 1);
	}
	db_release(db, st);
	rc = db_prepare_cached(
	    db,
	    "SELECT max(day) FROM (SELECT l.business_day AS day FROM"
	    " (SELECT max(id) AS id, business_day FROM reconciliation_batch"
	    "  WHERE ?1 IS NULL OR provider_code = ?1 GROUP BY provider_code, business_day) l"
	    " JOIN reconciliation_batch b ON b.id = l.id GROUP BY l.business_day"
	    " HAVING min(b.status = 'done') = 1) x"
	    " WHERE NOT EXISTS (SELECT 1 FROM reconciliation_diff d WHERE d.business_day = x.day"
	    "  AND d.state = 'open' AND (?1 IS NULL OR d.provider_code = ?1))",
	    &st);
	if (rc)
		return rc;
	if (provider)
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		dbrow_copy(st, 0, out->last_balanced, sizeof out->last_balanced);
	db_release(db, st);
	return 0;
}

int recon_days_open(struct db *db, const char *provider, const char *from_day, const char *to_day,
                    int (*cb)(const char *day, int64_t open, void *arg), void *arg)
{
	sqlite3_stmt *st;
	char day[11];
	int rc, step;

	rc =
	    db_prepare(db,
	               "SELECT business_day, count(*) FROM reconciliation_diff WHERE state = 'open'"
	               " AND business_day BETWEEN ?2 AND ?3 AND (?1 IS NULL OR provider_code = ?1)"
	               " GROUP BY business_day ORDER BY business_day",
	               &st);
	if (rc)
		return rc;
	if (provider)
		sqlite3_bind_text(st, 1, provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, from_day, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, to_day, -1, SQLITE_STATIC);
	rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		dbrow_copy(st, 0, day, sizeof day);
		rc = cb(day, sqlite3_column_int64(st, 1), arg);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("reading the days with open differences"));
	sqlite3_finalize(st);
	return rc;
}
