#!/bin/sh
# money-import.sh - `frontdesk pay import FILE.csv`: the payments of a CSV
# file recorded in one transaction with every check of `pay record`, all or
# nothing: a refused row (named by its line) or a damaged file writes nothing;
# an idempotency key makes a second import of the same file a no-op.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null

json() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
q() { sqlite3 "$FRONTDESK_DB" "$1"; }

# Ada owes $100 and $200, Bob $80.
fd customer add --name "Ada Lee" >/dev/null
fd customer add --name "Bob Ray" >/dev/null
fd job add --customer 1 --title "Wash" >/dev/null
fd job add --customer 1 --title "Detail" >/dev/null
fd job add --customer 2 --title "Vacuum" >/dev/null
fd item add --job 1 --description "Exterior wash" --price 100 >/dev/null
fd item add --job 2 --description "Interior detail" --price 200 >/dev/null
fd item add --job 3 --description "Vacuum" --price 80 >/dev/null
for j in 1 2 3; do fd invoice issue --jobs $j >/dev/null; done

# --- a file that is all right: columns in any order, blanks around names,
# quoted fields with commas and quotes, CRLF line ends
printf 'amount, customer ,method,reference,note,allocations\r\n' > "$TMP/good.csv"
printf '300,1,check,1042,"for both visits, thanks ""Ada""","INV-2026-000001=100; INV-2026-000002=200"\r\n' >> "$TMP/good.csv"
printf '50,2,cash,,,auto\r\n' >> "$TMP/good.csv"
printf '25.50,1,card,,,\r\n' >> "$TMP/good.csv"
out=$(fd pay import "$TMP/good.csv" 2>&1)
is "three payments recorded" "$out" "Recorded 3 payment(s) from $TMP/good.csv (ids 1 to 3), all in one transaction."
is "one payment row each" "$(q 'SELECT count(*) FROM payment')" 3
is "the check pays both of Ada's invoices" \
	"$(q "SELECT group_concat(status || ':' || balance, ' ') FROM invoice WHERE customer_id = 1")" \
	"paid:0 paid:0"
is "two allocations for the check, one for Bob's cash" \
	"$(q "SELECT group_concat(payment_id || ':' || invoice_id || ':' || amount, ' ') FROM payment_allocation")" \
	"1:1:10000 1:2:20000 2:3:5000"
is "auto settles part of Bob's invoice" "$(fd --json invoice show 3 | json 'd["status"], d["balance"]')" "('partially_paid', 3000)"
is "the card payment stays as Ada's credit" "$(fd --json pay show 3 | json 'd["status"], d["unallocated"]')" "('unallocated', 2550)"
is "the quoted note is kept as written" "$(q 'SELECT note FROM payment WHERE id = 1')" 'for both visits, thanks "Ada"'
is "each payment has its history" "$(q 'SELECT count(DISTINCT id) FROM payment_his')" 3
if out=$(fd check 2>&1); then like "check is clean after the import" "$out" "No problems found"; else fail "check after the import" "$out"; fi

# --- refusals: exit 1, one line naming the file and line, nothing written
printf 'customer,amount,method,allocations\n2,10,cash,\n2,40,cash,INV-2026-000003=40\n' > "$TMP/over.csv"
refused "a row that overpays an invoice refuses the whole file" pay import "$TMP/over.csv"
like "the refusal names the line and the payment" "$(fd pay import "$TMP/over.csv" 2>&1)" \
	"over.csv, line 3: payment 2 of 2: invoice INV-2026-000003 has only 30.00 USD left to pay"
printf 'customer,amount,method,allocations\n1,10,cash,\n1,10,cash,INV-2026-000003=10\n' > "$TMP/party.csv"
refused "an invoice of another customer" pay import "$TMP/party.csv"
printf 'customer,amount,method\n1,10,cash\n1,0,cash\n' > "$TMP/zero.csv"
refused "a zero amount" pay import "$TMP/zero.csv"
printf 'customer,amount,method\n1,10,barter\n' > "$TMP/method.csv"
refused "an unknown method" pay import "$TMP/method.csv"
printf 'customer,amount,method\n1,1.234,cash\n' > "$TMP/amount.csv"
refused "an amount that cannot be read" pay import "$TMP/amount.csv"
printf 'customer,amount,method,reference\n1,5,card,4111 1111 1111 1111\n' > "$TMP/card.csv"
refused "a card number as reference" pay import "$TMP/card.csv"
printf 'customer,amount,method,received\n1,5,cash,2026-12-02\n' > "$TMP/future.csv"
refused "a payment received after today" pay import "$TMP/future.csv"
printf 'customer,amount,method,allocations\n1,5,cash,INV-2026-999999=5\n' > "$TMP/noinv.csv"
refused "an unknown invoice" pay import "$TMP/noinv.csv"
printf 'customer,amount,method\n99,5,cash\n' > "$TMP/nocust.csv"
refused "an unknown customer" pay import "$TMP/nocust.csv"
printf 'customer,amount,methd\n1,5,cash\n' > "$TMP/column.csv"
refused "an unknown column (a typo must not drop data)" pay import "$TMP/column.csv"
like "it says which column" "$(fd pay import "$TMP/column.csv" 2>&1)" "line 1: unknown column 'methd'"
printf 'customer,amount\n1,5\n' > "$TMP/missing.csv"
refused "a header without the method" pay import "$TMP/missing.csv"
printf 'customer,amount,method\n1,5\n' > "$TMP/short.csv"
refused "a row with a field missing" pay import "$TMP/short.csv"
printf 'customer,amount,method,note\n1,5,cash,"never closed\n' > "$TMP/quote.csv"
refused "a quote never closed" pay import "$TMP/quote.csv"
like "it names the line" "$(fd pay import "$TMP/quote.csv" 2>&1)" "line 2: a quoted field is never closed"
printf 'customer,amount,method\n' > "$TMP/header.csv"
refused "a header and no payment" pay import "$TMP/header.csv"
: > "$TMP/empty.csv"
refused "an empty file" pay import "$TMP/empty.csv"
refused "a file that is not there" pay import "$TMP/none.csv"
is "nothing was written by any refusal" "$(q 'SELECT count(*) FROM payment')" 3

# --- idempotency: the same file twice with one key is imported once
printf 'customer,amount,method,allocations\n2,30,cash,INV-2026-000003=30\n1,5,cash,\n' > "$TMP/more.csv"
out=$(fd --json pay import "$TMP/more.csv" --idempotency-key import-2026-12-01)
is "imported with a key" "$(echo "$out" | json 'd["count"], d["payments"], d["replayed"]')" "(2, [4, 5], False)"
before=$(dump)
fd --json pay import "$TMP/more.csv" --idempotency-key import-2026-12-01 >"$TMP/out" 2>"$TMP/err"
is "the same file again exits 0" "$?" 0
is "and answers the first result" "$(json 'd["payments"], d["replayed"]' < "$TMP/out")" "([4, 5], True)"
like "and says so" "$(cat "$TMP/err")" "was used for this same request before"
is "and writes nothing" "$(dump)" "$before"
printf 'customer,amount,method\n1,6,cash\n' > "$TMP/other.csv"
refused "another file with the same key" pay import "$TMP/other.csv" --idempotency-key import-2026-12-01

# --- standard input, usage
out=$(printf 'customer,amount,method\n1,7,cash\n' | fd pay import -)
like "reads standard input" "$out" "Recorded 1 payment(s) from standard input"
fd pay import >/dev/null 2>&1
is "no file is a usage error" "$?" 2
ok "--help" fd pay import --help
if out=$(fd check 2>&1); then like "check is clean at the end" "$out" "No problems found"; else fail "check at the end" "$out"; fi
ok "no card number in the database file or its WAL after these money tests" \
	python3 "$TOP_SRCDIR/tests/lib/card-scan.py" "$FRONTDESK_DB" "$FRONTDESK_DB-wal"
done_testing
