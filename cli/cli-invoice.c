/*
 * cli-invoice.c - `frontdesk invoice issue|list|show|void|credit`: invoices and credit
 * notes (see invoice.h).
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
#include "i18n.h"
#include "invoice.h"
#include "journal.h"
#include "money.h"
#include "payment.h"
#include "print.h"
#include "refund-route.h"
#include "report.h"
#include "settings.h"
#include "xalloc.h"

/* ---------------------------------------------------------------- invoices */

static cJSON *invoice_json(const struct invoice *inv)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", inv->id);
	cli_json_str(o, "kind", inv->kind);
	cli_json_str(o, "number", inv->number[0] ? inv->number : NULL);
	cli_json_int(o, "customer_id", inv->customer_id);
	cli_json_str(o, "customer_name", inv->customer_name);
	cli_json_str(o, "currency", inv->currency);
	if (inv->credits_id)
		cli_json_int(o, "credits_id", inv->credits_id);
	else
		cJSON_AddNullToObject(o, "credits_id");
	cli_json_time(o, "issued_at", inv->issued_at);
	cli_json_time(o, "due_at", inv->due_at);
	cli_json_int(o, "total", inv->total);
	cli_json_int(o, "credited", inv->credited);
	cli_json_int(o, "paid", inv->paid);
	cli_json_int(o, "balance", inv->balance);
	cli_json_int(o, "owed", invoice_owed(inv));
	cli_json_str(o, "status", inv->status);
	cJSON_AddBoolToObject(o, "allow_overpay", inv->allow_overpay);
	cli_json_str(o, "note", inv->note);
	return o;
}

cJSON *mcli_alloc_json(const struct allocation *a)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", a->id);
	cli_json_int(o, "payment_id", a->payment_id);
	cli_json_int(o, "invoice_id", a->invoice_id);
	cli_json_str(o, "invoice_number", a->invoice_number);
	cli_json_str(o, "currency", a->currency);
	cli_json_int(o, "amount", a->amount);
	if (a->reverses_id)
		cli_json_int(o, "reverses_id", a->reverses_id);
	else
		cJSON_AddNullToObject(o, "reverses_id");
	if (a->reversed_by)
		cli_json_int(o, "reversed_by", a->reversed_by);
	else
		cJSON_AddNullToObject(o, "reversed_by");
	cJSON_AddBoolToObject(o, "live", !a->reverses_id && !a->reversed_by);
	cli_json_str(o, "reason", a->reason);
	cli_json_time(o, "created_at", a->created_at);
	return o;
}

/* "  #3  100.00 from payment 2" or "  #4  -100.00 reversal of #3: reason" */
static void print_alloc(const struct allocation *a, int by_invoice)
{
	char m[MONEY_BUFSZ], d[32];

	mcli_money(a->reverses_id ? -a->amount : a->amount, a->currency, m);
	printf("  #%-6lld %s %12s  ", (long long)a->id, mcli_date(a->created_at, d), m);
	if (by_invoice)
		printf(_("payment %lld"), (long long)a->payment_id);
	else
		printf("%s", a->invoice_number);
	if (a->reverses_id)
		printf(_("  (reverses #%lld)"), (long long)a->reverses_id);
	else if (a->reversed_by)
		printf(_("  (reversed by #%lld)"), (long long)a->reversed_by);
	if (a->reason) {
		fputs("  ", stdout);
		cli_puts_safe(a->reason);
	}
	putchar('\n');
}

static int line_cb(const struct invoice_line *l, void *arg)
{
	struct mcli_show *s = arg;
	char q[32], p[MONEY_BUFSZ], a[MONEY_BUFSZ];

	if (s->arr) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "id", l->id);
		if (l->line_item_id)
			cli_json_int(o, "line_item_id", l->line_item_id);
		else
			cJSON_AddNullToObject(o, "line_item_id");
		if (l->job_id)
			cli_json_int(o, "job_id", l->job_id);
		else
			cJSON_AddNullToObject(o, "job_id");
		cli_json_str(o, "kind", l->kind);
		cli_json_str(o, "description", l->description);
		qty_format(l->qty_milli, q, sizeof q);
		cli_json_str(o, "qty", q);
		cli_json_int(o, "qty_milli", l->qty_milli);
		cli_json_int(o, "unit_price", l->unit_price);
		cli_json_int(o, "amount", l->amount);
		cJSON_AddItemToArray(s->arr, o);
		return 0;
	}
	qty_format(l->qty_milli, q, sizeof q);
	printf("  %-8s ", l->kind);
	cli_puts_safe(l->description);
	printf("  %s x %s = %s\n", q, mcli_money(l->unit_price, s->currency, p),
	       mcli_money(l->amount, s->currency, a));
	return 0;
}

int mcli_alloc_cb(const struct allocation *a, void *arg)
{
	struct mcli_show *s = arg;

	if (s->arr)
		cJSON_AddItemToArray(s->arr, mcli_alloc_json(a));
	else
		print_alloc(a, s->by_invoice);
	return 0;
}

static int credit_cb(const struct invoice *cn, void *arg)
{
	struct mcli_show *s = arg;
	char m[MONEY_BUFSZ], d[32];

	if (s->arr) {
		cJSON_AddItemToArray(s->arr, invoice_json(cn));
		return 0;
	}
	printf("  %s %s %12s\n", cn->number, mcli_date(cn->issued_at, d),
	       mcli_money(cn->total, cn->currency, m));
	return 0;
}

/* Credit notes that correct invoice id, through the general list. */
struct credits_of {
	int64_t id;
	struct mcli_show *s;
};

static int credits_filter(const struct invoice *inv, void *arg)
{
	struct credits_of *co = arg;

	return inv->credits_id == co->id ? credit_cb(inv, co->s) : 0;
}

static int show_invoice(struct cli *c, int64_t id)
{
	struct invoice inv;
	struct invoice_filter f = {0, NULL, "credit_note"};
	struct mcli_show s = {c, NULL, NULL, 1};
	struct credits_of co;
	char m[MONEY_BUFSZ], d[32];
	int rc = invoice_get(c->db, id, &inv);

	if (rc)
		return cli_refused(rc);
	s.currency = inv.currency;
	f.customer_id = inv.customer_id;
	co.id = inv.id;
	co.s = &s;
	if (c->json) {
		cJSON *o = invoice_json(&inv);

		s.arr = cJSON_AddArrayToObject(o, "lines");
		rc = invoice_lines(c->db, id, line_cb, &s);
		s.arr = cJSON_AddArrayToObject(o, "allocations");
		if (!rc)
			rc = alloc_list(c->db, 0, id, mcli_alloc_cb, &s);
		s.arr = cJSON_AddArrayToObject(o, "credit_notes");
		if (!rc)
			rc = invoice_list(c->db, &f, credits_filter, &co);
		if (rc)
			cJSON_Delete(o);
		else
			cli_print_json(o);
		invoice_free(&inv);
		return rc ? cli_refused(rc) : CLI_OK;
	}
	printf("%s: %s (id %lld)\n", strcmp(inv.kind, "invoice") ? _("Credit note") : _("Invoice"),
	       inv.number, (long long)inv.id);
	printf("%s: ", _("Customer"));
	cli_puts_safe(inv.customer_name);
	printf(" (%lld)\n", (long long)inv.customer_id);
	if (inv.credits_id) {
		struct invoice t;

		if (invoice_get(c->db, inv.credits_id, &t) == 0)
			printf("%s: %s\n", _("Corrects"), t.number);
		invoice_free(&t);
	}
	printf("%s: %s\n", _("Status"), inv.status);
	printf("%s: %s\n", _("Issued"), mcli_date(inv.issued_at, d));
	printf("%s: %s\n", _("Due"), mcli_date(inv.due_at, d));
	cli_field(_("Note"), inv.note);
	printf("%s:\n", _("Lines"));
	rc = invoice_lines(c->db, id, line_cb, &s);
	printf("%s: %s %s\n", _("Total"), mcli_money(inv.total, inv.currency, m), inv.currency);
	if (!strcmp(inv.kind, "invoice")) {
		printf("%s: %s\n", _("Credited"), mcli_money(inv.credited, inv.currency, m));
		printf("%s: %s\n", _("Paid"), mcli_money(inv.paid, inv.currency, m));
		printf("%s: %s\n", _("Balance"), mcli_money(invoice_owed(&inv), inv.currency, m));
		if (inv.allow_overpay)
			printf("%s\n", _("Overpayment allowed."));
		printf("%s:\n", _("Allocations"));
		if (!rc)
			rc = alloc_list(c->db, 0, id, mcli_alloc_cb, &s);
		if (!rc && inv.credited) {
			printf("%s:\n", _("Credit notes"));
			rc = invoice_list(c->db, &f, credits_filter, &co);
		}
	}
	invoice_free(&inv);
	return rc ? cli_refused(rc) : CLI_OK;
}

/* "1,2" -> ids. Bad usage on anything else. */
static int parse_id_list(const char *cmd, const char *what, const char *text, int64_t **ids,
                         size_t *n)
{
	char *copy = xstrdup(text), *tok, *save = NULL;
	int rc = 0;

	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		int64_t id;

		if ((rc = cli_parse_id(cmd, what, tok, &id)) != 0)
			break;
		*ids = xrealloc(*ids, (*n + 1) * sizeof **ids);
		(*ids)[(*n)++] = id;
	}
	if (!rc && *n == 0)
		rc = cli_usage(cmd, _("%s is missing"), what);
	free(copy);
	return rc;
}

/* The invoice the options of invoice issue ask for, into in (its jobs and
 * items allocated: the caller frees in->jobs and in->items). */
static int issue_input(const struct cli_args *a, struct invoice_input *in)
{
	const char *cust = cli_arg_get(a, "customer"), *jobs = cli_arg_get(a, "jobs");
	const char *items = cli_arg_get(a, "items"), *terms = cli_arg_get(a, "terms");
	const char *due = cli_arg_get(a, "due");
	int64_t *job_ids = NULL, v;
	struct invoice_pick *picks = NULL;
	int rc;

	memset(in, 0, sizeof *in);
	in->terms_days = -1;
	if (!jobs && !items)
		return cli_usage(a->cmd, _("give --jobs or --items"));
	if (terms && due)
		return cli_usage(a->cmd, _("give --terms or --due, not both"));
	if (cust && (rc = cli_parse_id(a->cmd, "--customer", cust, &in->customer_id)))
		return rc;
	if (terms) {
		if (!strcmp(terms, "0"))
			in->terms_days = 0;
		else if ((rc = cli_parse_id(a->cmd, "--terms", terms, &v)) != 0)
			return rc;
		else
			in->terms_days = v > 100000 ? 100000 : (long)v;
	}
	rc = 0;
	if (jobs)
		rc = parse_id_list(a->cmd, _("a job id"), jobs, &job_ids, &in->n_jobs);
	if (!rc && items && (rc = invoice_parse_items(items, &picks, &in->n_items)) != 0)
		rc = cli_refused(rc);
	if (!rc && due && (rc = clock_parse_local(due, &in->due_at)) != 0)
		rc = cli_refused(rc);
	in->jobs = job_ids;
	in->items = picks;
	in->allow_overpay = cli_arg_flag(a, "allow-overpay");
	in->note = cli_arg_get(a, "note");
	return rc;
}

static int issue_check(struct cli *c, const struct cli_args *a)
{
	struct invoice_input in;
	int rc = issue_input(a, &in);

	(void)c;
	free((void *)in.jobs);
	free((void *)in.items);
	return rc;
}

static int cmd_invoice_issue(struct cli *c, const struct cli_args *a)
{
	const char *key = cli_arg_get(a, "idempotency-key");
	struct invoice_input in;
	struct idem_result res = {0};
	int rc;

	if ((rc = issue_input(a, &in)) != 0)
		goto out;
	if ((rc = invoice_issue(c->db, &in, key, &res)) != 0) {
		rc = cli_refused(rc);
		goto out;
	}
	mcli_replay(&res, key);
	if (c->json) {
		rc = show_invoice(c, res.id);
	} else {
		struct invoice inv;

		if ((rc = invoice_get(c->db, res.id, &inv)) != 0) {
			rc = cli_refused(rc);
			goto out;
		}
		printf(_("Invoice %s issued (id %lld): %s %s, due %s.\n"), inv.number,
		       (long long)inv.id,
		       mcli_money(inv.total, inv.currency, (char[MONEY_BUFSZ]){0}), inv.currency,
		       mcli_date(inv.due_at, (char[32]){0}));
		invoice_free(&inv);
		rc = CLI_OK;
	}
out:
	idem_result_free(&res);
	free((void *)in.jobs);
	free((void *)in.items);
	return rc;
}

static int list_invoice_cb(const struct invoice *inv, void *arg)
{
	struct mcli_show *s = arg;
	char t[MONEY_BUFSZ], b[MONEY_BUFSZ], d[32], du[32];

	if (s->arr) {
		cJSON_AddItemToArray(s->arr, invoice_json(inv));
		return 0;
	}
	printf("%6lld  %-16s %s  %s  %-14s %12s %12s %s  ", (long long)inv->id, inv->number,
	       mcli_date(inv->issued_at, d), mcli_date(inv->due_at, du), inv->status,
	       mcli_money(inv->total, inv->currency, t),
	       mcli_money(invoice_owed(inv), inv->currency, b), inv->currency);
	cli_puts_safe(inv->customer_name);
	putchar('\n');
	return 0;
}

static int list_check(struct cli *c, const struct cli_args *a)
{
	const char *status = cli_arg_get(a, "status"), *kind = cli_arg_get(a, "kind");

	(void)c;
	if (status && !invoice_status_valid(status))
		return cli_usage(a->cmd, _("unknown status '%.40s'"), status);
	if (kind && strcmp(kind, "invoice") && strcmp(kind, "credit_note"))
		return cli_usage(a->cmd, _("--kind is invoice or credit_note"));
	return 0;
}

static int cmd_invoice_list(struct cli *c, const struct cli_args *a)
{
	const char *status = cli_arg_get(a, "status"), *kind = cli_arg_get(a, "kind");
	struct invoice_filter f = {0, NULL, NULL};
	struct mcli_show s = {c, NULL, NULL, 1};
	int rc;
	cJSON *o = NULL;

	f.customer_id = cli_arg_id(a, "customer");
	f.status = status;
	f.kind = kind;
	if (c->json) {
		o = cJSON_CreateObject();
		s.arr = cJSON_AddArrayToObject(o, "invoices");
	}
	rc = invoice_list(c->db, &f, list_invoice_cb, &s);
	if (o) {
		if (rc)
			cJSON_Delete(o);
		else
			cli_print_json(o);
	}
	return rc ? cli_refused(rc) : CLI_OK;
}

static int cmd_invoice_show(struct cli *c, const struct cli_args *a)
{
	int rc;
	int64_t id;

	if ((rc = mcli_invoice(c, a->pos[0], &id)) != 0)
		return rc;
	return show_invoice(c, id);
}

static int cmd_invoice_void(struct cli *c, const struct cli_args *a)
{
	struct invoice inv;
	int rc;
	int64_t id;

	if ((rc = mcli_invoice(c, a->pos[0], &id)) != 0)
		return rc;
	if ((rc = invoice_void(c->db, id, cli_arg_get(a, "reason"))) != 0)
		return cli_refused(rc);
	if (c->json)
		return show_invoice(c, id);
	if ((rc = invoice_get(c->db, id, &inv)) != 0) /* its number, however it was named */
		return cli_refused(rc);
	printf(_("Invoice %s is void; its line items can be invoiced again.\n"), inv.number);
	invoice_free(&inv);
	return CLI_OK;
}

static int cmd_invoice_credit(struct cli *c, const struct cli_args *a)
{
	const char *key = cli_arg_get(a, "idempotency-key");
	struct idem_result res = {0};
	struct invoice inv;
	char m[MONEY_BUFSZ], number[sizeof inv.number];
	int rc;
	int64_t id, v;

	if ((rc = mcli_invoice(c, a->pos[0], &id)) != 0)
		return rc;
	if ((rc = invoice_get(c->db, id, &inv)) != 0)
		return cli_refused(rc);
	rc = mcli_amount("--amount", cli_arg_get(a, "amount"), inv.currency, &v);
	snprintf(number, sizeof number, "%s", inv.number); /* however it was named */
	invoice_free(&inv);
	if (rc)
		return rc;
	if ((rc = invoice_credit(c->db, id, v, cli_arg_get(a, "reason"), key, &res)) != 0)
		return cli_refused(rc);
	mcli_replay(&res, key);
	if (c->json) {
		rc = show_invoice(c, res.id);
	} else if ((rc = invoice_get(c->db, res.id, &inv)) != 0) {
		rc = cli_refused(rc);
	} else {
		printf(_("Credit note %s issued (id %lld): %s %s off %s.\n"), inv.number,
		       (long long)inv.id, mcli_money(-inv.total, inv.currency, m), inv.currency,
		       number);
		invoice_free(&inv);
	}
	idem_result_free(&res);
	return rc;
}

static int cmd_invoice_print(struct cli *c, const struct cli_args *a)
{
	struct invoice inv;
	char number[sizeof inv.number];
	int rc;
	int64_t id;

	if ((rc = mcli_invoice(c, a->pos[0], &id)) != 0)
		return rc;
	if ((rc = invoice_get(c->db, id, &inv)) != 0)
		return cli_refused(rc);
	snprintf(number, sizeof number, "%s", inv.number); /* however it was named */
	invoice_free(&inv);
	return mcli_print(c, a, PRINT_INVOICE, id, number);
}

#define KEY_OPT                                                                                    \
	{                                                                                          \
		"idempotency-key", CLI_VALUE, N_("do this request at most once"), NULL, NULL       \
	}
/* one invoice (number or id) as the argument */
#define ONE_INVOICE                                                                                \
	.min_pos = 1, .max_pos = 1, .missing = N_("name the invoice (number or id)"),              \
	.db = CLI_DB_OPEN

const struct cli_entry mcli_invoice_cmds[] = {
    {"issue", NULL, "--jobs J,J | --items I,I=QTY",
     "[--jobs J,J] [--items I,I=QTY] [--customer C] [--terms DAYS | --due DATE] "
     "[--allow-overpay] [--note N] [--idempotency-key K]",
     N_("issue an invoice from line items of one customer's jobs"),
     .opts = {{"customer", CLI_VALUE, N_("the customer (checked against the jobs)"), NULL, NULL},
              {"jobs", CLI_VALUE, N_("bill what is left of these jobs: 3 or 3,4"), NULL, NULL},
              {"items", CLI_VALUE,
               N_("bill these line items, or part: 7 or 7,8=1.5 (',' separates the items, '.' "
                  "is the decimal point whatever the locale; items billed whole go first)"),
               NULL, NULL},
              {"terms", CLI_VALUE, N_("days until due (default: invoice_terms_days, 30)"), NULL,
               NULL},
              {"due", CLI_VALUE, N_("due date YYYY-MM-DD instead of terms"), NULL, NULL},
              {"allow-overpay", CLI_FLAG, N_("payments may exceed the total (overpaid)"), NULL,
               NULL},
              {"note", CLI_VALUE, N_("a note printed on the invoice"), NULL, NULL},
              KEY_OPT},
     .db = CLI_DB_OPEN, .check = issue_check, .run = cmd_invoice_issue},
    {"list", NULL, "[--customer C] [--status S]", "[--customer C] [--status S] [--kind K]",
     N_("list invoices, oldest first"),
     .opts = {{"customer", CLI_ID, N_("only this customer's documents"), NULL, NULL},
              {"status", CLI_VALUE,
               N_("issued, partially_paid, paid, overpaid, void, or open (something owed)"), NULL,
               NULL},
              {"kind", CLI_VALUE, N_("invoice or credit_note"), NULL, NULL}},
     .db = CLI_DB_OPEN, .check = list_check, .run = cmd_invoice_list},
    {"show", NULL, "NUMBER|ID", NULL, N_("show an invoice with lines and allocations"), ONE_INVOICE,
     .run = cmd_invoice_show},
    {"void", NULL, "NUMBER|ID --reason R", NULL, N_("void an invoice that has nothing allocated"),
     .opts = {{"reason", CLI_VALUE, N_("why it is void (required)"), NULL,
               N_("--reason is required")}},
     ONE_INVOICE, .run = cmd_invoice_void},
    {"credit", NULL, "NUMBER|ID --amount A --reason R",
     "NUMBER|ID --amount A --reason R [--idempotency-key K]",
     N_("issue a credit note that takes an amount off an invoice"),
     .opts = {{"amount", CLI_VALUE, N_("how much to take off (at most the balance)"), NULL,
               N_("--amount and --reason are required")},
              {"reason", CLI_VALUE, N_("what is corrected (the credit note's line)"), NULL,
               N_("--amount and --reason are required")},
              KEY_OPT},
     ONE_INVOICE, .run = cmd_invoice_credit},
    {"print", NULL, "NUMBER|ID [--format text|pdf] [--width 80|42] [--output FILE]", NULL,
     N_("print an invoice to hand over: text (80 or 42 columns) or an A4 PDF"),
     .opts = {MCLI_PRINT_OPTS}, ONE_INVOICE, .check = mcli_print_check, .run = cmd_invoice_print},
    {NULL},
};
