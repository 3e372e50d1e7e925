#!/bin/sh
# ui-money-walk.sh - the whole money walk of a day at the desk in ONE screen
# session, driven only by keys, as a new front-desk user would do it
# (issue 12): an invoice paid in cash at its visit while an older one is
# open (the cash goes to the visit's own invoice; the visit's cell and the
# invoice turning paid), a check paying two invoices, a reversal of one of its
# allocations, the freed credit reused by the payment form with no second
# payment taken, a partial refund, a void and a credit note (each with a
# reason and y), a receipt and an invoice printed (text and PDF, read back
# with pdftotext), and the day view's totals equal to `frontdesk report
# takings`. The command line only sets the database up before the screen
# opens and reads what was written after each step; the amounts expected
# are computed from the amounts this test types, never copied from output.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

q() { sqlite3 "$FRONTDESK_DB" "$1"; }
# cents AMOUNT - minor units of an amount as typed (40.00 -> 4000)
cents() { python3 -c 'import sys; a, b = sys.argv[1].split("."); print(int(a) * 100 + int(b))' "$1"; }
# money CENTS - as the screen writes it (4000 -> 40.00)
money() { python3 -c 'import sys; v=int(sys.argv[1]); print("{:,}.{:02d}".format(v // 100, v % 100))' "$1"; }
# js EXPR - a figure from the JSON on stdin (d is the document)
js() { python3 -c 'import json, sys; d = json.load(sys.stdin); print(eval(sys.argv[1]))' "$@"; }
bal() { fd --json invoice show "$1" | js 'str(d["status"]) + " " + str(d["paid"]) + " " + str(d["balance"])'; }
# shows_wrapped NAME TEXT - the pane shows TEXT, perhaps wrapped over lines
# (the screen's lines joined, runs of blanks made one)
wrapped_has() { screen_text | tr -s ' \n' '  ' | grep -Fq -- "$1"; }
shows_wrapped() {
	if until_ok 10 wrapped_has "$2"; then
		pass "$1"
	else
		fail "$1" "screen:" "$(screen_text)"
	fi
}
check_clean() {
	if out=$(fd check 2>&1); then pass "$1"; else fail "$1" "$out"; fi
}

# What the test types, and the prices of the day's five visits.
P_WASH=40.00 P_WAX=50.00 P_POLISH=70.00 P_RIMS=25.00 P_GLASS=30.00
CASH=$P_POLISH  # step 1: the Polish paid in cash at its visit, exactly
CHECK=150.00    # step 2: one check for the Wash and the Wax, the rest credit
CHECKNO=1001
REFUND=10.00    # step 5: part of what is left on the check given back
CREDIT=10.00    # step 6: a credit note against the Rims

fd init >/dev/null
fd customer add --name "Wanda Walk" --phone 555-0404 >/dev/null
for spec in "10:00 11:00 Wash $P_WASH" "11:00 12:00 Wax $P_WAX" "13:00 14:00 Polish $P_POLISH" \
	"15:00 16:00 Rims $P_RIMS" "16:00 17:00 Glass $P_GLASS"; do
	set -- $spec
	fd book --customer Wanda --start "2026-12-01 $1" --end "2026-12-01 $2" --title "$3" >/dev/null
	fd item add --job "$(q 'SELECT max(id) FROM service_order')" --description "$3" --price "$4" >/dev/null
done
for j in 1 2 3 4 5; do fd invoice issue --jobs "$j" >/dev/null; done
num() { q "SELECT number FROM invoice WHERE id = $1"; }
WASH=$(num 1) WAX=$(num 2) POLISH=$(num 3) RIMS=$(num 4) GLASS=$(num 5)
fd tasks run --once --quiet >/dev/null 2>&1
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
printf 'screen_channel = no\nshop_name = Walk Motors\n' >"$XDG_CONFIG_HOME/frontdesk/config"
DIR=$(dirname "$FRONTDESK_DB")/prints
is "five invoices to collect" "$(q "SELECT count(*) FROM invoice WHERE status = 'issued'")" 5

screen_start
shows "the calendar opens" "Week of 2026-11-29"
keys d
shows "the day view" "Tuesday 2026-12-01 (today) - 5 visits"
shows_re "the day's first visit is unpaid" "^> 10:00-11:00 ! unpaid .*Wanda Walk .*Wash"

# --- 1. the Polish paid in cash at its visit ----------------------------------
# its invoice is not the customer's oldest: money taken at a visit goes to the
# visit's own invoice first, not to an older one
keys j j
shows_re "the Polish is selected" "^> 13:00-14:00 ! unpaid .*Wanda Walk .*Polish"
keys Enter
shows "Enter opens the visit" "Visit 3: 2026-12-01 13:00-14:00"
keys p
shows "p opens the payment form" "Record a payment from Wanda Walk (USD)"
shows "no credit is offered: there is none" "Amount received"
shows "the visit's invoice comes first" "Allocate to open invoices ($POLISH first, then oldest due):"
keys "$CASH"
shows_re "the cash goes to the visit's invoice" "$POLISH owes $P_POLISH.*\[$P_POLISH "
shows_re "not to the older Wash" "$WASH owes $P_WASH, due [0-9-]+ +\[ +\]"
shows "nothing is left over" "Allocated $CASH   Left as the customer's credit 0.00"
keys Enter
shows "the receipt" "Payment 1 recorded: $CASH USD by cash from Wanda Walk."
shows "it paid the Polish" "$CASH allocated to $POLISH"
keys Enter
shows "the visit says paid" "Calendar: = paid, $P_POLISH USD for this visit"
is "one cash payment of what was typed" "$(q "SELECT count(*), sum(amount), method FROM payment")" "1|$(cents "$CASH")|cash"
is "the Polish is paid (command line)" "$(bal "$POLISH")" "paid $(cents "$CASH") 0"
is "the Wash still owes all" "$(bal "$WASH")" "issued 0 $(cents "$P_WASH")"
keys G Enter
shows "the invoice pane" "Invoice $POLISH - Wanda Walk"
shows "it says paid" "Status: paid"
shows_re "its balance is nothing" "Balance +0\.00$"
keys q q
shows_re "the calendar cell turned paid" "^> 13:00-14:00 = paid .*Polish"

# --- 2. one check pays the Wash and the Wax ------------------------------------
keys k k
shows_re "the Wash is selected" "^> 10:00-11:00 ! unpaid .*Wash"
keys Enter p
shows "the payment form again" "Record a payment from Wanda Walk (USD)"
keys "$CHECK" Tab Right Tab "$CHECKNO"
shows "paid by check" "< check >"
shows_re "the Wash is proposed in full" "$WASH owes $P_WASH.*\[$P_WASH "
shows_re "then the Wax" "$WAX owes $P_WAX.*\[$P_WAX "
# the check is for these two: the other invoices' proposed rows are cleared
keys Tab Tab Tab Tab Tab C-u Tab C-u
LEFT=$(money $(($(cents "$CHECK") - $(cents "$P_WASH") - $(cents "$P_WAX"))))
shows "the rest is the customer's credit" \
	"Allocated $(money $(($(cents "$P_WASH") + $(cents "$P_WAX"))))   Left as the customer's credit $LEFT"
keys Enter
shows "the check is recorded" "Payment 2 recorded: $CHECK USD by check from Wanda Walk."
shows "across both invoices" "$P_WAX allocated to $WAX"
keys Enter
shows "the Wash's visit says paid" "Calendar: = paid, $P_WASH USD for this visit"
is "one check of what was typed" "$(q "SELECT amount, method, reference, amount - allocated FROM payment WHERE id = 2")" \
	"$(cents "$CHECK")|check|$CHECKNO|$(cents "$LEFT")"
is "allocated to the two invoices" \
	"$(q "SELECT group_concat(invoice_id || '=' || amount, ' ') FROM (SELECT * FROM payment_allocation WHERE payment_id = 2 ORDER BY id)")" \
	"1=$(cents "$P_WASH") 2=$(cents "$P_WAX")"
is "the Wash is paid" "$(bal "$WASH")" "paid $(cents "$P_WASH") 0"
is "the Wax is paid" "$(bal "$WAX")" "paid $(cents "$P_WAX") 0"
like "the check shows in the payment list" "$(fd pay list)" "$CHECK"
keys q j
shows_re "the Wax is selected" "^> 11:00-12:00 = paid .*Wax"
keys Enter
shows "the Wax's visit" "Calendar: = paid, $P_WAX USD for this visit"

# --- 3. the check's allocation to the Wax is reversed -------------------------
keys G Enter
shows "the Wax's invoice" "Invoice $WAX - Wanda Walk"
shows_re "its allocation from the check is selected" "^> #[0-9]+ .*payment 2 +check $CHECKNO +$P_WAX live"
keys x
shows "x opens the reversal form" "Reverse allocation #"
keys "put on the wrong invoice" Enter
shows "it asks first" "Press y to confirm"
keys y
shows "the receipt says the money is credit again" "is back on payment 2 as the customer's credit"
shows_wrapped "and says, whole, which invoice owes it again" "customer's credit, and $WAX owes it again."
keys Enter
shows_re "the pane shows the allocation reversed" "REVERSED by #[0-9]+"
shows "the invoice owes again" "Status: issued, unpaid"
shows_re "its whole price" "Balance +$P_WAX$"
resize 80 24
shows_re "at 80 columns the allocation still says it is reversed" "^> #[0-9]+ .* $P_WAX REVERSED by #[0-9]+ *$"
shows_re "and its reversal says what it is" "^  #[0-9]+ .* -$P_WAX reversal of #[0-9]+ *$"
resize 120 40
shows "the pane at 120 columns again" "Card orders through the channel"
is "the Wax owes again (command line)" "$(bal "$WAX")" "issued 0 $(cents "$P_WAX")"
CRED=$(($(cents "$LEFT") + $(cents "$P_WAX")))
is "the check holds the freed money as credit" "$(q "SELECT amount - allocated FROM payment WHERE id = 2")" "$CRED"
keys q
shows "the visit follows" "Calendar: ! unpaid, $P_WAX USD for this visit"

# --- 4. the freed credit pays the Wax again: no second payment ----------------
keys p
shows "the payment form offers the credit first" "Use the credit on account ($(money "$CRED") USD) first"
shows "new money is optional" "New money received (empty: none)"
resize 80 24
shows "at 80 columns the credit's amount is not cut away" "Use credit ($(money "$CRED") USD) first"
resize 120 40
shows "at 120 columns the whole label again" "Use the credit on account ($(money "$CRED") USD) first"
shows_re "the credit is proposed to the Wax" "$WAX owes $P_WAX.*\[$P_WAX "
# only the Wax: the rows proposed to the Rims and the Glass are cleared
keys Tab Tab Tab Tab Tab Tab C-u Tab C-u
LEFT2=$(money $((CRED - $(cents "$P_WAX"))))
shows "the summary says where the money comes from" \
	"Allocated $P_WAX: $P_WAX from the credit, 0.00 from this payment;"
shows_wrapped "and, whole, what is left as credit" "0.00 from this payment; left as credit $LEFT2"
keys Enter
shows "the credit is allocated" "$P_WAX USD of Wanda Walk's credit allocated."
shows "no new payment" "No new payment was needed."
keys Enter
shows "the visit is paid again" "Calendar: = paid, $P_WAX USD for this visit"
is "still two payments" "$(q "SELECT count(*) FROM payment")" 2
is "the Wax is paid from the check" "$(bal "$WAX")" "paid $(cents "$P_WAX") 0"
is "the check's credit left" "$(q "SELECT amount - allocated FROM payment WHERE id = 2")" "$(cents "$LEFT2")"

# --- 5. part of the credit given back -----------------------------------------
keys G Enter
shows "the Wax's invoice again" "Invoice $WAX - Wanda Walk"
keys G
shows_re "the live allocation is selected" "^> #[0-9]+ .*payment 2 .* $P_WAX live"
keys Enter
shows "Enter opens the check" "Payment 2 from Wanda Walk"
shows_re "its credit" "Unallocated \(customer's credit\) +$LEFT2 USD"
keys r
shows_re "the refund proposes the whole credit" "Amount to give back +\[$LEFT2"
keys C-u "$REFUND" Tab Tab Tab "customer asked" Enter
shows "it asks before giving money back" "Give back $REFUND USD of payment 2 to Wanda Walk?"
keys y
shows "the refund is posted" "$REFUND USD of payment 2 given back to Wanda Walk."
keys Enter
shows_re "the payment lists it" "^  R[0-9]+ +2026-12-01 09:00 +$REFUND +succeeded +customer asked"
LEFT3=$(money $(($(cents "$LEFT2") - $(cents "$REFUND"))))
shows_re "and the credit left" "Unallocated \(customer's credit\) +$LEFT3 USD"
is "one refund of what was typed" "$(q "SELECT count(*), sum(amount), status FROM refund WHERE payment_id = 2")" "1|$(cents "$REFUND")|succeeded"
like "the payment list shows the credit left" "$(fd pay list | grep "^ *2 ")" "$LEFT3"
keys q q q
shows "back on the day" "Tuesday 2026-12-01 (today)"

# the customer's pane on a screen of 80x24: what she owes and her credit show
# at its top as it opens (the report's figures, and the test's)
resize 80 24
keys c
shows "c opens the customer list" "Find (name, phone, address):"
keys Wanda
shows_re "she is found" "^> Wanda Walk"
keys Enter
OWES=$(money $(($(cents "$P_RIMS") + $(cents "$P_GLASS"))))
aging=$(fd --json report aging | js '[(r["owed"], r["credit"]) for r in d["customers"]][0]')
is "the report: what she owes and her credit" "$aging" "($(cents "$OWES"), $(cents "$LEFT3"))"
shows "the pane opens on what she owes" "Owes: $OWES USD"
shows "and her credit" "Credit: $LEFT3 USD"
keys q
shows "q goes back to the list's search line" "Find (name, phone, address): [Wanda"
keys Escape
resize 120 40
shows "back on the day at 120 columns" "Tuesday 2026-12-01 (today)"

# --- 6. a void and a credit note ----------------------------------------------
keys j j j
shows_re "the Glass is selected" "^> 16:00-17:00 ! unpaid .*Glass"
keys Enter G Enter
shows "the Glass's invoice" "Invoice $GLASS - Wanda Walk"
keys V
shows "V opens the void form" "Void $GLASS"
keys "customer cancelled" Enter
shows "it asks for y" "Void $GLASS ($P_GLASS USD)?"
keys y
shows "voided" "$GLASS is void."
keys Enter
shows "the pane says void" "Status: void"
shows_re "its balance is nothing: a void invoice is owed by nobody" "Balance +0\.00$"
shows "and says why" "Void: nothing is owed on it."
ok "its printed copy owes nothing either" sh -c '"$FRONTDESK" invoice print "$1" | grep -Eq "^Balance +0\.00$"' - "$GLASS"
is "void on the command line" "$(q "SELECT status FROM invoice WHERE number = '$GLASS'")" void
is "with its reason" "$(q "SELECT reason FROM status_flow WHERE entity = 'invoice' AND entity_id = 5 AND to_status = 'void'")" "customer cancelled"
keys q
shows "the visit says void" "Calendar: x void"
shows_re "the visit's invoice line owes nothing" "$GLASS +void .* balance 0\.00"
keys q k
shows_re "the Rims is selected" "^> 15:00-16:00 ! unpaid .*Rims"
keys Enter G Enter
shows "the Rims' invoice" "Invoice $RIMS - Wanda Walk"
keys w
shows "w opens the credit note form" "Credit note against $RIMS"
shows_re "the balance is proposed" "Amount +\[$P_RIMS"
keys C-u "$CREDIT" Tab "scratch on the rim" Enter
shows "it asks for y" "Issue a credit note of $CREDIT USD against $RIMS?"
keys y
shows "issued" "issued against $RIMS: $CREDIT USD."
keys Enter
RIMSBAL=$(money $(($(cents "$P_RIMS") - $(cents "$CREDIT"))))
shows_re "the invoice is credited" "Credited +$CREDIT$"
shows_re "and owes the rest" "Balance +$RIMSBAL$"
is "one credit note of what was typed" "$(q "SELECT count(*), sum(total), credits_id FROM invoice WHERE kind = 'credit_note'")" "1|-$(cents "$CREDIT")|4"
is "the Rims owes the rest (command line)" "$(bal "$RIMS")" "issued 0 $(cents "$RIMSBAL")"
check_clean "frontdesk check is clean after the corrections"
keys q
shows_re "the visit's invoice line owes the rest" "$RIMS +issued, unpaid +total $P_RIMS +paid 0\.00 +balance $RIMSBAL$"
resize 80 24
shows_re "at 80 columns the line keeps the balance (paid gives way)" "$RIMS +issued, unpaid +total $P_RIMS +balance $RIMSBAL$"
resize 120 40
shows_re "and shows what was paid again at 120" "$RIMS +issued, unpaid +total $P_RIMS +paid 0\.00 +balance $RIMSBAL$"

# --- 7. print: the invoice and the cash receipt, text and PDF ----------------
keys q k
shows_re "the Polish is selected" "^> 13:00-14:00 = paid .*Polish"
keys Enter G Enter
shows "the Polish's invoice" "Invoice $POLISH - Wanda Walk"
keys P
shows "P opens the print form" "Print $POLISH"
keys Enter
shows "the invoice is printed" "$POLISH written to $DIR/$POLISH.txt"
is "as the command line prints it" "$(cat "$DIR/$POLISH.txt" 2>&1)" "$(fd invoice print "$POLISH")"
keys P Right
shows "then as a PDF" "$DIR/$POLISH.pdf"
keys Enter
shows "the PDF is written" "$POLISH written to $DIR/$POLISH.pdf"
pdf=$(pdftotext -layout "$DIR/$POLISH.pdf" - 2>&1)
like "the PDF holds the shop's name" "$pdf" "Walk Motors"
like "the invoice number" "$pdf" "$POLISH"
ok "the line" sh -c 'printf "%s\n" "$1" | grep -Eq "^Polish +1 +$2 +$2$"' - "$pdf" "$P_POLISH"
ok "the total" sh -c 'printf "%s\n" "$1" | grep -Eq "^Total +$2$"' - "$pdf" "$P_POLISH"
ok "what was paid" sh -c 'printf "%s\n" "$1" | grep -Eq "^Paid +$2$"' - "$pdf" "$CASH"
ok "the balance" sh -c 'printf "%s\n" "$1" | grep -Eq "^Balance +0\.00$"' - "$pdf"
keys Enter
shows "the cash payment" "Payment 1 from Wanda Walk"
keys P
shows "P prints its receipt" "Print the receipt of payment 1"
keys Enter
shows "the receipt is printed" "Receipt of payment 1 written to $DIR/receipt-1.txt"
is "as the command line prints it" "$(cat "$DIR/receipt-1.txt" 2>&1)" "$(fd pay print 1)"
keys P Right Enter
shows "the receipt as a PDF" "Receipt of payment 1 written to $DIR/receipt-1.pdf"
pdf=$(pdftotext -layout "$DIR/receipt-1.pdf" - 2>&1)
like "the receipt's PDF says RECEIPT" "$pdf" "RECEIPT"
ok "what was received" sh -c 'printf "%s\n" "$1" | grep -Eq "^Amount received +$2$"' - "$pdf" "$CASH"
ok "the invoice it paid" sh -c 'printf "%s\n" "$1" | grep -Eq "^ +$2 .* $3$"' - "$pdf" "$POLISH" "$CASH"
keys q q q
shows "back on the day again" "Tuesday 2026-12-01 (today)"

# --- 8. the day's totals: the screen's figures equal the report's -------------
takings=$(fd --json report takings --from 2026-12-01 --to 2026-12-02)
net() { printf '%s' "$takings" | js 'sum(r["net"] for r in d["days"] if r["day"] == "2026-12-01" and sys.argv[2] in ("", r["method"]))' "$1"; }
want_cash=$(cents "$CASH")
want_check=$(($(cents "$CHECK") - $(cents "$REFUND")))
is "the report: cash as typed" "$(net cash)" "$want_cash"
is "the report: the check less the refund" "$(net check)" "$want_check"
is "the report: the day" "$(net "")" "$((want_cash + want_check))"
# the screen's lines are read until they hold the report's figures (they are
# read when the screen is idle), then compared whole
want_line="  Booked $(money $(($(cents "$P_WASH") + $(cents "$P_WAX") + $(cents "$P_POLISH") + $(cents "$P_RIMS") + $(cents "$P_GLASS")))) USD  Invoiced $(money $(($(cents "$P_WASH") + $(cents "$P_WAX") + $(cents "$P_POLISH") + $(cents "$P_RIMS")))) USD  Taken $(money "$(net "")") USD"
want_bymethod="  Taken by method: cash $(money "$(net cash)"), check $(money "$(net check)")"
has_line() { screen_text | grep -qxF -- "$1"; }
until_ok 10 has_line "$want_line"
is "the screen's totals: booked as typed, invoiced less the void, taken as the report" \
	"$(screen_text | grep -E '^  Booked ')" "$want_line"
until_ok 10 has_line "$want_bymethod"
is "the screen's takings by method are the report's" \
	"$(screen_text | grep -E '^  Taken by method: ')" "$want_bymethod"

# what she owes at a glance on a screen of 80x24: the receivables aging keeps
# every bucket and the total owed (the report's figures, and the test's)
owed=$(fd --json report aging | js 'd["customers"][0]["owed"]')
is "the report: she owes the Rims' rest" "$owed" "$(cents "$RIMSBAL")"
resize 80 24
keys A
shows "A opens the aging" "Receivables on 2026-12-01 by days past due"
shows_re "at 80 columns every bucket is there, over 90 too" "^  Customer +Current +1-30 +31-60 +61-90 +Over 90 +Owed *$"
shows_re "and her row ends with what she owes" "^> Wanda Walk +USD +$RIMSBAL +$(money "$owed") *$"
keys q
resize 120 40
shows "back on the day" "Tuesday 2026-12-01 (today)"

# --- 9. a card payment through the QR code page -------------------------------
# Walked in tests/ui/ui-qr.sh ("The money walk's card step"): it needs the fake
# channel and a provider set up, which this session runs without
# (screen_channel = no): the code on the screen decoded back to the
# channel's page, paid at the fake, the visit's cell paid after one poll.

check_clean "frontdesk check is clean at the end"
keys Q
shows "Q quits" "frontdesk-exited-0"
done_testing
