/*
 * cli-backup.c - `frontdesk backup FILE [--force]` and `frontdesk restore
 * FILE`: parse, call backup.h, print. Called by cli.c.
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

static int cmd_backup(struct cli *c, int argc, char **argv)
{
	static const char syn[] = "FILE [--force]";
	int force = 0, npos, rc;
	struct cli_opt opts[] = {
	    {"force", NULL, &force, N_("replace FILE (and its request log copy) if they exist")},
	    {NULL, NULL, NULL, NULL},
	};
	struct backup_result res;
	char *pos[1], when[32];

	rc = cli_parse(c, "backup", syn, opts, argc, argv, pos, 1, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (npos != 1 || !*pos[0])
		return cli_usage("backup", _("give the file to write the backup to"));
	if (!cli_db(c))
		return CLI_REFUSED;
	if ((rc = backup_take(c->db, pos[0], force ? BACKUP_FORCE : 0, NULL, &res)))
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "backup", res.path);
		cli_json_str(o, "request_log", res.log_path);
		cli_json_time(o, "taken_at", res.taken_at);
		cli_print_json(o);
	} else {
		clock_format_local(res.taken_at, "%Y-%m-%d %H:%M:%S", when, sizeof when);
		printf(_("Backup of %1$s taken at %2$s, checked and written to %3$s.\n"),
		       db_path(c->db), when, res.path);
		if (res.log_path)
			printf(_("The request log was copied to %s.\n"), res.log_path);
	}
	backup_result_free(&res);
	return CLI_OK;
}

static int cmd_restore(struct cli *c, int argc, char **argv)
{
	static const char syn[] = "FILE";
	char *pos[1], *live, *replaced = NULL;
	int npos, rc;

	rc = cli_parse(c, "restore", syn, NULL, argc, argv, pos, 1, &npos);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (npos != 1 || !*pos[0])
		return cli_usage("restore", _("give the backup file to restore"));
	if (c->readonly)
		return cli_usage("restore",
		                 _("a restore writes the database: leave out --read-only"));
	live = c->db_path ? xstrdup(c->db_path) : db_default_path();
	rc = backup_restore(live, pos[0], &replaced);
	if (rc) {
		free(live);
		return cli_refused(rc);
	}
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "database", live);
		cli_json_str(o, "restored_from", pos[0]);
		cli_json_str(o, "replaced", replaced);
		cli_print_json(o);
	} else if (replaced) {
		printf(_("%1$s restored into %2$s and checked; the database it replaced is kept "
		         "as %3$s.\n"),
		       pos[0], live, replaced);
	} else {
		printf(_("%1$s restored into %2$s and checked.\n"), pos[0], live);
	}
	free(replaced);
	free(live);
	return CLI_OK;
}

int cli_backup(struct cli *c, const char *group, int argc, char **argv)
{
	if (!strcmp(group, "backup"))
		return cmd_backup(c, argc + 1, argv - 1);
	if (!strcmp(group, "restore"))
		return cmd_restore(c, argc + 1, argv - 1);
	return cli_usage("", _("unknown command '%.40s'"), group);
}
