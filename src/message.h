/*
 * message.h - messages to customers (tables message and
 * customer_contact_pref, data/schema/0029-messages.sql), owned by
 * message.c: visit reminders, "on our way", booking confirmations and
 * invoices, by e-mail or text message.
 *
 * A message is written whole when it is made (language, recipient,
 * subject, body: from the templates of message-text.c in the customer's
 * language), then waits for its time (send_after: a reminder's hour), is
 * handed to the outbox of its channel's integration type ('email', 'sms')
 * and delivered by the pipeline with its backoff, give-up horizon and dead
 * letters (message_deliver, the worker's step). What becomes of it (sent,
 * delivered, failed) is a row of the contact log too.
 *
 * Consent: a customer who does not want messages of a channel gets none,
 * whatever asks (the scheduler, the desk, the screen); the change is kept
 * with who made it, when and why. A message made before consent was
 * withdrawn and not yet sent is cancelled when its time comes.
 *
 * Conventions as in job.h: 0 or a negative FD_E* code with the reason in
 * err_msg(); a refused request changes nothing.
 *
 * Callers: the command line (cli-message.c), the task runner (task.c:
 * message_schedule), the worker (message-steps.c), retention (the purge).
 */
#ifndef FD_MESSAGE_H
#define FD_MESSAGE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct db;
struct pipe_conn;
struct control_hold;

#define MESSAGE_EMAIL "email"
#define MESSAGE_SMS   "sms"

/* ---------------------------------------------------------- preferences */

struct message_pref {
	int64_t customer_id;
	char language[6]; /* "" : the shop's */
	int email_ok, sms_ok;
	char *reason;     /* NULL when none */
	char *changed_by; /* NULL when never changed */
	int64_t changed_at;
};

/* message_pref_get - customer_id's language and consent (the defaults:
 * the shop's language, both allowed, when nothing was ever set); free with
 * message_pref_free. FD_ENOTFOUND for no such customer. */
int message_pref_get(struct db *db, int64_t customer_id, struct message_pref *out);
void message_pref_free(struct message_pref *p);

/* message_consent_set - whether customer_id wants messages of channel
 * ("email", "sms"); reason (may be NULL, 400 bytes) kept with who and
 * when. Needs the customer permission. Waiting messages of that channel
 * are cancelled when consent is withdrawn. */
int message_consent_set(struct db *db, int64_t customer_id, const char *channel, int allowed,
                        const char *reason);

/* message_language_set - the language customer_id's messages are written
 * in: "en", "zh_CN", "zh_TW" (message_language_known), or NULL / "" for the
 * shop's (the setting message_language, default en). */
int message_language_set(struct db *db, int64_t customer_id, const char *language);

/* message_language_known - 1 for a language the templates are written in. */
int message_language_known(const char *language);

/* ------------------------------------------------------------- messages */

/* What to send. kind: "reminder", "on_the_way", "confirmation" (a visit's:
 * appt_id) or "invoice" (invoice_id; by e-mail its PDF is attached).
 * channel: "email" or "sms" (NULL: text message for on_the_way, e-mail
 * otherwise; a customer without that address gets the other when allowed).
 * customer_id: one customer of the visit (0: each one's message). */
struct message_input {
	const char *kind;
	const char *channel;
	int64_t appt_id;
	int64_t invoice_id;
	int64_t customer_id;
	int64_t send_after; /* 0: now */
};

/* message_make - make the message(s) in->kind asks for (one transaction):
 * *n (may be NULL) how many, *first (may be NULL) the first id. Refused
 * (nothing written): FD_ECONFLICT for a customer who does not want that
 * channel, a visit that is cancelled, done or past, a reminder or
 * confirmation already made; FD_EINVAL for a customer with no address of
 * that channel (the reason names them). */
int message_make(struct db *db, const struct message_input *in, int64_t *n, int64_t *first);

struct message {
	int64_t id, customer_id;
	char channel[8], kind[16];
	int64_t appt_id, invoice_id;
	char language[6];
	char *recipient, *subject, *body; /* subject NULL for a text message */
	int attach_invoice;
	char status[16]; /* waiting, sending, sent, unconfirmed, delivered, failed, cancelled */
	int64_t send_after;
	char *provider_code, *provider_ref, *error; /* NULL when none */
	int64_t sent_at, delivered_at, created_at, updated_at;
	char *customer_name;
};

/* message_get - message id (free with message_free); FD_ENOTFOUND. */
int message_get(struct db *db, int64_t id, struct message *out);
/* message_list - messages of customer_id (0: all) and of visit appt_id (0:
 * all), with status (NULL: any), newest first, at most limit (<= 0: 100). */
int message_list(struct db *db, int64_t customer_id, int64_t appt_id, const char *status, int limit,
                 int (*cb)(const struct message *m, void *arg), void *arg);
void message_free(struct message *m);

/* message_retry - send failed message id again (failed -> waiting, now). */
int message_retry(struct db *db, int64_t id);

/* message_failed_address - the newest address or number of customer_id's
 * channel that a provider refused (out, n bytes; "" when none) and why. */
int message_failed_address(struct db *db, int64_t customer_id, const char *channel, char *out,
                           size_t n, char *why, size_t whyn);

/* What message_schedule did. */
struct message_round {
	int64_t made;      /* reminders made */
	int64_t released;  /* messages handed to the outbox */
	int64_t cancelled; /* messages that will not be sent */
	int64_t waiting;   /* due but with no provider of their channel */
};

/* message_schedule - the scheduler's round (acting for the shop): the
 * reminders of the visits coming up (message_reminder_days before, at
 * message_reminder_hour, by the channels of message_reminder_channels,
 * once each), then every waiting message whose time has come handed to its
 * channel's outbox (or cancelled: consent withdrawn, visit cancelled). */
int message_schedule(struct db *db, struct message_round *r);

/* What a delivery round did. */
struct message_sent {
	int sent, failed, dead, held; /* held: text messages waiting for the morning */
};

/* message_deliver - the due outbox commands of conn's provider (of type
 * "email" or "sms"), each sent and recorded under the lease. */
int message_deliver(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                    volatile sig_atomic_t *stop, struct message_sent *r);

/* message_conn_open - open provider code of type ("email", "sms") for
 * message_deliver: its registry row, the request log and its secrets
 * (CODE_username and CODE_password for a mail server). */
int message_conn_open(struct db *db, const char *type, const char *code, const char *secrets,
                      volatile sig_atomic_t *stop, struct pipe_conn *c);

/* The text messages' own steps (integration type "sms", adapter sms-rest:
 * tests/chan/contract/sms-rest-contract.md). message_sms_ingest - store a
 * delivery receipt relayed to us (signed in X-Sms-Signature with
 * CODE_signing_secret) in the inbox, as inbox_ingest does; message_sms_process
 * - apply the stored receipts (delivered, failed; a repeat or a late one
 * changes nothing; one naming a message not known yet waits on the backoff),
 * *applied how many moved a message; message_sms_query - ask the provider
 * about each message sent message_sms_confirm_hours (default 24) ago with
 * no receipt: delivered or failed as it says, else unconfirmed ("sent, not
 * confirmed"), *asked how many. */
struct inbox_ingest_result;
int message_sms_ingest(struct db *db, const char *code, const char *secrets, const char *header,
                       const void *raw, size_t len, struct inbox_ingest_result *r);
int message_sms_process(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                        volatile sig_atomic_t *stop, int64_t *applied);
int message_sms_query(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                      volatile sig_atomic_t *stop, int64_t *asked);

/* message_on_booked - the listener of ANNOUNCE_VISIT_BOOKED: with the
 * setting message_confirm_channels (e.g. "email" or "email,sms"; empty,
 * the default: none) each booked visit's customers get a confirmation by
 * those channels, made in the booking's transaction; a customer who wants
 * none or has no address of a channel simply gets none. */
struct announcement;
int message_on_booked(struct db *db, const struct announcement *a);

/* message_check - `frontdesk check`'s promise of the messages:
 * report("message-not-sent", ...) for each message still waiting to leave
 * the give-up horizon after its time (no provider of its channel, or no
 * worker), and report("message-template", ...) for each of the shop's
 * template files (message_template_dir) that cannot be used. Returns how
 * many, or a negative FD_E* code. */
int message_check(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
                  void *arg);

#endif
