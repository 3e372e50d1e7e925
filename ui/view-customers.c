/*
 * view-customers.c - `c`: the customer list with a search line at the top.
 *
 * Typing narrows the list at once (customer_search: name, address, or a
 * phone number by its digits, so "555 0142" finds 555-0142); each row shows
 * the name, phone number, address and what the customer owes
 * (report_customer_aging, the figures of the aging report). The view has
 * two faces, swapped on the same struct view: while the search line has
 * the focus its ops listen to CTX_FORM (printable keys are typed text,
 * Up/Down move the selection, Enter opens the selected customer); once the
 * list has it (Tab, or a click on it) they listen to CTX_CUSTS | CTX_PANE,
 * where `a` adds a customer, `e` edits the selected one and Tab, `c`, or Up
 * on the first customer return to the search line.
 *
 * At most MAX_ROWS rows are shown, by name; a query that matches more says
 * so and asks for more letters. Nothing here writes: the forms do
 * (form-customer.c).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "clock.h"
#include "customer.h"
#include "draw.h"
#include "err.h"
#include "fmt.h"
#include "form.h"
#include "i18n.h"
#include "pane.h"
#include "report.h"
#include "strbuf.h"
#include "theme.h"
#include "tw.h"
#include "views.h"
#include "xalloc.h"

#define MAX_ROWS  200
#define QUERY_MAX 100
#define LIST_Y    3 /* the first row of the list in the body */

struct row {
	int64_t id;
	char *name, *phone, *address;
};

struct custsv {
	wchar_t q[QUERY_MAX + 1]; /* the search line */
	int len, pos;
	char *query; /* q as UTF-8 */
	struct pane p;
	int shown; /* rows listed */
	int more;  /* the query matches more than MAX_ROWS */
	int failed;
};

static const struct view_ops query_ops, list_ops;

static const struct pane_col cols[] = {
    {16, 3, AL_LEFT}, {14, 1, AL_LEFT}, {16, 3, AL_LEFT}, {14, 2, AL_RIGHT}};

struct collect {
	struct row *rows;
	int n;
};

static int take(const struct customer *c, void *arg)
{
	struct collect *k = arg;
	struct row *r = &k->rows[k->n++];

	r->id = c->id;
	r->name = xstrdup(c->name);
	r->phone = xstrdup(c->phone ? c->phone : "");
	r->address = xstrdup(c->address ? c->address : "");
	return 0;
}

static int add_owed(const struct aging_row *a, void *arg)
{
	struct strbuf *sb = arg;
	char m[FMT_MONEY];

	if (a->owed == 0)
		return 0;
	sb_printf(sb, "%s%s", sb->len ? ", " : "", fmt_money_cur(a->owed, a->currency, m));
	return 0;
}

static void sync_query(struct custsv *cv)
{
	char buf[QUERY_MAX * 8 + 1];
	size_t o = 0;
	mbstate_t st;
	int i;

	memset(&st, 0, sizeof st);
	for (i = 0; i < cv->len; i++) {
		size_t k = wcrtomb(buf + o, cv->q[i], &st);

		if (k != (size_t)-1)
			o += k;
	}
	buf[o] = '\0';
	free(cv->query);
	cv->query = xstrdup(buf);
}

/* Read the list again for the query; the cursor stays on the same customer
 * when it is still listed. */
static void build(struct custsv *cv)
{
	struct collect k;
	int kind, old = cv->p.cur, i;
	int64_t id, now = clock_now();

	pane_target(&cv->p, &kind, &id);
	pane_clear(&cv->p);
	k.rows = xcalloc(MAX_ROWS + 1, sizeof *k.rows);
	k.n = 0;
	/* the rows are taken first and the figures read after, so that no
	 * report reads while the search statement is running */
	cv->failed = customer_search(ui_db(), cv->query, MAX_ROWS + 1, take, &k) != 0;
	if (cv->failed)
		pane_text(&cv->p, 0, 0, R_ERROR, _("! Cannot search the customers: %s"), err_msg());
	cv->more = k.n > MAX_ROWS;
	cv->shown = k.n > MAX_ROWS ? MAX_ROWS : k.n;
	for (i = 0; i < cv->shown; i++) {
		struct strbuf owed = {0};
		const char *cells[4];
		struct row *r = &k.rows[i];

		report_customer_aging(ui_db(), r->id, now, add_owed, &owed);
		cells[0] = r->name;
		cells[1] = r->phone;
		cells[2] = r->address;
		cells[3] = owed.len ? sb_cstr(&owed) : "";
		pane_row(&cv->p, K_CUSTOMER, r->id, R_NORMAL, 4, cols, cells);
		if (owed.len)
			pane_cell_role(&cv->p, 3, R_ERROR);
		sb_free(&owed);
	}
	for (i = 0; i < k.n; i++) {
		free(k.rows[i].name);
		free(k.rows[i].phone);
		free(k.rows[i].address);
	}
	free(k.rows);
	if (!cv->failed && cv->shown == 0)
		pane_text(&cv->p, 0, 0, R_DIM, "%s",
		          *cv->query
		              ? _("No customer matches. Press Tab, then a to add one.")
		              : _("There are no customers yet. Press Tab, then a to add one."));
	pane_restore(&cv->p, kind, id, old < 0 ? 0 : old);
	if (kind != K_CUSTOMER)
		pane_select_first(&cv->p, K_CUSTOMER);
}

static void custs_free(struct view *v)
{
	struct custsv *cv = v->priv;

	pane_free(&cv->p);
	free(cv->query);
	free(cv);
}

static void custs_resize(struct view *v, int h, int w)
{
	(void)v;
	(void)h;
	(void)w;
}

static void custs_draw(struct view *v, WINDOW *w)
{
	struct custsv *cv = v->priv;
	int rows, cols_, x, lw, box, start = 0, i, cw = 0;
	const char *label = _("Find (name, phone, address):");
	char status[200];
	const char *heads[4];
	int focus = v->ops == &query_ops;

	getmaxyx(w, rows, cols_);
	(void)rows;
	lw = tw_width(label);
	draw_text(w, 0, 0, 2, focus ? ">" : "", theme_attr(R_HEADER), AL_LEFT);
	draw_text(w, 0, 2, lw, label, focus ? theme_attr(R_HEADER) : A_NORMAL, AL_LEFT);
	x = 2 + lw + 1;
	box = cols_ - x - 3;
	if (box > 40)
		box = 40;
	if (box < 4)
		box = 4;
	/* the part of the query that holds the cursor */
	for (;;) {
		cw = 0;
		for (i = start; i < cv->pos; i++) {
			int c = wcwidth(cv->q[i]);

			cw += c < 0 ? 1 : c;
		}
		if (cw <= box - 1 || start >= cv->pos)
			break;
		start++;
	}
	{
		char buf[QUERY_MAX * 8 + 1];
		size_t o = 0;
		mbstate_t st;

		memset(&st, 0, sizeof st);
		for (i = start; i < cv->len; i++) {
			size_t k = wcrtomb(buf + o, cv->q[i], &st);

			if (k != (size_t)-1)
				o += k;
		}
		buf[o] = '\0';
		draw_text(w, 0, x, 1, "[", A_NORMAL, AL_LEFT);
		draw_text(w, 0, x + 1, box, buf, focus ? A_UNDERLINE : A_NORMAL, AL_LEFT | AL_PAD);
		draw_text(w, 0, x + 1 + box, 1, "]", A_NORMAL, AL_LEFT);
	}
	if (focus) {
		v->cursor_y = 0;
		v->cursor_x = x + 1 + (cw < box ? cw : box - 1);
	}
	if (cv->more)
		snprintf(status, sizeof status,
		         _("The first %d customers by name; type more to narrow the list."),
		         cv->shown);
	else
		snprintf(status, sizeof status,
		         ngettext("%d customer.", "%d customers.", (unsigned long)cv->shown),
		         cv->shown);
	draw_text(w, 1, 2, cols_ - 4, status, theme_attr(R_DIM), AL_LEFT);
	/* the column headings, laid out as the rows are */
	heads[0] = _("Name");
	heads[1] = _("Phone");
	heads[2] = _("Address");
	heads[3] = _("Owes");
	{
		int min[4], flex[4], xs[4], ws[4];

		for (i = 0; i < 4; i++) {
			min[i] = cols[i].min;
			flex[i] = cols[i].flex;
		}
		layout_columns(cols_ - 2, 4, min, flex, xs, ws);
		for (i = 0; i < 4; i++)
			if (ws[i] > 0)
				draw_text(w, 2, 2 + xs[i], ws[i], heads[i], theme_attr(R_HEADER),
				          cols[i].align);
	}
	pane_draw(&cv->p, w, LIST_Y);
}

static void custs_reload(struct view *v)
{
	build(v->priv);
}

/* The selected customer's id, or 0. */
static int64_t selected(struct custsv *cv)
{
	int kind;
	int64_t id;

	pane_target(&cv->p, &kind, &id);
	return kind == K_CUSTOMER ? id : 0;
}

static struct ui_next open_selected(struct custsv *cv)
{
	int64_t id = selected(cv);

	if (!id) {
		ui_msg(MSG_INFO, "%s", _("No customer is selected: type to find one."));
		return ui_next(UI_REDRAW, NULL);
	}
	return ui_next(UI_PUSH, view_customer_new(id));
}

/* A key typed into the search line. */
static void type_key(struct custsv *cv, int ch)
{
	if (cv->len >= QUERY_MAX || (ch & KEYC_FN) || ch < ' ' || !iswprint((wint_t)ch))
		return;
	memmove(cv->q + cv->pos + 1, cv->q + cv->pos,
	        (size_t)(cv->len - cv->pos) * sizeof(wchar_t));
	cv->q[cv->pos++] = (wchar_t)ch;
	cv->len++;
}

static struct ui_next query_action(struct view *v, const struct ui_event *ev)
{
	struct custsv *cv = v->priv;
	int edited = 0;

	switch (ev->action) {
	case ACT_FORM_SUBMIT: {
		struct ui_next nx = open_selected(cv);

		/* coming back from the customer's pane, the focus is on the list
		 * (keys there are commands), not on the search line: keys meant
		 * for the list must not be typed into the search (issue 29) */
		if (nx.kind == UI_PUSH)
			v->ops = &list_ops;
		return nx;
	}
	case ACT_FORM_CANCEL:
		return ui_next(UI_POP, NULL);
	case ACT_FORM_NEXT:
		if (ev->ch == '\t') {
			v->ops = &list_ops;
			return ui_next(UI_REDRAW, NULL);
		}
		/* Down: the next customer */
		{
			struct ui_event down = *ev;

			down.action = ACT_DOWN;
			pane_action(&cv->p, &down);
		}
		return ui_next(UI_REDRAW, NULL);
	case ACT_FORM_PREV: {
		struct ui_event up = *ev;

		up.action = ACT_UP;
		pane_action(&cv->p, &up);
		return ui_next(UI_REDRAW, NULL);
	}
	case ACT_FORM_LEFT:
		if (cv->pos > 0)
			cv->pos--;
		return ui_next(UI_REDRAW, NULL);
	case ACT_FORM_RIGHT:
		if (cv->pos < cv->len)
			cv->pos++;
		return ui_next(UI_REDRAW, NULL);
	case ACT_FORM_HOME:
		cv->pos = 0;
		return ui_next(UI_REDRAW, NULL);
	case ACT_FORM_END:
		cv->pos = cv->len;
		return ui_next(UI_REDRAW, NULL);
	case ACT_FORM_BACKSPACE:
		if (cv->pos > 0) {
			memmove(cv->q + cv->pos - 1, cv->q + cv->pos,
			        (size_t)(cv->len - cv->pos) * sizeof(wchar_t));
			cv->pos--;
			cv->len--;
			edited = 1;
		}
		break;
	case ACT_FORM_DELETE:
		if (cv->pos < cv->len) {
			memmove(cv->q + cv->pos, cv->q + cv->pos + 1,
			        (size_t)(cv->len - cv->pos - 1) * sizeof(wchar_t));
			cv->len--;
			edited = 1;
		}
		break;
	case ACT_FORM_CLEAR:
		edited = cv->len > 0;
		cv->len = cv->pos = 0;
		break;
	case ACT_MOUSE:
		if (ev->y >= LIST_Y) {
			struct ui_event m = *ev;

			m.y -= LIST_Y;
			pane_action(&cv->p, &m);
			v->ops = &list_ops;
		}
		return ui_next(UI_REDRAW, NULL);
	case ACT_FORM_PROPOSE:
		return ui_next(UI_HANDLED, NULL);
	default:
		/* typed text, and the form keys that are printable (y) */
		if (ev->ch >= ' ' && !(ev->ch & KEYC_FN)) {
			type_key(cv, ev->ch);
			edited = 1;
		}
		break;
	}
	if (edited) {
		sync_query(cv);
		cv->p.cur = -1;
		cv->p.top = 0;
		build(cv);
		pane_select_first(&cv->p, K_CUSTOMER);
	}
	return ui_next(UI_REDRAW, NULL);
}

static struct ui_next list_action(struct view *v, const struct ui_event *ev)
{
	struct custsv *cv = v->priv;
	struct ui_next n;
	int64_t id;

	if (ev->action == ACT_MOUSE) {
		struct ui_event m = *ev;

		if (ev->y < LIST_Y) {
			v->ops = &query_ops;
			return ui_next(UI_REDRAW, NULL);
		}
		m.y -= LIST_Y;
		return pane_action(&cv->p, &m);
	}
	if (ev->action == ACT_UP && cv->p.cur >= 0) {
		/* Up from the first customer: back to the search line */
		int i, first = -1;

		for (i = 0; i < cv->p.n && first < 0; i++)
			if (cv->p.lines[i].kind)
				first = i;
		if (cv->p.cur == first) {
			v->ops = &query_ops;
			return ui_next(UI_REDRAW, NULL);
		}
	}
	n = pane_action(&cv->p, ev);
	if (n.kind != UI_UNHANDLED)
		return n;
	switch (ev->action) {
	case ACT_OPEN:
		return open_selected(cv);
	case ACT_CUST_NEW:
		return ui_next(UI_PUSH, form_customer_new(cv->query, NULL, NULL));
	case ACT_CUST_EDIT:
		if (!(id = selected(cv))) {
			ui_msg(MSG_INFO, "%s", _("Select a customer first: e edits it."));
			return ui_next(UI_REDRAW, NULL);
		}
		return ui_next(UI_PUSH, form_customer_edit(id));
	case ACT_CUST_QUERY:
	case ACT_CUSTOMERS:
		v->ops = &query_ops;
		return ui_next(UI_REDRAW, NULL);
	default:
		return ui_next(UI_UNHANDLED, NULL);
	}
}

static void custs_title(struct view *v, char *buf, size_t n)
{
	(void)v;
	snprintf(buf, n, "%s", _("Customers"));
}

static const char *custs_help(struct view *v)
{
	(void)v;
	return _("Type part of a name, an address or a phone number: the list narrows as you "
	         "type (a phone number is found by its digits, whatever the blanks and dashes). "
	         "Up and Down select, Enter opens the customer. Tab moves between the search "
	         "line and the list; in the list, a adds a customer and e edits the selected "
	         "one.");
}

static int custs_target(struct view *v, const char **kind, int64_t *id)
{
	struct custsv *cv = v->priv;

	return pane_history_target(&cv->p, NULL, 0, kind, id);
}

/* the search line's keys, as the person sees them (the form actions that
 * carry them are bound to the same keys by default) */
static const enum action query_keys[] = {ACT_OPEN,       ACT_UP,          ACT_DOWN,
                                         ACT_CUST_QUERY, ACT_FORM_CANCEL, ACT_FORM_BACKSPACE,
                                         ACT_FORM_CLEAR, ACT_NONE};
static const enum action query_hints[] = {ACT_OPEN, ACT_CUST_QUERY, ACT_FORM_CANCEL, ACT_NONE};
static const enum action list_keys[] = {ACT_UP,        ACT_DOWN,       ACT_PAGE_UP, ACT_PAGE_DOWN,
                                        ACT_TOP,       ACT_BOTTOM,     ACT_OPEN,    ACT_CUST_NEW,
                                        ACT_CUST_EDIT, ACT_CUST_QUERY, ACT_NONE};
static const enum action list_hints[] = {ACT_OPEN, ACT_CUST_NEW, ACT_CUST_EDIT, ACT_CUST_QUERY,
                                         ACT_NONE};

static const struct view_ops query_ops = {
    .name = "customers-search",
    .ctx = CTX_FORM,
    .keys = query_keys,
    .hints = query_hints,
    .free = custs_free,
    .resize = custs_resize,
    .draw = custs_draw,
    .action = query_action,
    .reload = custs_reload,
    .title = custs_title,
    .help = custs_help,
    .target = custs_target,
};

static const struct view_ops list_ops = {
    .name = "customers",
    .ctx = CTX_CUSTS | CTX_PANE,
    .keys = list_keys,
    .hints = list_hints,
    .free = custs_free,
    .resize = custs_resize,
    .draw = custs_draw,
    .action = list_action,
    .reload = custs_reload,
    .title = custs_title,
    .help = custs_help,
    .target = custs_target,
};

struct view *view_customers_new(void)
{
	struct custsv *cv = xcalloc(1, sizeof *cv);

	cv->query = xstrdup("");
	cv->p.cur = -1;
	build(cv);
	pane_select_first(&cv->p, K_CUSTOMER);
	return view_new(&query_ops, cv);
}
