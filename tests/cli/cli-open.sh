#!/bin/sh
# cli-open.sh - refusing the wrong file: an empty file, a file that is not
# SQLite, a folder, an SQLite database with nothing in it and another
# program's SQLite database are refused with one line that says what the file
# is and what to do, and are left byte-for-byte as they were, with no -wal,
# -shm or -journal beside them. Only init (and demo) create a database.
. "$TOP_SRCDIR/tests/lib/tap.sh"

# untouched NAME FILE ARGS... - `frontdesk --db FILE ARGS` must exit 1 with
# one line on stderr (kept in $TMP/err), print nothing on stdout, leave FILE
# exactly as it was and leave nothing beside it.
untouched() {
	u_name=$1; u_f=$2; shift 2
	rm -rf "$TMP/copy"
	cp -a "$u_f" "$TMP/copy"
	"$FRONTDESK" --db "$u_f" "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	lines=$(wc -l < "$TMP/err")
	left=$(ls -d "$u_f-wal" "$u_f-shm" "$u_f-journal" 2>/dev/null)
	if [ "$st" -eq 1 ] && [ "$lines" -eq 1 ] && [ ! -s "$TMP/out" ] &&
		diff -r "$u_f" "$TMP/copy" >/dev/null && [ -z "$left" ]; then
		pass "$u_name: refused ($(cut -c1-90 "$TMP/err"))"
	else
		fail "$u_name" "exit $st (want 1), $lines stderr line(s) (want 1)" \
			"stderr: $(head -c 300 "$TMP/err")" \
			"file changed: $(diff -r "$u_f" "$TMP/copy" >/dev/null && echo no || echo YES)" \
			"left beside it: $left"
	fi
}

# -- an empty file (what touch or a failed copy leaves)
: > "$TMP/empty.db"
for cmd in "customer list" "check" "migrate" "migrate --status" "agenda"; do
	# shellcheck disable=SC2086
	untouched "empty file, $cmd" "$TMP/empty.db" $cmd
done
like "the empty file is called empty" "$(cat "$TMP/err")" "empty file"
like "it says how to make it a database" "$(cat "$TMP/err")" "--db $TMP/empty.db init"
untouched "empty file, --read-only" "$TMP/empty.db" --read-only customer list
is "the empty file is still empty" "$(stat -c %s "$TMP/empty.db")" 0

# -- a file that is not SQLite
printf 'Name,Phone\nAda Lee,555-0100\n' > "$TMP/text.db"
untouched "text file, customer list" "$TMP/text.db" customer list
like "it says the file is not SQLite" "$(cat "$TMP/err")" "not an SQLite database"
like "it names the file" "$(cat "$TMP/err")" "$TMP/text.db"
like "it says to use --db" "$(cat "$TMP/err")" "--db"
untouched "text file, init" "$TMP/text.db" init
untouched "text file, demo" "$TMP/text.db" demo
head -c 10 /dev/zero > "$TMP/short.db"
untouched "a file shorter than an SQLite header" "$TMP/short.db" customer list

# -- an SQLite header with nothing readable behind it
{ printf 'SQLite format 3\000'; head -c 4080 /dev/zero; } > "$TMP/damaged.db"
untouched "a damaged SQLite file, customer list" "$TMP/damaged.db" customer list
like "it says the file is damaged" "$(cat "$TMP/err")" "damaged"
untouched "a damaged SQLite file, init" "$TMP/damaged.db" init

# -- a folder
mkdir "$TMP/folder.db"
untouched "a folder, customer list" "$TMP/folder.db" customer list
like "it says it is a folder" "$(cat "$TMP/err")" "folder"
untouched "a folder, init" "$TMP/folder.db" init

# -- another program's SQLite database, in rollback and in WAL mode
sqlite3 "$TMP/other.db" "CREATE TABLE customer (name TEXT); INSERT INTO customer VALUES ('x');"
sqlite3 "$TMP/otherwal.db" "PRAGMA journal_mode=WAL; CREATE TABLE note (t TEXT);
	INSERT INTO note VALUES ('keep me');" >/dev/null
for f in other otherwal; do
	for cmd in "customer list" "customer add --name Eve" "check" "init" "demo" "migrate" \
		"migrate --status" "--read-only customer list"; do
		# shellcheck disable=SC2086
		untouched "$f.db (another program's), $cmd" "$TMP/$f.db" $cmd
	done
done
# a name that needs escaping in an SQLite URI
sqlite3 "$TMP/we?ird #1%.db" "PRAGMA journal_mode=WAL; CREATE TABLE t (x);" >/dev/null
untouched "another program's WAL database with an odd name, --read-only" "$TMP/we?ird #1%.db" \
	--read-only customer list
like "it says whose database it is" "$(cat "$TMP/err")" "SQLite database of another program"
like "it says init wants a new path" "$(cat "$TMP/err")" "does not exist yet"
is "no schema was written into it" "$(sqlite3 "$TMP/other.db" "SELECT group_concat(name) FROM sqlite_schema")" customer

# -- an SQLite database with nothing in it
sqlite3 "$TMP/blank.db" "CREATE TABLE t (x); DROP TABLE t;"
untouched "blank SQLite database, customer list" "$TMP/blank.db" customer list
like "it says it holds nothing" "$(cat "$TMP/err")" "nothing in it"
ok "init makes the blank SQLite database a frontdesk one" fd --db "$TMP/blank.db" init
ok "which then opens" fd --db "$TMP/blank.db" customer list

# -- only init and demo create; init takes an empty file
fd --db "$TMP/none.db" migrate --status >/dev/null 2>&1
is "migrate --status on a missing path refuses" "$?" 1
[ -e "$TMP/none.db" ]; is "and creates nothing" "$?" 1
fd --db "$TMP/none.db" customer list >/dev/null 2>&1
[ -e "$TMP/none.db" ]; is "a read on a missing path creates nothing" "$?" 1
ok "init takes an empty file" fd --db "$TMP/empty.db" init
ok "the former empty file is a frontdesk database" fd --db "$TMP/empty.db" customer add --name "Ada Lee"
ok "demo on a path that does not exist yet" fd --db "$TMP/demo.db" demo
ok "the demo database holds customers" test "$(sqlite3 "$TMP/demo.db" "SELECT count(*) FROM customer")" -gt 0

# The file says it is frontdesk's (migration 0012: SQLite's application id,
# "FDK1"), which the open reads from the header instead of parsing the schema.
is "a new database carries frontdesk's application id" \
	"$(sqlite3 "$TMP/demo.db" 'PRAGMA application_id')" "$(printf '%d' 0x46444b31)"
sqlite3 "$TMP/other-id.db" "PRAGMA application_id = 1178880817; CREATE TABLE t (x);"
refused "another program's database with our id but not our schema is refused" --db "$TMP/other-id.db" customer list
is "and nothing was written beside it" "$(ls "$TMP" | grep -c 'other-id.db-')" 0
sqlite3 "$TMP/app.db" "PRAGMA application_id = 42; CREATE TABLE t (x);"
refused "another program's database with its own id is refused" --db "$TMP/app.db" customer list
is "and keeps its id" "$(sqlite3 "$TMP/app.db" 'PRAGMA application_id')" 42
done_testing
