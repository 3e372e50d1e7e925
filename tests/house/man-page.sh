#!/bin/sh
# man-page.sh - frontdesk(1) documents every command and option the program
# has. The command table is read from the program itself (`frontdesk help`,
# each group's --help, each command's --help), never from a copy kept by
# hand, and compared with data/frontdesk.1:
#   - every top-level command has a section under COMMANDS: a .TP paragraph
#     whose tag (its first line, or a .TQ line after it) starts with the
#     command's name;
#   - every command of a group is named in the tag of one of its group's
#     sections (`customer add|list|show|edit|delete`);
#   - every section under COMMANDS names a command of the program;
#   - every option a command's --help lists (but --help and --json, which
#     every command takes: see DESCRIPTION) is written in the tag or the text
#     of a section that names that command; the global options of
#     `frontdesk --help` are under GLOBAL OPTIONS.
# The checker then runs on copies of the page broken each way (a section
# removed, a command dropped from a tag, an option deleted), so that each
# failure is seen to work.
. "$TOP_SRCDIR/tests/lib/tap.sh"
once_per_tree "the man page against the program's own help"

MAN="$TOP_SRCDIR/data/frontdesk.1"
export FRONTDESK_DB="$TMP/none.db" # --help never opens the database

# The table, from the program: one line per command, "CMD [SUB]: OPTIONS".
subs_of() { sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'; }
opts_of() { sed -n 's/^  \(--[a-z][a-z-]*\).*/\1/p' | grep -vx -e --help -e --json | tr '\n' ' '; }
top=$(fd help | subs_of)
: > "$TMP/table"
for cmd in $top; do
	out=$(fd "$cmd" --help 2>&1)
	case $out in
	"Usage: frontdesk $cmd COMMAND [OPTIONS]"*)
		for sub in $(printf '%s\n' "$out" | subs_of); do
			echo "$cmd $sub: $(fd "$cmd" "$sub" --help 2>&1 | opts_of)" >> "$TMP/table"
		done
		;;
	*) echo "$cmd: $(printf '%s\n' "$out" | opts_of)" >> "$TMP/table" ;;
	esac
done
n=$(printf '%s\n' "$top" | wc -l)
[ "$n" -ge 30 ]; is "the program lists its commands ($n)" "$?" 0
n=$(wc -l < "$TMP/table")
[ "$n" -ge 100 ]; is "and their commands ($n)" "$?" 0

# sections MANFILE - the COMMANDS section of the page as one line per tag:
# "NAME<TAB>TAG<TAB>TEXT", NAME the tag's first word, TEXT the whole
# paragraph (every tag and the body up to the next .TP or .SH), font escapes
# and the hyphen escape removed.
sections() {
	awk '
	function plain(s) {
		sub(/^\.[A-Z]+ /, "", s)
		gsub(/\\f[BIRP]/, "", s); gsub(/\\-/, "-", s); gsub(/"/, "", s)
		return s
	}
	function flush(   i) {
		for (i = 1; i <= ntag; i++) {
			split(tag[i], w, " ")
			printf "%s\t%s\t%s\n", w[1], tag[i], text
		}
		ntag = 0; text = ""
	}
	/^\.SH / { flush(); incmd = ($0 == ".SH COMMANDS"); next }
	!incmd { next }
	/^\.TP/ { flush(); want = 1; next }
	/^\.TQ/ { want = 1; next }
	want { tag[++ntag] = plain($0); text = text " " tag[ntag]; want = 0; next }
	{ text = text " " plain($0) }
	END { flush() }
	' "$1"
}

# man_problems MANFILE CMD - print one line per thing of CMD (a top-level
# command and, for a group, its commands and their options) that MANFILE
# does not document.
man_problems() {
	sections "$1" > "$TMP/sections"
	if ! cut -f1 "$TMP/sections" | grep -qxF "$2"; then
		echo "frontdesk $2 has no section in $(basename "$1") (a .TP whose tag starts with '$2')"
		return
	fi
	grep -E "^$2( [a-z-]+)?: " "$TMP/table" | while IFS=: read -r name opts; do
		sub=${name#"$2"}; sub=${sub# }
		if [ -n "$sub" ]; then
			# the sections whose tag names the command: split on blanks, | [ ]
			awk -F'\t' -v c="$2" -v s="$sub" '$1 == c {
				n = split($2, w, /[][ |]+/)
				for (i = 2; i <= n; i++) if (w[i] == s) { print $3; break }
			}' "$TMP/sections" > "$TMP/text"
			if [ ! -s "$TMP/text" ]; then
				echo "frontdesk $name is not named in the tag of a '$2' section"
				continue
			fi
		else
			awk -F'\t' -v c="$2" '$1 == c { print $3 }' "$TMP/sections" > "$TMP/text"
		fi
		for opt in $opts; do
			if ! grep -Eq -- "$opt([^a-z0-9-]|\$)" "$TMP/text"; then
				echo "frontdesk $name $opt is not in its section of $(basename "$1")"
			fi
		done
	done
}

# man_check MANFILE CMD - man_problems; exit 1 when it found any.
man_check() {
	man_problems "$1" "$2" > "$TMP/problems"
	cat "$TMP/problems"
	[ ! -s "$TMP/problems" ]
}

# man_check_all MANFILE - man_check for every top-level command.
man_check_all() {
	st=0
	for cmd in $top; do man_check "$1" "$cmd" || st=1; done
	return $st
}

# clean NAME STATUS OUTPUT - passes when the checker found nothing; else
# fails with each line it printed
clean() {
	if [ "$2" -eq 0 ] && [ -z "$3" ]; then
		pass "$1"
	else
		fail "$1" "exit $2"
		printf '%s\n' "$3" | sed 's/^/#   /'
	fi
}

for cmd in $top; do
	out=$(man_check "$MAN" "$cmd"); st=$?
	clean "frontdesk(1) documents $cmd, its commands and options" "$st" "$out"
done

# stale_sections MANFILE - print each COMMANDS tag whose first word is no
# command of the program (a command renamed or removed, a typo)
stale_sections() {
	sections "$1" | cut -f1 | sort -u | while read -r name; do
		printf '%s\n' "$top" | grep -qxF "$name" ||
			echo "$(basename "$1") has a section for '$name', which is no command of frontdesk"
	done
}
out=$(stale_sections "$MAN")
clean "every section under COMMANDS names a command of the program" 0 "$out"
sed 's/^\.B lease list|break$/.B leases list|break/' "$MAN" > "$TMP/stale.1"
out=$(stale_sections "$TMP/stale.1")
like "a section for a command that does not exist is named" "$out" \
	"stale.1 has a section for 'leases', which is no command of frontdesk"

# the global options of `frontdesk --help` (its usage line, and --version)
globals=$( (fd --help | head -n 1 | grep -o -- '--[a-z][a-z-]*'; echo --version) | sort -u)
gtext=$(awk '/^\.SH /{g = ($0 == ".SH GLOBAL OPTIONS"); next} g' "$MAN" | sed 's/\\-/-/g; s/\\f[BIRP]//g')
missing=""
for opt in $globals; do
	printf '%s\n' "$gtext" | grep -Eq -- "^\.B[I]? $opt([^a-z0-9-]|\$)" || missing="$missing $opt"
done
is "every global option has its entry under GLOBAL OPTIONS" "$missing" ""

# Each way of breaking the page is caught, with a message naming what is
# missing.
# 1. a whole section removed: the recon paragraph, up to the next .TP
awk '/^\.SH/ { skip = 0 }
	/^\.TP/ { getline t; skip = (t ~ /^\.B recon /); if (!skip) print $0 "\n" t; next }
	!skip' "$MAN" > "$TMP/no-section.1"
out=$(man_check_all "$TMP/no-section.1"); st=$?
is "a page without the recon section fails" "$st" 1
like "and names the command" "$out" "frontdesk recon has no section in no-section.1"
# 2. a group's command dropped from its tag
sed '/^\.B customer add|/s/|delete//' "$MAN" > "$TMP/no-sub.1"
out=$(man_check_all "$TMP/no-sub.1"); st=$?
is "a page whose customer tag lacks delete fails" "$st" 1
like "and names the command" "$out" "frontdesk customer delete is not named in the tag of a 'customer' section"
# 3. an option deleted from the text
sed 's/\\-\\-force/force/g' "$MAN" > "$TMP/no-opt.1"
out=$(man_check_all "$TMP/no-opt.1"); st=$?
is "a page without backup --force fails" "$st" 1
like "and names the option" "$out" "frontdesk backup --force is not in its section of no-opt.1"
# 4. an option documented only in another command's section does not count:
# pay list's --customer removed from its section (pay record's still has one)
awk '/^\.TP/ { inpay = 0 } /^\.B pay allocate\|/ { inpay = 1 }
	{ if (inpay) gsub(/\\-\\-customer/, "customer"); print }' "$MAN" > "$TMP/other.1"
grep -q '^\.B pay record .*\\-\\-customer' "$TMP/other.1"
is "(pay record's section still names --customer)" "$?" 0
out=$(man_check "$TMP/other.1" pay); st=$?
is "an option written only in another command's section fails" "$st" 1
like "and names it" "$out" "frontdesk pay list --customer is not in its section"
# 5. the real page passes the same checker as a whole
out=$(man_check_all "$MAN"); st=$?
clean "the real page passes the checker the broken copies fail" "$st" "$out"

# The page is well-formed roff: groff (groff-base, in bootstrap's list) has
# no warning about it; a copy with a line that starts with a dot by mistake
# has one.
out=$(groff -man -ww -z "$MAN" 2>&1); st=$?
clean "groff -man -ww renders frontdesk(1) without a warning" "$st" "$out"
sed '0,/^The free starts of each active resource/s//...the free starts/' "$MAN" > "$TMP/dots.1"
out=$(groff -man -ww -z "$TMP/dots.1" 2>&1)
like "and warns about a line starting with a dot" "$out" "warning"

done_testing
