/*
 * hq.h - the chain's head office: a PostgreSQL database (libpq) that each
 * shop feeds through the integration pipeline, as a type of its own
 * ("hq"), and that answers the chain's reports. See hq.c.
 *
 * At the shop nothing waits for the head office: the committed changes of
 * its authoritative records are already rows of their history tables
 * (<table>_his, one row per change, numbered his_id); hq_queue turns those
 * not yet queued into outbox commands (one per batch of at most
 * HQ_BATCH_ROWS rows of one table, business key HQ-<table>-<epoch>-<last his_id>,
 * a new idempotency key each), in the transaction that moves the table's
 * cursor (hq_sync), so a crash queues nothing twice and loses nothing;
 * hq_deliver sends each batch with the pipeline's backoff: the rows are
 * read when they are sent (a purge since then sends the purged text). At
 * the head office hq_apply (data/hq/0001-head-office.sql) applies a batch
 * once by its key and each record by (shop, table, id, version): the
 * newest version wins, so a batch sent twice, out of order or after a
 * crash changes nothing the second time.
 *
 * A head office that cannot be reached is not a reason to give up: the
 * batch waits on the backoff however long the shop is offline (`check`
 * says so once it is older than the give-up horizon: hq-behind), and so
 * does one whose schema is older than this program's (until hq init runs
 * there with it). A batch
 * the head office refuses (a posted amount changed, a shop that has not
 * joined) is a dead letter with the reason.
 *
 * Conventions as in job.h: 0 or a negative FD_E* code with the reason in
 * err_msg().
 *
 * Callers: cli-hq.c (`frontdesk hq ...`), hq-steps.c (the worker).
 */
#ifndef FD_HQ_H
#define FD_HQ_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct db;
struct pipe_conn;
struct control_hold;

#define HQ_TYPE "hq"

/* At most this many history rows go in one batch, and this many batches
 * are queued in one transaction (the rest in the next round). */
#define HQ_BATCH_ROWS 500
#define HQ_QUEUE_MAX  20

/* A record's version at the head office: epoch * HQ_EPOCH_UNIT + his_id
 * (hq_sync.epoch goes up when a shop restored from a backup finds that the
 * head office holds changes it lost). */
#define HQ_EPOCH_UNIT ((int64_t)1 << 40)
#define HQ_EPOCH_MAX  8000000

/* The tables whose changes go to the head office, in the order queued. */
extern const char *const hq_tables[];
extern const size_t hq_ntables;

/* hq_url_ok - 0 if url is a PostgreSQL address frontdesk will use
 * (postgresql://... or key=value words): on a host other than this
 * machine's loopback or a local socket, TLS with the server verified
 * (sslmode verify-full, the default frontdesk sets); FD_EINVAL with the
 * reason otherwise (a weaker sslmode, a password written in it). */
int hq_url_ok(const char *url);

/* A connection to the head office's PostgreSQL. */
struct hq_pg;

/* hq_pg_open - connect to url (hq_url_ok), password (NULL: libpq's own:
 * PGPASSFILE, ~/.pgpass) for it. FD_EIO when it cannot be reached. */
int hq_pg_open(const char *url, const char *password, struct hq_pg **out);
void hq_pg_close(struct hq_pg *h);

/* hq_init - create or bring up to date the head office's schema at url
 * (data/hq/NNNN-*.sql, frozen once landed: a migration applied before with
 * other text is refused, as is a schema newer than this program's).
 * *applied how many were applied now, *version the schema's version. */
int hq_init(const char *url, int *applied, int *version);

/* hq_join - this shop (its code at the head office: 1..20 of
 * [A-Za-z0-9_-], name its name there) reports to the head office at url
 * through provider code of type hq (the password, if any, is
 * CODE_password in the secrets file, secrets NULL: the default): the
 * shop is registered there and the provider here. Joining again with the
 * same code changes the address. */
int hq_join(struct db *db, const char *code, const char *url, const char *shop, const char *name,
            const char *secrets);

/* hq_queue - queue as outbox commands of type hq the history rows of
 * hq_tables not yet queued (for the enabled hq provider; none: nothing).
 * *batches how many commands were queued. */
int hq_queue(struct db *db, int64_t *batches);

struct hq_sent {
	int sent;     /* batches the head office took */
	int64_t rows; /* history rows in them */
	int failed;   /* batches to try again on the backoff */
	int dead;     /* batches the head office refused */
};

/* hq_mark - the newest history row of each of hq_tables now (mark has
 * hq_ntables places), for hq_reached. */
int hq_mark(struct db *db, int64_t *mark);

/* hq_reached - 1 when every history row up to mark is queued (and so,
 * after a round of hq_deliver, sent or waiting on the backoff), 0 when not
 * (a long backlog; a table sent again under a new epoch), or FD_E*. What
 * bounds `hq sync --once` on a desk that keeps writing. */
int hq_reached(struct db *db, const int64_t *mark);

/* hq_conn_open - open provider code of type hq for hq_deliver: its
 * registry row (the address, the shop's code) and its password. */
int hq_conn_open(struct db *db, const char *code, const char *secrets, volatile sig_atomic_t *stop,
                 struct pipe_conn *c);

/* hq_deliver - queue (hq_queue), then send the due batches of conn's
 * provider, each recorded under the lease. */
int hq_deliver(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
               volatile sig_atomic_t *stop, struct hq_sent *r);

/* hq_check - `frontdesk check`'s promise of the head office:
 * report("hq-behind", ...) when a batch has waited to leave longer than the
 * give-up horizon (the head office unreachable, or no worker runs). Returns
 * how many, or a negative FD_E* code. */
int hq_check(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
             void *arg);

/* The head office's part in a deletion certificate. */
enum hq_cert { HQ_CERT_NONE, HQ_CERT_WAITING, HQ_CERT_CONFIRMED };

/* hq_cert_part - the head office's part in deletion certificate
 * deletion_id: HQ_CERT_CONFIRMED (shop: this shop's code there, at: when,
 * by the desk clock) once it confirmed it forgot the customer, so that the
 * certificate names it as a participant; HQ_CERT_WAITING while this shop reports
 * to a head office that has not yet, HQ_CERT_NONE when it reports to none;
 * or FD_E*. What `retention certs` and the screen's certificate say. */
int hq_cert_part(struct db *db, const char *deletion_id, char shop[21], int64_t *at);

/* hq_joined - 1 when this shop reports to a head office (an enabled
 * provider of type hq), 0 when not, or FD_E*. */
int hq_joined(struct db *db);

/* ------------------------------------------------- at the head office */

/* A shop as the head office sees it. */
struct hq_shop_status {
	const char *code, *name;
	const char *last_batch_at; /* "" when none yet */
	int64_t lag_seconds;       /* since its last batch (-1: none) */
	int64_t records, batches;
	int64_t waiting, failed; /* batches the shop said were waiting, failing */
};

/* hq_status - each shop that joined the head office at url, by code. */
int hq_status(const char *url, int (*cb)(const struct hq_shop_status *s, void *arg), void *arg);

/* What `hq check` found of a shop. */
enum hq_check_state {
	HQ_CHECK_AGREES,  /* the head office's figures are the shop's */
	HQ_CHECK_BEHIND,  /* it has not yet all the changes of the shop's last figures */
	HQ_CHECK_DIFFERS, /* they differ (detail says which), or it has changes the
	                   * shop has not (a shop restored from a backup) */
	HQ_CHECK_NOTHING  /* the shop has sent nothing yet */
};

struct hq_check_row {
	const char *shop;
	enum hq_check_state state;
	const char *detail; /* "" when there is nothing to say */
};

/* hq_check_shops - for each shop (only: that one, NULL: all), compare the
 * figures it sent with its last batch (customers; per currency its
 * invoices' count, total and balance, its payments' count, amount,
 * allocated and refunded) with the same figures computed at the head
 * office, once the head office has every change up to the moment they are
 * of. FD_ENOTFOUND when only names no shop there. */
int hq_check_shops(const char *url, const char *only,
                   int (*cb)(const struct hq_check_row *r, void *arg), void *arg);

/* hq_reports_ready - 0 when the head office at url can answer its reports
 * (reached, its schema this program's or newer), else FD_E* with the
 * reason: what the screen's `--hq URL` asks before it opens. */
int hq_reports_ready(const char *url);

/* A row of the head office's aging: report_aging's, with its shop. */
struct hq_aging_row {
	const char *shop;
	int64_t customer_id; /* the shop's id */
	const char *customer_name;
	char currency[4];
	int64_t bucket[5]; /* current, 1-30, 31-60, 61-90, over 90 days past due */
	int64_t owed;      /* their sum */
	int64_t credit;    /* unallocated payments */
};

/* hq_report_aging - what each customer of shops (a comma-separated list of
 * codes; NULL or "": every shop) owes and has as credit, per currency, by
 * days past due on day on (YYYY-MM-DD; NULL: each shop's today), each
 * shop's day in its own time zone, as each shop's `report aging --on`
 * counts it: the same figures to the cent. By shop, then customer name. */
int hq_report_aging(const char *url, const char *shops, const char *on,
                    int (*cb)(const struct hq_aging_row *r, void *arg), void *arg);

/* A row of the head office's takings: the shops' rows of a day, method and
 * currency summed. */
struct hq_takings_row {
	char day[11], method[16], currency[4];
	int64_t count, received, refunded, net;
};

/* hq_report_takings - money received and refunded by shops (as above) per
 * day (each shop's own day), method and currency, from and to (YYYY-MM-DD,
 * both included): the sums of the shops' `report takings` rows (without
 * the channel's fees, which stay with each shop's reconciliation). */
int hq_report_takings(const char *url, const char *shops, const char *from, const char *to,
                      int (*cb)(const struct hq_takings_row *r, void *arg), void *arg);

/* A customer known at a shop. */
struct hq_customer_row {
	const char *shop;
	int64_t id;
	const char *name, *phone, *email; /* "" when none */
	const char *owed;                 /* "USD 12000,EUR 500" (minor units), "" when nothing */
};

/* hq_customer_find - the customers of every shop whose name, phone or
 * e-mail address holds text (case ignored), with what they owe in each
 * shop; at most 200. */
int hq_customer_find(const char *url, const char *text,
                     int (*cb)(const struct hq_customer_row *r, void *arg), void *arg);

/* A line of a customer's statement at the head office: report_statement's
 * (report.h), read from what the shop sent. */
struct hq_statement_line {
	int64_t at;
	const char *kind; /* invoice, credit_note, payment, allocation, refund */
	int64_t id;
	const char *ref, *target; /* NULL when none */
	int64_t amount, allocated, balance;
};

struct hq_statement_totals {
	char customer_name[256];
	int64_t invoiced, credited, received, refunded, balance, open, credit;
};

/* hq_report_statement - the statement of customer_id of shop in currency,
 * as the shop's `report statement` gives it: the same lines and totals. */
int hq_report_statement(const char *url, const char *shop, int64_t customer_id,
                        const char *currency,
                        int (*cb)(const struct hq_statement_line *l, void *arg), void *arg,
                        struct hq_statement_totals *t);

struct commission_row;
struct commission_total;

/* hq_report_commissions - each technician's commissions at shops (as
 * above) for the days from..to (YYYY-MM-DD, both included, each shop's
 * days in its own time zone): for each shop, in code order, the rows and
 * totals of the shop's own `report commissions`, computed by the same
 * rules (commission_compute) from what the shop sent. */
int hq_report_commissions(
    const char *url, const char *shops, const char *from, const char *to,
    int (*row_cb)(const char *shop, const struct commission_row *r, void *arg),
    int (*total_cb)(const char *shop, const struct commission_total *t, void *arg), void *arg);

#endif
