#!/bin/sh
# recon.sh [BUILD_DIR] - reconciling a day of 10,000 channel lines against
# the day's 10,000 card payments, in a database of 100,000 payments of
# history and (RECON_BENCH_1M=1) of 1,000,000, as a whole process, median
# of RUNS (default 7) runs each, side by side; beside it the same matching
# query in the sqlite3 shell on the same file. RECON_SIZES picks the sizes
# of history (e.g. "100000 1000000 10000000": issue 33's ten times). Every run after the first
# finds the same day again (no new difference; the 10,000 fees rewritten).
#
# How the lines arrive (RECON_BENCH_MODE):
#   import  `frontdesk recon import day.csv` of a generated Stripe
#           balance-transaction CSV (needs the real settle-file.c; the
#           default when it is built in)
#   fetch   `frontdesk recon run` against tests/chan/fake-stripe.py holding the
#           10,000 lines (100 pages of 100 over loopback HTTP: the fake's
#           time is in the figure; the default while the reader is a stub)
# Prints markdown. Databases are built by bench/recon-gen.sh under
# ${TMPDIR:-/tmp}; their generation time is printed too.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
FRONTDESK=$build/frontdesk
export FRONTDESK
RUNS=${RUNS:-7}
TZ=America/New_York
LC_ALL=C.UTF-8
export TZ LC_ALL
unset FRONTDESK_NOW http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY
work=$(mktemp -d "${TMPDIR:-/tmp}/fdrecon.XXXXXX")
FAKE_PID=
trap '[ -z "$FAKE_PID" ] || kill "$FAKE_PID" 2>/dev/null || true; rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data"
DAY=2026-11-30
D=$(date -d "$DAY 00:00" +%s)
N=10000
sizes="100000"
[ "${RECON_BENCH_1M:-0}" = 1 ] && sizes="100000 1000000"
sizes=${RECON_SIZES:-$sizes}

mode=${RECON_BENCH_MODE:-}
if [ -z "$mode" ]; then
	"$FRONTDESK" --db "$work/probe.db" init >/dev/null
	printf 'id,type\r\n' > "$work/probe.csv"
	if "$FRONTDESK" --db "$work/probe.db" recon import "$work/probe.csv" 2>&1 | grep -q "not built in yet"; then
		mode=fetch
	else
		mode=import
	fi
fi

# the day's lines: charge N at D + 60 + 8N + 1 (a second after our payment)
python3 - "$work" "$D" "$N" <<'PY'
import json, sys, time
work, D, N = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lines, csv = [], ["id,type,source,amount,fee,net,currency,created (utc),available on (utc),status,payment_intent_id"]
for i in range(1, N + 1):
    amt = 1000 + i % 5000
    fee = amt * 3 // 100
    t = D + 60 + i * 8 + 1
    lines.append({"id": "txn_day_%d" % i, "object": "balance_transaction", "amount": amt, "fee": fee,
                  "net": amt - fee, "currency": "usd", "created": t, "available_on": t + 172800,
                  "status": "pending", "type": "charge", "reporting_category": "charge",
                  "source": "ch_day_%d" % i, "payment_intent": "pi_day_%d" % i, "payout": None})
    ts = lambda s: time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(s))
    csv.append("txn_day_%d,charge,ch_day_%d,%d.%02d,%d.%02d,%d.%02d,usd,%s,%s,pending,pi_day_%d" % (
        i, i, amt // 100, amt % 100, fee // 100, fee % 100, (amt - fee) // 100, (amt - fee) % 100,
        ts(t), ts(t + 172800), i))
json.dump({"lines": lines}, open(work + "/lines.json", "w"))
open(work + "/day.csv", "w").write("\r\n".join(csv) + "\r\n")
PY

if [ "$mode" = fetch ]; then
	KEY=sk_test_bench_recon
	python3 "$here/../tests/chan/fake-stripe.py" --api-key "$KEY" --max-seconds 7200 > "$work/fake.out" 2>/dev/null &
	FAKE_PID=$!
	i=0
	while ! grep -q '^PORT' "$work/fake.out" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	BASE="http://127.0.0.1:$(sed -n 's/^PORT //p' "$work/fake.out")"
	curl -s --max-time 60 --data-binary @"$work/lines.json" "$BASE/_control/balance" >/dev/null
	mkdir -p "$XDG_CONFIG_HOME/frontdesk"
	(umask 077; printf 'stripe_api_key = %s\n' "$KEY" > "$XDG_CONFIG_HOME/frontdesk/secrets")
fi

# the matching query of recon.c (read_local), with the window of the day and
# the tolerance, as the sqlite3 shell runs it
T=300
QUERY="SELECT p.id, p.amount, p.currency, p.status, p.received_at,
 coalesce(po.channel_order_id, rp.channel_ref, p.reference, ''), coalesce(po.order_no, '')
 FROM payment p LEFT JOIN pay_order po ON po.payment_id = p.id
 LEFT JOIN reconciliation_payment rp ON rp.payment_id = p.id
 WHERE p.received_at >= $((D - T)) AND p.received_at < $((D + 86400 + T)) AND p.method = 'card'
 AND (po.provider_code = 'stripe' OR rp.provider_code = 'stripe');"

med() { python3 -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])'; }
echo "| history payments | generation (s) | recon $mode, whole process (ms, median of $RUNS) | matching query, sqlite3 shell (ms) | lines matched | plan |"
echo "|---|---|---|---|---|---|"
for size in $sizes; do
	db=$work/recon-$size.db
	g0=$(date +%s.%N)
	sh "$here/recon-gen.sh" "$db" "$size" "$N" 2>/dev/null
	g1=$(date +%s.%N)
	if [ "$mode" = fetch ]; then
		"$FRONTDESK" --db "$db" channel provider-set stripe --url "$BASE" >/dev/null
		cmd="$FRONTDESK --db $db recon run --date $DAY"
	else
		cmd="$FRONTDESK --db $db recon import $work/day.csv --date $DAY"
	fi
	# the generator's writes reach the disk before anything is timed
	sync
	# the first run records the fees; check it matched everything
	matched=$($cmd --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["matched"], "of", d["lines"], "diffs", d["diffs_new"])')
	$cmd >/dev/null # warm: the file's pages in the page cache, as on a desk
	# shellcheck disable=SC2086
	t=$(python3 "$here/measure.py" "$RUNS" $cmd | med)
	q=$(python3 "$here/measure.py" "$RUNS" sqlite3 "$db" "$QUERY" | med)
	plan=$(sqlite3 "$db" "EXPLAIN QUERY PLAN $QUERY" | sed -n 's/.*\(SEARCH p USING [^(]*\).*/\1/p' | head -1)
	echo "| $size | $(echo "$g1 - $g0" | bc | sed 's/^\./0./') | $t | $q | $matched | $plan |"
done
