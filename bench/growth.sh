#!/bin/sh
# growth.sh [BUILD_DIR] - how the whole-process figures grow with the
# database: `frontdesk --version`, `frontdesk agenda --days 7`, the `sqlite3`
# shell running the agenda's range query on the same file, and the screen's
# first frame (month view), on databases of 10,000, 100,000 and 1,000,000
# visits side by side; with the peak memory of each. Markdown on stdout. Not
# part of `make check`.
#
# Every round runs every measure on every size in turn (so that the load of
# the shared machine falls on all of them alike): the commands through
# bench/measure.py (GROWTH_RUNS timed runs, then three under /usr/bin/time
# for the maximum resident set size), the screen once in a private tmux
# server (120x40, read-only, month view of UI_NOW, as bench/ui-bench.sh:
# from the exec to the first doupdate), its peak memory read from VmHWM in
# /proc once the frame is out. Medians of the rounds; ratios taken round by
# round, median given.
# The databases are $GROWTH_DIR/bench-N.db as bench/run.sh generates them,
# brought to this build's schema (`frontdesk --db FILE migrate`) with no
# calendar task pending (the screen opens them read-only).
# Environment: GROWTH_DIR (/tmp/frontdesk-bench), GROWTH_SIZES ("10000
# 100000 1000000"), GROWTH_ROUNDS (7), GROWTH_RUNS (3), GROWTH_WEEK
# (2026-11-30, the agenda's first day), UI_NOW (2026-06-15T09:00).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
dir=${GROWTH_DIR:-/tmp/frontdesk-bench}
SIZES=${GROWTH_SIZES:-10000 100000 1000000}
ROUNDS=${GROWTH_ROUNDS:-7}
RUNS=${GROWTH_RUNS:-3}
WEEK=${GROWTH_WEEK:-2026-11-30}
NOW=${UI_NOW:-2026-06-15T09:00}
FD=$build/frontdesk
work=$(mktemp -d "${TMPDIR:-/tmp}/fdgrowth.XXXXXX")
sock="fdgrowth$$"
T="tmux -L $sock -f /dev/null"
trap '$T kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
export TZ=America/New_York LC_ALL=C.UTF-8
unset FRONTDESK_DB FRONTDESK_NOW
mkdir -p "$work/state/frontdesk" "$work/config/frontdesk"
echo "view = month" > "$work/state/frontdesk/screen"

week=$(python3 -c "
import datetime, os, time
os.environ['TZ'] = 'America/New_York'; time.tzset()
d = datetime.date.fromisoformat('$WEEK')
ts = lambda x: int(time.mktime(x.timetuple()))
print(ts(d), ts(d + datetime.timedelta(days=7)))")
from=${week% *}
to=${week#* }
query="SELECT appointment_id, start_at, end_at, customers, services, total_price, currency, est_minutes, payment_status, status FROM appointment_calendar_view WHERE start_at >= $from - coalesce((SELECT max(end_at - start_at) FROM appointment_calendar_view), 0) AND start_at < $to AND end_at > $from ORDER BY start_at, appointment_id"
# the month the screen shows (weeks from Sunday in C.UTF-8), for its row count
mrange=$(python3 -c "
import datetime, os, time
os.environ['TZ'] = 'America/New_York'; time.tzset()
d = datetime.date.fromisoformat('$NOW'[:10]).replace(day=1)
first = d - datetime.timedelta(days=(d.weekday() + 1) % 7)
nxt = (d.replace(day=28) + datetime.timedelta(days=4)).replace(day=1)
last = first + datetime.timedelta(days=7 * (((nxt - first).days + 6) // 7))
ts = lambda x: int(time.mktime(x.timetuple()))
print(ts(first), ts(last))")
mquery=$(echo "$query" | sed "s/$from/${mrange% *}/g; s/$to/${mrange#* }/g")
for n in $SIZES; do
	db=$dir/bench-$n.db
	[ -f "$db" ] || { echo "growth.sh: no $db (bench/run.sh with BENCH_N=$n makes it)" >&2; exit 1; }
	"$FD" --db "$db" --read-only agenda --from "$WEEK" --days 7 > /dev/null || {
		echo "growth.sh: $db cannot be read by this build (run: $FD --db $db migrate)" >&2
		exit 1
	}
done

# m NAME CMD... - one measure.py call: its median and peak memory to NAME
m() {
	name=$1
	shift
	python3 "$top/bench/measure.py" "$RUNS" "$@" | python3 -c "
import json,sys; d=json.load(sys.stdin); print(d['median_ms'], d['rss_median_kib'])" >> "$work/$name"
}

wait_log() { # FILE PATTERN COUNT
	i=0
	while c=$(grep -c -- "$2" "$1" 2>/dev/null) || true; [ "${c:-0}" -lt "$3" ]; do
		i=$((i + 1))
		[ "$i" -lt 600 ] || { echo "growth.sh: timed out waiting for '$2' in $1" >&2; exit 1; }
		sleep 0.02
	done
}

# frame NAME DB - one start of the screen: ms and peak KiB to NAME
frame() {
	log=$work/log
	rm -f "$log"
	n=0
	until $T new-session -d -x 120 -y 40 "sh -c 'date +%s.%N > $work/t0; exec env \
		TERM=xterm-256color FRONTDESK_NOW=$NOW XDG_STATE_HOME=$work/state \
		XDG_CONFIG_HOME=$work/config FRONTDESK_DEBUG_LOG=$log \
		$FD --db $2 --read-only'" 2>/dev/null; do
		n=$((n + 1)); [ "$n" -lt 50 ] || exit 1; sleep 0.1
	done
	wait_log "$log" "first-frame realtime=" 1
	pid=$($T display-message -p '#{pane_pid}')
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
	t1=$(sed -n 's/.*first-frame realtime=//p' "$log" | head -1)
	echo "$(cat "$work/t0") $t1 $hwm" | awk '{ printf "%.3f %d\n", ($2 - $1) * 1000, $3 }' >> "$work/$1"
	$T send-keys Q
	$T kill-server 2>/dev/null || true
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	m mem sqlite3 :memory: 'select 1'
	for n in $SIZES; do
		db=$dir/bench-$n.db
		m "ver-$n" "$FD" --db "$db" --version
		m "ag-$n" "$FD" --db "$db" agenda --from "$WEEK" --days 7
		m "sh-$n" sqlite3 -readonly "$db" "$query"
		frame "fr-$n" "$db"
	done
	r=$((r + 1))
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# med FILE COLUMN - median of a column
med() { cut -d' ' -f"$2" "$1" | sort -n | awk '{ a[NR] = $1 } END { printf "%.1f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
mib() { echo "$(med "$1" 2)" | awk '{ printf "%.1f", $1 / 1024 }'; }
# ratio A B - median of the round-by-round ratios of column 1
ratio() { paste -d' ' "$1" "$2" | awk '{ printf "%.2f\n", $1 / $3 }' | sort -n | awk '{ a[NR] = $1 } END { printf "%.2fx", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)
echo "Produced by \`bench/growth.sh\` on $(date -u '+%Y-%m-%d %H:%M') UTC (GROWTH_ROUNDS=$ROUNDS, GROWTH_RUNS=$RUNS,"
echo "GROWTH_DIR=$dir); $(nproc) CPUs ($cpu); SQLite $(sqlite3 --version | cut -d' ' -f1)."
echo "Agenda: the week from $WEEK; first frame: the month view of $(echo "$NOW" | cut -c1-7)."
echo "Load average (1, 5, 15 min) before: $load_before; after: $load_after."
echo
printf '| Measure (median of %s rounds; peak memory) |' "$ROUNDS"
for n in $SIZES; do printf ' %s visits |' "$n"; done
echo
printf '|---|'
for n in $SIZES; do printf -- '---|'; done
echo
row() { # LABEL PREFIX
	printf '| %s |' "$1"
	for n in $SIZES; do printf ' %s ms, %s MiB |' "$(med "$work/$2-$n" 1)" "$(mib "$work/$2-$n")"; done
	echo
}
row "\`frontdesk --version\`" ver
row "\`frontdesk agenda --from $WEEK --days 7\`" ag
row "\`sqlite3\` shell, the agenda's range query" sh
row "screen: start to first frame (month view)" fr
printf '| rows: the week / the month shown |'
for n in $SIZES; do
	db=$dir/bench-$n.db
	printf ' %s / %s |' "$(sqlite3 -readonly "$db" "$query" | wc -l)" \
		"$(sqlite3 -readonly "$db" "$mquery" | wc -l)"
done
echo
printf '| agenda / sqlite3 shell (round by round) |'
for n in $SIZES; do printf ' %s |' "$(ratio "$work/ag-$n" "$work/sh-$n")"; done
echo
printf '| --version / `sqlite3 :memory: "select 1"` (%s ms, %s MiB) |' "$(med "$work/mem" 1)" "$(mib "$work/mem")"
for n in $SIZES; do printf ' %s |' "$(ratio "$work/ver-$n" "$work/mem")"; done
echo
printf '| first frame / sqlite3 shell (the week query) |'
for n in $SIZES; do printf ' %s |' "$(ratio "$work/fr-$n" "$work/sh-$n")"; done
echo
first=$(echo $SIZES | awk '{ print $1 }')
last=$(echo $SIZES | awk '{ print $NF }')
echo
echo "Growth from $first to $last visits (round by round): agenda $(ratio "$work/ag-$last" "$work/ag-$first"),"
echo "first frame $(ratio "$work/fr-$last" "$work/fr-$first"), --version $(ratio "$work/ver-$last" "$work/ver-$first"),"
echo "the sqlite3 shell's week query $(ratio "$work/sh-$last" "$work/sh-$first")."
