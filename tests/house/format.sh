#!/bin/sh
# format.sh - every C file is in the one style written down in
# .clang-format (clang-format 14, Debian 12's, which bootstrap installs).
# Where that clang-format is not installed (another system), the case is
# skipped and says so; on Debian, tests/house/setup-packages.sh fails instead.
. "$TOP_SRCDIR/tests/lib/tap.sh"
once_per_tree "the C files' style"
cf=$(command -v clang-format-14 || command -v clang-format || true)
ver=$([ -n "$cf" ] && "$cf" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ "$ver" != 14 ]; then
	T_N=$((T_N + 1))
	echo "ok $T_N - # SKIP clang-format 14 is not installed (found: ${cf:-none} ${ver})"
	done_testing
fi
cd "$TOP_SRCDIR" || exit 1
bad=""
for f in main.c src/*.[ch] cli/*.[ch] ui/*.[ch] tests/*/*.[ch] bench/*.c; do
	"$cf" --dry-run "$f" 2>&1 | grep -q 'warning:' && bad="$bad $f"
done
is "every C file follows .clang-format (clang-format -i FILE fixes one)" "$bad" ""
done_testing
