/*
 * pipe-worker.c - the channel worker loop and its thread (see
 * pipe-worker.h).
 *
 * One worker serves every enabled provider of the registry (or the one
 * named), each through its integration type's steps (pipe.h)
 * with its own schedule, under the one "channel" lease.
 *
 * Invariants: nothing is written without the channel lease, and each write
 * transaction checks the lease epoch itself (control_fence, inside
 * chan_poll_once, outbox_deliver, chan_process_due and chan_query_due); no
 * sleep is longer than 100 ms
 * between looks at *stop; the adapter is opened with the same stop flag so
 * a request in flight is aborted when it is set.
 *
 * Permissions: none asked here: the pipeline's steps carry out what a person
 * decided or a provider sent (control.h).
 */
#include <config.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "outbox.h"
#include "pipe-log.h"
#include "pipe-provider.h"
#include "pipe-worker.h"
#include "pipe.h"
#include "settings.h"
#include "stopflag.h"
#include "xalloc.h"

#define SLICE_MS           100
#define PIPE_PROCESS_EVERY 1.0    /* seconds between looks at the due inbound events */
#define PIPE_QUERY_EVERY   5.0    /* seconds between looks at the orders to query */
#define PIPE_PRUNE_EVERY   3600.0 /* seconds between prunings of the request log */
#define PIPE_SETTLE_EVERY  600.0  /* seconds between looks at the scheduled reconciliation */

void pipe_worker_opts_default(struct pipe_worker_opts *o)
{
	long v;

	memset(o, 0, sizeof *o);
	v = config_get_int("channel_poll_seconds", 30);
	o->poll_seconds = v < 1 ? 1 : v > 86400 ? 86400 : (int)v;
	v = config_get_int("channel_lease_seconds", 60);
	o->lease_ttl = v < 1 ? 1 : v > 3600 ? 3600 : (int)v;
}

static void sleep_slice(void)
{
	struct timespec ts = {0, SLICE_MS * 1000000L};

	nanosleep(&ts, NULL); /* a signal cuts it short: the caller checks *stop */
}

static void say(const struct pipe_worker_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(const struct pipe_worker_opts *o, const char *fmt, ...)
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
static int lease_moved_on(const struct pipe_worker_opts *o, int rc)
{
	if (rc != FD_ECONFLICT)
		return 0;
	say(o, _("a write was refused, the channel lease moved on: %s"), err_msg());
	return 1;
}

/* One provider served: its connection, its type's steps and its own
 * schedule (a provider that fails waits out its own backoff only). */
struct slot {
	struct pipe_conn ch;
	const struct pipe_type *pl;
	int64_t next_poll; /* real time */
	double next_outbox, next_process, next_query, next_prune, next_recon;
};

struct slots {
	struct slot *s;
	size_t n;
};

static void slots_close(struct slots *ss)
{
	size_t i;

	for (i = 0; i < ss->n; i++)
		pipe_conn_close(&ss->s[i].ch);
	free(ss->s);
	ss->s = NULL;
	ss->n = 0;
}

/* Open provider code of type (NULL: the type its registry row says,
 * pipe_resolve) into a new slot of ss. */
static int slot_open(struct db *db, const char *type, const char *code,
                     const struct pipe_worker_opts *o, volatile sig_atomic_t *stop,
                     struct slots *ss)
{
	struct slot *sl;
	int rc;

	ss->s = xrealloc(ss->s, (ss->n + 1) * sizeof *ss->s);
	sl = &ss->s[ss->n];
	memset(sl, 0, sizeof *sl);
	if ((rc = pipe_open(db, type, code, o->secrets, stop, &sl->ch, &sl->pl)) != 0)
		return rc;
	ss->n++;
	return 0;
}

/* The enabled providers of every type, in the pipeline's order. */
struct codes {
	char (*code)[41];
	const char **type;
	size_t n;
};

static int enabled_cb(const struct pipe_provider *p, void *arg)
{
	struct codes *c = arg;

	if (!p->enabled)
		return 0;
	c->code = xrealloc(c->code, (c->n + 1) * sizeof *c->code);
	c->type = xrealloc(c->type, (c->n + 1) * sizeof *c->type);
	c->type[c->n] = pipe_find(p->type)->type;
	snprintf(c->code[c->n++], sizeof *c->code, "%s", p->code);
	return 0;
}

/* Open what the worker serves: o->provider alone, else every enabled
 * provider of the registry. A provider named that cannot be opened is the
 * error; of all the enabled ones, one that cannot be opened is said (and
 * left out) while another can, the error when none can. FD_ENOTFOUND when
 * none is enabled. */
static int slots_fill(struct db *db, const struct pipe_worker_opts *o, volatile sig_atomic_t *stop,
                      struct slots *ss)
{
	struct codes c = {NULL, NULL, 0};
	const struct pipe_type *pl;
	char first[600] = "";
	int rc = 0, first_rc = 0;
	size_t i;

	memset(ss, 0, sizeof *ss);
	if (o->provider)
		return slot_open(db, NULL, o->provider, o, stop, ss);
	for (i = 0; !rc && (pl = pipe_at(i)) != NULL; i++)
		rc = pipe_provider_list_type(db, pl->type, enabled_cb, &c);
	if (rc) {
		free(c.code);
		free(c.type);
		return rc;
	}
	for (i = 0; i < c.n; i++) {
		if ((rc = slot_open(db, c.type[i], c.code[i], o, stop, ss)) == 0)
			continue;
		if (!first_rc) {
			first_rc = rc;
			snprintf(first, sizeof first, "%s", err_msg());
		}
		say(o, _("cannot serve the provider %s: %s"), c.code[i], err_msg());
	}
	free(c.code);
	free(c.type);
	if (ss->n > 0)
		return 0;
	if (first_rc)
		return err_set(first_rc, "%s", first);
	/* none enabled: pipe_provider_get says so, and how to add one */
	{
		struct pipe_provider p;

		if ((rc = pipe_provider_get(db, NULL, &p)) == 0) {
			pipe_provider_free(&p);
			rc = err_set(FD_ENOTFOUND, _("no payment provider is enabled"));
		}
	}
	return rc;
}

/* slots_fill, and nothing kept when it fails (a slot that could not be
 * opened has left its room allocated). */
static int slots_open(struct db *db, const struct pipe_worker_opts *o, volatile sig_atomic_t *stop,
                      struct slots *ss)
{
	int rc = slots_fill(db, o, stop, ss);

	if (rc)
		slots_close(ss);
	return rc;
}

/* The codes of what ss serves, ", " between them. */
static void slots_names(const struct slots *ss, char *buf, size_t n)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < ss->n && off < n; i++)
		off +=
		    (size_t)snprintf(buf + off, n - off, "%s%s", i ? ", " : "", ss->s[i].ch.p.code);
}

/* The steps of slot_round. Each runs one step of provider sl that is due
 * and returns 0, or FD_ECONFLICT when the lease moved on (said). */

/* Poll the channel's events list; *over = 1 when a stop was asked for
 * (the round ends there). */
static int slot_poll(struct db *db, struct slot *sl, const struct control_hold *lease,
                     volatile sig_atomic_t *stop, const struct pipe_worker_opts *o, int *over)
{
	const char *code = sl->ch.p.code;
	struct pipe_step_result r;
	int rc;

	memset(&r, 0, sizeof r);
	rc = sl->pl->poll(db, &sl->ch, lease, &r);
	if (lease_moved_on(o, rc))
		return rc;
	if (stop_requested(stop)) {
		*over = 1;
		return 0;
	}
	if (rc == FD_EIO) {
		say(o, "%s: %s", code, err_msg());
		sl->next_poll = clock_real() + (r.wait > 0 ? r.wait : 1);
	} else if (rc) {
		say(o, _("cannot poll %s: %s"), code, err_msg());
		sl->next_poll = clock_real() + 1;
	} else {
		sl->next_poll = clock_real() + o->poll_seconds;
		if (r.stored > 0)
			sl->next_process = 0; /* apply what just came in */
	}
	return 0;
}

/* Ask the channel about our card payment orders. */
static int slot_query(struct db *db, struct slot *sl, const struct control_hold *lease,
                      volatile sig_atomic_t *stop, const struct pipe_worker_opts *o)
{
	struct pipe_step_result r;
	int rc;

	memset(&r, 0, sizeof r);
	rc = sl->pl->query(db, &sl->ch, lease, stop, &r);
	if (lease_moved_on(o, rc))
		return rc;
	if (rc && !stop_requested(stop))
		say(o, _("cannot query the card payment orders of %s: %s"), sl->ch.p.code,
		    err_msg());
	sl->next_query = clock_mono() + PIPE_QUERY_EVERY;
	if (r.found > 0)
		sl->next_process = 0;
	return 0;
}

/* The request log keeps request_log_days of calls; a failure here never
 * stops a payment. */
static void slot_prune(struct slot *sl, long keep_days)
{
	if (keep_days > 0)
		pipe_log_prune(sl->ch.log, clock_real() - keep_days * 86400, NULL);
	sl->next_prune = clock_mono() + PIPE_PRUNE_EVERY;
}

/* Apply the inbound events. */
static int slot_process(struct db *db, struct slot *sl, const struct control_hold *lease,
                        volatile sig_atomic_t *stop, const struct pipe_worker_opts *o)
{
	struct pipe_step_result r;
	int rc;

	memset(&r, 0, sizeof r);
	rc = sl->pl->process(db, &sl->ch, lease, stop, &r);
	if (lease_moved_on(o, rc))
		return rc;
	if (rc && !stop_requested(stop))
		say(o, _("cannot process the inbound events of %s: %s"), sl->ch.p.code, err_msg());
	if (r.dead > 0)
		say(o,
		    _("%lld inbound event(s) are dead letters: see 'frontdesk "
		      "inbox list "
		      "--status dead'"),
		    (long long)r.dead);
	sl->next_process = clock_mono() + PIPE_PROCESS_EVERY;
	return 0;
}

/* The scheduled reconciliation of yesterday (recon_auto_hour); another
 * operator running it now is no error. */
static void slot_settle(struct db *db, struct slot *sl, volatile sig_atomic_t *stop,
                        const struct pipe_worker_opts *o)
{
	const char *code = sl->ch.p.code;
	struct pipe_step_result r;
	int rc;

	sl->next_recon = clock_mono() + PIPE_SETTLE_EVERY;
	memset(&r, 0, sizeof r);
	rc = sl->pl->settle(db, &sl->ch, &r);
	if (!rc && r.done)
		say(o, _("%1$s: reconciled %2$s: %3$lld difference(s) open"), code, r.day,
		    (long long)r.open);
	else if (rc && rc != FD_ECONFLICT && !stop_requested(stop))
		say(o, _("cannot reconcile %1$s of %2$s: %3$s"), r.day, code, err_msg());
}

/* Send the outbox's commands; *busy = 1 when some were sent. */
static int slot_deliver(struct db *db, struct slot *sl, const struct control_hold *lease,
                        volatile sig_atomic_t *stop, const struct pipe_worker_opts *o, int *busy)
{
	const char *code = sl->ch.p.code;
	struct pipe_step_result r;
	int rc;

	memset(&r, 0, sizeof r);
	rc = sl->pl->deliver(db, &sl->ch, lease, stop, &r);
	if (lease_moved_on(o, rc))
		return rc;
	if (rc && !stop_requested(stop))
		say(o, _("cannot deliver the outbox of %s: %s"), code, err_msg());
	if (r.dead > 0)
		say(o,
		    _("%1$lld outbound command(s) of %2$s given up: see 'frontdesk check'; "
		      "'frontdesk outbox retry ID' sends one again"),
		    (long long)r.dead, code);
	sl->next_outbox = clock_mono() + (r.sent > 0 ? 0 : 1.0);
	if (r.sent > 0)
		*busy = 1;
	return 0;
}

/* One round of provider sl's steps that are due. 0, or FD_ECONFLICT when
 * the lease moved on (said; the caller stops holding). *busy is set when
 * commands were sent (more may be due at once). */
static int slot_round(struct db *db, struct slot *sl, const struct control_hold *lease,
                      volatile sig_atomic_t *stop, const struct pipe_worker_opts *o, long keep_days,
                      int *busy)
{
	const struct pipe_type *pl = sl->pl;
	int rc, over = 0;

	/* a channel with no events list (its events are notifies and
	 * queries) is not polled */
	if (pl->poll && pl->can_poll(&sl->ch) && clock_real() >= sl->next_poll &&
	    ((rc = slot_poll(db, sl, lease, stop, o, &over)) != 0 || over))
		return rc;
	if (pl->query && clock_mono() >= sl->next_query &&
	    (rc = slot_query(db, sl, lease, stop, o)) != 0)
		return rc;
	if (clock_mono() >= sl->next_prune)
		slot_prune(sl, keep_days);
	if (pl->process && clock_mono() >= sl->next_process &&
	    (rc = slot_process(db, sl, lease, stop, o)) != 0)
		return rc;
	/* the scheduled settlement of a type that has one (payment: the
	 * reconciliation of yesterday, recon_auto_hour); another operator
	 * running it now is no error */
	if (pl->settle && clock_mono() >= sl->next_recon)
		slot_settle(db, sl, stop, o);
	if (pl->deliver && clock_mono() >= sl->next_outbox &&
	    (rc = slot_deliver(db, sl, lease, stop, o, busy)) != 0)
		return rc;
	return 0;
}

int pipe_worker_run(struct db *db, volatile sig_atomic_t *stop, const struct pipe_worker_opts *o)
{
	struct control_hold lease;
	struct slots ss;
	double start = clock_mono(), next_renew = 0;
	long keep_days = config_get_int("request_log_days", 90);
	int holding = 0, acquired = 0, waiting_said = 0, rc, busy;
	int ttl = o->lease_ttl < 1 ? 1 : o->lease_ttl;
	char names[400];
	size_t i;

	if ((rc = slots_open(db, o, stop, &ss)) != 0)
		return rc;
	slots_names(&ss, names, sizeof names);
	while (!stop_requested(stop) &&
	       (o->for_seconds <= 0 || clock_mono() - start < o->for_seconds)) {
		double now = clock_mono();

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
			for (i = 0; i < ss.n; i++) {
				ss.s[i].next_poll =
				    ss.s[i].pl->poll_after
				        ? ss.s[i].pl->poll_after(db, ss.s[i].ch.p.code)
				        : 0;
				ss.s[i].next_outbox = 0;
			}
			say(o, _("polling %s (channel lease epoch %lld)"), names,
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
		busy = 0;
		for (i = 0; i < ss.n && holding && !stop_requested(stop); i++)
			if (slot_round(db, &ss.s[i], &lease, stop, o, keep_days, &busy) ==
			    FD_ECONFLICT)
				holding = 0;
		if (!busy)
			sleep_slice();
	}
	/* also after a refused write: a lease that merely expired while a
	 * request was in flight is still ours to free (release checks the
	 * epoch and token, so a lease someone else took is left alone) */
	if (acquired)
		control_release(db, &lease);
	slots_close(&ss);
	return 0;
}

/* ---------------------------------------------------------------- thread */

struct pipe_worker {
	pthread_t th;
	struct db *db;
	struct pipe_worker_opts o;
	char *provider, *secrets;
	volatile sig_atomic_t stop;
	int rc;
};

static void *worker_main(void *arg)
{
	struct pipe_worker *w = arg;

	w->rc = pipe_worker_run(w->db, &w->stop, &w->o);
	return NULL;
}

int pipe_worker_start(const char *path, const struct pipe_worker_opts *o, struct pipe_worker **out)
{
	struct pipe_worker *w = xcalloc(1, sizeof *w);
	struct slots probe;
	struct pipe_worker_opts quiet;
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
	quiet = w->o;
	quiet.say = NULL; /* the thread says what it leaves out */
	if ((rc = slots_open(w->db, &quiet, &w->stop, &probe)) != 0)
		goto fail;
	slots_close(&probe);
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

int pipe_worker_stop(struct pipe_worker *w)
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
