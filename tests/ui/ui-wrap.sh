#!/bin/sh
# ui-wrap.sh - help and messages are wrapped, not cut: at 80x24 the `?`
# screen of a visit shows its whole paragraph (the key fact "Enter on an
# invoice opens it" included) and every key's description on as many lines
# as it needs; a message too long for the message line ends with "[M: all]",
# and M (action message) opens it in full, wrapped, in a pane that q closes.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

fd demo >/dev/null 2>&1
fd tasks run --once --quiet >/dev/null 2>&1
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
printf 'no-such-action-of-a-rather-long-name = x\n' > "$XDG_CONFIG_HOME/frontdesk/keys"

SCREEN_COLS=80 SCREEN_ROWS=24 screen_start
shows "the screen opens at 80x24" "frontdesk > Calendar"
shows_re "a message too long for the line is cut with the key that shows all" "^! .*\.\.\. \[M: all\] *$"
keys M
shows "M opens the last message in full" "frontdesk > Calendar (Week) > Message"
shows "with its end, wrapped" "line ignored"
shows "the whole file name is there" "$XDG_CONFIG_HOME/frontdesk/keys:1:"
keys q
if wait_gone "> Message"; then pass "q closes it"; else fail "q closes it" "$(screen_text)"; fi

keys d Enter
shows "a visit opens" "> Visit "
keys '?'
shows "its help opens" "Help: Visit"
shows "the view's paragraph is in sight" "A visit and the jobs it works on"
shows "and wrapped, not cut, with the key fact" "Enter on an invoice opens it; Enter on a job opens the job"
# down the list until the invoice key's line is in sight
n=0
while [ "$n" -lt 40 ] && ! screen_text | grep -Eq "^ {19}billed of the selected job *$"; do
	keys j
	n=$((n + 1))
	wait_re "^> " 2 >/dev/null
done
shows_re "a long key description continues on the next line" "^ {19}billed of the selected job *$"
keys q q
keys Q
shows "Q quits" "frontdesk-exited-0"
screen_stop

done_testing
