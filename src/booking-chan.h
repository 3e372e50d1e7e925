/*
 * booking-chan.h - online booking channels: a channel (a booking site, a
 * map listing) sends booking requests for the shop's slots; each is
 * decided within one transaction and the channel is told the free slots
 * of every resource and day a decision changed.
 *
 * Records (data/schema/0019-booking-channel.sql), owned here:
 *  - booking_request: one per (provider, the channel's request id), the
 *    slot, service, resource and customer as the channel gave them, the
 *    visit it created and its state (received -> confirmed | rejected |
 *    cancelled; confirmed -> cancelled | done | no_show; one way only);
 *  - availability_push: the free slots of a resource and day sent to a
 *    provider, with a version per (provider, resource, day) that only grows.
 *
 * A request arrives signed (header "t=<unix>,v1=<hex>", HMAC-SHA256 over
 * "<t>." and the raw body with the secret CODE_signing_secret: pipe-sig.h)
 * and is stored raw in the inbound table (integration type booking) before
 * anything else; booking_chan_process decides the stored ones, each in ONE
 * transaction with its inbound row:
 *  - booking.requested: the slot reserved (capacity_reserve through
 *    booking_add) with the visit, its job and the customer (found by phone,
 *    then e-mail, else added), a "booking.confirm" outbox command; or
 *    rejected with the reason (slot taken, outside working hours, unknown
 *    service or resource): never overbooked. The same request id again
 *    changes nothing; a request whose cancellation came first is rejected
 *    as cancelled (the row stays cancelled, no visit);
 *  - booking.changed: the visit moved to the new time under the same rule
 *    (visit_move: capacity_follow), or kept with the reason recorded;
 *  - booking.cancelled: the visit cancelled; before its request: the row
 *    is made cancelled and the request, when it comes, books nothing.
 * After each decision that changed a resource's day (and every booking_add
 * with resources, and every move or cancellation of a visit holding
 * resources: booking.c and visit.c call here), an
 * "availability.push" outbox command per enabled booking provider carries
 * that day's free slots and the next version.
 *
 * Callers: cli-booking-chan.c, pipe.c and pipe-worker.c (the
 * booking type's steps), booking.c and visit.c (the pushes), tests.
 */
#ifndef FD_BOOKING_CHAN_H
#define FD_BOOKING_CHAN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct db;
struct control_hold;
struct states;
struct pipe_conn;

/* The registry's integration type of booking channels. */
#define BOOKING_CHAN_TYPE "booking"

/* booking_chan_adapter_known - 1 for the booking channels' one adapter,
 * "rest" (the registry asks it through the pipeline). */
int booking_chan_adapter_known(const char *name);

struct inbox_ingest_result; /* inbox.h: what the ingest stored */

/* booking_chan_ingest - store a request relayed from booking provider code
 * in its own transaction (inbound_callback, type booking): the signature
 * header checked with CODE_signing_secret (secrets_path NULL: the default
 * file); valid and readable: stored received under its event id (again:
 * nothing changes); bad signature: rejected under "rejected:<sha256>";
 * unreadable: dead. 0 when something was stored, whatever r->accepted. */
int booking_chan_ingest(struct db *db, const char *code, const char *secrets_path,
                        const char *header, const void *raw, size_t len,
                        struct inbox_ingest_result *r);

/* booking_chan_read - read a request event (the generic REST channel's
 * JSON, README "Online booking channels"): its event id, type and request
 * id into the buffers. FD_EINVAL with a reason when it is not one. */
int booking_chan_read(const void *raw, size_t len, char id[256], char type[101],
                      char request_id[256]);

/* What one round of processing did. */
struct bchan_round {
	int64_t confirmed, rejected, cancelled, changed, ignored, failed;
	int64_t pushes; /* availability.push commands written */
};

/* booking_chan_process - decide every stored request event of provider
 * code (NULL: of every booking provider) that is due
 * (received; failed ones whose retry time has come, or all failed ones
 * with all), each in one write transaction that first claims its inbound
 * row (a second process running at the same time skips it). */
int booking_chan_process(struct db *db, const char *code, int all, struct bchan_round *r);

/* The states of a request, each stored as the word
 * booking_request_state_word gives (the column booking_request.status).
 * Its moves are the rows of status_transition for booking_request:
 * received -> confirmed, rejected or cancelled; confirmed -> cancelled,
 * done or no_show; the rest are final. */
enum booking_request_state {
	BOOKING_REQUEST_RECEIVED,
	BOOKING_REQUEST_CONFIRMED,
	BOOKING_REQUEST_REJECTED,
	BOOKING_REQUEST_CANCELLED,
	BOOKING_REQUEST_DONE,
	BOOKING_REQUEST_NO_SHOW,
	BOOKING_REQUEST_STATES /* no state of ours: a word booking_request_state_of
	                        * does not know */
};

/* booking_request's states, words and moves (states.h), for states_agree. */
extern const struct states booking_request_states;

/* booking_request_state_of - the state a stored word names
 * (BOOKING_REQUEST_STATES: none); booking_request_state_word - its stored
 * word ("" for BOOKING_REQUEST_STATES). */
enum booking_request_state booking_request_state_of(const char *word);
const char *booking_request_state_word(enum booking_request_state s);

struct booking_request {
	int64_t id;
	char provider[41];
	char request_id[256];
	int64_t start_at, end_at; /* 0 when not known (a cancellation first) */
	char *service, *resource;
	char *customer_name, *customer_phone, *customer_email; /* NULL when not given */
	int64_t appt_id;                                       /* 0: none */
	char status[12];
	char *reason; /* NULL when none */
	int64_t created_at, updated_at;
};

/* booking_chan_list - the requests (status NULL: all), newest first. */
int booking_chan_list(struct db *db, const char *status,
                      int (*cb)(const struct booking_request *b, void *arg), void *arg);

/* booking_chan_get - the request with id, or request_id text at provider
 * (NULL: any). FD_ENOTFOUND. */
int booking_chan_find(struct db *db, const char *provider, const char *text,
                      struct booking_request *out);
void booking_chan_free(struct booking_request *b);

/* booking_chan_push - write an availability push of resource's day (the
 * local midnight day_start) to every enabled booking provider: in a write
 * transaction (a savepoint inside an open one). *n (may be NULL) gets the
 * number written. */
int booking_chan_push(struct db *db, int64_t resource, int64_t day_start, int64_t *n);

/* booking_chan_deliver - send booking provider code's due outbox
 * commands (availability.push, booking.confirm; a failed one only once its
 * backoff has passed) to the generic REST channel: a 2xx answer is
 * delivered (succeeded), a refusal dead with the reason, anything else
 * failed and tried again on the pipeline's backoff (pipe_rule_retry_plan,
 * outbox.h: at most 5 minutes apart), dead only when it fails past the
 * give-up horizon (pipeline_give_up_seconds) after it was written or
 * revived. Each outcome is written in its own transaction, fenced by lease
 * (NULL: not fenced). *sent gets the number delivered. */
int booking_chan_deliver(struct db *db, const char *code, const struct control_hold *lease,
                         volatile sig_atomic_t *stop, int *sent);

struct announcement; /* announce.h */

/* booking_chan_on_visit - the listener of ANNOUNCE_VISIT_CHANGED, told INSIDE
 * the transaction that moved visit a->id (from a->when; 0: not moved), freed
 * it (cancelled, no-show) or finished it (done; visit.c): an availability
 * push of each resource it holds, for its day and, when it moved to another
 * day, the old one (none for a visit done in place); a visit done or no-show
 * moves the confirmed booking request that made it to done or no_show, one
 * way only, with a booking.confirm command telling its channel. */
int booking_chan_on_visit(struct db *db, const struct announcement *a);

/* booking_chan_on_day - the listener of ANNOUNCE_DAY_CHANGED: booking_chan_push
 * of resource a->id's day of a->when (a booking took its slots; booking.c). */
int booking_chan_on_day(struct db *db, const struct announcement *a);

struct outbox_cmd; /* outbox.h */

/* booking_chan_command_fits - the booking type's rule for a person
 * reviving outbox command o (outbox_retry): an availability push is not
 * sent again once a later push of the same channel, resource and day has
 * reached the channel (it would be ignored as older); FD_ECONFLICT saying
 * so. An answer is always sent. */
int booking_chan_command_fits(struct db *db, const struct outbox_cmd *o);

/* booking_chan_conn_open - booking provider code's registry row and the
 * request log beside the database in *c, for the worker (no adapter:
 * booking_chan_deliver speaks to the channel). Nothing is left open on an
 * error; close with pipe_conn_close. */
int booking_chan_conn_open(struct db *db, const char *code, struct pipe_conn *c);

#endif
