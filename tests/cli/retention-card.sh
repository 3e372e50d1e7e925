#!/bin/sh
# retention-card.sh - a purge keeps the ids the payment channel issued: a
# customer who paid by card through the fake channel (tests/chan/fake-stripe.py)
# and was refunded through the channel is purged, and `check`,
# the reports (aging, takings, commissions) and a reconciliation of the
# day run again give exactly what they gave before; only the customer's
# own text goes (the reference typed for a check payment, the notes).
# Every secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=sk_test_made_up_retention_card_key
FAKE_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

# the desk's "now" is this minute, and the fake's clock too (the poller
# reads events up to the real time)
FRONTDESK_NOW=$(date +%Y-%m-%dT%H:%M)
export FRONTDESK_NOW
NOW=$(date -d "$(echo "$FRONTDESK_NOW" | tr T ' ')" +%s)
DAY=${FRONTDESK_NOW%T*}
fake_run fake-stripe.py 150 --api-key "$KEY" --now "$NOW"
ok "the fake channel started on a random port" test -n "$PORT"
fake_secrets
printf 'retention_months = 1\nretention_soft_days = 0\n' > "$XDG_CONFIG_HOME/frontdesk/config"
succeed() { ctl "intent/$(pi_of "$1")" '{"status": "succeeded"}' >/dev/null; }
newest_refund() { curl -s --max-time 10 "$BASE/_control/state" | jget 'sorted(d["refunds"].values(), key=lambda r: r["created"])[-1]["id"]'; }
process() { fd channel process --once --all >/dev/null; }
jq_() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
sorted_json() { jq_ 'json.dumps(d, sort_keys=True)'; }

fd init >/dev/null
fd customer add --name "Cara MRKCARD" --phone 5550123 >/dev/null
fd customer add --name "Dan Stays" >/dev/null
fd job add --customer 1 --title "Wash" >/dev/null
fd item add --job 1 --description "Exterior wash" --price 100 >/dev/null
fd invoice issue --jobs 1 >/dev/null
fd job add --customer 2 --title "Wash" >/dev/null
fd item add --job 2 --description "Exterior wash" --price 100 >/dev/null
fd invoice issue --jobs 2 >/dev/null
fd channel provider-set stripe --url "$BASE" >/dev/null
INV1=$(db "SELECT number FROM invoice WHERE customer_id = 1")
INV2=$(db "SELECT number FROM invoice WHERE customer_id = 2")

# Cara pays 100 by card; it all goes back through the channel, and she
# pays by check instead (a reference she typed: hers, personal)
O1=$(charge "$INV1" 100); deliver; succeed "$O1"; poll; process
PI=$(pi_of "$O1")
is "the card payment is posted with the channel's id as reference" \
	"$(db "SELECT count(*) FROM payment WHERE method = 'card' AND reference = '$PI' AND customer_id = 1")" 1
ok "a refund through the channel is asked" fd channel refund "$O1"
deliver
RF=$(newest_refund)
ctl "refund/$RF" '{"status": "succeeded"}' >/dev/null
poll; process
is "the refund is posted with the channel's id" "$(db "SELECT amount, method FROM refund WHERE reference = '$RF'")" "10000|card"
fd pay record --customer 1 --amount 100 --method check --reference MRKCHECK "$INV1=100" >/dev/null
is "Cara owes nothing" "$(db "SELECT balance FROM invoice WHERE customer_id = 1")" 0
# Dan pays by card too, and stays
O2=$(charge "$INV2" 100); deliver; succeed "$O2"; poll; process
is "Dan owes nothing" "$(db "SELECT balance FROM invoice WHERE customer_id = 2")" 0

recon() { fd --json recon run --date "$DAY" | jq_ '[d[k] for k in ("lines", "local", "matched", "diffs_new", "open", "balanced")]'; }
is "the day reconciles clean" "$(recon)" "[3, 3, 3, 0, 0, True]"
ok "check is clean" fd check

# months later, Dan has come back (and left a credit), Cara has not
export FRONTDESK_NOW="$(date -d "@$((NOW + 100 * 86400))" +%Y-%m-%dT%H:%M)"
fd pay record --customer 2 --amount 5 --method cash >/dev/null
fd tasks run --once --quiet

before_check=$(fd check 2>&1)
before_aging=$(fd --json report aging --on "$DAY" | sorted_json)
before_takings=$(fd --json report takings --from "$DAY" --to "$DAY" | sorted_json)
before_comm=$(fd --json report commissions --from "$DAY" --to "$DAY" | sorted_json)
before_recon=$(recon)

fd retention run >/dev/null
fd retention run >/dev/null
is "Cara is purged" "$(db "SELECT state FROM retention_process")" purged
is "Dan was never proposed" "$(db "SELECT count(*) FROM retention_process WHERE customer_id = 2")" 0
is "the channel's id of the card payment is kept" \
	"$(db "SELECT count(*) FROM payment WHERE method = 'card' AND reference = '$PI'")" 1
is "... in its history too" \
	"$(db "SELECT count(*) FROM payment_his WHERE method = 'card' AND reference = '$PI'")" \
	"$(db "SELECT count(*) FROM payment_his WHERE method = 'card' AND id = (SELECT payment_id FROM pay_order WHERE order_no = '$O1')")"
is "the channel's id of the refund is kept" "$(db "SELECT count(*) FROM refund WHERE reference = '$RF'")" 1
is "the reference Cara's check carried is gone" \
	"$(db "SELECT count(*) FROM payment WHERE reference = 'MRKCHECK'") $(db "SELECT count(*) FROM payment_his WHERE reference = 'MRKCHECK'")" "0 0"
is "the name is gone" "$(db "SELECT count(*) FROM customer WHERE name LIKE '%MRKCARD%'")" 0
is "check: the same" "$(fd check 2>&1)" "$before_check"
is "aging: the same" "$(fd --json report aging --on "$DAY" | sorted_json)" "$before_aging"
is "takings: the same" "$(fd --json report takings --from "$DAY" --to "$DAY" | sorted_json)" "$before_takings"
is "commissions: the same" "$(fd --json report commissions --from "$DAY" --to "$DAY" | sorted_json)" "$before_comm"
is "the day reconciled again: the same" "$(recon)" "$before_recon"
done_testing
