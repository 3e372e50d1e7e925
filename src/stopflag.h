/*
 * stopflag.h - reading and setting a stop flag that another thread (or a
 * signal handler) sets while a loop runs.
 *
 * The loops of the core (the task runner, the channel worker, the outbox,
 * the nightly backup, a backup copy, the channel's HTTP calls) take a
 * `volatile sig_atomic_t *stop`. volatile makes a flag safe between a
 * signal handler and the thread it interrupts, but not between threads:
 * the screen's thread stopping its runner or channel worker thread with a
 * plain store is a data race (ThreadSanitizer reports it; tests/crash/tsan-run.sh).
 * These two helpers make every access an atomic one (the compiler's
 * __atomic builtins, lock-free on sig_atomic_t, so a signal handler may
 * use stop_set too), with release/acquire order so that what the stopping
 * thread wrote before is seen after the loop notices.
 *
 * Callers: every loop that takes a stop flag, and whoever stops one.
 */
#ifndef FD_STOPFLAG_H
#define FD_STOPFLAG_H

#include <signal.h>

/* stop_requested - 1 when stop is not NULL and has been set. */
static inline int stop_requested(volatile sig_atomic_t *stop)
{
	return stop && __atomic_load_n(stop, __ATOMIC_ACQUIRE) != 0;
}

/* stop_set - set (v 1) or clear (v 0) the flag *stop. */
static inline void stop_set(volatile sig_atomic_t *stop, int v)
{
	__atomic_store_n(stop, v, __ATOMIC_RELEASE);
}

#endif
