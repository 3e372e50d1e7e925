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
 *                                        method (cash, check, card, ...);
 *                                        cash also less paid-outs, plus
 *                                        over and short
 *   Expenses:Paid out                    cash paid out of a drawer
 *   Income:Cash over and short           drawers counted short (positive)
 *                                        or over (negative)
 * Entries: an invoice (receivable against revenue per line type), a credit
 * note (credit notes against receivable), a payment (method account against
 * the customer's credit), an allocation or its reversal (credit against
 * receivable), a refund that did not fail (credit against the method
 * account), a drawer's paid-out (paid out against cash, in the drawer's
 * currency), a drawer's count that was over or short (cash against over
 * and short, by its difference: over raises cash, short lowers it). A
 * drawer's float is no entry (money already in the drawer), nor are its
 * cash payments and refunds (they are the payments' and refunds' entries).
 * So Assets:Payments:cash is the cash takings net of refunds (report
 * takings) less paid-outs plus over and short. Void invoices and void
 * payments are left out (they never held money). Dates are shop days;
 * amounts are "1234.50 USD" (the currency's decimals, no grouping);
 * customer names are payees, made safe for the journal syntax, and so are
 * a drawer entry's desk and reason ("front: milk").
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
