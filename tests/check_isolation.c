/*
 * check_isolation.c - unit tests of issue 18's isolation: long work never
 * makes a desk wait and never leaves the -wal large (db.c's busy handler,
 * db_yield and db_checkpoint; projection_rebuild_all's batches;
 * journal_export's checkpoint).
 *
 * Nothing here is timed: a desk that waited too long shows as a payment
 * refused with FD_EBUSY under its (short) busy timeout, a -wal left large as
 * its size in bytes.
 */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "err.h"
#include "fixture.h"
#include "journal.h"

#define WAL_LIMIT 4194304 /* db.c's journal_size_limit */

static struct fx F;
static struct db *db;

static void setup(void)
{
	fx_open(&F, "iso");
	db = F.db;
}

static void teardown(void)
{
	fx_close(&F);
	db = NULL;
}

static void exec(struct db *d, const char *sql)
{
	ck_assert_msg(db_exec(d, sql) == 0, "%s: %s", sql, err_msg());
}

static off_t wal_size(void)
{
	char p[160];
	struct stat sb;

	snprintf(p, sizeof p, "%s-wal", F.path);
	return stat(p, &sb) == 0 ? sb.st_size : 0;
}

/* What another connection commits while an export holds its snapshot. */
struct during {
	struct db *w;
	int done;
};

static ssize_t during_write(void *cookie, const char *buf, size_t size)
{
	struct during *d = cookie;

	(void)buf;
	if (!d->done++) {
		/* some 12 MiB, and the export's snapshot keeps them in the -wal */
		exec(d->w, "INSERT INTO scratch SELECT randomblob(1000) FROM "
		           "(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
		           "WHERE i < 12000) SELECT i FROM n)");
	}
	return (ssize_t)size;
}

/*
 * An export holds one snapshot for as long as it writes (the journal must
 * balance), so what a desk commits meanwhile stays in the -wal, which grows.
 * Once it has ended, the export checkpoints, and the next commit finds the
 * -wal copied back and cuts it to its usual size (journal_size_limit).
 * Before, the -wal stayed at its largest for good.
 */
START_TEST(test_wal_cut_back_after_export)
{
	cookie_io_functions_t io = {.write = during_write};
	struct during d = {NULL, 0};
	FILE *out;

	ck_assert_int_eq(db_open(F.path, 0, &d.w), 0);
	exec(d.w, "CREATE TABLE scratch (b BLOB)");
	out = fopencookie(&d, "w", io);
	ck_assert(out != NULL);
	ck_assert_int_eq(journal_export(db, out), 0);
	fclose(out);
	ck_assert_int_eq(d.done, 1);
	ck_assert_msg(wal_size() > 2 * WAL_LIMIT, "the -wal did not grow: %lld",
	              (long long)wal_size());
	exec(d.w, "INSERT INTO scratch VALUES (1)");
	ck_assert_msg(wal_size() <= WAL_LIMIT, "the -wal is still %lld bytes",
	              (long long)wal_size());
	db_close(d.w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("isolation");
	TCase *tc = tcase_create("isolation");
	SRunner *sr;
	int failed;

	fx_env();
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_wal_cut_back_after_export);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
