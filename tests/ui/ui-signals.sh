#!/bin/sh
# ui-signals.sh - the terminal is given back on every way out: Ctrl-C and
# SIGTERM end the screen through its loop (endwin), a crash signal
# (SIGSEGV) writes the terminal's reset sequence and dies with the signal.
# After each, the pane is out of the alternate screen, the cursor is
# visible and the mouse is no longer reported. Ctrl-C asks first (a second
# Ctrl-C or y quits, any other key stays), naming a half-filled form whose
# typed input would be lost; confirm_quit = no quits at once as before.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

fd demo >/dev/null 2>&1
# the calendar's rows are built before the screen opens: keys sent at once
# must find the day's visits there, not wait for the screen's task runner
fd tasks run --once --quiet >/dev/null 2>&1

restored() {
	is "$1: the alternate screen is left" "$(pane_flag alternate_on)" 0
	is "$1: the cursor is visible" "$(pane_flag cursor_flag)" 1
	is "$1: the mouse is no longer reported" "$(pane_flag mouse_any_flag)" 0
}

screen_start
shows "the screen opens" "Week of"
is "the screen is in the alternate screen" "$(pane_flag alternate_on)" 1
keys C-c
shows "Ctrl-C asks first" "Quit frontdesk? y or Ctrl-C quits; any other key stays."
keys n
if wait_gone "Quit frontdesk?"; then pass "another key stays"; else fail "another key stays" "$(screen_text)"; fi
keys C-c
shows "Ctrl-C asks again" "Quit frontdesk? y or Ctrl-C quits"
keys C-c
shows "a second Ctrl-C ends the screen (status 130)" "frontdesk-exited-130"
restored "Ctrl-C"
screen_stop

# Ctrl-C in a half-filled form: the question names the form, another key
# goes back to it with what was typed.
screen_start
shows "the screen opens for the form" "Week of"
keys d Enter
shows "a visit opens" "Calendar (Day) > Visit "
keys p
shows "the payment form opens" "Record a payment from"
keys 1 2 3
shows_re "the amount is typed" "Amount received +\[123 "
keys C-c
shows "Ctrl-C in a half-filled form names what would be lost" "Quit frontdesk and lose what you typed in Record a payment from"
keys n
if wait_gone "Quit frontdesk and lose"; then pass "another key goes back"; else fail "another key goes back" "$(screen_text)"; fi
shows_re "and the typed amount is still there" "Amount received +\[123 "
keys C-c
shows "Ctrl-C asks again" "Quit frontdesk and lose what you typed in Record a payment from"
keys y
shows "y quits (status 0)" "frontdesk-exited-0"
restored "y after Ctrl-C"
screen_stop

# confirm_quit = no: Ctrl-C and q at the top quit at once, as before.
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
printf 'confirm_quit = no\n' > "$XDG_CONFIG_HOME/frontdesk/config"
screen_start
shows "confirm_quit = no: the screen opens" "frontdesk > Calendar"
keys C-c
shows "confirm_quit = no: Ctrl-C ends the screen at once (status 130)" "frontdesk-exited-130"
restored "Ctrl-C without the question"
screen_stop
screen_start
shows "confirm_quit = no: the screen opens again" "frontdesk > Calendar"
keys q
shows "confirm_quit = no: q at the top quits at once" "frontdesk-exited-0"
screen_stop
rm -f "$XDG_CONFIG_HOME/frontdesk/config"
rm -rf "$TMP/state" # the calendar opens on the week again

screen_start
shows "the screen opens again" "Week of"
kill -TERM "$(screen_pid)"
shows "SIGTERM ends the screen (status 143)" "frontdesk-exited-143"
restored "SIGTERM"
screen_stop

screen_start
shows "the screen opens once more" "Week of"
kill -SEGV "$(screen_pid)"
shows "SIGSEGV kills it with the signal (status 139)" "frontdesk-exited-139"
restored "SIGSEGV"
screen_stop

done_testing
