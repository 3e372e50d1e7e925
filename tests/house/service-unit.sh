#!/bin/sh
# service-unit.sh - data/frontdesk.service is a correct system unit: a
# dedicated user, the database in its StateDirectory (no %h, which is /root
# in a system unit whatever User= says), the group-sharing umask and the
# hardening; and, where systemd-analyze is installed (bootstrap installs
# systemd for it; tests/house/setup-packages.sh fails when it is missing),
# `systemd-analyze verify` has nothing to say about it.
. "$TOP_SRCDIR/tests/lib/tap.sh"
UNIT="$TOP_SRCDIR/data/frontdesk.service"
# val KEY: the value of KEY= in the unit (the last one wins, as in systemd)
val() { sed -n "s/^$1=//p" "$UNIT" | tail -n 1; }

ok "the unit exists" test -f "$UNIT"
ok "it names no home folder (%h)" sh -c "! grep -v '^#' '$UNIT' | grep -q '%h'"
user=$(val User)
ok "it runs as a dedicated user" sh -c "[ -n '$user' ] && [ '$user' != root ]"
is "its state folder is StateDirectory=frontdesk" "$(val StateDirectory)" frontdesk
db=$(sed -n 's/^Environment=FRONTDESK_DB=//p' "$UNIT")
is "the database lives in the state folder" "${db%/*}" "/var/lib/$(val StateDirectory)"
mode=$(val StateDirectoryMode)
setgid_rwx() { [ -n "$mode" ] && [ $(( 0$mode & 02070 )) -eq $(( 02070 )) ]; }
ok "the state folder is setgid and group-writable" setgid_rwx
is "the umask keeps the group's bits" "$(val UMask)" 0007
for k in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes; do
	is "hardened: $k" "${k%%=*}=$(val "${k%%=*}")" "$k"
done
ok "no RestrictSUIDSGID (it would strip the shared folder's setgid bit)" \
	sh -c "! grep -q '^RestrictSUIDSGID=yes' '$UNIT'"
ok "it starts frontdesk serve" grep -q '^ExecStart=.*frontdesk serve' "$UNIT"
is "installed for the system, not a user session" "$(val WantedBy)" multi-user.target

if command -v systemd-analyze >/dev/null 2>&1; then
	# the ExecStart path must exist for verify: use the binary under test
	mkdir "$TMP/unit"
	sed "s|^ExecStart=[^ ]*|ExecStart=$FRONTDESK|" "$UNIT" > "$TMP/unit/frontdesk.service"
	out=$(systemd-analyze verify "$TMP/unit/frontdesk.service" 2>&1); st=$?
	is "systemd-analyze verify exits 0" "$st" 0
	is "and says nothing" "$out" ""
	exposure=$(timeout 30 systemd-analyze security --offline=true "$TMP/unit/frontdesk.service" 2>/dev/null |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	echo "# systemd-analyze security: exposure ${exposure:-?} (0 safest, 10 none)"
else
	pass "systemd-analyze verify # SKIP systemd-analyze is not installed"
	pass "and says nothing # SKIP systemd-analyze is not installed"
fi

done_testing
