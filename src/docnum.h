/*
 * docnum.h - document numbers: SERIES-YYYY-NNNNNN (INV-2026-000042), one
 * gap-free counter per series and year in document_counter. Invoices,
 * credit notes and estimates take theirs here.
 */
#ifndef FD_DOCNUM_H
#define FD_DOCNUM_H

#include <stdint.h>

struct db;

struct docnum {
	long year;       /* the year of `when`, shop time */
	int64_t seq;     /* 1, 2, ... within the series and year */
	char number[41]; /* "SERIES-YYYY-NNNNNN" */
};

/* docnum_take - take the next number of series ("INV", "CN" or "EST": the
 * schema knows no other) for the year of when (UTC seconds; the year is the
 * shop's). Call it inside the write transaction that stores the document: a
 * rollback gives the number back, so no number is skipped. 0, or an error
 * said. */
int docnum_take(struct db *db, const char *series, int64_t when, struct docnum *out);

#endif
