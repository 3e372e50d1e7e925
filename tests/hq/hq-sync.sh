#!/bin/sh
# hq-sync.sh - shops reporting to the chain's head office, against a real
# PostgreSQL server the test starts itself (tests/lib/pg.sh: initdb as an
# unprivileged user, 127.0.0.1, a free port, stopped at the end): the head
# office's schema made and refused when tampered with; three shops with
# the demo's history (invoices, payments, allocations, refunds, card
# orders) sync, and every record of theirs is at the head office at its
# newest version; a batch applied twice, or an older version after a
# newer one, changes nothing; posted money cannot be changed or deleted
# there; the head office down for a week of the desk's work: the batches
# wait on the backoff (never given up; `check` says hq-behind past the
# horizon) and go once it is back; a shop restored from a backup resends
# nothing the head office has, and when it had lost changes it had sent,
# its own records win (a new epoch); `hq check` agrees, then names a
# figure changed at the head office; each shop's aging at the head office
# is the shop's own, the takings the shops' summed, and so are its
# commissions (each shop with a percentage and a fixed commission, a
# credit note and a refund); a customer is found at every shop; a head
# office whose schema is older than the shop's program keeps the batches
# waiting (not given up) until hq init.
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
is "hq init makes the schema: every migration of data/hq" "$(echo "$out" | jget 'd["applied"]')" \
	"$(grep -c '\.sql$' "$TOP_SRCDIR/data/hq/MANIFEST")"
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
# commissions at each shop: two technicians, a visit of Sam's, a line at a
# percentage (Sam's, the visit's) and one fixed (credited to Kim), an
# invoice paid, then credited in part, the payment freed and partly
# refunded; different amounts at each shop
commissions() { # SHOP-NUMBER
	export FRONTDESK_DB="$TMP/shop$1.db"
	fd resource add --name "Sam $1" --kind technician >/dev/null
	fd resource add --name "Kim $1" --kind technician >/dev/null
	fd resource hours "Sam $1" --days all --spans 08:00-18:00 >/dev/null
	fd customer add --name "Commission Cy $1" >/dev/null
	cc=$(sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM customer")
	fd book --customer "$cc" --start "2026-12-02 09:00" --length 1:00 --resource "Sam $1" >/dev/null
	cj=$(sqlite3 "$FRONTDESK_DB" "SELECT service_order_id FROM appointment_work WHERE appointment_id = (SELECT max(id) FROM appointment)")
	fd item add --job "$cj" --description Brakes --price "2$1.04" --commission 12.5% >/dev/null
	fd item add --job "$cj" --description Detail --price 150.00 --commission "2$1.00" --tech "Kim $1" >/dev/null
	FRONTDESK_NOW="2026-12-03 10:00" fd invoice issue --jobs "$cj" >/dev/null
	ci=$(sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM invoice")
	ct=$(sqlite3 "$FRONTDESK_DB" "SELECT total FROM invoice WHERE id = $ci")
	FRONTDESK_NOW="2026-12-03 11:00" fd pay record --customer "$cc" --amount "$((ct / 100)).$(printf %02d $((ct % 100)))" --method cash --auto --yes >/dev/null
	FRONTDESK_NOW="2026-12-05 10:00" fd invoice credit "$ci" --amount "3$1.01" --reason goodwill >/dev/null
	cp_=$(sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM payment")
	FRONTDESK_NOW="2026-12-06 10:00" fd pay reverse "$(sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM payment_allocation WHERE payment_id = $cp_")" --reason "refund part" >/dev/null
	FRONTDESK_NOW="2026-12-06 11:00" fd refund "$cp_" --amount "1$1.00" --reason scratch >/dev/null
	unset FRONTDESK_DB
}
for s in 1 2 3; do commissions "$s"; done
is "each shop has commissioned lines, a credit note and a refund" \
	"$(for s in 1 2 3; do sqlite3 "$TMP/shop$s.db" "SELECT (SELECT count(*) FROM line_item WHERE commission_bp IS NOT NULL OR commission_fixed IS NOT NULL) || (SELECT count(*) FROM invoice WHERE kind = 'credit_note') || (SELECT count(*) FROM refund WHERE status = 'succeeded') > 0"; done | tr -d '\n')" 111
export FRONTDESK_DB="$TMP/shop1.db"
refused "a shop code with a blank" hq join --pg "$PGURL" --shop "S 1"
ok "shop S1 joins" fd hq join --pg "$PGURL" --shop S1 --name "North"
for s in 2 3; do FRONTDESK_DB="$TMP/shop$s.db" fd hq join --pg "$PGURL" --shop "S$s" >/dev/null; done
is "the head office knows three shops" "$(pg_sql "SELECT string_agg(code, ',' ORDER BY code) FROM hq_shop")" "S1,S2,S3"

ok "S1 syncs" fd hq sync --once
for s in 2 3; do FRONTDESK_DB="$TMP/shop$s.db" fd hq sync --once >/dev/null; done
# every record of each shop's tables is at the head office, at its newest version
tables="customer service_order appointment appointment_work line_item invoice invoice_line payment payment_allocation refund pay_order reconciliation_diff resource appointment_resource"
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
# a week of the desk's work with the head office away: visits, payments,
# a customer a day, and the worker trying each day
for d in 2 3 4 5 6 7 8; do
	export FRONTDESK_NOW="2026-12-0${d}T10:00"
	fd customer add --name "Offline day $d" >/dev/null
	c=$(q "SELECT max(id) FROM customer")
	fd book --customer "$c" --start "2026-12-1${d} 09:00" --minutes 60 >/dev/null 2>&1
	fd pay record --customer "$c" --amount "$d.50" --method cash >/dev/null
	fd hq sync --once >/dev/null 2>&1
done
export FRONTDESK_NOW=2026-12-08T18:00
is "a week offline: nothing given up" "$(q "SELECT count(*) FROM outbox_event WHERE integration_type = 'hq' AND status = 'dead'")" 0
pg_restart
ok "the head office is back" "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT"
# the next tries come on the backoff (the real clock): rounds until then send nothing
caught_up() {
	fd hq sync --once >/dev/null 2>&1
	[ "$(q "SELECT count(*) FROM outbox_event WHERE integration_type = 'hq' AND status <> 'succeeded'")" = 0 ]
}
ok "the week's batches go once it is back, on the backoff" until_ok 60 caught_up
is "the new customers are at the head office" "$(pg_sql "SELECT count(*) FROM hq_customer WHERE shop = 'S1' AND (name = 'Offline Oona' OR name LIKE 'Offline day %')")" 8
is "... and the week's payments" "$(pg_sql "SELECT count(*) FROM hq_payment WHERE shop = 'S1' AND customer_id IN (SELECT id FROM hq_customer WHERE shop = 'S1' AND name LIKE 'Offline day %')")" 7
is "nothing was given up" "$(q "SELECT count(*) FROM outbox_event WHERE integration_type = 'hq' AND status = 'dead'")" 0

# --- the figures: the head office's sums equal the shops'
for s in 1 2 3; do
	is "shop S$s: receivables by currency at the head office equal the shop's" \
		"$(pg_sql "SELECT string_agg(currency || ':' || b, ',' ORDER BY currency) FROM (SELECT currency, sum(balance) AS b FROM hq_invoice WHERE shop = 'S$s' AND status <> 'draft' GROUP BY currency) x")" \
		"$(sqlite3 "$TMP/shop$s.db" "SELECT group_concat(currency || ':' || b, ',') FROM (SELECT currency, sum(balance) AS b FROM invoice WHERE status <> 'draft' GROUP BY currency ORDER BY currency)")"
done
# --- a shop restored from a backup
S3="$TMP/shop3.db"
sqlite3 "$S3" ".backup '$TMP/shop3-backup.db'"
batches=$(pg_sql "SELECT count(*) FROM hq_batch WHERE shop = 'S3'")
cp "$S3" "$TMP/shop3-now.db"
cp "$TMP/shop3-backup.db" "$S3"
FRONTDESK_DB="$S3" fd hq sync --once >/dev/null
is "restored as it was sent: nothing is sent again" "$(pg_sql "SELECT count(*) FROM hq_batch WHERE shop = 'S3'")" "$batches"
FRONTDESK_DB="$S3" fd customer add --name "Lost Lucy" >/dev/null
FRONTDESK_DB="$S3" fd hq sync --once >/dev/null
lucy=$(sqlite3 "$S3" "SELECT id FROM customer WHERE name = 'Lost Lucy'")
is "a new customer reaches the head office" "$(pg_sql "SELECT name FROM hq_customer WHERE shop = 'S3' AND id = $lucy")" "Lost Lucy"
cp "$TMP/shop3-backup.db" "$S3"
FRONTDESK_DB="$S3" fd customer add --name "New Nina" >/dev/null
is "restored from before it, the shop gives her number to another" "$(sqlite3 "$S3" "SELECT id FROM customer WHERE name = 'New Nina'")" "$lucy"
FRONTDESK_DB="$S3" fd hq sync --once >/dev/null
is "the shop's record wins at the head office" "$(pg_sql "SELECT name FROM hq_customer WHERE shop = 'S3' AND id = $lucy")" "New Nina"
is "the table was sent again under a new epoch" "$(sqlite3 "$S3" "SELECT epoch FROM hq_sync WHERE tbl = 'customer'")" 1
v_shop=$(sqlite3 "$S3" "SELECT group_concat(id || ':' || v, ',') FROM (SELECT id, max(his_id) + 1099511627776 AS v FROM customer_his GROUP BY id ORDER BY id)")
is "every customer at the head office is the shop's newest version" \
	"$(pg_sql "SELECT string_agg(id || ':' || version, ',' ORDER BY id) FROM hq_record WHERE shop = 'S3' AND tbl = 'customer'")" "$v_shop"

# --- hq check: each shop's figures (sent with its batches) against the head office's
out=$(fd --json hq check --pg "$PGURL")
is "hq check: the three shops agree" "$(echo "$out" | jget '",".join(s["shop"] + ":" + s["state"] for s in d["shops"])')" \
	"S1:agrees,S2:agrees,S3:agrees"
inv=$(pg_sql "SELECT min(id) FROM hq_invoice WHERE shop = 'S2' AND status <> 'draft'")
bal=$(pg_sql "SELECT balance FROM hq_invoice WHERE shop = 'S2' AND id = $inv")
pg_sql "UPDATE hq_record SET data = jsonb_set(data, '{balance}', to_jsonb(balance_plus_one)) FROM (SELECT $bal + 1 AS balance_plus_one) x WHERE shop = 'S2' AND tbl = 'invoice' AND id = $inv" >/dev/null
st=0; out=$(fd hq check --pg "$PGURL" 2>"$TMP/err") || st=$?
is "a balance changed at the head office: hq check fails" "$st" 1
like "it names the shop and the figure" "$out" "S2: DIFFERS: invoices"
like "... the balance" "$out" "balance: the shop"
like "... and says so on stderr" "$(cat "$TMP/err")" "differ"
pg_sql "UPDATE hq_record SET data = jsonb_set(data, '{balance}', '$bal') WHERE shop = 'S2' AND tbl = 'invoice' AND id = $inv" >/dev/null
ok "put back, hq check passes" fd hq check --pg "$PGURL"
refused "hq check of a shop that never joined" hq check --pg "$PGURL" --shop S9

# --- the reports: each shop's rows at the head office are the shop's own
cmp_aging() { # SHOP: the shop's aging rows and the head office's for it
	python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["customers"]
b = [r for r in json.load(open(sys.argv[2]))["customers"] if r["shop"] == sys.argv[3]]
key = lambda r: (r["customer_id"], r["currency"])
sa = sorted((key(r), r["buckets"], r["owed"], r["credit"]) for r in a)
sb = sorted((key(r), r["buckets"], r["owed"], r["credit"]) for r in b)
print("same" if sa == sb and sa else "shop %d rows, head office %d: %s" % (len(sa), len(sb), [x for x in sa if x not in sb][:2]))' "$TMP/shop.json" "$TMP/hq.json" "$1"
}
fd --json hq report aging --pg "$PGURL" --on 2026-12-20 > "$TMP/hq.json"
for s in 1 2 3; do
	FRONTDESK_DB="$TMP/shop$s.db" fd --json report aging --on 2026-12-20 > "$TMP/shop.json"
	is "aging: shop S$s's rows at the head office are the shop's, to the cent" "$(cmp_aging "S$s")" same
done
fd --json hq report aging --pg "$PGURL" --shops S1,S3 --on 2026-12-20 > "$TMP/hq13.json"
is "aging of some shops: only theirs" "$(jget 'sorted(set(r["shop"] for r in d["customers"]))' < "$TMP/hq13.json")" "['S1', 'S3']"
refused "aging of a shop that never joined" hq report aging --pg "$PGURL" --shops S1,S9
refused "aging on a day that is not a date" hq report aging --pg "$PGURL" --on 2026-13-45
fd --json hq report takings --pg "$PGURL" --from 2026-01-01 --to 2026-12-31 > "$TMP/hqt.json"
for s in 1 2 3; do FRONTDESK_DB="$TMP/shop$s.db" fd --json report takings --from 2026-01-01 --to 2026-12-31 > "$TMP/t$s.json"; done
is "takings: the head office's rows are the shops' rows summed" "$(python3 -c '
import json, sys, collections
want = collections.Counter()
for f in sys.argv[2:]:
    for r in json.load(open(f))["days"]:
        for k in ("payments", "received", "refunded", "net"):
            want[(r["day"], r["method"], r["currency"], k)] += r[k]
got = collections.Counter()
for r in json.load(open(sys.argv[1]))["days"]:
    for k in ("payments", "received", "refunded", "net"):
        got[(r["day"], r["method"], r["currency"], k)] += r[k]
want = +want; got = +got
print("same" if want == got and want else "differ: %s" % sorted(set(want.items()) ^ set(got.items()))[:3])' "$TMP/hqt.json" "$TMP/t1.json" "$TMP/t2.json" "$TMP/t3.json")" same
refused "takings from after to" hq report takings --pg "$PGURL" --from 2026-12-31 --to 2026-01-01

# --- commissions: each shop's at the head office are the shop's own
cmp_comm() { # SHOP FROM TO: the shop's report and the head office's rows for it
	FRONTDESK_DB="$TMP/shop$1.db" fd --json report commissions --from "$2" --to "$3" > "$TMP/cs.json"
	python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["technicians"]
b = [dict((k, v) for k, v in t.items() if k != "shop") for t in json.load(open(sys.argv[2]))["technicians"] if t["shop"] == sys.argv[3]]
print("same" if a == b and a and any(r["kind"] != "line" for t in a for r in t["rows"]) else "differ: %s / %s" % (a, b))' "$TMP/cs.json" "$TMP/hqc.json" "S$1"
}
fd --json hq report commissions --pg "$PGURL" --from 2026-11-01 --to 2026-12-31 > "$TMP/hqc.json"
for s in 1 2 3; do
	is "commissions: shop S$s's technicians, rows and totals at the head office are the shop's" "$(cmp_comm $s 2026-11-01 2026-12-31)" same
done
fd --json hq report commissions --pg "$PGURL" --from 2026-12-04 --to 2026-12-31 > "$TMP/hqc.json"
is "a period after the lines: only the credit and the refund, as at the shop" "$(cmp_comm 2 2026-12-04 2026-12-31)" same
fd --json hq report commissions --pg "$PGURL" --shops S3 --from 2026-11-01 --to 2026-12-31 > "$TMP/hqc3.json"
is "commissions of one shop: only its technicians" "$(jget '",".join(sorted(set(t["shop"] + ":" + t["technician"] for t in d["technicians"])))' < "$TMP/hqc3.json")" "S3:Kim 3,S3:Sam 3"
like "the text report names each shop" "$(fd hq report commissions --pg "$PGURL" --from 2026-11-01 --to 2026-12-31)" "Shop S2:"
refused "commissions from after to" hq report commissions --pg "$PGURL" --from 2026-12-31 --to 2026-11-01
refused "commissions of a shop that never joined" hq report commissions --pg "$PGURL" --shops S9 --from 2026-11-01 --to 2026-12-31

# --- a customer's statement at the head office is the shop's own
stc=$(sqlite3 "$TMP/shop2.db" "SELECT customer_id FROM payment_allocation a JOIN payment p ON p.id = a.payment_id GROUP BY customer_id ORDER BY count(*) DESC LIMIT 1")
FRONTDESK_DB="$TMP/shop2.db" fd --json report statement --customer "$stc" --currency USD > "$TMP/st-shop.json"
fd --json hq report statement --pg "$PGURL" --shop S2 --customer "$stc" --currency USD > "$TMP/st-hq.json"
is "a customer's statement at the head office: the shop's lines and totals" "$(python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["statements"][0]
b = json.load(open(sys.argv[2]))["statements"][0]
print("same" if a["lines"] == b["lines"] and a["totals"] == b["totals"] and a["lines"] else "differ: %s / %s" % (a["totals"], b["totals"]))' "$TMP/st-shop.json" "$TMP/st-hq.json")" same
refused "a statement of a customer the shop never sent" hq report statement --pg "$PGURL" --shop S2 --customer 99999 --currency USD

# --- a customer across shops
name=$(sqlite3 "$TMP/shop2.db" "SELECT name FROM customer ORDER BY id LIMIT 1")
out=$(fd --json hq customer find "$name" --pg "$PGURL")
is "hq customer find: found at each shop that knows the name" "$(echo "$out" | jget '",".join(sorted(set(c["shop"] for c in d["customers"])))')" "S1,S2,S3"
owes=$(sqlite3 "$TMP/shop2.db" "SELECT group_concat(currency || ' ' || b, ',') FROM (SELECT currency, sum(balance) AS b FROM invoice WHERE customer_id = 1 AND status IN ('issued', 'partially_paid', 'overpaid') GROUP BY currency HAVING b <> 0 ORDER BY currency)")
is "with what they owe in each shop" "$(echo "$out" | jget '[c["owes"] for c in d["customers"] if c["shop"] == "S2" and c["customer_id"] == 1][0]')" "$owes"
is "a % is looked for as itself" "$(fd --json hq customer find "%" --pg "$PGURL" | jget 'len(d["customers"])')" 0

# --- a purge at the shop: the head office forgets too, then confirms
at() { t=$1; shift; FRONTDESK_NOW=$t fd "$@"; }
at 2022-01-05T09:00 customer add --name "Zed Zebulon" --email zed.zz@example.com --phone 555-0999 --address "9 Zulu Road" --note "zednote" >/dev/null
zed=$(q "SELECT id FROM customer WHERE name = 'Zed Zebulon'")
at 2022-01-05T09:00 service add --name "Zulu wash" --price 40 --minutes 60 >/dev/null
at 2022-01-05T09:00 book --customer "$zed" --start "2022-01-06 10:00" --services "Zulu wash" --location "Zulu yard" >/dev/null
zv=$(q "SELECT max(id) FROM appointment")
at 2022-01-06T10:00 visit status "$zv" in_progress >/dev/null
at 2022-01-06T12:00 visit status "$zv" done >/dev/null
zj=$(q "SELECT service_order_id FROM appointment_work WHERE appointment_id = $zv")
at 2022-01-06T12:00 job status "$zj" done >/dev/null
at 2022-01-06T12:00 invoice issue --jobs "$zj" >/dev/null
at 2022-01-06T12:00 pay record --customer "$zed" --amount 40 --method check --reference "chk-zz-77" --auto --yes >/dev/null
fd hq sync --once >/dev/null
zz() { "$PGBIN/pg_dump" -d "$PGURL" --data-only | grep -c 'Zebulon\|zed.zz\|555-0999\|Zulu yard\|9 Zulu\|zednote\|chk-zz-77'; }
ok "the customer's data is at the head office" test "$(zz)" -gt 0
ok "the customer is proposed for deletion" fd retention propose --customer "$zed"
at 2029-01-05T09:00 retention run >/dev/null
is "and purged at the shop" "$(q "SELECT count(*) FROM retention_purged WHERE customer_id = $zed")" 1
like "the certificate does not name the head office before it confirmed" "$(fd retention certs)" "not confirmed yet"
at 2029-01-05T09:00 hq sync --once >/dev/null
is "the head office holds no byte of the purged customer's data" "$(zz)" 0
is "the certificate names the head office once it confirmed" "$(fd --json retention certs | jget 'd["certificates"][0]["head_office"]["shop"]')" S1

# --- a head office whose schema is older than the shop's program: the
# batches wait (never given up) until hq init brings it up to date
pg_sql "DELETE FROM hq_migration WHERE version = 2" >/dev/null
pg_sql "ALTER TABLE hq_record DROP CONSTRAINT hq_record_tbl_check; ALTER TABLE hq_record ADD CONSTRAINT hq_record_tbl_check CHECK (tbl IN ('customer', 'service_order', 'appointment', 'appointment_work', 'line_item', 'invoice', 'invoice_line', 'payment', 'payment_allocation', 'refund', 'pay_order', 'reconciliation_diff')) NOT VALID" >/dev/null
fd resource add --name "Tess" --kind technician >/dev/null
out=$(fd --json hq sync --once)
is "an older head office: the batch is to try again" "$(echo "$out" | jget 'd["failed"], d["dead"]')" "(1, 0)"
like "... saying why" "$(q "SELECT last_error FROM outbox_event WHERE integration_type = 'hq' ORDER BY id DESC LIMIT 1")" "hq init"
refused "its reports wait for hq init too" hq report aging --pg "$PGURL"
is "hq init brings it up to date" "$(fd --json hq init --pg "$PGURL" | jget 'd["applied"]')" 1
ok "the batch goes on the backoff" until_ok 60 caught_up
is "the new technician is at the head office" "$(pg_sql "SELECT data->>'name' FROM hq_record WHERE shop = 'S1' AND tbl = 'resource' ORDER BY id DESC LIMIT 1")" Tess

out=$(fd --json hq status --pg "$PGURL")
is "hq status lists the three shops" "$(echo "$out" | jget '",".join(s["shop"] for s in d["shops"])')" "S1,S2,S3"
is "with what each sent" "$(echo "$out" | jget 'd["shops"][0]["records"]')" "$(pg_sql "SELECT count(*) FROM hq_record WHERE shop = 'S1'")"

# --- a backlog that outlasts the sender's lease: it is renewed after each
# round (a round queues at most 20 batches of 500 rows), so the sender keeps
# it and sends everything. 70,000 customers (140 batches, 7 rounds), the
# head office slowed to 30 ms a batch, a lease of 4 s: about 7 s in all,
# a round well within the lease. The customers are written through the
# history triggers (python's sqlite3 with the two functions they call).
S4="$TMP/shop4.db"
FRONTDESK_DB="$S4" fd init >/dev/null
python3 - "$S4" <<'EOF'
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1])
c.create_function("fd_operator", 0, lambda: "bulk")
c.create_function("fd_now", 0, lambda: int(time.time()))
now = int(time.time())
c.executemany("INSERT INTO customer (name, created_at, updated_at) VALUES (?, ?, ?)",
              (("Bulk %d" % i, now, now) for i in range(70000)))
c.commit()
EOF
FRONTDESK_DB="$S4" fd hq join --pg "$PGURL" --shop S4 >/dev/null
pg_sql "CREATE FUNCTION slow_batch() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN PERFORM pg_sleep(0.03); RETURN NEW; END \$\$; CREATE TRIGGER slow_batch BEFORE INSERT ON hq_batch FOR EACH ROW EXECUTE FUNCTION slow_batch()" >/dev/null
t0=$(date +%s)
out=$(FRONTDESK_DB="$S4" fd --json hq sync --once --lease-seconds 4 2>&1)
took=$(( $(date +%s) - t0 ))
echo "# 70,000 customers sent in ${took}s with a lease of 4 s"
is "a backlog longer than the lease: every batch sent, none failed" "$(echo "$out" | jget 'd["sent"], d["failed"], d["dead"]')" "(140, 0, 0)"
is "every customer is at the head office" "$(pg_sql "SELECT count(*) FROM hq_record WHERE shop = 'S4' AND tbl = 'customer'")" 70000
ok "it took longer than the lease (so the lease was renewed)" test "$took" -gt 4

# --- --once while the desk keeps taking payments: it sends what is due and
# stops (the head office still 30 ms a batch, longer than the desk's pace);
# the desk's new changes go with the next round. The desk takes up to 300
# payments, and stops early once the test has seen --once end.
stop="$TMP/stop-paying"
(i=0; while [ $i -lt 300 ] && [ ! -e "$stop" ]; do FRONTDESK_DB="$S4" fd pay record --customer 1 --amount 1 --method cash >/dev/null 2>&1; i=$((i + 1)); done) &
payer=$!
until [ "$(sqlite3 "$S4" "SELECT count(*) FROM payment")" -gt 2 ]; do sleep 0.1; done
FRONTDESK_DB="$S4" fd hq sync --once >/dev/null
ok "hq sync --once ended while the desk was still taking payments" kill -0 "$payer"
at_hq=$(pg_sql "SELECT count(*) FROM hq_record WHERE shop = 'S4' AND tbl = 'payment'")
: >"$stop"
wait "$payer"
taken=$(sqlite3 "$S4" "SELECT count(*) FROM payment")
ok "payments were taken after that round ($at_hq at the head office, $taken at the shop)" test "$at_hq" -lt "$taken"
FRONTDESK_DB="$S4" fd hq sync --once >/dev/null
is "the next round sends the payments made meanwhile" "$(pg_sql "SELECT count(*) FROM hq_record WHERE shop = 'S4' AND tbl = 'payment'")" "$taken"
pg_sql "DROP TRIGGER slow_batch ON hq_batch; DROP FUNCTION slow_batch()" >/dev/null

done_testing
