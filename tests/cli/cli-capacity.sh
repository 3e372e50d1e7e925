#!/bin/sh
# cli-capacity.sh - the command line of capacity: `frontdesk resource
# add|list|show|change|hours|off`, `frontdesk book --resource`,
# `frontdesk availability` (text and --json, checked against slots
# computed here from the hours and bookings this test made), a visit
# moved with its reservations or refused, a cancelled one freeing its
# slot, bad input refused with nothing changed, and `frontdesk check`
# finding an overlapping reservation made behind the program's back.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null
db() { sqlite3 "$FRONTDESK_DB" "$1"; }
jq_() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

fd customer add --name "Ann Lee" --address "1 Elm St" >/dev/null
fd service add --name "Detail" --price 120 --minutes 90 >/dev/null

# --- resources ------------------------------------------------------------------
ok "add a technician" fd resource add --name Sam --kind technician
ok "add a van" fd resource add --name "Van 1" --kind van --note "the big one"
refused "a resource needs a known kind" resource add --name Bo --kind truck
refused "a name is unique, ignoring case" resource add --name sam --kind bay
refused "an unknown resource" resource show Nobody
ok "hours: weekdays with a lunch break" fd resource hours Sam --days mon-fri --spans 08:00-12:00,13:00-17:00
ok "hours: the van every day" fd resource hours "Van 1" --days all --spans 07:00-19:00
refused "hours that overlap" resource hours Sam --days sat --spans 08:00-12:00,11:00-13:00
refused "a weekday that does not exist" resource hours Sam --days funday --spans 08:00-12:00
is "the hours are stored per weekday" "$(db 'SELECT count(*) FROM resource_hours WHERE resource_id = 1')" 10
out=$(fd resource list)
like "list shows the weekly hours" "$out" "Sam  technician  Mon 08:00-12:00,13:00-17:00"
is "json list: both, with hours" "$(fd --json resource list | jq_ 'len(d["resources"]), len(d["resources"][1]["hours"])')" "2 7"

# --- booking with resources ------------------------------------------------------
# 2026-12-02 is a Wednesday
ok "book Sam and the van" fd book --customer Ann --start "2026-12-02 09:00" --services Detail --resource "Sam, Van 1"
is "both reserved for the visit's interval" \
	"$(db 'SELECT count(*) FROM appointment_resource r JOIN appointment a ON a.id = r.appointment_id WHERE r.start_at = a.start_at AND r.end_at = a.end_at')" 2
like "visit show names them" "$(fd visit show 1)" "Resources: Sam, Van 1"
is "json visit show lists them" "$(fd --json visit show 1 | jq_ '",".join(r["name"] for r in d["resources"])')" "Sam,Van 1"
refused "the van is taken then (the reason names the visit)" book --customer Ann --start "2026-12-02 10:00" --length 1:00 --resource "Van 1"
like "... and says which visit holds it" "$(cat "$TMP/err")" "Van 1 is taken from 2026-12-02 09:00 to 10:30 by visit 1"
refused "Sam free but the van taken: neither is booked" book --customer Ann --start "2026-12-02 10:00" --length 1:00 --resource "Sam,Van 1"
ok "touching the end of a visit is free (half-open)" fd book --customer Ann --start "2026-12-02 10:30" --length 1:00 --resource "Van 1"
refused "outside the working hours" book --customer Ann --start "2026-12-02 12:00" --length 1:00 --resource Sam
like "... says the hours" "$(cat "$TMP/err")" "its hours that day are 08:00-12:00, 13:00-17:00"
refused "an unknown resource" book --customer Ann --start "2026-12-02 14:00" --length 1:00 --resource Nobody
ok "without --resource, booking is as before" fd book --customer Ann --start "2026-12-02 09:00" --length 1:00

# --- days off --------------------------------------------------------------------
ok "Sam is off on Thursday" fd resource off Sam --date 2026-12-03 --reason "training day"
refused "a booking on his day off" book --customer Ann --start "2026-12-03 09:00" --length 1:00 --resource Sam
like "... gives the reason" "$(cat "$TMP/err")" "training day"
refused "closing a day a visit holds" resource off Sam --date 2026-12-02
refused "a date that does not exist" resource off Sam --date 2026-02-30
ok "other hours on Friday" fd resource off Sam --date 2026-12-04 --hours 10:00-14:00 --reason "half day"
like "show lists the coming exceptions" "$(fd resource show Sam)" "2026-12-04  10:00-14:00  half day"

# --- availability -----------------------------------------------------------------
# Sam on Wednesday: 8-12 and 13-17 less 09:00-10:30; a 90-minute Detail on
# the 15-minute grid. Computed here from those figures.
expect=""
for span in "480 720" "780 1020"; do
	set -- $span
	m=$1
	while [ $((m + 90)) -le "$2" ]; do
		if [ $((m + 90)) -le 540 ] || [ "$m" -ge 630 ]; then
			expect="$expect $(printf '%02d:%02d' $((m / 60)) $((m % 60)))"
		fi
		m=$((m + 15))
	done
done
got=$(fd --json availability --from 2026-12-02 --service Detail --resource Sam |
	jq_ '"".join(" " + s["start_local"][11:] for s in d["slots"])')
is "availability: Sam's hours less his visit, for the service's length" "$got" "$expect"
like "text: one line per day and resource" "$(fd availability --from 2026-12-02 --service Detail --resource Sam)" \
	"2026-12-02 Wed  Sam (technician): 10:30 13:00 13:15"
is "his day off has no slot, Friday only its other hours (10:00-14:00, 60 min, 15-min grid)" \
	"$(fd --json availability --from 2026-12-03 --days 2 --resource Sam | jq_ 'len(d["slots"]), d["slots"][0]["start_local"], d["slots"][-1]["start_local"]')" \
	"13 2026-12-04 10:00 2026-12-04 13:00"
is "every active resource by default, technicians first" \
	"$(fd --json availability --from 2026-12-06 | jq_ 'd["slots"][0]["resource"], len(d["slots"])')" "Van 1 45"
fd availability --days 100 2>/dev/null; is "--days out of range is bad usage" "$?" 2
refused "an unknown service" availability --service Nothing

# the reads that grow with the visits are index range scans (the queries
# of capacity.c: check_free, and av_load's reservations)
plan=$(db "EXPLAIN QUERY PLAN SELECT r.appointment_id, r.start_at, r.end_at FROM appointment_resource r
	JOIN appointment a ON a.id = r.appointment_id WHERE r.resource_id = 1 AND r.start_at < 200
	AND r.start_at >= 100 - 604800 AND r.end_at > 100 AND r.appointment_id <> 3
	AND a.status NOT IN ('cancelled', 'no_show') ORDER BY r.start_at LIMIT 1")
like "the overlap check is a range scan of one resource's reservations" "$plan" \
	"SEARCH r USING INDEX appointment_resource_by_time (resource_id=? AND start_at>? AND start_at<?)"
plan=$(db "EXPLAIN QUERY PLAN SELECT r.resource_id, r.start_at, r.end_at FROM resource x
	CROSS JOIN appointment_resource r ON r.resource_id = x.id AND r.start_at >= 100 - 604800
	AND r.start_at < 200 JOIN appointment a ON a.id = r.appointment_id
	WHERE (0 = 0 AND x.active = 1 OR instr(',', ',' || x.id || ',') > 0) AND r.end_at > 100
	AND a.status NOT IN ('cancelled', 'no_show') ORDER BY x.id, r.start_at")
like "availability reads each resource's reservations by a range scan" "$plan" \
	"SEARCH r USING INDEX appointment_resource_by_time (resource_id=? AND start_at>? AND start_at<?)"
case $plan in *"SCAN r"* | *"TEMP B-TREE"*) fail "... and never walks the whole index nor sorts" "$plan" ;;
*) pass "... and never walks the whole index nor sorts" ;; esac

# --- moving and cancelling ----------------------------------------------------------
ok "move the visit within Sam's hours" fd visit move 1 --to "2026-12-02 14:00"
is "its reservations moved with it" \
	"$(db "SELECT count(*) FROM appointment_resource WHERE appointment_id = 1 AND start_at = (SELECT start_at FROM appointment WHERE id = 1)")" 2
refused "move it outside Sam's hours" visit move 1 --to "2026-12-02 16:00"
refused "move it onto the van's 10:30 visit" visit move 1 --to "2026-12-02 10:00"
ok "cancel visit 2" fd visit cancel 2
ok "its slot is free again" fd book --customer Ann --start "2026-12-02 10:30" --length 1:00 --resource "Van 1"

# --- changes ------------------------------------------------------------------------
ok "retire the van" fd resource change "Van 1" --retire
refused "a retired resource is not booked" book --customer Ann --start "2026-12-05 10:00" --length 1:00 --resource "Van 1"
is "list leaves it out; --all shows it" "$(fd resource list | wc -l) $(fd resource list --all | wc -l)" "1 2"
ok "bring it back" fd resource change 2 --activate --name "Van One"
fd resource change 2 --retire --activate 2>/dev/null; is "--retire and --activate together is bad usage" "$?" 2

# --- check: an overlap behind the program's back -------------------------------------
out=$(fd check 2>&1); is "frontdesk check is clean" "$out" "No problems found."
# (triggers off: the shell has no fd_operator(), and the overlap trigger
# would refuse it; check_capacity tests that trigger)
offsql() { sqlite3 "$FRONTDESK_DB" ".dbconfig enable_trigger off" "$1" >/dev/null; }
offsql "INSERT INTO appointment (start_at, end_at, status, created_at, updated_at) SELECT start_at, end_at, 'scheduled', 0, 0 FROM appointment WHERE id = 1"
new=$(db 'SELECT max(id) FROM appointment')
offsql "INSERT INTO appointment_resource (appointment_id, resource_id, start_at, end_at, created_at, updated_at) SELECT $new, 1, start_at, end_at, 0, 0 FROM appointment WHERE id = $new"
out=$(fd check 2>&1)
like "frontdesk check reports the overlap" "$out" "capacity-overlap"
like "... naming both visits" "$out" "resource 1 is held by visit 1 and by visit $new"
offsql "UPDATE appointment SET end_at = end_at + 60 WHERE id = $new"
like "... and a reservation whose interval differs from its visit's" "$(fd check 2>&1)" "capacity-interval"
done_testing
