/*
 * privs.c - running with more rights than the user (see privs.h).
 *
 * Invariants: the elevated flag is decided once, in privs_init, before any
 * library has read the environment; an elevated process has only the
 * variables of the allow-list below, each checked; the group is lowered
 * per thread (the raw setresgid system call: glibc's wrapper would change
 * every thread of the screen, the channel worker's too) and only around
 * the opening of a file the user named. Called by main (privs_init) and by
 * the modules that read files or the environment (settings, secrets,
 * clock, database path, debug log, exports, the screen's state).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "privs.h"
#include "xalloc.h"

#define SAFE_PATH "/usr/local/bin:/usr/bin:/bin"
#define VALUE_MAX 255

static int elevated;
static char **kept_env; /* the environment installed by privs_init */

enum kind { K_TERM, K_LOCALE, K_LANGUAGE, K_TZ, K_NUMBER, K_ANY };

/* The allow-list: every variable an elevated frontdesk keeps. */
static const struct {
	const char *name;
	enum kind kind;
} allowed[] = {
    {"TERM", K_TERM},
    {"LANG", K_LOCALE},
    {"LC_ALL", K_LOCALE},
    {"LC_CTYPE", K_LOCALE},
    {"LC_NUMERIC", K_LOCALE},
    {"LC_TIME", K_LOCALE},
    {"LC_COLLATE", K_LOCALE},
    {"LC_MONETARY", K_LOCALE},
    {"LC_MESSAGES", K_LOCALE},
    {"LC_PAPER", K_LOCALE},
    {"LC_NAME", K_LOCALE},
    {"LC_ADDRESS", K_LOCALE},
    {"LC_TELEPHONE", K_LOCALE},
    {"LC_MEASUREMENT", K_LOCALE},
    {"LC_IDENTIFICATION", K_LOCALE},
    {"LANGUAGE", K_LANGUAGE},
    {"TZ", K_TZ},
    {"COLUMNS", K_NUMBER},
    {"LINES", K_NUMBER},
    {"ESCDELAY", K_NUMBER},
    {"NO_COLOR", K_ANY},
    {"FRONTDESK_DB", K_ANY},
    {"FRONTDESK_DESK", K_ANY},
};

static int alnum(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* n bytes of s, each a letter, a digit or one of extra; the first a letter
 * or a digit; no "..". */
static int plain(const char *s, size_t n, const char *extra)
{
	size_t i;

	if (n == 0 || !alnum(s[0]))
		return 0;
	for (i = 0; i < n; i++) {
		if (!alnum(s[i]) && !strchr(extra, s[i]))
			return 0;
		if (s[i] == '.' && i + 1 < n && s[i + 1] == '.')
			return 0;
	}
	return 1;
}

/* "zh_CN.UTF-8", "sr_RS@latin", "C": never a path. */
static int locale_name(const char *s, size_t n)
{
	return plain(s, n, "_.-@+");
}

/* A zone name (America/New_York, optionally after ':') or a POSIX rule
 * (EST5EDT,M3.2.0/2,M11.1.0, <+0530>-5:30): never a file by its path. */
static int zone(const char *s)
{
	size_t i;

	if (*s == ':')
		s++;
	if (!*s || *s == '/' || strstr(s, ".."))
		return 0;
	for (i = 0; s[i]; i++)
		if (!alnum(s[i]) && !strchr("/_+-.,:<>", s[i]))
			return 0;
	return 1;
}

static int value_ok(enum kind kind, const char *v)
{
	size_t n = strlen(v), i;
	const char *p, *colon;

	if (n > VALUE_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return 0;
	switch (kind) {
	case K_TERM:
		return plain(v, n, "._+-");
	case K_LOCALE:
		return locale_name(v, n);
	case K_LANGUAGE:
		for (p = v; *p; p = colon + 1) {
			colon = strchr(p, ':');
			if (!colon)
				return locale_name(p, strlen(p));
			if (colon > p && !locale_name(p, (size_t)(colon - p)))
				return 0;
		}
		return 1;
	case K_TZ:
		return zone(v);
	case K_NUMBER:
		if (n == 0 || n > 5)
			return 0;
		for (i = 0; i < n; i++)
			if (v[i] < '0' || v[i] > '9')
				return 0;
		return 1;
	case K_ANY:
		return 1;
	}
	return 0;
}

static char *joined(const char *name, const char *value)
{
	size_t n = strlen(name) + strlen(value) + 2;
	char *s = xmalloc(n);

	snprintf(s, n, "%s=%s", name, value);
	return s;
}

char **privs_env_rebuild(char *const *env, const char *home, const char *user)
{
	size_t nallow = sizeof allowed / sizeof allowed[0], k, n = 0;
	char **out = xcalloc(nallow + 5, sizeof *out);
	int seen[sizeof allowed / sizeof allowed[0]] = {0};
	char *const *e;

	for (e = env; e && *e; e++) {
		const char *eq = strchr(*e, '=');

		if (!eq)
			continue;
		for (k = 0; k < nallow; k++) {
			if (strlen(allowed[k].name) != (size_t)(eq - *e) ||
			    strncmp(*e, allowed[k].name, (size_t)(eq - *e)))
				continue;
			/* the first one decides: getenv would find that one */
			if (!seen[k] && value_ok(allowed[k].kind, eq + 1))
				out[n++] = xstrdup(*e);
			seen[k] = 1;
			break;
		}
	}
	out[n++] = joined("PATH", SAFE_PATH);
	if (home)
		out[n++] = joined("HOME", home);
	if (user) {
		out[n++] = joined("USER", user);
		out[n++] = joined("LOGNAME", user);
	}
	out[n] = NULL;
	return out;
}

void privs_env_free(char **env)
{
	size_t i;

	for (i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/* Replace the environment with env (kept for the life of the process). */
static void install(char **env)
{
	size_t i;

	clearenv();
	for (i = 0; env[i]; i++)
		putenv(env[i]);
	kept_env = env;
}

void privs_init(void)
{
	struct passwd *pw;
	char **first;
	int fd;

	elevated = getauxval(AT_SECURE) != 0 || getuid() != geteuid() || getgid() != getegid();
	if (!elevated)
		return;
	/* a closed stderr would make the database file descriptor 2 */
	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			abort();
	umask(umask(0) | S_IRWXO);
	/* the allow-list first, so that the passwd lookup reads no variable
	 * of the user's; then HOME, USER and LOGNAME of the real user */
	install(privs_env_rebuild(environ, NULL, NULL));
	first = kept_env;
	pw = getpwuid(getuid());
	install(privs_env_rebuild(environ,
	                          pw && pw->pw_dir && *pw->pw_dir == '/' ? pw->pw_dir : "/",
	                          pw && pw->pw_name ? pw->pw_name : NULL));
	privs_env_free(first);
}

int privs_elevated(void)
{
	return elevated;
}

void privs_force_elevated(int on)
{
	elevated = on != 0;
}

/* Set this thread's effective group: the system call itself, which Linux
 * applies to the calling thread only. */
static int thread_egid(gid_t g)
{
	return (int)syscall(SYS_setresgid, (gid_t)-1, g, (gid_t)-1);
}

static __thread int lowered; /* how deep privs_user_begin calls are here */

int privs_user_begin(void)
{
	if (!elevated)
		return 0;
	if (lowered) {
		lowered++; /* already the user's group here */
		return 0;
	}
	if (getuid() != geteuid() || getgid() == getegid())
		return 0; /* not setgid (a forced test, or setuid: not ours) */
	if (thread_egid(getgid()) != 0)
		return -1;
	lowered = 1;
	return 0;
}

void privs_user_end(void)
{
	gid_t saved, r, e;

	if (!lowered || --lowered)
		return;
	if (getresgid(&r, &e, &saved) != 0 || thread_egid(saved) != 0)
		abort(); /* cannot go on with the user's group: the database is the program's */
}

int privs_open_user(const char *path, int flags, mode_t mode)
{
	int fd, e;

	if (privs_user_begin() != 0)
		return -1;
	fd = open(path, flags, mode);
	e = errno;
	privs_user_end();
	errno = e;
	return fd;
}

FILE *privs_fopen_user(const char *path, const char *mode)
{
	FILE *f;
	int e;

	if (privs_user_begin() != 0)
		return NULL;
	f = fopen(path, mode);
	e = errno;
	privs_user_end();
	errno = e;
	return f;
}

/* 1 when the resolved path p is dir (when equal_ok) or lies below it. */
static int below(const char *p, const char *dir, int equal_ok)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return p[0] == '/' && (equal_ok || p[1]);
	if (strncmp(p, dir, n))
		return 0;
	return p[n] == '/' || (equal_ok && p[n] == '\0');
}

static int dotdot(const char *path)
{
	const char *p = path;

	while ((p = strstr(p, "..")) != NULL) {
		if ((p == path || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
			return 1;
		p += 2;
	}
	return 0;
}

/* The resolved form of path, a file that does not exist yet: its nearest
 * existing folder resolved (into *folder), then the parts still to be
 * made. NULL when that folder cannot be resolved. */
static char *resolve_new(const char *path, char **folder)
{
	size_t k = strlen(path), m, n;
	char *prefix, *out;
	struct stat sb;

	*folder = NULL;
	for (;;) {
		while (k > 0 && path[k - 1] != '/')
			k--; /* path + k: what is still to be made */
		m = k;
		while (m > 1 && path[m - 1] == '/')
			m--; /* path[0, m): its folder */
		prefix = m ? xstrndup(path, m) : xstrdup(".");
		if (lstat(prefix, &sb) == 0 || errno != ENOENT)
			break;
		free(prefix);
		k = m;
	}
	*folder = realpath(prefix, NULL);
	free(prefix);
	if (!*folder)
		return NULL;
	n = strlen(*folder) + strlen(path + k) + 2;
	out = xmalloc(n);
	snprintf(out, n, "%s%s%s", *folder, (*folder)[strlen(*folder) - 1] == '/' ? "" : "/",
	         path + k);
	return out;
}

int privs_path_inside(const char *path, const char *dir, char **resolved)
{
	char *rdir = NULL, *rp = NULL, *folder = NULL;
	struct stat sb;
	int inside = 0;

	if (resolved)
		*resolved = NULL;
	if (!path || !*path || !dir || dotdot(path) || !(rdir = realpath(dir, NULL)))
		goto out;
	if (lstat(path, &sb) == 0) {
		rp = realpath(path, NULL);
		inside = rp && below(rp, rdir, 0);
	} else if (errno == ENOENT) {
		/* a file still to be made: its nearest existing folder must be inside */
		rp = resolve_new(path, &folder);
		inside = rp && below(folder, rdir, 1);
	}
	if (inside && resolved) {
		*resolved = rp;
		rp = NULL;
	}
out:
	free(rdir);
	free(rp);
	free(folder);
	return inside;
}

int privs_trusted_file(const struct stat *sb)
{
	if (sb->st_mode & S_IWOTH)
		return 0;
	if (sb->st_uid == 0)
		return 1;
	return sb->st_uid != getuid() && sb->st_gid == getegid();
}
