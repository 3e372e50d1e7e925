/*
 * term.c - the terminal under the desk screen (see term.h): curses set-up
 * and restore, the self-pipe that wakes the main loop, and the signals.
 *
 * Invariants: nothing is done inside a signal handler but setting a flag
 * and writing a byte to the self-pipe, except for crash signals, which
 * write the terminal's reset sequence (prepared here beforehand) and the
 * saved termios, then re-raise. The terminal is given back on every way out:
 * term_close, a crash signal, an allocation failure (the xalloc hook).
 */
#include <config.h>

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>

#include "i18n.h"
#include "term.h"
#include "xalloc.h"

static struct {
	int pipefd[2];
	char crash_seq[256];
	size_t crash_len;
	struct termios saved_tio;
	int have_tio;
} T = {{-1, -1}, "", 0, {0}, 0};

static volatile sig_atomic_t quit_signal;
static volatile sig_atomic_t interrupted; /* SIGINT seen, when it asks first */
static volatile sig_atomic_t interrupt_asks;

static void on_quit_signal(int sig)
{
	int saved = errno;

	if (sig == SIGINT && interrupt_asks)
		interrupted = 1;
	else
		quit_signal = sig;
	if (T.pipefd[1] >= 0 && write(T.pipefd[1], "q", 1) < 0) {
		/* the pipe is full: the loop wakes up anyway */
	}
	errno = saved;
}

static void on_crash(int sig)
{
	/* async-signal-safe only: write, tcsetattr, signal, raise */
	if (T.crash_len && write(STDOUT_FILENO, T.crash_seq, T.crash_len) < 0) {
		/* nothing more can be done */
	}
	if (T.have_tio)
		tcsetattr(STDIN_FILENO, TCSANOW, &T.saved_tio);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Append n bytes of s to what a crash writes (as far as they fit). */
static void add_bytes(const char *s, size_t n)
{
	if (T.crash_len + n < sizeof T.crash_seq) {
		memcpy(T.crash_seq + T.crash_len, s, n);
		T.crash_len += n;
	}
}

/* What a crash writes: the terminal's capability cap, when it has one. */
static void add_seq(const char *cap)
{
	char *seq = tigetstr((char *)cap);

	if (seq && seq != (char *)-1)
		add_bytes(seq, strlen(seq));
}

static void install_signals(void)
{
	struct sigaction sa;
	static const int quit_sigs[] = {SIGINT, SIGTERM, SIGHUP};
	static const int crash_sigs[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
	size_t i;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_quit_signal; /* no SA_RESTART: poll() returns at once */
	for (i = 0; i < sizeof quit_sigs / sizeof quit_sigs[0]; i++)
		sigaction(quit_sigs[i], &sa, NULL);
	sa.sa_handler = on_crash;
	sa.sa_flags = (int)(SA_RESETHAND | SA_NODEFER); /* SA_RESETHAND is 1u << 31 */
	for (i = 0; i < sizeof crash_sigs / sizeof crash_sigs[0]; i++)
		sigaction(crash_sigs[i], &sa, NULL);
}

static void restore_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGSEGV,
	                           SIGBUS, SIGABRT, SIGFPE, SIGILL};
	size_t i;

	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_DFL);
}

static void fatal_hook(void)
{
	if (!isendwin())
		endwin();
}

SCREEN *term_open(int mouse)
{
	SCREEN *scr;

	quit_signal = 0;
	interrupted = 0;
	T.crash_len = 0;
	if (pipe(T.pipefd) == 0) {
		fcntl(T.pipefd[0], F_SETFL, O_NONBLOCK);
		fcntl(T.pipefd[1], F_SETFL, O_NONBLOCK);
	} else {
		T.pipefd[0] = T.pipefd[1] = -1;
	}
	T.have_tio = tcgetattr(STDIN_FILENO, &T.saved_tio) == 0;
	install_signals();
	if (!getenv("ESCDELAY"))
		set_escdelay(25);
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		restore_signals();
		fprintf(stderr, _("frontdesk: cannot use the terminal (TERM=%s)\n"),
		        getenv("TERM") ? getenv("TERM") : "");
		term_wake_close();
		return NULL;
	}
	xalloc_set_fatal_hook(fatal_hook);
	cbreak();
	noecho();
	nonl();
	curs_set(0);
	if (mouse) {
		/* the release too: ncurses waits for the next input after an event
		 * outside the mask, which would freeze the loop after each click */
		mousemask(BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON1_CLICKED, NULL);
		mouseinterval(0);
	}
	/* what a crash writes to give the terminal back */
	add_seq("sgr0");
	add_seq("cnorm");
	add_seq("rmkx");
	if (mouse) {
		static const char off[] = "\033[?1000l\033[?1002l\033[?1006l";

		add_bytes(off, sizeof off - 1);
	}
	add_seq("rmcup");
	return scr;
}

void term_close(SCREEN *scr, int mouse)
{
	if (mouse)
		mousemask(0, NULL);
	endwin();
	delscreen(scr);
	xalloc_set_fatal_hook(NULL);
	restore_signals();
	term_wake_close();
}

int term_quit_signal(void)
{
	return quit_signal;
}

void term_interrupt_asks(int on)
{
	interrupt_asks = on ? 1 : 0;
}

int term_take_interrupt(void)
{
	if (!interrupted)
		return 0;
	interrupted = 0;
	return 1;
}

int term_wake_read_fd(void)
{
	return T.pipefd[0];
}

int term_wake_write_fd(void)
{
	return T.pipefd[1];
}

void term_wake_drain(void)
{
	char drain[64];

	while (T.pipefd[0] >= 0 && read(T.pipefd[0], drain, sizeof drain) > 0)
		;
}

void term_wake_close(void)
{
	if (T.pipefd[0] >= 0) {
		close(T.pipefd[0]);
		close(T.pipefd[1]);
	}
	T.pipefd[0] = T.pipefd[1] = -1;
}
