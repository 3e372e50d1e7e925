#!/bin/sh
# cli-contact.sh - the contact log from the command line: rows are only
# ever added (the schema refuses UPDATE and DELETE), a correction is a new
# row referring to an older one of the same customer, lists are newest
# first, and every bad input is refused with nothing changed.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null
db() { sqlite3 "$FRONTDESK_DB" "$1"; }
jget() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
fd customer add --name "Ada Lee" >/dev/null
fd customer add --name "Bo Chen" >/dev/null
fd customer add --name "Cy Park" >/dev/null

# --- adding and listing -----------------------------------------------------------
out=$(fd contact add --customer 1 --channel phone --direction in --summary "Asked for a quote" --at "2026-11-30 10:15")
is "log a call" "$out" "Contact 1 logged."
ok "log a message, now" fd contact add --customer 1 --channel SMS --direction out --summary "Sent the quote"
ok "log a visit at the counter, earlier" fd contact add --customer 1 --channel counter --direction in \
	--summary "Dropped off the keys" --at "2026-11-29 16:00"
ok "log an e-mail of another customer" fd contact add --customer 2 --channel email --direction out --summary "Reminder"
out=$(fd --json contact list --customer 1)
is "newest first" "$(printf '%s' "$out" | jget '[c["id"] for c in d["contacts"]]')" "[2, 1, 3]"
is "json: the channel in canonical spelling" "$(printf '%s' "$out" | jget 'd["contacts"][0]["channel"]')" sms
is "json: when, in UTC" "$(printf '%s' "$out" | jget 'd["contacts"][1]["at"]')" "2026-11-30T15:15:00Z"
is "json: the operator" "$(printf '%s' "$out" | jget 'd["contacts"][0]["operator"]')" "$(id -un)"
is "json: no correction" "$(printf '%s' "$out" | jget 'd["contacts"][0]["corrects_id"]')" None
is "the time defaults to now" "$(db "SELECT datetime(at, 'unixepoch') FROM contact_log WHERE id = 2")" "2026-12-01 14:00:00"
out=$(fd contact list --customer 1)
like "text list: time, channel, direction, summary" "$out" "2026-11-30 10:15  phone   in   Asked for a quote"
is "text list: newest first" "$(printf '%s\n' "$out" | cut -c1-6 | tr -d ' ' | tr '\n' ' ')" "2 1 3 "
is "another customer's log" "$(fd --json contact list --customer 2 | jget 'len(d["contacts"])')" 1
is "an empty log" "$(fd contact list --customer 3)" ""

# --- a correction is a new row ----------------------------------------------------
out=$(fd --json contact add --customer 1 --channel phone --direction in --corrects 1 \
	--summary "Asked for a quote for two cars" --at "2026-11-30 10:15")
is "json add: the correction refers to the old row" "$(printf '%s' "$out" | jget 'd["corrects_id"]')" 1
is "the corrected row is unchanged" "$(db "SELECT summary FROM contact_log WHERE id = 1")" "Asked for a quote"
out=$(fd contact list --customer 1)
like "the list says which row corrects it" "$out" "Asked for a quote  [corrected by 5]"
like "and what the correction corrects" "$out" "two cars  [corrects 1]"

# --- bad input: refused, nothing changed --------------------------------------------
refused "unknown customer" contact add --customer 99 --channel phone --direction in --summary "x"
refused "bad channel" contact add --customer 1 --channel fax --direction in --summary "x"
like "the channel message lists the channels" "$(cat "$TMP/err")" "phone, sms, email, counter or other"
refused "bad direction" contact add --customer 1 --channel phone --direction sideways --summary "x"
refused "empty summary" contact add --customer 1 --channel phone --direction in --summary ""
refused "card number in a summary" contact add --customer 1 --channel phone --direction in \
	--summary "Paid with 4111 1111 1111 1111, please charge"
like "the card message says why" "$(cat "$TMP/err")" "card"
refused "control characters in a summary" contact add --customer 1 --channel phone --direction in \
	--summary "$(printf 'a\033[2Jb')"
refused "a time in the future" contact add --customer 1 --channel phone --direction in --summary "x" --at "2026-12-02 09:00"
refused "a time that is not one" contact add --customer 1 --channel phone --direction in --summary "x" --at "yesterday"
refused "correct another customer's contact" contact add --customer 2 --channel phone --direction in --summary "x" --corrects 1
like "the message names both customers" "$(cat "$TMP/err")" "customer 1, not 2"
refused "correct a contact that does not exist" contact add --customer 1 --channel phone --direction in --summary "x" --corrects 99
refused "list of an unknown customer" contact list --customer 99
refused "delete a customer with a contact log" customer delete 2
fd contact add --channel phone --direction in --summary "x" >/dev/null 2>&1
is "add without --customer is bad usage" "$?" 2
fd contact add --customer 1 --direction in --summary "x" >/dev/null 2>&1
is "add without --channel is bad usage" "$?" 2
fd contact list >/dev/null 2>&1; is "list without --customer is bad usage" "$?" 2

# --- the schema: rows are only ever added -------------------------------------------
before=$(db "SELECT * FROM contact_log ORDER BY id")
out=$(db "UPDATE contact_log SET summary = 'changed' WHERE id = 1" 2>&1)
like "raw UPDATE refused by the trigger" "$out" "contact log rows are never changed"
out=$(db "DELETE FROM contact_log WHERE id = 1" 2>&1)
like "raw DELETE refused by the trigger" "$out" "contact log rows are never deleted"
out=$(db "INSERT INTO contact_log (customer_id, at, channel, direction, summary, operator_id, corrects_id, created_at) VALUES (3, 0, 'phone', 'in', 'x', 'me', 1, 0)" 2>&1)
like "raw INSERT correcting another customer's row refused" "$out" "same customer"
out=$(db "INSERT INTO contact_log (customer_id, at, channel, direction, summary, operator_id, created_at) VALUES (3, 0, 'pigeon', 'in', 'x', 'me', 0)" 2>&1)
like "raw INSERT with a bad channel refused" "$out" "CHECK constraint failed"
is "the log is as it was" "$(db "SELECT * FROM contact_log ORDER BY id")" "$before"

done_testing
