/*
 * statusline-fit.c - the status line's fitting (see statusline-fit.h).
 *
 * Invariant: each level of shortening keeps everything the next level
 * keeps, so a wider terminal never shows less than a narrower one.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "statusline-fit.h"
#include "tw.h"

enum {
	CUT_RUNNER = 1,  /* level 1: no runner */
	CUT_OPER,        /* level 2: no operator */
	CUT_LAST_OK,     /* level 3: no last success */
	CUT_DB,          /* level 4: no database name */
	CUT_BACKUP,      /* level 5: no last backup */
	CUT_TASKS_ZERO,  /* level 6: tasks without zero counts */
	CUT_EVENTS_ZERO, /* level 7: events without zero counts */
	CUT_TASKS,       /* level 8: no tasks */
	CUT_DRAWER,      /* level 9: no cash drawer */
	CUT_LEVELS
};

static int has(const char *s)
{
	return s && *s;
}

static void add(char *out, size_t n, const char *sep, const char *s)
{
	size_t len = strlen(out);

	if (!has(s) || len + 1 >= n)
		return;
	snprintf(out + len, n - len, "%s%s", len ? sep : "", s);
}

static void compose_level(const struct status_parts *p, int level, char *out, size_t n)
{
	out[0] = '\0';
	if (level < CUT_DB)
		add(out, n, " | ", p->db);
	if (level < CUT_OPER)
		add(out, n, " | ", p->oper);
	if (has(p->channel)) {
		add(out, n, " | ", p->channel);
		if (level < CUT_LAST_OK)
			add(out, n, ", ", p->last_ok);
	}
	add(out, n, " | ", level < CUT_EVENTS_ZERO ? p->events : p->events_short);
	add(out, n, " | ",
	    level < CUT_EVENTS_ZERO || !has(p->books_short) ? p->books : p->books_short);
	if (level < CUT_DRAWER)
		add(out, n, " | ", p->drawer);
	if (level < CUT_TASKS)
		add(out, n, " | ", level < CUT_TASKS_ZERO ? p->tasks : p->tasks_short);
	if (level < CUT_BACKUP)
		add(out, n, " | ", p->backup);
	if (level < CUT_RUNNER)
		add(out, n, " | ", p->runner);
}

int status_compose(const struct status_parts *p, int cols, char *out, size_t n)
{
	int level, w = 0;

	if (!n)
		return 0;
	for (level = 0; level < CUT_LEVELS; level++) {
		compose_level(p, level, out, n);
		w = tw_width(out);
		if (w <= cols)
			break;
	}
	return w;
}
