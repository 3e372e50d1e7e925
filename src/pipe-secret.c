/*
 * pipe-secret.c - the channel secrets file (see pipe-secret.h).
 *
 * Invariants: the file is opened without following a symbolic link and
 * checked with fstat on the descriptor we read from (no race between the
 * check and the read); values are wiped with OPENSSL_cleanse before their
 * memory is freed; no message ever quotes a value. A setgid frontdesk
 * (privs.h) reads only the system's file (secrets_file of the system's
 * config, else /etc/frontdesk/secrets), owned by root or by its group and
 * closed to others; never a file the user names or owns.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crypto-dyn.h"
#include "err.h"
#include "i18n.h"
#include "pipe-secret.h"
#include "privs.h"
#include "settings.h"
#include "xalloc.h"

#define SECRETS_MAX    65536
#define SECRETS_LINES  64
#define SYSTEM_SECRETS "/etc/frontdesk/secrets"

struct pipe_secrets {
	char *path;
	size_t n;
	char *key[SECRETS_LINES];
	char *val[SECRETS_LINES];
};

char *pipe_secret_path(void)
{
	const char *v = config_get("secrets_file", NULL);
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char buf[4096];

	if (v && *v)
		return xstrdup(v);
	if (privs_elevated())
		return xstrdup(SYSTEM_SECRETS); /* the config is the system's alone then */
	v = getenv("FRONTDESK_SECRETS");
	if (v && *v)
		return xstrdup(v);
	if (xdg && *xdg == '/')
		snprintf(buf, sizeof buf, "%s/frontdesk/secrets", xdg);
	else if (home && *home)
		snprintf(buf, sizeof buf, "%s/.config/frontdesk/secrets", home);
	else
		return NULL;
	return xstrdup(buf);
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int parse(struct pipe_secrets *s, char *text)
{
	char *line = text, *next, *eq, *k, *v;
	int lineno = 0;

	for (; line && *line; line = next) {
		lineno++;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		k = trim(line);
		if (!*k || *k == '#')
			continue;
		eq = strchr(k, '=');
		if (!eq)
			return err_set(FD_EINVAL, _("%s, line %d: expected 'key = value'"), s->path,
			               lineno);
		*eq = '\0';
		k = trim(k);
		v = trim(eq + 1);
		if (!*k || !*v)
			return err_set(FD_EINVAL, _("%s, line %d: a key or a value is empty"),
			               s->path, lineno);
		if (s->n >= SECRETS_LINES)
			return err_set(FD_EINVAL, _("%s holds more than %d secrets"), s->path,
			               SECRETS_LINES);
		s->key[s->n] = xstrdup(k);
		s->val[s->n] = xstrdup(v);
		s->n++;
	}
	return 0;
}

int pipe_secret_load(const char *path, struct pipe_secrets **out)
{
	struct pipe_secrets *s = xcalloc(1, sizeof *s);
	char *text = NULL;
	struct stat sb;
	ssize_t got;
	size_t len = 0;
	int fd = -1, rc;

	*out = NULL;
	s->path = path ? xstrdup(path) : pipe_secret_path();
	if (!s->path) {
		rc = err_set(FD_EIO, _("no secrets file: set secrets_file in the config"));
		goto out;
	}
	if (privs_elevated() && path) {
		char *sys = pipe_secret_path();
		int same = !strcmp(sys, path);

		free(sys);
		if (!same) {
			rc = err_set(FD_EINVAL,
			             _("a setgid frontdesk reads only the system's secrets file, "
			               "not %s: leave out --secrets"),
			             path);
			goto out;
		}
	}
	fd = open(s->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		rc = err_set(FD_EIO, _("cannot open the secrets file %s: %s"), s->path,
		             strerror(errno));
		goto out;
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		rc = err_set(FD_EINVAL, _("the secrets file %s is not a regular file"), s->path);
		goto out;
	}
	if (privs_elevated()) {
		if (!privs_trusted_file(&sb) || (sb.st_mode & S_IRWXO)) {
			rc = err_set(FD_EINVAL,
			             _("the secrets file %s must belong to root or to frontdesk's "
			               "group and be closed to others (chmod 640) for a setgid "
			               "frontdesk"),
			             s->path);
			goto out;
		}
	} else if (sb.st_uid != geteuid()) {
		rc = err_set(FD_EINVAL,
		             _("the secrets file %s belongs to another user: it must be "
		               "owned by the user running frontdesk"),
		             s->path);
		goto out;
	}
	if (!privs_elevated() && (sb.st_mode & (S_IRWXG | S_IRWXO))) {
		rc = err_set(FD_EINVAL,
		             _("run 'chmod 600 %s' and try again: the secrets file can be read "
		               "or changed by group or others"),
		             s->path);
		goto out;
	}
	if (sb.st_size > SECRETS_MAX) {
		rc = err_set(FD_EINVAL, _("the secrets file %s is too large"), s->path);
		goto out;
	}
	text = xmalloc((size_t)sb.st_size + 1);
	while (len < (size_t)sb.st_size) {
		got = read(fd, text + len, (size_t)sb.st_size - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	text[len] = '\0';
	rc = parse(s, text);
out:
	if (fd >= 0)
		close(fd);
	if (text) {
		OPENSSL_cleanse(text, len);
		free(text);
	}
	if (rc) {
		pipe_secret_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

const char *pipe_secret_get(const struct pipe_secrets *s, const char *key)
{
	size_t i;

	for (i = 0; s && i < s->n; i++)
		if (strcmp(s->key[i], key) == 0)
			return s->val[i];
	return NULL;
}

int pipe_secret_need(const struct pipe_secrets *s, const char *key, const char **value)
{
	*value = pipe_secret_get(s, key);
	if (!*value)
		return err_set(FD_EINVAL, _("the secrets file %s has no '%s' line"),
		               s && s->path ? s->path : "?", key);
	return 0;
}

void pipe_secret_free(struct pipe_secrets *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		OPENSSL_cleanse(s->val[i], strlen(s->val[i]));
		free(s->val[i]);
		free(s->key[i]);
	}
	free(s->path);
	free(s);
}
