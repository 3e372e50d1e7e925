#!/bin/sh
# cli-files.sh - when the files fail, frontdesk says what is wrong and what
# to do, in one line on stderr, exits 1 and changes nothing: a full disk
# (also when not even the -shm can be made), a read-only folder (named),
# a stale -shm that cannot be written.
#
# root ignores permissions, so the failures are real ones: a small tmpfs
# filled up, a tmpfs remounted read-only, a read-only bind mount over the
# -shm. Skipped only when mount is not permitted.
. "$TOP_SRCDIR/tests/lib/tap.sh"

MOUNTS=""
cleanup() {
	[ -n "${READER:-}" ] && kill "$READER" 2>/dev/null
	for m in $MOUNTS; do umount "$m" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

mkdir "$TMP/disk" "$TMP/ro" "$TMP/st"
if ! mount -t tmpfs -o size=4m,mode=0700 fdtest "$TMP/disk" 2>/dev/null; then
	echo "1..0 # SKIP mount is not permitted here (needs root)"
	exit 0
fi
MOUNTS="$TMP/disk"

# failed NAME FILE WANT ARGS... - `frontdesk --db FILE ARGS` exits 1 with
# one line on stderr that contains WANT, prints nothing, and leaves FILE as
# it was (byte for byte; the copy is kept outside the mounts).
failed() {
	f_name=$1; f_db=$2; f_want=$3; shift 3
	if [ -e "$f_db" ]; then cp "$f_db" "$TMP/before"; else rm -f "$TMP/before"; fi
	"$FRONTDESK" --db "$f_db" "$@" >"$TMP/out" 2>"$TMP/err"
	f_st=$?
	f_lines=$(wc -l < "$TMP/err")
	if [ -e "$TMP/before" ]; then cmp -s "$f_db" "$TMP/before"; f_same=$?; else [ ! -e "$f_db" ]; f_same=$?; fi
	case "$(cat "$TMP/err")" in *"$f_want"*) f_says=0 ;; *) f_says=1 ;; esac
	if [ "$f_st" -eq 1 ] && [ "$f_lines" -eq 1 ] && [ ! -s "$TMP/out" ] && [ "$f_same" -eq 0 ] &&
		[ "$f_says" -eq 0 ]; then
		pass "$f_name ($(cut -c1-100 "$TMP/err"))"
	else
		fail "$f_name" "exit $f_st (want 1), $f_lines stderr line(s) (want 1)" \
			"stderr: $(head -c 300 "$TMP/err")" "want it to say: $f_want" \
			"file unchanged: $([ "$f_same" -eq 0 ] && echo yes || echo NO)"
	fi
}

# reader_open DB - another session (the sqlite3 shell) opens DB and keeps it
# open, so that its -shm exists, until reader_close: closing its input lets
# it close cleanly; reader_close -KILL kills it instead (a crash).
mkfifo "$TMP/reader"
reader_open() {
	sqlite3 "$1" < "$TMP/reader" > /dev/null &
	READER=$!
	exec 3> "$TMP/reader"
	echo "SELECT count(*) FROM customer;" >&3
	i=0
	while [ ! -e "$1-shm" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}
reader_close() {
	[ $# -gt 0 ] && kill "$1" "$READER"
	exec 3>&-
	wait "$READER" 2>/dev/null
	READER=""
}

# room - free space left on the small disk, in KiB
room() { df --output=avail "$TMP/disk" | tail -1 | tr -d ' '; }

# -- a full disk
db="$TMP/disk/shop.db"
ok "a database on the small disk" fd --db "$db" init
ok "with a customer" fd --db "$db" customer add --name "Ada Lee"
# another session keeps the database open (its -shm exists) while the disk
# fills up
reader_open "$db"
head -c 8M /dev/zero > "$TMP/disk/fill" 2>/dev/null
is "the disk is full" "$(room)" 0
failed "a write on a full disk" "$db" "the disk is full" customer add --name "Bob Stone"
reader_close
[ ! -e "$db-shm" ]; is "no session is left, so the next one needs a new -shm" "$?" 0
head -c 8M /dev/zero >> "$TMP/disk/fill" 2>/dev/null # what the -shm gave back
is "the disk is full again" "$(room)" 0
failed "a read on a full disk, where not even the -shm can be made" "$db" "the disk is full" \
	customer list
failed "init on a full disk" "$TMP/disk/new.db" "the disk is full" init
[ ! -e "$TMP/disk/new.db" ]; is "the failed init left no file behind" "$?" 0
rm -f "$TMP/disk/fill"
is "with room again, the customer is there" "$(fd --db "$db" --json customer list |
	python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" 1
ok "and the database checks clean" fd --db "$db" check

# -- a read-only folder
mount -t tmpfs -o size=4m,mode=0700 fdtest "$TMP/ro" && MOUNTS="$TMP/ro $MOUNTS"
db="$TMP/ro/shop.db"
ok "a database in a folder that will be read-only" fd --db "$db" init
ok "with a customer" fd --db "$db" customer add --name "Ada Lee"
mount -o remount,ro "$TMP/ro"
failed "a write in a read-only folder" "$db" "folder $TMP/ro is read-only" customer add --name "Bob Stone"
like "it names the folder" "$(cat "$TMP/err")" "folder $TMP/ro "
failed "a read in a read-only folder (no -shm can be made)" "$db" "folder $TMP/ro is read-only" customer list
failed "init in a read-only folder" "$TMP/ro/new.db" "folder $TMP/ro is read-only" init

# -- a stale -shm that cannot be written: a session killed while it had the
# database open leaves its -shm; here it is also read-only (as one left by
# another user is to the shop's user)
db="$TMP/st/shop.db"
ok "a database" fd --db "$db" init
ok "with a customer" fd --db "$db" customer add --name "Ada Lee"
reader_open "$db"
reader_close -KILL
[ -e "$db-shm" ]; is "the killed session left its -shm" "$?" 0
mount --bind "$db-shm" "$db-shm" && MOUNTS="$db-shm $MOUNTS" &&
	mount -o remount,ro,bind "$db-shm"
failed "a write with a stale read-only -shm" "$db" "$db-shm" customer add --name "Bob Stone"
like "it says to delete the stale -shm" "$(cat "$TMP/err")" "delete $db-shm"
umount "$db-shm"
rm -f "$db-shm"
ok "once it is deleted, writing works" fd --db "$db" customer add --name "Bob Stone"

done_testing
