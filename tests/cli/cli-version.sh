#!/bin/sh
# cli-version.sh - `frontdesk --version` tells builds apart: the program's
# version, the schema version it knows (the one a new database reports) and
# the git commit of the checkout it was built from; and data/git-version.sh,
# which makes the commit header, follows HEAD, rewrites the header only when
# it changes, and leaves the commit out of an export or where git is missing.
. "$TOP_SRCDIR/tests/lib/tap.sh"
jget() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

fd init >/dev/null
schema=$(sqlite3 "$FRONTDESK_DB" 'SELECT max(version) FROM schema_migration')
line=$(fd --version)
like "the version line names the program" "$line" "frontdesk "
is "the version line has the schema version a new database reports" \
	"$(printf '%s\n' "$line" | sed -n 's/^frontdesk [^ ]* (schema \([0-9]*\)[,)].*/\1/p')" "$schema"
is "the database's user_version agrees" "$(sqlite3 "$FRONTDESK_DB" 'PRAGMA user_version')" "$schema"
is "-V is --version" "$(fd -V)" "$line"
is "--json --version: the schema version" "$(fd --json --version | jget 'd["schema_version"]')" "$schema"
is "--version --json: the same document" "$(fd --version --json)" "$(fd --json --version)"
version=$(fd --json --version | jget 'd["version"]')
like "the JSON version is the line's" "$line" "frontdesk $version ("
fd --version --no-such-option >/dev/null 2>&1; is "--version with an unknown option is bad usage" "$?" 2

# Built from its own git checkout: the commit is HEAD's. Otherwise (a
# release tarball unpacked inside another checkout, an export) there is none.
own=
if top=$(git -C "$TOP_SRCDIR" rev-parse --show-toplevel 2>/dev/null) &&
	[ "$(cd "$top" && pwd -P)" = "$(cd "$TOP_SRCDIR" && pwd -P)" ]; then
	own=$(git -C "$TOP_SRCDIR" rev-parse --short HEAD)
fi
if [ -n "$own" ]; then
	like "the version line has the commit of HEAD" "$line" "git $own)"
	is "--json: the commit of HEAD" "$(fd --json --version | jget 'd["git_commit"]')" "$own"
else
	case $line in
	*git*) fail "not built from a checkout: no commit in the version line" "got: $line" ;;
	*) pass "not built from a checkout: no commit in the version line" ;;
	esac
	is "--json: no commit" "$(fd --json --version | jget 'd["git_commit"]')" None
fi

# --- data/git-version.sh on a repository of its own ---------------------------
GV="$TOP_SRCDIR/data/git-version.sh"
commit_of() { sed -n 's/^#define FD_GIT_COMMIT "\(.*\)"$/\1/p' "$1"; }
g() { git -C "$TMP/repo" -c user.name=Test -c user.email=test@example.invalid "$@"; }
mkdir "$TMP/repo" "$TMP/repo/sub"
g init -q
echo one > "$TMP/repo/sub/file"
g add sub/file && g commit -q -m one
sh "$GV" "$TMP/repo" "$TMP/h1"
is "the header holds HEAD's short commit" "$(commit_of "$TMP/h1")" "$(g rev-parse --short HEAD)"
touch -d '2000-01-01 00:00' "$TMP/h1"
sh "$GV" "$TMP/repo" "$TMP/h1"
is "the same HEAD: the header is not rewritten (make rebuilds nothing)" "$(stat -c %Y "$TMP/h1")" \
	"$(touch -d '2000-01-01 00:00' "$TMP/stamp" && stat -c %Y "$TMP/stamp")"
echo two > "$TMP/repo/sub/file"
g commit -q -a -m two
sh "$GV" "$TMP/repo" "$TMP/h1"
is "a new HEAD: the header follows it" "$(commit_of "$TMP/h1")" "$(g rev-parse --short HEAD)"
mkdir "$TMP/export"
g archive HEAD | tar -x -C "$TMP/export"
sh "$GV" "$TMP/export" "$TMP/h2"
ok "a git archive export: the header is made" test -f "$TMP/h2"
is "a git archive export: no commit" "$(commit_of "$TMP/h2")" ""
sh "$GV" "$TMP/repo/sub" "$TMP/h3"
is "a folder inside another checkout: not its commit" "$(commit_of "$TMP/h3")" ""
GIT=/nonexistent/git sh "$GV" "$TMP/repo" "$TMP/h4"
is "no git installed: no commit, and no failure" "$?:$(commit_of "$TMP/h4")" "0:"

done_testing
