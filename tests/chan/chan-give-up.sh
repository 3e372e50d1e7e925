#!/bin/sh
# chan-give-up.sh - the pipeline gives up on time, not on a count (issue
# 26), against the fake channel: a refund sent to an unreachable channel
# is tried once per backoff however often `deliver --once --all` runs, says
# what became of it, and goes dead only when it fails past the give-up
# horizon (pipeline_give_up_seconds, 24 h); `frontdesk check` then names
# it; revived with `frontdesk outbox retry` it leaves with its first
# idempotency key, once. A refund pending at the channel is followed on the
# backoff, not failed every second, and is shown to a person only past the
# horizon; an order still paying past the horizon is reported. The real
# clock (FRONTDESK_REAL_NOW) and the desk's (FRONTDESK_NOW) are moved by
# the test: nothing here waits for time to pass. Every secret is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=sk_test_made_up_give_up_key
FAKE_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

fake_start 120
ok "the fake channel started on a random port" test -n "$PORT"
fake_secrets
row() { db "SELECT status, retry_count FROM outbox_event WHERE id = $1"; }
key_of() { db "SELECT idempotency_key FROM outbox_event WHERE id = $1"; }
posts() {
	curl -s --max-time 10 "$BASE/_control/log" | python3 -c "
import json, sys
print(len([e for e in json.load(sys.stdin)['log'] if e['method'] == 'POST'
    and e['path'] == sys.argv[1] and e['idempotency_key'] == sys.argv[2]]))" "$1" "$2"
}
# at REAL_SECONDS CMD...: frontdesk with the real clock at that time
at() { t=$1; shift; FRONTDESK_REAL_NOW=$t "$FRONTDESK" "$@"; }
DAY_LATER=2026-12-02T09:00 # the desk's clock one horizon (24 h) on
# count CODE [NOW]: the problems of that code frontdesk check reports
count() { FRONTDESK_NOW=${2:-$FRONTDESK_NOW} "$FRONTDESK" check 2>&1 | grep -c "^$1:"; }

fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
for t in 1 2; do
	fd job add --customer 1 --title "Job $t" >/dev/null
	fd item add --job $t --description "Work $t" --price 100 >/dev/null
	fd invoice issue --jobs $t >/dev/null
done
fd channel provider-set stripe --url "$BASE" >/dev/null
O=$(charge INV-2026-000001 60)
deliver
ctl "intent/$(pi_of "$O")" '{"status": "succeeded"}' >/dev/null
poll
fd channel process --once >/dev/null
matches() {
	if printf '%s\n' "$2" | grep -Eq "$3"; then pass "$1"; else fail "$1" "got: $2" "expected to match: $3"; fi
}
matches "a paid card order" "$(order "$O")" "^paid\|"
# a second one, for the pending refund below
Q=$(charge INV-2026-000002 20)
deliver
ctl "intent/$(pi_of "$Q")" '{"status": "succeeded"}' >/dev/null
poll
fd channel process --once >/dev/null
matches "and another" "$(order "$Q")" "^paid\|"

# --- An unreachable channel: one attempt per backoff, whatever the burst ------
R=$(fd --json channel refund "$O" --amount 10 | jget 'd["outbox_id"]')
K=$(key_of "$R")
fd channel provider-set stripe --url "http://127.0.0.1:1" >/dev/null
T=$(date +%s)
out=$(at "$T" channel deliver --once --all)
st=$?
for n in 2 3 4 5 6 7 8 9 10 11 12; do at "$T" channel deliver --once --all >/dev/null; done
is "ten and more deliveries in one second: the refund was tried once" "$(row "$R")" "failed|1"
is "the run exits 0 (the channel's failure is the command's state)" "$st" 0
like "and says it failed, not that it was sent" "$out" "0 command(s) sent, 1 failed"
like "and when it is tried again" "$out" "The next try is at"
is "in --json too" "$(at "$T" --json channel deliver --once --all | jget 'd["sent"], d["failed"], d["dead"]')" "0 0 0"
like "the reason is kept: no connection" "$(db "SELECT last_error FROM outbox_event WHERE id = $R")" "no answer from the channel"
is "frontdesk check has nothing to say yet" "$(count channel-command-dead)" 0

# the real clock moves on by the backoff's cap each time: tried each time,
# never given up within the horizon
n=1
while [ $n -le 12 ]; do at $((T + n * 301)) channel deliver --once >/dev/null; n=$((n + 1)); done
is "thirteen attempts an hour apart on the desk's clock: still failed, not dead" "$(row "$R")" "failed|13"
ok "the backoff is never longer than 5 minutes" \
	test "$(db "SELECT next_retry_at - updated_at FROM outbox_event WHERE id = $R")" -le 300
out=$(FRONTDESK_NOW=$DAY_LATER at $((T + 86400)) channel deliver --once)
is "a failure past the horizon: dead" "$(row "$R")" "dead|14"
like "the run says so" "$out" "0 command(s) sent, 0 failed, 0 without an answer, 1 dead"
like "with the reason" "$(db "SELECT last_error FROM outbox_event WHERE id = $R")" "given up after 14 attempt(s)"
is "the order still says paid" "$(db "SELECT status FROM pay_order WHERE order_no = '$O'")" paid
out=$(fd check 2>&1); st=$?
is "frontdesk check fails" "$st" 1
like "naming the refund never sent" "$out" "channel-command-dead: outbox command $R (refund.create for $O, 1000 USD minor units) is dead while the order is paid"
is "the channel never saw it" "$(posts /v1/refunds "$K")" 0

# --- The channel is back: a person revives the command, with its key -------
fd channel provider-set stripe --url "$BASE" >/dev/null
at $((T + 90000)) channel deliver --once >/dev/null
is "a dead command is not sent again by itself" "$(row "$R")" "dead|14"
refused "no such command" outbox retry 999
like "retried by a person" "$(fd outbox retry "$R")" "due again with the same idempotency key"
is "pending again, attempts reset, the same key" "$(row "$R"),$(key_of "$R")" "pending|0,$K"
refused "a pending command cannot be retried" outbox retry "$R"
deliver
is "sent once and answered" "$(row "$R"),$(posts /v1/refunds "$K")" "succeeded|1,1"
is "the order is being refunded" "$(db "SELECT status FROM pay_order WHERE order_no = '$O'")" refunding
is "its status flow: fifteen sends, dead, revived by a person, sent" \
	"$(db "SELECT count(*) FILTER (WHERE to_status = 'sending') FROM status_flow WHERE entity = 'outbox_event' AND entity_id = $R"),$(db "SELECT group_concat(to_status, '<') FROM (SELECT to_status FROM status_flow WHERE entity = 'outbox_event' AND entity_id = $R ORDER BY id DESC LIMIT 4)"),$(db "SELECT reason FROM status_flow WHERE entity = 'outbox_event' AND entity_id = $R AND from_status = 'dead'")" \
	"15,succeeded<sending<pending<dead,retried by a person"
is "frontdesk check no longer names it" "$(count channel-command-dead)" 0

# --- A refund pending at the channel: followed on the backoff ---------------
# (the fake leaves a refund pending until told otherwise)
ctl "refund/$(db "SELECT object_id FROM inbound_callback WHERE external_id LIKE 'answer:%'")" \
	'{"status": "succeeded", "emit": false}' >/dev/null
fd channel process --once >/dev/null
fd channel refund "$Q" >/dev/null
deliver
A=$(db "SELECT max(id) FROM inbound_callback WHERE external_id LIKE 'answer:%'")
RE=$(db "SELECT object_id FROM inbound_callback WHERE id = $A")
like "the answer names the channel's refund" "$RE" "re_"
is "the order is being refunded" "$(db "SELECT status FROM pay_order WHERE order_no = '$Q'")" refunding
T=$(date +%s)
for n in 1 2 3 4 5 6 7 8 9 10; do at "$T" channel process --once >/dev/null; done
is "ten runs in one second: asked once" "$(db "SELECT status, attempts FROM inbound_callback WHERE id = $A")" "failed|1"
matches "it says it waits, and for how long" "$(db "SELECT last_error FROM inbound_callback WHERE id = $A")" \
	"^refund $RE is pending at the channel; asked again in [0-9]+ s$"
n=1
while [ $n -le 11 ]; do at $((T + n * 301)) channel process --once >/dev/null; n=$((n + 1)); done
out=$(at $((T + 12 * 301)) --json channel process --once)
is "twelve asks later: still waiting, not dead" "$(db "SELECT status, attempts FROM inbound_callback WHERE id = $A")" "failed|13"
is "counted as waiting" "$(echo "$out" | jget 'd["failed"], d["waiting"], d["dead"]')" "1 1 0"
ok "its next ask is minutes away, not a second" \
	test "$(db "SELECT next_attempt_at FROM inbound_callback WHERE id = $A")" -ge $((T + 12 * 301 + 150))
is "frontdesk check has nothing to say within the horizon" "$(count channel-refund-stuck)" 0
like "past it, with no worker running, it names the refund" \
	"$(FRONTDESK_NOW=$DAY_LATER fd check 2>&1)" \
	"channel-refund-stuck: card payment order $Q is refunding, but refund $RE of 2000 USD minor units is still not settled at the channel past the give-up horizon"
FRONTDESK_NOW=$DAY_LATER at $((T + 86400)) channel process --once >/dev/null
is "asked past the horizon and still pending: still followed, never given up" \
	"$(db "SELECT status FROM inbound_callback WHERE id = $A")" failed
matches "it still says it waits" "$(db "SELECT last_error FROM inbound_callback WHERE id = $A")" \
	"^refund $RE is pending at the channel; asked again in [0-9]+ s$"
ok "its next ask is at most the capped backoff away" \
	test "$(db "SELECT next_attempt_at FROM inbound_callback WHERE id = $A")" -le $((T + 86400 + 300))
like "frontdesk check still names it for a person" "$(FRONTDESK_NOW=$DAY_LATER fd check 2>&1)" \
	"channel-refund-stuck: card payment order $Q is refunding, but refund $RE of 2000 USD minor units is still not settled at the channel past the give-up horizon"
# the channel settles it, and its success event is lost: the next ask posts it
ctl "refund/$RE" '{"status": "succeeded", "emit": false}' >/dev/null
FRONTDESK_NOW=$DAY_LATER at $((T + 86400 + 301)) channel process --once >/dev/null
is "settled at the channel, event lost: the next ask posts it, no person needed" \
	"$(db "SELECT amount, status FROM refund WHERE reference = '$RE'")" "2000|succeeded"
is "frontdesk check no longer names it" "$(count channel-refund-stuck "$DAY_LATER")" 0

# --- An order still paying past the horizon ---------------------------------
P=$(charge INV-2026-000002 40)
deliver
matches "a second order, paying" "$(order "$P")" "^paying\|"
is "not reported within the horizon" "$(count channel-order-paying-long)" 0
like "reported past it" "$(FRONTDESK_NOW=$DAY_LATER fd check 2>&1)" \
	"channel-order-paying-long: card payment order $P (4000 USD minor units) is still paying 24 h after it was made"
printf 'pipeline_give_up_seconds = 3600\n' > "$XDG_CONFIG_HOME/frontdesk/config"
like "the horizon is a setting" "$(FRONTDESK_NOW=2026-12-01T10:00 fd check 2>&1)" \
	"channel-order-paying-long: card payment order $P"
rm -f "$XDG_CONFIG_HOME/frontdesk/config"
ctl "intent/$(pi_of "$P")" '{"status": "succeeded"}' >/dev/null
poll
fd channel process --once >/dev/null
ok "once paid, frontdesk check is clean, a day on too" env FRONTDESK_NOW=$DAY_LATER "$FRONTDESK" check
done_testing
