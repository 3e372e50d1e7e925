/*
 * cli-util.h - what every command of the command line shares: the command
 * table and the one parser of its options, opening the database, refusals,
 * and printing text or JSON.
 */
#ifndef FD_CLI_UTIL_H
#define FD_CLI_UTIL_H

#include <cjson/cJSON.h>
#include <stdint.h>

struct db;

/* State of one run of the command line. */
struct cli {
	const char *db_path; /* --db, else NULL for the default */
	int json;            /* --json: machine-readable output on stdout */
	int readonly;        /* --read-only */
	struct db *db;       /* opened by cli_db() */
	int (*screen)(struct db *db, const char *hq_url); /* the screen hook (cli.h) */
	const char *hq;                                   /* --hq URL: the head office's screen */
	cJSON *out;         /* JSON document a list command is filling */
	int64_t approval;   /* --approval ID: an approved request to use */
	const char *pin_of; /* --pin-of LOGIN: that person's PIN approves */
	int ask;            /* --ask-approval: file a refusal as a request */
	const char *desk;   /* --desk NAME: the desk whose drawer takes the cash */
};

/*
 * The command table, like tmux's cmd_entry: each command says its name,
 * alias, usage, help, the options it takes, how many positional arguments,
 * whether it reads a positional id, what it checks before the database
 * opens, and which database it needs. cli_run parses the arguments, answers
 * --help, checks the counts, the required options and the ids, calls the
 * check and opens the database, once for every command; the command's run
 * function then sees a struct cli_args. The tables are in cli.c (the top)
 * and in each command file (a group's subcommands).
 */

/* What an option takes. */
enum cli_opt_kind {
	CLI_FLAG = 0, /* "--name": no value */
	CLI_VALUE,    /* "--name VALUE" */
	CLI_ID,       /* "--name ID": a positive id, 0 when absent */
	CLI_ID_NEEDED /* the same, and a usage error ("... is missing") when absent */
};

#define CLI_OPTS_MAX 12 /* options of one command (--json and --help aside) */

/* One option of a command. */
struct cli_option {
	const char *name;     /* without the leading "--"; NULL ends the list */
	int kind;             /* enum cli_opt_kind */
	const char *help;     /* N_() marked */
	const char *what;     /* CLI_ID*: N_() name in a usage error; NULL: "--name" */
	const char *required; /* N_() usage error when the option is absent, or NULL */
};

/* Which database a command needs, opened before its run function. */
enum cli_db_mode {
	CLI_DB_NONE = 0, /* none (or the command opens its own) */
	CLI_DB_OPEN,     /* the existing database (read-only with --read-only) */
	CLI_DB_CREATE    /* created when missing (init's and demo's) */
};

struct cli_args;

/* One command or subcommand. A group (sub != NULL) dispatches argv[1] to
 * its subcommands; a command (run != NULL) is parsed and run. */
struct cli_entry {
	const char *name;
	const char *alias;    /* another name for it, or NULL */
	const char *synopsis; /* short argument synopsis in its group's list */
	const char *usage;    /* argument synopsis of --help; NULL: synopsis */
	const char *help;     /* one line, N_() marked */
	struct cli_option opts[CLI_OPTS_MAX + 1];
	int min_pos, max_pos; /* positional arguments */
	const char *missing;  /* N_() usage error when fewer than min_pos (or an
	                       * empty one, with nonempty) */
	int nonempty;         /* an empty positional counts as missing */
	const char *id;       /* N_() name of pos[0] when it is an id: read into
	                       * args->id, a usage error when missing or bad */
	int db;               /* enum cli_db_mode */
	/* what the command checks before its database opens (values that
	 * cannot be read, options that exclude each other): 0 or an exit
	 * status; NULL for nothing */
	int (*check)(struct cli *c, const struct cli_args *a);
	int (*run)(struct cli *c, const struct cli_args *a);
	const struct cli_entry *sub; /* a group's subcommands (NULL name ends) */
};

/* The parsed arguments a run function gets. */
struct cli_args {
	const struct cli_entry *entry;
	const char *cmd;                 /* "customer add": the name in messages */
	const char *value[CLI_OPTS_MAX]; /* by option: its value, NULL when absent */
	int given[CLI_OPTS_MAX];         /* by option: 1 when given */
	int64_t num[CLI_OPTS_MAX];       /* by option: a CLI_ID* option's id */
	char **pos;                      /* positional arguments */
	int npos;
	int64_t id; /* pos[0] read as entry->id */
};

enum { CLI_OK = 0, CLI_REFUSED = 1, CLI_USAGE = 2 };

/* cli_dispatch - run the subcommand argv[0] of group (a cli_entry with sub);
 * "help"/--help or nothing prints the list. argv[0] is the subcommand. */
int cli_dispatch(struct cli *c, const struct cli_entry *group, int argc, char **argv);

/* cli_run - run command e as cmd (the name in messages): parse argv (argv[0]
 * is the command's name) against e's options (--json and --help are always
 * known; --help prints the usage and returns CLI_OK), read the positional
 * id, check the required options and the positional count, read the ids
 * the options carry, call e->check, open e's database, then call e->run.
 * Returns an exit status: CLI_USAGE (message printed) for an unknown
 * option, a missing value, too many arguments or a failed check. */
int cli_run(struct cli *c, const struct cli_entry *e, const char *cmd, int argc, char **argv);

/* cli_arg_get - the value of option name (NULL when absent). name must be
 * one of the command's options. */
const char *cli_arg_get(const struct cli_args *a, const char *name);

/* cli_arg_flag - 1 when option name was given. */
int cli_arg_flag(const struct cli_args *a, const char *name);

/* cli_arg_id - the id a CLI_ID option was given (0 when absent). */
int64_t cli_arg_id(const struct cli_args *a, const char *name);

/* cli_arg_pos_id - read positional i as an id named what (translated by
 * the caller); a usage error (2) when it is missing or not a positive number. */
int cli_arg_pos_id(const struct cli_args *a, int i, const char *what, int64_t *id);

/* cli_db - the open database (opened on first use, created only by init). */
struct db *cli_db(struct cli *c);

/* cli_refused - print "frontdesk: REASON" from err_msg(); returns 1, or 2
 * if rc says the database could not be opened at all. */
int cli_refused(int rc);

/* cli_usage - print "frontdesk CMD: MESSAGE" and a hint; returns 2. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* cli_parse_id - a positive decimal id, else usage error message (2). */
int cli_parse_id(const char *cmd, const char *what, const char *s, int64_t *id);

/* cli_print_json - print item (pretty, one document) and delete it. */
void cli_print_json(cJSON *item);

/* cli_field - print "label: value" with value sanitised for the terminal;
 * NULL value prints "-". label is translated by the caller. */
void cli_field(const char *label, const char *value);

/* cli_puts_safe - print text sanitised for the terminal (no newline). */
void cli_puts_safe(const char *s);

/* cli_list_begin - start a --json list: c->out becomes an object holding one
 * array named key (nothing happens without --json). */
void cli_list_begin(struct cli *c, const char *key);

/* cli_list_add - append item to the list started by cli_list_begin. */
void cli_list_add(struct cli *c, cJSON *item);

/* cli_list_end - print the list (or drop it when rc says the listing
 * failed) and turn rc into an exit status. */
int cli_list_end(struct cli *c, int rc);

/* cli_json_str - add a string (or null for NULL) to obj. */
void cli_json_str(cJSON *obj, const char *key, const char *s);

/* cli_json_int - add an integer exactly (int64 beyond 2^53 as string). */
void cli_json_int(cJSON *obj, const char *key, int64_t v);

/* cli_json_time - add a UTC ISO 8601 time. */
void cli_json_time(cJSON *obj, const char *key, int64_t t);

/* cli_json_time_opt - cli_json_time, or null when t is 0 (not set: never
 * 1970). */
void cli_json_time_opt(cJSON *obj, const char *key, int64_t t);

/* The command tables, one file each: the groups and the commands that are
 * not in a group (see cli.c for the top of the table). */
extern const struct cli_entry cli_customer_cmds[];
extern const struct cli_entry cli_job_cmds[], cli_visit_cmds[], cli_link_cmds[], cli_item_cmds[];
extern const struct cli_entry cli_book_entry;
extern const struct cli_entry cli_agenda_entry, cli_projection_cmds[], cli_tasks_cmds[],
    cli_lease_cmds[];
extern const struct cli_entry cli_inbox_cmds[], cli_outbox_cmds[], cli_channel_cmds[],
    cli_serve_entry;
extern const struct cli_entry cli_recon_cmds[], cli_day_cmds[];
extern const struct cli_entry cli_backup_entry, cli_restore_entry;
extern const struct cli_entry cli_history_entry;
extern const struct cli_entry cli_service_cmds[], cli_contact_cmds[], cli_condition_cmds[];
extern const struct cli_entry cli_resource_cmds[], cli_availability_entry, cli_holiday_cmds[];
extern const struct cli_entry cli_estimate_cmds[];
extern const struct cli_entry cli_booking_chan_cmds[];
extern const struct cli_entry cli_retention_cmds[];
extern const struct cli_entry cli_drawer_cmds[];
extern const struct cli_entry cli_recurring_cmds[];
extern const struct cli_entry cli_message_cmds[];
extern const struct cli_entry cli_hq_cmds[];
/* cli_drawer_json - a drawer session as JSON, its amounts only once counted
 * (drawer_figures_shown); for `drawer` and `day` (cli-drawer.c). */
struct drawer;
cJSON *cli_drawer_json(const struct drawer *d);
extern const struct cli_entry cli_staff_cmds[], cli_approve_cmds[];

/* cli_read_pin - a PIN from the terminal without echo (prompt shown there),
 * or the first line of standard input when there is no terminal; 0, or -1
 * when nothing was read (cli-staff.c). */
int cli_read_pin(const char *prompt, char *buf, size_t n);

/* cli_provider_set_type / cli_providers_type - `provider-set CODE` and
 * `providers` of an integration type whose providers carry a URL, a role,
 * an adapter and enabled only (esign, booking; cli-chan.c). provider-set
 * prints the JSON answer itself and leaves the text one to the caller
 * (CLI_OK when saved). */
int cli_provider_set_type(struct cli *c, const struct cli_args *a, const char *type);
int cli_providers_type(struct cli *c, const char *type);

/* cli_pipeline_ingest - `frontdesk inbox ingest` and its old spellings
 * (`booking-channel ingest`, `estimate callback`): the payload on standard
 * input relayed for provider code of type (NULL: the registry's), with a's
 * --signature and --secrets, through pipe_ingest; prints what was
 * stored (cli-chan.c). */
int cli_pipeline_ingest(struct cli *c, const struct cli_args *a, const char *type,
                        const char *code);

#endif
