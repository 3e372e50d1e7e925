#!/bin/sh
# fresh-debian.sh - the README's two commands on a fresh Debian 12, as a new
# user would run them. Not part of `make check`: run it (as root) before
# resolving an issue that adds a dependency.
#
#   tests/house/fresh-debian.sh            run both README commands in a new chroot
#   tests/house/fresh-debian.sh --keep     leave the chroot's folder for a look
#
# It makes a `debootstrap --variant=minbase bookworm` chroot once and caches
# it as a tarball ($FRESH_CACHE, default /var/cache/frontdesk-fresh); every
# run unpacks a new copy, exports `git archive HEAD` into /root/frontdesk,
# then runs the README's first command exactly as written under a
# pseudo-terminal (a private tmux server on this machine) and quits the
# screen with `q` once it shows, then the README's second command with no
# terminal and no standard input, as CI does. It prints the test totals and
# exits non-zero when either command failed. Nothing from this machine is
# copied into the chroot but the exported tree and /etc/resolv.conf (so that
# apt-get can reach Debian's mirror).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${FRESH_CACHE:-/var/cache/frontdesk-fresh}
mirror=${FRESH_MIRROR:-http://deb.debian.org/debian}
keep=no
[ "${1:-}" = "--keep" ] && keep=yes

say() { printf 'fresh-debian: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap and chroot need it)"
for tool in debootstrap tmux git; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		say "installing $tool"
		apt-get install -y -qq "$tool" >/dev/null || die "cannot install $tool"
	fi
done
command -v debootstrap >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin

# The README's two commands, read from README.md itself, so the test runs
# what a new user reads and not a copy that could drift.
readme_cmd() { sed -n '/^```sh$/,/^```$/p' "$top/README.md" | sed '/^```/d' | sed -n "${1}p"; }
cmd1=$(readme_cmd 1)
cmd2=$(readme_cmd 2)
[ -n "$cmd1" ] && [ -n "$cmd2" ] || die "README.md does not start with two commands in a sh block"

mkdir -p "$cache"
base="$cache/bookworm-minbase.tar"
if [ ! -f "$base" ]; then
	say "making the minbase chroot once (cached in $base)"
	rm -rf "$cache/base.tmp"
	debootstrap --variant=minbase bookworm "$cache/base.tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
		die "debootstrap failed; see $cache/debootstrap.log"
	tar -C "$cache/base.tmp" -cf "$base.tmp" . && mv "$base.tmp" "$base"
	rm -rf "$cache/base.tmp"
fi

root=$(mktemp -d "${TMPDIR:-/var/tmp}/fresh-debian.XXXXXX")
sock="fresh-debian-$$"
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	for m in dev/pts dev/shm dev sys proc; do
		mountpoint -q "$root/$m" 2>/dev/null && umount -l "$root/$m"
	done
	if [ "$keep" = yes ]; then say "kept $root"; else rm -rf "$root"; fi
}
trap cleanup EXIT INT TERM

say "unpacking a new chroot in $root"
tar -C "$root" -xf "$base"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts" 2>/dev/null ||
	mount --bind /dev/pts "$root/dev/pts"
mount -t tmpfs tmpfs "$root/dev/shm"
mkdir -p "$root/root/frontdesk"
git -C "$top" archive HEAD | tar -C "$root/root/frontdesk" -xf -

# A login-like environment: nothing of this machine's own leaks in.
clean_env="/usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8"
in_root() { # in_root COMMAND [TERM]
	# shellcheck disable=SC2086
	chroot "$root" $clean_env TERM="${2:-dumb}" /bin/sh -c "cd /root/frontdesk && $1"
}

# 1. The first command, under a pseudo-terminal: wait for the screen, quit it.
say "first command: $cmd1"
# The screen needs the terminal; bootstrap's errors go to first.err.
cat >"$root/root/first.sh" <<EOF
cd /root/frontdesk
$cmd1 2>/root/first.err
echo \$? >/root/first.rc
EOF
tmux -L "$sock" -f /dev/null new-session -d -x 120 -y 40 \
	"chroot $root $clean_env TERM=xterm-256color /bin/sh /root/first.sh; sleep 600"
tmux -L "$sock" set-option -t 0 remain-on-exit on >/dev/null
seen=no
waited=0
while [ "$waited" -lt 3600 ]; do
	[ -f "$root/root/first.rc" ] && break
	screen=$(tmux -L "$sock" capture-pane -p -t 0 2>/dev/null || true)
	if [ "$seen" = no ] && printf '%s\n' "$screen" | grep -qF '? Help'; then
		seen=yes
		printf '%s\n' "$screen" >"$root/root/first.screen"
		tmux -L "$sock" send-keys -t 0 Q # Q quits at once when nothing typed is lost
	fi
	sleep 1
	waited=$((waited + 1))
done
rc1=$(cat "$root/root/first.rc" 2>/dev/null || echo timeout)
tmux -L "$sock" capture-pane -p -S -200 -t 0 >"$root/root/first.pane" 2>/dev/null || true
tmux -L "$sock" kill-server 2>/dev/null || true
if [ "$rc1" = 0 ] && [ "$seen" = yes ]; then
	say "first command: done, the screen opened on the demo database and quit"
else
	say "first command FAILED (exit $rc1, screen seen: $seen); its last output:"
	tail -n 30 "$root/root/first.pane" >&2 || true
	tail -n 30 "$root/root/first.err" >&2 || true
fi

# 2. The second command, with no terminal and no input, as CI runs it.
say "second command: $cmd2"
set +e
in_root "$cmd2" </dev/null >"$root/root/second.log" 2>&1
rc2=$?
set -e
log="$root/root/frontdesk/build/test-suite.log"
if [ -f "$log" ]; then
	grep -E '^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR):' "$log"
	grep -E '^(FAIL|ERROR|XPASS):' "$log" || true
	pass=$(awk '/^# PASS:/ {print $3}' "$log")
	failn=$(awk '/^# (FAIL|ERROR|XPASS):/ {f += $3} END {print f + 0}' "$log")
	echo "fresh-debian: ${pass:-0} passed, ${failn} failed"
else
	tail -n 40 "$root/root/second.log" >&2
	echo "fresh-debian: 0 passed, 1 failed"
fi
if [ "$rc2" -ne 0 ]; then
	say "second command FAILED (exit $rc2); last lines of its output:"
	tail -n 40 "$root/root/second.log" >&2
fi
[ "$keep" = yes ] && cp "$root/root/second.log" "$root/root/first.err" "$cache/" 2>/dev/null
[ "$rc1" = 0 ] && [ "$seen" = yes ] && [ "$rc2" -eq 0 ]
