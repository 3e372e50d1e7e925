#!/bin/sh
# chan-ingest.sh - `frontdesk inbox ingest` against every Stripe signature
# vector (tests/chan/chan-signature-vectors.json, made with the official library),
# the secrets file's permission rule, and inbox list/show/retry/ignore.
# Every secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
SECRETS="$XDG_CONFIG_HOME/frontdesk/secrets"
put_secret() { (umask 077; printf 'stripe_signing_secret = %s\n' "$1" > "$SECRETS"); }

# One line per case: name|now (shop time)|secret|payload file|header|verdict.
python3 - "$TOP_SRCDIR/tests/chan/chan-signature-vectors.json" "$TMP" > "$TMP/cases" <<'PY'
import json, sys, time, os
doc = json.load(open(sys.argv[1], encoding='utf-8'))
os.environ['TZ'] = 'America/New_York'; time.tzset()
for vi, v in enumerate(doc['vectors']):
    for ci, c in enumerate(v['cases']):
        body = v['payload'].encode('utf-8')
        if c.get('payload_changed'):
            body = body[:-1] + (b']' if body[-1:] == b'}' else b'}')
        path = '%s/payload-%d-%d' % (sys.argv[2], vi, ci)
        open(path, 'wb').write(body)
        now = time.strftime('%Y-%m-%dT%H:%M:%S', time.localtime(c['now']))
        verdict = 'accept' if c['expect'].startswith('accept') else 'reject'
        print('%s #%d|%s|%s|%s|%s|%s' % (v['name'][:2], ci + 1, now, c['secret'], path,
                                         v['header'], verdict))
PY
is "16 cases read from the vectors" "$(wc -l < "$TMP/cases" | tr -d ' ')" 16

n=0
while IFS='|' read -r name now secret payload header verdict; do
	n=$((n + 1))
	put_secret "$secret"
	db="$TMP/v$n.db"
	FRONTDESK_DB=$db fd init >/dev/null
	FRONTDESK_DB=$db FRONTDESK_NOW=$now fd inbox ingest --source stripe --signature "$header" \
		< "$payload" > "$TMP/out" 2> "$TMP/err"
	st=$?
	status=$(sqlite3 "$db" "SELECT status FROM inbound_callback")
	same=$(sqlite3 "$db" "SELECT hex(payload) FROM inbound_callback")
	want=$(od -An -v -tx1 "$payload" | tr -d ' \n' | tr a-f A-F)
	if [ "$verdict" = accept ]; then
		is "$name: accepted, exit 0" "$st:$status" "0:received"
	else
		is "$name: rejected, exit 1, stored as rejected" "$st:$status" "1:rejected"
	fi
	is "$name: stored bytes are exactly the payload" "$same" "$want"
	case "$(cat "$TMP/out" "$TMP/err"; sqlite3 "$db" .dump)" in
	*"$secret"*) fail "$name: the secret leaked into output or database" ;;
	*) pass "$name: the secret appears in no output and not in the database" ;;
	esac
done < "$TMP/cases"

# The vectors' rejections say why: too old, or no match.
put_secret whsec_test_secret_0001
printf '%s' '{"id":"evt_test_0001","object":"event","type":"payment_intent.succeeded"}' > "$TMP/p1"
H1='t=1700000000,v1=01a99ccbfc89cb51b3945d52685fab7f7e57b2a0579861fb2e992d493554371b'
FRONTDESK_NOW=2023-11-14T17:18:21 fd inbox ingest --source stripe --signature "$H1" \
	< "$TMP/p1" 2> "$TMP/err"
like "too old says so" "$(cat "$TMP/err")" "301 seconds old"
FRONTDESK_NOW=2023-11-14T17:13:30 fd inbox ingest --source stripe --signature "t=1700000000,v1=00" \
	< "$TMP/p1" 2> "$TMP/err"
like "a wrong MAC says so" "$(cat "$TMP/err")" "no signature matches"
is "two rejected rows, nothing to process" \
	"$(sqlite3 "$FRONTDESK_DB" "SELECT group_concat(status) FROM inbound_callback")" "rejected,rejected"

# The genuine event gets in after the forged ones, once.
out=$(FRONTDESK_NOW=2023-11-14T17:13:30 fd inbox ingest --source stripe --signature "$H1" < "$TMP/p1")
like "the genuine event is stored" "$out" "evt_test_0001 stored as inbound event 3"
out=$(FRONTDESK_NOW=2023-11-14T17:13:30 fd --json inbox ingest --source stripe --signature "$H1" < "$TMP/p1")
is "again: a duplicate" "$(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["id"], d["duplicate"])')" "3 True"
is "one received row" "$(sqlite3 "$FRONTDESK_DB" "SELECT count(*) FROM inbound_callback WHERE status = 'received'")" 1

# The secrets file must be readable by its owner only.
chmod 640 "$SECRETS"
refused "group-readable secrets file" inbox ingest --source stripe --signature "$H1"
like "the message names the fix" "$(fd inbox ingest --source stripe --signature "$H1" < /dev/null 2>&1)" "chmod 600"
chmod 600 "$SECRETS"
printf 'other = x\n' > "$SECRETS"
refused "no signing secret for the source" inbox ingest --source stripe --signature "$H1"
put_secret whsec_test_secret_0001
refused "a bad source name" inbox ingest --source "Str ipe" --signature "$H1"
refused "no --signature for a channel that signs in a header" inbox ingest --source stripe < "$TMP/p1"
like "... saying so" "$(cat "$TMP/err")" "no signature came with this payload"

# list, show, retry, ignore
out=$(fd inbox list --status rejected); like "list rejected" "$out" "rejected:"
is "list --json counts all" "$(fd --json inbox list | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["events"]))')" 3
out=$(fd inbox show 3); like "show has the raw payload" "$out" '{"id":"evt_test_0001"'
is "show --json has the raw payload" "$(fd --json inbox show 3 | python3 -c 'import json,sys; print(json.load(sys.stdin)["payload"])')" "$(cat "$TMP/p1")"
refused "a received event cannot be retried" inbox retry 3
refused "a rejected event cannot be retried" inbox retry 1
refused "a rejected event cannot be ignored" inbox ignore 1 --reason "x"
ok "ignore with a reason" fd inbox ignore 3 --reason "test payment"
is "ignored with the reason" "$(sqlite3 "$FRONTDESK_DB" "SELECT status || ':' || last_error FROM inbound_callback WHERE id = 3")" "ignored:test payment"
refused "an unknown event" inbox show 99
fd inbox ignore 3 2>/dev/null; is "--reason is required" "$?" 2

# Control characters in a payload are shown defused.
printf '{"id":"evt_esc","object":"event","type":"x\\u001b","note":"\033[31mred"}' > "$TMP/p2"
mac=$(python3 -c 'import hmac,hashlib,sys; print(hmac.new(b"whsec_test_secret_0001", b"1700000000." + open(sys.argv[1],"rb").read(), hashlib.sha256).hexdigest())' "$TMP/p2")
FRONTDESK_NOW=2023-11-14T17:13:30 fd inbox ingest --source stripe --signature "t=1700000000,v1=$mac" < "$TMP/p2" >/dev/null
out=$(fd inbox show 4 | od -c | grep -c '033') ; is "no raw escape reaches the terminal" "$out" 0

# Signed is not enough: bytes that are not one UTF-8 JSON value, or whose
# id would be cut (a NUL) or holds a control byte, are stored dead under
# "invalid:" (never under the id they claim), and the genuine event whose
# id a cut one would have taken still gets in.
# signed_ingest FILE: ingest FILE with a valid signature; prints the exit status
signed_ingest() {
	mac=$(python3 -c 'import hmac,hashlib,sys; print(hmac.new(b"whsec_test_secret_0001", b"1700000000." + open(sys.argv[1],"rb").read(), hashlib.sha256).hexdigest())' "$1")
	FRONTDESK_NOW=2023-11-14T17:13:30 fd inbox ingest --source stripe \
		--signature "t=1700000000,v1=$mac" < "$1" > /dev/null 2> "$TMP/err"
	echo $?
}
ev='"object":"event","type":"payment_intent.succeeded"'
printf '{"id":"evt_utf8",%s,"note":"\377"}' "$ev" > "$TMP/bad1"
printf '{"id":"evt_tail",%s} and more' "$ev" > "$TMP/bad2"
printf '{"id":"evt_cut\\u0000tail",%s}' "$ev" > "$TMP/bad3"
printf '{"id":"evt_ctl\\u0001",%s}' "$ev" > "$TMP/bad4"
printf '{"id":"evt_lone\\ud800",%s}' "$ev" > "$TMP/bad5"
n0=$(sqlite3 "$FRONTDESK_DB" "SELECT count(*) FROM inbound_callback WHERE status = 'dead' AND external_id LIKE 'invalid:%'")
for i in 1 2 3 4 5; do
	st=$(signed_ingest "$TMP/bad$i")
	is "signed but not sane ($i): refused" "$st" 1
done
like "why: not UTF-8, or not one JSON value" "$(signed_ingest "$TMP/bad3"; cat "$TMP/err")" "not one JSON value"
is "each stored dead under invalid:, none under the id it claims" \
	"$(sqlite3 "$FRONTDESK_DB" "SELECT count(*) FROM inbound_callback WHERE status = 'dead' AND external_id LIKE 'invalid:%'")|$(sqlite3 "$FRONTDESK_DB" "SELECT count(*) FROM inbound_callback WHERE external_id IN ('evt_utf8', 'evt_tail', 'evt_cut', 'evt_lone') OR external_id LIKE 'evt_ctl%'")" \
	"$((n0 + 5))|0"
printf '{"id":"evt_cut",%s}' "$ev" > "$TMP/good"
is "the genuine event with the id a NUL would have cut to gets in" \
	"$(signed_ingest "$TMP/good")|$(sqlite3 "$FRONTDESK_DB" "SELECT status FROM inbound_callback WHERE external_id = 'evt_cut'")" \
	"0|received"

done_testing
