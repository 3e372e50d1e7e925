#!/bin/sh
# cli-book.sh - `frontdesk book` (a visit, its jobs and their line items from
# the catalogue in one step) and the visit time rules of the command line: a
# new start keeps the length, --length 1:30 / +90m, an --end HH:MM at or
# before the start refused unless --overnight, `visit move`, `visit
# no-show`; every bad input refused with nothing changed.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null
db() { sqlite3 "$FRONTDESK_DB" "$1"; }
span() { db "SELECT datetime(start_at, 'unixepoch', 'localtime') || ' ' || datetime(end_at, 'unixepoch', 'localtime') FROM appointment WHERE id = $1"; }

fd customer add --name "Ann Lee" --phone 555-0142 --address "1 Elm St" >/dev/null
fd customer add --name "Bo Park" >/dev/null
fd customer add --name "Smith, Cy" >/dev/null
fd service add --name "Gutter clean" --price 80 --minutes 60 >/dev/null
fd service add --name "Window wash" --price 40 --minutes 30 >/dev/null
fd service add --name "Wash, dry" --price 5 --minutes 10 >/dev/null

# --- one customer, two services, found by phone digits and name prefix --------
ok "book by phone digits with two services" fd book --customer 5550142 --start "2026-12-02 10:00" \
	--services "gutter, window"
is "one visit" "$(db 'SELECT count(*) FROM appointment')" 1
is "as long as the services take" "$(span 1)" "2026-12-02 10:00:00 2026-12-02 11:30:00"
is "at the customer's address" "$(db 'SELECT location FROM appointment WHERE id = 1')" "1 Elm St"
is "one new job titled by the services" "$(db 'SELECT title FROM service_order')" "Gutter clean, Window wash"
is "two line items at the catalogue's prices" "$(db 'SELECT group_concat(amount) FROM (SELECT amount FROM line_item ORDER BY id)')" "8000,4000"
is "the visit works on the job for its length" "$(db 'SELECT est_minutes FROM appointment_work')" 90

# --- three customers at one address: one visit, a job each ---------------------
ok "three customers, one visit" fd book --customer "Ann; Bo Park; Smith, Cy" --start "2026-12-03 10:00" \
	--length 1:30 --services "Wash, dry" --location "Block 4"
is "one more visit" "$(db 'SELECT count(*) FROM appointment')" 2
is "three jobs on it, one per customer" \
	"$(db 'SELECT count(DISTINCT j.customer_id) FROM appointment_work w JOIN service_order j ON j.id = w.service_order_id WHERE w.appointment_id = 2')" 3
is "the minutes shared" "$(db 'SELECT sum(est_minutes) FROM appointment_work WHERE appointment_id = 2')" 90
is "a name holding a comma is one service" "$(db 'SELECT count(*) FROM line_item WHERE description = '"'"'Wash, dry'"'"'')" 3
out=$(fd --json book --customer "Bo Park" --start "2026-12-04 09:00" --length +45m --open-job --services 2)
is "json: the visit" "$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["id"], len(d["links"]))')" "3 1"
is "--open-job adds to Bo's open job" "$(db 'SELECT count(*) FROM service_order WHERE customer_id = 2')" 1

# --- the time rules ---------------------------------------------------------------
ok "a new start alone" fd visit edit 1 --start "2026-12-02 13:00"
is "keeps the length" "$(span 1)" "2026-12-02 13:00:00 2026-12-02 14:30:00"
ok "an end HH:MM" fd visit edit 1 --end 15:00
is "changes the length" "$(span 1)" "2026-12-02 13:00:00 2026-12-02 15:00:00"
ok "a length" fd visit edit 1 --length 1:30
is "counts from the start" "$(span 1)" "2026-12-02 13:00:00 2026-12-02 14:30:00"
refused "an end before the start" visit edit 1 --end 12:00
like "says how to mean overnight" "$(cat "$TMP/err")" "overnight"
refused "start = end" visit edit 1 --end 13:00
ok "--overnight" fd visit edit 1 --end 01:00 --overnight
is "ends the next day" "$(span 1)" "2026-12-02 13:00:00 2026-12-03 01:00:00"
ok "move" fd visit move 1 --to "2026-12-05 09:00"
is "moved keeping its length" "$(span 1)" "2026-12-05 09:00:00 2026-12-05 21:00:00"
ok "no-show with a reason" fd visit no-show 1 --reason "not home"
is "the status" "$(db 'SELECT status FROM appointment WHERE id = 1')" no_show
is "the reason is in the flow" "$(db "SELECT reason FROM status_flow WHERE entity = 'appointment' AND entity_id = 1 ORDER BY id DESC LIMIT 1")" "not home"
refused "a finished visit is not moved" visit move 1 --to "2026-12-06 09:00"
ok "a visit with a length" fd visit add --start "2026-12-07 09:00" --length 45m
is "45 minutes" "$(db 'SELECT (end_at - start_at) / 60 FROM appointment ORDER BY id DESC LIMIT 1')" 45

# --- refusals change nothing ------------------------------------------------------
refused "nobody matches" book --customer nobody --start "2026-12-03 10:00" --length 1:30
refused "a service nobody offers" book --customer Ann --start "2026-12-03 10:00" --services zz
refused "a customer named twice" book --customer "Ann; ann lee" --start "2026-12-03 10:00" --length 1:00
refused "a bad length" book --customer Ann --start "2026-12-03 10:00" --length 0:00
refused "an end before the start" book --customer Ann --start "2026-12-03 10:00" --end 09:00
refused "a length too long" book --customer Ann --start "2026-12-03 10:00" --length 169:00
fd service retire 1 >/dev/null
refused "a retired service" book --customer Ann --start "2026-12-03 10:00" --services 1
before=$(dump)
fd book --customer Ann --start "2026-12-03 10:00" >/dev/null 2>"$TMP/err"; st=$?
is "no length and no service minutes: bad usage" "$st" 2
is "and nothing changed" "$(dump)" "$before"
fd book --customer Ann --start "2026-12-03 10:00" --end 11:00 --length 1:00 >/dev/null 2>&1; st=$?
is "--end and --length together: bad usage" "$st" 2
fd visit move 2 >/dev/null 2>&1; st=$?
is "move without --to: bad usage" "$st" 2
done_testing
