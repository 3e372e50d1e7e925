/*
 * fixture.h - the one fixture of the Check unit tests: a private temporary
 * folder with a new database in it, the environment every test runs in
 * (shop time zone, frozen clock, no config file), and small query helpers.
 * Callers: tests/unit/check_*.c.
 */
#ifndef FD_TEST_FIXTURE_H
#define FD_TEST_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "states.h"

struct db;

struct fx {
	char dir[64];   /* the private folder */
	char path[128]; /* dir/t.db */
	struct db *db;  /* open on path after fx_open, else NULL */
};

/* fx_env - TZ America/New_York, FRONTDESK_NOW 2026-12-01T09:00, no config
 * file (FRONTDESK_CONFIG unset, XDG_CONFIG_HOME somewhere empty). */
void fx_env(void);

/* fx_tmp - make a new private folder /tmp/fdTAG.XXXXXX and name the
 * database path in it (nothing opened). fx_tmp_done removes the folder. */
void fx_tmp(struct fx *f, const char *tag);
void fx_tmp_done(struct fx *f);

/* fx_open - fx_tmp, then a new, migrated database there (f->db): the
 * program's first is created, later ones are copies of it (fixture.c).
 * fx_close closes it and removes the folder. */
void fx_open(struct fx *f, const char *tag);
void fx_close(struct fx *f);

/* fx_one - the integer the one-row, one-column query sql gives on db; the
 * test fails (naming sql and the reason) when it cannot run. */
int64_t fx_one(struct db *db, const char *sql);

/* fx_local - the time of "YYYY-MM-DD[ HH:MM]" in the shop's time zone
 * (clock_parse_local); the test fails when text is not one. */
int64_t fx_local(const char *text);

/* fx_invoice - an issued invoice of cents USD for customer, due in terms
 * days: a job with one SERVICE line item of that price, invoiced whole.
 * Returns the invoice id; the test fails when it cannot be made. */
int64_t fx_invoice(struct db *db, int64_t customer, int64_t cents, long terms);

/* fx_states_changed - states_agree on db for a copy of m whose moves lack
 * move number drop (SIZE_MAX: none) and have extra as well (extra.from < 0:
 * none). */
int fx_states_changed(struct db *db, const struct states *m, size_t drop, struct state_move extra);

/* fx_states_hold - the test fails unless every word of m maps to its state
 * and back, a word of no state (and NULL) maps to m->n, m's moves agree
 * with db's status_transition rows, and every copy of them with one move
 * left out is refused, naming that move as the schema's alone. Returns how
 * many moves m has. */
size_t fx_states_hold(struct db *db, const struct states *m);

/* fx_steps_begin / fx_steps_end - the virtual machine steps of every
 * statement db runs in between (and, into *scan_steps unless NULL, how many
 * of them walked a table or index whole): what a read costs, which a loaded
 * machine does not change. */
void fx_steps_begin(struct db *db);
int64_t fx_steps_end(struct db *db, int64_t *scan_steps);

#endif
