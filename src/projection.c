/*
 * projection.c - computing, storing, checking and reading the calendar
 * projection (see projection.h for what a row says).
 *
 * Invariants:
 *  - A row is a pure function of the authoritative records at the moment of
 *    the transaction that computes it: projection_rebuild_in_tx reads and
 *    writes inside one write transaction, so two rebuilds of the same visit
 *    (two runners, a runner and `rebuild --all`) are serialized by SQLite and
 *    the later one recomputes from what the earlier one saw or newer. Nothing
 *    here adds to a stored value.
 *  - A row is written only when it differs from the stored one.
 *  - Rows are clustered by (start_at, appointment_id); every visit lasts at
 *    most 7 days (CHECK on appointment and on the projection).
 *
 * The range query (projection_range): a visit overlaps [from, to) when
 * start_at < to AND end_at > from. Only start_at is in the clustering key,
 * and "end_at > from" alone cannot bound a search on it. But end_at - start_at
 * <= D, where D is the longest stored visit, so an overlapping visit has
 * start_at = end_at - (end_at - start_at) > from - D. Hence
 *
 *     start_at >= from - D AND start_at < to AND end_at > from
 *
 * is one SEARCH of the primary key over [from - D, to): it visits the rows
 * that start in the range or at most D before it, whatever the size of the
 * table. D is read in the same statement from the index on end_at - start_at
 * (max() of an indexed expression is one step down the index), so it is
 * exact, never stale, and at most 7 days by the schema's CHECK. The test
 * suite asserts the plan (SEARCH ... USING PRIMARY KEY, no SCAN).
 *
 * Cost of a rebuild (a full one aims at 50,000 visits a second): one
 * statement reads the visit, its links, jobs, customers, prices and its
 * stored row (a full rebuild reads a whole batch with one range statement);
 * a job of several visits adds the query of its visits, and each job the
 * query of its invoices. Sorting of these few rows is done in C, and nothing
 * here uses "IN (list)" of more than two values, so SQLite builds no
 * temporary b-tree per visit. bench/run.sh measures it.
 *
 * Permissions: computing and rebuilding a row inside another action asks
 * nothing; a person's projection_rebuild and projection_rebuild_all ask
 * operations.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "job.h"
#include "money.h"
#include "projection.h"
#include "strbuf.h"
#include "visit.h"
#include "xalloc.h"

#define DEFAULT_BATCH    2000
#define BATCH_CACHE_KIB  65536 /* a full rebuild's page cache: a batch job's, not a desk's */
#define MIN_BATCH        50
#define BATCH_MS         20.0 /* the longest a batch of a full rebuild should take */
#define FIRST_BATCH      250  /* the first batch: the pages may not be in memory yet */
#define REBUILD_LOCK_TTL 60

/* (the columns fill_row reads, but for projection_version and built_at: the
 * calendar does not show them, and a week has thousands of rows to read) */
static const char range_sql[] =
    "SELECT appointment_id, start_at, end_at, customers, services, total_price, currency, "
    "est_minutes, payment_status, status "
    "FROM appointment_calendar_view "
    "WHERE start_at >= ?1 - coalesce((SELECT max(end_at - start_at) "
    "FROM appointment_calendar_view), 0) "
    "AND start_at < ?2 AND end_at > ?1 "
    "ORDER BY start_at, appointment_id";

/* The same range with only what a month cell shows of most visits (their
 * times, payment and visit status), and one visit's other columns by the
 * primary key, for the few a cell shows by name: a month of 12,000 visits
 * steps half as many columns (see projection_range_brief). NOT INDEXED:
 * one search of the clustering key, where the unique index on
 * appointment_id the planner prefers costs a second one. */
static const char brief_sql[] = "SELECT appointment_id, start_at, end_at, payment_status, status "
                                "FROM appointment_calendar_view "
                                "WHERE start_at >= ?1 - coalesce((SELECT max(end_at - start_at) "
                                "FROM appointment_calendar_view), 0) "
                                "AND start_at < ?2 AND end_at > ?1 "
                                "ORDER BY start_at, appointment_id";
static const char brief_rest_sql[] =
    "SELECT customers, services, total_price, currency, est_minutes "
    "FROM appointment_calendar_view NOT INDEXED WHERE start_at = ?1 AND appointment_id = ?2";

const char *projection_range_sql(void)
{
	return range_sql;
}

const char *projection_range_brief_sql(int rest)
{
	return rest ? brief_rest_sql : brief_sql;
}

/* ---------------------------------------------------------------- spread */

int projection_spread(int64_t amount, const int64_t *weights, size_t n, int64_t *shares)
{
	unsigned __int128 mag, wsum = 0, given = 0, left;
	size_t i;
	int equal;

	if (n == 0)
		return err_set(FD_EINVAL, _("nothing to spread the amount over"));
	for (i = 0; i < n; i++) {
		if (weights[i] < 0)
			return err_set(FD_EINVAL, _("a weight is negative"));
		wsum += (unsigned __int128)weights[i];
	}
	equal = wsum == 0;
	if (equal)
		wsum = n;
	/* |amount| without overflow for INT64_MIN */
	mag = amount < 0 ? (unsigned __int128)(-(amount + 1)) + 1 : (unsigned __int128)amount;
	for (i = 0; i < n; i++) {
		unsigned __int128 w = equal ? 1 : (unsigned __int128)weights[i];
		unsigned __int128 part = mag * w / wsum; /* mag < 2^64, w < 2^63: fits */

		shares[i] = (int64_t)part; /* part <= mag: fits after the sign below */
		given += part;
	}
	/* each non-zero part lost less than one unit, so left < non-zero parts */
	left = mag - given;
	for (i = 0; i < n && left > 0; i++) {
		if (!equal && weights[i] == 0)
			continue;
		shares[i]++;
		left--;
	}
	if (amount < 0)
		for (i = 0; i < n; i++)
			shares[i] = -shares[i];
	return 0;
}

/* ---------------------------------------------------------------- statements */

enum { S_LINKS, S_RANGE, S_VISITS, S_BILLS, S_REFUNDED, S_GET, S_PUT, S_DEL, S_UNQUEUE, S_N };

/* The columns of a stored row in the order fill_row reads them. */
#define VIEW_COLS(t)                                                                               \
	t "appointment_id, " t "start_at, " t "end_at, " t "customers, " t "services, " t          \
	  "total_price, " t "currency, " t "est_minutes, " t "payment_status, " t "status, " t     \
	  "projection_version, " t "built_at"
#define LINKS_VIEW 13 /* where VIEW_COLS starts in S_LINKS */
#define LINKS_ID   25 /* the visit's id in S_LINKS */
/* clang-format off */
#define LINKS_SELECT \
	"SELECT a.start_at, a.end_at, a.status, w.id, w.service_order_id, " \
	"w.est_minutes, s.title, s.status, s.currency, s.customer_id, c.name, " \
	"(SELECT coalesce(sum(amount), 0) FROM line_item WHERE service_order_id = s.id), " \
	"(SELECT count(*) FROM appointment_work x WHERE x.service_order_id = s.id), " \
	VIEW_COLS("v.") ", a.id FROM appointment a " \
	"LEFT JOIN appointment_work w ON w.appointment_id = a.id " \
	"LEFT JOIN service_order s ON s.id = w.service_order_id " \
	"LEFT JOIN customer c ON c.id = s.customer_id " \
	"LEFT JOIN appointment_calendar_view v ON v.appointment_id = a.id "
/* clang-format on */

/* clang-format off */
static const char *const sqls[S_N] = {
	/* the visit; for each of its links the job, its customer, its price and
	 * its number of visits (in link order once sorted in C); the row stored
	 * for it now (columns 13..24, NULL if none); its id (25). One row with
	 * NULL links when the visit has no job; no row when there is no such
	 * visit. */
	[S_LINKS] = LINKS_SELECT "WHERE a.id = ?",
	/* the same for the visits of ids in (?1, ?2], by id: a full rebuild reads
	 * a whole batch with one statement */
	[S_RANGE] = LINKS_SELECT "WHERE a.id > ?1 AND a.id <= ?2 ORDER BY a.id",
	/* (sorted in C: no sorter to build for a handful of rows) */
	[S_VISITS] = "SELECT w.appointment_id, w.est_minutes, a.start_at FROM appointment_work w "
		"JOIN appointment a ON a.id = w.appointment_id "
		"WHERE w.service_order_id = ? AND a.status NOT IN ('cancelled', 'no_show')",
	/* the lines of issued invoices that bill job ?1, with their invoice's
	 * figures (an invoice shows once per line: job_pay counts it once) */
	[S_BILLS] = "SELECT i.id, i.status, i.total - i.credited, i.paid, il.amount "
		"FROM line_item li JOIN invoice_line il ON il.line_item_id = li.id "
		"JOIN invoice i ON i.id = il.invoice_id "
		"WHERE li.service_order_id = ? AND i.kind = 'invoice' AND i.status <> 'draft'",
	/* was a payment ever allocated to invoice ?1 refunded (a refund that did not fail)? */
	[S_REFUNDED] = "SELECT EXISTS (SELECT 1 FROM payment_allocation a "
		"JOIN refund r ON r.payment_id = a.payment_id "
		"WHERE a.invoice_id = ? AND r.status <> 'failed')",
	[S_GET] = "SELECT " VIEW_COLS("")
		" FROM appointment_calendar_view WHERE appointment_id = ?",
	[S_PUT] = "INSERT OR REPLACE INTO appointment_calendar_view (start_at, appointment_id, "
		"end_at, customers, services, total_price, currency, est_minutes, "
		"payment_status, status, projection_version, built_at) "
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[S_DEL] = "DELETE FROM appointment_calendar_view WHERE appointment_id = ?",
	[S_UNQUEUE] = "DELETE FROM task WHERE kind = '" PROJECTION_TASK_KIND "' AND key = ? "
		"AND status = 'pending'",
};
/* clang-format on */

/* One visit of a job, or one link of a visit. */
struct pvisit {
	int64_t id;     /* appointment id */
	int64_t weight; /* estimated minutes */
	int64_t start;  /* start_at */
};

struct link_row {
	int64_t link_id, job_id, minutes, customer_id, price;
	int64_t nvisits; /* links of the job, this one included */
	char *title, *customer;
	char status[16], currency[4]; /* the job's */
};

/* Prepared statements and scratch space kept for the length of one
 * operation (a rebuild, a full rebuild, a check). */
struct pctx {
	struct db *db;
	sqlite3_stmt *st[S_N];
	struct pvisit *visits; /* the visits of one job */
	int64_t *weights, *shares;
	size_t cap;
	int64_t *invoices; /* the invoices seen for one job */
	size_t ninv, capinv;
	struct link_row *links; /* the links of one visit */
	size_t nlinks, caplinks;
	int in_range; /* a full rebuild: S_RANGE is stepped, positioned at range_step */
	int range_step;
};

static int stmt(struct pctx *p, int which, sqlite3_stmt **out)
{
	int rc;

	if (!p->st[which] && (rc = db_prepare(p->db, sqls[which], &p->st[which])))
		return rc;
	sqlite3_reset(p->st[which]);
	sqlite3_clear_bindings(p->st[which]);
	*out = p->st[which];
	return 0;
}

static void free_links(struct pctx *p)
{
	size_t i;

	for (i = 0; i < p->nlinks; i++) {
		free(p->links[i].title);
		free(p->links[i].customer);
	}
	p->nlinks = 0;
}

static void pctx_free(struct pctx *p)
{
	int i;

	for (i = 0; i < S_N; i++)
		sqlite3_finalize(p->st[i]);
	free_links(p);
	free(p->links);
	free(p->visits);
	free(p->weights);
	free(p->shares);
	free(p->invoices);
	memset(p, 0, sizeof *p);
}

void cal_row_free(struct cal_row *r)
{
	free(r->customers);
	free(r->services);
	memset(r, 0, sizeof *r);
}

/* Copy s (NULL: "") into buf of size n, cut if need be: the short fields
 * (statuses, currency codes) are copied for every row, where snprintf would
 * cost more than the query. */
static void copy_field(char *buf, size_t n, const char *s)
{
	size_t len = s ? strlen(s) : 0;

	if (len >= n)
		len = n - 1;
	if (len)
		memcpy(buf, s, len);
	buf[len] = '\0';
}

/* ---------------------------------------------------------------- computing */

/* What the links of one visit add up to while they are read. */
struct acc {
	int64_t *customers; /* distinct customer ids, in link order */
	size_t ncust, capcust;
	char *first_name;
	struct strbuf services;
	int nservices, services_cut;
	int64_t minutes;
	int has_currency, mixed;
	char currency[4];
	int64_t total;
	unsigned pay; /* bit (1 << enum pay) for the status of each job that counts */
};

static void acc_free(struct acc *a)
{
	free(a->customers);
	free(a->first_name);
	sb_free(&a->services);
}

static void add_customer(struct acc *a, int64_t id, const char *name)
{
	size_t i;

	for (i = 0; i < a->ncust; i++)
		if (a->customers[i] == id)
			return;
	if (a->ncust == a->capcust) {
		a->capcust = a->capcust ? 2 * a->capcust : 4;
		a->customers = xrealloc(a->customers, a->capcust * sizeof *a->customers);
	}
	a->customers[a->ncust++] = id;
	if (!a->first_name)
		a->first_name = xstrdup(name ? name : "");
}

static void add_service(struct acc *a, const char *title)
{
	size_t n = strlen(title);

	if (!a->services_cut &&
	    a->services.len + (a->nservices ? 2 : 0) + n <= PROJECTION_SERVICES_MAX) {
		if (a->nservices)
			sb_puts(&a->services, ", ");
		sb_puts(&a->services, title);
		a->nservices++;
	} else {
		a->services_cut++;
	}
}

static int by_start(const void *x, const void *y)
{
	const struct pvisit *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/*
 * *share = visit appt_id's part of the price of job_id (see projection.h):
 * price spread over the job's visits that are not cancelled or no-show.
 */
static int job_share(struct pctx *p, int64_t job_id, int64_t price, int64_t appt_id, int64_t *share)
{
	sqlite3_stmt *st;
	size_t n = 0, i;
	int rc, step;

	*share = 0;
	if (price == 0)
		return 0;
	if ((rc = stmt(p, S_VISITS, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, job_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 16;
			p->visits = xrealloc(p->visits, p->cap * sizeof *p->visits);
			p->weights = xrealloc(p->weights, p->cap * sizeof *p->weights);
			p->shares = xrealloc(p->shares, p->cap * sizeof *p->shares);
		}
		p->visits[n].id = sqlite3_column_int64(st, 0);
		p->visits[n].weight = sqlite3_column_int64(st, 1);
		p->visits[n].start = sqlite3_column_int64(st, 2);
		n++;
	}
	sqlite3_reset(st);
	if (step != SQLITE_DONE)
		return db_fail(p->db, _("cannot read the visits of a job"));
	if (n == 0)
		return 0;
	if (n > 1)
		qsort(p->visits, n, sizeof *p->visits, by_start); /* earliest first */
	for (i = 0; i < n; i++)
		p->weights[i] = p->visits[i].weight;
	if ((rc = projection_spread(price, p->weights, n, p->shares)))
		return rc;
	for (i = 0; i < n; i++)
		if (p->visits[i].id == appt_id)
			*share = p->shares[i];
	return 0;
}

/*
 * Payment status. First each job that counts for the visit (not cancelled,
 * on a visit that is not cancelled or no-show) gets one, from the issued
 * invoices (kind invoice, not draft) that bill any of its line items:
 *   no such invoice:        unpaid if the job has a price, else nothing
 *   all of them void:       void
 *   nothing paid on them:   unpaid while they ask for money; once nothing
 *                           is asked (credit notes took off everything),
 *                           refunded if a payment that was allocated to one
 *                           of them was refunded, else void
 *   paid < total - credited over the invoices that are not void:
 *                           partially_paid
 *   fully paid, but part of the job's price is on no invoice yet:
 *                           partially_paid
 *   paid more than asked:   overpaid
 *   else:                   paid
 * A job that does not count for the visit (cancelled, or the visit is
 * cancelled or a no-show) adds nothing to its price, but while its invoices
 * still ask for money it marks the visit unpaid or partially paid: a visit
 * whose invoice owes money never shows "nothing to charge" or "refunded".
 * Then the visit combines its jobs (ignoring "nothing"): none left gives
 * nothing_to_charge; all alike gives that status; paid with overpaid gives
 * overpaid; any other mix that has something paid gives partially_paid; else
 * unpaid if any job is unpaid, refunded if any is refunded, else void.
 */
enum pay { PAY_NOTHING, PAY_UNPAID, PAY_PARTIAL, PAY_PAID, PAY_OVERPAID, PAY_REFUNDED, PAY_VOID };

static const char *const pay_names[] = {
    [PAY_NOTHING] = "nothing_to_charge",
    [PAY_UNPAID] = "unpaid",
    [PAY_PARTIAL] = "partially_paid",
    [PAY_PAID] = "paid",
    [PAY_OVERPAID] = "overpaid",
    [PAY_REFUNDED] = "refunded",
    [PAY_VOID] = "void",
};

/* 1 if invoice id is in p->invoices already, else add it and return 0. */
static int seen_invoice(struct pctx *p, int64_t id)
{
	size_t i;

	for (i = 0; i < p->ninv; i++)
		if (p->invoices[i] == id)
			return 1;
	if (p->ninv == p->capinv) {
		p->capinv = p->capinv ? 2 * p->capinv : 8;
		p->invoices = xrealloc(p->invoices, p->capinv * sizeof *p->invoices);
	}
	p->invoices[p->ninv++] = id;
	return 0;
}

/* What the issued invoices of a job add up to (job_bills). */
struct job_bills {
	int64_t n;      /* distinct invoices, void ones too */
	int64_t live;   /* distinct invoices not void */
	int64_t asked;  /* what those ask for */
	int64_t paid;   /* what was paid on them */
	int64_t billed; /* the job's lines billed on invoices not void */
};

/* Read the job's invoices into b, and their distinct ids into p->invoices
 * (a void one as -id). */
static int job_bills(struct pctx *p, int64_t job_id, struct job_bills *b)
{
	sqlite3_stmt *st;
	int rc = 0, step;

	p->ninv = 0;
	if ((rc = stmt(p, S_BILLS, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, job_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		int is_void = !strcmp((const char *)sqlite3_column_text(st, 1), "void");

		if (is_void) {
			if (!seen_invoice(p, -id)) /* void ones kept as -id */
				b->n++;
			continue;
		}
		if ((rc = money_add(b->billed, sqlite3_column_int64(st, 4), &b->billed)))
			break;
		if (seen_invoice(p, id))
			continue;
		b->n++;
		b->live++;
		if ((rc = money_add(b->asked, sqlite3_column_int64(st, 2), &b->asked)) ||
		    (rc = money_add(b->paid, sqlite3_column_int64(st, 3), &b->paid)))
			break;
	}
	sqlite3_reset(st);
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(p->db, _("cannot read the invoices of a job"));
	return rc;
}

/* Rare: *refunded non-zero when a payment once allocated to one of the
 * invoices in p->invoices (not void) was refunded. */
static int job_refunded(struct pctx *p, int64_t *refunded)
{
	sqlite3_stmt *st;
	size_t i;
	int rc;

	for (i = 0; i < p->ninv && !*refunded; i++) {
		if (p->invoices[i] < 0)
			continue;
		if ((rc = stmt(p, S_REFUNDED, &st)))
			return rc;
		sqlite3_bind_int64(st, 1, p->invoices[i]);
		if (sqlite3_step(st) != SQLITE_ROW) {
			rc = db_fail(p->db, _("cannot read the refunds of a job"));
			sqlite3_reset(st);
			return rc;
		}
		*refunded = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
	}
	return 0;
}

/* The payment status of a job of price, from its invoices b. */
static enum pay job_pay_of(const struct job_bills *b, int64_t price, int64_t refunded)
{
	if (b->n == 0)
		return price != 0 ? PAY_UNPAID : PAY_NOTHING;
	if (b->live == 0)
		return PAY_VOID;
	if (b->paid == 0)
		/* an invoice that still asks for money is unpaid, whatever was
		 * refunded before: "refunded" only once nothing is owed */
		return b->asked > 0 ? PAY_UNPAID : refunded ? PAY_REFUNDED : PAY_VOID;
	if (b->paid < b->asked || b->billed < price)
		return PAY_PARTIAL;
	if (b->paid > b->asked)
		return PAY_OVERPAID;
	return PAY_PAID;
}

static int job_pay(struct pctx *p, int64_t job_id, int64_t price, enum pay *out)
{
	struct job_bills b = {0};
	int64_t refunded = 0;
	int rc;

	if ((rc = job_bills(p, job_id, &b)))
		return rc;
	if (b.live > 0 && b.paid == 0 && (rc = job_refunded(p, &refunded)))
		return rc;
	*out = job_pay_of(&b, price, refunded);
	return 0;
}

static const char *visit_pay(unsigned mask)
{
	const unsigned paidish = 1u << PAY_PARTIAL | 1u << PAY_PAID | 1u << PAY_OVERPAID;
	int i;

	mask &= ~(1u << PAY_NOTHING);
	if (mask == 0)
		return pay_names[PAY_NOTHING];
	for (i = PAY_UNPAID; i <= PAY_VOID; i++)
		if (mask == 1u << i)
			return pay_names[i];
	if (mask == (1u << PAY_PAID | 1u << PAY_OVERPAID))
		return pay_names[PAY_OVERPAID];
	if (mask & paidish)
		return pay_names[PAY_PARTIAL];
	if (mask & 1u << PAY_UNPAID)
		return pay_names[PAY_UNPAID];
	if (mask & 1u << PAY_REFUNDED)
		return pay_names[PAY_REFUNDED];
	return pay_names[PAY_VOID];
}

static int by_link(const void *x, const void *y)
{
	const struct link_row *a = x, *b = y;

	return a->link_id < b->link_id ? -1 : a->link_id > b->link_id;
}

/* Fill r from the view's columns (VIEW_COLS) of st, starting at column o.
 * With copy, the text is copied (free with cal_row_free); without, it points
 * into st (valid until the next step). */
static void fill_row(sqlite3_stmt *st, int o, struct cal_row *r, int copy)
{
	const char *cust = (const char *)sqlite3_column_text(st, o + 3);
	const char *serv = (const char *)sqlite3_column_text(st, o + 4);

	r->appointment_id = sqlite3_column_int64(st, o);
	r->start_at = sqlite3_column_int64(st, o + 1);
	r->end_at = sqlite3_column_int64(st, o + 2);
	r->customers = copy ? xstrdup(cust ? cust : "") : (char *)(cust ? cust : "");
	r->services = copy ? xstrdup(serv ? serv : "") : (char *)(serv ? serv : "");
	r->has_total = sqlite3_column_type(st, o + 5) != SQLITE_NULL;
	r->total = sqlite3_column_int64(st, o + 5);
	copy_field(r->currency, sizeof r->currency, (const char *)sqlite3_column_text(st, o + 6));
	r->est_minutes = sqlite3_column_int64(st, o + 7);
	copy_field(r->pay_status, sizeof r->pay_status,
	           (const char *)sqlite3_column_text(st, o + 8));
	copy_field(r->status, sizeof r->status, (const char *)sqlite3_column_text(st, o + 9));
	if (sqlite3_column_count(st) > o + 11) {
		r->version = sqlite3_column_int(st, o + 10);
		r->built_at = sqlite3_column_int64(st, o + 11);
	} else {
		r->version = 0; /* projection_range: not read */
		r->built_at = 0;
	}
}

/* Read visit appt_id into out (times, status), its links into p->links in
 * the order they were made and, with old, its stored row into *old (*has_old
 * says whether there is one; free it with cal_row_free). FD_ENOTFOUND when
 * there is no such visit. */
static int read_visit(struct pctx *p, int64_t appt_id, struct cal_row *out, struct cal_row *old,
                      int *has_old)
{
	sqlite3_stmt *st;
	int rc = 0, step, found = 0;

	if (has_old)
		*has_old = 0;
	free_links(p);
	if (p->in_range) {
		/* the rows of this visit are next in S_RANGE, which is at step */
		st = p->st[S_RANGE];
		step = p->range_step;
	} else {
		if ((rc = stmt(p, S_LINKS, &st)))
			return rc;
		sqlite3_bind_int64(st, 1, appt_id);
		step = sqlite3_step(st);
	}
	for (; step == SQLITE_ROW; step = sqlite3_step(st)) {
		struct link_row *l;
		const char *status = (const char *)sqlite3_column_text(st, 7);
		const char *cur = (const char *)sqlite3_column_text(st, 8);

		if (sqlite3_column_int64(st, LINKS_ID) != appt_id)
			break; /* the next visit of the range */
		if (!found++) {
			out->appointment_id = appt_id;
			out->start_at = sqlite3_column_int64(st, 0);
			out->end_at = sqlite3_column_int64(st, 1);
			copy_field(out->status, sizeof out->status,
			           (const char *)sqlite3_column_text(st, 2));
			if (old && sqlite3_column_type(st, LINKS_VIEW) != SQLITE_NULL) {
				fill_row(st, LINKS_VIEW, old, 1);
				*has_old = 1;
			}
		}
		if (sqlite3_column_type(st, 3) == SQLITE_NULL)
			continue; /* no job */
		if (p->nlinks == p->caplinks) {
			p->caplinks = p->caplinks ? 2 * p->caplinks : 4;
			p->links = xrealloc(p->links, p->caplinks * sizeof *p->links);
		}
		l = &p->links[p->nlinks++];
		l->link_id = sqlite3_column_int64(st, 3);
		l->job_id = sqlite3_column_int64(st, 4);
		l->minutes = sqlite3_column_int64(st, 5);
		l->title = xstrdup((const char *)sqlite3_column_text(st, 6));
		copy_field(l->status, sizeof l->status, status);
		copy_field(l->currency, sizeof l->currency, cur);
		l->customer_id = sqlite3_column_int64(st, 9);
		l->customer = xstrdup((const char *)sqlite3_column_text(st, 10));
		l->price = sqlite3_column_int64(st, 11);
		l->nvisits = sqlite3_column_int64(st, 12);
	}
	if (step != SQLITE_DONE && step != SQLITE_ROW) {
		/* sum() stops with "integer overflow" rather than wrap */
		rc = db_fail(p->db, _("cannot read the visit"));
		if (rc == FD_EDB && strstr(err_msg(), "overflow"))
			rc = err_set(FD_EINVAL,
			             _("the price of a job of visit %lld does not fit in 64 bits"),
			             (long long)appt_id);
	} else if (!found) {
		rc = err_set(FD_ENOTFOUND, _("there is no visit %lld"), (long long)appt_id);
	}
	if (p->in_range)
		p->range_step = step;
	else
		sqlite3_reset(st);
	if (rc) {
		if (old && *has_old) {
			cal_row_free(old);
			*has_old = 0;
		}
		return rc;
	}
	if (p->nlinks > 1)
		qsort(p->links, p->nlinks, sizeof *p->links, by_link);
	return 0;
}

/* Add link l of visit appt_id to a: its minutes, customer and service,
 * and, when it counts (the visit and its job are not cancelled), its
 * share of the price and its payment status; a job that does not count
 * adds only money it still owes. */
static int compute_link(struct pctx *p, struct acc *a, const struct link_row *l, int counts,
                        int64_t appt_id)
{
	int64_t share = 0;
	enum pay pay = PAY_NOTHING;
	int rc;

	if ((rc = money_add(a->minutes, l->minutes, &a->minutes)))
		return rc;
	add_customer(a, l->customer_id, l->customer);
	add_service(a, l->title);
	if (!counts || job_state_of(l->status) == JOB_CANCELLED) {
		/* no price here, but money it still owes shows */
		if ((rc = job_pay(p, l->job_id, 0, &pay)))
			return rc;
		if (pay == PAY_UNPAID || pay == PAY_PARTIAL)
			a->pay |= 1u << pay;
		return 0;
	}
	if (l->nvisits == 1) /* this visit alone: the whole price */
		share = l->price;
	else if ((rc = job_share(p, l->job_id, l->price, appt_id, &share)))
		return rc;
	if ((rc = job_pay(p, l->job_id, l->price, &pay)))
		return rc;
	a->pay |= 1u << pay;
	if (!a->has_currency) {
		a->has_currency = 1;
		copy_field(a->currency, sizeof a->currency, l->currency);
	} else if (strcmp(a->currency, l->currency) != 0) {
		a->mixed = 1;
	}
	if (!a->mixed && (rc = money_add(a->total, share, &a->total)))
		return rc;
	return 0;
}

/* The visit's row from what its links added up to. */
static void compute_fill(struct acc *a, struct cal_row *out)
{
	if (a->ncust == 0)
		out->customers = xstrdup("");
	else if (a->ncust == 1)
		out->customers = xstrdup(a->first_name);
	else {
		struct strbuf sb = {0};

		sb_printf(&sb, "%s +%zu", a->first_name, a->ncust - 1);
		out->customers = sb_steal(&sb);
	}
	if (a->services_cut)
		sb_printf(&a->services, a->nservices ? " +%d" : "+%d", a->services_cut);
	out->services = xstrdup(sb_cstr(&a->services));
	out->est_minutes = a->minutes;
	out->has_total = !a->mixed;
	out->total = a->mixed ? 0 : a->total;
	if (a->has_currency && !a->mixed)
		copy_field(out->currency, sizeof out->currency, a->currency);
	copy_field(out->pay_status, sizeof out->pay_status, visit_pay(a->pay));
	out->version = PROJECTION_VERSION;
}

/* The row visit appt_id should have (*out) and, with old, the row it has
 * (see read_visit). */
static int compute(struct pctx *p, int64_t appt_id, struct cal_row *out, struct cal_row *old,
                   int *has_old)
{
	struct acc a;
	int rc = 0, counts;
	size_t i;

	memset(out, 0, sizeof *out);
	memset(&a, 0, sizeof a);
	if ((rc = read_visit(p, appt_id, out, old, has_old)))
		return rc;
	counts = !visit_is_off(out->status);
	for (i = 0; i < p->nlinks && !rc; i++)
		rc = compute_link(p, &a, &p->links[i], counts, appt_id);
	if (!rc)
		compute_fill(&a, out);
	acc_free(&a);
	if (rc) {
		cal_row_free(out);
		if (old && *has_old) {
			cal_row_free(old);
			*has_old = 0;
		}
	}
	return rc;
}

int projection_compute(struct db *db, int64_t appt_id, struct cal_row *out)
{
	struct pctx p = {.db = db};
	int rc = compute(&p, appt_id, out, NULL, NULL);

	pctx_free(&p);
	return rc;
}

/* ---------------------------------------------------------------- stored rows */

static int get_row(struct pctx *p, int64_t appt_id, struct cal_row *out)
{
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	if ((rc = stmt(p, S_GET, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, appt_id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		fill_row(st, 0, out, 1);
	else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, _("visit %lld has no calendar row"), (long long)appt_id);
	else
		rc = db_fail(p->db, _("cannot read the calendar"));
	sqlite3_reset(st);
	return rc;
}

int projection_get(struct db *db, int64_t appt_id, struct cal_row *out)
{
	struct pctx p = {.db = db};
	int rc = get_row(&p, appt_id, out);

	pctx_free(&p);
	return rc;
}

/* The names of the columns in which a and b differ (built_at aside), written
 * to sb; 0 when they are the same row. */
static int row_diff(const struct cal_row *a, const struct cal_row *b, struct strbuf *sb)
{
	int n = 0;

#define DIFF(cond, name)                                                                           \
	do {                                                                                       \
		if (cond) {                                                                        \
			if (sb)                                                                    \
				sb_printf(sb, "%s%s", n ? "," : "", name);                         \
			n++;                                                                       \
		}                                                                                  \
	} while (0)
	DIFF(a->start_at != b->start_at, "start_at");
	DIFF(a->end_at != b->end_at, "end_at");
	DIFF(strcmp(a->customers, b->customers) != 0, "customers");
	DIFF(strcmp(a->services, b->services) != 0, "services");
	DIFF(a->has_total != b->has_total || a->total != b->total, "total_price");
	DIFF(strcmp(a->currency, b->currency) != 0, "currency");
	DIFF(a->est_minutes != b->est_minutes, "est_minutes");
	DIFF(strcmp(a->pay_status, b->pay_status) != 0, "payment_status");
	DIFF(strcmp(a->status, b->status) != 0, "status");
	DIFF(a->version != b->version, "projection_version");
#undef DIFF
	return n;
}

/* Write r, replacing the visit's row if it has one. */
static int put_row(struct pctx *p, const struct cal_row *r)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = stmt(p, S_PUT, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, r->start_at);
	sqlite3_bind_int64(st, 2, r->appointment_id);
	sqlite3_bind_int64(st, 3, r->end_at);
	sqlite3_bind_text(st, 4, r->customers, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, r->services, -1, SQLITE_STATIC);
	if (r->has_total)
		sqlite3_bind_int64(st, 6, r->total);
	if (r->currency[0])
		sqlite3_bind_text(st, 7, r->currency, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, r->est_minutes);
	sqlite3_bind_text(st, 9, r->pay_status, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 10, r->status, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 11, r->version);
	sqlite3_bind_int64(st, 12, control_now());
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(p->db, _("cannot write the calendar"));
	sqlite3_reset(st);
	sqlite3_clear_bindings(st); /* the text was bound without a copy */
	return rc;
}

static int del_row(struct pctx *p, int64_t appt_id, int *changed)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = stmt(p, S_DEL, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, appt_id);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(p->db, _("cannot write the calendar"));
	*changed = sqlite3_changes(db_sqlite(p->db)) > 0;
	sqlite3_reset(st);
	return rc;
}

static int rebuild(struct pctx *p, int64_t appt_id, int *changed)
{
	struct cal_row fresh, old;
	int rc, ch = 0, has_old = 0;

	rc = compute(p, appt_id, &fresh, &old, &has_old);
	if (rc == FD_ENOTFOUND) {
		err_clear();
		rc = del_row(p, appt_id, &ch);
		goto out;
	}
	if (rc)
		return rc;
	if (!has_old || row_diff(&fresh, &old, NULL) != 0) {
		rc = put_row(p, &fresh);
		ch = rc == 0;
	}
	if (has_old)
		cal_row_free(&old);
	cal_row_free(&fresh);
out:
	if (changed)
		*changed = ch;
	return rc;
}

int projection_rebuild_in_tx(struct db *db, int64_t appt_id, int *changed)
{
	struct pctx p = {.db = db};
	int rc = rebuild(&p, appt_id, changed);

	pctx_free(&p);
	return rc;
}

struct one_ctx {
	int64_t id;
	int *changed;
};

static int rebuild_tx(struct db *db, void *arg)
{
	struct one_ctx *o = arg;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "rebuild the calendar row of visit %lld",
	         (long long)o->id);
	if ((rc = control_require(db, PERM_OPERATIONS, 0, subject)))
		return rc;
	return projection_rebuild_in_tx(db, o->id, o->changed);
}

int projection_rebuild(struct db *db, int64_t appt_id, int *changed)
{
	struct one_ctx o = {appt_id, changed};

	return db_write(db, rebuild_tx, &o);
}

static int parse_key(const char *key, int64_t *id)
{
	char *end;
	long long v;

	if (!key || !*key)
		goto bad;
	v = strtoll(key, &end, 10);
	if (*end || v <= 0 || key[0] == '+' || key[0] == ' ')
		goto bad;
	*id = v;
	return 0;
bad:
	return err_set(FD_EINVAL, _("'%.40s' is not a visit id"), key ? key : "");
}

int projection_task(struct db *db, const char *key)
{
	int64_t id = 0;
	int rc;

	if ((rc = parse_key(key, &id)))
		return rc;
	return projection_rebuild_in_tx(db, id, NULL);
}

/* ---------------------------------------------------------------- all rows */

/* The ids of the visits after `after`, at most max of them, into ids[]. */
static int next_ids(struct db *db, int64_t after, int64_t *ids, int max, int *n)
{
	sqlite3_stmt *st;
	int rc, step;

	*n = 0;
	if ((rc = db_prepare(db, "SELECT id FROM appointment WHERE id > ? ORDER BY id LIMIT ?",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, after);
	sqlite3_bind_int(st, 2, max);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		ids[(*n)++] = sqlite3_column_int64(st, 0);
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list the visits"));
	sqlite3_finalize(st);
	return rc;
}

/* Rows in (lo, hi] whose visit no longer exists: with cb, report each;
 * without, delete them. */
static int orphans(struct db *db, int64_t lo, int64_t hi, int (*cb)(int64_t id, void *arg),
                   void *arg)
{
	static const char q[] = "SELECT appointment_id FROM appointment_calendar_view v "
	                        "WHERE appointment_id > ?1 AND appointment_id <= ?2 "
	                        "AND NOT EXISTS (SELECT 1 FROM appointment a "
	                        "WHERE a.id = v.appointment_id)";
	static const char d[] = "DELETE FROM appointment_calendar_view "
	                        "WHERE appointment_id > ?1 AND appointment_id <= ?2 "
	                        "AND NOT EXISTS (SELECT 1 FROM appointment a "
	                        "WHERE a.id = appointment_calendar_view.appointment_id)";
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare(db, cb ? q : d, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		if ((rc = cb(sqlite3_column_int64(st, 0), arg)))
			break;
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the calendar"));
	sqlite3_finalize(st);
	return rc;
}

/* *n = the number of rows of visits with ids in (lo, hi] (an index range). */
static int count_rows(struct db *db, int64_t lo, int64_t hi, int64_t *n)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare(db,
	                     "SELECT count(*) FROM appointment_calendar_view "
	                     "WHERE appointment_id > ? AND appointment_id <= ?",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	if (sqlite3_step(st) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, _("cannot read the calendar"));
	sqlite3_finalize(st);
	return rc;
}

/* Delete the pending calendar task of visit id: this transaction's rebuild
 * covers every change committed before it. */
static int unqueue(struct pctx *p, int64_t id)
{
	sqlite3_stmt *st;
	char key[24];
	int rc;

	if ((rc = stmt(p, S_UNQUEUE, &st)))
		return rc;
	snprintf(key, sizeof key, "%lld", (long long)id);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	rc =
	    sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(p->db, _("cannot update the task queue"));
	sqlite3_reset(st);
	return rc;
}

/* A visit's fresh and stored rows in a batch of a full rebuild. */
struct batch_row {
	struct cal_row fresh, old;
	int rc, has_old; /* rc: 0, or FD_ENOTFOUND when the visit is gone */
};

/* Step S_RANGE over the visits in (lo, hi]: compute() then reads each
 * visit's rows from it in id order (in_range) instead of one statement per
 * visit. range_close() ends it. */
static int range_open(struct pctx *p, int64_t lo, int64_t hi, sqlite3_stmt **st)
{
	int rc;

	if ((rc = stmt(p, S_RANGE, st)))
		return rc;
	sqlite3_bind_int64(*st, 1, lo);
	sqlite3_bind_int64(*st, 2, hi);
	p->in_range = 1;
	p->range_step = sqlite3_step(*st);
	return 0;
}

static void range_close(struct pctx *p, sqlite3_stmt *st)
{
	p->in_range = 0;
	sqlite3_reset(st);
}

/*
 * One batch of a full rebuild, inside its write transaction: read the visits
 * ids[0..n) (all those in (lo, ids[n-1]]) with ONE range statement, then
 * write the rows that changed and drop their pending calendar tasks (queued:
 * there may be some). Reading first and writing after keeps the range
 * statement from reading rows this batch has written.
 */
static int rebuild_batch(struct pctx *p, const int64_t *ids, int n, int64_t lo,
                         struct batch_row *rows, int queued)
{
	sqlite3_stmt *st;
	int rc, i, m, ch;

	if (n == 0)
		return 0;
	if ((rc = range_open(p, lo, ids[n - 1], &st)))
		return rc;
	for (m = 0; m < n && !rc; m++) {
		struct batch_row *b = &rows[m];

		b->rc = compute(p, ids[m], &b->fresh, &b->old, &b->has_old);
		if (b->rc == FD_ENOTFOUND)
			err_clear();
		else
			rc = b->rc;
	}
	range_close(p, st);
	for (i = 0; i < m; i++) {
		struct batch_row *b = &rows[i];

		if (b->rc && b->rc != FD_ENOTFOUND)
			continue; /* compute freed it */
		if (!rc && b->rc == FD_ENOTFOUND)
			rc = del_row(p, ids[i], &ch);
		else if (!rc && (!b->has_old || row_diff(&b->fresh, &b->old, NULL) != 0))
			rc = put_row(p, &b->fresh);
		if (!rc && queued)
			rc = unqueue(p, ids[i]);
		if (b->rc == 0) {
			cal_row_free(&b->fresh);
			if (b->has_old)
				cal_row_free(&b->old);
		}
	}
	return rc;
}

/* The size of the next batch of a full rebuild: batches that took longer
 * than BATCH_MS (the most a desk's payment should wait behind one) shrink in
 * proportion, quick ones grow back, never beyond max nor under MIN_BATCH. */
static int next_size(int want, int max, double took_ms)
{
	if (took_ms > BATCH_MS) {
		double v = want * (BATCH_MS / took_ms);

		want = v < MIN_BATCH ? MIN_BATCH : (int)v;
	} else if (took_ms < BATCH_MS / 2) {
		want = want > max / 2 ? max : want * 2;
	}
	return want > max ? max : want;
}

/* One write transaction of a full rebuild: the next batch of at most want
 * visits after id last (*n of them, their ids in ids), their rows and the
 * rows of deleted visits among them; *t0 (ms, clock_mono) when it took
 * the lock. Rolled back on a failure before its commit. */
static int rebuild_batch_tx(struct db *db, struct pctx *p, struct control_hold *lock, int64_t *ids,
                            struct batch_row *rows, int64_t last, int want, int *n, double *t0)
{
	int64_t queued = 0, rows_now = 0, to;
	int rc;

	if ((rc = db_begin_write(db)))
		return rc;
	*t0 = clock_mono() * 1e3; /* how long it holds the lock, not how long it waited */
	if ((rc = control_fence(db, lock)) || (rc = next_ids(db, last, ids, want, n)) ||
	    /* by the index of pending tasks by kind: left to itself, the planner
	     * walked every pending task of other kinds by status (half a million
	     * lifecycle tasks queued before the calendar's took seconds a batch,
	     * which shrank the batches to 50 visits: days for 10,000,000) */
	    (rc = db_one_int(db,
	                     "SELECT EXISTS (SELECT 1 FROM task INDEXED BY task_pending_once "
	                     "WHERE status = 'pending' AND kind = '" PROJECTION_TASK_KIND "')",
	                     &queued)))
		goto fail;
	if ((rc = rebuild_batch(p, ids, *n, last, rows, (int)queued)))
		goto fail;
	/* rows of deleted visits between the previous batch and the end of this
	 * one: every visit of the range has its row now, so there are some
	 * only if the range holds more rows than visits */
	to = *n < want ? INT64_MAX : ids[*n - 1];
	if ((rc = count_rows(db, last, to, &rows_now)))
		goto fail;
	if (rows_now > *n && (rc = orphans(db, last, to, NULL, NULL)))
		goto fail;
	return db_commit(db);
fail:
	db_rollback(db);
	return rc;
}

int projection_rebuild_all(struct db *db, int batch, projection_progress_fn progress, void *arg,
                           int64_t *n_out)
{
	struct control_hold lock = {0};
	struct pctx p = {.db = db};
	struct batch_row *rows;
	int64_t *ids, last = 0, done = 0, total = 0, cache;
	int rc, n = 0, want, full;
	double t0 = 0, took;

	if (n_out)
		*n_out = 0;
	if (batch <= 0)
		batch = DEFAULT_BATCH;
	if ((rc = control_ask(db, PERM_OPERATIONS, 0, "rebuild the whole calendar")))
		return rc;
	if ((rc = control_acquire(db, CONTROL_REBUILD, CONTROL_LOCK, REBUILD_LOCK_TTL, &lock)))
		return rc;
	ids = xmalloc((size_t)batch * sizeof *ids);
	rows = xcalloc((size_t)batch, sizeof *rows);
	db_cache_grow(db, BATCH_CACHE_KIB, &cache);
	if ((rc = db_one_int(db, "SELECT count(*) FROM appointment", &total)))
		goto out;
	want = batch < FIRST_BATCH ? batch : FIRST_BATCH;
	do {
		if ((rc = rebuild_batch_tx(db, &p, &lock, ids, rows, last, want, &n, &t0)))
			goto out;
		took = (clock_mono() * 1e3) - t0;
		full = n == want;
		if (n > 0)
			last = ids[n - 1];
		done += n;
		/* the batch's pages go to the database now, not in the commit of
		 * the desk that comes next; then a pause in which it can come */
		if ((rc = db_checkpoint(db)) || (rc = control_renew(db, &lock)))
			goto out;
		if (progress && (n > 0 || done == 0))
			progress(done, total > done ? total : done, arg);
		if (full) {
			db_yield(db);
			want = next_size(want, batch, took);
		}
	} while (full);
out:
	pctx_free(&p);
	free(rows);
	free(ids);
	control_release(db, &lock);
	db_cache_restore(db, cache);
	if (n_out)
		*n_out = done;
	return rc;
}

/* ---------------------------------------------------------------- checking */

struct check_ctx {
	struct pctx *p;
	int (*cb)(const struct projection_diff *d, void *arg);
	void *arg;
	int64_t n;
};

static int queued(struct db *db, int64_t id)
{
	sqlite3_stmt *st;
	char key[24];
	int yes = 0;

	/* pending, running or failed: each by the index of its own status, so
	 * that the finished tasks are never read (a planner left to itself,
	 * with sqlite_stat1 gathered on a young queue, scanned the table; a
	 * check after a bulk import, every row queued, would take hours) */
	if (db_prepare_cached(
	        db,
	        "SELECT EXISTS (SELECT 1 FROM task INDEXED BY task_pending_once"
	        " WHERE status = 'pending' AND kind = '" PROJECTION_TASK_KIND "' AND key = ?1)"
	        " OR EXISTS (SELECT 1 FROM task INDEXED BY task_running_by_key"
	        " WHERE status = 'running' AND kind = '" PROJECTION_TASK_KIND "' AND key = ?1)"
	        " OR EXISTS (SELECT 1 FROM task INDEXED BY task_by_status"
	        " WHERE status = 'failed' AND kind = '" PROJECTION_TASK_KIND "' AND key = ?1)",
	        &st))
		return 0;
	snprintf(key, sizeof key, "%lld", (long long)id);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	yes = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
	db_release(db, st);
	return yes;
}

static int report(struct check_ctx *c, int64_t id, const char *problem, const char *fields)
{
	struct projection_diff d = {id, problem, fields, queued(c->p->db, id)};

	c->n++;
	return c->cb ? c->cb(&d, c->arg) : 0;
}

static int report_orphan(int64_t id, void *arg)
{
	return report(arg, id, "orphan", "");
}

/* check_one's answer when the range statement of check_batch stopped before
 * it could tell (not an FD_E* code: those are negative). */
#define RANGE_STOPPED 1

static int check_one(struct check_ctx *c, int64_t id)
{
	struct cal_row fresh, old;
	struct strbuf sb = {0};
	int rc, has_old = 0;

	rc = compute(c->p, id, &fresh, &old, &has_old);
	if (rc && c->p->in_range && c->p->range_step != SQLITE_ROW &&
	    c->p->range_step != SQLITE_DONE) {
		/* the range statement stopped: at this visit's rows or at the
		 * next one's, it cannot say; check_batch asks again alone */
		err_clear();
		return RANGE_STOPPED;
	}
	if (rc == FD_EINVAL) {
		/* a record it cannot add up (a price beyond 64 bits): a
		 * difference to report, and the walk goes on */
		char why[256];

		snprintf(why, sizeof why, "%s", err_msg());
		return report(c, id, "cannot be computed", why);
	}
	if (rc)
		return rc;
	if (!has_old) {
		rc = report(c, id, "missing", "");
	} else {
		if (row_diff(&fresh, &old, &sb))
			rc = report(c, id, "differs", sb_cstr(&sb));
		cal_row_free(&old);
	}
	sb_free(&sb);
	cal_row_free(&fresh);
	return rc;
}

/* Check the visits ids[0..n) (all those in (lo, ids[n-1]]) reading them
 * with ONE range statement, as a full rebuild does, not one statement a
 * visit. A row the statement cannot read (a sum beyond 64 bits) stops it:
 * the visit being read is then checked alone (check_one reports it if its
 * own row is the one that cannot be read), and the range starts again after
 * it. */
static int check_batch(struct check_ctx *c, const int64_t *ids, int n, int64_t lo)
{
	struct pctx *p = c->p;
	sqlite3_stmt *st;
	int rc, i;

	if ((rc = range_open(p, lo, ids[n - 1], &st)))
		return rc;
	for (i = 0; !rc && i < n; i++) {
		if ((rc = check_one(c, ids[i])) != RANGE_STOPPED)
			continue;
		range_close(p, st);
		if ((rc = check_one(c, ids[i])) || i + 1 == n ||
		    (rc = range_open(p, ids[i], ids[n - 1], &st)))
			return rc;
	}
	range_close(p, st);
	return rc;
}

int projection_check(struct db *db, int (*cb)(const struct projection_diff *d, void *arg),
                     void *arg, int64_t *n_diff)
{
	struct pctx p = {.db = db};
	struct check_ctx c = {&p, cb, arg, 0};
	int64_t *ids, last = 0;
	int rc, n = 0;

	ids = xmalloc(DEFAULT_BATCH * sizeof *ids);
	do {
		/* a short read transaction per batch: one consistent snapshot */
		if ((rc = db_exec(db, "BEGIN")))
			break;
		rc = next_ids(db, last, ids, DEFAULT_BATCH, &n);
		if (!rc && n > 0)
			rc = check_batch(&c, ids, n, last);
		if (!rc)
			rc = orphans(db, last, n < DEFAULT_BATCH ? INT64_MAX : ids[n - 1],
			             report_orphan, &c);
		db_rollback(db);
		if (n > 0)
			last = ids[n - 1];
	} while (!rc && n == DEFAULT_BATCH);
	pctx_free(&p);
	free(ids);
	if (n_diff)
		*n_diff = c.n;
	return rc;
}

int projection_check_ids(struct db *db, const char *ids_sql,
                         int (*cb)(const struct projection_diff *d, void *arg), void *arg,
                         int64_t *n_diff)
{
	struct pctx p = {.db = db};
	struct check_ctx c = {&p, cb, arg, 0};
	sqlite3_stmt *ids;
	int rc, step = SQLITE_DONE;

	if ((rc = db_exec(db, "BEGIN")))
		return rc;
	if ((rc = db_prepare(db, ids_sql, &ids))) {
		db_rollback(db);
		return rc;
	}
	while (!rc && (step = sqlite3_step(ids)) == SQLITE_ROW) {
		rc = check_one(&c, sqlite3_column_int64(ids, 0));
		if (rc == FD_ENOTFOUND) { /* no longer there */
			err_clear();
			rc = 0;
		}
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list the visits to check"));
	sqlite3_finalize(ids);
	db_rollback(db);
	pctx_free(&p);
	if (n_diff)
		*n_diff = c.n;
	return rc;
}

/* ---------------------------------------------------------------- reading */

int projection_range(struct db *db, int64_t from, int64_t to,
                     int (*cb)(const struct cal_row *r, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	if (from >= to)
		return err_set(FD_EINVAL,
		               _("the range is empty: its end must come after its start"));
	if ((rc = db_prepare(db, range_sql, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct cal_row r;

		fill_row(st, 0, &r, 0);
		if ((rc = cb(&r, arg)))
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the calendar"));
	sqlite3_finalize(st);
	return rc;
}

int projection_range_brief(struct db *db, int64_t from, int64_t to,
                           int (*want)(const struct cal_row *r, void *arg),
                           int (*cb)(const struct cal_row *r, void *arg), void *arg)
{
	sqlite3_stmt *st, *rest = NULL;
	int rc = 0, step;

	if (from >= to)
		return err_set(FD_EINVAL,
		               _("the range is empty: its end must come after its start"));
	/* both kept compiled on the connection: a month move runs them again */
	if ((rc = db_prepare_cached(db, brief_sql, &st)))
		return rc;
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	/* rest runs while st is active: one read transaction, one snapshot */
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct cal_row r;

		memset(&r, 0, sizeof r);
		r.appointment_id = sqlite3_column_int64(st, 0);
		r.start_at = sqlite3_column_int64(st, 1);
		r.end_at = sqlite3_column_int64(st, 2);
		copy_field(r.pay_status, sizeof r.pay_status,
		           (const char *)sqlite3_column_text(st, 3));
		copy_field(r.status, sizeof r.status, (const char *)sqlite3_column_text(st, 4));
		r.customers = r.services = (char *)"";
		r.has_total = 1;
		if (want(&r, arg)) {
			int s;

			if (!rest && (rc = db_prepare_cached(db, brief_rest_sql, &rest))) {
				rest = NULL;
				break;
			}
			sqlite3_bind_int64(rest, 1, r.start_at);
			sqlite3_bind_int64(rest, 2, r.appointment_id);
			if ((s = sqlite3_step(rest)) == SQLITE_ROW) {
				const char *cust = (const char *)sqlite3_column_text(rest, 0);
				const char *serv = (const char *)sqlite3_column_text(rest, 1);

				r.customers = (char *)(cust ? cust : "");
				r.services = (char *)(serv ? serv : "");
				r.has_total = sqlite3_column_type(rest, 2) != SQLITE_NULL;
				r.total = sqlite3_column_int64(rest, 2);
				copy_field(r.currency, sizeof r.currency,
				           (const char *)sqlite3_column_text(rest, 3));
				r.est_minutes = sqlite3_column_int64(rest, 4);
			} else if (s != SQLITE_DONE) {
				rc = db_fail(db, _("cannot read the calendar"));
				break;
			}
			rc = cb(&r, arg);
			sqlite3_reset(rest);
		} else {
			rc = cb(&r, arg);
		}
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE && step != SQLITE_ROW)
		rc = db_fail(db, _("cannot read the calendar"));
	if (rest)
		db_release(db, rest);
	db_release(db, st);
	return rc;
}
