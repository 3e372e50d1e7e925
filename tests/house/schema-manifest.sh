#!/bin/sh
# schema-manifest.sh - a landed migration is frozen. data/schema/MANIFEST
# holds one "sha256  NNNN-name.sql" line per migration (sha256sum's format:
# `cd data/schema && sha256sum -c MANIFEST` checks it too). This test fails
# when a listed migration's bytes change, when a migration file is not
# listed, or when a listed one is missing; and when the program does not
# embed exactly the listed migrations. The checker runs on the real folder,
# then on copies broken each way, so that each refusal is seen to work.
. "$TOP_SRCDIR/tests/lib/tap.sh"

SCHEMA="$TOP_SRCDIR/data/schema"

# manifest_check DIR - print one line per problem with DIR/MANIFEST; exit 1
# when there is any.
manifest_check() {
	dir=$1
	bad=0
	if [ ! -f "$dir/MANIFEST" ]; then
		echo "$dir/MANIFEST is missing: it lists every migration's SHA-256 (sha256sum NNNN-name.sql)"
		return 1
	fi
	while read -r sum file rest; do
		if [ -n "$rest" ] || [ -z "$file" ] || ! printf '%s\n' "$sum" | grep -Eqx '[0-9a-f]{64}'; then
			echo "MANIFEST: malformed line '$sum $file $rest': want 'SHA256  NNNN-name.sql'"
			bad=1
		elif [ ! -f "$dir/$file" ]; then
			echo "$file is listed in MANIFEST but missing: a landed migration is never removed; restore it"
			bad=1
		elif [ "$(sha256sum < "$dir/$file" | cut -d' ' -f1)" != "$sum" ]; then
			echo "$file changed after it landed (MANIFEST says $sum): a landed migration is frozen;" \
				"restore it and put the schema change in a new migration"
			bad=1
		fi
	done < "$dir/MANIFEST"
	for f in "$dir"/*.sql; do
		[ -e "$f" ] || continue
		base=$(basename "$f")
		if ! cut -d' ' -f3 "$dir/MANIFEST" | grep -qxF "$base"; then
			echo "$base is not in MANIFEST: when you add a migration, append its line" \
				"(cd data/schema && sha256sum $base >> MANIFEST); never change an existing line"
			bad=1
		fi
	done
	# versions 1..N, each once, in order
	want=1
	for file in $(cut -d' ' -f3 "$dir/MANIFEST"); do
		num=$(printf '%s\n' "$file" | sed -n 's/^\([0-9][0-9][0-9][0-9]\)-[a-z0-9-]*\.sql$/\1/p')
		if [ -z "$num" ] || [ "$(expr "$num" + 0)" -ne "$want" ]; then
			echo "MANIFEST: $file is not migration $want: migrations are numbered 0001, 0002, ... in order, each once"
			bad=1
			break
		fi
		want=$((want + 1))
	done
	return $bad
}

out=$(manifest_check "$SCHEMA"); st=$?
is "every migration is listed in MANIFEST and unchanged" "$st:$out" "0:"
# the head office's own migrations (data/hq, PostgreSQL) are frozen the same way
out=$(manifest_check "$TOP_SRCDIR/data/hq"); st=$?
is "every head office migration is listed in data/hq/MANIFEST and unchanged" "$st:$out" "0:"

# The program embeds exactly the listed migrations, with the same checksums
# (a file missing from Makefile.am's MIGRATIONS would not be embedded).
fd init >/dev/null
is "the program's migrations are the manifest's" \
	"$(sqlite3 "$FRONTDESK_DB" "SELECT checksum || '  ' || printf('%04d', version) FROM schema_migration ORDER BY version")" \
	"$(sed 's/^\([0-9a-f]*\)  \([0-9]*\)-.*/\1  \2/' "$SCHEMA/MANIFEST")"

# Each way of breaking the rule is caught, with a message that says what to do.
copy() { # the listed migrations and MANIFEST, whatever else the folder holds
	rm -rf "$TMP/s"
	mkdir "$TMP/s"
	cp "$SCHEMA/MANIFEST" "$TMP/s/"
	for f in $(cut -d' ' -f3 "$SCHEMA/MANIFEST"); do
		cp "$SCHEMA/$f" "$TMP/s/" 2>/dev/null
	done
}
first=$(head -n 1 "$SCHEMA/MANIFEST" | cut -d' ' -f3)
last=$(tail -n 1 "$SCHEMA/MANIFEST" | cut -d' ' -f3)

copy
printf -- '-- an innocent comment\n' >> "$TMP/s/$first"
out=$(manifest_check "$TMP/s"); st=$?
is "an edited migration fails the check" "$st" 1
like "it names the file and says it is frozen" "$out" "$first changed after it landed"
like "it says to make a new migration" "$out" "new migration"

copy
n=$(($(wc -l < "$SCHEMA/MANIFEST") + 1))
new=$(printf '%04d-something-new.sql' "$n")
printf 'CREATE TABLE t (x);\n' > "$TMP/s/$new"
out=$(manifest_check "$TMP/s"); st=$?
is "an unlisted migration fails the check" "$st" 1
like "it says to append the new migration's line" "$out" "$new is not in MANIFEST: when you add a migration, append its line"
like "it says never to change an existing line" "$out" "never change an existing line"
(cd "$TMP/s" && sha256sum "$new" >> MANIFEST)
out=$(manifest_check "$TMP/s"); st=$?
is "once its line is appended, the check passes" "$st:$out" "0:"

copy
rm "$TMP/s/$last"
out=$(manifest_check "$TMP/s"); st=$?
is "a missing migration fails the check" "$st" 1
like "it names the missing file" "$out" "$last is listed in MANIFEST but missing"

copy
sed -i "1s/^\(.\)/\1\1/" "$TMP/s/MANIFEST"
out=$(manifest_check "$TMP/s"); st=$?
is "a changed MANIFEST line fails the check" "$st" 1

copy
sed -i '1d' "$TMP/s/MANIFEST"
out=$(manifest_check "$TMP/s"); st=$?
is "a removed MANIFEST line fails the check" "$st" 1
like "it names the file no longer listed" "$out" "$first is not in MANIFEST"

copy
rm "$TMP/s/MANIFEST"
out=$(manifest_check "$TMP/s"); st=$?
is "no MANIFEST fails the check" "$st" 1

done_testing
