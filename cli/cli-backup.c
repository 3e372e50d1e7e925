/*
 * cli-backup.c - `frontdesk backup FILE [--force]` and `frontdesk restore
 * FILE`: parse, call backup.h, print. Their entries are in cli.c's table.
 *
 * restore never opens the live database through cli_db(): a connection of
 * its own would hold the very lock it must take alone.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backup.h"
#include "cli-util.h"
#include "clock.h"
#include "db.h"
#include "i18n.h"
#include "xalloc.h"

static int cmd_backup(struct cli *c, const struct cli_args *a)
{
	struct backup_result res;
	char when[32];
	int rc;

	if ((rc = backup_take(c->db, a->pos[0], cli_arg_flag(a, "force") ? BACKUP_FORCE : 0, NULL,
	                      &res)))
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "backup", res.path);
		cli_json_str(o, "request_log", res.log_path);
		cli_json_str(o, "signed_documents", res.esign_path);
		cli_json_str(o, "media", res.media_path);
		cli_json_time(o, "taken_at", res.taken_at);
		cli_print_json(o);
	} else {
		clock_format_local(res.taken_at, "%Y-%m-%d %H:%M:%S", when, sizeof when);
		printf(_("Backup of %1$s taken at %2$s, checked and written to %3$s.\n"),
		       db_path(c->db), when, res.path);
		if (res.log_path)
			printf(_("The request log was copied to %s.\n"), res.log_path);
		if (res.esign_path)
			printf(
			    _("The signed estimates' documents were copied to %s and checked.\n"),
			    res.esign_path);
		if (res.media_path)
			printf(_("The condition reports' media were copied to %s and checked.\n"),
			       res.media_path);
	}
	backup_result_free(&res);
	return CLI_OK;
}

static int cmd_restore(struct cli *c, const struct cli_args *a)
{
	const char *from = a->pos[0];
	char *live, *replaced = NULL;
	int rc;

	if (c->readonly)
		return cli_usage(a->cmd, _("a restore writes the database: leave out --read-only"));
	live = c->db_path ? xstrdup(c->db_path) : db_default_path();
	rc = backup_restore(live, from, &replaced);
	if (rc) {
		free(live);
		return cli_refused(rc);
	}
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "database", live);
		cli_json_str(o, "restored_from", from);
		cli_json_str(o, "replaced", replaced);
		cli_print_json(o);
	} else if (replaced) {
		printf(_("%1$s restored into %2$s and checked; the database it replaced is kept "
		         "as %3$s.\n"),
		       from, live, replaced);
	} else {
		printf(_("%1$s restored into %2$s and checked.\n"), from, live);
	}
	free(replaced);
	free(live);
	return CLI_OK;
}

const struct cli_entry cli_backup_entry = {
    "backup",
    NULL,
    "FILE [--force]",
    NULL,
    N_("take a checked backup of the database, its request log and its signed "
       "documents while others keep working"),
    .opts = {{"force", CLI_FLAG,
              N_("replace FILE (and its request log and signed documents copies) if they exist"),
              NULL, NULL}},
    .min_pos = 1,
    .max_pos = 1,
    .missing = N_("give the file to write the backup to"),
    .nonempty = 1,
    .db = CLI_DB_OPEN,
    .run = cmd_backup};

/* restore opens no database: it must take the live one's lock alone */
const struct cli_entry cli_restore_entry = {
    "restore",
    NULL,
    "FILE",
    NULL,
    N_("put a backup and its signed documents back in place of the database (no "
       "session may be open)"),
    .min_pos = 1,
    .max_pos = 1,
    .missing = N_("give the backup file to restore"),
    .nonempty = 1,
    .run = cmd_restore};
