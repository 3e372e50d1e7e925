/*
 * cli-report.c - `frontdesk check`, `frontdesk report aging|takings|statement` and
 * `frontdesk export journal|ical|csv` (see checkdb.h, report.h, journal.h,
 * export.h, export-ical.h, export-csv.h).
 * Shared helpers: cli-money.h. Called through cli_money (cli-money.c).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "checkdb.h"
#include "cli-money.h"
#include "cli-util.h"
#include "clock.h"
#include "csv.h"
#include "customer.h"
#include "db.h"
#include "err.h"
#include "export-csv.h"
#include "export-ical.h"
#include "export.h"
#include "i18n.h"
#include "invoice.h"
#include "journal.h"
#include "money.h"
#include "payment.h"
#include "privs.h"
#include "refund-route.h"
#include "report.h"
#include "settings.h"
#include "text.h"
#include "xalloc.h"

/* ---------------------------------------------------------------- check */

struct check_out {
	cJSON *arr;
};

static void check_report(const char *code, const char *detail, void *arg)
{
	struct check_out *co = arg;

	if (co->arr) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "code", code);
		cli_json_str(o, "rule", check_describe(code));
		cli_json_str(o, "detail", detail);
		cJSON_AddItemToArray(co->arr, o);
		return;
	}
	printf("%s: ", code);
	cli_puts_safe(detail);
	putchar('\n');
}

static int cmd_check(struct cli *c, const struct cli_args *a)
{
	struct check_out co = {NULL};
	cJSON *o = NULL;
	int n;

	const char *since_s = cli_arg_get(a, "since");
	int64_t since = 0;

	if (since_s && clock_parse_local(since_s, &since) != 0)
		return cli_usage(a->cmd, "%s", err_msg()); /* check_check said it is good */
	if (c->json) {
		o = cJSON_CreateObject();
		co.arr = cJSON_AddArrayToObject(o, "violations");
	}
	n = since_s ? check_desk_since(c->db, since, check_report, &co)
	            : check_desk(c->db, check_report, &co);
	if (n < 0) {
		cJSON_Delete(o);
		return cli_refused(n);
	}
	if (o) {
		cli_json_int(o, "count", n);
		cli_print_json(o);
	} else if (n == 0) {
		printf(_("No problems found.\n"));
	}
	if (n > 0)
		fprintf(stderr, _("frontdesk: check found %d problem(s)\n"), n);
	return n ? CLI_REFUSED : CLI_OK;
}

/* --since DATE: a date the core's clock reads (clock_parse_local), said
 * before the database is opened. */
static int check_check(struct cli *c, const struct cli_args *a)
{
	const char *since_s = cli_arg_get(a, "since");
	int64_t since;

	(void)c;
	if (since_s && clock_parse_local(since_s, &since) != 0)
		return cli_usage(a->cmd, _("--since: %s"), err_msg());
	return 0;
}

/* ---------------------------------------------------------------- reports */

/* One CSV cell: quoted when needed; text that a spreadsheet would take for a
 * formula (= + - @ at the start) gets a leading apostrophe. */
static void csv_cell(const char *s, int text, int last)
{
	const char *p;
	int quote = 0;

	if (!s)
		s = "";
	for (p = s; *p; p++)
		if (*p == ',' || *p == '"' || *p == '\n' || *p == '\r')
			quote = 1;
	if (quote)
		putchar('"');
	if (text && (*s == '=' || *s == '+' || *s == '-' || *s == '@'))
		putchar('\'');
	for (p = s; *p; p++) {
		if (*p == '"')
			putchar('"');
		putchar(*p);
	}
	if (quote)
		putchar('"');
	putchar(last ? '\n' : ',');
}

static void csv_money(int64_t v, const char *code, int last)
{
	char m[MONEY_BUFSZ];

	if (money_format(v, currency_find(code), 0, m, sizeof m))
		snprintf(m, sizeof m, "?");
	csv_cell(m, 0, last);
}

static void csv_int(int64_t v, int last)
{
	char b[32];

	snprintf(b, sizeof b, "%lld", (long long)v);
	csv_cell(b, 0, last);
}

struct report_out {
	struct cli *c;
	int csv;
	cJSON *arr;
	const char *currency;
};

static const char *const bucket_names[AGING_BUCKETS] = {"current", "1-30", "31-60", "61-90",
                                                        "over_90"};

/* Append a blank and text right-aligned in width columns to line (of size
 * bytes, text at `at`): printf's " %12s" for ASCII text such as amounts.
 * Returns the new length; text that does not fit is left out. */
static size_t put_right(char *line, size_t at, size_t size, const char *text, size_t width)
{
	size_t len = strlen(text), pad = len < width ? width - len : 0;

	if (at + 1 + pad + len >= size)
		return at;
	line[at++] = ' ';
	memset(line + at, ' ', pad);
	memcpy(line + at + pad, text, len);
	return at + pad + len;
}

/* Write printf's "%6lld  %-3s" of id and currency at line (at least 32
 * bytes): the start of an aging row. Returns its length. */
static size_t put_id_currency(char *line, int64_t id, const char *currency)
{
	char d[24];
	uint64_t mag = id < 0 ? (uint64_t)0 - (uint64_t)id : (uint64_t)id;
	size_t nd = 0, at = 0, len = strlen(currency);

	do {
		d[nd++] = (char)('0' + mag % 10);
		mag /= 10;
	} while (mag);
	if (id < 0)
		d[nd++] = '-';
	for (; at + nd < 6; at++)
		line[at] = ' ';
	while (nd)
		line[at++] = d[--nd];
	line[at++] = ' ';
	line[at++] = ' ';
	if (len > 3)
		len = 3; /* a currency code is three letters */
	memcpy(line + at, currency, len);
	at += len;
	for (; len < 3; len++)
		line[at++] = ' ';
	return at;
}

static int aging_cb(const struct aging_row *r, void *arg)
{
	struct report_out *o = arg;
	char m[MONEY_BUFSZ];
	int i;

	if (o->arr) {
		cJSON *j = cJSON_CreateObject(), *b;

		cli_json_int(j, "customer_id", r->customer_id);
		cli_json_str(j, "customer_name", r->customer_name);
		cli_json_str(j, "currency", r->currency);
		b = cJSON_AddObjectToObject(j, "buckets");
		for (i = 0; i < AGING_BUCKETS; i++)
			cli_json_int(b, bucket_names[i], r->bucket[i]);
		cli_json_int(j, "owed", r->owed);
		cli_json_int(j, "credit", r->credit);
		cJSON_AddItemToArray(o->arr, j);
	} else if (o->csv) {
		csv_int(r->customer_id, 0);
		csv_cell(r->customer_name, 1, 0);
		csv_cell(r->currency, 0, 0);
		for (i = 0; i < AGING_BUCKETS; i++)
			csv_money(r->bucket[i], r->currency, 0);
		csv_money(r->owed, r->currency, 0);
		csv_money(r->credit, r->currency, 1);
	} else {
		/* one row per customer and currency, possibly a million of them:
		 * put together without printf (a third of the report's time) */
		const struct currency *cur = currency_find(r->currency);
		char line[8 * MONEY_BUFSZ + 32], zero[MONEY_BUFSZ];
		size_t at;

		/* most of a row's figures are zero: formatted once */
		if (money_format(0, cur, 1, zero, sizeof zero))
			snprintf(zero, sizeof zero, "?");

		at = put_id_currency(line, r->customer_id, r->currency);
		for (i = 0; i < AGING_BUCKETS + 2; i++) {
			int64_t v = i < AGING_BUCKETS    ? r->bucket[i]
			            : i == AGING_BUCKETS ? r->owed
			                                 : r->credit;

			if (!v)
				at = put_right(line, at, sizeof line, zero, 12);
			else if (money_format(v, cur, 1, m, sizeof m))
				at = put_right(line, at, sizeof line, "?", 12);
			else
				at = put_right(line, at, sizeof line, m, 12);
		}
		fwrite(line, 1, at, stdout);
		fputs("  ", stdout);
		cli_puts_safe(r->customer_name);
		putchar('\n');
	}
	return 0;
}

/* The day report aging counts on, into *t. */
static int aging_day(struct cli *c, const struct cli_args *a, int64_t *t)
{
	const char *on = cli_arg_get(a, "on");
	int rc;

	*t = clock_now();
	if (cli_arg_flag(a, "csv") && c->json)
		return cli_usage(a->cmd, _("give --json or --csv, not both"));
	if (on && (rc = clock_parse_local(on, t)) != 0)
		return cli_refused(rc);
	return 0;
}

static int aging_check(struct cli *c, const struct cli_args *a)
{
	int64_t t;

	return aging_day(c, a, &t);
}

static int cmd_report_aging(struct cli *c, const struct cli_args *a)
{
	int csv = cli_arg_flag(a, "csv"), rc, i;
	struct report_out o = {c, 0, NULL, NULL};
	int64_t t;
	cJSON *j = NULL;

	if ((rc = aging_day(c, a, &t)) != 0)
		return rc;
	o.csv = csv;
	if (c->json) {
		char d[32];

		j = cJSON_CreateObject();
		cli_json_str(j, "on", mcli_date(t, d));
		o.arr = cJSON_AddArrayToObject(j, "customers");
	} else if (csv) {
		printf("customer_id,customer_name,currency");
		for (i = 0; i < AGING_BUCKETS; i++)
			printf(",%s", bucket_names[i]);
		printf(",owed,credit\n");
	} else {
		printf("%6s  %-3s %12s %12s %12s %12s %12s %12s %12s  %s\n", _("id"), _("cur"),
		       _("current"), "1-30", "31-60", "61-90", _("over 90"), _("owed"), _("credit"),
		       _("customer"));
	}
	rc = report_aging(c->db, t, aging_cb, &o);
	if (j) {
		if (rc)
			cJSON_Delete(j);
		else
			cli_print_json(j);
	}
	return rc ? cli_refused(rc) : CLI_OK;
}

static int takings_cb(const struct takings_row *r, void *arg)
{
	struct report_out *o = arg;
	char a[MONEY_BUFSZ], b[MONEY_BUFSZ], n[MONEY_BUFSZ];

	if (o->arr) {
		cJSON *j = cJSON_CreateObject();

		cli_json_str(j, "day", r->day);
		cli_json_str(j, "method", r->method);
		cli_json_str(j, "currency", r->currency);
		cli_json_int(j, "payments", r->count);
		cli_json_int(j, "received", r->received);
		cli_json_int(j, "refunded", r->refunded);
		cli_json_int(j, "net", r->net);
		cli_json_int(j, "fees", r->fees);
		cli_json_int(j, "net_after_fees", r->net_after_fees);
		cJSON_AddItemToArray(o->arr, j);
	} else if (o->csv) {
		csv_cell(r->day, 0, 0);
		csv_cell(r->method, 0, 0);
		csv_cell(r->currency, 0, 0);
		csv_int(r->count, 0);
		csv_money(r->received, r->currency, 0);
		csv_money(r->refunded, r->currency, 0);
		csv_money(r->net, r->currency, 1);
	} else {
		printf("%s  %-13s %-3s %5lld %12s %12s %12s\n", r->day, r->method, r->currency,
		       (long long)r->count, mcli_money(r->received, r->currency, a),
		       mcli_money(r->refunded, r->currency, b), mcli_money(r->net, r->currency, n));
	}
	return 0;
}

/* The days report takings covers: from a day's start to the end of the
 * last day. */
static int takings_range(struct cli *c, const struct cli_args *a, int64_t *from, int64_t *to)
{
	const char *from_s = cli_arg_get(a, "from"), *to_s = cli_arg_get(a, "to");
	int rc;

	if (cli_arg_flag(a, "csv") && c->json)
		return cli_usage(a->cmd, _("give --json or --csv, not both"));
	*to = clock_now();
	if (to_s && (rc = clock_parse_local(to_s, to)) != 0)
		return cli_refused(rc);
	*to = clock_add_days(clock_day_start(*to), 1); /* the end of the last day */
	*from = clock_add_days(*to, -30);
	if (from_s && (rc = clock_parse_local(from_s, from)) != 0)
		return cli_refused(rc);
	*from = clock_day_start(*from);
	if (*from >= *to) {
		err_set(FD_EINVAL, _("--from must not be after --to"));
		return cli_refused(FD_EINVAL);
	}
	return 0;
}

static int takings_check(struct cli *c, const struct cli_args *a)
{
	int64_t from, to;

	return takings_range(c, a, &from, &to);
}

static int cmd_report_takings(struct cli *c, const struct cli_args *a)
{
	int csv = cli_arg_flag(a, "csv"), rc;
	struct report_out o = {c, 0, NULL, NULL};
	int64_t from, to;
	cJSON *j = NULL;
	char d1[32], d2[32];

	if ((rc = takings_range(c, a, &from, &to)) != 0)
		return rc;
	o.csv = csv;
	mcli_date(from, d1);
	mcli_date(clock_add_days(to, -1), d2);
	if (c->json) {
		j = cJSON_CreateObject();
		cli_json_str(j, "from", d1);
		cli_json_str(j, "to", d2);
		o.arr = cJSON_AddArrayToObject(j, "days");
	} else if (csv) {
		printf("day,method,currency,payments,received,refunded,net\n");
	} else {
		printf(_("Takings from %s to %s:\n"), d1, d2);
		printf("%-10s  %-13s %-3s %5s %12s %12s %12s\n", _("day"), _("method"), _("cur"),
		       _("count"), _("received"), _("refunded"), _("net"));
	}
	rc = report_takings(c->db, from, to, takings_cb, &o);
	if (j) {
		if (rc)
			cJSON_Delete(j);
		else
			cli_print_json(j);
	}
	return rc ? cli_refused(rc) : CLI_OK;
}

static int statement_cb(const struct statement_line *l, void *arg)
{
	struct report_out *o = arg;
	char d[32], a[MONEY_BUFSZ], b[MONEY_BUFSZ];
	const char *cur = o->currency;

	if (o->arr) {
		cJSON *j = cJSON_CreateObject();

		cli_json_time(j, "at", l->at);
		cli_json_str(j, "kind", l->kind);
		cli_json_int(j, "id", l->id);
		cli_json_str(j, "ref", l->ref);
		cli_json_str(j, "target", l->target);
		cli_json_int(j, "amount", l->amount);
		cli_json_int(j, "allocated", l->allocated);
		cli_json_int(j, "balance", l->balance);
		cJSON_AddItemToArray(o->arr, j);
	} else if (o->csv) {
		clock_format_local(l->at, TIME_FMT, d, sizeof d);
		csv_cell(d, 0, 0);
		csv_cell(cur, 0, 0);
		csv_cell(l->kind, 0, 0);
		csv_int(l->id, 0);
		csv_cell(l->ref, 1, 0);
		csv_cell(l->target, 1, 0);
		csv_money(l->amount, cur, 0);
		csv_money(l->allocated, cur, 0);
		csv_money(l->balance, cur, 1);
	} else if (!strcmp(l->kind, "allocation")) {
		printf("%s  %-11s #%-5lld %s -> %s: %s\n", mcli_date(l->at, d), l->kind,
		       (long long)l->id, l->ref ? l->ref : "", l->target ? l->target : "",
		       mcli_money(l->allocated, cur, a));
	} else {
		printf("%s  %-11s #%-5lld ", mcli_date(l->at, d), l->kind, (long long)l->id);
		cli_puts_safe(l->ref ? l->ref : "");
		printf("  %s  %s %s\n", mcli_money(l->amount, cur, a), _("balance"),
		       mcli_money(l->balance, cur, b));
	}
	return 0;
}

/* The customer of report statement, into *id. */
static int statement_customer(struct cli *c, const struct cli_args *a, int64_t *id)
{
	if (cli_arg_flag(a, "csv") && c->json)
		return cli_usage(a->cmd, _("give --json or --csv, not both"));
	return cli_parse_id(a->cmd, "--customer", cli_arg_get(a, "customer"), id);
}

static int statement_check(struct cli *c, const struct cli_args *a)
{
	int64_t id;

	return statement_customer(c, a, &id);
}

static int cmd_report_statement(struct cli *c, const struct cli_args *a)
{
	const char *currency = cli_arg_get(a, "currency");
	int csv = cli_arg_flag(a, "csv"), rc = 0, n = 0, i;
	struct report_out o = {c, 0, NULL, NULL};
	struct statement_totals t;
	struct customer cu;
	char curs[16][4], m[MONEY_BUFSZ];
	cJSON *j = NULL, *arr = NULL;
	int64_t id;

	if ((rc = statement_customer(c, a, &id)) != 0)
		return rc;
	if ((rc = customer_get(c->db, id, &cu)) != 0)
		return cli_refused(rc);
	if (currency) {
		const struct currency *k = currency_find(currency);

		if (!k) {
			customer_free(&cu);
			err_set(FD_EINVAL, _("unknown currency '%.10s'"), currency);
			return cli_refused(FD_EINVAL);
		}
		snprintf(curs[0], 4, "%s", k->code);
		n = 1;
	} else if ((rc = report_currencies(c->db, id, curs, 16, &n)) != 0) {
		customer_free(&cu);
		return cli_refused(rc);
	}
	o.csv = csv;
	if (c->json) {
		j = cJSON_CreateObject();
		cli_json_int(j, "customer_id", id);
		cli_json_str(j, "customer_name", cu.name);
		arr = cJSON_AddArrayToObject(j, "statements");
	} else if (csv) {
		printf("at,currency,kind,id,ref,target,amount,allocated,balance\n");
	} else {
		printf("%s: ", _("Statement of"));
		cli_puts_safe(cu.name);
		printf(" (%lld)\n", (long long)id);
	}
	for (i = 0; i < n && !rc; i++) {
		cJSON *s = NULL;

		o.currency = curs[i];
		if (arr) {
			s = cJSON_CreateObject();
			cli_json_str(s, "currency", curs[i]);
			o.arr = cJSON_AddArrayToObject(s, "lines");
			cJSON_AddItemToArray(arr, s);
		} else if (!csv) {
			printf("\n%s:\n", curs[i]);
		}
		rc = report_statement(c->db, id, curs[i], statement_cb, &o, &t);
		if (rc)
			break;
		if (s) {
			cJSON *tj = cJSON_AddObjectToObject(s, "totals");

			cli_json_int(tj, "invoiced", t.invoiced);
			cli_json_int(tj, "credited", t.credited);
			cli_json_int(tj, "received", t.received);
			cli_json_int(tj, "refunded", t.refunded);
			cli_json_int(tj, "balance", t.balance);
			cli_json_int(tj, "open_invoices", t.open);
			cli_json_int(tj, "credit", t.credit);
		} else if (!csv) {
			printf(_("Invoiced %s, credited %s, received %s, refunded %s.\n"),
			       mcli_money(t.invoiced, curs[i], m),
			       mcli_money(t.credited, curs[i], (char[MONEY_BUFSZ]){0}),
			       mcli_money(t.received, curs[i], (char[MONEY_BUFSZ]){0}),
			       mcli_money(t.refunded, curs[i], (char[MONEY_BUFSZ]){0}));
			printf(
			    _("Owed on open invoices: %s %s; unallocated credit: %s %s; balance: "
			      "%s %s\n"),
			    mcli_money(t.open, curs[i], m), curs[i],
			    mcli_money(t.credit, curs[i], (char[MONEY_BUFSZ]){0}), curs[i],
			    mcli_money(t.balance, curs[i], (char[MONEY_BUFSZ]){0}), curs[i]);
		}
	}
	customer_free(&cu);
	if (j) {
		if (rc)
			cJSON_Delete(j);
		else
			cli_print_json(j);
	}
	return rc ? cli_refused(rc) : CLI_OK;
}

#define CSV_OPT                                                                                    \
	{                                                                                          \
		"csv", CLI_FLAG, N_("print CSV"), NULL, NULL                                       \
	}

const struct cli_entry mcli_report_cmds[] = {
    {"aging", NULL, "[--on DATE] [--csv]", NULL,
     N_("receivables by days past due, and each customer's credit"),
     .opts = {{"on", CLI_VALUE, N_("count days past due on this day (default: today)"), NULL, NULL},
              CSV_OPT},
     .db = CLI_DB_OPEN, .check = aging_check, .run = cmd_report_aging},
    {"takings", NULL, "[--from DATE] [--to DATE] [--csv]", NULL,
     N_("money received and refunded by day and method"),
     .opts = {{"from", CLI_VALUE, N_("first day (default: 30 days before --to)"), NULL, NULL},
              {"to", CLI_VALUE, N_("last day, included (default: today)"), NULL, NULL},
              CSV_OPT},
     .db = CLI_DB_OPEN, .check = takings_check, .run = cmd_report_takings},
    {"statement", NULL, "--customer C [--currency CUR] [--csv]", NULL,
     N_("a customer's invoices, payments, allocations and balance"),
     .opts = {{"customer", CLI_VALUE, N_("whose statement (required)"), NULL, NULL},
              {"currency", CLI_VALUE, N_("only this currency (default: each one used)"), NULL,
               NULL},
              CSV_OPT},
     .db = CLI_DB_OPEN, .check = statement_check, .run = cmd_report_statement},
    {"commissions", NULL, "--from DATE --to DATE [--csv]", NULL,
     N_("each technician's visits, lines and commissions for a pay period, less credits and "
        "refunds"),
     .opts = {{"from", CLI_VALUE, N_("first day of the pay period (required)"), NULL, NULL},
              {"to", CLI_VALUE, N_("last day, included (required)"), NULL, NULL},
              CSV_OPT},
     .db = CLI_DB_OPEN, .check = mcli_commission_check, .run = mcli_commission_run},
    {NULL},
};

/* ---------------------------------------------------------------- export */

static int journal_check(struct cli *c, const struct cli_args *a)
{
	if (c->json)
		return cli_usage(a->cmd, _("the journal is plain text; --json does not apply"));
	return 0;
}

static int cmd_export_journal(struct cli *c, const struct cli_args *a)
{
	const char *output = cli_arg_get(a, "output");
	int rc, fd;
	FILE *f = stdout;

	if (output) {
		/* the user's file, with the user's rights in a setgid frontdesk */
		fd = privs_open_user(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || !(f = fdopen(fd, "w"))) {
			err_set(FD_EIO, _("cannot write %s: %s"), output, strerror(errno));
			if (fd >= 0)
				close(fd);
			return cli_refused(FD_EIO);
		}
	}
	rc = journal_export(c->db, f);
	if (f != stdout && fclose(f) != 0 && !rc)
		rc = err_set(FD_EIO, _("cannot write %s: %s"), output, strerror(errno));
	return rc ? cli_refused(rc) : CLI_OK;
}

/* The end of `export ical` and `export csv`: write with fn to --output (or
 * stdout), then say how many visits (ical) or rows went to the file. */
static int export_run(struct cli *c, const char *cmd, const char *output, int64_t *n,
                      int (*fn)(struct cli *c, FILE *out, int64_t *n, void *arg), void *arg,
                      int ical)
{
	struct export_file ef;
	int rc;

	if ((rc = export_file_open(&ef, output)) != 0)
		return cli_refused(rc);
	rc = export_file_finish(&ef, fn(c, ef.f, n, arg));
	if (rc)
		return cli_refused(rc);
	if (output) {
		char *safe = text_sanitize(output);

		if (ical)
			printf(_("%1$s: %2$lld visit(s) written to %3$s\n"), cmd, (long long)*n,
			       safe);
		else
			printf(_("%1$s: %2$lld row(s) written to %3$s\n"), cmd, (long long)*n,
			       safe);
		free(safe);
	}
	return CLI_OK;
}

static int ical_fn(struct cli *c, FILE *out, int64_t *n, void *arg)
{
	return export_ical(c->db, arg, out, n);
}

static int ical_check(struct cli *c, const struct cli_args *a)
{
	struct export_range r;

	if (c->json)
		return cli_usage(a->cmd,
		                 _("the calendar is an iCalendar file; --json does not apply"));
	if (export_range_parse(cli_arg_get(a, "from"), cli_arg_get(a, "to"), &r) != 0)
		return cli_usage(a->cmd, "%s", err_msg());
	return 0;
}

static int cmd_export_ical(struct cli *c, const struct cli_args *a)
{
	struct export_range r;
	int64_t n = 0;

	if (export_range_parse(cli_arg_get(a, "from"), cli_arg_get(a, "to"), &r) != 0)
		return cli_usage(a->cmd, "%s", err_msg()); /* ical_check said it is good */
	return export_run(c, a->cmd, cli_arg_get(a, "output"), &n, ical_fn, &r, 1);
}

struct csv_args {
	const char *name;
	struct export_range r;
};

static int csv_fn(struct cli *c, FILE *out, int64_t *n, void *arg)
{
	struct csv_args *ca = arg;

	return export_csv(c->db, ca->name, &ca->r, out, n);
}

static int csv_check(struct cli *c, const struct cli_args *a)
{
	struct export_range r;

	if (c->json)
		return cli_usage(a->cmd, _("the export is CSV; --json does not apply"));
	if (!export_csv_known(a->pos[0]))
		return cli_usage(a->cmd, _("say which records to export: one of %s"),
		                 export_csv_names);
	if (export_range_parse(cli_arg_get(a, "from"), cli_arg_get(a, "to"), &r) != 0)
		return cli_usage(a->cmd, "%s", err_msg());
	return 0;
}

static int cmd_export_csv(struct cli *c, const struct cli_args *a)
{
	struct csv_args ca;
	int64_t n = 0;

	if (export_range_parse(cli_arg_get(a, "from"), cli_arg_get(a, "to"), &ca.r) != 0)
		return cli_usage(a->cmd, "%s", err_msg()); /* csv_check said it is good */
	ca.name = a->pos[0];
	return export_run(c, a->cmd, cli_arg_get(a, "output"), &n, csv_fn, &ca, 0);
}

#define OUTPUT_OPT                                                                                 \
	{                                                                                          \
		"output", CLI_VALUE, N_("write to this file (mode 0600) instead of stdout"), NULL, \
		    NULL                                                                           \
	}

const struct cli_entry mcli_export_cmds[] = {
    {"journal", NULL, "[--output FILE]", NULL, N_("the money history as a ledger/hledger journal"),
     .opts = {OUTPUT_OPT}, .db = CLI_DB_OPEN, .check = journal_check, .run = cmd_export_journal},
    {"ical", NULL, "[--from DATE] [--to DATE] [--output FILE]", NULL,
     N_("the visits as an iCalendar file (RFC 5545)"),
     .opts = {{"from", CLI_VALUE, N_("visits from this day (or date and time) on"), NULL, NULL},
              {"to", CLI_VALUE, N_("visits up to the end of this day (or this date and time)"),
               NULL, NULL},
              OUTPUT_OPT},
     .db = CLI_DB_OPEN, .check = ical_check, .run = cmd_export_ical},
    {"csv", NULL, "RECORDS [--from DATE] [--to DATE] [--output FILE]",
     "customers|visits|invoices|payments|allocations [--from DATE] [--to DATE] [--output FILE]",
     N_("records as CSV (RFC 4180) for spreadsheets"),
     .opts = {{"from", CLI_VALUE, N_("records from this day (or date and time) on"), NULL, NULL},
              {"to", CLI_VALUE, N_("records up to the end of this day (or this date and time)"),
               NULL, NULL},
              OUTPUT_OPT},
     .min_pos = 1, .max_pos = 1,
     .missing = N_("say which records to export: one of customers, visits, invoices, payments, "
                   "allocations"),
     .db = CLI_DB_OPEN, .check = csv_check, .run = cmd_export_csv},
    {NULL},
};

const struct cli_entry mcli_check_entry = {
    "check",
    NULL,
    "[--since DATE]",
    NULL,
    N_("verify the whole database and list every violation"),
    .opts = {{"since", CLI_VALUE,
              N_("only the records created or changed since DATE (a nightly run): SQLite's "
                 "quick_check instead of integrity_check, no foreign_key_check"),
              NULL, NULL}},
    .db = CLI_DB_OPEN,
    .check = check_check,
    .run = cmd_check};
