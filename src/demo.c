/*
 * demo.c - the demo database (see demo.h).
 *
 * Everything is written through the same core functions the desk uses, so
 * the demo also exercises history, status flows and validation. The data is
 * deterministic for a given "now": a small xorshift generator seeded with a
 * constant picks names, services and times.
 *
 * Permissions: demo_create asks migrate once, then makes its records as
 * one action (control.h).
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "control.h"
#include "customer.h"
#include "db.h"
#include "demo.h"
#include "err.h"
#include "i18n.h"
#include "invoice.h"
#include "job.h"
#include "payment.h"
#include "service.h"
#include "visit.h"

static const char *const names[] = {
    "Ada Lee",      "Bo Chen",       "Carmen Ortiz", "Dmitri Volkov", "Ella Johnson",
    "Farah Haddad", "George Miller", "Hana Sato",    "Ivan Petrov",   "Julia Rossi",
    "Kofi Mensah",  "Laura Smith",   "Mateo García", "Nora Fischer",  "Owen Brown",
    "Priya Patel",  "Quinn Davis",   "Rosa Silva",   "Sam O'Neil",    "Tomás Novák",
    "Uma Iyer",     "Victor Dubois", "Wen Zhang",    "Xavier Kim",    "Yara Costa",
    "Zoë Müller",   "王小明",        "李美玲",       "陳志豪",        "佐藤 花子",
    "Ali Demir",    "Beatriz Luna",  "Chidi Okafor", "Dana Wright",   "Emil Berg",
    "Fiona Walsh",
};

/* The catalogue (service.h): the demo's jobs are booked from it, as the
 * desk books them, and a visit lasts as long as its service. The travel
 * fee is the last one. */
static const struct {
	const char *kind, *desc;
	int64_t price;   /* cents */
	int64_t minutes; /* the default length */
} services[] = {
    {"SERVICE", "Full detail", 18000, 180},
    {"SERVICE", "Interior shampoo", 9000, 90},
    {"SERVICE", "Wash and wax", 12000, 60},
    {"SERVICE", "Ceramic coating", 45000, 150},
    {"SERVICE", "Headlight restoration", 6000, 60},
    {"SERVICE", "Engine bay clean", 7500, 120},
    {"FEE", "Travel fee", 2500, 0},
};

/* The ordinary services a visit picks from (the fee is added to some). */
#define DEMO_NSVC 6
#define DEMO_FEE  6
static int64_t svc_id[sizeof services / sizeof services[0]];

static const char *const streets[] = {"Main St",   "Oak Ave", "Maple Dr", "Cedar Ln",
                                      "Harbor Rd", "Elm St",  "Pine Ct",  "Lake View Blvd"};

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

/* Jobs whose visit is over, to bill after the visits are made. */
struct billable {
	int64_t job, customer;
};

static int has_customers(struct db *db, int *yes)
{
	int64_t n = 0;
	int rc = db_one_int(db, "SELECT count(*) FROM customer", &n);

	*yes = n > 0;
	return rc;
}

/* The demo's catalogue, added through the core as `frontdesk service add`
 * adds it. */
static int demo_services(struct db *db)
{
	size_t i;
	int rc;

	for (i = 0; i < sizeof services / sizeof services[0]; i++) {
		struct service_input in = {services[i].desc, services[i].kind, "USD",
		                           services[i].price, services[i].minutes};

		if ((rc = service_add(db, &in, &svc_id[i])))
			return rc;
	}
	return 0;
}

/* A job for customer with one service from the catalogue (and sometimes
 * the travel fee). */
static int make_job(struct db *db, int64_t customer, const char *title_override, int svc,
                    int64_t *job)
{
	struct job_input ji = {customer, title_override ? title_override : services[svc].desc,
	                       "USD", NULL};
	int64_t item;
	int rc;

	if ((rc = job_add(db, &ji, job)))
		return rc;
	if ((rc = service_to_job(db, svc_id[svc], *job, 1000, &item)))
		return rc;
	if (rnd(4) == 0)
		rc = service_to_job(db, svc_id[DEMO_FEE], *job, 1000, &item);
	return rc;
}

static int make_visit(struct db *db, int64_t start, int minutes, const char *where, int64_t *appt)
{
	struct visit_input ai = {start, start + (int64_t)minutes * 60, where, NULL};

	return visit_add(db, &ai, appt);
}

/* Move a visit along its status machine to where its time says it is;
 * *done says whether the work was done (and can be billed). */
static int settle_status(struct db *db, int64_t appt, int64_t start, int64_t now, int *done)
{
	int rc = 0;

	*done = 0;
	if (start < now - 86400) {
		if (rnd(12) == 0)
			return visit_set_status(db, appt, "no_show", _("customer did not come"));
		if ((rc = visit_set_status(db, appt, "in_progress", NULL)) == 0)
			rc = visit_set_status(db, appt, "done", NULL);
		*done = rc == 0;
	} else if (start < now + 3 * 86400 && rnd(2) == 0) {
		rc = visit_set_status(db, appt, "confirmed", _("confirmed by phone"));
	}
	return rc;
}

static int issue(struct db *db, int64_t job, int64_t *invoice, int64_t *total)
{
	struct invoice_input in = {0};
	struct idem_result res = {0};
	struct invoice inv;
	int rc;

	in.jobs = &job;
	in.n_jobs = 1;
	in.terms_days = -1;
	if ((rc = invoice_issue(db, &in, NULL, &res)))
		return rc;
	*invoice = res.id;
	idem_result_free(&res);
	if ((rc = invoice_get(db, *invoice, &inv)))
		return rc;
	*total = inv.balance;
	invoice_free(&inv);
	return 0;
}

static int pay(struct db *db, int64_t customer, int64_t amount, const char *method, const char *ref,
               const struct alloc_input *allocs, size_t n)
{
	struct payment_input in = {customer, "USD", amount, method, ref, 0, NULL, 0};
	struct idem_result res = {0};
	int rc = payment_record(db, &in, allocs, n, 0, NULL, &res);

	idem_result_free(&res);
	return rc;
}

/*
 * Bill the finished jobs and take payments the way a shop's month goes:
 * most paid in full by cash, check or card, some in part, some still owed,
 * and one check that pays two invoices of the same customer.
 */
static int bill_and_pay(struct db *db, const struct billable *bill, size_t n)
{
	static const char *const methods[] = {"cash", "check", "card"};
	unsigned char used[128] = {0};
	size_t i, j;
	int rc;

	for (i = 0; i < n; i++) {
		int64_t inv, total, inv2, total2;
		struct alloc_input a[2];
		char ref[32];
		int m = (int)rnd(3), fate = (int)rnd(10);

		if (used[i])
			continue;
		used[i] = 1;
		if ((rc = issue(db, bill[i].job, &inv, &total)))
			return rc;
		snprintf(ref, sizeof ref,
		         m == 1   ? "check #%u"
		         : m == 2 ? "card ref %u"
		                  : "till %u",
		         1000 + rnd(8000));
		a[0].invoice_id = inv;
		for (j = i + 1; j < n && (used[j] || bill[j].customer != bill[i].customer); j++)
			;
		if (j < n && fate < 7) {
			/* one check pays two invoices: one payment, two allocations */
			used[j] = 1;
			if ((rc = issue(db, bill[j].job, &inv2, &total2)))
				return rc;
			a[0].amount = total;
			a[1].invoice_id = inv2;
			a[1].amount = total2;
			snprintf(ref, sizeof ref, "check #%u", 1000 + rnd(8000));
			if ((rc = pay(db, bill[i].customer, total + total2, "check", ref, a, 2)))
				return rc;
		} else if (fate < 6) {
			a[0].amount = total;
			if ((rc = pay(db, bill[i].customer, total, methods[m], ref, a, 1)))
				return rc;
		} else if (fate < 8) {
			a[0].amount = total / 2;
			if ((rc = pay(db, bill[i].customer, total / 2, methods[m], ref, a, 1)))
				return rc;
		} /* else: still owed */
	}
	return 0;
}

/* The demo's customers, their ids into cust[0..nc). */
static int demo_customers(struct db *db, int64_t *cust, size_t nc)
{
	char addr[64], phone[32];
	size_t i;
	int rc;

	for (i = 0; i < nc; i++) {
		struct customer_input ci = {names[i], phone, NULL, addr, NULL};

		snprintf(phone, sizeof phone, "555-%04u", 100 + rnd(9800));
		snprintf(addr, sizeof addr, "%u %s", 10 + rnd(980),
		         streets[rnd(sizeof streets / sizeof streets[0])]);
		if ((rc = customer_add(db, &ci, &cust[i])))
			return rc;
	}
	return 0;
}

/* The most done visits billed. */
#define DEMO_BILLS 128

/* One of the day's ordinary visits (starting at start) for one
 * of the customers cust[0..nc); a visit that is done goes into bill. */
static int demo_visit(struct db *db, int64_t start, int64_t now, const int64_t *cust, size_t nc,
                      struct billable *bill, size_t *nbill)
{
	size_t c = rnd((uint32_t)nc);
	int svc = (int)rnd(DEMO_NSVC);
	int minutes = (int)services[svc].minutes;

	/* the draw that picked a length before the services had their own:
	 * kept so that the rest of the demo (customers, statuses, bills)
	 * stays the same */
	(void)rnd(5);
	struct customer cu;
	int64_t appt, job;
	int rc, done;

	if ((rc = customer_get(db, cust[c], &cu)))
		return rc;
	rc = make_visit(db, start, minutes, cu.address, &appt);
	customer_free(&cu);
	if (rc || (rc = make_job(db, cust[c], NULL, svc, &job)) ||
	    (rc = link_add(db, appt, job, minutes, NULL)) ||
	    (rc = settle_status(db, appt, start, now, &done)))
		return rc;
	if (done && *nbill < DEMO_BILLS) {
		bill[*nbill].job = job;
		bill[*nbill].customer = cust[c];
		(*nbill)++;
	}
	return 0;
}

/* A month of ordinary visits around today: 2 to 4 on working days. */
static int demo_month(struct db *db, int64_t today, int64_t now, const int64_t *cust, size_t nc,
                      struct billable *bill, size_t *nbill, int64_t *made)
{
	int rc, day;

	for (day = -14; day <= 16; day++) {
		int64_t d0 = clock_add_days(today, day);
		int n = 2 + (int)rnd(3), k;
		char wd[4];

		clock_format_local(d0, "%u", wd, sizeof wd);
		if (wd[0] == '7')
			continue; /* closed on Sundays */
		for (k = 0; k < n; k++) {
			if ((rc = demo_visit(db, d0 + (9 + 2 * k) * 3600, now, cust, nc, bill,
			                     nbill)))
				return rc;
			(*made)++;
		}
	}
	return 0;
}

/* One job, two visits: a ceramic coating rained off yesterday and
 * finished today at the customer's address (customer c). One line item,
 * billed once. */
static int demo_two_visits(struct db *db, int64_t today, int64_t c, int64_t *made)
{
	struct customer home;
	int64_t appt, job, start;
	char addr[64];
	int rc;

	if ((rc = customer_get(db, c, &home)))
		return rc;
	snprintf(addr, sizeof addr, "%s", home.address ? home.address : "");
	customer_free(&home);
	start = clock_add_days(today, -1) + 13 * 3600;
	if ((rc = make_job(db, c, _("Ceramic coating (rained off, finished next day)"), 3, &job)) ||
	    (rc = make_visit(db, start, 180, addr, &appt)) ||
	    (rc = link_add(db, appt, job, 60, NULL)) ||
	    (rc = visit_set_status(db, appt, "in_progress", NULL)) ||
	    (rc = visit_set_status(db, appt, "done", _("rained off after an hour"))))
		return rc;
	(*made)++;
	start = today + 17 * 3600;
	if ((rc = make_visit(db, start, 150, addr, &appt)) ||
	    (rc = link_add(db, appt, job, 120, NULL)))
		return rc;
	(*made)++;
	return 0;
}

/* One visit serving three customers' jobs (cust[1..3]) at one address. */
static int demo_shared_visit(struct db *db, int64_t today, const int64_t *cust, int64_t *made)
{
	int64_t appt, job, start = clock_add_days(today, 1) + 10 * 3600;
	size_t i;
	int rc;

	if ((rc = make_visit(db, start, 240, "Harbor View Apartments, 200 Bay St", &appt)))
		return rc;
	for (i = 1; i <= 3; i++) {
		if ((rc = make_job(db, cust[i], NULL, (int)i % 3, &job)) ||
		    (rc = link_add(db, appt, job, 80, NULL)))
			return rc;
	}
	(*made)++;
	return 0;
}

int demo_create(struct db *db, int64_t now, int64_t *made)
{
	int64_t cust[sizeof names / sizeof names[0]];
	int64_t today = clock_day_start(now);
	size_t nc = sizeof names / sizeof names[0];
	struct billable bill[DEMO_BILLS];
	size_t nbill = 0;
	int rc, any;

	*made = 0;
	/* asked once: the customers, visits, invoices and payments it makes
	 * are that one action (control.h) */
	if ((rc = control_ask(db, PERM_MIGRATE, 0, "create the demo data")))
		return rc;
	if ((rc = has_customers(db, &any)) || any)
		return rc;
	rng_state = 0x9E3779B97F4A7C15ull;
	control_acting_enter();
	if (!(rc = demo_services(db)) && !(rc = demo_customers(db, cust, nc)) &&
	    !(rc = demo_month(db, today, now, cust, nc, bill, &nbill, made)) &&
	    !(rc = demo_two_visits(db, today, cust[0], made)) &&
	    !(rc = demo_shared_visit(db, today, cust, made)))
		rc = bill_and_pay(db, bill, nbill);
	control_acting_leave();
	return rc;
}
