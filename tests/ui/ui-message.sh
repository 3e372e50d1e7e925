#!/bin/sh
# ui-message.sh - "on our way" from the screen: one key (O) on a visit's
# pane makes the message for its customer, a text message first (an e-mail
# when they do not want texts); a customer who wants neither is told so on
# the message line and nothing is made.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

q() { sqlite3 "$FRONTDESK_DB" "$1"; }

fd init >/dev/null
fd customer add --name "Ann Lee" --phone 555-0142 --email ann@example.com >/dev/null
fd service add --name "Gutter clean" --price 80 --minutes 60 >/dev/null
fd book --customer "Ann Lee" --start "2026-12-01 10:00" --services "Gutter clean" >/dev/null

screen_start
shows "the calendar opens" "Week of 2026-11-29"
keys d
shows "the day view" "Tuesday 2026-12-01"
shows_re "with the visit selected" "^> 10:00-11:00"
keys Enter
shows "the visit's pane" "Visit 1:"
keys O
shows "O makes the message" "made for 1 customer(s)"
is "a text message first" "$(q "SELECT kind || ' ' || channel || ' ' || recipient FROM message WHERE kind = 'on_the_way'")" "on_the_way sms 5550142"
fd message consent "Ann Lee" --sms no >/dev/null
keys O
shows_re "again: by e-mail when texts are not wanted" "made for 1 customer"
is "then an e-mail" "$(q "SELECT channel FROM message WHERE kind = 'on_the_way' ORDER BY id DESC LIMIT 1")" email
fd message consent "Ann Lee" --email no >/dev/null
keys O
shows "neither wanted: the message line says so" "does not want e-mails"
is "nothing more is made" "$(q "SELECT count(*) FROM message WHERE kind = 'on_the_way'")" 2
screen_stop

# --- the customer's pane: consent, language, a refused address
PY=python3
$PY -c 'import aiosmtpd' 2>/dev/null || PY=/usr/bin/python3
mkdir -p "$TMP/mail"
$PY "$TOP_SRCDIR/tests/chan/fake-smtp.py" "$TMP/mail" --reject ann --max-seconds 120 > "$TMP/smtp.out" 2>/dev/null &
SMTP_PID=$!
until_ok 10 grep -q '^PORT' "$TMP/smtp.out"
fd message consent "Ann Lee" --email yes >/dev/null
fd message provider-set mail --type email --url "smtp://127.0.0.1:$(sed -n 's/^PORT //p' "$TMP/smtp.out")" >/dev/null
printf 'message_mail_from = desk@shop.example\n' > "$TMP/msg.ini"
fd message send --visit 1 --kind confirmation >/dev/null
FRONTDESK_CONFIG="$TMP/msg.ini" fd message schedule >/dev/null
FRONTDESK_CONFIG="$TMP/msg.ini" fd message run --once >/dev/null
kill "$SMTP_PID" 2>/dev/null
is "the server refused the address" "$(q "SELECT status FROM message WHERE kind = 'confirmation'")" failed
screen_start
shows "the calendar again" "frontdesk > Calendar"
keys c
shows "the customer list" "Customers"
keys Enter
shows "the customer's pane" "Customer 1: Ann Lee"
shows "what they want, and their language" "e-mails yes, text messages no, language the shop's"
shows "the refused address, marked" "! E-mail failed: ann@example.com"
screen_stop
done_testing
