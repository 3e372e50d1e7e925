#!/bin/sh
# recon-import.sh - reconciling a day against a downloaded settlement file
# (frontdesk recon import FILE): Stripe's balance-transaction CSV, made here
# from the fake channel's own lines (a byte order mark, CRLF, quoted
# fields): a clean day from the file has no difference and the batch keeps
# the file's sha256; a charge only the file has is one channel_only
# difference, also when the same file is imported again; a file cut short
# is refused whole, naming its line, and changes nothing. Every secret
# here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=sk_test_made_up_import_key
FAKE_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

FRONTDESK_NOW=$(date +%Y-%m-%dT%H:%M)
export FRONTDESK_NOW
NOW=$(date -d "$(echo "$FRONTDESK_NOW" | tr T ' ')" +%s)
DAY=${FRONTDESK_NOW%T*}
fd init >/dev/null
fake_run fake-stripe.py 150 --api-key "$KEY" --now "$NOW"
ok "the fake channel started on a random port" test -n "$PORT"
fake_secrets
succeed() { ctl "intent/$(pi_of "$1")" "{\"status\": \"succeeded\"${2:+, \"emit\": $2}}" >/dev/null; }
# export FILE [EXTRA_CSV_LINE]: the fake's balance lines as Stripe's CSV
# export (BOM, CRLF, every field quoted, amounts in major units, UTC times)
export_csv() {
	curl -s "$BASE/v1/balance_transactions?limit=100&expand[]=data.source" -u "$KEY:" | python3 -c '
import json, sys, time
d = json.load(sys.stdin)
out = ["\ufeff\"id\",\"type\",\"source\",\"amount\",\"fee\",\"net\",\"currency\",\"created (utc)\",\"available on (utc)\",\"status\",\"payment_intent_id\",\"refund_id\",\"payment_metadata[order_no]\""]
def t(s): return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(s))
def m(v): return "%s%d.%02d" % ("-" if v < 0 else "", abs(v) // 100, abs(v) % 100)
for b in d["data"]:
    src = b["source"] if isinstance(b["source"], dict) else {"id": b["source"]}
    pi = src.get("payment_intent") or ""
    no = (src.get("metadata") or {}).get("order_no", "")
    ref = src["id"] if b["type"] == "refund" else ""
    row = [b["id"], b["type"], src["id"], m(b["amount"]), m(b["fee"]), m(b["net"]), b["currency"],
           t(b["created"]), t(b["available_on"]), b["status"], pi, ref, no]
    out.append(",".join("\"%s\"" % x for x in row))
if len(sys.argv) > 1:
    out.append(sys.argv[1])
sys.stdout.write("\r\n".join(out) + "\r\n")
' "${2:-}" > "$1"
}

fd customer add --name "Ada Lee" >/dev/null
fd job add --customer 1 --title "Job 1" >/dev/null
fd item add --job 1 --description "Work 1" --price 100 >/dev/null
fd invoice issue --jobs 1 >/dev/null
fd channel provider-set stripe --url "$BASE" >/dev/null
O1=$(charge INV-2026-000001 60)
deliver
succeed "$O1"
poll
fd channel process --once >/dev/null

# --- A clean day from the file -----------------------------------------------
export_csv "$TMP/day.csv"
out=$(fd --json recon import "$TMP/day.csv")
is "the file's day: one line, matched, no difference" \
	"$(echo "$out" | jget 'd["day"], d["lines"], d["matched"], d["diffs_new"], d["open"]')" "$DAY 1 1 0 0"
B=$(echo "$out" | jget 'd["batch"]')
is "the batch is a file's, with its sha256" \
	"$(db "SELECT source, file_sha256, fetch_from IS NULL FROM reconciliation_batch WHERE id = $B")" \
	"file|$(sha256sum < "$TMP/day.csv" | cut -d' ' -f1)|1"
is "the fee from the file" "$(db "SELECT gross, fee, net FROM reconciliation_fee")" "6000|180|5820"

# --- A charge only the file has ----------------------------------------------
CREATED=$(date -u -d "@$NOW" "+%Y-%m-%d %H:%M:%S")
export_csv "$TMP/more.csv" "\"txn_only_in_file\",\"charge\",\"ch_x\",\"12.50\",\"0.38\",\"12.12\",\"usd\",\"$CREATED\",\"$CREATED\",\"pending\",\"pi_only_in_file\",\"\",\"\""
out=$(fd --json recon import "$TMP/more.csv" --date "$DAY")
is "the file's extra charge: one channel_only" "$(echo "$out" | jget 'd["diffs_new"], d["open"]')" "1 1"
is "kept with the file's line" \
	"$(db "SELECT kind, line_id, channel_amount, json_extract(line_data, '\$.order_id') FROM reconciliation_diff")" \
	"channel_only|txn_only_in_file|1250|pi_only_in_file"
out=$(fd --json recon import "$TMP/more.csv" --date "$DAY")
is "the same file again: seen again, nothing new" "$(echo "$out" | jget 'd["diffs_new"], d["diffs_seen"]')" "0 1"
is "still one difference" "$(db "SELECT count(*) FROM reconciliation_diff")" 1

# --- A file cut short is refused whole ---------------------------------------
head -c -20 "$TMP/more.csv" > "$TMP/cut.csv"
refused "a file cut short" recon import "$TMP/cut.csv" --date "$DAY"
fd recon import "$TMP/cut.csv" --date "$DAY" 2> "$TMP/err" >/dev/null
like "... naming its line" "$(cat "$TMP/err")" "line 3"
refused "a file that does not exist" recon import "$TMP/nosuch.csv"
fd recon import "$TMP/day.csv" --date 2026-02-30 > /dev/null 2>&1
is "a bad --date is a usage error" "$?" 2
ok "frontdesk check is clean" fd check
done_testing
