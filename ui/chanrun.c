/*
 * chanrun.c - the channel worker thread of the screen (see chanrun.h).
 *
 * Invariant: the worker's thread touches only `said` (under `lock`) and
 * writes to the wake-up descriptor; everything else here belongs to the
 * screen's thread.
 */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "chanrun.h"
#include "log.h"
#include "pipe-worker.h"

static struct pipe_worker *worker;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char said[600];
static int said_new;
static int wake = -1;

/* Called on the worker's thread: copy, then wake the screen's loop. */
static void say(const char *msg, void *arg)
{
	int saved = errno;

	(void)arg;
	log_debug("channel worker: %s", msg);
	pthread_mutex_lock(&lock);
	snprintf(said, sizeof said, "%s", msg);
	said_new = 1;
	pthread_mutex_unlock(&lock);
	if (wake >= 0 && write(wake, "c", 1) < 0) {
		/* the pipe is full: the loop wakes up anyway */
	}
	errno = saved;
}

int chanrun_start(const char *path, int wake_fd)
{
	struct pipe_worker_opts o;
	int rc;

	if (worker)
		return 0;
	pipe_worker_opts_default(&o);
	o.say = say;
	o.say_arg = NULL;
	wake = wake_fd;
	rc = pipe_worker_start(path, &o, &worker);
	if (rc) {
		worker = NULL;
		wake = -1;
	}
	return rc;
}

void chanrun_stop(void)
{
	int rc;

	if (!worker)
		return;
	rc = pipe_worker_stop(worker);
	worker = NULL;
	wake = -1;
	if (rc)
		log_debug("channel worker: stopped with %d", rc);
}

int chanrun_running(void)
{
	return worker != NULL;
}

int chanrun_take_msg(char *buf, size_t n)
{
	int got;

	pthread_mutex_lock(&lock);
	got = said_new;
	if (got && n)
		snprintf(buf, n, "%s", said);
	said_new = 0;
	pthread_mutex_unlock(&lock);
	return got;
}
