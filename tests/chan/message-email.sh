#!/bin/sh
# message-email.sh - messages to customers by e-mail through the pipeline,
# against a fake mail server on loopback (tests/chan/fake-smtp.py, Debian's
# python3-aiosmtpd), each mail read back with python's email package: the
# headers, a UTF-8 subject encoded as RFC 2047 words, the text in the
# customer's language with the visit's time in the shop's zone, an
# invoice's PDF attached byte for byte as `invoice print` writes it; a
# reminder made once at its hour however often the scheduler runs; consent
# withdrawn honoured (refused, and what waits is cancelled); the server down
# (retried on the backoff, sent once when it is back); a recipient refused
# (failed, shown on the customer); every outcome in the contact log; a
# retention purge leaves none of the messages' text.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"

PY=python3
$PY -c 'import aiosmtpd, icalendar' 2>/dev/null || PY=/usr/bin/python3
export TZ=America/New_York
export FRONTDESK_NOW="2026-12-01T09:00"
export FRONTDESK_CONFIG="$TMP/config.ini"
cat > "$FRONTDESK_CONFIG" <<EOF
timezone = America/New_York
shop_name = Shiny Cars
message_mail_from = desk@shiny.example
pipeline_give_up_seconds = 86400
EOF
MAIL="$TMP/mail"
mkdir -p "$MAIL"
SMTP_PID=
trap 'kill $SMTP_PID 2>/dev/null; rm -rf "$TMP"' EXIT

# smtp_start [ARGS]: the fake on PORT (a new random one, or $PORT again)
smtp_start() {
	$PY "$TOP_SRCDIR/tests/chan/fake-smtp.py" "$MAIL" --max-seconds 600 "$@" > "$TMP/smtp.out" 2>"$TMP/smtp.err" &
	SMTP_PID=$!
	until_ok 10 grep -q '^PORT' "$TMP/smtp.out"
	PORT=$(sed -n 's/^PORT //p' "$TMP/smtp.out")
}
smtp_stop() { kill "$SMTP_PID" 2>/dev/null; wait "$SMTP_PID" 2>/dev/null; }
mails() { ls "$MAIL" 2>/dev/null | grep -c '\.eml$'; }
# mailpy N EXPR: EXPR over the N-th mail parsed as m (email.message)
mailpy() {
	$PY -c "import email, email.policy, sys
m = email.message_from_bytes(open(sys.argv[1], 'rb').read(), policy=email.policy.default)
print($2)" "$MAIL/$(printf %03d "$1").eml"
}
q() { sqlite3 "$FRONTDESK_DB" "$1"; }
round() { fd message schedule >/dev/null && fd message run --once >/dev/null; }

fd init >/dev/null
fd customer add --name "Lee Park" --email lee@example.com --phone 555-0142 --address "4 Block Row" >/dev/null
fd customer add --name "王小明" --email wang@example.com >/dev/null
fd customer add --name "Bo Nomail" >/dev/null
fd service add --name "Wash" --price 40 --minutes 60 >/dev/null
fd book --customer "Lee Park" --start "2026-12-02 10:00" --services Wash >/dev/null
fd book --customer "王小明" --start "2026-12-03 15:30" --services Wash >/dev/null
fd book --customer "Bo Nomail" --start "2026-12-03 11:00" --services Wash >/dev/null

smtp_start --reject bounce --defer later
ok "the fake mail server listens" test -n "$PORT"
refused "a mail server's URL that is not smtp(s)" message provider-set mail --type email --url "http://127.0.0.1:$PORT"
ok "a mail server is a provider of type email" fd message provider-set mail --type email --url "smtp://127.0.0.1:$PORT"

# --- check sees a message no provider takes
fd message send --visit 3 --kind on-the-way --channel sms >/dev/null 2>&1
fd customer edit 3 --phone 555-0199 >/dev/null
ok "a text message is made" fd message send --visit 3 --kind on-the-way --channel sms
fd message schedule >/dev/null
like "check sees it waiting with no provider past the horizon" "$(FRONTDESK_NOW="2026-12-03T09:00" fd check 2>&1)" "message-not-sent"
fd message consent "Bo Nomail" --sms no >/dev/null

# --- a confirmation: made, handed to the outbox, sent
refused "a customer with no e-mail address" message send --visit 3 --kind confirmation --channel email
ok "a confirmation is made" fd message send --visit 1 --kind confirmation
first=$(q "SELECT max(id) FROM message")
refused "a confirmation made twice" message send --visit 1 --kind confirmation
is "it waits for the worker" "$(q "SELECT status FROM message WHERE id = $first")" waiting
round
is "the worker hands it to the outbox and sends it" "$(q "SELECT status FROM message WHERE id = $first")" sent
is "one mail arrived" "$(mails)" 1
is "from the shop, to the customer" "$(mailpy 1 'm["From"], "|", m["To"]')" "Shiny Cars <desk@shiny.example> | lee@example.com"
is "the subject says the visit's time in shop time" "$(mailpy 1 'm["Subject"]')" \
	"Your visit on Wednesday 2 December 2026 at 10:00 is booked"
like "the text names the customer and the services" "$(mailpy 1 'm.get_body(("plain",)).get_content()')" "Hello Lee Park"
like "... the services" "$(mailpy 1 'm.get_body(("plain",)).get_content()')" "Services: Wash"
is "the Message-ID is the one stored" "$(mailpy 1 'm["Message-ID"]')" "$(q "SELECT provider_ref FROM message WHERE id = $first")"
is "the contact log says it was sent" "$(q "SELECT channel || ' ' || direction FROM contact_log WHERE customer_id = 1")" "email out"
round
is "a second round sends nothing again" "$(mails)" 1
like "the message's history has its moves" "$(fd history message "$first")" "status sending -> sent"

# --- in the customer's language: a UTF-8 subject as RFC 2047 words
fd message consent "王小明" --language zh_CN >/dev/null
fd message send --visit 2 --kind confirmation >/dev/null
round
is "the Chinese customer's mail arrived" "$(mails)" 2
ok "its subject is encoded (RFC 2047)" grep -q '^Subject: =?UTF-8?B?' "$MAIL/002.eml"
is "and reads back as written, the time in Chinese" "$(mailpy 2 'm["Subject"]')" "您2026年12月3日（星期四）15:30的预约已确认"
like "the text is in Chinese" "$(mailpy 2 'm.get_body(("plain",)).get_content()')" "王小明您好"

# --- a reminder: once, at its hour (the day before, 17:00)
out=$(fd --json message schedule)
is "no reminder before its hour" "$(echo "$out" | jget 'd["made"]')" 0
FRONTDESK_NOW="2026-12-01T17:05" fd message schedule >/dev/null
FRONTDESK_NOW="2026-12-01T17:06" fd message schedule >/dev/null
is "the reminder of tomorrow's visit is made once" "$(q "SELECT count(*) FROM message WHERE kind = 'reminder' AND appointment_id = 1")" 1
FRONTDESK_NOW="2026-12-01T17:07" fd message run --once >/dev/null
is "and sent" "$(mails)" 3
like "it says reminder" "$(mailpy 3 'm["Subject"]')" "Reminder: your visit on Wednesday 2 December 2026 at 10:00"

# --- an invoice with its PDF
fd invoice issue --jobs 1 >/dev/null
inv=$(q "SELECT number FROM invoice ORDER BY id LIMIT 1")
fd message send --invoice "$inv" >/dev/null
round
is "the invoice's mail arrived" "$(mails)" 4
fd invoice print "$inv" --format pdf --output "$TMP/inv.pdf" >/dev/null
mailpy 4 '[p for p in m.iter_attachments()][0].get_filename()' > "$TMP/name"
is "the PDF is attached under the invoice's number" "$(cat "$TMP/name")" "$inv.pdf"
$PY -c "import email, email.policy, sys
m = email.message_from_bytes(open(sys.argv[1], 'rb').read(), policy=email.policy.default)
open(sys.argv[2], 'wb').write([p for p in m.iter_attachments()][0].get_content())" "$MAIL/004.eml" "$TMP/att.pdf"
ok "its bytes are invoice print's" cmp "$TMP/att.pdf" "$TMP/inv.pdf"
# the amount as an English reader writes dollars: the sign, grouped digits
want=$($PY -c "import sys; print('\$' + format(int(sys.argv[1]) / 100, ',.2f'))" "$(fd --json invoice show "$inv" | jget 'd["balance"]')")
like "the amount is written for an English reader" "$(mailpy 4 'm.get_body(("plain",)).get_content()')" "of $want,"

# --- confirmations made with each booking (message_confirm_channels)
printf 'message_confirm_channels = email\n' >> "$FRONTDESK_CONFIG"
fd book --customer "Lee Park" --start "2026-12-10 10:00" --services Wash >/dev/null
bv=$(q "SELECT max(id) FROM appointment")
is "a booking makes its confirmation" "$(q "SELECT count(*) FROM message WHERE appointment_id = $bv AND kind = 'confirmation'")" 1
ok "a customer with no e-mail address is booked all the same" fd book --customer "Bo Nomail" --start "2026-12-10 12:00" --services Wash
is "... with no confirmation" "$(q "SELECT count(*) FROM message WHERE appointment_id = (SELECT max(id) FROM appointment)")" 0
fd recurring add --customer "Lee Park" --rule "FREQ=WEEKLY" --time 08:00 --length 30 --from 2026-12-14 >/dev/null
is "a recurring job's visits are not confirmed one by one" "$(q "SELECT count(*) FROM message m JOIN recurring_occurrence o ON o.appointment_id = m.appointment_id")" 0
sed -i '/^message_confirm_channels/d' "$FRONTDESK_CONFIG"
fd book --customer "Lee Park" --start "2026-12-11 10:00" --services Wash >/dev/null
is "without the setting, a booking makes none" "$(q "SELECT count(*) FROM message WHERE appointment_id = (SELECT max(id) FROM appointment)")" 0

# --- the shop's own words: files per kind, language and channel
mkdir "$TMP/tmpl"
ok "the built-in templates are written out to edit" fd message templates --dir "$TMP/tmpl" --write
is "one file per kind, language and channel" "$(ls "$TMP/tmpl" | wc -l)" 24
printf 'Subject: See you {when}\r\n\r\nDear {customer},\r\nwe come on {when} for {services}.\r\n' > "$TMP/tmpl/confirmation.en.email"
printf 'message_template_dir = %s\n' "$TMP/tmpl" >> "$FRONTDESK_CONFIG"
ok "the files are all usable" fd message templates
fd book --customer "Lee Park" --start "2026-12-12 10:00" --services Wash >/dev/null
fd message send --visit "$(q "SELECT max(id) FROM appointment")" --kind confirmation >/dev/null
round
n=$(mails)
is "the shop's subject" "$(mailpy "$n" 'm["Subject"]')" "See you Saturday 12 December 2026 at 10:00"
is "the shop's text, CR LF read as lines" "$(mailpy "$n" 'm.get_body(("plain",)).get_content().rstrip()')" \
	"Dear Lee Park,
we come on Saturday 12 December 2026 at 10:00 for Wash."
printf 'Subject: Hi {custmer}\n\nx\n' > "$TMP/tmpl/confirmation.en.email"
printf 'Hi \033[2J{customer}\n' > "$TMP/tmpl/confirmation.en.sms"
st=0; fd message templates >/dev/null 2>&1 || st=$?
is "a template with an unknown name or a control character: message templates fails" "$st" 1
like "the unknown name is named" "$(fd message templates 2>&1)" "confirmation.en.email: {custmer} is not a name"
like "check reports a template file it cannot use" "$(fd check 2>&1)" "confirmation.en.sms contains a control character"
fd book --customer "Lee Park" --start "2026-12-13 10:00" --services Wash >/dev/null
fd message send --visit "$(q "SELECT max(id) FROM appointment")" --kind confirmation >/dev/null
is "a file that cannot be used gives way to the built-in template" \
	"$(q "SELECT subject FROM message WHERE id = (SELECT max(id) FROM message)")" "Your visit on Sunday 13 December 2026 at 10:00 is booked"
sed -i '/^message_template_dir/d' "$FRONTDESK_CONFIG"

# --- consent
fd message send --visit 1 --kind on-the-way --channel email >/dev/null
fd message consent "Lee Park" --email no --reason "asked at the desk" >/dev/null
is "withdrawn consent cancels what waits" "$(q "SELECT status FROM message WHERE kind = 'on_the_way' AND customer_id = 1")" cancelled
refused "withdrawn consent is honoured" message send --visit 1 --kind on-the-way --channel email
is "who changed it and when is kept" "$(q "SELECT count(*) FROM customer_contact_pref_his WHERE customer_id = 1 AND email_ok = 0 AND reason = 'asked at the desk'")" 1
fd message consent "Lee Park" --email yes >/dev/null
# withdrawn after the message was handed to the outbox: not sent, and its
# command given up (left pending, every round read it again, for ever)
fd message send --visit 1 --kind on-the-way --channel email >/dev/null
fd message schedule >/dev/null
mid=$(q "SELECT max(id) FROM message")
fd message consent "Lee Park" --email no --reason "changed their mind" >/dev/null
fd message run --once >/dev/null
is "withdrawn once handed over: cancelled, its command given up" \
	"$(q "SELECT m.status || ' ' || o.status FROM message m JOIN outbox_event o ON o.business_key = 'MSG-' || m.id WHERE m.id = $mid")" "cancelled dead"
fd message consent "Lee Park" --email yes >/dev/null

# --- the server down: retried on the backoff, sent once when it is back
smtp_stop
fd message send --visit 1 --kind on-the-way --channel email >/dev/null
round
id=$(q "SELECT max(id) FROM message")
is "the server down: the message still sending" "$(q "SELECT status FROM message WHERE id = $id")" sending
is "its command failed, to be tried again" "$(q "SELECT status FROM outbox_event WHERE business_key = 'MSG-$id'")" failed
ok "its next try waits for the backoff" test "$(q "SELECT next_retry_at FROM outbox_event WHERE business_key = 'MSG-$id'")" -ge "$(date +%s)"
smtp_start --port "$PORT" --reject bounce
# the next try comes on the backoff (the real clock): rounds until then send nothing
sent_now() { fd message run --once >/dev/null; [ "$(q "SELECT status FROM message WHERE id = $id")" = sent ]; }
ok "sent once the server is back, on the backoff" until_ok 60 sent_now
is "one more mail" "$(mails)" 7

# --- a recipient refused for good: failed, shown on the customer
fd customer edit 1 --email bounce@example.com >/dev/null
fd message send --visit 1 --kind on-the-way --channel email >/dev/null
round
id=$(q "SELECT max(id) FROM message")
is "a refused recipient: the message failed" "$(q "SELECT status FROM message WHERE id = $id")" failed
like "with the server's reason" "$(q "SELECT error FROM message WHERE id = $id")" "550"
like "the customer shows the failed address" "$(fd message consent "Lee Park" --sms yes)" "E-mail failed: bounce@example.com"
like "customer show too" "$(fd customer show 1)" "E-mail failed"
is "and in JSON" "$(fd --json customer show 1 | jget 'd["email_failed"]')" "bounce@example.com"
like "the contact log says it failed" "$(q "SELECT group_concat(summary, '|') FROM contact_log WHERE customer_id = 1")" "failed (bounce@example.com)"
is "nothing was sent" "$(mails)" 7

# --- TLS: STARTTLS required but on loopback's 127.0.0.1; the peer verified
# against the CA the config names (never turned off)
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=test CA" -keyout "$TMP/ca.key" \
	-out "$TMP/ca.pem" >/dev/null 2>&1
openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$TMP/srv.key" \
	-out "$TMP/srv.csr" >/dev/null 2>&1
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > "$TMP/san.ext"
openssl x509 -req -in "$TMP/srv.csr" -CA "$TMP/ca.pem" -CAkey "$TMP/ca.key" -CAcreateserial \
	-days 2 -extfile "$TMP/san.ext" -out "$TMP/srv.pem" >/dev/null 2>&1
fd customer edit 1 --email lee@example.com >/dev/null
# a server that offers no STARTTLS, reached by name: nothing is sent in plain
fd message provider-set mail --type email --url "smtp://localhost:$PORT" >/dev/null
fd message send --visit 1 --kind on-the-way --channel email >/dev/null
round
id=$(q "SELECT max(id) FROM message")
is "no STARTTLS offered: nothing sent in plain" "$(mails)" 7
like "the reason names TLS" "$(q "SELECT last_error FROM outbox_event WHERE business_key = 'MSG-$id'")" "SSL"
smtp_stop
smtp_start --port "$PORT" --tls "$TMP/srv.pem" "$TMP/srv.key"
printf 'message_mail_ca_file = %s\n' "$TMP/ca.pem" >> "$FRONTDESK_CONFIG"
ok "with STARTTLS and the server's CA, sent on the backoff" until_ok 60 sent_now
is "the mail arrived over TLS" "$(mails)" 8

# --- retention: a purged customer's messages keep none of their text
FRONTDESK_NOW="2022-01-05T09:00" fd customer add --name "Old Timer" --email old.timer@example.com >/dev/null
old=$(q "SELECT id FROM customer WHERE name = 'Old Timer'")
FRONTDESK_NOW="2022-01-05T09:00" fd book --customer "Old Timer" --start "2022-01-06 10:00" --services Wash >/dev/null
ov=$(q "SELECT max(id) FROM appointment")
FRONTDESK_NOW="2022-01-05T09:00" fd message send --visit "$ov" --kind confirmation >/dev/null
FRONTDESK_NOW="2022-01-05T09:00" fd message schedule >/dev/null
FRONTDESK_NOW="2022-01-05T09:00" fd message run --once >/dev/null
is "the old customer's confirmation was sent" "$(q "SELECT status FROM message WHERE customer_id = $old")" sent
FRONTDESK_NOW="2022-01-06T12:00" fd visit cancel "$ov" --reason "rain" >/dev/null
FRONTDESK_NOW="2022-01-06T12:00" fd job status "$(q "SELECT service_order_id FROM appointment_work WHERE appointment_id = $ov")" cancelled >/dev/null
ok "the old customer is proposed for deletion" fd retention propose --customer "$old"
FRONTDESK_NOW="2027-01-05T09:00" fd retention run >/dev/null
is "and purged" "$(q "SELECT count(*) FROM retention_purged WHERE customer_id = $old")" 1
is "no byte of the message is left" "$(sqlite3 "$FRONTDESK_DB" .dump | grep -c 'old.timer@example.com\|Hello Old Timer')" 0
is "nor of its address in the request log" "$(sqlite3 "${FRONTDESK_DB%.db}-requests.db" .dump | grep -c 'old.timer@example.com')" 0
ok "the request log kept the mails' envelopes" sh -c "sqlite3 '${FRONTDESK_DB%.db}-requests.db' .dump | grep -q 'RCPT TO:<lee@example.com>'"

done_testing
