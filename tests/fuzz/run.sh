#!/bin/sh
# tests/fuzz/run.sh - what `make fuzz` runs: each libFuzzer harness for
# SECONDS, starting from its seed corpus.
#
#   run.sh CORPUS-DIR SECONDS FUZZER...
#
# New interesting inputs go to fuzz-corpus/NAME in the build folder (the
# seeds in CORPUS-DIR/NAME are only read); a crash, leak or timeout is saved
# as fuzz-crashes/NAME-crash-<sha1> (or -leak-, -timeout-, -oom-). Copy it
# to tests/fuzz/corpus/NAME/ with a name that says what broke, fix the code,
# and `make check` replays it from then on. Each fuzzer's output goes to
# fuzz-logs/NAME.log (its last lines are shown). Exits 1 if any failed.
set -u
if [ $# -lt 3 ]; then
	echo "make fuzz: the fuzzers are built only by configure --enable-fuzzing (needs clang)" >&2
	exit 2
fi
seeds=$1
secs=$2
shift 2
mkdir -p fuzz-corpus fuzz-crashes fuzz-logs
failed=""
for bin in "$@"; do
	name=$(basename "$bin")
	name=${name#fuzz-}
	mkdir -p "fuzz-corpus/$name"
	echo "== fuzz $name for ${secs}s"
	if ! "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix="fuzz-crashes/$name-" "fuzz-corpus/$name" "$seeds/$name" \
		>"fuzz-logs/$name.log" 2>&1; then
		failed="$failed $name"
	fi
	grep -E '^(==[0-9]+==ERROR|SUMMARY|stat::number_of_executed_units|artifact_prefix|Done|.*invariant failed)' \
		"fuzz-logs/$name.log" | tail -n 6
done
if [ -n "$failed" ]; then
	echo "fuzz: failed:$failed (inputs in fuzz-crashes/)" >&2
	exit 1
fi
echo "fuzz: no crash"
