/*
 * states.c - reading, writing and checking a record's states (see
 * states.h). Below every owner: it knows no record, only the tables they
 * hand it.
 */
#include <config.h>

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "err.h"
#include "i18n.h"
#include "states.h"
#include "strbuf.h"
#include "words.h"
#include "xalloc.h"

int states_of(const struct states *m, const char *word)
{
	return (int)words_index(m->words, m->n, word);
}

const char *states_word(const struct states *m, int s)
{
	if (s < 0 || (size_t)s >= m->n || !m->words[s])
		return "";
	return m->words[s];
}

int states_may_move(const struct states *m, int from, int to)
{
	const struct state_move *mv;

	for (mv = m->moves; mv->from >= 0; mv++)
		if (mv->from == from && mv->to == to)
			return 1;
	return 0;
}

size_t states_next(const struct states *m, int from, struct strbuf *out)
{
	const struct state_move *mv;
	size_t k = 0;

	for (mv = m->moves; mv->from >= 0; mv++)
		if (mv->from == from)
			sb_printf(out, "%s%s", k++ ? ", " : "", states_word(m, mv->to));
	return k;
}

/* FD_ECONFLICT: the move from -> to is on one side only. */
static int disagree(const struct states *m, const char *from, const char *to, int in_code)
{
	return err_set(FD_ECONFLICT,
	               in_code ? _("the moves of %s differ: the code allows %s -> %s, the schema "
	                           "does not")
	                       : _("the moves of %s differ: the schema allows %s -> %s, the code "
	                           "does not"),
	               m->entity, from, to);
}

int states_agree(struct db *db, const struct states *m)
{
	sqlite3_stmt *st;
	size_t nmoves = 0, i;
	unsigned char *seen;
	int rc, step = SQLITE_DONE;

	while (m->moves[nmoves].from >= 0)
		nmoves++;
	rc = db_prepare(
	    db, "SELECT from_status, to_status FROM status_transition WHERE entity = ?1", &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, m->entity, -1, SQLITE_STATIC);
	seen = xcalloc(nmoves + 1, 1);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *from = (const char *)sqlite3_column_text(st, 0);
		const char *to = (const char *)sqlite3_column_text(st, 1);
		int f = states_of(m, from), t = states_of(m, to);

		for (i = 0; i < nmoves; i++)
			if (m->moves[i].from == f && m->moves[i].to == t)
				break;
		if (i == nmoves)
			rc = disagree(m, from ? from : "", to ? to : "", 0);
		else
			seen[i] = 1;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the status rules"));
	sqlite3_finalize(st);
	for (i = 0; !rc && i < nmoves; i++)
		if (!seen[i])
			rc = disagree(m, states_word(m, m->moves[i].from),
			              states_word(m, m->moves[i].to), 1);
	free(seen);
	return rc;
}
