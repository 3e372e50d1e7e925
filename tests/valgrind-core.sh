#!/bin/sh
# valgrind-core.sh - the core leaks nothing: the unit tests and a round of
# command-line work run under valgrind's leak checker. Skipped in a
# sanitizer build (valgrind cannot run AddressSanitizer binaries).
. "$TOP_SRCDIR/tests/tap.sh"

if ! command -v valgrind >/dev/null 2>&1; then
	echo "1..0 # SKIP valgrind is not installed"
	exit 0
fi
if ldd "$FRONTDESK" 2>/dev/null | grep -q libasan; then
	echo "1..0 # SKIP sanitizer build"
	exit 0
fi
VG="valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99"
bindir=$(dirname "$FRONTDESK")

vg() { $VG "$@" >"$TMP/vg.out" 2>&1; }

vg "$FRONTDESK" init; is "init under valgrind is clean" "$?" 0
vg "$FRONTDESK" customer add --name "Ada Lee" --phone 555-0100; is "customer add clean" "$?" 0
vg "$FRONTDESK" --json customer list; is "customer list --json clean" "$?" 0
vg "$FRONTDESK" customer add --name "$(printf 'bad\033name')"; is "a refusal is clean (exit 1)" "$?" 1
vg "$FRONTDESK" demo; is "demo clean" "$?" 0
vg "$FRONTDESK" --json appt list --from 2026-11-20 --days 14; is "appt list clean" "$?" 0
# Check forks a child per test; CK_FORK=no keeps them in valgrind's view.
for t in check_core check_money; do
	CK_FORK=no vg "$bindir/tests/$t"; st=$?
	is "$t under valgrind is clean" "$st" 0
	[ "$st" -ne 0 ] && sed 's/^/# /' "$TMP/vg.out" | head -40
done

done_testing
