/*
 * retention-mod.h - what the process manager (retention.c) asks of each
 * record's owning module during a deletion, and the helpers the owners use
 * (defined in retention-mod.c, below both the owners and retention.c).
 * Core-internal: only the owners, retention.c, retention-mod.c and
 * lifecycle.c (which counts what the blockers find) include it.
 *
 * A blocker function answers, from the authoritative records and inside the
 * caller's write transaction, whether its module's data of customer_id must
 * stay: 1 with a reason in why (translated, no personal data: numbers and
 * states only), 0 when nothing blocks, or a negative FD_E* code.
 *
 * A purge function removes or anonymises its module's personal text of
 * c->customer_id inside the purge's write transaction (fd_purging() is 1),
 * never an amount, an id or a time; it tells c of the identifiers that raw
 * payloads and the request log may hold (order numbers, channel ids,
 * envelope ids, booking request ids) and of the files to remove. It returns
 * 0 or a negative FD_E* code.
 */
#ifndef FD_RETENTION_MOD_H
#define FD_RETENTION_MOD_H

#include <stddef.h>
#include <stdint.h>

struct db;

/* The owners' rules of what keeps a customer's data, as SQL conditions:
 * each owner's blocker finds the first such record and the lifecycle
 * projection counts them, so that the two never drift apart. */
/* a visit (alias a) still to happen or under way (visit.c) */
#define RETENTION_VISIT_OPEN "a.status IN ('scheduled', 'confirmed', 'in_progress')"
/* an invoice the customer still owes on (invoice.c) */
#define RETENTION_INVOICE_OWING                                                                    \
	"kind = 'invoice' AND status IN ('issued', 'partially_paid') AND balance > 0"
/* an invoice paid more than its total: the shop owes (invoice.c) */
#define RETENTION_INVOICE_OVERPAID "status = 'overpaid'"
/* a payment not all allocated or refunded: the customer's credit (payment.c) */
#define RETENTION_PAYMENT_CREDIT                                                                   \
	"status IN ('unallocated', 'partially_allocated') AND amount > allocated + refunded"

/* What replaces a personal text that cannot be NULL. */
#define RETENTION_REMOVED "(removed)"

struct retention_purge_ctx {
	int64_t customer_id;
	const char *deletion_id;
	/* an identifier (copied) that raw payloads and the request log may hold */
	void (*needle)(struct retention_purge_ctx *c, const char *s);
	/* a file (copied) to remove once the purge committed: an absolute
	 * path, or one relative to the signed documents' folder (esign/) */
	void (*file)(struct retention_purge_ctx *c, const char *path);
	void *priv;
};

/* retention_exec_id - run sql (a literal) with ?1 bound to id; what says
 * what failed. */
int retention_exec_id(struct db *db, const char *sql, int64_t id, const char *what);

/* One statement of a module's purge: sql (a literal, ?1 = the customer
 * id) and what failing means (N_() marked). */
struct retention_stmt {
	const char *sql;
	const char *what;
};

/* retention_exec_all - run v[0..n) in order with ?1 bound to id; the first
 * failure stops and is returned. */
int retention_exec_all(struct db *db, const struct retention_stmt *v, size_t n, int64_t id);

/* retention_exec_needles - run sql (a literal) once per non-empty needle,
 * ?1 bound to stub (as a blob when blob is set, else as text) and ?2 to
 * the needle; *rows (may be NULL) gets the rows changed. The payload
 * scrubs of inbox.c and outbox.c are this with their own statement. */
int retention_exec_needles(struct db *db, const char *sql, const char *stub, int blob,
                           const char *const *needles, size_t n, int64_t *rows, const char *what);

/* retention_stub - the JSON a scrubbed payload is replaced by, naming the
 * deletion, into buf. */
void retention_stub(const char *deletion_id, char *buf, size_t n);

/* retention_first - the first row of sql (a literal, ?1 = id): 1 with its
 * first column as text in buf (may be NULL), 0 when there is none, or a
 * negative FD_E* code. */
int retention_first(struct db *db, const char *sql, int64_t id, char *buf, size_t n);

/* The owners' functions (each in its owner's .c). */
int visit_retention_blocker(struct db *db, int64_t customer_id, char *why, size_t n);
int visit_retention_purge(struct db *db, struct retention_purge_ctx *c);
int job_retention_purge(struct db *db, struct retention_purge_ctx *c);
int item_retention_purge(struct db *db, struct retention_purge_ctx *c);
int invoice_retention_blocker(struct db *db, int64_t customer_id, char *why, size_t n);
int invoice_retention_purge(struct db *db, struct retention_purge_ctx *c);
int payment_retention_blocker(struct db *db, int64_t customer_id, char *why, size_t n);
int payment_retention_purge(struct db *db, struct retention_purge_ctx *c);
int chan_order_retention_blocker(struct db *db, int64_t customer_id, char *why, size_t n);
int chan_order_retention_purge(struct db *db, struct retention_purge_ctx *c);
int contact_retention_purge(struct db *db, struct retention_purge_ctx *c);
int booking_chan_retention_purge(struct db *db, struct retention_purge_ctx *c);
int esign_retention_blocker(struct db *db, int64_t customer_id, char *why, size_t n);
int esign_retention_purge(struct db *db, struct retention_purge_ctx *c);
int customer_retention_purge(struct db *db, struct retention_purge_ctx *c);
int print_retention_purge(struct db *db, struct retention_purge_ctx *c);
int recurring_retention_blocker(struct db *db, int64_t customer_id, char *why, size_t n);
int recurring_retention_purge(struct db *db, struct retention_purge_ctx *c);
int message_retention_blocker(struct db *db, int64_t customer_id, char *why, size_t n);
int message_retention_purge(struct db *db, struct retention_purge_ctx *c);
int condition_retention_purge(struct db *db, struct retention_purge_ctx *c);
/* media.c: every host of the customer's media that may hold a copy is let
 * go (deleting, a media.delete command) and written into the deletion's
 * certificate (retention_hosted_copy); the worker deletes them after the
 * purge, and check reports a deletion not done (media-command-dead) */
int media_retention_purge(struct db *db, struct retention_purge_ctx *c);

/* inbox_retention_scrub / outbox_retention_scrub - replace the stored raw
 * payload of every inbound event (and outbox command) whose object id or
 * business key is one of needles[0..n), or whose payload holds one, by a
 * stub naming the deletion. *rows (may be NULL) gets how many. */
int inbox_retention_scrub(struct db *db, const char *deletion_id, const char *const *needles,
                          size_t n, int64_t *rows);
int outbox_retention_scrub(struct db *db, const char *deletion_id, const char *const *needles,
                           size_t n, int64_t *rows);

/* pipe_log_scrub - in the request log at path (a missing file is nothing to
 * do), blank the URL, excerpts and error of every row that holds one of
 * needles[0..n), with secure_delete on; then checkpoint and VACUUM it when
 * vacuum is set. *rows (may be NULL) gets how many. */
int pipe_log_scrub(const char *path, const char *const *needles, size_t n, int vacuum,
                   int64_t *rows);

/* retention_hash - the customer reference hash of a certificate:
 * sha256 hex of "<deletion id>:customer:<customer id>" into out[65]. */
int retention_hash(const char *deletion_id, int64_t customer_id, char out[65]);

#endif
