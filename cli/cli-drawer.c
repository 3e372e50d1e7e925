/*
 * cli-drawer.c - `frontdesk drawer open|show|payout|close|list`: a desk's
 * cash drawer (drawer.h). The count is blind: while a session is open,
 * neither `show` nor `list` says what it should hold; `close` takes the
 * count first and only then prints expected, counted and over or short.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-money.h"
#include "cli-util.h"
#include "clock.h"
#include "drawer.h"
#include "err.h"
#include "i18n.h"
#include "money.h"
#include "xalloc.h"

/* The desk a command names: its --desk, else the global one (NULL). */
static const char *desk_of(const struct cli_args *a)
{
	const char *d = cli_arg_get(a, "desk");

	return d && *d ? d : NULL;
}

static int check_desk(struct cli *c, const struct cli_args *a)
{
	const char *d = cli_arg_get(a, "desk");

	(void)c;
	if (d && drawer_desk_check(d))
		return cli_usage(a->cmd, "%s", err_msg());
	return 0;
}

cJSON *cli_drawer_json(const struct drawer *d)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", d->id);
	cli_json_str(o, "desk", d->desk);
	cli_json_str(o, "currency", d->currency);
	cli_json_int(o, "float", d->float_amount);
	cli_json_str(o, "float_detail", d->float_detail);
	cli_json_str(o, "opened_by", d->opened_by);
	cli_json_time(o, "opened_at", d->opened_at);
	cli_json_int(o, "movements", d->moves);
	cli_json_str(o, "status", d->closed ? "closed" : "open");
	if (drawer_figures_shown(d)) {
		/* the figures, once counted (a blind count) */
		cli_json_int(o, "taken", d->taken);
		cli_json_int(o, "refunded", d->refunded);
		cli_json_int(o, "voided", d->voided);
		cli_json_int(o, "paid_out", d->paid_out);
		cli_json_int(o, "expected", d->expected);
		cli_json_int(o, "counted", d->counted);
		cli_json_str(o, "count_detail", d->count_detail);
		cli_json_int(o, "difference", d->difference);
		cli_json_str(o, "reason", d->reason);
		cli_json_str(o, "closed_by", d->closed_by);
		cli_json_time(o, "closed_at", d->closed_at);
	}
	return o;
}

static void money_field(const char *label, int64_t v, const char *cur)
{
	char m[MONEY_BUFSZ], line[MONEY_BUFSZ + 8];

	snprintf(line, sizeof line, "%s %s", mcli_money(v, cur, m), cur);
	cli_field(label, line);
}

static void drawer_text(const struct drawer *d)
{
	char when[32], id[24];

	snprintf(id, sizeof id, "%lld", (long long)d->id);
	cli_field(_("Session"), id);
	cli_field(_("Desk"), d->desk);
	clock_format_local(d->opened_at, "%Y-%m-%d %H:%M", when, sizeof when);
	cli_field(_("Opened"), when);
	cli_field(_("Opened by"), d->opened_by);
	money_field(_("Float"), d->float_amount, d->currency);
	if (d->float_detail)
		cli_field(_("Float counted as"), d->float_detail);
	if (!drawer_figures_shown(d)) {
		cli_field(_("Status"), _("open (what it should hold is shown once it is counted)"));
		return;
	}
	money_field(_("Cash taken"), d->taken, d->currency);
	/* what left the drawer, as the amounts that left it */
	money_field(_("Cash refunded"), -d->refunded, d->currency);
	if (d->voided)
		money_field(_("Voided"), -d->voided, d->currency);
	money_field(_("Paid out"), -d->paid_out, d->currency);
	money_field(_("Expected"), d->expected, d->currency);
	money_field(_("Counted"), d->counted, d->currency);
	if (d->count_detail)
		cli_field(_("Counted as"), d->count_detail);
	if (d->difference > 0)
		money_field(_("Over"), d->difference, d->currency);
	else if (d->difference < 0)
		money_field(_("Short"), -d->difference, d->currency);
	else
		cli_field(_("Difference"), _("none: the count matches"));
	if (d->reason)
		cli_field(_("Reason"), d->reason);
	clock_format_local(d->closed_at, "%Y-%m-%d %H:%M", when, sizeof when);
	cli_field(_("Counted at"), when);
	cli_field(_("Counted by"), d->closed_by);
}

static int print_drawer(struct cli *c, const struct drawer *d)
{
	if (c->json)
		cli_print_json(cli_drawer_json(d));
	else
		drawer_text(d);
	return CLI_OK;
}

/* ------------------------------------------------------------ open */

static int cmd_open(struct cli *c, const struct cli_args *a)
{
	struct drawer d;
	int64_t id;
	int rc;

	rc = drawer_open(c->db, desk_of(a), cli_arg_get(a, "currency"), cli_arg_get(a, "float"),
	                 &id);
	if (rc)
		return cli_refused(rc);
	if ((rc = drawer_get(c->db, id, &d)) != 0)
		return cli_refused(rc);
	if (!c->json)
		printf(_("Drawer of desk %s opened (session %lld).\n"), d.desk, (long long)d.id);
	rc = print_drawer(c, &d);
	drawer_free(&d);
	return rc;
}

/* ------------------------------------------------------------ show */

struct moves_out {
	struct cli *c;
	cJSON *arr;
	const char *cur;
};

static int move_line(const struct drawer_move *m, void *arg)
{
	struct moves_out *o = arg;
	char when[32], amt[MONEY_BUFSZ];

	if (o->arr) {
		cJSON *j = cJSON_CreateObject();

		cli_json_int(j, "id", m->id);
		cli_json_str(j, "kind", m->kind);
		if (m->payment_id)
			cli_json_int(j, "payment_id", m->payment_id);
		if (m->refund_id)
			cli_json_int(j, "refund_id", m->refund_id);
		cli_json_int(j, "amount", m->amount);
		cli_json_str(j, "reason", m->reason);
		cli_json_str(j, "by", m->by);
		cli_json_time(j, "at", m->at);
		cJSON_AddItemToArray(o->arr, j);
		return 0;
	}
	clock_format_local(m->at, "%H:%M", when, sizeof when);
	printf("  %-5s %-7s %12s  ", when, m->kind, mcli_money(m->amount, o->cur, amt));
	if (m->reason)
		cli_puts_safe(m->reason);
	else if (m->customer)
		cli_puts_safe(m->customer);
	if (m->payment_id)
		printf(_(" (payment %lld)"), (long long)m->payment_id);
	else if (m->refund_id)
		printf(_(" (refund %lld)"), (long long)m->refund_id);
	putchar('\n');
	return 0;
}

static int cmd_show(struct cli *c, const struct cli_args *a)
{
	struct drawer d;
	struct moves_out o = {c, NULL, NULL};
	cJSON *j = NULL;
	int64_t id = 0;
	int rc;

	if (a->npos && cli_parse_id(a->cmd, _("the drawer session"), a->pos[0], &id))
		return CLI_USAGE;
	rc = id ? drawer_get(c->db, id, &d) : drawer_current(c->db, desk_of(a), &d);
	if (rc)
		return cli_refused(rc);
	o.cur = d.currency;
	if (c->json) {
		j = cli_drawer_json(&d);
		if (drawer_figures_shown(&d))
			o.arr = cJSON_AddArrayToObject(j, "movement_list");
	} else {
		drawer_text(&d);
		if (drawer_figures_shown(&d) && d.moves)
			printf("\n%s\n", _("Movements:"));
	}
	/* an open drawer's movements would add up to what it should hold */
	rc = drawer_figures_shown(&d) ? drawer_moves(c->db, d.id, move_line, &o) : 0;
	drawer_free(&d);
	if (rc) {
		cJSON_Delete(j);
		return cli_refused(rc);
	}
	if (j)
		cli_print_json(j);
	return CLI_OK;
}

/* ------------------------------------------------------------ payout */

static int cmd_payout(struct cli *c, const struct cli_args *a)
{
	struct drawer d;
	int64_t amount, move;
	char m[MONEY_BUFSZ];
	int rc;

	/* the amount is in the drawer's currency */
	if ((rc = drawer_current(c->db, desk_of(a), &d)) != 0)
		return cli_refused(rc);
	if ((rc = mcli_amount(_("the amount"), a->pos[0], d.currency, &amount)) != 0) {
		drawer_free(&d);
		return rc;
	}
	if ((rc = drawer_payout(c->db, d.desk, amount, cli_arg_get(a, "reason"), &move)) != 0) {
		drawer_free(&d);
		return cli_refused(rc);
	}
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "movement_id", move);
		cli_json_int(o, "drawer_id", d.id);
		cli_json_int(o, "amount", amount);
		cli_json_str(o, "currency", d.currency);
		cli_print_json(o);
	} else {
		printf(_("Paid out %s %s from the drawer of desk %s.\n"),
		       mcli_money(amount, d.currency, m), d.currency, d.desk);
	}
	drawer_free(&d);
	return CLI_OK;
}

/* ------------------------------------------------------------ close */

static int cmd_close(struct cli *c, const struct cli_args *a)
{
	struct drawer d;
	int rc;

	rc = drawer_close(c->db, desk_of(a), cli_arg_id(a, "id"), cli_arg_get(a, "count"),
	                  cli_arg_get(a, "reason"), &d);
	if (rc)
		return cli_refused(rc);
	if (!c->json)
		printf(_("Drawer of desk %s counted and closed.\n"), d.desk);
	rc = print_drawer(c, &d);
	drawer_free(&d);
	return rc;
}

/* ------------------------------------------------------------ list */

static int list_line(const struct drawer *d, void *arg)
{
	struct cli *c = arg;
	char when[32], m[MONEY_BUFSZ];

	if (c->json) {
		cli_list_add(c, cli_drawer_json(d));
		return 0;
	}
	clock_format_local(d->opened_at, "%Y-%m-%d %H:%M", when, sizeof when);
	printf("%6lld  %-12s %-16s %-12s %s ", (long long)d->id, d->desk, when, d->opened_by,
	       d->closed ? _("closed") : _("open  "));
	if (d->closed) {
		if (d->difference > 0)
			printf(_("over %s"), mcli_money(d->difference, d->currency, m));
		else if (d->difference < 0)
			printf(_("short %s"), mcli_money(-d->difference, d->currency, m));
		else
			printf("%s", _("exact"));
	}
	putchar('\n');
	return 0;
}

static int cmd_list(struct cli *c, const struct cli_args *a)
{
	const char *day = cli_arg_get(a, "day");
	char today[16];
	int64_t from = 0, to = 0;
	int open_only = cli_arg_flag(a, "open"), rc;

	if (!open_only) {
		if (!day) {
			clock_format_local(clock_now(), "%Y-%m-%d", today, sizeof today);
			day = today;
		}
		if (clock_parse_local(day, &from) != 0 || strlen(day) != 10)
			return cli_usage(a->cmd, _("bad day '%.40s': give it as YYYY-MM-DD"), day);
		to = clock_add_days(from, 1);
	}
	cli_list_begin(c, "drawers");
	rc = drawer_list(c->db, from, to, open_only, list_line, c);
	return cli_list_end(c, rc);
}

static int check_list(struct cli *c, const struct cli_args *a)
{
	(void)c;
	if (cli_arg_flag(a, "open") && cli_arg_get(a, "day"))
		return cli_usage(a->cmd, _("--open and --day exclude each other"));
	return 0;
}

#define DESK_OPT                                                                                   \
	{                                                                                          \
		"desk", CLI_VALUE,                                                                 \
		    N_("the desk (default: --desk before the command, FRONTDESK_DESK)"), NULL,     \
		    NULL                                                                           \
	}

const struct cli_entry cli_drawer_cmds[] = {
    {"open", NULL, "--float AMOUNT [--desk NAME] [--currency CUR]", NULL,
     N_("open the desk's drawer with its float (a total, or denominations: 20x5,1x10)"),
     .opts = {{"float", CLI_VALUE, N_("the float: 100.00, or 20x4,1x20 (denomination x count)"),
               NULL, N_("--float is required (0 for an empty drawer)")},
              DESK_OPT,
              {"currency", CLI_VALUE, N_("the drawer's currency (default: the shop's)"), NULL,
               NULL}},
     .db = CLI_DB_OPEN, .check = check_desk, .run = cmd_open},
    {"show", NULL, "[ID] [--desk NAME]", NULL,
     N_("a drawer session (default: this desk's open one); its figures once counted"),
     .opts = {DESK_OPT}, .max_pos = 1, .db = CLI_DB_OPEN, .check = check_desk, .run = cmd_show},
    {"payout", NULL, "AMOUNT --reason WHY [--desk NAME]", NULL,
     N_("pay cash out of the drawer for an expense (never touches an invoice)"),
     .opts = {{"reason", CLI_VALUE, N_("what the cash was for"), NULL,
               N_("--reason is required: say what the cash was for")},
              DESK_OPT},
     .min_pos = 1, .max_pos = 1, .missing = N_("the amount is missing"), .nonempty = 1,
     .db = CLI_DB_OPEN, .check = check_desk, .run = cmd_payout},
    {"close", NULL, "--count AMOUNT [--reason WHY] [--desk NAME | --id ID]", NULL,
     N_("count the drawer and close it; then see what was expected and any over or short"),
     .opts = {{"count", CLI_VALUE, N_("what is in the drawer: 245.50, or 20x10,5x8,1x5.50"), NULL,
               N_("--count is required")},
              {"reason", CLI_VALUE, N_("why the count differs (needed when it does)"), NULL, NULL},
              DESK_OPT,
              {"id", CLI_ID, N_("the session to close, instead of the desk's"),
               N_("the drawer session"), NULL}},
     .db = CLI_DB_OPEN, .check = check_desk, .run = cmd_close},
    {"list", NULL, "[--day YYYY-MM-DD | --open]", NULL,
     N_("the drawer sessions of a day (default today), or every open one"),
     .opts = {{"day", CLI_VALUE, N_("the shop day"), NULL, NULL},
              {"open", CLI_FLAG, N_("every open session, whenever opened"), NULL, NULL}},
     .db = CLI_DB_OPEN, .check = check_list, .run = cmd_list},
    {NULL},
};
