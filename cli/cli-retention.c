/*
 * cli-retention.c - `frontdesk retention ...`: customer data retention
 * (retention.h, lifecycle.h). Every rule is the core's: this file parses,
 * calls and prints.
 *
 *   run [--dry-run] [--no-propose] [--no-purge] [--limit N]
 *   list [--state S|--all]    show DELETION-ID    certs
 *   propose --customer ID     purge DELETION-ID --generation N
 *   restore --customer ID [--reason TEXT]
 *   hold --customer ID --reason TEXT    release --customer ID
 *   lifecycle --customer ID   rebuild
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-util.h"
#include "clock.h"
#include "err.h"
#include "hq.h"
#include "i18n.h"
#include "lifecycle.h"
#include "retention.h"
#include "task.h"

static void day(int64_t t, char *buf, size_t n)
{
	if (t)
		clock_format_local(t, "%Y-%m-%d", buf, n);
	else
		snprintf(buf, n, "-");
}

static cJSON *proc_json(const struct retention_proc *p)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_str(o, "deletion_id", p->deletion_id);
	if (p->customer_id)
		cli_json_int(o, "customer_id", p->customer_id);
	else
		cJSON_AddNullToObject(o, "customer_id");
	cli_json_str(o, "customer", p->customer);
	cli_json_int(o, "generation", p->generation);
	cli_json_str(o, "state", p->state);
	cli_json_str(o, "reason", p->reason);
	cli_json_str(o, "modules", p->modules);
	cli_json_time(o, "proposed_at", p->proposed_at);
	cli_json_time_opt(o, "soft_deleted_at", p->soft_deleted_at);
	cli_json_time_opt(o, "delete_after", p->delete_after);
	cli_json_time_opt(o, "finished_at", p->finished_at);
	return o;
}

/* ---------------------------------------------------------------- run */

static int event_cb(const struct retention_event *e, void *arg)
{
	struct cli *c = arg;
	char when[32];

	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "action", e->action);
		cli_json_int(o, "customer_id", e->customer_id);
		cli_json_str(o, "customer", e->customer);
		cli_json_str(o, "deletion_id", e->deletion_id);
		cli_json_int(o, "generation", e->generation);
		cli_json_time_opt(o, "when", e->when);
		cli_json_str(o, "reason", e->reason);
		cli_list_add(c, o);
		return 0;
	}
	printf("%-11s %6lld  ", e->action, (long long)e->customer_id);
	cli_puts_safe(e->customer ? e->customer : "-");
	if (e->deletion_id[0])
		printf("  %s/%lld", e->deletion_id, (long long)e->generation);
	if (e->when) {
		day(e->when, when, sizeof when);
		fputs("  ", stdout);
		printf(_("purge after %s"), when);
	}
	if (e->reason) {
		fputs("  ", stdout);
		cli_puts_safe(e->reason);
	}
	putchar('\n');
	return 0;
}

static int cmd_run(struct cli *c, const struct cli_args *a)
{
	struct retention_run_opts o = {0};

	o.dry_run = cli_arg_flag(a, "dry-run");
	o.propose = !cli_arg_flag(a, "no-propose");
	o.purge = !cli_arg_flag(a, "no-purge");
	o.limit = (int)cli_arg_id(a, "limit");
	o.catch_up = task_catch_up; /* the lifecycle rows are brought up to date first */
	o.cb = event_cb;
	o.arg = c;
	cli_list_begin(c, "events");
	return cli_list_end(c, retention_run(c->db, &o));
}

/* ---------------------------------------------------------------- reading */

static int list_cb(const struct retention_proc *p, void *arg)
{
	struct cli *c = arg;
	char a1[32], a2[32];

	if (c->json) {
		cli_list_add(c, proc_json(p));
		return 0;
	}
	day(p->proposed_at, a1, sizeof a1);
	day(p->delete_after, a2, sizeof a2);
	printf("%s  %-12s %3lld  %6lld  %s  %s  ", p->deletion_id, p->state,
	       (long long)p->generation, (long long)p->customer_id, a1, a2);
	cli_puts_safe(p->customer ? p->customer : "-");
	if (p->reason) {
		fputs("  ", stdout);
		cli_puts_safe(p->reason);
	}
	putchar('\n');
	return 0;
}

static int cmd_list(struct cli *c, const struct cli_args *a)
{
	const char *state = cli_arg_get(a, "state");

	if (cli_arg_flag(a, "all"))
		state = NULL;
	else if (!state)
		state = "live";
	cli_list_begin(c, "deletions");
	return cli_list_end(c, retention_list(c->db, state, list_cb, c));
}

static int cmd_show(struct cli *c, const struct cli_args *a)
{
	struct retention_proc p;
	char buf[64];
	int rc;

	if ((rc = retention_get(c->db, a->pos[0], &p)))
		return cli_refused(rc);
	if (c->json) {
		cli_print_json(proc_json(&p));
		retention_proc_free(&p);
		return CLI_OK;
	}
	cli_field(_("Deletion"), p.deletion_id);
	snprintf(buf, sizeof buf, "%lld", (long long)p.generation);
	cli_field(_("Generation"), buf);
	cli_field(_("State"), p.state);
	if (p.customer_id) {
		snprintf(buf, sizeof buf, "%lld", (long long)p.customer_id);
		cli_field(_("Customer"), buf);
	}
	if (p.customer)
		cli_field(_("Name"), p.customer);
	cli_field(_("Modules"), p.modules[0] ? p.modules : "-");
	day(p.proposed_at, buf, sizeof buf);
	cli_field(_("Proposed"), buf);
	day(p.soft_deleted_at, buf, sizeof buf);
	cli_field(_("Soft-deleted"), buf);
	day(p.delete_after, buf, sizeof buf);
	cli_field(_("Purge after"), buf);
	day(p.finished_at, buf, sizeof buf);
	cli_field(_("Finished"), buf);
	if (p.reason)
		cli_field(_("Reason"), p.reason);
	retention_proc_free(&p);
	return CLI_OK;
}

static int cert_cb(const struct retention_cert *ct, void *arg)
{
	struct cli *c = arg;
	char when[32], shop[21];
	int64_t at = 0;
	/* the head office is a participant once it confirmed (hq.h) */
	int hq = hq_cert_part(c->db, ct->deletion_id, shop, &at);

	err_clear();
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "deletion_id", ct->deletion_id);
		cli_json_str(o, "customer_hash", ct->customer_hash);
		cli_json_int(o, "generation", ct->generation);
		cli_json_time(o, "proposed_at", ct->proposed_at);
		cli_json_time(o, "purged_at", ct->purged_at);
		cli_json_str(o, "modules", ct->modules);
		cli_json_str(o, "operator", ct->operator_id);
		{
			/* the media providers' copies it asked them to delete */
			cJSON *h = cJSON_AddObjectToObject(o, "hosted_copies");

			cli_json_int(h, "asked", ct->hosted);
			cli_json_int(h, "deleted", ct->hosted_deleted);
		}
		if (hq == HQ_CERT_CONFIRMED) {
			cJSON *h = cJSON_AddObjectToObject(o, "head_office");

			cli_json_str(h, "shop", shop);
			cli_json_time(h, "confirmed_at", at);
		} else if (hq == HQ_CERT_WAITING)
			cJSON_AddNullToObject(o, "head_office");
		cli_list_add(c, o);
		return 0;
	}
	clock_format_local(ct->purged_at, "%Y-%m-%d %H:%M", when, sizeof when);
	printf("%s  %s  %s  ", ct->deletion_id, ct->customer_hash, when);
	cli_puts_safe(ct->modules);
	if (ct->hosted)
		printf(_(", %1$lld hosted media copies asked deleted at their providers (%2$lld "
		         "deleted)"),
		       (long long)ct->hosted, (long long)ct->hosted_deleted);
	if (hq == HQ_CERT_CONFIRMED) {
		clock_format_local(at, "%Y-%m-%d %H:%M", when, sizeof when);
		printf(_(", head office %1$s (confirmed %2$s)"), shop, when);
	} else if (hq == HQ_CERT_WAITING)
		fputs(_(" (the head office has not confirmed yet)"), stdout);
	putchar('\n');
	return 0;
}

static int cmd_certs(struct cli *c, const struct cli_args *a)
{
	(void)a;
	cli_list_begin(c, "certificates");
	return cli_list_end(c, retention_certs(c->db, cert_cb, c));
}

static int cmd_lifecycle(struct cli *c, const struct cli_args *a)
{
	struct lifecycle_row r;
	char *hold = NULL;
	int rc;

	if ((rc = lifecycle_get(c->db, cli_arg_id(a, "customer"), &r)))
		return cli_refused(rc);
	if ((rc = retention_hold_get(c->db, r.customer_id, &hold)) < 0)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "customer_id", r.customer_id);
		cli_json_time(o, "last_activity_at", r.last_activity_at);
		cli_json_int(o, "open_appointments", r.open_appointments);
		cli_json_int(o, "owing_invoices", r.owing_invoices);
		cli_json_int(o, "open_credits", r.open_credits);
		cJSON_AddBoolToObject(o, "held", r.held);
		cli_json_str(o, "hold_reason", hold);
		cli_json_str(o, "state", r.state);
		cli_json_str(o, "deletion_id", r.deletion_id[0] ? r.deletion_id : NULL);
		cli_json_int(o, "generation", r.generation);
		cli_json_time_opt(o, "delete_after", r.delete_after);
		cli_json_int(o, "projection_version", r.version);
		cli_json_int(o, "schema_version", r.schema_version);
		cli_json_time(o, "built_at", r.built_at);
		cli_print_json(o);
	} else {
		char buf[64];

		cli_field(_("State"), r.state);
		day(r.last_activity_at, buf, sizeof buf);
		cli_field(_("Last activity"), buf);
		snprintf(buf, sizeof buf, "%lld", (long long)r.open_appointments);
		cli_field(_("Open visits"), buf);
		snprintf(buf, sizeof buf, "%lld", (long long)r.owing_invoices);
		cli_field(_("Invoices owing"), buf);
		snprintf(buf, sizeof buf, "%lld", (long long)r.open_credits);
		cli_field(_("Open credits"), buf);
		cli_field(_("Hold"), hold ? hold : "-");
		if (r.deletion_id[0])
			cli_field(_("Deletion"), r.deletion_id);
		if (r.delete_after) {
			day(r.delete_after, buf, sizeof buf);
			cli_field(_("Purge after"), buf);
		}
	}
	free(hold);
	return CLI_OK;
}

static int cmd_rebuild(struct cli *c, const struct cli_args *a)
{
	int64_t n = 0;
	int rc;

	(void)a;
	if ((rc = lifecycle_rebuild_all(c->db, &n)))
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "rows_written", n);
		cli_print_json(o);
	} else {
		printf(_("Lifecycle rebuilt: %lld rows written.\n"), (long long)n);
	}
	return CLI_OK;
}

/* ---------------------------------------------------------------- changing */

static int print_proc(struct cli *c, const char *deletion_id)
{
	struct retention_proc p;
	int rc;

	if ((rc = retention_get(c->db, deletion_id, &p)))
		return cli_refused(rc);
	if (c->json)
		cli_print_json(proc_json(&p));
	else
		printf(_("Deletion %1$s, generation %2$lld: %3$s.\n"), p.deletion_id,
		       (long long)p.generation, p.state);
	retention_proc_free(&p);
	return CLI_OK;
}

static int cmd_propose(struct cli *c, const struct cli_args *a)
{
	char id[RETENTION_ID_LEN + 1] = "";
	int rc;

	rc = retention_propose(c->db, cli_arg_id(a, "customer"), id);
	if (rc && !id[0])
		return cli_refused(rc);
	if (rc) {
		fprintf(stderr, "frontdesk: %s\n", err_msg());
		print_proc(c, id);
		return CLI_REFUSED;
	}
	return print_proc(c, id);
}

static int cmd_purge(struct cli *c, const struct cli_args *a)
{
	const char *why = NULL;
	int64_t gen = cli_arg_id(a, "generation");
	int ignored = 0, rc;

	if ((rc = retention_purge(c->db, a->pos[0], gen, &ignored, &why)))
		return cli_refused(rc);
	if (ignored) {
		if (c->json) {
			cJSON *o = cJSON_CreateObject();

			cli_json_str(o, "deletion_id", a->pos[0]);
			cJSON_AddBoolToObject(o, "ignored", 1);
			cli_json_str(o, "reason", why);
			cli_print_json(o);
		} else {
			printf(_("Nothing purged: %s\n"), why);
		}
		return CLI_OK;
	}
	return print_proc(c, a->pos[0]);
}

static int cmd_restore(struct cli *c, const struct cli_args *a)
{
	int rc;

	if ((rc = retention_cancel(c->db, cli_arg_id(a, "customer"), cli_arg_get(a, "reason"))))
		return cli_refused(rc);
	if (!c->json)
		printf(_("Customer %lld restored: the deletion is cancelled.\n"),
		       (long long)cli_arg_id(a, "customer"));
	else
		cli_print_json(cJSON_CreateTrue());
	return CLI_OK;
}

static int cmd_hold(struct cli *c, const struct cli_args *a)
{
	int rc;

	if ((rc = retention_hold(c->db, cli_arg_id(a, "customer"), cli_arg_get(a, "reason"))))
		return cli_refused(rc);
	if (!c->json)
		printf(_("Customer %lld is held: no deletion until the hold is lifted.\n"),
		       (long long)cli_arg_id(a, "customer"));
	else
		cli_print_json(cJSON_CreateTrue());
	return CLI_OK;
}

static int cmd_release(struct cli *c, const struct cli_args *a)
{
	int rc;

	if ((rc = retention_release(c->db, cli_arg_id(a, "customer"))))
		return cli_refused(rc);
	if (!c->json)
		printf(_("The hold on customer %lld is lifted.\n"),
		       (long long)cli_arg_id(a, "customer"));
	else
		cli_print_json(cJSON_CreateTrue());
	return CLI_OK;
}

#define CUSTOMER_OPT                                                                               \
	{                                                                                          \
		"customer", CLI_ID_NEEDED, N_("the customer's id"), N_("--customer"), NULL         \
	}

const struct cli_entry cli_retention_cmds[] = {
    {"run", NULL, "[--dry-run] [--no-propose] [--no-purge] [--limit N]", NULL,
     N_("propose, prepare, soft-delete and purge the customers the retention period has passed"),
     .opts = {{"dry-run", CLI_FLAG, N_("only list what would happen, with the reasons"), NULL,
               NULL},
              {"no-propose", CLI_FLAG, N_("move the deletions under way on; propose nobody new"),
               NULL, NULL},
              {"no-purge", CLI_FLAG, N_("purge nobody in this run"), NULL, NULL},
              {"limit", CLI_ID, N_("propose at most this many customers"), N_("--limit"), NULL}},
     .db = CLI_DB_OPEN, .run = cmd_run},
    {"list", NULL, "[--state S | --all]", NULL,
     N_("the deletions under way (or in state S: preparing, soft_deleted, purging, purged, "
        "cancelled, rejected)"),
     .opts = {{"state", CLI_VALUE, N_("only the deletions in this state"), NULL, NULL},
              {"all", CLI_FLAG, N_("every deletion, whatever its state"), NULL, NULL}},
     .db = CLI_DB_OPEN, .run = cmd_list},
    {"show", NULL, "DELETION-ID", NULL, N_("one deletion: its state, modules and dates"),
     .min_pos = 1, .max_pos = 1, .missing = N_("name the deletion id"), .nonempty = 1,
     .db = CLI_DB_OPEN, .run = cmd_show},
    {"certs", NULL, "", NULL, N_("the deletion certificates of the purges"), .db = CLI_DB_OPEN,
     .run = cmd_certs},
    {"propose", NULL, "--customer ID", NULL,
     N_("propose one inactive customer now, prepare and soft-delete them"), .opts = {CUSTOMER_OPT},
     .db = CLI_DB_OPEN, .run = cmd_propose},
    {"purge", NULL, "DELETION-ID --generation N", NULL,
     N_("purge a soft-deleted customer whose retention period has passed"),
     .opts = {{"generation", CLI_ID_NEEDED, N_("the generation the command is for"),
               N_("--generation"), NULL}},
     .min_pos = 1, .max_pos = 1, .missing = N_("name the deletion id"), .nonempty = 1,
     .db = CLI_DB_OPEN, .run = cmd_purge},
    {"restore", NULL, "--customer ID [--reason TEXT]", NULL,
     N_("cancel a customer's deletion: everything comes back"),
     .opts = {CUSTOMER_OPT, {"reason", CLI_VALUE, N_("why, kept with the deletion"), NULL, NULL}},
     .db = CLI_DB_OPEN, .run = cmd_restore},
    {"hold", NULL, "--customer ID --reason TEXT", NULL,
     N_("put a legal hold on a customer (a dispute): never deleted while held"),
     .opts = {CUSTOMER_OPT,
              {"reason", CLI_VALUE, N_("why the customer is held"), NULL,
               N_("--reason is required")}},
     .db = CLI_DB_OPEN, .run = cmd_hold},
    {"release", NULL, "--customer ID", NULL, N_("lift a customer's legal hold"),
     .opts = {CUSTOMER_OPT}, .db = CLI_DB_OPEN, .run = cmd_release},
    {"lifecycle", NULL, "--customer ID", NULL,
     N_("a customer's lifecycle row: last activity, what is open, state"), .opts = {CUSTOMER_OPT},
     .db = CLI_DB_OPEN, .run = cmd_lifecycle},
    {"rebuild", NULL, "", NULL, N_("rebuild the lifecycle projection of every customer"),
     .db = CLI_DB_OPEN, .run = cmd_rebuild},
    {NULL},
};
