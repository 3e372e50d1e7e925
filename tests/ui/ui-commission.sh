#!/bin/sh
# ui-commission.sh - the commissions view: W shows this month's
# commissions by technician with the figures of `frontdesk report
# commissions` (a credit note's and a refund's negative rows in the month
# they were made, each technician's total); [ moves to the month before,
# where the lines are, ] back; Enter on a line opens its invoice, on a line
# never invoiced its visit. Set up with the command line as in
# cli-commission.sh; every figure expected is read from the report's JSON.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

fd init >/dev/null
db() { sqlite3 "$FRONTDESK_DB" "$1"; }
money() { python3 -c 'import sys; v=int(sys.argv[1]); s="-" if v < 0 else ""; v=abs(v); print("{}{:,}.{:02d}".format(s, v // 100, v % 100))' "$1"; }
# total JSON TECH FIELD - a technician's total field in the report JSON
total() { printf '%s' "$1" | python3 -c "import json,sys; print([t['$3'] for t in json.load(sys.stdin)['technicians'] if t['technician'] == '$2'][0])"; }
# rows JSON TECH KIND - the commissions of a technician's rows of KIND, blank-separated
rows() { printf '%s' "$1" | python3 -c "import json,sys; print(' '.join(str(r['commission']) for t in json.load(sys.stdin)['technicians'] if t['technician'] == '$2' for r in t['rows'] if r['kind'] == '$3'))"; }

export FRONTDESK_NOW="2026-11-09 08:00"
fd customer add --name "Ann Lee" --address "1 Elm St" >/dev/null
fd customer add --name "Bob Ray" --address "2 Oak St" >/dev/null
fd resource add --name Sam --kind technician >/dev/null
fd resource add --name Kim --kind technician >/dev/null
for r in Sam Kim; do fd resource hours "$r" --days all --spans 08:00-18:00 >/dev/null; done
fd book --customer Ann --start "2026-11-10 09:00" --length 1:00 --resource Sam >/dev/null
fd book --customer Bob --start "2026-11-11 09:00" --length 1:00 --resource Kim >/dev/null
fd book --customer Ann --start "2026-11-20 09:00" --length 1:00 --resource Kim >/dev/null
fd item add --job 1 --description Brakes --price 200.00 --commission 10% >/dev/null
fd item add --job 2 --description Detail --price 150.00 --commission 25.00 >/dev/null
fd item add --job 2 --description Wax --price 40.00 --commission 5% --tech Sam >/dev/null
fd item add --job 3 --description Polish --price 90.00 --commission 15.00 >/dev/null
export FRONTDESK_NOW="2026-11-12 10:00"
fd invoice issue --jobs 1 >/dev/null
fd invoice issue --jobs 2 >/dev/null
fd pay record --customer 2 --amount 190 --method cash 2=190 >/dev/null
export FRONTDESK_NOW="2026-12-05 10:00"
fd invoice credit 1 --amount 75.01 --reason goodwill >/dev/null
export FRONTDESK_NOW="2026-12-08 10:00"
fd pay reverse "$(db "SELECT id FROM payment_allocation WHERE invoice_id = 2")" --reason "refund part" >/dev/null
fd refund 1 --amount 38.00 --reason scratch >/dev/null

DEC=$(fd --json report commissions --from 2026-12-01 --to 2026-12-31)
NOV=$(fd --json report commissions --from 2026-11-01 --to 2026-11-30)
is "the report has December's reductions for Sam (credit, refund)" \
	"$(rows "$DEC" Sam credit | wc -w) $(rows "$DEC" Sam refund | wc -w)" "1 1"

export FRONTDESK_NOW=2026-12-08T10:00 # no blank: screen_start passes it unquoted
screen_start
shows "the calendar opens" "Week of"
keys W
shows "W opens this month's commissions" "Commissions from 2026-12-01 to 2026-12-31"
c=$(money "$(rows "$DEC" Sam credit)")
shows_re "Sam's credit row with the report's negative commission" "^. Sam +2026-12-05 +credit .* $c *$"
r=$(money "$(rows "$DEC" Kim refund)")
shows_re "Kim's refund row with the report's negative commission" "^. Kim +2026-12-08 +refund .* $r *$"
shows "Sam's total is the report's" \
	"Total Sam: 0 visits, 0 lines, amount 0.00 USD, commission $(money "$(total "$DEC" Sam commission)") USD"
shows "Kim's total is the report's" \
	"Total Kim: 0 visits, 0 lines, amount 0.00 USD, commission $(money "$(total "$DEC" Kim commission)") USD"
keys '['
shows "[ moves to November" "Commissions from 2026-11-01 to 2026-11-30"
shows_re "Sam's Brakes line: the amount and the report's commission" \
	"^. Sam +2026-11-12 +line +Brakes +200.00 +$(money "$(rows "$NOV" Sam line | cut -d' ' -f1)") *$"
shows "Sam's November total is the report's" \
	"Total Sam: $(total "$NOV" Sam visits) visits, $(total "$NOV" Sam lines) lines, amount $(money "$(total "$NOV" Sam line_amount)") USD, commission $(money "$(total "$NOV" Sam commission)") USD"
shows "Kim's November total is the report's" \
	"Total Kim: $(total "$NOV" Kim visits) visits, $(total "$NOV" Kim lines) lines, amount $(money "$(total "$NOV" Kim line_amount)") USD, commission $(money "$(total "$NOV" Kim commission)") USD"
shows_re "the first row is Kim's Detail, selected" "^> Kim +2026-11-12 +line +Detail "
keys Enter
shows "Enter on an invoiced line opens the invoice" "> Commissions > $(db "SELECT number FROM invoice WHERE id = 2")"
keys q
shows "back to the commissions" "Commissions from 2026-11-01"
keys j
shows_re "the next row is Kim's uninvoiced Polish" "^> Kim +2026-11-20 +line +Polish "
keys Enter
shows "Enter on a line never invoiced opens its visit" "> Commissions > Visit"
keys q
keys ']'
shows "] moves back to December" "Commissions from 2026-12-01 to 2026-12-31"
done_testing
