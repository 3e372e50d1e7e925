#!/bin/sh
# ui-condition.sh - a visit's pane lists its condition reports: each with
# its stage and state, its media (kind in words, caption) and the hotspots
# on them by number; a report added while the pane is open appears; a text
# with an escape sequence is shown harmless; where each medium is hosted
# (kept here only, uploading, ready with the viewer's address), against the
# fake media provider. A photo shows its preview in half blocks, in colour
# and (NO_COLOR) without, with its hotspots' numbers on it; a photo whose
# copy is gone says why in one line.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"
. "$TOP_SRCDIR/tests/lib/png.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=mk_test_screen_made_up
FAKE_PID=
trap 'screen_stop; [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

python3 - "$TMP/door.png" <<'EOF'
import struct, sys, zlib
def ch(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
# light grey above, red below
raw = b''.join(b'\x00' + bytes(([230, 230, 230] if y < 3 else [200, 40, 40]) * 8) for y in range(6))
open(sys.argv[1], 'wb').write(b'\x89PNG\r\n\x1a\n' + ch(b'IHDR', struct.pack('>IIBBBBB', 8, 6, 8, 2, 0, 0, 0))
    + ch(b'IDAT', zlib.compress(raw)) + ch(b'IEND', b''))
EOF
fd init >/dev/null
fd customer add --name "Ann Lee" >/dev/null
fd book --customer Ann --start "2026-12-01 10:00" --length 1:00 >/dev/null
fd condition add --visit 1 --note "odometer 41200" >/dev/null
fd condition media add 1 "$TMP/door.png" --caption "driver's door" >/dev/null
fd condition hotspot add --media 1 --kind damage --text "scratch by the handle" --at 0.3,0.6 >/dev/null
python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.create_function("fd_operator", 0, lambda: "test")
c.create_function("fd_now", 0, lambda: 0)
c.execute("UPDATE hotspot SET label = ? WHERE id = 1", ("scratch \x1b[2J by the handle",))
c.commit()' "$FRONTDESK_DB"

screen_start
shows "the calendar opens" "Week of 2026-11-29"
keys d
shows_re "the day view with the visit selected" "^> 10:00-11:00"
keys Enter
shows "the visit's pane" "Visit 1:"
shows "the report before the work, open, with its counts" \
	"Condition report 1 before the work (open): 1 media, 1 hotspots"
shows "its note" "odometer 41200"
shows "its medium: the kind in words and the caption" "Medium 1: photo driver's door, 1 hotspots"
shows_re "its hotspot by number and kind, the escape made harmless" "#1 damage: scratch .*by the handle"
if screen_text | grep -q "$(printf '\033')"; then
	fail "no raw escape on the screen"
else
	pass "no raw escape on the screen"
fi
# the photo's preview: its 8 x 6 pixels fit the pane's box of 40 x 12 cells
# (view-visit.c) as pw x ph pixels, two a cell; hotspot 1 at 0.3, 0.6 lies
# in column int(0.3 pw) of row int(0.6 ph) / 2
pw=$(awk 'BEGIN { k = 40 / 8; if (24 / 6 < k) k = 24 / 6; print int(8 * k) }')
ph=$(awk 'BEGIN { k = 40 / 8; if (24 / 6 < k) k = 24 / 6; print int(6 * k) }')
col=$(awk -v w="$pw" 'BEGIN { print int(0.3 * w) }')
row=$(awk -v h="$ph" 'BEGIN { print int(int(0.6 * h) / 2) }')
shows_re "the photo's preview: a row of $pw upper half blocks" "^ +(▀){$pw}\$"
shows_re "hotspot 1's number on its cell" "^ +(▀){$col}1(▀){$((pw - col - 1))}\$"
first=$(screen_text | grep -nE "^ +(▀){$pw}\$" | head -n 1 | cut -d: -f1)
spot=$(screen_text | grep -nE "^ +(▀){$col}1" | cut -d: -f1)
is "on the row of its cell" "$((spot - first))" "$row"
# in colour: light grey (white, 47) above, red (41) below
picture=$($TMUX_CMD capture-pane -e -p | grep "▀")
like "the upper half's cells in white" "$picture" "47m"
like "the lower half's cells in red" "$picture" "41m"
fd condition add --visit 1 --stage after >/dev/null
shows "a report added meanwhile appears" "Condition report 2 after the work (open): 0 media, 0 hotspots"
shows "a medium no provider hosts says so" "kept here only (no media provider)"
fake_run fake-media.py 120 --api-key "$KEY"
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'vault_api_key = %s\n' "$KEY" > "$XDG_CONFIG_HOME/frontdesk/secrets")
fd condition provider-set vault --url "$BASE" >/dev/null
fd condition media upload 1 >/dev/null
shows "sent to a provider: uploading" "at vault: uploading"
fd condition media run --once >/dev/null
shows "hosted: its state and the viewer's address" "at vault: ready $BASE/view/med_1"
if wait_gone "kept here only"; then pass "and no longer kept here only"; else fail "and no longer kept here only" "$(screen_text)"; fi
# a photo whose copy is gone: one line says why, instead of the preview
png "$TMP/hood.png" 4 4 10 10 200
fd condition media add 2 "$TMP/hood.png" >/dev/null
copy=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT local_path FROM media_item WHERE id = 2").fetchone()[0])' "$FRONTDESK_DB")
rm "$(dirname "$FRONTDESK_DB")/media/$copy"
fd condition hotspot add --media 2 --kind note --text "hood" --at 0.5,0.5 >/dev/null
shows "a photo whose copy is gone: why, in one line" \
	"! no preview: the copy of medium 2 is missing or changed"
screen_stop

# in Chinese the words are the translations; and without colour (NO_COLOR)
# the preview's light pixels are ink: full blocks above, none below
SCREEN_LANG=zh_CN.UTF-8
export NO_COLOR=1
screen_start
# (the screen opens where it was left: the day)
shows_re "zh_CN: the day with the visit selected" "^> 10:00-11:00"
keys Enter
shows_re "no colour: the light half in full blocks" "^ +(█){$pw}\$"
shows_re "no colour: hotspot 1 on the dark half" "^ {$((col + 1)),}1\$"
is "no colour: no colour used" "$($TMUX_CMD capture-pane -e -p | grep -c "41m")" 0
shows_re "zh_CN: the medium's kind translated" "照片"
shows_re "zh_CN: the hotspot's kind translated" "#1 损伤"
shows "zh_CN: the host's state translated" "在 vault：已就绪"
screen_stop

done_testing
