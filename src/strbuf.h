/*
 * strbuf.h - a growable NUL-terminated string. No project dependencies
 * beyond xalloc. A zeroed struct strbuf is an empty buffer.
 */
#ifndef FD_STRBUF_H
#define FD_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *s;    /* NUL-terminated, or NULL while empty */
	size_t len; /* bytes before the NUL */
	size_t cap; /* bytes allocated */
};

void sb_add(struct strbuf *sb, const char *s, size_t n);
void sb_puts(struct strbuf *sb, const char *s);
void sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* sb_cstr - the text so far ("" when empty); owned by sb. */
const char *sb_cstr(const struct strbuf *sb);
/* sb_steal - hand the text to the caller (who frees it) and empty sb. */
char *sb_steal(struct strbuf *sb);
void sb_free(struct strbuf *sb);

#endif
