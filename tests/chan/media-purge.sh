#!/bin/sh
# media-purge.sh - a retention purge of a customer whose condition reports'
# media a media provider hosts (the fake written from the contract alone,
# tests/chan/fake-media.py): the purge lets every hosted copy go (a
# media.delete command each) and writes them into the deletion's
# certificate; the worker then deletes them at the provider (a photo ready,
# a panorama still processing), through a provider that is down for a
# while; an upload that never left is not sent, and nothing is asked of the
# provider for it; an upload whose answer was lost before the purge took
# its copy cannot be named to the provider, and check says so with the
# reference to ask it about; an upload whose answer is in flight when the
# purge lands is recorded with its provider id only, and then deleted; the
# final report's printed document goes with the purge (its hash stays).
# Every secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/png.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"

KEY=mk_test_purge_made_up
trap 'kill $FAKE_PID 2>/dev/null; rm -rf "$TMP"' EXIT
fake_run fake-media.py 300 --api-key "$KEY" --processing-seconds 3600
ok "the fake media provider listens" test -n "$PORT"
export TZ=America/New_York
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'vault_api_key = %s\n' "$KEY" > "$XDG_CONFIG_HOME/frontdesk/secrets")
state() { curl -s --max-time 10 "$BASE/_control/state"; }
run() { fd condition media run --once "$@" >/dev/null; }
add() { fd --json condition media add "$@" | jget 'd["id"]'; }
host() { db "SELECT $2 FROM media_host WHERE media_id = $1"; }
cmd() { db "SELECT $3 FROM outbox_event WHERE integration_type = 'media' AND event_type = 'media.$2' AND json_extract(payload, '\$.media') = $1"; }
# deleted_there M: whether the provider deleted medium M's copy
deleted_there() { state | jget "[m['deleted'] for m in d['media'] if m['reference'].endswith('-M$1')][0]"; }

export FRONTDESK_NOW="2022-03-10 08:00"
fd init >/dev/null
fd customer add --name "Old Client" --phone 5550199 >/dev/null
fd book --customer 1 --start "2022-03-10 09:00" --length 1:00 >/dev/null
fd visit status 1 in_progress >/dev/null
fd visit status 1 done >/dev/null
fd condition add --visit 1 --note "dent" >/dev/null
fd condition provider-set vault --url "$BASE" >/dev/null
png "$TMP/a.png" 30 20 9 9 9
png "$TMP/pano.png" 200 100 9 9 200
png "$TMP/lost.png" 31 20 9 9 9
head -c 3000 /dev/urandom > "$TMP/scan.bin"
m1=$(add 1 "$TMP/a.png")
m2=$(add 1 "$TMP/pano.png" --kind panorama)
run
png "$TMP/late.png" 32 20 9 9 9
m3=$(add 1 "$TMP/lost.png")
m5=$(add 1 "$TMP/late.png")
m4=$(add 1 "$TMP/scan.bin" --kind model)
is "before the purge: a photo ready, a panorama processing" "$(host "$m1" status) $(host "$m2" status)" "ready processing"
fd condition finalize 1 >/dev/null
doc=$(db "SELECT document_path FROM condition_report WHERE id = 1")
ok "the report is final, its document beside the database" test -s "$(dirname "$FRONTDESK_DB")/media/$doc"

# --- the purge lands while a round is at the provider: m3's answer is
# lost, m5's is held 4 s (the purge comes then), m4 is not sent yet
export FRONTDESK_NOW="2026-12-01 09:00"
fd retention run >/dev/null
ctl drop '{"n": 1}' >/dev/null
ctl hold '{"n": 1, "seconds": 4}' >/dev/null
(fd condition media run --once >/dev/null 2>"$TMP/race.err"; echo $? > "$TMP/race.rc") &
in_flight() { [ "$(cmd "$m5" upload status)" = sending ] && [ "$(state | jget 'd["uploads"]')" = 4 ]; }
ok "an upload in flight, held at the provider" until_ok 20 in_flight
export FRONTDESK_NOW="2027-01-05 09:00"
fd retention run >/dev/null
round_over() { test -s "$TMP/race.rc"; }
until_ok 30 round_over
is "its answer after the purge: the round ends well" "$(cat "$TMP/race.rc") $(cat "$TMP/race.err")" "0 "
is "the answer is recorded: the host still to delete, with the provider's id" \
	"$(host "$m5" status) $(host "$m5" "provider_ref IS NOT NULL") $(cmd "$m5" upload status)" "deleting 1 succeeded"
is "the round's others: an answer lost, an upload never sent" \
	"$(host "$m3" "provider_ref IS NULL")/$(cmd "$m3" upload status) $(cmd "$m4" upload status)" "1/dead dead"
is "the provider holds four" "$(state | jget 'd["uploads"]')" 4
d=$(fd --json retention certs | jget 'd["certificates"][0]["deletion_id"]')
ok "the customer is purged" test -n "$d"
is "every host is let go" "$(db "SELECT group_concat(status) FROM media_host")" "deleting,deleting,deleting,deleting,deleting"
is "a deletion command each" "$(db "SELECT count(*) FROM outbox_event WHERE event_type = 'media.delete' AND status = 'pending'")" 5
is "the certificate names the hosted copies, none deleted yet" \
	"$(fd --json retention certs | jget 'd["certificates"][0]["hosted_copies"]["asked"], d["certificates"][0]["hosted_copies"]["deleted"]')" "5 0"
is "in the certificate's table" "$(db "SELECT group_concat(host_id) FROM retention_hosted_copy WHERE deletion_id = '$d'")" \
	"$(db "SELECT group_concat(id) FROM media_host")"
ok "the schema refuses to change the certificate's copies" sh -c "! sqlite3 '$FRONTDESK_DB' \"DELETE FROM retention_hosted_copy\" 2>/dev/null"

# --- the worker deletes them, through a provider down for a while
ctl fail '{"all": 2}' >/dev/null
run
is "the provider down: the deletions wait for the backoff" "$(cmd "$m1" delete status)" failed
gone() { run; [ "$(host "$m1" status) $(host "$m2" status) $(host "$m5" status)" = "deleted deleted deleted" ]; }
ok "deleted once it is back" until_ok 60 gone
is "the provider deleted the photo, the panorama and the one answered after the purge" \
	"$(deleted_there "$m1") $(deleted_there "$m2") $(deleted_there "$m5")" "True True True"
is "an upload that never left is not sent" "$(cmd "$m4" upload status) $(host "$m4" status)" "dead deleted"
is "and nothing was asked of the provider for it" "$(state | jget 'd["uploads"]')" 4
# the lost answer: its copy went with the purge, so the upload cannot be sent
# again to learn the provider's id
lost() { run; [ "$(cmd "$m3" delete status)" = dead ]; }
ok "a copy the provider may hold and nobody can name: given up" until_ok 60 lost
like "saying the reference to ask the provider about" "$(cmd "$m3" delete last_error)" "CR-1-M$m3"
like "check says so" "$(fd check 2>&1)" "media-command-dead: outbox command $(cmd "$m3" delete id) (media.delete of CR-1-M$m3-H"
is "the provider does hold it" "$(deleted_there "$m3")" False
is "the certificate: five asked, four deleted" \
	"$(fd --json retention certs | jget 'd["certificates"][0]["hosted_copies"]["asked"], d["certificates"][0]["hosted_copies"]["deleted"]')" "5 4"
like "its line says so" "$(fd retention certs)" "5 hosted media copies asked deleted at their providers (4 deleted)"
refused "a purged medium's copy is never fetched back" condition media fetch "$m1"
is "no copy is left beside the database, nor the report's document" "$(ls -A "$(dirname "$FRONTDESK_DB")/media" | wc -l)" 0
is "the document's path is gone, its hash kept" \
	"$(db "SELECT document_path IS NULL, length(document_sha256) FROM condition_report WHERE id = 1")" "1|64"
is "... in its history too" "$(db "SELECT count(*) FROM condition_report_his WHERE document_path IS NOT NULL")" 0
ok "check looks for no document" sh -c "! \"$FRONTDESK\" check 2>&1 | grep -q condition-document"
done_testing
