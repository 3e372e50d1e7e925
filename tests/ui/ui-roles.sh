#!/bin/sh
# ui-roles.sh - the screen as a technician, a desk and a manager, each a
# real Unix account of the staff register: the key bar and the help leave
# out what the technician may not do (the customers, taking payments), a
# key of it pressed anyway says which permission is missing and opens
# nothing, and the desk sees and opens the same. A desk's refund (which a
# desk may not do alone) is refused, then approved with a manager's PIN
# typed at the desk's screen, or asked for and approved from the manager's
# session; the manager's queue (Y) approves with y. Skipped (said) when not
# root.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/accounts.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"
accounts_or_skip "the screen as a technician, a desk and a manager"
# the database as the test reads it (waiting while a closing session holds it)
sq() { sqlite3 -cmd ".timeout 5000" "$FRONTDESK_DB" "$1"; }
trap 'screen_stop; accounts_remove; rm -rf "$TMP"' EXIT
ROOT_BIN=$FRONTDESK

fd demo >/dev/null 2>&1
account tech t
account desk d
account boss m
fd staff add "$tech" --name "Tess Tech" --role technician >/dev/null
fd staff add "$desk" --name "Dana Desk" --role desk >/dev/null
fd staff add "$boss" --name "Max Manager" --role manager >/dev/null
fd customer add --name "Ray Fund" >/dev/null
cust=$(sq "SELECT max(id) FROM customer")
fd job add --customer "$cust" --title "Detail" --currency USD >/dev/null
job=$(sq "SELECT max(id) FROM service_order")
fd item add --job "$job" --description "Detail" --price 180 >/dev/null
inv=$(fd --json invoice issue --jobs "$job" | python3 -c 'import json,sys; print(json.load(sys.stdin)["number"])')
fd pay record --customer "$cust" --amount 200 --method cash "$inv=100" >/dev/null
pay=$(sq "SELECT max(id) FROM payment")
share_db
mkdir -p "$TMP/state" "$TMP/config"
chmod 0777 "$TMP/state" "$TMP/config"
real=$ABIN

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
keys q

# a refund of 30.00 from the payment's pane: refused, then a manager's PIN
printf '8642\n8642\n' | runuser -u "$boss" -- "$real" staff pin >/dev/null
refunds() { sq "SELECT count(*) FROM refund"; }
refund_form() { # from the calendar: search the invoice, its allocation's payment, r
	keys / && sleep 0.2 && keys "$inv" Enter
	wait_for "Search results" && keys Enter
	wait_for "Allocations" && keys Enter
	wait_for "Payment $pay from" && keys r
	wait_for "Amount to give back" && keys C-u 3 0 Tab Tab Tab u n h a p p y Enter
	wait_for "Press y to confirm" && keys y
}
refund_form
ok "the desk's refund is refused and the approval form opens" wait_for "A manager's approval"
like "... saying which permission" "$(screen_text)" '"refund"'
is "nothing was refunded" "$(refunds)" 0
keys "$boss" Tab 1 1 1 1 Enter
ok "a wrong PIN is refused" wait_for "wrong PIN"
is "... the try logged" "$(sq "SELECT count(*) FROM staff_pin_try WHERE tried_by = '$desk' AND ok = 0")" 1
keys C-u 8 6 4 2 Enter
ok "the manager's PIN approves it" wait_for "Approved by $boss"
case "$(screen_text)" in
*8642*) fail "the PIN is never shown" ;;
*) pass "the PIN is never shown" ;;
esac
keys Enter
ok "the form posts it" wait_for "Press y to confirm"
keys y
ok "the refund is posted" wait_for "given back"
is "one refund" "$(refunds)" 1
is "approved by the manager's PIN, named" "$(sq "SELECT requested_by, decided_by, how, status FROM approval")" "$desk|$boss|pin|used"
keys Enter q q q

# asked for from the manager's own session
refund_form
ok "refused again" wait_for "A manager's approval"
keys BTab Right Enter
ok "the request is filed" wait_for "Asked for approval"
id=$(sq "SELECT id FROM approval WHERE status = 'waiting'")
ok "... waiting" [ -n "$id" ]
runuser -u "$boss" -- "$real" approve yes "$id" >/dev/null
keys Enter
ok "approved, the form posts it" wait_for "Press y to confirm"
keys y
ok "the second refund is posted" wait_for "given back"
is "two refunds" "$(refunds)" 2
is "the approval is used" "$(sq "SELECT status, how FROM approval WHERE id = $id")" "used|session"
screen_stop

# the manager's queue
runuser -u "$desk" -- "$real" --ask-approval refund "$pay" --amount 20 --reason "again" >/dev/null 2>"$TMP/err"
like "a desk asks from the command line" "$(cat "$TMP/err")" "asked for approval"
id=$(sq "SELECT id FROM approval WHERE status = 'waiting'")
FRONTDESK="runuser -u $boss -- $real"
screen_start
ok "the manager's screen opens" wait_for "Help"
keys Y
ok "Y shows the waiting request" wait_for "Dana Desk"
keys y
ok "y approves it" wait_for "Approval $id given" || screen_text | sed 's/^/# /'
is "... in the database" "$(sq "SELECT status, decided_by FROM approval WHERE id = $id")" "approved|$boss"
screen_stop
FRONTDESK=$ROOT_BIN
done_testing
