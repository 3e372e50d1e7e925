/*
 * check_billing.c - unit tests of invoicing, payments, allocations,
 * reversals, refunds, credit notes, idempotency and the invariant checker,
 * on a fresh database per test. Every scenario ends with check_run() clean;
 * the corruption tests show that check_run() sees what the triggers guard.
 *
 * Test data (customers, jobs, line items) is written with plain SQL on a
 * db_open() connection (whose fd_operator()/fd_now() the triggers need).
 */
#include <config.h>

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkdb.h"
#include "clock.h"
#include "db.h"
#include "err.h"
#include "fixture.h"
#include "idem.h"
#include "invoice.h"
#include "item.h"
#include "money.h"
#include "payment.h"
#include "report.h"
#include "states.h"

static struct fx F;
static struct db *db;
#define tmpdir F.dir
#define dbpath F.path

static void setup(void)
{
	fx_env();
	fx_open(&F, "bill");
	db = F.db;
}

static void teardown(void)
{
	fx_close(&F);
	db = NULL;
}

/* ------------------------------------------------------------ helpers */

static int64_t one(const char *sql)
{
	return fx_one(db, sql);
}

static void exec_ok(const char *sql)
{
	ck_assert_msg(db_exec(db, sql) == 0, "%s: %s", sql, err_msg());
}

/* Run sql (one statement); it must fail with a message containing want. */
static void exec_refused(const char *sql, const char *want)
{
	int rc = db_exec(db, sql);

	ck_assert_msg(rc != 0, "'%s' was not refused", sql);
	ck_assert_msg(strstr(err_msg(), want) != NULL, "'%s': '%s' lacks '%s'", sql, err_msg(),
	              want);
}

static void report_print(const char *code, const char *detail, void *arg)
{
	int *n = arg;

	(*n)++;
	fprintf(stderr, "# check: %s: %s\n", code, detail);
}

static void assert_clean(void)
{
	int n = 0, rc = check_run(db, report_print, &n);

	ck_assert_msg(rc == 0, "check_run found %d problem(s) (rc %d: %s)", n, rc, err_msg());
}

struct found {
	char codes[2048];
	int n;
};

static void report_collect(const char *code, const char *detail, void *arg)
{
	struct found *f = arg;

	f->n++;
	strncat(f->codes, code, sizeof f->codes - strlen(f->codes) - 2);
	strncat(f->codes, " ", sizeof f->codes - strlen(f->codes) - 1);
}

/* Everything that a refused request must leave untouched, as one string. */
static char *fingerprint(void)
{
	static const char *const tables[] = {
	    "invoice",
	    "invoice_line",
	    "payment",
	    "payment_allocation",
	    "refund",
	    "invoice_his",
	    "invoice_line_his",
	    "payment_his",
	    "payment_allocation_his",
	    "refund_his",
	    "status_flow",
	    "idempotency_record",
	    "document_counter",
	};
	char *out = calloc(1, 4096), sql[200];
	size_t i;

	for (i = 0; i < sizeof tables / sizeof tables[0]; i++) {
		snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", tables[i]);
		snprintf(out + strlen(out), 4096 - strlen(out), "%s=%lld ", tables[i],
		         (long long)one(sql));
	}
	snprintf(out + strlen(out), 4096 - strlen(out), "paid=%lld alloc=%lld ref=%lld",
	         (long long)one("SELECT coalesce(sum(paid), 0) FROM invoice"),
	         (long long)one("SELECT coalesce(sum(allocated), 0) FROM payment"),
	         (long long)one("SELECT coalesce(sum(refunded), 0) FROM payment"));
	return out;
}

static int64_t add_customer(const char *name)
{
	char sql[200];

	snprintf(sql, sizeof sql,
	         "INSERT INTO customer (name, created_at, updated_at) VALUES ('%s', 0, 0)", name);
	exec_ok(sql);
	return sqlite3_last_insert_rowid(db_sqlite(db));
}

static int64_t add_job(int64_t customer, const char *currency)
{
	char sql[300];

	snprintf(sql, sizeof sql,
	         "INSERT INTO service_order (customer_id, title, currency, created_at, updated_at)"
	         " VALUES (%lld, 'work', '%s', 0, 0)",
	         (long long)customer, currency);
	exec_ok(sql);
	return sqlite3_last_insert_rowid(db_sqlite(db));
}

static int64_t add_item(int64_t job, const char *kind, int64_t qty_milli, int64_t price)
{
	char sql[400];
	int64_t amount;

	ck_assert_int_eq(money_line_amount(qty_milli, price, &amount), 0);
	if (!strcmp(kind, "DISCOUNT") || !strcmp(kind, "CREDIT"))
		amount = -amount;
	snprintf(
	    sql, sizeof sql,
	    "INSERT INTO line_item (service_order_id, kind, description, qty_milli, unit_price,"
	    " amount, created_at, updated_at) VALUES (%lld, '%s', '%s item', %lld, %lld, %lld,"
	    " 0, 0)",
	    (long long)job, kind, kind, (long long)qty_milli, (long long)price, (long long)amount);
	exec_ok(sql);
	return sqlite3_last_insert_rowid(db_sqlite(db));
}

/* Issue an invoice for all of job; returns its id. */
static int64_t issue_job(int64_t job)
{
	struct invoice_input in = {0};
	struct idem_result res;
	int64_t id;

	in.jobs = &job;
	in.n_jobs = 1;
	in.terms_days = -1;
	ck_assert_msg(invoice_issue(db, &in, NULL, &res) == 0, "%s", err_msg());
	id = res.id;
	idem_result_free(&res);
	return id;
}

/* A customer's invoice of `cents` in currency, ready for payments. */
static int64_t invoice_of(int64_t customer, const char *currency, int64_t cents)
{
	int64_t job = add_job(customer, currency);

	add_item(job, "SERVICE", 1000, cents);
	return issue_job(job);
}

static int64_t pay(int64_t customer, const char *currency, int64_t cents,
                   const struct alloc_input *allocs, size_t n)
{
	struct payment_input in = {customer, currency, cents, "check", "1234", 0, NULL, 0};
	struct idem_result res;
	int64_t id;

	ck_assert_msg(payment_record(db, &in, allocs, n, 0, NULL, &res) == 0, "%s", err_msg());
	ck_assert_uint_eq(res.n, n);
	id = res.id;
	idem_result_free(&res);
	return id;
}

static void get_invoice(int64_t id, struct invoice *inv)
{
	ck_assert_int_eq(invoice_get(db, id, inv), 0);
}

static void get_payment(int64_t id, struct payment *p)
{
	ck_assert_int_eq(payment_get(db, id, p), 0);
}

/* ------------------------------------------------------------ scenarios */

START_TEST(test_one_check_pays_two_invoices)
{
	int64_t ada = add_customer("Ada"), i1, i2, p;
	struct alloc_input allocs[2];
	struct invoice a, b;
	struct payment pm;

	i1 = invoice_of(ada, "USD", 10000);
	i2 = invoice_of(ada, "USD", 20000);
	allocs[0] = (struct alloc_input){i1, 10000};
	allocs[1] = (struct alloc_input){i2, 20000};
	p = pay(ada, "USD", 30000, allocs, 2);
	ck_assert_int_eq(one("SELECT count(*) FROM payment"), 1);
	ck_assert_int_eq(one("SELECT count(*) FROM payment_allocation"), 2);
	get_invoice(i1, &a);
	get_invoice(i2, &b);
	ck_assert_str_eq(a.status, "paid");
	ck_assert_str_eq(b.status, "paid");
	ck_assert_int_eq(a.balance, 0);
	ck_assert_int_eq(b.balance, 0);
	ck_assert_int_eq(a.paid, 10000);
	ck_assert_int_eq(b.paid, 20000);
	get_payment(p, &pm);
	ck_assert_int_eq(pm.unallocated, 0);
	ck_assert_str_eq(pm.status, "allocated");
	/* status flows: issued -> paid for each invoice, unallocated -> ... -> allocated */
	ck_assert_int_eq(one("SELECT count(*) FROM status_flow WHERE entity = 'invoice'"
	                     " AND from_status = 'issued' AND to_status = 'paid'"),
	                 2);
	ck_assert_int_eq(one("SELECT count(*) FROM status_flow WHERE entity = 'payment'"
	                     " AND to_status = 'allocated'"),
	                 1);
	invoice_free(&a);
	invoice_free(&b);
	payment_free(&pm);
	assert_clean();
}
END_TEST

START_TEST(test_refusals_change_nothing)
{
	int64_t ada = add_customer("Ada"), bo = add_customer("Bo"), i1, iv, ieur, ibo, p, pe;
	struct alloc_input al;
	struct payment_input in = {ada, "USD", 5000, "cash", NULL, 0, NULL, 0};
	struct idem_result res;
	char *before, *after;

	i1 = invoice_of(ada, "USD", 10000);
	iv = invoice_of(ada, "USD", 10000);
	ieur = invoice_of(ada, "EUR", 10000);
	ibo = invoice_of(bo, "USD", 10000);
	ck_assert_int_eq(invoice_void(db, iv, "typo"), 0);
	p = pay(ada, "USD", 5000, NULL, 0);
	pe = pay(ada, "EUR", 5000, NULL, 0);
	(void)pe;
	before = fingerprint();

	al = (struct alloc_input){i1, 6000}; /* more than the payment */
	ck_assert_int_eq(alloc_post(db, p, &al, 1, 0, NULL, &res), FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "only 50.00 USD unallocated"));
	al = (struct alloc_input){iv, 1000}; /* void invoice */
	ck_assert_int_eq(alloc_post(db, p, &al, 1, 0, NULL, &res), FD_ECONFLICT);
	ck_assert_ptr_nonnull(strstr(err_msg(), "void"));
	al = (struct alloc_input){ieur, 1000}; /* currency mismatch */
	ck_assert_int_eq(alloc_post(db, p, &al, 1, 0, NULL, &res), FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "currencies must match"));
	al = (struct alloc_input){ibo, 1000}; /* another customer's invoice */
	ck_assert_int_eq(alloc_post(db, p, &al, 1, 0, NULL, &res), FD_EINVAL);
	al = (struct alloc_input){i1, 0};
	ck_assert_int_eq(alloc_post(db, p, &al, 1, 0, NULL, &res), FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "greater than zero"));
	al = (struct alloc_input){i1, -100};
	ck_assert_int_eq(alloc_post(db, p, &al, 1, 0, NULL, &res), FD_EINVAL);
	al = (struct alloc_input){i1, INT64_MAX};
	ck_assert_int_eq(alloc_post(db, p, &al, 1, 0, NULL, &res), FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "too large"));
	/* payments: zero, negative, too large, bad method, a card number */
	in.amount = 0;
	ck_assert_int_eq(payment_record(db, &in, NULL, 0, 0, NULL, &res), FD_EINVAL);
	in.amount = -5;
	ck_assert_int_eq(payment_record(db, &in, NULL, 0, 0, NULL, &res), FD_EINVAL);
	in.amount = INT64_MAX;
	ck_assert_int_eq(payment_record(db, &in, NULL, 0, 0, NULL, &res), FD_EINVAL);
	in.amount = 5000;
	in.method = "bitcoin";
	ck_assert_int_eq(payment_record(db, &in, NULL, 0, 0, NULL, &res), FD_EINVAL);
	in.method = "card";
	in.reference = "4111 1111 1111 1111";
	ck_assert_int_eq(payment_record(db, &in, NULL, 0, 0, NULL, &res), FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "card number"));
	in.reference = "1111";
	/* a payment whose second allocation is refused is not recorded at all */
	{
		struct alloc_input two[2] = {{i1, 1000}, {iv, 1000}};

		ck_assert_int_eq(payment_record(db, &in, two, 2, 0, NULL, &res), FD_ECONFLICT);
	}
	after = fingerprint();
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	assert_clean();
}
END_TEST

START_TEST(test_posted_money_is_never_edited)
{
	int64_t ada = add_customer("Ada"), i1, i2;
	struct alloc_input al[2];

	i1 = invoice_of(ada, "USD", 10000);
	i2 = invoice_of(ada, "USD", 1000);
	al[0] = (struct alloc_input){i1, 4000};
	al[1] = (struct alloc_input){i2, 1000};
	pay(ada, "USD", 5000, al, 2);
	exec_refused("UPDATE payment_allocation SET amount = 1", "never edited");
	exec_refused("DELETE FROM payment_allocation", "never deleted");
	exec_refused("UPDATE payment SET amount = 999999", "never edited");
	exec_refused("DELETE FROM payment", "never deleted");
	exec_refused("UPDATE payment SET allocated = 0", "must equal");
	exec_refused("UPDATE payment SET status = 'void'", "status");
	exec_refused("UPDATE invoice SET total = 1", "never edited");
	exec_refused("UPDATE invoice SET paid = 0, balance = total", "must equal");
	exec_refused("UPDATE invoice SET status = 'paid' WHERE id = 1", "does not match");
	exec_refused("UPDATE invoice SET status = 'void' WHERE id = 1", "illegal");
	exec_refused("UPDATE invoice SET status = 'void' WHERE id = 2", "does not match");
	exec_refused("DELETE FROM invoice", "never deleted");
	exec_refused("UPDATE invoice_line SET amount = 1", "never edited");
	exec_refused("DELETE FROM invoice_line", "never deleted");
	exec_refused("UPDATE invoice_his SET total = 1", "never changed");
	exec_refused("DELETE FROM payment_allocation_his", "never deleted");
	/* lines cannot be added to an issued invoice */
	exec_refused("INSERT INTO invoice_line (invoice_id, kind, description, qty_milli,"
	             " unit_price, amount, created_at) VALUES (1, 'FEE', 'x', 1000, 5, 5, 0)",
	             "being issued");
	/* direct inserts that break the rules: the triggers and CHECKs hold */
	exec_refused("INSERT INTO payment_allocation (payment_id, invoice_id, amount, created_at)"
	             " VALUES (1, 2, 2000, 0)",
	             "CHECK");
	exec_refused("INSERT INTO payment_allocation (payment_id, invoice_id, amount, created_at)"
	             " VALUES (1, 2, 0, 0)",
	             "CHECK");
	exec_refused("INSERT INTO payment_allocation (payment_id, invoice_id, amount, reverses_id,"
	             " created_at) VALUES (1, 1, 1000, 1, 0)",
	             "repeats");
	exec_refused("INSERT INTO payment (customer_id, method, received_at, currency, amount,"
	             " allocated, created_at, updated_at) VALUES (1, 'cash', 0, 'USD', 100, 100,"
	             " 0, 0)",
	             "starts unallocated");
	exec_refused("UPDATE document_counter SET last = last - 1", "forward");
	assert_clean();
}
END_TEST

START_TEST(test_reverse_and_refund)
{
	int64_t ada = add_customer("Ada"), i1, p, a1, rev, r1, r2;
	struct alloc_input al;
	struct idem_result res;
	struct refund_input rin = {0};
	struct invoice inv;
	struct payment pm;

	i1 = invoice_of(ada, "USD", 10000);
	al = (struct alloc_input){i1, 10000};
	p = pay(ada, "USD", 12000, &al, 1);
	a1 = one("SELECT max(id) FROM payment_allocation");
	/* a refund needs unallocated money: 20 is, 50 is not */
	rin.payment_id = p;
	rin.amount = 5000;
	rin.reason = "customer asked";
	ck_assert_int_eq(refund_post(db, &rin, NULL, &res), FD_ECONFLICT);
	ck_assert_ptr_nonnull(strstr(err_msg(), "reverse allocations"));
	rin.amount = 13000;
	ck_assert_int_eq(refund_post(db, &rin, NULL, &res), FD_EINVAL);
	/* reverse, and the figures follow */
	ck_assert_int_eq(alloc_reverse(db, a1, "", NULL, &res), FD_EINVAL);
	ck_assert_int_eq(alloc_reverse(db, a1, "wrong invoice", NULL, &res), 0);
	rev = res.id;
	idem_result_free(&res);
	ck_assert_int_eq(alloc_reverse(db, a1, "again", NULL, &res), FD_ECONFLICT);
	ck_assert_int_eq(alloc_reverse(db, rev, "undo the undo", NULL, &res), FD_EINVAL);
	get_invoice(i1, &inv);
	ck_assert_int_eq(inv.paid, 0);
	ck_assert_int_eq(inv.balance, 10000);
	ck_assert_str_eq(inv.status, "issued");
	invoice_free(&inv);
	get_payment(p, &pm);
	ck_assert_int_eq(pm.unallocated, 12000);
	ck_assert_str_eq(pm.status, "unallocated");
	payment_free(&pm);
	/* refund 50 now works; a pending refund of the rest that fails gives it back */
	rin.amount = 5000;
	ck_assert_int_eq(refund_post(db, &rin, NULL, &res), 0);
	r1 = res.id;
	idem_result_free(&res);
	rin.amount = 7000;
	rin.pending = 1;
	ck_assert_int_eq(refund_post(db, &rin, NULL, &res), 0);
	r2 = res.id;
	idem_result_free(&res);
	get_payment(p, &pm);
	ck_assert_int_eq(pm.refunded, 12000);
	ck_assert_str_eq(pm.status, "refunded");
	payment_free(&pm);
	ck_assert_int_eq(refund_settle(db, r1, 0, NULL), FD_ECONFLICT); /* not pending */
	ck_assert_int_eq(refund_settle(db, r2, 0, "card declined"), 0);
	get_payment(p, &pm);
	ck_assert_int_eq(pm.refunded, 5000);
	ck_assert_int_eq(pm.unallocated, 7000);
	ck_assert_str_eq(pm.status, "unallocated");
	payment_free(&pm);
	exec_refused("UPDATE refund SET amount = 1", "never edited");
	exec_refused("UPDATE refund SET status = 'succeeded' WHERE status = 'failed'", "illegal");
	/* the rest can be allocated again */
	al = (struct alloc_input){i1, 7000};
	ck_assert_int_eq(alloc_post(db, p, &al, 1, 0, NULL, &res), 0);
	idem_result_free(&res);
	get_invoice(i1, &inv);
	ck_assert_str_eq(inv.status, "partially_paid");
	ck_assert_int_eq(inv.balance, 3000);
	invoice_free(&inv);
	ck_assert_int_eq(one("SELECT count(*) FROM status_flow WHERE entity = 'refund'"
	                     " AND to_status = 'failed' AND reason = 'card declined'"),
	                 1);
	assert_clean();
}
END_TEST

START_TEST(test_void_payment)
{
	int64_t ada = add_customer("Ada"), i1, p, q;
	struct alloc_input al;
	struct idem_result res;

	i1 = invoice_of(ada, "USD", 10000);
	p = pay(ada, "USD", 1000, NULL, 0);
	ck_assert_int_eq(payment_void(db, p, ""), FD_EINVAL);
	ck_assert_int_eq(payment_void(db, p, "typed twice"), 0);
	ck_assert_int_eq(payment_void(db, p, "again"), FD_ECONFLICT);
	al = (struct alloc_input){i1, 500};
	ck_assert_int_eq(alloc_post(db, p, &al, 1, 0, NULL, &res), FD_ECONFLICT);
	q = pay(ada, "USD", 1000, &al, 1);
	ck_assert_int_eq(payment_void(db, q, "no"), FD_ECONFLICT);
	assert_clean();
}
END_TEST

START_TEST(test_partial_quantities_and_snapshots)
{
	int64_t ada = add_customer("Ada"), job = add_job(ada, "USD"), item, i1, i2;
	struct invoice_pick pick;
	struct invoice_input in = {0};
	struct idem_result res;
	struct invoice inv;

	item = add_item(job, "SERVICE", 2000, 4500); /* 2 hours at 45.00 */
	in.items = &pick;
	in.n_items = 1;
	in.terms_days = -1;
	pick = (struct invoice_pick){item, 500}; /* half an hour */
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), 0);
	i1 = res.id;
	idem_result_free(&res);
	get_invoice(i1, &inv);
	ck_assert_int_eq(inv.total, 2250);
	invoice_free(&inv);
	pick = (struct invoice_pick){item, 1600}; /* more than the 1.5 h left */
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "only 1.5 is left"));
	pick = (struct invoice_pick){item, 0}; /* all that is left */
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), 0);
	i2 = res.id;
	idem_result_free(&res);
	get_invoice(i2, &inv);
	ck_assert_int_eq(inv.total, 6750);
	invoice_free(&inv);
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), FD_ECONFLICT);
	/* the line item cannot drop below what is billed, nor go */
	exec_refused("UPDATE line_item SET qty_milli = 1000", "invoiced");
	exec_refused("DELETE FROM line_item", "on an invoice");
	/* a price change never alters the invoices */
	exec_ok("UPDATE line_item SET unit_price = 9900, amount = 19800");
	get_invoice(i1, &inv);
	ck_assert_int_eq(inv.total, 2250);
	invoice_free(&inv);
	ck_assert_int_eq(one("SELECT unit_price FROM invoice_line WHERE invoice_id = 1"), 4500);
	/* voiding gives the quantity back */
	ck_assert_int_eq(invoice_void(db, i2, "split differently"), 0);
	pick = (struct invoice_pick){item, 1500};
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), 0);
	idem_result_free(&res);
	exec_ok("UPDATE line_item SET qty_milli = 3000, amount = 29700");
	assert_clean();
}
END_TEST

/* invoice_job_unbilled, the job pane's "left to bill": what invoice issue
 * --jobs would bill now, partial quantities and discounts included; a
 * voided invoice gives its share back */
START_TEST(test_left_to_bill_of_a_job)
{
	int64_t ada = add_customer("Ada"), job = add_job(ada, "EUR"), empty = add_job(ada, "USD");
	int64_t item, inv;
	struct invoice_pick pick;
	struct invoice_input in = {0};
	struct idem_result res;
	struct invoice_unbilled u;

	ck_assert_int_eq(invoice_job_unbilled(db, empty, &u), 0);
	ck_assert_int_eq(u.items, 0);
	ck_assert_int_eq(u.total, 0);
	ck_assert_str_eq(u.currency, "USD");
	ck_assert_int_eq(invoice_job_unbilled(db, 999999, &u), FD_ENOTFOUND);

	item = add_item(job, "SERVICE", 2000, 4500); /* 2 h at 45.00 */
	add_item(job, "DISCOUNT", 1000, 1000);       /* -10.00 */
	ck_assert_int_eq(invoice_job_unbilled(db, job, &u), 0);
	ck_assert_int_eq(u.items, 2);
	ck_assert_int_eq(u.total, 8000);
	ck_assert_str_eq(u.currency, "EUR");

	in.items = &pick;
	in.n_items = 1;
	in.terms_days = -1;
	pick = (struct invoice_pick){item, 500}; /* half an hour billed */
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), 0);
	inv = res.id;
	idem_result_free(&res);
	ck_assert_int_eq(invoice_job_unbilled(db, job, &u), 0);
	ck_assert_int_eq(u.items, 2);
	ck_assert_int_eq(u.total, 6750 - 1000);

	ck_assert_int_eq(invoice_void(db, inv, "wrong split"), 0);
	ck_assert_int_eq(invoice_job_unbilled(db, job, &u), 0);
	ck_assert_int_eq(u.total, 8000);

	issue_job(job);
	ck_assert_int_eq(invoice_job_unbilled(db, job, &u), 0);
	ck_assert_int_eq(u.items, 0);
	ck_assert_int_eq(u.total, 0);
	assert_clean();
}
END_TEST

/* item_edit, the one call of the screen and the command line: a new price
 * is for what is left to bill, and none is left once fully invoiced */
START_TEST(test_price_of_an_invoiced_item)
{
	int64_t ada = add_customer("Ada"), job = add_job(ada, "USD"), item;
	struct item_input price = {0, NULL, NULL, -1, 5000};
	struct invoice_pick pick;
	struct invoice_input in = {0};
	struct idem_result res;
	struct line_item li;
	char *before, *after;

	item = add_item(job, "SERVICE", 2000, 4500); /* 2 hours at 45.00 */
	in.items = &pick;
	in.n_items = 1;
	in.terms_days = -1;
	pick = (struct invoice_pick){item, 500}; /* half an hour */
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), 0);
	idem_result_free(&res);
	ck_assert_int_eq(item_edit(db, item, &price), 0); /* 50.00 for the 1.5 h left */
	ck_assert_int_eq(item_get(db, item, &li), 0);
	ck_assert_int_eq(li.amount, 2250 + 7500);
	item_free(&li);
	pick = (struct invoice_pick){item, 0};
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), 0);
	ck_assert_int_eq(one("SELECT total FROM invoice ORDER BY id DESC LIMIT 1"), 7500);
	idem_result_free(&res);
	ck_assert_int_eq(one("SELECT amount FROM line_item"),
	                 one("SELECT sum(amount) FROM invoice_line"));
	before = fingerprint();
	price.unit_price = 6000;
	ck_assert_int_eq(item_edit(db, item, &price), FD_ECONFLICT);
	ck_assert_ptr_nonnull(strstr(err_msg(), "credit note"));
	after = fingerprint();
	ck_assert_str_eq(after, before);
	ck_assert_int_eq(one("SELECT unit_price FROM line_item"), 5000);
	free(before);
	free(after);
	assert_clean();
}
END_TEST

START_TEST(test_combine_jobs_one_customer)
{
	int64_t ada = add_customer("Ada"), bo = add_customer("Bo");
	int64_t j1 = add_job(ada, "USD"), j2 = add_job(ada, "USD"), j3 = add_job(bo, "USD");
	int64_t j4 = add_job(ada, "EUR"), jobs[2];
	struct invoice_input in = {0};
	struct idem_result res;
	struct invoice inv;

	add_item(j1, "SERVICE", 1000, 10000);
	add_item(j1, "DISCOUNT", 1000, 1000);
	add_item(j2, "FEE", 1000, 2500);
	add_item(j2, "TAX", 1000, 800);
	add_item(j3, "SERVICE", 1000, 100);
	add_item(j4, "SERVICE", 1000, 100);
	in.jobs = jobs;
	in.n_jobs = 2;
	in.terms_days = 14;
	jobs[0] = j1;
	jobs[1] = j3;
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "another customer"));
	jobs[1] = j4;
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "currency"));
	jobs[1] = j2;
	in.customer_id = bo;
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), FD_EINVAL);
	in.customer_id = ada;
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), 0);
	get_invoice(res.id, &inv);
	ck_assert_int_eq(inv.total, 10000 - 1000 + 2500 + 800);
	ck_assert_int_eq(one("SELECT count(*) FROM invoice_line"), 4);
	ck_assert_str_eq(inv.number, "INV-2026-000001");
	/* 14 days of terms from 2026-12-01 */
	{
		char buf[32];

		clock_format_local(inv.due_at, "%Y-%m-%d", buf, sizeof buf);
		ck_assert_str_eq(buf, "2026-12-15");
	}
	invoice_free(&inv);
	idem_result_free(&res);
	/* a discount billed alone would make a negative invoice */
	{
		int64_t j5 = add_job(ada, "USD");
		struct invoice_pick pick = {add_item(j5, "DISCOUNT", 1000, 500), 0};
		struct invoice_input in2 = {0};

		in2.items = &pick;
		in2.n_items = 1;
		in2.terms_days = -1;
		ck_assert_int_eq(invoice_issue(db, &in2, NULL, &res), FD_EINVAL);
		ck_assert_ptr_nonnull(strstr(err_msg(), "negative"));
	}
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), FD_ECONFLICT); /* nothing left */
	exec_ok("UPDATE service_order SET status = 'cancelled' WHERE id = 1");
	assert_clean();
}
END_TEST

START_TEST(test_numbers_are_gap_free)
{
	int64_t ada = add_customer("Ada"), job, bad;
	struct invoice inv;
	struct invoice_pick pick;
	struct invoice_input in = {0};
	struct idem_result res;

	invoice_of(ada, "USD", 100);
	/* a refused issue takes no number */
	job = add_job(ada, "USD");
	bad = add_item(job, "DISCOUNT", 1000, 100);
	pick = (struct invoice_pick){bad, 0};
	in.items = &pick;
	in.n_items = 1;
	in.terms_days = -1;
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), FD_EINVAL);
	get_invoice(invoice_of(ada, "USD", 100), &inv);
	ck_assert_str_eq(inv.number, "INV-2026-000002");
	invoice_free(&inv);
	/* a new year starts again at 1 */
	setenv("FRONTDESK_NOW", "2027-01-01T00:30", 1);
	get_invoice(invoice_of(ada, "USD", 100), &inv);
	ck_assert_str_eq(inv.number, "INV-2027-000001");
	invoice_free(&inv);
	setenv("FRONTDESK_NOW", "2026-12-01T09:00", 1);
	ck_assert_int_eq(one("SELECT last FROM document_counter WHERE series = 'INV'"
	                     " AND year = 2026"),
	                 2);
	assert_clean();
}
END_TEST

START_TEST(test_credit_note)
{
	int64_t ada = add_customer("Ada"), i1, cn, p;
	struct idem_result res;
	struct alloc_input al;
	struct invoice inv, c;

	i1 = invoice_of(ada, "USD", 10000);
	ck_assert_int_eq(invoice_credit(db, i1, 3000, "price agreed lower", NULL, &res), 0);
	cn = res.id;
	idem_result_free(&res);
	get_invoice(i1, &inv);
	get_invoice(cn, &c);
	ck_assert_int_eq(inv.credited, 3000);
	ck_assert_int_eq(inv.balance, 7000);
	ck_assert_str_eq(inv.status, "issued");
	ck_assert_str_eq(c.kind, "credit_note");
	ck_assert_str_eq(c.number, "CN-2026-000001");
	ck_assert_int_eq(c.total, -3000);
	ck_assert_int_eq(c.balance, 0);
	ck_assert_int_eq(c.credits_id, i1);
	invoice_free(&inv);
	invoice_free(&c);
	/* more than the balance, a credit note, zero: refused */
	ck_assert_int_eq(invoice_credit(db, i1, 7001, "too much", NULL, &res), FD_ECONFLICT);
	ck_assert_int_eq(invoice_credit(db, cn, 100, "of a credit note", NULL, &res), FD_EINVAL);
	ck_assert_int_eq(invoice_credit(db, i1, 0, "nothing", NULL, &res), FD_EINVAL);
	ck_assert_int_eq(invoice_void(db, i1, "credited"), FD_ECONFLICT);
	ck_assert_int_eq(invoice_void(db, cn, "final"), FD_EINVAL);
	/* 70 settles it; a payment cannot go to the credit note */
	al = (struct alloc_input){cn, 100};
	p = pay(ada, "USD", 7000, NULL, 0);
	ck_assert_int_eq(alloc_post(db, p, &al, 1, 0, NULL, &res), FD_EINVAL);
	al = (struct alloc_input){i1, 7000};
	ck_assert_int_eq(alloc_post(db, p, &al, 1, 0, NULL, &res), 0);
	idem_result_free(&res);
	get_invoice(i1, &inv);
	ck_assert_str_eq(inv.status, "paid");
	invoice_free(&inv);
	/* a paid invoice is credited only after its allocation is reversed */
	ck_assert_int_eq(invoice_credit(db, i1, 1000, "more", NULL, &res), FD_ECONFLICT);
	ck_assert_ptr_nonnull(strstr(err_msg(), "reverse its allocations"));
	exec_refused("UPDATE invoice SET credited = 0, balance = total - paid WHERE id = 1",
	             "must equal");
	assert_clean();
}
END_TEST

START_TEST(test_overpay_only_when_allowed)
{
	int64_t ada = add_customer("Ada"), job = add_job(ada, "USD"), i1, i2, p;
	struct invoice_input in = {0};
	struct idem_result res;
	struct alloc_input al;
	struct invoice inv;

	add_item(job, "SERVICE", 1000, 10000);
	in.jobs = &job;
	in.n_jobs = 1;
	in.terms_days = -1;
	in.allow_overpay = 1;
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), 0);
	i1 = res.id;
	idem_result_free(&res);
	i2 = invoice_of(ada, "USD", 10000);
	p = pay(ada, "USD", 30000, NULL, 0);
	al = (struct alloc_input){i2, 10001};
	ck_assert_int_eq(alloc_post(db, p, &al, 1, 0, NULL, &res), FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "overpay"));
	al = (struct alloc_input){i1, 12000};
	ck_assert_int_eq(alloc_post(db, p, &al, 1, 0, NULL, &res), 0);
	idem_result_free(&res);
	get_invoice(i1, &inv);
	ck_assert_str_eq(inv.status, "overpaid");
	ck_assert_int_eq(inv.balance, -2000);
	invoice_free(&inv);
	assert_clean();
}
END_TEST

START_TEST(test_auto_allocation_oldest_due_first)
{
	int64_t ada = add_customer("Ada"), j1, j2, j3, late, early, mid, p;
	struct invoice_input in = {0};
	struct payment_input pin = {0};
	struct alloc_input *prop;
	struct idem_result res;
	struct payment pm;
	size_t n;

	j1 = add_job(ada, "USD");
	j2 = add_job(ada, "USD");
	j3 = add_job(ada, "USD");
	add_item(j1, "SERVICE", 1000, 10000);
	add_item(j2, "SERVICE", 1000, 5000);
	add_item(j3, "SERVICE", 1000, 8000);
	in.n_jobs = 1;
	in.terms_days = 60;
	in.jobs = &j1;
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), 0);
	late = res.id;
	idem_result_free(&res);
	in.terms_days = 5;
	in.jobs = &j2;
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), 0);
	early = res.id;
	idem_result_free(&res);
	in.terms_days = 30;
	in.jobs = &j3;
	ck_assert_int_eq(invoice_issue(db, &in, NULL, &res), 0);
	mid = res.id;
	idem_result_free(&res);
	ck_assert_int_eq(alloc_propose(db, ada, "USD", 10000, &prop, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(prop[0].invoice_id, early);
	ck_assert_int_eq(prop[0].amount, 5000);
	ck_assert_int_eq(prop[1].invoice_id, mid);
	ck_assert_int_eq(prop[1].amount, 5000);
	free(prop);
	ck_assert_int_eq(one("SELECT count(*) FROM payment"), 0); /* proposing writes nothing */
	/* taken at an invoice: it first, however late it is due, then oldest due
	 * first; an id that is not open is passed over */
	{
		int64_t first[2] = {late, 999999};

		ck_assert_int_eq(alloc_propose_first(db, ada, "USD", 12000, first, 2, &prop, &n),
		                 0);
		ck_assert_uint_eq(n, 2);
		ck_assert_int_eq(prop[0].invoice_id, late);
		ck_assert_int_eq(prop[0].amount, 10000);
		ck_assert_int_eq(prop[1].invoice_id, early);
		ck_assert_int_eq(prop[1].amount, 2000);
		free(prop);
		ck_assert_int_eq(alloc_propose_first(db, ada, "USD", 4000, first, 2, &prop, &n), 0);
		ck_assert_uint_eq(n, 1);
		ck_assert_int_eq(prop[0].invoice_id, late);
		ck_assert_int_eq(prop[0].amount, 4000);
		free(prop);
	}
	pin = (struct payment_input){ada, "USD", 30000, "cash", NULL, 0, NULL, 0};
	ck_assert_int_eq(payment_record(db, &pin, NULL, 0, 1, NULL, &res), 0);
	ck_assert_uint_eq(res.n, 3);
	p = res.id;
	idem_result_free(&res);
	get_payment(p, &pm);
	ck_assert_int_eq(pm.unallocated, 30000 - 23000); /* the rest is credit */
	payment_free(&pm);
	ck_assert_int_eq(alloc_post(db, p, NULL, 0, 1, NULL, &res), FD_ECONFLICT);
	(void)late;
	assert_clean();
}
END_TEST

START_TEST(test_idempotency)
{
	int64_t ada = add_customer("Ada"), i1, first;
	struct payment_input in = {ada, "USD", 5000, "cash", NULL, 0, NULL, 0};
	struct alloc_input al;
	struct idem_result res, again;
	char hash[65], *resp = NULL;
	struct db *other;

	i1 = invoice_of(ada, "USD", 10000);
	al = (struct alloc_input){i1, 2000};
	ck_assert_int_eq(payment_record(db, &in, &al, 1, 0, "K-1", &res), 0);
	ck_assert_int_eq(res.replayed, 0);
	first = res.id;
	/* the same request again, on another connection: same answer, nothing written */
	ck_assert_int_eq(db_open(dbpath, 0, &other), 0);
	ck_assert_int_eq(payment_record(other, &in, &al, 1, 0, "K-1", &again), 0);
	ck_assert_int_eq(again.replayed, 1);
	ck_assert_int_eq(again.id, first);
	ck_assert_uint_eq(again.n, 1);
	ck_assert_int_eq(again.ids[0], res.ids[0]);
	idem_result_free(&again);
	idem_result_free(&res);
	ck_assert_int_eq(one("SELECT count(*) FROM payment"), 1);
	ck_assert_int_eq(one("SELECT count(*) FROM payment_allocation"), 1);
	/* the same key for another request is refused */
	in.amount = 5001;
	ck_assert_int_eq(payment_record(db, &in, &al, 1, 0, "K-1", &res), FD_ECONFLICT);
	ck_assert_ptr_nonnull(strstr(err_msg(), "different request"));
	ck_assert_int_eq(alloc_reverse(db, 1, "x", "K-1", &res), FD_ECONFLICT);
	in.amount = 5000;
	/* a refused first attempt leaves no record: it may be retried */
	al.amount = 999999;
	ck_assert_int_eq(payment_record(db, &in, &al, 1, 0, "K-2", &res), FD_EINVAL);
	ck_assert_int_eq(one("SELECT count(*) FROM idempotency_record WHERE key = 'K-2'"), 0);
	al.amount = 1000;
	/* two-step use: held by another process -> in progress */
	idem_hash("scene-x", hash);
	ck_assert_int_eq(idem_begin(other, "K-3", "channel", hash, 60, &resp), IDEM_NEW);
	exec_ok("UPDATE idempotency_record SET holder = 'someone@else:1' WHERE key = 'K-3'");
	ck_assert_int_eq(idem_begin(db, "K-3", "channel", hash, 60, &resp), FD_EINPROGRESS);
	ck_assert_ptr_nonnull(strstr(err_msg(), "in progress"));
	/* ... until its hold runs out */
	exec_ok("UPDATE idempotency_record SET hold_until = 1 WHERE key = 'K-3'");
	ck_assert_int_eq(idem_begin(db, "K-3", "channel", hash, 60, &resp), IDEM_NEW);
	/* a failed attempt may be retried; only the holder marks it failed */
	exec_ok("UPDATE idempotency_record SET holder = 'someone@else:1' WHERE key = 'K-3'");
	ck_assert_int_eq(idem_fail(db, "K-3"), FD_ECONFLICT);
	exec_ok("UPDATE idempotency_record SET holder = NULL, status = 'failed', hold_until = NULL"
	        " WHERE key = 'K-3'");
	ck_assert_int_eq(idem_begin(db, "K-3", "channel", hash, 60, &resp), IDEM_NEW);
	ck_assert_int_eq(idem_fail(db, "K-3"), 0);
	ck_assert_int_eq(one("SELECT count(*) FROM idempotency_record WHERE key = 'K-3'"
	                     " AND status = 'failed'"),
	                 1);
	/* a success record is never changed */
	exec_refused("UPDATE idempotency_record SET response = '{}' WHERE key = 'K-1'",
	             "never changed");
	ck_assert_int_eq(idem_check_key(""), FD_EINVAL);
	ck_assert_int_eq(idem_check_key("bad\nkey"), FD_EINVAL);
	db_close(other);
	assert_clean();
}
END_TEST

START_TEST(test_check_reports_corruption)
{
	int64_t ada = add_customer("Ada"), i1, i2;
	struct alloc_input al[2];
	struct found f;

	i1 = invoice_of(ada, "USD", 10000);
	i2 = invoice_of(ada, "USD", 20000);
	al[0] = (struct alloc_input){i1, 10000};
	al[1] = (struct alloc_input){i2, 5000};
	pay(ada, "USD", 30000, al, 2);
	assert_clean();
	/* someone drops the guards and edits posted money */
	exec_ok("DROP TRIGGER payment_allocation_no_update");
	exec_ok("UPDATE payment_allocation SET amount = 9000 WHERE id = 1");
	exec_ok("DROP TRIGGER invoice_guard");
	exec_ok("DROP TRIGGER invoice_his_upd");
	exec_ok("UPDATE invoice SET total = 15000, balance = 10000 WHERE id = 2");
	memset(&f, 0, sizeof f);
	ck_assert_int_gt(check_run(db, report_collect, &f), 0);
	ck_assert_msg(strstr(f.codes, "invoice-paid "), "%s", f.codes);
	ck_assert_msg(strstr(f.codes, "payment-allocated "), "%s", f.codes);
	ck_assert_msg(strstr(f.codes, "posted-changed "), "%s", f.codes);
	ck_assert_msg(strstr(f.codes, "invoice-total "), "%s", f.codes);
	ck_assert_msg(strstr(f.codes, "history-differs "), "%s", f.codes);
	ck_assert_ptr_nonnull(check_describe("invoice-paid"));
	ck_assert_ptr_null(check_describe("no-such-check"));
}
END_TEST

START_TEST(test_check_reports_missing_history_and_deletes)
{
	int64_t ada = add_customer("Ada"), i1;
	struct alloc_input al;
	struct found f;

	i1 = invoice_of(ada, "USD", 10000);
	al = (struct alloc_input){i1, 4000};
	pay(ada, "USD", 4000, &al, 1);
	exec_ok("DROP TRIGGER payment_his_ins");
	exec_ok("INSERT INTO payment (customer_id, method, received_at, currency, amount,"
	        " created_at, updated_at) VALUES (1, 'cash', 0, 'USD', 100, 0, 0)");
	exec_ok("DROP TRIGGER payment_allocation_no_delete");
	exec_ok("DROP TRIGGER payment_allocation_apply");
	exec_ok("DELETE FROM payment_allocation");
	memset(&f, 0, sizeof f);
	ck_assert_int_gt(check_run(db, report_collect, &f), 0);
	ck_assert_msg(strstr(f.codes, "history-missing "), "%s", f.codes);
	ck_assert_msg(strstr(f.codes, "posted-deleted "), "%s", f.codes);
	ck_assert_msg(strstr(f.codes, "invoice-paid "), "%s", f.codes);
}
END_TEST

/* Issue an invoice of cents on day (shop time, 09:00), due the same day. */
static int64_t invoice_on(int64_t customer, const char *day, int64_t cents)
{
	char now[32];
	int64_t job = add_job(customer, "USD"), id;
	struct invoice_input in = {0};
	struct idem_result res;

	add_item(job, "SERVICE", 1000, cents);
	snprintf(now, sizeof now, "%sT09:00", day);
	setenv("FRONTDESK_NOW", now, 1);
	in.jobs = &job;
	in.n_jobs = 1;
	in.terms_days = 0;
	ck_assert_msg(invoice_issue(db, &in, NULL, &res) == 0, "%s", err_msg());
	id = res.id;
	idem_result_free(&res);
	setenv("FRONTDESK_NOW", "2026-12-01T09:00", 1);
	return id;
}

static int aging_collect(const struct aging_row *r, void *arg)
{
	struct aging_row *out = arg;

	ck_assert_int_eq(out->customer_id, 0); /* one row expected */
	*out = *r;
	out->customer_name = NULL;
	return 0;
}

START_TEST(test_aging_buckets_by_shop_day)
{
	int64_t ada = add_customer("Ada"), i0, on;
	struct aging_row r;
	struct alloc_input al;

	i0 = invoice_on(ada, "2026-12-01", 100); /* due today: current */
	invoice_on(ada, "2026-11-30", 200);      /* 1 day: 1-30 */
	invoice_on(ada, "2026-11-01", 400);      /* 30 days (over the DST change): 1-30 */
	invoice_on(ada, "2026-10-31", 800);      /* 31 days: 31-60 */
	invoice_on(ada, "2026-09-02", 1600);     /* 90 days: 61-90 */
	invoice_on(ada, "2026-09-01", 3200);     /* 91 days: over 90 */
	invoice_on(ada, "2026-12-01", 6400);
	al = (struct alloc_input){i0, 100};
	pay(ada, "USD", 150, &al, 1); /* i0 paid; 0.50 left as credit */
	ck_assert_int_eq(clock_parse_local("2026-12-01T23:59", &on), 0);
	memset(&r, 0, sizeof r);
	ck_assert_int_eq(report_aging(db, on, aging_collect, &r), 0);
	ck_assert_int_eq(r.customer_id, ada);
	ck_assert_int_eq(r.bucket[AGING_CURRENT], 6400);
	ck_assert_int_eq(r.bucket[AGING_1_30], 600);
	ck_assert_int_eq(r.bucket[AGING_31_60], 800);
	ck_assert_int_eq(r.bucket[AGING_61_90], 1600);
	ck_assert_int_eq(r.bucket[AGING_OVER_90], 3200);
	ck_assert_int_eq(r.owed, 12600);
	ck_assert_int_eq(r.credit, 50);
	/* the aging total is the sum of the open balances */
	ck_assert_int_eq(one("SELECT sum(balance) FROM invoice"), r.owed);
	assert_clean();
}
END_TEST

/* The rows of an aging report as "id name CUR owed credit" lines. */
static int aging_lines(const struct aging_row *r, void *arg)
{
	char *out = arg;

	snprintf(out + strlen(out), 1024 - strlen(out), "%lld %s %s %lld %lld\n",
	         (long long)r->customer_id, r->customer_name, r->currency, (long long)r->owed,
	         (long long)r->credit);
	return 0;
}

/* The report merges two streams (open invoices, unallocated payments) by
 * customer and currency, then sorts by name as SQLite's NOCASE does: every
 * combination, and the rows it must leave out. */
START_TEST(test_aging_merges_invoices_and_credit)
{
	int64_t bob = add_customer("bob"), ada = add_customer("Ada"), cy = add_customer("Cy");
	int64_t zed = add_customer("Zed"), eve = add_customer("eve"), i, on;
	struct alloc_input al;
	char out[1024] = "", want[1024];

	invoice_of(bob, "USD", 1000); /* bob: owes USD only */
	invoice_of(ada, "EUR", 700);  /* Ada: owes EUR, credit in USD */
	pay(ada, "USD", 300, NULL, 0);
	invoice_of(cy, "USD", 500); /* Cy: owes and has credit in USD */
	pay(cy, "USD", 200, NULL, 0);
	invoice_of(cy, "EUR", 900);      /* ... and owes EUR */
	pay(eve, "USD", 50, NULL, 0);    /* eve: credit only */
	i = invoice_of(zed, "USD", 400); /* Zed: paid in full: left out */
	al = (struct alloc_input){i, 400};
	pay(zed, "USD", 400, &al, 1);
	ck_assert_int_eq(clock_parse_local("2026-12-01T12:00", &on), 0);
	ck_assert_int_eq(report_aging(db, on, aging_lines, out), 0);
	snprintf(want, sizeof want,
	         "%lld Ada EUR 700 0\n%lld Ada USD 0 300\n%lld bob USD 1000 0\n"
	         "%lld Cy EUR 900 0\n%lld Cy USD 500 200\n%lld eve USD 0 50\n",
	         (long long)ada, (long long)ada, (long long)bob, (long long)cy, (long long)cy,
	         (long long)eve);
	ck_assert_str_eq(out, want);
	(void)zed;
	assert_clean();
}
END_TEST

/* One customer's rows (the screen's figures) are the aging report's rows
 * of that customer, word for word; nobody else's money leaks in. */
START_TEST(test_customer_aging_is_the_reports_row)
{
	int64_t ada = add_customer("Ada"), bob = add_customer("Bob"), zed = add_customer("Zed");
	int64_t on, i;
	struct alloc_input al;
	char all[1024] = "", one_[1024] = "", want[1024] = "";
	char *line, *save = NULL;

	invoice_of(ada, "EUR", 700);
	pay(ada, "USD", 300, NULL, 0);
	i = invoice_of(ada, "USD", 1000);
	al = (struct alloc_input){i, 250};
	pay(ada, "USD", 400, &al, 1); /* owes 750 USD, credit 300 + 150 */
	invoice_of(bob, "USD", 999);
	pay(bob, "USD", 11, NULL, 0);
	ck_assert_int_eq(clock_parse_local("2026-12-01T12:00", &on), 0);
	ck_assert_int_eq(report_aging(db, on, aging_lines, all), 0);
	for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char id[32];

		snprintf(id, sizeof id, "%lld ", (long long)ada);
		if (!strncmp(line, id, strlen(id)))
			snprintf(want + strlen(want), sizeof want - strlen(want), "%s\n", line);
	}
	ck_assert_int_eq(report_customer_aging(db, ada, on, aging_lines, one_), 0);
	ck_assert_str_eq(one_, want);
	snprintf(want, sizeof want, "%lld Ada EUR 700 0\n%lld Ada USD 750 450\n", (long long)ada,
	         (long long)ada);
	ck_assert_str_eq(one_, want);
	/* a customer with nothing owed and no credit has no row */
	one_[0] = '\0';
	ck_assert_int_eq(report_customer_aging(db, zed, on, aging_lines, one_), 0);
	ck_assert_str_eq(one_, "");
	ck_assert_int_eq(report_customer_aging(db, 0, on, aging_lines, one_), FD_EINVAL);
	assert_clean();
}
END_TEST

static int count_lines(const struct statement_line *l, void *arg)
{
	(*(int *)arg)++;
	return 0;
}

START_TEST(test_statement_balance_is_open_less_credit)
{
	int64_t ada = add_customer("Ada"), i1, i2, p, a;
	struct alloc_input al;
	struct idem_result res;
	struct refund_input rin = {0};
	struct statement_totals t;
	int n = 0;

	i1 = invoice_of(ada, "USD", 10000);
	i2 = invoice_of(ada, "USD", 5000);
	invoice_of(ada, "EUR", 7000); /* another currency: not in the USD statement */
	ck_assert_int_eq(invoice_credit(db, i2, 1000, "fix", NULL, &res), 0);
	idem_result_free(&res);
	al = (struct alloc_input){i1, 10000};
	p = pay(ada, "USD", 12000, &al, 1);
	a = one("SELECT max(id) FROM payment_allocation");
	ck_assert_int_eq(alloc_reverse(db, a, "wrong", NULL, &res), 0);
	idem_result_free(&res);
	rin.payment_id = p;
	rin.amount = 2000;
	rin.reason = "back";
	ck_assert_int_eq(refund_post(db, &rin, NULL, &res), 0);
	idem_result_free(&res);
	ck_assert_int_eq(report_statement(db, ada, "USD", count_lines, &n, &t), 0);
	ck_assert_int_eq(n,
	                 7); /* 2 invoices, 1 credit note, 1 payment, 2 allocation rows, 1 refund */
	ck_assert_int_eq(t.invoiced, 15000);
	ck_assert_int_eq(t.credited, 1000);
	ck_assert_int_eq(t.received, 12000);
	ck_assert_int_eq(t.refunded, 2000);
	ck_assert_int_eq(t.balance, 15000 - 1000 - 12000 + 2000);
	ck_assert_int_eq(t.open, 14000);
	ck_assert_int_eq(t.credit, 10000);
	ck_assert_int_eq(t.balance, t.open - t.credit);
	ck_assert_int_eq(report_statement(db, 99, "USD", count_lines, &n, &t), FD_ENOTFOUND);
	assert_clean();
}
END_TEST

/* Making room for a refund is the payment module's decision: the newest
 * live allocations are reversed first, and what a reversal frees beyond the
 * need is allocated again to the same invoice; nothing else moves. */
/* Credit freed by a reversal is spent before a new payment is taken: the
 * credit's payments first (oldest received first), then the new payment for
 * the rest, all in one transaction; without enough credit and no new
 * payment nothing is written. */
START_TEST(test_settle_uses_credit_first)
{
	int64_t ada = add_customer("Ada"), bo = add_customer("Bo"), i1, i2, i3, p1, p2;
	struct alloc_input a[2];
	struct payment_input in = {0};
	struct idem_result res = {0}, again = {0};
	struct invoice inv;
	struct payment pm;
	int64_t credit, before;
	char *fp;

	i1 = invoice_of(ada, "USD", 10000);
	a[0] = (struct alloc_input){i1, 10000};
	p1 = pay(ada, "USD", 10000, a, 1);
	p2 = pay(ada, "USD", 3000, NULL, 0); /* 30.00 on account */
	pay(bo, "USD", 9000, NULL, 0);       /* another customer's credit */
	/* the allocation is reversed: 100.00 of p1 is credit again */
	ck_assert_int_eq(alloc_reverse(db, one("SELECT max(id) FROM payment_allocation"),
	                               "wrong invoice", NULL, &res),
	                 0);
	idem_result_free(&res);
	ck_assert_int_eq(credit_available(db, ada, "USD", &credit), 0);
	ck_assert_int_eq(credit, 13000);
	ck_assert_int_eq(credit_available(db, ada, "EUR", &credit), 0);
	ck_assert_int_eq(credit, 0);

	/* 150.00 owed on i1 and i2; 130.00 of credit leaves 20.00: no new
	 * payment is refused, and nothing changes */
	i2 = invoice_of(ada, "USD", 5000);
	a[0] = (struct alloc_input){i1, 10000};
	a[1] = (struct alloc_input){i2, 5000};
	fp = fingerprint();
	ck_assert_int_eq(payment_settle(db, ada, "USD", a, 2, NULL, NULL, &res), FD_EINVAL);
	ck_assert(strstr(err_msg(), "20.00") != NULL);
	{
		char *after = fingerprint();

		ck_assert_str_eq(after, fp);
		free(after);
	}
	free(fp);
	/* with a new payment of 25.00: the credit first, 20.00 from it */
	in.customer_id = ada;
	in.currency = "USD";
	in.amount = 2500;
	in.method = "cash";
	before = one("SELECT count(*) FROM payment");
	ck_assert_msg(payment_settle(db, ada, "USD", a, 2, &in, "settle-1", &res) == 0, "%s",
	              err_msg());
	ck_assert_int_eq(one("SELECT count(*) FROM payment"), before + 1);
	ck_assert_int_eq(res.n, 3); /* p1 -> i1, p2 -> i2 (30.00), new -> i2 (20.00) */
	get_invoice(i1, &inv);
	ck_assert_str_eq(inv.status, "paid");
	invoice_free(&inv);
	get_invoice(i2, &inv);
	ck_assert_str_eq(inv.status, "paid");
	invoice_free(&inv);
	get_payment(p1, &pm);
	ck_assert_int_eq(pm.unallocated, 0);
	payment_free(&pm);
	get_payment(p2, &pm);
	ck_assert_int_eq(pm.unallocated, 0);
	payment_free(&pm);
	get_payment(res.id, &pm);
	ck_assert_int_eq(pm.allocated, 2000);
	ck_assert_int_eq(pm.unallocated, 500); /* the excess is new credit */
	payment_free(&pm);
	/* the same key again: the same answer, nothing written */
	ck_assert_int_eq(payment_settle(db, ada, "USD", a, 2, &in, "settle-1", &again), 0);
	ck_assert_int_eq(again.replayed, 1);
	ck_assert_int_eq(again.id, res.id);
	ck_assert_int_eq(one("SELECT count(*) FROM payment"), before + 1);
	idem_result_free(&res);
	idem_result_free(&again);
	/* Bo's credit was never touched */
	ck_assert_int_eq(credit_available(db, bo, "USD", &credit), 0);
	ck_assert_int_eq(credit, 9000);
	/* credit alone covers an invoice: no new payment */
	i3 = invoice_of(ada, "USD", 500);
	a[0] = (struct alloc_input){i3, 500};
	ck_assert_msg(payment_settle(db, ada, "USD", a, 1, NULL, NULL, &res) == 0, "%s", err_msg());
	ck_assert_int_eq(res.id, 0);
	ck_assert_int_eq(res.n, 1);
	idem_result_free(&res);
	ck_assert_int_eq(credit_available(db, ada, "USD", &credit), 0);
	ck_assert_int_eq(credit, 0);
	/* another customer's payment is refused */
	in.customer_id = bo;
	ck_assert_int_eq(payment_settle(db, ada, "USD", a, 1, &in, NULL, &res), FD_EINVAL);
	assert_clean();
}
END_TEST

START_TEST(test_refund_room_reverses_newest_first)
{
	int64_t ada = add_customer("Ada Lee"), a, b, p;
	struct alloc_input al[2];
	struct payment pm;

	a = invoice_of(ada, "USD", 6000);
	b = invoice_of(ada, "USD", 4000);
	al[0] = (struct alloc_input){a, 6000};
	al[1] = (struct alloc_input){b, 4000};
	p = pay(ada, "USD", 10000, al, 2);
	ck_assert_int_eq(db_begin_write(db), 0);
	ck_assert_msg(refund_make_room_in(db, p, 5000, "room") == 0, "%s", err_msg());
	ck_assert_int_eq(db_commit(db), 0);
	get_payment(p, &pm);
	ck_assert_int_eq(pm.unallocated, 5000);
	payment_free(&pm);
	/* b (the newest) given up whole, a gave 1000 and keeps 5000 */
	ck_assert_int_eq(one("SELECT paid FROM invoice WHERE id = 2"), 0);
	ck_assert_int_eq(one("SELECT paid FROM invoice WHERE id = 1"), 5000);
	ck_assert_int_eq(
	    one("SELECT count(*) FROM payment_allocation WHERE reverses_id IS NOT NULL"), 2);
	/* room that is there already moves nothing */
	ck_assert_int_eq(db_begin_write(db), 0);
	ck_assert_int_eq(refund_make_room_in(db, p, 5000, "room"), 0);
	ck_assert_int_eq(db_commit(db), 0);
	ck_assert_int_eq(one("SELECT count(*) FROM payment_allocation"), 5);
	/* more than the payment holds is refused */
	ck_assert_int_eq(db_begin_write(db), 0);
	ck_assert_int_eq(refund_make_room_in(db, p, 10001, "room"), FD_ECONFLICT);
	db_rollback(db);
}
END_TEST

/* The moves of invoices, payments and refunds are a table in their owners
 * (invoice.c, payment.c), mirrored by the rows of status_transition that the
 * triggers enforce: both say the same, and a table that lacks any one move,
 * or has one more, is caught naming it. */
START_TEST(test_moves_agree_with_the_schema)
{
	static const struct state_move none = {-1, -1};
	const struct states *const all[] = {&invoice_states, &payment_states, &refund_states};
	const size_t nmoves[] = {17, 13, 2};
	size_t k;

	for (k = 0; k < 3; k++)
		ck_assert_uint_eq(fx_states_hold(db, all[k]), nmoves[k]);
	ck_assert_int_eq(fx_states_changed(db, &refund_states, 1, none), FD_ECONFLICT);
	ck_assert_str_eq(err_msg(), "the moves of refund differ: the schema allows pending -> "
	                            "failed, the code does not");
	ck_assert_int_eq(fx_states_changed(db, &invoice_states, SIZE_MAX,
	                                   (struct state_move){INVOICE_VOID, INVOICE_ISSUED}),
	                 FD_ECONFLICT);
	ck_assert_str_eq(err_msg(), "the moves of invoice differ: the code allows void -> "
	                            "issued, the schema does not");
	ck_assert_int_eq(fx_states_changed(db, &payment_states, SIZE_MAX,
	                                   (struct state_move){PAYMENT_VOID, PAYMENT_UNALLOCATED}),
	                 FD_ECONFLICT);
	ck_assert_str_eq(err_msg(), "the moves of payment differ: the code allows void -> "
	                            "unallocated, the schema does not");
}
END_TEST

/* Each state's word is read in one place: every word round-trips, a word of
 * no state (or NULL) is the enum's last value, and every word the schema
 * lets a column hold is one of them. */
START_TEST(test_state_words)
{
	static const char *const cols[] = {"invoice", "payment", "refund", "idempotency_record"};
	static const int nstates[] = {INVOICE_STATES, PAYMENT_STATES, REFUND_STATES, IDEM_STATES};
	sqlite3_stmt *st;
	size_t k;
	int s, found;

	for (s = 0; s < INVOICE_STATES; s++)
		ck_assert_int_eq(invoice_state_of(invoice_state_word((enum invoice_state)s)), s);
	for (s = 0; s < PAYMENT_STATES; s++)
		ck_assert_int_eq(payment_state_of(payment_state_word((enum payment_state)s)), s);
	for (s = 0; s < REFUND_STATES; s++)
		ck_assert_int_eq(refund_state_of(refund_state_word((enum refund_state)s)), s);
	for (s = 0; s < IDEM_STATES; s++) {
		ck_assert_int_ne(*idem_state_word((enum idem_state)s), '\0');
		ck_assert_int_eq(idem_state_of(idem_state_word((enum idem_state)s)), s);
	}
	ck_assert_int_eq(invoice_state_of("open"), INVOICE_STATES);
	ck_assert_int_eq(payment_state_of(NULL), PAYMENT_STATES);
	ck_assert_int_eq(refund_state_of("void"), REFUND_STATES);
	ck_assert_int_eq(idem_state_of("succeeded"), IDEM_STATES);
	ck_assert_str_eq(invoice_state_word(INVOICE_STATES), "");
	ck_assert_str_eq(idem_state_word(IDEM_STATES), "");
	ck_assert_int_eq(invoice_status_valid("open"), 1);
	ck_assert_int_eq(invoice_status_valid("overpaid"), 1);
	ck_assert_int_eq(invoice_status_valid("refunded"), 0);
	ck_assert_int_eq(invoice_status_valid(NULL), 0);
	ck_assert_int_eq(invoice_takes_nothing(INVOICE_DRAFT), 1);
	ck_assert_int_eq(invoice_takes_nothing(INVOICE_VOID), 1);
	ck_assert_int_eq(invoice_takes_nothing(INVOICE_PAID), 0);
	/* the words of each CHECK (status = '...' OR ...) */
	for (k = 0; k < sizeof cols / sizeof cols[0]; k++) {
		const char *sql;
		char *p;

		ck_assert_int_eq(
		    db_prepare(db, "SELECT sql FROM sqlite_master WHERE name = ?1", &st), 0);
		sqlite3_bind_text(st, 1, cols[k], -1, SQLITE_STATIC);
		ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
		sql = (const char *)sqlite3_column_text(st, 0);
		found = 0;
		for (p = strstr(sql, "status = '"); p; p = strstr(p, "status = '")) {
			char w[32];
			size_t n;

			p += strlen("status = '");
			n = strcspn(p, "'");
			ck_assert_uint_lt(n, sizeof w);
			memcpy(w, p, n);
			w[n] = '\0';
			ck_assert_msg((k == 0   ? invoice_state_of(w) != INVOICE_STATES
			               : k == 1 ? payment_state_of(w) != PAYMENT_STATES
			               : k == 2 ? refund_state_of(w) != REFUND_STATES
			                        : idem_state_of(w) != IDEM_STATES),
			              "%s: the schema's state %s has no enum", cols[k], w);
			found++;
		}
		sqlite3_finalize(st);
		ck_assert_int_ge(found, nstates[k]);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("billing");
	TCase *tc = tcase_create("billing");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_one_check_pays_two_invoices);
	tcase_add_test(tc, test_refund_room_reverses_newest_first);
	tcase_add_test(tc, test_refusals_change_nothing);
	tcase_add_test(tc, test_posted_money_is_never_edited);
	tcase_add_test(tc, test_reverse_and_refund);
	tcase_add_test(tc, test_void_payment);
	tcase_add_test(tc, test_partial_quantities_and_snapshots);
	tcase_add_test(tc, test_left_to_bill_of_a_job);
	tcase_add_test(tc, test_price_of_an_invoiced_item);
	tcase_add_test(tc, test_combine_jobs_one_customer);
	tcase_add_test(tc, test_numbers_are_gap_free);
	tcase_add_test(tc, test_credit_note);
	tcase_add_test(tc, test_overpay_only_when_allowed);
	tcase_add_test(tc, test_auto_allocation_oldest_due_first);
	tcase_add_test(tc, test_idempotency);
	tcase_add_test(tc, test_check_reports_corruption);
	tcase_add_test(tc, test_check_reports_missing_history_and_deletes);
	tcase_add_test(tc, test_aging_buckets_by_shop_day);
	tcase_add_test(tc, test_aging_merges_invoices_and_credit);
	tcase_add_test(tc, test_customer_aging_is_the_reports_row);
	tcase_add_test(tc, test_statement_balance_is_open_less_credit);
	tcase_add_test(tc, test_settle_uses_credit_first);
	tcase_add_test(tc, test_moves_agree_with_the_schema);
	tcase_add_test(tc, test_state_words);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
