#!/bin/sh
# cli-history.sh - `frontdesk history KIND ID`: any record's timeline from its
# history rows and status flow, oldest first, with who did it and only the
# fields that changed (old -> new); deleted records keep theirs; --json gives
# the same events; bad kinds and ids are refused.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null
q() { sqlite3 "$FRONTDESK_DB" "$1"; }
json() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
me=$(fd customer add --name "Ada Lee" --phone 555-0142 >/dev/null; q "SELECT operator_id FROM customer_his ORDER BY his_id DESC LIMIT 1")

# who changed this phone number, and this price? Another Unix user when
# the test can make one (the identity is the real user id), else the same
other_fd() { fd "$@"; }
by_other=$me
if [ "$(id -u)" -eq 0 ] && command -v useradd >/dev/null; then
	. "$TOP_SRCDIR/tests/lib/accounts.sh"
	account other hist
	fd staff add "$other" --name "Other Manager" --role manager >/dev/null
	share_db
	other_fd() { as "$other" "$@"; }
	by_other="Other Manager ($other)"
fi
other_fd customer edit 1 --phone 555-0199 >/dev/null
out=$(fd history customer 1)
like "creation first, with what it was created with" "$(printf '%s\n' "$out" | head -n 3)" "created by $me"
like "... its fields" "$out" "    phone: 555-0142"
like "the change shows old -> new and who made it" "$out" "changed by $by_other
    phone: 555-0142 -> 555-0199"
is "only the field that changed is listed" "$(printf '%s\n' "$out" | sed -n '/changed by/,$p' | grep -c '^    ')" 1

fd job add --customer 1 --title "Full detail" --currency USD >/dev/null
fd item add --job 1 --description "Full detail" --price 180 >/dev/null
fd item add --job 1 --description "Wax" --price 20 >/dev/null
other_fd item edit 1 --price 195.50 >/dev/null
like "a price change in the job's currency" "$(fd history item 1)" "unit_price: 180.00 USD -> 195.50 USD"
fd item delete 2 >/dev/null
like "a deleted item keeps its history" "$(fd history item 2)" "deleted by $me"

# an invoice: its changes and its status moves in the order they were made,
# named by number or id, with the reason of a void
fd invoice issue --jobs 1 >/dev/null
fd pay record --customer 1 --amount 100 --method cash INV-2026-000001=100 >/dev/null
fd pay reverse 1 --reason "wrong invoice" >/dev/null
fd invoice void INV-2026-000001 --reason "issued by mistake" >/dev/null
out=$(fd history invoice INV-2026-000001)
is "by number and by id alike" "$out" "$(fd history invoice 1)"
like "the status flow is merged in, with its reason" "$out" "status issued -> partially_paid"
like "... and the void's reason" "$out" "(issued by mistake)"
order=$(printf '%s\n' "$out" | sed -n 's/^[0-9-]* [0-9:]*  \(status [a-z_-]* -> [a-z_]*\).*/\1/p' | tr '\n' ',')
is "status moves oldest first" "$order" "status - -> draft,status draft -> issued,status issued -> partially_paid,status partially_paid -> issued,status issued -> void,"
# the same number of events as the tables hold (history rows that changed
# more than the status, and every status flow row)
n=$(fd --json history invoice 1 | json "len(d['events'])")
flows=$(q "SELECT count(*) FROM status_flow WHERE entity = 'invoice' AND entity_id = 1")
ok "JSON lists every status flow row ($flows) and the history rows ($n events)" [ "$n" -gt "$flows" ]
out=$(fd --json history invoice 1 | json "' '.join([e['what'] for e in d['events']][:2] + [[e['to'] for e in d['events'] if e['what'] == 'status'][-1]])")
is "JSON: created first, then draft; the last move is to void" "$out" "created status void"
out=$(fd --json history payment 1 | json "[c['new'] for e in d['events'] for c in e.get('changes', []) if c['field'] == 'allocated']")
is "a payment's allocated amount as it moved" "$out" "['0.00 USD', '100.00 USD', '0.00 USD']"
like "an allocation's reversal" "$(fd history allocation 2)" "reason: wrong invoice"
fd visit add --start "2026-12-02 09:00" --end "2026-12-02 10:00" >/dev/null
fd link add --appt 1 --job 1 --minutes 60 >/dev/null
fd visit status 1 confirmed >/dev/null
like "a visit's status move" "$(fd history visit 1)" "status scheduled -> confirmed"
like "a visit's timeline holds its links" "$(fd history visit 1)" "link 1: created by $me"
ok "visit and appt are one kind" fd history appt 1
plan=$(q "EXPLAIN QUERY PLAN SELECT * FROM appointment_work_his WHERE id IN (SELECT DISTINCT id FROM appointment_work_his WHERE appointment_id = 1) ORDER BY his_id")
like "a visit's links are found by an index, not a scan of every link's history" "$plan" "USING INDEX appointment_work_his_by_appt"

# refusals
fd history planet 1 >/dev/null 2>"$TMP/err"; is "an unknown kind is bad usage" "$?" 2
like "... and the message lists the kinds" "$(cat "$TMP/err")" "contact, estimate or approval"
fd service add --name "Full detail" --kind SERVICE --price 180 >/dev/null
other_fd service edit 1 --price 185 >/dev/null
like "a catalogue price change, and who made it" "$(fd history service 1)" "price: 180.00 USD -> 185.00 USD"
fd contact add --customer 1 --channel phone --direction in --summary "asked about the tint" >/dev/null
like "a contact's one entry, with its summary" "$(fd history contact 1)" "summary: asked about the tint"
fd history customer >/dev/null 2>&1; is "a missing id is bad usage" "$?" 2
fd history customer x1 >/dev/null 2>&1; is "a bad id is bad usage" "$?" 2
refused "a customer that never was" history customer 99
like "... says so" "$(cat "$TMP/err")" "there is no customer 99, and there never was"
refused "an invoice number that does not exist" history invoice INV-2099-000001
ok "history --help" fd history --help
# text from the database is made harmless before it reaches the terminal
# (a history row written by something else, with an escape sequence in it)
fd customer add --name "Bo" >/dev/null
q "INSERT INTO customer_his (id, name, created_at, updated_at, operator_id, operate_type, operate_at)
   SELECT 2, 'Bo' || char(27) || '[31m red', 0, 0, 'x' || char(7), 3, operate_at + 1 FROM customer_his WHERE id = 2"
out=$(fd history customer 2)
like "the escape shows as harmless text" "$out" "name: Bo -> Bo^[[31m red"
is "no control character reaches the terminal" "$(printf '%s' "$out" | tr -d '\n' | tr -d '[:print:]' | wc -c)" 0

done_testing
