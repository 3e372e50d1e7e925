#!/bin/sh
# ui-capacity.sh - the booking form and capacity: with a resource named,
# the form proposes the day's starts at which it is free for the length
# typed (computed here from its hours and the visit already booked); a
# taken slot is refused on Enter with the reason (the resource and the
# visit holding it) and nothing is written; a proposed start books, with
# the resource reserved.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

q() { sqlite3 "$FRONTDESK_DB" "$1"; }

fd init >/dev/null
fd customer add --name "Ann Lee" --address "4 Block Row" >/dev/null
fd resource add --name Sam --kind technician >/dev/null
fd resource hours Sam --days all --spans 08:00-12:00 >/dev/null
fd book --customer Ann --start "2026-12-02 10:00" --length 1:00 --resource Sam >/dev/null

# Sam's free starts for an hour on 2026-12-02, 15-minute grid: his hours
# 08:00-12:00 less 10:00-11:00 (at most 8 are shown)
expect=""
m=480
while [ $((m + 60)) -le 720 ]; do
	if [ $((m + 60)) -le 600 ] || [ "$m" -ge 660 ]; then
		expect="$expect $(printf '%02d:%02d' $((m / 60)) $((m % 60)))"
	fi
	m=$((m + 15))
done
expect=${expect# }

screen_start
shows "the calendar opens" "Week of 2026-11-29"
keys a
shows "a opens the booking form" "Book a visit"
keys -l "Ann Lee"
keys Tab Tab C-u; keys -l "2026-12-02"
keys Tab C-u; keys -l "10:30"
keys Tab Tab Tab Tab; keys -l "Sam"
shows "the form proposes Sam's free starts that day" "$expect"
before=$(q "SELECT count(*) FROM appointment")
keys Enter
shows "a taken slot is refused with the reason" "Sam is taken from 2026-12-02 10:00 to 11:00 by visit 1"
is "nothing was booked" "$(q "SELECT count(*) FROM appointment")" "$before"
keys BTab BTab BTab BTab C-u; keys -l "11:00"
keys Enter
shows "a proposed start books" "booked for 2026-12-02 11:00"
is "Sam is reserved for the new visit" \
	"$(q "SELECT count(*) FROM appointment_resource WHERE resource_id = 1 AND appointment_id = 2")" 1
screen_stop
out=$(fd check 2>&1); is "frontdesk check is clean" "$out" "No problems found."
done_testing
