#!/bin/sh
# cli-work.sh - jobs, visits, links and line items from the command line:
# shop-time input, JSON output, status flows, history, and the two stories
# the issue asks for (a job rained off and finished the next day; one visit
# for three customers at one address).
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null

# json EXPR ARGS... - run frontdesk --json ARGS and print EXPR of the document d.
json() {
	expr=$1; shift
	fd --json "$@" | python3 -c "import json,sys; d=json.load(sys.stdin); print($expr)"
}
q() { sqlite3 "$FRONTDESK_DB" "$1"; }

fd customer add --name "Ada Lee" --address "5 Oak Court" >/dev/null
fd customer add --name "Bo Chen" --address "5 Oak Court" >/dev/null
fd customer add --name "Cy Diaz" --address "5 Oak Court" >/dev/null

# -- jobs
out=$(fd job add --customer 1 --title "Full detail"); is "job add says so" "$out" "Job 1 added."
is "default currency is USD" "$(json 'd["currency"]' job show 1)" USD
is "job belongs to the customer" "$(json 'd["customer_name"]' job show 1)" "Ada Lee"
is "a new job is open" "$(json 'd["status"]' job show 1)" open
is "--json add shows the job" "$(json 'd["title"], d["currency"]' job add --customer 2 --title Wax --currency eur)" "Wax EUR"
ok "edit title and note" fd job edit 1 --title "Full detail, interior" --note "Gate 1234"
is "title changed" "$(json 'd["title"]' job show 1)" "Full detail, interior"
ok "clear the note" fd job edit 1 --note ""
is "note cleared" "$(json 'd["note"]' job show 1)" None
is "job list, newest first" "$(json '[j["id"] for j in d["jobs"]]' job list)" "[2, 1]"
is "job list of one customer" "$(json '[j["id"] for j in d["jobs"]]' job list --customer 2)" "[2]"
out=$(fd job list); like "text list has customer and title" "$out" "Ada Lee: Full detail, interior"

# -- status of a job, with the reason in the status flow
out=$(fd job status 1 in_progress --reason "started early"); is "job status says so" "$out" "Job 1 is now in_progress."
is "json status shows the job" "$(json 'd["status"]' job status 2 cancelled)" cancelled
is "flows of job 1" "$(q "SELECT coalesce(from_status,'-') || '>' || to_status || ':' || coalesce(reason,'-') FROM status_flow WHERE entity='job' AND entity_id=1 ORDER BY id")" "->open:-
open>in_progress:started early"
me=$(id -un)
is "status flow has operator and time" "$(q "SELECT DISTINCT operator_id || ' ' || at FROM status_flow")" "$me $(date -d '2026-12-01 09:00' +%s)"
fd job status 2 open >/dev/null 2>"$TMP/err"; is "a cancelled job stays cancelled" "$?" 1
like "with a clear message" "$(cat "$TMP/err")" "job 2 is cancelled, which is final"
fd job status 1 >/dev/null 2>&1; is "status without STATUS is usage" "$?" 2

# -- visits in shop time, stored as UTC
out=$(fd appt add --start "2026-12-01 09:00" --end "2026-12-01 13:00" --location "5 Oak Court")
is "appt add says so" "$out" "Visit 1 added."
is "start stored as UTC" "$(q 'SELECT start_at FROM appointment WHERE id = 1')" "$(date -u -d '2026-12-01 14:00' +%s)"
is "json times are UTC" "$(json 'd["start_at"], d["end_at"]' appt show 1)" "2026-12-01T14:00:00Z 2026-12-01T18:00:00Z"
out=$(fd appt show 1); like "text show is in shop time" "$out" "When: 2026-12-01 09:00-13:00"
ok "edit the end and the note" fd appt edit 1 --end "2026-12-01 12:30" --note "Hose at the side"
is "end changed, start kept" "$(json 'd["start_at"], d["end_at"], d["note"]' appt show 1)" "2026-12-01T14:00:00Z 2026-12-01T17:30:00Z Hose at the side"
ok "clear the location" fd appt edit 1 --location ""
is "location cleared" "$(json 'd["location"]' appt show 1)" None
ok "set the location again" fd appt edit 1 --location "5 Oak Court"

# -- must-show 1: one job, two visits (rained off, finished the next day)
ok "link visit 1 to job 1" fd link add --appt 1 --job 1 --minutes 240
ok "one line item for the job" fd item add --job 1 --description "Full detail" --price 250.00
ok "visit 1 starts" fd appt status 1 in_progress
ok "visit 1 rained off" fd appt status 1 done --reason "rained off at 11"
out=$(fd appt add --start "2026-12-02 09:00" --end "2026-12-02 11:00" --location "5 Oak Court")
is "second visit" "$out" "Visit 2 added."
ok "link visit 2 to the same job" fd link add --appt 2 --job 1 --minutes 120
ok "visit 2 confirmed" fd appt status 2 confirmed
ok "visit 2 starts" fd appt status 2 in_progress
ok "visit 2 done" fd appt status 2 done
ok "job done" fd job status 1 done
is "still one job for Ada" "$(q 'SELECT count(*) FROM service_order WHERE customer_id = 1')" 1
is "one line item" "$(q 'SELECT count(*) FROM line_item')" 1
is "no made-up zero-price line" "$(q 'SELECT count(*) FROM line_item WHERE unit_price = 0 OR amount = 0')" 0
is "two visits on the job" "$(json '[v["appt_id"] for v in d["visits"]]' job show 1)" "[1, 2]"
is "job total is the one item" "$(json 'd["total"]' job show 1)" 25000
out=$(fd job show 1)
like "text show lists the first visit" "$out" "visit 1  2026-12-01 09:00-12:30  done  240 min"
like "text show lists the second visit" "$out" "visit 2  2026-12-02 09:00-11:00  done  120 min"
like "text show has the total" "$out" "Total: 250.00 USD"
is "reason of the rained-off visit" "$(q "SELECT reason FROM status_flow WHERE entity='appointment' AND entity_id=1 AND to_status='done'")" "rained off at 11"
is "link list of the job" "$(json '[(l["appt_id"], l["est_minutes"]) for l in d["links"]]' link list --job 1)" "[(1, 240), (2, 120)]"

# -- must-show 2: one visit, three customers' jobs at one address
fd job add --customer 2 --title "Wash" >/dev/null   # job 3
fd job add --customer 3 --title "Interior" >/dev/null # job 4
fd job add --customer 1 --title "Tyres" >/dev/null  # job 5
out=$(fd appt add --start "2026-12-03 10:00" --end "2026-12-03 13:00" --location "5 Oak Court")
is "shared visit" "$out" "Visit 3 added."
ok "Ada's job on it" fd link add --appt 3 --job 5 --minutes 30
ok "Bo's job on it" fd link add --appt 3 --job 3 --minutes 60
ok "Cy's job on it" fd link add --appt 3 --job 4 --minutes 45
is "show reports Name +2" "$(json 'd["customers"]' appt show 3)" "Ada Lee +2"
is "services in link order" "$(json 'd["services"]' appt show 3)" "Tyres, Wash, Interior"
is "minutes add up" "$(json 'd["est_minutes"]' appt show 3)" 135
out=$(fd appt list --from 2026-12-03)
is "list of the day" "$out" "     3  2026-12-03 10:00-13:00  scheduled    Ada Lee +2 (Tyres, Wash, Interior)  @ 5 Oak Court"
is "still one visit that day" "$(q "SELECT count(*) FROM appointment WHERE start_at >= $(date -d 2026-12-03 +%s)")" 1
out=$(fd appt show 3); like "text show too" "$out" "Customers: Ada Lee +2"
ok "change minutes" fd link edit --appt 3 --job 3 --minutes 90
is "minutes changed" "$(json 'd["est_minutes"]' appt show 3)" 165
ok "remove a link" fd link remove --appt 3 --job 4
is "two customers left" "$(json 'd["customers"]' appt show 3)" "Ada Lee +1"
is "link history: edited link 4, removed link 5" "$(q 'SELECT group_concat(id || ":" || operate_type) FROM (SELECT id, operate_type FROM appointment_work_his WHERE id IN (4, 5) ORDER BY his_id)')" "4:1,5:1,4:3,5:2"
is "removed link kept in the history" "$(q 'SELECT operate_type, est_minutes FROM appointment_work_his WHERE id = 5 ORDER BY his_id DESC LIMIT 1')" "2|45"

# -- the visits of a range: a visit crossing midnight is on both days
fd appt add --start "2026-12-05 22:00" --end "2026-12-06 02:00" --location "Night shift" >/dev/null # 4
fd appt add --start "2026-12-06 09:00" --end "2026-12-06 10:00" >/dev/null                        # 5
is "Dec 5 has the night visit" "$(json '[a["id"] for a in d["appointments"]]' appt list --from 2026-12-05)" "[4]"
is "Dec 6 has it too" "$(json '[a["id"] for a in d["appointments"]]' appt list --from 2026-12-06)" "[4, 5]"
is "two days list it once" "$(json '[a["id"] for a in d["appointments"]]' appt list --from 2026-12-05 --days 2)" "[4, 5]"
is "a week from Dec 1" "$(json '[a["id"] for a in d["appointments"]]' appt list --from 2026-12-01 --days 7)" "[1, 2, 3, 4, 5]"
out=$(fd appt list --from 2026-12-06)
like "text shows the end's date" "$out" "2026-12-05 22:00-2026-12-06 02:00"
like "a visit with no job says so" "$out" "(no job yet)"
is "default is today (Dec 1)" "$(json '[a["id"] for a in d["appointments"]]' appt list)" "[1]"
is "an empty day" "$(json 'd["appointments"]' appt list --from 2026-12-24)" "[]"
fd appt list --days 0 >/dev/null 2>&1; is "--days 0 is usage" "$?" 2
ok "cancel a visit" fd appt cancel 5 --reason "customer called"
is "cancelled with its reason" "$(q "SELECT to_status || ':' || reason FROM status_flow WHERE entity='appointment' AND entity_id=5 ORDER BY id DESC LIMIT 1")" "cancelled:customer called"
ok "cancel a job" fd job cancel 4
is "job 4 cancelled" "$(json 'd["status"]' job show 4)" cancelled

# -- line items: amounts, kinds, edits, deletes, history
ok "1.5 h at 45.00" fd item add --job 3 --description "Labour" --qty 1.5 --price 45.00
is "amount in minor units" "$(json 'd["amount"], d["qty_milli"], d["unit_price"]' item show 2)" "6750 1500 4500"
ok "a discount" fd item add --job 3 --kind discount --description "Neighbour discount" --price 5
is "discount is negative" "$(json 'd["kind"], d["amount"]' item show 3)" "DISCOUNT -500"
ok "a fee" fd item add --job 3 --kind FEE --description "Call-out" --price 1,000.50
is "grouped price read" "$(json 'd["amount"]' item show 4)" 100050
ok "a credit" fd item add --job 3 --kind CREDIT --description "Voucher" --qty 2 --price 10
ok "a tax" fd item add --job 3 --kind TAX --description "Sales tax" --price 3.24
is "item list of the job" "$(json '[(i["kind"], i["amount"]) for i in d["items"]]' item list --job 3)" "[('SERVICE', 6750), ('DISCOUNT', -500), ('FEE', 100050), ('CREDIT', -2000), ('TAX', 324)]"
is "job total" "$(json 'd["total"]' job show 3)" $((6750 - 500 + 100050 - 2000 + 324))
out=$(fd item list --job 3); like "text list" "$out" "DISCOUNT  Neighbour discount  1 x 5.00 = -5.00 USD"
ok "edit quantity and kind" fd item edit 5 --qty 3 --kind FEE
is "amount recomputed, now positive" "$(json 'd["kind"], d["amount"]' item show 5)" "FEE 3000"
ok "edit the price" fd item edit 5 --price 0.5
is "price changed" "$(json 'd["amount"]' item show 5)" 150
ok "delete it" fd item delete 5
fd item show 5 >/dev/null 2>&1; is "deleted item is gone" "$?" 1
is "item history: insert, update, update, delete" "$(q 'SELECT group_concat(operate_type) FROM (SELECT operate_type FROM line_item_his WHERE id = 5 ORDER BY his_id)')" "1,3,3,2"
ok "a JPY job" fd job add --customer 3 --title "Polish" --currency JPY
ok "JPY has no decimals" fd item add --job 6 --description "Polish" --price 1200
is "yen are minor units" "$(json 'd["amount"], d["currency"]' item show 7)" "1200 JPY"
out=$(fd item show 7); like "shown without decimals" "$out" "Amount: 1200 JPY"

# -- history of jobs and visits, with operator and time
is "job history" "$(q 'SELECT group_concat(operate_type) FROM (SELECT operate_type FROM service_order_his WHERE id = 1 ORDER BY his_id)')" "1,3,3,3,3"
is "visit history" "$(q 'SELECT group_concat(operate_type) FROM (SELECT operate_type FROM appointment_his WHERE id = 1 ORDER BY his_id)')" "1,3,3,3,3,3"
is "every history row has operator and time" "$(q "SELECT count(*) FROM (SELECT operator_id, operate_at FROM service_order_his UNION ALL SELECT operator_id, operate_at FROM appointment_his UNION ALL SELECT operator_id, operate_at FROM appointment_work_his UNION ALL SELECT operator_id, operate_at FROM line_item_his) WHERE operator_id <> '$me' OR operate_at <> $(date -d '2026-12-01 09:00' +%s)")" 0
for t in service_order appointment appointment_work line_item; do
	out=$(q "DELETE FROM ${t}_his" 2>&1); like "$t history cannot be deleted" "$out" "never deleted"
done

# -- every command has --help; --json on every list and show
for cmd in "job add" "job list" "job show" "job edit" "job status" "job cancel" \
	"appt add" "appt list" "appt show" "appt edit" "appt status" "appt cancel" \
	"link add" "link edit" "link remove" "link list" \
	"item add" "item list" "item show" "item edit" "item delete"; do
	# shellcheck disable=SC2086
	out=$(fd $cmd --help); st=$?
	is "$cmd --help" "$st:$(echo "$out" | head -1 | cut -c1-16)" "0:Usage: frontdesk"
done
for g in job appt link item; do
	out=$(fd $g --help); like "$g --help lists add" "$out" "add"
done
ok "appt show --json is JSON" json 'd["id"]' appt show 1
ok "link list --appt --json is JSON" json 'd["links"][0]["job_title"]' link list --appt 1
is "text link list" "$(fd link list --appt 1)" "visit 1  2026-12-01 09:00-12:30  job 1  240 min  Ada Lee: Full detail, interior"
is "item delete --json" "$(json 'd["deleted"]' item delete 6)" 6

done_testing
