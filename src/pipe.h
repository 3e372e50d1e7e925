/*
 * pipe.h - what the channel worker does for one provider of an
 * integration type: one table of steps per type, which the type defines
 * (payment: chan-steps.c, e-sign: esign-steps.c, booking: booking-steps.c)
 * and core_wire() registers (pipe_register), so neither the worker's loop
 * (pipe-worker.c) nor this registry knows a type's words or calls a type.
 *
 * Each step works on one provider's connection (pipe_conn: its registry
 * row, request log and adapter) and only on the pipeline rows of its type
 * (inbound_callback / outbox_event .integration_type): the payment steps are
 * the poller, the processing of stored events, the active queries and the
 * outbox delivery. A step that a type or an adapter does not have is NULL
 * (a channel with no events list is not polled). Every write is fenced by
 * the lease, as each step's own contract says.
 *
 * Callers: pipe-worker.c, cli-chan.c (`frontdesk inbox ingest`, `outbox
 * deliver`), cli-booking-chan.c and cli-esign.c (the old spellings).
 */
#ifndef FD_PIPE_H
#define FD_PIPE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct db;
struct pipe_conn;
struct control_hold;
struct inbox_ingest_result;
struct outbox_cmd;

/* What a step did, for the worker's schedule and its messages. */
struct pipe_step_result {
	int64_t stored; /* poll: events new to the inbox */
	int64_t wait;   /* poll, on a channel failure: seconds until the next try */
	int64_t found;  /* query: orders queried */
	int64_t dead;   /* process: events given up; deliver: commands given up */
	int sent;       /* deliver: commands sent (whatever became of them) */
	int done;       /* settle: a settlement was due and ran */
	int64_t open;   /* settle: the differences it left open */
	char day[11];   /* settle: the day it settled, YYYY-MM-DD */
};

struct pipe_type {
	const char *type; /* the registry's integration type */
	/* open provider code of this type for the steps below (secrets: the
	 * secrets file, NULL the default); close with pipe_conn_close */
	int (*open)(struct db *db, const char *code, const char *secrets,
	            volatile sig_atomic_t *stop, struct pipe_conn *c);
	/* store a payload relayed for provider code (pipe_ingest) */
	int (*ingest)(struct db *db, const char *code, const char *secrets, const char *header,
	              const void *raw, size_t len, struct inbox_ingest_result *r);
	/* 1 when the provider's adapter has an events list to poll */
	int (*can_poll)(const struct pipe_conn *c);
	/* one poll cycle (chan_poll_once's returns: FD_EIO a channel failure) */
	int (*poll)(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
	            struct pipe_step_result *r);
	/* the due active queries */
	int (*query)(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
	             volatile sig_atomic_t *stop, struct pipe_step_result *r);
	/* the due stored events */
	int (*process)(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
	               volatile sig_atomic_t *stop, struct pipe_step_result *r);
	/* the due outbox commands */
	int (*deliver)(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
	               volatile sig_atomic_t *stop, struct pipe_step_result *r);
	/* whether what command o is for still wants it sent when a person
	 * revives it (outbox_retry's fits); NULL: always */
	int (*command_fits)(struct db *db, const struct outbox_cmd *o);
	/* 1 when the type has an adapter called name (the registry asks it) */
	int (*adapter_known)(const char *name);
	/* when (real time) provider code may be polled again after the
	 * channel said it is offline; 0: now. NULL: always now */
	int64_t (*poll_after)(struct db *db, const char *code);
	/* the scheduled settlement of the provider, when one is due: 0 and
	 * r->done 1 with r->day and r->open when it ran, r->done 0 when none
	 * was due; FD_ECONFLICT when another operator runs it now. NULL: the
	 * type has no settlement */
	int (*settle)(struct db *db, struct pipe_conn *c, struct pipe_step_result *r);
};

/* At most this many types are registered. */
#define PIPE_TYPES_MAX 8

/* pipe_register - add type t (its steps stay the caller's: static) after
 * those registered already; again changes nothing. FD_EINVAL when another
 * entry has its name or there is no room. Called by core_wire() only,
 * before any thread starts. */
int pipe_register(const struct pipe_type *t);

/* pipe_no_header - FD_EINVAL saying that provider code signs in a header
 * and the payload relayed came without one: a type's ingest refuses it
 * before anything is stored. */
int pipe_no_header(const char *code);

/* pipe_change_provider - pipe_provider_change_type for a provider
 * of integration type, with the type's own adapters; FD_EINVAL when
 * frontdesk has no pipeline of that type. */
struct pipe_provider_change; /* pipe-provider.h */
int pipe_change_provider(struct db *db, const char *type, const char *code,
                         const struct pipe_provider_change *ch);

/* pipe_find - the steps of integration type (e.g. "payment"),
 * NULL when no such type is registered. */
const struct pipe_type *pipe_find(const char *type);

/* pipe_at - the i-th registered type's steps (0, 1, ...: payment, esign,
 * booking, as core_wire registers them), NULL past the last: how the worker
 * and the commands that span every type go through them without naming
 * one. */
const struct pipe_type *pipe_at(size_t i);

/* pipe_resolve - *pl = the steps of the type provider code is
 * registered under. type (may be NULL) names the type: FD_EINVAL when
 * frontdesk has no pipeline of that name. With no type, the one type whose
 * registry has code; a code no registry has is a payment adapter's name
 * (as chan_adapter_of reads it); FD_ECONFLICT, saying which types,
 * when several registries have it; FD_EINVAL when no type is registered
 * (core_wire was not called). */
int pipe_resolve(struct db *db, const char *type, const char *code, const struct pipe_type **pl);

/* pipe_open - open provider code (pipe_resolve with
 * type) into *c, *pl its type's steps; close with pipe_conn_close. */
int pipe_open(struct db *db, const char *type, const char *code, const char *secrets,
              volatile sig_atomic_t *stop, struct pipe_conn *c, const struct pipe_type **pl);

/* pipe_retry - a person revives outbox command id (outbox_retry)
 * under the rule of its type (command_fits): the one way `outbox retry` and
 * the screen's dead-letter view send a command again. */
int pipe_retry(struct db *db, int64_t id);

/* pipe_ingest - the one way a payload relayed to us (a web hook
 * in front of the shop) enters the inbox, for every type: the provider
 * (pipe_resolve with type) verifies it with its signing secret
 * CODE_<secret name> from the secrets file (NULL: the default) and it is
 * stored raw in the inbound table whatever the verdict (inbox_store_relayed:
 * r->accepted 0 with r->reason when refused). A provider that signs in a
 * header and no header given: FD_EINVAL, nothing stored. r->answer is what
 * the provider waits for in reply ("" when nothing). */
int pipe_ingest(struct db *db, const char *type, const char *code, const char *secrets,
                const char *header, const void *raw, size_t len, struct inbox_ingest_result *r);

#endif
