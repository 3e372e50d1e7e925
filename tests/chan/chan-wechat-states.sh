#!/bin/sh
# chan-wechat-states.sh - the WeChat Pay style channel as its v2 pages say
# it answers (tests/chan/fake-wechat.py): answers that name no sign_type (signed
# with the request's type) are believed; a NATIVE order names product_id;
# the provider's sign type (HMAC-SHA256 by default, MD5 when the merchant
# account is set up so) signs requests and verifies answers (one naming
# another type is refused); a payment notify naming no sign_type is
# MD5-signed and taken, whatever the account's type; orderquery names no total_fee but for SUCCESS, and still:
# CLOSED and REVOKED close the order, NOTPAY and USERPAYING leave it paying,
# PAYERROR (notified without total_fee, or found by asking) leaves it
# paying and is shown as
# "the last attempt failed" by `channel status`; a notify about a CLOSED
# order closes it; a second partial refund (the order in REFUND, whose
# query names no total) is asked with the total refundquery names; a
# channel that disagrees about the amount names the order, not "invoice 0";
# `frontdesk check` reports nothing false.
# Every key here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=made_up_wechat_merchant_key_4567
P1= P2=
trap '[ -n "$P1" ] && kill "$P1" 2>/dev/null; [ -n "$P2" ] && kill "$P2" 2>/dev/null; rm -rf "$TMP"' EXIT
fake_run fake-wechat.py 120 --key "$KEY"
P1=$FAKE_PID B1=$BASE
fake_run fake-wechat.py 120 --key "$KEY" --sign-type MD5
P2=$FAKE_PID B2=$BASE
ok "two fake WeChat channels started (HMAC-SHA256 and MD5 accounts)" test -n "$B1" -a -n "$B2"

# relay SOURCE: hand each notify the fake at $BASE queued to frontdesk as
# SOURCE; prints the exit status of each ingest, one a line
relay() {
	ctl notifies '{}' | python3 -c '
import json, sys
ns = json.load(sys.stdin)["notifies"]
for i, x in enumerate(ns):
    open(sys.argv[1] + "/n%d.xml" % i, "w").write(x)
print(len(ns))' "$TMP" > "$TMP/count"
	n=$(cat "$TMP/count")
	i=0
	while [ "$i" -lt "$n" ]; do
		fd inbox ingest --source "$1" < "$TMP/n$i.xml" > /dev/null 2>"$TMP/ingest.err"
		echo $?
		i=$((i + 1))
	done
}
# new_order PROVIDER INVOICE AMOUNT: a card order sent to the channel
new_order() {
	o=$(fd --json channel charge --provider "$1" --invoice "$2" --amount "$3" | jget 'd["order_no"]')
	fd channel deliver --once --all --provider "$1" >/dev/null
	echo "$o"
}
settle() {
	fd channel query --once --all --provider "$1" >/dev/null
	fd channel process --once --all --provider "$1" >/dev/null
}
qc() { db "SELECT query_count FROM pay_order WHERE order_no = '$1'"; }

mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf '%s_api_key = %s\n%s_appid = wx_made_up_app\n%s_mch_id = 1900000109\n' \
	wx "$KEY" wx wx wm "$KEY" wm wm > "$XDG_CONFIG_HOME/frontdesk/secrets")
fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
for t in 1 2 3 4 5 6 7 8 9 10 11; do
	fd job add --customer 1 --title "Job $t" >/dev/null
	fd item add --job $t --description "Work $t" --price 100 >/dev/null
	fd invoice issue --jobs $t >/dev/null
done
fd channel provider-set wx --url "$B1" --adapter wechat >/dev/null
refused "a sign type that is neither HMAC-SHA256 nor MD5 is refused" \
	channel provider-set wm --url "$B2" --adapter wechat --sign-type SHA1
fd channel provider-set wm --url "$B2" --adapter wechat --sign-type MD5 --role backup >/dev/null
is "the provider keeps its sign type in its settings" \
	"$(fd --json channel providers | jget '[p["settings"] for p in d["providers"] if p["code"] == "wm"][0]')" \
	'{"adapter":"wechat","sign_type":"MD5"}'

# --- An HMAC-SHA256 account: answers name no sign_type ------------------------------
BASE=$B1
O1=$(new_order wx INV-2026-000001 100)
is "unifiedorder's answer (no sign_type) is believed: the order is paying" "$(order "$O1")" "paying|-|0"
is "the NATIVE order named its product_id" \
	"$(ctl state '{}' | jget "d['trades']['$O1']['product_id']")" "$O1"

# --- CLOSED and REVOKED close the order; NOTPAY and USERPAYING leave it paying --------
O2=$(new_order wx INV-2026-000002 100)
O3=$(new_order wx INV-2026-000003 100)
O4=$(new_order wx INV-2026-000004 100)
O5=$(new_order wx INV-2026-000005 100)
ctl "trade/$O2" '{"state": "CLOSED"}' >/dev/null
ctl "trade/$O3" '{"state": "REVOKED"}' >/dev/null
ctl "trade/$O4" '{"state": "NOTPAY"}' >/dev/null
ctl "trade/$O5" '{"state": "USERPAYING"}' >/dev/null
settle wx
is "CLOSED closes the order" "$(order "$O2")" "closed|-|0"
is "REVOKED closes the order" "$(order "$O3")" "closed|-|0"
is "NOTPAY leaves it paying" "$(order "$O4")" "paying|-|0"
is "USERPAYING leaves it paying" "$(order "$O5")" "paying|-|0"
is "the states found were applied, none refused" \
	"$(db "SELECT count(*) FROM inbound_callback WHERE status = 'processed' AND external_id IN ('query:$O2:canceled', 'query:$O3:canceled')")|$(db "SELECT count(*) FROM inbound_callback WHERE status IN ('dead', 'failed', 'rejected')")" \
	"2|0"
q2=$(qc "$O2")
settle wx
is "a closed order is not queried again" "$(qc "$O2")" "$q2"

# --- PAYERROR: notified without total_fee; the order stays paying, the attempt failed -
O6=$(new_order wx INV-2026-000006 100)
ctl "trade/$O6" '{"state": "PAYERROR"}' >/dev/null
is "the PAYERROR notify (no total_fee) is accepted" "$(relay wx | tr '\n' ' ')" "0 "
fd channel process --once --all --provider wx >/dev/null
is "it was applied" "$(db "SELECT status FROM inbound_callback WHERE external_id = 'notify:$O6:PAYERROR'")" processed
is "the order stays paying" "$(order "$O6")" "paying|-|0"
like "channel status says the last attempt failed" "$(fd channel status --provider wx)" \
	"Order $O6 is paying: the last attempt failed"
is "and so does its --json" \
	"$(fd --json channel status --provider wx | jget '[x["order_no"] for x in d["attempt_failed"]]')" "['$O6']"
O11=$(new_order wx INV-2026-000011 100)
ctl mode '{"lose": true}' >/dev/null
ctl "trade/$O11" '{"state": "PAYERROR"}' >/dev/null
relay wx >/dev/null
ctl mode '{"lose": false}' >/dev/null
settle wx
is "PAYERROR found by asking (its notify lost): the order stays paying, its attempt failed" \
	"$(order "$O11")|$(db "SELECT last_error <> '' FROM pay_order WHERE order_no = '$O11'")" "paying|-|0|1"

# --- A notify about a CLOSED order closes it ------------------------------------------
ctl "trade/$O4" '{"state": "CLOSED", "notify": true}' >/dev/null
is "the notify about a CLOSED order is accepted" "$(relay wx | tr '\n' ' ')" "0 "
fd channel process --once --all --provider wx >/dev/null
is "and the order is closed" "$(order "$O4")" "closed|-|0"

# --- Two partial refunds: the second asked while the order is in REFUND ------------------
ctl "trade/$O1" '{"state": "SUCCESS"}' >/dev/null
relay wx >/dev/null
fd channel process --once --all --provider wx >/dev/null
is "the order is paid" "$(order "$O1" | cut -d'|' -f1)" paid
fd channel refund "$O1" --amount 20 >/dev/null
fd channel deliver --once --all --provider wx >/dev/null
fd channel refund "$O1" --amount 30 >/dev/null
fd channel deliver --once --all --provider wx >/dev/null
is "both refunds reached the channel, each once" \
	"$(ctl log '{}' | jget 'sum(1 for e in d["log"] if e["path"] == "/secapi/pay/refund")')|$(ctl state '{}' | jget "sorted(r['fee'] for r in d['refunds'].values())")" \
	"2|[2000, 3000]"
is "no outbox command died" "$(db "SELECT count(*) FROM outbox_event WHERE status = 'dead'")" 0
ok "frontdesk check is clean (no false refused event, no false stuck order)" fd check

# --- The channel disagrees about the amount: the message names the order ---------------
O7=$(new_order wx INV-2026-000007 100)
ctl "trade/$O7" '{"state": "SUCCESS", "fee": 12345, "attach": ""}' >/dev/null
relay wx >/dev/null
fd channel process --once --all --provider wx >/dev/null
err=$(db "SELECT last_error FROM inbound_callback WHERE external_id LIKE 'notify:%' AND status = 'dead'")
like "not posted: the event is dead, naming the order" "$err" "order $O7 is 10000 USD"
is "and no invoice 0" "$(echo "$err" | grep -c 'invoice 0')" 0
is "nothing posted for it" "$(db "SELECT count(*) FROM payment WHERE reference = '$O7'")" 0

# --- An MD5 account: requests, answers and notifies signed with MD5 -----------------------
BASE=$B2
O8=$(new_order wm INV-2026-000008 100)
is "the MD5 account's order is at its channel, paying" "$(order "$O8")" "paying|-|0"
ctl "trade/$O8" '{"state": "SUCCESS"}' >/dev/null
ctl mode '{"duplicate": true}' >/dev/null
relay wm > "$TMP/st"
is "its notify (naming no sign_type: MD5) is accepted" "$(tr '\n' ' ' < "$TMP/st")" "0 0 "
fd channel process --once --all --provider wm >/dev/null
is "and the order is paid, once" \
	"$(order "$O8" | cut -d'|' -f1)|$(db "SELECT count(*) FROM payment WHERE reference = '$O8'")" "paid|1"
ctl mode '{"duplicate": false}' >/dev/null

# --- An HMAC-SHA256 account: an MD5 notify naming no sign_type is taken ----------------
BASE=$B1
O9=$(new_order wx INV-2026-000009 100)
ctl mode '{"notify_md5": true}' >/dev/null
ctl "trade/$O9" '{"state": "SUCCESS"}' >/dev/null
is "an MD5 notify naming no sign_type is taken by an HMAC-SHA256 account (the notify page's default)" \
	"$(relay wx | tr '\n' ' ')" "0 "
fd channel process --once --all --provider wx >/dev/null
is "and the order is paid" "$(order "$O9" | cut -d'|' -f1)" paid
ctl mode '{"notify_md5": false, "bad_sign": true}' >/dev/null
ctl "trade/$O9" '{"state": "SUCCESS"}' >/dev/null
is "a notify signed with another key is still refused" "$(relay wx | tr '\n' ' ')" "1 "
# an answer naming another sign type than the request's is not believed
ctl mode '{"bad_sign": false, "answer_sign_type": "MD5"}' >/dev/null
O10=$(new_order wx INV-2026-000010 100)
like "an answer naming MD5 to an HMAC-SHA256 request is refused" \
	"$(db "SELECT last_error FROM outbox_event WHERE idempotency_key IS NOT NULL ORDER BY id DESC LIMIT 1")" \
	"signed with MD5, but the account is set up for HMAC-SHA256"
is "no order reached paying on it" "$(order "$O10" | cut -d'|' -f1)" created
ctl mode '{"answer_sign_type": ""}' >/dev/null
done_testing
