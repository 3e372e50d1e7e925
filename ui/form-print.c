/*
 * form-print.c - P on an invoice or a payment pane: print the invoice or
 * the payment's receipt to a file. The form asks text (80 or 42 columns)
 * or PDF and the file, by default <database folder>/prints/<number>.txt or
 * .pdf (the folder made 0700, the file 0600), writes it through the core's
 * one layout (print_write) and says where on the message line. It posts no
 * record, so it is a quiet form that works on a read-only screen too.
 * Opened by P on the panes and on the preview (view-preview.c), which
 * sets the width to the one it shows.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "form.h"
#include "fsmode.h"
#include "i18n.h"
#include "invoice.h"
#include "print.h"
#include "views.h"
#include "xalloc.h"

enum { P_FORMAT, P_WIDTH, P_FILE };

struct printst {
	int doc; /* enum print_doc */
	int64_t id;
	char name[64]; /* the invoice's number, or "receipt of payment N" */
};

static const char *const formats[] = {"text", "pdf"};
static const char *const format_labels[] = {N_("text"), N_("PDF (A4)")};
static const char *const widths[] = {"80", "42"};
static const char *const width_labels[] = {N_("80 columns"), N_("42 columns (receipt printer)")};

static int is_pdf(struct form *f)
{
	return !strcmp(form_value(f, form_find(f, P_FORMAT)), "pdf");
}

static char *default_path(struct form *f)
{
	struct printst *ps = f->arg;

	return print_default_path(ui_db(), (enum print_doc)ps->doc, ps->id,
	                          is_pdf(f) ? PRINT_PDF : PRINT_TEXT);
}

/* A new format gives the default file its extension, unless one was typed. */
static void print_changed(struct form *f, int i)
{
	int file = form_find(f, P_FILE), width = form_find(f, P_WIDTH);

	if (i != form_find(f, P_FORMAT))
		return;
	if (!f->fields[file].edited) {
		char *path = default_path(f);

		if (path)
			form_set(f, file, path);
		free(path);
	}
	form_note(f, width, is_pdf(f) ? _("a PDF is an A4 page of 80 columns") : NULL);
}

static int print_check(struct form *f)
{
	int file = form_find(f, P_FILE);

	if (!*form_value(f, file)) {
		form_error(f, file, "%s", _("required: the file to write"));
		return 1;
	}
	return 0;
}

static int print_post(struct form *f)
{
	struct printst *ps = f->arg;
	const char *path = form_value(f, form_find(f, P_FILE));
	int pdf = is_pdf(f), rc;

	if ((rc = fsmode_mkdirs(path)) != 0)
		return rc;
	rc = print_write(ui_db(), (enum print_doc)ps->doc, ps->id, pdf ? PRINT_PDF : PRINT_TEXT,
	                 atoi(form_value(f, form_find(f, P_WIDTH))), path);
	if (rc)
		return rc;
	ui_msg(MSG_OK, _("%1$s written to %2$s"), ps->name, path);
	return 0;
}

static void print_free(struct form *f)
{
	free(f->arg);
}

static const struct form_spec print_spec = {
    .name = "print",
    .check = print_check,
    .post = print_post,
    .changed = print_changed,
    .free = print_free,
    .quiet = 1,
    .help = N_("Writes the invoice or the receipt to a file to hand over or print: plain text "
               "of 80 columns (a page) or 42 (a receipt printer), or an A4 PDF. The file is "
               "readable only by you; the message line says where it is."),
};

struct view *form_print_new(int doc, int64_t id)
{
	return form_print_width(doc, id, PRINT_WIDE);
}

struct view *form_print_width(int doc, int64_t id, int width)
{
	struct printst *ps = xcalloc(1, sizeof *ps);
	struct form *f;
	char title[200], *path;
	int file;

	ps->doc = doc;
	ps->id = id;
	if (doc == PRINT_INVOICE) {
		struct invoice inv;

		if (invoice_get(ui_db(), id, &inv) != 0) {
			ui_msg(MSG_ERROR, _("Invoice %lld cannot be read."), (long long)id);
			free(ps);
			return NULL;
		}
		snprintf(ps->name, sizeof ps->name, "%s", inv.number);
		snprintf(title, sizeof title, _("Print %s"), inv.number);
		invoice_free(&inv);
	} else {
		snprintf(ps->name, sizeof ps->name, _("Receipt of payment %lld"), (long long)id);
		snprintf(title, sizeof title, _("Print the receipt of payment %lld"),
		         (long long)id);
	}
	path = print_default_path(ui_db(), (enum print_doc)doc, id, PRINT_TEXT);
	f = form_new(&print_spec, ps, title);
	form_add_choice(f, P_FORMAT, _("Format"), formats, format_labels, 2, "text");
	form_add_choice(f, P_WIDTH, _("Width"), widths, width_labels, 2,
	                width == PRINT_NARROW ? "42" : "80");
	file = form_add(f, F_TEXT, P_FILE, _("File"), path);
	f->fields[file].width = 200; /* the whole path where it fits (cut to the screen) */
	free(path);
	return form_view(f);
}
