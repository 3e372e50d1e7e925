/*
 * xalloc.h - allocation that never returns NULL.
 *
 * On failure the registered fatal hook runs (the screen uses it to restore
 * the terminal), a message goes to stderr and the process aborts. Amounts of
 * money are never involved here: this is memory only.
 */
#ifndef FD_XALLOC_H
#define FD_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* xalloc_set_fatal_hook - run hook before aborting on allocation failure. */
void xalloc_set_fatal_hook(void (*hook)(void));

#endif
