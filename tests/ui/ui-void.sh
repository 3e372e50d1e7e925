#!/bin/sh
# ui-void.sh - correcting an issued invoice from its pane: V voids an unpaid
# invoice after a reason and y; a paid one is refused with the core's reason
# and nothing written; w issues a credit note (the balance by default, any
# amount up to it) after a reason and y; no reason, or another key than y,
# posts nothing.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

q() { sqlite3 "$FRONTDESK_DB" "$1"; }
open_invoice() {
	keys / "$1" Enter
	wait_for "$1" 5
	keys Enter
	shows "the invoice pane of $1 opens" "Status: "
}

fd init >/dev/null
fd customer add --name "Vic Void" >/dev/null
for t in "Wash 40" "Wax 60"; do
	set -- $t
	fd job add --customer 1 --title "$1" >/dev/null
	fd item add --job "$(q 'SELECT max(id) FROM service_order')" --description "$1" --price "$2" >/dev/null
	fd invoice issue --jobs "$(q 'SELECT max(id) FROM service_order')" >/dev/null
done
A=$(q "SELECT number FROM invoice WHERE id = 1")
B=$(q "SELECT number FROM invoice WHERE id = 2")
fd pay record --customer 1 --amount 20.00 --method cash "2=20.00" >/dev/null
printf 'screen_channel = no\n' > "$XDG_CONFIG_HOME/frontdesk/config" 2>/dev/null || {
	mkdir -p "$XDG_CONFIG_HOME/frontdesk"; printf 'screen_channel = no\n' > "$XDG_CONFIG_HOME/frontdesk/config"; }

screen_start
shows "the screen opens" "Week of 2026-11-29"
open_invoice "$A"
keys V
shows "V opens the void form" "Void $A"
keys Enter
shows "a reason is required" "required: say why"
is "nothing posted without one" "$(q 'SELECT status FROM invoice WHERE id = 1')" issued
keys "wrong customer" Enter
shows "it asks for y" "Void $A (40.00 USD)? Its line items can then be billed again."
keys y
shows "voided" "$A is void."
keys Enter
is "the invoice is void" "$(q 'SELECT status FROM invoice WHERE id = 1')" void
is "with the reason in its status flow" "$(q "SELECT reason FROM status_flow WHERE entity = 'invoice' AND entity_id = 1 AND to_status = 'void'")" "wrong customer"
keys q
open_invoice "$B"
keys V
shows "the void form for the paid one" "Void $B"
keys "try" Enter y
shows "a paid invoice is refused with the core's reason" "Not posted:"
is "and stays issued" "$(q 'SELECT status FROM invoice WHERE id = 2')" partially_paid
keys Escape y
keys w
shows "w opens the credit note form" "Credit note against $B"
shows_re "the amount is the balance" "Amount +\[40\.00"
keys Tab "goodwill" Enter
shows "it asks for y" "Issue a credit note of 40.00 USD against $B?"
keys n
shows "another key posts nothing" "Not confirmed; nothing was posted."
is "no credit note" "$(q "SELECT count(*) FROM invoice WHERE kind = 'credit_note'")" 0
keys Up C-u "15.00" Enter y
shows "issued" "issued against $B: 15.00 USD."
keys Enter
is "one credit note of 15.00" "$(q "SELECT count(*) || ' ' || sum(total) FROM invoice WHERE kind = 'credit_note'")" "1 -1500"
is "the invoice's balance is less by it" "$(q 'SELECT balance FROM invoice WHERE id = 2')" 2500
done_testing
