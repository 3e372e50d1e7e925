/*
 * text.c - input validation and output sanitising of text (see text.h).
 *
 * The UTF-8 decoder is strict: it refuses overlong forms, surrogates and
 * code points past U+10FFFF, so that what we store is what we show.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "err.h"
#include "i18n.h"
#include "text.h"
#include "xalloc.h"

size_t utf8_decode(const unsigned char *s, size_t n, unsigned int *cp)
{
	unsigned int c;
	size_t len, i;

	if (n == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	} else if ((s[0] & 0xE0) == 0xC0) {
		len = 2;
		c = s[0] & 0x1F;
	} else if ((s[0] & 0xF0) == 0xE0) {
		len = 3;
		c = s[0] & 0x0F;
	} else if ((s[0] & 0xF8) == 0xF0) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return len;
}

/* Characters that must never reach a terminal or be stored in a field. */
static int is_dangerous(unsigned int c)
{
	return c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) ||
	       (c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F || c == 0x061C ||
	       c == 0xFEFF;
}

int text_check(const char *s, const char *field, size_t maxbytes, int empty_ok)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len, off = 0;
	unsigned int cp;

	if (!s)
		return err_set(FD_EINVAL, _("%s is missing"), field);
	len = strlen(s);
	if (len == 0 && !empty_ok)
		return err_set(FD_EINVAL, _("%s must not be empty"), field);
	if (len > maxbytes)
		return err_set(FD_EINVAL, _("%s is too long (%zu bytes; at most %zu)"), field, len,
		               maxbytes);
	while (off < len) {
		size_t n = utf8_decode(p + off, len - off, &cp);

		if (n == 0)
			return err_set(FD_EINVAL, _("%s is not valid UTF-8 text (byte %zu)"), field,
			               off + 1);
		if (is_dangerous(cp))
			return err_set(FD_EINVAL,
			               _("%s contains a control character or escape sequence "
			                 "(U+%04X at byte %zu)"),
			               field, cp, off + 1);
		off += n;
	}
	if (len > 0 && (s[0] == ' ' || s[len - 1] == ' '))
		return err_set(FD_EINVAL, _("%s must not begin or end with a blank"), field);
	return 0;
}

char *text_sanitize(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = strlen((const char *)p), off = 0, o = 0;
	char *out = xmalloc(len * 10 + 1); /* each byte grows to at most "<U+XXXX>" */
	unsigned int cp;

	while (off < len) {
		size_t n = utf8_decode(p + off, len - off, &cp);

		if (n == 0) {
			o += (size_t)sprintf(out + o, "<%02X>", p[off]);
			off++;
			continue;
		}
		if (cp < 0x20)
			o += (size_t)sprintf(out + o, "^%c", (char)(cp + '@'));
		else if (cp == 0x7F)
			o += (size_t)sprintf(out + o, "^?");
		else if (is_dangerous(cp))
			o += (size_t)sprintf(out + o, "<U+%04X>", cp);
		else {
			memcpy(out + o, p + off, n);
			o += n;
		}
		off += n;
	}
	out[o] = '\0';
	return out;
}
