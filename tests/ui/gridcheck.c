/*
 * gridcheck.c - checks that a captured screen's grid keeps its borders
 * aligned, measuring display columns with wcwidth (so a CJK name that is
 * two columns wide counts as two).
 *
 *   gridcheck [--width N] FILE   exit 0 when every grid row (a line that
 *                                starts with '|' or '+') has its border
 *                                characters at the same display columns as
 *                                the first one, and no line is wider than N
 *                                columns; 1 with the first difference on
 *                                stderr otherwise.
 *   gridcheck                    run its own tests (TAP), for make check.
 *
 * Used by tests/ui/ui-zh.sh on tmux's capture-pane output.
 */
#include <config.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define MAXCOL 1024

/* The display columns of the border characters of line, and its width. */
static int borders(const char *line, char *cols, int *width)
{
	mbstate_t st;
	size_t len = strlen(line), off = 0;
	int col = 0;

	memset(&st, 0, sizeof st);
	memset(cols, 0, MAXCOL);
	while (off < len && line[off] != '\n') {
		wchar_t wc;
		size_t k = mbrtowc(&wc, line + off, len - off, &st);
		int w;

		if (k == (size_t)-1 || k == (size_t)-2 || k == 0)
			return -1; /* not valid text in this locale */
		w = wcwidth(wc);
		if (w < 0)
			w = 1;
		if ((wc == '|' || wc == '+') && col < MAXCOL)
			cols[col] = 1;
		col += w;
		off += k;
	}
	*width = col;
	return 0;
}

/* 0 if text is aligned; otherwise 1 with a reason in why. */
static int check(const char *text, int max_width, char *why, size_t n)
{
	char ref[MAXCOL], cur[MAXCOL];
	const char *p = text;
	int lineno = 0, have_ref = 0, grid_rows = 0;

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		char line[4096];
		int width;

		lineno++;
		snprintf(line, sizeof line, "%.*s", (int)l, p);
		p += l + (e ? 1 : 0);
		if (borders(line, cur, &width)) {
			snprintf(why, n, "line %d is not valid UTF-8", lineno);
			return 1;
		}
		if (max_width > 0 && width > max_width) {
			snprintf(why, n, "line %d is %d columns wide (at most %d)", lineno, width,
			         max_width);
			return 1;
		}
		if (line[0] != '|' && line[0] != '+')
			continue;
		grid_rows++;
		if (!have_ref) {
			memcpy(ref, cur, sizeof ref);
			have_ref = 1;
			continue;
		}
		if (memcmp(ref, cur, sizeof ref) != 0) {
			int c;

			for (c = 0; c < MAXCOL && ref[c] == cur[c]; c++)
				;
			snprintf(why, n,
			         "line %d: border at column %d differs from the first grid row",
			         lineno, c);
			return 1;
		}
	}
	if (grid_rows < 2) {
		snprintf(why, n, "no grid found (%d rows)", grid_rows);
		return 1;
	}
	return 0;
}

static char *slurp(FILE *f)
{
	size_t cap = 65536, len = 0, k;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
	while ((k = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += k;
		if (len + 1 == cap) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
	}
	buf[len] = '\0';
	return buf;
}

static int self_test(void)
{
	static const char good[] = "+------+------+\n"
	                           "|Ada   |王小明|\n"
	                           "|佐藤 x|x     |\n"
	                           "+------+------+\n";
	/* a two-column name counted as one column pushes the border right */
	static const char bad[] = "+------+------+\n"
	                          "|王小明   |Ada   |\n"
	                          "+------+------+\n";
	static const char wide[] = "+--+\n|ab|\n+--+ too wide for ten\n";
	char why[256];
	int n = 0, failed = 0;

#define T(cond, name)                                                                              \
	do {                                                                                       \
		n++;                                                                               \
		if (cond)                                                                          \
			printf("ok %d - %s\n", n, name);                                           \
		else {                                                                             \
			printf("not ok %d - %s\n", n, name);                                       \
			failed++;                                                                  \
		}                                                                                  \
	} while (0)

	T(check(good, 20, why, sizeof why) == 0, "an aligned grid with CJK names passes");
	T(check(bad, 0, why, sizeof why) == 1 && strstr(why, "line 2"),
	  "a grid pushed out by a wide name is caught");
	T(check(wide, 10, why, sizeof why) == 1 && strstr(why, "columns wide"),
	  "a line wider than the terminal is caught");
	T(check("no grid here\n", 0, why, sizeof why) == 1, "text without a grid is not a pass");
	printf("1..%d\n", n);
	return failed ? 1 : 0;
#undef T
}

int main(int argc, char **argv)
{
	int width = 0, i = 1;
	char *text, why[256];
	FILE *f;

	if (!setlocale(LC_ALL, "C.UTF-8"))
		setlocale(LC_ALL, "");
	if (argc == 1)
		return self_test();
	if (i + 1 < argc && !strcmp(argv[i], "--width")) {
		width = atoi(argv[i + 1]);
		i += 2;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: gridcheck [--width N] FILE\n");
		return 2;
	}
	f = strcmp(argv[i], "-") ? fopen(argv[i], "r") : stdin;
	if (!f) {
		perror(argv[i]);
		return 2;
	}
	text = slurp(f);
	if (f != stdin)
		fclose(f);
	if (!text)
		return 2;
	if (check(text, width, why, sizeof why)) {
		fprintf(stderr, "gridcheck: %s\n", why);
		free(text);
		return 1;
	}
	free(text);
	return 0;
}
