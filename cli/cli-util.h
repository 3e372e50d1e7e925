/*
 * cli-util.h - what every command of the command line shares: options,
 * opening the database, refusals, and printing text or JSON.
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
	cJSON *out;          /* JSON document a list command is filling */
};

/* One command or subcommand: name, handler, argument synopsis, one-line help
 * (N_() marked; translated when shown). */
struct cli_cmd {
	const char *name;
	int (*run)(struct cli *c, int argc, char **argv);
	const char *synopsis;
	const char *help;
};

/* One option of a subcommand: "--name VALUE" (value != NULL) or a flag. */
struct cli_opt {
	const char *name;   /* without the leading "--" */
	const char **value; /* receives the argument, or NULL for a flag */
	int *flag;          /* set to 1 when the flag is given */
	const char *help;   /* N_() marked */
};

enum { CLI_OK = 0, CLI_REFUSED = 1, CLI_USAGE = 2 };

/* cli_dispatch - run the subcommand argv[0] of group from cmds (NULL name
 * ends the table); "help"/--help or nothing prints the list. */
int cli_dispatch(struct cli *c, const char *group, const struct cli_cmd *cmds, int argc,
                 char **argv);

/* cli_parse - parse argv (argv[0] is the subcommand name) against opts.
 * Positional arguments are moved to pos[] (at most max_pos; *npos gets
 * their number). --json and --help are always known; --help prints the
 * usage built from synopsis and opts and returns -1 (caller exits 0).
 * Returns 0, -1 (help shown) or CLI_USAGE (message already printed). */
int cli_parse(struct cli *c, const char *cmd, const char *synopsis, const struct cli_opt *opts,
              int argc, char **argv, char **pos, int max_pos, int *npos);

/* cli_db - the open database (opened on first use, created only by init). */
struct db *cli_db(struct cli *c);

/* cli_refused - print "frontdesk: REASON" from err_msg(); returns 1, or 2
 * if rc says the database could not be opened at all. */
int cli_refused(int rc);

/* cli_usage - print "frontdesk CMD: MESSAGE" and a hint; returns 2. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* cli_parse_id - a positive decimal id, else usage error message (2). */
int cli_parse_id(const char *cmd, const char *what, const char *s, int64_t *id);

/* cli_begin_id - the preamble of every command that takes one id (and
 * options opts, may be NULL): parse argv (--help prints the usage), read
 * the id (what names it in a usage error), open the database. 1 to go on;
 * 0 when the command is over, with its exit status in *status (CLI_OK
 * after --help, CLI_USAGE, CLI_REFUSED). */
int cli_begin_id(struct cli *c, const char *cmd, const char *synopsis, const struct cli_opt *opts,
                 const char *what, int argc, char **argv, int64_t *id, int *status);

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

/* The command groups, one file each (cli-customer.c, cli-work.c). */
int cli_customer(struct cli *c, int argc, char **argv);
int cli_job(struct cli *c, int argc, char **argv);
int cli_appt(struct cli *c, int argc, char **argv);
int cli_link(struct cli *c, int argc, char **argv);
int cli_item(struct cli *c, int argc, char **argv);
/* Money commands (cli-money.c): group is "invoice", "pay", "refund", "check",
 * "report" or "export"; argv[0] is the subcommand (or option). */
int cli_money(struct cli *c, const char *group, int argc, char **argv);
/* Operations (cli-ops.c): group is "agenda", "projection", "jobs" or "lease". */
int cli_ops(struct cli *c, const char *group, int argc, char **argv);
int cli_history(struct cli *c, int argc, char **argv);
/* Payment channel (cli-chan.c): group is "channel" or "inbox". */
int cli_chan(struct cli *c, const char *group, int argc, char **argv);
/* Backups (cli-backup.c): group is "backup" or "restore". */
int cli_backup(struct cli *c, const char *group, int argc, char **argv);

#endif
