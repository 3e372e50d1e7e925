#!/bin/sh
# chan-poll.sh - `frontdesk channel poll --once` and `channel status` against
# the fake channel (tests/chan/fake-stripe.py on 127.0.0.1, random port, started
# and stopped here): every event stored exactly once however often the
# channel repeats, reorders or overlaps pages; the window re-reads the
# overlap so a late-visible event is caught; failures (500 with and without
# Stripe-Should-Retry, 429 with Retry-After, truncated JSON, has_more with an
# empty page) put the channel offline with a visible next try and never move
# the cursor; then everything is caught up. Only the lease holder polls.
# Every secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
KEY=sk_test_made_up_poll_key
FAKE_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
fake_start 120
ok "the fake channel started on a random port" test -n "$PORT"
ctl_get() { curl -s --max-time 10 "$BASE/_control/$1"; }
# fails NAME ARGS... - exit 1 with one line on stderr (the channel state
# changes: that is the point), nothing on stdout
fails() {
	name=$1; shift
	"$FRONTDESK" "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ "$st" -eq 1 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && [ ! -s "$TMP/out" ]; then
		pass "$name: exit 1 ($(cut -c1-80 "$TMP/err"))"
	else
		fail "$name" "exit $st" "stderr: $(head -c 300 "$TMP/err")"
	fi
}

fd init >/dev/null
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'stripe_api_key = %s\n' "$KEY" > "$XDG_CONFIG_HOME/frontdesk/secrets")
printf 'channel_page_limit = 2\n' > "$XDG_CONFIG_HOME/frontdesk/config"

refused "polling before any provider is set up" channel poll --once
refused "a plain-http provider that is not loopback" channel provider-set stripe --url http://example.com
ok "add the provider" fd channel provider-set stripe --url "$BASE"
out=$(fd channel status); like "never polled: off" "$out" "State: off"

# Five paid intents: ten events, read in pages of two.
for n in 1 2 3 4 5; do
	ctl intent "{\"amount\": 1500, \"status\": \"succeeded\", \"metadata\": {\"order_no\": \"PO-$n\"}}" >/dev/null
done
out=$(fd --json channel poll --once)
is "ten events stored, in five pages" \
	"$(echo "$out" | jget 'd["events_stored"], d["pages"]')" "10 5"
is "ten rows in the inbox" "$(db "SELECT count(*) FROM inbound_callback")" 10
is "each stored raw event is the event it claims" \
	"$(db "SELECT count(*) FROM inbound_callback WHERE json_extract(payload, '$.id') = external_id AND via = 'poll'")" 10
out=$(fd channel status); like "idle after a full read" "$out" "State: idle"
hw1=$(db "SELECT high_water FROM channel_state")

# Duplicates, shuffled pages and overlapping pages: still one row per event.
ctl list_mode '{"duplicate": true, "shuffle": true, "overlap": true}' >/dev/null
ok "poll with duplicates, shuffling and overlap" fd channel poll --once
ok "and again" fd channel poll --once
is "still ten rows" "$(db "SELECT count(*) FROM inbound_callback")" 10
is "no event twice" "$(db "SELECT count(DISTINCT external_id) FROM inbound_callback")" 10
hw2=$(db "SELECT high_water FROM channel_state")
ok "the high-water mark never moves back" test "$hw2" -ge "$hw1"

# A 500 without Stripe-Should-Retry: offline for a short, growing while.
ctl fault '{"path": "/v1/events", "kind": "status", "status": 500}' >/dev/null
fails "a 500 is reported" channel poll --once
like "the reason names the 500" "$(cat "$TMP/err")" "answered 500"
st=$(fd --json channel status)
is "offline, one failure" "$(echo "$st" | jget 'd["state"], d["failures"]')" "offline 1"
like "status shows the next try" "$(fd channel status)" "Offline until: 2"

# 429 with Retry-After: the wait is at least what the channel asked.
ctl fault '{"path": "/v1/events", "kind": "status", "status": 429, "headers": {"Retry-After": "120"}}' >/dev/null
fd channel poll --once 2>/dev/null
wait=$(db "SELECT offline_until - last_poll_at FROM channel_state")
ok "Retry-After 120 honoured (waits $wait s)" test "$wait" -ge 120

# Stripe-Should-Retry: false on a 500: not a transient failure: the longest wait.
ctl fault '{"path": "/v1/events", "kind": "status", "status": 500, "headers": {"Stripe-Should-Retry": "false"}}' >/dev/null
fd channel poll --once 2>/dev/null
wait=$(db "SELECT offline_until - last_poll_at FROM channel_state")
ok "Stripe-Should-Retry false waits long ($wait s)" test "$wait" -ge 150 -a "$wait" -le 301

# New events arrive, then a truncated page: nothing half-believed.
for n in 6 7; do
	ctl intent "{\"amount\": 900, \"status\": \"succeeded\", \"metadata\": {\"order_no\": \"PO-$n\"}}" >/dev/null
done
ctl list_mode '{"duplicate": false, "shuffle": false, "overlap": false}' >/dev/null
ctl fault '{"path": "/v1/events", "kind": "truncate"}' >/dev/null
fails "a truncated page is a failure" channel poll --once
like "it says so" "$(cat "$TMP/err")" "not complete JSON"
is "nothing of it was stored" "$(db "SELECT count(*) FROM inbound_callback")" 10

# has_more with an empty page after the first page: the first page is kept,
# the cursor does not move.
hw3=$(db "SELECT high_water FROM channel_state")
ctl fault '{"path": "/v1/events", "kind": "empty_more", "count": 1}' >/dev/null
fails "has_more with an empty page is a failure" channel poll --once
is "the cursor did not move" "$(db "SELECT high_water FROM channel_state")" "$hw3"

# Recovery: everything caught up, the state is idle with no error.
out=$(fd --json channel poll --once)
is "the four new events are stored" "$(db "SELECT count(*) FROM inbound_callback")" 14
st=$(fd --json channel status)
is "idle again, failures reset, no error" "$(echo "$st" | jget 'd["state"], d["failures"], d["last_error"]')" "idle 0 None"
is "inbox counts in the status" "$(echo "$st" | jget 'd["inbox"]["received"]')" 14

# A late-visible event: created now but listed only later; the overlap
# re-reads it on the next cycle.
id=$(ctl intent '{"amount": 700, "emit": false}' | jget 'd["id"]')
ctl "intent/$id" '{"status": "succeeded"}' >/dev/null
now=$(ctl clock '{}' | jget 'd["now"]')
# hide the newest event for 10 s of channel time
newest=$(curl -s "$BASE/v1/events?limit=1" -u "$KEY:" -H "Stripe-Version: 2026-10-28.endive" | jget 'd["data"][0]["id"]')
ctl hide "{\"event\": \"$newest\", \"until\": $((now + 10))}" >/dev/null
ok "poll while it is invisible" fd channel poll --once
is "not seen yet" "$(db "SELECT count(*) FROM inbound_callback WHERE external_id = '$newest'")" 0
ctl clock '{"advance": 20}' >/dev/null
ok "poll after it became visible" fd channel poll --once
is "caught by the overlap" "$(db "SELECT count(*) FROM inbound_callback WHERE external_id = '$newest'")" 1

# Every call carried the pinned version and no key in the URL; the request
# log is its own file and holds no secret.
log=$(ctl_get log)
is "pinned Stripe-Version on every call" \
	"$(echo "$log" | jget 'sorted(set(e["version"] for e in d["log"] if e["path"] == "/v1/events"))')" "['2026-10-28.endive']"
ok "a request log file beside the database" test -s "${FRONTDESK_DB%.db}-requests.db"
is "no request_log table in the desk database" "$(db "SELECT count(*) FROM sqlite_master WHERE name = 'request_log'")" 0
case "$(sqlite3 "${FRONTDESK_DB%.db}-requests.db" .dump; db .dump)" in
*"$KEY"*) fail "the API key leaked into a database" ;;
*) pass "the API key is in no database" ;;
esac
is "failures are logged with their status" \
	"$(sqlite3 "${FRONTDESK_DB%.db}-requests.db" "SELECT count(*) FROM request_log WHERE status IN (429, 500)")" 3

# Only the holder of the channel lease polls.
sleep 30 & holder=$!
db "INSERT OR REPLACE INTO control (name, kind, owner_host, owner_pid, owner_token, operator_id, acquired_at, heartbeat_at, expires_at, epoch)
    VALUES ('channel', 'lease', '$(hostname)', $holder, 42, 'someone', strftime('%s','now'), strftime('%s','now'), strftime('%s','now') + 60, 7)"
refused "another live process holds the channel lease" channel poll --once
like "the refusal names the holder" "$(cat "$TMP/err")" "$holder"
kill $holder 2>/dev/null; wait $holder 2>/dev/null
ok "its process is gone: the lease is taken over" fd channel poll --once

# The secrets file must be private.
chmod 644 "$XDG_CONFIG_HOME/frontdesk/secrets"
refused "group-readable secrets: the poller refuses to start" channel poll --once
like "with the fix in the message" "$(cat "$TMP/err")" "chmod 600"

# A polled event is checked as a relayed one: an id holding a NUL (or a
# control byte) is never cut; the event is stored dead under invalid:, and
# the genuine event with the cut id still gets in. (Last: an event whose
# id is no cursor ends the pages of every later poll that reaches it.)
chmod 600 "$XDG_CONFIG_HOME/frontdesk/secrets"
# (created when the last stored event was: inside the window polled)
at=$(db "SELECT max(channel_created_at) FROM inbound_callback")
ctl event '{"event": {"id": "evt_polled_cut\u0000tail", "object": "event", "type": "payment_intent.created", "created": '"$at"', "data": {"object": {}}}}' >/dev/null
ctl event '{"event": {"id": "evt_polled_ctl\u0007", "object": "event", "type": "payment_intent.created", "created": '"$at"', "data": {"object": {}}}}' >/dev/null
n0=$(db "SELECT count(*) FROM inbound_callback WHERE status = 'dead' AND external_id LIKE 'invalid:%' AND via = 'poll'")
fd channel poll --once >/dev/null
is "the polled events with a NUL or a control byte in their id are stored dead under invalid:" \
	"$(db "SELECT count(*) FROM inbound_callback WHERE status = 'dead' AND external_id LIKE 'invalid:%' AND via = 'poll'")|$(db "SELECT count(*) FROM inbound_callback WHERE external_id LIKE 'evt_polled_%'")" \
	"$((n0 + 2))|0"
ctl event '{"event": {"id": "evt_polled_cut", "object": "event", "type": "payment_intent.created", "created": '"$at"', "data": {"object": {}}}}' >/dev/null
fd channel poll --once >/dev/null
is "the genuine event with the cut id is stored, itself (not the one cut to its id)" \
	"$(db "SELECT status, CAST(payload AS TEXT) LIKE '%tail%' FROM inbound_callback WHERE external_id = 'evt_polled_cut'")" "received|0"

done_testing
