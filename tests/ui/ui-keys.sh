#!/bin/sh
# ui-keys.sh - keys, help and settings of the screen: a keys file in the
# config folder rebinds actions (and a bad line is reported, not fatal),
# `?` lists every key of the current view as bound, the last calendar view
# is remembered between runs, week_start in the config moves the first day
# of the week, NO_COLOR takes the colours away (the symbols stay), and a
# monochrome vt100 works, and keys typed ahead act in order.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

fd demo >/dev/null 2>&1
fd tasks run --once --quiet >/dev/null 2>&1
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
cat > "$XDG_CONFIG_HOME/frontdesk/keys" <<'KEYS'
# my keys
calendar-next-month = n PgDn
no-such-action = x
KEYS

screen_start
shows "a bad line of the keys file is reported" "no action is called 'no-such-action'"
keys m n
shows "a rebound key does its action" "January 2027"
keys PgUp
shows "the default key of an untouched action still works" "December 2026"
# January is read ahead while December is shown; a change to January made
# meanwhile by another process must still show when we get there.
fd customer add --name "Ahead Annie" >/dev/null
cust=$(sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM customer")
fd job add --customer "$cust" --title "Wash" >/dev/null
fd appt add --start "2027-01-05 10:00" --end "2027-01-05 11:00" >/dev/null
fd link add --appt "$(sqlite3 "$FRONTDESK_DB" 'SELECT max(id) FROM appointment')" \
	--job "$(sqlite3 "$FRONTDESK_DB" 'SELECT max(id) FROM service_order')" --minutes 60 >/dev/null
i=0
until [ "$(sqlite3 "$FRONTDESK_DB" "SELECT count(*) FROM appointment_calendar_view WHERE customers = 'Ahead Annie'")" = 1 ] || [ $i -ge 100 ]; do
	sleep 0.1; i=$((i + 1))
done
is "the screen's task runner built the new visit's row" "$i" "$([ $i -lt 100 ] && echo $i || echo timeout)"
shows "the screen noticed the change" "0 pending"
keys n
shows "a month read ahead before a change shows the change" "10:00 - Ahead..."
keys PgUp
keys ?
shows "? opens the help of the view" "Help: Calendar (Month)"
shows_re "the help lists the rebound keys with the action's name" "n PgDn +Next month +calendar-next-month"
shows_re "and every other key of the view" "t +Go to today +calendar-today"
shows_re "and the keys that work everywhere" "Q +Quit frontdesk +quit"
keys G
shows "and, at its end, the payment symbols" "Payment status symbols"
keys q
shows "q closes the help" "frontdesk > Calendar (Month)"
keys d Q
shows "Q quits" "frontdesk-exited-0"
state=$(cat "$TMP/state/frontdesk/screen" 2>/dev/null)
like "the last view is written to the state file" "$state" "view = day"
screen_stop

screen_start
shows "the screen opens on the view it was left in" "frontdesk > Calendar (Day)"
keys w
shows "the week starts on Sunday in this locale" "Sun 11-29"
keys Q
shows "Q quits again" "frontdesk-exited-0"
screen_stop

echo "week_start = monday" > "$XDG_CONFIG_HOME/frontdesk/config"
screen_start
shows "week_start = monday starts the week on Monday" "Mon 11-30"
keys Q
screen_stop

# Colours: symbols always, colour only when allowed.
rm -f "$XDG_CONFIG_HOME/frontdesk/config"
screen_start
shows "the week opens" "Week of"
ansi=$($TMUX_CMD capture-pane -e -p)
case "$ansi" in
*"[31m"* | *"[1m[31m"* | *";31m"* | *"[31;"*) pass "colour is used for the unpaid symbol when allowed" ;;
*) fail "colour is used for the unpaid symbol when allowed" "$(echo "$ansi" | head -5 | od -c | head)" ;;
esac
keys Q
screen_stop
SCREEN_ENV="NO_COLOR=1" screen_start
shows "with NO_COLOR the week opens" "Week of"
shows "the symbols are still there" "! unpaid"
ansi=$($TMUX_CMD capture-pane -e -p)
case "$ansi" in
*"[3"[0-7]"m"* | *";3"[0-7]"m"* | *"[3"[0-7]";"*) fail "NO_COLOR means no colour" "$(echo "$ansi" | grep -n '3[0-7]m' | head -3)" ;;
*) pass "NO_COLOR means no colour" ;;
esac
keys Q
screen_stop
SCREEN_TERM=vt100 screen_start
shows "a monochrome vt100 shows the calendar" "Week of"
shows "with the symbols" "! unpaid"
keys Q
shows "and quits" "frontdesk-exited-0"

# keys typed ahead (all waiting when the screen reads them): each acts on
# the place the key before it opened, never on the one shown before it
screen_start
shows "the screen opens for keys typed ahead" "Week of"
pid=$(screen_pid)
kill -STOP "$pid"
keys d Enter p
kill -CONT "$pid"
shows "d, Enter and p typed ahead open the day's first visit's payment form" \
	"Calendar (Day) > Visit "
shows "and the payment form on it" "Record a payment from"
keys Escape Q
screen_stop

done_testing
