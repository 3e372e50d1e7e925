# accounts.sh - sourced after tap.sh by the tests that run frontdesk as
# other Unix users (the staff register admits by the real user id's login,
# never by an environment variable): making throw-away accounts, which the
# test's exit removes again, and running frontdesk as one of them.
#
#   accounts_or_skip WHY     skip the whole test unless root with useradd
#   accounts_remove          remove them (the exit does; a test with a trap
#                            of its own calls it there)
#   account VAR TAG          make an account, its login into $VAR (not in a
#                            $(...) subshell: the exit must know it)
#   share_db                 let every account open $FRONTDESK_DB (tests only:
#                            a shop uses the setgid install instead), and
#                            run $ABIN, a copy of $FRONTDESK they can reach
#   as LOGIN ARGS...         frontdesk ARGS as LOGIN ($ABIN), same environment

ACCOUNTS=""
trap 'accounts_remove; rm -rf "$TMP"' EXIT

# accounts_remove - remove every account made (first ending whatever still
# runs as one: userdel refuses a user with a process left)
accounts_remove() {
	for a in $ACCOUNTS; do
		pkill -KILL -u "$a" 2>/dev/null
		n=0
		until userdel "$a" 2>/dev/null || [ "$n" -ge 50 ]; do
			n=$((n + 1))
			sleep 0.1
		done
	done
	ACCOUNTS=""
}

accounts_or_skip() {
	if [ "$(id -u)" -ne 0 ] || ! command -v useradd >/dev/null || ! command -v runuser >/dev/null; then
		echo "1..0 # SKIP $1 needs other Unix accounts: run as root (with useradd and runuser)"
		exit 0
	fi
}

account() {
	a="fdt$2$$"
	useradd -M -N -s /usr/sbin/nologin -d /nonexistent "$a" || return 1
	ACCOUNTS="$ACCOUNTS $a"
	eval "$1=\$a"
}

share_db() {
	chmod 0777 "$TMP"
	chmod 0666 "$FRONTDESK_DB" "$FRONTDESK_DB-wal" "$FRONTDESK_DB-shm" 2>/dev/null
	# the program as every account can run it: the build folder may be in
	# a home only root may enter (/root/frontdesk on a fresh machine)
	if [ -z "${ABIN:-}" ]; then
		mkdir -p "$TMP/bin"
		cp "$FRONTDESK" "$TMP/bin/frontdesk"
		chmod 0755 "$TMP/bin" "$TMP/bin/frontdesk"
		ABIN=$TMP/bin/frontdesk
	fi
	return 0
}

as() {
	u=$1
	shift
	runuser -u "$u" -- "$ABIN" "$@"
}
