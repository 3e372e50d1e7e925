#!/bin/sh
# cli-check-proj.sh - `frontdesk check` also compares every calendar row
# with a fresh recomputation: a row altered behind frontdesk's back is
# reported; a row whose rebuild job is still waiting (catching up) is not.
. "$TOP_SRCDIR/tests/lib/tap.sh"

fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
fd job add --customer 1 --title "Full detail" --currency USD >/dev/null
fd item add --job 1 --kind SERVICE --description "Full detail" --qty 1 --price 180 >/dev/null
fd appt add --start "2026-12-02 09:00" --end "2026-12-02 11:00" >/dev/null
fd link add --appt 1 --job 1 --minutes 120 >/dev/null
ok "the task runner builds the calendar row" fd tasks run --once
out=$(fd check); is "check is clean after the rebuild" "$?" 0
like "and says so" "$out" "No problems found"

# A change that enqueues a rebuild, not yet run: the row lags, which is
# allowed (the projection may be a moment behind), so check stays clean.
fd item add --job 1 --kind FEE --description "Travel fee" --qty 1 --price 25 >/dev/null
fd check >/dev/null; is "a row waiting for its rebuild is not a violation" "$?" 0
ok "the runner catches up" fd tasks run --once

# Alter the row behind frontdesk's back: check must report it.
sqlite3 "$FRONTDESK_DB" "UPDATE appointment_calendar_view SET total_price = total_price + 1"
fd check >"$TMP/out" 2>"$TMP/err"; is "an altered calendar row fails the check" "$?" 1
like "it is named as a stale projection row" "$(cat "$TMP/out")" "projection_stale: visit 1"
codes=$(fd --json check | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["count"], sorted(set(v["code"] for v in d["violations"])))')
is "json check counts it" "$codes" "1 ['projection_stale']"
ok "a full rebuild repairs it" fd projection rebuild --all
fd check >/dev/null; is "check is clean again" "$?" 0

# The rows are read a batch of visits at a time: a visit whose job's price
# cannot be added up (beyond 64 bits, written behind frontdesk's back) is
# reported, and the visits after it in the batch are still checked (one
# of them altered here).
for v in 2 3 4; do
	fd job add --customer 1 --title "Job $v" --currency USD >/dev/null
	fd item add --job "$v" --kind SERVICE --description "Job $v" --qty 1 --price 10 >/dev/null
	fd appt add --start "2026-12-0$((v + 1)) 09:00" --end "2026-12-0$((v + 1)) 10:00" >/dev/null
	fd link add --appt "$v" --job "$v" --minutes 60 >/dev/null
done
fd tasks run --once >/dev/null
fd check >/dev/null; is "four visits check clean" "$?" 0
sqlite3 "$FRONTDESK_DB" ".dbconfig enable_trigger off" "
INSERT INTO line_item (service_order_id, kind, description, qty_milli, unit_price, amount, created_at, updated_at)
  VALUES (2, 'SERVICE', 'absurd', 1000, 1, 9223372036854775807, 0, 0),
         (2, 'SERVICE', 'absurd', 1000, 1, 9223372036854775807, 0, 0);
UPDATE appointment_calendar_view SET services = 'changed' WHERE appointment_id IN (1, 4);" >/dev/null
fd check >"$TMP/out" 2>"$TMP/err"
is "the visit that cannot be computed and the altered ones, each once" \
	"$(grep -o '^projection_stale: visit [0-9]*: calendar row [a-z ]*' "$TMP/out")" \
	"projection_stale: visit 1: calendar row differs
projection_stale: visit 2: calendar row cannot be computed
projection_stale: visit 4: calendar row differs"

done_testing
