#!/bin/sh
# money-concurrency.sh - eight processes at once allocate the same payment,
# reverse allocations and record new payments against the same invoices for a
# while. Each request is either done or refused (exit 1) as a whole; in the
# end the payment is never over-allocated, every invoice's figures add up and
# `frontdesk check` is clean. Short by default; FD_STRESS=1 runs longer.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null
q() { sqlite3 -cmd ".timeout 5000" "$FRONTDESK_DB" "$1"; }

WORKERS=8
ITER=12
[ -n "${FD_STRESS:-}" ] && ITER=150

fd customer add --name "Busy Shop" >/dev/null
i=1
while [ "$i" -le 4 ]; do
	fd job add --customer 1 --title "job $i" >/dev/null
	fd item add --job "$i" --description "work" --price 60 >/dev/null
	fd invoice issue --jobs "$i" >/dev/null
	i=$((i + 1))
done
# 200 to share out over 240 owed: both limits bind
fd pay record --customer 1 --amount 200 --method check --reference shared >/dev/null

rnd() { od -An -N2 -tu2 /dev/urandom | tr -d ' '; }

worker() {
	w=$1 n=0
	while [ "$n" -lt "$ITER" ]; do
		r=$(rnd)
		inv="INV-2026-00000$((r % 4 + 1))"
		amt=$((r % 25 + 1))
		case $((r % 5)) in
		0 | 1 | 2) fd pay allocate 1 "$inv=$amt" ;;
		3)
			a=$(q "SELECT id FROM payment_allocation a WHERE reverses_id IS NULL AND NOT EXISTS
				(SELECT 1 FROM payment_allocation r WHERE r.reverses_id = a.id)
				ORDER BY random() LIMIT 1")
			if [ -n "$a" ]; then fd pay reverse "$a" --reason "worker $w"; else true; fi ;;
		4) fd pay record --customer 1 --amount "$amt" --method cash "$inv=$amt" ;;
		esac >/dev/null 2>>"$TMP/refusals.$w"
		st=$?
		[ "$st" -gt 1 ] && echo "worker $w: exit $st" >>"$TMP/errors"
		n=$((n + 1))
	done
}

w=1
pids=""
while [ "$w" -le "$WORKERS" ]; do
	worker "$w" &
	pids="$pids $!"
	w=$((w + 1))
done
for p in $pids; do wait "$p"; done

is "no request failed other than by a clean refusal" "$(cat "$TMP/errors" 2>/dev/null)" ""
bad=$(cat "$TMP"/refusals.* 2>/dev/null | grep -v '^frontdesk: ' | head -3)
is "every refusal is one 'frontdesk: ...' line" "$bad" ""
busy=$(cat "$TMP"/refusals.* 2>/dev/null | grep -c 'busy')
is "no request gave up on a busy database" "$busy" 0
posted=$(q "SELECT count(*) FROM payment_allocation")
ok "the workers posted allocations ($posted rows)" test "$posted" -gt "$WORKERS"
is "the shared payment is never over-allocated" \
	"$(q "SELECT allocated + refunded <= amount AND allocated >= 0 FROM payment WHERE id = 1")" 1
is "its figure is the sum of its live allocations" \
	"$(q "SELECT p.allocated = coalesce((SELECT sum(CASE WHEN reverses_id IS NULL THEN amount ELSE -amount END)
	      FROM payment_allocation WHERE payment_id = 1), 0) FROM payment p WHERE id = 1")" 1
is "every invoice's paid is the sum of its live allocations" \
	"$(q "SELECT count(*) FROM invoice i WHERE paid <> coalesce((SELECT sum(CASE WHEN reverses_id IS NULL
	      THEN amount ELSE -amount END) FROM payment_allocation WHERE invoice_id = i.id), 0)")" 0
is "no invoice is paid past its total" "$(q "SELECT count(*) FROM invoice WHERE paid > total OR balance < 0")" 0
is "every balance adds up" "$(q "SELECT count(*) FROM invoice WHERE balance <> total - credited - paid")" 0
out=$(fd check 2>&1); like "frontdesk check is clean" "$out" "No problems found"
ok "no card number in the database file or its WAL after these money tests" \
	python3 "$TOP_SRCDIR/tests/lib/card-scan.py" "$FRONTDESK_DB" "$FRONTDESK_DB-wal"
done_testing
