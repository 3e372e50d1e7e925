#!/bin/sh
# cli-cut-short.sh - a copy of a database cut short (inside its last page,
# or by one byte) is refused, untouched and with nothing left beside it, by
# a message that says it is cut short: SQLite rounds a file's length up to
# whole pages, so such a copy used to open, take a payment and then fail
# 'check' as malformed. A healthy database is never refused: one that a
# live session has open with committed pages still in its -wal, one that
# another session keeps writing and checkpointing, one with bytes past its
# last page. backup's refusal of a damaged database names that database, not
# the temporary file the copy was written to.
. "$TOP_SRCDIR/tests/lib/tap.sh"

READER=
cleanup() {
	[ -n "$READER" ] && kill "$READER" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# untouched NAME FILE ARGS... - `frontdesk --db FILE ARGS` exits 1 with one
# line on stderr (kept in $TMP/err), prints nothing, leaves FILE as it was and
# nothing beside it.
untouched() {
	u_name=$1; u_f=$2; shift 2
	cp "$u_f" "$TMP/copy"
	"$FRONTDESK" --db "$u_f" "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	lines=$(wc -l < "$TMP/err")
	left=$(ls -d "$u_f-wal" "$u_f-shm" "$u_f-journal" 2>/dev/null)
	if [ "$st" -eq 1 ] && [ "$lines" -eq 1 ] && [ ! -s "$TMP/out" ] &&
		cmp -s "$u_f" "$TMP/copy" && [ -z "$left" ]; then
		pass "$u_name: refused ($(cut -c1-100 "$TMP/err"))"
	else
		fail "$u_name" "exit $st (want 1), $lines stderr line(s) (want 1)" \
			"stderr: $(head -c 300 "$TMP/err")" \
			"file changed: $(cmp -s "$u_f" "$TMP/copy" && echo no || echo YES)" \
			"left beside it: $left"
	fi
}

fd --db "$TMP/real.db" demo >/dev/null
size=$(stat -c %s "$TMP/real.db")
page=$(sqlite3 "$TMP/real.db" 'PRAGMA page_size')
ok "the demo database is whole pages" test $((size % page)) -eq 0

# -- cut inside its last page
head -c $((size - 2048)) "$TMP/real.db" > "$TMP/cut.db"
untouched "a copy cut 2048 bytes short, pay record" "$TMP/cut.db" \
	pay record --customer 1 --amount 1.00 --method cash
like "it says the copy is cut short" "$(cat "$TMP/err")" "$TMP/cut.db is cut short"
like "it says how long it should be" "$(cat "$TMP/err")" "$size bytes"
like "it says what to do" "$(cat "$TMP/err")" "copy it again"
for cmd in "customer list" "--read-only customer list" "check" "migrate --status" "init" \
	"backup $TMP/cut-backup.db"; do
	# shellcheck disable=SC2086
	untouched "a copy cut 2048 bytes short, $cmd" "$TMP/cut.db" $cmd
done
[ ! -e "$TMP/cut-backup.db" ]; is "no backup of it was written" "$?" 0

head -c $((size - 1)) "$TMP/real.db" > "$TMP/byte.db"
untouched "a copy one byte short" "$TMP/byte.db" customer list
like "is cut short too" "$(cat "$TMP/err")" "is cut short"
head -c $((size - page)) "$TMP/real.db" > "$TMP/page.db"
untouched "a copy one whole page short" "$TMP/page.db" customer list
head -c 60 "$TMP/real.db" > "$TMP/head.db"
untouched "a copy cut inside the header" "$TMP/head.db" customer list
like "is cut short as well" "$(cat "$TMP/err")" "is cut short"

fd --db "$TMP/real.db" restore "$TMP/byte.db" >"$TMP/out" 2>"$TMP/err"
is "restore of a copy one byte short is refused" "$?" 1
like "saying it is cut short" "$(cat "$TMP/err")" "is cut short"
is "and the live database is as it was" "$(stat -c %s "$TMP/real.db")" "$size"

# -- healthy databases are not refused
cp "$TMP/real.db" "$TMP/long.db"
head -c 1000 /dev/zero >> "$TMP/long.db"
ok "a database with bytes past its last page opens" fd --db "$TMP/long.db" customer list

# a live session (the sqlite3 shell) keeps the database open and commits
# pages that grow it, never checkpointing: the main file is shorter than the
# database and its header says so
cp "$TMP/real.db" "$TMP/live.db"
mkfifo "$TMP/live"
sqlite3 "$TMP/live.db" < "$TMP/live" > /dev/null &
READER=$!
exec 3> "$TMP/live"
echo "PRAGMA wal_autocheckpoint=0; CREATE TABLE pad (b BLOB);
INSERT INTO pad VALUES (zeroblob(200000)); SELECT 'grown';" >&3
until_ok 20 test -s "$TMP/live.db-wal"
until_ok 20 sh -c "[ \$(stat -c %s '$TMP/live.db-wal') -gt 200000 ]"
is "the main file was not grown" "$(stat -c %s "$TMP/live.db")" "$size"
ok "a database with committed pages in a live -wal opens" fd --db "$TMP/live.db" customer list
ok "and is written" fd --db "$TMP/live.db" pay record --customer 1 --amount 1.00 --method cash
ok "and read with --read-only" fd --db "$TMP/live.db" --read-only customer list
# the session now checkpoints after every commit, growing the file, while
# commands open the database again and again
echo "PRAGMA wal_autocheckpoint=1;" >&3
i=0
while [ $i -lt 30 ]; do
	echo "INSERT INTO pad VALUES (zeroblob(30000));" >&3
	i=$((i + 1))
done
bad=0
i=0
while [ $i -lt 30 ]; do
	fd --db "$TMP/live.db" --read-only customer list >/dev/null 2>"$TMP/err" || bad=$((bad + 1))
	i=$((i + 1))
done
is "none of 30 reads during checkpoints that grow the file is refused" "$bad" 0
exec 3>&-
wait "$READER"
READER=
ok "the database checks clean" fd --db "$TMP/live.db" check

# -- backup of a damaged database names it, not its temporary copy
cp "$TMP/real.db" "$TMP/damaged.db"
head -c "$page" /dev/zero | tr '\0' 'x' |
	dd of="$TMP/damaged.db" bs="$page" seek=2 conv=notrunc 2>/dev/null
fd --db "$TMP/damaged.db" backup "$TMP/bk.db" >"$TMP/out" 2>"$TMP/err"
is "backup of a damaged database is refused" "$?" 1
like "naming the database" "$(cat "$TMP/err")" "$TMP/damaged.db is damaged"
case "$(cat "$TMP/err")" in
*.tmp-*) fail "and not its temporary copy" "stderr: $(cat "$TMP/err")" ;;
*) pass "and not its temporary copy" ;;
esac
is "no backup and no temporary file are left" "$(ls "$TMP" | grep -c '^bk\.db')" 0

done_testing
