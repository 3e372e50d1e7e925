# chan-fake.sh - sourced by the channel tests: start the fake channel
# (tests/chan/fake-stripe.py, or another fake with fake_run) on a random port of
# 127.0.0.1 and the helpers to steer it. Needs tap.sh sourced first and KEY
# set to a made-up API key.
# Sets PORT, BASE and FAKE_PID; the caller's EXIT trap must kill FAKE_PID.
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY
fake_start() { fake_run fake-stripe.py "${1:-120}" --api-key "$KEY"; }
# fake_run SCRIPT SECONDS ARGS...: start tests/chan/SCRIPT (a fake that prints
# "PORT n" when it listens) for at most SECONDS, and wait for its port
fake_run() {
	script=$1
	# SECONDS is only a cap against a fake left behind (the tests kill
	# theirs on exit): five times it, so that a sanitizer build on a loaded
	# machine, several times slower, never outlives its fake (chan-serve-all
	# did once, under ASan, while another suite ran beside it)
	secs=$(($2 * 5))
	shift 2
	# each fake its own file: the background child truncates it only when
	# it starts, so a second fake sharing one could be read at the first's
	# port (chan-wechat-states.sh once was, on a busy machine)
	FAKE_N=$((${FAKE_N:-0} + 1))
	out="$TMP/fake$FAKE_N.out"
	python3 "$TOP_SRCDIR/tests/chan/$script" "$@" --max-seconds "$secs" \
		> "$out" 2> "$TMP/fake$FAKE_N.err" &
	FAKE_PID=$!
	i=0
	while ! grep -q '^PORT' "$out" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	PORT=$(sed -n 's/^PORT //p' "$out")
	BASE="http://127.0.0.1:$PORT"
	test -n "$PORT"
}
# ctl WHAT JSON: a control request to the fake
ctl() { curl -s --max-time 10 -d "$2" "$BASE/_control/$1"; }
# jget EXPR: evaluate a Python expression over the JSON on stdin (as d)
jget() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
db() { sqlite3 "$FRONTDESK_DB" "$1"; }
# fake_secrets: the owner-only secrets file the worker reads
fake_secrets() {
	mkdir -p "$XDG_CONFIG_HOME/frontdesk"
	(umask 077; printf 'stripe_api_key = %s\n' "$KEY" > "$XDG_CONFIG_HOME/frontdesk/secrets")
}
# The card order helpers the channel tests share (a test may define its own
# after sourcing this file):
# charge INVOICE AMOUNT: a card order through the channel; prints its number
charge() { fd --json channel charge --invoice "$1" --amount "$2" | jget 'd["order_no"]'; }
# deliver, poll: one round of the outbox and of the events list, all due now
deliver() { fd channel deliver --once --all >/dev/null; }
poll() { fd channel poll --once >/dev/null; }
# pi_of ORDER: the channel's id for it; order ORDER: status|payment|refunded
pi_of() { db "SELECT channel_order_id FROM pay_order WHERE order_no = '$1'"; }
order() { db "SELECT status, coalesce(payment_id, '-'), refunded_amount FROM pay_order WHERE order_no = '$1'"; }
