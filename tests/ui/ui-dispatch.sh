#!/bin/sh
# ui-dispatch.sh - the dispatch board (b from the calendar): a column per
# active resource with its visits at their rows, free and off cells; Enter
# on a free cell books there with that resource; r moves a visit to
# another resource, refused with the core's reason when it is taken
# (nothing changes), done when it is free; at 80x24 the columns that do
# not fit scroll with Left/Right and say how many more there are.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

q() { sqlite3 "$FRONTDESK_DB" "$1"; }
# row HH:MM - the board's line of that slot
row() { screen_text | grep -E "^$1 " | head -1; }

fd init >/dev/null
fd customer add --name "Ann Lee" --address "4 Block Row" >/dev/null
fd customer add --name "Bob Roe" --address "9 Elm St" >/dev/null
fd resource add --name Sam --kind technician >/dev/null
fd resource add --name Kim --kind technician >/dev/null
fd resource add --name "Van 1" --kind van >/dev/null
fd resource add --name "Van 2" --kind van >/dev/null
fd resource add --name "Bay 9" --kind bay >/dev/null
for r in Sam "Van 1" "Van 2" "Bay 9"; do
	fd resource hours "$r" --days all --spans 08:00-12:00 >/dev/null
done
fd resource hours Kim --days all --spans 13:00-17:00 >/dev/null
# today is 2026-12-01 (tap.sh)
fd book --customer Ann --start "2026-12-01 09:00" --length 1:00 --resource Sam >/dev/null
fd book --customer Bob --start "2026-12-01 09:00" --length 1:00 --resource "Van 1" >/dev/null

screen_start
shows "the calendar opens" "Week of 2026-11-29"
keys b
shows "b opens the dispatch board of the day" "Dispatch Tue 2026-12-01"
shows_re "one column per active resource, by kind and name" \
	"^ +Kim +Sam +Van 1 +Van 2 +Bay 9"
# the visits' names come from the calendar projection (built by the tasks)
wait_re "^09:00 .*Ann Lee.*Bob Roe" >/dev/null
case "$(row 09:00)" in
*"Ann Lee"*"Bob Roe"*) pass "Sam's and Van 1's visits are at 09:00, in their columns" ;;
*) fail "Sam's and Van 1's visits are at 09:00, in their columns" "$(screen_text)" ;;
esac
case "$(row 08:45)" in
"08:45 off"*free*free*free*free) pass "08:45: Kim is off, the others free" ;;
*) fail "08:45: Kim is off, the others free" "$(screen_text)" ;;
esac
case "$(row 13:00)" in
"13:00 free"*off*off*off*off) pass "13:00: only Kim works" ;;
*) fail "13:00: only Kim works" "$(screen_text)" ;;
esac

# book from a free cell: Sam at 10:30
keys Right
for i in 1 2 3 4 5 6 7 8 9 10; do keys Down; done
shows "the cursor is on Sam's free 10:30" "10:30 Sam: free (Enter books)"
keys Enter
shows "Enter on a free cell opens the booking form" "Book a visit"
shows_re "the form has the start filled in" "Starts \(HH:MM\).*10:30"
shows_re "and the resource" "Resources.*Sam"
keys -l "Ann Lee"
keys Enter
shows "the visit is booked there" "booked for 2026-12-01 10:30"
is "the new visit starts at 10:30" "$(fd visit show 3 | grep -c '2026-12-01 10:30')" 1
is "it holds Sam" "$(q "SELECT resource_id FROM appointment_resource WHERE appointment_id = 3")" 1
keys Enter
wait_re "^10:30 off +- Ann Lee" >/dev/null
case "$(row 10:30)" in
"10:30 off"*"Ann Lee"*) pass "the board shows it at 10:30 in Sam's column" ;;
*) fail "the board shows it at 10:30 in Sam's column" "$(screen_text)" ;;
esac

# move visit 1 (Sam, 09:00) to another resource
for i in 1 2 3 4 5 6; do keys Up; done
shows "the cursor is on visit 1" "09:00 Sam: visit 1"
keys r
shows "r asks which resource" "Move visit 1 from Sam"
shows_re "the first choice is Kim" "To resource.*Kim"
before=$(q "SELECT group_concat(appointment_id || ':' || resource_id) FROM appointment_resource")
keys Enter
shows "moving to a resource that is off then is refused with the reason" \
	"Kim does not work from 09:00 to 10:00"
keys Right
shows_re "then Van 1" "To resource.*Van 1"
keys Enter
shows "moving to a taken resource is refused with the reason" \
	"Van 1 is taken from 2026-12-01 09:00 to 10:00 by visit 2"
is "nothing changed" \
	"$(q "SELECT group_concat(appointment_id || ':' || resource_id) FROM appointment_resource")" \
	"$before"
keys Right
shows_re "then Van 2" "To resource.*Van 2"
keys Enter
wait_gone "Move visit 1" >/dev/null
is "moving to a free resource works" \
	"$(q "SELECT resource_id FROM appointment_resource WHERE appointment_id = 1")" 4
wait_re "^09:00 off +free +- Bob Roe.*Ann Lee" >/dev/null
case "$(row 09:00)" in
"09:00 off"*free*"Bob Roe"*"Ann Lee"*free) pass "the board shows visit 1 in Van 2's column" ;;
*) fail "the board shows visit 1 in Van 2's column" "$(screen_text)" ;;
esac

# the booking form opened from a free cell, its start changed to a taken
# one: refused with the reason, the next free starts proposed (Sam is
# taken from 10:30 to 11:30 and works until 12:00: the next day's)
shows "Sam's 09:00 is free again" "09:00 Sam: free (Enter books)"
keys Enter
shows "the booking form opens at 09:00" "Book a visit"
keys -l "Bob Roe"
keys Tab Tab Tab C-u; keys -l "10:30"
before=$(q "SELECT count(*) FROM appointment")
keys Enter
shows "a taken start is refused with the core's reason" \
	"Sam is taken from 2026-12-01 10:30 to 11:30 by visit 3"
shows "the next free starts are proposed, from the next day on" \
	"next free: Wed 12-02 08:00 08:15 08:30 08:45 09:00 09:15 09:30 09:45"
is "nothing was booked" "$(q "SELECT count(*) FROM appointment")" "$before"
keys Escape
shows "Esc asks before throwing away what was typed" "lose what you typed"
keys y
wait_for "Dispatch Tue" >/dev/null

# Enter on a visit opens it
keys Right Right
shows "the cursor is on visit 1 in Van 2's column" "09:00 Van 2: visit 1"
keys Enter
shows "Enter on a visit opens the visit pane" "> Visit 1"
keys q
shows "q goes back to the board" "09:00 Van 2: visit 1"
keys Left Left

# another desk books: the board follows
fd book --customer Bob --start "2026-12-01 11:00" --length 0:30 --resource "Bay 9" >/dev/null
shows_re "a visit booked elsewhere appears on the board" "^11:00 off .*free +- Bob Roe"

# at 80x24: four columns, the fifth one scrolls into view
resize 80 24
shows "at 80 columns the board says how many more columns there are" \
	"resources 1-4 of 5, 1 more (Left/Right)"
case "$(screen_text)" in
*"Bay 9"*) fail "Bay 9 is not shown yet" "$(screen_text)" ;;
*) pass "Bay 9 is not shown yet" ;;
esac
shows "the cell under the cursor is said in full" "09:00 Sam: free (Enter books)"
keys Right Right Right
shows_re "Right scrolls the columns: Bay 9 comes into view" "^ +Sam +Van 1 +Van 2 +Bay 9"
shows "resources 2-5 of 5" "resources 2-5 of 5, 1 more (Left/Right)"
shows "the cell under the cursor is said in full" "09:00 Bay 9: free (Enter books)"
case "$(row 09:00)" in
"09:00 "*"Bob Roe"*"Ann Lee"*) pass "at 80x24 the visits' customers are not cut" ;;
*) fail "at 80x24 the visits' customers are not cut" "$(screen_text)" ;;
esac
keys Left Left Left Left
shows "Left scrolls back to Kim" "09:00 Kim: off"
shows_re "Kim's column is shown again" "^ +Kim +Sam +Van 1 +Van 2"
screen_stop
out=$(fd check 2>&1); is "frontdesk check is clean" "$out" "No problems found."
done_testing
