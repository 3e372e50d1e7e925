#!/bin/sh
# ui-recurring.sh - recurring jobs in the screen: the booking form's
# "Repeats" shows the rule and its first days while typing and books a
# recurring job (its visits made at once); a made visit's pane shows its
# rule; its edit form asks "this / following / all": "this" changes the
# visit alone (an exception), "following" splits the rule with no visit lost
# or doubled; the move form says a move is this visit's alone; a rule typed
# wrong is refused with the core's reason and nothing is written.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

q() { sqlite3 "$FRONTDESK_DB" "$1"; }

fd init >/dev/null
fd customer add --name "Ann Lee" --address "4 Block Row" >/dev/null
fd service add --name "Pool clean" --price 80 --minutes 60 >/dev/null

screen_start
shows "the calendar opens" "Week of 2026-11-29"
keys a
shows "the booking form" "Book a visit"
keys -l "Ann Lee"
keys Tab; keys -l "pool"
keys Tab C-u; keys -l "2026-12-02"
keys Tab C-u; keys -l "10:00"
# to the rule typed: Length, Or ends, Overnight, Resources, Services go on,
# Place, Note, Repeats, Or a rule
keys Tab Tab Tab Tab Tab Tab Tab Tab Tab
keys -l "FREQ=FORTNIGHTLY"
shows "a rule libical cannot read is said beside Repeats" "is not a rule in iCalendar's RRULE form"
keys C-u
keys BTab Right
shows "every week: the rule and its first days" "FREQ=WEEKLY;BYDAY=WE: 2026-12-02, 2026-12-09, 2026-12-16, 2026-12-23"
keys Right
shows "every two weeks" "FREQ=WEEKLY;INTERVAL=2;BYDAY=WE: 2026-12-02, 2026-12-16"
keys Enter
shows "one Enter adds the recurring job" "Recurring job 1 added"
keys Enter
wait_gone "Recurring job 1 added" >/dev/null
made=$(q "SELECT count(*) FROM recurring_occurrence WHERE rule_id = 1 AND state = 'made'")
ok "its visits are made at once" test "$made" -gt 3
is "every other Wednesday at 10:00" \
	"$(q "SELECT DISTINCT strftime('%w %H:%M', a.start_at, 'unixepoch', 'localtime') FROM recurring_occurrence o JOIN appointment a ON a.id = o.appointment_id")" "3 10:00"
is "each visit with its job and the service" "$(q "SELECT count(*) FROM line_item")" "$made"

# --- the visit's pane shows its rule; the edit asks what it changes
v2=$(q "SELECT appointment_id FROM recurring_occurrence WHERE day = '2026-12-16'")
keys d
shows "the day view" "Wednesday 2026-12-02"
shows_re "with the visit selected" "^> 10:00-11:00"
keys Enter
shows "the visit's pane shows its rule" "Repeats"
shows "with the recurring job" "FREQ=WEEKLY;INTERVAL=2;BYDAY=WE at 10:00 (recurring job 1, the visit of 2026-12-02)"
keys e
shows "the edit form asks what a change changes" "this visit only"
keys Tab C-u; keys -l "11:00"
keys Enter
shows "this visit only: the visit changes" "Visit 1 changed."
keys Enter
is "this one moved" "$(q "SELECT strftime('%H:%M', start_at, 'unixepoch', 'localtime') FROM appointment WHERE id = 1")" "11:00"
is "the others did not" "$(q "SELECT strftime('%H:%M', start_at, 'unixepoch', 'localtime') FROM appointment WHERE id = $v2")" "10:00"
keys Escape
wait_gone "Visit 1:" >/dev/null

# --- "this and the following" from the visit of 2026-12-16
before=$(q "SELECT count(*) FROM appointment WHERE status <> 'cancelled'")
keys J J
shows "two weeks on" "Wednesday 2026-12-16"
shows_re "its visit selected" "^> 10:00-11:00"
keys Enter
shows "the visit of 2026-12-16" "the visit of 2026-12-16"
keys e
shows "its edit form" "Edit visit $v2"
keys Tab C-u; keys -l "15:30"
# Ends, Overnight, Place, Note, Status, Change
keys Tab Tab Tab Tab Tab Tab Right
shows "this and the following is chosen" "this and the following"
keys Enter
shows "the rule is split" "Recurring job 2 carries the change on"
keys Enter
is "no visit lost or doubled" "$(q "SELECT count(*) FROM appointment WHERE status <> 'cancelled'")" "$before"
is "the old rule ends the day before" "$(q "SELECT last_day FROM recurring_rule WHERE id = 1")" 2026-12-15
is "the following visits are at 15:30" \
	"$(q "SELECT DISTINCT strftime('%H:%M', a.start_at, 'unixepoch', 'localtime') FROM recurring_occurrence o JOIN appointment a ON a.id = o.appointment_id WHERE o.day >= '2026-12-16'")" "15:30"
is "the first visit keeps its exception" \
	"$(q "SELECT strftime('%H:%M', start_at, 'unixepoch', 'localtime') FROM appointment WHERE id = 1")" "11:00"
keys Escape
wait_gone "Edit visit" >/dev/null

# --- a move says it is this visit's alone
keys v
shows "the move form names the rule" "Repeats"

screen_stop
done_testing
