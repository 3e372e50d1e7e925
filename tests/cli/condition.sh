#!/bin/sh
# condition.sh - condition reports on the command line: a visit's report
# before (and after) the work, its media (a copy beside the database with
# the original's SHA-256, JPEG or PNG for photos and panoramas, any file
# for a 3D capture) and its hotspots (numbered in the report, coordinates
# checked against the medium's own system, links to a line item of the
# visit, a resource and an earlier report's hotspot of the same customer,
# edits kept in the history); every refusal changes nothing and leaves no
# copy; `check` sees a copy missing or changed; the schema refuses deletes
# and a changed original.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/png.sh"
db() { sqlite3 "$FRONTDESK_DB" "$1"; }
jq_() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
MEDIA="$TMP/media"


fd init >/dev/null
fd customer add --name "Ann Lee" >/dev/null
fd customer add --name "Bob Roe" >/dev/null
fd resource add --name "Bay 1" --kind bay >/dev/null
export FRONTDESK_NOW="2026-11-02 09:00"
fd book --customer Ann --start "2026-11-02 10:00" --length 1:00 >/dev/null # visit 1, job 1
export FRONTDESK_NOW="2026-12-01 09:00"
fd book --customer Ann --start "2026-12-01 10:00" --length 1:00 >/dev/null # visit 2, job 2
fd item add --job 2 --description "Door repair" --price 120.00 >/dev/null   # item 1
fd book --customer Bob --start "2026-12-01 12:00" --length 1:00 >/dev/null # visit 3, job 3
fd item add --job 3 --description "Wax" --price 20.00 >/dev/null           # item 2
fd visit add --start "2026-12-02 10:00" --end "2026-12-02 11:00" >/dev/null # visit 4: no job
fd book --customer Bob --start "2026-12-03 10:00" --length 1:00 >/dev/null # visit 5, job 4
fd link add --appt 5 --job 2 >/dev/null

# --- reports ---------------------------------------------------------------
out=$(fd condition add --visit 2 --note "odometer 41200")
like "a report is added to a visit, before the work by default" "$out" "Condition report 1 added"
is "... before, open, with its note" "$(db "SELECT appointment_id, stage, status, note FROM condition_report")" \
	"2|before|open|odometer 41200"
refused "a second report of the same stage" condition add --visit 2
like "... names the report there" "$(cat "$TMP/err")" "report 1"
ok "an after report of the same visit" fd condition add --visit 2 --stage after
refused "a stage that is not one" condition add --visit 2 --stage during
refused "a visit that does not exist" condition add --visit 99
refused "a visit that works on no job" condition add --visit 4
if [ "$(db "SELECT count(DISTINCT s.customer_id) FROM appointment_work w JOIN service_order s ON s.id = w.service_order_id WHERE w.appointment_id = 5")" = 2 ]; then
	refused "a visit that works for two customers" condition add --visit 5
else
	fail "the test's visit 5 works for two customers" "$(db "SELECT * FROM appointment_work")"
fi
refused "a note with a control character" condition add --visit 1 --note "$(printf 'a\033[2Jb')"
ok "a report of the earlier visit" fd condition add --visit 1
ok "a report of Bob's visit" fd condition add --visit 3
is "the list, newest visit first" "$(fd --json condition list --customer 1 | jq_ '[(r["id"], r["stage"]) for r in d["reports"]]')" \
	"[(1, 'before'), (2, 'after'), (3, 'before')]"
is "... of one visit" "$(fd --json condition list --visit 3 | jq_ '[(r["id"], r["customer"]) for r in d["reports"]]')" \
	"[(4, 'Bob Roe')]"

# --- media -----------------------------------------------------------------
png "$TMP/door.png" 40 30 200 30 30
png "$TMP/hood.png" 20 20 30 30 200
printf '\377\330\377\340fake-jpeg-body' > "$TMP/pano.jpg"
printf 'ply\nformat ascii 1.0\nelement vertex 0\nend_header\n' > "$TMP/room.ply"
printf 'just text\n' > "$TMP/notes.txt"
: > "$TMP/empty.png"
out=$(fd --json condition media add 1 "$TMP/door.png" --caption "driver's door")
is "a photo is added with the original's SHA-256 and size" \
	"$(echo "$out" | jq_ 'd["kind"], d["content_type"], d["sha256"], d["size"], d["caption"], d["file_name"]')" \
	"photo image/png $(sha256sum "$TMP/door.png" | cut -d' ' -f1) $(stat -c %s "$TMP/door.png") driver's door door.png"
copy="$MEDIA/$(echo "$out" | jq_ 'd["local_path"]')"
is "... its copy beside the database is the same file" "$(cmp "$copy" "$TMP/door.png" && echo same)" same
ok "a panorama (a JPEG)" fd condition media add 1 "$TMP/pano.jpg" --kind panorama
is "... read as a JPEG from its first bytes" "$(db "SELECT content_type FROM media_item WHERE id = 2")" image/jpeg
ok "a 3D capture (any file)" fd condition media add 1 "$TMP/room.ply" --kind model
ok "a photo of Bob's report" fd condition media add 4 "$TMP/hood.png"
n=$(ls "$MEDIA" | wc -l)
is "one copy per medium" "$n" 4
refused "a photo that is not a JPEG or PNG" condition media add 1 "$TMP/notes.txt"
refused "an empty file" condition media add 1 "$TMP/empty.png"
refused "a file that does not exist" condition media add 1 "$TMP/none.png"
refused "the same file twice in a report" condition media add 1 "$TMP/door.png" --caption again
like "... names the medium there" "$(cat "$TMP/err")" "medium 1"
refused "a report that does not exist" condition media add 9 "$TMP/hood.png"
refused "a kind that is not one" condition media add 1 "$TMP/hood.png" --kind video
is "no refusal left a copy" "$(ls "$MEDIA" | wc -l)" "$n"
is "the media list" "$(fd --json condition media list 1 | jq_ '[(m["id"], m["kind"]) for m in d["media"]]')" \
	"[(1, 'photo'), (2, 'panorama'), (3, 'model')]"

# --- hotspots --------------------------------------------------------------
out=$(fd --json condition hotspot add --media 1 --kind damage --text "scratch" --at 0.25,0.75 --item 1 --resource 1)
is "a hotspot on a photo: numbered 1, x and y" \
	"$(echo "$out" | jq_ 'd["number"], d["system"], d["at"], d["line_item_id"], d["resource_id"]')" \
	"1 image {'x': 0.25, 'y': 0.75} 1 1"
out=$(fd --json condition hotspot add --media 2 --kind meter --text "gas meter" --at -180,-12.5)
is "on a panorama: yaw and pitch, -180 read as 180, numbered 2" \
	"$(echo "$out" | jq_ 'd["number"], d["system"], d["at"]')" "2 equirect {'yaw': 180, 'pitch': -12.5}"
out=$(fd --json condition hotspot add --media 3 --kind device --text "boiler" --at 1.5,-2,0.25)
is "in a 3D capture: x, y and z" "$(echo "$out" | jq_ 'd["number"], d["system"], d["at"]')" \
	"3 model {'x': 1.5, 'y': -2, 'z': 0.25}"
out=$(fd --json condition hotspot add --media 4 --kind note --text "old chip" --at 0.5,0.5)
is "another report's numbers start at 1" "$(echo "$out" | jq_ 'd["number"]')" 1
refused "a photo's x beyond 1" condition hotspot add --media 1 --kind damage --text t --at 1.2,0.5
refused "a photo's place with three numbers" condition hotspot add --media 1 --kind damage --text t --at 0.1,0.2,0.3
refused "a decimal comma" condition hotspot add --media 1 --kind damage --text t --at "0,5;0,5"
refused "a panorama's pitch beyond 90" condition hotspot add --media 2 --kind note --text t --at 10,91
refused "a 3D point with two numbers" condition hotspot add --media 3 --kind note --text t --at 1,2
refused "a coordinate that is not a number" condition hotspot add --media 1 --kind note --text t --at nan,0.5
refused "a kind that is not one" condition hotspot add --media 1 --kind crack --text t --at 0.5,0.5
refused "an empty text" condition hotspot add --media 1 --kind note --text "" --at 0.5,0.5
refused "a medium that does not exist" condition hotspot add --media 99 --kind note --text t --at 0.5,0.5
refused "a line item of another visit's job" condition hotspot add --media 1 --kind damage --text t --at 0.5,0.5 --item 2
refused "a resource that does not exist" condition hotspot add --media 1 --kind damage --text t --at 0.5,0.5 --resource 9
usage=$(fd condition hotspot add --media 1 --kind note --text t --at 0.5,0.5 --item x 2>&1)
is "a link that is not an id is bad usage" "$?" 2

# the same scratch seen at the earlier visit: report 3 (visit 1, November)
fd condition media add 3 "$TMP/hood.png" >/dev/null # medium 5
old=$(fd --json condition hotspot add --media 5 --kind damage --text "scratch, first seen" --at 0.2,0.7 | jq_ 'd["id"]')
ok "a link to the same mark on an earlier report of the customer" \
	fd condition hotspot edit 1 --earlier "$old"
refused "... not to a hotspot of the same report" condition hotspot edit 1 --earlier 2
refused "... not to another customer's" condition hotspot edit 1 --earlier 4
refused "... not to a later report's" condition hotspot edit "$old" --earlier 1
refused "... not to itself" condition hotspot edit 1 --earlier 1

# edits: the identity, number and medium stay; the history keeps each state
his0=$(db "SELECT count(*) FROM hotspot_his WHERE id = 1")
ok "a hotspot's text and place are changed" fd condition hotspot edit 1 --text "long scratch" --at 0.3,0.7
is "... its id, number and medium stay" "$(db "SELECT id, number, media_id, label, x, y FROM hotspot WHERE id = 1")" \
	"1|1|1|long scratch|0.3|0.7"
is "... the history keeps the state before" "$(db "SELECT count(*) FROM hotspot_his WHERE id = 1 AND label = 'scratch'")" 2
is "... and holds the new one" "$(db "SELECT count(*) - $his0 FROM hotspot_his WHERE id = 1")" 1
ok "a link is removed with none" fd condition hotspot edit 1 --resource none
is "... the others stay" "$(db "SELECT coalesce(resource_id, '-'), line_item_id, earlier_id FROM hotspot WHERE id = 1")" "-|1|$old"
refused "an edit that changes nothing" condition hotspot edit 1
refused "a hotspot that does not exist" condition hotspot edit 99 --text x
refused "a place outside the medium" condition hotspot edit 2 --at 200,0

# the timeline: history hotspot, medium and condition
like "history hotspot: the text's change" "$(fd history hotspot 1)" "label: scratch -> long scratch"
like "history medium: its original" "$(fd history medium 1)" "sha256: $(sha256sum "$TMP/door.png" | cut -d' ' -f1)"
like "history condition: its media as its parts" "$(fd history condition 1)" "medium 3: created"

# show and list
out=$(fd condition show 1)
like "show: the visit and customer" "$out" "Customer: Ann Lee"
like "show: the media" "$out" "driver's door"
like "show: the hotspots by number" "$out" "#1   damage"
is "show --json: media and hotspots" "$(fd --json condition show 1 | jq_ 'd["stage"], len(d["media"]), [h["number"] for h in d["hotspots"]]')" \
	"before 3 [1, 2, 3]"
is "list: the counts" "$(fd --json condition list --visit 2 | jq_ '[(r["media"], r["hotspots"]) for r in d["reports"]]')" \
	"[(3, 3), (0, 0)]"
fd condition hotspot add --media 1 --kind note --text "$(printf 'a\tb')" --at 0.5,0.5 >/dev/null 2>&1
is "a text with a tab is refused" "$?" 1
refused "a missing report" condition show 42

# --- check and the schema --------------------------------------------------
is "check is clean" "$(fd check 2>&1)" "No problems found."
mv "$copy" "$TMP/aside"
out=$(fd check 2>&1)
is "check: a copy missing is a problem" "$?" 1
like "... named" "$out" "condition-media-missing: medium 1 of condition report 1 is missing"
cp "$TMP/hood.png" "$copy"
out=$(fd check 2>&1)
like "check: a copy changed is a problem" "$out" "condition-media-changed: medium 1 of condition report 1"
mv "$TMP/aside" "$copy"
is "check is clean again" "$(fd check 2>&1)" "No problems found."
db "DELETE FROM hotspot WHERE id = 1" 2>/dev/null
is "the schema keeps hotspots" "$(db "SELECT count(*) FROM hotspot WHERE id = 1")" 1
db "DELETE FROM media_item WHERE id = 1" 2>/dev/null
is "... and media" "$(db "SELECT count(*) FROM media_item WHERE id = 1")" 1
db "UPDATE media_item SET sha256 = replace(sha256, substr(sha256, 1, 1), 'x') WHERE id = 1" 2>/dev/null
is "... and a medium's original" "$(db "SELECT sha256 FROM media_item WHERE id = 1")" "$(sha256sum "$TMP/door.png" | cut -d' ' -f1)"
db "DELETE FROM condition_report WHERE id = 1" 2>/dev/null
is "... and reports" "$(db "SELECT count(*) FROM condition_report")" 4
db "UPDATE hotspot SET media_id = 2 WHERE id = 1" 2>/dev/null
is "... and a hotspot's medium" "$(db "SELECT media_id FROM hotspot WHERE id = 1")" 1

done_testing
