#!/bin/sh
# tsan-run.sh - the screen tests whose screen runs background threads (the
# task runner, and the payment channel worker where a provider is set up),
# plus `frontdesk serve` where they start it, under ThreadSanitizer.
# Not part of `make check`: it configures build-tsan/ with --enable-tsan
# (once), builds the program and runs each test with
# TSAN_OPTIONS=halt_on_error=1, so the first race stops the process and its
# screen test fails; every report is kept in build-tsan/tsan-logs/.
#
#   tests/crash/tsan-run.sh                 the default list below
#   tests/crash/tsan-run.sh ui-pay.sh ...   only these tests
#
# Which tests start the threads: every screen that is not --read-only runs
# the task runner unless `screen_runner = no`, so every ui-*.sh but ui-card.sh
# (which turns both threads off) is in the list;
# only ui-channel.sh sets up a payment provider with the channel worker
# left on (ui-card.sh sets `screen_channel = no`), and it also runs
# `frontdesk serve` (the worker's thread and the nightly backup's).
# Before them, tests/unit/check_core (two threads asking for the operator).
# Reports from a library outside our code are suppressed, each with its
# reason, in tests/lib/tsan.supp. Prints "tsan-run: N passed, N failed, N
# reports" and exits 1 unless all passed with no report.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build="$top/build-tsan"
tests=${*:-"ui-channel.sh ui-pay.sh ui-basic.sh ui-drill.sh ui-dead.sh ui-signals.sh ui-keys.sh ui-mouse.sh ui-zh.sh"}

if [ ! -f "$build/config.status" ]; then
	[ -x "$top/configure" ] || (cd "$top" && ./bootstrap) || exit 1
	mkdir -p "$build" && (cd "$build" && "$top/configure" --enable-tsan -q) || exit 1
fi
make -C "$build" -s -j"$(nproc)" frontdesk tests/ui/gridcheck tests/unit/check_core || exit 1

logs="$build/tsan-logs"
rm -rf "$logs"
mkdir -p "$logs"
# ThreadSanitizer needs a low-entropy address space: run the tests (and the
# tmux server they start, which inherits it) without address randomisation
# when setarch can do so.
norand=
setarch "$(uname -m)" -R true 2>/dev/null && norand="setarch $(uname -m) -R"

pass=0 failed=0
# the unit tests of what several threads share (db_operator, idem_holder)
if [ $# -eq 0 ]; then
	if TSAN_OPTIONS="halt_on_error=1 log_path=$logs/check_core suppressions=$top/tests/lib/tsan.supp" \
		CK_FORK=yes $norand "$build/tests/unit/check_core" > "$logs/check_core.out" 2>&1; then
		pass=$((pass + 1)); echo "tsan-run: check_core: ok ($(grep -c '^ok' "$logs/check_core.out") cases)"
	else
		failed=$((failed + 1)); echo "tsan-run: check_core: FAILED (see $logs/check_core.out)"
	fi
fi
for t in $tests; do
	# a test is named by its file name; it is found in its folder of tests/
	src=$(ls "$top"/tests/*/"$t" 2>/dev/null | head -n 1)
	out="$logs/${t%.sh}.out"
	if env FRONTDESK="$build/frontdesk" SQLITE3=sqlite3 TOP_SRCDIR="$top" \
		LC_ALL=C.UTF-8 TZ=America/New_York \
		TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 log_path=$logs/${t%.sh} suppressions=$top/tests/lib/tsan.supp" \
		$norand sh "${src:-$top/tests/$t}" > "$out" 2>&1; then
		pass=$((pass + 1))
		echo "tsan-run: $t: ok ($(grep -c '^ok' "$out") cases)"
	else
		failed=$((failed + 1))
		echo "tsan-run: $t: FAILED (see $out)"
		grep '^not ok' "$out" | head -5
	fi
done
reports=$(cat "$logs"/*.[0-9]* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer')
for f in "$logs"/*.[0-9]*; do
	[ -f "$f" ] || continue
	echo "tsan-run: report in $f:"
	sed -n '1,40p' "$f"
done
echo "tsan-run: $pass passed, $failed failed, $reports reports"
[ "$failed" -eq 0 ] && [ "$reports" -eq 0 ]
