/*
 * journal.h - the money history as a plain-text accounting journal that
 * ledger (and hledger) read.
 *
 * Accounts (one receivable and one credit account per customer, so that the
 * journal's balances equal frontdesk's aging report to the cent):
 *   Assets:Receivable:Customer N         invoices less credit notes less
 *                                        allocations: what N owes
 *   Liabilities:Customer credit:Customer N  payments not (yet) allocated to
 *                                        an invoice, less refunds
 *   Income:Service, Income:Fee, Income:Discount, Income:Credit
 *                                        revenue per line type (discount and
 *                                        credit lines count against it)
 *   Liabilities:Sales tax                TAX lines
 *   Income:Credit notes                  credit notes
 *   Assets:Payments:<method>             money received and refunded, per
 *                                        method (cash, check, card, ...)
 * Entries: an invoice (receivable against revenue per line type), a credit
 * note (credit notes against receivable), a payment (method account against
 * the customer's credit), an allocation or its reversal (credit against
 * receivable), a refund that did not fail (credit against the method
 * account). Void invoices and void payments are left out (they never held
 * money). Dates are shop days; amounts are "1234.50 USD" (the currency's
 * decimals, no grouping); customer names are payees, made safe for the
 * journal syntax.
 *
 * Callers: `frontdesk export journal`, the tests, the benchmark.
 */
#ifndef FD_JOURNAL_H
#define FD_JOURNAL_H

#include <stdio.h>

struct db;

/* journal_export - write the whole journal to out in one read transaction
 * (one snapshot: the journal balances), then checkpoint (db_checkpoint) what
 * was committed meanwhile. 0, FD_EIO when writing fails, or a database
 * error. */
int journal_export(struct db *db, FILE *out);

#endif
