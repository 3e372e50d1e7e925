/*
 * tw.c - text width on mbrtowc/wcwidth (see tw.h). No width table is
 * shipped: the C library's locale data decides. Joined grapheme clusters
 * are measured and drawn as their first code point (next_char), so that
 * curses' idea of the screen is the terminal's whatever the data.
 */
#include <config.h>

#include <string.h>
#include <wchar.h>

#include "tw.h"

/* One code point at s (len bytes left) into *wc: its byte length, 0 when
 * the bytes are not a character of the locale. */
static size_t decode(const char *s, size_t len, wchar_t *wc)
{
	mbstate_t st;
	size_t k;

	memset(&st, 0, sizeof st);
	k = mbrtowc(wc, s, len, &st);
	return k == (size_t)-1 || k == (size_t)-2 ? 0 : k;
}

/* Code points that make the terminal join or restyle what comes before:
 * the zero-width joiner and the text and emoji variation selectors. */
static int joins(wchar_t c)
{
	return c == 0x200D || c == 0xFE0E || c == 0xFE0F;
}

/*
 * Decode one character at s (len bytes left): its byte length (>= 1), its
 * width (>= 0), whether it is printable, and *shown, how many of its bytes
 * are drawn.
 *
 * Grapheme clusters that terminals draw differently are cut to their first
 * code point, so that the width curses computes (wcwidth of what it is
 * given) is the width every terminal draws: a character with what joins it
 * (U+200D and the code point after it, again and again, as in the emoji
 * sequence woman + ZWJ + wrench, which wcwidth counts as 4 and tmux draws in
 * 2), a variation selector U+FE0E/U+FE0F (which some terminals draw as one
 * column more) and an emoji skin-tone modifier after a character (joined by
 * some terminals, not by others) belong to the character before them, count
 * no width and are not drawn. A joiner or selector with nothing before it is
 * not drawn either. The stored text is never changed: only what is drawn.
 */
static size_t next_char(const char *s, size_t len, int *width, int *printable, size_t *shown)
{
	wchar_t wc, next;
	size_t k, total, k2;
	int w;

	k = decode(s, len, &wc);
	if (k == 0) {
		*width = 1;
		*printable = 0;
		*shown = 1;
		return 1;
	}
	*shown = k;
	if (joins(wc)) {
		*width = 0;
		*printable = 1;
		*shown = 0;
		return k;
	}
	w = wcwidth(wc);
	if (w < 0) {
		*width = 1;
		*printable = 0;
		return k;
	}
	*width = w;
	*printable = 1;
	total = k;
	while (w > 0 && total < len && (k2 = decode(s + total, len - total, &next)) > 0) {
		if (next == 0x200D) {
			total += k2;
			k2 = total < len ? decode(s + total, len - total, &next) : 0;
			total += k2; /* the code point it joins */
		} else if (joins(next) || (next >= 0x1F3FB && next <= 0x1F3FF)) {
			total += k2;
		} else {
			break;
		}
	}
	return total;
}

int tw_width(const char *s)
{
	size_t len = strlen(s), off = 0;
	int total = 0;

	while (off < len) {
		int w, pr;

		size_t shown;

		off += next_char(s + off, len - off, &w, &pr, &shown);
		total += w;
	}
	return total;
}

/* Copy whole characters of s (len bytes) to out (n bytes, o used) while
 * they fit in limit columns (*used so far), unprintable ones as '?';
 * returns the offset in s where it stopped. */
static size_t copy_within(const char *s, size_t len, int limit, char *out, size_t n, size_t *o,
                          int *used)
{
	size_t off = 0;

	while (off < len) {
		int w, pr;
		size_t shown, k = next_char(s + off, len - off, &w, &pr, &shown);

		if (*used + w > limit)
			break;
		if (!pr) {
			if (*o + 1 >= n)
				break;
			out[(*o)++] = '?';
		} else {
			if (*o + shown >= n)
				break;
			memcpy(out + *o, s + off, shown);
			*o += shown;
		}
		*used += w;
		off += k;
	}
	return off;
}

int tw_fit(const char *s, int cols, int pad, char *out, size_t n)
{
	size_t len = strlen(s), off, o = 0;
	int used = 0, full = tw_width(s), limit;

	if (n == 0)
		return 0;
	if (cols < 0)
		cols = 0;
	/* when s does not fit, keep room for the ellipsis (if there is room
	 * for one at all; below 3 columns the text is simply cut) */
	limit = full <= cols || cols < 3 ? cols : cols - 3;
	off = copy_within(s, len, limit, out, n, &o, &used);
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
		size_t line = off, end = off, brk = 0, k, shown;
		int used = 0, w, pr, have_brk = 0;

		/* take characters while they fit; remember the last blank */
		while (end < n && s[end] != '\n') {
			k = next_char(s + end, n - end, &w, &pr, &shown);
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

int tw_abbrev(const char *s, int cols, char *out, size_t n)
{
	size_t len = strlen(s), off, o = 0;
	int used = 0, limit;

	if (n == 0)
		return 0;
	if (cols < 0)
		cols = 0;
	limit = tw_width(s) <= cols ? cols : cols - 1; /* room for the "." */
	off = copy_within(s, len, limit, out, n, &o, &used);
	if (off < len && cols >= 1 && o + 1 < n) {
		while (o > 0 && out[o - 1] == ' ') { /* "Ada L." and "Ada.", never "Ada ." */
			o--;
			used--;
		}
		out[o++] = '.';
		used++;
	}
	out[o] = '\0';
	return used;
}
