/*
 * inbox.h - inbound channel events (table inbound_callback): stored raw
 * before anything is done with them, then processed as hints.
 *
 * An event is unique per (source system, external id): storing it again is
 * INSERT OR IGNORE and changes nothing. Its bytes are kept exactly as they
 * arrived, with its type, its object id, the channel's time and our time of
 * receipt; the schema refuses any change to them. An event whose signature
 * does not verify is stored as 'rejected' under the key "rejected:<sha256 of
 * header and bytes>" (never under the id it claims, so a forged copy cannot
 * shadow the real event) and is never processed or retried.
 *
 * Status: received -> processed | ignored | parked | failed | dead;
 * failed/parked -> received (retry) ...; dead -> received only when a person
 * retries it; rejected is final. Times of receipt use clock_now(); times of
 * the next attempt use the real clock (time()), like the job queue.
 *
 * Callers: the command line (`frontdesk inbox ...`), the poller, the
 * processors of every integration type (chan-process.c, booking-chan.c,
 * esign.c: inbox_mark_*, the one place an event leaves processing), tests.
 */
#ifndef FD_INBOX_H
#define FD_INBOX_H

#include <stddef.h>
#include <stdint.h>

#include "pipe-rule.h"

struct cJSON;
struct chan_ops;
struct db;
struct states;

/* The largest payload we store (bytes). */
#define INBOX_PAYLOAD_MAX 1048576

/* One event to store. */
struct inbox_new {
	const char *source;      /* provider code, e.g. "stripe" */
	const char *external_id; /* the channel's event id */
	const char *via;         /* "poll", "forward" or "query" */
	const char *event_type;  /* NULL when unknown */
	const char *object_id;   /* NULL or "" when none */
	const void *payload;     /* len raw bytes */
	size_t len;
	int64_t channel_created_at; /* 0 when unknown */
	const char *status;         /* "received", "rejected" or "dead" */
	const char *error;          /* why it was rejected or is dead; NULL */
	const char *type; /* the integration type of source ("payment"); NULL: its registry
	                   * type (src/pipe-provider.h), "payment" when it is not registered */
};

struct inbox_event {
	int64_t id;
	char *source;
	char *external_id;
	char via[8];
	char *event_type; /* NULL when unknown */
	char *object_id;  /* NULL when none */
	unsigned char *payload;
	size_t len;
	int64_t channel_created_at; /* 0 when unknown */
	int64_t received_at;
	char status[12];
	int64_t attempts;
	int64_t next_attempt_at; /* 0 when none */
	int64_t parked_until;    /* 0 when none */
	char *last_error;        /* NULL when none */
	int64_t processed_at;    /* 0 when not yet */
	int64_t updated_at;
	char type[16]; /* the integration type it is for: payment, booking, esign */
};

/* What inbox_ingest (and esign_ingest, booking_chan_ingest) did. */
struct inbox_ingest_result {
	int64_t id;       /* the stored row (new or the earlier copy) */
	int fresh;        /* 1 when this call stored it, 0 when it was there already */
	int accepted;     /* 1 when the signature verified and the event was readable */
	char reason[300]; /* why it was not accepted */
	char external_id[256];
	const char *answer; /* pipe_ingest: what the provider waits for
	                     * in reply (static text), "" when nothing */
};

/* inbox_insert - INSERT OR IGNORE ev INSIDE the caller's write transaction.
 * *id gets the row (the earlier one when it was already stored) and *fresh
 * 1 when this call stored it. FD_EINVAL for a payload too large or fields
 * the schema refuses. */
int inbox_insert(struct db *db, const struct inbox_new *ev, int64_t *id, int *fresh);

/* inbox_insert_sane - inbox_insert of an event read from a channel (a
 * polled page's), checked as inbox_store_relayed checks a relayed one
 * (json: its payload must be one JSON value): one that is not sane is
 * stored 'dead' under inbox_refused_key("invalid", NULL, ...) with the
 * reason, never under the id it claims, and *dead is 1. The caller's
 * write transaction, like inbox_insert. */
int inbox_insert_sane(struct db *db, const struct inbox_new *ev, int json, int64_t *id, int *fresh,
                      int *dead);

/* inbox_insert_write - inbox_insert in a transaction of its own (db_write). */
int inbox_insert_write(struct db *db, const struct inbox_new *ev, int64_t *id, int *fresh);

/* inbox_refused_key - the external id a relayed payload that is refused
 * (a bad signature: prefix "rejected"; unreadable: "invalid") is stored
 * under, never the id it claims: "PREFIX:" and the hex SHA-256 of header
 * (NULL: ""), a newline and the len bytes of payload, cut to n bytes. The
 * caller has loaded libcrypto (crypto_load). */
void inbox_refused_key(const char *prefix, const char *header, const void *payload, size_t len,
                       char *out, size_t n);

/* inbox_insert_found - INSIDE the caller's write transaction, store as an
 * event of its own (via 'query', status received) a state frontdesk learned
 * by asking the channel rather than from its events: the payload is
 * {"id": external_id, "object": "event", "type": event_type, "via": note,
 * "data": {"object": object}} where object (consumed, whatever happens) is
 * what was learned and its "id" is the event's object id. Stored once per
 * external id, like any event. */
int inbox_insert_found(struct db *db, const char *source, const char *external_id,
                       const char *event_type, const char *note, struct cJSON *object);

/* inbox_relay_begin - the checks before a relayed payload of len bytes is
 * judged: libcrypto loaded (the signature and the key of a refused
 * payload need it), the size at most INBOX_PAYLOAD_MAX (FD_EINVAL). */
int inbox_relay_begin(size_t len);

/* A payload relayed to us, as its adapter judged it. */
struct inbox_relayed {
	const char *source;  /* provider code */
	const char *type;    /* integration type; NULL: the registry's (inbox_new) */
	const char *header;  /* the signature header that came with it; NULL: none */
	const void *payload; /* len raw bytes */
	size_t len;
	int json;     /* 1: the payload must be one JSON value (a JSON channel's) */
	int verified; /* 0: the signature failed, err_msg() says why */
	int readable; /* with verified: 1 when read into the four below; 0: err_msg() says why */
	const char *external_id, *event_type, *object_id;
	int64_t created; /* the channel's time, 0 when unknown */
};

/* inbox_store_relayed - store x in its own transaction whatever the
 * verdict, into r (which the caller cleared): a readable event 'received'
 * under its id (r->accepted = 1); a bad signature 'rejected' and an
 * authentic but unreadable payload 'dead', each under inbox_refused_key
 * ("invalid:..."). Readable means also sane: the payload UTF-8 text (and
 * with x->json one JSON value and nothing after it, with no \u0000), the
 * id, type and object id free of control bytes; anything else is dead
 * and with err_msg() as r->reason. 0 when stored, else an FD_E* code. The
 * one way inbox_ingest, esign_ingest and booking_chan_ingest store. */
int inbox_store_relayed(struct db *db, const struct inbox_relayed *x,
                        struct inbox_ingest_result *r);

/* inbox_ingest - store a payload relayed to us (a forwarder of webhooks,
 * a channel's notify) in its own transaction, read by the adapter ops of
 * the channel that sent it: ops->verify checks header (may be NULL: none;
 * some channels sign inside the bytes) against secret at clock_now(); its payload must be JSON
 * unless ops->xml_events (inbox_store_relayed); a
 * verified event that ops->read_event can read is stored 'received' under
 * its id; a bad signature is stored 'rejected' (and an authentic but
 * unreadable payload 'dead') with the reason in r->reason. Returns 0 when
 * something was stored (whatever r->accepted says), else an FD_E* code
 * (payload too large, bad source, an adapter that takes no relayed events,
 * database). */
int inbox_ingest(struct db *db, const struct chan_ops *ops, const char *source, const char *header,
                 const void *payload, size_t len, const char *secret,
                 struct inbox_ingest_result *r);

/* inbox_get - fill *out with event id (free with inbox_event_free);
 * FD_ENOTFOUND. */
int inbox_get(struct db *db, int64_t id, struct inbox_event *out);

/* inbox_list - events with status (NULL: all) of integration type (NULL:
 * all) from source (NULL: all), newest first, at most limit (<= 0: 100);
 * stops at cb's first non-zero. */
int inbox_list(struct db *db, const char *status, const char *type, const char *source, int limit,
               int (*cb)(const struct inbox_event *e, void *arg), void *arg);

/* inbox_retry - make a dead, failed or parked event due again now with its
 * attempts reset. FD_ECONFLICT for a processed, ignored, rejected or
 * already waiting event. */
int inbox_retry(struct db *db, int64_t id);

/* inbox_may_retry, inbox_may_ignore - the inbox's rule for a person: 0
 * when event id in status may be retried (dead, failed, parked) or ignored
 * (any state but processed, ignored and rejected); FD_ECONFLICT saying why
 * not. inbox_retry and inbox_ignore keep it; the screen asks it before
 * offering either. */
int inbox_may_retry(int64_t id, const char *status);
int inbox_may_ignore(int64_t id, const char *status);

/* inbox_ignore - a person decides an event is not to be applied: it becomes
 * 'ignored' with reason (required) as its last error. FD_ECONFLICT for a
 * processed, ignored or rejected event. */
int inbox_ignore(struct db *db, int64_t id, const char *reason);

/* Processing a stored event (chan-process.c, booking-chan.c, esign.c) ends
 * with one of the inbox_mark_* below, INSIDE the caller's write
 * transaction. Each counts the attempt (attempts + 1), keeps why (NULL or
 * "": none) as the event's last error and stamps updated_at (clock_now).
 * Each moves only an event that is still waiting to be processed
 * ('received', 'failed' or 'parked'): *moved (may be NULL) gets 1 when it
 * moved, 0 when it was in another state (a person retried, ignored or
 * claimed it meanwhile) and nothing was written. 0, or an FD_E* code from
 * the database. */

/* inbox_mark_processed - event id was applied: 'processed', processed_at
 * now (clock_now). */
int inbox_mark_processed(struct db *db, int64_t id, const char *why, int *moved);

/* inbox_mark_ignored - event id changes nothing (a repeat, a stale or
 * unknown event): 'ignored', processed_at now (clock_now). */
int inbox_mark_ignored(struct db *db, int64_t id, const char *why, int *moved);

/* inbox_mark_parked - event id waits for something of ours (an order not
 * known yet): 'parked' until parked_until, looked at again after wait
 * seconds (at least 1) of the real clock (clock_real). */
int inbox_mark_parked(struct db *db, int64_t id, const char *why, int64_t wait,
                      int64_t parked_until, int *moved);

/* inbox_mark_dead - event id is given up at once (it cannot be read, or the
 * core refused what it says): 'dead', with dead_kind ("refused",
 * "transient"; NULL: none). A person retries or ignores it. */
int inbox_mark_dead(struct db *db, int64_t id, const char *why, const char *dead_kind, int *moved);

/* inbox_mark_failed - event id failed in a way that may pass; attempts is
 * its attempts before this one. By the pipeline's one rule
 * (pipe_rule_retry_plan, outbox.h) it becomes 'failed' with its next try
 * (real clock) after wait seconds (> 0: the caller's own; <= 0: the
 * backoff's, at most 5 minutes apart), and is 'dead' (dead_kind, NULL:
 * "transient", why prefixed with how long it was tried) only when it fails
 * at least the give-up horizon after it was stored or a person last retried
 * it, never on a count of attempts. With keep it is never given up (what it
 * waits for is merely pending at the provider, or the caller's channel
 * keeps trying). *final (may be NULL) gets the status written: "failed" or
 * "dead". */
int inbox_mark_failed(struct db *db, int64_t id, int64_t attempts, const char *why, int64_t wait,
                      int keep, const char *dead_kind, const char **final, int *moved);

/* The states of a stored event, each stored as the word inbox_state_word
 * gives (the column inbound_callback.status). Its moves are the rows of
 * status_transition for inbound_callback: received, failed and parked go to
 * processed, ignored, parked, failed or dead (inbox_mark); dead, failed and
 * parked go back to received when a person retries; a dead one may also be
 * ignored or claimed (processed) by a person; rejected never moves. */
enum inbox_state {
	INBOX_RECEIVED,
	INBOX_PROCESSED,
	INBOX_IGNORED,
	INBOX_PARKED,
	INBOX_FAILED,
	INBOX_DEAD,
	INBOX_REJECTED,
	INBOX_STATES /* no state of ours: a word inbox_state_of does not know */
};

/* inbound_callback's states, words and moves (states.h), for states_agree. */
extern const struct states inbox_states;

/* inbox_state_of - the state a stored word names (INBOX_STATES: none);
 * inbox_state_word - its stored word ("" for INBOX_STATES). */
enum inbox_state inbox_state_of(const char *word);
const char *inbox_state_word(enum inbox_state s);

/* What became of a processed event, for inbox_mark. */
struct inbox_verdict {
	enum inbox_state state; /* processed, ignored, parked, failed; any other: dead */
	const char *why;        /* its last error (NULL: none) */
	int64_t attempts;       /* failed: its attempts before this one */
	int64_t wait;           /* failed, parked: as for inbox_mark_failed/_parked */
	int keep;               /* failed: never given up */
	int64_t parked_until;   /* parked */
	const char *dead_kind;  /* failed, dead: as for inbox_mark_failed/_dead */
};

/* inbox_mark - the inbox_mark_* that v->state names (any other: dead),
 * with v's values; *final (may be NULL) gets the status written. */
int inbox_mark(struct db *db, int64_t id, const struct inbox_verdict *v, const char **final,
               int *moved);

/* inbox_mark_claimed - INSIDE the caller's write transaction, a person
 * claims a parked or dead event id for what it paid (recon.c posted it): it
 * becomes 'processed' now (clock_now) with why as its last error, its
 * attempts untouched. Only a parked or dead event moves (*moved, may be
 * NULL, as for the inbox_mark_* above). */
int inbox_mark_claimed(struct db *db, int64_t id, const char *why, int *moved);

/* inbox_count - the number of events of source (NULL: all) in status. */
int inbox_count(struct db *db, const char *source, const char *status, int64_t *n);

void inbox_event_free(struct inbox_event *e);

#endif
