/*
 * chan-poll.h - the channel poller: reads a channel's events list in time
 * windows and stores every event raw in inbound_callback, and the poller's
 * visible state (table channel_state).
 *
 * One cycle: from the high-water mark hw (the newest channel time fully
 * covered), read the window created >= hw - overlap (overlap >= 300 s) ..
 * created <= now - lag, newest first, paging with starting_after until
 * has_more is false. Each page is stored in ONE transaction (INSERT OR
 * IGNORE of each raw event; duplicates within and across pages cost
 * nothing); the transaction of the last page also moves hw to the window's
 * end, so the cursor is committed with the events it covers and a crash in
 * the middle of a window only re-reads it. No transaction is open while a
 * request is in flight. With a lease, every write is fenced by its epoch.
 *
 * On failure the state becomes 'offline' until now + backoff: 1 s doubling
 * per consecutive failure up to 5 minutes, with jitter (a random point in
 * the upper half), never shorter than the channel's Retry-After; a refusal
 * (CHAN_REFUSED, CHAN_BADDATA) waits the longest. A page with has_more and
 * no events cannot move the paging cursor: it is a failure, hw stays.
 * Times here are the real clock (time()), like leases and retries.
 *
 * Callers: `frontdesk channel poll|status|run`, `frontdesk serve`, tests.
 */
#ifndef FD_CHAN_POLL_H
#define FD_CHAN_POLL_H

#include <signal.h>
#include <stdint.h>

#include "channel.h"
#include "pipe-rule.h"

struct db;
struct control_hold;

#define CHAN_POLL_OVERLAP_MIN 300

struct chan_poll_opts {
	const char *provider; /* provider code, e.g. "stripe" */
	int overlap;          /* seconds re-read before hw (>= 300) */
	int lag;              /* seconds before now not read yet (>= 0) */
	int page_limit;       /* events per page, 1..100 */
	int64_t first_from;   /* where a provider never polled starts; 0: now - 29 days */
};

/* chan_poll_opts_default - provider, and the config keys
 * channel_overlap_seconds (300), channel_lag_seconds (0),
 * channel_page_limit (100). */
void chan_poll_opts_default(struct chan_poll_opts *o, const char *provider);

struct chan_state {
	char provider[41];
	int64_t high_water;
	char state[10]; /* off, idle, polling, offline */
	int64_t failures;
	int64_t offline_until, last_poll_at, last_success_at; /* 0 when never */
	char *last_error;                                     /* NULL when none */
	int64_t events_stored;
};

/* What one cycle did. */
struct chan_poll_result {
	int code;         /* the chan_code of the call that ended it (CHAN_OK when done) */
	int pages;        /* pages read */
	int64_t seen;     /* events received (with duplicates) */
	int64_t stored;   /* events new to the inbox */
	int64_t from, to; /* the window */
	int64_t wait;     /* on failure: seconds until the next try */
};

/* chan_poll_once - one cycle (see above) with adapter ops/ctx; lease may be
 * NULL only for a caller that knows it is the only poller. Returns 0 when
 * the window was read to the end, FD_EIO when the channel failed (r->code,
 * the state row and err_msg() say why and until when), FD_ECONFLICT when
 * the lease was lost (nothing more written), other FD_E* from the
 * database. */
int chan_poll_once(struct db *db, const struct chan_ops *ops, struct chan_ctx *ctx,
                   const struct chan_poll_opts *o, const struct control_hold *lease,
                   struct chan_poll_result *r);

/* chan_state_get - fill *out for provider (free with chan_state_free);
 * a provider never polled reads as state "off" with zeros. */
int chan_state_get(struct db *db, const char *provider, struct chan_state *out);

void chan_state_free(struct chan_state *s);

/* What the status line shows of the payment channel. Times are the real
 * clock (UTC seconds), like the channel worker's; 0 means never / none. */
struct chan_summary {
	int configured;          /* an enabled primary payment provider exists */
	char provider[41];       /* its code ("" when not configured) */
	char state[10];          /* channel_state.state: off, idle, polling, offline */
	int worker;              /* a live process holds the channel lease */
	int64_t offline_until;   /* while offline: the next try */
	int64_t last_success_at; /* the last poll that read its window to the end */
	int64_t inbox_pending;   /* inbound events received or failed (to try again) */
	int64_t inbox_parked;    /* parked: about no order of ours (money the channel
	                          * reports that we never asked for: look the same day) */
	int64_t inbox_dead;      /* inbound events given up (a person must look) */
	int failing;             /* enabled payment providers failing for long (clock_real) */
	char failing_code[41];   /* the first of them ("" when none) */
};

/* chan_summary_read - fill *out: the enabled primary provider, its row of
 * channel_state (a provider never polled reads as "off"), whether a live
 * process holds the channel lease (a holder past its expiry, or a process
 * of this host that is gone, does not count), and the inbound counts. Every
 * read is one indexed lookup or an index range over the rows counted, so it
 * is cheap enough for every tick of the screen. failing and failing_code
 * say which enabled providers have failed for longer than
 * channel_failing_report_seconds (pipe_provider_failing_each). With no provider, *out says
 * configured = 0 and state "off" (the inbound counts are still read). */
int chan_summary_read(struct db *db, struct chan_summary *out);

/* What the channel is doing, as the status line says it: off (no provider,
 * no worker, or its state says so), idle, polling, offline (with a next try
 * when offline_until > 0), or a state word this frontdesk does not know.
 * The first four are the states of channel_state.state, each stored as the
 * word chan_run_state_word gives. */
enum chan_run_state {
	CHAN_RUN_OFF,
	CHAN_RUN_IDLE,
	CHAN_RUN_POLLING,
	CHAN_RUN_OFFLINE,
	CHAN_RUN_OTHER /* no state of ours: a word chan_run_state_of does not know */
};

/* chan_run_state_of - the state a stored word of channel_state.state names
 * (CHAN_RUN_OTHER: none); chan_run_state_word - its stored word ("" for
 * CHAN_RUN_OTHER). */
enum chan_run_state chan_run_state_of(const char *word);
const char *chan_run_state_word(enum chan_run_state s);

/* chan_summary_state - the state of ch. */
enum chan_run_state chan_summary_state(const struct chan_summary *ch);

#endif
