#!/bin/sh
# recon-run.sh - reconciling a day against the fake channel's settlement
# data (frontdesk recon run): a clean day has no difference; each kind of
# difference made on purpose (a payment the channel never received, a
# channel charge we never recorded after a lost event and a failed active
# query, a charge taken on the channel's own page, a partial amount, a
# refund the desk does not know, a currency mismatch) is found exactly once,
# also when the day is run again; a difference the re-run no longer finds is
# closed as gone; a payment recorded at 23:59:59 and its line created at
# 00:00:02 are one match; two runs of the same day at once: one is refused;
# bad input is refused and changes nothing. Every secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=sk_test_made_up_recon_key
FAKE_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

# the desk's frozen "now" is this minute, and the fake's clock too (the
# poller reads events up to the real time)
FRONTDESK_NOW=$(date +%Y-%m-%dT%H:%M)
export FRONTDESK_NOW
NOW=$(date -d "$(echo "$FRONTDESK_NOW" | tr T ' ')" +%s)
DAY=${FRONTDESK_NOW%T*}
NEXT=$(date -d "$DAY + 1 day" +%Y-%m-%d)
fake_run fake-stripe.py 150 --api-key "$KEY" --now "$NOW"
ok "the fake channel started on a random port" test -n "$PORT"
fake_secrets
run() { fd --json recon run --date "${1:-$DAY}"; }
succeed() { ctl "intent/$(pi_of "$1")" "{\"status\": \"succeeded\"${2:+, \"emit\": $2}}" >/dev/null; }
# line_of ORDER: the fake's balance line of the order's intent
line_of() {
	curl -s "$BASE/v1/balance_transactions?limit=100" -u "$KEY:" |
		PI=$(pi_of "$1") python3 -c 'import json,os,sys; d=json.load(sys.stdin); print([b["id"] for b in d["data"] if b["source"] == "ch_" + os.environ["PI"][3:]][0])'
}
kinds() { db "SELECT group_concat(kind || '=' || n, ' ') FROM (SELECT kind, count(*) n FROM reconciliation_diff WHERE state = '${1:-open}' GROUP BY kind ORDER BY kind)"; }

fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
for t in 1 2 3 4 5 6 7; do
	fd job add --customer 1 --title "Job $t" >/dev/null
	fd item add --job $t --description "Work $t" --price 100 >/dev/null
	fd invoice issue --jobs $t >/dev/null
done
fd channel provider-set stripe --url "$BASE" >/dev/null

# --- A clean day -------------------------------------------------------------
O1=$(charge INV-2026-000001 60)
deliver
succeed "$O1"
poll
fd channel process --once >/dev/null
is "the card payment is recorded" "$(db "SELECT count(*) FROM payment WHERE method = 'card'")" 1
out=$(run)
is "a clean day: one line, one payment, matched" \
	"$(echo "$out" | jget 'd["lines"], d["local"], d["matched"], d["diffs_new"], d["open"], d["balanced"]')" \
	"1 1 1 0 0 True"
B1=$(echo "$out" | jget 'd["batch"]')
is "the batch is done, fetched, with its window and who ran it" \
	"$(db "SELECT status, source, window_to - window_from, fetch_from < window_from, fetch_to > window_to, operator_id = '$(id -un)' FROM reconciliation_batch WHERE id = $B1")" \
	"done|fetch|86400|1|1|1"
is "the fee is kept per payment: gross, fee, net" \
	"$(db "SELECT gross, fee, net FROM reconciliation_fee f JOIN payment p ON p.id = f.payment_id WHERE p.reference = '$(pi_of "$O1")'")" \
	"6000|180|5820"
is "the day's totals per currency" \
	"$(db "SELECT currency, lines, gross, fee, net, local FROM reconciliation_total WHERE batch_id = $B1")" \
	"USD|1|6000|180|5820|6000"
is "the settlement was asked with the expanded source" \
	"$(ctl log '' | jget 'sum(1 for r in d["log"] if r["path"] == "/v1/balance_transactions" and "expand[]=data.source" in r["query"])')" 1
is "no difference" "$(db "SELECT count(*) FROM reconciliation_diff")" 0
fee=$(db "SELECT f.fee FROM reconciliation_fee f JOIN payment p ON p.id = f.payment_id WHERE p.reference = '$(pi_of "$O1")'")
is "takings show the day's card money gross and net of the channel's fee" \
	"$(fd --json report takings --from "$DAY" --to "$DAY" | jget '[(r["received"], r["fees"], r["net_after_fees"]) for r in d["days"] if r["method"] == "card"]')" \
	"[(6000, $fee, $((6000 - fee)))]"
is "the books are balanced for the day" "$(fd --json recon state | jget 'd["last_balanced"], d["open"]')" "$DAY 0"

# --- Each difference on purpose -----------------------------------------------
# a payment the channel never received (in this day): its line moves away
O2=$(charge INV-2026-000002 30)
# a lost event and a failed active query: the channel has the money, we do not
O3=$(charge INV-2026-000003 20)
# a partial amount
O4=$(charge INV-2026-000004 40)
# a currency mismatch
O5=$(charge INV-2026-000005 10)
deliver
succeed "$O2"
succeed "$O4"
succeed "$O5"
succeed "$O3" false
ctl fault "{\"path\": \"/v1/payment_intents/$(pi_of "$O3")\", \"method\": \"GET\", \"kind\": \"status\", \"status\": 500, \"count\": 1000}" >/dev/null
poll
fd channel process --once --all >/dev/null 2>&1
fd channel query --once --all >/dev/null 2>&1
is "the lost payment is not recorded (the query failed)" "$(order "$O3" | cut -d'|' -f1,2)" "paying|-"
ctl balance/"$(line_of "$O2")" "{\"created\": $((NOW - 10 * 86400))}" >/dev/null
ctl balance/"$(line_of "$O4")" '{"amount": 3900}' >/dev/null
ctl balance/"$(line_of "$O5")" '{"currency": "eur"}' >/dev/null
# a charge taken on the channel's own page: no order, no event
ctl intent '{"amount": 1500, "currency": "usd", "status": "succeeded", "emit": false}' >/dev/null
# a refund the desk does not know
ctl refund "{\"payment_intent\": \"$(pi_of "$O1")\", \"amount\": 1000, \"emit\": false}" >/dev/null
is "four card payments of ours" "$(db "SELECT count(*) FROM payment WHERE method = 'card'")" 4
out=$(run)
is "six differences found" "$(echo "$out" | jget 'd["diffs_new"], d["open"], d["balanced"]')" "6 6 False"
is "one of each kind, two channel_only" "$(kinds)" \
	"amount_mismatch=1 channel_only=2 currency_mismatch=1 local_only=1 status_mismatch=1"
is "local_only is our payment the channel does not show" \
	"$(db "SELECT p.reference = '$(pi_of "$O2")', d.local_amount, d.channel_amount IS NULL FROM reconciliation_diff d JOIN payment p ON p.id = d.payment_id WHERE d.kind = 'local_only'")" \
	"1|3000|1"
is "channel_only keeps the channel's line, with the intent of our lost order" \
	"$(db "SELECT json_extract(line_data, '\$.order_id') = '$(pi_of "$O3")', json_extract(line_data, '\$.order_no'), channel_amount, payment_id IS NULL FROM reconciliation_diff WHERE kind = 'channel_only' AND json_extract(line_data, '\$.order_no') <> ''")" \
	"1|$O3|2000|1"
is "the page's charge has no order of ours" \
	"$(db "SELECT json_extract(line_data, '\$.order_no'), channel_amount FROM reconciliation_diff WHERE kind = 'channel_only' AND json_extract(line_data, '\$.order_no') = ''")" \
	"|1500"
is "amount_mismatch: both amounts" \
	"$(db "SELECT local_amount, channel_amount FROM reconciliation_diff WHERE kind = 'amount_mismatch'")" "4000|3900"
is "currency_mismatch: both currencies" \
	"$(db "SELECT local_currency, channel_currency FROM reconciliation_diff WHERE kind = 'currency_mismatch'")" "USD|EUR"
is "status_mismatch: the channel refunded a payment we think paid" \
	"$(db "SELECT p.reference = '$(pi_of "$O1")', d.channel_amount, json_extract(d.line_data, '\$.kind'), d.refund_id IS NULL FROM reconciliation_diff d JOIN payment p ON p.id = d.payment_id WHERE d.kind = 'status_mismatch'")" \
	"1|1000|refund|1"
B2=$(echo "$out" | jget 'd["batch"]')
out=$(run)
is "run again: nothing new, all six seen again" "$(echo "$out" | jget 'd["diffs_new"], d["diffs_seen"], d["diffs_gone"], d["open"]')" "0 6 0 6"
B3=$(echo "$out" | jget 'd["batch"]')
is "still six differences, each once" "$(db "SELECT count(*), count(DISTINCT kind || natural_key) FROM reconciliation_diff")" "6|6"
is "the re-run is a new batch that saw them" \
	"$(db "SELECT count(*) FROM reconciliation_diff WHERE first_batch_id = $B2 AND last_seen_batch_id = $B3")" 6
is "recon show lists the batch's six differences" \
	"$(fd --json recon show "$B3" | jget 'len(d["differences"]), d["open_now"], d["totals"][0]["currency"]')" "6 6 EUR"
is "the day is not balanced; the last balanced day is still none newer" \
	"$(fd --json recon state | jget 'd["last_balanced"], d["open"], d["open_days"]')" "None 6 1"

# --- A difference the re-run no longer finds: gone, with a reason -------------
ctl balance/"$(line_of "$O4")" '{"amount": 4000}' >/dev/null
out=$(run)
is "the corrected line: one difference gone" "$(echo "$out" | jget 'd["diffs_new"], d["diffs_gone"], d["open"]')" "0 1 5"
is "closed by the batch as gone, never deleted" \
	"$(db "SELECT d.kind, d.state, r.action, r.batch_id = $(echo "$out" | jget 'd["batch"]'), r.note LIKE 'not found again by reconciliation batch%' FROM reconciliation_diff d JOIN reconciliation_resolution r ON r.diff_id = d.id")" \
	"amount_mismatch|resolved|gone|1|1"

# --- The tolerance: 23:59:59 and 00:00:02 are one match ------------------------
# a payment of ours at 23:59:59 whose line the channel made at 00:00:02 of
# the next day (posted by the active query: the poller reads up to the real
# time only)
LATE=$(date -d "$DAY 23:59:59" +%s)
ctl clock "{\"set\": $((LATE + 3))}" >/dev/null
O6=$(charge INV-2026-000006 25)
deliver
succeed "$O6" false
FRONTDESK_NOW=${DAY}T23:59:59 fd channel query --once --all >/dev/null 2>&1
is "our payment is of the day's last second" \
	"$(db "SELECT received_at FROM payment WHERE reference = '$(pi_of "$O6")'")" "$LATE"
printf 'recon_tolerance_seconds = 0\n' > "$XDG_CONFIG_HOME/frontdesk/config"
out=$(run)
is "without the tolerance our late payment is a difference" "$(echo "$out" | jget 'd["diffs_new"]')" 1
LATEDIFF=$(db "SELECT d.id FROM reconciliation_diff d JOIN payment p ON p.id = d.payment_id WHERE p.reference = '$(pi_of "$O6")'")
is "... local_only" "$(db "SELECT kind FROM reconciliation_diff WHERE id = $LATEDIFF")" local_only
rm -f "$XDG_CONFIG_HOME/frontdesk/config"
out=$(run)
is "with it, the line of 00:00:02 matches: the difference is gone" \
	"$(echo "$out" | jget 'd["diffs_new"], d["diffs_gone"]')" "0 1"
is "gone, with its reason" "$(db "SELECT action FROM reconciliation_resolution WHERE diff_id = $LATEDIFF")" gone
out=$(run "$NEXT")
is "the next day: the early line matched in the look-back" \
	"$(echo "$out" | jget 'd["lines"], d["matched"], d["diffs_new"], d["open"]')" "1 1 0 0"
is "one fee row for that payment" \
	"$(db "SELECT count(*) FROM reconciliation_fee f JOIN payment p ON p.id = f.payment_id WHERE p.reference = '$(pi_of "$O6")'")" 1

# --- Two runs of the same day at once: one is refused ------------------------
ctl fault '{"path": "/v1/balance_transactions", "method": "GET", "kind": "slow", "seconds": 4, "count": 1}' >/dev/null
batches=$(db "SELECT count(*) FROM reconciliation_batch")
fd --json recon run --date "$DAY" > "$TMP/first" 2> "$TMP/first.err" &
FIRST=$!
held() { [ -n "$(db "SELECT owner_host FROM control WHERE name = 'recon.stripe.$DAY' AND owner_host IS NOT NULL")" ]; }
ok "the first run holds the day's lock" until_ok 20 held
fd recon run --date "$DAY" > "$TMP/second" 2> "$TMP/second.err"
is "the second run is refused" "$?" 1
like "the refusal names the day and who holds it" "$(cat "$TMP/second.err")" "day $DAY of stripe is being reconciled by someone else"
like "... with the holder's process" "$(cat "$TMP/second.err")" "$(hostname)"
wait "$FIRST"
is "the first run finished" "$?" 0
is "only the first made a batch" "$(db "SELECT count(*) FROM reconciliation_batch")" "$((batches + 1))"
is "the lock is free again" "$(db "SELECT owner_host IS NULL FROM control WHERE name = 'recon.stripe.$DAY'")" 1

# --- Bad input ----------------------------------------------------------------
fd recon run --date 2026-13-01 > /dev/null 2> "$TMP/err"
is "a bad date is a usage error" "$?" 2
fd recon run --date 2026-02-30 > /dev/null 2> "$TMP/err"
is "a day that does not exist is a usage error" "$?" 2
fd recon run > /dev/null 2> "$TMP/err"
is "--date is required" "$?" 2
refused "an unknown channel" recon run --date "$DAY" --channel nosuch
refused "show of no batch" recon show 9999
ctl fault '{"path": "/v1/balance_transactions", "method": "GET", "kind": "status", "status": 500, "headers": {"Stripe-Should-Retry": "false"}, "count": 1}' >/dev/null
batches=$(db "SELECT max(id) FROM reconciliation_batch")
fd recon run --date "$DAY" > /dev/null 2> "$TMP/err"
is "a channel that fails: refused" "$?" 1
like "... saying the settlement could not be read" "$(cat "$TMP/err")" "settlement data could not be read"
is "... and its batch is failed, saying why" \
	"$(db "SELECT count(*), status, error LIKE '%settlement data could not be read%' FROM reconciliation_batch WHERE id > $batches")" "1|failed|1"
is "no other batch failed" "$(db "SELECT count(*) FROM reconciliation_batch WHERE status <> 'done'")" 1

# --- A run killed in the middle: the next run of the day closes its batch ------
asked() { ctl log '' | jget 'sum(1 for r in d["log"] if r["path"] == "/v1/balance_transactions")'; }
ASKED=$(asked)
ctl fault '{"path": "/v1/balance_transactions", "method": "GET", "kind": "slow", "seconds": 30, "count": 1}' >/dev/null
"$FRONTDESK" recon run --date "$DAY" > /dev/null 2>&1 &
KILLED=$!
# its batch is running and it is waiting for the channel's answer
running() { [ "$(db "SELECT count(*) FROM reconciliation_batch WHERE status = 'running'")" = 1 ] && [ "$(asked)" -gt "$ASKED" ]; }
ok "the run's batch is running while it fetches" until_ok 60 running
kill -9 "$KILLED"
wait "$KILLED" 2>/dev/null
STUCK=$(db "SELECT id FROM reconciliation_batch WHERE status = 'running'")
fd check > "$TMP/check" 2>&1
is "frontdesk check reports the interrupted batch" "$?" 1
like "... naming it and what to do" "$(cat "$TMP/check")" "recon-batch-interrupted: reconciliation batch $STUCK of $DAY (stripe) is still running"
out=$(run)
is "the next run of the day is done" "$(echo "$out" | jget 'd["batch"] > '"$STUCK")" True
is "... and closed the killed run's batch as failed, interrupted" \
	"$(db "SELECT status, error LIKE 'interrupted%' FROM reconciliation_batch WHERE id = $STUCK")" "failed|1"
is "nothing is left running" "$(db "SELECT count(*) FROM reconciliation_batch WHERE status = 'running'")" 0
ok "recon list --json" sh -c "'$FRONTDESK' --json recon list --date $DAY | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d[\"batches\"]) >= 4'"
ok "frontdesk check is clean" fd check
done_testing
