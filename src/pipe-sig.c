/*
 * pipe-sig.c - the Stripe-Signature scheme (see pipe-sig.h).
 *
 * Invariants: the expected MAC is compared against each v1 entry with
 * CRYPTO_memcmp over the full 64 digits (no early exit that leaks how many
 * digits matched); the secret and the expected MAC never reach an error
 * message and the MAC buffers are cleansed before returning.
 */
#include <config.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdio.h>
#include <string.h>

#include "crypto-dyn.h"
#include "err.h"
#include "i18n.h"
#include "pipe-sig.h"

/* The longest header we look at; real ones are well under 1 KiB. */
#define HEADER_MAX 4096

int chan_hmac_sha256_hex(const char *key, const void *a, size_t alen, const void *b, size_t blen,
                         char out[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char mac[EVP_MAX_MD_SIZE];
	size_t n = 0, i;
	EVP_MAC *m = NULL;
	EVP_MAC_CTX *ctx = NULL;
	OSSL_PARAM params[2];
	int rc = FD_EINVAL;

	out[0] = '\0';
	if ((rc = crypto_load()) != 0)
		return rc;
	rc = FD_EINVAL;
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0);
	params[1] = OSSL_PARAM_construct_end();
	m = EVP_MAC_fetch(NULL, "HMAC", NULL);
	if (!m || !(ctx = EVP_MAC_CTX_new(m)))
		goto out;
	if (!EVP_MAC_init(ctx, (const unsigned char *)key, strlen(key), params) ||
	    (alen && !EVP_MAC_update(ctx, a, alen)) || (blen && !EVP_MAC_update(ctx, b, blen)) ||
	    !EVP_MAC_final(ctx, mac, &n, sizeof mac) || n != 32)
		goto out;
	for (i = 0; i < n; i++) {
		out[2 * i] = hex[mac[i] >> 4];
		out[2 * i + 1] = hex[mac[i] & 15];
	}
	out[64] = '\0';
	rc = 0;
out:
	OPENSSL_cleanse(mac, sizeof mac);
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(m);
	if (rc)
		return err_set(FD_EINVAL, _("the signature could not be computed"));
	return 0;
}

int pipe_sig_hmac_hex(const char *secret, int64_t t, const void *payload, size_t len, char out[65])
{
	char ts[24];

	snprintf(ts, sizeof ts, "%lld.", (long long)t);
	return chan_hmac_sha256_hex(secret, ts, strlen(ts), payload, len, out);
}

/* Read a decimal timestamp of n bytes (1..18 digits, nothing else). */
static int parse_ts(const char *s, size_t n, int64_t *t)
{
	size_t i;
	int64_t v = 0;

	if (n == 0 || n > 18)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*t = v;
	return 0;
}

/* The item of the header at p (up to the next ',' or the end: *end), and
 * its '=' (*eq, NULL when it has none). */
static void header_item(const char *p, const char **eq, const char **end)
{
	*end = strchr(p, ',');
	if (!*end)
		*end = p + strlen(p);
	*eq = memchr(p, '=', (size_t)(*end - p));
}

/* The header's timestamp into *t (the last t= wins, as in the library;
 * -1 when there is none); refused when one is unreadable. */
static int header_timestamp(const char *header, int64_t *t)
{
	const char *p, *eq, *end;

	for (p = header; *p; p = *end ? end + 1 : end) {
		header_item(p, &eq, &end);
		if (!eq)
			continue;
		if (eq - p == 1 && p[0] == 't' && parse_ts(eq + 1, (size_t)(end - eq - 1), t) != 0)
			return err_set(FD_EINVAL,
			               _("the signature header has an unreadable timestamp"));
	}
	return 0;
}

/* Every v1 entry of the header (*nv1 of them), each compared in full with
 * want; *match = 1 when one is it. */
static void header_v1_match(const char *header, const char want[65], int *nv1, int *match)
{
	const char *p, *eq, *end;

	for (p = header; *p; p = *end ? end + 1 : end) {
		header_item(p, &eq, &end);
		if (!eq || eq - p != 2 || p[0] != 'v' || p[1] != '1')
			continue;
		(*nv1)++;
		if (end - eq - 1 == 64 && CRYPTO_memcmp(eq + 1, want, 64) == 0)
			*match = 1;
	}
}

int pipe_sig_verify(const char *header, const void *payload, size_t len, const char *secret,
                    int64_t now, int tolerance, int64_t *t_out)
{
	char want[65];
	int64_t t = -1;
	int nv1 = 0, match = 0, rc;

	if (!header || !*header || strlen(header) > HEADER_MAX)
		return err_set(FD_EINVAL, _("the signature header is empty or too long"));
	if (!secret || !*secret)
		return err_set(FD_EINVAL, _("no signing secret is configured"));
	/* first pass: the timestamp */
	if ((rc = header_timestamp(header, &t)) != 0)
		return rc;
	if (t < 0)
		return err_set(FD_EINVAL, _("the signature header has no timestamp (t=)"));
	if (t_out)
		*t_out = t;
	if ((rc = pipe_sig_hmac_hex(secret, t, payload, len, want)) != 0)
		return rc;
	/* second pass: every v1 entry, each compared in full */
	header_v1_match(header, want, &nv1, &match);
	OPENSSL_cleanse(want, sizeof want);
	if (!nv1)
		return err_set(FD_EINVAL, _("the signature header has no v1 signature"));
	if (!match)
		return err_set(FD_EINVAL,
		               _("no signature matches the payload and the signing secret"));
	if (tolerance > 0 && now - t > tolerance)
		return err_set(
		    FD_EINVAL,
		    _("the signature timestamp is %lld seconds old (at most %d are accepted)"),
		    (long long)(now - t), tolerance);
	return 0;
}
