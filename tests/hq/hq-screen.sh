#!/bin/sh
# hq-screen.sh - the head office's screen (`frontdesk --hq URL`) against a
# real PostgreSQL server the test starts itself (tests/lib/pg.sh): two shops
# with a visit of a technician, an invoice with a commission and a part
# payment each sync to the head office; the screen opens on the chain's
# aging (a heading per shop, each customer's figures and the totals those
# of `frontdesk hq report aging`), T shows the takings of every shop and W
# each shop's commissions (the figures of `hq report takings` and `hq report
# commissions`); rows open nothing and the keys that need a shop say so;
# Ctrl-L reads the head office again, and a head office that went away is
# said in the view; an address that is not PostgreSQL's, a head office
# that cannot be reached or one whose schema is older than the program is
# refused before the terminal changes. At a
# shop, the screen's deletion certificate names the head office once it
# confirmed the purge, and says it has not before. Every figure expected is
# read from the head office's reports in JSON.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/pg.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"
trap 'screen_stop; pg_stop; rm -rf "$TMP"' EXIT

export FRONTDESK_CONFIG="$TMP/config.ini"
printf 'timezone = America/New_York\n' > "$FRONTDESK_CONFIG"
SCREEN_ENV="FRONTDESK_CONFIG=$FRONTDESK_CONFIG"
pg_start
fd hq init --pg "$PGURL" >/dev/null
jget() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
money() { python3 -c 'import sys; v=int(sys.argv[1]); s="-" if v < 0 else ""; v=abs(v); print("{}{:,}.{:02d}".format(s, v // 100, v % 100))' "$1"; }

# two shops: a technician's visit, a line at 10 %, the invoice, a payment
for s in 1 2; do
	export FRONTDESK_DB="$TMP/shop$s.db"
	export FRONTDESK_NOW="2026-11-09 08:00"
	fd init >/dev/null
	fd customer add --name "Ann Shop$s" >/dev/null
	fd resource add --name "Sam$s" --kind technician >/dev/null
	fd resource hours "Sam$s" --days all --spans 08:00-18:00 >/dev/null
	fd book --customer 1 --start "2026-11-10 09:00" --length 1:00 --resource "Sam$s" >/dev/null
	fd item add --job 1 --description Brakes --price "$((s * 100)).00" --commission 10% >/dev/null
	export FRONTDESK_NOW="2026-11-12 10:00"
	fd invoice issue --jobs 1 >/dev/null
	fd pay record --customer 1 --amount "$((s * 30))" --method cash "1=$((s * 30))" >/dev/null
	fd hq join --pg "$PGURL" --shop "S$s" >/dev/null
	fd hq sync --once >/dev/null
done
is "both shops synced" "$(fd --json hq status --pg "$PGURL" | jget 'len(d["shops"])')" 2
AGING=$(fd --json hq report aging --pg "$PGURL" --on 2026-11-14)
owed() { echo "$AGING" | jget "[r['owed'] for r in d['customers'] if r['customer_name'] == '$1'][0]"; }
TAK=$(fd --json hq report takings --pg "$PGURL" --from 2026-11-08 --to 2026-11-14)
COMM=$(fd --json hq report commissions --pg "$PGURL" --from 2026-11-01 --to 2026-11-30)

# --- the head office's screen
export FRONTDESK_NOW=2026-11-14T10:00
screen_start --hq "$PGURL"
shows "--hq opens the chain's aging" "Receivables of every shop on 2026-11-14"
shows "the title says it is the head office's" "frontdesk head office > Receivables aging"
shows "the status line names the head office, read-only" "Head office $PGURL · read-only"
shows "a heading for the first shop" "Shop S1"
shows "and for the second" "Shop S2"
shows_re "S1's customer owes what hq report aging says" "^. Ann Shop1 +USD .* $(money "$(owed "Ann Shop1")") *$"
shows_re "S2's customer owes what hq report aging says" "^. Ann Shop2 +USD .* $(money "$(owed "Ann Shop2")") *$"
shows_re "the total over the shops is the report's" \
	"Total USD +USD .* $(money "$(echo "$AGING" | jget 'd["totals"]["USD"]["owed"]')") *$"
keys Enter
shows "a row opens nothing at the head office" "The head office's rows open nothing"
keys c
shows "a key that needs a shop says the screen shows the reports only" \
	"The head office's screen shows the chain's reports only"
keys '?'
shows "the help lists the views' keys" "Keys of this view"
ok "... and not the shop's customers" sh -c "! $TMUX_CMD capture-pane -p | grep -q 'Show the customers'"
keys q

keys T
shows "T shows every shop's takings" "Takings of every shop from 2026-11-08 to 2026-11-14"
day=$(echo "$TAK" | jget '[r for r in d["days"] if r["method"] == "cash"][0]')
shows_re "the cash row is hq report takings' (the shops summed)" \
	"^. 2026-11-12 +cash +USD +$(echo "$TAK" | jget '[r["payments"] for r in d["days"] if r["method"] == "cash"][0]') +$(money "$(echo "$TAK" | jget '[r["received"] for r in d["days"] if r["method"] == "cash"][0]')") "
ok "no payments are listed: each is at its shop" sh -c "! $TMUX_CMD capture-pane -p | grep -q 'The payments of these days'"
keys q

keys W
shows "W shows each shop's commissions" "Commissions of every shop from 2026-11-01 to 2026-11-30"
for s in 1 2; do
	t="[t for t in d['technicians'] if t['shop'] == 'S$s' and t['technician'] == 'Sam$s'][0]"
	shows "S$s's technician's total is hq report commissions'" \
		"Total Sam$s: $(echo "$COMM" | jget "$t['visits']") visits, $(echo "$COMM" | jget "$t['lines']") lines, amount $(money "$(echo "$COMM" | jget "$t['line_amount']")") USD, commission $(money "$(echo "$COMM" | jget "$t['commission']")") USD"
done
keys '['
shows "[ moves a month back" "Commissions of every shop from 2026-10-01 to 2026-10-31"
keys q

# a payment at S1 since: Ctrl-L reads the head office again
FRONTDESK_DB="$TMP/shop1.db" fd pay record --customer 1 --amount 12.34 --method cash 1=12.34 >/dev/null
FRONTDESK_DB="$TMP/shop1.db" fd hq sync --once >/dev/null
AGING=$(fd --json hq report aging --pg "$PGURL" --on 2026-11-14)
keys C-l
shows_re "Ctrl-L shows the new balance" "^. Ann Shop1 +USD .* $(money "$(owed "Ann Shop1")") *$"
pg_kill
keys C-l
shows "the head office gone: the view says so" "! The aging report cannot be read:"
keys Q
shows "Q quits" "frontdesk-exited-0"
screen_stop
pg_restart

# --- refused before the terminal changes
screen_start --hq "http://127.0.0.1:$PGPORT/"
shows "an address that is not PostgreSQL's is refused" "frontdesk-exited-1"
screen_stop
screen_start --hq "postgresql://fd@127.0.0.1:1/postgres"
shows "a head office that cannot be reached is refused" "frontdesk-exited-1"
ok "... saying so on the plain terminal" sh -c "$TMUX_CMD capture-pane -p | grep -q 'head office'"
screen_stop
pg_sql "DELETE FROM hq_migration WHERE version = 2" >/dev/null
screen_start --hq "$PGURL"
shows "a head office older than the program is refused" "frontdesk-exited-1"
ok "... saying to run hq init there" sh -c "$TMUX_CMD capture-pane -p | grep -q 'run frontdesk hq init'"
screen_stop
fd hq init --pg "$PGURL" >/dev/null
fd --hq "$PGURL" customer list >/dev/null 2>&1
is "--hq with a command is bad usage" "$?" 2
fd --hq "$PGURL" --db "$TMP/shop1.db" >/dev/null 2>&1
is "--hq with --db is bad usage" "$?" 2

# --- a purge at S1: its certificate in the shop's screen
export FRONTDESK_DB="$TMP/shop1.db"
FRONTDESK_NOW=2022-01-05T09:00 fd customer add --name "Zed Zebulon" >/dev/null
zed=$(sqlite3 "$FRONTDESK_DB" "SELECT id FROM customer WHERE name = 'Zed Zebulon'")
unset FRONTDESK_NOW
fd hq sync --once >/dev/null
fd retention propose --customer "$zed" >/dev/null
FRONTDESK_NOW=2029-01-05T09:00 fd retention run >/dev/null
is "Zed is purged at the shop" "$(sqlite3 "$FRONTDESK_DB" "SELECT count(*) FROM retention_purged WHERE customer_id = $zed")" 1
export FRONTDESK_NOW=2029-01-05T09:00
screen_start
shows "the shop's screen opens" "Week of"
keys L 3
shows "3 shows the certificates" "[3 Certificates]"
keys Enter
shows "Enter shows the certificate" "Deletion certificate"
shows "it says the head office has not confirmed yet" "Head office: has not confirmed yet"
keys Q
screen_stop
fd hq sync --once >/dev/null
at=$(fd --json retention certs | jget 'd["certificates"][0]["head_office"]["confirmed_at"]')
screen_start
shows "the shop's screen opens again" "Week of"
keys L 3 Enter
shows "once it confirmed, the certificate names the head office and when" \
	"Head office: shop S1, confirmed $(echo "$at" | cut -c1-10)"
keys Q
screen_stop
done_testing
