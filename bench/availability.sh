#!/bin/sh
# availability.sh [BUILD_DIR] - `frontdesk availability` for a week on a
# database of 1,000,000 visits, as a whole process, beside `frontdesk
# agenda` for the same week and beside the sqlite3 shell running the
# availability's reservation query (the one that grows with the visits) on
# the same file. AV_VISITS sets the number of visits (default 1000000; give
# each size its own AV_DIR). Medians of AV_RUNS runs (bench/measure.py), printed as
# markdown.
#
# The database is generated once (AV_DIR, default /tmp/frontdesk-avbench)
# by one SQL script through sqlite3 (bench/availability-gen.sql: recursive
# CTEs), then the calendar projection is rebuilt so that the agenda has
# the same visits to show. Generation takes about a minute here (printed);
# AV_REGEN=1 makes it again. Not part of `make check`.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
fd=$build/frontdesk
RUNS=${AV_RUNS:-21}
visits=${AV_VISITS:-1000000}
dir=${AV_DIR:-/tmp/frontdesk-avbench}
db=$dir/av.db
week=2026-11-30
export TZ=America/New_York LC_ALL=C.UTF-8
unset FRONTDESK_NOW FRONTDESK_DB FRONTDESK_CONFIG
export XDG_CONFIG_HOME=$dir/config

mkdir -p "$dir"
if [ ! -f "$db" ] || [ -n "${AV_REGEN:-}" ]; then
	rm -f "$db" "$db-wal" "$db-shm"
	"$fd" --db "$db" init >/dev/null
	t0=$(date +%s.%N)
	sqlite3 "$db" ".dbconfig enable_trigger off" \
		"CREATE TEMP TABLE bench_size AS SELECT $visits AS visits" \
		".read $top/bench/availability-gen.sql" >/dev/null
	t1=$(date +%s.%N)
	"$fd" --db "$db" projection rebuild --all >/dev/null 2>&1
	t2=$(date +%s.%N)
	echo "$t0 $t1 $t2" | awk '{ printf "generation: %.1f s in sqlite3, projection rebuild %.1f s\n", $2 - $1, $3 - $2 }' >"$dir/gen-time"
fi
n=$(sqlite3 "$db" "SELECT count(*) FROM appointment")
from=$(TZ=America/New_York date -d "$week 00:00" +%s)
to=$(TZ=America/New_York date -d "$week +7 days 00:00" +%s)
# the availability's reservation read over the week (capacity.c, av_load's
# query 4), with the values bound
sql="SELECT r.resource_id, r.start_at, r.end_at FROM resource x
 CROSS JOIN appointment_resource r ON r.resource_id = x.id
 AND r.start_at >= $from - 604800 AND r.start_at < $to
 JOIN appointment a ON a.id = r.appointment_id
 WHERE x.active = 1 AND r.end_at > $from AND a.status NOT IN ('cancelled', 'no_show')
 ORDER BY x.id, r.start_at;"
slots=$("$fd" --db "$db" --json availability --from $week --days 7 | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["slots"]))')
rows=$(sqlite3 "$db" "$sql" | wc -l)
plan=$(sqlite3 "$db" "EXPLAIN QUERY PLAN $sql" | tr '\n' ' ')
av=$(python3 "$top/bench/measure.py" "$RUNS" "$fd" --db "$db" --read-only availability --from $week --days 7)
avj=$(python3 "$top/bench/measure.py" "$RUNS" "$fd" --db "$db" --read-only --json availability --from $week --days 7)
ag=$(python3 "$top/bench/measure.py" "$RUNS" "$fd" --db "$db" --read-only agenda --from $week --days 7)
sh=$(python3 "$top/bench/measure.py" "$RUNS" sqlite3 "$db" "$sql")
med() { printf '%s' "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.1f ms (p90 %.1f, rss %d KiB)" % (d["median_ms"], d["p90_ms"], d["rss_median_kib"]))'; }
cat <<EOT
## Availability on $n visits ($(date -u +%Y-%m-%d), $(nproc) CPUs)

$(cat "$dir/gen-time" 2>/dev/null || echo "generation: not timed")

| whole process, median of $RUNS | time |
|---|---|
| \`frontdesk availability --from $week --days 7\` (40 resources, $slots free 60-minute slots) | $(med "$av") |
| the same with \`--json\` | $(med "$avj") |
| \`frontdesk agenda --from $week --days 7\` | $(med "$ag") |
| \`sqlite3\` shell: the availability's reservation query for the week ($rows rows) | $(med "$sh") |

Plan of the reservation query: $plan
EOT
