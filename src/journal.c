/*
 * journal.c - writing the ledger journal (see journal.h).
 *
 * Invariant: one SQL statement yields every posting, ordered by time and
 * entry, and consecutive postings of one entry become one transaction whose
 * amounts add up to zero (each entry's SQL branches are balanced by
 * construction; an invoice's receivable posting is its total, which the
 * schema keeps equal to the sum of its lines).
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "journal.h"
#include "money.h"

/* Every posting: (time, entry kind, entry id, posting order, customer id,
 * customer name, currency, code, account, amount). Account names come from
 * fixed text, method and kind names, and customer ids, never from free text. */
static const char postings_sql[] =
    "SELECT at, ek, eid, po, cid, name, cur, code, account, amount FROM ("
    /* invoices: receivable */
    " SELECT i.issued_at AS at, 1 AS ek, i.id AS eid, 0 AS po, i.customer_id AS cid,"
    "  c.name AS name, i.currency AS cur, i.number AS code,"
    "  'Assets:Receivable:Customer ' || i.customer_id AS account, i.total AS amount"
    "  FROM invoice i JOIN customer c ON c.id = i.customer_id"
    "  WHERE i.kind = 'invoice' AND i.status NOT IN ('draft', 'void')"
    " UNION ALL"
    /* invoices: revenue per line type */
    " SELECT i.issued_at, 1, i.id, 1, i.customer_id, c.name, i.currency, i.number,"
    "  CASE il.kind WHEN 'SERVICE' THEN 'Income:Service' WHEN 'FEE' THEN 'Income:Fee'"
    "   WHEN 'DISCOUNT' THEN 'Income:Discount' WHEN 'CREDIT' THEN 'Income:Credit'"
    "   ELSE 'Liabilities:Sales tax' END, -sum(il.amount)"
    "  FROM invoice i JOIN customer c ON c.id = i.customer_id"
    "  JOIN invoice_line il ON il.invoice_id = i.id"
    "  WHERE i.kind = 'invoice' AND i.status NOT IN ('draft', 'void')"
    "  GROUP BY i.id, il.kind"
    " UNION ALL"
    /* credit notes */
    " SELECT i.issued_at, 2, i.id, 0, i.customer_id, c.name, i.currency, i.number,"
    "  'Income:Credit notes', -i.total FROM invoice i JOIN customer c ON c.id = i.customer_id"
    "  WHERE i.kind = 'credit_note' AND i.status <> 'draft'"
    " UNION ALL"
    " SELECT i.issued_at, 2, i.id, 1, i.customer_id, c.name, i.currency, i.number,"
    "  'Assets:Receivable:Customer ' || i.customer_id, i.total"
    "  FROM invoice i JOIN customer c ON c.id = i.customer_id"
    "  WHERE i.kind = 'credit_note' AND i.status <> 'draft'"
    " UNION ALL"
    /* payments */
    " SELECT p.received_at, 3, p.id, 0, p.customer_id, c.name, p.currency,"
    "  'payment ' || p.id, 'Assets:Payments:' || p.method, p.amount"
    "  FROM payment p JOIN customer c ON c.id = p.customer_id WHERE p.status <> 'void'"
    " UNION ALL"
    " SELECT p.received_at, 3, p.id, 1, p.customer_id, c.name, p.currency,"
    "  'payment ' || p.id, 'Liabilities:Customer credit:Customer ' || p.customer_id,"
    "  -p.amount FROM payment p JOIN customer c ON c.id = p.customer_id"
    "  WHERE p.status <> 'void'"
    " UNION ALL"
    /* allocations and reversals: credit -> receivable */
    " SELECT a.created_at, 4, a.id, 0, p.customer_id, c.name, p.currency,"
    "  'allocation ' || a.id, 'Liabilities:Customer credit:Customer ' || p.customer_id,"
    "  CASE WHEN a.reverses_id IS NULL THEN a.amount ELSE -a.amount END"
    "  FROM payment_allocation a JOIN payment p ON p.id = a.payment_id"
    "  JOIN customer c ON c.id = p.customer_id"
    " UNION ALL"
    " SELECT a.created_at, 4, a.id, 1, p.customer_id, c.name, p.currency,"
    "  'allocation ' || a.id, 'Assets:Receivable:Customer ' || p.customer_id,"
    "  CASE WHEN a.reverses_id IS NULL THEN -a.amount ELSE a.amount END"
    "  FROM payment_allocation a JOIN payment p ON p.id = a.payment_id"
    "  JOIN customer c ON c.id = p.customer_id"
    " UNION ALL"
    /* refunds that did not fail */
    " SELECT r.refunded_at, 5, r.id, 0, p.customer_id, c.name, p.currency,"
    "  'refund ' || r.id, 'Liabilities:Customer credit:Customer ' || p.customer_id, r.amount"
    "  FROM refund r JOIN payment p ON p.id = r.payment_id"
    "  JOIN customer c ON c.id = p.customer_id WHERE r.status <> 'failed'"
    " UNION ALL"
    " SELECT r.refunded_at, 5, r.id, 1, p.customer_id, c.name, p.currency,"
    "  'refund ' || r.id, 'Assets:Payments:' || r.method, -r.amount"
    "  FROM refund r JOIN payment p ON p.id = r.payment_id"
    "  JOIN customer c ON c.id = p.customer_id WHERE r.status <> 'failed')"
    " ORDER BY at, ek, eid, po, account";

/* What the journal declares before its first entry, so that the strict
 * modes of its readers (`ledger --strict`, `hledger check --strict`) accept
 * it: every commodity and every account a posting of postings_sql can name.
 * (kind, name), commodities first; the accounts that do not depend on the
 * data are in fixed_accounts. Small DISTINCT reads over the id and method
 * columns, not a second walk of the postings. */
static const char declared_sql[] =
    "SELECT 'commodity' AS k, currency AS n FROM invoice WHERE status <> 'draft'"
    " UNION SELECT 'commodity', currency FROM payment"
    " UNION SELECT 'account', 'Assets:Payments:' || method FROM payment"
    " UNION SELECT 'account', 'Assets:Payments:' || r.method FROM refund r"
    " UNION SELECT 'account', 'Assets:Receivable:Customer ' || customer_id FROM invoice"
    "  WHERE status <> 'draft'"
    " UNION SELECT 'account', 'Assets:Receivable:Customer ' || customer_id FROM payment"
    " UNION SELECT 'account', 'Liabilities:Customer credit:Customer ' || customer_id"
    "  FROM payment"
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

int journal_export(struct db *db, FILE *out)
{
	sqlite3_stmt *st;
	int rc, step, ek = -1;
	int64_t eid = -1;
	char date[16], amt[MONEY_BUFSZ];

	if ((rc = db_exec(db, "BEGIN")) != 0)
		return rc;
	fprintf(out,
	        "; frontdesk journal: receivables and customer credit per customer\n"
	        "; (see 'frontdesk report aging'), revenue per line type, payments per method.\n");
	if ((rc = put_declarations(db, out)) != 0)
		goto out;
	if ((rc = db_prepare(db, postings_sql, &st)) != 0)
		goto out;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int k = sqlite3_column_int(st, 1);
		int64_t id = sqlite3_column_int64(st, 2);
		const char *cur = (const char *)sqlite3_column_text(st, 6);
		const char *account = (const char *)sqlite3_column_text(st, 8);

		if (k != ek || id != eid) {
			ek = k;
			eid = id;
			clock_format_local(sqlite3_column_int64(st, 0), "%Y-%m-%d", date,
			                   sizeof date);
			fprintf(out, "\n%s * (%s) ", date,
			        (const char *)sqlite3_column_text(st, 7));
			put_payee(out, (const char *)sqlite3_column_text(st, 5));
			fprintf(out, "\n");
		}
		if (money_format(sqlite3_column_int64(st, 9), currency_find(cur), 0, amt,
		                 sizeof amt))
			snprintf(amt, sizeof amt, "0");
		fprintf(out, "    %-48s  %s %s\n", account ? account : "?", amt, cur ? cur : "?");
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
