#!/bin/sh
# backup-media.sh - the condition reports' media travel with a backup as
# the signed documents do: `frontdesk backup` copies those the copy's media
# rows name, and the final reports' documents, into DEST.media (byte-identical, 0600, checked against their
# hashes), and `frontdesk restore` into a fresh place brings them back,
# after which `frontdesk check` is clean. A changed or missing medium fails
# the backup, naming it, and leaves nothing at the destination; an existing
# DEST.media is refused without --force and replaced with it. A restore
# whose backup lacks a medium is refused and puts no database in place.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/png.sh"
jget() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
fd book --customer 1 --start "2026-12-01 10:00" --length 1:00 >/dev/null
fd condition add --visit 1 >/dev/null
png "$TMP/a.png" 16 9 10 80 80
png "$TMP/b.png" 16 9 200 80 80
fd condition media add 1 "$TMP/a.png" >/dev/null
fd condition media add 1 "$TMP/b.png" >/dev/null
DIR="$TMP/media"
M1=$(sqlite3 "$FRONTDESK_DB" "SELECT local_path FROM media_item WHERE id = 1")
M2=$(sqlite3 "$FRONTDESK_DB" "SELECT local_path FROM media_item WHERE id = 2")
ok "two media beside the database" test -s "$DIR/$M1" -a -s "$DIR/$M2"
fd condition finalize 1 >/dev/null
D1=$(sqlite3 "$FRONTDESK_DB" "SELECT document_path FROM condition_report WHERE id = 1")
ok "... and the final report's document" test -s "$DIR/$D1"
ok "check is clean" fd check

# --- the backup carries them
mkdir "$TMP/bk"
out=$(fd --json backup "$TMP/bk/b.db" 2>&1); st=$?
is "backup exits 0" "$st" 0
is "it names the media folder" "$(echo "$out" | jget 'd["media"]')" "$TMP/bk/b.db.media"
is "... and no signed documents" "$(echo "$out" | jget 'd["signed_documents"]')" None
for f in "$M1" "$M2" "$D1"; do
	ok "$f is in the backup, byte-identical" cmp "$DIR/$f" "$TMP/bk/b.db.media/$f"
	is "$f is 0600 in the backup" "$(stat -c %a "$TMP/bk/b.db.media/$f")" 600
done
is "the folder is 0700" "$(stat -c %a "$TMP/bk/b.db.media")" 700
is "only the media are in it (no temporary left)" "$(ls -A "$TMP/bk/b.db.media" | sort | tr '\n' ' ')" \
	"$(printf '%s\n%s\n%s\n' "$M1" "$M2" "$D1" | sort | tr '\n' ' ')"
is "nothing else beside the backup" "$(ls -A "$TMP/bk" | tr '\n' ' ')" "b.db b.db.media "
like "the text output says where they went" "$(fd backup --force "$TMP/bk/b.db")" \
	"condition reports' media were copied to $TMP/bk/b.db.media"
refused "a backup over an existing backup without --force" backup "$TMP/bk/b.db"
rm "$TMP/bk/b.db"
refused "... or over its media folder alone" backup "$TMP/bk/b.db"
touch "$TMP/bk/b.db.media/stale"
ok "--force replaces it" fd backup --force "$TMP/bk/b.db"
ok "... the whole folder" test ! -e "$TMP/bk/b.db.media/stale"
ok "... with the media in it" cmp "$DIR/$M1" "$TMP/bk/b.db.media/$M1"

# --- a restore into a fresh place brings them back
NEW="$TMP/new/shop.db"
out=$(FRONTDESK_DB="$NEW" fd restore "$TMP/bk/b.db" 2>&1); st=$?
is "restore into a fresh place exits 0" "$st" 0
for f in "$M1" "$M2" "$D1"; do
	ok "$f is back, byte-identical" cmp "$DIR/$f" "$TMP/new/media/$f"
	is "$f is 0600" "$(stat -c %a "$TMP/new/media/$f")" 600
done
ok "check is clean in the fresh place" env FRONTDESK_DB="$NEW" "$FRONTDESK" check
# over a live database: a file the backup does not name is left alone, a
# changed one of the backup's is put right
echo other > "$TMP/new/media/R9-other.png"
printf 'changed' >> "$TMP/new/media/$M1"
out=$(FRONTDESK_DB="$NEW" fd restore "$TMP/bk/b.db" 2>&1); st=$?
is "restore over it exits 0" "$st" 0
ok "the changed medium is the backup's again" cmp "$DIR/$M1" "$TMP/new/media/$M1"
is "a file the backup does not name is left alone" "$(cat "$TMP/new/media/R9-other.png")" other
ok "check is clean after it" env FRONTDESK_DB="$NEW" "$FRONTDESK" check
cp -r "$TMP/bk" "$TMP/bk2"
rm "$TMP/bk2/b.db.media/$M2"
FRESH="$TMP/fresh/shop.db"
out=$(FRONTDESK_DB="$FRESH" fd restore "$TMP/bk2/b.db" 2>&1); st=$?
is "a restore without one of its media is refused" "$st" 1
like "... naming it" "$out" "medium $TMP/bk2/b.db.media/$M2 is missing"
ok "... and no database was put in place" test ! -e "$FRESH"

# --- a changed or missing medium fails the backup
cp "$DIR/$M2" "$TMP/keep.png"
printf 'changed' >> "$DIR/$M2"
FILES=$(ls -A "$TMP/bk")
out=$(fd backup "$TMP/bk/c.db" 2>&1); st=$?
is "a backup with a changed medium fails" "$st" 1
like "... naming it" "$out" "$M2 does not match the SHA-256"
is "... and leaves nothing at the destination" "$(ls -A "$TMP/bk")" "$FILES"
rm "$DIR/$M2"
out=$(fd backup "$TMP/bk/c.db" 2>&1); st=$?
is "a backup with a missing medium fails" "$st" 1
like "... naming it" "$out" "$M2 is missing"
is "... and leaves nothing at the destination" "$(ls -A "$TMP/bk")" "$FILES"
out=$(fd backup --force "$TMP/bk/b.db" 2>&1); st=$?
is "a failed --force backup exits 1" "$st" 1
ok "... and the existing backup's media stay" cmp "$DIR/$M1" "$TMP/bk/b.db.media/$M1"
cp "$TMP/keep.png" "$DIR/$M2"
ok "put right, the backup is taken again" fd backup "$TMP/bk/c.db"
ok "... with its media" cmp "$DIR/$M2" "$TMP/bk/c.db.media/$M2"

done_testing
