#!/bin/sh
# ui-forms.sh - forms that edit like forms (issue 29), on the demo, at 80x24
# and 120x40, and the texts in zh_CN: the first key typed in a pre-filled
# field that was just entered replaces its text, and after an arrow the
# text is kept; the demo has a catalogue, and a new customer is booked from
# it in a few keys; the services field offers the catalogue's matching
# services under it (Tab or Enter takes one); F1 shows the form's help; a
# 10 KB paste into a name is refused with the core's limit named (as the
# command line refuses it), the text kept and nothing written; a question
# shows its own key hints; the cancel form names the customer and the
# visit; back from a customer's pane the focus is on the customer list,
# not on its search line.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

q() { sqlite3 "$FRONTDESK_DB" "$1"; }
hints() { screen_text | tail -n 1; }

fd demo >/dev/null 2>&1
cp "$FRONTDESK_DB" "$TMP/demo.db"

# the command line's refusal of a long name: the core's rule and limit
long=$(python3 -c 'print("A" + "x" * 10238 + "Z")')
before=$(q "SELECT count(*) FROM customer")
cli_said=$(fd customer add --name "$long" 2>&1 >/dev/null)
case "$cli_said" in
*"at most 200"*) pass "the command line refuses a 10 KB name, naming the limit" ;;
*) fail "the command line refuses a 10 KB name, naming the limit" "said: $cli_said" ;;
esac
printf '%s' "$long" >"$TMP/paste.txt"

# N counts the keys of a booking (typed text does not count)
N=0
k() { N=$((N + $#)); keys "$@"; }
t() { keys -l "$1"; }

# the demo as it was made, in a file of its own (the desk of the run
# before may still be closing its own), and no view remembered
fresh_demo() {
	FRONTDESK_DB="$TMP/$1.db"
	rm -rf "$TMP/state"
	cp "$TMP/demo.db" "$FRONTDESK_DB"
}

run_size() {
	cols=$1 rows=$2 sz="$1x$2"
	fresh_demo "$sz"
	SCREEN_COLS=$cols SCREEN_ROWS=$rows screen_start
	shows "$sz: the calendar opens" "Week of 2026-11-29"

	# --- the demo's catalogue -------------------------------------------------
	keys S
	shows "$sz: the demo offers its services" "7 services offered."
	shows "$sz: with prices and lengths" "Wash and wax"
	is "$sz: the demo's jobs are booked from its catalogue" \
		"$(q "SELECT count(*) FROM line_item WHERE description NOT IN (SELECT name FROM service)")" 0
	# a visit of one job with one service lasts as long as that service
	one="SELECT a.id, (a.end_at - a.start_at) / 60 AS len, s.minutes FROM appointment a JOIN appointment_work w ON w.appointment_id = a.id JOIN line_item l ON l.service_order_id = w.service_order_id JOIN service s ON s.name = l.description AND s.kind = 'SERVICE' WHERE a.id NOT IN (SELECT appointment_id FROM appointment_work GROUP BY appointment_id HAVING count(*) > 1) AND w.service_order_id NOT IN (SELECT service_order_id FROM appointment_work GROUP BY service_order_id HAVING count(*) > 1)"
	is "$sz: a visit lasts as long as its service" \
		"$(q "SELECT count(*) > 50, sum(len <> minutes) FROM ($one)")" "1|0"
	keys q
	wait_for "Week of 2026-11-29" >/dev/null

	# --- typing replaces a pre-filled field just entered; arrows keep it ------
	keys d
	shows_re "$sz: the day view, on the first visit" "^> 09:00-10:30 "
	keys v
	shows "$sz: v opens the move form" "Move visit 39"
	shows "$sz: its date is pre-filled" "[2026-12-01 "
	t "2026-12-07"
	shows "$sz: the first key replaced the date" "[2026-12-07 "
	keys Tab
	shows "$sz: the start is pre-filled" "[09:00 "
	keys Left Left C-d; t "3"
	shows "$sz: after an arrow, typing edits the text" "[09:30 "
	keys Enter
	shows "$sz: the move is posted" "moved to 2026-12-07 09:30"
	keys Enter
	is "$sz: the visit moved" \
		"$(q "SELECT datetime(start_at, 'unixepoch', 'localtime') FROM appointment WHERE id = 39")" \
		"2026-12-07 09:30:00"

	# --- F1 in a form: the form's help ---------------------------------------
	keys a
	shows "$sz: a opens the booking form" "Book a visit"
	keys F1
	shows "$sz: F1 shows the form's help" "Help: Book a visit"
	shows "$sz: with the form's paragraph" "separated by commas"
	if [ "$1" -ge 120 ]; then
		# the keys of this form, none that does nothing here: the booking
		# form has no allocations to propose again
		shows "$sz: the help lists the form's keys" "form-submit"
		case "$(screen_text)" in
		*form-propose*) fail "$sz: and not form-propose, which the booking form has not" "$(screen_text)" ;;
		*) pass "$sz: and not form-propose, which the booking form has not" ;;
		esac
	fi
	keys q
	wait_gone "Help: Book a visit" >/dev/null

	# --- booking a new customer from the catalogue, keys counted ------------
	N=1 # a
	t "Zed Nova"
	k Tab; t "wa"
	shows "$sz: the catalogue's services that match, under the field" "> Wash and wax  120.00 USD  60 min"
	shows "$sz: saying how to take one" "Tab or Enter: take it."
	k Enter
	shows "$sz: Enter takes it" "[Wash and wax "
	wait_gone "Tab or Enter: take it." >/dev/null
	shows "$sz: the length follows its minutes" "[1:00 "
	t ", int"
	shows "$sz: the list again for the second service" "> Interior shampoo  90.00 USD  90 min"
	k Tab
	shows "$sz: Tab takes it too" "Wash and wax 120.00, Interior"
	shows "$sz: the length follows both" "[2:30 "
	t "2026-12-03"
	k Tab; t "14:00"
	shows "$sz: the end is shown" "ends 2026-12-03 16:30"
	k Enter
	shows "$sz: Enter opens the new customer's form" "[Zed Nova"
	k Enter
	shows "$sz: the customer is added" "added: Zed Nova"
	shows_re "$sz: and the booking form is back at once, naming them" "\] Zed Nova"
	k Enter
	shows "$sz: booked" "booked for 2026-12-03 14:00"
	k Enter
	wait_gone "booked for 2026-12-03 14:00" >/dev/null
	v=$(q "SELECT max(id) FROM appointment")
	is "$sz: the visit is Zed Nova's, with the two services" \
		"$(q "SELECT c.name || ' ' || count(*) || ' ' || sum(l.amount) FROM appointment_work w JOIN service_order j ON j.id = w.service_order_id JOIN customer c ON c.id = j.customer_id JOIN line_item l ON l.service_order_id = j.id WHERE w.appointment_id = $v")" \
		"Zed Nova 2 21000"
	if [ "$N" -le 12 ] && [ "$(q "SELECT count(*) FROM customer WHERE name = 'Zed Nova'")" = 1 ]; then pass "$sz: booked from the catalogue in $N keys besides the typed text"; else fail "$sz: booked in $N keys (more than 12)"; fi

	# --- the cancel form names the customer and the visit; its question ------
	shows_re "$sz: the calendar's cursor on the new visit" "^> 14:00-16:30 .*Zed Nova"
	keys X
	shows "$sz: X opens the cancel form" "Cancel visit $v"
	shows_re "$sz: naming the customer" "Customer +Zed Nova"
	shows "$sz: and the services" "Wash and wax, Interior shampoo"
	t "moved away"; keys Enter
	shows "$sz: the question names them too" "Cancel visit $v (Zed Nova, 2026-12-03 14:00)?"
	case "$(hints)" in
	*"y Yes"*"Esc Cancel"*) pass "$sz: the question shows its own key hints" ;;
	*) fail "$sz: the question shows its own key hints" "hints: $(hints)" ;;
	esac
	case "$(hints)" in
	*"Enter Post"*) fail "$sz: the form's hints are gone while it asks" "hints: $(hints)" ;;
	*) pass "$sz: the form's hints are gone while it asks" ;;
	esac
	keys n
	shows "$sz: anything but y goes back" "Not confirmed; nothing was posted."
	case "$(hints)" in
	*"Enter Post"*) pass "$sz: the form's hints are back" ;;
	*) fail "$sz: the form's hints are back" "hints: $(hints)" ;;
	esac
	keys Escape
	shows "$sz: Esc on typed text asks" "lose what you typed?"
	case "$(hints)" in
	*"y Yes"*) pass "$sz: that question shows its own hints too" ;;
	*) fail "$sz: that question shows its own hints too" "hints: $(hints)" ;;
	esac
	keys y
	wait_gone "lose what you typed?" >/dev/null
	is "$sz: nothing was cancelled" "$(q "SELECT status FROM appointment WHERE id = $v")" scheduled

	# --- a 10 KB paste into a name: refused with the limit, kept, not posted --
	keys c
	shows "$sz: c opens the customers" "Customers"
	keys Tab a
	shows "$sz: a opens the new customer form" "New customer"
	n0=$(q "SELECT count(*) FROM customer")
	$TMUX_CMD load-buffer "$TMP/paste.txt"
	$TMUX_CMD paste-buffer
	shows "$sz: the paste arrived whole (its end at the cursor)" "xxxxZ"
	keys Enter
	shows "$sz: refused with the core's limit named" "(10240 bytes; at most 200)"
	shows "$sz: nothing was posted" "nothing was posted"
	is "$sz: no customer was written" "$(q "SELECT count(*) FROM customer")" "$n0"
	keys C-a
	shows "$sz: the text is kept to be fixed (its start)" "[Axxxx"
	keys C-u; t "Yan Fix"; keys Enter
	shows "$sz: fixed, it is posted" "added: Yan Fix"
	keys q
	wait_gone "added: Yan Fix" >/dev/null

	# --- back from a customer's pane, the focus is on the list --------------
	keys q
	wait_re "^frontdesk > Calendar \(Day\) *$" >/dev/null
	keys c
	shows "$sz: the customers again" "Customers"
	t "Zed"
	shows_re "$sz: found" "> .*Zed Nova"
	keys Enter
	shows_re "$sz: Enter opens the customer's pane" "Customers > [^>]*Zed Nova"
	keys q
	shows_re "$sz: back on the list" "Zed Nova"
	keys q
	shows_re "$sz: q on the list goes back to the calendar (not typed in the search)" \
		"^frontdesk > Calendar \(Day\) *$"

	# --- a new customer first: back in the booking form, on the services ----
	keys a
	shows "$sz: the booking form again" "Book a visit"
	t "Yan Ruiz"; keys Enter
	shows "$sz: Enter on an unknown name opens the new customer's form" "[Yan Ruiz"
	keys Enter
	shows_re "$sz: once added, the booking form names them" "\] Yan Ruiz"
	t "wa"
	shows_re "$sz: and what is typed next goes to the services" "^. Services +\[wa "
	keys Escape # the completion list
	wait_gone "Tab or Enter: take it." >/dev/null
	keys Escape
	shows "$sz: closing asks first" "lose what you typed"
	keys y
	wait_gone "Book a visit" >/dev/null
	screen_stop
}

run_size 80 24
run_size 120 40

# --- the texts in zh_CN ---------------------------------------------------------
fresh_demo zh
SCREEN_LANG=zh_CN.UTF-8 screen_start
wait_for "2026" >/dev/null
keys a
shows "zh_CN: the booking form" "预约"
keys Tab; t "wa"
shows "zh_CN: the completion list" "Wash and wax  120.00 USD  60 分钟"
shows "zh_CN: how to take one, translated" "Tab 或 Enter：选用"
keys Escape
wait_gone "Tab 或 Enter：选用" >/dev/null
keys Escape
keys y
keys c
keys Tab a
$TMUX_CMD load-buffer "$TMP/paste.txt"
$TMUX_CMD paste-buffer
wait_for "xxxxZ" >/dev/null
keys Enter
shows "zh_CN: the limit named, translated" "10240"
shows "zh_CN: with the core's limit" "200"
screen_stop

done_testing
