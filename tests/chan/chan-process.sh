#!/bin/sh
# chan-process.sh - stored channel events become payments, refunds and
# order states (frontdesk channel process / query), against the fake channel:
# each event delivered three times, pages overlapping and shuffled: one
# payment per succeeded intent; a refund that arrives before its payment's
# success ends as in order; a lost success event is found by the active
# query; stale events never move an order back; events about orders we do
# not know are parked, then dead; a channel that disagrees with our order is
# never posted; a failing channel makes events failed, then dead once they
# fail past the give-up horizon (a burst of attempts does not count);
# `frontdesk check` stays clean. Every secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=sk_test_made_up_process_key
FAKE_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

fake_start 150
ok "the fake channel started on a random port" test -n "$PORT"
fake_secrets
process() { fd --json channel process --once "$@"; }
succeed() { ctl "intent/$(pi_of "$1")" "{\"status\": \"succeeded\"${2:+, \"emit\": $2}}" >/dev/null; }
payments() { db "SELECT count(*) FROM payment WHERE reference = '$(pi_of "$1")'"; }
inv() { db "SELECT paid, balance, status FROM invoice WHERE number = '$1'"; }
# matches NAME GOT ERE: GOT matches the extended regular expression
matches() {
	if printf '%s\n' "$2" | grep -Eq "$3"; then pass "$1"; else fail "$1" "got: $2" "expected to match: $3"; fi
}
events() { db "SELECT group_concat(status || '=' || n, ' ') FROM (SELECT status, count(*) n FROM inbound_callback GROUP BY status ORDER BY status)"; }

fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
for t in 1 2 3 4; do
	fd job add --customer 1 --title "Job $t" >/dev/null
	fd item add --job $t --description "Work $t" --price 100 >/dev/null
	fd invoice issue --jobs $t >/dev/null
done
fd channel provider-set stripe --url "$BASE" >/dev/null

# --- Each event three times, overlapping pages, shuffled ---------------------
printf 'channel_page_limit = 3\n' > "$XDG_CONFIG_HOME/frontdesk/config"
O1=$(charge INV-2026-000001 60)
for n in 1 2 3 4 5; do eval "P$n=\$(charge INV-2026-000002 10)"; done
deliver
ok "the orders are at the channel" test -n "$(pi_of "$O1")" -a -n "$(pi_of "$P5")"
for o in "$O1" "$P1" "$P2" "$P3" "$P4" "$P5"; do succeed "$o"; done
ctl list_mode '{"duplicate": true, "shuffle": true, "overlap": true}' >/dev/null
poll; poll; poll
ok "the events are stored once each, whatever the delivery" \
	test "$(db "SELECT count(*) - count(DISTINCT external_id) FROM inbound_callback")" = 0
out=$(process)
is "six payments posted" "$(echo "$out" | jget 'd["payments"]')" 6
is "one payment per succeeded intent" \
	"$(for o in "$O1" "$P1" "$P2" "$P3" "$P4" "$P5"; do payments "$o"; done | tr '\n' ' ')" "1 1 1 1 1 1 "
is "the payment is a card payment of the order's amount with the intent as reference" \
	"$(db "SELECT method, amount, currency, customer_id FROM payment WHERE reference = '$(pi_of "$O1")'")" "card|6000|USD|1"
is "allocated to the invoice in its metadata" "$(inv INV-2026-000001)" "6000|4000|partially_paid"
is "the five small orders paid the second invoice in part" "$(inv INV-2026-000002)" "5000|5000|partially_paid"
matches "the order is paid and knows its payment" "$(order "$O1")" "^paid\|[0-9]+\|0$"
is "the created events changed nothing: ignored, with the reason" \
	"$(db "SELECT count(*) FROM inbound_callback WHERE status = 'ignored' AND last_error LIKE 'nothing to change%'")" 6
is "no event left to do" "$(db "SELECT count(*) FROM inbound_callback WHERE status NOT IN ('processed', 'ignored')")" 0
poll; poll
out=$(process --all)
is "polled again and processed again: nothing new" "$(echo "$out" | jget 'd["payments"], d["processed"]')" "0 0"
is "still one payment per intent" "$(db "SELECT count(*), count(DISTINCT reference) FROM payment")" "6|6"
ok "frontdesk check is clean" fd check
ctl list_mode '{"duplicate": false, "shuffle": false, "overlap": false}' >/dev/null
rm -f "$XDG_CONFIG_HOME/frontdesk/config"

# --- A stale event never moves an order back ---------------------------------
ctl event "{\"event\": {\"id\": \"evt_stale_1\", \"object\": \"event\", \"type\": \"payment_intent.canceled\", \"data\": {\"object\": {\"id\": \"$(pi_of "$P1")\", \"object\": \"payment_intent\"}}}}" >/dev/null
poll; process >/dev/null
matches "a canceled event for a paid intent: the query says succeeded: ignored" \
	"$(db "SELECT status, last_error FROM inbound_callback WHERE external_id = 'evt_stale_1'")" "^ignored\|nothing to change: order PO-"
matches "the order stays paid" "$(order "$P1")" "^paid\|"

# --- Refund after the success, and refund before it: the same end -----------
A=$(charge INV-2026-000003 30); B=$(charge INV-2026-000004 30)
deliver
succeed "$A"; poll; process >/dev/null
ctl refund "{\"payment_intent\": \"$(pi_of "$A")\", \"amount\": 1000}" >/dev/null
poll; process >/dev/null
# B: the success is not told before the refund is
succeed "$B" false
ctl refund "{\"payment_intent\": \"$(pi_of "$B")\", \"amount\": 1000}" >/dev/null
poll; out=$(process)
is "the refund event first: the payment and the refund, both posted" \
	"$(echo "$out" | jget 'd["payments"], d["refunds"]')" "1 1"
succeed "$B"; poll; process >/dev/null
shape() {
	db "SELECT o.status, o.refunded_amount, p.amount, p.status, p.allocated, p.refunded,
	    (SELECT group_concat(amount, ',') FROM (SELECT a.amount FROM payment_allocation a
	      WHERE a.payment_id = p.id ORDER BY a.id)),
	    (SELECT group_concat(r.amount || ' ' || r.status || ' ' || r.method, ',') FROM refund r WHERE r.payment_id = p.id),
	    i.paid, i.balance, i.status
	  FROM pay_order o JOIN payment p ON p.id = o.payment_id JOIN invoice i ON i.id = o.invoice_id
	  WHERE o.order_no = '$1'"
}
matches "in order: the refund reversed the allocation and allocated the rest again" \
	"$(shape "$A")" "^refunding\|1000\|3000\|[a-z_]+\|2000\|1000\|3000,3000,2000\|1000 succeeded card\|2000\|8000\|partially_paid$"
is "refund first, then the success: the same end state" "$(shape "$B")" "$(shape "$A")"
is "the late success event changed nothing" \
	"$(db "SELECT status FROM inbound_callback WHERE object_id = '$(pi_of "$B")' AND event_type = 'payment_intent.succeeded'")" ignored
# the rest of A refunded: the order is refunded
ctl refund "{\"payment_intent\": \"$(pi_of "$A")\", \"status\": \"pending\", \"amount\": 2000}" >/dev/null
RE=$(curl -s "$BASE/_control/state" | jget '[r for r in d["refunds"].values() if r["status"] == "pending"][0]["id"]')
poll; process >/dev/null
matches "a pending refund is not posted: asked again later" \
	"$(db "SELECT status, last_error FROM inbound_callback WHERE object_id = '$RE'")" "^failed\|refund $RE is pending"
ctl "refund/$RE" '{"status": "succeeded"}' >/dev/null
poll; process --all >/dev/null
matches "once it succeeded: posted, and the order is refunded" "$(order "$A")" "^refunded\|[0-9]+\|3000$"
is "one refund row per channel refund" "$(db "SELECT count(*), count(DISTINCT reference) FROM refund WHERE reference LIKE 're_%'")" "3|3"
ok "frontdesk check is clean" fd check

# --- A lost success event: found by the active query -------------------------
L=$(charge INV-2026-000004 20); deliver; poll; process >/dev/null
succeed "$L" false
poll; process >/dev/null
is "no event told of it: nothing posted" "$(payments "$L")" 0
out=$(fd --json channel query --once)
is "the first query run only schedules the order" "$(echo "$out" | jget 'd["orders_queried"]')" 0
ok "its next query time is set" test -n "$(db "SELECT next_query_at FROM pay_order WHERE order_no = '$L'")"
out=$(fd --json channel query --once --all)
is "the query found it paid and it was posted" "$(echo "$out" | jget 'd["orders_queried"], d["payments"]')" "1 1"
is "one payment" "$(payments "$L")" 1
is "the order is paid and was queried once" "$(db "SELECT status, query_count FROM pay_order WHERE order_no = '$L'")" "paid|1"
is "what the query found is kept as an event of its own" \
	"$(db "SELECT via, status FROM inbound_callback WHERE external_id = 'query:$(pi_of "$L"):succeeded'")" "query|processed"
fd --json channel query --once --all >/dev/null
is "a paid order is not queried again" "$(db "SELECT query_count FROM pay_order WHERE order_no = '$L'")" 1

# --- Canceled and declined --------------------------------------------------
C=$(charge INV-2026-000004 5); D=$(charge INV-2026-000004 5); deliver
ctl "intent/$(pi_of "$D")" '{"status": "requires_payment_method"}' >/dev/null
ctl "intent/$(pi_of "$C")" '{"status": "canceled"}' >/dev/null
poll; process >/dev/null
matches "a canceled intent closes its order" "$(order "$C")" "^closed\|-\|0$"
matches "a declined card leaves the order open, with the reason" \
	"$(db "SELECT status, last_error FROM pay_order WHERE order_no = '$D'")" "^paying\|the card was declined"
succeed "$D"; poll; process >/dev/null
matches "the same intent paid later: posted" "$(order "$D")" "^paid\|"

# --- A refund asked for at the desk, every event about it lost --------------
fd channel refund "$D" --amount 2 >/dev/null
deliver
RD=$(db "SELECT json_extract(payload, '\$.data.object.id') FROM inbound_callback WHERE external_id LIKE 'answer:%'")
like "the channel's answer names the refund; it is kept as an inbox event" "$RD" "re_"
ctl "refund/$RD" '{"status": "succeeded", "emit": false}' >/dev/null
out=$(process)
is "without polling: the refund is asked about and posted" "$(echo "$out" | jget 'd["refunds"]')" 1
matches "the order is partly refunded" "$(order "$D")" "^refunding\|[0-9]+\|200$"
is "as a card refund with the channel's id" "$(db "SELECT amount, method, status FROM refund WHERE reference = '$RD'")" "200|card|succeeded"

# --- An order we do not know: parked, then dead ------------------------------
ctl intent '{"amount": 700, "status": "succeeded", "metadata": {"order_no": "PO-not-ours"}}' >/dev/null
poll; out=$(process)
is "an intent with no order of ours: its two events parked" "$(echo "$out" | jget 'd["parked"], d["payments"]')" "2 0"
ok "parked for a bounded time" test "$(db "SELECT count(*) FROM inbound_callback WHERE status = 'parked' AND parked_until > next_attempt_at")" = 2
db "UPDATE inbound_callback SET parked_until = 1 WHERE status = 'parked'"
out=$(process --all)
is "past that time: dead, for a person" "$(echo "$out" | jget 'd["dead"]')" 2
like "with the reason" "$(fd inbox list --status dead)" "no card payment order of ours for intent pi_"

# --- The channel disagrees with our order: never posted ----------------------
M=$(charge INV-2026-000004 8)
ctl intent "{\"amount\": 801, \"status\": \"succeeded\", \"metadata\": {\"order_no\": \"$M\"}}" >/dev/null
poll; out=$(process)
is "another amount for our order number: both its events dead, nothing posted" \
	"$(echo "$out" | jget 'd["dead"], d["payments"]')" "2 0"
matches "the order keeps the reason" "$(db "SELECT status, last_error FROM pay_order WHERE order_no = '$M'")" "^created\|the channel says intent pi_.* is 801 USD"

# --- A failing channel: failed with backoff, dead only after the horizon -----
F=$(charge INV-2026-000004 3); deliver; succeed "$F"; poll
# one query per intent per batch: exactly as many faults as runs
ctl fault '{"path": "/v1/payment_intents/", "method": "GET", "kind": "status", "status": 500, "count": 1}' >/dev/null
before=$(date +%s)
out=$(process)
is "a 500 on the query: failed (the created event and the success)" "$(echo "$out" | jget 'd["failed"], d["payments"]')" "2 0"
is "with a next attempt after a backoff" \
	"$(db "SELECT count(*) FROM inbound_callback WHERE object_id = '$(pi_of "$F")' AND status = 'failed' AND attempts = 1 AND next_attempt_at > $before")" 2
ctl fault '{"path": "/v1/payment_intents/", "method": "GET", "kind": "truncate", "count": 12}' >/dev/null
# a burst that skips the backoff (--all) uses up no horizon: still failed
for n in 2 3 4 5 6 7 8 9 10 11 12; do process --all >/dev/null; done
matches "twelve attempts within the horizon: still failed, not dead" \
	"$(db "SELECT status, attempts, last_error FROM inbound_callback WHERE object_id = '$(pi_of "$F")' AND event_type = 'payment_intent.succeeded'")" "^failed\|12\|the channel could not tell"
is "frontdesk check does not call the order stuck meanwhile" "$(fd check 2>&1 | grep -c "order $F")" 0
# the desk's clock a day on (pipeline_give_up_seconds, 86400 by default)
FRONTDESK_NOW=2026-12-02T09:00 process --all >/dev/null
matches "a failure past the give-up horizon: dead, saying why" \
	"$(db "SELECT status, attempts, last_error FROM inbound_callback WHERE object_id = '$(pi_of "$F")' AND event_type = 'payment_intent.succeeded'")" "^dead\|13\|given up after 13 attempt\(s\) over the give-up horizon"
is "nothing posted meanwhile" "$(payments "$F")" 0
out=$(fd check 2>&1)
like "frontdesk check says the order waits while its events lie dead" "$out" \
	"channel-order-stuck: card payment order $F is still paying, but 2 event(s) about $(pi_of "$F") died"
for id in $(db "SELECT id FROM inbound_callback WHERE object_id = '$(pi_of "$F")' AND status = 'dead'"); do
	fd inbox retry "$id" >/dev/null
done
out=$(process)
is "a person retries them once the channel is well: posted once" "$(echo "$out" | jget 'd["payments"]'), $(payments "$F")" "1, 1"
out=$(fd check 2>&1)
like "frontdesk check names an event that died refused, not failing" "$out" \
	"channel-event-refused: inbound event"
like "such as the intent of an order not ours" "$out" "no card payment order of ours for intent"
for id in $(db "SELECT id FROM inbound_callback WHERE status = 'dead' AND dead_kind = 'refused'"); do
	fd inbox ignore "$id" --reason "looked at: not our money" >/dev/null
done
ok "once a person decided on each, frontdesk check is clean" fd check

# --- What the desk asks about orders and dead letters is read by index --------
plan() { db "EXPLAIN QUERY PLAN $1" | tr '\n' ' '; }
like "an invoice's card orders: by index" "$(plan "SELECT order_no FROM pay_order WHERE invoice_id = 1")" "USING INDEX pay_order_by_invoice"
like "a payment's order: by index" "$(plan "SELECT order_no FROM pay_order WHERE payment_id = 1")" "USING INDEX pay_order_by_payment"
like "the dead outbox commands: by index" "$(plan "SELECT count(*) FROM outbox_event WHERE status = 'dead'")" "outbox_event_dead"

# --- frontdesk check sees a channel payment posted twice ---------------------
fd pay record --customer 1 --amount 60 --method card --reference "$(pi_of "$O1")" >/dev/null
out=$(fd check 2>&1); st=$?
is "a card payment recorded by hand for an intent already posted: check fails" "$st" 1
like "and says which" "$out" "channel-payment-once: intent $(pi_of "$O1") was posted as 2 payments"
done_testing
