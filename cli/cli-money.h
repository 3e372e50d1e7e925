/*
 * cli-money.h - what the money commands of the command line share (private
 * to cli-money.c, cli-invoice.c, cli-pay.c, cli-report.c, cli-commission.c
 * and the head office's reports in cli-hq.c): amounts and
 * dates as people read them, typed amounts, invoices named by number, the
 * note of a replayed idempotent request, and the command tables of the
 * money commands. A front end: no SQL and no business rule here.
 */
#ifndef FD_CLI_MONEY_H
#define FD_CLI_MONEY_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "cli-util.h"
#include "idem.h"
#include "money.h"

struct allocation;

#define DATE_FMT "%Y-%m-%d"
#define TIME_FMT "%Y-%m-%d %H:%M"
#define MAX_ARGS 64 /* positional allocations per command */

/* mcli_money - v in currency code, grouped ("1,234.50"); "?" if unknown. */
const char *mcli_money(int64_t v, const char *code, char buf[MONEY_BUFSZ]);

/* mcli_date - t as a shop-time date (YYYY-MM-DD) in buf. */
const char *mcli_date(int64_t t, char buf[32]);

/* mcli_amount - parse text as an amount of currency code into *out; a
 * refusal (exit 1) naming what when it is not one. */
int mcli_amount(const char *what, const char *text, const char *code, int64_t *out);

/* mcli_invoice - the id of the invoice named by a number or an id; a
 * refusal when there is none. */
int mcli_invoice(struct cli *c, const char *text, int64_t *id);

/* mcli_replay - print on stderr that an idempotent request was answered
 * from its record (only when res says it was). */
void mcli_replay(const struct idem_result *res, const char *key);

/* What a show command's list callbacks write to: a JSON array (arr) or,
 * when arr is NULL, lines on stdout in currency. */
struct mcli_show {
	struct cli *c;
	cJSON *arr;
	const char *currency;
	int by_invoice; /* the allocations of an invoice (else of a payment) */
};

/* mcli_alloc_cb - an alloc_list callback (arg: struct mcli_show) that adds
 * the allocation to s->arr or prints it. */
int mcli_alloc_cb(const struct allocation *a, void *arg);

/* mcli_alloc_json - an allocation as a JSON object (the caller owns it). */
cJSON *mcli_alloc_json(const struct allocation *a);

/* mcli_print_check - the check of invoice print and pay print: --format
 * text|pdf, --width 80|42, a PDF only with --output (usage errors). */
int mcli_print_check(struct cli *c, const struct cli_args *a);
/* mcli_print_done - what a print that went to out (NULL: stdout, nothing
 * more is said) says: the document's name, its format and the file, or
 * their JSON. */
int mcli_print_done(struct cli *c, const char *name, int pdf, const char *out);

/* mcli_print - write document doc (enum print_doc) id as the options ask
 * (print_write): text on stdout, or to --output FILE with a line saying
 * so naming it as name. Returns an exit status. */
int mcli_print(struct cli *c, const struct cli_args *a, int doc, int64_t id, const char *name);

/* The options of invoice print and pay print. */
#define MCLI_PRINT_OPTS                                                                            \
	{"format", CLI_VALUE, N_("text (the default) or pdf (A4; needs --output)"), NULL, NULL},   \
	    {"width", CLI_VALUE,                                                                   \
	     N_("columns of the text: 80 (the default) or 42, a receipt printer"), NULL, NULL},    \
	{                                                                                          \
		"output", CLI_VALUE, N_("write the file FILE (mode 0600) instead of stdout"),      \
		    NULL, NULL                                                                     \
	}

/* The subcommands of each group (cli-invoice.c, cli-pay.c, cli-report.c). */
extern const struct cli_entry mcli_invoice_cmds[];
extern const struct cli_entry mcli_pay_cmds[];
extern const struct cli_entry mcli_report_cmds[];
/* report commissions (cli-commission.c) */
int mcli_commission_check(struct cli *c, const struct cli_args *a);
int mcli_commission_run(struct cli *c, const struct cli_args *a);
/* Its rows and totals as commission_report's callbacks write them, for
 * the head office's report too (cli-hq.c): arg is a struct mcli_comm_out.
 * With techs, JSON (a technician's object, its rows inside, after its
 * total); else CSV with csv, else text (mcli_comm_text_row, which names
 * each technician before its first row). */
struct mcli_comm_out {
	int csv;
	cJSON *techs;      /* --json: the array of technicians */
	cJSON *cur;        /* --json: the rows of the technician being written */
	int64_t last_tech; /* text: the technician whose name was printed last */
	char last_cur[4];
};
struct commission_row;
struct commission_total;
int mcli_comm_row(const struct commission_row *r, void *arg);
int mcli_comm_text_row(const struct commission_row *r, void *arg);
int mcli_comm_total(const struct commission_total *t, void *arg);
extern const struct cli_entry mcli_export_cmds[];

/* `frontdesk refund PAYMENT ...` (cli-pay.c) and `frontdesk check`
 * (cli-report.c). */
extern const struct cli_entry mcli_refund_entry, mcli_check_entry;

#endif
