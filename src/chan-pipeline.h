/*
 * chan-pipeline.h - what the channel worker does for one provider of an
 * integration type: one table of steps per type (payment today; booking
 * and e-sign plug in with an entry of their own), so the worker's loop
 * (chan-worker.c) knows no type's words.
 *
 * Each step works on one provider's connection (chan_conn: its registry
 * row, request log and adapter) and only on the pipeline rows of its type
 * (inbound_callback / outbox_event .integration_type): the payment steps are
 * the poller, the processing of stored events, the active queries and the
 * outbox delivery. A step that a type or an adapter does not have is NULL
 * (a channel with no events list is not polled). Every write is fenced by
 * the lease, as each step's own contract says.
 *
 * Callers: chan-worker.c.
 */
#ifndef FD_CHAN_PIPELINE_H
#define FD_CHAN_PIPELINE_H

#include <signal.h>
#include <stdint.h>

struct db;
struct chan_conn;
struct control_hold;

/* What a step did, for the worker's schedule and its messages. */
struct chan_step_result {
	int64_t stored; /* poll: events new to the inbox */
	int64_t wait;   /* poll, on a channel failure: seconds until the next try */
	int64_t found;  /* query: orders queried */
	int64_t dead;   /* process: events given up; deliver: commands given up */
	int sent;       /* deliver: commands sent (whatever became of them) */
};

struct chan_pipeline {
	const char *type; /* the registry's integration type */
	/* 1 when the provider's adapter has an events list to poll */
	int (*can_poll)(const struct chan_conn *c);
	/* one poll cycle (chan_poll_once's returns: FD_EIO a channel failure) */
	int (*poll)(struct db *db, struct chan_conn *c, const struct control_hold *lease,
	            struct chan_step_result *r);
	/* the due active queries */
	int (*query)(struct db *db, struct chan_conn *c, const struct control_hold *lease,
	             volatile sig_atomic_t *stop, struct chan_step_result *r);
	/* the due stored events */
	int (*process)(struct db *db, struct chan_conn *c, const struct control_hold *lease,
	               volatile sig_atomic_t *stop, struct chan_step_result *r);
	/* the due outbox commands */
	int (*deliver)(struct db *db, struct chan_conn *c, const struct control_hold *lease,
	               volatile sig_atomic_t *stop, struct chan_step_result *r);
};

/* chan_pipeline_find - the steps of integration type (e.g. "payment"),
 * NULL when frontdesk has no pipeline for it yet. */
const struct chan_pipeline *chan_pipeline_find(const char *type);

#endif
