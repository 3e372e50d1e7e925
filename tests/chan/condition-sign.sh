#!/bin/sh
# condition-sign.sh - the customer acknowledges the condition report taken
# before the work through the e-sign flow estimates use, against the fake
# e-sign provider (tests/chan/fake-esign.py): only a final report taken
# before the work, with its document whole, is sent, and only once while a
# flow of it waits or is signed; a request the provider never got is given
# up past the horizon and `check` says so; the worker sends the report's own printed
# document (its bytes and hash) under the reference CR-<report>-F<flow>; the
# signed document is kept beside the database with its hash, shown by
# `condition show`, checked by `frontdesk check` (changed, missing); a
# retention purge removes it and clears its path and evidence. Every key
# here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/png.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=esk_made_up_condition_key
SECRET=whsec_made_up_condition_secret
FAKE_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

fake_run fake-esign.py 120 --api-key "$KEY" --secret "$SECRET"
ok "the fake e-sign provider started" test -n "$PORT"
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'sign1_api_key = %s\nsign1_signing_secret = %s\nsign2_api_key = %s\nsign2_signing_secret = %s\n' \
	"$KEY" "$SECRET" "$KEY" "$SECRET" > "$XDG_CONFIG_HOME/frontdesk/secrets")
relay() {
	ctl "move/$2" "{\"status\": \"$1\"}" > "$TMP/cb.json"
	jget 'd["body"]' < "$TMP/cb.json" | tr -d '\n' > "$TMP/cb.body"
	fd inbox ingest --provider sign2 --signature "$(jget 'd["signature"]' < "$TMP/cb.json")" \
		< "$TMP/cb.body" >/dev/null
}
run() { fd estimate run --once --provider sign2 >/dev/null; }

export FRONTDESK_NOW="2022-03-10 08:00"
fd init >/dev/null
fd customer add --name "Ada Lee" --email ada@example.com >/dev/null
fd book --customer 1 --start "2022-03-10 09:00" --length 1:00 >/dev/null
fd visit status 1 in_progress >/dev/null
fd visit status 1 done >/dev/null
fd condition add --visit 1 --note "scuff on the rear bumper" >/dev/null
fd condition add --visit 1 --stage after >/dev/null
png "$TMP/a.png" 40 20 200 40 40
fd condition media add 1 "$TMP/a.png" >/dev/null
fd condition hotspot add --media 1 --kind damage --text "scuff" --at 0.5,0.5 >/dev/null
fd estimate provider-set sign1 --url "$BASE" >/dev/null

# --- what is refused, changing nothing
refused "an open report is not sent" condition sign 1
like "... saying to make it final" "$(cat "$TMP/err")" "condition finalize 1"
fd condition finalize 2 >/dev/null
refused "a report taken after the work is not sent" condition sign 2
fd condition finalize 1 >/dev/null
MEDIA="$(dirname "$FRONTDESK_DB")/media"
doc="$MEDIA/$(db "SELECT document_path FROM condition_report WHERE id = 1")"
cp "$doc" "$TMP/doc.keep"
chmod u+w "$doc"; printf 'x' >> "$doc"
refused "a report whose document changed is not sent" condition sign 1
cp "$TMP/doc.keep" "$doc"
refused "a report that does not exist" condition sign 9

# --- sent to a provider that cannot be reached, given up past the horizon
fd estimate provider-set sign2 --url "http://127.0.0.1:1" --role backup >/dev/null
refused "an e-sign provider that does not exist" condition sign 1 --provider nosuch
fd estimate provider-set sign2 --disable >/dev/null
refused "... or is disabled" condition sign 1 --provider sign2
like "... saying so" "$(cat "$TMP/err")" "the e-sign provider 'sign2' is disabled"
fd estimate provider-set sign2 --enable >/dev/null
is "sent: the flow and its command" "$(fd --json condition sign 1 --provider sign2 | jget 'd["flow_id"], d["state"]')" "1 sent"
is "the command waits in the outbox under the report's number" \
	"$(db "SELECT event_type, business_key, status FROM outbox_event WHERE integration_type = 'esign'")" \
	"envelope.create|CR-1-F1|pending"
refused "a second request while one waits" condition sign 1
FRONTDESK_NOW="2022-03-11 09:00" fd estimate run --once --provider sign2 >/dev/null 2>&1
is "the provider down past the horizon: given up" "$(db "SELECT status FROM outbox_event WHERE business_key = 'CR-1-F1'")" dead
like "check says so, naming the report" "$(fd check 2>&1)" \
	"(envelope.create of condition report CR-1-F1 at sign2) is dead while its sign flow is sent"
fd estimate provider-set sign2 --url "$BASE" >/dev/null
ok "a person revives it" fd outbox retry "$(db "SELECT id FROM outbox_event WHERE business_key = 'CR-1-F1'")"
like "a customer whose report is out for signature is not purged" \
	"$(FRONTDESK_NOW="2026-12-01 09:00" fd retention run --dry-run 2>&1)" "condition report 1 is out for signature"

# --- delivered, signed
run
is "the worker sent it: the envelope is known" "$(db "SELECT envelope_id FROM esign_flow WHERE report_id = 1")" env_1
is "the provider got the reference" "$(ctl state '' | jget 'd["envelopes"]["env_1"]["reference"]')" CR-1-F1
relay viewed env_1
relay completed env_1
run
is "signed" "$(fd --json condition show 1 | jget 'd["signature"]["state"]')" signed
signed="$TMP/esign/CR-1-F1-signed.pdf"
ok "the signed document is kept beside the database" test -s "$signed"
is "it is 0600" "$(stat -c %a "$signed")" 600
is "what was signed is the report's own document" \
	"$(head -c "$(stat -c %s "$TMP/doc.keep")" "$signed" | sha256sum)" "$(sha256sum < "$TMP/doc.keep")"
is "condition show names its hash" "$(fd --json condition show 1 | jget 'd["signature"]["document_sha256"]')" \
	"$(sha256sum < "$signed" | cut -d' ' -f1)"
like "... in words too" "$(fd condition show 1)" "$(sha256sum < "$signed" | cut -d' ' -f1)"
refused "a signed report is not sent again" condition sign 1

# --- check: the signed document's hash
ok "check is clean" fd check
cp "$signed" "$TMP/signed.keep"
chmod u+w "$signed"; printf 'tampered' >> "$signed"
like "check sees the signed document changed" "$(fd check 2>&1)" \
	"esign-document-changed: the signed document of condition report 1 does not match its SHA-256"
rm -f "$signed"
like "... or missing" "$(fd check 2>&1)" "esign-document-missing: the signed document of condition report 1 is missing"
cp "$TMP/signed.keep" "$signed"
ok "whole again" fd check

# --- the purge removes it
export FRONTDESK_NOW="2026-12-01 09:00"
fd retention run >/dev/null
export FRONTDESK_NOW="2027-01-05 09:00"
fd retention run >/dev/null
ok "the customer is purged" test -n "$(fd --json retention certs | jget 'd["certificates"][0]["deletion_id"]')"
ok "the signed document is removed" test ! -e "$signed"
is "its path and evidence are cleared, its hash kept" \
	"$(db "SELECT document_path IS NULL, evidence IS NULL, length(document_sha256) FROM esign_flow WHERE report_id = 1")" "1|1|64"
is "... in the history too" "$(db "SELECT count(*) FROM esign_flow_his WHERE report_id = 1 AND (document_path IS NOT NULL OR evidence IS NOT NULL)")" 0
ok "check is clean after the purge" fd check
done_testing
