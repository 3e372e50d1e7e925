#!/bin/sh
# cli-backup.sh - the restore drill of README.md: a backup taken while a
# writer loop records payments holds every payment acknowledged before it
# began, passes check, and restore brings it back (the replaced database
# kept beside it). The refusals change nothing: a backup over an existing
# file, onto the live database or into a folder; a restore of a missing,
# non-frontdesk, damaged or failing file; a restore while `frontdesk serve`
# or the desk screen has the database open. The desk's status line shows
# the last backup.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"
SERVE=
cleanup() {
	touch "$TMP/stop"
	[ -n "$SERVE" ] && kill "$SERVE" 2>/dev/null
	screen_stop
	rm -rf "$TMP"
}
trap cleanup EXIT
db() { sqlite3 "${2:-$FRONTDESK_DB}" "$1"; }
lines() { if [ -f "$1" ]; then wc -l < "$1" | tr -d ' '; else echo 0; fi; }
acked_at_least() { [ "$(lines "$TMP/acked")" -ge "$1" ]; }
refs() { db "SELECT reference FROM payment WHERE reference LIKE 'W%' ORDER BY reference" "$1"; }
# the files of the two folders, less what SQLite and the tests make while sessions run
files() { ls -A "$TMP/bk" "$TMP" | grep -v -e '^err$' -e '^out$' -e '-wal$' -e '-shm$' -e '^serve.err$' -e '^state$'; }
# nothing_new NAME: the refusal left no new file (no replaced copy, no temporary)
nothing_new() { is "$1: no file was added or removed" "$(files)" "$FILES"; }

fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
mkdir "$TMP/bk"
# a request log beside the database (any SQLite file; the channel writes it)
LOG="$TMP/test-requests.db"
db "CREATE TABLE request_log (id INTEGER PRIMARY KEY, keyword TEXT);
    INSERT INTO request_log (keyword) VALUES ('poll'), ('query_order');" "$LOG"

# --- a backup while a writer loop records payments
writer() {
	i=0
	while [ ! -e "$TMP/stop" ]; do
		i=$((i + 1))
		if fd pay record --customer 1 --amount 1.00 --method cash --reference "W$i" \
			>/dev/null 2>&1; then
			echo "W$i" >> "$TMP/acked"
		fi
	done
}
writer &
WRITER=$!
ok "the writer loop records payments" until_ok 30 acked_at_least 5
cp "$TMP/acked" "$TMP/acked-before"
out=$(fd --json backup "$TMP/bk/b.db" 2>&1); st=$?
is "backup while the writer writes exits 0" "$st" 0
n_before=$(lines "$TMP/acked-before")
ok "the writer keeps being acknowledged after the backup" until_ok 30 acked_at_least $((n_before + 3))
touch "$TMP/stop"
wait "$WRITER"
refs "$TMP/bk/b.db" > "$TMP/in-backup"
is "every payment acknowledged before the backup began is in it" \
	"$(sort "$TMP/acked-before" | comm -23 - "$TMP/in-backup")" ""
ok "the live database has more payments than the backup" \
	test "$(db 'SELECT count(*) FROM payment')" -gt "$(db 'SELECT count(*) FROM payment' "$TMP/bk/b.db")"
out=$(fd --read-only --db "$TMP/bk/b.db" check 2>&1); like "the backup passes check" "$out" "No problems found"
is "the backup is a self-contained file (rollback journal)" "$(db 'PRAGMA journal_mode' "$TMP/bk/b.db")" delete
is "the backup is readable by its owner only" "$(stat -c %a "$TMP/bk/b.db")" 600
is "the request log is copied beside it" \
	"$(db 'SELECT group_concat(keyword) FROM request_log' "$TMP/bk/b-requests.db")" \
	"$(db 'SELECT group_concat(keyword) FROM request_log' "$LOG")"
is "the log's copy is private too" "$(stat -c %a "$TMP/bk/b-requests.db")" 600
is "no temporary file is left" "$(ls -A "$TMP/bk" | grep -c tmp)" 0
is "the last backup is stamped in the control table" \
	"$(db "SELECT epoch FROM control WHERE name = 'backup-last'")" 1
is "the backup lock was released" "$(db "SELECT owner_pid IS NULL FROM control WHERE name = 'backup'")" 1

# --- refusals of backup
FILES=$(files)
sum=$(sha256sum < "$TMP/bk/b.db")
refused "a backup over an existing file" backup "$TMP/bk/b.db"
is "the existing backup is unchanged" "$(sha256sum < "$TMP/bk/b.db")" "$sum"
nothing_new "over an existing file"
refused "a backup onto the live database" backup "$FRONTDESK_DB"
refused "a backup into a folder" backup "$TMP/bk"
nothing_new "onto the live database or a folder"
rm "$TMP/bk/b-requests.db"
touch "$TMP/bk/c-requests.db"
FILES=$(files)
refused "a backup whose request log copy exists" backup "$TMP/bk/c.db"
nothing_new "whose log copy exists"
rm "$TMP/bk/c-requests.db"
fd backup >/dev/null 2>&1; is "backup without a file is a usage error" "$?" 2
ok "--force replaces an existing backup" fd backup --force "$TMP/bk/b.db"
is "the replaced backup has every payment now" "$(refs "$TMP/bk/b.db")" "$(refs "$FRONTDESK_DB")"
is "and the log's copy again" "$(ls "$TMP/bk/b-requests.db")" "$TMP/bk/b-requests.db"
cp "$TMP/bk/b.db" "$TMP/drill.db"
fd pay record --customer 1 --amount 5 --method cash --reference AFTER >/dev/null

# --- refusals of restore: each leaves the live database and the folder alone
echo "not a database" > "$TMP/bk/text.db"
db "CREATE TABLE t (a); INSERT INTO t VALUES (1);" "$TMP/bk/other.db"
cp "$TMP/drill.db" "$TMP/bk/damaged.db"
# page 3 of the copy overwritten: SQLite's integrity_check sees it
head -c 4096 /dev/zero | tr '\0' 'x' | dd of="$TMP/bk/damaged.db" bs=4096 seek=2 conv=notrunc 2>/dev/null
cp "$TMP/drill.db" "$TMP/bk/failing.db"
for t in $(db "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'payment'" "$TMP/bk/failing.db"); do
	db "DROP TRIGGER $t" "$TMP/bk/failing.db"
done
db "UPDATE payment SET amount = amount + 1 WHERE id = 1" "$TMP/bk/failing.db"
FILES=$(files)
refused "restore of a missing file" restore "$TMP/bk/missing.db"
refused "restore of a text file" restore "$TMP/bk/text.db"
like "it says the file cannot be read" "$(cat "$TMP/err")" "text.db is damaged: file is not a database"
refused "restore of an SQLite file that is not frontdesk's" restore "$TMP/bk/other.db"
like "it says so" "$(cat "$TMP/err")" "other.db is not a frontdesk database"
refused "restore of a damaged backup" restore "$TMP/bk/damaged.db"
like "it names the damage" "$(cat "$TMP/err")" "damaged.db is damaged"
refused "restore of a backup that fails check" restore "$TMP/bk/failing.db"
like "it says which check" "$(cat "$TMP/err")" "history-differs"
refused "restore of the live database onto itself" restore "$FRONTDESK_DB"
nothing_new "the refused restores"
fd restore >/dev/null 2>&1; is "restore without a file is a usage error" "$?" 2

# while `frontdesk serve` has the database open
"$FRONTDESK" serve --no-channel --quiet 2>"$TMP/serve.err" &
SERVE=$!
serving() { [ "$(db "SELECT owner_pid FROM control WHERE name = 'runner'")" = "$SERVE" ]; }
ok "serve runs the task runner" until_ok 20 serving
refused "restore while frontdesk serve runs" restore "$TMP/drill.db"
like "it says another session has it open" "$(cat "$TMP/err")" "another session has"
nothing_new "restore while serve runs"
kill "$SERVE"; wait "$SERVE" 2>/dev/null; SERVE=

# while the desk screen has it open (and its status line shows the backup)
taken=$(fd --json backup "$TMP/bk/d.db" | python3 -c 'import json,sys; print(json.load(sys.stdin)["taken_at"])')
rm "$TMP/bk/d.db" "$TMP/bk/d-requests.db"
FILES=$(files)
screen_start
ok "the screen's status line shows the last backup" wait_for "last backup $(date -d "$taken" +%H:%M)"
# (the screen's runner renews its lease in the control table while it is
# open, so the comparison leaves that table out; every record must be as
# it was)
records() { dump | grep -v '^INSERT INTO control '; }
before=$(records)
"$FRONTDESK" restore "$TMP/drill.db" >"$TMP/out" 2>"$TMP/err"
is "restore while the desk screen is open: refused" "$?" 1
is "... with one line on stderr" "$(wc -l < "$TMP/err")" 1
is "... and no record changed" "$(records)" "$before"
nothing_new "restore while the screen is open"
SPID=$(screen_pid)
screen_stop
gone() { ! kill -0 "$SPID" 2>/dev/null; }
ok "the screen has quit" until_ok 10 gone

# --- the drill: restore brings the backup back
live_count=$(db 'SELECT count(*) FROM payment')
out=$(fd restore "$TMP/drill.db" 2>&1); st=$?
is "restore exits 0" "$st" 0
replaced=$(ls "$FRONTDESK_DB".replaced-* 2>/dev/null)
like "it names the replaced database" "$out" "$replaced"
ok "the replaced database is kept" test -f "$replaced"
is "the restored database holds the backup's payments" "$(refs "$FRONTDESK_DB")" "$(refs "$TMP/drill.db")"
is "the payment recorded after the backup is gone from it" \
	"$(db "SELECT count(*) FROM payment WHERE reference = 'AFTER'")" 0
is "the replaced database still has everything it had" "$(db 'SELECT count(*) FROM payment' "$replaced")" "$live_count"
is "the replaced database is private" "$(stat -c %a "$replaced")" 600
out=$(fd check 2>&1); like "the restored database passes check" "$out" "No problems found"
ok "the desk writes again after the restore" fd pay record --customer 1 --amount 2 --method cash
is "no temporary file is left beside it" "$(ls -A "$TMP" | grep -c 'tmp-')" 0

# onto a new machine: nothing at the database path yet
ok "restore onto a path with no database" fd --db "$TMP/new/shop/fresh.db" restore "$TMP/drill.db"
is "it holds the backup" "$(refs "$TMP/new/shop/fresh.db")" "$(refs "$TMP/drill.db")"
is "its folder is private" "$(stat -c %a "$TMP/new/shop")" 700
is "the new database is private" "$(stat -c %a "$TMP/new/shop/fresh.db")" 600
out=$(fd --db "$TMP/new/shop/fresh.db" check 2>&1); like "and passes check" "$out" "No problems found"

done_testing
