/*
 * csv.h - reading CSV files (RFC 4180) one record at a time.
 *
 * Fields are separated by commas; a field may be quoted with double quotes,
 * and then holds commas, line breaks and doubled quotes ("" is one "). A
 * record ends with LF or CRLF; empty lines are skipped; a UTF-8 byte order
 * mark at the start of the file is ignored. Sizes are bounded (CSV_FIELD_MAX
 * bytes in a field, CSV_FIELDS_MAX fields in a record) so that a damaged file
 * cannot make us grow without end. No knowledge of what the fields mean.
 *
 * Callers: `frontdesk pay import` (cli-money.c), the tests.
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

#endif
