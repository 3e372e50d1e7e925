#!/bin/sh
# media-move.sh - moving the media of condition reports to another media
# provider, against two fakes written from the contract alone
# (tests/chan/fake-media.py) whose viewers use different frames: each
# medium re-hosted by its own upload command; once it is ready at the new
# provider its hotspots follow it into the new frame (a panorama's yaw, a
# 3D capture's scale and up axis; a photo's place never changes), each
# hotspot keeping its id, number, kind, text, links and earlier history;
# the old provider's copies are deleted there. A frame that cannot hold the
# marks leaves the medium where it was; a host that settles after the move
# is let go. The expected places are computed here from the contract's
# frames, not read from the program. Every secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/png.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"

KEY_A=mk_test_first_made_up
KEY_B=mk_test_second_made_up
trap 'kill $PID_A $PID_B 2>/dev/null; rm -rf "$TMP"' EXIT
# provider a: yaw 0 at a quarter of the image, metres with y up;
# provider b: yaw 0 at three quarters, millimetres with z up
fake_run fake-media.py 300 --api-key "$KEY_A" --processing-seconds 3600 --yaw-origin 0.25
PID_A=$FAKE_PID BASE_A=$BASE
fake_run fake-media.py 300 --api-key "$KEY_B" --processing-seconds 3600 --yaw-origin 0.75 \
	--unit-m 0.001 --up z
PID_B=$FAKE_PID BASE_B=$BASE
ok "two fake media providers listen" test -n "$BASE_A" -a -n "$BASE_B" -a "$BASE_A" != "$BASE_B"
export TZ=America/New_York FRONTDESK_NOW="2026-12-01T09:00"
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'a_api_key = %s\nb_api_key = %s\n' "$KEY_A" "$KEY_B" > "$XDG_CONFIG_HOME/frontdesk/secrets")

add() { fd --json condition media add "$@" | jget 'd["id"]'; }
mark() { fd --json condition hotspot add "$@" | jget 'd["id"]'; }
run() { fd condition media run --once "$@" >/dev/null; }
host_at() { db "SELECT $3 FROM media_host WHERE media_id = $1 AND provider_code = '$2' ORDER BY id DESC LIMIT 1"; }
# finish M CODE BASE: the provider settles medium M's processing, ready
finish() { curl -s --max-time 10 -d "{\"id\": \"$(host_at "$1" "$2" provider_ref)\", \"status\": \"ready\"}" "$3/_control/finish" >/dev/null; }
# what a hotspot is, but for its place and its updated_at
ident() { db "SELECT id, report_id, media_id, number, kind, label, system, coalesce(line_item_id, '-'), coalesce(resource_id, '-'), coalesce(earlier_id, '-'), created_at FROM hotspot ORDER BY id"; }
place() { db "SELECT coalesce(x, ''), coalesce(y, ''), coalesce(z, ''), coalesce(yaw, ''), coalesce(pitch, '') FROM hotspot WHERE id = $1"; }
his() { db "SELECT * FROM hotspot_his ORDER BY his_id"; }
# near GOT WANT: the places agree within 1e-6 (each a "|"-separated row)
near() {
	python3 - "$1" "$2" <<'EOF'
import sys
g, w = (s.split('|') for s in sys.argv[1:3])
ok = len(g) == len(w) and all((a == b == '') or (a != '' and b != '' and abs(float(a) - float(b)) < 1e-6) for a, b in zip(g, w))
sys.exit(0 if ok else 1)
EOF
}
# yaw YAW FROM TO: a panorama's yaw carried from the frame whose yaw 0 looks
# at column FROM into the one whose yaw 0 looks at column TO (the contract:
# yaw grows to the right, a whole turn is the image's width), in (-180, 180]
yaw() { python3 -c "
import sys
y = (float(sys.argv[1]) + (float(sys.argv[2]) - float(sys.argv[3])) * 360) % 360
print(repr(y - 360 if y > 180 else y))" "$1" "$2" "$3"; }

fd init >/dev/null
fd customer add --name "Lee Park" --phone 555-0142 >/dev/null
fd resource add --name "Bay 1" --kind bay >/dev/null
fd book --customer "Lee Park" --start "2026-11-20 10:00" --length 1:00 >/dev/null # visit 1, job 1
fd book --customer "Lee Park" --start "2026-12-01 10:00" --length 1:00 >/dev/null # visit 2, job 2
fd item add --job 2 --description "Door repair" --price 120.00 >/dev/null            # item 1
fd condition add --visit 1 >/dev/null                                                  # report 1
fd condition add --visit 2 >/dev/null                                                  # report 2
png "$TMP/old.png" 30 20 1 2 3
png "$TMP/door.png" 40 30 200 40 40
png "$TMP/pano.png" 200 100 40 40 200
png "$TMP/pano2.png" 201 100 40 40 200
head -c 5000 /dev/urandom > "$TMP/scan.bin"
head -c 5001 /dev/urandom > "$TMP/far.bin"
m0=$(add 1 "$TMP/old.png")
m1=$(add 2 "$TMP/door.png")
m2=$(add 2 "$TMP/pano.png" --kind panorama)
m3=$(add 2 "$TMP/scan.bin" --kind model)
m4=$(add 2 "$TMP/far.bin" --kind model)
h0=$(mark --media "$m0" --kind damage --text "scratch, last time" --at 0.3,0.6)
h1=$(mark --media "$m1" --kind damage --text "scratch" --at 0.25,0.6 --item 1 --resource 1 --earlier "$h0")
h2=$(mark --media "$m2" --kind note --text "cracked tile" --at 30,-10)
h3=$(mark --media "$m2" --kind meter --text "meter" --at -170,5)
h4=$(mark --media "$m3" --kind device --text "valve" --at 1.5,-2,0.25)
h5=$(mark --media "$m4" --kind note --text "far corner" --at 1500,0,1)
is "no provider yet: no host" "$(db "SELECT count(*) FROM media_host")" 0

# --- the first provider: media added before it are sent there by a move
ok "provider a" fd condition provider-set a --url "$BASE_A"
refused "a move needs a provider that exists" condition media move --to nowhere
is "a move sends every medium kept here" "$(fd --json condition media move --to a | jget 'd["sent"]')" 5
refused "a move to a provider that hosts them all already sends nothing" condition media upload "$m1" --provider a
run
finish "$m2" a "$BASE_A"; finish "$m3" a "$BASE_A"; finish "$m4" a "$BASE_A"
run --all
is "every medium is ready at a" "$(db "SELECT group_concat(status) FROM media_host")" "ready,ready,ready,ready,ready"
ident0=$(ident)
ok "a photo's mark is where it was" near "$(place "$h1")" "0.25|0.6|||"
ok "a panorama's marks follow a's frame (yaw 0 at a quarter, not the middle)" \
	near "$(place "$h2")|$(place "$h3")" "|||$(yaw 30 0.5 0.25)|-10||||$(yaw -170 0.5 0.25)|5"
ok "a 3D capture in a frame like its own is not moved" near "$(place "$h4")" "1.5|-2|0.25||"
is "only the moved marks have a new history row" \
	"$(db "SELECT group_concat(id || ':' || n) FROM (SELECT id, count(*) n FROM hotspot_his GROUP BY id ORDER BY id)")" \
	"$h0:1,$h1:1,$h2:2,$h3:2,$h4:1,$h5:1"

# a panorama a still processes when the move starts
png "$TMP/pano3.png" 202 100 40 40 200
m6=$(add 2 "$TMP/pano3.png" --kind panorama)
h6=$(mark --media "$m6" --kind note --text "late one" --at 90,0)
run
is "a panorama still processing at a" "$(host_at "$m6" a status)" processing
his0=$(his)
p2a=$(place "$h2") p3a=$(place "$h3") p6=$(place "$h6")

# --- the move to b: different frames
ok "b becomes the primary, a stays enabled" sh -c "$FRONTDESK condition provider-set a --role backup >/dev/null && $FRONTDESK condition provider-set b --url '$BASE_B' --role primary >/dev/null"
is "the move sends each medium to b" "$(fd --json condition media move --to b | jget 'd["sent"]')" 6
is "one upload command each" "$(db "SELECT count(*) FROM outbox_event WHERE integration_type = 'media' AND event_type = 'media.upload' AND provider_code = 'b'")" 6
run
is "photos are ready at b at once" "$(host_at "$m0" b status) $(host_at "$m1" b status)" "ready ready"
is "and their copies at a deleted" "$(host_at "$m0" a status) $(host_at "$m1" a status)" "deleted deleted"
is "a no longer holds them" \
	"$(curl -s "$BASE_A/_control/state" | jget "sorted(m['deleted'] for m in d['media'] if m['reference'] in ('CR-1-M$m0', 'CR-2-M$m1'))")" "[True, True]"
is "the panorama waits for b's processing, its marks in a's frame" "$(host_at "$m2" b status) $(place "$h2")" "processing $p2a"
finish "$m2" b "$BASE_B"; finish "$m3" b "$BASE_B"; finish "$m4" b "$BASE_B"; finish "$m6" b "$BASE_B"
run --all
is "ready at b" "$(host_at "$m2" b status) $(host_at "$m3" b status) $(host_at "$m6" b status)" "ready ready ready"
ok "the panorama's marks follow b's frame" \
	near "$(place "$h2")|$(place "$h3")" \
	"|||$(yaw 30 0.5 0.75)|-10||||$(yaw -170 0.5 0.75)|5"
ok "the late panorama's mark moved from its own frame to b's" near "$(place "$h6")" "|||$(yaw 90 0.5 0.75)|0"
ok "the 3D capture's mark: millimetres, z up (toward the viewer is -y)" near "$(place "$h4")" "1500|-250|-2000||"
is "every hotspot keeps its id, report, medium, number, kind, text, links and creation" "$(ident)" "$ident0
$(db "SELECT id, report_id, media_id, number, kind, label, system, coalesce(line_item_id, '-'), coalesce(resource_id, '-'), coalesce(earlier_id, '-'), created_at FROM hotspot WHERE id = $h6")"
is "its earlier history is as it was" "$(his | head -n "$(printf '%s\n' "$his0" | wc -l)")" "$his0"
is "and the move is one more row for each mark it moved" "$(db "SELECT count(*) FROM hotspot_his")" \
	"$(( $(printf '%s\n' "$his0" | wc -l) + 4 ))"
is "the old hosts at a are deleted" "$(db "SELECT group_concat(status) FROM (SELECT status FROM media_host WHERE provider_code = 'a' AND media_id IN ($m0, $m1, $m2, $m3) ORDER BY id)")" "deleted,deleted,deleted,deleted"
is "a holds none of them any more" \
	"$(curl -s "$BASE_A/_control/state" | jget "sum(1 for m in d['media'] if not m['deleted'])")" 2

# --- a frame that cannot hold a mark: the medium stays where it was
like "b cannot hold the far corner (1500 m is beyond 1000000 mm)" "$(host_at "$m4" b "status || ' ' || error")" "failed"
is "its host at a stays ready" "$(host_at "$m4" a status)" ready
ok "its mark is where it was" near "$(place "$h5")" "1500|0|1||"

# --- a's panorama settles after the move: let go, the marks stay in b's frame
p6b=$(place "$h6")
finish "$m6" a "$BASE_A"
run --all
is "the late host at a is let go once it settles" "$(host_at "$m6" a status)" deleting
run
is "and deleted at a by the next round" "$(host_at "$m6" a status)" deleted
is "the marks stay in b's frame" "$(place "$h6")" "$p6b"

ok "frontdesk check is clean" fd check
like "show lists both hosts" "$(fd condition media show "$m2")" "deleted"
done_testing
