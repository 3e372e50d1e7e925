/*
 * crypto.c - loading libcrypto when a module first needs it (see
 * crypto-dyn.h).
 */
#include <config.h>

#define FD_CRYPTO_IMPL
#include "crypto-dyn.h"

#include <pthread.h>
#include <string.h>

#include "dynlib.h"
#include "i18n.h"

struct fd_crypto fd_crypto;

#define FD_CRYPTO_NAME(f) #f,
static const char *const names[] = {FD_CRYPTO_FUNCS(FD_CRYPTO_NAME) NULL};
#undef FD_CRYPTO_NAME
static void *ptrs[sizeof names / sizeof *names];
static struct dynlib lib = {"libcrypto.so.3", names, ptrs, 0, ""};
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int load_rc;

static void load(void)
{
	size_t i = 0;

	if ((load_rc = dynlib_load(&lib, _("hashing and signatures"))) != 0)
		return;
#define FD_CRYPTO_SET(f) memcpy(&fd_crypto.p_##f, &ptrs[i++], sizeof fd_crypto.p_##f);
	FD_CRYPTO_FUNCS(FD_CRYPTO_SET)
#undef FD_CRYPTO_SET
}

int crypto_load(void)
{
	pthread_once(&once, load);
	if (load_rc)
		dynlib_load(&lib, _("hashing and signatures")); /* sets err_msg again */
	return load_rc;
}
