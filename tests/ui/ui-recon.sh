#!/bin/sh
# ui-recon.sh - reconciliation in the desk screen, at 80x24, against the fake
# channel (tests/chan/fake-stripe.py): the differences are made with the command
# line as recon-resolve.sh does (a charge whose success was lost and whose
# active query failed: channel_only; a charge the channel settled for less:
# amount_mismatch), then only keys: the status line shows the open count
# and the calendar marks the day; B lists the batch with its figures, Enter
# its differences with their amounts in their columns, Enter one with its
# local payment (Enter opens the payment pane) and the raw channel line; a
# accepts one with a note and y; p records the channel_only one, the form
# proposing the order's customer and invoice (a refusal of the core is the
# form's error and records nothing), y records it once (`frontdesk pay
# list` shows one new payment); f posts a correcting entry for a refund the
# desk did not know; p on a parked event claims it for a customer and an
# invoice; the invoice then shows paid, `frontdesk recon run` is clean, the
# status line shows the balanced day and the mark is gone.
# The screen's own worker is off (screen_channel = no). Every secret here
# is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=sk_test_made_up_ui_recon_key
FAKE_PID=
trap 'screen_stop; [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

FRONTDESK_NOW=$(date +%Y-%m-%dT%H:%M)
export FRONTDESK_NOW
NOW=$(date -d "$(echo "$FRONTDESK_NOW" | tr T ' ')" +%s)
DAY=${FRONTDESK_NOW%T*}
WD=$(LC_ALL=C date -d "$DAY" +%a)
DN=$(date -d "$DAY" +%-d)
fake_run fake-stripe.py 150 --api-key "$KEY" --now "$NOW"
ok "the fake channel started on a random port" test -n "$PORT"
fake_secrets
succeed() { ctl "intent/$(pi_of "$1")" "{\"status\": \"succeeded\"${2:+, \"emit\": $2}}" >/dev/null; }
line_of() {
	curl -s "$BASE/v1/balance_transactions?limit=100" -u "$KEY:" |
		PI=$(pi_of "$1") python3 -c 'import json,os,sys; d=json.load(sys.stdin); print([b["id"] for b in d["data"] if b["source"] == "ch_" + os.environ["PI"][3:]][0])'
}
diff_of() { db "SELECT id FROM reconciliation_diff WHERE kind = '$1'"; }
payments() { fd --json pay list | jget 'len(d[list(k for k in d if isinstance(d[k], list))[0]])'; }

fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
for t in 1 2 3; do
	fd job add --customer 1 --title "Job $t" >/dev/null
	fd item add --job $t --description "Work $t" --price 100 >/dev/null
	fd invoice issue --jobs $t >/dev/null
done
fd channel provider-set stripe --url "$BASE" >/dev/null
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
printf 'screen_channel = no\nscreen_runner = no\n' > "$XDG_CONFIG_HOME/frontdesk/config"

# --- Never reconciled: nothing new on the screen -----------------------------
SCREEN_COLS=80 SCREEN_ROWS=24
export SCREEN_COLS SCREEN_ROWS
screen_start
shows "the screen opens" "channel: off"
keys_settled
case "$(screen_text)" in *books:*) is "no books before any reconciliation" found none ;; *) ok "no books before any reconciliation" true ;; esac
screen_stop

# --- Two differences, made with the command line -----------------------------
O1=$(charge INV-2026-000001 60)
O2=$(charge INV-2026-000002 100)
O3=$(charge INV-2026-000003 40)
deliver
succeed "$O1"
succeed "$O3"
succeed "$O2" false
ctl fault "{\"path\": \"/v1/payment_intents/$(pi_of "$O2")\", \"method\": \"GET\", \"kind\": \"status\", \"status\": 500, \"count\": 1000}" >/dev/null
poll
fd channel process --once --all >/dev/null 2>&1
fd channel query --once --all >/dev/null 2>&1
ctl balance/"$(line_of "$O3")" '{"amount": 3900}' >/dev/null
out=$(fd --json recon run --date "$DAY")
is "two differences to decide" "$(echo "$out" | jget 'd["diffs_new"], d["open"]')" "2 2"
LOST=$(diff_of channel_only)
PART=$(diff_of amount_mismatch)
LINE=$(db "SELECT line_id FROM reconciliation_diff WHERE id = $LOST")
PAY3=$(db "SELECT payment_id FROM pay_order WHERE order_no = '$O3'")
BEFORE=$(payments)

screen_start
shows "the status line shows the open count" "books: 2 open"
# (a narrow column centres a shortened heading that keeps its today mark)
shows_re "the week marks the day with open differences" "\\\$ *$WD "
shows "... and its title says what the mark is" "\$ open reconciliation differences"
keys m
shows_re "the month marks it after the date (today's *)" "[|]$DN\*\\\$"
keys w
shows "back to the week" "Week of "

# --- The view: the batch, its differences ------------------------------------
keys B
shows "B opens the reconciliation" "Reconciliation batches, newest first"
shows_re "the batch: day, channel, status, lines, matched, open" " 1 $DAY stripe +fetch +done +3 +1 +2 open"
shows_re "its figures per currency: lines, gross, fee, net, ours, each in its column" \
	"USD +3 +199\.00 +6\.00 +193\.00 +100\.00$"
keys Enter
shows "Enter lists its differences" "Its differences"
shows_re "the channel_only one: no amount of ours, the channel's in its column" \
	"$LOST channel only +- +100\.00 USD +txn_"
shows_re "the amount mismatch: both amounts, our payment" \
	"$PART amount +40\.00 USD +39\.00 USD +pay $PAY3 "

# --- One difference whole: drill down to the payment, the raw line --------
if [ "$PART" -lt "$LOST" ]; then keys Enter; else keys Down Enter; fi
shows "Enter shows the difference whole" "Difference $PART: amount (amount_mismatch), open"
# the detail names both amounts: wrapped, not cut, ours shows in it too
if screen_text | grep -v "Ours:\|Our payment\|Invoice " | grep -q "for 40\.00 USD"; then
	pass "... its detail wrapped, not cut: both amounts show"
else
	fail "... its detail wrapped, not cut: both amounts show" "screen:" "$(screen_text)"
fi
shows "... with the channel line as stored" "Channel line "
shows_re "... its fields, one a line" "\"order_no\": +\"$O3\""
keys Enter
shows "Enter on the local payment opens the payment pane" "Payment $PAY3"
keys q
shows "back to the difference" "Difference $PART: amount"

# --- Accept it with a note -------------------------------------------------------
keys a
shows "a opens the accept form" "Accept difference $PART"
keys Enter
shows "a note is required" "required: say why"
keys s e t t l e d " " b y " " h a n d Enter
shows "Enter asks y first" "Accept difference $PART (amount_mismatch"
is "nothing is written before y" "$(db "SELECT count(*) FROM reconciliation_resolution WHERE diff_id = $PART")" 0
keys y
shows "y accepts it" "Difference $PART accepted."
keys Enter
shows "the difference shows its resolution" "Resolution: accepted"
shows "... with the note" "Note: settled by hand"
is "one accept row with the note" "$(db "SELECT action, note FROM reconciliation_resolution WHERE diff_id = $PART")" "accept|settled by hand"
shows "the status line follows" "books: 1 open"

# --- Record the channel_only one --------------------------------------------------
keys q
shows "back to the batch" "Its differences"
if [ "$LOST" -lt "$PART" ]; then keys Up; else keys Down; fi
keys Enter
shows "the channel_only difference" "Difference $LOST: channel only"
shows "it names our card order" "The line names our card order $O2"
keys p
shows "p opens the record form" "Record the payment of difference $LOST"
shows_re "it proposes the order's customer" "Customer +\[1 +\] +Ada Lee"
shows_re "... and its invoice" "Invoices +\[INV-2026-000002 "
keys BTab C-u I N V - 2 0 2 6 - 0 0 0 0 9 9 Tab l o s t Enter
shows "Enter asks y first" "Record the payment of difference $LOST"
keys y
shows "a refusal of the core is the form's error" "there is no invoice numbered 'INV-2026-000099'"
is "... and records nothing" "$(payments)" "$BEFORE"
keys BTab C-u I N V - 2 0 2 6 - 0 0 0 0 0 2 Enter
shows "Enter asks y again" "Record the payment of difference $LOST"
keys y
shows_re "y records it" "Difference $LOST resolved: payment [0-9]+ recorded\."
keys Enter
shows "the difference is resolved" "Resolution: recorded"
is "one new payment" "$(payments)" "$((BEFORE + 1))"
is "one record row" "$(db "SELECT count(*) FROM reconciliation_resolution WHERE diff_id = $LOST AND action = 'record_payment'")" 1

# --- A correcting entry: a refund the desk did not know -----------------------
keys q q
shows "back to the batches" "Reconciliation batches"
ctl refund "{\"payment_intent\": \"$(pi_of "$O1")\", \"amount\": 1000, \"emit\": false}" >/dev/null
out=$(fd --json recon run --date "$DAY")
is "a refund the desk does not know: one new difference" "$(echo "$out" | jget 'd["diffs_new"], d["open"]')" "1 1"
REF=$(diff_of status_mismatch)
shows_re "the new batch is listed first, without a key" " 2 $DAY stripe +fetch +done +[0-9]+ +[0-9]+ +1 open"
shows "the status line follows: the day is no longer balanced" "books: 1 open"
keys Up Enter
shows "Enter lists the new batch's differences" "Batch 2: stripe"
shows_re "the refund's difference" "$REF status +"
keys Down Enter
shows "the refund's difference whole" "Difference $REF: status (status_mismatch), open"
keys f
shows "f opens the correcting entry form" "Correcting entry for difference $REF"
keys r e f u n d e d " " o n " " t h e " " d a s h b o a r d Enter
shows "Enter asks y first" "Post a correcting entry for difference $REF"
keys y
shows_re "y posts the refund" "Difference $REF resolved: refund [0-9]+ recorded\."
keys Enter
shows "the difference shows its resolution" "Resolution: corrected"
is "the refund is recorded with the channel's refund id" \
	"$(db "SELECT r.amount, r.status, r.reference LIKE 're_%' FROM refund r JOIN reconciliation_resolution x ON x.refund_id = r.id WHERE x.diff_id = $REF")" "1000|succeeded|1"

# --- Claim a parked event: a payment taken on the channel's own page -----------
PI=$(ctl intent '{"amount": 2500, "currency": "usd", "status": "succeeded"}' | jget 'd["id"]')
poll
fd channel process --once --all >/dev/null 2>&1
EV=$(db "SELECT min(id) FROM inbound_callback WHERE object_id = '$PI' AND status = 'parked'")
keys q q
shows "the parked events are listed with the batches" "payment_intent.created"
keys Down Down
keys p
shows "p on a parked event opens the claim form" "Claim parked event $EV"
keys Enter
shows "whose payment it is is required" "required: whose payment it is"
keys 1 Tab I N V - 2 0 2 6 - 0 0 0 0 0 1 Tab w a l k - i n Enter
shows "Enter asks y first" "Record the payment of event $EV"
keys y
shows_re "y claims it" "Event $EV claimed: payment [0-9]+\."
keys Enter
is "one payment of the channel's amount for the intent, allocated" \
	"$(db "SELECT count(*), sum(amount), sum(allocated) FROM payment WHERE reference = '$PI'")" "1|2500|2500"
is "the claim's event is processed" "$(db "SELECT status FROM inbound_callback WHERE id = $EV")" processed
keys q / I N V - 2 0 2 6 - 0 0 0 0 0 2 Enter
wait_for "INV-2026-000002" 5
keys Enter
shows "the invoice shows paid" "Status: paid"
keys q q

# --- The next run is clean; the books are balanced -----------------------------
out=$(fd --json recon run --date "$DAY")
is "recon run afterwards is clean" "$(echo "$out" | jget 'd["diffs_new"], d["open"], d["balanced"]')" "0 0 True"
is "frontdesk pay list: the recorded payment and the claimed one, nothing more" "$(payments)" "$((BEFORE + 2))"
shows "the status line shows the balanced day" "books: last balanced $DAY"
ok "the calendar's mark is gone" wait_gone "\$$WD"
keys Q
shows "Q quits" "frontdesk-exited-0"
done_testing
