/*
 * cli-money.c - `frontdesk invoice|pay|refund|check|report|export ...`:
 * invoices and credit notes, payments and their allocations, reversals,
 * refunds, the database check, the reports and the journal export (see
 * invoice.h, payment.h, checkdb.h, report.h, journal.h).
 *
 * Amounts are typed ("300", "1,234.50") and shown in the document's
 * currency; JSON carries minor units. An amount, date or quantity that
 * cannot be read is a refusal (exit 1) like any other bad input; a missing
 * or malformed id is bad usage (exit 2). Commands that create money records
 * take --idempotency-key: the same key with the same request prints the
 * first response again (with a note on stderr) and writes nothing. Reports
 * print a table, --json (minor units) or --csv (decimal amounts, text cells
 * guarded against spreadsheet formulas).
 *
 * This file holds what they share; the commands and their tables are in
 * cli-invoice.c, cli-pay.c and cli-report.c.
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

/* ---------------------------------------------------------------- shared */

const char *mcli_money(int64_t v, const char *code, char buf[MONEY_BUFSZ])
{
	return money_text(v, code, 1, buf);
}

const char *mcli_date(int64_t t, char buf[32])
{
	clock_format_local(t, DATE_FMT, buf, 32);
	return buf;
}

/* An amount of currency code; a refusal (exit 1) that names what it is. */
int mcli_amount(const char *what, const char *text, const char *code, int64_t *out)
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
int mcli_invoice(struct cli *c, const char *text, int64_t *id)
{
	int rc = invoice_find(c->db, text, id);

	return rc ? cli_refused(rc) : 0;
}

/* Print the note that an idempotent request was answered from its record. */
void mcli_replay(const struct idem_result *res, const char *key)
{
	if (res->replayed)
		fprintf(stderr,
		        _("frontdesk: idempotency key '%.60s' was used for this same request "
		          "before; showing its first result (nothing was written)\n"),
		        key);
}

/* ---------------------------------------------------------------- printing */

int mcli_print_check(struct cli *c, const struct cli_args *a)
{
	const char *fmt = cli_arg_get(a, "format"), *width = cli_arg_get(a, "width");
	const char *out = cli_arg_get(a, "output");

	(void)c;
	if (fmt && strcmp(fmt, "text") && strcmp(fmt, "pdf"))
		return cli_usage(a->cmd, _("--format is text or pdf"));
	if (width && strcmp(width, "80") && strcmp(width, "42"))
		return cli_usage(a->cmd, _("--width is 80 or 42"));
	if (fmt && !strcmp(fmt, "pdf") && !out)
		return cli_usage(a->cmd,
		                 _("a PDF needs --output FILE (it is never sent to the terminal)"));
	if (out && !*out)
		return cli_usage(a->cmd, _("--output needs a file name"));
	return 0;
}

int mcli_print(struct cli *c, const struct cli_args *a, int doc, int64_t id, const char *name)
{
	const char *fmt = cli_arg_get(a, "format"), *width = cli_arg_get(a, "width");
	const char *out = cli_arg_get(a, "output");
	int pdf = fmt && !strcmp(fmt, "pdf");
	int rc = print_write(c->db, (enum print_doc)doc, id, pdf ? PRINT_PDF : PRINT_TEXT,
	                     width ? atoi(width) : PRINT_WIDE, out);

	if (rc)
		return cli_refused(rc);
	return mcli_print_done(c, name, pdf, out);
}

int mcli_print_done(struct cli *c, const char *name, int pdf, const char *out)
{
	if (!out)
		return CLI_OK;
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "document", name);
		cli_json_str(o, "format", pdf ? "pdf" : "text");
		cli_json_str(o, "output", out);
		cli_print_json(o);
	} else {
		printf(_("%1$s written to %2$s\n"), name, out);
	}
	return CLI_OK;
}
