/*
 * view.h - what a view (a calendar, a pane, a form, the help screen) is to
 * the main loop, and what the loop offers views.
 *
 * Each view is one file that exports a constructor returning a struct view
 * whose ops are one `const struct view_ops`. Views live on a stack: the
 * calendar at the bottom, drill-down panes and forms pushed on it; popping
 * returns to the view below exactly as it was left. A view's handler gets
 * actions (never raw keys) and returns what should happen next; the loop
 * decides and draws. Only the main thread calls any of this.
 */
#ifndef FD_VIEW_H
#define FD_VIEW_H

#include <curses.h>
#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "layout.h"

struct db;
struct view;

/* What a handler wants next. */
enum ui_next_kind {
	UI_UNHANDLED = 0, /* not for this view: the loop may try a global meaning */
	UI_HANDLED,       /* done, nothing to redraw */
	UI_REDRAW,        /* draw again */
	UI_PUSH,          /* push next.view on top */
	UI_POP,           /* close this view (freed by the loop) */
	UI_POP_PUSH,      /* close this view, then push next.view */
	UI_QUIT           /* leave the program */
};

struct ui_next {
	enum ui_next_kind kind;
	struct view *view; /* UI_PUSH, UI_POP_PUSH */
};

struct ui_event {
	enum action action;
	int ch;   /* the key pressed: the character for ACT_FORM_INSERT */
	int y, x; /* ACT_MOUSE: the click, relative to the body */
};

struct view_ops {
	const char *name;         /* identifier, for the debug log */
	unsigned ctx;             /* CTX_* bits it listens to (CTX_GLOBAL is implied) */
	const enum action *keys;  /* the actions it handles, ACT_NONE-terminated: the help */
	const enum action *hints; /* the few shown on the key-hint line */
	void (*free)(struct view *v);
	/* the body is now h x w (also called once before the first draw) */
	void (*resize)(struct view *v, int h, int w);
	void (*draw)(struct view *v, WINDOW *body);
	struct ui_next (*action)(struct view *v, const struct ui_event *ev);
	/* the database changed: re-read what is shown, keep the cursor on the
	 * same record. May be NULL. */
	void (*reload)(struct view *v);
	/* the breadcrumb piece ("Visit 39") */
	void (*title)(struct view *v, char *buf, size_t n);
	/* a paragraph for the help screen (translated), or NULL */
	const char *(*help)(struct view *v);
	/* nothing to do but wait for a key: do one small piece of work ahead
	 * (read the next month); 1 when there may be more. May be NULL. */
	int (*idle)(struct view *v);
	/* the record H shows the history of: the selected line's, else the
	 * view's own; *kind gets a history kind word (history.h). 0 when there
	 * is none. May be NULL (nothing here has a history). */
	int (*target)(struct view *v, const char **kind, int64_t *id);
	/* 1 when closing it would throw away what the person typed (a form
	 * edited and not posted): quitting asks first. May be NULL. */
	int (*unsaved)(struct view *v);
};

struct view {
	const struct view_ops *ops;
	void *priv;
	int stale;              /* data changed while it was not on top */
	int cursor_y, cursor_x; /* where the terminal cursor goes, -1: hidden */
};

/* view_new - a view with ops and its private state (owned by the view). */
struct view *view_new(const struct view_ops *ops, void *priv);

/* ---------------------------------------------------------------- the loop's services */

enum msg_level { MSG_INFO, MSG_OK, MSG_ERROR };

/* ui_db - the screen's database connection. */
struct db *ui_db(void);

/* ui_hq - on the head office's screen (`frontdesk --hq URL`), its
 * PostgreSQL address: ui_db() is NULL there and only the report views
 * (aging, takings, commissions) open, reading the chain's figures through
 * hq.h. NULL on a shop's screen. */
const char *ui_hq(void);

/* ui_readonly - 1 when the database was opened read-only (forms refuse). */
int ui_readonly(void);

/* ui_msg - show a message on the message line until the next key. */
void ui_msg(enum msg_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ui_next - shorthands for handlers. */
struct ui_next ui_next(enum ui_next_kind kind, struct view *v);

/* ui_first_weekday - 0 (Sunday) .. 6: from the config key week_start, else
 * the locale. */
int ui_first_weekday(void);

/* ui_confirm_quit - 1 (the setting confirm_quit, default yes) when quitting
 * or closing a form with typed input asks first. */
int ui_confirm_quit(void);

/* ui_redraw_soon - draw again at the loop's next turn (a view's idle work
 * found something to show). */
void ui_redraw_soon(void);

/* ui_invalidate_all - mark every view on the stack stale (after a form
 * posted): each reloads before it is drawn again. */
void ui_invalidate_all(void);

#endif
