#!/bin/sh
# ui-item-price.sh - the screen's line item form makes the same core call as
# `frontdesk item edit` (item_edit): the price of a line item that is fully
# invoiced and paid is fixed, so a new price typed in the form is refused
# with the reason on the message line, nothing is written, and the visit
# stays paid on the calendar; a new description is still taken.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

q() { sqlite3 "$FRONTDESK_DB" "$1"; }

fd init >/dev/null
fd customer add --name "Pia Price" >/dev/null
fd job add --customer 1 --title "Wash" >/dev/null
fd item add --job 1 --description "Exterior wash" --price 100 >/dev/null
fd appt add --start "2026-12-01 10:00" --end "2026-12-01 11:00" >/dev/null
fd link add --appt 1 --job 1 --minutes 60 >/dev/null
fd invoice issue --jobs 1 >/dev/null
fd pay record --customer 1 --amount 100 --method cash INV-2026-000001=100 >/dev/null
fd tasks run --once --quiet >/dev/null 2>&1

screen_start
shows "the calendar opens" "Week of 2026-11-29"
keys d
shows_re "the visit is paid" "^> 10:00-11:00 = paid .*Pia Price"
keys Enter
shows "Enter opens the visit" "frontdesk > Calendar (Day) > Visit 1"
keys j j
shows_re "the line item is selected" "^> +service +Exterior wash"
keys e
shows "e opens the line item form (Enter opens its job)" "Edit line item 1 (USD)"
before=$(dump)
keys Tab Tab Tab C-u 1 5 0 Enter
shows "the new price is refused with the reason" "Not posted: line item 1 is fully invoiced, so its price is fixed"
is "nothing was written" "$(dump)" "$before"
keys Escape
shows "Esc on typed input asks first" "Close the form and lose what you typed? y closes it"
keys y
shows "y closes the form" "Form closed; nothing was posted."
shows "the visit is still paid" "Calendar: = paid, 100.00 USD for this visit"
keys e
shows "the form opens again" "Edit line item 1 (USD)"
keys Tab C-u H a n d Space w a s h Enter
shows "a new description is taken" "Line item 1 changed"
is "only the description changed" "$(q 'SELECT description, unit_price, amount FROM line_item WHERE id = 1')" "Hand wash|10000|10000"
keys Enter
keys Q
shows "Q quits" "frontdesk-exited-0"

done_testing
