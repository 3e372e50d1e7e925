/*
 * crypto-dyn.h - libcrypto loaded the first time a hash, a MAC or a cipher
 * is needed (dynlib.h), like libcurl and libical: libcrypto is the largest
 * library frontdesk uses (some 21,000 relocations, most of the dynamic
 * loader's time at start), and most commands (agenda, --version, the
 * calendar) never hash anything.
 *
 * Include it AFTER the OpenSSL headers: each function the modules call is
 * then a pointer of the type the header declares, filled by crypto_load().
 * Every function that calls one of them calls crypto_load() first and
 * refuses (FD_EIO, naming the library) when it cannot be loaded.
 * OPENSSL_cleanse becomes explicit_bzero (glibc's wipe that the compiler
 * may not drop), which needs no library.
 *
 * Callers: pipe-sig.c, chan-wechat.c, idem.c, inbox.c, migrate.c,
 * pipe-secret.c.
 */
#ifndef FD_CRYPTO_DYN_H
#define FD_CRYPTO_DYN_H

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <string.h>

#define FD_CRYPTO_FUNCS(X)                                                                         \
	X(CRYPTO_memcmp)                                                                           \
	X(EVP_Digest)                                                                              \
	X(EVP_sha256)                                                                              \
	X(EVP_md5)                                                                                 \
	X(EVP_MD_CTX_new)                                                                          \
	X(EVP_MD_CTX_free)                                                                         \
	X(EVP_DigestInit_ex)                                                                       \
	X(EVP_DigestUpdate)                                                                        \
	X(EVP_DigestFinal_ex)                                                                      \
	X(EVP_MAC_fetch)                                                                           \
	X(EVP_MAC_free)                                                                            \
	X(EVP_MAC_CTX_new)                                                                         \
	X(EVP_MAC_CTX_free)                                                                        \
	X(EVP_MAC_init)                                                                            \
	X(EVP_MAC_update)                                                                          \
	X(EVP_MAC_final)                                                                           \
	X(OSSL_PARAM_construct_utf8_string)                                                        \
	X(OSSL_PARAM_construct_end)                                                                \
	X(EVP_EncodeBlock)                                                                         \
	X(EVP_ENCODE_CTX_new)                                                                      \
	X(EVP_ENCODE_CTX_free)                                                                     \
	X(EVP_DecodeInit)                                                                          \
	X(EVP_DecodeUpdate)                                                                        \
	X(EVP_DecodeFinal)                                                                         \
	X(EVP_CIPHER_CTX_new)                                                                      \
	X(EVP_CIPHER_CTX_free)                                                                     \
	X(EVP_aes_256_ecb)                                                                         \
	X(EVP_DecryptInit_ex)                                                                      \
	X(EVP_DecryptUpdate)                                                                       \
	X(EVP_DecryptFinal_ex)

#define FD_CRYPTO_SLOT(f) __typeof__(f) *p_##f;
struct fd_crypto {
	FD_CRYPTO_FUNCS(FD_CRYPTO_SLOT)
};
#undef FD_CRYPTO_SLOT
extern struct fd_crypto fd_crypto;

/* crypto_load - load libcrypto once (thread-safe); 0, or FD_EIO with a
 * message naming the library (kept: every later call answers the same). */
int crypto_load(void);

/* crypto_sha256_hex - the lower-case hex SHA-256 of the n bytes at p (p may
 * be NULL when n is 0) in out, loading libcrypto first; FD_EIO (out "")
 * when it cannot be loaded or computed. */
int crypto_sha256_hex(const void *p, size_t n, char out[65]);

#ifndef FD_CRYPTO_IMPL
#define CRYPTO_memcmp                    (*fd_crypto.p_CRYPTO_memcmp)
#define EVP_Digest                       (*fd_crypto.p_EVP_Digest)
#define EVP_sha256                       (*fd_crypto.p_EVP_sha256)
#define EVP_md5                          (*fd_crypto.p_EVP_md5)
#define EVP_MD_CTX_new                   (*fd_crypto.p_EVP_MD_CTX_new)
#define EVP_MD_CTX_free                  (*fd_crypto.p_EVP_MD_CTX_free)
#define EVP_DigestInit_ex                (*fd_crypto.p_EVP_DigestInit_ex)
#define EVP_DigestUpdate                 (*fd_crypto.p_EVP_DigestUpdate)
#define EVP_DigestFinal_ex               (*fd_crypto.p_EVP_DigestFinal_ex)
#define EVP_MAC_fetch                    (*fd_crypto.p_EVP_MAC_fetch)
#define EVP_MAC_free                     (*fd_crypto.p_EVP_MAC_free)
#define EVP_MAC_CTX_new                  (*fd_crypto.p_EVP_MAC_CTX_new)
#define EVP_MAC_CTX_free                 (*fd_crypto.p_EVP_MAC_CTX_free)
#define EVP_MAC_init                     (*fd_crypto.p_EVP_MAC_init)
#define EVP_MAC_update                   (*fd_crypto.p_EVP_MAC_update)
#define EVP_MAC_final                    (*fd_crypto.p_EVP_MAC_final)
#define OSSL_PARAM_construct_utf8_string (*fd_crypto.p_OSSL_PARAM_construct_utf8_string)
#define OSSL_PARAM_construct_end         (*fd_crypto.p_OSSL_PARAM_construct_end)
#define EVP_EncodeBlock                  (*fd_crypto.p_EVP_EncodeBlock)
#define EVP_ENCODE_CTX_new               (*fd_crypto.p_EVP_ENCODE_CTX_new)
#define EVP_ENCODE_CTX_free              (*fd_crypto.p_EVP_ENCODE_CTX_free)
#define EVP_DecodeInit                   (*fd_crypto.p_EVP_DecodeInit)
#define EVP_DecodeUpdate                 (*fd_crypto.p_EVP_DecodeUpdate)
#define EVP_DecodeFinal                  (*fd_crypto.p_EVP_DecodeFinal)
#define EVP_CIPHER_CTX_new               (*fd_crypto.p_EVP_CIPHER_CTX_new)
#define EVP_CIPHER_CTX_free              (*fd_crypto.p_EVP_CIPHER_CTX_free)
#define EVP_aes_256_ecb                  (*fd_crypto.p_EVP_aes_256_ecb)
#define EVP_DecryptInit_ex               (*fd_crypto.p_EVP_DecryptInit_ex)
#define EVP_DecryptUpdate                (*fd_crypto.p_EVP_DecryptUpdate)
#define EVP_DecryptFinal_ex              (*fd_crypto.p_EVP_DecryptFinal_ex)
#undef OPENSSL_cleanse
#define OPENSSL_cleanse(p, n) explicit_bzero((p), (n))
#endif

#endif
