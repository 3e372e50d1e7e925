#!/bin/sh
# ui-contact.sh - the contact log in the screen: the customer pane shows the
# log's heading with its count and the newest entries first; `l` opens the
# form that logs a call (channel and direction are choices, the time
# defaults to now) and posts it through the core, so the row is in
# `frontdesk contact list` for that customer and on the pane above the
# older one; a bad summary or time is refused beside its field with
# nothing written; Esc on a half-filled form asks before throwing the
# input away (any other key goes back to it, y closes it).
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

q() { sqlite3 "$FRONTDESK_DB" "$1"; }
# the contact log's rows (the screen's runner keeps its lease row fresh,
# so a dump of the whole database changes while the screen runs)
logdump() { sqlite3 "$FRONTDESK_DB" ".dump contact_log"; }

fd demo >/dev/null 2>&1
fd customer add --name "Cora Contact" --phone 555-0123 >/dev/null
cust=$(q "SELECT max(id) FROM customer")
fd contact add --customer "$cust" --channel email --direction out \
	--summary "Sent the quote" --at "2026-11-30 10:15" >/dev/null
old=$(q "SELECT max(id) FROM contact_log")
fd tasks run --once --quiet >/dev/null 2>&1

# the customer's log as the command line lists it, one line per entry:
# channel direction summary
log() {
	fd --json contact list --customer "$cust" | python3 -c '
import json, sys
for c in json.load(sys.stdin)["contacts"]:
    print(c["channel"], c["direction"], c["summary"])
'
}

screen_start
shows "the calendar opens" "Week of 2026-11-29"
keys c
shows "c opens the customer list" "Find (name, phone, address):"
keys "Cora"
shows "typing finds the customer" "1 customer."
keys Enter
shows "Enter opens the customer's pane" "Customer $cust: Cora Contact"
shows_re "the pane has the contact log with its count" "^  Contact log \(1\)"
shows_re "and the logged entry: when, channel, direction, summary" "2026-11-30 10:15 +e-mail +out +Sent the quote"
heading=$(screen_text | grep -n "Contact log (1)" | cut -d: -f1)
phone=$(screen_text | grep -n "Phone: 555-0123" | cut -d: -f1)
visits=$(screen_text | grep -n "Coming visits" | cut -d: -f1)
is "the log comes after the contact details and before the visits" \
	"$([ "$phone" -lt "$heading" ] && [ "$heading" -lt "$visits" ] && echo between)" "between"
shows "the key hints offer l" "l Log contact"

# a bad summary and a bad time are refused beside their fields
before=$(logdump)
keys l
shows "l opens the contact form" "Log a contact with Cora Contact"
shows_re "the channel is a choice" "Channel +< phone >"
shows_re "so is the direction" "Direction +< in >"
shows_re "the time defaults to now" "When +\[ +\] +empty: now"
keys Enter
shows_re "an empty summary is refused beside the field" "Summary +\[ +\] +! "
keys "Called about the wax" Tab "tomorrow" Enter
shows_re "a time that cannot be read is refused beside the field" "When +\[tomorrow +\] +! "
keys C-u "2026-12-05 10:00" Enter
shows_re "a time in the future is refused beside the field" "When +\[2026-12-05 10:00 *\] +! .*future"
is "nothing was written" "$(logdump)" "$before"

# Esc on the half-filled form asks first; another key goes back to it
keys Escape
shows "Esc with typed input asks before closing" "Close the form and lose what you typed?"
keys n
shows_re "any other key goes back to the form, the input kept" "Summary +\[Called about the wax"
keys Escape
shows "Esc asks again" "Close the form and lose what you typed?"
keys y
shows "y closes the form" "Form closed; nothing was posted."
is "and nothing was written" "$(logdump)" "$before"

# log a call: channel and direction changed with Right
keys l
shows "l opens the form again, empty" "Log a contact with Cora Contact"
keys Right
shows_re "Right changes the channel" "Channel +< text message >"
keys Left
shows_re "Left changes it back" "Channel +< phone >"
keys Tab Right
shows_re "Right changes the direction" "Direction +< out >"
keys Right
shows_re "and Right again wraps to in" "Direction +< in >"
keys Tab "Asked for a quote on a full detail" Enter
shows "the receipt says what was logged" "logged for Cora Contact."
shows_re "with when, how and what" "2026-12-01 09:00  phone  in  Asked for a quote on a full detail"
new=$(q "SELECT max(id) FROM contact_log")
is "one row was added" "$new" "$((old + 1))"
is "the row is in frontdesk contact list for the customer, newest first" "$(log)" \
"phone in Asked for a quote on a full detail
email out Sent the quote"
keys Enter
shows_re "back on the pane, the count follows" "^  Contact log \(2\)"
shows_re "the new entry is listed" "2026-12-01 09:00 +phone +in +Asked for a quote on a full detail"
first=$(screen_text | grep -n "Asked for a quote" | cut -d: -f1)
second=$(screen_text | grep -n "Sent the quote" | cut -d: -f1)
is "newest first" "$([ "$first" -lt "$second" ] && echo newest-first)" "newest-first"

# a text message we sent, at a time typed
keys l
shows "the form opens once more" "Log a contact with Cora Contact"
keys Right Tab Right Tab "Reminded of the visit" Tab "2026-11-30 16:45" Enter
shows "the second post is logged" "logged for Cora Contact."
keys Enter
shows_re "the count follows again" "^  Contact log \(3\)"
is "the command line lists all three, newest first" "$(log)" \
"phone in Asked for a quote on a full detail
sms out Reminded of the visit
email out Sent the quote"
shows_re "the pane shows the typed time" "2026-11-30 16:45 +text message +out +Reminded of the visit"
first=$(screen_text | grep -n "Asked for a quote" | cut -d: -f1)
mid=$(screen_text | grep -n "Reminded of the visit" | cut -d: -f1)
second=$(screen_text | grep -n "Sent the quote" | cut -d: -f1)
is "between the newer and the older one" \
	"$([ "$first" -lt "$mid" ] && [ "$mid" -lt "$second" ] && echo between)" "between"
keys ?
shows_re "the help lists l with its action name" "^ *l +Log a call, message or visit .* +log-contact"
keys q
keys Q
shows "Q quits" "frontdesk-exited-0"
screen_stop
done_testing
