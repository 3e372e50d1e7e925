#!/bin/sh
# cli-basics.sh - global options, exit statuses, init and the default path.
. "$TOP_SRCDIR/tests/lib/tap.sh"

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

# one word for one thing: visits are "visit" (appt still works), background
# work is "tasks" (the old alias jobs is refused and points to tasks, since
# "job" is a service order), in the help and on the command line
out=$(fd --help)
like "the help names visit" "$out" "visit      add, list"
like "and tasks" "$out" "tasks      list, show and retry background tasks"
out=$(fd visit add --start "2026-12-02 09:00" --end "2026-12-02 10:00"); like "visit add adds a visit" "$out" "Visit 1 added."
out=$(fd appt add --start "2026-12-03 09:00" --end "2026-12-03 10:00"); like "appt is its alias" "$out" "Visit 2 added."
is "visit list and appt list agree" "$(fd --json visit list --from 2026-12-01 --days 7)" "$(fd --json appt list --from 2026-12-01 --days 7)"
fd visit show 1 >/dev/null; is "visit show works" "$?" 0
err=$(fd visit show x 2>&1); like "visit's messages name visit" "$err" "visit show"
err=$(fd --json jobs list 2>&1); st=$?
is "jobs is no longer a command: bad usage" "$st" 2
like "... and the message points to tasks" "$err" "'jobs' is now called 'tasks'"
like "... and says what job is" "$err" "'job' is a service order"
is "the help lists no command jobs" "$(printf '%s\n' "$out" | grep -c '^  jobs ')" 0
ok "tasks run --once runs the queue" fd tasks run --once --quiet
fd tasks --help >/dev/null 2>&1; is "tasks --help exits 0" "$?" 0

done_testing
