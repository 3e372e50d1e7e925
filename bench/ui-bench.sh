#!/bin/sh
# ui-bench.sh [BUILD_DIR] - the desk screen on the 1M-visit database: the
# time from starting the program to its first complete frame, and the time
# to redraw after moving one month, as medians; written to
# bench/UI-RESULTS.md. Not part of `make check`.
#
# The database is a copy (sqlite3 .backup, kept in $UI_BENCH_DIR) of the one
# bench/run.sh generates and rebuilds in $BENCH_DIR (made here with
# bench/gen.c when absent, which takes about ten minutes), brought up to this
# build's schema and with its calendar tasks drained. The screen runs in a private tmux server, read-only (no job
# runner thread, nothing written), on the month view, with the clock set
# inside the generated years. Each run:
#   - the pane's shell writes the real time, then execs frontdesk; the
#     program logs the real time when its first frame has been sent
#     (doupdate done): the difference is "start to first frame", including
#     exec, dynamic loading, opening the database and the first range query;
#   - PgDn and PgUp are pressed in turn; the program logs, for each key, the
#     time from reading the key to the end of the redraw (the new month's
#     range query, laying out and drawing, doupdate).
# Environment: BENCH_N (1000000), BENCH_YEARS (8), BENCH_DIR
# (/tmp/frontdesk-bench), UI_BENCH_DIR (/tmp/frontdesk-ui-bench), UI_RUNS (11 starts), UI_MOVES (10 month moves per
# start), UI_NOW (2026-06-15T09:00), UI_OUT (bench/UI-RESULTS.md).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
N=${BENCH_N:-1000000}
YEARS=${BENCH_YEARS:-8}
dir=${BENCH_DIR:-/tmp/frontdesk-bench}
RUNS=${UI_RUNS:-11}
MOVES=${UI_MOVES:-10}
NOW=${UI_NOW:-2026-06-15T09:00}
out=${UI_OUT:-$top/bench/UI-RESULTS.md}
src=$dir/bench-$N.db
udir=${UI_BENCH_DIR:-/tmp/frontdesk-ui-bench}
db=$udir/bench-$N.db
work=$(mktemp -d "${TMPDIR:-/tmp}/fdui-bench.XXXXXX")
sock="fduibench$$"
T="tmux -L $sock -f /dev/null"
trap '$T kill-server 2>/dev/null || true; rm -rf "$work"' EXIT

export TZ=America/New_York LC_ALL=C.UTF-8
unset FRONTDESK_DB
if [ ! -f "$src" ]; then
	echo "ui-bench.sh: generating $N visits (once; kept in $dir)" >&2
	mkdir -p "$dir/calcurse-$N"
	make -C "$build" -s bench-programs # bench/*.c, built by Makefile.am with the core's flags
	"$build/bench/gen" "$src" "$dir/calcurse-$N" "$N" "$YEARS"
	"$build/frontdesk" --db "$src" projection rebuild --all >/dev/null 2>&1
fi
if [ ! -f "$db" ]; then
	echo "ui-bench.sh: copying $src to $db (once)" >&2
	mkdir -p "$udir"
	sqlite3 "$src" ".backup '$db'"
	# this build's schema, and no calendar update left waiting
	FRONTDESK_NOW=$NOW "$build/frontdesk" --db "$db" tasks run --once --quiet >/dev/null 2>&1
fi
pending=$(sqlite3 "$db" "SELECT count(*) FROM task WHERE status = 'pending'")
rows=$(sqlite3 "$db" "SELECT count(*) FROM appointment_calendar_view")

mkdir -p "$work/state/frontdesk" "$work/config"
echo "view = month" > "$work/state/frontdesk/screen"

# wait_log FILE PATTERN COUNT - poll until FILE has COUNT lines matching PATTERN
wait_log() {
	i=0
	while c=$(grep -c -- "$2" "$1" 2>/dev/null) || true; [ "${c:-0}" -lt "$3" ]; do
		i=$((i + 1))
		[ "$i" -lt 600 ] || { echo "ui-bench.sh: timed out waiting for '$2' in $1" >&2; exit 1; }
		sleep 0.05
	done
}

# series NAME RUNS - RUNS starts of the screen with the config in
# $work/config; start-to-frame times go to $work/NAME.first, move times to
# $work/NAME.moves
series() {
	: > "$work/$1.first"
	: > "$work/$1.moves"
	run=0
	while [ "$run" -lt "$2" ]; do
		log=$work/$1.log.$run
		n=0
		until $T new-session -d -x 120 -y 40 "sh -c 'date +%s.%N > $work/t0; exec env \
			TERM=xterm-256color FRONTDESK_NOW=$NOW XDG_STATE_HOME=$work/state \
			XDG_CONFIG_HOME=$work/config FRONTDESK_DEBUG_LOG=$log \
			$build/frontdesk --db $db --read-only'" 2>/dev/null; do
			n=$((n + 1)); [ "$n" -lt 50 ] || exit 1; sleep 0.1
		done
		wait_log "$log" "first-frame realtime=" 1
		t0=$(cat "$work/t0")
		t1=$(sed -n 's/.*first-frame realtime=//p' "$log" | head -1)
		echo "$t0 $t1" | awk '{ printf "%.3f\n", ($2 - $1) * 1000 }' >> "$work/$1.first"
		k=0
		while [ "$k" -lt "$MOVES" ]; do
			if [ $((k % 2)) -eq 0 ]; then key=NPage; else key=PPage; fi
			$T send-keys "$key"
			k=$((k + 1))
			wait_log "$log" "redraw after input" "$k"
		done
		sed -n 's/.*redraw after input \([0-9.]*\) ms.*/\1/p' "$log" >> "$work/$1.moves"
		$T send-keys Q
		$T kill-server 2>/dev/null || true
		run=$((run + 1))
	done
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
mkdir -p "$work/config/frontdesk"
series ahead "$RUNS"
# the same without reading ahead: the range query on every move
echo "screen_prefetch = no" > "$work/config/frontdesk/config"
series cold "$(( (RUNS + 1) / 2 ))"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { printf "%.1f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
p90() { sort -n "$1" | awk '{ a[NR] = $1 } END { i = int(NR * 0.9 + 0.5); if (i < 1) i = 1; printf "%.1f", a[i] }'; }
first_med=$(median "$work/ahead.first")
first_p90=$(p90 "$work/ahead.first")
move_med=$(median "$work/ahead.moves")
move_p90=$(p90 "$work/ahead.moves")
nmoves=$(wc -l < "$work/ahead.moves")
cold_med=$(median "$work/cold.moves")
cold_p90=$(p90 "$work/cold.moves")
ncold=$(wc -l < "$work/cold.moves")
month_rows=$(sqlite3 "$db" "SELECT count(*) FROM appointment_calendar_view
	WHERE start_at >= strftime('%s', '2026-05-31 04:00') AND start_at < strftime('%s', '2026-07-05 04:00')")
size=$(du -m "$db" | cut -f1)
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)
{
	echo "# Desk screen benchmarks"
	echo
	echo "Produced by \`bench/ui-bench.sh ${1:-build}\` on $(date -u +%Y-%m-%d) (BENCH_N=$N, UI_RUNS=$RUNS,"
	echo "UI_MOVES=$MOVES, UI_NOW=$NOW). Machine: $(nproc) CPUs ($cpu), SQLite $(sqlite3 --version | cut -d' ' -f1)."
	echo "Database: $rows calendar rows ($size MiB with history, jobs, invoices and payments;"
	echo "$pending calendar tasks pending). The month view of June 2026 shows 5 weeks holding"
	echo "$month_rows visits, all read by one range query of the projection."
	echo
	echo "| Measure | Median | p90 | Target |"
	echo "|---|---|---|---|"
	echo "| start to first complete frame (month view, exec to doupdate), $RUNS starts | $first_med ms | $first_p90 ms | < 100 ms |"
	echo "| redraw after moving one month (key read to doupdate), $nmoves moves | $move_med ms | $move_p90 ms | < 10 ms |"
	echo "| the same without reading ahead (\`screen_prefetch = no\`: the range query on every move), $ncold moves | $cold_med ms | $cold_p90 ms | |"
	echo
	echo "While it waits for a key, the calendar reads the month before and the month"
	echo "after the one shown (the same one range query, one month per turn of its loop),"
	echo "so a month move usually only swaps the month in and draws it; the keys here came"
	echo "as fast as the redraws finished, so the first move of each start (and any move"
	echo "that overtook the reading ahead) paid for the query: that is the p90. The cold"
	echo "row is the cost of the query, copying and drawing on every move."
	echo
	echo "The screen ran read-only in tmux 120x40 (TERM=xterm-256color), so no job"
	echo "runner thread competed with it. Times come from the program's debug log"
	echo "(FRONTDESK_DEBUG_LOG): the first frame against the real time the pane's shell"
	echo "wrote just before exec; each move from reading the key to the end of doupdate."
	echo "Load average (1, 5, 15 min) before: $load_before; after: $load_after."
} > "$out"
cat "$out"
