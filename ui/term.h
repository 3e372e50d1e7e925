/*
 * term.h - the terminal under the desk screen: curses set-up and restore,
 * the signals (Ctrl-C, SIGTERM and SIGHUP end the loop; a crash gives the
 * terminal back and re-raises), and the self-pipe that wakes the main loop
 * (a signal or another thread writes a byte to it). Caller: screen.c; only
 * the main thread.
 */
#ifndef FD_TERM_H
#define FD_TERM_H

#include <curses.h>

/* term_open - make the self-pipe, save the terminal's modes, install the
 * signal handlers, start curses (newterm on stdin/stdout: cbreak, noecho,
 * no cursor; mouse clicks when mouse) and prepare what a crash writes.
 * NULL, with a message on stderr and nothing left installed, when the
 * terminal cannot be used. */
SCREEN *term_open(int mouse);

/* term_close - end curses and give everything term_open took back. */
void term_close(SCREEN *scr, int mouse);

/* term_quit_signal - the signal that asked to quit (SIGINT, SIGTERM,
 * SIGHUP), 0 when none came. */
int term_quit_signal(void);

/* term_interrupt_asks - with on, SIGINT (Ctrl-C) no longer asks to quit by
 * itself: it is only noted for term_take_interrupt, so that the loop can
 * ask first (the confirm_quit setting). SIGTERM and SIGHUP still quit. */
void term_interrupt_asks(int on);

/* term_take_interrupt - 1 once for each Ctrl-C noted since the last call
 * (several in a row count once), else 0. */
int term_take_interrupt(void);

/* The self-pipe: the end the loop poll()s (-1 when there is none), the end
 * others write a byte to, emptying it after a wake-up, closing it. */
int term_wake_read_fd(void);
int term_wake_write_fd(void);
void term_wake_drain(void);
void term_wake_close(void);

#endif
