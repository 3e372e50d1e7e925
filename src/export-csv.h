/*
 * export-csv.h - the records as CSV files for spreadsheets and other
 * programs: customers, visits, invoices, payments, allocations.
 *
 * Each file starts with a header row of column names (untranslated
 * identifiers, as a program reads them) and follows RFC 4180 (csv_put:
 * CRLF, quotes doubled, a cell with a comma, quote or line break quoted).
 * Rows, oldest first, are those whose time falls in the range:
 *   customers    id,name,phone,email,address,note,created_at,updated_at
 *                (by created_at)
 *   visits       id,start_at,end_at,status,customers,services,est_minutes,
 *                location,note,created_at,updated_at (visits that overlap
 *                the range, as visit_list_range reads them)
 *   invoices     id,number,kind,credits,customer_id,customer_name,status,
 *                currency,issued_at,due_on,total,credited,paid,balance
 *                (issued invoices and credit notes, void ones included, by
 *                issued_at; drafts are not documents yet and are left out;
 *                credits is the number of the invoice a credit note corrects)
 *   payments     id,received_at,customer_id,customer_name,method,reference,
 *                status,currency,amount,allocated,refunded,note (by
 *                received_at, void ones included)
 *   allocations  id,created_at,payment_id,invoice_id,invoice_number,
 *                customer_id,customer_name,currency,amount,reverses_id,
 *                reason (by created_at; a reversal's amount is negative and
 *                reverses_id names the allocation it takes back, so the
 *                amounts of an invoice add up to what is allocated to it)
 * Times are shop time "YYYY-MM-DD HH:MM:SS", due dates "YYYY-MM-DD".
 * Amounts are in the currency of their row's currency column, written with
 * money_format: '.' before the currency's decimals, no grouping, a leading
 * '-' when negative ("1234.50", "-20.00", JPY "1500"), whatever the locale.
 *
 * Formula injection: every text cell (names, addresses, notes, references,
 * reasons...) that starts with '=', '+', '-', '@', tab or CR gets a leading
 * apostrophe (csv_put's CSV_TEXT). Ids, times and amounts are never
 * prefixed: we format them ourselves from integers, so they are plain
 * numbers (a negative amount is a number a spreadsheet must add up, not
 * text), and none of them can carry a formula.
 *
 * Everything is read in one read transaction, row by row.
 *
 * Callers: `frontdesk export csv` (cli-report.c), the tests.
 */
#ifndef FD_EXPORT_CSV_H
#define FD_EXPORT_CSV_H

#include <stdint.h>
#include <stdio.h>

struct db;
struct export_range;

/* The names export_csv knows, for messages: "customers, visits, ...". */
extern const char export_csv_names[];

/* export_csv_known - 1 when name is one of export_csv_names, else 0. */
int export_csv_known(const char *name);

/* export_csv - write the CSV of records `name` in range r to out. *n_out
 * (may be NULL) gets the number of rows after the header. FD_EINVAL for an
 * unknown name, FD_EIO when writing fails, or a database error. */
int export_csv(struct db *db, const char *name, const struct export_range *r, FILE *out,
               int64_t *n_out);

#endif
