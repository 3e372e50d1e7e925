#!/bin/sh
# cli-commission.sh - who did the work, and their commission: `frontdesk
# item add|edit --commission --tech --est-minutes` and `frontdesk report
# commissions` (text, --json, --csv) with two technicians, fixed and
# percentage commissions, a line credited to a technician other than the
# visit's, an uninvoiced line counted on its visit's day, an invoice
# credited in the next period (the first period's report unchanged, the
# second shows the reduction) and a refund shared by the invoice's lines.
# Every expected figure is computed here from the amounts typed.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null
db() { sqlite3 "$FRONTDESK_DB" "$1"; }
jq_() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
# pct AMOUNT BP: AMOUNT x BP / 10000 rounded half away from zero (>= 0 here)
pct() { echo $(( ($1 * $2 * 2 + 10000) / 20000 )); }
# part C TAKEN TOTAL: C x TAKEN / TOTAL rounded half away from zero
part() { echo $(( ($1 * $2 * 2 + $3) / ($3 * 2) )); }

export FRONTDESK_NOW="2026-11-09 08:00"
fd customer add --name "Ann Lee" --address "1 Elm St" >/dev/null
fd customer add --name "Bob Ray" --address "2 Oak St" >/dev/null
fd resource add --name Sam --kind technician >/dev/null
fd resource add --name Kim --kind technician >/dev/null
fd resource add --name "Van 1" --kind van >/dev/null
for r in Sam Kim "Van 1"; do fd resource hours "$r" --days all --spans 08:00-18:00 >/dev/null; done
ok "visit 1: Ann, Sam" fd book --customer Ann --start "2026-11-10 09:00" --length 1:00 --resource Sam
ok "visit 2: Bob, Kim" fd book --customer Bob --start "2026-11-11 09:00" --length 1:00 --resource Kim
ok "visit 3: Ann, Kim (never invoiced)" fd book --customer Ann --start "2026-11-20 09:00" --length 1:00 --resource Kim

# amounts typed (minor units beside them)
A1=20000 BP1=1000    # Brakes 200.00 at 10%, Sam (the visit's)
A2=10004 BP2=1250    # Pads 100.04 at 12.5%: 1250.5 rounds up to 1251
A3=15000 F3=2500     # Detail 150.00, fixed 25.00, Kim
A4=4000 BP4=500      # Wax 40.00 at 5%, on Kim's visit but credited to Sam
A5=9000 F5=1500      # Polish 90.00, fixed 15.00, Kim, not invoiced
ok "a percentage commission" fd item add --job 1 --description Brakes --price 200.00 --commission 10% --est-minutes 45
ok "a percentage with a decimal" fd item add --job 1 --description Pads --price 100.04 --commission 12.5%
ok "a fixed commission" fd item add --job 2 --description Detail --price 150.00 --commission 25.00
ok "credited to another technician" fd item add --job 2 --description Wax --price 40.00 --commission 5% --tech Sam
ok "a line without commission" fd item add --job 2 --description Soap --price 10.00
ok "a commission set by edit" fd item add --job 3 --description Polish --price 90.00
ok "... edit --commission" fd item edit 6 --commission 15.00 --est-minutes 30
is "stored: fixed or basis points, minutes, technician" \
	"$(db "SELECT group_concat(coalesce(commission_fixed,'-')||'/'||coalesce(commission_bp,'-')||'/'||coalesce(est_minutes,'-')||'/'||coalesce(tech_id,'-'), ' ') FROM line_item")" \
	"-/1000/45/- -/1250/-/- 2500/-/-/- -/500/-/1 -/-/-/- 1500/-/30/-"
is "history copies the new columns" "$(db "SELECT commission_fixed, est_minutes FROM line_item_his WHERE id = 6 ORDER BY his_id DESC LIMIT 1")" "1500|30"
refused "a percentage over 100%" item edit 1 --commission 150%
refused "a percentage with three decimals" item edit 1 --commission 1.125%
refused "not an amount" item edit 1 --commission ten
refused "a negative commission" item edit 1 --commission -5
refused "a van is not a technician" item edit 1 --tech "Van 1"
refused "an unknown technician" item edit 1 --tech Nobody
refused "bad minutes" item edit 1 --est-minutes 9x
refused "a bad commission adds no line" item add --job 1 --description X --price 1 --commission 200%
ok "a percentage replaces a fixed amount" fd item edit 6 --commission 10%
ok "... and back" fd item edit 6 --commission 15.00
is "each commission edit writes one history row" "$(db "SELECT group_concat(operate_type) FROM (SELECT operate_type FROM line_item_his WHERE id = 6 ORDER BY his_id)")" "1,3,3,3"
refused "an edit that gives nothing" item edit 6
is "one of the two, never both" "$(db "SELECT commission_fixed, commission_bp FROM line_item WHERE id = 6")" "1500|"

out=$(fd item show 4)
like "item show: the commission and its percentage" "$out" "Commission: 2.00 USD (5.00%)"
like "item show: the technician given" "$out" "Technician: Sam"
like "item show: the visit's technician by default" "$(fd item show 1)" "Technician: Sam (the visit's)"
like "item show: the estimated minutes" "$(fd item show 1)" "Estimated minutes: 45"
is "item show --json" "$(fd --json item show 2 | jq_ 'd["commission"], d["commission_bp"], d["technician"]')" "1251 1250 Sam"
is "item show --json: Kim's fixed" "$(fd --json item show 3 | jq_ 'd["commission"], d["commission_fixed"], d["technician"]')" "2500 2500 Kim"
C1=$(pct $A1 $BP1) C2=$(pct $A2 $BP2) C4=$(pct $A4 $BP4)
is "the rounding of 12.5% of 100.04 (half away from zero)" "$C2" 1251

export FRONTDESK_NOW="2026-11-12 10:00"
ok "invoice 1 (Ann's visit 1)" fd invoice issue --jobs 1
ok "invoice 2 (Bob's visit 2)" fd invoice issue --jobs 2
T1=$((A1 + A2)) T2=$((A3 + A4 + 1000))
ok "Bob pays invoice 2" fd pay record --customer 2 --amount "$((T2 / 100))" --method cash 2=$((T2 / 100))

nov() { fd --json report commissions --from 2026-11-01 --to 2026-11-30; }
tech() { jq_ "[(t['lines'], t['visits'], t['line_amount'], t['commission']) for t in d['technicians'] if t['technician'] == '$1'][0]"; }
NOV_BEFORE=$(nov)
is "November, Sam: 3 lines on 2 visits" "$(echo "$NOV_BEFORE" | tech Sam)" "(3, 2, $((A1 + A2 + A4)), $((C1 + C2 + C4)))"
is "November, Kim: the uninvoiced line on its visit's day" "$(echo "$NOV_BEFORE" | tech Kim)" "(2, 2, $((A3 + A5)), $((F3 + F5)))"
is "October is empty" "$(fd --json report commissions --from 2026-10-01 --to 2026-10-31 | jq_ 'len(d["technicians"])')" 0

# December: invoice 1 credited, invoice 2's payment partly refunded
export FRONTDESK_NOW="2026-12-05 10:00"
CR=7501
ok "credit note on invoice 1" fd invoice credit 1 --amount 75.01 --reason "goodwill"
export FRONTDESK_NOW="2026-12-08 10:00"
ALLOC=$(db "SELECT id FROM payment_allocation WHERE invoice_id = 2")
ok "free the payment" fd pay reverse "$ALLOC" --reason "refund part"
RF=3800
ok "refund 38.00 of Bob's payment" fd refund 1 --amount 38.00 --reason "scratch"

is "November's report is unchanged by December's credit and refund" "$(nov)" "$NOV_BEFORE"
DEC=$(fd --json report commissions --from 2026-12-01 --to 2026-12-31)
R1=$(part "$C1" $CR $T1) R2=$(part "$C2" $CR $T1) R4=$(part "$C4" $RF $T2) R3=$(part $F3 $RF $T2)
is "December, Sam: the credit and the refund, no lines" "$(echo "$DEC" | tech Sam)" "(0, 0, 0, -$((R1 + R2 + R4)))"
is "December, Kim: the refund's share of the fixed commission" "$(echo "$DEC" | tech Kim)" "(0, 0, 0, -$R3)"
is "December's rows say what reduced them" \
	"$(echo "$DEC" | jq_ "' '.join(r['kind']+':'+str(r['commission']) for t in d['technicians'] for r in t['rows'])")" \
	"refund:-$R3 credit:-$R1 credit:-$R2 refund:-$R4"
is "both months together: the net commission" \
	"$(fd --json report commissions --from 2026-11-01 --to 2026-12-31 | tech Sam)" \
	"(3, 2, $((A1 + A2 + A4)), $((C1 + C2 + C4 - R1 - R2 - R4)))"

out=$(fd report commissions --from 2026-12-01 --to 2026-12-31)
like "text: a technician's heading" "$out" "Sam (USD)"
like "text: the total" "$out" "commission -$(( (R1 + R2 + R4) / 100 )).$(printf %02d $(( (R1 + R2 + R4) % 100 )))"
csv=$(fd report commissions --from 2026-11-01 --to 2026-11-30 --csv | tr -d '\r')
like "csv header" "$csv" "technician,kind,day,item_id,description,currency,line_amount,commission"
like "csv: the half-rounded line" "$csv" "Sam,line,2026-11-12,2,Pads,USD,100.04,12.51"
fd report commissions --from 2026-11-01 >/dev/null 2>&1
is "a period needs both days (usage)" "$?" 2
refused "from after to" report commissions --from 2026-12-01 --to 2026-11-01
refused "not a date" report commissions --from 2026-11-31 --to 2026-12-01
fd --json report commissions --from 2026-11-01 --to 2026-11-30 --csv >/dev/null 2>&1
is "csv and json (usage)" "$?" 2
ok "frontdesk check stays clean" fd check

done_testing
