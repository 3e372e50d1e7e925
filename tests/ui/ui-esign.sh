#!/bin/sh
# ui-esign.sh - E on a visit's job sends the job's estimate for signature
# (the same core call as `frontdesk estimate send`): the message line names
# the estimate and its provider, and the job shows where its signature
# stands; once the flow is signed, the visit pane says the job is
# authorised, and Enter on that line opens the estimate pane with the
# signed document and the provider's evidence. A second E is refused with
# the reason on the message line.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=esk_made_up_ui_key
SECRET=whsec_made_up_ui_secret
FAKE_PID=
trap 'screen_stop; [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
fake_run fake-esign.py 60 --api-key "$KEY" --secret "$SECRET"

fd init >/dev/null
fd customer add --name "Sign Sam" >/dev/null
fd job add --customer 1 --title "Respray" >/dev/null
fd item add --job 1 --description "Respray bonnet" --price 300 >/dev/null
fd appt add --start "2026-12-01 10:00" --end "2026-12-01 11:00" --location "Bay 2" >/dev/null
fd link add --appt 1 --job 1 --minutes 60 >/dev/null
fd estimate provider-set sign1 --url "$BASE" >/dev/null
fd tasks run --once --quiet >/dev/null 2>&1
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'sign1_api_key = %s\nsign1_signing_secret = %s\n' "$KEY" "$SECRET" \
	> "$XDG_CONFIG_HOME/frontdesk/secrets")
printf 'screen_channel = no\nscreen_runner = no\n' >"$XDG_CONFIG_HOME/frontdesk/config"

screen_start
shows "the calendar opens" "Week of"
keys d
shows_re "the day view lists the visit" "10:00-11:00"
keys Enter
shows "Enter opens the visit" "Job 1: Respray - Sign Sam"
ok "no signature line before an estimate is sent" sh -c "! screen_text | grep -q Signature:"
keys j
keys E
shows "E sends the job's estimate: the message names it" "Estimate EST-2026-000001 sent for signature through sign1."
shows "the job shows where its signature stands" "Signature: estimate sent, not signed yet"
is "the estimate is stored with its flow" "$(sqlite3 "$FRONTDESK_DB" "SELECT e.number, f.status, f.provider_code FROM estimate e JOIN esign_flow f ON f.estimate_id = e.id")" \
	"EST-2026-000001|sent|sign1"
keys E
shows "a second E is refused, saying why" "already has an estimate waiting for its signature"
is "and nothing more was stored" "$(sqlite3 "$FRONTDESK_DB" "SELECT count(*) FROM estimate")" 1
# the worker sends it, the customer signs, the callback is relayed and applied
fd estimate run --once >/dev/null
ctl move/env_1 '{"status": "completed"}' > "$TMP/cb.json"
jget 'd["body"]' < "$TMP/cb.json" | tr -d '\n' |
	fd estimate callback --provider sign1 --signature "$(jget 'd["signature"]' < "$TMP/cb.json")" >/dev/null
fd estimate run --once >/dev/null
keys Escape
keys Enter
shows "once signed, the visit pane says the job is authorised" "Signature: authorised (estimate signed)"
keys j j
keys Enter
shows "Enter on the signature opens the estimate pane" "Estimate EST-2026-000001: signed"
shows "it shows the envelope" "Envelope: env_1"
shows "the stored document" "Signed document: EST-2026-000001-signed.pdf"
shows "the evidence: the signer and the IP address" "Signer: Sign Sam <> from 203.0.113.7"
shows "the certificate" "Certificate: CERT-FAKE-0001"
shows_re "the timestamp token" "Timestamp token: [A-Za-z0-9+/=]+"
keys Escape
shows "back to the visit" "Job 1: Respray - Sign Sam"
keys k Enter
shows "Enter on the job opens the job pane" "Job 1: Respray (open, USD)"
shows "the job pane shows the job authorised" "Signature: authorised (estimate signed)"
keys Enter
shows "Enter on its customer line opens the customer" "Jobs"
shows "the customer pane shows the job authorised" "Signature: authorised (estimate signed)"
screen_stop
done_testing
