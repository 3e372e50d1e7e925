#!/bin/sh
# ui-dead.sh - the dead-letter view of the desk screen: D opens it from the
# calendar (and `?` lists the key, which a keys file can change); it lists
# the inbound events given up, newest first, with their source, type and
# last error, and the outbox commands given up; Enter shows an event in
# full with its raw payload made harmless (an escape sequence, a byte that
# is not UTF-8 and a bidirectional override appear as visible text, never
# reach the terminal) and scrollable; r retries an event (received again
# in the database); i asks for a reason and a confirmation and ignores it
# (the reason in the event and its status history); q and Esc go back
# exactly where we were; it fits 80x24. No network: events come through
# `inbox ingest` with a made-up signing secret, and are moved to dead by
# the legal status change; r on an outbox command asks the core to send it
# again (outbox_retry), i on one says it cannot be ignored. Every secret
# here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

SECRET=whsec_made_up_ui_dead_secret
db() { sqlite3 "$FRONTDESK_DB" "$1"; }
# legal status changes behind frontdesk's back: python's sqlite3 supplies
# the SQL functions the schema's triggers call, so history, status flows
# and the transition rules all apply
legal() {
	python3 - "$FRONTDESK_DB" "$1" <<'PY'
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], timeout=10)
c.create_function("fd_operator", 0, lambda: "ui-dead-test")
c.create_function("fd_now", 0, lambda: int(time.time()))
c.create_function("fd_reason", 0, lambda: None)
c.executescript("BEGIN IMMEDIATE;" + sys.argv[2] + ";COMMIT;")
PY
}
# ingest FILE: store the payload as a forwarder would, signed with SECRET at
# the test's clock (FRONTDESK_NOW in TZ)
ingest() {
	sig=$(python3 - "$1" "$SECRET" "$FRONTDESK_NOW" <<'PY'
import hmac, hashlib, sys, time
t = int(time.mktime(time.strptime(sys.argv[3], '%Y-%m-%dT%H:%M')))
body = open(sys.argv[1], 'rb').read()
mac = hmac.new(sys.argv[2].encode(), str(t).encode() + b'.' + body, hashlib.sha256).hexdigest()
print('t=%d,v1=%s' % (t, mac))
PY
)
	fd inbox ingest --source stripe --signature "$sig" < "$1" > /dev/null
}
status_of() { db "SELECT status FROM inbound_callback WHERE external_id = '$1'"; }
id_of() { db "SELECT id FROM inbound_callback WHERE external_id = '$1'"; }

fd init >/dev/null
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'stripe_signing_secret = %s\n' "$SECRET" > "$XDG_CONFIG_HOME/frontdesk/secrets")

# Four events: two given up with an error, one whose payload is hostile
# (an escape sequence, a byte that is not UTF-8, a bidirectional override,
# and 80 lines to scroll through), which the core stores dead at once under
# an invalid: key, and one still waiting (not a dead letter).
printf '{"id":"evt_ui_a","object":"event","type":"payment_intent.succeeded","data":{"object":{"id":"pi_a"}}}' > "$TMP/a"
printf '{"id":"evt_ui_b","object":"event","type":"charge.refunded","data":{"object":{"id":"re_b"}}}' > "$TMP/b"
python3 - "$TMP/h" <<'PY'
import sys
body = b'{"id":"evt_ui_hostile","object":"event","type":"payment_intent.canceled",\n'
body += b'"note":"\x1b[31mred\x1b[0m \xff \xe2\x80\xae gnp.exe",\n'
for i in range(1, 81):
    body += b'"line_%03d": %d,\n' % (i, i)
body += b'"end":"payload-end"}'
open(sys.argv[1], 'wb').write(body)
PY
printf '{"id":"evt_ui_wait","object":"event","type":"payment_intent.created","data":{"object":{"id":"pi_w"}}}' > "$TMP/w"
for f in a b h w; do ingest "$TMP/$f"; done
is "four events stored" "$(db "SELECT count(*) FROM inbound_callback")" 4
ok "two of them given up (received -> dead) with their errors" legal "
	UPDATE inbound_callback SET status = 'dead', last_error =
	  'the channel says 1500 USD but order PO-000001 is for 2500 USD: nothing was posted'
	  WHERE external_id = 'evt_ui_a';
	UPDATE inbound_callback SET status = 'dead', last_error = 'refund re_b: 10 attempts failed'
	  WHERE external_id = 'evt_ui_b'"
ok "one outbox command given up" legal "
	INSERT INTO outbox_event (event_type, business_key, provider_code, idempotency_key,
	  payload, created_at, updated_at) VALUES ('payment.create', 'PO-000007', 'stripe',
	  'ui-dead-test-key', '{\"amount\": 1500}', 1, 1);
	UPDATE outbox_event SET status = 'sending' WHERE business_key = 'PO-000007';
	UPDATE outbox_event SET status = 'dead', last_error = 'HTTP 402: card_declined',
	  updated_at = strftime('%s', '2026-12-01 14:30') WHERE business_key = 'PO-000007'"
A=$(id_of evt_ui_a); B=$(id_of evt_ui_b); W=$(id_of evt_ui_wait)
H=$(db "SELECT id FROM inbound_callback WHERE external_id LIKE 'invalid:%'")
ok "the hostile payload is stored, and dead" test "$(db "SELECT status FROM inbound_callback WHERE id = $H")" = dead
is "under an invalid: key, saying why (its own id is never trusted)" \
	"$(db "SELECT last_error FROM inbound_callback WHERE id = $H")" "the payload is not UTF-8 text"

screen_start
shows "the calendar opens" "Week of 2026-11-29"
shows_re "with dead letters about, the key hints offer D" " D Dead letters "
keys D
shows "D opens the dead letters" "frontdesk > Calendar (Week) > Dead letters"
shows "the inbound section counts the dead events" "Inbound events given up: 3"
shows_re "the key hints offer open, retry and ignore" "Enter Open +r Retry +i Ignore"
shows_re "event $A: id, time received, source, type, error" \
	"^  $A +2026-12-01 09:00 +stripe +payment_intent.succeeded +the channel says 1500 USD"
shows_re "event $B with its error" "^  $B +2026-12-01 09:00 +stripe +charge.refunded +refund re_b: 10 attempts failed"
shows_re "the hostile event with its error" "^. +$H +2026-12-01 09:00 +stripe .*the payload is not UTF-8"
case "$(screen_text)" in
*"payment_intent.created"*) fail "an event still waiting is not a dead letter" "$(screen_text)" ;;
*) pass "an event still waiting is not a dead letter" ;;
esac
shows "the outbox section counts the dead commands" "Outbox commands given up: 1"
shows_re "the outbox command: id, when given up, type, order, error" "^  1 +2026-12-01 09:30 +payment\.create +PO-000007 +HTTP 402: card_declined"
# newest first: the highest id comes first and holds the cursor
first=$(screen_text | grep -E '^[> ] +[0-9]+ +2026-12-01' | head -1 | awk '{print ($1 == ">") ? $2 : $1}')
is "newest first: the first row is the highest id" "$first" "$(db "SELECT max(id) FROM inbound_callback WHERE status = 'dead'")"
shows_re "the cursor is on the first event" "^> +$first "

# ? lists the keys by name
keys '?'
shows "? in the list names the retry action" "dead-retry"
shows "and the ignore action" "dead-ignore"
keys q
ok "q closes the help" wait_gone "Help: Dead letters"
# an outbox command is retried through outbox_retry (which refuses this
# one: its payload names no order), never ignored
keys G
shows_re "G selects the outbox command" "^> 1 +2026-12-01 09:30 +payment\.create"
keys r
shows "r on an outbox command asks the core, which says why not" "Not retried: outbox command 1 names no order"
is "the refused command stays dead" "$(db "SELECT status FROM outbox_event WHERE id = 1")" dead
keys i
shows "i on an outbox command says it cannot be ignored" "An outbox command cannot be ignored: retry it (r)"
keys Enter
shows "Enter opens the outbox command" "Dead letters > Outbox command 1"
shows "with its payload" '{"amount": 1500}'
shows "and its error" "HTTP 402: card_declined"
keys q
ok "q returns to the list" wait_gone "> Outbox command 1"
keys g
shows_re "back in the list, g goes to the first event" "^> +$first "

# The hostile event in full: harmless, scrollable.
is "the hostile event is the newest" "$first" "$H"
keys Enter
shows "Enter opens the event" "Dead letters > Inbound event $H"
shows "every field: the source" "Source: stripe"
shows "the external id" "External id: invalid:"
shows "the status" "Status: dead"
shows "the last error" "the payload is not UTF-8 text"
shows "the payload's size" "Payload ("
shows "the escape sequence is shown as visible text" '"note":"^[[31mred^[[0m'
shows "a byte that is not UTF-8 is shown as \\xFF" '\xFF'
shows "the bidirectional override is shown as its code" '<U+202E> gnp.exe'
text=$(screen_text)
case "$text" in
*"$(printf '\033')"*) fail "no raw escape in the pane" ;;
*) pass "no raw escape in the pane" ;;
esac
case "$text" in
*payload-end*) fail "the end of the payload is below the screen at first" ;;
*) pass "the end of the payload is below the screen at first" ;;
esac
keys NPage NPage NPage
shows "PgDn scrolls to the end of the payload" '"end":"payload-end"}'
keys PPage PPage PPage PPage
shows "PgUp scrolls back to the top" "Source: stripe"
keys q
ok "q returns to the list" wait_gone "> Inbound event $H"
shows_re "with the cursor still on the same event" "^> +$H "

# r retries the selected event: received again, gone from the list.
keys r
shows "r says the event is due again" "Inbound event $H is due again"
is "the event is received again in the database" "$(db "SELECT status || ' ' || attempts FROM inbound_callback WHERE id = $H")" "received 0"
is "its status history says a person retried it" \
	"$(db "SELECT reason FROM status_flow WHERE entity = 'inbound_callback' AND entity_id = $H ORDER BY id DESC LIMIT 1")" \
	"retried by a person"
shows "the list refreshes: two dead events left" "Inbound events given up: 2"

# i ignores an event after asking why, and after a confirmation.
shows_re "the cursor went to the next event, $B (now the newest)" "^> +$B "
keys Enter
shows "Enter opens event $B" "Dead letters > Inbound event $B"
keys i
shows "i opens the ignore form" "Inbound event $B > Ignore inbound event $B"
keys Enter
shows "a reason is required" "required: say why the event is not to be applied"
keys -l "refunded by hand at the desk"
keys Enter
shows "the form asks to confirm" "Ignore inbound event $B (charge.refunded from stripe) for good?"
is "nothing changes before the confirmation" "$(status_of evt_ui_b)" dead
keys y
shows "the receipt says it is ignored" "Inbound event $B is ignored: refunded by hand at the desk"
is "the event is ignored with the reason in the database" \
	"$(db "SELECT status || ': ' || last_error FROM inbound_callback WHERE id = $B")" \
	"ignored: refunded by hand at the desk"
is "and in its status history" \
	"$(db "SELECT from_status || '>' || to_status || ': ' || reason FROM status_flow WHERE entity = 'inbound_callback' AND entity_id = $B ORDER BY id DESC LIMIT 1")" \
	"dead>ignored: refunded by hand at the desk"
keys Enter
ok "closing the receipt returns to the event" wait_gone "> Ignore inbound event $B"
shows "which now says ignored" "Status: ignored"
keys r
shows "an ignored event cannot be retried: the message says why" "! Not retried: inbound event $B is ignored"
keys q
shows "q returns to the list" "Inbound events given up: 1"
shows_re "only event $A is left" "^> +$A +2026-12-01"
keys Escape
shows "Esc returns to the calendar" "Week of 2026-11-29"
case "$(screen_text | head -1)" in
*"Dead letters"*) fail "the breadcrumb is the calendar's again" "$(screen_text | head -1)" ;;
*) pass "the breadcrumb is the calendar's again" ;;
esac
is "the event still waiting was not touched" "$(status_of evt_ui_wait)" received

# 80x24: the list and the event fit; long errors are cut with "...".
resize 80 24
keys D
shows "at 80x24 D opens the list" "Dead letters"
shows_re "at 80x24 the long error is cut with ..." "^> +$A .*the channel says.*\.\.\.$"
wide=$(screen_text | awk '{ if (length($0) > 80) n++ } END { print n + 0 }')
is "at 80x24 no line is wider than 80 columns" "$wide" 0
keys Enter
shows "at 80x24 the event opens" "Inbound event $A"
shows "the whole error is there" "is for 2500 USD: nothing was"
shows_re "wrapped at a blank" "^  posted$"
wide=$(screen_text | awk '{ if (length($0) > 80) n++ } END { print n + 0 }')
is "at 80x24 the event's lines fit" "$wide" 0
keys q q
shows "back to the calendar" "Week of 2026-11-29"
keys Q
shows "Q quits" "frontdesk-exited-0"
screen_stop

# The calendar's help lists the key, and a keys file can move it; a
# read-only screen shows the dead letters but changes nothing.
printf 'dead-letters = L\n' > "$XDG_CONFIG_HOME/frontdesk/keys"
screen_start --read-only
shows "the calendar opens again" "Week of 2026-11-29"
keys '?'
shows_re "the calendar's help lists dead-letters on its new key" "^. *L +Show the payment channel's dead letters.*dead-letters"
keys q L
shows "the rebound key opens the dead letters" "> Dead letters"
shows_re "event $A is still there" "^> +$A "
keys r
shows "read-only: r is refused" "! The database is open read-only: nothing can be posted."
keys C-l
ok "a key that says nothing clears the message" wait_gone "read-only"
keys i
shows "read-only: i is refused" "! The database is open read-only: nothing can be posted."
is "read-only: event $A is still dead" "$(status_of evt_ui_a)" dead
keys Q
shows "Q quits" "frontdesk-exited-0"

done_testing
