/*
 * tw.c - text width on mbrtowc/wcwidth (see tw.h). No width table is
 * shipped: the C library's locale data decides.
 */
#include <config.h>

#include <string.h>
#include <wchar.h>

#include "tw.h"

/* Decode one character at s (len bytes left): its byte length (>= 1), its
 * width (>= 0) and whether it is printable. */
static size_t next_char(const char *s, size_t len, int *width, int *printable)
{
	mbstate_t st;
	wchar_t wc;
	size_t k;
	int w;

	memset(&st, 0, sizeof st);
	k = mbrtowc(&wc, s, len, &st);
	if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
		*width = 1;
		*printable = 0;
		return 1;
	}
	w = wcwidth(wc);
	if (w < 0) {
		*width = 1;
		*printable = 0;
	} else {
		*width = w;
		*printable = 1;
	}
	return k;
}

int tw_width(const char *s)
{
	size_t len = strlen(s), off = 0;
	int total = 0;

	while (off < len) {
		int w, pr;

		off += next_char(s + off, len - off, &w, &pr);
		total += w;
	}
	return total;
}

int tw_fit(const char *s, int cols, int pad, char *out, size_t n)
{
	size_t len = strlen(s), off = 0, o = 0;
	int used = 0, full = tw_width(s), limit;

	if (n == 0)
		return 0;
	if (cols < 0)
		cols = 0;
	/* when s does not fit, keep room for the ellipsis (if there is room
	 * for one at all; below 3 columns the text is simply cut) */
	limit = full <= cols || cols < 3 ? cols : cols - 3;
	while (off < len) {
		int w, pr;
		size_t k = next_char(s + off, len - off, &w, &pr);

		if (used + w > limit)
			break;
		if (!pr) {
			if (o + 1 >= n)
				break;
			out[o++] = '?';
		} else {
			if (o + k >= n)
				break;
			memcpy(out + o, s + off, k);
			o += k;
		}
		used += w;
		off += k;
	}
	if (off < len && cols >= 3) {
		int dots = cols - used < 3 ? cols - used : 3;

		while (dots-- > 0 && o + 1 < n) {
			out[o++] = '.';
			used++;
		}
	}
	while (pad && used < cols && o + 1 < n) {
		out[o++] = ' ';
		used++;
	}
	out[o] = '\0';
	return used;
}

int tw_wrap(const char *s, int cols, size_t *start, size_t *len, int max)
{
	size_t n = strlen(s), off = 0;
	int lines = 0;

	if (cols < 1)
		cols = 1;
	while (off < n) {
		size_t line = off, end = off, brk = 0, k;
		int used = 0, w, pr, have_brk = 0;

		/* take characters while they fit; remember the last blank */
		while (end < n && s[end] != '\n') {
			k = next_char(s + end, n - end, &w, &pr);
			if (used + w > cols && end > line)
				break;
			if (s[end] == ' ') {
				brk = end;
				have_brk = 1;
			}
			used += w;
			end += k;
		}
		if (end < n && s[end] != '\n' && s[end] != ' ' && have_brk && brk > line)
			end = brk; /* cut at the last blank rather than inside a word */
		k = end;
		while (k > line && s[k - 1] == ' ')
			k--; /* no trailing blanks */
		if (lines < max) {
			start[lines] = line;
			len[lines] = k - line;
		}
		lines++;
		off = end;
		if (off < n && s[off] == '\n')
			off++;
		else
			while (off < n && s[off] == ' ')
				off++; /* the blanks at a cut */
	}
	return lines;
}
