#!/bin/sh
# cli-check-sqlite.sh - `frontdesk check` also runs SQLite's own checks: an
# index that disagrees with its table (searches through it silently miss
# rows) and a reference to a row that does not exist (written with foreign
# keys off) are reported as violations, and check changes nothing.
. "$TOP_SRCDIR/tests/lib/tap.sh"

fd init >/dev/null
for n in "Ada Lee" "Bob Stone" "Cy Young"; do fd customer add --name "$n" >/dev/null; done
fd job add --customer 1 --title "Wash" >/dev/null
ok "a healthy database checks clean" fd check

# -- an index that disagrees with its table: take the index out of the
# schema, change the table behind its back (triggers off: the shell has no
# fd_operator()), then put the index back as it was.
idx=customer_by_name
root=$(sqlite3 "$FRONTDESK_DB" "SELECT rootpage FROM sqlite_schema WHERE name = '$idx'")
isql=$(sqlite3 "$FRONTDESK_DB" "SELECT sql FROM sqlite_schema WHERE name = '$idx'")
sqlite3 "$FRONTDESK_DB" "PRAGMA writable_schema = ON; DELETE FROM sqlite_schema WHERE name = '$idx';"
sqlite3 "$FRONTDESK_DB" ".dbconfig enable_trigger off" \
	"UPDATE customer SET name = 'Zed Moved' WHERE id = 2;" >/dev/null
sqlite3 "$FRONTDESK_DB" "PRAGMA writable_schema = ON;
	INSERT INTO sqlite_schema VALUES ('index', '$idx', 'customer', $root, '$isql');"
by_index=$(sqlite3 "$FRONTDESK_DB" "SELECT count(*) FROM customer INDEXED BY $idx WHERE name = 'Zed Moved' COLLATE NOCASE")
by_table=$(sqlite3 "$FRONTDESK_DB" "SELECT count(*) FROM customer NOT INDEXED WHERE name = 'Zed Moved' COLLATE NOCASE")
is "the damage is real: the table has the row" "$by_table" 1
is "the damage is real: a search through the index misses it" "$by_index" 0

before=$(dump)
fd check >"$TMP/out" 2>"$TMP/err"; st=$?
is "check refuses a damaged index" "$st" 1
like "check reports an integrity violation" "$(cat "$TMP/out")" "integrity: "
like "the violation names the index" "$(grep '^integrity: ' "$TMP/out")" "$idx"
is "check changed nothing" "$(dump)" "$before"
n=$(fd --json check 2>/dev/null | python3 -c 'import json,sys; print(sum(v["code"] == "integrity" for v in json.load(sys.stdin)["violations"]))')
ok "--json check lists the integrity violation" test "$n" -ge 1

# -- a foreign key violation inserted with foreign keys off
db2="$TMP/fk.db"
fd --db "$db2" init >/dev/null
fd --db "$db2" customer add --name "Ada Lee" >/dev/null
fd --db "$db2" job add --customer 1 --title "Wash" >/dev/null
ok "the second database checks clean" fd --db "$db2" check
sqlite3 "$db2" "PRAGMA foreign_keys = OFF;" ".dbconfig enable_trigger off" \
	"DELETE FROM customer WHERE id = 1;" >/dev/null
is "the job's customer is gone" "$(sqlite3 "$db2" "SELECT count(*) FROM service_order WHERE customer_id NOT IN (SELECT id FROM customer)")" 1
before=$(dump "$db2")
fd --db "$db2" check >"$TMP/out" 2>"$TMP/err"; st=$?
is "check refuses a foreign key violation" "$st" 1
line=$(grep '^foreign-key: ' "$TMP/out")
like "the violation names the referring table" "$line" "service_order"
like "and the table it refers to" "$line" "customer"
is "check changed nothing" "$(dump "$db2")" "$before"
is "one line on stderr" "$(wc -l < "$TMP/err")" 1

# -- a database whose status moves differ from the program's: a move the
# code has and the schema lost, and one the schema gained
db3="$TMP/moves.db"
fd --db "$db3" init >/dev/null
ok "a new database's moves agree with the program's" fd --db "$db3" check
sqlite3 "$db3" "DELETE FROM status_transition WHERE entity = 'refund' AND from_status = 'pending' AND to_status = 'failed';" \
	"INSERT INTO status_transition VALUES ('invoice', 'void', 'paid');"
before=$(dump "$db3")
fd --db "$db3" check >"$TMP/out" 2>"$TMP/err"; st=$?
is "check refuses moves that differ" "$st" 1
is "each record whose moves differ is one status-moves line, naming the move and who has it" \
	"$(grep '^status-moves: ' "$TMP/out")" \
	"status-moves: the moves of invoice differ: the schema allows void -> paid, the code does not
status-moves: the moves of refund differ: the code allows pending -> failed, the schema does not"
is "check changed nothing" "$(dump "$db3")" "$before"

done_testing
