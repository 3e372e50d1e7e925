#!/bin/sh
# cli-card-text.sh - no card number in free text: every field a person fills
# from the command line (and a `pay import` file) refuses 13 to 19 digits that
# pass the card check, typed as cards are typed, with a message that says why
# and changes nothing; text that merely has numbers in it is kept; a channel's
# own ids are never refused (tests/chan/chan-defects.sh); and after all of it, no
# card number is anywhere in the database file or its WAL.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null
q() { sqlite3 "$FRONTDESK_DB" "$1"; }

fd customer add --name "Ada Lee" --phone "555-0142" >/dev/null
fd job add --customer 1 --title "Full detail" >/dev/null
fd item add --job 1 --description "Full detail" --price 180 >/dev/null
fd visit add --start "2026-12-02 09:00" --end "2026-12-02 11:00" >/dev/null
fd invoice issue --jobs 1 >/dev/null
fd pay record --customer 1 --amount 200 --method cash >/dev/null
fd pay allocate 1 INV-2026-000001=180 >/dev/null

# each shape a person types a card number in, with the published test cards
for card in "4111111111111111" "4111 1111 1111 1111" "5555-5555-5555-4444" \
	"card 378282246310005 exp 12/29" "ref 1042 4000 0566 5566 5556"; do
	refused "customer name: $card" customer add --name "$card"
	err=$(cat "$TMP/err")
	like "... the message names the field and says why" "$err" "the name looks like it holds a card number"
	like "... and what to write instead" "$err" "the last four digits"
	refused "customer address: $card" customer add --name "Bo" --address "$card"
	refused "customer note: $card" customer edit 1 --note "$card"
	refused "job title: $card" job add --customer 1 --title "$card"
	refused "job note: $card" job edit 1 --note "$card"
	refused "visit location: $card" visit add --start "2026-12-03 09:00" --end "2026-12-03 10:00" --location "$card"
	refused "visit note: $card" visit edit 1 --note "$card"
	refused "item description: $card" item add --job 1 --description "$card" --price 5
	refused "invoice note: $card" invoice issue --jobs 1 --note "$card"
	refused "payment note: $card" pay record --customer 1 --amount 5 --method card --note "$card"
	refused "payment reference: $card" pay record --customer 1 --amount 5 --method card --reference "$card"
	refused "refund reason: $card" refund 1 --amount 5 --reason "$card"
	refused "reversal reason: $card" pay reverse 1 --reason "$card"
	refused "void reason: $card" pay void 1 --reason "$card"
	printf 'customer,amount,method,note\n1,5,cash,ok\n1,5,card,%s\n' "$card" > "$TMP/imp.csv"
	refused "pay import note: $card" pay import "$TMP/imp.csv"
	like "... the refusal names the line" "$(cat "$TMP/err")" "line 3"
done
refused "a phone number of more than 15 digits" customer add --name "Bo" --phone "4111 1111 1111 1111"

# text that only has numbers in it is kept
ok "a note with a phone number, a date and an invoice number" \
	fd customer edit 1 --note "Call 555-0142 on 2026-12-01 about INV-2026-000001 555-0142"
ok "the last four digits of a card" fd pay record --customer 1 --amount 5 --method card --reference "visa 1111"
ok "sixteen digits that fail the card check" fd customer add --name "Cy" --note "4111111111111112"
ok "an international phone number of 15 digits" fd customer add --name "Di" --phone "+86 138 0013 8000 1"
is "nothing of the refused requests was written" "$(q 'SELECT count(*) FROM customer')" 3

ok "no card number in the database file or its WAL" \
	python3 "$TOP_SRCDIR/tests/lib/card-scan.py" "$FRONTDESK_DB" "$FRONTDESK_DB-wal"
# the scanner does find one when it is there (bytes put behind the core's back)
cp "$FRONTDESK_DB" "$TMP/copy.db"
printf 'paid with 4111 1111 1111 1111' >> "$TMP/copy.db"
python3 "$TOP_SRCDIR/tests/lib/card-scan.py" "$TMP/copy.db" >/dev/null
is "the scanner finds a card number in a file that holds one" "$?" 1

done_testing
