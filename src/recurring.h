/*
 * recurring.h - work that repeats: recurring jobs (tables recurring_*,
 * data/schema/0026-recurring.sql), owned by recurring.c.
 *
 * A recurring job is a rule in iCalendar's RRULE form (read, written and
 * expanded by libical, never by hand) on the shop's local dates, with what
 * each visit it makes holds: the customer, a title, the time of day and
 * length, the place, the line items at the prices agreed when the rule was
 * made, and the resources. Visits are made ahead up to a horizon (setting
 * recurring_horizon_days, default 90) by the task 'recurring', idempotently:
 * one occurrence row per (rule, day), written with its visit in one
 * transaction. A made visit is an ordinary visit (booking.h books it).
 *
 * When a resource is off or taken on an occurrence's day the rule says what
 * happens: 'skip' (no visit; the occurrence says why) or 'move' (the first
 * later day before the next occurrence on which the booking goes through).
 * Both are shown by recurring_occurrences, so the desk sees which.
 *
 * Billing 'visit': each visit on a job of its own with the rule's line items
 * (an invoice per visit). Billing 'month': the visits of a calendar month
 * work on one job, and a visit's line items are added to it when the visit
 * is done (recurring_on_visit), so the month's invoice bills the visits done.
 *
 * Changes follow what calendars taught people: this visit only
 * (recurring_change_one: an exception the rule keeps), this and the
 * following (the rule is split at a day: the old one ends the day before, a
 * new one takes over), or all future ones (the split at today). Visits
 * already made on days the new rule also gives are kept and changed (unless
 * moved by hand or started); those on days it no longer gives are cancelled
 * (dropped), with their job when it was theirs alone and still open.
 *
 * Conventions as in job.h: 0 or a negative FD_E* code with the reason in
 * err_msg(); a refused request changes nothing. Adding, changing and
 * stopping need the booking permission; making the visits acts for the
 * shop (control.h).
 *
 * Callers: the command line (cli-recurring.c), the task runner (task.c:
 * recurring_task, recurring_queue_due), the visits' announcements (wire.c:
 * recurring_on_visit), the iCalendar export (export-ical.c).
 */
#ifndef FD_RECURRING_H
#define FD_RECURRING_H

#include <stddef.h>
#include <stdint.h>

struct db;
struct announcement;
struct visit_input;

#define RECURRING_TASK_KIND "recurring"
#define RECURRING_MAX_LINES 20 /* services on one recurring job */
#define RECURRING_HORIZON   90 /* days made ahead unless recurring_horizon_days says */
#define RECURRING_DAY_SIZE  11 /* "YYYY-MM-DD" and its NUL */
#define RECURRING_RULE_MAX  400

/* recurring_rule_check - read text as an RRULE value (a leading "RRULE:"
 * is allowed) with libical and write its canonical form (as libical prints
 * it, the form stored) in out (n bytes). Refused (FD_EINVAL, with the
 * reason): what libical cannot read, a frequency finer than a day
 * (HOURLY, MINUTELY, SECONDLY), BYHOUR/BYMINUTE/BYSECOND (a recurring job's
 * time of day is its own), COUNT above 10000. An UNTIL is kept as a date.
 * FD_EIO when libical cannot be loaded. */
int recurring_rule_check(const char *text, char *out, size_t n);

/* recurring_expand - call cb with each day ("YYYY-MM-DD") the rule gives
 * from first_day on, in order, that lies in [from, to] (both days,
 * inclusive; NULL from: no lower bound) and not after last_day (NULL:
 * none); stops early when cb returns non-zero (that value is returned).
 * rrule as recurring_rule_check accepts; first_day is DTSTART, a date. */
int recurring_expand(const char *rrule, const char *first_day, const char *last_day,
                     const char *from, const char *to, int (*cb)(const char *day, void *arg),
                     void *arg);

/* What a new recurring job holds. */
struct recurring_input {
	int64_t customer_id;
	const char *title;       /* NULL or "": the services' names (or "Visit") */
	const char *rrule;       /* recurring_rule_check's forms */
	const char *from;        /* "YYYY-MM-DD": the first occurrence is the
	                          * rule's first day on or after it */
	int start_minute;        /* the time of day, shop time: 0..1439 */
	int length_minutes;      /* 1..10080 */
	const char *location;    /* NULL: the customer's address */
	const char *note;        /* NULL: none */
	const int64_t *services; /* 0..RECURRING_MAX_LINES catalogue ids, one
	                          * currency; their prices today are the rule's */
	size_t nservices;
	const int64_t *resources; /* 0..CAPACITY_MAX_RESOURCES (capacity.h) */
	size_t nresources;
	const char *billing;  /* "visit" (NULL) or "month" */
	const char *when_off; /* "skip" (NULL) or "move" */
};

/* recurring_add - make a recurring job (FD_EINVAL for bad input, naming
 * it; FD_ENOTFOUND for a customer, service or resource that does not
 * exist; FD_ECONFLICT for a retired service or a rule that gives no day
 * from `from` on); *id_out gets its id. Its visits up to the horizon are
 * then made at once (recurring_make, a transaction of its own); what
 * cannot be made now is left to its task. */
int recurring_add(struct db *db, const struct recurring_input *in, int64_t *id_out);

struct recurring {
	int64_t id;
	int64_t customer_id;
	char *customer_name;
	char *title;
	char *rrule;
	char first_day[RECURRING_DAY_SIZE];
	char last_day[RECURRING_DAY_SIZE]; /* "" when none */
	char made_to[RECURRING_DAY_SIZE];  /* "" when nothing made yet */
	int start_minute, length_minutes;
	char *location; /* NULL when none */
	char *note;     /* NULL when none */
	char currency[4];
	char billing[8];    /* "visit", "month" */
	char when_off[8];   /* "skip", "move" */
	char status[8];     /* "active", "stopped" */
	int64_t split_from; /* 0 when none */
	int64_t created_at, updated_at;
	/* occurrences by state */
	int64_t made, moved, skipped, dropped;
	int64_t price; /* the sum of one visit's line items */
};

/* recurring_get - fill *out (free with recurring_free); FD_ENOTFOUND. */
int recurring_get(struct db *db, int64_t id, struct recurring *out);
/* recurring_list - recurring jobs of customer_id (0: all), active ones
 * only unless all, by id. */
int recurring_list(struct db *db, int64_t customer_id, int all,
                   int (*cb)(const struct recurring *r, void *arg), void *arg);
void recurring_free(struct recurring *r);

/* One line item of a recurring job. */
struct recurring_line {
	char kind[12];
	char *description;
	int64_t qty_milli, unit_price;
};
/* recurring_lines - the rule's line items, in order. */
int recurring_lines(struct db *db, int64_t id, int (*cb)(const struct recurring_line *l, void *arg),
                    void *arg);

/* One occurrence and its visit. */
struct recurring_occ {
	char day[RECURRING_DAY_SIZE]; /* the day the rule gives */
	char state[8];                /* made, moved, skipped, dropped */
	int64_t appt_id;              /* 0: none (skipped) */
	int64_t start_at, end_at;     /* the visit's, 0 without one */
	char appt_status[16];         /* the visit's status, "" without one */
	int64_t rule_start;           /* where the rule puts it (UTC) */
	int by_hand;                  /* the visit's start is not the rule's */
	char *reason;                 /* NULL when none */
};
/* recurring_occurrences - the occurrences of rule id, by day. */
int recurring_occurrences(struct db *db, int64_t id,
                          int (*cb)(const struct recurring_occ *o, void *arg), void *arg);

/* What recurring_make did. */
struct recurring_made {
	int64_t made, moved, skipped;
	char to[RECURRING_DAY_SIZE]; /* made up to this day */
};

/* recurring_make - make the visits of rule id up to and including day to
 * ("YYYY-MM-DD"; NULL: today plus the horizon), idempotently, in one write
 * transaction, acting for the shop; *out (may be NULL) says what. A stopped
 * rule makes nothing. */
int recurring_make(struct db *db, int64_t id, const char *to, struct recurring_made *out);

/* recurring_task - the task 'recurring' (key: a rule's id): recurring_make
 * up to the horizon. */
int recurring_task(struct db *db, const char *key);

/* recurring_queue_due - queue the task of every active rule whose visits
 * are made short of today plus the horizon; *n (may be NULL) gets how many
 * were queued. The runner calls it as the days go by. */
int recurring_queue_due(struct db *db, int64_t *n);

/* recurring_on_visit - the listener of ANNOUNCE_VISIT_CHANGED: a visit of
 * a rule billed by the month that is done gets the rule's line items added
 * to its month's job (once). */
int recurring_on_visit(struct db *db, const struct announcement *a);

/* What a change of the rule from a day on sets; 0 / NULL: unchanged. */
struct recurring_change {
	const char *rrule;    /* a new rule */
	int start_minute;     /* -1: unchanged */
	int length_minutes;   /* 0: unchanged */
	const char *location; /* "" clears */
	const char *note;     /* "" clears */
	const char *when_off; /* "skip", "move" */
};

/* recurring_change - change rule id from day `from` on ("following"; NULL
 * for "all": from today, or the rule's first day when it is later): the
 * rule ends the day before and a new rule (*new_id) with the changes takes
 * over, keeping the rule's phase (every other week stays on its weeks) and
 * what is left of a COUNT. The visits already made from that day on are
 * kept and changed where the new rule gives their day, else dropped
 * (cancelled); visits moved by hand or started are left as they are.
 * *dropped (may be NULL) gets how many were dropped. The new rule's
 * visits are then made as by recurring_add. FD_ECONFLICT for a stopped
 * rule; FD_EINVAL when nothing changes. */
int recurring_change(struct db *db, int64_t id, const char *from, const struct recurring_change *c,
                     int64_t *new_id, int64_t *dropped);

/* recurring_change_one - change only the visit of the occurrence on day
 * (an exception the rule keeps): its time of day (start_minute, -1:
 * unchanged) and length (0: unchanged), through visit_edit.
 * FD_ENOTFOUND when the rule has no visit that day. */
int recurring_change_one(struct db *db, int64_t id, const char *day, int start_minute,
                         int length_minutes);

/* recurring_stop - no occurrence from day from on (NULL: today): the rule
 * ends the day before and is stopped; the visits made from then on that
 * have not started are dropped as in recurring_change (*dropped, may be
 * NULL). FD_ECONFLICT when already stopped. */
int recurring_stop(struct db *db, int64_t id, const char *from, int64_t *dropped);

/* recurring_rule_bounded - r's RRULE with its last_day folded in, for
 * readers that know only the RRULE (an iCalendar export): a COUNT becomes
 * the number of days given up to last_day, an UNTIL the earlier of the
 * two; the text in out (n bytes), *until (RECURRING_DAY_SIZE, "" when
 * none) the rule's UNTIL as a day (the export writes it as the instant of
 * that day's visit, RFC 5545 wants UTC under a zoned DTSTART). */
int recurring_rule_bounded(const struct recurring *r, char *out, size_t n, char *until);

/* recurring_of_visit - the rule and occurrence day of visit appt (0 and ""
 * when it was not made by a rule). */
int recurring_of_visit(struct db *db, int64_t appt, int64_t *rule_id, char day[RECURRING_DAY_SIZE]);

/* The rules the booking form offers by name, from the first visit's day. */
enum recurring_pattern {
	RECURRING_WEEKLY,      /* every week on that weekday */
	RECURRING_FORTNIGHTLY, /* every other week on that weekday */
	RECURRING_MONTHLY,     /* every month on that day of the month */
	RECURRING_MONTHLY_NTH, /* every month on that weekday's place (the 2nd
	                        * Tuesday; the last one when it is a 5th) */
	RECURRING_PATTERNS
};

/* recurring_rule_named - the RRULE of pattern p from day ("YYYY-MM-DD"),
 * canonical as recurring_rule_check writes it, in out (n bytes). FD_EINVAL
 * for a day that is not one or a pattern that is not one. */
int recurring_rule_named(enum recurring_pattern p, const char *day, char *out, size_t n);

/* recurring_change_visit - a change of visit appt (visit_input's meaning:
 * a new start, an end, a place, a note) made to the rule it was made by,
 * "following" (from the visit's day) or for all future visits (all): the
 * start's time of day, the length when an end is given, the place and the
 * note, through recurring_change. A new start on another day is refused
 * (FD_EINVAL: a series moves to other days by a new rule); FD_ENOTFOUND
 * when no rule made the visit. */
int recurring_change_visit(struct db *db, int64_t appt, int all, const struct visit_input *in,
                           int64_t *new_id, int64_t *dropped);

/* recurring_check - `frontdesk check`'s promise of the recurring jobs:
 * report("recurring-behind", detail, arg) for each active rule whose visits
 * are made short of yesterday's horizon (today plus recurring_horizon_days,
 * less a day of grace for the runner): its task fails, lies dead, or no
 * runner ran. Returns how many, or a negative FD_E* code. */
int recurring_check(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
                    void *arg);

void recurring_occ_free(struct recurring_occ *o);

#endif
