#!/bin/sh
# hq-crash.sh - shops sending to the head office while the sender and the
# PostgreSQL server itself are killed (SIGKILL) at random moments, in
# bounded rounds (HQ_CRASH_ROUNDS, default 6; more for a longer run): the
# desk goes on changing records meanwhile. Afterwards every record of each
# shop is at the head office at its newest version, no batch was given
# up, `hq check` is clean and the head office's aging equals the shops'.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/pg.sh"
SERVE_PID=
trap 'kill -9 $SERVE_PID 2>/dev/null; pg_stop; rm -rf "$TMP"' EXIT

ROUNDS=${HQ_CRASH_ROUNDS:-6}
export FRONTDESK_CONFIG="$TMP/config.ini"
printf 'timezone = America/New_York\n' > "$FRONTDESK_CONFIG"
pg_start
ok "a PostgreSQL server of the test's own listens" "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT"
jget() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
fd hq init --pg "$PGURL" >/dev/null
for s in 1 2; do
	FRONTDESK_DB="$TMP/shop$s.db" fd demo >/dev/null 2>&1
	FRONTDESK_DB="$TMP/shop$s.db" fd hq join --pg "$PGURL" --shop "S$s" >/dev/null
done

# a random number in [0, $1)
rnd() { python3 -c "import random; print(random.randrange($1))"; }
sleep_ms() { python3 -c "import time; time.sleep($1 / 1000)"; }

i=0
while [ "$i" -lt "$ROUNDS" ]; do
	i=$((i + 1))
	s=$(( $(rnd 2) + 1 ))
	export FRONTDESK_DB="$TMP/shop$s.db"
	# the desk works on: a customer, a payment
	fd customer add --name "Round $i customer" >/dev/null
	cust=$(sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM customer")
	fd pay record --customer "$cust" --amount "$i.25" --method cash >/dev/null 2>&1
	# the sender (serve, or one round) killed at a random moment
	if [ $((i % 2)) -eq 0 ]; then
		fd serve --quiet --for 30 >/dev/null 2>&1 &
	else
		fd hq sync --once >/dev/null 2>&1 &
	fi
	SERVE_PID=$!
	sleep_ms "$(rnd 400)"
	kill -9 "$SERVE_PID" 2>/dev/null
	wait "$SERVE_PID" 2>/dev/null
	SERVE_PID=
	# and now and then the head office's server too
	if [ "$(rnd 3)" -eq 0 ]; then
		pg_kill
		pg_restart
	fi
done
ok "the head office's server is up after the rounds" "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT"

# then the shops send what is left (a batch left sending is sent again, on the backoff)
drain() {
	for s in 1 2; do
		FRONTDESK_DB="$TMP/shop$s.db" fd hq sync --once >/dev/null 2>&1
	done
	left=0
	for s in 1 2; do
		n=$(sqlite3 "$TMP/shop$s.db" "SELECT count(*) FROM outbox_event WHERE integration_type = 'hq' AND status <> 'succeeded'")
		left=$((left + n))
	done
	[ "$left" -eq 0 ]
}
ok "every batch is sent in the end" until_ok 60 drain
for s in 1 2; do
	is "shop S$s: no batch given up" "$(sqlite3 "$TMP/shop$s.db" "SELECT count(*) FROM outbox_event WHERE integration_type = 'hq' AND status = 'dead'")" 0
	want=$(sqlite3 "$TMP/shop$s.db" "SELECT group_concat(t || ':' || n || ':' || v, ' ') FROM (SELECT 'customer' AS t, count(*) AS n, sum(v) AS v FROM (SELECT max(his_id) AS v FROM customer_his GROUP BY id) UNION ALL SELECT 'payment', count(*), sum(v) FROM (SELECT max(his_id) AS v FROM payment_his GROUP BY id) UNION ALL SELECT 'invoice', count(*), sum(v) FROM (SELECT max(his_id) AS v FROM invoice_his GROUP BY id))")
	got=$(pg_sql "SELECT string_agg(t || ':' || n || ':' || v, ' ' ORDER BY o) FROM (SELECT 1 AS o, 'customer' AS t, count(*) AS n, sum(version) AS v FROM hq_record WHERE shop = 'S$s' AND tbl = 'customer' UNION ALL SELECT 2, 'payment', count(*), sum(version) FROM hq_record WHERE shop = 'S$s' AND tbl = 'payment' UNION ALL SELECT 3, 'invoice', count(*), sum(version) FROM hq_record WHERE shop = 'S$s' AND tbl = 'invoice') x")
	is "shop S$s: every record at the head office at its newest version" "$got" "$want"
done
out=$(fd --json hq check --pg "$PGURL")
is "hq check is clean" "$(echo "$out" | jget '",".join(s["shop"] + ":" + s["state"] for s in d["shops"])')" "S1:agrees,S2:agrees"
fd --json hq report aging --pg "$PGURL" --on 2026-12-20 > "$TMP/hq.json"
for s in 1 2; do
	FRONTDESK_DB="$TMP/shop$s.db" fd --json report aging --on 2026-12-20 > "$TMP/shop$s.json"
done
is "the head office's aging totals are the shops' summed" "$(python3 -c '
import json, sys, collections
want = collections.Counter()
for f in sys.argv[2:]:
    for r in json.load(open(f))["customers"]:
        want[r["currency"]] += r["owed"]; want[r["currency"] + " credit"] += r["credit"]
got = collections.Counter()
for r in json.load(open(sys.argv[1]))["customers"]:
    got[r["currency"]] += r["owed"]; got[r["currency"] + " credit"] += r["credit"]
print("same" if +want == +got else "%s / %s" % (dict(want), dict(got)))' "$TMP/hq.json" "$TMP/shop1.json" "$TMP/shop2.json")" same

done_testing
