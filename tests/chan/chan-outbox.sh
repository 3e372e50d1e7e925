#!/bin/sh
# chan-outbox.sh - card payment orders and refunds through the outbox,
# against the fake channel (tests/chan/fake-stripe.py): the desk action writes
# the order and its outbox row together (a refused one writes neither); the
# worker sends each row with its own stable idempotency key and the
# metadata naming our order and invoice; a retryable failure is retried with
# the same key; a worker killed between sending and recording resends with
# the same key and the channel shows one effect; a timeout is unknown (the
# order is not failed) and is resolved by asking again with the same key
# before anything else is sent for that order; a refusal is dead and fails
# the order. Every secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
KEY=sk_test_made_up_outbox_key
FAKE_PID= S= S2=
trap 'for p in $S $S2; do kill -CONT "$p"; kill -9 "$p"; done 2>/dev/null; [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
fake_start 120
ok "the fake channel started on a random port" test -n "$PORT"
# posts PATH KEY: how many POSTs to PATH carried idempotency key KEY
posts() {
	curl -s --max-time 10 "$BASE/_control/log" | python3 -c "
import json, sys
print(len([e for e in json.load(sys.stdin)['log'] if e['method'] == 'POST'
    and e['path'] == sys.argv[1] and e['idempotency_key'] == sys.argv[2]]))" "$1" "$2"
}
# intents ORDER: the fake's payment intents whose metadata names ORDER
intents() {
	curl -s --max-time 10 "$BASE/_control/state" | python3 -c "
import json, sys
print(len([p for p in json.load(sys.stdin)['intents'].values()
    if p['metadata'].get('order_no') == sys.argv[1]]))" "$1"
}
refunds() { curl -s --max-time 10 "$BASE/_control/state" | jget 'sorted(r["amount"] for r in d["refunds"].values())'; }
key_of() { db "SELECT idempotency_key FROM outbox_event WHERE id = $1"; }
row() { db "SELECT status, retry_count FROM outbox_event WHERE id = $1"; }
deliver() { fd channel deliver --once "$@" >/dev/null 2>"$TMP/deliver.err"; }
# deliver_later SECONDS: deliver with the real clock that far ahead
# (FRONTDESK_REAL_NOW): a row waiting for its backoff is due only then
deliver_later() { FRONTDESK_REAL_NOW=$(($(date +%s) + $1)) deliver; }
# the position in the fake's request log of the Nth POST with key K
nth_post() {
	curl -s --max-time 10 "$BASE/_control/log" | python3 -c "
import json, sys
l = json.load(sys.stdin)['log']
i = [n for n, e in enumerate(l) if e['method'] == 'POST' and e['idempotency_key'] == sys.argv[1]]
print(i[int(sys.argv[2]) - 1] if len(i) >= int(sys.argv[2]) else -1)" "$1" "$2"
}
charge() { fd --json channel charge --invoice "$1" --amount "$2"; }

fd init >/dev/null
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'stripe_api_key = %s\n' "$KEY" > "$XDG_CONFIG_HOME/frontdesk/secrets")
fd customer add --name "Ada Lee" >/dev/null
fd job add --customer 1 --title "Wash" >/dev/null
fd item add --job 1 --description "Exterior wash" --price 100 >/dev/null
fd job add --customer 1 --title "Detail" >/dev/null
fd item add --job 2 --description "Interior detail" --price 250 >/dev/null
fd invoice issue --jobs 1 >/dev/null
fd invoice issue --jobs 2 >/dev/null

refused "no provider yet: no order" channel charge --invoice 1 --amount 10
ok "add the provider" fd channel provider-set stripe --url "$BASE"
refused "more than the invoice owes" channel charge --invoice 1 --amount 100.01
refused "a zero amount" channel charge --invoice 1 --amount 0
refused "no such invoice" channel charge --invoice 99 --amount 1
is "nothing written by the refusals" "$(db "SELECT (SELECT count(*) FROM pay_order) + (SELECT count(*) FROM outbox_event)")" 0

# A charge: the order and its outbox row, together.
out=$(charge INV-2026-000001 60)
O1=$(echo "$out" | jget 'd["order_no"]'); R1=$(echo "$out" | jget 'd["outbox_id"]')
like "an order number" "$O1" "PO-000001-"
is "the order is created for the invoice's customer and currency" \
	"$(db "SELECT status, amount, currency, customer_id, invoice_id FROM pay_order WHERE order_no = '$O1'")" "created|6000|USD|1|1"
is "its outbox row is pending, with the order in its payload" \
	"$(db "SELECT status, event_type, json_extract(payload, '\$.order_no'), json_extract(payload, '\$.amount') FROM outbox_event WHERE id = $R1")" "pending|payment.create|$O1|6000"
refused "the open order counts against what the invoice owes" channel charge --invoice 1 --amount 40.01
K1=$(key_of "$R1")
ok "deliver" deliver
is "the row succeeded on its first send" "$(row "$R1")" "succeeded|1"
is "one POST with the row's idempotency key" "$(posts /v1/payment_intents "$K1")" 1
is "the channel has one intent for the order, with our invoice in its metadata" \
	"$(curl -s "$BASE/_control/state" | python3 -c "
import json,sys
p=[p for p in json.load(sys.stdin)['intents'].values() if p['metadata'].get('order_no') == '$O1']
print(len(p), p[0]['amount'], p[0]['currency'], p[0]['metadata'].get('invoice_id'))")" "1 6000 usd 1"
PI1=$(db "SELECT channel_order_id FROM pay_order WHERE order_no = '$O1'")
like "the order knows its intent and is paying" "$(db "SELECT status FROM pay_order WHERE order_no = '$O1'")|$PI1" "paying|pi_"
ok "nothing more to send" deliver
is "still one POST" "$(posts /v1/payment_intents "$K1")" 1

# A 500 after the channel did the work: retried with the same key, one effect.
out=$(charge INV-2026-000002 100); O2=$(echo "$out" | jget 'd["order_no"]'); R2=$(echo "$out" | jget 'd["outbox_id"]')
ctl fault '{"path": "/v1/payment_intents", "method": "POST", "kind": "done_then_fail"}' >/dev/null
# one real time for these sends: the backoff, not the speed of the run, decides
T=$(date +%s)
FRONTDESK_REAL_NOW=$T deliver
is "a 500: the row failed, to be retried later" "$(row "$R2")" "failed|1"
# compared with the time the failure was recorded, not with the clock now: a slow
# (sanitized, loaded) run may already be past a one-second backoff
is "with a next try after the failure was recorded" \
	"$(db "SELECT next_retry_at > updated_at FROM outbox_event WHERE id = $R2")" 1
is "the order is not failed" "$(db "SELECT status FROM pay_order WHERE order_no = '$O2'")" created
FRONTDESK_REAL_NOW=$T deliver --all
is "--all sends no row before its backoff" "$(row "$R2")" "failed|1"
deliver_later 301
is "the retry succeeded once its time came" "$(row "$R2")" "succeeded|2"
is "two POSTs, with the same key" "$(posts /v1/payment_intents "$(key_of "$R2")")" 2
is "one intent at the channel" "$(intents "$O2")" 1

# A 503 with Retry-After: not sent again before its time.
out=$(charge INV-2026-000002 5); O5=$(echo "$out" | jget 'd["order_no"]'); R5=$(echo "$out" | jget 'd["outbox_id"]')
ctl fault '{"path": "/v1/payment_intents", "method": "POST", "kind": "status", "status": 503, "headers": {"Retry-After": "60"}}' >/dev/null
deliver
is "a 503: failed" "$(row "$R5")" "failed|1"
is "the next try honours Retry-After" "$(db "SELECT next_retry_at - updated_at >= 60 FROM outbox_event WHERE id = $R5")" 1
deliver
is "not due yet: not sent again" "$(posts /v1/payment_intents "$(key_of "$R5")")" 1
deliver --all
is "nor with --all" "$(posts /v1/payment_intents "$(key_of "$R5")")" 1
deliver_later 61
is "sent once the time it asked for has passed" "$(row "$R5")" "succeeded|2"

# The worker killed between sending and recording: the same key again, one effect.
out=$(charge INV-2026-000002 50); O3=$(echo "$out" | jget 'd["order_no"]'); R3=$(echo "$out" | jget 'd["outbox_id"]')
# (6 s of "slow", longer than the worker's 2 s lease: on a busy machine the
# loop below may take seconds to see the POST, and the worker must still be
# waiting for that first answer when it is killed, not have sent again)
ctl fault '{"path": "/v1/payment_intents", "method": "POST", "kind": "slow", "seconds": 6}' >/dev/null
sh -c 'exec "$0" serve --lease-seconds 2 --poll-seconds 60' "$FRONTDESK" 2>"$TMP/serve.err" & S=$!
i=0
while [ "$(posts /v1/payment_intents "$(key_of "$R3")")" -lt 1 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -9 "$S"; wait "$S" 2>/dev/null; S=
is "killed after sending: the row is left sending" "$(row "$R3")" "sending|1"
# the channel finishes the work it was given (6 s of "slow"); poll for it
i=0
while [ "$(intents "$O3")" -lt 1 ] && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
is "the channel did create the intent" "$(intents "$O3")" 1
ok "a new worker delivers" deliver
is "resent and recorded" "$(row "$R3")" "succeeded|2"
is "two POSTs with the same key" "$(posts /v1/payment_intents "$(key_of "$R3")")" 2
is "still one intent at the channel" "$(intents "$O3")" 1
is "the order knows that intent" "$(db "SELECT status FROM pay_order WHERE order_no = '$O3'")" paying

# A refund of a paid order: the channel says it succeeded; the event is
# polled and processed into the payment.
ctl "intent/$PI1" '{"status": "succeeded"}' >/dev/null
fd channel poll --once >/dev/null
fd channel process --once >/dev/null
is "the order is paid" "$(db "SELECT status FROM pay_order WHERE order_no = '$O1'")" paid
refused "more than was paid" channel refund "$O1" --amount 60.01
refused "an order that is not paid" channel refund "$O2"

# A timeout is unknown: the order's next command waits until it is resolved
# by asking again with the same key.
out=$(fd --json channel refund "$O1" --amount 30); F1=$(echo "$out" | jget 'd["outbox_id"]')
printf 'channel_timeout_ms = 1000\n' > "$XDG_CONFIG_HOME/frontdesk/config"
ctl fault '{"path": "/v1/refunds", "method": "POST", "kind": "slow", "seconds": 2}' >/dev/null
deliver
is "a timeout leaves the row sending (unknown)" "$(row "$F1")" "sending|1"
like "it says the outcome is unknown" "$(db "SELECT last_error FROM outbox_event WHERE id = $F1")" "unknown"
rm -f "$XDG_CONFIG_HOME/frontdesk/config"
out=$(fd --json channel refund "$O1" --amount 20); F2=$(echo "$out" | jget 'd["outbox_id"]')
refused "the refunds asked for count against what was paid" channel refund "$O1" --amount 10.01
# the channel finishes the first refund (2 s of "slow"); the row is due again
i=0
while [ "$(refunds)" = "[]" ] && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
deliver
is "the unknown refund is resolved with the same key" "$(posts /v1/refunds "$(key_of "$F1")"),$(row "$F1")" "2,succeeded|2"
is "then the second is sent" "$(posts /v1/refunds "$(key_of "$F2")"),$(row "$F2")" "1,succeeded|1"
ok "the second left only after the first was resolved" \
	test "$(nth_post "$(key_of "$F2")" 1)" -gt "$(nth_post "$(key_of "$F1")" 2)"
is "the channel made exactly the two refunds" "$(refunds)" "[2000, 3000]"
is "the order is being refunded" "$(db "SELECT status FROM pay_order WHERE order_no = '$O1'")" refunding
refused "nothing left to refund" channel refund "$O1" --amount 10.01

# A refusal is final: the row is dead and the order failed.
ctl fault '{"path": "/v1/payment_intents", "method": "POST", "kind": "status", "status": 400}' >/dev/null
out=$(charge INV-2026-000002 10); O4=$(echo "$out" | jget 'd["order_no"]'); R4=$(echo "$out" | jget 'd["outbox_id"]')
deliver
is "a 400: dead" "$(row "$R4")" "dead|1"
is "the order failed, with the reason" "$(db "SELECT status, last_error IS NOT NULL FROM pay_order WHERE order_no = '$O4'")" "failed|1"
# An answer that disagrees with the command is never taken for success.
ctl fault '{"path": "/v1/payment_intents", "method": "POST", "kind": "lie"}' >/dev/null
out=$(charge INV-2026-000002 7); O6=$(echo "$out" | jget 'd["order_no"]'); R6=$(echo "$out" | jget 'd["outbox_id"]')
deliver
is "an answer with another amount: dead" "$(row "$R6")" "dead|1"
like "the reason says so" "$(db "SELECT last_error FROM outbox_event WHERE id = $R6")" "another payment (701 USD"
is "the order learnt no channel id and is not paying" \
	"$(db "SELECT status, channel_order_id IS NULL FROM pay_order WHERE order_no = '$O6'")" "created|1"
is "every state change is in the status flow" \
	"$(db "SELECT group_concat(to_status, '>') FROM (SELECT to_status FROM status_flow WHERE entity = 'outbox_event' AND entity_id = $R2 ORDER BY id)")" \
	"pending>sending>failed>sending>succeeded"
# A worker paused in the middle of sending, past its lease: the next holder
# resends with the same key; when the paused one wakes, the fence refuses
# its record of the answer; one effect at the channel.
out=$(charge INV-2026-000002 8); O7=$(echo "$out" | jget 'd["order_no"]'); R7=$(echo "$out" | jget 'd["outbox_id"]')
ctl fault '{"path": "/v1/payment_intents", "method": "POST", "kind": "slow", "seconds": 4}' >/dev/null
sh -c 'exec "$0" serve --lease-seconds 2 --poll-seconds 60' "$FRONTDESK" 2>"$TMP/s1.err" & S=$!
i=0
while [ "$(posts /v1/payment_intents "$(key_of "$R7")")" -lt 1 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -STOP "$S"
# the next holder takes over when the paused one's 2 s lease ends; its own
# lease is longer, so that a slow round of its own (a sanitizer build on a
# busy machine) cannot let its lease lapse and make it send a third time
sh -c 'exec "$0" serve --lease-seconds 30 --poll-seconds 60' "$FRONTDESK" 2>"$TMP/s2.err" & S2=$!
i=0
while [ "$(row "$R7")" != "succeeded|2" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
is "the next holder resent it and recorded the answer" "$(row "$R7")" "succeeded|2"
[ "$(row "$R7")" = "succeeded|2" ] || sed 's/^/# next holder: /' "$TMP/s2.err"
kill -CONT "$S"
i=0
while ! grep -q "a write was refused" "$TMP/s1.err" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
like "the woken worker's record is refused by the fence" "$(cat "$TMP/s1.err")" "a write was refused, the channel lease moved on"
kill -TERM "$S" "$S2"; wait "$S" "$S2" 2>/dev/null; S= S2=
is "two POSTs with the same key" "$(posts /v1/payment_intents "$(key_of "$R7")")" 2
is "one intent at the channel" "$(intents "$O7")" 1
is "the row was recorded once: sending, succeeded" \
	"$(db "SELECT group_concat(to_status, '>') FROM (SELECT to_status FROM status_flow WHERE entity = 'outbox_event' AND entity_id = $R7 ORDER BY id)")" \
	"pending>sending>succeeded"
is "the order is paying with that intent" "$(db "SELECT status, channel_order_id LIKE 'pi_%' FROM pay_order WHERE order_no = '$O7'")" "paying|1"

is "channel status counts the outbox" \
	"$(fd --json channel status | jget 'd["outbox"]["dead"], d["outbox"]["pending"], d["outbox"]["failed"]')" "2 0 0"
like "and says so in words" "$(fd channel status)" "Outbox: pending 0 sending 0 failed 0 dead 2"

# An idempotency key: the same request twice makes one order and one
# command; the same key for another request is refused.
fd job add --customer 1 --title "Polish" >/dev/null
fd item add --job 3 --description "Polish" --price 80 >/dev/null
fd invoice issue --jobs 3 >/dev/null
before=$(db "SELECT (SELECT count(*) FROM pay_order) || '/' || (SELECT count(*) FROM outbox_event)")
k1=$(fd --json channel charge --invoice INV-2026-000003 --amount 30 --idempotency-key desk-7 | jget 'd["order_no"], d["outbox_id"]')
k2=$(fd --json channel charge --invoice INV-2026-000003 --amount 30 --idempotency-key desk-7 | jget 'd["order_no"], d["outbox_id"]')
is "the same key again answers with the first order and command" "$k2" "$k1"
is "one order and one command were written" \
	"$(db "SELECT (SELECT count(*) FROM pay_order) || '/' || (SELECT count(*) FROM outbox_event)")" \
	"$(echo "$before" | awk -F/ '{print $1 + 1 "/" $2 + 1}')"
refused "the same key for another amount" channel charge --invoice INV-2026-000003 --amount 31 --idempotency-key desk-7
r1=$(fd --json channel refund "$O1" --amount 1 --idempotency-key desk-8 | jget 'd["outbox_id"]')
r2=$(fd --json channel refund "$O1" --amount 1 --idempotency-key desk-8 | jget 'd["outbox_id"]')
is "a refund asked for twice with one key: one command" "$r2" "$r1"
is "and one refund command in the outbox" "$(db "SELECT count(*) FROM outbox_event WHERE id >= $r1 AND event_type = 'refund.create'")" 1
ok "frontdesk check is clean" fd check

done_testing
