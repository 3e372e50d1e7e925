#!/bin/sh
# ui-qr.sh - a card payment at the desk through the channel's payment page,
# drawn as a QR code, against the fake WeChat Pay style channel
# (tests/chan/fake-wechat.py) with `frontdesk serve` running beside the screen:
# C on an invoice and y open the payment page, which says it is asking the
# channel until the worker has created the order, then shows the QR code
# of the code_url the channel answered (read back from the pane with
# tests/ui/qr-pane.py and zbarimg, compared with the URL the fake keeps) in
# an 80x24 terminal, with the address beside it; paid at the fake, the page
# says paid and the invoice pane paid by itself; a declined attempt and an
# expired (closed) order show so, and a closed order's code is gone; Enter
# on an open card order in the invoice pane opens its page again. A
# monochrome screen draws the light modules and still decodes. Then the
# Stripe fake with the provider's card page "checkout": the order is a
# Checkout Session (cs_...), its long URL's code decodes at 120x40 and is
# not drawn at 80x24 (the address is, whole); paid on the page, the
# session's events post the payment (none parked); a refund goes through
# the session's intent; an expired session and a failed asynchronous
# payment close the order; card page "intent" says there is no page. The
# money walk's card step: a visit's cell turns paid after ONE poll of the
# channel's events; an order the channel refuses shows failed. In the C
# locale the page shows the address alone. Every secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=made_up_wechat_merchant_key_0123
FAKE_PID=
SERVE_PID=
trap 'screen_stop; [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null; [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

open_invoice() {
	keys / "$1" Enter
	wait_for "$1" 5
	keys Enter
	shows "the invoice pane of $1 opens" "Status: "
}
# charge_at_desk INVOICE: C on the invoice, the amount it owes, Enter, y
charge_at_desk() {
	open_invoice "$1"
	keys C
	shows "C opens the card form for $1" "Card payment through the channel for $1"
	keys Enter
	shows "Enter asks for a confirmation" "Ask the payment channel for a card payment"
	keys y
}
# the code_url the fake answered for order $1
code_url() { ctl state '{}' | jget "d['trades']['$1']['code_url']"; }
# what the QR code on the pane decodes to (ink: dark or light)
decoded() { screen_text | python3 "$TOP_SRCDIR/tests/ui/qr-pane.py" --ink "${1:-dark}"; }
# relay: hand each notify the fake queued to frontdesk, as a web hook would
relay() {
	ctl notifies '{}' | python3 -c '
import json, sys
for i, x in enumerate(json.load(sys.stdin)["notifies"]):
    open(sys.argv[1] + "/n%d.xml" % i, "w").write(x)' "$TMP"
	for f in "$TMP"/n*.xml; do
		[ -f "$f" ] || continue
		fd inbox ingest --source wx < "$f" >/dev/null 2>>"$TMP/ingest.err"
		rm -f "$f"
	done
}

fake_run fake-wechat.py 120 --key "$KEY"
ok "the fake WeChat channel started on a random port" test -n "$PORT"
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'wx_api_key = %s\nwx_appid = wx_made_up_app\nwx_mch_id = 1900000109\n' "$KEY" \
	> "$XDG_CONFIG_HOME/frontdesk/secrets")
# the screen's own worker is off: `frontdesk serve` sends and follows the
# orders, asking the channel about a paying order a second after it is seen
printf 'screen_channel = no\nchannel_query_after_seconds = 1\n' \
	> "$XDG_CONFIG_HOME/frontdesk/config"
fd init >/dev/null
fd customer add --name "Qr Cat" >/dev/null
for t in 1 2 3 4; do
	fd job add --customer 1 --title "Job $t" >/dev/null
	fd item add --job $t --description "Work $t" --price 100 >/dev/null
	fd invoice issue --jobs $t >/dev/null
done
fd channel provider-set wx --url "$BASE" --adapter wechat >/dev/null
INV1=INV-2026-000001
INV2=INV-2026-000002
INV3=INV-2026-000003
INV4=INV-2026-000004

# --- Before the worker sends it: the page says it is asking -------------------
SCREEN_COLS=80 SCREEN_ROWS=24 screen_start
shows "the screen opens at 80x24" "channel:"
charge_at_desk "$INV1"
shows "y opens the payment page, asking the channel for it" \
	"Asking the channel for the payment page..."
PO1=$(db "SELECT order_no FROM pay_order WHERE invoice_id = 1")
ok "one card order written" test -n "$PO1"
is "no payment page yet" "$(db "SELECT count(page_url) FROM pay_order")" 0

# --- The worker creates the order: the code appears and decodes -------------
"$FRONTDESK" serve --poll-seconds 1 --lease-seconds 5 --quiet 2> "$TMP/serve.err" &
SERVE_PID=$!
shows "once the worker created the order, the code and the address show" \
	"Scan the code with the phone"
URL1=$(code_url "$PO1")
ok "the fake answered a Native code_url" sh -c "echo '$URL1' | grep -Eqx 'weixin://wxpay/bizpayurl[?]pr=[A-Za-z0-9]{7}'"
is "the order keeps the page the channel answered" \
	"$(db "SELECT page_url, status FROM pay_order WHERE order_no = '$PO1'")" "$URL1|paying"
is "the QR code drawn at 80x24 decodes to exactly the channel's code_url" "$(decoded)" "$URL1"
shows "the address is shown beside it, as text" "$URL1"
shows "with the amount, invoice and customer" "100.00 USD for $INV1 (Qr Cat)"
shows "and where the order stands" "Paying: waiting for the customer to pay"

# --- Paid at the fake: the page and the invoice say so by themselves ---------
ctl "trade/$PO1" '{"state": "SUCCESS"}' >/dev/null
if wait_for "Paid: payment" 60; then pass "the page says paid once the channel reports it"; else
	fail "the page says paid" "$(screen_text)"; fi
is "the order is paid, with a payment" \
	"$(db "SELECT status, payment_id IS NOT NULL FROM pay_order WHERE order_no = '$PO1'")" "paid|1"
is "the code is gone once paid" "$(decoded)" ""
keys Escape
shows "Esc closes the page: the invoice pane shows paid" "Status: paid"
keys Escape

# --- A declined attempt: the page says so and stays payable ------------------
charge_at_desk "$INV2"
shows "the second order's code shows" "Scan the code with the phone"
PO2=$(db "SELECT order_no FROM pay_order WHERE invoice_id = 2")
is "the second code decodes to its own code_url" "$(decoded)" "$(code_url "$PO2")"
ctl "trade/$PO2" '{"state": "PAYERROR"}' >/dev/null
relay
if wait_for "Paying: the last attempt failed" 60; then
	pass "a declined attempt shows as failed, the order open for another try"; else
	fail "a declined attempt shows" "$(screen_text)"; fi
is "the code is still there for another try" "$(decoded)" "$(code_url "$PO2")"
keys Escape
shows "Esc: the invoice is still unpaid" "Status: issued, unpaid"
keys G Enter
shows "Enter on the open card order opens its payment page again" \
	"Paying: the last attempt failed"
is "with its code" "$(decoded)" "$(code_url "$PO2")"
keys Escape
shows "Esc: back on the invoice" "Status: issued, unpaid"
keys Escape

# --- Expired at the channel: closed, and the code is gone --------------------
charge_at_desk "$INV3"
shows "the third order's code shows" "Scan the code with the phone"
PO3=$(db "SELECT order_no FROM pay_order WHERE invoice_id = 3")
ctl "trade/$PO3" '{"state": "CLOSED"}' >/dev/null
if wait_for "Closed: the payment page expired, was withdrawn" 60; then
	pass "an expired order shows closed"; else fail "an expired order shows" "$(screen_text)"; fi
is "the closed order's code is gone" "$(decoded)" ""
is "the order is closed" "$(db "SELECT status FROM pay_order WHERE order_no = '$PO3'")" closed
keys Escape Escape
keys Q
shows "Q quits" "frontdesk-exited-0"
screen_stop

# --- Monochrome: the light modules are drawn, and it still decodes -----------
SCREEN_COLS=80 SCREEN_ROWS=24 SCREEN_ENV="NO_COLOR=1" screen_start
shows "the screen opens in monochrome" "channel:"
charge_at_desk "$INV4"
shows "the code shows" "Scan the code with the phone"
PO4=$(db "SELECT order_no FROM pay_order WHERE invoice_id = 4")
URL4=$(code_url "$PO4")
ok "the fake answered its code_url" test -n "$URL4"
is "the monochrome code (light modules inked) decodes to the code_url" "$(decoded light)" "$URL4"

keys Escape Escape Q
shows "Q quits" "frontdesk-exited-0"
screen_stop

# --- Stripe: a Checkout Session, its long URL, paid on the page -------------
kill "$SERVE_PID" 2>/dev/null
wait "$SERVE_PID" 2>/dev/null
SERVE_PID=
kill "$FAKE_PID" 2>/dev/null
wait "$FAKE_PID" 2>/dev/null
KEY=sk_test_made_up_ui_qr_key
fake_start 120
ok "the fake Stripe channel started" test -n "$PORT"
(umask 077; printf 'stripe_api_key = %s\n' "$KEY" >> "$XDG_CONFIG_HOME/frontdesk/secrets")
fd channel provider-set wx --disable >/dev/null
refused "a card page other than checkout or intent is refused" \
	channel provider-set stripe --url "$BASE" --card-page link
ok "a Stripe provider whose card orders are Checkout Sessions" \
	fd channel provider-set stripe --url "$BASE" --card-page checkout
is "the card page is one of its settings" \
	"$(fd --json channel providers | jget '[p["settings"] for p in d["providers"] if p["code"] == "stripe"][0]')" \
	'{"card_page":"checkout"}'
for t in 5 6 7; do
	fd job add --customer 1 --title "Job $t" >/dev/null
	fd item add --job $t --description "Work $t" --price 100 >/dev/null
	fd invoice issue --jobs $t >/dev/null
done
"$FRONTDESK" serve --poll-seconds 1 --lease-seconds 5 --quiet 2> "$TMP/serve.err" &
SERVE_PID=$!
# the session's URL as the fake keeps it
session_url() { ctl state '{}' | jget "d['sessions']['$1']['url']"; }
screen_start
shows "the screen opens at 120x40" "channel:"
charge_at_desk INV-2026-000005
shows "the Checkout page's code shows" "Scan the code with the phone"
PO5=$(db "SELECT order_no FROM pay_order WHERE invoice_id = 5")
CS5=$(db "SELECT channel_order_id FROM pay_order WHERE order_no = '$PO5'")
ok "the order's channel id is the session's" sh -c "echo '$CS5' | grep -q '^cs_test_'"
URL5=$(session_url "$CS5")
ok "the fake's URL is long, as Stripe's are (over 300 bytes)" test "${#URL5}" -gt 300
is "the order keeps the session's url" "$(db "SELECT page_url FROM pay_order WHERE order_no = '$PO5'")" "$URL5"
is "the QR code at 120x40 decodes to exactly the session's url" "$(decoded)" "$URL5"
is "the session carries our order and invoice, in its intent's metadata too" \
	"$(ctl state '{}' | jget "[d['sessions']['$CS5'][k] for k in ('metadata', 'pi_metadata', 'client_reference_id', 'amount')]")" \
	"[{'order_no': '$PO5', 'invoice_id': '5'}, {'order_no': '$PO5', 'page': 'checkout', 'invoice_id': '5'}, '$PO5', 10000]"
resize 80 24
shows "at 80x24 the long URL's code does not fit: a larger window shows it" "A larger window"
is "no code is drawn, not even a cut one" "$(decoded)" ""
like "the address is shown as text, whole" "$(screen_text | tr -d '\n')" "$URL5"
resize 120 40
shows "back at 120x40 the code is drawn" "Scan the code with the phone"
is "and decodes" "$(decoded)" "$URL5"
ctl "session/$CS5" '{"move": "paid"}' >/dev/null
if wait_for "Paid: payment" 60; then pass "paid on the page: the page says paid"; else
	fail "paid on the page" "$(screen_text)"; fi
is "the order is paid; the payment's reference is the session" \
	"$(db "SELECT o.status, p.amount, p.reference FROM pay_order o JOIN payment p ON p.id = o.payment_id WHERE o.order_no = '$PO5'")" \
	"paid|10000|$CS5"
keys Escape
shows "the invoice pane shows paid" "Status: paid"
keys Escape
is "the session's payment_intent.* events went to its order: nothing parked or dead" \
	"$(db "SELECT count(*) FROM inbound_callback WHERE source_system = 'stripe' AND status IN ('parked', 'dead', 'failed')")" 0

# a refund of an order paid on a Checkout page goes through the session's intent
ok "a refund of 10.00 is asked" fd channel refund "$PO5" --amount 10
until_ok 30 sh -c "[ \"\$(sqlite3 '$FRONTDESK_DB' \"SELECT status FROM outbox_event WHERE event_type = 'refund.create'\")\" = succeeded ]"
is "the refund was sent for the session's intent, naming the session" \
	"$(ctl state '{}' | jget "[(r['payment_intent'] == d['sessions']['$CS5']['payment_intent'], r['metadata'], r['amount']) for r in d['refunds'].values()]")" \
	"[(True, {'checkout_session': '$CS5'}, 1000)]"
RE=$(ctl state '{}' | jget 'list(d["refunds"])[0]')
ctl "refund/$RE" '{"status": "succeeded"}' >/dev/null
until_ok 30 sh -c "[ \"\$(sqlite3 '$FRONTDESK_DB' 'SELECT count(*) FROM refund')\" = 1 ]"
is "the refund is posted to the order" \
	"$(db "SELECT r.amount, r.reference, o.status, o.refunded_amount FROM refund r, pay_order o WHERE o.order_no = '$PO5'")" \
	"1000|$RE|refunding|1000"

# expired on the channel: closed
charge_at_desk INV-2026-000006
shows "the second session's code shows" "Scan the code with the phone"
CS6=$(db "SELECT channel_order_id FROM pay_order WHERE invoice_id = 6")
ctl "session/$CS6" '{"move": "expired"}' >/dev/null
if wait_for "Closed: the payment page expired" 60; then pass "an expired session shows closed"; else
	fail "an expired session" "$(screen_text)"; fi
is "its code is gone" "$(decoded)" ""
keys Escape Escape

# an asynchronous payment: still paying, then failed: closed
charge_at_desk INV-2026-000007
shows "the third session's code shows" "Scan the code with the phone"
PO7=$(db "SELECT order_no FROM pay_order WHERE invoice_id = 7")
CS7=$(db "SELECT channel_order_id FROM pay_order WHERE order_no = '$PO7'")
ctl "session/$CS7" '{"move": "async"}' >/dev/null
until_ok 30 sh -c "[ \"\$(sqlite3 '$FRONTDESK_DB' \"SELECT count(*) FROM inbound_callback WHERE event_type = 'checkout.session.completed' AND CAST(payload AS TEXT) LIKE '%$CS7%' AND status IN ('processed', 'ignored')\")\" = 1 ]"
is "a payment under way: the order is still paying" \
	"$(db "SELECT status FROM pay_order WHERE order_no = '$PO7'")" paying
ctl "session/$CS7" '{"move": "async_failed"}' >/dev/null
if wait_for "Closed: the payment page expired" 60; then
	pass "a failed asynchronous payment closes the order (the session is never paid again)"; else
	fail "a failed asynchronous payment" "$(screen_text)"; fi
is "closed, nothing posted" "$(db "SELECT status, payment_id IS NULL FROM pay_order WHERE order_no = '$PO7'")" "closed|1"
keys Escape Escape

# card page "intent": a bare payment intent, and the page says it has no page
kill "$SERVE_PID" 2>/dev/null
wait "$SERVE_PID" 2>/dev/null
ok "the provider goes back to bare payment intents" \
	fd channel provider-set stripe --card-page intent
fd job add --customer 1 --title "Job 8" >/dev/null
fd item add --job 8 --description "Work 8" --price 100 >/dev/null
fd invoice issue --jobs 8 >/dev/null
"$FRONTDESK" serve --poll-seconds 1 --lease-seconds 5 --quiet 2> "$TMP/serve.err" &
SERVE_PID=$!
charge_at_desk INV-2026-000008
shows "a payment intent has no page: the page says so" "The channel gave no payment page"
is "the order is a payment intent, with no page kept" \
	"$(db "SELECT substr(channel_order_id, 1, 3), page_url IS NULL FROM pay_order WHERE invoice_id = 8")" "pi_|1"
is "and no code is drawn" "$(decoded)" ""
keys Escape Escape Q
shows "Q quits" "frontdesk-exited-0"
screen_stop

# --- The money walk's card step: the visit's cell turns paid after one poll ---
# No worker now: the command line does one round of each, so that the
# payment is seen to come from ONE poll of the channel's events.
kill "$SERVE_PID" 2>/dev/null
wait "$SERVE_PID" 2>/dev/null
SERVE_PID=
fd channel provider-set stripe --card-page checkout >/dev/null
fd job add --customer 1 --title "Visit" >/dev/null
fd item add --job 9 --description "Visit" --price 80 >/dev/null
fd appt add --start "2026-12-03 10:00" --end "2026-12-03 11:00" >/dev/null
fd link add --appt "$(db "SELECT max(id) FROM appointment")" --job 9 --minutes 60 >/dev/null
fd invoice issue --jobs 9 >/dev/null
fd tasks run --once --quiet >/dev/null 2>&1
screen_start
shows "the calendar opens" "Week of 2026-11-29"
keys d g C-u "2026-12-03" Enter
shows "the day view of the visit opens" "Thursday 2026-12-03"
shows_re "the visit's cell is unpaid" "10:00-11:00 ! unpaid .*Qr Cat"
charge_at_desk INV-2026-000009
shows "the page asks the channel" "Asking the channel for the payment page..."
ok "one round of the outbox creates the session" fd channel deliver --once --all
shows "the code shows" "Scan the code with the phone"
CS9=$(db "SELECT channel_order_id FROM pay_order WHERE invoice_id = 9")
is "it decodes to the session's url" "$(decoded)" "$(session_url "$CS9")"
ctl "session/$CS9" '{"move": "paid"}' >/dev/null
ok "ONE poll of the events" fd channel poll --once
ok "processed" fd channel process --once
fd tasks run --once --quiet >/dev/null 2>&1
shows "the page says paid" "Paid: payment"
keys Escape Escape Escape
shows "back on the calendar" "Thursday 2026-12-03"
shows_re "the visit's cell turned paid" "10:00-11:00 = paid .*Qr Cat"
is "the invoice is paid" "$(db "SELECT status FROM invoice WHERE number = 'INV-2026-000009'")" paid

# the channel refuses the order: failed, with the channel's reason
fd job add --customer 1 --title "Job 10" >/dev/null
fd item add --job 10 --description "Work 10" --price 100 >/dev/null
fd invoice issue --jobs 10 >/dev/null
ctl fault '{"path": "/v1/checkout/sessions", "method": "POST", "kind": "status", "status": 400}' >/dev/null
charge_at_desk INV-2026-000010
shows "the page asks the channel" "Asking the channel for the payment page..."
fd channel deliver --once --all >/dev/null
shows "a refused order shows failed" "Failed: the channel refused the order"
is "the order failed, with no page" \
	"$(db "SELECT status, page_url IS NULL FROM pay_order WHERE invoice_id = 10")" "failed|1"
is "no code" "$(decoded)" ""
keys Escape Escape Escape
keys Q
shows "Q quits" "frontdesk-exited-0"
screen_stop

# --- A terminal that cannot show the half blocks: the address alone ----------
SCREEN_LANG=C screen_start
shows "the screen opens in the C locale" "channel:"
open_invoice INV-2026-000004
keys G Enter
shows "the page says the terminal cannot show the code" "cannot show the QR code"
is "no code is drawn" "$(decoded)$(decoded light)" ""
shows "the address is shown as text" "$URL4"
keys Escape Escape Q
shows "Q quits" "frontdesk-exited-0"
screen_stop

ok "frontdesk check is clean" fd check
done_testing
