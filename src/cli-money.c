/*
 * cli-money.c - `frontdesk invoice|pay|refund|check|report|export ...`:
 * invoices and credit notes, payments and their allocations, reversals,
 * refunds, the database check, the reports and the journal export (see
 * invoice.h, payment.h, checkdb.h, report.h, journal.h). Called by cli.c.
 *
 * Amounts are typed ("300", "1,234.50") and shown in the document's
 * currency; JSON carries minor units. An amount, date or quantity that
 * cannot be read is a refusal (exit 1) like any other bad input; a missing
 * or malformed id is bad usage (exit 2). Commands that create money records
 * take --idempotency-key: the same key with the same request prints the
 * first response again (with a note on stderr) and writes nothing. Reports
 * print a table, --json (minor units) or --csv (decimal amounts, text cells
 * guarded against spreadsheet formulas).
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
#include "cli-util.h"
#include "clock.h"
#include "config.h"
#include "csv.h"
#include "customer.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "invoice.h"
#include "journal.h"
#include "money.h"
#include "payment.h"
#include "refund-route.h"
#include "report.h"
#include "xalloc.h"

#define DATE_FMT "%Y-%m-%d"
#define TIME_FMT "%Y-%m-%d %H:%M"
#define MAX_ARGS 64 /* positional allocations per command */

/* ---------------------------------------------------------------- shared */

static const char *fmt_money(int64_t v, const char *code, char buf[MONEY_BUFSZ])
{
	return money_text(v, code, 1, buf);
}

static const char *fmt_date(int64_t t, char buf[32])
{
	clock_format_local(t, DATE_FMT, buf, 32);
	return buf;
}

/* An amount of currency code; a refusal (exit 1) that names what it is. */
static int parse_amount(const char *what, const char *text, const char *code, int64_t *out)
{
	int rc = money_parse(text, currency_find(code), out);
	char *why;

	if (!rc)
		return 0;
	why = xstrdup(err_msg());
	err_set(rc, _("bad %s '%.40s': %s"), what, text, why);
	free(why);
	return cli_refused(rc);
}

/* The invoice named by a number or an id; a refusal when there is none. */
static int find_invoice(struct cli *c, const char *text, int64_t *id)
{
	int rc = invoice_find(c->db, text, id);

	return rc ? cli_refused(rc) : 0;
}

/* Print the note that an idempotent request was answered from its record. */
static void note_replay(const struct idem_result *res, const char *key)
{
	if (res->replayed)
		fprintf(stderr,
		        _("frontdesk: idempotency key '%.60s' was used for this same request "
		          "before; showing its first result (nothing was written)\n"),
		        key);
}

/* Standard prologue of a subcommand: parse, then open the database. */
#define PARSE_OR_RETURN(call)                                                                      \
	do {                                                                                       \
		int prc_ = (call);                                                                 \
		if (prc_)                                                                          \
			return prc_ < 0 ? CLI_OK : prc_;                                           \
	} while (0)

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
	cli_json_str(o, "status", inv->status);
	cJSON_AddBoolToObject(o, "allow_overpay", inv->allow_overpay);
	cli_json_str(o, "note", inv->note);
	return o;
}

static cJSON *alloc_json(const struct allocation *a)
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

	fmt_money(a->reverses_id ? -a->amount : a->amount, a->currency, m);
	printf("  #%-6lld %s %12s  ", (long long)a->id, fmt_date(a->created_at, d), m);
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

struct show_ctx {
	struct cli *c;
	cJSON *arr;
	const char *currency;
	int by_invoice;
};

static int line_cb(const struct invoice_line *l, void *arg)
{
	struct show_ctx *s = arg;
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
	printf("  %s x %s = %s\n", q, fmt_money(l->unit_price, s->currency, p),
	       fmt_money(l->amount, s->currency, a));
	return 0;
}

static int alloc_cb(const struct allocation *a, void *arg)
{
	struct show_ctx *s = arg;

	if (s->arr)
		cJSON_AddItemToArray(s->arr, alloc_json(a));
	else
		print_alloc(a, s->by_invoice);
	return 0;
}

static int credit_cb(const struct invoice *cn, void *arg)
{
	struct show_ctx *s = arg;
	char m[MONEY_BUFSZ], d[32];

	if (s->arr) {
		cJSON_AddItemToArray(s->arr, invoice_json(cn));
		return 0;
	}
	printf("  %s %s %12s\n", cn->number, fmt_date(cn->issued_at, d),
	       fmt_money(cn->total, cn->currency, m));
	return 0;
}

/* Credit notes that correct invoice id, through the general list. */
struct credits_of {
	int64_t id;
	struct show_ctx *s;
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
	struct show_ctx s = {c, NULL, NULL, 1};
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
			rc = alloc_list(c->db, 0, id, alloc_cb, &s);
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
	printf("%s: %s\n", _("Issued"), fmt_date(inv.issued_at, d));
	printf("%s: %s\n", _("Due"), fmt_date(inv.due_at, d));
	cli_field(_("Note"), inv.note);
	printf("%s:\n", _("Lines"));
	rc = invoice_lines(c->db, id, line_cb, &s);
	printf("%s: %s %s\n", _("Total"), fmt_money(inv.total, inv.currency, m), inv.currency);
	if (!strcmp(inv.kind, "invoice")) {
		printf("%s: %s\n", _("Credited"), fmt_money(inv.credited, inv.currency, m));
		printf("%s: %s\n", _("Paid"), fmt_money(inv.paid, inv.currency, m));
		printf("%s: %s\n", _("Balance"), fmt_money(inv.balance, inv.currency, m));
		if (inv.allow_overpay)
			printf("%s\n", _("Overpayment allowed."));
		printf("%s:\n", _("Allocations"));
		if (!rc)
			rc = alloc_list(c->db, 0, id, alloc_cb, &s);
		if (!rc && inv.credited) {
			printf("%s:\n", _("Credit notes"));
			rc = invoice_list(c->db, &f, credits_filter, &co);
		}
	}
	invoice_free(&inv);
	return rc ? cli_refused(rc) : CLI_OK;
}

/* "3,4=1.5" -> picks; "1,2" -> ids. Bad usage on anything else. */
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

static int parse_picks(const char *cmd, const char *text, struct invoice_pick **picks, size_t *n)
{
	char *copy = xstrdup(text), *tok, *save = NULL;
	int rc = 0;

	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		struct invoice_pick p = {0, 0};

		if (eq)
			*eq = '\0';
		if ((rc = cli_parse_id(cmd, _("a line item id"), tok, &p.item_id)) != 0)
			break;
		if (eq && (rc = qty_parse(eq + 1, &p.qty_milli)) != 0) {
			rc = cli_refused(rc);
			break;
		}
		*picks = xrealloc(*picks, (*n + 1) * sizeof **picks);
		(*picks)[(*n)++] = p;
	}
	if (!rc && *n == 0)
		rc = cli_usage(cmd, _("--items is empty"));
	free(copy);
	return rc;
}

static int cmd_invoice_issue(struct cli *c, int argc, char **argv)
{
	const char *cust = NULL, *jobs = NULL, *items = NULL, *terms = NULL, *due = NULL;
	const char *note = NULL, *key = NULL;
	int overpay = 0, npos, rc;
	struct cli_opt opts[] = {
	    {"customer", &cust, NULL, N_("the customer (checked against the jobs)")},
	    {"jobs", &jobs, NULL, N_("bill what is left of these jobs: 3 or 3,4")},
	    {"items", &items, NULL, N_("bill these line items, or part: 7 or 7,8=1.5")},
	    {"terms", &terms, NULL, N_("days until due (default: invoice_terms_days, 30)")},
	    {"due", &due, NULL, N_("due date YYYY-MM-DD instead of terms")},
	    {"allow-overpay", NULL, &overpay, N_("payments may exceed the total (overpaid)")},
	    {"note", &note, NULL, N_("a note printed on the invoice")},
	    {"idempotency-key", &key, NULL, N_("do this request at most once")},
	    {NULL, NULL, NULL, NULL},
	};
	struct invoice_input in = {0};
	int64_t *job_ids = NULL;
	struct invoice_pick *picks = NULL;
	struct idem_result res = {0};
	char *pos[1];
	int64_t v;

	PARSE_OR_RETURN(cli_parse(c, "invoice issue",
	                          "[--jobs J,J] [--items I,I=QTY] [--customer C] [--terms DAYS | "
	                          "--due DATE] [--allow-overpay] [--note N] [--idempotency-key K]",
	                          opts, argc, argv, pos, 0, &npos));
	in.terms_days = -1;
	if (!jobs && !items)
		return cli_usage("invoice issue", _("give --jobs or --items"));
	if (terms && due)
		return cli_usage("invoice issue", _("give --terms or --due, not both"));
	if (cust && (rc = cli_parse_id("invoice issue", "--customer", cust, &in.customer_id)))
		return rc;
	if (terms) {
		if (!strcmp(terms, "0"))
			in.terms_days = 0;
		else if ((rc = cli_parse_id("invoice issue", "--terms", terms, &v)) != 0)
			return rc;
		else
			in.terms_days = v > 100000 ? 100000 : (long)v;
	}
	if (jobs &&
	    (rc = parse_id_list("invoice issue", _("a job id"), jobs, &job_ids, &in.n_jobs)))
		goto out;
	if (items && (rc = parse_picks("invoice issue", items, &picks, &in.n_items)))
		goto out;
	if (due && (rc = clock_parse_local(due, &in.due_at)) != 0) {
		rc = cli_refused(rc);
		goto out;
	}
	in.jobs = job_ids;
	in.items = picks;
	in.allow_overpay = overpay;
	in.note = note;
	if (!cli_db(c)) {
		rc = CLI_REFUSED;
		goto out;
	}
	if ((rc = invoice_issue(c->db, &in, key, &res)) != 0) {
		rc = cli_refused(rc);
		goto out;
	}
	note_replay(&res, key);
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
		       fmt_money(inv.total, inv.currency, (char[MONEY_BUFSZ]){0}), inv.currency,
		       fmt_date(inv.due_at, (char[32]){0}));
		invoice_free(&inv);
		rc = CLI_OK;
	}
out:
	idem_result_free(&res);
	free(job_ids);
	free(picks);
	return rc;
}

static int list_invoice_cb(const struct invoice *inv, void *arg)
{
	struct show_ctx *s = arg;
	char t[MONEY_BUFSZ], b[MONEY_BUFSZ], d[32], du[32];

	if (s->arr) {
		cJSON_AddItemToArray(s->arr, invoice_json(inv));
		return 0;
	}
	printf("%6lld  %-16s %s  %s  %-14s %12s %12s %s  ", (long long)inv->id, inv->number,
	       fmt_date(inv->issued_at, d), fmt_date(inv->due_at, du), inv->status,
	       fmt_money(inv->total, inv->currency, t), fmt_money(inv->balance, inv->currency, b),
	       inv->currency);
	cli_puts_safe(inv->customer_name);
	putchar('\n');
	return 0;
}

static int cmd_invoice_list(struct cli *c, int argc, char **argv)
{
	const char *cust = NULL, *status = NULL, *kind = NULL;
	struct cli_opt opts[] = {
	    {"customer", &cust, NULL, N_("only this customer's documents")},
	    {"status", &status, NULL,
	     N_("issued, partially_paid, paid, overpaid, void, or open (something owed)")},
	    {"kind", &kind, NULL, N_("invoice or credit_note")},
	    {NULL, NULL, NULL, NULL},
	};
	struct invoice_filter f = {0, NULL, NULL};
	struct show_ctx s = {c, NULL, NULL, 1};
	char *pos[1];
	int npos, rc;
	cJSON *o = NULL;

	PARSE_OR_RETURN(cli_parse(c, "invoice list", "[--customer C] [--status S] [--kind K]", opts,
	                          argc, argv, pos, 0, &npos));
	if (cust && (rc = cli_parse_id("invoice list", "--customer", cust, &f.customer_id)))
		return rc;
	if (status && !invoice_status_valid(status))
		return cli_usage("invoice list", _("unknown status '%.40s'"), status);
	if (kind && strcmp(kind, "invoice") && strcmp(kind, "credit_note"))
		return cli_usage("invoice list", _("--kind is invoice or credit_note"));
	f.status = status;
	f.kind = kind;
	if (!cli_db(c))
		return CLI_REFUSED;
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

/* Commands that take one invoice (number or id) as their argument. */
static int one_invoice(struct cli *c, const char *cmd, int npos, char **pos, int64_t *id)
{
	if (npos < 1)
		return cli_usage(cmd, _("name the invoice (number or id)"));
	if (!cli_db(c))
		return CLI_REFUSED;
	return find_invoice(c, pos[0], id);
}

static int cmd_invoice_show(struct cli *c, int argc, char **argv)
{
	char *pos[1];
	int npos, rc;
	int64_t id;

	PARSE_OR_RETURN(cli_parse(c, "invoice show", "NUMBER|ID", NULL, argc, argv, pos, 1, &npos));
	if ((rc = one_invoice(c, "invoice show", npos, pos, &id)) != 0)
		return rc;
	return show_invoice(c, id);
}

static int cmd_invoice_void(struct cli *c, int argc, char **argv)
{
	const char *reason = NULL;
	struct cli_opt opts[] = {
	    {"reason", &reason, NULL, N_("why it is void (required)")},
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[1];
	int npos, rc;
	int64_t id;

	PARSE_OR_RETURN(
	    cli_parse(c, "invoice void", "NUMBER|ID --reason R", opts, argc, argv, pos, 1, &npos));
	if (!reason)
		return cli_usage("invoice void", _("--reason is required"));
	if ((rc = one_invoice(c, "invoice void", npos, pos, &id)) != 0)
		return rc;
	if ((rc = invoice_void(c->db, id, reason)) != 0)
		return cli_refused(rc);
	if (c->json)
		return show_invoice(c, id);
	printf(_("Invoice %s is void; its line items can be invoiced again.\n"), pos[0]);
	return CLI_OK;
}

static int cmd_invoice_credit(struct cli *c, int argc, char **argv)
{
	const char *amount = NULL, *reason = NULL, *key = NULL;
	struct cli_opt opts[] = {
	    {"amount", &amount, NULL, N_("how much to take off (at most the balance)")},
	    {"reason", &reason, NULL, N_("what is corrected (the credit note's line)")},
	    {"idempotency-key", &key, NULL, N_("do this request at most once")},
	    {NULL, NULL, NULL, NULL},
	};
	struct idem_result res = {0};
	struct invoice inv;
	char *pos[1], m[MONEY_BUFSZ];
	int npos, rc;
	int64_t id, v;

	PARSE_OR_RETURN(cli_parse(c, "invoice credit",
	                          "NUMBER|ID --amount A --reason R [--idempotency-key K]", opts,
	                          argc, argv, pos, 1, &npos));
	if (!amount || !reason)
		return cli_usage("invoice credit", _("--amount and --reason are required"));
	if ((rc = one_invoice(c, "invoice credit", npos, pos, &id)) != 0)
		return rc;
	if ((rc = invoice_get(c->db, id, &inv)) != 0)
		return cli_refused(rc);
	rc = parse_amount("--amount", amount, inv.currency, &v);
	invoice_free(&inv);
	if (rc)
		return rc;
	if ((rc = invoice_credit(c->db, id, v, reason, key, &res)) != 0)
		return cli_refused(rc);
	note_replay(&res, key);
	if (c->json) {
		rc = show_invoice(c, res.id);
	} else if ((rc = invoice_get(c->db, res.id, &inv)) != 0) {
		rc = cli_refused(rc);
	} else {
		printf(_("Credit note %s issued (id %lld): %s %s off %s.\n"), inv.number,
		       (long long)inv.id, fmt_money(-inv.total, inv.currency, m), inv.currency,
		       pos[0]);
		invoice_free(&inv);
	}
	idem_result_free(&res);
	return rc;
}

static const struct cli_cmd invoice_cmds[] = {
    {"issue", cmd_invoice_issue, "--jobs J,J | --items I,I=QTY",
     N_("issue an invoice from line items of one customer's jobs")},
    {"list", cmd_invoice_list, "[--customer C] [--status S]", N_("list invoices, oldest first")},
    {"show", cmd_invoice_show, "NUMBER|ID", N_("show an invoice with lines and allocations")},
    {"void", cmd_invoice_void, "NUMBER|ID --reason R",
     N_("void an invoice that has nothing allocated")},
    {"credit", cmd_invoice_credit, "NUMBER|ID --amount A --reason R",
     N_("issue a credit note that takes an amount off an invoice")},
    {NULL, NULL, NULL, NULL},
};

/* ---------------------------------------------------------------- payments */

static cJSON *payment_json(const struct payment *p)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", p->id);
	cli_json_int(o, "customer_id", p->customer_id);
	cli_json_str(o, "customer_name", p->customer_name);
	cli_json_str(o, "method", p->method);
	cli_json_str(o, "reference", p->reference);
	cli_json_time(o, "received_at", p->received_at);
	cli_json_str(o, "currency", p->currency);
	cli_json_int(o, "amount", p->amount);
	cli_json_int(o, "allocated", p->allocated);
	cli_json_int(o, "refunded", p->refunded);
	cli_json_int(o, "unallocated", p->unallocated);
	cli_json_str(o, "status", p->status);
	cli_json_str(o, "note", p->note);
	return o;
}

static int refund_cb(const struct refund *r, void *arg)
{
	cJSON *arr = arg;
	char m[MONEY_BUFSZ], d[32];

	if (arr) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "id", r->id);
		cli_json_int(o, "payment_id", r->payment_id);
		cli_json_str(o, "currency", r->currency);
		cli_json_int(o, "amount", r->amount);
		cli_json_str(o, "method", r->method);
		cli_json_str(o, "reference", r->reference);
		cli_json_str(o, "status", r->status);
		cli_json_str(o, "reason", r->reason);
		cli_json_time(o, "refunded_at", r->refunded_at);
		cJSON_AddItemToArray(arr, o);
		return 0;
	}
	printf("  #%-6lld %s %12s  %s  %s  ", (long long)r->id, fmt_date(r->refunded_at, d),
	       fmt_money(r->amount, r->currency, m), r->method, r->status);
	cli_puts_safe(r->reason);
	putchar('\n');
	return 0;
}

static int show_payment(struct cli *c, int64_t id)
{
	struct payment p;
	struct show_ctx s = {c, NULL, NULL, 0};
	char m[MONEY_BUFSZ], d[32];
	int rc = payment_get(c->db, id, &p);

	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = payment_json(&p);

		s.arr = cJSON_AddArrayToObject(o, "allocations");
		rc = alloc_list(c->db, id, 0, alloc_cb, &s);
		if (!rc)
			rc =
			    refund_list(c->db, id, refund_cb, cJSON_AddArrayToObject(o, "refunds"));
		if (rc)
			cJSON_Delete(o);
		else
			cli_print_json(o);
		payment_free(&p);
		return rc ? cli_refused(rc) : CLI_OK;
	}
	printf("%s: %lld\n", _("Payment"), (long long)p.id);
	printf("%s: ", _("Customer"));
	cli_puts_safe(p.customer_name);
	printf(" (%lld)\n", (long long)p.customer_id);
	printf("%s: %s %s\n", _("Amount"), fmt_money(p.amount, p.currency, m), p.currency);
	printf("%s: %s\n", _("Method"), p.method);
	cli_field(_("Reference"), p.reference);
	clock_format_local(p.received_at, TIME_FMT, d, sizeof d);
	printf("%s: %s\n", _("Received"), d);
	printf("%s: %s\n", _("Status"), p.status);
	cli_field(_("Note"), p.note);
	printf("%s: %s\n", _("Allocated"), fmt_money(p.allocated, p.currency, m));
	printf("%s: %s\n", _("Refunded"), fmt_money(p.refunded, p.currency, m));
	printf("%s: %s\n", _("Unallocated (customer's credit)"),
	       fmt_money(p.unallocated, p.currency, m));
	printf("%s:\n", _("Allocations"));
	rc = alloc_list(c->db, id, 0, alloc_cb, &s);
	if (!rc && p.refunded) {
		printf("%s:\n", _("Refunds"));
		rc = refund_list(c->db, id, refund_cb, NULL);
	}
	payment_free(&p);
	return rc ? cli_refused(rc) : CLI_OK;
}

/* Read the positional "INVOICE=AMOUNT" allocations in currency code. */
static int parse_allocs(struct cli *c, int npos, char **pos, const char *code,
                        struct alloc_input *out)
{
	int i, rc;

	for (i = 0; i < npos; i++) {
		char *eq = strchr(pos[i], '=');

		if (!eq || eq == pos[i] || !eq[1]) {
			err_set(FD_EINVAL, _("an allocation is INVOICE=AMOUNT, not '%.40s'"),
			        pos[i]);
			return cli_refused(FD_EINVAL);
		}
		*eq = '\0';
		rc = find_invoice(c, pos[i], &out[i].invoice_id);
		if (!rc)
			rc = parse_amount(_("allocation amount"), eq + 1, code, &out[i].amount);
		*eq = '=';
		if (rc)
			return rc;
	}
	return 0;
}

/* Print (or add to arr) the proposal of an automatic allocation. */
static int show_proposal(struct cli *c, const struct alloc_input *prop, size_t n, int64_t amount,
                         const char *code, cJSON *arr)
{
	char m[MONEY_BUFSZ], b[MONEY_BUFSZ], d[32];
	int64_t left = amount;
	size_t i;
	int rc = 0;

	if (!arr)
		printf(_("Proposed allocation of %s %s (oldest due first):\n"),
		       fmt_money(amount, code, m), code);
	for (i = 0; i < n && !rc; i++) {
		struct invoice inv;

		if ((rc = invoice_get(c->db, prop[i].invoice_id, &inv)) != 0)
			break;
		left -= prop[i].amount;
		if (arr) {
			cJSON *o = cJSON_CreateObject();

			cli_json_int(o, "invoice_id", inv.id);
			cli_json_str(o, "invoice_number", inv.number);
			cli_json_time(o, "due_at", inv.due_at);
			cli_json_int(o, "balance", inv.balance);
			cli_json_int(o, "amount", prop[i].amount);
			cJSON_AddItemToArray(arr, o);
		} else {
			printf(_("  %s due %s: %s of %s owed\n"), inv.number,
			       fmt_date(inv.due_at, d), fmt_money(prop[i].amount, code, m),
			       fmt_money(inv.balance, code, b));
		}
		invoice_free(&inv);
	}
	if (!rc && !arr) {
		if (n == 0)
			printf(_("  (no open invoice in %s)\n"), code);
		printf(_("Left as the customer's credit: %s %s\n"), fmt_money(left, code, m), code);
	}
	return rc;
}

/* What a posting command prints: the payment and the allocations it made
 * (from the response ids, which stay the same on a replay). */
static int print_posted(struct cli *c, const struct idem_result *res, int recorded)
{
	struct payment p;
	struct allocation a;
	char m[MONEY_BUFSZ];
	int64_t sum = 0;
	cJSON *o = NULL, *arr = NULL;
	size_t i;
	int rc;

	if ((rc = payment_get(c->db, res->id, &p)) != 0)
		return cli_refused(rc);
	if (c->json) {
		o = cJSON_CreateObject();
		cli_json_int(o, "payment_id", p.id);
		cli_json_int(o, "customer_id", p.customer_id);
		cli_json_str(o, "currency", p.currency);
		cli_json_int(o, "amount", p.amount);
		arr = cJSON_AddArrayToObject(o, "allocations");
	} else if (recorded) {
		printf(_("Payment %lld recorded: %s %s by %s.\n"), (long long)p.id,
		       fmt_money(p.amount, p.currency, m), p.currency, p.method);
	} else {
		printf(_("Payment %lld allocated:\n"), (long long)p.id);
	}
	for (i = 0; i < res->n && !rc; i++) {
		if ((rc = alloc_get(c->db, res->ids[i], &a)) != 0)
			break;
		sum += a.amount;
		if (arr)
			cJSON_AddItemToArray(arr, alloc_json(&a));
		else
			printf(_("  allocation %lld: %s to %s\n"), (long long)a.id,
			       fmt_money(a.amount, a.currency, m), a.invoice_number);
		alloc_free(&a);
	}
	if (!rc && o) {
		if (recorded)
			cli_json_int(o, "unallocated", p.amount - sum);
		cJSON_AddBoolToObject(o, "replayed", res->replayed);
		cli_print_json(o);
		o = NULL;
	} else if (!rc && recorded) {
		printf(_("Left unallocated (the customer's credit): %s %s\n"),
		       fmt_money(p.amount - sum, p.currency, m), p.currency);
	}
	cJSON_Delete(o);
	payment_free(&p);
	return rc ? cli_refused(rc) : CLI_OK;
}

static int cmd_pay_record(struct cli *c, int argc, char **argv)
{
	const char *cust = NULL, *amount = NULL, *method = NULL, *currency = NULL, *ref = NULL;
	const char *received = NULL, *note = NULL, *key = NULL;
	int autoalloc = 0, yes = 0, npos, rc;
	struct cli_opt opts[] = {
	    {"customer", &cust, NULL, N_("who paid (required)")},
	    {"amount", &amount, NULL, N_("the whole amount received (required)")},
	    {"method", &method, NULL, N_("cash, check, card, bank_transfer or other (required)")},
	    {"currency", &currency, NULL, N_("ISO 4217 code (default: config, else USD)")},
	    {"reference", &ref, NULL, N_("check number, transfer or channel reference")},
	    {"received", &received, NULL, N_("when it was received (default: now)")},
	    {"note", &note, NULL, N_("a note for staff")},
	    {"auto", NULL, &autoalloc,
	     N_("propose allocations to open invoices, oldest due first")},
	    {"yes", NULL, &yes, N_("with --auto: post the proposal")},
	    {"idempotency-key", &key, NULL, N_("do this request at most once")},
	    {NULL, NULL, NULL, NULL},
	};
	struct payment_input in = {0};
	struct alloc_input allocs[MAX_ARGS];
	struct idem_result res = {0};
	const struct currency *cur;
	char *pos[MAX_ARGS];

	PARSE_OR_RETURN(
	    cli_parse(c, "pay record",
	              "--customer C --amount A --method M [--reference R] [INVOICE=AMOUNT"
	              " ...] [--auto [--yes]] [--idempotency-key K]",
	              opts, argc, argv, pos, MAX_ARGS, &npos));
	if (!cust || !amount || !method)
		return cli_usage("pay record", _("--customer, --amount and --method are required"));
	if (autoalloc && npos)
		return cli_usage("pay record",
		                 _("give INVOICE=AMOUNT allocations or --auto, not both"));
	if (yes && !autoalloc)
		return cli_usage("pay record", _("--yes goes with --auto"));
	if ((rc = cli_parse_id("pay record", "--customer", cust, &in.customer_id)) != 0)
		return rc;
	if (!cli_db(c))
		return CLI_REFUSED;
	if (!currency)
		currency = config_get("currency", "USD");
	if (!(cur = currency_find(currency))) {
		err_set(FD_EINVAL, _("unknown currency '%.10s'"), currency);
		return cli_refused(FD_EINVAL);
	}
	in.currency = cur->code;
	in.method = method;
	in.reference = ref;
	in.note = note;
	if ((rc = parse_amount("--amount", amount, cur->code, &in.amount)) != 0)
		return rc;
	if (received && (rc = clock_parse_local(received, &in.received_at)) != 0)
		return cli_refused(rc);
	if ((rc = parse_allocs(c, npos, pos, cur->code, allocs)) != 0)
		return rc;
	if (autoalloc && !yes) {
		struct alloc_input *prop = NULL;
		struct customer cu;
		size_t n = 0;
		cJSON *o = NULL;

		if ((rc = customer_get(c->db, in.customer_id, &cu)) != 0)
			return cli_refused(rc);
		customer_free(&cu);
		if (in.amount <= 0) {
			err_set(FD_EINVAL, _("the amount of a payment must be greater than zero"));
			return cli_refused(FD_EINVAL);
		}
		if ((rc = alloc_propose(c->db, in.customer_id, cur->code, in.amount, &prop, &n)))
			return cli_refused(rc);
		if (c->json) {
			o = cJSON_CreateObject();
			cJSON_AddBoolToObject(o, "posted", 0);
			cli_json_int(o, "amount", in.amount);
			cli_json_str(o, "currency", cur->code);
			rc = show_proposal(c, prop, n, in.amount, cur->code,
			                   cJSON_AddArrayToObject(o, "proposal"));
		} else {
			rc = show_proposal(c, prop, n, in.amount, cur->code, NULL);
			if (!rc)
				printf(_("Nothing was recorded: run again with --yes to record the "
				         "payment with these allocations.\n"));
		}
		free(prop);
		if (o) {
			if (rc)
				cJSON_Delete(o);
			else
				cli_print_json(o);
		}
		return rc ? cli_refused(rc) : CLI_OK;
	}
	if ((rc = payment_record(c->db, &in, allocs, (size_t)npos, autoalloc, key, &res)) != 0)
		return cli_refused(rc);
	note_replay(&res, key);
	rc = print_posted(c, &res, 1);
	idem_result_free(&res);
	return rc;
}

static int cmd_pay_allocate(struct cli *c, int argc, char **argv)
{
	const char *key = NULL;
	int autoalloc = 0, yes = 0, npos, rc;
	struct cli_opt opts[] = {
	    {"auto", NULL, &autoalloc,
	     N_("propose allocations to open invoices, oldest due first")},
	    {"yes", NULL, &yes, N_("with --auto: post the proposal")},
	    {"idempotency-key", &key, NULL, N_("do this request at most once")},
	    {NULL, NULL, NULL, NULL},
	};
	struct alloc_input allocs[MAX_ARGS];
	struct idem_result res = {0};
	struct payment p;
	char *pos[MAX_ARGS + 1];
	int64_t id;

	PARSE_OR_RETURN(cli_parse(c, "pay allocate",
	                          "PAYMENT INVOICE=AMOUNT ... | PAYMENT --auto [--yes] "
	                          "[--idempotency-key K]",
	                          opts, argc, argv, pos, MAX_ARGS + 1, &npos));
	if ((rc = cli_parse_id("pay allocate", _("the payment id"), npos ? pos[0] : NULL, &id)))
		return rc;
	if (autoalloc && npos > 1)
		return cli_usage("pay allocate",
		                 _("give INVOICE=AMOUNT allocations or --auto, not both"));
	if (!autoalloc && npos < 2)
		return cli_usage("pay allocate", _("give INVOICE=AMOUNT allocations or --auto"));
	if (yes && !autoalloc)
		return cli_usage("pay allocate", _("--yes goes with --auto"));
	if (!cli_db(c))
		return CLI_REFUSED;
	if ((rc = payment_get(c->db, id, &p)) != 0)
		return cli_refused(rc);
	rc = parse_allocs(c, npos - 1, pos + 1, p.currency, allocs);
	if (!rc && autoalloc && !yes) {
		struct alloc_input *prop = NULL;
		size_t n = 0;
		cJSON *o = NULL;

		if (strcmp(p.status, "void") != 0 &&
		    (rc = alloc_propose(c->db, p.customer_id, p.currency, p.unallocated, &prop,
		                        &n)) != 0) {
			rc = cli_refused(rc);
		} else if (c->json) {
			o = cJSON_CreateObject();
			cJSON_AddBoolToObject(o, "posted", 0);
			cli_json_int(o, "payment_id", p.id);
			cli_json_int(o, "amount", p.unallocated);
			cli_json_str(o, "currency", p.currency);
			rc = show_proposal(c, prop, n, p.unallocated, p.currency,
			                   cJSON_AddArrayToObject(o, "proposal"));
			if (rc)
				cJSON_Delete(o);
			else
				cli_print_json(o);
			rc = rc ? cli_refused(rc) : CLI_OK;
		} else {
			rc = show_proposal(c, prop, n, p.unallocated, p.currency, NULL);
			if (!rc)
				printf(_("Nothing was posted: run again with --yes to post these "
				         "allocations.\n"));
			rc = rc ? cli_refused(rc) : CLI_OK;
		}
		free(prop);
		payment_free(&p);
		return rc;
	}
	payment_free(&p);
	if (rc)
		return rc;
	if ((rc = alloc_post(c->db, id, allocs, (size_t)(npos - 1), autoalloc, key, &res)) != 0)
		return cli_refused(rc);
	note_replay(&res, key);
	rc = print_posted(c, &res, 0);
	idem_result_free(&res);
	return rc;
}

static int cmd_pay_reverse(struct cli *c, int argc, char **argv)
{
	const char *reason = NULL, *key = NULL;
	struct cli_opt opts[] = {
	    {"reason", &reason, NULL, N_("why the allocation is undone (required)")},
	    {"idempotency-key", &key, NULL, N_("do this request at most once")},
	    {NULL, NULL, NULL, NULL},
	};
	struct idem_result res = {0};
	struct allocation a;
	char *pos[1], m[MONEY_BUFSZ];
	int npos, rc;
	int64_t id;

	PARSE_OR_RETURN(cli_parse(c, "pay reverse", "ALLOCATION --reason R [--idempotency-key K]",
	                          opts, argc, argv, pos, 1, &npos));
	if ((rc = cli_parse_id("pay reverse", _("the allocation id"), npos ? pos[0] : NULL, &id)))
		return rc;
	if (!reason)
		return cli_usage("pay reverse", _("--reason is required"));
	if (!cli_db(c))
		return CLI_REFUSED;
	if ((rc = alloc_reverse(c->db, id, reason, key, &res)) != 0)
		return cli_refused(rc);
	note_replay(&res, key);
	if ((rc = alloc_get(c->db, res.id, &a)) != 0) {
		idem_result_free(&res);
		return cli_refused(rc);
	}
	if (c->json)
		cli_print_json(alloc_json(&a));
	else
		printf(_("Allocation %lld reversed by %lld: %s %s back on payment %lld from %s.\n"),
		       (long long)a.reverses_id, (long long)a.id,
		       fmt_money(a.amount, a.currency, m), a.currency, (long long)a.payment_id,
		       a.invoice_number);
	alloc_free(&a);
	idem_result_free(&res);
	return CLI_OK;
}

static int cmd_pay_show(struct cli *c, int argc, char **argv)
{
	char *pos[1];
	int npos, rc;
	int64_t id;

	PARSE_OR_RETURN(cli_parse(c, "pay show", "ID", NULL, argc, argv, pos, 1, &npos));
	if ((rc = cli_parse_id("pay show", _("the payment id"), npos ? pos[0] : NULL, &id)))
		return rc;
	if (!cli_db(c))
		return CLI_REFUSED;
	return show_payment(c, id);
}

static int list_payment_cb(const struct payment *p, void *arg)
{
	cJSON *arr = arg;
	char m[MONEY_BUFSZ], u[MONEY_BUFSZ], d[32];

	if (arr) {
		cJSON_AddItemToArray(arr, payment_json(p));
		return 0;
	}
	printf("%6lld  %s  %-13s %12s %12s %s  %-19s ", (long long)p->id,
	       fmt_date(p->received_at, d), p->method, fmt_money(p->amount, p->currency, m),
	       fmt_money(p->unallocated, p->currency, u), p->currency, p->status);
	cli_puts_safe(p->customer_name);
	putchar('\n');
	return 0;
}

static int cmd_pay_list(struct cli *c, int argc, char **argv)
{
	const char *cust = NULL;
	struct cli_opt opts[] = {
	    {"customer", &cust, NULL, N_("only this customer's payments")},
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[1];
	int npos, rc;
	int64_t cid = 0;
	cJSON *o = NULL;

	PARSE_OR_RETURN(
	    cli_parse(c, "pay list", "[--customer C]", opts, argc, argv, pos, 0, &npos));
	if (cust && (rc = cli_parse_id("pay list", "--customer", cust, &cid)) != 0)
		return rc;
	if (!cli_db(c))
		return CLI_REFUSED;
	if (c->json)
		o = cJSON_CreateObject();
	rc = payment_list(c->db, cid, list_payment_cb,
	                  o ? cJSON_AddArrayToObject(o, "payments") : NULL);
	if (o) {
		if (rc)
			cJSON_Delete(o);
		else
			cli_print_json(o);
	}
	return rc ? cli_refused(rc) : CLI_OK;
}

static int cmd_pay_void(struct cli *c, int argc, char **argv)
{
	const char *reason = NULL;
	struct cli_opt opts[] = {
	    {"reason", &reason, NULL, N_("why it was entered in error (required)")},
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[1];
	int npos, rc;
	int64_t id;

	PARSE_OR_RETURN(cli_parse(c, "pay void", "ID --reason R", opts, argc, argv, pos, 1, &npos));
	if ((rc = cli_parse_id("pay void", _("the payment id"), npos ? pos[0] : NULL, &id)))
		return rc;
	if (!reason)
		return cli_usage("pay void", _("--reason is required"));
	if (!cli_db(c))
		return CLI_REFUSED;
	if ((rc = payment_void(c->db, id, reason)) != 0)
		return cli_refused(rc);
	if (c->json)
		return show_payment(c, id);
	printf(_("Payment %lld is void.\n"), (long long)id);
	return CLI_OK;
}

/* `pay import`: the columns a header row may name (in any order). */
enum {
	COL_CUSTOMER,
	COL_AMOUNT,
	COL_METHOD,
	COL_CURRENCY,
	COL_REFERENCE,
	COL_RECEIVED,
	COL_NOTE,
	COL_ALLOCATIONS,
	IMPORT_COLS
};
static const char *const import_cols[IMPORT_COLS] = {
    "customer", "amount", "method", "currency", "reference", "received", "note", "allocations"};

/* What `pay import` read: the batch, and what it owns. */
struct import {
	struct payment_batch_item *items;
	long *lines; /* the CSV line of each item */
	size_t n, cap;
	char **strings; /* copies of texts the items point at */
	size_t nstrings;
};

static const char *import_keep(struct import *im, const char *s)
{
	if (!s || !*s)
		return NULL;
	im->strings = xrealloc(im->strings, (im->nstrings + 1) * sizeof *im->strings);
	return im->strings[im->nstrings++] = xstrdup(s);
}

static void import_free(struct import *im)
{
	size_t i;

	for (i = 0; i < im->n; i++)
		free((void *)im->items[i].allocs);
	for (i = 0; i < im->nstrings; i++)
		free(im->strings[i]);
	free(im->strings);
	free(im->items);
	free(im->lines);
	memset(im, 0, sizeof *im);
}

/* Trim blanks at both ends of s, in place. */
static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

/* Map the header row to columns: col[i] is the CSV field of column i, or
 * -1. Unknown and repeated names are refused (a typo must not drop data). */
static int import_header(struct csv_reader *r, int col[IMPORT_COLS])
{
	size_t f;
	int i;

	for (i = 0; i < IMPORT_COLS; i++)
		col[i] = -1;
	for (f = 0; f < r->n; f++) {
		const char *name = trim(r->field[f]);

		for (i = 0; i < IMPORT_COLS && strcasecmp(name, import_cols[i]) != 0; i++)
			;
		if (i == IMPORT_COLS)
			return err_set(
			    FD_EINVAL,
			    _("line 1: unknown column '%.40s' (the columns are customer, "
			      "amount, method, currency, reference, received, note, "
			      "allocations)"),
			    name);
		if (col[i] >= 0)
			return err_set(FD_EINVAL, _("line 1: the column '%s' is named twice"),
			               import_cols[i]);
		col[i] = (int)f;
	}
	if (col[COL_CUSTOMER] < 0 || col[COL_AMOUNT] < 0 || col[COL_METHOD] < 0)
		return err_set(FD_EINVAL,
		               _("line 1: the header must name at least the columns customer, "
		                 "amount and method"));
	return 0;
}

/* Read "INVOICE=AMOUNT;INVOICE=AMOUNT" (or "auto") into item. */
static int import_allocs(struct cli *c, char *text, const char *code,
                         struct payment_batch_item *item)
{
	struct alloc_input *a = NULL;
	char *part, *save = NULL, *eq;
	size_t n = 0;
	int rc = 0;

	text = trim(text);
	if (!strcasecmp(text, "auto")) {
		item->auto_alloc = 1;
		return 0;
	}
	for (part = strtok_r(text, ";", &save); part && !rc; part = strtok_r(NULL, ";", &save)) {
		part = trim(part);
		if (!*part)
			continue;
		eq = strchr(part, '=');
		if (!eq || eq == part || !eq[1]) {
			rc =
			    err_set(FD_EINVAL,
			            _("an allocation is INVOICE=AMOUNT (several separated by ';'), "
			              "not '%.40s'"),
			            part);
			break;
		}
		*eq = '\0';
		a = xrealloc(a, (n + 1) * sizeof *a);
		rc = invoice_find(c->db, trim(part), &a[n].invoice_id);
		if (!rc &&
		    (rc = money_parse(trim(eq + 1), currency_find(code), &a[n].amount)) != 0) {
			char *why = xstrdup(err_msg());

			rc = err_set(rc, _("bad allocation amount '%.40s': %s"), eq + 1, why);
			free(why);
		}
		n++;
	}
	item->allocs = a;
	item->n = rc ? 0 : n;
	if (rc) {
		free(a);
		item->allocs = NULL;
	}
	return rc;
}

/* One data row of the file into a new item of im. */
static int import_row(struct cli *c, struct import *im, struct csv_reader *r, long line,
                      const int col[IMPORT_COLS], int ncols)
{
	struct payment_batch_item *item;
	const struct currency *cur;
	const char *f[IMPORT_COLS];
	char *end;
	int i, rc = 0;

	if ((int)r->n != ncols)
		return err_set(FD_EINVAL, _("%zu field(s), but the header names %d"), r->n, ncols);
	for (i = 0; i < IMPORT_COLS; i++)
		f[i] = col[i] >= 0 ? trim(r->field[col[i]]) : "";
	if (im->n == PAYMENT_BATCH_MAX)
		return err_set(FD_EINVAL, _("more than %d payments: split the file"),
		               PAYMENT_BATCH_MAX);
	if (im->n == im->cap) {
		im->cap = im->cap ? 2 * im->cap : 64;
		im->items = xrealloc(im->items, im->cap * sizeof *im->items);
		im->lines = xrealloc(im->lines, im->cap * sizeof *im->lines);
	}
	item = &im->items[im->n];
	memset(item, 0, sizeof *item);
	im->lines[im->n++] = line;
	item->in.customer_id = strtoll(f[COL_CUSTOMER], &end, 10);
	if (!*f[COL_CUSTOMER] || *end || item->in.customer_id <= 0)
		return err_set(FD_EINVAL, _("bad customer '%.40s': give the customer's id"),
		               f[COL_CUSTOMER]);
	cur = currency_find(*f[COL_CURRENCY] ? f[COL_CURRENCY] : config_get("currency", "USD"));
	if (!cur)
		return err_set(FD_EINVAL, _("unknown currency '%.10s'"), f[COL_CURRENCY]);
	item->in.currency = cur->code;
	if ((rc = money_parse(f[COL_AMOUNT], cur, &item->in.amount)) != 0) {
		char *why = xstrdup(err_msg());

		rc = err_set(rc, _("bad amount '%.40s': %s"), f[COL_AMOUNT], why);
		free(why);
		return rc;
	}
	item->in.method = import_keep(im, f[COL_METHOD]);
	item->in.reference = import_keep(im, f[COL_REFERENCE]);
	item->in.note = import_keep(im, f[COL_NOTE]);
	if (*f[COL_RECEIVED] &&
	    (rc = clock_parse_local(f[COL_RECEIVED], &item->in.received_at)) != 0)
		return rc;
	if (col[COL_ALLOCATIONS] >= 0)
		rc = import_allocs(c, r->field[col[COL_ALLOCATIONS]], cur->code, item);
	return rc;
}

/* Read the whole file (header, then one payment a line) into im. A row
 * that cannot be read sets *bad_line (the reader's own refusals name their
 * line themselves). */
static int import_read(struct cli *c, FILE *f, struct import *im, long *bad_line)
{
	struct csv_reader r;
	int col[IMPORT_COLS], ncols = 0, rc;
	long line = 1;

	csv_open(&r, f);
	rc = csv_next(&r, &line);
	if (rc == 0)
		rc = err_set(FD_EINVAL, _("the file is empty: it needs a header row"));
	else if (rc == 1 && (rc = import_header(&r, col)) == 0)
		ncols = (int)r.n;
	while (rc == 0 && (rc = csv_next(&r, &line)) == 1)
		if ((rc = import_row(c, im, &r, line, col, ncols)) != 0)
			*bad_line = line;
	csv_close(&r);
	if (rc == 0 && im->n == 0)
		rc = err_set(FD_EINVAL, _("the file has a header but no payment"));
	return rc;
}

static int cmd_pay_import(struct cli *c, int argc, char **argv)
{
	const char *key = NULL;
	struct cli_opt opts[] = {
	    {"idempotency-key", &key, NULL, N_("do this import at most once")},
	    {NULL, NULL, NULL, NULL},
	};
	struct import im = {0};
	struct idem_result res = {0};
	size_t bad = 0, i;
	long bad_line = 0;
	char *pos[1], *why;
	const char *name;
	int npos, rc;
	FILE *f;

	PARSE_OR_RETURN(cli_parse(c, "pay import", "FILE.csv|- [--idempotency-key K]", opts, argc,
	                          argv, pos, 1, &npos));
	if (npos != 1)
		return cli_usage("pay import", _("give the CSV file to import (- for stdin)"));
	if (!cli_db(c))
		return CLI_REFUSED;
	name = strcmp(pos[0], "-") ? pos[0] : _("standard input");
	f = strcmp(pos[0], "-") ? fopen(pos[0], "r") : stdin;
	if (!f) {
		err_set(FD_EIO, _("cannot read %s: %s"), pos[0], strerror(errno));
		return cli_refused(FD_EIO);
	}
	rc = import_read(c, f, &im, &bad_line);
	if (f != stdin)
		fclose(f);
	if (!rc) {
		rc = payment_record_batch(c->db, im.items, im.n, key, &res, &bad);
		bad_line = rc && bad < im.n ? im.lines[bad] : 0;
	}
	if (rc) {
		why = xstrdup(err_msg());
		if (bad_line)
			err_set(rc, _("%s, line %ld: %s; nothing was imported"), name, bad_line,
			        why);
		else
			err_set(rc, _("%s: %s; nothing was imported"), name, why);
		free(why);
		import_free(&im);
		return cli_refused(rc);
	}
	note_replay(&res, key);
	if (c->json) {
		cJSON *o = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(o, "payments");

		for (i = 0; i < res.n; i++)
			cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)res.ids[i]));
		cli_json_int(o, "count", (int64_t)res.n);
		cJSON_AddBoolToObject(o, "replayed", res.replayed);
		cli_print_json(o);
	} else {
		printf(_("Recorded %zu payment(s) from %s (ids %lld to %lld), all in one "
		         "transaction.\n"),
		       res.n, name, (long long)res.ids[0], (long long)res.ids[res.n - 1]);
	}
	idem_result_free(&res);
	import_free(&im);
	return CLI_OK;
}

static const struct cli_cmd pay_cmds[] = {
    {"record", cmd_pay_record, "--customer C --amount A --method M ...",
     N_("record a payment received, with allocations")},
    {"allocate", cmd_pay_allocate, "PAYMENT INVOICE=AMOUNT ... | --auto",
     N_("allocate (more of) a payment to invoices")},
    {"reverse", cmd_pay_reverse, "ALLOCATION --reason R",
     N_("undo an allocation with a reversal row")},
    {"show", cmd_pay_show, "ID", N_("show a payment, its allocations and refunds")},
    {"list", cmd_pay_list, "[--customer C]", N_("list payments, newest first")},
    {"void", cmd_pay_void, "ID --reason R",
     N_("void a payment entered in error (nothing allocated)")},
    {"import", cmd_pay_import, "FILE.csv|- [--idempotency-key K]",
     N_("record the payments of a CSV file in one transaction, all or none")},
    {NULL, NULL, NULL, NULL},
};

/* ---------------------------------------------------------------- refund */

static int cmd_refund(struct cli *c, int argc, char **argv)
{
	const char *amount = NULL, *method = NULL, *ref = NULL, *reason = NULL, *key = NULL;
	struct cli_opt opts[] = {
	    {"amount", &amount, NULL, N_("how much goes back (required)")},
	    {"reason", &reason, NULL, N_("why (required)")},
	    {"method", &method, NULL, N_("how it goes back (default: the payment's method)")},
	    {"reference", &ref, NULL, N_("check number or channel reference")},
	    {"idempotency-key", &key, NULL, N_("do this request at most once")},
	    {NULL, NULL, NULL, NULL},
	};
	struct refund_input in = {0};
	struct refund_outcome out;
	struct idem_result res = {0};
	struct payment p;
	char *pos[1], m[MONEY_BUFSZ];
	int npos, rc;

	/* argv[-1] is the word "refund" itself: parse from it like a subcommand */
	PARSE_OR_RETURN(cli_parse(c, "refund",
	                          "PAYMENT --amount A --reason R [--method M] [--reference R] "
	                          "[--idempotency-key K]",
	                          opts, argc + 1, argv - 1, pos, 1, &npos));
	if ((rc =
	         cli_parse_id("refund", _("the payment id"), npos ? pos[0] : NULL, &in.payment_id)))
		return rc;
	if (!amount || !reason)
		return cli_usage("refund", _("--amount and --reason are required"));
	if (!cli_db(c))
		return CLI_REFUSED;
	if ((rc = payment_get(c->db, in.payment_id, &p)) != 0)
		return cli_refused(rc);
	rc = parse_amount("--amount", amount, p.currency, &in.amount);
	payment_free(&p);
	if (rc)
		return rc;
	in.method = method;
	in.reference = ref;
	in.reason = reason;
	/* the core decides: at the desk, or through the channel that took it */
	if ((rc = refund_request(c->db, &in, key, &out)) != 0)
		return cli_refused(rc);
	if (out.route == REFUND_THROUGH_CHANNEL) {
		if (c->json) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "route", "channel");
			cli_json_int(o, "payment_id", in.payment_id);
			cJSON_AddStringToObject(o, "order_no", out.order_no);
			cli_json_int(o, "outbox_id", out.id);
			cli_print_json(o);
		} else if ((rc = payment_get(c->db, in.payment_id, &p)) == 0) {
			printf(_("Refund of %1$s %2$s asked of the payment channel for card order %3$s "
			         "(payment %4$lld); the channel worker sends it, and the refund is posted "
			         "when the channel says it succeeded.\n"),
			       fmt_money(in.amount, p.currency, m), p.currency, out.order_no,
			       (long long)p.id);
			payment_free(&p);
		}
		return rc ? cli_refused(rc) : CLI_OK;
	}
	res.id = out.id;
	res.replayed = out.replayed;
	note_replay(&res, key);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "refund_id", res.id);
		cli_json_int(o, "payment_id", in.payment_id);
		rc = refund_list(c->db, in.payment_id, refund_cb,
		                 cJSON_AddArrayToObject(o, "refunds"));
		cJSON_AddBoolToObject(o, "replayed", res.replayed);
		if (rc)
			cJSON_Delete(o);
		else
			cli_print_json(o);
	} else if ((rc = payment_get(c->db, in.payment_id, &p)) == 0) {
		printf(_("Refund %lld: %s %s back from payment %lld.\n"), (long long)res.id,
		       fmt_money(in.amount, p.currency, m), p.currency, (long long)p.id);
		payment_free(&p);
	}
	idem_result_free(&res);
	return rc ? cli_refused(rc) : CLI_OK;
}

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

static int cmd_check(struct cli *c, int argc, char **argv)
{
	struct check_out co = {NULL};
	cJSON *o = NULL;
	char *pos[1];
	int npos, n;

	PARSE_OR_RETURN(cli_parse(c, "check", "", NULL, argc + 1, argv - 1, pos, 0, &npos));
	if (!cli_db(c))
		return CLI_REFUSED;
	if (c->json) {
		o = cJSON_CreateObject();
		co.arr = cJSON_AddArrayToObject(o, "violations");
	}
	n = check_all(c->db, check_report, &co);
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
		char line[8 * MONEY_BUFSZ + 32];
		size_t at;

		at = (size_t)snprintf(line, sizeof line, "%6lld  %-3s", (long long)r->customer_id,
		                      r->currency);
		for (i = 0; i < AGING_BUCKETS + 2; i++) {
			int64_t v = i < AGING_BUCKETS    ? r->bucket[i]
			            : i == AGING_BUCKETS ? r->owed
			                                 : r->credit;

			if (money_format(v, cur, 1, m, sizeof m))
				snprintf(m, sizeof m, "?");
			at = put_right(line, at, sizeof line, m, 12);
		}
		fwrite(line, 1, at, stdout);
		fputs("  ", stdout);
		cli_puts_safe(r->customer_name);
		putchar('\n');
	}
	return 0;
}

static int cmd_report_aging(struct cli *c, int argc, char **argv)
{
	const char *on = NULL;
	int csv = 0, npos, rc, i;
	struct cli_opt opts[] = {
	    {"on", &on, NULL, N_("count days past due on this day (default: today)")},
	    {"csv", NULL, &csv, N_("print CSV")},
	    {NULL, NULL, NULL, NULL},
	};
	struct report_out o = {c, 0, NULL, NULL};
	int64_t t = clock_now();
	cJSON *j = NULL;
	char *pos[1];

	PARSE_OR_RETURN(
	    cli_parse(c, "report aging", "[--on DATE] [--csv]", opts, argc, argv, pos, 0, &npos));
	if (csv && c->json)
		return cli_usage("report aging", _("give --json or --csv, not both"));
	if (on && (rc = clock_parse_local(on, &t)) != 0)
		return cli_refused(rc);
	if (!cli_db(c))
		return CLI_REFUSED;
	o.csv = csv;
	if (c->json) {
		char d[32];

		j = cJSON_CreateObject();
		cli_json_str(j, "on", fmt_date(t, d));
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
		       (long long)r->count, fmt_money(r->received, r->currency, a),
		       fmt_money(r->refunded, r->currency, b),
		       fmt_money(r->net, r->currency, n));
	}
	return 0;
}

static int cmd_report_takings(struct cli *c, int argc, char **argv)
{
	const char *from_s = NULL, *to_s = NULL;
	int csv = 0, npos, rc;
	struct cli_opt opts[] = {
	    {"from", &from_s, NULL, N_("first day (default: 30 days before --to)")},
	    {"to", &to_s, NULL, N_("last day, included (default: today)")},
	    {"csv", NULL, &csv, N_("print CSV")},
	    {NULL, NULL, NULL, NULL},
	};
	struct report_out o = {c, 0, NULL, NULL};
	int64_t from, to;
	cJSON *j = NULL;
	char *pos[1], d1[32], d2[32];

	PARSE_OR_RETURN(cli_parse(c, "report takings", "[--from DATE] [--to DATE] [--csv]", opts,
	                          argc, argv, pos, 0, &npos));
	if (csv && c->json)
		return cli_usage("report takings", _("give --json or --csv, not both"));
	to = clock_now();
	if (to_s && (rc = clock_parse_local(to_s, &to)) != 0)
		return cli_refused(rc);
	to = clock_add_days(clock_day_start(to), 1); /* the end of the last day */
	from = clock_add_days(to, -30);
	if (from_s && (rc = clock_parse_local(from_s, &from)) != 0)
		return cli_refused(rc);
	from = clock_day_start(from);
	if (from >= to) {
		err_set(FD_EINVAL, _("--from must not be after --to"));
		return cli_refused(FD_EINVAL);
	}
	if (!cli_db(c))
		return CLI_REFUSED;
	o.csv = csv;
	fmt_date(from, d1);
	fmt_date(clock_add_days(to, -1), d2);
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
		printf("%s  %-11s #%-5lld %s -> %s: %s\n", fmt_date(l->at, d), l->kind,
		       (long long)l->id, l->ref ? l->ref : "", l->target ? l->target : "",
		       fmt_money(l->allocated, cur, a));
	} else {
		printf("%s  %-11s #%-5lld ", fmt_date(l->at, d), l->kind, (long long)l->id);
		cli_puts_safe(l->ref ? l->ref : "");
		printf("  %s  %s %s\n", fmt_money(l->amount, cur, a), _("balance"),
		       fmt_money(l->balance, cur, b));
	}
	return 0;
}

/* The currencies customer id has money records in. */
static int customer_currencies(struct cli *c, int64_t id, char cur[][4], int max, int *n)
{
	sqlite3_stmt *st;
	int rc, step;

	*n = 0;
	rc = db_prepare(c->db,
	                "SELECT currency FROM invoice WHERE customer_id = ?1 UNION"
	                " SELECT currency FROM payment WHERE customer_id = ?1 ORDER BY 1",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW && *n < max) {
		const unsigned char *s = sqlite3_column_text(st, 0);

		snprintf(cur[(*n)++], 4, "%s", s ? (const char *)s : "");
	}
	sqlite3_finalize(st);
	return 0;
}

static int cmd_report_statement(struct cli *c, int argc, char **argv)
{
	const char *cust = NULL, *currency = NULL;
	int csv = 0, npos, rc = 0, n = 0, i;
	struct cli_opt opts[] = {
	    {"customer", &cust, NULL, N_("whose statement (required)")},
	    {"currency", &currency, NULL, N_("only this currency (default: each one used)")},
	    {"csv", NULL, &csv, N_("print CSV")},
	    {NULL, NULL, NULL, NULL},
	};
	struct report_out o = {c, 0, NULL, NULL};
	struct statement_totals t;
	struct customer cu;
	char curs[16][4], *pos[1], m[MONEY_BUFSZ];
	cJSON *j = NULL, *arr = NULL;
	int64_t id;

	PARSE_OR_RETURN(cli_parse(c, "report statement", "--customer C [--currency CUR] [--csv]",
	                          opts, argc, argv, pos, 0, &npos));
	if (csv && c->json)
		return cli_usage("report statement", _("give --json or --csv, not both"));
	if ((rc = cli_parse_id("report statement", "--customer", cust, &id)) != 0)
		return rc;
	if (!cli_db(c))
		return CLI_REFUSED;
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
	} else if ((rc = customer_currencies(c, id, curs, 16, &n)) != 0) {
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
			       fmt_money(t.invoiced, curs[i], m),
			       fmt_money(t.credited, curs[i], (char[MONEY_BUFSZ]){0}),
			       fmt_money(t.received, curs[i], (char[MONEY_BUFSZ]){0}),
			       fmt_money(t.refunded, curs[i], (char[MONEY_BUFSZ]){0}));
			printf(
			    _("Owed on open invoices: %s %s; unallocated credit: %s %s; balance: "
			      "%s %s\n"),
			    fmt_money(t.open, curs[i], m), curs[i],
			    fmt_money(t.credit, curs[i], (char[MONEY_BUFSZ]){0}), curs[i],
			    fmt_money(t.balance, curs[i], (char[MONEY_BUFSZ]){0}), curs[i]);
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

static const struct cli_cmd report_cmds[] = {
    {"aging", cmd_report_aging, "[--on DATE] [--csv]",
     N_("receivables by days past due, and each customer's credit")},
    {"takings", cmd_report_takings, "[--from DATE] [--to DATE] [--csv]",
     N_("money received and refunded by day and method")},
    {"statement", cmd_report_statement, "--customer C [--currency CUR] [--csv]",
     N_("a customer's invoices, payments, allocations and balance")},
    {NULL, NULL, NULL, NULL},
};

/* ---------------------------------------------------------------- export */

static int cmd_export_journal(struct cli *c, int argc, char **argv)
{
	const char *output = NULL;
	struct cli_opt opts[] = {
	    {"output", &output, NULL, N_("write to this file (mode 0600) instead of stdout")},
	    {NULL, NULL, NULL, NULL},
	};
	char *pos[1];
	int npos, rc, fd;
	FILE *f = stdout;

	PARSE_OR_RETURN(
	    cli_parse(c, "export journal", "[--output FILE]", opts, argc, argv, pos, 0, &npos));
	if (c->json)
		return cli_usage("export journal",
		                 _("the journal is plain text; --json does not apply"));
	if (!cli_db(c))
		return CLI_REFUSED;
	if (output) {
		fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
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

static const struct cli_cmd export_cmds[] = {
    {"journal", cmd_export_journal, "[--output FILE]",
     N_("the money history as a ledger/hledger journal")},
    {NULL, NULL, NULL, NULL},
};

/* ---------------------------------------------------------------- dispatch */

static const struct cli_cmd none[] = {{NULL, NULL, NULL, NULL}};

int cli_money(struct cli *c, const char *group, int argc, char **argv)
{
	if (!strcmp(group, "invoice"))
		return cli_dispatch(c, group, invoice_cmds, argc, argv);
	if (!strcmp(group, "pay"))
		return cli_dispatch(c, group, pay_cmds, argc, argv);
	if (!strcmp(group, "refund"))
		return cmd_refund(c, argc, argv);
	if (!strcmp(group, "check"))
		return cmd_check(c, argc, argv);
	if (!strcmp(group, "report"))
		return cli_dispatch(c, group, report_cmds, argc, argv);
	if (!strcmp(group, "export"))
		return cli_dispatch(c, group, export_cmds, argc, argv);
	return cli_dispatch(c, group, none, argc, argv);
}
