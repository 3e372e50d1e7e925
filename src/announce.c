/*
 * announce.c - the listeners of the record owners' announcements (see
 * announce.h). The table is filled once, before the process starts any
 * thread, and only read afterwards.
 *
 * Permissions: listeners run inside the action that announces and ask
 * nothing of their own.
 */
#include <config.h>

#include <stddef.h>

#include "announce.h"
#include "err.h"
#include "i18n.h"

#define LISTENERS_MAX 8

static announce_fn listeners[ANNOUNCE_KINDS][LISTENERS_MAX];
static int ready;

int announce_listen(enum announce_kind kind, announce_fn fn)
{
	size_t i;

	if ((unsigned)kind >= ANNOUNCE_KINDS || !fn)
		return err_set(FD_EINVAL, "announce_listen: no such kind or no listener");
	for (i = 0; i < LISTENERS_MAX && listeners[kind][i]; i++)
		if (listeners[kind][i] == fn)
			return 0;
	if (i == LISTENERS_MAX)
		return err_set(FD_EINVAL, "announce_listen: too many listeners");
	listeners[kind][i] = fn;
	return 0;
}

void announce_ready(int yes)
{
	ready = yes;
}

int announce(struct db *db, const struct announcement *a)
{
	size_t i;
	int rc;

	if (!ready)
		return err_set(FD_EINVAL,
		               _("this program changes records without telling the "
		                 "integrations that follow them (core_wire was not called)"));
	if ((unsigned)a->kind >= ANNOUNCE_KINDS)
		return err_set(FD_EINVAL, "announce: no such kind");
	for (i = 0; i < LISTENERS_MAX && listeners[a->kind][i]; i++)
		if ((rc = listeners[a->kind][i](db, a)) != 0)
			return rc;
	return 0;
}
