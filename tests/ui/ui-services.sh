#!/bin/sh
# ui-services.sh - the service catalogue in the screen: S opens it from the
# calendar with each service's name, kind, default price and minutes (the
# retired ones hidden, t shows them marked); a adds a service in a form, e
# edits its price, R retires it after y (any other key keeps it); each
# change is what `frontdesk service show --json` reads back; a bad price is
# refused beside its field and changes nothing.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

q() { sqlite3 "$FRONTDESK_DB" "$1"; }
# the service table and its history (the screen's runner keeps its lease
# row fresh, so a dump of the whole database changes while the screen runs)
svcdump() { sqlite3 "$FRONTDESK_DB" ".dump service" ".dump service_his"; }
# fields of service $1 as `frontdesk service show --json` gives them
show() {
	fd --json service show "$1" | python3 -c '
import json, sys
s = json.load(sys.stdin)
print(s["name"], s["kind"], s["price"], s["currency"], s["minutes"], "active" if s["active"] else "retired")
'
}

fd demo >/dev/null 2>&1
fd service add --name "Exterior wash" --price 45.00 --minutes 60 >/dev/null
fd service add --name "Old polish" --price 20.00 >/dev/null
old=$(q "SELECT max(id) FROM service")
fd service retire "$old" >/dev/null
fd tasks run --once --quiet >/dev/null 2>&1

screen_start
shows "the calendar opens" "Week of 2026-11-29"
keys S
shows "S opens the service catalogue" "frontdesk > Calendar (Week) > Services"
shows_re "a service shows its name, kind, price and minutes" "Exterior wash +service +45.00 USD +60"
shows "the count of services offered (the demo's seven and one)" "8 services offered."
shows "the key hints offer a, e, R and t" "a New service"
is "a retired service is hidden" "$(screen_text | grep -c 'Old polish')" "0"
keys t
shows_re "t shows the retired ones, marked" "Old polish +service +20.00 USD +0 +retired"
shows "with their count" "9 services, 1 of them retired."
keys t
shows "t hides them again" "8 services offered."

# add a service
keys a
shows "a opens the new-service form" "New service"
shows_re "the currency is the shop's" "Currency +\[USD"
before=$(svcdump)
keys "Interior vacuum" Tab Tab "abc" Enter
shows_re "a price that is not an amount is refused beside the field" "Price +\[abc +\] +! "
is "and nothing is written" "$(svcdump)" "$before"
keys C-u "12.345" Enter
shows_re "too many decimals for the currency are refused beside the field" "Price +\[12.345 +\] +! "
keys C-u "-5" Enter
shows_re "a negative price is refused beside the field, saying what to do" "Price +\[-5 +\] +! .*DISCOUNT"
is "still nothing is written" "$(svcdump)" "$before"
keys C-u "35.50" Tab Tab C-u 40 Enter
shows "the receipt says what was added" "added: Interior vacuum, service, 35.50 USD, 40 min."
new=$(q "SELECT max(id) FROM service")
is "the service is what frontdesk service show reads" "$(show "$new")" "Interior vacuum SERVICE 3550 USD 40 active"
keys Enter
shows_re "the list shows it, selected" "^> Interior vacuum +service +35.50 USD +40"
shows "and counts it" "9 services offered."

# edit its price; a bad one first
keys e
shows "e edits the selected service" "Edit service $new (Interior vacuum)"
shows_re "the price field holds the price" "Price +\[35.50"
before=$(svcdump)
keys Tab Tab C-u "4,5.00" Enter
shows_re "a bad price is refused beside the field in an edit" "Price +\[4,5.00 +\] +! "
is "and changes nothing" "$(svcdump)" "$before"
is "the service keeps its price" "$(show "$new")" "Interior vacuum SERVICE 3550 USD 40 active"
keys C-u "1000000000000.01" Enter
shows_re "a price beyond the money limit is refused beside the field" "Price +\[1000000000000.01 *\] +! .*largest"
is "and changes nothing either" "$(svcdump)" "$before"
keys C-u "39.00" Enter
shows "the edit is posted" "Service $new changed: Interior vacuum, service, 39.00 USD, 40 min."
is "the new price is what frontdesk service show reads" "$(show "$new")" "Interior vacuum SERVICE 3900 USD 40 active"
keys Enter
shows_re "the list shows the new price" "^> Interior vacuum +service +39.00 USD +40"

# Esc on a half-filled form asks before throwing the input away
keys a
shows "a opens the form again" "New service"
keys "Half typed"
keys Escape
shows "Esc with typed input asks first" "Close the form and lose what you typed?"
keys y
shows "y closes the form" "Form closed; nothing was posted."
is "nothing was added" "$(q "SELECT count(*) FROM service WHERE name = 'Half typed'")" "0"

# retire it: R asks, another key keeps it, y retires it
keys R
shows "R asks before retiring" "Retire service $new (Interior vacuum)?"
keys n
shows "another key keeps it" "Service $new was not retired."
is "it is still offered" "$(show "$new")" "Interior vacuum SERVICE 3900 USD 40 active"
keys R
shows "R asks again" "Retire service $new (Interior vacuum)?"
keys y
shows "y retires it" "Service $new retired: it is no longer offered."
is "frontdesk service show says it is retired" "$(show "$new")" "Interior vacuum SERVICE 3900 USD 40 retired"
wait_gone "Interior vacuum" >/dev/null
is "the list no longer shows it" "$(screen_text | grep -c 'Interior vacuum')" "0"
is "and frontdesk service list neither" "$(fd service list | grep -c 'Interior vacuum')" "0"
keys t
shows_re "t shows it marked retired" "Interior vacuum +service +39.00 USD +40 +retired"
keys ?
shows_re "the help lists R with its action name" "^ *R +Retire the selected service.* +service-retire"
shows_re "and S among the keys that work everywhere" "^ *S +Show the service catalogue.* +services"
keys q
keys q
shows "q goes back to the calendar" "Week of 2026-11-29"
keys Q
shows "Q quits" "frontdesk-exited-0"
screen_stop
done_testing
