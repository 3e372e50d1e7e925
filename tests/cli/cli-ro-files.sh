#!/bin/sh
# cli-ro-files.sh - a database an ordinary user cannot write, or in a folder
# it cannot write, run as that user (nobody):
# - reading a read-only file (with or without --read-only) works and leaves
#   no -wal or -shm behind (they used to be left with the file's 0444 mode,
#   so that after chmod 0644 every write was refused as "a stale
#   shared-memory file"); a write is refused naming the file as read-only;
#   once it is writable, writing works;
# - --read-only reads a database in a read-only folder when no session has
#   it open, and with a session writing it (through that session's -wal and
#   -shm); when a -wal is there and no -shm can be made, it says so;
# - every refusal names the real cause and changes nothing.
#
# Needs root (to act as nobody with setpriv); skipped otherwise.
. "$TOP_SRCDIR/tests/lib/tap.sh"

SERVE=
cleanup() {
	[ -n "$SERVE" ] && kill "$SERVE" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null ||
	! setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	echo "1..0 # SKIP needs root and setpriv to act as an ordinary user"
	exit 0
fi
chmod 0711 "$TMP" # nobody may pass through to its folders
# the staff register admits by login: the databases made here by root add
# this one (user id 65534) as a desk
nobody=$(getent passwd 65534 | cut -d: -f1)
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$FRONTDESK" "$@"; }
beside() { ls -d "$1-wal" "$1-shm" "$1-journal" 2>/dev/null; }

# refused_as_nobody NAME DB WANT ARGS... - as nobody, `frontdesk --db DB
# ARGS` exits 1 with one line on stderr that contains WANT, prints nothing,
# leaves DB as it was and adds nothing beside it.
refused_as_nobody() {
	r_name=$1; r_db=$2; r_want=$3; shift 3
	cp "$r_db" "$TMP/before"
	r_left=$(beside "$r_db")
	as_nobody --db "$r_db" "$@" >"$TMP/out" 2>"$TMP/err"
	r_st=$?
	r_lines=$(wc -l < "$TMP/err")
	case "$(cat "$TMP/err")" in *"$r_want"*) r_says=0 ;; *) r_says=1 ;; esac
	if [ "$r_st" -eq 1 ] && [ "$r_lines" -eq 1 ] && [ ! -s "$TMP/out" ] && [ "$r_says" -eq 0 ] &&
		cmp -s "$r_db" "$TMP/before" && [ "$(beside "$r_db")" = "$r_left" ]; then
		pass "$r_name ($(cut -c1-100 "$TMP/err"))"
	else
		fail "$r_name" "exit $r_st (want 1), $r_lines stderr line(s) (want 1)" \
			"stderr: $(head -c 400 "$TMP/err")" "want it to say: $r_want" \
			"file unchanged: $(cmp -s "$r_db" "$TMP/before" && echo yes || echo NO)" \
			"beside it: $(beside "$r_db") (was: $r_left)"
	fi
}

# -- a read-only file in a folder nobody may write
mkdir "$TMP/u"
chmod 0777 "$TMP/u"
db="$TMP/u/shop.db"
as_nobody --db "$db" init >/dev/null
as_nobody --db "$db" customer add --name "Ada Lee" >/dev/null
chmod 0444 "$db"
is "a read of a read-only file works" "$(as_nobody --db "$db" customer list 2>&1)" "     1  Ada Lee"
is "and leaves no -wal or -shm behind" "$(beside "$db")" ""
is "--read-only reads it" "$(as_nobody --db "$db" --read-only customer list 2>&1)" "     1  Ada Lee"
is "and leaves nothing behind" "$(beside "$db")" ""
ok "check reads it" as_nobody --db "$db" check
is "and leaves nothing behind either" "$(beside "$db")" ""
refused_as_nobody "a write to a read-only file" "$db" "database $db is read-only" \
	customer add --name "Bob Stone"
like "it says this user may not write it" "$(cat "$TMP/err")" "this user may not write it"
chmod 0644 "$db"
ok "once the file is writable, a write works" as_nobody --db "$db" customer add --name "Bob Stone"
is "and leaves nothing behind" "$(beside "$db")" ""
is "both customers are there" "$(as_nobody --db "$db" customer list | tr -s ' ' | tr '\n' '|')" \
	" 1 Ada Lee| 2 Bob Stone|"

# -- restore reads a read-only copy in a read-only folder, leaving nothing
# beside it (a copy made with cp is in WAL mode, as the database was)
mkdir "$TMP/b"
chmod 0755 "$TMP/b"
cp "$db" "$TMP/b/copy.db"
chmod 0444 "$TMP/b/copy.db"
is "the copy is in WAL mode" "$(od -An -tu1 -j18 -N2 "$TMP/b/copy.db" | tr -s ' ')" " 2 2"
ok "restore of a read-only copy in a read-only folder" \
	as_nobody --db "$db" restore "$TMP/b/copy.db"
is "leaves nothing beside the backup" "$(beside "$TMP/b/copy.db")" ""

# -- a writable file in a read-only folder
mkdir "$TMP/r"
chmod 0755 "$TMP/r"
db="$TMP/r/shop.db"
fd --db "$db" init >/dev/null
fd --db "$db" customer add --name "Ada Lee" >/dev/null
fd --db "$db" staff add "$nobody" --name "Nobody" --role desk >/dev/null
chown 65534:65534 "$db"
is "--read-only reads a database in a read-only folder" \
	"$(as_nobody --db "$db" --read-only customer list 2>&1)" "     1  Ada Lee"
is "and leaves nothing behind" "$(beside "$db")" ""
refused_as_nobody "a write in a read-only folder" "$db" "folder $TMP/r is read-only" \
	customer add --name "Bob Stone"
refused_as_nobody "a read without --read-only in a read-only folder" "$db" \
	"folder $TMP/r is read-only" customer list
# a -wal is there (a session ended without closing it) and no -shm can be made
: > "$db-wal"
chown 65534:65534 "$db-wal"
refused_as_nobody "--read-only with a -wal and no -shm in a read-only folder" "$db" \
	"$db-wal is there without a $db-shm" --read-only customer list
rm -f "$db-wal"

# -- the shop's group readers: a setgid folder 2750 (files 0640), read by a
# member of its group, who may write neither the folder nor the file
mkdir "$TMP/g"
chgrp 65534 "$TMP/g"
chmod 2750 "$TMP/g"
db="$TMP/g/shop.db"
fd --db "$db" init >/dev/null
fd --db "$db" customer add --name "Ada Lee" >/dev/null
fd --db "$db" staff add "$nobody" --name "Nobody" --role desk >/dev/null
is "the database is group-readable only" "$(stat -c %a "$db")" 640
is "a group reader reads it with no session open" \
	"$(as_nobody --db "$db" --read-only customer list 2>&1)" "     1  Ada Lee"
is "and leaves nothing behind" "$(beside "$db")" ""
# a session (serve) has it open and another command writes: the change is
# in the -wal, which the reader reads through the session's -shm
"$FRONTDESK" --db "$db" serve --no-channel --quiet 2>/dev/null &
SERVE=$!
ok "a session has the database open" until_ok 20 test -e "$db-shm" -a -e "$db-wal"
fd --db "$db" customer add --name "Bob Stone" >/dev/null
is "a group reader reads it while a session writes, the newest change too" \
	"$(as_nobody --db "$db" --read-only customer list 2>&1 | tr -s ' ' | tr '\n' '|')" \
	" 1 Ada Lee| 2 Bob Stone|"
refused_as_nobody "a group reader's write while the session runs" "$db" \
	"database $db is read-only" customer add --name "Eve Park"
kill "$SERVE"
wait "$SERVE" 2>/dev/null
SERVE=
is "the session closed and nothing is left behind" "$(beside "$db")" ""
ok "the database checks clean" fd --db "$db" check

# -- a setgid frontdesk (the shop server's install) opens only a database
# inside its data folder (src/privs.h): one anywhere else, even in a folder
# its group may write, is refused and nothing is written there.
# tests/cli/cli-setgid.sh runs the install itself, data folder and all.
mkdir "$TMP/sg"
chgrp daemon "$TMP/sg"
chmod 2770 "$TMP/sg"
cp "$FRONTDESK" "$TMP/fd-setgid"
chgrp daemon "$TMP/fd-setgid"
chmod 2755 "$TMP/fd-setgid"
fd --db "$TMP/sg/shop.db" init >/dev/null
setgid_add() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/fd-setgid" --db "$TMP/sg/shop.db" \
		customer add --name "Ada Lee"
}
# (a sanitized build: LeakSanitizer cannot inspect a setgid process, it is
# not dumpable, so it ends the process with its own lines after the work:
# they are left out)
like "a setgid frontdesk refuses a database outside its data folder" \
	"$(setgid_add 2>&1 | grep -v '^==[0-9]*==')" "is outside the data folder"
is "and wrote nothing there" "$(fd --db "$TMP/sg/shop.db" customer list)" ""

done_testing
