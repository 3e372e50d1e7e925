#!/bin/sh
# esign.sh - signed work authorisations against a fake e-sign provider on
# loopback (tests/chan/fake-esign.py): an estimate sent with its PDF's hash; the
# callbacks relayed out of order (signed before viewed), twice, with a bad
# signature, a decline and an expiry; the final document stored beside the
# database once, 0600, with its hash and the evidence; `frontdesk check`
# finding it changed or gone; the worker killed (SIGKILL) while the final
# document downloads (the fake stalls mid-body): nothing half-written, and
# the next run downloads it once; a visit refused to start while its job is
# not authorised (esign_require_authorised); the registry switched to
# another provider without moving the flows already under way; a lost
# callback found by asking; an estimate cancelled before it left never
# sent; a document that does not match the hash the provider announced not
# kept; a provider that cannot be reached tried on the backoff and given
# up only past the give-up horizon. Every key here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=esk_made_up_test_key
SECRET=whsec_made_up_esign_secret
FAKE_PID= W=
trap '[ -n "$W" ] && kill -9 "$W" 2>/dev/null; [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

fake_run fake-esign.py 120 --api-key "$KEY" --secret "$SECRET"
ok "the fake e-sign provider started on a random port" test -n "$PORT"
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'sign1_api_key = %s\nsign1_signing_secret = %s\nsign2_api_key = %s\nsign2_signing_secret = %s\n' \
	"$KEY" "$SECRET" "$KEY" "$SECRET" > "$XDG_CONFIG_HOME/frontdesk/secrets")
printf 'esign_terms = Work starts once this estimate is signed. Prices include parts.\n' \
	> "$XDG_CONFIG_HOME/frontdesk/config"
fd init >/dev/null
fd customer add --name "Ada Lee" --email ada@example.com >/dev/null
for t in Brakes Paint Glass Tyres Seats Mirror; do
	fd job add --customer 1 --title "$t" >/dev/null
done
for j in 1 2 3 4 5 6; do
	fd item add --job $j --description "Labour $j" --qty 2 --price 45.00 >/dev/null
	fd item add --job $j --kind TAX --description "Tax" --price 9.00 >/dev/null
done
ok "an e-sign provider in the registry" fd estimate provider-set sign1 --url "$BASE"
DIR="$TMP/esign"

# relay STATUS ENVELOPE [only]: the fake's callback for STATUS, relayed to us
relay() {
	ctl "move/$2" "{\"status\": \"$1\"${3:+, \"only_callback\": true}}" > "$TMP/cb.json"
	jget 'd["body"]' < "$TMP/cb.json" | tr -d '\n' > "$TMP/cb.body"
	fd inbox ingest --provider sign1 --signature "$(jget 'd["signature"]' < "$TMP/cb.json")" \
		< "$TMP/cb.body"
}
run() { fd estimate run --once >/dev/null; }
state() { db "SELECT status FROM esign_flow WHERE estimate_id = $1"; }
downloads() { curl -s "$BASE/_control/log" | jget "sum(1 for e in d['log'] if e['path'] == '/v1/envelopes/$1/document' and e['complete'])"; }

# --- sending
fd --json estimate send 1 > "$TMP/e1.json"
is "estimate send answers the first number" "$(jget 'd["number"], d["state"], d["total"]' < "$TMP/e1.json")" \
	"EST-2026-000001 sent 9900"
ok "its PDF is beside the database" test -s "$DIR/EST-2026-000001.pdf"
is "the PDF is 0600" "$(stat -c %a "$DIR/EST-2026-000001.pdf")" 600
is "its SHA-256 is recorded" "$(db "SELECT pdf_sha256 FROM estimate WHERE id = 1")" \
	"$(sha256sum "$DIR/EST-2026-000001.pdf" | cut -d' ' -f1)"
is "the send command waits in the outbox" \
	"$(db "SELECT event_type, status, integration_type FROM outbox_event")" "envelope.create|pending|esign"
before=$(dump)
refused "a second estimate while one waits is refused" estimate send 1
fd job add --customer 1 --title "Nothing yet" >/dev/null
refused "a job with no line items is refused" estimate send 7
refused "a job that does not exist is refused" estimate send 99
run
is "the worker sent it: the envelope is known" "$(db "SELECT envelope_id FROM esign_flow WHERE id = 1")" env_1
is "the command succeeded" "$(db "SELECT status FROM outbox_event WHERE id = 1")" succeeded

# --- reordered callbacks: signed before viewed
relay completed env_1 >/dev/null
relay viewed env_1 only >/dev/null
run
is "signed, though 'viewed' came after" "$(state 1)" signed
is "the late 'viewed' is ignored, with the reason" \
	"$(db "SELECT status, last_error FROM inbound_callback WHERE event_type = 'envelope.viewed'")" \
	"ignored|estimate EST-2026-000001 is signed: a 'viewed' callback never moves it back"
is "the reason is kept on the flow" "$(db "SELECT ignored_reason FROM esign_flow WHERE id = 1")" \
	"estimate EST-2026-000001 is signed: a 'viewed' callback never moves it back"
F="$DIR/EST-2026-000001-signed.pdf"
ok "the final document is stored" test -s "$F"
is "it is 0600" "$(stat -c %a "$F")" 600
is "its hash and size are recorded" "$(db "SELECT document_sha256, document_size FROM esign_flow WHERE id = 1")" \
	"$(sha256sum "$F" | cut -d' ' -f1)|$(stat -c %s "$F")"
fd --json estimate show EST-2026-000001 > "$TMP/s1.json"
is "the evidence: signer, IP, timestamp token, certificate" \
	"$(jget 'd["evidence"]["signers"][0]["ip"], d["evidence"]["certificate_id"], len(d["evidence"]["timestamp_token"]) > 0' < "$TMP/s1.json")" \
	"203.0.113.7 CERT-FAKE-0001 True"
is "the job shows authorised" "$(fd --json job show 1 | jget 'd["signature"]')" authorised
is "the flow's history: sent, then signed" \
	"$(db "SELECT group_concat(to_status, ',') FROM (SELECT to_status FROM status_flow WHERE entity = 'esign_flow' AND entity_id = 1 ORDER BY id)")" \
	"sent,signed"

# --- a duplicated completion: the same callback again, and another one
like "the same callback again changes nothing" "$(relay completed env_1 2>&1; fd estimate callback --provider sign1 --signature "$(jget 'd["signature"]' < "$TMP/cb.json")" < "$TMP/cb.body")" \
	"was stored before"
run
is "a repeated completion is processed as a repeat" \
	"$(db "SELECT count(*) FROM inbound_callback WHERE event_type = 'envelope.completed' AND status = 'processed'")" 2
is "the final document was downloaded once" "$(downloads env_1)" 1

# --- a bad signature
ctl move/env_1 '{"status": "declined", "only_callback": true}' | jget 'd["body"]' | tr -d '\n' > "$TMP/bad.body"
refused_out=$(fd estimate callback --provider sign1 --signature "sha256=$(printf '%064d' 0)" < "$TMP/bad.body" 2>&1)
is "a callback with a bad signature is refused" "$?" 1
like "... saying why" "$refused_out" "signature does not match"
is "... and stored as rejected" "$(db "SELECT status FROM inbound_callback WHERE external_id LIKE 'rejected:%'")" rejected
run
is "the flow did not move" "$(state 1)" signed

# --- a decline, and an expiry
fd estimate send 2 >/dev/null
fd estimate send 3 >/dev/null
run
relay viewed env_2 >/dev/null
relay declined env_2 >/dev/null
relay expired env_3 >/dev/null
run
is "declined" "$(state 2)" declined
is "expired" "$(state 3)" expired
is "no document for them" "$(db "SELECT count(*) FROM esign_flow WHERE document_sha256 IS NOT NULL")" 1

# --- a visit of a job that is not authorised
printf 'esign_require_authorised = 1\n' >> "$XDG_CONFIG_HOME/frontdesk/config"
fd visit add --start "2026-12-02 09:00" --end "2026-12-02 10:00" >/dev/null
fd visit add --start "2026-12-02 11:00" --end "2026-12-02 12:00" >/dev/null
fd link add --appt 1 --job 2 --minutes 30 >/dev/null
fd link add --appt 2 --job 1 --minutes 30 >/dev/null
out=$(fd visit status 1 in_progress 2>&1)
is "a visit of a declined job does not start" "$?" 1
like "... saying why" "$out" "job 2 is not authorised"
ok "a visit of an authorised job starts" fd visit status 2 in_progress

# --- check: a tampered and a deleted final document
ok "check is clean" fd check
cp "$F" "$TMP/keep.pdf"
printf 'tampered' >> "$F"
out=$(fd check 2>&1)
like "check reports a changed document" "$out" "esign-document-changed"
like "... naming it" "$out" "EST-2026-000001"
rm "$F"
out=$(fd check 2>&1)
like "check reports a missing document" "$out" "esign-document-missing"
cp "$TMP/keep.pdf" "$F"
ok "restored: check is clean again" fd check

# --- the worker killed while the final document downloads
fd estimate send 4 >/dev/null
run
# a callback that never came: the worker asks about the open flow
ctl move/env_4 '{"status": "viewed"}' >/dev/null
fd estimate run --once --all >/dev/null
is "a lost 'viewed' is found by asking the provider" "$(state 4)" viewed
gets() { curl -s "$BASE/_control/log" | jget "sum(1 for e in d['log'] if e['method'] == 'GET' and e['path'] == '/v1/envelopes/$1')"; }
is "... once" "$(gets env_4)" 1
run
is "it is not asked again before esign_query_seconds" "$(gets env_4)" 1
ctl stall '{"document": true}' >/dev/null
relay completed env_4 >/dev/null
"$FRONTDESK" estimate run --once >/dev/null 2>&1 & W=$!
stalled() { curl -s "$BASE/_control/log" | jget "any(e['path'] == '/v1/envelopes/env_4/document' and not e['complete'] for e in d['log'])" | grep -q True; }
ok "the download stalls mid-body" until_ok 20 stalled
kill -9 "$W"; wait "$W" 2>/dev/null; W=
F4="$DIR/EST-2026-000004-signed.pdf"
ok "killed mid-download: no final file" test ! -e "$F4"
is "... nothing half-written beside it" "$(ls -a "$DIR" | grep -c part)" 0
is "... and nothing recorded" "$(db "SELECT count(*) FROM esign_flow WHERE id = 4 AND document_sha256 IS NOT NULL")" 0
run
is "after the restart: downloaded once" "$(downloads env_4)" 1
is "the hash is recorded" "$(db "SELECT document_sha256 FROM esign_flow WHERE id = 4")" \
	"$(sha256sum "$F4" | cut -d' ' -f1)"
run
is "a further run downloads nothing more" "$(downloads env_4)" 1
is "no temporary file is left" "$(ls -a "$DIR" | grep -c part)" 0

# --- the registry switches provider; the flows keep theirs
fd estimate send 5 >/dev/null
ok "sign1 becomes a backup" fd estimate provider-set sign1 --role backup
ok "sign2 is the new primary" fd estimate provider-set sign2 --url "$BASE" --role primary
fd estimate send 6 >/dev/null
is "the new estimate goes to sign2, those under way stay with sign1" \
	"$(db "SELECT group_concat(provider_code, ',') FROM (SELECT provider_code FROM esign_flow ORDER BY id)")" \
	"sign1,sign1,sign1,sign1,sign1,sign2"
# the worker of `frontdesk serve` serves the e-sign providers through their type's steps
"$FRONTDESK" serve --quiet --lease-seconds 2 >/dev/null 2>"$TMP/serve.err" & W=$!
envelope6() { [ "$(db "SELECT envelope_id IS NOT NULL FROM esign_flow WHERE id = 6")" = 1 ]; }
ok "frontdesk serve sends the new estimate through sign2" until_ok 20 envelope6
kill "$W"; wait "$W" 2>/dev/null; W=
is "sign2's envelope is at the provider" "$(curl -s "$BASE/_control/state" | jget "d['envelopes']['$(db "SELECT envelope_id FROM esign_flow WHERE id = 6")']['reference']")" EST-2026-000006
is "sign1's flow, a backup's now, was served too" "$(db "SELECT envelope_id IS NOT NULL FROM esign_flow WHERE id = 5")" 1

# --- cancel
ok "the shop cancels estimate 5" fd estimate cancel EST-2026-000005 --reason "customer changed mind"
is "cancelled" "$(state 5)" cancelled
fd estimate run --once --provider sign1 >/dev/null
is "the provider was told" "$(curl -s "$BASE/_control/state" | jget "d['envelopes']['$(db "SELECT envelope_id FROM esign_flow WHERE id = 5")']['status']")" voided
before=$(dump)
refused "a signed estimate cannot be cancelled" estimate cancel EST-2026-000001 --reason x
is "estimate list --json lists them all, newest first" \
	"$(fd --json estimate list | jget '[e["number"][-1] + ":" + e["state"] for e in d["estimates"]]')" \
	"['6:sent', '5:cancelled', '4:signed', '3:expired', '2:declined', '1:signed']"
like "estimate list --job names the job's" "$(fd estimate list --job 4)" "EST-2026-000004  job 4      signed"
like "estimate providers lists both" "$(fd estimate providers)" "sign2        primary  enabled"
like "estimate show says where the flow stands" "$(fd estimate show 2)" "State: declined"
like "history shows the estimate's sign flow" "$(fd history estimate 5)" "status: sent -> cancelled"
# cancelled before the worker sent it: it is never sent
fd item add --job 7 --description "Polish" --price 20.00 >/dev/null
fd estimate send 7 >/dev/null
fd estimate cancel EST-2026-000007 --reason "sent by mistake" >/dev/null
envelopes_before=$(curl -s "$BASE/_control/state" | jget 'len(d["envelopes"])')
fd estimate run --once >/dev/null
is "an estimate cancelled before it left is never sent" \
	"$(db "SELECT status, last_error FROM outbox_event WHERE business_key = 'EST-2026-000007'")" \
	"dead|the estimate was cancelled before it was sent"
is "... the provider has no envelope for it" "$(curl -s "$BASE/_control/state" | jget 'len(d["envelopes"])')" "$envelopes_before"
refused "outbox retry of its envelope is refused" \
	outbox retry "$(db "SELECT id FROM outbox_event WHERE business_key = 'EST-2026-000007'")"
like "... saying the estimate is cancelled" "$(cat "$TMP/err")" "EST-2026-000007 is cancelled: its envelope is not sent again"
# a document that is not the one the provider announced is not kept
fd job add --customer 1 --title "Wheels" >/dev/null
fd item add --job 8 --description "Alignment" --price 60.00 >/dev/null
fd estimate send 8 >/dev/null
fd estimate run --once >/dev/null
env8=$(db "SELECT envelope_id FROM esign_flow f JOIN estimate e ON e.id = f.estimate_id WHERE e.number = 'EST-2026-000008'")
ctl bad_hash '{"on": true}' >/dev/null
ctl "move/$env8" '{"status": "completed"}' > "$TMP/cb.json"
jget 'd["body"]' < "$TMP/cb.json" | tr -d '\n' |
	fd estimate callback --provider sign2 --signature "$(jget 'd["signature"]' < "$TMP/cb.json")" >/dev/null
fd estimate run --once >/dev/null
is "signed, but a document that does not match the announced hash is not kept" \
	"$(db "SELECT f.status, f.document_sha256 IS NULL FROM esign_flow f JOIN estimate e ON e.id = f.estimate_id WHERE e.number = 'EST-2026-000008'")" "signed|1"
ok "... no file under its name" test ! -e "$DIR/EST-2026-000008-signed.pdf"
ctl bad_hash '{"on": false}' >/dev/null
fd estimate run --once >/dev/null
ok "the next round downloads the right one" test -s "$DIR/EST-2026-000008-signed.pdf"
# an unreachable provider: the command is tried on the backoff (once per
# backoff, however often the worker runs) and is dead only past the give-up
# horizon (pipeline_give_up_seconds, 24 h of the desk's clock)
fd job add --customer 1 --title "Glass" >/dev/null
fd item add --job 9 --description "Windscreen" --price 80.00 >/dev/null
ok "sign2 cannot be reached" fd estimate provider-set sign2 --url "http://127.0.0.1:1"
fd estimate send 9 >/dev/null
cmd9() { db "SELECT status, retry_count FROM outbox_event WHERE business_key = 'EST-2026-000009'"; }
T=$(date +%s)
for n in 1 2 3 4 5 6 7 8; do FRONTDESK_REAL_NOW=$T fd estimate run --once >/dev/null 2>&1; done
is "eight rounds in one second: tried once" "$(cmd9)" "failed|1"
for n in 1 2 3 4; do FRONTDESK_REAL_NOW=$T fd estimate run --once --all >/dev/null 2>&1; done
is "... and --all never sends it before its backoff either" "$(cmd9)" "failed|1"
n=1
while [ $n -le 11 ]; do FRONTDESK_REAL_NOW=$((T + n * 301)) fd estimate run --once >/dev/null 2>&1; n=$((n + 1)); done
is "twelve tries within the horizon: still failed" "$(cmd9)" "failed|12"
is "check says nothing of it within the horizon" "$(fd check 2>&1 | grep -c esign-command-dead)" 0
FRONTDESK_NOW=2026-12-02T09:00 FRONTDESK_REAL_NOW=$((T + 86400)) fd estimate run --once >/dev/null 2>&1
is "a failure past the horizon: dead" "$(cmd9)" "dead|13"
ok "sign2 is back" fd estimate provider-set sign2 --url "$BASE"
out=$(fd check 2>&1)
like "check reports the estimate never sent for signature" "$out" "esign-command-dead: outbox command"
like "... naming it and how to send it again" "$out" "EST-2026-000009 at sign2) is dead while the estimate is sent"
C9=$(db "SELECT id FROM outbox_event WHERE business_key = 'EST-2026-000009'")
ok "a person revives it" fd outbox retry "$C9"
fd estimate run --once --provider sign2 >/dev/null 2>&1
is "... sent with its key this time" "$(cmd9 | cut -d'|' -f1)" succeeded
is "check no longer names it" "$(fd check 2>&1 | grep -c esign-command-dead)" 0
# a callback about an envelope no flow has (yet) that keeps failing: tried
# on the backoff, still waiting after eleven failures within the give-up
# horizon (not dead after a count of tries), dead only past the horizon
GHOST='{"id":"evt_ghost","type":"envelope.completed","created":1700000000,"envelope":{"id":"env_ghost","status":"completed"}}'
GSIG=$(printf '%s' "$GHOST" | python3 -c "import hashlib,hmac,sys; print('sha256=' + hmac.new(sys.argv[1].encode(), sys.stdin.buffer.read(), hashlib.sha256).hexdigest())" "$SECRET")
printf '%s' "$GHOST" | fd estimate callback --provider sign1 --signature "$GSIG" >/dev/null
ghost() { db "SELECT status, attempts FROM inbound_callback WHERE external_id = 'evt_ghost'"; }
T=$(date +%s)
n=0
while [ $n -lt 11 ]; do FRONTDESK_REAL_NOW=$((T + n * 3601)) fd estimate run --once --provider sign1 >/dev/null 2>&1; n=$((n + 1)); done
is "a callback failing eleven times within the horizon is still waiting" "$(ghost)" "failed|11"
FRONTDESK_NOW=2026-12-02T09:00 FRONTDESK_REAL_NOW=$((T + 86400)) fd estimate run --once --provider sign1 >/dev/null 2>&1
is "... and dead once it fails past the horizon" "$(ghost)" "dead|12"
like "... saying it was given up on the horizon" \
	"$(db "SELECT last_error FROM inbound_callback WHERE external_id = 'evt_ghost'")" \
	"given up after 12 attempt(s) over the give-up horizon"
ok "check is clean at the end" fd check
done_testing
