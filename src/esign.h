/*
 * esign.h - signed work authorisations: a job's estimate sent to an
 * e-signature provider, the sign flow it starts, the provider's callbacks,
 * the final signed document and its evidence kept beside the database.
 *
 * Records (data/schema/0017-esign.sql), owned here:
 *  - estimate: number EST-YYYY-NNNNNN (document_counter, gap-free), job,
 *    customer, subtotal / tax / total in minor units, the lines and the
 *    shop's terms (config key esign_terms) as they were, and the PDF made
 *    with print.h, kept as <database folder>/esign/<number>.pdf with its
 *    SHA-256 and size. Never changed;
 *  - esign_flow: one per estimate; its provider (remembered: a registry
 *    change never moves a flow), the provider's envelope id, and the state
 *      sent -> viewed -> signed | declined | expired; cancelled (the shop)
 *    one way only (the schema refuses any other move). A callback for a
 *    state the flow has passed never moves it back: it is stored, marked
 *    ignored with the reason, and the reason is kept on the flow.
 *
 * The pipeline (the worker's esign steps, pipe.c, fenced by the
 * channel lease like the payment steps):
 *  - deliver: the "envelope.create" outbox command that esign_send wrote
 *    goes out with its idempotency key and the PDF (checked against its
 *    recorded hash first); the answer's envelope id is recorded;
 *  - query: each flow still open is asked about (GET envelope) once per
 *    esign_query_seconds (default 300; esign_flow_query keeps when); what
 *    is found is stored as an inbound event of its own, like a callback;
 *  - process: stored callbacks (inbound_callback, integration_type esign)
 *    are applied to their flow, one transaction each;
 *  - download: a signed flow's final document is fetched into
 *    <database folder>/esign/<number>-signed.pdf (mode 0600): written to a
 *    temporary file, fsync'd, renamed, the folder fsync'd; then its path,
 *    SHA-256, size and the provider's evidence are recorded in one
 *    transaction. A worker killed mid-download leaves no final file and no
 *    record; the next run downloads it again, once.
 *
 * A job is "authorised" when one of its estimates is signed. With the
 * config key esign_require_authorised = 1, a visit is not started
 * (in_progress) while a job it works on is not authorised (visit.c asks
 * esign_visit_may_start).
 *
 * Callers: cli-esign.c, pipe.c, pipe-worker.c, checkdb.c,
 * visit.c, backup.c (the final documents of a backup), tests.
 */
#ifndef FD_ESIGN_H
#define FD_ESIGN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "channel.h"

struct db;
struct pipe_conn;
struct pipe_log;
struct control_hold;
struct states;

/* The registry's integration type of e-sign providers. */
#define ESIGN_TYPE "esign"

/* A flow's subject in SQL: f the flow with its estimate e LEFT JOINed
 * (ESIGN_FLOW_FROM); ESIGN_FLOW_NUMBER is the estimate's number, or
 * CR-<report>-F<flow> for a condition report's flow: the business key of
 * its outbox commands and the reference the provider is given. */
#define ESIGN_FLOW_FROM   " FROM esign_flow f LEFT JOIN estimate e ON e.id = f.estimate_id"
#define ESIGN_FLOW_NUMBER "coalesce(e.number, 'CR-' || f.report_id || '-F' || f.id)"

/* Where a flow stands, in the core's words (an adapter maps its
 * provider's vocabulary to these). The order is the order of the flow. */
enum esign_state {
	ESIGN_SENT = 0,
	ESIGN_VIEWED,
	ESIGN_SIGNED,
	ESIGN_DECLINED,
	ESIGN_EXPIRED,
	ESIGN_CANCELLED,
	ESIGN_STATES /* no state of ours: a word esign_state_parse does not know */
};

/* esign_flow's states, words and moves (states.h), for states_agree: sent
 * -> viewed, signed, declined, expired or cancelled; viewed -> signed,
 * declined, expired or cancelled. */
extern const struct states esign_states;

/* esign_state_name - "sent", "viewed", "signed", "declined", "expired",
 * "cancelled" (untranslated identifiers, as stored). */
const char *esign_state_name(enum esign_state s);

/* esign_state_of - the state a stored word names (ESIGN_STATES: none, or
 * NULL). esign_is_open - 1 for a flow still waiting for its signature
 * (sent or viewed), else 0. */
enum esign_state esign_state_of(const char *word);
int esign_is_open(enum esign_state s);

/* esign_state_parse - 0 and *s for a name of esign_state_name, else
 * FD_EINVAL. */
int esign_state_parse(const char *name, enum esign_state *s);

/* ---------------------------------------------------------------- adapters */

/* What sending a document for signature asks for. */
struct esign_send_req {
	const char *reference;    /* our estimate number */
	const char *title;        /* shown to the signer */
	const char *signer_name;  /* the customer */
	const char *signer_email; /* "" when none */
	const unsigned char *pdf; /* the document */
	size_t pdf_len;
	const char *pdf_sha256; /* its hash, sent for the provider to check */
	const char *idem_key;   /* sent as Idempotency-Key; required */
};

/* An envelope (the provider's sign request) as the provider tells it. */
struct esign_envelope {
	char id[256];
	enum esign_state state;
	char status[40];          /* the provider's own word, for messages only */
	int64_t updated;          /* provider time, 0 when not given */
	char document_sha256[65]; /* the final document's hash it announces, "" when none */
	char *evidence;           /* JSON text (owned; NULL when none): signers with times
	                           * and IP addresses, timestamp token, certificate id */
};

/* A callback (a notification the provider sent), read after its signature
 * was verified. */
struct esign_callback {
	char id[256];          /* the provider's event id */
	char type[101];        /* the provider's word for it */
	char envelope_id[256]; /* the envelope it is about */
	enum esign_state state;
	int64_t created; /* provider time, 0 when not given */
};

struct esign_ctx; /* an adapter's private state */

/* What opening an adapter gets. */
struct esign_cfg {
	const char *code; /* the provider code (for the log) */
	const char *base_url;
	const char *api_key;
	struct pipe_log *log;
	volatile sig_atomic_t *stop;
	long connect_timeout_ms, total_timeout_ms, low_speed_secs;
};

/* The operations of an e-sign adapter (the payment one is struct chan_ops).
 * Each returns a chan_code and fills *st, as channel.h says. An adapter
 * never touches the database. */
struct esign_ops {
	const char *name; /* the adapter's name: "rest" */
	int (*open)(const struct esign_cfg *cfg, struct esign_ctx **out);
	/* create an envelope with the PDF for the signer */
	int (*send)(struct esign_ctx *c, const struct esign_send_req *in,
	            struct esign_envelope *out, struct chan_status *st);
	/* the envelope id as it stands now (with its evidence once signed) */
	int (*query)(struct esign_ctx *c, const char *id, struct esign_envelope *out,
	             struct chan_status *st);
	/* the final signed document: *body (caller frees) gets *len bytes */
	int (*download)(struct esign_ctx *c, const char *id, unsigned char **body, size_t *len,
	                struct chan_status *st);
	/* withdraw envelope id (the shop cancelled), with the command's
	 * idempotency key idem, the same on every send */
	int (*cancel)(struct esign_ctx *c, const char *id, const char *idem,
	              struct chan_status *st);
	/* 0 when header carries a valid signature of the raw bytes made with
	 * secret, else FD_EINVAL with a reason (constant-time compare) */
	int (*verify)(const char *secret, const char *header, const void *raw, size_t len);
	/* read a verified callback; FD_EINVAL with a reason when it is not one */
	int (*read_callback)(const void *raw, size_t len, struct esign_callback *out);
	const char *secret_name; /* the callbacks' secret: CODE_<secret_name> */
	void (*close)(struct esign_ctx *c);
};

/* The generic REST e-sign adapter (esign-rest.c; README "E-sign"). */
extern const struct esign_ops esign_rest_ops;

/* esign_adapter_find - the adapter called name, NULL when none. */
const struct esign_ops *esign_adapter_find(const char *name);
/* esign_adapter_known - 1 when esign_adapter_find(name) finds one. */
int esign_adapter_known(const char *name);

/* esign_envelope_free - free what *e owns. */
void esign_envelope_free(struct esign_envelope *e);

/* esign_conn_open - open e-sign provider code (NULL: the enabled primary)
 * for db into *c: its registry row, the request log beside the database,
 * its adapter with the api key CODE_api_key of the secrets file
 * (secrets_path NULL: the default). Nothing is left open on an error.
 * Close with pipe_conn_close. */
int esign_conn_open(struct db *db, const char *code, const char *secrets_path,
                    volatile sig_atomic_t *stop, struct pipe_conn *c);

/* ---------------------------------------------------------------- estimates */

struct estimate {
	int64_t id;
	char number[41];
	int64_t job_id, customer_id;
	char *customer_name;
	char *job_title;
	char currency[4];
	int64_t subtotal, tax, total;
	char *terms;
	char *lines; /* JSON array of {kind, description, qty_milli, unit_price, amount} */
	char pdf_path[401];
	char pdf_sha256[65];
	int64_t pdf_size, created_at;
	/* its flow */
	int64_t flow_id;
	char provider[41];
	char envelope_id[256]; /* "" until the provider answered */
	char state[16];
	int64_t state_at;        /* provider time of the state, 0 when unknown */
	char *ignored_reason;    /* NULL when none */
	char document_path[401]; /* "" until downloaded */
	char document_sha256[65];
	int64_t document_size, document_at;
	char *evidence;         /* JSON text, NULL until downloaded */
	char outbox_status[12]; /* the send command's status */
};

/* esign_send - make job_id's estimate and ask for its signature, in ONE
 * transaction: the number, the estimate (its lines, totals, the terms),
 * its PDF written beside the database and its hash, the flow (sent) with
 * the provider the registry routes it to (provider NULL: the primary /
 * rollout), and the "envelope.create" outbox command. *id gets the
 * estimate. FD_ENOTFOUND for no such job, FD_EINVAL for a job with no line
 * items, a total that is not positive, a customer with no name, no e-sign
 * provider; FD_ECONFLICT when the job is cancelled or one of its estimates
 * is still waiting for a signature (cancel it first) or signed. */
int esign_send(struct db *db, int64_t job_id, const char *provider, int64_t *id);

/* esign_cancel - the shop withdraws estimate id's request: the flow becomes
 * cancelled (reason required); FD_ECONFLICT when it is signed, declined,
 * expired or cancelled already. The provider is told by the worker (an
 * "envelope.cancel" command) when the envelope was created. */
int esign_cancel(struct db *db, int64_t id, const char *reason);

/* esign_find - the estimate by number or id text. FD_ENOTFOUND. */
int esign_find(struct db *db, const char *text, int64_t *id);

/* esign_get - fill *out (free with esign_estimate_free). FD_ENOTFOUND. */
int esign_get(struct db *db, int64_t id, struct estimate *out);

/* esign_list - the estimates of job_id (0: all), newest first. */
int esign_list(struct db *db, int64_t job_id, int (*cb)(const struct estimate *e, void *arg),
               void *arg);

void esign_estimate_free(struct estimate *e);

/* esign_job_state - what job_id's signature stands at, in state[16]:
 * "authorised" when one of its estimates is signed, else the state of its
 * newest flow, else "" (none sent). *estimate (may be NULL) gets the
 * estimate that says so (the signed one, else the newest; 0: none). */
int esign_job_state(struct db *db, int64_t job_id, char state[16], int64_t *estimate);

/* esign_visit_may_start - INSIDE or outside a transaction: 0 when visit
 * appt_id may start, or esign_require_authorised is off; FD_ECONFLICT with
 * the reason (naming the job) when a job it works on is not authorised. */
int esign_visit_may_start(struct db *db, int64_t appt_id);

/* esign_folder - a new string: <database folder>/esign. */
char *esign_folder(struct db *db);

/* esign_file_sha256 - out = the SHA-256 (lower-case hex) of the file at
 * path, hashed as the final documents are when they are recorded (backup.c
 * checks its copies with it). FD_ENOTFOUND when path is missing, FD_EIO
 * when it cannot be read or is larger than frontdesk takes. */
int esign_file_sha256(const char *path, char out[65]);

/* The evidence of a signed estimate, read from what is stored (the
 * adapters keep it in this shape: {"signers": [{"name", "email",
 * "viewed_at", "signed_at", "ip"}], "timestamp_token", "certificate_id"}). */
struct esign_signer {
	char *name, *email, *ip;      /* "" when the provider did not say */
	int64_t viewed_at, signed_at; /* provider time, 0 when not given */
};
struct esign_evidence {
	struct esign_signer *signers;
	size_t n;
	char *timestamp_token, *certificate_id; /* "" when not given */
};

/* esign_evidence_read - read the evidence JSON text json into *out (free
 * with esign_evidence_free); FD_EINVAL when it is not an object. */
int esign_evidence_read(const char *json, struct esign_evidence *out);
void esign_evidence_free(struct esign_evidence *ev);

/* ---------------------------------------------------------------- condition reports */

/* esign_send_report - the customer asked to acknowledge condition report
 * `report` (taken before the work, final: condition finalize) by signing
 * its document (esign-report.c), in ONE transaction: the flow (sent) at
 * provider (NULL: where the registry routes CR-<report>) and its
 * "envelope.create" command, under the number CR-<report>-F<flow>. *flow
 * gets the flow. Asks job.edit. FD_ENOTFOUND; FD_EINVAL for a report taken
 * after the work, one with no customer, no e-sign provider; FD_ECONFLICT
 * for a report still open, its document purged, missing or changed, or a
 * flow of it waiting for the signature or signed. The worker then sends it,
 * follows it and keeps the signed document as for an estimate. */
int esign_send_report(struct db *db, int64_t report, const char *provider, int64_t *flow);

/* Where a report's signature stands. */
struct esign_report_sign {
	int64_t flow_id; /* 0: never sent */
	char number[48]; /* CR-<report>-F<flow> */
	char state[16];
	char provider[41];
	char document_sha256[65]; /* the signed document's, "" until downloaded */
	char *document_path;      /* its full path; NULL until downloaded or once purged */
};

/* esign_report_state - report's signed flow, else its newest, into *out
 * (free with esign_report_sign_free); flow_id 0 when none. */
int esign_report_state(struct db *db, int64_t report, struct esign_report_sign *out);
void esign_report_sign_free(struct esign_report_sign *s);

/* ---------------------------------------------------------------- callbacks */

struct inbox_ingest_result; /* inbox.h: what the ingest stored */

/* esign_ingest - store a callback relayed to us from e-sign provider code
 * in its own transaction (inbound_callback, integration_type esign): its
 * signature header checked with the secret CODE_signing_secret
 * (secrets_path NULL: the default file); a valid one is stored received
 * under its event id (again: nothing changes), a bad signature is stored
 * rejected under "rejected:<sha256>", an unreadable one dead. Returns 0
 * when something was stored, whatever r->accepted says. */
struct outbox_cmd; /* outbox.h */

/* esign_command_fits - the e-sign type's rule for a person reviving
 * outbox command o (outbox_retry): an envelope is sent only while its
 * estimate waits for the signature (sent or viewed), a withdrawal only while
 * the estimate is cancelled; FD_ECONFLICT saying why not. */
int esign_command_fits(struct db *db, const struct outbox_cmd *o);

int esign_ingest(struct db *db, const char *code, const char *secrets_path, const char *header,
                 const void *raw, size_t len, struct inbox_ingest_result *r);

/* ---------------------------------------------------------------- the worker */

/* What one round did. */
struct esign_round {
	int sent;          /* envelopes created (or cancelled) at the provider */
	int64_t queried;   /* open flows asked about */
	int64_t processed; /* callbacks applied */
	int64_t ignored;   /* callbacks that would have moved a flow back */
	int64_t failed;    /* callbacks not applicable yet (retried) or dead */
	int64_t documents; /* final documents downloaded and recorded */
};

/* esign_deliver, esign_query, esign_process, esign_download - the steps
 * of provider c (an esign_conn_open connection) under lease: each write
 * is fenced (control_fence) in its own transaction; FD_ECONFLICT when the
 * lease moved on. esign_deliver sends only the commands due (never one
 * waiting for its backoff); all: esign_query asks about every open flow,
 * esign_process also applies the callbacks waiting for their next try. */
int esign_deliver(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                  volatile sig_atomic_t *stop, struct esign_round *r);
int esign_query(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                volatile sig_atomic_t *stop, int all, struct esign_round *r);
int esign_process(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                  volatile sig_atomic_t *stop, int all, struct esign_round *r);
int esign_download(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                   volatile sig_atomic_t *stop, struct esign_round *r);

/* ---------------------------------------------------------------- checking */

/* esign_check_documents - every stored final document against its hash:
 * report("esign-document-missing" | "esign-document-changed", detail
 * naming the estimate and the file) for each that is gone or differs.
 * Returns the number of violations, or a negative FD_E* code. */
int esign_check_documents(struct db *db,
                          void (*report)(const char *code, const char *detail, void *arg),
                          void *arg);

#endif
