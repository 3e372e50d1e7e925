/*
 * view-dispatch.c - the dispatch board: one day by resource. Rows are the
 * slots of the day (the grid of config slot_minutes, capacity.h), one
 * column per active resource with its name as the header; each cell shows
 * the visit holding the resource then (its payment mark, customer and
 * services, as the day view), "free" or "off" (outside its hours, a day
 * off). Columns that do not fit scroll with Left/Right ("n more").
 *
 * Enter on a free cell opens the booking form at that start with that
 * resource; on a visit, the visit pane. r on a visit moves it to another
 * resource (a choice, then Enter): capacity_reassign decides, and refuses
 * with its reason, nothing changed.
 *
 * What is shown is read when idle, never in the draw path: the resources
 * (capacity_resource_list), the free slots (capacity_available), the
 * reservations (capacity_holds) and the day's visits from the projection
 * (cal_load), again after any database change (reload). Every rule is the
 * core's; this file only asks and shows.
 *
 * Callers: view-calendar.c (b).
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cal.h"
#include "capacity.h"
#include "clock.h"
#include "draw.h"
#include "err.h"
#include "fmt.h"
#include "form.h"
#include "i18n.h"
#include "theme.h"
#include "view.h"
#include "views.h"
#include "xalloc.h"

#define DISP_MAX_RES 64 /* columns on the board */
#define DISP_TIME_W  6  /* "10:00 " */
#define DISP_COL_W   18 /* columns of one resource */

enum { CELL_OFF = -1, CELL_FREE = 0 }; /* else the visit's id */

struct dispv {
	int64_t day, day_end;
	int slot; /* minutes */
	int nslots;
	int nres;
	int64_t res_id[DISP_MAX_RES];
	char *res_name[DISP_MAX_RES];
	int64_t *cell; /* nres x nslots, by resource */
	struct cal_data data;
	int loaded, load_failed, placed;
	int row, col; /* the cursor */
	int top, left;
	int64_t want_res; /* keep the cursor on this resource across reloads */
	int h, w;
};

/* The index of resource r's slot k in cell (both in range). */
static size_t cell_ix(const struct dispv *d, int r, int64_t k)
{
	return (size_t)r * (size_t)d->nslots + (size_t)k;
}

/* ---------------------------------------------------------------- reading */

static int res_cb(const struct resource *r, void *arg)
{
	struct dispv *d = arg;

	if (d->nres >= DISP_MAX_RES)
		return 0;
	d->res_id[d->nres] = r->id;
	d->res_name[d->nres] = xstrdup(r->name);
	d->nres++;
	return 0;
}

static int res_index(const struct dispv *d, int64_t id)
{
	int i;

	for (i = 0; i < d->nres; i++)
		if (d->res_id[i] == id)
			return i;
	return -1;
}

static int free_cb(const struct cap_slot *s, void *arg)
{
	struct dispv *d = arg;
	int r = res_index(d, s->resource_id);
	int64_t k = (s->start_at - d->day) / (d->slot * 60);

	if (r >= 0 && k >= 0 && k < d->nslots)
		d->cell[cell_ix(d, r, k)] = CELL_FREE;
	return 0;
}

static int hold_cb(const struct cap_hold *h, void *arg)
{
	struct dispv *d = arg;
	int r = res_index(d, h->resource_id);
	int k;

	if (r < 0)
		return 0;
	for (k = 0; k < d->nslots; k++) {
		int64_t s = d->day + (int64_t)k * d->slot * 60;

		if (s < h->end_at && s + d->slot * 60 > h->start_at)
			d->cell[cell_ix(d, r, k)] = h->appointment_id;
	}
	return 0;
}

static void board_clear(struct dispv *d)
{
	int i;

	for (i = 0; i < d->nres; i++)
		free(d->res_name[i]);
	d->nres = 0;
	free(d->cell);
	d->cell = NULL;
}

/* The first row anyone works, for the first draw. */
static void place(struct dispv *d)
{
	int k, r;

	for (k = 0; k < d->nslots; k++)
		for (r = 0; r < d->nres; r++)
			if (d->cell[cell_ix(d, r, k)] != CELL_OFF) {
				d->row = d->top = k;
				return;
			}
}

static void load(struct dispv *d)
{
	struct db *db = ui_db();
	size_t i, n;
	int rc;

	board_clear(d);
	d->loaded = 1;
	d->load_failed = 0;
	d->slot = capacity_slot_minutes();
	d->day_end = clock_add_days(d->day, 1);
	d->nslots = (int)((d->day_end - d->day) / (d->slot * 60));
	if ((rc = capacity_resource_list(db, 0, res_cb, d)))
		goto fail;
	n = (size_t)(d->nres ? d->nres : 1) * (size_t)d->nslots;
	d->cell = xcalloc(n, sizeof *d->cell);
	for (i = 0; i < n; i++)
		d->cell[i] = CELL_OFF;
	if (d->nres &&
	    ((rc = capacity_available(db, d->day, 1, d->slot, d->slot, NULL, 0, free_cb, d)) ||
	     (rc = capacity_holds(db, d->day, d->day_end, hold_cb, d)) ||
	     (rc = cal_load(db, d->day, 1, 0, &d->data))))
		goto fail;
	if (d->want_res) {
		int r = res_index(d, d->want_res);

		if (r >= 0)
			d->col = r;
	}
	if (d->col >= d->nres)
		d->col = d->nres ? d->nres - 1 : 0;
	if (!d->placed) {
		place(d);
		d->placed = 1;
	}
	return;
fail:
	d->load_failed = 1;
	ui_msg(MSG_ERROR, _("The dispatch board could not be read: %s"), err_msg());
}

static int disp_idle(struct view *v)
{
	struct dispv *d = v->priv;

	if (d->loaded)
		return 0;
	load(d);
	ui_redraw_soon();
	return 0;
}

static const struct cal_row *disp_visit_row(const struct dispv *d, int64_t appt)
{
	int k, n = cal_day_count(&d->data, 0);

	for (k = 0; k < n; k++) {
		const struct cal_row *r = cal_day_row(&d->data, 0, k);

		if (r->appointment_id == appt)
			return r;
	}
	return NULL;
}

static int64_t cell_at(const struct dispv *d, int r, int k)
{
	if (!d->cell || r < 0 || r >= d->nres || k < 0 || k >= d->nslots)
		return CELL_OFF;
	return d->cell[cell_ix(d, r, k)];
}

static int64_t slot_start(const struct dispv *d, int k)
{
	return d->day + (int64_t)k * d->slot * 60;
}

/* ---------------------------------------------------------------- drawing */

static int fit_cols(const struct dispv *d)
{
	int n = (d->w - DISP_TIME_W) / DISP_COL_W;

	return n < 1 ? 1 : n;
}

/* "! Ann Lee, Oil change" */
static void visit_text(const struct dispv *d, int64_t appt, int first, char *buf, size_t n)
{
	const struct cal_row *r = disp_visit_row(d, appt);
	const struct pay_mark *pm = theme_pay(r ? r->pay_status : "");

	if (!first)
		snprintf(buf, n, "%s |", pm->sym);
	else if (r)
		snprintf(buf, n, "%s %s, %s", pm->sym, *r->customers ? r->customers : "-",
		         *r->services ? r->services : "-");
	else
		snprintf(buf, n, "%s %s %lld", pm->sym, _("visit"), (long long)appt);
}

static void draw_status(struct dispv *d, WINDOW *w, int y)
{
	char buf[512], hm[16];
	int64_t c = cell_at(d, d->col, d->row);

	if (!d->nres)
		return;
	clock_format_local(slot_start(d, d->row), "%H:%M", hm, sizeof hm);
	if (c > 0) {
		const struct cal_row *r = disp_visit_row(d, c);
		const struct pay_mark *pm = theme_pay(r ? r->pay_status : "");

		snprintf(buf, sizeof buf, _("%1$s %2$s: visit %3$lld, %4$s, %5$s (%6$s %7$s)"), hm,
		         d->res_name[d->col], (long long)c, r ? r->customers : "",
		         r ? r->services : "", pm->sym, _(pm->word));
	} else if (c == CELL_FREE) {
		snprintf(buf, sizeof buf, _("%1$s %2$s: free (Enter books)"), hm,
		         d->res_name[d->col]);
	} else {
		snprintf(buf, sizeof buf, _("%1$s %2$s: off"), hm, d->res_name[d->col]);
	}
	draw_text(w, y, 0, d->w, buf, theme_attr(R_HEADER), AL_LEFT | AL_PAD);
}

static void disp_draw(struct view *v, WINDOW *w)
{
	struct dispv *d = v->priv;
	int ncol = fit_cols(d), rows = d->h - 3, i, k, y;
	char buf[256], date[32];

	werase(w);
	if (!d->loaded) {
		draw_center_message(w, _("Reading the board..."), theme_attr(R_DIM));
		return;
	}
	if (d->load_failed) {
		draw_center_message(w, _("The board could not be read; see the message below."),
		                    theme_attr(R_ERROR));
		return;
	}
	if (!d->nres) {
		draw_center_message(w,
		                    _("No resources yet: add them with `frontdesk resource add`."),
		                    theme_attr(R_DIM));
		return;
	}
	if (rows < 1)
		rows = 1;
	/* keep the cursor in view */
	if (d->col < d->left)
		d->left = d->col;
	if (d->col >= d->left + ncol)
		d->left = d->col - ncol + 1;
	if (d->row < d->top)
		d->top = d->row;
	if (d->row >= d->top + rows)
		d->top = d->row - rows + 1;
	clock_format_local(d->day, "%a %Y-%m-%d", date, sizeof date);
	if (d->nres > ncol)
		snprintf(buf, sizeof buf,
		         _("Dispatch %1$s: resources %2$d-%3$d of %4$d, %5$d more (Left/Right)"),
		         date, d->left + 1,
		         d->left + (ncol < d->nres - d->left ? ncol : d->nres - d->left), d->nres,
		         d->nres - (ncol < d->nres - d->left ? ncol : d->nres - d->left));
	else
		snprintf(buf, sizeof buf, _("Dispatch %s"), date);
	draw_text(w, 0, 0, d->w, buf, theme_attr(R_HEADER), AL_LEFT | AL_PAD);
	for (i = 0; i < ncol && d->left + i < d->nres; i++)
		draw_text(w, 1, DISP_TIME_W + i * DISP_COL_W, DISP_COL_W - 1,
		          d->res_name[d->left + i], theme_attr(R_HEADER) | A_UNDERLINE, AL_LEFT);
	for (y = 0; y < rows && d->top + y < d->nslots; y++) {
		k = d->top + y;
		clock_format_local(slot_start(d, k), "%H:%M", buf, sizeof buf);
		draw_text(w, 2 + y, 0, DISP_TIME_W - 1, buf, theme_attr(R_DIM), AL_LEFT);
		for (i = 0; i < ncol && d->left + i < d->nres; i++) {
			int r = d->left + i;
			int64_t c = cell_at(d, r, k);
			attr_t a = theme_attr(R_NORMAL);

			if (c > 0) {
				const struct cal_row *row = disp_visit_row(d, c);

				visit_text(d, c, k == d->top + 0 || cell_at(d, r, k - 1) != c, buf,
				           sizeof buf);
				a = theme_attr(theme_pay(row ? row->pay_status : "")->role);
			} else if (c == CELL_FREE) {
				snprintf(buf, sizeof buf, "%s", _("free"));
			} else {
				snprintf(buf, sizeof buf, "%s", _("off"));
				a = theme_attr(R_DIM);
			}
			if (r == d->col && k == d->row)
				a = theme_attr(R_SELECT);
			draw_text(w, 2 + y, DISP_TIME_W + i * DISP_COL_W, DISP_COL_W - 1, buf, a,
			          AL_LEFT | AL_PAD);
		}
	}
	draw_status(d, w, d->h - 1);
}

/* ---------------------------------------------------------------- moving to a resource */

struct reassign_st {
	struct view *board;
	int64_t appt, from;
	int n;
	int64_t ids[DISP_MAX_RES];
	char *names[DISP_MAX_RES];
};

static int reassign_check(struct form *f)
{
	(void)f;
	return 0;
}

static int reassign_post(struct form *f)
{
	struct reassign_st *s = f->arg;
	int i = f->fields[0].choice;

	if (i < 0 || i >= s->n)
		return err_set(FD_EINVAL, "%s", _("choose a resource"));
	return capacity_reassign(ui_db(), s->appt, s->from, s->ids[i]);
}

static void reassign_free(struct form *f)
{
	struct reassign_st *s = f->arg;
	int i;

	for (i = 0; i < s->n; i++)
		free(s->names[i]);
	free(s);
}

static const struct form_spec reassign_spec = {
    .name = "reassign",
    .check = reassign_check,
    .post = reassign_post,
    .free = reassign_free,
    .quiet = 1,
    .help = N_("Choose the resource the visit moves to with Left/Right and press Enter. A "
               "resource that is taken then, off or not working is refused with the reason, "
               "and nothing changes."),
};

static struct view *reassign_form(struct dispv *d, int64_t appt)
{
	struct reassign_st *s;
	struct form *f;
	char title[256];
	int i;

	if (ui_readonly()) {
		ui_msg(MSG_ERROR, _("The database is open read-only: nothing can be posted."));
		return NULL;
	}
	s = xcalloc(1, sizeof *s);
	s->appt = appt;
	s->from = d->res_id[d->col];
	for (i = 0; i < d->nres; i++)
		if (i != d->col) {
			s->ids[s->n] = d->res_id[i];
			s->names[s->n] = xstrdup(d->res_name[i]);
			s->n++;
		}
	if (!s->n) {
		free(s);
		ui_msg(MSG_INFO, _("There is no other resource to move the visit to."));
		return NULL;
	}
	snprintf(title, sizeof title, _("Move visit %1$lld from %2$s"), (long long)appt,
	         d->res_name[d->col]);
	f = form_new(&reassign_spec, s, title);
	form_add_choice(f, 1, _("To resource"), (const char *const *)s->names,
	                (const char *const *)s->names, s->n, NULL);
	return form_view(f);
}

/* ---------------------------------------------------------------- actions */

/* A visit was booked or moved from the board: the board follows it. */
static void landed(int64_t appt_id, int64_t start_at, void *arg)
{
	struct dispv *d = arg;

	(void)appt_id;
	(void)start_at;
	d->loaded = 0;
}

static struct ui_next disp_open(struct dispv *d)
{
	int64_t c = cell_at(d, d->col, d->row);
	char hm[16];

	if (!d->nres)
		return ui_next(UI_HANDLED, NULL);
	if (c > 0)
		return ui_next(UI_PUSH, view_visit_new(c));
	if (c == CELL_FREE)
		return ui_next(UI_PUSH,
		               form_book_at(slot_start(d, d->row), d->res_name[d->col], landed, d));
	clock_format_local(slot_start(d, d->row), "%H:%M", hm, sizeof hm);
	ui_msg(MSG_INFO, _("%1$s is off at %2$s: choose a free cell."), d->res_name[d->col], hm);
	return ui_next(UI_REDRAW, NULL);
}

static struct ui_next disp_action(struct view *v, const struct ui_event *ev)
{
	struct dispv *d = v->priv;
	int64_t c;

	if (!d->loaded)
		load(d);
	switch (ev->action) {
	case ACT_CAL_UP:
		if (d->row > 0)
			d->row--;
		break;
	case ACT_CAL_DOWN:
		if (d->row < d->nslots - 1)
			d->row++;
		break;
	case ACT_CAL_LEFT:
		if (d->col > 0)
			d->col--;
		break;
	case ACT_CAL_RIGHT:
		if (d->col < d->nres - 1)
			d->col++;
		break;
	case ACT_CAL_OPEN:
	case ACT_CAL_NEW_VISIT:
		if (ev->action == ACT_CAL_NEW_VISIT && cell_at(d, d->col, d->row) != CELL_FREE) {
			ui_msg(MSG_INFO, "%s", _("Choose a free cell to book."));
			break;
		}
		d->want_res = d->nres ? d->res_id[d->col] : 0;
		return disp_open(d);
	case ACT_DISP_REASSIGN:
	case ACT_VISIT_MOVE:
		c = cell_at(d, d->col, d->row);
		if (c <= 0) {
			ui_msg(MSG_INFO, "%s", _("Choose a visit first."));
			break;
		}
		d->want_res = d->res_id[d->col];
		if (ev->action == ACT_VISIT_MOVE)
			return ui_next(UI_PUSH, form_visit_move(c, landed, d));
		return ui_next(UI_PUSH, reassign_form(d, c));
	default:
		return ui_next(UI_UNHANDLED, NULL);
	}
	if (d->nres)
		d->want_res = d->res_id[d->col];
	return ui_next(UI_REDRAW, NULL);
}

static void disp_reload(struct view *v)
{
	struct dispv *d = v->priv;

	d->loaded = 0;
}

static void disp_resize(struct view *v, int h, int w)
{
	struct dispv *d = v->priv;

	d->h = h;
	d->w = w;
}

static void disp_free(struct view *v)
{
	struct dispv *d = v->priv;

	board_clear(d);
	cal_data_free(&d->data);
	free(d);
}

static void disp_title(struct view *v, char *buf, size_t n)
{
	struct dispv *d = v->priv;
	char date[32];

	snprintf(buf, n, "%s %s", _("Dispatch"), fmt_date(d->day, date));
}

static const char *disp_help(struct view *v)
{
	(void)v;
	return _("The dispatch board shows one day by resource: a row per slot, a column per "
	         "active technician, van or bay. A cell shows the visit holding the resource then "
	         "(its payment mark, customer and services), free, or off (outside its hours or a "
	         "day off). Enter on a free cell books a visit there with that resource; on a "
	         "visit it opens the visit. r moves the visit to another resource; one that is "
	         "taken or off is refused with the reason.");
}

static int disp_target(struct view *v, const char **kind, int64_t *id)
{
	struct dispv *d = v->priv;
	int64_t c = cell_at(d, d->col, d->row);

	if (c <= 0)
		return 0;
	*kind = "visit";
	*id = c;
	return 1;
}

static const enum action disp_keys[] = {ACT_CAL_UP,        ACT_CAL_DOWN,   ACT_CAL_LEFT,
                                        ACT_CAL_RIGHT,     ACT_CAL_OPEN,   ACT_CAL_NEW_VISIT,
                                        ACT_DISP_REASSIGN, ACT_VISIT_MOVE, ACT_NONE};
static const enum action disp_hints[] = {ACT_CAL_OPEN, ACT_DISP_REASSIGN, ACT_VISIT_MOVE, ACT_NONE};

static const struct view_ops disp_ops = {
    .name = "dispatch",
    .ctx = CTX_CAL,
    .keys = disp_keys,
    .hints = disp_hints,
    .free = disp_free,
    .resize = disp_resize,
    .draw = disp_draw,
    .action = disp_action,
    .reload = disp_reload,
    .title = disp_title,
    .help = disp_help,
    .idle = disp_idle,
    .target = disp_target,
};

struct view *view_dispatch_new(int64_t day)
{
	struct dispv *d = xcalloc(1, sizeof *d);

	d->day = clock_day_start(day);
	return view_new(&disp_ops, d);
}
