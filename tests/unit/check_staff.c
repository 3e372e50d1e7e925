/*
 * check_staff.c - unit tests of staff.c: the register's owner made by the
 * migration, admission of active staff only, the register written by its
 * owner only and never left without an active owner, limits by role and
 * by grant, PINs kept as yescrypt hashes with every try logged and a lock
 * after wrong ones, and approvals: on the spot with a PIN, or filed and
 * decided from another session, never by the requester, used once, for
 * the subject and amount approved.
 *
 * Each test runs in its own child (Check's fork mode), so the person a
 * test pretends to be (db_operator_pretend) does not reach another test.
 */
#include <config.h>

#include <check.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capacity.h"
#include "clock.h"
#include "db.h"
#include "err.h"
#include "fixture.h"
#include "staff.h"
#include "visit.h"

static struct fx F;
static struct db *db;
static char me[64]; /* the real user's login: the database's owner */

static void setup(void)
{
	struct passwd *pw = getpwuid(getuid());

	snprintf(me, sizeof me, "%s", pw ? pw->pw_name : "");
	fx_open(&F, "staff");
	db = F.db;
}

static void teardown(void)
{
	fx_close(&F);
	db = NULL;
}

/* As owner: alice (desk), bob (manager), tina (technician). */
static void add_people(void)
{
	ck_assert_int_eq(staff_add(db, "alice", "Alice Desk", STAFF_DESK), 0);
	ck_assert_int_eq(staff_add(db, "bob", "Bob Manager", STAFF_MANAGER), 0);
	ck_assert_int_eq(staff_add(db, "tina", "Tina Tech", STAFF_TECHNICIAN), 0);
}

/* staff_require inside a write transaction that is committed when it
 * passes. */
static int require_tx(enum perm p, int64_t amount, const char *subject)
{
	int rc;

	ck_assert_int_eq(db_begin_write(db), 0);
	rc = staff_require(db, p, amount, subject);
	if (rc)
		db_rollback(db);
	else
		ck_assert_int_eq(db_commit(db), 0);
	return rc;
}

START_TEST(test_owner_is_who_made_it)
{
	struct staff s;

	ck_assert_str_ne(me, "");
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM staff"), 1);
	ck_assert_int_eq(staff_me(db, &s), 0);
	ck_assert_str_eq(s.login, me);
	ck_assert_int_eq(s.role, STAFF_OWNER);
	ck_assert_int_eq(s.active, 1);
	/* the owner holds every permission without limit */
	for (int p = 0; p < PERM_N; p++)
		ck_assert_int_eq(staff_may(db, (enum perm)p, INT64_C(100000000000000)), 1);
	/* an approval's moves are the schema's */
	ck_assert_uint_eq(fx_states_hold(db, &approval_states), 5);
	/* the C names and the schema's rows are the same set */
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM permission"), PERM_N);
	for (int p = 0; p < PERM_N; p++) {
		char sql[160];

		ck_assert_int_eq(perm_of(perm_word((enum perm)p)), p);
		snprintf(sql, sizeof sql,
		         "SELECT count(*) FROM permission WHERE name = '%s' AND limit_kind IS %s",
		         perm_word((enum perm)p),
		         perm_limit_kind((enum perm)p) == PERM_LIMIT_MONEY     ? "'money'"
		         : perm_limit_kind((enum perm)p) == PERM_LIMIT_PERCENT ? "'percent'"
		         : perm_limit_kind((enum perm)p) == PERM_LIMIT_DAYS    ? "'days'"
		                                                               : "NULL");
		ck_assert_int_eq(fx_one(db, sql), 1);
	}
}
END_TEST

START_TEST(test_admission)
{
	struct db *other = NULL;

	add_people();
	ck_assert_int_eq(staff_edit(db, "tina", NULL, STAFF_NROLES, 0), 0);
	db_operator_pretend("stranger");
	ck_assert_int_eq(db_open(F.path, 0, &other), FD_EPERM);
	ck_assert_ptr_null(other);
	ck_assert_ptr_nonnull(strstr(err_msg(), "stranger"));
	ck_assert_ptr_nonnull(strstr(err_msg(), me)); /* who can add them */
	db_operator_pretend("tina");                  /* deactivated */
	ck_assert_int_eq(db_open(F.path, 0, &other), FD_EPERM);
	ck_assert_ptr_nonnull(strstr(err_msg(), "no longer active"));
	db_operator_pretend("alice");
	ck_assert_int_eq(db_open(F.path, 0, &other), 0);
	db_close(other);
}
END_TEST

START_TEST(test_register_is_the_owners)
{
	int64_t before;

	add_people();
	before = fx_one(db, "SELECT count(*) FROM staff_his");
	db_operator_pretend("bob"); /* a manager may not add staff */
	ck_assert_int_eq(staff_add(db, "eve", "Eve", STAFF_OWNER), FD_EPERM);
	ck_assert_ptr_nonnull(strstr(err_msg(), "\"staff\""));
	ck_assert_int_eq(staff_edit(db, "bob", NULL, STAFF_OWNER, -1), FD_EPERM);
	ck_assert_int_eq(staff_grant(db, "bob", PERM_BACKUP, -1), FD_EPERM);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM staff_his"), before);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM staff_grant"), 0);
	db_operator_pretend(me);
	/* the last active owner stays */
	ck_assert_int_eq(staff_edit(db, me, NULL, STAFF_MANAGER, -1), FD_ECONFLICT);
	ck_assert_int_eq(staff_edit(db, me, NULL, STAFF_NROLES, 0), FD_ECONFLICT);
	ck_assert_int_eq(staff_edit(db, "bob", NULL, STAFF_OWNER, -1), 0);
	ck_assert_int_eq(staff_edit(db, me, NULL, STAFF_NROLES, 0), 0);
	/* a deactivated owner writes nothing more; bob, the new owner, does */
	ck_assert_int_eq(staff_add(db, "eve", "Eve", STAFF_DESK), FD_EPERM);
	db_operator_pretend("bob");
	/* a name or login that is not one */
	ck_assert_int_eq(staff_add(db, "-x", "X", STAFF_DESK), FD_EINVAL);
	ck_assert_int_eq(staff_add(db, "a b", "X", STAFF_DESK), FD_EINVAL);
	ck_assert_int_eq(staff_add(db, "ok", "bad\033[2J", STAFF_DESK), FD_EINVAL);
	ck_assert_int_eq(staff_add(db, "alice", "Again", STAFF_DESK), FD_ECONFLICT);
}
END_TEST

START_TEST(test_limits)
{
	int64_t lim;

	add_people();
	db_operator_pretend("alice");
	ck_assert_int_eq(staff_may(db, PERM_REFUND, 1), 0);
	ck_assert_int_eq(staff_may(db, PERM_DISCOUNT, 10), 1);
	ck_assert_int_eq(staff_may(db, PERM_DISCOUNT, 11), 0);
	ck_assert_int_eq(staff_may(db, PERM_PAYMENT_BACKDATE, 3), 1);
	ck_assert_int_eq(staff_may(db, PERM_PAYMENT_BACKDATE, 4), 0);
	ck_assert_int_eq(require_tx(PERM_REFUND, 100, "refund of payment 1"), FD_EPERM);
	/* the refusal names the permission and who holds it */
	ck_assert_ptr_nonnull(strstr(err_msg(), "\"refund\""));
	ck_assert_ptr_nonnull(strstr(err_msg(), "Bob Manager (bob)"));
	db_operator_pretend(me);
	ck_assert_int_eq(staff_grant(db, "alice", PERM_REFUND, 5000), 0);
	ck_assert_int_eq(staff_role_set(db, STAFF_DESK, PERM_DISCOUNT, 1, 20), 0);
	ck_assert_int_eq(staff_grant(db, "alice", PERM_VOID, 5), FD_EINVAL); /* no limit kind */
	ck_assert_int_eq(staff_role_set(db, STAFF_OWNER, PERM_REFUND, 1, 5), FD_EINVAL);
	db_operator_pretend("alice");
	ck_assert_int_eq(staff_limit_of(db, "alice", PERM_REFUND, &lim), 0);
	ck_assert_int_eq(lim, 5000);
	ck_assert_int_eq(staff_may(db, PERM_REFUND, 5000), 1);
	ck_assert_int_eq(staff_may(db, PERM_REFUND, 5001), 0);
	ck_assert_int_eq(require_tx(PERM_REFUND, 5001, "refund of payment 1"), FD_EPERM);
	ck_assert_ptr_nonnull(strstr(err_msg(), "50.00"));
	ck_assert_int_eq(staff_may(db, PERM_DISCOUNT, 20), 1);
	ck_assert_int_eq(staff_may(db, PERM_DISCOUNT, 21), 0);
	/* the technician sees the board, takes no money */
	db_operator_pretend("tina");
	ck_assert_int_eq(staff_may(db, PERM_BOARD_VIEW, 0), 1);
	ck_assert_int_eq(staff_may(db, PERM_PAYMENT_TAKE, 0), 0);
	ck_assert_int_eq(staff_may(db, PERM_RECORDS_VIEW, 0), 0);
}
END_TEST

static void set_pin(const char *who, const char *pin)
{
	db_operator_pretend(who);
	ck_assert_int_eq(staff_pin_set(db, pin), 0);
}

START_TEST(test_pin_kept_as_hash)
{
	char sql[200];

	add_people();
	db_operator_pretend("bob");
	ck_assert_int_eq(staff_pin_set(db, "12"), FD_EINVAL);
	ck_assert_int_eq(staff_pin_set(db, "12a4"), FD_EINVAL);
	set_pin("bob", "246813");
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM staff_pin WHERE login = 'bob'"
	                            " AND hash LIKE '$y$%' AND instr(hash, '246813') = 0"),
	                 1);
	/* nowhere else in the database either */
	snprintf(sql, sizeof sql,
	         "SELECT count(*) FROM staff_his WHERE name LIKE '%%246813%%'"
	         " OR login LIKE '%%246813%%'");
	ck_assert_int_eq(fx_one(db, sql), 0);
}
END_TEST

START_TEST(test_pin_tries)
{
	add_people();
	set_pin("bob", "2468");
	db_operator_pretend("alice");
	ck_assert_int_eq(staff_pin_approve(db, "bob", "1111"), FD_EPERM);
	ck_assert_ptr_nonnull(strstr(err_msg(), "wrong PIN"));
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM staff_pin_try WHERE login = 'bob'"
	                            " AND tried_by = 'alice' AND ok = 0"),
	                 1);
	/* a wrong PIN approves nothing */
	ck_assert_int_eq(require_tx(PERM_REFUND, 100, "refund of payment 1"), FD_EPERM);
	ck_assert_int_eq(staff_pin_approve(db, "bob", "2222"), FD_EPERM);
	ck_assert_int_eq(staff_pin_approve(db, "bob", "3333"), FD_EPERM);
	ck_assert_int_eq(fx_one(db, "SELECT failures FROM staff_pin WHERE login = 'bob'"), 3);
	ck_assert_int_gt(fx_one(db, "SELECT locked_until FROM staff_pin WHERE login = 'bob'"),
	                 clock_now());
	/* locked: even the right PIN is refused now, and the try is logged */
	ck_assert_int_eq(staff_pin_approve(db, "bob", "2468"), FD_EPERM);
	ck_assert_ptr_nonnull(strstr(err_msg(), "locked"));
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM approval"), 0);
	/* nobody approves with their own PIN */
	set_pin("alice", "9999");
	ck_assert_int_eq(staff_pin_approve(db, "alice", "9999"), FD_EPERM);
	/* someone without a PIN */
	ck_assert_int_eq(staff_pin_approve(db, "tina", "1234"), FD_EPERM);
}
END_TEST

START_TEST(test_pin_approves_once)
{
	add_people();
	set_pin("bob", "2468");
	set_pin("tina", "1357");
	db_operator_pretend("alice");
	/* a PIN of someone who may not refund approves no refund */
	ck_assert_int_eq(staff_pin_approve(db, "tina", "1357"), 0);
	ck_assert_int_eq(require_tx(PERM_REFUND, 7500, "refund of payment 1"), FD_EPERM);
	ck_assert_int_eq(staff_pin_approve(db, "bob", "2468"), 0);
	ck_assert_int_eq(require_tx(PERM_REFUND, 7500, "refund of payment 1"), 0);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM approval WHERE status = 'used'"
	                            " AND how = 'pin' AND requested_by = 'alice'"
	                            " AND decided_by = 'bob' AND amount = 7500"
	                            " AND subject = 'refund of payment 1'"),
	                 1);
	/* once */
	ck_assert_int_eq(require_tx(PERM_REFUND, 7500, "refund of payment 1"), FD_EPERM);
	/* an action that rolls back leaves no approval behind */
	ck_assert_int_eq(staff_pin_approve(db, "bob", "2468"), 0);
	ck_assert_int_eq(db_begin_write(db), 0);
	ck_assert_int_eq(staff_require(db, PERM_REFUND, 7500, "refund of payment 1"), 0);
	db_rollback(db);
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM approval"), 1);
	/* brought after a refusal, a PIN approves that refused action only */
	ck_assert_int_eq(require_tx(PERM_VOID, 0, "void invoice 9"), FD_EPERM);
	ck_assert_int_eq(staff_pin_approve(db, "bob", "2468"), 0);
	ck_assert_int_eq(require_tx(PERM_REFUND, 100, "refund of payment 2"), FD_EPERM);
	ck_assert_int_eq(require_tx(PERM_VOID, 0, "void invoice 9"), 0);
	ck_assert_int_eq(
	    fx_one(db, "SELECT count(*) FROM approval WHERE subject = 'void invoice 9'"), 1);
}
END_TEST

START_TEST(test_session_approval)
{
	struct approval a;
	int64_t id = 0, id2 = 0;

	add_people();
	db_operator_pretend("alice");
	ck_assert_int_eq(approval_file(db, &id), FD_ENOTFOUND); /* nothing refused yet */
	ck_assert_int_eq(require_tx(PERM_REFUND, 7500, "refund of payment 4"), FD_EPERM);
	ck_assert_int_eq(approval_file(db, &id), 0);
	ck_assert_int_gt(id, 0);
	ck_assert_int_eq(require_tx(PERM_REFUND, 7500, "refund of payment 4"), FD_EPERM);
	ck_assert_int_eq(approval_file(db, &id2), 0);
	ck_assert_int_eq(id2, id); /* the same request while it waits */
	/* not before it is approved */
	staff_use_approval(db, id);
	ck_assert_int_eq(require_tx(PERM_REFUND, 7500, "refund of payment 4"), FD_EPERM);
	/* never by its requester, nor by a desk */
	ck_assert_int_eq(approval_decide(db, id, 1), FD_EPERM);
	ck_assert_int_eq(staff_add(db, "dave", "Dave", STAFF_DESK), FD_EPERM);
	db_operator_pretend(me);
	ck_assert_int_eq(staff_add(db, "dave", "Dave Desk", STAFF_DESK), 0);
	db_operator_pretend("dave");
	ck_assert_int_eq(approval_decide(db, id, 1), FD_EPERM);
	db_operator_pretend("bob");
	ck_assert_int_eq(approval_decide(db, id, 1), 0);
	ck_assert_int_eq(approval_decide(db, id, 1), FD_ECONFLICT);
	db_operator_pretend("alice");
	/* another subject or a larger amount is not covered */
	staff_use_approval(db, id);
	ck_assert_int_eq(require_tx(PERM_REFUND, 7500, "refund of payment 5"), FD_EPERM);
	ck_assert_ptr_nonnull(strstr(err_msg(), "does not cover"));
	staff_use_approval(db, id);
	ck_assert_int_eq(require_tx(PERM_REFUND, 7501, "refund of payment 4"), FD_EPERM);
	/* dave may not use alice's approval */
	db_operator_pretend("dave");
	staff_use_approval(db, id);
	ck_assert_int_eq(require_tx(PERM_REFUND, 7500, "refund of payment 4"), FD_EPERM);
	db_operator_pretend("alice");
	staff_use_approval(db, id);
	ck_assert_int_eq(require_tx(PERM_REFUND, 7000, "refund of payment 4"), 0);
	ck_assert_int_eq(approval_get(db, id, &a), 0);
	ck_assert_str_eq(a.status, "used");
	ck_assert_str_eq(a.requested_by, "alice");
	ck_assert_str_eq(a.decided_by, "bob");
	ck_assert_str_eq(a.how, "session");
	staff_use_approval(db, id);
	ck_assert_int_eq(require_tx(PERM_REFUND, 7000, "refund of payment 4"), FD_EPERM);
	/* the status flow names both people */
	ck_assert_int_eq(fx_one(db, "SELECT count(*) FROM status_flow WHERE entity = 'approval'"
	                            " AND operator_id = 'bob' AND to_status = 'approved'"),
	                 1);
}
END_TEST

static int count_one(const struct approval *a, void *arg)
{
	(void)a;
	++*(int *)arg;
	return 0;
}

/* The requests waiting (into *n), and the steps reading them took. */
static int64_t waiting_steps(int *n)
{
	*n = 0;
	fx_steps_begin(db);
	ck_assert_int_eq(approval_list(db, 0, 100, count_one, n), 0);
	return fx_steps_end(db, NULL);
}

/* The approvals waiting (the screen's approvals, `approve list`) are read
 * by their partial index, never walking back past the requests decided
 * since the oldest waiting one (issue 33). */
START_TEST(test_waiting_approvals_skip_decided)
{
	int64_t steps0, steps1;
	int n;

	add_people();
	ck_assert_int_eq(sqlite3_exec(db_sqlite(db),
	                              "INSERT INTO approval (permission, subject, requested_by,"
	                              " requested_at) VALUES ('refund', 'the oldest', 'alice', 1)",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	steps0 = waiting_steps(&n);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(
	    sqlite3_exec(
	        db_sqlite(db),
	        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)"
	        " INSERT INTO approval (permission, subject, requested_by, requested_at,"
	        " status, decided_by, decided_at, how) SELECT 'refund', 'decided ' || i,"
	        " 'alice', 2, 'approved', 'bob', 2, 'pin' FROM n",
	        NULL, NULL, NULL),
	    SQLITE_OK);
	steps1 = waiting_steps(&n);
	ck_assert_int_eq(n, 1);
	ck_assert_msg(steps1 - steps0 < 100, "steps: %lld, then %lld with 5,000 decided",
	              (long long)steps0, (long long)steps1);
}
END_TEST

START_TEST(test_own_visits)
{
	struct resource_input ri = {"Tess", "technician", NULL, 1};
	struct resource_input vi = {"Van 1", "van", NULL, 1};
	struct visit_input v = {fx_local("2026-12-02 09:00"), fx_local("2026-12-02 10:00"), NULL,
	                        NULL};
	int64_t tech, van, mine, other;
	char sql[300];

	add_people();
	ck_assert_int_eq(capacity_resource_add(db, &ri, &tech), 0);
	ck_assert_int_eq(capacity_resource_add(db, &vi, &van), 0);
	ck_assert_int_eq(visit_add(db, &v, &mine), 0);
	ck_assert_int_eq(visit_add(db, &v, &other), 0);
	snprintf(sql, sizeof sql,
	         "INSERT INTO appointment_resource (appointment_id, resource_id, start_at, end_at,"
	         " created_at, updated_at) VALUES (%lld, %lld, %lld, %lld, 0, 0)",
	         (long long)mine, (long long)tech, (long long)v.start_at, (long long)v.end_at);
	ck_assert_int_eq(db_exec(db, sql), 0);
	/* only a technician is linked, once, by the owner */
	ck_assert_int_eq(staff_link_resource(db, "tina", van), FD_EINVAL);
	ck_assert_int_eq(staff_link_resource(db, "tina", tech), 0);
	ck_assert_int_eq(staff_link_resource(db, "alice", tech), FD_ECONFLICT);
	db_operator_pretend("tina");
	ck_assert_int_eq(staff_link_resource(db, "tina", 0), FD_EPERM);
	ck_assert_int_eq(db_begin_write(db), 0);
	ck_assert_int_eq(staff_require_own_visit(db, mine, "finish visit"), 0);
	ck_assert_int_eq(staff_require_own_visit(db, other, "finish visit"), FD_EPERM);
	ck_assert_ptr_nonnull(strstr(err_msg(), "not one of"));
	db_rollback(db);
	/* unlinked, a technician works on no visit; a desk on every one */
	db_operator_pretend(me);
	ck_assert_int_eq(staff_link_resource(db, "tina", 0), 0);
	db_operator_pretend("tina");
	ck_assert_int_eq(db_begin_write(db), 0);
	ck_assert_int_eq(staff_require_own_visit(db, mine, "finish visit"), FD_EPERM);
	ck_assert_ptr_nonnull(strstr(err_msg(), "linked to no technician"));
	db_rollback(db);
	db_operator_pretend("alice");
	ck_assert_int_eq(db_begin_write(db), 0);
	ck_assert_int_eq(staff_require_own_visit(db, other, "finish visit"), 0);
	db_rollback(db);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("staff");
	TCase *tc = tcase_create("staff");
	SRunner *sr;
	int failed;

	fx_env();
	clock_set_zone(NULL);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_owner_is_who_made_it);
	tcase_add_test(tc, test_admission);
	tcase_add_test(tc, test_register_is_the_owners);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_pin_kept_as_hash);
	tcase_add_test(tc, test_pin_tries);
	tcase_add_test(tc, test_pin_approves_once);
	tcase_add_test(tc, test_session_approval);
	tcase_add_test(tc, test_own_visits);
	tcase_add_test(tc, test_waiting_approvals_skip_decided);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
