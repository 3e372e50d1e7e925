# tap.sh - sourced by the shell tests: TAP output, a private temporary
# folder, and helpers to run the real binary and compare database dumps.
#
#   . "$TOP_SRCDIR/tests/lib/tap.sh"
#   ok "name" command...          passes when the command exits 0
#   is "name" "$got" "$want"      passes when the strings are equal
#   refused "name" args...        frontdesk must exit 1, say why, change nothing
#   until_ok SECONDS command...   polls until the command succeeds
#   done_testing                  prints the plan; the exit status follows
#   once_per_tree WHAT            skips a test of the sources in the sanitizer build
#   sanitized                     true in an AddressSanitizer build

set -u
: "${FRONTDESK:?FRONTDESK must name the binary under test}"
: "${TOP_SRCDIR:?}"
T_N=0
T_FAIL=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fdtest.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export FRONTDESK_DB="$TMP/test.db"
export XDG_CONFIG_HOME="$TMP/config"
export XDG_DATA_HOME="$TMP/data"
export FRONTDESK_NOW="${FRONTDESK_NOW:-2026-12-01T09:00}"
unset FRONTDESK_CONFIG FRONTDESK_DEBUG_LOG

fd() { "$FRONTDESK" "$@"; }

pass() { T_N=$((T_N + 1)); echo "ok $T_N - $1"; }
fail() {
	T_N=$((T_N + 1)); T_FAIL=$((T_FAIL + 1)); echo "not ok $T_N - $1"
	shift
	for line in "$@"; do printf '#   %s\n' "$line"; done
}

ok() {
	name=$1; shift
	if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "command: $*" "output: $out"; fi
}

is() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got:  $2" "want: $3"; fi
}

like() {
	case "$2" in
	*"$3"*) pass "$1" ;;
	*) fail "$1" "got: $2" "expected to contain: $3" ;;
	esac
}

# until_ok SECONDS COMMAND... - poll (in tenths) until the command succeeds;
# 1 when it still fails after SECONDS. Wait for a condition, never a bare sleep.
until_ok() {
	end=$(( $(date +%s) + $1 )); shift
	while [ "$(date +%s)" -le "$end" ]; do "$@" && return 0; sleep 0.1; done
	return 1
}

# dump - the whole database as SQL text (rows and schema), for comparisons.
dump() { sqlite3 "${1:-$FRONTDESK_DB}" .dump; }

# refused NAME ARGS... - frontdesk ARGS must exit 1 with one line on stderr
# and leave the database dump exactly as it was.
refused() {
	name=$1; shift
	before=$(dump)
	"$FRONTDESK" "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	after=$(dump)
	lines=$(wc -l < "$TMP/err")
	if [ "$st" -eq 1 ] && [ "$lines" -eq 1 ] && [ "$before" = "$after" ] && [ ! -s "$TMP/out" ]; then
		pass "$name: refused ($(cut -c1-90 "$TMP/err"))"
	else
		fail "$name" "exit $st (want 1), $lines stderr line(s) (want 1)" \
			"stderr: $(head -c 300 "$TMP/err")" \
			"database changed: $([ "$before" = "$after" ] && echo no || echo YES)"
	fi
}

done_testing() {
	echo "1..$T_N"
	[ "$T_FAIL" -eq 0 ]
	exit $?
}

# sanitized: true when $FRONTDESK is an AddressSanitizer build (its code
# calls the sanitizer's reports, whether the runtime is linked into the
# program or a shared library beside it)
sanitized() {
	grep -q -a "__asan_report" "$FRONTDESK"
}

# once_per_tree WHAT: a test of the source tree itself (WHAT it reads), or
# of a reading that is the same in every build, ends here as skipped in the
# sanitizer build: .ci/run runs the same test in the plain build first.
once_per_tree() {
	if sanitized; then
		echo "1..0 # SKIP a check of $1, the same in every build: the plain build runs it"
		exit 0
	fi
}
