/*
 * journal.c - writing the ledger journal (see journal.h).
 *
 * Invariant: one SQL statement yields every entry, ordered by time, kind
 * and id, and each entry becomes one transaction whose postings add up to
 * zero (each kind's postings are balanced by construction: the amount and
 * its negation; an invoice's receivable posting is its total, which the
 * schema keeps equal to the sum of its lines). Until issue 18 the statement
 * yielded every posting (an entry's postings in separate branches, joined
 * again by the sort of all of them); the output is the same byte for byte.
 *
 * Permissions: journal_export asks reports before it reads.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "journal.h"
#include "money.h"

/* Every entry, one row each: (time, entry kind, entry id, customer id,
 * customer name (the payee), currency, code, method, amount, revenue).
 * Ordered by time, kind and id, as the journal is; journal_export writes
 * each entry's postings from its row, in posting order (the order of the
 * accounts within a posting of several: see put_entry), so that the sort is
 * over entries, not postings (half as many rows, and the customer read once
 * an entry).
 * code is NULL for kinds 3-7 (journal_export writes "payment N" and so on);
 * method names the payment account of payments and refunds (and "cash" for
 * the drawers' kinds); amount is: an invoice's total (receivable), a credit
 * note's total, a payment's amount, an allocation's (negative for a
 * reversal), a refund's, a paid-out's movement (negative: cash out), a
 * count's difference (over > 0, short < 0); revenue, for an invoice, is
 * "KIND -sum" for each kind of its lines (nothing for an invoice with no
 * line). Account names come from fixed text, method and kind names, and
 * customer ids, never from free text. Kinds: 1 invoice, 2 credit note, 3
 * payment, 4 allocation or reversal, 5 refund that did not fail, 6 a
 * drawer's paid-out (its movement's id; payee: the desk and the reason), 7
 * a drawer counted over or short (the session's id; payee: the desk and
 * the counter's reason). A drawer's float and its cash payments and refunds
 * are no entries of their own: the float is money already in the drawer,
 * and the payments and refunds are kinds 3 and 5. The drawer tables are
 * small (a few rows a day), so their branches cost nothing beside the
 * payments'. */
static const char entries_sql[] =
    "SELECT at, ek, eid, cid, name, cur, code, method, amount, revenue FROM ("
    " SELECT i.issued_at AS at, 1 AS ek, i.id AS eid, i.customer_id AS cid, c.name AS name,"
    "  i.currency AS cur, i.number AS code, NULL AS method, i.total AS amount,"
    "  (SELECT group_concat(kind || ' ' || s, ' ') FROM (SELECT il.kind AS kind,"
    "   -sum(il.amount) AS s FROM invoice_line il WHERE il.invoice_id = i.id"
    "   GROUP BY il.kind)) AS revenue"
    "  FROM invoice i JOIN customer c ON c.id = i.customer_id"
    "  WHERE i.kind = 'invoice' AND i.status NOT IN ('draft', 'void')"
    " UNION ALL"
    " SELECT i.issued_at, 2, i.id, i.customer_id, c.name, i.currency, i.number, NULL, i.total,"
    "  NULL FROM invoice i JOIN customer c ON c.id = i.customer_id"
    "  WHERE i.kind = 'credit_note' AND i.status <> 'draft'"
    " UNION ALL"
    " SELECT p.received_at, 3, p.id, p.customer_id, c.name, p.currency, NULL, p.method,"
    "  p.amount, NULL FROM payment p JOIN customer c ON c.id = p.customer_id"
    "  WHERE p.status <> 'void'"
    " UNION ALL"
    " SELECT a.created_at, 4, a.id, p.customer_id, c.name, p.currency, NULL, NULL,"
    "  CASE WHEN a.reverses_id IS NULL THEN a.amount ELSE -a.amount END, NULL"
    "  FROM payment_allocation a JOIN payment p ON p.id = a.payment_id"
    "  JOIN customer c ON c.id = p.customer_id"
    " UNION ALL"
    " SELECT r.refunded_at, 5, r.id, p.customer_id, c.name, p.currency, NULL, r.method,"
    "  r.amount, NULL FROM refund r JOIN payment p ON p.id = r.payment_id"
    "  JOIN customer c ON c.id = p.customer_id WHERE r.status <> 'failed'"
    " UNION ALL"
    " SELECT m.at, 6, m.id, NULL, d.desk || ': ' || m.reason, d.currency, NULL, 'cash',"
    "  m.amount, NULL FROM drawer_movement m JOIN drawer d ON d.id = m.drawer_id"
    "  WHERE m.kind = 'payout'"
    " UNION ALL"
    " SELECT k.closed_at, 7, d.id, NULL, d.desk || ': ' || coalesce(k.reason, ''), d.currency,"
    "  NULL, 'cash', k.difference, NULL FROM drawer_close k JOIN drawer d ON d.id = k.drawer_id"
    "  WHERE k.difference <> 0)"
    " ORDER BY at, ek, eid";

/* What the journal declares before its first entry, so that the strict
 * modes of its readers (`ledger --strict`, `hledger check --strict`) accept
 * it: every commodity and every account a posting of entries_sql can name.
 * (kind, name), commodities first; the accounts that do not depend on the
 * data are in fixed_accounts. Small DISTINCT reads over the id and method
 * columns, not a second walk of the postings: the ids and methods are made
 * distinct first and only then made account names (a name per invoice and
 * payment, all made distinct by one temporary b-tree of strings, was a quarter
 * of the export's instructions). The drawers' accounts and currencies are
 * declared only when a drawer names them: a shop without drawers gets the
 * same journal as before they existed. */
static const char declared_sql[] =
    "SELECT 'commodity' AS k, cur AS n FROM (SELECT currency AS cur FROM invoice"
    "  WHERE status <> 'draft' UNION SELECT currency FROM payment)"
    " UNION SELECT 'account', 'Assets:Payments:' || m FROM (SELECT method AS m FROM payment"
    "  UNION SELECT method FROM refund)"
    " UNION SELECT 'account', 'Assets:Receivable:Customer ' || cid FROM (SELECT customer_id"
    "  AS cid FROM invoice WHERE status <> 'draft' UNION SELECT customer_id FROM payment)"
    " UNION SELECT 'account', 'Liabilities:Customer credit:Customer ' || cid FROM (SELECT"
    "  DISTINCT customer_id AS cid FROM payment)"
    " UNION SELECT 'commodity', currency FROM drawer"
    " UNION SELECT 'account', 'Assets:Payments:cash' WHERE EXISTS (SELECT 1 FROM drawer)"
    " UNION SELECT 'account', 'Expenses:Paid out' WHERE EXISTS (SELECT 1 FROM drawer_movement"
    "  WHERE kind = 'payout')"
    " UNION SELECT 'account', 'Income:Cash over and short' WHERE EXISTS (SELECT 1"
    "  FROM drawer_close WHERE difference <> 0)"
    " ORDER BY k DESC, n";

static const char *const fixed_accounts[] = {
    "Income:Service",
    "Income:Fee",
    "Income:Discount",
    "Income:Credit",
    "Income:Credit notes",
    "Liabilities:Sales tax",
    NULL,
};

static int put_declarations(struct db *db, FILE *out)
{
	sqlite3_stmt *st;
	int rc, step;
	size_t i;

	if ((rc = db_prepare(db, declared_sql, &st)) != 0)
		return rc;
	fputc('\n', out);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *n = (const char *)sqlite3_column_text(st, 1);

		if (n)
			fprintf(out, "%s %s\n", k, n);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot export the journal"));
	sqlite3_finalize(st);
	for (i = 0; !rc && fixed_accounts[i]; i++)
		fprintf(out, "account %s\n", fixed_accounts[i]);
	return rc;
}

/* Write s as a payee: one line, without the characters that the journal
 * syntax reads as a comment or a separator (';', '#', '|', tabs, control
 * characters) and without doubled blanks (which end an account name). */
static void put_payee(FILE *out, const char *s)
{
	int blank = 0;

	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch < 0x20 || ch == 0x7f || ch == ';' || ch == '|' || ch == '#' || ch == '\t')
			ch = ' ';
		if (ch == ' ') {
			if (blank)
				continue;
			blank = 1;
		} else {
			blank = 0;
		}
		fputc(ch, out);
	}
}

/* -v as SQLite's unary minus gives it back through sqlite3_column_int64
 * (INT64_MIN has no negative: SQLite makes it a real, read back as
 * INT64_MAX). */
static int64_t neg(int64_t v)
{
	return v == INT64_MIN ? INT64_MAX : -v;
}

/* One posting line: "    ACCOUNT" padded to 48 columns, two blanks, the
 * amount and the currency code (as printf's "    %-48s  %s %s\n"). */
static void put_posting(FILE *out, const char *account, int64_t v, const struct currency *c,
                        const char *cur)
{
	char line[512], amt[MONEY_BUFSZ];
	size_t n = 4, len = strlen(account), clen = strlen(cur), alen;

	if (money_format(v, c, 0, amt, sizeof amt))
		snprintf(amt, sizeof amt, "0");
	alen = strlen(amt);
	if (4 + len + 48 + 2 + alen + 1 + clen + 1 > sizeof line) {
		fprintf(out, "    %-48s  %s %s\n", account, amt, cur);
		return;
	}
	memset(line, ' ', 4);
	memcpy(line + n, account, len);
	n += len;
	while (n < 4 + 48)
		line[n++] = ' ';
	line[n++] = ' ';
	line[n++] = ' ';
	memcpy(line + n, amt, alen);
	n += alen;
	line[n++] = ' ';
	memcpy(line + n, cur, clen);
	n += clen;
	line[n++] = '\n';
	fwrite(line, 1, n, out);
}

/* The revenue postings of an invoice: "KIND amount" pairs, written in the
 * order of their account names (the order of an invoice's postings of the
 * same place, by account: see entries_sql). */
static void put_revenue(FILE *out, const char *rev, const struct currency *c, const char *cur)
{
	struct {
		const char *account;
		int64_t v;
	} p[8], t;
	int n = 0, i, j;

	while (rev && *rev && n < 8) {
		const char *sp = strchr(rev, ' ');
		char *end;
		size_t k;

		if (!sp)
			break;
		k = (size_t)(sp - rev);
		p[n].account = k == 7 && !memcmp(rev, "SERVICE", 7)    ? "Income:Service"
		               : k == 3 && !memcmp(rev, "FEE", 3)      ? "Income:Fee"
		               : k == 8 && !memcmp(rev, "DISCOUNT", 8) ? "Income:Discount"
		               : k == 6 && !memcmp(rev, "CREDIT", 6)   ? "Income:Credit"
		                                                       : "Liabilities:Sales tax";
		p[n].v = strtoll(sp + 1, &end, 10);
		n++;
		rev = *end == ' ' ? end + 1 : end;
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(p[j - 1].account, p[j].account) > 0; j--) {
			t = p[j];
			p[j] = p[j - 1];
			p[j - 1] = t;
		}
	for (i = 0; i < n; i++)
		put_posting(out, p[i].account, p[i].v, c, cur);
}

/* prefix followed by v in decimal (as "%s%lld") into buf of n >= 64 bytes,
 * prefix shorter than 40. */
static const char *name_id(char *buf, size_t n, const char *prefix, int64_t v)
{
	char digits[24];
	size_t len = strlen(prefix), k = 0;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	(void)n;
	do
		digits[k++] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	memcpy(buf, prefix, len);
	if (v < 0)
		buf[len++] = '-';
	while (k > 0)
		buf[len++] = digits[--k];
	buf[len] = '\0';
	return buf;
}

/* The postings of the entry in st's row, in posting order. */
static void put_entry(FILE *out, sqlite3_stmt *st, int ek)
{
	const char *cur = (const char *)sqlite3_column_text(st, 5);
	const struct currency *c = currency_find(cur);
	const char *method = (const char *)sqlite3_column_text(st, 7);
	int64_t cid = sqlite3_column_int64(st, 3), v = sqlite3_column_int64(st, 8);
	char recv[64], credit[80], pay[128];

	name_id(recv, sizeof recv, "Assets:Receivable:Customer ", cid);
	name_id(credit, sizeof credit, "Liabilities:Customer credit:Customer ", cid);
	/* (a method is one of a few short words: the schema's CHECK) */
	if (method && strlen(method) < sizeof pay - 20)
		snprintf(pay, sizeof pay, "Assets:Payments:%s", method);
	else
		snprintf(pay, sizeof pay, "?");
	if (!cur)
		cur = "?";
	switch (ek) {
	case 1: /* receivable against revenue per line type */
		put_posting(out, recv, v, c, cur);
		put_revenue(out, (const char *)sqlite3_column_text(st, 9), c, cur);
		break;
	case 2: /* credit notes against receivable */
		put_posting(out, "Income:Credit notes", neg(v), c, cur);
		put_posting(out, recv, v, c, cur);
		break;
	case 3: /* the method's account against the customer's credit */
		put_posting(out, pay, v, c, cur);
		put_posting(out, credit, neg(v), c, cur);
		break;
	case 4: /* credit against receivable */
		put_posting(out, credit, v, c, cur);
		put_posting(out, recv, neg(v), c, cur);
		break;
	case 5: /* a refund: credit against the method's account */
		put_posting(out, credit, v, c, cur);
		put_posting(out, pay, neg(v), c, cur);
		break;
	case 6: /* a paid-out (v < 0): the expense against the drawer's cash */
		put_posting(out, "Expenses:Paid out", neg(v), c, cur);
		put_posting(out, pay, v, c, cur);
		break;
	default: /* a count over (v > 0) or short: the cash against over and short */
		put_posting(out, pay, v, c, cur);
		put_posting(out, "Income:Cash over and short", neg(v), c, cur);
		break;
	}
}

int journal_export(struct db *db, FILE *out)
{
	static const char *const names[] = {NULL,          NULL,      NULL,        "payment ",
	                                    "allocation ", "refund ", "paid-out ", "drawer "};
	sqlite3_stmt *st;
	int rc, step;
	int64_t day = 0, next = 0; /* the day date names: [day, next) */
	char date[16];

	/* a read: asked before it starts, outside any transaction */
	if ((rc = control_require(db, PERM_REPORTS, 0, "export the money journal")) != 0)
		return rc;
	if ((rc = db_exec(db, "BEGIN")) != 0)
		return rc;
	fprintf(out,
	        "; frontdesk journal: receivables and customer credit per customer\n"
	        "; (see 'frontdesk report aging'), revenue per line type, payments per method.\n");
	if ((rc = put_declarations(db, out)) != 0)
		goto out;
	if ((rc = db_prepare(db, entries_sql, &st)) != 0)
		goto out;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int ek = sqlite3_column_int(st, 1);
		int64_t at = sqlite3_column_int64(st, 0);

		/* entries come by time: the date changes once a day */
		if (at < day || at >= next) {
			clock_format_local(at, "%Y-%m-%d", date, sizeof date);
			day = clock_day_start(at);
			next = clock_add_days(day, 1);
			if (next <= day || at < day || at >= next)
				day = next = 0; /* cannot happen; format every time then */
		}
		if (ek >= 3 && ek <= 7) {
			char code[80];

			fprintf(out, "\n%s * (%s) ", date,
			        name_id(code, sizeof code, names[ek], sqlite3_column_int64(st, 2)));
		} else
			fprintf(out, "\n%s * (%s) ", date,
			        (const char *)sqlite3_column_text(st, 6));
		put_payee(out, (const char *)sqlite3_column_text(st, 4));
		fputc('\n', out);
		put_entry(out, st, ek);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot export the journal"));
	sqlite3_finalize(st);
	if (!rc && (fflush(out) != 0 || ferror(out)))
		rc = err_set(FD_EIO, _("cannot write the journal"));
out:
	db_rollback(db);
	/* the snapshot kept the -wal from being copied back: copy it now (a
	 * failure here is the next commit's to retry, not the export's) */
	db_checkpoint(db);
	return rc;
}
