#!/bin/sh
# chan-serve-all.sh - one `frontdesk serve` serves every enabled payment
# provider of the registry: a Stripe-style primary (tests/chan/fake-stripe.py)
# with a rollout of 50% and a WeChat-style backup (tests/chan/fake-wechat.py),
# so that new orders go to both; one serve run (no --provider) delivers
# the orders of both, each to its own channel; --provider limits it to
# one; an enabled provider that cannot be opened (no secrets) is said and
# left out while the others are served. Every key here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
KEY=sk_test_made_up_serve_all_key
WKEY=made_up_wechat_merchant_key_0456
SPID= WPID=
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; [ -n "$WPID" ] && kill "$WPID" 2>/dev/null; rm -rf "$TMP"' EXIT
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
fake_start 120
SPID=$FAKE_PID SBASE=$BASE
ok "the Stripe-style fake started" test -n "$SBASE"
fake_run fake-wechat.py 120 --key "$WKEY"
WPID=$FAKE_PID WBASE=$BASE
ok "the WeChat-style fake started" test -n "$WBASE"
# requests PATH BASE: how many API requests to PATH the fake at BASE logged
requests() { curl -s --max-time 10 -d '{}' "$2/_control/log" | jget "sum(1 for e in d['log'] if e['path'] == '$1')"; }
sent() { db "SELECT count(*) FROM outbox_event WHERE provider_code = '$1' AND status = 'succeeded'"; }
waiting() { db "SELECT count(*) FROM outbox_event WHERE provider_code = '$1' AND status = 'pending'"; }
served_by() { db "SELECT provider_code FROM pay_order WHERE order_no = '$1'"; }

fd init >/dev/null
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'stripe_api_key = %s\nwx_api_key = %s\nwx_appid = wx_made_up_app\nwx_mch_id = 1900000109\n' \
	"$KEY" "$WKEY" > "$XDG_CONFIG_HOME/frontdesk/secrets")
fd customer add --name "Ada Lee" >/dev/null
fd job add --customer 1 --title "Job" --currency CNY >/dev/null
fd item add --job 1 --description "Work" --price 10000 >/dev/null
fd invoice issue --jobs 1 >/dev/null
fd channel provider-set stripe --url "$SBASE" --rollout 50 >/dev/null
fd channel provider-set wx --url "$WBASE" --role backup --adapter wechat >/dev/null
# a third enabled backup with no secrets (never routed to: wx comes first)
fd channel provider-set zz --url http://127.0.0.1:9 --role backup >/dev/null

# --- orders routed to both, until each has two --------------------------------
i=0
while [ "$i" -lt 40 ] && { [ "$(db "SELECT count(*) FROM pay_order WHERE provider_code = 'stripe'")" -lt 2 ] ||
	[ "$(db "SELECT count(*) FROM pay_order WHERE provider_code = 'wx'")" -lt 2 ]; }; do
	charge INV-2026-000001 10 >/dev/null
	i=$((i + 1))
done
NS=$(db "SELECT count(*) FROM pay_order WHERE provider_code = 'stripe'")
NW=$(db "SELECT count(*) FROM pay_order WHERE provider_code = 'wx'")
ok "the rollout sent orders to the primary and to the backup" test "$NS" -ge 2 -a "$NW" -ge 2
is "the outbox rows are each their provider's, typed payment" \
	"$(db "SELECT count(*) FROM outbox_event e JOIN pay_order o ON o.order_no = e.business_key WHERE e.provider_code = o.provider_code AND e.integration_type = 'payment'")" "$((NS + NW))"

# --- --provider limits serve to one ---------------------------------------------
fd serve --for 3 --poll-seconds 1 --lease-seconds 2 --provider wx 2>"$TMP/one.err"
is "serve --provider wx delivered the backup's orders only" \
	"$(sent wx)|$(waiting stripe)|$(requests /pay/unifiedorder "$WBASE")" "$NW|$NS|$NW"
is "nothing reached the primary" "$(requests /v1/payment_intents "$SBASE")" 0

# --- one serve run, every enabled provider ------------------------------------------
for i in 1 2; do charge INV-2026-000001 10 >/dev/null; done
NS=$(db "SELECT count(*) FROM pay_order WHERE provider_code = 'stripe'")
NW=$(db "SELECT count(*) FROM pay_order WHERE provider_code = 'wx'")
fd serve --for 4 --poll-seconds 1 --lease-seconds 2 2>"$TMP/all.err"
is "one serve run delivered the orders of both providers" \
	"$(sent stripe)|$(sent wx)|$(waiting stripe)$(waiting wx)" "$NS|$NW|00"
is "each order reached its own channel once" \
	"$(requests /v1/payment_intents "$SBASE")|$(requests /pay/unifiedorder "$WBASE")" "$NS|$NW"
is "every order has its channel id" "$(db "SELECT count(*) FROM pay_order WHERE channel_order_id IS NULL")" 0
like "serve names the providers it serves" "$(cat "$TMP/all.err")" "polling stripe, wx"
like "and the one it cannot serve, with why" "$(cat "$TMP/all.err")" "cannot serve the provider zz"
ok "the primary was polled in the same run" test "$(requests /v1/events "$SBASE")" -ge 1
fd channel provider-set zz --disable >/dev/null
ok "frontdesk check is clean" fd check
done_testing
