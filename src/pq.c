/*
 * pq.c - loading libpq when a module first needs it (see pq-dyn.h).
 */
#include <config.h>

#define FD_PQ_IMPL
#include "pq-dyn.h"

#include <pthread.h>
#include <string.h>

#include "dynlib.h"
#include "err.h"

struct fd_pq fd_pq;

#define FD_PQ_NAME(f) #f,
static const char *const names[] = {FD_PQ_FUNCS(FD_PQ_NAME) NULL};
#undef FD_PQ_NAME
static void *ptrs[sizeof names / sizeof *names];
static struct dynlib lib = {"libpq.so.5", names, ptrs, 0, ""};
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int copied;

int pq_load(const char *what)
{
	size_t i = 0;
	int rc;

	if ((rc = dynlib_load(&lib, what)) != 0)
		return rc;
	pthread_mutex_lock(&lock);
	if (!copied) {
#define FD_PQ_SET(f) memcpy(&fd_pq.p_##f, &ptrs[i++], sizeof fd_pq.p_##f);
		FD_PQ_FUNCS(FD_PQ_SET)
#undef FD_PQ_SET
		copied = 1;
	}
	pthread_mutex_unlock(&lock);
	return 0;
}
