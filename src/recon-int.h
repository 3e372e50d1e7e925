/*
 * recon-int.h - what the files of reconciliation share (private to recon.c,
 * recon-write.c, recon-read.c and recon-decide.c): a run's state while it
 * matches and writes, and the helpers more than one of them uses. Other
 * modules use recon.h.
 */
#ifndef FD_RECON_INT_H
#define FD_RECON_INT_H

#include <stddef.h>
#include <stdint.h>

#include "pipe-provider.h"
#include "recon.h"

struct db;
struct control_hold;

/* How long the day's lock lasts without renewal: a run renews it between
 * its steps, so this only bounds how long a crashed run keeps others out
 * (a run of a dead process of this host is taken over at once). */
#define RECON_LOCK_TTL 900

/* An open-addressing index from a string key to an item number. */
struct sidx {
	int *slot; /* item + 1, 0 when empty */
	char **key;
	size_t cap;
};

/* One of our card payments or refunds. */
struct litem {
	int refund;         /* 0 payment, 1 refund */
	int64_t id;         /* the payment's or refund's id */
	int64_t payment_id; /* the payment (a refund's payment) */
	int64_t amount;     /* > 0 */
	char currency[4];
	char status[24];
	int64_t at;
	char key[256];     /* payment: the channel's order id; refund: its channel refund id */
	char order_no[65]; /* payment: our order number, "" when none */
	int in_day, seen;
};

/* recon_item_counts - 1 when our item stands for money that moved: a
 * payment that is not void, a refund that succeeded. */
int recon_item_counts(const struct litem *it);

/* A payout line and what its lines add up to. */
struct payout_sum {
	const struct chan_settle_line *line;
	int64_t lines, sum;
};

/* A difference to write. */
struct ndiff {
	const char *kind;
	char key[300];
	int64_t payment_id, refund_id;
	const struct chan_settle_line *line;
	int has_local;
	int64_t local_amount;
	char local_currency[4];
	char detail[600];
};

struct run {
	struct db *db;
	const char *provider, *day;
	int64_t from, to; /* the day */
	int tol;
	const struct chan_settle_line *lines;
	size_t n;
	const struct recon_source *src;
	int64_t batch;
	struct litem *it;
	size_t nit, capit;
	struct sidx by_order, by_no, by_refund;
	struct ndiff *d;
	size_t nd, capd;
	/* fees of matched lines: line index and local item */
	size_t *fee_line;
	int *fee_item;
	size_t nfee, capfee;
	struct recon_result *res;
	struct control_hold *hold;
	/* the day's payouts and the lines they carry */
	struct payout_sum *po;
	size_t npo;
};

/* recon_sidx_free - free an index of a run's. */
void recon_sidx_free(struct sidx *x);
/* recon_match - compare the day's lines with the local items of r. */
int recon_match(struct run *r);
/* recon_lock_name - the lock of provider's day in name (FD_EINVAL for a bad
 * provider code). */
int recon_lock_name(const char *provider, const char *day, char name[65]);
/* recon_kind_name - the stored word of a settlement line's kind. */
const char *recon_kind_name(enum chan_settle_kind k);
/* recon_line_json - line l as the JSON kept with a difference (caller
 * frees); recon_line_parse reads it back into *l. */
char *recon_line_json(const struct chan_settle_line *l);
int recon_line_parse(const char *json, struct chan_settle_line *l);
/* recon_resolution_write - record a decision on difference diff_id. */
int recon_resolution_write(struct db *db, int64_t diff_id, const char *action, const char *note,
                           int64_t payment_id, int64_t refund_id, int64_t batch_id);
/* recon_count_open - the open differences of provider's day in *n. */
int recon_count_open(struct db *db, const char *provider, const char *day, int64_t *n);

#endif
