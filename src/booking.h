/*
 * booking.h - booking a visit in one step: the visit, the job of each
 * customer it is for (a new one, or the customer's open job), the line
 * items of the services chosen from the catalogue, and the links between
 * the visit and the jobs, in ONE write transaction: all of it is booked or
 * none of it.
 *
 * The booking owns no table. Each record is written by its owner (visit.c,
 * job.c, service.c through item.c, visit.c's links), whose rules apply
 * unchanged (capacity.c reserves the resources); the owners' writes run as savepoints of the
 * booking's transaction (db_write nests), so a refusal by any of them rolls back the whole booking.
 *
 * Callers: the screen's booking form (ui/form-book.c) and `frontdesk book`.
 */
#ifndef FD_BOOKING_H
#define FD_BOOKING_H

#include <stddef.h>
#include <stdint.h>

struct db;
struct item_input;
struct strbuf;

#define BOOKING_MAX_CUSTOMERS 20 /* customers on one visit */
#define BOOKING_MAX_SERVICES  20 /* services chosen for each of them */

/* What to book. start_at/end_at as visit_add wants them (visit.h). Each
 * customer gets the services as line items of quantity 1 (the catalogue's
 * name, kind and price copied: a later catalogue change never changes
 * them): with use_open_job on the customer's newest open job in the
 * services' currency when there is one, else on a new job titled title
 * (NULL or "": the services' names, or "Visit" with no service). location
 * NULL uses the first customer's address. Each link's estimated minutes is
 * the visit's length shared among the customers (the first takes the
 * remainder). Every service must be active and priced in one currency;
 * a customer appears once. resources (0..CAPACITY_MAX_RESOURCES ids,
 * capacity.h) are the technicians, vans or bays the visit holds: all of
 * them are reserved for its time in the same transaction (each active,
 * working then and free) or nothing is booked; none: no reservation. */
struct booking_input {
	int64_t start_at, end_at;
	const char *location;
	const char *note;
	const char *title;
	const int64_t *customers; /* 1..BOOKING_MAX_CUSTOMERS ids */
	size_t ncustomers;
	const int64_t *services; /* 0..BOOKING_MAX_SERVICES ids */
	size_t nservices;
	int use_open_job;
	const int64_t *resources; /* 0..CAPACITY_MAX_RESOURCES ids */
	size_t nresources;
	/* For the visits a recurring job makes (recurring.h); 0 / NULL for a
	 * booking at the desk. job_id: with one customer, the visit works on
	 * this job instead of one found or made. lines: items added to each
	 * new or found job as given (their prices, not the catalogue's; their
	 * job_id is ignored). currency: of a new job when no service names
	 * one (NULL: the shop's). */
	int64_t job_id;
	const struct item_input *lines;
	size_t nlines;
	const char *currency;
	int unannounced; /* 1: no ANNOUNCE_VISIT_BOOKED (a recurring job's visit) */
};

/* What was booked: the visit, and per customer (in input order) its job and
 * whether that job was new. */
struct booking_result {
	int64_t appt_id;
	int64_t job_ids[BOOKING_MAX_CUSTOMERS];
	int job_new[BOOKING_MAX_CUSTOMERS];
	size_t njobs;
	size_t nitems; /* line items added, over all jobs */
};

/* booking_customers - the customers text names, for the booking form and
 * `frontdesk book`: one customer_find text (a name, a phone number, a
 * number), or several separated by ';' (names often hold commas; the
 * whole text is tried as one first). ids gets up to
 * BOOKING_MAX_CUSTOMERS, *n their count; names (may be NULL) their names
 * joined with ", ". On a refusal the reason names the part. */
int booking_customers(struct db *db, const char *text, int64_t ids[BOOKING_MAX_CUSTOMERS],
                      size_t *n, struct strbuf *names);

/* booking_services - the same for services (service_find each),
 * separated by ',' or ';' (the whole text tried first); "" gives none. With info (may be NULL):
 * "Name 80.00, Other 40.00", and *minutes (may be NULL) the sum of their default minutes. */
int booking_services(struct db *db, const char *text, int64_t ids[BOOKING_MAX_SERVICES], size_t *n,
                     struct strbuf *info, int64_t *minutes);

/* booking_add - book in; 0 and *out filled, or a FD_E* code with the reason
 * in err_msg() and nothing written. */
int booking_add(struct db *db, const struct booking_input *in, struct booking_result *out);

#endif
