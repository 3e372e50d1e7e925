/*
 * strbuf.c - growable string (see strbuf.h).
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "xalloc.h"

static void grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;

	if (need <= sb->cap)
		return;
	sb->cap = sb->cap ? sb->cap : 64;
	while (sb->cap < need)
		sb->cap *= 2;
	sb->s = xrealloc(sb->s, sb->cap);
}

void sb_add(struct strbuf *sb, const char *s, size_t n)
{
	grow(sb, n);
	memcpy(sb->s + sb->len, s, n);
	sb->len += n;
	sb->s[sb->len] = '\0';
}

void sb_puts(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	grow(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->s + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

const char *sb_cstr(const struct strbuf *sb)
{
	return sb->s ? sb->s : "";
}

char *sb_steal(struct strbuf *sb)
{
	char *s = sb->s ? sb->s : xstrdup("");

	sb->s = NULL;
	sb->len = sb->cap = 0;
	return s;
}

void sb_free(struct strbuf *sb)
{
	free(sb->s);
	sb->s = NULL;
	sb->len = sb->cap = 0;
}
