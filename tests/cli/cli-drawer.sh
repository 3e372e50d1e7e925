#!/bin/sh
# cli-drawer.sh - `frontdesk drawer`: opening with a float (a total or
# denominations), the desk named by --desk (global or the command's) or
# FRONTDESK_DESK, a paid-out, the blind count (nothing says what the drawer
# should hold before the count is written; a count that differs needs a
# reason) and what the close then shows; bad input refused with one clear
# line, nothing written.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null
q() { sqlite3 "$FRONTDESK_DB" "$1"; }
jget() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
cents() { printf '%d.%02d' $(($1 / 100)) $(($1 % 100)); }
fd customer add --name "Ann Lee" >/dev/null
# refused_like NAME PATTERN CMD... - refused (tap.sh: exit 1, one line,
# nothing written), and the line says PATTERN
refused_like() {
	n=$1 p=$2
	shift 2
	refused "$n" "$@"
	like "$n: the message says why" "$(cat "$TMP/err")" "$p"
}

# -- opening
refused_like "a drawer is opened at a named desk" "name the desk" drawer open --float 50
is "nothing was opened" "$(q "SELECT count(*) FROM drawer")" 0
fd --desk "two words" drawer open --float 5 >/dev/null 2>"$TMP/err"
is "a bad global --desk is a usage error" "$?" 2
fd drawer open --desk "two words" --float 5 >/dev/null 2>"$TMP/err"
is "a bad --desk of the command is a usage error" "$?" 2
refused_like "a bad float is refused" "not a denomination" --desk front drawer open --float 20x
refused_like "a negative float is refused" "cannot be negative" --desk front drawer open --float -5
is "still nothing opened" "$(q "SELECT count(*) FROM drawer")" 0
out=$(fd --desk front drawer open --float 20x2,5x4,0.25x8 2>&1)
like "the drawer opens" "$out" "Drawer of desk front opened"
is "its float is the denominations' sum" "$(q "SELECT float_amount, float_detail FROM drawer")" "6200|2000x2,500x4,25x8"
refused_like "a desk has one open drawer" "already open" drawer open --desk front --float 0
FRONTDESK_DESK=back fd drawer open --float 10 >/dev/null
is "FRONTDESK_DESK names the desk" "$(q "SELECT desk FROM drawer ORDER BY id DESC LIMIT 1")" back

# -- money at the desks
refused_like "with two drawers open, cash at no named desk is refused" "say at which desk" \
	pay record --customer 1 --amount 12.00 --method cash
is "and no payment was written" "$(q "SELECT count(*) FROM payment")" 0
fd --desk front pay record --customer 1 --amount 12.00 --method cash >/dev/null
FRONTDESK_DESK=back fd pay record --customer 1 --amount 3.00 --method cash >/dev/null
fd --desk front pay record --customer 1 --amount 40.00 --method check --reference 77 >/dev/null
is "each cash payment is in its desk's drawer" \
	"$(q "SELECT d.desk || ':' || m.amount FROM drawer_movement m JOIN drawer d ON d.id = m.drawer_id ORDER BY m.id" | tr '\n' ' ')" \
	"front:1200 back:300 "
refused_like "a paid-out needs a reason" "reason" drawer payout 1.00 --desk front --reason ""
refused_like "a paid-out is an amount" "the amount" drawer payout 1,0 --desk front --reason milk
refused_like "a paid-out is never more than the drawer holds" "should hold only" \
	drawer payout 1000 --desk front --reason safe
refused_like "a reason with a control character is refused" "control" \
	drawer payout 1 --desk front --reason "$(printf 'a\033[2Jb')"
fd drawer payout 2.50 --desk front --reason "window cleaner" >/dev/null
is "the paid-out is a movement out" "$(q "SELECT amount, reason FROM drawer_movement WHERE kind = 'payout'")" "-250|window cleaner"

# -- the blind count
expected=$(q "SELECT d.float_amount + (SELECT sum(amount) FROM drawer_movement WHERE drawer_id = d.id) FROM drawer d WHERE desk = 'front'")
out=$(fd drawer show --desk front 2>&1)
like "show names the open drawer" "$out" "Desk: front"
unlike() { case $2 in *"$3"*) fail "$1"; echo "#   found '$3'";; *) pass "$1";; esac; }
unlike "show does not say what it should hold" "$out" "$(cents "$expected")"
unlike "nor the cash taken" "$out" "12.00"
js=$(fd --json drawer show --desk front)
is "nor does its JSON" "$(printf '%s' "$js" | jget '"expected" in d or "taken" in d')" False
out=$(fd --json drawer list --open)
is "list --open lists both" "$(printf '%s' "$out" | jget 'len(d["drawers"])')" 2
unlike "list does not say what they should hold" "$out" "\"expected\""
fd drawer close --desk front --count 1.00 >/dev/null 2>"$TMP/err"
is "a count that differs without a reason is refused" "$?" 1
like "saying a reason is needed" "$(cat "$TMP/err")" "give the reason"
unlike "and not what was expected" "$(cat "$TMP/err")" "$(cents "$expected")"
is "nothing was counted" "$(q "SELECT count(*) FROM drawer_close")" 0
short=$((expected - 150))
out=$(fd drawer close --desk front --count "$(cents "$short")" --reason "a coin roll went missing" 2>&1)
like "the close says it is closed" "$out" "counted and closed"
like "then shows what was expected" "$out" "Expected: $(cents "$expected") USD"
like "what was counted" "$out" "Counted: $(cents "$short") USD"
like "and the short" "$out" "Short: 1.50 USD"
like "with the reason" "$out" "a coin roll went missing"
refused_like "a counted drawer is not counted again" "no drawer is open" drawer close --desk front --count 1
out=$(fd --json drawer show 1)
is "a closed drawer shows its figures" "$(printf '%s' "$out" | jget 'd["expected"], d["counted"], d["difference"], len(d["movement_list"])')" \
	"($expected, $short, -150, 2)"
fd --desk back drawer close --count 13.00 >/dev/null
is "an exact count needs no reason" "$(q "SELECT difference, reason IS NULL FROM drawer_close WHERE drawer_id = 2")" "0|1"
out=$(fd drawer list)
like "today's list shows the short" "$out" "short 1.50"
like "and the exact one" "$out" "exact"
fd drawer list --open --day 2026-01-01 >/dev/null 2>&1
is "--open and --day exclude each other" "$?" 2
fd drawer list --day 2026-13-01 >/dev/null 2>&1
is "a bad day is a usage error" "$?" 2
refused_like "a payment of a counted drawer is not voided" "counted and closed" pay void 1 --reason oops
out=$(fd check 2>&1); like "frontdesk check is clean" "$out" "No problems found"
done_testing
