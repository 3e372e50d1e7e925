/*
 * check_paybatch.c - unit tests of payment_record_batch (many payments in
 * one transaction, all or nothing, with every check of payment_record) and
 * of the CSV reader and the allocation text reader (alloc_read_list) behind
 * `frontdesk pay import`, on a fresh database per test. Every scenario that
 * writes ends with check_run() clean; every refusal leaves the money tables
 * exactly as they were.
 */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkdb.h"
#include "csv.h"
#include "db.h"
#include "err.h"
#include "fixture.h"
#include "idem.h"
#include "invoice.h"
#include "money.h"
#include "payment.h"

static struct fx F;
static struct db *db;
#define tmpdir F.dir
#define dbpath F.path

static void setup(void)
{
	fx_env();
	fx_open(&F, "batch");
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

/* Row counts and figures of everything a refused batch must leave as it was. */
static char *fingerprint(void)
{
	static const char *const tables[] = {
	    "payment",     "payment_allocation", "payment_his",        "payment_allocation_his",
	    "invoice_his", "status_flow",        "idempotency_record",
	};
	char *out = calloc(1, 2048), sql[200];
	size_t i;

	for (i = 0; i < sizeof tables / sizeof tables[0]; i++) {
		snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", tables[i]);
		snprintf(out + strlen(out), 2048 - strlen(out), "%s=%lld ", tables[i],
		         (long long)one(sql));
	}
	snprintf(out + strlen(out), 2048 - strlen(out), "paid=%lld alloc=%lld",
	         (long long)one("SELECT coalesce(sum(paid), 0) FROM invoice"),
	         (long long)one("SELECT coalesce(sum(allocated), 0) FROM payment"));
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

/* An issued invoice of `cents` USD for customer, due in `terms` days. */
static int64_t invoice_of(int64_t customer, int64_t cents, long terms)
{
	return fx_invoice(db, customer, cents, terms);
}

static void item(struct payment_batch_item *it, int64_t customer, int64_t cents,
                 const struct alloc_input *allocs, size_t n)
{
	memset(it, 0, sizeof *it);
	it->in.customer_id = customer;
	it->in.currency = "USD";
	it->in.amount = cents;
	it->in.method = "check";
	it->allocs = allocs;
	it->n = n;
}

static int64_t invoice_figure(int64_t id, const char *col)
{
	char sql[120];

	snprintf(sql, sizeof sql, "SELECT %s FROM invoice WHERE id = %lld", col, (long long)id);
	return one(sql);
}

/* ------------------------------------------------------------ batches */

START_TEST(test_batch_posts_every_payment)
{
	int64_t ada = add_customer("Ada"), bob = add_customer("Bob");
	int64_t i1 = invoice_of(ada, 10000, 30), i2 = invoice_of(ada, 20000, 30);
	int64_t i3 = invoice_of(bob, 8000, 30);
	struct alloc_input a1[2] = {{i1, 10000}, {i2, 20000}}, a2[1] = {{i3, 5000}};
	struct payment_batch_item items[3];
	struct idem_result res;
	size_t refused = 99;
	struct payment p;
	int64_t cache;

	item(&items[0], ada, 30000, a1, 2);  /* one $300 check pays two invoices */
	item(&items[1], bob, 5000, a2, 1);   /* part of Bob's */
	item(&items[2], ada, 2550, NULL, 0); /* credit only */
	cache = one("PRAGMA cache_size");
	ck_assert_msg(payment_record_batch(db, items, 3, NULL, &res, &refused) == 0, "%s",
	              err_msg());
	ck_assert_int_eq(one("PRAGMA cache_size"), cache); /* its bigger cache was given back */
	ck_assert_uint_eq(refused, 3);
	ck_assert_uint_eq(res.n, 3);
	ck_assert_int_eq(res.id, res.ids[0]);
	ck_assert_int_eq(res.replayed, 0);
	ck_assert_int_eq(one("SELECT count(*) FROM payment"), 3);
	ck_assert_int_eq(one("SELECT count(*) FROM payment_allocation"), 3);
	ck_assert_int_eq(invoice_figure(i1, "balance"), 0);
	ck_assert_int_eq(invoice_figure(i2, "balance"), 0);
	ck_assert_int_eq(invoice_figure(i3, "balance"), 3000);
	ck_assert_int_eq(payment_get(db, res.ids[0], &p), 0);
	ck_assert_str_eq(p.status, "allocated");
	ck_assert_int_eq(p.customer_id, ada);
	payment_free(&p);
	ck_assert_int_eq(payment_get(db, res.ids[1], &p), 0);
	ck_assert_int_eq(p.customer_id, bob);
	ck_assert_str_eq(p.status, "allocated");
	payment_free(&p);
	ck_assert_int_eq(payment_get(db, res.ids[2], &p), 0);
	ck_assert_str_eq(p.status, "unallocated");
	ck_assert_int_eq(p.unallocated, 2550);
	payment_free(&p);
	/* every payment has its history and status flows, as one at a time */
	ck_assert_int_eq(one("SELECT count(DISTINCT id) FROM payment_his"), 3);
	ck_assert_int_eq(one("SELECT count(*) FROM status_flow WHERE entity = 'invoice'"
	                     " AND to_status = 'paid'"),
	                 2);
	idem_result_free(&res);
	assert_clean();
}
END_TEST

START_TEST(test_batch_sees_the_payments_before)
{
	int64_t ada = add_customer("Ada"), i1 = invoice_of(ada, 10000, 30);
	struct alloc_input a[1] = {{i1, 10000}};
	struct payment_batch_item items[2];
	struct idem_result res;
	size_t refused = 99;
	char *before = fingerprint(), *after;
	int rc;

	/* the second payment would pay the invoice that the first one settled */
	item(&items[0], ada, 10000, a, 1);
	item(&items[1], ada, 10000, a, 1);
	rc = payment_record_batch(db, items, 2, NULL, &res, &refused);
	ck_assert_int_eq(rc, FD_EINVAL);
	ck_assert_uint_eq(refused, 1);
	ck_assert_msg(strstr(err_msg(), "payment 2 of 2: invoice INV-2026-000001 has only 0.00"),
	              "%s", err_msg());
	ck_assert_uint_eq(res.n, 0);
	ck_assert_ptr_null(res.ids);
	after = fingerprint();
	ck_assert_str_eq(before, after); /* the first payment is not kept either */
	free(before);
	free(after);
	assert_clean();
}
END_TEST

START_TEST(test_batch_refused_before_writing)
{
	int64_t ada = add_customer("Ada"), i1 = invoice_of(ada, 10000, 30);
	struct alloc_input a[1] = {{i1, 10000}}, zero[1] = {{i1, 0}};
	struct payment_batch_item items[3];
	struct idem_result res;
	size_t refused = 99;
	char *before = fingerprint(), *after;

	item(&items[0], ada, 10000, a, 1);
	item(&items[1], ada, 500, NULL, 0);
	item(&items[2], ada, 500, NULL, 0);
	items[2].in.method = "barter";
	ck_assert_int_eq(payment_record_batch(db, items, 3, NULL, &res, &refused), FD_EINVAL);
	ck_assert_uint_eq(refused, 2);
	ck_assert_msg(strstr(err_msg(), "payment 3 of 3: the method must be"), "%s", err_msg());
	item(&items[2], ada, 500, zero, 1);
	ck_assert_int_eq(payment_record_batch(db, items, 3, NULL, &res, &refused), FD_EINVAL);
	ck_assert_uint_eq(refused, 2);
	ck_assert_msg(strstr(err_msg(), "payment 3 of 3: an allocation must be greater than zero"),
	              "%s", err_msg());
	item(&items[2], 99, 500, NULL, 0); /* no such customer: found in the transaction */
	ck_assert_int_eq(payment_record_batch(db, items, 3, NULL, &res, &refused), FD_ENOTFOUND);
	ck_assert_uint_eq(refused, 2);
	ck_assert_msg(strstr(err_msg(), "payment 3 of 3: there is no customer 99"), "%s",
	              err_msg());
	/* the batch as a whole */
	ck_assert_int_eq(payment_record_batch(db, items, 0, NULL, &res, &refused), FD_EINVAL);
	ck_assert_uint_eq(refused, 0);
	ck_assert_int_eq(
	    payment_record_batch(db, items, (size_t)PAYMENT_BATCH_MAX + 1, NULL, &res, &refused),
	    FD_EINVAL);
	ck_assert_uint_eq(refused, (size_t)PAYMENT_BATCH_MAX + 1);
	after = fingerprint();
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
}
END_TEST

START_TEST(test_batch_idempotency_key)
{
	int64_t ada = add_customer("Ada"), i1 = invoice_of(ada, 10000, 30);
	struct alloc_input a[1] = {{i1, 4000}};
	struct payment_batch_item items[2];
	struct idem_result first, again;
	char *before, *after;

	item(&items[0], ada, 4000, a, 1);
	item(&items[1], ada, 1000, NULL, 0);
	ck_assert_msg(payment_record_batch(db, items, 2, "import-7", &first, NULL) == 0, "%s",
	              err_msg());
	before = fingerprint();
	ck_assert_int_eq(payment_record_batch(db, items, 2, "import-7", &again, NULL), 0);
	ck_assert_int_eq(again.replayed, 1);
	ck_assert_uint_eq(again.n, 2);
	ck_assert_int_eq(again.ids[0], first.ids[0]);
	ck_assert_int_eq(again.ids[1], first.ids[1]);
	after = fingerprint();
	ck_assert_str_eq(before, after); /* the replay wrote nothing */
	idem_result_free(&again);
	/* the same key for another batch is refused */
	items[1].in.amount = 1001;
	ck_assert_int_eq(payment_record_batch(db, items, 2, "import-7", &again, NULL),
	                 FD_ECONFLICT);
	free(after);
	after = fingerprint();
	ck_assert_str_eq(before, after);
	ck_assert_int_eq(invoice_figure(i1, "paid"), 4000);
	idem_result_free(&first);
	free(before);
	free(after);
	assert_clean();
}
END_TEST

START_TEST(test_batch_auto_allocation)
{
	int64_t ada = add_customer("Ada");
	int64_t later = invoice_of(ada, 5000, 60), sooner = invoice_of(ada, 3000, 10);
	struct payment_batch_item items[1];
	struct idem_result res;

	item(&items[0], ada, 4000, NULL, 0);
	items[0].auto_alloc = 1;
	ck_assert_msg(payment_record_batch(db, items, 1, NULL, &res, NULL) == 0, "%s", err_msg());
	ck_assert_int_eq(invoice_figure(sooner, "balance"), 0);   /* due first: settled */
	ck_assert_int_eq(invoice_figure(later, "balance"), 4000); /* the rest: 10.00 */
	idem_result_free(&res);
	assert_clean();
}
END_TEST

/* alloc_read_list: the one reading of allocation text (pay record's
 * arguments, pay import's cell), of tmpl with each '#' the invoice id inv.
 * Returns the count read, or -1. */
static int read_list(const char *tmpl, int64_t inv, struct alloc_input **a, size_t *n)
{
	char text[200] = "";
	const char *p;
	int rc;

	for (p = tmpl; *p; p++)
		if (*p == '#')
			snprintf(text + strlen(text), sizeof text - strlen(text), "%lld",
			         (long long)inv);
		else
			snprintf(text + strlen(text), sizeof text - strlen(text), "%c", *p);
	*n = 0;
	rc = alloc_read_list(db, text, "USD", a, n);
	return rc ? -1 : (int)*n;
}

START_TEST(test_alloc_read_list)
{
	int64_t ada = add_customer("Ada"), inv = invoice_of(ada, 5000, 30);
	struct alloc_input *a = NULL;
	size_t n;

	ck_assert_int_eq(read_list("#=12", inv, &a, &n), 1);
	ck_assert_int_eq(a[0].invoice_id, inv);
	ck_assert_int_eq(a[0].amount, 1200);
	/* blanks beside a ';' go with it; an empty place beside one is skipped */
	ck_assert_int_eq(read_list("#=5; \t#=7;", inv, &a, &n), 2);
	ck_assert_int_eq(a[0].amount + a[1].amount, 1200);
	ck_assert_int_eq(read_list(";#=5 ;;#=7", inv, &a, &n), 2);
	/* any other blank is the allocation's, and refused as alloc_read refuses it */
	ck_assert_int_eq(read_list("#=12 ", inv, &a, &n), -1);
	ck_assert_msg(strstr(err_msg(), "bad allocation amount '12 '"), "%s", err_msg());
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(read_list(" #=12", inv, &a, &n), -1);
	ck_assert_int_eq(read_list("#=5; #=7\t", inv, &a, &n), -1);
	ck_assert_int_eq(read_list("#= 12", inv, &a, &n), -1);
	ck_assert_int_eq(read_list(" ", inv, &a, &n), -1);
	/* a text with no allocation at all */
	ck_assert_int_eq(read_list("", inv, &a, &n), -1);
	ck_assert_int_eq(read_list(" ; ", inv, &a, &n), -1);
	ck_assert_msg(strstr(err_msg(), "INVOICE=AMOUNT"), "%s", err_msg());
	/* appends; on a refusal the count stays (invoice 1 is inv) */
	ck_assert_int_eq(inv, 1);
	n = 0;
	ck_assert_int_eq(alloc_read_list(db, "1=1", "USD", &a, &n), 0);
	ck_assert_int_eq(alloc_read_list(db, "1=2;1=x", "USD", &a, &n), FD_EINVAL);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(alloc_read_list(db, "1=3", "USD", &a, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(a[1].amount, 300);
	free(a);
}
END_TEST

/* ------------------------------------------------------------ csv */

/* Read every record of text; join fields with '|' and records with '/'. */
static int read_all(const char *text, char *out, size_t n, long *line)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct csv_reader r;
	size_t i;
	int rc;

	ck_assert_ptr_nonnull(f);
	out[0] = '\0';
	csv_open(&r, f);
	while ((rc = csv_next(&r, line)) == 1) {
		for (i = 0; i < r.n; i++)
			snprintf(out + strlen(out), n - strlen(out), "%s%s", i ? "|" : "",
			         r.field[i]);
		snprintf(out + strlen(out), n - strlen(out), "/");
	}
	csv_close(&r);
	fclose(f);
	return rc;
}

START_TEST(test_csv_fields)
{
	char out[512];
	long line = 0;

	ck_assert_int_eq(read_all("a,b,c\n1,,3\n", out, sizeof out, &line), 0);
	ck_assert_str_eq(out, "a|b|c/1||3/");
	/* quotes: commas, doubled quotes and line breaks inside; CRLF; no final break */
	ck_assert_int_eq(
	    read_all("\"x, y\",\"say \"\"hi\"\"\"\r\n\"two\nlines\",z", out, sizeof out, &line), 0);
	ck_assert_str_eq(out, "x, y|say \"hi\"/two\nlines|z/");
	ck_assert_int_eq(line, 2); /* the second record starts on line 2 */
	/* a byte order mark is skipped; empty lines are skipped */
	ck_assert_int_eq(read_all("\xef\xbb\xbf"
	                          "a\n\n\r\nb\n",
	                          out, sizeof out, &line),
	                 0);
	ck_assert_str_eq(out, "a/b/");
	ck_assert_int_eq(line, 4);
	/* what only looks like a mark is data */
	ck_assert_int_eq(read_all("\xef\xbb"
	                          "x\n",
	                          out, sizeof out, &line),
	                 0);
	ck_assert_str_eq(out, "\xef\xbb"
	                      "x/");
	ck_assert_int_eq(read_all("", out, sizeof out, &line), 0);
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_csv_refusals)
{
	char out[512], big[CSV_FIELD_MAX + 16];
	long line = 0;

	ck_assert_int_eq(read_all("a\n\"open,\nstill\n", out, sizeof out, &line), FD_EINVAL);
	ck_assert_msg(strstr(err_msg(), "line 2: a quoted field is never closed"), "%s", err_msg());
	ck_assert_int_eq(read_all("a\nb\n\"x\"y\n", out, sizeof out, &line), FD_EINVAL);
	ck_assert_msg(strstr(err_msg(), "line 3: text after the closing quote"), "%s", err_msg());
	ck_assert_int_eq(read_all("a\rb\n", out, sizeof out, &line), FD_EINVAL);
	ck_assert_msg(strstr(err_msg(), "line 1: a carriage return"), "%s", err_msg());
	memset(big, 'x', sizeof big - 2);
	big[sizeof big - 2] = '\n';
	big[sizeof big - 1] = '\0';
	ck_assert_int_eq(read_all(big, out, sizeof out, &line), FD_EINVAL);
	ck_assert_msg(strstr(err_msg(), "a field longer than"), "%s", err_msg());
	memset(big, ',', CSV_FIELDS_MAX + 1);
	strcpy(big + CSV_FIELDS_MAX + 1, "\n");
	ck_assert_int_eq(read_all(big, out, sizeof out, &line), FD_EINVAL);
	ck_assert_msg(strstr(err_msg(), "more than"), "%s", err_msg());
}
END_TEST

int main(void)
{
	Suite *s = suite_create("paybatch");
	TCase *tc = tcase_create("batch"), *tcsv = tcase_create("csv");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_batch_posts_every_payment);
	tcase_add_test(tc, test_batch_sees_the_payments_before);
	tcase_add_test(tc, test_batch_refused_before_writing);
	tcase_add_test(tc, test_batch_idempotency_key);
	tcase_add_test(tc, test_batch_auto_allocation);
	tcase_add_test(tc, test_alloc_read_list);
	suite_add_tcase(s, tc);
	tcase_add_test(tcsv, test_csv_fields);
	tcase_add_test(tcsv, test_csv_refusals);
	suite_add_tcase(s, tcsv);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
