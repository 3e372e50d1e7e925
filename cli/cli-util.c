/*
 * cli-util.c - shared helpers of the command line (see cli-util.h).
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-util.h"
#include "clock.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "staff.h"
#include "text.h"
#include "xalloc.h"

int cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "frontdesk %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, _("\n(see 'frontdesk %s --help')\n"), cmd);
	return CLI_USAGE;
}

int cli_refused(int rc)
{
	char *safe = text_sanitize(err_msg());

	fprintf(stderr, "frontdesk: %s\n", safe);
	free(safe);
	return CLI_REFUSED;
}

static void print_cmds(const struct cli_entry *group, FILE *out)
{
	const struct cli_entry *e;

	fprintf(out, _("Usage: frontdesk %s COMMAND [OPTIONS]\n\nCommands:\n"), group->name);
	for (e = group->sub; e->name; e++)
		fprintf(out, "  %-8s %-28s %s\n", e->name, e->synopsis ? e->synopsis : "",
		        _(e->help));
	fprintf(out, _("\nEach command takes --help and --json.\n"));
}

int cli_dispatch(struct cli *c, const struct cli_entry *group, int argc, char **argv)
{
	const struct cli_entry *e;
	char cmd[64];

	if (argc < 1) {
		print_cmds(group, stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h") || !strcmp(argv[0], "help")) {
		print_cmds(group, stdout);
		return CLI_OK;
	}
	for (e = group->sub; e->name; e++)
		if (!strcmp(argv[0], e->name) || (e->alias && !strcmp(argv[0], e->alias))) {
			snprintf(cmd, sizeof cmd, "%s %s", group->name, e->name);
			if (e->sub) { /* a group in the group: "hq report aging" */
				struct cli_entry g = *e;

				g.name = cmd;
				return cli_dispatch(c, &g, argc - 1, argv + 1);
			}
			return cli_run(c, e, cmd, argc, argv);
		}
	return cli_usage(group->name, _("unknown command '%.40s'"), argv[0]);
}

static int find_opt(const struct cli_entry *e, const char *name, size_t n)
{
	int i;

	for (i = 0; i < CLI_OPTS_MAX && e->opts[i].name; i++)
		if (strlen(e->opts[i].name) == n && !strncmp(e->opts[i].name, name, n))
			return i;
	return -1;
}

static void print_usage(const char *cmd, const struct cli_entry *e)
{
	const char *synopsis = e->usage ? e->usage : e->synopsis;
	int i;

	printf(_("Usage: frontdesk %s %s\n"), cmd, synopsis ? synopsis : "");
	if (e->opts[0].name)
		printf(_("\nOptions:\n"));
	for (i = 0; i < CLI_OPTS_MAX && e->opts[i].name; i++) {
		const struct cli_option *o = &e->opts[i];
		char left[64];

		snprintf(left, sizeof left, "--%s%s", o->name, o->kind != CLI_FLAG ? " VALUE" : "");
		printf("  %-24s %s\n", left, _(o->help));
	}
	printf("  %-24s %s\n", "--json", _("print the result as JSON"));
	printf("  %-24s %s\n", "--help", _("show this help"));
}

/* Parse argv (argv[0] is the command's name) into a: positional arguments
 * (at most e->max_pos) and options. 0, -1 (help shown) or CLI_USAGE. */
static int parse_argv(struct cli *c, const struct cli_entry *e, struct cli_args *a, int argc,
                      char **argv)
{
	int i, k, only_pos = 0;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq;
		size_t n;

		if (!only_pos && !strcmp(arg, "--")) {
			only_pos = 1;
			continue;
		}
		if (only_pos || arg[0] != '-' || arg[1] == '\0' ||
		    (arg[1] >= '0' && arg[1] <= '9')) {
			if (a->npos >= e->max_pos)
				return cli_usage(a->cmd, _("too many arguments (at '%.40s')"), arg);
			a->pos[a->npos++] = argv[i];
			continue;
		}
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			print_usage(a->cmd, e);
			return -1;
		}
		if (!strcmp(arg, "--json")) {
			c->json = 1;
			continue;
		}
		if (arg[1] != '-')
			return cli_usage(a->cmd, _("unknown option '%.40s'"), arg);
		eq = strchr(arg + 2, '=');
		n = eq ? (size_t)(eq - (arg + 2)) : strlen(arg + 2);
		k = find_opt(e, arg + 2, n);
		if (k < 0)
			return cli_usage(a->cmd, _("unknown option '%.40s'"), arg);
		if (e->opts[k].kind != CLI_FLAG) {
			if (eq)
				a->value[k] = eq + 1;
			else if (i + 1 < argc)
				a->value[k] = argv[++i];
			else
				return cli_usage(a->cmd, _("option '--%s' needs a value"),
				                 e->opts[k].name);
		} else if (eq) {
			return cli_usage(a->cmd, _("option '--%s' takes no value"),
			                 e->opts[k].name);
		}
		a->given[k] = 1;
	}
	return 0;
}

/* What parsing alone can check, in this order: the positional id, the
 * required options, the positional count and the ids options carry. 0 or
 * CLI_USAGE. */
static int check_args(const struct cli_entry *e, struct cli_args *a)
{
	int i, rc;

	if (e->id && (rc = cli_parse_id(a->cmd, _(e->id), a->npos ? a->pos[0] : NULL, &a->id)) != 0)
		return rc;
	for (i = 0; i < CLI_OPTS_MAX && e->opts[i].name; i++)
		if (e->opts[i].required && !a->given[i])
			return cli_usage(a->cmd, "%s", _(e->opts[i].required));
	for (i = 0; i < e->min_pos; i++)
		if (i >= a->npos || (e->nonempty && !*a->pos[i]))
			return cli_usage(a->cmd, "%s", _(e->missing));
	for (i = 0; i < CLI_OPTS_MAX && e->opts[i].name; i++) {
		const struct cli_option *o = &e->opts[i];
		char what[48];

		if (o->kind != CLI_ID && o->kind != CLI_ID_NEEDED)
			continue;
		if (!a->given[i] && o->kind == CLI_ID)
			continue;
		if (o->what)
			snprintf(what, sizeof what, "%s", _(o->what));
		else
			snprintf(what, sizeof what, "--%s", o->name);
		if ((rc = cli_parse_id(a->cmd, what, a->value[i], &a->num[i])) != 0)
			return rc;
	}
	return 0;
}

/* Open the database a command needs into c->db. 0 or CLI_REFUSED. */
static int open_db(struct cli *c, int mode)
{
	char *path;
	int rc;

	if (mode == CLI_DB_OPEN)
		return cli_db(c) ? 0 : CLI_REFUSED;
	if (mode != CLI_DB_CREATE || c->db)
		return 0;
	path = c->db_path ? xstrdup(c->db_path) : db_default_path();
	rc = db_open(path, DB_OPEN_CREATE, &c->db);
	free(path);
	return rc ? cli_refused(rc) : 0;
}

int cli_run(struct cli *c, const struct cli_entry *e, const char *cmd, int argc, char **argv)
{
	struct cli_args a;
	int rc;

	memset(&a, 0, sizeof a);
	a.entry = e;
	a.cmd = cmd;
	a.pos = xcalloc((size_t)(e->max_pos > 0 ? e->max_pos : 1), sizeof *a.pos);
	rc = parse_argv(c, e, &a, argc, argv);
	if (rc < 0)
		rc = CLI_OK;
	else if (!rc && !(rc = check_args(e, &a)) && !(rc = e->check ? e->check(c, &a) : 0) &&
	         !(rc = open_db(c, e->db)))
		rc = e->run(c, &a);
	free(a.pos);
	return rc;
}

static int arg_index(const struct cli_args *a, const char *name)
{
	int i;

	for (i = 0; i < CLI_OPTS_MAX && a->entry->opts[i].name; i++)
		if (!strcmp(a->entry->opts[i].name, name))
			return i;
	/* a run function asked for an option its entry does not declare */
	fprintf(stderr, "frontdesk %s: no option '--%s' in the command table\n", a->cmd, name);
	abort();
}

const char *cli_arg_get(const struct cli_args *a, const char *name)
{
	return a->value[arg_index(a, name)];
}

int cli_arg_flag(const struct cli_args *a, const char *name)
{
	return a->given[arg_index(a, name)];
}

int64_t cli_arg_id(const struct cli_args *a, const char *name)
{
	return a->num[arg_index(a, name)];
}

int cli_arg_pos_id(const struct cli_args *a, int i, const char *what, int64_t *id)
{
	return cli_parse_id(a->cmd, what, i < a->npos ? a->pos[i] : NULL, id);
}

/* The approval the global options bring (--approval, --pin-of), told to
 * the open connection: 0, or a refusal already said. */
static int bring_approval(struct cli *c)
{
	char pin[64], prompt[200];
	int rc;

	if (c->approval)
		staff_use_approval(c->db, c->approval);
	if (!c->pin_of)
		return 0;
	snprintf(prompt, sizeof prompt, _("Approval PIN of %.40s: "), c->pin_of);
	if (cli_read_pin(prompt, pin, sizeof pin) != 0) {
		fprintf(stderr, "frontdesk: %s\n", _("no PIN was read; nothing changed"));
		return -1;
	}
	rc = staff_pin_approve(c->db, c->pin_of, pin);
	explicit_bzero(pin, sizeof pin);
	if (rc) {
		cli_refused(rc);
		return -1;
	}
	return 0;
}

struct db *cli_db(struct cli *c)
{
	char *path;
	int rc;

	if (c->db)
		return c->db;
	path = c->db_path ? xstrdup(c->db_path) : db_default_path();
	rc = db_open(path, c->readonly ? DB_OPEN_READONLY : 0, &c->db);
	free(path);
	if (rc)
		cli_refused(rc);
	else if (bring_approval(c) != 0)
		db_close(c->db), c->db = NULL;
	return c->db;
}

int cli_parse_id(const char *cmd, const char *what, const char *s, int64_t *id)
{
	char *end;
	long long v;

	if (!s || !*s)
		return cli_usage(cmd, _("%s is missing"), what);
	v = strtoll(s, &end, 10);
	if (*end || v <= 0 || v >= INT64_MAX || s[0] == '+' || s[0] == ' ')
		return cli_usage(cmd, _("%s must be a positive number, not '%.40s'"), what, s);
	*id = v;
	return 0;
}

void cli_print_json(cJSON *item)
{
	char *s = cJSON_Print(item);

	if (s) {
		puts(s);
		cJSON_free(s);
	}
	cJSON_Delete(item);
}

void cli_puts_safe(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char *safe;

	/* printable ASCII is what text_sanitize leaves as it is: no copy */
	while (*p >= 0x20 && *p < 0x7F)
		p++;
	if (!*p) {
		fputs(s ? s : "", stdout);
		return;
	}
	safe = text_sanitize(s);

	fputs(safe, stdout);
	free(safe);
}

void cli_field(const char *label, const char *value)
{
	printf("%s: ", label);
	cli_puts_safe(value ? value : "-");
	putchar('\n');
}

void cli_json_str(cJSON *obj, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(obj, key, s);
	else
		cJSON_AddNullToObject(obj, key);
}

void cli_json_int(cJSON *obj, const char *key, int64_t v)
{
	/* cJSON keeps numbers as double: exact only up to 2^53 */
	if (v > ((int64_t)1 << 53) || v < -((int64_t)1 << 53)) {
		char buf[32];

		snprintf(buf, sizeof buf, "%lld", (long long)v);
		cJSON_AddRawToObject(obj, key, buf);
	} else {
		cJSON_AddNumberToObject(obj, key, (double)v);
	}
}

void cli_json_time(cJSON *obj, const char *key, int64_t t)
{
	char buf[32];

	clock_format_utc(t, buf, sizeof buf);
	cJSON_AddStringToObject(obj, key, buf);
}

void cli_json_time_opt(cJSON *obj, const char *key, int64_t t)
{
	if (t)
		cli_json_time(obj, key, t);
	else
		cJSON_AddNullToObject(obj, key);
}

void cli_list_begin(struct cli *c, const char *key)
{
	if (c->json) {
		c->out = cJSON_CreateObject();
		cJSON_AddArrayToObject(c->out, key);
	}
}

void cli_list_add(struct cli *c, cJSON *item)
{
	cJSON_AddItemToArray(c->out->child, item);
}

int cli_list_end(struct cli *c, int rc)
{
	if (c->json) {
		if (rc)
			cJSON_Delete(c->out);
		else
			cli_print_json(c->out);
		c->out = NULL;
	}
	return rc ? cli_refused(rc) : CLI_OK;
}
