#!/bin/sh
# pretend.sh - db_operator_pretend (src/db.c) lets the unit tests be any
# person of the staff register; the program itself must never call it, or
# the identity would no longer be the real user id's login (staff.h). Only
# src/db.c (its definition), src/db.h (its declaration) and tests/ may
# name it.
. "$TOP_SRCDIR/tests/lib/tap.sh"
once_per_tree "db_operator_pretend stays in the tests"
cd "$TOP_SRCDIR" || exit 1
names=$(grep -l 'db_operator_pretend' main.c src/*.c src/*.h ui/*.c ui/*.h cli/*.c cli/*.h 2>/dev/null |
	grep -vx -e src/db.c -e src/db.h)
is "no file of the program but db.c and db.h names db_operator_pretend" "$names" ""
# the check itself sees a file that names it
printf 'db_operator_pretend("x");\n' > "$TMP/front.c"
ok "a file calling it is seen" grep -q 'db_operator_pretend' "$TMP/front.c"
done_testing
