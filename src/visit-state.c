/*
 * visit-state.c - a visit's states: the stored word of each, its legal
 * moves (the schema's status_transition rows for 'appointment' mirror them:
 * states_agree) and the questions asked of a status (see visit.h). Apart
 * from visit.c, which makes the moves, so that capacity.c, which visit.c
 * calls to hold resources, can ask them too without a circle of calls.
 */
#include <config.h>

#include "states.h"
#include "visit.h"

/* The stored word of each state, once. */
static const char *const visit_words[VISIT_STATES] = {
    [VISIT_SCHEDULED] = "scheduled",     [VISIT_CONFIRMED] = "confirmed",
    [VISIT_IN_PROGRESS] = "in_progress", [VISIT_DONE] = "done",
    [VISIT_CANCELLED] = "cancelled",     [VISIT_NO_SHOW] = "no_show",
};

/* Every legal move (status_transition's rows for 'appointment'); the moves
 * from one state are in the alphabetical order of the word they go to, the
 * order a refusal lists them in. */
static const struct state_move visit_moves[] = {
    {VISIT_SCHEDULED, VISIT_CANCELLED},   {VISIT_SCHEDULED, VISIT_CONFIRMED},
    {VISIT_SCHEDULED, VISIT_IN_PROGRESS}, {VISIT_SCHEDULED, VISIT_NO_SHOW},
    {VISIT_CONFIRMED, VISIT_CANCELLED},   {VISIT_CONFIRMED, VISIT_IN_PROGRESS},
    {VISIT_CONFIRMED, VISIT_NO_SHOW},     {VISIT_CONFIRMED, VISIT_SCHEDULED},
    {VISIT_IN_PROGRESS, VISIT_DONE},      {-1, -1},
};

const struct states visit_states = {"appointment", visit_words, VISIT_STATES, visit_moves};

enum visit_state visit_state_of(const char *word)
{
	return (enum visit_state)states_of(&visit_states, word);
}

const char *visit_state_word(enum visit_state s)
{
	return states_word(&visit_states, (int)s);
}

int visit_is_over(enum visit_state s)
{
	switch (s) {
	case VISIT_DONE:
	case VISIT_CANCELLED:
	case VISIT_NO_SHOW:
		return 1;
	case VISIT_SCHEDULED:
	case VISIT_CONFIRMED:
	case VISIT_IN_PROGRESS:
	case VISIT_STATES:
		break;
	}
	return 0;
}

int visit_is_off(const char *status)
{
	enum visit_state s = visit_state_of(status);

	return s == VISIT_CANCELLED || s == VISIT_NO_SHOW;
}
