#!/bin/sh
# export-csv.sh - `frontdesk export csv KIND`: python's csv module reads
# each export back with its header; RFC 4180 (CRLF, quotes doubled, commas
# and quotes quoted); text cells that a spreadsheet would run as a formula
# get a leading apostrophe while amounts (negative ones too) stay numbers;
# amounts have a '.' decimal point in the row's currency (JPY has none),
# also under a German locale; --from/--to choose the rows; bad kinds and
# dates are usage errors; --output is 0600 and replaced only when complete.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null

at() { FRONTDESK_NOW=$1; export FRONTDESK_NOW; }
at 2026-11-02T10:00
fd customer add --name 'Lee, "Ada"' --phone "+1 555 0100" --address "12 Main St, Springfield" >/dev/null
at 2026-11-20T10:00
fd customer add --name "=HYPERLINK(\"http://x\")" --note "-2+3" >/dev/null
fd customer add --name "@Kim" --email "kim@example.com" >/dev/null
at 2026-12-01T09:00
fd job add --customer 1 --title "Wash, wax" >/dev/null
fd job add --customer 2 --title "Detail" --currency JPY >/dev/null
fd item add --job 1 --description "Exterior wash" --price 1234.50 >/dev/null
fd item add --job 1 --description "Loyalty" --kind DISCOUNT --price 34.50 >/dev/null
fd item add --job 2 --description "Interior" --price 1500 >/dev/null
fd appt add --start "2026-12-03 09:00" --end "2026-12-03 10:30" --location "Depot, bay 2" >/dev/null
fd appt add --start "2026-12-10 14:00" --end "2026-12-10 15:00" --location "+44 Road" >/dev/null
fd link add --appt 1 --job 1 --minutes 60 >/dev/null
fd link add --appt 2 --job 2 --minutes 60 >/dev/null
fd invoice issue --jobs 1 >/dev/null
fd invoice issue --jobs 2 >/dev/null
fd pay record --customer 1 --amount 1200 --method check --reference "=1+1" INV-2026-000001=1200 >/dev/null
at 2026-12-05T11:30
fd pay reverse 1 --reason "wrong invoice, redo" >/dev/null
fd pay record --customer 2 --amount 1500 --currency JPY --method cash INV-2026-000002=1500 >/dev/null
fd invoice credit INV-2026-000001 --amount 100 --reason "scratch, sorry" >/dev/null
at 2026-12-06T09:00

# read.py KIND FILE: the header, then each row's cells joined with " | "
cat > "$TMP/read.py" <<'PY'
import csv, sys
with open(sys.argv[1], newline='', encoding='utf-8') as f:
    for row in csv.reader(f, strict=True):
        print(' | '.join(row))
PY
export_ok() { # export_ok KIND [ARGS]: export to $TMP/KIND.csv, read back to $TMP/KIND.txt
	k=$1; shift
	if fd export csv "$k" "$@" > "$TMP/$k.csv" 2>"$TMP/err" &&
		python3 "$TMP/read.py" "$TMP/$k.csv" > "$TMP/$k.txt" 2>>"$TMP/err"; then
		pass "export csv $k $*: python's csv reads it back"
	else
		fail "export csv $k $*" "$(cat "$TMP/err")"
	fi
}

export_ok customers
is "customers: header, quoting, formulas neutralised" "$(cat "$TMP/customers.txt")" \
"id | name | phone | email | address | note | created_at | updated_at
1 | Lee, \"Ada\" | '+1 555 0100 |  | 12 Main St, Springfield |  | 2026-11-02 10:00:00 | 2026-11-02 10:00:00
2 | '=HYPERLINK(\"http://x\") |  |  |  | '-2+3 | 2026-11-20 10:00:00 | 2026-11-20 10:00:00
3 | '@Kim |  | kim@example.com |  |  | 2026-11-20 10:00:00 | 2026-11-20 10:00:00"
raw=$(sed -n 2p "$TMP/customers.csv")
is "RFC 4180: commas and quotes quoted, quotes doubled" "$raw" "$(printf '1,"Lee, ""Ada""",'"'"'+1 555 0100,,"12 Main St, Springfield",,2026-11-02 10:00:00,2026-11-02 10:00:00\r')"
is "every line ends with CRLF" "$(tr -cd '\r' < "$TMP/customers.csv" | wc -c)" "$(wc -l < "$TMP/customers.csv")"
is "4 lines: the header and 3 customers" "$(wc -l < "$TMP/customers.csv")" 4

export_ok visits
is "visits" "$(cat "$TMP/visits.txt")" \
"id | start_at | end_at | status | customers | services | est_minutes | location | note | created_at | updated_at
1 | 2026-12-03 09:00:00 | 2026-12-03 10:30:00 | scheduled | Lee, \"Ada\" | Wash, wax | 60 | Depot, bay 2 |  | 2026-12-01 09:00:00 | 2026-12-01 09:00:00
2 | 2026-12-10 14:00:00 | 2026-12-10 15:00:00 | scheduled | '=HYPERLINK(\"http://x\") | Detail | 60 | '+44 Road |  | 2026-12-01 09:00:00 | 2026-12-01 09:00:00"

export_ok invoices
is "invoices: amounts with '.', JPY without decimals, a credit note negative" "$(cat "$TMP/invoices.txt")" \
"id | number | kind | credits | customer_id | customer_name | status | currency | issued_at | due_on | total | credited | paid | balance
1 | INV-2026-000001 | invoice |  | 1 | Lee, \"Ada\" | issued | USD | 2026-12-01 09:00:00 | 2026-12-31 | 1200.00 | 100.00 | 0.00 | 1100.00
2 | INV-2026-000002 | invoice |  | 2 | '=HYPERLINK(\"http://x\") | paid | JPY | 2026-12-01 09:00:00 | 2026-12-31 | 1500 | 0 | 1500 | 0
3 | CN-2026-000001 | credit_note | INV-2026-000001 | 1 | Lee, \"Ada\" | issued | USD | 2026-12-05 11:30:00 | 2026-12-05 | -100.00 | 0.00 | 0.00 | 0.00"

export_ok payments
is "payments: a reference that looks like a formula is neutralised" "$(cat "$TMP/payments.txt")" \
"id | received_at | customer_id | customer_name | method | reference | status | currency | amount | allocated | refunded | note
1 | 2026-12-01 09:00:00 | 1 | Lee, \"Ada\" | check | '=1+1 | unallocated | USD | 1200.00 | 0.00 | 0.00 | 
2 | 2026-12-05 11:30:00 | 2 | '=HYPERLINK(\"http://x\") | cash |  | allocated | JPY | 1500 | 1500 | 0 | "

export_ok allocations
is "allocations: a reversal is negative and names what it reverses; amounts are never prefixed" \
"$(cat "$TMP/allocations.txt")" \
"id | created_at | payment_id | invoice_id | invoice_number | customer_id | customer_name | currency | amount | reverses_id | reason
1 | 2026-12-01 09:00:00 | 1 | 1 | INV-2026-000001 | 1 | Lee, \"Ada\" | USD | 1200.00 |  | 
2 | 2026-12-05 11:30:00 | 1 | 1 | INV-2026-000001 | 1 | Lee, \"Ada\" | USD | -1200.00 | 1 | wrong invoice, redo
3 | 2026-12-05 11:30:00 | 2 | 2 | INV-2026-000002 | 2 | '=HYPERLINK(\"http://x\") | JPY | 1500 |  | "
like "the negative amount is a plain cell" "$(cat "$TMP/allocations.csv")" ",USD,-1200.00,1,"

# --- a German locale does not change a byte (the decimal point stays '.')
if locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'; then
	for k in invoices payments allocations; do
		LC_ALL=de_DE.UTF-8 fd export csv "$k" > "$TMP/de.csv"
		ok "LC_ALL=de_DE.UTF-8: $k is the same file" cmp "$TMP/de.csv" "$TMP/$k.csv"
	done
else
	echo "# skip: the de_DE.UTF-8 locale is not generated (./bootstrap as root makes it)"
fi

# --- --from / --to
rows() { fd export csv "$@" | python3 "$TMP/read.py" /dev/stdin | sed 1d | cut -d' ' -f1 | tr '\n' ' '; }
is "customers --from 11-20" "$(rows customers --from 2026-11-20)" "2 3 "
is "customers --to 11-19" "$(rows customers --to 2026-11-19)" "1 "
is "allocations --from 12-05 --to 12-05" "$(rows allocations --from 2026-12-05 --to 2026-12-05)" "2 3 "
is "payments --to 2026-12-01" "$(rows payments --to 2026-12-01)" "1 "
is "invoices --from '2026-12-05 11:00'" "$(rows invoices --from '2026-12-05 11:00')" "3 "
is "visits --from 12-04" "$(rows visits --from 2026-12-04)" "2 "
is "nothing in range: the header alone" "$(fd export csv payments --from 2027-01-01 | wc -l)" 1

# --- --output: 0600, replaced only when complete
echo old > "$TMP/out.csv"
chmod 644 "$TMP/out.csv"
out=$(umask 000; fd export csv payments --output "$TMP/out.csv")
like "--output says how many rows" "$out" "2 row(s) written to $TMP/out.csv"
is "--output is 0600" "$(stat -c %a "$TMP/out.csv")" 600
ok "--output holds the export" cmp "$TMP/out.csv" "$TMP/payments.csv"
fd export csv payments --from 2026-12-09 --to 2026-12-01 --output "$TMP/out.csv" 2>/dev/null
ok "a refused export leaves the file as it was" cmp "$TMP/out.csv" "$TMP/payments.csv"
ok "no temporary file is left" sh -c "! ls '$TMP'/out.csv.tmp-* 2>/dev/null"

# --- usage errors: exit 2 with a clear message
usage() {
	name=$1; want=$2; shift 2
	fd "$@" >"$TMP/out" 2>"$TMP/err"; st=$?
	if [ "$st" -eq 2 ] && grep -q -- "$want" "$TMP/err" && [ ! -s "$TMP/out" ]; then
		pass "$name: usage error ($(head -n 1 "$TMP/err" | cut -c1-80))"
	else
		fail "$name" "exit $st (want 2)" "stderr: $(cat "$TMP/err")" "want: $want"
	fi
}
usage "no kind" "one of customers, visits, invoices, payments, allocations" export csv
usage "an unknown kind" "one of customers, visits" export csv refunds
usage "two kinds" "too many arguments" export csv customers visits
usage "a bad date" "--from: '2026-02-30' is not a real date" export csv payments --from 2026-02-30
usage "an empty range" "the range is empty" export csv payments --from 2026-12-02 --to 2026-12-01
usage "--json" "--json does not apply" --json export csv payments
done_testing
