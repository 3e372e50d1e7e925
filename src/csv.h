/*
 * csv.h - reading CSV files (RFC 4180) one record at a time, and writing
 * them one cell at a time.
 *
 * Fields are separated by commas; a field may be quoted with double quotes,
 * and then holds commas, line breaks and doubled quotes ("" is one "). A
 * record ends with LF or CRLF; empty lines are skipped; a UTF-8 byte order
 * mark at the start of the file is ignored. Sizes are bounded (CSV_FIELD_MAX
 * bytes in a field, CSV_FIELDS_MAX fields in a record) so that a damaged file
 * cannot make us grow without end. No knowledge of what the fields mean.
 *
 * Writing (csv_put) follows RFC 4180 strictly: records end with CRLF, a
 * cell holding a comma, a quote, CR or LF is quoted, quotes are doubled.
 * A text cell that a spreadsheet would run as a formula (it starts with
 * '=', '+', '-', '@', a tab or CR: OWASP's "CSV injection" list) is written
 * with a leading apostrophe, which spreadsheets show as text.
 *
 * Callers: `frontdesk pay import` (cli-money.c), the CSV exports
 * (export-csv.c), the tests.
 */
#ifndef FD_CSV_H
#define FD_CSV_H

#include <stddef.h>
#include <stdio.h>

#define CSV_FIELD_MAX  4096
#define CSV_FIELDS_MAX 64

struct csv_reader {
	FILE *f;
	long line;   /* the line being read (1-based) */
	int started; /* the byte order mark has been looked for */
	int back[3]; /* bytes read while looking for it, to read again */
	int nback;
	char **field; /* the current record: n NUL-terminated fields */
	size_t n;
	size_t cap;
};

/* csv_open - start reading f (the caller keeps and closes it). */
void csv_open(struct csv_reader *r, FILE *f);

/* csv_next - read the next record into r->field[0 .. r->n - 1] (owned by r,
 * valid until the next call); *line gets the line where it starts. Returns
 * 1 with a record, 0 at the end of the file, or FD_EINVAL with a reason that
 * names the line (a quote never closed, text after a closing quote, a field
 * or a record too large) or FD_EIO when the file cannot be read. */
int csv_next(struct csv_reader *r, long *line);

/* csv_close - free what r holds (not the FILE). */
void csv_close(struct csv_reader *r);

enum {
	CSV_TEXT = 1, /* the cell is text from people: neutralise formulas */
	CSV_LAST = 2  /* the last cell of its record: end the line (CRLF) */
};

/* csv_put - write cell s (NULL is an empty cell) to out, then a comma or,
 * with CSV_LAST, CRLF. Without CSV_TEXT the cell is written as it is
 * (numbers and dates that we formatted ourselves). Errors show in
 * ferror(out). */
void csv_put(FILE *out, const char *s, int flags);

#endif
