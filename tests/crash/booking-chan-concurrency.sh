#!/bin/sh
# booking-chan-concurrency.sh - eight processes at once for the last two
# free hours of a day, again and again: four desks (`frontdesk book
# --resource`) and four `frontdesk booking-channel process --once` racing
# over the channel's requests for the same hours (stored before the start).
# Every round each hour ends with exactly one live visit; never two live
# visits on the resource at one time; every refused desk says why (one
# line naming the visit holding the slot), every channel request is decided
# once and every rejected one keeps its reason; `frontdesk check` is clean
# (its capacity-overlap rule). Short by default; FD_STRESS=1 runs longer.
# Every key here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
SECRET=whsec_made_up_booking_secret
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'site_signing_secret = %s\n' "$SECRET" > "$XDG_CONFIG_HOME/frontdesk/secrets")
fd init >/dev/null
q() { sqlite3 -cmd ".timeout 5000" "$FRONTDESK_DB" "$1"; }

WORKERS=8
ROUNDS=4
[ -n "${FD_STRESS:-}" ] && ROUNDS=40

fd resource add --name Ann --kind technician >/dev/null
fd resource hours Ann --days all --spans 08:00-12:00 >/dev/null
fd service add --name "Oil change" --price 80 --minutes 60 >/dev/null
fd booking-channel provider-set site --url http://127.0.0.1:9 >/dev/null
w=1
while [ "$w" -le "$WORKERS" ]; do
	fd customer add --name "Customer $w" >/dev/null
	w=$((w + 1))
done

relay() {
	t=$(date +%s)
	mac=$(printf '%s.%s' "$t" "$1" | openssl dgst -sha256 -hmac "$SECRET" | sed 's/.*= //')
	printf '%s' "$1" | fd booking-channel ingest --provider site --signature "t=$t,v1=$mac" >/dev/null
}

# hour W: workers alternate between 10:00 and 11:00
hour() { [ $(($1 % 2)) -eq 0 ] && echo 10 || echo 11; }

worker() {
	w=$1 day=$2
	while [ ! -e "$TMP/go" ]; do :; done
	if [ "$w" -le $((WORKERS / 2)) ]; then
		fd book --customer "Customer $w" --start "$day $(hour "$w"):00" --length 1:00 \
			--resource Ann >/dev/null 2>"$TMP/err.$w"
	else
		fd booking-channel process --once >/dev/null 2>"$TMP/err.$w"
	fi
	echo $? >"$TMP/st.$w"
}

round=1 bad_desk="" bad_hours="" bad_chan=""
while [ "$round" -le "$ROUNDS" ]; do
	day=$(date -d "2026-12-02 +$round days" +%Y-%m-%d)
	rm -f "$TMP/go" "$TMP"/st.* "$TMP"/err.*
	fd book --customer "Customer 1" --start "$day 08:00" --length 2:00 --resource Ann >/dev/null
	w=$((WORKERS / 2 + 1))
	while [ "$w" -le "$WORKERS" ]; do
		s=$(date -d "$day $(hour "$w"):00" +%s)
		relay "{\"id\":\"evt_${round}_$w\",\"type\":\"booking.requested\",\"request\":{\"id\":\"R${round}_$w\",\"start\":$s,\"end\":$((s + 3600)),\"service\":\"Oil change\",\"resource\":\"Ann\",\"customer\":{\"name\":\"Web $round $w\",\"phone\":\"55590$round$w\"}}}"
		w=$((w + 1))
	done
	pids=""
	w=1
	while [ "$w" -le "$WORKERS" ]; do
		worker "$w" "$day" &
		pids="$pids $!"
		w=$((w + 1))
	done
	: >"$TMP/go"
	for p in $pids; do wait "$p"; done
	w=1
	while [ "$w" -le "$WORKERS" ]; do
		st=$(cat "$TMP/st.$w")
		if [ "$w" -le $((WORKERS / 2)) ]; then
			if [ "$st" != 0 ] && { [ "$st" != 1 ] || [ "$(wc -l <"$TMP/err.$w")" -ne 1 ] ||
				! grep -q '^frontdesk: Ann is taken from .* by visit [0-9]' "$TMP/err.$w"; }; then
				bad_desk="$bad_desk round $round desk $w: exit $st: $(head -c 200 "$TMP/err.$w")"
			fi
		elif [ "$st" != 0 ]; then
			bad_chan="$bad_chan round $round process $w: exit $st: $(head -c 200 "$TMP/err.$w")"
		fi
		w=$((w + 1))
	done
	for h in 10 11; do
		n=$(q "SELECT count(*) FROM appointment WHERE status NOT IN ('cancelled', 'no_show')
			AND strftime('%Y-%m-%d %H', start_at, 'unixepoch', 'localtime') = '$day $h'")
		[ "$n" -eq 1 ] || bad_hours="$bad_hours round $round $h:00: $n live visits"
	done
	und=$(q "SELECT count(*) FROM booking_request WHERE request_id LIKE 'R${round}_%'
		AND (status NOT IN ('confirmed', 'rejected') OR (status = 'rejected' AND coalesce(reason, '') = ''))")
	[ "$und" -eq 0 ] || bad_chan="$bad_chan round $round: $und requests undecided or without a reason"
	round=$((round + 1))
done

is "every round each of the last two hours has exactly one live visit ($ROUNDS rounds)" "$bad_hours" ""
is "every refused desk was told the visit holding the slot" "$bad_desk" ""
is "every channel request decided, every rejection with its reason" "$bad_chan" ""
is "every channel request decided once" \
	"$(q "SELECT count(*) FROM booking_request")|$(q "SELECT count(*) FROM inbound_callback WHERE integration_type = 'booking' AND status = 'processed'")" \
	"$((ROUNDS * WORKERS / 2))|$((ROUNDS * WORKERS / 2))"
is "no resource is held twice at one time" \
	"$(q "SELECT count(*) FROM appointment_resource x JOIN appointment_resource y
	      ON y.resource_id = x.resource_id AND y.id > x.id
	      AND y.start_at < x.end_at AND y.end_at > x.start_at")" 0
out=$(fd check 2>&1); like "frontdesk check is clean" "$out" "No problems found"
done_testing
