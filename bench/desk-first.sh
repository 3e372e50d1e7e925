#!/bin/sh
# desk-first.sh [BUILD_DIR [BASE_BUILD_DIR]] - issue 33's "the desk first"
# (not part of `make check`): from a desk payment's commit until its visit's
# calendar cell shows it, with the task runner (`frontdesk serve
# --no-channel`) alive, with the task queue empty and with $DF_BULK
# lifecycle tasks queued (what `retention rebuild`, a migration or a bulk
# import leaves on that many customers).
#
# Copies $DF_SRC (a database of bench/gen.c) once per build to $DF_DIR and
# brings each copy up to its build's schema (a BASE_BUILD_DIR, an older
# build, gets its own copy). Then, for $DF_ROUNDS rounds, each build and
# each case in turn (round-robin, so that the machine's noise falls on all
# alike): the finished and queued lifecycle tasks of the previous case are
# deleted, the WAL checkpointed, for "bulk" $DF_BULK lifecycle tasks queued
# (one per customer, as the triggers queue them), `serve --no-channel`
# started, and bench/cell-pay pays $DF_PAYS unpaid invoices in full,
# $DF_GAP_MS ms apart, timing each commit and how long after it the visit's
# calendar row stopped saying "unpaid" (the goal: commit to cell, p99, at
# most 50 ms more with the bulk queued); then serve is stopped and the
# lifecycle tasks still queued are counted (the queue was never empty
# while the desk paid if that count is above 0).
# Environment: DF_SRC (/work/bench/b1m.db), DF_DIR (/tmp/frontdesk-desk-first),
# DF_ROUNDS (3), DF_PAYS (100), DF_GAP_MS (20), DF_BULK (50000),
# DF_TIMEOUT_S (120), DF_BASE_SRC (the base build's database, default DF_SRC:
# an older build refuses a file of a newer schema). Prints a markdown table
# on stdout.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
base=${2:+$(cd "$2" && pwd)}
src=${DF_SRC:-/work/bench/b1m.db}
dir=${DF_DIR:-/tmp/frontdesk-desk-first}
ROUNDS=${DF_ROUNDS:-3}
PAYS=${DF_PAYS:-100}
GAP=${DF_GAP_MS:-20}
BULK=${DF_BULK:-50000}
TIMEOUT=${DF_TIMEOUT_S:-120}

export TZ=America/New_York LC_ALL=C.UTF-8
unset FRONTDESK_NOW FRONTDESK_DB
mkdir -p "$dir"
builds="this"
[ -n "$base" ] && builds="this base"
bdir() { if [ "$1" = this ]; then echo "$build"; else echo "$base"; fi; }

for b in $builds; do
	B=$(bdir $b)
	from=$src
	if [ "$b" = this ]; then
		make -C "$B" -s bench-programs >/dev/null # bench/*.c, with the core's flags
	else
		from=${DF_BASE_SRC:-$src}
		[ -x "$B/bench/cell-pay" ] || {
			echo "desk-first.sh: $B/bench/cell-pay is missing: build bench/cell-pay.c there" >&2
			exit 1
		}
	fi
	db=$dir/$b.db
	if [ ! -f "$db" ] || [ "$from" -nt "$db" ]; then
		echo "desk-first.sh: copying $from for $b (once; kept in $dir)" >&2
		rm -f "$db" "$db-wal" "$db-shm"
		cp "$from" "$db.tmp"
		mv "$db.tmp" "$db"
	fi
	"$B/frontdesk" --db "$db" migrate >/dev/null
	"$B/frontdesk" --db "$db" tasks run --quiet --once >/dev/null 2>&1 || true
done
samples=$dir/samples
rm -rf "$samples"
mkdir -p "$samples"

# one B CASE: one run of the desk beside the runner
one() {
	b=$1 case=$2
	B=$(bdir "$b")
	db=$dir/$b.db
	sqlite3 -cmd ".timeout 10000" "$db" "DELETE FROM task WHERE kind = 'lifecycle';
		PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
	if [ "$case" = bulk ]; then
		sqlite3 -cmd ".timeout 10000" "$db" "INSERT INTO task (kind, key)
			SELECT 'lifecycle', id FROM customer ORDER BY id LIMIT $BULK
			ON CONFLICT DO NOTHING;" >/dev/null
	fi
	"$B/frontdesk" --db "$db" serve --no-channel --quiet >"$dir/serve.out" 2>&1 &
	serve=$!
	sleep 1 # it takes the runner's lease
	"$B/bench/cell-pay" "$db" "$PAYS" "$GAP" "$TIMEOUT" >>"$samples/$b.$case"
	kill "$serve"
	wait "$serve" || true
	left=$(sqlite3 -cmd ".timeout 10000" "$db" "SELECT count(*) FROM task
		WHERE kind = 'lifecycle' AND status IN ('pending', 'failed', 'running')")
	echo "$left" >>"$samples/$b.$case.left"
}

r=1
while [ "$r" -le "$ROUNDS" ]; do
	for b in $builds; do
		for c in empty bulk; do
			echo "desk-first.sh: round $r: $b $c" >&2
			one "$b" "$c"
		done
	done
	r=$((r + 1))
done

# pct FILE COLUMN P: the P-th percentile (nearest rank) of COLUMN, in ms
pct() {
	awk -v c="$2" '$c >= 0 { print $c / 1000 }' "$1" | sort -n |
		awk -v p="$3" '{ v[NR] = $1 } END {
			if (NR == 0) { print "-"; exit }
			i = int(NR * p / 100 + 0.999999); if (i < 1) i = 1; if (i > NR) i = NR
			printf "%.1f\n", v[i] }'
}

# the samples with a third column: from the commit's start until the cell showed it
for f in "$samples"/*.empty "$samples"/*.bulk; do
	awk '{ print $1, $2, ($2 < 0 ? -1 : $1 + $2) }' "$f" >"$f.3"
done
echo "| build | case | payments | commit p50 | commit p99 | cell p50 | cell p99 | cell max | commit to cell p50 | commit to cell p99 | p99 - empty's | not shown in ${TIMEOUT} s | bulk tasks left after (min) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for b in $builds; do
	e99=$(pct "$samples/$b.empty.3" 3 99)
	for c in empty bulk; do
		f=$samples/$b.$c.3
		n=$(wc -l <"$f")
		lost=$(awk '$2 < 0' "$f" | wc -l)
		t99=$(pct "$f" 3 99)
		diff=$(awk -v a="$t99" -v e="$e99" 'BEGIN { if (a == "-" || e == "-") print "-"; else printf "%+.1f ms\n", a - e }')
		left=$(sort -n "$samples/$b.$c.left" | head -1)
		echo "| $b | $c | $n | $(pct "$f" 1 50) ms | $(pct "$f" 1 99) ms | $(pct "$f" 2 50) ms | $(pct "$f" 2 99) ms | $(pct "$f" 2 100) ms | $(pct "$f" 3 50) ms | $t99 ms | $diff | $lost | $left |"
	done
done
