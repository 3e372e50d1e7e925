#!/bin/sh
# crash-desk.sh - desk postings, full projection rebuilds and the task runner
# killed with SIGKILL at random moments, again and again. Round by round:
# a `frontdesk pay record` (allocated to an invoice whose visit is on the
# calendar, with an idempotency key) killed after 0..15 ms, about the time
# it takes; a `frontdesk projection rebuild --all --batch 1` killed after
# 0..30 ms; a `frontdesk tasks run` killed after 0..100 ms while a payment
# queues calendar tasks for it. Afterwards every payment that was
# acknowledged (exit 0) is there exactly once, every killed one is there at
# most once and, asked again with its key, exactly once; every payment is
# whole (its allocation with it); the next rebuild and runner are not held
# up by the locks the dead left; the projection and `frontdesk check` are
# clean. Default 24 kills (seconds); FD_CRASH_KILLS=N makes this test's
# share of N kills 3/4 of N (tests/crash/chan-crash.sh kills the channel worker
# for the other quarter), FD_STRESS=1 alone 150.
. "$TOP_SRCDIR/tests/lib/tap.sh"
q() { sqlite3 -cmd ".timeout 5000" "$FRONTDESK_DB" "$1"; }

KILLS=24
[ -n "${FD_STRESS:-}" ] && KILLS=150
[ -n "${FD_CRASH_KILLS:-}" ] && KILLS=$((FD_CRASH_KILLS * 3 / 4))

fd demo >/dev/null 2>&1
fd customer add --name "Crash Test" >/dev/null
cust=$(q "SELECT max(id) FROM customer")
fd job add --customer "$cust" --title "Fleet contract" >/dev/null
job=$(q "SELECT max(id) FROM service_order")
fd item add --job "$job" --description "Fleet" --price 500000 >/dev/null
fd appt add --start "2026-12-02 09:00" --end "2026-12-02 17:00" >/dev/null
fd link add --appt "$(q "SELECT max(id) FROM appointment")" --job "$job" --minutes 480 >/dev/null
fd invoice issue --jobs "$job" >/dev/null
inv=$(q "SELECT number FROM invoice WHERE id = (SELECT max(id) FROM invoice)")
fd tasks run --once --quiet >/dev/null 2>&1
ok "the calendar starts clean" fd projection check

# a random pause of 0..$1 ms (when to kill: a moment, not a condition)
pause() { sleep "$(awk -v r="$(od -An -N2 -tu2 /dev/urandom)" -v m="$1" 'BEGIN { printf "%.3f", (r % (m + 1)) / 1000 }')"; }
# pay N: record payment crash-N of 0.01 on the invoice (exit status kept)
pay() {
	"$FRONTDESK" pay record --customer "$cust" --amount 0.01 --method cash --reference "crash-$1" \
		--idempotency-key "crash-$1" "$inv=0.01" >/dev/null 2>>"$TMP/pay.err"
}
# kill_after MS PID: SIGKILL PID after a random pause and reap it; st is its status
kill_after() { pause "$1"; kill -9 "$2" 2>/dev/null; wait "$2" 2>/dev/null; st=$?; }

k=0 paid=0 npay=0
: > "$TMP/acked"; : > "$TMP/killed"; : > "$TMP/other"
start=$(date +%s)
while [ $k -lt $KILLS ]; do
	case $((k % 4)) in
	0 | 1)
		npay=$((npay + 1))
		pay "$npay" & kill_after 15 $!
		case $st in
		0) echo "$npay" >> "$TMP/acked" ;;
		137) echo "$npay" >> "$TMP/killed" ;;
		*) echo "pay $npay: exit $st" >> "$TMP/other" ;;
		esac ;;
	2)
		"$FRONTDESK" projection rebuild --all --batch 1 >/dev/null 2>>"$TMP/rebuild.err" &
		kill_after 30 $!
		case $st in 0 | 137) ;; *) echo "rebuild: exit $st" >> "$TMP/other" ;; esac ;;
	3)
		"$FRONTDESK" tasks run --quiet >/dev/null 2>>"$TMP/runner.err" & r=$!
		npay=$((npay + 1))
		if pay "$npay"; then echo "$npay" >> "$TMP/acked"; else echo "pay $npay: exit $?" >> "$TMP/other"; fi
		kill_after 100 $r
		case $st in 0 | 137) ;; *) echo "runner: exit $st" >> "$TMP/other" ;; esac ;;
	esac
	k=$((k + 1))
done
secs=$(( $(date +%s) - start ))
echo "# $k kills in ${secs}s: $(wc -l < "$TMP/acked") payments acknowledged, $(wc -l < "$TMP/killed") killed while posting"
is "killed $KILLS times with SIGKILL" "$k" "$KILLS"
is "nothing failed but by the kill" "$(cat "$TMP/other" "$TMP/pay.err" 2>/dev/null)" ""

ids() { tr '\n' ',' < "$1" | sed 's/,$//'; }
is "every acknowledged payment is there exactly once" \
	"$(q "SELECT count(*), count(DISTINCT reference) FROM payment WHERE reference IN
	      (SELECT 'crash-' || value FROM json_each('[$(ids "$TMP/acked")]'))")" \
	"$(wc -l < "$TMP/acked" | tr -d ' ')|$(wc -l < "$TMP/acked" | tr -d ' ')"
is "no payment is there twice" \
	"$(q "SELECT count(*) FROM (SELECT reference FROM payment GROUP BY reference HAVING count(*) > 1)")" 0
is "every payment is whole: allocated with its allocation" \
	"$(q "SELECT count(*) FROM payment p WHERE reference LIKE 'crash-%' AND (allocated <> amount OR
	      (SELECT count(*) FROM payment_allocation a WHERE a.payment_id = p.id) <> 1)")" 0
# the killed ones asked again with their keys: each done exactly once
while read -r n; do pay "$n" || echo "retry $n: exit $?" >> "$TMP/other"; done < "$TMP/killed"
is "every killed payment asked again with its key is done" "$(cat "$TMP/other")" ""
is "then every payment is there exactly once" \
	"$(q "SELECT count(*), count(DISTINCT reference) FROM payment WHERE reference LIKE 'crash-%'")" "$npay|$npay"
is "and the invoice's paid is their sum" \
	"$(q "SELECT paid FROM invoice WHERE number = '$inv'")" "$npay"
ok "a rebuild is not held up by the lock a killed one left" fd projection rebuild --all
ok "nor the runner by its lease" fd tasks run --once --quiet
ok "the calendar projection is clean" fd projection check
out=$(fd check 2>&1); like "frontdesk check is clean" "$out" "No problems found"
done_testing
