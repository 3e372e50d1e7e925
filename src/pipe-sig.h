/*
 * pipe-sig.h - verifying the signature of a payload a channel (or a
 * forwarder relaying it) sent us: the Stripe-Signature scheme.
 *
 * Header "t=<unix>,v1=<hex>[,v1=<hex>...][,v0=<hex>]". The signed bytes are
 * the decimal timestamp, '.', and the raw body exactly as received; the MAC
 * is HMAC-SHA256 keyed with the whole secret string (its "whsec_" prefix
 * included), written as 64 lower-case hex digits. Every v1 entry is compared
 * in constant time (any match passes, so a secret can be rotated); other
 * schemes are ignored. A timestamp older than `tolerance` seconds before
 * now is refused; one in the future is accepted, as the official library
 * does.
 *
 * Pure functions: no database, no clock of their own, no allocation that
 * outlives a call. Reasons never contain the secret or the expected MAC.
 * Callers: inbox.c (frontdesk inbox ingest), the Stripe adapter, tests.
 */
#ifndef FD_PIPE_SIG_H
#define FD_PIPE_SIG_H

#include <stddef.h>
#include <stdint.h>

/* The default tolerance, in seconds. */
#define PIPE_SIG_TOLERANCE 300

/* chan_hmac_sha256_hex - the lower-case hex HMAC-SHA256, keyed with the
 * string key, of the bytes a (alen) followed by b (blen; either may be
 * empty) in out[65]. FD_EINVAL when libcrypto cannot compute it. */
int chan_hmac_sha256_hex(const char *key, const void *a, size_t alen, const void *b, size_t blen,
                         char out[65]);

/* pipe_sig_hmac_hex - write HMAC-SHA256(secret, "<t>." payload) as 64
 * lower-case hex digits and a NUL into out. 0, or FD_EINVAL if the MAC could
 * not be computed. For tests and for a fake sender. */
int pipe_sig_hmac_hex(const char *secret, int64_t t, const void *payload, size_t len, char out[65]);

/* pipe_sig_verify - 0 when header carries a v1 signature of payload (len
 * bytes) made with secret, with a timestamp no older than tolerance
 * seconds before now. *t_out (may be NULL) gets the header's timestamp when
 * it could be read. Refusals are FD_EINVAL with a reason: the header cannot
 * be read, it has no v1 signature, no signature matches, or the timestamp is
 * too old. */
int pipe_sig_verify(const char *header, const void *payload, size_t len, const char *secret,
                    int64_t now, int tolerance, int64_t *t_out);

#endif
