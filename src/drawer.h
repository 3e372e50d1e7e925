/*
 * drawer.h - cash drawers and closed days (tables drawer, drawer_close,
 * drawer_movement and day_close of migration 0024), owned by drawer.c.
 *
 * A drawer session is opened at a desk (a short name: "front", "desk-2")
 * with a float, by the person running the program; one session per desk is
 * open at a time, several desks may have theirs open at once. While it is
 * open, the cash taken at that desk (a cash payment), given back (a cash
 * refund) and paid out (drawer_payout: a cash expense with a reason, which
 * never touches an invoice) is a movement of it, written by the money's own
 * transaction (the *_in hooks below, which payment.c calls). A cash payment
 * voided while its drawer is open leaves it again (a 'void' movement); one
 * whose drawer was counted cannot be voided.
 *
 * Which desk a process works at: drawer_set_desk (the --desk option, the
 * FRONTDESK_DESK environment variable). When none is named: the one drawer
 * the person running the program opened, else the only open drawer. When
 * several are open and none of those rules picks one, cash is refused
 * (FD_ECONFLICT naming the open desks): it would land in a drawer nobody
 * counts. With no drawer open at all, cash is taken as before and belongs
 * to no drawer (a shop that does not count drawers is not forced to).
 *
 * The close is blind: drawer_close takes the count first and only then
 * says what was expected (the float plus the movements) and the
 * difference, over (> 0) or short (< 0), which needs a reason. The count
 * is written once, with the counter's login; nothing of a session is ever
 * edited.
 *
 * A closed day (day_close_* in dayclose.h) refuses what would change it:
 * day_refuse_in is the one test, used by every writer of money (payment.c,
 * invoice.c, this file). Card money confirmed by the channel is not
 * refused (it is reconciled against the channel's settlement data).
 *
 * Permissions: opening, paying out and counting a drawer are
 * payment.take (the desk handles its cash); closing and reopening a day
 * are day.close (a manager's, by default).
 */
#ifndef FD_DRAWER_H
#define FD_DRAWER_H

#include <stddef.h>
#include <stdint.h>

struct db;

#define DRAWER_DESK_MAX 32 /* bytes of a desk's name */

/* drawer_desk_valid - 1 if s can name a desk: 1 to 32 printable ASCII
 * characters without blanks. */
int drawer_desk_valid(const char *s);

/* drawer_desk_check - 0 when drawer_desk_valid(s), else FD_EINVAL saying
 * what a desk's name may be: the one message for a bad desk. */
int drawer_desk_check(const char *s);

/* drawer_set_desk - the desk this process works at (copied; NULL or "":
 * none named). FD_EINVAL (nothing changed) for a name drawer_desk_valid
 * refuses. drawer_desk - it, or NULL. */
int drawer_set_desk(const char *desk);
const char *drawer_desk(void);

/* An amount counted or given as a float: a total ("150.00") or the count of
 * each denomination ("20x5,10x3,0.25x40": 5 notes of 20, 3 of 10, 40
 * coins of 0.25). drawer_amount_read reads text in currency code into
 * *total and, for denominations, *detail ("2000x5,1000x3,25x40": minor
 * units x count, largest first, one entry per denomination; NULL for a
 * total; the caller frees it). FD_EINVAL with the reason. */
int drawer_amount_read(const char *text, const char *code, int64_t *total, char **detail);

struct drawer {
	int64_t id;
	char desk[DRAWER_DESK_MAX + 1];
	char currency[4];
	int64_t float_amount;
	char *float_detail; /* NULL: given as a total */
	char opened_by[33];
	int64_t opened_at;
	/* the movements so far */
	int64_t taken;    /* cash payments, > 0 */
	int64_t refunded; /* cash refunds, <= 0 */
	int64_t voided;   /* cash payments voided while open, <= 0 */
	int64_t paid_out; /* paid-outs, <= 0 */
	int64_t moves;    /* how many movements */
	/* the close; closed 0 while open (the fields below are then 0/NULL) */
	int closed;
	int64_t counted, expected, difference; /* difference = counted - expected */
	char *count_detail;                    /* NULL: counted as a total */
	char *reason;                          /* why over or short; NULL when exact */
	char closed_by[33];
	int64_t closed_at;
};

/* drawer_expected - the float plus the movements: what should be in it. */
int64_t drawer_expected(const struct drawer *d);

/* drawer_figures_shown - 1 when what session d took, gave back, paid out
 * and should hold may be shown: once it is counted. Before, the count is
 * blind: a front end, a report or an export shows its float and how many
 * movements it has, never their amounts. */
int drawer_figures_shown(const struct drawer *d);

struct drawer_move {
	int64_t id;
	int64_t drawer_id;
	char kind[8];                  /* payment, refund, void, payout */
	int64_t payment_id, refund_id; /* 0 when none */
	int64_t amount;                /* signed: cash in > 0, out < 0 */
	char *reason;                  /* a paid-out's; NULL otherwise */
	char *customer;                /* the payment's customer's name; NULL for a paid-out */
	char by[33];
	int64_t at;
};

/* drawer_open - open a session at desk (NULL: drawer_desk(); one must be
 * named) in currency (NULL: the config key `currency`, else USD) with the
 * float float_text (drawer_amount_read). *id gets the session. FD_ECONFLICT
 * when the desk's drawer is open or the day is closed. */
int drawer_open(struct db *db, const char *desk, const char *currency, const char *float_text,
                int64_t *id);

/* drawer_payout - pay amount (minor units, > 0) out of the drawer of desk
 * (NULL: as for cash, see above) for reason (required, 1..400 characters,
 * no card number); *move_id (may be NULL) gets the movement. Refused beyond
 * what the drawer should hold (drawer_expected), when no drawer is open,
 * or in a closed day. */
int drawer_payout(struct db *db, const char *desk, int64_t amount, const char *reason,
                  int64_t *move_id);

/* drawer_close - count the open drawer of desk (NULL: as for cash) or the
 * open session id (> 0, then desk is not used): count_text
 * (drawer_amount_read, in the drawer's currency), reason required when the
 * count differs from what was expected (FD_EINVAL saying only that a
 * reason is needed: the expected figure is told after the count is
 * written, never before). *out (drawer_free) gets the closed session. */
int drawer_close(struct db *db, const char *desk, int64_t id, const char *count_text,
                 const char *reason, struct drawer *out);

/* drawer_get - session id into *out (drawer_free); FD_ENOTFOUND. */
int drawer_get(struct db *db, int64_t id, struct drawer *out);

/* drawer_current - the open session that cash of this process goes to
 * (desk: NULL for the rules above, else that desk's) into *out;
 * FD_ENOTFOUND when none, FD_ECONFLICT when several are open and none is
 * picked (the message names them). */
int drawer_current(struct db *db, const char *desk, struct drawer *out);

/* drawer_list - sessions opened in [from, to) (UTC seconds; to 0: no end)
 * or, with open_only, every open one whenever opened; oldest first. */
int drawer_list(struct db *db, int64_t from, int64_t to, int open_only,
                int (*cb)(const struct drawer *d, void *arg), void *arg);

/* drawer_moves - the movements of session id, in order. */
int drawer_moves(struct db *db, int64_t id, int (*cb)(const struct drawer_move *m, void *arg),
                 void *arg);

void drawer_free(struct drawer *d);

/* ------------------------------------------------ inside the money's transaction */

/* drawer_take_in - payment pay_id was just inserted: when it is cash and a
 * drawer is open, it is a movement of the drawer cash goes to (see above;
 * a drawer of another currency takes nothing). FD_ECONFLICT when several
 * are open and none is picked. */
int drawer_take_in(struct db *db, int64_t pay_id);

/* drawer_refund_in - refund refund_id was just inserted (succeeded, cash):
 * a movement out of the drawer cash goes to, as drawer_take_in. */
int drawer_refund_in(struct db *db, int64_t refund_id);

/* drawer_void_in - payment pay_id is about to be voided: when it is in a
 * drawer that is open, its amount leaves it; in a counted drawer,
 * FD_ECONFLICT (the count would no longer say what the books say). */
int drawer_void_in(struct db *db, int64_t pay_id);

/* day_refuse_in - 0 when time t lies in no closed shop day; else
 * FD_ECONFLICT with "the day YYYY-MM-DD is closed: " and what (a
 * translated phrase: "a payment is not dated into it"), and how to reopen
 * it. */
int day_refuse_in(struct db *db, int64_t t, const char *what);

/* day_is_closed - *closed 1 when the shop day holding t is closed (its last
 * close not reopened). */
int day_is_closed(struct db *db, int64_t t, int *closed);

#endif
