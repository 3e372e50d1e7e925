/*
 * states.h - a record's states as an enum, each stored word read in one
 * place, and its legal moves as one table in its owning module, which the
 * schema's status_transition rows (enforced by triggers) mirror.
 *
 * An owner declares `enum x_state { X_A, X_B, ..., X_STATES }`, the stored
 * word of each (words[X_A] = "a"), its moves as pairs of those enums, and a
 * `const struct states` naming them; it reads a stored word with
 * states_of, writes one with states_word, and asks states_may_move before a
 * move. `frontdesk check` and the tests run states_agree on every machine
 * (checkdb.c lists them), so the code and the triggers cannot drift apart.
 */
#ifndef FD_STATES_H
#define FD_STATES_H

#include <stddef.h>

struct db;
struct strbuf;

/* One legal move, from state `from` to state `to` (an owner's enum). */
struct state_move {
	int from, to;
};

struct states {
	const char *entity;             /* status_transition.entity */
	const char *const *words;       /* words[s]: the stored word of state s */
	size_t n;                       /* how many states: the enum's last value */
	const struct state_move *moves; /* every legal move, ending with {-1, -1} */
};

/* states_of - the state that stored word names: m->n when it is none of
 * them (or NULL). */
int states_of(const struct states *m, const char *word);

/* states_word - the stored word of state s; "" when s is not one of m's. */
const char *states_word(const struct states *m, int s);

/* states_may_move - 1 when m's moves hold from -> to, else 0. */
int states_may_move(const struct states *m, int from, int to);

/* states_next - append to out the words of every state m may move to from
 * `from`, separated by ", "; the number of them (0: from is final). */
size_t states_next(const struct states *m, int from, struct strbuf *out);

/* states_agree - 0 when m's moves are exactly the schema's rows of
 * status_transition for m->entity; FD_ECONFLICT naming a move only one of
 * them has; a database failure said. */
int states_agree(struct db *db, const struct states *m);

#endif
