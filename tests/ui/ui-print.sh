#!/bin/sh
# ui-print.sh - P on the screen prints: on an invoice pane the print form
# offers text and a file next to the database (<db folder>/prints/NUMBER.txt),
# Enter writes it (0600, in a folder made 0700) and the message line names
# it, and the file holds the invoice; Right makes it a PDF (the file's name
# follows), which pdftotext reads back; on a payment pane P prints the
# receipt, as text and as a second PDF from the same screen. Esc closes the
# form and writes nothing.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

fd init >/dev/null
fd customer add --name "Print Pat" >/dev/null
fd job add --customer 1 --title "Polish" >/dev/null
fd item add --job 1 --description "Polish and wax" --price 120 >/dev/null
fd invoice issue --jobs 1 >/dev/null
fd pay record --customer 1 --amount 150 --method check --reference "chk 77" INV-2026-000001=120 >/dev/null
INV=INV-2026-000001
DIR=$(dirname "$FRONTDESK_DB")/prints
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
printf 'screen_channel = no\nscreen_runner = no\nshop_name = Print Pat Motors\n' \
	>"$XDG_CONFIG_HOME/frontdesk/config"

screen_start
shows "the screen opens" "Week of"
keys / "$INV" Enter
wait_for "$INV" 5
keys Enter
shows "the invoice pane opens" "Status: paid"
shows "its key hints offer P" "P Print"
keys P
shows "P opens the print form" "Print $INV"
shows "the default file is next to the database" "$DIR/$INV.txt"
keys Escape
shows "Esc closes it" "Status: paid"
ok "and nothing was written" test ! -e "$DIR"
keys P
shows "P opens it again" "Print $INV"
keys Enter
shows "the message line names the file" "$INV written to $DIR/$INV.txt"
ok "the file is there" test -f "$DIR/$INV.txt"
like "it holds the invoice number" "$(cat "$DIR/$INV.txt" 2>&1)" "INVOICE"
like "and the number" "$(cat "$DIR/$INV.txt" 2>&1)" "$INV"
like "and the shop's name" "$(cat "$DIR/$INV.txt" 2>&1)" "Print Pat Motors"
is "it is the command line's text" "$(cat "$DIR/$INV.txt" 2>&1)" "$(fd invoice print "$INV")"
is "the file is 0600" "$(stat -c %a "$DIR/$INV.txt")" 600
is "the folder is 0700" "$(stat -c %a "$DIR")" 700

keys P
shows "the form again" "Print $INV"
keys Right
shows "Right picks PDF, and the file's name follows" "$DIR/$INV.pdf"
keys Enter
shows "the message line names the PDF" "$INV written to $DIR/$INV.pdf"
is "a PDF is written" "$(head -c 5 "$DIR/$INV.pdf" 2>&1)" "%PDF-"
like "pdftotext reads the number back" "$(pdftotext -layout "$DIR/$INV.pdf" - 2>&1)" "$INV"

# the allocation is selected: Enter opens its payment
keys Enter
shows "Enter on the allocation opens the payment" "Payment 1 from Print Pat"
keys P
shows "P on a payment prints its receipt" "Print the receipt of payment 1"
shows "to receipt-1.txt" "$DIR/receipt-1.txt"
keys Enter
shows "the message line names the receipt" "Receipt of payment 1 written to $DIR/receipt-1.txt"
like "the receipt holds the reference" "$(cat "$DIR/receipt-1.txt" 2>&1)" "chk 77"
like "and the invoice it paid" "$(cat "$DIR/receipt-1.txt" 2>&1)" "$INV"
# a second PDF from the same screen (the first one's fonts were let go)
keys P
shows "the receipt's form again" "Print the receipt of payment 1"
keys Right
shows "the receipt as a PDF" "$DIR/receipt-1.pdf"
keys Enter
shows "the message line names the receipt's PDF" "Receipt of payment 1 written to $DIR/receipt-1.pdf"
like "pdftotext reads the reference back" "$(pdftotext -layout "$DIR/receipt-1.pdf" - 2>&1)" "chk 77"
keys Q
shows "Q quits" "frontdesk-exited-0"
done_testing
