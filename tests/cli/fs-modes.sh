#!/bin/sh
# fs-modes.sh - the modes of what frontdesk creates (fsmode.h): private by
# default (folders 0700, files 0600); in a setgid folder shared with its
# group (2770 makes files 0660 and folders 2770; 2750 makes files 0640),
# for the database, its -wal and -shm, the request log, backups, replaced
# databases and the nightly folder, whatever the creator's umask.
. "$TOP_SRCDIR/tests/lib/tap.sh"
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY
SERVE=
cleanup() {
	[ -n "$SERVE" ] && kill "$SERVE" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
umask 022 # a staff shell's usual umask: it must not narrow the group's bits
mode() { stat -c %a "$1"; }
group() { stat -c %G "$1"; }
# with_session DB: run serve on DB until its -wal and -shm exist, then call
# the rest of the arguments, then stop it
with_session() {
	d=$1; shift
	"$FRONTDESK" --db "$d" serve --no-channel --quiet 2>/dev/null &
	SERVE=$!
	until_ok 20 test -e "$d-shm" -a -e "$d-wal"
	"$@"
	kill "$SERVE"; wait "$SERVE" 2>/dev/null; SERVE=
}
GROUP=$(id -gn)

# --- private (no setgid anywhere): as before
fd --db "$TMP/priv/shop/p.db" init >/dev/null
is "a new folder is private" "$(mode "$TMP/priv/shop")" 700
is "a new database is private" "$(mode "$TMP/priv/shop/p.db")" 600
wal_shm() { echo "$(mode "$1-wal") $(mode "$1-shm")"; }
check_private() { is "its -wal and -shm are private" "$(wal_shm "$TMP/priv/shop/p.db")" "600 600"; }
with_session "$TMP/priv/shop/p.db" check_private
ok "a backup in a private folder" fd --db "$TMP/priv/shop/p.db" backup "$TMP/priv/b.db"
is "is private" "$(mode "$TMP/priv/b.db")" 600

# --- shared: the folder is setgid and group-writable
mkdir "$TMP/shop"
chgrp "$GROUP" "$TMP/shop"
chmod 2770 "$TMP/shop"
DB="$TMP/shop/shop.db"
export FRONTDESK_DB="$DB"
fd init >/dev/null
is "the database in a setgid folder is shared with the group" "$(mode "$DB")" 660
is "and has the folder's group" "$(group "$DB")" "$GROUP"
fd customer add --name "Ada Lee" >/dev/null
check_shared() { is "its -wal and -shm are shared alike" "$(wal_shm "$DB")" "660 660"; }
with_session "$DB" check_shared

# the request log, made by the channel (a provider that does not answer)
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
(umask 077; echo "stripe_api_key = sk_test_made_up_modes" > "$XDG_CONFIG_HOME/frontdesk/secrets")
fd channel provider-set stripe --url http://127.0.0.1:9 >/dev/null
fd channel poll --once >/dev/null 2>&1
is "the request log is shared alike" "$(mode "$TMP/shop/shop-requests.db")" 660

# a sub-folder made for a database below the shared folder
fd --db "$TMP/shop/branch/b.db" init >/dev/null
is "a folder made in a setgid folder is setgid and shared" "$(mode "$TMP/shop/branch")" 2770
is "its database is shared" "$(mode "$TMP/shop/branch/b.db")" 660

# backups, the request log's copy and the replaced database
ok "a backup into the shared folder" fd backup "$TMP/shop/copy.db"
is "the backup is shared" "$(mode "$TMP/shop/copy.db")" 660
is "the log's copy is shared" "$(mode "$TMP/shop/copy-requests.db")" 660
ok "a restore in the shared folder" fd restore "$TMP/shop/copy.db"
is "the replaced database is shared" "$(mode "$(ls "$DB".replaced-*)")" 660
is "the restored database keeps its mode" "$(mode "$DB")" 660
echo "backup_dir = $TMP/shop/nightly" >> "$XDG_CONFIG_HOME/frontdesk/config"
fd serve --no-channel --for 2 2>"$TMP/serve.err"
is "the nightly folder made in the shared folder is shared" "$(mode "$TMP/shop/nightly")" 2770
is "and so is the nightly backup" "$(mode "$(ls "$TMP"/shop/nightly/frontdesk-*T*[0-9].db)")" 660

# a setgid folder without group write: the group reads only
mkdir "$TMP/ro"
chmod 2750 "$TMP/ro"
fd --db "$TMP/ro/r.db" init >/dev/null
is "a 2750 folder gives files 0640" "$(mode "$TMP/ro/r.db")" 640

done_testing
