#!/bin/sh
# money-run.sh [BUILD_DIR] - the money benchmarks of issue 3 (not part of
# `make check`); the figures go to $MONEY_OUT (markdown) and stdout.
#
# Has BUILD_DIR (default: build/, made by ./bootstrap) build bench/money-gen
# and bench/money-post (make bench-programs), generates (once,
# cached in $MONEY_DIR per schema) a history of $MONEY_N and of $MONEY_BIG invoices,
# drains the calendar tasks the generator queued (as a running task runner
# would have) and requires `frontdesk check` to be clean on the smaller one.
# Then it measures, as medians:
#   - the posting rate of payments with two allocations each, through the
#     core API on a fresh copy of the $MONEY_N history for every run: each
#     payment in its own transaction (payment_record), each with an
#     idempotency key, and $MONEY_BATCH_SIZE per transaction
#     (payment_record_batch);
#   - `frontdesk report aging` as a whole process beside `ledger` computing
#     the same balances from `frontdesk export journal`, round-robin in the
#     same run, on the $MONEY_N history (the figures must agree to the cent);
#   - the same aging on the $MONEY_BIG history, and ledger there once, in the
#     background, bounded by $MONEY_LEDGER_TIMEOUT seconds (it needs minutes
#     and gigabytes), its figures compared when it finishes.
# Environment: MONEY_N (100000), MONEY_BIG (1000000; 0 skips it), MONEY_RUNS
# (aging runs, 21), MONEY_LEDGER_RUNS (ledger runs at MONEY_N, 5),
# MONEY_POST_RUNS (5), MONEY_POST_N (payments per single run, 2000),
# MONEY_BATCH_N (payments per batch run, 20000), MONEY_BATCH_SIZE (1000),
# MONEY_LEDGER_TIMEOUT (3600), MONEY_DIR (/tmp/frontdesk-money-bench),
# MONEY_OUT ($MONEY_DIR/money-run.md). A quick try:
#   MONEY_N=10000 MONEY_BIG=0 MONEY_POST_N=300 MONEY_BATCH_N=2000 bench/money-run.sh
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
N=${MONEY_N:-100000}
BIG=${MONEY_BIG:-1000000}
RUNS=${MONEY_RUNS:-21}
LRUNS=${MONEY_LEDGER_RUNS:-5}
PRUNS=${MONEY_POST_RUNS:-5}
PN=${MONEY_POST_N:-2000}
BN=${MONEY_BATCH_N:-20000}
BSIZE=${MONEY_BATCH_SIZE:-1000}
LTIMEOUT=${MONEY_LEDGER_TIMEOUT:-3600}
dir=${MONEY_DIR:-/tmp/frontdesk-money-bench}
out=${MONEY_OUT:-$dir/money-run.md}

mkdir -p "$dir"
make -C "$build" -s bench-programs # bench/*.c, built by Makefile.am with the core's flags

export TZ=America/New_York LC_ALL=C.UTF-8
unset FRONTDESK_NOW FRONTDESK_DB
FD=$build/frontdesk
# generated databases are kept per schema: another schema's are refused
schema=$(sha256sum "$build/src/schema-data.c" | cut -c1-12)
j() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
med() { python3 -c "
import json,sys,statistics
rows=[json.loads(l) for l in sys.stdin if l.strip()]
print(json.dumps({k: statistics.median(r[k] for r in rows) for k in ('per_second','cpu_us_per_payment')} | {'runs': [round(r['per_second']) for r in rows]}))"; }

# history DB of n invoices (cached): generated, calendar tasks drained, checked
history() {
	n=$1
	db=$dir/hist-$n-$schema.db
	if [ ! -f "$db" ]; then
		rm -f "$db" "$db-wal" "$db-shm"
		echo "money-run.sh: generating $n invoices (once; kept in $dir)" >&2
		t0=$(date +%s)
		"$build/bench/money-gen" "$db" "$n"
		"$FD" --db "$db" projection rebuild --all >/dev/null 2>&1
		echo "$(($(date +%s) - t0))" > "$dir/gen-seconds-$n"
	fi
}

history "$N"
hist=$dir/hist-$N-$schema.db
echo "money-run.sh: frontdesk check on $N invoices" >&2
t0=$(date +%s.%N)
"$FD" --db "$hist" check > "$dir/check-$N.txt" 2>&1 || {
	echo "money-run.sh: frontdesk check is not clean on the generated history:" >&2
	head -5 "$dir/check-$N.txt" >&2
	exit 1
}
t1=$(date +%s.%N)
checks=$(echo "$t0 $t1" | awk '{ printf "%.1f s", $2 - $1 }')
counts=$(sqlite3 "$hist" "SELECT (SELECT count(*) FROM customer) || ' customers, ' ||
	(SELECT count(*) FROM invoice WHERE kind = 'invoice') || ' invoices (' ||
	(SELECT count(*) FROM invoice WHERE status = 'void') || ' void, ' ||
	(SELECT count(*) FROM invoice WHERE status IN ('issued', 'partially_paid', 'overpaid')) ||
	' open), ' || (SELECT count(*) FROM invoice WHERE kind = 'credit_note') || ' credit notes, ' ||
	(SELECT count(*) FROM payment) || ' payments, ' ||
	(SELECT count(*) FROM payment_allocation WHERE reverses_id IS NULL) || ' allocations, ' ||
	(SELECT count(*) FROM payment_allocation WHERE reverses_id IS NOT NULL) || ' reversals, ' ||
	(SELECT count(*) FROM refund) || ' refunds'")

# --- posting: a copy of the history with open invoices to pay, two a payment
post=$dir/post-$N-$schema.db
if [ ! -f "$post" ]; then
	pool=$((2 * (PN > BN ? PN : BN)))
	cp "$hist" "$post.tmp"
	"$build/bench/money-gen" --pool "$post.tmp" "$pool"
	"$FD" --db "$post.tmp" projection rebuild --all >/dev/null 2>&1
	mv "$post.tmp" "$post"
fi
work=$dir/work.db
posting() { # posting MODE N [SIZE]: PRUNS runs on fresh copies
	i=0
	while [ $i -lt "$PRUNS" ]; do
		rm -f "$work" "$work-wal" "$work-shm"
		cp "$post" "$work"
		"$build/bench/money-post" "$work" "$@"
		i=$((i + 1))
	done
	rm -f "$work" "$work-wal" "$work-shm"
}
echo "money-run.sh: posting, one transaction per payment" >&2
single=$(posting single "$PN" | med)
echo "money-run.sh: posting, one transaction per payment, with an idempotency key" >&2
keyed=$(posting key "$PN" | med)
echo "money-run.sh: posting, $BSIZE payments per transaction" >&2
batch=$(posting batch "$BN" "$BSIZE" | med)

# --- aging beside ledger at N
jn=$dir/journal-$N.ledger
t0=$(date +%s.%N)
"$FD" --db "$hist" export journal --output "$jn"
t1=$(date +%s.%N)
export_n=$(echo "$t0 $t1" | awk '{ printf "%.1f s", $2 - $1 }')
# (both eval and money-time.py read single quotes as the shell does)
lcmd="ledger -f '$jn' --flat --no-total --no-color --balance-format '%(account)\\t%(display_total)\\n' bal '^Assets:Receivable' '^Liabilities:Customer credit'"
"$FD" --db "$hist" --json report aging > "$dir/aging-$N.json"
# shellcheck disable=SC2086
eval "$lcmd" > "$dir/ledger-$N.txt"
cmp_n=$(python3 "$top/bench/money-compare.py" "$dir/aging-$N.json" "$dir/ledger-$N.txt") || {
	echo "money-run.sh: ledger and the aging report disagree: $cmp_n" >&2
	exit 1
}
echo "money-run.sh: aging and ledger side by side on $N invoices" >&2
side=$(python3 "$top/bench/money-time.py" "aging=$RUNS=$FD --db $hist report aging" \
	"ledger=$LRUNS=$lcmd")
ratio_n=$(echo "$side" | j "'%.0f' % (d['ledger']['median_ms'] / d['aging']['median_ms'])")

# --- the big history: aging, and ledger once in the background
big_rows=""
if [ "$BIG" -gt 0 ]; then
	history "$BIG"
	hb=$dir/hist-$BIG-$schema.db
	echo "money-run.sh: aging on $BIG invoices" >&2
	big=$(python3 "$top/bench/money-time.py" "aging=$RUNS=$FD --db $hb report aging")
	jb=$dir/journal-$BIG.ledger
	t0=$(date +%s.%N)
	"$FD" --db "$hb" export journal --output "$jb"
	t1=$(date +%s.%N)
	export_b=$(echo "$t0 $t1" | awk '{ printf "%.1f s", $2 - $1 }')
	"$FD" --db "$hb" --json report aging > "$dir/aging-$BIG.json"
	echo "money-run.sh: ledger on $BIG invoices, once (timeout $LTIMEOUT s)" >&2
	lbig="ledger -f '$jb' --flat --no-total --no-color --balance-format '%(account)\\t%(display_total)\\n' bal '^Assets:Receivable' '^Liabilities:Customer credit'"
	t0=$(date +%s.%N)
	st=0
	# shellcheck disable=SC2086
	eval "/usr/bin/time -f '%M' -o '$dir/ledger-$BIG.rss' timeout $LTIMEOUT $lbig" \
		> "$dir/ledger-$BIG.txt" || st=$?
	t1=$(date +%s.%N)
	lsec=$(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }')
	if [ "$st" -eq 0 ]; then
		cmp_b=$(python3 "$top/bench/money-compare.py" "$dir/aging-$BIG.json" \
			"$dir/ledger-$BIG.txt") || cmp_b="DISAGREE: $cmp_b"
		lres="$lsec s, $(($(tail -1 "$dir/ledger-$BIG.rss") / 1024)) MiB"
		ratio_b=$(echo "$big" | j "'%.0f' % ($lsec * 1000 / d['aging']['median_ms'])")
	else
		cmp_b="ledger did not finish (status $st)"
		lres="not finished after $lsec s (status $st)"
		ratio_b="> $(echo "$big" | j "'%.0f' % ($lsec * 1000 / d['aging']['median_ms'])")"
	fi
	big_rows=$(
		echo "$big" | j "'| \`frontdesk report aging\` on $BIG invoices, whole process, median of %d | %.1f ms (p90 %.1f), %.1f MiB | < 200 ms |' % (d['aging']['runs'], d['aging']['median_ms'], d['aging']['p90_ms'], d['aging']['rss_kib'] / 1024)"
		echo "| \`ledger\` on the same balances ($BIG invoices), once | $lres | |"
		echo "| ledger / aging at $BIG | **${ratio_b}x** | >= 20x |"
		echo "| \`frontdesk export journal\` of $BIG invoices | $export_b | |"
	)
fi

size=$(du -m "$hist" | cut -f1)
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)
{
	echo "# Money benchmarks (raw)"
	echo
	echo "Produced by \`bench/money-run.sh ${1:-build}\` on $(date -u +%Y-%m-%d) (MONEY_N=$N,"
	echo "MONEY_BIG=$BIG, MONEY_RUNS=$RUNS, MONEY_LEDGER_RUNS=$LRUNS, MONEY_POST_RUNS=$PRUNS,"
	echo "MONEY_POST_N=$PN, MONEY_BATCH_N=$BN, MONEY_BATCH_SIZE=$BSIZE). Machine: $(nproc) CPUs"
	echo "($cpu), load average at the end $(cut -d' ' -f1-3 /proc/loadavg),"
	echo "SQLite $(sqlite3 --version | cut -d' ' -f1), $(ledger --version | head -1 | cut -d, -f1)."
	echo "History of $N: $counts; $size MiB; \`frontdesk check\` clean in $checks."
	echo
	echo "| Measure | Result | Target |"
	echo "|---|---|---|"
	echo "$single" | j "'| payments with 2 allocations, one transaction each (median of %d runs of $PN) | %.0f/s (%.0f us CPU each) | >= 2,000/s |' % (len(d['runs']), d['per_second'], d['cpu_us_per_payment'])"
	echo "$keyed" | j "'| the same, each with an idempotency key | %.0f/s (%.0f us CPU each) | |' % (d['per_second'], d['cpu_us_per_payment'])"
	echo "$batch" | j "'| payments with 2 allocations, $BSIZE per transaction (median of %d runs of $BN) | %.0f/s (%.0f us CPU each) | >= 20,000/s |' % (len(d['runs']), d['per_second'], d['cpu_us_per_payment'])"
	echo "$side" | j "'| \`frontdesk report aging\` on $N invoices, whole process, median of %d | %.1f ms (p90 %.1f), %.1f MiB | |' % (d['aging']['runs'], d['aging']['median_ms'], d['aging']['p90_ms'], d['aging']['rss_kib'] / 1024)"
	echo "$side" | j "'| \`ledger\` on the same balances, same run, median of %d | %.0f ms, %.0f MiB | |' % (d['ledger']['runs'], d['ledger']['median_ms'], d['ledger']['rss_kib'] / 1024)"
	echo "| ledger / aging at $N | **${ratio_n}x** | >= 20x |"
	echo "| \`frontdesk export journal\` of $N invoices | $export_n | |"
	[ -z "$big_rows" ] || echo "$big_rows"
	echo
	echo "Figures compared (cents): at $N $cmp_n"
	[ "$BIG" -eq 0 ] || echo "at $BIG ${cmp_b}"
	echo
	echo '```'
	echo "single: $single"
	echo "keyed:  $keyed"
	echo "batch:  $batch"
	echo "side by side at $N: $side"
	[ "$BIG" -eq 0 ] || echo "aging at $BIG: $big"
	echo '```'
} > "$out"
cat "$out"
