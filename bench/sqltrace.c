/*
 * sqltrace.c - an LD_PRELOAD shim for the audit of issue 33: every
 * connection the program opens with sqlite3_open_v2 gets a profile hook
 * that writes one line per statement run, with its virtual machine steps
 * and full-scan steps:
 *
 *   TRACE <ms> ms steps=<n> fullscan=<n> sort=<n> | <SQL text>
 *
 * to the file named by TRACE_SQL ("-": stderr); TRACE_EXPANDED=1 writes
 * the SQL with its bound values. Not built by make (a preload library, not
 * a program of the suite):
 *
 *   cc -shared -fPIC -O2 -o sqltrace.so bench/sqltrace.c -ldl -lsqlite3
 *   TRACE_SQL=/tmp/t.log LD_PRELOAD=$PWD/sqltrace.so build/frontdesk agenda
 *   python3 bench/sqltrace-plans.py DB /tmp/t.log    # EXPLAIN QUERY PLAN of each
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *out;

static int cb(unsigned t, void *c, void *p, void *x)
{
	(void)c;
	if (!out) {
		const char *f = getenv("TRACE_SQL");

		out = (f && *f != '-') ? fopen(f, "a") : stderr;
		if (!out)
			out = stderr;
		setvbuf(out, NULL, _IOLBF, 0);
	}
	if (t == SQLITE_TRACE_PROFILE) {
		sqlite3_stmt *st = p;
		char *sql = getenv("TRACE_EXPANDED") ? sqlite3_expanded_sql(st) : NULL;

		fprintf(out, "TRACE %.3f ms steps=%d fullscan=%d sort=%d | %s\n",
		        *(sqlite3_int64 *)x / 1e6,
		        sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 0),
		        sqlite3_stmt_status(st, SQLITE_STMTSTATUS_FULLSCAN_STEP, 0),
		        sqlite3_stmt_status(st, SQLITE_STMTSTATUS_SORT, 0),
		        sql ? sql : sqlite3_sql(st));
		sqlite3_free(sql);
	}
	return 0;
}

int sqlite3_open_v2(const char *f, sqlite3 **db, int fl, const char *v)
{
	static int (*real)(const char *, sqlite3 **, int, const char *);
	int rc;

	if (!real)
		real = (int (*)(const char *, sqlite3 **, int, const char *))dlsym(
		    RTLD_NEXT, "sqlite3_open_v2");
	rc = real(f, db, fl, v);
	if (rc == SQLITE_OK && getenv("TRACE_SQL"))
		sqlite3_trace_v2(*db, SQLITE_TRACE_PROFILE, cb, NULL);
	return rc;
}
