#!/bin/sh
# booking-chan.sh - online booking channels: requests relayed signed
# (HMAC-SHA256, pipe-sig.c) into the inbound table, then decided by
# `frontdesk booking-channel process --once`: a request confirmed with its
# visit, job and customer and the slot reserved; the same request twice
# (and relayed twice) makes one visit; a cancellation before its request
# books nothing (the later request is rejected as cancelled); a request for
# a slot taken a moment earlier, outside working hours or for an unknown
# service is rejected with the reason; a new time goes through the same
# rule; a desk booking, move or cancellation pushes the days too; a
# confirmed request's visit done or no-show moves the request to done or
# no_show (told to the channel), a cancelled one stays; a bad signature is kept rejected and decides nothing; every
# decision that changes a resource's day writes an availability push whose
# version only grows (the schema refuses a smaller one). Every key here is
# made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
SECRET=whsec_made_up_booking_secret
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'site_signing_secret = %s\n' "$SECRET" > "$XDG_CONFIG_HOME/frontdesk/secrets")
fd init >/dev/null
q() { sqlite3 -cmd ".timeout 5000" "$FRONTDESK_DB" "$1"; }

fd resource add --name Ann --kind technician >/dev/null
fd resource hours Ann --days all --spans 08:00-12:00 >/dev/null
fd service add --name "Oil change" --price 80 --minutes 60 >/dev/null
fd customer add --name "Desk Walkin" --phone 5550001 >/dev/null
ok "a booking channel in the registry" fd booking-channel provider-set site --url http://127.0.0.1:9
like "it is listed" "$(fd booking-channel providers)" "site"

# ts DAY HH:MM - the unix time of a local time
ts() { date -d "$1 $2" +%s; }
# event ID TYPE REQ DAY START END [SERVICE] - a generic REST channel event
event() {
	printf '{"id":"%s","type":"%s","created":1,"request":{"id":"%s","start":%s,"end":%s,"service":"%s","resource":"Ann","customer":{"name":"Web %s","phone":"555%s","email":"%s@example.com"}}}' \
		"$1" "$2" "$3" "$(ts "$4" "$5")" "$(ts "$4" "$6")" "${7:-Oil change}" "$3" "$(printf %04d "$(printf %s "$3" | cksum | cut -c1-4)")" "$3"
}
# sig BODY [SECRET]: the X-Booking-Signature header the channel sends with BODY
sig() {
	t=$(date +%s)
	printf 't=%s,v1=%s' "$t" "$(printf '%s.%s' "$t" "$1" | openssl dgst -sha256 -hmac "${2:-$SECRET}" | sed 's/.*= //')"
}
# relay BODY [SECRET]: the web hook stores it (the pipeline's one spelling)
relay() { printf '%s' "$1" | fd inbox ingest --provider site --signature "$(sig "$@")"; }
process() { fd booking-channel process --once; }
status() { q "SELECT status FROM booking_request WHERE request_id = '$1'"; }
visits() { q "SELECT count(*) FROM appointment WHERE status NOT IN ('cancelled', 'no_show')"; }

# --- a request confirmed
E1=$(event evt_1 booking.requested R1 2026-12-02 09:00 10:00)
like "a signed request is stored" "$(relay "$E1")" "stored as inbound event"
like "relayed again it is a duplicate" "$(relay "$E1")" "was stored before"
like "processing confirms it" "$(process)" "1 confirmed"
is "the request is confirmed with its visit" "$(status R1)|$(q "SELECT appointment_id IS NOT NULL FROM booking_request WHERE request_id='R1'")" "confirmed|1"
is "the visit holds Ann" "$(q "SELECT count(*) FROM appointment_resource")" 1
is "the customer was added" "$(q "SELECT count(*) FROM customer WHERE name = 'Web R1'")" 1
is "a confirmation waits in the outbox" \
	"$(q "SELECT count(*) FROM outbox_event WHERE event_type = 'booking.confirm' AND integration_type = 'booking'")" 1
is "an availability push of the day, version 1" \
	"$(q "SELECT version, day FROM availability_push")" "1|2026-12-02"
like "the push carries the free slots without 09:00" \
	"$(q "SELECT payload FROM outbox_event WHERE event_type = 'availability.push'")" '"version":1'

# --- the same request id again (a new event id): one visit
relay "$(event evt_1b booking.requested R1 2026-12-02 09:00 10:00)" >/dev/null
like "a duplicate request is ignored" "$(process)" "1 ignored"
is "still one visit" "$(visits)" 1

# --- a cancellation before its request
relay '{"id":"evt_c2","type":"booking.cancelled","created":2,"request":{"id":"R2"}}' >/dev/null
like "a cancellation first is kept" "$(process)" "1 cancelled"
is "the request is cancelled with no visit" "$(status R2)|$(q "SELECT appointment_id FROM booking_request WHERE request_id='R2'")" "cancelled|"
relay "$(event evt_2 booking.requested R2 2026-12-02 10:00 11:00)" >/dev/null
like "the late request is rejected as cancelled" "$(process)" "1 rejected"
is "nothing booked for it" "$(visits)|$(status R2)" "1|cancelled"
like "the answer says why" \
	"$(q "SELECT payload FROM outbox_event WHERE event_type = 'booking.confirm' ORDER BY id DESC LIMIT 1")" "cancelled before it arrived"

# --- a slot taken a moment earlier at the desk
fd book --customer "Desk Walkin" --start "2026-12-02 10:00" --length 1:00 --resource Ann >/dev/null
is "a desk booking pushes the day too (version 2)" "$(q "SELECT max(version) FROM availability_push")" 2
relay "$(event evt_3 booking.requested R3 2026-12-02 10:00 11:00)" >/dev/null
like "a request for a taken slot is rejected" "$(process)" "1 rejected"
like "its reason names the visit holding it" "$(q "SELECT reason FROM booking_request WHERE request_id='R3'")" "taken"
is "never two visits on Ann at one time" "$(q "SELECT count(*) FROM appointment_resource a JOIN appointment x ON x.id = a.appointment_id JOIN appointment_resource b ON b.resource_id = a.resource_id AND b.appointment_id > a.appointment_id JOIN appointment y ON y.id = b.appointment_id WHERE x.status NOT IN ('cancelled','no_show') AND y.status NOT IN ('cancelled','no_show') AND x.start_at < y.end_at AND y.start_at < x.end_at")" 0

# --- outside working hours, unknown service
relay "$(event evt_4 booking.requested R4 2026-12-02 13:00 14:00)" >/dev/null
relay "$(event evt_5 booking.requested R5 2026-12-02 11:00 12:00 "Teeth whitening")" >/dev/null
like "both rejected" "$(process)" "2 rejected"
like "outside the hours says so" "$(q "SELECT reason FROM booking_request WHERE request_id='R4'")" "hours"
like "an unknown service says so" "$(q "SELECT reason FROM booking_request WHERE request_id='R5'")" "unknown service"

# --- a change of time through the same rule
relay "$(event evt_6 booking.changed R1 2026-12-02 10:00 11:00)" >/dev/null
process >/dev/null
like "a move onto a taken slot is refused with the reason" \
	"$(q "SELECT reason FROM booking_request WHERE request_id='R1'")" "refused"
is "the visit stays at 09:00" "$(q "SELECT strftime('%H:%M', a.start_at, 'unixepoch', 'localtime') FROM appointment a JOIN booking_request b ON b.appointment_id = a.id WHERE b.request_id = 'R1'")" "09:00"
relay "$(event evt_7 booking.changed R1 2026-12-02 11:00 12:00)" >/dev/null
like "a move to a free slot is made" "$(process)" "1 moved"
is "the visit is at 11:00" "$(q "SELECT strftime('%H:%M', a.start_at, 'unixepoch', 'localtime') FROM appointment a JOIN booking_request b ON b.appointment_id = a.id WHERE b.request_id = 'R1'")" "11:00"
is "the day's push version grew" "$(q "SELECT max(version) FROM availability_push")" 3

# --- a cancellation of a confirmed request frees the slot
relay '{"id":"evt_8","type":"booking.cancelled","created":3,"request":{"id":"R1"}}' >/dev/null
like "cancelled" "$(process)" "1 cancelled"
is "its visit is cancelled" "$(q "SELECT a.status FROM appointment a JOIN booking_request b ON b.appointment_id = a.id WHERE b.request_id = 'R1'")" "cancelled"
is "and the day pushed again" "$(q "SELECT max(version) FROM availability_push")" 4

# --- the desk moving or cancelling a visit with a resource pushes its days
desk=$(q "SELECT a.id FROM appointment a JOIN appointment_resource r ON r.appointment_id = a.id WHERE a.note IS NULL AND a.status = 'scheduled' LIMIT 1")
fd visit move "$desk" --to "2026-12-03 09:00" >/dev/null
is "a move to another day pushes both days" \
	"$(q "SELECT group_concat(day || ':' || version, ' ') FROM (SELECT * FROM availability_push WHERE id > 4 ORDER BY id)")" \
	"2026-12-03:1 2026-12-02:5"
fd visit cancel "$desk" --reason "called off" >/dev/null
is "a cancellation pushes the freed day" "$(q "SELECT day || ':' || version FROM availability_push ORDER BY id DESC LIMIT 1")" "2026-12-03:2"

# --- a confirmed request's visit done or no-show moves the request on
relay "$(event evt_10 booking.requested R10 2026-12-04 09:00 10:00)" >/dev/null
relay "$(event evt_11 booking.requested R11 2026-12-04 10:00 11:00)" >/dev/null
like "two more confirmed" "$(process)" "2 confirmed"
visit_of() { q "SELECT appointment_id FROM booking_request WHERE request_id = '$1'"; }
answers() { q "SELECT count(*) FROM outbox_event WHERE event_type = 'booking.confirm'"; }
a0=$(answers)
fd visit status "$(visit_of R10)" in_progress >/dev/null
is "a visit started leaves its request confirmed" "$(status R10)|$(answers)" "confirmed|$a0"
ok "the visit is done" fd visit status "$(visit_of R10)" done
is "its request is done" "$(status R10)" "done"
like "the channel is told it is done" \
	"$(q "SELECT payload FROM outbox_event WHERE event_type = 'booking.confirm' ORDER BY id DESC LIMIT 1")" '"request_id":"R10","status":"done"'
ok "the other visit is a no-show" fd visit no-show "$(visit_of R11)"
is "its request is no_show" "$(status R11)" "no_show"
like "the channel is told it was a no-show" \
	"$(q "SELECT payload FROM outbox_event WHERE event_type = 'booking.confirm' ORDER BY id DESC LIMIT 1")" '"request_id":"R11","status":"no_show"'
is "one answer each" "$(answers)" "$((a0 + 2))"
is "the cancelled request and its visit are unaffected" \
	"$(status R1)|$(q "SELECT status FROM appointment WHERE id = $(visit_of R1)")" "cancelled|cancelled"
ok "a done request never moves back" sh -c "! sqlite3 '$FRONTDESK_DB' \"UPDATE booking_request SET status = 'confirmed' WHERE request_id = 'R10'\" 2>/dev/null"


ok "an older push is refused by the schema" sh -c "! sqlite3 '$FRONTDESK_DB' \"INSERT INTO availability_push (provider_code, resource_id, day, version, created_at) VALUES ('site', 1, '2026-12-02', 3, 0)\" 2>/dev/null"
ok "a state never moves back" sh -c "! sqlite3 '$FRONTDESK_DB' \"UPDATE booking_request SET status = 'received' WHERE request_id = 'R1'\" 2>/dev/null"

# --- a bad signature
before=$(q "SELECT count(*) FROM booking_request")
out=$(relay "$(event evt_9 booking.requested R9 2026-12-02 08:00 09:00)" whsec_wrong 2>&1)
like "a bad signature is not accepted" "$out" "not accepted"
process >/dev/null
is "it is kept rejected and decides nothing" \
	"$(q "SELECT status FROM inbound_callback WHERE integration_type='booking' ORDER BY id DESC LIMIT 1")|$(q "SELECT count(*) FROM booking_request")" "rejected|$before"

# --- the customer: found by phone, then e-mail, exactly; never by a search
fd customer add --name "Mail Only" --email "mail.only@example.com" >/dev/null
fd customer add --name "Long Phone" --phone 15550199 >/dev/null
cust() { q "SELECT s.customer_id FROM booking_request b JOIN appointment_work w ON w.appointment_id = b.appointment_id JOIN service_order s ON s.id = w.service_order_id WHERE b.request_id = '$1'"; }
ncust=$(q "SELECT count(*) FROM customer")
E12='{"id":"evt_cust_1","type":"booking.requested","created":1,"request":{"id":"R30","start":'$(ts 2026-12-21 08:00)',"end":'$(ts 2026-12-21 09:00)',"service":"Oil change","resource":"Ann","customer":{"name":"Mail Person","email":"MAIL.ONLY@example.com"}}}'
relay "$E12" >/dev/null
E13='{"id":"evt_cust_2","type":"booking.requested","created":1,"request":{"id":"R31","start":'$(ts 2026-12-21 09:00)',"end":'$(ts 2026-12-21 10:00)',"service":"Oil change","resource":"Ann","customer":{"name":"Short Phone","phone":"001"}}}'
relay "$E13" >/dev/null
E14='{"id":"evt_cust_3","type":"booking.requested","created":1,"request":{"id":"R32","start":'$(ts 2026-12-21 10:00)',"end":'$(ts 2026-12-21 11:00)',"service":"Oil change","resource":"Ann","customer":{"name":"Part Phone","phone":"555-0199"}}}'
relay "$E14" >/dev/null
like "three requests decided" "$(process)" "3 confirmed"
is "no phone, a known e-mail (any case): that customer" "$(cust R30)" \
	"$(q "SELECT id FROM customer WHERE name = 'Mail Only'")"
is "a phone 001 is not customer number 1: a new customer" "$(cust R31)" \
	"$(q "SELECT id FROM customer WHERE name = 'Short Phone'")"
is "a phone that is only a part of someone's: a new customer" "$(cust R32)" \
	"$(q "SELECT id FROM customer WHERE name = 'Part Phone'")"
is "two customers added, not three" "$(q "SELECT count(*) FROM customer")" $((ncust + 2))

# --- the old spelling stays an alias of inbox ingest
E10=$(event evt_alias_1 booking.requested R20 2026-12-03 09:00 10:00)
like "booking-channel ingest still stores a request" \
	"$(printf '%s' "$E10" | fd booking-channel ingest --provider site --signature "$(sig "$E10")")" \
	"evt_alias_1 stored as inbound event"
fd booking-channel ingest --provider site < /dev/null 2>/dev/null
is "booking-channel ingest without --signature is a usage error" "$?" 2
# a code registered under two types: inbox ingest asks which
ok "a payment provider of the same code" fd channel provider-set site --url "https://pay.example" --role backup
E11=$(event evt_alias_2 booking.requested R21 2026-12-03 11:00 12:00)
printf '%s' "$E11" > "$TMP/e11"
refused "inbox ingest of a code under two types is refused" \
	inbox ingest --provider site --signature "$(sig "$E11")" < "$TMP/e11"
like "... asking for --type" "$(cat "$TMP/err")" "several types (payment, booking)"
like "with --type booking it is stored" \
	"$(fd inbox ingest --provider site --type booking --signature "$(sig "$E11")" < "$TMP/e11")" \
	"evt_alias_2 stored as inbound event"
refused "an unknown --type is refused" \
	inbox ingest --provider site --type fax --signature "$(sig "$E11")" < "$TMP/e11"
like "both are decided" "$(process)" "2 confirmed"

# --- the pipeline's commands see every type
jcount() { python3 -c 'import json,sys; print(len(json.load(sys.stdin)[sys.argv[1]]))' "$1"; }
is "inbox list --type booking --provider site: the booking events" \
	"$(fd --json inbox list --type booking --provider site | jcount events)" \
	"$(q "SELECT count(*) FROM inbound_callback WHERE integration_type = 'booking' AND source_system = 'site'")"
is "... and --type payment none of them" "$(fd --json inbox list --type payment | jcount events)" \
	"$(q "SELECT count(*) FROM inbound_callback WHERE integration_type = 'payment'")"
is "outbox list --type booking: the answers and pushes" \
	"$(fd --json outbox list --type booking --provider site | jcount commands)" \
	"$(q "SELECT count(*) FROM outbox_event WHERE integration_type = 'booking'")"
is "outbox list --status pending: only those" "$(fd --json outbox list --status pending | jcount commands)" \
	"$(q "SELECT count(*) FROM outbox_event WHERE status = 'pending'")"
C1=$(q "SELECT min(id) FROM outbox_event WHERE event_type = 'booking.confirm'")
like "outbox show gives a command with its payload" "$(fd outbox show "$C1")" \
	"$(q "SELECT json_extract(payload, '$.request_id') FROM outbox_event WHERE id = $C1")"
like "... and its type" "$(fd outbox show "$C1")" "booking"
refused "outbox show of no command" outbox show 99999

# --- the requests and one shown
like "requests lists them" "$(fd booking-channel requests --status rejected)" "R3"
like "show gives the reason" "$(fd booking-channel show R4)" "Reason"
ok "frontdesk check is clean" fd check
done_testing
