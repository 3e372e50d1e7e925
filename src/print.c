/*
 * print.c - the one layout of invoices and receipts to hand over (see
 * print.h): plain text of 80 or 42 columns, and that text as an A4 PDF.
 *
 * Text is measured in display columns with wcwidth() under the C.UTF-8
 * locale (made for the layout with newlocale, so the caller's locale does
 * not change a width; without it, the current one). Every piece of stored
 * text goes through text_sanitize() first, then through wrap(), which
 * breaks it at blanks, or between characters when one word is wider than
 * the line. Figures are formatted with money_text (grouped, '.' before the
 * decimals whatever the locale) and are placed whole: put_pair() moves a
 * figure to a line of its own when it does not fit beside its label.
 *
 * The PDF renders the 80-column text line by line in Noto Sans Mono CJK
 * (its CJK glyphs are exactly two Latin columns wide, so the columns line
 * up), 54 lines to an A4 page. pangocairo is loaded by dynlib the first
 * time; cairo, pango and fontconfig are reached through it (its
 * dependencies). After each PDF their caches are dropped (the default font
 * map, cairo's static data, FcFini): nothing of theirs is alive then.
 *
 * Callers: cli-invoice.c, cli-pay.c, ui/form-print.c; zreport.c through
 * the pieces (print_layout, print_pair, ...) and print_text_write.
 */
#include <config.h>

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include <cairo-pdf.h>
#include <fontconfig/fontconfig.h>
#include <pango/pangocairo.h>

#include "clock.h"
#include "db.h"
#include "dynlib.h"
#include "err.h"
#include "export.h"
#include "fsmode.h"
#include "i18n.h"
#include "invoice.h"
#include "money.h"
#include "payment.h"
#include "print.h"
#include "retention-mod.h"
#include "settings.h"
#include "strbuf.h"
#include "text.h"
#include "words.h"
#include "xalloc.h"

/* ---------------------------------------------------------------- measuring */

/* The width of code point cp in columns (0 for a combining mark). */
static int cp_width(unsigned int cp)
{
	int w = wcwidth((wchar_t)cp);

	return w < 0 ? 1 : w; /* text is sanitised: no control is left */
}

/* The next code point of s (valid UTF-8 after text_sanitize): its length,
 * its width in *w. A byte that does not decode counts as one column. */
static size_t next_cp(const char *s, int *w)
{
	unsigned int cp;
	size_t n = utf8_decode((const unsigned char *)s, strlen(s) < 4 ? strlen(s) : 4, &cp);

	if (n == 0) {
		*w = 1;
		return 1;
	}
	*w = cp_width(cp);
	return n;
}

/* The display width of the first n bytes of s. */
static int width_of(const char *s, size_t n)
{
	int total = 0, w;
	size_t i = 0;

	while (i < n && s[i]) {
		i += next_cp(s + i, &w);
		total += w;
	}
	return total;
}

/* ---------------------------------------------------------------- laying out */

struct lay {
	struct strbuf *out;
	int width;
};

static void put_spaces(struct lay *L, int n)
{
	while (n-- > 0)
		sb_add(L->out, " ", 1);
}

/* One line of text that fits the width. */
static void put_line(struct lay *L, const char *s)
{
	sb_puts(L->out, s);
	sb_add(L->out, "\n", 1);
}

static void put_rule(struct lay *L, char c)
{
	int i;

	for (i = 0; i < L->width; i++)
		sb_add(L->out, &c, 1);
	sb_add(L->out, "\n", 1);
}

/*
 * wrap - take the next line of at most width columns from *p into line
 * (emptied first), collapsing runs of blanks; a word wider than the line
 * is cut between characters (at least one is taken). Returns 0 when
 * nothing is left.
 */
static int wrap(const char **p, int width, struct strbuf *line)
{
	const char *s = *p;
	int used = 0;

	line->len = 0;
	if (line->s)
		line->s[0] = '\0';
	while (*s == ' ')
		s++;
	if (!*s) {
		*p = s;
		return 0;
	}
	while (*s) {
		const char *we = s;
		int ww = 0, w, gap = used ? 1 : 0;

		while (*we && *we != ' ') {
			we += next_cp(we, &w);
			ww += w;
		}
		if (used + gap + ww <= width) {
			if (gap)
				sb_add(line, " ", 1);
			sb_add(line, s, (size_t)(we - s));
			used += gap + ww;
			s = we;
			while (*s == ' ')
				s++;
			continue;
		}
		if (used)
			break;
		/* a word wider than the whole line: as much of it as fits */
		while (*s && *s != ' ') {
			size_t n = next_cp(s, &w);

			if (used + w > width && used)
				break;
			sb_add(line, s, n);
			used += w;
			s += n;
		}
		break;
	}
	*p = s;
	return 1;
}

/* Stored text (may be NULL), sanitised and wrapped to the width with
 * indent columns before each line; first (may be NULL) replaces the indent
 * on the first line and must be exactly indent columns wide. */
static void put_wrapped(struct lay *L, const char *first, int indent, const char *text)
{
	char *clean = text_sanitize(text ? text : "");
	const char *p = clean;
	struct strbuf line = {0};
	int n = 0;

	while (wrap(&p, L->width - indent, &line)) {
		if (n++ == 0 && first)
			sb_puts(L->out, first);
		else
			put_spaces(L, indent);
		put_line(L, sb_cstr(&line));
	}
	if (n == 0 && first) {
		sb_puts(L->out, first);
		sb_add(L->out, "\n", 1);
	}
	sb_free(&line);
	free(clean);
}

/* Stored text centred, wrapped to the width. */
static void put_centred(struct lay *L, const char *text)
{
	char *clean = text_sanitize(text);
	const char *p = clean;
	struct strbuf line = {0};

	while (wrap(&p, L->width, &line)) {
		put_spaces(L, (L->width - width_of(sb_cstr(&line), line.len)) / 2);
		put_line(L, sb_cstr(&line));
	}
	sb_free(&line);
	free(clean);
}

/* "Label ........ value": value (a figure, a number, a date: never cut)
 * at the right edge; when both do not fit on one line, the label (wrapped)
 * then the value on a line of its own. Both are sanitised here too: an
 * invoice number or a status word came from the database as well. */
static void put_pair(struct lay *L, const char *label, const char *value)
{
	char *l = text_sanitize(label), *v = text_sanitize(value);
	int lw = width_of(l, strlen(l)), vw = width_of(v, strlen(v));

	if (lw + 1 + vw <= L->width) {
		sb_puts(L->out, l);
		put_spaces(L, L->width - lw - vw);
		put_line(L, v);
	} else {
		put_wrapped(L, NULL, 0, l);
		put_spaces(L, L->width - vw);
		put_line(L, v);
	}
	free(l);
	free(v);
}

/* "Label: stored text", the text wrapped under itself when the label is
 * narrow enough, else from the start of the next lines. */
static void put_field(struct lay *L, const char *label, const char *text)
{
	struct strbuf first = {0};
	int lw;

	/* TRANSLATORS: a printed document's label before its text, "Customer: ";
	   keep the %s and use your language's colon */
	sb_printf(&first, _("%s: "), label);
	lw = width_of(first.s, first.len);
	if (lw <= L->width / 3) {
		put_wrapped(L, first.s, lw, text);
	} else {
		put_line(L, label);
		put_wrapped(L, NULL, 2, text);
	}
	sb_free(&first);
}

static void put_shop(struct lay *L)
{
	const char *name = config_get("shop_name", NULL);
	const char *addr = config_get("shop_address", NULL);

	if (name && *name)
		put_centred(L, name);
	if (addr && *addr)
		put_centred(L, addr);
	put_rule(L, '=');
}

static const char *date_of(int64_t t, char buf[32])
{
	clock_format_local(t, "%Y-%m-%d", buf, 32);
	return buf;
}

static const char *money_of(int64_t v, const char *code, char buf[MONEY_BUFSZ])
{
	return money_text(v, code, 1, buf);
}

/* ---------------------------------------------------------------- invoices */

struct pline {
	char *desc; /* sanitised */
	char qty[32], price[MONEY_BUFSZ], amount[MONEY_BUFSZ];
};

struct plines {
	struct pline *v;
	size_t n;
	const char *currency;
};

static int collect_line(const struct invoice_line *l, void *arg)
{
	struct plines *ls = arg;
	struct pline *p;

	ls->v = xrealloc(ls->v, (ls->n + 1) * sizeof *ls->v);
	p = &ls->v[ls->n++];
	p->desc = text_sanitize(l->description ? l->description : "");
	qty_format(l->qty_milli, p->qty, sizeof p->qty);
	money_of(l->unit_price, ls->currency, p->price);
	money_of(l->amount, ls->currency, p->amount);
	return 0;
}

static int maxw(int a, const char *s)
{
	int w = width_of(s, strlen(s));

	return w > a ? w : a;
}

/* A figure right-aligned in a column of w, then gap blanks. */
static void put_cell(struct lay *L, const char *s, int w, int gap)
{
	put_spaces(L, w - width_of(s, strlen(s)));
	sb_puts(L->out, s);
	put_spaces(L, gap);
}

/* The invoice's lines: a table (description, qty, unit price, amount)
 * when the description keeps at least 16 columns, else each description
 * wrapped on its own lines with "qty x price" and the amount below. */
static void put_lines(struct lay *L, const struct plines *ls)
{
	const char *hd = _("Description"), *hq = _("Qty"), *hp = _("Unit price"), *ha = _("Amount");
	int qw = maxw(0, hq), pw = maxw(0, hp), aw = maxw(0, ha), dw;
	struct strbuf line = {0};
	size_t i;

	for (i = 0; i < ls->n; i++) {
		qw = maxw(qw, ls->v[i].qty);
		pw = maxw(pw, ls->v[i].price);
		aw = maxw(aw, ls->v[i].amount);
	}
	dw = L->width - qw - pw - aw - 6;
	if (dw >= 16) {
		sb_puts(L->out, hd);
		put_spaces(L, dw - width_of(hd, strlen(hd)) + 2);
		put_cell(L, hq, qw, 2);
		put_cell(L, hp, pw, 2);
		put_cell(L, ha, aw, 0);
		sb_add(L->out, "\n", 1);
		put_rule(L, '-');
		for (i = 0; i < ls->n; i++) {
			const char *p = ls->v[i].desc;
			int n = 0;

			while (wrap(&p, dw, &line) || n == 0) {
				sb_puts(L->out, sb_cstr(&line));
				if (n++ == 0) {
					put_spaces(L, dw - width_of(sb_cstr(&line), line.len) + 2);
					put_cell(L, ls->v[i].qty, qw, 2);
					put_cell(L, ls->v[i].price, pw, 2);
					put_cell(L, ls->v[i].amount, aw, 0);
				}
				sb_add(L->out, "\n", 1);
			}
		}
	} else {
		for (i = 0; i < ls->n; i++) {
			struct strbuf qp = {0};

			put_wrapped(L, NULL, 0, ls->v[i].desc);
			sb_printf(&qp, "  %s x %s", ls->v[i].qty, ls->v[i].price);
			put_pair(L, qp.s, ls->v[i].amount);
			sb_free(&qp);
		}
	}
	sb_free(&line);
}

static int invoice_text(struct db *db, int64_t id, struct lay *L)
{
	struct invoice inv;
	struct plines ls = {NULL, 0, NULL};
	char d[32], m[MONEY_BUFSZ];
	int rc = invoice_get(db, id, &inv), credit;
	size_t i;

	if (rc)
		return rc;
	credit = !strcmp(inv.kind, "credit_note");
	ls.currency = inv.currency;
	put_shop(L);
	put_pair(L, credit ? _("CREDIT NOTE") : _("INVOICE"), inv.number[0] ? inv.number : "-");
	if (inv.credits_id) {
		struct invoice t;

		if (invoice_get(db, inv.credits_id, &t) == 0) {
			put_pair(L, _("Corrects"), t.number);
			invoice_free(&t);
		}
	}
	put_field(L, _("Customer"), inv.customer_name);
	put_pair(L, _("Issued"), date_of(inv.issued_at, d));
	if (!credit)
		put_pair(L, _("Due"), date_of(inv.due_at, d));
	if (!credit) /* a credit note owes nothing: its status says nothing to the customer */
		put_pair(L, _("Status"), words_label(inv.status));
	put_pair(L, _("Currency"), inv.currency);
	if (inv.note)
		put_field(L, _("Note"), inv.note);
	put_rule(L, '-');
	if ((rc = invoice_lines(db, id, collect_line, &ls)) != 0)
		goto out;
	put_lines(L, &ls);
	put_rule(L, '-');
	put_pair(L, _("Total"), money_of(inv.total, inv.currency, m));
	if (!credit) {
		put_pair(L, _("Credited"), money_of(inv.credited, inv.currency, m));
		put_pair(L, _("Paid"), money_of(inv.paid, inv.currency, m));
		put_pair(L, _("Balance"), money_of(invoice_owed(&inv), inv.currency, m));
	}
	put_rule(L, '=');
out:
	for (i = 0; i < ls.n; i++)
		free(ls.v[i].desc);
	free(ls.v);
	invoice_free(&inv);
	return rc;
}

/* ---------------------------------------------------------------- estimates */

static int estimate_text(const struct print_estimate *e, struct lay *L)
{
	struct plines ls = {NULL, 0, e->currency};
	char d[32], m[MONEY_BUFSZ];
	char *t;
	size_t i;

	put_shop(L);
	put_pair(L, _("ESTIMATE"), e->number);
	put_field(L, _("Customer"), e->customer);
	put_field(L, _("Job"), e->job);
	put_pair(L, _("Date"), date_of(e->made_at, d));
	put_pair(L, _("Currency"), e->currency);
	put_rule(L, '-');
	ls.v = xcalloc(e->n ? e->n : 1, sizeof *ls.v);
	for (i = 0; i < e->n; i++) {
		struct pline *p = &ls.v[ls.n++];

		p->desc = text_sanitize(e->lines[i].description ? e->lines[i].description : "");
		qty_format(e->lines[i].qty_milli, p->qty, sizeof p->qty);
		money_of(e->lines[i].unit_price, e->currency, p->price);
		money_of(e->lines[i].amount, e->currency, p->amount);
	}
	put_lines(L, &ls);
	put_rule(L, '-');
	put_pair(L, _("Subtotal"), money_of(e->subtotal, e->currency, m));
	put_pair(L, _("Tax"), money_of(e->tax, e->currency, m));
	put_pair(L, _("Total"), money_of(e->total, e->currency, m));
	put_rule(L, '-');
	if (e->terms && *e->terms) {
		t = text_sanitize(e->terms);
		put_wrapped(L, NULL, 0, t);
		free(t);
		put_rule(L, '-');
	}
	put_wrapped(L, NULL, 0,
	            _("By signing, the customer authorises the work above at the prices above."));
	put_line(L, "");
	put_pair(L, _("Signature"), "______________________");
	put_rule(L, '=');
	for (i = 0; i < ls.n; i++)
		free(ls.v[i].desc);
	free(ls.v);
	return 0;
}

/* The layout's locale: the caller's, with C.UTF-8's character widths
 * (LC_CTYPE) alone replaced. Every other category stays the caller's, so
 * the labels are in the same language as the words of the records
 * (words_label: "paid"); made from a C locale, the labels were English
 * while a status read in Chinese. (locale_t)0 when it cannot be made: the
 * current one is used. */
static locale_t layout_enter(locale_t *old)
{
	locale_t base = duplocale(uselocale((locale_t)0)), utf8 = (locale_t)0;

	if (base != (locale_t)0) {
		utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", base);
		if (utf8 == (locale_t)0)
			freelocale(base);
	}
	if (utf8 != (locale_t)0)
		*old = uselocale(utf8);
	return utf8;
}

static void layout_leave(locale_t utf8, locale_t old)
{
	if (utf8 != (locale_t)0) {
		uselocale(old);
		freelocale(utf8);
	}
}

int print_estimate_text(const struct print_estimate *e, int width, struct strbuf *out)
{
	struct lay L = {out, width};
	locale_t utf8, old = (locale_t)0;
	int rc;

	if (!print_width_valid(width))
		return err_set(FD_EINVAL, _("the width is %d or %d columns"), PRINT_WIDE,
		               PRINT_NARROW);
	utf8 = layout_enter(&old);
	rc = estimate_text(e, &L);
	layout_leave(utf8, old);
	return rc;
}

/* ---------------------------------------------------------------- receipts */

struct rcpt {
	struct lay *L;
	int n;
};

static int receipt_alloc(const struct allocation *a, void *arg)
{
	struct rcpt *r = arg;
	char m[MONEY_BUFSZ], d[32];
	struct strbuf label = {0};

	if (a->reverses_id)
		return 0; /* shown on the allocation it undoes */
	sb_printf(&label, "  %s %s", a->invoice_number, date_of(a->created_at, d));
	if (a->reversed_by)
		sb_printf(&label, " (%s)", _("reversed"));
	put_pair(r->L, label.s, money_of(a->amount, a->currency, m));
	sb_free(&label);
	r->n++;
	return 0;
}

static int receipt_text(struct db *db, int64_t id, struct lay *L)
{
	struct payment p;
	struct rcpt r = {L, 0};
	char d[32], m[MONEY_BUFSZ];
	int rc = payment_get(db, id, &p);

	if (rc)
		return rc;
	put_shop(L);
	{
		char num[64];

		snprintf(num, sizeof num, _("payment %lld"), (long long)p.id);
		put_pair(L, _("RECEIPT"), num);
	}
	put_field(L, _("Customer"), p.customer_name);
	put_pair(L, _("Received"), date_of(p.received_at, d));
	put_pair(L, _("Method"), words_label(p.method));
	if (p.reference)
		put_field(L, _("Reference"), p.reference);
	if (payment_is_void(&p))
		put_pair(L, _("Status"), words_label(p.status));
	put_pair(L, _("Currency"), p.currency);
	if (p.note)
		put_field(L, _("Note"), p.note);
	put_rule(L, '-');
	put_pair(L, _("Amount received"), money_of(p.amount, p.currency, m));
	put_line(L, _("Allocated to:"));
	if ((rc = alloc_list(db, id, 0, receipt_alloc, &r)) != 0)
		goto out;
	if (r.n == 0)
		put_wrapped(L, "  ", 2, _("nothing"));
	put_rule(L, '-');
	put_pair(L, _("Allocated"), money_of(p.allocated, p.currency, m));
	if (p.refunded)
		put_pair(L, _("Refunded"), money_of(p.refunded, p.currency, m));
	put_pair(L, _("Left as credit"), money_of(p.unallocated, p.currency, m));
	put_rule(L, '=');
out:
	payment_free(&p);
	return rc;
}

int print_width_valid(long width)
{
	return width == PRINT_WIDE || width == PRINT_NARROW;
}

int print_text(struct db *db, enum print_doc doc, int64_t id, int width, struct strbuf *out)
{
	struct lay L = {out, width};
	locale_t utf8, old = (locale_t)0;
	int rc;

	if (!print_width_valid(width))
		return err_set(FD_EINVAL, _("the width is %d or %d columns"), PRINT_WIDE,
		               PRINT_NARROW);
	utf8 = layout_enter(&old);
	rc = doc == PRINT_RECEIPT ? receipt_text(db, id, &L) : invoice_text(db, id, &L);
	layout_leave(utf8, old);
	return rc;
}

/* ---------------------------------------------------------------- the pieces */

int print_layout(int width, int (*fn)(void *arg), void *arg)
{
	locale_t utf8, old = (locale_t)0;
	int rc;

	if (!print_width_valid(width))
		return err_set(FD_EINVAL, _("the width is %d or %d columns"), PRINT_WIDE,
		               PRINT_NARROW);
	utf8 = layout_enter(&old);
	rc = fn(arg);
	layout_leave(utf8, old);
	return rc;
}

void print_shop(struct strbuf *out, int width)
{
	struct lay L = {out, width};

	put_shop(&L);
}

void print_pair(struct strbuf *out, int width, const char *label, const char *value)
{
	struct lay L = {out, width};

	put_pair(&L, label, value);
}

void print_field(struct strbuf *out, int width, const char *label, const char *text)
{
	struct lay L = {out, width};

	put_field(&L, label, text);
}

void print_wrapped(struct strbuf *out, int width, int indent, const char *text)
{
	struct lay L = {out, width};

	put_wrapped(&L, NULL, indent, text);
}

void print_rule(struct strbuf *out, int width, char c)
{
	struct lay L = {out, width};

	put_rule(&L, c);
}

int print_columns(const char *s)
{
	return width_of(s, strlen(s));
}

/* ---------------------------------------------------------------- PDF */

#define PANGO_FUNCS(X)                                                                             \
	X(FcFini)                                                                                  \
	X(cairo_arc)                                                                               \
	X(cairo_create)                                                                            \
	X(cairo_debug_reset_static_data)                                                           \
	X(cairo_destroy)                                                                           \
	X(cairo_fill_preserve)                                                                     \
	X(cairo_image_surface_create)                                                              \
	X(cairo_image_surface_create_from_png_stream)                                              \
	X(cairo_image_surface_get_height)                                                          \
	X(cairo_image_surface_get_width)                                                           \
	X(cairo_move_to)                                                                           \
	X(cairo_new_path)                                                                          \
	X(cairo_paint)                                                                             \
	X(cairo_restore)                                                                           \
	X(cairo_save)                                                                              \
	X(cairo_scale)                                                                             \
	X(cairo_set_line_width)                                                                    \
	X(cairo_set_source_surface)                                                                \
	X(cairo_stroke)                                                                            \
	X(cairo_surface_set_mime_data)                                                             \
	X(cairo_translate)                                                                         \
	X(cairo_pdf_surface_create_for_stream)                                                     \
	X(cairo_pdf_surface_set_metadata)                                                          \
	X(cairo_set_source_rgb)                                                                    \
	X(cairo_show_page)                                                                         \
	X(cairo_status_to_string)                                                                  \
	X(cairo_surface_destroy)                                                                   \
	X(cairo_surface_finish)                                                                    \
	X(cairo_surface_status)                                                                    \
	X(g_object_unref)                                                                          \
	X(pango_cairo_create_layout)                                                               \
	X(pango_cairo_font_map_set_default)                                                        \
	X(pango_cairo_show_layout)                                                                 \
	X(pango_font_description_free)                                                             \
	X(pango_font_description_from_string)                                                      \
	X(pango_layout_get_pixel_size)                                                             \
	X(pango_layout_set_font_description)                                                       \
	X(pango_layout_set_text)
#define PANGO_SLOT(f) __typeof__(f) *p_##f;
#define PANGO_NAME(f) #f,
static struct {
	PANGO_FUNCS(PANGO_SLOT)
} pc;
static const char *const pc_names[] = {PANGO_FUNCS(PANGO_NAME) NULL};
static void *pc_ptrs[sizeof pc_names / sizeof *pc_names];
static struct dynlib pc_lib = {"libpangocairo-1.0.so.0", pc_names, pc_ptrs, 0, ""};

static int pc_load(void)
{
	static int copied;
	size_t i = 0;
	int rc;

	if ((rc = dynlib_load(&pc_lib, _("writing a PDF"))) != 0)
		return rc;
	if (!copied) { /* a PDF is made on the one thread of the command or the screen */
#define PANGO_SET(f) memcpy(&pc.p_##f, &pc_ptrs[i++], sizeof pc.p_##f);
		PANGO_FUNCS(PANGO_SET)
#undef PANGO_SET
		copied = 1;
	}
	return 0;
}

#define PAGE_W     595.276 /* A4 in points */
#define PAGE_H     841.89
#define MARGIN     56.0
#define LINE_H     13.0
#define PAGE_LINES 54
#define FONT       "Noto Sans Mono CJK SC, Noto Sans Mono, monospace 10px"

static cairo_status_t pdf_write(void *closure, const unsigned char *data, unsigned int n)
{
	return fwrite(data, 1, n, closure) == n ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* A picture's bytes, read by cairo's PNG reader. */
struct png_read {
	const unsigned char *p;
	size_t len, at;
};

static cairo_status_t png_read(void *closure, unsigned char *data, unsigned int n)
{
	struct png_read *r = closure;

	if (r->len - r->at < n)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(data, r->p + r->at, n);
	r->at += n;
	return CAIRO_STATUS_SUCCESS;
}

#define MARK_R 8.0 /* a mark's radius in points */

/* Picture pic on a page of its own: its title, the picture scaled to fit
 * the page inside the margins, and each mark a numbered disc centred on
 * its place. 0, or FD_EINVAL when the picture cannot be read. */
static int pdf_picture(cairo_t *cr, PangoLayout *lay, const struct print_picture *pic)
{
	cairo_surface_t *img;
	double w, h, k, top = MARGIN + 2 * LINE_H, room_w = PAGE_W - 2 * MARGIN,
	                room_h = PAGE_H - top - MARGIN;
	size_t i;

	if (pic->jpeg) {
		/* the photo goes into the PDF as it is (cairo embeds JPEG data
		 * attached to a surface of its size): no pixel is changed */
		if (pic->width <= 0 || pic->height <= 0 || pic->width > 30000 ||
		    pic->height > 30000)
			return err_set(FD_EINVAL, "%s", _("a JPEG picture of no readable size"));
		img = pc.p_cairo_image_surface_create(CAIRO_FORMAT_RGB24, pic->width, pic->height);
		pc.p_cairo_surface_set_mime_data(img, CAIRO_MIME_TYPE_JPEG, pic->data, pic->len,
		                                 NULL, NULL);
	} else {
		struct png_read r = {pic->data, pic->len, 0};

		img = pc.p_cairo_image_surface_create_from_png_stream(png_read, &r);
	}
	if (pc.p_cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		pc.p_cairo_surface_destroy(img);
		return err_set(FD_EINVAL, "%s", _("a picture that cannot be read"));
	}
	w = pc.p_cairo_image_surface_get_width(img);
	h = pc.p_cairo_image_surface_get_height(img);
	k = room_w / w < room_h / h ? room_w / w : room_h / h;
	pc.p_pango_layout_set_text(lay, pic->title, -1);
	pc.p_cairo_set_source_rgb(cr, 0, 0, 0);
	pc.p_cairo_move_to(cr, MARGIN, MARGIN);
	pc.p_pango_cairo_show_layout(cr, lay);
	pc.p_cairo_save(cr);
	pc.p_cairo_translate(cr, MARGIN, top);
	pc.p_cairo_scale(cr, k, k);
	pc.p_cairo_set_source_surface(cr, img, 0, 0);
	pc.p_cairo_paint(cr);
	pc.p_cairo_restore(cr);
	for (i = 0; i < pic->nmarks; i++) {
		double x = MARGIN + pic->marks[i].x * w * k, y = top + pic->marks[i].y * h * k;
		char num[16];
		int tw = 0, th = 0;

		pc.p_cairo_new_path(cr);
		pc.p_cairo_arc(cr, x, y, MARK_R, 0, 2 * 3.14159265358979);
		pc.p_cairo_set_source_rgb(cr, 0.85, 0.1, 0.1);
		pc.p_cairo_fill_preserve(cr);
		pc.p_cairo_set_source_rgb(cr, 1, 1, 1);
		pc.p_cairo_set_line_width(cr, 1.5);
		pc.p_cairo_stroke(cr);
		snprintf(num, sizeof num, "%d", pic->marks[i].number);
		pc.p_pango_layout_set_text(lay, num, -1);
		pc.p_pango_layout_get_pixel_size(lay, &tw, &th);
		pc.p_cairo_move_to(cr, x - tw / 2.0, y - th / 2.0);
		pc.p_pango_cairo_show_layout(cr, lay);
	}
	pc.p_cairo_show_page(cr);
	pc.p_cairo_surface_destroy(img);
	return 0;
}

/* text (lines ending in '\n') as A4 pages to f, then each of the n
 * pictures on a page of its own. */
static int pdf_render_pictures(const char *text, const struct print_picture *pics, size_t n,
                               FILE *f)
{
	cairo_surface_t *s;
	cairo_t *cr;
	PangoLayout *lay;
	PangoFontDescription *fd;
	cairo_status_t st;
	const char *p = text;
	int line = 0, rc = 0;
	size_t i;

	if ((rc = pc_load()) != 0)
		return rc;
	s = pc.p_cairo_pdf_surface_create_for_stream(pdf_write, f, PAGE_W, PAGE_H);
	/* the desk's clock, not cairo's own reading of the real one: the same
	 * document printed twice (on paper, attached to an e-mail) is the same
	 * file, byte for byte */
	{
		char when[32];
		time_t t = (time_t)clock_now();
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
		pc.p_cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATE_DATE, when);
	}
	cr = pc.p_cairo_create(s);
	lay = pc.p_pango_cairo_create_layout(cr);
	fd = pc.p_pango_font_description_from_string(FONT);
	pc.p_pango_layout_set_font_description(lay, fd);
	pc.p_pango_font_description_free(fd);
	pc.p_cairo_set_source_rgb(cr, 0, 0, 0);
	while (*p) {
		size_t k = strcspn(p, "\n");

		if (line == PAGE_LINES) {
			pc.p_cairo_show_page(cr);
			line = 0;
		}
		pc.p_pango_layout_set_text(lay, p, (int)k);
		pc.p_cairo_move_to(cr, MARGIN, MARGIN + line * LINE_H);
		pc.p_pango_cairo_show_layout(cr, lay);
		line++;
		p += k;
		if (*p == '\n')
			p++;
	}
	pc.p_cairo_show_page(cr);
	for (i = 0; !rc && i < n; i++)
		rc = pdf_picture(cr, lay, &pics[i]);
	pc.p_g_object_unref(lay);
	pc.p_cairo_destroy(cr);
	pc.p_cairo_surface_finish(s);
	st = pc.p_cairo_surface_status(s);
	pc.p_cairo_surface_destroy(s);
	/* nothing of cairo, pango or fontconfig is alive now: let them drop
	 * their caches (fonts, glyphs), so a screen that printed once does
	 * not keep them, and a leak checker sees none */
	pc.p_pango_cairo_font_map_set_default(NULL);
	pc.p_cairo_debug_reset_static_data();
	pc.p_FcFini();
	if (!rc && st != CAIRO_STATUS_SUCCESS)
		rc =
		    err_set(FD_EIO, _("cannot write the PDF: %s"), pc.p_cairo_status_to_string(st));
	return rc;
}

/* text (lines ending in '\n') as A4 pages to f. */
static int pdf_render(const char *text, FILE *f)
{
	return pdf_render_pictures(text, NULL, 0, f);
}

int print_jpeg_size(const unsigned char *p, size_t n, int *w, int *h)
{
	size_t i = 2;

	*w = *h = 0;
	if (n < 4 || p[0] != 0xFF || p[1] != 0xD8)
		return FD_EINVAL;
	/* the segments up to the frame header (SOFn: C0..CF but C4, C8, CC),
	 * whose fields give the picture's height and width */
	while (i + 4 <= n) {
		unsigned m, len;

		if (p[i] != 0xFF)
			return FD_EINVAL;
		m = p[i + 1];
		if (m == 0xFF) { /* fill byte */
			i++;
			continue;
		}
		if (m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {
			i += 2;
			continue;
		}
		len = (unsigned)p[i + 2] << 8 | p[i + 3];
		if (len < 2 || i + 2 + len > n)
			return FD_EINVAL;
		if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
			if (len < 7)
				return FD_EINVAL;
			*h = (int)((unsigned)p[i + 5] << 8 | p[i + 6]);
			*w = (int)((unsigned)p[i + 7] << 8 | p[i + 8]);
			return *w > 0 && *h > 0 ? 0 : FD_EINVAL;
		}
		if (m == 0xD9 || m == 0xDA) /* the end, or the data before a frame header */
			return FD_EINVAL;
		i += 2 + len;
	}
	return FD_EINVAL;
}

int print_pictures_write(const char *text, const struct print_picture *pics, size_t n,
                         const char *path)
{
	struct export_file ef;
	int rc;

	if (!path)
		return err_set(FD_EINVAL, _("a PDF needs a file to go to"));
	if ((rc = export_file_open(&ef, path)) != 0)
		return rc;
	rc = pdf_render_pictures(text, pics, n, ef.f);
	return export_file_finish(&ef, rc);
}

int print_text_write(const char *text, enum print_format fmt, const char *path)
{
	struct export_file ef;
	size_t len = strlen(text);
	int rc;

	if (fmt == PRINT_PDF && !path)
		return err_set(FD_EINVAL, _("a PDF needs a file to go to"));
	if ((rc = export_file_open(&ef, path)) != 0)
		return rc;
	if (fmt == PRINT_PDF)
		rc = pdf_render(text, ef.f);
	else if (fwrite(text, 1, len, ef.f) != len)
		rc = err_set(FD_EIO, _("cannot write %s: %s"), path ? path : "stdout",
		             strerror(errno));
	return export_file_finish(&ef, rc);
}

int print_write(struct db *db, enum print_doc doc, int64_t id, enum print_format fmt, int width,
                const char *path)
{
	struct strbuf text = {0};
	int rc;

	if (fmt == PRINT_PDF && !path)
		return err_set(FD_EINVAL, _("a PDF needs a file to go to"));
	if (fmt == PRINT_PDF)
		width = PRINT_WIDE;
	if ((rc = print_text(db, doc, id, width, &text)) == 0)
		rc = print_text_write(sb_cstr(&text), fmt, path);
	sb_free(&text);
	return rc;
}

int print_estimate_pdf(const struct print_estimate *e, const char *path)
{
	struct strbuf text = {0};
	struct export_file ef;
	int rc;

	if ((rc = print_estimate_text(e, PRINT_WIDE, &text)) != 0)
		goto out;
	/* the estimate's own document, in the database's folder (esign.c) */
	if ((rc = export_file_open_own(&ef, path)) != 0)
		goto out;
	rc = pdf_render(sb_cstr(&text), ef.f);
	rc = export_file_finish(&ef, rc);
out:
	sb_free(&text);
	return rc;
}

char *print_default_path(struct db *db, enum print_doc doc, int64_t id, enum print_format fmt)
{
	char *dir = fsmode_parent(db_path(db)), name[64], *path;
	size_t n;

	if (doc == PRINT_INVOICE) {
		struct invoice inv;

		if (invoice_get(db, id, &inv) != 0) {
			free(dir);
			return NULL;
		}
		snprintf(name, sizeof name, "%s", inv.number[0] ? inv.number : "invoice");
		invoice_free(&inv);
	} else {
		snprintf(name, sizeof name, "receipt-%lld", (long long)id);
	}
	n = strlen(dir) + strlen(name) + 16;
	path = xmalloc(n);
	snprintf(path, n, "%s/prints/%s.%s", dir, name, fmt == PRINT_PDF ? "pdf" : "txt");
	free(dir);
	return path;
}

/* ---------------------------------------------------------------- retention */

/* The prints the screen kept of the customer's invoices and receipts (at
 * print_default_path, both formats) are files the purge removes. */
int print_retention_purge(struct db *db, struct retention_purge_ctx *c)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare(db,
	                "SELECT 0, id FROM invoice WHERE customer_id = ?1"
	                " UNION ALL SELECT 1, id FROM payment WHERE customer_id = ?1",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, c->customer_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		enum print_doc doc = sqlite3_column_int(st, 0) ? PRINT_RECEIPT : PRINT_INVOICE;
		int64_t id = sqlite3_column_int64(st, 1);
		int f;

		for (f = 0; f < 2; f++) {
			char *path = print_default_path(db, doc, id, f ? PRINT_PDF : PRINT_TEXT);

			if (path)
				c->file(c, path);
			free(path);
		}
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list the customer's prints"));
	sqlite3_finalize(st);
	return rc;
}
