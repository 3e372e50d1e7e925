/*
 * text.h - checking text that comes in, and defusing text that goes out.
 *
 * Input: every name, address or note typed by a person or read from a file
 * passes text_check() before it is stored: valid UTF-8, no control
 * characters, no escape sequences, no bidirectional overrides, bounded
 * length. Output: text read back from the database passes text_sanitize()
 * before it reaches a terminal, because the database may have been written
 * by something else.
 */
#ifndef FD_TEXT_H
#define FD_TEXT_H

#include <stddef.h>

/* text_check - 0 if s is acceptable as the one-line field `field` (already
 * translated, used in the message) of at most maxbytes bytes; FD_EINVAL with
 * a reason otherwise. empty_ok says whether "" is allowed. */
int text_check(const char *s, const char *field, size_t maxbytes, int empty_ok);

/* text_sanitize - a new string (caller frees) in which every control
 * character, C1 control, invalid byte and bidirectional override of s is
 * replaced by a visible, harmless escape such as "^[" or "<U+202E>". */
char *text_sanitize(const char *s);

/* utf8_decode - decode one UTF-8 sequence at s (at most n bytes). Returns its
 * length and sets *cp, or 0 if the bytes are not valid UTF-8. */
size_t utf8_decode(const unsigned char *s, size_t n, unsigned int *cp);

#endif
