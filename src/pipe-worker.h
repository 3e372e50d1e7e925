/*
 * pipe-worker.h - the payment channel worker: the loop that holds the
 * "channel" lease and, while it holds it, polls the channel's events into
 * the inbox on an interval, delivers the outbox, processes the due inbox
 * events and queries the orders still paying (chan-process.h); and a
 * thread wrapper with its own database connection for the desk screen and
 * `serve`.
 *
 * Rules:
 *  - it serves one provider (opts.provider) or every enabled provider of
 *    the registry (the primary and its backups, so that orders routed to a
 *    backup are delivered too): each provider with its own outbox, poll
 *    state and backoff, each through its integration type's steps
 *    (pipe.h); a provider that cannot be opened (its secrets are
 *    missing) is said and left out while another can be served; providers
 *    enabled later are served after a restart;
 *  - only the holder of the "channel" lease (control.h) talks to the
 *    channel; a process that cannot take it stands by and takes over when
 *    the holder's lease expires or its process is gone;
 *  - the lease is renewed every ttl/3 seconds; every write the worker makes
 *    is fenced by the lease epoch in its own transaction (chan_poll_once,
 *    outbox_deliver, chan_process_due, chan_query_due), so a holder that
 *    was paused past its lease and replaced writes nothing when it wakes:
 *    it notices, says so and stands by again;
 *  - a poll happens every poll_seconds while the channel is well, and at
 *    the channel state's offline_until after a failure (the backoff of
 *    chan-poll.h);
 *  - *stop (set by a signal handler or pipe_worker_stop) ends the loop
 *    within a second, also in the middle of a request (the adapter's
 *    progress callback aborts it); the lease is released on the way out.
 *
 * Callers: cli-chan.c (`frontdesk serve`, `frontdesk channel run`), the
 * desk screen, tests.
 */
#ifndef FD_PIPE_WORKER_H
#define FD_PIPE_WORKER_H

#include <signal.h>

struct db;

struct pipe_worker_opts {
	const char *provider; /* provider code; NULL: every enabled provider */
	const char *secrets;  /* secrets file; NULL: the default */
	int poll_seconds;     /* between polls while well (>= 1) */
	int lease_ttl;        /* seconds the channel lease lasts unrenewed (>= 1) */
	double for_seconds;   /* > 0: stop after this long (tests) */
	/* where the worker says what it does (lease taken, lost, channel
	 * offline...); msg is translated. NULL: nowhere. Called from the
	 * worker's thread. */
	void (*say)(const char *msg, void *arg);
	void *say_arg;
};

/* pipe_worker_opts_default - the config keys channel_poll_seconds (30) and
 * channel_lease_seconds (60: longer than a whole call may take,
 * channel_timeout_ms, since the lease is renewed between calls); provider
 * and secrets NULL. */
void pipe_worker_opts_default(struct pipe_worker_opts *o);

/* pipe_worker_run - be the channel worker on db (this thread's own
 * connection) until *stop is non-zero or o->for_seconds have passed (see
 * the rules above). Returns 0 when stopped; FD_ENOTFOUND, FD_EINVAL or
 * FD_EIO (with the reason) when the worker cannot start at all: no
 * provider, a secrets file that is missing or readable by others, a bad
 * URL. Failures of the channel are not errors here: they are the channel
 * state. */
int pipe_worker_run(struct db *db, volatile sig_atomic_t *stop, const struct pipe_worker_opts *o);

struct pipe_worker;

/* pipe_worker_start - run pipe_worker_run in a new thread on a new
 * connection to the database at path. The provider and secrets are checked
 * here first, so a worker that could not start is refused here (with the
 * reason) and no thread is left behind. The strings of o are copied. */
int pipe_worker_start(const char *path, const struct pipe_worker_opts *o, struct pipe_worker **out);

/* pipe_worker_stop - ask the worker to stop, join it (within about a
 * second) and free it; returns what pipe_worker_run returned. NULL is 0. */
int pipe_worker_stop(struct pipe_worker *w);

#endif
