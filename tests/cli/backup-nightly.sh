#!/bin/sh
# backup-nightly.sh - the nightly backup of `frontdesk serve` (backup_dir,
# backup_keep, backup_hour), a night at a time with the FRONTDESK_NOW
# clock: nothing before the hour, one backup a day whatever the restarts,
# checked, with its request log; the oldest beyond backup_keep removed; two
# servers at once take one backup; the time stamped for the status line.
. "$TOP_SRCDIR/tests/lib/tap.sh"
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
db() { sqlite3 "${2:-$FRONTDESK_DB}" "$1"; }
NIGHTLY="$TMP/nightly/shop"
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
cat > "$XDG_CONFIG_HOME/frontdesk/config" <<EOF
backup_dir = $NIGHTLY
backup_keep = 2
backup_hour = 2
EOF
# name NOW: the nightly backup's file for the shop time NOW (YYYY-mm-ddTHH:MM)
name() { echo "$NIGHTLY/frontdesk-$(date -d "$1" +%Y%m%dT%H%M%S).db"; }
count() { ls "$NIGHTLY" 2>/dev/null | grep -c '^frontdesk-[0-9T]*\.db$'; }
said() { grep -q "backup written to" "$1"; }
# night NOW: run serve at NOW until it has said it wrote a backup, then stop it
night() {
	# emptied here, not only by the redirection below, which the shell makes
	# in the background: until_ok could read the last night's words first
	: >"$TMP/serve.err"
	FRONTDESK_NOW=$1 "$FRONTDESK" serve --no-channel >"$TMP/serve.out" 2>"$TMP/serve.err" &
	pid=$!
	PIDS="$PIDS $pid"
	until_ok 30 said "$TMP/serve.err"
	st=$?
	kill "$pid"; wait "$pid" 2>/dev/null
	return $st
}

fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
fd pay record --customer 1 --amount 20 --method cash >/dev/null
db "CREATE TABLE request_log (id INTEGER PRIMARY KEY, keyword TEXT);
    INSERT INTO request_log (keyword) VALUES ('poll');" "$TMP/test-requests.db"

# before the hour: the server runs a while (its first look is at start) and writes nothing
FRONTDESK_NOW=2026-12-01T01:30 fd serve --no-channel --for 2 2>"$TMP/serve.err"
is "nothing before backup_hour" "$(count)" 0
is "nothing stamped" "$(db "SELECT count(*) FROM control WHERE name = 'backup-last'")" 0

ok "after the hour serve takes the night's backup" night 2026-12-01T03:00
first=$(name 2026-12-01T03:00)
ok "it is named after its time" test -f "$first"
like "serve says where it wrote it" "$(cat "$TMP/serve.err")" "backup written to $first and checked"
is "its folder was made private" "$(stat -c %a "$NIGHTLY")" 700
out=$(fd --read-only --db "$first" check 2>&1); like "the nightly backup passes check" "$out" "No problems found"
is "it holds the payment" "$(db 'SELECT count(*) FROM payment' "$first")" "$(db 'SELECT count(*) FROM payment')"
ok "its request log is beside it" test -f "${first%.db}-requests.db"
is "the backup's time is stamped for every session" \
	"$(db "SELECT acquired_at FROM control WHERE name = 'backup-last'")" \
	"$(date -d 2026-12-01T03:00 +%s)"

# the same day again: a restart does not take a second one
FRONTDESK_NOW=2026-12-01T09:00 fd serve --no-channel --for 2 2>"$TMP/serve.err"
is "one backup a day, whatever the restarts" "$(count)" 1

ok "the next night" night 2026-12-02T02:10
ok "and the night after" night 2026-12-03T04:00
is "backup_keep of them are kept" "$(count)" 2
ok "the oldest went" test ! -e "$first"
ok "with its request log" test ! -e "${first%.db}-requests.db"
ok "the newest stays" test -f "$(name 2026-12-03T04:00)"

# two servers at once: one backup
FRONTDESK_NOW=2026-12-04T03:00 "$FRONTDESK" serve --no-channel --for 3 2>"$TMP/a.err" &
A=$!
FRONTDESK_NOW=2026-12-04T03:00 "$FRONTDESK" serve --no-channel --for 3 2>"$TMP/b.err" &
B=$!
PIDS="$PIDS $A $B"
wait "$A"; wait "$B"
is "two servers at once take one backup" "$(ls "$NIGHTLY" | grep -c '^frontdesk-20261204T[0-9]*\.db$')" 1
is "and only one of them says it wrote it" "$(cat "$TMP/a.err" "$TMP/b.err" | grep -c 'backup written to')" 1
is "still backup_keep kept" "$(count)" 2

# a backup_dir that cannot be made is said, and serve keeps running
echo "backup_dir = /proc/no/such/dir" >> "$XDG_CONFIG_HOME/frontdesk/config"
FRONTDESK_NOW=2026-12-05T03:00 fd serve --no-channel --for 2 2>"$TMP/serve.err"
is "serve with an unusable backup_dir still exits 0" "$?" 0
like "it says the nightly backup failed" "$(cat "$TMP/serve.err")" "the nightly backup failed"

done_testing
