#!/bin/sh
# cli-setgid.sh - a setgid frontdesk on a shop server (issue 28, privs.h):
# the database folder is 2770 service:group, the staff account is not in
# the group, and the program is a setgid copy. The staff member reaches the
# books only through frontdesk: sqlite3, cat and cp cannot read them; the
# setgid copy works on a database inside the data folder and refuses one
# outside it, creating nothing; the variables and files the user controls
# (FRONTDESK_NOW, FRONTDESK_CONFIG, XDG_*, the user's own config, TZ=/path,
# FRONTDESK_LOCALEDIR, TERMINFO, NLSPATH, LOCPATH, GCONV_PATH, LD_PRELOAD,
# FRONTDESK_DEBUG_LOG...) change nothing; --debug-log and --output are
# written with the user's own rights: refused in a folder only the group
# may write, the user's own (user and user's group) elsewhere; a file to
# import is read with the user's rights too.
#
# Needs root (it makes a group and two accounts, all removed on exit). The
# data folder is the compiled-in one (FD_DATA_DIR of config.h), made for
# the test and removed after it; a machine where it or
# /etc/frontdesk/config already exists (a real install) is skipped.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}
[ "$(id -u)" -eq 0 ] || skip_all "needs root: it makes a group and two Unix accounts and a setgid copy of frontdesk"
for t in groupadd useradd userdel groupdel runuser; do
	command -v "$t" >/dev/null 2>&1 || skip_all "needs $t to make the test's accounts"
done
DATA=$(sed -n 's/^#define FD_DATA_DIR "\(.*\)"$/\1/p' "$(dirname "$FRONTDESK")/config.h")
[ -n "$DATA" ] || skip_all "FD_DATA_DIR is not in $(dirname "$FRONTDESK")/config.h"
[ -e /etc/frontdesk/config ] && skip_all "/etc/frontdesk/config exists: a real install is here, and this test does not touch one"

G=fdt-g-$$  # the program's group (frontdesk on a shop server)
S=fdt-s-$$  # the service account, in the group (runs serve, made the database)
A=fdt-a-$$  # a staff account, not in the group
MADE_DATA=
cleanup() {
	screen_stop
	# the pane's processes of the account go away with the server: wait
	# for them, userdel refuses an account still in use
	n=0
	while [ "$n" -lt 50 ] && ps -u "$A" >/dev/null 2>&1; do
		sleep 0.1
		n=$((n + 1))
	done
	userdel "$A" >/dev/null 2>&1
	userdel "$S" >/dev/null 2>&1
	groupdel "$A" >/dev/null 2>&1
	groupdel "$G" >/dev/null 2>&1
	[ -n "$MADE_DATA" ] && rm -rf "$DATA"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
# the data folder is made here, or this is another run's (or a real one's)
mkdir "$DATA" 2>/dev/null || skip_all "$DATA exists (a real install, or this test running in another build): left alone"
MADE_DATA=1

groupadd "$G" || skip_all "groupadd $G failed"
useradd -M -N -g "$G" -d /nonexistent -s /usr/sbin/nologin "$S" || skip_all "useradd $S failed"
useradd -M -U -d "$TMP/home" -s /bin/sh "$A" || skip_all "useradd $A failed"
chmod 755 "$TMP"
mkdir "$TMP/home" "$TMP/bin" "$TMP/grouponly"
chown "$A:$A" "$TMP/home"
chmod 700 "$TMP/home"
# a folder, and a file in it, that only the program's group may write
chown "root:$G" "$TMP/grouponly"
chmod 2770 "$TMP/grouponly"
echo "the group's own file" > "$TMP/grouponly/victim.txt"
chown "root:$G" "$TMP/grouponly/victim.txt"
chmod 660 "$TMP/grouponly/victim.txt"

BIN=$TMP/bin/frontdesk
cp "$FRONTDESK" "$BIN"
chgrp "$G" "$BIN"
chmod 2755 "$BIN"
chown "$S:$G" "$DATA"
chmod 2770 "$DATA"
DB=$DATA/frontdesk.db

# asA [NAME=VALUE...] COMMAND... - as the staff account, in a clean
# environment plus the variables given (no TZ: the system's zone)
asA() {
	runuser -u "$A" -- env -i PATH=/usr/bin:/bin HOME="$TMP/home" LANG=C.UTF-8 "$@"
}

# ASan's leak checker cannot work in a setgid process (it is not dumpable):
# seen, not guessed, it ends the sanitizer build's test here
if ! asA "$BIN" --version >"$TMP/v.out" 2>"$TMP/v.err"; then
	if sanitized; then
		skip_all "the sanitizer build cannot run setgid: $(grep -m1 -i sanitizer "$TMP/v.err")"
	fi
fi
is "the setgid copy runs for the staff account" "$(cut -d' ' -f1 "$TMP/v.out")" frontdesk
case ",$(findmnt -no OPTIONS -T "$BIN" 2>/dev/null)," in
*,nosuid,*) skip_all "$TMP is on a nosuid mount: the setgid bit of the copy would have no effect" ;;
esac
case "$(asA "$BIN" --help)" in
*"runs setgid"*) pass "the copy knows it runs setgid (its --help says so)" ;;
*) fail "the setgid copy does not know it runs setgid (its --help does not say so)" ;;
esac
case "$(runuser -u "$S" -- "$BIN" --help)" in
*"runs setgid"*) fail "the service account (in the group) is not setgid-attacked: all its variables count" ;;
*) pass "the service account (its group is the program's) runs it as a plain program" ;;
esac

# the database, made by the service account as the system unit would
ok "the service account creates the database in the data folder" \
	runuser -u "$S" -- "$BIN" --db "$DB" init
if runuser -u "$S" -- "$BIN" --db "$DB" staff --help >/dev/null 2>&1; then
	runuser -u "$S" -- "$BIN" --db "$DB" staff add "$A" --name "Test Desk" --role desk >/dev/null
	# the exports below are the permission "reports" (a desk has it not)
	runuser -u "$S" -- "$BIN" --db "$DB" staff grant "$A" reports >/dev/null
fi
is "the database file is the service account's and the group's, 0660" \
	"$(stat -c '%U:%G %a' "$DB")" "$S:$G 660"

# --- the books are reachable only through frontdesk
if asA sqlite3 "$DB" "SELECT count(*) FROM customer" >/dev/null 2>&1; then
	fail "sqlite3 as the staff account reads the database"
else
	pass "sqlite3 as the staff account cannot open the database"
fi
if asA cat "$DB" >/dev/null 2>&1; then fail "cat reads the database"; else pass "cat cannot read it"; fi
if asA cp "$DB" "$TMP/home/copy.db" >/dev/null 2>&1; then
	fail "cp copies the database"
else
	pass "cp cannot copy it"
fi

# --- the setgid copy works inside the data folder
ok "the staff account adds a customer through the setgid copy" \
	asA "$BIN" --db "$DB" customer add --name "Ada Lee"
like "and lists it (--db inside the data folder)" "$(asA "$BIN" --db "$DB" customer list)" "Ada Lee"
like "the default database is DATADIR/frontdesk.db" "$(asA "$BIN" customer list)" "Ada Lee"
like "FRONTDESK_DB inside the data folder is honoured" \
	"$(asA FRONTDESK_DB="$DB" "$BIN" customer list)" "Ada Lee"

# --- a database outside the data folder is refused, nothing is made
refused_out() {
	name=$1; shift
	asA "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ "$st" -eq 1 ] && grep -q "outside the data folder" "$TMP/err" && [ ! -s "$TMP/out" ]; then
		pass "$name: refused ($(head -c 120 "$TMP/err"))"
	else
		fail "$name" "exit $st (want 1)" "stderr: $(head -c 300 "$TMP/err")"
	fi
}
refused_out "--db in the user's home" "$BIN" --db "$TMP/home/evil.db" init
refused_out "--db=... in the user's home" "$BIN" --db="$TMP/home/evil.db" customer list
refused_out "--db through .. out of the data folder" "$BIN" --db "$DATA/../evil.db" init
refused_out "--db through .. back into it" "$BIN" --db "$DATA/x/../frontdesk.db" customer list
refused_out "a relative --db (the user's folder)" sh -c "cd '$TMP/home' && '$BIN' --db evil.db init"
refused_out "FRONTDESK_DB outside" FRONTDESK_DB="$TMP/home/evil.db" "$BIN" init
refused_out "--db of another folder of the group" "$BIN" --db "$TMP/grouponly/g.db" init
is "nothing was made in the user's folder" "$(ls -A "$TMP/home")" ""
is "nor in the group's other folder" "$(ls -A "$TMP/grouponly")" "victim.txt"
ok "nor beside the data folder" test ! -e "$(dirname "$DATA")/evil.db"
# a link of the user's to the data folder: the path is opened resolved (the
# link could be moved to another folder between the check and the open)
asA ln -s "$DATA" "$TMP/home/dlink"
like "a database through a link of the user's is opened by its resolved path" \
	"$(asA "$BIN" --db "$TMP/home/dlink/none.db" customer list 2>&1)" "at $DATA/none.db"
like "... and works" "$(asA "$BIN" --db "$TMP/home/dlink/frontdesk.db" customer list)" "Ada Lee"

# --- what the user controls changes nothing
mkdir -p "$TMP/home/evil/frontdesk" "$TMP/home/.config/frontdesk" "$TMP/home/evil/locale/zh_CN/LC_MESSAGES"
# a config that would move the shop's zone by 14 hours and its data folder
printf 'timezone = Pacific/Kiritimati\ndata_dir = %s/home\n' "$TMP" > "$TMP/home/evil/config"
cp "$TMP/home/evil/config" "$TMP/home/evil/frontdesk/config"
cp "$TMP/home/evil/config" "$TMP/home/.config/frontdesk/config"
cp /usr/share/zoneinfo/Pacific/Kiritimati "$TMP/home/evil/zone" 2>/dev/null
# the build's own Chinese catalog, where FRONTDESK_LOCALEDIR would find it
cp "$(dirname "$FRONTDESK")/locale/zh_CN/LC_MESSAGES/frontdesk.mo" \
	"$TMP/home/evil/locale/zh_CN/LC_MESSAGES/" 2>/dev/null
HAVE_SO=
if printf '#include <stdio.h>\n__attribute__((constructor)) static void evil(void) { FILE *f = fopen("%s/home/evil/preloaded", "w"); if (f) fclose(f); }\n' "$TMP" >"$TMP/evil.c" &&
	${LAYER_CC:-cc} -shared -fPIC -o "$TMP/home/evil/evil.so" "$TMP/evil.c" 2>/dev/null; then
	HAVE_SO=1
fi
chown -R "$A:$A" "$TMP/home"

# the same reads, plain and with every hostile variable set
reads() {
	asA "$@" "$BIN" --db "$DB" --json agenda
	asA "$@" "$BIN" --db "$DB" export csv customers
}
reads > "$TMP/plain1"
reads FRONTDESK_NOW=2001-01-01T09:00 FRONTDESK_REAL_NOW=978307200 \
	FRONTDESK_CONFIG="$TMP/home/evil/config" XDG_CONFIG_HOME="$TMP/home/evil" \
	XDG_DATA_HOME="$TMP/home/evil/data" XDG_STATE_HOME="$TMP/home/evil/state" \
	HOME="$TMP/home/evil" TZ="$TMP/home/evil/zone" \
	TERMINFO="$TMP/home/evil" TERMINFO_DIRS="$TMP/home/evil" TERMCAP="$TMP/home/evil/termcap" \
	NLSPATH="$TMP/home/evil/%N" LOCPATH="$TMP/home/evil" GCONV_PATH="$TMP/home/evil" \
	HOSTALIASES="$TMP/home/evil/hosts" RES_OPTIONS=debug LOCALDOMAIN=evil.example \
	MALLOC_CHECK_=3 OPENSSL_CONF="$TMP/home/evil/openssl.cnf" SSL_CERT_FILE="$TMP/home/evil/ca" \
	CURL_CA_BUNDLE="$TMP/home/evil/ca" TMPDIR="$TMP/home/evil" \
	FRONTDESK_DEBUG_LOG="$TMP/home/evil/debug.log" LD_PRELOAD="$TMP/home/evil/evil.so" \
	> "$TMP/hostile" 2>"$TMP/hostile.err"
reads > "$TMP/plain2"
if cmp -s "$TMP/hostile" "$TMP/plain1" || cmp -s "$TMP/hostile" "$TMP/plain2"; then
	pass "hostile FRONTDESK_*, XDG_*, HOME, TZ=/path, TERMINFO, NLSPATH, LOCPATH, GCONV_PATH... change nothing"
else
	fail "the hostile variables changed the output" "$(diff "$TMP/plain1" "$TMP/hostile" | head -8)"
fi
like "the plain run itself read the database (its customer)" "$(cat "$TMP/plain1")" "Ada Lee"
is "and said nothing on stderr" "$(cat "$TMP/hostile.err")" ""
ok "FRONTDESK_DEBUG_LOG made no file" test ! -e "$TMP/home/evil/debug.log"
ok "XDG_DATA_HOME made no database" test ! -e "$TMP/home/evil/data"
if [ -n "$HAVE_SO" ]; then
	ok "LD_PRELOAD loaded nothing" test ! -e "$TMP/home/evil/preloaded"
	# the library works: a plain program loads it
	runuser -u "$A" -- env LD_PRELOAD="$TMP/home/evil/evil.so" true
	ok "(the same LD_PRELOAD does load into a program that is not setgid)" \
		test -e "$TMP/home/evil/preloaded"
fi
# the measure can fail: a plain zone name counts, and moves the day's start
if [ "$(asA TZ=Pacific/Kiritimati "$BIN" --db "$DB" --json agenda)" != "$(asA TZ=Etc/GMT+12 "$BIN" --db "$DB" --json agenda)" ]; then
	pass "TZ as a plain zone name is honoured (the agenda's day moves with it)"
else
	fail "TZ=Pacific/Kiritimati and TZ=Etc/GMT+12 give the same agenda"
fi
# a customer added under FRONTDESK_NOW is stamped with the real time
asA FRONTDESK_NOW=2001-01-01T09:00 "$BIN" --db "$DB" customer add --name "Bo Now" >/dev/null
case "$(asA "$BIN" --db "$DB" export csv customers | grep 'Bo Now')" in
*2001-01-01*) fail "FRONTDESK_NOW dated the new customer" ;;
*",$(date +%Y-)"*) pass "FRONTDESK_NOW did not date the new customer" ;;
*) fail "the new customer is not listed with this year's date" ;;
esac
# FRONTDESK_LOCALEDIR would make it speak Chinese; the plain zh_CN run is the measure
if [ -f "$TMP/home/evil/locale/zh_CN/LC_MESSAGES/frontdesk.mo" ]; then
	is "FRONTDESK_LOCALEDIR is not used (no catalog from the user's folder)" \
		"$(asA LANG=zh_CN.UTF-8 FRONTDESK_LOCALEDIR="$TMP/home/evil/locale" "$BIN" --db "$DATA/none.db" customer list 2>&1)" \
		"$(asA LANG=zh_CN.UTF-8 "$BIN" --db "$DATA/none.db" customer list 2>&1)"
	# and the catalog itself works (the measure can fail)
	if [ "$(env -u LC_ALL LANG=zh_CN.UTF-8 FRONTDESK_LOCALEDIR="$TMP/home/evil/locale" "$FRONTDESK" --db "$TMP/none.db" customer list 2>&1)" != \
		"$(env -u LC_ALL LANG=zh_CN.UTF-8 FRONTDESK_LOCALEDIR=/nonexistent "$FRONTDESK" --db "$TMP/none.db" customer list 2>&1)" ]; then
		pass "(the same catalog is used by a frontdesk that is not setgid)"
	else
		fail "the planted catalog changes nothing for the plain program"
	fi
fi

# --- --debug-log and --output: the user's own rights
asA "$BIN" --db "$DB" --debug-log "$TMP/grouponly/d.log" customer list >/dev/null 2>"$TMP/err"
st=$?
is "--debug-log into a folder only the group may write is refused" "$st" 1
ok "and makes no file there" test ! -e "$TMP/grouponly/d.log"
asA "$BIN" --db "$DB" export csv customers --output "$TMP/grouponly/c.csv" >/dev/null 2>&1
is "export csv --output there is refused" "$?" 1
asA "$BIN" --db "$DB" export journal --output "$TMP/grouponly/victim.txt" >/dev/null 2>&1
is "export journal over a file only the group may write is refused" "$?" 1
asA "$BIN" --db "$DB" export csv customers --output "$TMP/grouponly/victim.txt" >/dev/null 2>&1
is "export csv over it is refused" "$?" 1
asA "$BIN" --db "$DB" pay import "$TMP/grouponly/victim.txt" >/dev/null 2>"$TMP/err"
st=$?
like "pay import of a file only the group may read is refused as for the user ($st)" \
	"$(cat "$TMP/err")" "Permission denied"
if runuser -u "$S" -- "$BIN" --db "$DB" staff grant "$A" backup >/dev/null 2>&1; then
	asA "$BIN" --db "$DB" backup "$TMP/grouponly/b.db" >/dev/null 2>"$TMP/err"
	is "a backup into a folder only the group may write is refused" "$?" 1
	like "... saying why" "$(cat "$TMP/err")" "yourself"
	asA "$BIN" --db "$DB" restore "$TMP/grouponly/victim.txt" >/dev/null 2>"$TMP/err"
	is "a restore from a file only the group may read is refused" "$?" 1
	like "... as one the user could not read" "$(cat "$TMP/err")" "yourself"
	runuser -u "$S" -- "$BIN" --db "$DB" staff revoke "$A" backup >/dev/null
fi
is "the group's file is unchanged" "$(cat "$TMP/grouponly/victim.txt")" "the group's own file"
is "nothing new in the group's folder" "$(ls "$TMP/grouponly" | tr '\n' ' ')" "victim.txt "

OWN="$A:$(id -gn "$A")"
ok "--debug-log in the user's own folder" \
	asA "$BIN" --db "$DB" --debug-log "$TMP/home/d.log" customer list
is "is the user's, with the user's group" "$(stat -c '%U:%G' "$TMP/home/d.log")" "$OWN"
ok "export csv --output in the user's own folder" \
	asA "$BIN" --db "$DB" export csv customers --output "$TMP/home/c.csv"
is "is the user's, with the user's group, 0600" "$(stat -c '%U:%G %a' "$TMP/home/c.csv")" "$OWN 600"
ok "export journal --output in the user's own folder" \
	asA "$BIN" --db "$DB" export journal --output "$TMP/home/j.journal"
is "is the user's, with the user's group" "$(stat -c '%U:%G' "$TMP/home/j.journal")" "$OWN"
ok "export ical --output in the user's own folder" \
	asA "$BIN" --db "$DB" export ical --output "$TMP/home/v.ics"
is "is the user's, with the user's group" "$(stat -c '%U:%G' "$TMP/home/v.ics")" "$OWN"

# --- the screen: terminfo from the user's home, the keys and state files
if command -v tmux >/dev/null 2>&1 && command -v tput >/dev/null 2>&1 &&
	ti=$(find /lib/terminfo /usr/share/terminfo -name xterm -type f 2>/dev/null | head -1) && [ -n "$ti" ]; then
	# pane [NAME=VALUE...] ARGS... - the setgid copy as the staff account in a
	# 100x30 pane (the environment as asA's, plus the variables given)
	pane() {
		screen_stop
		n=0
		until $TMUX_CMD new-session -d -x 100 -y 30 \
			"runuser -u $A -- env -i PATH=/usr/bin:/bin HOME=$TMP/home LANG=C.UTF-8 $*; echo frontdesk-exited-\$?; sleep 30" 2>/dev/null; do
			n=$((n + 1))
			[ "$n" -lt 50 ] || return 1
			sleep 0.1
		done
	}
	mkdir -p "$TMP/home/.terminfo/f"
	cp "$ti" "$TMP/home/.terminfo/f/fdt-home"
	# a keys file that is the database: read with the program's group, its
	# lines would be quoted on the message line
	ln -s "$DB" "$TMP/home/.config/frontdesk/keys"
	chown -R -h "$A:$A" "$TMP/home"
	is "(a terminfo entry in the user's home works for a plain program)" \
		"$(asA tput -T fdt-home colors 2>&1)" 8
	pane TERM=fdt-home "$BIN" --db "$DB"
	if wait_for "frontdesk-exited-" 10 && screen_text | grep -q "cannot use the terminal (TERM=fdt-home)"; then
		pass "the setgid screen does not read terminfo from the user's home (~/.terminfo)"
	else
		fail "the setgid screen used the user's ~/.terminfo entry" "$(screen_text | head -3)"
	fi
	pane TERM=xterm-256color "$BIN" --db "$DB"
	if wait_for "Calendar" 10; then
		pass "the setgid copy opens the desk screen for the staff account"
		case "$(screen_text)" in
		*"keys:"*) fail "the keys file (a link to the database) was read with the program's rights" "$(screen_text | grep 'keys:')" ;;
		*) pass "the keys file is read with the user's rights (a link to the database is not read)" ;;
		esac
		keys m
		wait_for "Month" 10 >/dev/null
		keys q
		wait_for "frontdesk-exited-0" 10 >/dev/null
		is "the screen's state file is the user's, with the user's group, 0600" \
			"$(stat -c '%U:%G %a' "$TMP/home/.local/state/frontdesk/screen" 2>&1)" "$OWN 600"
	else
		fail "the setgid copy does not open the desk screen" "$(screen_text | head -5)"
	fi
	screen_stop
fi

done_testing
