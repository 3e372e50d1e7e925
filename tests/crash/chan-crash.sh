#!/bin/sh
# chan-crash.sh - the channel worker (frontdesk serve) killed with SIGKILL
# at random moments while it polls, delivers and processes hundreds of
# events, again and again: after the last restart every card order is paid
# by exactly one payment, every event is processed or ignored once, and
# `frontdesk check` is clean. Meanwhile the channel fails for a while (500s,
# 429 with Retry-After, truncated answers, a stall): the desk stays usable
# and the status says offline with the next try. FD_STRESS=1 kills 50
# times (default 6); FD_CRASH_KILLS=N kills N/4 times (the long mode: with
# tests/crash/crash-desk.sh, which kills desk postings, rebuilds and the runner
# 3N/4 times, N kills in all). Every secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=sk_test_made_up_crash_key
FAKE_PID= S=
trap '[ -n "$S" ] && kill -9 "$S" 2>/dev/null; [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
KILLS=6; ORDERS=60
if [ -n "${FD_STRESS:-}" ]; then KILLS=50; ORDERS=150; fi
if [ -n "${FD_CRASH_KILLS:-}" ]; then KILLS=$((FD_CRASH_KILLS / 4)); ORDERS=150; fi

fake_start $((600 + KILLS * 2))
ok "the fake channel started on a random port" test -n "$PORT"
fake_secrets
fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
fd job add --customer 1 --title "Fleet" >/dev/null
fd item add --job 1 --description "Fleet wash" --price 100000 >/dev/null
fd invoice issue --jobs 1 >/dev/null
fd channel provider-set stripe --url "$BASE" >/dev/null
printf 'channel_page_limit = 7\nchannel_process_batch = 13\n' > "$XDG_CONFIG_HOME/frontdesk/config"
n=0
while [ $n -lt $ORDERS ]; do
	fd channel charge --invoice 1 --amount 1.$(printf '%02d' $((n % 100))) >/dev/null || break
	n=$((n + 1))
done
is "$ORDERS card orders asked for" "$n" "$ORDERS"
# the channel repeats itself: every page overlaps, repeats and is shuffled
ctl list_mode '{"duplicate": true, "shuffle": true, "overlap": true}' >/dev/null

# run_serve: start the worker in the background (S is its pid)
run_serve() { "$FRONTDESK" serve --lease-seconds 2 --poll-seconds 1 --quiet 2>>"$TMP/serve.err" & S=$!; }
# a random pause of 50..650 ms
pause() { sleep "0.$(printf '%03d' $(( $(od -An -N2 -tu2 /dev/urandom) % 600 + 50 )))"; }

k=0 start=$(date +%s)
while [ $k -lt $KILLS ]; do
	run_serve
	pause
	kill -9 "$S"; wait "$S" 2>/dev/null; S=
	k=$((k + 1))
	# the intents delivered so far succeed while the worker comes and goes
	[ $((k % 2)) -eq 0 ] && ctl intents '{"from": "requires_payment_method", "status": "succeeded"}' >/dev/null
done
ok "killed $KILLS times with SIGKILL" test $k -eq $KILLS
echo "# $k kills in $(( $(date +%s) - start ))s"
# an entry of the request log older than request_log_days (90)
LOG="${FRONTDESK_DB%.db}-requests.db"
sqlite3 "$LOG" "INSERT INTO request_log (logged_at, provider, level, keyword, host, pid, method, url, status, latency_ms) VALUES (1000, 'stripe', 'info', 'old', 'h', 1, 'GET', 'https://x', 200, 1)"
# the last worker delivers what is left; then the rest succeed too
run_serve
i=0
while [ "$(db "SELECT count(*) FROM outbox_event WHERE status <> 'succeeded'")" -gt 0 ] && [ $i -lt 600 ]; do
	sleep 0.1; i=$((i + 1))
done
ctl intents '{"from": "requires_payment_method", "status": "succeeded"}' >/dev/null

# The channel fails for a while: the desk stays usable, the status says so.
# The faults are on the events list, which the status describes: on any /v1/
# path, a worker still processing the backlog (a sanitizer build on a loaded
# machine) spent them on its order queries, each failure went on that event's
# backoff, and the polls that followed succeeded ("State: idle" throughout)
ctl fault '{"path": "/v1/events", "kind": "status", "status": 500, "count": 2}' >/dev/null
ctl fault '{"path": "/v1/events", "kind": "status", "status": 429, "count": 1, "headers": {"Retry-After": "2"}}' >/dev/null
ctl fault '{"path": "/v1/events", "kind": "truncate", "count": 2}' >/dev/null
ctl fault '{"path": "/v1/events", "kind": "stall", "seconds": 3, "count": 1}' >/dev/null
i=0 st=
while [ $i -lt 100 ]; do
	st=$(fd channel status)
	case "$st" in *"State: offline"*) break ;; esac
	sleep 0.1; i=$((i + 1))
done
like "while the channel fails, the status says offline with the next try" "$st" "Offline until: 2"
ok "the desk stays usable meanwhile: a cash payment is recorded" \
	fd pay record --customer 1 --amount 5 --method cash
# caught up: every order paid (the worker keeps going)
i=0
while [ "$(db "SELECT count(*) FROM pay_order WHERE status = 'paid'")" -lt "$ORDERS" ] && [ $i -lt 600 ]; do
	sleep 0.1; i=$((i + 1))
done
kill -TERM "$S"; wait "$S" 2>/dev/null; S=
is "afterwards every order is paid" "$(db "SELECT count(*) FROM pay_order WHERE status = 'paid'")" "$ORDERS"
fd channel poll --once >/dev/null; fd channel process --once --all >/dev/null
is "by exactly one card payment each" \
	"$(db "SELECT count(*), count(DISTINCT reference), sum(amount) FROM payment WHERE method = 'card'")" \
	"$(db "SELECT count(*), count(*), sum(amount) FROM pay_order")"
is "every order's payment is its own" \
	"$(db "SELECT count(*) FROM pay_order o JOIN payment p ON p.id = o.payment_id AND p.reference = o.channel_order_id")" "$ORDERS"
is "the invoice's paid is the sum of the orders (the cash stays credit)" \
	"$(db "SELECT paid = (SELECT sum(amount) FROM pay_order) FROM invoice WHERE id = 1")" 1
is "no event lost: every stored event is processed or ignored" \
	"$(db "SELECT count(*) FROM inbound_callback WHERE status NOT IN ('processed', 'ignored')")" 0
is "each event stored once" "$(db "SELECT count(*) - count(DISTINCT external_id) FROM inbound_callback")" 0
is "no outbox command left" "$(db "SELECT count(*) FROM outbox_event WHERE status <> 'succeeded'")" 0
is "one intent at the channel per order" \
	"$(curl -s "$BASE/_control/state" | jget 'len(d["intents"])')" "$ORDERS"
ok "frontdesk check is clean" fd check
is "the worker pruned the request log of entries older than 90 days" \
	"$(sqlite3 "$LOG" "SELECT count(*) FROM request_log WHERE logged_at < strftime('%s', 'now') - 90 * 86400")" 0
ok "and kept the recent ones" test "$(sqlite3 "$LOG" "SELECT count(*) FROM request_log")" -gt 100
done_testing
