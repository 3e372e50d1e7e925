#!/bin/sh
# booking-chan-deliver.sh - a booking channel against the fake channel on
# loopback (tests/chan/fake-booking.py): events the fake signs, relayed twice and
# out of order; a request for a slot taken a moment earlier; the answers and
# availability pushes delivered with their idempotency keys; a push that
# arrives after a newer one ignored by the channel, which says so; a failed
# delivery waits for its backoff (--all does not skip it) and is dead only
# past the give-up horizon, not after a count of tries; the worker of
# `frontdesk serve` decides and delivers through the booking type's steps.
# Every key here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
SECRET=whsec_made_up_booking_secret
FAKE_PID= W=
trap '[ -n "$W" ] && kill "$W" 2>/dev/null; [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
fake_run fake-booking.py 120 --secret "$SECRET"
ok "the fake booking channel started on a random port" test -n "$PORT"
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'site_signing_secret = %s\n' "$SECRET" > "$XDG_CONFIG_HOME/frontdesk/secrets")
fd init >/dev/null
fd resource add --name Ann --kind technician >/dev/null
fd resource hours Ann --days all --spans 08:00-12:00 >/dev/null
fd service add --name "Oil change" --price 80 --minutes 60 >/dev/null
fd customer add --name "Desk Walkin" --phone 5550001 >/dev/null
fd booking-channel provider-set site --url "$BASE" >/dev/null

# send ID TYPE REQ [HH:MM]: the fake signs the event, we relay it
send() {
	s=0
	[ -n "${4:-}" ] && s=$(date -d "2026-12-02 $4" +%s)
	ctl event "{\"id\":\"$1\",\"type\":\"$2\",\"request\":{\"id\":\"$3\",\"start\":$s,\"end\":$((s + 3600)),\"service\":\"Oil change\",\"resource\":\"Ann\",\"customer\":{\"name\":\"Web $3\",\"email\":\"$3@example.com\"}}}" > "$TMP/ev.json"
	jget 'd["body"]' < "$TMP/ev.json" | tr -d '\n' > "$TMP/ev.body"
	fd booking-channel ingest --provider site --signature "$(jget 'd["signature"]' < "$TMP/ev.json")" \
		< "$TMP/ev.body" >/dev/null
}
state() { curl -s "$BASE/_control/state"; }
process() { fd booking-channel process --once >/dev/null; }
deliver() { fd booking-channel deliver --once --provider site "$@"; }

send e1 booking.requested R1 08:00
send e1 booking.requested R1 08:00
send e2c booking.cancelled R2
send e2 booking.requested R2 09:00
fd book --customer "Desk Walkin" --start "2026-12-02 10:00" --length 1:00 --resource Ann >/dev/null
send e3 booking.requested R3 10:00
send e4 booking.requested R4 11:00
process
is "duplicates one visit, the cancelled request nothing, the taken slot refused" \
	"$(db "SELECT group_concat(request_id || '=' || status, ' ') FROM (SELECT * FROM booking_request ORDER BY request_id)")" \
	"R1=confirmed R2=cancelled R3=rejected R4=confirmed"
is "three pushes of the day (R1, the desk, R4), versions 1 to 3" "$(db "SELECT group_concat(version) FROM availability_push")" "1,2,3"

# version 1 fails once: it arrives after version 2
ctl fail '{"version": 1, "times": 1}' >/dev/null
like "the first round delivers the four answers and pushes 2 and 3, not push 1" "$(deliver)" "6 command(s) delivered"
is "the failed push waits for its backoff" \
	"$(db "SELECT o.status, o.next_retry_at > o.updated_at FROM outbox_event o JOIN availability_push p ON p.outbox_id = o.id WHERE p.version = 1")" "failed|1"
NEXT=$(db "SELECT o.next_retry_at FROM outbox_event o JOIN availability_push p ON p.outbox_id = o.id WHERE p.version = 1")
like "not before its time" "$(FRONTDESK_REAL_NOW=$((NEXT - 1)) deliver)" "0 command(s) delivered"
like "nor with --all" "$(FRONTDESK_REAL_NOW=$((NEXT - 1)) deliver --all)" "0 command(s) delivered"
like "sent once its time has come" "$(FRONTDESK_REAL_NOW=$NEXT deliver)" "1 command(s) delivered"
is "the channel ignored the late push and said why" \
	"$(state | jget '[e for e in d["log"] if e["path"] == "/v1/availability"][-1]["ignored"]')" True
is "the channel keeps version 3" "$(state | jget 'd["availability"]["Ann:2026-12-02"]')" 3
is "the answers reached the channel, the rejected one with its reason" \
	"$(state | jget '" ".join(a["request_id"] + "=" + a["status"] for a in d["answers"])')" \
	"R1=confirmed R2=rejected R3=rejected R4=confirmed"

# a channel that stays down: tried on the backoff, dead only past the
# give-up horizon (pipeline_give_up_seconds, 24 h of the desk's clock)
send e5 booking.cancelled R4
process
ctl fail '{"all": 100}' >/dev/null
T=$(date +%s)
i=0
while [ $i -lt 12 ]; do FRONTDESK_REAL_NOW=$((T + i * 301)) deliver --all >/dev/null; i=$((i + 1)); done
v4() { db "SELECT o.status, o.retry_count, o.last_error IS NOT NULL FROM outbox_event o JOIN availability_push p ON p.outbox_id = o.id WHERE p.version = 4"; }
is "twelve tries within the horizon: still failed" "$(v4)" "failed|12|1"
FRONTDESK_NOW=2026-12-02T09:00 FRONTDESK_REAL_NOW=$((T + 86400)) deliver >/dev/null
is "a failure past the horizon: dead, with the reason" "$(v4)" "dead|13|1"
out=$(fd check 2>&1)
like "check reports the free slots the channel never got" "$out" "booking-command-dead: outbox command"
like "... saying what it means" "$out" "may still show that day's old free slots"
ctl fail '{"all": 0}' >/dev/null

# the worker of frontdesk serve decides and delivers
send e6 booking.requested R6 11:00
"$FRONTDESK" serve --quiet --lease-seconds 2 >/dev/null 2>"$TMP/serve.err" & W=$!
v5() { [ "$(state | jget 'd["availability"].get("Ann:2026-12-02")')" = 5 ]; }
ok "frontdesk serve decides the request and pushes version 5" until_ok 30 v5
kill "$W"; wait "$W" 2>/dev/null; W=
is "R6 confirmed by the worker" "$(db "SELECT status FROM booking_request WHERE request_id = 'R6'")" confirmed
out=$(fd check 2>&1)
like "frontdesk check is clean: a later push replaced the dead one" "$out" "No problems found"
V4=$(db "SELECT outbox_id FROM availability_push WHERE version = 4")
refused "outbox retry of a push a later one replaced is refused" outbox retry "$V4"
like "... saying which version reached the channel" "$(cat "$TMP/err")" "version 5"
done_testing
