#!/bin/sh
# ui-drill.sh - drill down from a visit on the calendar to its job, its
# invoice, the invoice's allocations and the payment with all of its
# allocations and its unallocated credit; each pane shows the expected
# figures, the breadcrumb says where we are, and back returns exactly where
# we were, cursor included.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

last() { sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM $1"; }

fd demo >/dev/null 2>&1
is "demo database made" "$?" 0
fd customer add --name "Drill Dana" --phone 555-0101 >/dev/null
cust=$(last customer)
fd job add --customer "$cust" --title "Full detail" >/dev/null
job=$(last service_order)
fd item add --job "$job" --description "Full detail" --price 180.00 >/dev/null
fd item add --job "$job" --kind FEE --description "Travel fee" --price 20.00 >/dev/null
fd appt add --start "2026-12-01 20:00" --end "2026-12-01 21:00" --location "Test bay 9" >/dev/null
appt=$(last appointment)
fd link add --appt "$appt" --job "$job" --minutes 60 >/dev/null
fd invoice issue --jobs "$job" >/dev/null
inv=$(last invoice)
number=$(sqlite3 "$FRONTDESK_DB" "SELECT number FROM invoice WHERE id = $inv")
# one check of 150.00: 120.00 to the invoice, 30.00 left as credit
fd pay record --customer "$cust" --amount 150.00 --method check --reference 5551 "$inv=120.00" >/dev/null
pay=$(last payment)
is "the payment is recorded" "$(sqlite3 "$FRONTDESK_DB" "SELECT amount, status FROM payment WHERE id = $pay")" "15000|partially_allocated"
# the calendar rows exist before the screen opens (the test moves by them)
fd tasks run --once --quiet >/dev/null 2>&1

screen_start
shows "the calendar opens" "Week of 2026-11-29"
keys d j j j j j j j j
shows_re "the visit shows as partly paid in the day view" "^> 20:00-21:00 ~ part paid .*Drill Dana .*200\.00 USD"
keys Enter
shows "Enter opens the visit" "frontdesk > Calendar (Day) > Visit $appt"
shows "the visit pane shows its place" "Where: Test bay 9"
shows "the visit pane shows the job" "Job $job: Full detail - Drill Dana (open, USD, 60 min)"
shows_re "the visit pane lists the line items" "service +Full detail +1 x 180\.00 +180\.00"
shows_re "the fee is there too" "fee +Travel fee +1 x 20\.00 +20\.00"
shows_re "the invoice line has its figures" "$number +partially paid +total 200\.00 +paid 120\.00 +balance 80\.00"
shows "the calendar status is shown in the pane" "Calendar: ~ part paid, 200.00 USD for this visit"
keys G Enter
shows "Enter on the invoice line opens the invoice" "frontdesk > Calendar (Day) > Visit $appt > $number"
shows "the invoice pane shows its status" "Status: partially paid"
shows_re "the invoice total" "Total +200\.00$"
shows_re "what was paid" "Paid +120\.00$"
shows_re "the balance" "Balance +80\.00$"
shows_re "the allocation: payment, method, reference, amount, live" "^> #[0-9]+ +2026-12-01 09:00 payment $pay +check 5551 +120\.00 live"
keys Enter
shows "Enter on the allocation opens its payment" "> $number > Payment $pay"
shows "the payment pane names the payer" "Payment $pay from Drill Dana"
shows "the payment pane shows how it came" "Received 2026-12-01 09:00 by check, reference 5551"
shows_re "the amount received" "Amount received +150\.00 USD"
shows_re "what is allocated" "Allocated to invoices +120\.00 USD"
shows_re "the customer's credit" "Unallocated \(customer's credit\) +30\.00 USD"
shows_re "every allocation of the payment is listed" "^> #[0-9]+ +2026-12-01 09:00 $number +120\.00 live"
keys h
shows "h on the allocation shows its history" "> Payment $pay > History of allocation"
keys q
shows "back returns to the payment" "frontdesk > Calendar (Day) > Visit $appt > $number > Payment $pay"
keys q
shows "back returns to the invoice" "frontdesk > Calendar (Day) > Visit $appt > $number"
shows_re "with the cursor still on the allocation" "^> #[0-9]+ .*payment $pay"
keys q
shows_re "back again returns to the visit, cursor on the invoice" "^> +$number"
keys h
inv_id=$(sqlite3 "$FRONTDESK_DB" "SELECT id FROM invoice WHERE number = '$number'")
shows "h on the invoice line shows the invoice's history" "> History of invoice $inv_id"
shows_re "... its creation" "  created$"
shows "... its status moves, in order" "status draft -> issued"
shows "... and the payment that made it partly paid" "status issued -> partially_paid"
shows_re "... a changed figure, old -> new" "    paid: 0\.00 USD -> 120\.00 USD"
keys q
shows_re "back from the history: the visit, cursor on the invoice" "^> +$number"
keys q
shows "back again returns to the day" "frontdesk > Calendar (Day)"
shows_re "with the same visit selected" "^> 20:00-21:00"
keys Q
shows "Q quits" "frontdesk-exited-0"

done_testing
