#!/bin/sh
# capacity-concurrency.sh - eight processes book the same last slot of a
# day at once, again and again: half of them need the technician alone,
# half the technician and the van. Every round exactly one wins; each of
# the others is refused (exit 1) with one line that names the resource and
# the visit holding the slot; no resource is ever held twice at one time;
# the van is held only when the winner needed it (both or neither); the
# availability of the day is what its hours less its bookings give
# (computed here); `frontdesk check` is clean. Short by default;
# FD_STRESS=1 runs longer.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null
q() { sqlite3 -cmd ".timeout 5000" "$FRONTDESK_DB" "$1"; }

WORKERS=8
ROUNDS=6
[ -n "${FD_STRESS:-}" ] && ROUNDS=60

fd resource add --name Ann --kind technician >/dev/null
fd resource add --name "Van 1" --kind van >/dev/null
# Ann's day is 08:00-12:00; the van's 07:00-19:00, every day
fd resource hours Ann --days all --spans 08:00-12:00 >/dev/null
fd resource hours "Van 1" --days all --spans 07:00-19:00 >/dev/null
w=1
while [ "$w" -le "$WORKERS" ]; do
	fd customer add --name "Customer $w" >/dev/null
	w=$((w + 1))
done

worker() {
	w=$1 day=$2 res=Ann
	[ "$w" -gt $((WORKERS / 2)) ] && res="Ann,Van 1"
	# a barrier, not a sleep: every worker starts when go appears
	while [ ! -e "$TMP/go" ]; do :; done
	fd book --customer "Customer $w" --start "$day 10:00" --length 1:00 --resource "$res" \
		>/dev/null 2>"$TMP/err.$w"
	echo $? >"$TMP/st.$w"
}

round=1 bad_win="" bad_refusal="" bad_van="" bad_avail=""
while [ "$round" -le "$ROUNDS" ]; do
	day=$(date -d "2026-12-02 +$round days" +%Y-%m-%d)
	rm -f "$TMP/go" "$TMP"/st.* "$TMP"/err.*
	# the earlier hours of the day are booked already: 10:00-11:00 is the
	# day's last free hour but one (11:00-12:00 stays free)
	fd book --customer "Customer 1" --start "$day 08:00" --length 2:00 --resource Ann >/dev/null
	pids=""
	w=1
	while [ "$w" -le "$WORKERS" ]; do
		worker "$w" "$day" &
		pids="$pids $!"
		w=$((w + 1))
	done
	: >"$TMP/go"
	for p in $pids; do wait "$p"; done
	wins=0 winner=0
	w=1
	while [ "$w" -le "$WORKERS" ]; do
		st=$(cat "$TMP/st.$w")
		if [ "$st" = 0 ]; then
			wins=$((wins + 1))
			winner=$w
		elif [ "$st" != 1 ] || [ "$(wc -l <"$TMP/err.$w")" -ne 1 ] ||
			! grep -q '^frontdesk: Ann is taken from .* by visit [0-9]' "$TMP/err.$w"; then
			bad_refusal="$bad_refusal round $round worker $w: exit $st: $(head -c 200 "$TMP/err.$w")"
		fi
		w=$((w + 1))
	done
	[ "$wins" -eq 1 ] || bad_win="$bad_win round $round: $wins winners"
	held=$(q "SELECT count(*) FROM appointment_resource r JOIN appointment a ON a.id = r.appointment_id
		WHERE r.resource_id = 2 AND date(a.start_at, 'unixepoch', 'localtime') = '$day'")
	want=0
	[ "$winner" -gt $((WORKERS / 2)) ] && want=1
	[ "$held" -eq "$want" ] || bad_van="$bad_van round $round: worker $winner won, van held $held times"
	# Ann's free starts that day for an hour, on the 15-minute grid, from
	# her hours (08:00-12:00) less what is booked (08:00-11:00): 11:00 only
	expect=""
	m=480
	while [ $((m + 60)) -le 720 ]; do
		[ "$m" -ge 660 ] && expect="$expect $(printf '%s %02d:%02d' "$day" $((m / 60)) $((m % 60)))"
		m=$((m + 15))
	done
	got=$(fd --json availability --from "$day" --resource Ann --minutes 60 |
		python3 -c 'import json,sys; print("".join(" " + s["start_local"] for s in json.load(sys.stdin)["slots"]))')
	[ "$got" = "$expect" ] || bad_avail="$bad_avail round $round: got '$got' want '$expect'"
	round=$((round + 1))
done

is "every round exactly one of $WORKERS desks won the slot ($ROUNDS rounds)" "$bad_win" ""
is "every other desk was refused with the resource and the visit that holds it" "$bad_refusal" ""
is "the van is held only by a winner that needed it (both or neither)" "$bad_van" ""
is "availability is the hours less the bookings, every round" "$bad_avail" ""
is "no resource is held twice at one time" \
	"$(q "SELECT count(*) FROM appointment_resource x JOIN appointment_resource y
	      ON y.resource_id = x.resource_id AND y.id > x.id
	      AND y.start_at < x.end_at AND y.end_at > x.start_at")" 0
is "visits booked: the first one and one winner a round" "$(q 'SELECT count(*) FROM appointment')" $((2 * ROUNDS))
out=$(fd check 2>&1); like "frontdesk check is clean" "$out" "No problems found"
done_testing
