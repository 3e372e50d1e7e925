/*
 * cli-history.c - `frontdesk history KIND ID`: a record's timeline, read by
 * the core (history.h) and printed oldest first, one event per line with the
 * fields it changed below it; `--json` gives the same events as a document.
 * Text that came from the database passes the display sanitiser.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-util.h"
#include "clock.h"
#include "db.h"
#include "err.h"
#include "history.h"
#include "i18n.h"
#include "pipe-log.h"
#include "text.h"

struct shown {
	struct cli *c;
	cJSON *events; /* --json */
	int n;
};

static void put(const char *s)
{
	char *safe = text_sanitize(s ? s : "");

	fputs(safe, stdout);
	free(safe);
}

static int show_event(const struct history_event *e, void *arg)
{
	struct shown *s = arg;
	char when[32];
	size_t i;

	s->n++;
	if (s->c->json) {
		cJSON *o = cJSON_CreateObject(), *ch;

		cli_json_time(o, "at", e->at);
		cli_json_str(o, "what", e->what);
		cli_json_str(o, "part", *e->part ? e->part : NULL);
		cli_json_str(o, "operator", *e->operator ? e->operator : NULL);
		cli_json_str(o, "operator_name", *e->operator_name ? e->operator_name : NULL);
		if (!strcmp(e->what, "status")) {
			cli_json_str(o, "from", e->from_status);
			cli_json_str(o, "to", e->to_status);
			cli_json_str(o, "reason", e->reason);
		} else if (!strcmp(e->what, "request")) {
			cli_json_str(o, "request", e->request);
		} else {
			ch = cJSON_AddArrayToObject(o, "changes");
			for (i = 0; i < e->nchanges; i++) {
				cJSON *c = cJSON_CreateObject();

				cli_json_str(c, "field", e->changes[i].field);
				cli_json_str(c, "old", e->changes[i].old_value);
				cli_json_str(c, "new", e->changes[i].new_value);
				cJSON_AddItemToArray(ch, c);
			}
		}
		cJSON_AddItemToArray(s->events, o);
		return 0;
	}
	clock_format_local(e->at, "%Y-%m-%d %H:%M:%S", when, sizeof when);
	printf("%s  ", when);
	if (*e->part) {
		put(e->part);
		fputs(": ", stdout);
	}
	if (!strcmp(e->what, "status")) {
		/* TRANSLATORS: a status change in a record's history: old -> new */
		printf(_("status %s -> %s"), e->from_status ? e->from_status : "-", e->to_status);
		if (e->reason) {
			fputs(" (", stdout);
			put(e->reason);
			fputc(')', stdout);
		}
	} else if (!strcmp(e->what, "request")) {
		printf(_("request to %s: "), e->operator);
		put(e->request);
		fputc('\n', stdout);
		return 0;
	} else if (!strcmp(e->what, "created")) {
		fputs(_("created"), stdout);
	} else if (!strcmp(e->what, "deleted")) {
		fputs(_("deleted"), stdout);
	} else {
		fputs(_("changed"), stdout);
	}
	if (*e->operator) {
		fputs(_(" by "), stdout);
		if (*e->operator_name) {
			put(e->operator_name);
			fputs(" (", stdout);
			put(e->operator);
			fputc(')', stdout);
		} else {
			put(e->operator);
		}
	}
	fputc('\n', stdout);
	for (i = 0; i < e->nchanges; i++) {
		fputs("    ", stdout);
		put(e->changes[i].field);
		fputs(": ", stdout);
		if (e->changes[i].old_value) {
			put(e->changes[i].old_value);
			fputs(" -> ", stdout);
		}
		put(e->changes[i].new_value);
		fputc('\n', stdout);
	}
	return 0;
}

/* The kind is known before the database opens: a wrong one is bad usage. */
static int history_check(struct cli *c, const struct cli_args *a)
{
	(void)c;
	if (history_kind_check(a->pos[0]) != 0)
		return cli_usage(a->cmd, "%s", err_msg());
	return 0;
}

static int cmd_history(struct cli *c, const struct cli_args *a)
{
	struct shown s = {c, NULL, 0};
	char *log;
	int rc;

	if (c->json) {
		c->out = cJSON_CreateObject();
		cli_json_str(c->out, "kind", a->pos[0]);
		cli_json_str(c->out, "ref", a->pos[1]);
		s.events = cJSON_AddArrayToObject(c->out, "events");
	}
	log = pipe_log_default_path(db_path(c->db));
	rc = history_read(c->db, a->pos[0], a->pos[1], log, show_event, &s);
	free(log);
	if (rc == FD_EINVAL) {
		if (c->json) {
			cJSON_Delete(c->out);
			c->out = NULL;
		}
		return cli_usage(a->cmd, "%s", err_msg());
	}
	return cli_list_end(c, rc);
}

const struct cli_entry cli_history_entry = {
    "history",
    NULL,
    "KIND ID",
    NULL,
    N_("the timeline of any record: who changed what, when and why"),
    .min_pos = 2,
    .max_pos = 2,
    .missing = N_("give the kind of record and its id, e.g. 'history invoice "
                  "INV-2026-000001'; kinds: customer, job, visit, item, invoice, "
                  "payment, allocation, refund, card-order, inbound, service, contact, "
                  "estimate, approval, message, recurring, condition, medium, hotspot"),
    .nonempty = 1,
    .db = CLI_DB_OPEN,
    .check = history_check,
    .run = cmd_history};
