#!/bin/sh
# history.sh [BUILD_DIR] - `frontdesk history` against the size of the
# database, written to bench/HISTORY-RESULTS.md.
#
# For databases of 10,000, 100,000 and 1,000,000 visits (BENCH_SIZES; made
# once by bench/gen.c through the real schema, so every record has its
# history rows and status flows, and cached in $BENCH_DIR, shared with
# bench/run.sh), measures side by side in one run, as medians of BENCH_RUNS
# whole-process runs (bench/measure.py):
#   - `frontdesk history visit ID`, `history invoice ID` and `history payment
#     ID` of a record in the middle of the file;
#   - the limit: the `sqlite3` shell running the same reads (the record's
#     history rows and its status flow, by the same indexes) on the same file;
#   - their ratio, and `frontdesk --version` (starting the program alone).
# A timeline costs what the record has, not what the database holds: the
# figures must stay flat from 10,000 to 1,000,000 visits. Not part of
# `make check`.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
SIZES=${BENCH_SIZES:-"10000 100000 1000000"}
RUNS=${BENCH_RUNS:-21}
dir=${BENCH_DIR:-/tmp/frontdesk-bench}
out=${BENCH_OUT:-$top/bench/HISTORY-RESULTS.md}
mkdir -p "$dir"
make -C "$build" -s bench-programs # bench/*.c, built by Makefile.am with the core's flags
export TZ=America/New_York LC_ALL=C.UTF-8
unset FRONTDESK_NOW FRONTDESK_DB
m() { python3 "$top/bench/measure.py" "$@"; }
j() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
ratio() { python3 -c "import json,sys; a=json.loads(sys.argv[1]); b=json.loads(sys.argv[2]); print('%.2f' % (a['median_ms'] / b['median_ms']))" "$1" "$2"; }

rows=""
raw=""
for n in $SIZES; do
	db=$dir/bench-$n.db
	if [ ! -f "$db" ]; then
		echo "history.sh: generating $n visits (once; kept in $dir)" >&2
		mkdir -p "$dir/calcurse-$n"
		"$build/bench/gen" "$db" "$dir/calcurse-$n" "$n" 8 >/dev/null
		"$build/frontdesk" --db "$db" projection rebuild --all >/dev/null 2>&1
	fi
	# a database made by an older program gets the newer migrations
	"$build/frontdesk" --db "$db" migrate >/dev/null
	F="$build/frontdesk --db $db"
	visit=$(sqlite3 "$db" "SELECT id FROM appointment ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM appointment)")
	inv=$(sqlite3 "$db" "SELECT id FROM invoice ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM invoice)")
	pay=$(sqlite3 "$db" "SELECT id FROM payment ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM payment)")
	$F history visit "$visit" >/dev/null # warm the page cache
	ver=$(m "$RUNS" $F --version)
	for kind in visit invoice payment; do
		case $kind in
		visit) id=$visit; his=appointment_his; ent=appointment ;;
		invoice) id=$inv; his=invoice_his; ent=invoice ;;
		payment) id=$pay; his=payment_his; ent=payment ;;
		esac
		fd=$(m "$RUNS" $F history $kind "$id")
		sql="SELECT * FROM $his WHERE id = $id ORDER BY his_id; SELECT * FROM status_flow WHERE entity = '$ent' AND entity_id = $id ORDER BY id;"
		[ "$kind" = visit ] && sql="$sql SELECT * FROM appointment_work_his WHERE id IN (SELECT DISTINCT id FROM appointment_work_his WHERE appointment_id = $id) ORDER BY his_id;"
		sh=$(m "$RUNS" sqlite3 "$db" "$sql")
		ev=$($F --json history $kind "$id" | j "len(d['events'])")
		r=$(ratio "$fd" "$sh")
		rows="$rows$(echo "$fd" | j "'| $n | \`history $kind $id\` ($ev events) | %.1f ms (p90 %.1f) | ' % (d['median_ms'], d['p90_ms'])")$(echo "$sh" | j "'%.1f ms | ' % d['median_ms']")${r}x | $(echo "$fd" | j "'%.1f MiB' % (d['rss_median_kib'] / 1024)") |
"
		raw="$raw$n $kind $id: frontdesk $fd
$n $kind $id: sqlite3   $sh
"
	done
	rows="$rows$(echo "$ver" | j "'| $n | \`--version\` (starting the program alone) | %.1f ms | | | |' % d['median_ms']")
"
done
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)
{
	echo "# Record history benchmark"
	echo
	echo "Produced by \`bench/history.sh ${1:-build}\` on $(date -u +%Y-%m-%d) (BENCH_SIZES=\"$SIZES\","
	echo "BENCH_RUNS=$RUNS). Machine: $(nproc) CPUs ($cpu), SQLite $(sqlite3 --version | cut -d' ' -f1)."
	echo "Each database made by bench/gen.c through the real schema (history rows and status"
	echo "flows written by its triggers). A record in the middle of each file; medians of"
	echo "whole-process runs; the sqlite3 shell runs the same reads on the same file in the same run."
	echo "Goal: well under 50 ms at 1,000,000 visits, flat with the size of the database."
	echo
	echo "| Visits | Command | frontdesk, median | sqlite3 shell, same reads | ratio | peak memory |"
	echo "|---|---|---|---|---|---|"
	printf '%s' "$rows"
	echo
	echo "Raw output:"
	echo
	echo '```'
	printf '%s' "$raw"
	echo '```'
} > "$out"
cat "$out"
