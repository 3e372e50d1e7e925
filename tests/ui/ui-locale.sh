#!/bin/sh
# ui-locale.sh - in a session whose locale is not UTF-8 (LC_ALL=C over SSH
# is common) names with letters outside ASCII are drawn as '?': the message
# line says once which variable to set (the one that decides: LC_ALL, else
# LC_CTYPE, else LANG), and the next key clears it for good. A UTF-8
# session says nothing.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

fd demo >/dev/null 2>&1
fd customer edit 27 --name "Zoë Müller" >/dev/null
fd tasks run --once --quiet >/dev/null 2>&1

SCREEN_LANG=C screen_start
shows "LC_ALL=C: the screen opens" "Week of"
shows "the message line says what to set" "! Set LC_ALL=C.UTF-8 and restart: in the locale C letters outside ASCII show as ?."
keys j
if wait_gone "Set LC_ALL=C.UTF-8"; then pass "a key clears it"; else fail "a key clears it" "$(screen_text)"; fi
keys k j
keys_settled
case "$(screen_text)" in
*"Set LC_ALL"*) fail "it is said once" "$(screen_text)" ;;
*) pass "it is said once" ;;
esac
keys Q
screen_stop

# LANG=C with LC_ALL empty: LANG is the one to set
SCREEN_LANG=C SCREEN_ENV="LC_ALL=" screen_start
shows "LANG=C: it names LANG" "! Set LANG=C.UTF-8 and restart"
keys Q
screen_stop

screen_start
shows "C.UTF-8: the screen opens" "Week of"
case "$(screen_text)" in
*"and restart"*) fail "a UTF-8 session says nothing about the locale" "$(screen_text)" ;;
*) pass "a UTF-8 session says nothing about the locale" ;;
esac
keys Q
screen_stop

done_testing
