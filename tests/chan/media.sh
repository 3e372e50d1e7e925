#!/bin/sh
# media.sh - the media of condition reports hosted by a media provider
# (type media, adapter media-rest) against a fake written from the contract
# alone (tests/chan/fake-media.py, tests/chan/contract/media-rest-contract.md):
# no provider, nothing sent; a medium added gets its host and upload in the
# same transaction; a photo ready at once with its viewer URL and frame; a
# panorama processing (asked about on its pace) then ready, a 3D capture
# failed with the provider's reason; an answer lost after the provider
# stored the file (the same key again: one medium there); the provider down
# (sent once it is back); a file refused for good (too large: failed); a
# wrong API key (dead, seen by check, sent again by a person); a copy
# changed (nothing sent); check past the horizon; the worker (frontdesk
# serve) killed with SIGKILL again and again while it uploads: every medium
# at the provider once. FD_STRESS=1 kills 30 times (default 6). Every
# secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/png.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"

KEY=mk_test_media_made_up
S=
trap '[ -n "$S" ] && kill -9 "$S" 2>/dev/null; kill $FAKE_PID 2>/dev/null; rm -rf "$TMP"' EXIT
KILLS=6
[ -n "${FD_STRESS:-}" ] && KILLS=30
# every panorama and model processes until the test settles it
fake_run fake-media.py 300 --api-key "$KEY" --processing-seconds 3600 --max-bytes 3000000 \
	--yaw-origin 0.25
ok "the fake media provider listens" test -n "$PORT"
export TZ=America/New_York FRONTDESK_NOW="2026-12-01T09:00"
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
secrets() { (umask 077; printf 'vault_api_key = %s\n' "$1" > "$XDG_CONFIG_HOME/frontdesk/secrets"); }
secrets "$KEY"

state() { curl -s --max-time 10 "$BASE/_control/state"; }
run() { fd condition media run --once "$@" >/dev/null; }
host() { db "SELECT $2 FROM media_host WHERE media_id = $1 ORDER BY id DESC LIMIT 1"; }
cmd() { db "SELECT $2 FROM outbox_event WHERE integration_type = 'media' AND business_key LIKE '%-M$1-H%' ORDER BY id DESC LIMIT 1"; }
# at_provider M: how many media the provider holds under medium M's reference
at_provider() { state | jget "sum(1 for m in d['media'] if m['reference'] == 'CR-1-M$1')"; }
sha() { db "SELECT sha256 FROM media_item WHERE id = $1"; }
# add FILE [ARGS]: a medium of report 1; prints its id
add() { fd --json condition media add 1 "$@" | jget 'd["id"]'; }

fd init >/dev/null
fd customer add --name "Lee Park" --phone 555-0142 >/dev/null
fd service add --name Detail --price 90 --minutes 60 >/dev/null
fd book --customer "Lee Park" --start "2026-12-01 10:00" --services Detail >/dev/null
fd condition add --visit 1 --note "before the detail" >/dev/null
png "$TMP/p1.png" 40 30 200 40 40
png "$TMP/p2.png" 41 30 40 200 40
png "$TMP/pano.png" 200 100 40 40 200

# --- no media provider: the medium is kept here only
m1=$(add "$TMP/p1.png" --caption "front bumper")
is "no provider: no host" "$(db "SELECT count(*) FROM media_host")" 0
is "and nothing in the outbox" "$(db "SELECT count(*) FROM outbox_event WHERE integration_type = 'media'")" 0
refused "the upload needs a media provider" condition media upload "$m1"

ok "a media provider is a provider of type media" fd condition provider-set vault --url "$BASE"
like "it is listed" "$(fd condition providers)" "vault"
refused "another adapter is refused" condition provider-set vault2 --url "$BASE" --adapter rest
ok "a medium added before is sent on request" fd condition media upload "$m1"
is "its host waits to upload" "$(host "$m1" status)" uploading
refused "the same medium twice to the same provider" condition media upload "$m1"
refused "no such medium" condition media upload 99

# --- a medium added now: its host and upload in the same transaction
m2=$(add "$TMP/p2.png")
is "added with a provider: host and command together" \
	"$(host "$m2" status) $(cmd "$m2" "event_type || ' ' || status")" "uploading media.upload pending"
run
is "a photo is ready at once" "$(host "$m1" status) $(host "$m2" status)" "ready ready"
is "the provider holds each once, under our reference" "$(at_provider "$m1") $(at_provider "$m2")" "1 1"
is "with our file's hash" "$(state | jget "[m['sha256'] for m in d['media'] if m['reference'] == 'CR-1-M$m2'][0]")" "$(sha "$m2")"
is "its id, viewer URL and frame are kept" \
	"$(fd --json condition media show "$m2" | jget 'd["hosts"][0]["provider_ref"] + " " + d["hosts"][0]["viewer_url"] + " " + d["hosts"][0]["frame"]["system"]')" \
	"$(host "$m2" provider_ref) $BASE/view/$(host "$m2" provider_ref) image"
like "show names the viewer URL" "$(fd condition media show "$m2")" "$BASE/view/"
LOG="${FRONTDESK_DB%.db}-requests.db"
is "the request log keeps the calls" "$(sqlite3 "$LOG" "SELECT count(*) FROM request_log WHERE keyword = 'upload_media' AND status = 201")" 2
is "but no uploaded bytes" "$(sqlite3 "$LOG" "SELECT count(*) FROM request_log WHERE keyword = 'upload_media' AND request_excerpt IS NOT NULL")" 0
is "and never the API key" "$(sqlite3 "$LOG" .dump | grep -c "$KEY")" 0

# --- our copy lost or changed: made whole again from the provider
copy() { echo "$(dirname "$FRONTDESK_DB")/media/$(db "SELECT local_path FROM media_item WHERE id = $1")"; }
cp "$(copy "$m2")" "$TMP/m2.keep"
refused "a whole copy is not fetched" condition media fetch "$m2"
rm -f "$(copy "$m2")"
like "check sees it missing" "$(fd check 2>&1)" "condition-media-missing: medium $m2"
like "fetched from the provider" "$(fd condition media fetch "$m2")" "from the media provider 'vault'"
ok "... byte for byte" cmp "$(copy "$m2")" "$TMP/m2.keep"
chmod u+w "$(copy "$m2")"; printf 'x' >> "$(copy "$m2")"
ok "a changed copy too" fd condition media fetch "$m2"
ok "... byte for byte" cmp "$(copy "$m2")" "$TMP/m2.keep"
ok "check is clean again" fd check
is "the request log keeps the calls, never the bytes" \
	"$(sqlite3 "$LOG" "SELECT count(*), count(response_excerpt) FROM request_log WHERE keyword = 'get_original' AND status = 200")" "2|0"

# --- a panorama: processing, asked about on its pace, then ready
m3=$(add "$TMP/pano.png" --kind panorama)
run
is "a panorama processes" "$(host "$m3" status)" processing
ref3=$(host "$m3" provider_ref)
is "its frame is known from the upload" "$(host "$m3" "json_extract(frame, '\$.yaw_origin')")" 0.25
asked() { fd --json condition media run --once "$@" | jget 'd["queried"]'; }
is "not asked again before media_query_seconds" "$(asked)" 0
is "--all asks now" "$(asked --all)" 1
ctl finish "{\"id\": \"$ref3\", \"status\": \"ready\"}" >/dev/null
run --all
is "ready once the provider says so" "$(host "$m3" status)" ready
is "with its viewer URL" "$(host "$m3" viewer_url)" "$BASE/view/$ref3"

# --- a 3D capture the provider cannot model: failed, with its reason
head -c 4000 /dev/urandom > "$TMP/scan.bin"
m4=$(add "$TMP/scan.bin" --kind model)
run
ctl finish "{\"id\": \"$(host "$m4" provider_ref)\", \"status\": \"failed\", \"error\": \"too few photos\"}" >/dev/null
run --all
is "a failed capture: failed" "$(host "$m4" status)" failed
like "with the provider's reason" "$(fd condition media show "$m4")" "too few photos"

# --- the answer lost after the provider stored it: the same key again
uploads=$(state | jget 'd["uploads"]')
ctl drop '{"n": 1}' >/dev/null
png "$TMP/p5.png" 42 30 10 10 10
m5=$(add "$TMP/p5.png")
run
is "no answer: to try again, still uploading" "$(cmd "$m5" status) $(host "$m5" status)" "failed uploading"
is "the provider stored it meanwhile" "$(at_provider "$m5")" 1
ready5() { run; [ "$(host "$m5" status)" = ready ]; }
ok "sent again with the same key on the backoff" until_ok 60 ready5
is "one medium at the provider" "$(at_provider "$m5") $(state | jget 'd["uploads"]')" "1 $((uploads + 1))"

# --- the provider down: retried on the backoff, sent once
ctl fail '{"all": 2}' >/dev/null
png "$TMP/p6.png" 43 30 10 10 10
m6=$(add "$TMP/p6.png")
run
is "the provider down: to try again" "$(cmd "$m6" status)" failed
ready6() { run; [ "$(host "$m6" status)" = ready ]; }
ok "sent once it is back" until_ok 60 ready6
is "once" "$(at_provider "$m6")" 1

# --- a file the provider refuses for good (larger than it takes)
head -c 3100000 /dev/urandom > "$TMP/big.bin"
m7=$(add "$TMP/big.bin" --kind model)
run
is "too large: the host failed, the command given up" "$(host "$m7" status) $(cmd "$m7" status)" "failed dead"
like "with the provider's answer" "$(host "$m7" error)" "413"
c7=$(cmd "$m7" id)
refused "a refused upload is not revived" outbox retry "$c7"
is "check does not count a refusal as a broken promise" "$(fd check 2>&1 | grep -c media-command-dead)" 0

# --- a wrong API key: dead, the host waits; check sees it; a person sends it again
secrets "mk_test_not_this_one"
png "$TMP/p8.png" 44 30 10 10 10
m8=$(add "$TMP/p8.png")
run
is "401: the command is given up, the host waits" "$(cmd "$m8" status) $(host "$m8" status)" "dead uploading"
out=$(fd check 2>&1)
like "check names the medium never uploaded" "$out" "media-command-dead: outbox command $(cmd "$m8" id) (media.upload of CR-1-M$m8-H$(host "$m8" id) at vault) is dead"
secrets "$KEY"
ok "a person sends it again" fd outbox retry "$(cmd "$m8" id)"
run
is "then it is hosted" "$(host "$m8" status) $(at_provider "$m8")" "ready 1"
is "check no longer names it" "$(fd check 2>&1 | grep -c media-command-dead)" 0

# --- our copy changed before the upload: nothing is sent
png "$TMP/p9.png" 45 30 10 10 10
m9=$(add "$TMP/p9.png")
copy="$(dirname "$FRONTDESK_DB")/media/$(db "SELECT local_path FROM media_item WHERE id = $m9")"
chmod u+w "$copy"; printf 'changed' >> "$copy"
requests=$(state | jget 'len(d["requests"])')
run
is "a changed copy: the upload is given up" "$(cmd "$m9" status)" dead
like "saying why" "$(cmd "$m9" last_error)" "changed"
is "nothing reached the provider" "$(state | jget 'len(d["requests"])')" "$requests"
out=$(fd check 2>&1)
like "check names the copy" "$out" "condition-media-changed"
like "and the upload not made" "$out" "media-command-dead"
png "$copy" 45 30 10 10 10
ok "the copy put back, a person sends it again" fd outbox retry "$(cmd "$m9" id)"
run
is "then it is hosted" "$(host "$m9" status)" ready

# --- no worker for the whole horizon; a capture processing for longer
png "$TMP/p10.png" 46 30 10 10 10
m10=$(add "$TMP/p10.png")
out=$(FRONTDESK_NOW="2026-12-09T09:00" fd check 2>&1)
like "check past the horizon: an upload never sent" "$out" "CR-1-M$m10-H$(host "$m10" id) at vault) is still pending after the give-up horizon"
head -c 5000 /dev/urandom > "$TMP/scan2.bin"
m11=$(add "$TMP/scan2.bin" --kind model)
run
is "within the horizon check says nothing of them" "$(fd check 2>&1 | grep -c 'media-')" 0
like "a capture still processing past the horizon" "$(FRONTDESK_NOW="2026-12-09T09:00" fd check 2>&1)" \
	"media-processing-long: medium $m11 (host $(host "$m11" id), vault $(host "$m11" provider_ref)) has been processing since"
ctl finish "{\"id\": \"$(host "$m11" provider_ref)\", \"status\": \"ready\"}" >/dev/null
run --all
is "settled: check is clean" "$(FRONTDESK_NOW="2026-12-09T09:00" fd check 2>&1 | grep -c 'media-')" 0

# --- the worker killed with SIGKILL while it uploads, again and again: each
# kill lands when an upload is claimed (sending: on its way, or answered and
# not yet recorded), the moment whose outcome only the provider knows
n=0 first=
while [ $n -lt 8 ]; do
	head -c 2500000 /dev/urandom > "$TMP/k$n.bin"
	m=$(add "$TMP/k$n.bin" --kind model)
	[ -n "$first" ] || first=$m
	n=$((n + 1))
done
ctl processing '{"seconds": 0}' >/dev/null
mine="integration_type = 'media' AND json_extract(payload, '\$.media') >= $first"
sending() { [ "$(db "SELECT count(*) FROM outbox_event WHERE $mine AND status = 'sending'")" -gt 0 ]; }
# catch_sending: ask without pause (an upload is in flight for a few
# milliseconds only: until_ok's tenths missed every one under ASan), 20 s at most
catch_sending() {
	end=$(($(date +%s) + 20))
	while [ "$(date +%s)" -lt "$end" ]; do
		sending && return 0
	done
	return 1
}
k=0 inflight=0
while [ $k -lt $KILLS ] && [ "$(db "SELECT count(*) FROM outbox_event WHERE $mine AND status <> 'succeeded'")" -gt 0 ]; do
	"$FRONTDESK" serve --lease-seconds 2 --poll-seconds 1 --quiet 2>>"$TMP/serve.err" & S=$!
	catch_sending
	kill -9 "$S"; wait "$S" 2>/dev/null; S=
	k=$((k + 1))
	sending && inflight=$((inflight + 1))
done
echo "# $k kills, $inflight left an upload in flight"
ok "a kill left an upload in flight (its outcome unknown here)" test "$inflight" -gt 0
all_ready() { run --all; [ "$(db "SELECT count(*) FROM media_host WHERE media_id >= $first AND status <> 'ready'")" = 0 ]; }
ok "the next runs finish the uploads" until_ok 120 all_ready
is "each killed upload is at the provider once" \
	"$(state | jget "len([m for m in d['media'] if int(m['reference'].split('-M')[1]) >= $first])")" 8
is "each with its file" \
	"$(state | jget "' '.join(m['sha256'] for m in sorted(d['media'], key=lambda m: int(m['reference'].split('-M')[1])) if int(m['reference'].split('-M')[1]) >= $first)")" \
	"$(db "SELECT group_concat(sha256, ' ') FROM (SELECT sha256 FROM media_item WHERE id >= $first ORDER BY id)")"
is "and one host each, with its own id" "$(db "SELECT count(*), count(DISTINCT provider_ref) FROM media_host WHERE media_id >= $first")" "8|8"
ok "frontdesk check is clean" fd check

# --- reviving follows the host: not an upload for a medium hosted already
refused "a succeeded upload is not revived" outbox retry "$(cmd "$m2" id)"

# --- a disabled provider is not called
fd condition provider-set vault --disable >/dev/null
out=$(fd condition media run --once --provider vault 2>&1); st=$?
is "a disabled provider: refused" "$st" 1
like "... saying so" "$out" "the media provider 'vault' is disabled"
out=$(fd condition media run --once 2>&1); st=$?
like "no provider enabled: nothing to run" "$st $out" "1 frontdesk: no media provider is enabled"
done_testing
