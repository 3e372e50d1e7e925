/*
 * cli-commission.c - `frontdesk report commissions`: each technician's
 * visits, lines, line amounts and commissions for a pay period, with the
 * reductions of credit notes and refunds in the period they happen (see
 * commission.h). Registered in cli-report.c's report group; the options of
 * `item add|edit` that set a commission are in cli-work.c. Its output is
 * also the head office's (cli-hq.c: hq report commissions).
 */
#include "cli-money.h"
#include "cli-util.h"
#include "clock.h"
#include "commission.h"
#include "csv.h"
#include "err.h"
#include "i18n.h"
#include "money.h"
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mcli_comm_row(const struct commission_row *r, void *arg)
{
	struct mcli_comm_out *o = arg;
	char d[32], m1[MONEY_BUFSZ], m2[MONEY_BUFSZ], id[24];

	mcli_date(r->at, d);
	if (o->techs) {
		cJSON *j = cJSON_CreateObject();

		if (!o->cur)
			o->cur = cJSON_CreateArray();
		cli_json_str(j, "kind", r->kind);
		cli_json_str(j, "day", d);
		cli_json_int(j, "item_id", r->item_id);
		if (r->visit_id)
			cli_json_int(j, "visit_id", r->visit_id);
		if (r->invoice_id)
			cli_json_int(j, "invoice_id", r->invoice_id);
		if (r->source_id)
			cli_json_int(j, !strcmp(r->kind, "refund") ? "refund_id" : "credit_note_id",
			             r->source_id);
		cli_json_str(j, "description", r->description);
		cli_json_str(j, "currency", r->currency);
		cli_json_int(j, "line_amount", r->line_amount);
		cli_json_int(j, "commission", r->commission);
		cJSON_AddItemToArray(o->cur, j);
	} else if (o->csv) {
		csv_put(stdout, r->tech_name, CSV_TEXT);
		csv_put(stdout, r->kind, 0);
		csv_put(stdout, d, 0);
		snprintf(id, sizeof id, "%lld", (long long)r->item_id);
		csv_put(stdout, id, 0);
		csv_put(stdout, r->description, CSV_TEXT);
		csv_put(stdout, r->currency, 0);
		csv_put(stdout, money_text(r->line_amount, r->currency, 0, m1), 0);
		csv_put(stdout, money_text(r->commission, r->currency, 0, m2), CSV_LAST);
	} else {
		printf("  %-10s %-6s %6lld %12s %12s  ", d, r->kind, (long long)r->item_id,
		       money_text(r->line_amount, r->currency, 1, m1),
		       money_text(r->commission, r->currency, 1, m2));
		cli_puts_safe(r->description);
		putchar('\n');
	}
	return 0;
}

int mcli_comm_total(const struct commission_total *t, void *arg)
{
	struct mcli_comm_out *o = arg;
	char m1[MONEY_BUFSZ], m2[MONEY_BUFSZ];

	if (o->techs) {
		cJSON *j = cJSON_CreateObject();

		cli_json_int(j, "tech_id", t->tech_id);
		cli_json_str(j, "technician", t->tech_name);
		cli_json_str(j, "currency", t->currency);
		cli_json_int(j, "visits", t->visits);
		cli_json_int(j, "lines", t->lines);
		cli_json_int(j, "line_amount", t->line_amount);
		cli_json_int(j, "commission", t->commission);
		cJSON_AddItemToObject(j, "rows", o->cur ? o->cur : cJSON_CreateArray());
		o->cur = NULL;
		cJSON_AddItemToArray(o->techs, j);
	} else if (!o->csv) {
		printf("  %s: ", _("Total"));
		printf(_("%lld visits, %lld lines, %s %s billed, commission %s %s\n"),
		       (long long)t->visits, (long long)t->lines,
		       money_text(t->line_amount, t->currency, 1, m1), t->currency,
		       money_text(t->commission, t->currency, 1, m2), t->currency);
	}
	return 0;
}

/* the text report prints a technician's name before its first row */
int mcli_comm_text_row(const struct commission_row *r, void *arg)
{
	struct mcli_comm_out *o = arg;

	if (r->tech_id != o->last_tech || strcmp(r->currency, o->last_cur)) {
		o->last_tech = r->tech_id;
		snprintf(o->last_cur, sizeof o->last_cur, "%s", r->currency);
		cli_puts_safe(r->tech_name);
		printf(" (%s)\n", r->currency);
	}
	return mcli_comm_row(r, arg);
}

/* The period: from a day's start to the end of the last day, both given. */
static int comm_range(struct cli *c, const struct cli_args *a, int64_t *from, int64_t *to)
{
	const char *from_s = cli_arg_get(a, "from"), *to_s = cli_arg_get(a, "to");
	int rc;

	if (cli_arg_flag(a, "csv") && c->json)
		return cli_usage(a->cmd, _("give --json or --csv, not both"));
	if (!from_s || !to_s)
		return cli_usage(a->cmd, _("give the pay period: --from DATE --to DATE"));
	if ((rc = clock_parse_local(to_s, to)) != 0 || (rc = clock_parse_local(from_s, from)) != 0)
		return cli_refused(rc);
	*to = clock_add_days(clock_day_start(*to), 1);
	*from = clock_day_start(*from);
	if (*from >= *to) {
		err_set(FD_EINVAL, _("--from must not be after --to"));
		return cli_refused(FD_EINVAL);
	}
	return 0;
}

int mcli_commission_check(struct cli *c, const struct cli_args *a)
{
	int64_t from, to;

	return comm_range(c, a, &from, &to);
}

int mcli_commission_run(struct cli *c, const struct cli_args *a)
{
	struct mcli_comm_out o = {cli_arg_flag(a, "csv"), NULL, NULL, -1, ""};
	int64_t from, to;
	cJSON *j = NULL;
	char d1[32], d2[32];
	int rc;

	if ((rc = comm_range(c, a, &from, &to)) != 0)
		return rc;
	mcli_date(from, d1);
	mcli_date(clock_add_days(to, -1), d2);
	if (c->json) {
		j = cJSON_CreateObject();
		cli_json_str(j, "from", d1);
		cli_json_str(j, "to", d2);
		o.techs = cJSON_AddArrayToObject(j, "technicians");
	} else if (o.csv) {
		printf(
		    "technician,kind,day,item_id,description,currency,line_amount,commission\r\n");
	} else {
		printf(_("Commissions from %s to %s:\n"), d1, d2);
	}
	rc = commission_report(c->db, from, to, j || o.csv ? mcli_comm_row : mcli_comm_text_row,
	                       mcli_comm_total, &o);
	if (o.cur)
		cJSON_Delete(o.cur);
	if (j) {
		if (rc)
			cJSON_Delete(j);
		else
			cli_print_json(j);
	}
	return rc ? cli_refused(rc) : CLI_OK;
}
