#!/bin/sh
# money-idempotency.sh - --idempotency-key: the same request twice (one after
# the other, and at the same moment from two processes) creates one payment;
# the same key for another request is refused; a key still held by another
# process answers "in progress"; a failed or abandoned first attempt may be
# retried.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null
json() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
q() { sqlite3 -cmd ".timeout 5000" "$FRONTDESK_DB" "$1"; }

fd customer add --name "Ada Lee" >/dev/null
fd job add --customer 1 --title "Wash" >/dev/null
fd item add --job 1 --description "Wash" --price 100 >/dev/null
fd item add --job 1 --description "Wax" --price 100 >/dev/null
out1=$(fd invoice issue --items 1 --idempotency-key inv-1)
out2=$(fd invoice issue --items 1 --idempotency-key inv-1 2>/dev/null)
is "invoice issue twice: same answer" "$out2" "$out1"
is "invoice issue twice: one invoice" "$(q 'SELECT count(*) FROM invoice')" 1

# --- twice in a row
P="pay record --customer 1 --amount 100 --method check --reference 2001"
# shellcheck disable=SC2086
pay() { fd $P "$@"; }
out1=$(pay --idempotency-key desk-1 INV-2026-000001=40 2>"$TMP/e1")
out2=$(pay --idempotency-key desk-1 INV-2026-000001=40 2>"$TMP/e2")
is "second answer is the first one" "$out2" "$out1"
is "first run says nothing on stderr" "$(cat "$TMP/e1")" ""
like "second run says it was done before" "$(cat "$TMP/e2")" "was used for this same request before"
is "one payment" "$(q 'SELECT count(*) FROM payment')" 1
is "one allocation" "$(q 'SELECT count(*) FROM payment_allocation')" 1
is "json says replayed" "$(pay --idempotency-key desk-1 INV-2026-000001=40 --json 2>/dev/null | json 'd["payment_id"], d["replayed"]')" "(1, True)"
is "the record" "$(q "SELECT scene, status, length(request_hash) FROM idempotency_record WHERE key = 'desk-1'")" "pay record|success|64"

# --- the same key for another request
refused "same key, another amount" $P --idempotency-key desk-1 INV-2026-000001=41
refused "same key, another command" refund 1 --amount 1 --reason "oops" --idempotency-key desk-1
err=$(pay --idempotency-key desk-1 INV-2026-000001=41 2>&1); like "says why" "$err" "already used for a different request"
refused "an empty key" $P --idempotency-key ""

# --- every money command: twice, one effect
out1=$(fd pay allocate 1 INV-2026-000001=10 --idempotency-key alloc-1)
out2=$(fd pay allocate 1 INV-2026-000001=10 --idempotency-key alloc-1 2>/dev/null)
is "allocate twice: same answer" "$out2" "$out1"
is "allocate twice: one allocation" "$(q 'SELECT count(*) FROM payment_allocation')" 2
out1=$(fd pay reverse 2 --reason "mistake" --idempotency-key rev-1)
out2=$(fd pay reverse 2 --reason "mistake" --idempotency-key rev-1 2>/dev/null)
is "reverse twice: same answer, not 'already reversed'" "$out2" "$out1"
out1=$(fd refund 1 --amount 5 --reason "goodwill" --idempotency-key ref-1)
out2=$(fd refund 1 --amount 5 --reason "goodwill" --idempotency-key ref-1 2>/dev/null)
is "refund twice: same answer" "$out2" "$out1"
is "refund twice: one refund" "$(q 'SELECT count(*) || ":" || sum(amount) FROM refund')" "1:500"
out1=$(fd invoice credit 1 --amount 5 --reason "scratch" --idempotency-key cn-1)
out2=$(fd invoice credit 1 --amount 5 --reason "scratch" --idempotency-key cn-1 2>/dev/null)
is "credit twice: same answer" "$out2" "$out1"
is "credit twice: one credit note" "$(q "SELECT count(*) FROM invoice WHERE kind = 'credit_note'")" 1
without=$(fd invoice credit 1 --amount 5 --reason "scratch" 2>&1)
like "without a key the same request is done again" "$without" "CN-2026-000002"

# --- twice at the same moment, from two processes
rounds=${FD_STRESS:+40}
rounds=${rounds:-8}
r=1
while [ "$r" -le "$rounds" ]; do
	pay --reference "par-$r" --idempotency-key "par-$r" >"$TMP/a" 2>&1 &
	pa=$!
	pay --reference "par-$r" --idempotency-key "par-$r" >"$TMP/b" 2>&1 &
	pb=$!
	wait "$pa"; sa=$?
	wait "$pb"; sb=$?
	n=$(q "SELECT count(*) FROM payment WHERE reference = 'par-$r'")
	ida=$(grep -o 'Payment [0-9]* recorded' "$TMP/a"); idb=$(grep -o 'Payment [0-9]* recorded' "$TMP/b")
	if [ "$sa" -eq 0 ] && [ "$sb" -eq 0 ] && [ "$n" -eq 1 ] && [ -n "$ida" ] && [ "$ida" = "$idb" ]; then
		pass "round $r: two at once made one payment, both were told its id"
	else
		fail "round $r: two at once made $n payment(s)" "exit $sa and $sb" "$(cat "$TMP/a" "$TMP/b")"
	fi
	r=$((r + 1))
done

# --- still in progress elsewhere; then abandoned; then failed and retried
pay --idempotency-key probe >/dev/null
hash=$(q "SELECT request_hash FROM idempotency_record WHERE key = 'probe'")
q "INSERT INTO idempotency_record (key, scene, request_hash, status, holder, hold_until, created_at, updated_at)
   VALUES ('held', 'pay record', '$hash', 'processing', 'channel@shop:4242', strftime('%s', 'now') + 3600, 0, 0)"
refused "a key held by another process" $P --idempotency-key held
err=$(pay --idempotency-key held 2>&1); like "says in progress" "$err" "still in progress (held by channel@shop:4242"
q "UPDATE idempotency_record SET hold_until = strftime('%s', 'now') - 1 WHERE key = 'held'"
before=$(q 'SELECT count(*) FROM payment')
ok "an abandoned hold may be taken over" pay --idempotency-key held
is "taken over: one more payment" "$(q 'SELECT count(*) FROM payment')" "$((before + 1))"
is "taken over: success" "$(q "SELECT status, hold_until IS NULL FROM idempotency_record WHERE key = 'held'")" "success|1"
q "INSERT INTO idempotency_record (key, scene, request_hash, status, created_at, updated_at)
   VALUES ('failed-1', 'pay record', '$hash', 'failed', 0, 0)"
ok "a failed first attempt may be retried" pay --idempotency-key failed-1
is "retried: one more payment" "$(q 'SELECT count(*) FROM payment')" "$((before + 2))"
ok "and then it is done" pay --idempotency-key failed-1
is "done: no further payment" "$(q 'SELECT count(*) FROM payment')" "$((before + 2))"
# a refused first attempt writes no record, so it can be retried as is
refused "a refused first attempt" $P --idempotency-key later-ok INV-2026-000001=1000
is "no record for it" "$(q "SELECT count(*) FROM idempotency_record WHERE key = 'later-ok'")" 0

out=$(fd check 2>&1); like "check is clean" "$out" "No problems found"
ok "no card number in the database file or its WAL after these money tests" \
	python3 "$TOP_SRCDIR/tests/lib/card-scan.py" "$FRONTDESK_DB" "$FRONTDESK_DB-wal"
done_testing
