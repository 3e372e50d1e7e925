#!/bin/sh
# ui-condition.sh - a visit's pane lists its condition reports: each with
# its stage and state, its media (kind in words, caption) and the hotspots
# on them by number; a report added while the pane is open appears; a text
# with an escape sequence is shown harmless; where each medium is hosted
# (kept here only, uploading, ready with the viewer's address), against the
# fake media provider.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=mk_test_screen_made_up
FAKE_PID=
trap 'screen_stop; [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

python3 - "$TMP/door.png" <<'EOF'
import struct, sys, zlib
def ch(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
raw = b''.join(b'\x00' + bytes([200, 40, 40] * 8) for _ in range(6))
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
screen_stop

# in Chinese the words are the translations
SCREEN_LANG=zh_CN.UTF-8
screen_start
# (the screen opens where it was left: the day)
shows_re "zh_CN: the day with the visit selected" "^> 10:00-11:00"
keys Enter
shows_re "zh_CN: the medium's kind translated" "照片"
shows_re "zh_CN: the hotspot's kind translated" "#1 损伤"
shows "zh_CN: the host's state translated" "在 vault：已就绪"
screen_stop

done_testing
