#!/bin/sh
# ui-credit.sh - the payment form offers the customer's credit before a new
# payment: money a reversal freed is allocated again with no new payment
# taken, and credit plus new money pay an invoice together (the credit
# first), each posted once in one transaction.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

last() { sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM $1"; }
q() { sqlite3 "$FRONTDESK_DB" "$1"; }

fd init >/dev/null
fd customer add --name "Cora Credit" --phone 555-0303 >/dev/null
cust=$(last customer)
fd job add --customer "$cust" --title "Detail" >/dev/null
fd item add --job "$(last service_order)" --description "Detail" --price 100.00 >/dev/null
fd invoice issue --jobs "$(last service_order)" >/dev/null
inv=$(last invoice)
fd pay record --customer "$cust" --amount 100.00 --method check --reference 501 "$inv=100.00" >/dev/null
fd pay reverse "$(last payment_allocation)" --reason "put on the wrong invoice" >/dev/null
is "the reversal left the invoice owing" "$(q "SELECT status, balance FROM invoice WHERE id = $inv")" "issued|10000"
is "and the money as credit" "$(q "SELECT amount - allocated FROM payment")" 10000

screen_start
shows "the calendar opens" "Week of 2026-11-29"
keys c
shows "the customer list" "Find (name, phone, address):"
keys "Cora"
shows_re "the customer is found" "^> Cora Credit"
keys Enter
shows "the customer's pane" "Cora Credit"
keys p
shows "p opens the payment form" "Record a payment from Cora Credit (USD)"
shows "the credit is offered first" "Use the credit on account (100.00 USD) first"
shows "the new money is optional" "New money received (empty: none)"
shows_re "the credit is proposed to the invoice" "owes 100\.00.*\[100\.00 "
shows "the summary says where it comes from" "100.00 from the credit, 0.00 from this payment"
keys Enter
shows "the credit is allocated" "100.00 USD of Cora Credit's credit allocated."
shows "and no new payment is taken" "No new payment was needed."
keys Enter
is "still one payment" "$(q "SELECT count(*) FROM payment")" 1
is "the invoice is paid" "$(q "SELECT status, balance FROM invoice WHERE id = $inv")" "paid|0"
is "no credit left" "$(q "SELECT amount - allocated FROM payment")" 0

# credit and new money together: 30.00 on account, 80.00 owed
fd pay record --customer "$cust" --amount 30.00 --method cash >/dev/null
fd job add --customer "$cust" --title "Wax" >/dev/null
fd item add --job "$(last service_order)" --description "Wax" --price 80.00 >/dev/null
fd invoice issue --jobs "$(last service_order)" >/dev/null
inv2=$(last invoice)
keys p
shows "the form again" "Use the credit on account (30.00 USD) first"
shows_re "the credit alone is proposed" "owes 80\.00.*\[30\.00 "
keys 5 0
shows_re "with 50.00 new money the invoice is covered" "owes 80\.00.*\[80\.00 "
shows "30.00 comes from the credit" "30.00 from the credit, 50.00 from this payment"
keys Enter
shows "posted" "Payment"
keys Enter
is "one new payment of 50.00" "$(q "SELECT count(*) || ' ' || max(amount) FROM payment WHERE id > 2")" "1 5000"
is "the invoice is paid" "$(q "SELECT status FROM invoice WHERE id = $inv2")" paid
is "from both" "$(q "SELECT group_concat(payment_id || '=' || amount, ' ') FROM (SELECT * FROM payment_allocation WHERE invoice_id = $inv2 ORDER BY id)")" "2=3000 3=5000"

# the credit can be declined: then the amount is required as before
fd job add --customer "$cust" --title "Glass" >/dev/null
fd item add --job "$(last service_order)" --description "Glass" --price 10.00 >/dev/null
fd invoice issue --jobs "$(last service_order)" >/dev/null
fd pay record --customer "$cust" --amount 5.00 --method cash >/dev/null
keys p
shows "offered again" "Use the credit on account (5.00 USD) first"
keys Up Right
shows "declined" "< no >"
shows_re "the amount is asked as before" "^  Amount received +\["
keys Enter
shows_re "without credit the amount is required" "\[ +\] ! required"
keys Escape
keys y
is "nothing was posted" "$(q "SELECT count(*) FROM payment")" 4

# --- another desk pays while the form is open: the form follows ------------------
glass=$(q 'SELECT max(id) FROM invoice')
fd pay allocate 4 "$glass=5.00" >/dev/null
fd pay record --customer "$cust" --amount 5.00 --method cash "$glass=5.00" >/dev/null
is "nothing is open before the next invoice" "$(q "SELECT count(*) FROM invoice WHERE balance > 0")" 0
fd job add --customer "$cust" --title "Rims" >/dev/null
fd item add --job "$(last service_order)" --description "Rims" --price 100.00 >/dev/null
fd invoice issue --jobs "$(last service_order)" >/dev/null
inv4=$(last invoice)
n4=$(q "SELECT number FROM invoice WHERE id = $inv4")
keys p
shows "the form for the new invoice" "$n4 owes 100.00"
keys 1 0 0
shows_re "100.00 proposed to it" "$n4 owes 100\.00.*\[100\.00 "
fd pay record --customer "$cust" --amount 60.00 --method cash "$inv4=60.00" >/dev/null
shows "the other desk's payment shows in the form" "$n4 owes 40.00"
shows "the row says it changed" "changed by another desk"
shows_re "the proposal follows the new balance" "$n4 owes 40\.00.*\[40\.00 "
shows "the rest is credit" "Left as the customer's credit 60.00"
# a row typed by hand above the new balance is refused beside it
keys Tab Tab Tab Tab Tab Tab C-u 9 0
fd pay record --customer "$cust" --amount 10.00 --method cash "$inv4=10.00" >/dev/null
shows "the balance follows again" "$n4 owes 30.00"
keys Enter
shows_re "the typed row is refused with the new balance" "more than the balance 30\.00"
is "nothing more was posted" "$(q "SELECT count(*) FROM payment")" 7
keys Escape y
done_testing
