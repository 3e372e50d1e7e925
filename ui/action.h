/*
 * action.h - the one table of named actions and the keys bound to them.
 *
 * Every key the screen reacts to is bound to a named action here
 * ("calendar-next-month" <- "PgDn"). The table drives four things: the
 * dispatch of keys to the view on top (views see actions, never raw keys),
 * the keys file in the config folder (which rebinds actions by name), the
 * `?` help screen and the key-hint bar. Action names and key names are
 * untranslated identifiers; the help text is translated when shown.
 *
 * An action belongs to one context (global, calendar, pane, form, dead
 * letters); a view says which contexts it listens to. A key is looked up
 * first in the view's own contexts, in table order, then in the global one
 * (in a form only for function and control keys: typing text must not
 * trigger anything). The dead-letter actions come before the panes' in
 * the table, so that in the dead-letter views (CTX_DEAD | CTX_PANE) `r` and
 * `i` retry and ignore rather than refund and invoice; the customer list's
 * (CTX_CUSTS | CTX_PANE) come before them too, for its `a` and `e`, and
 * so do the service catalogue's (CTX_SVCS | CTX_PANE), the
 * reconciliation views' (CTX_RECON | CTX_PANE) and the retention view's
 * (CTX_RET | CTX_PANE, whose `r` restores rather than refunds).
 *
 * Pure code: no curses calls (only its KEY_* constants), unit-tested in
 * tests/unit/check_ui.c. Callers: screen.c (dispatch, keys file), view-help.c,
 * the hint bar.
 */
#ifndef FD_ACTION_H
#define FD_ACTION_H

#include <stddef.h>

/* Contexts, as bits so that a view can listen to several. */
enum {
	CTX_GLOBAL = 1,
	CTX_CAL = 2,       /* the calendar */
	CTX_PANE = 4,      /* drill-down panes and lists */
	CTX_FORM = 8,      /* forms: unbound printable keys are typed text */
	CTX_DEAD = 16,     /* the dead-letter views (which also listen to CTX_PANE) */
	CTX_CUSTS = 32,    /* the customer list, its list focused (with CTX_PANE) */
	CTX_SVCS = 64,     /* the service catalogue (with CTX_PANE) */
	CTX_RECON = 128,   /* the reconciliation views (with CTX_PANE) */
	CTX_COMM = 256,    /* the commissions view (with CTX_PANE) */
	CTX_RET = 512,     /* the retention view (with CTX_PANE) */
	CTX_APPROVE = 1024 /* the approvals queue (with CTX_PANE) */
};

enum action {
	ACT_NONE = 0,
	/* global */
	ACT_QUIT,
	ACT_HELP,
	ACT_BACK,
	ACT_REDRAW,
	ACT_SEARCH,
	ACT_DEAD_LETTERS,
	ACT_HISTORY,
	ACT_MESSAGE,
	ACT_CUSTOMERS,
	ACT_AGING,
	ACT_TAKINGS,
	ACT_SERVICES,
	ACT_RECON,
	ACT_COMMISSIONS,
	ACT_RETENTION,
	ACT_APPROVALS,
	ACT_DRAWER,
	/* calendar */
	ACT_CAL_LEFT,
	ACT_CAL_RIGHT,
	ACT_CAL_UP,
	ACT_CAL_DOWN,
	ACT_CAL_NEXT_WEEK,
	ACT_CAL_PREV_WEEK,
	ACT_CAL_NEXT_MONTH,
	ACT_CAL_PREV_MONTH,
	ACT_CAL_TODAY,
	ACT_CAL_GOTO,
	ACT_CAL_MONTH,
	ACT_CAL_WEEK,
	ACT_CAL_DAY,
	ACT_CAL_OPEN,
	ACT_CAL_NEW_VISIT,
	/* on the selected visit: the calendar and the visit pane */
	ACT_VISIT_MOVE,
	ACT_VISIT_CANCEL,
	ACT_VISIT_NO_SHOW,
	/* the dispatch board (view-dispatch.c, which listens to CTX_CAL) */
	ACT_CAL_DISPATCH,
	ACT_DISP_REASSIGN,
	/* dead letters */
	ACT_DEAD_RETRY,
	ACT_DEAD_IGNORE,
	/* the customer list */
	ACT_CUST_NEW,
	ACT_CUST_EDIT,
	ACT_CUST_QUERY,
	/* the service catalogue */
	ACT_SVC_NEW,
	ACT_SVC_EDIT,
	ACT_SVC_RETIRE,
	ACT_SVC_ALL,
	/* the reconciliation views */
	ACT_RECON_ACCEPT,
	ACT_RECON_RECORD,
	ACT_RECON_CORRECT,
	/* the commissions view */
	ACT_COMM_PREV,
	ACT_COMM_NEXT,
	/* the retention view */
	ACT_RET_SECTION,
	ACT_RET_SOFT,
	ACT_RET_PROPOSALS,
	ACT_RET_CERTS,
	ACT_RET_RESTORE,
	ACT_RET_HOLD,
	ACT_RET_RELEASE,
	/* the approvals queue */
	ACT_APPR_YES,
	ACT_APPR_NO,
	/* panes */
	ACT_UP,
	ACT_DOWN,
	ACT_PAGE_UP,
	ACT_PAGE_DOWN,
	ACT_TOP,
	ACT_BOTTOM,
	ACT_OPEN,
	ACT_EDIT,
	ACT_NEW_JOB,
	ACT_NEW_ITEM,
	ACT_ISSUE_INVOICE,
	ACT_RECORD_PAYMENT,
	ACT_REVERSE_ALLOC,
	ACT_REFUND,
	ACT_CARD_CHARGE,
	ACT_LOG_CONTACT,
	ACT_VOID_INVOICE,
	ACT_CREDIT_NOTE,
	ACT_PRINT,
	ACT_SEND_ESTIMATE,
	ACT_ON_THE_WAY,
	ACT_LINE_HISTORY,
	ACT_PREVIEW,
	/* forms */
	ACT_FORM_SUBMIT,
	ACT_FORM_CANCEL,
	ACT_FORM_NEXT,
	ACT_FORM_PREV,
	ACT_FORM_LEFT,
	ACT_FORM_RIGHT,
	ACT_FORM_HOME,
	ACT_FORM_END,
	ACT_FORM_BACKSPACE,
	ACT_FORM_DELETE,
	ACT_FORM_CLEAR,
	ACT_FORM_PROPOSE,
	ACT_FORM_CONFIRM,
	/* not bindable: made by the loop */
	ACT_FORM_INSERT, /* a printable character typed into a form */
	ACT_MOUSE,       /* a click, with its position */
	ACT_N
};

/* Keys are ints: a character is its code point; a curses function key
 * (KEY_NPAGE...) is KEYC_FN | code. Enter is '\n', Backspace KEYC_BS. */
#define KEYC_FN         0x1000000
#define KEYC_BS         (KEYC_FN | 0x107) /* KEY_BACKSPACE */
#define ACTION_MAX_KEYS 6

struct action_def {
	enum action id;
	const char *name;     /* "calendar-next-month": the keys file uses it */
	const char *defaults; /* default keys, blank-separated key names */
	const char *help;     /* N_() marked, translated when shown */
	unsigned ctx;         /* one CTX_* bit, or CTX_CAL | CTX_PANE for an action on
	                       * a visit both the calendar and the panes offer */
	const char *hint;     /* N_() short label for the hint bar, or NULL */
};

/* action_table - the whole table (ACT_N - 1 entries after ACT_NONE);
 * *n gets its length. */
const struct action_def *action_table(size_t *n);

/* action_def - the entry of id, or NULL for an action that is not bindable. */
const struct action_def *action_def(enum action id);

/* action_by_name - the action called name, or ACT_NONE. */
enum action action_by_name(const char *name);

/* keyc_parse - the key named by name ("j", "J", "PgDn", "C-l", "Enter",
 * "Esc", "F1", "Space"...); -1 when name is not a key name. */
int keyc_parse(const char *name);

/* keyc_name - the name of key written into buf (size n), the same spelling
 * keyc_parse reads; a printable character is written as itself (UTF-8). */
void keyc_name(int key, char *buf, size_t n);

/* keymap_reset - bind every action to its default keys. */
void keymap_reset(void);

/* keymap_bind - replace the keys of action by the blank-separated key
 * names in keys. 0, or -1 when a key name is unknown (nothing changes);
 * bad (may be NULL) gets the offending name. */
int keymap_bind(enum action a, const char *keys, char *bad, size_t badn);

/* keymap_load - read a keys file ("action-name = key key" lines, '#'
 * comments) and bind what it says. Each problem (unknown action, unknown
 * key, a key bound twice in one context) is appended as one translated line
 * to warn (size n), the line ignored. Returns the number of problems; a
 * missing file is not a problem. */
int keymap_load(const char *path, char *warn, size_t n);

/* keymap_lookup - the action key means for a view listening to contexts
 * ctx: the view's own contexts first, then CTX_GLOBAL (with CTX_FORM, only
 * for function and control keys). ACT_NONE when the key is bound to
 * nothing there. */
enum action keymap_lookup(int key, unsigned ctx);

/* keymap_keys - the names of the keys bound to a, joined with sep, in buf
 * ("" when none). */
void keymap_keys(enum action a, const char *sep, char *buf, size_t n);

/* keymap_first_key - the first key bound to a, or -1. */
int keymap_first_key(enum action a);

#endif
