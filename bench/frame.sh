#!/bin/sh
# frame.sh [BUILD_DIR [BASE_BINARY]] - the desk screen's first frame and its
# month move when nothing was read ahead, beside the limits they are
# compared with, side by side in one run; markdown on stdout. Not part of
# `make check`.
#
# Each round, in turn: BUILD_DIR/frontdesk (and BASE_BINARY, an older build
# to compare with, when given) is started once in a private tmux server
# (120x40, read-only, month view of UI_NOW, `screen_prefetch = no`), its
# first frame timed from the exec to doupdate (the pane's shell writes the
# real time, the program logs it when the first frame is out, as in
# ui-bench.sh), then FRAME_MOVES month moves (PgDn/PgUp in turn) each timed
# from reading the key to doupdate: with nothing read ahead, every move runs
# the month's range query. Then the limit: the `sqlite3` shell running the
# same month's range query (projection_range's SQL, the month of UI_NOW as
# the screen shows it) on the same file, output to /dev/null, as a whole
# process (three runs a round, bench/measure.py). Ratios are taken round by
# round and their median given. Last, in one process (bench/probe.c), the
# month query itself: projection_range and the same statement stepped by
# SQLite alone, median of 200.
# Environment: FRAME_DB (the database: $UI_BENCH_DIR/bench-$BENCH_N.db, as
# ui-bench.sh makes it: current schema, calendar tasks drained), FRAME_ROUNDS
# (9), FRAME_MOVES (10), UI_NOW (2026-06-15T09:00), BENCH_N (1000000),
# UI_BENCH_DIR (/tmp/frontdesk-ui-bench).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
base=${2:-}
N=${BENCH_N:-1000000}
db=${FRAME_DB:-${UI_BENCH_DIR:-/tmp/frontdesk-ui-bench}/bench-$N.db}
ROUNDS=${FRAME_ROUNDS:-9}
MOVES=${FRAME_MOVES:-10}
NOW=${UI_NOW:-2026-06-15T09:00}
work=$(mktemp -d "${TMPDIR:-/tmp}/fdframe.XXXXXX")
sock="fdframe$$"
T="tmux -L $sock -f /dev/null"
trap '$T kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
export TZ=America/New_York LC_ALL=C.UTF-8
unset FRONTDESK_DB
[ -f "$db" ] || { echo "frame.sh: no database $db (bench/ui-bench.sh makes it)" >&2; exit 1; }
mkdir -p "$work/state/frontdesk" "$work/config/frontdesk"
echo "view = month" > "$work/state/frontdesk/screen"
echo "screen_prefetch = no" > "$work/config/frontdesk/config"

# the month of UI_NOW as the screen shows it (weeks from Sunday in C.UTF-8)
range=$(python3 -c "
import datetime, os, time
os.environ['TZ'] = 'America/New_York'; time.tzset()
d = datetime.date.fromisoformat('$NOW'[:10]).replace(day=1)
first = d - datetime.timedelta(days=(d.weekday() + 1) % 7)
nxt = (d.replace(day=28) + datetime.timedelta(days=4)).replace(day=1)
weeks = ((d - first).days + (nxt - d).days + 6) // 7
last = first + datetime.timedelta(days=7 * weeks)
ts = lambda x: int(time.mktime(x.timetuple()))
print(ts(first), ts(last), first.isoformat(), (last - first).days)")
from=$(echo "$range" | cut -d' ' -f1)
to=$(echo "$range" | cut -d' ' -f2)
from_day=$(echo "$range" | cut -d' ' -f3)
ndays=$(echo "$range" | cut -d' ' -f4)
query="SELECT appointment_id, start_at, end_at, customers, services, total_price, currency, est_minutes, payment_status, status FROM appointment_calendar_view WHERE start_at >= $from - coalesce((SELECT max(end_at - start_at) FROM appointment_calendar_view), 0) AND start_at < $to AND end_at > $from ORDER BY start_at, appointment_id"
rows=$(sqlite3 -readonly "$db" "$query" | wc -l)

wait_log() { # FILE PATTERN COUNT
	i=0
	while c=$(grep -c -- "$2" "$1" 2>/dev/null) || true; [ "${c:-0}" -lt "$3" ]; do
		i=$((i + 1))
		[ "$i" -lt 600 ] || { echo "frame.sh: timed out waiting for '$2' in $1" >&2; exit 1; }
		sleep 0.02
	done
}

# start NAME BINARY - one start: first frame to NAME.first, moves to NAME.moves
start() {
	log=$work/$1.log
	rm -f "$log"
	n=0
	until $T new-session -d -x 120 -y 40 "sh -c 'date +%s.%N > $work/t0; exec env \
		TERM=xterm-256color FRONTDESK_NOW=$NOW XDG_STATE_HOME=$work/state \
		XDG_CONFIG_HOME=$work/config FRONTDESK_DEBUG_LOG=$log \
		$2 --db $db --read-only'" 2>/dev/null; do
		n=$((n + 1)); [ "$n" -lt 50 ] || exit 1; sleep 0.1
	done
	wait_log "$log" "first-frame realtime=" 1
	t1=$(sed -n 's/.*first-frame realtime=//p' "$log" | head -1)
	echo "$(cat "$work/t0") $t1" | awk '{ printf "%.3f\n", ($2 - $1) * 1000 }' >> "$work/$1.first"
	k=0
	while [ "$k" -lt "$MOVES" ]; do
		if [ $((k % 2)) -eq 0 ]; then key=NPage; else key=PPage; fi
		$T send-keys "$key"
		k=$((k + 1))
		wait_log "$log" "redraw after input" "$k"
	done
	sed -n 's/.*redraw after input \([0-9.]*\) ms.*/\1/p' "$log" > "$work/$1.m"
	sort -n "$work/$1.m" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }' >> "$work/$1.movemed"
	cat "$work/$1.m" >> "$work/$1.moves"
	$T send-keys Q
	$T kill-server 2>/dev/null || true
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
: > "$work/shell"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	start new "$build/frontdesk"
	[ -z "$base" ] || start base "$base"
	python3 "$top/bench/measure.py" 3 sqlite3 -readonly "$db" "$query" |
		python3 -c "import json,sys; print(json.load(sys.stdin)['median_ms'])" >> "$work/shell"
	r=$((r + 1))
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

make -C "$build" -s bench-programs # bench/*.c, built by Makefile.am with the core's flags
inproc=$("$build/bench/probe" range "$db" "$from_day" "$ndays" 200)

med() { sort -n "$1" | awk '{ a[NR] = $1 } END { printf "%.1f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
p90() { sort -n "$1" | awk '{ a[NR] = $1 } END { i = int(NR * 0.9 + 0.5); if (i < 1) i = 1; printf "%.1f", a[i] }'; }
ratio2() { paste "$1" "$2" | awk '{ printf "%.2f\n", $1 / $2 }' | sort -n | awk '{ a[NR] = $1 } END { printf "%.2fx", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)
echo "Produced by \`bench/frame.sh ${1:-build}${base:+ $base}\` on $(date -u '+%Y-%m-%d %H:%M') UTC: $ROUNDS rounds,"
echo "$MOVES cold month moves a start; $(nproc) CPUs ($cpu); SQLite $(sqlite3 --version | cut -d' ' -f1)."
echo "Database: $db, the month view of $(echo "$NOW" | cut -c1-7) ($ndays days from $from_day, $rows visits)."
echo "Load average (1, 5, 15 min) before: $load_before; after: $load_after."
echo
echo "| Measure | Median | p90 |"
echo "|---|---|---|"
echo "| start to first frame, this build | $(med "$work/new.first") ms | $(p90 "$work/new.first") ms |"
[ -z "$base" ] || echo "| start to first frame, the base build | $(med "$work/base.first") ms | $(p90 "$work/base.first") ms |"
echo "| \`sqlite3\` shell, the same month's range query, whole process | $(med "$work/shell") ms | $(p90 "$work/shell") ms |"
echo "| cold month move, this build ($(wc -l < "$work/new.moves") moves) | $(med "$work/new.moves") ms | $(p90 "$work/new.moves") ms |"
[ -z "$base" ] || echo "| cold month move, the base build ($(wc -l < "$work/base.moves") moves) | $(med "$work/base.moves") ms | $(p90 "$work/base.moves") ms |"
printf '%s\n' "$inproc" | sed -n 's/^range query (in process, warm): median \([^,]*\), p99 \([^,]*\),.*/| the month query in process (projection_range, 200 runs; p99 in the last column) | \1 | \2 |/p'
printf '%s\n' "$inproc" | sed -n 's/^the same statement stepped by SQLite alone: median \([^,]*\), p99 \([^,]*\),.*/| the same statement stepped by SQLite alone | \1 | \2 |/p'
echo
echo "Ratios, round by round (median of the rounds):"
echo
echo "- first frame / sqlite3 shell: $(ratio2 "$work/new.first" "$work/shell")"
if [ -n "$base" ]; then
	echo "- first frame, this build / base: $(ratio2 "$work/new.first" "$work/base.first")"
	echo "- cold month move (median of each start), this build / base: $(ratio2 "$work/new.movemed" "$work/base.movemed")"
fi
