/*
 * dynlib.c - loading a shared library the first time a module needs it
 * (see dynlib.h). One mutex serialises the first loads; afterwards a
 * module's load is a read of its state under the same mutex, which costs
 * nothing next to the work it guards (an HTTP call, a file export).
 *
 * Invariant: only a soname is opened, never a path: the loader then searches
 * the system's folders alone (a setgid frontdesk, privs.h, has no
 * LD_LIBRARY_PATH), so no variable or file of the user's decides which code
 * is loaded. A name with a '/' is refused, whoever wrote it.
 */
#include <config.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dynlib.h"
#include "err.h"
#include "i18n.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int dynlib_load(struct dynlib *d, const char *what)
{
	void *h;
	size_t i;
	int state;

	pthread_mutex_lock(&lock);
	if (d->state == 0 && strchr(d->soname, '/')) {
		snprintf(d->why, sizeof d->why, "%s",
		         _("a library is loaded by its soname, not a path"));
		d->state = -1;
	}
	if (d->state == 0) {
		h = dlopen(d->soname, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			snprintf(d->why, sizeof d->why, "%s", dlerror());
			d->state = -1;
		}
		for (i = 0; h && d->names[i]; i++) {
			d->ptrs[i] = dlsym(h, d->names[i]);
			if (!d->ptrs[i]) {
				snprintf(d->why, sizeof d->why, "%s", dlerror());
				d->state = -1;
				break;
			}
		}
		if (d->state == 0)
			d->state = 1; /* kept open for the life of the process */
	}
	state = d->state;
	pthread_mutex_unlock(&lock);
	if (state > 0)
		return 0;
	return err_set(FD_EIO, _("%1$s needs the library %2$s, which cannot be loaded: %3$s"), what,
	               d->soname, d->why);
}
