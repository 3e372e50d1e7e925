/*
 * dayclose.h - the day's close: its figures (what a Z report prints), the
 * close and the reopen of a shop day (table day_close of migration 0024),
 * owned by dayclose.c.
 *
 * A shop day is "YYYY-MM-DD" in the shop's zone, its UTC window
 * recon_day_window's. Closing it (day.close) needs every drawer opened
 * before its end counted; the close keeps the day's figures as they stand
 * (day_figures_json) and from then on nothing is posted into the day
 * (drawer.h: day_refuse_in) until a reopen (day.close too, with a reason).
 * Closing it again compares the figures with those of the last close
 * (day_changes). Nothing of day_close is ever edited.
 *
 * Callers: the command line (cli-day.c), the screen, the Z report
 * (zreport.c), the check (checkdb.c).
 */
#ifndef FD_DAYCLOSE_H
#define FD_DAYCLOSE_H

#include <stddef.h>
#include <stdint.h>

#include "drawer.h"

struct db;

/* Takings of one method and currency on the day: report_takings' row. */
struct day_method {
	char method[16];
	char currency[4];
	int64_t count;    /* payments received (not void) */
	int64_t received; /* their amounts */
	int64_t refunded; /* refunds that succeeded, by the refund's day */
	int64_t net;      /* received - refunded */
};

/* A void of the day: a payment or an invoice voided then. */
struct day_void {
	char kind[8]; /* payment, invoice */
	int64_t id;
	char number[32]; /* the invoice's number; "" for a payment */
	char currency[4];
	int64_t amount; /* the payment's amount, the invoice's total */
	char *reason;   /* NULL when none was given */
};

/* A credit note issued on the day. */
struct day_credit {
	int64_t id;
	char number[32];
	char credits[32]; /* the number of the invoice it corrects */
	char currency[4];
	int64_t total; /* < 0 */
};

/* A check received on the day, to deposit. */
struct day_check {
	int64_t payment_id;
	char *customer;
	char *reference; /* the check's number; NULL when none */
	char currency[4];
	int64_t amount;
};

struct day_figures {
	char day[11];
	int64_t from, to; /* its UTC window */
	struct day_method *methods;
	size_t nmethods;
	struct day_void *voids;
	size_t nvoids;
	struct day_credit *credits;
	size_t ncredits;
	struct drawer *drawers; /* sessions opened in the day, oldest first */
	size_t ndrawers;
	struct day_check *checks; /* oldest first */
	size_t nchecks;
	/* cash payments received in the day that are in no drawer */
	int64_t loose_cash_count;
	/* the card reconciliation of the day: recon 0 when none was run */
	int recon;
	int recon_balanced;
	int64_t recon_open; /* open differences */
	/* the day's close */
	int closed;          /* 1 while closed */
	int64_t closed_at;   /* the last close, 0 when never */
	char closed_by[33];  /* its login */
	int closes, reopens; /* how many of each */
};

/* day_figures_get - the figures of day ("YYYY-MM-DD") into *out
 * (day_figures_free). FD_EINVAL for a day that cannot be read. Reads only,
 * in one snapshot. */
int day_figures_get(struct db *db, const char *day, struct day_figures *out);
void day_figures_free(struct day_figures *f);

/* day_figures_json - the figures as the canonical JSON a close keeps (what
 * day_changes compares: takings per method, voids, credit notes, drawers
 * and checks, without the close's own state). Caller frees. */
char *day_figures_json(const struct day_figures *f);

/* day_changes - each figure that differs between two day_figures_json
 * texts: cb(what, before, after) with what like "takings cash USD
 * received" and the values as text ("" when absent on that side). 0, or
 * cb's nonzero. */
int day_changes(const char *before, const char *after,
                int (*cb)(const char *what, const char *before, const char *after, void *arg),
                void *arg);

/* day_close - close day (day.close; every drawer opened before its end
 * counted, else FD_ECONFLICT naming them; FD_ECONFLICT when closed).
 * *previous (may be NULL) gets the figures JSON of the last close when the
 * day was closed before and reopened (caller frees; NULL when first
 * closed), so the caller can show day_changes against the new one. */
int day_close(struct db *db, const char *day, char **previous);

/* day_reopen - reopen closed day for reason (required; day.close). */
int day_reopen(struct db *db, const char *day, const char *reason);

/* One close or reopen of a day. */
struct day_event {
	int64_t id;
	char day[11];
	char kind[8]; /* close, reopen */
	char by[33];
	char *reason;  /* a reopen's; NULL for a close */
	char *figures; /* a close's JSON; NULL for a reopen */
	int64_t at;
};

/* day_events - the closes and reopens of day (NULL: of every day, newest
 * day first), in order. */
int day_events(struct db *db, const char *day, int (*cb)(const struct day_event *e, void *arg),
               void *arg);

#endif
