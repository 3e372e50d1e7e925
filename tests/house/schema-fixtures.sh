#!/bin/sh
# schema-fixtures.sh - databases made by earlier versions survive this one.
# tests/fixtures/schema-NNNN.sql is a database dumped by the program that
# brought schema version NNNN (tests/fixtures/make-fixture.sh, run by hand
# when a migration is added). Each is loaded with sqlite3, its row counts and
# money figures read, then it is opened with this program, which migrates
# it; `frontdesk check` must be clean and every count and figure the same as
# before. Also: there is a fixture for every schema version from 6 on, each
# one is distributed, and make-fixture.sh still works with this program.
. "$TOP_SRCDIR/tests/lib/tap.sh"
FIX="$TOP_SRCDIR/tests/fixtures"
FIRST=6 # the first schema version that has a fixture
jget() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
fd --db "$TMP/probe.db" init >/dev/null
latest=$(fd --db "$TMP/probe.db" --json migrate --status | jget 'd["latest_known"]')
fd --db "$TMP/fresh.db" init >/dev/null
schema() { sqlite3 "$1" "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name"; }

# counts DB TABLE... - the row count of each table, "TABLE N" a line (one
# sqlite3 for them all; a table that is gone prints sqlite3's error there)
counts() {
	db=$1
	shift
	for t in "$@"; do
		printf "SELECT '%s ' || count(*) FROM \"%s\";\n" "$t" "$t"
	done | sqlite3 "$db" 2>&1
}
# money DB - the money figures: sums per currency (and kind or status), then
# every row's amounts. A migration that renames one of these columns changes
# this query to read the old name before and the new one after.
money() {
	sqlite3 "$1" 2>&1 <<'EOF'
SELECT 'invoices', kind, currency, count(*), sum(total), sum(credited), sum(paid), sum(balance)
  FROM invoice GROUP BY kind, currency ORDER BY kind, currency;
SELECT 'invoice status', status, currency, count(*), sum(balance)
  FROM invoice GROUP BY status, currency ORDER BY status, currency;
SELECT 'invoice lines', i.currency, count(*), sum(l.amount)
  FROM invoice_line l JOIN invoice i ON i.id = l.invoice_id GROUP BY i.currency ORDER BY i.currency;
SELECT 'payments', currency, status, count(*), sum(amount), sum(allocated), sum(refunded)
  FROM payment GROUP BY currency, status ORDER BY currency, status;
SELECT 'allocations', p.currency, a.reverses_id IS NOT NULL, count(*), sum(a.amount)
  FROM payment_allocation a JOIN payment p ON p.id = a.payment_id
  GROUP BY 2, 3 ORDER BY 2, 3;
SELECT 'refunds', p.currency, r.status, count(*), sum(r.amount)
  FROM refund r JOIN payment p ON p.id = r.payment_id GROUP BY 2, 3 ORDER BY 2, 3;
SELECT 'card orders', currency, status, count(*), sum(amount), sum(refunded_amount)
  FROM pay_order GROUP BY currency, status ORDER BY currency, status;
SELECT 'invoice', id, number, currency, total, credited, paid, balance, status FROM invoice ORDER BY id;
SELECT 'payment', id, currency, amount, allocated, refunded, status FROM payment ORDER BY id;
SELECT 'allocation', id, payment_id, invoice_id, amount, reverses_id FROM payment_allocation ORDER BY id;
SELECT 'refund', id, payment_id, amount, status FROM refund ORDER BY id;
EOF
}
# same NAME BEFORE AFTER - pass when equal, else show the lines that differ
same() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		printf '%s\n' "$2" > "$TMP/before"
		printf '%s\n' "$3" > "$TMP/after"
		fail "$1" "before (<) and after (>):" "$(diff "$TMP/before" "$TMP/after" | head -n 20)"
	fi
}
# every table but the three that migrations themselves add rows to:
# schema_migration (a row per migration applied), status_transition (a
# migration may allow a new move; the old ones must all stay, checked below)
# and the task queue (a migration may queue the first build of a new read
# model, as 0020 does for the customer lifecycle; the tasks already there
# must all stay, checked below; called job before migration 0022)
tables() {
	sqlite3 "$1" "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
		AND name <> 'schema_migration' AND name <> 'status_transition' AND name NOT IN ('job', 'task')
		ORDER BY name"
}
tasks_of() {
	t=$(sqlite3 "$1" "SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('job', 'task')")
	sqlite3 "$1" "SELECT id, kind, key, status FROM ${t:-task} WHERE kind <> 'lifecycle' ORDER BY id" 2>/dev/null
}
transitions() { sqlite3 "$1" 'SELECT entity, from_status, to_status FROM status_transition ORDER BY 1, 2, 3'; }
migrations() { sqlite3 "$1" 'SELECT version, name, checksum, applied_at FROM schema_migration ORDER BY version'; }

# --- a fixture for every schema version from FIRST on ------------------------
v=$FIRST
while [ "$v" -le "$latest" ]; do
	f=$(printf 'schema-%04d.sql' "$v")
	if [ -f "$FIX/$f" ]; then
		pass "schema version $v has its fixture $f"
	else
		fail "schema version $v has its fixture" "tests/fixtures/$f is missing: whoever adds migration $v" \
			"runs tests/fixtures/make-fixture.sh with the program that brings it, once"
	fi
	v=$((v + 1))
done

# The sanitizer build migrates a third of the fixtures (every third
# version, the first, the two newest and every earlier form): migrating is
# the same SQL in every build, and the plain build migrates them all.
# FD_STRESS=1 migrates them all there too.
thin=0
if sanitized && [ -z "${FD_STRESS:-}" ]; then thin=1; fi
n=0
for dump in "$FIX"/schema-*.sql; do
	[ -f "$dump" ] || continue
	n=$((n + 1))
	fx=$(basename "$dump" .sql) # not $name: tap.sh's helpers use it
	# schema-NNNN.sql, or schema-NNNN-COMMIT.sql: a database made by a build
	# whose migration NNNN had an earlier form (data/schema/EARLIER-FORMS)
	num=$(printf '%s\n' "${fx#schema-}" | cut -c1-4)
	want=$(expr "$num" + 0)
	form=${fx#schema-"$num"}
	form=${form#-}
	if [ "$thin" = 1 ] && [ -z "$form" ] && [ "$want" -ne "$FIRST" ] &&
		[ "$want" -lt $((latest - 1)) ] && [ $((want % 3)) -ne 0 ]; then
		continue
	fi
	grep -q "tests/fixtures/$fx.sql" "$TOP_SRCDIR/Makefile.am"
	is "$fx: listed in Makefile.am, so that it is distributed" "$?" 0
	db="$TMP/$fx.db"
	sqlite3 "$db" < "$dump" 2>"$TMP/err"
	is "$fx: sqlite3 loads the dump" "$?:$(cat "$TMP/err")" "0:"
	is "$fx: it is a database of schema version $want" \
		"$(sqlite3 "$db" 'SELECT max(version) FROM schema_migration')" "$want"

	if [ -n "$form" ]; then
		listed=$(awk -v v="$want" -v c="$form" '$1 == v && $3 == c { print $2 }' \
			"$TOP_SRCDIR/data/schema/EARLIER-FORMS")
		is "$fx: it records the earlier form of $want that EARLIER-FORMS lists for $form" \
			"$(sqlite3 "$db" "SELECT checksum FROM schema_migration WHERE version = $want")" \
			"${listed:-(not listed)}"
	fi

	# from 0023 on a database admits its staff only: whoever runs this test
	# joins the fixture's register as an owner would add them (python's
	# sqlite3, which can stand in for the functions the triggers call)
	python3 - "$db" <<'PY'
import os, pwd, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
if c.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'staff'").fetchone()[0]:
    c.create_function("fd_operator", 0, lambda: "schema-fixtures.sh")
    c.create_function("fd_now", 0, lambda: 0)
    c.execute("INSERT OR IGNORE INTO staff (login, name, role, active, created_at, updated_at)"
              " VALUES (?, 'Tester', 'owner', 1, 0, 0)", (pwd.getpwuid(os.getuid()).pw_name,))
    c.commit()
PY
	list=$(tables "$db")
	# shellcheck disable=SC2086
	rows_before=$(counts "$db" $list)
	money_before=$(money "$db")
	tasks_before=$(tasks_of "$db")
	migrations_before=$(migrations "$db")
	transitions_before=$(transitions "$db")
	ok "$fx: it holds payments and allocations" \
		test "$(sqlite3 "$db" 'SELECT count(*) FROM payment_allocation')" -gt 0

	# (a destructive migration stops here on purpose: it changes existing
	# data, so its author decides what this test must still hold)
	fd --db "$db" migrate >"$TMP/out" 2>"$TMP/err"
	is "$fx: this frontdesk migrates it" "$?:$(cat "$TMP/err")" "0:"
	is "$fx: now at the newest schema version" \
		"$(sqlite3 "$db" 'SELECT max(version) FROM schema_migration')" "$latest"
	same "$fx: its schema is a new database's" "$(schema "$TMP/fresh.db")" "$(schema "$db")"
	out=$(fd --db "$db" check 2>&1)
	is "$fx: frontdesk check is clean" "$?:$out" "0:No problems found."
	# shellcheck disable=SC2086
	same "$fx: every table has the rows it had" "$rows_before" "$(counts "$db" $list)"
	ok "$fx: it had tasks to keep" test -n "$tasks_before"
	same "$fx: every task it had is still queued or done" "$tasks_before" "$(tasks_of "$db")"
	same "$fx: every money figure is the same" "$money_before" "$(money "$db")"
	transitions "$db" > "$TMP/transitions_after"
	lost=$(printf '%s\n' "$transitions_before" | grep -Fxv -f "$TMP/transitions_after")
	is "$fx: every status move it allowed is still allowed" "$lost" ""
	after=$(migrations "$db" | head -n "$(printf '%s\n' "$migrations_before" | wc -l)")
	same "$fx: its applied migrations are recorded as they were" "$migrations_before" "$after"
	out=$(fd --db "$db" projection check 2>&1)
	is "$fx: the calendar rows still match the records" "$?" 0

	# the program goes on working on it
	open=$(sqlite3 "$db" "SELECT number || '|' || customer_id || '|' || currency FROM invoice
		WHERE status IN ('issued', 'partially_paid') ORDER BY id LIMIT 1")
	if [ -n "$open" ]; then
		inv=${open%%|*}
		rest=${open#*|}
		ok "$fx: a payment can be recorded on it" fd --db "$db" pay record --customer "${rest%%|*}" \
			--currency "${rest#*|}" --amount 1 --method cash "$inv=1"
		out=$(fd --db "$db" check 2>&1)
		is "$fx: and check stays clean" "$?:$out" "0:No problems found."
	fi
done
ok "at least one fixture" test "$n" -ge 1

# --- the comparison sees a lost row or a changed amount ---------------------
for dump in "$FIX"/schema-*.sql; do :; done # the newest
sqlite3 "$TMP/broken.db" < "$dump"
list=$(tables "$TMP/broken.db")
# shellcheck disable=SC2086
rows_before=$(counts "$TMP/broken.db" $list)
money_before=$(money "$TMP/broken.db")
sqlite3 "$TMP/broken.db" "DROP TRIGGER refund_no_delete" 2>/dev/null
sqlite3 "$TMP/broken.db" "DELETE FROM refund WHERE id = (SELECT max(id) FROM refund)" 2>/dev/null
# shellcheck disable=SC2086
ok "a migration that loses a row is seen" test "$rows_before" != "$(counts "$TMP/broken.db" $list)"
ok "a migration that loses money is seen" test "$money_before" != "$(money "$TMP/broken.db")"

# --- make-fixture.sh works with this program --------------------------------
sh "$FIX/make-fixture.sh" -o "$TMP/new.sql" "$FRONTDESK" >"$TMP/out" 2>"$TMP/err"
is "make-fixture.sh runs with this program" "$?" 0
sqlite3 "$TMP/new.db" < "$TMP/new.sql"
is "it makes a database of the newest schema version" \
	"$(sqlite3 "$TMP/new.db" 'SELECT max(version) FROM schema_migration')" "$latest"
has() { # has NAME SQL: the query counts at least one row in the new fixture
	ok "the new fixture has $1" test "$(sqlite3 "$TMP/new.db" "SELECT count(*) FROM $2")" -gt 0
}
has "the demo's visits" "appointment"
has "a payment allocated across invoices" \
	"(SELECT payment_id FROM payment_allocation GROUP BY payment_id HAVING count(DISTINCT invoice_id) > 1)"
has "a reversal" "payment_allocation WHERE reverses_id IS NOT NULL"
has "a refund" "refund"
has "a credit note" "invoice WHERE kind = 'credit_note'"
has "a void invoice" "invoice WHERE status = 'void'"
has "a void payment" "payment WHERE status = 'void'"
ok "the new fixture has invoices in two currencies" \
	test "$(sqlite3 "$TMP/new.db" "SELECT count(DISTINCT currency) FROM invoice")" -gt 1
has "card orders" "pay_order"
has "outbox commands" "outbox_event"
has "inbound events" "inbound_callback"
has "calendar rows" "appointment_calendar_view"
has "idempotency records" "idempotency_record"
before=$(cat "$TMP/new.sql")
sh "$FIX/make-fixture.sh" -o "$TMP/new.sql" "$FRONTDESK" >/dev/null 2>"$TMP/err"
is "it refuses to remake a fixture" "$?" 1
like "and says a fixture is made once" "$(cat "$TMP/err")" "made once"
is "the fixture is left as it was" "$(cat "$TMP/new.sql")" "$before"

done_testing
