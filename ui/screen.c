/*
 * screen.c - the desk screen's main loop: terminal set-up and restore, the
 * view stack, input dispatch through the action table, the frame (title,
 * message, status and key-hint lines), live refresh and signals.
 *
 * Invariants:
 *  - Only this thread calls curses. The job runner thread (runner.c) and
 *    the channel worker thread (chanrun.c) have their own connections and
 *    are noticed through PRAGMA data_version; what the channel worker says
 *    reaches this thread through chanrun_take_msg (copied under a mutex,
 *    with a byte on the self-pipe to wake the loop).
 *  - The loop poll()s stdin and a self-pipe (signals write to it) with a
 *    timeout that ends at the next one-second tick; on each tick it checks
 *    db_data_version and re-reads only what the top view shows. While no
 *    key waits, the top view may work ahead (view_ops.idle: the calendar
 *    reads the neighbouring month), one piece per turn of the loop.
 *  - Each frame is drawn into windows and sent with wnoutrefresh and ONE
 *    doupdate. Nothing is done inside a signal handler but setting a flag
 *    and writing a byte, except for crash signals, which write the
 *    terminal's reset sequence (prepared beforehand) and re-raise.
 *  - The terminal is restored on every way out: quit, Ctrl-C / SIGTERM /
 *    SIGHUP (the loop ends and calls endwin), a crash signal (reset
 *    sequence and the saved termios), an allocation failure (xalloc hook).
 */
#include <config.h>

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../src/config.h"
#include "action.h"
#include "backup.h"
#include "cal.h"
#include "chanrun.h"
#include "clock.h"
#include "db.h"
#include "desk.h"
#include "draw.h"
#include "err.h"
#include "i18n.h"
#include "jobq.h"
#include "layout.h"
#include "log.h"
#include "runner.h"
#include "screen.h"
#include "state.h"
#include "status.h"
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
	struct db *db;
	int readonly;
	struct view *stack[MAX_VIEWS];
	int depth;
	struct layout lay;
	int rows, cols;
	WINDOW *wtitle, *wbody, *wmsg, *wstatus, *whint;
	char msg[1024];
	enum msg_level msg_level;
	int msg_new; /* set during the current key: keep it on screen */
	int64_t data_version;
	char status[1024]; /* the whole status line, to notice a change */
	/* its pieces (status.h), fitted to the width when drawn */
	char st_db[128], st_channel[160], st_last_ok[64], st_events[128], st_events_short[128],
	    st_jobs[128], st_jobs_short[128], st_runner[96], st_backup[80];
	int64_t outbox_dead;  /* read again when the database changed */
	int64_t dead_letters; /* inbound and outbox: the hint bar offers the key */
	int outbox_stale;
	char worker_msg[700]; /* what the channel worker said, waiting for the line */
	enum msg_level worker_level;
	int msg_worker;          /* the message line shows what the worker said */
	double msg_worker_until; /* then, when an information of it goes away */
	int first_wday;
	int dirty;
	int done;
	int pipefd[2];
	int frames;
	int idle_more; /* the top view may have work to do ahead */
	char crash_seq[256];
	size_t crash_len;
	struct termios saved_tio;
	int have_tio;
} S;

static volatile sig_atomic_t quit_signal;

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

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

int ui_first_weekday(void)
{
	return S.first_wday;
}

void ui_invalidate_all(void)
{
	int i;

	for (i = 0; i < S.depth; i++)
		S.stack[i]->stale = 1;
	S.dirty = 1;
}

/* ---------------------------------------------------------------- signals */

static void on_quit_signal(int sig)
{
	int saved = errno;

	quit_signal = sig;
	if (S.pipefd[1] >= 0 && write(S.pipefd[1], "q", 1) < 0) {
		/* the pipe is full: the loop wakes up anyway */
	}
	errno = saved;
}

static void on_crash(int sig)
{
	/* async-signal-safe only: write, tcsetattr, signal, raise */
	if (S.crash_len && write(STDOUT_FILENO, S.crash_seq, S.crash_len) < 0) {
		/* nothing more can be done */
	}
	if (S.have_tio)
		tcsetattr(STDIN_FILENO, TCSANOW, &S.saved_tio);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void add_seq(const char *cap)
{
	char *s = tigetstr((char *)cap);
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (S.crash_len + n < sizeof S.crash_seq) {
		memcpy(S.crash_seq + S.crash_len, s, n);
		S.crash_len += n;
	}
}

static void install_signals(void)
{
	struct sigaction sa;
	static const int quit_sigs[] = {SIGINT, SIGTERM, SIGHUP};
	static const int crash_sigs[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
	size_t i;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_quit_signal; /* no SA_RESTART: poll() returns at once */
	for (i = 0; i < sizeof quit_sigs / sizeof quit_sigs[0]; i++)
		sigaction(quit_sigs[i], &sa, NULL);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	for (i = 0; i < sizeof crash_sigs / sizeof crash_sigs[0]; i++)
		sigaction(crash_sigs[i], &sa, NULL);
}

static void restore_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGSEGV,
	                           SIGBUS, SIGABRT, SIGFPE, SIGILL};
	size_t i;

	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_DFL);
}

static void fatal_hook(void)
{
	if (!isendwin())
		endwin();
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
	snprintf(buf, sizeof buf, "frontdesk");
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
	/* never colour alone: a refusal starts with "!" */
	snprintf(buf, sizeof buf, "%s%s", S.msg_level == MSG_ERROR && S.msg[0] != '!' ? "! " : "",
	         S.msg);
	draw_text(S.wmsg, 0, 0, S.cols, buf, theme_attr(r), AL_LEFT);
}

/* "off", "idle", "polling" or "offline, next try HH:MM:SS" (shop time of
 * the real clock, like the channel's times). */
static void channel_word(const struct desk_channel *ch, char *buf, size_t n)
{
	char t[32];

	if (!ch->configured || !ch->worker || !strcmp(ch->state, "off")) {
		snprintf(buf, n, "%s", _("off"));
	} else if (!strcmp(ch->state, "idle")) {
		snprintf(buf, n, "%s", _("idle"));
	} else if (!strcmp(ch->state, "polling")) {
		snprintf(buf, n, "%s", _("polling"));
	} else if (!strcmp(ch->state, "offline") && ch->offline_until > 0) {
		clock_format_local(ch->offline_until, "%H:%M:%S", t, sizeof t);
		snprintf(buf, n, _("offline, next try %s"), t);
	} else if (!strcmp(ch->state, "offline")) {
		snprintf(buf, n, "%s", _("offline"));
	} else {
		snprintf(buf, n, "%s", ch->state);
	}
}

/* "last ok HH:MM" today (shop time of the real clock), else with the date. */
static void last_ok(int64_t t, char *buf, size_t n)
{
	char day[16], today[16], when[32];

	buf[0] = '\0';
	if (t <= 0)
		return;
	clock_format_local(t, "%Y-%m-%d", day, sizeof day);
	clock_format_local((int64_t)time(NULL), "%Y-%m-%d", today, sizeof today);
	clock_format_local(t, strcmp(day, today) ? "%Y-%m-%d %H:%M" : "%H:%M", when, sizeof when);
	snprintf(buf, n, _("last ok %s"), when);
}

/* "last backup HH:MM" today (shop time), else with the date; "no backup
 * yet" when none was ever taken but nightly backups are set up; else "". */
static void last_backup(char *buf, size_t n)
{
	char day[16], today[16], when[32];
	int64_t t = 0;

	buf[0] = '\0';
	if (backup_last(S.db, &t) != 0 || t <= 0) {
		if (config_get("backup_dir", NULL))
			snprintf(buf, n, "%s", _("no backup yet"));
		return;
	}
	clock_format_local(t, "%Y-%m-%d", day, sizeof day);
	clock_format_local(clock_now(), "%Y-%m-%d", today, sizeof today);
	clock_format_local(t, strcmp(day, today) ? "%Y-%m-%d %H:%M" : "%H:%M", when, sizeof when);
	snprintf(buf, n, _("last backup %s"), when);
}

/* The counts of events (jobs = 0) or jobs in full, zeros included, and
 * short, zeros left out ("" when both are zero). */
static void counts(int jobs, int64_t pending, int64_t dead, char *full, char *shrt, size_t n)
{
	long long p = (long long)pending, d = (long long)dead;

	if (jobs)
		snprintf(full, n, _("tasks: %1$lld pending, %2$lld dead"), p, d);
	else
		snprintf(full, n, _("events: %1$lld pending, %2$lld dead"), p, d);
	if (pending && dead)
		snprintf(shrt, n, "%s", full);
	else if (pending)
		snprintf(shrt, n, jobs ? _("tasks: %lld pending") : _("events: %lld pending"), p);
	else if (dead)
		snprintf(shrt, n, jobs ? _("tasks: %lld dead") : _("events: %lld dead"), d);
	else
		shrt[0] = '\0';
}

/* Read what the status line shows: on every tick (cheap, indexed reads),
 * and the outbox's dead count only when the database changed. */
static void update_status(void)
{
	struct desk_channel ch;
	int64_t pending = 0, dead = 0, ev_dead;
	char runner[64], word[96], buf[1024];
	const char *path = db_path(S.db), *base = strrchr(path, '/');

	jobq_count(S.db, NULL, "pending", &pending);
	jobq_count(S.db, NULL, "dead", &dead);
	runner_state(runner, sizeof runner);
	if (desk_channel_read(S.db, &ch) != 0)
		memset(&ch, 0, sizeof ch); /* shown as off */
	if (S.outbox_stale && desk_outbox_dead(S.db, &S.outbox_dead) == 0)
		S.outbox_stale = 0;
	snprintf(S.st_db, sizeof S.st_db, "%s", base ? base + 1 : path);
	channel_word(&ch, word, sizeof word);
	snprintf(S.st_channel, sizeof S.st_channel, _("channel: %s"), word);
	last_ok(ch.configured ? ch.last_success_at : 0, S.st_last_ok, sizeof S.st_last_ok);
	ev_dead = ch.inbox_dead + S.outbox_dead;
	S.dead_letters = ev_dead;
	if (ch.configured || ch.inbox_pending || ev_dead)
		counts(0, ch.inbox_pending, ev_dead, S.st_events, S.st_events_short,
		       sizeof S.st_events);
	else
		S.st_events[0] = S.st_events_short[0] = '\0';
	counts(1, pending, dead, S.st_jobs, S.st_jobs_short, sizeof S.st_jobs);
	snprintf(S.st_runner, sizeof S.st_runner, _("runner: %s"), runner);
	last_backup(S.st_backup, sizeof S.st_backup);
	snprintf(buf, sizeof buf, "%s|%s|%s|%s|%s|%s|%s", S.st_db, S.st_channel, S.st_last_ok,
	         S.st_events, S.st_jobs, S.st_runner, S.st_backup);
	if (strcmp(buf, S.status) != 0) {
		snprintf(S.status, sizeof S.status, "%s", buf);
		S.dirty = 1;
	}
}

static void draw_status(void)
{
	struct status_parts p = {S.st_db,      db_operator(),   S.st_channel,
	                         S.st_last_ok, S.st_events,     S.st_events_short,
	                         S.st_jobs,    S.st_jobs_short, S.st_runner,
	                         S.st_backup};
	char line[1024];

	status_compose(&p, S.cols, line, sizeof line);
	werase(S.wstatus);
	draw_text(S.wstatus, 0, 0, S.cols, line, theme_attr(R_BAR), AL_LEFT | AL_PAD);
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
	S.msg_worker_until = S.worker_level == MSG_ERROR ? 0 : mono_ms() + WORKER_MSG_MS;
	S.worker_msg[0] = '\0';
}

/* One hint: the first key of a, then its label. */
static int draw_hint(int x, enum action a)
{
	const struct action_def *d = action_def(a);
	char kn[32];
	int key = keymap_first_key(a), w;

	if (!d || !d->hint || key < 0 || x >= S.cols)
		return x;
	keyc_name(key, kn, sizeof kn);
	w = tw_width(kn) + tw_width(_(d->hint)) + 1;
	if (x + w > S.cols)
		return S.cols;
	x += draw_text(S.whint, 0, x, S.cols - x, kn, theme_attr(R_KEY), AL_LEFT);
	x += 1;
	x += draw_text(S.whint, 0, x, S.cols - x, _(d->hint), theme_attr(R_BAR), AL_LEFT);
	return x + 2;
}

static void draw_hints(struct view *top)
{
	static const enum action globals[] = {ACT_SEARCH, ACT_BACK, ACT_QUIT, ACT_NONE};
	const enum action *a;
	int x = 0;

	werase(S.whint);
	draw_fill(S.whint, 0, 0, S.cols, theme_attr(R_BAR));
	if (!(top->ops->ctx & CTX_FORM))
		x = draw_hint(x, ACT_HELP);
	for (a = top->ops->hints; a && *a != ACT_NONE; a++)
		x = draw_hint(x, *a);
	if (top->ops->ctx & CTX_FORM)
		return;
	if (S.dead_letters > 0 && !(top->ops->ctx & CTX_DEAD))
		x = draw_hint(x, ACT_DEAD_LETTERS);
	for (a = globals; *a != ACT_NONE; a++)
		x = draw_hint(x, *a);
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
	draw_status();
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
		S.done = 1;
		break;
	default:
		break;
	}
}

/* ---------------------------------------------------------------- input */

static void global_action(const struct ui_event *ev)
{
	switch (ev->action) {
	case ACT_QUIT:
		S.done = 1;
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
			S.done = 1;
		break;
	case ACT_REDRAW:
		clearok(curscr, TRUE);
		S.dirty = 1;
		break;
	case ACT_SEARCH:
		push(view_search_new());
		break;
	case ACT_DEAD_LETTERS:
		push(view_dead_new());
		break;
	default:
		break;
	}
}

static void handle_key(int key)
{
	struct view *top = S.stack[S.depth - 1];
	struct ui_event ev = {ACT_NONE, key, 0, 0};
	struct ui_next n;

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
	int64_t v = db_data_version(S.db);

	if (v != S.data_version) {
		S.data_version = v;
		log_debug("data_version changed: reloading what is shown");
		ui_invalidate_all();
		S.outbox_stale = 1;
	}
	update_status();
	if (S.msg[0] && S.msg_worker && S.msg_worker_until > 0 && mono_ms() >= S.msg_worker_until) {
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
	keymap_load(path, warn, n);
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
	struct desk_channel ch;
	char why[1024];

	if (S.readonly || strcmp(config_get("screen_channel", "yes"), "no") == 0)
		return;
	if (desk_channel_read(S.db, &ch) != 0 || !ch.configured)
		return;
	if (chanrun_start(db_path(S.db), S.pipefd[1]) == 0)
		return;
	snprintf(why, sizeof why, _("channel worker not started: %s"), err_msg());
	log_debug("%s", why);
	worker_said(MSG_ERROR, why);
}

int screen_run(struct db *db)
{
	char warn[2048], wd_warn[256] = "";
	struct pollfd fds[2];
	double next_tick;
	SCREEN *scr;
	int i, status = 0;
	const char *mouse = config_get("mouse", "yes");

	memset(&S, 0, sizeof S);
	S.db = db;
	S.outbox_stale = 1;
	S.pipefd[0] = S.pipefd[1] = -1;
	S.readonly = desk_readonly(db);
	keys_file(warn, sizeof warn);
	first_weekday(wd_warn, sizeof wd_warn);
	S.data_version = db_data_version(db);
	if (pipe(S.pipefd) == 0) {
		fcntl(S.pipefd[0], F_SETFL, O_NONBLOCK);
		fcntl(S.pipefd[1], F_SETFL, O_NONBLOCK);
	}
	S.have_tio = tcgetattr(STDIN_FILENO, &S.saved_tio) == 0;
	install_signals();
	if (!getenv("ESCDELAY"))
		set_escdelay(25);
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		restore_signals();
		fprintf(stderr, _("frontdesk: cannot use the terminal (TERM=%s)\n"),
		        getenv("TERM") ? getenv("TERM") : "");
		return 1;
	}
	xalloc_set_fatal_hook(fatal_hook);
	cbreak();
	noecho();
	nonl();
	curs_set(0);
	theme_init();
	if (strcmp(mouse, "no") != 0) {
		/* the release too: ncurses waits for the next input after an event
		 * outside the mask, which would freeze the loop after each click */
		mousemask(BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON1_CLICKED, NULL);
		mouseinterval(0);
	}
	/* what a crash writes to give the terminal back */
	add_seq("sgr0");
	add_seq("cnorm");
	add_seq("rmkx");
	if (strcmp(mouse, "no") != 0) {
		static const char off[] = "\033[?1000l\033[?1002l\033[?1006l";

		if (S.crash_len + sizeof off < sizeof S.crash_seq) {
			memcpy(S.crash_seq + S.crash_len, off, sizeof off - 1);
			S.crash_len += sizeof off - 1;
		}
	}
	add_seq("rmcup");
	wnoutrefresh(stdscr);
	relayout();
	update_status();
	push(view_calendar_new());
	if (warn[0]) {
		char *nl = strchr(warn, '\n');

		if (nl)
			*nl = '\0';
		ui_msg(MSG_ERROR, "%s", warn);
	} else if (wd_warn[0]) {
		ui_msg(MSG_ERROR, "%s", wd_warn);
	}
	draw_all();
	if (!S.readonly && strcmp(config_get("screen_runner", "yes"), "no") != 0)
		runner_start(db_path(db));
	start_channel_worker();
	next_tick = mono_ms() + TICK_MS;
	while (!S.done && !quit_signal) {
		double now, t0;
		int timeout, key, got = 0;

		if (S.dirty)
			draw_all();
		now = mono_ms();
		timeout = next_tick > now ? (int)(next_tick - now) + 1 : 0;
		if (S.idle_more)
			timeout = 0; /* work ahead, but look at the keyboard first */
		fds[0].fd = STDIN_FILENO;
		fds[0].events = POLLIN;
		fds[1].fd = S.pipefd[0];
		fds[1].events = POLLIN;
		if (poll(fds, S.pipefd[0] >= 0 ? 2 : 1, timeout) < 0 && errno != EINTR)
			break;
		if (S.pipefd[0] >= 0 && (fds[1].revents & POLLIN)) {
			char drain[64];

			while (read(S.pipefd[0], drain, sizeof drain) > 0)
				;
		}
		{
			char said[600], line[700];

			if (chanrun_take_msg(said, sizeof said)) {
				snprintf(line, sizeof line, _("channel worker: %s"), said);
				worker_said(MSG_INFO, line);
			}
		}
		t0 = mono_ms();
		/* keys (and KEY_RESIZE after SIGWINCH, which interrupts poll) */
		while (!S.done && !quit_signal && read_key(&key)) {
			handle_key(key);
			got = 1;
		}
		if (mono_ms() >= next_tick) {
			tick();
			next_tick = mono_ms() + TICK_MS;
		}
		if (got || S.dirty) {
			S.idle_more = 1; /* a new place, or new data: new work ahead */
		} else if (S.idle_more && !S.lay.too_small) {
			struct view *top = S.stack[S.depth - 1];

			S.idle_more = top->ops->idle && !top->stale ? top->ops->idle(top) : 0;
		}
		if (got && S.dirty) {
			double t1 = mono_ms();

			draw_all();
			log_debug("redraw after input %.3f ms (draw %.3f ms)", mono_ms() - t0,
			          mono_ms() - t1);
		}
	}
	if (quit_signal)
		status = 128 + quit_signal;
	chanrun_stop();
	runner_stop();
	for (i = S.depth; i > 0; i--) {
		struct view *v = S.stack[i - 1];

		v->ops->free(v);
		free(v);
	}
	S.depth = 0;
	delete_windows();
	if (strcmp(mouse, "no") != 0)
		mousemask(0, NULL);
	endwin();
	delscreen(scr);
	xalloc_set_fatal_hook(NULL);
	restore_signals();
	if (S.pipefd[0] >= 0) {
		close(S.pipefd[0]);
		close(S.pipefd[1]);
	}
	state_free();
	log_debug("screen closed (status %d)", status);
	return status;
}
