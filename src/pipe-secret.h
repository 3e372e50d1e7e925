/*
 * pipe-secret.h - the channel secrets file (API keys, signing secrets).
 *
 * Secrets never live in the database, the config file, a command line, a
 * log or an error message: they live in one file readable only by its
 * owner, "key = value" lines ('#' starts a comment), e.g.
 *     stripe_api_key = sk_test_...
 *     stripe_signing_secret = whsec_...
 * The file is the config key `secrets_file`, else $FRONTDESK_SECRETS, else
 * $XDG_CONFIG_HOME/frontdesk/secrets (~/.config/frontdesk/secrets). It must
 * be a regular file owned by the user running frontdesk with no permission
 * bits for group or others; anything else is refused with a message that
 * names the file and the fix (never its contents).
 *
 * Callers: inbox.c (signature checks), the channel adapters, cli-chan.c.
 */
#ifndef FD_PIPE_SECRET_H
#define FD_PIPE_SECRET_H

struct pipe_secrets;

/* pipe_secret_path - the secrets file to use (see above); a new string the
 * caller frees, or NULL when no path can be made (no HOME). */
char *pipe_secret_path(void);

/* pipe_secret_load - read path (NULL: pipe_secret_path()) into *out (free
 * with pipe_secret_free). FD_EIO when it is missing or unreadable,
 * FD_EINVAL when group or others may read or write it, it is not a regular
 * file owned by us, or a line cannot be read (the message names the line
 * number only). */
int pipe_secret_load(const char *path, struct pipe_secrets **out);

/* pipe_secret_get - the value of key, or NULL. Valid until the free. */
const char *pipe_secret_get(const struct pipe_secrets *s, const char *key);

/* pipe_secret_need - like pipe_secret_get, but a missing key is FD_EINVAL
 * with a reason naming the key and the file. */
int pipe_secret_need(const struct pipe_secrets *s, const char *key, const char **value);

/* pipe_secret_free - wipe every value from memory and free s (NULL ok). */
void pipe_secret_free(struct pipe_secrets *s);

#endif
