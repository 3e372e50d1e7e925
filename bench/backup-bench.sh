#!/bin/sh
# backup-bench.sh [BUILD_DIR] - issue 33's backup figure (not part of `make
# check`): `frontdesk backup FILE --force` beside `sqlite3 DB ".backup FILE"`
# on the same file, side by side in one run, and what the backup does after
# the copy, each part timed alone on the copy the shell made:
#   shell-copy    sqlite3 DB ".backup COPY" (the limit)
#   backup        frontdesk --db DB backup OUT --force (copy, fsync, checks)
#   integrity     sqlite3 COPY "PRAGMA integrity_check" (the backup's first check)
#   check         frontdesk --db COPY check (every check of `frontdesk check`,
#                 the backup's second; read-only)
# For $BK_ROUNDS rounds, each in turn; every run through /usr/bin/time
# (elapsed and maximum resident set size). Medians of the rounds and the
# ratio backup / shell-copy taken round by round (median given).
# The database: $BK_DB (default /work/bench/b1m.db; only read: the copies go
# to $BK_DIR, default /tmp/frontdesk-backup-bench, twice its size).
# BK_SKIP leaves out the timing of the copy's checks ("integrity check":
# check-bench.sh measures both on the same file).
# Markdown on stdout.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
db=${BK_DB:-/work/bench/b1m.db}
dir=${BK_DIR:-/tmp/frontdesk-backup-bench}
ROUNDS=${BK_ROUNDS:-3}
F=$build/frontdesk

export TZ=America/New_York LC_ALL=C.UTF-8
unset FRONTDESK_NOW FRONTDESK_DB
mkdir -p "$dir"
rm -f "$dir"/*.times "$dir"/*.said

# timed NAME CMD...: one run, "SECONDS KIB" appended to NAME.times; a run
# that fails (a backup that refuses a copy failing check still ran every
# check: its time stands) is timed all the same and its first message kept
# in NAME.said for the table
timed() {
	name=$1
	shift
	if ! /usr/bin/time -f "%e %M" -o "$dir/t.out" "$@" >/dev/null 2>"$dir/$name.err"; then
		echo "backup-bench.sh: $name failed:" >&2
		cat "$dir/$name.err" >&2
		grep -v '^Command exited' "$dir/$name.err" | head -1 | cut -c1-160 >"$dir/$name.said"
	fi
	grep -v '^Command exited' "$dir/t.out" | tail -1 >>"$dir/$name.times"
}

wanted() { case " ${BK_SKIP:-} " in *" $1 "*) return 1 ;; esac; return 0; }

r=1
while [ "$r" -le "$ROUNDS" ]; do
	echo "backup-bench.sh: round $r" >&2
	rm -f "$dir/copy.db" "$dir/out.db"
	sync
	timed shell-copy sqlite3 "$db" ".backup $dir/copy.db"
	timed backup "$F" --db "$db" backup "$dir/out.db" --force
	wanted integrity && timed integrity sqlite3 "$dir/copy.db" "PRAGMA integrity_check"
	wanted check && timed check "$F" --db "$dir/copy.db" --read-only check
	r=$((r + 1))
done

med() { awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() {
	paste "$dir/$1.times" "$dir/$2.times" | awk '{ print $1 / $3 }' | sort -n |
		awk '{ v[NR] = $1 } END { printf "%.2fx\n", v[int((NR + 1) / 2)] }'
}

size=$(stat -c %s "$db")
echo "Database: $db ($((size / 1048576)) MiB), $ROUNDS rounds, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| run | median s | peak MiB | / shell-copy (median of rounds) | failed, saying |"
echo "|---|---|---|---|---|"
for n in shell-copy backup integrity check; do
	wanted "$n" || continue
	said=$(cat "$dir/$n.said" 2>/dev/null || true)
	echo "| $n | $(med "$dir/$n.times" 1) | $(($(med "$dir/$n.times" 2) / 1024)) | $(ratio "$n" shell-copy) | $said |"
done
rm -f "$dir/copy.db" "$dir/out.db" "$dir"/out.db.* 2>/dev/null || true
