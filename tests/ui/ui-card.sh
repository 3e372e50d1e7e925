#!/bin/sh
# ui-card.sh - card payments and refunds through the payment channel from
# the desk screen, against the fake channel (tests/chan/fake-stripe.py): with no
# provider the invoice pane's card action says so and writes nothing, and so
# does it on a void invoice; with a provider, the card form proposes what the
# invoice owes, refuses too much beside the field as it is typed, and Enter,
# y (and the keys pressed again) write ONE card order and ONE outbox command;
# a second form proposes only what the open order leaves; the invoice pane
# lists the order; once the channel says it succeeded (deliver, poll,
# process from the command line) the invoice shows the payment; the refund
# form on that payment says it goes through the channel and writes a
# refund.create command, no refund row; after the channel says the refund
# succeeded, the refund row is posted; a refund command given up shows on
# the status line ("NOT KEPT"). The screen's own worker is off
# (screen_channel = no): the command line moves the orders. Every secret
# here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=sk_test_made_up_ui_card_key
FAKE_PID=
trap 'screen_stop; [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

count() { db "SELECT count(*) FROM $1"; }
open_invoice() {
	keys / "$1" Enter
	wait_for "$1" 5
	keys Enter
	shows "the invoice pane opens" "Status: "
}

fd init >/dev/null
fd customer add --name "Card Cat" >/dev/null
fd job add --customer 1 --title "Polish" >/dev/null
fd item add --job 1 --description "Polish" --price 100 >/dev/null
fd invoice issue --jobs 1 >/dev/null
INV=$(db "SELECT number FROM invoice WHERE id = 1")
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
printf 'screen_channel = no\nscreen_runner = no\n' > "$XDG_CONFIG_HOME/frontdesk/config"

# --- No provider: the action says so and writes nothing ----------------------
screen_start
shows "the screen opens" "channel: off"
open_invoice "$INV"
shows "the invoice pane has a card orders section" "No card order for this invoice."
keys C
shows "with no provider, C says a provider is needed" "! No payment provider is set up"
is "nothing written: no order" "$(count pay_order),$(count outbox_event)" "0,0"
keys Q
shows "Q quits" "frontdesk-exited-0"
screen_stop

# --- A provider: one order, whatever is pressed twice -------------------------
fake_start 60
ok "the fake channel started on a random port" test -n "$PORT"
fake_secrets
ok "add the provider" fd channel provider-set stripe --url "$BASE"
fd job add --customer 1 --title "Void" >/dev/null
fd item add --job 2 --description "Void" --price 10 >/dev/null
fd invoice issue --jobs 2 >/dev/null
VOID=$(db "SELECT number FROM invoice WHERE id = 2")
fd invoice void "$VOID" --reason "test" >/dev/null
screen_start
open_invoice "$VOID"
keys C
shows "a void invoice: C says there is nothing to charge" "! $VOID is void: there is nothing to charge."
is "and writes nothing" "$(count pay_order),$(count outbox_event)" "0,0"
open_invoice "$INV"
keys C
shows "C opens the card form" "Card payment through the channel for $INV (Card Cat)"
shows_re "it proposes what the invoice owes" "Amount +\[100\.00 "
keys C-u 2 0 0
shows "too much is refused beside the field as it is typed" \
	"! at most 100.00: what the invoice owes less the card orders open"
keys C-u 6 0 Enter
shows "Enter asks for a confirmation" \
	"Ask the payment channel for a card payment of 60.00 USD from Card Cat for $INV?"
is "nothing is written before y" "$(count pay_order)" 0
keys y
shows_re "y posts: the message line names the order and says the worker sends it" \
	"card order PO-[0-9]{6}-[0-9a-f]{8} created; the channel worker sends it"
keys y Enter Enter
wait_gone "Card payment through the channel for" >/dev/null
ok "the repeated keys have been read" keys_settled
is "y and Enter pressed again: ONE card order" "$(count pay_order)" 1
is "and ONE outbox command" "$(db "SELECT count(*), group_concat(event_type) FROM outbox_event")" \
	"1|payment.create"
PO=$(db "SELECT order_no FROM pay_order")
is "the order is for the invoice, 60.00, created" \
	"$(db "SELECT invoice_id, amount, status FROM pay_order")" "1|6000|created"
shows_re "the invoice pane lists the order" "$PO +60\.00 +created .*waiting for the channel"
keys C
shows_re "a second form proposes what the open order leaves" "Amount +\[40\.00 "
keys Escape
shows "Esc closes it" "Form closed; nothing was posted."
is "still one order" "$(count pay_order)" 1

# --- The channel takes the payment -------------------------------------------
ok "deliver the command" fd channel deliver --once --all
PI=$(db "SELECT channel_order_id FROM pay_order")
ok "the order has its intent" test -n "$PI"
ctl "intent/$PI" '{"status": "succeeded"}' >/dev/null
ok "poll" fd channel poll --once
ok "process" fd channel process --once
is "the order is paid" "$(db "SELECT status FROM pay_order")" paid
shows "the invoice shows the payment by itself" "Status: partially paid"
shows_re "paid 60.00" "Paid +60\.00$"
shows_re "balance 40.00" "Balance +40\.00$"
shows_re "the order is paid, with its payment" "$PO +60\.00 +paid .*payment [0-9]+"
PAY=$(db "SELECT payment_id FROM pay_order")

# --- A refund goes through the channel ----------------------------------------
keys G Enter
shows "Enter on the paid order opens its payment" "Payment $PAY"
keys r
shows "the refund form says it goes through the channel" \
	"Refund through the payment channel: payment $PAY (Card Cat)"
shows "with the order" "card order $PO, 60.00 USD"
shows_re "it proposes all that is left" "Amount to give back +\[60\.00 "
keys C-u 7 0
shows "more than is left is refused beside the field" \
	"! at most 60.00: what is left after the refunds already asked for"
keys C-u 2 5 Enter
shows "Enter asks for a confirmation" "Ask the payment channel to give back 25.00 USD"
keys y
shows "y posts: the message line says the refund was asked of the channel" \
	"Refund of 25.00 USD asked of the payment channel for card order $PO"
keys y Enter
wait_gone "Refund through the payment channel" >/dev/null
ok "the repeated keys have been read" keys_settled
is "one refund.create command" "$(db "SELECT count(*) FROM outbox_event WHERE event_type = 'refund.create'")" 1
is "and no refund row yet" "$(count refund)" 0
keys r
shows_re "a second refund form proposes only what is left" "Amount to give back +\[35\.00 "
keys Escape
ok "deliver the refund" fd channel deliver --once --all
RE=$(curl -s --max-time 10 "$BASE/_control/state" | jget 'list(d["refunds"])[0]')
ok "the channel has the refund" test -n "$RE"
ctl "refund/$RE" '{"status": "succeeded"}' >/dev/null
ok "poll" fd channel poll --once
ok "process" fd channel process --once
is "the refund row is posted: 25.00 by card, with the channel's id" \
	"$(db "SELECT count(*), amount, method, reference FROM refund")" "1|2500|card|$RE"
is "the order is being refunded" "$(db "SELECT status, refunded_amount FROM pay_order")" "refunding|2500"
shows_re "the payment pane shows the refund by itself" "Refunded +25\.00 USD"
ok "frontdesk check is clean" fd check

# --- A refund given up: the status line says a promise is not kept ------------
PO=$(db "SELECT order_no FROM pay_order WHERE status = 'refunding'")
fd channel provider-set stripe --url "http://127.0.0.1:1" >/dev/null
R=$(fd --json channel refund "$PO" --amount 5 | jget 'd["outbox_id"]')
# its first failure comes a whole horizon (24 h of the desk's clock) after
# it was asked for: given up at once
FRONTDESK_NOW=2026-12-02T09:00 fd channel deliver --once >/dev/null
is "the refund command is dead" "$(db "SELECT status FROM outbox_event WHERE id = $R")" dead
shows "the status line says a promise is not kept" "1 NOT KEPT (see check)"
like "frontdesk check names it" "$(fd check 2>&1)" "channel-command-dead: outbox command $R"
keys Q
shows "Q quits" "frontdesk-exited-0"

done_testing
