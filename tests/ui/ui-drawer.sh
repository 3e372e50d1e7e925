#!/bin/sh
# ui-drawer.sh - the cash drawer from the desk screen: no drawer line while
# no drawer is used; $ opens the "Open a drawer" form and the status line
# then says the desk's drawer is open; cash taken at the desk goes in it;
# $ again offers pay out (an amount and a reason) and the close; the close
# is blind: a wrong count without a reason is refused with the core's
# message, the typed count kept and no expected figure anywhere on the
# screen, and with a reason the receipt shows expected, counted and short
# as the command line's `drawer show --json` has them. Two drawers open
# and none this desk's: the line asks for --desk; a desk named (--desk,
# FRONTDESK_DESK) is the one shown, "not open" while others are.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

q() { sqlite3 "$FRONTDESK_DB" "$1"; }
# money CENTS - minor units as the screen writes them ("7.50")
money() { python3 -c "import sys; v = int(sys.argv[1]); print('%s%d.%02d' % ('-' if v < 0 else '', abs(v) // 100, abs(v) % 100))" "$1"; }

fd init >/dev/null
fd customer add --name "Cash Carla" >/dev/null
fd job add --customer 1 --title "Wash" >/dev/null
fd item add --job 1 --description "Wash" --price 40 >/dev/null
fd invoice issue --jobs 1 >/dev/null
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
printf 'screen_channel = no\nscreen_runner = no\n' > "$XDG_CONFIG_HOME/frontdesk/config"

screen_start
shows "the screen opens" "Week of 2026-11-29"
case "$(screen_text)" in
*Drawer*) fail "no drawer line while no drawer is used" "$(screen_text)" ;;
*) pass "no drawer line while no drawer is used" ;;
esac

# --- open
keys '$'
shows "\$ opens the open form when no drawer is open here" "Open a drawer"
keys Enter
shows "no float: the core refuses and says why" "Not posted:"
is "nothing is opened" "$(q 'SELECT count(*) FROM drawer')" 0
keys Up C-u front Tab "20x5" Enter
shows "the float by denominations is taken" "Drawer front is open with a float of 100.00 USD."
keys Enter
shows "the status line says the desk's drawer is open" "Drawer front open"
is "one drawer, at desk front, float 100.00" "$(q 'SELECT desk, float_amount FROM drawer')" "front|10000"

# --- cash at the desk goes in it
fd pay record --customer 1 --amount 40.00 --method cash "1=40.00" >/dev/null
is "the cash payment is a movement of the drawer" \
	"$(q "SELECT kind, amount FROM drawer_movement")" "payment|4000"

# --- pay out
keys '$'
shows "\$ on an open drawer offers what to do" "Pay out"
keys Enter
shows "pay out is the first choice" "Pay out of drawer front"
keys "12.50" Tab "window cleaner" Enter
shows "paid out" "Paid out 12.50 USD from drawer front."
keys Enter
is "a paid-out of 12.50 with its reason" \
	"$(q "SELECT amount, reason FROM drawer_movement WHERE kind = 'payout'")" "-1250|window cleaner"

# --- close: blind
EXPECTED=$(q "SELECT d.float_amount + (SELECT sum(amount) FROM drawer_movement WHERE drawer_id = d.id) FROM drawer d")
EXP_TXT=$(money "$EXPECTED")
keys '$'
shows_re "the menu again, on pay out" "Do +< Pay out >"
case "$(screen_text)" in
*"$EXP_TXT"*) fail "the menu does not show the expected cash" "$(screen_text)" ;;
*) pass "the menu does not show the expected cash" ;;
esac
keys Right
shows_re "Right chooses the close" "Do +< Close \(count\) >"
keys Enter
shows "the close form asks the count" "Close drawer front (count)"
keys "120.00" Enter
shows "it asks for y" "Close drawer front with the count 120.00?"
keys y
shows "a count off without a reason is refused with the core's message" "Not posted:"
is "nothing is closed" "$(q 'SELECT count(*) FROM drawer_close')" 0
shows_re "the typed count is kept" "Counted +\[120\.00"
case "$(screen_text)" in
*"$EXP_TXT"*) fail "no expected figure on the screen after the refusal" "$(screen_text)" ;;
*) pass "no expected figure on the screen after the refusal ($EXP_TXT)" ;;
esac
keys "miscounted change" Enter
shows "it asks for y again" "Close drawer front with the count 120.00?"
keys y
shows "closed" "Drawer front is closed."
ID=$(q 'SELECT max(id) FROM drawer')
JSON=$(fd --json drawer show "$ID")
jget() { printf '%s' "$JSON" | python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }
E=$(jget 'd["expected"]')
C=$(jget 'd["counted"]')
D=$(jget 'd["difference"]')
is "the command line computes the same expected cash" "$E" "$EXPECTED"
shows "the receipt shows what was expected" "Expected: $(money "$E") USD"
shows "and what was counted" "Counted: $(money "$C") USD"
if [ "$D" -lt 0 ]; then
	shows "and the short" "Short: $(money $((-D))) USD"
else
	fail "the count of 120.00 against $EXP_TXT is short" "difference: $D"
fi
keys Enter
# (the receipt and the old status line may still be on the screen for a
# frame: wait until no "Drawer" is left, up to 10 s)
if wait_gone "Drawer"; then pass "no drawer line once no drawer is open"
else fail "no drawer line once no drawer is open" "$(screen_text)"; fi

# --- two drawers open, none this desk's
who=$(id -un)
q "INSERT INTO drawer(desk, currency, float_amount, opened_by, opened_at) VALUES
   ('east', 'USD', 0, '$who', strftime('%s', '2026-12-01 09:00')),
   ('west', 'USD', 0, '$who', strftime('%s', '2026-12-01 09:00'))"
shows "several open and none this desk's: the line asks for --desk" "Drawer: several open, set --desk"
keys '$'
shows "\$ then opens the open form" "Open a drawer"
shows "with the core's word on the desks open" "west"
keys Escape
wait_gone "Open a drawer"
keys '?' G
shows_re "the help lists the drawer key" '^[> ]*\$ +The cash drawer of this desk'
keys q
screen_stop

# --- the desk named: FRONTDESK_DESK, --desk
SCREEN_ENV="FRONTDESK_DESK=west" screen_start
shows "FRONTDESK_DESK names this desk: its drawer is the one shown" "Drawer west open"
screen_stop
screen_start --desk north
shows "a desk named whose drawer is not open while others are" "Drawer north not open"
keys '$'
shows_re "the open form has the desk named filled in" "Desk +\[north"
done_testing
