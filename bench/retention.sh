#!/bin/sh
# retention.sh [BUILD_DIR] - customer data retention on 50,000 customers and
# 1,000,000 visits (bench/retention-gen.sql), as whole processes: the full
# lifecycle build, a dry run (the candidates query on the projection and
# each candidate's blockers), the candidates query alone in the sqlite3
# shell on the same file (the limit), and the purge of one customer with
# and without the VACUUM (retention_vacuum), each on a fresh copy of the
# same file. Medians (bench/measure.py and the loop below), printed as
# markdown. Not part of `make check`.
#
# The database is generated once (RB_DIR, default /tmp/frontdesk-rbench);
# RB_REGEN=1 makes it again. RB_RUNS (default 7) runs per figure, RB_PURGES
# (default 5) purges per mode.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
fd=$build/frontdesk
RUNS=${RB_RUNS:-7}
PURGES=${RB_PURGES:-5}
dir=${RB_DIR:-/tmp/frontdesk-rbench}
db=$dir/rb.db
export TZ=America/New_York LC_ALL=C.UTF-8
unset FRONTDESK_DB FRONTDESK_CONFIG
export XDG_CONFIG_HOME=$dir/config FRONTDESK_NOW=2026-12-01T09:00
mkdir -p "$dir/config/frontdesk"

if [ ! -f "$db" ] || [ -n "${RB_REGEN:-}" ]; then
	rm -f "$db" "$db-wal" "$db-shm"
	"$fd" --db "$db" init >/dev/null
	t0=$(date +%s.%N)
	sqlite3 "$db" ".dbconfig enable_trigger off" ".read $top/bench/retention-gen.sql" >/dev/null
	t1=$(date +%s.%N)
	"$fd" --db "$db" retention rebuild >/dev/null
	t2=$(date +%s.%N)
	sqlite3 "$db" "DELETE FROM task; PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
	echo "$t0 $t1 $t2" | awk '{ printf "generation: %.1f s in sqlite3; first lifecycle build of every customer %.1f s", $2 - $1, $3 - $2 }' >"$dir/gen-time"
	# the purge's template: one candidate soft-deleted, due on 2027-01-05
	cp "$db" "$dir/purge.db"
	"$fd" --db "$dir/purge.db" retention propose --customer 7 >/dev/null
	sqlite3 "$dir/purge.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
fi
cutoff=$(TZ=America/New_York date -d "2023-12-01 00:00" +%s)
sql="SELECT customer_id FROM customer_lifecycle WHERE state = 'active' AND last_activity_at < $cutoff
 AND (held = 0 OR 0) AND open_appointments = 0 AND owing_invoices = 0 AND open_credits = 0
 ORDER BY last_activity_at, customer_id LIMIT -1;"
cands=$(sqlite3 "$db" "$sql" | wc -l)
plan=$(sqlite3 "$db" "EXPLAIN QUERY PLAN $sql" | tr '\n' ' ')
rb=$(python3 "$top/bench/measure.py" "$RUNS" "$fd" --db "$db" retention rebuild)
dry=$(python3 "$top/bench/measure.py" "$RUNS" "$fd" --db "$db" --read-only retention run --dry-run)
sh=$(python3 "$top/bench/measure.py" "$RUNS" sqlite3 "$db" "$sql")
# purge ID GEN VACUUM: median ms of PURGES purges, each on a fresh copy
del=$(sqlite3 "$dir/purge.db" "SELECT deletion_id || ' ' || generation FROM retention_process WHERE state = 'soft_deleted'")
purge() {
	printf 'retention_vacuum = %s\n' "$1" >"$dir/config/frontdesk/config"
	python3 - "$PURGES" "$dir" "$fd" $del <<'PY'
import os, shutil, statistics, subprocess, sys, time
runs, d, fd, did, gen = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
env = dict(os.environ, FRONTDESK_NOW="2027-01-05T09:00")
ms = []
for _ in range(runs):
    for ext in ("", "-wal", "-shm"):
        if os.path.exists(d + "/p.db" + ext):
            os.remove(d + "/p.db" + ext)
    shutil.copyfile(d + "/purge.db", d + "/p.db")
    t0 = time.perf_counter()
    subprocess.run([fd, "--db", d + "/p.db", "retention", "purge", did, "--generation", gen],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    ms.append((time.perf_counter() - t0) * 1000.0)
print("%.0f ms (min %.0f, max %.0f)" % (statistics.median(ms), min(ms), max(ms)))
PY
}
pv=$(purge 1)
pn=$(purge 0)
rm -f "$dir/config/frontdesk/config" "$dir/p.db" "$dir/p.db-wal" "$dir/p.db-shm"
med() { printf '%s' "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.1f ms (p90 %.1f, rss %d KiB)" % (d["median_ms"], d["p90_ms"], d["rss_median_kib"]))'; }
size=$(du -m "$db" | cut -f1)
cat <<EOT
## Retention on 50,000 customers and 1,000,000 visits ($(date -u +%Y-%m-%d), $(nproc) CPUs, ${size} MiB file)

$(cat "$dir/gen-time" 2>/dev/null || echo "generation: not timed")

| whole process, median of $RUNS | time |
|---|---|
| \`frontdesk retention rebuild\` (every lifecycle row recomputed, none changed) | $(med "$rb") |
| \`frontdesk retention run --dry-run\` ($cands candidates, each one's blockers asked) | $(med "$dry") |
| \`sqlite3\` shell: the candidates query alone ($cands rows) | $(med "$sh") |

| purge of one customer, median of $PURGES (fresh copy each) | time |
|---|---|
| with the VACUUM (default) | $pv |
| \`retention_vacuum = 0\` (secure_delete only) | $pn |

Plan of the candidates query: $plan
EOT
