/*
 * crypto.c - loading libcrypto when a module first needs it (see
 * crypto-dyn.h).
 */
#include <config.h>

#define FD_CRYPTO_IMPL
#include "crypto-dyn.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dynlib.h"
#include "err.h"
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

int crypto_sha256_hex(const void *p, size_t n, char out[65])
{
	unsigned char md[64];
	unsigned int mdlen = 0, i;
	int rc;

	out[0] = '\0';
	if ((rc = crypto_load()) != 0)
		return rc;
	if (!(*fd_crypto.p_EVP_Digest)(n ? p : "", n, md, &mdlen, (*fd_crypto.p_EVP_sha256)(),
	                               NULL) ||
	    mdlen != 32)
		return err_set(FD_EIO, _("cannot compute a SHA-256"));
	for (i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}
