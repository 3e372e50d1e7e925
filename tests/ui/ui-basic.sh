#!/bin/sh
# ui-basic.sh - the desk screen in a real terminal (tmux): it opens on the
# calendar of the demo, switches between month, week and day views, follows
# a change made by another process without a key press (its own task runner
# rebuilds the projection), survives resizes (and asks for 80x24 below
# that), defuses escape sequences stored in data, and quits cleanly.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

fd demo >/dev/null 2>&1
is "demo database made" "$?" 0
# A name with escape sequences (clear the screen; set the window title),
# written behind frontdesk's back: the command line would refuse it, and so
# would the history trigger, which needs frontdesk's SQL functions, so the
# test drops that trigger in its own copy. The calendar rows are rebuilt
# from it; it must reach the screen as harmless visible text.
sqlite3 "$FRONTDESK_DB" "DROP TRIGGER customer_his_upd; UPDATE customer SET name = 'Evil' || char(27) || '[2J' || char(27) || ']0;pwned' || char(7) || 'Name' WHERE id = 2"
fd projection rebuild --all >/dev/null 2>&1

screen_start
shows "the screen opens on the week of today" "Week of 2026-11-29"
shows "the breadcrumb names the view" "frontdesk > Calendar (Week)"
shows "the status line names the database" "test.db | "
shows "the legend explains the payment symbols" "! unpaid"
keys m
shows "m shows the month" "December 2026"
shows "the month grid counts today's visits" "1*"
keys d
shows "d shows the day" "Tuesday 2026-12-01 (today)"
keys l
shows "l moves to the next day" "Wednesday 2026-12-02"
keys j Enter
shows "Enter opens the selected visit" "frontdesk > Calendar (Day) > Visit"
shows "a visit serving three customers reads 'Name +2'" "Name +2"
shows "the escape sequence is shown as text" "Evil^[[2J^[]0;pwned^GName"
title=$($TMUX_CMD display-message -p '#{pane_title}')
case "$title" in
*pwned*) fail "the title-setting sequence reached the terminal" "title: $title" ;;
*) pass "the terminal's title was not changed by data ($title)" ;;
esac
case "$(screen_text)" in
*"Where: Harbor View Apartments"*) pass "the screen was not cleared by data" ;;
*) fail "the screen was not cleared by data" "$(screen_text)" ;;
esac
keys q h

# Another process adds a visit today: it appears without a key press.
fd customer add --name "Walk-in Wanda" >/dev/null
cust=$(sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM customer")
fd job add --customer "$cust" --title "Quick wash" >/dev/null
fd appt add --start "2026-12-01 18:00" --end "2026-12-01 19:00" --location "Shop bay 2" >/dev/null
appt=$(sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM appointment")
fd link add --appt "$appt" --job "$(sqlite3 "$FRONTDESK_DB" 'SELECT max(id) FROM service_order')" --minutes 60 >/dev/null
shows "a visit added by another process appears by itself" "Walk-in Wanda"
shows_re "the cursor stayed on the visit it was on" "^> 09:00-10:30 "
shows "the screen ran the task runner itself" "runner: this desk"

shows "at 120 columns the hints offer booking" "a Book"
resize 80 24
if wait_gone "a Book"; then
	pass "at 80x24 the screen is redrawn (the view's last key hints give way)"
else
	fail "at 80x24 the screen is redrawn (the view's last key hints give way)" "$(screen_text)"
fi
shows_re "at 80x24 the key hints keep the way out" "^\? Help .*  / Search  (c Customers  )?q Back  Q Quit *$"
shows_re "at 80x24 the day's title is centred again" "^ {21}Tuesday 2026-12-01 \(today\) - 6 visits"
shows "at 80x24 the legend still fits" "* today"
case "$(screen_text)" in
*"Walk-in Wanda"*) pass "at 80x24 the new visit is still listed" ;;
*) fail "at 80x24 the new visit is still listed" "$(screen_text)" ;;
esac
resize 70 20
shows "below 80x24 it asks for a larger window" "enlarge the window"
resize 120 40
shows "back at 120x40 the day returns" "Walk-in Wanda"
shows "back at 120x40 the hint line returns" "? Help"

keys Escape
shows "Esc at the top only says how to quit" "press Q to quit"
keys q
shows "q at the top asks first" "Quit frontdesk? y quits; any other key stays."
keys n
if wait_gone "Quit frontdesk?"; then pass "another key stays"; else fail "another key stays" "$(screen_text)"; fi
shows "and the calendar is still there" "Walk-in Wanda"
keys q y
shows "q and y at the top quit with status 0" "frontdesk-exited-0"
is "the terminal left the alternate screen" "$(pane_flag alternate_on)" 0

done_testing
