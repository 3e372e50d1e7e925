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

#include "cli-money.h"
#include "cli-util.h"
#include "cli.h"
#include "clock.h"
#include "db.h"
#include "demo.h"
#include "drawer.h"
#include "err.h"
#include "hq.h"
#include "i18n.h"
#include "log.h"
#include "migrate.h"
#include "privs.h"
#include "settings.h"
#include "staff.h"
#include "version.h"
#include "xalloc.h"

/* init: a new database at a path that does not exist yet (or a zero-byte
 * file, or an SQLite file with nothing in it); an existing frontdesk
 * database is only brought up to date. --to N stops at schema version N
 * (a database to try an upgrade on). */
static int cmd_init(struct cli *c, const struct cli_args *a)
{
	char *path = c->db_path ? xstrdup(c->db_path) : db_default_path();
	int rc, cur = 0;
	struct db *db;

	if (!cli_arg_flag(a, "to")) {
		rc = db_open(path, DB_OPEN_CREATE, &db);
	} else {
		rc = db_open(path, DB_OPEN_CREATE | DB_OPEN_NO_MIGRATE, &db);
		if (!rc && (rc = migrate_to(db, (int)cli_arg_id(a, "to"), 0)) != 0)
			db_close(db);
	}
	free(path);
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

/* demo: the framework opened (or created) the database. */
static int cmd_demo(struct cli *c, const struct cli_args *a)
{
	int64_t made = 0;
	int rc = demo_create(c->db, clock_now(), &made);

	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "database", db_path(c->db));
		cli_json_int(o, "appointments_created", made);
		cli_print_json(o);
	} else if (made) {
		fprintf(stderr, _("Demo data written to %s (%lld visits).\n"), db_path(c->db),
		        (long long)made);
	} else {
		fprintf(stderr, _("%s already holds data; nothing was added.\n"), db_path(c->db));
	}
	if (cli_arg_flag(a, "open")) {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			fprintf(stderr, _("frontdesk: --open needs a terminal\n"));
			return CLI_REFUSED;
		}
		return c->screen(c->db, NULL);
	}
	return CLI_OK;
}

static int cmd_migrate(struct cli *c, const struct cli_args *a)
{
	int rc, cur = 0;
	struct db *db;
	char *path;

	path = c->db_path ? xstrdup(c->db_path) : db_default_path();
	/* only init creates a database: migrate opens an existing one */
	rc = db_open(path, DB_OPEN_NO_MIGRATE, &db);
	free(path);
	if (rc)
		return cli_refused(rc);
	if (!cli_arg_flag(a, "status") &&
	    (rc = migrate_to(db, cli_arg_flag(a, "to") ? (int)cli_arg_id(a, "to") : -1,
	                     cli_arg_flag(a, "allow-destructive"))) != 0) {
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

static const struct cli_entry init_entry = {
    "init",
    NULL,
    "[--to VERSION]",
    NULL,
    N_("create a new, empty database"),
    .opts = {{"to", CLI_ID, N_("create it at this schema version only (to try an upgrade)"), NULL,
              NULL}},
    .run = cmd_init};
static const struct cli_entry demo_entry = {
    "demo",
    NULL,
    "[--open]",
    NULL,
    N_("create a demo database (customers, a month of visits)"),
    .opts = {{"open", CLI_FLAG, N_("open the screen on the demo database afterwards"), NULL, NULL}},
    .db = CLI_DB_CREATE,
    .run = cmd_demo};
static const struct cli_entry migrate_entry = {
    "migrate",
    NULL,
    "[--to VERSION] [--allow-destructive] [--status]",
    NULL,
    N_("show or apply schema migrations"),
    .opts = {{"to", CLI_ID, N_("migrate up to this version only"), NULL, NULL},
             {"allow-destructive", CLI_FLAG, N_("also apply migrations that change existing data"),
              NULL, NULL},
             {"status", CLI_FLAG, N_("only show the applied and known versions"), NULL, NULL}},
    .run = cmd_migrate};
/* A group: its name, alias and help; its commands are in sub. */
#define GROUP(name, alias, help, cmds)                                                             \
	{                                                                                          \
		name, alias, NULL, NULL, help, .sub = cmds                                         \
	}

/* The top of the command table, in the order of the help. */
static const struct cli_entry *const commands[] = {
    &init_entry,
    &demo_entry,
    &migrate_entry,
    &(const struct cli_entry)GROUP("customer", NULL, N_("add, list, show, edit, delete customers"),
                                   cli_customer_cmds),
    &(const struct cli_entry)GROUP(
        "contact", NULL, N_("the contact log: calls, messages, counter visits (add, list)"),
        cli_contact_cmds),
    &(const struct cli_entry)GROUP(
        "condition", NULL,
        N_("condition reports of a visit: photos, panoramas, 3D captures and the marks on them"),
        cli_condition_cmds),
    &(const struct cli_entry)GROUP(
        "message", NULL,
        N_("messages to customers by e-mail and text: reminders, on our way, confirmations, "
           "invoices; consent"),
        cli_message_cmds),
    &(const struct cli_entry)GROUP(
        "hq", NULL, N_("the chain's head office in PostgreSQL: init, join, sync, status"),
        cli_hq_cmds),
    &(const struct cli_entry)GROUP(
        "service", NULL, N_("the catalogue of services and fees: add, list, edit, retire"),
        cli_service_cmds),
    &(const struct cli_entry)GROUP("job", NULL, N_("add, list, show, edit, set the status of jobs"),
                                   cli_job_cmds),
    &(const struct cli_entry)GROUP(
        "visit", "appt", N_("add, list, show, edit, set the status of visits (alias: appt)"),
        cli_visit_cmds),
    &cli_book_entry,
    &(const struct cli_entry)GROUP(
        "recurring", NULL,
        N_("work that repeats: add, list, show, make, edit, stop recurring jobs; a rule's dates"),
        cli_recurring_cmds),
    &(const struct cli_entry)GROUP(
        "resource", NULL,
        N_("technicians, vans and bays: add, list, change, working hours, days off"),
        cli_resource_cmds),
    &(const struct cli_entry)GROUP("holiday", NULL, N_("the shop's closed days: add, list, remove"),
                                   cli_holiday_cmds),
    &cli_availability_entry,
    &(const struct cli_entry)GROUP(
        "link", NULL, N_("say which jobs a visit works on (add, edit, remove)"), cli_link_cmds),
    &(const struct cli_entry)GROUP(
        "item", NULL, N_("add, list, show, edit, delete line items of a job"), cli_item_cmds),
    &(const struct cli_entry)GROUP(
        "invoice", NULL, N_("issue, list, show, void invoices; credit notes"), mcli_invoice_cmds),
    &(const struct cli_entry)GROUP(
        "pay", NULL, N_("record payments, allocate them to invoices, reverse allocations"),
        mcli_pay_cmds),
    &(const struct cli_entry)GROUP(
        "estimate", NULL,
        N_("estimates signed through an e-sign provider: send, list, show, cancel"),
        cli_estimate_cmds),
    &(const struct cli_entry)GROUP(
        "booking-channel", NULL,
        N_("online booking channels: providers, requests, ingest, process"), cli_booking_chan_cmds),
    &mcli_refund_entry,
    &mcli_check_entry,
    &(const struct cli_entry)GROUP(
        "report", NULL, N_("receivables aging, takings, customer statements"), mcli_report_cmds),
    &(const struct cli_entry)GROUP(
        "export", NULL,
        N_("export a ledger/hledger journal, the visits as iCalendar, records as CSV"),
        mcli_export_cmds),
    &cli_agenda_entry,
    &cli_history_entry,
    &(const struct cli_entry)GROUP(
        "projection", NULL, N_("rebuild or check the calendar projection"), cli_projection_cmds),
    &(const struct cli_entry)GROUP("tasks", NULL, N_("list, show and retry background tasks"),
                                   cli_tasks_cmds),
    &(const struct cli_entry)GROUP(
        "lease", NULL, N_("show the leases and locks of the control table"), cli_lease_cmds),
    &(const struct cli_entry)GROUP("channel", NULL, N_("poll the payment channel, show its state"),
                                   cli_channel_cmds),
    &(const struct cli_entry)GROUP("inbox", NULL,
                                   N_("what every provider sent (payment, e-sign, booking): "
                                      "ingest, list, show, retry, ignore"),
                                   cli_inbox_cmds),
    &(const struct cli_entry)GROUP("outbox", NULL,
                                   N_("what the desk sends every provider: list, show, retry"),
                                   cli_outbox_cmds),
    &(const struct cli_entry)GROUP(
        "recon", NULL,
        N_("reconcile a day against the channel's settlement data; decide the differences"),
        cli_recon_cmds),
    &(const struct cli_entry)GROUP(
        "drawer", NULL,
        N_("the cash drawer of a desk: open, show, payout, close (a blind count), list"),
        cli_drawer_cmds),
    &(const struct cli_entry)GROUP(
        "day", NULL, N_("close a shop day, reopen it, print its Z report"), cli_day_cmds),
    &(const struct cli_entry)GROUP(
        "retention", NULL,
        N_("customer data retention: proposals, soft deletes, purges, holds, certificates"),
        cli_retention_cmds),
    &(const struct cli_entry)GROUP(
        "staff", NULL, N_("who may open the books and do what: add, list, show, edit, grant, pin"),
        cli_staff_cmds),
    &(const struct cli_entry)GROUP("approve", NULL,
                                   N_("a manager's approvals: list, show, yes, no, withdraw"),
                                   cli_approve_cmds),
    &cli_serve_entry,
    &cli_backup_entry,
    &cli_restore_entry,
};

/* Names a command had once and no longer answers to: each points to its
 * command now ("jobs" was an alias of "tasks", while "job" is a service
 * order: two commands a letter apart that did different things). */
static const struct {
	const char *name, *now;
} retired[] = {
    {"jobs", "tasks"},
};

static int retired_name(const char *name)
{
	size_t k;

	for (k = 0; k < sizeof retired / sizeof retired[0]; k++)
		if (!strcmp(name, retired[k].name))
			return cli_usage(retired[k].now,
			                 _("'%s' is now called '%s' (background tasks); 'job' is a "
			                   "service order"),
			                 retired[k].name, retired[k].now);
	return -1;
}

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, _("Usage: frontdesk [--db PATH] [--read-only] [--json] [--debug-log FILE] "
	               "[--desk NAME] [--approval ID | --pin-of LOGIN | --ask-approval] "
	               "[COMMAND ...]\n"
	               "       frontdesk --hq URL\n\n"
	               "With no command on a terminal, the desk screen opens; with --hq URL, the "
	               "head office's screen: the chain's reports, read-only, from its "
	               "PostgreSQL database.\n\nCommands:\n"));
	for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(out, "  %-10s %s\n", commands[i]->name, _(commands[i]->help));
	fprintf(out,
	        _("\nThe database is --db PATH, else $FRONTDESK_DB, else "
	          "$XDG_DATA_HOME/frontdesk/frontdesk.db.\n"
	          "Each command takes --help. Exit status: 0 done, 1 refused, 2 bad usage.\n"));
	if (privs_elevated())
		fprintf(out,
		        _("\nThis frontdesk runs setgid: it opens only databases inside %s "
		          "(default %s/frontdesk.db), reads only /etc/frontdesk/config, and keeps "
		          "only TERM, the locale, TZ, COLUMNS, LINES, ESCDELAY, NO_COLOR, "
		          "FRONTDESK_DB and FRONTDESK_DESK of the environment (see 'man "
		          "frontdesk').\n"),
		        config_data_dir(), config_data_dir());
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

/*
 * Where the translations are looked up, first found wins (a setgid
 * frontdesk, privs.h, skips 1 and 2: a catalog holds the format strings
 * it prints, so only the installed ones count):
 *  1. $FRONTDESK_LOCALEDIR (catalogs compiled elsewhere, the screen tests);
 *  2. the build's own catalogs when this program is the uninstalled one
 *     of a build folder: `make` copies po/LANG.gmo to
 *     locale/LANG/LC_MESSAGES/frontdesk.mo beside the binary with the
 *     stamp file locale/FRONTDESK-BUILD, and the folder of /proc/self/exe
 *     is asked for that stamp (so `build/frontdesk` speaks Chinese
 *     before `make install`, and an installed binary next to an unrelated
 *     `locale` file or folder, /usr/bin/locale, is not misled);
 *  3. the installed LOCALEDIR.
 */
static void bind_catalogs(void)
{
	const char *env = getenv("FRONTDESK_LOCALEDIR");
	char exe[4096], stamp[4200];
	ssize_t n;
	char *slash;

	if (privs_elevated()) {
		bindtextdomain(PACKAGE, LOCALEDIR);
	} else if (env && *env) {
		bindtextdomain(PACKAGE, env);
	} else {
		n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		slash = n > 0 ? memrchr(exe, '/', (size_t)n) : NULL;
		if (slash && (size_t)n < sizeof exe - 32) {
			snprintf(slash, sizeof exe - (size_t)(slash - exe), "/locale");
			snprintf(stamp, sizeof stamp, "%s/FRONTDESK-BUILD", exe);
		} else {
			stamp[0] = '\0';
		}
		bindtextdomain(PACKAGE, stamp[0] && access(stamp, R_OK) == 0 ? exe : LOCALEDIR);
	}
	textdomain(PACKAGE);
}

/* The global option argv[*i] (and its value, *i moves past it) into c,
 * *logpath or *version. Returns -1 to read on, else the exit status to
 * end with (--help, or a wrong option: said). */
static int global_option(struct cli *c, int argc, char **argv, int *i, const char **logpath,
                         int *version)
{
	const char *a = argv[*i];

	if (!strcmp(a, "--db") || !strcmp(a, "--debug-log") || !strcmp(a, "--approval") ||
	    !strcmp(a, "--pin-of") || !strcmp(a, "--desk") || !strcmp(a, "--hq")) {
		if (*i + 1 >= argc)
			return cli_usage("", _("option '%s' needs a value"), a);
		if (!strcmp(a, "--db"))
			c->db_path = argv[++*i];
		else if (!strcmp(a, "--hq"))
			c->hq = argv[++*i];
		else if (!strcmp(a, "--desk"))
			c->desk = argv[++*i];
		else if (!strcmp(a, "--pin-of"))
			c->pin_of = argv[++*i];
		else if (!strcmp(a, "--approval")) {
			if (cli_parse_id("", _("the approval's id"), argv[++*i], &c->approval))
				return CLI_USAGE;
		} else
			*logpath = argv[++*i];
	} else if (!strcmp(a, "--ask-approval")) {
		c->ask = 1;
	} else if (!strncmp(a, "--db=", 5)) {
		c->db_path = a + 5;
	} else if (!strncmp(a, "--hq=", 5)) {
		c->hq = a + 5;
	} else if (!strcmp(a, "--read-only")) {
		c->readonly = 1;
	} else if (!strcmp(a, "--json")) {
		c->json = 1;
	} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
		usage(stdout);
		return CLI_OK;
	} else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
		*version = 1;
	} else {
		fprintf(stderr, _("frontdesk: unknown option '%.40s' (see 'frontdesk --help')\n"),
		        a);
		return CLI_USAGE;
	}
	return -1;
}

/* The command argv[0] (by its name or alias), its subcommand or its
 * arguments; "help"; or a retired or unknown name, said. */
static int run_command(struct cli *c, int argc, char **argv)
{
	const struct cli_entry *e = NULL;
	size_t k;
	int rc;

	for (k = 0; k < sizeof commands / sizeof commands[0] && !e; k++)
		if (!strcmp(argv[0], commands[k]->name) ||
		    (commands[k]->alias && !strcmp(argv[0], commands[k]->alias)))
			e = commands[k];
	if (e && e->sub)
		rc = cli_dispatch(c, e, argc - 1, argv + 1);
	else if (e)
		rc = cli_run(c, e, e->name, argc, argv);
	else if (!strcmp(argv[0], "help"))
		usage(stdout), rc = CLI_OK;
	else if ((rc = retired_name(argv[0])) < 0)
		rc = cli_usage("", _("unknown command '%.40s'"), argv[0]);
	return rc;
}

/* frontdesk --hq URL: the head office's screen, on a terminal, once the
 * head office answers (said on stderr when it does not, before the terminal
 * changes). No command and no shop database go with it. */
static int hq_screen(struct cli *c, int has_command)
{
	int rc;

	if (has_command)
		return cli_usage("", "%s",
		                 _("--hq opens the head office's screen; its commands are "
		                   "frontdesk hq ... --pg URL"));
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		usage(stderr);
		return CLI_USAGE;
	}
	if ((rc = hq_url_ok(c->hq)) != 0 || (rc = hq_reports_ready(c->hq)) != 0)
		return cli_refused(rc);
	return c->screen(NULL, c->hq);
}

/* --ask-approval after a refusal: file what staff_require refused as a
 * waiting request, and say how to go on. */
static void ask_approval(struct cli *c)
{
	int64_t id = 0;
	int rc = approval_file(c->db, &id);

	if (rc) {
		if (rc != FD_ENOTFOUND)
			cli_refused(rc);
		return;
	}
	fprintf(stderr,
	        _("frontdesk: asked for approval %lld; once a manager approves it (frontdesk "
	          "approve yes %lld), run the same command again with --approval %lld\n"),
	        (long long)id, (long long)id, (long long)id);
}

/*
 * A setgid frontdesk (privs.h) opens only a database inside the data
 * folder (config_data_dir): --db, FRONTDESK_DB and the default are held to
 * it before anything is opened, so that nothing is made elsewhere. The path
 * vetted, every link in it resolved (a link of the user's could be moved
 * after the check), is put in c->db_path (*owned frees it), which every
 * opener uses. 0, or CLI_REFUSED (said).
 */
static int hold_to_data_dir(struct cli *c, char **owned)
{
	const char *dir = config_data_dir();
	char *given = NULL, *resolved = NULL;

	if (!privs_elevated())
		return 0;
	if (!c->db_path)
		c->db_path = given = db_default_path();
	if (privs_path_inside(c->db_path, dir, &resolved)) {
		free(given);
		c->db_path = *owned = resolved;
		return 0;
	}
	fprintf(stderr,
	        _("frontdesk: the database %1$s is outside the data folder %2$s: this frontdesk "
	          "is installed setgid and opens only databases there\n"),
	        c->db_path, dir);
	free(given);
	return CLI_REFUSED;
}

int cli_main(int argc, char **argv, cli_screen_fn screen)
{
	struct cli c = {0};
	/* a setgid frontdesk's environment has no FRONTDESK_DEBUG_LOG (privs.c) */
	const char *logpath = privs_elevated() ? NULL : getenv("FRONTDESK_DEBUG_LOG");
	char *db_owned = NULL;
	int i, rc, version = 0;

	setlocale(LC_ALL, "");
	bind_catalogs();
	c.screen = screen;
	config_load();
	clock_set_zone(config_get("timezone", NULL));

	for (i = 1; i < argc && argv[i][0] == '-'; i++)
		if ((rc = global_option(&c, argc, argv, &i, &logpath, &version)) >= 0)
			return rc;
	if (version)
		return print_version(&c);
	if (c.hq && c.db_path)
		return cli_usage("", "%s", _("--hq reads no shop's database: leave out --db"));
	if (c.db_path && !*c.db_path)
		return cli_usage("", _("--db needs a path"));
	/* the desk: --desk, else FRONTDESK_DESK (drawer.h) */
	if (!c.desk)
		c.desk = getenv("FRONTDESK_DESK");
	if (c.desk && *c.desk && drawer_set_desk(c.desk) != 0)
		return cli_usage("", "%s", err_msg());
	if ((rc = hold_to_data_dir(&c, &db_owned)) != 0)
		return rc;
	/* the user's own file, with the user's own rights (log_open) */
	if (logpath && *logpath && (rc = log_open(logpath)) != 0) {
		free(db_owned);
		return cli_refused(rc);
	}
	log_debug("start: %d argument(s)", argc);

	if (c.hq) {
		rc = hq_screen(&c, i < argc);
	} else if (i >= argc) {
		/* no command: the screen, on a terminal only */
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			usage(stderr);
			return CLI_USAGE;
		}
		if (!cli_db(&c))
			return CLI_REFUSED;
		rc = screen(c.db, NULL);
	} else {
		rc = run_command(&c, argc - i, argv + i);
		if (rc == CLI_REFUSED && c.ask && c.db)
			ask_approval(&c);
	}
	db_close(c.db);
	config_free();
	log_close();
	free(db_owned);
	return rc;
}
