#!/bin/sh
# message-sms.sh - text messages through the pipeline (type sms, adapter
# sms-rest) against a fake provider written from the contract alone
# (tests/chan/fake-sms.py, tests/chan/contract/sms-rest-contract.md):
# "on our way" sent and its delivery receipt applied (a duplicate or a late
# one changes nothing, a forged one is refused); a receipt that says it
# failed shown on the customer; an answer lost after the provider took it
# (the same idempotency key again: one message at the provider); the
# provider down (retried on the backoff, sent once); no receipt for a day
# ("sent, not confirmed", then delivered when a late receipt comes); no text
# sent in the quiet hours, sent in the morning.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"

KEY=sk_test_sms_made_up
SECRET=whsec_sms_made_up
export TZ=America/New_York
export FRONTDESK_NOW="2026-12-01T09:00"
export FRONTDESK_CONFIG="$TMP/config.ini"
printf 'timezone = America/New_York\nshop_name = Shiny Cars\n' > "$FRONTDESK_CONFIG"
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'sms_api_key = %s\nsms_signing_secret = %s\n' "$KEY" "$SECRET" \
	> "$XDG_CONFIG_HOME/frontdesk/secrets")
STRIPE_PID=
trap 'kill $SMS_PID $STRIPE_PID 2>/dev/null; rm -rf "$TMP"' EXIT
fake_run fake-sms.py 300 --api-key "$KEY" --secret "$SECRET"
SMS_PID=$FAKE_PID
ok "the fake SMS provider listens" test -n "$PORT"

q() { sqlite3 "$FRONTDESK_DB" "$1"; }
run() { fd message schedule >/dev/null && fd message run --once >/dev/null; }
state() { curl -s --max-time 10 "$BASE/_control/state"; }
# relay ID STATUS [ERROR]: the fake's receipt, relayed as a web hook would
relay() {
	ctl receipt "{\"id\": \"$1\", \"status\": \"$2\"${3:+, \"error\": \"$3\"}}" > "$TMP/rc.json"
	jget 'd["body"]' < "$TMP/rc.json" | tr -d '\n' > "$TMP/rc.body"
	fd inbox ingest --provider sms --signature "$(jget 'd["signature"]' < "$TMP/rc.json")" \
		< "$TMP/rc.body" >/dev/null 2>&1
}
status() { q "SELECT status FROM message WHERE id = $1"; }

fd init >/dev/null
fd customer add --name "Lee Park" --phone "+1 555-0142" >/dev/null
fd customer add --name "Kim Ng" --phone 555-0177 >/dev/null
fd service add --name "Wash" --price 40 --minutes 60 >/dev/null
fd book --customer "Lee Park" --start "2026-12-01 10:00" --services Wash >/dev/null
fd book --customer "Kim Ng" --start "2026-12-01 11:00" --services Wash >/dev/null
ok "a text-message provider is a provider of type sms" fd message provider-set sms --type sms --url "$BASE" --adapter sms-rest

# --- on our way: sent, delivered
fd message send --visit 1 --kind on-the-way >/dev/null
m1=$(q "SELECT max(id) FROM message")
is "on our way goes by text message" "$(q "SELECT channel || ' ' || recipient FROM message WHERE id = $m1")" "sms +15550142"
run
is "the provider took it" "$(status "$m1")" sent
is "it has the provider's id" "$(q "SELECT provider_ref FROM message WHERE id = $m1")" sms_1
is "the provider got the text in the customer's words" "$(state | jget 'd["messages"][0]["body"]')" \
	"$(q "SELECT body FROM message WHERE id = $m1")"
relay sms_1 delivered
fd message run --once >/dev/null
is "the receipt lands on the message" "$(status "$m1")" delivered
like "and in the contact log" "$(q "SELECT group_concat(summary, '|') FROM contact_log WHERE customer_id = 1")" "delivered (+15550142)"
relay sms_1 delivered
relay sms_1 sent
fd message run --once >/dev/null
is "a duplicate or a late receipt changes nothing" "$(status "$m1")" delivered
is "both are kept, ignored" "$(q "SELECT count(*) FROM inbound_callback WHERE integration_type = 'sms' AND status = 'ignored'")" 2
printf '{"id":"evt_forged","type":"message.status","data":{"id":"sms_1","status":"failed"}}' > "$TMP/forged"
fd inbox ingest --provider sms --signature "t=$(date +%s),v1=$(printf '%064d' 0)" < "$TMP/forged" >/dev/null 2>&1
fd message run --once >/dev/null
is "a forged receipt is stored refused" "$(q "SELECT count(*) FROM inbound_callback WHERE integration_type = 'sms' AND status = 'rejected'")" 1
is "and changes nothing" "$(status "$m1")" delivered

# --- a receipt that says it failed: failed, shown on the customer
fd message send --visit 2 --kind on-the-way >/dev/null
m2=$(q "SELECT max(id) FROM message")
run
relay "$(q "SELECT provider_ref FROM message WHERE id = $m2")" failed "unknown subscriber"
fd message run --once >/dev/null
is "a failed receipt: failed" "$(status "$m2")" failed
like "the customer shows the failed number" "$(fd message consent "Kim Ng" --email yes)" "Text message failed: 5550177 (unknown subscriber)"

# --- the answer lost after the provider took it: one message at the provider
sends=$(state | jget 'd["sends"]')
ctl drop '{"n": 1}' >/dev/null
fd message send --visit 1 --kind on-the-way >/dev/null
m3=$(q "SELECT max(id) FROM message")
run
is "no answer: still sending" "$(status "$m3")" sending
sent_now() { fd message run --once >/dev/null; [ "$(status "$m3")" = sent ]; }
ok "sent again with the same key on the backoff" until_ok 60 sent_now
is "one message at the provider" "$(state | jget 'd["sends"]')" "$((sends + 1))"

# --- the provider down: retried on the backoff, sent once
ctl fail '{"all": 2}' >/dev/null
fd message send --visit 1 --kind on-the-way >/dev/null
m4=$(q "SELECT max(id) FROM message")
run
is "the provider down: failed, to be tried again" "$(q "SELECT status FROM outbox_event WHERE business_key = 'MSG-$m4'")" failed
sent4() { fd message run --once >/dev/null; [ "$(status "$m4")" = sent ]; }
ok "sent once it is back" until_ok 60 sent4
is "one more at the provider" "$(state | jget 'd["sends"]')" "$((sends + 2))"

# --- no receipt for a day: sent, not confirmed; a late receipt still counts
FRONTDESK_NOW="2026-12-02T10:00" fd message run --once >/dev/null
is "no receipt after a day: unconfirmed" "$(status "$m4")" unconfirmed
like "the contact log says so" "$(q "SELECT group_concat(summary, '|') FROM contact_log WHERE customer_id = 1")" "sent, not confirmed"
relay "$(q "SELECT provider_ref FROM message WHERE id = $m4")" delivered
FRONTDESK_NOW="2026-12-02T10:05" fd message run --once >/dev/null
is "a late receipt still lands" "$(status "$m4")" delivered

# --- the quiet hours: no text at night, sent in the morning
FRONTDESK_NOW="2026-12-01T22:30" fd message send --visit 1 --kind on-the-way >/dev/null
m5=$(q "SELECT max(id) FROM message")
FRONTDESK_NOW="2026-12-01T22:30" fd message schedule >/dev/null
out=$(FRONTDESK_NOW="2026-12-01T22:31" fd --json message run --once)
is "at night it waits" "$(echo "$out" | jget 'd["held"]')" 1
is "still sending" "$(status "$m5")" sending
FRONTDESK_NOW="2026-12-02T08:05" fd message run --once >/dev/null
is "sent in the morning" "$(status "$m5")" sent

# --- an invoice by text, with the payment page of its open card order
SMS_BASE=$BASE
KEY=sk_test_made_up_msg_stripe
fake_start 120
STRIPE_PID=$FAKE_PID
(umask 077; printf 'stripe_api_key = %s\n' "$KEY" >> "$XDG_CONFIG_HOME/frontdesk/secrets")
fd channel provider-set stripe --url "$BASE" --card-page checkout >/dev/null
fd job add --customer 1 --title "Pool" >/dev/null
job=$(q "SELECT max(id) FROM service_order")
fd item add --job "$job" --description "Pool clean" --price 80 >/dev/null
fd invoice issue --jobs "$job" >/dev/null
inv=$(q "SELECT number FROM invoice ORDER BY id DESC LIMIT 1")
fd channel charge --invoice "$inv" --amount 80 >/dev/null
FRONTDESK_NOW="2026-12-02T10:00" fd channel deliver --once --all >/dev/null
page=$(q "SELECT page_url FROM pay_order WHERE invoice_id = (SELECT id FROM invoice WHERE number = '$inv')")
ok "the card order has a payment page" test -n "$page"
FRONTDESK_NOW="2026-12-02T10:00" fd message send --invoice "$inv" --channel sms >/dev/null
like "the invoice's text gives its payment page" "$(q "SELECT body FROM message ORDER BY id DESC LIMIT 1")" "Pay: $page"
is "by text, nothing is attached" "$(q "SELECT attach_invoice FROM message ORDER BY id DESC LIMIT 1")" 0

done_testing
