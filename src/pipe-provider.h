/*
 * pipe-provider.h - the provider registry (table integration_provider) and
 * opening the adapter a provider row names.
 *
 * A provider row says: integration type ("payment"), provider code
 * ("stripe"), role (primary or backup; at most one enabled primary), base
 * URL, settings (JSON; "adapter" names the adapter, default "stripe"), and
 * whether it is enabled. Switching provider is changing rows, not code.
 * The secrets of provider CODE are CODE_api_key and CODE_signing_secret in
 * the secrets file (pipe-secret.h).
 *
 * Callers: cli-chan.c, the worker, tests.
 */
#ifndef FD_PIPE_PROVIDER_H
#define FD_PIPE_PROVIDER_H

#include <signal.h>
#include <stdint.h>

#include "channel.h"

struct db;
struct pipe_log;
struct esign_ops;
struct esign_ctx;

struct pipe_provider {
	int64_t id;
	char type[16]; /* the integration type: payment (booking, esign next) */
	char code[41];
	char role[8]; /* primary, backup */
	int rollout;  /* primary: the percentage of new orders it serves, 0..100 */
	char *base_url;
	char *settings; /* JSON text */
	int enabled;
	int64_t updated_at;
};

/* What to change of a provider; NULL / -1: keep (or the default when adding). */
struct pipe_provider_change {
	const char *base_url; /* required when adding */
	const char *role;     /* primary, backup; "primary" when adding */
	const char *adapter;  /* the adapter's name (settings "adapter"); "stripe" when absent */
	int enabled;          /* 0, 1; 1 when adding */
	int rollout;          /* 0..100; 100 when adding */
	/* the page a card order is paid on (settings "card_page"): "checkout" (a
	 * Stripe Checkout Session: a page to show as a QR code) or "intent" (a
	 * bare payment intent, no page); NULL: keep ("intent" when absent). The
	 * WeChat Pay style adapter always answers its Native code_url. */
	const char *card_page;
	/* how the WeChat Pay style adapter signs (settings "sign_type"), as the
	 * merchant account is set up: "HMAC-SHA256" or "MD5"; NULL: keep
	 * ("HMAC-SHA256" when absent) */
	const char *sign_type;
	/* the shop's code at the head office (settings "shop", type hq); NULL: keep */
	const char *shop;
	/* how the type checks base_url (NULL: an HTTPS address, or a mail
	 * server's for type email): the head office's is PostgreSQL's */
	int (*url_ok)(const char *url);
};

/* pipe_provider_change_type, pipe_provider_get_type, pipe_provider_route_type,
 * pipe_provider_list_type - the same for the providers of integration type
 * type: the functions above are these for payment. The registry knows no
 * type's adapters: adapter_known (1 when the type has an adapter of that
 * name) is the type's own, handed over by its pipeline
 * (pipe_change_provider); NULL: frontdesk has no pipeline of that
 * type, and the change is refused. */
int pipe_provider_change_type(struct db *db, const char *type, const char *code,
                              const struct pipe_provider_change *ch,
                              int (*adapter_known)(const char *name));
int pipe_provider_get_type(struct db *db, const char *type, const char *code,
                           struct pipe_provider *out);
int pipe_provider_route_type(struct db *db, const char *type, const char *order_no, char code[41]);
int pipe_provider_list_type(struct db *db, const char *type,
                            int (*cb)(const struct pipe_provider *p, void *arg), void *arg);

/* pipe_provider_pick - the provider of type a new command for ref goes to,
 * into code[41]: named (refused, FD_EINVAL, when it is disabled; kind is
 * the type in words for that message, C_("provider", ...)), else where
 * pipe_provider_route_type routes ref. */
int pipe_provider_pick(struct db *db, const char *type, const char *named, const char *kind,
                       const char *ref, char code[41]);

/* pipe_provider_route - INSIDE or outside a transaction, which payment
 * provider serves the new order order_no (its code copied to code[41]):
 * with an enabled primary and an enabled backup, the primary when the
 * order's stable bucket (a hash of its number, 0..99) is below the
 * primary's rollout percentage, else the first enabled backup (by code);
 * an enabled primary alone serves every order; a disabled primary sends
 * every order to the first enabled backup. FD_EINVAL with a reason when no
 * provider is enabled. */
int pipe_provider_route(struct db *db, const char *order_no, char code[41]);

/* How long a provider fails before it is reported: the config key
 * channel_failing_report_seconds, by default 15 minutes. */
#define PIPE_FAILING_REPORT_DEFAULT 900

/* pipe_provider_failing_limit - channel_failing_report_seconds (>= 0). */
int64_t pipe_provider_failing_limit(void);

/* pipe_provider_failing - whether provider code's calls have been failing
 * for long: *since = the real time of its first failed call since its last
 * success (0: it is not failing), *reported = 1 when that is at least
 * pipe_provider_failing_limit() ago at now (real time: clock_real()). Only
 * the poller's calls count (chan-poll.c keeps channel_state.failing_since). */
int pipe_provider_failing(struct db *db, const char *code, int64_t now, int64_t *since,
                          int *reported);

/* pipe_provider_failing_each - call cb (may be NULL) with each enabled
 * payment provider that has been failing for long at now (real time), as
 * pipe_provider_failing reports it, primary first: its code and since when
 * it fails. Returns how many there are, cb's first non-zero return, or a
 * negative FD_E* code. For `frontdesk check` and the status line. */
int pipe_provider_failing_each(struct db *db, int64_t now,
                               int (*cb)(const char *code, int64_t since, void *arg), void *arg);

/* pipe_provider_get - fill *out for code (NULL: the provider that serves:
 * the enabled primary, else the first enabled backup);
 * FD_ENOTFOUND with a reason saying how to add one. Free with
 * pipe_provider_free. */
int pipe_provider_get(struct db *db, const char *code, struct pipe_provider *out);

/* pipe_provider_list - every provider, primary first. */
int pipe_provider_list(struct db *db, int (*cb)(const struct pipe_provider *p, void *arg),
                       void *arg);

void pipe_provider_free(struct pipe_provider *p);

/* The channel opened for calls: the provider row, the request log beside
 * the database's file, the adapter. */
struct pipe_conn {
	struct pipe_provider p;
	struct pipe_log *log;
	const struct chan_ops *ops;
	struct chan_ctx *ctx;
	/* an esign provider's adapter instead (esign.h, esign_conn_open); ops
	 * and ctx are then NULL */
	const struct esign_ops *eops;
	struct esign_ctx *ectx;
	/* a message provider's settings instead (message.h,
	 * message_conn_open), freed by mfree */
	void *mctx;
	void (*mfree)(void *mctx);
};

/* pipe_conn_begin - the start of opening provider code (NULL: the enabled
 * primary) of integration type for calls, which every REST type shares:
 * its registry row into c->p, refused when it is disabled (the message
 * names it as kind's provider: kind is the type's translated word, "media");
 * the request log beside the
 * database; the secrets file secrets (NULL: the default) into *sec and its
 * CODE_api_key into *api_key (valid while *sec is: pipe_secret_free it
 * once the adapter has its copy). On an error nothing is left open.
 * Callers: esign_conn_open, media_conn_open. */
struct pipe_secrets;
int pipe_conn_begin(struct db *db, const char *type, const char *code, const char *secrets,
                    const char *kind, struct pipe_conn *c, struct pipe_secrets **sec,
                    const char **api_key);

/* pipe_conn_close - close what chan_adapter_connect opened and zero *c (a zeroed
 * *c is fine too). */
void pipe_conn_close(struct pipe_conn *c);

#endif
