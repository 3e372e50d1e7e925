/*
 * cli-day.c - `frontdesk day close|reopen|show`: the day's close on the
 * command line. `close DAY` closes a shop day (every drawer of it counted;
 * day.close) and prints its Z report, and, when the day had been closed
 * before and reopened, what changed since that close; `reopen DAY --reason
 * R` opens it again; `show [DAY]` prints the Z report (today by default, in
 * shop time) as text of 80 or 42 columns, to a file, or as an A4 PDF. The
 * rules and figures are dayclose.c's, the layout zreport.c's; this file
 * parses and prints.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-util.h"
#include "clock.h"
#include "dayclose.h"
#include "err.h"
#include "i18n.h"
#include "recon.h"
#include "text.h"
#include "xalloc.h"
#include "zreport.h"

/* The day of the command: its positional argument, else today. */
static const char *day_of(const struct cli_args *a, char buf[16])
{
	if (a->npos > 0)
		return a->pos[0];
	clock_format_local(clock_now(), "%Y-%m-%d", buf, 16);
	return buf;
}

/* Before the database opens: a day that is one (the core's reading of a
 * shop day; the message sanitised, as it quotes what was typed). */
static int day_check(struct cli *c, const struct cli_args *a)
{
	int64_t from, to;

	(void)c;
	if (a->npos > 0 && recon_day_window(a->pos[0], &from, &to) != 0) {
		char *why = text_sanitize(err_msg());
		int rc = cli_usage(a->cmd, "%s", why);

		free(why);
		return rc;
	}
	return 0;
}

/* The day, and a width the layout makes (close and show). */
static int width_check(struct cli *c, const struct cli_args *a)
{
	const char *width = cli_arg_get(a, "width");
	int rc = day_check(c, a);

	if (rc)
		return rc;
	if (width && strcmp(width, "80") && strcmp(width, "42"))
		return cli_usage(a->cmd, _("--width is 80 or 42"));
	return 0;
}

/* The day, the width, and the files that are named (show). */
static int show_check(struct cli *c, const struct cli_args *a)
{
	const char *pdf = cli_arg_get(a, "pdf"), *out = cli_arg_get(a, "output");
	int rc = width_check(c, a);

	if (rc)
		return rc;
	if ((pdf && !*pdf) || (out && !*out))
		return cli_usage(a->cmd, _("--pdf and --output need a file name"));
	if (pdf && out)
		return cli_usage(a->cmd, _("give --pdf or --output, not both"));
	return 0;
}

static int width_of(const struct cli_args *a)
{
	const char *w = cli_arg_get(a, "width");

	return w ? atoi(w) : PRINT_WIDE;
}

/* ---------------------------------------------------------------- JSON */

/* The figures of a day as the command line's JSON. */
static cJSON *figures_json(const struct day_figures *f)
{
	cJSON *o = cJSON_CreateObject(), *arr, *j;
	size_t i;

	cli_json_str(o, "day", f->day);
	cli_json_time(o, "from", f->from);
	cli_json_time(o, "to", f->to);
	cJSON_AddBoolToObject(o, "closed", f->closed);
	cli_json_int(o, "closes", f->closes);
	cli_json_int(o, "reopens", f->reopens);
	cli_json_time_opt(o, "last_closed_at", f->closes ? f->closed_at : 0);
	cli_json_str(o, "last_closed_by", f->closes ? f->closed_by : NULL);
	arr = cJSON_AddArrayToObject(o, "takings");
	for (i = 0; i < f->nmethods; i++) {
		const struct day_method *m = &f->methods[i];

		j = cJSON_CreateObject();
		cli_json_str(j, "method", m->method);
		cli_json_str(j, "currency", m->currency);
		cli_json_int(j, "payments", m->count);
		cli_json_int(j, "received", m->received);
		cli_json_int(j, "refunded", m->refunded);
		cli_json_int(j, "net", m->net);
		cJSON_AddItemToArray(arr, j);
	}
	arr = cJSON_AddArrayToObject(o, "voids");
	for (i = 0; i < f->nvoids; i++) {
		const struct day_void *v = &f->voids[i];

		j = cJSON_CreateObject();
		cli_json_str(j, "kind", v->kind);
		cli_json_int(j, "id", v->id);
		cli_json_str(j, "number", v->number[0] ? v->number : NULL);
		cli_json_str(j, "currency", v->currency);
		cli_json_int(j, "amount", v->amount);
		cli_json_str(j, "reason", v->reason);
		cJSON_AddItemToArray(arr, j);
	}
	arr = cJSON_AddArrayToObject(o, "credit_notes");
	for (i = 0; i < f->ncredits; i++) {
		const struct day_credit *cn = &f->credits[i];

		j = cJSON_CreateObject();
		cli_json_int(j, "id", cn->id);
		cli_json_str(j, "number", cn->number);
		cli_json_str(j, "corrects", cn->credits);
		cli_json_str(j, "currency", cn->currency);
		cli_json_int(j, "total", cn->total);
		cJSON_AddItemToArray(arr, j);
	}
	arr = cJSON_AddArrayToObject(o, "drawers");
	for (i = 0; i < f->ndrawers; i++)
		cJSON_AddItemToArray(arr, cli_drawer_json(&f->drawers[i]));
	arr = cJSON_AddArrayToObject(o, "checks");
	for (i = 0; i < f->nchecks; i++) {
		const struct day_check *ck = &f->checks[i];

		j = cJSON_CreateObject();
		cli_json_int(j, "payment", ck->payment_id);
		cli_json_str(j, "customer", ck->customer);
		cli_json_str(j, "reference", ck->reference);
		cli_json_str(j, "currency", ck->currency);
		cli_json_int(j, "amount", ck->amount);
		cJSON_AddItemToArray(arr, j);
	}
	cli_json_int(o, "loose_cash_payments", f->loose_cash_count);
	j = cJSON_AddObjectToObject(o, "card_reconciliation");
	cJSON_AddBoolToObject(j, "run", f->recon);
	cJSON_AddBoolToObject(j, "balanced", f->recon && f->recon_balanced && !f->recon_open);
	cli_json_int(j, "open", f->recon_open);
	return o;
}

static int figures_of(struct cli *c, const char *day, cJSON **out)
{
	struct day_figures f;
	int rc;

	memset(&f, 0, sizeof f);
	if ((rc = day_figures_get(c->db, day, &f)) != 0)
		return rc;
	*out = figures_json(&f);
	day_figures_free(&f);
	return 0;
}

/* ---------------------------------------------------------------- show */

static int cmd_show(struct cli *c, const struct cli_args *a)
{
	const char *pdf = cli_arg_get(a, "pdf"), *out = cli_arg_get(a, "output");
	const char *path = pdf ? pdf : out;
	char buf[16];
	const char *day = day_of(a, buf);
	cJSON *j;
	int rc;

	if (c->json && !path) {
		if ((rc = figures_of(c, day, &j)) != 0)
			return cli_refused(rc);
		cli_print_json(j);
		return CLI_OK;
	}
	if ((rc = zreport_write(c->db, day, pdf ? PRINT_PDF : PRINT_TEXT, width_of(a), path)) != 0)
		return cli_refused(rc);
	if (!path)
		return CLI_OK;
	if (c->json) {
		j = cJSON_CreateObject();
		cli_json_str(j, "day", day);
		cli_json_str(j, "format", pdf ? "pdf" : "text");
		cli_json_str(j, "output", path);
		cli_print_json(j);
	} else {
		printf(_("The Z report of %1$s is written to %2$s.\n"), day, path);
	}
	return CLI_OK;
}

/* ---------------------------------------------------------------- close */

struct last_close {
	char *figures; /* the JSON the last close kept */
};

static int last_close_cb(const struct day_event *e, void *arg)
{
	struct last_close *l = arg;

	if (!strcmp(e->kind, "close") && e->figures) {
		free(l->figures);
		l->figures = xstrdup(e->figures);
	}
	return 0;
}

struct changes {
	struct cli *c;
	cJSON *arr;
	int n;
};

static int change_cb(const char *what, const char *before, const char *after, void *arg)
{
	struct changes *ch = arg;

	ch->n++;
	if (ch->arr) {
		cJSON *j = cJSON_CreateObject();

		cli_json_str(j, "what", what);
		cli_json_str(j, "before", before);
		cli_json_str(j, "after", after);
		cJSON_AddItemToArray(ch->arr, j);
		return 0;
	}
	printf("  ");
	cli_puts_safe(what);
	printf(": ");
	cli_puts_safe(before && *before ? before : "-");
	printf(" -> ");
	cli_puts_safe(after && *after ? after : "-");
	putchar('\n');
	return 0;
}

static int cmd_close(struct cli *c, const struct cli_args *a)
{
	char buf[16], *previous = NULL;
	const char *day = day_of(a, buf);
	struct last_close now = {NULL};
	struct changes ch = {c, NULL, 0};
	cJSON *j = NULL, *fig = NULL;
	int rc;

	if ((rc = day_close(c->db, day, &previous)) != 0)
		return cli_refused(rc);
	/* the close is made: what follows only tells about it */
	if (previous)
		rc = day_events(c->db, day, last_close_cb, &now);
	if (!rc && c->json) {
		if ((rc = figures_of(c, day, &fig)) == 0) {
			j = cJSON_CreateObject();
			cli_json_str(j, "day", day);
			cJSON_AddBoolToObject(j, "closed", 1);
			cJSON_AddBoolToObject(j, "first_close", previous == NULL);
			cJSON_AddItemToObject(j, "figures", fig);
			if (previous)
				ch.arr = cJSON_AddArrayToObject(j, "changes");
		}
	} else if (!rc) {
		rc = zreport_write(c->db, day, PRINT_TEXT, width_of(a), NULL);
	}
	if (!rc && previous && now.figures) {
		if (!c->json)
			printf(_("What changed since the last close of %s:\n"), day);
		rc = day_changes(previous, now.figures, change_cb, &ch);
		if (!rc && !ch.n && !c->json)
			printf("  %s\n", _("nothing"));
	}
	if (j) {
		if (rc)
			cJSON_Delete(j);
		else
			cli_print_json(j);
	}
	free(previous);
	free(now.figures);
	if (rc) {
		char *why = text_sanitize(err_msg());

		fprintf(stderr,
		        _("frontdesk: the day %1$s is closed, but its report cannot be "
		          "shown: %2$s\n"),
		        day, why);
		free(why);
		return CLI_REFUSED;
	}
	return CLI_OK;
}

/* ---------------------------------------------------------------- reopen */

static int cmd_reopen(struct cli *c, const struct cli_args *a)
{
	char buf[16];
	const char *day = day_of(a, buf);
	int rc = day_reopen(c->db, day, cli_arg_get(a, "reason"));

	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *j = cJSON_CreateObject();

		cli_json_str(j, "day", day);
		cJSON_AddBoolToObject(j, "closed", 0);
		cli_json_str(j, "reason", cli_arg_get(a, "reason"));
		cli_print_json(j);
	} else {
		printf(_("The day %s is open again; close it again when it is right.\n"), day);
	}
	return CLI_OK;
}

#define WIDTH_OPT                                                                                  \
	{                                                                                          \
		"width", CLI_VALUE, N_("columns of the Z report: 80 (the default) or 42"), NULL,   \
		    NULL                                                                           \
	}

const struct cli_entry cli_day_cmds[] = {
    {"close", NULL, "DAY [--width 80|42]", NULL,
     N_("close a shop day (its drawers counted) and print its Z report"), .opts = {WIDTH_OPT},
     .min_pos = 1, .max_pos = 1, .missing = N_("name the day to close (YYYY-MM-DD)"),
     .db = CLI_DB_OPEN, .check = width_check, .run = cmd_close},
    {"reopen", NULL, "DAY --reason R", NULL, N_("open a closed day again, saying why (it is kept)"),
     .opts = {{"reason", CLI_VALUE, N_("why the day is reopened (required; kept)"), NULL,
               N_("--reason is required: say why the day is reopened")}},
     .min_pos = 1, .max_pos = 1, .missing = N_("name the day to reopen (YYYY-MM-DD)"),
     .db = CLI_DB_OPEN, .check = day_check, .run = cmd_reopen},
    {"show", NULL, "[DAY] [--width 80|42] [--pdf FILE | --output FILE]", NULL,
     N_("print a day's Z report (default: today)"),
     .opts = {WIDTH_OPT,
              {"pdf", CLI_VALUE, N_("write it as an A4 PDF to FILE (mode 0600)"), NULL, NULL},
              {"output", CLI_VALUE, N_("write the text to FILE (mode 0600) instead of stdout"),
               NULL, NULL}},
     .max_pos = 1, .db = CLI_DB_OPEN, .check = show_check, .run = cmd_show},
    {NULL},
};
