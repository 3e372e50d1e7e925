# todo.sh - sourced by the contract tests after tap.sh: TODO directives. A
# case between `todo "WHY"` and `endtodo` that fails is reported as
# "not ok N - ... # TODO adapter: WHY" (an expected failure: a disagreement
# between the adapter and the provider's published document, still to be
# settled against the document); it does not fail the test, and once it
# passes it shows as XPASS, which does. CONTRACT_NO_TODO=1 makes every TODO
# case count as a plain one.
T_TODO=
todo() { [ -n "${CONTRACT_NO_TODO:-}" ] || T_TODO="adapter: $1"; }
endtodo() { T_TODO=; }
pass() {
	T_N=$((T_N + 1))
	if [ -n "$T_TODO" ]; then echo "ok $T_N - $1 # TODO $T_TODO"; else echo "ok $T_N - $1"; fi
}
fail() {
	T_N=$((T_N + 1))
	if [ -n "$T_TODO" ]; then
		echo "not ok $T_N - $1 # TODO $T_TODO"
	else
		T_FAIL=$((T_FAIL + 1)); echo "not ok $T_N - $1"
	fi
	shift
	for line in "$@"; do printf '#   %s\n' "$line"; done
}
