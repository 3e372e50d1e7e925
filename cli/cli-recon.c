/*
 * cli-recon.c - `frontdesk recon ...`: reconciling a day against the
 * payment channel's settlement data (run, import), the batches and their
 * differences (list, show, diffs, diff), a person's decision on each
 * (resolve), the parked events a person may claim (parked, claim) and the
 * state of the books (state). The rules are recon.c's; this file parses
 * and prints.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chan-adapters.h"
#include "cli-util.h"
#include "clock.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "money.h"
#include "pipe-provider.h"
#include "privs.h"
#include "recon.h"
#include "settle-file.h"
#include "xalloc.h"

#define CHANNEL_OPT                                                                                \
	{                                                                                          \
		"channel", CLI_VALUE, N_("the payment provider (default: the primary)"), NULL,     \
		    NULL                                                                           \
	}
#define SECRETS_OPT                                                                                \
	{                                                                                          \
		"secrets", CLI_VALUE, N_("the secrets file (default: see the manual)"), NULL, NULL \
	}

static void print_result(struct cli *c, const char *provider, const char *day,
                         const struct recon_result *r)
{
	if (c->json) {
		cJSON *j = cJSON_CreateObject();

		cli_json_int(j, "batch", r->batch_id);
		cli_json_str(j, "provider", provider);
		cli_json_str(j, "day", day);
		cli_json_int(j, "lines", r->lines);
		cli_json_int(j, "local", r->local);
		cli_json_int(j, "matched", r->matched);
		cli_json_int(j, "diffs_new", r->diffs_new);
		cli_json_int(j, "diffs_seen", r->diffs_seen);
		cli_json_int(j, "diffs_gone", r->diffs_gone);
		cli_json_int(j, "open", r->open);
		cli_json_int(j, "payouts", r->payouts);
		cli_json_int(j, "payouts_not_matching", r->payouts_off);
		cJSON_AddBoolToObject(j, "balanced", r->open == 0);
		cli_print_json(j);
		return;
	}
	printf(_("Batch %1$lld: %2$s %3$s: %4$lld channel line(s), %5$lld of ours, %6$lld matched; "
	         "%7$lld new difference(s), %8$lld found again, %9$lld gone.\n"),
	       (long long)r->batch_id, provider, day, (long long)r->lines, (long long)r->local,
	       (long long)r->matched, (long long)r->diffs_new, (long long)r->diffs_seen,
	       (long long)r->diffs_gone);
	if (r->open)
		printf(
		    _("%1$lld difference(s) of %2$s are open: see frontdesk recon show %3$lld.\n"),
		    (long long)r->open, day, (long long)r->batch_id);
	else
		printf(_("The books are balanced for %s.\n"), day);
}

static int date_check(struct cli *c, const struct cli_args *a)
{
	const char *d = cli_arg_get(a, "date");
	int64_t from, to;

	(void)c;
	if (d && recon_day_window(d, &from, &to) != 0)
		return cli_usage(a->cmd, "%s", err_msg());
	return 0;
}

static int cmd_run(struct cli *c, const struct cli_args *a)
{
	struct pipe_conn ch;
	struct recon_result r;
	const char *day = cli_arg_get(a, "date");
	int rc;

	memset(&ch, 0, sizeof ch);
	if ((rc = chan_adapter_connect(c->db, cli_arg_get(a, "channel"), cli_arg_get(a, "secrets"),
	                               NULL, &ch)) != 0)
		return cli_refused(rc);
	rc = recon_fetch_run(c->db, &ch, day, &r);
	if (!rc)
		print_result(c, ch.p.code, day, &r);
	pipe_conn_close(&ch);
	return rc ? cli_refused(rc) : CLI_OK;
}

static int read_file(const char *path, char **data, size_t *len)
{
	/* the user's file, read with the user's rights in a setgid frontdesk */
	FILE *f = privs_fopen_user(path, "rb");
	size_t cap = 65536, n = 0, got;
	char *buf;

	if (!f)
		return err_set(FD_EIO, _("cannot read %1$s: %2$s"), path, strerror(errno));
	buf = xmalloc(cap);
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			if (cap >= ((size_t)256 << 20)) {
				fclose(f);
				free(buf);
				return err_set(FD_EINVAL,
				               _("%s is too large for a settlement file"), path);
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return err_set(FD_EIO, _("cannot read %1$s: %2$s"), path, strerror(errno));
	}
	fclose(f);
	*data = buf;
	*len = n;
	return 0;
}

static int cmd_import(struct cli *c, const struct cli_args *a)
{
	struct settle_file f;
	struct recon_result r;
	const char *day = cli_arg_get(a, "date");
	char first[16] = "";
	char *data = NULL;
	size_t len = 0;
	int rc;

	memset(&f, 0, sizeof f);
	if ((rc = read_file(a->pos[0], &data, &len)) != 0)
		return cli_refused(rc);
	rc = settle_file_read(data, len, &f);
	free(data);
	if (rc)
		return cli_refused(rc);
	if (!day && f.n) {
		clock_format_local(f.first_created, "%Y-%m-%d", first, sizeof first);
		day = first;
	}
	rc = recon_import(c->db, cli_arg_get(a, "channel"), day, &f, &r);
	if (!rc)
		print_result(c, cli_arg_get(a, "channel") ? cli_arg_get(a, "channel") : f.adapter,
		             day, &r);
	settle_file_free(&f);
	return rc ? cli_refused(rc) : CLI_OK;
}

static cJSON *batch_json(const struct recon_batch *b)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", b->id);
	cli_json_str(o, "provider", b->provider);
	cli_json_str(o, "day", b->day);
	cli_json_time(o, "window_from", b->window_from);
	cli_json_time(o, "window_to", b->window_to);
	cli_json_str(o, "source", b->source);
	cli_json_str(o, "file_sha256", b->sha256[0] ? b->sha256 : NULL);
	cli_json_time_opt(o, "fetch_from", b->fetch_from);
	cli_json_time_opt(o, "fetch_to", b->fetch_to);
	cli_json_str(o, "status", b->status);
	cli_json_int(o, "lines", b->lines);
	cli_json_int(o, "local", b->local);
	cli_json_int(o, "matched", b->matched);
	cli_json_int(o, "diffs_new", b->diffs_new);
	cli_json_int(o, "diffs_seen", b->diffs_seen);
	cli_json_int(o, "diffs_gone", b->diffs_gone);
	cli_json_int(o, "open_at_end", b->open_at_end);
	cli_json_int(o, "open_now", b->open_now);
	cli_json_str(o, "error", b->error[0] ? b->error : NULL);
	cli_json_str(o, "operator", b->operator_id);
	cli_json_time(o, "started_at", b->started_at);
	cli_json_time_opt(o, "finished_at", b->finished_at);
	return o;
}

static int batch_cb(const struct recon_batch *b, void *arg)
{
	struct cli *c = arg;
	char t[32];

	if (c->json) {
		cli_list_add(c, batch_json(b));
		return 0;
	}
	clock_format_local(b->started_at, "%Y-%m-%d %H:%M", t, sizeof t);
	printf("%-6lld %-10s %-10s %-7s %-7s ", (long long)b->id, b->day, b->provider, b->source,
	       b->status);
	printf(_("%1$lld line(s), %2$lld open, run %3$s by "), (long long)b->lines,
	       (long long)b->open_now, t);
	cli_puts_safe(b->operator_id);
	putchar('\n');
	return 0;
}

static int cmd_list(struct cli *c, const struct cli_args *a)
{
	int rc;

	cli_list_begin(c, "batches");
	rc = recon_batch_list(c->db, cli_arg_get(a, "channel"), cli_arg_get(a, "date"),
	                      (int)cli_arg_id(a, "limit"), batch_cb, c);
	return cli_list_end(c, rc);
}

static cJSON *diff_json(const struct recon_diff *d)
{
	cJSON *o = cJSON_CreateObject(), *res;

	cli_json_int(o, "id", d->id);
	cli_json_str(o, "provider", d->provider);
	cli_json_str(o, "kind", d->kind);
	cli_json_str(o, "key", d->natural_key);
	cli_json_str(o, "day", d->day);
	cli_json_int(o, "first_batch", d->first_batch);
	cli_json_int(o, "last_seen_batch", d->last_seen_batch);
	if (d->payment_id)
		cli_json_int(o, "payment", d->payment_id);
	else
		cJSON_AddNullToObject(o, "payment");
	if (d->refund_id)
		cli_json_int(o, "refund", d->refund_id);
	else
		cJSON_AddNullToObject(o, "refund");
	cli_json_str(o, "line_id", d->line_id[0] ? d->line_id : NULL);
	if (d->line_data)
		cJSON_AddItemToObject(o, "line", cJSON_Parse(d->line_data));
	else
		cJSON_AddNullToObject(o, "line");
	if (d->has_local)
		cli_json_int(o, "local_amount", d->local_amount);
	else
		cJSON_AddNullToObject(o, "local_amount");
	cli_json_str(o, "local_currency", d->local_currency[0] ? d->local_currency : NULL);
	if (d->has_channel)
		cli_json_int(o, "channel_amount", d->channel_amount);
	else
		cJSON_AddNullToObject(o, "channel_amount");
	cli_json_str(o, "channel_currency", d->channel_currency[0] ? d->channel_currency : NULL);
	cli_json_str(o, "detail", d->detail);
	cli_json_str(o, "state", d->state);
	if (d->action[0]) {
		res = cJSON_AddObjectToObject(o, "resolution");
		cli_json_str(res, "action", d->action);
		cli_json_str(res, "note", d->note);
		if (d->res_payment_id)
			cli_json_int(res, "payment", d->res_payment_id);
		if (d->res_refund_id)
			cli_json_int(res, "refund", d->res_refund_id);
		if (d->res_batch_id)
			cli_json_int(res, "batch", d->res_batch_id);
		cli_json_str(res, "operator", d->res_operator);
		cli_json_time(res, "at", d->res_at);
	} else {
		cJSON_AddNullToObject(o, "resolution");
	}
	return o;
}

static int diff_cb(const struct recon_diff *d, void *arg)
{
	struct cli *c = arg;

	if (c->json) {
		cli_list_add(c, diff_json(d));
		return 0;
	}
	printf("%-6lld %-17s %-8s ", (long long)d->id, d->kind, d->state);
	cli_puts_safe(d->detail);
	if (d->action[0]) {
		printf(" [%s: ", d->action);
		cli_puts_safe(d->note);
		putchar(']');
	}
	putchar('\n');
	return 0;
}

static int total_cb(const struct recon_total *t, void *arg)
{
	cJSON *arr = arg;
	char g[MONEY_BUFSZ], f[MONEY_BUFSZ], n[MONEY_BUFSZ], l[MONEY_BUFSZ];

	if (arr) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "currency", t->currency);
		cli_json_int(o, "lines", t->lines);
		cli_json_int(o, "gross", t->gross);
		cli_json_int(o, "fee", t->fee);
		cli_json_int(o, "net", t->net);
		cli_json_int(o, "local", t->local);
		cJSON_AddItemToArray(arr, o);
		return 0;
	}
	printf(_("  %1$s: %2$lld line(s), gross %3$s, fees %4$s, net %5$s; ours %6$s\n"),
	       t->currency, (long long)t->lines, money_text(t->gross, t->currency, 1, g),
	       money_text(t->fee, t->currency, 1, f), money_text(t->net, t->currency, 1, n),
	       money_text(t->local, t->currency, 1, l));
	return 0;
}

static int cmd_show(struct cli *c, const struct cli_args *a)
{
	struct recon_batch b;
	int rc;

	if ((rc = recon_batch_get(c->db, a->id, &b)) != 0)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = batch_json(&b), *t = cJSON_AddArrayToObject(o, "totals");

		if ((rc = recon_batch_totals(c->db, b.id, total_cb, t)) != 0) {
			cJSON_Delete(o);
			return cli_refused(rc);
		}
		c->out = o;
		cJSON_AddArrayToObject(o, "differences");
		/* cli_list_add appends to the object's one array: build it by hand */
		{
			struct cli tmp = *c;
			cJSON *list = cJSON_CreateObject();

			tmp.out = list;
			cJSON_AddArrayToObject(list, "differences");
			rc = recon_diff_list(c->db, b.id, NULL, NULL, NULL, diff_cb, &tmp);
			cJSON_ReplaceItemInObject(o, "differences",
			                          cJSON_DetachItemFromObject(list, "differences"));
			cJSON_Delete(list);
		}
		c->out = NULL;
		if (rc) {
			cJSON_Delete(o);
			return cli_refused(rc);
		}
		cli_print_json(o);
		return CLI_OK;
	}
	printf(_("Batch %1$lld: %2$s %3$s (%4$s), %5$s\n"), (long long)b.id, b.provider, b.day,
	       b.source, b.status);
	if (b.sha256[0])
		cli_field(_("File sha256"), b.sha256);
	cli_field(_("Run by"), b.operator_id);
	if (b.error[0])
		cli_field(_("Error"), b.error);
	printf(_("%1$lld channel line(s), %2$lld of ours, %3$lld matched; %4$lld open now\n"),
	       (long long)b.lines, (long long)b.local, (long long)b.matched, (long long)b.open_now);
	if ((rc = recon_batch_totals(c->db, b.id, total_cb, NULL)) != 0)
		return cli_refused(rc);
	rc = recon_diff_list(c->db, b.id, NULL, NULL, NULL, diff_cb, c);
	return rc ? cli_refused(rc) : CLI_OK;
}

static int state_check(struct cli *c, const struct cli_args *a)
{
	const char *s = cli_arg_get(a, "state");

	(void)c;
	if (s && strcmp(s, "open") && strcmp(s, "resolved"))
		return cli_usage(a->cmd, _("--state is open or resolved, not '%s'"), s);
	return date_check(c, a);
}

static int cmd_diffs(struct cli *c, const struct cli_args *a)
{
	int rc;

	cli_list_begin(c, "differences");
	rc = recon_diff_list(c->db, 0, cli_arg_get(a, "channel"), cli_arg_get(a, "date"),
	                     cli_arg_get(a, "state"), diff_cb, c);
	return cli_list_end(c, rc);
}

static int cmd_diff(struct cli *c, const struct cli_args *a)
{
	struct recon_diff d;
	int rc;

	if ((rc = recon_diff_get(c->db, a->id, &d)) != 0)
		return cli_refused(rc);
	if (c->json) {
		cli_print_json(diff_json(&d));
	} else {
		printf(_("Difference %1$lld: %2$s, %3$s (%4$s %5$s)\n"), (long long)d.id, d.kind,
		       d.state, d.provider, d.day);
		cli_field(_("Detail"), d.detail);
		if (d.line_data)
			cli_field(_("Channel line"), d.line_data);
		if (d.action[0]) {
			cli_field(_("Resolution"), d.action);
			cli_field(_("Note"), d.note);
			cli_field(_("By"), d.res_operator);
		}
	}
	recon_diff_free(&d);
	return CLI_OK;
}

/* The --invoice list "INV[:AMOUNT],INV2..." split in place into texts. */
static size_t split_invoices(char *s, char **out, size_t max)
{
	size_t n = 0;
	char *save = NULL, *t;

	for (t = s ? strtok_r(s, ",", &save) : NULL; t && n < max; t = strtok_r(NULL, ",", &save))
		if (*t)
			out[n++] = t;
	return n;
}

#define INVOICES_MAX 64

static int resolve_check(struct cli *c, const struct cli_args *a)
{
	int n = cli_arg_flag(a, "accept") + cli_arg_flag(a, "record") + cli_arg_flag(a, "correct");

	(void)c;
	if (n != 1)
		return cli_usage(a->cmd, _("say one decision: --accept, --record or --correct"));
	if (cli_arg_flag(a, "accept") && cli_arg_get(a, "invoice"))
		return cli_usage(a->cmd,
		                 _("--accept records nothing: --invoice does not go with it"));
	return 0;
}

static int cmd_resolve(struct cli *c, const struct cli_args *a)
{
	struct recon_pay p = {0};
	char *inv = cli_arg_get(a, "invoice") ? xstrdup(cli_arg_get(a, "invoice")) : NULL;
	char *texts[INVOICES_MAX];
	int64_t pay = 0, ref = 0;
	int rc, replayed = 0;
	const char *what;

	p.customer_id = cli_arg_id(a, "customer");
	p.note = cli_arg_get(a, "note");
	p.n = split_invoices(inv, texts, INVOICES_MAX);
	p.invoices = (const char *const *)texts;
	if (cli_arg_flag(a, "accept")) {
		what = "accept";
		rc = recon_accept(c->db, a->id, p.note);
	} else if (cli_arg_flag(a, "record")) {
		what = "record_payment";
		rc = recon_record(c->db, a->id, &p, &pay, &replayed);
	} else {
		what = "correcting_entry";
		rc = recon_correct(c->db, a->id, &p, &pay, &ref);
	}
	free(inv);
	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *j = cJSON_CreateObject();

		cli_json_int(j, "difference", a->id);
		cli_json_str(j, "action", what);
		if (pay)
			cli_json_int(j, "payment", pay);
		else
			cJSON_AddNullToObject(j, "payment");
		if (ref)
			cli_json_int(j, "refund", ref);
		else
			cJSON_AddNullToObject(j, "refund");
		cJSON_AddBoolToObject(j, "replayed", replayed);
		cli_print_json(j);
	} else if (pay && replayed) {
		printf(_("Difference %1$lld: resolved; payment %2$lld was recorded already.\n"),
		       (long long)a->id, (long long)pay);
	} else if (pay) {
		printf(_("Difference %1$lld: resolved; recorded payment %2$lld.\n"),
		       (long long)a->id, (long long)pay);
	} else if (ref) {
		printf(_("Difference %1$lld: resolved; recorded refund %2$lld.\n"),
		       (long long)a->id, (long long)ref);
	} else {
		printf(_("Difference %lld: accepted.\n"), (long long)a->id);
	}
	return CLI_OK;
}

static int parked_cb(const struct recon_parked *e, void *arg)
{
	struct cli *c = arg;
	char t[32];

	if (c->json) {
		cJSON *o = cJSON_CreateObject(), *payload;

		cli_json_int(o, "id", e->id);
		cli_json_str(o, "source", e->source);
		cli_json_str(o, "external_id", e->external_id);
		cli_json_str(o, "type", e->event_type);
		cli_json_str(o, "object_id", e->object_id);
		cli_json_str(o, "status", e->status);
		cli_json_time_opt(o, "channel_created_at", e->channel_created_at);
		cli_json_time(o, "received_at", e->received_at);
		cli_json_str(o, "last_error", e->last_error[0] ? e->last_error : NULL);
		payload = cJSON_ParseWithLength((const char *)e->payload, e->len);
		if (payload)
			cJSON_AddItemToObject(o, "payload", payload);
		else
			cJSON_AddNullToObject(o, "payload");
		cli_list_add(c, o);
		return 0;
	}
	clock_format_local(e->received_at, "%Y-%m-%d %H:%M", t, sizeof t);
	printf("%-6lld %-7s %-16s ", (long long)e->id, e->status, t);
	cli_puts_safe(e->event_type);
	putchar(' ');
	cli_puts_safe(e->object_id);
	putchar('\n');
	return 0;
}

static int cmd_parked(struct cli *c, const struct cli_args *a)
{
	int rc;

	cli_list_begin(c, "events");
	rc = recon_parked_list(c->db, cli_arg_get(a, "channel"), parked_cb, c);
	return cli_list_end(c, rc);
}

static int cmd_claim(struct cli *c, const struct cli_args *a)
{
	struct pipe_conn ch;
	struct recon_pay p = {0};
	char *inv = cli_arg_get(a, "invoice") ? xstrdup(cli_arg_get(a, "invoice")) : NULL;
	char *texts[INVOICES_MAX];
	int64_t pay = 0;
	int rc, replayed = 0;

	p.customer_id = cli_arg_id(a, "customer");
	p.note = cli_arg_get(a, "note");
	p.n = split_invoices(inv, texts, INVOICES_MAX);
	p.invoices = (const char *const *)texts;
	memset(&ch, 0, sizeof ch);
	rc = chan_adapter_connect(c->db, cli_arg_get(a, "channel"), cli_arg_get(a, "secrets"), NULL,
	                          &ch);
	if (!rc)
		rc = recon_claim(c->db, &ch, a->id, &p, &pay, &replayed);
	pipe_conn_close(&ch);
	free(inv);
	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *j = cJSON_CreateObject();

		cli_json_int(j, "event", a->id);
		cli_json_int(j, "payment", pay);
		cJSON_AddBoolToObject(j, "replayed", replayed);
		cli_print_json(j);
	} else if (replayed) {
		printf(_("Event %1$lld was claimed already: payment %2$lld.\n"), (long long)a->id,
		       (long long)pay);
	} else {
		printf(_("Event %1$lld claimed: recorded payment %2$lld.\n"), (long long)a->id,
		       (long long)pay);
	}
	return CLI_OK;
}

static int payout_cb(const struct recon_payout *p, void *arg)
{
	struct cli *c = arg;
	char amt[MONEY_BUFSZ], sum[MONEY_BUFSZ];

	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "provider", p->provider);
		cli_json_str(o, "payout", p->payout_id);
		cli_json_int(o, "amount", p->amount);
		cli_json_str(o, "currency", p->currency);
		cli_json_int(o, "lines", p->lines);
		cli_json_int(o, "lines_sum", p->lines_sum);
		cJSON_AddBoolToObject(o, "matches", p->matches);
		cli_json_str(o, "arrival", p->arrival[0] ? p->arrival : NULL);
		cli_json_int(o, "batch", p->batch_id);
		cli_json_time_opt(o, "ticked_at", p->ticked_at);
		cli_json_str(o, "ticked_by", p->ticked_at ? p->ticked_by : NULL);
		cli_list_add(c, o);
		return 0;
	}
	cli_puts_safe(p->payout_id);
	printf(_("  %1$s %2$s, %3$lld line(s) adding up to %4$s: %5$s; arrives %6$s; %7$s\n"),
	       money_text(p->amount, p->currency, 1, amt), p->currency, (long long)p->lines,
	       money_text(p->lines_sum, p->currency, 1, sum),
	       p->matches ? _("matches") : _("DOES NOT MATCH"), p->arrival[0] ? p->arrival : "-",
	       p->ticked_at ? _("ticked off") : _("not ticked off"));
	return 0;
}

static int cmd_payouts(struct cli *c, const struct cli_args *a)
{
	int rc;

	cli_list_begin(c, "payouts");
	rc = recon_payout_list(c->db, cli_arg_get(a, "channel"), cli_arg_flag(a, "unticked"),
	                       payout_cb, c);
	return cli_list_end(c, rc);
}

static int payout_check(struct cli *c, const struct cli_args *a)
{
	(void)c;
	if (strcmp(a->pos[0], "tick"))
		return cli_usage(a->cmd, _("unknown payout command '%.40s' (tick PAYOUT)"),
		                 a->pos[0]);
	return 0;
}

static int cmd_payout(struct cli *c, const struct cli_args *a)
{
	int rc = recon_payout_tick(c->db, a->pos[1]);

	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *j = cJSON_CreateObject();

		cli_json_str(j, "payout", a->pos[1]);
		cJSON_AddBoolToObject(j, "ticked", 1);
		cli_print_json(j);
	} else {
		printf(_("Payout %s ticked off.\n"), a->pos[1]);
	}
	return CLI_OK;
}

static int cmd_state(struct cli *c, const struct cli_args *a)
{
	struct recon_state s;
	int rc;

	if ((rc = recon_day_state(c->db, cli_arg_get(a, "channel"), &s)) != 0)
		return cli_refused(rc);
	if (c->json) {
		cJSON *j = cJSON_CreateObject();

		cli_json_str(j, "last_balanced", s.last_balanced[0] ? s.last_balanced : NULL);
		cli_json_int(j, "open", s.open);
		cli_json_int(j, "open_days", s.open_days);
		cli_print_json(j);
		return CLI_OK;
	}
	if (s.last_balanced[0])
		printf(_("Last balanced day: %s\n"), s.last_balanced);
	else
		printf(_("No day is balanced yet.\n"));
	printf(_("%1$lld open difference(s) on %2$lld day(s)\n"), (long long)s.open,
	       (long long)s.open_days);
	return CLI_OK;
}

const struct cli_entry cli_recon_cmds[] = {
    {"run", NULL, "--date D [--channel C]", "--date YYYY-MM-DD [--channel CODE] [--secrets FILE]",
     N_("reconcile a business day against the channel's settlement data (fetched)"),
     .opts = {{"date", CLI_VALUE, N_("the business day, in the shop's time zone"), NULL,
               N_("--date is required")},
              CHANNEL_OPT,
              SECRETS_OPT},
     .db = CLI_DB_OPEN, .check = date_check, .run = cmd_run},
    {"import", NULL, "FILE [--date D] [--channel C]", NULL,
     N_("reconcile a day against a downloaded settlement file (Stripe CSV, WeChat style bill)"),
     .opts = {{"date", CLI_VALUE,
               N_("the business day (default: the day of the file's first line)"), NULL, NULL},
              {"channel", CLI_VALUE, N_("the payment provider (default: the file's channel)"), NULL,
               NULL}},
     .min_pos = 1, .max_pos = 1, .missing = N_("name the settlement file"), .nonempty = 1,
     .db = CLI_DB_OPEN, .check = date_check, .run = cmd_import},
    {"list", NULL, "[--date D] [--channel C]", "[--date D] [--channel C] [--limit N]",
     N_("list reconciliation batches, newest first"),
     .opts = {{"date", CLI_VALUE, N_("only batches of this business day"), NULL, NULL},
              {"channel", CLI_VALUE, N_("only batches of this provider"), NULL, NULL},
              {"limit", CLI_ID, N_("at most this many (default 100)"), NULL, NULL}},
     .db = CLI_DB_OPEN, .check = date_check, .run = cmd_list},
    {"show", NULL, "BATCH", NULL,
     N_("show a batch: its counts, totals per currency and differences"), .max_pos = 1,
     .id = N_("the batch id"), .db = CLI_DB_OPEN, .run = cmd_show},
    {"diffs", NULL, "[--date D] [--state open|resolved]",
     "[--date D] [--state open|resolved] [--channel C]", N_("list differences (all days, or one)"),
     .opts = {{"date", CLI_VALUE, N_("only differences of this business day"), NULL, NULL},
              {"state", CLI_VALUE, N_("open or resolved"), NULL, NULL},
              {"channel", CLI_VALUE, N_("only differences of this provider"), NULL, NULL}},
     .db = CLI_DB_OPEN, .check = state_check, .run = cmd_diffs},
    {"diff", NULL, "DIFF", NULL, N_("show one difference with the channel's line"), .max_pos = 1,
     .id = N_("the difference id"), .db = CLI_DB_OPEN, .run = cmd_diff},
    {"resolve", NULL, "DIFF --accept|--record|--correct --note TEXT",
     "DIFF (--accept | --record | --correct) --note TEXT [--invoice INV[:AMOUNT],...] "
     "[--customer C]",
     N_("decide a difference: accept it, record the channel's payment, or post a correcting "
        "entry"),
     .opts = {{"accept", CLI_FLAG, N_("it is right as it is (the note says why)"), NULL, NULL},
              {"record", CLI_FLAG,
               N_("channel_only: record the payment the channel shows, with its allocations"), NULL,
               NULL},
              {"correct", CLI_FLAG,
               N_("post a correcting entry (a refund the desk did not know, the difference of "
                  "an amount)"),
               NULL, NULL},
              {"note", CLI_VALUE, N_("why (required; kept in the history)"), NULL,
               N_("--note is required")},
              {"invoice", CLI_VALUE,
               N_("allocate to these invoices: INV[:AMOUNT], comma separated (default: what "
                  "each owes)"),
               NULL, NULL},
              {"customer", CLI_ID,
               N_("whose payment it is (default: the order's, else the first invoice's)"),
               N_("the customer id"), NULL}},
     .max_pos = 1, .id = N_("the difference id"), .db = CLI_DB_OPEN, .check = resolve_check,
     .run = cmd_resolve},
    {"parked", NULL, "[--channel C]", NULL,
     N_("list payment events parked because they match no order of ours"),
     .opts = {{"channel", CLI_VALUE, N_("only events of this provider"), NULL, NULL}},
     .db = CLI_DB_OPEN, .run = cmd_parked},
    {"claim", NULL, "EVENT --customer C --note TEXT [--invoice INV[:AMOUNT],...]",
     "EVENT --customer C --note TEXT [--invoice INV[:AMOUNT],...] [--channel C] "
     "[--secrets FILE]",
     N_("record a parked payment event for a customer and invoices (once)"),
     .opts = {{"customer", CLI_ID_NEEDED, N_("whose payment it is"), N_("the customer id"), NULL},
              {"note", CLI_VALUE, N_("why (required; kept in the history)"), NULL,
               N_("--note is required")},
              {"invoice", CLI_VALUE,
               N_("allocate to these invoices: INV[:AMOUNT], comma separated"), NULL, NULL},
              CHANNEL_OPT,
              SECRETS_OPT},
     .max_pos = 1, .id = N_("the event id"), .db = CLI_DB_OPEN, .run = cmd_claim},
    {"payouts", NULL, "[--unticked] [--channel C]", NULL,
     N_("the channel's payouts: whether their lines add up, whether ticked off"),
     .opts = {{"unticked", CLI_FLAG, N_("only those not ticked off yet"), NULL, NULL},
              {"channel", CLI_VALUE, N_("only this provider's"), NULL, NULL}},
     .db = CLI_DB_OPEN, .run = cmd_payouts},
    {"payout", NULL, "tick PAYOUT", NULL, N_("tick a payout off against the bank statement"),
     .min_pos = 2, .max_pos = 2, .missing = N_("say: tick PAYOUT (the channel's payout id)"),
     .nonempty = 1, .db = CLI_DB_OPEN, .check = payout_check, .run = cmd_payout},
    {"state", NULL, "[--channel C]", NULL, N_("the last balanced day and the open differences"),
     .opts = {{"channel", CLI_VALUE, N_("only this provider"), NULL, NULL}}, .db = CLI_DB_OPEN,
     .run = cmd_state},
    {NULL},
};
