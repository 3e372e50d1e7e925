/*
 * ical.c - loading libical when a module first needs it (see ical-dyn.h).
 */
#include <config.h>

#define FD_ICAL_IMPL
#include "ical-dyn.h"

#include <pthread.h>
#include <string.h>

#include "dynlib.h"
#include "err.h"

struct fd_ical fd_ical;

#define FD_ICAL_NAME(f) #f,
static const char *const names[] = {FD_ICAL_FUNCS(FD_ICAL_NAME) NULL};
#undef FD_ICAL_NAME
static void *ptrs[sizeof names / sizeof *names];
static struct dynlib lib = {"libical.so.3", names, ptrs, 0, ""};
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int copied;

int ical_load(const char *what)
{
	size_t i = 0;
	int rc;

	if ((rc = dynlib_load(&lib, what)) != 0)
		return rc;
	pthread_mutex_lock(&lock);
	if (!copied) {
#define FD_ICAL_SET(f) memcpy(&fd_ical.p_##f, &ptrs[i++], sizeof fd_ical.p_##f);
		FD_ICAL_FUNCS(FD_ICAL_SET)
#undef FD_ICAL_SET
		copied = 1;
	}
	pthread_mutex_unlock(&lock);
	return 0;
}
