/*
 * replay.c - run a harness on saved inputs without libFuzzer.
 *
 * Linked with one fuzz-NAME.c, it calls LLVMFuzzerTestOneInput once for each
 * file named on the command line or found in a folder named there. With no
 * argument it replays tests/fuzz/corpus/NAME under $TOP_SRCDIR (NAME is
 * FUZZ_NAME, set by the build) and prints one TAP line per file, so that
 * `make check` (plain and under the sanitizers) replays every corpus and
 * every crash the fuzzers ever found. An input that breaks an invariant
 * aborts, which the TAP driver reports as a failed test.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#ifndef FUZZ_NAME
#error "FUZZ_NAME must name the corpus folder"
#endif

struct list {
	char **path;
	size_t n, cap;
};

static void add(struct list *l, const char *path)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->path = realloc(l->path, l->cap * sizeof *l->path);
		if (!l->path)
			abort();
	}
	l->path[l->n] = strdup(path);
	if (!l->path[l->n])
		abort();
	l->n++;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add path, or every regular file in it when it is a folder. */
static int collect(struct list *l, const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char buf[4096];

	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		add(l, path);
		return 0;
	}
	if (!(d = opendir(path))) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(buf, sizeof buf, "%s/%s", path, e->d_name);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
			add(l, buf);
	}
	closedir(d);
	return 0;
}

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0, k;

	if (!f)
		return -1;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		k = fread(buf + n, 1, cap - n, f);
		n += k;
		if (k == 0)
			break;
	}
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	/* libFuzzer hands over an exactly sized buffer: so do we, so that
	 * AddressSanitizer sees a read past the end */
	{
		uint8_t *exact = malloc(n ? n : 1);

		if (!exact)
			abort();
		memcpy(exact, buf, n);
		free(buf);
		LLVMFuzzerTestOneInput(exact, n);
		free(exact);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct list l = {0};
	const char *top = getenv("TOP_SRCDIR");
	char dir[4096];
	size_t i;
	int bad = 0, missing = 0;

	if (argc > 1) {
		for (i = 1; i < (size_t)argc; i++)
			if (collect(&l, argv[i]) != 0)
				missing = 1;
	} else {
		snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/%s", top ? top : ".", FUZZ_NAME);
		if (collect(&l, dir) != 0)
			missing = 1;
	}
	if (l.n > 1)
		qsort(l.path, l.n, sizeof *l.path, by_name);
	printf("1..%zu\n", l.n + (missing ? 1 : 0));
	for (i = 0; i < l.n; i++) {
		const char *base = strrchr(l.path[i], '/');

		fflush(stdout);
		if (replay(l.path[i]) != 0) {
			printf("not ok %zu - %s: cannot read it\n", i + 1, l.path[i]);
			bad = 1;
		} else {
			printf("ok %zu - %s %s\n", i + 1, FUZZ_NAME, base ? base + 1 : l.path[i]);
		}
		free(l.path[i]);
	}
	if (missing)
		printf("not ok %zu - a corpus could not be read\n", l.n + 1);
	free(l.path);
	return bad || missing;
}
