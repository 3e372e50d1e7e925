/*
 * csv.c - reading CSV records (see csv.h).
 *
 * A small state machine over getc(): outside quotes a comma ends a field
 * and a line break ends the record; inside quotes everything is text until
 * a quote, which either doubles (one quote) or closes the field. Fields are
 * collected in a strbuf and copied out when they end, so every returned
 * field is its own NUL-terminated string. Writing is csv_put at the end.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "err.h"
#include "i18n.h"
#include "strbuf.h"
#include "xalloc.h"

void csv_open(struct csv_reader *r, FILE *f)
{
	memset(r, 0, sizeof *r);
	r->f = f;
	r->line = 1;
}

static void clear_fields(struct csv_reader *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->field[i]);
	r->n = 0;
}

void csv_close(struct csv_reader *r)
{
	clear_fields(r);
	free(r->field);
	memset(r, 0, sizeof *r);
}

/* End the field in sb: append it to the record. */
static int end_field(struct csv_reader *r, struct strbuf *sb, long start)
{
	if (r->n == CSV_FIELDS_MAX)
		return err_set(FD_EINVAL, _("line %ld: more than %d fields"), start,
		               CSV_FIELDS_MAX);
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->field = xrealloc(r->field, r->cap * sizeof *r->field);
	}
	r->field[r->n++] = xstrdup(sb_cstr(sb));
	sb->len = 0;
	if (sb->s)
		sb->s[0] = '\0';
	return 0;
}

/* The next byte: those put back first (in order), then the file's. */
static int get(struct csv_reader *r)
{
	int c, i;

	if (r->nback == 0)
		return getc(r->f);
	c = r->back[0];
	for (i = 1; i < r->nback; i++)
		r->back[i - 1] = r->back[i];
	r->nback--;
	return c;
}

/* Skip a UTF-8 byte order mark at the very start of the file. */
static void skip_bom(struct csv_reader *r)
{
	static const int bom[3] = {0xef, 0xbb, 0xbf};
	int i, c;

	r->started = 1;
	for (i = 0; i < 3; i++) {
		c = getc(r->f);
		if (c == EOF)
			break;
		r->back[r->nback++] = c;
		if (c != bom[i])
			return;
	}
	if (r->nback == 3)
		r->nback = 0;
}

/* Where csv_next stands within a field. */
enum csv_state { FIELD_START, PLAIN, QUOTED, QUOTE_IN_QUOTED };

/* What to do with a byte once its state is decided (else an error < 0). */
enum { BYTE_ADD, BYTE_SKIP, BYTE_END };

/* Byte c inside a quoted field begun on line start. */
static int quoted_byte(struct csv_reader *r, int c, enum csv_state *state, long start)
{
	if (c == EOF)
		return err_set(FD_EINVAL, _("line %ld: a quoted field is never closed"), start);
	if (c == '"') {
		*state = QUOTE_IN_QUOTED;
		return BYTE_SKIP;
	}
	if (c == '\n')
		r->line++;
	return BYTE_ADD;
}

/* c ends the field in sb: a comma (the record goes on), or the end of the
 * line or the file (BYTE_END). */
static int field_end(struct csv_reader *r, struct strbuf *sb, int c, enum csv_state *state,
                     long start)
{
	int rc;

	if (c == '\r' && (c = get(r)) != '\n')
		return err_set(FD_EINVAL,
		               _("line %ld: a carriage return outside "
		                 "quotes that does not end the line"),
		               r->line);
	if ((rc = end_field(r, sb, start)) != 0)
		return rc;
	if (c != ',') {
		if (c == '\n')
			r->line++;
		return BYTE_END;
	}
	*state = FIELD_START;
	return BYTE_SKIP;
}

/* Byte c outside quotes (or just after a closing quote). */
static int plain_byte(struct csv_reader *r, struct strbuf *sb, int c, enum csv_state *state,
                      long start)
{
	if (*state == QUOTE_IN_QUOTED && c == '"') {
		*state = QUOTED; /* "" inside quotes: one quote */
		return BYTE_ADD;
	}
	if (c == ',' || c == '\n' || c == EOF || c == '\r')
		return field_end(r, sb, c, state, start);
	if (*state == QUOTE_IN_QUOTED)
		return err_set(FD_EINVAL, _("line %ld: text after the closing quote of a field"),
		               r->line);
	if (*state == FIELD_START && c == '"') {
		*state = QUOTED;
		return BYTE_SKIP;
	}
	*state = PLAIN;
	return BYTE_ADD;
}

int csv_next(struct csv_reader *r, long *line)
{
	enum csv_state state = FIELD_START;
	struct strbuf sb = {0};
	long start;
	int c, rc = 0;
	char ch;

	if (!r->started)
		skip_bom(r);
	clear_fields(r);
	/* skip empty lines */
	while ((c = get(r)) == '\n' || c == '\r')
		if (c == '\n')
			r->line++;
	if (c == EOF) {
		rc = ferror(r->f) ? err_set(FD_EIO, _("cannot read line %ld"), r->line) : 0;
		goto out;
	}
	start = r->line;
	*line = start;
	for (;; c = get(r)) {
		if (c == EOF && ferror(r->f)) {
			rc = err_set(FD_EIO, _("cannot read line %ld"), r->line);
			goto out;
		}
		rc = state == QUOTED ? quoted_byte(r, c, &state, start)
		                     : plain_byte(r, &sb, c, &state, start);
		if (rc < 0)
			goto out;
		if (rc == BYTE_END) {
			rc = 1;
			goto out;
		}
		if (rc == BYTE_SKIP)
			continue;
		if (sb.len >= CSV_FIELD_MAX) {
			rc = err_set(FD_EINVAL, _("line %ld: a field longer than %d bytes"),
			             r->line, CSV_FIELD_MAX);
			goto out;
		}
		ch = (char)c;
		sb_add(&sb, &ch, 1);
	}
out:
	sb_free(&sb);
	if (rc < 0)
		clear_fields(r);
	return rc;
}

void csv_put(FILE *out, const char *s, int flags)
{
	const char *p;
	int quote;

	if (!s)
		s = "";
	quote = strpbrk(s, ",\"\r\n") != NULL;
	if (quote)
		putc('"', out);
	if ((flags & CSV_TEXT) && *s && strchr("=+-@\t\r", *s))
		putc('\'', out);
	for (p = s; *p; p++) {
		if (*p == '"')
			putc('"', out);
		putc(*p, out);
	}
	if (quote)
		putc('"', out);
	fputs(flags & CSV_LAST ? "\r\n" : ",", out);
}
