#!/bin/sh
# money-reports.sh - `frontdesk report aging|takings|statement` as a table,
# --json and --csv on a small history spread over several days.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null
json() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
on() { day=$1; shift; FRONTDESK_NOW="$day" fd "$@"; }

fd customer add --name "Ada Lee" >/dev/null
fd customer add --name "=HYPERLINK(1), Bo" >/dev/null
for j in 1 2 3; do
	fd job add --customer 1 --title "job $j" >/dev/null
	fd item add --job "$j" --description "work $j" --price "$((j * 100))" >/dev/null
done
fd job add --customer 2 --title "tint" >/dev/null
fd item add --job 4 --description "Tint" --price 45 >/dev/null
on 2026-08-01T10:00 invoice issue --jobs 1 --terms 10 >/dev/null   # due 08-11: over 90 days
on 2026-10-15T10:00 invoice issue --jobs 2 >/dev/null              # due 11-14: 17 days
on 2026-11-28T10:00 invoice issue --jobs 3 >/dev/null              # current
fd invoice issue --jobs 4 >/dev/null
on 2026-11-29T11:00 pay record --customer 1 --amount 150 --method cash INV-2026-000001=50 >/dev/null
on 2026-11-29T15:00 pay record --customer 1 --amount 20 --method check --reference 77 >/dev/null
on 2026-11-30T12:00 pay record --customer 2 --amount 10 --method card --reference ch_1 >/dev/null
on 2026-11-30T13:00 refund 3 --amount 3 --reason "tip back" --method cash >/dev/null
fd pay record --customer 2 --amount 5 --method cash >/dev/null
fd pay void 4 --reason "typed twice" >/dev/null

# --- aging
out=$(fd report aging)
like "table has a header" "$out" "current"
like "table row for Ada" "$out" "300.00       200.00         0.00         0.00        50.00       550.00       120.00  Ada Lee"
is "json buckets for Ada" "$(fd --json report aging | json '[(c["customer_id"], list(c["buckets"].values()), c["owed"], c["credit"]) for c in d["customers"]]')" \
	"[(2, [4500, 0, 0, 0, 0], 4500, 700), (1, [30000, 20000, 0, 0, 5000], 55000, 12000)]"
is "aging owed equals the open balances" "$(fd --json report aging | json 'sum(c["owed"] for c in d["customers"])')" \
	"$(sqlite3 "$FRONTDESK_DB" "SELECT sum(balance) FROM invoice WHERE status NOT IN ('void', 'draft')")"
is "csv aging" "$(fd report aging --csv)" "customer_id,customer_name,currency,current,1-30,31-60,61-90,over_90,owed,credit
2,\"'=HYPERLINK(1), Bo\",USD,45.00,0.00,0.00,0.00,0.00,45.00,7.00
1,Ada Lee,USD,300.00,200.00,0.00,0.00,50.00,550.00,120.00"
is "aging on another day moves the buckets" "$(fd --json report aging --on 2026-11-20 | json '[c["buckets"]["1-30"] for c in d["customers"] if c["customer_id"] == 1]')" "[20000]"

# --- takings
is "csv takings by day and method" "$(fd report takings --from 2026-11-29 --to 2026-11-30 --csv)" "day,method,currency,payments,received,refunded,net
2026-11-29,cash,USD,1,150.00,0.00,150.00
2026-11-29,check,USD,1,20.00,0.00,20.00
2026-11-30,card,USD,1,10.00,0.00,10.00
2026-11-30,cash,USD,0,0.00,3.00,-3.00"
is "json takings: the void payment is left out" "$(fd --json report takings --to 2026-12-01 | json 'sum(r["received"] for r in d["days"]), sum(r["refunded"] for r in d["days"])')" "(18000, 300)"
out=$(fd report takings --from 2026-11-30 --to 2026-11-30); like "table takings" "$out" "Takings from 2026-11-30 to 2026-11-30"
refused "--from after --to" report takings --from 2026-12-02 --to 2026-12-01

# --- statement
out=$(fd report statement --customer 1)
like "statement lists the allocation" "$out" "payment 1 -> INV-2026-000001: 50.00"
like "statement closes with the balance" "$out" "Owed on open invoices: 550.00 USD; unallocated credit: 120.00 USD; balance: 430.00 USD"
is "json statement totals" "$(fd --json report statement --customer 1 | json 'd["statements"][0]["totals"]')" \
	"{'invoiced': 60000, 'credited': 0, 'received': 17000, 'refunded': 0, 'balance': 43000, 'open_invoices': 55000, 'credit': 12000}"
is "json running balance" "$(fd --json report statement --customer 1 | json '[l["balance"] for l in d["statements"][0]["lines"]]')" \
	"[10000, 30000, 60000, 45000, 45000, 43000]"
is "csv statement in time order" "$(fd report statement --customer 2 --csv)" \
	"at,currency,kind,id,ref,target,amount,allocated,balance
2026-11-30 12:00,USD,payment,3,card ch_1,,-10.00,0.00,-10.00
2026-11-30 13:00,USD,refund,1,cash,payment 3,3.00,0.00,-7.00
2026-12-01 09:00,USD,invoice,4,INV-2026-000004,,45.00,0.00,38.00"
refused "statement of nobody" report statement --customer 99
fd report statement >/dev/null 2>&1; is "statement without --customer is bad usage" "$?" 2
fd --json report aging --csv >/dev/null 2>&1; is "--json with --csv is bad usage" "$?" 2
# --- the journal
ok "export journal to a file" fd export journal --output "$TMP/j.ledger"
is "the file is private" "$(stat -c %a "$TMP/j.ledger")" 600
is "stdout and file are the same" "$(fd export journal)" "$(cat "$TMP/j.ledger")"
out=$(ledger -f "$TMP/j.ledger" --flat --no-total --no-color --balance-format '%(account)=%(display_total)\n' bal Receivable 'Customer credit' 2>&1)
is "ledger's balances are the aging figures" "$out" "Assets:Receivable:Customer 1=550.00 USD
Assets:Receivable:Customer 2=45.00 USD
Liabilities:Customer credit:Customer 1=-120.00 USD
Liabilities:Customer credit:Customer 2=-7.00 USD"
is "ledger --strict: no unknown account or commodity" "$(ledger --strict -f "$TMP/j.ledger" bal 2>&1 >/dev/null | grep -c Warning)" 0
is "ledger's default mode: no warning either" "$(ledger -f "$TMP/j.ledger" bal 2>&1 >/dev/null)" ""
ok "hledger check --strict accepts it" hledger check --strict -f "$TMP/j.ledger"
ok "hledger's default check accepts it" hledger check -f "$TMP/j.ledger"
out=$(hledger -f "$TMP/j.ledger" bal --flat --no-total Receivable 'Customer credit' -O csv | tail -n +2 | tr -d '"')
is "hledger's balances are the aging figures too" "$out" "Assets:Receivable:Customer 1,550.00 USD
Assets:Receivable:Customer 2,45.00 USD
Liabilities:Customer credit:Customer 1,-120.00 USD
Liabilities:Customer credit:Customer 2,-7.00 USD"
like "the payee is the customer's name, made safe" "$(grep 'INV-2026-000004' "$TMP/j.ledger")" "(INV-2026-000004) =HYPERLINK(1), Bo"
is "the void payment is not in the journal" "$(grep -c '(payment 4)' "$TMP/j.ledger")" 0
fd --json export journal >/dev/null 2>&1; is "export journal --json is bad usage" "$?" 2
fd export journal --help >/dev/null 2>&1; is "export journal --help exits 0" "$?" 0

for c in aging takings statement; do
	fd report "$c" --help >/dev/null 2>&1; is "report $c --help exits 0" "$?" 0
done
# the day's invoices and refunds are read by an index, not a scan of all
# (the statements of report_invoiced and report_takings in src/report.c;
# migration 0013)
plan=$(sqlite3 "$FRONTDESK_DB" "EXPLAIN QUERY PLAN SELECT currency, count(*), sum(total) FROM invoice
	WHERE kind = 'invoice' AND status NOT IN ('draft', 'void') AND issued_at >= 1 AND issued_at < 2
	GROUP BY currency ORDER BY currency")
like "a day's invoices are found by when they were issued" "$plan" "USING INDEX invoice_by_issued"
plan=$(sqlite3 "$FRONTDESK_DB" "EXPLAIN QUERY PLAN SELECT r.method, p.currency, r.amount FROM refund r
	JOIN payment p ON p.id = r.payment_id WHERE r.status = 'succeeded' AND r.refunded_at >= 1 AND r.refunded_at < 2")
like "a day's refunds by when they were made" "$plan" "USING INDEX refund_by_refunded"
out=$(fd check 2>&1); like "check is clean" "$out" "No problems found"
ok "no card number in the database file or its WAL after these money tests" \
	python3 "$TOP_SRCDIR/tests/lib/card-scan.py" "$FRONTDESK_DB" "$FRONTDESK_DB-wal"
done_testing
