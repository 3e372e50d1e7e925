/*
 * print.h - invoices and receipts to hand over: the one layout of an
 * invoice (or credit note) and of a payment's receipt, as plain text of 80
 * or 42 columns (a receipt printer) or as an A4 PDF.
 *
 * The text holds the shop's name and address (config keys shop_name and
 * shop_address), the document's number, customer and dates, every line
 * (description, quantity, unit price, amount), total, credited, paid and
 * balance; a receipt holds the payment, its method and reference, what it
 * was allocated to, what was refunded and what is left as credit.
 * Invariants: no line is wider than the asked width in display columns
 * (wcwidth: a CJK character is two), a figure is never cut (a line that
 * cannot hold a label and its figure puts the figure on a line of its own,
 * a narrow page stacks each invoice line's figures below its description),
 * long text is wrapped at blanks (or between characters, never inside
 * one), and text read from the database passes text_sanitize(), so no
 * control character from stored text reaches the output.
 *
 * The PDF is that same text (80 columns) set in a monospace CJK font (Noto
 * Sans Mono CJK, Debian's fonts-noto-cjk) with pango and cairo on A4 pages.
 * pangocairo is loaded with dlopen the first time a PDF is made
 * (dynlib.h), so every other command starts without its thirty libraries.
 *
 * Callers: the command line (invoice print, pay print; cli-invoice.c,
 * cli-pay.c), the screen (P on an invoice or payment; ui/form-print.c),
 * and the Z report (zreport.c), through the layout's pieces below.
 */
#ifndef FD_PRINT_H
#define FD_PRINT_H

#include <stdint.h>

struct db;
struct strbuf;

enum print_doc {
	PRINT_INVOICE = 0, /* an invoice or a credit note, by invoice id */
	PRINT_RECEIPT      /* a payment's receipt, by payment id */
};

enum print_format { PRINT_TEXT = 0, PRINT_PDF };

#define PRINT_WIDE   80 /* a page */
#define PRINT_NARROW 42 /* a receipt printer */

/* print_width_valid - 1 if width is one the layout makes (80 or 42). */
int print_width_valid(long width);

/* print_text - lay out document doc number id at width columns (80 or 42)
 * and append it to out, every line ending in '\n'. FD_ENOTFOUND when there
 * is no such invoice or payment, FD_EINVAL for another width, FD_EDB when
 * the database cannot be read; out may then hold part of the text. */
int print_text(struct db *db, enum print_doc doc, int64_t id, int width, struct strbuf *out);

/* print_write - write document doc id as fmt (text at width columns; a PDF
 * always lays out 80) to path, or to stdout when path is NULL (text only:
 * FD_EINVAL for a PDF without a path). The file is made whole or not at
 * all, mode 0600 (export_file_open), in a folder that must exist.
 * Errors as print_text, and FD_EIO (a file that cannot be written, the
 * pangocairo library that cannot be loaded) with a reason. */
int print_write(struct db *db, enum print_doc doc, int64_t id, enum print_format fmt, int width,
                const char *path);

/* An estimate to lay out (esign.c makes it from a job before the estimate
 * is stored, so that its PDF's hash is recorded with it). */
struct print_est_line {
	const char *description;
	int64_t qty_milli, unit_price, amount; /* minor units */
};
struct print_estimate {
	const char *number, *customer, *job, *currency, *terms;
	int64_t made_at, subtotal, tax, total;
	const struct print_est_line *lines;
	size_t n;
};

/* print_estimate_text - lay out estimate e at width columns (80 or 42) and
 * append it to out: the shop, the number, customer, job and date, the
 * lines, subtotal, tax and total, the terms and where the customer signs.
 * FD_EINVAL for another width. */
int print_estimate_text(const struct print_estimate *e, int width, struct strbuf *out);

/* print_estimate_pdf - estimate e as an A4 PDF (its 80-column text) to
 * path, made whole or not at all, mode 0600. Errors as print_write. */
int print_estimate_pdf(const struct print_estimate *e, const char *path);

/* ------------------------------------------- the layout, for another document
 * The pieces every document here is made of, for a document laid out the
 * same way elsewhere (the Z report, zreport.c). Each appends whole lines to
 * out at width columns with the invariants above (stored text sanitised,
 * wrapped, never wider; a figure never cut). Call them from fn of
 * print_layout, which measures with C.UTF-8's character widths. */

/* print_layout - check width (80 or 42: else FD_EINVAL), then fn(arg)
 * under the layout's locale; fn's return. */
int print_layout(int width, int (*fn)(void *arg), void *arg);

/* print_shop - the shop's name and address (config), centred, and a rule. */
void print_shop(struct strbuf *out, int width);

/* print_pair - "label ..... value", the value at the right edge, or on a
 * line of its own below the (wrapped) label when both do not fit. */
void print_pair(struct strbuf *out, int width, const char *label, const char *value);

/* print_field - "label: text", text wrapped under itself. */
void print_field(struct strbuf *out, int width, const char *label, const char *text);

/* print_wrapped - text wrapped with indent blanks before each line. */
void print_wrapped(struct strbuf *out, int width, int indent, const char *text);

/* print_rule - a line of width c's. */
void print_rule(struct strbuf *out, int width, char c);

/* print_columns - the display width of s (valid UTF-8), as the layout
 * measures it (inside print_layout). */
int print_columns(const char *s);

/* print_text_write - write laid-out text as fmt to path, or to stdout
 * when path is NULL (text only: FD_EINVAL for a PDF without a path); the
 * file whole or not at all, mode 0600. A PDF sets the text (80 columns)
 * on A4 pages. Errors as print_write. */
int print_text_write(const char *text, enum print_format fmt, const char *path);

/* A picture set on a page of its own after a document's text
 * (print_pictures_write), with numbered marks drawn on it. */
struct print_mark {
	int number;
	double x, y; /* the mark's place: 0..1 from the picture's top-left corner */
};
struct print_picture {
	const char *title;         /* the line above it */
	const unsigned char *data; /* a PNG or JPEG file's bytes */
	size_t len;
	int jpeg;          /* 1: JPEG, embedded in the PDF as it is; 0: PNG */
	int width, height; /* a JPEG's size in pixels (print_jpeg_size) */
	const struct print_mark *marks;
	size_t nmarks;
};

/* print_jpeg_size - a JPEG file's width and height in pixels, read from its
 * frame header (the image is not decoded). 0, or FD_EINVAL (no message)
 * when p holds no readable frame header. */
int print_jpeg_size(const unsigned char *p, size_t n, int *w, int *h);

/* print_pictures_write - text (80 columns) as A4 pages to path, then each
 * of pics[0..n) on a page of its own: its title, the picture scaled to fit,
 * each mark a red disc with its number, centred on its place. The file is
 * made whole or not at all, mode 0600. FD_EINVAL for a picture that cannot
 * be read (nothing is left at path); otherwise errors as print_write. */
int print_pictures_write(const char *text, const struct print_picture *pics, size_t n,
                         const char *path);

/* print_default_path - a new string (caller frees): where the screen puts
 * a print by default, <database folder>/prints/<name>.txt or .pdf, the
 * name being the invoice's number or receipt-<payment id>; the caller
 * makes the folder (fsmode_mkdirs: 0700 in a private install). NULL when
 * the invoice does not exist. */
char *print_default_path(struct db *db, enum print_doc doc, int64_t id, enum print_format fmt);

#endif
