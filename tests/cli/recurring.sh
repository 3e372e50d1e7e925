#!/bin/sh
# recurring.sh - `frontdesk recurring`: a rule makes its visits up to the
# horizon, as ordinary visits with their jobs and line items at the rule's
# prices; making again makes nothing twice; the task runner makes them as
# the horizon moves; "this and following" splits the rule with no visit
# lost or doubled; a stop cancels the visits not started, with their jobs;
# billing by the month puts a visit's items on the month's job when it is
# done; the shop's closed days are skipped or moved, and close the
# resources' hours; bad input is refused and changes nothing; a rule keeps its customer
# from a retention purge until it ends, and a purge takes the rules' text;
# SIGKILL while visits are
# made leaves no visit without its occurrence and none twice
# (FRONTDESK_LONG_TESTS=1: more rounds).
. "$TOP_SRCDIR/tests/lib/tap.sh"

PY=python3
export TZ=America/New_York
export FRONTDESK_NOW="2027-01-04T08:00"
export FRONTDESK_CONFIG="$TMP/config.ini"
printf 'timezone = America/New_York\nrecurring_horizon_days = 60\n' > "$FRONTDESK_CONFIG"

fd init >/dev/null
fd customer add --name "Lee" --address "1 Pool St" >/dev/null
fd customer add --name "Kim" >/dev/null
fd service add --name "Pool clean" --price 80.00 --minutes 60 >/dev/null
fd service add --name "Filter" --price 15.50 >/dev/null

q() { sqlite3 "$FRONTDESK_DB" "$1"; }
json() { $PY -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# --- a weekly rule: its visits up to the horizon, each on a job of its own
out=$(fd recurring add --customer Lee --rule "FREQ=WEEKLY;BYDAY=MO" --time 09:30 \
	--services "Pool clean,Filter" --from 2027-01-05 --json)
id=$(echo "$out" | json 'd["id"]')
is "the first day is the rule's first Monday from --from" "$(echo "$out" | json 'd["first_day"]')" 2027-01-11
is "the price is the services' today" "$(echo "$out" | json 'd["price"]')" 9550
want=$($PY -c 'import datetime as d; s=d.date(2027,1,11); e=d.date(2027,1,4)+d.timedelta(60); print(sum(1 for i in range(0,(e-s).days+1,7)))')
is "visits are made to today + recurring_horizon_days" "$(echo "$out" | json 'd["made"]')" "$want"
is "each visit is on its own job" "$(q "SELECT count(DISTINCT service_order_id) FROM appointment_work")" "$want"
is "each job has the rule's two items at its prices" \
	"$(q "SELECT DISTINCT group_concat(unit_price, ',') FROM (SELECT service_order_id, unit_price FROM line_item ORDER BY service_order_id, id) GROUP BY service_order_id")" "8000,1550"
is "each visit at 09:30 shop time for 60 minutes" \
	"$(q "SELECT DISTINCT strftime('%H:%M', start_at, 'unixepoch', 'localtime') || ' ' || (end_at - start_at) FROM appointment")" "09:30 3600"
is "the visits show on the agenda" "$(fd agenda --from 2027-01-11 --days 1 | grep -c 'Pool clean')" 1

before=$(dump)
fd recurring make "$id" >/dev/null
is "making again makes nothing twice" "$(dump)" "$before"

# --- the task runner makes the days the horizon reaches
FRONTDESK_NOW="2027-02-04T08:00" fd tasks run --once >/dev/null 2>&1
want2=$($PY -c 'import datetime as d; s=d.date(2027,1,11); e=d.date(2027,2,4)+d.timedelta(60); print(sum(1 for i in range(0,(e-s).days+1,7)))')
is "the runner makes the visits as the horizon moves" "$(q "SELECT count(*) FROM recurring_occurrence WHERE rule_id = $id")" "$want2"

# --- refusals change nothing
refused "a rule libical cannot read" recurring add --customer Lee --rule "FREQ=SOMETIMES" --time 09:00 --length 60
refused "a rule by the hour" recurring add --customer Lee --rule "FREQ=HOURLY" --time 09:00 --length 60
refused "a rule with its own hours" recurring add --customer Lee --rule "FREQ=DAILY;BYHOUR=9" --time 09:00 --length 60
refused "a rule that gives no day" recurring add --customer Lee --rule "FREQ=DAILY;UNTIL=20260101" --time 09:00 --length 60
refused "an unknown customer" recurring add --customer Nobody --rule "FREQ=DAILY" --time 09:00 --length 60
refused "a bad billing" recurring add --customer Lee --rule "FREQ=DAILY" --time 09:00 --length 60 --billing weekly
refused "a control character in the note" recurring add --customer Lee --rule "FREQ=DAILY" --time 09:00 --length 60 --note "$(printf 'a\033[2Jb')"
refused "an edit that changes nothing" recurring edit "$id" --scope all
refused "a visit the rule does not have" recurring edit "$id" --scope this --day 2027-01-12 --time 10:00
refused "an unknown recurring job" recurring show 999
st=$(fd recurring add --customer Lee --rule "FREQ=DAILY" --time 25:00 --length 60 2>/dev/null; echo $?)
is "a time that is no time is a usage error" "$st" 2

# --- this and following: the rule splits on 2027-02-01; no visit lost or doubled
visits_before=$(q "SELECT count(*) FROM appointment WHERE status <> 'cancelled'")
days_before=$(q "SELECT group_concat(day) FROM (SELECT day FROM recurring_occurrence ORDER BY day)")
fd recurring edit "$id" --scope this --day 2027-02-15 --time 14:00 >/dev/null
out=$(fd recurring edit "$id" --scope following --day 2027-02-01 --time 10:00 --json)
new=$(echo "$out" | json 'd["new_id"]')
is "the split cancels nothing when the days stay" "$(echo "$out" | json 'd["dropped"]')" 0
is "the old rule ends the day before" "$(fd recurring show "$id" --json | json 'd["last_day"]')" 2027-01-31
is "no visit lost or doubled" "$(q "SELECT count(*) FROM appointment WHERE status <> 'cancelled'")" "$visits_before"
is "every day is still made once" "$(q "SELECT group_concat(day) FROM (SELECT day FROM recurring_occurrence ORDER BY day)")" "$days_before"
is "the following visits move to 10:00" \
	"$(q "SELECT DISTINCT strftime('%H:%M', a.start_at, 'unixepoch', 'localtime') FROM recurring_occurrence o JOIN appointment a ON a.id = o.appointment_id WHERE o.rule_id = $new AND o.day <> '2027-02-15'")" "10:00"
is "the visit moved by hand stays where it was put" \
	"$(q "SELECT strftime('%H:%M', a.start_at, 'unixepoch', 'localtime') FROM recurring_occurrence o JOIN appointment a ON a.id = o.appointment_id WHERE o.day = '2027-02-15'")" "14:00"
is "the earlier visits stay at 09:30" \
	"$(q "SELECT DISTINCT strftime('%H:%M', a.start_at, 'unixepoch', 'localtime') FROM recurring_occurrence o JOIN appointment a ON a.id = o.appointment_id WHERE o.rule_id = $id")" "09:30"

# a new rule that drops days: every other Monday from 2027-03-01
out=$(fd recurring edit "$new" --scope following --day 2027-03-01 --rule "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO" --json)
dropped=$(echo "$out" | json 'd["dropped"]')
is "the days the new rule drops are cancelled" "$dropped" \
	"$(q "SELECT count(*) FROM recurring_occurrence WHERE state = 'dropped'")"
ok "some days were dropped" test "$dropped" -gt 0
is "their jobs are cancelled with them" \
	"$(q "SELECT count(*) FROM service_order j JOIN appointment_work w ON w.service_order_id = j.id JOIN recurring_occurrence o ON o.appointment_id = w.appointment_id WHERE o.state = 'dropped' AND j.status = 'cancelled'")" "$dropped"
is "no day has two live visits" \
	"$(q "SELECT count(*) FROM (SELECT date(a.start_at, 'unixepoch', 'localtime') d FROM appointment a WHERE a.status <> 'cancelled' GROUP BY d HAVING count(*) > 1)")" 0
like "history recurring shows the rule's changes and its occurrences" "$(fd history recurring "$new")" "occurrence"
is "the rule's history keeps each change" \
	"$(q "SELECT count(*) FROM recurring_rule_his WHERE id = $new AND operate_type = 3")" 1

# --- stop: the visits from that day on are cancelled
last=$(fd recurring list --json | json '[r["id"] for r in d["recurring"]][-1]')
live=$(q "SELECT count(*) FROM recurring_occurrence o JOIN appointment a ON a.id = o.appointment_id WHERE o.rule_id = $last AND o.day >= '2027-03-15' AND a.status = 'scheduled'")
out=$(fd recurring stop "$last" --from 2027-03-15 --json)
is "a stop cancels the visits not started" "$(echo "$out" | json 'd["dropped"]')" "$live"
refused "a stop of a stopped rule" recurring stop "$last" --from 2027-03-15

# --- billing by the month: the month's job gets a visit's items when it is done
out=$(fd recurring add --customer Kim --rule "FREQ=WEEKLY;BYDAY=WE" --time 08:00 --length 30 \
	--services "Filter" --billing month --from 2027-01-04 --json)
mid=$(echo "$out" | json 'd["id"]')
is "the January visits share one job" \
	"$(q "SELECT count(DISTINCT w.service_order_id) FROM recurring_occurrence o JOIN appointment_work w ON w.appointment_id = o.appointment_id WHERE o.rule_id = $mid AND o.day LIKE '2027-01-%'")" 1
mjob=$(q "SELECT job_id FROM recurring_month WHERE rule_id = $mid AND month = '2027-01'")
is "the month's job has no item before a visit is done" "$(q "SELECT count(*) FROM line_item WHERE service_order_id = $mjob")" 0
v1=$(q "SELECT appointment_id FROM recurring_occurrence WHERE rule_id = $mid ORDER BY day LIMIT 1")
fd visit status "$v1" in_progress >/dev/null
fd visit status "$v1" done >/dev/null
is "a done visit bills its items on the month's job" "$(q "SELECT count(*) || ' ' || sum(unit_price) FROM line_item WHERE service_order_id = $mjob")" "1 1550"
ok "the month's job is invoiced as any job" fd invoice issue --jobs "$mjob"

# --- the shop's closed days: a recurring job skips or moves its visit
fd holiday add 2027-01-13 --reason "stocktake" >/dev/null
fd holiday add 2027-01-20 >/dev/null
hs=$(fd recurring add --customer Kim --rule "FREQ=WEEKLY;BYDAY=WE" --time 12:00 --length 30 \
	--from 2027-01-06 --title "Skipper" --json | json 'd["id"]')
hm=$(fd recurring add --customer Kim --rule "FREQ=WEEKLY;BYDAY=WE" --time 13:00 --length 30 \
	--from 2027-01-06 --title "Mover" --when-off move --json | json 'd["id"]')
is "a closed day is skipped, with why" \
	"$(q "SELECT state || ' ' || reason FROM recurring_occurrence WHERE rule_id = $hs AND day = '2027-01-13'")" \
	"skipped the shop is closed on 2027-01-13 (stocktake)"
is "or moved to the next day" \
	"$(q "SELECT o.state || ' ' || date(a.start_at, 'unixepoch', 'localtime') FROM recurring_occurrence o JOIN appointment a ON a.id = o.appointment_id WHERE rule_id = $hm AND day = '2027-01-20'")" \
	"moved 2027-01-21"
fd resource add --name Sam --kind technician >/dev/null
fd resource hours Sam --days mon-sun --spans 08:00-18:00 >/dev/null
is "no free slot on a closed day" "$(fd availability --from 2027-01-13 --resource Sam --json | json 'len(d["slots"])')" 0
refused "a booking that holds a resource on a closed day" book --customer Kim --start "2027-01-13 10:00" --length 60 --resource Sam
fd resource off Sam --date 2027-01-13 --hours 09:00-12:00 --reason "on call" >/dev/null
ok "a resource with its own hours that day works it" fd book --customer Kim --start "2027-01-13 10:00" --length 60 --resource Sam
fd book --customer Kim --start "2027-01-27 10:00" --length 60 --resource Sam >/dev/null 2>&1
refused "closing a day a visit holds a resource" holiday add 2027-01-27 --reason "late"
refused "a day that is not one" holiday add 2027-02-30
is "the closed days are listed" "$(fd holiday list --from 2027-01-01 --json | json '[h["day"] for h in d["holidays"]]')" "['2027-01-13', '2027-01-20']"
ok "a closed day is opened again" fd holiday remove 2027-01-20
refused "a day that was not closed" holiday remove 2027-01-20
is "the history keeps who closed and opened it" "$(q "SELECT group_concat(operate_type) FROM shop_holiday_his WHERE day = '2027-01-20'")" "1,2"

# --- retention: a rule with days to make keeps its customer; a purge
# takes the rules' personal text with the customer's
FRONTDESK_NOW="2022-03-10T08:00" fd customer add --name "Ola" --address "7 Hidden Rd" >/dev/null
FRONTDESK_NOW="2022-03-10T08:00" fd customer add --name "Per" >/dev/null
FRONTDESK_NOW="2022-03-10T08:00" fd recurring add --customer Ola --rule "FREQ=DAILY;COUNT=2" \
	--time 10:00 --length 30 --note "GATECODE-4321" --title "Ola's hedge" --location "7 Hidden Rd" >/dev/null
olarule=$(q "SELECT max(id) FROM recurring_rule")
FRONTDESK_NOW="2022-03-10T08:00" fd recurring stop "$olarule" >/dev/null
FRONTDESK_NOW="2022-03-10T08:00" fd recurring add --customer Per --rule "FREQ=MONTHLY" --time 10:00 \
	--length 30 --from 2027-06-01 >/dev/null
per=$(q "SELECT id FROM customer WHERE name = 'Per'")
ola=$(q "SELECT id FROM customer WHERE name = 'Ola'")
out=$(FRONTDESK_NOW="2026-12-01T09:00" fd retention propose --customer "$per" 2>&1)
like "a rule with days to make keeps its customer" "$out" "still makes visits"
ok "a stopped rule does not" env FRONTDESK_NOW="2026-12-01T09:00" "$FRONTDESK" retention propose --customer "$ola"
FRONTDESK_NOW="2027-01-05T09:00" fd retention run >/dev/null
is "the purge leaves none of the rule's text" "$(dump | grep -c "GATECODE\|Ola's hedge\|Hidden Rd")" 0

# --- SIGKILL while the visits are made: nothing half made, nothing twice
rounds=3
[ "${FRONTDESK_LONG_TESTS:-0}" = 1 ] && rounds=30
printf 'timezone = America/New_York\nrecurring_horizon_days = 730\n' > "$FRONTDESK_CONFIG"
i=0
while [ $i -lt $rounds ]; do
	i=$((i + 1))
	kid=$(fd recurring add --customer Kim --rule "FREQ=DAILY" --time 18:00 --length 15 \
		--services Filter --from 2027-01-05 --json 2>/dev/null | json 'd["id"]' 2>/dev/null)
	[ -n "$kid" ] || kid=$(q "SELECT max(id) FROM recurring_rule")
	fd recurring make "$kid" --to 2029-01-01 >/dev/null 2>&1 &
	pid=$!
	sleep "0.$(( (i * 37) % 9 + 1 ))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	fd recurring make "$kid" --to 2029-01-01 >/dev/null
	fd recurring stop "$kid" >/dev/null
done
is "after $rounds kills every made visit has its occurrence" \
	"$(q "SELECT count(*) FROM appointment a WHERE a.start_at >= strftime('%s', '2027-01-05') AND strftime('%H:%M', a.start_at, 'unixepoch', 'localtime') = '18:00' AND NOT EXISTS (SELECT 1 FROM recurring_occurrence o WHERE o.appointment_id = a.id)")" 0
is "and no day of a rule has two visits" \
	"$(q "SELECT count(*) FROM (SELECT o.rule_id, date(a.start_at, 'unixepoch', 'localtime') d FROM recurring_occurrence o JOIN appointment a ON a.id = o.appointment_id GROUP BY 1, 2 HAVING count(*) > 1)")" 0
out=$(fd check 2>&1)
like "check sees a rule whose visits are not made to the horizon" "$out" "recurring-behind"
fd tasks run --once >/dev/null 2>&1
ok "once the runner made them, check finds nothing wrong" fd check

done_testing
