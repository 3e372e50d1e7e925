#!/bin/sh
# isolation.sh [BUILD_DIR] - issue 18's isolation figures (not part of
# `make check`): a desk payment's commit latency alone and while long work
# runs in another process, and the WAL file's size during and after.
#
# Has BUILD_DIR (default: build/) build bench/isolation-pay (make
# bench-programs), copies $ISO_SRC (a bench database, default the 1,000,000-visit
# one of bench/run.sh) once to $ISO_DIR and brings it up to this program's
# schema. Then, for $ISO_ROUNDS rounds, each case in turn (round-robin, so
# that the machine's noise falls on all of them alike), starting from a
# checkpointed, truncated WAL:
#   alone     the desk alone: $ISO_ALONE payments
#   reports   `report aging` and `report takings` back to back for $ISO_REPORT_S s
#   export    `frontdesk export journal --output FILE` of the whole database
#   backup    `frontdesk backup FILE --force`
#   rebuild   `frontdesk projection rebuild --all` with every row to write
#             (their projection_version set to 2 first, not timed)
# The desk (isolation-pay) records a payment every $ISO_GAP_MS ms while the
# long work runs and $ISO_TAIL more after it ended. The table gives, per
# case, the payments, p50, p99 and max of their latency, p99 minus alone's,
# payments refused (busy), the longest the work took, the largest WAL seen
# during the work and the WAL's size at the last payment after it.
# "Usual size" is the largest WAL the desk alone reaches.
# Environment: ISO_SRC, ISO_DIR (/tmp/frontdesk-iso), ISO_ROUNDS (2),
# ISO_ALONE (600), ISO_GAP_MS (10), ISO_TAIL (100), ISO_REPORT_S (15),
# ISO_OUT (bench/ISOLATION-RESULTS.md), ISO_CASES (the cases after alone,
# default "reports export backup rebuild"). A quick try:
#   ISO_SRC=/tmp/frontdesk-bench/bench-100000.db ISO_OUT=/tmp/iso.md bench/isolation.sh
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
src=${ISO_SRC:-/tmp/frontdesk-bench/bench-1000000.db}
dir=${ISO_DIR:-/tmp/frontdesk-iso}
ROUNDS=${ISO_ROUNDS:-2}
ALONE=${ISO_ALONE:-600}
GAP=${ISO_GAP_MS:-10}
TAIL=${ISO_TAIL:-100}
REPORT_S=${ISO_REPORT_S:-15}
out=${ISO_OUT:-$top/bench/ISOLATION-RESULTS.md}
CASES=${ISO_CASES:-reports export backup rebuild}
F=$build/frontdesk

mkdir -p "$dir"
make -C "$build" -s bench-programs # bench/*.c, built by Makefile.am with the core's flags

export TZ=America/New_York LC_ALL=C.UTF-8
unset FRONTDESK_NOW FRONTDESK_DB
db=$dir/iso.db
if [ ! -f "$db" ] || [ "$src" -nt "$db" ]; then
	echo "isolation.sh: copying $src (once; kept in $dir)" >&2
	rm -f "$db" "$db-wal" "$db-shm"
	cp "$src" "$db.tmp"
	mv "$db.tmp" "$db"
fi
"$F" --db "$db" migrate >/dev/null
"$F" --db "$db" tasks run --quiet --once >/dev/null 2>&1 || true
cust=$(sqlite3 "$db" "SELECT min(id) FROM customer")
visits=$(sqlite3 "$db" "SELECT count(*) FROM appointment")
invoices=$(sqlite3 "$db" "SELECT count(*) FROM invoice")
payments=$(sqlite3 "$db" "SELECT count(*) FROM payment")
samples=$dir/samples
rm -rf "$samples"
mkdir -p "$samples"

# an empty WAL to start from (nobody else has the copy open)
fresh_wal() { sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null; }

# run CASE CMD...: CMD in the background, the desk beside it
run() {
	name=$1
	shift
	fresh_wal
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>"$dir/$name.err" &
	work=$!
	"$build/bench/isolation-pay" "$db" "$cust" 1 "$GAP" "$work" "$TAIL" >>"$samples/$name" 2>>"$dir/$name.desk-err"
	wait $work || { echo "isolation.sh: $name failed:" >&2; cat "$dir/$name.err" >&2; exit 1; }
	echo "$name $(awk "BEGIN { print $(date +%s.%N) - $t0 }")" >>"$samples/seconds"
}

has() { case " $CASES " in *" $1 "*) return 0 ;; esac; return 1; }

reports() {
	end=$(($(date +%s) + REPORT_S))
	while [ "$(date +%s)" -lt "$end" ]; do
		"$F" --db "$db" report aging >/dev/null
		"$F" --db "$db" report takings >/dev/null
	done
}

r=1
while [ $r -le "$ROUNDS" ]; do
	echo "isolation.sh: round $r of $ROUNDS" >&2
	fresh_wal
	"$build/bench/isolation-pay" "$db" "$cust" "$ALONE" "$GAP" >>"$samples/alone" 2>>"$dir/alone.desk-err"
	has reports && run reports reports
	has export && run export "$F" --db "$db" export journal --output "$dir/journal.txt"
	has backup && run backup "$F" --db "$db" backup "$dir/backup.db" --force
	if has rebuild; then
		sqlite3 "$db" "UPDATE appointment_calendar_view SET projection_version = 2" >/dev/null
		run rebuild "$F" --db "$db" projection rebuild --all
	fi
	r=$((r + 1))
done
"$F" --db "$db" check >/dev/null || { echo "isolation.sh: frontdesk check failed" >&2; exit 1; }
rm -f "$dir/journal.txt" "$dir/backup.db" "$dir/backup-requests.db"

table=$(python3 - "$samples" <<'EOF'
import sys, os
d = sys.argv[1]
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]
secs = {}
for l in open(os.path.join(d, 'seconds')):
    k, s = l.split()
    secs[k] = max(secs.get(k, 0), float(s))
rows = {}
for name in ('alone', 'reports', 'export', 'backup', 'rebuild'):
    if not os.path.exists(os.path.join(d, name)):
        continue
    lat, wal_during, wal_after, refused = [], [], [], 0
    last_after = None
    for l in open(os.path.join(d, name)):
        ph, us, wal, ref = l.split()
        refused += int(ref)
        if ph == 'during':
            lat.append(float(us) / 1000)
            wal_during.append(int(wal))
        else:
            wal_after.append(int(wal))
    rows[name] = (lat, wal_during, wal_after, refused)
base99 = pct(rows['alone'][0], 99)
usual = max(rows['alone'][1])
mib = lambda b: '%.1f MiB' % (b / 1048576)
print('| Case | payments | p50 | p99 | max | p99 - alone | refused | work took (max) | WAL max during | WAL after |')
print('|---|---|---|---|---|---|---|---|---|---|')
for name, (lat, wd, wa, ref) in rows.items():
    p99 = pct(lat, 99)
    print('| %s | %d | %.1f ms | %.1f ms | %.1f ms | %s | %d | %s | %s | %s |' % (
        name, len(lat), pct(lat, 50), p99, max(lat),
        '' if name == 'alone' else '%+.1f ms' % (p99 - base99), ref,
        '%.1f s' % secs[name] if name in secs else '',
        mib(max(wd)), mib(wa[-1]) if wa else ''))
print()
print('Usual WAL size (largest the desk alone reaches): %s.' % mib(usual))
EOF
)
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)
{
	echo "# Isolation: long work never slows the desk (issue 18)"
	echo
	echo "Produced by \`bench/isolation.sh ${1:-build}\` on $(date -u +%Y-%m-%d) with"
	echo "ISO_SRC=$src (ISO_ROUNDS=$ROUNDS, ISO_ALONE=$ALONE, ISO_GAP_MS=$GAP, ISO_TAIL=$TAIL,"
	echo "ISO_REPORT_S=$REPORT_S). Machine: $(nproc) CPUs ($cpu), shared;"
	echo "SQLite $(sqlite3 --version | cut -d' ' -f1). Database: $visits visits, $invoices invoices,"
	echo "$payments payments. Latency: the wall time of one payment_record() (BEGIN IMMEDIATE"
	echo "to COMMIT, synchronous=FULL), one payment every $GAP ms, pooled over the rounds."
	echo "Goal: p99 at most 50 ms more than alone; the WAL back under its usual size after."
	echo
	printf '%s\n' "$table"
} >"$out"
cat "$out"
