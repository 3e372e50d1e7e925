#!/bin/sh
# backup-esign.sh - the signed estimates' final documents travel with a
# backup: `frontdesk backup` copies those the copy's sign flows name into
# DEST.esign (byte-identical, 0600, checked against their hashes), and
# `frontdesk restore` into a fresh place brings them back, after which
# `frontdesk check` is clean. A tampered or missing document fails the
# backup, naming it, and leaves nothing at the destination; an existing
# DEST.esign is refused without --force and replaced with it. A restore
# whose backup lacks a document is refused and leaves the database alone.
# The estimates are signed against tests/chan/fake-esign.py. Every key here is
# made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/chan/chan-fake.sh"
KEY=esk_made_up_test_key
SECRET=whsec_made_up_esign_secret
FAKE_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

fake_run fake-esign.py 120 --api-key "$KEY" --secret "$SECRET"
ok "the fake e-sign provider started on a random port" test -n "$PORT"
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; printf 'sign1_api_key = %s\nsign1_signing_secret = %s\n' "$KEY" "$SECRET" \
	> "$XDG_CONFIG_HOME/frontdesk/secrets")
fd init >/dev/null
fd customer add --name "Ada Lee" --email ada@example.com >/dev/null
for j in 1 2; do
	fd job add --customer 1 --title "Job $j" >/dev/null
	fd item add --job $j --description "Labour $j" --qty 2 --price 45.00 >/dev/null
done
ok "an e-sign provider in the registry" fd estimate provider-set sign1 --url "$BASE"
relay() {
	ctl "move/$2" "{\"status\": \"$1\"}" > "$TMP/cb.json"
	jget 'd["body"]' < "$TMP/cb.json" | tr -d '\n' > "$TMP/cb.body"
	fd estimate callback --provider sign1 --signature "$(jget 'd["signature"]' < "$TMP/cb.json")" \
		< "$TMP/cb.body" >/dev/null
}
run() { fd estimate run --once >/dev/null; }
for j in 1 2; do
	fd estimate send $j >/dev/null
	run
	relay completed "env_$j"
	run
done
DIR="$TMP/esign"
F1="$DIR/EST-2026-000001-signed.pdf" F2="$DIR/EST-2026-000002-signed.pdf"
ok "two signed documents beside the database" test -s "$F1" -a -s "$F2"
ok "check is clean" fd check

# --- the backup carries them
mkdir "$TMP/bk"
out=$(fd --json backup "$TMP/bk/b.db" 2>&1); st=$?
is "backup exits 0" "$st" 0
is "it names the documents' folder" "$(echo "$out" | jget 'd["signed_documents"]')" "$TMP/bk/b.db.esign"
for f in EST-2026-000001-signed.pdf EST-2026-000002-signed.pdf; do
	ok "$f is in the backup, byte-identical" cmp "$DIR/$f" "$TMP/bk/b.db.esign/$f"
	is "$f is 0600 in the backup" "$(stat -c %a "$TMP/bk/b.db.esign/$f")" 600
done
is "the folder is 0700" "$(stat -c %a "$TMP/bk/b.db.esign")" 700
is "only the documents are in it (no temporary left)" "$(ls -A "$TMP/bk/b.db.esign" | tr '\n' ' ')" \
	"EST-2026-000001-signed.pdf EST-2026-000002-signed.pdf "
is "nothing else beside the backup" "$(ls -A "$TMP/bk" | tr '\n' ' ')" \
	"b-requests.db b.db b.db.esign "
like "the text output says where they went" "$(fd backup --force "$TMP/bk/b.db")" \
	"signed estimates' documents were copied to $TMP/bk/b.db.esign"
refused "a backup over an existing backup without --force" backup "$TMP/bk/b.db"
rm "$TMP/bk/b.db" "$TMP/bk/b-requests.db"
refused "... or over its documents folder alone" backup "$TMP/bk/b.db"
ok "--force replaces it" fd backup --force "$TMP/bk/b.db"
ok "... with the documents in it" cmp "$F1" "$TMP/bk/b.db.esign/EST-2026-000001-signed.pdf"
# a stale file of the old folder goes with it
touch "$TMP/bk/b.db.esign/stale"
fd backup --force "$TMP/bk/b.db" >/dev/null
ok "--force replaces the whole folder" test ! -e "$TMP/bk/b.db.esign/stale"

# --- a restore into a fresh place brings them back
NEW="$TMP/new/shop.db"
out=$(FRONTDESK_DB="$NEW" fd restore "$TMP/bk/b.db" 2>&1); st=$?
is "restore into a fresh place exits 0" "$st" 0
for f in EST-2026-000001-signed.pdf EST-2026-000002-signed.pdf; do
	ok "$f is back, byte-identical" cmp "$DIR/$f" "$TMP/new/esign/$f"
	is "$f is 0600" "$(stat -c %a "$TMP/new/esign/$f")" 600
done
ok "check is clean in the fresh place" env FRONTDESK_DB="$NEW" "$FRONTDESK" check
# over a live database: a document of another number is left alone, a
# changed one of the backup's is put right
echo other > "$TMP/new/esign/EST-2026-000099-signed.pdf"
printf 'tampered' >> "$TMP/new/esign/EST-2026-000001-signed.pdf"
out=$(FRONTDESK_DB="$NEW" fd restore "$TMP/bk/b.db" 2>&1); st=$?
is "restore over it exits 0" "$st" 0
ok "the changed document is the backup's again" cmp "$F1" "$TMP/new/esign/EST-2026-000001-signed.pdf"
is "a file of another number is left alone" "$(cat "$TMP/new/esign/EST-2026-000099-signed.pdf")" other
ok "check is clean after it" env FRONTDESK_DB="$NEW" "$FRONTDESK" check
# a backup missing a document that the live folder does not have either
cp -r "$TMP/bk" "$TMP/bk2"
rm "$TMP/bk2/b.db.esign/EST-2026-000002-signed.pdf"
FRESH="$TMP/fresh/shop.db"
out=$(FRONTDESK_DB="$FRESH" fd restore "$TMP/bk2/b.db" 2>&1); st=$?
is "a restore without one of its documents is refused" "$st" 1
like "... naming it" "$out" "EST-2026-000002-signed.pdf is missing"
ok "... and no database was put in place" test ! -e "$FRESH"

# --- a tampered document fails the backup
cp "$F2" "$TMP/keep.pdf"
printf 'tampered' >> "$F2"
FILES=$(ls -A "$TMP/bk")
out=$(fd backup "$TMP/bk/c.db" 2>&1); st=$?
is "a backup with a tampered document fails" "$st" 1
like "... naming it" "$out" "EST-2026-000002-signed.pdf does not match the SHA-256"
is "... and leaves nothing at the destination" "$(ls -A "$TMP/bk")" "$FILES"
rm "$F2"
out=$(fd backup "$TMP/bk/c.db" 2>&1); st=$?
is "a backup with a missing document fails" "$st" 1
like "... naming it" "$out" "EST-2026-000002-signed.pdf is missing"
is "... and leaves nothing at the destination" "$(ls -A "$TMP/bk")" "$FILES"
out=$(fd backup --force "$TMP/bk/b.db" 2>&1); st=$?
is "a failed --force backup exits 1" "$st" 1
ok "... and the existing backup's documents stay" cmp "$F1" "$TMP/bk/b.db.esign/EST-2026-000001-signed.pdf"
cp "$TMP/keep.pdf" "$F2"
ok "put right, the backup is taken again" fd backup "$TMP/bk/c.db"

done_testing
