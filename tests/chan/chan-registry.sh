#!/bin/sh
# chan-registry.sh - the provider registry's roles and rollout: a rollout
# outside 0..100 is refused by the command and by the schema; which
# provider serves a new order is decided stably per order (a hash of its
# number below the primary's percentage: the primary, else the first
# enabled backup), a disabled primary sends every order to a backup, no
# enabled provider is a clear refusal; a provider whose polls have failed
# for longer than channel_failing_report_seconds (15 minutes by default)
# is reported by `channel status`, `channel providers` and `frontdesk
# check` (older than the setting, not younger; not when disabled).
# Every secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=sk_test_made_up_registry_key
db() { sqlite3 "$FRONTDESK_DB" "$1"; }
jget() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
# bucket ORDER_NO: FNV-1a (32 bits) of the number, modulo 100, computed here
bucket() {
	python3 -c '
import sys
h = 2166136261
for b in sys.argv[1].encode():
    h = ((h ^ b) * 16777619) & 0xffffffff
print(h % 100)' "$1"
}
served_by() { db "SELECT provider_code FROM pay_order WHERE order_no = '$1'"; }

fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
fd job add --customer 1 --title "Job" >/dev/null
fd item add --job 1 --description "Work" --price 10000 >/dev/null
fd invoice issue --jobs 1 >/dev/null

# --- The rollout is a percentage ----------------------------------------------
fd channel provider-set stripe --url http://127.0.0.1:9 >/dev/null
is "a new provider serves all of its type's orders" \
	"$(fd --json channel providers | jget 'd["providers"][0]["rollout_percent"], d["providers"][0]["type"]')" "100 payment"
refused "a rollout above 100" channel provider-set stripe --rollout 101
refused "a negative rollout" channel provider-set stripe --rollout -1
refused "a rollout that is not a number" channel provider-set stripe --rollout half
refused "a rollout with a percent sign" channel provider-set stripe --rollout 50%
like "the message says what a rollout is" \
	"$(fd channel provider-set stripe --rollout 101 2>&1)" "a whole number from 0 to 100"
refused "an adapter frontdesk does not have" channel provider-set stripe --adapter paypal
# each type's adapters are its own (its pipeline tells the registry)
refused "a payment provider with the e-sign adapter" channel provider-set stripe --adapter rest
refused "an e-sign provider with a payment adapter" estimate provider-set sign9 \
	--url http://127.0.0.1:9 --adapter stripe
like "... which names the adapter" "$(cat "$TMP/err")" "there is no channel adapter 'stripe'"
refused "a booking channel with a payment adapter" booking-channel provider-set book9 \
	--url http://127.0.0.1:9 --adapter wechat
ok "an e-sign provider with its adapter" fd estimate provider-set sign9 --url http://127.0.0.1:9 --adapter rest
ok "a booking channel with its adapter" fd booking-channel provider-set book9 --url http://127.0.0.1:9 --adapter rest
fd channel provider-set stripe --rollout 30 >/dev/null
fd channel provider-set alt --url http://127.0.0.1:8 --role backup >/dev/null
like "providers shows the role and the rollout" "$(fd channel providers)" "30%"

# --- Stable per order -------------------------------------------------------------
good=0 bad=0 prim=0 back=0
for i in $(seq 1 24); do
	o=$(charge INV-2026-000001 100)
	if [ "$(bucket "$o")" -lt 30 ]; then want=stripe; prim=$((prim + 1)); else want=alt; back=$((back + 1)); fi
	if [ "$(served_by "$o")" = "$want" ]; then good=$((good + 1)); else bad=$((bad + 1)); fi
done
is "each new order goes where its number's bucket says" "$good $bad" "24 0"
ok "both providers got orders" test "$prim" -gt 0 -a "$back" -gt 0
is "each order's command leaves for the provider that serves it" \
	"$(db "SELECT count(*) FROM outbox_event e JOIN pay_order o ON o.order_no = e.business_key WHERE e.provider_code <> o.provider_code")" 0
fd channel provider-set stripe --rollout 100 >/dev/null
o=$(charge INV-2026-000001 100)
is "at 100 the primary serves every new order" "$(served_by "$o")" stripe
fd channel provider-set stripe --rollout 0 >/dev/null
o=$(charge INV-2026-000001 100)
is "at 0 the backup serves every new order" "$(served_by "$o")" alt
o=$(fd --json channel charge --invoice INV-2026-000001 --amount 100 --provider stripe | jget 'd["order_no"]')
is "a provider named by the desk serves the order whatever the rollout" "$(served_by "$o")" stripe
fd channel provider-set stripe --rollout 100 --disable >/dev/null
o=$(charge INV-2026-000001 100)
is "a disabled primary: new orders go to the backup" "$(served_by "$o")" alt
like "the status names the backup while the primary is disabled" "$(fd channel status)" "alt"
fd channel provider-set alt --disable >/dev/null
refused "no enabled provider: refused" channel charge --invoice INV-2026-000001 --amount 100
like "the refusal says how to go on" \
	"$(fd channel charge --invoice INV-2026-000001 --amount 100 2>&1)" "no payment provider"

# --- Failing for long is reported -----------------------------------------------
fd channel provider-set stripe --enable >/dev/null
fake_secrets
fd channel poll --once >/dev/null 2>&1
ok "a failed poll records since when the channel fails" \
	test -n "$(db "SELECT failing_since FROM channel_state WHERE provider_code = 'stripe'")"
is "not reported before the configured time" \
	"$(fd --json channel status | jget 'd["failing"]')" False
# frontdesk check reports it once it is older than the setting (15
# minutes by default), at the real clock: FRONTDESK_REAL_NOW sets the
# reader's clock instead of sleeping
SINCE=$(db "SELECT failing_since FROM channel_state WHERE provider_code = 'stripe'")
ok "failing for 5 minutes: frontdesk check is clean" env FRONTDESK_REAL_NOW=$((SINCE + 300)) "$FRONTDESK" check
out=$(FRONTDESK_REAL_NOW=$((SINCE + 901)) fd check 2>&1)
is "failing for 15 minutes: frontdesk check refuses" "$?" 1
like "and names the provider" "$out" "channel-provider-failing: payment provider stripe has been failing since"
is "one item" "$(FRONTDESK_REAL_NOW=$((SINCE + 901)) fd --json check | jget 'd["count"], d["violations"][0]["code"]')" "1 channel-provider-failing"
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
printf 'channel_failing_report_seconds = 60\n' > "$XDG_CONFIG_HOME/frontdesk/config"
ok "with the setting at 60 s: not at 30 s" env FRONTDESK_REAL_NOW=$((SINCE + 30)) "$FRONTDESK" check
FRONTDESK_REAL_NOW=$((SINCE + 61)) fd check >/dev/null 2>&1
is "with the setting at 60 s: reported at 61 s" "$?" 1
fd channel provider-set stripe --disable >/dev/null
ok "a disabled provider is not reported" env FRONTDESK_REAL_NOW=$((SINCE + 3600)) "$FRONTDESK" check
fd channel provider-set stripe --enable >/dev/null
printf 'channel_failing_report_seconds = 0\n' > "$XDG_CONFIG_HOME/frontdesk/config"
is "reported once it has failed for the configured time" \
	"$(fd --json channel status | jget 'd["failing"]')" True
like "the status says a person must look" "$(fd channel status)" "has been failing"
like "providers marks it" "$(fd channel providers)" "FAILING"
FAKE_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
fake_start 60
fd channel provider-set stripe --url "$BASE" >/dev/null
fd channel poll --once >/dev/null
is "a poll that works ends it" "$(db "SELECT coalesce(failing_since, 'none') FROM channel_state WHERE provider_code = 'stripe'")" none
is "no longer reported" "$(fd --json channel status | jget 'd["failing"]')" False
ok "frontdesk check is clean" fd check
done_testing
