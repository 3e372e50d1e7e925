/*
 * fixture.c - the unit tests' fixture (see fixture.h). The folder is removed
 * with nftw, depth first, without a shell.
 *
 * fx_open makes the program's first database by creating and migrating it,
 * as a shop's first start does, and keeps a copy of the file (the
 * template); every later fx_open copies the template. A new database holds
 * nothing that depends on its path or moment, so the copy is what creating
 * it again would write, at a fraction of the cost: migrating takes about a
 * second in the sanitizer build, and a program such as check_perms makes
 * 253 databases. FRONTDESK_FX_FRESH=1 creates every one anew. The
 * template's folder is made before main, so every forked test of the
 * runner sees the same one, and removed when the runner itself exits.
 */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "db.h"
#include "err.h"
#include "fixture.h"
#include "idem.h"
#include "invoice.h"
#include "item.h"
#include "job.h"
#include "wire.h"

void fx_env(void)
{
	core_wire();
	setenv("TZ", "America/New_York", 1);
	setenv("FRONTDESK_NOW", "2026-12-01T09:00", 1);
	unsetenv("FRONTDESK_CONFIG");
	setenv("XDG_CONFIG_HOME", "/nonexistent", 1);
}

void fx_tmp(struct fx *f, const char *tag)
{
	core_wire();
	memset(f, 0, sizeof *f);
	snprintf(f->dir, sizeof f->dir, "/tmp/fd%.20s.XXXXXX", tag);
	ck_assert_ptr_nonnull(mkdtemp(f->dir));
	snprintf(f->path, sizeof f->path, "%s/t.db", f->dir);
}

static int rm_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

void fx_tmp_done(struct fx *f)
{
	if (f->dir[0])
		ck_assert_int_eq(nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	f->dir[0] = '\0';
}

static char tpl_dir[64]; /* "": no template (mkdtemp failed) */
static pid_t tpl_pid;    /* the runner, which made the folder */

__attribute__((constructor)) static void tpl_begin(void)
{
	snprintf(tpl_dir, sizeof tpl_dir, "/tmp/fdtpl.XXXXXX");
	if (!mkdtemp(tpl_dir))
		tpl_dir[0] = '\0';
	tpl_pid = getpid();
}

__attribute__((destructor)) static void tpl_end(void)
{
	if (tpl_dir[0] && getpid() == tpl_pid)
		nftw(tpl_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* copy_file - the bytes of from into a new file to (0600); 0 when whole. */
static int copy_file(const char *from, const char *to)
{
	char buf[1 << 16];
	ssize_t n = 0;
	int in, out, rc = 0;

	if ((in = open(from, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if ((out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
		close(in);
		return -1;
	}
	while (rc == 0 && (n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
	if (n < 0)
		rc = -1;
	close(in);
	if (close(out) != 0)
		rc = -1;
	return rc;
}

void fx_open(struct fx *f, const char *tag)
{
	char tpl[96], tmp[100];
	const char *fresh = getenv("FRONTDESK_FX_FRESH");

	fx_tmp(f, tag);
	snprintf(tpl, sizeof tpl, "%s/t.db", tpl_dir);
	if (!tpl_dir[0] || (fresh && *fresh == '1')) {
		ck_assert_msg(db_open(f->path, DB_OPEN_CREATE, &f->db) == 0, "%s", err_msg());
		return;
	}
	if (access(tpl, F_OK) == 0) {
		ck_assert_msg(copy_file(tpl, f->path) == 0, "copy %s: %s", tpl, strerror(errno));
		ck_assert_msg(db_open(f->path, 0, &f->db) == 0, "%s", err_msg());
		return;
	}
	/* the first: create it, and once closed (its log checkpointed into the
	 * file) keep a copy, put in place whole with a rename */
	ck_assert_msg(db_open(f->path, DB_OPEN_CREATE, &f->db) == 0, "%s", err_msg());
	db_close(f->db);
	snprintf(tmp, sizeof tmp, "%s.new", tpl);
	unlink(tmp);
	ck_assert_msg(copy_file(f->path, tmp) == 0 && rename(tmp, tpl) == 0, "template %s: %s", tpl,
	              strerror(errno));
	ck_assert_msg(db_open(f->path, 0, &f->db) == 0, "%s", err_msg());
}

void fx_close(struct fx *f)
{
	db_close(f->db);
	f->db = NULL;
	fx_tmp_done(f);
}

int64_t fx_one(struct db *db, const char *sql)
{
	int64_t v = -999;

	ck_assert_msg(db_one_int(db, sql, &v) == 0, "%s: %s", sql, err_msg());
	return v;
}

int64_t fx_local(const char *text)
{
	int64_t t = 0;

	ck_assert_msg(clock_parse_local(text, &t) == 0, "%s: %s", text, err_msg());
	return t;
}

int64_t fx_invoice(struct db *db, int64_t customer, int64_t cents, long terms)
{
	struct job_input ji = {customer, "Wash", "USD", NULL};
	struct item_input it = {0, "SERVICE", "Wash", 1000, cents};
	struct invoice_input in = {0};
	struct idem_result res = {0};
	int64_t job, item, id;

	ck_assert_msg(job_add(db, &ji, &job) == 0, "%s", err_msg());
	it.job_id = job;
	ck_assert_msg(item_add(db, &it, &item) == 0, "%s", err_msg());
	in.jobs = &job;
	in.n_jobs = 1;
	in.terms_days = terms;
	ck_assert_msg(invoice_issue(db, &in, NULL, &res) == 0, "%s", err_msg());
	id = res.id;
	idem_result_free(&res);
	return id;
}

int fx_states_changed(struct db *db, const struct states *m, size_t drop, struct state_move extra)
{
	struct state_move moves[64];
	struct states c = *m;
	size_t i, n = 0;

	for (i = 0; m->moves[i].from >= 0; i++) {
		ck_assert_uint_lt(n, sizeof moves / sizeof *moves - 2);
		if (i != drop)
			moves[n++] = m->moves[i];
	}
	if (extra.from >= 0)
		moves[n++] = extra;
	moves[n] = (struct state_move){-1, -1};
	c.moves = moves;
	return states_agree(db, &c);
}

size_t fx_states_hold(struct db *db, const struct states *m)
{
	static const struct state_move none = {-1, -1};
	size_t i, n = 0;

	for (i = 0; i < m->n; i++)
		ck_assert_int_eq(states_of(m, states_word(m, (int)i)), (int)i);
	ck_assert_int_eq(states_of(m, "no such state"), (int)m->n);
	ck_assert_int_eq(states_of(m, NULL), (int)m->n);
	ck_assert_str_eq(states_word(m, (int)m->n), "");
	ck_assert_msg(states_agree(db, m) == 0, "%s: %s", m->entity, err_msg());
	while (m->moves[n].from >= 0)
		n++;
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(fx_states_changed(db, m, i, none), FD_ECONFLICT);
		ck_assert_msg(strstr(err_msg(), "the schema allows") &&
		                  strstr(err_msg(), states_word(m, m->moves[i].to)),
		              "%s", err_msg());
	}
	return n;
}

static int64_t steps_vm, steps_scan;

static int steps_count(unsigned type, void *ctx, void *p, void *x)
{
	(void)ctx;
	(void)x;
	if (type == SQLITE_TRACE_PROFILE) {
		steps_vm += sqlite3_stmt_status(p, SQLITE_STMTSTATUS_VM_STEP, 1);
		steps_scan += sqlite3_stmt_status(p, SQLITE_STMTSTATUS_FULLSCAN_STEP, 1);
	}
	return 0;
}

void fx_steps_begin(struct db *db)
{
	steps_vm = steps_scan = 0;
	sqlite3_trace_v2(db_sqlite(db), SQLITE_TRACE_PROFILE, steps_count, NULL);
}

int64_t fx_steps_end(struct db *db, int64_t *scan_steps)
{
	sqlite3_trace_v2(db_sqlite(db), 0, NULL, NULL);
	if (scan_steps)
		*scan_steps = steps_scan;
	return steps_vm;
}
