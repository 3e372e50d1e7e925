/*
 * cli-work.c - `frontdesk job|appt|link|item ...`.
 */
#include <config.h>

#include "cli-util.h"
#include "i18n.h"

static const struct cli_cmd none[] = { { NULL, NULL, NULL, NULL } };

int cli_job(struct cli *c, int argc, char **argv)
{
	return cli_dispatch(c, "job", none, argc, argv);
}

int cli_appt(struct cli *c, int argc, char **argv)
{
	return cli_dispatch(c, "appt", none, argc, argv);
}

int cli_link(struct cli *c, int argc, char **argv)
{
	return cli_dispatch(c, "link", none, argc, argv);
}

int cli_item(struct cli *c, int argc, char **argv)
{
	return cli_dispatch(c, "item", none, argc, argv);
}
