/*
 * form.c - the form engine (see form.h).
 *
 * States: FS_EDIT (fields take typed text), FS_CONFIRM (a destructive form
 * waits for `y`), FS_DONE (the receipt is shown), FS_DISCARD (Esc on typed
 * input asks whether to throw it away; confirm_quit = no closes at once). A post happens only on
 * the way out of FS_EDIT (no confirmation) or FS_CONFIRM, and always with
 * the instance's key; after a post that succeeded the form is in FS_DONE,
 * where Enter only closes it. While FS_CONFIRM or FS_DISCARD asks, the
 * view's ops are the form's ops_ask, whose key hints are the question's answers.
 */
#include <config.h>

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <wctype.h>

#include "draw.h"
#include "err.h"
#include "form.h"
#include "i18n.h"
#include "log.h"
#include "staff.h"
#include "theme.h"
#include "tw.h"
#include "xalloc.h"

enum { FS_EDIT, FS_CONFIRM, FS_DONE, FS_DISCARD };

static const struct view_ops form_ops;

void form_new_key(char *key)
{
	unsigned char r[16];
	size_t i;

	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
		/* no entropy source: time and pid still differ per form */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		for (i = 0; i < sizeof r; i++)
			r[i] = (unsigned char)((unsigned long)(ts.tv_nsec >> (i % 4 * 8)) ^
			                       (unsigned long)(getpid() >> (i % 2 * 8)) ^
			                       (unsigned long)(ts.tv_sec >> (i % 8)) ^ i);
	}
	memcpy(key, "desk-", 5);
	for (i = 0; i < sizeof r; i++)
		snprintf(key + 5 + 2 * i, 3, "%02x", r[i]);
}

struct form *form_new(const struct form_spec *spec, void *arg, const char *title)
{
	struct form *f = xcalloc(1, sizeof *f);

	f->spec = spec;
	f->arg = arg;
	f->title = xstrdup(title);
	form_new_key(f->key);
	log_debug("form %s opened, idempotency key %s", spec->name, f->key);
	return f;
}

/* Room for n characters in a field (and a terminating 0). */
static void field_room(struct form_field *fl, int n)
{
	int cap = fl->cap ? fl->cap : 64;

	if (n + 1 <= fl->cap)
		return;
	while (cap < n + 1)
		cap *= 2;
	fl->text = xrealloc(fl->text, (size_t)cap * sizeof(wchar_t));
	fl->cap = cap;
}

/* text[from..to) as UTF-8 (caller frees); a character that has no
 * multibyte form in the locale becomes '?'. */
static char *field_utf8(const struct form_field *fl, int from, int to)
{
	char *buf;
	size_t o = 0;
	int i;
	mbstate_t st;

	if (to > fl->len)
		to = fl->len;
	if (from > to)
		from = to;
	buf = xmalloc((size_t)(to - from) * MB_LEN_MAX + 1);
	memset(&st, 0, sizeof st);
	for (i = from; i < to; i++) {
		size_t k = wcrtomb(buf + o, fl->text[i], &st);

		if (k == (size_t)-1) {
			buf[o++] = '?';
			memset(&st, 0, sizeof st);
			continue;
		}
		o += k;
	}
	buf[o] = '\0';
	return buf;
}

static void sync_utf8(struct form_field *fl)
{
	free(fl->utf8);
	fl->utf8 = field_utf8(fl, 0, fl->len);
	fl->stale = 0;
}

static void set_text(struct form_field *fl, const char *text)
{
	mbstate_t st;
	const char *s = text ? text : "";
	size_t len = strlen(s), off = 0;

	memset(&st, 0, sizeof st);
	fl->len = 0;
	fl->overflow = 0;
	while (off < len) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s + off, len - off, &st);

		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			memset(&st, 0, sizeof st);
			off++;
			continue;
		}
		if (fl->len >= FORM_MAX_CHARS) {
			fl->overflow = 1;
			break;
		}
		field_room(fl, fl->len + 1);
		fl->text[fl->len++] = wc;
		off += k;
	}
	fl->pos = fl->len;
	sync_utf8(fl);
}

int form_add(struct form *f, enum field_type type, int id, const char *label, const char *text)
{
	struct form_field *fl;

	f->fields = xrealloc(f->fields, (size_t)(f->n + 1) * sizeof *f->fields);
	fl = &f->fields[f->n];
	memset(fl, 0, sizeof *fl);
	fl->type = type;
	fl->id = id;
	fl->label = xstrdup(label ? label : "");
	set_text(fl, text);
	if (f->n == f->cur && type == F_INFO)
		f->cur = f->n + 1;
	return f->n++;
}

int form_add_choice(struct form *f, int id, const char *label, const char *const *values,
                    const char *const *labels, int n, const char *value)
{
	int i = form_add(f, F_CHOICE, id, label, NULL), k;
	struct form_field *fl = &f->fields[i];

	fl->choices = values;
	fl->choice_labels = labels;
	fl->nchoices = n;
	for (k = 0; k < n; k++)
		if (value && !strcmp(values[k], value))
			fl->choice = k;
	return i;
}

int form_find(const struct form *f, int id)
{
	int i;

	for (i = 0; i < f->n; i++)
		if (f->fields[i].id == id)
			return i;
	return -1;
}

const char *form_value(const struct form *f, int i)
{
	const struct form_field *fl;

	if (i < 0 || i >= f->n)
		return "";
	fl = &f->fields[i];
	if (fl->type == F_CHOICE)
		return fl->nchoices ? fl->choices[fl->choice] : "";
	if (fl->stale)
		sync_utf8((struct form_field *)fl); /* typed text is converted when asked for */
	return fl->utf8 ? fl->utf8 : "";
}

void form_label(struct form *f, int i, const char *label)
{
	if (i < 0 || i >= f->n)
		return;
	free(f->fields[i].label);
	f->fields[i].label = xstrdup(label ? label : "");
}

void form_label_short(struct form *f, int i, const char *label)
{
	if (i < 0 || i >= f->n)
		return;
	free(f->fields[i].short_label);
	f->fields[i].short_label = label ? xstrdup(label) : NULL;
}

void form_set(struct form *f, int i, const char *text)
{
	if (i >= 0 && i < f->n)
		set_text(&f->fields[i], text);
}

void form_error(struct form *f, int i, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	if (i < 0 || i >= f->n)
		return;
	free(f->fields[i].error);
	f->fields[i].error = NULL;
	if (!fmt)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	f->fields[i].error = xstrdup(buf);
}

void form_note(struct form *f, int i, const char *text)
{
	if (i < 0 || i >= f->n)
		return;
	free(f->fields[i].note);
	f->fields[i].note = text ? xstrdup(text) : NULL;
}

static void clear_completions(struct form_field *fl)
{
	int k;

	for (k = 0; k < fl->ncompl; k++) {
		free(fl->cvals[k]);
		free(fl->clabels[k]);
	}
	free(fl->cvals);
	free(fl->clabels);
	fl->cvals = fl->clabels = NULL;
	fl->ncompl = fl->csel = 0;
}

void form_complete(struct form *f, int i, const char *const *values, const char *const *labels,
                   int n)
{
	struct form_field *fl;
	int k;

	if (i < 0 || i >= f->n)
		return;
	fl = &f->fields[i];
	clear_completions(fl);
	if (n <= 0)
		return;
	fl->cvals = xcalloc((size_t)n, sizeof *fl->cvals);
	fl->clabels = xcalloc((size_t)n, sizeof *fl->clabels);
	for (k = 0; k < n; k++) {
		fl->cvals[k] = xstrdup(values[k]);
		fl->clabels[k] = xstrdup(labels[k]);
	}
	fl->ncompl = n;
}

void form_secret(struct form *f, int i)
{
	if (i >= 0 && i < f->n)
		f->fields[i].secret = 1;
}

void form_receipt(struct form *f, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	sb_printf(&f->receipt, "%s\n", buf);
}

const char *form_key(const struct form *f)
{
	return f->key;
}

/* ---------------------------------------------------------------- the view */

static void form_free(struct view *v)
{
	struct form *f = v->priv;
	int i;

	if (f->spec->free)
		f->spec->free(f);
	for (i = 0; i < f->n; i++) {
		free(f->fields[i].label);
		free(f->fields[i].short_label);
		free(f->fields[i].utf8);
		free(f->fields[i].text);
		clear_completions(&f->fields[i]);
		free(f->fields[i].error);
		free(f->fields[i].note);
	}
	free(f->fields);
	free(f->title);
	free(f->error);
	sb_free(&f->receipt);
	free(f);
}

/* Typed input that closing would throw away: a field the person changed
 * in a form that posts (not a quiet one) and did not post yet. */
static int form_unsaved(struct view *v)
{
	struct form *f = v->priv;
	int i;

	if (f->spec->quiet || f->state == FS_DONE || f->posts)
		return 0;
	for (i = 0; i < f->n; i++)
		if (f->fields[i].edited)
			return 1;
	return 0;
}

static void form_resize(struct view *v, int h, int w)
{
	(void)v;
	(void)h;
	(void)w;
}

static int focusable(const struct form *f, int i)
{
	return i >= 0 && i < f->n && f->fields[i].type != F_INFO;
}

static void move_focus(struct form *f, int dir)
{
	int i;

	for (i = f->cur + dir; i >= 0 && i < f->n; i += dir)
		if (focusable(f, i)) {
			clear_completions(&f->fields[f->cur]);
			f->cur = i;
			f->fields[i].fresh = 1;
			return;
		}
}

/* Width of text[from..to) in columns, measured as it is drawn (tw_width:
 * a joined emoji counts as its first code point, as draw_text shows it). */
static int span_width(const struct form_field *fl, int from, int to)
{
	char *buf = field_utf8(fl, from, to);
	int w = tw_width(buf);

	free(buf);
	return w;
}

/* An information line (F_INFO) at y: a heading alone takes the line; with
 * a value, the label keeps to the label column (form_draw counts it in
 * label_w) so that the value, at column x, never covers it. Returns the
 * lines it took (at most max). */
static int draw_info(const struct form_field *fl, WINDOW *w, int y, const char *label, int label_w,
                     int x, int cols, int max)
{
	size_t st[4], ln[4];
	int k, nl;

	if (!fl->utf8 || !*fl->utf8) {
		draw_text(w, y, 2, cols - 4, fl->label, theme_attr(R_HEADER), AL_LEFT);
		return 1;
	}
	draw_text(w, y, 2, label_w, label, theme_attr(R_HEADER), AL_LEFT);
	nl = tw_wrap(fl->utf8, cols - x - 1 > 8 ? cols - x - 1 : 8, st, ln, 4);
	if (nl > 4)
		nl = 4;
	if (nl > max)
		nl = max;
	if (nl <= 1) {
		draw_text(w, y, x, cols - x - 1, fl->utf8, A_NORMAL, AL_LEFT);
		return 1;
	}
	for (k = 0; k < nl; k++) {
		char *line = xstrndup(fl->utf8 + st[k], ln[k]);

		draw_text(w, y + k, x, cols - x - 1, line, A_NORMAL, AL_LEFT);
		free(line);
	}
	return nl;
}

/* A choice's "< value >" in box columns at (y, x). */
static void draw_choice(const struct form_field *fl, WINDOW *w, int y, int x, int box, int focus,
                        struct view *v)
{
	char buf[256];

	snprintf(buf, sizeof buf, "< %s >", fl->nchoices ? _(fl->choice_labels[fl->choice]) : "");
	draw_text(w, y, x, box + 2, buf, focus ? theme_attr(R_SELECT) : A_NORMAL, AL_LEFT | AL_PAD);
	if (focus) {
		v->cursor_y = -1;
	}
}

/* A text field's "[text]" in box columns at (y, x): the part of the text
 * that holds the cursor, and the cursor when it has the focus. */
static void draw_entry(const struct form_field *fl, WINDOW *w, int y, int x, int box, int focus,
                       struct view *v)
{
	int start = 0, end, cw = 0;
	char *buf;
	attr_t a = A_NORMAL;

	/* the cursor's part: from the cursor back as far as fits (walked one
	 * character at a time, so that a long paste stays quick to draw) */
	if (focus) {
		start = fl->pos;
		while (start > 0) {
			int c = span_width(fl, start - 1, start);

			if (cw + c > box - 1)
				break;
			cw += c;
			start--;
		}
		/* measured as drawn: a joined emoji is one cluster, narrower
		 * than its code points one by one */
		cw = span_width(fl, start, fl->pos);
	}
	/* no character is narrower than a column, bar combining marks */
	end = fl->len - start > 4 * box ? start + 4 * box : fl->len;
	buf = field_utf8(fl, start, end);
	if (fl->secret) {
		memset(buf, '*', (size_t)(end - start));
		buf[end - start] = '\0';
	}
	if (focus)
		/* just entered, pre-filled: the text is selected, and the first
		 * key typed replaces it */
		a = fl->fresh && fl->len ? A_REVERSE : A_UNDERLINE;
	draw_text(w, y, x, 1, "[", A_NORMAL, AL_LEFT);
	draw_text(w, y, x + 1, box, buf, a, AL_LEFT | AL_PAD);
	draw_text(w, y, x + 1 + box, 1, "]", A_NORMAL, AL_LEFT);
	free(buf);
	if (focus) {
		v->cursor_y = y;
		v->cursor_x = x + 1 + (cw < box ? cw : box - 1);
	}
}

/* draw_field - field i on line y; returns the lines it took: one, or for
 * an information line's value too long for the width (the payment form's
 * summary: what comes from the credit and what is left as credit) as
 * many as its wrapped value takes, at most max. */
static int draw_field(struct form *f, WINDOW *w, int i, int y, int label_w, int cols,
                      struct view *v, int max)
{
	struct form_field *fl = &f->fields[i];
	int focus = i == f->cur && f->state == FS_EDIT;
	int x = 2 + label_w + 2, box = fl->width > 0 ? fl->width : 30;
	attr_t la = focus ? theme_attr(R_HEADER) : A_NORMAL;
	const char *label =
	    fl->short_label && tw_width(fl->label) > label_w ? fl->short_label : fl->label;

	if (fl->type == F_INFO)
		return draw_info(fl, w, y, label, label_w, x, cols, max);
	draw_text(w, y, 0, 2, focus ? ">" : "", la, AL_LEFT);
	draw_text(w, y, 2, label_w, label, la, AL_LEFT);
	if (box > cols - x - 4)
		box = cols - x - 4;
	if (box < 4)
		box = 4;
	if (fl->type == F_CHOICE) {
		draw_choice(fl, w, y, x, box, focus, v);
	} else {
		draw_entry(fl, w, y, x, box, focus, v);
		if (focus) {
			f->cur_y = y;
			f->cur_x = x;
		}
		box += 1;
	}
	x += box + 2;
	if (fl->error) {
		char buf[600];

		snprintf(buf, sizeof buf, "! %s", fl->error);
		draw_text(w, y, x, cols - x, buf, theme_attr(R_ERROR), AL_LEFT);
	} else if (fl->note) {
		draw_text(w, y, x, cols - x, fl->note, A_NORMAL, AL_LEFT);
	}
	return 1;
}

/* draw_lines - the receipt's lines, each wrapped to the width (a line cut
 * short would hide what was done: which invoice owes again, what is left
 * as credit); a wrapped line's continuation is indented under its text. */
static void draw_lines(WINDOW *w, int *y, int rows, int cols, const char *text, attr_t a)
{
	const char *s = text;

	while (*s && *y < rows) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s), st[16], ln[16];
		char *line = xstrndup(s, n);
		int ind = (int)strspn(line, " "), width = cols - 4 - ind - 2, k, nl;

		if (width < 8)
			width = 8;
		nl = tw_wrap(line + ind, width, st, ln, 16);
		for (k = 0; k < nl && k < 16 && *y < rows; k++) {
			char *part = xstrndup(line + ind + st[k], ln[k]);
			int x = 2 + ind + (k ? 2 : 0);

			draw_text(w, (*y)++, x, cols - x - 2, part, a, AL_LEFT);
			free(part);
		}
		if (!nl)
			(*y)++;
		free(line);
		s += n + (e ? 1 : 0);
	}
}

/* The completions of the focused field, under its box from line y (over
 * the fields below it), at most to line max: the selected one marked with
 * '>' and in reverse, then how to take one. */
static void draw_completions(const struct form_field *fl, WINDOW *w, int y, int x, int max,
                             int cols)
{
	const char *how = _("Tab or Enter: take it.  Esc: close the list.");
	int k, width = tw_width(how) + 2, shown = fl->ncompl;

	for (k = 0; k < fl->ncompl; k++)
		if (tw_width(fl->clabels[k]) + 3 > width)
			width = tw_width(fl->clabels[k]) + 3;
	if (x + width > cols - 1)
		x = cols - 1 - width;
	if (x < 1) {
		x = 1;
		width = cols - 2;
	}
	if (shown > max - y - 1)
		shown = max - y - 1;
	for (k = 0; k < shown; k++) {
		int sel = k == fl->csel;

		draw_text(w, y + k, x, 2, sel ? ">" : "", sel ? A_REVERSE : A_NORMAL,
		          AL_LEFT | AL_PAD);
		draw_text(w, y + k, x + 2, width - 2, fl->clabels[k], sel ? A_REVERSE : A_NORMAL,
		          AL_LEFT | AL_PAD);
	}
	if (shown >= 0 && y + shown < max)
		draw_text(w, y + shown, x, width, how, theme_attr(R_DIM), AL_LEFT | AL_PAD);
}

static void form_draw(struct view *v, WINDOW *w)
{
	struct form *f = v->priv;
	int rows, cols, i, y, label_w = 0, avail;

	getmaxyx(w, rows, cols);
	werase(w);
	v->cursor_y = -1;
	/* a question replaces the form's key hints with its own answers (the
	 * loop draws the hints of v->ops after the body) */
	v->ops = f->state == FS_CONFIRM || f->state == FS_DISCARD ? &f->ops_ask : &f->ops_edit;
	draw_text(w, 0, 1, cols - 2, f->title, theme_attr(R_HEADER), AL_LEFT);
	if (f->state == FS_DONE) {
		y = 2;
		draw_lines(w, &y, rows - 2, cols, sb_cstr(&f->receipt), theme_attr(R_SUCCESS));
		y++;
		draw_text(w, y, 2, cols - 4, _("Press Enter or Esc to close."), A_NORMAL, AL_LEFT);
		return;
	}
	for (i = 0; i < f->n; i++) {
		int lw = tw_width(f->fields[i].label);

		/* every label beside a value: an information line's too */
		if ((f->fields[i].type != F_INFO || *f->fields[i].utf8) && lw > label_w)
			label_w = lw;
	}
	if (label_w > cols * 2 / 5)
		label_w = cols * 2 / 5;
	avail = rows - 6;
	if (f->cur < f->top)
		f->top = f->cur;
	if (f->cur >= f->top + avail)
		f->top = f->cur - avail + 1;
	for (i = f->top, y = 2; i < f->n && y < 2 + avail; i++)
		y += draw_field(f, w, i, y, label_w, cols, v, 2 + avail - y);
	/* the focused field's reason or note in full, wrapped: beside the
	 * field it may be cut */
	if (focusable(f, f->cur) && (f->fields[f->cur].error || f->fields[f->cur].note)) {
		const struct form_field *fl = &f->fields[f->cur];
		const char *t = fl->error ? fl->error : fl->note;
		size_t st[4], ln[4];
		int k, nl = tw_wrap(t, cols - 6 > 1 ? cols - 6 : 1, st, ln, 4);

		for (k = 0, y++; k < nl && k < 4 && y < rows - 3; k++, y++) {
			char *line = xstrndup(t + st[k], ln[k]);

			draw_text(w, y, 4, cols - 6, line,
			          fl->error ? theme_attr(R_ERROR) : theme_attr(R_DIM), AL_LEFT);
			free(line);
		}
	}
	if (f->state == FS_EDIT && focusable(f, f->cur) && f->fields[f->cur].ncompl)
		draw_completions(&f->fields[f->cur], w, f->cur_y + 1, f->cur_x, rows - 3, cols);
	y = rows - 3;
	if (f->state == FS_CONFIRM) {
		char buf[700];

		snprintf(buf, sizeof buf, _("%s  Press y to confirm; any other key goes back."),
		         f->question);
		draw_text(w, y, 1, cols - 2, buf, theme_attr(R_ERROR) | A_REVERSE,
		          AL_LEFT | AL_PAD);
		v->cursor_y = -1;
	} else if (f->state == FS_DISCARD) {
		char buf[700], yes[32];
		int key = keymap_first_key(ACT_FORM_CONFIRM);

		keyc_name(key >= 0 ? key : 'y', yes, sizeof yes);
		snprintf(buf, sizeof buf,
		         _("Close the form and lose what you typed? %s closes it; any other key "
		           "goes back to the form."),
		         yes);
		draw_text(w, y, 1, cols - 2, buf, theme_attr(R_ERROR) | A_REVERSE,
		          AL_LEFT | AL_PAD);
		v->cursor_y = -1;
	} else if (f->error) {
		char buf[700];

		snprintf(buf, sizeof buf, _("! Not posted: %s"), f->error);
		draw_text(w, y, 1, cols - 2, buf, theme_attr(R_ERROR), AL_LEFT);
	}
	draw_text(w, rows - 1, 1, cols - 2,
	          f->spec->quiet ? _("Enter: go.  Esc: close.")
	                         : _("Nothing is written until you press Enter.  Esc: close "
	                             "without posting."),
	          theme_attr(R_DIM), AL_LEFT);
}

static void changed(struct form *f, int i)
{
	f->fields[i].edited = 1;
	form_error(f, i, NULL);
	if (f->spec->changed)
		f->spec->changed(f, i);
}

static struct ui_next finish_post(struct form *f)
{
	int rc;

	if (!f->spec->quiet && ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return ui_next(UI_REDRAW, NULL);
	}
	err_clear();
	if (f->approval)
		staff_use_approval(ui_db(), f->approval);
	rc = f->spec->post(f);
	if (!f->spec->approves)
		staff_approval_clear(ui_db()); /* a PIN or an approval serves one post */
	log_debug("form %s post with key %s: %d", f->spec->name, f->key, rc);
	if (rc) {
		free(f->error);
		f->error = xstrdup(*err_msg() ? err_msg() : _("the database refused the request"));
		f->state = FS_EDIT;
		ui_msg(MSG_ERROR, _("Not posted: %s"), f->error);
		if (rc == FD_EPERM && !f->spec->quiet) {
			struct view *ap = approve_form(f);

			if (ap)
				return ui_next(UI_PUSH, ap);
		}
		return ui_next(UI_REDRAW, NULL);
	}
	f->approval = 0;
	f->posts++;
	free(f->error);
	f->error = NULL;
	ui_invalidate_all();
	if (f->spec->quiet) {
		struct view *nv = f->spec->next ? f->spec->next(f) : NULL;

		return ui_next(nv ? UI_POP_PUSH : UI_POP, nv);
	}
	{
		const char *r = sb_cstr(&f->receipt);
		size_t n = strcspn(r, "\n");
		char *first = xstrndup(r, n);
		/* a form that opens what it made: the receipt's first line stays
		 * on the message line */
		struct view *nv = f->spec->next ? f->spec->next(f) : NULL;

		ui_msg(MSG_OK, "%s", first);
		free(first);
		if (nv)
			return ui_next(UI_POP_PUSH, nv);
		if (f->close_on_post)
			return ui_next(UI_POP, NULL);
	}
	f->state = FS_DONE;
	return ui_next(UI_REDRAW, NULL);
}

static struct ui_next submit(struct form *f)
{
	int i, errors;

	if (f->spec->push) {
		struct view *nv = f->spec->push(f);

		if (nv)
			return ui_next(UI_PUSH, nv);
	}
	for (i = 0; i < f->n; i++)
		form_error(f, i, NULL);
	errors = f->spec->check(f);
	for (i = 0; i < f->n; i++)
		if (f->fields[i].overflow && !f->fields[i].error) {
			/* more than the field holds: what was kept would be cut */
			form_error(f, i,
			           _("more than %d characters were typed here; shorten the text"),
			           FORM_MAX_CHARS);
			errors++;
		}
	if (errors) {
		for (i = 0; i < f->n; i++)
			if (f->fields[i].error && focusable(f, i)) {
				f->cur = i;
				break;
			}
		ui_msg(MSG_ERROR,
		       _("Please correct the fields marked with !; nothing was posted."));
		return ui_next(UI_REDRAW, NULL);
	}
	if (f->spec->confirm) {
		f->spec->confirm(f, f->question, sizeof f->question);
		f->state = FS_CONFIRM;
		return ui_next(UI_REDRAW, NULL);
	}
	return finish_post(f);
}

/* Type c at the cursor; a field already holding FORM_MAX_CHARS keeps its
 * text and remembers that more came (refused when posting). */
static void insert(struct form_field *fl, wchar_t c)
{
	if (fl->len >= FORM_MAX_CHARS) {
		fl->overflow = 1;
		return;
	}
	field_room(fl, fl->len + 1);
	memmove(fl->text + fl->pos + 1, fl->text + fl->pos,
	        (size_t)(fl->len - fl->pos) * sizeof(wchar_t));
	fl->text[fl->pos++] = c;
	fl->len++;
	fl->stale = 1;
}

/* An action while the form waits for an answer (posted: any key closes
 * it; discarding or confirming: yes or no). 1 and *out when the form is in
 * one of those states, else 0. */
static int answer_action(struct form *f, const struct ui_event *ev, struct ui_next *out)
{
	if (f->state == FS_DONE) {
		if (ev->action == ACT_FORM_SUBMIT || ev->action == ACT_FORM_CANCEL)
			*out = ui_next(UI_POP, NULL);
		else
			*out = ui_next(UI_HANDLED, NULL);
		return 1;
	}
	if (f->state == FS_DISCARD) {
		f->state = FS_EDIT;
		if (ev->action == ACT_FORM_CONFIRM) {
			ui_msg(MSG_INFO, _("Form closed; nothing was posted."));
			*out = ui_next(UI_POP, NULL);
		} else {
			*out = ui_next(UI_REDRAW, NULL);
		}
		return 1;
	}
	if (f->state == FS_CONFIRM) {
		if (ev->action == ACT_FORM_CONFIRM) {
			*out = finish_post(f);
			return 1;
		}
		f->state = FS_EDIT;
		ui_msg(MSG_INFO, _("Not confirmed; nothing was posted."));
		*out = ui_next(UI_REDRAW, NULL);
		return 1;
	}
	return 0;
}

/* An action on the whole form (submit, cancel, focus, propose, mouse). 1
 * and *out when it is one, else 0 (the focused field's action). */
static int whole_form_action(struct view *v, struct form *f, const struct ui_event *ev,
                             struct ui_next *out)
{
	switch (ev->action) {
	case ACT_FORM_SUBMIT:
		*out = submit(f);
		return 1;
	case ACT_FORM_CANCEL:
		if (ui_confirm_quit() && form_unsaved(v)) {
			f->state = FS_DISCARD;
			*out = ui_next(UI_REDRAW, NULL);
			return 1;
		}
		if (!f->spec->quiet)
			ui_msg(MSG_INFO, _("Form closed; nothing was posted."));
		*out = ui_next(UI_POP, NULL);
		return 1;
	case ACT_FORM_NEXT:
	case ACT_FORM_PREV:
		move_focus(f, ev->action == ACT_FORM_NEXT ? 1 : -1);
		*out = ui_next(UI_REDRAW, NULL);
		return 1;
	case ACT_FORM_PROPOSE:
		if (f->spec->has_propose && f->spec->changed) {
			f->spec->changed(f, -1);
			*out = ui_next(UI_REDRAW, NULL);
			return 1;
		}
		return 0;
	case ACT_MOUSE:
		if (ev->y - 2 + f->top >= 0 && focusable(f, ev->y - 2 + f->top) &&
		    f->cur != ev->y - 2 + f->top) {
			f->cur = ev->y - 2 + f->top;
			f->fields[f->cur].fresh = 1;
		}
		*out = ui_next(UI_REDRAW, NULL);
		return 1;
	default:
		return 0;
	}
}

/* A key while the focused field offers completions: Tab (then on to the
 * next field) or Enter take the selected one, Down and Up move the
 * selection, Esc closes the list. 1 and
 * *out when the key was one of those, else 0. */
static int completion_action(struct form *f, struct form_field *fl, const struct ui_event *ev,
                             struct ui_next *out)
{
	if (f->state != FS_EDIT || !fl || !fl->ncompl)
		return 0;
	*out = ui_next(UI_REDRAW, NULL);
	switch (ev->action) {
	case ACT_FORM_SUBMIT:
		break;
	case ACT_FORM_NEXT:
		if (ev->ch == '\t')
			break;
		fl->csel = (fl->csel + 1) % fl->ncompl;
		return 1;
	case ACT_FORM_PREV:
		if (ev->ch == (KEYC_FN | KEY_BTAB))
			return 0;
		fl->csel = (fl->csel + fl->ncompl - 1) % fl->ncompl;
		return 1;
	case ACT_FORM_CANCEL:
		clear_completions(fl);
		return 1;
	default:
		return 0;
	}
	{
		char *take = xstrdup(fl->cvals[fl->csel]);

		clear_completions(fl);
		set_text(fl, take);
		free(take);
		fl->fresh = 0;
		changed(f, f->cur);
	}
	/* Tab takes it and goes on to the next field, as it does without a
	 * list; Enter takes it and stays (to type the next one) */
	if (ev->action == ACT_FORM_NEXT)
		move_focus(f, 1);
	return 1;
}

/* Right (or a space) and left step through a choice's values. */
static void choice_action(struct form *f, struct form_field *fl, const struct ui_event *ev)
{
	int d = 0;

	if (ev->action == ACT_FORM_RIGHT || (ev->action == ACT_FORM_INSERT && ev->ch == ' '))
		d = 1;
	else if (ev->action == ACT_FORM_LEFT)
		d = -1;
	if (d && fl->nchoices) {
		fl->choice = (fl->choice + d + fl->nchoices) % fl->nchoices;
		changed(f, f->cur);
	}
}

/* Remove the character at index at of a text field. */
static void remove_char(struct form *f, struct form_field *fl, int at)
{
	memmove(fl->text + at, fl->text + at + 1, (size_t)(fl->len - at - 1) * sizeof(wchar_t));
	fl->len--;
	fl->overflow = 0;
	sync_utf8(fl);
	changed(f, f->cur);
}

/* An editing action in a text field: move, delete, clear or type. */
static void edit_action(struct form *f, struct form_field *fl, const struct ui_event *ev)
{
	int fresh = fl->fresh;

	/* any key in the field ends "just entered": after an arrow the text
	 * is kept and typing inserts at the cursor */
	fl->fresh = 0;
	switch (ev->action) {
	case ACT_FORM_LEFT:
		if (fl->pos > 0)
			fl->pos--;
		break;
	case ACT_FORM_RIGHT:
		if (fl->pos < fl->len)
			fl->pos++;
		break;
	case ACT_FORM_HOME:
		fl->pos = 0;
		break;
	case ACT_FORM_END:
		fl->pos = fl->len;
		break;
	case ACT_FORM_BACKSPACE:
		if (fl->pos > 0) {
			fl->pos--;
			remove_char(f, fl, fl->pos);
		}
		break;
	case ACT_FORM_DELETE:
		if (fl->pos < fl->len)
			remove_char(f, fl, fl->pos);
		break;
	case ACT_FORM_CLEAR:
		fl->len = fl->pos = 0;
		fl->overflow = 0;
		sync_utf8(fl);
		changed(f, f->cur);
		break;
	default:
		/* a printable key, or a form key (y) that only means something
		 * while confirming: it is typed */
		if (ev->ch > ' ' || ev->ch == ' ') {
			if (!(ev->ch & KEYC_FN) && iswprint((wint_t)ev->ch)) {
				if (fresh) /* the first key replaces a pre-filled text */
					fl->len = fl->pos = fl->overflow = 0;
				insert(fl, (wchar_t)ev->ch);
				changed(f, f->cur);
			}
		}
		break;
	}
}

static struct ui_next form_action(struct view *v, const struct ui_event *ev)
{
	struct form *f = v->priv;
	struct form_field *fl = focusable(f, f->cur) ? &f->fields[f->cur] : NULL;
	struct ui_next out;

	/* F1 (help) and C-l (redraw) keep their global meaning in a form: the
	 * help screen shows the form's keys and its spec's paragraph */
	if (ev->action == ACT_HELP || ev->action == ACT_REDRAW)
		return ui_next(UI_UNHANDLED, NULL);
	if (answer_action(f, ev, &out) || completion_action(f, fl, ev, &out) ||
	    whole_form_action(v, f, ev, &out))
		return out;
	if (!fl)
		return ui_next(UI_HANDLED, NULL);
	if (fl->type == F_CHOICE)
		choice_action(f, fl, ev);
	else
		edit_action(f, fl, ev);
	return ui_next(UI_REDRAW, NULL);
}

static void form_title(struct view *v, char *buf, size_t n)
{
	struct form *f = v->priv;

	snprintf(buf, n, "%s", f->title);
}

static const char *form_help(struct view *v)
{
	struct form *f = v->priv;

	return f->spec->help ? _(f->spec->help) : NULL;
}

static const enum action form_keys[] = {ACT_FORM_SUBMIT,  ACT_FORM_CANCEL, ACT_FORM_NEXT,
                                        ACT_FORM_PREV,    ACT_FORM_LEFT,   ACT_FORM_RIGHT,
                                        ACT_FORM_HOME,    ACT_FORM_END,    ACT_FORM_BACKSPACE,
                                        ACT_FORM_DELETE,  ACT_FORM_CLEAR,  ACT_FORM_PROPOSE,
                                        ACT_FORM_CONFIRM, ACT_NONE};
/* the same but form-propose, for the forms that have no allocations */
static const enum action form_keys_plain[] = {
    ACT_FORM_SUBMIT, ACT_FORM_CANCEL,  ACT_FORM_NEXT, ACT_FORM_PREV,      ACT_FORM_LEFT,
    ACT_FORM_RIGHT,  ACT_FORM_HOME,    ACT_FORM_END,  ACT_FORM_BACKSPACE, ACT_FORM_DELETE,
    ACT_FORM_CLEAR,  ACT_FORM_CONFIRM, ACT_NONE};
static const enum action form_hints[] = {ACT_FORM_SUBMIT, ACT_FORM_NEXT, ACT_FORM_CANCEL, ACT_NONE};
/* while a question is asked: its answers (y, or any other key; Esc too) */
static const enum action ask_hints[] = {ACT_FORM_CONFIRM, ACT_FORM_CANCEL, ACT_NONE};

static void form_reload(struct view *v)
{
	struct form *f = v->priv;

	if (f->state == FS_EDIT && f->spec->reload)
		f->spec->reload(f);
}

static const struct view_ops form_ops = {
    .name = "form",
    .ctx = CTX_FORM,
    .keys = form_keys,
    .hints = form_hints,
    .free = form_free,
    .resize = form_resize,
    .draw = form_draw,
    .action = form_action,
    .reload = form_reload,
    .title = form_title,
    .help = form_help,
    .unsaved = form_unsaved,
};

struct view *form_view(struct form *f)
{
	int i;

	/* the first field that takes input, unless the spec chose one */
	if (!focusable(f, f->cur)) {
		for (i = 0; i < f->n && !focusable(f, i); i++)
			;
		f->cur = i < f->n ? i : 0;
	}
	if (f->cur < f->n)
		f->fields[f->cur].fresh = 1;
	f->ops_edit = form_ops;
	/* asking: the same, but the hints are the question's answers */
	f->ops_ask = form_ops;
	f->ops_ask.name = "form-ask";
	f->ops_ask.hints = ask_hints;
	if (!f->spec->has_propose)
		f->ops_edit.keys = f->ops_ask.keys = form_keys_plain;
	return view_new(&f->ops_edit, f);
}
