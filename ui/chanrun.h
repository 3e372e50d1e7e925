/*
 * chanrun.h - the payment channel worker in a background thread of the
 * screen.
 *
 * When the screen starts and an enabled primary payment provider is set up,
 * it runs the channel worker (pipe-worker.h) with its OWN database
 * connection: the worker takes the channel lease when nobody holds it (and
 * otherwise stands by, taking over when the holder goes away), polls the
 * channel and delivers the outbox, so card payments move whether or not
 * `frontdesk serve` runs. The worker never calls curses. What it says
 * (lease taken, standing by, the channel failed...) arrives on the worker's
 * thread: it is copied under a mutex, one byte is written to the screen's
 * wake-up descriptor, and the screen's thread takes the text with
 * chanrun_take_msg and shows it on the message line. Its state shows on
 * the status line through the database (chan_summary_read), like any other
 * process's worker.
 * Callers: screen.c.
 */
#ifndef FD_CHANRUN_H
#define FD_CHANRUN_H

#include <stddef.h>

/* chanrun_start - start the worker on the database file path with the
 * config's options (channel_poll_seconds, channel_lease_seconds,
 * secrets_file). wake_fd (-1: none) gets one byte whenever the worker has
 * said something; it must stay open until chanrun_stop. 0 when started;
 * a negative FD_E* code with the reason in err_msg() when the worker
 * cannot start (no provider, a secrets file that is missing or readable by
 * others, a bad URL): nothing is left running then. */
int chanrun_start(const char *path, int wake_fd);

/* chanrun_stop - stop the worker (it releases the channel lease) and join
 * it, within about a second. Safe when it was not started. */
void chanrun_stop(void);

/* chanrun_running - 1 between a successful chanrun_start and chanrun_stop. */
int chanrun_running(void);

/* chanrun_take_msg - copy into buf (size n) the newest text the worker
 * said since the last call and return 1; 0 when it said nothing new. Only
 * the newest is kept: the message line shows one at a time. */
int chanrun_take_msg(char *buf, size_t n);

#endif
