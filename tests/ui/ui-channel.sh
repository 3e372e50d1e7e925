#!/bin/sh
# ui-channel.sh - the payment channel on the desk screen, against the fake
# channel (tests/chan/fake-stripe.py): with no provider the status line says
# "channel: off" and nothing runs; a secrets file others can read stops the
# screen's worker, and the message line says why (the screen works on);
# with screen_channel = no the screen leaves the lease alone; while
# `frontdesk serve` holds the channel lease the screen stands by and takes
# the lease when serve stops; then the status line follows the channel
# (idle, last ok; offline with the next try while the channel answers 500;
# idle again), counts pending inbound events and dead letters (inbound and
# outbox) and follows changes to them; a provider failing for longer than
# channel_failing_report_seconds is marked FAILING; quitting frees the lease within
# about a second. A poll every second and 2 s leases keep it short.
# Every secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"
KEY=sk_test_made_up_ui_key
FAKE_PID= SERVE_PID=
cleanup() {
	screen_stop
	[ -n "$SERVE_PID" ] && kill -9 "$SERVE_PID" 2>/dev/null
	[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
fake_start 120
ok "the fake channel started on a random port" test -n "$PORT"
# legal status changes behind frontdesk's back: python's sqlite3 supplies
# the SQL functions the schema's triggers call, so history, status flows
# and the transition rules all apply
legal() {
	python3 - "$FRONTDESK_DB" "$1" <<'PY'
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], timeout=10)
c.create_function("fd_operator", 0, lambda: "ui-channel-test")
c.create_function("fd_now", 0, lambda: int(time.time()))
c.create_function("fd_reason", 0, lambda: None)
c.executescript("BEGIN IMMEDIATE;" + sys.argv[2] + ";COMMIT;")
PY
}
holder() { db "SELECT coalesce(owner_pid, '') FROM control WHERE name = 'channel'"; }
# wait_until SECONDS COMMAND...: until the command succeeds, in tenths
wait_until() {
	end=$(( $(date +%s) + $1 )); shift
	while [ "$(date +%s)" -le "$end" ]; do "$@" && return 0; sleep 0.1; done
	return 1
}
held_by() { test "$(holder)" = "$1"; }
free() { test -z "$(holder)"; }
status_line() { screen_text | tail -2 | head -1; }

fd demo >/dev/null 2>&1
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
SECRETS="$XDG_CONFIG_HOME/frontdesk/secrets"
CONFIG="$XDG_CONFIG_HOME/frontdesk/config"
printf 'channel_poll_seconds = 1\nchannel_lease_seconds = 2\n' > "$CONFIG"

# No provider: off, no event counts, no worker.
screen_start
shows "with no provider the status line says channel: off" "| channel: off | tasks:"
case "$(status_line)" in
*events:*) fail "with no provider no event counts are shown" "$(status_line)" ;;
*) pass "with no provider no event counts are shown" ;;
esac
is "with no provider nobody takes the channel lease" "$(holder)" ""
keys Q
shows "Q quits" "frontdesk-exited-0"
screen_stop

# A provider, and a secrets file others can read: the worker does not start.
(umask 077; printf 'stripe_api_key = %s\n' "$KEY" > "$SECRETS")
chmod 644 "$SECRETS"
ok "add the provider" fd channel provider-set stripe --url "$BASE"
# (a wide pane: the message names the file twice)
SCREEN_COLS=200 screen_start
shows "a secrets file others can read: the message line says why" "! channel worker not started:"
shows "with the fix" "chmod 600"
shows "the status line says channel: off" "channel: off"
keys m
shows "the screen works on without the worker" "December 2026"
is "nobody took the channel lease" "$(holder)" ""
keys Q
shows "Q quits" "frontdesk-exited-0"
screen_stop
chmod 600 "$SECRETS"

# screen_channel = no: the screen leaves the channel alone.
printf 'screen_channel = no\n' >> "$CONFIG"
SCREEN_ENV="FRONTDESK_DEBUG_LOG=$TMP/screen.log" screen_start
shows "with screen_channel = no the screen opens" "channel: off"
# the screen has decided (its debug log says so): no lease, then or later
ok "the screen says why it starts no worker" \
	until_ok 10 grep -q "channel worker not started: screen_channel = no" "$TMP/screen.log"
is "with screen_channel = no the screen does not take the lease" "$(holder)" ""
keys Q
shows "Q quits" "frontdesk-exited-0"
screen_stop
printf 'channel_poll_seconds = 1\nchannel_lease_seconds = 2\n' > "$CONFIG"

# Events in the inbox before the screen opens: 4 stored by a poll, then
# one given up (dead) and three failed with a next try tomorrow (pending,
# not due); and one outbox command given up (dead).
ctl intent '{"amount": 1500, "status": "succeeded", "metadata": {"order_no": "PO-1"}}' >/dev/null
ctl intent '{"amount": 2500, "status": "succeeded", "metadata": {"order_no": "PO-2"}}' >/dev/null
ok "poll the channel once" fd channel poll --once
is "four events stored" "$(db "SELECT count(*) FROM inbound_callback WHERE status = 'received'")" 4
ok "one event dead, three failed and not due until tomorrow" legal "
	UPDATE inbound_callback SET status = 'dead', last_error = 'test' WHERE id = 1;
	UPDATE inbound_callback SET status = 'failed', next_attempt_at = strftime('%s') + 86400
	WHERE id > 1"
ok "one outbox command dead" legal "
	INSERT INTO outbox_event (event_type, business_key, provider_code, idempotency_key,
	  payload, created_at, updated_at) VALUES ('payment.create', 'PO-test', 'stripe',
	  'ui-channel-test-key', '{}', 1, 1);
	UPDATE outbox_event SET status = 'sending' WHERE business_key = 'PO-test';
	UPDATE outbox_event SET status = 'dead' WHERE business_key = 'PO-test'"

# Another process holds the channel lease: the screen stands by.
"$FRONTDESK" serve --quiet --lease-seconds 2 --poll-seconds 1 2> "$TMP/serve.err" &
SERVE_PID=$!
ok "serve takes the channel lease" wait_until 5 held_by "$SERVE_PID"
screen_start
shows "the screen's worker stands by" "channel worker: standing by"
SPID=$(screen_pid)
is "the lease stays with serve" "$(holder)" "$SERVE_PID"
shows "the status line shows the worker's state (serve's)" "channel: idle"
kill -TERM "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null
SERVE_PID=
ok "when serve stops, the screen takes the lease" wait_until 5 held_by "$SPID"
shows_re "the status line: idle or polling, with the last success" \
	"channel: (idle|polling), last ok [0-9]{2}:[0-9]{2} "
shows "3 pending events; 2 dead letters (1 inbound, 1 outbox)" "events: 3 pending, 2 dead"

# A change elsewhere shows without a key press.
ok "a failed event is given up" legal "UPDATE inbound_callback SET status = 'dead' WHERE id = 2"
shows "the counts follow: 2 pending, 3 dead" "events: 2 pending, 3 dead"

# The channel answers 500: offline until the next try, then idle again.
ctl fault '{"path": "/v1/events", "kind": "status", "status": 500, "count": 2}' >/dev/null
shows_re "the channel answers 500: offline with the next try" \
	"channel: offline, next try [0-9]{2}:[0-9]{2}:[0-9]{2}"
shows_re "the message line says what the worker said: the 500" "^channel worker: .*500"
if wait_re "channel: idle, last ok" 15; then
	pass "after the failures the channel is idle again"
else
	fail "after the failures the channel is idle again" "$(screen_text)"
fi

# At 80 columns the channel and the counts stay on the status line.
resize 80 24
shows_re "at 80x24 the status line keeps the channel and the counts" \
	"^(test.db \| )?channel: (idle|polling|offline[^|]*) \| events: 2 pending, 3 dead"
# A payment the channel reports about no order of ours is parked: counted
# beside the dead ones, so a person sees it the same day.
ok "a failed event is parked" legal "
	UPDATE inbound_callback SET status = 'parked', parked_until = strftime('%s') + 86400 WHERE id = 3"
shows_re "the parked event is counted beside the dead ones" \
	"\| events: 1 pending, 1 parked, 3 dead"
line=$(status_line)
ok "at 80x24 the status line fits (${#line} columns)" test "${#line}" -le 80
resize 120 40

# Failing for long (channel_failing_report_seconds, 15 minutes by default):
# the status line marks the provider; the marker goes when it works again.
ctl fault '{"path": "/v1/events", "kind": "status", "status": 500, "count": 3}' >/dev/null
shows_re "the channel fails again: offline" "channel: offline, next try"
case "$(status_line)" in
*FAILING*) fail "failing for a moment is not marked" "$(status_line)" ;;
*) pass "failing for a moment is not marked" ;;
esac
ok "it has been failing for an hour" legal "
	UPDATE channel_state SET failing_since = failing_since - 3600 WHERE provider_code = 'stripe'"
shows_re "a provider failing for long is marked on the status line" "channel: offline[^|]*, stripe FAILING"
if wait_re "channel: idle, last ok" 20; then
	pass "once it works again the marker goes"
else
	fail "once it works again the marker goes" "$(screen_text)"
fi

# Quitting frees the lease within about a second.
keys Q
t0=$(date +%s%N)
ok "quitting frees the channel lease" wait_until 3 free
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
echo "# the lease was free after $ms ms (a figure, not a test: no timed assertion)"
shows "the screen quit with status 0" "frontdesk-exited-0"

done_testing
