/*
 * settings.c - a tiny key = value reader (see settings.h).
 *
 * A setgid frontdesk (privs.h) reads only the system's file, and only when
 * root or the program's group owns it and others cannot write it: a
 * user's own file, FRONTDESK_CONFIG and XDG_CONFIG_HOME are never read
 * then. data_dir is taken from the system's file alone, always.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "i18n.h"
#include "privs.h"
#include "settings.h"
#include "xalloc.h"

struct kv {
	char *key, *val;
};

static struct kv *items;
static size_t n_items;
static char *system_data_dir; /* data_dir of the system's file */

#define SYSTEM_CONFIG "/etc/frontdesk/config"

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* s without blanks (line breaks included) at either end: "currency =\rUSD"
 * must not keep the carriage return in front of the value. */
static char *trim(char *s)
{
	char *e;

	while (blank(*s))
		s++;
	e = s + strlen(s);
	while (e > s && blank(e[-1]))
		*--e = '\0';
	return s;
}

static void set(const char *key, const char *val)
{
	size_t i;

	for (i = 0; i < n_items; i++)
		if (strcmp(items[i].key, key) == 0) {
			free(items[i].val);
			items[i].val = xstrdup(val);
			return;
		}
	items = xrealloc(items, (n_items + 1) * sizeof *items);
	items[n_items].key = xstrdup(key);
	items[n_items].val = xstrdup(val);
	n_items++;
}

static void read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int lineno = 0;
	struct stat sb;

	if (!f)
		return;
	if (privs_elevated() && (fstat(fileno(f), &sb) != 0 || !privs_trusted_file(&sb))) {
		fprintf(stderr,
		        _("frontdesk: %s is ignored: a setgid frontdesk reads it only when root "
		          "or the program's group owns it and others cannot write it\n"),
		        path);
		fclose(f);
		return;
	}
	while (fgets(line, sizeof line, f)) {
		char *s = trim(line), *eq;

		lineno++;
		if (*s == '\0' || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			fprintf(stderr,
			        _("frontdesk: %s:%d: expected 'key = value'; line ignored\n"), path,
			        lineno);
			continue;
		}
		*eq = '\0';
		set(trim(s), trim(eq + 1));
	}
	fclose(f);
}

void config_load(void)
{
	const char *env = getenv("FRONTDESK_CONFIG"), *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME"), *v;
	char path[4096];

	config_free();
	read_file(SYSTEM_CONFIG);
	v = config_get("data_dir", NULL);
	if (v && *v == '/')
		system_data_dir = xstrdup(v);
	if (privs_elevated())
		return; /* the user's own files: never with the program's rights */
	if (env && *env) {
		read_file(env);
		return;
	}
	if (xdg && *xdg == '/')
		snprintf(path, sizeof path, "%s/frontdesk/config", xdg);
	else if (home && *home)
		snprintf(path, sizeof path, "%s/.config/frontdesk/config", home);
	else
		return;
	read_file(path);
}

const char *config_data_dir(void)
{
	return system_data_dir ? system_data_dir : FD_DATA_DIR;
}

const char *config_get(const char *key, const char *def)
{
	size_t i;

	for (i = 0; i < n_items; i++)
		if (strcmp(items[i].key, key) == 0)
			return items[i].val;
	return def;
}

long config_get_int(const char *key, long def)
{
	const char *v = config_get(key, NULL);
	char *end;
	long n;

	if (!v)
		return def;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end)
		return def;
	return n;
}

void config_free(void)
{
	size_t i;

	for (i = 0; i < n_items; i++) {
		free(items[i].key);
		free(items[i].val);
	}
	free(items);
	items = NULL;
	n_items = 0;
	free(system_data_dir);
	system_data_dir = NULL;
}
