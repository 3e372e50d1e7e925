#!/bin/sh
# ui-week.sh - the desk screen in a real terminal (tmux): it shows the
# week's visits, follows a change made by another process without a key
# press, survives resizes, defuses escape sequences stored in data, and
# quits cleanly.
. "$TOP_SRCDIR/tests/tap.sh"
. "$TOP_SRCDIR/tests/tmux.sh"

fd demo >/dev/null 2>&1
is "demo database made" "$?" 0
# A name with escape sequences (clear the screen; set the window title),
# written behind frontdesk's back: the command line would refuse it, and so
# would the history trigger, which needs frontdesk's SQL functions, so the
# test drops that trigger in its own copy. It must reach the screen as
# harmless visible text.
sqlite3 "$FRONTDESK_DB" "DROP TRIGGER customer_his_upd; UPDATE customer SET name = 'Evil' || char(27) || '[2J' || char(27) || ']0;pwned' || char(7) || 'Name' WHERE id = 2"

screen_start
shows "the screen opens on the week" "visits of the week from 2026-12-01"
shows "a demo visit is listed" "Harbor View Apartments"
shows "a visit serving three customers reads 'Name +2'" "+2"
shows "the escape sequence is shown as text" "Evil^[[2J^[]0;pwned^GName"
title=$($TMUX_CMD display-message -p '#{pane_title}')
case "$title" in
*pwned*) fail "the title-setting sequence reached the terminal" "title: $title" ;;
*) pass "the terminal's title was not changed by data ($title)" ;;
esac

# Another process adds a visit today: it appears without a key press.
fd customer add --name "Walk-in Wanda" >/dev/null
fd job add --customer 37 --title "Quick wash" >/dev/null
fd appt add --start "2026-12-01 18:00" --end "2026-12-01 19:00" --location "Shop bay 2" >/dev/null
appt=$(sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM appointment")
fd link add --appt "$appt" --job "$(sqlite3 "$FRONTDESK_DB" 'SELECT max(id) FROM service_order')" --minutes 60 >/dev/null
shows "a visit added by another process appears by itself" "Walk-in Wanda"

resize 80 24
shows "at 80x24 the screen is redrawn" "visits of the week"
resize 70 20
shows "below 80x24 it asks for a larger window" "enlarge the window"
resize 120 40
shows "back at 120x40 the week returns" "Walk-in Wanda"

keys q
shows "q quits with status 0" "frontdesk-exited-0"

done_testing
