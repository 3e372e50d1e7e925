#!/bin/sh
# recon-wechat.sh - reconciling a day of the WeChat Pay style channel
# (frontdesk recon run --channel wx): its adapter downloads the day's trade
# bill; two orders paid at the channel and posted here are matched through
# our order numbers; a trade paid on the channel's own page that the shop
# never asked for is one channel_only difference, also when the day is run
# again; recording it from the line through the payment path makes the
# next run clean; `frontdesk check` stays clean.
# Every key here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=made_up_wechat_merchant_key_0123
FAKE_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
# a day in the middle of both the shop's and China's day, so that the
# shop's day and the bill's day are the same whatever the machine's zone
FRONTDESK_NOW=$(date -u +%Y-%m-%d)T12:00
export FRONTDESK_NOW
TZ=UTC
export TZ
DAY=${FRONTDESK_NOW%T*}
NOW=$(date -u -d "$DAY 12:00" +%s)
fake_run fake-wechat.py 120 --key "$KEY"
ok "the fake WeChat channel started on a random port" test -n "$PORT"
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'wx_api_key = %s\nwx_appid = wx_made_up_app\nwx_mch_id = 1900000109\n' "$KEY" \
	> "$XDG_CONFIG_HOME/frontdesk/secrets")
# the shop bills in yuan, as a shop on this channel does
echo "currency = CNY" > "$XDG_CONFIG_HOME/frontdesk/config"
fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
for t in 1 2 3; do
	fd job add --customer 1 --title "Job $t" >/dev/null
	fd item add --job $t --description "Work $t" --price 100 >/dev/null
	fd invoice issue --jobs $t >/dev/null
done
fd channel provider-set wx --url "$BASE" --adapter wechat >/dev/null

# Two orders paid at the channel (the fake's clock: the test's noon, in
# China 20:00 the same day) and posted through the order query.
O1=$(fd --json channel charge --invoice INV-2026-000001 --amount 60 | jget 'd["order_no"]')
O2=$(fd --json channel charge --invoice INV-2026-000002 --amount 30 | jget 'd["order_no"]')
fd channel deliver --once --all >/dev/null
ctl "trade/$O1" "{\"state\": \"SUCCESS\", \"time\": $NOW}" >/dev/null
ctl "trade/$O2" "{\"state\": \"SUCCESS\", \"time\": $((NOW + 60))}" >/dev/null
fd channel query --once --all >/dev/null
fd channel process --once >/dev/null
is "both orders paid and posted" \
	"$(order "$O1" | cut -d'|' -f1) $(order "$O2" | cut -d'|' -f1) $(db "SELECT count(*) FROM payment")" "paid paid 2"

out=$(fd --json recon run --date "$DAY" --channel wx)
is "a clean day: both lines matched, no difference" \
	"$(echo "$out" | jget 'd["lines"], d["matched"], d["diffs_new"], d["open"], d["balanced"]')" \
	"2 2 0 0 True"
ok "the bill of that one China day was downloaded" \
	test "$(ctl log '{}' | jget 'sum(1 for r in d["log"] if r["path"] == "/pay/downloadbill")')" -ge 1

# A trade on the channel's own page the shop never asked for: 45.50 CNY.
ctl foreign_trade "{\"no\": \"FOREIGN-1\", \"fee\": 4550, \"time\": $((NOW + 120))}" >/dev/null
out=$(fd --json recon run --date "$DAY" --channel wx)
is "the trade only the channel has: one channel_only difference" \
	"$(echo "$out" | jget 'd["lines"], d["matched"], d["diffs_new"], d["open"], d["balanced"]')" \
	"3 2 1 1 False"
is "it is for the trade's amount, under its order number" \
	"$(db "SELECT kind, channel_amount, state FROM reconciliation_diff")" "channel_only|4550|open"
out=$(fd --json recon run --date "$DAY" --channel wx)
is "run again: nothing new, the one difference seen again" \
	"$(echo "$out" | jget 'd["diffs_new"], d["diffs_seen"], d["open"]')" "0 1 1"
is "still one difference row" "$(db "SELECT count(*) FROM reconciliation_diff")" 1

D=$(db "SELECT id FROM reconciliation_diff")
fd recon resolve "$D" --record --customer 1 --invoice INV-2026-000003:45.50 \
	--note "paid on the channel's page at the counter" >/dev/null 2>"$TMP/err"
is "recorded from the line" "$?|$(cat "$TMP/err")" "0|"
is "one payment more, allocated to the third invoice" \
	"$(db "SELECT count(*) FROM payment")|$(db "SELECT sum(a.amount) FROM payment_allocation a JOIN invoice i ON i.id = a.invoice_id WHERE i.number = 'INV-2026-000003'")" \
	"3|4550"
out=$(fd --json recon run --date "$DAY" --channel wx)
is "the next run of the day is clean" \
	"$(echo "$out" | jget 'd["diffs_new"], d["open"], d["balanced"]')" "0 0 True"
ok "frontdesk check is clean" fd check
done_testing
