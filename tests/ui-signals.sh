#!/bin/sh
# ui-signals.sh - the terminal is given back on every way out: Ctrl-C and
# SIGTERM end the screen through its loop (endwin), a crash signal
# (SIGSEGV) writes the terminal's reset sequence and dies with the signal.
# After each, the pane is out of the alternate screen, the cursor is
# visible and the mouse is no longer reported.
. "$TOP_SRCDIR/tests/tap.sh"
. "$TOP_SRCDIR/tests/tmux.sh"

fd demo >/dev/null 2>&1

restored() {
	is "$1: the alternate screen is left" "$(pane_flag alternate_on)" 0
	is "$1: the cursor is visible" "$(pane_flag cursor_flag)" 1
	is "$1: the mouse is no longer reported" "$(pane_flag mouse_any_flag)" 0
}

screen_start
shows "the screen opens" "Week of"
is "the screen is in the alternate screen" "$(pane_flag alternate_on)" 1
keys C-c
shows "Ctrl-C ends the screen (status 130)" "frontdesk-exited-130"
restored "Ctrl-C"
screen_stop

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
