/*
 * fuzz.h - what every harness in tests/fuzz/ shares.
 *
 * Each fuzz-NAME.c exports LLVMFuzzerTestOneInput, the entry point that
 * libFuzzer calls with one input (built with --enable-fuzzing) and that
 * replay.c calls once for each file of a corpus (built by `make check`).
 * A harness must not leak, must accept any bytes, and calls FUZZ_CHECK for
 * the invariants it knows: a failed check prints where and aborts, which
 * libFuzzer reports as a crash and the replayer as a failed test.
 */
#ifndef FD_FUZZ_H
#define FD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__,       \
			        #cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* fuzz_cstr - a NUL-terminated copy of the input (caller frees); an
 * embedded NUL ends the string early, as it would for the real caller. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* fuzz_write_file - replace the contents of the file at path with the
 * input; the readers of config and keys files only read from a path. */
static inline void fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
		perror(path);
		abort();
	}
}

#endif
