/*
 * recon.h - daily reconciliation against a payment channel's settlement
 * data: batches, typed differences, and a person's decision on each.
 *
 * A batch reconciles one provider's business day D (the shop's date; the
 * half-open UTC window [midnight D, midnight D+1) in the shop's time zone)
 * from the adapter's settlement fetch or from a settlement file. Each local
 * card payment and refund of the window (the payments of that provider's
 * card orders, pay_order.payment_id, and those recorded from its data here)
 * is matched to its channel line: a charge through the channel's order id
 * (the payment intent), else our order number; a refund through the
 * channel's refund id. What does not match becomes one row of
 * reconciliation_diff, of one of the five kinds:
 *   local_only        we recorded money the channel does not show
 *   channel_only      the channel shows money we never recorded (the worst)
 *   amount_mismatch   both have it, for different amounts
 *   status_mismatch   both know it, in different states (we think paid, the
 *                     channel refunded; our payment is void, the channel
 *                     charged; our refund failed, the channel's succeeded)
 *   currency_mismatch both have it, in different currencies
 * A difference is unique per (provider, kind, natural key): running a day
 * again never duplicates one; the re-run updates last_seen_batch_id, and an
 * open difference of the day it no longer finds is closed with action
 * 'gone' and a reason (never deleted).
 *
 * Matching looks `recon_tolerance_seconds` (config, default 300) before and
 * after the day: a payment recorded at 23:59:59 whose line the channel
 * created at 00:00:02 is one match, not two differences. Only lines and
 * local items inside the day itself can make a difference.
 *
 * A run holds the control-table lock "recon.<provider>.<day>" (control.h)
 * from before the fetch until its last write, so that two operators never
 * reconcile the same day at once: the second is refused with FD_ECONFLICT
 * naming who holds it. The batch row is written first (running), the
 * differences, fees and totals in one transaction that ends the batch done;
 * a run that fails marks the batch failed.
 *
 * Decisions (each needs a note and is history: reconciliation_resolution,
 * at most one per difference, never changed):
 *   recon_accept   any kind: the person says it is right as it is
 *   recon_record   channel_only: record the payment from the channel's
 *                  line through the payment module's own path
 *                  (payment_record_in: every rule of `frontdesk pay record`)
 *                  with its allocations, exactly once: an idempotency
 *                  record keyed "recon:pay:<provider>:<channel order>" and
 *                  reconciliation_payment's UNIQUE keys, in the same
 *                  transaction as the resolution (a second resolve or a
 *                  retry after a crash never records twice)
 *   recon_correct  a correcting entry through the normal path, never an
 *                  edit of a posted row: a refund the desk did not know is
 *                  recorded; a charge the channel settled for less is
 *                  refunded by the difference, for more gets a payment of
 *                  the difference; money only we recorded is refunded
 * A parked inbound event (a payment taken on the channel's own page that
 * matched no order of ours) is claimed with recon_claim, which asks the
 * channel for the order's truth and records it through the same path.
 *
 * "Balanced for day D": the latest batch of D (per provider) is done and
 * no difference of D is open (recon_day_state, recon_days_open).
 *
 * Reads run anywhere; every write is its own BEGIN IMMEDIATE transaction.
 * All return 0 or a negative FD_E* code with a reason in err_msg().
 * Callers: the command line (cli-recon.c), the screen, tests, bench.
 */
#ifndef FD_RECON_H
#define FD_RECON_H

#include <stddef.h>
#include <stdint.h>

#include "channel.h"

struct db;
struct pipe_conn;
struct settle_file;

/* The default of the config key recon_tolerance_seconds. */
#define RECON_TOLERANCE_DEFAULT 300

/* recon_tolerance - the look-back / look-ahead in seconds: the config key
 * recon_tolerance_seconds (0 .. 86400), else RECON_TOLERANCE_DEFAULT. */
int recon_tolerance(void);

/* recon_day_window - the UTC window [*from, *to) of shop day `day`
 * ("YYYY-MM-DD"); FD_EINVAL with a reason for anything else. */
int recon_day_window(const char *day, int64_t *from, int64_t *to);

/* Where a batch's lines came from. */
struct recon_source {
	int file;                     /* 1: a settlement file, 0: fetched */
	const char *sha256;           /* file: the file's sha256 (64 hex digits) */
	int64_t fetch_from, fetch_to; /* fetch: the window asked of the channel */
};

/* What a run did. */
struct recon_result {
	int64_t batch_id;
	int64_t lines;       /* lines of the day itself */
	int64_t local;       /* our card payments and refunds of the day */
	int64_t matched;     /* pairs found */
	int64_t diffs_new;   /* differences found for the first time */
	int64_t diffs_seen;  /* differences found again */
	int64_t diffs_gone;  /* open differences of the day not found again: closed */
	int64_t open;        /* open differences of the day after the run */
	int64_t payouts;     /* payouts of the day recorded */
	int64_t payouts_off; /* ... whose lines do not add up to their amount */
};

/* recon_run - reconcile provider's day `day` against the n lines (which
 * may include lines of the tolerance before and after the day), under the
 * day's lock: a new batch, its differences, fees and totals. *res filled.
 * FD_ECONFLICT when someone else reconciles that day now (the reason names
 * them); FD_EINVAL for a bad day or provider. */
int recon_run(struct db *db, const char *provider, const char *day,
              const struct chan_settle_line *lines, size_t n, const struct recon_source *src,
              struct recon_result *res);

/* recon_fetch_run - take the day's lock, fetch the day's lines and the
 * tolerance around it through the opened channel (conn->ops->settlement),
 * then reconcile them as recon_run. A failed fetch is FD_EIO with the
 * channel's reason and writes nothing. */
int recon_fetch_run(struct db *db, struct pipe_conn *conn, const char *day,
                    struct recon_result *res);

/* recon_import - reconcile the lines of a settlement file f (settle-file.h)
 * for provider (NULL: the code of the file's adapter) and day (NULL: the
 * shop day of the file's first line). */
int recon_import(struct db *db, const char *provider, const char *day, const struct settle_file *f,
                 struct recon_result *res);

/* One batch. */
/* A reconciliation batch's states, each stored as the word
 * recon_batch_state_word gives; its moves are recon_batch_states'
 * (recon-write.c), which the schema's status_transition rows for
 * reconciliation_batch mirror (states_agree). */
enum recon_batch_state {
	RECON_BATCH_RUNNING,
	RECON_BATCH_DONE,
	RECON_BATCH_FAILED,
	RECON_BATCH_STATES /* no state of ours */
};

/* A difference's states (reconciliation_diff.state); its one move, open ->
 * resolved, is recon_diff_states' (recon-write.c). */
enum recon_diff_state {
	RECON_DIFF_OPEN,
	RECON_DIFF_RESOLVED,
	RECON_DIFF_STATES /* no state of ours */
};

struct states;
extern const struct states recon_batch_states, recon_diff_states;

/* recon_batch_state_of, recon_diff_state_of - the state a stored word
 * names (*_STATES: none, or NULL). */
enum recon_batch_state recon_batch_state_of(const char *word);
enum recon_diff_state recon_diff_state_of(const char *word);

struct recon_batch {
	int64_t id;
	char provider[41];
	char day[11];
	int64_t window_from, window_to;
	char source[8];  /* fetch, file */
	char sha256[65]; /* file: its hash, else "" */
	int64_t fetch_from, fetch_to;
	char status[8]; /* running, done, failed: ask recon_batch_is_done */
	int64_t lines, local, matched, diffs_new, diffs_seen, diffs_gone;
	int64_t open_at_end; /* open differences when it ended */
	int64_t open_now;    /* open differences of its day now */
	char error[1001];
	char operator_id[65];
	int64_t started_at, finished_at; /* finished 0 while running */
};

/* One currency's figures of a batch. */
struct recon_total {
	char currency[4];
	int64_t lines, gross, fee, net, local;
};

/* One difference and, once resolved, its resolution. */
struct recon_diff {
	int64_t id;
	char provider[41];
	char kind[20];
	char natural_key[301];
	char day[11];
	int64_t first_batch, last_seen_batch;
	int64_t payment_id, refund_id; /* 0 when none */
	char line_id[256];             /* "" when none */
	char *line_data;               /* the channel line as JSON, NULL when none */
	int has_local, has_channel;
	int64_t local_amount, channel_amount;
	char local_currency[4], channel_currency[4];
	char detail[1001];
	char state[12]; /* open, resolved */
	int64_t created_at, updated_at;
	/* the resolution (action "" while open) */
	char action[20];
	char note[1001];
	int64_t res_payment_id, res_refund_id, res_batch_id;
	char res_operator[65];
	int64_t res_at;
};

/* recon_diff_is_open - 1 while difference d waits for a decision. */
int recon_diff_is_open(const struct recon_diff *d);

/* recon_batch_is_done - 1 when batch b ran to its end (not running, not
 * failed). */
int recon_batch_is_done(const struct recon_batch *b);

/* recon_batch_get - fill *out; FD_ENOTFOUND. */
int recon_batch_get(struct db *db, int64_t id, struct recon_batch *out);

/* recon_batch_list - batches of provider (NULL: all) and day (NULL: all),
 * newest first, at most limit (<= 0: 100); stops at cb's first non-zero. */
int recon_batch_list(struct db *db, const char *provider, const char *day, int limit,
                     int (*cb)(const struct recon_batch *b, void *arg), void *arg);

/* recon_batch_totals - the per-currency figures of batch id, by currency. */
int recon_batch_totals(struct db *db, int64_t id, int (*cb)(const struct recon_total *t, void *arg),
                       void *arg);

/* recon_diff_list - the differences a batch found (last seen by it, or
 * closed by it as gone), batch_id 0: every difference of day (NULL: all
 * days) of provider (NULL: all); state NULL, "open" or "resolved"; by id.
 * The struct is valid during the call only. */
int recon_diff_list(struct db *db, int64_t batch_id, const char *provider, const char *day,
                    const char *state, int (*cb)(const struct recon_diff *d, void *arg), void *arg);

/* recon_diff_get - fill *out (free with recon_diff_free); FD_ENOTFOUND. */
int recon_diff_get(struct db *db, int64_t id, struct recon_diff *out);
void recon_diff_free(struct recon_diff *d);

/* recon_accept - resolve open difference id as it is, with note
 * (required). FD_ECONFLICT when it is resolved already. */
int recon_accept(struct db *db, int64_t id, const char *note);

/* Allocations typed as "INVOICE[:AMOUNT]" (number or id; the amount in
 * the payment's currency, default: what the invoice still owes, at most
 * what is left of the payment). */
struct recon_pay {
	int64_t customer_id;         /* 0: the channel order's, else the first invoice's */
	const char *const *invoices; /* n texts */
	size_t n;
	const char *note; /* required */
};

/* recon_record - resolve channel_only difference id by recording the
 * payment its line shows (see above); *payment_id gets it, *replayed 1
 * when it had been recorded already (nothing written but the resolution
 * if it was missing). FD_EINVAL when the difference is not a channel
 * charge, FD_ECONFLICT when it is resolved already. */
int recon_record(struct db *db, int64_t id, const struct recon_pay *p, int64_t *payment_id,
                 int *replayed);

/* What recon_record would take for a channel_only charge, for a form to
 * propose: the line's amount and currency, and the channel order's
 * customer and invoice when the line names an order of ours (0 and ""
 * when it does not: the person says whose it is). */
struct recon_guess {
	int64_t amount;
	char currency[4];
	char order_no[65]; /* our card order the line names, "" when none */
	int64_t customer_id;
	int64_t invoice_id;
	char invoice[32]; /* its number, "" when none */
	int paid;         /* the order has a payment already (recording finds it) */
};

/* recon_record_guess - *out for difference id: FD_ENOTFOUND, FD_EINVAL
 * when it is not a channel_only charge (nothing to record). Reads only. */
int recon_record_guess(struct db *db, int64_t id, struct recon_guess *out);

/* recon_correct - resolve difference id with a correcting entry (see
 * above); p->invoices may allocate a payment it records. *payment_id or
 * *refund_id (may be NULL) get what it posted. FD_EINVAL (with what to do
 * instead) for a difference no entry can correct (a currency mismatch). */
int recon_correct(struct db *db, int64_t id, const struct recon_pay *p, int64_t *payment_id,
                  int64_t *refund_id);

/* A parked (or dead after parking) inbound payment event. */
struct recon_parked {
	int64_t id;
	char source[41];
	char external_id[256];
	char event_type[101];
	char object_id[256];
	char status[12];
	int64_t channel_created_at, received_at;
	const unsigned char *payload; /* valid during the callback */
	size_t len;
	char last_error[1001];
};

/* recon_parked_is_parked - 1 while event e waits for a person (not dead). */
int recon_parked_is_parked(const struct recon_parked *e);

/* recon_parked_list - the parked payment events of provider (NULL: all),
 * and those that died parked, oldest first. */
int recon_parked_list(struct db *db, const char *provider,
                      int (*cb)(const struct recon_parked *e, void *arg), void *arg);

/* recon_claim - record the payment a parked event tells of for a customer:
 * asks the channel (conn, opened for the event's provider) what its order
 * is (it must have succeeded), records that amount through the same path
 * as recon_record, exactly once, and moves the event to processed.
 * *replayed 1 when it had been recorded already. */
int recon_claim(struct db *db, struct pipe_conn *conn, int64_t event_id, const struct recon_pay *p,
                int64_t *payment_id, int *replayed);

/* recon_auto_day - the scheduled reconciliation (the channel worker):
 * 1 and day = yesterday (shop time, clock_now()) when the config key
 * recon_auto_hour (0..23; unset: off) has passed today and provider has no
 * done batch of yesterday; else 0. */
int recon_auto_day(struct db *db, const char *provider, char day[11]);

/* A payout to the shop's bank: its amount, the sum of the lines it
 * carries (their net), whether they match, and whether a person ticked it
 * off against the bank statement. A run records each payout line of its
 * day: fetched, it asks the channel for the payout's lines
 * (ops->payout_lines); from a file, it sums the file's lines that name the
 * payout. */
struct recon_payout {
	int64_t id;
	char provider[41];
	char payout_id[256];
	int64_t amount; /* > 0: what reaches the bank */
	char currency[4];
	int64_t lines, lines_sum;
	int matches;
	char arrival[11]; /* shop day it arrives, "" when unknown */
	int64_t batch_id;
	int64_t ticked_at; /* 0 while not ticked */
	char ticked_by[65];
};

/* recon_payout_list - payouts of provider (NULL: all), newest first;
 * untick_only 1: only those not ticked off yet. */
int recon_payout_list(struct db *db, const char *provider, int unticked_only,
                      int (*cb)(const struct recon_payout *p, void *arg), void *arg);

/* recon_payout_tick - a person ticks payout payout_id (the channel's id)
 * off against the bank: FD_ENOTFOUND, FD_ECONFLICT when ticked already,
 * FD_EINVAL when its lines do not add up to its amount (resolve that
 * first). */
int recon_payout_tick(struct db *db, const char *payout_id);

/* recon_check - `frontdesk check`'s look at reconciliation: a batch left
 * running while nobody holds its day's lock (its run was killed; the next
 * run of the day closes it) is reported as "recon-batch-interrupted" with
 * a detail naming it. Returns how many, or a negative FD_E* code. */
int recon_check(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
                void *arg);

/* The state of the books for the screen's status line. */
struct recon_state {
	char last_balanced[11]; /* the newest balanced day, "" when none */
	int64_t open;           /* open differences, all days */
	int64_t open_days;      /* days with open differences */
};

/* recon_day_state - *out for provider (NULL: all). */
int recon_day_state(struct db *db, const char *provider, struct recon_state *out);

/* recon_days_open - each day in [from_day, to_day] ("YYYY-MM-DD") with
 * open differences of provider (NULL: all), oldest first, with how many. */
int recon_days_open(struct db *db, const char *provider, const char *from_day, const char *to_day,
                    int (*cb)(const char *day, int64_t open, void *arg), void *arg);

/* recon_day_balanced - *balanced 1 when day is balanced for provider (NULL:
 * every provider that has a batch of it), *open its open differences. */
int recon_day_balanced(struct db *db, const char *provider, const char *day, int *balanced,
                       int64_t *open);

#endif
