/*
 * layer-frontend.h - force-included (gcc -include) before every file of the
 * front ends, cli/ and ui/: they see the database as an opaque handle and
 * call the core's functions; a front end that tries to run SQL itself does
 * not compile, because every function that runs a statement is poisoned
 * below. The rule it enforces: no SQL and no business rule in a front end
 * (../shared/docs/conventions.md). layer-core.h does the same for curses in
 * the core. tests/house/layers.sh proves that both refuse.
 */
#ifndef FD_LAYER_FRONTEND_H
#define FD_LAYER_FRONTEND_H

#include <config.h>

#include <sqlite3.h>

#include "db.h"
#include "dbrow.h"

#pragma GCC poison sqlite3_prepare sqlite3_prepare_v2 sqlite3_prepare_v3 sqlite3_exec
#pragma GCC poison sqlite3_step sqlite3_get_table sqlite3_open sqlite3_open_v2
#pragma GCC poison db_prepare db_prepare_cached db_exec db_one_int db_sqlite db_run
#pragma GCC poison db_run_cached db_begin_write dbrow_get
/* a front end asks as the person it runs for, never for the shop (control.h) */
#pragma GCC poison control_acting_enter control_acting_leave control_require                       \
    control_require_own_visit control_ask

#endif
