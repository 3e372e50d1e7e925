#!/bin/sh
# ui-mouse.sh - mouse clicks on the desk screen: tmux passes the terminal's
# own mouse reports (xterm SGR: ESC [ < 0 ; x ; y M for a press of the left
# button, ...m for its release) to a program that asked for them. A click
# on a week's visit selects it and a second click opens it; a click on a
# month's day cell selects the day; a click on a day's row selects that
# visit (the day view is the one last used). After a click (press and release) the screen keeps refreshing by
# itself: it used to wait for the next key after each release. With
# `mouse = no` the screen does not ask for the mouse at all.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

# click X Y - press and release the left button at column X, row Y (1-based)
click() {
	keys -l "$(printf '\033[<0;%d;%dM' "$1" "$2")"
	keys -l "$(printf '\033[<0;%d;%dm' "$1" "$2")"
}
# where TEXT - "column row" (1-based) of the first place the pane shows TEXT
where() { screen_text | awk -v t="$1" '{ i = index($0, t); if (i) { print i, NR; exit } }'; }

fd demo >/dev/null 2>&1
# the calendar complete before the screen opens: a row the screen's runner
# rewrites under load after the first frame (its marks) would move the
# text the clicks aim at
fd tasks run --once --quiet >/dev/null 2>&1
screen_start
shows "the screen opens on the week" "Week of 2026-11-29"
shows "the week shows Bo Chen's visit on Thursday" "11:00 ! Bo Chen"
is "the screen asks for mouse reports" "$(pane_flag mouse_any_flag)" 1

# week: a click selects the visit under it, Enter opens that one
set -- $(where "11:00 ! Bo Chen")
click "$1" "$2"
keys Enter
shows "a click on a visit of the week selects it (Enter opens it)" "Customers: Bo Chen"
keys q
shows "back to the week" "Week of 2026-11-29"
# a click on the selected visit opens it
click "$1" "$2"
shows "a second click opens the visit" "Customers: Bo Chen"
keys q

# month: a click on a day cell selects the day; d shows that day
keys m
shows "m shows the month" "December 2026"
set -- $(where "|9 ")
click "$(($1 + 3))" "$(($2 + 1))"
keys d
shows "a click on a month's day cell selects that day" "Wednesday 2026-12-09"

# day: a click on a row selects that visit
shows "the day lists Ali Demir's visit" "13:00-14:30"
if screen_text | grep -q "^> 13:00-14:30"; then
	fail "Ali Demir's visit is not selected yet" "$(screen_text)"
else
	pass "Ali Demir's visit is not selected yet"
fi
set -- $(where "13:00-14:30")
click "$1" "$2"
shows_re "a click on its row selects it" "^> 13:00-14:30 .*Ali Demir"

# after a click the screen still refreshes by itself: another process
# adds a visit that day and it appears without a key press
fd customer add --name "Clicky Clara" >/dev/null
cust=$(sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM customer")
fd job add --customer "$cust" --title "Mouse wash" >/dev/null
fd appt add --start "2026-12-09 16:00" --end "2026-12-09 17:00" --location "Bay 1" >/dev/null
appt=$(sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM appointment")
fd link add --appt "$appt" --job "$(sqlite3 "$FRONTDESK_DB" 'SELECT max(id) FROM service_order')" --minutes 60 >/dev/null
shows "after a click, a change made elsewhere appears without a key press" "Clicky Clara"
keys Q
shows "Q quits with status 0" "frontdesk-exited-0"
screen_stop

# mouse = no: the screen does not ask for mouse reports
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
echo "mouse = no" > "$XDG_CONFIG_HOME/frontdesk/config"
screen_start
shows "the screen opens with mouse = no" "frontdesk > Calendar"
is "with mouse = no the screen does not ask for mouse reports" "$(pane_flag mouse_any_flag)" 0
keys Q
shows "Q quits with status 0" "frontdesk-exited-0"

done_testing
