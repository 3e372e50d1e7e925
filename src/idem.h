/*
 * idem.h - idempotency records: a request submitted twice is done once.
 *
 * Every command that creates money records takes an optional idempotency
 * key. The first request with a key does its work and, IN THE SAME
 * TRANSACTION, stores a record: the key, the scene (which command), a
 * SHA-256 of the request as the caller canonicalised it, and a snapshot of
 * the response (the ids it created). The same key with the same request then
 * returns that first response and writes nothing; the same key with another
 * request is refused; a key that another process holds as 'processing' (a
 * two-step caller such as a payment channel, see idem_begin) answers "in
 * progress"; a failed first attempt, or one whose holder let its hold expire,
 * may be retried. A refused desk request rolls back and leaves no record, so
 * it may simply be retried too.
 *
 * Holds run on the real clock (time()), never on FRONTDESK_NOW, so that a
 * hold expires in real time.
 *
 * Callers: invoice.c and payment.c (through idem_run), the payment channel
 * (idem_begin/idem_fail), the tests.
 */
#ifndef FD_IDEM_H
#define FD_IDEM_H

#include <stddef.h>
#include <stdint.h>

struct db;

/* The response of an idempotent money command: the main id it created (a
 * payment, an invoice, a reversal, a refund) and the further ids (the
 * allocations posted with a payment). replayed is 1 when the response is the
 * stored one of an earlier identical request and nothing was written. */
struct idem_result {
	int64_t id;
	int64_t *ids; /* n further ids, owned; NULL when n is 0 */
	size_t n;
	int replayed;
};

/* idem_result_add - append one further id (grows ids). */
void idem_result_add(struct idem_result *r, int64_t id);

/* idem_result_free - release ids and zero *r. */
void idem_result_free(struct idem_result *r);

/* idem_hash - the SHA-256 (64 hex digits and a NUL) of canonical, the
 * request written as "name=value" lines in a fixed order. */
int idem_hash(const char *canonical, char out[65]);

/* idem_check_key - 0 if key is acceptable (1..200 bytes of printable text),
 * else FD_EINVAL with a reason. */
int idem_check_key(const char *key);

/* idem_holder - who holds a record we take: "operator@host:pid". */
const char *idem_holder(void);

/* The states of an idempotency record, each stored as the word
 * idem_state_word gives: processing (held by idem_begin's caller), success
 * (the response is stored), failed (idem_fail: may be retried). The schema
 * has no status_transition rows for them: idem_enter decides what each
 * means. */
enum idem_state {
	IDEM_PROCESSING,
	IDEM_SUCCESS,
	IDEM_FAILED,
	IDEM_STATES /* no state of ours: a word idem_state_of does not know */
};

/* idem_state_of - the state a stored word names (IDEM_STATES: none, or
 * NULL); idem_state_word - its stored word ("" for IDEM_STATES). */
enum idem_state idem_state_of(const char *word);
const char *idem_state_word(enum idem_state s);

/* Returns of idem_enter and idem_begin besides the FD_E* errors. */
enum { IDEM_NEW = 0, IDEM_REPLAY = 1 };

/* idem_enter - look key up INSIDE the caller's write transaction.
 * IDEM_NEW: no record, a failed one, one this process holds, or one whose
 * hold expired: go on, and call idem_finish in the same transaction.
 * IDEM_REPLAY: *response (the caller frees it) is the stored first response;
 * write nothing. FD_ECONFLICT: the key belongs to a different request.
 * FD_EINPROGRESS: another process holds it until its hold ends. */
int idem_enter(struct db *db, const char *key, const char *scene, const char *hash,
               char **response);

/* idem_finish - store response as the key's answer (status success) inside
 * the caller's write transaction, with the money rows it answers for. */
int idem_finish(struct db *db, const char *key, const char *scene, const char *hash,
                const char *response);

/* idem_run - the shape of every idempotent desk command. In one write
 * transaction: when key is not NULL look it up (idem_enter), run fn (which
 * writes the money rows and fills *res), store *res as the key's response,
 * commit. A replay fills *res from the stored response with replayed = 1 and
 * writes nothing. On error nothing is written and *res is empty. */
int idem_run(struct db *db, const char *key, const char *scene, const char *canonical,
             int (*fn)(struct db *db, void *arg, struct idem_result *res), void *arg,
             struct idem_result *res);

/* idem_begin - two-step use: claim key as 'processing', held by this process
 * for hold_secs of real time, in its own transaction. Returns as idem_enter
 * (IDEM_NEW: the key is now ours). Then do the outside work, and either post
 * the money rows with idem_enter + idem_finish in one transaction, or call
 * idem_fail. */
int idem_begin(struct db *db, const char *key, const char *scene, const char *hash, int hold_secs,
               char **response);

/* idem_fail - mark a key this process holds as failed (own transaction), so
 * that the request may be retried. FD_ECONFLICT if we do not hold it. */
int idem_fail(struct db *db, const char *key);

#endif
