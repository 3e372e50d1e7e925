/*
 * chan-worker.c - the channel worker loop and its thread (see
 * chan-worker.h).
 *
 * Invariants: nothing is written without the channel lease, and each write
 * transaction checks the lease epoch itself (control_fence, inside
 * chan_poll_once, outbox_deliver, chan_process_due and chan_query_due); no
 * sleep is longer than 100 ms
 * between looks at *stop; the adapter is opened with the same stop flag so
 * a request in flight is aborted when it is set.
 */
#include <config.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chan-log.h"
#include "chan-poll.h"
#include "chan-process.h"
#include "chan-provider.h"
#include "chan-worker.h"
#include "control.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "outbox.h"
#include "settings.h"
#include "stopflag.h"
#include "xalloc.h"

#define SLICE_MS           100
#define CHAN_PROCESS_EVERY 1.0    /* seconds between looks at the due inbound events */
#define CHAN_QUERY_EVERY   5.0    /* seconds between looks at the orders to query */
#define CHAN_PRUNE_EVERY   3600.0 /* seconds between prunings of the request log */

void chan_worker_opts_default(struct chan_worker_opts *o)
{
	long v;

	memset(o, 0, sizeof *o);
	v = config_get_int("channel_poll_seconds", 30);
	o->poll_seconds = v < 1 ? 1 : v > 86400 ? 86400 : (int)v;
	v = config_get_int("channel_lease_seconds", 60);
	o->lease_ttl = v < 1 ? 1 : v > 3600 ? 3600 : (int)v;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_slice(void)
{
	struct timespec ts = {0, SLICE_MS * 1000000L};

	nanosleep(&ts, NULL); /* a signal cuts it short: the caller checks *stop */
}

static void say(const struct chan_worker_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(const struct chan_worker_opts *o, const char *fmt, ...)
{
	char buf[600];
	va_list ap;

	if (!o->say)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	o->say(buf, o->say_arg);
}

/* 1 (and says so) when rc says a fenced write was refused because the
 * channel lease moved on to another process: the caller stops holding. */
static int lease_moved_on(const struct chan_worker_opts *o, int rc)
{
	if (rc != FD_ECONFLICT)
		return 0;
	say(o, _("a write was refused, the channel lease moved on: %s"), err_msg());
	return 1;
}

/* When the channel state says the next poll may happen (real time). */
static int64_t next_poll_from_state(struct db *db, const char *provider)
{
	struct chan_state s;
	int64_t t = 0;

	if (chan_state_get(db, provider, &s) == 0 && !strcmp(s.state, "offline"))
		t = s.offline_until;
	chan_state_free(&s);
	return t;
}

int chan_worker_run(struct db *db, volatile sig_atomic_t *stop, const struct chan_worker_opts *o)
{
	struct control_hold lease;
	struct chan_conn ch;
	struct chan_poll_opts po;
	struct chan_poll_result r;
	struct chan_process_opts pro;
	struct chan_process_result pr;
	double start = mono_now(), next_renew = 0, next_outbox = 0, next_process = 0,
	       next_query = 0, next_prune = 0;
	long keep_days = config_get_int("request_log_days", 90);
	int64_t next_poll = 0;
	int holding = 0, acquired = 0, waiting_said = 0, rc, sent;
	int ttl = o->lease_ttl < 1 ? 1 : o->lease_ttl;

	if ((rc = chan_conn_open(db, o->provider, o->secrets, stop, &ch)) != 0)
		return rc;
	chan_poll_opts_default(&po, ch.p.code);
	chan_process_opts_default(&pro, ch.p.code);
	while (!stop_requested(stop) &&
	       (o->for_seconds <= 0 || mono_now() - start < o->for_seconds)) {
		double now = mono_now();

		if (!holding) {
			rc = control_acquire(db, CONTROL_CHANNEL, CONTROL_LEASE, ttl, &lease);
			if (rc) {
				if (!waiting_said)
					say(o, _("standing by: %s"), err_msg());
				waiting_said = 1;
				sleep_slice();
				continue;
			}
			holding = acquired = 1;
			waiting_said = 0;
			next_renew = now + ttl / 3.0;
			next_poll = next_poll_from_state(db, ch.p.code);
			next_outbox = 0;
			say(o, _("polling %s (channel lease epoch %lld)"), ch.p.code,
			    (long long)lease.epoch);
		}
		if (now >= next_renew) {
			if ((rc = control_renew(db, &lease)) != 0) {
				say(o, _("lost the channel lease: %s"), err_msg());
				holding = 0;
				continue;
			}
			next_renew = now + ttl / 3.0;
		}
		/* a channel with no events list (its events are notifies and
		 * queries) is not polled */
		if (ch.ops->poll_events && (int64_t)time(NULL) >= next_poll) {
			rc = chan_poll_once(db, ch.ops, ch.ctx, &po, &lease, &r);
			if (lease_moved_on(o, rc)) {
				holding = 0;
				continue;
			}
			if (stop_requested(stop))
				break;
			if (rc == FD_EIO) {
				say(o, "%s", err_msg());
				next_poll = (int64_t)time(NULL) + (r.wait > 0 ? r.wait : 1);
			} else if (rc) {
				say(o, _("cannot poll: %s"), err_msg());
				next_poll = (int64_t)time(NULL) + 1;
			} else {
				next_poll = (int64_t)time(NULL) + o->poll_seconds;
				if (r.stored > 0)
					next_process = 0; /* apply what just came in */
			}
		}
		if (mono_now() >= next_query) {
			memset(&pr, 0, sizeof pr);
			rc = chan_query_due(db, ch.ops, ch.ctx, &pro, &lease, stop, 0, &pr);
			if (lease_moved_on(o, rc)) {
				holding = 0;
				continue;
			}
			if (rc && !stop_requested(stop))
				say(o, _("cannot query the card payment orders: %s"), err_msg());
			next_query = mono_now() + CHAN_QUERY_EVERY;
			if (pr.queried > 0)
				next_process = 0;
		}
		if (mono_now() >= next_prune) {
			/* the request log keeps request_log_days of calls; a failure
			 * here never stops a payment */
			if (keep_days > 0)
				chan_log_prune(ch.log, (int64_t)time(NULL) - keep_days * 86400,
				               NULL);
			next_prune = mono_now() + CHAN_PRUNE_EVERY;
		}
		if (mono_now() >= next_process) {
			memset(&pr, 0, sizeof pr);
			rc = chan_process_due(db, ch.ops, ch.ctx, &pro, &lease, stop, 0, &pr);
			if (lease_moved_on(o, rc)) {
				holding = 0;
				continue;
			}
			if (rc && !stop_requested(stop))
				say(o, _("cannot process the inbound events: %s"), err_msg());
			if (pr.dead > 0)
				say(o,
				    _("%lld inbound event(s) are dead letters: see 'frontdesk "
				      "inbox list "
				      "--status dead'"),
				    (long long)pr.dead);
			next_process = mono_now() + CHAN_PROCESS_EVERY;
		}
		if (mono_now() >= next_outbox) {
			rc = outbox_deliver(db, ch.ops, ch.ctx, ch.p.code, &lease, stop, 0, &sent);
			if (lease_moved_on(o, rc)) {
				holding = 0;
				continue;
			}
			if (rc && !stop_requested(stop))
				say(o, _("cannot deliver the outbox: %s"), err_msg());
			next_outbox = mono_now() + (sent > 0 ? 0 : 1.0);
			if (sent > 0)
				continue;
		}
		sleep_slice();
	}
	/* also after a refused write: a lease that merely expired while a
	 * request was in flight is still ours to free (release checks the
	 * epoch and token, so a lease someone else took is left alone) */
	if (acquired)
		control_release(db, &lease);
	chan_conn_close(&ch);
	return 0;
}

/* ---------------------------------------------------------------- thread */

struct chan_worker {
	pthread_t th;
	struct db *db;
	struct chan_worker_opts o;
	char *provider, *secrets;
	volatile sig_atomic_t stop;
	int rc;
};

static void *worker_main(void *arg)
{
	struct chan_worker *w = arg;

	w->rc = chan_worker_run(w->db, &w->stop, &w->o);
	return NULL;
}

int chan_worker_start(const char *path, const struct chan_worker_opts *o, struct chan_worker **out)
{
	struct chan_worker *w = xcalloc(1, sizeof *w);
	struct chan_conn probe;
	sigset_t all, old;
	int rc, made;

	*out = NULL;
	w->o = *o;
	w->provider = o->provider ? xstrdup(o->provider) : NULL;
	w->secrets = o->secrets ? xstrdup(o->secrets) : NULL;
	w->o.provider = w->provider;
	w->o.secrets = w->secrets;
	if ((rc = db_open(path, 0, &w->db)) != 0)
		goto fail;
	/* refuse here, not silently in the thread: no provider, bad secrets */
	if ((rc = chan_conn_open(w->db, w->o.provider, w->o.secrets, &w->stop, &probe)) != 0)
		goto fail;
	chan_conn_close(&probe);
	/* signals go to the caller's thread, whose sleeps they cut short */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	made = pthread_create(&w->th, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (made != 0) {
		rc = err_set(FD_EIO, _("cannot start the channel worker thread"));
		goto fail;
	}
	*out = w;
	return 0;
fail:
	db_close(w->db);
	free(w->provider);
	free(w->secrets);
	free(w);
	return rc;
}

int chan_worker_stop(struct chan_worker *w)
{
	int rc;

	if (!w)
		return 0;
	stop_set(&w->stop, 1);
	pthread_join(w->th, NULL);
	rc = w->rc;
	db_close(w->db);
	free(w->provider);
	free(w->secrets);
	free(w);
	return rc;
}
