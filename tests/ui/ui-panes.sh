#!/bin/sh
# ui-panes.sh - panes where a newcomer expects them (issue 29): on an
# invoice with payments H shows the invoice's own history, h the selected
# allocation's; the visit pane says what Enter on a line item does (it opens
# the job, cursor on the item); Enter on a job opens the job pane with its
# visits, line items, invoices and what is left to bill, H there is the
# job's history; o previews the invoice as it prints and P from the preview
# writes the file; the takings view adds up each day's methods. At 120x40,
# at 80x24, and in zh_CN where the locale is installed.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

q() { sqlite3 "$FRONTDESK_DB" "$1"; }
# money - minor units as the screen writes them (2 decimals, no grouping
# below 1,000)
money() { printf '%d.%02d' $(($1 / 100)) $(($1 % 100)); }
# in_section NAME HEADER PATTERN - a line of the pane's section HEADER (the
# lines below the line that is HEADER, to the next blank one) matches PATTERN
in_section() {
	i=0
	while [ "$i" -lt 100 ]; do
		if screen_text | awk -v h="$2" 'f && /^ *$/ { exit } f { print } $0 == h { f = 1 }' |
			grep -Eq -- "$3"; then
			pass "$1"
			return
		fi
		sleep 0.1
		i=$((i + 1))
	done
	fail "$1" "section: $2" "pattern: $3" "screen:" "$(screen_text)"
}
# shows_joined NAME TEXT - the pane shows TEXT, wrapped lines joined
shows_joined() {
	i=0
	while [ "$i" -lt 100 ]; do
		if screen_text | tr -s ' \n' '  ' | grep -qF -- "$2"; then pass "$1"; return; fi
		sleep 0.1
		i=$((i + 1))
	done
	fail "$1" "screen:" "$(screen_text)"
}

fd init >/dev/null
fd customer add --name "Pane Pat" >/dev/null
cust=$(q "SELECT max(id) FROM customer")
fd job add --customer "$cust" --title "Polish" >/dev/null
job=$(q "SELECT max(id) FROM service_order")
fd item add --job "$job" --description "Polish and wax" --price 120 >/dev/null
fd appt add --start "2026-12-01 10:00" --end "2026-12-01 11:00" --location "Bay 2" >/dev/null
appt=$(q "SELECT max(id) FROM appointment")
fd link add --appt "$appt" --job "$job" --minutes 60 >/dev/null
fd invoice issue --jobs "$job" >/dev/null
INV=$(q "SELECT number FROM invoice ORDER BY id DESC LIMIT 1")
inv=$(q "SELECT id FROM invoice WHERE number = '$INV'")
fd pay record --customer "$cust" --amount 100 --method check --reference "chk 5" "$INV=100" >/dev/null
fd pay record --customer "$cust" --amount 20 --method cash "$INV=20" >/dev/null
alloc=$(q "SELECT min(id) FROM payment_allocation")
# added after the invoice: left to bill
fd item add --job "$job" --description "Tyre check" --price 35.50 >/dev/null
item2=$(q "SELECT max(id) FROM line_item")
fd tasks run --once --quiet >/dev/null 2>&1
DIR=$(dirname "$FRONTDESK_DB")/prints
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
printf 'screen_channel = no\nscreen_runner = no\nshop_name = Pane Pat Garage\n' \
	>"$XDG_CONFIG_HOME/frontdesk/config"

screen_start
shows "the screen opens" "Week of"

# --- H on an invoice with payments: the invoice's own history
keys / "$INV" Enter
wait_for "$INV" 5
keys Enter
shows "the invoice pane opens" "Status: paid"
shows_re "its first allocation is selected" "^> #$alloc "
keys H
shows "H shows the invoice's history, not the allocation's" "> History of invoice $inv"
shows "... with the invoice's status moves" "status issued -> partially_paid"
keys q
shows_re "back on the invoice, cursor on the allocation" "^> #$alloc "
keys h
shows "h, one more step, shows the allocation's history" "> History of allocation $alloc"
keys q
shows "the key hints offer the preview" "o Preview"

# --- the preview: the text the print writes, then P prints from it
keys o
shows "o opens the preview" "> $INV > Preview"
shows "the preview holds the shop's name" "Pane Pat Garage"
line=$(fd invoice print "$INV" | grep 'Polish and wax' | head -n 1 | sed 's/ *$//')
shows "the preview shows the printed invoice's line as printed" "$line"
ok "and nothing is written yet" test ! -e "$DIR/$INV.txt"
keys P
shows "P in the preview opens the print form" "Print $INV"
keys Enter
shows "the message line names the file" "$INV written to $DIR/$INV.txt"
is "the file is the command line's text" "$(cat "$DIR/$INV.txt" 2>&1)" "$(fd invoice print "$INV")"
# --- the payment pane: H is the payment's, o previews its receipt
pay=$(q "SELECT payment_id FROM payment_allocation WHERE id = $alloc")
keys q
shows_re "back on the invoice, cursor on the allocation again" "^> #$alloc "
keys Enter
shows "Enter on the allocation opens its payment" "> $INV > Payment $pay"
keys H
shows "H on the payment pane shows the payment's history" "> Payment $pay > History of payment $pay"
keys q
keys o
shows "o on the payment previews its receipt" "> Payment $pay > Preview"
line=$(fd pay print "$pay" | grep '^Amount received' | sed 's/ *$//')
shows "the receipt's preview is the printed receipt's text" "$line"
keys q q q q
shows "back to the calendar" "Week of"

# --- the visit pane: what Enter on a line item does
keys / "Pane Pat" Enter
wait_for "Pane Pat" 5
keys Enter
shows "the customer pane opens" "Jobs"
shows_re "it lists the job" "job $job"
keys G Enter
shows "Enter on the customer's job opens the job pane" "Pane Pat > Job $job"
shows "the job pane names the job" "Job $job: Polish (open, USD)"
in_section "it lists the visit that works on it" "  Visits" "Visit $appt +2026-12-01 10:00-11:00"
in_section "its line items" "  Line items" "Polish and wax +1 x 120\.00 +120\.00"
in_section "... the one added since the invoice too" "  Line items" "Tyre check +1 x 35\.50 +35\.50"
in_section "the invoice that bills it" "  Invoices" "$INV +paid"
left=$(money "$(q "SELECT amount FROM line_item WHERE id = $item2")")
shows "what is left to bill, as the database has it" "Left to bill: $left USD (line items: 1;"
keys H
shows "H on the job pane shows the job's history" "> Job $job > History of job $job"
keys q
keys j Enter
shows "Enter on the visit line opens the visit" "> Job $job > Visit $appt"
keys '?'
shows_joined "the visit pane's help says what Enter on a line item does" \
	"Enter on a line item opens its job with the cursor on it"
keys q
shows_re "back on the visit, cursor on it" "^> Visit $appt"
keys j
shows_re "the job's line" "^> Job $job: Polish"
keys Enter
shows "Enter on the visit's job opens the job pane (not the customer)" "> Visit $appt > Job $job"
keys q
wait_for "> Job $job > Visit $appt" 5
keys j j
shows_re "the second line item" "^> .*Tyre check"
keys Enter
shows "Enter on a line item opens its job" "> Visit $appt > Job $job"
shows_re "... with the cursor on the item, read-only" "^> .*Tyre check"
keys e
shows "e there edits it" "Edit line item"
keys Escape
wait_for "> Visit $appt > Job $job" 5

# --- takings: each day's total across methods
keys T
shows "T opens the takings" "Takings from"
set -- $(q "SELECT count(*), sum(amount) FROM payment WHERE status <> 'void'" | tr '|' ' ')
shows_re "the day's total across methods, as the database has it" \
	"Day total +USD +$1 +$(money "$2" | sed 's/\./\\./') +0\.00 +$(money "$2" | sed 's/\./\\./')"
rep=$(fd report takings --csv | awk -F, 'NR > 1 && $1 == "2026-12-01" { n += $4 } END { print n }')
is "the command line's takings count the same payments" "$rep" "$1"

# --- 80x24
resize 80 24
shows_re "at 80x24 the day's total still shows" "Day total +USD +$1 "
keys q
shows "back to the job pane" "Job $job: Polish (open, USD)"
keys G
shows "at 80x24 the job pane shows what is left to bill" "Left to bill: $left USD"
shows_re "G selects the job's invoice line" "^> +$INV"
keys Enter o
total=$(money "$(q "SELECT total FROM invoice WHERE id = $inv")" | sed 's/\./\\./')
shows_re "at 80x24 the preview shows the 80-column page whole: the total to its last digit" \
	"^Total +$total\$"
keys P
wait_for "80 columns" 5
keys Escape
shows_re "P there opens the print form and Esc returns to the preview" "^Total +$total\$"
keys Q
shows "Q quits" "frontdesk-exited-0"
screen_stop

# --- zh_CN: the new words are translated and the figures are the same
if locale -a 2>/dev/null | grep -qi '^zh_CN\.utf-\?8$'; then
	mkdir -p "$TMP/locale/zh_CN/LC_MESSAGES"
	msgfmt -o "$TMP/locale/zh_CN/LC_MESSAGES/frontdesk.mo" "$TOP_SRCDIR/po/zh_CN.po"
	SCREEN_ENV="FRONTDESK_LOCALEDIR=$TMP/locale" SCREEN_LANG=zh_CN.UTF-8 screen_start
	shows "zh_CN: the screen opens in Chinese" "frontdesk > 日历"
	keys T
	shows_re "zh_CN: the takings' day total" "当日合计 +USD +$1 "
	keys q / "Pane Pat" Enter
	wait_for "Pane Pat" 5
	keys Enter G Enter
	shows "zh_CN: the job pane" "工单 $job：Polish"
	shows "zh_CN: what is left to bill" "待开票：$left USD（明细项：1；按 i 开票）"
	keys H
	shows "zh_CN: H gives the job's history" "job $job 的历史"
	keys Q
	shows "zh_CN: Q quits" "frontdesk-exited-0"
	screen_stop
else
	pass "# SKIP zh_CN: the zh_CN.UTF-8 locale is not installed"
fi
done_testing
