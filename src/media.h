/*
 * media.h - the media of condition reports hosted by a media provider:
 * the integration type "media" of the pipeline (table media_host,
 * data/schema/0032-condition.sql; media_host_query, 0033), owned here.
 *
 * A medium (condition.h) is ours: its original is copied beside the
 * database with its SHA-256. A provider hosts it for viewing (a panorama
 * stitched, a 3D capture modelled, a viewer URL). Each provider that hosts
 * a medium has a media_host row:
 *   uploading -> processing -> ready | failed      (uploading -> ready | failed)
 * and, from any of them, -> deleting -> deleted (a purge; the old host after
 * a move). The provider's id is set once.
 *
 * What moves a host (the pipeline, fenced by the channel lease like every
 * type's steps; no transaction is open across a call to the provider):
 *  - a medium added to a report, while an enabled media provider is in
 *    the registry, gets a host (uploading) and a "media.upload" outbox
 *    command in the transaction that adds it (media_on_added, a listener
 *    of ANNOUNCE_MEDIUM_ADDED): the upload is never lost, nor sent for a
 *    medium that was not added;
 *  - deliver: the upload goes out with the command's idempotency key, the
 *    local copy checked against its hash first; a retry after a lost
 *    answer, or after the worker was killed mid-upload, carries the same
 *    key, so the provider stores the file once. The answer's id, status,
 *    viewer URL and frame are recorded with the command's success in one
 *    transaction; a "media.delete" command asks the provider to delete
 *    the hosted copy (404 counts as gone);
 *  - query: each host still processing is asked about once per
 *    media_query_seconds (default 60) until it is ready or failed.
 * Failures that may pass (no connection, 429, 5xx, a lost answer) are
 * retried on the pipeline's backoff and given up only past its horizon
 * (the command is dead; the host stays uploading, and `frontdesk check`
 * says so until a person sends it again with `outbox retry`). A refusal
 * (400, 413, 415, 422) makes the host failed with the provider's reason.
 *
 * Callers: cli-condition.c, the worker (media-steps.c), wire.c (the
 * listener), checkdb.c, retention.
 */
#ifndef FD_MEDIA_H
#define FD_MEDIA_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "channel.h"

struct db;
struct pipe_conn;
struct pipe_log;
struct control_hold;
struct announcement;
struct outbox_cmd;

/* The registry's integration type of media providers. */
#define MEDIA_TYPE "media"

/* ---------------------------------------------------------------- adapters */

/* What an upload sends. */
struct media_upload_req {
	const char *reference;    /* our name for it: "CR-<report>-M<medium>" */
	const char *kind;         /* photo, panorama, model */
	const char *content_type; /* image/jpeg, image/png, application/octet-stream */
	const unsigned char *body;
	size_t len;
	const char *sha256; /* of body */
	const char *idem_key;
};

/* A hosted medium as the provider tells it. */
struct media_obj {
	char id[256];
	char status[16];  /* processing, ready, failed */
	char sha256[65];  /* of what it stored; "" when not said */
	char error[401];  /* why it failed; "" when none */
	char *viewer_url; /* owned; NULL until ready */
	char *frame;      /* JSON text (owned); NULL when not said */
};

void media_obj_free(struct media_obj *o);

struct media_ctx; /* an adapter's private state */

/* What opening an adapter gets. */
struct media_cfg {
	const char *code; /* the provider code (for the log) */
	const char *base_url;
	const char *api_key;
	struct pipe_log *log;
	volatile sig_atomic_t *stop;
	long connect_timeout_ms, total_timeout_ms, low_speed_secs;
};

/* The operations of a media adapter. Each returns a chan_code and fills
 * *st as channel.h says; an adapter never touches the database. An answer
 * that is not a media object (no id, an unknown status) is CHAN_BADDATA. */
struct media_ops {
	const char *name; /* "media-rest" */
	int (*open)(const struct media_cfg *cfg, struct media_ctx **out);
	int (*upload)(struct media_ctx *c, const struct media_upload_req *in, struct media_obj *out,
	              struct chan_status *st);
	int (*get)(struct media_ctx *c, const char *id, struct media_obj *out,
	           struct chan_status *st);
	/* CHAN_OK also when the provider has it no more */
	int (*remove)(struct media_ctx *c, const char *id, struct chan_status *st);
	/* the original as it was uploaded: *body (caller frees) gets *len
	 * bytes, at most CONDITION_FILE_MAX */
	int (*download)(struct media_ctx *c, const char *id, unsigned char **body, size_t *len,
	                struct chan_status *st);
	void (*close)(struct media_ctx *c);
};

/* The generic REST media adapter (media-rest.c; the contract is
 * tests/chan/contract/media-rest-contract.md and README "Condition
 * reports"). */
extern const struct media_ops media_rest_ops;

/* media_adapter_find - the adapter called name, NULL when none;
 * media_adapter_known - 1 when there is one. */
const struct media_ops *media_adapter_find(const char *name);
int media_adapter_known(const char *name);

/* media_conn_open - open media provider code (NULL: the enabled primary)
 * into *c: its registry row, the request log, its adapter with the API key
 * CODE_api_key of the secrets file (NULL: the default). Close with
 * pipe_conn_close. */
int media_conn_open(struct db *db, const char *code, const char *secrets,
                    volatile sig_atomic_t *stop, struct pipe_conn *c);

/* ---------------------------------------------------------------- hosts */

struct media_host {
	int64_t id, media_id;
	char provider[41];
	char *ref;        /* the provider's id; NULL until it answered */
	char status[12];  /* uploading, processing, ready, failed, deleting, deleted */
	char *viewer_url; /* NULL when none */
	char *frame;      /* JSON text, NULL when none */
	char *error;      /* NULL when none */
	int64_t created_at, updated_at;
};

void media_host_free(struct media_host *h);

/* media_host_label - a host's status in the reader's words (translated in
 * the context "media host"). */
const char *media_host_label(const char *status);

/* media_host_list - cb with each host of medium media_id, oldest first. */
int media_host_list(struct db *db, int64_t media_id,
                    int (*cb)(const struct media_host *h, void *arg), void *arg);

/* media_frame_now - the frame medium media_id's hotspots are in now: its
 * newest ready host's viewer frame, else the medium's own
 * (media_frame_own). */
struct media_frame;
int media_frame_now(struct db *db, int64_t media_id, struct media_frame *f);

/* media_on_added - the listener of ANNOUNCE_MEDIUM_ADDED (wire.c), INSIDE
 * the transaction that adds medium a->id: its host at the provider the
 * registry routes to (uploading) and the "media.upload" command. With no
 * enabled media provider, nothing: the medium is kept here only. */
int media_on_added(struct db *db, const struct announcement *a);

/* media_upload - medium media_id is sent to provider (NULL: the one the
 * registry routes to): a host and its upload command in one transaction.
 * FD_ECONFLICT when the medium has a host there that is not deleted or
 * failed, or its report was purged; FD_EINVAL when no media provider is
 * enabled; FD_ENOTFOUND. *host (may be NULL) gets the new host. */
int media_upload(struct db *db, int64_t media_id, const char *provider, int64_t *host);

/* media_move - move the media to provider to (enabled): every medium kept
 * here (not purged) that to does not host, nor is uploading or processing,
 * gets a host there and an upload command, one transaction per medium
 * (asks providers once). When a medium becomes ready there, its hotspots
 * follow it into the new provider's frame (translated only where the frames
 * differ: condition_hotspots_reframe; their ids, numbers, links and earlier
 * history stay) and its older hosts are let go: deleting, and a
 * "media.delete" command each, in that same transaction. A host that
 * settles after a newer one is ready is let go itself. A frame that cannot
 * hold the marks (a point beyond the limit) makes the new host failed and
 * leaves the marks as they were. *n gets how many media were sent. */
int media_move(struct db *db, const char *to, int64_t *n);

/* media_fetch - medium media_id's copy beside the database made whole
 * again from a provider that hosts it: the original downloaded from the
 * medium's newest ready host (its provider opened as media_conn_open does;
 * secrets NULL: the default file), checked against the medium's SHA-256,
 * and written whole (temporary file, fsync, rename) under the copy's own
 * name. Nothing in the database changes. from (may be NULL; 41 bytes) gets
 * the provider. Asks visit.work on the report's visit. FD_ECONFLICT when
 * the copy is whole already, or was purged (a purged medium never comes
 * back); FD_ENOTFOUND for no such medium, or no provider holding it ready;
 * FD_EIO when the download fails or answers other bytes. */
int media_fetch(struct db *db, int64_t media_id, const char *secrets, char from[41]);

/* ---------------------------------------------------------------- the worker */

/* What one round did. */
struct media_round {
	int sent;        /* uploads and deletions the provider took */
	int failed;      /* to try again on the backoff */
	int dead;        /* given up, or refused */
	int64_t queried; /* processing media asked about */
	int64_t moved;   /* hosts that became ready or failed by a query */
};

/* media_deliver, media_query - the steps of provider c (media_conn_open)
 * under lease; each write fenced in its own transaction; FD_ECONFLICT when
 * the lease moved on. media_deliver sends only the commands due; all:
 * media_query asks about every processing host, not only those due. */
int media_deliver(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                  volatile sig_atomic_t *stop, struct media_round *r);
int media_query(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                volatile sig_atomic_t *stop, int all, struct media_round *r);

/* media_command_fits - the media type's rule for a person reviving
 * command o (outbox_retry): an upload only while its host is uploading, a
 * deletion only while its host is deleting. */
int media_command_fits(struct db *db, const struct outbox_cmd *o);

#endif
