#!/bin/sh
# ui-money.sh - the money views: A shows the receivables aging with the
# figures of `frontdesk report aging` (each customer who owes, the totals per
# currency, the credit held), Enter opens the customer and from there the
# invoice; T shows the takings of the last seven days with the figures of
# `frontdesk report takings` and the payments of those days, Enter opening
# one. A payment made elsewhere shows without a key.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

q() { sqlite3 "$FRONTDESK_DB" "$1"; }
money() { python3 -c 'import sys; v=int(sys.argv[1]); print("{:,}.{:02d}".format(v // 100, v % 100))' "$1"; }
fd demo >/dev/null 2>&1
fd tasks run --once --quiet >/dev/null 2>&1

aging=$(fd --json report aging)
# the first customer by name who owes, and what; the total owed in USD
first=$(printf '%s' "$aging" | python3 -c '
import json, sys
rows = [r for r in json.load(sys.stdin)["customers"] if r["owed"] > 0]
print(rows[0]["customer_name"])')
owed=$(money "$(printf '%s' "$aging" | python3 -c '
import json, sys
print([r for r in json.load(sys.stdin)["customers"] if r["owed"] > 0][0]["owed"])')")
total=$(money "$(printf '%s' "$aging" | python3 -c '
import json, sys
print(sum(r["owed"] for r in json.load(sys.stdin)["customers"] if r["currency"] == "USD"))')")
credit=$(money "$(printf '%s' "$aging" | python3 -c '
import json, sys
print(sum(r["credit"] for r in json.load(sys.stdin)["customers"] if r["currency"] == "USD"))')")
takings=$(fd --json report takings --from 2026-11-25 --to 2026-12-02)
cash=$(money "$(printf '%s' "$takings" | python3 -c '
import json, sys
print(sum(r["net"] for r in json.load(sys.stdin)["days"] if r["method"] == "cash" and r["day"] == "2026-12-01"))')")

screen_start
shows "the calendar opens" "Week of 2026-11-29"
keys A
shows "A opens the aging" "Receivables on 2026-12-01 by days past due"
shows_re "the first customer who owes, with the report's figure" "^> $first +USD .* $owed *$"
shows_re "the total owed is the report's" "Total USD .* $total *$"
shows "and the credit held" "Credit held for customers: $credit USD"
keys Enter
shows "Enter opens the customer" "> Receivables aging > $first"
keys q q
keys T
shows "T opens the takings" "Takings from 2026-11-25 to 2026-12-01"
shows_re "the day's cash is the report's" "^  2026-12-01 cash +USD +[0-9]+ .* $cash *$"
shows "with the payments of those days" "The payments of these days"
keys Enter
shows "Enter opens a payment" "> Takings > Payment "
keys q
fd pay record --customer 1 --amount 12.34 --method bank_transfer >/dev/null
shows "a payment made elsewhere shows by itself" "12.34 USD"
done_testing
