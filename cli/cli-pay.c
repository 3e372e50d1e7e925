/*
 * cli-pay.c - `frontdesk pay record|allocate|reverse|show|list|void|import` and
 * `frontdesk refund`: payments, their allocations and reversals, the CSV
 * import, and refunds, which the core routes (refund-route.h).
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
#include "privs.h"
#include "refund-route.h"
#include "report.h"
#include "settings.h"
#include "xalloc.h"

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
	printf("  #%-6lld %s %12s  %s  %s  ", (long long)r->id, mcli_date(r->refunded_at, d),
	       mcli_money(r->amount, r->currency, m), r->method, r->status);
	cli_puts_safe(r->reason);
	putchar('\n');
	return 0;
}

static int show_payment(struct cli *c, int64_t id)
{
	struct payment p;
	struct mcli_show s = {c, NULL, NULL, 0};
	char m[MONEY_BUFSZ], d[32];
	int rc = payment_get(c->db, id, &p);

	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = payment_json(&p);

		s.arr = cJSON_AddArrayToObject(o, "allocations");
		rc = alloc_list(c->db, id, 0, mcli_alloc_cb, &s);
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
	printf("%s: %s %s\n", _("Amount"), mcli_money(p.amount, p.currency, m), p.currency);
	printf("%s: %s\n", _("Method"), p.method);
	cli_field(_("Reference"), p.reference);
	clock_format_local(p.received_at, TIME_FMT, d, sizeof d);
	printf("%s: %s\n", _("Received"), d);
	printf("%s: %s\n", _("Status"), p.status);
	cli_field(_("Note"), p.note);
	printf("%s: %s\n", _("Allocated"), mcli_money(p.allocated, p.currency, m));
	printf("%s: %s\n", _("Refunded"), mcli_money(p.refunded, p.currency, m));
	printf("%s: %s\n", _("Unallocated (customer's credit)"),
	       mcli_money(p.unallocated, p.currency, m));
	printf("%s:\n", _("Allocations"));
	rc = alloc_list(c->db, id, 0, mcli_alloc_cb, &s);
	if (!rc && p.refunded) {
		printf("%s:\n", _("Refunds"));
		rc = refund_list(c->db, id, refund_cb, NULL);
	}
	payment_free(&p);
	return rc ? cli_refused(rc) : CLI_OK;
}

/* Read the positional "INVOICE=AMOUNT" allocations in currency code, each
 * argument as pay import reads its cell (alloc_read_list). *out (NULL when
 * none) is the caller's to free, also after a refusal. */
static int parse_allocs(struct cli *c, int npos, char **pos, const char *code,
                        struct alloc_input **out, size_t *n)
{
	int i, rc;

	*out = NULL;
	*n = 0;
	for (i = 0; i < npos; i++)
		if ((rc = alloc_read_list(c->db, pos[i], code, out, n)) != 0)
			return cli_refused(rc);
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
		       mcli_money(amount, code, m), code);
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
			       mcli_date(inv.due_at, d), mcli_money(prop[i].amount, code, m),
			       mcli_money(inv.balance, code, b));
		}
		invoice_free(&inv);
	}
	if (!rc && !arr) {
		if (n == 0)
			printf(_("  (no open invoice in %s)\n"), code);
		printf(_("Left as the customer's credit: %s %s\n"), mcli_money(left, code, m),
		       code);
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
		       mcli_money(p.amount, p.currency, m), p.currency, p.method);
	} else {
		printf(_("Payment %lld allocated:\n"), (long long)p.id);
	}
	for (i = 0; i < res->n && !rc; i++) {
		if ((rc = alloc_get(c->db, res->ids[i], &a)) != 0)
			break;
		if (arr)
			cJSON_AddItemToArray(arr, mcli_alloc_json(&a));
		else
			printf(_("  allocation %lld: %s to %s\n"), (long long)a.id,
			       mcli_money(a.amount, a.currency, m), a.invoice_number);
		alloc_free(&a);
	}
	if (!rc && o) {
		if (recorded)
			cli_json_int(o, "unallocated", p.unallocated);
		cJSON_AddBoolToObject(o, "replayed", res->replayed);
		cli_print_json(o);
		o = NULL;
	} else if (!rc && recorded) {
		printf(_("Left unallocated (the customer's credit): %s %s\n"),
		       mcli_money(p.unallocated, p.currency, m), p.currency);
	}
	cJSON_Delete(o);
	payment_free(&p);
	return rc ? cli_refused(rc) : CLI_OK;
}

static int record_check(struct cli *c, const struct cli_args *a)
{
	int64_t id;

	(void)c;
	if (cli_arg_flag(a, "auto") && a->npos)
		return cli_usage(a->cmd, _("give INVOICE=AMOUNT allocations or --auto, not both"));
	if (cli_arg_flag(a, "yes") && !cli_arg_flag(a, "auto"))
		return cli_usage(a->cmd, _("--yes goes with --auto"));
	return cli_parse_id(a->cmd, "--customer", cli_arg_get(a, "customer"), &id);
}

static int cmd_pay_record(struct cli *c, const struct cli_args *a)
{
	const char *key = cli_arg_get(a, "idempotency-key");
	int autoalloc = cli_arg_flag(a, "auto"), yes = cli_arg_flag(a, "yes"), npos = a->npos, rc;
	struct payment_text typed = {cli_arg_get(a, "customer"),  cli_arg_get(a, "amount"),
	                             cli_arg_get(a, "method"),    cli_arg_get(a, "currency"),
	                             cli_arg_get(a, "reference"), cli_arg_get(a, "received"),
	                             cli_arg_get(a, "note")};
	struct payment_input in = {0};
	struct alloc_input *allocs = NULL;
	struct idem_result res = {0};
	size_t nallocs = 0;

	/* the one reading of a typed payment, also every row of pay import's */
	if ((rc = payment_read(&typed, &in)) != 0)
		return cli_refused(rc);
	if ((rc = parse_allocs(c, npos, a->pos, in.currency, &allocs, &nallocs)) != 0) {
		free(allocs);
		return rc;
	}
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
		if ((rc = alloc_propose(c->db, in.customer_id, in.currency, in.amount, &prop, &n)))
			return cli_refused(rc);
		if (c->json) {
			o = cJSON_CreateObject();
			cJSON_AddBoolToObject(o, "posted", 0);
			cli_json_int(o, "amount", in.amount);
			cli_json_str(o, "currency", in.currency);
			rc = show_proposal(c, prop, n, in.amount, in.currency,
			                   cJSON_AddArrayToObject(o, "proposal"));
		} else {
			rc = show_proposal(c, prop, n, in.amount, in.currency, NULL);
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
	rc = payment_record(c->db, &in, allocs, nallocs, autoalloc, key, &res);
	free(allocs);
	if (rc != 0)
		return cli_refused(rc);
	mcli_replay(&res, key);
	rc = print_posted(c, &res, 1);
	idem_result_free(&res);
	return rc;
}

static int allocate_check(struct cli *c, const struct cli_args *a)
{
	int autoalloc = cli_arg_flag(a, "auto");

	(void)c;
	if (autoalloc && a->npos > 1)
		return cli_usage(a->cmd, _("give INVOICE=AMOUNT allocations or --auto, not both"));
	if (!autoalloc && a->npos < 2)
		return cli_usage(a->cmd, _("give INVOICE=AMOUNT allocations or --auto"));
	if (cli_arg_flag(a, "yes") && !autoalloc)
		return cli_usage(a->cmd, _("--yes goes with --auto"));
	return 0;
}

static int cmd_pay_allocate(struct cli *c, const struct cli_args *a)
{
	const char *key = cli_arg_get(a, "idempotency-key");
	int autoalloc = cli_arg_flag(a, "auto"), yes = cli_arg_flag(a, "yes"), npos = a->npos, rc;
	struct alloc_input *allocs = NULL;
	struct idem_result res = {0};
	size_t nallocs = 0;
	struct payment p;
	int64_t id = a->id;

	if ((rc = payment_get(c->db, id, &p)) != 0)
		return cli_refused(rc);
	rc = parse_allocs(c, npos - 1, a->pos + 1, p.currency, &allocs, &nallocs);
	if (!rc && autoalloc && !yes) {
		struct alloc_input *prop = NULL;
		size_t n = 0;
		cJSON *o = NULL;

		if (!payment_is_void(&p) && (rc = alloc_propose(c->db, p.customer_id, p.currency,
		                                                p.unallocated, &prop, &n)) != 0) {
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
		free(allocs);
		return rc;
	}
	payment_free(&p);
	if (rc) {
		free(allocs);
		return rc;
	}
	rc = alloc_post(c->db, id, allocs, nallocs, autoalloc, key, &res);
	free(allocs);
	if (rc != 0)
		return cli_refused(rc);
	mcli_replay(&res, key);
	rc = print_posted(c, &res, 0);
	idem_result_free(&res);
	return rc;
}

static int cmd_pay_reverse(struct cli *c, const struct cli_args *args)
{
	const char *key = cli_arg_get(args, "idempotency-key");
	struct idem_result res = {0};
	struct allocation a;
	char m[MONEY_BUFSZ];
	int rc;

	if ((rc = alloc_reverse(c->db, args->id, cli_arg_get(args, "reason"), key, &res)) != 0)
		return cli_refused(rc);
	mcli_replay(&res, key);
	if ((rc = alloc_get(c->db, res.id, &a)) != 0) {
		idem_result_free(&res);
		return cli_refused(rc);
	}
	if (c->json)
		cli_print_json(mcli_alloc_json(&a));
	else
		printf(_("Allocation %lld reversed by %lld: %s %s back on payment %lld from %s.\n"),
		       (long long)a.reverses_id, (long long)a.id,
		       mcli_money(a.amount, a.currency, m), a.currency, (long long)a.payment_id,
		       a.invoice_number);
	alloc_free(&a);
	idem_result_free(&res);
	return CLI_OK;
}

static int cmd_pay_show(struct cli *c, const struct cli_args *a)
{
	return show_payment(c, a->id);
}

static int cmd_pay_print(struct cli *c, const struct cli_args *a)
{
	char name[64];

	snprintf(name, sizeof name, _("Receipt for payment %lld"), (long long)a->id);
	return mcli_print(c, a, PRINT_RECEIPT, a->id, name);
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
	       mcli_date(p->received_at, d), p->method, mcli_money(p->amount, p->currency, m),
	       mcli_money(p->unallocated, p->currency, u), p->currency, p->status);
	cli_puts_safe(p->customer_name);
	putchar('\n');
	return 0;
}

static int cmd_pay_list(struct cli *c, const struct cli_args *a)
{
	int64_t cid = cli_arg_id(a, "customer");
	cJSON *o = NULL;
	int rc;

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

static int cmd_pay_void(struct cli *c, const struct cli_args *a)
{
	int64_t id = a->id;
	int rc;

	if ((rc = payment_void(c->db, id, cli_arg_get(a, "reason"))) != 0)
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

/* Read the allocations cell into item: "auto" (pay record's --auto), empty
 * (none asked), or "INVOICE=AMOUNT;INVOICE=AMOUNT" read exactly as pay
 * record reads an argument (alloc_read_list: blanks beside a ';' separate,
 * any other blank is refused). */
static int import_allocs(struct cli *c, const char *text, const char *code,
                         struct payment_batch_item *item)
{
	struct alloc_input *a = NULL;
	size_t n = 0;
	int rc;

	if (!strcasecmp(text, "auto")) {
		item->auto_alloc = 1;
		return 0;
	}
	if (!*text)
		return 0;
	if ((rc = alloc_read_list(c->db, text, code, &a, &n)) != 0) {
		free(a);
		return rc;
	}
	item->allocs = a;
	item->n = n;
	return 0;
}

/* One data row of the file into a new item of im: each cell exactly as
 * pay record reads its option (payment_read), never trimmed. */
static int import_row(struct cli *c, struct import *im, struct csv_reader *r, long line,
                      const int col[IMPORT_COLS], int ncols)
{
	struct payment_batch_item *item;
	struct payment_text typed;
	const char *f[IMPORT_COLS];
	int i, rc = 0;

	if ((int)r->n != ncols)
		return err_set(FD_EINVAL, _("%zu field(s), but the header names %d"), r->n, ncols);
	for (i = 0; i < IMPORT_COLS; i++)
		f[i] = col[i] >= 0 ? r->field[col[i]] : "";
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
	typed =
	    (struct payment_text){f[COL_CUSTOMER],  f[COL_AMOUNT],   f[COL_METHOD], f[COL_CURRENCY],
	                          f[COL_REFERENCE], f[COL_RECEIVED], f[COL_NOTE]};
	if ((rc = payment_read(&typed, &item->in)) != 0)
		return rc;
	/* the row's texts live until the next row: keep copies */
	item->in.method = import_keep(im, item->in.method);
	item->in.reference = import_keep(im, item->in.reference);
	item->in.note = import_keep(im, item->in.note);
	if (col[COL_ALLOCATIONS] >= 0)
		rc = import_allocs(c, r->field[col[COL_ALLOCATIONS]], item->in.currency, item);
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

static int cmd_pay_import(struct cli *c, const struct cli_args *a)
{
	const char *key = cli_arg_get(a, "idempotency-key"), *file = a->pos[0];
	struct import im = {0};
	struct idem_result res = {0};
	size_t bad = 0, i;
	long bad_line = 0;
	const char *name;
	char *why;
	int rc;
	FILE *f;

	name = strcmp(file, "-") ? file : _("standard input");
	/* the user's file, read with the user's rights in a setgid frontdesk */
	f = strcmp(file, "-") ? privs_fopen_user(file, "r") : stdin;
	if (!f) {
		err_set(FD_EIO, _("cannot read %s: %s"), file, strerror(errno));
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
	mcli_replay(&res, key);
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

#define KEY_OPT                                                                                    \
	{                                                                                          \
		"idempotency-key", CLI_VALUE, N_("do this request at most once"), NULL, NULL       \
	}
#define AUTO_OPTS                                                                                  \
	{"auto", CLI_FLAG, N_("propose allocations to open invoices, oldest due first"), NULL,     \
	 NULL},                                                                                    \
	{                                                                                          \
		"yes", CLI_FLAG, N_("with --auto: post the proposal"), NULL, NULL                  \
	}
#define RECORD_REQUIRED N_("--customer, --amount and --method are required")

const struct cli_entry mcli_pay_cmds[] = {
    {"record", NULL, "--customer C --amount A --method M ...",
     "--customer C --amount A --method M [--reference R] [INVOICE=AMOUNT ...] [--auto [--yes]] "
     "[--idempotency-key K]",
     N_("record a payment received, with allocations"),
     .opts = {{"customer", CLI_VALUE, N_("who paid (required)"), NULL, RECORD_REQUIRED},
              {"amount", CLI_VALUE, N_("the whole amount received (required)"), NULL,
               RECORD_REQUIRED},
              {"method", CLI_VALUE, N_("cash, check, card, bank_transfer or other (required)"),
               NULL, RECORD_REQUIRED},
              {"currency", CLI_VALUE, N_("ISO 4217 code (default: config, else USD)"), NULL, NULL},
              {"reference", CLI_VALUE, N_("check number, transfer or channel reference"), NULL,
               NULL},
              {"received", CLI_VALUE, N_("when it was received (default: now)"), NULL, NULL},
              {"note", CLI_VALUE, N_("a note for staff"), NULL, NULL},
              AUTO_OPTS,
              KEY_OPT},
     .max_pos = MAX_ARGS, .db = CLI_DB_OPEN, .check = record_check, .run = cmd_pay_record},
    {"allocate", NULL, "PAYMENT INVOICE=AMOUNT ... | --auto",
     "PAYMENT INVOICE=AMOUNT ... | PAYMENT --auto [--yes] [--idempotency-key K]",
     N_("allocate (more of) a payment to invoices"), .opts = {AUTO_OPTS, KEY_OPT},
     .max_pos = MAX_ARGS + 1, .id = N_("the payment id"), .db = CLI_DB_OPEN,
     .check = allocate_check, .run = cmd_pay_allocate},
    {"reverse", NULL, "ALLOCATION --reason R", "ALLOCATION --reason R [--idempotency-key K]",
     N_("undo an allocation with a reversal row"),
     .opts = {{"reason", CLI_VALUE, N_("why the allocation is undone (required)"), NULL,
               N_("--reason is required")},
              KEY_OPT},
     .max_pos = 1, .id = N_("the allocation id"), .db = CLI_DB_OPEN, .run = cmd_pay_reverse},
    {"show", NULL, "ID", NULL, N_("show a payment, its allocations and refunds"), .max_pos = 1,
     .id = N_("the payment id"), .db = CLI_DB_OPEN, .run = cmd_pay_show},
    {"print", NULL, "ID [--format text|pdf] [--width 80|42] [--output FILE]", NULL,
     N_("print a payment's receipt: text (80 or 42 columns) or an A4 PDF"),
     .opts = {MCLI_PRINT_OPTS}, .max_pos = 1, .id = N_("the payment id"), .db = CLI_DB_OPEN,
     .check = mcli_print_check, .run = cmd_pay_print},
    {"list", NULL, "[--customer C]", NULL, N_("list payments, newest first"),
     .opts = {{"customer", CLI_ID, N_("only this customer's payments"), NULL, NULL}},
     .db = CLI_DB_OPEN, .run = cmd_pay_list},
    {"void", NULL, "ID --reason R", NULL, N_("void a payment entered in error (nothing allocated)"),
     .opts = {{"reason", CLI_VALUE, N_("why it was entered in error (required)"), NULL,
               N_("--reason is required")}},
     .max_pos = 1, .id = N_("the payment id"), .db = CLI_DB_OPEN, .run = cmd_pay_void},
    {"import", NULL, "FILE.csv|- [--idempotency-key K]", NULL,
     N_("record the payments of a CSV file in one transaction, all or none"),
     .opts = {{"idempotency-key", CLI_VALUE, N_("do this import at most once"), NULL, NULL}},
     .min_pos = 1, .max_pos = 1, .missing = N_("give the CSV file to import (- for stdin)"),
     .db = CLI_DB_OPEN, .run = cmd_pay_import},
    {NULL},
};

/* ---------------------------------------------------------------- refund */

static int cmd_refund(struct cli *c, const struct cli_args *a)
{
	const char *key = cli_arg_get(a, "idempotency-key");
	struct refund_input in = {0};
	struct refund_outcome out;
	struct idem_result res = {0};
	struct payment p;
	char m[MONEY_BUFSZ];
	int rc;

	in.payment_id = a->id;
	if ((rc = payment_get(c->db, in.payment_id, &p)) != 0)
		return cli_refused(rc);
	rc = mcli_amount("--amount", cli_arg_get(a, "amount"), p.currency, &in.amount);
	payment_free(&p);
	if (rc)
		return rc;
	in.method = cli_arg_get(a, "method");
	in.reference = cli_arg_get(a, "reference");
	in.reason = cli_arg_get(a, "reason");
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
			printf(_("Refund of %1$s %2$s asked of the payment channel for card order "
			         "%3$s "
			         "(payment %4$lld); the channel worker sends it, and the refund is "
			         "posted "
			         "when the channel says it succeeded.\n"),
			       mcli_money(in.amount, p.currency, m), p.currency, out.order_no,
			       (long long)p.id);
			payment_free(&p);
		}
		return rc ? cli_refused(rc) : CLI_OK;
	}
	res.id = out.id;
	res.replayed = out.replayed;
	mcli_replay(&res, key);
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
		       mcli_money(in.amount, p.currency, m), p.currency, (long long)p.id);
		payment_free(&p);
	}
	idem_result_free(&res);
	return rc ? cli_refused(rc) : CLI_OK;
}

const struct cli_entry mcli_refund_entry = {
    "refund",
    NULL,
    "PAYMENT --amount A --reason R [--method M] [--reference R] [--idempotency-key K]",
    NULL,
    N_("refund (part of) a payment"),
    .opts = {{"amount", CLI_VALUE, N_("how much goes back (required)"), NULL,
              N_("--amount and --reason are required")},
             {"reason", CLI_VALUE, N_("why (required)"), NULL,
              N_("--amount and --reason are required")},
             {"method", CLI_VALUE, N_("how it goes back (default: the payment's method)"), NULL,
              NULL},
             {"reference", CLI_VALUE, N_("check number or channel reference"), NULL, NULL},
             KEY_OPT},
    .max_pos = 1,
    .id = N_("the payment id"),
    .db = CLI_DB_OPEN,
    .run = cmd_refund};
