#!/bin/sh
# scale.sh [BUILD_DIR] - issue 33's "ten times the history" (not part of
# `make check`): the desk's daily figures on databases of several sizes,
# each beside the `sqlite3` shell on the same file in the same run, in one
# markdown file ($SCALE_OUT, default stdout).
#
# The databases are $SCALE_DIR/bench-N.db for N in $SCALE_SIZES, made by
# bench/gen.c with the same visits a day (100,000 over 1 year, 1,000,000
# over 8, 10,000,000 over 80: see RESULTS-33.md), at this build's schema,
# calendar drained (`projection rebuild --all`, `tasks run --once`). It runs,
# one after the other, each on every size:
#   growth.sh      agenda --days 7, the shell's week query, the first frame,
#                  --version, peak memory (GROWTH_ROUNDS, default here 5)
#   frame.sh       the first frame and a cold month move beside the shell's
#                  month query (FRAME_ROUNDS, default here 5), per size
#   history.sh     history of a visit, an invoice and a payment beside the
#                  shell's same reads (BENCH_RUNS, default here 11)
#   aging          `report aging` beside the shell running its statements,
#                  with the open invoices and the whole history counted
#                  (SCALE_RUNS, 7)
#   payment        a desk payment's commit (isolation-pay, alone: SCALE_PAYS
#                  payments of 1.00, 10 ms apart; they stay in the file)
#   check          check-bench.sh: `check`, `check --since` and
#                  PRAGMA integrity_check (CHECK_ROUNDS, default here 1)
#   backup         backup-bench.sh: `backup` beside `sqlite3 .backup`
#                  (BK_ROUNDS, default here 1; needs twice the file's size
#                  free in BK_DIR)
# SCALE_PARTS picks some ("growth frame history aging payment check backup").
# `availability` and `recon import` need resources and card payments that
# gen.c does not make: their own scripts (availability.sh, recon.sh) stand.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
dir=${SCALE_DIR:-/work/bench/scale}
SIZES=${SCALE_SIZES:-100000 1000000 10000000}
PARTS=${SCALE_PARTS:-growth frame history aging payment check backup}
RUNS=${SCALE_RUNS:-7}
PAYS=${SCALE_PAYS:-300}
out=${SCALE_OUT:-/dev/stdout}
F=$build/frontdesk
export TZ=America/New_York LC_ALL=C.UTF-8
unset FRONTDESK_NOW FRONTDESK_DB
make -C "$build" -s bench-programs >/dev/null

has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
j() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

{
	echo "## Ten times the history: \`bench/scale.sh\`, $(date -u '+%Y-%m-%d %H:%M') UTC"
	echo
	echo "SCALE_SIZES=\"$SIZES\", SCALE_DIR=$dir; $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)."
	echo
	for n in $SIZES; do
		db=$dir/bench-$n.db
		echo "- $n: $(sqlite3 -readonly "$db" "SELECT (SELECT count(*) FROM appointment) || ' visits, ' ||
			(SELECT count(*) FROM invoice) || ' invoices (' ||
			(SELECT count(*) FROM invoice WHERE status = 'issued' OR status = 'partially_paid' OR status = 'overpaid') ||
			' open), ' || (SELECT count(*) FROM payment) || ' payments, ' ||
			(SELECT count(*) FROM customer) || ' customers'"), $(($(stat -c %s "$db") / 1048576)) MiB"
	done
	echo
	if has growth; then
		echo "### Agenda, first frame, start (growth.sh)"
		echo
		GROWTH_DIR=$dir GROWTH_SIZES=$SIZES GROWTH_ROUNDS=${GROWTH_ROUNDS:-5} "$top/bench/growth.sh" "$build"
		echo
	fi
	if has frame; then
		for n in $SIZES; do
			echo "### First frame and a cold month move, $n visits (frame.sh)"
			echo
			FRAME_DB=$dir/bench-$n.db FRAME_ROUNDS=${FRAME_ROUNDS:-5} "$top/bench/frame.sh" "$build"
			echo
		done
	fi
	if has history; then
		echo "### History of a record (history.sh)"
		echo
		BENCH_DIR=$dir BENCH_SIZES=$SIZES BENCH_RUNS=${BENCH_RUNS:-11} \
			BENCH_OUT=$(mktemp) "$top/bench/history.sh" "$build" | sed '1,/^| Visits/{/^| Visits/!d}' | sed '/^Raw output/,$d'
		echo
	fi
	if has aging; then
		echo "### report aging: the open invoices, not the history"
		echo
		echo "| visits | invoices, open | \`report aging\` | the shell, its statements | ratio | peak memory |"
		echo "|---|---|---|---|---|---|"
		sql=$(mktemp)
		cat >"$sql" <<'EOF'
SELECT customer_id, currency, due_at, balance FROM invoice WHERE status = 'issued' OR status = 'partially_paid' OR status = 'overpaid' ORDER BY customer_id, currency;
SELECT customer_id, currency, amount - allocated - refunded FROM payment WHERE status IN ('unallocated', 'partially_allocated') ORDER BY customer_id, currency;
SELECT id, name FROM customer WHERE id >= 1 ORDER BY id;
EOF
		for n in $SIZES; do
			db=$dir/bench-$n.db
			counts=$(sqlite3 -readonly "$db" "SELECT (SELECT count(*) FROM invoice) || ', ' ||
				(SELECT count(*) FROM invoice WHERE status = 'issued' OR status = 'partially_paid' OR status = 'overpaid')")
			a=$(python3 "$top/bench/measure.py" "$RUNS" "$F" --db "$db" --read-only report aging)
			s=$(python3 "$top/bench/measure.py" "$RUNS" sh -c "sqlite3 -readonly $db < $sql")
			echo "| $n | $counts | $(echo "$a" | j "'%.0f ms' % d['median_ms']") | $(echo "$s" | j "'%.0f ms' % d['median_ms']") | $(python3 -c "import json,sys; print('%.2fx' % (json.loads(sys.argv[1])['median_ms'] / json.loads(sys.argv[2])['median_ms']))" "$a" "$s") | $(echo "$a" | j "'%.1f MiB' % (d['rss_median_kib'] / 1024)") |"
		done
		rm -f "$sql"
		echo
	fi
	if has payment; then
		echo "### A desk payment's commit, alone (isolation-pay, $PAYS payments)"
		echo
		echo "| visits | p50 | p99 | max |"
		echo "|---|---|---|---|"
		for n in $SIZES; do
			db=$dir/bench-$n.db
			cust=$(sqlite3 -readonly "$db" "SELECT min(id) FROM customer")
			"$build/bench/isolation-pay" "$db" "$cust" "$PAYS" 10 | awk '{ print $2 / 1000 }' | sort -n |
				awk -v n="$n" '{ v[NR] = $1 } END {
					i = int(NR * 0.99 + 0.999999); if (i > NR) i = NR
					printf "| %s | %.1f ms | %.1f ms | %.1f ms |\n", n, v[int((NR + 1) / 2)], v[i], v[NR] }'
		done
		echo
	fi
	if has check; then
		for n in $SIZES; do
			echo "### check, $n visits (check-bench.sh)"
			echo
			CHECK_DB=$dir/bench-$n.db CHECK_ROUNDS=${CHECK_ROUNDS:-1} "$top/bench/check-bench.sh" "$build"
			echo
		done
	fi
	if has backup; then
		for n in $SIZES; do
			echo "### backup, $n visits (backup-bench.sh)"
			echo
			BK_DB=$dir/bench-$n.db BK_ROUNDS=${BK_ROUNDS:-1} "$top/bench/backup-bench.sh" "$build"
			echo
		done
	fi
	echo "Load after: $(cut -d' ' -f1-3 /proc/loadavg)."
} >"$out"
