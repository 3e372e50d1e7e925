#!/bin/sh
# make-wechat-vectors.sh - write tests/chan/wechat-signature-vectors.json: the
# WeChat Pay v2 HMAC-SHA256 signature of a few parameter sets, computed by
# a real tool (openssl dgst -sha256 -hmac), not by frontdesk, and the MD5
# signature of a few more (openssl dgst -md5; those vectors say
# "sign_type": "MD5"). The rule: the parameters with a non-empty value but
# "sign", sorted by name (byte order), joined as k=v with '&', then "&key="
# and the merchant key; the HMAC-SHA256 of that, keyed with the merchant
# key, or its MD5, in upper case. Every key here is made up. Run by hand: sh tests/chan/make-wechat-vectors.sh
set -eu
out=${1:-$(dirname "$0")/wechat-signature-vectors.json}
command -v openssl >/dev/null || { echo "make-wechat-vectors.sh: openssl is needed" >&2; exit 2; }
tab=$(printf '\t')
# vector KEY PARAMS [MD5]: PARAMS one "name<TAB>value" a line (no quotes or
# backslashes); MD5: the MD5 signature instead of HMAC-SHA256
n=0
vector() {
	key=$1
	params=$2
	type=${3:-}
	signed=$(printf '%s\n' "$params" | awk -F "$tab" '$2 != "" && $1 != "sign"' |
		LC_ALL=C sort -t "$tab" -k1,1 | awk -F "$tab" '{ printf "%s%s=%s", (NR > 1 ? "&" : ""), $1, $2 }')
	signed="$signed&key=$key"
	if [ "$type" = MD5 ]; then
		sign=$(printf '%s' "$signed" | openssl dgst -md5 | sed 's/^.*= //' | tr 'a-f' 'A-F')
	else
		sign=$(printf '%s' "$signed" | openssl dgst -sha256 -hmac "$key" | sed 's/^.*= //' | tr 'a-f' 'A-F')
	fi
	[ $n -eq 0 ] || printf ',\n'
	n=$((n + 1))
	printf '  {"key": "%s",\n   "params": {' "$key"
	printf '%s\n' "$params" | awk -F "$tab" '{ printf "%s\"%s\": \"%s\"", (NR > 1 ? ", " : ""), $1, $2 }'
	printf '},\n   "signed": "%s",\n   "sign": "%s"' "$signed" "$sign"
	[ -z "$type" ] || printf ',\n   "sign_type": "%s"' "$type"
	printf '}'
}
{
	printf '[\n'
	vector "made_up_merchant_key_0000000000a" "$(printf 'appid\twx_made_up_app\nmch_id\t1900000109\nnonce_str\t5K8264ILTKCH16CQ\nbody\tDetailing\nout_trade_no\tPO-000001-0a1b2c3d\ntotal_fee\t1099\nfee_type\tCNY\nsign_type\tHMAC-SHA256\ntrade_type\tNATIVE')"
	vector "another_made_up_key_zzzzzzzzzzzz" "$(printf 'return_code\tSUCCESS\nresult_code\tSUCCESS\nout_trade_no\tPO-000042-deadbeef\ntransaction_id\t4200000000000000001\ntotal_fee\t1\ncash_fee\t1\nattach\t\nsign_type\tHMAC-SHA256\nZeta\tupper case sorts first\ntime_end\t20261201090000')"
	vector "k" "$(printf 'a\t1\nsign\tNOT_PART_OF_IT\nb\t')"
	vector "made_up_merchant_key_0000000000a" "$(printf 'appid\twx_made_up_app\nmch_id\t1900000109\nnonce_str\t5K8264ILTKCH16CQ\nbody\tDetailing\nout_trade_no\tPO-000001-0a1b2c3d\ntotal_fee\t1099\nfee_type\tCNY\nsign_type\tMD5\ntrade_type\tNATIVE\nproduct_id\tPO-000001-0a1b2c3d')" MD5
	vector "another_made_up_key_zzzzzzzzzzzz" "$(printf 'return_code\tSUCCESS\nresult_code\tSUCCESS\nout_trade_no\tPO-000042-deadbeef\ntrade_state\tCLOSED\nattach\t42\nnonce_str\tA1B2C3D4E5F6A7B8')" MD5
	printf '\n]\n'
} > "$out"
echo "make-wechat-vectors.sh: wrote $out" >&2
