#!/bin/sh
# make-wechat-vectors.sh - write tests/wechat-signature-vectors.json: the
# WeChat Pay v2 HMAC-SHA256 signature of a few parameter sets, computed by
# a real tool (openssl dgst -sha256 -hmac), not by frontdesk. The rule:
# the parameters with a non-empty value but "sign", sorted by name (byte
# order), joined as k=v with '&', then "&key=" and the merchant key; the
# HMAC-SHA256 of that, keyed with the merchant key, in upper case. Every
# key here is made up. Run by hand: sh tests/make-wechat-vectors.sh
set -eu
out=${1:-$(dirname "$0")/wechat-signature-vectors.json}
command -v openssl >/dev/null || { echo "make-wechat-vectors.sh: openssl is needed" >&2; exit 2; }
tab=$(printf '\t')
# vector KEY PARAMS: PARAMS one "name<TAB>value" a line (no quotes or backslashes)
n=0
vector() {
	key=$1
	params=$2
	signed=$(printf '%s\n' "$params" | awk -F "$tab" '$2 != "" && $1 != "sign"' |
		LC_ALL=C sort -t "$tab" -k1,1 | awk -F "$tab" '{ printf "%s%s=%s", (NR > 1 ? "&" : ""), $1, $2 }')
	signed="$signed&key=$key"
	sign=$(printf '%s' "$signed" | openssl dgst -sha256 -hmac "$key" | sed 's/^.*= //' | tr 'a-f' 'A-F')
	[ $n -eq 0 ] || printf ',\n'
	n=$((n + 1))
	printf '  {"key": "%s",\n   "params": {' "$key"
	printf '%s\n' "$params" | awk -F "$tab" '{ printf "%s\"%s\": \"%s\"", (NR > 1 ? ", " : ""), $1, $2 }'
	printf '},\n   "signed": "%s",\n   "sign": "%s"}' "$signed" "$sign"
}
{
	printf '[\n'
	vector "made_up_merchant_key_0000000000a" "$(printf 'appid\twx_made_up_app\nmch_id\t1900000109\nnonce_str\t5K8264ILTKCH16CQ\nbody\tDetailing\nout_trade_no\tPO-000001-0a1b2c3d\ntotal_fee\t1099\nfee_type\tCNY\nsign_type\tHMAC-SHA256\ntrade_type\tNATIVE')"
	vector "another_made_up_key_zzzzzzzzzzzz" "$(printf 'return_code\tSUCCESS\nresult_code\tSUCCESS\nout_trade_no\tPO-000042-deadbeef\ntransaction_id\t4200000000000000001\ntotal_fee\t1\ncash_fee\t1\nattach\t\nsign_type\tHMAC-SHA256\nZeta\tupper case sorts first\ntime_end\t20261201090000')"
	vector "k" "$(printf 'a\t1\nsign\tNOT_PART_OF_IT\nb\t')"
	printf '\n]\n'
} > "$out"
echo "make-wechat-vectors.sh: wrote $out" >&2
