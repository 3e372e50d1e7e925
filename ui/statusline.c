/*
 * statusline.c - the desk screen's status line (see statusline.h). Its
 * pieces are kept between updates so that an unchanged line is not drawn
 * again; the outbox's dead count and the promises not kept (check_promises:
 * a refund given up or stuck, a card order paying past the give-up horizon)
 * are read only after the database changed, and so is this desk's cash
 * drawer (drawer_current, an indexed read; the expected cash is never
 * shown: the count is blind).
 */
#include <config.h>

#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "backup.h"
#include "chan-poll.h"
#include "checkdb.h"
#include "clock.h"
#include "db.h"
#include "draw.h"
#include "drawer.h"
#include "err.h"
#include "i18n.h"
#include "outbox.h"
#include "recon.h"
#include "runner.h"
#include "settings.h"
#include "statusline-fit.h"
#include "statusline.h"
#include "strbuf.h"
#include "task.h"
#include "theme.h"

static struct {
	char status[1024]; /* the whole line, to notice a change */
	char db[128], channel[160], last_ok[64], events[128], events_short[128], tasks[128],
	    tasks_short[128], runner[96], backup[80], books[128], books_short[128], drawer[96];
	int64_t outbox_dead;  /* read again when the database changed */
	int64_t promises;     /* check_promises: read again when the database changed */
	int64_t dead_letters; /* inbound and outbox */
	int outbox_stale;
	int64_t backup_at; /* the last backup's stamp, read again when the database changed */
	int backup_stale;
	int books_stale;  /* the reconciliation state: read again when the database changed */
	int drawer_stale; /* this desk's drawer: read again when the database changed */
} L = {.outbox_stale = 1, .backup_stale = 1, .books_stale = 1, .drawer_stale = 1};

void statusline_db_changed(void)
{
	L.outbox_stale = 1;
	L.backup_stale = 1;
	L.books_stale = 1;
	L.drawer_stale = 1;
}

int64_t statusline_dead_letters(void)
{
	return L.dead_letters;
}

/* "off", "idle", "polling" or "offline, next try HH:MM:SS" (shop time of
 * the real clock, like the channel's times). */
static void channel_word(const struct chan_summary *ch, char *buf, size_t n)
{
	char t[32];

	switch (chan_summary_state(ch)) {
	case CHAN_RUN_OFF:
		snprintf(buf, n, "%s", _("off"));
		break;
	case CHAN_RUN_IDLE:
		snprintf(buf, n, "%s", _("idle"));
		break;
	case CHAN_RUN_POLLING:
		snprintf(buf, n, "%s", _("polling"));
		break;
	case CHAN_RUN_OFFLINE:
		if (ch->offline_until > 0) {
			clock_format_local(ch->offline_until, "%H:%M:%S", t, sizeof t);
			snprintf(buf, n, _("offline, next try %s"), t);
		} else {
			snprintf(buf, n, "%s", _("offline"));
		}
		break;
	case CHAN_RUN_OTHER:
		snprintf(buf, n, "%s", ch->state);
		break;
	}
}

/* t as "HH:MM" when it is on the day of now (shop time), else with its
 * date. */
static void when_text(int64_t t, int64_t now, char *buf, size_t n)
{
	char day[16], today[16];

	clock_format_local(t, "%Y-%m-%d", day, sizeof day);
	clock_format_local(now, "%Y-%m-%d", today, sizeof today);
	clock_format_local(t, strcmp(day, today) ? "%Y-%m-%d %H:%M" : "%H:%M", buf, n);
}

/* "last ok HH:MM" today (shop time of the real clock), else with the date. */
static void last_ok(int64_t t, char *buf, size_t n)
{
	char when[32];

	buf[0] = '\0';
	if (t <= 0)
		return;
	when_text(t, clock_real(), when, sizeof when);
	snprintf(buf, n, _("last ok %s"), when);
}

/* "last backup HH:MM" today (shop time), else with the date; "no backup
 * yet" when none was ever taken but nightly backups are set up; else "".
 * The stamp is read again only after the database changed (a backup
 * stamps it): not a query on every tick. */
static void last_backup(struct db *db, char *buf, size_t n)
{
	char when[32];

	if (L.backup_stale) {
		if (backup_last(db, &L.backup_at) != 0)
			L.backup_at = 0;
		L.backup_stale = 0;
	}
	buf[0] = '\0';
	if (L.backup_at <= 0) {
		if (config_get("backup_dir", NULL))
			snprintf(buf, n, "%s", _("no backup yet"));
		return;
	}
	when_text(L.backup_at, clock_now(), when, sizeof when);
	snprintf(buf, n, _("last backup %s"), when);
}

static int any_batch(const struct recon_batch *b, void *arg)
{
	(void)b;
	*(int *)arg = 1;
	return 1;
}

/* The books: "books: last balanced 2026-11-30, 2 open" (short: "books: 2
 * open"), only once reconciliation has ever run (a shop that never
 * reconciles sees nothing). Read again only after the database changed. */
static void books(struct db *db)
{
	struct recon_state st;
	int ran = 0;

	if (!L.books_stale)
		return;
	L.books_stale = 0;
	L.books[0] = L.books_short[0] = '\0';
	if (recon_batch_list(db, NULL, NULL, 1, any_batch, &ran) < 0 || !ran ||
	    recon_day_state(db, NULL, &st) != 0)
		return;
	if (st.open > 0 && st.last_balanced[0])
		snprintf(L.books, sizeof L.books, _("books: last balanced %1$s, %2$lld open"),
		         st.last_balanced, (long long)st.open);
	else if (st.open > 0)
		snprintf(L.books, sizeof L.books, _("books: %lld open"), (long long)st.open);
	else if (st.last_balanced[0])
		snprintf(L.books, sizeof L.books, _("books: last balanced %s"), st.last_balanced);
	else
		snprintf(L.books, sizeof L.books, "%s", _("books: not balanced"));
	if (st.open > 0)
		snprintf(L.books_short, sizeof L.books_short, _("books: %lld open"),
		         (long long)st.open);
	else
		snprintf(L.books_short, sizeof L.books_short, "%s", L.books);
}

static int any_drawer(const struct drawer *d, void *arg)
{
	(void)d;
	*(int *)arg = 1;
	return 1;
}

/* This desk's cash drawer: "Drawer front open" when the drawer cash of
 * this process goes to is open (drawer_current); "Drawer: several open,
 * set --desk" when several desks have theirs open and none is this one's;
 * "Drawer front not open" when the desk named (--desk, FRONTDESK_DESK) has
 * none open while others do; nothing when no drawer is open at all (a shop
 * that does not count drawers sees nothing). Read again only after the
 * database changed. */
static void drawer_piece(struct db *db)
{
	struct drawer d;
	int rc, any = 0;

	if (!L.drawer_stale)
		return;
	L.drawer_stale = 0;
	L.drawer[0] = '\0';
	memset(&d, 0, sizeof d);
	rc = drawer_current(db, NULL, &d);
	if (rc == 0) {
		snprintf(L.drawer, sizeof L.drawer, _("Drawer %s open"), d.desk);
		drawer_free(&d);
	} else if (rc == FD_ECONFLICT) {
		snprintf(L.drawer, sizeof L.drawer, "%s", _("Drawer: several open, set --desk"));
	} else if (rc == FD_ENOTFOUND && drawer_desk()) {
		drawer_list(db, 0, 0, 1, any_drawer, &any);
		if (any)
			snprintf(L.drawer, sizeof L.drawer, _("Drawer %s not open"), drawer_desk());
	}
	err_clear(); /* a refusal here is shown as the piece, not as a message */
}

/* The counts of events (tasks = 0) or background tasks in full, zeros included
 * (but parked, shown only when there are some), and short, zeros left out (""
 * when all are zero). */
static void counts(int tasks, int64_t pending, int64_t parked, int64_t dead, char *full, char *shrt,
                   size_t n)
{
	long long p = (long long)pending, k = (long long)parked, d = (long long)dead;
	char pk[64] = "";

	if (parked)
		snprintf(pk, sizeof pk, _("%lld parked, "), k);
	if (tasks)
		snprintf(full, n, _("tasks: %1$lld pending, %2$lld dead"), p, d);
	else
		snprintf(full, n, _("events: %1$lld pending, %2$s%3$lld dead"), p, pk, d);
	if (pending && dead)
		snprintf(shrt, n, "%s", full);
	else if (pending || parked || dead) {
		struct strbuf sb = {0};

		sb_puts(&sb, tasks ? _("tasks: ") : _("events: "));
		if (pending)
			sb_printf(&sb, _("%lld pending"), p);
		if (parked)
			sb_printf(&sb, _("%1$s%2$lld parked"), pending ? ", " : "", k);
		if (dead)
			sb_printf(&sb, _("%1$s%2$lld dead"), pending || parked ? ", " : "", d);
		snprintf(shrt, n, "%s", sb_cstr(&sb));
		sb_free(&sb);
	} else
		shrt[0] = '\0';
}

/* check_promises' report: only counted here. */
static void count_one(const char *code, const char *detail, void *arg)
{
	(void)code;
	(void)detail;
	(void)arg;
}

/* Read what the status line shows: on every tick (cheap, indexed reads),
 * the outbox's dead count and the backup stamp only when the database
 * changed. */
int statusline_update(struct db *db)
{
	struct chan_summary ch;
	int64_t pending = 0, dead = 0, ev_dead;
	char runner[64], word[96], buf[1024];
	const char *path = db_path(db), *base = strrchr(path, '/');

	task_count(db, NULL, "pending", &pending);
	task_count(db, NULL, "dead", &dead);
	runner_state(runner, sizeof runner);
	if (chan_summary_read(db, &ch) != 0)
		memset(&ch, 0, sizeof ch); /* shown as off */
	if (L.outbox_stale && outbox_dead_count(db, &L.outbox_dead) == 0) {
		int n = check_promises(db, count_one, NULL);

		L.promises = n > 0 ? n : 0;
		L.outbox_stale = 0;
	}
	snprintf(L.db, sizeof L.db, "%s", base ? base + 1 : path);
	channel_word(&ch, word, sizeof word);
	if (ch.failing > 0)
		/* a provider failing for long (chan_summary_read): a marker in words */
		snprintf(L.channel, sizeof L.channel, _("channel: %1$s, %2$s FAILING"), word,
		         ch.failing_code);
	else
		snprintf(L.channel, sizeof L.channel, _("channel: %s"), word);
	if (L.promises > 0) {
		/* a refund given up or stuck, an order paying too long: in words */
		size_t len = strlen(L.channel);

		snprintf(L.channel + len, sizeof L.channel - len, _(", %lld NOT KEPT (see check)"),
		         (long long)L.promises);
	}
	last_ok(ch.configured ? ch.last_success_at : 0, L.last_ok, sizeof L.last_ok);
	ev_dead = ch.inbox_dead + L.outbox_dead;
	L.dead_letters = ev_dead;
	if (ch.configured || ch.inbox_pending || ch.inbox_parked || ev_dead)
		counts(0, ch.inbox_pending, ch.inbox_parked, ev_dead, L.events, L.events_short,
		       sizeof L.events);
	else
		L.events[0] = L.events_short[0] = '\0';
	counts(1, pending, 0, dead, L.tasks, L.tasks_short, sizeof L.tasks);
	snprintf(L.runner, sizeof L.runner, _("runner: %s"), runner);
	last_backup(db, L.backup, sizeof L.backup);
	books(db);
	drawer_piece(db);
	snprintf(buf, sizeof buf, "%s|%s|%s|%s|%s|%s|%s|%s|%s", L.db, L.channel, L.last_ok,
	         L.events, L.tasks, L.runner, L.backup, L.books, L.drawer);
	if (strcmp(buf, L.status) == 0)
		return 0;
	snprintf(L.status, sizeof L.status, "%s", buf);
	return 1;
}

void statusline_draw(WINDOW *w, int cols)
{
	struct status_parts p = {L.db,           db_operator(), L.channel,     L.last_ok, L.events,
	                         L.events_short, L.tasks,       L.tasks_short, L.runner,  L.backup,
	                         L.books,        L.books_short, L.drawer};
	char line[1024];

	status_compose(&p, cols, line, sizeof line);
	werase(w);
	draw_text(w, 0, 0, cols, line, theme_attr(R_BAR), AL_LEFT | AL_PAD);
}
