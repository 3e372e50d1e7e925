#!/bin/sh
# journal.sh [BUILD_DIR [BASE_BINARY]] - `frontdesk export journal` on a
# large database beside its limits, side by side in one run; markdown on
# stdout. Not part of `make check`.
#
# Each round, in turn, every command writes to a file in $JOURNAL_OUT_DIR
# (deleted after each run) and is timed as a whole process with its peak
# memory (/usr/bin/time: elapsed, user and system time, maximum resident set
# size):
#   - BUILD_DIR/frontdesk --read-only export journal --output FILE;
#   - BASE_BINARY (an older build, when given) the same; its output must be
#     the same byte for byte (checked once, with cmp);
#   - the `sqlite3` shell writing the rows the export reads (its entries
#     query, taken from src/journal.c) to a file: what SQLite alone needs to
#     produce them, with the shell's own printing;
#   - the `sqlite3` shell writing the query the export ran before issue 18
#     (bench/journal-postings.sql, one row a posting) to a file.
# Medians of the rounds; ratios taken round by round, median given. Rates
# are postings (lines of the journal that start with four blanks) a second.
# Environment: JOURNAL_DB ($BENCH_DIR/bench-$BENCH_N.db at this build's
# schema), JOURNAL_ROUNDS (3), JOURNAL_OUT_DIR (${TMPDIR:-/tmp}), BENCH_N
# (1000000), BENCH_DIR (/tmp/frontdesk-bench).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
base=${2:-}
N=${BENCH_N:-1000000}
db=${JOURNAL_DB:-${BENCH_DIR:-/tmp/frontdesk-bench}/bench-$N.db}
ROUNDS=${JOURNAL_ROUNDS:-3}
work=$(mktemp -d "${JOURNAL_OUT_DIR:-${TMPDIR:-/tmp}}/fdjournal-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TZ=America/New_York LC_ALL=C.UTF-8
unset FRONTDESK_DB FRONTDESK_NOW
FD=$build/frontdesk
[ -f "$db" ] || { echo "journal.sh: no database $db" >&2; exit 1; }

# the entries query of this tree's src/journal.c
entries=$(python3 -c "
import re, sys
s = open('$top/src/journal.c').read()
a = s.index('static const char entries_sql[] =')
b = s.index('\";', a)
print(''.join(re.findall(r'\"((?:[^\"\\\\\\\\]|\\\\\\\\.)*)\"', s[a:b + 1])))")
postings=$(grep -v '^--' "$top/bench/journal-postings.sql")

# t NAME CMD... - one timed run, output to $work/out: "elapsed user sys KiB" to NAME
t() {
	name=$1
	shift
	rm -f "$work/out"
	/usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@"
	tail -1 "$work/time" >> "$work/$name"
}

"$FD" --db "$db" --read-only export journal --output "$work/ref" # warm, and the reference
npost=$(grep -c '^    ' "$work/ref")
nentries=$(grep -c '^[0-9]' "$work/ref")
bytes=$(wc -c < "$work/ref")
same="not compared"
if [ -n "$base" ]; then
	"$base" --db "$db" --read-only export journal --output "$work/out"
	if cmp -s "$work/ref" "$work/out"; then same="identical"; else same="DIFFERENT"; fi
fi
rm -f "$work/ref" "$work/out"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	t new "$FD" --db "$db" --read-only export journal --output "$work/out"
	[ -z "$base" ] || t base "$base" --db "$db" --read-only export journal --output "$work/out"
	t shell_entries sh -c 'sqlite3 -readonly "$1" "$2" > "$3"' sh "$db" "$entries" "$work/out"
	t shell_postings sh -c 'sqlite3 -readonly "$1" "$2" > "$3"' sh "$db" "$postings" "$work/out"
	r=$((r + 1))
done
rm -f "$work/out"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

med() { cut -d' ' -f"$2" "$1" | sort -n | awk '{ a[NR] = $1 } END { printf "%.2f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
ratio() { paste -d' ' "$1" "$2" | awk '{ printf "%.2f\n", $1 / $5 }' | sort -n | awk '{ a[NR] = $1 } END { printf "%.2fx", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
row() { # LABEL NAME
	e=$(med "$work/$2" 1)
	printf '| %s | %s s | %s s | %s s | %s MiB | %s/s |\n' "$1" "$e" "$(med "$work/$2" 2)" \
		"$(med "$work/$2" 3)" "$(med "$work/$2" 4 | awk '{ printf "%.1f", $1 / 1024 }')" \
		"$(echo "$npost $e" | awk '{ printf "%.0f", $1 / $2 }')"
}
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)
echo "Produced by \`bench/journal.sh ${1:-build}${base:+ $base}\` on $(date -u '+%Y-%m-%d %H:%M') UTC ($ROUNDS rounds);"
echo "$(nproc) CPUs ($cpu); SQLite $(sqlite3 --version | cut -d' ' -f1). Database: $db;"
echo "the journal: $nentries entries, $npost postings, $bytes bytes (base build's output: $same)."
echo "Load average (1, 5, 15 min) before: $load_before; after: $load_after."
echo
echo "| Command, output to a file | Elapsed (median) | User | System | Peak memory | Postings a second (elapsed) |"
echo "|---|---|---|---|---|---|"
row "\`frontdesk export journal\`, this build" new
[ -z "$base" ] || row "\`frontdesk export journal\`, the base build" base
row "\`sqlite3\` shell, the rows this export reads (one an entry)" shell_entries
row "\`sqlite3\` shell, the query of the export before (one row a posting)" shell_postings
echo
echo "Ratios of elapsed times, round by round (median):"
echo
echo "- this build / the shell on the same rows: $(ratio "$work/new" "$work/shell_entries")"
echo "- this build / the shell on the postings query: $(ratio "$work/new" "$work/shell_postings")"
[ -z "$base" ] || echo "- this build / the base build: $(ratio "$work/new" "$work/base")"
