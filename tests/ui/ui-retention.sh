#!/bin/sh
# ui-retention.sh - the retention screen (L), at 80x24: three customers
# whose one visit was in March 2022 are soft-deleted by `frontdesk
# retention run` on 2026-12-01 (more than 36 months later); L lists them
# with the first 8 hex digits of their deletion id, the generation and the
# purge date of `frontdesk --json retention list`; Enter shows a deletion
# whole; r + y restores Ann (back in `customer list`, gone from `retention
# list`), any other key keeps a customer soft-deleted; h asks a reason in
# a one-line form and holds Bob (`retention lifecycle` shows the hold, the
# proposals section shows it as the reason, a second h is refused with the
# core's message), u + y releases him; 2 shows what a run would do; 3 the
# certificate of Cy's purge (`frontdesk retention purge` after the purge
# date), Enter it whole. Then the screen in zh_CN with a Chinese name keeps
# every line within 80 columns.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

# jget EXPR - evaluate EXPR over the JSON on stdin (as d)
jget() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
# del_of NAME FIELD - a field of NAME's live deletion in `retention list`
del_of() { fd --json retention list | jget "[x['$2'] for x in d['deletions'] if x['customer'] == '$1'][0]"; }
# local_day ISO - the shop's local date of an ISO UTC time
local_day() { date -d "$1" +%Y-%m-%d; }
# select_re PATTERN - move the cursor down until the selected line matches
select_re() {
	i=0
	while [ "$i" -lt 12 ]; do
		wait_re "^> $1" 1 && return 0
		keys j
		i=$((i + 1))
	done
	return 1
}
names() { fd --json customer list | jget "' '.join(sorted(c['name'] for c in d[list(k for k in d if isinstance(d[k], list))[0]]))"; }

fd init >/dev/null
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
printf 'screen_channel = no\nscreen_runner = no\n' > "$XDG_CONFIG_HOME/frontdesk/config"
export FRONTDESK_NOW=2022-03-01T09:00
for n in "Ann Lee" "Bob Ray" "Cy Poe" "Dee Fox"; do fd customer add --name "$n" >/dev/null; done
for c in 1 2 3 4; do fd book --customer $c --start "2022-03-02 09:00" --length 1:00 >/dev/null; done
export FRONTDESK_NOW=2022-03-02T11:00
for v in 1 2 3; do fd visit status $v in_progress >/dev/null && fd visit status $v done >/dev/null; done
export FRONTDESK_NOW=2026-12-01T09:00
ok "the retention run soft-deletes the inactive customers" fd retention run
is "Ann, Bob and Cy are soft-deleted (Dee's visit is still open)" \
	"$(fd --json retention list | jget "' '.join(sorted(x['customer'] for x in d['deletions']))")" \
	"Ann Lee Bob Ray Cy Poe"
is "the soft-deleted customers are out of the customer list" "$(names)" "Dee Fox"
ANN=$(del_of "Ann Lee" deletion_id)
BOB=$(del_of "Bob Ray" deletion_id)
CY=$(del_of "Cy Poe" deletion_id)
PURGE=$(local_day "$(del_of "Ann Lee" delete_after)")

SCREEN_COLS=80 SCREEN_ROWS=24
export SCREEN_COLS SCREEN_ROWS
screen_start
shows "the calendar opens" "Week of"
keys L
shows "L opens the retention screen on its soft-deleted section" "[1 Soft-deleted]"
shows "the breadcrumb names it" "> Retention"
shows_re "Ann's row: state, deletion id's first 8 hex, generation, purge date of retention list" \
	"^. Ann Lee +soft-deleted +$(printf %.8s "$ANN") +1 +$PURGE *$"
shows_re "Bob's row" "Bob Ray +soft-deleted +$(printf %.8s "$BOB") +1 +$PURGE"
shows_re "Cy's row" "Cy Poe +soft-deleted +$(printf %.8s "$CY") +1 +$PURGE"

# Enter: the deletion whole
ok "Ann can be selected" select_re "Ann Lee "
keys Enter
shows "Enter shows Ann's deletion whole" "Deletion $ANN of Ann Lee: soft-deleted"
mods=$(del_of "Ann Lee" modules)
shows "with the modules that confirmed, five to a line" "Modules confirmed: $(echo "$mods" | cut -d, -f1-5)"
shows "the rest on the next line" "                     $(echo "$mods" | cut -d, -f6-10)"
shows "and the purge date" "Purge on:     $PURGE"
keys q
shows "q goes back to the list" "[1 Soft-deleted]"

# r, then a key other than y: nothing changes
keys r
shows "r asks first" "Restore customer 1 (Ann Lee) from deletion $(printf %.8s "$ANN")?"
keys n
shows "any other key keeps Ann soft-deleted" "Customer 1 was not restored."
is "Ann is still soft-deleted" "$(del_of "Ann Lee" state)" "soft_deleted"

# r + y restores her
keys r
shows "r asks again" "Restore customer 1 (Ann Lee)"
keys y
shows "y restores Ann" "Customer 1 is restored: back in lists and search."
wait_gone "Ann Lee " >/dev/null
is "retention list no longer has Ann" \
	"$(fd --json retention list | jget "' '.join(sorted(x['customer'] for x in d['deletions']))")" \
	"Bob Ray Cy Poe"
is "Ann is back in the customer list" "$(names)" "Ann Lee Dee Fox"
is "her deletion is cancelled, with the desk's reason" \
	"$(fd --json retention show "$ANN" | jget "d['state'] + ' / ' + d['reason']")" \
	"cancelled / restored at the desk"

# h on Bob: a one-line form asks the reason
ok "Bob can be selected" select_re "Bob Ray "
keys h
shows "h opens the hold form" "Hold customer 2"
keys Enter
shows "the reason is required" "required: say why the customer's data must be kept"
keys "dispute 17" Enter
shows "the hold is posted" "Customer 2 (Bob Ray) is on hold: dispute 17"
keys Enter
shows "back in the retention screen" "[1 Soft-deleted]"
fd tasks run --once --quiet >/dev/null 2>&1 # the lifecycle rows (the screen's runner is off)
is "retention lifecycle shows Bob's hold" \
	"$(fd --json retention lifecycle --customer 2 | jget "str(d['held']) + ' ' + d['hold_reason']")" \
	"True dispute 17"
is "the hold cancelled Bob's deletion" "$(fd --json retention show "$BOB" | jget "d['state']")" \
	"cancelled"
keys 2
shows "2 shows the proposals" "[2 Proposals]"
shows_re "the proposals show Bob rejected with his hold as the reason" "^. reject +Bob Ray .*held: dispute 17"
shows_re "and Ann proposed again (a run would soft-delete her again)" "propose +Ann Lee"
shows_re "Cy is waiting for his purge date" "waiting +Cy Poe +$PURGE"
# a second hold: the core refuses, its message in the form
ok "the held Bob can be selected" select_re "reject +Bob Ray"
keys h
shows "h on the held Bob opens the form" "Hold customer 2"
keys "again" Enter
shows "a second hold is refused with the core's message" "the customer is held already: dispute 17"
keys Escape
wait_for "Close the form" 3 && keys y
shows "Esc closes the form" "[2 Proposals]"
keys u
shows "u asks first" "Release the hold on customer 2 (Bob Ray)?"
keys y
shows "y releases the hold" "The hold on customer 2 is released."
fd tasks run --once --quiet >/dev/null 2>&1
is "retention lifecycle shows Bob no longer held" \
	"$(fd --json retention lifecycle --customer 2 | jget "d['held']")" "False"
shows_re "Bob is proposed again" "propose +Bob Ray"
keys u
shows "u asks even so" "Release the hold on customer 2 (Bob Ray)?"
keys y
shows "u on a customer who is not held: the core's refusal" "customer 2 is not held"
keys Tab
shows "Tab goes to the certificates" "[3 Certificates]"
shows "none yet" "No customer was purged yet."
keys Tab
shows "Tab comes back round to the soft-deleted customers" "[1 Soft-deleted]"
keys q Q
shows "Q quits" "frontdesk-exited-0"
screen_stop

# the purge of Cy after his purge date: a certificate
export FRONTDESK_NOW=2027-01-05T09:00
ok "Cy is purged" fd retention purge "$CY" --generation 1
HASH=$(fd --json retention certs | jget "d['certificates'][0]['customer_hash']")
screen_start
shows "the calendar opens again" "Week of"
keys L 3
shows "3 shows the certificates" "[3 Certificates]"
shows_re "Cy's certificate: deletion, hash first 16 hex, purged at" \
	"^> $(printf %.8s "$CY") +$(printf %.16s "$HASH") +2027-01-05 09:00 "
keys Enter
shows "Enter shows the certificate whole" "Deletion certificate $CY"
shows "with the whole hash (80 columns hold it)" "    $HASH"
keys q 1
shows "1 goes to the soft-deleted section" "[1 Soft-deleted]"
shows "nobody is soft-deleted any more" "No customer is soft-deleted."
keys q Q
shows "Q quits again" "frontdesk-exited-0"
screen_stop

# zh_CN, a Chinese name, at 80x24: every line within the width
if locale -a 2>/dev/null | grep -qi '^zh_CN\.utf-\?8$'; then
	fd customer edit 4 --name "王小明王小明王小明王小明王小明" >/dev/null
	export FRONTDESK_NOW=2022-03-02T11:00
	fd visit status 4 in_progress >/dev/null && fd visit status 4 done >/dev/null
	export FRONTDESK_NOW=2027-01-05T09:00
	fd retention run >/dev/null
	SCREEN_LANG=zh_CN.UTF-8 screen_start
	keys L
	shows_re "zh_CN: the Chinese name's row keeps its deletion, generation and purge date" \
		"^> 王小明王小明王小明王小明王小明 +soft-deleted +[0-9a-f]{8} +1 +2027-02-04 *$"
	screen_text > "$TMP/zh.txt"
	wide=$(python3 -c 'import sys, unicodedata as u
for l in open(sys.argv[1], encoding="utf-8"):
	w = sum(2 if u.east_asian_width(c) in "WF" else 1 for c in l.rstrip("\n"))
	if w > 80: print(w, l)' "$TMP/zh.txt")
	is "zh_CN: no line is wider than 80 columns" "$wide" ""
	keys 2
	shows "zh_CN: the proposals section opens" "[2 "
	keys Q
	screen_stop
else
	pass "# SKIP zh_CN.UTF-8 is not installed"
fi
done_testing
