#!/bin/sh
# contract-wechat.sh - the WeChat Pay style channel against a fake written from
# the published WeChat Pay v2 documents alone (tests/chan/contract/fake-wechat-v2.py;
# every rule and its source: tests/chan/contract/wechat-v2-contract.md), not from
# the adapter. Cases: a NATIVE order (product_id), SUCCESS found by query and
# by notify (one payment, invoice paid), CLOSED and REVOKED close the order,
# NOTPAY and USERPAYING stay paying, PAYERROR stays paying as a failed
# attempt, a notify with no sign_type signed with MD5, a refund PROCESSING for
# a while then SUCCESS (posted once, never given up), `frontdesk check` clean.
#
# A case where today's adapter disagrees with the documents is marked
# "# TODO adapter disagrees with <doc>" (an expected failure, XFAIL); when the
# adapter is fixed it passes as XPASS, which fails the suite: remove the TODO.
# Never settle a disagreement by changing the fake: the documents decide.
# Every id and key here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
# the reading of the provider's contract is the same in every build: the
# sanitized build runs the WeChat Pay style channel's adapter under chan-*.sh, this check once
once_per_tree "the WeChat Pay style channel's contract"

APPID=wx0000000000made0
MCH=1900000042
KEY=made_up_merchant_key_for_tests_0
FAKE_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
# a signal (a closed pipe too) still stops the fake: exit runs the EXIT trap
trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 141' PIPE; trap 'exit 143' TERM

# -- TODO directives (a failing case inside todo/endtodo is XFAIL) ---------
. "$TOP_SRCDIR/tests/chan/contract/todo.sh"

# -- helpers -------------------------------------------------------------------
db() { sqlite3 "$FRONTDESK_DB" "$1"; }
# ctl WHAT JSON: POST to the fake's control interface, print the answer body
ctl() {
	python3 - "$BASE/_control/$1" "$2" <<'EOF'
import sys, urllib.request
req = urllib.request.Request(sys.argv[1], data=sys.argv[2].encode(), method="POST")
sys.stdout.write(urllib.request.urlopen(req, timeout=10).read().decode())
EOF
}
# reqlog PATH EXPR: evaluate EXPR (python, p = the params) over every logged
# request to PATH; print one line per request
reqlog() {
	python3 - "$BASE/_control/log" "$1" "$2" <<'EOF'
import json, sys, urllib.request
log = json.load(urllib.request.urlopen(sys.argv[1], timeout=10))
for e in log:
    if e["path"] == sys.argv[2]:
        p = e["params"] or {}
        a = e["answer"] or {}
        print(eval(sys.argv[3]))
EOF
}
jget() { python3 -c 'import json,sys; d=json.load(sys.stdin); print('"$1"')'; }
charge() { fd --json channel charge --invoice "$1" --amount "$2" | jget 'd["order_no"]'; }
deliver() { fd channel deliver --once --all >/dev/null 2>&1; }
query() { fd channel query --once --all >/dev/null 2>&1; }
process() { fd channel process --once --all >/dev/null 2>&1; }
status() { db "SELECT status FROM pay_order WHERE order_no = '$1'"; }
inv() { db "SELECT paid, balance, status FROM invoice WHERE number = '$1'"; }
payments() { db "SELECT count(*) FROM pay_order o JOIN payment p ON p.id = o.payment_id WHERE o.order_no = '$1'"; }
order_state() { ctl order "{\"out_trade_no\": \"$1\", \"trade_state\": \"$2\"}" >/dev/null; }
# status_is ORDER WANT: the order's status is WANT
status_is() { [ "$(status "$1")" = "$2" ]; }
# No waiting anywhere: each step is an explicit command (deliver, query,
# process, ingest) run a fixed number of times, with --all so that no retry
# delay of the adapter matters, and the app's clock override for "days later".
OK_ANSWER='<xml><return_code><![CDATA[SUCCESS]]></return_code><return_msg><![CDATA[OK]]></return_msg></xml>'

# -- the fake channel and the provider ------------------------------------------
python3 "$TOP_SRCDIR/tests/chan/contract/fake-wechat-v2.py" --port-file "$TMP/port" \
	--appid "$APPID" --mch-id "$MCH" --key "$KEY" 2>"$TMP/fake.err" &
FAKE_PID=$!
until_ok 30 test -s "$TMP/port"
PORT=$(cat "$TMP/port" 2>/dev/null)
BASE="http://127.0.0.1:$PORT"
ok "the v2 fake started on 127.0.0.1" test -n "$PORT"
# the fake itself follows the documents: the signature example of 4_3
is "the fake's sign reproduces the MD5 and HMAC-SHA256 examples of the signature rules (4_3)" "$(python3 - "$TOP_SRCDIR/tests/chan/contract/fake-wechat-v2.py" <<'EOF'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("fake", sys.argv[1])
f = importlib.util.module_from_spec(spec)
spec.loader.exec_module(f)
p = dict(appid="wxd930ea5d5a258f4f", mch_id="10000100", device_info="1000", body="test",
         nonce_str="ibuaiVcKdpRxkhJA", empty="")
k = "192006250b4c09247ec02edce69f6a2d"
print(f.make_sign(p, k, "MD5"), f.make_sign(p, k, "HMAC-SHA256"))
EOF
)" "9A0A8659F005D6984697E2CA0A9CF3B7 6A9AE1657590FD6257D693A078E1C3E4BB6BA4DC30B23E0EE2496E54170DACD6"

mkdir -p "$XDG_CONFIG_HOME/frontdesk"
SECRETS="$XDG_CONFIG_HOME/frontdesk/secrets"
printf 'wx_api_key = %s\nwx_appid = %s\nwx_mch_id = %s\n' "$KEY" "$APPID" "$MCH" > "$SECRETS"
chmod 600 "$SECRETS"

# the v2 (domestic) API speaks fen of CNY (fee_type, default CNY): the shop bills in CNY
printf 'currency = CNY\n' > "$XDG_CONFIG_HOME/frontdesk/config"
fd init >/dev/null
fd customer add --name "Lin Wei" >/dev/null
N_INV=12
for t in $(seq 1 $N_INV); do
	fd job add --customer 1 --title "Job $t" >/dev/null
	fd item add --job "$t" --description "Work $t" --price 100 >/dev/null
	fd invoice issue --jobs "$t" >/dev/null
done
INV() { printf 'INV-2026-%06d' "$1"; }
fd channel provider-set wx --url "$BASE" --adapter wechat >/dev/null
is "a WeChat style provider points at the fake" "$(db "SELECT base_url FROM integration_provider WHERE provider_code = 'wx'")" "$BASE"

# --- 1. A NATIVE order: unifiedorder ------------------------------------------
O1=$(charge "$(INV 1)" 100)
deliver
is "one unifiedorder request reached the channel" "$(reqlog /pay/unifiedorder 'p.get("out_trade_no")' | grep -c "^$O1\$")" 1
is "its signature verifies by the docs' algorithm (sign_type named or MD5)" \
	"$(reqlog /pay/unifiedorder 'e["sign_ok"]' | sort -u)" "True"
is "it asks for trade_type NATIVE" "$(reqlog /pay/unifiedorder 'p.get("trade_type")' | sort -u)" "NATIVE"
is "it carries every parameter the docs require" \
	"$(reqlog /pay/unifiedorder 'all(p.get(k) for k in ("appid","mch_id","nonce_str","sign","body","out_trade_no","total_fee","spbill_create_ip","notify_url","trade_type"))' | sort -u)" "True"
is "total_fee is the amount in minor units" "$(reqlog /pay/unifiedorder 'p.get("total_fee")' | sort -u)" "10000"
is "it carries product_id, required when trade_type=NATIVE" \
	"$(reqlog /pay/unifiedorder 'bool(p.get("product_id"))' | sort -u)" "True"
ok "the order is open at the channel: paying, its page the Native code_url" \
	test "$(db "SELECT status || ' ' || substr(coalesce(page_url, ''), 1, 9) FROM pay_order WHERE order_no = '$O1'")" = "paying weixin://"

# --- 2. SUCCESS found by orderquery ------------------------------------------
O2=$(charge "$(INV 2)" 100)
deliver
ok "the order exists at the channel" test -n "$(reqlog /pay/unifiedorder 'a.get("result_code") == "SUCCESS" and p.get("out_trade_no")' | grep -x "$O2")"
order_state "$O2" SUCCESS 2>/dev/null
query; query
ok "SUCCESS by query: the order is paid" status_is "$O2" paid
is "one card payment posted, the invoice paid" "$(payments "$O2") $(inv "$(INV 2)")" "1 10000|0|paid"
query; process
ok "asking again posts nothing more" test "$(payments "$O2")" -le 1

# --- 3. SUCCESS by the payment notify (sign_type HMAC-SHA256 named) ------------
O3=$(charge "$(INV 3)" 100)
deliver
N3=$(ctl notify/pay "{\"out_trade_no\": \"$O3\", \"result_code\": \"SUCCESS\", \"sign_type\": \"HMAC-SHA256\"}" 2>/dev/null)
ok "the fake made a payment notify" test -n "$N3"
out=$(printf '%s' "$N3" | fd inbox ingest --source wx 2>"$TMP/err"); st=$?
is "the notify (HMAC-SHA256, sign_type named) is taken: exit 0" "$st" 0
is "the answer the channel waits for, alone on stdout" "$out" "$OK_ANSWER"
process; query; process
ok "SUCCESS by notify: the order is paid" status_is "$O3" paid
is "one card payment posted, the invoice paid" "$(payments "$O3") $(inv "$(INV 3)")" "1 10000|0|paid"
printf '%s' "$N3" | fd inbox ingest --source wx >/dev/null 2>&1
process; query; process
ok "the same notify again stores nothing new" \
	test "$(db "SELECT count(*) FROM inbound_callback WHERE source_system = 'wx' AND event_type NOT LIKE 'frontdesk.%' AND payload LIKE '%$O3%'")" -le 1
ok "the same notify again posts nothing more" test "$(payments "$O3")" -le 1

# --- 4. A notify without sign_type, signed with MD5 (the documented default) ---
O4=$(charge "$(INV 4)" 100)
deliver
N4=$(ctl notify/pay "{\"out_trade_no\": \"$O4\", \"result_code\": \"SUCCESS\", \"sign_type\": null}" 2>/dev/null)
ok "the notify has no sign_type field" test -n "$N4" -a -z "$(printf '%s' "$N4" | grep sign_type)"
out=$(printf '%s' "$N4" | fd inbox ingest --source wx 2>"$TMP/err"); st=$?
is "the MD5 notify without sign_type is taken: exit 0" "$st" 0
is "and answered SUCCESS" "$out" "$OK_ANSWER"
process; query; process
ok "the order is paid" status_is "$O4" paid
is "one card payment posted" "$(payments "$O4")" 1
# a notify whose sign does not verify is never believed
BAD=$(printf '%s' "$N4" | sed 's/<sign><!\[CDATA\[\(.\)/<sign><![CDATA[0/')
[ "$BAD" = "$N4" ] && BAD=$(printf '%s' "$N4" | sed 's/<sign><!\[CDATA\[\(.\)/<sign><![CDATA[1/')
out=$(printf '%s' "$BAD" | fd inbox ingest --source wx 2>/dev/null); st=$?
is "a notify with a bad sign: exit 1, nothing on stdout" "$st:$out" "1:"

# --- 5. CLOSED and REVOKED at the channel: frontdesk closes the order ----------
O5=$(charge "$(INV 5)" 100); O6=$(charge "$(INV 6)" 100)
deliver
order_state "$O5" CLOSED 2>/dev/null
order_state "$O6" REVOKED 2>/dev/null
query; process; query; process
ok "CLOSED at the channel: the order is closed" status_is "$O5" closed
ok "REVOKED at the channel: the order is closed" status_is "$O6" closed
is "no payment for either" "$(payments "$O5") $(payments "$O6")" "0 0"

# --- 6. NOTPAY and USERPAYING stay paying; PAYERROR is a failed attempt --------
O7=$(charge "$(INV 7)" 100); O8=$(charge "$(INV 8)" 100); O9=$(charge "$(INV 9)" 100)
deliver
order_state "$O8" USERPAYING 2>/dev/null
order_state "$O9" PAYERROR 2>/dev/null
query; process; query; process
ok "NOTPAY: the order stays paying" status_is "$O7" paying
ok "USERPAYING: the order stays paying" status_is "$O8" paying
ok "PAYERROR: the order stays paying (the buyer may pay again)" status_is "$O9" paying
ok "PAYERROR is reported as a failed attempt (the order keeps the reason, or a declined event)" \
	test -n "$(db "SELECT coalesce(last_error, '') FROM pay_order WHERE order_no = '$O9'")$(db "SELECT id FROM inbound_callback WHERE event_type = 'frontdesk.order.declined' AND object_id LIKE '%$O9%'")"
is "no payment for any of them" "$(payments "$O7") $(payments "$O8") $(payments "$O9")" "0 0 0"

# --- 7. A refund PROCESSING for a while, then SUCCESS ---------------------------
# The order of case 2 was paid (if the adapter got it there). Refund it; the
# fake answers PROCESSING (退款处理中, not an end) to every refundquery until told.
ctl refund_default '{"refund_status": "PROCESSING", "processing_queries": 0}' >/dev/null
if [ "$(status "$O2")" = paid ]; then
	fd channel refund "$O2" >/dev/null 2>&1
	deliver
fi
refunds_of() { db "SELECT count(*) FROM refund r JOIN pay_order o ON o.payment_id = r.payment_id WHERE o.order_no = '$1' AND r.status = '$2'"; }
pending_ok() {
	[ "$(status "$1")" = refunding ] && [ "$(refunds_of "$1" succeeded)" = 0 ] && [ "$(refunds_of "$1" failed)" = 0 ] &&
		[ "$(db "SELECT count(*) FROM inbound_callback WHERE object_id LIKE '%$1%' AND status IN ('dead', 'rejected')")" = 0 ]
}
is "one refund request reached the channel, with out_refund_no, total_fee and refund_fee" \
	"$(reqlog /secapi/pay/refund 'p.get("out_trade_no") == "'"$O2"'" and all(p.get(k) for k in ("out_refund_no","total_fee","refund_fee")) and e["sign_ok"]' | grep -c True)" 1
for i in 1 2 3 4 5 6 7 8 9 10; do query; process; done
# a few days later, still PROCESSING at the channel
FRONTDESK_NOW=2026-12-04T09:00 fd channel query --once --all >/dev/null 2>&1
FRONTDESK_NOW=2026-12-04T09:00 fd channel process --once --all >/dev/null 2>&1
ok "while PROCESSING: the order stays refunding, nothing posted, nothing failed or dead" pending_ok "$O2"
ok "the channel was asked about the refund again and again (refundquery)" \
	test "$(reqlog /pay/refundquery 'a.get("refund_status_0")' | grep -c PROCESSING)" -ge 2
ctl refund '{"out_refund_no": "*", "refund_status": "SUCCESS"}' >/dev/null 2>&1
for i in 1 2 3; do query; process; done
is "SUCCESS: the refund is posted once, the order refunded" "$(status "$O2") $(refunds_of "$O2" succeeded)" "refunded 1"
for i in 1 2 3; do query; process; done
ok "asking again never posts it twice" test "$(refunds_of "$O2" succeeded)" -le 1

# --- 8. The refund result notify (req_info AES-256-ECB) -------------------------
if [ "$(status "$O3")" = paid ]; then
	fd channel refund "$O3" --amount 40 >/dev/null 2>&1
	deliver
fi
st=; out=; NR=
R3=$(reqlog /secapi/pay/refund 'a.get("result_code") == "SUCCESS" and p.get("out_trade_no") == "'"$O3"'" and p.get("out_refund_no")' | grep -v False | head -n 1)
if [ -n "$R3" ]; then
	NR=$(ctl notify/refund "{\"out_refund_no\": \"$R3\", \"refund_status\": \"SUCCESS\"}")
	out=$(printf '%s' "$NR" | fd inbox ingest --source wx 2>/dev/null); st=$?
	process; process
fi
is "the refund notify (req_info decrypted with md5(key)) is taken and answered" "${st:-}:${out:-}" "0:$OK_ANSWER"
is "the partial refund is posted once" \
	"$(db "SELECT count(*), sum(r.amount) FROM refund r JOIN pay_order o ON o.payment_id = r.payment_id WHERE o.order_no = '$O3' AND r.status = 'succeeded'")" "1|4000"
# a req_info made with another key is refused and stored rejected
NX=$(printf '%s' "${NR:-<xml><return_code>SUCCESS</return_code><appid>$APPID</appid><mch_id>$MCH</mch_id><nonce_str>x</nonce_str><req_info>AAAA</req_info></xml>}" | \
	sed 's|<req_info><!\[CDATA\[[^]]*\]\]></req_info>|<req_info><![CDATA[bm90IGVuY3J5cHRlZCB3aXRoIHRoZSBrZXkgYXQgYWxsIQ==]]></req_info>|')
out=$(printf '%s' "$NX" | fd inbox ingest --source wx 2>/dev/null); st=$?
is "a req_info that does not decrypt with the merchant key: exit 1, nothing on stdout" "$st:$out" "1:"

# --- 9. The answers the fake gave were the docs' ------------------------------
is "no answer of the fake carried sign_type (the docs list none)" \
	"$(for p in /pay/unifiedorder /pay/orderquery /pay/closeorder /secapi/pay/refund /pay/refundquery; do reqlog "$p" '"sign_type" in a'; done | sort -u | grep -c True)" 0

ok "frontdesk check is clean" fd check
done_testing
