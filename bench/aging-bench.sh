#!/bin/sh
# aging-bench.sh [BUILD_DIR] - `frontdesk report aging` on a history of
# $AGING_N invoices for $AGING_CUSTOMERS customers (issue 18: 550,000 and
# 50,000), beside its limit measured in the same run: the sqlite3 shell
# running the report's three statements (open invoices and payments with
# credit from their covering partial indexes, the customers' names) on the
# same file. Not part of `make check`; prints markdown (and writes it to
# $AGING_OUT when set).
#
# Has BUILD_DIR (default build/) build bench/money-gen (make bench-programs),
# generates the history once (cached per schema in $AGING_DIR, default
# /tmp/frontdesk-bench/aging: about 1.4 GB and two minutes), drains its
# calendar tasks, then runs round-robin, as whole processes (bench/money-time.py):
#   - `frontdesk report aging` of BUILD_DIR;
#   - the same of $AGING_BEFORE when set (another build's frontdesk binary,
#     for a before/after ratio taken in the same run);
#   - the sqlite3 shell on the same statements (the limit).
# With AGING_CALLGRIND=1 it also counts each binary's instructions
# (valgrind --tool=callgrind), which the machine's load does not change.
# Environment: AGING_N (550000), AGING_CUSTOMERS (50000), AGING_RUNS (31),
# AGING_DIR, AGING_BEFORE, AGING_CALLGRIND, AGING_OUT.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
arg=${1:-build}
N=${AGING_N:-550000}
C=${AGING_CUSTOMERS:-50000}
RUNS=${AGING_RUNS:-31}
dir=${AGING_DIR:-/tmp/frontdesk-bench/aging}
FD=$build/frontdesk
mkdir -p "$dir"
export TZ=America/New_York LC_ALL=C.UTF-8
unset FRONTDESK_NOW FRONTDESK_DB

schema=$(sha256sum "$build/src/schema-data.c" | cut -c1-12)
db=$dir/aging-$N-$C-$schema.db
if [ ! -f "$db" ]; then
	make -C "$build" -s bench-programs # bench/*.c, built by Makefile.am with the core's flags
	echo "aging-bench.sh: generating $N invoices for $C customers (once; kept in $dir)" >&2
	rm -f "$db.tmp" "$db.tmp-wal" "$db.tmp-shm"
	"$build/bench/money-gen" "$db.tmp" "$N" "$C" >&2
	"$FD" --db "$db.tmp" projection rebuild --all >/dev/null 2>&1
	sqlite3 "$db.tmp" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
	mv "$db.tmp" "$db"
	rm -f "$db.tmp-wal" "$db.tmp-shm"
fi

# the report's statements (src/report.c), word for word
sql=$dir/aging-statements.sql
cat > "$sql" <<'EOF'
SELECT customer_id, currency, due_at, balance FROM invoice WHERE status = 'issued' OR status = 'partially_paid' OR status = 'overpaid' ORDER BY customer_id, currency;
SELECT customer_id, currency, amount - allocated - refunded FROM payment WHERE status IN ('unallocated', 'partially_allocated') ORDER BY customer_id, currency;
SELECT id, name FROM customer WHERE id >= 1 ORDER BY id;
EOF

set -- "aging=$RUNS=$FD --db $db report aging"
[ -z "${AGING_BEFORE:-}" ] || set -- "$@" "before=$RUNS=$AGING_BEFORE --db $db report aging"
set -- "$@" "shell=$RUNS=sh -c 'sqlite3 $db < $sql'"
echo "aging-bench.sh: $RUNS runs of each, round-robin" >&2
side=$(python3 "$top/bench/money-time.py" "$@")
counts=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM invoice) || ' invoices, ' ||
	(SELECT count(*) FROM invoice WHERE status = 'issued' OR status = 'partially_paid' OR status = 'overpaid') ||
	' open; ' || (SELECT count(*) FROM payment) || ' payments, ' ||
	(SELECT count(*) FROM payment WHERE status IN ('unallocated', 'partially_allocated')) ||
	' with credit; ' || (SELECT count(*) FROM customer) || ' customers'")
rows=$("$FD" --db "$db" report aging | tail -n +2 | wc -l)
j() { echo "$side" | python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
instr() { # instr BINARY: instructions of the whole process
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" --db "$db" report aging \
		2>&1 >/dev/null | sed -n 's/.*I *refs: *//p' | tr -d ,
}
out=$(
	echo "# report aging beside its limit (bench/aging-bench.sh)"
	echo
	echo "Produced by \`bench/aging-bench.sh $arg\` on $(date -u +%Y-%m-%d) (AGING_N=$N,"
	echo "AGING_CUSTOMERS=$C, AGING_RUNS=$RUNS${AGING_BEFORE:+, AGING_BEFORE=$AGING_BEFORE})."
	echo "Machine: $(nproc) CPUs, load average at the end $(cut -d' ' -f1-3 /proc/loadavg);"
	echo "SQLite $(sqlite3 --version | cut -d' ' -f1). History: $counts; $rows report rows."
	echo
	echo "| whole process, round-robin | median | p90 | min | peak RSS |"
	echo "|---|---|---|---|---|"
	for k in aging before shell; do
		j "'| $k | %.1f ms | %.1f ms | %.1f ms | %.1f MiB |' % (d['$k']['median_ms'], d['$k']['p90_ms'], d['$k']['min_ms'], d['$k']['rss_kib'] / 1024) if '$k' in d else ''"
	done | grep -v '^$'
	echo
	j "'Ratios of the medians (same run): aging / shell %.2f' % (d['aging']['median_ms'] / d['shell']['median_ms']) + ('; aging / before %.2f' % (d['aging']['median_ms'] / d['before']['median_ms']) if 'before' in d else '') + '.'"
	if [ "${AGING_CALLGRIND:-0}" = 1 ]; then
		echo
		echo "Instructions (callgrind, whole process): aging $(instr "$FD")${AGING_BEFORE:+, before $(instr "$AGING_BEFORE")}."
	fi
	echo
	echo '```'
	echo "$side"
	echo '```'
)
echo "$out"
[ -z "${AGING_OUT:-}" ] || echo "$out" > "$AGING_OUT"
