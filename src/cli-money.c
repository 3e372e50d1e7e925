/*
 * cli-money.c - `frontdesk invoice|pay|refund|check|report|export ...`.
 */
#include <config.h>

#include "cli-util.h"
#include "i18n.h"

static const struct cli_cmd none[] = { { NULL, NULL, NULL, NULL } };

int cli_money(struct cli *c, const char *group, int argc, char **argv)
{
	return cli_dispatch(c, group, none, argc, argv);
}
