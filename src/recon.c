/*
 * recon.c - daily reconciliation against a payment channel's settlement
 * data (see recon.h for the rules): a run, which matches a day's card
 * payments and refunds to the channel's lines. What the run found is written
 * by recon-write.c; the reads, payouts, check and a day's state are
 * recon-read.c; a person's decisions and the parked events claimed are
 * recon-decide.c; what they share is recon-int.h.
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
#include "pipe-provider.h"
#include "recon-int.h"
#include "recon.h"
#include "settings.h"
#include "settle-file.h"
#include "xalloc.h"

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

int recon_lock_name(const char *provider, const char *day, char name[65])
{
	if (!provider || inbox_source_valid(provider) != 0)
		return err_set(FD_EINVAL, _("bad provider code '%s'"), provider ? provider : "");
	snprintf(name, 65, "recon.%s.%s", provider, day);
	return 0;
}

const char *recon_kind_name(enum chan_settle_kind k)
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

int recon_item_counts(const struct litem *it)
{
	return it->refund ? refund_state_of(it->status) == REFUND_SUCCEEDED
	                  : payment_state_of(it->status) != PAYMENT_VOID;
}

static enum chan_settle_kind settle_kind_of(const char *s)
{
	static const enum chan_settle_kind all[] = {CHAN_SETTLE_CHARGE, CHAN_SETTLE_REFUND,
	                                            CHAN_SETTLE_FEE, CHAN_SETTLE_PAYOUT,
	                                            CHAN_SETTLE_ADJUSTMENT};
	size_t i;

	for (i = 0; s && i < sizeof all / sizeof all[0]; i++)
		if (!strcmp(s, recon_kind_name(all[i])))
			return all[i];
	return CHAN_SETTLE_OTHER;
}

/* A line as the JSON kept with a difference (caller frees). */
char *recon_line_json(const struct chan_settle_line *l)
{
	cJSON *o = cJSON_CreateObject();
	char *s;

	cJSON_AddStringToObject(o, "id", l->id);
	cJSON_AddStringToObject(o, "type", l->type);
	cJSON_AddStringToObject(o, "kind", recon_kind_name(l->kind));
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
int recon_line_parse(const char *json, struct chan_settle_line *l)
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

void recon_sidx_free(struct sidx *x)
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

	if (!it->refund && payment_state_of(it->status) == PAYMENT_VOID) {
		d = diff_new(r, "status_mismatch");
		snprintf(d->detail, sizeof d->detail,
		         _("the channel charged (line %1$s), but our payment %2$lld is void"),
		         l->id, (long long)it->id);
	} else if (it->refund && refund_state_of(it->status) != REFUND_SUCCEEDED) {
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

/* Index our items by order id, order number and refund id; mark those of
 * the day. */
static void match_index(struct run *r)
{
	size_t i;

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
}

/* Line li found our item ii (>= 0): it is seen, and compared when either
 * is of the day; 1. No item: 1 when the line is not of the day either
 * (nothing to say), 0 when the caller must say what is missing. */
static int line_settled(struct run *r, size_t li, int ii, int in_day)
{
	if (ii >= 0) {
		r->it[ii].seen = 1;
		if (in_day || r->it[ii].in_day)
			compare(r, li, ii);
		return 1;
	}
	return !in_day;
}

/* Line li (a charge; in_day: of the day) against our payment, or a
 * channel_only difference. */
static void match_charge(struct run *r, size_t li, int in_day)
{
	const struct chan_settle_line *l = &r->lines[li];
	int ii = payment_of_line(r, l);
	struct ndiff *d;
	char a[MONEY_BUFSZ];

	if (line_settled(r, li, ii, in_day))
		return;
	d = diff_new(r, "channel_only");
	snprintf(d->key, sizeof d->key, "line:%s", l->id);
	d->line = l;
	amount_text(l->amount, l->currency, a);
	snprintf(d->detail, sizeof d->detail,
	         _("the channel received %1$s %2$s (line %3$s, order %4$s) "
	           "that we "
	           "never recorded"),
	         a, l->currency, l->id, *l->order_id ? l->order_id : "-");
}

/* Line li (a refund; in_day: of the day) against our refund, else a
 * status_mismatch of our payment it refunds, else a channel_only
 * difference. */
static void match_refund(struct run *r, size_t li, int in_day)
{
	const struct chan_settle_line *l = &r->lines[li];
	int ii = sidx_get(&r->by_refund, l->refund_id), pi = -1;
	struct ndiff *d;
	char a[MONEY_BUFSZ];

	if (ii < 0) {
		pi = payment_of_line(r, l);
		if (pi >= 0)
			ii = lookup_refund(r, r->it[pi].payment_id, l->refund_id);
	}
	if (line_settled(r, li, ii, in_day))
		return;
	amount_text(-l->amount, l->currency, a);
	if (pi >= 0) {
		d = diff_new(r, "status_mismatch");
		d->payment_id = r->it[pi].payment_id;
		snprintf(d->detail, sizeof d->detail,
		         _("the channel refunded %1$s %2$s of our payment "
		           "%3$lld "
		           "(refund %4$s), which we think paid"),
		         a, l->currency, (long long)d->payment_id, l->refund_id);
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

/* Our item it of the day that no line matched: a local_only difference. */
static void match_local_only(struct run *r, const struct litem *it)
{
	struct ndiff *d = diff_new(r, "local_only");
	char a[MONEY_BUFSZ];

	snprintf(d->key, sizeof d->key, "%s:%lld", it->refund ? "refund" : "payment",
	         (long long)it->id);
	d->payment_id = it->payment_id;
	d->refund_id = it->refund ? it->id : 0;
	d->has_local = 1;
	d->local_amount = it->amount;
	snprintf(d->local_currency, sizeof d->local_currency, "%s", it->currency);
	amount_text(it->amount, it->currency, a);
	snprintf(d->detail, sizeof d->detail,
	         it->refund ? _("we recorded refund %1$lld of %2$s %3$s, which the channel does "
	                        "not show")
	                    : _("we recorded card payment %1$lld of %2$s %3$s, which the channel "
	                        "does not show"),
	         (long long)it->id, a, it->currency);
}

int recon_match(struct run *r)
{
	size_t i;
	int rc;

	if ((rc = read_local(r, r->from - r->tol, r->to + r->tol)) != 0)
		return rc;
	match_index(r);
	for (i = 0; i < r->n; i++) {
		const struct chan_settle_line *l = &r->lines[i];
		int in_day = l->created >= r->from && l->created < r->to;

		if (in_day)
			r->res->lines++;
		if (l->kind == CHAN_SETTLE_CHARGE)
			match_charge(r, i, in_day);
		else if (l->kind == CHAN_SETTLE_REFUND)
			match_refund(r, i, in_day);
	}
	for (i = 0; i < r->nit; i++) {
		struct litem *it = &r->it[i];

		if (!it->in_day)
			continue;
		r->res->local++;
		if (it->seen || !recon_item_counts(it) || matched_before(r, it))
			continue;
		match_local_only(r, it);
	}
	return 0;
}
