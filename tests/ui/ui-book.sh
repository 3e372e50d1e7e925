#!/bin/sh
# ui-book.sh - booking in the screen alone, with the keystrokes counted: a
# new customer booked for tomorrow 10:00 with two catalogue services in one
# form (at most 30 keys besides the typed text), the calendar's cursor on
# the new visit; the visit moved to another day keeping its length; a
# visit for three customers at one address, one found by phone digits; a
# no-show and a cancel with their reasons; a start changed in the edit form
# keeping the length, and an end before the start refused unless the visit
# runs overnight.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

q() { sqlite3 "$FRONTDESK_DB" "$1"; }
span() { q "SELECT datetime(start_at, 'unixepoch', 'localtime') || ' ' || datetime(end_at, 'unixepoch', 'localtime') FROM appointment WHERE id = $1"; }

fd init >/dev/null
fd customer add --name "Ann Lee" --phone 555-0142 --address "4 Block Row" >/dev/null
fd customer add --name "Bo Park" --address "4 Block Row" >/dev/null
fd customer add --name "Cy Smith" --address "4 Block Row" >/dev/null
fd service add --name "Gutter clean" --price 80 --minutes 60 >/dev/null
fd service add --name "Window wash" --price 40 --minutes 30 >/dev/null

# k KEY... - keys that count; t TEXT - typed text, which does not
N=0
k() { N=$((N + $#)); keys "$@"; }
t() { keys -l "$1"; }

screen_start
shows "the calendar opens" "Week of 2026-11-29"
k a
shows "a opens the booking form" "Book a visit"
t "Dana Cole"
shows "a name that matches nobody says what Enter does" "nobody matches: Enter adds"
k Tab; t "gutter, window"
shows "the services are found in the catalogue" "Gutter clean 80.00, Window wash 40.00"
shows "the length follows their minutes" "[1:30"
k Tab C-u; t "2026-12-02"
k Tab C-u; t "10:00"
shows "the end is shown" "ends 2026-12-02 11:30"
k Enter
shows "Enter opens the new customer's form" "Book a visit > New customer"
shows "with the name typed" "[Dana Cole"
k Tab; t "555-0199"
k Enter
shows "the customer is added, said on the message line" "added: Dana Cole"
shows "and the screen is back in the booking form at once, the customer named" "] Dana Cole"
k Enter
shows "one Enter books it" "booked for 2026-12-02 10:00"
k Enter
wait_gone "booked for 2026-12-02 10:00" >/dev/null
is "the new customer has the phone" "$(q "SELECT phone FROM customer WHERE name = 'Dana Cole'")" "555-0199"
v=$(q "SELECT max(id) FROM appointment")
is "one visit" "$(q 'SELECT count(*) FROM appointment')" 1
is "for tomorrow 10:00, as long as the services" "$(span "$v")" "2026-12-02 10:00:00 2026-12-02 11:30:00"
is "one job with the two services as line items" \
	"$(q "SELECT count(*) || ' ' || sum(amount) FROM line_item")" "2 12000"
is "the visit works on it for its length" "$(q "SELECT est_minutes FROM appointment_work")" 90
if [ "$N" -le 30 ]; then pass "booked in $N keys besides the typed text (at most 30)"; else fail "booked in $N keys (more than 30)"; fi
k d
shows "the day view opens on the new visit's day" "Wednesday 2026-12-02"
shows_re "the cursor is on the new visit" "^> 10:00-11:30 .*Dana Cole"

# --- moved to another day, keeping its length -----------------------------------
keys v
shows "v opens the move form" "Move visit $v"
keys C-u; t "2026-12-04"; keys Tab C-u; t "14:00"; keys Enter
shows "the move is posted" "moved to 2026-12-04 14:00 - 2026-12-04 15:30"
keys Enter
is "moved, keeping its length" "$(span "$v")" "2026-12-04 14:00:00 2026-12-04 15:30:00"
shows "the calendar follows it" "Friday 2026-12-04"
shows_re "still on it" "^> 14:00-15:30 .*Dana Cole"

# --- a visit for three customers at one address -----------------------------------
keys a
shows "the booking form again" "Book a visit"
t "5550142; Bo Park; cy"
shows "three customers, one found by phone digits" "Ann Lee, Bo Park, Cy Smith"
keys Tab; t "window"
keys Tab Tab C-u; t "08:00"
keys Enter
shows "booked" "booked for 2026-12-04 08:00"
keys Enter
w=$(q "SELECT max(id) FROM appointment")
is "one visit, three customers' jobs" \
	"$(q "SELECT count(DISTINCT j.customer_id) FROM appointment_work a JOIN service_order j ON j.id = a.service_order_id WHERE a.appointment_id = $w")" 3
is "at their address" "$(q "SELECT location FROM appointment WHERE id = $w")" "4 Block Row"

# --- a no-show and a cancel, each with a reason and y -----------------------------
shows_re "the cursor is on it" "^> 08:00-08:30 .*Ann Lee \+2"
keys N
shows "N asks why" "No-show: visit $w"
t "nobody home"; keys Enter
shows "and asks for y" "a no-show? This is final."
keys y
shows "marked" "is now no-show"
keys Enter
is "the status" "$(q "SELECT status FROM appointment WHERE id = $w")" no_show
is "the reason kept" "$(q "SELECT reason FROM status_flow WHERE entity = 'appointment' AND entity_id = $w ORDER BY id DESC LIMIT 1")" "nobody home"
keys j
shows_re "down to the other visit" "^> 14:00-15:30 .*Dana Cole"
keys X
shows "X asks why" "Cancel visit $v"
t "moved away"; keys Enter
shows "asks for y, naming the customer and the time" "Cancel visit $v (Dana Cole, 2026-12-04 14:00)? This is final."
keys n
shows "anything but y goes back" "Not confirmed; nothing was posted."
is "nothing was cancelled" "$(q "SELECT status FROM appointment WHERE id = $v")" scheduled

# --- the edit form: a new start keeps the length; an end before the start -------
keys Escape
shows "Esc on a half-filled form asks" "lose what you typed?"
keys y
keys Enter
shows "the visit pane" "Visit $v"
keys e
shows "the edit form" "Edit visit $v"
keys Tab C-u; t "16:00"; keys Enter
shows "changed" "Visit $v changed."
keys Enter
is "a new start keeps the length" "$(span "$v")" "2026-12-04 16:00:00 2026-12-04 17:30:00"
keys e
shows "the edit form again" "Edit visit $v"
keys Tab Tab C-u; t "15:00"; keys Enter
shows "an end before the start is refused beside the field" "mark the visit as running overnight"
is "and nothing changed" "$(span "$v")" "2026-12-04 16:00:00 2026-12-04 17:30:00"
keys Tab Right Enter
shows "marked overnight it is posted" "Visit $v changed."
is "ending the next day" "$(span "$v")" "2026-12-04 16:00:00 2026-12-05 15:00:00"
done_testing
