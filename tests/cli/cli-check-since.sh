#!/bin/sh
# cli-check-since.sh - `frontdesk check --since DATE` checks the records
# created or changed since DATE (a nightly run): a defect planted behind
# frontdesk's back (sqlite3, triggers off) in a record older than DATE is
# not reported with --since but is by the whole check; a defect in a record
# made after DATE, or in an old invoice that a new payment was allocated
# to, is reported with --since too. A date the core's clock cannot read is
# a usage error that opens nothing. check changes nothing.
. "$TOP_SRCDIR/tests/lib/tap.sh"
on() { day=$1; shift; FRONTDESK_NOW="$day" fd "$@"; }
# plant SQL - change the database behind frontdesk's back
plant() { sqlite3 "$FRONTDESK_DB" ".dbconfig enable_trigger off" "$1" >/dev/null; }
codes() { grep -c "$1" "$TMP/out"; }

on 2026-01-10T10:00 init >/dev/null
on 2026-01-10T10:00 customer add --name "Ada Lee" >/dev/null
on 2026-01-10T10:00 customer add --name "Bob Stone" >/dev/null
on 2026-01-10T10:00 job add --customer 1 --title "wash" >/dev/null
on 2026-01-10T10:00 item add --job 1 --description "wash" --price 80 >/dev/null
on 2026-01-10T10:05 invoice issue --jobs 1 >/dev/null                        # invoice 1, old
on 2026-01-10T10:00 job add --customer 2 --title "wax" >/dev/null
on 2026-01-10T10:00 item add --job 2 --description "wax" --price 50 >/dev/null
on 2026-01-10T10:05 invoice issue --jobs 2 >/dev/null                        # invoice 2, old
on 2026-03-10T10:00 job add --customer 1 --title "polish" >/dev/null
on 2026-03-10T10:00 item add --job 3 --description "polish" --price 30 >/dev/null
on 2026-03-10T10:05 invoice issue --jobs 3 >/dev/null                        # invoice 3, new
ok "the healthy database checks clean" on 2026-03-11T09:00 check
ok "and clean over a range" on 2026-03-11T09:00 check --since 2026-03-01
is "three invoices" "$(sqlite3 "$FRONTDESK_DB" "SELECT count(*) FROM invoice")" 3

# -- a defect in an old invoice: only the whole check sees it
plant "UPDATE invoice SET paid = 7, balance = total - 7 WHERE id = 2"
before=$(dump)
on 2026-03-11T09:00 check --since 2026-03-01 >"$TMP/out" 2>"$TMP/err"; st=$?
is "--since after the old invoice's last change: clean" "$st" 0
is "--since says so" "$(cat "$TMP/out")" "No problems found."
on 2026-03-11T09:00 check >"$TMP/out" 2>"$TMP/err"; st=$?
is "the whole check refuses it" "$st" 1
like "the whole check reports the old invoice's paid" "$(grep '^invoice-paid: ' "$TMP/out")" "invoice 2 "
ok "and its history" grep -q '^history-differs: invoice 2 ' "$TMP/out"
on 2026-03-11T09:00 check --since 2026-01-01 >"$TMP/out" 2>"$TMP/err"; st=$?
is "--since before the old invoice was made: reported" "$st" 1
like "with its paid" "$(grep '^invoice-paid: ' "$TMP/out")" "invoice 2 "
is "check changed nothing" "$(dump)" "$before"

# -- a defect in a new invoice: --since sees it
plant "UPDATE invoice SET total = total + 1, balance = balance + 1 WHERE id = 3"
on 2026-03-11T09:00 check --since 2026-03-01 >"$TMP/out" 2>"$TMP/err"; st=$?
is "--since refuses a defect in a record made since" "$st" 1
like "it names the new invoice's total" "$(grep '^invoice-total: ' "$TMP/out")" "invoice 3 "
is "and not the old one" "$(grep -c 'invoice 2 ' "$TMP/out")" 0
is "one line on stderr" "$(wc -l < "$TMP/err")" 1
n=$(on 2026-03-11T09:00 --json check --since 2026-03-01 2>/dev/null | python3 -c 'import json,sys; print(sum(v["code"] == "invoice-total" for v in json.load(sys.stdin)["violations"]))')
is "--json check --since lists it" "$n" 1

# -- an old invoice that new money was allocated to is checked again
plant "UPDATE invoice SET paid = 0, balance = total WHERE id = 2"
plant "UPDATE invoice SET total = total - 1, balance = balance - 1 WHERE id = 3"
ok "the defects are undone" on 2026-03-11T09:00 check
plant "UPDATE invoice SET credited = 3, balance = total - 3 WHERE id = 1"
on 2026-03-11T09:00 check --since 2026-03-01 >"$TMP/out" 2>&1
is "the old invoice 1 is out of the range" "$(grep -c 'invoice 1 ' "$TMP/out")" 0
on 2026-03-12T10:00 pay record --customer 1 --amount 10 --method cash 1=10 >/dev/null
is "a new allocation to the old invoice" "$(sqlite3 "$FRONTDESK_DB" "SELECT count(*) FROM payment_allocation WHERE invoice_id = 1")" 1
on 2026-03-12T11:00 check --since 2026-03-12 >"$TMP/out" 2>&1; st=$?
is "--since refuses the old invoice its new money touched" "$st" 1
like "it names invoice 1's credit" "$(grep '^invoice-credited: ' "$TMP/out")" "invoice 1 "

# -- a date the clock cannot read
before=$(dump)
for bad in 2026-02-30 yesterday 2026-13-01 ""; do
	fd check --since "$bad" >"$TMP/out" 2>"$TMP/err"; st=$?
	is "--since '$bad' is a usage error" "$st" 2
	like "it names --since" "$(head -n 1 "$TMP/err")" "--since"
done
is "nothing changed" "$(dump)" "$before"
like "--help shows --since" "$(fd check --help 2>&1)" "--since"

done_testing
