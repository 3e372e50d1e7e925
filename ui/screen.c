/*
 * screen.c - the desk screen's main loop: the view stack, input dispatch
 * through the action table, the frame (title, message, status and key-hint
 * lines) and live refresh. The terminal, its signals and crash handling are
 * term.c's; what the status line shows is statusline.c's.
 *
 * Invariants:
 *  - Only this thread calls curses. The task runner thread (runner.c) and
 *    the channel worker thread (chanrun.c) have their own connections and
 *    are noticed through PRAGMA data_version; what the channel worker says
 *    reaches this thread through chanrun_take_msg (copied under a mutex,
 *    with a byte on term.c's self-pipe to wake the loop).
 *  - The loop poll()s stdin and the self-pipe (signals write to it) with a
 *    timeout that ends at the next one-second tick; on each tick it checks
 *    db_data_version and re-reads only what the top view shows. While no
 *    key waits, the top view may work ahead (view_ops.idle: the calendar
 *    reads the neighbouring month), one piece per turn of the loop.
 *  - Each frame is drawn into windows and sent with wnoutrefresh and ONE
 *    doupdate.
 *  - The terminal is restored on every way out: quit, Ctrl-C / SIGTERM /
 *    SIGHUP (the loop ends and calls term_close), a crash signal or an
 *    allocation failure (term.c).
 */
#include <config.h>

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <term.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "action.h"
#include "backup.h"
#include "cal.h"
#include "chan-poll.h"
#include "chanrun.h"
#include "clock.h"
#include "db.h"
#include "draw.h"
#include "err.h"
#include "i18n.h"
#include "layout.h"
#include "log.h"
#include "permit.h"
#include "privs.h"
#include "runner.h"
#include "screen.h"
#include "settings.h"
#include "state.h"
#include "statusline.h"
#include "task.h"
#include "term.h"
#include "theme.h"
#include "tw.h"
#include "view.h"
#include "views.h"
#include "xalloc.h"

#define MAX_VIEWS 32
#define TICK_MS   1000
/* how long what the channel worker says (not an error) stays unless a key
 * clears it first: the status line keeps the channel's state */
#define WORKER_MSG_MS 15000

static struct {
	struct db *db;  /* NULL on the head office's screen */
	const char *hq; /* the head office's address there, else NULL */
	int readonly;
	struct view *stack[MAX_VIEWS];
	int depth;
	struct layout lay;
	int rows, cols;
	WINDOW *wtitle, *wbody, *wmsg, *wstatus, *whint;
	char msg[1024];
	enum msg_level msg_level;
	char last_msg[1024]; /* the last message, for M (view-message.c) */
	enum msg_level last_level;
	int msg_new; /* set during the current key: keep it on screen */
	int64_t data_version;
	char worker_msg[700]; /* what the channel worker said, waiting for the line */
	enum msg_level worker_level;
	int msg_worker;          /* the message line shows what the worker said */
	double msg_worker_until; /* then, when an information of it goes away */
	int first_wday;
	int dirty;
	int done;
	int frames;
	int idle_more;        /* the top view may have work to do ahead */
	char note_later[512]; /* said once at start, when the message line is free */
	int confirm_quit;     /* the setting: ask before quitting */
	int asking;           /* the message line asks whether to quit: ASK_* */
	int quit_status;      /* the exit status of a quit the person confirmed */
} S;

enum { ASK_NONE, ASK_KEY, ASK_INTERRUPT };

/* ---------------------------------------------------------------- services for views */

struct view *view_new(const struct view_ops *ops, void *priv)
{
	struct view *v = xcalloc(1, sizeof *v);

	v->ops = ops;
	v->priv = priv;
	v->cursor_y = -1;
	return v;
}

struct db *ui_db(void)
{
	return S.db;
}

const char *ui_hq(void)
{
	return S.hq;
}

int ui_readonly(void)
{
	return S.readonly;
}

void ui_msg(enum msg_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(S.msg, sizeof S.msg, fmt, ap);
	va_end(ap);
	S.msg_level = level;
	if (!S.asking) {
		memcpy(S.last_msg, S.msg, sizeof S.last_msg);
		S.last_level = level;
	}
	S.msg_new = 1;
	S.msg_worker = 0;
	S.dirty = 1;
	log_debug("message: %s", S.msg);
}

struct ui_next ui_next(enum ui_next_kind kind, struct view *v)
{
	struct ui_next n = {kind, v};

	return n;
}

int ui_confirm_quit(void)
{
	return S.confirm_quit;
}

int ui_first_weekday(void)
{
	return S.first_wday;
}

void ui_redraw_soon(void)
{
	S.dirty = 1;
}

void ui_invalidate_all(void)
{
	int i;

	for (i = 0; i < S.depth; i++)
		S.stack[i]->stale = 1;
	statusline_db_changed(); /* a form posted: the books may have changed */
	S.dirty = 1;
}

/* ---------------------------------------------------------------- the frame */

static void delete_windows(void)
{
	WINDOW **w[] = {&S.wtitle, &S.wbody, &S.wmsg, &S.wstatus, &S.whint};
	size_t i;

	for (i = 0; i < sizeof w / sizeof w[0]; i++)
		if (*w[i]) {
			delwin(*w[i]);
			*w[i] = NULL;
		}
}

static WINDOW *mkwin(const struct rect *r)
{
	WINDOW *w = newwin(r->h > 0 ? r->h : 1, r->w > 0 ? r->w : 1, r->y, r->x);

	if (!w)
		return NULL;
	keypad(w, TRUE);
	nodelay(w, TRUE);
	return w;
}

static void relayout(void)
{
	int i;

	getmaxyx(stdscr, S.rows, S.cols);
	layout_compute(S.rows, S.cols, &S.lay);
	delete_windows();
	S.wbody = mkwin(&S.lay.body);
	if (!S.lay.too_small) {
		S.wtitle = mkwin(&S.lay.title);
		S.wmsg = mkwin(&S.lay.msg);
		S.wstatus = mkwin(&S.lay.status);
		S.whint = mkwin(&S.lay.hint);
		for (i = 0; i < S.depth; i++)
			S.stack[i]->ops->resize(S.stack[i], S.lay.body.h, S.lay.body.w);
	}
	clearok(curscr, TRUE);
	S.dirty = 1;
}

static void draw_title(void)
{
	char buf[2048] = "", piece[256];
	int i;
	size_t len;

	werase(S.wtitle);
	snprintf(buf, sizeof buf, "%s", S.hq ? _("frontdesk head office") : "frontdesk");
	for (i = 0; i < S.depth; i++) {
		S.stack[i]->ops->title(S.stack[i], piece, sizeof piece);
		len = strlen(buf);
		snprintf(buf + len, sizeof buf - len, " > %s", piece);
	}
	draw_text(S.wtitle, 0, 0, S.cols, buf, theme_attr(R_TITLE), AL_LEFT | AL_PAD);
	if (S.readonly) {
		const char *ro = _("READ-ONLY");
		int w = tw_width(ro);

		draw_text(S.wtitle, 0, S.cols - w - 1, w, ro, theme_attr(R_TITLE), AL_LEFT);
	}
}

static void draw_msg(void)
{
	char buf[1100];
	enum role r = S.msg_level == MSG_ERROR ? R_ERROR
	              : S.msg_level == MSG_OK  ? R_SUCCESS
	                                       : R_NORMAL;

	werase(S.wmsg);
	if (!S.msg[0])
		return;
	if (S.asking) {
		draw_text(S.wmsg, 0, 0, S.cols, S.msg, theme_attr(R_ERROR) | A_REVERSE,
		          AL_LEFT | AL_PAD);
		return;
	}
	/* never colour alone: a refusal starts with "!" */
	snprintf(buf, sizeof buf, "%s%s", S.msg_level == MSG_ERROR && S.msg[0] != '!' ? "! " : "",
	         S.msg);
	if (tw_width(buf) > S.cols && keymap_first_key(ACT_MESSAGE) >= 0) {
		/* cut: say at the end of the line which key shows all of it */
		char kn[32], more[96];
		int mw;

		keyc_name(keymap_first_key(ACT_MESSAGE), kn, sizeof kn);
		snprintf(more, sizeof more, _("[%s: all]"), kn);
		mw = tw_width(more);
		draw_text(S.wmsg, 0, 0, S.cols - mw - 1, buf, theme_attr(r), AL_LEFT);
		draw_text(S.wmsg, 0, S.cols - mw, mw, more, theme_attr(R_KEY), AL_LEFT);
		return;
	}
	draw_text(S.wmsg, 0, 0, S.cols, buf, theme_attr(r), AL_LEFT);
}

/* A message of the channel worker (msg NULL: the one waiting): on the
 * message line unless the line shows something of the desk's (a result, a
 * refusal), then as soon as the line is free. */
static void worker_said(enum msg_level level, const char *msg)
{
	if (msg) {
		snprintf(S.worker_msg, sizeof S.worker_msg, "%s", msg);
		S.worker_level = level;
	}
	if (!S.worker_msg[0] || (S.msg[0] && !S.msg_worker))
		return;
	ui_msg(S.worker_level, "%s", S.worker_msg);
	S.msg_worker = 1;
	S.msg_worker_until = S.worker_level == MSG_ERROR ? 0 : (clock_mono() * 1e3) + WORKER_MSG_MS;
	S.worker_msg[0] = '\0';
}

/* The columns of one hint (its first key, a blank, its label), 0 when a
 * has no hint or no key. */
static int hint_width(enum action a)
{
	const struct action_def *d = action_def(a);
	char kn[32];
	int key = keymap_first_key(a);

	if (!d || !d->hint || key < 0)
		return 0;
	keyc_name(key, kn, sizeof kn);
	return tw_width(kn) + 1 + tw_width(_(d->hint));
}

/* One hint at x: the first key of a, then its label; the x after it. */
static int draw_hint(int x, enum action a)
{
	const struct action_def *d = action_def(a);
	char kn[32];

	keyc_name(keymap_first_key(a), kn, sizeof kn);
	x += draw_text(S.whint, 0, x, S.cols - x, kn, theme_attr(R_KEY), AL_LEFT);
	x += 1;
	x += draw_text(S.whint, 0, x, S.cols - x, _(d->hint), theme_attr(R_BAR), AL_LEFT);
	return x + 2;
}

#define MAX_HINTS 48

/* The hints of one line, in their order, before layout_hints chooses. */
struct hint_line {
	enum action act[MAX_HINTS];
	int width[MAX_HINTS], rank[MAX_HINTS], shown[MAX_HINTS];
	int n;
};

static void add_hint(struct hint_line *h, enum action a, int rank)
{
	if (h->n == MAX_HINTS || !permit_offered(S.db, a))
		return;
	h->act[h->n] = a;
	h->width[h->n] = hint_width(a);
	h->rank[h->n++] = rank;
}

/* The key hints: help, the view's own, dead letters (while there are
 * any), search, customers, back and quit. When they do not all fit, the
 * view's own go first (from the last), then help, search, customers and
 * dead letters; the way
 * out (back and quit, a form's cancel) always stays (layout_hints). */
static void draw_hints(struct view *top)
{
	static const enum action globals[] = {ACT_SEARCH, ACT_CUSTOMERS, ACT_BACK, ACT_QUIT,
	                                      ACT_NONE};
	struct hint_line h;
	const enum action *a;
	int form = (top->ops->ctx & CTX_FORM) != 0, i, x = 0;

	h.n = 0;
	werase(S.whint);
	draw_fill(S.whint, 0, 0, S.cols, theme_attr(R_BAR));
	if (!form)
		add_hint(&h, ACT_HELP, 1);
	for (a = top->ops->hints; a && *a != ACT_NONE; a++)
		add_hint(&h, *a, *a == ACT_FORM_CANCEL ? 0 : 2);
	if (!form) {
		if (statusline_dead_letters() > 0 && !(top->ops->ctx & CTX_DEAD))
			add_hint(&h, ACT_DEAD_LETTERS, 1);
		for (a = globals; *a != ACT_NONE; a++)
			add_hint(&h, *a, *a == ACT_SEARCH || *a == ACT_CUSTOMERS ? 1 : 0);
	}
	layout_hints(h.n, h.width, h.rank, 2, S.cols, h.shown);
	for (i = 0; i < h.n; i++)
		if (h.shown[i])
			x = draw_hint(x, h.act[i]);
}

/* The head office's screen has no shop, channel or tasks to show: its
 * status line says where its figures come from and how to read them again. */
static void hq_status_draw(void)
{
	char line[1024], kn[32] = "C-l";
	int key = keymap_first_key(ACT_REDRAW);

	if (key >= 0)
		keyc_name(key, kn, sizeof kn);
	snprintf(line, sizeof line, _("Head office %1$s · read-only · %2$s reads it again"), S.hq,
	         kn);
	werase(S.wstatus);
	draw_text(S.wstatus, 0, 0, S.cols, line, theme_attr(R_BAR), AL_LEFT | AL_PAD);
}

static void draw_all(void)
{
	struct view *top = S.stack[S.depth - 1];

	if (S.lay.too_small) {
		char buf[256];

		snprintf(buf, sizeof buf,
		         _("Please enlarge the window to at least %1$dx%2$d (it is %3$dx%4$d)."),
		         LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS, S.cols, S.rows);
		draw_center_message(S.wbody, buf, A_BOLD);
		curs_set(0);
		wnoutrefresh(S.wbody);
		doupdate();
		S.dirty = 0;
		return;
	}
	if (top->stale) {
		top->stale = 0;
		if (top->ops->reload)
			top->ops->reload(top);
	}
	top->cursor_y = -1;
	werase(S.wbody);
	top->ops->draw(top, S.wbody);
	draw_title();
	draw_msg();
	if (S.hq)
		hq_status_draw();
	else
		statusline_draw(S.wstatus, S.cols);
	draw_hints(top);
	wnoutrefresh(S.wtitle);
	wnoutrefresh(S.wmsg);
	wnoutrefresh(S.wstatus);
	wnoutrefresh(S.whint);
	if (top->cursor_y >= 0) {
		curs_set(1);
		wmove(S.wbody, top->cursor_y, top->cursor_x);
		leaveok(S.wbody, FALSE);
	} else {
		curs_set(0);
		leaveok(S.wbody, TRUE);
	}
	wnoutrefresh(S.wbody); /* last: the terminal's cursor ends in the body */
	doupdate();
	S.dirty = 0;
	if (S.frames++ == 0) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		log_debug("first-frame realtime=%lld.%09ld", (long long)ts.tv_sec, ts.tv_nsec);
	}
}

/* ---------------------------------------------------------------- the stack */

static void push(struct view *v)
{
	if (!v)
		return;
	if (S.depth == MAX_VIEWS) {
		ui_msg(MSG_ERROR, _("Too many panes are open; go back first."));
		v->ops->free(v);
		free(v);
		return;
	}
	S.stack[S.depth++] = v;
	v->ops->resize(v, S.lay.body.h, S.lay.body.w);
	S.dirty = 1;
}

static void pop(void)
{
	struct view *v;

	if (S.depth <= 1)
		return;
	v = S.stack[--S.depth];
	v->ops->free(v);
	free(v);
	S.dirty = 1;
}

static void quit_or_ask(int by, int always);

static void apply(struct ui_next n)
{
	switch (n.kind) {
	case UI_REDRAW:
		S.dirty = 1;
		break;
	case UI_PUSH:
		push(n.view);
		break;
	case UI_POP:
		pop();
		break;
	case UI_POP_PUSH:
		pop();
		push(n.view);
		break;
	case UI_QUIT:
		quit_or_ask(ASK_KEY, 0);
		break;
	default:
		break;
	}
}

/* ---------------------------------------------------------------- input */

/* Quit, or (confirm_quit) ask first on the message line: by a key (by
 * ASK_KEY) or Ctrl-C (ASK_INTERRUPT). always: ask even when no typed input
 * would be lost (q at the top, Ctrl-C); else (Q, the quit action itself)
 * only then. The question names the form whose typed input would be lost. */
static void quit_or_ask(int by, int always)
{
	char yes[32], title[256] = "";
	int i, key = keymap_first_key(ACT_FORM_CONFIRM);

	if (!S.confirm_quit) {
		S.done = 1;
		return;
	}
	for (i = S.depth - 1; i >= 0 && !title[0]; i--)
		if (S.stack[i]->ops->unsaved && S.stack[i]->ops->unsaved(S.stack[i]))
			S.stack[i]->ops->title(S.stack[i], title, sizeof title);
	if (!always && !title[0]) {
		S.done = 1; /* Q with nothing to lose */
		return;
	}
	S.asking = by; /* before ui_msg: the question is not the last message */
	if (key < 0)
		key = 'y';
	keyc_name(key, yes, sizeof yes);
	if (title[0] && by == ASK_INTERRUPT)
		ui_msg(MSG_ERROR,
		       _("Quit frontdesk and lose what you typed in %2$s? %1$s or Ctrl-C quits; "
		         "any other key stays."),
		       yes, title);
	else if (title[0])
		ui_msg(MSG_ERROR,
		       _("Quit frontdesk and lose what you typed in %2$s? %1$s quits; any other "
		         "key stays."),
		       yes, title);
	else if (by == ASK_INTERRUPT)
		ui_msg(MSG_ERROR, _("Quit frontdesk? %s or Ctrl-C quits; any other key stays."),
		       yes);
	else
		ui_msg(MSG_ERROR, _("Quit frontdesk? %s quits; any other key stays."), yes);
}

/* The answer to the quit question: the confirm key quits, any other key
 * (but a resize) takes the question back and does nothing else. */
static void answer_quit(int key)
{
	if (key == (KEYC_FN | KEY_RESIZE)) {
		relayout();
		return;
	}
	S.asking = ASK_NONE;
	S.msg[0] = '\0';
	S.dirty = 1;
	if (!(key & KEYC_FN) && keymap_lookup(key, CTX_FORM) == ACT_FORM_CONFIRM)
		S.done = 1;
}

/* Ctrl-C: ask (confirm_quit), or when the question is already up, quit
 * as an interrupt (status 130). */
static void interrupt(void)
{
	if (S.asking) {
		S.done = 1;
		S.quit_status = 128 + SIGINT;
		return;
	}
	quit_or_ask(ASK_INTERRUPT, 1);
}

static void global_action(const struct ui_event *ev)
{
	switch (ev->action) {
	case ACT_QUIT:
		quit_or_ask(ASK_KEY, 0);
		break;
	case ACT_HELP:
		push(view_help_new(S.stack[S.depth - 1]));
		break;
	case ACT_BACK:
		if (S.depth > 1)
			pop();
		else if (ev->ch == 27)
			ui_msg(MSG_INFO, _("This is the top; press Q to quit."));
		else
			quit_or_ask(ASK_KEY, 1);
		break;
	case ACT_MESSAGE:
		if (S.last_msg[0])
			push(view_message_new(S.last_msg, S.last_level));
		else
			ui_msg(MSG_INFO, _("There is no message to show yet."));
		break;
	case ACT_REDRAW:
		clearok(curscr, TRUE);
		if (S.hq) /* no data_version there: the key reads the report again */
			S.stack[S.depth - 1]->stale = 1;
		S.dirty = 1;
		break;
	case ACT_SEARCH:
		push(view_search_new());
		break;
	case ACT_APPROVALS:
		push(view_approvals_new());
		break;
	case ACT_DEAD_LETTERS:
		push(view_dead_new());
		break;
	case ACT_CUSTOMERS:
		push(view_customers_new());
		break;
	case ACT_SERVICES:
		push(view_services_new());
		break;
	case ACT_AGING:
		push(view_aging_new());
		break;
	case ACT_TAKINGS:
		push(view_takings_new());
		break;
	case ACT_COMMISSIONS:
		push(view_commissions_new());
		break;
	case ACT_RECON:
		push(view_recon_new());
		break;
	case ACT_RETENTION:
		push(view_retention_new());
		break;
	case ACT_DRAWER:
		push(form_drawer_new());
		break;
	case ACT_HISTORY: {
		struct view *top = S.stack[S.depth - 1];
		const char *kind = NULL;
		int64_t id = 0;

		if (top->ops->target && top->ops->target(top, &kind, &id))
			push(view_history_new(kind, id));
		else
			ui_msg(MSG_INFO,
			       _("Select a visit, job, invoice, payment or customer first: H "
			         "shows its history."));
		break;
	}
	default:
		break;
	}
}

static void handle_key(int key)
{
	struct view *top = S.stack[S.depth - 1];
	struct ui_event ev = {ACT_NONE, key, 0, 0};
	struct ui_next n;

	if (S.asking) {
		answer_quit(key);
		return;
	}
	if (key == (KEYC_FN | KEY_RESIZE)) {
		relayout();
		return;
	}
	S.msg_new = 0;
	if (key == (KEYC_FN | KEY_MOUSE)) {
		MEVENT me;

		if (getmouse(&me) != OK || S.lay.too_small)
			return;
		if (!(me.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)))
			return;
		if (me.y < S.lay.body.y || me.y >= S.lay.body.y + S.lay.body.h)
			return;
		ev.action = ACT_MOUSE;
		ev.y = me.y - S.lay.body.y;
		ev.x = me.x - S.lay.body.x;
	} else {
		ev.action = keymap_lookup(key, top->ops->ctx);
		if (ev.action == ACT_NONE && (top->ops->ctx & CTX_FORM) && !(key & KEYC_FN) &&
		    key >= ' ')
			ev.action = ACT_FORM_INSERT;
	}
	if (S.lay.too_small && ev.action != ACT_QUIT && ev.action != ACT_BACK)
		return;
	if (!permit_offered(S.db, ev.action)) {
		char why[400];

		ui_msg(MSG_ERROR, "%s", permit_refusal(S.db, ev.action, why, sizeof why));
		return;
	}
	if (ev.action == ACT_NONE) {
		char kn[32];

		keyc_name(key, kn, sizeof kn);
		ui_msg(MSG_INFO, _("The key %s does nothing here; press ? to see the keys."), kn);
		return;
	}
	log_debug("key %d -> %s in %s", key,
	          action_def(ev.action) ? action_def(ev.action)->name : "internal", top->ops->name);
	n = top->ops->action(top, &ev);
	if (n.kind == UI_UNHANDLED)
		global_action(&ev);
	else
		apply(n);
	if (!S.msg_new && S.msg[0]) {
		S.msg[0] = '\0';
		S.msg_worker = 0;
		S.dirty = 1;
	}
	if (!S.msg[0] && S.note_later[0]) {
		ui_msg(MSG_ERROR, "%s", S.note_later);
		S.note_later[0] = '\0';
	}
	if (!S.msg[0])
		worker_said(MSG_INFO, NULL);
}

static int read_key(int *key)
{
	wint_t wc;
	int r = wget_wch(S.wbody, &wc);

	if (r == ERR)
		return 0;
	if (r == KEY_CODE_YES) {
		*key = wc == KEY_ENTER ? '\n' : wc == KEY_BACKSPACE ? KEYC_BS : (int)(KEYC_FN | wc);
		return 1;
	}
	*key = wc == '\r' ? '\n' : (wc == 127 || wc == 8) ? KEYC_BS : (int)wc;
	return 1;
}

/* ---------------------------------------------------------------- live refresh */

static void tick(void)
{
	int64_t v = S.db ? db_data_version(S.db) : 0;

	if (S.db && v != S.data_version) {
		S.data_version = v;
		permit_forget();
		log_debug("data_version changed: reloading what is shown");
		ui_invalidate_all();
		statusline_db_changed();
	}
	if (S.db && statusline_update(S.db))
		S.dirty = 1;
	if (S.msg[0] && S.msg_worker && S.msg_worker_until > 0 &&
	    (clock_mono() * 1e3) >= S.msg_worker_until) {
		S.msg[0] = '\0';
		S.msg_worker = 0;
		S.dirty = 1;
	}
}

/* ---------------------------------------------------------------- set-up */

static void keys_file(char *warn, size_t n)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char path[4096];

	warn[0] = '\0';
	keymap_reset();
	if (xdg && *xdg)
		snprintf(path, sizeof path, "%s/frontdesk/keys", xdg);
	else if (home && *home)
		snprintf(path, sizeof path, "%s/.config/frontdesk/keys", home);
	else
		return;
	/* the user's own file, read with the user's own rights (privs.h) */
	if (privs_user_begin() != 0)
		return;
	keymap_load(path, warn, n);
	privs_user_end();
}

static void first_weekday(char *warn, size_t n)
{
	const char *ws = config_get("week_start", NULL);

	S.first_wday = cal_locale_first_weekday();
	if (ws) {
		int d = cal_parse_weekday(ws);

		if (d >= 0)
			S.first_wday = d;
		else
			snprintf(
			    warn, n,
			    _("config: week_start = %.40s is not a weekday (monday, sunday...); "
			      "the locale's first day is used"),
			    ws);
	}
}

/* The channel worker runs in the screen when a payment provider is set up,
 * unless the screen is read-only or screen_channel = no. A worker that
 * cannot start (a secrets file missing or readable by others...) is said
 * once on the message line; the screen works on without it. */
static void start_channel_worker(void)
{
	struct chan_summary ch;
	char why[1024];

	if (S.readonly || strcmp(config_get("screen_channel", "yes"), "no") == 0) {
		log_debug("channel worker not started: %s",
		          S.readonly ? "the screen is read-only" : "screen_channel = no");
		return;
	}
	if (chan_summary_read(S.db, &ch) != 0 || !ch.configured)
		return;
	if (chanrun_start(db_path(S.db), term_wake_write_fd()) == 0)
		return;
	snprintf(why, sizeof why, _("channel worker not started: %s"), err_msg());
	log_debug("%s", why);
	worker_said(MSG_ERROR, why);
}

/* In a locale whose character set is not UTF-8 (LC_ALL=C over SSH is
 * common) every letter outside ASCII is drawn as '?'. Say once what to set:
 * the variable that decides (LC_ALL, else LC_CTYPE, else LANG). */
static void locale_note(char *buf, size_t n)
{
	static const char *const vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
	const char *cs = nl_langinfo(CODESET), *var = "LANG", *name = setlocale(LC_CTYPE, NULL);
	size_t i;

	buf[0] = '\0';
	if (cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8")))
		return;
	for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);

		if (v && *v) {
			var = vars[i];
			break;
		}
	}
	snprintf(buf, n,
	         _("Set %1$s=C.UTF-8 and restart: in the locale %2$s letters outside ASCII "
	           "show as ?."),
	         var, name ? name : "C");
	log_debug("%s (character set %s)", buf, cs ? cs : "?");
}

/* The first message on the screen: a problem of the keys file (its first
 * line), else of week_start; then the locale's note, or later when the
 * line is taken. */
static void startup_messages(char *warn, const char *wd_warn)
{
	if (warn[0]) {
		char *nl = strchr(warn, '\n');

		if (nl)
			*nl = '\0';
		ui_msg(MSG_ERROR, "%s", warn);
	} else if (wd_warn[0]) {
		ui_msg(MSG_ERROR, "%s", wd_warn);
	}
	locale_note(S.note_later, sizeof S.note_later);
	if (S.note_later[0] && !S.msg[0]) {
		ui_msg(MSG_ERROR, "%s", S.note_later);
		S.note_later[0] = '\0';
	}
}

/* A message the channel worker posted goes on the message line. */
static void take_worker_msg(void)
{
	char said[600], line[700];

	if (chanrun_take_msg(said, sizeof said)) {
		snprintf(line, sizeof line, _("channel worker: %s"), said);
		worker_said(MSG_INFO, line);
	}
}

/* Wait for a key, a wake-up from the background or the next tick (at
 * next_tick ms; no wait while there is idle work), then take an interrupt
 * and the worker's message. -1 when poll fails. */
static int loop_wait(double next_tick)
{
	struct pollfd fds[2];
	double now = clock_mono() * 1e3;
	int timeout = next_tick > now ? (int)(next_tick - now) + 1 : 0;

	if (S.idle_more)
		timeout = 0; /* work ahead, but look at the keyboard first */
	fds[0].fd = STDIN_FILENO;
	fds[0].events = POLLIN;
	fds[1].fd = term_wake_read_fd();
	fds[1].events = POLLIN;
	if (poll(fds, fds[1].fd >= 0 ? 2 : 1, timeout) < 0 && errno != EINTR)
		return -1;
	if (fds[1].fd >= 0 && (fds[1].revents & POLLIN))
		term_wake_drain();
	if (term_take_interrupt())
		interrupt();
	take_worker_msg();
	return 0;
}

/* Handle the keys waiting (and KEY_RESIZE after SIGWINCH, which
 * interrupts poll); 1 when there were some. */
static int loop_keys(void)
{
	int key, got = 0;

	while (!S.done && !term_quit_signal() && read_key(&key)) {
		handle_key(key);
		got = 1;
	}
	return got;
}

/* After input or new data there is new work ahead; else the top view's
 * idle work goes on while it says there is more. */
static void loop_idle(int got)
{
	if (got || S.dirty) {
		S.idle_more = 1; /* a new place, or new data: new work ahead */
	} else if (S.idle_more && !S.lay.too_small) {
		struct view *top = S.stack[S.depth - 1];

		S.idle_more = top->ops->idle && !top->stale ? top->ops->idle(top) : 0;
	}
}

/* Stop the background work, free the views, close the terminal (mouse:
 * the config's "mouse"); the screen's exit status. */
static int screen_close(SCREEN *scr, const char *mouse)
{
	int i, status = 0;

	if (term_quit_signal())
		status = 128 + term_quit_signal();
	else if (S.quit_status)
		status = S.quit_status;
	chanrun_stop();
	runner_stop();
	for (i = S.depth; i > 0; i--) {
		struct view *v = S.stack[i - 1];

		v->ops->free(v);
		free(v);
	}
	S.depth = 0;
	delete_windows();
	term_close(scr, strcmp(mouse, "no") != 0);
	state_free();
	log_debug("screen closed (status %d)", status);
	return status;
}

int screen_run(struct db *db, const char *hq_url)
{
	char warn[2048], wd_warn[256] = "";
	double next_tick;
	SCREEN *scr;
	const char *mouse = config_get("mouse", "yes");

	memset(&S, 0, sizeof S);
	S.db = db;
	S.hq = db ? NULL : hq_url;
	statusline_db_changed();
	S.readonly = db ? db_readonly(db) : 1;
	keys_file(warn, sizeof warn);
	first_weekday(wd_warn, sizeof wd_warn);
	S.data_version = db ? db_data_version(db) : 0;
	S.confirm_quit = strcmp(config_get("confirm_quit", "yes"), "no") != 0;
	scr = term_open(strcmp(mouse, "no") != 0);
	if (!scr)
		return 1;
	term_interrupt_asks(S.confirm_quit);
	theme_init();
	wnoutrefresh(stdscr);
	relayout();
	if (S.db && statusline_update(S.db))
		S.dirty = 1;
	push(S.hq ? view_aging_new() : view_calendar_new());
	startup_messages(warn, wd_warn);
	draw_all();
	if (!S.readonly && strcmp(config_get("screen_runner", "yes"), "no") != 0)
		runner_start(db_path(db));
	if (S.db)
		start_channel_worker();
	next_tick = (clock_mono() * 1e3) + TICK_MS;
	S.idle_more = 1; /* the first place shown: its work ahead, after the frame */
	while (!S.done && !term_quit_signal()) {
		double t0;
		int got;

		if (S.dirty)
			draw_all();
		if (loop_wait(next_tick) < 0)
			break;
		t0 = clock_mono() * 1e3;
		got = loop_keys();
		if ((clock_mono() * 1e3) >= next_tick) {
			tick();
			next_tick = (clock_mono() * 1e3) + TICK_MS;
		}
		loop_idle(got);
		if (got && S.dirty) {
			double t1 = clock_mono() * 1e3;

			draw_all();
			log_debug("redraw after input %.3f ms (draw %.3f ms)",
			          (clock_mono() * 1e3) - t0, (clock_mono() * 1e3) - t1);
		}
	}
	return screen_close(scr, mouse);
}
