/*
 * pane.h - a scrolling list of lines, some of them selectable: the body of
 * every drill-down pane (visit, invoice, payment, customer, search results)
 * and of the help screen.
 *
 * A line is one or more cells laid out with layout_columns at draw time, so
 * that rows built with the same column spec line up at any width. A
 * selectable line carries a target (a kind the pane defines and a record
 * id); after a rebuild, pane_restore puts the cursor back on the same
 * target, which is how "the cursor stays on the same record" and "back
 * returns exactly where you were" hold across live refreshes.
 */
#ifndef FD_PANE_H
#define FD_PANE_H

#include <curses.h>
#include <stdint.h>

#include "theme.h"
#include "view.h"

#define PANE_MAX_CELLS 8

/* The kinds of record a selectable line can stand for. */
enum {
	K_NONE = 0,
	K_VISIT,
	K_JOB,
	K_ITEM,
	K_INVOICE,
	K_ALLOC,
	K_PAYMENT,
	K_REFUND,
	K_CUSTOMER,
	K_INFO,        /* selectable only to be read (help lines) */
	K_SERVICE,     /* a service of the catalogue */
	K_ESTIMATE,    /* an estimate sent for signature (view-estimate.c) */
	K_RECON_BATCH, /* a reconciliation batch (view-recon.c) */
	K_RECON_DIFF,  /* a reconciliation difference */
	K_RECON_EVENT  /* a parked payment event */
};

/* How one column of a row behaves (see layout_columns). */
struct pane_col {
	int min;   /* columns it needs */
	int flex;  /* share of the width left over */
	int align; /* AL_LEFT or AL_RIGHT */
};

/* PANE_DROP(n) as a column's min: it needs n columns and is the first left
 * out when the line's columns do not all fit (before the ones after it). */
#define PANE_DROP(n) (-(n))

struct pane_line {
	int ncells;
	char *cells[PANE_MAX_CELLS];
	enum role roles[PANE_MAX_CELLS]; /* per cell; R_NORMAL: the line's role */
	const struct pane_col *cols;     /* NULL for a one-cell line */
	enum role role;
	int kind;   /* 0: not selectable */
	int64_t id; /* the record the line stands for */
	/* a line its owner draws (pane_drawn): NULL for a line of text */
	void (*draw)(WINDOW *w, int y, int x, int width, const void *arg, int n);
	const void *arg; /* the owner's, kept until the pane is cleared */
	int n;
};

struct pane {
	struct pane_line *lines;
	int n, cap;
	int cur; /* index of the selected line, -1 when none is selectable */
	int top; /* first line shown */
	int h, w;
};

/* pane_clear - forget the lines (the cursor target is kept by the caller
 * with pane_target before clearing). */
void pane_clear(struct pane *p);

/* pane_text - add a one-cell line (printf-style), selectable when kind != 0. */
void pane_text(struct pane *p, int kind, int64_t id, enum role role, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* pane_field - add a "Label: value" line after indent blanks, selectable
 * when kind != 0; an empty or missing value shows as "-". The separator is
 * the locale's (a full-width colon in Chinese), so every pane writes its
 * fields the same way. */
void pane_field(struct pane *p, int kind, int64_t id, enum role role, int indent, const char *label,
                const char *value);

/* pane_row - add a row of n cells laid out by cols (n entries, which must
 * outlive the pane: use static tables). texts are copied. */
void pane_row(struct pane *p, int kind, int64_t id, enum role role, int n,
              const struct pane_col *cols, const char *const *texts);

/* pane_cell_role - give the last line's cell i its own role (a status). */
void pane_cell_role(struct pane *p, int i, enum role role);

/* pane_drawn - add a line that draw draws (never selectable): draw(w, y,
 * x, width, arg, n) is called with the line's place whenever it shows.
 * arg is the caller's and must stay valid until the pane is cleared or
 * freed; draw must not write outside the width it is given. */
void pane_drawn(struct pane *p,
                void (*draw)(WINDOW *w, int y, int x, int width, const void *arg, int n),
                const void *arg, int n);

/* pane_blank - an empty line. */
void pane_blank(struct pane *p);

/* pane_target - the selected line's kind and id (0 / 0 when none). */
void pane_target(const struct pane *p, int *kind, int64_t *id);

/* pane_restore - select the line with kind/id, else the selectable line
 * nearest to old_index, else the first selectable one. */
void pane_restore(struct pane *p, int kind, int64_t id, int old_index);

/* pane_select_first - the first selectable line of kind (0: any). */
void pane_select_first(struct pane *p, int kind);

/* pane_action - move the cursor / scroll for ACT_UP, ACT_DOWN, ACT_PAGE_*,
 * ACT_TOP, ACT_BOTTOM and ACT_MOUSE; UI_UNHANDLED for anything else. */
struct ui_next pane_action(struct pane *p, const struct ui_event *ev);

/* pane_draw - draw the visible lines into w from line y0. */
void pane_draw(struct pane *p, WINDOW *w, int y0);

void pane_free(struct pane *p);

#endif
