#!/bin/sh
# recon-gen.sh DB HISTORY [DAY_PAYMENTS] - a database for bench/recon.sh:
# HISTORY card payments of the channel "stripe" (each with its paid card
# order, pay_order) received evenly over the four years before the bench
# day, then DAY_PAYMENTS (default 10,000) received during the bench day
# (2026-11-30 in America/New_York), with intents pi_day_N. Written by one SQL
# script through the sqlite3 shell with recursive CTEs; the triggers
# (history, status flows: they call frontdesk's own SQL functions, which the
# shell does not have) are dropped for the inserts and created again after,
# so the history tables hold nothing for these rows: a fixture for timing,
# not a shop's database. Prints how long it took.
set -eu
db=$1
hist=$2
day=${3:-10000}
fd=${FRONTDESK:-build/frontdesk}
TZ=America/New_York
export TZ
start=$(date +%s.%N)
rm -f "$db" "$db-wal" "$db-shm"
"$fd" --db "$db" init >/dev/null
D=$(date -d "2026-11-30 00:00" +%s)
trig=$(mktemp)
sqlite3 "$db" "SELECT sql || ';' FROM sqlite_schema WHERE type = 'trigger'" > "$trig"
sqlite3 "$db" >/dev/null <<SQL
PRAGMA journal_mode = DELETE;
PRAGMA synchronous = OFF;
$(sqlite3 "$db" "SELECT 'DROP TRIGGER ' || name || ';' FROM sqlite_schema WHERE type = 'trigger'")
BEGIN;
INSERT INTO customer (id, name, created_at, updated_at) VALUES (1, 'Bench', $D - 200000000, $D - 200000000);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $hist)
INSERT INTO payment (id, customer_id, method, reference, received_at, currency, amount, status,
  created_at, updated_at)
SELECT i, 1, 'card', 'pi_old_' || i, $D - 1 - (i * 126144000 / $hist), 'USD', 1000 + i % 5000,
  'unallocated', $D - (i * 126144000 / $hist), $D - (i * 126144000 / $hist) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $day)
INSERT INTO payment (id, customer_id, method, reference, received_at, currency, amount, status,
  created_at, updated_at)
SELECT $hist + i, 1, 'card', 'pi_day_' || i, $D + 60 + i * 8, 'USD', 1000 + i % 5000,
  'unallocated', $D + 60 + i * 8, $D + 60 + i * 8 FROM n;
INSERT INTO pay_order (order_no, provider_code, channel_order_id, customer_id, payment_id,
  currency, amount, status, created_at, updated_at)
SELECT 'PO-' || id, 'stripe', reference, 1, id, 'USD', amount, 'paid', received_at, received_at
  FROM payment;
COMMIT;
SQL
sqlite3 "$db" < "$trig"
sqlite3 "$db" "PRAGMA journal_mode = WAL" >/dev/null
rm -f "$trig"
end=$(date +%s.%N)
echo "recon-gen: $db: $hist + $day payments in $(echo "$end - $start" | bc) s" >&2
