#!/bin/sh
# ui-pay.sh - money through the screen's forms: one check recorded and
# allocated to two invoices with the oldest-first proposal (the rest left as
# credit), Enter pressed twice posts ONE payment, the calendar's status
# changes by itself, a wrong amount is refused beside its field with
# nothing written, an allocation is reversed after a confirmation, and a
# refund gives back what is unallocated.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

last() { sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM $1"; }
q() { sqlite3 "$FRONTDESK_DB" "$1"; }

fd demo >/dev/null 2>&1
fd customer add --name "Pay Pat" --phone 555-0202 >/dev/null
cust=$(last customer)
for spec in "19:00 20:00 Waxing 50.00" "20:30 21:30 Shampoo 70.00"; do
	set -- $spec
	fd job add --customer "$cust" --title "$3" >/dev/null
	job=$(last service_order)
	fd item add --job "$job" --description "$3" --price "$4" >/dev/null
	fd appt add --start "2026-12-03 $1" --end "2026-12-03 $2" >/dev/null
	fd link add --appt "$(last appointment)" --job "$job" --minutes 60 >/dev/null
done
jobb=$(last service_order)
joba=$((jobb - 1))
fd invoice issue --jobs "$joba" --terms 10 >/dev/null # due 2026-12-11: the oldest due
inva=$(last invoice)
fd invoice issue --jobs "$jobb" >/dev/null            # due 2026-12-31
invb=$(last invoice)
na=$(q "SELECT number FROM invoice WHERE id = $inva")
nb=$(q "SELECT number FROM invoice WHERE id = $invb")
fd tasks run --once --quiet >/dev/null 2>&1

screen_start
shows "the calendar opens" "Week of 2026-11-29"
keys d g C-u "2026-12-03" Enter
shows "g goes to the date typed" "Thursday 2026-12-03"
keys j j j
shows_re "the first visit is unpaid" "^> 19:00-20:00 ! unpaid .*Pay Pat"
shows_re "so is the second" "^  20:30-21:30 ! unpaid .*Pay Pat"
keys Enter p
shows "p opens the payment form" "Record a payment from Pay Pat (USD)"
shows "the form lists the open invoices" "$na owes 50.00, due 2026-12-11"
keys 1 5 0
shows_re "the oldest due invoice is proposed first, in full" "$na owes 50\.00.*\[50\.00 "
shows_re "then the next one" "$nb owes 70\.00.*\[70\.00 "
shows "what is left is shown as credit" "Allocated 120.00   Left as the customer's credit 30.00"
is "nothing is written while the form is open" "$(q 'SELECT count(*) FROM payment WHERE customer_id = '$cust)" 0
keys Tab Right Tab 7 7 7
shows "the method is chosen" "< check >"
keys Enter Enter
shows "the receipt closes and the visit returns" "Calendar: = paid"
is "Enter twice posted ONE payment" "$(q 'SELECT count(*) FROM payment WHERE customer_id = '$cust)" 1
pay=$(last payment)
is "the payment is the whole check" "$(q "SELECT amount, method, reference, allocated, status FROM payment WHERE id = $pay")" "15000|check|777|12000|partially_allocated"
is "with two allocations, oldest due first" "$(q "SELECT group_concat(invoice_id || '=' || amount, ' ') FROM (SELECT * FROM payment_allocation WHERE payment_id = $pay ORDER BY id)")" "$inva=5000 $invb=7000"
is "under one idempotency key of the form" "$(q "SELECT count(*) FROM idempotency_record WHERE key LIKE 'desk-%'")" 1
keys q
shows_re "the calendar shows the first visit paid" "^> 19:00-20:00 = paid .*Pay Pat"
shows_re "and the second" "^  20:30-21:30 = paid .*Pay Pat"

# A wrong amount: refused beside its field, nothing written.
keys Enter p
shows "the form opens again" "Record a payment from Pay Pat (USD)"
keys a b c Enter
shows_re "the reason is shown beside the field" "Amount received +\[abc +\] ! "
shows "and on the message line" "Please correct the fields marked with !"
keys Escape
shows "Esc on typed input asks before throwing it away" "Close the form and lose what you typed? y closes it; any other key goes back to the form."
keys n
if wait_gone "Close the form and lose"; then pass "another key goes back to the form"; else fail "another key goes back to the form" "$(screen_text)"; fi
shows_re "with what was typed kept" "Amount received +\[abc +\]"
keys Escape y
shows "Esc and y close the form" "Form closed; nothing was posted."
is "a refused form wrote nothing" "$(q 'SELECT count(*) FROM payment WHERE customer_id = '$cust)" 1

# A card number typed as the reference: refused beside its field, nothing written.
keys p
shows "the form opens for a card number" "Record a payment from Pay Pat (USD)"
keys 1 0 Tab Tab 4 1 1 1 Space 1 1 1 1 Space 1 1 1 1 Space 1 1 1 1 Enter
shows_re "the card number is refused beside the reference" "Reference \(check no\.\) +\[4111 1111 1111 1111 *\] ! "
keys Escape y
shows "and the form closes" "Form closed; nothing was posted."
is "no payment holds it" "$(q "SELECT count(*) FROM payment WHERE reference LIKE '%4111%'")" 0

# Reverse the allocation to the first invoice (asks first).
keys g G
shows_re "the invoice line is selected" "^> +$na +paid"
keys Enter
shows_re "the invoice pane opens on its allocation" "^> #[0-9]+ .*payment $pay +check 777 +50\.00 live"
keys x
shows "x opens the reversal form" "Reverse allocation #"
shows_re "the form's information label is not covered by its value" "^  Allocation:  +50\.00 USD of payment $pay to "
keys Enter
shows "a reason is required" "required: say why it is undone"
keys w r o n g Space i n v o i c e Enter
shows "it asks before reversing" "Press y to confirm"
is "nothing is written before the confirmation" "$(q 'SELECT count(*) FROM payment_allocation WHERE reverses_id IS NOT NULL')" 0
keys y
shows "the receipt says what was done" "is back on payment $pay as the customer's credit"
keys Enter
shows_re "the invoice shows the allocation reversed" "REVERSED by #[0-9]+"
shows_re "and owes again" "Balance +50\.00$"
is "one reversal row was posted" "$(q 'SELECT count(*) FROM payment_allocation WHERE reverses_id IS NOT NULL')" 1

# Refund what is now unallocated: 30.00 credit + 50.00 freed = 80.00.
keys k Enter
shows "the payment pane opens from the allocation" "Payment $pay from Pay Pat"
shows_re "its credit grew by the reversal" "Unallocated \(customer's credit\) +80\.00 USD"
keys r
shows_re "the refund proposes what is unallocated" "Amount to give back +\[80\.00"
keys Tab Tab Tab c u s t o m e r Space a s k e d Enter
shows "it asks before giving money back" "Give back 80.00 USD of payment $pay to Pay Pat?"
keys y
shows "the refund is posted" "80.00 USD of payment $pay given back to Pay Pat"
keys Enter
shows_re "the payment pane lists the refund" "^  R[0-9]+ +2026-12-01 09:00 +80\.00 +succeeded +customer asked"
is "one refund row" "$(q "SELECT count(*), sum(amount) FROM refund WHERE payment_id = $pay")" "1|8000"
keys Q
shows "Q quits" "frontdesk-exited-0"

done_testing
