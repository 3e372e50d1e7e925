#!/bin/sh
# drawer-concurrency.sh - two desks with their drawers open take cash, give
# it back and pay it out at once, from several processes each (as two
# terminals and a script at each desk would). Every request is done or
# refused as a whole; in the end each movement is in the drawer of the desk
# that made it, each drawer's figures are the sum of its own money, the two
# closes (one exact, one short) say what the books say, and `frontdesk
# check` is clean. Short by default; FD_STRESS=1 runs longer.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null
q() { sqlite3 -cmd ".timeout 5000" "$FRONTDESK_DB" "$1"; }

PER_DESK=3
ITER=10
[ -n "${FD_STRESS:-}" ] && ITER=120

fd customer add --name "Walk-in" >/dev/null
fd --desk front drawer open --float 100.00 >/dev/null
FRONTDESK_DESK=back fd drawer open --float 20x2,1x10 >/dev/null
is "two drawers are open" "$(q "SELECT count(*) FROM drawer_open")" 2

rnd() { od -An -N2 -tu2 /dev/urandom | tr -d ' '; }

# worker DESK N - ITER requests at desk DESK; each one that is done is
# written to $TMP/done.DESK.N as "kind amount id"
worker() {
	desk=$1 w=$2 n=0
	while [ "$n" -lt "$ITER" ]; do
		r=$(rnd)
		amt=$((r % 40 + 1))
		case $((r % 6)) in
		0 | 1 | 2)
			id=$(fd --json --desk "$desk" pay record --customer 1 --amount "$amt" --method cash \
				2>>"$TMP/refusals.$desk.$w" | python3 -c 'import json,sys; print(json.load(sys.stdin)["payment_id"])' 2>/dev/null) &&
				echo "payment $amt $id" >>"$TMP/done.$desk.$w"
			;;
		3)
			# a refund of one of this worker's own payments, at this desk
			p=$(awk '$1 == "payment" { print $3 }' "$TMP/done.$desk.$w" 2>/dev/null | tail -1)
			if [ -n "$p" ] && FRONTDESK_DESK=$desk fd refund "$p" --amount 1 --reason "worker $w" \
				>/dev/null 2>>"$TMP/refusals.$desk.$w"; then
				echo "refund 1 $p" >>"$TMP/done.$desk.$w"
			fi
			;;
		4)
			if fd drawer payout 0.50 --desk "$desk" --reason "stamps $w" \
				>/dev/null 2>>"$TMP/refusals.$desk.$w"; then
				echo "payout 0.50 -" >>"$TMP/done.$desk.$w"
			fi
			;;
		5)
			# a card payment: never the drawer's
			fd --desk "$desk" pay record --customer 1 --amount "$amt" --method card \
				--reference "t$w-$n" >/dev/null 2>>"$TMP/refusals.$desk.$w" &&
				echo "card $amt -" >>"$TMP/done.$desk.$w"
			;;
		esac
		n=$((n + 1))
	done
}

pids=""
for desk in front back; do
	w=1
	while [ "$w" -le "$PER_DESK" ]; do
		: >"$TMP/done.$desk.$w"
		worker "$desk" "$w" &
		pids="$pids $!"
		w=$((w + 1))
	done
done
for p in $pids; do wait "$p"; done

bad=$(cat "$TMP"/refusals.* 2>/dev/null | grep -v '^frontdesk: ' | head -3)
is "every refusal is one 'frontdesk: ...' line" "$bad" ""
is "no request gave up on a busy database" "$(cat "$TMP"/refusals.* 2>/dev/null | grep -c busy)" 0
done_total=$(cat "$TMP"/done.* | wc -l)
ok "the workers did their work ($done_total requests)" test "$done_total" -gt $((PER_DESK * 2))

# what each desk did, from the workers' own records, in cents
sum_kind() { # DESK KIND - the cents of KIND done at DESK
	cat "$TMP"/done."$1".* | awk -v k="$2" '$1 == k { s += $2 * 100 } END { printf "%d\n", s }'
}
for desk in front back; do
	id=$(q "SELECT id FROM drawer WHERE desk = '$desk'")
	is "$desk: its cash payments are the payments made at $desk" \
		"$(q "SELECT coalesce(sum(amount), 0) FROM drawer_movement WHERE drawer_id = $id AND kind = 'payment'")" \
		"$(sum_kind "$desk" payment)"
	is "$desk: its refunds are the refunds made at $desk" \
		"$(q "SELECT coalesce(-sum(amount), 0) FROM drawer_movement WHERE drawer_id = $id AND kind = 'refund'")" \
		"$(sum_kind "$desk" refund)"
	is "$desk: its paid-outs are the paid-outs made at $desk" \
		"$(q "SELECT coalesce(-sum(amount), 0) FROM drawer_movement WHERE drawer_id = $id AND kind = 'payout'")" \
		"$(sum_kind "$desk" payout)"
done
is "no card payment is in a drawer" \
	"$(q "SELECT count(*) FROM drawer_movement m JOIN payment p ON p.id = m.payment_id WHERE p.method <> 'cash'")" 0
is "every cash payment is in exactly one drawer" \
	"$(q "SELECT count(*) FROM payment p WHERE method = 'cash' AND (SELECT count(*) FROM drawer_movement m WHERE m.payment_id = p.id AND m.kind = 'payment') <> 1")" 0

# the closes: front exact, back short by 2.00; the count is what the books
# expect, computed here from the rows, not read from the program
front=$(q "SELECT d.float_amount + coalesce((SELECT sum(amount) FROM drawer_movement WHERE drawer_id = d.id), 0) FROM drawer d WHERE desk = 'front'")
back=$(q "SELECT d.float_amount + coalesce((SELECT sum(amount) FROM drawer_movement WHERE drawer_id = d.id), 0) FROM drawer d WHERE desk = 'back'")
cents() { printf '%d.%02d' $(($1 / 100)) $(($1 % 100)); }
out=$(fd --json --desk front drawer close --count "$(cents "$front")" 2>&1)
is "front: counted exact" "$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["difference"], d["expected"])' 2>&1)" "0 $front"
fd --desk back drawer close --count "$(cents $((back - 200)))" >/dev/null 2>"$TMP/err"
like "back: a short count without a reason is refused" "$(cat "$TMP/err")" "give the reason"
is "and the drawer stays open" "$(q "SELECT count(*) FROM drawer_open WHERE desk = 'back'")" 1
out=$(fd --json --desk back drawer close --count "$(cents $((back - 200)))" --reason "till roll" 2>&1)
is "back: short by 2.00" "$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["difference"], d["expected"])' 2>&1)" "-200 $back"
is "no drawer is open" "$(q "SELECT count(*) FROM drawer_open")" 0
out=$(fd check 2>&1); like "frontdesk check is clean" "$out" "No problems found"
done_testing
