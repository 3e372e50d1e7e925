#!/bin/sh
# setup-packages.sh - the set-up installs what the build and the tests call.
#
# A fresh Debian 12 has only the "required" packages (a minbase chroot);
# everything else the build or a test runs must come from bootstrap's
# PACKAGES list, and README.md must name that same list. CI on a developer
# machine cannot see a missing step (the tools happen to be there), so this
# test asks dpkg which package owns each program and fails when that package
# is neither required nor in bootstrap's list. tests/house/fresh-debian.sh runs the
# whole suite in a real minbase chroot; this is its quick, always-on half.
. "$TOP_SRCDIR/tests/lib/tap.sh"
once_per_tree "the set-up's package list"

# The programs that the build, the tests and .ci/run call by name. A test
# that starts calling another program adds it here (and its package to
# bootstrap).
TOOLS="sh make gcc openssl autoreconf pkg-config msgfmt sqlite3 python3 curl ps tmux
ledger hledger calcurse valgrind git locale timeout awk sed grep od truncate base64
ldd stat seq mktemp diff cmp tr wc sort head tail cut sleep sha256sum tar touch dd comm chgrp
date pdftotext pdffonts pdfinfo zbarimg clang-format-14 systemd-analyze groff"

pkgs=$(sed -n '/^PACKAGES="/,/"$/p' "$TOP_SRCDIR/bootstrap" | sed 's/^PACKAGES="//; s/"$//' |
	tr -s ' \t' '\n\n' | sed '/^$/d' | sort -u)
readme=$(tr '\n' ' ' <"$TOP_SRCDIR/README.md" | sed -n 's/.*installs only missing packages (\([^)]*\)).*/\1/p' |
	tr -s ' ' '\n' | sed '/^$/d' | sort -u)
ok "bootstrap has a package list" test -n "$pkgs"
is "README.md names bootstrap's package list" "$(echo $readme)" "$(echo $pkgs)"

# What bootstrap's list brings: the packages and everything they depend on.
closure=$(apt-cache depends --recurse --installed --no-recommends --no-suggests --no-conflicts \
	--no-breaks --no-replaces --no-enhances $pkgs 2>/dev/null | grep -v '^ ' | sort -u)
brought() { printf '%s\n' "$closure" | grep -qx "$1"; }
owner_of() { # the package owning a program; merged /usr means /bin and /usr/bin are one
	for f in "$1" "/bin/$2" "/usr/bin/$2" "/sbin/$2" "/usr/sbin/$2" "$(readlink -f "$1")"; do
		o=$(dpkg -S "$f" 2>/dev/null | grep -v '^diversion' | head -n 1 | cut -d: -f1)
		if [ -n "$o" ]; then echo "$o"; return; fi
	done
}
for tool in $TOOLS; do
	path=""
	for d in /usr/bin /bin /usr/sbin /sbin; do
		if [ -x "$d/$tool" ]; then path=$d/$tool; break; fi
	done
	if [ -z "$path" ]; then
		fail "$tool is installed from a Debian package" "not found in /usr/bin, /bin, /usr/sbin or /sbin"
		continue
	fi
	owner=$(owner_of "$path" "$tool")
	if [ -z "$owner" ]; then
		fail "$tool comes from a package" "no Debian package owns $path"
		continue
	fi
	prio=$(dpkg-query -W -f='${Priority}' "$owner" 2>/dev/null)
	if [ "$prio" = required ] || brought "$owner"; then
		pass "$tool ($owner) is on a fresh machine or installed by bootstrap"
	else
		fail "$tool is installed by bootstrap" "its package $owner ($prio) is neither required nor brought by bootstrap's PACKAGES"
	fi
done
done_testing
