/*
 * check_retention.c - unit tests of retention.c and lifecycle.c: the
 * cutoff in calendar months (clamped to the month's length, local
 * midnight, half-open), the candidates found by one indexed query on the
 * projection, the history guard that only a purge passes (and only for
 * personal text), a stale purge command ignored, a hold that blocks a
 * proposal with its reason, and a deletion's states and moves.
 */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "customer.h"
#include "db.h"
#include "err.h"
#include "fixture.h"
#include "lifecycle.h"
#include "retention.h"
#include "states.h"

static struct fx F;
static struct db *db;

static void setup(void)
{
	fx_open(&F, "retention");
	db = F.db;
}

static void teardown(void)
{
	fx_close(&F);
	db = NULL;
}

START_TEST(test_cutoff)
{
	/* 36 calendar months, not 36 x 30 days */
	ck_assert_int_eq(retention_cutoff(fx_local("2026-12-01 09:00"), 36),
	                 fx_local("2023-12-01 00:00"));
	/* the day is clamped to the month's length, leap years included */
	ck_assert_int_eq(retention_cutoff(fx_local("2026-05-31 12:00"), 3),
	                 fx_local("2026-02-28 00:00"));
	ck_assert_int_eq(retention_cutoff(fx_local("2024-05-31 12:00"), 3),
	                 fx_local("2024-02-29 00:00"));
	ck_assert_int_eq(retention_cutoff(fx_local("2026-03-31 00:00"), 13),
	                 fx_local("2025-02-28 00:00"));
	ck_assert_int_eq(retention_cutoff(fx_local("2026-01-15 23:59"), 1),
	                 fx_local("2025-12-15 00:00"));
}
END_TEST

START_TEST(test_candidates_one_indexed_query)
{
	sqlite3_stmt *st;
	char plan[2000] = "", *sql;
	size_t len = 0;

	sql = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", lifecycle_candidates_sql());
	ck_assert_int_eq(sqlite3_prepare_v2(db_sqlite(db), sql, -1, &st, NULL), SQLITE_OK);
	sqlite3_free(sql);
	while (sqlite3_step(st) == SQLITE_ROW && len < sizeof plan - 200)
		len += (size_t)snprintf(plan + len, sizeof plan - len, "%s;",
		                        (const char *)sqlite3_column_text(st, 3));
	sqlite3_finalize(st);
	ck_assert_msg(strstr(plan, "USING INDEX customer_lifecycle_candidates") != NULL, "%s",
	              plan);
	ck_assert_msg(strstr(plan, "SCAN") == NULL, "%s", plan);
}
END_TEST

START_TEST(test_history_guard)
{
	struct customer_input in = {.name = "Lee Guard", .note = "private"};
	int64_t id;
	char sql[200];

	ck_assert_int_eq(customer_add(db, &in, &id), 0);
	snprintf(sql, sizeof sql, "UPDATE customer_his SET note = NULL WHERE id = %lld",
	         (long long)id);
	/* outside a purge, history is never changed */
	ck_assert_int_ne(db_exec(db, sql), 0);
	err_clear();
	/* inside one (its row in retention_purging), the personal text may go */
	ck_assert_int_eq(db_begin_write(db), 0);
	ck_assert_int_eq(db_exec(db, "INSERT INTO retention_purging VALUES ('t')"), 0);
	ck_assert_int_eq(db_exec(db, sql), 0);
	/* even in a purge, not the times or who */
	snprintf(sql, sizeof sql, "UPDATE customer_his SET operate_at = 1 WHERE id = %lld",
	         (long long)id);
	ck_assert_int_ne(db_exec(db, sql), 0);
	err_clear();
	ck_assert_int_eq(db_exec(db, "DELETE FROM retention_purging"), 0);
	ck_assert_int_eq(db_commit(db), 0);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM customer_his WHERE note IS NULL"), 1);
}
END_TEST

START_TEST(test_stale_and_hold)
{
	struct customer_input in = {.name = "Old Customer"};
	char id[RETENTION_ID_LEN + 1] = "";
	const char *why = NULL;
	int64_t c1, c2;
	int ignored = 0;

	setenv("FRONTDESK_NOW", "2020-01-01 09:00", 1);
	ck_assert_int_eq(customer_add(db, &in, &c1), 0);
	in.name = "Held Customer";
	ck_assert_int_eq(customer_add(db, &in, &c2), 0);
	setenv("FRONTDESK_NOW", "2026-12-01 09:00", 1);
	ck_assert_int_eq(retention_hold(db, c2, "dispute"), 0);
	ck_assert_int_eq(retention_propose(db, c2, id), FD_EINVAL);
	ck_assert_msg(strstr(err_msg(), "dispute") != NULL, "%s", err_msg());
	ck_assert_int_eq(retention_propose(db, c1, id), 0);
	ck_assert_int_eq(strlen(id), RETENTION_ID_LEN);
	/* a command of another generation changes nothing */
	ck_assert_int_eq(retention_purge(db, id, 2, &ignored, &why), 0);
	ck_assert_int_eq(ignored, 1);
	ck_assert_msg(strstr(why, "generation") != NULL, "%s", why);
	/* restored: the generation goes up, the old command is stale */
	ck_assert_int_eq(retention_cancel(db, c1, "test"), 0);
	setenv("FRONTDESK_NOW", "2027-06-01 09:00", 1);
	ck_assert_int_eq(retention_purge(db, id, 1, &ignored, &why), 0);
	ck_assert_int_eq(ignored, 1);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM retention_certificate"), 0);
	ck_assert_int_eq(retention_cancel(db, c1, "again"), FD_ENOTFOUND);
	unsetenv("FRONTDESK_NOW");
}
END_TEST

/* A deletion's states (retention.h): every word round-trips, its moves are
 * exactly the schema's rows for retention_process, and states_agree
 * refuses every copy of them with one move left out; the lifecycle's words
 * round-trip too. */
START_TEST(test_states)
{
	const struct states *m = &retention_states;
	int s;

	for (s = 0; s < RETENTION_STATES; s++)
		ck_assert_int_eq(retention_state_of(retention_state_word((enum retention_state)s)),
		                 s);
	ck_assert_int_eq(retention_state_of("live"), RETENTION_STATES);
	ck_assert_int_eq(retention_state_of(NULL), RETENTION_STATES);
	for (s = 0; s < LIFECYCLE_STATES; s++)
		ck_assert_int_eq(lifecycle_state_of(lifecycle_state_word((enum lifecycle_state)s)),
		                 s);
	ck_assert_int_eq(lifecycle_state_of("cancelled"), LIFECYCLE_STATES);
	ck_assert_uint_eq(fx_states_hold(db, m), 6);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("retention");
	TCase *tc = tcase_create("retention");
	SRunner *sr;
	int failed;

	fx_env();
	clock_set_zone(NULL);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_cutoff);
	tcase_add_test(tc, test_candidates_one_indexed_query);
	tcase_add_test(tc, test_history_guard);
	tcase_add_test(tc, test_stale_and_hold);
	tcase_add_test(tc, test_states);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
