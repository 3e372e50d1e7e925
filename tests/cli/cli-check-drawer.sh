#!/bin/sh
# cli-check-drawer.sh - the books and the check with cash drawers and closed
# days (issue 34). Two desks take cash, give it back, pay some out and are
# counted one short and one over; the exported journal still balances in
# ledger and hledger, Assets:Payments:cash is the cash takings net of
# refunds (report takings) less the paid-outs plus over and short, to the
# cent, and the receivables and credit still equal the aging report. Then
# each new check is made to fail on a copy of the database written behind
# frontdesk's back (sqlite3 with its triggers off: they refuse these rows):
# drawer-expected, drawer-movement, drawer-open and day-closed-posted, and a reopen
# clears what came after it. check changes nothing.
. "$TOP_SRCDIR/tests/lib/tap.sh"
json() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
on() { day=$1; shift; FRONTDESK_NOW="$day" fd "$@"; }
# epoch DATE - the UTC seconds of a local time of the shop (tests run in
# America/New_York, as FRONTDESK_NOW)
epoch() { date -d "$1" +%s; }
# close_row DAY KIND AT [DB] - a close or reopen row of the shop day DAY made
# at local time AT, written with sqlite3 (its own trigger allows it)
day_row() {
	s=$(epoch "$1 00:00")
	e=$(epoch "$1 00:00 + 1 day")
	reason=NULL
	[ "$2" = reopen ] && reason="'a late payment'"
	sqlite3 "${4:-$FRONTDESK_DB}" "INSERT INTO day_close (day, kind, starts_at, ends_at, by_login,
		reason, figures, at) VALUES ('$1', '$2', $s, $e, 'tester', $reason, NULL, $(epoch "$3"))"
}
codes() { grep -o "^$1: .*" "$TMP/out"; }

fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
fd customer add --name "Bo; #2 | Co" >/dev/null
fd job add --customer 1 --title "wash" >/dev/null
fd item add --job 1 --description "wash" --price 80 >/dev/null
on 2026-12-05T08:30 invoice issue --jobs 1 >/dev/null
# cash before any drawer is open belongs to none (still cash in the books)
on 2026-12-05T08:45 pay record --customer 2 --amount 12 --method cash >/dev/null        # 1
ok "front opens its drawer" on 2026-12-05T09:00 --desk front drawer open --float 100.00
ok "desk-2 opens its drawer" on 2026-12-05T09:05 --desk desk-2 drawer open --float 50.00
on 2026-12-05T10:00 --desk front pay record --customer 1 --amount 40 --method cash \
	INV-2026-000001=40 >/dev/null                                                    # 2
on 2026-12-05T10:30 --desk front pay record --customer 1 --amount 25.50 --method cash >/dev/null # 3
on 2026-12-05T10:40 --desk desk-2 pay record --customer 2 --amount 9.99 --method cash >/dev/null # 4
ok "a cash refund at front" on 2026-12-05T11:00 --desk front refund 3 --amount 5 --reason "tip back" --method cash
on 2026-12-05T11:30 pay record --customer 1 --amount 30 --method card --reference ch_1 >/dev/null # 5
on 2026-12-05T11:40 --desk desk-2 pay record --customer 2 --amount 7 --method cash >/dev/null    # 6
ok "a cash payment voided while its drawer is open" on 2026-12-05T11:45 --desk desk-2 pay void 6 --reason "typed twice"
ok "front pays out" on 2026-12-05T12:00 --desk front drawer payout 5.00 --reason "milk; #1 | tea"
ok "desk-2 pays out" on 2026-12-05T13:00 --desk desk-2 drawer payout 10.00 --reason "window cleaner"
is "every movement is in its drawer" \
	"$(sqlite3 "$FRONTDESK_DB" "SELECT group_concat(d.desk || ' ' || m.kind || ' ' || m.amount, ', ') FROM
		(SELECT * FROM drawer_movement ORDER BY id) m JOIN drawer d ON d.id = m.drawer_id")" \
	"front payment 4000, front payment 2550, desk-2 payment 999, front refund -500, desk-2 payment 700, desk-2 void -700, front payout -500, desk-2 payout -1000"
# front should hold 100 + 40 + 25.50 - 5 - 5 = 155.50: counted 5.50 short;
# desk-2 50 + 9.99 + 7 - 7 - 10 = 49.99: counted 2.00 over
ok "front is counted short" on 2026-12-05T18:00 --desk front drawer close --count 150.00 --reason "short: a coin lost"
ok "desk-2 is counted over" on 2026-12-05T18:05 --desk desk-2 drawer close --count 51.99 --reason "over: found a coin roll"
is "the counts' differences" "$(sqlite3 "$FRONTDESK_DB" "SELECT group_concat(difference, ' ') FROM drawer_close")" "-550 200"
day_row 2026-12-05 close "2026-12-05 19:00"
out=$(on 2026-12-06T07:00 check 2>&1); like "the day's books check clean" "$out" "No problems found"

# --- the journal
on 2026-12-06T07:00 export journal --output "$TMP/j.ledger" >/dev/null
J=$TMP/j.ledger
is "ledger: every entry balances and all of them sum to zero" \
	"$(ledger -f "$J" --no-color bal 2>&1 | tail -1 | tr -d ' ')" 0
is "ledger --strict: every account and commodity declared" \
	"$(ledger --strict -f "$J" bal 2>&1 >/dev/null | grep -c Warning)" 0
ok "hledger check --strict accepts it" hledger check --strict -f "$J"
ok "hledger balances it too" hledger bal -f "$J"
takings=$(on 2026-12-06T07:00 --json report takings --from 2026-12-05 --to 2026-12-05 |
	json 'sum(r["net"] for r in d["days"] if r["method"] == "cash")')
is "report takings: the cash net of refunds" "$takings" 8249
paid=$(sqlite3 "$FRONTDESK_DB" "SELECT -sum(amount) FROM drawer_movement WHERE kind = 'payout'")
overshort=$(sqlite3 "$FRONTDESK_DB" "SELECT sum(difference) FROM drawer_close")
want=$((takings - paid + overshort))
is "cash takings - paid-outs + over/short (12 + 40 + 25.50 + 9.99 - 5 - 15 - 3.50)" "$want" 6399
cents() { python3 -c 'import sys; from decimal import Decimal; print(int(Decimal(sys.argv[1]) * 100))' "$1"; }
got=$(ledger -f "$J" --flat --no-total --balance-format '%(display_total)\n' bal '^Assets:Payments:cash$' | sed 's/ USD$//')
is "ledger: Assets:Payments:cash is takings - paid-outs + over/short, to the cent" "$(cents "$got")" "$want"
got=$(hledger -f "$J" bal --flat --no-total -O csv '^Assets:Payments:cash$' | tail -n +2 | cut -d, -f2 | tr -d '"' | sed 's/ USD$//')
is "hledger: the same" "$(cents "$got")" "$want"
is "ledger: Expenses:Paid out is the paid-outs" \
	"$(ledger -f "$J" --flat --no-total --balance-format '%(display_total)\n' bal '^Expenses:Paid out$')" "15.00 USD"
is "ledger: Income:Cash over and short is short 5.50 less over 2.00" \
	"$(ledger -f "$J" --flat --no-total --balance-format '%(display_total)\n' bal '^Income:Cash over and short$')" "3.50 USD"
is "the card and the other methods are untouched" \
	"$(ledger -f "$J" --flat --no-total --balance-format '%(account)=%(display_total)\n' bal '^Assets:Payments:card$')" \
	"Assets:Payments:card=30.00 USD"
aging=$(on 2026-12-06T07:00 --json report aging | json '"\n".join("Assets:Receivable:Customer %d=%.2f USD" % (c["customer_id"], c["owed"] / 100) for c in sorted(d["customers"], key=lambda c: c["customer_id"]) if c["owed"]) + "\n" + "\n".join("Liabilities:Customer credit:Customer %d=%.2f USD" % (c["customer_id"], -c["credit"] / 100) for c in sorted(d["customers"], key=lambda c: c["customer_id"]) if c["credit"])')
is "ledger's receivables and credit are still the aging figures" \
	"$(ledger -f "$J" --flat --no-total --no-color --balance-format '%(account)=%(display_total)\n' bal '^Assets:Receivable' '^Liabilities:Customer credit')" \
	"$aging"
is "a paid-out: the expense against the desk's cash, on its day, the reason made safe" \
	"$(grep -A2 '(paid-out 7)' "$J")" "2026-12-05 * (paid-out 7) front: milk 1 tea
    Expenses:Paid out                                 5.00 USD
    Assets:Payments:cash                              -5.00 USD"
is "a short count lowers the cash" "$(grep -A2 '(drawer 1)' "$J")" "2026-12-05 * (drawer 1) front: short: a coin lost
    Assets:Payments:cash                              -5.50 USD
    Income:Cash over and short                        5.50 USD"
is "an over count raises it" "$(grep -A2 '(drawer 2)' "$J")" "2026-12-05 * (drawer 2) desk-2: over: found a coin roll
    Assets:Payments:cash                              2.00 USD
    Income:Cash over and short                        -2.00 USD"
is "floats are no entries: two paid-outs and two counts" \
	"$(grep -c -e '(paid-out ' -e '(drawer ' "$J")" 4

# --- the next day: money with no drawer open, before and after the close
on 2026-12-06T08:00 pay record --customer 1 --amount 3 --method cash >/dev/null   # 7
on 2026-12-06T08:10 pay record --customer 1 --amount 4 --method cash >/dev/null   # 8
fd job add --customer 2 --title "tint" >/dev/null
fd item add --job 2 --description "tint" --price 45 >/dev/null
on 2026-12-06T08:20 invoice issue --jobs 2 >/dev/null
on 2026-12-06T10:00 pay record --customer 2 --amount 6 --method cash >/dev/null   # 9
on 2026-12-06T10:05 pay record --customer 2 --amount 8 --method card --reference ch_2 >/dev/null # 10
on 2026-12-06T10:30 refund 9 --amount 1 --reason "change" --method cash >/dev/null
on 2026-12-06T10:45 pay void 7 --reason "wrong customer" >/dev/null
on 2026-12-06T11:00 invoice void INV-2026-000002 --reason "not wanted" >/dev/null
on 2026-12-07T10:00 pay void 8 --reason "typed twice" >/dev/null
out=$(on 2026-12-07T11:00 check 2>&1); like "the next days check clean" "$out" "No problems found"

# --- drawer-expected: a paid-out slipped into a counted drawer, and a count
# whose difference is not counted - expected
cp "$FRONTDESK_DB" "$TMP/a.db"
sqlite3 "$TMP/a.db" ".dbconfig enable_trigger off" "INSERT INTO drawer_movement (drawer_id, kind,
	amount, reason, by_login, at) VALUES (1, 'payout', -100, 'late', 'tester', $(epoch '2026-12-05 19:00'))" >/dev/null
before=$(dump "$TMP/a.db")
on 2026-12-07T11:00 --db "$TMP/a.db" check >"$TMP/out" 2>"$TMP/err"; st=$?
is "check refuses a drawer whose movements changed after its count" "$st" 1
is "drawer-expected names it, with its figures" "$(codes drawer-expected)" \
	"drawer-expected: drawer 1 (front, USD): expected 15550, but its float 10000 plus its movements 5450 make 15450; counted 15000, difference -550"
is "nothing else is reported" "$(grep -c -v '^drawer-expected: ' "$TMP/out")" 0
is "check changed nothing" "$(dump "$TMP/a.db")" "$before"
cp "$FRONTDESK_DB" "$TMP/b.db"
sqlite3 "$TMP/b.db" ".dbconfig enable_trigger off" "PRAGMA ignore_check_constraints = ON;
	INSERT INTO drawer (id, desk, currency, float_amount, opened_by, opened_at)
	VALUES (3, 'back', 'USD', 2000, 'tester', $(epoch '2026-12-07 09:00'));
	INSERT INTO drawer_close (drawer_id, counted, expected, difference, reason, closed_by, closed_at)
	VALUES (3, 2100, 2000, 0, NULL, 'tester', $(epoch '2026-12-07 12:00'))" >/dev/null
on 2026-12-07T13:00 --db "$TMP/b.db" check >"$TMP/out" 2>"$TMP/err"; st=$?
is "check refuses a difference that is not counted - expected" "$st" 1
like "drawer-expected names the drawer" "$(codes drawer-expected)" "drawer-expected: drawer 3 (back, USD): expected 2000"

# --- drawer-movement: movements that are not their payment's or refund's
cp "$FRONTDESK_DB" "$TMP/c.db"
t=$(epoch '2026-12-07 09:30')
sqlite3 "$TMP/c.db" ".dbconfig enable_trigger off" "
	INSERT INTO drawer (id, desk, currency, float_amount, opened_by, opened_at)
	VALUES (3, 'back', 'USD', 0, 'tester', $t);
	INSERT INTO drawer_open (drawer_id, desk, opened_by) VALUES (3, 'back', 'tester');
	INSERT INTO drawer_movement (drawer_id, kind, payment_id, amount, by_login, at)
	VALUES (3, 'payment', 9, 700, 'tester', $t), (3, 'payment', 10, 800, 'tester', $t);
	INSERT INTO drawer_movement (drawer_id, kind, refund_id, amount, by_login, at)
	VALUES (3, 'refund', 2, -50, 'tester', $t);
	INSERT INTO drawer_movement (drawer_id, kind, payment_id, amount, by_login, at)
	VALUES (3, 'void', 2, -4000, 'tester', $t)" >/dev/null
before=$(dump "$TMP/c.db")
on 2026-12-07T11:00 --db "$TMP/c.db" check >"$TMP/out" 2>"$TMP/err"; st=$?
is "check refuses movements that are not their money's" "$st" 1
is "drawer-movement: a wrong amount, a card payment, a wrong refund, a void of a payment in another drawer" \
	"$(codes drawer-movement)" \
	"drawer-movement: drawer movement 9 (payment of 700 USD in drawer 3): but payment 9 is cash 600 USD
drawer-movement: drawer movement 10 (payment of 800 USD in drawer 3): but payment 10 is card 800 USD
drawer-movement: drawer movement 11 (refund of -50 USD in drawer 3): but refund 2 is cash 100 USD
drawer-movement: drawer movement 12 (void of -4000 USD in drawer 3): but payment 2 is allocated, not void"
is "nothing else is reported" "$(grep -c -v '^drawer-movement: ' "$TMP/out")" 0
is "check changed nothing" "$(dump "$TMP/c.db")" "$before"

# --- drawer-open: the list of open drawers is the sessions not counted: a
# session written without its row there, and a counted one left in it
cp "$FRONTDESK_DB" "$TMP/o.db"
sqlite3 "$TMP/o.db" ".dbconfig enable_trigger off" "
	INSERT INTO drawer (id, desk, currency, float_amount, opened_by, opened_at)
	VALUES (4, 'side', 'USD', 0, 'tester', $(epoch '2026-12-07 09:00'));
	INSERT INTO drawer_open (drawer_id, desk, opened_by) VALUES (1, 'front', 'tester')" >/dev/null
before=$(dump "$TMP/o.db")
on 2026-12-07T11:00 --db "$TMP/o.db" check >"$TMP/out" 2>"$TMP/err"; st=$?
is "check refuses an open list that is not the sessions not counted" "$st" 1
like "drawer-open names the counted drawer still listed" "$(codes drawer-open)" \
	"drawer-open: drawer 1 (front) is counted, but still listed as open"
like "and the session not listed" "$(codes drawer-open)" \
	"drawer-open: drawer 4 (side) is not counted, but not listed as open"
is "nothing else is reported" "$(grep -c -v '^drawer-open: ' "$TMP/out")" 0
is "check changed nothing" "$(dump "$TMP/o.db")" "$before"

# --- day-closed-posted: the 6th closed at 09:00, as if what came after had
# slipped past the triggers: a cash payment, a refund, two voids made in
# the day and a void the next day of a payment received in it. The cash
# payment at 08:00 came before the close, the card payment is the
# channel's: neither is reported.
day_row 2026-12-06 close "2026-12-06 09:00"
before=$(dump)
on 2026-12-07T11:00 check >"$TMP/out" 2>"$TMP/err"; st=$?
is "check refuses money posted into a closed day" "$st" 1
is "day-closed-posted names each, with how long after the close" "$(codes day-closed-posted)" \
	"day-closed-posted: payment 9 (cash 600 USD) is dated into 2026-12-06, closed (close 2), and was posted 3600 s after the close
day-closed-posted: refund 2 (cash 100 USD) is dated into 2026-12-06, closed (close 2), and was posted 5400 s after the close
day-closed-posted: payment 7 was voided in 2026-12-06, closed (close 2), 6300 s after the close
day-closed-posted: invoice 2 was voided in 2026-12-06, closed (close 2), 7200 s after the close
day-closed-posted: payment 8 (cash 400 USD) received in 2026-12-06, closed (close 2), was voided 90000 s after the close"
is "nothing else is reported" "$(grep -c -v '^day-closed-posted: ' "$TMP/out")" 0
is "check changed nothing" "$(dump)" "$before"
fd --json check >"$TMP/json" 2>/dev/null
is "--json: the rule of the code" "$(json '[v["rule"] for v in d["violations"]][0]' <"$TMP/json")" \
	"no money is posted into a closed day after its close without a reopen (no payment, refund, void or credit note; card money excepted)"
# a reopen before them all: nothing was posted into a closed day
day_row 2026-12-06 reopen "2026-12-06 09:30"
out=$(on 2026-12-07T11:00 check 2>&1); like "a reopen before the postings clears them" "$out" "No problems found"
# closed again at 10:15: the payment of 10:00 came while it was open
day_row 2026-12-06 close "2026-12-06 10:15"
on 2026-12-07T11:00 check >"$TMP/out" 2>"$TMP/err"
is "closed again: only what came after the second close" "$(codes day-closed-posted | cut -d, -f1)" \
	"day-closed-posted: refund 2 (cash 100 USD) is dated into 2026-12-06
day-closed-posted: payment 7 was voided in 2026-12-06
day-closed-posted: invoice 2 was voided in 2026-12-06
day-closed-posted: payment 8 (cash 400 USD) received in 2026-12-06"

# a drawer of a currency no payment uses: its commodity is declared, and
# its paid-out is in it
ok "a EUR drawer opens" on 2026-12-08T09:00 --desk euro drawer open --float 20.00 --currency EUR
ok "and pays out" on 2026-12-08T10:00 --desk euro drawer payout 1.50 --reason "stamps"
on 2026-12-08T11:00 export journal --output "$TMP/j2.ledger" >/dev/null
is "its commodity is declared" "$(grep -c '^commodity EUR$' "$TMP/j2.ledger")" 1
is "its paid-out is in euros" "$(grep -A2 'euro: stamps' "$TMP/j2.ledger" | tail -2)" \
	"    Expenses:Paid out                                 1.50 EUR
    Assets:Payments:cash                              -1.50 EUR"
is "ledger --strict still finds every commodity declared" \
	"$(ledger --strict -f "$TMP/j2.ledger" bal 2>&1 >/dev/null | grep -c Warning)" 0
ok "hledger check --strict too" hledger check --strict -f "$TMP/j2.ledger"

# the closed days' payments and refunds are read by their time indexes, one
# day's window at a time: the plan of day-closed-posted as check runs it
# (its SQL taken from src/checkdb.c, its macro expanded) scans no payment,
# refund or invoice, and builds no index for one
python3 - "$TOP_SRCDIR/src/checkdb.c" >"$TMP/plan.sql" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
strings = lambda t: ''.join(re.findall(r'"((?:[^"\\]|\\.)*)"', t))
mac = re.search(r'#define DAY_NOT_REOPENED\(t\)(.*?)\n\n', s, re.S).group(1)
mac = strings(mac.replace('" t "', '@T@'))
a = s.index('{ "day-closed-posted"')
b = s.index('},', a)
body = re.sub(r'/\*.*?\*/', '', s[a:b], flags=re.S)
body = re.sub(r'DAY_NOT_REOPENED\("([^"]*)"\)',
              lambda x: '"' + mac.replace('@T@', x.group(1)) + '"', body)
print('EXPLAIN QUERY PLAN ' + strings(body[body.index('),') + 2:]) + ';')
PY
plan=$(sqlite3 "$FRONTDESK_DB" < "$TMP/plan.sql" 2>&1)
like "a closed day's payments by payment_by_received" "$plan" \
	"SEARCH p USING INDEX payment_by_received (received_at>? AND received_at<?)"
like "its refunds by refund_by_refunded" "$plan" \
	"SEARCH r USING INDEX refund_by_refunded (refunded_at>? AND refunded_at<?)"
is "no scan of payment, refund or invoice, nor an index built for one" \
	"$(printf '%s\n' "$plan" | grep -c -E 'SCAN (p|r|i|y)( |$)|AUTOMATIC')" 0
done_testing
