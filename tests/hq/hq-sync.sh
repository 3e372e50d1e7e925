#!/bin/sh
# hq-sync.sh - shops reporting to the chain's head office, against a real
# PostgreSQL server the test starts itself (tests/lib/pg.sh: initdb as an
# unprivileged user, 127.0.0.1, a free port, stopped at the end): the head
# office's schema made and refused when tampered with; three shops with
# the demo's history (invoices, payments, allocations, refunds, card
# orders) sync, and every record of theirs is at the head office at its
# newest version; a batch applied twice, or an older version after a
# newer one, changes nothing; posted money cannot be changed or deleted
# there; the head office down: the batches wait on the backoff (never
# given up; `check` says hq-behind past the horizon) and go once it is
# back; the head office's figures equal the shops' own.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/pg.sh"
trap 'pg_stop; rm -rf "$TMP"' EXIT

export FRONTDESK_CONFIG="$TMP/config.ini"
cat > "$FRONTDESK_CONFIG" <<EOT
timezone = America/New_York
pipeline_give_up_seconds = 60
EOT
pg_start
ok "a PostgreSQL server of the test's own listens" "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT"
q() { sqlite3 "$FRONTDESK_DB" "$1"; }
jget() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

# --- the head office's schema
refused "an address that is not PostgreSQL's" hq init --pg "http://127.0.0.1:$PGPORT/"
refused "another machine without verifying its server" hq init --pg "postgresql://fd@db.example.com/hq?sslmode=require"
refused "a password in the address" hq init --pg "postgresql://fd:secret@127.0.0.1:$PGPORT/postgres"
refused "a head office that cannot be reached" hq init --pg "postgresql://fd@127.0.0.1:1/postgres"
out=$(fd --json hq init --pg "$PGURL")
is "hq init makes the schema" "$(echo "$out" | jget 'd["applied"]')" 1
out=$(fd --json hq init --pg "$PGURL")
is "again: nothing to apply" "$(echo "$out" | jget 'd["applied"]')" 0
is "the migration is recorded with its checksum" "$(pg_sql "SELECT sha256 FROM hq_migration WHERE version = 1")" \
	"$(sed -n 's/ *0001-head-office.sql$//p' "$TOP_SRCDIR/data/hq/MANIFEST")"
pg_sql "UPDATE hq_migration SET sha256 = 'x' WHERE version = 1"
like "a changed landed migration is refused" "$(fd hq init --pg "$PGURL" 2>&1)" "never changed"
pg_sql "UPDATE hq_migration SET sha256 = '$(sed -n 's/ *0001-head-office.sql$//p' "$TOP_SRCDIR/data/hq/MANIFEST")' WHERE version = 1"

# --- three shops with a history each
for s in 1 2 3; do
	FRONTDESK_DB="$TMP/shop$s.db" fd demo >/dev/null 2>&1
done
export FRONTDESK_DB="$TMP/shop1.db"
refused "a shop code with a blank" hq join --pg "$PGURL" --shop "S 1"
ok "shop S1 joins" fd hq join --pg "$PGURL" --shop S1 --name "North"
for s in 2 3; do FRONTDESK_DB="$TMP/shop$s.db" fd hq join --pg "$PGURL" --shop "S$s" >/dev/null; done
is "the head office knows three shops" "$(pg_sql "SELECT string_agg(code, ',' ORDER BY code) FROM hq_shop")" "S1,S2,S3"

ok "S1 syncs" fd hq sync --once
for s in 2 3; do FRONTDESK_DB="$TMP/shop$s.db" fd hq sync --once >/dev/null; done
# every record of each shop's tables is at the head office, at its newest version
tables="customer service_order appointment appointment_work line_item invoice invoice_line payment payment_allocation refund pay_order reconciliation_diff"
for s in 1 2 3; do
	want=""; got=""
	for t in $tables; do
		want="$want $t:$(sqlite3 "$TMP/shop$s.db" "SELECT count(*) || '/' || coalesce(max(his_id), 0) FROM (SELECT id, max(his_id) AS his_id FROM ${t}_his GROUP BY id)" | awk -F/ '{print $1}')"
		got="$got $t:$(pg_sql "SELECT count(*) FROM hq_record WHERE shop = 'S$s' AND tbl = '$t'")"
	done
	is "shop S$s: every record is at the head office" "$got" "$want"
done
v_shop=$(q "SELECT group_concat(id || ':' || v, ',') FROM (SELECT id, max(his_id) AS v FROM invoice_his GROUP BY id ORDER BY id)")
v_hq=$(pg_sql "SELECT string_agg(id || ':' || version, ',' ORDER BY id) FROM hq_record WHERE shop = 'S1' AND tbl = 'invoice'")
is "each invoice at its newest version" "$v_hq" "$v_shop"
is "as the shop has it" "$(pg_sql "SELECT string_agg(id || ':' || balance || ':' || status, ',' ORDER BY id) FROM hq_invoice WHERE shop = 'S1'")" \
	"$(q "SELECT group_concat(id || ':' || balance || ':' || status, ',') FROM (SELECT * FROM invoice ORDER BY id)")"
out=$(fd --json hq sync --once)
is "a second round sends nothing" "$(echo "$out" | jget 'd["sent"]')" 0

# --- the same batch twice, an older version after a newer one
key=$(pg_sql "SELECT idem_key FROM hq_batch WHERE shop = 'S1' AND tbl = 'payment' LIMIT 1")
is "a batch applied again (its key) changes nothing" \
	"$(pg_sql "SELECT hq_apply('S1', 'payment', '$key', '[{\"his_id\": 999999, \"id\": 1, \"amount\": 5}]', NULL, 0, 0, 0)")" 0
is "an older version under a new key changes nothing" \
	"$(pg_sql "SELECT hq_apply('S1', 'customer', 'test-old', '[{\"his_id\": 1, \"id\": 1, \"name\": \"Old name\"}]', NULL, 0, 0, 0)")" 0
is "the record kept its newest state" "$(pg_sql "SELECT data->>'name' FROM hq_record WHERE shop = 'S1' AND tbl = 'customer' AND id = 1")" \
	"$(q "SELECT name FROM customer WHERE id = 1")"

# --- posted money is immutable at the head office too
ok "a payment's amount cannot be changed there" sh -c "! '$PGBIN/psql' -X -q -d '$PGURL' -c \"UPDATE hq_record SET data = jsonb_set(data, '{amount}', '1') WHERE tbl = 'payment'\" 2>/dev/null"
ok "nor a record deleted" sh -c "! '$PGBIN/psql' -X -q -d '$PGURL' -c \"DELETE FROM hq_record WHERE tbl = 'invoice'\" 2>/dev/null"

# --- the head office down: the batches wait, and go once it is back
pg_kill
fd customer add --name "Offline Oona" >/dev/null
out=$(fd --json hq sync --once)
is "the head office down: the batch is to try again" "$(echo "$out" | jget 'd["failed"]')" 1
is "... not given up" "$(echo "$out" | jget 'd["dead"]')" 0
is "its command waits on the backoff" "$(q "SELECT status FROM outbox_event WHERE integration_type = 'hq' ORDER BY id DESC LIMIT 1")" failed
unlike_now=$(fd check 2>&1)
case $unlike_now in *hq-behind*) fail "within the horizon check says nothing of it" "$unlike_now" ;; *) pass "within the horizon check says nothing of it" ;; esac
like "check sees the batch behind past the horizon (the real clock 2 minutes on)" \
	"$(FRONTDESK_REAL_NOW=$(($(date +%s) + 120)) fd check 2>&1)" "hq-behind"
pg_restart
ok "the head office is back" "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT"
# its next try comes on the backoff (the real clock): rounds until then send nothing
sent_now() { [ "$(fd --json hq sync --once | jget 'd["sent"]')" = 1 ]; }
ok "the batch goes once it is back, on the backoff" until_ok 30 sent_now
is "the new customer is at the head office" "$(pg_sql "SELECT count(*) FROM hq_customer WHERE shop = 'S1' AND name = 'Offline Oona'")" 1
is "nothing was given up" "$(q "SELECT count(*) FROM outbox_event WHERE integration_type = 'hq' AND status = 'dead'")" 0

# --- the figures: the head office's sums equal the shops'
for s in 1 2 3; do
	is "shop S$s: receivables by currency at the head office equal the shop's" \
		"$(pg_sql "SELECT string_agg(currency || ':' || b, ',' ORDER BY currency) FROM (SELECT currency, sum(balance) AS b FROM hq_invoice WHERE shop = 'S$s' AND status <> 'draft' GROUP BY currency) x")" \
		"$(sqlite3 "$TMP/shop$s.db" "SELECT group_concat(currency || ':' || b, ',') FROM (SELECT currency, sum(balance) AS b FROM invoice WHERE status <> 'draft' GROUP BY currency ORDER BY currency)")"
done
out=$(fd --json hq status --pg "$PGURL")
is "hq status lists the three shops" "$(echo "$out" | jget '",".join(s["shop"] for s in d["shops"])')" "S1,S2,S3"
is "with what each sent" "$(echo "$out" | jget 'd["shops"][0]["records"]')" "$(pg_sql "SELECT count(*) FROM hq_record WHERE shop = 'S1'")"

done_testing
