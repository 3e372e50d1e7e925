#!/bin/sh
# chan-wechat.sh - a card payment through the WeChat Pay style channel
# (src/chan-wechat.c), against its fake (tests/chan/fake-wechat.py): the order
# is created at the channel; its payment notify, relayed through
# `frontdesk inbox ingest --source wx`, arrives twice and out of order and
# is posted once, and each notify is answered with the SUCCESS XML on
# stdout; a lost notify is found by the order query; a notify with a bad
# signature is refused and kept as rejected; a refund is sent once and
# posted when the channel says it succeeded; refund notifies (their
# req_info encrypted with the merchant key) become refund events about our
# refund key: a success is not posted twice, a failure is recorded for the
# right order; a req_info that does not decrypt (another key, not base64,
# truncated, not encrypted) is refused and kept as rejected; `frontdesk
# check` stays clean.
# Every key here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=made_up_wechat_merchant_key_0123
FAKE_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
fake_run fake-wechat.py 120 --key "$KEY"
ok "the fake WeChat channel started on a random port" test -n "$PORT"
# relay: hand each notify the fake queued to frontdesk, as a web hook in
# front of the shop would; prints the exit status of each ingest, one a
# line; what frontdesk answered goes to $TMP/answers
relay() {
	: > "$TMP/answers"
	ctl notifies '{}' | python3 -c '
import json, sys
ns = json.load(sys.stdin)["notifies"]
for i, x in enumerate(ns):
    open(sys.argv[1] + "/n%d.xml" % i, "w").write(x)
print(len(ns))' "$TMP" > "$TMP/count"
	n=$(cat "$TMP/count")
	i=0
	while [ "$i" -lt "$n" ]; do
		fd inbox ingest --source wx < "$TMP/n$i.xml" >> "$TMP/answers" 2>>"$TMP/ingest.err"
		echo $?
		rm -f "$TMP/n$i.xml"
		i=$((i + 1))
	done
}

mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'wx_api_key = %s\nwx_appid = wx_made_up_app\nwx_mch_id = 1900000109\n' "$KEY" \
	> "$XDG_CONFIG_HOME/frontdesk/secrets")
fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
for t in 1 2; do
	fd job add --customer 1 --title "Job $t" >/dev/null
	fd item add --job $t --description "Work $t" --price 100 >/dev/null
	fd invoice issue --jobs $t >/dev/null
done
fd channel provider-set wx --url "$BASE" --adapter wechat >/dev/null
is "the provider speaks through the WeChat adapter" \
	"$(fd --json channel providers | jget 'd["providers"][0]["settings"]')" '{"adapter":"wechat"}'

# --- Created at the channel; the notify twice and out of order: posted once ----
O1=$(fd --json channel charge --invoice INV-2026-000001 --amount 60 | jget 'd["order_no"]')
fd channel deliver --once --all >/dev/null
is "the order is at the channel under our order number" "$(order "$O1")|$(db "SELECT channel_order_id FROM pay_order WHERE order_no = '$O1'")" "paying|-|0|$O1"
ctl mode '{"duplicate": true, "reorder": true}' >/dev/null
ctl "trade/$O1" '{"state": "SUCCESS"}' >/dev/null
O2=$(fd --json channel charge --invoice INV-2026-000002 --amount 30 | jget 'd["order_no"]')
fd channel deliver --once --all >/dev/null
ctl "trade/$O2" '{"state": "SUCCESS"}' >/dev/null
st=$(relay | sort -u | tr '\n' ' ')
is "four notifies relayed (two orders, each twice, shuffled), each accepted" "$(cat "$TMP/count")|$st" "4|0 "
is "each notify answered with the SUCCESS XML" \
	"$(grep -o '<return_code><!\[CDATA\[SUCCESS\]\]></return_code>' "$TMP/answers" | wc -l)" 4
is "stored once per notify, as received" \
	"$(db "SELECT count(*), count(DISTINCT external_id) FROM inbound_callback WHERE source_system = 'wx'")" "2|2"
out=$(fd --json channel process --once)
is "two payments posted" "$(echo "$out" | jget 'd["payments"]')" 2
is "one payment per order, for its amount" \
	"$(db "SELECT group_concat(n, ' ') FROM (SELECT count(*) n FROM payment WHERE reference IN ('$O1', '$O2') GROUP BY reference)")|$(db "SELECT sum(amount) FROM payment")" "1 1|9000"
ok "the first order is paid" test "$(order "$O1" | cut -d'|' -f1)" = paid
is "nothing more to relay" "$(relay | wc -l)" 0
fd channel process --once >/dev/null
is "nothing posted twice" "$(db "SELECT count(*) FROM payment")" 2
ctl mode '{"duplicate": false, "reorder": false}' >/dev/null

# --- A lost notify: found by the order query ------------------------------------
fd job add --customer 1 --title "Job 3" >/dev/null
fd item add --job 3 --description "Work 3" --price 100 >/dev/null
fd invoice issue --jobs 3 >/dev/null
O3=$(fd --json channel charge --invoice INV-2026-000003 --amount 100 | jget 'd["order_no"]')
fd channel deliver --once --all >/dev/null
ctl mode '{"lose": true}' >/dev/null
ctl "trade/$O3" '{"state": "SUCCESS"}' >/dev/null
is "its notify is lost" "$(relay | wc -l)" 0
fd channel process --once >/dev/null
is "no notify: nothing posted" "$(db "SELECT count(*) FROM payment WHERE reference = '$O3'")" 0
fd channel query --once --all >/dev/null
fd channel process --once >/dev/null
is "the order query found it paid and it was posted once" \
	"$(db "SELECT count(*) FROM payment WHERE reference = '$O3'")|$(order "$O3" | cut -d'|' -f1)" "1|paid"
is "stored as a found state in frontdesk's own shape" \
	"$(db "SELECT event_type, status FROM inbound_callback WHERE external_id = 'query:$O3:succeeded'")" "frontdesk.order.succeeded|processed"
ctl mode '{"lose": false}' >/dev/null

# --- A bad signature: refused, kept as rejected ---------------------------------
ctl mode '{"bad_sign": true}' >/dev/null
ctl "trade/$O3" '{"state": "SUCCESS"}' >/dev/null
is "a badly signed notify is refused" "$(relay | tr '\n' ' ')" "1 "
like "with the reason" "$(cat "$TMP/ingest.err")" "signature does not match"
is "kept as rejected, never processed" \
	"$(db "SELECT count(*) FROM inbound_callback WHERE source_system = 'wx' AND status = 'rejected' AND external_id LIKE 'rejected:%'")" 1
ctl mode '{"bad_sign": false}' >/dev/null

# --- A refund -----------------------------------------------------------------------
fd channel refund "$O1" --amount 25 >/dev/null
fd channel deliver --once --all >/dev/null
fd channel deliver --once --all >/dev/null
is "the refund was sent once" "$(ctl log '{}' | jget 'sum(1 for e in d["log"] if e["path"] == "/secapi/pay/refund")')" 1
fd channel process --once --all >/dev/null
is "while the channel processes it, nothing is posted" "$(db "SELECT count(*) FROM refund")" 0
RK=$(db "SELECT json_extract(payload, '\$.data.object.id') FROM inbound_callback WHERE external_id LIKE 'answer:%'")
ctl "refund/$RK" '{"status": "SUCCESS"}' >/dev/null
fd channel process --once --all >/dev/null
is "once it succeeded: one refund posted, the order being refunded" \
	"$(db "SELECT count(*), sum(amount) FROM refund")|$(order "$O1" | cut -d'|' -f1,3)" "1|2500|refunding|2500"

# --- Refund notifies: req_info decrypted, a refund event for our refund key ----------
is "the refund's notify (queued when it succeeded) is accepted" "$(relay | tr '\n' ' ')" "0 "
is "answered with the SUCCESS XML" \
	"$(grep -c '<return_code><!\[CDATA\[SUCCESS\]\]></return_code>' "$TMP/answers")" 1
is "stored as a refund event about our refund key" \
	"$(db "SELECT event_type, object_id, status, integration_type FROM inbound_callback WHERE external_id = 'refund-notify:$RK:SUCCESS'")" \
	"wechat.refund.notify.SUCCESS|$RK|received|payment"
is "inbox show names its integration type" \
	"$(fd --json inbox show "$(db "SELECT id FROM inbound_callback WHERE external_id = 'refund-notify:$RK:SUCCESS'")" | jget 'd["integration_type"]')" payment
fd channel process --once --all >/dev/null
is "processed; the refund it reports was posted already: not twice" \
	"$(db "SELECT status FROM inbound_callback WHERE external_id = 'refund-notify:$RK:SUCCESS'" | sed 's/ignored/processed/')|$(db "SELECT count(*), sum(amount) FROM refund")" \
	"processed|1|2500"
fd channel refund "$O2" --amount 10 >/dev/null
deliver
RK2=$(db "SELECT json_extract(payload, '\$.data.object.id') FROM inbound_callback WHERE external_id LIKE 'answer:%' AND external_id <> 'answer:$RK'")
ok "a second refund is at the channel" test -n "$RK2"
ctl "refund/$RK2" '{"status": "CHANGE"}' >/dev/null
is "its failure's notify is accepted" "$(relay | tr '\n' ' ')" "0 "
is "a refund event that says failed" \
	"$(db "SELECT event_type, object_id FROM inbound_callback WHERE external_id = 'refund-notify:$RK2:CHANGE'")" \
	"wechat.refund.notify.CHANGE|$RK2"
fd channel process --once --all >/dev/null
is "the refund failed is recorded for the right order, which is paid again" \
	"$(db "SELECT o.order_no, f.amount, f.asked_by_us FROM pay_order_refund_failed f JOIN pay_order o ON o.id = f.order_id")|$(order "$O2" | cut -d'|' -f1,3)" \
	"$O2|1000|1|paid|0"
is "nothing refunded for it" "$(db "SELECT count(*) FROM refund")" 1

# --- A req_info that does not decrypt: refused, kept as rejected, never read ---------
before=$(db "SELECT count(*) FROM inbound_callback WHERE status = 'rejected'")
for how in other_key garbage truncated plain; do
	ctl mode "{\"bad_req_info\": \"$how\"}" >/dev/null
	ctl "refund/$RK2" '{"status": "CHANGE"}' >/dev/null
	is "a refund notify with a req_info that is $how is refused" "$(relay | tr '\n' ' ')" "1 "
done
ctl mode '{"bad_req_info": ""}' >/dev/null
like "with the reason" "$(cat "$TMP/ingest.err")" "req_info"
is "each kept as rejected under its digest" \
	"$(db "SELECT count(*) FROM inbound_callback WHERE status = 'rejected' AND external_id LIKE 'rejected:%'")" "$((before + 4))"
fd channel process --once --all >/dev/null
is "nothing was applied" "$(db "SELECT count(*) FROM refund")|$(db "SELECT count(*) FROM pay_order_refund_failed")" "1|1"
ok "frontdesk check is clean" fd check
done_testing
