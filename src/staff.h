/*
 * staff.h - who runs frontdesk and what each may do (tables staff,
 * permission, role_permission, staff_grant, staff_pin, staff_pin_try,
 * approval of migration 0023), owned by staff.c.
 *
 * Who: the Unix login of the process's real user id (db_operator()), never
 * an environment variable or an option. db_open admits only an active
 * member of the staff register (staff_admit); everyone else can run
 * nothing but --version and --help.
 *
 * What: every permission is named (perm_word). A role holds some by
 * default (role_permission); a person may be granted one more
 * (staff_grant). A permission with a limit (refund: an amount in minor
 * units; discount: percent of a job's charges; payment.backdate: days) is
 * held up to that limit, NULL being none.
 *
 * Every core function that changes something calls staff_require inside its
 * own write transaction, before it writes: a refusal (FD_EPERM) changes
 * nothing and says which permission is missing and who holds it. The front
 * ends only ask (staff_may, to hide what cannot be done) and show.
 *
 * A manager's approval: what a person may not do alone may be approved by
 * someone who may (never by the requester), either on the spot with that
 * person's PIN (staff_pin_approve, before the action on the same
 * connection) or from their own session (the requester files the refusal
 * as a waiting request, approval_file; the approver decides it,
 * approval_decide; the requester names it, staff_use_approval, and runs
 * the action again). The approval row names both people and the action;
 * it is used once.
 *
 * Callers: every core writer; db_open (staff_admit); the command line
 * (cli-staff.c) and the screen.
 */
#ifndef FD_STAFF_H
#define FD_STAFF_H

#include <stddef.h>
#include <stdint.h>

#include "states.h"

struct db;

enum staff_role { STAFF_TECHNICIAN, STAFF_DESK, STAFF_MANAGER, STAFF_OWNER, STAFF_NROLES };

/* The permissions, in the order of the permission table's rows. */
enum perm {
	PERM_BOARD_VIEW,       /* the day's board, the calendar, visits */
	PERM_VISIT_WORK,       /* start and finish a visit, notes, contacts */
	PERM_RECORDS_VIEW,     /* customers, jobs, invoices, payments, history */
	PERM_CUSTOMER_EDIT,    /* add, edit, delete customers */
	PERM_BOOKING,          /* book, move, cancel visits; resources' days off */
	PERM_JOB_EDIT,         /* jobs and their line items; estimates */
	PERM_INVOICE_ISSUE,    /* issue invoices */
	PERM_PAYMENT_TAKE,     /* take payments, allocate them, card charges */
	PERM_PAYMENT_BACKDATE, /* date a payment back (limit: days) */
	PERM_DISCOUNT,         /* discount and credit lines (limit: percent) */
	PERM_REFUND,           /* refunds (limit: minor units) */
	PERM_VOID,             /* void invoices and payments, reverse allocations */
	PERM_CREDIT_NOTE,      /* credit notes */
	PERM_CATALOGUE,        /* services and fees, commissions, resources */
	PERM_RECON,            /* reconciliation runs and decisions */
	PERM_RETENTION,        /* retention holds, proposals, purges */
	PERM_DAY_CLOSE,        /* the day's close */
	PERM_REPORTS,          /* reports and exports of personal data */
	PERM_OPERATIONS,       /* inbox, outbox, tasks, leases, rebuilds */
	PERM_STAFF,            /* the staff register and its permissions */
	PERM_PROVIDERS,        /* providers and their settings */
	PERM_BACKUP,           /* backups and restores */
	PERM_MIGRATE,          /* schema migrations, demo data */
	PERM_N
};

enum perm_limit { PERM_UNLIMITED_KIND, PERM_LIMIT_MONEY, PERM_LIMIT_PERCENT, PERM_LIMIT_DAYS };

/* perm_word - "refund"; perm_of - the permission of a word, PERM_N if none. */
const char *perm_word(enum perm p);
enum perm perm_of(const char *word);
/* perm_limit_kind - what a permission's limit counts (PERM_UNLIMITED_KIND:
 * it has none). */
enum perm_limit perm_limit_kind(enum perm p);
/* perm_limit_text - limit v of p as a person reads it, into buf: "50.00"
 * (an amount in minor units), "10%", "3 days"; v < 0: "no limit". */
const char *perm_limit_text(enum perm p, int64_t v, char *buf, size_t n);
/* perm_help - one line saying what the permission lets a person do
 * (translated). */
const char *perm_help(enum perm p);

/* staff_role_word - "desk"; staff_role_of - STAFF_NROLES if none. */
const char *staff_role_word(enum staff_role r);
enum staff_role staff_role_of(const char *word);

/* ------------------------------------------------------------ identity */

/* staff_admit - after a database is opened: 0 when the person running the
 * program is an active member of its register, else FD_EPERM with a
 * message that names who may add them. */
int staff_admit(struct db *db);

/* ---------------------------------------------------------- the check */

/* staff_require - inside the caller's write transaction, before it
 * writes: 0 when the person running the program holds permission p (up to
 * amount, for a permission with a limit; amount is ignored otherwise), or
 * when an approval given on this connection covers it (the approval is then
 * written as used, naming both people and subject). Else FD_EPERM, with
 * which permission is missing and who holds it; the refusal is kept on the
 * connection for approval_file. subject words the action and its record
 * ("refund of payment 12"; NULL: the permission's name). */
int staff_require(struct db *db, enum perm p, int64_t amount, const char *subject);

/* staff_require_own_visit - staff_require of PERM_VISIT_WORK on visit
 * appt, and, for a person who may not book (a technician), the visit must
 * be their own: it reserves the technician resource their login is linked
 * to (staff_link_resource). FD_EPERM otherwise, saying why. */
int staff_require_own_visit(struct db *db, int64_t appt, const char *subject);

/* staff_may - 1 when the person running the program holds p up to amount
 * (without any approval), else 0; writes nothing. For the front ends, to
 * hide what the person cannot do. */
int staff_may(struct db *db, enum perm p, int64_t amount);

/* staff_limit_of - the limit up to which login holds p: 0 and *limit = -1
 * when without limit, 0 and the limit, or FD_ENOTFOUND when login does
 * not hold p at all. */
int staff_limit_of(struct db *db, const char *login, enum perm p, int64_t *limit);

/* ---------------------------------------------------------- approvals */

/* staff_pin_approve - the person at this terminal brings approver's PIN:
 * checked against its hash (slow by design); every try is logged, and
 * after 3 wrong tries in a row the PIN is refused for a while that doubles
 * with each further wrong try (from 30 s). On success the next
 * staff_require on this connection that approver may grant is approved by
 * approver (once, within two minutes); brought after a refusal, only for
 * that refused action (its subject). FD_EPERM for a wrong or locked PIN, an approver who is
 * the person running the program, inactive, or without a PIN. */
int staff_pin_approve(struct db *db, const char *approver, const char *pin);

/* staff_use_approval - the next staff_require on this connection may use
 * approval id (approved, requested by the person running the program, for
 * that permission and subject, up to its amount). Checked when used. */
void staff_use_approval(struct db *db, int64_t id);

/* staff_approval_clear - forget a PIN or approval given on this
 * connection and not used. */
void staff_approval_clear(struct db *db);

/* approval_file - write the last refusal of staff_require on this
 * connection as a waiting request; *id its number. FD_ENOTFOUND when there
 * was none. A second request for the same subject while one waits
 * returns the waiting one. */
int approval_file(struct db *db, int64_t *id);

/* An approval's states, each stored as the word of approval_states. */
enum approval_state {
	APPROVAL_WAITING,
	APPROVAL_APPROVED,
	APPROVAL_REFUSED,
	APPROVAL_USED,
	APPROVAL_WITHDRAWN,
	APPROVAL_STATES
};
/* approval_states - their words and legal moves (states.h), the same as
 * migration 0023's status_transition rows (frontdesk check says if not). */
extern const struct states approval_states;

struct approval {
	int64_t id;
	enum perm perm;
	int64_t amount; /* -1: none */
	char subject[201];
	char requested_by[33];
	char decided_by[33]; /* "" while waiting */
	char status[12];     /* waiting, approved, refused, used, withdrawn */
	char how[8];         /* session, pin, "" */
	int64_t requested_at, decided_at, used_at;
};

/* approval_decide - approve (approve = 1) or refuse a waiting request, as
 * the person running the program: FD_EPERM unless they hold its permission
 * up to its amount and are not its requester; FD_ECONFLICT when it is not
 * waiting. */
int approval_decide(struct db *db, int64_t id, int approve);
/* approval_withdraw - the requester withdraws their own request. */
int approval_withdraw(struct db *db, int64_t id);
int approval_get(struct db *db, int64_t id, struct approval *out);
/* approval_list - waiting requests (all = 0), or every request (all = 1),
 * newest first, at most limit. */
int approval_list(struct db *db, int all, int limit, int (*cb)(const struct approval *a, void *arg),
                  void *arg);
/* approval_waiting_count - how many requests wait for someone who may
 * decide them (the screen's queue). */
int approval_waiting_count(struct db *db, int64_t *n);

/* ---------------------------------------------------------- the register */

struct staff {
	char login[33];
	char name[101];
	enum staff_role role;
	int active;
	int has_pin;
	int64_t resource_id; /* the technician of the board they are; 0: none */
	int64_t created_at, updated_at;
};

/* staff_add - add login (a Unix login) with a display name and role
 * (owner only). FD_ECONFLICT when login is in the register. */
int staff_add(struct db *db, const char *login, const char *name, enum staff_role role);
/* staff_edit - change name (NULL: unchanged), role (STAFF_NROLES:
 * unchanged), active (-1: unchanged) (owner only). The register always
 * keeps an active owner. */
int staff_edit(struct db *db, const char *login, const char *name, enum staff_role role,
               int active);
int staff_get(struct db *db, const char *login, struct staff *out);
int staff_list(struct db *db, int (*cb)(const struct staff *s, void *arg), void *arg);
/* staff_me - the register's row of the person running the program. */
int staff_me(struct db *db, struct staff *out);

/* staff_link_resource - login is the technician resource_id on the board
 * (a resource of kind technician, linked to one person at most; 0: none).
 * Owner only. */
int staff_link_resource(struct db *db, const char *login, int64_t resource_id);

/* staff_grant - give login permission p besides their role's, up to limit
 * (-1: no limit; p without a limit kind: must be -1). Replaces an earlier
 * grant of p. staff_revoke withdraws it (FD_ENOTFOUND if none). Owner
 * only. */
int staff_grant(struct db *db, const char *login, enum perm p, int64_t limit);
int staff_revoke(struct db *db, const char *login, enum perm p);
/* staff_role_set - role r holds p up to limit (-1: no limit), or, with
 * hold = 0, not at all (owner only; the owner role keeps everything). */
int staff_role_set(struct db *db, enum staff_role r, enum perm p, int hold, int64_t limit);

/* staff_perm_each - every permission login holds: by role or grant, with
 * its limit (-1: none); cb returns nonzero to stop. */
int staff_perm_each(struct db *db, const char *login,
                    int (*cb)(enum perm p, int64_t limit, int granted, void *arg), void *arg);
/* staff_role_each - every permission role r holds by default. */
int staff_role_each(struct db *db, enum staff_role r,
                    int (*cb)(enum perm p, int64_t limit, int granted, void *arg), void *arg);

/* staff_pin_set - the person running the program sets their own approval
 * PIN (4 to 12 digits; kept only as a yescrypt hash). Only someone who
 * holds a permission a desk does not (a manager or owner, or a person with
 * a grant) has a use for one, but anyone may set theirs. */
int staff_pin_set(struct db *db, const char *pin);

/* staff_name - the display name of login, or login itself when not in the
 * register; into buf. */
const char *staff_name(struct db *db, const char *login, char *buf, size_t n);

#endif
