/*
 * payload.c - raw bytes made harmless and wrapped (see payload.h).
 *
 * Invariant: every piece appended to a line is either a printable ASCII
 * character, one valid UTF-8 character that text_sanitize left alone, or
 * an escape made of printable ASCII; a piece never straddles two lines.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "payload.h"
#include "strbuf.h"
#include "text.h"
#include "tw.h"
#include "xalloc.h"

struct wrap {
	struct strbuf line;
	int used; /* columns of line */
	int cols;
	int words; /* wrap at the last blank when there is one */
	int (*cb)(const char *line, void *arg);
	void *arg;
};

static int flush(struct wrap *w)
{
	int rc = w->cb(sb_cstr(&w->line), w->arg);

	free(w->line.s);
	memset(&w->line, 0, sizeof w->line);
	w->used = 0;
	return rc;
}

/* Append one piece of n bytes and width columns, wrapping first when it
 * does not fit on what is left of the line. */
static int piece(struct wrap *w, const char *s, size_t n, int width)
{
	int rc;

	if (w->used > 0 && w->used + width > w->cols) {
		char *blank = w->words ? strrchr(w->line.s, ' ') : NULL;

		if (w->words && *s == ' ')
			return flush(w); /* the blank that does not fit becomes the break */
		if (blank && blank > w->line.s) {
			/* carry the word begun on this line over to the next one */
			char *word = xstrdup(blank + 1);

			w->line.len = (size_t)(blank - w->line.s);
			w->line.s[w->line.len] = '\0';
			rc = flush(w);
			sb_puts(&w->line, word);
			w->used = tw_width(word);
			free(word);
			if (rc)
				return rc;
		}
		/* still too wide (no blank, or a word as long as the line) */
		if (w->used > 0 && w->used + width > w->cols && (rc = flush(w)))
			return rc;
	}
	sb_add(&w->line, s, n);
	w->used += width;
	return 0;
}

int payload_lines(const void *p, size_t len, int cols, int words,
                  int (*cb)(const char *line, void *arg), void *arg)
{
	const unsigned char *b = p;
	struct wrap w;
	size_t off = 0;
	int rc = 0;

	memset(&w, 0, sizeof w);
	w.cols = cols < PAYLOAD_MIN_COLS ? PAYLOAD_MIN_COLS : cols;
	w.words = words;
	w.cb = cb;
	w.arg = arg;
	while (off < len && !rc) {
		unsigned char c = b[off];
		char esc[16];
		unsigned int cp;
		size_t k;

		if (c == '\n' || (c == '\r' && off + 1 < len && b[off + 1] == '\n')) {
			rc = flush(&w);
			off += c == '\r' ? 2 : 1;
		} else if (c == '\t') {
			int to = (w.used / 8 + 1) * 8;

			/* a tab past the width ends the line: the next one starts flush */
			if (to > w.cols)
				rc = flush(&w);
			else
				while (w.used < to && !rc)
					rc = piece(&w, " ", 1, 1);
			off++;
		} else if (c >= 0x20 && c < 0x7f) {
			rc = piece(&w, (const char *)b + off, 1, 1);
			off++;
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof esc, "^%c", c == 0x7f ? '?' : c + '@');
			rc = piece(&w, esc, 2, 2);
			off++;
		} else if ((k = utf8_decode(b + off, len - off, &cp)) == 0) {
			snprintf(esc, sizeof esc, "\\x%02X", c);
			rc = piece(&w, esc, 4, 4);
			off++;
		} else {
			/* one valid character: the core's sanitiser decides whether it
			 * is dangerous (C1, bidirectional override) */
			char one[8], *safe;

			memcpy(one, b + off, k);
			one[k] = '\0';
			safe = text_sanitize(one);
			rc = piece(&w, safe, strlen(safe), tw_width(safe));
			free(safe);
			off += k;
		}
	}
	if (!rc && (w.used > 0 || len == 0 || b[len - 1] != '\n'))
		rc = flush(&w);
	free(w.line.s);
	return rc;
}
