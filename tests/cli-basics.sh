#!/bin/sh
# cli-basics.sh - global options, exit statuses, init and the default path.
. "$TOP_SRCDIR/tests/tap.sh"

out=$(fd --version); like "--version names the program" "$out" "frontdesk "
out=$(fd --help); like "--help lists commands" "$out" "customer"
fd --no-such-option >/dev/null 2>&1; is "unknown global option exits 2" "$?" 2
fd no-such-command >/dev/null 2>&1; is "unknown command exits 2" "$?" 2
fd customer list >/dev/null 2>"$TMP/err"; is "missing database exits 1" "$?" 1
like "missing database says to init" "$(cat "$TMP/err")" "frontdesk init"

ok "init creates the database" fd init
is "database file is 0600" "$(stat -c %a "$FRONTDESK_DB")" 600
ok "init twice is harmless" fd init

unset FRONTDESK_DB
ok "init at the default XDG path" fd init
is "default database under XDG_DATA_HOME" "$(ls "$XDG_DATA_HOME/frontdesk/")" "frontdesk.db"
is "its folder is 0700" "$(stat -c %a "$XDG_DATA_HOME/frontdesk")" 700
ok "--db overrides the default" fd --db "$TMP/other.db" init
[ -f "$TMP/other.db" ]; is "--db path used" "$?" 0
export FRONTDESK_DB="$TMP/test.db"

out=$(fd --json init); like "--json init gives JSON" "$out" '"schema_version"'
journal=$(sqlite3 "$FRONTDESK_DB" 'PRAGMA journal_mode'); is "WAL mode" "$journal" wal
for c in customer job appt link item migrate; do
	fd $c --help >/dev/null 2>&1; is "$c --help exits 0" "$?" 0
done
fd customer add --help >/dev/null; is "customer add --help exits 0" "$?" 0
fd customer add --bogus x >/dev/null 2>&1; is "unknown subcommand option exits 2" "$?" 2

done_testing
