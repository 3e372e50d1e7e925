/*
 * runner.c - the background task runner (see runner.h).
 *
 * Invariant: the thread owns its connection from open to close; the only
 * data shared with the main thread are the stop flag (sig_atomic_t, read
 * and set atomically: stopflag.h) and the state word, which is guarded by
 * a mutex.
 */
#include <config.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "i18n.h"
#include "log.h"
#include "runner.h"
#include "stopflag.h"
#include "task.h"
#include "xalloc.h"

enum { RS_OFF, RS_STARTING, RS_HERE, RS_STANDBY, RS_ERROR };

static pthread_t thread;
static int started;
static volatile sig_atomic_t stop_flag;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int state = RS_OFF;
static char *db_file;

static void set_state(int s)
{
	pthread_mutex_lock(&lock);
	state = s;
	pthread_mutex_unlock(&lock);
}

/* the task queue's messages go to the debug log only */
static void say(const char *msg, void *arg)
{
	(void)arg;
	log_debug("runner: %s", msg);
}

/* the task queue tells whether we hold the lease */
static void lease_changed(int held, void *arg)
{
	(void)arg;
	set_state(held ? RS_HERE : RS_STANDBY);
}

static void *run(void *arg)
{
	struct task_opts o;
	struct db *db = NULL;
	int rc;

	(void)arg;
	if (db_open(db_file, 0, &db) != 0) {
		log_debug("runner: cannot open the database");
		set_state(RS_ERROR);
		return NULL;
	}
	task_opts_default(&o);
	o.say = say;
	o.say_arg = NULL;
	o.lease = lease_changed;
	if (o.poll_ms > 200)
		o.poll_ms = 200;
	rc = task_run_loop(db, &stop_flag, &o, 0, 0);
	if (rc)
		log_debug("runner: stopped with %d", rc);
	db_close(db);
	set_state(RS_OFF);
	return NULL;
}

int runner_start(const char *path)
{
	if (started)
		return 0;
	free(db_file);
	db_file = xstrdup(path);
	stop_set(&stop_flag, 0);
	set_state(RS_STARTING);
	if (pthread_create(&thread, NULL, run, NULL) != 0) {
		set_state(RS_OFF);
		return -1;
	}
	started = 1;
	return 0;
}

void runner_stop(void)
{
	if (!started)
		return;
	stop_set(&stop_flag, 1);
	pthread_join(thread, NULL);
	started = 0;
	free(db_file);
	db_file = NULL;
	set_state(RS_OFF);
}

void runner_state(char *buf, size_t n)
{
	int s;

	pthread_mutex_lock(&lock);
	s = state;
	pthread_mutex_unlock(&lock);
	switch (s) {
	case RS_HERE:
		snprintf(buf, n, "%s", _("this desk"));
		break;
	case RS_STANDBY:
		snprintf(buf, n, "%s", _("another process"));
		break;
	case RS_STARTING:
		snprintf(buf, n, "%s", _("starting"));
		break;
	case RS_ERROR:
		snprintf(buf, n, "%s", _("failed"));
		break;
	default:
		snprintf(buf, n, "%s", _("off"));
		break;
	}
}
