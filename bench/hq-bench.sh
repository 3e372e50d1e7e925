#!/bin/sh
# hq-bench.sh [BUILD_DIR] - issue 30's head office figures (not part of
# `make check`), against a PostgreSQL server of the bench's own
# (tests/lib/pg.sh: initdb in a temporary folder, 127.0.0.1, a free port):
#   1. sync throughput: the history rows a shop's `hq sync --once` applies
#      at the head office per second, one shop alone and three at once,
#      beside the shop's own commit rate measured in the same run (the
#      history rows the desk writes per second taking payments back to back,
#      bench/isolation-pay with no gap);
#   2. a desk payment's commit latency (isolation-pay, one every
#      $HQ_GAP_MS ms) alone and while the shop syncs its whole history as a
#      backlog, $HQ_LAT_ROUNDS rounds: p50, p99, max, and p99 minus alone's,
#      each round's and their medians;
#   3. `frontdesk hq report aging` over $HQ_SHOPS shops, beside psql running
#      the same statement (src/hq.c's, word for word, PREPAREd and EXECUTEd)
#      on the same data, both as whole processes, round-robin, $HQ_RUNS
#      rounds: medians and the ratio.
# Each shop is a copy of one history made by bench/money-gen ($HQ_N
# invoices, each billing a job one visit worked on: $HQ_N visits), joined
# under its own code. Prints markdown (and writes it to $HQ_OUT when set).
# Environment: HQ_N (100000), HQ_SHOPS (10), HQ_RUNS (7), HQ_GAP_MS (10),
# HQ_LAT_ROUNDS (3),
# HQ_PAYMENTS (600), HQ_DIR (/tmp/frontdesk-bench/hq), HQ_OUT. A quick try:
#   HQ_N=5000 HQ_SHOPS=4 HQ_OUT=/tmp/hq.md bench/hq-bench.sh
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
N=${HQ_N:-100000}
SHOPS=${HQ_SHOPS:-10}
RUNS=${HQ_RUNS:-7}
LROUNDS=${HQ_LAT_ROUNDS:-3}
GAP=${HQ_GAP_MS:-10}
PAYS=${HQ_PAYMENTS:-600}
dir=${HQ_DIR:-/tmp/frontdesk-bench/hq}
FD=$build/frontdesk
[ "$SHOPS" -ge 4 ] || { echo "hq-bench.sh: HQ_SHOPS must be at least 4" >&2; exit 2; }
mkdir -p "$dir"
export TZ=America/New_York LC_ALL=C.UTF-8
unset FRONTDESK_NOW FRONTDESK_DB FRONTDESK_CONFIG
export FRONTDESK_CONFIG="$dir/config.ini"
printf 'timezone = America/New_York\n' > "$FRONTDESK_CONFIG"

make -C "$build" -s bench-programs
schema=$(sha256sum "$build/src/schema-data.c" | cut -c1-12)
src=$dir/shop-$N-$schema.db
if [ ! -f "$src" ]; then
	echo "hq-bench.sh: generating $N invoices (once; kept in $dir)" >&2
	rm -f "$src.tmp" "$src.tmp-wal" "$src.tmp-shm"
	"$build/bench/money-gen" "$src.tmp" "$N" >&2
	"$FD" --db "$src.tmp" projection rebuild --all >/dev/null 2>&1
	sqlite3 "$src.tmp" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
	mv "$src.tmp" "$src"
	rm -f "$src.tmp-wal" "$src.tmp-shm"
fi

. "$top/tests/lib/pg.sh"
trap 'pg_stop' EXIT
pg_start
"$FD" hq init --pg "$PGURL" >/dev/null
now_ms() { python3 -c 'import time; print(int(time.time() * 1000))'; }
# shop K: a fresh copy of the history, joined as SK
shop() {
	rm -f "$dir/s$1.db" "$dir/s$1.db-wal" "$dir/s$1.db-shm"
	cp "$src" "$dir/s$1.db"
	"$FD" --db "$dir/s$1.db" hq join --pg "$PGURL" --shop "S$1" >/dev/null
}
sync_shop() { "$FD" --db "$dir/s$1.db" hq sync --once >/dev/null; }
applied() { pg_sql "SELECT coalesce(sum(rows), 0) FROM hq_batch WHERE shop IN ($1)"; }

# 1. throughput
shop 1
t0=$(now_ms); sync_shop 1; t1=$(now_ms)
rows1=$(applied "'S1'")
rate1=$((rows1 * 1000 / (t1 - t0 + 1)))
shop 2; shop 3; shop 4
t0=$(now_ms)
sync_shop 2 & p2=$!
sync_shop 3 & p3=$!
sync_shop 4 & p4=$!
wait $p2 $p3 $p4
t1=$(now_ms)
rows3=$(applied "'S2','S3','S4'")
rate3=$((rows3 * 1000 / (t1 - t0 + 1)))
# the shop's own commit rate: payments back to back, their history rows
cp "$src" "$dir/desk.db"
before=$(sqlite3 "$dir/desk.db" "SELECT (SELECT count(*) FROM payment_his) + (SELECT count(*) FROM customer_his)")
t0=$(now_ms)
"$build/bench/isolation-pay" "$dir/desk.db" 1 2000 0 > "$dir/desk.out"
t1=$(now_ms)
after=$(sqlite3 "$dir/desk.db" "SELECT (SELECT count(*) FROM payment_his) + (SELECT count(*) FROM customer_his)")
desk_rows=$(( (after - before) * 1000 / (t1 - t0 + 1) ))
desk_pays=$(( 2000 * 1000 / (t1 - t0 + 1) ))

pcts() { # FILE [PHASE]: p50 p99 max of its latency column (microseconds), in ms
	python3 -c '
import sys
ph = sys.argv[2] if len(sys.argv) > 2 else None
v = sorted(int(l.split()[1]) for l in open(sys.argv[1]) if l.strip() and (not ph or l.split()[0] == ph))
q = lambda p: v[min(len(v) - 1, int(p * len(v)))]
print("%.2f %.2f %.2f %d" % (q(0.5) / 1000, q(0.99) / 1000, v[-1] / 1000, len(v)))' "$@"
}

# 3. aging over the shops, beside psql on the same statement
k=5
while [ "$k" -le "$SHOPS" ]; do shop "$k"; sync_shop "$k"; k=$((k + 1)); done
python3 - "$top/src/hq.c" > "$dir/aging.sql" <<'EOF'
import re, sys
src = open(sys.argv[1]).read()
lit = lambda block: "".join(bytes(m, "utf-8").decode("unicode_escape") for m in re.findall(r'"((?:[^"\\]|\\.)*)"', block))
cte = lit(re.search(r"#define HQ_SHOPS_CTE(.*?)\n\n", src, re.S).group(1))
body = re.search(r"static const char hq_aging_sql\[\] =(.*?);\n", src, re.S).group(1)
sql = lit(body.replace("HQ_SHOPS_CTE", '"' + cte.replace('"', '\\"') + '"'))
print("PREPARE aging(text, text) AS " + sql + ";")
print("EXECUTE aging('', '2026-12-20');")
EOF
records=$(pg_sql "SELECT count(*) FROM hq_record")
"$FD" hq report aging --pg "$PGURL" --on 2026-12-20 > "$dir/fd-aging.out"
"$PGBIN/psql" -X -q -At -d "$PGURL" -f "$dir/aging.sql" > "$dir/psql-aging.out"
fdrows=$(grep -c "^S[0-9]" "$dir/fd-aging.out")
psrows=$(wc -l < "$dir/psql-aging.out")
timed() { t0=$(now_ms); "$@" >/dev/null; t1=$(now_ms); echo $((t1 - t0)); }
: > "$dir/fd.ms"; : > "$dir/psql.ms"
r=0
while [ "$r" -lt "$RUNS" ]; do
	timed "$FD" hq report aging --pg "$PGURL" --on 2026-12-20 >> "$dir/fd.ms"
	timed "$PGBIN/psql" -X -q -At -d "$PGURL" -f "$dir/aging.sql" >> "$dir/psql.ms"
	r=$((r + 1))
done
med() { sort -n "$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
fdm=$(med "$dir/fd.ms"); psm=$(med "$dir/psql.ms")

# 2. a desk payment while its shop syncs its backlog, $LROUNDS rounds: each
# round a fresh copy of the history joined under a code of its own (L1,
# L2...: joined after the aging's measure, so it counts only S1..S$SHOPS),
# its payments alone, then again while `hq sync --once` sends the whole
# history; the table gives each round and the medians of the rounds
: > "$dir/lat.rows"
r=1
while [ "$r" -le "$LROUNDS" ]; do
	rm -f "$dir/l.db" "$dir/l.db-wal" "$dir/l.db-shm"
	cp "$src" "$dir/l.db"
	"$FD" --db "$dir/l.db" hq join --pg "$PGURL" --shop "L$r" >/dev/null
	"$build/bench/isolation-pay" "$dir/l.db" 1 "$PAYS" "$GAP" > "$dir/alone.out"
	"$FD" --db "$dir/l.db" hq sync --once >/dev/null &
	spid=$!
	"$build/bench/isolation-pay" "$dir/l.db" 1 "$PAYS" "$GAP" "$spid" 0 > "$dir/during.out"
	wait "$spid"
	echo "$r $(pcts "$dir/alone.out") $(pcts "$dir/during.out" during)" >> "$dir/lat.rows"
	r=$((r + 1))
done
lat_table=$(python3 - "$dir/lat.rows" <<'EOF'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
for r in rows:
    a50, a99, amax, an, d50, d99, dmax, dn = r[1:]
    print("| %s | %s / %s | %s / %s ms | %s / %s ms | %s / %s ms | %+.2f ms |" % (
        r[0], an, dn, a50, d50, a99, d99, amax, dmax, float(d99) - float(a99)))
med = lambda i: statistics.median(float(r[i]) for r in rows)
print("| median of %d | | %.2f / %.2f ms | %.2f / %.2f ms | %.2f / %.2f ms | %+.2f ms |" % (
    len(rows), med(1), med(5), med(2), med(6), med(3), med(7),
    statistics.median(float(r[6]) - float(r[2]) for r in rows)))
EOF
)

out=$(cat <<EOT
## Head office (issue 30), $(date -u +%Y-%m-%d)

Each shop: a copy of bench/money-gen's history of $N invoices ($N visits),
$(sqlite3 "$src" "SELECT count(*) FROM customer") customers; PostgreSQL 15 on 127.0.0.1 (fsync off, as tests/lib/pg.sh starts it).

| sync | history rows | rows applied per second |
|---|---|---|
| one shop | $rows1 | $rate1 |
| three shops at once | $rows3 | $rate3 |
| the desk's own commits (payments back to back) | | $desk_rows ($desk_pays payments/s) |

| a desk payment every $GAP ms, round: alone / while its shop syncs its history | payments | p50 | p99 | max | p99 - alone |
|---|---|---|---|---|---|
$lat_table

| \`hq report aging\`, $SHOPS shops, $records records | rows | median of $RUNS | x psql |
|---|---|---|---|
| frontdesk hq report aging | $fdrows | $fdm ms | $(python3 -c "print('%.2fx' % ($fdm / max($psm, 1)))") |
| psql, the same statement | $psrows | $psm ms | 1.00x |
EOT
)
echo "$out"
[ -z "${HQ_OUT:-}" ] || echo "$out" > "$HQ_OUT"
