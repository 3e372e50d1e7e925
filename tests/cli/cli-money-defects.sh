#!/bin/sh
# cli-money-defects.sh - money defects found by a user, each fixed in the
# core and checked here from the command line: an invoiced line item that
# could be re-priced, line items beyond the money limit (and a `check` that
# stopped at the first row it could not add up), blanks that `pay import`
# trimmed where `pay record` refuses them (also around an allocation, read
# by one core function for both), a decimal comma read as an item
# separator by `invoice issue --items`, and `invoice credit` naming the id.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null

json() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
checked() { # checked NAME: frontdesk check must be clean
	if out=$(fd check 2>&1); then like "$1: check is clean" "$out" "No problems found"; else fail "$1: check" "$out"; fi
}
# status_of VISIT - the calendar's payment status of a visit, once the
# runner has applied every change
status_of() {
	fd tasks run --once --quiet >/dev/null 2>&1
	fd --json agenda --from 2026-11-20 --days 1 | json "[v['payment_status'] for v in d['visits'] if v['appointment_id'] == $1][0]"
}
# sql_raw DB SQL - run SQL as another program would, with the functions the
# triggers call, bypassing the core
cat >"$TMP/raw.py" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.create_function("fd_operator", 0, lambda: "intruder")
c.create_function("fd_now", 0, lambda: 0)
c.create_function("fd_reason", 0, lambda: None)
c.executescript(sys.argv[2])
EOF
sql_raw() { python3 "$TMP/raw.py" "$1" "$2"; }

fd customer add --name "Ada Lee" >/dev/null
fd job add --customer 1 --title "Wash" >/dev/null
fd appt add --start "2026-11-20 09:00" --end "2026-11-20 10:00" >/dev/null
fd link add --appt 1 --job 1 --minutes 60 >/dev/null

# ---------------------------------------------------------------- 1. price of an invoiced item
fd item add --job 1 --description "Exterior wash" --price 100 >/dev/null
fd invoice issue --jobs 1 >/dev/null
fd pay record --customer 1 --amount 100 --method cash INV-2026-000001=100 >/dev/null
is "a fully invoiced and paid job shows paid" "$(status_of 1)" paid
refused "the price of a fully invoiced item is fixed" item edit 1 --price 150
err=$(fd item edit 1 --price 150 2>&1)
like "the refusal says what to do instead" "$err" "issue a credit note"
is "the calendar still shows it paid" "$(status_of 1)" paid
refused "and invoice issue still finds nothing to bill" invoice issue --jobs 1
ok "its description may still change" fd item edit 1 --description "Exterior wash, hand dried"
ok "the same price again is no change" fd item edit 1 --price 100.00
ok "more quantity makes something left to bill" fd item edit 1 --qty 2 --price 120
is "the new price applies to the new part only" \
	"$(fd --json item show 1 | json 'd["unit_price"], d["amount"]')" "(12000, 22000)"
refused "its quantity cannot drop below what is invoiced" item edit 1 --qty 0.5

# a partly invoiced item: a new price is the price of what is left to bill
fd job add --customer 1 --title "Detail" >/dev/null
fd link add --appt 1 --job 2 --minutes 30 >/dev/null
fd item add --job 2 --description "Seats" --qty 2 --price 100 >/dev/null
fd invoice issue --items 2=1 >/dev/null
fd pay record --customer 1 --amount 100 --method cash INV-2026-000002=100 >/dev/null
ok "a partly invoiced item can be re-priced" fd item edit 2 --price 150
is "its amount: what is invoiced plus the rest at the new price" \
	"$(fd --json item show 2 | json 'd["amount"]')" 25000
out=$(fd --json invoice issue --items 2)
is "the rest is billed at the new price" "$(echo "$out" | json 'd["total"]')" 15000
fd pay record --customer 1 --amount 150 --method cash INV-2026-000003=150 >/dev/null
fd invoice issue --jobs 1 >/dev/null
fd pay record --customer 1 --amount 120 --method cash INV-2026-000004=120 >/dev/null
is "everything billed and paid shows paid, not partly paid" "$(status_of 1)" paid
checked "after re-pricing"

# a void invoice gives back its quantity, billed again at the price now
fd job add --customer 1 --title "Polish" >/dev/null
fd item add --job 3 --description "Polish" --qty 2 --price 100 >/dev/null
fd invoice issue --items 3=1 >/dev/null
fd item edit 3 --price 150 >/dev/null
fd invoice void INV-2026-000005 --reason "wrong quantity" >/dev/null
is "after a void the whole item is left, at its price now" \
	"$(fd --json item show 3 | json 'd["amount"]')" 30000
checked "after the void"

# ---------------------------------------------------------------- 2. the money limit
fd job add --customer 1 --title "Fleet" >/dev/null
refused "an item beyond 64 bits' worth of cents" item add --job 4 --description "Big" --price 92233720368547758.07
refused "an item just beyond the money limit" item add --job 4 --description "Big" --price 1,000,000,000,000.01
refused "quantity x price beyond the money limit" item add --job 4 --description "Big" --qty 2 --price 600,000,000,000
err=$(fd item add --job 4 --description "Big" --price 1,000,000,000,000.01 2>&1)
like "the refusal names the limit" "$err" "1,000,000,000,000.00 USD"
ok "an item of exactly the money limit" fd item add --job 4 --description "Fleet contract" --price 1,000,000,000,000.00
refused "a second item pushes the job's total past the limit" item add --job 4 --description "Fee" --price 0.01
refused "an edit pushing an item past the limit" item edit 1 --price 1,000,000,000,000
ok "a discount keeps the job within the limit" fd item add --job 4 --kind DISCOUNT --description "Rebate" --price 10
ok "then another item fits" fd item add --job 4 --description "Fee" --price 10
checked "at the money limit"

# check reports every violation, whatever one row holds: rows put in by
# another program, beyond the limit and beyond 64 bits once summed
sqlite3 "$FRONTDESK_DB" ".backup '$TMP/bad.db'"
last=$(sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM line_item")
sql_raw "$TMP/bad.db" "
INSERT INTO line_item (service_order_id, kind, description, qty_milli, unit_price, amount, created_at, updated_at)
  VALUES (1, 'SERVICE', 'absurd', 1000, 9223372036854775807, 9223372036854775807, 0, 0),
         (1, 'SERVICE', 'absurd too', 1000, 1, 9223372036854775807, 0, 0);
DROP TRIGGER invoice_line_into_draft; DROP TRIGGER invoice_line_item_fits; DROP TRIGGER invoice_line_his_ins;
INSERT INTO invoice_line (invoice_id, kind, description, qty_milli, unit_price, amount, created_at)
  VALUES (1, 'SERVICE', 'x', 1000, 1, 9223372036854775807, 0), (1, 'SERVICE', 'y', 1000, 1, 9223372036854775807, 0);"
fd --db "$TMP/bad.db" check >"$TMP/out" 2>"$TMP/err"; is "check of the absurd rows exits 1" "$?" 1
out=$(cat "$TMP/out")
like "each item beyond the limit is a violation" "$out" "line-item-amount: line item $((last + 1)): amount 9223372036854775807 is beyond the money limit"
like "and the other one" "$out" "line-item-amount: line item $((last + 2)):"
like "a check whose sum overflows says so and the others go on" "$out" "invoice-total: this check could not finish: integer overflow"
like "the checks after it still report" "$out" "history-missing: invoice_line"
is "json check lists them all" "$(fd --db "$TMP/bad.db" --json check 2>/dev/null | json 'sorted(set(v["code"] for v in d["violations"]))')" \
	"['history-differs', 'history-missing', 'invoice-total', 'line-item-amount']"
cp "$FRONTDESK_DB" "$TMP/big.db"
sql_raw "$TMP/big.db" "
INSERT INTO line_item (service_order_id, kind, description, qty_milli, unit_price, amount, created_at, updated_at)
  VALUES (1, 'SERVICE', 'large', 1000, 90000000000000, 90000000000000, 0, 0),
         (1, 'SERVICE', 'large', 1000, 90000000000000, 90000000000000, 0, 0);"
out=$(fd --db "$TMP/big.db" check 2>&1)
like "a job's total beyond the limit is a violation" "$out" "job-total: job 1: its line items add up to"
# the calendar's own check: a visit whose job's price overflows
sql_raw "$TMP/big.db" "
INSERT INTO line_item (service_order_id, kind, description, qty_milli, unit_price, amount, created_at, updated_at)
  VALUES (2, 'SERVICE', 'absurd', 1000, 1, 9223372036854775807, 0, 0),
         (2, 'SERVICE', 'absurd', 1000, 1, 9223372036854775807, 0, 0);
DELETE FROM task WHERE kind = 'calendar';"
out=$(fd --db "$TMP/big.db" check 2>&1)
like "a visit whose price cannot be added up is a violation" "$out" "projection_stale: visit 1: calendar row cannot be computed"
like "and the other checks still report" "$out" "job-total: job 1"

# ---------------------------------------------------------------- 3. pay import reads as pay record
fd job add --customer 1 --title "Tint" >/dev/null
fd item add --job 5 --description "Tint" --price 100 >/dev/null
inv=$(fd --json invoice issue --jobs 5 | json 'd["number"]')
# import_vs_record NAME CELLS OPTIONS... - a one-row file with header
# customer,amount,method,currency,allocations and CELLS, and pay record with
# OPTIONS: both refused, for the same reason
import_vs_record() {
	what=$1 cells=$2; shift 2 # (refused sets name)
	printf 'customer,amount,method,currency,allocations\n%b\n' "$cells" >"$TMP/row.csv"
	refused "pay import: $what" pay import "$TMP/row.csv"
	refused "pay record: $what" pay record "$@"
	rec=$(fd pay record "$@" 2>&1 | sed 's/^frontdesk: //')
	like "pay import: $what, for pay record's reason" "$(fd pay import "$TMP/row.csv" 2>&1)" "$rec"
}
import_vs_record "a blank before the amount" '1, 12,cash,USD,' --customer 1 --amount " 12" --method cash
import_vs_record "a blank after the amount" '1,12 ,cash,USD,' --customer 1 --amount "12 " --method cash
import_vs_record "a tab before the amount" '1,\t12,cash,USD,' --customer 1 --amount "$(printf '\t12')" --method cash
import_vs_record "a blank after the method" '1,12,cash ,USD,' --customer 1 --amount 12 --method "cash "
import_vs_record "a blank before the currency" '1,12,cash, USD,' --customer 1 --amount 12 --method cash --currency " USD"
import_vs_record "a blank in an allocation's amount" "1,12,cash,USD,$inv= 12" --customer 1 --amount 12 --method cash "$inv= 12"
import_vs_record "a blank after an allocation" "1,12,cash,USD,\"$inv=12 \"" --customer 1 --amount 12 --method cash "$inv=12 "
import_vs_record "a blank before an allocation" "1,12,cash,USD,\" $inv=12\"" --customer 1 --amount 12 --method cash " $inv=12"
import_vs_record "a blank after the last of two allocations" "1,12,cash,USD,\"$inv=5; $inv=7 \"" --customer 1 --amount 12 --method cash "$inv=5; $inv=7 "
import_vs_record "a tab after an allocation" "1,12,cash,USD,$inv=12\t" --customer 1 --amount 12 --method cash "$(printf '%s=12\t' "$inv")"
import_vs_record "no allocation between the ';'" "1,12,cash,USD,;" --customer 1 --amount 12 --method cash ";"
printf 'customer,amount,method\n 1,12,cash\n' >"$TMP/row.csv"
refused "pay import: a blank before the customer" pay import "$TMP/row.csv"
printf 'customer,amount,method,allocations\n1,12,cash,%s=5; %s=7\n' "$inv" "$inv" >"$TMP/row.csv"
ok "blanks around the ';' between allocations still separate them" fd pay import "$TMP/row.csv"
is "both allocations posted" "$(fd --json invoice show "$inv" | json 'd["paid"]')" 1200
ok "pay record reads the same list in one argument" fd pay record --customer 1 --amount 3 --method cash "$inv=1; $inv=2"
is "... both allocations posted" "$(fd --json invoice show "$inv" | json 'd["paid"]')" 1500
checked "after the imports"

# ---------------------------------------------------------------- 4. a decimal comma in --items
fd job add --customer 1 --title "Hours" >/dev/null
fd item add --job 6 --description "Labour" --qty 3 --price 10 >/dev/null
fd item add --job 6 --description "Parts" --price 5 >/dev/null
labour=$(sqlite3 "$FRONTDESK_DB" "SELECT id FROM line_item WHERE description = 'Labour'")
parts=$(sqlite3 "$FRONTDESK_DB" "SELECT id FROM line_item WHERE description = 'Parts'")
refused "a quantity then a bare number may be a decimal comma" invoice issue --items "$labour=1,$parts"
# (whether or not that locale is installed: amounts never read the locale)
LC_ALL=de_DE.UTF-8 LANG=de_DE.UTF-8 fd invoice issue --items "$labour=1,$parts" >/dev/null 2>&1
is "refused under a German locale too, nothing billed" "$?:$(sqlite3 "$FRONTDESK_DB" "SELECT count(*) FROM invoice_line WHERE line_item_id IN ($labour, $parts)")" "1:0"
err=$(fd invoice issue --items "$labour=1,$parts" 2>&1)
like "the refusal says how to write the decimal" "$err" "write $labour=1.$parts"
like "and how to bill both items" "$err" "put it first: $parts,$labour=1"
refused "a quantity with a decimal comma in the middle" invoice issue --items "$labour=1,$parts,$parts=1"
refused "blanks are no separators either" invoice issue --items "$labour=1, $parts"
out=$(fd --json invoice issue --items "$parts,$labour=1.5")
is "items billed whole first, then a quantity with a decimal point" "$(echo "$out" | json 'd["total"]')" 2000
help=$(fd invoice issue --help)
like "--help says which separator" "$help" "',' separates the items"
like "--help says which decimal mark" "$help" "'.' is the decimal point"

# ---------------------------------------------------------------- 5. invoice credit and void name the invoice
fd job add --customer 1 --title "Glass" >/dev/null
fd item add --job 7 --description "Glass" --price 100 >/dev/null
inv_id=$(fd --json invoice issue --jobs 7 | json 'd["id"]')
number=$(sqlite3 "$FRONTDESK_DB" "SELECT number FROM invoice WHERE id = $inv_id")
out=$(fd invoice credit "$inv_id" --amount 10 --reason "chip")
like "credit by id names the invoice's number" "$out" "off $number."
fd job add --customer 1 --title "Spare" >/dev/null
fd item add --job 8 --description "Spare" --price 100 >/dev/null
inv_id=$(fd --json invoice issue --jobs 8 | json 'd["id"]')
number=$(sqlite3 "$FRONTDESK_DB" "SELECT number FROM invoice WHERE id = $inv_id")
out=$(fd invoice void "$inv_id" --reason "not wanted")
like "void by id names the invoice's number" "$out" "Invoice $number is void"
checked "at the end"

done_testing
