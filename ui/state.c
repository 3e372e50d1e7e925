/*
 * state.c - the screen's state file (see state.h). The file is rewritten
 * whole through a temporary file and rename(), mode 0600, folder 0700. It
 * is the user's: a setgid frontdesk (privs.h) reads and writes it with the
 * user's own rights, in the user's home (XDG_STATE_HOME is not kept then).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "privs.h"
#include "state.h"
#include "xalloc.h"

#define MAX_KEYS 16

static char *keys[MAX_KEYS], *vals[MAX_KEYS];
static int n, loaded;

static int path_of(char *buf, size_t size, int make_dir)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char dir[4096];

	if (xdg && *xdg)
		snprintf(dir, sizeof dir, "%s/frontdesk", xdg);
	else if (home && *home)
		snprintf(dir, sizeof dir, "%s/.local/state/frontdesk", home);
	else
		return -1;
	if (make_dir) {
		char tmp[4096], *p;

		snprintf(tmp, sizeof tmp, "%s", dir);
		for (p = tmp + 1; *p; p++)
			if (*p == '/') {
				*p = '\0';
				if (mkdir(tmp, 0700) && errno != EEXIST)
					return -1;
				*p = '/';
			}
		if (mkdir(tmp, 0700) && errno != EEXIST)
			return -1;
	}
	snprintf(buf, size, "%s/screen", dir);
	return 0;
}

static void put(const char *k, const char *v)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(keys[i], k)) {
			free(vals[i]);
			vals[i] = xstrdup(v);
			return;
		}
	if (n < MAX_KEYS) {
		keys[n] = xstrdup(k);
		vals[n] = xstrdup(v);
		n++;
	}
}

static void load(void)
{
	char path[4200], line[512];
	FILE *f;

	loaded = 1;
	if (path_of(path, sizeof path, 0) || privs_user_begin() != 0)
		return;
	f = fopen(path, "r");
	privs_user_end();
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char *eq = strchr(line, '='), *k = line, *v, *e;

		if (!eq || line[0] == '#')
			continue;
		*eq = '\0';
		v = eq + 1;
		v[strcspn(v, "\r\n")] = '\0';
		while (*v == ' ')
			v++;
		e = eq;
		while (e > k && e[-1] == ' ')
			*--e = '\0';
		put(k, v);
	}
	fclose(f);
}

const char *state_get(const char *key, const char *def)
{
	int i;

	if (!loaded)
		load();
	for (i = 0; i < n; i++)
		if (!strcmp(keys[i], key))
			return vals[i];
	return def;
}

void state_set(const char *key, const char *value)
{
	char path[4200], tmp[4300];
	FILE *f;
	int i, fd;

	if (!loaded)
		load();
	put(key, value);
	if (privs_user_begin() != 0)
		return;
	if (path_of(path, sizeof path, 1))
		goto out;
	snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		goto out;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		goto out;
	}
	fprintf(f, "# frontdesk screen state (written by the program)\n");
	for (i = 0; i < n; i++)
		fprintf(f, "%s = %s\n", keys[i], vals[i]);
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		unlink(tmp);
out:
	privs_user_end();
}

void state_free(void)
{
	int i;

	for (i = 0; i < n; i++) {
		free(keys[i]);
		free(vals[i]);
	}
	n = 0;
	loaded = 0;
}
