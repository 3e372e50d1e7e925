#!/bin/sh
# cli-money.sh - invoices, payments, allocations, reversals, refunds, credit
# notes and `frontdesk check` from the command line: the $300 check that pays
# two visits, every refusal leaving the database as it was, posted money that
# the sqlite3 shell cannot edit, and a corrupted copy that check reports.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null

json() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
checked() { # checked NAME: frontdesk check must be clean
	if out=$(fd check 2>&1); then like "$1: check is clean" "$out" "No problems found"; else fail "$1: check" "$out"; fi
}

# Two visits, one job each: $100 and $200.
fd customer add --name "Ada Lee" >/dev/null
fd job add --customer 1 --title "Wash (first visit)" >/dev/null
fd job add --customer 1 --title "Detail (second visit)" >/dev/null
fd appt add --start "2026-11-20 09:00" --end "2026-11-20 10:00" >/dev/null
fd appt add --start "2026-11-27 09:00" --end "2026-11-27 11:00" >/dev/null
fd link add --appt 1 --job 1 --minutes 60 >/dev/null
fd link add --appt 2 --job 2 --minutes 120 >/dev/null
fd item add --job 1 --description "Exterior wash" --price 100 >/dev/null
fd item add --job 2 --description "Interior detail" --price 150 >/dev/null
fd item add --job 2 --description "Wax" --price 50 >/dev/null

out=$(fd invoice issue --jobs 1); like "first invoice issued" "$out" "INV-2026-000001"
out=$(fd invoice issue --jobs 2); like "second invoice issued" "$out" "INV-2026-000002"
is "first invoice total" "$(fd --json invoice show INV-2026-000001 | json 'd["total"]')" 10000
is "second invoice total" "$(fd --json invoice show 2 | json 'd["total"]')" 20000
is "due in 30 days by default" "$(fd --json invoice show 1 | json 'd["due_at"]')" "2026-12-31T14:00:00Z"

# --- one $300 check pays both
out=$(fd pay record --customer 1 --amount 300 --method check --reference 1042 \
	INV-2026-000001=100 INV-2026-000002=200)
like "check recorded" "$out" "Payment 1 recorded: 300.00 USD by check"
like "nothing left as credit" "$out" "Left unallocated (the customer's credit): 0.00 USD"
is "one payment" "$(sqlite3 "$FRONTDESK_DB" 'SELECT count(*) FROM payment')" 1
is "two allocations" "$(sqlite3 "$FRONTDESK_DB" 'SELECT count(*) FROM payment_allocation')" 2
is "first invoice paid" "$(fd --json invoice show 1 | json 'd["status"], d["balance"]')" "('paid', 0)"
is "second invoice paid" "$(fd --json invoice show 2 | json 'd["status"], d["balance"]')" "('paid', 0)"
is "payment fully allocated" "$(fd --json pay show 1 | json 'd["status"], d["unallocated"]')" "('allocated', 0)"
is "invoice list shows both paid" "$(fd --json invoice list --customer 1 | json '[i["status"] for i in d["invoices"]]')" "['paid', 'paid']"
checked "after the check"

# --- refusals: exit 1, one line, nothing changed
fd job add --customer 1 --title "Third visit" >/dev/null
fd item add --job 3 --description "Vacuum" --price 80 >/dev/null
fd invoice issue --jobs 3 >/dev/null
fd job add --customer 1 --title "Euro job" --currency EUR >/dev/null
fd item add --job 4 --description "Wash" --price 60 >/dev/null
fd invoice issue --jobs 4 >/dev/null
fd job add --customer 1 --title "Cancelled order" >/dev/null
fd item add --job 5 --description "Nothing" --price 10 >/dev/null
fd invoice issue --jobs 5 >/dev/null
ok "void INV-2026-000005" fd invoice void INV-2026-000005 --reason "ordered by mistake"
is "a void invoice owes nothing in invoice show (its price is not shown as its balance)" \
	"$(fd invoice show INV-2026-000005 | grep '^Balance:')" "Balance: 0.00"
is "nor in invoice list" "$(fd invoice list | grep INV-2026-000005 | awk '{print $6, $7}')" "10.00 0.00"
is "the JSON keeps the stored balance and says what is owed" \
	"$(fd --json invoice show INV-2026-000005 | python3 -c 'import json,sys; d=json.load(sys.stdin); d=d.get("invoice", d); print(d["balance"], d["owed"])')" "1000 0"
fd pay record --customer 1 --amount 50 --method cash >/dev/null
refused "over-allocation" pay allocate 2 INV-2026-000003=60
refused "allocation to a void invoice" pay allocate 2 INV-2026-000005=10
refused "currency mismatch" pay allocate 2 INV-2026-000004=10
refused "zero allocation" pay allocate 2 INV-2026-000003=0
refused "negative allocation" pay allocate 2 INV-2026-000003=-5
refused "overflowing allocation" pay allocate 2 INV-2026-000003=99999999999999999999
refused "zero payment" pay record --customer 1 --amount 0 --method cash
refused "negative payment" pay record --customer 1 --amount -10 --method cash
refused "overflowing payment" pay record --customer 1 --amount 99999999999999999999 --method cash
refused "payment beyond the largest amount" pay record --customer 1 --amount 92,233,720,368,547,758.07 --method cash
refused "a payment whose allocation overpays is not recorded" pay record --customer 1 --amount 500 --method cash INV-2026-000003=100
refused "a card number as reference" pay record --customer 1 --amount 5 --method card --reference "4111-1111-1111-1111"
refused "unknown invoice" pay allocate 2 INV-2026-999999=5
refused "unknown customer" pay record --customer 99 --amount 5 --method cash
refused "bad amount" pay record --customer 1 --amount 1.234 --method cash
refused "received after today" pay record --customer 1 --amount 5 --method cash --received 2026-12-02
refused "unknown method" pay record --customer 1 --amount 5 --method barter
refused "unknown currency" pay record --customer 1 --amount 5 --method cash --currency XYZ
refused "nothing left to invoice" invoice issue --items 1
refused "a quantity beyond the item" invoice issue --items 4=2
refused "refund beyond the payment" refund 2 --amount 51 --reason "too much"
refused "void an invoice with allocations" invoice void 1 --reason "no"
refused "credit beyond the balance" invoice credit 1 --amount 1 --reason "paid already"
refused "invoice an item twice" invoice issue --jobs 1
fd pay allocate 2 --auto --yes INV-2026-000003=1 >/dev/null 2>&1; is "allocations and --auto together is bad usage" "$?" 2
err=$(fd pay allocate 2 INV-2026-000003=60 2>&1); like "over-allocation says why" "$err" "payment 2 has only 50.00 USD unallocated"
err=$(fd pay allocate 2 INV-2026-000004=10 2>&1); like "currency mismatch says why" "$err" "currencies must match"
err=$(fd pay allocate 2 INV-2026-000005=10 2>&1); like "void invoice says why" "$err" "void and takes no payments"
err=$(fd pay allocate 2 INV-2026-000003=0 2>&1); like "zero says why" "$err" "greater than zero"
err=$(fd pay record --customer 1 --amount 99999999999999999999 --method cash 2>&1); like "overflow says why" "$err" "too large"
fd pay record --customer 1 --method cash >/dev/null 2>&1; is "missing --amount is bad usage" "$?" 2
checked "after the refusals"

# --- a direct UPDATE or DELETE of a posted allocation fails, whatever program tries
before=$(dump)
out=$(sqlite3 "$FRONTDESK_DB" "UPDATE payment_allocation SET amount = 1 WHERE id = 1" 2>&1)
like "sqlite3 UPDATE of an allocation fails" "$out" "posted money is never edited"
out=$(sqlite3 "$FRONTDESK_DB" "DELETE FROM payment_allocation WHERE id = 1" 2>&1)
like "sqlite3 DELETE of an allocation fails" "$out" "posted money is never deleted"
sqlite3 "$FRONTDESK_DB" "UPDATE payment SET amount = 1 WHERE id = 1" >/dev/null 2>&1
ok "sqlite3 UPDATE of a payment fails" test "$?" -ne 0
is "nothing changed" "$(dump)" "$before"
# the refusal is the schema's own trigger, not a missing function: a program
# that registers the functions the triggers call is refused too
cat > "$TMP/edit.py" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.create_function("fd_operator", 0, lambda: "intruder")
c.create_function("fd_now", 0, lambda: 0)
c.create_function("fd_reason", 0, lambda: None)
try:
    c.execute(sys.argv[2])
    c.commit()
    print("allowed")
except sqlite3.DatabaseError as e:
    print("refused:", e)
EOF
like "UPDATE of an allocation refused by trigger" "$(python3 "$TMP/edit.py" "$FRONTDESK_DB" "UPDATE payment_allocation SET amount = 1 WHERE id = 1")" "refused: posted money is never edited"
like "DELETE of an allocation refused by trigger" "$(python3 "$TMP/edit.py" "$FRONTDESK_DB" "DELETE FROM payment_allocation WHERE id = 1")" "refused: posted money is never deleted"
like "UPDATE of a payment amount refused" "$(python3 "$TMP/edit.py" "$FRONTDESK_DB" "UPDATE payment SET amount = 1 WHERE id = 1")" "refused: posted money is never edited"
like "UPDATE of invoice paid refused" "$(python3 "$TMP/edit.py" "$FRONTDESK_DB" "UPDATE invoice SET paid = 0, balance = total WHERE id = 1")" "refused: invoice paid must equal"
like "UPDATE of an invoice line refused" "$(python3 "$TMP/edit.py" "$FRONTDESK_DB" "UPDATE invoice_line SET unit_price = 1")" "refused: posted money is never edited"
is "still nothing changed" "$(dump)" "$before"

# --- a corrupted copy is reported by check
sqlite3 "$FRONTDESK_DB" ".backup '$TMP/bad.db'"
sqlite3 "$TMP/bad.db" "DROP TRIGGER payment_allocation_no_update; UPDATE payment_allocation SET amount = 5000 WHERE id = 1"
fd --db "$TMP/bad.db" check >"$TMP/out" 2>"$TMP/err"; is "check of a corrupted copy exits 1" "$?" 1
out=$(cat "$TMP/out")
like "it names the invoice whose paid is wrong" "$out" "invoice-paid: invoice 1 (INV-2026-000001): paid 10000 but its live allocations add up to 5000"
like "it names the over-counted payment" "$out" "payment-allocated: payment 1"
like "it sees the row differ from its history" "$out" "history-differs: payment_allocation 1"
like "it says how many" "$(cat "$TMP/err")" "problem(s)"
is "json check lists every violation" "$(fd --db "$TMP/bad.db" --json check | json 'sorted(set(v["code"] for v in d["violations"]))')" "['history-differs', 'invoice-paid', 'payment-allocated']"
is "json check of the good database" "$(fd --json check | json 'd["count"]')" 0
out=$(fd --read-only check 2>&1); like "check works on a read-only database" "$out" "No problems found"

# --- reversal, refund, credit note, void
out=$(fd pay reverse 2 --reason "second visit was billed twice"); like "reversal posted" "$out" "Allocation 2 reversed by 3"
is "invoice 2 owes again" "$(fd --json invoice show 2 | json 'd["status"], d["balance"]')" "('issued', 20000)"
is "payment 1 has credit" "$(fd --json pay show 1 | json 'd["status"], d["unallocated"]')" "('partially_allocated', 20000)"
refused "reverse twice" pay reverse 2 --reason "again"
refused "reverse a reversal" pay reverse 3 --reason "undo"
out=$(fd invoice credit INV-2026-000002 --amount 50 --reason "wax not applied"); like "credit note issued" "$out" "CN-2026-000001"
is "invoice 2 after the credit note" "$(fd --json invoice show 2 | json 'd["credited"], d["balance"], len(d["credit_notes"])')" "(5000, 15000, 1)"
out=$(fd pay allocate 1 INV-2026-000002=150); like "allocate the credit again" "$out" "allocation 4: 150.00 to INV-2026-000002"
out=$(fd refund 1 --amount 50 --reason "the rest back"); like "refund of the rest" "$out" "Refund 1: 50.00 USD back from payment 1"
is "payment 1 figures" "$(fd --json pay show 1 | json 'd["allocated"], d["refunded"], d["unallocated"], len(d["refunds"])')" "(25000, 5000, 0, 1)"
refused "refund of allocated money" refund 1 --amount 1 --reason "more"
err=$(fd refund 1 --amount 1 --reason more 2>&1); like "refund says to reverse first" "$err" "reverse allocations of it"
ok "void an unused payment" fd pay void 2 --reason "entered twice"
refused "allocate a void payment" pay allocate 2 INV-2026-000003=1
checked "after reversal, credit note, refund"

# --- automatic allocation: a proposal first, posted only with --yes
fd job add --customer 1 --title "Later work" >/dev/null
fd item add --job 6 --description "Polish" --price 1,234.50 >/dev/null
fd invoice issue --jobs 6 --terms 60 >/dev/null
before=$(dump)
out=$(fd pay record --customer 1 --amount 1,000 --method bank_transfer --auto)
like "proposal: oldest due first" "$out" "INV-2026-000003 due 2026-12-31: 80.00 of 80.00 owed"
like "proposal: then the later one" "$out" "INV-2026-000006 due 2027-01-30: 920.00 of 1,234.50 owed"
like "proposal: nothing recorded" "$out" "Nothing was recorded"
is "the proposal wrote nothing" "$(dump)" "$before"
is "json proposal" "$(fd --json pay record --customer 1 --amount 1,000 --method bank_transfer --auto | json '[(p["invoice_number"], p["amount"]) for p in d["proposal"]]')" "[('INV-2026-000003', 8000), ('INV-2026-000006', 92000)]"
out=$(fd pay record --customer 1 --amount 1,000 --method bank_transfer --auto --yes)
like "posted with --yes" "$out" "allocation 5: 80.00 to INV-2026-000003"
is "the later invoice partly paid" "$(fd --json invoice show INV-2026-000006 | json 'd["status"], d["balance"]')" "('partially_paid', 31450)"
checked "after the automatic allocation"

# --- lists, shows, help
is "pay list --json" "$(fd --json pay list --customer 1 | json 'len(d["payments"])')" 3
out=$(fd pay list); like "pay list shows the void payment" "$out" "void"
out=$(fd invoice list --status open); like "open invoices" "$out" "INV-2026-000006"
open_json=$(fd --json invoice list --status open)
is "open invoices are the invoices issued or partly paid, never a credit note (one definition)" \
	"$(echo "$open_json" | json 'sorted(i["number"] for i in d["invoices"])')" \
	"$(sqlite3 "$FRONTDESK_DB" "SELECT '[' || group_concat(quote(number), ', ') || ']' FROM (SELECT number FROM invoice WHERE kind = 'invoice' AND status IN ('issued', 'partially_paid') ORDER BY number)")"
out=$(fd invoice show INV-2026-000002); like "invoice show lists the reversal" "$out" "(reverses #2)"
like "invoice show lists the credit note" "$out" "CN-2026-000001"
out=$(fd pay show 1); like "pay show lists the refund" "$out" "the rest back"
is "status flow of invoice 2" "$(sqlite3 "$FRONTDESK_DB" "SELECT group_concat(to_status, ',') FROM (SELECT to_status FROM status_flow WHERE entity = 'invoice' AND entity_id = 2 ORDER BY id)")" "draft,issued,paid,issued,paid"
is "status flow keeps the reason" "$(sqlite3 "$FRONTDESK_DB" "SELECT reason FROM status_flow WHERE entity = 'invoice' AND entity_id = 2 AND from_status = 'paid'")" "second visit was billed twice"
for cmd in "invoice issue" "invoice list" "invoice show" "invoice void" "invoice credit" \
	"pay record" "pay allocate" "pay reverse" "pay show" "pay list" "pay void" refund check; do
	# shellcheck disable=SC2086
	fd $cmd --help >/dev/null 2>&1; is "$cmd --help exits 0" "$?" 0
done
for g in invoice pay; do
	fd $g --help >/dev/null 2>&1; is "$g --help exits 0" "$?" 0
done
checked "at the end"

ok "no card number in the database file or its WAL after these money tests" \
	python3 "$TOP_SRCDIR/tests/lib/card-scan.py" "$FRONTDESK_DB" "$FRONTDESK_DB-wal"
done_testing
