#!/bin/sh
# cli-table.sh - every command of the command table, found through the help
# (`frontdesk help`, then `frontdesk GROUP help`), answers --help with its
# usage, accepts every option its help lists, and refuses an unknown option
# and too many arguments as bad usage (exit 2) with a message, all without
# opening or creating the database.
. "$TOP_SRCDIR/tests/lib/tap.sh"

export FRONTDESK_DB="$TMP/none.db"
many=$(i=0; while [ $i -lt 70 ]; do printf '1 '; i=$((i + 1)); done)

# check_cmd CMD... - the checks for one command (a group's subcommand or a
# command on its own)
check_cmd() {
	name="$*"
	out=$(fd "$@" --help 2>"$TMP/err"); rc=$?
	is "$name --help exits 0" "$rc" 0
	like "$name --help shows its usage" "$out" "Usage: frontdesk $name "
	like "$name --help lists --json" "$out" "--json"
	# every option the help lists is one the command accepts: all of them
	# in one call (a VALUE option with the value 1), then, only if that
	# call is refused, one call per option, to name the ones refused
	opts=
	for opt in $(printf '%s\n' "$out" | sed -n 's/^  \(--[a-z-]*\).*/\1/p'); do
		case $opt in --json | --help) continue ;; esac
		if printf '%s\n' "$out" | grep -q "^  $opt VALUE"; then
			opts="$opts $opt 1"
		else
			opts="$opts $opt"
		fi
	done
	# shellcheck disable=SC2086
	if fd "$@" $opts --help >/dev/null 2>"$TMP/err"; then
		pass "$name accepts every option its help lists:$opts"
	else
		bad=
		for opt in $opts; do
			case $opt in --*) ;; *) continue ;; esac
			fd $name "$opt" 1 --help >/dev/null 2>&1 || fd $name "$opt" --help >/dev/null 2>&1 ||
				bad="$bad $opt"
		done
		fail "$name accepts every option its help lists" "refused:${bad:- (each alone is accepted; together they are not)}"
	fi
	fd "$@" --no-such-option >/dev/null 2>"$TMP/err"; rc=$?
	is "$name --no-such-option exits 2" "$rc" 2
	like "$name names the unknown option" "$(cat "$TMP/err")" \
		"frontdesk $name: unknown option '--no-such-option'"
	like "$name points to its help" "$(cat "$TMP/err")" "(see 'frontdesk $name --help')"
	# shellcheck disable=SC2086
	fd "$@" $many >/dev/null 2>"$TMP/err"; rc=$?
	is "$name with 70 arguments exits 2" "$rc" 2
	like "$name says there are too many" "$(cat "$TMP/err")" "frontdesk $name: too many arguments"
}

top=$(fd help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
n=$(printf '%s\n' "$top" | wc -l)
[ "$n" -ge 20 ]; is "the help lists the commands ($n)" "$?" 0
# check_any CMD... - a group (its own checks, then each of its commands,
# a group within it too: `hq report aging`) or a command
check_any() {
	out=$(fd "$@" --help 2>&1)
	case $out in
	"Usage: frontdesk $* COMMAND [OPTIONS]"*)
		subs=$(printf '%s\n' "$out" | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
		[ -n "$subs" ]; is "$* lists its commands" "$?" 0
		is "$* help is its --help" "$(fd "$@" help)" "$out"
		fd "$@" no-such-command >/dev/null 2>"$TMP/err"; rc=$?
		is "$* no-such-command exits 2" "$rc" 2
		like "$* names the unknown command" "$(cat "$TMP/err")" \
			"frontdesk $*: unknown command 'no-such-command'"
		for sub in $subs; do
			check_any "$@" "$sub"
		done
		;;
	*) check_cmd "$@" ;;
	esac
}

for cmd in $top; do
	check_any "$cmd"
done

# the aliases take their command's table
is "appt is visit" "$(fd appt --help)" "$(fd visit --help)"
is "appt add --help is visit add's" "$(fd appt add --help)" "$(fd visit add --help)"

[ ! -e "$FRONTDESK_DB" ]; is "none of it created the database" "$?" 0

done_testing
