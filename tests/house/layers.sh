#!/bin/sh
# layers.sh - the layers are kept by the compiler, not by good will: a front
# end (cli/, ui/) that runs SQL does not compile (src/layer-frontend.h), and
# neither does a core file (src/) that draws with curses (src/layer-core.h).
# Each refusal is shown beside the same file without the forbidden call,
# which compiles, so that a broken compiler call cannot pass for a refusal.
. "$TOP_SRCDIR/tests/lib/tap.sh"
once_per_tree "the headers' layering"
: "${LAYER_CC:?}"
cc_front() { # cc_front FILE: compile FILE as the program's front ends are
	# shellcheck disable=SC2086
	$LAYER_CC $LAYER_CFLAGS -include "$TOP_SRCDIR/src/layer-frontend.h" -c -o "$TMP/o.o" "$1" 2>"$TMP/err"
}
cc_core() { # cc_core FILE: compile FILE as the core library is
	# shellcheck disable=SC2086
	$LAYER_CC $LAYER_CFLAGS -include "$TOP_SRCDIR/src/layer-core.h" -c -o "$TMP/o.o" "$1" 2>"$TMP/err"
}

cat > "$TMP/front-ok.c" <<'C'
#include <config.h>
#include "customer.h"
int look(struct db *db);
int look(struct db *db) { struct customer c; return customer_get(db, 1, &c); }
C
cat > "$TMP/front-sql.c" <<'C'
#include <config.h>
#include "customer.h"
int look(struct db *db);
int look(struct db *db) { return db_exec(db, "DELETE FROM payment"); }
C
cat > "$TMP/front-raw.c" <<'C'
#include <config.h>
#include <sqlite3.h>
int look(sqlite3 *h);
int look(sqlite3 *h) { return sqlite3_exec(h, "DELETE FROM payment", 0, 0, 0); }
C
ok "a front end that asks the core compiles" cc_front "$TMP/front-ok.c"
cc_front "$TMP/front-sql.c"; is "a front end that runs SQL through db.h does not compile" "$?" 1
like "the compiler says why" "$(cat "$TMP/err")" "poisoned"
cc_front "$TMP/front-raw.c"; is "nor one that calls SQLite itself" "$?" 1
like "the compiler says why" "$(cat "$TMP/err")" "poisoned"

cat > "$TMP/core-ok.c" <<'C'
#include <config.h>
#include "money.h"
int fine(void);
int fine(void) { return currency_find("USD") != 0; }
C
cat > "$TMP/core-curses.c" <<'C'
#include <config.h>
#include <curses.h>
int draw(void);
int draw(void) { initscr(); return endwin(); }
C
ok "a core file without curses compiles" cc_core "$TMP/core-ok.c"
cc_core "$TMP/core-curses.c"; is "a core file that draws does not compile" "$?" 1
like "the compiler says why" "$(cat "$TMP/err")" "poisoned"

# and the build uses both guards
mk=$(cat "$TOP_SRCDIR/Makefile.am")
like "the program's front ends are built with the front-end guard" "$mk" "-include \$(top_srcdir)/src/layer-frontend.h"
like "the core library with the core guard" "$mk" "-include \$(top_srcdir)/src/layer-core.h"
done_testing
