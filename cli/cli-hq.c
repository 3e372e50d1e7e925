/*
 * cli-hq.c - `frontdesk hq ...`: the chain's head office (hq.h). At the
 * head office: init (its PostgreSQL schema) and status (each shop's last
 * batch and lag); at a shop: join (report to a head office) and sync (one
 * round of sending, as the worker does).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-money.h"
#include "cli-util.h"
#include "clock.h"
#include "commission.h"
#include "control.h"
#include "err.h"
#include "hq.h"
#include "i18n.h"
#include "money.h"
#include "pipe-provider.h"
#include "xalloc.h"

static int cmd_init(struct cli *c, const struct cli_args *a)
{
	int applied = 0, version = 0, rc;

	if ((rc = hq_init(cli_arg_get(a, "pg"), &applied, &version)) != 0)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "applied", applied);
		cli_json_int(o, "version", version);
		cli_print_json(o);
	} else if (applied)
		printf(
		    _("The head office's schema is at version %1$d (%2$d migration(s) applied).\n"),
		    version, applied);
	else
		printf(_("The head office's schema is at version %d already.\n"), version);
	return CLI_OK;
}

static int cmd_join(struct cli *c, const struct cli_args *a)
{
	const char *code = cli_arg_get(a, "provider");
	int rc;

	if (!code)
		code = "hq";
	if ((rc = hq_join(c->db, code, cli_arg_get(a, "pg"), cli_arg_get(a, "shop"),
	                  cli_arg_get(a, "name"), cli_arg_get(a, "secrets"))) != 0)
		return cli_refused(rc);
	if (!c->json) {
		fputs(_("This shop reports to the head office as "), stdout);
		cli_puts_safe(cli_arg_get(a, "shop"));
		fputs(_(": its changes are sent by 'frontdesk serve' (or 'frontdesk hq sync "
		        "--once').\n"),
		      stdout);
	} else {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "shop", cli_arg_get(a, "shop"));
		cli_json_str(o, "provider", code);
		cli_print_json(o);
	}
	return CLI_OK;
}

static int cmd_sync(struct cli *c, const struct cli_args *a)
{
	struct hq_sent s = {0};
	struct control_hold lease;
	struct pipe_conn ch;
	int64_t ttl = 60;
	int rc;

	if (cli_arg_flag(a, "lease-seconds")) {
		ttl = cli_arg_id(a, "lease-seconds");
		ttl = ttl > 3600 ? 3600 : ttl;
	}
	if (!cli_arg_flag(a, "once"))
		return cli_usage(a->cmd, "%s",
		                 _("only --once is supported here; the worker runs in the desk or "
		                   "in 'frontdesk serve'"));
	if ((rc = control_acquire(c->db, CONTROL_CHANNEL, CONTROL_LEASE, (int)ttl, &lease)) != 0)
		return cli_refused(rc);
	if ((rc = hq_conn_open(c->db, cli_arg_get(a, "provider"), cli_arg_get(a, "secrets"), NULL,
	                       &ch)) == 0) {
		/* rounds until nothing more goes, or until everything written
		 * before this command is sent: a round queues a bounded number of
		 * batches, so a long backlog takes several; what the desk writes
		 * meanwhile is due next time (a desk taking payments all along
		 * kept --once going without end) */
		int64_t *mark = xcalloc(hq_ntables, sizeof *mark);
		int before, reached = 0;

		rc = hq_mark(c->db, mark);
		while (!rc && !reached) {
			before = s.sent;
			rc = hq_deliver(c->db, &ch, &lease, NULL, &s);
			/* a long backlog outlasts the lease: held on, round by round */
			if (!rc && s.sent > before)
				rc = control_renew(c->db, &lease);
			if (rc || s.sent == before || s.failed || s.dead)
				break;
			reached = hq_reached(c->db, mark);
			rc = reached < 0 ? reached : 0;
		}
		free(mark);
		pipe_conn_close(&ch);
	}
	control_release(c->db, &lease);
	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "sent", s.sent);
		cli_json_int(o, "rows", s.rows);
		cli_json_int(o, "failed", s.failed);
		cli_json_int(o, "dead", s.dead);
		cli_print_json(o);
	} else
		printf(
		    _("%1$d batch(es) sent (%2$lld change(s)), %3$d to try again, %4$d refused by "
		      "the head office.\n"),
		    s.sent, (long long)s.rows, s.failed, s.dead);
	return s.dead ? CLI_REFUSED : CLI_OK;
}

static int status_cb(const struct hq_shop_status *s, void *arg)
{
	struct cli *c = arg;

	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "shop", s->code);
		cli_json_str(o, "name", s->name);
		cli_json_str(o, "last_batch_at", *s->last_batch_at ? s->last_batch_at : NULL);
		if (s->lag_seconds >= 0)
			cli_json_int(o, "lag_seconds", s->lag_seconds);
		cli_json_int(o, "records", s->records);
		cli_json_int(o, "batches", s->batches);
		cli_json_int(o, "waiting", s->waiting);
		cli_json_int(o, "failed", s->failed);
		cli_list_add(c, o);
		return 0;
	}
	cli_puts_safe(s->code);
	if (*s->name) {
		fputs(" (", stdout);
		cli_puts_safe(s->name);
		fputs(")", stdout);
	}
	if (*s->last_batch_at)
		printf(
		    _(": last batch %1$s (%2$lld s ago), %3$lld record(s) from %4$lld batch(es); "
		      "%5$lld waiting at the shop, %6$lld failing\n"),
		    s->last_batch_at, (long long)s->lag_seconds, (long long)s->records,
		    (long long)s->batches, (long long)s->waiting, (long long)s->failed);
	else
		fputs(_(": joined, nothing received yet\n"), stdout);
	return 0;
}

static int cmd_status(struct cli *c, const struct cli_args *a)
{
	cli_list_begin(c, "shops");
	return cli_list_end(c, hq_status(cli_arg_get(a, "pg"), status_cb, c));
}

struct chk {
	struct cli *c;
	int differs;
};

static int check_cb(const struct hq_check_row *r, void *arg)
{
	struct chk *k = arg;
	struct cli *c = k->c;
	static const char *const words[] = {"agrees", "behind", "differs", "nothing"};

	if (r->state == HQ_CHECK_DIFFERS)
		k->differs = 1;
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "shop", r->shop);
		cli_json_str(o, "state", words[r->state]);
		if (*r->detail)
			cli_json_str(o, "detail", r->detail);
		cli_list_add(c, o);
		return 0;
	}
	cli_puts_safe(r->shop);
	switch (r->state) {
	case HQ_CHECK_AGREES:
		fputs(_(": the head office's figures are the shop's"), stdout);
		break;
	case HQ_CHECK_BEHIND:
		fputs(_(": the head office has not yet every change the shop reported: "), stdout);
		break;
	case HQ_CHECK_DIFFERS:
		fputs(_(": DIFFERS: "), stdout);
		break;
	default:
		fputs(_(": nothing received yet"), stdout);
	}
	cli_puts_safe(r->detail);
	putchar('\n');
	return 0;
}

static int cmd_check(struct cli *c, const struct cli_args *a)
{
	struct chk k = {c, 0};
	int rc;

	cli_list_begin(c, "shops");
	rc = cli_list_end(
	    c, hq_check_shops(cli_arg_get(a, "pg"), cli_arg_get(a, "shop"), check_cb, &k));
	if (rc)
		return rc;
	if (k.differs) {
		fprintf(stderr, "%s\n",
		        _("frontdesk hq check: the head office's figures differ from a shop's"));
		return CLI_REFUSED;
	}
	return CLI_OK;
}

static const char *const bucket_names[5] = {"current", "1-30", "31-60", "61-90", "over_90"};

/* Per currency, the sums of a report's rows (JSON: "totals"). */
static void add_total(cJSON *totals, const char *currency, const char *const *keys,
                      const int64_t *v, int n)
{
	cJSON *t = cJSON_GetObjectItemCaseSensitive(totals, currency);
	int i;

	if (!t) {
		t = cJSON_AddObjectToObject(totals, currency);
		for (i = 0; i < n; i++)
			cJSON_AddNumberToObject(t, keys[i], 0);
	}
	for (i = 0; i < n; i++) {
		cJSON *f = cJSON_GetObjectItemCaseSensitive(t, keys[i]);

		cJSON_SetNumberValue(f, cJSON_GetNumberValue(f) + (double)v[i]);
	}
}

struct rep {
	struct cli *c;
	cJSON *rows, *totals;
	void (*header)(void); /* printed before the first row (or after no row) */
};

/* The header, once, when the report has something to say. */
static void header_once(struct rep *o)
{
	if (o->header && !o->c->json)
		o->header();
	o->header = NULL;
}

static void aging_header(void)
{
	printf("%-8s %6s  %-3s %12s %12s %12s %12s %12s %12s %12s  %s\n", _("shop"), _("id"),
	       _("cur"), _("current"), "1-30", "31-60", "61-90", _("over 90"), _("owed"),
	       _("credit"), _("customer"));
}

static void takings_header(void)
{
	printf("%-10s  %-10s %-3s %6s %12s %12s %12s\n", _("day"), _("method"), _("cur"),
	       _("count"), _("received"), _("refunded"), _("net"));
}

static int aging_cb(const struct hq_aging_row *r, void *arg)
{
	static const char *const keys[7] = {"current", "1-30", "31-60", "61-90",
	                                    "over_90", "owed", "credit"};
	struct rep *o = arg;
	int64_t v[7];
	char m[MONEY_BUFSZ];
	int i;

	for (i = 0; i < 5; i++)
		v[i] = r->bucket[i];
	v[5] = r->owed;
	v[6] = r->credit;
	add_total(o->totals, r->currency, keys, v, 7);
	header_once(o);
	if (o->c->json) {
		cJSON *j = cJSON_CreateObject(), *b;

		cli_json_str(j, "shop", r->shop);
		cli_json_int(j, "customer_id", r->customer_id);
		cli_json_str(j, "customer_name", r->customer_name);
		cli_json_str(j, "currency", r->currency);
		b = cJSON_AddObjectToObject(j, "buckets");
		for (i = 0; i < 5; i++)
			cli_json_int(b, bucket_names[i], r->bucket[i]);
		cli_json_int(j, "owed", r->owed);
		cli_json_int(j, "credit", r->credit);
		cJSON_AddItemToArray(o->rows, j);
		return 0;
	}
	printf("%-8.20s %6lld  %-3s", r->shop, (long long)r->customer_id, r->currency);
	for (i = 0; i < 7; i++)
		printf(" %12s", money_text(v[i], r->currency, 1, m));
	fputs("  ", stdout);
	cli_puts_safe(r->customer_name);
	putchar('\n');
	return 0;
}

/* The totals under the rows, per currency. */
static void print_totals(const cJSON *totals, int n, int skip)
{
	const cJSON *t, *f;
	char m[MONEY_BUFSZ];
	int i;

	cJSON_ArrayForEach(t, totals)
	{
		printf("%-*s%-3s", skip, _("total"), t->string);
		i = 0;
		cJSON_ArrayForEach(f, t)
		{
			if (i++ < n)
				printf(" %12s", money_text((int64_t)cJSON_GetNumberValue(f),
				                           t->string, 1, m));
		}
		putchar('\n');
	}
}

static int cmd_aging(struct cli *c, const struct cli_args *a)
{
	struct rep o = {c, cJSON_CreateArray(), cJSON_CreateObject(), aging_header};
	int rc;

	rc = hq_report_aging(cli_arg_get(a, "pg"), cli_arg_get(a, "shops"), cli_arg_get(a, "on"),
	                     aging_cb, &o);
	if (!rc && c->json) {
		cJSON *j = cJSON_CreateObject();

		cJSON_AddItemToObject(j, "customers", o.rows);
		cJSON_AddItemToObject(j, "totals", o.totals);
		cli_print_json(j);
		return CLI_OK;
	}
	if (!rc) {
		header_once(&o);
		print_totals(o.totals, 7, 16);
	}
	cJSON_Delete(o.rows);
	cJSON_Delete(o.totals);
	return rc ? cli_refused(rc) : CLI_OK;
}

static int takings_cb(const struct hq_takings_row *r, void *arg)
{
	static const char *const keys[4] = {"count", "received", "refunded", "net"};
	struct rep *o = arg;
	int64_t v[4] = {r->count, r->received, r->refunded, r->net};
	char m1[MONEY_BUFSZ], m2[MONEY_BUFSZ], m3[MONEY_BUFSZ];

	add_total(o->totals, r->currency, keys, v, 4);
	header_once(o);
	if (o->c->json) {
		cJSON *j = cJSON_CreateObject();

		cli_json_str(j, "day", r->day);
		cli_json_str(j, "method", r->method);
		cli_json_str(j, "currency", r->currency);
		cli_json_int(j, "payments", r->count);
		cli_json_int(j, "received", r->received);
		cli_json_int(j, "refunded", r->refunded);
		cli_json_int(j, "net", r->net);
		cJSON_AddItemToArray(o->rows, j);
		return 0;
	}
	printf("%s  %-10.16s %-3s %6lld %12s %12s %12s\n", r->day, r->method, r->currency,
	       (long long)r->count, money_text(r->received, r->currency, 1, m1),
	       money_text(r->refunded, r->currency, 1, m2), money_text(r->net, r->currency, 1, m3));
	return 0;
}

static int cmd_takings(struct cli *c, const struct cli_args *a)
{
	struct rep o = {c, cJSON_CreateArray(), cJSON_CreateObject(), takings_header};
	const char *from = cli_arg_get(a, "from"), *to = cli_arg_get(a, "to");
	int rc;

	rc = hq_report_takings(cli_arg_get(a, "pg"), cli_arg_get(a, "shops"), from, to, takings_cb,
	                       &o);
	if (!rc && c->json) {
		cJSON *j = cJSON_CreateObject();

		cli_json_str(j, "from", from);
		cli_json_str(j, "to", to);
		cJSON_AddItemToObject(j, "days", o.rows);
		cJSON_Delete(o.totals);
		cli_print_json(j);
		return CLI_OK;
	}
	if (!rc)
		header_once(&o);
	cJSON_Delete(o.rows);
	cJSON_Delete(o.totals);
	return rc ? cli_refused(rc) : CLI_OK;
}

struct stmt {
	struct cli *c;
	const char *currency;
	cJSON *lines;
};

static int statement_cb(const struct hq_statement_line *l, void *arg)
{
	struct stmt *o = arg;
	char d[32], m1[MONEY_BUFSZ], m2[MONEY_BUFSZ];

	if (o->lines) {
		cJSON *j = cJSON_CreateObject();

		cli_json_time(j, "at", l->at);
		cli_json_str(j, "kind", l->kind);
		cli_json_int(j, "id", l->id);
		cli_json_str(j, "ref", l->ref);
		cli_json_str(j, "target", l->target);
		cli_json_int(j, "amount", l->amount);
		cli_json_int(j, "allocated", l->allocated);
		cli_json_int(j, "balance", l->balance);
		cJSON_AddItemToArray(o->lines, j);
		return 0;
	}
	clock_format_local(l->at, "%Y-%m-%d", d, sizeof d);
	printf("%s  %-11s #%-5lld ", d, l->kind, (long long)l->id);
	cli_puts_safe(l->ref ? l->ref : "");
	if (l->target) {
		fputs(" -> ", stdout);
		cli_puts_safe(l->target);
	}
	if (!strcmp(l->kind, "allocation"))
		printf(": %s\n", money_text(l->allocated, o->currency, 1, m1));
	else
		printf("  %s  %s %s\n", money_text(l->amount, o->currency, 1, m1), _("balance"),
		       money_text(l->balance, o->currency, 1, m2));
	return 0;
}

static int cmd_statement(struct cli *c, const struct cli_args *a)
{
	const char *shop = cli_arg_get(a, "shop"), *cur = cli_arg_get(a, "currency");
	struct stmt o = {c, cur, NULL};
	struct hq_statement_totals t;
	cJSON *j = NULL, *s = NULL;
	char m[4][MONEY_BUFSZ];
	int64_t id = 0;
	int rc;

	if ((rc = cli_parse_id(a->cmd, "--customer", cli_arg_get(a, "customer"), &id)) != 0)
		return rc;
	if (c->json) {
		j = cJSON_CreateObject();
		s = cJSON_CreateObject();
		o.lines = cJSON_AddArrayToObject(s, "lines");
	}
	rc = hq_report_statement(cli_arg_get(a, "pg"), shop, id, cur, statement_cb, &o, &t);
	if (rc) {
		cJSON_Delete(j);
		cJSON_Delete(s);
		return cli_refused(rc);
	}
	if (j) {
		cJSON *tj = cJSON_AddObjectToObject(s, "totals");

		cli_json_str(j, "shop", shop);
		cli_json_int(j, "customer_id", id);
		cli_json_str(j, "customer_name", t.customer_name);
		cli_json_str(s, "currency", cur);
		cli_json_int(tj, "invoiced", t.invoiced);
		cli_json_int(tj, "credited", t.credited);
		cli_json_int(tj, "received", t.received);
		cli_json_int(tj, "refunded", t.refunded);
		cli_json_int(tj, "balance", t.balance);
		cli_json_int(tj, "open_invoices", t.open);
		cli_json_int(tj, "credit", t.credit);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(j, "statements"), s);
		cli_print_json(j);
		return CLI_OK;
	}
	printf(_("Invoiced %1$s, credited %2$s, received %3$s, refunded %4$s; balance %5$s %6$s\n"),
	       money_text(t.invoiced, cur, 1, m[0]), money_text(t.credited, cur, 1, m[1]),
	       money_text(t.received, cur, 1, m[2]), money_text(t.refunded, cur, 1, m[3]),
	       money_text(t.balance, cur, 1, (char[MONEY_BUFSZ]){0}), cur);
	return CLI_OK;
}

static int find_cb(const struct hq_customer_row *r, void *arg)
{
	struct cli *c = arg;

	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "shop", r->shop);
		cli_json_int(o, "customer_id", r->id);
		cli_json_str(o, "name", r->name);
		cli_json_str(o, "phone", *r->phone ? r->phone : NULL);
		cli_json_str(o, "email", *r->email ? r->email : NULL);
		cli_json_str(o, "owes", r->owed);
		cli_list_add(c, o);
		return 0;
	}
	printf("%-8.20s %6lld  ", r->shop, (long long)r->id);
	cli_puts_safe(r->name);
	if (*r->phone) {
		fputs("  ", stdout);
		cli_puts_safe(r->phone);
	}
	if (*r->email) {
		fputs("  ", stdout);
		cli_puts_safe(r->email);
	}
	if (*r->owed) {
		fputs(_("  owes "), stdout);
		cli_puts_safe(r->owed);
	}
	putchar('\n');
	return 0;
}

static int cmd_find(struct cli *c, const struct cli_args *a)
{
	cli_list_begin(c, "customers");
	return cli_list_end(c, hq_customer_find(cli_arg_get(a, "pg"), a->pos[0], find_cb, c));
}

/* hq report commissions: each shop's report as the shop prints its own,
 * under the shop's code (JSON: each technician's object names its shop). */
struct comm_hq {
	struct mcli_comm_out o;
	const char *from, *to;
	char shop[24]; /* the shop whose rows are being written */
};

static void comm_shop(struct comm_hq *h, const char *shop)
{
	if (!strcmp(h->shop, shop))
		return;
	snprintf(h->shop, sizeof h->shop, "%s", shop);
	h->o.last_tech = -1;
	if (h->o.techs)
		return;
	if (h->from) /* the header, before the first shop */
		printf(_("Commissions from %s to %s:\n"), h->from, h->to);
	h->from = NULL;
	printf(_("Shop %s:\n"), shop);
}

static int comm_hq_row(const char *shop, const struct commission_row *r, void *arg)
{
	struct comm_hq *h = arg;

	comm_shop(h, shop);
	return h->o.techs ? mcli_comm_row(r, &h->o) : mcli_comm_text_row(r, &h->o);
}

static int comm_hq_total(const char *shop, const struct commission_total *t, void *arg)
{
	struct comm_hq *h = arg;
	int rc;

	comm_shop(h, shop);
	if ((rc = mcli_comm_total(t, &h->o)) == 0 && h->o.techs) {
		cJSON *last = cJSON_GetArrayItem(h->o.techs, cJSON_GetArraySize(h->o.techs) - 1);

		cJSON_AddItemToObject(last, "shop", cJSON_CreateString(shop));
	}
	return rc;
}

static int cmd_commissions(struct cli *c, const struct cli_args *a)
{
	const char *from = cli_arg_get(a, "from"), *to = cli_arg_get(a, "to");
	struct comm_hq h = {{0, NULL, NULL, -1, ""}, from, to, ""};
	cJSON *j = NULL;
	int rc;

	if (c->json) {
		j = cJSON_CreateObject();
		cli_json_str(j, "from", from);
		cli_json_str(j, "to", to);
		h.o.techs = cJSON_AddArrayToObject(j, "technicians");
	}
	rc = hq_report_commissions(cli_arg_get(a, "pg"), cli_arg_get(a, "shops"), from, to,
	                           comm_hq_row, comm_hq_total, &h);
	if (h.o.cur)
		cJSON_Delete(h.o.cur);
	if (j && !rc)
		cli_print_json(j);
	else
		cJSON_Delete(j);
	if (!rc && !j && !h.shop[0])
		printf(_("No commissions from %1$s to %2$s.\n"), from, to);
	return rc ? cli_refused(rc) : CLI_OK;
}

#define PG_OPT                                                                                     \
	{                                                                                          \
		"pg", CLI_VALUE, N_("the head office's PostgreSQL address (postgresql://...)"),    \
		    NULL, N_("--pg URL is required")                                               \
	}

/* the options of a report over a period of some shops */
#define PERIOD_OPTS                                                                                \
	{                                                                                          \
		PG_OPT,                                                                            \
		    {"shops", CLI_VALUE, N_("only these shops (codes, comma-separated)"), NULL,    \
		     NULL},                                                                        \
		    {"from", CLI_VALUE, N_("the first day (YYYY-MM-DD)"), NULL,                    \
		     N_("--from DATE is required")},                                               \
		{                                                                                  \
			"to", CLI_VALUE, N_("the last day (YYYY-MM-DD)"), NULL,                    \
			    N_("--to DATE is required")                                            \
		}                                                                                  \
	}

static const struct cli_entry report_cmds[] = {
    {"aging", NULL, "--pg URL [--shops S1,S2] [--on DATE]", NULL,
     N_("what customers owe across shops, by days past due, and their credit"),
     .opts = {PG_OPT,
              {"shops", CLI_VALUE, N_("only these shops (codes, comma-separated)"), NULL, NULL},
              {"on", CLI_VALUE,
               N_("count the days past due on this day (YYYY-MM-DD; default "
                  "each shop's today)"),
               NULL, NULL}},
     .run = cmd_aging},
    {"takings", NULL, "--pg URL --from DATE --to DATE [--shops S1,S2]", NULL,
     N_("money received and refunded across shops, per day, method and currency"),
     .opts = PERIOD_OPTS, .run = cmd_takings},
    {"commissions", NULL, "--pg URL --from DATE --to DATE [--shops S1,S2]", NULL,
     N_("each technician's commissions for a pay period, shop by shop, as each shop's own "
        "report"),
     .opts = PERIOD_OPTS, .run = cmd_commissions},
    {"statement", NULL, "--pg URL --shop CODE --customer ID --currency CUR", NULL,
     N_("a customer's statement at one shop, from what the shop sent"),
     .opts = {PG_OPT,
              {"shop", CLI_VALUE, N_("the shop"), NULL, N_("--shop CODE is required")},
              {"customer", CLI_VALUE, N_("the customer's id at that shop"), NULL,
               N_("--customer ID is required")},
              {"currency", CLI_VALUE, N_("the currency (USD, EUR, ...)"), NULL,
               N_("--currency CUR is required")}},
     .run = cmd_statement},
    {NULL},
};

static const struct cli_entry customer_cmds[] = {
    {"find", NULL, "TEXT --pg URL", NULL,
     N_("the customers of every shop whose name, phone or e-mail holds TEXT, and what they "
        "owe in each"),
     .opts = {PG_OPT}, .min_pos = 1, .max_pos = 1, .nonempty = 1,
     .missing = N_("give a name, phone number or e-mail address to look for"), .run = cmd_find},
    {NULL},
};

const struct cli_entry cli_hq_cmds[] = {
    {"init", NULL, "--pg URL", NULL,
     N_("create the head office's schema in PostgreSQL, or bring it up to date"), .opts = {PG_OPT},
     .run = cmd_init},
    {"join", NULL, "--pg URL --shop CODE [--name N] [--provider CODE] [--secrets FILE]", NULL,
     N_("this shop reports to the head office at URL as CODE"),
     .opts = {PG_OPT,
              {"shop", CLI_VALUE, N_("the shop's code at the head office"), NULL,
               N_("--shop CODE is required")},
              {"name", CLI_VALUE, N_("the shop's name at the head office"), NULL, NULL},
              {"provider", CLI_VALUE,
               N_("the head office's provider code here (default hq; its password is "
                  "CODE_password in the secrets file)"),
               NULL, NULL},
              {"secrets", CLI_VALUE, N_("the secrets file (default: the config folder's)"), NULL,
               NULL}},
     .db = CLI_DB_OPEN, .run = cmd_join},
    {"sync", NULL, "--once [--provider CODE] [--secrets FILE] [--lease-seconds N]", NULL,
     N_("send the changes waiting for the head office (serve does it)"),
     .opts = {{"once", CLI_FLAG, N_("do what is due now and stop"), NULL, NULL},
              {"lease-seconds", CLI_ID,
               N_("how long the worker's lease lasts without renewal (default 60; renewed "
                  "after each round)"),
               NULL, NULL},
              {"provider", CLI_VALUE, N_("this provider only"), NULL, NULL},
              {"secrets", CLI_VALUE, N_("the secrets file (default: the config folder's)"), NULL,
               NULL}},
     .db = CLI_DB_OPEN, .run = cmd_sync},
    {"check", NULL, "--pg URL [--shop CODE]", NULL,
     N_("each shop's figures at the head office against the figures the shop sent"),
     .opts = {PG_OPT, {"shop", CLI_VALUE, N_("this shop only"), NULL, NULL}}, .run = cmd_check},
    {"report", NULL, NULL, NULL, N_("the chain's reports: aging, takings, commissions, statement"),
     .sub = report_cmds},
    {"customer", NULL, NULL, NULL, N_("the chain's customers: find"), .sub = customer_cmds},
    {"status", NULL, "--pg URL", NULL,
     N_("at the head office: each shop's last batch, its lag, what waits at the shop"),
     .opts = {PG_OPT}, .run = cmd_status},
    {NULL},
};
