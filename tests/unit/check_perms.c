/*
 * check_perms.c - every core writer asks the permission of its action
 * (issue 28): called directly, as a front end would, by a person of each
 * role of the staff register, it is allowed or refused as the role's
 * defaults of migration 0023 say; a refusal (FD_EPERM) writes nothing and
 * names the missing permission. And the limits: a refund up to a granted
 * amount, a discount up to the desk's 10 %, a payment dated back up to the
 * desk's 3 days.
 *
 * The database is made by the real user, its owner; the others are added
 * with staff_add and played with db_operator_pretend. Each test runs in its
 * own forked child (CK_FORK), so the pretence ends with it.
 */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backup.h"
#include "booking.h"
#include "capacity.h"
#include "chan-adapters.h"
#include "clock.h"
#include "commission.h"
#include "contact.h"
#include "control.h"
#include "customer.h"
#include "db.h"
#include "demo.h"
#include "err.h"
#include "export-csv.h"
#include "export-ical.h"
#include "export.h"
#include "fixture.h"
#include "history.h"
#include "idem.h"
#include "inbox.h"
#include "invoice.h"
#include "item.h"
#include "job.h"
#include "journal.h"
#include "lifecycle.h"
#include "payment.h"
#include "projection.h"
#include "recon.h"
#include "report.h"
#include "retention.h"
#include "service.h"
#include "staff.h"
#include "task.h"
#include "visit.h"

static struct fx F;
static struct db *other; /* a second connection: sees what the first commits */
static char owner[33];

/* What the setup made, as the owner. */
static struct {
	int64_t cust, cust_free; /* a customer with work; one with none */
	int64_t job, item;       /* a job with one SERVICE line of 100.00, not invoiced */
	int64_t inv, inv_open;   /* an invoice part paid (alloc); one not paid */
	int64_t pay, pay_alloc;  /* 200.00 unallocated; 50.00 allocated to inv */
	int64_t alloc;           /* that allocation */
	int64_t visit, tech;     /* a visit tomorrow; a technician resource */
	int64_t service;         /* a service of the catalogue */
} s;

static const char *const logins[STAFF_NROLES] = {"tara", "dana", "mona", NULL};

static void setup(void)
{
	struct customer_input ci = {0};
	struct job_input ji = {0};
	struct item_input ii = {0};
	struct visit_input vi = {0};
	struct resource_input ri = {"Tom", "technician", NULL, 1};
	struct payment_input pi = {0};
	struct alloc_input al;
	struct idem_result res;
	int64_t tomorrow;

	fx_env();
	fx_open(&F, "perms");
	snprintf(owner, sizeof owner, "%s", db_operator());
	ck_assert_msg(staff_add(F.db, "tara", "Tara Tech", STAFF_TECHNICIAN) == 0, "%s", err_msg());
	ck_assert_msg(staff_add(F.db, "dana", "Dana Desk", STAFF_DESK) == 0, "%s", err_msg());
	ck_assert_msg(staff_add(F.db, "mona", "Mona Manager", STAFF_MANAGER) == 0, "%s", err_msg());

	ci.name = "Ada Lovelace";
	ck_assert_msg(customer_add(F.db, &ci, &s.cust) == 0, "%s", err_msg());
	ci.name = "Bob Free";
	ck_assert_msg(customer_add(F.db, &ci, &s.cust_free) == 0, "%s", err_msg());
	ji.customer_id = s.cust;
	ji.title = "Detailing";
	ck_assert_msg(job_add(F.db, &ji, &s.job) == 0, "%s", err_msg());
	ii.job_id = s.job;
	ii.kind = "SERVICE";
	ii.description = "Wash";
	ii.qty_milli = 1000;
	ii.unit_price = 10000;
	ck_assert_msg(item_add(F.db, &ii, &s.item) == 0, "%s", err_msg());
	s.inv = fx_invoice(F.db, s.cust, 10000, 30);
	s.inv_open = fx_invoice(F.db, s.cust, 7000, 30);

	pi.customer_id = s.cust;
	pi.amount = 20000;
	pi.method = "cash";
	ck_assert_msg(payment_record(F.db, &pi, NULL, 0, 0, NULL, &res) == 0, "%s", err_msg());
	s.pay = res.id;
	idem_result_free(&res);
	pi.amount = 5000;
	al.invoice_id = s.inv;
	al.amount = 5000;
	ck_assert_msg(payment_record(F.db, &pi, &al, 1, 0, NULL, &res) == 0, "%s", err_msg());
	s.pay_alloc = res.id;
	ck_assert_uint_eq(res.n, 1);
	s.alloc = res.ids[0];
	idem_result_free(&res);

	tomorrow = clock_add_days(clock_day_start(clock_now()), 1);
	vi.start_at = tomorrow + 10 * 3600;
	vi.end_at = tomorrow + 11 * 3600;
	ck_assert_msg(visit_add(F.db, &vi, &s.visit) == 0, "%s", err_msg());
	ck_assert_msg(capacity_resource_add(F.db, &ri, &s.tech) == 0, "%s", err_msg());
	{
		struct service_input si = {"Wax", "SERVICE", "USD", 3000, 30};

		ck_assert_msg(service_add(F.db, &si, &s.service) == 0, "%s", err_msg());
	}
	/* tara is technician Tom on the board, and the visit is Tom's: a
	 * technician works on their own visits (staff_require_own_visit) */
	ck_assert_msg(staff_link_resource(F.db, "tara", s.tech) == 0, "%s", err_msg());
	{
		char sql[300];

		snprintf(sql, sizeof sql,
		         "INSERT INTO appointment_resource (appointment_id, resource_id, start_at,"
		         " end_at, created_at, updated_at) VALUES (%lld, %lld, %lld, %lld, 0, 0)",
		         (long long)s.visit, (long long)s.tech, (long long)vi.start_at,
		         (long long)vi.end_at);
		ck_assert_msg(db_exec(F.db, sql) == 0, "%s", err_msg());
	}

	ck_assert_msg(db_open(F.path, 0, &other) == 0, "%s", err_msg());
	(void)db_data_version(other);
}

static void teardown(void)
{
	db_close(other);
	other = NULL;
	fx_close(&F);
}

/* --------------------------------------------------- what each role holds */

/* The defaults of migration 0023, written out here: the test's own oracle.
 * -1: held without limit; a limit >= 0: held up to it; -2: not held. */
static int64_t role_limit(enum staff_role r, enum perm p)
{
	switch (r) {
	case STAFF_TECHNICIAN:
		return p == PERM_BOARD_VIEW || p == PERM_VISIT_WORK ? -1 : -2;
	case STAFF_DESK:
		switch (p) {
		case PERM_BOARD_VIEW:
		case PERM_VISIT_WORK:
		case PERM_RECORDS_VIEW:
		case PERM_CUSTOMER_EDIT:
		case PERM_BOOKING:
		case PERM_JOB_EDIT:
		case PERM_INVOICE_ISSUE:
		case PERM_PAYMENT_TAKE:
			return -1;
		case PERM_PAYMENT_BACKDATE:
			return 3;
		case PERM_DISCOUNT:
			return 10;
		default:
			return -2;
		}
	case STAFF_MANAGER:
		return p == PERM_STAFF || p == PERM_PROVIDERS || p == PERM_BACKUP ||
		               p == PERM_MIGRATE
		           ? -2
		           : -1;
	default:
		return -1;
	}
}

static int role_holds(enum staff_role r, enum perm p, int64_t amount)
{
	int64_t lim = role_limit(r, p);

	return lim == -1 || (lim >= 0 && amount <= lim);
}

/* ------------------------------------------------------------ the actions */

struct need {
	enum perm p;
	int64_t amount;
};

struct action {
	const char *name;
	int (*run)(void);
	struct need needs[2]; /* the second: p = PERM_N when none */
};

static int a_customer_add(void)
{
	struct customer_input ci = {0};
	int64_t id;

	ci.name = "Carol New";
	return customer_add(F.db, &ci, &id);
}

static int a_customer_edit(void)
{
	struct customer_input ci = {0};

	ci.phone = "555 0100";
	return customer_edit(F.db, s.cust, &ci);
}

static int a_customer_delete(void)
{
	return customer_delete(F.db, s.cust_free);
}

static int a_contact_add(void)
{
	struct contact_input in = {s.cust, 0, "phone", "in", "asked about the price", 0};
	int64_t id;

	return contact_add(F.db, &in, &id);
}

static int a_service_add(void)
{
	struct service_input in = {"Polish", "SERVICE", "USD", 4500, 60};
	int64_t id;

	return service_add(F.db, &in, &id);
}

static int a_resource_add(void)
{
	struct resource_input in = {"Van 9", "van", NULL, 1};
	int64_t id;

	return capacity_resource_add(F.db, &in, &id);
}

static int a_commission_set(void)
{
	struct commission_input in = {-1, 1000, s.tech, -1};

	return commission_set(F.db, s.item, &in);
}

static int a_job_add(void)
{
	struct job_input in = {s.cust, "Another job", NULL, NULL};
	int64_t id;

	return job_add(F.db, &in, &id);
}

static int a_item_add(void)
{
	struct item_input in = {s.job, "FEE", "Travel", 1000, 1500};
	int64_t id;

	return item_add(F.db, &in, &id);
}

/* a DISCOUNT of 5.00 on the job's 100.00: 5 % */
static int a_item_discount(void)
{
	struct item_input in = {s.job, "DISCOUNT", "Loyal customer", 1000, 500};
	int64_t id;

	return item_add(F.db, &in, &id);
}

static int a_visit_add(void)
{
	struct visit_input in = {0};
	int64_t id, day = clock_add_days(clock_day_start(clock_now()), 2);

	in.start_at = day + 9 * 3600;
	in.end_at = day + 10 * 3600;
	return visit_add(F.db, &in, &id);
}

static int a_visit_move(void)
{
	return visit_move(F.db, s.visit, clock_add_days(clock_day_start(clock_now()), 3) + 36000);
}

static int a_link_add(void)
{
	int64_t id;

	return link_add(F.db, s.visit, s.job, 60, &id);
}

static int a_booking_add(void)
{
	struct booking_input in = {0};
	struct booking_result out;
	int64_t day = clock_add_days(clock_day_start(clock_now()), 4);

	in.start_at = day + 13 * 3600;
	in.end_at = day + 14 * 3600;
	in.customers = &s.cust;
	in.ncustomers = 1;
	return booking_add(F.db, &in, &out);
}

static int a_visit_start(void)
{
	return visit_set_status(F.db, s.visit, "in_progress", NULL);
}

static int a_visit_cancel(void)
{
	return visit_set_status(F.db, s.visit, "cancelled", "the customer called");
}

static int a_capacity_off(void)
{
	return capacity_off(F.db, s.tech, "2026-12-24", NULL, "Christmas Eve");
}

static int a_invoice_issue(void)
{
	struct invoice_input in = {0};
	struct idem_result res;
	int rc;

	in.jobs = &s.job;
	in.n_jobs = 1;
	in.terms_days = -1;
	rc = invoice_issue(F.db, &in, NULL, &res);
	idem_result_free(&res);
	return rc;
}

static int a_invoice_credit(void)
{
	struct idem_result res;
	int rc = invoice_credit(F.db, s.inv_open, 1000, "goodwill", NULL, &res);

	idem_result_free(&res);
	return rc;
}

static int a_invoice_void(void)
{
	return invoice_void(F.db, s.inv_open, "issued by mistake");
}

static int a_payment_record(void)
{
	struct payment_input in = {s.cust, NULL, 2500, "cash", NULL, 0, NULL, 0};
	struct idem_result res;
	int rc = payment_record(F.db, &in, NULL, 0, 0, NULL, &res);

	idem_result_free(&res);
	return rc;
}

/* received_at: days whole days before today, at 10:00 */
static int64_t days_ago(int days)
{
	return clock_add_days(clock_day_start(clock_now()), -days) + 10 * 3600;
}

static int record_back(int days, int64_t amount)
{
	struct payment_input in = {s.cust, NULL, amount, "check", NULL, days_ago(days), NULL, 0};
	struct idem_result res;
	int rc = payment_record(F.db, &in, NULL, 0, 0, NULL, &res);

	idem_result_free(&res);
	return rc;
}

static int a_payment_back2(void)
{
	return record_back(2, 1200);
}

static int a_alloc_post(void)
{
	struct alloc_input al = {s.inv_open, 1000};
	struct idem_result res;
	int rc = alloc_post(F.db, s.pay, &al, 1, 0, NULL, &res);

	idem_result_free(&res);
	return rc;
}

static int a_alloc_reverse(void)
{
	struct idem_result res;
	int rc = alloc_reverse(F.db, s.alloc, "wrong invoice", NULL, &res);

	idem_result_free(&res);
	return rc;
}

static int a_payment_void(void)
{
	return payment_void(F.db, s.pay, "entered twice");
}

static int refund(int64_t amount)
{
	struct refund_input in = {s.pay, amount, NULL, NULL, "returned the goods", 0, 0};
	struct idem_result res;
	int rc = refund_post(F.db, &in, NULL, &res);

	idem_result_free(&res);
	return rc;
}

static int a_refund(void)
{
	return refund(1000);
}

static int a_recon_tick(void)
{
	return recon_payout_tick(F.db, "po_nothing");
}

static int a_retention_hold(void)
{
	return retention_hold(F.db, s.cust, "dispute");
}

static int a_task_retry(void)
{
	return task_retry(F.db, 424242);
}

static int a_control_break(void)
{
	return control_break(F.db, CONTROL_RUNNER);
}

static int a_lifecycle_rebuild(void)
{
	int64_t n;

	return lifecycle_rebuild_all(F.db, &n);
}

static int a_provider_set(void)
{
	return chan_adapter_set(F.db, "stripe", NULL, NULL, 0);
}

static int a_backup(void)
{
	struct backup_result res;
	char dest[200];
	int rc;

	snprintf(dest, sizeof dest, "%s/copy.db", F.dir);
	rc = backup_take(F.db, dest, 0, NULL, &res);
	if (!rc)
		backup_result_free(&res);
	return rc;
}

static int a_demo(void)
{
	int64_t made;

	return demo_create(F.db, clock_now(), &made);
}

static int no_row(const struct takings_row *r, void *arg)
{
	(void)r;
	(void)arg;
	return 0;
}

static int a_report(void)
{
	return report_takings(F.db, clock_day_start(clock_now()), clock_now() + 1, no_row, NULL);
}

static int a_export(void)
{
	struct export_range r = {INT64_MIN, INT64_MAX};
	FILE *out = fopen("/dev/null", "w");
	int64_t n;
	int rc;

	ck_assert_ptr_nonnull(out);
	rc = export_csv(F.db, "customers", &r, out, &n);
	fclose(out);
	return rc;
}

static int a_service_retire(void)
{
	return service_retire(F.db, s.service);
}

static int a_hours_set(void)
{
	struct cap_span span = {8 * 60, 17 * 60};

	return capacity_hours_set(F.db, s.tech, 0x3e, &span, 1);
}

static int a_commission_item_add(void)
{
	struct item_input it = {s.job, "SERVICE", "Interior", 1000, 2000};
	struct commission_input in = {-1, 500, s.tech, 30};
	int64_t id;

	return commission_item_add(F.db, &it, &in, &id);
}

static int a_job_edit(void)
{
	struct job_input in = {0, "Full detailing", NULL, NULL};

	return job_edit(F.db, s.job, &in);
}

static int a_job_cancel(void)
{
	return job_set_status(F.db, s.job, "cancelled", "the customer moved away");
}

static int a_item_edit(void)
{
	struct item_input in = {0, NULL, NULL, -1, 12000};

	return item_edit(F.db, s.item, &in);
}

static int a_item_delete(void)
{
	return item_delete(F.db, s.item);
}

static int a_visit_edit(void)
{
	struct visit_input in = {0, 0, "the car park", NULL};

	return visit_edit(F.db, s.visit, &in);
}

static int a_payment_batch(void)
{
	struct payment_batch_item it = {{s.cust, NULL, 900, "cash", NULL, 0, NULL, 0}, NULL, 0, 0};
	struct idem_result res;
	size_t refused;
	int rc = payment_record_batch(F.db, &it, 1, NULL, &res, &refused);

	idem_result_free(&res);
	return rc;
}

static int a_retention_release(void)
{
	return retention_release(F.db, s.cust);
}

static int a_retention_run(void)
{
	struct retention_run_opts o = {0};

	return retention_run(F.db, &o);
}

static int a_task_purge(void)
{
	int64_t n;

	return task_purge(F.db, clock_now(), &n);
}

static int a_inbox_retry(void)
{
	return inbox_retry(F.db, 424242);
}

static int a_projection_rebuild_all(void)
{
	int64_t n;

	return projection_rebuild_all(F.db, 0, NULL, NULL, &n);
}

/* the reads of personal data and money (records.view): each lists
 * nothing into a callback that keeps nothing */
static int no_customer(const struct customer *c, void *arg)
{
	(void)c;
	(void)arg;
	return 0;
}

static int no_invoice(const struct invoice *inv, void *arg)
{
	(void)inv;
	(void)arg;
	return 0;
}

static int no_payment(const struct payment *p, void *arg)
{
	(void)p;
	(void)arg;
	return 0;
}

static int no_contact(const struct contact *ct, void *arg)
{
	(void)ct;
	(void)arg;
	return 0;
}

static int no_event(const struct history_event *e, void *arg)
{
	(void)e;
	(void)arg;
	return 0;
}

static int a_customer_list(void)
{
	return customer_list(F.db, NULL, no_customer, NULL);
}

static int a_invoice_list(void)
{
	struct invoice_filter f = {0};

	return invoice_list(F.db, &f, no_invoice, NULL);
}

static int a_payment_list(void)
{
	return payment_list(F.db, s.cust, no_payment, NULL);
}

static int a_contact_list(void)
{
	return contact_list(F.db, s.cust, no_contact, NULL);
}

static int a_history(void)
{
	char ref[24];

	snprintf(ref, sizeof ref, "%lld", (long long)s.cust);
	return history_read(F.db, "customer", ref, NULL, no_event, NULL);
}

static int no_aging(const struct aging_row *r, void *arg)
{
	(void)r;
	(void)arg;
	return 0;
}

static int a_report_aging(void)
{
	return report_aging(F.db, clock_now(), no_aging, NULL);
}

static int a_customer_aging(void)
{
	return report_customer_aging(F.db, s.cust, clock_now(), no_aging, NULL);
}

static int a_export_ical(void)
{
	struct export_range r = {INT64_MIN, INT64_MAX};
	FILE *out = fopen("/dev/null", "w");
	int64_t n;
	int rc;

	ck_assert_ptr_nonnull(out);
	rc = export_ical(F.db, &r, out, &n);
	fclose(out);
	return rc;
}

static int a_journal(void)
{
	FILE *out = fopen("/dev/null", "w");
	int rc;

	ck_assert_ptr_nonnull(out);
	rc = journal_export(F.db, out);
	fclose(out);
	return rc;
}

static int a_commission_report(void)
{
	return commission_report(F.db, clock_now() - 86400 * 30, clock_now(), NULL, NULL, NULL);
}

/* over the live database (which this test holds open: refused as busy
 * when allowed) from a file that is not a backup */
static int a_backup_restore(void)
{
	char file[200];
	FILE *f;

	snprintf(file, sizeof file, "%s/old.db", F.dir);
	f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fputs("not a database\n", f);
	fclose(f);
	return backup_restore(F.path, file, NULL);
}

#define ONE(p)                                                                                     \
	{                                                                                          \
		{p, 0},                                                                            \
		{                                                                                  \
			PERM_N, 0                                                                  \
		}                                                                                  \
	}

static const struct action actions[] = {
    {"customer_add", a_customer_add, ONE(PERM_CUSTOMER_EDIT)},
    {"customer_edit", a_customer_edit, ONE(PERM_CUSTOMER_EDIT)},
    {"customer_delete", a_customer_delete, ONE(PERM_CUSTOMER_EDIT)},
    {"contact_add", a_contact_add, ONE(PERM_VISIT_WORK)},
    {"service_add", a_service_add, ONE(PERM_CATALOGUE)},
    {"capacity_resource_add", a_resource_add, ONE(PERM_CATALOGUE)},
    {"commission_set", a_commission_set, ONE(PERM_CATALOGUE)},
    {"job_add", a_job_add, ONE(PERM_JOB_EDIT)},
    {"item_add", a_item_add, ONE(PERM_JOB_EDIT)},
    {"item_add DISCOUNT 5%", a_item_discount, {{PERM_JOB_EDIT, 0}, {PERM_DISCOUNT, 5}}},
    {"visit_add", a_visit_add, ONE(PERM_BOOKING)},
    {"visit_move", a_visit_move, ONE(PERM_BOOKING)},
    {"link_add", a_link_add, ONE(PERM_BOOKING)},
    {"booking_add", a_booking_add, ONE(PERM_BOOKING)},
    {"visit_set_status in_progress", a_visit_start, ONE(PERM_VISIT_WORK)},
    {"visit_set_status cancelled", a_visit_cancel, ONE(PERM_BOOKING)},
    {"capacity_off", a_capacity_off, ONE(PERM_BOOKING)},
    {"invoice_issue", a_invoice_issue, ONE(PERM_INVOICE_ISSUE)},
    {"invoice_credit", a_invoice_credit, ONE(PERM_CREDIT_NOTE)},
    {"invoice_void", a_invoice_void, ONE(PERM_VOID)},
    {"payment_record", a_payment_record, ONE(PERM_PAYMENT_TAKE)},
    {"payment_record 2 days back",
     a_payment_back2,
     {{PERM_PAYMENT_TAKE, 0}, {PERM_PAYMENT_BACKDATE, 2}}},
    {"alloc_post", a_alloc_post, ONE(PERM_PAYMENT_TAKE)},
    {"alloc_reverse", a_alloc_reverse, ONE(PERM_VOID)},
    {"payment_void", a_payment_void, ONE(PERM_VOID)},
    {"refund_post 10.00", a_refund, {{PERM_REFUND, 1000}, {PERM_N, 0}}},
    {"recon_payout_tick", a_recon_tick, ONE(PERM_RECON)},
    {"retention_hold", a_retention_hold, ONE(PERM_RETENTION)},
    {"task_retry", a_task_retry, ONE(PERM_OPERATIONS)},
    {"control_break", a_control_break, ONE(PERM_OPERATIONS)},
    {"lifecycle_rebuild_all", a_lifecycle_rebuild, ONE(PERM_OPERATIONS)},
    {"chan_adapter_set", a_provider_set, ONE(PERM_PROVIDERS)},
    {"backup_take", a_backup, ONE(PERM_BACKUP)},
    {"demo_create", a_demo, ONE(PERM_MIGRATE)},
    {"report_takings", a_report, ONE(PERM_REPORTS)},
    {"export_csv", a_export, ONE(PERM_REPORTS)},
    {"service_retire", a_service_retire, ONE(PERM_CATALOGUE)},
    {"capacity_hours_set", a_hours_set, ONE(PERM_CATALOGUE)},
    {"commission_item_add", a_commission_item_add, {{PERM_CATALOGUE, 0}, {PERM_JOB_EDIT, 0}}},
    {"job_edit", a_job_edit, ONE(PERM_JOB_EDIT)},
    {"job_set_status cancelled", a_job_cancel, ONE(PERM_JOB_EDIT)},
    {"item_edit", a_item_edit, ONE(PERM_JOB_EDIT)},
    {"item_delete", a_item_delete, ONE(PERM_JOB_EDIT)},
    {"visit_edit", a_visit_edit, ONE(PERM_BOOKING)},
    {"payment_record_batch", a_payment_batch, ONE(PERM_PAYMENT_TAKE)},
    {"retention_release", a_retention_release, ONE(PERM_RETENTION)},
    {"retention_run", a_retention_run, ONE(PERM_RETENTION)},
    {"task_purge", a_task_purge, ONE(PERM_OPERATIONS)},
    {"inbox_retry", a_inbox_retry, ONE(PERM_OPERATIONS)},
    {"projection_rebuild_all", a_projection_rebuild_all, ONE(PERM_OPERATIONS)},
    {"report_aging", a_report_aging, ONE(PERM_REPORTS)},
    {"report_customer_aging", a_customer_aging, ONE(PERM_RECORDS_VIEW)},
    {"export_ical", a_export_ical, ONE(PERM_REPORTS)},
    {"journal_export", a_journal, ONE(PERM_REPORTS)},
    {"commission_report", a_commission_report, ONE(PERM_REPORTS)},
    {"backup_restore", a_backup_restore, ONE(PERM_BACKUP)},
    {"customer_list", a_customer_list, ONE(PERM_RECORDS_VIEW)},
    {"invoice_list", a_invoice_list, ONE(PERM_RECORDS_VIEW)},
    {"payment_list", a_payment_list, ONE(PERM_RECORDS_VIEW)},
    {"contact_list", a_contact_list, ONE(PERM_RECORDS_VIEW)},
    {"history_read", a_history, ONE(PERM_RECORDS_VIEW)},
};

#define NACTIONS (sizeof actions / sizeof actions[0])

/* What the main connection wrote: total changes, and whether another
 * connection saw a commit. */
struct mark {
	int64_t changes;
	int64_t version;
};

static struct mark mark_now(void)
{
	struct mark m = {sqlite3_total_changes64(db_sqlite(F.db)), db_data_version(other)};

	return m;
}

/* 1 when the message of a refusal names permission p as the one needed. */
static int names_perm(const char *msg, enum perm p)
{
	char want[64];

	snprintf(want, sizeof want, "\"%s\"", perm_word(p));
	return strstr(msg, want) != NULL;
}

/* Run action a as a person of role r: allowed or refused as the role's
 * defaults say; a refusal changes nothing and names the first permission
 * the role lacks. */
static void check_one(enum staff_role r, const struct action *a)
{
	const struct need *missing = NULL;
	struct mark before, after;
	int i, rc;

	for (i = 0; i < 2 && !missing; i++)
		if (a->needs[i].p != PERM_N && !role_holds(r, a->needs[i].p, a->needs[i].amount))
			missing = &a->needs[i];
	db_operator_pretend(logins[r] ? logins[r] : owner);
	before = mark_now();
	rc = a->run();
	after = mark_now();
	if (!missing) {
		ck_assert_msg(rc != FD_EPERM, "%s as %s was refused: %s", a->name,
		              staff_role_word(r), err_msg());
		return;
	}
	ck_assert_msg(rc == FD_EPERM, "%s as %s: %d, not refused (%s)", a->name, staff_role_word(r),
	              rc, rc ? err_msg() : "done");
	ck_assert_msg(names_perm(err_msg(), missing->p),
	              "%s as %s: the refusal names not \"%s\": %s", a->name, staff_role_word(r),
	              perm_word(missing->p), err_msg());
	ck_assert_msg(after.changes == before.changes, "%s as %s wrote %lld row(s) before refusing",
	              a->name, staff_role_word(r), (long long)(after.changes - before.changes));
	ck_assert_msg(after.version == before.version, "%s as %s committed before refusing",
	              a->name, staff_role_word(r));
}

/* _i: role * NACTIONS + action */
START_TEST(test_role_action)
{
	check_one((enum staff_role)(_i / (int)NACTIONS), &actions[_i % (int)NACTIONS]);
}
END_TEST

/* The oracle above is the migration's: every role's limit agrees with what
 * the register says of its person. */
START_TEST(test_oracle_is_the_migration)
{
	int r, p;

	for (r = 0; r < STAFF_NROLES; r++)
		for (p = 0; p < PERM_N; p++) {
			const char *login = logins[r] ? logins[r] : owner;
			int64_t lim = -3;
			int rc = staff_limit_of(F.db, login, (enum perm)p, &lim);

			if (role_limit((enum staff_role)r, (enum perm)p) == -2)
				ck_assert_msg(rc == FD_ENOTFOUND, "%s holds %s", login,
				              perm_word((enum perm)p));
			else
				ck_assert_msg(
				    rc == 0 && lim == role_limit((enum staff_role)r, (enum perm)p),
				    "%s: %s up to %lld", login, perm_word((enum perm)p),
				    (long long)lim);
		}
}
END_TEST

/* ------------------------------------------------------------- the limits */

/* Refund as the desk: refused (no refund at all), then granted up to 50.00:
 * 50.00 passes, 50.01 is refused naming the limit, and writes nothing. */
START_TEST(test_desk_refund_limit)
{
	const int64_t limit = 5000;
	struct mark before, after;
	int64_t refunds;

	db_operator_pretend("dana");
	ck_assert_int_eq(refund(limit), FD_EPERM);
	ck_assert_msg(names_perm(err_msg(), PERM_REFUND), "%s", err_msg());
	db_operator_pretend(owner);
	ck_assert_msg(staff_grant(F.db, "dana", PERM_REFUND, limit) == 0, "%s", err_msg());
	db_operator_pretend("dana");
	refunds = fx_one(F.db, "SELECT count(*) FROM refund");
	ck_assert_msg(refund(limit) == 0, "%s", err_msg());
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM refund"), refunds + 1);
	before = mark_now();
	ck_assert_int_eq(refund(limit + 1), FD_EPERM);
	after = mark_now();
	ck_assert_msg(names_perm(err_msg(), PERM_REFUND), "%s", err_msg());
	ck_assert_msg(strstr(err_msg(), "50.01") && strstr(err_msg(), "50.00"), "%s", err_msg());
	ck_assert_int_eq(after.changes, before.changes);
	ck_assert_int_eq(after.version, before.version);
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM refund"), refunds + 1);
}
END_TEST

/* A DISCOUNT line on a job of charges 100.00: off/charges in whole
 * percent, rounded up. */
static int64_t percent_up(int64_t off, int64_t charges)
{
	return (off * 100 + charges - 1) / charges;
}

static int discount(int64_t job, int64_t cents)
{
	struct item_input in = {job, "DISCOUNT", "Goodwill", 1000, cents};
	int64_t id;

	return item_add(F.db, &in, &id);
}

/* The desk discounts up to 10 %: 10.00 of 100.00 passes, 10.01 (11 %
 * rounded up) is refused; a CREDIT line counts with the discounts; a job
 * with no charges is 100 %. */
START_TEST(test_desk_discount_limit)
{
	const int64_t charges = 10000;
	struct job_input ji = {0};
	struct item_input ii = {0};
	int64_t job2, job3, item, lines;

	ji.customer_id = s.cust;
	ji.title = "Second";
	ck_assert_msg(job_add(F.db, &ji, &job2) == 0, "%s", err_msg());
	ji.title = "Nothing charged";
	ck_assert_msg(job_add(F.db, &ji, &job3) == 0, "%s", err_msg());
	ii.job_id = job2;
	ii.kind = "SERVICE";
	ii.description = "Wash";
	ii.qty_milli = 1000;
	ii.unit_price = charges;
	ck_assert_msg(item_add(F.db, &ii, &item) == 0, "%s", err_msg());

	db_operator_pretend("dana");
	ck_assert_int_eq(percent_up(1000, charges), 10);
	ck_assert_msg(discount(s.job, 1000) == 0, "%s", err_msg());
	ck_assert_int_eq(percent_up(1001, charges), 11);
	lines = fx_one(F.db, "SELECT count(*) FROM line_item");
	ck_assert_int_eq(discount(job2, 1001), FD_EPERM);
	ck_assert_msg(names_perm(err_msg(), PERM_DISCOUNT), "%s", err_msg());
	ck_assert_msg(strstr(err_msg(), "11%"), "%s", err_msg());
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM line_item"), lines);
	/* 6.00 of discount and then 5.00 of credit: 11 % together */
	ck_assert_msg(discount(job2, 600) == 0, "%s", err_msg());
	{
		struct item_input in = {job2, "CREDIT", "Voucher", 1000, 500};

		ck_assert_int_eq(percent_up(600 + 500, charges), 11);
		ck_assert_int_eq(item_add(F.db, &in, &item), FD_EPERM);
	}
	ck_assert_int_eq(discount(job3, 1), FD_EPERM); /* no charges: 100 % */
	db_operator_pretend("mona");
	ck_assert_msg(discount(job3, 1) == 0, "%s", err_msg());
}
END_TEST

/* The desk dates a payment back up to 3 days: 3 passes, 4 is refused
 * naming payment.backdate, and writes nothing. */
START_TEST(test_desk_backdate_limit)
{
	int64_t pays;

	db_operator_pretend("dana");
	pays = fx_one(F.db, "SELECT count(*) FROM payment");
	ck_assert_msg(record_back(3, 1500) == 0, "%s", err_msg());
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM payment"), pays + 1);
	ck_assert_int_eq(record_back(4, 1500), FD_EPERM);
	ck_assert_msg(names_perm(err_msg(), PERM_PAYMENT_BACKDATE), "%s", err_msg());
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM payment"), pays + 1);
	db_operator_pretend("mona");
	ck_assert_msg(record_back(40, 1500) == 0, "%s", err_msg());
}
END_TEST

/* The refusal names who holds the permission, so that the person knows
 * whom to ask. */
START_TEST(test_refusal_names_holders)
{
	db_operator_pretend("tara");
	ck_assert_int_eq(a_invoice_void(), FD_EPERM);
	ck_assert_msg(strstr(err_msg(), "Mona Manager (mona)"), "%s", err_msg());
	ck_assert_msg(strstr(err_msg(), "void invoice"), "%s", err_msg());
}
END_TEST

/* A technician starts and finishes their own visits only (the visits
 * that reserve the technician they are on the board); a desk any visit. */
START_TEST(test_technician_own_visits)
{
	struct visit_input vi = {0, 0, NULL, NULL};
	char sql[120];
	int64_t theirs;

	vi.start_at = fx_one(F.db, "SELECT start_at FROM appointment ORDER BY id LIMIT 1") + 7200;
	vi.end_at = vi.start_at + 3600;
	ck_assert_msg(visit_add(F.db, &vi, &theirs) == 0, "%s", err_msg());
	db_operator_pretend("tara");
	ck_assert_int_eq(visit_set_status(F.db, theirs, "in_progress", NULL), FD_EPERM);
	ck_assert_msg(strstr(err_msg(), "not one of"), "%s", err_msg());
	snprintf(sql, sizeof sql,
	         "SELECT count(*) FROM appointment WHERE id = %lld"
	         " AND status = 'scheduled'",
	         (long long)theirs);
	ck_assert_int_eq(fx_one(F.db, sql), 1);
	ck_assert_int_eq(visit_set_status(F.db, s.visit, "in_progress", NULL), 0);
	db_operator_pretend("dana");
	ck_assert_int_eq(visit_set_status(F.db, theirs, "in_progress", NULL), 0);
}
END_TEST

/* ------------------------------------------------------------- approvals */

/* A booking is one action: a manager's PIN approves a technician's booking
 * once, and the visit, job and link it makes ask nothing more; a second
 * booking needs a second approval. */
START_TEST(test_pin_approves_a_booking_once)
{
	int64_t visits;

	db_operator_pretend("mona");
	ck_assert_msg(staff_pin_set(F.db, "482913") == 0, "%s", err_msg());
	db_operator_pretend("tara");
	visits = fx_one(F.db, "SELECT count(*) FROM appointment");
	ck_assert_int_eq(a_booking_add(), FD_EPERM);
	ck_assert_msg(names_perm(err_msg(), PERM_BOOKING), "%s", err_msg());
	ck_assert_msg(staff_pin_approve(F.db, "mona", "482913") == 0, "%s", err_msg());
	ck_assert_msg(a_booking_add() == 0, "%s", err_msg());
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM appointment"), visits + 1);
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM approval WHERE status = 'used'"
	                              " AND how = 'pin' AND requested_by = 'tara'"
	                              " AND decided_by = 'mona' AND permission = 'booking'"
	                              " AND subject LIKE 'book a visit for customer %'"),
	                 1);
	ck_assert_int_eq(a_booking_add(), FD_EPERM);
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM appointment"), visits + 1);
}
END_TEST

/* A refusal filed as a request, approved from the manager's own session,
 * lets the same refund through once: the subject stored is the one
 * compared. */
START_TEST(test_session_approval_of_a_refund)
{
	const int64_t amount = 3000;
	int64_t id = 0, refunds;

	db_operator_pretend("dana");
	refunds = fx_one(F.db, "SELECT count(*) FROM refund");
	ck_assert_int_eq(refund(amount), FD_EPERM);
	ck_assert_msg(approval_file(F.db, &id) == 0, "%s", err_msg());
	db_operator_pretend("mona");
	ck_assert_msg(approval_decide(F.db, id, 1) == 0, "%s", err_msg());
	db_operator_pretend("dana");
	staff_use_approval(F.db, id);
	ck_assert_int_eq(refund(amount + 1), FD_EPERM); /* more than approved */
	staff_use_approval(F.db, id);
	ck_assert_msg(refund(amount) == 0, "%s", err_msg());
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM refund"), refunds + 1);
	staff_use_approval(F.db, id);
	ck_assert_int_eq(refund(amount), FD_EPERM); /* used */
	ck_assert_int_eq(fx_one(F.db, "SELECT count(*) FROM refund"), refunds + 1);
}
END_TEST

/* The pipeline's own steps and a checked action's parts act for the shop;
 * outside them, the same call asks again. */
START_TEST(test_acting_for_the_shop_ends)
{
	db_operator_pretend("tara");
	control_acting_enter();
	ck_assert_msg(a_customer_add() == 0, "%s", err_msg());
	control_acting_leave();
	ck_assert_int_eq(a_customer_add(), FD_EPERM);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("perms");
	TCase *tc = tcase_create("perms");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_oracle_is_the_migration);
	tcase_add_loop_test(tc, test_role_action, 0, (int)(STAFF_NROLES * NACTIONS));
	tcase_add_test(tc, test_desk_refund_limit);
	tcase_add_test(tc, test_desk_discount_limit);
	tcase_add_test(tc, test_desk_backdate_limit);
	tcase_add_test(tc, test_refusal_names_holders);
	tcase_add_test(tc, test_technician_own_visits);
	tcase_add_test(tc, test_pin_approves_a_booking_once);
	tcase_add_test(tc, test_session_approval_of_a_refund);
	tcase_add_test(tc, test_acting_for_the_shop_ends);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
