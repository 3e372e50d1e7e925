#!/bin/sh
# ui-totals.sh - the day view's totals: booked (the prices of the day's
# visits), invoiced (invoices issued that day) and taken by method (net of
# refunds), equal to `frontdesk report takings` and `frontdesk agenda` for
# that day; at 80 columns the price column stays.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

q() { sqlite3 "$FRONTDESK_DB" "$1"; }
fd init >/dev/null
fd customer add --name "Tia Totals" >/dev/null
for spec in "09:00 10:00 Wash 40.00" "11:00 12:00 Wax 60.00" "13:00 14:00 Rims 25.00"; do
	set -- $spec
	fd book --customer Tia --start "2026-12-01 $1" --end "2026-12-01 $2" --title "$3" >/dev/null
	fd item add --job "$(q 'SELECT max(id) FROM service_order')" --description "$3" --price "$4" >/dev/null
done
fd invoice issue --jobs 1 >/dev/null
fd invoice issue --jobs 2 >/dev/null
fd pay record --customer 1 --amount 20.00 --method cash "1=20.00" >/dev/null
fd pay record --customer 1 --amount 60.00 --method check --reference 42 "2=60.00" >/dev/null
fd pay record --customer 1 --amount 15.00 --method cash >/dev/null
fd refund 3 --amount 5.00 --reason "change given back" >/dev/null
fd tasks run --once --quiet >/dev/null 2>&1

# what the reports say, formatted as the screen writes them
money() { python3 -c 'import sys; v=int(sys.argv[1]); print("{:,}.{:02d}".format(v // 100, v % 100))' "$1"; }
takings=$(fd --json report takings --from 2026-12-01 --to 2026-12-02)
net() { printf '%s' "$takings" | python3 -c '
import json, sys
rows = json.load(sys.stdin)["days"]
m = sys.argv[1]
print(sum(r["net"] for r in rows if m == "" or r["method"] == m))' "$1"; }
total=$(money "$(net "")")
cash=$(money "$(net cash)")
check=$(money "$(net check)")
booked=$(money "$(fd --json agenda --from 2026-12-01 --days 1 | python3 -c '
import json, sys
print(sum(v["total_price"] for v in json.load(sys.stdin)["visits"] if v.get("total_price") is not None))')")
invoiced=$(money "$(q "SELECT sum(total) FROM invoice WHERE kind = 'invoice' AND status <> 'void'")")
is "the reports have the day's figures" "$booked/$invoiced/$total/$cash/$check" "125.00/100.00/90.00/30.00/60.00" # the figures this test set up

SCREEN_COLS=80 SCREEN_ROWS=24
screen_start
shows "the calendar opens" "Week of 2026-11-29"
keys d
shows "the day view" "Tuesday 2026-12-01"
shows_re "at 80 columns the price column stays" "Services +Price +Min"
shows "booked, invoiced and taken equal the reports" "Booked $booked USD  Invoiced $invoiced USD  Taken $total USD"
shows "taken by method, net of refunds" "Taken by method: cash $cash, check $check"
fd pay record --customer 1 --amount 7.00 --method card >/dev/null
shows "a payment made elsewhere shows by itself" "card 7.00"
day=$(money "$(fd --json report takings --from 2026-12-01 --to 2026-12-02 | python3 -c '
import json, sys
print(sum(r["net"] for r in json.load(sys.stdin)["days"]))')")
keys w
shows_re "the week shows each day's takings, the report's" "^Taken .* $day"
keys m
shows "the month view" "December 2026"
resize 120 40
shows_re "at 120 columns the month shows them in the day's cell" "\|1\* +$day +\(3\)\|"
resize 80 24
if wait_gone "$day"; then
	pass "at 80 columns a month cell has no room for them"
else
	fail "at 80 columns a month cell has no room for them" "$(screen_text)"
fi

# Money in more currencies than the line has room for is said, not left out.
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
for c in EUR GBP CHF JPY; do
	echo "currency = $c" > "$XDG_CONFIG_HOME/frontdesk/config"
	fd pay record --customer 1 --amount 3 --method cash >/dev/null
done
rm -f "$XDG_CONFIG_HOME/frontdesk/config"
resize 120 40
keys d
shows "the day view again" "Tuesday 2026-12-01"
shows_re "taken in five currencies: four shown and the fifth said" \
	"Taken [0-9.,]+ USD( \\+ 3(\\.00)? [A-Z]{3}){3} \\+ 1 more currency"
shows_re "by method, each figure names its currency when the day took several" \
	"Taken by method: card 7\\.00 USD, .*cash 3\\.00 EUR, cash 3\\.00 GBP, cash 3 JPY"
done_testing
