#!/bin/sh
# check-bench.sh [BUILD_DIR] - `frontdesk check` beside its limit, measured
# in the same run on the same file (issue 33: at most 2x PRAGMA
# integrity_check): in each round, in turn,
#   - the sqlite3 shell running PRAGMA integrity_check (the limit);
#   - `frontdesk check` of BUILD_DIR (default build/);
#   - `frontdesk check` of $CHECK_BASE when set (another build's binary:
#     the before/after ratio, taken in the same run);
#   - `frontdesk check --since` a week and a month before the data's end
#     ($CHECK_WEEK, $CHECK_MONTH: 2026-12-24 and 2026-12-01, for the
#     databases of bench/gen.c, whose visits end on 2026-12-31);
#   - the sqlite3 shell running PRAGMA quick_check (what --since runs of
#     SQLite's own checks).
# Each as a whole process under /usr/bin/time (elapsed, user+system CPU,
# peak resident memory). Prints markdown: the medians of CHECK_ROUNDS
# rounds (3) and each one's ratio to integrity_check, taken round by round
# and then the median of those ratios. Nothing writes to CHECK_DB (check
# only reads; run it on a copy all the same: bench/gen.c's database must
# first have its calendar built and its tasks run, as bench/run.sh does).
# Environment: CHECK_DB (/work/bench/check/c1m.db), CHECK_ROUNDS,
# CHECK_BASE, CHECK_WEEK, CHECK_MONTH, CHECK_SKIP (names of the measures
# to leave out, e.g. "base quick").
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
db=${CHECK_DB:-/work/bench/check/c1m.db}
rounds=${CHECK_ROUNDS:-3}
week=${CHECK_WEEK:-2026-12-24}
month=${CHECK_MONTH:-2026-12-01}
skip=" ${CHECK_SKIP:-} "
FD=$build/frontdesk
export TZ=America/New_York LC_ALL=C.UTF-8
unset FRONTDESK_NOW FRONTDESK_DB
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

names="integrity check"
[ -z "${CHECK_BASE:-}" ] || names="$names base"
names="$names week month quick"
run() { # NAME: one process, its figures appended to $out/NAME
	case $1 in
	integrity) set -- "$1" sqlite3 "$db" "PRAGMA integrity_check" ;;
	quick) set -- "$1" sqlite3 "$db" "PRAGMA quick_check" ;;
	check) set -- "$1" "$FD" --db "$db" check ;;
	base) set -- "$1" "$CHECK_BASE" --db "$db" check ;;
	week) set -- "$1" "$FD" --db "$db" check --since "$week" ;;
	month) set -- "$1" "$FD" --db "$db" check --since "$month" ;;
	esac
	n=$1; shift
	/usr/bin/time -f "%e %U %S %M" -o "$out/t" "$@" >"$out/stdout" 2>"$out/stderr" || true
	said=$(head -n 1 "$out/stdout")
	# (time writes "Command exited with non-zero status N" first when the
	# check found problems: the figures are its last line)
	t=$(tail -n 1 "$out/t")
	echo "$t $said" >>"$out/$n"
	echo "check-bench.sh: $n $t ($said)" >&2
}
i=0
while [ $i -lt "$rounds" ]; do
	i=$((i + 1))
	for n in $names; do
		case $skip in *" $n "*) continue ;; esac
		run "$n"
	done
done

python3 - "$out" "$names" "$skip" "$db" "$rounds" <<'PY'
import os, statistics, sys
d, names, skip, db, rounds = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4], sys.argv[5]
rows = {}
for n in names:
    if n in skip or not os.path.exists(os.path.join(d, n)):
        continue
    rows[n] = [l.split(None, 4) for l in open(os.path.join(d, n))]
what = {
    "integrity": "`sqlite3 DB 'PRAGMA integrity_check'` (the limit)",
    "check": "`frontdesk check`",
    "base": "`frontdesk check`, base build",
    "week": "`frontdesk check --since` a week",
    "month": "`frontdesk check --since` a month",
    "quick": "`sqlite3 DB 'PRAGMA quick_check'`",
}
print(f"{db}, {int(rounds)} rounds in turn; medians (ratios: round by round to integrity_check, then their median)\n")
print("| what | elapsed s | CPU s (user+sys) | peak RSS MiB | x integrity_check | says |")
print("|---|---:|---:|---:|---:|---|")
base = [float(r[0]) for r in rows.get("integrity", [])]
for n, rs in rows.items():
    el = [float(r[0]) for r in rs]
    cpu = [float(r[1]) + float(r[2]) for r in rs]
    rss = [int(r[3]) / 1024 for r in rs]
    ratio = [e / b for e, b in zip(el, base)] if base else []
    said = rs[-1][4].strip() if len(rs[-1]) > 4 else ""
    print(f"| {what[n]} | {statistics.median(el):.1f} | {statistics.median(cpu):.1f} | "
          f"{statistics.median(rss):.0f} | {statistics.median(ratio):.2f} | {said} |")
PY
