#!/bin/sh
# ui-roles.sh - the screen as a technician and as a desk, each a real Unix
# account of the staff register: the key bar and the help leave out what
# the technician may not do (the customers, taking payments), a key of it
# pressed anyway says which permission is missing and opens nothing, and
# the desk sees and opens the same. Skipped (said) when not root.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/accounts.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"
accounts_or_skip "the screen as a technician and as a desk"
trap 'screen_stop; for a in $ACCOUNTS; do userdel "$a" 2>/dev/null; done; rm -rf "$TMP"' EXIT

fd demo >/dev/null 2>&1
account tech t
account desk d
fd staff add "$tech" --name "Tess Tech" --role technician >/dev/null
fd staff add "$desk" --name "Dana Desk" --role desk >/dev/null
share_db
mkdir -p "$TMP/state" "$TMP/config"
chmod 0777 "$TMP/state" "$TMP/config"
real=$FRONTDESK

# a hint of the bar: the last line of the screen
bar() { screen_text | tail -n 1; }

FRONTDESK="runuser -u $tech -- $real"
screen_start
ok "the technician's screen opens on the calendar" wait_for "Help"
like "the technician's bar has the way out" "$(bar)" "Quit"
case "$(bar)" in
*Customers*) fail "the technician's bar leaves out the customers" "bar: $(bar)" ;;
*) pass "the technician's bar leaves out the customers" ;;
esac
keys c
ok "c says which permission is missing" wait_for "records.view"
case "$(screen_text)" in
*"Type to find"*|*"Name "*) fail "... and opens no customer list" "$(screen_text | head -5)" ;;
*) pass "... and opens no customer list" ;;
esac
keys '?'
ok "the help opens" wait_for "Keys everywhere"
case "$(screen_text)" in
*"Show the customers"*) fail "the technician's help leaves out the customers" ;;
*) pass "the technician's help leaves out the customers" ;;
esac
screen_stop

FRONTDESK="runuser -u $desk -- $real"
screen_start
ok "the desk's screen opens" wait_for "Help"
like "the desk's bar offers the customers" "$(bar)" "Customers"
keys '?'
ok "the desk's help lists the customers" wait_for "Show the customers"
screen_stop
FRONTDESK=$real
done_testing
