/*
 * cli.c - the top of the command line: global options, the command table,
 * and the commands that are not about one kind of record (init, demo,
 * migrate). See cli.h.
 */
#include <config.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-util.h"
#include "cli.h"
#include "clock.h"
#include "db.h"
#include "demo.h"
#include "err.h"
#include "i18n.h"
#include "log.h"
#include "migrate.h"
#include "settings.h"
#include "version.h"
#include "xalloc.h"

static int open_new(struct cli *c, struct db **out)
{
	char *path = c->db_path ? xstrdup(c->db_path) : db_default_path();
	int rc = db_open(path, DB_OPEN_CREATE, out);

	free(path);
	return rc;
}

/* init: a new database at a path that does not exist yet (or a zero-byte
 * file, or an SQLite file with nothing in it); an existing frontdesk
 * database is only brought up to date. --to N stops at schema version N
 * (a database to try an upgrade on). */
static int cmd_init(struct cli *c, int argc, char **argv)
{
	static const char syn[] = "[--to VERSION]";
	const char *to = NULL;
	struct cli_opt opts[] = {
	    {"to", &to, NULL, N_("create it at this schema version only (to try an upgrade)")},
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[1], *path;
	int npos, rc, cur = 0;
	int64_t target = -1;
	struct db *db;

	rc = cli_parse(c, "init", syn, opts, argc, argv, pos, 0, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (to && (rc = cli_parse_id("init", "--to", to, &target)))
		return rc;
	if (!to) {
		rc = open_new(c, &db);
	} else {
		path = c->db_path ? xstrdup(c->db_path) : db_default_path();
		rc = db_open(path, DB_OPEN_CREATE | DB_OPEN_NO_MIGRATE, &db);
		free(path);
		if (!rc && (rc = migrate_to(db, (int)target, 0)) != 0)
			db_close(db);
	}
	if (rc)
		return cli_refused(rc);
	if ((rc = migrate_current(db, &cur)) != 0) {
		db_close(db);
		return cli_refused(rc);
	}
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "database", db_path(db));
		cli_json_int(o, "schema_version", cur);
		cli_print_json(o);
	} else {
		printf(_("Database %s is ready (schema version %d).\n"), db_path(db), cur);
	}
	db_close(db);
	return CLI_OK;
}

static int cmd_demo(struct cli *c, int argc, char **argv, cli_screen_fn screen)
{
	static const char syn[] = "[--open]";
	int open_screen = 0, npos, rc;
	struct cli_opt opts[] = {
	    {"open", NULL, &open_screen, N_("open the screen on the demo database afterwards")},
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[1];
	struct db *db;
	int64_t made = 0;

	rc = cli_parse(c, "demo", syn, opts, argc, argv, pos, 0, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if ((rc = open_new(c, &db)))
		return cli_refused(rc);
	rc = demo_create(db, clock_now(), &made);
	if (rc) {
		db_close(db);
		return cli_refused(rc);
	}
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "database", db_path(db));
		cli_json_int(o, "appointments_created", made);
		cli_print_json(o);
	} else if (made) {
		fprintf(stderr, _("Demo data written to %s (%lld appointments).\n"), db_path(db),
		        (long long)made);
	} else {
		fprintf(stderr, _("%s already holds data; nothing was added.\n"), db_path(db));
	}
	if (open_screen) {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			db_close(db);
			fprintf(stderr, _("frontdesk: --open needs a terminal\n"));
			return CLI_REFUSED;
		}
		rc = screen(db);
		db_close(db);
		return rc;
	}
	db_close(db);
	return CLI_OK;
}

static int cmd_migrate(struct cli *c, int argc, char **argv)
{
	static const char syn[] = "[--to VERSION] [--allow-destructive] [--status]";
	const char *to = NULL;
	int allow = 0, status = 0, npos, rc, cur = 0;
	int64_t target = -1;
	struct cli_opt opts[] = {
	    {"to", &to, NULL, N_("migrate up to this version only")},
	    {"allow-destructive", NULL, &allow,
	     N_("also apply migrations that change existing data")},
	    {"status", NULL, &status, N_("only show the applied and known versions")},
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[1];
	struct db *db;
	char *path;

	rc = cli_parse(c, "migrate", syn, opts, argc, argv, pos, 0, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (to && (rc = cli_parse_id("migrate", "--to", to, &target)))
		return rc;
	path = c->db_path ? xstrdup(c->db_path) : db_default_path();
	/* only init creates a database: migrate opens an existing one */
	rc = db_open(path, DB_OPEN_NO_MIGRATE, &db);
	free(path);
	if (rc)
		return cli_refused(rc);
	if (!status && (rc = migrate_to(db, (int)target, allow)) != 0) {
		db_close(db);
		return cli_refused(rc);
	}
	if ((rc = migrate_current(db, &cur)) != 0) {
		db_close(db);
		return cli_refused(rc);
	}
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "schema_version", cur);
		cli_json_int(o, "latest_known", migrate_latest());
		cli_print_json(o);
	} else {
		printf(_("Schema version %d (this frontdesk knows up to %d).\n"), cur,
		       migrate_latest());
	}
	db_close(db);
	return CLI_OK;
}

static const struct {
	const char *name, *help;
} commands[] = {
    {"init", N_("create a new, empty database")},
    {"demo", N_("create a demo database (customers, a month of visits)")},
    {"migrate", N_("show or apply schema migrations")},
    {"customer", N_("add, list, show, edit, delete customers")},
    {"job", N_("add, list, show, edit, set the status of jobs")},
    {"visit", N_("add, list, show, edit, set the status of visits (alias: appt)")},
    {"link", N_("say which jobs a visit works on (add, edit, remove)")},
    {"item", N_("add, list, show, edit, delete line items of a job")},
    {"invoice", N_("issue, list, show, void invoices; credit notes")},
    {"pay", N_("record payments, allocate them to invoices, reverse allocations")},
    {"refund", N_("refund (part of) a payment")},
    {"check", N_("verify the whole database and list every violation")},
    {"report", N_("receivables aging, takings, customer statements")},
    {"export", N_("export a ledger/hledger journal, the visits as iCalendar, records as CSV")},
    {"agenda", N_("list the visits of a date range (from the calendar projection)")},
    {"projection", N_("rebuild or check the calendar projection")},
    {"tasks", N_("list, show and retry background tasks (alias: jobs)")},
    {"lease", N_("show the leases and locks of the control table")},
    {"channel", N_("poll the payment channel, show its state")},
    {"inbox", N_("inbound channel events: ingest, list, show, retry, ignore")},
    {"serve", N_("run the job runner and the payment channel worker headless")},
    {"backup", N_("take a checked backup of the database while others keep working")},
    {"restore", N_("put a backup back in place of the database (no session may be open)")},
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, _("Usage: frontdesk [--db PATH] [--read-only] [--json] [--debug-log FILE] "
	               "[COMMAND ...]\n\n"
	               "With no command on a terminal, the desk screen opens.\n\nCommands:\n"));
	for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, _(commands[i].help));
	fprintf(out,
	        _("\nThe database is --db PATH, else $FRONTDESK_DB, else "
	          "$XDG_DATA_HOME/frontdesk/frontdesk.db.\n"
	          "Each command takes --help. Exit status: 0 done, 1 refused, 2 bad usage.\n"));
}

/*
 * print_version - `frontdesk --version`: the program's version, the newest
 * schema version it knows and the git commit it was built from (left out
 * when built from an export without git). The text line is not translated:
 * scripts read it.
 */
static int print_version(struct cli *c)
{
	const char *commit = version_git_commit();

	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "program", PACKAGE);
		cli_json_str(o, "version", PACKAGE_VERSION);
		cli_json_int(o, "schema_version", migrate_latest());
		cli_json_str(o, "git_commit", commit);
		cli_print_json(o);
	} else if (commit) {
		printf("frontdesk %s (schema %d, git %s)\n", PACKAGE_VERSION, migrate_latest(),
		       commit);
	} else {
		printf("frontdesk %s (schema %d)\n", PACKAGE_VERSION, migrate_latest());
	}
	return CLI_OK;
}

int cli_main(int argc, char **argv, cli_screen_fn screen)
{
	struct cli c = {0};
	const char *logpath = getenv("FRONTDESK_DEBUG_LOG");
	int i, rc, version = 0;

	setlocale(LC_ALL, "");
	/* FRONTDESK_LOCALEDIR: catalogs not yet installed (the screen tests) */
	bindtextdomain(PACKAGE, getenv("FRONTDESK_LOCALEDIR") && *getenv("FRONTDESK_LOCALEDIR")
	                            ? getenv("FRONTDESK_LOCALEDIR")
	                            : LOCALEDIR);
	textdomain(PACKAGE);
	config_load();
	clock_set_zone(config_get("timezone", NULL));

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--db") || !strcmp(a, "--debug-log")) {
			if (i + 1 >= argc)
				return cli_usage("", _("option '%s' needs a value"), a);
			if (!strcmp(a, "--db"))
				c.db_path = argv[++i];
			else
				logpath = argv[++i];
		} else if (!strncmp(a, "--db=", 5)) {
			c.db_path = a + 5;
		} else if (!strcmp(a, "--read-only")) {
			c.readonly = 1;
		} else if (!strcmp(a, "--json")) {
			c.json = 1;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return CLI_OK;
		} else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			version = 1;
		} else {
			fprintf(stderr,
			        _("frontdesk: unknown option '%.40s' (see 'frontdesk --help')\n"),
			        a);
			return CLI_USAGE;
		}
	}
	if (version)
		return print_version(&c);
	if (c.db_path && !*c.db_path)
		return cli_usage("", _("--db needs a path"));
	if (logpath && *logpath && (rc = log_open(logpath)) != 0)
		return cli_refused(rc);
	log_debug("start: %d argument(s)", argc);

	if (i >= argc) {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			usage(stderr);
			return CLI_USAGE;
		}
		if (!cli_db(&c))
			return CLI_REFUSED;
		rc = screen(c.db);
	} else {
		const char *cmd = argv[i];

		argc -= i;
		argv += i;
		if (!strcmp(cmd, "init"))
			rc = cmd_init(&c, argc, argv);
		else if (!strcmp(cmd, "demo"))
			rc = cmd_demo(&c, argc, argv, screen);
		else if (!strcmp(cmd, "migrate"))
			rc = cmd_migrate(&c, argc, argv);
		else if (!strcmp(cmd, "customer"))
			rc = cli_customer(&c, argc - 1, argv + 1);
		else if (!strcmp(cmd, "job"))
			rc = cli_job(&c, argc - 1, argv + 1);
		else if (!strcmp(cmd, "visit") || !strcmp(cmd, "appt"))
			rc = cli_appt(&c, argc - 1, argv + 1);
		else if (!strcmp(cmd, "link"))
			rc = cli_link(&c, argc - 1, argv + 1);
		else if (!strcmp(cmd, "item"))
			rc = cli_item(&c, argc - 1, argv + 1);
		else if (!strcmp(cmd, "invoice") || !strcmp(cmd, "pay") || !strcmp(cmd, "refund") ||
		         !strcmp(cmd, "check") || !strcmp(cmd, "report") || !strcmp(cmd, "export"))
			rc = cli_money(&c, cmd, argc - 1, argv + 1);
		else if (!strcmp(cmd, "agenda") || !strcmp(cmd, "projection") ||
		         !strcmp(cmd, "tasks") || !strcmp(cmd, "lease"))
			rc = cli_ops(&c, cmd, argc - 1, argv + 1);
		else if (!strcmp(cmd, "jobs")) /* the old name of tasks */
			rc = cli_ops(&c, "tasks", argc - 1, argv + 1);
		else if (!strcmp(cmd, "channel") || !strcmp(cmd, "inbox") || !strcmp(cmd, "serve"))
			rc = cli_chan(&c, cmd, argc - 1, argv + 1);
		else if (!strcmp(cmd, "backup") || !strcmp(cmd, "restore"))
			rc = cli_backup(&c, cmd, argc - 1, argv + 1);
		else if (!strcmp(cmd, "help"))
			usage(stdout), rc = CLI_OK;
		else
			rc = cli_usage("", _("unknown command '%.40s'"), cmd);
	}
	db_close(c.db);
	config_free();
	log_close();
	return rc;
}
