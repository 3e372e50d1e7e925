#!/bin/sh
# cli-proj.sh - the calendar projection, the task queue and the leases from
# the command line: agenda, projection rebuild/check/show, tasks
# list/show/retry/run, lease list/break, and task runners as real processes
# (standby, kill -9, SIGSTOP past the lease, takeover).
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
# short leases so that takeovers happen within the test; jobs_* is the older
# name of each key: read when tasks_* is unset (backoff), not over it (attempts)
printf 'tasks_lease_seconds = 2\ntasks_max_attempts = 2\njobs_max_attempts = 9\njobs_backoff_seconds = 60\n' \
	> "$XDG_CONFIG_HOME/frontdesk/config"

json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
sq() { sqlite3 "$FRONTDESK_DB" "$@"; }

# wait_for NAME SECONDS COMMAND... - poll (every 0.1 s) until COMMAND succeeds
wait_for() {
	name=$1; secs=$2; shift 2
	i=0
	while [ "$i" -lt $((secs * 10)) ]; do
		if "$@" >/dev/null 2>&1; then pass "$name"; return 0; fi
		sleep 0.1
		i=$((i + 1))
	done
	fail "$name" "still false after $secs s: $*"
	return 1
}
agenda_has() { fd agenda --from 2026-12-01 --days 7 2>/dev/null | grep -q "$1"; }
holder_pid() { fd --json lease list | json "([l['owner_pid'] for l in d['leases'] if l['name']=='runner' and l['state']=='held'] or ['none'])[0]"; }
holder_is() { [ "$(holder_pid)" = "$1" ]; }
# said FILE TEXT N - the runner's stderr FILE has TEXT on at least N lines
said() { [ "$(grep -c "$2" "$1")" -ge "$3" ]; }

fd customer add --name "Ada Lee" >/dev/null
fd customer add --name "Bo Chen" >/dev/null
fd job add --customer 1 --title "Full detail" --currency USD >/dev/null
fd job add --customer 2 --title "Tint" --currency USD >/dev/null
fd item add --job 1 --kind SERVICE --description "Full detail" --qty 1 --price 180.00 >/dev/null
fd item add --job 2 --kind SERVICE --description "Tint" --qty 1 --price 90.01 >/dev/null
fd appt add --start "2026-12-02 09:00" --end "2026-12-02 11:00" >/dev/null
fd appt add --start "2026-12-02 22:00" --end "2026-12-03 02:00" >/dev/null
fd link add --appt 1 --job 1 --minutes 120 >/dev/null
fd link add --appt 1 --job 2 --minutes 30 >/dev/null
fd link add --appt 2 --job 2 --minutes 30 >/dev/null

# ---------------------------------------------------------------- agenda
n=$(fd --json tasks list --status pending --kind calendar | json "len(d['tasks'])")
is "one pending rebuild per touched visit" "$n" 2
is "no runner holds the lease" "$(holder_pid)" none
out=$(fd agenda --from 2026-12-02 --days 2 2>"$TMP/err")
like "with no runner alive, the agenda shows what was just booked" "$out" "#1 "
like "... every visit of the range" "$out" "#2 "
is "... and has nothing to excuse" "$(cat "$TMP/err")" ""
n=$(fd --json tasks list --status succeeded --kind calendar | json "len(d['tasks'])")
is "the agenda applied both updates itself" "$n" 2
is "and let the lease go" "$(holder_pid)" none
out=$(fd agenda --from 2026-12-02 --days 2 2>"$TMP/err")
is "no note once up to date" "$(cat "$TMP/err")" ""
like "first visit: both jobs and customers" "$out" "09:00-11:00  #1  225.01 USD  150 min  scheduled, unpaid  Ada Lee +1: Full detail, Tint"
like "Tint is split 45.01 / 45.00, the odd cent to the earlier visit" "$out" "#2  45.00 USD"
# the visit crossing midnight is listed under both days
n=$(printf '%s\n' "$out" | grep -c "#2 ")
is "a visit crossing midnight shows on both days" "$n" 2
like "second day shows where it began" "$out" "12-02 22:00-02:00  #2"
n=$(fd --json agenda --from 2026-12-02 --days 2 | json "len(d['visits'])")
is "JSON lists each visit once" "$n" 2
out=$(fd --json agenda --from 2026-12-02 | json "d['visits'][0]['total_price'], d['visits'][0]['currency'], d['visits'][0]['payment_status'], d['visits'][0]['est_minutes']")
is "JSON fields in minor units" "$out" "22501 USD unpaid 150"
out=$(fd agenda --from 2026-12-03 --days 1)
like "the next day alone shows the night visit" "$out" "#2"
fd agenda --days 0 >/dev/null 2>&1; is "--days 0 is bad usage" "$?" 2
fd agenda --from 2026-13-01 >/dev/null 2>&1; is "a bad date is bad usage" "$?" 2
ok "agenda --help" fd agenda --help

# a payment shows in the calendar once the runner has run
fd invoice issue --jobs 1 >/dev/null
fd pay record --customer 1 --amount 180.00 --method cash INV-2026-000001=180.00 >/dev/null
fd tasks run --once --quiet
out=$(fd --json agenda --from 2026-12-02 | json "d['visits'][0]['payment_status']")
is "job 1 paid, job 2 not: partially paid" "$out" "partially_paid"

# ---------------------------------------------------------------- projection
out=$(fd projection check)
is "check: all rows match" "$out" "Every calendar row matches the records."
sq "UPDATE appointment_calendar_view SET total_price = 1 WHERE appointment_id = 1"
sq "DELETE FROM appointment_calendar_view WHERE appointment_id = 2"
out=$(fd projection check 2>"$TMP/err"); st=$?
is "check finds differences: exit 1" "$st" 1
like "names the column" "$out" "visit 1: calendar row differs in total_price"
like "and the missing row" "$out" "visit 2: no calendar row"
like "and says what to do" "$(cat "$TMP/err")" "projection rebuild --all"
n=$(fd --json projection check 2>/dev/null | json "d['count']")
is "check --json counts them" "$n" 2
out=$(fd projection show 1)
like "show: stored beside recomputed" "$out" "Recomputed from the records now:"
out=$(fd projection rebuild --all 2>"$TMP/err")
like "rebuild --all reports" "$out" "Rebuilt the calendar rows of 2 visits."
like "with progress on stderr" "$(cat "$TMP/err")" "Rebuilt 2 of 2 visits (100%)"
ok "check passes again" fd projection check
out=$(fd projection rebuild 1)
like "rebuilding a current row changes nothing" "$out" "already up to date"
fd projection rebuild >/dev/null 2>&1; is "rebuild needs --all or ids" "$?" 2

# a second operator is told who runs the rebuild and since when
host=$(hostname)
sleep 300 & holder=$!
sq "INSERT INTO control (name, kind, owner_host, owner_pid, owner_token, operator_id, acquired_at, heartbeat_at, expires_at, epoch) VALUES ('projection-rebuild', 'lock', '$host', $holder, 42, 'ada', strftime('%s','now'), strftime('%s','now'), strftime('%s','now') + 600, 7) ON CONFLICT (name) DO UPDATE SET owner_host = excluded.owner_host, owner_pid = excluded.owner_pid, owner_token = 42, operator_id = 'ada', acquired_at = excluded.acquired_at, expires_at = excluded.expires_at"
refused "rebuild --all while another runs it" projection rebuild --all
like "names the holder" "$(cat "$TMP/err")" "ada started it on $host (process $holder)"
kill "$holder"; wait "$holder" 2>/dev/null
ok "its process gone, the lock is free" fd projection rebuild --all

# ---------------------------------------------------------------- tasks
id=$(sq "INSERT INTO task (kind, key) VALUES ('calendar', 'not-a-visit') RETURNING id")
fd tasks run --once --quiet
is "first failure: failed" "$(sq "SELECT status || ':' || attempts FROM task WHERE id = $id")" "failed:1"
fd tasks run --once --quiet
is "not due again before its backoff" "$(sq "SELECT status || ':' || attempts FROM task WHERE id = $id")" "failed:1"
sq "UPDATE task SET next_run_at = 0 WHERE id = $id"
fd tasks run --once --quiet
is "second failure of two allowed: dead" "$(sq "SELECT status || ':' || attempts FROM task WHERE id = $id")" "dead:2"
out=$(fd tasks list --status dead)
like "dead tasks stay listed" "$out" "not-a-visit"
out=$(fd tasks show "$id")
like "show gives the last error" "$out" "'not-a-visit' is not a visit id"
out=$(fd --json tasks show "$id" | json "d['status'], d['attempts']")
is "show --json" "$out" "dead 2"
ok "retry a dead task" fd tasks retry "$id"
is "pending again, attempts reset" "$(sq "SELECT status || ':' || attempts FROM task WHERE id = $id")" "pending:0"
refused "retry a pending task" tasks retry "$id"
refused "retry a task that does not exist" tasks retry 9999
fd tasks list --status bogus >/dev/null 2>&1; is "unknown status refused" "$?" 1

# ---------------------------------------------------------------- runners
"$FRONTDESK" tasks run --for 60 2>"$TMP/a.err" & a=$!
wait_for "runner A holds the lease" 10 holder_is "$a"
"$FRONTDESK" tasks run --for 60 2>"$TMP/b.err" & b=$!
wait_for "runner B stands by" 10 said "$TMP/b.err" "standing by: the runner lease is held by" 1
fd tasks run --once >"$TMP/out" 2>"$TMP/err"; st=$?
is "tasks run --once while A holds the lease is refused" "$st" 1
like "and says who holds it" "$(cat "$TMP/err")" "process $a"
fd appt add --start "2026-12-04 10:00" --end "2026-12-04 11:00" --location "Lot 9" >/dev/null
like "with runner A alive, the agenda right after a write shows it" "$(fd agenda --from 2026-12-01 --days 7 2>&1)" "#3 "
is "... A applied it, not the agenda" "$(sq "SELECT claimed_by FROM task WHERE key = '3' ORDER BY id DESC LIMIT 1" | sed 's/.*://')" "$a"
kill -9 "$a"; wait "$a" 2>/dev/null
wait_for "B takes over after kill -9 of A" 10 said "$TMP/b.err" "running tasks (runner lease epoch" 1
is "B holds the lease" "$(holder_pid)" "$b"
fd appt add --start "2026-12-04 12:00" --end "2026-12-04 13:00" >/dev/null
wait_for "B applies a change, nobody asking (how fast: bench/run.sh)" 10 agenda_has "#4 "
kill -STOP "$b"
"$FRONTDESK" tasks run --for 60 2>"$TMP/c.err" & c=$!
wait_for "C takes over once B's lease expired" 10 said "$TMP/c.err" "running tasks (runner lease epoch" 1
is "C holds the lease" "$(holder_pid)" "$c"
kill -CONT "$b"
wait_for "B, continued, finds it lost the lease" 10 said "$TMP/b.err" "lost the runner lease" 1
is "C still holds it" "$(holder_pid)" "$c"
fd appt add --start "2026-12-04 14:00" --end "2026-12-04 15:00" >/dev/null
wait_for "C applies a change, nobody asking" 10 agenda_has "#5 "
kill -TERM "$c"; wait "$c" 2>/dev/null
wait_for "B takes over when C stops" 10 said "$TMP/b.err" "running tasks (runner lease epoch" 2
ok "an operator breaks B's lease" fd lease break runner
wait_for "B notices" 10 said "$TMP/b.err" "lost the runner lease" 2
kill -TERM "$b"; wait "$b" 2>/dev/null
out=$(fd lease list)
like "lease list shows the runner lease" "$out" "runner"
out=$(fd --json lease list | json "[(l['name'], l['state']) for l in d['leases']]")
like "released on exit" "$out" "('runner', 'free')"
epochs=$(sq "SELECT epoch FROM control WHERE name = 'runner'")
ok "every takeover bumped the epoch (epoch $epochs)" [ "$epochs" -ge 6 ]
ok "projection check at the end" fd projection check

# a read-only agenda cannot apply updates: it says so rather than being silently behind
fd appt add --start "2026-12-20 09:00" --end "2026-12-20 10:00" >/dev/null
out=$(fd --read-only agenda --from 2026-12-20 2>"$TMP/err")
is "read-only: the new visit is not there yet" "$out" "No visits in this range."
like "... and the note says the calendar may be behind" "$(cat "$TMP/err")" "the calendar may be behind"
w=$(sq "SELECT count(*) FROM task WHERE kind = 'calendar' AND status IN ('pending', 'failed')")
n=$(fd --read-only --json agenda --from 2026-12-20 2>/dev/null | json "d['updates_waiting'], d['runner_alive']")
is "... JSON: the updates waiting, no runner" "$n" "$w False"
like "a writable agenda shows it" "$(fd agenda --from 2026-12-20 2>&1)" "09:00-10:00  #"

done_testing
