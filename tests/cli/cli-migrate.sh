#!/bin/sh
# cli-migrate.sh - schema migrations: fresh versus upgraded, tampering, and a
# database newer than the program.
. "$TOP_SRCDIR/tests/lib/tap.sh"

schema() { sqlite3 "$1" "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name"; }
latest=$(fd --db "$TMP/probe.db" --json init | python3 -c 'import json,sys; print(json.load(sys.stdin)["schema_version"])')

ok "fresh database" fd --db "$TMP/fresh.db" init
ok "old database at version 1" fd --db "$TMP/old.db" init --to 1
is "old database is at 1" "$(sqlite3 "$TMP/old.db" 'SELECT max(version) FROM schema_migration')" 1
ok "data in the old database" fd --db "$TMP/old.db" customer add --name "Old Timer"
is "old database was upgraded on use" "$(sqlite3 "$TMP/old.db" 'SELECT max(version) FROM schema_migration')" "$latest"
is "fresh and upgraded schemas are the same" "$(schema "$TMP/old.db")" "$(schema "$TMP/fresh.db")"
is "migration rows have checksums" "$(sqlite3 "$TMP/fresh.db" 'SELECT count(*) FROM schema_migration WHERE length(checksum) = 64')" "$latest"

cp "$TMP/fresh.db" "$TMP/tampered.db"
sqlite3 "$TMP/tampered.db" "UPDATE schema_migration SET checksum = 'deadbeef' WHERE version = 1"
fd --db "$TMP/tampered.db" customer list >/dev/null 2>"$TMP/err"; is "tampered checksum refused" "$?" 1
like "tampered message" "$(cat "$TMP/err")" "checksum"
like "it says the form is not a known one" "$(cat "$TMP/err")" "neither this frontdesk's"

cp "$TMP/fresh.db" "$TMP/newer.db"
sqlite3 "$TMP/newer.db" "INSERT INTO schema_migration VALUES (999, 'future', 'x', 0, 0)"
before=$(dump "$TMP/newer.db")
fd --db "$TMP/newer.db" customer list >/dev/null 2>"$TMP/err"; is "newer database refused" "$?" 1
like "newer message" "$(cat "$TMP/err")" "made by a newer frontdesk (schema 999;"
is "newer database untouched" "$(dump "$TMP/newer.db")" "$before"

# A newer frontdesk may have repaired an older migration's form that this
# one does not know: the database is still "newer", never "altered".
sqlite3 "$TMP/newer.db" "UPDATE schema_migration SET checksum = 'cafe' WHERE version = 2"
before=$(dump "$TMP/newer.db")
fd --db "$TMP/newer.db" customer list >/dev/null 2>"$TMP/err"; is "newer database with an unknown older form refused" "$?" 1
like "it is called newer" "$(cat "$TMP/err")" "made by a newer frontdesk (schema 999;"
is "it is not called altered" "$(grep -c 'changed outside' "$TMP/err")" 0
fd --db "$TMP/newer.db" --read-only customer list >/dev/null 2>"$TMP/err"; is "read-only: refused too" "$?" 1
like "read-only: called newer" "$(cat "$TMP/err")" "made by a newer frontdesk"
is "newer database still untouched" "$(dump "$TMP/newer.db")" "$before"

# A migration that fails part way leaves the database as it was: simulate
# with a table the next migration wants to create.
ok "version 1 database" fd --db "$TMP/fail.db" init --to 1
sqlite3 "$TMP/fail.db" "CREATE TABLE service_order (x)"
before=$(dump "$TMP/fail.db")
fd --db "$TMP/fail.db" migrate >/dev/null 2>&1; is "failing migration refused" "$?" 1
is "failed migration left the database as it was" "$(dump "$TMP/fail.db")" "$before"

printf 'not a database at all, just text\n' > "$TMP/junk.db"
fd --db "$TMP/junk.db" customer list >/dev/null 2>"$TMP/err"; is "a non-database file is refused" "$?" 1

done_testing
