#!/bin/sh
# schema-frozen.sh - a landed migration is never edited, read from git.
# data/schema/MANIFEST is kept by the same hands that edit a migration, so it
# cannot stop an edit by itself; main's history can. For every file under
# data/schema/ (migrations and all), every form it had at a commit of main
# (first parents only: an edit made on a side branch before its merge never
# landed) must be its form today, or a past edit listed in
# data/schema/EARLIER-FORMS with the migration that repairs it and the
# fixture made by that form's program (or "-" and why none). A new edit fails
# with "add a migration instead". The checker runs on this repository, then
# on small repositories made here, so that each refusal is seen to work.
# Without git history (a tarball, `git archive`, a shallow clone) that case
# says so and skips; the cases on the small repositories still run.
. "$TOP_SRCDIR/tests/lib/tap.sh"

# listed FILE VERSION SUM - SUM is an earlier form of VERSION in FILE
# (data/schema/EARLIER-FORMS)
listed() {
	[ -f "$1" ] && awk -v v="$(expr "$2" + 0)" -v s="$3" \
		'$1 !~ /^#/ && $1 == v && $2 == s { found = 1 } END { exit !found }' "$1"
}

# frozen_check REPO - one line per problem with REPO's data/schema; exit 1
# when there is any. REPO's HEAD is the main being checked; its work tree is
# the form today.
frozen_check() {
	repo=$1
	earlier=$repo/data/schema/EARLIER-FORMS
	bad=0
	for f in "$repo"/data/schema/*; do
		[ -f "$f" ] || continue
		base=$(basename "$f")
		path=data/schema/$base
		today=$(sha256sum < "$f" | cut -d' ' -f1)
		version=$(printf '%s\n' "$base" | sed -n 's/^\([0-9][0-9][0-9][0-9]\)-.*\.sql$/\1/p')
		for c in $(git -C "$repo" log --first-parent --format=%H HEAD -- "$path"); do
			sum=$(git -C "$repo" show "$c:$path" 2>/dev/null | sha256sum | cut -d' ' -f1)
			git -C "$repo" cat-file -e "$c:$path" 2>/dev/null || continue # removed there
			[ "$sum" = "$today" ] && continue
			if [ -z "$version" ]; then
				# MANIFEST, EARLIER-FORMS: lines are appended, never changed;
				# a MANIFEST line may name a listed earlier form
				gone=$(git -C "$repo" show "$c:$path" | grep -Fxv -f "$f" |
					while read -r lsum lfile; do
						lv=$(printf '%s\n' "$lfile" | sed -n 's/^\([0-9][0-9][0-9][0-9]\)-.*\.sql$/\1/p')
						[ -n "$lv" ] && listed "$earlier" "$lv" "$lsum" && continue
						printf '%s %s\n' "$lsum" "$lfile"
					done)
				[ -z "$gone" ] && continue
				echo "$path is append-only, but a line it had at $(git -C "$repo" rev-parse --short "$c")" \
					"is gone ($gone): append lines, never change one"
				bad=1
				break
			fi
			listed "$earlier" "$version" "$sum" && continue
			short=$(git -C "$repo" rev-parse --short "$c")
			echo "$path differs from its form at $short, which landed on main: a landed" \
				"migration is frozen; restore it (git show $short:$path > $path) and add a migration instead"
			bad=1
			break
		done
	done
	# every listed form is real and names a repair that exists, with its fixture
	if [ -f "$earlier" ]; then
		while read -r v sum commit repair fixture why; do
			case $v in '#'* | '') continue ;; esac
			file=$(cd "$repo/data/schema" && ls "$(printf '%04d' "$v")"-*.sql 2>/dev/null | head -n 1)
			if [ -z "$file" ] ||
				[ "$(git -C "$repo" show "$commit:data/schema/$file" 2>/dev/null | sha256sum | cut -d' ' -f1)" != "$sum" ]; then
				echo "EARLIER-FORMS: migration $v at $commit does not have checksum $sum: list only forms that landed"
				bad=1
			fi
			if [ "$repair" != "-" ]; then
				if ! ls "$repo/data/schema/$(printf '%04d' "$repair")"-*.sql >/dev/null 2>&1 ||
					[ "$repair" -le "$v" ]; then
					echo "EARLIER-FORMS: the form of $v at $commit names repair migration $repair, which does not exist after it"
					bad=1
				fi
				if [ ! -f "$repo/$fixture" ]; then
					echo "EARLIER-FORMS: the form of $v at $commit names fixture $fixture, which is missing"
					bad=1
				fi
			elif [ -z "$why" ] || [ "$fixture" != "-" ]; then
				echo "EARLIER-FORMS: the form of $v at $commit has no repair: say why, with '-' for its fixture"
				bad=1
			fi
		done < "$earlier"
	fi
	return $bad
}

if ! git -C "$TOP_SRCDIR" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	pass "main's history # SKIP no git history here (a tarball or git archive): the freeze is checked in a clone"
elif [ "$(git -C "$TOP_SRCDIR" rev-parse --is-shallow-repository)" = true ]; then
	pass "main's history # SKIP this clone is shallow: the freeze needs the whole history (git fetch --unshallow)"
else
	out=$(frozen_check "$TOP_SRCDIR"); st=$?
	is "every landed migration is as it landed, or a listed earlier form" "$st:$out" "0:"
fi

# --- a repository of our own: each way of breaking the rule is seen ---------
r=$TMP/repo
git init -q -b main "$r"
git -C "$r" config user.email t@example.invalid
git -C "$r" config user.name test
mkdir -p "$r/data/schema"
commit() { git -C "$r" add -A && git -C "$r" commit -q -m "$1"; }
printf 'CREATE TABLE a (x);\n' > "$r/data/schema/0001-a.sql"
commit "0001"
out=$(frozen_check "$r"); st=$?
is "a landed migration as it landed passes" "$st:$out" "0:"

printf -- '-- an innocent comment\n' >> "$r/data/schema/0001-a.sql"
out=$(frozen_check "$r"); st=$?
is "an edit not yet committed fails" "$st" 1
like "it says to add a migration instead" "$out" "add a migration instead"
like "it names the file" "$out" "data/schema/0001-a.sql differs from its form at"
commit "edit 0001"
out=$(frozen_check "$r"); st=$?
is "a committed edit fails too" "$st" 1

first=$(git -C "$r" rev-list --max-parents=0 HEAD | cut -c1-7)
sum=$(git -C "$r" show "$first:data/schema/0001-a.sql" | sha256sum | cut -d' ' -f1)
printf '1 %s %s - - a test edit, never released\n' "$sum" "$first" > "$r/data/schema/EARLIER-FORMS"
commit "list it"
out=$(frozen_check "$r"); st=$?
is "listed as an earlier form, the edit passes" "$st:$out" "0:"

printf '1 %s %s 2 tests/fixtures/none.sql a repair\n' "$sum" "$first" > "$r/data/schema/EARLIER-FORMS"
out=$(frozen_check "$r"); st=$?
is "a listed repair that does not exist fails" "$st" 1
like "it names the missing repair" "$out" "names repair migration 2, which does not exist"
like "and the missing fixture" "$out" "fixture tests/fixtures/none.sql, which is missing"

printf '1 %s %s - - made up\n' "$(printf x | sha256sum | cut -d' ' -f1)" "$first" > "$r/data/schema/EARLIER-FORMS"
out=$(frozen_check "$r"); st=$?
is "a listed form that never existed fails" "$st" 1
like "it says to list only forms that landed" "$out" "list only forms that landed"

# an edit made on a side branch before its merge never landed
r=$TMP/repo2
git init -q -b main "$r"
git -C "$r" config user.email t@example.invalid
git -C "$r" config user.name test
mkdir -p "$r/data/schema"
printf 'CREATE TABLE a (x);\n' > "$r/data/schema/0001-a.sql"
commit "0001"
git -C "$r" checkout -q -b side
printf 'CREATE TABLE b (y);\n' > "$r/data/schema/0002-b.sql"
commit "0002 on a side branch"
printf 'CREATE TABLE b (y, z);\n' > "$r/data/schema/0002-b.sql"
commit "0002 edited before the merge"
git -C "$r" checkout -q main
git -C "$r" merge -q --no-ff -m "merge side" side
out=$(frozen_check "$r"); st=$?
is "an edit on a side branch before its merge is not a landed form" "$st:$out" "0:"
printf 'CREATE TABLE b (y, z, w);\n' > "$r/data/schema/0002-b.sql"
commit "0002 edited after the merge"
out=$(frozen_check "$r"); st=$?
is "an edit after the merge is" "$st" 1

git -C "$r" reset -q --hard HEAD~1
printf 'one\n' > "$r/data/schema/MANIFEST"
commit "a manifest"
printf 'one\ntwo\n' > "$r/data/schema/MANIFEST"
commit "a line appended"
out=$(frozen_check "$r"); st=$?
is "a line appended to MANIFEST passes" "$st:$out" "0:"
printf 'uno\ntwo\n' > "$r/data/schema/MANIFEST"
out=$(frozen_check "$r"); st=$?
is "a changed MANIFEST line fails" "$st" 1
like "it says to append, never change" "$out" "append lines, never change one"
done_testing
