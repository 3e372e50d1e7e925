/*
 * settings.c - a tiny key = value reader (see settings.h).
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "settings.h"
#include "xalloc.h"

struct kv {
	char *key, *val;
};

static struct kv *items;
static size_t n_items;

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

	if (!f)
		return;
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
	const char *home = getenv("HOME");
	char path[4096];

	config_free();
	read_file("/etc/frontdesk/config");
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
}
