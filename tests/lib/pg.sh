# pg.sh - a PostgreSQL server of the test's own, sourced after tap.sh:
# pg_start makes a cluster with initdb in a new folder, as an unprivileged
# user (postgres when the test runs as root: the server refuses to run as
# root), listening on 127.0.0.1 on a free port and on a socket in that
# folder only, and starts it; PGURL is then its address (database
# postgres, superuser fd, no password: trust on loopback). pg_kill stops
# it at once (SIGKILL), pg_restart starts it again on the same port and
# data, pg_stop stops it and removes the folder (the test's EXIT trap must
# call it). pg_sql SQL runs SQL with psql and prints the rows, fields
# separated by '|'.
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
PGDIR=
PGPORT=
PGURL=

# pg_as CMD...: CMD as the server's user
pg_as() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

pg_free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

pg_start() {
	[ -x "$PGBIN/initdb" ] || { echo "pg.sh: no PostgreSQL server (apt-get install postgresql)" >&2; return 1; }
	PGDIR=$(mktemp -d /tmp/fdpg.XXXXXX)
	[ "$(id -u)" -eq 0 ] && chown postgres "$PGDIR"
	pg_as "$PGBIN/initdb" -D "$PGDIR/data" -U fd --auth=trust --no-sync -E UTF8 --locale=C.UTF-8 \
		> "$PGDIR/initdb.log" 2>&1 || { cat "$PGDIR/initdb.log" >&2; return 1; }
	PGPORT=$(pg_free_port)
	pg_restart
}

pg_restart() {
	tries=0
	until pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -t 60 start \
		-o "-p $PGPORT -k $PGDIR -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off" \
		> /dev/null 2>&1; do
		tries=$((tries + 1))
		[ "$tries" -lt 3 ] || { tail -5 "$PGDIR/server.log" >&2; return 1; }
		grep -q "could not bind" "$PGDIR/server.log" && PGPORT=$(pg_free_port)
	done
	PGURL="postgresql://fd@127.0.0.1:$PGPORT/postgres"
}

pg_kill() {
	pid=$(head -1 "$PGDIR/data/postmaster.pid" 2>/dev/null)
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	# the server's children go with it; wait until the port is free
	n=0
	while [ "$n" -lt 100 ] && pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" status > /dev/null 2>&1; do
		sleep 0.1
		n=$((n + 1))
	done
	sleep 0.2
}

pg_stop() {
	[ -n "$PGDIR" ] || return 0
	pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate -w stop > /dev/null 2>&1
	rm -rf "$PGDIR"
	PGDIR=
}

pg_sql() {
	"$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$PGURL" -c "$1"
}
