#!/bin/sh
# valgrind-core.sh - the core leaks nothing: the unit tests and a round of
# command-line work run under valgrind's leak checker. Skipped in a
# sanitizer build (valgrind cannot run AddressSanitizer binaries).
. "$TOP_SRCDIR/tests/lib/tap.sh"

if ! command -v valgrind >/dev/null 2>&1; then
	echo "1..0 # SKIP valgrind is not installed"
	exit 0
fi
if sanitized; then
	echo "1..0 # SKIP sanitizer build"
	exit 0
fi
VG="valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99"
bindir=$(dirname "$FRONTDESK")

vg() { $VG "$@" >"$TMP/vg.out" 2>&1; }

vg "$FRONTDESK" init; is "init under valgrind is clean" "$?" 0
vg "$FRONTDESK" customer add --name "Ada Lee" --phone 555-0100; is "customer add clean" "$?" 0
vg "$FRONTDESK" --json customer list; is "customer list --json clean" "$?" 0
vg "$FRONTDESK" customer add --name "$(printf 'bad\033name')"; is "a refusal is clean (exit 1)" "$?" 1
vg "$FRONTDESK" demo; is "demo clean" "$?" 0
vg "$FRONTDESK" --json appt list --from 2026-11-20 --days 14; is "appt list clean" "$?" 0
# Check forks a child per test; CK_FORK=no keeps them in valgrind's view.
for t in check_core check_money check_retention; do
	CK_FORK=no vg "$bindir/tests/unit/$t"; st=$?
	is "$t under valgrind is clean" "$st" 0
	[ "$st" -ne 0 ] && sed 's/^/# /' "$TMP/vg.out" | head -40
done

# The payment channel: an order delivered, its success polled, processed
# into a payment, and an order found paid by the active query.
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=sk_test_made_up_valgrind_key
FAKE_PID=
MEDIA_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; [ -n "$MEDIA_PID" ] && kill "$MEDIA_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
fake_start 120
fake_secrets
fd channel provider-set stripe --url "$BASE" >/dev/null
for t in 1 2; do
	j=$(fd --json job add --customer 1 --title "Card $t" | jget 'd["id"]')
	fd item add --job "$j" --description "Work $t" --price 20 >/dev/null
	fd invoice issue --jobs "$j" >/dev/null
done
set -- $(db "SELECT id FROM invoice WHERE status = 'issued' ORDER BY id")
fd channel charge --invoice "$1" --amount 1 >/dev/null
fd channel charge --invoice "$2" --amount 1 >/dev/null
vg "$FRONTDESK" channel deliver --once --all; is "channel deliver clean" "$?" 0
pi1=$(db "SELECT channel_order_id FROM pay_order ORDER BY id LIMIT 1")
pi2=$(db "SELECT channel_order_id FROM pay_order ORDER BY id DESC LIMIT 1")
ctl "intent/$pi1" '{"status": "succeeded"}' >/dev/null
ctl "intent/$pi2" '{"status": "succeeded", "emit": false}' >/dev/null
vg "$FRONTDESK" channel poll --once; is "channel poll clean" "$?" 0
vg "$FRONTDESK" channel process --once; is "channel process clean" "$?" 0
vg "$FRONTDESK" channel query --once --all; is "channel query clean" "$?" 0
is "both orders paid" "$(db "SELECT group_concat(status) FROM pay_order")" "paid,paid"

# Condition reports: a photo added and hosted by the media provider (its
# upload through the outbox), the report printed
STRIPE_PID=$FAKE_PID
fake_run fake-media.py 120 --api-key mk_test_valgrind_made_up
MEDIA_PID=$FAKE_PID FAKE_PID=$STRIPE_PID
printf 'vault_api_key = mk_test_valgrind_made_up\n' >> "$XDG_CONFIG_HOME/frontdesk/secrets"
fd condition provider-set vault --url "$BASE" >/dev/null
fd book --customer 1 --start "2026-12-01 10:00" --length 1:00 >/dev/null
fd condition add --visit "$(db "SELECT max(id) FROM appointment")" >/dev/null
python3 -c "
import struct, sys, zlib
def ch(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
raw = b''.join(b'\x00' + bytes([90, 90, 200] * 8) for _ in range(6))
open(sys.argv[1], 'wb').write(b'\x89PNG\r\n\x1a\n' + ch(b'IHDR', struct.pack('>IIBBBBB', 8, 6, 8, 2, 0, 0, 0))
    + ch(b'IDAT', zlib.compress(raw)) + ch(b'IEND', b''))" "$TMP/door.png"
vg "$FRONTDESK" condition media add 1 "$TMP/door.png"; is "condition media add (host and upload queued) clean" "$?" 0
vg "$FRONTDESK" condition hotspot add --media 1 --kind damage --text scratch --at 0.5,0.5; is "condition hotspot add clean" "$?" 0
vg "$FRONTDESK" condition media run --once; is "condition media run (the upload) clean" "$?" 0
is "... and the photo is hosted" "$(db "SELECT status FROM media_host")" ready
vg "$FRONTDESK" condition print 1; is "condition print clean" "$?" 0

# Retention: a former customer proposed and soft-deleted, then purged
FRONTDESK_NOW=2022-01-05T09:00 fd customer add --name "Former Customer" >/dev/null
FRONTDESK_NOW=2026-12-01T09:00 vg "$FRONTDESK" retention run; is "retention run (soft delete) clean" "$?" 0
FRONTDESK_NOW=2027-01-05T09:00 vg "$FRONTDESK" retention run; is "retention run (purge) clean" "$?" 0
is "... and the former customer is purged" "$(db "SELECT count(*) FROM retention_certificate")" 1

done_testing
