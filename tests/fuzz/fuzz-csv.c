/*
 * fuzz-csv.c - the CSV reader (csv.c) on any file.
 *
 * The input is the whole file. Invariants: every record has 1 to
 * CSV_FIELDS_MAX fields, none longer than CSV_FIELD_MAX bytes; records start
 * on lines that never go backwards; the reader ends (end of file or a
 * refusal) within one record per input byte.
 */
#include <config.h>

#include "csv.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct csv_reader r;
	FILE *f;
	long line = 0, last = 0;
	size_t i, records = 0;
	int rc;

	/* fmemopen wants a buffer of at least one byte */
	f = fmemopen(size ? (void *)data : (void *)"", size, "r");
	if (!f)
		return 0;
	csv_open(&r, f);
	while ((rc = csv_next(&r, &line)) == 1) {
		FUZZ_CHECK(r.n >= 1 && r.n <= CSV_FIELDS_MAX);
		for (i = 0; i < r.n; i++)
			FUZZ_CHECK(strlen(r.field[i]) <= CSV_FIELD_MAX);
		FUZZ_CHECK(line >= 1 && line >= last);
		last = line;
		FUZZ_CHECK(++records <= size);
	}
	FUZZ_CHECK(rc <= 0);
	if (rc < 0)
		FUZZ_CHECK(r.n == 0);
	csv_close(&r);
	fclose(f);
	return 0;
}
