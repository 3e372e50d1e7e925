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
 * a reason otherwise. empty_ok says whether "" is allowed. A field a person
 * fills never holds a card number: s is refused when text_has_card_number
 * says it holds one. */
int text_check(const char *s, const char *field, size_t maxbytes, int empty_ok);

/* text_check_id - the same checks without the card-number rule, for an id
 * that a program gave us and a person did not write: a payment channel's
 * own ids (an intent, charge or refund id used as a reference; refusing one
 * would leave a payment the customer made unposted) and idempotency keys. */
int text_check_id(const char *s, const char *field, size_t maxbytes, int empty_ok);

/* text_has_card_number - 1 if s holds 13 to 19 digits (single blanks or
 * dashes allowed between groups of them) that pass the Luhn check, as every
 * payment card number does. In a longer run of groups ("1042 4111 1111 1111
 * 1111") any consecutive groups of 13 to 19 digits count; a window inside
 * one unbroken group of more than 19 digits does not (no card is that long). */
int text_has_card_number(const char *s);

/* text_sanitize - a new string (caller frees) in which every control
 * character, C1 control, invalid byte and bidirectional override of s is
 * replaced by a visible, harmless escape such as "^[" or "<U+202E>". */
char *text_sanitize(const char *s);

/* utf8_decode - decode one UTF-8 sequence at s (at most n bytes). Returns its
 * length and sets *cp, or 0 if the bytes are not valid UTF-8. */
size_t utf8_decode(const unsigned char *s, size_t n, unsigned int *cp);

#endif
