/*
 * check_journal.c - the exported journal against ledger and hledger: a generated history
 * of thousands of money operations (invoices, partial invoices, payments,
 * automatic and reversed allocations, refunds, credit notes, voids, several
 * currencies, awkward customer names) is exported with journal_export(); both
 * readers must read it without a complaint, in their strict modes too (every
 * account and commodity declared), and their balance of every customer's
 * receivable and credit account must equal frontdesk's own aging report to
 * the cent. A cash drawer is opened, paid out of and counted (exact, over
 * or short) along the way: each currency's Assets:Payments:cash must equal
 * its cash takings net of refunds (report_takings) less the paid-outs plus
 * over and short, to the cent; days are closed (and some reopened and
 * closed again) along the way, and `check` must stay clean.
 * FD_STRESS=1 makes the history ten times longer.
 */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkdb.h"
#include "clock.h"
#include "dayclose.h"
#include "db.h"
#include "drawer.h"
#include "err.h"
#include "fixture.h"
#include "idem.h"
#include "invoice.h"
#include "journal.h"
#include "money.h"
#include "payment.h"
#include "report.h"

#define CUSTOMERS     40
#define MAX_CUSTOMERS 64

static struct fx F;
static char jpath[160];
static struct db *db;
#define tmpdir F.dir
static uint64_t seed = 20261201;

static unsigned rnd(unsigned n)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((seed >> 33) % n);
}

static int64_t one(const char *sql)
{
	return fx_one(db, sql);
}

/* The id of the k-th row (k random) that sql (with one OFFSET ?) returns, or 0. */
static int64_t pick(const char *count_sql, const char *sql)
{
	int64_t n = one(count_sql), id = 0;
	sqlite3_stmt *st;

	if (n <= 0)
		return 0;
	ck_assert_int_eq(db_prepare(db, sql, &st), 0);
	sqlite3_bind_int64(st, 1, rnd((unsigned)n));
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

/* A refusal is a normal outcome of a random request; a database error is not. */
static void outcome(int rc, const char *what)
{
	ck_assert_msg(rc == 0 || rc == FD_EINVAL || rc == FD_ECONFLICT || rc == FD_ENOTFOUND,
	              "%s: %d %s", what, rc, err_msg());
}

static void setup(void)
{
	static const char *const names[] = {"Ada Lee",  "O'Brien; Sons",      "Zoë | #1 Detailing",
	                                    "李小龍",   "(Paren) Co",         "Two  Spaces",
	                                    "=SUM(A1)", "Tab-less \"Quoted\""};
	static const char *const currencies[] = {"USD", "EUR", "JPY", "KWD"};
	char sql[300];
	int i;

	setenv("TZ", "America/New_York", 1);
	setenv("FRONTDESK_NOW", "2026-01-05T09:00", 1);
	fx_open(&F, "journal");
	db = F.db;
	snprintf(jpath, sizeof jpath, "%s/journal.ledger", F.dir);
	/* a test database: speed over durability */
	ck_assert_int_eq(db_exec(db, "PRAGMA synchronous=OFF"), 0);
	for (i = 0; i < CUSTOMERS; i++) {
		sqlite3_stmt *st;

		ck_assert_int_eq(db_prepare(db,
		                            "INSERT INTO customer (name, created_at, updated_at)"
		                            " VALUES (?, 0, 0)",
		                            &st),
		                 0);
		snprintf(sql, sizeof sql, "%s %d", names[i % 8], i + 1);
		sqlite3_bind_text(st, 1, sql, -1, SQLITE_TRANSIENT);
		ck_assert_int_eq(db_run(db, st, "customer"), 0);
		snprintf(sql, sizeof sql,
		         "INSERT INTO service_order (customer_id, title, currency, created_at,"
		         " updated_at) VALUES (%d, 'work', '%s', 0, 0)",
		         i + 1, currencies[i % 4]);
		ck_assert_int_eq(db_exec(db, sql), 0);
	}
}

static void teardown(void)
{
	fx_close(&F);
	db = NULL;
}

static void op_invoice(void)
{
	static const char *const kinds[] = {"SERVICE", "SERVICE", "FEE", "TAX", "DISCOUNT"};
	int64_t job = 1 + rnd(CUSTOMERS), price, amount, item = 0;
	struct invoice_input in = {0};
	struct invoice_pick p;
	struct idem_result res;
	int i, n = 1 + (int)rnd(3);
	char sql[400];

	for (i = 0; i < n; i++) {
		const char *kind = kinds[rnd(5)];
		int64_t qty = 500 * (1 + rnd(4));

		price = 100 * (1 + rnd(400)) + rnd(100);
		if (!strcmp(kind, "DISCOUNT"))
			price = 1 + rnd(50);
		ck_assert_int_eq(money_line_amount(qty, price, &amount), 0);
		if (!strcmp(kind, "DISCOUNT"))
			amount = -amount;
		snprintf(sql, sizeof sql,
		         "INSERT INTO line_item (service_order_id, kind, description, qty_milli,"
		         " unit_price, amount, created_at, updated_at) VALUES (%lld, '%s', 'work',"
		         " %lld, %lld, %lld, 0, 0)",
		         (long long)job, kind, (long long)qty, (long long)price, (long long)amount);
		ck_assert_int_eq(db_exec(db, sql), 0);
		item = sqlite3_last_insert_rowid(db_sqlite(db));
	}
	in.terms_days = (long)rnd(45);
	if (rnd(3) == 0) { /* part of the last item only */
		p.item_id = item;
		p.qty_milli = 250;
		in.items = &p;
		in.n_items = 1;
	} else {
		in.jobs = &job;
		in.n_jobs = 1;
	}
	in.allow_overpay = rnd(20) == 0;
	outcome(invoice_issue(db, &in, NULL, &res), "issue");
	idem_result_free(&res);
}

static const char *customer_currency(int64_t customer)
{
	static const char *const currencies[] = {"USD", "EUR", "JPY", "KWD"};

	return currencies[(customer - 1) % 4];
}

static void op_payment(void)
{
	static const char *const methods[] = {"cash", "check", "card", "bank_transfer", "other"};
	int64_t cust = 1 + rnd(CUSTOMERS);
	struct payment_input in = {
	    cust, customer_currency(cust), 100 * (1 + rnd(300)), methods[rnd(5)], NULL, 0, NULL, 0};
	struct idem_result res;

	outcome(payment_record(db, &in, NULL, 0, rnd(4) != 0, NULL, &res), "payment");
	idem_result_free(&res);
}

static void op_allocate(void)
{
	int64_t p =
	    pick("SELECT count(*) FROM payment WHERE status IN ('unallocated',"
	         " 'partially_allocated')",
	         "SELECT id FROM payment WHERE status IN ('unallocated', 'partially_allocated')"
	         " ORDER BY id LIMIT 1 OFFSET ?");
	struct idem_result res;

	if (p) {
		outcome(alloc_post(db, p, NULL, 0, 1, NULL, &res), "allocate");
		idem_result_free(&res);
	}
}

static void op_reverse(void)
{
	int64_t a = pick("SELECT count(*) FROM payment_allocation WHERE reverses_id IS NULL",
	                 "SELECT id FROM payment_allocation WHERE reverses_id IS NULL"
	                 " ORDER BY id LIMIT 1 OFFSET ?");
	struct idem_result res;

	if (a) {
		outcome(alloc_reverse(db, a, "generated", NULL, &res), "reverse");
		idem_result_free(&res);
	}
}

static void op_refund(void)
{
	int64_t p = pick("SELECT count(*) FROM payment WHERE amount > allocated + refunded"
	                 " AND status <> 'void'",
	                 "SELECT id FROM payment WHERE amount > allocated + refunded"
	                 " AND status <> 'void' ORDER BY id LIMIT 1 OFFSET ?");
	struct refund_input in = {p, 0, NULL, NULL, "generated", 0, 0};
	struct payment pm;
	struct idem_result res;

	if (!p || payment_get(db, p, &pm) != 0)
		return;
	in.amount = 1 + (int64_t)rnd((unsigned)pm.unallocated);
	in.pending = rnd(4) == 0;
	payment_free(&pm);
	outcome(refund_post(db, &in, NULL, &res), "refund");
	if (in.pending && res.id)
		outcome(refund_settle(db, res.id, rnd(2), NULL), "settle");
	idem_result_free(&res);
}

static void op_credit(void)
{
	int64_t i =
	    pick("SELECT count(*) FROM invoice WHERE status IN ('issued', 'partially_paid')",
	         "SELECT id FROM invoice WHERE status IN ('issued', 'partially_paid')"
	         " ORDER BY id LIMIT 1 OFFSET ?");
	struct invoice inv;
	struct idem_result res;

	if (!i || invoice_get(db, i, &inv) != 0)
		return;
	outcome(invoice_credit(db, i,
	                       1 + (int64_t)rnd((unsigned)(inv.balance > 1 ? inv.balance : 1)),
	                       "generated", NULL, &res),
	        "credit");
	invoice_free(&inv);
	idem_result_free(&res);
}

static void op_void(void)
{
	int64_t i =
	    pick("SELECT count(*) FROM invoice WHERE kind = 'invoice' AND status = 'issued'",
	         "SELECT id FROM invoice WHERE kind = 'invoice' AND status = 'issued'"
	         " ORDER BY id LIMIT 1 OFFSET ?");
	int64_t p = pick("SELECT count(*) FROM payment WHERE status = 'unallocated'",
	                 "SELECT id FROM payment WHERE status = 'unallocated'"
	                 " ORDER BY id LIMIT 1 OFFSET ?");

	if (i && rnd(2))
		outcome(invoice_void(db, i, "generated"), "void invoice");
	else if (p)
		outcome(payment_void(db, p, "generated"), "void payment");
}

/* The desk's cash drawer (USD; cash of the other currencies belongs to no
 * drawer): opened with a float when none is open, else paid out of (with a
 * reason the journal must make safe) or counted, exact, over or short. A
 * paid-out beyond what it holds is refused: a normal outcome. */
static void op_drawer(void)
{
	struct drawer d, out;
	char text[64];
	int64_t count;
	int rc = drawer_current(db, NULL, &d);

	if (rc == FD_ENOTFOUND) {
		snprintf(text, sizeof text, "%u.%02u", 50 + rnd(100), rnd(100));
		outcome(drawer_open(db, "front", "USD", text, NULL), "drawer open");
		return;
	}
	ck_assert_msg(rc == 0, "drawer_current: %d %s", rc, err_msg());
	if (rnd(3) != 0) {
		outcome(drawer_payout(db, NULL, 1 + (int64_t)rnd(3000), "milk; #2 | tea", NULL),
		        "payout");
	} else {
		count = drawer_expected(&d);
		if (rnd(3) != 0)
			count += (int64_t)rnd(601) - 300;
		if (count < 0)
			count = 0;
		snprintf(text, sizeof text, "%lld.%02lld", (long long)(count / 100),
		         (long long)(count % 100));
		rc = drawer_close(db, NULL, 0, text, "counted; over | short", &out);
		outcome(rc, "drawer close");
		if (rc == 0)
			drawer_free(&out);
	}
	drawer_free(&d);
}

/* The day before now is closed (refused while a drawer opened before its
 * end is not counted: a normal outcome), and now and then the last day
 * closed is reopened (and closed again by a later call): what comes after
 * never lands in a closed day, so `check` stays clean. */
static void op_day(int64_t now)
{
	char day[16];
	char *prev = NULL;
	sqlite3_stmt *st;

	if (rnd(5) == 0) {
		ck_assert_int_eq(db_prepare(db,
		                            "SELECT day FROM day_close WHERE kind = 'close'"
		                            " ORDER BY id DESC LIMIT 1",
		                            &st),
		                 0);
		if (sqlite3_step(st) == SQLITE_ROW) {
			snprintf(day, sizeof day, "%s", (const char *)sqlite3_column_text(st, 0));
			sqlite3_finalize(st);
			outcome(day_reopen(db, day, "generated: a late receipt"), "day reopen");
			outcome(day_close(db, day, &prev), "day close again");
			free(prev);
			return;
		}
		sqlite3_finalize(st);
	}
	clock_format_local(now - 86400, "%Y-%m-%d", day, sizeof day);
	outcome(day_close(db, day, &prev), "day close");
	free(prev);
}

static void generate(int ops)
{
	int64_t t;
	char now[32];
	int k;

	ck_assert_int_eq(clock_parse_local("2026-01-05T09:00", &t), 0);
	for (k = 0; k < ops; k++) {
		unsigned r = rnd(100);

		if (k % 20 == 0) { /* the clock moves on: dates and ages vary */
			t += 3600 * (int64_t)(1 + rnd(30));
			clock_format_local(t, "%Y-%m-%dT%H:%M", now, sizeof now);
			setenv("FRONTDESK_NOW", now, 1);
			if (k > 0 && rnd(2) == 0)
				op_day(t);
		}
		if (k % 10 == 5) /* the drawer's life, beside the rest */
			op_drawer();
		if (r < 30)
			op_invoice();
		else if (r < 55)
			op_payment();
		else if (r < 67)
			op_allocate();
		else if (r < 77)
			op_reverse();
		else if (r < 86)
			op_refund();
		else if (r < 93)
			op_credit();
		else
			op_void();
	}
}

static void report_fail(const char *code, const char *detail, void *arg)
{
	fprintf(stderr, "# check: %s: %s\n", code, detail);
}

struct expect {
	int64_t owed[MAX_CUSTOMERS + 1], credit[MAX_CUSTOMERS + 1];
	int64_t total_owed;
};

static int aging_cb(const struct aging_row *r, void *arg)
{
	struct expect *e = arg;

	ck_assert_int_le(r->customer_id, MAX_CUSTOMERS);
	e->owed[r->customer_id] = r->owed;
	e->credit[r->customer_id] = r->credit;
	e->total_owed += r->owed != 0;
	return 0;
}

/* The two readers' balance reports of every receivable and credit account,
 * as "ACCOUNT<TAB>AMOUNT CUR" lines (%1$s: the journal, %2$s: a folder for
 * stderr). */
static const char ledger_bal[] = "ledger -f '%1$s' --flat --no-total --no-color --balance-format"
                                 " '%%(account)\\t%%(display_total)\\n' bal '^Assets:Receivable'"
                                 " '^Liabilities:Customer credit' 2>'%2$s/reader.err'";
static const char hledger_bal[] =
    "hledger -f '%1$s' bal --flat --no-total -O csv '^Assets:Receivable'"
    " '^Liabilities:Customer credit' 2>'%2$s/reader.err'"
    " | tail -n +2 | sed 's/^\"\\(.*\\)\",\"\\(.*\\)\"$/\\1\t\\2/'";

/* Read a reader's balance lines into minor units and compare them with the
 * aging report, customer by customer; the reader must not complain. */
static void compare_with(const char *reader, const struct expect *e, int *checked)
{
	char cmd[1024], line[512], err[256];
	int64_t got_owed[MAX_CUSTOMERS + 1] = {0}, got_credit[MAX_CUSTOMERS + 1] = {0};
	FILE *p;
	int i, nonzero = 0;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral" /* formats from a table of this test */
	snprintf(cmd, sizeof cmd, reader, jpath, tmpdir);
#pragma GCC diagnostic pop
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof line, p)) {
		char *tab = strchr(line, '\t'), *sp, *nl;
		const char *acct = line;
		long cust;
		int64_t v;

		ck_assert_msg(tab != NULL, "unexpected line: %s", line);
		*tab = '\0';
		nl = strchr(tab + 1, '\n');
		if (nl)
			*nl = '\0';
		sp = strrchr(tab + 1, ' ');
		ck_assert_msg(sp != NULL, "no commodity in '%s'", tab + 1);
		*sp = '\0';
		ck_assert_msg(money_parse(tab + 1, currency_find(sp + 1), &v) == 0,
		              "amount '%s %s': %s", tab + 1, sp + 1, err_msg());
		cust = strtol(strrchr(acct, ' ') + 1, NULL, 10);
		ck_assert_msg(cust >= 1 && cust <= CUSTOMERS, "account %s", acct);
		ck_assert_str_eq(sp + 1, customer_currency(cust));
		if (!strncmp(acct, "Assets:Receivable:", 18))
			got_owed[cust] = v;
		else
			got_credit[cust] = -v;
	}
	ck_assert_int_eq(pclose(p), 0);
	snprintf(cmd, sizeof cmd, "%s/reader.err", tmpdir);
	p = fopen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	err[0] = '\0';
	ck_assert_msg(fgets(err, sizeof err, p) == NULL, "%.20s complained: %s", reader, err);
	fclose(p);
	for (i = 1; i <= CUSTOMERS; i++) {
		ck_assert_msg(got_owed[i] == e->owed[i],
		              "customer %d: %.7s receivable %lld, aging %lld", i, reader,
		              (long long)got_owed[i], (long long)e->owed[i]);
		ck_assert_msg(got_credit[i] == e->credit[i],
		              "customer %d: %.7s credit %lld, aging %lld", i, reader,
		              (long long)got_credit[i], (long long)e->credit[i]);
		nonzero += e->owed[i] != 0;
	}
	*checked = nonzero;
}

static int takings_cb(const struct takings_row *r, void *arg)
{
	static const char *const currencies[] = {"USD", "EUR", "JPY", "KWD"};
	int64_t *cash = arg;
	int i;

	if (strcmp(r->method, "cash") != 0)
		return 0;
	for (i = 0; i < 4; i++)
		if (!strcmp(r->currency, currencies[i]))
			cash[i] += r->net;
	return 0;
}

/* Assets:Payments:cash in each currency, as ledger and hledger read it,
 * equals the cash takings net of refunds (report_takings, every day) less
 * the drawers' paid-outs plus their over and short, to the cent. */
static void cash_agrees_with_takings(void)
{
	static const char *const currencies[] = {"USD", "EUR", "JPY", "KWD"};
	static const char *const readers[] = {
	    "ledger -f '%s' --flat --no-total --balance-format '%%(display_total)\n'"
	    " bal '^Assets:Payments:cash$' -l 'commodity == \"%s\"'",
	    "hledger -f '%s' bal --flat --no-total -O csv '^Assets:Payments:cash$' 'cur:%s'"
	    " | tail -n +2 | cut -d, -f2 | tr -d '\"'",
	};
	int64_t cash[4] = {0};
	char cmd[1024], sql[400], line[256];
	int i, r;

	ck_assert_int_eq(report_takings(db, 0, INT64_C(4102444800), takings_cb, cash), 0);
	for (i = 0; i < 4; i++) {
		const struct currency *c = currency_find(currencies[i]);
		int64_t want, got;

		snprintf(
		    sql, sizeof sql,
		    "SELECT coalesce((SELECT sum(m.amount) FROM drawer_movement m JOIN drawer d"
		    " ON d.id = m.drawer_id WHERE m.kind = 'payout' AND d.currency = '%s'), 0)"
		    " + coalesce((SELECT sum(k.difference) FROM drawer_close k JOIN drawer d"
		    " ON d.id = k.drawer_id WHERE d.currency = '%s'), 0)",
		    currencies[i], currencies[i]);
		want = cash[i] + one(sql);
		for (r = 0; r < 2; r++) {
			FILE *p;
			char *sp;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral" /* formats from a table of this test */
			snprintf(cmd, sizeof cmd, readers[r], jpath, currencies[i]);
#pragma GCC diagnostic pop
			p = popen(cmd, "r");
			ck_assert_ptr_nonnull(p);
			line[0] = '\0';
			if (!fgets(line, sizeof line, p))
				snprintf(line, sizeof line, "0 %s", currencies[i]);
			ck_assert_int_eq(pclose(p), 0);
			line[strcspn(line, "\n")] = '\0';
			sp = strrchr(line, ' ');
			if (sp)
				*sp = '\0';
			ck_assert_msg(money_parse(line, c, &got) == 0, "%.7s: '%s' %s: %s",
			              readers[r], line, currencies[i], err_msg());
			ck_assert_msg(got == want,
			              "%.7s: Assets:Payments:cash %s %lld, takings - paid-outs"
			              " + over/short %lld",
			              readers[r], currencies[i], (long long)got, (long long)want);
		}
	}
	/* the drawer had a life: paid-outs, and counts over and short */
	ck_assert_int_gt(one("SELECT count(*) FROM drawer_movement WHERE kind = 'payout'"), 5);
	ck_assert_int_gt(one("SELECT count(*) FROM drawer_close WHERE difference > 0"), 1);
	ck_assert_int_gt(one("SELECT count(*) FROM drawer_close WHERE difference < 0"), 1);
	ck_assert_int_gt(one("SELECT count(*) FROM drawer_movement WHERE kind = 'payment'"), 10);
	/* and days were closed, some reopened and closed again */
	ck_assert_int_gt(one("SELECT count(*) FROM day_close WHERE kind = 'close'"), 5);
	ck_assert_int_gt(one("SELECT count(*) FROM day_close WHERE kind = 'reopen'"), 1);
}

/* Both readers in their strict modes: every account and commodity declared. */
static void strict_readers_accept(void)
{
	char cmd[1024], line[512];
	FILE *p;
	int warnings = 0;

	snprintf(cmd, sizeof cmd, "ledger --strict -f '%s' bal 2>&1 >/dev/null", jpath);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof line, p))
		warnings++;
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_msg(warnings == 0, "ledger --strict wrote %d lines", warnings);
	snprintf(cmd, sizeof cmd, "hledger check --strict -f '%s' >'%s/reader.err' 2>&1", jpath,
	         tmpdir);
	ck_assert_msg(system(cmd) == 0, "hledger check --strict refused the journal");
}

START_TEST(test_ledger_agrees_with_aging)
{
#if defined(__SANITIZE_ADDRESS__)
	/* every step is about ten times slower under the sanitizers: half the
	 * history there (the plain build's run of the same test takes it all) */
	int ops = getenv("FD_STRESS") ? 30000 : 1500, checked = 0;
#else
	int ops = getenv("FD_STRESS") ? 30000 : 3000, checked = 0;
#endif
	struct expect e;
	FILE *f;
	int64_t on;

	generate(ops);
	ck_assert_int_eq(check_run(db, report_fail, NULL), 0);
	/* the history is varied enough to mean something */
	ck_assert_int_gt(one("SELECT count(*) FROM invoice WHERE kind = 'invoice'"), ops / 10);
	ck_assert_int_gt(
	    one("SELECT count(*) FROM payment_allocation WHERE reverses_id IS NOT NULL"), 10);
	ck_assert_int_gt(one("SELECT count(*) FROM invoice WHERE kind = 'credit_note'"), 10);
	ck_assert_int_gt(one("SELECT count(*) FROM refund"), 10);
	ck_assert_int_gt(one("SELECT count(*) FROM invoice WHERE status = 'void'"), 5);
	f = fopen(jpath, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(journal_export(db, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(clock_parse_local("2027-12-31", &on), 0);
	ck_assert_int_eq(report_aging(db, on, aging_cb, &e), 0);
	compare_with(ledger_bal, &e, &checked);
	ck_assert_int_gt(checked, CUSTOMERS / 2);
	compare_with(hledger_bal, &e, &checked);
	ck_assert_int_gt(checked, CUSTOMERS / 2);
	cash_agrees_with_takings();
	strict_readers_accept();
}
END_TEST

START_TEST(test_journal_entries_balance)
{
	char cmd[512], line[256], last[256] = "";
	FILE *f, *p;
	const char *t;

	generate(300);
	f = fopen(jpath, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(journal_export(db, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	/* ledger refuses an entry that does not balance; and all of them together
	 * sum to zero in every commodity (the last line of its balance report) */
	snprintf(cmd, sizeof cmd, "ledger -f '%s' --no-color bal 2>&1", jpath);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof line, p))
		snprintf(last, sizeof last, "%s", line);
	ck_assert_int_eq(pclose(p), 0);
	for (t = last; *t == ' '; t++)
		;
	ck_assert_str_eq(t, "0\n");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("journal");
	TCase *tc = tcase_create("journal");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_ledger_agrees_with_aging);
	tcase_add_test(tc, test_journal_entries_balance);
	tcase_set_timeout(tc, getenv("FD_STRESS") ? 3000 : 300);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
