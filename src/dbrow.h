/*
 * dbrow.h - small helpers for reading SQLite rows into the core's structs:
 * copying a text column, and reading one row by its id. Every owning module
 * uses these instead of a private copy. No project dependency but db.h.
 */
#ifndef FD_DBROW_H
#define FD_DBROW_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct db;

/* dbrow_dup - column i of st as a new string (free it), NULL for NULL. */
char *dbrow_dup(sqlite3_stmt *st, int i);

/* dbrow_copy - column i of st copied into buf (n bytes, cut to fit; "" for
 * NULL). */
void dbrow_copy(sqlite3_stmt *st, int i, char *buf, size_t n);

/* dbrow_get - run sql (a string literal: it is cached by address) with id
 * bound as ?1; when a row comes back, fill(st, out) copies it and *found is
 * 1, else *found is 0 (the caller says what was not found, in a sentence of
 * its own). A failure of the database returns db_fail(db, fail_msg). */
int dbrow_get(struct db *db, const char *sql, int64_t id, void (*fill)(sqlite3_stmt *st, void *out),
              void *out, const char *fail_msg, int *found);

#endif
