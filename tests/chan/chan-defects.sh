#!/bin/sh
# chan-defects.sh - money-losing defects found by driving the payment
# channel with an independent fake server, one section each, named after
# what broke:
#  - channel ids that look like card numbers (13-19 digits passing Luhn)
#    were refused, so the customer's payment or refund was never posted;
#  - a channel refund that failed left its order 'refunding' for good and
#    its amount counted as asked for, so it could never be refunded again;
#  - an event naming one of our orders but not ours wrote on that order;
#  - `frontdesk refund` on a channel card payment posted a local refund
#    without asking the channel (the screen asked the channel).
# Every secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=sk_test_made_up_defects_key
FAKE_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

fake_start 150
ok "the fake channel started on a random port" test -n "$PORT"
fake_secrets
process() { fd --json channel process --once --all; }
succeed() { ctl "intent/$(pi_of "$1")" '{"status": "succeeded"}' >/dev/null; }
newest_refund() { curl -s --max-time 10 "$BASE/_control/state" | jget 'sorted(d["refunds"].values(), key=lambda r: r["created"])[-1]["id"]'; }
# luhn S: 0 when the digits of S pass the Luhn check
luhn() {
	printf '%s\n' "$1" | tr -cd '0-9' | awk '{ s = 0; n = length($0)
		for (i = 1; i <= n; i++) { d = substr($0, n + 1 - i, 1) + 0
			if (i % 2 == 0) { d *= 2; if (d > 9) d -= 9 } s += d }
		exit (s % 10 == 0 && n >= 13) ? 0 : 1 }'
}

fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
for t in 1 2 3 4; do
	fd job add --customer 1 --title "Job $t" >/dev/null
	fd item add --job $t --description "Work $t" --price 100 >/dev/null
	fd invoice issue --jobs $t >/dev/null
done
fd channel provider-set stripe --url "$BASE" >/dev/null

# --- Channel ids that look like card numbers --------------------------------
ctl list_mode '{"luhn_ids": true}' >/dev/null
L=$(charge INV-2026-000001 40); deliver
PI=$(pi_of "$L")
ok "the channel gave an id of 16 digits that passes the Luhn check ($PI)" luhn "$PI"
succeed "$L"; poll; process >/dev/null
matches_paid=$(order "$L")
case "$matches_paid" in paid\|[0-9]*\|0) pass "the payment is posted and the order paid" ;;
*) fail "the payment is posted and the order paid" "got: $matches_paid" ;; esac
is "one card payment with the channel's id as its reference" \
	"$(db "SELECT count(*), method FROM payment WHERE reference = '$PI'")" "1|card"
is "the invoice is paid by it" "$(db "SELECT paid FROM invoice WHERE number = 'INV-2026-000001'")" 4000
ok "the refund of that payment is asked" fd channel refund "$L" --amount 15
deliver
RL=$(newest_refund)
ok "the refund's id passes the Luhn check too ($RL)" luhn "$RL"
ctl "refund/$RL" '{"status": "succeeded"}' >/dev/null
poll; process >/dev/null
is "the refund is posted with the channel's id" "$(db "SELECT amount, method FROM refund WHERE reference = '$RL'")" "1500|card"
is "no event died" "$(db "SELECT count(*) FROM inbound_callback WHERE status = 'dead'")" 0
out=$(fd history card-order "$L")
like "history of the card order: its status moves" "$out" "status paid -> refunding"
# (which requests name it varies: the create request's body is masked when the
# order number holds a long run of digits, and a query is made only when needed)
like "... and the channel requests that name it, from the request log" "$out" "request to stripe: "
like "... the refund's queries among them" "$out" "/v1/refunds/$RL"
ev=$(db "SELECT id FROM inbound_callback WHERE object_id = '$PI' ORDER BY id LIMIT 1")
like "history of an inbound event: stored, then processed" "$(fd history inbound "$ev")" "status received -> processed"
refused "a reference a person types that looks like a card number is still refused" \
	pay record --customer 1 --amount 1 --method card --reference 4111111111111111
ctl list_mode '{"luhn_ids": false}' >/dev/null

# --- A channel refund that fails --------------------------------------------
F=$(charge INV-2026-000002 100); deliver; succeed "$F"; poll; process >/dev/null
is "the order is paid" "$(db "SELECT status FROM pay_order WHERE order_no = '$F'")" paid
ok "a refund of all of it is asked" fd channel refund "$F"
deliver
is "the order is being refunded" "$(db "SELECT status FROM pay_order WHERE order_no = '$F'")" refunding
fd channel refund "$F" --amount 1 >/dev/null 2>&1
is "nothing more can be asked while it is on its way" "$?" 1
RF=$(newest_refund)
ctl "refund/$RF" '{"status": "failed"}' >/dev/null
poll; process >/dev/null
is "the failed refund returns the order to paid, nothing refunded" "$(order "$F" | cut -d'|' -f1,3)" "paid|0"
is "no refund row was posted" "$(db "SELECT count(*) FROM refund WHERE reference = '$RF'")" 0
is "the failure is kept once, as ours" \
	"$(db "SELECT count(*), amount, status, asked_by_us FROM pay_order_refund_failed WHERE channel_refund_id = '$RF'")" "1|10000|failed|1"
is "the order's history says why it went back" \
	"$(db "SELECT reason FROM status_flow WHERE entity = 'pay_order' AND to_status = 'paid' AND from_status = 'refunding'")" \
	"channel: refund $RF failed"
ok "its whole amount can be asked again" fd channel refund "$F"
is "a second refund command" "$(db "SELECT count(*) FROM outbox_event WHERE event_type = 'refund.create' AND json_extract(payload, '\$.order_no') = '$F'")" 2
deliver
RF2=$(newest_refund)
ctl "refund/$RF2" '{"status": "succeeded"}' >/dev/null
poll; process >/dev/null
is "that one succeeds: the order is refunded" "$(order "$F" | cut -d'|' -f1,3)" "refunded|10000"
ctl "refund/$RF" '{"status": "failed"}' >/dev/null
poll; process >/dev/null
is "the failure heard again changes nothing" \
	"$(db "SELECT count(*) FROM pay_order_refund_failed"),$(order "$F" | cut -d'|' -f1,3)" "1,refunded|10000"
ok "frontdesk check is clean" fd check

# --- An event about one of our orders that is not ours ----------------------
P=$(charge INV-2026-000003 30); deliver; succeed "$P"; poll; process >/dev/null
before=$(db "SELECT status, coalesce(last_error, '-'), updated_at FROM pay_order WHERE order_no = '$P'")
ctl intent "{\"amount\": 3000, \"status\": \"succeeded\", \"metadata\": {\"order_no\": \"$P\"}}" >/dev/null
poll; out=$(process)
is "another intent naming our paid order: its events are dead, nothing posted" \
	"$(echo "$out" | jget 'd["dead"], d["payments"]')" "2 0"
is "and our order is untouched (status, last error, time)" \
	"$(db "SELECT status, coalesce(last_error, '-'), updated_at FROM pay_order WHERE order_no = '$P'")" "$before"
like "the event keeps the complaint" "$(fd inbox list --status dead)" "does not belong to order $P"
out=$(fd check 2>&1)
like "frontdesk check reports the event that died refused" "$out" "channel-event-refused: inbound event"
is "the events died refused, not failing" "$(db "SELECT group_concat(DISTINCT dead_kind) FROM inbound_callback WHERE status = 'dead'")" refused
for id in $(db "SELECT id FROM inbound_callback WHERE status = 'dead'"); do
	fd inbox ignore "$id" --reason "not ours" >/dev/null
done
ok "ignored by a person with a reason, check is clean" fd check

# --- frontdesk refund on a channel card payment -----------------------------
PAY=$(db "SELECT payment_id FROM pay_order WHERE order_no = '$P'")
refunds_before=$(db "SELECT count(*) FROM refund")
out=$(fd refund "$PAY" --amount 10 --reason "customer asked")
is "frontdesk refund exits 0" "$?" 0
like "it says the refund was asked of the channel" "$out" "asked of the payment channel for card order $P"
is "no refund row is posted at the desk" "$(db "SELECT count(*) FROM refund")" "$refunds_before"
is "a refund.create command for the order, as the screen writes" \
	"$(db "SELECT count(*), json_extract(payload, '\$.amount') FROM outbox_event WHERE event_type = 'refund.create' AND json_extract(payload, '\$.order_no') = '$P'")" "1|1000"
refused "a channel payment cannot be refunded in cash at the desk" \
	refund "$PAY" --amount 5 --reason "cash back" --method cash
refused "more than the order has left is refused" refund "$PAY" --amount 25 --reason "too much"
out=$(fd --json refund "$PAY" --amount 5 --reason "again")
is "--json names the route and the order" "$(echo "$out" | jget 'd["route"], d["order_no"]')" "channel $P"
deliver
RP=$(newest_refund)
ctl "refund/$RP" '{"status": "succeeded"}' >/dev/null
poll; process >/dev/null
is "once the channel says so, the refund is posted" "$(db "SELECT amount, method FROM refund WHERE reference = '$RP'")" "500|card"
fd pay record --customer 1 --amount 20 --method cash >/dev/null
CASH=$(db "SELECT max(id) FROM payment WHERE method = 'cash'")
ok "a cash payment is still refunded at the desk" fd refund "$CASH" --amount 5 --reason "change"
is "as a refund row" "$(db "SELECT amount, method FROM refund WHERE payment_id = $CASH")" "500|cash"
ok "frontdesk check is clean" fd check
done_testing
