/*
 * dynlib.h - loading a shared library the first time a module needs it.
 *
 * Most runs of frontdesk never reach the payment channel or write an
 * iCalendar file, yet a library linked into the program is mapped and bound
 * at every start (libcurl brings some 30 libraries with it, libical the ICU
 * data). The modules that use such a library (pipe-http.c, export-ical.c)
 * load it with dlopen when they are first called, look up the few
 * functions they use, and call them through pointers; every other command
 * and the screen start without it. The headers are the ones the program
 * was built with, and the library is opened by the soname of that ABI
 * (libcurl.so.4, libical.so.3), so the functions found are the functions
 * compiled against.
 *
 * Callers: pipe-http.c (libcurl), export-ical.c (libical).
 */
#ifndef FD_DYNLIB_H
#define FD_DYNLIB_H

#include <stddef.h>

struct dynlib {
	const char *soname;       /* "libcurl.so.4" */
	const char *const *names; /* the functions, NULL-terminated */
	void **ptrs;              /* filled in the order of names */
	int state;                /* 0 not tried, 1 loaded, -1 failed (kept) */
	char why[300];            /* the reason of a failure */
};

/* dynlib_load - load d once (thread-safe; a failure is remembered and
 * returned again): 0 when every function of d->names was found, else
 * FD_EIO with a message that names the library and what needs it (`what`,
 * already translated). */
int dynlib_load(struct dynlib *d, const char *what);

#endif
