#!/bin/sh
# history-growth.sh [BUILD_DIR] - what the finished tasks cost the desk
# (issue 33): `frontdesk agenda --days 7` and `--days 1`, the `sqlite3`
# shell running the agenda's own range query on the same file, and the
# screen's first frame, on copies of one database holding 0, 100,000 and
# 1,000,000 finished tasks, side by side; with the peak memory of each.
# Markdown on stdout. Not part of `make check`.
#
# The copies: HG_SRC (a database made by bench/gen.c; never written) is
# copied once to HG_DIR/base.db, brought to this build's schema, its
# calendar rebuilt (`projection rebuild --all`, which also drains the
# calendar tasks gen queued) and its task table emptied (the state the
# issue's first figure was taken in); then HG_DIR/tasks-N.db is that copy
# with N tasks finished over the last week of real time (status
# 'succeeded', three calendar tasks for each lifecycle task, keys of
# visits and customers): the rows a week of ordinary work leaves
# (tasks_keep_days = 7). Nothing else differs. gen.c's ANALYZE ran while
# its million calendar tasks were pending, so the copies' sqlite_stat1
# says that every task has the same status, as any ANALYZE of a young
# queue would; it is kept (the planner's choices under it are the point).
#
# Every round runs every measure on every copy in turn, this build and
# HG_BASE (an older build's binary, optional) alternating (each going first
# every other round), so that the
# load of the shared machine falls on all of them alike: the commands
# through bench/measure.py (HG_RUNS timed runs, then three under
# /usr/bin/time for the maximum resident set size), the screen once per
# binary in a private tmux server (120x40, read-only, week view, as
# bench/growth.sh: from the exec to the first doupdate; peak memory from
# VmHWM). Medians of the rounds; ratios taken round by round, median given.
# Environment: HG_SRC (/tmp/frontdesk-bench/bench-1000000.db), HG_DIR
# (/tmp/frontdesk-history), HG_COUNTS ("0 100000 1000000"), HG_ROUNDS (7),
# HG_RUNS (3), HG_BASE (none), HG_NOW (2026-12-01T09:00: the agenda's
# first day and the screen's week, as gen's visits place it).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
src=${HG_SRC:-/tmp/frontdesk-bench/bench-1000000.db}
dir=${HG_DIR:-/tmp/frontdesk-history}
COUNTS=${HG_COUNTS:-0 100000 1000000}
ROUNDS=${HG_ROUNDS:-7}
RUNS=${HG_RUNS:-3}
BASE=${HG_BASE:-}
NOW=${HG_NOW:-2026-12-01T09:00}
FD=$build/frontdesk
work=$(mktemp -d "${TMPDIR:-/tmp}/fdhist.XXXXXX")
sock="fdhist$$"
T="tmux -L $sock -f /dev/null"
trap '$T kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
export TZ=America/New_York LC_ALL=C.UTF-8 FRONTDESK_NOW=$NOW
unset FRONTDESK_DB
mkdir -p "$dir" "$work/state/frontdesk" "$work/config/frontdesk"
echo "view = week" > "$work/state/frontdesk/screen"
bins="new"
[ -n "$BASE" ] && bins="new base"
bin() { if [ "$1" = new ]; then echo "$FD"; else echo "$BASE"; fi; }

# the copies (made once; delete HG_DIR to make them again)
if [ ! -f "$dir/base.db" ]; then
	[ -f "$src" ] || { echo "history-growth.sh: no $src (bench/run.sh makes it)" >&2; exit 1; }
	echo "history-growth.sh: copying $src" >&2
	cp "$src" "$dir/base.db.tmp"
	"$FD" --db "$dir/base.db.tmp" migrate >/dev/null 2>&1 || true
	"$FD" --db "$dir/base.db.tmp" projection rebuild --all >/dev/null 2>&1
	sqlite3 "$dir/base.db.tmp" "DELETE FROM task; PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
	mv "$dir/base.db.tmp" "$dir/base.db"
fi
for n in $COUNTS; do
	db=$dir/tasks-$n.db
	[ -f "$db" ] && continue
	echo "history-growth.sh: $db" >&2
	cp "$dir/base.db" "$db.tmp"
	sqlite3 "$db.tmp" "
WITH RECURSIVE i(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM i WHERE k < $n)
INSERT INTO task (kind, key, status, attempts, next_run_at, created_at, updated_at,
  started_at, finished_at)
SELECT CASE WHEN k % 4 = 0 THEN 'lifecycle' ELSE 'calendar' END,
  CASE WHEN k % 4 = 0 THEN CAST(1 + k % 50000 AS TEXT) ELSE CAST(1 + k % 1000000 AS TEXT) END,
  'succeeded', 1, t, t, t, t, t
FROM (SELECT k, CAST(strftime('%s', 'now') AS INTEGER) - 604800 + (k * 604800) / ($n + 1) AS t
      FROM i) WHERE $n > 0;
PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
	mv "$db.tmp" "$db"
done
for n in $COUNTS; do
	for b in $bins; do
		"$(bin $b)" --db "$dir/tasks-$n.db" --read-only agenda --days 1 >/dev/null || {
			echo "history-growth.sh: $(bin $b) cannot read $dir/tasks-$n.db" >&2
			exit 1
		}
	done
done

# the agenda's range query over DAYS days from NOW's day (projection_range's SQL)
range_query() {
	python3 -c "
import datetime, os, time
os.environ['TZ'] = 'America/New_York'; time.tzset()
d = datetime.date.fromisoformat('$NOW'[:10])
ts = lambda x: int(time.mktime(x.timetuple()))
f, t = ts(d), ts(d + datetime.timedelta(days=$1))
print('SELECT appointment_id, start_at, end_at, customers, services, total_price, currency, '
      'est_minutes, payment_status, status FROM appointment_calendar_view WHERE start_at >= '
      '%d - coalesce((SELECT max(end_at - start_at) FROM appointment_calendar_view), 0) '
      'AND start_at < %d AND end_at > %d ORDER BY start_at, appointment_id' % (f, t, f))"
}
q7=$(range_query 7)
q1=$(range_query 1)

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
		[ "$i" -lt 600 ] || { echo "history-growth.sh: timed out waiting for '$2' in $1" >&2; exit 1; }
		sleep 0.02
	done
}

# frame NAME BINARY DB - one start of the screen: ms and peak KiB to NAME
frame() {
	log=$work/log
	rm -f "$log"
	k=0
	until $T new-session -d -x 120 -y 40 "sh -c 'date +%s.%N > $work/t0; exec env \
		TERM=xterm-256color FRONTDESK_NOW=$NOW XDG_STATE_HOME=$work/state \
		XDG_CONFIG_HOME=$work/config FRONTDESK_DEBUG_LOG=$log \
		$2 --db $3 --read-only'" 2>/dev/null; do
		k=$((k + 1)); [ "$k" -lt 50 ] || exit 1; sleep 0.1
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
	# the builds take turns at going first (the first process after the
	# shell on a file was seen to pay more)
	order=$bins
	[ -n "$BASE" ] && [ $((r % 2)) -eq 1 ] && order="base new"
	for n in $COUNTS; do
		db=$dir/tasks-$n.db
		m "sh7-$n" sqlite3 -readonly "$db" "$q7"
		m "sh1-$n" sqlite3 -readonly "$db" "$q1"
		for b in $order; do
			m "ag7-$b-$n" "$(bin $b)" --db "$db" agenda --days 7
			m "ag1-$b-$n" "$(bin $b)" --db "$db" agenda --days 1
			frame "fr-$b-$n" "$(bin $b)" "$db"
		done
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
echo "Produced by \`bench/history-growth.sh\` on $(date -u '+%Y-%m-%d %H:%M') UTC (HG_ROUNDS=$ROUNDS, HG_RUNS=$RUNS,"
echo "HG_SRC=$src, HG_DIR=$dir); $(nproc) CPUs ($cpu); SQLite $(sqlite3 --version | cut -d' ' -f1)."
echo "This build: $("$FD" --version | head -1)${BASE:+; base: $("$BASE" --version | head -1) ($BASE)}."
echo "FRONTDESK_NOW=$NOW (the agenda's first day; the screen's week, read-only)."
echo "Load average (1, 5, 15 min) before: $load_before; after: $load_after."
echo
printf '| Measure (median of %s rounds; peak memory) |' "$ROUNDS"
for n in $COUNTS; do printf ' %s finished tasks |' "$n"; done
echo
printf '|---|'
for n in $COUNTS; do printf -- '---|'; done
echo
row() { # LABEL FILE-PREFIX
	printf '| %s |' "$1"
	for n in $COUNTS; do printf ' %s ms, %s MiB |' "$(med "$work/$2-$n" 1)" "$(mib "$work/$2-$n")"; done
	echo
}
rrow() { # LABEL A-PREFIX B-PREFIX
	printf '| %s |' "$1"
	for n in $COUNTS; do printf ' %s |' "$(ratio "$work/$2-$n" "$work/$3-$n")"; done
	echo
}
for b in $bins; do
	row "\`agenda --days 7\` ($b)" "ag7-$b"
	row "\`agenda --days 1\` ($b)" "ag1-$b"
	row "screen: start to first frame, week view ($b)" "fr-$b"
done
row "\`sqlite3\` shell, the agenda's 7-day range query" sh7
row "\`sqlite3\` shell, the agenda's 1-day range query" sh1
for b in $bins; do
	rrow "agenda --days 7 / shell ($b)" "ag7-$b" sh7
	rrow "agenda --days 1 / shell ($b)" "ag1-$b" sh1
done
if [ -n "$BASE" ]; then
	rrow "agenda --days 7: new / base" ag7-new ag7-base
	rrow "agenda --days 1: new / base" ag1-new ag1-base
	rrow "first frame: new / base" fr-new fr-base
fi
printf '| rows: the 7 days / the day |'
for n in $COUNTS; do
	db=$dir/tasks-$n.db
	printf ' %s / %s |' "$(sqlite3 -readonly "$db" "$q7" | wc -l)" "$(sqlite3 -readonly "$db" "$q1" | wc -l)"
done
echo
first=$(echo $COUNTS | awk '{ print $1 }')
last=$(echo $COUNTS | awk '{ print $NF }')
echo
for b in $bins; do
	echo "Growth from $first to $last finished tasks ($b, round by round): agenda --days 7 $(ratio "$work/ag7-$b-$last" "$work/ag7-$b-$first"),"
	echo "agenda --days 1 $(ratio "$work/ag1-$b-$last" "$work/ag1-$b-$first"), first frame $(ratio "$work/fr-$b-$last" "$work/fr-$b-$first")."
done
echo "The shell's 7-day query: $(ratio "$work/sh7-$last" "$work/sh7-$first")."
