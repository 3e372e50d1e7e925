#!/bin/sh
# ui-customers.sh - the customers in the screen: c opens the list from the
# calendar, typing narrows it and finds a phone number by its digits
# whatever the blanks and dashes, Enter opens the customer's pane with what
# they owe and their credit at the top (the aging report's figures) and
# their coming and past visits; a customer added in the form is in the
# database and in the list, an edit changes the phone number, and a bad
# e-mail address is refused beside its field with nothing written.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

last() { sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM $1"; }
q() { sqlite3 "$FRONTDESK_DB" "$1"; }

fd demo >/dev/null 2>&1
fd customer add --name "Phil Digits" --phone 555-0142 --address "12 Elm Street" >/dev/null
cust=$(last customer)
fd job add --customer "$cust" --title "Interior clean" >/dev/null
job=$(last service_order)
fd item add --job "$job" --description "Interior clean" --price 80.00 >/dev/null
fd appt add --start "2026-11-20 10:00" --end "2026-11-20 11:00" --location "Old yard" >/dev/null
fd link add --appt "$(last appointment)" --job "$job" --minutes 60 >/dev/null
fd appt add --start "2026-12-05 14:00" --end "2026-12-05 15:00" --location "New yard" >/dev/null
fd link add --appt "$(last appointment)" --job "$job" --minutes 60 >/dev/null
fd invoice issue --jobs "$job" >/dev/null
inv=$(last invoice)
# 100.00 received, 30.00 of it to the invoice: owes 50.00, credit 70.00
fd pay record --customer "$cust" --amount 100.00 --method cash "$inv=30.00" >/dev/null
fd tasks run --once --quiet >/dev/null 2>&1

# what the aging report says the customer owes and has as credit, in
# minor units, formatted as the screen writes USD
figure() {
	fd --json report aging | python3 -c '
import json, sys
for r in json.load(sys.stdin)["customers"]:
    if r["customer_id"] == int(sys.argv[1]) and r["currency"] == "USD":
        v = r[sys.argv[2]]
        print("%d.%02d USD" % (v // 100, v % 100))
' "$cust" "$1"
}
owed=$(figure owed)
credit=$(figure credit)
is "the aging report has the customer's balance" "$owed / $credit" "50.00 USD / 70.00 USD"

screen_start
shows "the calendar opens" "Week of 2026-11-29"
shows "the key hints offer c" "c Customers"
keys c
shows "c opens the customer list" "frontdesk > Calendar (Week) > Customers"
shows "with its search line" "Find (name, phone, address):"
keys "555 0142"
shows "typing narrows the list" "1 customer."
shows_re "555 0142 finds the customer by the phone's digits" "^> Phil Digits +555-0142 +12 Elm Street +$owed"
keys C-u 5550142
shows_re "so does 5550142" "^> Phil Digits +555-0142"
keys C-u "(555) 0142"
shows_re "and (555) 0142" "^> Phil Digits +555-0142"
keys C-u "elm street"
shows_re "the address is searched, ignoring case" "Phil Digits +555-0142 +12 Elm Street"
keys C-u "Phil"
shows "a name" "1 customer."
keys Enter
shows "Enter opens the customer's pane" "Customer $cust: Phil Digits"
shows_re "what they owe is at the top, as the aging report counts it" "^  Owes: $owed"
shows_re "and their credit" "^  Credit: $credit"
top=$(screen_text | grep -n "Owes: " | cut -d: -f1)
phone=$(screen_text | grep -n "Phone: 555-0142" | cut -d: -f1)
is "above the contact details" "$([ "$top" -lt "$phone" ] && echo above)" "above"
shows_re "the coming visit is listed" "2026-12-05 14:00 +scheduled +Interior clean +New yard"
shows_re "and the past one" "2026-11-20 10:00 +scheduled +Interior clean +Old yard"
coming=$(screen_text | grep -n "Coming visits" | cut -d: -f1)
past=$(screen_text | grep -n "Past visits" | cut -d: -f1)
is "coming visits come before past ones" "$([ "$coming" -lt "$past" ] && echo before)" "before"
keys e
shows "e in the customer's pane edits the customer" "Edit customer $cust (Phil Digits)"
keys Escape
shows "Esc returns to the pane" "Form closed; nothing was posted."
keys q
shows "back returns to the list" "frontdesk > Calendar (Week) > Customers"
shows "with the focus on the list, not the search line: its hints" "a New customer"
keys ?
shows_re "the help lists a in the list" "a +Add a new customer \(a form\) +customer-new"
shows_re "and e" "e +Edit the selected customer +customer-edit"
keys q
shows "q closes the help" "Tab List/search"
keys Tab
shows "Tab returns to the search line" "> Find (name, phone, address):"

# a new customer
before=$(q "SELECT count(*) FROM customer")
keys C-u "Nina Newcomer"
shows "nobody matches yet" "No customer matches."
keys Tab a
shows "a in the list opens the new-customer form" "New customer"
shows_re "the name typed in the search line is filled in" "Name +\[Nina Newcomer"
keys Tab 555-0199 Tab nina.example.com Enter
shows "a bad e-mail address is refused beside the field" "! the e-mail address must look like name@example.com"
is "and nothing is written" "$(q "SELECT count(*) FROM customer")" "$before"
keys C-u nina@example.com Tab "3 Oak Lane" Enter
shows "after posting, the new customer's pane opens" "Customer $((before + 1)): Nina Newcomer"
new=$(q "SELECT id FROM customer WHERE name = 'Nina Newcomer'")
is "the customer is in the database" "$(q "SELECT name, phone, email, address FROM customer WHERE id = $new")" "Nina Newcomer|555-0199|nina@example.com|3 Oak Lane"
shows_re "a new customer owes nothing" "^  Owes: nothing"
keys q
shows_re "and in the list" "^> Nina Newcomer +555-0199 +3 Oak Lane"

# an edit
keys e
shows "e edits the selected customer" "Edit customer $new (Nina Newcomer)"
keys Tab C-u "555 0777" Enter
shows "the edit is posted" "Customer $new changed: Nina Newcomer."
is "the phone number changed" "$(q "SELECT phone FROM customer WHERE id = $new")" "555 0777"
keys Enter
shows_re "the list shows the new number" "^> Nina Newcomer +555 0777"
his=$(q "SELECT count(*) FROM customer_his WHERE id = $new")
keys e Tab Tab C-u "nina at example" Enter
shows "a bad e-mail address is refused in an edit too" "! the e-mail address must look like name@example.com"
is "and nothing is written" "$(q "SELECT email, (SELECT count(*) FROM customer_his WHERE id = $new) FROM customer WHERE id = $new")" "nina@example.com|$his"
keys Escape
shows "Esc on a form with typed input asks first" "Close the form and lose what you typed?"
keys y
shows "y closes the form" "Form closed; nothing was posted."
keys c
shows "c in the list goes back to the search line" "> Find (name, phone, address):"
keys C-u 0777
shows_re "the new number is found by its digits" "^> Nina Newcomer +555 0777"
keys Escape
shows "Esc on the search line closes the list" "frontdesk > Calendar (Week)"
keys Q
shows "Q quits" "frontdesk-exited-0"
screen_stop
done_testing
