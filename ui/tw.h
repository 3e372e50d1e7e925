/*
 * tw.h - text width: measuring and fitting text into terminal columns.
 *
 * Every piece of text placed on the screen goes through here. Widths come
 * from mbrtowc/wcwidth in the current locale (so CJK characters take two
 * columns); text is cut at a column boundary, never inside a character, and
 * an ellipsis ("...", plain ASCII so CJK terminals line up) marks a cut.
 * Pure functions: no curses, unit-tested.
 */
#ifndef FD_TW_H
#define FD_TW_H

#include <stddef.h>

/* Grapheme clusters that terminals draw differently (emoji joined by U+200D,
 * variation selectors U+FE0E/U+FE0F, skin-tone modifiers) count and are
 * drawn as their first code point only: what tw_fit writes is what curses
 * and every terminal measure alike (see tw.c, next_char). */

/* tw_width - the number of columns s takes; invalid bytes and
 * non-printable characters count one column each (they are shown as '?'). */
int tw_width(const char *s);

/* tw_fit - write into out (size n) the longest prefix of s that fits in
 * cols columns, ending with "..." when s was cut, then pad with blanks to
 * exactly cols columns when pad is non-zero. Invalid or non-printable
 * characters become '?'. Returns the columns used. */
int tw_fit(const char *s, int cols, int pad, char *out, size_t n);

/* tw_abbrev - write into out (size n) s whole when it fits in cols columns,
 * else its longest prefix that fits in cols - 1 columns followed by one "."
 * (an abbreviation: "Walk." for "Walk-in Wanda"; a cut always ends with the
 * mark, even in one or two columns, and never splits a character). Invalid
 * or non-printable characters become '?'. No padding. Returns the columns
 * used. */
int tw_abbrev(const char *s, int cols, char *out, size_t n);

/* tw_wrap - cut s into lines of at most cols columns (cols >= 1), as
 * readers expect: at a blank where the line has one (the blanks at the cut
 * are dropped), else at a character boundary (CJK text has no blanks; a
 * word longer than the line is cut too); a newline always ends a line.
 * Line i is s[start[i] .. start[i] + len[i]). At most max lines are
 * stored; returns the number of lines the whole of s takes (0 for ""), so
 * a caller can ask again with room for all. */
int tw_wrap(const char *s, int cols, size_t *start, size_t *len, int max);

#endif
