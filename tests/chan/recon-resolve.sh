#!/bin/sh
# recon-resolve.sh - a person's decision on each reconciliation difference
# (frontdesk recon resolve), against the fake channel: a channel_only charge
# of a lost order is recorded as one payment through the payment path, with
# its allocation, and the order becomes paid; resolving it again records
# nothing more; a charge taken on the channel's own page is recorded for the
# invoice named; a refund the desk did not know is recorded as a correcting
# entry; a partial amount is corrected by a refund of the difference; the
# rest is accepted with a note; the next run of the day is clean and the day
# balanced. Decisions are history. A parked event (a payment that matched no
# order of ours) is listed and claimed for a customer and an invoice: one
# payment, even when claimed twice. Every secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=sk_test_made_up_resolve_key
FAKE_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

FRONTDESK_NOW=$(date +%Y-%m-%dT%H:%M)
export FRONTDESK_NOW
NOW=$(date -d "$(echo "$FRONTDESK_NOW" | tr T ' ')" +%s)
DAY=${FRONTDESK_NOW%T*}
fake_run fake-stripe.py 150 --api-key "$KEY" --now "$NOW"
ok "the fake channel started on a random port" test -n "$PORT"
fake_secrets
run() { fd --json recon run --date "$DAY"; }
succeed() { ctl "intent/$(pi_of "$1")" "{\"status\": \"succeeded\"${2:+, \"emit\": $2}}" >/dev/null; }
line_of() {
	curl -s "$BASE/v1/balance_transactions?limit=100" -u "$KEY:" |
		PI=$(pi_of "$1") python3 -c 'import json,os,sys; d=json.load(sys.stdin); print([b["id"] for b in d["data"] if b["source"] == "ch_" + os.environ["PI"][3:]][0])'
}
diff_of() { db "SELECT id FROM reconciliation_diff WHERE kind = '$1' ${2:+AND $2} ORDER BY id LIMIT 1"; }
inv() { db "SELECT paid, balance, status FROM invoice WHERE number = '$1'"; }

fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
fd customer add --name "Bo Chen" >/dev/null
for t in 1 2 3 4 5 6 7; do
	fd job add --customer 1 --title "Job $t" >/dev/null
	fd item add --job $t --description "Work $t" --price 100 >/dev/null
	fd invoice issue --jobs $t >/dev/null
done
fd channel provider-set stripe --url "$BASE" >/dev/null

O1=$(charge INV-2026-000001 60)
O2=$(charge INV-2026-000002 30)
O3=$(charge INV-2026-000003 20)
O4=$(charge INV-2026-000004 40)
deliver
succeed "$O1"
succeed "$O2"
succeed "$O4"
succeed "$O3" false
ctl fault "{\"path\": \"/v1/payment_intents/$(pi_of "$O3")\", \"method\": \"GET\", \"kind\": \"status\", \"status\": 500, \"count\": 1000}" >/dev/null
poll
fd channel process --once --all >/dev/null 2>&1
fd channel query --once --all >/dev/null 2>&1
ctl balance/"$(line_of "$O2")" "{\"created\": $((NOW - 10 * 86400))}" >/dev/null
ctl balance/"$(line_of "$O4")" '{"amount": 3900}' >/dev/null
ctl intent '{"amount": 1500, "currency": "usd", "status": "succeeded", "emit": false}' >/dev/null
ctl refund "{\"payment_intent\": \"$(pi_of "$O1")\", \"amount\": 1000, \"emit\": false}" >/dev/null
out=$(run)
is "five differences to decide" "$(echo "$out" | jget 'd["diffs_new"], d["open"]')" "5 5"
LOST=$(diff_of channel_only "json_extract(line_data, '\$.order_no') <> ''")
PAGE=$(diff_of channel_only "json_extract(line_data, '\$.order_no') = ''")
REF=$(diff_of status_mismatch)
PART=$(diff_of amount_mismatch)
LOCAL=$(diff_of local_only)

# --- Refusals change nothing ---------------------------------------------------
fd recon resolve "$LOST" --record > /dev/null 2>&1
is "a decision needs --note" "$?" 2
fd recon resolve "$LOST" --accept --record --note x > /dev/null 2>&1
is "one decision at a time" "$?" 2
refused "a blank note" recon resolve "$LOST" --accept --note "   "
refused "--record on an amount mismatch" recon resolve "$PART" --record --note "no"
refused "--correct on a channel charge we do not know" recon resolve "$PAGE" --correct --note "no"
refused "a page charge without a customer or invoice" recon resolve "$PAGE" --record --note "whose?"
refused "an invoice that does not exist" recon resolve "$LOST" --record --invoice INV-2026-000099 --note "lost"
refused "no such difference" recon resolve 9999 --accept --note "x"

# --- channel_only: record the payment the channel shows -----------------------
out=$(fd --json recon resolve "$LOST" --record --note "the success event was lost and the query failed")
is "recorded one payment" "$(echo "$out" | jget 'd["action"], d["replayed"]')" "record_payment False"
PAY=$(echo "$out" | jget 'd["payment"]')
is "the payment is the channel's: card, its amount, the intent as reference, our customer" \
	"$(db "SELECT method, amount, currency, customer_id, reference = '$(pi_of "$O3")' FROM payment WHERE id = $PAY")" \
	"card|2000|USD|1|1"
is "allocated to the order's invoice" "$(inv INV-2026-000003)" "2000|8000|partially_paid"
is "the order is paid with that payment" "$(order "$O3")" "paid|$PAY|0"
is "the difference is resolved, with its history row" \
	"$(db "SELECT d.state, r.action, r.payment_id, r.note, r.operator_id = '$(id -un)' FROM reconciliation_diff d JOIN reconciliation_resolution r ON r.diff_id = d.id WHERE d.id = $LOST")" \
	"resolved|record_payment|$PAY|the success event was lost and the query failed|1"
out=$(fd --json recon resolve "$LOST" --record --note "again")
is "resolving it again records nothing: the same payment" "$(echo "$out" | jget 'd["payment"], d["replayed"]')" "$PAY True"
is "still one payment for the intent" "$(db "SELECT count(*) FROM payment WHERE reference = '$(pi_of "$O3")'")" 1
is "still one resolution" "$(db "SELECT count(*) FROM reconciliation_resolution WHERE diff_id = $LOST")" 1
refused "accepting a resolved difference" recon resolve "$LOST" --accept --note "x"

out=$(fd --json recon resolve "$PAGE" --record --invoice INV-2026-000006:10 --note "paid on the channel's page")
PAY2=$(echo "$out" | jget 'd["payment"]')
is "the page's charge: one payment of the invoice's customer" \
	"$(db "SELECT amount, customer_id, allocated FROM payment WHERE id = $PAY2")" "1500|1|1000"
is "the invoice got what was named" "$(inv INV-2026-000006)" "1000|9000|partially_paid"

# --- Correcting entries --------------------------------------------------------
out=$(fd --json recon resolve "$REF" --correct --note "refunded on the channel's dashboard")
RF=$(echo "$out" | jget 'd["refund"]')
is "the refund the desk did not know is recorded, with the channel's refund id" \
	"$(db "SELECT amount, status, method, reference LIKE 're_%' FROM refund WHERE id = $RF")" "1000|succeeded|card|1"
is "the order knows it was refunded in part" "$(order "$O1" | cut -d'|' -f1,3)" "refunding|1000"
out=$(fd --json recon resolve "$PART" --correct --note "the channel settled 39.00")
is "the partial amount: a refund of the difference" \
	"$(db "SELECT amount, reference IS NULL FROM refund WHERE id = $(echo "$out" | jget 'd["refund"]')")" "100|1"
ok "the local-only payment is accepted" fd recon resolve "$LOCAL" --accept --note "moved to another day at the channel"

# --- The next run of the day is clean ----------------------------------------
out=$(run)
is "the next run: nothing new, nothing open, balanced" \
	"$(echo "$out" | jget 'd["diffs_new"], d["open"], d["balanced"]')" "0 0 True"
is "the recorded payments now match their lines" "$(db "SELECT count(*) FROM reconciliation_fee WHERE payment_id IN ($PAY, $PAY2)")" 2
is "recon state: the day is the last balanced, nothing open" \
	"$(fd --json recon state | jget 'd["last_balanced"], d["open"]')" "$DAY 0"
ok "frontdesk check is clean" fd check

# --- Decisions are history -----------------------------------------------------
# refuses NAME SQL MESSAGE: sqlite3 refuses SQL saying MESSAGE
refuses() { like "$1" "$(sqlite3 "$FRONTDESK_DB" "$2" 2>&1)" "$3"; }
refuses "a resolution is never changed" "UPDATE reconciliation_resolution SET note = 'x'" "history rows are never changed"
refuses "a resolution is never deleted" "DELETE FROM reconciliation_resolution" "history rows are never deleted"
refuses "a difference is never deleted" "DELETE FROM reconciliation_diff" "reconciliation differences are never deleted"
is "a difference only moves from open to resolved" \
	"$(db "SELECT group_concat(from_status || '>' || to_status) FROM status_transition WHERE entity = 'reconciliation_diff'")" "open>resolved"
is "every state change is a status flow" \
	"$(db "SELECT count(*) FROM status_flow WHERE entity = 'reconciliation_diff' AND to_status = 'resolved'")" 5

# --- Parked events: listed, claimed once -------------------------------------
PI=$(ctl intent '{"amount": 2500, "currency": "usd", "status": "succeeded"}' | jget 'd["id"]')
poll
fd channel process --once --all >/dev/null 2>&1
is "its events are parked: no order of ours" \
	"$(db "SELECT count(*) FROM inbound_callback WHERE object_id = '$PI' AND status = 'parked'")" 2
EV=$(db "SELECT id FROM inbound_callback WHERE object_id = '$PI' AND event_type = 'payment_intent.succeeded'")
EV0=$(db "SELECT id FROM inbound_callback WHERE object_id = '$PI' AND event_type = 'payment_intent.created'")
is "recon parked lists them with the channel's data" \
	"$(fd --json recon parked | jget 'sorted(e["type"] for e in d["events"] if e["object_id"] == "'"$PI"'"), [e["payload"]["data"]["object"]["amount"] for e in d["events"] if e["id"] == '"$EV"']')" \
	"['payment_intent.created', 'payment_intent.succeeded'] [2500]"
refused "a claim needs a note" recon claim "$EV" --customer 2 --note ""
refused "a claim for an invoice of another customer" recon claim "$EV" --customer 2 --invoice INV-2026-000007 --note "walk-in"
out=$(fd --json recon claim "$EV" --customer 1 --invoice INV-2026-000007 --note "paid at the channel's terminal")
CP=$(echo "$out" | jget 'd["payment"]')
is "the claim recorded one payment of the channel's amount" \
	"$(db "SELECT amount, customer_id, method, reference = '$PI' FROM payment WHERE id = $CP")" "2500|1|card|1"
is "allocated to the invoice" "$(inv INV-2026-000007)" "2500|7500|partially_paid"
is "the event is processed" "$(db "SELECT status FROM inbound_callback WHERE id = $EV")" processed
out=$(fd --json recon claim "$EV" --customer 1 --invoice INV-2026-000007 --note "again")
is "claimed again: the same payment, nothing recorded" "$(echo "$out" | jget 'd["payment"], d["replayed"]')" "$CP True"
out=$(fd --json recon claim "$EV0" --customer 1 --note "the same money, its other event")
is "the intent's other event: the same payment" "$(echo "$out" | jget 'd["payment"], d["replayed"]')" "$CP True"
is "one payment for the intent" "$(db "SELECT count(*) FROM payment WHERE reference = '$PI'")" 1
is "no parked event left for it" "$(db "SELECT count(*) FROM inbound_callback WHERE object_id = '$PI' AND status = 'parked'")" 0
out=$(run)
is "the claimed payment matches its line: still balanced" "$(echo "$out" | jget 'd["diffs_new"], d["open"]')" "0 0"
ok "frontdesk check is clean after the claim" fd check

# --- A lost order the channel settled for another amount: not recorded -------
O5=$(charge INV-2026-000005 10)
deliver
ctl fault "{\"path\": \"/v1/payment_intents/$(pi_of "$O5")\", \"method\": \"GET\", \"kind\": \"status\", \"status\": 500, \"count\": 1000}" >/dev/null
succeed "$O5" false
ctl balance/"$(line_of "$O5")" '{"amount": 900}' >/dev/null
out=$(run)
is "the lost order's line: one channel_only" "$(echo "$out" | jget 'd["diffs_new"]')" 1
ODD=$(diff_of channel_only "state = 'open'")
refused "its amount is not the order's: not recorded" recon resolve "$ODD" --record --note "lost"
fd recon resolve "$ODD" --record --note "lost" 2> "$TMP/err"
like "... saying both amounts and what to do" "$(cat "$TMP/err")" "the channel shows 9.00 USD for our card payment order $O5, which is for 10.00 USD"
ok "accepted with a note instead" fd recon resolve "$ODD" --accept --note "the shop settles it by hand"

# --- Payouts: their lines add up, and a person ticks them off ---------------
PO1=$(ctl payout '{}' | jget 'd["id"]')
PO2=$(ctl payout '{"lines": [], "amount": 777}' | jget 'd["id"]')
out=$(run)
is "the day's two payouts recorded, one does not add up" \
	"$(echo "$out" | jget 'd["payouts"], d["payouts_not_matching"], d["diffs_new"]')" "2 1 0"
is "the first: its lines (asked by payout) sum to its amount" \
	"$(db "SELECT matches, lines > 5, amount = lines_sum, ticked_at IS NULL FROM reconciliation_payout WHERE payout_id = '$PO1'")" "1|1|1|1"
is "the payout's lines were asked of the channel" \
	"$(ctl log '' | jget 'sum(1 for r in d["log"] if r["path"] == "/v1/balance_transactions" and "payout='"$PO1"'" in r["query"])')" 1
is "recon payouts lists both, not ticked" "$(fd --json recon payouts --unticked | jget 'len(d["payouts"])')" 2
refused "a payout whose lines do not add up is not ticked off" recon payout tick "$PO2"
ok "the first is ticked off" fd recon payout tick "$PO1"
is "... by whom" "$(db "SELECT ticked_by = '$(id -un)' FROM reconciliation_payout WHERE payout_id = '$PO1'")" 1
refused "ticked twice" recon payout tick "$PO1"
refused "no such payout" recon payout tick po_nosuch
fd recon payout untick "$PO1" > /dev/null 2>&1
is "an unknown payout command is a usage error" "$?" 2
out=$(run)
is "run again: the payout stays ticked" \
	"$(db "SELECT ticked_at IS NOT NULL FROM reconciliation_payout WHERE payout_id = '$PO1'")" 1
is "recon payouts --unticked: the other" "$(fd --json recon payouts --unticked | jget '[p["payout"] for p in d["payouts"]]')" "['$PO2']"

# --- The schedule: the worker reconciles yesterday after the configured hour --
YESTERDAY=$(date -d "$DAY - 1 day" +%Y-%m-%d)
yesterday() { db "SELECT count(*) FROM reconciliation_batch WHERE business_day = '$YESTERDAY' AND status = 'done'"; }
fd serve --for 2 --quiet >/dev/null 2>&1
is "without recon_auto_hour the worker reconciles nothing" "$(yesterday)" 0
printf 'recon_auto_hour = 0\n' > "$XDG_CONFIG_HOME/frontdesk/config"
fd serve --for 2 --quiet >/dev/null 2>&1
is "with it, the worker reconciled yesterday once" "$(yesterday)" 1
fd serve --for 2 --quiet >/dev/null 2>&1
is "and not again once it is done" "$(yesterday)" 1
rm -f "$XDG_CONFIG_HOME/frontdesk/config"
done_testing
