#!/bin/sh
# retention.sh - customer data retention end to end on the command line:
# a customer inactive for the period with nothing open is proposed,
# prepared, soft-deleted (gone from lists) and purged, after which no byte
# of the marker strings stored in their name, notes, line item, payment,
# contact log and a stored raw channel payload remains in the database
# file, its WAL or the request log; `check` and the receivables report
# give the same totals before and after. A payment during the retention
# period restores the customer and a purge of the old generation then does
# nothing; a contact during that period restores them too and the next run
# does not propose them again; a customer with a balance or an open visit is never proposed;
# one that gains a balance between proposal and purge is not purged; a
# hold blocks; a process SIGKILLed after any step ends fully active, fully
# soft-deleted or fully purged after the next run.
. "$TOP_SRCDIR/tests/lib/tap.sh"
db() { sqlite3 "$FRONTDESK_DB" "$1"; }
jq_() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
unlike() {
	case "$2" in
	*"$3"*) fail "$1" "got: $2" "expected not to contain: $3" ;;
	*) pass "$1" ;;
	esac
}
# utc T: the UTC seconds T as the JSON times are written
utc() { python3 -c "import sys,time; print(time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(int(sys.argv[1]))))" "$1"; }
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'stripe_signing_secret = whsec_made_up_0001\nsite_signing_secret = whsec_made_up_site\nsign1_api_key = esk_made_up\nsign1_signing_secret = whsec_made_up_esign\n' > "$XDG_CONFIG_HOME/frontdesk/secrets")

# setup: one customer with everything, paid up, last seen on OLD
setup() {
	fd init >/dev/null
	export FRONTDESK_NOW="2022-03-10 08:00"
	fd customer add --name "Zed MRKNAME" --phone 5550199 --email zed@mrkmail.example \
		--address "9 MRKADDR Road" --note "MRKNOTE likes wax" >/dev/null
	fd customer add --name "Amy Busy" >/dev/null
	fd customer add --name "Bea Owes" >/dev/null
	fd book --customer 1 --start "2022-03-10 09:00" --length 1:00 >/dev/null
	fd item add --job 1 --description "Wax MRKITEM" --price 50.00 >/dev/null
	fd visit status 1 in_progress >/dev/null
	fd visit status 1 done >/dev/null
	fd invoice issue --jobs 1 --note "MRKINVNOTE" >/dev/null
	fd pay record --customer 1 --amount 50.00 --method check --reference MRKREF 1=50.00 >/dev/null
	fd contact add --customer 1 --channel phone --direction in --summary "MRKCONTACT called" >/dev/null
	# a condition report of the visit: its note, a photo's caption and file
	# name, a hotspot's text (edited, so that its history holds it twice)
	fd condition add --visit 1 --note "MRKCONDNOTE dent" >/dev/null
	python3 -c "
import struct, sys, zlib
def ch(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
raw = b''.join(b'\x00' + bytes([90, 90, 200] * 8) for _ in range(6))
open(sys.argv[1], 'wb').write(b'\x89PNG\r\n\x1a\n' + ch(b'IHDR', struct.pack('>IIBBBBB', 8, 6, 8, 2, 0, 0, 0))
    + ch(b'IDAT', zlib.compress(raw)) + ch(b'IEND', b''))" "$TMP/MRKFILE.png"
	fd condition media add 1 "$TMP/MRKFILE.png" --caption "MRKCAPTION left door" >/dev/null
	fd condition hotspot add --media 1 --kind damage --text "MRKHOTSPOT scratch" --at 0.5,0.5 >/dev/null
	fd condition hotspot edit 1 --text "MRKHOTSPOT long scratch" >/dev/null
	# an estimate sent for signature and cancelled: its PDF and the outbox
	# command name the customer
	fd estimate provider-set sign1 --url http://127.0.0.1:9 >/dev/null
	fd estimate send 1 >/dev/null
	fd estimate cancel EST-2022-000001 --reason "MRKESTREASON" >/dev/null
	# a raw channel payload naming the customer (a bad signature: stored, rejected)
	printf '%s' '{"id":"evt_mrk_1","object":"event","type":"payment_intent.succeeded","data":{"object":{"receipt_email":"zed@mrkmail.example","metadata":{"note":"MRKPAYLOAD"}}}}' |
		fd inbox ingest --source stripe --signature "t=1646900000,v1=00" >/dev/null 2>&1
	# Bea owes since 2022 (visit 2, job 2)
	fd book --customer 3 --start "2022-03-11 09:00" --length 1:00 >/dev/null
	fd item add --job 2 --description "Polish" --price 30.00 >/dev/null
	fd visit status 2 in_progress >/dev/null
	fd visit status 2 done >/dev/null
	fd invoice issue --jobs 2 >/dev/null
	fd pay record --customer 3 --amount 10.00 --method cash 2=10.00 >/dev/null
	# Amy keeps coming (visit 3)
	export FRONTDESK_NOW="2026-11-20 08:00"
	fd book --customer 2 --start "2026-11-20 09:00" --length 1:00 >/dev/null
	fd visit status 3 in_progress >/dev/null
	fd visit status 3 done >/dev/null
}
markers="MRKNAME mrkmail MRKADDR MRKNOTE MRKITEM MRKINVNOTE MRKREF MRKCONTACT MRKPAYLOAD MRKESTREASON MRKCONDNOTE MRKFILE MRKCAPTION MRKHOTSPOT"
count_markers() {
	n=0
	for m in $markers; do
		for f in "$FRONTDESK_DB" "$FRONTDESK_DB-wal" "$FRONTDESK_DB-journal"; do
			[ -f "$f" ] && grep -a -q "$m" "$f" && n=$((n + 1)) && echo "# $m in $f" >&2
		done
	done
	echo $n
}

setup
is "the payload is stored raw, naming the customer" \
	"$(db "SELECT count(*) FROM inbound_callback WHERE instr(payload, 'MRKPAYLOAD') > 0")" 1
is "every marker is in the file before" "$(fd check >/dev/null; db "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null; count_markers 2>/dev/null)" "$(set -- $markers; echo $#)"
pdf=$(db "SELECT pdf_path FROM estimate")
is "the condition report's photo is kept beside the database" \
	"$(ls "$(dirname "$FRONTDESK_DB")/media" | wc -l)" 1
ok "the estimate's PDF is beside the database" test -f "$(dirname "$FRONTDESK_DB")/esign/$pdf"
# the request log (its own file): a call that named the customer, one that did not
log=${FRONTDESK_DB%.db}-requests.db
sqlite3 "$log" "PRAGMA journal_mode=WAL;
CREATE TABLE IF NOT EXISTS request_log (id INTEGER PRIMARY KEY, logged_at INTEGER NOT NULL,
 channel_time INTEGER, provider TEXT NOT NULL, level TEXT NOT NULL, keyword TEXT NOT NULL,
 host TEXT NOT NULL, pid INTEGER NOT NULL, method TEXT NOT NULL, url TEXT NOT NULL,
 status INTEGER NOT NULL, latency_ms INTEGER NOT NULL, request_id TEXT, request_excerpt TEXT,
 response_excerpt TEXT, error TEXT);
INSERT INTO request_log VALUES (1, 1, NULL, 'stripe', 'info', 'create_payment', 'h', 1, 'POST',
 'https://api.example/v1/payment_intents', 200, 5, 'req_1',
 'metadata[customer]=zed@mrkmail.example', '{\"note\":\"MRKLOGRESP\"}', NULL);
INSERT INTO request_log VALUES (2, 1, NULL, 'stripe', 'info', 'poll', 'h', 1, 'GET',
 'https://api.example/v1/events', 200, 5, 'req_2', NULL, '{\"data\":[]}', NULL);" >/dev/null
# the prints the screen keeps by default (<database folder>/prints/)
prints=$(dirname "$FRONTDESK_DB")/prints
mkdir -p "$prints"
inv=$(db "SELECT number FROM invoice WHERE customer_id = 1")
pay=$(db "SELECT id FROM payment WHERE customer_id = 1")
fd invoice print "$inv" --output "$prints/$inv.txt" >/dev/null
fd invoice print "$inv" --format pdf --output "$prints/$inv.pdf" >/dev/null
fd pay print "$pay" --output "$prints/receipt-$pay.txt" >/dev/null
fd invoice print "$(db "SELECT number FROM invoice WHERE customer_id = 3")" --output "$prints/bea.txt" >/dev/null
like "the printed invoice names the customer" "$(cat "$prints/$inv.txt")" "MRKNAME"

# the projection
export FRONTDESK_NOW="2026-12-01 09:00"
ok "the lifecycle tasks run" fd tasks run --once --quiet
l=$(fd --json retention lifecycle --customer 1)
is "lifecycle: last activity is the visit's start (the payment was received before it)" \
	"$(echo "$l" | jq_ 'd["last_activity_at"]')" "$(utc "$(db "SELECT start_at FROM appointment WHERE id = 1")")"
is "lifecycle: nothing open" "$(echo "$l" | jq_ 'd["open_appointments"], d["owing_invoices"], d["open_credits"], d["state"]')" "0 0 0 active"
ok "check is clean with the projection" fd check
# check compares every row with its records
db "UPDATE customer_lifecycle SET open_appointments = 4 WHERE customer_id = 3"
out=$(fd check 2>&1)
like "check finds a lifecycle row that differs from its records" "$out" "lifecycle-stale"
like "... and names the column" "$out" "customer 3 differs from its records (open_appointments)"
db "DELETE FROM customer_lifecycle WHERE customer_id = 3"
like "... and a missing row that no task will build" "$(fd check 2>&1)" "customer 3 has no lifecycle row and no task to build it"
ok "retention rebuild mends both" fd retention rebuild
ok "check is clean again" fd check
like "the receivables report has Bea's 20.00 in it" "$(fd report aging --on 2026-12-01)" "20.00"

# totals before
before_check=$(fd check 2>&1)
before_aging=$(fd --json report aging --on 2026-12-01 | jq_ 'json.dumps(d, sort_keys=True)')
before_takings=$(fd --json report takings --from 2022-01-01 --to 2026-12-31 | jq_ 'json.dumps(d, sort_keys=True)')

out=$(fd retention run --dry-run)
like "dry run: Zed would be proposed" "$out" "Zed MRKNAME"
unlike "dry run: Amy (a visit 11 days ago) is not" "$out" "Amy"
is "dry run writes nothing" "$(db "SELECT count(*) FROM retention_process")" 0

ok "a run proposes and soft-deletes" fd retention run
d=$(fd --json retention list | jq_ 'd["deletions"][0]["deletion_id"]')
g=$(fd --json retention list | jq_ 'd["deletions"][0]["generation"]')
is "soft-deleted, generation 1" "$(fd --json retention show "$d" | jq_ 'd["state"], d["generation"]')" "soft_deleted 1"
is "every module confirmed" "$(fd --json retention show "$d" | jq_ 'd["modules"]')" \
	"billing,bookings,channel,conditions,contacts,customer,estimates,messages,recurring,work"
unlike "gone from the customer list" "$(fd customer list)" "Zed"
like "Amy is still listed" "$(fd customer list)" "Amy"
out=$(fd retention purge "$d" --generation "$g")
like "... too early: nothing purged" "$out" "not due"
is "... still soft-deleted" "$(fd --json retention show "$d" | jq_ 'd["state"]')" soft_deleted

# after the period
export FRONTDESK_NOW="2027-01-05 09:00"
ok "a run after the period purges" fd retention run
is "purged" "$(fd --json retention show "$d" | jq_ 'd["state"], d["customer_id"]')" "purged None"
is "a certificate: the hash of the customer reference, the modules" \
	"$(fd --json retention certs | jq_ 'd["certificates"][0]["customer_hash"], d["certificates"][0]["modules"]')" \
	"$(printf '%s' "$d:customer:1" | sha256sum | cut -d' ' -f1) work,billing,channel,contacts,bookings,estimates,recurring,messages,conditions,customer"
is "no marker byte is left in the database file or its WAL" "$(count_markers)" 0
is "the WAL is empty" "$(stat -c %s "$FRONTDESK_DB-wal" 2>/dev/null || echo 0)" 0
ok "the estimate's PDF is removed" test ! -e "$(dirname "$FRONTDESK_DB")/esign/$pdf"
is "the condition report's photo is removed" "$(ls "$(dirname "$FRONTDESK_DB")/media" | wc -l)" 0
is "... its medium keeps its hash and size" \
	"$(db "SELECT length(sha256), size > 0, local_path IS NULL FROM media_item")" "64|1|1"
is "... its hotspot keeps its number and place" \
	"$(db "SELECT number, x, y, label FROM hotspot")" "1|0.5|0.5|(removed)"
is "the request log: the call naming the customer is blanked, the other kept" \
	"$(sqlite3 "$log" "SELECT id, url FROM request_log ORDER BY id" | tr '\n' ' ')" \
	"1|(removed) 2|https://api.example/v1/events "
is "... and no byte of it is left in the log's file or WAL" \
	"$(cat "$log" "$log-wal" 2>/dev/null | grep -a -c -e mrkmail -e MRKLOGRESP)" 0
is "the invoice and receipt prints are removed; another customer's stays" \
	"$(ls "$prints" | tr '\n' ' ')" "bea.txt "
is "the estimate keeps its number, total and hash; its lines go" \
	"$(db "SELECT number, total, length(pdf_sha256), lines FROM estimate")" "EST-2022-000001|5000|64|[]"
is "the stored payload is a stub" "$(db "SELECT payload FROM inbound_callback")" \
	"{\"removed\":\"retention\",\"deletion_id\":\"$d\"}"
is "the financial rows stay" "$(db "SELECT count(*), sum(amount) FROM payment WHERE customer_id = 1")" "1|5000"
is "check: same result" "$(fd check 2>&1)" "$before_check"
is "aging: same totals" "$(fd --json report aging --on 2026-12-01 | jq_ 'json.dumps(d, sort_keys=True)')" "$before_aging"
is "takings: same totals" "$(fd --json report takings --from 2022-01-01 --to 2026-12-31 | jq_ 'json.dumps(d, sort_keys=True)')" "$before_takings"
is "the process keeps no customer id" "$(db "SELECT count(*) FROM retention_process WHERE customer_id IS NOT NULL")" 0
out=$(fd retention purge "$d" --generation "$g")
like "a second purge does nothing" "$out" "Nothing purged"
refused "a bad deletion id" retention purge nothex --generation 1

# ---------------------------------------------------------------- restore on activity
rm -f "$FRONTDESK_DB"*
setup
export FRONTDESK_NOW="2026-12-01 09:00"
fd retention run >/dev/null
d=$(fd --json retention list | jq_ 'd["deletions"][0]["deletion_id"]')
export FRONTDESK_NOW="2026-12-05 09:00"
ok "a payment during the retention period" fd pay record --customer 1 --amount 5.00 --method cash
ok "the lifecycle task runs" fd tasks run --once --quiet
is "the deletion is cancelled, generation 2" "$(fd --json retention show "$d" | jq_ 'd["state"], d["generation"]')" "cancelled 2"
like "... the reason names the payment" "$(fd --json retention show "$d" | jq_ 'd["reason"]')" "payment"
like "the customer is back in the list" "$(fd customer list)" "Zed MRKNAME"
is "every module restored together" "$(db "SELECT group_concat(DISTINCT state) FROM retention_mark WHERE deletion_id = '$d'")" restored
export FRONTDESK_NOW="2027-01-05 09:00"
out=$(fd retention purge "$d" --generation 1)
like "a purge of the old generation does nothing" "$out" "generation 1"
like "... the name is still there" "$(fd customer show 1)" "MRKNAME"
is "the customer has credit now: never proposed" "$(fd retention run --dry-run | grep -c Zed)" 0

# a contact during the retention period cancels the deletion, and is
# activity from then on (contacts are not a retention_activity kind by
# default): the next run does not propose the customer again
rm -f "$FRONTDESK_DB"*
setup
export FRONTDESK_NOW="2026-12-01 09:00"
fd retention run >/dev/null
d=$(fd --json retention list | jq_ '[x for x in d["deletions"] if x["customer_id"] == 1][0]["deletion_id"]')
export FRONTDESK_NOW="2026-12-05 09:00"
ok "a contact during the retention period" fd contact add --customer 1 --channel phone --direction in --summary "asks to stay"
fd tasks run --once --quiet
is "... cancels the deletion" "$(fd --json retention show "$d" | jq_ 'd["state"], d["reason"]')" "cancelled new activity: contact"
is "the lifecycle's last activity is when the contact cancelled it" \
	"$(fd --json retention lifecycle --customer 1 | jq_ 'd["last_activity_at"]')" \
	"$(utc "$(db "SELECT max(at) FROM retention_activity WHERE customer_id = 1")")"
export FRONTDESK_NOW="2026-12-06 09:00"
unlike "the next dry run does not propose Zed" "$(fd retention run --dry-run)" "Zed"
unlike "... nor the next run" "$(fd retention run)" "Zed"
is "... no second deletion" "$(db "SELECT count(*) FROM retention_process WHERE customer_id = 1")" 1
ok "check is clean" fd check
# once that contact is older than the period, Zed is proposed again
export FRONTDESK_NOW="$(date -d "@$(($(db "SELECT max(at) FROM retention_activity WHERE customer_id = 1") + 1130 * 86400))" '+%Y-%m-%d 09:00')"
like "the period after the contact: proposed again" "$(fd retention run)" "soft-delete      1  Zed"

# ---------------------------------------------------------------- blockers
rm -f "$FRONTDESK_DB"*
setup
export FRONTDESK_NOW="2022-03-11 08:00"
fd book --customer 1 --start "2022-04-01 09:00" --length 1:00 >/dev/null # visit 4, still open
export FRONTDESK_NOW="2026-12-01 09:00"
out=$(fd retention run)
unlike "an open visit (scheduled in 2022, never done): not proposed" "$out" "Zed"
unlike "a balance: not proposed" "$out" "Bea"
is "neither has a deletion" "$(db "SELECT count(*) FROM retention_process WHERE customer_id IN (1, 3)")" 0
ok "the open visit is cancelled" fd visit status 4 cancelled
out=$(fd retention run)
like "now Zed is proposed and soft-deleted" "$out" "soft-delete      1  Zed"
d=$(fd --json retention list | jq_ '[x for x in d["deletions"] if x["customer_id"] == 1][0]["deletion_id"]')
# a balance appears between proposal and purge: a fee billed on the old job
fd item add --job 1 --description "Late fee" --price 10.00 >/dev/null
fd invoice issue --jobs 1 >/dev/null
export FRONTDESK_NOW="2027-01-05 09:00"
fd retention run >/dev/null
is "gained a balance: not purged, cancelled" "$(fd --json retention show "$d" | jq_ 'd["state"]')" cancelled
like "... still has a name" "$(fd customer show 1)" "MRKNAME"
is "Bea was never proposed" "$(db "SELECT count(*) FROM retention_process WHERE customer_id = 3")" 0

# a balance no trigger reports: the allocation is reversed while soft-deleted
rm -f "$FRONTDESK_DB"*
setup
export FRONTDESK_NOW="2026-12-01 09:00"
fd retention run >/dev/null
d=$(fd --json retention list | jq_ '[x for x in d["deletions"] if x["customer_id"] == 1][0]["deletion_id"]')
a=$(db "SELECT a.id FROM payment_allocation a JOIN payment p ON p.id = a.payment_id WHERE p.customer_id = 1")
ok "the allocation is reversed: the invoice owes again" fd pay reverse "$a" --reason "bounced"
export FRONTDESK_NOW="2027-01-05 09:00"
out=$(fd retention run)
like "the purge's own check finds the balance" "$out" "has a balance"
is "... not purged, cancelled" "$(fd --json retention show "$d" | jq_ 'd["state"]')" cancelled
like "... still has a name" "$(fd customer show 1)" "MRKNAME"

# the daily pass of `serve` (retention_auto_hour)
rm -f "$FRONTDESK_DB"*
setup
printf 'retention_auto_hour = 0\n' > "$XDG_CONFIG_HOME/frontdesk/config"
export FRONTDESK_NOW="2026-12-01 09:00"
"$FRONTDESK" serve --for 60 >"$TMP/serve.log" 2>&1 &
serve=$!
soft() { [ "$(db "SELECT state FROM retention_process WHERE customer_id = 1")" = soft_deleted ]; }
if until_ok 50 soft; then pass "serve's daily pass soft-deleted Zed"; else fail "serve's daily pass" "$(cat "$TMP/serve.log")"; fi
kill "$serve" 2>/dev/null
wait "$serve" 2>/dev/null
is "... once: the stamp says today" "$(db "SELECT count(*) FROM control WHERE name = 'retention-last'")" 1
rm -f "$XDG_CONFIG_HOME/frontdesk/config"

# a hold cancels; released, the next run proposes again (generation 2); the
# purge leaves the earlier deletion without customer id or reason; a held
# customer shows in the dry run with the hold as the reason
rm -f "$FRONTDESK_DB"*
setup
export FRONTDESK_NOW="2026-12-01 09:00"
fd retention run >/dev/null
d1=$(fd --json retention list | jq_ '[x for x in d["deletions"] if x["customer_id"] == 1][0]["deletion_id"]')
ok "a hold while soft-deleted" fd retention hold --customer 1 --reason "MRKHOLD dispute"
is "... cancels the deletion, with the reason" "$(fd --json retention show "$d1" | jq_ 'd["state"], d["reason"]')" "cancelled held"
like "... the dry run names the hold" "$(fd retention run --dry-run)" "held: MRKHOLD dispute"
ok "release" fd retention release --customer 1
out=$(fd retention run)
like "proposed again" "$out" "soft-delete      1  Zed"
g2=$(fd --json retention list | jq_ '[x for x in d["deletions"] if x["customer_id"] == 1][0]["generation"]')
is "... as generation 3 (the cancellation raised the first one to 2)" "$g2" 3
export FRONTDESK_NOW="2027-01-05 09:00"
fd retention run >/dev/null
is "purged at generation 3" "$(db "SELECT generation FROM retention_certificate")" 3
is "the earlier deletion keeps no customer id and no reason" \
	"$(db "SELECT coalesce(customer_id, 'none'), coalesce(reason, 'none') FROM retention_process WHERE deletion_id = '$d1'")" "none|none"
markers="$markers MRKHOLD"
is "the hold's reason is gone too" "$(count_markers)" 0
markers=${markers% MRKHOLD}

# an online booking from a soft-deleted customer (same phone) is theirs, and restores them
rm -f "$FRONTDESK_DB"*
setup
fd resource add --name Ann --kind technician >/dev/null
fd resource hours Ann --days all --spans 08:00-12:00 >/dev/null
fd service add --name "Oil change" --price 80 --minutes 60 >/dev/null
fd booking-channel provider-set site --url http://127.0.0.1:9 >/dev/null
export FRONTDESK_NOW="2026-12-01 09:00"
fd retention run >/dev/null
d=$(fd --json retention list | jq_ '[x for x in d["deletions"] if x["customer_id"] == 1][0]["deletion_id"]')
start=$(date -d "2026-12-02 09:00" +%s)
body=$(printf '{"id":"evt_r1","type":"booking.requested","created":1,"request":{"id":"R1","start":%s,"end":%s,"service":"Oil change","resource":"Ann","customer":{"name":"Zed Online","phone":"555-0199","email":"other@example.com"}}}' "$start" $((start + 3600)))
t=$(date +%s)
mac=$(printf '%s.%s' "$t" "$body" | openssl dgst -sha256 -hmac whsec_made_up_site | sed 's/.*= //')
printf '%s' "$body" | fd booking-channel ingest --provider site --signature "t=$t,v1=$mac" >/dev/null
ok "the request is processed" fd booking-channel process --once
is "the visit is the soft-deleted customer's" \
	"$(db "SELECT s.customer_id FROM booking_request r JOIN appointment_work w ON w.appointment_id = r.appointment_id JOIN service_order s ON s.id = w.service_order_id")" 1
is "no new customer" "$(db "SELECT count(*) FROM customer")" 3
fd tasks run --once --quiet
is "the booking restored them" "$(fd --json retention show "$d" | jq_ 'd["state"]')" cancelled

# a customer with a lifecycle row can still be deleted; one with a hold cannot
fd customer add --name "Gone Soon" >/dev/null
gone=$(db "SELECT id FROM customer WHERE name = 'Gone Soon'")
fd tasks run --once --quiet
is "the new customer has a lifecycle row" "$(db "SELECT count(*) FROM customer_lifecycle WHERE customer_id = $gone")" 1
ok "... and is deleted with it" fd customer delete "$gone"
is "... the row is gone too" "$(db "SELECT count(*) FROM customer_lifecycle WHERE customer_id = $gone")" 0

# holds
ok "hold a customer" fd retention hold --customer 2 --reason "dispute 42"
refused "a second hold" retention hold --customer 2 --reason again
refused "a hold without a reason" retention hold --customer 1 --reason ""
like "the hold shows" "$(fd retention lifecycle --customer 2)" "dispute 42"
fd customer add --name "Hal Held" >/dev/null
hal=$(db "SELECT id FROM customer WHERE name = 'Hal Held'")
fd retention hold --customer "$hal" --reason "audit" >/dev/null
refused "a held customer cannot be deleted" customer delete "$hal"
like "... the message says why" "$(cat "$TMP/err")" "data retention record"
ok "release" fd retention release --customer 2
refused "release twice" retention release --customer 2
refused "a hold on a customer that does not exist" retention hold --customer 99 --reason x
refused "a hold reason with a control character" retention hold --customer 2 --reason "$(printf 'a\033[2Jb')"
refused "restore a customer with no deletion" retention restore --customer 2
refused "propose a customer seen last month" retention propose --customer 2
refused "show a deletion that does not exist" retention show 0123456789abcdef0123456789abcdef
refused "purge a deletion that does not exist" retention purge 0123456789abcdef0123456789abcdef --generation 1
fd retention purge 0123456789abcdef0123456789abcdef >/dev/null 2>&1
is "a purge without a generation is bad usage (exit 2)" "$?" 2
done_testing
