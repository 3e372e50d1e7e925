#!/bin/sh
# make-wechat-refund-vectors.sh - write tests/chan/wechat-refund-vectors.json:
# the req_info of a few WeChat Pay v2 refund notifies, encrypted by a real
# tool (openssl enc -aes-256-ecb), not by frontdesk. The rule: the
# plaintext <root>...</root> is encrypted with AES-256-ECB and PKCS#7
# padding (openssl's default), keyed with the 32 characters of the
# lower-case hex MD5 of the merchant key, and written as base64 on one
# line. Each vector says what frontdesk must read from it ("fields"), or
# that it must be refused ("refused"). Every key here is made up. Run by
# hand: sh tests/chan/make-wechat-refund-vectors.sh
set -eu
out=${1:-$(dirname "$0")/wechat-refund-vectors.json}
command -v openssl >/dev/null || { echo "make-wechat-refund-vectors.sh: openssl is needed" >&2; exit 2; }
# enc KEY PLAINTEXT: the base64 req_info of PLAINTEXT under merchant key KEY
enc() {
	aes=$(printf '%s' "$1" | openssl dgst -md5 | sed 's/^.*= //')
	hexkey=$(printf '%s' "$aes" | od -An -tx1 | tr -d ' \n')
	printf '%s' "$2" | openssl enc -aes-256-ecb -K "$hexkey" -base64 -A
}
root() { # root OUT_REFUND_NO OUT_TRADE_NO STATUS FEE
	printf '<root><out_refund_no><![CDATA[%s]]></out_refund_no><out_trade_no><![CDATA[%s]]></out_trade_no><refund_id><![CDATA[50000000382019052709732678859]]></refund_id><refund_fee><![CDATA[%s]]></refund_fee><total_fee><![CDATA[10000]]></total_fee><settlement_refund_fee><![CDATA[%s]]></settlement_refund_fee><refund_status><![CDATA[%s]]></refund_status><success_time><![CDATA[2026-12-01 09:00:00]]></success_time><refund_recv_accout><![CDATA[made up account]]></refund_recv_accout><refund_account><![CDATA[REFUND_SOURCE_RECHARGE_FUNDS]]></refund_account><refund_request_source><![CDATA[API]]></refund_request_source></root>' \
		"$1" "$2" "$4" "$4" "$3"
}
k1=made_up_merchant_key_0000000000a
k2=another_made_up_key_zzzzzzzzzzzz
{
	printf '[\n'
	printf '  {"key": "%s", "req_info": "%s",\n   "fields": {"out_refund_no": "fd_PO-000001-0a1b_r1", "out_trade_no": "PO-000001-0a1b", "refund_status": "SUCCESS", "refund_fee": "2500"}},\n' \
		"$k1" "$(enc "$k1" "$(root fd_PO-000001-0a1b_r1 PO-000001-0a1b SUCCESS 2500)")"
	printf '  {"key": "%s", "req_info": "%s",\n   "fields": {"out_refund_no": "fd_PO-000042-dead_r2", "out_trade_no": "PO-000042-dead", "refund_status": "CHANGE", "refund_fee": "1"}},\n' \
		"$k2" "$(enc "$k2" "$(root fd_PO-000042-dead_r2 PO-000042-dead CHANGE 1)")"
	printf '  {"key": "%s", "req_info": "%s",\n   "refused": "encrypted with another merchant key"},\n' \
		"$k1" "$(enc "$k2" "$(root fd_PO-000001-0a1b_r1 PO-000001-0a1b SUCCESS 2500)")"
	printf '  {"key": "%s", "req_info": "%s",\n   "refused": "the plaintext is not a <root> document"},\n' \
		"$k1" "$(enc "$k1" '<xml><out_refund_no>x</out_refund_no></xml>')"
	printf '  {"key": "%s", "req_info": "not base64 at all!",\n   "refused": "not base64"},\n' "$k1"
	printf '  {"key": "%s", "req_info": "AAAAAAAAAAAAAAAAAAAAAA==",\n   "refused": "sixteen zero bytes: bad padding"}\n' "$k1"
	printf ']\n'
} > "$out"
echo "make-wechat-refund-vectors.sh: wrote $out" >&2
